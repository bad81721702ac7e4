/* oracle/op_aggregate.c -- oracle entries for neighbor aggregation (include/gnnref/aggregate.h).
 *
 *   aggregate.{mean,sum,gcn}.{fwd,bwd}, aggregate.weighted.{fwd,bwd}
 *       every implementation against gnn_aggregate_ref, bitwise:
 *       the header fixes the order of every sum (CSR order forward; by dst, then edge
 *       position backward) and the reciprocal 1.0f/deg computed once per row, so an
 *       implementation that keeps the contract reproduces every bit (DESIGN.md section 2).
 *       "ref" is also run against itself: that checks determinism, guard bytes and that
 *       every output element is written.
 *   grad.aggregate.{mean,sum,gcn,weighted}  the reference backward against central differences of the
 *       reference forward (see grad_run below and docs/oracle.md, "Gradient checks"); the
 *       optimized backward is held to the reference by aggregate.*.bwd, bitwise.
 *
 * Inputs: a random block (degrees uniform in the deg range, src uniform with repeats) and
 * features with spread exponents, so that a different summation order changes the bits. */
#include <math.h>
#include <string.h>
#include "gnnref/aggregate.h"
#include "gnnref/cuda.h"
#include "gnnref/oracle.h"
#include "gnnref/tensor.h"

static const gnn_oracle_impl k_agg_ref = { .name = "ref", .ops = &gnn_aggregate_ref, .flags = 0 };
static const gnn_oracle_impl k_agg_cpu = { .name = "cpu", .ops = &gnn_aggregate_cpu, .flags = GNN_ORACLE_THREADED };
/* the CUDA tier (docs/cuda.md): `cuda` on a GPU (SKIP without one), `cuda-emu` the same
 * kernel bodies through the CPU emulator (everywhere) */
static const gnn_oracle_impl k_agg_cuda = { .name = "cuda", .ops = &gnn_aggregate_cuda, .flags = 0 };
static const gnn_oracle_impl k_agg_cuda_emu = { .name = "cuda-emu", .ops = &gnn_aggregate_cuda_emu,
                                                  .flags = GNN_ORACLE_EMULATED };
static const gnn_oracle_impl *const k_agg_impls[] = { &k_agg_ref, &k_agg_cpu, &k_agg_cuda, &k_agg_cuda_emu, NULL };

/* SKIP for `cuda` where no GPU can run it (with gnn_cuda_available's reason) */
static int agg_cuda_skip(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, gnn_oracle_outcome *o)
{
    char why[256];
    if (c->impl != &k_agg_cuda || gnn_cuda_available(why, sizeof why))
        return 0;
    *o = gnn_oracle_skip(ctx, "%s", why);
    return 1;
}
/* Gradient checks run on the reference (DESIGN.md section 3: "every backward in ref is checked
 * by finite differences; every optimized backward against ref", which aggregate.*.bwd does).
 * Thousands of tiny forward calls would also mostly time OpenMP fork/join at 2 threads. */
static const gnn_oracle_impl *const k_agg_grad_impls[] = { &k_agg_ref, NULL };

/* `zero` (optional; the forward and backward entries, index P_ZERO) empties runs of dst rows at
 * fixed places; the gradient checks have the first four parameters only. */
enum { P_NDST, P_NSRC, P_D, P_DEG, N_AGG_PARAMS, P_ZERO = N_AGG_PARAMS, N_AGGZ_PARAMS };
#define ZERO_PARAM                                                                                                \
    { "zero", GNN_PARAM_INT, 0, 7,                                                                              \
      "degree-0 runs of n_dst/5 rows (at least 1): bit 1 the first rows, 2 the middle, 4 the last" }
static const gnn_oracle_param k_agg_params[N_AGGZ_PARAMS] = {
    { "n_dst", GNN_PARAM_INT, 0, 1e8, "dst vertices (rows of out)" },
    { "n_src", GNN_PARAM_INT, 0, 1e8, "src vertices (rows of x), >= n_dst" },
    { "d", GNN_PARAM_INT, 0, 65536, "feature width" },
    { "deg", GNN_PARAM_RANGE, 0, 1e6, "degree of each dst, uniform in LO..HI" },
    ZERO_PARAM,
};

/* Awkward shapes first: zero-degree rows, a single row, the empty batch, no dst at all (the
 * backward must still zero every dx row), widths 1, 7, 13, 33 and 100 (not multiples of the
 * 4/8/16-lane vectors), 1031 (straddles the cpu kernel's 1024-float accumulator block), hub
 * rows with more edges than src vertices (repeated neighbors). Degrees 0..40 mix rows of
 * fewer than 4 edges with rows that use the cpu kernel's 4-edge blocks and their remainder. */
