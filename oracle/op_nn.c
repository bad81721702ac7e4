/* oracle/op_nn.c -- oracle entries for dense layers and training primitives (include/gnnref/nn.h).
 *
 *   linear.fwd, linear.bwd  every implementation against gnn_nn_ref, bitwise: nn.h fixes the
 *       accumulation order of every output (k for y; i for dw and db; j for dx). The blas
 *       twin (OpenBLAS's order) to its own tolerance (k_linf_tols, k_linb_tols), except db,
 *       which every twin sums in ref's order and is compared bitwise; the harness also holds it
 *       to the same bits at 1, 2 and 4 threads.
 *   xent, relu              property checkers written differently from ref/nn.c (verify);
 *       relu's cpu twin (opt/cpu/nn.c) passes the same checker and is bitwise ref's.
 * The gradient checks of these (grad.linear, grad.xent, grad.relu) are in oracle/op_nn_grad.c;
 * dropout and grad.dropout in oracle/op_dropout.c. */
#include <math.h>
#include <string.h>
#include "gnnref/dense.h"
#include "gnnref/nn.h"
#include "gnnref/tensor.h"
#include "gnnref/oracle.h"
#include "gnnref/rng.h"
#include "oracle/op_nn.h"

static const gnn_oracle_impl k_nn_ref = { .name = "ref", .ops = &gnn_nn_ref, .flags = 0 };
static const gnn_oracle_impl k_nn_cpu = { .name = "cpu", .ops = &gnn_nn_cpu, .flags = GNN_ORACLE_THREADED };
/* blas: OpenBLAS in fixed tiles (opt/cpu/nn_blas.c): its own tolerance against ref
 * (k_linf_tols, k_linb_tols), and the same bits at every thread count (not THREAD_DEPENDENT:
 * the harness checks that too) */
static const gnn_oracle_impl k_nn_blas = { .name = "blas", .ops = &gnn_nn_blas, .flags = GNN_ORACLE_THREADED };
/* fma: the fma context's fixed-order FMA kernel (opt/cpu/dense.c) on this CPU's path: its own
 * tolerance against ref (FMA chains instead of separate roundings; k_linf_tols, k_linb_tols);
 * its paths are held bitwise to their own specification by dense.fwd and dense.bwd
 * (oracle/op_dense.c) */
