/* tests/test_sample_weighted.c -- weighted neighbor sampling (docs/sampling.md).
 *
 * Cases:
 *   api     bad arguments and bad weights return their status codes;
 *   pinned  the worked example of docs/sampling.md, computed independently of this code;
 *   kernel  the reference vs the per-vertex kernels of opt/cpu/sample_weighted.h, bitwise, on
 *           many random graphs and weight patterns (zeros, all-zero rows, degree 0, fanout
 *           above the positive count, fanout -1, k = 1, huge weight ratios, equal weights);
 *   verify  properties of the reference (counts, positive weights only, no repeats without
 *           replacement, CSR order when everything is taken, reproducibility);
 *   dist    frequencies follow the weights (chi-square with a fixed seed, so deterministic):
 *           categorical draws with replacement, and ordered pairs without replacement, whose
 *           law is successive sampling proportional to the remaining weights.
 * The cpu sampler's prefix searches and its per-graph table: tests/test_sample_wtable.c. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gnnref/graph.h"
#include "gnnref/oracle.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "gnnref/idmap.h"
#include "opt/cpu/sample_weighted.h"
#include "ref/sample_ref.h"
#include "core/ops/sampler_base.h" /* the fingerprint's probes */
#include "mix_util.h"

/* ---- test data ------------------------------------------------------------------------------ */

enum { W_UNIFORM, W_EQUAL, W_HUGE_RATIO, W_SMALL_INT, W_EXTREME, W_MODES };
static const char *const k_wmode_name[W_MODES] = { "uniform", "equal", "huge-ratio", "small-int", "extreme" };

/* Random graph: n vertices, m random edges, vertex 0 a hub with `hub` extra in-edges, and
 * every third vertex isolated (degree 0). flags as gnn_csr_from_edges. */
static void random_graph(gnn_csr *g, uint64_t *x, int64_t n, int64_t m, int64_t hub, unsigned flags)
{
    int64_t *src = gnn_malloc((size_t)(m + hub) * sizeof(int64_t));
    int64_t *dst = gnn_malloc((size_t)(m + hub) * sizeof(int64_t));
    ck_assert(src && dst);
    int64_t e = 0;
    while (e < m) {
        src[e] = mix_below(x, n);
        dst[e] = mix_below(x, n);
        if (dst[e] % 3 != 2)
            e++;
    }
    for (int64_t h = 0; h < hub; h++, e++) {
        src[e] = mix_below(x, n);
        dst[e] = 0;
    }
    gnn_err err;
    ck_assert_msg(gnn_csr_from_edges(g, n, m + hub, src, dst, flags, &err) == GNN_OK, "%s", err.msg);
    gnn_free(src);
    gnn_free(dst);
}

/* Weights (g->nnz) of the given pattern; about a tenth of the rows all zero. */
static float *random_weights(const gnn_csr *g, uint64_t *x, int mode)
{
    float *w = gnn_malloc((size_t)g->nnz * sizeof(float));
    ck_assert_ptr_nonnull(w);
    static const float extreme[] = { FLT_TRUE_MIN, 1e-40f, FLT_MIN, 1.0f, 3.0f, 1e30f, FLT_MAX, 0.0f, -0.0f };
    for (int64_t e = 0; e < g->nnz; e++) {
        const int zero = mix_below(x, 10) < 3;
        switch (mode) {
        case W_UNIFORM: w[e] = zero ? 0.0f : 1.0f - mix_unit(x); break; /* (0, 1] */
        case W_EQUAL: w[e] = 1.0f; break;
        case W_HUGE_RATIO: w[e] = zero ? 0.0f : ldexpf(1.0f + mix_unit(x), (int)mix_below(x, 253) - 126); break;
        case W_SMALL_INT: w[e] = (float)mix_below(x, 4); break;
        default: w[e] = extreme[mix_below(x, (int64_t)(sizeof extreme / sizeof *extreme))]; break;
        }
    }
    for (int64_t v = 0; v < g->n; v++)
        if (mix_below(x, 10) == 0)
            for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++)
                w[e] = 0.0f;
    return w;
}

