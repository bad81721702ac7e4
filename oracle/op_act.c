/* oracle/op_act.c -- oracle entries for ELU and LayerNorm (include/gnnref/act.h, docs/act.md).
 *
 *   elu.fwd, elu.bwd                every implementation against gnn_act_ref, bitwise (elementwise,
 *                                   the same scalar expf call).
 *   layernorm.fwd, layernorm.bwd    bitwise: row sums in f order, column sums (dgamma, dbeta) in
 *                                   row order, as act.h specifies.
 *   grad.elu, grad.layernorm        the reference backward against central differences in double
 *                                   of the reference forward. */
#include <math.h>
#include <string.h>
#include "gnnref/act.h"
#include "gnnref/oracle.h"

static const gnn_oracle_impl k_act_ref = { .name = "ref", .ops = &gnn_act_ref, .flags = 0 };
static const gnn_oracle_impl k_act_cpu = { .name = "cpu", .ops = &gnn_act_cpu, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_act_impls[] = { &k_act_ref, &k_act_cpu, NULL };
static const gnn_oracle_impl *const k_act_grad_impls[] = { &k_act_ref, NULL };

/* ---- ELU ------------------------------------------------------------------------------------- */

enum { E_N, E_ALPHA, N_ELU_PARAMS };
static const gnn_oracle_param k_elu_params[N_ELU_PARAMS] = {
    { "n", GNN_PARAM_INT, 0, 1e8, "elements" },
    { "alpha", GNN_PARAM_REAL, 0, 10, "ELU alpha" },
};
static const char *const k_elu_presets[] = {
    "n=37,alpha=1", "n=1,alpha=1", "n=0,alpha=1", "n=1000,alpha=0.5", "n=100003,alpha=1.5", NULL,
};

/* x: spread values (both signs, |x| from 2^-7 to 64, so expf underflows toward -alpha for the
 * large negatives) plus exact zeros every 17th element (the x > 0 boundary). */
static void elu_inputs(const gnn_oracle_case *c, float *x, float *dy, int64_t n)
{
    gnn_oracle_draws g1 = gnn_oracle_draws_make(c, 1), g2 = gnn_oracle_draws_make(c, 2);
    gnn_oracle_fill_spread(&g1, x, n);
    gnn_oracle_fill_spread(&g2, dy, n);
    for (int64_t i = 16; i < n; i += 17)
        x[i] = (i / 17) % 2 ? 0.0f : -0.0f;
}

static gnn_oracle_outcome elu_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int backward)
{
    const gnn_act_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    const int64_t n = gnn_oracle_int(c, E_N);
    const float alpha = (float)gnn_oracle_real(c, E_ALPHA);
    float *x = gnn_oracle_alloc(ctx, (size_t)n * sizeof(float));
    float *dy = gnn_oracle_alloc(ctx, (size_t)n * sizeof(float));
    float *want = gnn_oracle_alloc_out(ctx, backward ? "ref.dx" : "ref.y", (size_t)n * sizeof(float));
    float *got = gnn_oracle_alloc_out(ctx, backward ? "impl.dx" : "impl.y", (size_t)n * sizeof(float));
    if (!x || !dy || !want || !got)
        return gnn_oracle_fail(ctx, "out of memory");
    elu_inputs(c, x, dy, n);
    gnn_status s = backward ? gnn_act_elu_bwd(ref, x, dy, n, alpha, want) : gnn_act_elu_fwd(ref, x, n, alpha, want);
    if (s)
        return gnn_oracle_fail(ctx, "ref %s returned %s", backward ? "backward" : "forward", gnn_status_str(s));
    s = backward ? gnn_act_elu_bwd(impl, x, dy, n, alpha, got) : gnn_act_elu_fwd(impl, x, n, alpha, got);
    gnn_oracle_outcome o = gnn_oracle_status(ctx, backward ? "impl backward" : "impl forward", s);
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, got, (size_t)n * sizeof(float));
    return gnn_oracle_compare_f32(ctx, NULL, backward ? "dx" : "y", want, got, n, 0);
}

