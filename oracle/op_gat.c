/* oracle/op_gat.c -- oracle entries for graph attention (include/gnnref/gat.h, docs/gat.md).
 *
 *   gat.fwd         out and the saved alpha, every implementation against gnn_gat_ref, bitwise:
 *                   gat.h fixes every sum's order and the softmax calls expf the same way.
 *   gat.bwd         dz against the reference, bitwise (per-row sums, transposed gather in the
 *                   reference's scatter order).
 *   gat.bwd.dattn   dal and dar against the reference, bitwise: one running sum per column in
 *                   row order, the threads splitting the columns.
 *   grad.gat        the reference backward (dz, dal, dar) against central differences in double
 *                   of the reference forward, without and with attention dropout (the mask is a
 *                   function of its keys, so it is the same in every forward evaluation). */
#include <math.h>
#include <string.h>
#include "gnnref/gat.h"
#include "gnnref/oracle.h"
#include "gnnref/tensor.h"

static const gnn_oracle_impl k_gat_ref = { .name = "ref", .ops = &gnn_gat_ref, .flags = 0 };
static const gnn_oracle_impl k_gat_cpu = { .name = "cpu", .ops = &gnn_gat_cpu, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_gat_impls[] = { &k_gat_ref, &k_gat_cpu, NULL };
static const gnn_oracle_impl *const k_gat_grad_impls[] = { &k_gat_ref, NULL };

/* zero, tie, nogid: optional (gat.fwd, gat.bwd, gat.bwd.dattn); grad.gat has the first six */
enum { G_NDST, G_NSRC, G_H, G_F, G_DEG, G_DROP, N_GAT_PARAMS, G_ZERO = N_GAT_PARAMS, G_TIE, G_NOGID, N_GATX_PARAMS };
static const gnn_oracle_param k_gat_params[N_GATX_PARAMS] = {
    { "n_dst", GNN_PARAM_INT, 0, 1e7, "dst vertices (rows of out)" },
    { "n_src", GNN_PARAM_INT, 0, 1e7, "src vertices (rows of z), >= n_dst" },
    { "heads", GNN_PARAM_INT, 1, 64, "attention heads H" },
    { "f", GNN_PARAM_INT, 0, 4096, "features per head F" },
    { "deg", GNN_PARAM_RANGE, 0, 1e5, "degree of each dst, uniform in LO..HI" },
    { "drop", GNN_PARAM_REAL, 0, 0.99, "attention dropout probability" },
    { "zero", GNN_PARAM_INT, 0, 7,
      "degree-0 runs of n_dst/5 rows (at least 1): bit 1 the first rows, 2 the middle, 4 the last" },
    { "tie", GNN_PARAM_INT, 0, 1,
      "1: drop is raised to the smallest keyed draw >= drop of the case (one draw equals it: kept, u >= drop)" },
    { "nogid", GNN_PARAM_INT, 0, 1, "1: dst_gid = NULL (the dropout stream id is the row)" },
};

/* Awkward shapes first: zero-degree rows, one row with a single (self) edge, H = 1 and H = 8,
 * F = 1, 7, 13 (not multiples of a vector; H*F = 104 straddles the cpu kernel's 64-float
 * block), hub rows with 100+ edges (repeated neighbors), no dst at all, F = 0, and more than 256
 * src rows (the cpu dal/dar reduction splits columns, not rows: GAT_RED_COLS per task). */
static const char *const k_gat_presets[] = {
    "n_dst=37,n_src=80,heads=2,f=7,deg=0..9,drop=0",
    "n_dst=1,n_src=1,heads=1,f=1,deg=1..1,drop=0",
    "n_dst=1,n_src=4,heads=8,f=13,deg=1..1,drop=0.5",
    "n_dst=9,n_src=9,heads=8,f=1,deg=0..0,drop=0",
    "n_dst=20,n_src=50,heads=1,f=13,deg=0..6,drop=0.3",
    "n_dst=5,n_src=12,heads=8,f=7,deg=100..140,drop=0.25",
    "n_dst=0,n_src=10,heads=4,f=8,deg=0..3,drop=0",
    "n_dst=10,n_src=30,heads=3,f=0,deg=1..5,drop=0.1",
    "n_dst=300,n_src=2000,heads=8,f=16,deg=1..25,drop=0.2",
    "n_dst=64,n_src=600,heads=1,f=100,deg=0..30,drop=0",
    /* degree-0 rows at the start, middle and end (the cpu kernels split dst rows by nonzeros)
     * with a dropout draw equal to the threshold; H*F = 64 exactly (one whole 64-float block, four
     * whole 16-column blocks of dal/dar) with dst_gid = NULL; H*F = 15 (less than one 16-column
     * block) with empty last rows and no dropout */
    "n_dst=40,n_src=90,heads=2,f=7,deg=1..9,drop=0.3,zero=7,tie=1",
    "n_dst=30,n_src=50,heads=4,f=16,deg=0..6,drop=0.5,tie=1,nogid=1",
    "n_dst=20,n_src=40,heads=3,f=5,deg=2..8,drop=0,zero=4",
    NULL,
};

typedef struct gat_case {
    gnn_block *blk;
    int64_t H, F, HF;
    gnn_gat_params p;
    float *z, *al, *ar, *dout;
} gat_case;

/* Inputs: z and dout with spread exponents (a changed summation order shows up bitwise);
 * al, ar the same scaled by 2^-7 so the logits stay in a range where the softmax is neither
 * uniform nor one-hot. dst_gid = the block's global ids (3u + 1), so the dropout is keyed by
 * global vertex, not by row position. */
static gnn_oracle_outcome gat_inputs(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, gat_case *g)
{
    gnn_oracle_draws gb = gnn_oracle_draws_make(c, 1);
    const int64_t n_dst = gnn_oracle_int(c, G_NDST), n_src = gnn_oracle_int(c, G_NSRC);
    gnn_status s = gnn_oracle_case_block(ctx, &gb, n_dst, n_src, gnn_oracle_lo(c, G_DEG), gnn_oracle_hi(c, G_DEG), &g->blk);
    if (s)
        return gnn_oracle_fail(ctx, "invalid case (n_src must be >= n_dst): %s", gnn_status_str(s));
    /* the optional parameters (grad.gat does not have them: 0) */
    const int extra = c->entry->n_params > G_NOGID;
    const int64_t zero = extra ? gnn_oracle_int(c, G_ZERO) : 0;
    if (zero)
        gnn_oracle_block_zero_rows(g->blk, (unsigned)zero, n_dst / 5 > 1 ? n_dst / 5 : 1);
    g->H = gnn_oracle_int(c, G_H);
    g->F = gnn_oracle_int(c, G_F);
    g->HF = g->H * g->F;
    g->p = (gnn_gat_params){ .heads = g->H, .f = g->F, .slope = 0.2f, .attn_drop = (float)gnn_oracle_real(c, G_DROP),
                             .seed = c->seed * 0x9E3779B97F4A7C15ull + 7, .step = 11, .layer = 1,
                             .dst_gid = extra && gnn_oracle_int(c, G_NOGID) ? NULL : g->blk->src_gid };
    if (extra && gnn_oracle_int(c, G_TIE) && g->p.attn_drop > 0.0f) {
        /* row v draws deg(v) * H floats (edge position * H + head) */
        int64_t *cols = gnn_oracle_alloc(ctx, ((size_t)n_dst + 1) * sizeof(int64_t));
        if (!cols)
            return gnn_oracle_fail(ctx, "out of memory");
        for (int64_t v = 0; v < n_dst; v++)
            cols[v] = (g->blk->indptr[v + 1] - g->blk->indptr[v]) * g->H;
        g->p.attn_drop = gnn_oracle_tie_threshold(g->p.seed, GNN_TAG_ATTN_DROPOUT, g->p.step, (unsigned)g->p.layer,
                                                  g->p.dst_gid, n_dst, cols, 0, g->p.attn_drop);
    }
    g->z = gnn_oracle_alloc(ctx, (size_t)(n_src * g->HF) * sizeof(float));
    g->al = gnn_oracle_alloc(ctx, (size_t)g->HF * sizeof(float));
    g->ar = gnn_oracle_alloc(ctx, (size_t)g->HF * sizeof(float));
    g->dout = gnn_oracle_alloc(ctx, (size_t)(n_dst * g->HF) * sizeof(float));
    if (!g->z || !g->al || !g->ar || !g->dout)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws g2 = gnn_oracle_draws_make(c, 2), g3 = gnn_oracle_draws_make(c, 3),
                     g4 = gnn_oracle_draws_make(c, 4);
    gnn_oracle_fill_spread(&g2, g->z, n_src * g->HF);
    gnn_oracle_fill_spread(&g3, g->al, g->HF);
    gnn_oracle_fill_spread(&g3, g->ar, g->HF);
    for (int64_t k = 0; k < g->HF; k++) {
        g->al[k] = ldexpf(g->al[k], -7);
        g->ar[k] = ldexpf(g->ar[k], -7);
    }
    gnn_oracle_fill_spread(&g4, g->dout, n_dst * g->HF);
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome gat_fwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_gat_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    gat_case g;
    gnn_oracle_outcome o = gat_inputs(ctx, c, &g);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t n_out = g.blk->n_dst * g.HF, n_alpha = g.blk->nnz * g.H;
    float *out[2], *alpha[2];
    for (int s = 0; s < 2; s++) {
        out[s] = gnn_oracle_alloc_out(ctx, s ? "impl.out" : "ref.out", (size_t)n_out * sizeof(float));
        alpha[s] = gnn_oracle_alloc_out(ctx, s ? "impl.alpha" : "ref.alpha", (size_t)n_alpha * sizeof(float));
        if (!out[s] || !alpha[s])
            return gnn_oracle_fail(ctx, "out of memory");
    }
    gnn_status st = gnn_gat_forward(ref, g.blk, g.z, g.al, g.ar, &g.p, out[0], alpha[0]);
    if (st)
        return gnn_oracle_fail(ctx, "ref forward returned %s", gnn_status_str(st));
    o = gnn_oracle_status(ctx, "impl forward", gnn_gat_forward(impl, g.blk, g.z, g.al, g.ar, &g.p, out[1], alpha[1]));
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, out[1], (size_t)n_out * sizeof(float));
    gnn_oracle_digest(ctx, alpha[1], (size_t)n_alpha * sizeof(float));
    o = gnn_oracle_compare_f32(ctx, NULL, "out", out[0], out[1], n_out, g.HF);
    o = gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, NULL, "alpha", alpha[0], alpha[1], n_alpha, g.H));
    /* alpha = NULL (inference) must give the same out */
    float *out2 = gnn_oracle_alloc_out(ctx, "impl.out(alpha=NULL)", (size_t)n_out * sizeof(float));
    if (!out2)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_outcome o2 = gnn_oracle_status(ctx, "impl forward (alpha = NULL)",
                                              gnn_gat_forward(impl, g.blk, g.z, g.al, g.ar, &g.p, out2, NULL));
    if (o2 == GNN_ORACLE_PASS) {
        const gnn_oracle_tol bitwise = { GNN_CMP_BITWISE, 0, 0 };
        o2 = gnn_oracle_compare_f32(ctx, &bitwise, "out(alpha=NULL)", out[0], out2, n_out, g.HF);
    }
    return gnn_oracle_worst(o, o2);
}

