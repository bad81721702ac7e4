/* oracle/op_update.c -- oracle entries for the fused UPDATE (include/gnnref/update.h),
 * y = Dropout(ReLU(x . w + b)) @sec{DistGNN-MB 3.3}.
 *
 *   update.fwd, update.bwd  cpu-blocked against gnn_update_ref bitwise (it keeps ref's orders
 *       at any thread count), and ref against itself (determinism, guards, every element
 *       written); cpu to its own tolerance (k_upd_fwd_tols, k_upd_bwd_tols: nmse 1e-13 and
 *       1.5e-13, each with its measured worst case). cpu's GEMMs sum in another order (OpenBLAS's
 *       blocking and FMA), so its results differ by a few
 *       ulps: relative rms error about sqrt(c) 2^-24 < 1e-6, nmse < 1e-12.
 *       Why nmse and not allclose: an element whose exact z is within rounding of 0 may be
 *       clamped by ReLU in one implementation and not in the other; nmse weighs such a flip by
 *       its size (|z| of a few ulps of the row's terms), so it cannot fail a correct kernel, while
 *       a wrong bias, a missed remainder row or column, or a wrong dropout decision changes a
 *       value of order 1 and moves nmse far above 1e-13 (the mutants in docs/update.md).
 *       Dropout decisions get an exact check as well: every element the keyed stream drops
 *       (recomputed here from gnn_rng_float, not from ref) must be exactly 0 in the output, and
 *       no output may be negative. Inputs: uniform in [-1, 1) (realistic rounding, no exact
 *       cancellation). update.bwd feeds both the same y (from the reference forward), so dz is
 *       identical in both and only the GEMM orders differ.
 *   grad.update  the reference backward against central differences of the reference forward,
 *       in double: L = sum r . y. Dyadic inputs keep everything exact: x[i][0] and w[0][j] are
 *       odd multiples of 1/16, all other x, w and b are multiples of 1/8 with |value| <= 1,
 *       so every exact z is an odd multiple of 2^-8 (never 0: no kink at the point), and a step
 *       h = 2^-12 changes any z by at most 2^-12 < 2^-8 (no kink crossed). Products are multiples
 *       of 2^-16 below 2^7 in magnitude: exact in f32, as is y = relu(z) * 1/(1-p) for p in
 *       {0, 0.5, 0.75} (power-of-two scales). So the difference quotient equals the derivative. */
#include <math.h>
#include <string.h>
#include "gnnref/dense.h"
#include "gnnref/oracle.h"
#include "gnnref/rng.h"
#include "gnnref/update.h"
#include "oracle/op_nn.h"

/* cpu splits the work into fixed tiles, one single-threaded sgemm each (forward and dx: blocks
 * of 256 rows; dw: tiles of x's columns over every row), so it is thread-count independent in
 * both directions and checked for the same bits at every count. cpu-blocked keeps ref's order
 * in both directions. */