static gnn_oracle_outcome elu_fwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c) { return elu_run(ctx, c, 0); }
static gnn_oracle_outcome elu_bwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c) { return elu_run(ctx, c, 1); }

#define ELU_REASON "elementwise, the same expression and scalar expf call per element"

const gnn_oracle_entry gnn_oracle_elu_fwd = {
    .name = "elu.fwd",
    .what = "ELU forward y = x > 0 ? x : alpha (expf(x) - 1) against the reference",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = ELU_REASON,
    .params = k_elu_params, .n_params = N_ELU_PARAMS, .presets = k_elu_presets,
    .ref = &k_act_ref, .impls = k_act_impls, .run = elu_fwd_run,
};
const gnn_oracle_entry gnn_oracle_elu_bwd = {
    .name = "elu.bwd",
    .what = "ELU backward dx = x > 0 ? dy : dy alpha expf(x) against the reference",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = ELU_REASON,
    .params = k_elu_params, .n_params = N_ELU_PARAMS, .presets = k_elu_presets,
    .ref = &k_act_ref, .impls = k_act_impls, .run = elu_bwd_run,
};

/* ---- LayerNorm --------------------------------------------------------------------------------- */

enum { N_N, N_D, N_EPS, N_LN_PARAMS };
static const gnn_oracle_param k_ln_params[N_LN_PARAMS] = {
    { "n", GNN_PARAM_INT, 0, 1e7, "rows" },
    { "d", GNN_PARAM_INT, 1, 65536, "row width (features)" },
    { "eps", GNN_PARAM_REAL, 1e-12, 1, "added to the variance" },
};
/* d = 1 (variance 0: rstd = 1/sqrt(eps), y = beta), one row, no rows, widths not a multiple of
 * a vector (7, 13, 33, 100), and enough rows to split among threads. */
static const char *const k_ln_presets[] = {
    "n=37,d=13,eps=1e-05", "n=1,d=1,eps=1e-05", "n=20,d=1,eps=0.001", "n=0,d=8,eps=1e-05",
    "n=1,d=7,eps=1e-05", "n=64,d=33,eps=1e-05", "n=300,d=100,eps=1e-05", "n=5000,d=16,eps=1e-06", NULL,
};

typedef struct ln_case {
    int64_t n, d;
    float eps;
    float *x, *gamma, *beta, *dy;
} ln_case;

