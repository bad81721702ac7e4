/* oracle/op_sample.h -- what the uniform (oracle/op_sample.c) and weighted
 * (oracle/op_sample_weighted.c) sampler entries share: the random graph they sample and the
 * sample count every correct sampler returns. Internal to oracle/. */
#ifndef GNNREF_ORACLE_OP_SAMPLE_H
#define GNNREF_ORACLE_OP_SAMPLE_H
#include <stdint.h>
#include "gnnref/oracle.h"
#include "gnnref/sample.h"

/* A graph in the case's arena: vertex v has a degree uniform in [deg_lo, min(deg_hi, n)],
 * distinct neighbors drawn uniformly, stored in draw order (rows NOT sorted). Streams 1 and 2. */
gnn_status gnn_oracle_sample_random_graph(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int64_t n, int64_t deg_lo,
                                          int64_t deg_hi, gnn_csr *g);

/* Samples of a dst with d candidates at fanout k (k < 0: all of them), with or without
 * replacement. */
int64_t gnn_oracle_sample_expected_count(int64_t d, int64_t k, int replace);

/* Runs ops->sample twice on the same inputs into *s and *s2 (the second call for the
 * determinism check); who names the call in failures ("uniform", "weighted"). Digests the
 * first output; both are freed with the case. */
gnn_oracle_outcome gnn_oracle_sample_twice(gnn_oracle_ctx *ctx, const gnn_sample_ops *ops, const gnn_csr *g,
                                           const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                                           const char *who, gnn_sampled **s, gnn_sampled **s2);

/* Determinism: the second call's output has the same sizes and bits as the first's. */
gnn_oracle_outcome gnn_oracle_sample_same(gnn_oracle_ctx *ctx, const gnn_sampled *s, const gnn_sampled *s2);

#endif
