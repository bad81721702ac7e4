/* oracle/op_sample.c -- oracle entries for neighbor sampling and block construction
 * (include/gnnref/sample.h, DESIGN.md section 2 "Uses" and "Orders").
 *
 *   sample.uniform       verify: properties every correct sampler has, checked without
 *                        re-running the sampler's algorithm (see sample_run);
 *   sample.uniform.dist  chisq: over many steps each neighbor of a dst with degree d is
 *                        drawn with probability k/d (Pearson chi-square, exact variance
 *                        of sampling without replacement);
 *   sample.weighted      verify: weighted sampling (gnn_sample_params.weights), with and
 *                        without replacement: counts, positive-weight neighbors only, no
 *                        repeats, determinism;
 *   sample.weighted.dist chisq: with replacement each draw is neighbor i with probability
 *                        w_i / W; without, each k-set has its successive-sampling
 *                        probability (k = 1: w_i / W);
 *   block.build          verify: DGL to_block order (dst first in seed order, unique src,
 *                        new src in order of first appearance, edges round-trip to the
 *                        sampled global ids, duplicate seeds rejected). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/oracle.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"

static const gnn_oracle_impl k_sample_ref = { .name = "ref", .ops = &gnn_sample_ref, .flags = 0 };
static const gnn_oracle_impl *const k_sample_impls[] = { &k_sample_ref, NULL };
/* Weighted: the reference is gnn_sample_weighted_ref itself; "ref-dispatch" is gnn_sample_ref,
 * whose gnn_sample_uniform_ref must hand weighted parameters to it (sample.h). */
static const gnn_sample_ops k_weighted_ref_ops = { "ref", gnn_sample_weighted_ref, gnn_block_build_ref };
static const gnn_oracle_impl k_weighted_ref = { .name = "ref", .ops = &k_weighted_ref_ops, .flags = 0 };
static const gnn_oracle_impl k_weighted_dispatch = { .name = "ref-dispatch", .ops = &gnn_sample_ref, .flags = 0 };
static const gnn_oracle_impl *const k_weighted_impls[] = { &k_weighted_ref, &k_weighted_dispatch, NULL };
static const gnn_oracle_impl *const k_weighted_dist_impls[] = { &k_weighted_ref, NULL };

static void free_sampled(void *p) { gnn_sampled_free(p); }
static void free_block(void *p) { gnn_block_free(p); }

/* A graph in the case's arena: vertex v has a degree uniform in [deg_lo, min(deg_hi, n)],
 * distinct neighbors drawn uniformly (rejection against a stamp array), stored in draw order
 * (rows are deliberately NOT sorted: "all neighbors in CSR order" must mean CSR order). */
static gnn_status random_graph(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int64_t n, int64_t deg_lo,
                               int64_t deg_hi, gnn_csr *g)
{
    memset(g, 0, sizeof *g);
    gnn_oracle_draws dd = gnn_oracle_draws_make(c, 1), dn = gnn_oracle_draws_make(c, 2);
    g->n = n;
    g->indptr = gnn_oracle_alloc(ctx, ((size_t)n + 1) * sizeof(int64_t));
    int64_t *stamp = gnn_oracle_alloc(ctx, (size_t)n * sizeof(int64_t));
    if (!g->indptr || !stamp)
        return GNN_ERR_NOMEM;
    const int64_t hi = deg_hi < n ? deg_hi : n, lo = deg_lo < hi ? deg_lo : hi;
    for (int64_t v = 0; v < n; v++)
        g->indptr[v + 1] = g->indptr[v] + gnn_oracle_draw_range(&dd, lo, hi);
    g->nnz = g->indptr[n];
    g->indices = gnn_oracle_alloc(ctx, (size_t)g->nnz * sizeof(int64_t));
    if (!g->indices)
        return GNN_ERR_NOMEM;
    for (int64_t v = 0; v < n; v++)
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
            int64_t u;
            do
                u = (int64_t)gnn_oracle_draw_uint(&dn, (uint64_t)n);
            while (stamp[u] == v + 1);
            stamp[u] = v + 1;
            g->indices[e] = u;
        }
    return GNN_OK;
}

/* ---- sample.uniform ------------------------------------------------------------------------- */

enum { S_N, S_DEG, S_SEEDS, S_FANOUT, S_REPLACE, S_STEP, S_LAYER, N_S_PARAMS };
static const gnn_oracle_param k_s_params[N_S_PARAMS] = {
    { "n", GNN_PARAM_INT, 1, 1e7, "vertices" },
    { "deg", GNN_PARAM_RANGE, 0, 1e6, "in-degree of each vertex, uniform in LO..HI (at most n)" },
    { "seeds", GNN_PARAM_INT, 0, 1e7, "distinct dst vertices sampled (<= n)" },
    { "fanout", GNN_PARAM_INT, -1, 1e6, "k; -1 = all neighbors" },
    { "replace", GNN_PARAM_INT, 0, 1, "1: with replacement" },
    { "step", GNN_PARAM_INT, 0, 4294967295.0, "global iteration (stream step)" },
    { "layer", GNN_PARAM_INT, 0, 255, "model layer (stream layer)" },
};
/* zero-degree vertices, fanout > degree, the empty batch, a single seed, fanout 0, all
 * neighbors, with replacement (also at degree 0), large degrees */
static const char *const k_s_presets[] = {
    "n=100,deg=0..12,seeds=30,fanout=5,replace=0,step=3,layer=1",
    "n=10,deg=3..3,seeds=1,fanout=10,replace=0,step=0,layer=0",
    "n=20,deg=0..5,seeds=0,fanout=3,replace=0,step=1,layer=0",
    "n=30,deg=0..8,seeds=30,fanout=-1,replace=0,step=2,layer=2",
    "n=40,deg=5..9,seeds=10,fanout=0,replace=0,step=5,layer=0",
    "n=50,deg=0..10,seeds=20,fanout=4,replace=1,step=0,layer=0",
    "n=1,deg=0..0,seeds=1,fanout=3,replace=1,step=0,layer=0",
    "n=400,deg=50..200,seeds=64,fanout=25,replace=0,step=77,layer=3",
    "n=30,deg=0..4,seeds=20,fanout=9,replace=1,step=4,layer=1",
    "n=30,deg=0..8,seeds=30,fanout=-1,replace=1,step=6,layer=0",
    "n=40,deg=5..9,seeds=10,fanout=0,replace=1,step=5,layer=0",
    "n=400,deg=50..200,seeds=64,fanout=25,replace=1,step=78,layer=2",
    NULL,
};

static int64_t expected_count(int64_t d, int64_t k, int replace)
{
    if (k < 0)
        return d;
    if (replace)
        return d > 0 ? k : 0;
    return d < k ? d : k;
}