static gnn_oracle_outcome ln_inputs(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, ln_case *l)
{
    l->n = gnn_oracle_int(c, N_N);
    l->d = gnn_oracle_int(c, N_D);
    l->eps = (float)gnn_oracle_real(c, N_EPS);
    l->x = gnn_oracle_alloc(ctx, (size_t)(l->n * l->d) * sizeof(float));
    l->dy = gnn_oracle_alloc(ctx, (size_t)(l->n * l->d) * sizeof(float));
    l->gamma = gnn_oracle_alloc(ctx, (size_t)l->d * sizeof(float));
    l->beta = gnn_oracle_alloc(ctx, (size_t)l->d * sizeof(float));
    if (!l->x || !l->dy || !l->gamma || !l->beta)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws g1 = gnn_oracle_draws_make(c, 1), g2 = gnn_oracle_draws_make(c, 2), g3 = gnn_oracle_draws_make(c, 3);
    gnn_oracle_fill_spread(&g1, l->x, l->n * l->d);
    gnn_oracle_fill_spread(&g2, l->dy, l->n * l->d);
    gnn_oracle_fill_spread(&g3, l->gamma, l->d);
    gnn_oracle_fill_spread(&g3, l->beta, l->d);
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome ln_fwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_act_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    ln_case l;
    gnn_oracle_outcome o = ln_inputs(ctx, c, &l);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t cnt = l.n * l.d;
    float *y[2], *mu[2], *rs[2];
    for (int s = 0; s < 2; s++) {
        y[s] = gnn_oracle_alloc_out(ctx, s ? "impl.y" : "ref.y", (size_t)cnt * sizeof(float));
        mu[s] = gnn_oracle_alloc_out(ctx, s ? "impl.mu" : "ref.mu", (size_t)l.n * sizeof(float));
        rs[s] = gnn_oracle_alloc_out(ctx, s ? "impl.rstd" : "ref.rstd", (size_t)l.n * sizeof(float));
        if (!y[s] || !mu[s] || !rs[s])
            return gnn_oracle_fail(ctx, "out of memory");
    }
    gnn_status st = gnn_act_layernorm_fwd(ref, l.x, l.n, l.d, l.gamma, l.beta, l.eps, y[0], mu[0], rs[0]);
    if (st)
        return gnn_oracle_fail(ctx, "ref forward returned %s", gnn_status_str(st));
    o = gnn_oracle_status(ctx, "impl forward",
                          gnn_act_layernorm_fwd(impl, l.x, l.n, l.d, l.gamma, l.beta, l.eps, y[1], mu[1], rs[1]));
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, y[1], (size_t)cnt * sizeof(float));
    o = gnn_oracle_compare_f32(ctx, NULL, "y", y[0], y[1], cnt, l.d);
    o = gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, NULL, "mu", mu[0], mu[1], l.n, 0));
    o = gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, NULL, "rstd", rs[0], rs[1], l.n, 0));
    /* d = 1: every row is constant, var = 0, so rstd must be exactly 1/sqrtf(eps) and y = beta */
    if (l.d == 1 && o == GNN_ORACLE_PASS)
        for (int64_t i = 0; i < l.n; i++)
            if (rs[1][i] != 1.0f / sqrtf(l.eps) || y[1][i] != l.beta[0])
                return gnn_oracle_fail(ctx, "d = 1, row %lld: rstd %.9g (want 1/sqrt(eps) = %.9g), y %.9g (want beta %.9g)",
                                       (long long)i, rs[1][i], 1.0f / sqrtf(l.eps), y[1][i], l.beta[0]);
    return o;
}

static gnn_oracle_outcome ln_bwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_act_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    ln_case l;
    gnn_oracle_outcome o = ln_inputs(ctx, c, &l);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t cnt = l.n * l.d;
    float *y = gnn_oracle_alloc(ctx, (size_t)cnt * sizeof(float));
    float *mu = gnn_oracle_alloc(ctx, (size_t)l.n * sizeof(float));
    float *rs = gnn_oracle_alloc(ctx, (size_t)l.n * sizeof(float));
    float *dx[2], *dg[2], *db[2];
    for (int s = 0; s < 2; s++) {
        dx[s] = gnn_oracle_alloc_out(ctx, s ? "impl.dx" : "ref.dx", (size_t)cnt * sizeof(float));
        dg[s] = gnn_oracle_alloc_out(ctx, s ? "impl.dgamma" : "ref.dgamma", (size_t)l.d * sizeof(float));
        db[s] = gnn_oracle_alloc_out(ctx, s ? "impl.dbeta" : "ref.dbeta", (size_t)l.d * sizeof(float));
        if (!dx[s] || !dg[s] || !db[s])
            return gnn_oracle_fail(ctx, "out of memory");
    }
    if (!y || !mu || !rs)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_status st = gnn_act_layernorm_fwd(ref, l.x, l.n, l.d, l.gamma, l.beta, l.eps, y, mu, rs);
    if (!st)
        st = gnn_act_layernorm_bwd(ref, l.x, l.dy, l.n, l.d, l.gamma, mu, rs, dx[0], dg[0], db[0]);
    if (st)
        return gnn_oracle_fail(ctx, "ref returned %s", gnn_status_str(st));
    o = gnn_oracle_status(ctx, "impl backward",
                          gnn_act_layernorm_bwd(impl, l.x, l.dy, l.n, l.d, l.gamma, mu, rs, dx[1], dg[1], db[1]));
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, dx[1], (size_t)cnt * sizeof(float));
    gnn_oracle_digest(ctx, dg[1], (size_t)l.d * sizeof(float));
    o = gnn_oracle_compare_f32(ctx, NULL, "dx", dx[0], dx[1], cnt, l.d);
    o = gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, NULL, "dgamma", dg[0], dg[1], l.d, 0));
    return gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, NULL, "dbeta", db[0], db[1], l.d, 0));
}

