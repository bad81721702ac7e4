/* oracle/op_nn_grad.c -- the gradient checks of the dense layers and training primitives
 * (include/gnnref/nn.h; their forward entries are in oracle/op_nn.c):
 *
 *   grad.linear, grad.xent, grad.relu
 *       backward against central differences of the forward (docs/oracle.md, "Gradient
 *       checks"): dyadic inputs and power-of-two steps make the differences exact for the
 *       piecewise-linear ops; xent is smooth and gets a real tolerance. */
#include <math.h>
#include <string.h>
#include "gnnref/dense.h"
#include "gnnref/nn.h"
#include "gnnref/oracle.h"
#include "oracle/op_nn.h"

static const gnn_oracle_impl k_nn_ref = { .name = "ref", .ops = &gnn_nn_ref, .flags = 0 };
/* gradient checks: the reference and the fma kernel's specification, ref/dense.c (the
 * optimized backward is held to them by linear.bwd and dense.bwd) */
static const gnn_oracle_impl k_nn_fma_ref = { .name = "fma-ref", .ops = &gnn_nn_fma_ref, .flags = 0 };
static const gnn_oracle_impl *const k_nn_grad_impls[] = { &k_nn_ref, &k_nn_fma_ref, NULL };
/* plain functions of ref/nn.c (not in the ops table: xent, relu's gradient check) */
static const gnn_oracle_impl k_fn_ref = { .name = "ref", .ops = NULL, .flags = 0 };
static const gnn_oracle_impl *const k_fn_impls[] = { &k_fn_ref, NULL };

static double dot_r(const float *out, const float *r, int64_t count)
{
    double L = 0;
    for (int64_t i = 0; i < count; i++)
        L += (double)r[i] * (double)out[i];
    return L;
}

/* grad.linear: L = sum r . (x w + b); h = 1 on dyadic x, w, b, r (k/8, |k| <= 16): products
 * are multiples of 2^-6 below 8 in magnitude and at most a few hundred of them are summed, so
 * y, L, dx, dw and db are all exact; the finite difference of a function linear in each
 * input equals the derivative. */
static const char *const k_grad_lin_presets[] = {
    "n=6,in=5,out=4,bias=1", "n=1,in=1,out=1,bias=1", "n=9,in=13,out=7,bias=0",
    "n=0,in=3,out=2,bias=1", "n=3,in=33,out=2,bias=1", NULL,
};

static gnn_oracle_outcome fd_linear_param(gnn_oracle_ctx *ctx, const gnn_nn_ops *ops, float *x, int64_t n,
                                          int64_t in, float *w, float *b, int64_t out, const float *r, float *y,
                                          float *param, int64_t count, const float *analytic, const char *name,
                                          int64_t cols)
{
    double *fd = gnn_oracle_alloc_out(ctx, "finite-difference", (size_t)count * sizeof(double));
    double *an = gnn_oracle_alloc_out(ctx, "analytic", (size_t)count * sizeof(double));
    if (!fd || !an)
        return gnn_oracle_fail(ctx, "out of memory");
    const float h = 1.0f;
    gnn_oracle_outcome o;
    for (int64_t e = 0; e < count; e++) {
        const float keep = param[e];
        param[e] = keep + h;
        if ((o = gnn_oracle_status(ctx, "forward", gnn_nn_linear_fwd(ops, x, n, in, w, b, out, y))) != GNN_ORACLE_PASS)
            return o;
        const double lp = dot_r(y, r, n * out);
        param[e] = keep - h;
        if ((o = gnn_oracle_status(ctx, "forward", gnn_nn_linear_fwd(ops, x, n, in, w, b, out, y))) != GNN_ORACLE_PASS)
            return o;
        const double lm = dot_r(y, r, n * out);
        param[e] = keep;
        fd[e] = (lp - lm) / (2.0 * h);
        an[e] = (double)analytic[e];
    }
    return gnn_oracle_compare_f64(ctx, NULL, name, fd, an, count, cols);
}