static gnn_oracle_outcome sample_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_sample_ops *ops = c->impl->ops;
    const int64_t n = gnn_oracle_int(c, S_N), n_seeds = gnn_oracle_int(c, S_SEEDS);
    if (n_seeds > n)
        return gnn_oracle_fail(ctx, "invalid case: seeds=%lld > n=%lld (seeds are distinct)", (long long)n_seeds,
                               (long long)n);
    gnn_csr g;
    if (random_graph(ctx, c, n, gnn_oracle_lo(c, S_DEG), gnn_oracle_hi(c, S_DEG), &g))
        return gnn_oracle_fail(ctx, "out of memory");
    /* seeds: a partial Fisher-Yates of 0..n-1 (distinct, random order) */
    int64_t *perm = gnn_oracle_alloc(ctx, (size_t)n * sizeof(int64_t));
    int64_t *mark = gnn_oracle_alloc(ctx, (size_t)n * sizeof(int64_t));
    if (!perm || !mark)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws gs = gnn_oracle_draws_make(c, 3);
    for (int64_t i = 0; i < n; i++)
        perm[i] = i;
    for (int64_t i = 0; i < n_seeds; i++) {
        int64_t j = gnn_oracle_draw_range(&gs, i, n - 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    const int64_t *seeds = perm;
    const gnn_sample_params p = {
        .fanout = gnn_oracle_int(c, S_FANOUT),
        .replace = (int)gnn_oracle_int(c, S_REPLACE),
        .seed = c->seed * 0x9E3779B97F4A7C15ull + 7, /* the model seed under test */
        .step = (uint32_t)gnn_oracle_int(c, S_STEP),
        .layer = (unsigned)gnn_oracle_int(c, S_LAYER),
    };
    gnn_sampled *s = gnn_oracle_alloc(ctx, sizeof *s), *s2 = gnn_oracle_alloc(ctx, sizeof *s2);
    if (!s || !s2)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_outcome o = gnn_oracle_status(ctx, "uniform", ops->sample(&g, seeds, n_seeds, &p, s));
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_defer(ctx, free_sampled, s);
    if ((o = gnn_oracle_status(ctx, "uniform (second call)", ops->sample(&g, seeds, n_seeds, &p, s2))) != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_defer(ctx, free_sampled, s2);
    gnn_oracle_digest(ctx, s->offsets, ((size_t)s->n_dst + 1) * sizeof(int64_t));
    gnn_oracle_digest(ctx, s->nbr_gid, (size_t)s->nnz * sizeof(int64_t));

    /* 1. shape: the seeds in order, offsets from 0, count = min(k, d) (k with replacement) */
    if (s->n_dst != n_seeds)
        return gnn_oracle_fail(ctx, "n_dst = %lld, expected %lld seeds", (long long)s->n_dst, (long long)n_seeds);
    if (s->offsets[0] != 0)
        return gnn_oracle_fail(ctx, "offsets[0] = %lld, expected 0", (long long)s->offsets[0]);
    for (int64_t i = 0; i < n_seeds; i++) {
        const int64_t v = seeds[i], d = gnn_csr_degree(&g, v);
        const int64_t want = expected_count(d, p.fanout, p.replace), got = s->offsets[i + 1] - s->offsets[i];
        if (s->dst_gid[i] != v)
            return gnn_oracle_fail(ctx, "dst_gid[%lld] = %lld, expected seed %lld", (long long)i,
                                   (long long)s->dst_gid[i], (long long)v);
        if (got != want)
            return gnn_oracle_fail(ctx, "dst %lld (vertex %lld, degree %lld): %lld samples, expected %lld", (long long)i,
                                   (long long)v, (long long)d, (long long)got, (long long)want);
    }
    if (s->nnz != s->offsets[n_seeds])
        return gnn_oracle_fail(ctx, "nnz = %lld but offsets end at %lld", (long long)s->nnz, (long long)s->offsets[n_seeds]);
    /* 2. per dst: every sample is a neighbor; no repeats without replacement; d <= k gives the
     *    row in CSR order; the draws that the spec pins down directly are the ones made */
    for (int64_t i = 0; i < n_seeds; i++) {
        const int64_t v = seeds[i], d = gnn_csr_degree(&g, v);
        const int64_t *adj = g.indices + g.indptr[v];
        const int64_t *smp = s->nbr_gid + s->offsets[i];
        const int64_t k = s->offsets[i + 1] - s->offsets[i];
        const int64_t tag = 2 * i + 1; /* mark[u] == tag: u is a neighbor of v; tag + 1: already drawn */
        for (int64_t j = 0; j < d; j++)
            mark[adj[j]] = tag;
        const gnn_rng_stream st = gnn_rng_stream_make(p.seed, GNN_TAG_SAMPLE, p.step, p.layer, (uint64_t)v);
        for (int64_t j = 0; j < k; j++) {
            const int64_t u = smp[j];
            if (u < 0 || u >= n || (mark[u] != tag && mark[u] != tag + 1))
                return gnn_oracle_fail(ctx, "dst %lld (vertex %lld): sample %lld = %lld is not a neighbor", (long long)i,
                                       (long long)v, (long long)j, (long long)u);
            if (!p.replace || p.fanout < 0) {
                if (mark[u] == tag + 1)
                    return gnn_oracle_fail(ctx, "dst %lld (vertex %lld): neighbor %lld drawn twice without replacement",
                                           (long long)i, (long long)v, (long long)u);
                mark[u] = tag + 1;
            }
            if (p.replace && p.fanout >= 0 && u != adj[gnn_rng_uint(&st, (uint64_t)j, (uint64_t)d)])
                return gnn_oracle_fail(ctx, "dst %lld (vertex %lld): with replacement draw %lld must be "
                                       "adj[uint(d) of draw %lld] (DESIGN.md section 2)", (long long)i, (long long)v,
                                       (long long)j, (long long)j);
        }
        if (!p.replace || p.fanout < 0) {
            if (k == d) {
                for (int64_t j = 0; j < d; j++)
                    if (smp[j] != adj[j])
                        return gnn_oracle_fail(ctx, "dst %lld (vertex %lld): d <= k must give the row in CSR order; "
                                               "position %lld is %lld, CSR has %lld", (long long)i, (long long)v,
                                               (long long)j, (long long)smp[j], (long long)adj[j]);
            } else if (k > 0 && smp[0] != adj[gnn_rng_uint(&st, 0, (uint64_t)d)]) {
                /* partial Fisher-Yates: the first output is position uint(d) of draw 0 */
                return gnn_oracle_fail(ctx, "dst %lld (vertex %lld): the first sample must be adj[uint(d) of draw 0]",
                                       (long long)i, (long long)v);
            }
        }
    }
    /* 3. determinism: the same inputs give the same output */
    if (s2->n_dst != s->n_dst || s2->nnz != s->nnz)
        return gnn_oracle_fail(ctx, "a second call with the same inputs gives different sizes");
    o = gnn_oracle_compare_int(ctx, "offsets (second call)", s->offsets, s2->offsets, s->n_dst + 1, 8);
    return gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "nbr_gid (second call)", s->nbr_gid, s2->nbr_gid, s->nnz, 8));
}

const gnn_oracle_entry gnn_oracle_sample_uniform = {
    .name = "sample.uniform",
    .what = "uniform neighbor sampling: counts, membership, no repeats, CSR order when d <= k, pinned draws, determinism",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "structure: exact",
    .params = k_s_params, .n_params = N_S_PARAMS, .presets = k_s_presets,
    .ref = &k_sample_ref, .impls = k_sample_impls, .run = sample_run,
};

