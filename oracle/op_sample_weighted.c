/* oracle/op_sample_weighted.c -- oracle entries for weighted neighbor sampling
 * (gnn_sample_params.weights, include/gnnref/sample.h, docs/sampling.md); the uniform sampler's
 * and block construction's entries are in oracle/op_sample.c.
 *
 *   sample.weighted      verify: weighted sampling (gnn_sample_params.weights), with and
 *                        without replacement: counts, positive-weight neighbors only, no
 *                        repeats, determinism;
 *   sample.weighted.dist chisq: with replacement each draw is neighbor i with probability
 *                        w_i / W; without, each k-set has its successive-sampling
 *                        probability (k = 1: w_i / W). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/oracle.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "oracle/op_sample.h"


/* Weighted: "ref" is the weighted specification's two steps as a sampler object
 * (gnn_sample_weighted_ref, then gnn_block_build_ref: ref/sample_ref.h); "ref-dispatch" is
 * gnn_sampler_ref, whose uniform step must hand weighted parameters to it. Both run through the
 * checked entry point (gnn_sampler_layer). */
static gnn_status wref_create(void **state, const gnn_csr *g, const gnn_sampler_options *o)
{
    (void)o;
    *state = (void *)g;
    return GNN_OK;
}

static gnn_status wref_layer(void *state, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                             gnn_block *out)
{
    gnn_sampled sm;
    gnn_status st = gnn_sample_weighted_ref(state, seeds, n_seeds, p, &sm);
    if (st)
        return st;
    st = gnn_block_build_ref(&sm, out);
    gnn_sampled_free(&sm);
    return st;
}

static void wref_destroy(void *state) { (void)state; }

static const gnn_sampler_ops k_weighted_ref_ops = {
    .name = "ref", .caps = GNN_CAP_DETERMINISTIC, .create = wref_create, .layer = wref_layer, .destroy = wref_destroy,
};
static const gnn_oracle_impl k_weighted_ref = { .name = "ref", .ops = &k_weighted_ref_ops, .flags = 0 };
static const gnn_oracle_impl k_weighted_dispatch = { .name = "ref-dispatch", .ops = &gnn_sampler_ref, .flags = 0 };
static const gnn_oracle_impl *const k_weighted_impls[] = { &k_weighted_ref, &k_weighted_dispatch, NULL };
static const gnn_oracle_impl *const k_weighted_dist_impls[] = { &k_weighted_ref, NULL };


