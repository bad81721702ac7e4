/* include/gnnref/update.h -- the fused UPDATE of DistGNN-MB section 3.3:
 *
 *     y = Dropout(ReLU(x . w + b))      x (n, c), w (c, k), b (k) or NULL, y (n, k)
 *
 * Dropout is keyed exactly as gnn_dropout_fwd (nn.h; DESIGN.md section 2): row i uses stream
 * (seed, GNN_TAG_DROPOUT, step, layer, id = row_gid ? row_gid[i] : i) and column j keeps
 * the value when float draw j >= p, scaling kept values by 1/(1-p). So the fused kernel
 * and the unfused sequence (linear, relu, dropout) choose the same mask, bit for bit.
 *
 * backward, from y alone (no mask is stored): y[i][j] > 0 exactly where z > 0 and the
 * element was kept, so dz = dy * (1/(1-p)) where y > 0 and 0 elsewhere; then
 *     dw (c, k) = x^T . dz,  db (k) = column sums of dz,  dx (n, c) = dz . w^T.
 * dx and db may be NULL. Everything is overwritten (nothing accumulates).
 *
 * Errors (GNN_ERR_INVAL, nothing written): negative sizes, p outside [0, 1) or NaN, a NULL
 * array that has elements (dw is required when c * k > 0). key may be NULL: no dropout (p = 0).
 * Both directions also return GNN_ERR_NOMEM when their scratch (packed weights, the dz of
 * every row) cannot be allocated. The cpu implementation keeps OpenBLAS at one thread for the
 * process (set once, never restored: OpenMP is the one parallel level of the optimized tier).
 *
 * Implementations: ref (naive loops; the specification), cpu (OpenBLAS sgemm per row block
 * with the bias/ReLU/dropout epilogue applied while the block is in cache), cpu-blocked (the
 * paper's 4-D blocked layout, BWD_W with per-thread weight-gradient copies reduced in a fixed
 * order). GEMMs sum in different orders, so the oracle compares within a tolerance. */
#ifndef GNNREF_UPDATE_H
#define GNNREF_UPDATE_H

#include <stdint.h>
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gnn_dropout_key {
    float p;                /* drop probability in [0, 1); 0 = no dropout */
    uint64_t seed;
    uint32_t step;
    unsigned layer;
    const int64_t *row_gid; /* (n) global id of each row, or NULL: row i has id i */
} gnn_dropout_key;

typedef struct gnn_update_ops {
    const char *name; /* "ref", "cpu", "cpu-blocked" */
    unsigned caps;
    gnn_status (*forward)(const float *x, int64_t n, int64_t c, const float *w, const float *b, int64_t k,
                          const gnn_dropout_key *key, float *y);
    gnn_status (*backward)(const float *x, const float *y, const float *dy, int64_t n, int64_t c,
                           const float *w, int64_t k, float p, float *dx, float *dw, float *db);
} gnn_update_ops;

extern const gnn_update_ops gnn_update_ref, gnn_update_cpu, gnn_update_blocked;

/* The public entry points (core/ops/kernels.c): apply the argument rules above (GNN_ERR_INVAL,
 * nothing written; also for ops NULL), then call ops's op of the same name, whose body
 * assumes valid input and may still return GNN_ERR_NOMEM. GNN_ERR_UNSUPPORTED: ops lacks
 * the op. */
gnn_status gnn_update_forward(const gnn_update_ops *ops, const float *x, int64_t n, int64_t c, const float *w,
                              const float *b, int64_t k, const gnn_dropout_key *key, float *y);
gnn_status gnn_update_backward(const gnn_update_ops *ops, const float *x, const float *y, const float *dy, int64_t n,
                               int64_t c, const float *w, int64_t k, float p, float *dx, float *dw, float *db);

#ifdef __cplusplus
}
#endif
#endif