/* ---- sample.uniform.dist --------------------------------------------------------------------
 * verts dst vertices of degree d each, sampled at steps 0..steps-1. Neighbor j of v is drawn
 * in a step with probability k/d; over T steps its count O has mean E = T k / d. Without
 * replacement the counts of one vertex are negatively correlated (they sum to T k): the
 * per-step covariance is c (I - J/d) with c = k (d - k) / (d (d - 1)), so
 *     X^2 = sum_j (O_j - E)^2 / (T c) = sum_j (O_j - E)^2 / (E (d - k) / (d - 1))
 * is asymptotically chi-square with d - 1 degrees of freedom (the plain Pearson statistic
 * would be too small by (d - k) / (d - 1) and the test too lenient). With replacement
 * c = k / d and X^2 is the plain Pearson statistic. Vertices are independent: their X^2 and
 * degrees of freedom add. The seed is fixed by the case, so the outcome is deterministic. */

enum { C_DEG, C_FANOUT, C_REPLACE, C_VERTS, C_STEPS, N_C_PARAMS };
static const gnn_oracle_param k_c_params[N_C_PARAMS] = {
    { "deg", GNN_PARAM_INT, 2, 1e5, "degree of every sampled vertex" },
    { "fanout", GNN_PARAM_INT, 1, 1e5, "k" },
    { "replace", GNN_PARAM_INT, 0, 1, "1: with replacement" },
    { "verts", GNN_PARAM_INT, 1, 1e5, "vertices sampled per step" },
    { "steps", GNN_PARAM_INT, 1, 1e7, "steps (independent streams)" },
};
static const char *const k_c_presets[] = {
    "deg=5,fanout=2,replace=0,verts=8,steps=2000",
    "deg=10,fanout=3,replace=0,verts=8,steps=1500",
    "deg=17,fanout=16,replace=0,verts=4,steps=2000",
    "deg=3,fanout=1,replace=0,verts=16,steps=1000",
    "deg=64,fanout=10,replace=0,verts=4,steps=2000",
    "deg=8,fanout=3,replace=1,verts=8,steps=1500",
    NULL,
};

static gnn_oracle_outcome dist_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_sample_ops *ops = c->impl->ops;
    const int64_t d = gnn_oracle_int(c, C_DEG), fanout = gnn_oracle_int(c, C_FANOUT);
    const int replace = (int)gnn_oracle_int(c, C_REPLACE);
    const int64_t verts = gnn_oracle_int(c, C_VERTS), steps = gnn_oracle_int(c, C_STEPS);
    const int64_t k = replace ? fanout : (fanout < d ? fanout : d);
    /* graph: vertex v < verts has neighbors verts + perm_v(0..d-1); the others have none */
    const int64_t n = verts + d;
    gnn_csr g = { .n = n, .nnz = verts * d };
    g.indptr = gnn_oracle_alloc(ctx, ((size_t)n + 1) * sizeof(int64_t));
    g.indices = gnn_oracle_alloc(ctx, (size_t)(verts * d) * sizeof(int64_t));
    int64_t *seeds = gnn_oracle_alloc(ctx, (size_t)verts * sizeof(int64_t));
    int64_t *pos = gnn_oracle_alloc(ctx, (size_t)(verts * d) * sizeof(int64_t)); /* (verts, d): gid - verts -> position */
    double *count = gnn_oracle_alloc(ctx, (size_t)(verts * d) * sizeof(double));  /* (verts, d) by position */
    if (!g.indptr || !g.indices || !seeds || !pos || !count)
        return gnn_oracle_fail(ctx, "out of memory");
    for (int64_t v = 0; v <= n; v++)
        g.indptr[v] = (v < verts ? v : verts) * d;
    for (int64_t v = 0; v < verts; v++) {
        int64_t *adj = g.indices + v * d;
        for (int64_t j = 0; j < d; j++)
            adj[j] = verts + j;
        gnn_oracle_draws gp = gnn_oracle_draws_make(c, 16 + (uint64_t)v); /* one stream per vertex */
        gnn_rng_shuffle_i64(&gp.s, adj, d);
        for (int64_t j = 0; j < d; j++)
            pos[v * d + (adj[j] - verts)] = j;
        seeds[v] = v;
    }
    for (int64_t t = 0; t < steps; t++) {
        gnn_sample_params p = { .fanout = fanout, .replace = replace, .seed = c->seed * 0x9E3779B97F4A7C15ull + 11,
                                .step = (uint32_t)t, .layer = 0 };
        gnn_sampled s;
        gnn_oracle_outcome o = gnn_oracle_status(ctx, "uniform", ops->sample(&g, seeds, verts, &p, &s));
        if (o != GNN_ORACLE_PASS)
            return o;
        int bad = s.n_dst != verts || s.offsets[verts] != verts * k;
        for (int64_t v = 0; v < verts && !bad; v++) {
            bad |= s.offsets[v + 1] - s.offsets[v] != k;
            for (int64_t e = s.offsets[v]; e < s.offsets[v + 1] && !bad; e++) {
                const int64_t u = s.nbr_gid[e] - verts;
                bad |= u < 0 || u >= d;
                if (!bad)
                    count[v * d + pos[v * d + u]] += 1.0;
            }
        }
        gnn_oracle_digest(ctx, s.nbr_gid, (size_t)s.nnz * sizeof(int64_t));
        gnn_sampled_free(&s);
        if (bad)
            return gnn_oracle_fail(ctx, "step %lld: the sample is not %lld neighbors of each of the %lld vertices",
                                   (long long)t, (long long)k, (long long)verts);
    }
    const double E = (double)steps * (double)k / (double)d;
    if (!replace && k >= d) { /* every neighbor every time: nothing random to test */
        for (int64_t i = 0; i < verts * d; i++)
            if (count[i] != (double)steps)
                return gnn_oracle_fail(ctx, "fanout >= degree: neighbor %lld drawn %.0f times in %lld steps", (long long)i,
                                       count[i], (long long)steps);
        return GNN_ORACLE_PASS;
    }
    const double var = replace ? E : E * (double)(d - k) / (double)(d - 1);
    double x2 = 0;
    for (int64_t i = 0; i < verts * d; i++)
        x2 += (count[i] - E) * (count[i] - E) / var;
    return gnn_oracle_chisq_check(ctx, "neighbor counts", x2, (double)(verts * (d - 1)), gnn_oracle_ctx_tol(ctx)->a);
}

const gnn_oracle_entry gnn_oracle_sample_uniform_dist = {
    .name = "sample.uniform.dist",
    .what = "each neighbor is drawn with probability k/d over many steps (chi-square per vertex, summed)",
    .tol = { GNN_CMP_CHISQ, 1e-4, 0 },
    .reason = "statistical: a fixed seed makes it deterministic; 1e-4 false alarms per case if the streams were random",
    .params = k_c_params, .n_params = N_C_PARAMS, .presets = k_c_presets,
    .ref = &k_sample_ref, .impls = k_sample_impls, .run = dist_run,
};

/* ---- block.build ----------------------------------------------------------------------------- */