/* Both backward entries: which = 0 compares dz (entry tolerance), 1 compares dal and dar. */
static gnn_oracle_outcome gat_bwd_run_which(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int which)
{
    const gnn_gat_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    gat_case g;
    gnn_oracle_outcome o = gat_inputs(ctx, c, &g);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t n_out = g.blk->n_dst * g.HF, n_alpha = g.blk->nnz * g.H, n_z = g.blk->n_src * g.HF;
    float *out = gnn_oracle_alloc(ctx, (size_t)n_out * sizeof(float));
    float *alpha = gnn_oracle_alloc(ctx, (size_t)n_alpha * sizeof(float));
    float *dz[2], *dal[2], *dar[2];
    for (int s = 0; s < 2; s++) {
        dz[s] = gnn_oracle_alloc_out(ctx, s ? "impl.dz" : "ref.dz", (size_t)n_z * sizeof(float));
        dal[s] = gnn_oracle_alloc_out(ctx, s ? "impl.dal" : "ref.dal", (size_t)g.HF * sizeof(float));
        dar[s] = gnn_oracle_alloc_out(ctx, s ? "impl.dar" : "ref.dar", (size_t)g.HF * sizeof(float));
        if (!dz[s] || !dal[s] || !dar[s])
            return gnn_oracle_fail(ctx, "out of memory");
    }
    if (!out || !alpha)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_status st = gnn_gat_forward(ref, g.blk, g.z, g.al, g.ar, &g.p, out, alpha);
    if (!st)
        st = gnn_gat_backward(ref, g.blk, g.z, g.al, g.ar, &g.p, alpha, g.dout, dz[0], dal[0], dar[0]);
    if (st)
        return gnn_oracle_fail(ctx, "ref returned %s", gnn_status_str(st));
    o = gnn_oracle_status(ctx, "impl backward",
                          gnn_gat_backward(impl, g.blk, g.z, g.al, g.ar, &g.p, alpha, g.dout, dz[1], dal[1], dar[1]));
    if (o != GNN_ORACLE_PASS)
        return o;
    if (which == 0) {
        gnn_oracle_digest(ctx, dz[1], (size_t)n_z * sizeof(float));
        return gnn_oracle_compare_f32(ctx, NULL, "dz", dz[0], dz[1], n_z, g.HF);
    }
    gnn_oracle_digest(ctx, dal[1], (size_t)g.HF * sizeof(float));
    gnn_oracle_digest(ctx, dar[1], (size_t)g.HF * sizeof(float));
    o = gnn_oracle_compare_f32(ctx, NULL, "dal", dal[0], dal[1], g.HF, g.F);
    return gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, NULL, "dar", dar[0], dar[1], g.HF, g.F));
}