/* ---- sample.weighted ------------------------------------------------------------------------
 * Weighted sampling (gnn_sample_params.weights; docs/sampling.md): gnn_sample_weighted_ref,
 * and gnn_sampler_ref with weights set ("ref-dispatch": gnn_sample_uniform_ref must hand it on).
 * Weights are per edge, drawn per case from stream 4: zero with probability
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
    /* rows with a single positive weight (and none), without and with replacement */
    "n=60,deg=1..6,seeds=60,fanout=2,replace=0,zeros=85,step=6,layer=0",
    "n=60,deg=1..6,seeds=60,fanout=2,replace=1,zeros=85,step=6,layer=0",
    /* P just above k with weights spread over 2^-8 .. 2^9: the draw budget often runs out, so
     * the A-ES fallback completes the sample */
    "n=50,deg=3..6,seeds=50,fanout=3,replace=0,zeros=0,step=8,layer=2",
    /* hubs above the cpu sampler's table threshold (256), the fanouts of a GraphSAGE run */
    "n=2000,deg=300..1200,seeds=24,fanout=15,replace=0,zeros=10,step=9,layer=0",
    "n=2000,deg=300..1200,seeds=24,fanout=15,replace=1,zeros=10,step=9,layer=0",
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
    const gnn_sampler_ops *ops = c->impl->ops;
    const int64_t n = gnn_oracle_int(c, W_N), n_seeds = gnn_oracle_int(c, W_SEEDS);
    if (n_seeds > n)
        return gnn_oracle_fail(ctx, "invalid case: seeds=%lld > n=%lld (seeds are distinct)", (long long)n_seeds,
                               (long long)n);
    gnn_csr g;
    if (gnn_oracle_sample_random_graph(ctx, c, n, gnn_oracle_lo(c, W_DEG), gnn_oracle_hi(c, W_DEG), &g))
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
    gnn_sampled *s, *s2;
    gnn_oracle_outcome o = gnn_oracle_sample_twice(ctx, ops, &g, seeds, n_seeds, &p, "weighted", &s, &s2);
    if (o != GNN_ORACLE_PASS)
        return o;
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
        const int64_t want = gnn_oracle_sample_expected_count(pos, p.fanout, p.replace), k = s->offsets[i + 1] - s->offsets[i];
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
    return gnn_oracle_sample_same(ctx, s, s2);
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
 *   Without replacement: the rule (docs/sampling.md 5.2) draws with replacement and drops
 *     repeats, which is successive sampling (draw i with probability w_i / W, remove it,
 *     renormalize, k times) by construction; when its budget of 4k draws runs out, A-ES keys
 *     over the rest complete it, and sorted A-ES keys are successive sampling too (Efraimidis &
 *     Spirakis 2006, Thm. 1), so the law is the same. Inclusion probabilities are therefore
 *     NOT w_i / W times k, but the probability of each k-set S is known exactly:
 *         P(S) = sum over i in S of P(S - i) w_i / (W - w(S - i)),   P({}) = 1,
 *     computed over subsets (m <= 16). The test counts how often each k-set is returned:
 *     multinomial over the C(m, k) sets, Pearson with (cells - 1) degrees of freedom. k = 1 is
 *     the case P(i) = w_i / W. k >= m returns every positive neighbor and is checked exactly.
 *     With order=1 the cells are the ordered k-tuples instead: the reference returns the
 *     samples in pick order, which is the successive-sampling draw order, so
 *     P(s_1, ..., s_k) = prod_j w_{s_j} / (W - w_{s_1} - ... - w_{s_{j-1}});
 *     in particular the first sample is neighbor i with probability w_i / W for any k.
 *     Presets with skewed weights and k close to m make the fallback frequent, so its part of
 *     the law is tested as well.
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
    /* weights 1..1000 and k = m - 1: the draw budget (4k) often runs out before the lighter
     * neighbors are drawn (in 3% to 80% of the samples, depending on the vertex's weights),
     * so the A-ES fallback's share of the law is tested too (sets, and ordered tuples with a
     * zero weight among the neighbors) */
    "deg=6,zeros=0,wmax=1000,fanout=5,replace=0,order=0,verts=8,steps=3000",
    "deg=7,zeros=1,wmax=1000,fanout=5,replace=0,order=1,verts=8,steps=4000",
    NULL,
};

