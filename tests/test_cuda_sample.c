/* tests/test_cuda_sample.c -- the CUDA sampler and ID maps (opt/cuda/sample*, opt/cuda/idmap*;
 * docs/cuda_sampling.md), through their `cuda-emu` tables, which run the kernels' per-thread
 * bodies on the CPU with the same host logic a GPU run uses.
 *
 * Cases:
 *   rng      the GNN_HD copies of Philox and the integer draw (opt/cuda/sample_body.h) against
 *            include/gnnref/rng.h: a known answer of DESIGN.md section 2 and many keyed draws;
 *   scan     the device prefix sum at tile boundaries (2047, 2048, 2049 elements) and over
 *            more than one level of tiles;
 *   pinned   a 6-vertex graph worked out by hand (all neighbors: the block in DGL's order),
 *            and a sampled layer equal to the reference, every variant and ID map kind;
 *   edges    degree-0 seeds, fanout above the degree, 333 seeds (not a multiple of the 128-
 *            thread blocks), with and without replacement: bitwise the reference with the
 *            ordered map, and the Fused-Map's canonical relabelling equal to the ordered map's;
 *   idmap    the ordered map bitwise ref/idmap.c, the Fused-Map a bijection whose canonical
 *            relabelling is the reference's, a repeated dst refused and the map usable after;
 *   refuse   weighted parameters (checked as the reference checks them, then UNSUPPORTED), and
 *            the `cuda` tables without a GPU: "no GPU" with a reason, nothing crashes. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/cuda.h"
#include "gnnref/graph.h"
#include "gnnref/idmap.h"
#include "gnnref/oracle.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "gnnref/tensor.h"
#include "opt/cuda/idmap_host.h"
#include "opt/cuda/sample_body.h"

/* splitmix64: the test's own input generator */
static uint64_t mix_next(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ---- rng -------------------------------------------------------------------------------------- */

START_TEST(rng_copies)
{
    const uint32_t ctr[4] = { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344 }, key[2] = { 0xa4093822, 0x299f31d0 };
    uint32_t out[4];
    gnn_philox4x32_10_inline(ctr, key, out); /* the function the kernels call (GNN_RNG_HD) */
    ck_assert_uint_eq(out[0], 0xd16cfe09u);
    ck_assert_uint_eq(out[1], 0x94fdcceb);
    ck_assert_uint_eq(out[2], 0x5001e420u);
    ck_assert_uint_eq(out[3], 0x24126ea1u);
    uint64_t x = 17;
    for (int k = 0; k < 2000; k++) {
        const uint64_t seed = mix_next(&x), id = mix_next(&x) >> (k % 40), i = mix_next(&x) % 1000;
        const uint64_t n = k % 3 == 0 ? mix_next(&x) : 1 + mix_next(&x) % 100000;
        const uint32_t step = (uint32_t)mix_next(&x);
        const unsigned layer = (unsigned)(k % 256);
        const gnn_rng_stream a = gnn_rng_stream_make(seed, GNN_TAG_SAMPLE, step, layer, id);
        ck_assert_uint_eq(gnn_k_uint(&a, i, n), gnn_rng_uint(&a, i, n));
    }
}
END_TEST

/* ---- scan ------------------------------------------------------------------------------------- */

START_TEST(scan_tiles)
{
    const int64_t sizes[] = { 0, 1, 2047, 2048, 2049, 3 * 2048 + 5, (int64_t)2048 * 2048 + 7 };
    const gnn_kdev *dev = &gnn_kdev_emu;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const int64_t n = sizes[k];
        int64_t *h = malloc(((size_t)n + 1) * sizeof(int64_t));
        int64_t *d = dev->alloc(((size_t)n + 1) * sizeof(int64_t));
        ck_assert(h && d);
        uint64_t x = (uint64_t)n;
        for (int64_t i = 0; i < n; i++)
            h[i] = (int64_t)(mix_next(&x) % 5);
        ck_assert_int_eq(dev->to_dev(d, h, (size_t)n * sizeof(int64_t)), 0);
        int64_t total = -1;
        ck_assert_int_eq(gnn_kscan(dev, d, n, &total), GNN_OK);
        int64_t *got = malloc(((size_t)n + 1) * sizeof(int64_t));
        ck_assert_int_eq(dev->to_host(got, d, (size_t)n * sizeof(int64_t)), 0);
        int64_t run = 0;
        for (int64_t i = 0; i < n; i++) {
            ck_assert_msg(got[i] == run, "n=%lld: element %lld is %lld, expected %lld", (long long)n, (long long)i,
                          (long long)got[i], (long long)run);
            run += h[i];
        }
        ck_assert_int_eq(total, run);
        free(h);
        free(got);
        dev->release(d);
    }
}
END_TEST