static const gnn_oracle_impl k_upd_ref = { .name = "ref", .ops = &gnn_update_ref, .flags = 0 };
static const gnn_oracle_impl k_upd_cpu = { .name = "cpu", .ops = &gnn_update_cpu, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl k_upd_blk = { .name = "cpu-blocked", .ops = &gnn_update_blocked,
                                           .flags = GNN_ORACLE_THREADED };
/* fma: the fma context's UPDATE on the fixed-order FMA kernel (opt/cpu/update_fma.c), this CPU's
 * path: its own tolerance against ref here, and bitwise against its specification
 * (gnn_update_fma_ref, ref/dense.c) on every path in update.fma.fwd and update.fma.bwd below */
static const gnn_oracle_impl k_upd_fma = { .name = "fma", .ops = &gnn_update_fma, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_upd_fwd_impls[] = { &k_upd_ref, &k_upd_cpu, &k_upd_blk, &k_upd_fma, NULL };
static const gnn_oracle_impl *const k_upd_bwd_impls[] = { &k_upd_ref, &k_upd_cpu, &k_upd_blk, &k_upd_fma, NULL };
/* the finite-difference check runs the fma context's specification too (its inputs are exact,
 * so its FMA chains must give ref's bits there): update.fma.bwd ties every path to it */
static const gnn_oracle_impl k_ufma_ref = { .name = "fma-ref", .ops = &gnn_update_fma_ref, .flags = 0 };
static const gnn_oracle_impl *const k_upd_grad_impls[] = { &k_upd_ref, &k_ufma_ref, NULL };

enum { U_N, U_C, U_K, U_BIAS, U_P, U_GID, N_UPD_COMMON };
enum { U_DX = N_UPD_COMMON, N_BWD_PARAMS };         /* update.bwd */
enum { U_TIE = N_UPD_COMMON, U_NOKEY, N_FWD_PARAMS }; /* update.fwd */
#define UPD_COMMON_PARAMS                                                                                      \
    { "n", GNN_PARAM_INT, 0, 1e7, "rows of x and y" }, { "c", GNN_PARAM_INT, 0, 65536, "input width (rows of w)" }, \
        { "k", GNN_PARAM_INT, 0, 65536, "output width (columns of w)" },                                       \
        { "bias", GNN_PARAM_INT, 0, 1, "1: with bias b (and db), 0: b = NULL (and db = NULL)" },               \
        { "p", GNN_PARAM_REAL, 0, 0.99, "dropout probability" },                                               \
        { "gid", GNN_PARAM_INT, 0, 1, "1: row_gid given (spread global ids), 0: row_gid = NULL (id = row)" }
static const gnn_oracle_param k_upd_fwd_params[N_FWD_PARAMS] = {
    UPD_COMMON_PARAMS,
    { "tie", GNN_PARAM_INT, 0, 1,
      "1: p is raised to the smallest keyed draw >= p of the case, so one draw equals p exactly (kept: u >= p)" },
    { "nokey", GNN_PARAM_INT, 0, 1, "1: key = NULL (no dropout; needs p = 0)" },
};
static const gnn_oracle_param k_upd_bwd_params[N_BWD_PARAMS] = {
    UPD_COMMON_PARAMS,
    { "dx", GNN_PARAM_INT, 0, 1, "backward: 1 computes dx, 0 passes dx = NULL" },
};

/* Awkward shapes first: n not a multiple of the row blocks (64 blocked, 256 cpu), a single
 * row, no rows, c and k not multiples of 8 or of the 64-wide blocks (7, 13, 33, 100: bc = C and
 * bk = K in cpu-blocked), c = 0 (y = Dropout(ReLU(b))), k = 0, and C, K multiples of 64 so that
 * cpu-blocked runs with nc, nk > 1. */
static const char *const k_fwd_presets[] = {
    "n=37,c=13,k=7,bias=1,p=0.5,gid=1",
    "n=1,c=1,k=1,bias=1,p=0.5,gid=0",
    "n=0,c=16,k=8,bias=1,p=0.5,gid=1",
    "n=300,c=33,k=100,bias=0,p=0,gid=0",
    "n=200,c=128,k=192,bias=1,p=0.5,gid=1",
    "n=129,c=100,k=13,bias=1,p=0.75,gid=0",
    "n=5,c=0,k=3,bias=1,p=0.5,gid=1",
    "n=10,c=5,k=0,bias=1,p=0.5,gid=0",
    "n=70,c=64,k=33,bias=0,p=0.3,gid=1",
    "n=600,c=7,k=64,bias=1,p=0.5,gid=1",
    "n=45,c=20,k=19,bias=1,p=0,gid=0", /* bias without dropout (evaluation): its own epilogue loop */
    "n=40,c=9,k=300,bias=1,p=0.5,gid=1", /* k > 256: a row's dropout mask crosses the epilogue's Philox chunk */
    /* boundaries: n = 256 and c = k = 64 exactly (one cpu row block, whole 64-blocks, no
     * remainder anywhere) with a draw equal to p; n = 2 * 256 + 1 (one row past the cpu blocks),
     * k = 320 = 5 blocks of 64 (cpu-blocked's epilogue starts at column 64, 128, ...; cpu's mask
     * crosses its 256-column chunk) with ties; key = NULL (no dropout); a tie without bias */
    "n=256,c=64,k=64,bias=1,p=0.5,gid=1,tie=1",
    "n=513,c=16,k=320,bias=0,p=0.25,gid=0,tie=1",
    "n=20,c=8,k=24,bias=1,p=0,gid=0,nokey=1",
    "n=33,c=5,k=17,bias=0,p=0.75,gid=1,tie=1",
    NULL,
};
static const char *const k_bwd_presets[] = {
    "n=37,c=13,k=7,bias=1,p=0.5,gid=1,dx=1",
    "n=1,c=1,k=1,bias=1,p=0.5,gid=0,dx=1",
    "n=0,c=16,k=8,bias=1,p=0.5,gid=1,dx=1",
    "n=300,c=33,k=100,bias=0,p=0,gid=0,dx=1",
    "n=200,c=128,k=192,bias=1,p=0.5,gid=1,dx=1",
    "n=129,c=100,k=13,bias=1,p=0.75,gid=0,dx=0",
    "n=5,c=0,k=3,bias=1,p=0.5,gid=1,dx=1",
    "n=10,c=5,k=0,bias=1,p=0.5,gid=0,dx=1",
    "n=70,c=64,k=33,bias=0,p=0.3,gid=1,dx=0",
    "n=600,c=7,k=64,bias=1,p=0.5,gid=1,dx=1",
    "n=45,c=20,k=19,bias=1,p=0,gid=0,dx=1",
    "n=40,c=9,k=300,bias=1,p=0.5,gid=1,dx=1",
    /* boundaries: exactly one cpu row block and whole 64-blocks; one row past two cpu blocks
     * with five 64-column blocks; the dw tiles of cpu-blocked (c = 100: tile rows 64, 32, ...
     * with a remainder; k = 130: two full 64-column tiles and one of 2) */
    "n=256,c=64,k=64,bias=1,p=0.5,gid=1,dx=1",
    "n=513,c=16,k=320,bias=0,p=0.25,gid=0,dx=1",
    "n=97,c=100,k=130,bias=1,p=0.5,gid=0,dx=0",
    NULL,
};

static void fill_uniform(gnn_oracle_draws *g, float *v, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        v[i] = 2.0f * gnn_oracle_draw_float(g) - 1.0f;
}

/* The dropout key of a case: the model seed under test, a fixed step and layer, and (gid=1)
 * distinct global ids spread up to 2^40 so that the stream's id_hi field is exercised. */
static int make_key(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int64_t n, int tie, gnn_dropout_key *key)
{
    key->p = (float)gnn_oracle_real(c, U_P);
    key->seed = c->seed * 0x9E3779B97F4A7C15ull + 1;
    key->step = 11;
    key->layer = 2;
    key->row_gid = NULL;
    if (gnn_oracle_int(c, U_GID)) {
        int64_t *gid = gnn_oracle_alloc(ctx, (size_t)n * sizeof(int64_t));
        if (!gid && n > 0)
            return -1;
        gnn_oracle_draws g = gnn_oracle_draws_make(c, 9);
        for (int64_t i = 0; i < n; i++)
            gid[i] = (int64_t)gnn_oracle_draw_uint(&g, 1ull << 32) << 8 | (i & 0xff);
        key->row_gid = gid;
    }
    /* update.fwd's tie: a threshold comparison written u > p passes every case where no draw
     * equals p, which is all of them by chance (2^-24 per draw); here one draw equals it */
    if (tie && key->p > 0.0f)
        key->p = gnn_oracle_tie_threshold(key->seed, GNN_TAG_DROPOUT, key->step, key->layer, key->row_gid, n, NULL,
                                          gnn_oracle_int(c, U_K), key->p);
    return 0;
}

typedef struct upd_inputs {
    int64_t n, c, k;
    float *x, *w, *b; /* b NULL when bias = 0 */
    gnn_dropout_key key;
} upd_inputs;

/* fwd: the case is update.fwd's (its tie parameter applies) */
static gnn_oracle_outcome make_inputs(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int fwd, upd_inputs *in)
{
    in->n = gnn_oracle_int(c, U_N);
    in->c = gnn_oracle_int(c, U_C);
    in->k = gnn_oracle_int(c, U_K);
    in->x = gnn_oracle_alloc(ctx, (size_t)(in->n * in->c) * sizeof(float));
    in->w = gnn_oracle_alloc(ctx, (size_t)(in->c * in->k) * sizeof(float));
    in->b = gnn_oracle_alloc(ctx, (size_t)in->k * sizeof(float));
    if (!in->x || !in->w || !in->b || make_key(ctx, c, in->n, fwd && gnn_oracle_int(c, U_TIE), &in->key))
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws g1 = gnn_oracle_draws_make(c, 1), g2 = gnn_oracle_draws_make(c, 2), g3 = gnn_oracle_draws_make(c, 3);
    fill_uniform(&g1, in->x, in->n * in->c);
    fill_uniform(&g2, in->w, in->c * in->k);
    fill_uniform(&g3, in->b, in->k);
    if (!gnn_oracle_int(c, U_BIAS))
        in->b = NULL;
    return GNN_ORACLE_PASS;
}

/* Every element the keyed stream drops must be exactly 0; no element may be negative. The keep
 * decision is recomputed from gnn_rng_float (DESIGN.md section 2), independently of ref. */
static gnn_oracle_outcome check_dropout(gnn_oracle_ctx *ctx, const upd_inputs *in, const float *y)
{
    int64_t bad = 0, dropped = 0;
    for (int64_t i = 0; i < in->n; i++) {
        const uint64_t id = in->key.row_gid ? (uint64_t)in->key.row_gid[i] : (uint64_t)i;
        const gnn_rng_stream s = gnn_rng_stream_make(in->key.seed, GNN_TAG_DROPOUT, in->key.step, in->key.layer, id);
        for (int64_t j = 0; j < in->k; j++) {
            const float v = y[i * in->k + j];
            const int drop = in->key.p > 0.0f && gnn_rng_float(&s, (uint64_t)j) < in->key.p;
            dropped += drop;
            if ((drop && v != 0.0f) || v < 0.0f) {
                if (bad < 5)
                    gnn_oracle_note(ctx, "  y[%lld,%lld] = %.9g but %s", (long long)i, (long long)j, v,
                                    v < 0.0f ? "ReLU output cannot be negative" : "the keyed stream drops it");
                bad++;
            }
        }
    }
    if (bad)
        return gnn_oracle_fail(ctx, "dropout/ReLU: %lld elements wrong (listed above)", (long long)bad);
    gnn_oracle_note(ctx, "%lld of %lld dropped by the keyed stream", (long long)dropped, (long long)(in->n * in->k));
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome fwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_update_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    upd_inputs in;
    gnn_oracle_outcome o = make_inputs(ctx, c, 1, &in);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int nokey = (int)gnn_oracle_int(c, U_NOKEY);
    if (nokey && in.key.p != 0.0f)
        return gnn_oracle_fail(ctx, "invalid case: nokey=1 needs p=0");
    const gnn_dropout_key *key = nokey ? NULL : &in.key;
    const size_t ybytes = (size_t)(in.n * in.k) * sizeof(float);
    float *want = gnn_oracle_alloc_out(ctx, "ref.y", ybytes), *got = gnn_oracle_alloc_out(ctx, "impl.y", ybytes);
    if (!want || !got)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_status s = gnn_update_forward(ref, in.x, in.n, in.c, in.w, in.b, in.k, key, want);
    if (s)
        return gnn_oracle_fail(ctx, "ref forward returned %s", gnn_status_str(s));
    s = gnn_update_forward(impl, in.x, in.n, in.c, in.w, in.b, in.k, key, got);
    if ((o = gnn_oracle_status(ctx, "impl forward", s)) != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, got, ybytes);
    if (gnn_oracle_ctx_tol(ctx)->cmp == GNN_CMP_VERIFY) { /* fma: the rounding bound of z, times the scale */
        const float p = key ? key->p : 0.0f;
        const double *mag = gnn_oracle_gemm_magnitude(ctx, in.n, in.k, in.c, in.x, in.c, 1, in.w, in.k, 1, in.b,
                                                      (double)(1.0f / (1.0f - p)));
        if (!mag)
            return gnn_oracle_fail(ctx, "out of memory");
        o = gnn_oracle_compare_rounding(ctx, gnn_oracle_ctx_tol(ctx), "y", want, got, mag, in.c, in.n * in.k, in.k);
    } else {
        o = gnn_oracle_compare_f32(ctx, NULL, "y", want, got, in.n * in.k, in.k);
    }
    if (o != GNN_ORACLE_FAIL) /* (a NaN left in y is reported by the comparator first) */
        o = gnn_oracle_worst(o, check_dropout(ctx, &in, got));
    return o;
}

static gnn_oracle_outcome bwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_update_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    upd_inputs in;
    gnn_oracle_outcome o = make_inputs(ctx, c, 0, &in);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t n = in.n, cc = in.c, k = in.k;
    const int with_dx = (int)gnn_oracle_int(c, U_DX), with_db = in.b != NULL;
    float *y = gnn_oracle_alloc(ctx, (size_t)(n * k) * sizeof(float));
    float *dy = gnn_oracle_alloc(ctx, (size_t)(n * k) * sizeof(float));
    float *dx[2], *dw[2], *db[2];
    for (int t = 0; t < 2; t++) {
        dx[t] = gnn_oracle_alloc_out(ctx, t ? "impl.dx" : "ref.dx", (size_t)(n * cc) * sizeof(float));
        dw[t] = gnn_oracle_alloc_out(ctx, t ? "impl.dw" : "ref.dw", (size_t)(cc * k) * sizeof(float));
        db[t] = gnn_oracle_alloc_out(ctx, t ? "impl.db" : "ref.db", (size_t)k * sizeof(float));
        if (!dx[t] || !dw[t] || !db[t])
            return gnn_oracle_fail(ctx, "out of memory");
    }
    if (!y || !dy)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_status s = gnn_update_forward(&gnn_update_ref, in.x, n, cc, in.w, in.b, k, &in.key, y);
    if (s)
        return gnn_oracle_fail(ctx, "ref forward (making y) returned %s", gnn_status_str(s));
    gnn_oracle_draws g4 = gnn_oracle_draws_make(c, 4);
    fill_uniform(&g4, dy, n * k);
    const float p = in.key.p;
    s = gnn_update_backward(ref, in.x, y, dy, n, cc, in.w, k, p, with_dx ? dx[0] : NULL, dw[0], with_db ? db[0] : NULL);
    if (s)
        return gnn_oracle_fail(ctx, "ref backward returned %s", gnn_status_str(s));
    o = gnn_oracle_status(ctx, "impl backward",
                          gnn_update_backward(impl, in.x, y, dy, n, cc, in.w, k, p, with_dx ? dx[1] : NULL, dw[1],
                                         with_db ? db[1] : NULL));
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, dw[1], (size_t)(cc * k) * sizeof(float));
    const double *mag_dx = NULL;
    if (gnn_oracle_ctx_tol(ctx)->cmp == GNN_CMP_VERIFY) { /* fma: the rounding bounds of dw and dx, from dz */
        float *dz = gnn_oracle_alloc(ctx, (size_t)(n * k) * sizeof(float));
        if (!dz)
            return gnn_oracle_fail(ctx, "out of memory");
        const float scale = 1.0f / (1.0f - p);
        for (int64_t e = 0; e < n * k; e++)
            dz[e] = y[e] > 0.0f ? dy[e] * scale : 0.0f;
        const double *mag_dw = gnn_oracle_gemm_magnitude(ctx, cc, k, n, in.x, 1, cc, dz, k, 1, NULL, 1.0);
        mag_dx = gnn_oracle_gemm_magnitude(ctx, n, cc, k, dz, k, 1, in.w, 1, k, NULL, 1.0);
        if (!mag_dw || !mag_dx)
            return gnn_oracle_fail(ctx, "out of memory");
        o = gnn_oracle_compare_rounding(ctx, gnn_oracle_ctx_tol(ctx), "dw", dw[0], dw[1], mag_dw, n, cc * k, k);
    } else {
        o = gnn_oracle_compare_f32(ctx, NULL, "dw", dw[0], dw[1], cc * k, k);
    }
    /* an unpassed (NULL) output's buffer must still hold its NaN fill */
    for (int which = 0; which < 2; which++) {
        const int given = which ? with_db : with_dx;
        float *const *buf = which ? db : dx;
        const int64_t count = which ? k : n * cc;
        const char *nm = which ? "db" : "dx";
        if (given) {
            gnn_oracle_digest(ctx, buf[1], (size_t)count * sizeof(float));
            /* db is summed in ref's order by every implementation (cpu too: no GEMM in it) */
            static const gnn_oracle_tol bitwise = { GNN_CMP_BITWISE, 0, 0 };
            if (!which && mag_dx)
                o = gnn_oracle_worst(o, gnn_oracle_compare_rounding(ctx, gnn_oracle_ctx_tol(ctx), nm, buf[0], buf[1],
                                                                    mag_dx, k, count, cc));
            else
                o = gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, which ? &bitwise : NULL, nm, buf[0], buf[1],
                                                               count, which ? 0 : cc));
        } else {
            const unsigned char *q = (const unsigned char *)buf[1];
            for (size_t e = 0; e < (size_t)count * sizeof(float); e++)
                if (q[e] != 0xFF)
                    return gnn_oracle_fail(ctx, "%s = NULL but the %s buffer changed at byte %zu", nm, nm, e);
        }
    }
    return o;
}

