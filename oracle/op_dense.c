/* oracle/op_dense.c -- oracle entries for the fma context's dense kernel (include/gnnref/dense.h).
 *
 *   dense.fwd, dense.bwd  every path of opt/cpu/dense.c (scalar with fmaf, AVX2, AVX-512, and
 *       the path this CPU runs by default) against the specification ref/dense.c, BITWISE:
 *       dense.h fixes each output's FMA chain (k ascending, from b for y; from 0 for dx, dw; db
 *       in ref's plain order), and fusedMultiplyAdd is exact, so any tiling, lane count or
 *       thread count must give the specification's bits. Threaded, so the harness also holds
 *       each path to the same bits at every thread count. A path the CPU lacks is a SKIP that
 *       says which features are missing. The shapes are the awkward ones for a packed GEMM:
 *       empty sides (n, in, out = 0), one element, widths that are not multiples of 8, 16 or 32
 *       (the column tails of every register block), rows past a tile (64 rows on AVX-512),
 *       more columns than a tile holds (256), K longer than a panel (128, 256, 512 rows of B
 *       on AVX-512, AVX2, scalar), so the chain is stored and resumed across panels, and dw's K
 *       in several chunks (the tiles then dealt statically, chunk after chunk, no barrier).
 *   dense.fma1  the scalar path's FMA without an FMA instruction (gnn_dense_fma_emulated: double
 *       arithmetic, round to odd) against C's fmaf, bitwise, on the triples where an emulation
 *       goes wrong: spread values, products a hair off a float midpoint (double rounding),
 *       cancellation, subnormal results, overflow, infinities, NaN and signed zeros.
 * linear.fwd and linear.bwd (oracle/op_nn.c) hold the default path to ref within a tolerance;
 * update.fma.fwd and update.fma.bwd (oracle/op_update.c) the fused UPDATE on the same kernel. */
#include <math.h>
#include <string.h>
#include "gnnref/dense.h"
#include "gnnref/oracle.h"
#include "opt/cpu/dense_impl.h"
#include "oracle/op_nn.h"