/* Vertex 42 with neighbors 10..14 (the worked example of docs/sampling.md). */
static const int64_t k_ex_indptr[44] = { [43] = 5 };
static const int64_t k_ex_indices[5] = { 10, 11, 12, 13, 14 };
static const float k_ex_weights[5] = { 1.0f, 2.0f, 0.0f, 4.0f, 1.0f };
static gnn_csr example_graph(void)
{
    gnn_csr g = { .n = 43, .nnz = 5, .indptr = (int64_t *)k_ex_indptr, .indices = (int64_t *)k_ex_indices, .owns = 0 };
    return g;
}

static int64_t positives(const float *w, int64_t d)
{
    int64_t P = 0;
    for (int64_t e = 0; e < d; e++)
        P += w[e] > 0.0f;
    return P;
}

/* ---- api ------------------------------------------------------------------------------------ */

START_TEST(weighted_api)
{
    gnn_csr g = example_graph();
    float w[5];
    memcpy(w, k_ex_weights, sizeof w);
    gnn_sample_params p = { .fanout = 2, .seed = 1, .weights = w };
    /* Bad input goes through the entry point (gnn_sampler_create, gnn_sampler_layer): its
     * checks are the only ones (STYLE.md); the reference body assumes valid data. */
    gnn_sampler *smp = NULL;
    ck_assert_int_eq(gnn_sampler_create(&smp, &gnn_sampler_ref, NULL, NULL), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_sampler_create(&smp, &gnn_sampler_ref, &g, NULL), GNN_OK);
    gnn_block s;
    int64_t seeds[2] = { 42, 0 };
    ck_assert_int_eq(gnn_sampler_layer(smp, seeds, 2, NULL, &s), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_sampler_layer(smp, seeds, 2, &p, NULL), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_sampler_layer(smp, NULL, 2, &p, &s), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_sampler_layer(smp, seeds, -1, &p, &s), GNN_ERR_INVAL);
    /* seeds out of range */
    int64_t bad[2] = { 42, 43 };
    ck_assert_int_eq(gnn_sampler_layer(smp, bad, 2, &p, &s), GNN_ERR_RANGE);
    bad[1] = -1;
    ck_assert_int_eq(gnn_sampler_layer(smp, bad, 2, &p, &s), GNN_ERR_RANGE);
    ck_assert_ptr_null(s.src_gid); /* out is zeroed on failure */
    gnn_block_free(&s);
    /* bad weights in a sampled row: negative, NaN, +Inf, -Inf; refused by the entry point */
    const float badw[] = { -1.0f, -FLT_TRUE_MIN, NAN, INFINITY, -INFINITY };
    for (size_t b = 0; b < sizeof badw / sizeof *badw; b++) {
        for (int replace = 0; replace < 2; replace++) {
            memcpy(w, k_ex_weights, sizeof w);
            w[3] = badw[b];
            p.replace = replace;
            ck_assert_int_eq(gnn_sampler_layer(smp, seeds, 2, &p, &s), GNN_ERR_INVAL);
            /* a seed out of range is reported before a bad weight */
            ck_assert_int_eq(gnn_sampler_layer(smp, bad, 2, &p, &s), GNN_ERR_RANGE);
            /* rows that are not sampled are not read */
            ck_assert_int_eq(gnn_sampler_layer(smp, seeds + 1, 1, &p, &s), GNN_OK);
            ck_assert_int_eq(s.nnz, 0);
            gnn_block_free(&s);
        }
    }
    /* -0.0 is a weight of zero: valid, never drawn */
    memcpy(w, k_ex_weights, sizeof w);
    w[2] = -0.0f;
    p.replace = 0;
    p.fanout = -1;
    ck_assert_int_eq(gnn_sampler_layer(smp, seeds, 1, &p, &s), GNN_OK);
    ck_assert_int_eq(s.nnz, 4);
    gnn_block_free(&s);
    /* no seeds */
    ck_assert_int_eq(gnn_sampler_layer(smp, NULL, 0, &p, &s), GNN_OK);
    ck_assert_int_eq(s.n_dst, 0);
    ck_assert_int_eq(s.nnz, 0);
    ck_assert_int_eq(s.indptr[0], 0);
    gnn_block_free(&s);
    gnn_sampler_destroy(smp);
    /* scratch: grows, keeps its capacity, frees to zero */
    gnn_wscratch scr = { 0 };
    ck_assert_int_eq(gnn_wscratch_reserve(&scr, 0), 0);
    ck_assert_int_eq(gnn_wscratch_reserve(&scr, 10), 0);
    ck_assert_int_ge(scr.cap, 10);
    const int64_t cap = scr.cap;
    ck_assert_int_eq(gnn_wscratch_reserve(&scr, 5), 0);
    ck_assert_int_eq(scr.cap, cap);
    ck_assert_int_eq(gnn_wscratch_reserve(&scr, 11), 0);
    ck_assert_int_ge(scr.cap, 11);
    gnn_wscratch_free(&scr);
    ck_assert_int_eq(scr.cap, 0);
    ck_assert_ptr_null(scr.key);
}
END_TEST

