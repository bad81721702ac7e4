/* opt/cpu/act.c -- OpenMP/SIMD ELU and LayerNorm, bitwise equal to ref/act.c.
 *
 *  - ELU: elementwise, split over threads; expf stays a scalar libm call (no fast-math, so no
 *    vector variant with other rounding is substituted): every element equals the reference's.
 *  - LayerNorm forward and dx: rows in parallel; each row's mean, variance and the two sums of
 *    the backward are the reference's scalar f-ascending sums; the elementwise parts are SIMD.
 *  - dgamma, dbeta (column sums over all rows): parallel over blocks of LN_CB feature columns,
 *    each block scanning the rows in ascending order, so every column keeps the reference's
 *    row order and the result is bitwise (lanes are distinct columns, never a reordered sum).
 *    With d <= LN_CB there is one block: that pass is serial, memory-bound and O(n d).
 * The public entry points (core/ops/kernels.c) check the arguments first: these bodies assume
 * valid input. */
#include <math.h>
#include "gnnref/act.h"
#include "gnnref/aggregate.h" /* GNN_CAP_* */
#include "ref/act_impl.h"        /* ref's formulas, element by element and row by row */

#define LN_CB 16 /* columns per block of the dgamma/dbeta pass: one 64-byte line of floats */

static void elu_fwd_cpu(const float *x, int64_t count, float alpha, float *y)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; i++)
        y[i] = gnn_elu_fwd1(x[i], alpha);
}

static void elu_bwd_cpu(const float *x, const float *dy, int64_t count, float alpha, float *dx)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; i++)
        dx[i] = gnn_elu_bwd1(x[i], dy[i], alpha);
}

static gnn_status layernorm_fwd_cpu(const float *x, int64_t n, int64_t d, const float *gamma, const float *beta,
                                    float eps, float *y, float *mu, float *rstd)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const float *x_i = x + i * d;
        float *y_i = y + i * d;
        float m, r;
        gnn_layernorm_row_stats(x_i, d, eps, &m, &r);
#pragma omp simd
        for (int64_t f = 0; f < d; f++)
            y_i[f] = gnn_layernorm_y(x_i[f], m, r, gamma[f], beta[f]);
        mu[i] = m;
        rstd[i] = r;
    }
    return GNN_OK;
}

static gnn_status layernorm_bwd_cpu(const float *x, const float *dy, int64_t n, int64_t d, const float *gamma,
                                    const float *mu, const float *rstd, float *dx, float *dgamma, float *dbeta)
{
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
        for (int64_t i = 0; i < n; i++) {
            const float *x_i = x + i * d, *dy_i = dy + i * d;
            float *dx_i = dx + i * d;
            const float m = mu[i], r = rstd[i];
            float mg, mgx;
            gnn_layernorm_row_means(x_i, dy_i, gamma, d, m, r, &mg, &mgx);
#pragma omp simd
            for (int64_t f = 0; f < d; f++)
                dx_i[f] = gnn_layernorm_dx(x_i[f], dy_i[f], gamma[f], m, r, mg, mgx);
        }
        /* column sums: one block of columns per iteration, rows ascending within it */
        const int64_t nblk = (d + LN_CB - 1) / LN_CB;
#pragma omp for schedule(static)
        for (int64_t cb = 0; cb < nblk; cb++) {
            const int64_t f0 = cb * LN_CB, w = d - f0 < LN_CB ? d - f0 : LN_CB;
            float gsum[LN_CB], bsum[LN_CB];
            for (int64_t k = 0; k < w; k++)
                gsum[k] = bsum[k] = 0.0f;
            for (int64_t i = 0; i < n; i++) {
                const float *x_i = x + i * d + f0, *dy_i = dy + i * d + f0;
                const float m = mu[i], r = rstd[i];
#pragma omp simd
                for (int64_t k = 0; k < w; k++) {
                    const float xhat = (x_i[k] - m) * r;
                    gsum[k] += dy_i[k] * xhat;
                    bsum[k] += dy_i[k];
                }
            }
            for (int64_t k = 0; k < w; k++) {
                dgamma[f0 + k] = gsum[k];
                dbeta[f0 + k] = bsum[k];
            }
        }
    }
    return GNN_OK;
}

const gnn_act_ops gnn_act_cpu = {
    .name = "cpu",
    .caps = GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED,
    .elu_fwd = elu_fwd_cpu,
    .elu_bwd = elu_bwd_cpu,
    .layernorm_fwd = layernorm_fwd_cpu,
    .layernorm_bwd = layernorm_bwd_cpu,
};
