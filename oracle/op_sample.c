/* oracle/op_sample.c -- oracle entries for uniform neighbor sampling and block construction
 * (include/gnnref/sample.h, DESIGN.md section 2 "Uses" and "Orders"); the weighted sampler's
 * entries are in oracle/op_sample_weighted.c.
 *
 *   sample.uniform       verify: properties every correct sampler has, checked without
 *                        re-running the sampler's algorithm (see sample_run);
 *   sample.uniform.dist  chisq: over many steps each neighbor of a dst with degree d is
 *                        drawn with probability k/d (Pearson chi-square, exact variance
 *                        of sampling without replacement);
 *   block.build          verify: DGL to_block order (dst first in seed order, unique src,
 *                        new src in order of first appearance, edges round-trip to the
 *                        sampled global ids, duplicate seeds rejected), of a block built from
 *                        sampled lists by an ID map object of kind ORDERED.
 * The sampler entries run sampler objects (gnn_sampler_ops) through the checked entry point
 * and read each layer's block back as the sampled lists it was built from
 * (gnn_oracle_sampled_of_block): the same bytes the reference's first step produces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/cuda.h"
#include "gnnref/idmap.h"
#include "gnnref/oracle.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "gnnref/tensor.h"
#include "oracle/op_sample.h"
#include "core/base/cmp.h"

/* The sampler objects (gnn_sampler_ops) with the default options: ref is the specification,
 * cuda and cuda-emu the CUDA tier (opt/cuda/, docs/cuda_sampling.md: the count, scan and draw
 * kernels, then the ordered ID map's), cuda on a GPU, cuda-emu the same kernels' bodies on the
 * CPU. A layer's block is read back as the sampled lists it was built from. */
static const gnn_oracle_impl k_sample_ref = { .name = "ref", .ops = &gnn_sampler_ref, .flags = 0 };
static const gnn_oracle_impl k_sample_cuda = { .name = "cuda", .ops = &gnn_sampler_cuda, .flags = 0 };
static const gnn_oracle_impl k_sample_cuda_emu = { .name = "cuda-emu", .ops = &gnn_sampler_cuda_emu,
                                                     .flags = GNN_ORACLE_EMULATED };
static const gnn_oracle_impl *const k_sample_impls[] = { &k_sample_ref, &k_sample_cuda, &k_sample_cuda_emu, NULL };
/* block.build's: the ID map objects (gnn_idmap_ops, kind ORDERED) that build a block from the
 * sampled lists: the reference map, the CUDA ordered map on a GPU and emulated */
static const gnn_oracle_impl k_build_ref = { .name = "ref", .ops = &gnn_idmap_ref, .flags = 0 };
static const gnn_oracle_impl k_build_cuda = { .name = "cuda", .ops = &gnn_idmap_cuda, .flags = 0 };
static const gnn_oracle_impl k_build_cuda_emu = { .name = "cuda-emu", .ops = &gnn_idmap_cuda_emu,
                                                    .flags = GNN_ORACLE_EMULATED };
static const gnn_oracle_impl *const k_build_impls[] = { &k_build_ref, &k_build_cuda, &k_build_cuda_emu, NULL };

/* The `cuda` implementations run where a GPU is; elsewhere their cases are SKIP with the reason
 * (never FAIL). `cuda-emu` runs the same kernels' bodies on the CPU, everywhere. */
static gnn_oracle_outcome cuda_gate(gnn_oracle_ctx *ctx, const gnn_oracle_impl *impl)
{
    char why[256];
    if ((impl == &k_sample_cuda || impl == &k_build_cuda) && !gnn_cuda_available(why, sizeof why))
        return gnn_oracle_skip(ctx, "%s", why);
    return GNN_ORACLE_PASS;
}

static void free_sampled(void *p) { gnn_sampled_free(p); }
static void free_block(void *p) { gnn_block_free(p); }
static void free_sampler(void *p) { gnn_sampler_destroy(p); }
static void free_idmap(void *p) { gnn_idmap_destroy(p); }