enum { B_NDST, B_GIDS, B_DEG, B_DUP, N_B_PARAMS };
static const gnn_oracle_param k_b_params[N_B_PARAMS] = {
    { "n_dst", GNN_PARAM_INT, 0, 1e7, "seeds (dst vertices)" },
    { "gids", GNN_PARAM_INT, 1, 4e18, "global ids are drawn from [0, gids)" },
    { "deg", GNN_PARAM_RANGE, 0, 1e6, "samples per dst, uniform in LO..HI (repeats allowed)" },
    { "dup", GNN_PARAM_INT, 0, 1, "1: the last seed repeats the first (must be rejected)" },
};
static const char *const k_b_presets[] = {
    "n_dst=30,gids=100,deg=0..10,dup=0",
    "n_dst=1,gids=1,deg=3..3,dup=0",
    "n_dst=0,gids=10,deg=0..5,dup=0",
    "n_dst=50,gids=60,deg=0..20,dup=0",
    "n_dst=5,gids=5,deg=0..0,dup=0",
    "n_dst=200,gids=1000000000000,deg=5..15,dup=0",
    "n_dst=10,gids=50,deg=1..4,dup=1",
    NULL,
};

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

typedef struct gid_first {
    int64_t gid, first; /* first position in nbr_gid */
} gid_first;

static int cmp_gid_first(const void *a, const void *b)
{
    const gid_first *x = a, *y = b;
    if (x->gid != y->gid)
        return (x->gid > y->gid) - (x->gid < y->gid);
    return (x->first > y->first) - (x->first < y->first);
}

static gnn_oracle_outcome build_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_sample_ops *ops = c->impl->ops;
    const int64_t n_dst = gnn_oracle_int(c, B_NDST), gids = gnn_oracle_int(c, B_GIDS);
    const int dup = (int)gnn_oracle_int(c, B_DUP);
    if (n_dst > gids || (dup && n_dst < 2))
        return gnn_oracle_fail(ctx, "invalid case: need n_dst <= gids (and n_dst >= 2 with dup=1)");
    /* a synthetic sampled list: distinct seeds (rejection on a sorted check), samples uniform */
    gnn_sampled s = { .n_dst = n_dst };
    s.dst_gid = gnn_oracle_alloc(ctx, (size_t)n_dst * sizeof(int64_t));
    s.offsets = gnn_oracle_alloc(ctx, ((size_t)n_dst + 1) * sizeof(int64_t));
    int64_t *sorted = gnn_oracle_alloc(ctx, (size_t)n_dst * sizeof(int64_t));
    if (!s.dst_gid || !s.offsets || !sorted)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws gd = gnn_oracle_draws_make(c, 1), gn = gnn_oracle_draws_make(c, 2);
    for (int64_t i = 0; i < n_dst; i++) {
        int fresh;
        do { /* distinct: n_dst <= gids and the sets are small */
            s.dst_gid[i] = (int64_t)gnn_oracle_draw_uint(&gd, (uint64_t)gids);
            fresh = 1;
            for (int64_t j = 0; j < i && fresh; j++)
                fresh = s.dst_gid[j] != s.dst_gid[i];
        } while (!fresh);
    }
    if (dup)
        s.dst_gid[n_dst - 1] = s.dst_gid[0];
    for (int64_t i = 0; i < n_dst; i++)
        s.offsets[i + 1] = s.offsets[i] + gnn_oracle_draw_range(&gn, gnn_oracle_lo(c, B_DEG), gnn_oracle_hi(c, B_DEG));
    s.nnz = s.offsets[n_dst];
    s.nbr_gid = gnn_oracle_alloc(ctx, (size_t)s.nnz * sizeof(int64_t));
    if (!s.nbr_gid)
        return gnn_oracle_fail(ctx, "out of memory");
    for (int64_t e = 0; e < s.nnz; e++) /* a third of the samples hit a seed (as in real blocks) */
        s.nbr_gid[e] = (n_dst > 0 && gnn_oracle_draw_uint(&gn, 3) == 0)
                           ? s.dst_gid[gnn_oracle_draw_uint(&gn, (uint64_t)n_dst)]
                           : (int64_t)gnn_oracle_draw_uint(&gn, (uint64_t)gids);

    gnn_block *b = gnn_oracle_alloc(ctx, sizeof *b), *b2 = gnn_oracle_alloc(ctx, sizeof *b2);
    if (!b || !b2)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_status st = ops->build(&s, b);
    if (st == GNN_OK)
        gnn_oracle_defer(ctx, free_block, b);
    if (dup) {
        if (st == GNN_ERR_INVAL)
            return GNN_ORACLE_PASS;
        return gnn_oracle_fail(ctx, "a repeated seed (dst_gid[%lld] = dst_gid[0] = %lld) must give %s, got %s",
                               (long long)(n_dst - 1), (long long)s.dst_gid[0], gnn_status_str(GNN_ERR_INVAL),
                               gnn_status_str(st));
    }
    gnn_oracle_outcome o = gnn_oracle_status(ctx, "build", st);
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, b->src_gid, (size_t)b->n_src * sizeof(int64_t));
    gnn_oracle_digest(ctx, b->indices, (size_t)b->nnz * sizeof(int32_t));
    gnn_err err;
    if (gnn_block_validate(b, &err) != GNN_OK)
        return gnn_oracle_fail(ctx, "invalid block: %s", err.msg);
    /* 1. sizes and dst prefix */
    if (b->n_dst != n_dst || b->nnz != s.nnz)
        return gnn_oracle_fail(ctx, "block n_dst=%lld nnz=%lld, expected %lld and %lld", (long long)b->n_dst,
                               (long long)b->nnz, (long long)n_dst, (long long)s.nnz);
    for (int64_t i = 0; i < n_dst; i++)
        if (b->src_gid[i] != s.dst_gid[i])
            return gnn_oracle_fail(ctx, "src_gid[%lld] = %lld: the first n_dst src must be the seeds in order (%lld)",
                                   (long long)i, (long long)b->src_gid[i], (long long)s.dst_gid[i]);
    /* 2. edges: CSC offsets equal the sampled offsets, and each edge maps back to its global id */
    for (int64_t i = 0; i <= n_dst; i++)
        if (b->indptr[i] != s.offsets[i])
            return gnn_oracle_fail(ctx, "indptr[%lld] = %lld, sampled offsets %lld", (long long)i, (long long)b->indptr[i],
                                   (long long)s.offsets[i]);
    for (int64_t e = 0; e < s.nnz; e++)
        if (b->src_gid[b->indices[e]] != s.nbr_gid[e])
            return gnn_oracle_fail(ctx, "edge %lld: src_gid[indices[e] = %d] = %lld but the sample was %lld", (long long)e,
                                   b->indices[e], (long long)b->src_gid[b->indices[e]], (long long)s.nbr_gid[e]);
    /* 3. src unique: sort a copy */
    int64_t *ids = gnn_oracle_alloc(ctx, (size_t)b->n_src * sizeof(int64_t));
    gid_first *firsts = gnn_oracle_alloc(ctx, (size_t)s.nnz * sizeof(gid_first));
    if (!ids || !firsts)
        return gnn_oracle_fail(ctx, "out of memory");
    memcpy(ids, b->src_gid, (size_t)b->n_src * sizeof(int64_t));
    qsort(ids, (size_t)b->n_src, sizeof(int64_t), cmp_i64);
    for (int64_t i = 1; i < b->n_src; i++)
        if (ids[i] == ids[i - 1])
            return gnn_oracle_fail(ctx, "src vertex %lld appears twice", (long long)ids[i]);
    /* 4. new src in order of first appearance: sort (gid, position) pairs of the samples; the
     *    first pair of each gid is its first appearance; those positions must increase along
     *    src n_dst, n_dst + 1, ... and every sampled gid that is not a seed must be there */
    for (int64_t e = 0; e < s.nnz; e++)
        firsts[e] = (gid_first){ s.nbr_gid[e], e };
    qsort(firsts, (size_t)s.nnz, sizeof *firsts, cmp_gid_first);
    memcpy(sorted, s.dst_gid, (size_t)n_dst * sizeof(int64_t));
    qsort(sorted, (size_t)n_dst, sizeof(int64_t), cmp_i64);
    int64_t distinct_new = 0;
    for (int64_t e = 0; e < s.nnz; e++)
        if ((e == 0 || firsts[e].gid != firsts[e - 1].gid) &&
            !bsearch(&firsts[e].gid, sorted, (size_t)n_dst, sizeof(int64_t), cmp_i64))
            distinct_new++;
    if (b->n_src != n_dst + distinct_new)
        return gnn_oracle_fail(ctx, "n_src = %lld, expected %lld seeds + %lld distinct new sampled vertices",
                               (long long)b->n_src, (long long)n_dst, (long long)distinct_new);
    int64_t prev = -1;
    for (int64_t p = n_dst; p < b->n_src; p++) {
        gid_first key = { b->src_gid[p], -1 };
        /* lower bound: the first pair with this gid */
        size_t lo = 0, hi = (size_t)s.nnz;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (cmp_gid_first(&firsts[mid], &key) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == (size_t)s.nnz || firsts[lo].gid != key.gid)
            return gnn_oracle_fail(ctx, "src %lld (gid %lld) was never sampled", (long long)p, (long long)key.gid);
        if (firsts[lo].first <= prev)
            return gnn_oracle_fail(ctx, "src %lld (gid %lld) first appears at sample %lld, before src %lld's (%lld): "
                                   "new src must be in order of first appearance", (long long)p, (long long)key.gid,
                                   (long long)firsts[lo].first, (long long)(p - 1), (long long)prev);
        prev = firsts[lo].first;
    }
    /* 5. determinism */
    if ((o = gnn_oracle_status(ctx, "build (second call)", ops->build(&s, b2))) != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_defer(ctx, free_block, b2);
    return gnn_oracle_compare_block(ctx, GNN_CMP_BITWISE, "block (second call)", b, b2);
}