static const char *const k_agg_presets[] = {
    "n_dst=37,n_src=80,d=13,deg=0..9",
    "n_dst=1,n_src=1,d=1,deg=1..1",
    "n_dst=1,n_src=5,d=7,deg=0..0",
    "n_dst=0,n_src=0,d=16,deg=0..0",
    "n_dst=0,n_src=10,d=8,deg=0..3",
    "n_dst=64,n_src=200,d=33,deg=0..40",
    "n_dst=5,n_src=5,d=17,deg=200..300",
    "n_dst=300,n_src=2000,d=100,deg=5..25",
    "n_dst=20,n_src=20,d=0,deg=0..5",
    "n_dst=9,n_src=30,d=1031,deg=0..7",
    /* degree-0 rows at the start, middle and end with every other row non-empty (a random
     * range leaves the last row empty in 1 case of 10): the cpu kernels split rows by
     * nonzeros, so trailing empty rows belong to no chunk's share of the edges and only the
     * last chunk's "up to n_dst" writes them; wide rows (two 1024-float blocks) with empty
     * last rows; many short rows with empty first and last runs (chunks of no edges at all) */
    "n_dst=40,n_src=90,d=13,deg=1..9,zero=7",
    "n_dst=33,n_src=60,d=1100,deg=3..6,zero=4",
    "n_dst=200,n_src=300,d=16,deg=0..3,zero=5",
    /* outputs past GNN_AGG_NT_BYTES (8 MiB; forward n_dst d, backward n_src d floats): the cpu
     * kernels store their rows non-temporally, 16-byte aligned rows of whole 4-float vectors
     * (d = 1000) or, where a row is not (d = 1001: every other row misaligned), as before */
    "n_dst=2100,n_src=2200,d=1000,deg=0..3",
    "n_dst=2100,n_src=2200,d=1001,deg=0..2,zero=3",
    NULL,
};

/* ---- forward and backward against ref -------------------------------------------------------- */

/* The case's block (stream 1), with the degree-0 runs of parameter zero_at (-1: none). */
static gnn_status agg_block(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int zero_at, gnn_block **blk)
{
    const int64_t n_dst = gnn_oracle_int(c, P_NDST);
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1);
    gnn_status s = gnn_oracle_case_block(ctx, &g, n_dst, gnn_oracle_int(c, P_NSRC), gnn_oracle_lo(c, P_DEG),
                                         gnn_oracle_hi(c, P_DEG), blk);
    const int64_t zero = zero_at >= 0 ? gnn_oracle_int(c, zero_at) : 0;
    if (s == GNN_OK && zero)
        gnn_oracle_block_zero_rows(*blk, (unsigned)zero, n_dst / 5 > 1 ? n_dst / 5 : 1);
    return s;
}

static gnn_oracle_outcome agg_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, gnn_agg_kind kind, int backward)
{
    gnn_oracle_outcome skip;
    if (agg_cuda_skip(ctx, c, &skip))
        return skip;
    const gnn_aggregate_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    const int64_t n_dst = gnn_oracle_int(c, P_NDST), n_src = gnn_oracle_int(c, P_NSRC), d = gnn_oracle_int(c, P_D);
    gnn_block *blk;
    gnn_status s = agg_block(ctx, c, P_ZERO, &blk);
    if (s)
        return gnn_oracle_fail(ctx, "invalid case (n_src must be >= n_dst): %s", gnn_status_str(s));
    const int64_t in_rows = backward ? n_dst : n_src, out_rows = backward ? n_src : n_dst;
    const size_t in_bytes = (size_t)(in_rows * d) * sizeof(float), out_bytes = (size_t)(out_rows * d) * sizeof(float);
    float *in = gnn_oracle_alloc(ctx, in_bytes);
    float *want = gnn_oracle_alloc_out(ctx, backward ? "ref.dx" : "ref.out", out_bytes);
    float *got = gnn_oracle_alloc_out(ctx, backward ? "impl.dx" : "impl.out", out_bytes);
    if (!in || !want || !got)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws gx = gnn_oracle_draws_make(c, 2);
    gnn_oracle_fill_spread(&gx, in, in_rows * d);

    s = backward ? gnn_aggregate_backward(ref, blk, in, d, kind, want)
                 : gnn_aggregate_forward(ref, blk, in, d, kind, want);
    if (s)
        return gnn_oracle_fail(ctx, "ref %s returned %s", backward ? "backward" : "forward", gnn_status_str(s));
    s = backward ? gnn_aggregate_backward(impl, blk, in, d, kind, got)
                 : gnn_aggregate_forward(impl, blk, in, d, kind, got);
    gnn_oracle_outcome o = gnn_oracle_status(ctx, backward ? "impl backward" : "impl forward", s);
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, got, out_bytes);
    return gnn_oracle_compare_f32(ctx, NULL, backward ? "dx" : "out", want, got, out_rows * d, d);
}

static gnn_oracle_outcome mean_fwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c) { return agg_run(ctx, c, GNN_AGG_MEAN, 0); }
static gnn_oracle_outcome mean_bwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c) { return agg_run(ctx, c, GNN_AGG_MEAN, 1); }
static gnn_oracle_outcome sum_fwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c) { return agg_run(ctx, c, GNN_AGG_SUM, 0); }
static gnn_oracle_outcome sum_bwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c) { return agg_run(ctx, c, GNN_AGG_SUM, 1); }
static gnn_oracle_outcome gcn_fwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c) { return agg_run(ctx, c, GNN_AGG_GCN, 0); }
static gnn_oracle_outcome gcn_bwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c) { return agg_run(ctx, c, GNN_AGG_GCN, 1); }