static const gnn_oracle_impl k_nn_fma = { .name = "fma", .ops = &gnn_nn_fma, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_nn_impls[] = { &k_nn_ref, &k_nn_cpu, &k_nn_fma, &k_nn_blas, NULL };
/* plain functions of ref/nn.c (not in the ops table: xent) */
static const gnn_oracle_impl k_fn_ref = { .name = "ref", .ops = NULL, .flags = 0 };
static const gnn_oracle_impl *const k_fn_impls[] = { &k_fn_ref, NULL };

/* ---- linear.fwd / linear.bwd ------------------------------------------------------------------ */

const gnn_oracle_param gnn_oracle_linf_params[N_LINF_PARAMS] = {
    { "n", GNN_PARAM_INT, 0, 1e7, "rows of x and y" },
    { "in", GNN_PARAM_INT, 0, 65536, "input width" },
    { "out", GNN_PARAM_INT, 0, 65536, "output width" },
    { "bias", GNN_PARAM_INT, 0, 1, "1: with bias b, 0: b = NULL" },
};
const gnn_oracle_param gnn_oracle_linb_params[N_LIN_PARAMS] = {
    { "n", GNN_PARAM_INT, 0, 1e7, "rows of x and dy" },
    { "in", GNN_PARAM_INT, 0, 65536, "input width" },
    { "out", GNN_PARAM_INT, 0, 65536, "output width" },
    { "dx", GNN_PARAM_INT, 0, 1, "1: compute dx, 0: dx = NULL (first layer)" },
    { "nulls", GNN_PARAM_INT, 0, 3, "bit 1: dw = NULL, bit 2: db = NULL (nn.h: every gradient is optional)" },
};
static const char *const k_linf_presets[] = {
    "n=37,in=13,out=7,bias=1", "n=1,in=1,out=1,bias=1", "n=0,in=16,out=8,bias=1",
    "n=64,in=33,out=47,bias=0", "n=5,in=0,out=3,bias=1", "n=300,in=100,out=40,bias=1",
    "n=17,in=16,out=32,bias=0", /* whole 16- and 8-lane vectors: no remainder loop */
    "n=1029,in=130,out=19,bias=1", /* blas: 5 row tiles of 256, the last of 5 rows, over the threads */
    NULL,
};
static const char *const k_linb_presets[] = {
    "n=37,in=13,out=7,dx=1", "n=1,in=1,out=1,dx=1", "n=0,in=16,out=8,dx=1",
    "n=64,in=33,out=47,dx=0", "n=5,in=0,out=3,dx=1", "n=300,in=100,out=40,dx=1",
    /* the optional gradients: dw alone, db alone, dx alone (the cpu backward skips each pass
     * whose output is NULL; the buffer passed as NULL must stay untouched) */
    "n=40,in=9,out=20,dx=0,nulls=2", "n=40,in=9,out=20,dx=0,nulls=1", "n=40,in=9,out=20,dx=1,nulls=3",
    "n=17,in=16,out=32,dx=1",
    /* blas: dw in 5 tiles of 32 rows of in (the last of 22) and in 2 (16 + 4), each a sum over
     * every n; dx in 5 and 3 row tiles; all over the threads */
    "n=1029,in=150,out=19,dx=1", "n=700,in=20,out=70,dx=1",
    NULL,
};

/* The tolerance of this case's implementation for sums of `terms` terms: a bitwise one as it
 * is; an nmse one (blas) is stated per term (k_linf_tols) and scaled by the terms of each sum,
 * since the rounding error of an unordered float sum grows with its length. */
static gnn_oracle_tol tol_for_terms(gnn_oracle_ctx *ctx, int64_t terms)
{
    gnn_oracle_tol t = *gnn_oracle_ctx_tol(ctx);
    if (t.cmp == GNN_CMP_NMSE)
        t.a *= (double)(terms > 1 ? terms : 1);
    return t;
}

/* The rounding bound of a twin that sums the same terms in the same order as ref but rounds
 * fewer times (fma: each step one FMA, ref a rounded product and a rounded sum). Each chain is
 * within gamma_terms sum|terms| of the exact sum (Higham, Accuracy and Stability of Numerical
 * Algorithms, 3.1; gamma_m ~ m 2^-24, and a rounded product adds one more unit), so the two are
 * within (2 terms + 1) 2^-24 mag, mag = the sum of the magnitudes of the element's terms. An
 * element-wise check against that worst case never fails a correct twin whatever cancels (an nmse
 * of a one-term sum that cancels with its bias is unbounded), and still sees any wrong, missing
 * or extra term of order 1/terms of mag. The dense entries hold the twin's bits exactly. */
double *gnn_oracle_gemm_magnitude(gnn_oracle_ctx *ctx, int64_t M, int64_t N, int64_t K, const float *A, int64_t a_rs,
                                  int64_t a_cs, const float *B, int64_t b_rs, int64_t b_cs, const float *init,
                                  double scale)
{
    double *mag = gnn_oracle_alloc(ctx, (size_t)(M * N > 0 ? M * N : 1) * sizeof(double));
    if (!mag)
        return NULL;
    for (int64_t m = 0; m < M; m++)
        for (int64_t j = 0; j < N; j++) {
            double acc = init ? fabs((double)init[j]) : 0.0;
            for (int64_t k = 0; k < K; k++)
                acc += fabs((double)A[m * a_rs + k * a_cs]) * fabs((double)B[k * b_rs + j * b_cs]);
            mag[m * N + j] = acc * scale;
        }
    return mag;
}

gnn_oracle_outcome gnn_oracle_compare_rounding(gnn_oracle_ctx *ctx, const gnn_oracle_tol *tol, const char *name,
                                               const float *want, const float *got, const double *mag, int64_t terms,
                                               int64_t count, int64_t cols)
{
    const double unit = tol->a * (double)(2 * terms + 1) * 0x1p-24;
    double worst = 0;
    int64_t bad = 0, worst_at = -1;
    for (int64_t e = 0; e < count; e++) {
        if (isnan(want[e]) || isnan(got[e]))
            return gnn_oracle_fail(ctx, "%s: NaN at %lld (ref %.9g, impl %.9g; outputs start as NaN: an element never "
                                        "written?)", name, (long long)e, want[e], got[e]);
        if (isinf(want[e]) || isinf(got[e])) {
            if (memcmp(&want[e], &got[e], sizeof(float)))
                return gnn_oracle_fail(ctx, "%s: Inf mismatch at %lld: ref %.9g impl %.9g", name, (long long)e, want[e],
                                       got[e]);
            continue;
        }
        const double diff = fabs((double)got[e] - (double)want[e]), bound = unit * mag[e];
        const double ratio = diff > 0 ? (bound > 0 ? diff / bound : INFINITY) : 0.0;
        if (ratio > 1.0) {
            if (bad < 5)
                gnn_oracle_note(ctx, "  %s[%lld,%lld]: ref %.9g impl %.9g, |diff| %.3g > bound %.3g", name,
                                (long long)(cols > 0 ? e / cols : e), (long long)(cols > 0 ? e % cols : 0), want[e],
                                got[e], diff, bound);
            bad++;
        }
        if (ratio > worst) {
            worst = ratio;
            worst_at = e;
        }
    }
    if (bad)
        return gnn_oracle_fail(ctx, "%s: %lld of %lld elements past the rounding bound (2 x %lld + 1) 2^-24 sum|terms| "
                                    "x %g (listed above)", name, (long long)bad, (long long)count, (long long)terms,
                               tol->a);
    gnn_oracle_note(ctx, "%s: worst %.3g of the rounding bound (element %lld)", name, worst, (long long)worst_at);
    return GNN_ORACLE_PASS;
}

gnn_oracle_outcome gnn_oracle_linear_fwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_nn_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    const int64_t n = gnn_oracle_int(c, L_N), in = gnn_oracle_int(c, L_IN), out = gnn_oracle_int(c, L_OUT);
    const int bias = (int)gnn_oracle_int(c, L_OPT);
    float *x = gnn_oracle_alloc(ctx, (size_t)(n * in) * sizeof(float));
    float *w = gnn_oracle_alloc(ctx, (size_t)(in * out) * sizeof(float));
    float *b = gnn_oracle_alloc(ctx, (size_t)out * sizeof(float));
    float *want = gnn_oracle_alloc_out(ctx, "ref.y", (size_t)(n * out) * sizeof(float));
    float *got = gnn_oracle_alloc_out(ctx, "impl.y", (size_t)(n * out) * sizeof(float));
    if (!x || !w || !b || !want || !got)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws g1 = gnn_oracle_draws_make(c, 1), g2 = gnn_oracle_draws_make(c, 2), g3 = gnn_oracle_draws_make(c, 3);
    gnn_oracle_fill_spread(&g1, x, n * in);
    gnn_oracle_fill_spread(&g2, w, in * out);
    gnn_oracle_fill_spread(&g3, b, out);
    gnn_status s = gnn_nn_linear_fwd(ref, x, n, in, w, bias ? b : NULL, out, want);
    if (s)
        return gnn_oracle_fail(ctx, "ref forward returned %s", gnn_status_str(s));
    s = gnn_nn_linear_fwd(impl, x, n, in, w, bias ? b : NULL, out, got);
    gnn_oracle_outcome o = gnn_oracle_status(ctx, "impl forward", s);
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, got, (size_t)(n * out) * sizeof(float));
    const gnn_oracle_tol tol = tol_for_terms(ctx, in + bias);
    if (tol.cmp == GNN_CMP_VERIFY) { /* a twin held to the rounding bound (fma) */
        const double *mag = gnn_oracle_gemm_magnitude(ctx, n, out, in, x, in, 1, w, out, 1, bias ? b : NULL, 1.0);
        if (!mag)
            return gnn_oracle_fail(ctx, "out of memory");
        return gnn_oracle_compare_rounding(ctx, &tol, "y", want, got, mag, in, n * out, out);
    }
    return gnn_oracle_compare_f32(ctx, &tol, "y", want, got, n * out, out);
}

