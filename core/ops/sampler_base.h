/* core/ops/sampler_base.h -- internal to core/ops: the checks that the sampler entry points
 * (core/ops/minibatch.c) and the typed sampler's (core/ops/sample_typed.c) run, once, before an
 * implementation's body (core/ops/sampler_base.c). */
#ifndef GNNREF_CORE_OPS_SAMPLER_BASE_H
#define GNNREF_CORE_OPS_SAMPLER_BASE_H
#include "gnnref/sample.h"

/* 1 when ops has create, layer and destroy and o (not NULL) names a known variant and ID map
 * kind; 0 otherwise (the entry point's GNN_ERR_INVAL). */
int gnn_sampler_ops_options_valid(const gnn_sampler_ops *ops, const gnn_sampler_options *o);

/* Seeds in [0, g->n) (else GNN_ERR_RANGE), then, with p->weights, every weight of a seed's row
 * >= 0 and finite (else GNN_ERR_INVAL): docs/sampling.md section 5.1. */
gnn_status gnn_sample_data_check(const gnn_csr *g, const int64_t *seeds, int64_t n, const gnn_sample_params *p);

#endif
