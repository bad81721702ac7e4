/* oracle/op_rgcn.c -- oracle entries of the relational graph convolution
 * (include/gnnref/rgcn.h, docs/hetero.md):
 *   rgcn.fwd   z and the relations' means, ref vs the implementation, bitwise;
 *   rgcn.bwd   dx, dW0, dW (or dV and da with bases), db, bitwise;
 *   grad.rgcn  the reference's backward against central differences of its forward, in
 *              double: the layer is linear in each of x, W0, W, V, a and b separately, so with
 *              dyadic inputs the differences have no truncation error, only f32 rounding.
 * Cases: random blocks (degree ranges, degree 0, repeated sources) whose edges take a relation
 * from a subset of [0, R) (some relations absent), widths that are not vector multiples, R up to
 * 70 (past the reference's 64-relation stack counter), with and without bases and bias. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gnnref/oracle.h"
#include "gnnref/rgcn.h"
#include "gnnref/tensor.h"

enum { P_NDST, P_NSRC, P_DEG, P_IN, P_OUT, P_R, P_B, P_BIAS, P_USED, N_PARAMS };
static const gnn_oracle_param k_params[N_PARAMS] = {
    { "n_dst", GNN_PARAM_INT, 0, 1e6, "dst vertices" },
    { "n_src", GNN_PARAM_INT, 0, 1e6, "src vertices, >= n_dst" },
    { "deg", GNN_PARAM_RANGE, 0, 1e4, "degree of each dst, uniform in LO..HI" },
    { "in", GNN_PARAM_INT, 0, 1024, "input width" },
    { "out", GNN_PARAM_INT, 0, 1024, "output width" },
    { "R", GNN_PARAM_INT, 1, 128, "relations" },
    { "B", GNN_PARAM_INT, 0, 16, "bases (0: a weight per relation)" },
    { "bias", GNN_PARAM_INT, 0, 1, "1: a bias" },
    { "used", GNN_PARAM_INT, 1, 128, "relations the edges take (the first `used` of R; the others absent)" },
};

static const gnn_oracle_impl k_ref = { .name = "ref", .ops = &gnn_rgcn_ref, .flags = 0 };
static const gnn_oracle_impl k_cpu = { .name = "cpu", .ops = &gnn_rgcn_cpu, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_impls[] = { &k_ref, &k_cpu, NULL };
static const gnn_oracle_impl *const k_grad_impls[] = { &k_ref, NULL };

typedef struct rcase {
    gnn_block *blk;
    int32_t *etype;
    float *x, *w0, *w, *v, *a, *bias, *dz;
    gnn_rgcn_params p;
    int64_t n_w;
} rcase;

/* dyadic: small integers over 2^k, so sums of products are exact in double (grad.rgcn) */
static gnn_oracle_outcome inputs(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int dyadic, rcase *q)
{
    gnn_oracle_draws d1 = gnn_oracle_draws_make(c, 1);
    const int64_t n_dst = gnn_oracle_int(c, P_NDST), n_src = gnn_oracle_int(c, P_NSRC);
    if (gnn_oracle_case_block(ctx, &d1, n_dst, n_src, gnn_oracle_lo(c, P_DEG), gnn_oracle_hi(c, P_DEG), &q->blk))
        return gnn_oracle_fail(ctx, "invalid case (n_src must be >= n_dst)");
    const int64_t in = gnn_oracle_int(c, P_IN), out = gnn_oracle_int(c, P_OUT), R = gnn_oracle_int(c, P_R),
                  B = gnn_oracle_int(c, P_B), used = gnn_oracle_int(c, P_USED) < R ? gnn_oracle_int(c, P_USED) : R;
    q->p = (gnn_rgcn_params){ .in = in, .out = out, .R = R, .B = B };
    const int64_t io = in * out, nnz = q->blk->nnz;
    q->n_w = B ? B * io : R * io;
    q->etype = gnn_oracle_alloc(ctx, sizeof(int32_t) * (size_t)(nnz + 1));
    q->x = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(n_src * in + 1));
    q->w0 = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(io + 1));
    q->w = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(q->n_w + 1));
    q->a = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(R * B + 1));
    q->bias = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(out + 1));
    q->dz = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(n_dst * out + 1));
    if (!q->etype || !q->x || !q->w0 || !q->w || !q->a || !q->bias || !q->dz)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws d2 = gnn_oracle_draws_make(c, 2), d3 = gnn_oracle_draws_make(c, 3), d4 = gnn_oracle_draws_make(c, 4);
    for (int64_t e = 0; e < nnz; e++)
        q->etype[e] = (int32_t)((e * 7 + (e / 3) * 5 + (int64_t)c->seed) % used);
    if (dyadic) {
        gnn_oracle_fill_dyadic(&d2, q->x, n_src * in, 8, 3);
        gnn_oracle_fill_dyadic(&d3, q->w0, io, 8, 4);
        gnn_oracle_fill_dyadic(&d3, q->w, q->n_w, 8, 4);
        gnn_oracle_fill_dyadic(&d3, q->a, R * B, 8, 3);
        gnn_oracle_fill_dyadic(&d4, q->bias, out, 8, 3);
        gnn_oracle_fill_dyadic(&d4, q->dz, n_dst * out, 8, 3);
    } else {
        gnn_oracle_fill_spread(&d2, q->x, n_src * in);
        gnn_oracle_fill_spread(&d3, q->w0, io);
        gnn_oracle_fill_spread(&d3, q->w, q->n_w);
        gnn_oracle_fill_spread(&d3, q->a, R * B);
        gnn_oracle_fill_spread(&d4, q->bias, out);
        gnn_oracle_fill_spread(&d4, q->dz, n_dst * out);
    }
    q->p.w0 = q->w0;
    q->p.w = B ? NULL : q->w;
    q->p.v = B ? q->w : NULL;
    q->p.a = B ? q->a : NULL;
    q->p.bias = gnn_oracle_int(c, P_BIAS) ? q->bias : NULL;
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome fwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    rcase q;
    gnn_oracle_outcome o = inputs(ctx, c, 0, &q);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t nz = q.blk->n_dst * q.p.out, na = q.p.R * q.blk->n_dst * q.p.in;
    float *z[2], *agg[2];
    for (int s = 0; s < 2; s++) {
        z[s] = gnn_oracle_alloc_out(ctx, s ? "impl.z" : "ref.z", sizeof(float) * (size_t)nz);
        agg[s] = gnn_oracle_alloc_out(ctx, s ? "impl.agg" : "ref.agg", sizeof(float) * (size_t)na);
        if (!z[s] || !agg[s])
            return gnn_oracle_fail(ctx, "out of memory");
    }
    o = gnn_oracle_status(ctx, "ref forward",
                          gnn_rgcn_forward(c->entry->ref->ops, q.blk, q.etype, q.x, &q.p, z[0], agg[0]));
    if (o == GNN_ORACLE_PASS)
        o = gnn_oracle_status(ctx, "impl forward", gnn_rgcn_forward(c->impl->ops, q.blk, q.etype, q.x, &q.p, z[1], agg[1]));
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, z[1], sizeof(float) * (size_t)nz);
    o = gnn_oracle_compare_f32(ctx, NULL, "z", z[0], z[1], nz, q.p.out);
    return gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, NULL, "agg", agg[0], agg[1], na, q.p.in));
}

