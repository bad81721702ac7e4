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
 *       more columns than a tile holds (256), and K longer than a panel (128, 256, 512 rows of B
 *       on AVX-512, AVX2, scalar), so the chain is stored and resumed across panels.
 * linear.fwd and linear.bwd (oracle/op_nn.c) hold the default path to ref within a tolerance;
 * update.fma.fwd and update.fma.bwd (oracle/op_update.c) the fused UPDATE on the same kernel. */
#include "gnnref/dense.h"
#include "gnnref/oracle.h"
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
    NULL,
};

/* a path this CPU lacks is skipped, naming what it needs */
static gnn_oracle_outcome path_check(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int p = gnn_dense_path_of(c->impl->ops);
    if (p >= 0 && !gnn_dense_path_supported((gnn_dense_path)p))
        return gnn_oracle_skip(ctx, "this CPU (or build) cannot run the %s path (%s)",
                               gnn_dense_path_name((gnn_dense_path)p),
                               p == GNN_DENSE_AVX512 ? "needs AVX-512F" : "needs AVX2 and FMA");
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome dense_fwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_oracle_outcome o = path_check(ctx, c);
    return o != GNN_ORACLE_PASS ? o : gnn_oracle_linear_fwd_run(ctx, c);
}

static gnn_oracle_outcome dense_bwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_oracle_outcome o = path_check(ctx, c);
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