/* ---- samplers --------------------------------------------------------------------------------- */

/* 6 vertices; rows are in-neighbors: 0: 1 2 3, 1: 0, 2: -, 3: 0 1 2 4 5, 4: 3, 5: 3 4 */
static const int64_t k_ptr[7] = { 0, 3, 4, 4, 9, 10, 12 };
static const int64_t k_idx[12] = { 1, 2, 3, 0, 0, 1, 2, 4, 5, 3, 3, 4 };

static gnn_csr small_graph(void)
{
    gnn_csr g = { .n = 6, .nnz = 12, .indptr = (int64_t *)k_ptr, .indices = (int64_t *)k_idx, .owns = 0 };
    return g;
}

/* One layer of ops (variant v, map kind k) into out. */
static gnn_status layer_of(const gnn_sampler_ops *ops, const gnn_csr *g, int v, int k, const int64_t *seeds,
                           int64_t n, const gnn_sample_params *p, gnn_block *out)
{
    gnn_sampler *s;
    const gnn_sampler_options o = { .variant = (gnn_sampler_variant)v, .idmap = k };
    gnn_status st = gnn_sampler_create(&s, ops, g, &o);
    if (st)
        return st;
    st = gnn_sampler_layer(s, seeds, n, p, out);
    gnn_sampler_destroy(s);
    return st;
}

static void assert_same_block(const gnn_block *a, const gnn_block *b, const char *what)
{
    ck_assert_msg(a->n_dst == b->n_dst && a->n_src == b->n_src && a->nnz == b->nnz, "%s: sizes differ", what);
    ck_assert_msg(!memcmp(a->indptr, b->indptr, ((size_t)a->n_dst + 1) * sizeof(int64_t)), "%s: indptr differs", what);
    ck_assert_msg(!a->nnz || !memcmp(a->indices, b->indices, (size_t)a->nnz * sizeof(int32_t)), "%s: indices differ",
                  what);
    ck_assert_msg(!memcmp(a->src_gid, b->src_gid, (size_t)a->n_src * sizeof(int64_t)), "%s: src_gid differs", what);
}

/* want vs got: bitwise for an ordered kind, after canonical relabelling (dst kept) for FUSED */
static void assert_equiv(const gnn_block *want, const gnn_block *got, int kind, const char *what)
{
    gnn_err err;
    ck_assert_msg(gnn_block_validate(got, &err) == GNN_OK, "%s: %s", what, err.msg);
    if (kind != GNN_IDMAP_FUSED) {
        assert_same_block(want, got, what);
        return;
    }
    gnn_block cw, cg;
    ck_assert_int_eq(gnn_oracle_block_canonical(want, &cw), GNN_OK);
    ck_assert_int_eq(gnn_oracle_block_canonical(got, &cg), GNN_OK);
    assert_same_block(&cw, &cg, what);
    gnn_block_free(&cw);
    gnn_block_free(&cg);
}