gnn_oracle_outcome gnn_oracle_linear_bwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_nn_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    const int64_t n = gnn_oracle_int(c, L_N), in = gnn_oracle_int(c, L_IN), out = gnn_oracle_int(c, L_OUT);
    const int with_dx = (int)gnn_oracle_int(c, L_OPT), nulls = (int)gnn_oracle_int(c, L_NULLS);
    const int with_dw = !(nulls & 1), with_db = !(nulls & 2);
    float *x = gnn_oracle_alloc(ctx, (size_t)(n * in) * sizeof(float));
    float *w = gnn_oracle_alloc(ctx, (size_t)(in * out) * sizeof(float));
    float *dy = gnn_oracle_alloc(ctx, (size_t)(n * out) * sizeof(float));
    float *dx[2], *dw[2], *db[2];
    for (int s = 0; s < 2; s++) {
        dx[s] = gnn_oracle_alloc_out(ctx, s ? "impl.dx" : "ref.dx", (size_t)(n * in) * sizeof(float));
        dw[s] = gnn_oracle_alloc_out(ctx, s ? "impl.dw" : "ref.dw", (size_t)(in * out) * sizeof(float));
        db[s] = gnn_oracle_alloc_out(ctx, s ? "impl.db" : "ref.db", (size_t)out * sizeof(float));
        if (!dx[s] || !dw[s] || !db[s])
            return gnn_oracle_fail(ctx, "out of memory");
    }
    if (!x || !w || !dy)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws g1 = gnn_oracle_draws_make(c, 1), g2 = gnn_oracle_draws_make(c, 2), g3 = gnn_oracle_draws_make(c, 3);
    gnn_oracle_fill_spread(&g1, x, n * in);
    gnn_oracle_fill_spread(&g2, w, in * out);
    gnn_oracle_fill_spread(&g3, dy, n * out);
    gnn_status s = gnn_nn_linear_bwd(ref, x, dy, n, in, w, out, with_dx ? dx[0] : NULL, with_dw ? dw[0] : NULL,
                                     with_db ? db[0] : NULL);
    if (s)
        return gnn_oracle_fail(ctx, "ref backward returned %s", gnn_status_str(s));
    s = gnn_nn_linear_bwd(impl, x, dy, n, in, w, out, with_dx ? dx[1] : NULL, with_dw ? dw[1] : NULL,
                          with_db ? db[1] : NULL);
    gnn_oracle_outcome o = gnn_oracle_status(ctx, "impl backward", s);
    if (o != GNN_ORACLE_PASS)
        return o;
    /* an output passed as NULL: its buffer must still hold the NaN fill */
    const struct {
        int given;
        const char *name;
        float *const *buf;
        int64_t count, cols;
    } grads[2] = { { with_dw, "dw", dw, in * out, out }, { with_db, "db", db, out, 0 } };
    /* dw sums n terms; db is summed in ref's order by every twin: bitwise */
    const gnn_oracle_tol tols[2] = { tol_for_terms(ctx, n), { GNN_CMP_BITWISE, 0, 0 } };
    for (int q = 0; q < 2; q++) {
        if (grads[q].given) {
            gnn_oracle_digest(ctx, grads[q].buf[1], (size_t)grads[q].count * sizeof(float));
            if (tols[q].cmp == GNN_CMP_VERIFY) { /* dw of a twin held to the rounding bound (fma) */
                const double *mag = gnn_oracle_gemm_magnitude(ctx, in, out, n, x, 1, in, dy, out, 1, NULL, 1.0);
                if (!mag)
                    return gnn_oracle_fail(ctx, "out of memory");
                o = gnn_oracle_worst(o, gnn_oracle_compare_rounding(ctx, &tols[q], "dw", dw[0], dw[1], mag, n,
                                                                    in * out, out));
                continue;
            }
            o = gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, &tols[q], grads[q].name, grads[q].buf[0],
                                                           grads[q].buf[1], grads[q].count, grads[q].cols));
            continue;
        }
        const unsigned char *p = (const unsigned char *)grads[q].buf[1];
        for (size_t i = 0; i < (size_t)grads[q].count * sizeof(float); i++)
            if (p[i] != 0xFF)
                return gnn_oracle_fail(ctx, "%s = NULL but the %s buffer changed at byte %zu", grads[q].name,
                                       grads[q].name, i);
    }
    if (with_dx) {
        gnn_oracle_digest(ctx, dx[1], (size_t)(n * in) * sizeof(float));
        const gnn_oracle_tol tol = tol_for_terms(ctx, out);
        if (tol.cmp == GNN_CMP_VERIFY) { /* a twin held to the rounding bound (fma) */
            const double *mag = gnn_oracle_gemm_magnitude(ctx, n, in, out, dy, out, 1, w, 1, out, NULL, 1.0);
            if (!mag)
                return gnn_oracle_fail(ctx, "out of memory");
            o = gnn_oracle_worst(o, gnn_oracle_compare_rounding(ctx, &tol, "dx", dx[0], dx[1], mag, out, n * in, in));
        } else {
            o = gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, &tol, "dx", dx[0], dx[1], n * in, in));
        }
    } else {
        /* dx = NULL: the implementation must not have written the (unpassed) buffer either;
         * its guards are swept by the harness, its payload must still be the NaN fill */
        const unsigned char *p = (const unsigned char *)dx[1];
        for (size_t i = 0; i < (size_t)(n * in) * sizeof(float); i++)
            if (p[i] != 0xFF)
                return gnn_oracle_fail(ctx, "dx = NULL but the dx buffer changed at byte %zu", i);
    }
    return o;
}