/* ---- pinned --------------------------------------------------------------------------------- */

/* docs/sampling.md, "Worked example": vertex 42, neighbors (10, 11, 12, 13, 14), weights
 * (1, 2, 0, 4, 1), prefix sums (1, 3, 3, 7, 8), W = 8, seed 1, layer 0; values computed from
 * the Philox definition by an independent script. Step 0: the inversion draws land at
 * t = 3.2704, 1.7982, 3.7021, 5.0680, 3.6474, 0.5326, ..., i.e. positions 3, 1, 3, 3, 3, 0:
 * with replacement (k = 3) 13, 11, 13; without, the first k distinct ones (k = 3: 13, 11, 10,
 * from the sixth draw). Step 5, k = 3 without replacement: the 12 draws of the budget find
 * only positions 1 and 3, so the fallback ranks the rest by A-ES keys with draws 12 + i:
 * position 0 (draw 12) -0.0864, position 4 (draw 16) -2.0849, and takes position 0. */
/* The entry point reads a row's weights once per key (pointer, weights_version, fingerprint:
 * core/ops/sampler_base.h) and not on every call, as the cpu sampler reads a row once: a weight
 * made invalid in place, at a position the fingerprint does not probe, is seen after a new
 * weights_version, for the ref and the cpu sampler alike. */
START_TEST(weighted_check_once_per_version)
{
    enum { DEG = 200 };
    int64_t src[DEG], dst[DEG];
    for (int i = 0; i < DEG; i++)
        src[i] = i + 1, dst[i] = 0;
    gnn_csr g;
    ck_assert_int_eq(gnn_csr_from_edges(&g, DEG + 1, DEG, src, dst, 0, NULL), GNN_OK);
    int64_t hidden = -1; /* a position no probe of the fingerprint reads */
    for (int64_t e = 0; e < g.nnz && hidden < 0; e++) {
        int probed = 0;
        for (int64_t j = 0; j < GNN_SAMPLE_WEIGHT_PROBES; j++)
            probed |= gnn_sample_weight_probe(j, g.nnz) == e;
        hidden = probed ? -1 : e;
    }
    ck_assert_int_ge(hidden, 0);
    const gnn_sampler_ops *const ops[] = { &gnn_sampler_ref, &gnn_sampler_cpu };
    for (int o = 0; o < 2; o++) {
        float w[DEG];
        for (int e = 0; e < DEG; e++)
            w[e] = 1.0f;
        gnn_sample_params p = { .fanout = 3, .seed = 5, .weights = w, .weights_version = 1 };
        gnn_sampler *smp;
        ck_assert_int_eq(gnn_sampler_create(&smp, ops[o], &g, NULL), GNN_OK);
        const int64_t seed = 0;
        gnn_block b;
        ck_assert_int_eq(gnn_sampler_layer(smp, &seed, 1, &p, &b), GNN_OK);
        gnn_block_free(&b);
        w[hidden] = -1.0f; /* in place, same version: the row found valid is not read again */
        ck_assert_int_eq(gnn_sampler_layer(smp, &seed, 1, &p, &b), GNN_OK);
        gnn_block_free(&b);
        p.weights_version = 2; /* the contract: a new version after an in-place change */
        ck_assert_int_eq(gnn_sampler_layer(smp, &seed, 1, &p, &b), GNN_ERR_INVAL);
        w[hidden] = 1.0f;
        ck_assert_int_eq(gnn_sampler_layer(smp, &seed, 1, &p, &b), GNN_OK);
        gnn_block_free(&b);
        gnn_sampler_destroy(smp);
    }
    gnn_csr_free(&g);
}
END_TEST