static gnn_oracle_outcome gat_bwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c) { return gat_bwd_run_which(ctx, c, 0); }
static gnn_oracle_outcome gat_dattn_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c) { return gat_bwd_run_which(ctx, c, 1); }

/* ---- benchmark hook ------------------------------------------------------------------------- */

typedef struct gat_fixture {
    const gnn_gat_ops *ops;
    int backward;
    gnn_block blk;
    gnn_gat_params p;
    float *z, *al, *ar, *out, *alpha, *dout, *dz, *dal, *dar;
} gat_fixture;

static void gat_teardown(void *q)
{
    gat_fixture *f = q;
    if (!f)
        return;
    gnn_block_free(&f->blk);
    float *bufs[] = { f->z, f->al, f->ar, f->out, f->alpha, f->dout, f->dz, f->dal, f->dar };
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        gnn_free(bufs[i]);
    gnn_free(f);
}

static gnn_status gat_setup(const gnn_oracle_case *c, int backward, void **fixture, gnn_oracle_work *work)
{
    gat_fixture *f = gnn_calloc(1, sizeof *f);
    if (!f)
        return GNN_ERR_NOMEM;
    f->ops = c->impl->ops;
    f->backward = backward;
    gnn_oracle_draws gb = gnn_oracle_draws_make(c, 1);
    gnn_status s = gnn_oracle_random_block(&gb, gnn_oracle_int(c, G_NDST), gnn_oracle_int(c, G_NSRC),
                                           gnn_oracle_lo(c, G_DEG), gnn_oracle_hi(c, G_DEG), &f->blk);
    if (s) {
        gnn_free(f);
        return s;
    }
    const int64_t H = gnn_oracle_int(c, G_H), F = gnn_oracle_int(c, G_F), HF = H * F;
    const int64_t n_src = f->blk.n_src, n_dst = f->blk.n_dst, nnz = f->blk.nnz;
    f->p = (gnn_gat_params){ .heads = H, .f = F, .slope = 0.2f, .attn_drop = (float)gnn_oracle_real(c, G_DROP),
                             .seed = 1, .step = 0, .layer = 0, .dst_gid = f->blk.src_gid };
    f->z = gnn_malloc((size_t)(n_src * HF) * sizeof(float));
    f->al = gnn_malloc((size_t)HF * sizeof(float));
    f->ar = gnn_malloc((size_t)HF * sizeof(float));
    f->out = gnn_malloc((size_t)(n_dst * HF) * sizeof(float));
    f->alpha = gnn_malloc((size_t)(nnz * H) * sizeof(float));
    f->dout = gnn_malloc((size_t)(n_dst * HF) * sizeof(float));
    f->dz = gnn_malloc((size_t)(n_src * HF) * sizeof(float));
    f->dal = gnn_malloc((size_t)HF * sizeof(float));
    f->dar = gnn_malloc((size_t)HF * sizeof(float));
    if (!f->z || !f->al || !f->ar || !f->out || !f->alpha || !f->dout || !f->dz || !f->dal || !f->dar) {
        gat_teardown(f);
        return GNN_ERR_NOMEM;
    }
    gnn_oracle_draws g2 = gnn_oracle_draws_make(c, 2), g3 = gnn_oracle_draws_make(c, 3), g4 = gnn_oracle_draws_make(c, 4);
    gnn_oracle_fill_spread(&g2, f->z, n_src * HF);
    gnn_oracle_fill_spread(&g3, f->al, HF);
    gnn_oracle_fill_spread(&g3, f->ar, HF);
    for (int64_t k = 0; k < HF; k++) {
        f->al[k] = ldexpf(f->al[k], -7);
        f->ar[k] = ldexpf(f->ar[k], -7);
    }
    gnn_oracle_fill_spread(&g4, f->dout, n_dst * HF);
    s = gnn_gat_forward(f->ops, &f->blk, f->z, f->al, f->ar, &f->p, f->out, f->alpha);
    if (s) {
        gat_teardown(f);
        return s;
    }
    /* logical bytes: one z row (H*F floats) gathered per edge, alpha per edge and head, the
     * block's indices, el/er rows, out written once; backward moves about twice that */
    const double fwd = (double)nnz * (double)HF * 4.0 + (double)nnz * (4.0 + 4.0 * (double)H) +
                       (double)(n_src + n_dst) * (double)HF * 4.0 + (double)n_dst * (double)HF * 4.0;
    work->bytes = backward ? 2.0 * fwd : fwd;
    work->flops = (backward ? 6.0 : 2.0) * (double)nnz * (double)HF;
    work->items = (double)nnz;
    work->items_name = "edges/s";
    *fixture = f;
    return GNN_OK;
}

