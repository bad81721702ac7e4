/* oracle/op_reorder.c -- oracle entries of FastGL's Match-Reorder (include/gnnref/reorder.h,
 * docs/reorder.md), at 1, 2 and 4 threads:
 *   reorder.degree    the overlap matrix, ref vs the implementation bitwise; then ref's matrix
 *                     against counts made another way (a stamp array over the ids: S_i stamped,
 *                     S_j's stamped ids counted), symmetric, the diagonal the set sizes;
 *   reorder.order     the window-by-window greedy order, ref vs the implementation bitwise; then
 *                     ref's order verified: each window a permutation of its own range starting
 *                     with its first batch, and every greedy step's pick a maximum of the degree
 *                     from the batch before it among the batches not yet placed, the smallest
 *                     index among equals (degrees recomputed from the stamp counts, normalized by
 *                     this file's own code, compared by cross-multiplication);
 *   reorder.assemble  for each consecutive pair of the sequence: the plan, ref vs the
 *                     implementation bitwise; the implementation's assembled rows (the previous
 *                     batch's rows and the loaded rows gathered from the feature matrix) bitwise
 *                     equal to the plain gather feat[S_cur]; rows loaded exactly |S_cur \ S_prev|
 *                     (stamp count), never more than |S_cur|, and the loaded ids exactly those.
 * Cases: random sets; every third set empty; identical sets (shuffled); disjoint sets; sets of
 * consecutive ids at random offsets (many equal degrees); windows 0, 1, odd and larger than n;
 * n = 0 and 1; every normalization. */
#include <stdio.h>
#include <string.h>
#include "gnnref/oracle.h"
#include "gnnref/reorder.h"
#include "gnnref/tensor.h"

enum { P_N, P_SIZE, P_U, P_KIND, P_NORM, P_WINDOW, P_D, N_PARAMS };
static const gnn_oracle_param k_params[N_PARAMS] = {
    { "n", GNN_PARAM_INT, 0, 4096, "batches (sets)" },
    { "size", GNN_PARAM_RANGE, 0, 1e6, "set sizes, uniform in LO..HI (at most U)" },
    { "U", GNN_PARAM_INT, 1, 1e7, "ids in [0, U)" },
    { "kind", GNN_PARAM_INT, 0, 4,
      "0 random, 1 every third set empty, 2 identical (shuffled), 3 disjoint, 4 consecutive ids at random offsets" },
    { "norm", GNN_PARAM_INT, 0, 2, "0 min (paper), 1 later (code), 2 count" },
    { "window", GNN_PARAM_INT, 0, 4096, "reorder window (0 = all n)" },
    { "d", GNN_PARAM_INT, 0, 512, "feature width (assemble)" },
};