START_TEST(weighted_pinned)
{
    gnn_csr g = example_graph();
    const int64_t v = 42;
    struct { int64_t k; int replace; uint32_t step; int64_t n; int64_t want[4]; } cases[] = {
        { 1, 0, 0, 1, { 13 } },
        { 2, 0, 0, 2, { 13, 11 } },
        { 3, 0, 0, 3, { 13, 11, 10 } },
        { 3, 0, 5, 3, { 11, 13, 10 } },      /* the fallback */
        { 4, 0, 0, 4, { 10, 11, 13, 14 } }, /* P = 4 <= k: CSR order, no draws */
        { 9, 0, 0, 4, { 10, 11, 13, 14 } },
        { -1, 0, 0, 4, { 10, 11, 13, 14 } },
        { -1, 1, 0, 4, { 10, 11, 13, 14 } },
        { 3, 1, 0, 3, { 13, 11, 13 } },
        { 0, 0, 0, 0, { 0 } },
        { 0, 1, 0, 0, { 0 } },
    };
    gnn_wscratch scr = { 0 };
    ck_assert_int_eq(gnn_wscratch_reserve(&scr, 5), 0);
    ck_assert_int_eq(gnn_wscratch_reserve_bits(&scr, 5), 0);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        gnn_sample_params p = { .fanout = cases[c].k, .replace = cases[c].replace, .seed = 1, .step = cases[c].step,
                                .weights = k_ex_weights };
        gnn_sampled s;
        ck_assert_int_eq(gnn_sample_weighted_ref(&g, &v, 1, &p, &s), GNN_OK);
        ck_assert_int_eq(s.nnz, cases[c].n);
        for (int64_t j = 0; j < s.nnz; j++)
            ck_assert_msg(s.nbr_gid[j] == cases[c].want[j], "case %zu (k=%lld replace=%d): sample %lld = %lld, want %lld",
                          c, (long long)cases[c].k, cases[c].replace, (long long)j, (long long)s.nbr_gid[j],
                          (long long)cases[c].want[j]);
        gnn_sampled_free(&s);
        /* the kernel too */
        const gnn_rng_stream st = gnn_rng_stream_make(1, GNN_TAG_SAMPLE, cases[c].step, 0, 42);
        int64_t out[5] = { -7, -7, -7, -7, -7 };
        const int64_t n = gnn_cpu_weighted_count(k_ex_weights, 5, cases[c].k, cases[c].replace);
        ck_assert_int_eq(n, cases[c].n);
        gnn_cpu_weighted_vertex(k_ex_indices, k_ex_weights, 5, cases[c].k, cases[c].replace, &st, n, out, &scr);
        for (int64_t j = 0; j < n; j++)
            ck_assert_int_eq(out[j], cases[c].want[j]);
        ck_assert_int_eq(out[n], -7); /* nothing written past count */
    }
    gnn_wscratch_free(&scr);
}
END_TEST

/* ---- kernel vs ref -------------------------------------------------------------------------- */

/* Run the kernels over every seed as opt/cpu/sample.c does (one scratch, reused) and compare
 * each vertex's samples with the reference, bitwise. Returns the samples compared. */
