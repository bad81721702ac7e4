/* ref/sample_ref.h -- the reference sampler's two steps as plain functions: sample each seed's
 * neighbors into a list of global ids (uniform: ref/sample.c; weighted: ref/sample_weighted.c),
 * then build the block from that list (DGL's to_block, first-appearance order). The sampler
 * object gnn_sampler_ref (include/gnnref/sample.h) is these two steps per layer; the oracle's
 * sampling entries and the tests' mutants call them directly.
 *
 * Their inputs are the entry point's: gnn_sampler_layer and gnn_sampler_blocks
 * (core/ops/minibatch.c, core/ops/sampler_base.c) check the seeds against the graph and the
 * weights of their rows once, so these bodies assume seeds in [0, g->n) and weights >= 0 and
 * finite. A caller that bypasses the entry point owns those checks. Internal to the library,
 * the oracle and the tests. */
#ifndef GNNREF_REF_SAMPLE_REF_H
#define GNNREF_REF_SAMPLE_REF_H

#include <stdint.h>
#include "gnnref/sample.h"

/* Sampled neighbors of a list of dst vertices, in global ids (a COO grouped by dst). */
typedef struct gnn_sampled {
    int64_t n_dst;
    int64_t nnz;
    int64_t *dst_gid; /* (n_dst) the seeds, in order */
    int64_t *offsets; /* (n_dst + 1) */
    int64_t *nbr_gid; /* (nnz) sampled sources of dst i at offsets[i] .. offsets[i+1], in draw order */
} gnn_sampled;
void gnn_sampled_free(gnn_sampled *s);

/* Uniform sampling (the rules of include/gnnref/sample.h's header); with p->weights set it
 * hands the call to gnn_sample_weighted_ref. GNN_ERR_NOMEM. */
gnn_status gnn_sample_uniform_ref(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds,
                                  const gnn_sample_params *p, gnn_sampled *out);
/* Weighted sampling (ref/sample_weighted.c's header, docs/sampling.md); p->weights set.
 * GNN_ERR_NOMEM. */
gnn_status gnn_sample_weighted_ref(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds,
                                   const gnn_sample_params *p, gnn_sampled *out);

/* Block construction (first-appearance order) through the reference ID map. Duplicate dst
 * vertices are an error (GNN_ERR_INVAL): the seed list of a block must be unique;
 * GNN_ERR_RANGE when n_dst + nnz exceeds INT32_MAX (local ids are int32) or an id is negative. */
gnn_status gnn_block_build_ref(const gnn_sampled *s, gnn_block *out);

#endif
