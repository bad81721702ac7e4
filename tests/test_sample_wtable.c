/* tests/test_sample_wtable.c -- the cpu weighted sampler's prefix searches and its per-graph
 * table (opt/cpu/sample_weighted.h, opt/cpu/sample_wtable.h; docs/sampling.md). The reference
 * sampler and the per-vertex kernels are tested in tests/test_sample_weighted.c.
 *
 * Cases (tcase kernel):
 *   search  the branch-free prefix search against the reference's scan, with thresholds equal
 *           to a prefix value exactly, one ulp around it, 0, and runs of equal sums (zeros);
 *   table   the cpu sampler (its per-graph table of positive counts and prefix sums) against
 *           the reference sampler, bitwise, over several calls on one object: hub rows at the
 *           table's threshold, just below it, as the graph's first and last rows, an all-zero
 *           hub, a bad weight reported and then fixed in place, another weights array; 1, 2
 *           and 4 threads, fused and unfused. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gnnref/graph.h"
#include "gnnref/idmap.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "opt/cpu/sample_weighted.h"
#include "opt/cpu/sample_wtable.h"
#include "mix_util.h"
#ifdef GNN_HAVE_OPENMP
#include <omp.h>
#endif

/* gnn_cpu_weighted_search, and the table's two-level searches over checkpoints
 * (gnn_cpu_weighted_search_ck by bisection, gnn_cpu_weighted_search_guided through the guide:
 * rows of 1 to 5 blocks of 16, the last one partial or full),
 * against the reference's linear scan, for thresholds on and next to every prefix value (rows
 * with zeros give runs of equal sums, at the start, the middle and the end, and whole blocks
 * of zeros), 0 and the largest double below W. */
