/* core/ops/sampler_base.h -- internal to core/ops: the checks that the sampler entry points
 * (core/ops/minibatch.c) and the typed sampler's (core/ops/sample_typed.c) run, once, before an
 * implementation's body (core/ops/sampler_base.c). */
#ifndef GNNREF_CORE_OPS_SAMPLER_BASE_H
#define GNNREF_CORE_OPS_SAMPLER_BASE_H
#include "gnnref/sample.h"

/* 1 when ops has create, layer and destroy and o (not NULL) names a known variant and ID map
 * kind; 0 otherwise (the entry point's GNN_ERR_INVAL). */
int gnn_sampler_ops_options_valid(const gnn_sampler_ops *ops, const gnn_sampler_options *o);

/* The fingerprint of a weights array reads GNN_SAMPLE_WEIGHT_PROBES weights: probe j is position
 * gnn_sample_weight_probe(j, nnz), spread over the array, the first and the last included, their
 * bits mixed (splitmix64's finalizer). Cheap (a few cache misses per layer), it tells a new array
 * that a caller placed at the address of a freed one, or an array rewritten in place, from the
 * one seen before, unless the probed weights happen to be unchanged; a change elsewhere is seen
 * only through gnn_sample_params.weights_version. The oracle's in-place updates
 * (gnn_oracle_weights_rewrite) keep these positions, so that only the version tells. */
#define GNN_SAMPLE_WEIGHT_PROBES 64
static inline int64_t gnn_sample_weight_probe(int64_t j, int64_t nnz)
{
    return (nnz - 1) * j / (GNN_SAMPLE_WEIGHT_PROBES - 1);
}
uint64_t gnn_sample_weights_fingerprint(const float *w, int64_t nnz);

/* The rows whose weights the entry point found valid, for one weights array, keyed as the cpu
 * sampler keys what it caches of them (opt/cpu/sample_wtable.h): the pointer, weights_version
 * and the fingerprint. One bit per vertex, so that a row is read once per version and not on
 * every call: the check would otherwise read every weight of every seed's row, which the cpu
 * weighted sampler, after its first use of a row, never does (docs/sampling.md 5.1). Zeroed
 * by its owner; freed with gnn_weight_memo_free. */
typedef struct gnn_weight_memo {
    const float *w;
    uint64_t version, fp;
    uint64_t *bits; /* ((n + 63) / 64) words; NULL until the first weighted check */
} gnn_weight_memo;
void gnn_weight_memo_free(gnn_weight_memo *m);

/* Seeds in [0, g->n) (else GNN_ERR_RANGE), then, with p->weights, every weight of a seed's row
 * >= 0 and finite (else GNN_ERR_INVAL): docs/sampling.md section 5.1. memo (may be NULL: every
 * row is read) skips the rows found valid before under the same key and records the new ones. */
gnn_status gnn_sample_data_check(const gnn_csr *g, const int64_t *seeds, int64_t n, const gnn_sample_params *p,
                                 gnn_weight_memo *memo);

#endif