/* Benchmarks: one GraphSAGE UPDATE-sized layer, n = 16384 rows of 128 -> 128. linear.fwd times
 * y = x w + b (GFLOP/s = 2 n in out / time); linear.bwd the training backward, dw, db and dx
 * (GFLOP/s = 4 n in out / time: two GEMMs; db's n out adds are not counted). */
typedef struct lin_fixture {
    const gnn_nn_ops *ops;
    int64_t n, in, out;
    float *x, *w, *b, *y, *dy, *dx, *dw, *db;
} lin_fixture;

static void lin_teardown(void *p)
{
    lin_fixture *f = p;
    if (!f)
        return;
    float *bufs[] = { f->x, f->w, f->b, f->y, f->dy, f->dx, f->dw, f->db };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        gnn_free(bufs[i]);
    gnn_free(f);
}

static gnn_status lin_setup_dir(const gnn_oracle_case *c, void **fixture, gnn_oracle_work *work, int bwd)
{
    lin_fixture *f = gnn_calloc(1, sizeof *f);
    if (!f)
        return GNN_ERR_NOMEM;
    f->ops = c->impl->ops;
    f->n = gnn_oracle_int(c, L_N);
    f->in = gnn_oracle_int(c, L_IN);
    f->out = gnn_oracle_int(c, L_OUT);
    const int64_t nx = f->n * f->in, nw = f->in * f->out, ny = f->n * f->out;
    f->x = gnn_malloc((size_t)nx * sizeof(float));
    f->w = gnn_malloc((size_t)nw * sizeof(float));
    f->b = gnn_malloc((size_t)f->out * sizeof(float));
    f->y = gnn_malloc((size_t)ny * sizeof(float));
    f->dy = gnn_malloc((size_t)ny * sizeof(float));
    f->dx = gnn_malloc((size_t)nx * sizeof(float));
    f->dw = gnn_malloc((size_t)nw * sizeof(float));
    f->db = gnn_malloc((size_t)f->out * sizeof(float));
    if (!f->x || !f->w || !f->b || !f->y || !f->dy || !f->dx || !f->dw || !f->db) {
        lin_teardown(f);
        return GNN_ERR_NOMEM;
    }
    gnn_oracle_draws g1 = gnn_oracle_draws_make(c, 1), g2 = gnn_oracle_draws_make(c, 2), g3 = gnn_oracle_draws_make(c, 3);
    gnn_oracle_fill_spread(&g1, f->x, nx);
    gnn_oracle_fill_spread(&g2, f->w, nw);
    gnn_oracle_fill_spread(&g3, bwd ? f->dy : f->b, bwd ? ny : f->out);
    const double gemm = 2.0 * (double)f->n * (double)f->in * (double)f->out;
    work->bytes = bwd ? 4.0 * (double)(2 * nx + 2 * nw + ny + f->out) : 4.0 * (double)(nx + nw + f->out + ny);
    work->flops = bwd ? 2.0 * gemm : gemm;
    work->items = (double)f->n;
    work->items_name = "rows/s";
    *fixture = f;
    return GNN_OK;
}