START_TEST(weighted_search_ties)
{
    uint64_t x = 31;
    float w[80];
    double prefix[80], ck[80], t[GNN_WDRAW_CHUNK];
    int64_t idx[GNN_WDRAW_CHUNK], idx_ck[GNN_WDRAW_CHUNK];
    for (int trial = 0; trial < 400; trial++) {
        const int64_t d = 1 + mix_below(&x, 80);
        for (int64_t i = 0; i < d; i++)
            w[i] = mix_below(&x, 3) == 0 ? 0.0f : (float)(1 + mix_below(&x, 4));
        if (trial % 4 == 1 && d > 2) /* zero sums at the start, equal ones at the end */
            w[0] = w[d - 1] = 0.0f;
        if (trial % 4 == 3 && d > 40) /* a block of zeros: equal checkpoints */
            for (int64_t i = 16; i < 32; i++)
                w[i] = 0.0f;
        w[d > 2 ? 1 + mix_below(&x, d - 2) : 0] = 2.0f; /* P > 0 */
        gnn_cpu_weighted_prefix(w, d, prefix);
        const double W = prefix[d - 1];
        ck_assert(W > 0.0);
        int m = 0;
        for (int64_t q = 0; q < d && m + 3 <= GNN_WDRAW_CHUNK; q++) {
            const int64_t i = d <= GNN_WDRAW_CHUNK / 3 ? q : mix_below(&x, d); /* long rows: anywhere */
            t[m++] = prefix[i];
            t[m++] = nextafter(prefix[i], 0.0);
            t[m++] = nextafter(prefix[i], INFINITY);
        }
        t[0] = 0.0;
        t[1] = nextafter(W, 0.0);
        int keep = 0; /* the sampler's thresholds are in [0, W) */
        for (int j = 0; j < m; j++)
            if (t[j] >= 0.0 && t[j] < W)
                t[keep++] = t[j];
        gnn_cpu_weighted_search(prefix, d, t, keep, idx);
        gnn_cpu_weighted_checkpoints(w, d, ck);
        ck_assert(ck[(d - 1) / GNN_WCK_BLOCK] == W);
        for (int64_t b = 0; b < (d + GNN_WCK_BLOCK - 1) / GNN_WCK_BLOCK; b++) /* the same doubles */
            ck_assert(ck[b] == prefix[(b + 1) * GNN_WCK_BLOCK - 1 < d - 1 ? (b + 1) * GNN_WCK_BLOCK - 1 : d - 1]);
        gnn_cpu_weighted_search_ck(ck, w, NULL, d, t, keep, idx_ck);
        for (int j = 0; j < keep; j++) {
            int64_t e = 0;
            while (e < d - 1 && prefix[e] <= t[j])
                e++;
            ck_assert_msg(idx[j] == e, "trial %d d %lld t %a: search %lld, scan %lld", trial, (long long)d, t[j],
                          (long long)idx[j], (long long)e);
            ck_assert_msg(idx_ck[j] == e, "trial %d d %lld t %a: checkpoint search %lld, scan %lld", trial,
                          (long long)d, t[j], (long long)idx_ck[j], (long long)e);
            ck_assert(w[idx[j]] > 0.0f);
        }
        /* the guided search (indexed search over the checkpoints): the sampler's t = u * W, with
         * u on and next to prefix[i] / W (t lands on a prefix value, or one ulp off), at the
         * buckets' edges q / Q and next to them, 0 and the largest u below 1 */
        const int64_t nb = (d + GNN_WCK_BLOCK - 1) / GNN_WCK_BLOCK, Q = gnn_wguide_size(nb);
        int32_t guide[8];
        ck_assert_int_le(Q, 8);
        gnn_cpu_weighted_guide(ck, nb, guide);
        double u[GNN_WDRAW_CHUNK];
        int mu = 0;
        for (int64_t q = 0; q < Q && mu + 2 <= GNN_WDRAW_CHUNK; q++) {
            u[mu++] = (double)q / (double)Q;
            u[mu++] = nextafter((double)q / (double)Q, 1.0);
        }
        for (int64_t q = 0; q < d && mu + 3 <= GNN_WDRAW_CHUNK; q++) {
            const int64_t i = mix_below(&x, d);
            u[mu++] = prefix[i] / W;
            u[mu++] = nextafter(prefix[i] / W, 0.0);
            u[mu++] = nextafter(prefix[i] / W, 1.0);
        }
        u[0] = 0.0;
        u[1] = 1.0 - 0x1p-53;
        keep = 0;
        for (int j = 0; j < mu; j++)
            if (u[j] >= 0.0 && u[j] < 1.0) {
                u[keep] = u[j];
                t[keep] = u[j] * W;
                keep++;
            }
        gnn_cpu_weighted_search_guided(ck, guide, w, NULL, d, u, t, keep, idx_ck);
        for (int j = 0; j < keep; j++) {
            int64_t e = 0;
            while (e < d - 1 && prefix[e] <= t[j])
                e++;
            ck_assert_msg(idx_ck[j] == e, "trial %d d %lld u %a t %a: guided search %lld, scan %lld", trial,
                          (long long)d, u[j], t[j], (long long)idx_ck[j], (long long)e);
        }
    }
}
END_TEST

/* The hub graph of weighted_table_sampler: n vertices; row 0 has GNN_WTABLE_MIN_DEG in-edges
 * (the table's first row, at its threshold), row 1 one fewer, row 2 2000 (all weights zero),
 * row 3 1500 (half of them zero), row n-1 2500 (the table's last row); the others 0..20. */
static void hub_graph(gnn_csr *g, int64_t n, uint64_t *x)
{
    const int64_t hubs[5][2] = { { 0, GNN_WTABLE_MIN_DEG }, { 1, GNN_WTABLE_MIN_DEG - 1 }, { 2, 2000 },
                                 { 3, 1500 }, { n - 1, 2500 } };
    int64_t m = 0, cap = 8000 + 21 * n;
    int64_t *src = gnn_malloc((size_t)cap * sizeof(int64_t)), *dst = gnn_malloc((size_t)cap * sizeof(int64_t));
    ck_assert(src && dst);
    for (int h = 0; h < 5; h++)
        for (int64_t e = 0; e < hubs[h][1]; e++, m++) {
            src[m] = 4 + e; /* distinct sources */
            dst[m] = hubs[h][0];
        }
    for (int64_t v = 4; v < n - 1; v++)
        for (int64_t e = mix_below(x, 21); e > 0; e--, m++) {
            src[m] = mix_below(x, n);
            dst[m] = v;
        }
    gnn_err err;
    ck_assert_msg(gnn_csr_from_edges(g, n, m, src, dst, 0, &err) == GNN_OK, "%s", err.msg);
    gnn_free(src);
    gnn_free(dst);
}

