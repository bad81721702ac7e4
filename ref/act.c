/* ref/act.c -- reference ELU and LayerNorm, forward and backward (include/gnnref/act.h).
 *
 * Plain C11, no threads: the specification opt/cpu/act.c reproduces bit for bit.
 *
 * ELU (Clevert, Unterthiner, Hochreiter, ICLR 2016; the hidden activation of GAT, Velickovic
 * et al. 2018 section 3.3): y = x for x > 0, alpha (e^x - 1) otherwise.
 *
 * LayerNorm (Ba, Kiros, Hinton 2016): per row, y = (x - mu) / sqrt(var + eps) * gamma + beta,
 * with the biased variance (divide by d), as PyTorch's nn.LayerNorm. Orders: mu and var sum f
 * ascending from 0.0f and divide by (float)d; dgamma, dbeta sum rows ascending from 0.0f.
 * The arguments are checked by the public entry points (gnn_act_elu_fwd, ...,
 * gnn_act_layernorm_bwd in core/ops/kernels.c): the functions here assume valid input. */
#include <math.h>
#include "gnnref/act.h"
#include "gnnref/aggregate.h" /* GNN_CAP_* */
#include "ref/act_impl.h"        /* the formulas: gnn_elu_fwd1, gnn_layernorm_row_stats, ... */

static void elu_fwd_ref(const float *x, int64_t count, float alpha, float *y)
{
    for (int64_t i = 0; i < count; i++)
        y[i] = gnn_elu_fwd1(x[i], alpha);
}

/* d/dx alpha (e^x - 1) = alpha e^x from x (gnn_elu_bwd1 says why, and what x = 0 gets) */
static void elu_bwd_ref(const float *x, const float *dy, int64_t count, float alpha, float *dx)
{
    for (int64_t i = 0; i < count; i++)
        dx[i] = gnn_elu_bwd1(x[i], dy[i], alpha);
}

/* @sec{LayerNorm 3}: the statistics over a row's d features, then gain and bias. */
static gnn_status layernorm_fwd_ref(const float *x, int64_t n, int64_t d, const float *gamma, const float *beta,
                                    float eps, float *y, float *mu, float *rstd)
{
    for (int64_t i = 0; i < n; i++) {
        const float *x_i = x + i * d;
        float *y_i = y + i * d;
        float m, r;
        gnn_layernorm_row_stats(x_i, d, eps, &m, &r); /* mu, 1 / sqrt(var + eps) */
        for (int64_t f = 0; f < d; f++)
            y_i[f] = gnn_layernorm_y(x_i[f], m, r, gamma[f], beta[f]);
        mu[i] = m;
        rstd[i] = r;
    }
    return GNN_OK;
}

/* dx = rstd * ((g - mean(g)) - xhat * mean(g * xhat)), g = dy * gamma, xhat = (x - mu) * rstd:
 * the gradient of y = xhat * gamma + beta through the row's mean and variance (mu and var
 * both depend on every x[f] of the row). */
static gnn_status layernorm_bwd_ref(const float *x, const float *dy, int64_t n, int64_t d, const float *gamma,
                                    const float *mu, const float *rstd, float *dx, float *dgamma, float *dbeta)
{
    for (int64_t f = 0; f < d; f++) {
        dgamma[f] = 0.0f;
        dbeta[f] = 0.0f;
    }
    for (int64_t i = 0; i < n; i++) {
        const float *x_i = x + i * d, *dy_i = dy + i * d;
        float *dx_i = dx + i * d;
        const float m = mu[i], r = rstd[i];
        float mg, mgx; /* mean(g), mean(g * xhat) */
        gnn_layernorm_row_means(x_i, dy_i, gamma, d, m, r, &mg, &mgx);
        for (int64_t f = 0; f < d; f++) {
            const float xhat = (x_i[f] - m) * r;
            dgamma[f] += dy_i[f] * xhat;
            dbeta[f] += dy_i[f];
            dx_i[f] = gnn_layernorm_dx(x_i[f], dy_i[f], gamma[f], m, r, mg, mgx);
        }
    }
    return GNN_OK;
}

const gnn_act_ops gnn_act_ref = {
    .name = "ref",
    .caps = GNN_CAP_DETERMINISTIC,
    .elu_fwd = elu_fwd_ref,
    .elu_bwd = elu_bwd_ref,
    .layernorm_fwd = layernorm_fwd_ref,
    .layernorm_bwd = layernorm_bwd_ref,
};