static const gnn_oracle_impl k_fma_ref = { .name = "fma-ref", .ops = &gnn_nn_fma_ref, .flags = 0 };
static const gnn_oracle_impl k_fma = { .name = "fma", .ops = &gnn_nn_fma, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl k_fma_scalar = { .name = "fma-scalar", .ops = &gnn_nn_fma_scalar,
                                              .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl k_fma_avx2 = { .name = "fma-avx2", .ops = &gnn_nn_fma_avx2, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl k_fma_avx512 = { .name = "fma-avx512", .ops = &gnn_nn_fma_avx512,
                                              .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_dense_impls[] = { &k_fma_ref, &k_fma, &k_fma_scalar, &k_fma_avx2, &k_fma_avx512,
                                                        NULL };

static const char *const k_fwd_presets[] = {
    "n=37,in=13,out=7,bias=1", "n=1,in=1,out=1,bias=1", "n=0,in=16,out=8,bias=1", "n=5,in=0,out=3,bias=1",
    "n=6,in=4,out=0,bias=1", "n=64,in=33,out=47,bias=0", "n=17,in=16,out=32,bias=0",
    "n=300,in=600,out=70,bias=1",   /* K = 600: 5, 3 and 2 panels; row tiles with a tail of 44 */
    "n=131,in=129,out=290,bias=1",  /* out > 256: two column tiles, the second of 34 columns */
    "n=1029,in=130,out=19,bias=1", "n=9,in=3,out=1,bias=1", NULL,
};
static const char *const k_bwd_presets[] = {
    "n=37,in=13,out=7,dx=1", "n=1,in=1,out=1,dx=1", "n=0,in=16,out=8,dx=1", "n=5,in=0,out=3,dx=1",
    "n=6,in=4,out=0,dx=1", "n=64,in=33,out=47,dx=0", "n=17,in=16,out=32,dx=1",
    /* the optional gradients one at a time */
    "n=40,in=9,out=20,dx=0,nulls=2", "n=40,in=9,out=20,dx=0,nulls=1", "n=40,in=9,out=20,dx=1,nulls=3",
    "n=1100,in=40,out=33,dx=1",     /* dw: K = n = 1100 over 9, 5, 3 panels; a 1-column tail */
    "n=700,in=290,out=70,dx=1",     /* dx: 290 columns, two column tiles; dw: 290 rows */
    "n=300,in=130,out=600,dx=1",    /* dx: K = out = 600 over several panels */
    "n=5000,in=100,out=100,dx=1",   /* dw: K = n in 10 chunks of 512 rows, tiles dealt statically */
    NULL,
};

gnn_oracle_outcome gnn_oracle_dense_path_check(gnn_oracle_ctx *ctx, const void *ops)
{
    const int p = gnn_dense_path_of(ops);
    if (p >= 0 && !gnn_dense_path_supported((gnn_dense_path)p))
        return gnn_oracle_skip(ctx, "this CPU (or build) cannot run the %s path (%s)",
                               gnn_dense_path_name((gnn_dense_path)p),
                               p == GNN_DENSE_AVX512 ? "needs AVX-512F" : "needs AVX2 and FMA");
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome dense_fwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_oracle_outcome o = gnn_oracle_dense_path_check(ctx, c->impl->ops);
    return o != GNN_ORACLE_PASS ? o : gnn_oracle_linear_fwd_run(ctx, c);
}

static gnn_oracle_outcome dense_bwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_oracle_outcome o = gnn_oracle_dense_path_check(ctx, c->impl->ops);
    return o != GNN_ORACLE_PASS ? o : gnn_oracle_linear_bwd_run(ctx, c);
}

#define DENSE_REASON                                                                                                 \
    "dense.h fixes each output's chain (fmaf steps, k ascending; y from b, dx and dw from 0; db in ref's order) and "  \
    "an FMA is exact: every path and thread count gives the specification's bits"

const gnn_oracle_entry gnn_oracle_dense_fwd = {
    .name = "dense.fwd",
    .what = "y = x . w + b as fixed-order FMA chains: each path of the fma kernel against ref/dense.c",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = DENSE_REASON,
    .params = gnn_oracle_linf_params, .n_params = N_LINF_PARAMS, .presets = k_fwd_presets,
    .ref = &k_fma_ref, .impls = k_dense_impls, .run = dense_fwd_run, .bench = &gnn_oracle_lin_bench_fwd,
};
const gnn_oracle_entry gnn_oracle_dense_bwd = {
    .name = "dense.bwd",
    .what = "dw = x^T dy, db = sum dy, dx = dy w^T as fixed-order FMA chains: each path against ref/dense.c",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = DENSE_REASON,
    .params = gnn_oracle_linb_params, .n_params = N_LIN_PARAMS, .presets = k_bwd_presets, .defaults = "nulls=0",
    .ref = &k_fma_ref, .impls = k_dense_impls, .run = dense_bwd_run, .bench = &gnn_oracle_lin_bench_bwd,
};

/* ---- dense.fma1 --------------------------------------------------------------------------------- */

/* ops: a gnn_dense_fma_fn, the function under test (a test passes a wrong one through its own impl) */
static void fma1_libm(const float *a, const float *b, const float *c, int64_t n, float *r)
{
    for (int64_t i = 0; i < n; i++)
        r[i] = fmaf(a[i], b[i], c[i]);
}
static const gnn_dense_fma_fn k_fn_libm = fma1_libm, k_fn_emulated = gnn_dense_fma_emulated;
static const gnn_oracle_impl k_fma1_ref = { .name = "fmaf", .ops = &k_fn_libm, .flags = 0 };
static const gnn_oracle_impl k_fma1_emu = { .name = "emulated", .ops = &k_fn_emulated, .flags = 0 };
static const gnn_oracle_impl *const k_fma1_impls[] = { &k_fma1_ref, &k_fma1_emu, NULL };
enum { F_N, F_KIND, N_F_PARAMS };
static const gnn_oracle_param k_fma1_params[N_F_PARAMS] = {
    { "n", GNN_PARAM_INT, 0, 1e8, "triples (a, b, c)" },
    { "kind", GNN_PARAM_INT, 0, 4,
      "0 spread values, 1 c a hair off a float midpoint of a b, 2 c cancelling a b, 3 subnormal results, "
      "4 specials (inf, NaN, signed zeros, overflow)" },
};
static const char *const k_fma1_presets[] = { "n=200000,kind=0", "n=200000,kind=1", "n=200000,kind=2",
                                              "n=200000,kind=3", "n=20000,kind=4", "n=0,kind=0", NULL };

/* a float of random sign, significand and exponent in [e0, e0 + span) */
static float draw_float(gnn_oracle_draws *g, int e0, int span)
{
    const float m = (float)(int64_t)gnn_oracle_draw_range(g, 1 << 23, (1 << 24) - 1) * 0x1p-24f;
    const float v = ldexpf(m, e0 + (int)gnn_oracle_draw_uint(g, (uint64_t)span));
    return gnn_oracle_draw_uint(g, 2) ? v : -v;
}

static void fma1_triple(gnn_oracle_draws *g, int kind, float *a, float *b, float *c)
{
    static const float specials[] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN, 0x1p-149f, -0x1p-149f, 0x1p127f,
                                      -0x1p127f, 0x1.fffffep127f, 1.0f, -1.0f };
    *a = draw_float(g, -20, 40);
    *b = draw_float(g, -20, 40);
    const double p = (double)*a * (double)*b;
    switch (kind) {
    case 1: { /* a b exactly a float midpoint, c tiny: p + c rounds in double onto the midpoint
               * (where rounding twice breaks the tie to even instead of toward c) or near it */
        if (gnn_oracle_draw_uint(g, 4)) {
            /* A odd in [2^23, 2^25 / 3): 3 A has 25 significant bits, so A 2^e times 1.5 is a
             * float midpoint (its last bit is the 25th) */
            const int64_t A = gnn_oracle_draw_range(g, (1 << 22), 5592404) * 2 + 1;
            *a = ldexpf((float)A, (int)gnn_oracle_draw_range(g, -40, 10));
            *b = ldexpf(1.5f, (int)gnn_oracle_draw_range(g, -10, 10));
            if (gnn_oracle_draw_uint(g, 2))
                *a = -*a;
            if (gnn_oracle_draw_uint(g, 2))
                *b = -*b;
        }
        const int ep = ilogb((double)*a * (double)*b);
        *c = draw_float(g, ep - 24 - (int)gnn_oracle_draw_range(g, 1, 45), 1);
        break;
    }
    case 2: /* c = -(a b) rounded to float, nudged: the exact result is p's low bits */
        *c = nextafterf((float)-p, gnn_oracle_draw_uint(g, 2) ? INFINITY : -INFINITY);
        if (gnn_oracle_draw_uint(g, 2))
            *c = (float)-p;
        break;
    case 3: /* results near and below 2^-126 */
        *a = draw_float(g, -80, 10);
        *b = draw_float(g, -60, 10);
        *c = gnn_oracle_draw_uint(g, 2) ? draw_float(g, -150, 26) : (float)-((double)*a * (double)*b);
        break;
    case 4:
        *a = gnn_oracle_draw_uint(g, 2) ? specials[gnn_oracle_draw_uint(g, 12)] : draw_float(g, 60, 68);
        *b = gnn_oracle_draw_uint(g, 2) ? specials[gnn_oracle_draw_uint(g, 12)] : draw_float(g, 60, 68);
        *c = gnn_oracle_draw_uint(g, 2) ? specials[gnn_oracle_draw_uint(g, 12)] : draw_float(g, -10, 138);
        break;
    default: *c = draw_float(g, -40, 80); break;
    }
}

static gnn_oracle_outcome fma1_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int64_t n = gnn_oracle_int(c, F_N);
    const int kind = (int)gnn_oracle_int(c, F_KIND);
    float *a = gnn_oracle_alloc(ctx, (size_t)(n > 0 ? n : 1) * 3 * sizeof(float)), *b = a + n, *cc = b + n;
    float *got = gnn_oracle_alloc_out(ctx, "r", (size_t)n * sizeof(float));
    if (!a || (!got && n > 0))
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1);
    for (int64_t i = 0; i < n; i++)
        fma1_triple(&g, kind, &a[i], &b[i], &cc[i]);
    (*(const gnn_dense_fma_fn *)c->impl->ops)(a, b, cc, n, got);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        const float want = fmaf(a[i], b[i], cc[i]);
        if (isnan(want) && isnan(got[i]))
            continue; /* a NaN's payload is not part of the contract */
        if (memcmp(&want, &got[i], sizeof want)) {
            if (bad < 5)
                gnn_oracle_note(ctx, "  fma(%a, %a, %a): fmaf %a, %s %a", a[i], b[i], cc[i], want, c->impl->name,
                                got[i]);
            bad++;
        }
    }
    for (int64_t i = 0; i < n; i++) /* NaN payloads vary: digest a canonical NaN */
        if (isnan(got[i]))
            got[i] = NAN;
    gnn_oracle_digest(ctx, got, (size_t)n * sizeof(float));
    if (bad)
        return gnn_oracle_fail(ctx, "%lld of %lld results differ from fmaf (listed above)", (long long)bad,
                               (long long)n);
    return GNN_ORACLE_PASS;
}

const gnn_oracle_entry gnn_oracle_dense_fma1 = {
    .name = "dense.fma1",
    .what = "the scalar path's FMA in double arithmetic (round to odd) against C's fmaf, on hard triples",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "both are the correctly rounded a b + c (IEEE 754 fusedMultiplyAdd): every bit but a NaN's payload",
    .params = k_fma1_params, .n_params = N_F_PARAMS, .presets = k_fma1_presets,
    .ref = &k_fma1_ref, .impls = k_fma1_impls, .run = fma1_run,
};
