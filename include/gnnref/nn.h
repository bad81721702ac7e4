/* include/gnnref/nn.h -- dense layers and training primitives.
 *
 * linear:   y (n, out) = x (n, in) . w (in, out) + b (out); each y[i][j] accumulates
 *           b[j] + x[i][0]*w[0][j] + x[i][1]*w[1][j] + ... in k order (the bitwise contract).
 * backward: dw (in, out) = x^T . dy, summed over i in row order; db (out) = sum_i dy[i];
 *           dx (n, in) = dy . w^T, summed over j in order (dx may be NULL). All overwrite.
 * relu, dropout (keyed: row id = global vertex id, column = draw index; keep when
 * float(draw c) >= p, scale kept values by 1/(1-p); DESIGN.md section 2), softmax
 * cross-entropy (mean over labelled rows), Adam (Kingma & Ba 2015), Glorot uniform init. */
#ifndef GNNREF_NN_H
#define GNNREF_NN_H

#include <stdint.h>
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gnn_nn_ops {
    const char *name;
    unsigned caps;
    void (*linear_fwd)(const float *x, int64_t n, int64_t in, const float *w, const float *b,
                       int64_t out, float *y);
    void (*linear_bwd)(const float *x, const float *dy, int64_t n, int64_t in, const float *w,
                       int64_t out, float *dx, float *dw, float *db);
    /* the element-wise steps of training, with the contracts of gnn_relu_fwd, gnn_relu_bwd,
     * gnn_dropout_fwd and gnn_dropout_bwd below (every implementation gives their bits) */
    void (*relu_fwd)(float *x, int64_t count);
    void (*relu_bwd)(const float *y, float *dy, int64_t count);
    void (*dropout_fwd)(float *x, int64_t n, int64_t d, const int64_t *row_gid, float p, uint64_t seed,
                        uint32_t step, unsigned layer, float *mask);
    void (*dropout_bwd)(float *dy, int64_t n, int64_t d, const float *mask);
} gnn_nn_ops;
extern const gnn_nn_ops gnn_nn_ref, gnn_nn_cpu, gnn_nn_blas;

/* The public entry points of the linear layer (core/ops/kernels.c): check the arguments, then
 * call ops's op of the same name, whose body assumes valid input (and cannot fail).
 * GNN_ERR_INVAL, nothing written: ops NULL; n, in or out < 0; a NULL array that has
 * elements among x (n, in), w (in, out) and y (n, out); in the backward, dy (n, out), x when
 * dw is asked for, w when dx is. b, and the backward's dx, dw and db, may be NULL.
 * GNN_ERR_UNSUPPORTED: ops lacks the op. */
gnn_status gnn_nn_linear_fwd(const gnn_nn_ops *ops, const float *x, int64_t n, int64_t in, const float *w,
                             const float *b, int64_t out, float *y);
gnn_status gnn_nn_linear_bwd(const gnn_nn_ops *ops, const float *x, const float *dy, int64_t n, int64_t in,
                             const float *w, int64_t out, float *dx, float *dw, float *db);

/* The element-wise steps' entry points (core/ops/kernels.c), the same way: GNN_ERR_INVAL, nothing
 * written: ops NULL; count, n or d < 0; a NULL array that has elements (x, y, dy (count);
 * x, dy, mask (n, d) -- the forward's mask may be NULL; row_gid (n), needed whenever n > 0);
 * p outside [0, 1) (NaN included); layer > 255 (the stream's layer field, DESIGN.md
 * section 2). GNN_ERR_UNSUPPORTED: ops lacks the op. Training calls these with the
 * context's table, so --impl opt runs the threaded, SIMD dropout of opt/cpu/nn.c. */
gnn_status gnn_nn_relu_fwd(const gnn_nn_ops *ops, float *x, int64_t count);
gnn_status gnn_nn_relu_bwd(const gnn_nn_ops *ops, const float *y, float *dy, int64_t count);
gnn_status gnn_nn_dropout_fwd(const gnn_nn_ops *ops, float *x, int64_t n, int64_t d, const int64_t *row_gid,
                              float p, uint64_t seed, uint32_t step, unsigned layer, float *mask);
gnn_status gnn_nn_dropout_bwd(const gnn_nn_ops *ops, float *dy, int64_t n, int64_t d, const float *mask);

/* Reference functions: the bodies of gnn_nn_ref (unchecked: the entry points above check). */
void gnn_linear_fwd_ref(const float *x, int64_t n, int64_t in, const float *w, const float *b,
                        int64_t out, float *y);
void gnn_linear_bwd_ref(const float *x, const float *dy, int64_t n, int64_t in, const float *w,
                        int64_t out, float *dx, float *dw, float *db);

/* y = max(x, 0) in place on (count) values; backward: dy[i] = 0 where y[i] <= 0. */
void gnn_relu_fwd(float *x, int64_t count);
void gnn_relu_bwd(const float *y, float *dy, int64_t count);

/* Dropout on x (n, d) in place. row_gid[i] is row i's global vertex id. mask (n, d) receives
 * the scale applied (0 or 1/(1-p)) for the backward pass; mask may be NULL. p in [0, 1). */
void gnn_dropout_fwd(float *x, int64_t n, int64_t d, const int64_t *row_gid, float p,
                     uint64_t seed, uint32_t step, unsigned layer, float *mask);
void gnn_dropout_bwd(float *dy, int64_t n, int64_t d, const float *mask);

/* Softmax cross-entropy over rows with labels[i] >= 0: returns mean loss (double accumulation
 * in row order), writes dlogits = (softmax - onehot) / count (0 for unlabelled rows), and
 * the number of correct argmax predictions in *correct (ties: lowest index). */
double gnn_softmax_xent(const float *logits, int64_t n, int64_t c, const int32_t *labels,
                        float *dlogits, int64_t *correct);
/* The same with the normalizer given: returns the *sum* of the row losses and writes
 * dlogits = (softmax - onehot) / denom. Data-parallel training passes the labelled count of
 * the global mini-batch, so that the ranks' gradients add up to the single-rank gradient. */
double gnn_softmax_xent_sum(const float *logits, int64_t n, int64_t c, const int32_t *labels, double denom,
                            float *dlogits, int64_t *correct);
/* argmax per row (ties: lowest index). */
void gnn_argmax(const float *logits, int64_t n, int64_t c, int32_t *pred);

/* Adam with bias correction; t is the 1-based step. w, g, m, v: (count). */
typedef struct gnn_adam { float lr, beta1, beta2, eps, weight_decay; } gnn_adam;
void gnn_adam_step(const gnn_adam *a, int64_t t, float *w, const float *g, float *m, float *v,
                   int64_t count);

/* Glorot (Xavier) uniform: w[i][j] = (2 u - 1) * sqrt(6 / (fan_in + fan_out)), u = float draw j
 * of stream (seed, GNN_TAG_INIT, step 0, layer = param_index, id = i). w: (fan_in, fan_out). */
void gnn_glorot_init(float *w, int64_t fan_in, int64_t fan_out, uint64_t seed, unsigned param_index);

#ifdef __cplusplus
}
#endif
#endif
