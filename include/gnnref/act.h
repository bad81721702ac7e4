/* include/gnnref/act.h -- activations and normalization beyond ReLU: ELU (GAT's hidden
 * activation) and LayerNorm.
 *
 * elu:       y = x > 0 ? x : alpha * (expf(x) - 1)           (count values)
 *            backward: dx = dy where x > 0, else dy * alpha * expf(x)  (from the input x)
 * layernorm: per row i of x (n, d):  mu = (1/d) sum_f x[f],  var = (1/d) sum_f (x[f] - mu)^2
 *            (both summed in f order, in float, from 0.0f, then divided by (float)d),
 *            rstd = 1.0f / sqrtf(var + eps),
 *            y[f] = (x[f] - mu) * rstd * gamma[f] + beta[f].
 *            The forward saves mu and rstd (n each) for the backward:
 *            xhat = (x - mu) * rstd, g = dy * gamma,
 *            dx = rstd * (g - mean_f(g) - xhat * mean_f(g * xhat)),
 *            dgamma[f] = sum_i dy[i][f] * xhat[i][f], dbeta[f] = sum_i dy[i][f] (i ascending in ref).
 *            In code: dx = rstd * (g - mg - xhat * mgx), mg = (sum_f g) / d, mgx = (sum_f g * xhat) / d,
 *            both sums f ascending in float; xhat = (x - mu) * rstd as in the forward.
 * All outputs are overwritten. layernorm_*: GNN_ERR_INVAL for n < 0, d < 1 with n > 0, eps not
 * finite and > 0, or a NULL array that has elements; ELU takes any count >= 0. */
#ifndef GNNREF_ACT_H
#define GNNREF_ACT_H

#include <stdint.h>
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gnn_act_ops {
    const char *name; /* "ref", "cpu" */
    unsigned caps;
    void (*elu_fwd)(const float *x, int64_t count, float alpha, float *y);
    void (*elu_bwd)(const float *x, const float *dy, int64_t count, float alpha, float *dx);
    gnn_status (*layernorm_fwd)(const float *x, int64_t n, int64_t d, const float *gamma, const float *beta,
                                float eps, float *y, float *mu, float *rstd);
    gnn_status (*layernorm_bwd)(const float *x, const float *dy, int64_t n, int64_t d, const float *gamma,
                                const float *mu, const float *rstd, float *dx, float *dgamma, float *dbeta);
} gnn_act_ops;

extern const gnn_act_ops gnn_act_ref, gnn_act_cpu;

/* The public entry points (core/ops/kernels.c): apply the rules above (GNN_ERR_INVAL, nothing
 * written; also for ops NULL, and for ELU a count < 0 or a NULL array with count > 0), then
 * call ops's op of the same name, whose body assumes valid input. GNN_ERR_UNSUPPORTED: ops
 * lacks the op. */
gnn_status gnn_act_elu_fwd(const gnn_act_ops *ops, const float *x, int64_t count, float alpha, float *y);
gnn_status gnn_act_elu_bwd(const gnn_act_ops *ops, const float *x, const float *dy, int64_t count, float alpha,
                           float *dx);
gnn_status gnn_act_layernorm_fwd(const gnn_act_ops *ops, const float *x, int64_t n, int64_t d, const float *gamma,
                                 const float *beta, float eps, float *y, float *mu, float *rstd);
gnn_status gnn_act_layernorm_bwd(const gnn_act_ops *ops, const float *x, const float *dy, int64_t n, int64_t d,
                                 const float *gamma, const float *mu, const float *rstd, float *dx, float *dgamma,
                                 float *dbeta);

#ifdef __cplusplus
}
#endif
#endif
