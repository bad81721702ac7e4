/* oracle/op_dropout.c -- oracle entries for keyed dropout (include/gnnref/nn.h; the mask is
 * DESIGN.md section 2's: keep x[i][c] when float draw c of stream (seed, DROPOUT, step, layer,
 * row_gid[i]) >= p, scale kept values by 1/(1-p) computed in f32).
 *
 *   dropout       every implementation of the nn table's dropout_fwd and dropout_bwd against a
 *       property checker written differently from ref/nn.c (verify: each keep decision
 *       recomputed from gnn_rng_float, the scale, out = x * mask, mask = NULL, the backward);
 *       an implementation other than ref (cpu: opt/cpu/nn.c, the Philox lanes of
 *       opt/cpu/philox_lanes.c, rows over threads) is also compared with ref bitwise (out,
 *       mask, dy), at 1, 2 and 4 threads, on presets that cross every boundary of its kernel.
 *   grad.dropout  ref's backward against central differences of its forward (docs/oracle.md,
 *       "Gradient checks"); the optimized backward is held to ref's by dropout. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gnnref/nn.h"
#include "gnnref/oracle.h"
#include "gnnref/rng.h"
#include "gnnref/tensor.h"

static const gnn_oracle_impl k_drop_ref = { .name = "ref", .ops = &gnn_nn_ref, .flags = 0 };
static const gnn_oracle_impl k_drop_cpu = { .name = "cpu", .ops = &gnn_nn_cpu, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_drop_impls[] = { &k_drop_ref, &k_drop_cpu, NULL };
static const gnn_oracle_impl *const k_drop_grad_impls[] = { &k_drop_ref, NULL };

/* ---- dropout ------------------------------------------------------------------------------------
 * Checker: the keep decision of (row, column) recomputed from the keyed stream as DESIGN.md
 * section 2 states it (tag DROPOUT, id = the row's global vertex id, draw = column, keep when
 * the float draw >= p); the kept scale within 1 ulp of 1/(1-p); out = x * mask exactly;
 * mask = NULL gives the same out; backward = dy * mask exactly; the number kept within 6
 * standard deviations of n d (1-p). */

enum { D_N, D_D, D_P, D_STEP, D_LAYER, N_DROP_PARAMS, D_TIE = N_DROP_PARAMS, N_DROPT_PARAMS };
static const gnn_oracle_param k_drop_params[N_DROPT_PARAMS] = {
    { "n", GNN_PARAM_INT, 0, 1e7, "rows" },
    { "d", GNN_PARAM_INT, 0, 65536, "columns" },
    { "p", GNN_PARAM_REAL, 0, 0.99999994, "drop probability (0.99999994: the largest float below 1)" },
    { "step", GNN_PARAM_INT, 0, 4294967295.0, "global iteration (stream step)" },
    { "layer", GNN_PARAM_INT, 0, 255, "layer index (stream layer)" },
    { "tie", GNN_PARAM_INT, 0, 1,
      "1: p is raised to the smallest keyed draw >= p of the case, so one draw equals p exactly (kept: u >= p)" },
};
/* The boundaries of cpu's kernel (opt/cpu/nn.c, opt/cpu/philox_lanes.c): a Philox block is
 * 4 columns, an AVX2 step 8 blocks (32 columns), a portable SIMD step 16 blocks (64), a mask
 * chunk 256 columns; the float loops run 8 (AVX2) or 4 lanes wide; rows go to the threads
 * from 8192 elements on (below, one thread). */