/* A graph in the case's arena: vertex v has a degree uniform in [deg_lo, min(deg_hi, n)],
 * distinct neighbors drawn uniformly (rejection against a stamp array), stored in draw order
 * (rows are deliberately NOT sorted: "all neighbors in CSR order" must mean CSR order). */
gnn_status gnn_oracle_sample_random_graph(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int64_t n, int64_t deg_lo,
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

int64_t gnn_oracle_sample_expected_count(int64_t d, int64_t k, int replace)
{
    if (k < 0)
        return d;
    if (replace)
        return d > 0 ? k : 0;
    return d < k ? d : k;
}

gnn_oracle_outcome gnn_oracle_sampler_make(gnn_oracle_ctx *ctx, const gnn_sampler_ops *ops, const gnn_csr *g,
                                           gnn_sampler **smp)
{
    const gnn_status st = gnn_sampler_create(smp, ops, g, NULL);
    if (st == GNN_OK)
        gnn_oracle_defer(ctx, free_sampler, *smp);
    return gnn_oracle_status(ctx, "sampler create", st);
}

gnn_status gnn_oracle_sampled_of_block(const gnn_block *b, gnn_sampled *s)
{
    memset(s, 0, sizeof *s);
    s->dst_gid = gnn_malloc(((size_t)b->n_dst + 1) * sizeof(int64_t));
    s->offsets = gnn_malloc(((size_t)b->n_dst + 1) * sizeof(int64_t));
    s->nbr_gid = gnn_malloc(((size_t)b->nnz + 1) * sizeof(int64_t));
    if (!s->dst_gid || !s->offsets || !s->nbr_gid) {
        gnn_sampled_free(s);
        return GNN_ERR_NOMEM;
    }
    s->n_dst = b->n_dst;
    s->nnz = b->nnz;
    memcpy(s->dst_gid, b->src_gid, (size_t)b->n_dst * sizeof(int64_t));
    memcpy(s->offsets, b->indptr, ((size_t)b->n_dst + 1) * sizeof(int64_t));
    for (int64_t e = 0; e < b->nnz; e++)
        s->nbr_gid[e] = b->src_gid[b->indices[e]];
    return GNN_OK;
}

gnn_oracle_outcome gnn_oracle_sample_lists(gnn_oracle_ctx *ctx, gnn_sampler *smp, const int64_t *seeds,
                                           int64_t n_seeds, const gnn_sample_params *p, const char *who,
                                           gnn_sampled *s)
{
    memset(s, 0, sizeof *s);
    gnn_block b;
    gnn_oracle_outcome o = gnn_oracle_status(ctx, who, gnn_sampler_layer(smp, seeds, n_seeds, p, &b));
    if (o != GNN_ORACLE_PASS)
        return o;
    const gnn_status st = gnn_oracle_sampled_of_block(&b, s);
    gnn_block_free(&b);
    return st ? gnn_oracle_fail(ctx, "out of memory") : GNN_ORACLE_PASS;
}

gnn_oracle_outcome gnn_oracle_sample_twice(gnn_oracle_ctx *ctx, const gnn_sampler_ops *ops, const gnn_csr *g,
                                           const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                                           const char *who, gnn_sampled **s, gnn_sampled **s2)
{
    char who2[64];
    snprintf(who2, sizeof who2, "%s (second call)", who);
    *s = gnn_oracle_alloc(ctx, sizeof **s);
    *s2 = gnn_oracle_alloc(ctx, sizeof **s2);
    if (!*s || !*s2)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_sampler *smp;
    gnn_oracle_outcome o = gnn_oracle_sampler_make(ctx, ops, g, &smp);
    if (o != GNN_ORACLE_PASS)
        return o;
    if ((o = gnn_oracle_sample_lists(ctx, smp, seeds, n_seeds, p, who, *s)) != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_defer(ctx, free_sampled, *s);
    if ((o = gnn_oracle_sample_lists(ctx, smp, seeds, n_seeds, p, who2, *s2)) != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_defer(ctx, free_sampled, *s2);
    gnn_oracle_digest(ctx, (*s)->offsets, ((size_t)(*s)->n_dst + 1) * sizeof(int64_t));
    gnn_oracle_digest(ctx, (*s)->nbr_gid, (size_t)(*s)->nnz * sizeof(int64_t));
    return GNN_ORACLE_PASS;
}

gnn_oracle_outcome gnn_oracle_sample_same(gnn_oracle_ctx *ctx, const gnn_sampled *s, const gnn_sampled *s2)
{
    if (s2->n_dst != s->n_dst || s2->nnz != s->nnz)
        return gnn_oracle_fail(ctx, "a second call with the same inputs gives different sizes");
    gnn_oracle_outcome o = gnn_oracle_compare_int(ctx, "offsets (second call)", s->offsets, s2->offsets, s->n_dst + 1, 8);
    return gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "nbr_gid (second call)", s->nbr_gid, s2->nbr_gid, s->nnz, 8));
}

static gnn_oracle_outcome sample_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_oracle_outcome gate = cuda_gate(ctx, c->impl);
    if (gate != GNN_ORACLE_PASS)
        return gate;
    const gnn_sampler_ops *ops = c->impl->ops;
    const int64_t n = gnn_oracle_int(c, S_N), n_seeds = gnn_oracle_int(c, S_SEEDS);
    if (n_seeds > n)
        return gnn_oracle_fail(ctx, "invalid case: seeds=%lld > n=%lld (seeds are distinct)", (long long)n_seeds,
                               (long long)n);
    gnn_csr g;
    if (gnn_oracle_sample_random_graph(ctx, c, n, gnn_oracle_lo(c, S_DEG), gnn_oracle_hi(c, S_DEG), &g))
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
    gnn_sampled *s, *s2;
    gnn_oracle_outcome o = gnn_oracle_sample_twice(ctx, ops, &g, seeds, n_seeds, &p, "uniform", &s, &s2);
    if (o != GNN_ORACLE_PASS)
        return o;

    /* 1. shape: the seeds in order, offsets from 0, count = min(k, d) (k with replacement) */
    if (s->n_dst != n_seeds)
        return gnn_oracle_fail(ctx, "n_dst = %lld, expected %lld seeds", (long long)s->n_dst, (long long)n_seeds);
    if (s->offsets[0] != 0)
        return gnn_oracle_fail(ctx, "offsets[0] = %lld, expected 0", (long long)s->offsets[0]);
    for (int64_t i = 0; i < n_seeds; i++) {
        const int64_t v = seeds[i], d = gnn_csr_degree(&g, v);
        const int64_t want = gnn_oracle_sample_expected_count(d, p.fanout, p.replace);
        const int64_t got = s->offsets[i + 1] - s->offsets[i];
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
    return gnn_oracle_sample_same(ctx, s, s2);
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
    const gnn_oracle_outcome gate = cuda_gate(ctx, c->impl);
    if (gate != GNN_ORACLE_PASS)
        return gate;
    const gnn_sampler_ops *ops = c->impl->ops;
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
    gnn_sampler *smp;
    gnn_oracle_outcome o = gnn_oracle_sampler_make(ctx, ops, &g, &smp);
    if (o != GNN_ORACLE_PASS)
        return o;
    for (int64_t t = 0; t < steps; t++) {
        gnn_sample_params p = { .fanout = fanout, .replace = replace, .seed = c->seed * 0x9E3779B97F4A7C15ull + 11,
                                .step = (uint32_t)t, .layer = 0 };
        gnn_sampled s;
        if ((o = gnn_oracle_sample_lists(ctx, smp, seeds, verts, &p, "uniform", &s)) != GNN_ORACLE_PASS)
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

/* A synthetic sampled list for case c: n_dst distinct seeds (rejection on a linear check;
 * with dup the last repeats the first), degrees uniform in the case's deg range, and samples
 * uniform in [0, gids), a third of them hitting a seed (as in real blocks). sorted: (n_dst)
 * scratch the caller uses later, allocated here with the rest. */
static gnn_oracle_outcome build_make_sampled(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, gnn_sampled *s,
                                             int64_t **sorted)
{
    const int64_t n_dst = gnn_oracle_int(c, B_NDST), gids = gnn_oracle_int(c, B_GIDS);
    const int dup = (int)gnn_oracle_int(c, B_DUP);
    *s = (gnn_sampled){ .n_dst = n_dst };
    s->dst_gid = gnn_oracle_alloc(ctx, (size_t)n_dst * sizeof(int64_t));
    s->offsets = gnn_oracle_alloc(ctx, ((size_t)n_dst + 1) * sizeof(int64_t));
    *sorted = gnn_oracle_alloc(ctx, (size_t)n_dst * sizeof(int64_t));
    if (!s->dst_gid || !s->offsets || !*sorted)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws gd = gnn_oracle_draws_make(c, 1), gn = gnn_oracle_draws_make(c, 2);
    for (int64_t i = 0; i < n_dst; i++) {
        int fresh;
        do { /* distinct: n_dst <= gids and the sets are small */
            s->dst_gid[i] = (int64_t)gnn_oracle_draw_uint(&gd, (uint64_t)gids);
            fresh = 1;
            for (int64_t j = 0; j < i && fresh; j++)
                fresh = s->dst_gid[j] != s->dst_gid[i];
        } while (!fresh);
    }
    if (dup)
        s->dst_gid[n_dst - 1] = s->dst_gid[0];
    for (int64_t i = 0; i < n_dst; i++)
        s->offsets[i + 1] = s->offsets[i] + gnn_oracle_draw_range(&gn, gnn_oracle_lo(c, B_DEG), gnn_oracle_hi(c, B_DEG));
    s->nnz = s->offsets[n_dst];
    s->nbr_gid = gnn_oracle_alloc(ctx, (size_t)s->nnz * sizeof(int64_t));
    if (!s->nbr_gid)
        return gnn_oracle_fail(ctx, "out of memory");
    for (int64_t e = 0; e < s->nnz; e++) /* a third of the samples hit a seed (as in real blocks) */
        s->nbr_gid[e] = (n_dst > 0 && gnn_oracle_draw_uint(&gn, 3) == 0)
                            ? s->dst_gid[gnn_oracle_draw_uint(&gn, (uint64_t)n_dst)]
                            : (int64_t)gnn_oracle_draw_uint(&gn, (uint64_t)gids);
    return GNN_ORACLE_PASS;
}

/* 1. sizes and dst prefix; 2. edges: CSC offsets equal the sampled offsets, and each edge maps
 * back to its global id */
static gnn_oracle_outcome build_check_edges(gnn_oracle_ctx *ctx, const gnn_block *b, const gnn_sampled *s)
{
    const int64_t n_dst = s->n_dst;
    if (b->n_dst != n_dst || b->nnz != s->nnz)
        return gnn_oracle_fail(ctx, "block n_dst=%lld nnz=%lld, expected %lld and %lld", (long long)b->n_dst,
                               (long long)b->nnz, (long long)n_dst, (long long)s->nnz);
    for (int64_t i = 0; i < n_dst; i++)
        if (b->src_gid[i] != s->dst_gid[i])
            return gnn_oracle_fail(ctx, "src_gid[%lld] = %lld: the first n_dst src must be the seeds in order (%lld)",
                                   (long long)i, (long long)b->src_gid[i], (long long)s->dst_gid[i]);
    for (int64_t i = 0; i <= n_dst; i++)
        if (b->indptr[i] != s->offsets[i])
            return gnn_oracle_fail(ctx, "indptr[%lld] = %lld, sampled offsets %lld", (long long)i, (long long)b->indptr[i],
                                   (long long)s->offsets[i]);
    for (int64_t e = 0; e < s->nnz; e++)
        if (b->src_gid[b->indices[e]] != s->nbr_gid[e])
            return gnn_oracle_fail(ctx, "edge %lld: src_gid[indices[e] = %d] = %lld but the sample was %lld", (long long)e,
                                   b->indices[e], (long long)b->src_gid[b->indices[e]], (long long)s->nbr_gid[e]);
    return GNN_ORACLE_PASS;
}

/* 3. src unique: sort a copy. ids: (n_src) scratch */
static gnn_oracle_outcome build_check_unique(gnn_oracle_ctx *ctx, const gnn_block *b, int64_t *ids)
{
    memcpy(ids, b->src_gid, (size_t)b->n_src * sizeof(int64_t));
    qsort(ids, (size_t)b->n_src, sizeof(int64_t), gnn_cmp_i64);
    for (int64_t i = 1; i < b->n_src; i++)
        if (ids[i] == ids[i - 1])
            return gnn_oracle_fail(ctx, "src vertex %lld appears twice", (long long)ids[i]);
    return GNN_ORACLE_PASS;
}

/* 4. new src in order of first appearance: sort (gid, position) pairs of the samples; the
 *    first pair of each gid is its first appearance; those positions must increase along
 *    src n_dst, n_dst + 1, ... and every sampled gid that is not a seed must be there.
 *    firsts: (nnz) and sorted: (n_dst) scratch */
static gnn_oracle_outcome build_check_first_appearance(gnn_oracle_ctx *ctx, const gnn_block *b, const gnn_sampled *s,
                                                       gid_first *firsts, int64_t *sorted)
{
    const int64_t n_dst = s->n_dst;
    for (int64_t e = 0; e < s->nnz; e++)
        firsts[e] = (gid_first){ s->nbr_gid[e], e };
    qsort(firsts, (size_t)s->nnz, sizeof *firsts, cmp_gid_first);
    memcpy(sorted, s->dst_gid, (size_t)n_dst * sizeof(int64_t));
    qsort(sorted, (size_t)n_dst, sizeof(int64_t), gnn_cmp_i64);
    int64_t distinct_new = 0;
    for (int64_t e = 0; e < s->nnz; e++)
        if ((e == 0 || firsts[e].gid != firsts[e - 1].gid) &&
            !bsearch(&firsts[e].gid, sorted, (size_t)n_dst, sizeof(int64_t), gnn_cmp_i64))
            distinct_new++;
    if (b->n_src != n_dst + distinct_new)
        return gnn_oracle_fail(ctx, "n_src = %lld, expected %lld seeds + %lld distinct new sampled vertices",
                               (long long)b->n_src, (long long)n_dst, (long long)distinct_new);
    int64_t prev = -1;
    for (int64_t p = n_dst; p < b->n_src; p++) {
        gid_first key = { b->src_gid[p], -1 };
        /* lower bound: the first pair with this gid */
        size_t lo = 0, hi = (size_t)s->nnz;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (cmp_gid_first(&firsts[mid], &key) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == (size_t)s->nnz || firsts[lo].gid != key.gid)
            return gnn_oracle_fail(ctx, "src %lld (gid %lld) was never sampled", (long long)p, (long long)key.gid);
        if (firsts[lo].first <= prev)
            return gnn_oracle_fail(ctx, "src %lld (gid %lld) first appears at sample %lld, before src %lld's (%lld): "
                                   "new src must be in order of first appearance", (long long)p, (long long)key.gid,
                                   (long long)firsts[lo].first, (long long)(p - 1), (long long)prev);
        prev = firsts[lo].first;
    }
    return GNN_ORACLE_PASS;
}

/* The block of the sampled lists s through the ID map m (what a sampler does after drawing):
 * the CSC offsets are the sampled offsets, the map relabels dst then nbr. */
static gnn_status build_block(gnn_idmap *m, const gnn_sampled *s, gnn_block *out)
{
    const int64_t n_dst = s->n_dst;
    if (n_dst + s->nnz > INT32_MAX)
        return GNN_ERR_RANGE;
    gnn_status st = gnn_block_alloc(out, n_dst, n_dst + s->nnz, s->nnz);
    if (st)
        return st;
    st = gnn_idmap_build(m, s->dst_gid, n_dst, s->nbr_gid, s->nnz, out->indices, out->src_gid, &out->n_src);
    if (st) {
        gnn_block_free(out);
        return st;
    }
    memcpy(out->indptr, s->offsets, ((size_t)n_dst + 1) * sizeof(int64_t));
    out->nnz = s->nnz;
    return GNN_OK;
}

static gnn_oracle_outcome build_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_oracle_outcome gate = cuda_gate(ctx, c->impl);
    if (gate != GNN_ORACLE_PASS)
        return gate;
    const gnn_idmap_ops *ops = c->impl->ops;
    const int64_t n_dst = gnn_oracle_int(c, B_NDST), gids = gnn_oracle_int(c, B_GIDS);
    const int dup = (int)gnn_oracle_int(c, B_DUP);
    if (n_dst > gids || (dup && n_dst < 2))
        return gnn_oracle_fail(ctx, "invalid case: need n_dst <= gids (and n_dst >= 2 with dup=1)");
    gnn_sampled s;
    int64_t *sorted;
    gnn_oracle_outcome o = build_make_sampled(ctx, c, &s, &sorted);
    if (o != GNN_ORACLE_PASS)
        return o;

    gnn_block *b = gnn_oracle_alloc(ctx, sizeof *b), *b2 = gnn_oracle_alloc(ctx, sizeof *b2);
    gnn_idmap *m;
    if (!b || !b2)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_status st = gnn_idmap_create(&m, ops, GNN_IDMAP_ORDERED, gids);
    if ((o = gnn_oracle_status(ctx, "idmap create", st)) != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_defer(ctx, free_idmap, m);
    st = build_block(m, &s, b);
    if (st == GNN_OK)
        gnn_oracle_defer(ctx, free_block, b);
    if (dup) {
        if (st == GNN_ERR_INVAL)
            return GNN_ORACLE_PASS;
        return gnn_oracle_fail(ctx, "a repeated seed (dst_gid[%lld] = dst_gid[0] = %lld) must give %s, got %s",
                               (long long)(n_dst - 1), (long long)s.dst_gid[0], gnn_status_str(GNN_ERR_INVAL),
                               gnn_status_str(st));
    }
    if ((o = gnn_oracle_status(ctx, "build", st)) != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, b->src_gid, (size_t)b->n_src * sizeof(int64_t));
    gnn_oracle_digest(ctx, b->indices, (size_t)b->nnz * sizeof(int32_t));
    gnn_err err;
    if (gnn_block_validate(b, &err) != GNN_OK)
        return gnn_oracle_fail(ctx, "invalid block: %s", err.msg);
    if ((o = build_check_edges(ctx, b, &s)) != GNN_ORACLE_PASS)
        return o;
    int64_t *ids = gnn_oracle_alloc(ctx, (size_t)b->n_src * sizeof(int64_t));
    gid_first *firsts = gnn_oracle_alloc(ctx, (size_t)s.nnz * sizeof(gid_first));
    if (!ids || !firsts)
        return gnn_oracle_fail(ctx, "out of memory");
    if ((o = build_check_unique(ctx, b, ids)) != GNN_ORACLE_PASS ||
        (o = build_check_first_appearance(ctx, b, &s, firsts, sorted)) != GNN_ORACLE_PASS)
        return o;
    /* 5. determinism */
    if ((o = gnn_oracle_status(ctx, "build (second call)", build_block(m, &s, b2))) != GNN_ORACLE_PASS)
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
    .ref = &k_build_ref, .impls = k_build_impls, .run = build_run,
};