static gnn_oracle_outcome grad_linear_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_nn_ops *ops = c->impl->ops;
    const int64_t n = gnn_oracle_int(c, L_N), in = gnn_oracle_int(c, L_IN), out = gnn_oracle_int(c, L_OUT);
    const int bias = (int)gnn_oracle_int(c, L_OPT);
    float *x = gnn_oracle_alloc(ctx, (size_t)(n * in) * sizeof(float));
    float *w = gnn_oracle_alloc(ctx, (size_t)(in * out) * sizeof(float));
    float *b = gnn_oracle_alloc(ctx, (size_t)out * sizeof(float));
    float *r = gnn_oracle_alloc(ctx, (size_t)(n * out) * sizeof(float));
    float *y = gnn_oracle_alloc_out(ctx, "y", (size_t)(n * out) * sizeof(float));
    float *dx = gnn_oracle_alloc_out(ctx, "dx", (size_t)(n * in) * sizeof(float));
    float *dw = gnn_oracle_alloc_out(ctx, "dw", (size_t)(in * out) * sizeof(float));
    float *db = gnn_oracle_alloc_out(ctx, "db", (size_t)out * sizeof(float));
    if (!x || !w || !b || !r || !y || !dx || !dw || !db)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws g1 = gnn_oracle_draws_make(c, 1), g2 = gnn_oracle_draws_make(c, 2),
                     g3 = gnn_oracle_draws_make(c, 3), g4 = gnn_oracle_draws_make(c, 4);
    gnn_oracle_fill_dyadic(&g1, x, n * in, 16, 3);
    gnn_oracle_fill_dyadic(&g2, w, in * out, 16, 3);
    gnn_oracle_fill_dyadic(&g3, b, out, 16, 3);
    gnn_oracle_fill_dyadic(&g4, r, n * out, 16, 3);
    gnn_oracle_outcome o =
        gnn_oracle_status(ctx, "backward", gnn_nn_linear_bwd(ops, x, r, n, in, w, out, dx, dw, db));
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, dw, (size_t)(in * out) * sizeof(float));
    float *bb = bias ? b : NULL;
    o = fd_linear_param(ctx, ops, x, n, in, w, bb, out, r, y, x, n * in, dx, "dx", in);
    o = gnn_oracle_worst(o, fd_linear_param(ctx, ops, x, n, in, w, bb, out, r, y, w, in * out, dw, "dw", out));
    if (bias)
        o = gnn_oracle_worst(o, fd_linear_param(ctx, ops, x, n, in, w, b, out, r, y, b, out, db, "db", 0));
    return o;
}

const gnn_oracle_entry gnn_oracle_grad_linear = {
    .name = "grad.linear",
    .what = "linear backward (dx, dw, db) against central differences of the forward (h = 1, dyadic inputs)",
    .tol = { GNN_CMP_ULP, 0, 0 },
    .reason = "dyadic inputs make forward, objective and backward exact: any difference is a bug; measured 0, "
              "225 seeds",
    .params = gnn_oracle_linf_params, .n_params = N_LINF_PARAMS, .presets = k_grad_lin_presets,
    .ref = &k_nn_ref, .impls = k_nn_grad_impls, .run = grad_linear_run,
};

/* grad.xent: L = the returned mean loss (computed in double by the reference). The logits
 * are multiples of 2^-12 and the step is h = 2^-10, so z +- h is exact in f32 and the
 * difference quotient sees exactly the intended step. Error budget: truncation
 * h^2/6 |L'''| <= 1e-7 / count, double rounding of L over 2h about 1e-13, and the rounding of
 * each dlogit to f32 (2^-24 relative). */
static const char *const k_grad_xent_presets[] = {
    "n=6,c=5,unl=0,scale=2", "n=1,c=1,unl=0,scale=1", "n=8,c=13,unl=3,scale=4", "n=3,c=33,unl=0,scale=1",
    "n=4,c=2,unl=2,scale=8", NULL,
};

static gnn_oracle_outcome grad_xent_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int64_t n = gnn_oracle_int(c, X_N), cls = gnn_oracle_int(c, X_C), cnt = n * cls;
    float *z = gnn_oracle_alloc(ctx, (size_t)cnt * sizeof(float));
    int32_t *labels = gnn_oracle_alloc(ctx, (size_t)n * sizeof(int32_t));
    float *dz = gnn_oracle_alloc_out(ctx, "dlogits", (size_t)cnt * sizeof(float));
    float *scratch = gnn_oracle_alloc(ctx, (size_t)cnt * sizeof(float)); /* dlogits of the perturbed calls */
    double *fd = gnn_oracle_alloc_out(ctx, "finite-difference", (size_t)cnt * sizeof(double));
    double *an = gnn_oracle_alloc_out(ctx, "analytic", (size_t)cnt * sizeof(double));
    if (!z || !labels || !dz || !scratch || !fd || !an)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_xent_inputs(c, z, labels, n, cls, 12);
    int64_t correct;
    gnn_softmax_xent(z, n, cls, labels, dz, &correct);
    gnn_oracle_digest(ctx, dz, (size_t)cnt * sizeof(float));
    const float h = 0x1p-10f;
    for (int64_t e = 0; e < cnt; e++) {
        const float keep = z[e];
        z[e] = keep + h;
        const double lp = gnn_softmax_xent(z, n, cls, labels, scratch, &correct);
        z[e] = keep - h;
        const double lm = gnn_softmax_xent(z, n, cls, labels, scratch, &correct);
        z[e] = keep;
        fd[e] = (lp - lm) / (2.0 * (double)h);
        an[e] = (double)dz[e];
    }
    return gnn_oracle_compare_f64(ctx, NULL, "dlogits (finite difference vs backward)", fd, an, cnt, cls);
}