/* ---- weighted aggregation ----------------------------------------------------------------------
 * Weights w (one per block edge) come from their own stream (4) with spread exponents and both
 * signs, like the features. The backward takes a fifth parameter choosing which gradients are
 * asked for: an output that is not asked for gets NULL, and its buffer must stay untouched. */

enum { P_GRADS = N_AGG_PARAMS, P_WZERO, N_WAGG_BWD_PARAMS };
static const gnn_oracle_param k_wagg_bwd_params[N_WAGG_BWD_PARAMS] = {
    { "n_dst", GNN_PARAM_INT, 0, 1e8, "dst vertices (rows of dout)" },
    { "n_src", GNN_PARAM_INT, 0, 1e8, "src vertices (rows of x and dx), >= n_dst" },
    { "d", GNN_PARAM_INT, 0, 65536, "feature width" },
    { "deg", GNN_PARAM_RANGE, 0, 1e6, "degree of each dst, uniform in LO..HI" },
    { "grads", GNN_PARAM_INT, 1, 3, "1: dx only (dw = NULL), 2: dw only (dx = NULL), 3: both" },
    ZERO_PARAM,
};
static const char *const k_wagg_bwd_presets[] = {
    "n_dst=37,n_src=80,d=13,deg=0..9,grads=3",
    "n_dst=1,n_src=1,d=1,deg=1..1,grads=3",
    "n_dst=1,n_src=5,d=7,deg=0..0,grads=3",
    "n_dst=0,n_src=0,d=16,deg=0..0,grads=3",
    "n_dst=0,n_src=10,d=8,deg=0..3,grads=3",
    "n_dst=64,n_src=200,d=33,deg=0..40,grads=1",
    "n_dst=64,n_src=200,d=33,deg=0..40,grads=2",
    "n_dst=5,n_src=5,d=17,deg=200..300,grads=3",
    "n_dst=300,n_src=2000,d=100,deg=5..25,grads=3",
    "n_dst=20,n_src=20,d=0,deg=0..5,grads=3",
    "n_dst=9,n_src=30,d=1031,deg=0..7,grads=3",
    /* degree-0 rows at the start, middle and end: the cpu dw pass tracks the row of each of
     * its 8 side-by-side edges across empty rows, and starts each chunk at the row holding its
     * first edge (past any empty rows before it) */
    "n_dst=40,n_src=90,d=13,deg=1..9,grads=2,zero=7",
    "n_dst=200,n_src=300,d=5,deg=0..3,grads=3,zero=5",
    NULL,
};

/* The payload of a buffer that was not passed must still hold the 0xFF fill. */
static gnn_oracle_outcome untouched(gnn_oracle_ctx *ctx, const char *name, const void *p, size_t bytes)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < bytes; i++)
        if (b[i] != 0xFF)
            return gnn_oracle_fail(ctx, "%s = NULL but its buffer changed at byte %zu", name, i);
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome wagg_fwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    gnn_oracle_outcome skip;
    if (agg_cuda_skip(ctx, c, &skip))
        return skip;
    const gnn_aggregate_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    const int64_t n_dst = gnn_oracle_int(c, P_NDST), n_src = gnn_oracle_int(c, P_NSRC), d = gnn_oracle_int(c, P_D);
    gnn_block *blk;
    gnn_status s = agg_block(ctx, c, P_ZERO, &blk);
    if (s)
        return gnn_oracle_fail(ctx, "invalid case (n_src must be >= n_dst): %s", gnn_status_str(s));
    const size_t out_bytes = (size_t)(n_dst * d) * sizeof(float);
    float *x = gnn_oracle_alloc(ctx, (size_t)(n_src * d) * sizeof(float));
    float *w = gnn_oracle_alloc(ctx, (size_t)blk->nnz * sizeof(float));
    float *want = gnn_oracle_alloc_out(ctx, "ref.out", out_bytes);
    float *got = gnn_oracle_alloc_out(ctx, "impl.out", out_bytes);
    if (!x || !w || !want || !got)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws gx = gnn_oracle_draws_make(c, 2), gw = gnn_oracle_draws_make(c, 4);
    gnn_oracle_fill_spread(&gx, x, n_src * d);
    gnn_oracle_fill_spread(&gw, w, blk->nnz);
    if ((s = gnn_aggregate_weighted_forward(ref, blk, x, d, w, want)))
        return gnn_oracle_fail(ctx, "ref weighted_forward returned %s", gnn_status_str(s));
    gnn_oracle_outcome o =
        gnn_oracle_status(ctx, "impl weighted_forward", gnn_aggregate_weighted_forward(impl, blk, x, d, w, got));
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, got, out_bytes);
    return gnn_oracle_compare_f32(ctx, NULL, "out", want, got, n_dst * d, d);
}