/* Bitwise for the entry (ref against itself, cpu-blocked: ref's order); cpu is held to nmse:
 * OpenBLAS picks its own blocking and FMA kernels by CPU (its order is not ours to fix), and its
 * backward reduces per-thread dw copies in thread order. Why nmse and not allclose: see the
 * head of this file. The bound: every output is a sum of c + 1 terms whose order differs, so its
 * error is at most ~c 2^-24 times the sum of |terms| (relative rms ~sqrt(c) 2^-24 for these
 * uniform inputs), and nmse ~ c 2^-48 ~ 4e-13 at c = 128; the measured worst case over every
 * preset at seeds 1-3, 1000-1002 and 5000-5002, at 1, 2 and 4 threads, is beside it. */
static const gnn_oracle_impl_tol k_upd_fwd_tols[] = {
    { &k_upd_fma, { GNN_CMP_VERIFY, 1.0, 0 },
      "fma: ref's c order, each step one FMA (one rounding, ref two): each y within the worst-case rounding bound "
      "of z, (2 c + 1) 2^-24 (|b| + sum |x w|), times 1/(1-p) (ReLU cannot widen it); measured worst 0.66 of it, "
      "2000 seeds x every preset" },
    { &k_upd_cpu, { GNN_CMP_NMSE, 1e-13, 0 },
      "cpu: OpenBLAS's blocking and FMA order (CPU-dependent, not ours to fix): nmse ~ (c/3) 2^-48 = 1.5e-13 at "
      "c = 128; measured 4.8e-14, 15 seeds x every preset x 1, 2, 4 threads" },
    { NULL, { GNN_CMP_BITWISE, 0, 0 }, NULL },
};
static const gnn_oracle_impl_tol k_upd_bwd_tols[] = {
    { &k_upd_fma, { GNN_CMP_VERIFY, 1.0, 0 },
      "fma: dw and dx in ref's orders, each step one FMA (one rounding, ref two): each within the worst-case rounding "
      "bound (2 terms + 1) 2^-24 sum |terms| of its sum of x dz (n terms) or dz w (k terms); measured worst 0.051 "
      "(dw) and 0.25 (dx) of it, 2000 seeds x every preset; db bitwise (ref's order)" },
    { &k_upd_cpu, { GNN_CMP_NMSE, 1.5e-13, 0 },
      "cpu: dx and dw in OpenBLAS's order (dw in fixed tiles of x's columns, each over every row): nmse ~ "
      "(terms/3) 2^-48; measured 7.2e-14 (dw), seeds 1-3, 1000-1002, 5000-5002 x every preset x 1, 2, 4 threads; "
      "db is compared bitwise (ref's order)" },
    { NULL, { GNN_CMP_BITWISE, 0, 0 }, NULL },
};