const gnn_oracle_entry gnn_oracle_grad_xent = {
    .name = "grad.xent",
    .what = "softmax cross-entropy dlogits against central differences of the loss (h = 2^-10)",
    .tol = { GNN_CMP_ALLCLOSE, 2e-8, 2e-7 },
    .reason = "truncation h^2/6 |L'''| (~1e-9 at these logits) and one f32 rounding of each dlogit (6e-8 "
              "relative); measured max |diff| 1.1e-8 (0.31 of it), 225 seeds",
    .params = gnn_oracle_xent_params, .n_params = N_XENT_PARAMS, .presets = k_grad_xent_presets,
    .ref = &k_fn_ref, .impls = k_fn_impls, .run = grad_xent_run,
};

/* grad.relu: L = sum r . relu(x), x dyadic with |x| >= 1/4 and h = 1/16, so no difference
 * crosses the kink at 0 (where the derivative is a convention, checked by the relu entry):
 * on each side relu is linear and everything is exact. */
static const gnn_oracle_param k_grad_relu_params[] = {
    { "n", GNN_PARAM_INT, 0, 1e6, "elements" },
};
static const char *const k_grad_relu_presets[] = { "n=50", "n=1", "n=0", "n=333", NULL };

static gnn_oracle_outcome grad_relu_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int64_t n = gnn_oracle_int(c, 0);
    float *x = gnn_oracle_alloc(ctx, (size_t)n * sizeof(float));
    float *r = gnn_oracle_alloc(ctx, (size_t)n * sizeof(float));
    float *y = gnn_oracle_alloc_out(ctx, "y", (size_t)n * sizeof(float));
    float *dy = gnn_oracle_alloc_out(ctx, "dy", (size_t)n * sizeof(float));
    double *fd = gnn_oracle_alloc_out(ctx, "finite-difference", (size_t)n * sizeof(double));
    double *an = gnn_oracle_alloc_out(ctx, "analytic", (size_t)n * sizeof(double));
    if (!x || !r || !y || !dy || !fd || !an)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1), gr = gnn_oracle_draws_make(c, 2);
    for (int64_t i = 0; i < n; i++) {
        const int64_t k = gnn_oracle_draw_range(&g, 2, 16);
        x[i] = ldexpf((float)(gnn_oracle_draw_uint(&g, 2) ? k : -k), -3);
    }
    gnn_oracle_fill_dyadic(&gr, r, n, 16, 3);
    memcpy(y, x, (size_t)n * sizeof(float));
    gnn_relu_fwd(y, n);
    memcpy(dy, r, (size_t)n * sizeof(float));
    gnn_relu_bwd(y, dy, n);
    gnn_oracle_digest(ctx, dy, (size_t)n * sizeof(float));
    const float h = 0x1p-4f;
    for (int64_t e = 0; e < n; e++) {
        const float keep = x[e];
        double l[2];
        for (int side = 0; side < 2; side++) {
            x[e] = side ? keep - h : keep + h;
            memcpy(y, x, (size_t)n * sizeof(float));
            gnn_relu_fwd(y, n);
            l[side] = dot_r(y, r, n);
        }
        x[e] = keep;
        fd[e] = (l[0] - l[1]) / (2.0 * (double)h);
        an[e] = (double)dy[e];
    }
    return gnn_oracle_compare_f64(ctx, NULL, "dx (finite difference vs backward)", fd, an, n, 0);
}

const gnn_oracle_entry gnn_oracle_grad_relu = {
    .name = "grad.relu",
    .what = "relu backward against central differences (h = 1/16, |x| >= 1/4: no kink crossed)",
    .tol = { GNN_CMP_ULP, 0, 0 },
    .reason = "piecewise linear with dyadic inputs: the difference quotient is exact; measured 0, 225 seeds",
    .params = k_grad_relu_params, .n_params = 1, .presets = k_grad_relu_presets,
    .ref = &k_fn_ref, .impls = k_fn_impls, .run = grad_relu_run,
};
