/* ref/act_impl.h -- the per-element and per-row formulas of ELU and LayerNorm that ref/act.c
 * (the specification) and opt/cpu/act.c both evaluate; the loops around them, and how they
 * are split over threads and SIMD lanes, stay in each file. Plain C11, no threads. Internal:
 * not installed. */
#ifndef GNN_REF_ACT_IMPL_H
#define GNN_REF_ACT_IMPL_H
#include <math.h>
#include <stdint.h>

/* y = x for x > 0, alpha (e^x - 1) otherwise */
static inline float gnn_elu_fwd1(float x, float alpha) { return x > 0.0f ? x : alpha * (expf(x) - 1.0f); }

/* d/dx alpha (e^x - 1) = alpha e^x, taken from the input x (not from y + alpha, which rounds
 * differently). At x = 0 the left branch is used: dy * alpha (1 for alpha = 1, continuous). */
static inline float gnn_elu_bwd1(float x, float dy, float alpha) { return x > 0.0f ? dy : dy * alpha * expf(x); }

/* a row's statistics: *mu = (sum of x_i[f], f ascending from 0.0f) / d; *rstd = 1 / sqrt(var +
 * eps), var = (sum of (x_i[f] - mu)^2, f ascending from 0.0f) / d (biased). d = 1 or a constant
 * row: var = 0, rstd = 1/sqrt(eps). */
static inline void gnn_layernorm_row_stats(const float *x_i, int64_t d, float eps, float *mu, float *rstd)
{
    float s = 0.0f;
    for (int64_t f = 0; f < d; f++)
        s += x_i[f];
    const float m = s / (float)d;
    float q = 0.0f;
    for (int64_t f = 0; f < d; f++) {
        const float c = x_i[f] - m;
        q += c * c;
    }
    const float var = q / (float)d;
    *mu = m;
    *rstd = 1.0f / sqrtf(var + eps);
}

/* y = (x - mu) * rstd * gamma + beta */
static inline float gnn_layernorm_y(float x, float m, float r, float gamma, float beta)
{
    return (x - m) * r * gamma + beta;
}

/* the backward's row means: *mg = mean of g, *mgx = mean of g * xhat over the row, g = dy *
 * gamma, xhat = (x - mu) * rstd, each sum f ascending from 0.0f */
static inline void gnn_layernorm_row_means(const float *x_i, const float *dy_i, const float *gamma, int64_t d, float m,
                                           float r, float *mg, float *mgx)
{
    float sg = 0.0f, sgx = 0.0f;
    for (int64_t f = 0; f < d; f++) {
        const float xhat = (x_i[f] - m) * r;
        const float g = dy_i[f] * gamma[f];
        sg += g;
        sgx += g * xhat;
    }
    *mg = sg / (float)d;
    *mgx = sgx / (float)d;
}

/* dx = rstd * ((g - mean(g)) - xhat * mean(g * xhat)) of one element */
static inline float gnn_layernorm_dx(float x, float dy, float gamma, float m, float r, float mg, float mgx)
{
    const float xhat = (x - m) * r;
    const float g = dy * gamma;
    return r * (g - mg - xhat * mgx);
}

#endif