static const gnn_oracle_impl k_ref = { .name = "ref", .ops = &gnn_reorder_ref, .flags = 0 };
static const gnn_oracle_impl k_cpu = { .name = "cpu", .ops = &gnn_reorder_cpu, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_impls[] = { &k_ref, &k_cpu, NULL };

typedef struct sets {
    int64_t n, U;
    int64_t **s, *len;
} sets;

/* the case's sets, from stream 1 (sizes, ids), into q->s and q->len (n entries each) with pool
 * (U ids) as scratch; each set from alloc(arg, bytes), zeroed. One generator for the oracle's
 * context and a benchmark's fixture, so a benchmark times the very sets the oracle checked.
 * -1: out of memory. */
static int draw_sets(const gnn_oracle_case *c, sets *q, int64_t *pool, void *(*alloc)(void *, size_t), void *arg)
{
    const int64_t n = gnn_oracle_int(c, P_N), U = gnn_oracle_int(c, P_U), kind = gnn_oracle_int(c, P_KIND);
    int64_t lo = gnn_oracle_lo(c, P_SIZE), hi = gnn_oracle_hi(c, P_SIZE);
    hi = hi < U ? hi : U;
    lo = lo < hi ? lo : hi;
    q->n = n;
    q->U = U;
    gnn_oracle_draws d = gnn_oracle_draws_make(c, 1);
    for (int64_t i = 0; i < n; i++) {
        int64_t m = gnn_oracle_draw_range(&d, lo, hi);
        const int64_t span = kind == 3 ? U / (n ? n : 1) : U, base = kind == 3 ? i * span : 0;
        m = m < span ? m : span;
        if ((kind == 1 && i % 3 == 1) || m < 0)
            m = 0;
        if (!(q->s[i] = alloc(arg, sizeof(int64_t) * (size_t)(m + 1))))
            return -1;
        q->len[i] = m;
        if (kind == 2 && i > 0) { /* set 0 again, shuffled */
            q->len[i] = q->len[0];
            memcpy(q->s[i], q->s[0], sizeof(int64_t) * (size_t)q->len[0]);
            for (int64_t j = q->len[i] - 1; j > 0; j--) {
                const int64_t r = (int64_t)gnn_oracle_draw_uint(&d, (uint64_t)j + 1), t = q->s[i][j];
                q->s[i][j] = q->s[i][r];
                q->s[i][r] = t;
            }
            continue;
        }
        if (kind == 4) { /* consecutive ids from a random offset, written backwards */
            const int64_t o = gnn_oracle_draw_range(&d, 0, U - m);
            for (int64_t j = 0; j < m; j++)
                q->s[i][j] = o + m - 1 - j;
            continue;
        }
        for (int64_t j = 0; j < span; j++) /* partial Fisher-Yates over [base, base + span) */
            pool[j] = base + j;
        for (int64_t j = 0; j < m; j++) {
            const int64_t r = j + (int64_t)gnn_oracle_draw_uint(&d, (uint64_t)(span - j)), t = pool[j];
            pool[j] = pool[r];
            pool[r] = t;
            q->s[i][j] = pool[j];
        }
    }
    return 0;
}

static void *ctx_alloc(void *ctx, size_t bytes) { return gnn_oracle_alloc(ctx, bytes); }

/* the case's sets, freed after the case */
static gnn_oracle_outcome make_sets(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, sets *q)
{
    const int64_t n = gnn_oracle_int(c, P_N), U = gnn_oracle_int(c, P_U);
    q->s = gnn_oracle_alloc(ctx, sizeof(int64_t *) * (size_t)(n + 1));
    q->len = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(n + 1));
    int64_t *pool = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)U);
    if (!q->s || !q->len || !pool || draw_sets(c, q, pool, ctx_alloc, ctx))
        return gnn_oracle_fail(ctx, "out of memory");
    return GNN_ORACLE_PASS;
}

/* |S_i ∩ S_j| by stamps (not by sorting): stamp[id] = i + 1 for S_i, then count S_j's stamped */
static int64_t stamp_count(const sets *q, int64_t *stamp, int64_t i, int64_t j)
{
    for (int64_t k = 0; k < q->len[i]; k++)
        stamp[q->s[i][k]] = i * q->n + j + 1; /* unique per (i, j): no clearing needed */
    int64_t c = 0;
    for (int64_t k = 0; k < q->len[j]; k++)
        c += stamp[q->s[j][k]] == i * q->n + j + 1;
    return c;
}

static gnn_oracle_outcome degree_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    sets q;
    gnn_oracle_outcome o = make_sets(ctx, c, &q);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t n = q.n, nn = n * n;
    int64_t *ov[2];
    for (int s = 0; s < 2; s++)
        if (!(ov[s] = gnn_oracle_alloc_out(ctx, s ? "impl.overlap" : "ref.overlap", sizeof(int64_t) * (size_t)nn)))
            return gnn_oracle_fail(ctx, "out of memory");
    const int64_t *const *sp = (const int64_t *const *)q.s;
    o = gnn_oracle_status(ctx, "ref degree", gnn_match_degree(c->entry->ref->ops, sp, q.len, n, ov[0]));
    if (o == GNN_ORACLE_PASS)
        o = gnn_oracle_status(ctx, "impl degree", gnn_match_degree(c->impl->ops, sp, q.len, n, ov[1]));
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, ov[1], sizeof(int64_t) * (size_t)nn);
    o = gnn_oracle_compare_int(ctx, "overlap", ov[0], ov[1], nn, sizeof(int64_t));
    int64_t *stamp = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)q.U);
    if (!stamp)
        return gnn_oracle_fail(ctx, "out of memory");
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            const int64_t want = i == j ? q.len[i] : stamp_count(&q, stamp, i, j);
            if (ov[0][i * n + j] != want)
                return gnn_oracle_fail(ctx, "verify: ref overlap[%lld][%lld] = %lld, stamp count %lld", (long long)i,
                                       (long long)j, (long long)ov[0][i * n + j], (long long)want);
        }
    return o;
}