static gnn_status lin_setup(const gnn_oracle_case *c, void **fixture, gnn_oracle_work *work)
{
    return lin_setup_dir(c, fixture, work, 0);
}

static gnn_status lin_setup_bwd(const gnn_oracle_case *c, void **fixture, gnn_oracle_work *work)
{
    return lin_setup_dir(c, fixture, work, 1);
}

static gnn_status lin_bench_run(void *p)
{
    lin_fixture *f = p;
    return gnn_nn_linear_fwd(f->ops, f->x, f->n, f->in, f->w, f->b, f->out, f->y);
}

static gnn_status lin_bench_run_bwd(void *p)
{
    lin_fixture *f = p;
    return gnn_nn_linear_bwd(f->ops, f->x, f->dy, f->n, f->in, f->w, f->out, f->dx, f->dw, f->db);
}

static const char *const k_lin_bench_sizes[] = { "n=16384,in=128,out=128,bias=1", NULL };
static const char *const k_lin_bench_bwd_sizes[] = { "n=16384,in=128,out=128,dx=1", NULL };
const gnn_oracle_bench gnn_oracle_lin_bench_fwd = { k_lin_bench_sizes, lin_setup, lin_bench_run, lin_teardown };
const gnn_oracle_bench gnn_oracle_lin_bench_bwd = { k_lin_bench_bwd_sizes, lin_setup_bwd, lin_bench_run_bwd,
                                                    lin_teardown };

#define LIN_REASON "nn.h fixes each output's accumulation order (k for y; i for dw, db; j for dx); blas: its own"

/* blas: OpenBLAS's k panels and FMA instead of one rounding per term in k order. The error of
 * an unordered sum grows with its length: nmse ~ (terms/3) 2^-48 (as the cpu UPDATE's,
 * oracle/op_update.c). So the tolerance is stated per term, 2^-48 = 3.55e-15, and each sum's
 * comparison scales it by the sum's terms (tol_for_terms): in + 1 for y, n for dw, out for dx.
 * A wrong tile, a missed remainder row or column, or a missing bias moves nmse to order 1. */
static const gnn_oracle_impl_tol k_linf_tols[] = {
    { &k_nn_fma, { GNN_CMP_VERIFY, 1.0, 0 },
      "fma: ref's k order, each step one FMA (one rounding, ref two): each y within the worst-case rounding bound (2 "
      "in + 1) 2^-24 (|b| + sum |x w|); measured worst 0.66 of it (a one-term sum that cancels), 2000 seeds x "
      "every preset" },
    { &k_nn_blas, { GNN_CMP_NMSE, 3.55e-15, 0 },
      "blas: OpenBLAS's blocking and FMA order (CPU-dependent, not ours to fix): nmse per term of the sum (x in + 1 "
      "for y); theory (1/3) 2^-48 = 1.2e-15; measured 4.5e-16, 15 seeds x every preset x 1, 2, 4 threads, "
      "and 3.4e-16 at n = 3000, in = 3703 (CiteSeer's width)" },
    { NULL, { GNN_CMP_BITWISE, 0, 0 }, NULL },
};
static const gnn_oracle_impl_tol k_linb_tols[] = {
    { &k_nn_fma, { GNN_CMP_VERIFY, 1.0, 0 },
      "fma: dw and dx in ref's orders, each step one FMA (one rounding, ref two): each within the worst-case rounding "
      "bound (2 terms + 1) 2^-24 sum |terms| (n terms for dw, out for dx); measured worst 0.14 (dw) and 0.26 (dx) "
      "of it, 2000 seeds x every preset; db bitwise (ref's order)" },
    { &k_nn_blas, { GNN_CMP_NMSE, 3.55e-15, 0 },
      "blas: dw and dx in OpenBLAS's order: nmse per term of the sum (x n for dw, x out for dx); measured 1.7e-16 "
      "(dw) and 1.5e-16 (dx), 15 seeds x every preset x 1, 2, 4 threads, 3.1e-16 (dw) at n = 25000, in = out = "
      "64; db is compared bitwise (ref's order)" },
    { NULL, { GNN_CMP_BITWISE, 0, 0 }, NULL },
};