START_TEST(pinned_small)
{
    const gnn_csr g = small_graph();
    const int64_t seeds[3] = { 3, 0, 5 };
    /* all neighbors, by hand: dst 3 0 5, then 1 2 4 in order of first appearance (row 3 is
     * 0 1 2 4 5: 0 and 5 are dst, 1 2 4 new) */
    static const int64_t want_ptr[4] = { 0, 5, 8, 10 }, want_gid[6] = { 3, 0, 5, 1, 2, 4 };
    static const int32_t want_idx[10] = { 1, 3, 4, 5, 2, 3, 4, 0, 0, 5 };
    gnn_sample_params p = { .fanout = -1, .seed = 9, .step = 1 };
    for (int v = 0; v < 2; v++)
        for (int k = 0; k < GNN_IDMAP_KIND_COUNT; k++) {
            gnn_block b;
            ck_assert_int_eq(layer_of(&gnn_sampler_cuda_emu, &g, v, k, seeds, 3, &p, &b), GNN_OK);
            ck_assert_int_eq(b.n_dst, 3);
            ck_assert_int_eq(b.n_src, 6);
            ck_assert_int_eq(b.nnz, 10);
            ck_assert_mem_eq(b.indptr, want_ptr, sizeof want_ptr);
            if (k != GNN_IDMAP_FUSED) {
                ck_assert_mem_eq(b.src_gid, want_gid, sizeof want_gid);
                ck_assert_mem_eq(b.indices, want_idx, sizeof want_idx);
            }
            for (int e = 0; e < 10; e++) /* every edge maps back to its global id */
                ck_assert_int_eq(b.src_gid[b.indices[e]], want_gid[want_idx[e]]);
            gnn_block_free(&b);
        }
    /* sampled: fanout 2 (row 3 has d = 5 > 2: partial Fisher-Yates; row 5 d = 2: all), with and
     * without replacement, equal to the reference; the first draw pinned by hand */
    for (int rep = 0; rep < 2; rep++) {
        p.fanout = 2;
        p.replace = rep;
        gnn_block want;
        ck_assert_int_eq(layer_of(&gnn_sampler_ref, &g, 0, 0, seeds, 3, &p, &want), GNN_OK);
        const gnn_rng_stream s = gnn_rng_stream_make(p.seed, GNN_TAG_SAMPLE, p.step, p.layer, 3);
        ck_assert_int_eq(want.src_gid[want.indices[0]], k_idx[k_ptr[3] + (int64_t)gnn_rng_uint(&s, 0, 5)]);
        for (int v = 0; v < 2; v++)
            for (int k = 0; k < GNN_IDMAP_KIND_COUNT; k++) {
                gnn_block b;
                ck_assert_int_eq(layer_of(&gnn_sampler_cuda_emu, &g, v, k, seeds, 3, &p, &b), GNN_OK);
                assert_equiv(&want, &b, k, "small graph, fanout 2");
                gnn_block_free(&b);
            }
        gnn_block_free(&want);
    }
}
END_TEST

/* n vertices, degree of v uniform in [0, dmax] (about a fifth 0), neighbors uniform with repeats */
static void random_graph(gnn_csr *g, int64_t n, int64_t dmax, uint64_t seed)
{
    uint64_t x = seed;
    g->n = n;
    g->owns = 0;
    g->indptr = malloc(((size_t)n + 1) * sizeof(int64_t));
    g->indptr[0] = 0;
    for (int64_t v = 0; v < n; v++)
        g->indptr[v + 1] = g->indptr[v] + (mix_next(&x) % 5 == 0 ? 0 : (int64_t)(mix_next(&x) % (uint64_t)(dmax + 1)));
    g->nnz = g->indptr[n];
    g->indices = malloc((size_t)(g->nnz + 1) * sizeof(int64_t));
    for (int64_t e = 0; e < g->nnz; e++)
        g->indices[e] = (int64_t)(mix_next(&x) % (uint64_t)n);
}