static int64_t compare_kernel(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                              gnn_wscratch *scr, const char *what)
{
    gnn_sampled ref;
    ck_assert_int_eq(gnn_sample_weighted_ref(g, seeds, n_seeds, p, &ref), GNN_OK);
    int64_t *out = gnn_malloc((size_t)(ref.nnz + 1) * sizeof(int64_t));
    ck_assert_ptr_nonnull(out);
    for (int64_t i = 0; i < n_seeds; i++) {
        const int64_t v = seeds[i];
        const int64_t off = g->indptr[v], d = gnn_csr_degree(g, v);
        const float *w = p->weights + off;
        const int64_t count = gnn_cpu_weighted_count(w, d, p->fanout, p->replace);
        if (count != ref.offsets[i + 1] - ref.offsets[i])
            ck_abort_msg("%s: vertex %lld (d=%lld, P=%lld, k=%lld, replace=%d): kernel count %lld, ref %lld", what,
                         (long long)v, (long long)d, (long long)positives(w, d), (long long)p->fanout, p->replace,
                         (long long)count, (long long)(ref.offsets[i + 1] - ref.offsets[i]));
        if (gnn_wscratch_reserve(scr, d) != 0 || gnn_wscratch_reserve_bits(scr, d) != 0)
            ck_abort_msg("gnn_wscratch_reserve(%lld) failed", (long long)d);
        const gnn_rng_stream s = gnn_rng_stream_make(p->seed, GNN_TAG_SAMPLE, p->step, p->layer, (uint64_t)v);
        out[count] = INT64_MIN; /* guard */
        gnn_cpu_weighted_vertex(g->indices + off, w, d, p->fanout, p->replace, &s, count, out, scr);
        if (out[count] != INT64_MIN)
            ck_abort_msg("%s: vertex %lld: kernel wrote past its count", what, (long long)v);
        /* plain compare first: every passing ck_assert costs a write to Check's pipe */
        for (int64_t j = 0; j < count; j++)
            if (out[j] != ref.nbr_gid[ref.offsets[i] + j])
                ck_abort_msg("%s: vertex %lld (d=%lld, P=%lld, k=%lld, replace=%d, seed=%llu, step=%u, layer=%u): "
                             "sample %lld: kernel %lld, ref %lld", what, (long long)v, (long long)d,
                             (long long)positives(w, d), (long long)p->fanout, p->replace, (unsigned long long)p->seed,
                             p->step, p->layer, (long long)j, (long long)out[j],
                             (long long)ref.nbr_gid[ref.offsets[i] + j]);
    }
    const int64_t nnz = ref.nnz;
    gnn_free(out);
    gnn_sampled_free(&ref);
    return nnz;
}

START_TEST(weighted_kernel_bitwise)
{
    static const int64_t fanouts[] = { -1, 0, 1, 2, 3, 5, 10, 25, 1000 };
    const int n_fanouts = (int)(sizeof fanouts / sizeof *fanouts);
    gnn_wscratch scr = { 0 }; /* starts empty: the first reserve allocates */
    int64_t compared = 0, vertices = 0;
    uint64_t x = 20240917;
    for (int graph = 0; graph < 60; graph++) {
        const int64_t n = 1 + mix_below(&x, 300);
        const int64_t m = mix_below(&x, 8 * n + 1);
        const int64_t hub = graph % 4 == 0 ? 3000 : mix_below(&x, 40);
        gnn_csr g;
        random_graph(&g, &x, n, m, hub, graph % 2 ? GNN_CSR_DEDUP : 0);
        int64_t *seeds = gnn_malloc((size_t)n * sizeof(int64_t));
        ck_assert_ptr_nonnull(seeds);
        for (int64_t v = 0; v < n; v++) /* every vertex, in a scrambled order */
            seeds[v] = v;
        const gnn_rng_stream shuffle = gnn_rng_stream_make((uint64_t)graph, GNN_TAG_ORACLE, 0, 0, 0);
        gnn_rng_shuffle_i64(&shuffle, seeds, n);
        for (int mode = 0; mode < W_MODES; mode++) {
            float *w = random_weights(&g, &x, mode);
            for (int f = 0; f < n_fanouts; f++)
                for (int replace = 0; replace < 2; replace++) {
                    gnn_sample_params p = { .fanout = fanouts[f], .replace = replace, .seed = mix_next(&x),
                                            .step = (uint32_t)mix_next(&x), .layer = (unsigned)mix_below(&x, 4),
                                            .weights = w };
                    char what[96];
                    snprintf(what, sizeof what, "graph %d (n=%lld), weights %s", graph, (long long)n, k_wmode_name[mode]);
                    compared += compare_kernel(&g, seeds, n, &p, &scr, what);
                    vertices += n;
                }
            gnn_free(w);
        }
        gnn_free(seeds);
        gnn_csr_free(&g);
    }
    gnn_wscratch_free(&scr);
    printf("sample_weighted: kernel == ref on %lld vertex samples, %lld sampled neighbors\n", (long long)vertices,
           (long long)compared);
    ck_assert_int_gt(compared, 100000);
}
END_TEST