static gnn_oracle_outcome bwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    rcase q;
    gnn_oracle_outcome o = inputs(ctx, c, 0, &q);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t nd = q.blk->n_dst, ns = q.blk->n_src, in = q.p.in, out = q.p.out, R = q.p.R, B = q.p.B;
    const int64_t io = in * out;
    float *z = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(nd * out + 1));
    float *agg = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(R * nd * in + 1));
    if (!z || !agg)
        return gnn_oracle_fail(ctx, "out of memory");
    o = gnn_oracle_status(ctx, "ref forward", gnn_rgcn_forward(c->entry->ref->ops, q.blk, q.etype, q.x, &q.p, z, agg));
    if (o != GNN_ORACLE_PASS)
        return o;
    static const char *const names[2][6] = { { "ref.dx", "ref.dw0", "ref.dw", "ref.dv", "ref.da", "ref.db" },
                                             { "impl.dx", "impl.dw0", "impl.dw", "impl.dv", "impl.da", "impl.db" } };
    const int64_t sizes[6] = { ns * in, io, B ? 0 : R * io, B ? B * io : 0, R * B, out };
    float *buf[2][6];
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 6; k++)
            if (!(buf[s][k] = gnn_oracle_alloc_out(ctx, names[s][k], sizeof(float) * (size_t)sizes[k])))
                return gnn_oracle_fail(ctx, "out of memory");
    for (int s = 0; s < 2 && o == GNN_ORACLE_PASS; s++) {
        const gnn_rgcn_grads g = { .dw0 = buf[s][1], .dw = B ? NULL : buf[s][2], .dv = B ? buf[s][3] : NULL,
                                   .da = B ? buf[s][4] : NULL, .dbias = q.p.bias ? buf[s][5] : NULL };
        const gnn_rgcn_ops *ops = s ? c->impl->ops : c->entry->ref->ops;
        o = gnn_oracle_status(ctx, s ? "impl backward" : "ref backward",
                              gnn_rgcn_backward(ops, q.blk, q.etype, q.x, &q.p, agg, q.dz, buf[s][0], &g));
    }
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, buf[1][0], sizeof(float) * (size_t)sizes[0]);
    for (int k = 0; k < 6; k++)
        if ((k != 5 || q.p.bias) && (k < 3 ? k != 2 || !B : B))
            o = gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, NULL, names[1][k] + 5, buf[0][k], buf[1][k], sizes[k],
                                                           k == 0 ? in : out));
    return o;
}