/* the degree i -> j from stamp counts, normalized here (not by gnn_match_degree_frac) */
static void verify_degree(const sets *q, int64_t *stamp, int64_t w0, int64_t i, int64_t j, int norm, int64_t *num,
                          int64_t *den)
{
    const int64_t ni = q->len[w0 + i], nj = q->len[w0 + j];
    const int64_t d = norm == 0 ? (ni < nj ? ni : nj) : norm == 1 ? q->len[w0 + (i > j ? i : j)] : 1;
    *num = d > 0 ? stamp_count(q, stamp, w0 + i, w0 + j) : 0;
    *den = d > 0 ? d : 1;
}

/* ref's order of window [w0, w0 + m): a permutation from w0, each pick a maximum by the rule */
static gnn_oracle_outcome verify_window(gnn_oracle_ctx *ctx, const sets *q, int64_t *stamp, uint8_t *placed,
                                        const int64_t *order, int64_t w0, int64_t m, int norm)
{
    memset(placed, 0, (size_t)m);
    for (int64_t i = 0; i < m; i++) {
        const int64_t b = order[w0 + i] - w0;
        if (b < 0 || b >= m || placed[b])
            return gnn_oracle_fail(ctx, "verify: window at %lld: position %lld holds batch %lld (out of the window or "
                                   "placed twice)", (long long)w0, (long long)i, (long long)order[w0 + i]);
        if (i == 0 && b != 0)
            return gnn_oracle_fail(ctx, "verify: window at %lld starts with batch %lld, not its first", (long long)w0,
                                   (long long)order[w0]);
        if (i > 0) {
            const int64_t z = order[w0 + i - 1] - w0;
            int64_t bn, bd;
            verify_degree(q, stamp, w0, z, b, norm, &bn, &bd);
            for (int64_t k = 0; k < m; k++) {
                if (placed[k] || k == b)
                    continue;
                int64_t kn, kd;
                verify_degree(q, stamp, w0, z, k, norm, &kn, &kd);
                const __int128 l = (__int128)kn * bd, r = (__int128)bn * kd;
                if (l > r || (l == r && k < b))
                    return gnn_oracle_fail(ctx, "verify: window at %lld step %lld from batch %lld picked %lld (degree "
                                           "%lld/%lld) over %lld (%lld/%lld)", (long long)w0, (long long)i,
                                           (long long)(w0 + z), (long long)(w0 + b), (long long)bn, (long long)bd,
                                           (long long)(w0 + k), (long long)kn, (long long)kd);
            }
        }
        placed[b] = 1;
    }
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome order_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    sets q;
    gnn_oracle_outcome o = make_sets(ctx, c, &q);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t n = q.n, window = gnn_oracle_int(c, P_WINDOW);
    const int norm = (int)gnn_oracle_int(c, P_NORM);
    int64_t *ord[2];
    for (int s = 0; s < 2; s++)
        if (!(ord[s] = gnn_oracle_alloc_out(ctx, s ? "impl.order" : "ref.order", sizeof(int64_t) * (size_t)n)))
            return gnn_oracle_fail(ctx, "out of memory");
    const int64_t *const *sp = (const int64_t *const *)q.s;
    o = gnn_oracle_status(ctx, "ref order", gnn_reorder_windows(c->entry->ref->ops, sp, q.len, n, window,
                                                                (gnn_match_norm)norm, ord[0]));
    if (o == GNN_ORACLE_PASS)
        o = gnn_oracle_status(ctx, "impl order", gnn_reorder_windows(c->impl->ops, sp, q.len, n, window,
                                                                     (gnn_match_norm)norm, ord[1]));
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, ord[1], sizeof(int64_t) * (size_t)n);
    o = gnn_oracle_compare_int(ctx, "order", ord[0], ord[1], n, sizeof(int64_t));
    int64_t *stamp = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)q.U);
    uint8_t *placed = gnn_oracle_alloc(ctx, (size_t)n + 1);
    if (!stamp || !placed)
        return gnn_oracle_fail(ctx, "out of memory");
    const int64_t W = window == 0 || window > n ? n : window;
    for (int64_t w0 = 0; w0 < n && o == GNN_ORACLE_PASS; w0 += W)
        o = verify_window(ctx, &q, stamp, placed, ord[0], w0, n - w0 < W ? n - w0 : W, norm);
    return o;
}

