/* oracle/op_sample.h -- what the uniform (oracle/op_sample.c) and weighted
 * (oracle/op_sample_weighted.c) sampler entries share: the random graph they sample and the
 * sample count every correct sampler returns. Internal to oracle/. */
#ifndef GNNREF_ORACLE_OP_SAMPLE_H
#define GNNREF_ORACLE_OP_SAMPLE_H
#include <stdint.h>
#include "gnnref/oracle.h"
#include "gnnref/sample.h"
#include "ref/sample_ref.h" /* gnn_sampled: the lists the checks read */

/* A graph in the case's arena: vertex v has a degree uniform in [deg_lo, min(deg_hi, n)],
 * distinct neighbors drawn uniformly, stored in draw order (rows NOT sorted). Streams 1 and 2. */
gnn_status gnn_oracle_sample_random_graph(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int64_t n, int64_t deg_lo,
                                          int64_t deg_hi, gnn_csr *g);

/* Samples of a dst with d candidates at fanout k (k < 0: all of them), with or without
 * replacement. */
int64_t gnn_oracle_sample_expected_count(int64_t d, int64_t k, int replace);

/* A sampler of ops over g with the default options, destroyed with the case. */
gnn_oracle_outcome gnn_oracle_sampler_make(gnn_oracle_ctx *ctx, const gnn_sampler_ops *ops, const gnn_csr *g,
                                           gnn_sampler **smp);

/* The sampled lists a block was built from: dst_gid = the block's first n_dst src, offsets =
 * indptr, nbr_gid[e] = src_gid[indices[e]] (the edge round trip block.build checks). Allocated
 * here (gnn_sampled_free); GNN_ERR_NOMEM. */
gnn_status gnn_oracle_sampled_of_block(const gnn_block *b, gnn_sampled *s);

/* One layer of smp (gnn_sampler_layer, the checked entry point) read back into *s (freed by the
 * caller with gnn_sampled_free); who names the call in failures. */
gnn_oracle_outcome gnn_oracle_sample_lists(gnn_oracle_ctx *ctx, gnn_sampler *smp, const int64_t *seeds,
                                           int64_t n_seeds, const gnn_sample_params *p, const char *who,
                                           gnn_sampled *s);

/* Runs one layer of a sampler of ops over g twice on the same inputs (the same object: the
 * second call checks that nothing it caches changes the draws) into *s and *s2; who names the
 * call in failures ("uniform", "weighted"). Digests the first output; both are freed with the
 * case. */
gnn_oracle_outcome gnn_oracle_sample_twice(gnn_oracle_ctx *ctx, const gnn_sampler_ops *ops, const gnn_csr *g,
                                           const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                                           const char *who, gnn_sampled **s, gnn_sampled **s2);

/* Determinism: the second call's output has the same sizes and bits as the first's. */
gnn_oracle_outcome gnn_oracle_sample_same(gnn_oracle_ctx *ctx, const gnn_sampled *s, const gnn_sampled *s2);

#endif