static const char *const k_drop_presets[] = {
    "n=37,d=13,p=0.5,step=3,layer=1", "n=1,d=1,p=0.5,step=0,layer=0", "n=0,d=8,p=0.5,step=0,layer=0",
    "n=64,d=33,p=0.1,step=7,layer=2", "n=20,d=7,p=0,step=1,layer=0", "n=50,d=100,p=0.9,step=4000000000,layer=255",
    /* a draw equal to the threshold (the rule keeps it: u >= p; "u > p" passes every other case) */
    "n=40,d=50,p=0.5,step=3,layer=1,tie=1", "n=9,d=300,p=0.2,step=2,layer=0,tie=1",
    /* widths around a block (1, 3, 4, 5), four blocks and a float vector (15, 16, 17), an AVX2
     * step (32 + 1), a portable step (64 + 1), a mask chunk (256, 257); no rows with columns,
     * a row without columns (its stream opened, nothing written) */
    "n=5,d=1,p=0.5,step=1,layer=0", "n=7,d=3,p=0.5,step=1,layer=0", "n=6,d=4,p=0.25,step=1,layer=3",
    "n=9,d=5,p=0.5,step=2,layer=0,tie=1", "n=11,d=15,p=0.5,step=2,layer=1", "n=10,d=16,p=0.3,step=2,layer=1",
    "n=12,d=17,p=0.5,step=2,layer=1,tie=1", "n=13,d=33,p=0.5,step=4,layer=0,tie=1",
    "n=8,d=65,p=0.5,step=4,layer=0,tie=1", "n=6,d=256,p=0.5,step=5,layer=2", "n=5,d=257,p=0.5,step=5,layer=2,tie=1",
    "n=0,d=0,p=0.5,step=0,layer=0", "n=3,d=0,p=0.5,step=0,layer=0",
    /* threaded: one column over 8191 and 8192 rows (one below and at the threaded size), fewer
     * rows than threads (3 rows, 1 row: threads without work) with rows of many chunks, an
     * uneven split, p = 0 (no draws), p close to 1 (0.9995 raised to a draw: a few kept, scale
     * ~2000; the largest float below 1: a draw is kept with probability 2^-24, all dropped) */
    "n=8191,d=1,p=0.5,step=6,layer=0", "n=8192,d=1,p=0.5,step=6,layer=0,tie=1",
    "n=3,d=3000,p=0.5,step=7,layer=1,tie=1", "n=1,d=8193,p=0.5,step=7,layer=1",
    "n=601,d=17,p=0.5,step=8,layer=4,tie=1", "n=300,d=33,p=0,step=8,layer=4",
    "n=40,d=300,p=0.9995,step=9,layer=5,tie=1", "n=30,d=300,p=0.99999994,step=9,layer=5",
    NULL,
};

/* Row global ids spread up to 2^40, so the stream's id_hi field is exercised (distinct when n <= 256). */
static void dropout_rows(const gnn_oracle_case *c, int64_t *gid, int64_t n)
{
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 3);
    for (int64_t i = 0; i < n; i++)
        gid[i] = (int64_t)gnn_oracle_draw_uint(&g, 1ull << 32) << 8 | i; /* low byte: distinct mod 256 */
}

typedef struct drop_in {
    int64_t n, d, cnt;
    float p;
    uint32_t step;
    unsigned layer;
    uint64_t seed;
    float *x, *dy0;
    int64_t *gid;
} drop_in;

typedef struct drop_out {
    float *out, *out2, *mask, *dy; /* out with its mask; out2 with mask = NULL; dy = dy0 * mask */
} drop_out;