#define LN_REASON "act.h fixes the orders: row sums f ascending, dgamma/dbeta rows ascending (cpu: columns in parallel)"

const gnn_oracle_entry gnn_oracle_layernorm_fwd = {
    .name = "layernorm.fwd",
    .what = "LayerNorm forward y, mu, rstd against the reference (d = 1: rstd = 1/sqrt(eps), y = beta)",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = LN_REASON,
    .params = k_ln_params, .n_params = N_LN_PARAMS, .presets = k_ln_presets,
    .ref = &k_act_ref, .impls = k_act_impls, .run = ln_fwd_run,
};
const gnn_oracle_entry gnn_oracle_layernorm_bwd = {
    .name = "layernorm.bwd",
    .what = "LayerNorm backward dx, dgamma, dbeta against the reference",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = LN_REASON,
    .params = k_ln_params, .n_params = N_LN_PARAMS, .presets = k_ln_presets,
    .ref = &k_act_ref, .impls = k_act_impls, .run = ln_bwd_run,
};

/* ---- gradient checks ----------------------------------------------------------------------------- */

/* grad.elu: L = sum r y. x = +-k/8, k in [2, 32] (|x| >= 1/4) and h = 2^-7: no step crosses 0,
 * x +- h is exact. For x > 0, y = x and the quotient is exact; for x < 0 the error is the
 * truncation h^2/6 alpha e^x <= 1e-5 alpha plus the f32 rounding of the two y values seen
 * through the quotient, |r| 2^-24 alpha / h <= 8e-6 alpha. */
static const char *const k_grad_elu_presets[] = { "n=50,alpha=1", "n=1,alpha=1", "n=0,alpha=1", "n=333,alpha=0.5",
                                                  "n=100,alpha=2", NULL };

static gnn_oracle_outcome grad_elu_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_act_ops *ops = c->impl->ops;
    const int64_t n = gnn_oracle_int(c, E_N);
    const float alpha = (float)gnn_oracle_real(c, E_ALPHA);
    float *x = gnn_oracle_alloc(ctx, (size_t)n * sizeof(float));
    float *r = gnn_oracle_alloc(ctx, (size_t)n * sizeof(float));
    float *y = gnn_oracle_alloc_out(ctx, "y", (size_t)n * sizeof(float));
    float *dx = gnn_oracle_alloc_out(ctx, "dx", (size_t)n * sizeof(float));
    double *fd = gnn_oracle_alloc_out(ctx, "finite-difference", (size_t)n * sizeof(double));
    double *an = gnn_oracle_alloc_out(ctx, "analytic", (size_t)n * sizeof(double));
    if (!x || !r || !y || !dx || !fd || !an)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1), gr = gnn_oracle_draws_make(c, 2);
    for (int64_t i = 0; i < n; i++) {
        const int64_t k = gnn_oracle_draw_range(&g, 2, 32);
        x[i] = ldexpf((float)(gnn_oracle_draw_uint(&g, 2) ? k : -k), -3);
    }
    gnn_oracle_fill_dyadic(&gr, r, n, 8, 3);
    gnn_oracle_outcome o = gnn_oracle_status(ctx, "backward", gnn_act_elu_bwd(ops, x, r, n, alpha, dx));
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, dx, (size_t)n * sizeof(float));
    const float h = 0x1p-7f;
    for (int64_t e = 0; e < n; e++) {
        const float keep = x[e];
        double l[2];
        for (int side = 0; side < 2; side++) {
            x[e] = side ? keep - h : keep + h;
            if ((o = gnn_oracle_status(ctx, "forward", gnn_act_elu_fwd(ops, x, n, alpha, y))) != GNN_ORACLE_PASS)
                return o;
            double L = 0;
            for (int64_t i = 0; i < n; i++)
                L += (double)r[i] * (double)y[i];
            l[side] = L;
        }
        x[e] = keep;
        fd[e] = (l[0] - l[1]) / (2.0 * (double)h);
        an[e] = (double)dx[e];
    }
    return gnn_oracle_compare_f64(ctx, NULL, "dx (finite difference vs backward)", fd, an, n, 0);
}