/* L = sum dz . z(theta): the analytic gradient of each parameter element against (L(+h) - L(-h)) / 2h */
static double loss_of(gnn_oracle_ctx *ctx, const rcase *q, float *z, int *fail)
{
    if (gnn_rgcn_forward(&gnn_rgcn_ref, q->blk, q->etype, q->x, &q->p, z, NULL)) {
        *fail = 1;
        return 0;
    }
    (void)ctx;
    double L = 0;
    for (int64_t i = 0; i < q->blk->n_dst * q->p.out; i++)
        L += (double)q->dz[i] * (double)z[i];
    return L;
}

static gnn_oracle_outcome grad_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    rcase q;
    gnn_oracle_outcome o = inputs(ctx, c, 1, &q);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t nd = q.blk->n_dst, ns = q.blk->n_src, in = q.p.in, out = q.p.out, R = q.p.R, B = q.p.B;
    const int64_t io = in * out;
    float *z = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(nd * out + 1));
    float *agg = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(R * nd * in + 1));
    float *dx = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(ns * in + 1)),
          *dw0 = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(io + 1)),
          *dw = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(q.n_w + 1)),
          *da = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(R * B + 1)),
          *db = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(out + 1));
    if (!z || !agg || !dx || !dw0 || !dw || !da || !db)
        return gnn_oracle_fail(ctx, "out of memory");
    o = gnn_oracle_status(ctx, "forward", gnn_rgcn_forward(&gnn_rgcn_ref, q.blk, q.etype, q.x, &q.p, z, agg));
    const gnn_rgcn_grads g = { .dw0 = dw0, .dw = B ? NULL : dw, .dv = B ? dw : NULL, .da = B ? da : NULL,
                               .dbias = q.p.bias ? db : NULL };
    if (o == GNN_ORACLE_PASS)
        o = gnn_oracle_status(ctx, "backward", gnn_rgcn_backward(&gnn_rgcn_ref, q.blk, q.etype, q.x, &q.p, agg, q.dz, dx, &g));
    if (o != GNN_ORACLE_PASS)
        return o;
    /* every parameter element, in the order x, W0, W (or V), a, b */
    struct { float *p; const float *g; int64_t n; const char *name; } part[5] = {
        { q.x, dx, ns * in, "dx" }, { q.w0, dw0, io, "dW0" }, { q.w, dw, q.n_w, B ? "dV" : "dW" },
        { q.a, da, R * B, "da" }, { q.bias, db, q.p.bias ? out : 0, "db" } };
    const float h = 0x1p-6f;
    for (int k = 0; k < 5; k++) {
        if (part[k].n == 0)
            continue;
        double *fd = gnn_oracle_alloc_out(ctx, "finite-difference", sizeof(double) * (size_t)part[k].n);
        double *an = gnn_oracle_alloc_out(ctx, "analytic", sizeof(double) * (size_t)part[k].n);
        if (!fd || !an)
            return gnn_oracle_fail(ctx, "out of memory");
        for (int64_t i = 0; i < part[k].n; i++) {
            const float keep = part[k].p[i];
            int fail = 0;
            part[k].p[i] = keep + h;
            const double lp = loss_of(ctx, &q, z, &fail);
            part[k].p[i] = keep - h;
            const double lm = loss_of(ctx, &q, z, &fail);
            part[k].p[i] = keep;
            if (fail)
                return gnn_oracle_fail(ctx, "forward failed");
            fd[i] = (lp - lm) / (2.0 * (double)h);
            an[i] = (double)part[k].g[i];
        }
        char name[64];
        snprintf(name, sizeof name, "%s (finite difference vs backward)", part[k].name);
        o = gnn_oracle_worst(o, gnn_oracle_compare_f64(ctx, NULL, name, fd, an, part[k].n, 0));
    }
    return o;
}