static gnn_status gat_bench_run(void *q)
{
    gat_fixture *f = q;
    if (f->backward)
        return gnn_gat_backward(f->ops, &f->blk, f->z, f->al, f->ar, &f->p, f->alpha, f->dout, f->dz, f->dal, f->dar);
    return gnn_gat_forward(f->ops, &f->blk, f->z, f->al, f->ar, &f->p, f->out, f->alpha);
}

static gnn_status gat_fwd_setup(const gnn_oracle_case *c, void **f, gnn_oracle_work *w) { return gat_setup(c, 0, f, w); }
static gnn_status gat_bwd_setup(const gnn_oracle_case *c, void **f, gnn_oracle_work *w) { return gat_setup(c, 1, f, w); }

/* a GAT layer-0 block: fanout 10..15, 4 heads of 16 features, attention dropout 0.1 */
static const char *const k_gat_bench_sizes[] = { "n_dst=8192,n_src=65536,heads=4,f=16,deg=10..15,drop=0.1", NULL };
static const gnn_oracle_bench k_gat_fwd_bench = { k_gat_bench_sizes, gat_fwd_setup, gat_bench_run, gat_teardown };
static const gnn_oracle_bench k_gat_bwd_bench = { k_gat_bench_sizes, gat_bwd_setup, gat_bench_run, gat_teardown };