/* one pair prev -> cur: the plans (ref, impl) and the implementation's assembly */
static gnn_oracle_outcome assemble_pair(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, const sets *q,
                                        const float *feat, int64_t d, int64_t *stamp, int64_t i)
{
    const int64_t *prev = q->s[i - 1], *cur = q->s[i], np = q->len[i - 1], nc = q->len[i];
    gnn_match_plan p[2];
    memset(p, 0, sizeof p);
    gnn_oracle_outcome o =
        gnn_oracle_status(ctx, "ref plan", gnn_match_plan_build(c->entry->ref->ops, prev, np, cur, nc, &p[0]));
    if (o == GNN_ORACLE_PASS)
        o = gnn_oracle_status(ctx, "impl plan", gnn_match_plan_build(c->impl->ops, prev, np, cur, nc, &p[1]));
    float *px = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(np * d + 1));
    float *ld = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(nc * d + 1));
    float *x = gnn_oracle_alloc_out(ctx, "impl.x", sizeof(float) * (size_t)(nc * d));
    float *want = gnn_oracle_alloc_out(ctx, "gather", sizeof(float) * (size_t)(nc * d));
    if (o == GNN_ORACLE_PASS && (!px || !ld || !x || !want))
        o = gnn_oracle_fail(ctx, "out of memory");
    if (o == GNN_ORACLE_PASS) {
        o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "plan.from", p[0].from, p[1].from, nc, sizeof(int64_t)));
        if (p[0].n_load != p[1].n_load)
            o = gnn_oracle_fail(ctx, "pair %lld: rows loaded ref %lld, impl %lld", (long long)i,
                                (long long)p[0].n_load, (long long)p[1].n_load);
        else
            o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "plan.load_ids", p[0].load_ids, p[1].load_ids,
                                                           p[0].n_load, sizeof(int64_t)));
    }
    if (o == GNN_ORACLE_PASS) { /* exact count by stamps; the loaded ids are exactly the new ones */
        const int64_t miss = nc - (np && nc ? stamp_count(q, stamp, i - 1, i) : 0);
        if (p[1].n_load != miss || p[1].n_load > nc)
            o = gnn_oracle_fail(ctx, "pair %lld: %lld rows loaded, |S_cur \\ S_prev| = %lld, |S_cur| = %lld",
                                (long long)i, (long long)p[1].n_load, (long long)miss, (long long)nc);
        for (int64_t k = 0; k < p[1].n_load && o == GNN_ORACLE_PASS; k++)
            if (stamp[p[1].load_ids[k]] == (i - 1) * q->n + i + 1 && np && nc)
                o = gnn_oracle_fail(ctx, "pair %lld: loads id %lld, which the previous batch holds", (long long)i,
                                    (long long)p[1].load_ids[k]);
    }
    if (o == GNN_ORACLE_PASS) {
        for (int64_t r = 0; r < np; r++) /* the previous batch's buffer, as it was gathered */
            memcpy(px + r * d, feat + prev[r] * d, sizeof(float) * (size_t)d);
        for (int64_t k = 0; k < p[1].n_load; k++) /* the load: only the new ids */
            memcpy(ld + k * d, feat + p[1].load_ids[k] * d, sizeof(float) * (size_t)d);
        for (int64_t r = 0; r < nc; r++)
            memcpy(want + r * d, feat + cur[r] * d, sizeof(float) * (size_t)d);
        o = gnn_oracle_status(ctx, "impl assemble", gnn_match_assemble(c->impl->ops, &p[1], px, ld, d, x));
    }
    if (o == GNN_ORACLE_PASS) {
        gnn_oracle_digest(ctx, x, sizeof(float) * (size_t)(nc * d));
        o = gnn_oracle_compare_f32(ctx, NULL, "assembled vs gather", want, x, nc * d, d);
    }
    gnn_match_plan_free(&p[0]);
    gnn_match_plan_free(&p[1]);
    return o;
}

static gnn_oracle_outcome assemble_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    sets q;
    gnn_oracle_outcome o = make_sets(ctx, c, &q);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t d = gnn_oracle_int(c, P_D);
    float *feat = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(q.U * d + 1));
    int64_t *stamp = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)q.U);
    if (!feat || !stamp)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws dr = gnn_oracle_draws_make(c, 2);
    gnn_oracle_fill_spread(&dr, feat, q.U * d);
    for (int64_t i = 1; i < q.n && o == GNN_ORACLE_PASS; i++)
        o = assemble_pair(ctx, c, &q, feat, d, stamp, i);
    return o;
}

