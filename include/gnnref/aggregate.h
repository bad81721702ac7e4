/* include/gnnref/aggregate.h -- neighbor aggregation (DistGNN-MB Eq. 1 AGG, SuperGCN Sec. 2).
 *
 * x: (n_src, d) f32 row-major; out: (n_dst, d); blk: CSC block, dst -> src.
 * mean: out[v] = (sum over edges e of v, in CSR order, of x[src(e)]) * (1.0f / deg(v));
 *       deg(v) = 0 gives a zero row. sum: the same without the scale.
 * backward: dx (n_src, d) is overwritten: dx[u] = sum over edges (u -> v), visited in
 *       order of v then edge position, of dout[v] * (1.0f / deg(v)).
 * Both orders are part of the contract: opt/ reproduces them so the oracle compares bitwise. */
#ifndef GNNREF_AGGREGATE_H
#define GNNREF_AGGREGATE_H

#include <stdint.h>
#include "gnnref/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gnn_agg_kind { GNN_AGG_MEAN = 0, GNN_AGG_SUM = 1 } gnn_agg_kind;

enum { GNN_CAP_DETERMINISTIC = 1u << 0, GNN_CAP_THREADED = 1u << 1 };

typedef struct gnn_aggregate_ops {
    const char *name; /* "ref", "cpu": printed on every failure */
    unsigned caps;
    gnn_status (*forward)(const gnn_block *blk, const float *x, int64_t d, gnn_agg_kind kind,
                          float *out);
    gnn_status (*backward)(const gnn_block *blk, const float *dout, int64_t d, gnn_agg_kind kind,
                           float *dx);
} gnn_aggregate_ops;

extern const gnn_aggregate_ops gnn_aggregate_ref, gnn_aggregate_cpu;

#ifdef __cplusplus
}
#endif
#endif
