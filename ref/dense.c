/* ref/dense.c -- the specification of the fma context's dense kernel (include/gnnref/dense.h):
 * the linear layer and the fused UPDATE with every sum one chain of fused multiply-adds in a
 * fixed order.
 *
 * Why a second specification beside ref/nn.c: ref's order (multiply, round, add, round) is
 * CPU-independent too, but a fast kernel cannot keep it, because every register-blocked GEMM
 * kernel (OpenBLAS's, MKL's, ours) multiplies and adds in one FMA instruction. What makes
 * OpenBLAS's bits CPU-dependent is not the FMA but its choice, per CPU, of kernel, blocking and
 * order of the partial sums. So this contract keeps the FMA and fixes the rest: each output
 * element is ONE chain, k ascending, each step acc = fmaf(a_k, b_k, acc), rounded once as IEEE
 * 754 fusedMultiplyAdd prescribes. fmaf is exact on every C11 platform (hardware FMA, or
 * glibc's correctly rounded software version), so these plain loops are the reference bits of
 * every path of opt/cpu/dense.c (scalar, AVX2, AVX-512), which keep the chain and only spread
 * distinct outputs over SIMD lanes and threads.
 *
 *   y[i][j]  = b[j] (or 0), then fmaf(x[i][k], w[k][j], .) for k = 0 .. in-1
 *   dx[i][k] = 0, then fmaf(dy[i][j], w[k][j], .) for j = 0 .. out-1
 *   dw[k][j] = 0, then fmaf(x[i][k], dy[i][j], .) for i = 0 .. n-1
 *   db[j]    = 0.0f + dy[0][j] + dy[1][j] + ... (plain adds: ref/nn.c's order and bits)
 *
 * The fused UPDATE of the fma context (gnn_update_fma_ref): z = the forward's chain from b, then
 * ReLU and the keyed dropout exactly as ref/update.c; backward from y: dz = y > 0 ? dy * (1/(1-p))
 * : 0, then the backward above on dz. The arguments are checked by the public entry points
 * (core/ops/kernels.c): the functions here assume valid input. */
#include <math.h>
#include <string.h>
#include "gnnref/dense.h"
#include "gnnref/rng.h"
#include "gnnref/tensor.h"

void gnn_dense_fwd_ref(const float *x, int64_t n, int64_t in, const float *w, const float *b, int64_t out,
                       float *y)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < out; j++) {
            float acc = b ? b[j] : 0.0f; /* the chain starts from the bias */
            for (int64_t k = 0; k < in; k++)
                acc = fmaf(x[i * in + k], w[k * out + j], acc);
            y[i * out + j] = acc;
        }
}

void gnn_dense_bwd_ref(const float *x, const float *dy, int64_t n, int64_t in, const float *w, int64_t out,
                       float *dx, float *dw, float *db)
{
    if (dw)
        for (int64_t k = 0; k < in; k++)
            for (int64_t j = 0; j < out; j++) {
                float acc = 0.0f;
                for (int64_t i = 0; i < n; i++)
                    acc = fmaf(x[i * in + k], dy[i * out + j], acc);
                dw[k * out + j] = acc;
            }
    if (db)
        for (int64_t j = 0; j < out; j++) {
            float acc = 0.0f;
            for (int64_t i = 0; i < n; i++)
                acc += dy[i * out + j];
            db[j] = acc;
        }
    if (dx)
        for (int64_t i = 0; i < n; i++)
            for (int64_t k = 0; k < in; k++) {
                float acc = 0.0f;
                for (int64_t j = 0; j < out; j++)
                    acc = fmaf(dy[i * out + j], w[k * out + j], acc);
                dx[i * in + k] = acc;
            }
}

/* ---- the fused UPDATE (update.h) --------------------------------------------------------------- */

static gnn_status update_fwd_fma_ref(const float *x, int64_t n, int64_t c, const float *w, const float *b,
                                     int64_t k, const gnn_dropout_key *key, float *y)
{
    gnn_dense_fwd_ref(x, n, c, w, b, k, y);
    const float p = key ? key->p : 0.0f;
    const float scale = 1.0f / (1.0f - p);
    for (int64_t i = 0; i < n; i++) {
        float *y_i = y + i * k;
        for (int64_t j = 0; j < k; j++)
            y_i[j] = y_i[j] > 0.0f ? y_i[j] : 0.0f;
        if (!(p > 0.0f)) /* p == 0 keeps everything with scale 1 (x * 1.0f == x) */
            continue;
        /* keyed dropout, as ref/update.c: float draw j = word j%4 of block j/4 */
        const uint64_t id = key->row_gid ? (uint64_t)key->row_gid[i] : (uint64_t)i;
        const gnn_rng_stream st = gnn_rng_stream_make(key->seed, GNN_TAG_DROPOUT, key->step, key->layer, id);
        uint32_t words[4];
        for (int64_t j = 0; j < k; j++) {
            if (j % 4 == 0)
                gnn_rng_block(&st, (uint32_t)(j / 4), words);
            const float u = (float)(words[j % 4] >> 8) * (1.0f / 16777216.0f);
            y_i[j] *= u >= p ? scale : 0.0f;
        }
    }
    return GNN_OK;
}

static gnn_status update_bwd_fma_ref(const float *x, const float *y, const float *dy, int64_t n, int64_t c,
                                     const float *w, int64_t k, float p, float *dx, float *dw, float *db)
{
    const float scale = 1.0f / (1.0f - p);
    float *dz = gnn_malloc_array((size_t)(n * k > 0 ? n * k : 1), sizeof(float));
    if (!dz)
        return GNN_ERR_NOMEM;
    for (int64_t e = 0; e < n * k; e++)
        dz[e] = y[e] > 0.0f ? dy[e] * scale : 0.0f;
    gnn_dense_bwd_ref(x, dz, n, c, w, k, dx, c > 0 && k > 0 ? dw : NULL, db);
    gnn_free(dz);
    return GNN_OK;
}

const gnn_nn_ops gnn_nn_fma_ref = {
    .name = "fma-ref",
    .caps = 1u, /* GNN_CAP_DETERMINISTIC */
    .linear_fwd = gnn_dense_fwd_ref,
    .linear_bwd = gnn_dense_bwd_ref,
    .relu_fwd = gnn_relu_fwd,
    .relu_bwd = gnn_relu_bwd,
    .dropout_fwd = gnn_dropout_fwd,
    .dropout_bwd = gnn_dropout_bwd,
};

const gnn_update_ops gnn_update_fma_ref = {
    .name = "fma-ref",
    .caps = 1u, /* GNN_CAP_DETERMINISTIC */
    .forward = update_fwd_fma_ref,
    .backward = update_bwd_fma_ref,
};