static gnn_oracle_outcome wagg_bwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    gnn_oracle_outcome skip;
    if (agg_cuda_skip(ctx, c, &skip))
        return skip;
    const gnn_aggregate_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    const int64_t n_dst = gnn_oracle_int(c, P_NDST), n_src = gnn_oracle_int(c, P_NSRC), d = gnn_oracle_int(c, P_D);
    const int grads = (int)gnn_oracle_int(c, P_GRADS), want_dx = grads & 1, want_dw = grads & 2;
    gnn_block *blk;
    gnn_status s = agg_block(ctx, c, P_WZERO, &blk);
    if (s)
        return gnn_oracle_fail(ctx, "invalid case (n_src must be >= n_dst): %s", gnn_status_str(s));
    const size_t dx_bytes = (size_t)(n_src * d) * sizeof(float), dw_bytes = (size_t)blk->nnz * sizeof(float);
    float *x = gnn_oracle_alloc(ctx, dx_bytes);
    float *dout = gnn_oracle_alloc(ctx, (size_t)(n_dst * d) * sizeof(float));
    float *w = gnn_oracle_alloc(ctx, dw_bytes);
    float *dx[2], *dw[2];
    for (int k = 0; k < 2; k++) {
        dx[k] = gnn_oracle_alloc_out(ctx, k ? "impl.dx" : "ref.dx", dx_bytes);
        dw[k] = gnn_oracle_alloc_out(ctx, k ? "impl.dw" : "ref.dw", dw_bytes);
        if (!dx[k] || !dw[k])
            return gnn_oracle_fail(ctx, "out of memory");
    }
    if (!x || !dout || !w)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws gx = gnn_oracle_draws_make(c, 2), gd = gnn_oracle_draws_make(c, 3), gw = gnn_oracle_draws_make(c, 4);
    gnn_oracle_fill_spread(&gx, x, n_src * d);
    gnn_oracle_fill_spread(&gd, dout, n_dst * d);
    gnn_oracle_fill_spread(&gw, w, blk->nnz);
    if ((s = gnn_aggregate_weighted_backward(ref, blk, x, dout, d, w, want_dx ? dx[0] : NULL, want_dw ? dw[0] : NULL)))
        return gnn_oracle_fail(ctx, "ref weighted_backward returned %s", gnn_status_str(s));
    s = gnn_aggregate_weighted_backward(impl, blk, x, dout, d, w, want_dx ? dx[1] : NULL, want_dw ? dw[1] : NULL);
    gnn_oracle_outcome o = gnn_oracle_status(ctx, "impl weighted_backward", s);
    if (o != GNN_ORACLE_PASS)
        return o;
    if (want_dx) {
        gnn_oracle_digest(ctx, dx[1], dx_bytes);
        o = gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, NULL, "dx", dx[0], dx[1], n_src * d, d));
    } else {
        o = gnn_oracle_worst(o, untouched(ctx, "dx", dx[1], dx_bytes));
    }
    if (want_dw) {
        gnn_oracle_digest(ctx, dw[1], dw_bytes);
        o = gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, NULL, "dw", dw[0], dw[1], blk->nnz, 0));
    } else {
        o = gnn_oracle_worst(o, untouched(ctx, "dw", dw[1], dw_bytes));
    }
    return o;
}

/* ---- benchmark hook --------------------------------------------------------------------------- */

typedef struct agg_fixture {
    const gnn_aggregate_ops *ops;
    gnn_agg_kind kind;
    int backward;
    int64_t d;
    gnn_block blk;
    float *in, *out;
} agg_fixture;

static void agg_teardown(void *p)
{
    agg_fixture *f = p;
    if (!f)
        return;
    gnn_block_free(&f->blk);
    gnn_free(f->in);
    gnn_free(f->out);
    gnn_free(f);
}

static gnn_status agg_setup(const gnn_oracle_case *c, gnn_agg_kind kind, int backward, void **fixture,
                            gnn_oracle_work *work)
{
    /* the emulator is a test device, not a benchmark target (gnnref-bench leaves GNN_ORACLE_EMULATED
     * tables out before this; the check stays for any other caller); `cuda` needs a GPU */
    if (c->impl == &k_agg_cuda_emu || (c->impl == &k_agg_cuda && !gnn_cuda_available(NULL, 0)))
        return GNN_ERR_UNSUPPORTED;
    agg_fixture *f = gnn_calloc(1, sizeof *f);
    if (!f)
        return GNN_ERR_NOMEM;
    f->ops = c->impl->ops;
    f->kind = kind;
    f->backward = backward;
    f->d = gnn_oracle_int(c, P_D);
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1);
    gnn_status s = gnn_oracle_random_block(&g, gnn_oracle_int(c, P_NDST), gnn_oracle_int(c, P_NSRC),
                                           gnn_oracle_lo(c, P_DEG), gnn_oracle_hi(c, P_DEG), &f->blk);
    if (s) {
        gnn_free(f);
        return s;
    }
    const int64_t in_rows = backward ? f->blk.n_dst : f->blk.n_src, out_rows = backward ? f->blk.n_src : f->blk.n_dst;
    f->in = gnn_malloc((size_t)(in_rows * f->d) * sizeof(float));
    f->out = gnn_malloc((size_t)(out_rows * f->d) * sizeof(float));
    if (!f->in || !f->out) {
        agg_teardown(f);
        return GNN_ERR_NOMEM;
    }
    gnn_oracle_draws gx = gnn_oracle_draws_make(c, 2);
    gnn_oracle_fill_spread(&gx, f->in, in_rows * f->d);
    /* logical bytes: one feature row moved per edge, the block's index arrays read once,
     * the output written once */
    work->bytes = (double)f->blk.nnz * (double)f->d * 4.0 + (double)f->blk.nnz * 4.0 +
                  (double)(f->blk.n_dst + 1) * 8.0 + (double)out_rows * (double)f->d * 4.0;
    work->flops = (double)f->blk.nnz * (double)f->d;
    work->items = (double)f->blk.nnz;
    work->items_name = "edges/s";
    *fixture = f;
    return GNN_OK;
}