START_TEST(edges_against_ref)
{
    gnn_csr g;
    random_graph(&g, 1000, 80, 5);
    /* 333 distinct seeds; the first, middle and last of degree 0 */
    int64_t seeds[333];
    char used[1000] = { 0 };
    int at[3] = { 0, 166, 332 }, placed = 0;
    for (int64_t v = 0; v < 1000 && placed < 3; v++)
        if (g.indptr[v + 1] == g.indptr[v]) {
            seeds[at[placed++]] = v;
            used[v] = 1;
        }
    ck_assert_int_eq(placed, 3);
    for (int i = 0, c = 0; i < 333; i++) {
        if (i == 0 || i == 166 || i == 332)
            continue;
        while (used[(c * 37 + 11) % 1000]) /* a stride coprime with 1000 */
            c++;
        seeds[i] = (c * 37 + 11) % 1000;
        used[seeds[i]] = 1;
    }
    const int64_t fanouts[] = { 1, 5, 50, 100, -1 }; /* 50 and 100: above most degrees */
    for (size_t f = 0; f < sizeof fanouts / sizeof fanouts[0]; f++)
        for (int rep = 0; rep < 2; rep++) {
            const gnn_sample_params p = { .fanout = fanouts[f], .replace = rep, .seed = 77, .step = 4, .layer = 2 };
            gnn_block want, ordered;
            ck_assert_int_eq(layer_of(&gnn_sampler_ref, &g, 0, 0, seeds, 333, &p, &want), GNN_OK);
            ck_assert_int_eq(layer_of(&gnn_sampler_cuda_emu, &g, 0, GNN_IDMAP_ORDERED, seeds, 333, &p, &ordered),
                             GNN_OK);
            assert_same_block(&want, &ordered, "ordered");
            for (int v = 0; v < 2; v++)
                for (int k = 0; k < GNN_IDMAP_KIND_COUNT; k++) {
                    gnn_block b;
                    ck_assert_int_eq(layer_of(&gnn_sampler_cuda_emu, &g, v, k, seeds, 333, &p, &b), GNN_OK);
                    /* FUSED: canonical relabelling equals the ordered map's */
                    assert_equiv(&ordered, &b, k, "cuda-emu layer");
                    gnn_block_free(&b);
                }
            gnn_block_free(&want);
            gnn_block_free(&ordered);
        }
    free(g.indptr);
    free(g.indices);
}
END_TEST

/* ---- ID maps ---------------------------------------------------------------------------------- */

START_TEST(idmap_maps)
{
    enum { NDST = 300, NNZ = 5000, NV = 4000 };
    int64_t dst[NDST], nbr[NNZ];
    uint64_t x = 3;
    for (int i = 0; i < NDST; i++)
        dst[i] = (int64_t)((i * 13 + 5) % NV);
    for (int e = 0; e < NNZ; e++)
        nbr[e] = mix_next(&x) % 4 == 0 ? dst[mix_next(&x) % NDST] : (int64_t)(mix_next(&x) % NV);
    int32_t want_local[NNZ], local[NNZ];
    int64_t want_gid[NDST + NNZ], src_gid[NDST + NNZ], want_n, n_src;
    ck_assert_int_eq(gnn_idmap_build_ref(dst, NDST, nbr, NNZ, want_local, want_gid, &want_n), GNN_OK);
    for (int k = 0; k < GNN_IDMAP_KIND_COUNT; k++) {
        gnn_idmap *m;
        ck_assert_int_eq(gnn_idmap_create(&m, &gnn_idmap_cuda_emu, (gnn_idmap_kind)k, NV), GNN_OK);
        for (int round = 0; round < 3; round++) {
            if (round == 1) { /* a repeated dst: refused, and the map still works */
                int64_t bad[NDST];
                memcpy(bad, dst, sizeof bad);
                bad[NDST - 1] = bad[7];
                ck_assert_int_eq(gnn_idmap_build(m, bad, NDST, nbr, NNZ, local, src_gid, &n_src), GNN_ERR_INVAL);
                continue;
            }
            ck_assert_int_eq(gnn_idmap_build(m, dst, NDST, nbr, NNZ, local, src_gid, &n_src), GNN_OK);
            ck_assert_int_eq(n_src, want_n);
            for (int e = 0; e < NNZ; e++)
                ck_assert_int_eq(src_gid[local[e]], nbr[e]);
            ck_assert_mem_eq(src_gid, want_gid, NDST * sizeof(int64_t));
            if (k != GNN_IDMAP_FUSED) {
                ck_assert_mem_eq(local, want_local, sizeof local);
                ck_assert_mem_eq(src_gid, want_gid, (size_t)n_src * sizeof(int64_t));
            } else { /* a bijection: each new vertex once; relabelled in first-appearance order: ref */
                char *seen = calloc((size_t)n_src, 1);
                int32_t next = NDST, *relabel = malloc((size_t)n_src * sizeof(int32_t));
                for (int64_t i = 0; i < n_src; i++)
                    relabel[i] = i < NDST ? (int32_t)i : -1;
                for (int e = 0; e < NNZ; e++) {
                    const int32_t l = local[e];
                    ck_assert(l >= 0 && l < n_src);
                    if (relabel[l] < 0)
                        relabel[l] = next++;
                    seen[l] = 1;
                    ck_assert_int_eq(relabel[l], want_local[e]);
                }
                for (int64_t i = NDST; i < n_src; i++)
                    ck_assert_msg(seen[i], "new id %lld is used by no neighbor", (long long)i);
                free(seen);
                free(relabel);
            }
        }
        gnn_idmap_destroy(m);
    }
}
END_TEST