const gnn_oracle_entry gnn_oracle_block_build = {
    .name = "block.build",
    .what = "to_block order: dst first in seed order, unique src, first-appearance order, edge round trip",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "structure: exact",
    .params = k_b_params, .n_params = N_B_PARAMS, .presets = k_b_presets,
    .ref = &k_sample_ref, .impls = k_sample_impls, .run = build_run,
};

/* ---- sample.weighted ------------------------------------------------------------------------
 * Weighted sampling (gnn_sample_params.weights; docs/sampling.md): gnn_sample_weighted_ref,
 * and gnn_sample_ref with weights set ("ref-dispatch": gnn_sample_uniform_ref must hand it on). Weights are per edge, drawn per case from stream 4: zero with probability
 * zeros/100 (so whole rows can be all-zero), else (1/4 + u) * 2^e with e in [-8, 8]. The
 * checks do not re-run the method, they check what every correct weighted sampler satisfies:
 * a sample count of min(k, #positive) without replacement (all positive-weight neighbors for
 * k < 0), k with replacement (0 when no weight is positive); every sample is a neighbor of
 * positive weight; no repeats without replacement; a second call gives the same bits; the
 * weights are left as they were. The distribution is sample.weighted.dist's job. */

enum { W_N, W_DEG, W_SEEDS, W_FANOUT, W_REPLACE, W_ZEROS, W_STEP, W_LAYER, N_W_PARAMS };
static const gnn_oracle_param k_w_params[N_W_PARAMS] = {
    { "n", GNN_PARAM_INT, 1, 1e7, "vertices" },
    { "deg", GNN_PARAM_RANGE, 0, 1e6, "in-degree of each vertex, uniform in LO..HI (at most n)" },
    { "seeds", GNN_PARAM_INT, 0, 1e7, "distinct dst vertices sampled (<= n)" },
    { "fanout", GNN_PARAM_INT, -1, 1e6, "k; -1 = all neighbors of positive weight" },
    { "replace", GNN_PARAM_INT, 0, 1, "1: with replacement" },
    { "zeros", GNN_PARAM_INT, 0, 100, "percent of edges with weight 0" },
    { "step", GNN_PARAM_INT, 0, 4294967295.0, "global iteration (stream step)" },
    { "layer", GNN_PARAM_INT, 0, 255, "model layer (stream layer)" },
};
/* fanout above the number of positive weights, all neighbors, all-zero rows and all-zero
 * graphs, the empty batch, a single seed, fanout 0, large degrees; each without and with
 * replacement */
static const char *const k_w_presets[] = {
    "n=100,deg=0..12,seeds=30,fanout=5,replace=0,zeros=30,step=3,layer=1",
    "n=100,deg=0..12,seeds=30,fanout=5,replace=1,zeros=30,step=3,layer=1",
    "n=30,deg=0..8,seeds=30,fanout=-1,replace=0,zeros=40,step=2,layer=2",
    "n=30,deg=0..8,seeds=30,fanout=-1,replace=1,zeros=40,step=2,layer=2",
    "n=20,deg=0..6,seeds=15,fanout=8,replace=0,zeros=50,step=1,layer=0",
    "n=20,deg=0..6,seeds=15,fanout=8,replace=1,zeros=50,step=1,layer=0",
    "n=10,deg=3..3,seeds=1,fanout=10,replace=0,zeros=0,step=0,layer=0",
    "n=20,deg=0..5,seeds=0,fanout=3,replace=1,zeros=10,step=1,layer=0",
    "n=40,deg=5..9,seeds=20,fanout=3,replace=0,zeros=100,step=4,layer=0",
    "n=40,deg=5..9,seeds=20,fanout=3,replace=1,zeros=100,step=4,layer=0",
    "n=40,deg=5..9,seeds=10,fanout=0,replace=0,zeros=20,step=5,layer=0",
    "n=400,deg=50..200,seeds=64,fanout=25,replace=0,zeros=10,step=77,layer=3",
    "n=400,deg=50..200,seeds=64,fanout=25,replace=1,zeros=10,step=77,layer=3",
    NULL,
};

/* Per-edge weights from stream 4: every edge takes three draws, so the weights of one edge
 * do not depend on what the others drew. */
static float *random_weights(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int64_t nnz, int64_t zeros_pct)
{
    float *w = gnn_oracle_alloc(ctx, ((size_t)nnz + 1) * sizeof(float));
    if (!w)
        return NULL;
    gnn_oracle_draws gw = gnn_oracle_draws_make(c, 4);
    for (int64_t e = 0; e < nnz; e++) {
        const int zero = (int64_t)gnn_oracle_draw_uint(&gw, 100) < zeros_pct;
        const float u = gnn_oracle_draw_float(&gw);
        const int ex = (int)gnn_oracle_draw_range(&gw, -8, 8);
        w[e] = zero ? 0.0f : ldexpf(0.25f + u, ex);
    }
    return w;
}