static gnn_status agg_bench_run(void *p)
{
    agg_fixture *f = p;
    return f->backward ? gnn_aggregate_backward(f->ops, &f->blk, f->in, f->d, f->kind, f->out)
                       : gnn_aggregate_forward(f->ops, &f->blk, f->in, f->d, f->kind, f->out);
}

static gnn_status mean_fwd_setup(const gnn_oracle_case *c, void **f, gnn_oracle_work *w) { return agg_setup(c, GNN_AGG_MEAN, 0, f, w); }
static gnn_status mean_bwd_setup(const gnn_oracle_case *c, void **f, gnn_oracle_work *w) { return agg_setup(c, GNN_AGG_MEAN, 1, f, w); }
static gnn_status sum_fwd_setup(const gnn_oracle_case *c, void **f, gnn_oracle_work *w) { return agg_setup(c, GNN_AGG_SUM, 0, f, w); }
static gnn_status sum_bwd_setup(const gnn_oracle_case *c, void **f, gnn_oracle_work *w) { return agg_setup(c, GNN_AGG_SUM, 1, f, w); }

/* Benchmark sizes: a GraphSAGE layer-0 block (fanout 10..15, d = 64) and a wide layer. */
static const char *const k_agg_bench_sizes[] = {
    "n_dst=16384,n_src=131072,d=64,deg=10..15",
    "n_dst=4096,n_src=32768,d=256,deg=5..25",
    NULL,
};

static const gnn_oracle_bench k_mean_fwd_bench = { k_agg_bench_sizes, mean_fwd_setup, agg_bench_run, agg_teardown };
static const gnn_oracle_bench k_mean_bwd_bench = { k_agg_bench_sizes, mean_bwd_setup, agg_bench_run, agg_teardown };
/* sum: the first size only, to keep the default `make bench` around half a minute */
static const char *const k_agg_bench_sizes_sum[] = { "n_dst=16384,n_src=131072,d=64,deg=10..15", NULL };
static const gnn_oracle_bench k_sum_fwd_bench = { k_agg_bench_sizes_sum, sum_fwd_setup, agg_bench_run, agg_teardown };
static const gnn_oracle_bench k_sum_bwd_bench = { k_agg_bench_sizes_sum, sum_bwd_setup, agg_bench_run, agg_teardown };

static gnn_status gcn_fwd_setup(const gnn_oracle_case *c, void **f, gnn_oracle_work *w) { return agg_setup(c, GNN_AGG_GCN, 0, f, w); }

#define AGG_REASON "fixed summation order and one reciprocal per row (aggregate.h): every bit is specified"