/* ---- refusals --------------------------------------------------------------------------------- */

START_TEST(refusals)
{
    const gnn_csr g = small_graph();
    float w[12];
    for (int e = 0; e < 12; e++)
        w[e] = 1.0f + (float)e;
    int64_t seeds[3] = { 3, 0, 5 };
    gnn_sample_params p = { .fanout = 2, .seed = 9, .step = 1, .weights = w };
    gnn_block b;
    /* weighted: not ported; bad inputs still get the reference's answer first */
    ck_assert_int_eq(layer_of(&gnn_sampler_cuda_emu, &g, 0, GNN_IDMAP_ORDERED, seeds, 3, &p, &b), GNN_ERR_UNSUPPORTED);
    w[5] = -1.0f;
    ck_assert_int_eq(layer_of(&gnn_sampler_cuda_emu, &g, 0, GNN_IDMAP_ORDERED, seeds, 3, &p, &b), GNN_ERR_INVAL);
    seeds[1] = 6;
    ck_assert_int_eq(layer_of(&gnn_sampler_cuda_emu, &g, 0, GNN_IDMAP_ORDERED, seeds, 3, &p, &b), GNN_ERR_RANGE);
    p.weights = NULL;
    ck_assert_int_eq(layer_of(&gnn_sampler_cuda_emu, &g, 0, GNN_IDMAP_FUSED, seeds, 3, &p, &b), GNN_ERR_RANGE);
    seeds[1] = 3; /* a repeated seed: found by either map */
    ck_assert_int_eq(layer_of(&gnn_sampler_cuda_emu, &g, 0, GNN_IDMAP_ORDERED, seeds, 3, &p, &b), GNN_ERR_INVAL);
    ck_assert_int_eq(layer_of(&gnn_sampler_cuda_emu, &g, 1, GNN_IDMAP_FUSED, seeds, 3, &p, &b), GNN_ERR_INVAL);
    ck_assert_ptr_null(b.indptr);
    /* the `cuda` tables: where there is no GPU they say so and refuse, without crashing */
    char why[256] = "";
    if (gnn_cuda_available(why, sizeof why))
        return; /* a GPU: the oracle's cuda entries run instead */
    ck_assert_msg(why[0] != '\0', "no reason given");
    gnn_sampler *s = NULL;
    ck_assert_int_eq(gnn_sampler_create(&s, &gnn_sampler_cuda, &g, NULL), GNN_ERR_UNSUPPORTED);
    ck_assert_ptr_null(s);
    gnn_idmap *m = NULL;
    ck_assert_int_eq(gnn_idmap_create(&m, &gnn_idmap_cuda, GNN_IDMAP_ORDERED, 10), GNN_ERR_UNSUPPORTED);
    ck_assert_ptr_null(m);
}
END_TEST

Suite *suite_cuda_sample(void)
{
    Suite *s = suite_create("cuda_sample");
    TCase *t = tcase_create("emu");
    tcase_set_tags(t, "cuda");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, rng_copies);
    tcase_add_test(t, scan_tiles);
    tcase_add_test(t, pinned_small);
    tcase_add_test(t, edges_against_ref);
    tcase_add_test(t, idmap_maps);
    tcase_add_test(t, refusals);
    suite_add_tcase(s, t);
    return s;
}