static const char *const k_presets[] = {
    "n=6,size=3..12,U=30,kind=0,norm=0,window=0,d=5",
    "n=9,size=0..20,U=40,kind=1,norm=1,window=4,d=3",
    "n=5,size=7..7,U=20,kind=2,norm=0,window=0,d=4",
    "n=7,size=2..6,U=70,kind=3,norm=2,window=3,d=2",
    "n=12,size=5..15,U=60,kind=4,norm=0,window=5,d=7",
    "n=12,size=5..15,U=60,kind=4,norm=1,window=0,d=1",
    "n=12,size=5..15,U=60,kind=4,norm=2,window=1,d=6",
    "n=1,size=4..9,U=16,kind=0,norm=0,window=0,d=3",
    "n=0,size=0..0,U=1,kind=0,norm=0,window=0,d=2",
    "n=4,size=0..0,U=8,kind=0,norm=1,window=2,d=3",
    "n=40,size=50..400,U=2000,kind=0,norm=0,window=0,d=16",
    "n=33,size=100..300,U=600,kind=4,norm=2,window=7,d=9",
    "n=25,size=10..60,U=120,kind=1,norm=2,window=100,d=0",
    NULL,
};

/* ---- benchmark hooks (bench/bench_registry.c): the sets drawn once, one call timed ----------
 *   degree    the n x n overlap counts of the case's sets (gnn_match_degree): pairs/s, the
 *             n (n - 1) / 2 pairs counted per call;
 *   order     the greedy order of the first window (all n with window=0) from its overlap counts,
 *             counted once by ref in the setup (gnn_greedy_reorder): pairs/s, the degrees
 *             compared per call (each step's batch against every batch not yet placed);
 *   assemble  one Match step from set 0 to set 1: the plan, then the batch's rows assembled from
 *             the previous batch's rows and the loaded ones (gnn_match_plan_build, then
 *             gnn_match_assemble): rows/s, the batch's rows per call.
 * Through the checked entry points, as a caller (the trainer) pays for them. */

enum { B_DEGREE, B_ORDER, B_ASSEMBLE };

typedef struct reorder_fixture {
    const gnn_reorder_ops *ops;
    int what;              /* B_DEGREE, B_ORDER, B_ASSEMBLE */
    sets q;
    int64_t m;             /* order: the window's batches */
    gnn_match_norm norm;
    int64_t *overlap;      /* degree: (n, n) written; order: the window's (m, m), read */
    int64_t *order;        /* order: (m) written */
    int64_t d;             /* assemble: feature width */
    float *px, *ld, *x;    /* assemble: the previous batch's rows, the loaded rows, the batch's rows */
} reorder_fixture;

/* the fixture's sets live as long as it does (draw_sets' allocator for a benchmark) */
static void *heap_alloc(void *arg, size_t bytes)
{
    (void)arg;
    return gnn_calloc(1, bytes);
}

static void reorder_teardown(void *p)
{
    reorder_fixture *f = p;
    if (!f)
        return;
    for (int64_t i = 0; f->q.s && i < f->q.n; i++)
        gnn_free(f->q.s[i]);
    gnn_free(f->q.s);
    gnn_free(f->q.len);
    gnn_free(f->overlap);
    gnn_free(f->order);
    gnn_free(f->px);
    gnn_free(f->ld);
    gnn_free(f->x);
    gnn_free(f);
}

/* assemble: the previous batch's rows and the loaded rows of the plan 0 -> 1, gathered from the
 * oracle's feature matrix (stream 2), as assemble_pair gathers them */