const gnn_oracle_entry gnn_oracle_linear_fwd = {
    .name = "linear.fwd",
    .what = "y = x . w + b against the reference",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = LIN_REASON,
    .params = gnn_oracle_linf_params, .n_params = N_LINF_PARAMS, .presets = k_linf_presets,
    .ref = &k_nn_ref, .impls = k_nn_impls, .impl_tols = k_linf_tols, .run = gnn_oracle_linear_fwd_run,
    .bench = &gnn_oracle_lin_bench_fwd,
};
const gnn_oracle_entry gnn_oracle_linear_bwd = {
    .name = "linear.bwd",
    .what = "dw = x^T dy, db = sum dy, dx = dy w^T against the reference",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = LIN_REASON,
    .params = gnn_oracle_linb_params, .n_params = N_LIN_PARAMS, .presets = k_linb_presets, .defaults = "nulls=0",
    .ref = &k_nn_ref, .impls = k_nn_impls, .impl_tols = k_linb_tols, .run = gnn_oracle_linear_bwd_run,
    .bench = &gnn_oracle_lin_bench_bwd,
};

/* ---- xent ---------------------------------------------------------------------------------------
 * Checker (a different formulation from ref/nn.c): for a labelled row with label y,
 *   loss_i = log(sum_j exp(z_j - z_y))   (relative to the label's logit, no max shift),
 *   p_j    = exp(z_j - z_y) / sum_k exp(z_k - z_y),
 * all in double; argmax is scanned from the last class down with >=, which also picks the
 * lowest index on ties. */

const gnn_oracle_param gnn_oracle_xent_params[N_XENT_PARAMS] = {
    { "n", GNN_PARAM_INT, 0, 1e6, "rows" },
    { "c", GNN_PARAM_INT, 1, 65536, "classes" },
    { "unl", GNN_PARAM_INT, 0, 1e6, "every unl-th row is unlabelled (-1); 0: none" },
    { "scale", GNN_PARAM_REAL, 0, 300, "logits in [-scale, scale]" },
};
/* Ties (quarter-step logits in a small range), one class, every row unlabelled, the empty
 * batch, and large logits (stability). */
static const char *const k_xent_presets[] = {
    "n=37,c=7,unl=5,scale=4", "n=1,c=1,unl=0,scale=1", "n=0,c=4,unl=0,scale=2",
    "n=6,c=3,unl=1,scale=2", "n=64,c=33,unl=0,scale=0.5", "n=20,c=13,unl=3,scale=80", NULL,
};

/* Logits: multiples of 2^-quantum_shift in [-scale, scale] (ties are common: xent takes 1/4);
 * labels uniform, with every unl-th row unlabelled. */
void gnn_oracle_xent_inputs(const gnn_oracle_case *c, float *z, int32_t *labels, int64_t n, int64_t cls,
                            int quantum_shift)
{
    const double scale = gnn_oracle_real(c, X_SCALE);
    const int64_t unl = gnn_oracle_int(c, X_UNL);
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1), gl = gnn_oracle_draws_make(c, 2);
    const int64_t kmax = (int64_t)ldexp(scale, quantum_shift);
    for (int64_t i = 0; i < n * cls; i++)
        z[i] = ldexpf((float)gnn_oracle_draw_range(&g, -kmax, kmax), -quantum_shift);
    for (int64_t i = 0; i < n; i++)
        labels[i] = (unl > 0 && i % unl == unl - 1) ? -1 : (int32_t)gnn_oracle_draw_uint(&gl, (uint64_t)cls);
}