/* The case's inputs: p raised to a draw with tie=1. NULL x: out of memory. */
static void drop_inputs(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, drop_in *in)
{
    in->n = gnn_oracle_int(c, D_N);
    in->d = gnn_oracle_int(c, D_D);
    in->cnt = in->n * in->d;
    in->p = (float)gnn_oracle_real(c, D_P);
    in->step = (uint32_t)gnn_oracle_int(c, D_STEP);
    in->layer = (unsigned)gnn_oracle_int(c, D_LAYER);
    in->seed = c->seed * 0x9E3779B97F4A7C15ull + 1; /* the model seed under test */
    in->x = gnn_oracle_alloc(ctx, (size_t)in->cnt * sizeof(float));
    in->dy0 = gnn_oracle_alloc(ctx, (size_t)in->cnt * sizeof(float));
    in->gid = gnn_oracle_alloc(ctx, (size_t)in->n * sizeof(int64_t));
    if (!in->x || !in->dy0 || !in->gid) {
        in->x = NULL;
        return;
    }
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1), gd = gnn_oracle_draws_make(c, 2);
    gnn_oracle_fill_spread(&g, in->x, in->cnt);
    gnn_oracle_fill_spread(&gd, in->dy0, in->cnt);
    dropout_rows(c, in->gid, in->n);
    if (gnn_oracle_int(c, D_TIE) && in->p > 0.0f)
        in->p = gnn_oracle_tie_threshold(in->seed, GNN_TAG_DROPOUT, in->step, in->layer, in->gid, in->n, NULL, in->d,
                                         in->p);
}

/* Run ops's forward (with and without the mask) and backward through the entry points into
 * guarded outputs named prefix + "out", ... */
static gnn_oracle_outcome drop_apply(gnn_oracle_ctx *ctx, const gnn_nn_ops *ops, const char *prefix,
                                     const drop_in *in, drop_out *o)
{
    const size_t bytes = (size_t)in->cnt * sizeof(float);
    char nm[4][32];
    static const char *const what[4] = { "out", "out(mask=NULL)", "mask", "dy" };
    for (int k = 0; k < 4; k++)
        snprintf(nm[k], sizeof nm[k], "%s%s", prefix, what[k]);
    o->out = gnn_oracle_alloc_out(ctx, nm[0], bytes);
    o->out2 = gnn_oracle_alloc_out(ctx, nm[1], bytes);
    o->mask = gnn_oracle_alloc_out(ctx, nm[2], bytes);
    o->dy = gnn_oracle_alloc_out(ctx, nm[3], bytes);
    if (!o->out || !o->out2 || !o->mask || !o->dy)
        return gnn_oracle_fail(ctx, "out of memory");
    memcpy(o->out, in->x, bytes);
    memcpy(o->out2, in->x, bytes);
    memcpy(o->dy, in->dy0, bytes);
    gnn_status s =
        gnn_nn_dropout_fwd(ops, o->out, in->n, in->d, in->gid, in->p, in->seed, in->step, in->layer, o->mask);
    if (!s)
        s = gnn_nn_dropout_fwd(ops, o->out2, in->n, in->d, in->gid, in->p, in->seed, in->step, in->layer, NULL);
    if (!s)
        s = gnn_nn_dropout_bwd(ops, o->dy, in->n, in->d, o->mask);
    return gnn_oracle_status(ctx, *prefix ? "ref dropout" : "impl dropout", s);
}