const gnn_oracle_entry gnn_oracle_gat_fwd = {
    .name = "gat.fwd",
    .what = "GAT attention + aggregation forward: out and the saved alpha (and out with alpha = NULL)",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "gat.h fixes every sum's order (f for el/er, CSR for softmax and out); expf is called alike",
    .params = k_gat_params, .n_params = N_GATX_PARAMS, .presets = k_gat_presets,
    .defaults = "zero=0,tie=0,nogid=0",
    .ref = &k_gat_ref, .impls = k_gat_impls, .run = gat_fwd_run, .bench = &k_gat_fwd_bench,
};
const gnn_oracle_entry gnn_oracle_gat_bwd = {
    .name = "gat.bwd",
    .what = "GAT backward dz (aggregation transpose + logit terms) against the reference",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "per-row sums in CSR order and a stable transpose gathering in the reference's scatter order",
    .params = k_gat_params, .n_params = N_GATX_PARAMS, .presets = k_gat_presets,
    .defaults = "zero=0,tie=0,nogid=0",
    .ref = &k_gat_ref, .impls = k_gat_impls, .run = gat_bwd_run, .bench = &k_gat_bwd_bench,
};
const gnn_oracle_entry gnn_oracle_gat_bwd_dattn = {
    .name = "gat.bwd.dattn",
    .what = "GAT backward dal, dar (sums over all rows of del * z, der * z) against the reference",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "one running sum per column in row order, as the reference; threads split the columns, not the rows",
    .params = k_gat_params, .n_params = N_GATX_PARAMS, .presets = k_gat_presets,
    .defaults = "zero=0,tie=0,nogid=0",
    .ref = &k_gat_ref, .impls = k_gat_impls, .run = gat_dattn_run,
};