static gnn_oracle_outcome xent_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int64_t n = gnn_oracle_int(c, X_N), cls = gnn_oracle_int(c, X_C);
    const gnn_oracle_tol *tol = gnn_oracle_ctx_tol(ctx);
    float *z = gnn_oracle_alloc(ctx, (size_t)(n * cls) * sizeof(float));
    int32_t *labels = gnn_oracle_alloc(ctx, (size_t)n * sizeof(int32_t));
    float *dz = gnn_oracle_alloc_out(ctx, "dlogits", (size_t)(n * cls) * sizeof(float));
    double *want = gnn_oracle_alloc_out(ctx, "checker.dlogits", (size_t)(n * cls) * sizeof(double));
    double *got = gnn_oracle_alloc_out(ctx, "ref.dlogits", (size_t)(n * cls) * sizeof(double));
    if (!z || !labels || !dz || !want || !got)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_xent_inputs(c, z, labels, n, cls, 2);
    int64_t correct = -1;
    const double loss = gnn_softmax_xent(z, n, cls, labels, dz, &correct);
    gnn_oracle_digest(ctx, &loss, sizeof loss);
    gnn_oracle_digest(ctx, dz, (size_t)(n * cls) * sizeof(float));

    gnn_oracle_outcome o = GNN_ORACLE_PASS;
    int64_t count = 0, right = 0;
    for (int64_t i = 0; i < n; i++)
        count += labels[i] >= 0;
    double total = 0;
    for (int64_t i = 0; i < n; i++) {
        const float *z_i = z + i * cls;
        double *w_i = want + i * cls;
        if (labels[i] < 0) {
            for (int64_t j = 0; j < cls; j++)
                w_i[j] = 0.0;
            continue;
        }
        const int32_t y = labels[i];
        double s = 0;
        for (int64_t j = 0; j < cls; j++)
            s += exp((double)z_i[j] - (double)z_i[y]);
        total += log(s);
        for (int64_t j = 0; j < cls; j++)
            w_i[j] = (exp((double)z_i[j] - (double)z_i[y]) / s - (j == y ? 1.0 : 0.0)) / (double)count;
        int64_t best = cls - 1;
        for (int64_t j = cls - 2; j >= 0; j--)
            if (z_i[j] >= z_i[best])
                best = j;
        right += best == y;
    }
    const double expect = count ? total / (double)count : 0.0;
    if (!(fabs(loss - expect) <= tol->a * fmax(1.0, fabs(expect))))
        o = gnn_oracle_fail(ctx, "loss %.17g, checker %.17g (|diff| %.3g > %g relative)", loss, expect,
                            fabs(loss - expect), tol->a);
    if (correct != right)
        o = gnn_oracle_fail(ctx, "correct = %lld, checker counts %lld (argmax, ties to the lowest index)",
                            (long long)correct, (long long)right);
    for (int64_t i = 0; i < n * cls; i++)
        got[i] = (double)dz[i];
    /* gradient rows: rounding each p_j - onehot to f32 costs 2^-24 relative */
    const gnn_oracle_tol gtol = { GNN_CMP_ALLCLOSE, 1e-12, tol->b };
    o = gnn_oracle_worst(o, gnn_oracle_compare_f64(ctx, &gtol, "dlogits", want, got, n * cls, cls));
    for (int64_t i = 0; i < n && o != GNN_ORACLE_FAIL; i++) {
        double sum = 0, mag = 0, zmax = 0;
        for (int64_t j = 0; j < cls; j++) {
            sum += got[i * cls + j];
            mag += fabs(got[i * cls + j]);
            zmax = fmax(zmax, fabs((double)z[i * cls + j]));
        }
        /* the f32 roundings (2^-24 of each value), plus the double ones: the probabilities
         * exp(z_j - lse) sum to 1 only within the rounding of lse (|lse| <~ max |z| + log c),
         * so a saturated row (every |dlogit| ~ 1e-12) may sum to ~1e-16 */
        const double budget = 4.0 * ldexp(mag, -24) + ldexp(1.0 + zmax + log((double)cls), -50) / (double)count;
        if (labels[i] < 0 && mag != 0)
            o = gnn_oracle_fail(ctx, "row %lld is unlabelled but its gradient is not zero", (long long)i);
        else if (fabs(sum) > budget)
            o = gnn_oracle_fail(ctx, "gradient row %lld sums to %.3g, expected ~0 (|row| %.3g)", (long long)i, sum, mag);
    }
    gnn_oracle_note(ctx, "loss %.9g over %lld labelled rows", loss, (long long)count);
    return o;
}

const gnn_oracle_entry gnn_oracle_xent = {
    .name = "xent",
    .what = "softmax cross-entropy: loss, dlogits, correct against a double checker; gradient rows sum to 0",
    .tol = { GNN_CMP_VERIFY, 1e-14, 1.2e-7 },
    .reason = "loss: both in double, summed in another order (~n 2^-53 relative, measured 4.5e-16); dlogits: one "
              "rounding to f32 (2^-24 relative; rtol 2^-23, measured 0.49 of it), 225 seeds",
    .params = gnn_oracle_xent_params, .n_params = N_XENT_PARAMS, .presets = k_xent_presets,
    .ref = &k_fn_ref, .impls = k_fn_impls, .run = xent_run,
};

/* ---- relu ---------------------------------------------------------------------------------------
 * Checker on the bits: a float is positive when its sign bit is clear and it is not +0;
 * then y must be x (same bits), else y must be a zero. Backward keeps dy exactly where y > 0.
 * An implementation other than ref is also compared with ref bitwise (y and dy: which zero). */

static const gnn_oracle_param k_relu_params[] = {
    { "n", GNN_PARAM_INT, 0, 1e8, "elements" },
};
/* cpu runs on one thread below 65536 elements and splits them over the threads from there:
 * one below, exactly at and past that size, and an odd size that leaves uneven thread shares */