/* The checker (see the section's head) on one implementation's outputs. */
static gnn_oracle_outcome drop_verify(gnn_oracle_ctx *ctx, const drop_in *in, const drop_out *r)
{
    const float p = in->p;
    const int64_t d = in->d;
    const double s_exact = 1.0 / (1.0 - (double)p);
    int64_t kept = 0, bad = 0;
    float scale = -1.0f;
    for (int64_t i = 0; i < in->n; i++) {
        const gnn_rng_stream s = gnn_rng_stream_make(in->seed, GNN_TAG_DROPOUT, in->step, in->layer,
                                                     (uint64_t)in->gid[i]);
        for (int64_t col = 0; col < d; col++) {
            const int64_t k = i * d + col;
            const int keep = gnn_rng_float(&s, (uint64_t)col) >= p;
            const float m = r->mask[k];
            kept += keep;
            if (keep && scale < 0)
                scale = m;
            const int ok = (keep ? m == scale : m == 0.0f) &&
                           memcmp(&(float){ in->x[k] * m }, &r->out[k], sizeof(float)) == 0 &&
                           memcmp(&(float){ in->dy0[k] * m }, &r->dy[k], sizeof(float)) == 0;
            if (!ok) {
                if (bad < 5)
                    gnn_oracle_note(ctx, "  [%lld,%lld]: keep %d: x %.9g mask %.9g out %.9g; dy %.9g -> %.9g",
                                    (long long)i, (long long)col, keep, in->x[k], m, r->out[k], in->dy0[k], r->dy[k]);
                bad++;
            }
        }
    }
    gnn_oracle_outcome o = GNN_ORACLE_PASS;
    if (bad)
        o = gnn_oracle_fail(ctx, "dropout: %lld of %lld elements disagree with the keyed stream (listed above)",
                            (long long)bad, (long long)in->cnt);
    if (scale >= 0 && fabs((double)scale - s_exact) > ldexp(s_exact, -23))
        o = gnn_oracle_fail(ctx, "dropout: kept scale %.9g is more than 1 ulp from 1/(1-p) = %.17g", scale, s_exact);
    const double mean = (double)in->cnt * (1.0 - p), sd = sqrt((double)in->cnt * p * (1.0 - p));
    if (fabs((double)kept - mean) > 6.0 * sd + 1.0)
        o = gnn_oracle_fail(ctx, "dropout: kept %lld of %lld, expected %.1f +- %.1f (6 sd)", (long long)kept,
                            (long long)in->cnt, mean, 6 * sd);
    const gnn_oracle_tol bitwise = { GNN_CMP_BITWISE, 0, 0 };
    o = gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, &bitwise, "out vs out(mask=NULL)", r->out, r->out2, in->cnt,
                                                   d));
    if (o == GNN_ORACLE_PASS)
        gnn_oracle_note(ctx, "kept %lld of %lld (p = %.9g)", (long long)kept, (long long)in->cnt, (double)p);
    return o;
}

static gnn_oracle_outcome dropout_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_nn_ops *ops = c->impl->ops, *ref = c->entry->ref->ops;
    drop_in in;
    drop_inputs(ctx, c, &in);
    if (!in.x)
        return gnn_oracle_fail(ctx, "out of memory");
    drop_out got, want;
    gnn_oracle_outcome o = drop_apply(ctx, ops, "", &in, &got);
    if (o != GNN_ORACLE_PASS)
        return o;
    const size_t bytes = (size_t)in.cnt * sizeof(float);
    gnn_oracle_digest(ctx, got.out, bytes);
    gnn_oracle_digest(ctx, got.mask, bytes);
    gnn_oracle_digest(ctx, got.dy, bytes);
    if (ops != ref) { /* the same bits as ref's, element by element */
        const gnn_oracle_tol bitwise = { GNN_CMP_BITWISE, 0, 0 };
        if ((o = drop_apply(ctx, ref, "ref.", &in, &want)) != GNN_ORACLE_PASS)
            return o;
        o = gnn_oracle_compare_f32(ctx, &bitwise, "out", want.out, got.out, in.cnt, in.d);
        o = gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, &bitwise, "mask", want.mask, got.mask, in.cnt, in.d));
        o = gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, &bitwise, "dy", want.dy, got.dy, in.cnt, in.d));
        if (o != GNN_ORACLE_PASS)
            return o;
    }
    return drop_verify(ctx, &in, &got);
}

/* ---- benchmark hook: GB/s = (x read and written, mask written, row ids read) / time ------------
 * The forward with its mask, in place on the same x every call (the mask does not change from
 * call to call, so kept values double each call at p = 0.5 and reach inf: the same speed on
 * x86 as finite values; no subnormals arise). */

typedef struct drop_fixture {
    const gnn_nn_ops *ops;
    int64_t n, d;
    float p, *x, *mask;
    int64_t *gid;
} drop_fixture;

static void drop_teardown(void *p)
{
    drop_fixture *f = p;
    if (!f)
        return;
    gnn_free(f->x);
    gnn_free(f->mask);
    gnn_free(f->gid);
    gnn_free(f);
}