const gnn_oracle_entry gnn_oracle_grad_elu = {
    .name = "grad.elu",
    .what = "ELU backward against central differences (h = 2^-7, |x| >= 1/4: the kink at 0 never crossed)",
    .tol = { GNN_CMP_ALLCLOSE, 1.5e-5, 3e-5 },
    .reason = "exact for x > 0; for x < 0 truncation h^2/6 alpha e^x plus f32 rounding of y over 2h, each <~ 1e-5 "
              "here; measured max |diff| 1.2e-5 (0.43 of it), 225 seeds",
    .params = k_elu_params, .n_params = N_ELU_PARAMS, .presets = k_grad_elu_presets,
    .ref = &k_act_ref, .impls = k_act_grad_impls, .run = grad_elu_run,
};

/* grad.layernorm: L = sum r y over x, gamma and beta, h = 2^-7. Each row of x alternates
 * around a base b = k/8 (|k| <= 16): x = b -+ m, m = k/8 with k in [4, 16], so a row with
 * d >= 2 has a standard deviation of about 1/2 or more and rstd <= ~2. (A nearly constant row,
 * e.g. d = 2 with x = (a, a + 1/8), has rstd ~ 14 and a third derivative so large that the
 * step alone costs 4e-2: that would test the step, not the gradient.) gamma = 1 + k/16
 * (|k| <= 8), beta and r = k/8: x, gamma, beta +- h are exact. L is linear in gamma and beta
 * (exact up to the f32 rounding of y) and smooth in x. d = 1: y = beta whatever x, dx = 0.
 * Error: truncation h^2/6 |L'''| with |L'''| ~ rstd^3 |r gamma| (about 2e-5) plus the rounding
 * of the row's d perturbed outputs over 2h, d 2^-24 |r y| / (2h) (up to ~5e-4 at d = 33;
 * measured at most 1.1e-4 over 20 seeds per preset). */
static const char *const k_grad_ln_presets[] = {
    "n=4,d=5,eps=0.001", "n=1,d=1,eps=0.001", "n=3,d=13,eps=0.001", "n=0,d=4,eps=0.001",
    "n=2,d=33,eps=0.001", "n=6,d=2,eps=0.001", NULL,
};