/* ---- benchmark hooks (bench/bench_registry.c): one layer of a sampled block ---- */

typedef struct rfix {
    const gnn_rgcn_ops *ops;
    int backward;
    gnn_block blk;
    int32_t *etype;
    float *x, *w0, *w, *v, *a, *bias, *z, *agg, *dz, *dx, *g;
    gnn_rgcn_params p;
    gnn_rgcn_grads gr;
} rfix;

static void bench_teardown(void *q)
{
    rfix *f = q;
    if (!f)
        return;
    gnn_block_free(&f->blk);
    gnn_free(f->etype);
    float *bufs[] = { f->x, f->w0, f->w, f->v, f->a, f->bias, f->z, f->agg, f->dz, f->dx, f->g };
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        gnn_free(bufs[i]);
    gnn_free(f);
}

static gnn_status bench_setup(const gnn_oracle_case *c, int backward, void **fixture, gnn_oracle_work *work)
{
    rfix *f = gnn_calloc(1, sizeof *f);
    if (!f)
        return GNN_ERR_NOMEM;
    f->ops = c->impl->ops;
    f->backward = backward;
    gnn_oracle_draws d1 = gnn_oracle_draws_make(c, 1), d2 = gnn_oracle_draws_make(c, 2);
    const int64_t nd = gnn_oracle_int(c, P_NDST), ns = gnn_oracle_int(c, P_NSRC), in = gnn_oracle_int(c, P_IN),
                  out = gnn_oracle_int(c, P_OUT), R = gnn_oracle_int(c, P_R), B = gnn_oracle_int(c, P_B);
    gnn_status s = gnn_oracle_random_block(&d1, nd, ns, gnn_oracle_lo(c, P_DEG), gnn_oracle_hi(c, P_DEG), &f->blk);
    if (s) {
        gnn_free(f);
        return s;
    }
    const int64_t nnz = f->blk.nnz, io = in * out, nw = (B ? B : R) * io;
    f->etype = gnn_malloc(sizeof(int32_t) * (size_t)(nnz + 1));
    f->x = gnn_malloc(sizeof(float) * (size_t)(ns * in + 1));
    f->w0 = gnn_malloc(sizeof(float) * (size_t)(io + 1));
    f->w = gnn_malloc(sizeof(float) * (size_t)(nw + 1));
    f->a = gnn_malloc(sizeof(float) * (size_t)(R * B + 1));
    f->bias = gnn_malloc(sizeof(float) * (size_t)(out + 1));
    f->z = gnn_malloc(sizeof(float) * (size_t)(nd * out + 1));
    f->agg = gnn_malloc(sizeof(float) * (size_t)(R * nd * in + 1));
    f->dz = gnn_malloc(sizeof(float) * (size_t)(nd * out + 1));
    f->dx = gnn_malloc(sizeof(float) * (size_t)(ns * in + 1));
    f->g = gnn_malloc(sizeof(float) * (size_t)(io + nw + R * B + out + 1));
    if (!f->etype || !f->x || !f->w0 || !f->w || !f->a || !f->bias || !f->z || !f->agg || !f->dz || !f->dx || !f->g) {
        bench_teardown(f);
        return GNN_ERR_NOMEM;
    }
    for (int64_t e = 0; e < nnz; e++)
        f->etype[e] = (int32_t)(e % R);
    gnn_oracle_fill_spread(&d2, f->x, ns * in);
    gnn_oracle_fill_spread(&d2, f->w0, io);
    gnn_oracle_fill_spread(&d2, f->w, nw);
    gnn_oracle_fill_spread(&d2, f->a, R * B);
    gnn_oracle_fill_spread(&d2, f->bias, out);
    gnn_oracle_fill_spread(&d2, f->dz, nd * out);
    f->p = (gnn_rgcn_params){ .in = in, .out = out, .R = R, .B = B, .w0 = f->w0, .w = B ? NULL : f->w,
                              .v = B ? f->w : NULL, .a = B ? f->a : NULL, .bias = f->bias };
    f->gr = (gnn_rgcn_grads){ .dw0 = f->g, .dw = B ? NULL : f->g + io, .dv = B ? f->g + io : NULL,
                              .da = B ? f->g + io + nw : NULL, .dbias = f->g + io + nw + R * B };
    if ((s = gnn_rgcn_forward(f->ops, &f->blk, f->etype, f->x, &f->p, f->z, f->agg))) {
        bench_teardown(f);
        return s;
    }
    /* rows gathered per edge, the means and the outputs written, the products; backward about 3x */
    const double fwd_bytes = (double)nnz * (double)in * 4.0 + (double)nnz * 8.0 + (double)(R * nd * in) * 4.0 +
                             (double)(nd * out) * 4.0;
    const double fwd_flops = (double)nnz * (double)in + 2.0 * (double)(nd * (R + 1)) * (double)io;
    work->bytes = backward ? 3.0 * fwd_bytes : fwd_bytes;
    work->flops = backward ? 3.0 * fwd_flops : fwd_flops;
    work->items = (double)nnz;
    work->items_name = "edges/s";
    *fixture = f;
    return GNN_OK;
}