/* ---- grad.gat --------------------------------------------------------------------------------
 * L = sum r . out (double, from the f32 forward); central differences with h = 2^-7 for every
 * element of z, al and ar, against the reference backward with dout = r. Inputs are dyadic
 * (z = k/8, |k| <= 8; al, ar = k/32, |k| <= 8; r = k/8), so el, er and z +- h are exact in f32
 * and the checker can reproduce each LeakyReLU branch (pre > 0) in double: an element whose
 * +-h evaluations would take a different branch than the base point on any edge (a kink
 * crossed, where the derivative is a convention) is skipped and counted. Error budget: the
 * function is smooth elsewhere; truncation h^2/6 |L'''| (about 1e-5 with |L'''| < 2) plus the
 * f32 rounding of out seen through the quotient, u * sum |r out| / h (about 2^-24 * 10 * 2^7 =
 * 8e-5 at most). */
static const char *const k_grad_gat_presets[] = {
    "n_dst=5,n_src=9,heads=2,f=3,deg=0..4,drop=0",
    "n_dst=5,n_src=9,heads=2,f=3,deg=0..4,drop=0.5",
    "n_dst=1,n_src=1,heads=1,f=1,deg=1..1,drop=0",
    "n_dst=1,n_src=3,heads=8,f=1,deg=1..1,drop=0.3",
    "n_dst=4,n_src=7,heads=1,f=7,deg=1..5,drop=0.25",
    "n_dst=3,n_src=6,heads=2,f=2,deg=0..0,drop=0",
    "n_dst=2,n_src=4,heads=1,f=2,deg=100..120,drop=0.2",
    NULL,
};

/* pre > 0 for every (edge, head), computed in double (exact for the dyadic inputs). */
static void gat_branches(const gnn_block *blk, const float *z, const float *al, const float *ar, int64_t H, int64_t F,
                         unsigned char *br)
{
    const int64_t HF = H * F;
    for (int64_t v = 0; v < blk->n_dst; v++)
        for (int64_t i = blk->indptr[v]; i < blk->indptr[v + 1]; i++) {
            const int64_t u = blk->indices[i];
            for (int64_t h = 0; h < H; h++) {
                double pre = 0;
                for (int64_t f = 0; f < F; f++)
                    pre += (double)z[u * HF + h * F + f] * al[h * F + f] + (double)z[v * HF + h * F + f] * ar[h * F + f];
                br[i * H + h] = pre > 0;
            }
        }
}

