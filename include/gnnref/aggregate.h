/* include/gnnref/aggregate.h -- neighbor aggregation (DistGNN-MB Eq. 1 AGG, SuperGCN Sec. 2).
 *
 * x: (n_src, d) f32 row-major; out: (n_dst, d); blk: CSC block, dst -> src.
 * mean: out[v] = (sum over edges e of v, in CSR order, of x[src(e)]) * (1.0f / deg(v));
 *       deg(v) = 0 gives a zero row. sum: the same without the scale.
 * backward: dx (n_src, d) is overwritten: dx[u] = sum over edges (u -> v), visited in
 *       order of v then edge position, of dout[v] * (1.0f / deg(v)).
 * gcn:  out[v] = sum over edges e = (u -> v), in CSR order, of x[u] * c_e with
 *       c_e = (1.0f / sqrtf((float)ds(u))) * (1.0f / sqrtf((float)dd(v))), where dd(v) is v's
 *       in-degree in the block and ds(u) the number of block edges whose src is u (Kipf &
 *       Welling's D^-1/2 A D^-1/2; self-loops are the caller's: aggregate over a graph built
 *       with gnn_csr_add_self_loops to get their A + I). backward: dx[u] = sum over edges
 *       (u -> v), by v then edge position, of dout[v] * c_e.
 * weighted: out[v] = sum over edges e in CSR order of x[u] * w[e]; backward: dx[u] as gcn
 *       with c_e = w[e], and dw[e] = sum over f in order of dout[v][f] * x[u][f].
 * Each product is formed first and then added (acc += x * c), in float.
 * Both orders are part of the contract: opt/ reproduces them so the oracle compares bitwise. */
#ifndef GNNREF_AGGREGATE_H
#define GNNREF_AGGREGATE_H

#include <stdint.h>
#include "gnnref/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gnn_agg_kind { GNN_AGG_MEAN = 0, GNN_AGG_SUM = 1, GNN_AGG_GCN = 2 } gnn_agg_kind;

enum { GNN_CAP_DETERMINISTIC = 1u << 0, GNN_CAP_THREADED = 1u << 1 };

typedef struct gnn_aggregate_ops {
    const char *name; /* "ref", "cpu": printed on every failure */
    unsigned caps;
    gnn_status (*forward)(const gnn_block *blk, const float *x, int64_t d, gnn_agg_kind kind,
                          float *out);
    gnn_status (*backward)(const gnn_block *blk, const float *dout, int64_t d, gnn_agg_kind kind,
                           float *dx);
    /* edge-weighted aggregation; w: (nnz) one weight per block edge */
    gnn_status (*weighted_forward)(const gnn_block *blk, const float *x, int64_t d, const float *w,
                                   float *out);
    /* dx (n_src, d) and/or dw (nnz): either may be NULL; x is read only for dw */
    gnn_status (*weighted_backward)(const gnn_block *blk, const float *x, const float *dout, int64_t d,
                                    const float *w, float *dx, float *dw);
} gnn_aggregate_ops;

extern const gnn_aggregate_ops gnn_aggregate_ref, gnn_aggregate_cpu;
/* The CUDA tier (docs/cuda.md): `cuda` runs FastGL's Memory-Aware kernels on a GPU (needs
 * gnn_cuda_available, include/gnnref/cuda.h; without nvcc the table has no ops); `cuda-emu`
 * runs the same kernel bodies through the CPU emulator (slow; for tests). Both bitwise ref's. */
extern const gnn_aggregate_ops gnn_aggregate_cuda, gnn_aggregate_cuda_emu;

/* The public entry points (core/ops/kernels.c): check the arguments once, then call ops's op of
 * the same name, whose body assumes valid input. Every caller goes through these.
 * GNN_ERR_INVAL, nothing written: ops NULL; blk NULL; d < 0; a negative n_dst, n_src or nnz;
 * a NULL array that has elements (x: n_src * d, out: n_dst * d; dout: n_dst * d, dx:
 * n_src * d); kind not MEAN, SUM or GCN; w NULL with nnz > 0 (weighted_forward, and
 * weighted_backward when dx is asked for); x NULL with n_src * d > 0 when dw is asked for.
 * GNN_ERR_UNSUPPORTED: ops lacks the op (a NULL field). Otherwise the body's status
 * (GNN_ERR_NOMEM when its scratch cannot be allocated). */
gnn_status gnn_aggregate_forward(const gnn_aggregate_ops *ops, const gnn_block *blk, const float *x, int64_t d,
                                 gnn_agg_kind kind, float *out);
gnn_status gnn_aggregate_backward(const gnn_aggregate_ops *ops, const gnn_block *blk, const float *dout, int64_t d,
                                  gnn_agg_kind kind, float *dx);
gnn_status gnn_aggregate_weighted_forward(const gnn_aggregate_ops *ops, const gnn_block *blk, const float *x,
                                          int64_t d, const float *w, float *out);
gnn_status gnn_aggregate_weighted_backward(const gnn_aggregate_ops *ops, const gnn_block *blk, const float *x,
                                           const float *dout, int64_t d, const float *w, float *dx, float *dw);

#ifdef __cplusplus
}
#endif
#endif