static gnn_status fwd_bench_setup(const gnn_oracle_case *c, void **fx, gnn_oracle_work *w) { return bench_setup(c, 0, fx, w); }
static gnn_status bwd_bench_setup(const gnn_oracle_case *c, void **fx, gnn_oracle_work *w) { return bench_setup(c, 1, fx, w); }

static gnn_status bench_run(void *q)
{
    rfix *f = q;
    if (f->backward)
        return gnn_rgcn_backward(f->ops, &f->blk, f->etype, f->x, &f->p, f->agg, f->dz, f->dx, &f->gr);
    return gnn_rgcn_forward(f->ops, &f->blk, f->etype, f->x, &f->p, f->z, f->agg);
}

/* an RGCN layer of DistDGLv2's MAG setting, scaled down: fanout 15, 4 relations, 2 bases */
static const char *const k_bench_sizes[] = { "n_dst=4096,n_src=32768,deg=10..20,in=64,out=64,R=4,B=2,bias=1,used=4",
                                             NULL };
static const gnn_oracle_bench k_fwd_bench = { k_bench_sizes, fwd_bench_setup, bench_run, bench_teardown };
static const gnn_oracle_bench k_bwd_bench = { k_bench_sizes, bwd_bench_setup, bench_run, bench_teardown };

/* n_dst, n_src, degrees (0 included), widths off the vector multiples, R with absent
 * relations, bases, R past 64 */
