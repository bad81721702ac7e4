/* ref/nn.c -- reference dense layers and training primitives.
 *
 * Plain C11, no intrinsics, no threads: the specification. The UPDATE of GraphSAGE,
 * @eq{DistGNN-MB 1} h_v = Dropout(ReLU(W_n . h_N(v) + W_s . h_v + b)), is built from
 * linear_fwd (twice, the second accumulating), relu and dropout. (The training helpers that
 * have no optimized twin, softmax cross-entropy, argmax, Adam and Glorot's initialization, are
 * core/train/optim.c: the trainers call them, not through the context.) Every accumulation order below is part of the contract (see
 * include/gnnref/nn.h): opt/cpu/nn.c keeps it, so results are bitwise equal. The table's
 * arguments are checked by its public entry points (gnn_nn_linear_fwd and _bwd,
 * gnn_nn_relu_fwd and _bwd, gnn_nn_dropout_fwd and _bwd, core/ops/kernels.c): the functions
 * here assume valid input. */
#include <math.h>
#include <string.h>
#include "gnnref/nn.h"
#include "gnnref/rng.h"

/* y[i][j] = b[j] + sum_k x[i][k] * w[k][j], k ascending. x (n, in), w (in, out), y (n, out). */
void gnn_linear_fwd_ref(const float *x, int64_t n, int64_t in, const float *w, const float *b,
                        int64_t out, float *y)
{
    for (int64_t i = 0; i < n; i++) {
        float *y_i = y + i * out;
        for (int64_t j = 0; j < out; j++)
            y_i[j] = b ? b[j] : 0.0f;
        for (int64_t k = 0; k < in; k++) {
            const float x_ik = x[i * in + k];
            const float *w_k = w + k * out;
            for (int64_t j = 0; j < out; j++)
                y_i[j] += x_ik * w_k[j];
        }
    }
}

/* dw[k][j] = sum_i x[i][k] dy[i][j] (i ascending); db[j] = sum_i dy[i][j] (i ascending);
 * dx[i][k] = sum_j dy[i][j] w[k][j] (j ascending). Each output is overwritten. */
void gnn_linear_bwd_ref(const float *x, const float *dy, int64_t n, int64_t in, const float *w,
                        int64_t out, float *dx, float *dw, float *db)
{
    if (dw) {
        memset(dw, 0, (size_t)in * (size_t)out * sizeof(float));
        for (int64_t i = 0; i < n; i++)
            for (int64_t k = 0; k < in; k++) {
                const float x_ik = x[i * in + k];
                float *dw_k = dw + k * out;
                for (int64_t j = 0; j < out; j++)
                    dw_k[j] += x_ik * dy[i * out + j];
            }
    }
    if (db) {
        memset(db, 0, (size_t)out * sizeof(float));
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < out; j++)
                db[j] += dy[i * out + j];
    }
    if (dx) {
        for (int64_t i = 0; i < n; i++)
            for (int64_t k = 0; k < in; k++) {
                float acc = 0.0f;
                for (int64_t j = 0; j < out; j++)
                    acc += dy[i * out + j] * w[k * out + j];
                dx[i * in + k] = acc;
            }
    }
}

void gnn_relu_fwd(float *x, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void gnn_relu_bwd(const float *y, float *dy, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        if (!(y[i] > 0.0f))
            dy[i] = 0.0f;
}

/* Keep x[i][c] when float draw c of stream (seed, DROPOUT, step, layer, row_gid[i]) >= p;
 * kept values are scaled by 1/(1-p) (inverted dropout, as PyTorch and DGL do). The mask
 * depends on the vertex, not on its position in the batch (DESIGN.md section 2). */
void gnn_dropout_fwd(float *x, int64_t n, int64_t d, const int64_t *row_gid, float p,
                     uint64_t seed, uint32_t step, unsigned layer, float *mask)
{
    const float scale = 1.0f / (1.0f - p);
    for (int64_t i = 0; i < n; i++) {
        const gnn_rng_stream s = gnn_rng_stream_make(seed, GNN_TAG_DROPOUT, step, layer, (uint64_t)row_gid[i]);
        uint32_t w[4];
        for (int64_t c = 0; c < d; c++) {
            /* float draw c = word c%4 of block c/4 (one Philox block serves four columns) */
            if (c % 4 == 0)
                gnn_rng_block(&s, (uint32_t)(c / 4), w);
            const float u = (float)(w[c % 4] >> 8) * (1.0f / 16777216.0f);
            const float m = u >= p ? scale : 0.0f;
            x[i * d + c] *= m;
            if (mask)
                mask[i * d + c] = m;
        }
    }
}

void gnn_dropout_bwd(float *dy, int64_t n, int64_t d, const float *mask)
{
    for (int64_t i = 0; i < n * d; i++)
        dy[i] *= mask[i];
}

const gnn_nn_ops gnn_nn_ref = {
    .name = "ref",
    .caps = 1u, /* GNN_CAP_DETERMINISTIC */
    .linear_fwd = gnn_linear_fwd_ref,
    .linear_bwd = gnn_linear_bwd_ref,
    .relu_fwd = gnn_relu_fwd,
    .relu_bwd = gnn_relu_bwd,
    .dropout_fwd = gnn_dropout_fwd,
    .dropout_bwd = gnn_dropout_bwd,
};