/* n_seeds distinct vertices in random order: a partial Fisher-Yates of 0..n-1 (stream 3). */
static int64_t *random_seeds(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int64_t n, int64_t n_seeds)
{
    int64_t *perm = gnn_oracle_alloc(ctx, ((size_t)n + 1) * sizeof(int64_t));
    if (!perm)
        return NULL;
    gnn_oracle_draws gs = gnn_oracle_draws_make(c, 3);
    for (int64_t i = 0; i < n; i++)
        perm[i] = i;
    for (int64_t i = 0; i < n_seeds; i++) {
        int64_t j = gnn_oracle_draw_range(&gs, i, n - 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    return perm;
}

static gnn_oracle_outcome weighted_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_sample_ops *ops = c->impl->ops;
    const int64_t n = gnn_oracle_int(c, W_N), n_seeds = gnn_oracle_int(c, W_SEEDS);
    if (n_seeds > n)
        return gnn_oracle_fail(ctx, "invalid case: seeds=%lld > n=%lld (seeds are distinct)", (long long)n_seeds,
                               (long long)n);
    gnn_csr g;
    if (random_graph(ctx, c, n, gnn_oracle_lo(c, W_DEG), gnn_oracle_hi(c, W_DEG), &g))
        return gnn_oracle_fail(ctx, "out of memory");
    float *w = random_weights(ctx, c, g.nnz, gnn_oracle_int(c, W_ZEROS));
    float *w_copy = gnn_oracle_alloc(ctx, ((size_t)g.nnz + 1) * sizeof(float));
    float *wv = gnn_oracle_alloc(ctx, (size_t)n * sizeof(float)); /* weight of neighbor u of the current dst */
    int64_t *mark = gnn_oracle_alloc(ctx, (size_t)n * sizeof(int64_t));
    const int64_t *seeds = random_seeds(ctx, c, n, n_seeds);
    if (!w || !w_copy || !wv || !mark || !seeds)
        return gnn_oracle_fail(ctx, "out of memory");
    memcpy(w_copy, w, (size_t)g.nnz * sizeof(float));
    const gnn_sample_params p = {
        .fanout = gnn_oracle_int(c, W_FANOUT),
        .replace = (int)gnn_oracle_int(c, W_REPLACE),
        .seed = c->seed * 0x9E3779B97F4A7C15ull + 13,
        .step = (uint32_t)gnn_oracle_int(c, W_STEP),
        .layer = (unsigned)gnn_oracle_int(c, W_LAYER),
        .weights = w,
    };
    gnn_sampled *s = gnn_oracle_alloc(ctx, sizeof *s), *s2 = gnn_oracle_alloc(ctx, sizeof *s2);
    if (!s || !s2)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_outcome o = gnn_oracle_status(ctx, "weighted", ops->sample(&g, seeds, n_seeds, &p, s));
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_defer(ctx, free_sampled, s);
    if ((o = gnn_oracle_status(ctx, "weighted (second call)", ops->sample(&g, seeds, n_seeds, &p, s2))) != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_defer(ctx, free_sampled, s2);
    gnn_oracle_digest(ctx, s->offsets, ((size_t)s->n_dst + 1) * sizeof(int64_t));
    gnn_oracle_digest(ctx, s->nbr_gid, (size_t)s->nnz * sizeof(int64_t));
    if (memcmp(w, w_copy, (size_t)g.nnz * sizeof(float)))
        return gnn_oracle_fail(ctx, "the sampler changed the weights");

    /* 1. shape */
    if (s->n_dst != n_seeds)
        return gnn_oracle_fail(ctx, "n_dst = %lld, expected %lld seeds", (long long)s->n_dst, (long long)n_seeds);
    if (s->offsets[0] != 0 || s->nnz != s->offsets[n_seeds])
        return gnn_oracle_fail(ctx, "offsets run from %lld to %lld, expected 0 to nnz = %lld", (long long)s->offsets[0],
                               (long long)s->offsets[n_seeds], (long long)s->nnz);
    /* 2. per dst: count, membership with positive weight, no repeats without replacement.
     *    mark[u] == 3i+1: positive-weight neighbor of dst i; 3i+2: already drawn; 3i+3: weight 0 */
    for (int64_t i = 0; i < n_seeds; i++) {
        const int64_t v = seeds[i], d = gnn_csr_degree(&g, v), base = 3 * i + 1;
        const int64_t *adj = g.indices + g.indptr[v];
        const float *wr = w + g.indptr[v];
        int64_t pos = 0;
        for (int64_t j = 0; j < d; j++) {
            pos += wr[j] > 0;
            mark[adj[j]] = wr[j] > 0 ? base : base + 2;
            wv[adj[j]] = wr[j];
        }
        if (s->dst_gid[i] != v)
            return gnn_oracle_fail(ctx, "dst_gid[%lld] = %lld, expected seed %lld", (long long)i,
                                   (long long)s->dst_gid[i], (long long)v);
        const int64_t want = expected_count(pos, p.fanout, p.replace), k = s->offsets[i + 1] - s->offsets[i];
        if (k != want)
            return gnn_oracle_fail(ctx, "dst %lld (vertex %lld, degree %lld, %lld of positive weight): %lld samples, "
                                   "expected %lld", (long long)i, (long long)v, (long long)d, (long long)pos,
                                   (long long)k, (long long)want);
        const int64_t *smp = s->nbr_gid + s->offsets[i];
        for (int64_t j = 0; j < k; j++) {
            const int64_t u = smp[j];
            if (u < 0 || u >= n || mark[u] < base || mark[u] > base + 2)
                return gnn_oracle_fail(ctx, "dst %lld (vertex %lld): sample %lld = %lld is not a neighbor", (long long)i,
                                       (long long)v, (long long)j, (long long)u);
            if (mark[u] == base + 2)
                return gnn_oracle_fail(ctx, "dst %lld (vertex %lld): sample %lld = %lld has weight 0 (never drawn)",
                                       (long long)i, (long long)v, (long long)j, (long long)u);
            if (!p.replace || p.fanout < 0) {
                if (mark[u] == base + 1)
                    return gnn_oracle_fail(ctx, "dst %lld (vertex %lld): neighbor %lld (weight %g) drawn twice without "
                                           "replacement", (long long)i, (long long)v, (long long)u, (double)wv[u]);
                mark[u] = base + 1;
            }
        }
    }
    /* 3. determinism */
    if (s2->n_dst != s->n_dst || s2->nnz != s->nnz)
        return gnn_oracle_fail(ctx, "a second call with the same inputs gives different sizes");
    o = gnn_oracle_compare_int(ctx, "offsets (second call)", s->offsets, s2->offsets, s->n_dst + 1, 8);
    return gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "nbr_gid (second call)", s->nbr_gid, s2->nbr_gid, s->nnz, 8));
}

const gnn_oracle_entry gnn_oracle_sample_weighted = {
    .name = "sample.weighted",
    .what = "weighted sampling: counts min(k, #positive) (k with replacement), positive-weight neighbors only, no "
            "repeats, determinism",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "structure: exact",
    .params = k_w_params, .n_params = N_W_PARAMS, .presets = k_w_presets,
    .ref = &k_weighted_ref, .impls = k_weighted_impls, .run = weighted_run,
};