const gnn_oracle_entry gnn_oracle_aggregate_mean_fwd = {
    .name = "aggregate.mean.fwd",
    .what = "mean aggregation forward, out = (sum of x[src] in CSR order) * (1/deg)",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = AGG_REASON,
    .params = k_agg_params, .n_params = N_AGGZ_PARAMS, .presets = k_agg_presets, .defaults = "zero=0",
    .ref = &k_agg_ref, .impls = k_agg_impls, .run = mean_fwd_run, .bench = &k_mean_fwd_bench,
};
const gnn_oracle_entry gnn_oracle_aggregate_mean_bwd = {
    .name = "aggregate.mean.bwd",
    .what = "mean aggregation backward, dx[u] = sum over edges u->v of dout[v] * (1/deg v)",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = AGG_REASON,
    .params = k_agg_params, .n_params = N_AGGZ_PARAMS, .presets = k_agg_presets, .defaults = "zero=0",
    .ref = &k_agg_ref, .impls = k_agg_impls, .run = mean_bwd_run, .bench = &k_mean_bwd_bench,
};
const gnn_oracle_entry gnn_oracle_aggregate_sum_fwd = {
    .name = "aggregate.sum.fwd",
    .what = "sum aggregation forward, out = sum of x[src] in CSR order",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = AGG_REASON,
    .params = k_agg_params, .n_params = N_AGGZ_PARAMS, .presets = k_agg_presets, .defaults = "zero=0",
    .ref = &k_agg_ref, .impls = k_agg_impls, .run = sum_fwd_run, .bench = &k_sum_fwd_bench,
};
const gnn_oracle_entry gnn_oracle_aggregate_sum_bwd = {
    .name = "aggregate.sum.bwd",
    .what = "sum aggregation backward, dx[u] = sum over edges u->v of dout[v]",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = AGG_REASON,
    .params = k_agg_params, .n_params = N_AGGZ_PARAMS, .presets = k_agg_presets, .defaults = "zero=0",
    .ref = &k_agg_ref, .impls = k_agg_impls, .run = sum_bwd_run, .bench = &k_sum_bwd_bench,
};
static const gnn_oracle_bench k_gcn_fwd_bench = { k_agg_bench_sizes_sum, gcn_fwd_setup, agg_bench_run, agg_teardown };
const gnn_oracle_entry gnn_oracle_aggregate_gcn_fwd = {
    .name = "aggregate.gcn.fwd",
    .what = "GCN aggregation forward, out[v] = sum of x[u] * ds(u)^-1/2 dd(v)^-1/2 in CSR order",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "fixed summation order, product formed before the add, c_e from sqrtf (correctly rounded)",
    .params = k_agg_params, .n_params = N_AGGZ_PARAMS, .presets = k_agg_presets, .defaults = "zero=0",
    .ref = &k_agg_ref, .impls = k_agg_impls, .run = gcn_fwd_run, .bench = &k_gcn_fwd_bench,
};
const gnn_oracle_entry gnn_oracle_aggregate_gcn_bwd = {
    .name = "aggregate.gcn.bwd",
    .what = "GCN aggregation backward, dx[u] = sum over edges u->v (by v) of dout[v] * c_e",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "fixed summation order, product formed before the add, c_e from sqrtf (correctly rounded)",
    .params = k_agg_params, .n_params = N_AGGZ_PARAMS, .presets = k_agg_presets, .defaults = "zero=0",
    .ref = &k_agg_ref, .impls = k_agg_impls, .run = gcn_bwd_run,
};
const gnn_oracle_entry gnn_oracle_aggregate_weighted_fwd = {
    .name = "aggregate.weighted.fwd",
    .what = "edge-weighted aggregation forward, out[v] = sum of x[u] * w[e] in CSR order",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "fixed summation order with the product formed before the add (aggregate.h)",
    .params = k_agg_params, .n_params = N_AGGZ_PARAMS, .presets = k_agg_presets, .defaults = "zero=0",
    .ref = &k_agg_ref, .impls = k_agg_impls, .run = wagg_fwd_run,
};
const gnn_oracle_entry gnn_oracle_aggregate_weighted_bwd = {
    .name = "aggregate.weighted.bwd",
    .what = "edge-weighted aggregation backward: dx (by v, then edge) and dw[e] = <dout[v], x[u]> in f order",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "dx: fixed summation order; dw: each dot product summed over f in order from 0.0f",
    .params = k_wagg_bwd_params, .n_params = N_WAGG_BWD_PARAMS, .presets = k_wagg_bwd_presets, .defaults = "zero=0",
    .ref = &k_agg_ref, .impls = k_agg_impls, .run = wagg_bwd_run,
};

/* ---- gradient checks ---------------------------------------------------------------------------
 *
 * Objective L(x) = sum_v,f r[v][f] * out[v][f], accumulated in double from the f32 forward.
 * Aggregation is linear in x, so the central difference (L(x + h e) - L(x - h e)) / 2h equals
 * dL/dx_e for any step h up to rounding; we take h = 1. Inputs x and r are dyadic (k/8,
 * |k| <= 16), so every sum in the forward and the backward is exact in f32 and L is exact in
 * double: for sum aggregation finite difference and backward agree exactly. Mean adds one
 * rounding per output (times 1/deg, not a power of two) in the forward and one per term in
 * the backward: relative error about 2^-24 of |out| per affected output, hence the tolerance. */

static const char *const k_grad_agg_presets[] = {
    "n_dst=12,n_src=20,d=5,deg=0..6",
    "n_dst=1,n_src=1,d=1,deg=1..1",
    "n_dst=7,n_src=15,d=13,deg=1..9",
    "n_dst=4,n_src=9,d=3,deg=0..0",
    "n_dst=3,n_src=3,d=2,deg=20..30",
    NULL,
};

static double objective(const float *out, const float *r, int64_t count)
{
    double L = 0;
    for (int64_t i = 0; i < count; i++)
        L += (double)r[i] * (double)out[i];
    return L;
}