static gnn_oracle_outcome grad_gat_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_gat_ops *ops = c->impl->ops;
    gat_case g;
    gnn_oracle_outcome o = gat_inputs(ctx, c, &g);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t H = g.H, F = g.F, HF = g.HF, n_src = g.blk->n_src, n_dst = g.blk->n_dst, nnz = g.blk->nnz;
    const int64_t n_z = n_src * HF, n_out = n_dst * HF, n_par = n_z + 2 * HF;
    gnn_oracle_draws g5 = gnn_oracle_draws_make(c, 5), g6 = gnn_oracle_draws_make(c, 6), g7 = gnn_oracle_draws_make(c, 7);
    gnn_oracle_fill_dyadic(&g5, g.z, n_z, 8, 3);
    gnn_oracle_fill_dyadic(&g6, g.al, HF, 8, 5);
    gnn_oracle_fill_dyadic(&g6, g.ar, HF, 8, 5);
    gnn_oracle_fill_dyadic(&g7, g.dout, n_out, 8, 3);
    float *out = gnn_oracle_alloc_out(ctx, "forward.out", (size_t)n_out * sizeof(float));
    float *alpha = gnn_oracle_alloc_out(ctx, "forward.alpha", (size_t)(nnz * H) * sizeof(float));
    float *dz = gnn_oracle_alloc_out(ctx, "backward.dz", (size_t)n_z * sizeof(float));
    float *dal = gnn_oracle_alloc_out(ctx, "backward.dal", (size_t)HF * sizeof(float));
    float *dar = gnn_oracle_alloc_out(ctx, "backward.dar", (size_t)HF * sizeof(float));
    double *fd = gnn_oracle_alloc_out(ctx, "finite-difference", (size_t)n_par * sizeof(double));
    double *an = gnn_oracle_alloc_out(ctx, "analytic", (size_t)n_par * sizeof(double));
    unsigned char *br0 = gnn_oracle_alloc(ctx, (size_t)(nnz * H) + 1), *br1 = gnn_oracle_alloc(ctx, (size_t)(nnz * H) + 1);
    if (!out || !alpha || !dz || !dal || !dar || !fd || !an || !br0 || !br1)
        return gnn_oracle_fail(ctx, "out of memory");
    o = gnn_oracle_status(ctx, "forward", gnn_gat_forward(ops, g.blk, g.z, g.al, g.ar, &g.p, out, alpha));
    if (o != GNN_ORACLE_PASS)
        return o;
    o = gnn_oracle_status(ctx, "backward",
                          gnn_gat_backward(ops, g.blk, g.z, g.al, g.ar, &g.p, alpha, g.dout, dz, dal, dar));
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, dz, (size_t)n_z * sizeof(float));
    gat_branches(g.blk, g.z, g.al, g.ar, H, F, br0);
    const float h = 0x1p-7f;
    int64_t skipped = 0;
    for (int64_t k = 0; k < n_par; k++) {
        float *x = k < n_z ? g.z + k : k < n_z + HF ? g.al + (k - n_z) : g.ar + (k - n_z - HF);
        const float *grad = k < n_z ? dz + k : k < n_z + HF ? dal + (k - n_z) : dar + (k - n_z - HF);
        const float keep = *x;
        double l[2];
        int crossed = 0;
        for (int side = 0; side < 2; side++) {
            *x = side ? keep - h : keep + h;
            gat_branches(g.blk, g.z, g.al, g.ar, H, F, br1);
            crossed |= memcmp(br0, br1, (size_t)(nnz * H)) != 0;
            o = gnn_oracle_status(ctx, "forward", gnn_gat_forward(ops, g.blk, g.z, g.al, g.ar, &g.p, out, NULL));
            if (o != GNN_ORACLE_PASS) {
                *x = keep;
                return o;
            }
            double L = 0;
            for (int64_t i = 0; i < n_out; i++)
                L += (double)g.dout[i] * (double)out[i];
            l[side] = L;
        }
        *x = keep;
        an[k] = (double)*grad;
        fd[k] = crossed ? an[k] : (l[0] - l[1]) / (2.0 * (double)h);
        skipped += crossed;
    }
    if (skipped)
        gnn_oracle_note(ctx, "%lld of %lld elements skipped (a +-h step crosses the LeakyReLU kink)", (long long)skipped,
                        (long long)n_par);
    o = gnn_oracle_compare_f64(ctx, NULL, "dz (finite difference vs backward)", fd, an, n_z, HF);
    o = gnn_oracle_worst(o, gnn_oracle_compare_f64(ctx, NULL, "dal (finite difference vs backward)", fd + n_z, an + n_z, HF, F));
    return gnn_oracle_worst(o, gnn_oracle_compare_f64(ctx, NULL, "dar (finite difference vs backward)", fd + n_z + HF,
                                                      an + n_z + HF, HF, F));
}

const gnn_oracle_entry gnn_oracle_grad_gat = {
    .name = "grad.gat",
    .what = "GAT backward (dz, dal, dar) against central differences of the forward (h = 2^-7, dyadic inputs)",
    .tol = { GNN_CMP_ALLCLOSE, 2.5e-4, 5e-4 },
    .reason = "smooth except at the skipped kinks: truncation h^2/6 |L'''| ~ 1e-5 + f32 rounding of out / h ~ "
              "1e-4; measured max |diff| 1.3e-4 (0.50 of it), 225 seeds",
    .params = k_gat_params, .n_params = N_GAT_PARAMS, .presets = k_grad_gat_presets,
    .ref = &k_gat_ref, .impls = k_gat_grad_impls, .run = grad_gat_run,
};