static void hub_weights(const gnn_csr *g, uint64_t *x, float *w, float scale)
{
    for (int64_t e = 0; e < g->nnz; e++)
        w[e] = mix_below(x, 10) == 0 ? 0.0f : scale * (0.05f + mix_unit(x));
    for (int64_t e = g->indptr[2]; e < g->indptr[3]; e++)
        w[e] = 0.0f;
    for (int64_t e = g->indptr[3]; e < g->indptr[4]; e += 2)
        w[e] = 0.0f;
}

static void blocks_equal(const gnn_block *a, const gnn_block *b, const char *what)
{
    ck_assert_msg(a->n_dst == b->n_dst && a->n_src == b->n_src && a->nnz == b->nnz, "%s: sizes differ", what);
    ck_assert_msg(!memcmp(a->indptr, b->indptr, (size_t)(a->n_dst + 1) * sizeof(int64_t)), "%s: indptr", what);
    ck_assert_msg(!memcmp(a->src_gid, b->src_gid, (size_t)a->n_src * sizeof(int64_t)), "%s: src", what);
    ck_assert_msg(!memcmp(a->indices, b->indices, (size_t)a->nnz * sizeof(int32_t)), "%s: indices", what);
}

/* One layer from both samplers; equal blocks, or the same status. */
static void layer_both(gnn_sampler *r, gnn_sampler *c, const int64_t *seeds, int64_t n_seeds,
                       const gnn_sample_params *p, gnn_status want, const char *what)
{
    gnn_block br, bc;
    const gnn_status sr = gnn_sampler_layer(r, seeds, n_seeds, p, &br);
    const gnn_status sc = gnn_sampler_layer(c, seeds, n_seeds, p, &bc);
    ck_assert_msg(sr == want && sc == want, "%s: ref %s, cpu %s, want %s", what, gnn_status_str(sr),
                  gnn_status_str(sc), gnn_status_str(want));
    if (want != GNN_OK)
        return;
    blocks_equal(&br, &bc, what);
    gnn_block_free(&br);
    gnn_block_free(&bc);
}