static int popcount64(uint64_t x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

/* One sample.weighted.dist case: its parameters, the kind of cell it counts, the graph it
 * builds and the counts it gathers. */
typedef struct wdist_case {
    int64_t d, zeros, wmax, fanout, verts, steps;
    int64_t m;     /* positive weights per vertex */
    int64_t k;     /* samples per vertex and step */
    int replace, order;
    int sets, tuples; /* what a cell is: a k-set, an ordered k-tuple, or (neither) one neighbor */
    int64_t cells;    /* cells per vertex */
    gnn_csr g;
    float *w;       /* (verts * d) edge weights */
    int64_t *seeds; /* (verts) */
    int64_t *idx;   /* (verts, d): gid - verts -> positive index or -1 */
    double *wpos;   /* (verts, m) weight of positive i */
    double *count;  /* (verts, cells) */
    double *prob;   /* (cells) one vertex's cell probabilities */
    int64_t *tmp;   /* (d) */
} wdist_case;

/* The case's parameters and cells (refusing cases whose cells cannot be enumerated), and its
 * buffers. */
static gnn_oracle_outcome wdist_setup(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, wdist_case *w)
{
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
    *w = (wdist_case){ .d = d, .zeros = zeros, .wmax = wmax, .fanout = fanout, .verts = verts, .steps = steps,
                       .m = m, .k = k, .replace = replace, .order = order, .sets = sets, .tuples = tuples,
                       .cells = cells };
    const int64_t n = verts + d;
    w->g = (gnn_csr){ .n = n, .nnz = verts * d };
    w->g.indptr = gnn_oracle_alloc(ctx, ((size_t)n + 1) * sizeof(int64_t));
    w->g.indices = gnn_oracle_alloc(ctx, (size_t)(verts * d) * sizeof(int64_t));
    w->w = gnn_oracle_alloc(ctx, (size_t)(verts * d) * sizeof(float));
    w->seeds = gnn_oracle_alloc(ctx, (size_t)verts * sizeof(int64_t));
    w->idx = gnn_oracle_alloc(ctx, (size_t)(verts * d) * sizeof(int64_t));
    w->wpos = gnn_oracle_alloc(ctx, (size_t)(verts * m) * sizeof(double));
    w->count = gnn_oracle_alloc(ctx, (size_t)(verts * cells) * sizeof(double));
    w->prob = gnn_oracle_alloc(ctx, (size_t)cells * sizeof(double));
    w->tmp = gnn_oracle_alloc(ctx, (size_t)d * sizeof(int64_t));
    if (!w->g.indptr || !w->g.indices || !w->w || !w->seeds || !w->idx || !w->wpos || !w->count || !w->prob || !w->tmp)
        return gnn_oracle_fail(ctx, "out of memory");
    return GNN_ORACLE_PASS;
}

/* The graph: vertex v < verts has neighbors verts + (a shuffle of 0..d-1), `zeros` of them at
 * random CSR positions with weight 0 and the others integer weights in 1..wmax; the other
 * vertices have none. */
static void wdist_make_graph(const gnn_oracle_case *c, wdist_case *w)
{
    const int64_t d = w->d, m = w->m, verts = w->verts;
    int64_t *tmp = w->tmp;
    for (int64_t v = 0; v <= w->g.n; v++)
        w->g.indptr[v] = (v < verts ? v : verts) * d;
    for (int64_t v = 0; v < verts; v++) {
        int64_t *adj = w->g.indices + v * d;
        float *wv = w->w + v * d;
        gnn_oracle_draws gp = gnn_oracle_draws_make(c, 16 + (uint64_t)v); /* one stream per vertex */
        for (int64_t j = 0; j < d; j++)
            adj[j] = verts + j;
        gnn_rng_shuffle_i64(&gp.s, adj, d); /* neighbor order in CSR */
        for (int64_t j = 0; j < d; j++)
            tmp[j] = j;
        gnn_oracle_draws gz = gnn_oracle_draws_make(c, (1u << 20) + (uint64_t)v);
        gnn_rng_shuffle_i64(&gz.s, tmp, d); /* CSR positions tmp[0 .. zeros) get weight 0 */
        for (int64_t j = 0; j < d; j++)
            wv[tmp[j]] = -1.0f;
        for (int64_t j = 0; j < w->zeros; j++)
            wv[tmp[j]] = 0.0f;
        int64_t i = 0;
        for (int64_t j = 0; j < d; j++) {
            const int64_t u = adj[j] - verts;
            if (wv[j] == 0.0f) {
                w->idx[v * d + u] = -1;
                continue;
            }
            wv[j] = (float)(1 + gnn_oracle_draw_uint(&gz, (uint64_t)w->wmax));
            w->wpos[v * m + i] = wv[j];
            w->idx[v * d + u] = i++;
        }
        w->seeds[v] = v;
    }
}

/* Counts vertex v's samples of one step into its cell; returns nonzero when they are not k
 * distinct (or, with replacement, possibly repeated) neighbors of positive weight. */
static int wdist_tally(wdist_case *w, const gnn_sampled *s, int64_t v)
{
    const int64_t d = w->d, m = w->m, cells = w->cells;
    int bad = s->offsets[v + 1] - s->offsets[v] != w->k;
    uint64_t mask = 0;
    int64_t tuple = 0, place = 1;
    for (int64_t e = s->offsets[v]; e < s->offsets[v + 1] && !bad; e++) {
        const int64_t u = s->nbr_gid[e] - w->verts;
        bad |= u < 0 || u >= d || w->idx[v * d + u] < 0; /* a non-neighbor or weight 0 */
        if (bad)
            break;
        const int64_t i = w->idx[v * d + u];
        if (!w->replace) {
            bad |= (int)((mask >> i) & 1u); /* a repeat */
            mask |= (uint64_t)1 << (i & 63);
        }
        if (w->tuples) {
            tuple += i * place;
            place *= m;
        } else if (!w->sets) {
            w->count[v * cells + i] += 1.0;
        }
    }
    if (w->sets && !bad)
        w->count[v * cells + (int64_t)mask] += 1.0;
    if (w->tuples && !bad)
        w->count[v * cells + tuple] += 1.0;
    return bad;
}

/* Samples every step 0..steps-1 with a sampler of the implementation and counts the cells. */
static gnn_oracle_outcome wdist_sample_all(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, wdist_case *w)
{
    const int64_t verts = w->verts, k = w->k;
    gnn_sampler *smp;
    gnn_oracle_outcome o = gnn_oracle_sampler_make(ctx, c->impl->ops, &w->g, &smp);
    if (o != GNN_ORACLE_PASS)
        return o;
    for (int64_t t = 0; t < w->steps; t++) {
        gnn_sample_params p = { .fanout = w->fanout, .replace = w->replace,
                                .seed = c->seed * 0x9E3779B97F4A7C15ull + 17, .step = (uint32_t)t, .layer = 0,
                                .weights = w->w };
        gnn_sampled s;
        if ((o = gnn_oracle_sample_lists(ctx, smp, w->seeds, verts, &p, "weighted", &s)) != GNN_ORACLE_PASS)
            return o;
        int bad = s.n_dst != verts || s.offsets[verts] != verts * k;
        for (int64_t v = 0; v < verts && !bad; v++)
            bad |= wdist_tally(w, &s, v);
        gnn_oracle_digest(ctx, s.nbr_gid, (size_t)s.nnz * sizeof(int64_t));
        gnn_sampled_free(&s);
        if (bad)
            return gnn_oracle_fail(ctx, "step %lld: the sample is not %lld distinct%s neighbors of positive weight of "
                                   "each of the %lld vertices", (long long)t, (long long)k,
                                   w->replace ? " or repeated" : "", (long long)verts);
    }
    return GNN_ORACLE_PASS;
}

/* The probability of each cell for one vertex with positive weights wp (m of them, sum W), into
 * w->prob; returns the multinomial trials per vertex. */
static double wdist_cell_probs(const wdist_case *w, const double *wp, double W)
{
    const int64_t m = w->m, k = w->k, cells = w->cells;
    double *prob = w->prob;
    double trials = (double)w->steps; /* multinomial trials per vertex */
    if (w->sets) {
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
    } else if (w->tuples) {
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
        if (w->replace)
            trials *= (double)k;
    }
    return trials;
}

/* Pearson's statistic of every vertex's counts against its cell probabilities, cells expected
 * to see fewer than 5 hits pooled into one; the vertices' statistics and degrees of freedom
 * add, in vertex order. */
static gnn_oracle_outcome wdist_chisq(gnn_oracle_ctx *ctx, const wdist_case *w)
{
    const int64_t m = w->m, cells = w->cells;
    double x2 = 0, dof = 0;
    for (int64_t v = 0; v < w->verts; v++) {
        const double *wp = w->wpos + v * m;
        double W = 0;
        for (int64_t i = 0; i < m; i++)
            W += wp[i];
        const double trials = wdist_cell_probs(w, wp, W);
        const double *prob = w->prob;
        double pool_o = 0, pool_e = 0;
        int64_t n_cells = 0;
        for (int64_t i = 0; i < cells; i++) {
            const double O = w->count[v * cells + i], E = trials * prob[i];
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
    return gnn_oracle_chisq_check(ctx, w->sets ? "k-set counts" : w->tuples ? "ordered k-tuple counts" : "neighbor counts",
                                  x2, dof, gnn_oracle_ctx_tol(ctx)->a);
}

static gnn_oracle_outcome wdist_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    wdist_case w;
    gnn_oracle_outcome o = wdist_setup(ctx, c, &w);
    if (o != GNN_ORACLE_PASS)
        return o;
    wdist_make_graph(c, &w);
    if ((o = wdist_sample_all(ctx, c, &w)) != GNN_ORACLE_PASS)
        return o;
    if (!w.replace && w.k >= w.m) { /* every positive neighbor every time: nothing random to test */
        for (int64_t i = 0; i < w.verts * w.cells; i++)
            if (w.count[i] != (double)w.steps)
                return gnn_oracle_fail(ctx, "fanout >= positive weights: neighbor %lld drawn %.0f times in %lld steps",
                                       (long long)i, w.count[i], (long long)w.steps);
        return GNN_ORACLE_PASS;
    }
    return wdist_chisq(ctx, &w);
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