static gnn_status drop_setup(const gnn_oracle_case *c, void **fixture, gnn_oracle_work *work)
{
    drop_fixture *f = gnn_calloc(1, sizeof *f);
    if (!f)
        return GNN_ERR_NOMEM;
    f->ops = c->impl->ops;
    f->n = gnn_oracle_int(c, D_N);
    f->d = gnn_oracle_int(c, D_D);
    f->p = (float)gnn_oracle_real(c, D_P);
    f->x = gnn_malloc((size_t)(f->n * f->d) * sizeof(float));
    f->mask = gnn_malloc((size_t)(f->n * f->d) * sizeof(float));
    f->gid = gnn_malloc((size_t)f->n * sizeof(int64_t));
    if (!f->x || !f->mask || !f->gid) {
        drop_teardown(f);
        return GNN_ERR_NOMEM;
    }
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1);
    gnn_oracle_fill_spread(&g, f->x, f->n * f->d);
    dropout_rows(c, f->gid, f->n);
    work->bytes = 12.0 * (double)f->n * (double)f->d + 8.0 * (double)f->n;
    work->flops = (double)f->n * (double)f->d;
    work->items = (double)f->n;
    work->items_name = "rows/s";
    *fixture = f;
    return GNN_OK;
}

static gnn_status drop_bench_run(void *p)
{
    drop_fixture *f = p;
    return gnn_nn_dropout_fwd(f->ops, f->x, f->n, f->d, f->gid, f->p, 12345, 3, 1, f->mask);
}

/* A sampled input layer of a GraphSAGE step (25000 src rows, as in issue 21), at the width of
 * the hidden layers (64) and of a wide input (256). */
static const char *const k_drop_bench_sizes[] = {
    "n=25000,d=64,p=0.5,step=3,layer=1",
    "n=25000,d=256,p=0.5,step=3,layer=1",
    NULL,
};
static const gnn_oracle_bench k_drop_bench = { k_drop_bench_sizes, drop_setup, drop_bench_run, drop_teardown };

static const gnn_oracle_impl_tol k_drop_tols[] = {
    { &k_drop_cpu, { GNN_CMP_BITWISE, 0, 0 },
      "cpu: ref's mask (the same Philox words, the same compare) and ref's one multiply per element; rows over "
      "threads: bitwise at any thread count (and the checker)" },
    { NULL, { GNN_CMP_BITWISE, 0, 0 }, NULL },
};

const gnn_oracle_entry gnn_oracle_dropout = {
    .name = "dropout",
    .what = "keyed dropout: keep decisions from the stream, scale 1/(1-p), out = x * mask, backward = dy * mask",
    .tol = { GNN_CMP_VERIFY, 1, 0 },
    .reason = "selection and one f32 multiply: exact; the scale 1/(1-p) within 1 ulp (computed in f32: 1-p and the "
              "quotient round, measured 0.52 ulp at p = 0.123)",
    .params = k_drop_params, .n_params = N_DROPT_PARAMS, .presets = k_drop_presets, .defaults = "tie=0",
    .ref = &k_drop_ref, .impls = k_drop_impls, .impl_tols = k_drop_tols, .run = dropout_run, .bench = &k_drop_bench,
};

/* ---- grad.dropout ------------------------------------------------------------------------------ */

static double dot_r(const float *out, const float *r, int64_t count)
{
    double L = 0;
    for (int64_t i = 0; i < count; i++)
        L += (double)r[i] * (double)out[i];
    return L;
}

/* grad.dropout: the mask is a pure function of (seed, step, layer, row id, column), so every
 * forward evaluation applies the same mask and L = sum r . dropout(x) is linear in x: h = 1.
 * With p = 0.5 the scale is 2 and everything is exact; otherwise x * scale rounds once. */