const gnn_oracle_entry gnn_oracle_update_fwd = {
    .name = "update.fwd",
    .what = "fused y = Dropout(ReLU(x . w + b)) against the reference; dropped elements exactly 0 (keyed stream)",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "ref's order (b, then c ascending, -ffp-contract=off) and the keyed mask: every bit is specified "
              "(cpu-blocked keeps it); cpu: its own tolerance",
    .params = k_upd_fwd_params, .n_params = N_FWD_PARAMS, .presets = k_fwd_presets,
    .ref = &k_upd_ref, .impls = k_upd_fwd_impls, .impl_tols = k_upd_fwd_tols, .defaults = "tie=0,nokey=0",
    .run = fwd_run,
};
const gnn_oracle_entry gnn_oracle_update_bwd = {
    .name = "update.bwd",
    .what = "fused UPDATE backward from y: dw = x^T dz, db = sum dz, dx = dz w^T against the reference",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "ref's orders (dw, db: rows ascending; dx: j ascending): every bit is specified (cpu-blocked keeps "
              "them at any thread count); cpu: its own tolerance",
    .params = k_upd_bwd_params, .n_params = N_BWD_PARAMS, .presets = k_bwd_presets,
    .ref = &k_upd_ref, .impls = k_upd_bwd_impls, .impl_tols = k_upd_bwd_tols, .run = bwd_run,
};