/* One hub of degree 400, k swept over -1 .. d+1 (every heap size, P around k) in every weight
 * pattern, with and without replacement. */
START_TEST(weighted_kernel_fanout_sweep)
{
    uint64_t x = 77;
    gnn_csr g;
    random_graph(&g, &x, 50, 0, 400, 0); /* only the hub's edges */
    gnn_wscratch scr = { 0 };
    const int64_t v = 0;
    for (int mode = 0; mode < W_MODES; mode++) {
        float *w = random_weights(&g, &x, mode);
        for (int64_t k = -1; k <= gnn_csr_degree(&g, 0) + 1; k++)
            for (int replace = 0; replace < 2; replace++) {
                gnn_sample_params p = { .fanout = k, .replace = replace, .seed = 5, .step = (uint32_t)k, .weights = w };
                compare_kernel(&g, &v, 1, &p, &scr, k_wmode_name[mode]);
            }
        gnn_free(w);
    }
    gnn_wscratch_free(&scr);
    gnn_csr_free(&g);
}
END_TEST

/* ---- verify --------------------------------------------------------------------------------- */

START_TEST(weighted_ref_properties)
{
    uint64_t x = 4242;
    gnn_csr g;
    random_graph(&g, &x, 200, 1500, 500, GNN_CSR_DEDUP); /* no multi-edges: gid repeats = position repeats */
    int64_t seeds[200];
    for (int64_t i = 0; i < 200; i++)
        seeds[i] = 199 - i;
    static const int64_t fanouts[] = { -1, 0, 1, 4, 10, 600 };
    for (int mode = 0; mode < W_MODES; mode++) {
        float *w = random_weights(&g, &x, mode);
        for (size_t f = 0; f < sizeof fanouts / sizeof *fanouts; f++)
            for (int replace = 0; replace < 2; replace++) {
                const int64_t k = fanouts[f];
                gnn_sample_params p = { .fanout = k, .replace = replace, .seed = 9, .step = 3, .layer = 1, .weights = w };
                gnn_sampled s, s2;
                ck_assert_int_eq(gnn_sample_weighted_ref(&g, seeds, 200, &p, &s), GNN_OK);
                ck_assert_int_eq(gnn_sample_weighted_ref(&g, seeds, 200, &p, &s2), GNN_OK);
                ck_assert_int_eq(s.n_dst, 200);
                ck_assert_int_eq(s.offsets[0], 0);
                ck_assert_int_eq(s.nnz, s.offsets[200]);
                /* reproducible */
                ck_assert_int_eq(s2.nnz, s.nnz);
                ck_assert(memcmp(s.nbr_gid, s2.nbr_gid, (size_t)s.nnz * sizeof(int64_t)) == 0);
                for (int64_t i = 0; i < 200; i++) {
                    const int64_t v = seeds[i];
                    ck_assert_int_eq(s.dst_gid[i], v);
                    const int64_t *adj = g.indices + g.indptr[v];
                    const float *wv = w + g.indptr[v];
                    const int64_t d = gnn_csr_degree(&g, v), P = positives(wv, d);
                    const int64_t got = s.offsets[i + 1] - s.offsets[i];
                    const int64_t want = k < 0 ? P : replace ? (P > 0 ? k : 0) : (k < P ? k : P);
                    ck_assert_msg(got == want, "vertex %lld: %lld samples, want %lld", (long long)v, (long long)got,
                                  (long long)want);
                    const int64_t *sv = s.nbr_gid + s.offsets[i];
                    int64_t last_pos = -1;
                    for (int64_t j = 0; j < got; j++) {
                        /* the sample is a neighbor with a positive weight */
                        int64_t e = 0;
                        while (e < d && adj[e] != sv[j])
                            e++;
                        ck_assert_msg(e < d, "vertex %lld: sample %lld is not a neighbor", (long long)v, (long long)sv[j]);
                        ck_assert_msg(wv[e] > 0.0f, "vertex %lld: neighbor %lld of weight 0 was drawn", (long long)v,
                                      (long long)sv[j]);
                        /* without replacement: no repeats */
                        if (!replace || k < 0)
                            for (int64_t j2 = 0; j2 < j; j2++)
                                ck_assert_int_ne(sv[j2], sv[j]);
                        /* everything taken: CSR order */
                        if (k < 0 || (!replace && P <= k)) {
                            ck_assert_int_gt(e, last_pos);
                            last_pos = e;
                        }
                    }
                }
                gnn_sampled_free(&s);
                gnn_sampled_free(&s2);
            }
        gnn_free(w);
    }
    /* the stream names step, layer and seed: changing one changes the hub's sample */
    float *w = random_weights(&g, &x, W_UNIFORM);
    for (int64_t e = g.indptr[0]; e < g.indptr[1]; e++)
        w[e] = 1.0f + (float)(e % 5); /* hub row positive whatever random_weights did */
    const int64_t hub = 0;
    gnn_sample_params base = { .fanout = 10, .seed = 9, .step = 3, .layer = 1, .weights = w };
    for (int replace = 0; replace < 2; replace++) {
        base.replace = replace;
        gnn_sampled a;
        ck_assert_int_eq(gnn_sample_weighted_ref(&g, &hub, 1, &base, &a), GNN_OK);
        for (int which = 0; which < 3; which++) {
            gnn_sample_params p = base;
            if (which == 0)
                p.step++;
            else if (which == 1)
                p.layer++;
            else
                p.seed++;
            gnn_sampled b;
            ck_assert_int_eq(gnn_sample_weighted_ref(&g, &hub, 1, &p, &b), GNN_OK);
            ck_assert_int_eq(a.nnz, 10);
            ck_assert_int_eq(b.nnz, 10);
            ck_assert(memcmp(a.nbr_gid, b.nbr_gid, 10 * sizeof(int64_t)) != 0);
            gnn_sampled_free(&b);
        }
        gnn_sampled_free(&a);
    }
    gnn_free(w);
    gnn_csr_free(&g);
}
END_TEST