static const char *const k_relu_presets[] = { "n=1", "n=0", "n=37", "n=1000", "n=65535", "n=65536", "n=100003", NULL };

static int positive_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return !(u >> 31) && (u & 0x7fffffffu) != 0;
}

/* y = relu(x), dy = dy0 masked by y, through ops's entry points */
static gnn_oracle_outcome relu_apply(gnn_oracle_ctx *ctx, const gnn_nn_ops *ops, const float *x, const float *dy0,
                                     int64_t n, float *y, float *dy)
{
    memcpy(y, x, (size_t)n * sizeof(float));
    memcpy(dy, dy0, (size_t)n * sizeof(float));
    gnn_oracle_outcome o = gnn_oracle_status(ctx, "relu forward", gnn_nn_relu_fwd(ops, y, n));
    if (o == GNN_ORACLE_PASS)
        o = gnn_oracle_status(ctx, "relu backward", gnn_nn_relu_bwd(ops, y, dy, n));
    return o;
}

static gnn_oracle_outcome relu_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int64_t n = gnn_oracle_int(c, 0);
    float *x = gnn_oracle_alloc(ctx, (size_t)n * sizeof(float));
    float *dy0 = gnn_oracle_alloc(ctx, (size_t)n * sizeof(float));
    float *y = gnn_oracle_alloc_out(ctx, "y", (size_t)n * sizeof(float));
    float *dy = gnn_oracle_alloc_out(ctx, "dy", (size_t)n * sizeof(float));
    if (!x || !dy0 || !y || !dy)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1), gd = gnn_oracle_draws_make(c, 2);
    gnn_oracle_fill_spread(&g, x, n);
    gnn_oracle_fill_spread(&gd, dy0, n);
    /* the awkward values: +0, -0, the smallest subnormals of both signs, huge values */
    static const float special[] = { 0.0f, -0.0f, 1e-45f, -1e-45f, 3e38f, -3e38f };
    for (int64_t i = 0; i < n; i++)
        if (gnn_oracle_draw_uint(&g, 8) == 0)
            x[i] = special[gnn_oracle_draw_uint(&g, 6)];
    gnn_oracle_outcome o = relu_apply(ctx, c->impl->ops, x, dy0, n, y, dy);
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, y, (size_t)n * sizeof(float));
    gnn_oracle_digest(ctx, dy, (size_t)n * sizeof(float));
    if (c->impl->ops != c->entry->ref->ops) {
        float *ry = gnn_oracle_alloc_out(ctx, "ref.y", (size_t)n * sizeof(float));
        float *rdy = gnn_oracle_alloc_out(ctx, "ref.dy", (size_t)n * sizeof(float));
        if (!ry || !rdy)
            return gnn_oracle_fail(ctx, "out of memory");
        const gnn_oracle_tol bitwise = { GNN_CMP_BITWISE, 0, 0 };
        if ((o = relu_apply(ctx, c->entry->ref->ops, x, dy0, n, ry, rdy)) != GNN_ORACLE_PASS ||
            (o = gnn_oracle_compare_f32(ctx, &bitwise, "y", ry, y, n, 0)) != GNN_ORACLE_PASS ||
            (o = gnn_oracle_compare_f32(ctx, &bitwise, "dy", rdy, dy, n, 0)) != GNN_ORACLE_PASS)
            return o;
    }
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        const int pos = positive_bits(x[i]);
        const int ok_y = pos ? memcmp(&y[i], &x[i], sizeof(float)) == 0 : y[i] == 0.0f;
        const int ok_dy = positive_bits(y[i]) ? memcmp(&dy[i], &dy0[i], sizeof(float)) == 0 : dy[i] == 0.0f;
        if (!ok_y || !ok_dy) {
            if (bad < 5)
                gnn_oracle_note(ctx, "  [%lld]: x %.9g -> y %.9g; dy %.9g -> %.9g", (long long)i, x[i], y[i], dy0[i], dy[i]);
            bad++;
        }
    }
    if (bad)
        return gnn_oracle_fail(ctx, "relu: %lld of %lld elements wrong (listed above)", (long long)bad, (long long)n);
    return GNN_ORACLE_PASS;
}

static const gnn_oracle_impl_tol k_relu_tols[] = {
    { &k_nn_cpu, { GNN_CMP_BITWISE, 0, 0 },
      "cpu: the same selection per element as ref, threads over elements: bitwise (and the checker)" },
    { NULL, { GNN_CMP_BITWISE, 0, 0 }, NULL },
};

const gnn_oracle_entry gnn_oracle_relu = {
    .name = "relu",
    .what = "y = max(x, 0) and dy masked where y <= 0, checked on the bits (zeros, subnormals, huge)",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "a selection, no arithmetic: exact",
    .params = k_relu_params, .n_params = 1, .presets = k_relu_presets,
    .ref = &k_nn_ref, .impls = k_nn_impls, .impl_tols = k_relu_tols, .run = relu_run,
};