/* ---- update.fma.fwd, update.fma.bwd ------------------------------------------------------------
 * The fma UPDATE on each path of the dense kernel (scalar with fmaf, AVX2, AVX-512, the default)
 * against its specification gnn_update_fma_ref (ref/dense.c: the fma linear's chain from b, ReLU,
 * the keyed dropout; backward on dz), bitwise: the same presets and checks as update.fwd and
 * update.bwd (the dropped elements exactly 0 as well). A path the CPU lacks is a SKIP. */
static const gnn_oracle_impl k_ufma_scalar = { .name = "fma-scalar", .ops = &gnn_update_fma_scalar,
                                               .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl k_ufma_avx2 = { .name = "fma-avx2", .ops = &gnn_update_fma_avx2,
                                             .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl k_ufma_avx512 = { .name = "fma-avx512", .ops = &gnn_update_fma_avx512,
                                               .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_ufma_impls[] = { &k_ufma_ref, &k_upd_fma, &k_ufma_scalar, &k_ufma_avx2,
                                                       &k_ufma_avx512, NULL };

static gnn_oracle_outcome fma_fwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_oracle_outcome o = gnn_oracle_dense_path_check(ctx, c->impl->ops);
    return o != GNN_ORACLE_PASS ? o : fwd_run(ctx, c);
}

static gnn_oracle_outcome fma_bwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_oracle_outcome o = gnn_oracle_dense_path_check(ctx, c->impl->ops);
    return o != GNN_ORACLE_PASS ? o : bwd_run(ctx, c);
}

const gnn_oracle_entry gnn_oracle_update_fma_fwd = {
    .name = "update.fma.fwd",
    .what = "the fma context's fused UPDATE forward, every kernel path, against its specification (ref/dense.c)",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "dense.h's chain from b (fmaf steps in c order), then ReLU and the keyed mask: every bit is specified "
              "and every path and thread count keeps it",
    .params = k_upd_fwd_params, .n_params = N_FWD_PARAMS, .presets = k_fwd_presets,
    .ref = &k_ufma_ref, .impls = k_ufma_impls, .defaults = "tie=0,nokey=0", .run = fma_fwd_run,
};
const gnn_oracle_entry gnn_oracle_update_fma_bwd = {
    .name = "update.fma.bwd",
    .what = "the fma context's fused UPDATE backward, every kernel path, against its specification (ref/dense.c)",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "dz exact, then dense.h's chains (dw over rows, dx over j; db in ref's order): every bit is specified "
              "and every path and thread count keeps it",
    .params = k_upd_bwd_params, .n_params = N_BWD_PARAMS, .presets = k_bwd_presets,
    .ref = &k_ufma_ref, .impls = k_ufma_impls, .run = fma_bwd_run,
};

/* ---- grad.update ------------------------------------------------------------------------------ */

static const char *const k_grad_presets[] = {
    "n=6,c=5,k=4,bias=1,p=0.5,gid=1",
    "n=1,c=1,k=1,bias=1,p=0,gid=0",
    "n=9,c=13,k=7,bias=0,p=0.5,gid=0",
    "n=0,c=3,k=2,bias=1,p=0.5,gid=1",
    "n=3,c=33,k=2,bias=1,p=0.75,gid=1",
    "n=4,c=0,k=3,bias=1,p=0,gid=0",
    NULL,
};

static double objective(const float *y, const float *r, int64_t count)
{
    double L = 0;
    for (int64_t i = 0; i < count; i++)
        L += (double)r[i] * (double)y[i];
    return L;
}

/* Dyadic value: (odd ? odd multiple of 1/16 in [-15/16, 15/16] : multiple of 1/8 in [-1, 1]). */
static float dyadic(gnn_oracle_draws *g, int odd)
{
    if (odd) {
        const int64_t m = 2 * gnn_oracle_draw_range(g, 0, 7) + 1;
        return ldexpf((float)(gnn_oracle_draw_uint(g, 2) ? m : -m), -4);
    }
    return ldexpf((float)gnn_oracle_draw_range(g, -8, 8), -3);
}

static gnn_oracle_outcome fd_param(gnn_oracle_ctx *ctx, const upd_inputs *in, const float *r, float *y, float *param,
                                   int64_t count, const float *analytic, const char *name, int64_t cols)
{
    double *fd = gnn_oracle_alloc_out(ctx, "finite-difference", (size_t)count * sizeof(double));
    double *an = gnn_oracle_alloc_out(ctx, "analytic", (size_t)count * sizeof(double));
    if (!fd || !an)
        return gnn_oracle_fail(ctx, "out of memory");
    const float h = 0x1p-12f;
    gnn_oracle_outcome o;
    for (int64_t e = 0; e < count; e++) {
        const float keep = param[e];
        double l[2];
        for (int side = 0; side < 2; side++) {
            param[e] = side ? keep - h : keep + h;
            const gnn_status s =
                gnn_update_forward(&gnn_update_ref, in->x, in->n, in->c, in->w, in->b, in->k, &in->key, y);
            if ((o = gnn_oracle_status(ctx, "forward", s)) != GNN_ORACLE_PASS)
                return o;
            l[side] = objective(y, r, in->n * in->k);
        }
        param[e] = keep;
        fd[e] = (l[0] - l[1]) / (2.0 * (double)h);
        an[e] = (double)analytic[e];
    }
    return gnn_oracle_compare_f64(ctx, NULL, name, fd, an, count, cols);
}

static gnn_oracle_outcome grad_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_update_ops *ops = c->impl->ops;
    upd_inputs in;
    in.n = gnn_oracle_int(c, U_N);
    in.c = gnn_oracle_int(c, U_C);
    in.k = gnn_oracle_int(c, U_K);
    const int64_t n = in.n, cc = in.c, k = in.k;
    in.x = gnn_oracle_alloc(ctx, (size_t)(n * cc) * sizeof(float));
    in.w = gnn_oracle_alloc(ctx, (size_t)(cc * k) * sizeof(float));
    in.b = gnn_oracle_alloc(ctx, (size_t)k * sizeof(float));
    float *r = gnn_oracle_alloc(ctx, (size_t)(n * k) * sizeof(float));
    float *y = gnn_oracle_alloc_out(ctx, "y", (size_t)(n * k) * sizeof(float));
    float *dx = gnn_oracle_alloc_out(ctx, "dx", (size_t)(n * cc) * sizeof(float));
    float *dw = gnn_oracle_alloc_out(ctx, "dw", (size_t)(cc * k) * sizeof(float));
    float *db = gnn_oracle_alloc_out(ctx, "db", (size_t)k * sizeof(float));
    if (!in.x || !in.w || !in.b || !r || !y || !dx || !dw || !db || make_key(ctx, c, n, 0, &in.key))
        return gnn_oracle_fail(ctx, "out of memory");
    const float p = in.key.p;
    if (p != 0.0f && p != 0.5f && p != 0.75f)
        return gnn_oracle_fail(ctx, "grad.update needs p in {0, 0.5, 0.75} (a power-of-two scale keeps y exact)");
    gnn_oracle_draws g1 = gnn_oracle_draws_make(c, 1), g2 = gnn_oracle_draws_make(c, 2),
                     g3 = gnn_oracle_draws_make(c, 3), g4 = gnn_oracle_draws_make(c, 4);
    for (int64_t i = 0; i < n; i++)
        for (int64_t t = 0; t < cc; t++)
            in.x[i * cc + t] = dyadic(&g1, t == 0);
    for (int64_t t = 0; t < cc; t++)
        for (int64_t j = 0; j < k; j++)
            in.w[t * k + j] = dyadic(&g2, t == 0);
    for (int64_t j = 0; j < k; j++)
        in.b[j] = dyadic(&g3, cc == 0); /* c = 0: z = b, an odd multiple of 1/16 keeps it off 0 */
    gnn_oracle_fill_dyadic(&g4, r, n * k, 16, 3);
    if (!gnn_oracle_int(c, U_BIAS))
        in.b = NULL;
    gnn_oracle_outcome o =
        gnn_oracle_status(ctx, "forward", gnn_update_forward(ops, in.x, n, cc, in.w, in.b, k, &in.key, y));
    if (o != GNN_ORACLE_PASS)
        return o;
    if ((o = gnn_oracle_status(ctx, "backward", gnn_update_backward(ops, in.x, y, r, n, cc, in.w, k, p, dx, dw, db))) !=
        GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, dw, (size_t)(cc * k) * sizeof(float));
    o = fd_param(ctx, &in, r, y, in.x, n * cc, dx, "dx (finite difference vs backward)", cc);
    o = gnn_oracle_worst(o, fd_param(ctx, &in, r, y, in.w, cc * k, dw, "dw (finite difference vs backward)", k));
    if (in.b)
        o = gnn_oracle_worst(o, fd_param(ctx, &in, r, y, in.b, k, db, "db (finite difference vs backward)", 0));
    return o;
}

const gnn_oracle_entry gnn_oracle_grad_update = {
    .name = "grad.update",
    .what = "fused UPDATE backward (dx, dw, db) against central differences of the forward (h = 2^-12, dyadic, z != 0)",
    .tol = { GNN_CMP_ULP, 0, 0 },
    .reason = "dyadic inputs, z an odd multiple of 2^-8, power-of-two dropout scale: everything exact; measured 0, "
              "225 seeds",
    .params = k_upd_fwd_params, .n_params = N_UPD_COMMON, .presets = k_grad_presets,
    .ref = &k_upd_ref, .impls = k_upd_grad_impls, .run = grad_run,
};
