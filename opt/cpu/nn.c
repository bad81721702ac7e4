/* opt/cpu/nn.c -- OpenMP/SIMD linear layer, bitwise equal to ref/nn.c.
 *
 * What changed and why it still matches: the reference's per-element accumulation orders
 * (k ascending for y, i ascending for dw and db, j ascending for dx) are kept; only
 * independent outputs are spread over threads and SIMD lanes:
 *  - forward and dx: rows i in parallel; y[i][:] is vectorized across j (distinct outputs);
 *  - dx uses w transposed once (out, in) so that dx[i][:] vectorizes across k while each
 *    dx[i][k] still adds dy[i][j] * w[k][j] for j = 0, 1, ... in order;
 *  - dw: rows k of dw in parallel, each summing over i in order; db likewise by columns.
 * No cross-thread reduction is used, so the result does not depend on the thread count.
 * (A GEMM-library UPDATE with a tolerance is the kernels issue's cpu-blocked variant.)
 * The public entry points (gnn_nn_linear_fwd and _bwd, core/kernels.c) check the arguments
 * first: these bodies assume valid input. */
#include <string.h>
#include "gnnref/nn.h"
#include "gnnref/tensor.h"

static void linear_fwd_cpu(const float *x, int64_t n, int64_t in, const float *w, const float *b,
                           int64_t out, float *y)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        float *y_i = y + i * out;
        for (int64_t j = 0; j < out; j++)
            y_i[j] = b ? b[j] : 0.0f;
        for (int64_t k = 0; k < in; k++) {
            const float x_ik = x[i * in + k];
            const float *w_k = w + k * out;
#pragma omp simd
            for (int64_t j = 0; j < out; j++)
                y_i[j] += x_ik * w_k[j];
        }
    }
}

static void linear_bwd_cpu(const float *x, const float *dy, int64_t n, int64_t in, const float *w,
                           int64_t out, float *dx, float *dw, float *db)
{
    if (dw) {
#pragma omp parallel for schedule(static)
        for (int64_t k = 0; k < in; k++) {
            float *dw_k = dw + k * out;
            memset(dw_k, 0, (size_t)out * sizeof(float));
            for (int64_t i = 0; i < n; i++) {
                const float x_ik = x[i * in + k];
                const float *dy_i = dy + i * out;
#pragma omp simd
                for (int64_t j = 0; j < out; j++)
                    dw_k[j] += x_ik * dy_i[j];
            }
        }
    }
    if (db) {
        memset(db, 0, (size_t)out * sizeof(float));
        for (int64_t i = 0; i < n; i++) {
            const float *dy_i = dy + i * out;
#pragma omp simd
            for (int64_t j = 0; j < out; j++)
                db[j] += dy_i[j];
        }
    }
    if (dx) {
        float *wt = gnn_malloc((size_t)in * (size_t)out * sizeof(float)); /* (out, in) */
        if (!wt) { /* fall back to the reference order without the transpose */
            gnn_linear_bwd_ref(x, dy, n, in, w, out, dx, NULL, NULL);
            return;
        }
        for (int64_t k = 0; k < in; k++)
            for (int64_t j = 0; j < out; j++)
                wt[j * in + k] = w[k * out + j];
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; i++) {
            float *dx_i = dx + i * in;
            const float *dy_i = dy + i * out;
            for (int64_t k = 0; k < in; k++)
                dx_i[k] = 0.0f;
            for (int64_t j = 0; j < out; j++) {
                const float g = dy_i[j];
                const float *wt_j = wt + j * in;
#pragma omp simd
                for (int64_t k = 0; k < in; k++)
                    dx_i[k] += g * wt_j[k];
            }
        }
        gnn_free(wt);
    }
}

const gnn_nn_ops gnn_nn_cpu = {
    .name = "cpu",
    .caps = 3u, /* GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED */
    .linear_fwd = linear_fwd_cpu,
    .linear_bwd = linear_bwd_cpu,
};