static const char *const k_grad_drop_presets[] = {
    "n=10,d=7,p=0.5,step=2,layer=0", "n=5,d=13,p=0.3,step=9,layer=1", "n=1,d=1,p=0,step=0,layer=0",
    "n=4,d=33,p=0.75,step=5,layer=3", NULL,
};

static gnn_oracle_outcome grad_dropout_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int64_t n = gnn_oracle_int(c, D_N), d = gnn_oracle_int(c, D_D), cnt = n * d;
    const float p = (float)gnn_oracle_real(c, D_P);
    const uint32_t step = (uint32_t)gnn_oracle_int(c, D_STEP);
    const unsigned layer = (unsigned)gnn_oracle_int(c, D_LAYER);
    const uint64_t seed = c->seed * 0x9E3779B97F4A7C15ull + 1;
    float *x = gnn_oracle_alloc(ctx, (size_t)cnt * sizeof(float));
    float *r = gnn_oracle_alloc(ctx, (size_t)cnt * sizeof(float));
    int64_t *gid = gnn_oracle_alloc(ctx, (size_t)n * sizeof(int64_t));
    float *y = gnn_oracle_alloc_out(ctx, "y", (size_t)cnt * sizeof(float));
    float *mask = gnn_oracle_alloc_out(ctx, "mask", (size_t)cnt * sizeof(float));
    float *dy = gnn_oracle_alloc_out(ctx, "dy", (size_t)cnt * sizeof(float));
    double *fd = gnn_oracle_alloc_out(ctx, "finite-difference", (size_t)cnt * sizeof(double));
    double *an = gnn_oracle_alloc_out(ctx, "analytic", (size_t)cnt * sizeof(double));
    if (!x || !r || !gid || !y || !mask || !dy || !fd || !an)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1), gr = gnn_oracle_draws_make(c, 2);
    gnn_oracle_fill_dyadic(&g, x, cnt, 16, 3);
    gnn_oracle_fill_dyadic(&gr, r, cnt, 16, 3);
    dropout_rows(c, gid, n);
    memcpy(y, x, (size_t)cnt * sizeof(float));
    gnn_dropout_fwd(y, n, d, gid, p, seed, step, layer, mask);
    memcpy(dy, r, (size_t)cnt * sizeof(float));
    gnn_dropout_bwd(dy, n, d, mask);
    gnn_oracle_digest(ctx, dy, (size_t)cnt * sizeof(float));
    const float h = 1.0f;
    for (int64_t e = 0; e < cnt; e++) {
        const float keep = x[e];
        double l[2];
        for (int side = 0; side < 2; side++) {
            x[e] = side ? keep - h : keep + h;
            memcpy(y, x, (size_t)cnt * sizeof(float));
            gnn_dropout_fwd(y, n, d, gid, p, seed, step, layer, NULL);
            l[side] = dot_r(y, r, cnt);
        }
        x[e] = keep;
        fd[e] = (l[0] - l[1]) / (2.0 * (double)h);
        an[e] = (double)dy[e];
    }
    return gnn_oracle_compare_f64(ctx, NULL, "dx (finite difference vs backward)", fd, an, cnt, d);
}

const gnn_oracle_entry gnn_oracle_grad_dropout = {
    .name = "grad.dropout",
    .what = "dropout backward against central differences with the keyed (hence fixed) mask, h = 1",
    .tol = { GNN_CMP_ALLCLOSE, 1e-9, 2.4e-7 },
    .reason = "linear in x; x * scale and dy * scale each round once when 1/(1-p) is not a power of 2 (2^-23 "
              "relative in all; rtol 2^-22); measured 1.17e-7 relative (0.49 of it), 225 seeds",
    .params = k_drop_params, .n_params = N_DROP_PARAMS, .presets = k_grad_drop_presets,
    .ref = &k_drop_ref, .impls = k_drop_grad_impls, .run = grad_dropout_run,
};