START_TEST(weighted_table_sampler)
{
    const int64_t n = 3000, n_seeds = 70;
    uint64_t x = 4242;
    gnn_csr g;
    hub_graph(&g, n, &x);
    float *w = gnn_malloc((size_t)g.nnz * sizeof(float)), *w2 = gnn_malloc((size_t)g.nnz * sizeof(float));
    ck_assert(w && w2);
    hub_weights(&g, &x, w, 1.0f);
    hub_weights(&g, &x, w2, 1e-3f);
    int64_t seeds[70] = { 0, 1, 2, 3, n - 1 };
    for (int64_t i = 5; i < n_seeds; i++)
        seeds[i] = 4 + 16 * i; /* distinct, below n - 1 */
    static const int64_t fanouts[] = { 1, 15, 1100, -1 };
    char what[160];
#ifdef GNN_HAVE_OPENMP
    const int threads0 = omp_get_max_threads();
#endif
    for (int variant = 0; variant < 2; variant++)
        for (int threads = 1; threads <= 4; threads *= 2)
            for (int replace = 0; replace < 2; replace++) {
#ifdef GNN_HAVE_OPENMP
                omp_set_num_threads(threads);
#endif
                gnn_sampler_options o;
                gnn_sampler_defaults(&o);
                o.variant = variant ? GNN_SAMPLER_UNFUSED : GNN_SAMPLER_FUSED;
                o.idmap = GNN_IDMAP_ORDERED;
                gnn_sampler *r, *c;
                ck_assert_int_eq(gnn_sampler_create(&r, &gnn_sampler_ref, &g, NULL), GNN_OK);
                ck_assert_int_eq(gnn_sampler_create(&c, &gnn_sampler_cpu, &g, &o), GNN_OK);
                gnn_sample_params p = { .replace = replace, .seed = 77, .weights = w };
                for (uint32_t step = 0; step < 3; step++) /* the first call builds, the next ones reuse */
                    for (int f = 0; f < 4; f++) {
                        p.step = step;
                        p.fanout = fanouts[f];
                        snprintf(what, sizeof what, "variant %d threads %d replace %d step %u k %lld", variant,
                                 threads, replace, step, (long long)p.fanout);
                        layer_both(r, c, seeds, n_seeds, &p, GNN_OK, what);
                    }
                /* a bad weight in an unvalidated row (row 5's: no seed so far) is reported by
                 * every call until it is fixed in place */
                const int64_t bad_seeds[2] = { 5, 0 }, at = g.indptr[5];
                ck_assert(g.indptr[6] > at);
                const float saved = w[at];
                w[at] = NAN;
                p.fanout = 15;
                layer_both(r, c, bad_seeds, 2, &p, GNN_ERR_INVAL, "a NaN weight");
                layer_both(r, c, bad_seeds, 2, &p, GNN_ERR_INVAL, "a NaN weight, again");
                w[at] = saved;
                layer_both(r, c, bad_seeds, 2, &p, GNN_OK, "the NaN weight fixed");
                p.weights = w2; /* another array: nothing cached holds */
                layer_both(r, c, seeds, n_seeds, &p, GNN_OK, "another weights array");
                p.weights = w;
                layer_both(r, c, seeds, n_seeds, &p, GNN_OK, "the first array again");
                /* the trust rules of the table (opt/cpu/sample_wtable.h): a validated hub row
                 * changed in place (row 0's weights after its first zeroed but a few: its count
                 * and checkpoints change), where the fingerprint does not look (its probes are
                 * more than a row apart; position 0 keeps its weight), with a new
                 * weights_version */
                float *w3 = gnn_malloc((size_t)g.nnz * sizeof(float));
                ck_assert_ptr_nonnull(w3);
                memcpy(w3, w, (size_t)g.nnz * sizeof(float));
                p.weights = w3;
                layer_both(r, c, seeds, n_seeds, &p, GNN_OK, "a copy of the array");
                ck_assert_int_gt((g.nnz - 1) / 63, g.indptr[1]);
                for (int64_t e = g.indptr[0] + 1; e < g.indptr[1] - 1; e++)
                    w3[e] = e % 97 == 0 ? 1.0f : 0.0f;
                p.weights_version = 1;
                layer_both(r, c, seeds, n_seeds, &p, GNN_OK, "a hub row changed in place, new version");
                /* the whole array rewritten in place (as a new array placed at a freed one's
                 * address would be), the version unchanged: the fingerprint notices */
                memcpy(w3, w2, (size_t)g.nnz * sizeof(float));
                layer_both(r, c, seeds, n_seeds, &p, GNN_OK, "the array rewritten in place");
                p.weights_version = 0;
                gnn_free(w3);
                gnn_sampler_destroy(r);
                gnn_sampler_destroy(c);
            }
#ifdef GNN_HAVE_OPENMP
    omp_set_num_threads(threads0);
#endif
    gnn_free(w);
    gnn_free(w2);
    gnn_csr_free(&g);
}
END_TEST

Suite *suite_sample_wtable(void)
{
    Suite *s = suite_create("sample_wtable");
    TCase *kern = tcase_create("kernel");
    tcase_set_tags(kern, "cpu");
    tcase_set_timeout(kern, 240);
    tcase_add_test(kern, weighted_search_ties);
    tcase_add_test(kern, weighted_table_sampler);
    suite_add_tcase(s, kern);
    return s;
}