/* ---- sample.weighted.dist --------------------------------------------------------------------
 * verts dst vertices of degree d, `zeros` of whose neighbors (at random positions) have weight
 * 0 and the other m = d - zeros integer weights uniform in 1..wmax, sampled at steps
 * 0..steps-1 (independent streams).
 *   With replacement: every draw is neighbor i with probability w_i / W, independently, so a
 *     vertex's counts over T k draws are multinomial: Pearson, m - 1 degrees of freedom.
 *   Without replacement: Efraimidis-Spirakis keeps the k largest keys u^(1/w); the SET it
 *     returns has the law of successive sampling (draw i with probability w_i / W, remove it,
 *     renormalize, k times; Efraimidis & Spirakis 2006, Thm. 1), so inclusion probabilities are
 *     NOT w_i / W times k, but the probability of each k-set S is known exactly:
 *         P(S) = sum over i in S of P(S - i) w_i / (W - w(S - i)),   P({}) = 1,
 *     computed over subsets (m <= 16). The test counts how often each k-set is returned:
 *     multinomial over the C(m, k) sets, Pearson with (cells - 1) degrees of freedom. k = 1 is
 *     the case P(i) = w_i / W. k >= m returns every positive neighbor and is checked exactly.
 *     With order=1 the cells are the ordered k-tuples instead: the reference returns the keys
 *     in decreasing order (docs/sampling.md), and sorted A-ES keys ARE successive sampling in
 *     draw order, so P(s_1, ..., s_k) = prod_j w_{s_j} / (W - w_{s_1} - ... - w_{s_{j-1}});
 *     in particular the first sample is neighbor i with probability w_i / W for any k.
 * Cells expected to see fewer than 5 hits are pooled into one (the chi-square approximation
 * needs expected counts of about 5). With order=0 the test looks at sets only, so it holds for
 * any output order. */

enum { WD_DEG, WD_ZEROS, WD_WMAX, WD_FANOUT, WD_REPLACE, WD_ORDER, WD_VERTS, WD_STEPS, N_WD_PARAMS };
static const gnn_oracle_param k_wd_params[N_WD_PARAMS] = {
    { "deg", GNN_PARAM_INT, 2, 1e5, "degree of every sampled vertex" },
    { "zeros", GNN_PARAM_INT, 0, 1e5, "neighbors of weight 0 per vertex (< deg)" },
    { "wmax", GNN_PARAM_INT, 1, 1e6, "positive weights are integers uniform in 1..wmax" },
    { "fanout", GNN_PARAM_INT, 1, 1e5, "k (without replacement and 1 < k < deg - zeros: deg - zeros <= 16)" },
    { "replace", GNN_PARAM_INT, 0, 1, "1: with replacement" },
    { "order", GNN_PARAM_INT, 0, 1, "without replacement, 1 < k: 0 count k-sets, 1 count ordered k-tuples" },
    { "verts", GNN_PARAM_INT, 1, 1e5, "vertices sampled per step" },
    { "steps", GNN_PARAM_INT, 1, 1e7, "steps (independent streams)" },
};
static const char *const k_wd_presets[] = {
    "deg=6,zeros=1,wmax=4,fanout=1,replace=0,order=0,verts=8,steps=2000",
    "deg=40,zeros=10,wmax=8,fanout=1,replace=0,order=0,verts=4,steps=3000",
    "deg=8,zeros=2,wmax=4,fanout=2,replace=0,order=0,verts=4,steps=3000",
    "deg=7,zeros=0,wmax=3,fanout=3,replace=0,order=0,verts=4,steps=3000",
    "deg=7,zeros=1,wmax=4,fanout=2,replace=0,order=1,verts=4,steps=3000",
    "deg=6,zeros=0,wmax=3,fanout=3,replace=0,order=1,verts=4,steps=4000",
    "deg=6,zeros=2,wmax=4,fanout=5,replace=0,order=0,verts=4,steps=200",
    "deg=10,zeros=3,wmax=8,fanout=4,replace=1,order=0,verts=8,steps=1000",
    "deg=5,zeros=2,wmax=5,fanout=10,replace=1,order=0,verts=8,steps=500",
    NULL,
};