static gnn_oracle_outcome grad_ln_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_act_ops *ops = c->impl->ops;
    const int64_t n = gnn_oracle_int(c, N_N), d = gnn_oracle_int(c, N_D), cnt = n * d, n_par = cnt + 2 * d;
    const float eps = (float)gnn_oracle_real(c, N_EPS);
    float *x = gnn_oracle_alloc(ctx, (size_t)cnt * sizeof(float));
    float *r = gnn_oracle_alloc(ctx, (size_t)cnt * sizeof(float));
    float *gamma = gnn_oracle_alloc(ctx, (size_t)d * sizeof(float));
    float *beta = gnn_oracle_alloc(ctx, (size_t)d * sizeof(float));
    float *y = gnn_oracle_alloc_out(ctx, "y", (size_t)cnt * sizeof(float));
    float *mu = gnn_oracle_alloc_out(ctx, "mu", (size_t)n * sizeof(float));
    float *rs = gnn_oracle_alloc_out(ctx, "rstd", (size_t)n * sizeof(float));
    float *dx = gnn_oracle_alloc_out(ctx, "dx", (size_t)cnt * sizeof(float));
    float *dg = gnn_oracle_alloc_out(ctx, "dgamma", (size_t)d * sizeof(float));
    float *db = gnn_oracle_alloc_out(ctx, "dbeta", (size_t)d * sizeof(float));
    double *fd = gnn_oracle_alloc_out(ctx, "finite-difference", (size_t)n_par * sizeof(double));
    double *an = gnn_oracle_alloc_out(ctx, "analytic", (size_t)n_par * sizeof(double));
    if (!x || !r || !gamma || !beta || !y || !mu || !rs || !dx || !dg || !db || !fd || !an)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws g1 = gnn_oracle_draws_make(c, 1), g2 = gnn_oracle_draws_make(c, 2), g3 = gnn_oracle_draws_make(c, 3);
    for (int64_t i = 0; i < n; i++) {
        const float base = ldexpf((float)gnn_oracle_draw_range(&g1, -16, 16), -3);
        for (int64_t f = 0; f < d; f++) { /* alternate sides of the base: no nearly constant row */
            const float m = ldexpf((float)gnn_oracle_draw_range(&g1, 4, 16), -3);
            x[i * d + f] = f % 2 ? base + m : base - m;
        }
    }
    gnn_oracle_fill_dyadic(&g2, r, cnt, 8, 3);
    gnn_oracle_fill_dyadic(&g3, gamma, d, 8, 4);
    for (int64_t f = 0; f < d; f++)
        gamma[f] += 1.0f;
    gnn_oracle_fill_dyadic(&g3, beta, d, 8, 3);
    gnn_oracle_outcome o =
        gnn_oracle_status(ctx, "forward", gnn_act_layernorm_fwd(ops, x, n, d, gamma, beta, eps, y, mu, rs));
    if (o == GNN_ORACLE_PASS)
        o = gnn_oracle_status(ctx, "backward", gnn_act_layernorm_bwd(ops, x, r, n, d, gamma, mu, rs, dx, dg, db));
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, dx, (size_t)cnt * sizeof(float));
    const float h = 0x1p-7f;
    for (int64_t k = 0; k < n_par; k++) {
        float *p = k < cnt ? x + k : k < cnt + d ? gamma + (k - cnt) : beta + (k - cnt - d);
        const float *grad = k < cnt ? dx + k : k < cnt + d ? dg + (k - cnt) : db + (k - cnt - d);
        const float keep = *p;
        double l[2];
        for (int side = 0; side < 2; side++) {
            *p = side ? keep - h : keep + h;
            o = gnn_oracle_status(ctx, "forward", gnn_act_layernorm_fwd(ops, x, n, d, gamma, beta, eps, y, mu, rs));
            if (o != GNN_ORACLE_PASS) {
                *p = keep;
                return o;
            }
            double L = 0;
            for (int64_t i = 0; i < cnt; i++)
                L += (double)r[i] * (double)y[i];
            l[side] = L;
        }
        *p = keep;
        fd[k] = (l[0] - l[1]) / (2.0 * (double)h);
        an[k] = (double)*grad;
    }
    o = gnn_oracle_compare_f64(ctx, NULL, "dx (finite difference vs backward)", fd, an, cnt, d);
    o = gnn_oracle_worst(o, gnn_oracle_compare_f64(ctx, NULL, "dgamma (finite difference vs backward)", fd + cnt, an + cnt, d, 0));
    return gnn_oracle_worst(o, gnn_oracle_compare_f64(ctx, NULL, "dbeta (finite difference vs backward)", fd + cnt + d,
                                                      an + cnt + d, d, 0));
}

const gnn_oracle_entry gnn_oracle_grad_layernorm = {
    .name = "grad.layernorm",
    .what = "LayerNorm backward (dx, dgamma, dbeta) against central differences of the forward (h = 2^-7)",
    .tol = { GNN_CMP_ALLCLOSE, 3e-4, 6e-4 },
    .reason = "smooth (eps > 0): truncation h^2/6 |L'''| plus the row's f32 output rounding over 2h, ~1e-4; "
              "measured max |diff| 1.4e-4 (0.47 of it), 225 seeds",
    .params = k_ln_params, .n_params = N_LN_PARAMS, .presets = k_grad_ln_presets,
    .ref = &k_act_ref, .impls = k_act_grad_impls, .run = grad_ln_run,
};