/* ---- dist ----------------------------------------------------------------------------------- */

/* One vertex (id 0) whose neighbors 1..6 have weights 1, 2, 3, 0, 4, 10. */
static const int64_t k_d_indptr[8] = { 0, 6, 6, 6, 6, 6, 6, 6 };
static const int64_t k_d_indices[6] = { 1, 2, 3, 4, 5, 6 };
static const float k_d_weights[6] = { 1.0f, 2.0f, 3.0f, 0.0f, 4.0f, 10.0f };
enum { D_DEG = 6 };

START_TEST(weighted_dist_replace)
{
    gnn_csr g = { .n = 7, .nnz = 6, .indptr = (int64_t *)k_d_indptr, .indices = (int64_t *)k_d_indices };
    const int64_t v = 0, steps = 10000, k = 8;
    double count[D_DEG] = { 0 };
    for (int64_t t = 0; t < steps; t++) {
        gnn_sample_params p = { .fanout = k, .replace = 1, .seed = 2024, .step = (uint32_t)t, .weights = k_d_weights };
        gnn_sampled s;
        ck_assert_int_eq(gnn_sample_weighted_ref(&g, &v, 1, &p, &s), GNN_OK);
        ck_assert_int_eq(s.nnz, k);
        for (int64_t j = 0; j < k; j++)
            count[s.nbr_gid[j] - 1] += 1.0;
        gnn_sampled_free(&s);
    }
    ck_assert(count[3] == 0.0); /* weight 0 */
    double x2 = 0.0;
    for (int i = 0; i < D_DEG; i++) {
        if (k_d_weights[i] == 0.0f)
            continue;
        const double e = (double)(steps * k) * k_d_weights[i] / 20.0;
        x2 += (count[i] - e) * (count[i] - e) / e;
    }
    const double pv = gnn_oracle_chisq_pvalue(x2, 4.0);
    printf("sample_weighted: with replacement, %lld draws: chi2 = %.3f (dof 4), p = %.3g\n", (long long)(steps * k), x2, pv);
    ck_assert_msg(pv > 1e-4, "categorical frequencies do not follow the weights: chi2 = %g, p = %g", x2, pv);
}
END_TEST

/* Without replacement the output order is the decreasing-key order, whose law is successive
 * sampling: the first sample is i with probability w_i / W, the second j with probability
 * w_j / (W - w_i). The chi-square runs over the 20 ordered pairs of the 5 positive weights. */