static int popcount64(uint64_t x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

static gnn_oracle_outcome wdist_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_sample_ops *ops = c->impl->ops;
    const int64_t d = gnn_oracle_int(c, WD_DEG), zeros = gnn_oracle_int(c, WD_ZEROS);
    const int64_t wmax = gnn_oracle_int(c, WD_WMAX), fanout = gnn_oracle_int(c, WD_FANOUT);
    const int replace = (int)gnn_oracle_int(c, WD_REPLACE);
    const int64_t verts = gnn_oracle_int(c, WD_VERTS), steps = gnn_oracle_int(c, WD_STEPS);
    const int64_t m = d - zeros; /* positive weights per vertex */
    const int64_t k = replace ? fanout : (fanout < m ? fanout : m);
    const int order = (int)gnn_oracle_int(c, WD_ORDER);
    /* cells: k-sets (bit masks over the m positives), ordered k-tuples (base-m numbers, first
     * sample the lowest digit), or single neighbors */
    const int sets = !replace && k > 1 && k < m && !order, tuples = !replace && k > 1 && k < m && order;
    int64_t cells = m;
    if (sets)
        cells = m <= 16 ? (int64_t)1 << m : -1;
    for (int64_t j = 0; tuples && j < k; j++)
        cells = j == 0 ? m : (cells > 0 && cells * m <= 65536 ? cells * m : -1);
    if (m < 1 || cells < 0 || (!replace && k > 1 && m > 64))
        return gnn_oracle_fail(ctx, "invalid case: need zeros < deg; without replacement and 1 < k < deg - zeros, "
                               "deg - zeros <= 16 (sets) or (deg - zeros)^k <= 65536 (tuples)");
    const int64_t n = verts + d;
    gnn_csr g = { .n = n, .nnz = verts * d };
    g.indptr = gnn_oracle_alloc(ctx, ((size_t)n + 1) * sizeof(int64_t));
    g.indices = gnn_oracle_alloc(ctx, (size_t)(verts * d) * sizeof(int64_t));
    float *w = gnn_oracle_alloc(ctx, (size_t)(verts * d) * sizeof(float));
    int64_t *seeds = gnn_oracle_alloc(ctx, (size_t)verts * sizeof(int64_t));
    int64_t *idx = gnn_oracle_alloc(ctx, (size_t)(verts * d) * sizeof(int64_t)); /* (verts, d): gid - verts -> positive index or -1 */
    double *wpos = gnn_oracle_alloc(ctx, (size_t)(verts * m) * sizeof(double));  /* (verts, m) weight of positive i */
    double *count = gnn_oracle_alloc(ctx, (size_t)(verts * cells) * sizeof(double));
    double *prob = gnn_oracle_alloc(ctx, (size_t)cells * sizeof(double));
    int64_t *tmp = gnn_oracle_alloc(ctx, (size_t)d * sizeof(int64_t));
    if (!g.indptr || !g.indices || !w || !seeds || !idx || !wpos || !count || !prob || !tmp)
        return gnn_oracle_fail(ctx, "out of memory");
    for (int64_t v = 0; v <= n; v++)
        g.indptr[v] = (v < verts ? v : verts) * d;
    for (int64_t v = 0; v < verts; v++) {
        int64_t *adj = g.indices + v * d;
        gnn_oracle_draws gp = gnn_oracle_draws_make(c, 16 + (uint64_t)v); /* one stream per vertex */
        for (int64_t j = 0; j < d; j++)
            adj[j] = verts + j;
        gnn_rng_shuffle_i64(&gp.s, adj, d); /* neighbor order in CSR */
        for (int64_t j = 0; j < d; j++)
            tmp[j] = j;
        gnn_oracle_draws gz = gnn_oracle_draws_make(c, (1u << 20) + (uint64_t)v);
        gnn_rng_shuffle_i64(&gz.s, tmp, d); /* CSR positions tmp[0 .. zeros) get weight 0 */
        for (int64_t j = 0; j < d; j++)
            w[v * d + tmp[j]] = -1.0f;
        for (int64_t j = 0; j < zeros; j++)
            w[v * d + tmp[j]] = 0.0f;
        int64_t i = 0;
        for (int64_t j = 0; j < d; j++) {
            const int64_t u = adj[j] - verts;
            if (w[v * d + j] == 0.0f) {
                idx[v * d + u] = -1;
                continue;
            }
            w[v * d + j] = (float)(1 + gnn_oracle_draw_uint(&gz, (uint64_t)wmax));
            wpos[v * m + i] = w[v * d + j];
            idx[v * d + u] = i++;
        }
        seeds[v] = v;
    }
    for (int64_t t = 0; t < steps; t++) {
        gnn_sample_params p = { .fanout = fanout, .replace = replace, .seed = c->seed * 0x9E3779B97F4A7C15ull + 17,
                                .step = (uint32_t)t, .layer = 0, .weights = w };
        gnn_sampled s;
        gnn_oracle_outcome o = gnn_oracle_status(ctx, "weighted", ops->sample(&g, seeds, verts, &p, &s));
        if (o != GNN_ORACLE_PASS)
            return o;
        int bad = s.n_dst != verts || s.offsets[verts] != verts * k;
        for (int64_t v = 0; v < verts && !bad; v++) {
            bad |= s.offsets[v + 1] - s.offsets[v] != k;
            uint64_t mask = 0;
            int64_t tuple = 0, place = 1;
            for (int64_t e = s.offsets[v]; e < s.offsets[v + 1] && !bad; e++) {
                const int64_t u = s.nbr_gid[e] - verts;
                bad |= u < 0 || u >= d || idx[v * d + u] < 0; /* a non-neighbor or weight 0 */
                if (bad)
                    break;
                const int64_t i = idx[v * d + u];
                if (!replace) {
                    bad |= (int)((mask >> i) & 1u); /* a repeat */
                    mask |= (uint64_t)1 << (i & 63);
                }
                if (tuples) {
                    tuple += i * place;
                    place *= m;
                } else if (!sets) {
                    count[v * cells + i] += 1.0;
                }
            }
            if (sets && !bad)
                count[v * cells + (int64_t)mask] += 1.0;
            if (tuples && !bad)
                count[v * cells + tuple] += 1.0;
        }
        gnn_oracle_digest(ctx, s.nbr_gid, (size_t)s.nnz * sizeof(int64_t));
        gnn_sampled_free(&s);
        if (bad)
            return gnn_oracle_fail(ctx, "step %lld: the sample is not %lld distinct%s neighbors of positive weight of "
                                   "each of the %lld vertices", (long long)t, (long long)k, replace ? " or repeated" : "",
                                   (long long)verts);
    }
    if (!replace && k >= m) { /* every positive neighbor every time: nothing random to test */
        for (int64_t i = 0; i < verts * cells; i++)
            if (count[i] != (double)steps)
                return gnn_oracle_fail(ctx, "fanout >= positive weights: neighbor %lld drawn %.0f times in %lld steps",
                                       (long long)i, count[i], (long long)steps);
        return GNN_ORACLE_PASS;
    }
    double x2 = 0, dof = 0;
    for (int64_t v = 0; v < verts; v++) {
        const double *wp = wpos + v * m;
        double W = 0;
        for (int64_t i = 0; i < m; i++)
            W += wp[i];
        double trials = (double)steps; /* multinomial trials per vertex */
        if (sets) {
            /* successive sampling over subsets in increasing numeric order (subsets first) */
            memset(prob, 0, (size_t)cells * sizeof(double));
            prob[0] = 1.0;
            for (int64_t mask = 0; mask < cells; mask++) {
                if (prob[mask] == 0 || popcount64((uint64_t)mask) >= k)
                    continue;
                double taken = 0;
                for (int64_t i = 0; i < m; i++)
                    if ((mask >> i) & 1)
                        taken += wp[i];
                for (int64_t i = 0; i < m; i++)
                    if (!((mask >> i) & 1))
                        prob[mask | ((int64_t)1 << i)] += prob[mask] * wp[i] / (W - taken);
            }
            for (int64_t mask = 0; mask < cells; mask++)
                if (popcount64((uint64_t)mask) != k)
                    prob[mask] = 0;
        } else if (tuples) {
            /* successive sampling in order: prod_j w_{s_j} / (W - earlier weights); 0 on repeats */
            for (int64_t t = 0; t < cells; t++) {
                double pr = 1, taken = 0;
                uint64_t seen = 0;
                int64_t rest = t;
                for (int64_t j = 0; j < k && pr > 0; j++, rest /= m) {
                    const int64_t i = rest % m;
                    if ((seen >> i) & 1u)
                        pr = 0;
                    else
                        pr *= wp[i] / (W - taken);
                    seen |= (uint64_t)1 << i;
                    taken += wp[i];
                }
                prob[t] = pr;
            }
        } else {
            for (int64_t i = 0; i < m; i++)
                prob[i] = wp[i] / W;
            if (replace)
                trials *= (double)k;
        }
        double pool_o = 0, pool_e = 0;
        int64_t n_cells = 0;
        for (int64_t i = 0; i < cells; i++) {
            const double O = count[v * cells + i], E = trials * prob[i];
            if (prob[i] == 0) {
                if (O != 0)
                    return gnn_oracle_fail(ctx, "vertex %lld: cell %lld has probability 0 but was drawn %.0f times",
                                           (long long)v, (long long)i, O);
                continue;
            }
            if (E < 5) {
                pool_o += O;
                pool_e += E;
                continue;
            }
            x2 += (O - E) * (O - E) / E;
            n_cells++;
        }
        if (pool_e > 0) {
            x2 += (pool_o - pool_e) * (pool_o - pool_e) / pool_e;
            n_cells++;
        }
        dof += (double)(n_cells - 1);
    }
    return gnn_oracle_chisq_check(ctx, sets ? "k-set counts" : tuples ? "ordered k-tuple counts" : "neighbor counts", x2,
                                  dof, gnn_oracle_ctx_tol(ctx)->a);
}

const gnn_oracle_entry gnn_oracle_sample_weighted_dist = {
    .name = "sample.weighted.dist",
    .what = "weighted draws follow w_i / W with replacement; without, the k-sets (and ordered k-tuples) follow "
            "successive sampling (chi-square per vertex, summed)",
    .tol = { GNN_CMP_CHISQ, 1e-4, 0 },
    .reason = "statistical: a fixed seed makes it deterministic; 1e-4 false alarms per case if the streams were random",
    .params = k_wd_params, .n_params = N_WD_PARAMS, .presets = k_wd_presets,
    .ref = &k_weighted_ref, .impls = k_weighted_dist_impls, .run = wdist_run,
};