static gnn_oracle_outcome grad_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, gnn_agg_kind kind)
{
    const gnn_aggregate_ops *ops = c->impl->ops;
    const int64_t n_dst = gnn_oracle_int(c, P_NDST), n_src = gnn_oracle_int(c, P_NSRC), d = gnn_oracle_int(c, P_D);
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1);
    gnn_block *blk;
    gnn_status s = gnn_oracle_case_block(ctx, &g, n_dst, n_src, gnn_oracle_lo(c, P_DEG), gnn_oracle_hi(c, P_DEG), &blk);
    if (s)
        return gnn_oracle_fail(ctx, "invalid case (n_src must be >= n_dst): %s", gnn_status_str(s));
    const int64_t nx = n_src * d, nout = n_dst * d;
    float *x = gnn_oracle_alloc(ctx, (size_t)nx * sizeof(float));
    float *r = gnn_oracle_alloc(ctx, (size_t)nout * sizeof(float));
    float *out = gnn_oracle_alloc_out(ctx, "forward.out", (size_t)nout * sizeof(float));
    float *dx = gnn_oracle_alloc_out(ctx, "backward.dx", (size_t)nx * sizeof(float));
    double *fd = gnn_oracle_alloc_out(ctx, "finite-difference", (size_t)nx * sizeof(double));
    double *an = gnn_oracle_alloc_out(ctx, "analytic", (size_t)nx * sizeof(double));
    if (!x || !r || !out || !dx || !fd || !an)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws gx = gnn_oracle_draws_make(c, 2), gr = gnn_oracle_draws_make(c, 3);
    gnn_oracle_fill_dyadic(&gx, x, nx, 16, 3);
    gnn_oracle_fill_dyadic(&gr, r, nout, 16, 3);

    gnn_oracle_outcome o = gnn_oracle_status(ctx, "backward", gnn_aggregate_backward(ops, blk, r, d, kind, dx));
    if (o != GNN_ORACLE_PASS)
        return o;
    const double h = 1.0;
    for (int64_t e = 0; e < nx; e++) {
        const float keep = x[e];
        x[e] = keep + (float)h;
        o = gnn_oracle_status(ctx, "forward", gnn_aggregate_forward(ops, blk, x, d, kind, out));
        if (o != GNN_ORACLE_PASS)
            return o;
        const double lp = objective(out, r, nout);
        x[e] = keep - (float)h;
        o = gnn_oracle_status(ctx, "forward", gnn_aggregate_forward(ops, blk, x, d, kind, out));
        if (o != GNN_ORACLE_PASS)
            return o;
        const double lm = objective(out, r, nout);
        x[e] = keep;
        fd[e] = (lp - lm) / (2.0 * h);
        an[e] = (double)dx[e];
    }
    gnn_oracle_digest(ctx, dx, (size_t)nx * sizeof(float));
    return gnn_oracle_compare_f64(ctx, NULL, "dx (finite difference vs backward)", fd, an, nx, d);
}

static gnn_oracle_outcome grad_gcn_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c) { return grad_run(ctx, c, GNN_AGG_GCN); }
static gnn_oracle_outcome grad_mean_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c) { return grad_run(ctx, c, GNN_AGG_MEAN); }
static gnn_oracle_outcome grad_sum_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c) { return grad_run(ctx, c, GNN_AGG_SUM); }

const gnn_oracle_entry gnn_oracle_grad_aggregate_mean = {
    .name = "grad.aggregate.mean",
    .what = "mean aggregation backward against central differences of the forward (h = 1, dyadic inputs)",
    .tol = { GNN_CMP_ALLCLOSE, 1e-6, 1e-6 },
    .reason = "forward and backward each round once per element when scaling by 1/deg (2^-24 relative, |out| <= 2, "
              "|r| <= 2, a few rows per input); measured max |diff| 7.6e-7 (0.41 of it), 225 seeds",
    .params = k_agg_params, .n_params = N_AGG_PARAMS, .presets = k_grad_agg_presets,
    .ref = &k_agg_ref, .impls = k_agg_grad_impls, .run = grad_mean_run,
};
const gnn_oracle_entry gnn_oracle_grad_aggregate_sum = {
    .name = "grad.aggregate.sum",
    .what = "sum aggregation backward against central differences of the forward (h = 1, dyadic inputs)",
    .tol = { GNN_CMP_ULP, 0, 0 },
    .reason = "dyadic inputs make forward, objective and backward exact: any difference is a bug (ulp(0): equal up "
              "to the sign of zero); measured 0, 225 seeds",
    .params = k_agg_params, .n_params = N_AGG_PARAMS, .presets = k_grad_agg_presets,
    .ref = &k_agg_ref, .impls = k_agg_grad_impls, .run = grad_sum_run,
};

/* grad.aggregate.gcn: L is linear in x, h = 1 as above, dyadic x and r. The coefficients c_e
 * are not dyadic, so each product x * c_e rounds (2^-24 relative), each partial sum rounds,
 * and so do the backward's dout * c_e and its sums. Budget: an output of a dst with k <= 30
 * edges sums k products of |x| <= 2 and c_e <= 1, so |out| <= 60 and its forward error is
 * at most (k + 1) 2^-24 * 60 < 1.2e-4 in the worst case; the difference quotient sees the
 * error of both evaluations, halved, times |r| <= 2, over the ds(u) outputs the perturbed
 * x[u][f] feeds. Independent roundings mostly cancel: the observed worst case over the presets
 * and 20 seeds each is 6.2e-7 (the hub preset, dx rows summing ~90 terms; 2.5e-7 elsewhere),
 * so allclose(5e-6, 5e-6) keeps a factor 8 of margin, while a wrong coefficient (off by a
 * factor, or one degree missing) errs by >= 3%. */
const gnn_oracle_entry gnn_oracle_grad_aggregate_gcn = {
    .name = "grad.aggregate.gcn",
    .what = "GCN aggregation backward against central differences of the forward (h = 1, dyadic inputs)",
    .tol = { GNN_CMP_ALLCLOSE, 2e-6, 2e-6 },
    .reason = "x * c_e rounds once per product in the forward and the backward (2^-24 relative per term, up to 30 "
              "terms); measured max |diff| 9.6e-7 (0.45 of it), 225 seeds",
    .params = k_agg_params, .n_params = N_AGG_PARAMS, .presets = k_grad_agg_presets,
    .ref = &k_agg_ref, .impls = k_agg_grad_impls, .run = grad_gcn_run,
};