START_TEST(weighted_dist_ordered_pairs)
{
    gnn_csr g = { .n = 7, .nnz = 6, .indptr = (int64_t *)k_d_indptr, .indices = (int64_t *)k_d_indices };
    const int64_t v = 0, steps = 40000;
    double count[D_DEG][D_DEG] = { { 0 } };
    for (int64_t t = 0; t < steps; t++) {
        gnn_sample_params p = { .fanout = 2, .replace = 0, .seed = 777, .step = (uint32_t)t, .weights = k_d_weights };
        gnn_sampled s;
        ck_assert_int_eq(gnn_sample_weighted_ref(&g, &v, 1, &p, &s), GNN_OK);
        ck_assert_int_eq(s.nnz, 2);
        ck_assert_int_ne(s.nbr_gid[0], s.nbr_gid[1]);
        count[s.nbr_gid[0] - 1][s.nbr_gid[1] - 1] += 1.0;
        gnn_sampled_free(&s);
    }
    double x2 = 0.0;
    int cells = 0;
    for (int i = 0; i < D_DEG; i++)
        for (int j = 0; j < D_DEG; j++) {
            const double wi = k_d_weights[i], wj = k_d_weights[j];
            if (i == j || wi == 0.0 || wj == 0.0) {
                ck_assert(count[i][j] == 0.0);
                continue;
            }
            const double e = (double)steps * (wi / 20.0) * (wj / (20.0 - wi));
            x2 += (count[i][j] - e) * (count[i][j] - e) / e;
            cells++;
        }
    ck_assert_int_eq(cells, 20);
    const double pv = gnn_oracle_chisq_pvalue(x2, 19.0);
    printf("sample_weighted: without replacement, %lld ordered pairs: chi2 = %.3f (dof 19), p = %.3g\n",
           (long long)steps, x2, pv);
    ck_assert_msg(pv > 1e-4, "ordered pairs do not follow successive sampling: chi2 = %g, p = %g", x2, pv);
}
END_TEST

/* A weight ratio of 1e30 means the light neighbor is (practically) never drawn first. */
START_TEST(weighted_dist_huge_ratio)
{
    static const int64_t indptr[3] = { 0, 2, 2 };
    static const int64_t indices[2] = { 1, 0 };
    static const float weights[2] = { 1.0f, 1e30f };
    gnn_csr g = { .n = 2, .nnz = 2, .indptr = (int64_t *)indptr, .indices = (int64_t *)indices };
    const int64_t v = 0;
    for (int replace = 0; replace < 2; replace++)
        for (uint32_t t = 0; t < 2000; t++) {
            gnn_sample_params p = { .fanout = 1, .replace = replace, .seed = 1, .step = t, .weights = weights };
            gnn_sampled s;
            ck_assert_int_eq(gnn_sample_weighted_ref(&g, &v, 1, &p, &s), GNN_OK);
            ck_assert_int_eq(s.nnz, 1);
            ck_assert_int_eq(s.nbr_gid[0], 0);
            gnn_sampled_free(&s);
        }
}
END_TEST

Suite *suite_sample_weighted(void)
{
    Suite *s = suite_create("sample_weighted");
    TCase *api = tcase_create("api");
    tcase_set_tags(api, "cpu");
    tcase_set_timeout(api, 30);
    tcase_add_test(api, weighted_api);
    tcase_add_test(api, weighted_pinned);
    tcase_add_test(api, weighted_check_once_per_version);
    suite_add_tcase(s, api);
    TCase *kern = tcase_create("kernel");
    tcase_set_tags(kern, "cpu");
    tcase_set_timeout(kern, 240);
    tcase_add_test(kern, weighted_kernel_bitwise);
    tcase_add_test(kern, weighted_kernel_fanout_sweep);
    suite_add_tcase(s, kern);
    TCase *ver = tcase_create("verify");
    tcase_set_tags(ver, "cpu");
    tcase_set_timeout(ver, 120);
    tcase_add_test(ver, weighted_ref_properties);
    tcase_add_test(ver, weighted_dist_replace);
    tcase_add_test(ver, weighted_dist_ordered_pairs);
    tcase_add_test(ver, weighted_dist_huge_ratio);
    suite_add_tcase(s, ver);
    return s;
}