static gnn_status assemble_inputs(const gnn_oracle_case *c, reorder_fixture *f, gnn_oracle_work *work)
{
    const sets *q = &f->q;
    if (q->n < 2)
        return GNN_ERR_INVAL; /* a Match step needs two batches */
    const int64_t d = f->d, np = q->len[0], nc = q->len[1];
    gnn_match_plan p;
    gnn_status s = gnn_match_plan_build(&gnn_reorder_ref, q->s[0], np, q->s[1], nc, &p);
    if (s)
        return s;
    float *feat = gnn_malloc(sizeof(float) * (size_t)(q->U * d + 1));
    f->px = gnn_malloc(sizeof(float) * (size_t)(np * d + 1));
    f->ld = gnn_malloc(sizeof(float) * (size_t)(p.n_load * d + 1));
    f->x = gnn_malloc(sizeof(float) * (size_t)(nc * d + 1));
    if (!feat || !f->px || !f->ld || !f->x) {
        gnn_free(feat);
        gnn_match_plan_free(&p);
        return GNN_ERR_NOMEM;
    }
    gnn_oracle_draws dr = gnn_oracle_draws_make(c, 2);
    gnn_oracle_fill_spread(&dr, feat, q->U * d);
    for (int64_t r = 0; r < np; r++)
        memcpy(f->px + r * d, feat + q->s[0][r] * d, sizeof(float) * (size_t)d);
    for (int64_t k = 0; k < p.n_load; k++)
        memcpy(f->ld + k * d, feat + p.load_ids[k] * d, sizeof(float) * (size_t)d);
    /* the rows read and written; the ids read, the sorted (id, row) pairs, from and load_ids */
    work->bytes = 2.0 * (double)nc * (double)d * 4.0 + (double)(np + nc) * 8.0 + (double)np * 16.0 +
                  (double)(nc + p.n_load) * 8.0;
    work->items = (double)nc;
    work->items_name = "rows/s";
    gnn_free(feat);
    gnn_match_plan_free(&p);
    return GNN_OK;
}

static gnn_status reorder_setup(const gnn_oracle_case *c, int what, void **fixture, gnn_oracle_work *work)
{
    reorder_fixture *f = gnn_calloc(1, sizeof *f);
    if (!f)
        return GNN_ERR_NOMEM;
    f->ops = c->impl->ops;
    f->what = what;
    f->norm = (gnn_match_norm)gnn_oracle_int(c, P_NORM);
    f->d = gnn_oracle_int(c, P_D);
    const int64_t n = gnn_oracle_int(c, P_N), U = gnn_oracle_int(c, P_U), window = gnn_oracle_int(c, P_WINDOW);
    f->q.s = gnn_calloc((size_t)n + 1, sizeof(int64_t *));
    f->q.len = gnn_calloc((size_t)n + 1, sizeof(int64_t));
    int64_t *pool = gnn_malloc(sizeof(int64_t) * (size_t)U);
    gnn_status s = !f->q.s || !f->q.len || !pool || draw_sets(c, &f->q, pool, heap_alloc, NULL) ? GNN_ERR_NOMEM
                                                                                                  : GNN_OK;
    gnn_free(pool);
    const int64_t *const *sp = (const int64_t *const *)f->q.s;
    int64_t total = 0;
    for (int64_t i = 0; !s && i < n; i++)
        total += f->q.len[i];
    if (!s && what == B_DEGREE) {
        if (!(f->overlap = gnn_malloc(sizeof(int64_t) * (size_t)(n * n + 1))))
            s = GNN_ERR_NOMEM;
        /* each pair's merge reads both sorted sets; the sets copied and sorted; the matrix */
        work->bytes = (double)(n > 0 ? n - 1 : 0) * (double)total * 8.0 + 2.0 * (double)total * 8.0 +
                      (double)(n * n) * 8.0;
        work->items = (double)n * (double)(n > 0 ? n - 1 : 0) / 2.0;
        work->items_name = "pairs/s";
    } else if (!s && what == B_ORDER) {
        const int64_t m = f->m = window == 0 || window > n ? n : window;
        f->overlap = gnn_malloc(sizeof(int64_t) * (size_t)(m * m + 1));
        f->order = gnn_malloc(sizeof(int64_t) * (size_t)(m + 1));
        s = !f->overlap || !f->order ? GNN_ERR_NOMEM : gnn_match_degree(&gnn_reorder_ref, sp, f->q.len, m, f->overlap);
        /* each greedy step reads its batch's row and the diagonal (the set sizes); the order */
        work->bytes = 2.0 * (double)(m * m) * 8.0 + (double)m * 8.0;
        work->items = (double)m * (double)(m > 0 ? m - 1 : 0) / 2.0;
        work->items_name = "pairs/s";
    } else if (!s) {
        s = assemble_inputs(c, f, work);
    }
    if (s) {
        reorder_teardown(f);
        return s;
    }
    *fixture = f;
    return GNN_OK;
}