static const char *const k_presets[] = {
    "n_dst=7,n_src=15,deg=0..5,in=5,out=3,R=3,B=0,bias=1,used=3",
    "n_dst=40,n_src=90,deg=1..9,in=17,out=9,R=5,B=2,bias=1,used=4",
    "n_dst=1,n_src=1,deg=1..1,in=1,out=1,R=1,B=0,bias=0,used=1",
    "n_dst=0,n_src=4,deg=0..0,in=3,out=2,R=2,B=1,bias=1,used=2",
    "n_dst=12,n_src=12,deg=0..0,in=4,out=4,R=2,B=0,bias=1,used=1",
    "n_dst=300,n_src=700,deg=2..20,in=33,out=19,R=7,B=3,bias=1,used=7",
    "n_dst=30,n_src=60,deg=3..8,in=6,out=5,R=70,B=0,bias=0,used=70",
    "n_dst=20,n_src=50,deg=1..6,in=0,out=4,R=3,B=2,bias=1,used=3",
    NULL,
};
static const char *const k_grad_presets[] = {
    "n_dst=6,n_src=11,deg=0..4,in=3,out=2,R=3,B=0,bias=1,used=3",
    "n_dst=5,n_src=9,deg=1..5,in=4,out=3,R=4,B=2,bias=1,used=3",
    "n_dst=3,n_src=3,deg=1..2,in=2,out=2,R=2,B=1,bias=0,used=2",
    NULL,
};

#define RGCN_REASON "every output element is one sum in rgcn.h's order, one thread each: bitwise"

const gnn_oracle_entry gnn_oracle_rgcn_fwd = {
    .name = "rgcn.fwd",
    .what = "relational graph convolution forward (per-relation means, self weight, basis decomposition, bias)",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = RGCN_REASON,
    .params = k_params, .n_params = N_PARAMS, .presets = k_presets, .defaults = "bias=1,used=128",
    .ref = &k_ref, .impls = k_impls, .run = fwd_run, .bench = &k_fwd_bench,
};

const gnn_oracle_entry gnn_oracle_rgcn_bwd = {
    .name = "rgcn.bwd",
    .what = "relational graph convolution backward (dx as a gather, dW0, dW or dV and da, db)",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = RGCN_REASON,
    .params = k_params, .n_params = N_PARAMS, .presets = k_presets, .defaults = "bias=1,used=128",
    .ref = &k_ref, .impls = k_impls, .run = bwd_run, .bench = &k_bwd_bench,
};

const gnn_oracle_entry gnn_oracle_grad_rgcn = {
    .name = "grad.rgcn",
    .what = "relational graph convolution backward against central differences of the forward (h = 2^-6, dyadic "
            "inputs), every element of x, W0, W or V, a and b",
    .tol = { GNN_CMP_ALLCLOSE, 1e-4, 1e-4 },
    .reason = "the layer is linear in each parameter (a bilinear in V and a: central differences are exact for a "
              "quadratic), so only the f32 rounding of z enters, about 2^-24 sum |dz z| / h < 1e-5 here",
    .params = k_params, .n_params = N_PARAMS, .presets = k_grad_presets, .defaults = "bias=1,used=128",
    .ref = &k_ref, .impls = k_grad_impls, .run = grad_run,
};