/* grad.aggregate.weighted: L(x, w) = sum r . out. L is linear in x and, separately, in each
 * w[e], so h = 1 is exact for both. x, w and r are dyadic (k/8, |k| <= 16): every product
 * and every sum of forward, objective, dx and dw is exact in f32, so the finite differences
 * and the backward agree exactly. Checked for dx (perturbing x) and dw (perturbing w). */
static gnn_oracle_outcome grad_weighted_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_aggregate_ops *ops = c->impl->ops;
    const int64_t n_dst = gnn_oracle_int(c, P_NDST), n_src = gnn_oracle_int(c, P_NSRC), d = gnn_oracle_int(c, P_D);
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1);
    gnn_block *blk;
    gnn_status s = gnn_oracle_case_block(ctx, &g, n_dst, n_src, gnn_oracle_lo(c, P_DEG), gnn_oracle_hi(c, P_DEG), &blk);
    if (s)
        return gnn_oracle_fail(ctx, "invalid case (n_src must be >= n_dst): %s", gnn_status_str(s));
    const int64_t nx = n_src * d, nout = n_dst * d, nnz = blk->nnz;
    float *x = gnn_oracle_alloc(ctx, (size_t)nx * sizeof(float));
    float *w = gnn_oracle_alloc(ctx, (size_t)nnz * sizeof(float));
    float *r = gnn_oracle_alloc(ctx, (size_t)nout * sizeof(float));
    float *out = gnn_oracle_alloc_out(ctx, "forward.out", (size_t)nout * sizeof(float));
    float *dx = gnn_oracle_alloc_out(ctx, "backward.dx", (size_t)nx * sizeof(float));
    float *dw = gnn_oracle_alloc_out(ctx, "backward.dw", (size_t)nnz * sizeof(float));
    double *fdx = gnn_oracle_alloc_out(ctx, "finite-difference.dx", (size_t)nx * sizeof(double));
    double *anx = gnn_oracle_alloc_out(ctx, "analytic.dx", (size_t)nx * sizeof(double));
    double *fdw = gnn_oracle_alloc_out(ctx, "finite-difference.dw", (size_t)nnz * sizeof(double));
    double *anw = gnn_oracle_alloc_out(ctx, "analytic.dw", (size_t)nnz * sizeof(double));
    if (!x || !w || !r || !out || !dx || !dw || !fdx || !anx || !fdw || !anw)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws gx = gnn_oracle_draws_make(c, 2), gr = gnn_oracle_draws_make(c, 3), gw = gnn_oracle_draws_make(c, 4);
    gnn_oracle_fill_dyadic(&gx, x, nx, 16, 3);
    gnn_oracle_fill_dyadic(&gr, r, nout, 16, 3);
    gnn_oracle_fill_dyadic(&gw, w, nnz, 16, 3);

    gnn_oracle_outcome o =
        gnn_oracle_status(ctx, "weighted_backward", gnn_aggregate_weighted_backward(ops, blk, x, r, d, w, dx, dw));
    if (o != GNN_ORACLE_PASS)
        return o;
    const float h = 1.0f;
    for (int pass = 0; pass < 2; pass++) {
        float *p = pass ? w : x;
        const int64_t count = pass ? nnz : nx;
        double *fd = pass ? fdw : fdx, *an = pass ? anw : anx;
        for (int64_t e = 0; e < count; e++) {
            const float keep = p[e];
            double l[2];
            for (int side = 0; side < 2; side++) {
                p[e] = side ? keep - h : keep + h;
                o = gnn_oracle_status(ctx, "weighted_forward", gnn_aggregate_weighted_forward(ops, blk, x, d, w, out));
                if (o != GNN_ORACLE_PASS)
                    return o;
                l[side] = objective(out, r, nout);
            }
            p[e] = keep;
            fd[e] = (l[0] - l[1]) / (2.0 * (double)h);
            an[e] = pass ? (double)dw[e] : (double)dx[e];
        }
    }
    gnn_oracle_digest(ctx, dx, (size_t)nx * sizeof(float));
    gnn_oracle_digest(ctx, dw, (size_t)nnz * sizeof(float));
    o = gnn_oracle_compare_f64(ctx, NULL, "dx (finite difference vs backward)", fdx, anx, nx, d);
    return gnn_oracle_worst(o, gnn_oracle_compare_f64(ctx, NULL, "dw (finite difference vs backward)", fdw, anw, nnz, 0));
}

const gnn_oracle_entry gnn_oracle_grad_aggregate_weighted = {
    .name = "grad.aggregate.weighted",
    .what = "weighted aggregation backward (dx and dw) against central differences of the forward (h = 1, dyadic)",
    .tol = { GNN_CMP_ULP, 0, 0 },
    .reason = "dyadic x, w and r make forward, objective, dx and dw exact: any difference is a bug; measured 0, "
              "225 seeds",
    .params = k_agg_params, .n_params = N_AGG_PARAMS, .presets = k_grad_agg_presets,
    .ref = &k_agg_ref, .impls = k_agg_grad_impls, .run = grad_weighted_run,
};