static gnn_status degree_bench_setup(const gnn_oracle_case *c, void **fx, gnn_oracle_work *w)
{
    return reorder_setup(c, B_DEGREE, fx, w);
}
static gnn_status order_bench_setup(const gnn_oracle_case *c, void **fx, gnn_oracle_work *w)
{
    return reorder_setup(c, B_ORDER, fx, w);
}
static gnn_status assemble_bench_setup(const gnn_oracle_case *c, void **fx, gnn_oracle_work *w)
{
    return reorder_setup(c, B_ASSEMBLE, fx, w);
}

static gnn_status reorder_bench_run(void *p)
{
    reorder_fixture *f = p;
    const int64_t *const *sp = (const int64_t *const *)f->q.s;
    if (f->what == B_DEGREE)
        return gnn_match_degree(f->ops, sp, f->q.len, f->q.n, f->overlap);
    if (f->what == B_ORDER)
        return gnn_greedy_reorder(f->ops, f->overlap, f->m, f->norm, f->order);
    gnn_match_plan plan;
    gnn_status s = gnn_match_plan_build(f->ops, sp[0], f->q.len[0], sp[1], f->q.len[1], &plan);
    if (!s)
        s = gnn_match_assemble(f->ops, &plan, f->px, f->ld, f->d, f->x);
    gnn_match_plan_free(&plan);
    return s;
}

/* degree: a window of 64 batches whose input sets hold 8,000 to 12,000 of 100,000 ids, and 256
 * smaller batches (the pairs grow as n^2); order: 1,536 batches, past the 1,024 from which cpu
 * splits each step's argmax over the threads; assemble: two batches of 50,000 input rows of 128
 * floats that share about half their ids (FastGL's Table 4: 35-93%). The oracle runs each size
 * first, with its stamp-count verifier (n^2 set scans): under a second per case here. */
static const char *const k_degree_bench_sizes[] = {
    "n=64,size=8000..12000,U=100000,kind=0,norm=0,window=0,d=0",
    "n=256,size=500..1500,U=20000,kind=0,norm=0,window=0,d=0",
    NULL,
};
static const char *const k_order_bench_sizes[] = {
    "n=1536,size=10..30,U=300,kind=0,norm=0,window=0,d=0",
    NULL,
};
static const char *const k_assemble_bench_sizes[] = {
    "n=2,size=50000..50000,U=100000,kind=0,norm=0,window=0,d=128",
    NULL,
};
static const gnn_oracle_bench k_degree_bench = { k_degree_bench_sizes, degree_bench_setup, reorder_bench_run,
                                                 reorder_teardown };
static const gnn_oracle_bench k_order_bench = { k_order_bench_sizes, order_bench_setup, reorder_bench_run,
                                                reorder_teardown };
static const gnn_oracle_bench k_assemble_bench = { k_assemble_bench_sizes, assemble_bench_setup, reorder_bench_run,
                                                   reorder_teardown };

const gnn_oracle_entry gnn_oracle_reorder_degree = {
    .name = "reorder.degree",
    .what = "FastGL match degree: the n x n overlap counts of the window's input sets, ref vs impl, and ref against "
            "stamp counts",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "exact integer counts",
    .params = k_params, .n_params = N_PARAMS, .presets = k_presets,
    .ref = &k_ref, .impls = k_impls, .run = degree_run, .bench = &k_degree_bench,
};

const gnn_oracle_entry gnn_oracle_reorder_order = {
    .name = "reorder.order",
    .what = "FastGL Algorithm 1 (greedy reorder with the fixes) per window, ref vs impl, and ref verified: a "
            "permutation, each pick a maximum by the rule",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "degrees compared as exact rationals, ties to the smallest index: a total order",
    .params = k_params, .n_params = N_PARAMS, .presets = k_presets,
    .ref = &k_ref, .impls = k_impls, .run = order_run, .bench = &k_order_bench,
};

const gnn_oracle_entry gnn_oracle_reorder_assemble = {
    .name = "reorder.assemble",
    .what = "FastGL Match: plans ref vs impl, assembled input rows bitwise a plain gather, rows loaded exactly "
            "|S_cur \\ S_prev|",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "rows are copied bytes",
    .params = k_params, .n_params = N_PARAMS, .presets = k_presets,
    .ref = &k_ref, .impls = k_impls, .run = assemble_run, .bench = &k_assemble_bench,
};
