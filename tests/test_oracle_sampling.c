/* tests/test_oracle_sampling.c -- self-tests of the oracle's sampling entries: proofs that
 * they CAN fail (the registry and the kernels' self-tests are in tests/test_oracle.c).
 *
 * tcase "harness" (tag cpu): each self-test hands the harness a deliberately broken sampler,
 *   block builder or ID map (a mutant of the reference: a biased sampler, a repeated sample, a
 *   drifting step, a reordered ID map, a weighted sampler with squared weights, the wrong keys
 *   or the wrong order, an ID map with two new ids swapped or two vertices merged, a sampler
 *   block with one edge relabelled, a broken layer chain) and asserts FAIL with the expected
 *   message; plus the chi-square p-value against published quantiles and closed forms, and the
 *   canonical block and ID-map comparators.
 * No test re-implements a kernel: mutants wrap the reference and break one thing. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/idmap.h"
#include "gnnref/oracle.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "oracle_util.h"
#include "ref/sample_ref.h"

/* ---- samplers: chi-square and verify can fail ---------------------------------------------------- */

/* Mutant sampler tables: the object is the graph itself; a layer is the reference's two steps
 * (ref/sample_ref.h) with one of them broken. */
static gnn_status m_sampler_create(void **state, const gnn_csr *g, const gnn_sampler_options *o)
{
    *state = (void *)g;
    return GNN_OK;
}
static void m_sampler_destroy(void *state) {}
#define MUTANT_SAMPLER(name_, layer_, blocks_)                                                                      \
    { .name = name_, .caps = 0, .create = m_sampler_create, .layer = layer_, .blocks = blocks_,                     \
      .destroy = m_sampler_destroy }

typedef gnn_status (*lists_fn)(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                               gnn_sampled *out);
typedef gnn_status (*build_fn)(const gnn_sampled *s, gnn_block *out);

/* One layer as the reference makes it: the sampled lists, then the block built from them. */
static gnn_status lists_then_block(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                                   lists_fn sample, build_fn build, gnn_block *out)
{
    gnn_sampled s;
    gnn_status st = sample(g, seeds, n_seeds, p, &s);
    if (st)
        return st;
    st = build(&s, out);
    gnn_sampled_free(&s);
    return st;
}
/* var_: a sampler table whose layer is lists_then_block(sample_, build_) */
#define LISTS_MUTANT(var_, name_, sample_, build_)                                                                  \
    static gnn_status var_##_layer(void *g, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,     \
                                   gnn_block *out)                                                                 \
    {                                                                                                               \
        return lists_then_block(g, seeds, n_seeds, p, sample_, build_, out);                                        \
    }                                                                                                               \
    static const gnn_sampler_ops var_ = MUTANT_SAMPLER(name_, var_##_layer, NULL)

/* Mutant ID map tables keep no state and ignore the kind. */
static gnn_status m_idmap_create(void **state, gnn_idmap_kind kind, int64_t n_vertices)
{
    *state = NULL;
    return GNN_OK;
}
static void m_idmap_destroy(void *state) {}


/* Biased: in every fourth step, a dst whose first CSR neighbor was not drawn gets it instead
 * of its last sample. Still k distinct neighbors: only the distribution is wrong. */
static gnn_status biased_uniform(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                                 gnn_sampled *out)
{
    gnn_status s = gnn_sample_uniform_ref(g, seeds, n_seeds, p, out);
    if (s || p->step % 4)
        return s;
    for (int64_t i = 0; i < n_seeds; i++) {
        const int64_t b = out->offsets[i], e = out->offsets[i + 1];
        const int64_t first = g->indices[g->indptr[seeds[i]]];
        int found = 0;
        for (int64_t j = b; j < e; j++)
            found |= out->nbr_gid[j] == first;
        if (!found && e > b)
            out->nbr_gid[e - 1] = first;
    }
    return s;
}
LISTS_MUTANT(k_biased_ops, "biased", biased_uniform, gnn_block_build_ref);
static const gnn_oracle_impl m_biased = { "biased", &k_biased_ops, 0 };

/* Repeats: the second sample of each dst copies the first. */
static gnn_status repeating_uniform(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds,
                                    const gnn_sample_params *p, gnn_sampled *out)
{
    gnn_status s = gnn_sample_uniform_ref(g, seeds, n_seeds, p, out);
    for (int64_t i = 0; !s && i < n_seeds; i++)
        if (out->offsets[i + 1] - out->offsets[i] >= 2)
            out->nbr_gid[out->offsets[i] + 1] = out->nbr_gid[out->offsets[i]];
    return s;
}
LISTS_MUTANT(k_repeating_ops, "repeating", repeating_uniform, gnn_block_build_ref);
static const gnn_oracle_impl m_repeating = { "repeating", &k_repeating_ops, 0 };

/* Non-deterministic: every call uses the next step. */
static gnn_status drifting_uniform(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                                   gnn_sampled *out)
{
    static uint32_t calls;
    gnn_sample_params q = *p;
    q.step += calls++;
    return gnn_sample_uniform_ref(g, seeds, n_seeds, &q, out);
}
LISTS_MUTANT(k_drifting_ops, "drifting", drifting_uniform, gnn_block_build_ref);
static const gnn_oracle_impl m_drifting = { "drifting", &k_drifting_ops, 0 };

START_TEST(chisq_pvalue_known)
{
    /* 0.95 quantiles of chi-square (any table): p = 0.05 */
    ck_assert_double_eq_tol(gnn_oracle_chisq_pvalue(3.841458820694124, 1), 0.05, 1e-9);
    ck_assert_double_eq_tol(gnn_oracle_chisq_pvalue(18.307038053275146, 10), 0.05, 1e-9);
    ck_assert_double_eq_tol(gnn_oracle_chisq_pvalue(124.34211340400407, 100), 0.05, 1e-9);
    /* closed forms for even dof: Q(1, x/2) = e^-x/2 (so -2 ln 1e-4 has p = 1e-4, the alpha of
     * sample.uniform.dist) and Q(2, x/2) = e^-x/2 (1 + x/2) */
    ck_assert_double_eq_tol(gnn_oracle_chisq_pvalue(-2.0 * log(1e-4), 2), 1e-4, 1e-15);
    for (double x = 0.5; x < 80; x *= 1.7)
        ck_assert_double_eq_tol(gnn_oracle_chisq_pvalue(x, 4), exp(-x / 2) * (1 + x / 2), 1e-13);
    /* Q(1, x) = e^-x, on both sides of the series / continued-fraction switch */
    for (double x = 0.25; x < 40; x *= 2)
        ck_assert_double_eq_tol(gnn_oracle_gamma_q(1.0, x), exp(-x), 1e-12 * exp(-x) + 1e-300);
    /* Q(1/2, x) = erfc(sqrt(x)) */
    for (double x = 0.1; x < 30; x *= 3)
        ck_assert_double_eq_tol(gnn_oracle_gamma_q(0.5, x), erfc(sqrt(x)), 1e-12);
    ck_assert(gnn_oracle_chisq_pvalue(0, 5) == 1.0);
    ck_assert(gnn_oracle_chisq_pvalue(1e4, 10) < 1e-100);
    ck_assert(isnan(gnn_oracle_gamma_q(0, 1)));
}
END_TEST

START_TEST(chisq_rejects_biased_sampler)
{
    tally t;
    run_with_impl("sample.uniform.dist", &m_biased, 0, 1, &t);
    const int n_presets = gnn_oracle_n_presets(gnn_oracle_find("sample.uniform.dist"));
    /* Every preset but one rejects it. The exception is deg=17,fanout=16: there the first
     * neighbor is missing from only 1 step in 17, so the mutant moves ~30 of ~1900 draws per
     * vertex -- a chi-square contribution of ~7 per vertex against 64 degrees of freedom,
     * far from alpha = 1e-4. That preset exists for the k = d - 1 edge of the variance
     * formula, not for power. */
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] >= n_presets - 1, "biased sampler: %d of %d presets failed",
                  t.counts[GNN_ORACLE_FAIL], n_presets);
    ck_assert_msg(strstr(t.first_fail, "not distributed as expected") && strstr(t.first_fail, "p = "), "%s",
                  t.first_fail);
}
END_TEST

START_TEST(verify_catches_broken_sampler)
{
    tally t;
    run_with_impl("sample.uniform", &m_repeating, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_msg(strstr(t.first_fail, "drawn twice") || strstr(t.first_fail, "CSR order"), "%s", t.first_fail);
    run_with_impl("sample.uniform", &m_drifting, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
}
END_TEST

/* ---- block builder: verify and the canonical comparator ------------------------------------------ */

/* An unordered ID map: new src renumbered by descending global id (what a hash map with
 * atomics might give), edges remapped consistently. Correct up to relabeling. */
static void relabel_descending(int64_t nd, int64_t n_src, int64_t nnz, int32_t *local, int64_t *src_gid)
{
    const int64_t nn = n_src - nd;
    int32_t *relabel = malloc((size_t)n_src * sizeof(int32_t) + 1);
    int64_t *gid = malloc((size_t)n_src * sizeof(int64_t) + 1);
    for (int64_t i = 0; i < n_src; i++)
        relabel[i] = (int32_t)i;
    /* selection sort descending on a copy: tests are small */
    memcpy(gid, src_gid, (size_t)n_src * sizeof(int64_t));
    int64_t *order = malloc((size_t)nn * sizeof(int64_t) + 1);
    for (int64_t p = 0; p < nn; p++)
        order[p] = nd + p;
    for (int64_t a = 0; a < nn; a++)
        for (int64_t b = a + 1; b < nn; b++)
            if (gid[order[b]] > gid[order[a]]) {
                int64_t t = order[a];
                order[a] = order[b];
                order[b] = t;
            }
    for (int64_t r = 0; r < nn; r++) {
        relabel[order[r]] = (int32_t)(nd + r);
        src_gid[nd + r] = gid[order[r]];
    }
    for (int64_t e = 0; e < nnz; e++)
        local[e] = relabel[local[e]];
    free(relabel);
    free(gid);
    free(order);
}
static gnn_status build_descending(const gnn_sampled *s, gnn_block *out)
{
    gnn_status st = gnn_block_build_ref(s, out);
    if (!st)
        relabel_descending(out->n_dst, out->n_src, out->nnz, out->indices, out->src_gid);
    return st;
}
/* The same as an ID map table (block.build's implementations are ID maps). */
static gnn_status idmap_descending(void *state, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                                   int32_t *local, int64_t *src_gid, int64_t *n_src)
{
    gnn_status st = gnn_idmap_build_ref(dst, n_dst, nbr, nnz, local, src_gid, n_src);
    if (!st)
        relabel_descending(n_dst, *n_src, nnz, local, src_gid);
    return st;
}
static const gnn_idmap_ops k_desc_ops = { "descending", 0, m_idmap_create, idmap_descending, m_idmap_destroy };
static const gnn_oracle_impl m_descending = { "descending", &k_desc_ops, 0 };

START_TEST(verify_catches_broken_builder)
{
    tally t;
    run_with_impl("block.build", &m_descending, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_msg(strstr(t.first_fail, "order of first appearance"), "%s", t.first_fail);
}
END_TEST

static struct {
    gnn_oracle_cmp cmp;
    const gnn_block *a, *b;
} g_blk;

static gnn_oracle_outcome blk_entry_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    (void)c;
    return gnn_oracle_compare_block(ctx, g_blk.cmp, "block", g_blk.a, g_blk.b);
}
static const gnn_oracle_entry k_blk_entry = {
    .name = "selftest.block", .what = "block comparator self-test", .tol = { GNN_CMP_CANONICAL, 0, 0 },
    .reason = "test", .params = k_test_params, .n_params = 1, .presets = k_test_presets, .ref = &k_test_impl,
    .impls = k_test_impls, .run = blk_entry_run,
};

static gnn_oracle_outcome compare_blocks(gnn_oracle_cmp cmp, const gnn_block *a, const gnn_block *b,
                                         gnn_oracle_result *r)
{
    g_blk.cmp = cmp;
    g_blk.a = a;
    g_blk.b = b;
    gnn_oracle_case c;
    gnn_oracle_case_init(&c, &k_blk_entry, &k_test_impl, 0, "n=1", 1, NULL);
    return gnn_oracle_run(&c, r);
}

START_TEST(canonical_relabel)
{
    /* seeds 10, 20; samples: 10 -> (7, 30, 7), 20 -> (30, 5, 10) */
    int64_t dst[] = { 10, 20 }, off[] = { 0, 3, 6 }, nbr[] = { 7, 30, 7, 30, 5, 10 };
    gnn_sampled s = { .n_dst = 2, .nnz = 6, .dst_gid = dst, .offsets = off, .nbr_gid = nbr };
    gnn_block ref, desc, canon;
    ck_assert_int_eq(gnn_block_build_ref(&s, &ref), GNN_OK);
    ck_assert_int_eq(build_descending(&s, &desc), GNN_OK);
    /* first appearance: 7, 30, 5; descending: 30, 7, 5; canonical (ascending): 5, 7, 30 */
    ck_assert_int_eq(ref.src_gid[2], 7);
    ck_assert_int_eq(ref.src_gid[3], 30);
    ck_assert_int_eq(ref.src_gid[4], 5);
    ck_assert_int_eq(gnn_oracle_block_canonical(&ref, &canon), GNN_OK);
    ck_assert_int_eq(canon.src_gid[0], 10);
    ck_assert_int_eq(canon.src_gid[1], 20);
    ck_assert_int_eq(canon.src_gid[2], 5);
    ck_assert_int_eq(canon.src_gid[3], 7);
    ck_assert_int_eq(canon.src_gid[4], 30);
    for (int64_t e = 0; e < 6; e++) /* the relabel round trip holds */
        ck_assert_int_eq(canon.src_gid[canon.indices[e]], nbr[e]);
    gnn_block_free(&canon);
    gnn_oracle_result r;
    ck_assert_int_eq(compare_blocks(GNN_CMP_BITWISE, &ref, &ref, &r), GNN_ORACLE_PASS);
    ck_assert_int_eq(compare_blocks(GNN_CMP_BITWISE, &ref, &desc, &r), GNN_ORACLE_FAIL);
    ck_assert_ptr_nonnull(strstr(r.detail, "block.src_gid"));
    ck_assert_int_eq(compare_blocks(GNN_CMP_CANONICAL, &ref, &desc, &r), GNN_ORACLE_PASS);
    /* a wrong edge is not a relabeling */
    desc.indices[5] = desc.indices[4];
    ck_assert_int_eq(compare_blocks(GNN_CMP_CANONICAL, &ref, &desc, &r), GNN_ORACLE_FAIL);
    ck_assert_ptr_nonnull(strstr(r.detail, "block.indices"));
    desc.n_src--;
    ck_assert_int_eq(compare_blocks(GNN_CMP_CANONICAL, &ref, &desc, &r), GNN_ORACLE_FAIL);
    ck_assert_ptr_nonnull(strstr(r.detail, "sizes differ"));
    gnn_block_free(&ref);
    gnn_block_free(&desc);
}
END_TEST

/* ---- weighted samplers: chi-square can fail ------------------------------------------------------ */

/* The weights squared: still only positive-weight neighbors, the right counts, no repeats;
 * only the distribution is wrong. */
static gnn_status squared_weighted(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds,
                                   const gnn_sample_params *p, gnn_sampled *out)
{
    float *w2 = malloc((size_t)g->nnz * sizeof(float) + 1);
    for (int64_t e = 0; e < g->nnz; e++)
        w2[e] = p->weights[e] * p->weights[e];
    gnn_sample_params q = *p;
    q.weights = w2;
    gnn_status s = gnn_sample_weighted_ref(g, seeds, n_seeds, &q, out);
    free(w2);
    return s;
}
LISTS_MUTANT(k_squared_ops, "squared", squared_weighted, gnn_block_build_ref);
static const gnn_oracle_impl m_squared = { "squared", &k_squared_ops, 0 };

/* The classic wrong weighted reservoir: keep the k largest u * w instead of u^(1/w) (without
 * replacement; with replacement it defers to the reference). For k = 1 it already favours
 * heavy neighbors more than w_i / W. */
static gnn_status linear_keys(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                              gnn_sampled *out)
{
    if (p->replace)
        return gnn_sample_weighted_ref(g, seeds, n_seeds, p, out);
    memset(out, 0, sizeof *out);
    out->n_dst = n_seeds;
    out->dst_gid = malloc((size_t)n_seeds * sizeof(int64_t) + 1);
    out->offsets = malloc(((size_t)n_seeds + 1) * sizeof(int64_t));
    out->offsets[0] = 0;
    for (int64_t i = 0; i < n_seeds; i++) {
        const int64_t v = seeds[i];
        int64_t pos = 0;
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++)
            pos += p->weights[e] > 0;
        out->dst_gid[i] = v;
        out->offsets[i + 1] = out->offsets[i] + (p->fanout < 0 || p->fanout > pos ? pos : p->fanout);
    }
    out->nnz = out->offsets[n_seeds];
    out->nbr_gid = malloc((size_t)out->nnz * sizeof(int64_t) + 1);
    for (int64_t i = 0; i < n_seeds; i++) {
        const int64_t v = seeds[i], b = g->indptr[v], d = g->indptr[v + 1] - b;
        const gnn_rng_stream st = gnn_rng_stream_make(p->seed, GNN_TAG_SAMPLE, p->step, p->layer, (uint64_t)v);
        double *key = malloc((size_t)d * sizeof(double) + 1);
        for (int64_t j = 0; j < d; j++)
            key[j] = p->weights[b + j] > 0 ? ((double)gnn_rng_float(&st, (uint64_t)j) + 0x1p-25) * p->weights[b + j] : -1;
        for (int64_t t = out->offsets[i]; t < out->offsets[i + 1]; t++) {
            int64_t best = -1;
            for (int64_t j = 0; j < d; j++)
                if (key[j] > 0 && (best < 0 || key[j] > key[best]))
                    best = j;
            key[best] = -1;
            out->nbr_gid[t] = g->indices[b + best];
        }
        free(key);
    }
    return GNN_OK;
}
LISTS_MUTANT(k_linear_keys_ops, "linear-keys", linear_keys, gnn_block_build_ref);
static const gnn_oracle_impl m_linear_keys = { "linear-keys", &k_linear_keys_ops, 0 };

/* The right sets in the wrong order: each dst's samples reversed (increasing keys). */
static gnn_status reversed_weighted(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds,
                                    const gnn_sample_params *p, gnn_sampled *out)
{
    gnn_status s = gnn_sample_weighted_ref(g, seeds, n_seeds, p, out);
    for (int64_t i = 0; !s && i < n_seeds; i++)
        for (int64_t a = out->offsets[i], b = out->offsets[i + 1] - 1; a < b; a++, b--) {
            const int64_t t = out->nbr_gid[a];
            out->nbr_gid[a] = out->nbr_gid[b];
            out->nbr_gid[b] = t;
        }
    return s;
}
LISTS_MUTANT(k_reversed_ops, "reversed", reversed_weighted, gnn_block_build_ref);
static const gnn_oracle_impl m_reversed_w = { "reversed", &k_reversed_ops, 0 };

START_TEST(chisq_rejects_biased_weighted)
{
    tally t;
    const int n_presets = gnn_oracle_n_presets(gnn_oracle_find("sample.weighted.dist"));
    /* every preset but the one where fanout >= the positive weights (nothing random) */
    run_with_impl("sample.weighted.dist", &m_squared, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] == n_presets - 1, "squared weights: %d of %d presets failed; first:\n%s",
                  t.counts[GNN_ORACLE_FAIL], n_presets, t.first_fail);
    ck_assert_msg(strstr(t.first_fail, "not distributed as expected"), "%s", t.first_fail);
    /* wrong keys: the eight presets that draw k < #positive without replacement (k = 1 on two
     * degrees, k-sets and ordered k-tuples for k = 2 and 3, and the two fallback presets with
     * k = 5) reject it */
    run_with_impl("sample.weighted.dist", &m_linear_keys, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] == 8, "linear keys: %d presets failed", t.counts[GNN_ORACLE_FAIL]);
    ck_assert_msg(strstr(t.first_fail, "not distributed as expected"), "%s", t.first_fail);
    /* the right sets in reversed pick order: only the three ordered-tuple presets can tell */
    run_with_impl("sample.weighted.dist", &m_reversed_w, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] == 3, "reversed order: %d presets failed", t.counts[GNN_ORACLE_FAIL]);
    ck_assert_msg(strstr(t.first_fail, "ordered k-tuple counts"), "%s", t.first_fail);
    run_with_impl("sample.weighted", &m_squared, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] == 0, "%s", t.first_fail);
}
END_TEST

/* ---- ID maps: bitwise and canonical ------------------------------------------------------------ */

/* Mutant ID map tables: the reference map (gnn_idmap_build has checked the ids), then a wrong
 * relabelling. */
/* The first two new local ids swapped, consistently: a correct map up to relabelling. */
static gnn_status idmap_swap(void *state, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                             int32_t *local, int64_t *src_gid, int64_t *n_src)
{
    gnn_status s = gnn_idmap_build_ref(dst, n_dst, nbr, nnz, local, src_gid, n_src);
    if (s || *n_src < n_dst + 2)
        return s;
    const int32_t a = (int32_t)n_dst, b = (int32_t)n_dst + 1;
    const int64_t t = src_gid[a];
    src_gid[a] = src_gid[b];
    src_gid[b] = t;
    for (int64_t e = 0; e < nnz; e++)
        local[e] = local[e] == a ? b : local[e] == b ? a : local[e];
    return GNN_OK;
}
/* The second new vertex merged into the first (its id left unused): not a bijection. */
static gnn_status idmap_merge(void *state, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                              int32_t *local, int64_t *src_gid, int64_t *n_src)
{
    gnn_status s = gnn_idmap_build_ref(dst, n_dst, nbr, nnz, local, src_gid, n_src);
    for (int64_t e = 0; !s && e < nnz; e++)
        if (local[e] == n_dst + 1)
            local[e] = (int32_t)n_dst;
    return s;
}
static const gnn_idmap_ops k_swap_ops = { "swap", 0, m_idmap_create, idmap_swap, m_idmap_destroy };
static const gnn_idmap_ops k_merge_ops = { "merge", 0, m_idmap_create, idmap_merge, m_idmap_destroy };
static const gnn_oracle_impl m_idmap_swap = { "swap", &k_swap_ops, 0 }, m_idmap_merge = { "merge", &k_merge_ops, 0 };

static struct {
    gnn_oracle_cmp cmp;
    int64_t n_dst, nnz, ref_n_src, impl_n_src;
    const int32_t *ref_local, *impl_local;
    const int64_t *ref_gid, *impl_gid;
} g_map;

static gnn_oracle_outcome map_entry_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    (void)c;
    return gnn_oracle_compare_idmap(ctx, g_map.cmp, "map", g_map.n_dst, g_map.nnz, g_map.ref_local, g_map.ref_gid,
                                    g_map.ref_n_src, g_map.impl_local, g_map.impl_gid, g_map.impl_n_src);
}
static const gnn_oracle_entry k_map_entry = {
    .name = "selftest.idmap", .what = "ID-map comparator self-test", .tol = { GNN_CMP_CANONICAL, 0, 0 },
    .reason = "test", .params = k_test_params, .n_params = 1, .presets = k_test_presets, .ref = &k_test_impl,
    .impls = k_test_impls, .run = map_entry_run,
};

static gnn_oracle_outcome compare_maps(gnn_oracle_cmp cmp, const int32_t *impl_local, const int64_t *impl_gid,
                                       int64_t impl_n_src, gnn_oracle_result *r)
{
    /* dst 10, 20; neighbors 7, 30, 7, 30, 5, 10: reference local ids 2 3 2 3 4 0 */
    static const int32_t ref_local[] = { 2, 3, 2, 3, 4, 0 };
    static const int64_t ref_gid[] = { 10, 20, 7, 30, 5 };
    g_map.cmp = cmp;
    g_map.n_dst = 2;
    g_map.nnz = 6;
    g_map.ref_n_src = 5;
    g_map.ref_local = ref_local;
    g_map.ref_gid = ref_gid;
    g_map.impl_local = impl_local;
    g_map.impl_gid = impl_gid;
    g_map.impl_n_src = impl_n_src;
    gnn_oracle_case c;
    gnn_oracle_case_init(&c, &k_map_entry, &k_test_impl, 0, "n=1", 1, NULL);
    return gnn_oracle_run(&c, r);
}

START_TEST(idmap_canonical_comparator)
{
    gnn_oracle_result r;
    const int32_t same[] = { 2, 3, 2, 3, 4, 0 }, swapped[] = { 3, 2, 3, 2, 4, 0 }, rotated[] = { 4, 2, 4, 2, 3, 0 };
    const int64_t gid[] = { 10, 20, 7, 30, 5 }, gid_swapped[] = { 10, 20, 30, 7, 5 }, gid_rot[] = { 10, 20, 30, 5, 7 };
    ck_assert_int_eq(compare_maps(GNN_CMP_BITWISE, same, gid, 5, &r), GNN_ORACLE_PASS);
    ck_assert_int_eq(compare_maps(GNN_CMP_CANONICAL, same, gid, 5, &r), GNN_ORACLE_PASS);
    /* two new ids swapped: bitwise sees it, canonical accepts it */
    ck_assert_int_eq(compare_maps(GNN_CMP_BITWISE, swapped, gid_swapped, 5, &r), GNN_ORACLE_FAIL);
    ck_assert_msg(strstr(r.detail, "map.local") && strstr(r.detail, "elements differ"), "%s", r.detail);
    ck_assert_int_eq(compare_maps(GNN_CMP_CANONICAL, swapped, gid_swapped, 5, &r), GNN_ORACLE_PASS);
    ck_assert_int_eq(compare_maps(GNN_CMP_CANONICAL, rotated, gid_rot, 5, &r), GNN_ORACLE_PASS);
    /* a relabelling of local ids without the matching src_gid is a wrong map */
    ck_assert_int_eq(compare_maps(GNN_CMP_CANONICAL, swapped, gid, 5, &r), GNN_ORACLE_FAIL);
    ck_assert_msg(strstr(r.detail, "map.src_gid"), "%s", r.detail);
    /* dst must keep their ids */
    const int32_t dst_moved[] = { 2, 3, 2, 3, 4, 1 };
    ck_assert_int_eq(compare_maps(GNN_CMP_CANONICAL, dst_moved, gid, 5, &r), GNN_ORACLE_FAIL);
    /* not a bijection: one global id under two local ids; an unused id; an id out of range */
    const int64_t gid_dup[] = { 10, 20, 7, 7, 5 };
    ck_assert_int_eq(compare_maps(GNN_CMP_CANONICAL, same, gid_dup, 5, &r), GNN_ORACLE_FAIL);
    ck_assert_msg(strstr(r.detail, "two local ids") && strstr(r.detail, "not a bijection"), "%s", r.detail);
    const int32_t merged[] = { 2, 2, 2, 2, 4, 0 };
    ck_assert_int_eq(compare_maps(GNN_CMP_CANONICAL, merged, gid, 5, &r), GNN_ORACLE_FAIL);
    ck_assert_msg(strstr(r.detail, "never used") && strstr(r.detail, "not a bijection"), "%s", r.detail);
    const int32_t wild[] = { 2, 3, 2, 3, 5, 0 };
    ck_assert_int_eq(compare_maps(GNN_CMP_CANONICAL, wild, gid, 5, &r), GNN_ORACLE_FAIL);
    ck_assert_msg(strstr(r.detail, "outside [0, n_src = 5)"), "%s", r.detail);
    ck_assert_int_eq(compare_maps(GNN_CMP_CANONICAL, same, gid, 4, &r), GNN_ORACLE_FAIL);
    ck_assert_msg(strstr(r.detail, "n_src differs"), "%s", r.detail);
}
END_TEST

START_TEST(idmap_entries_catch_wrong_maps)
{
    tally t;
    const int n_presets = gnn_oracle_n_presets(gnn_oracle_find("idmap.build"));
    /* swapped new ids: the bitwise entry fails, the canonical one passes every preset */
    run_with_impl("idmap.build", &m_idmap_swap, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_msg(strstr(t.first_fail, ".local") && strstr(t.first_fail, "elements differ (bitwise)"), "%s",
                  t.first_fail);
    run_with_impl("idmap.fused", &m_idmap_swap, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_PASS] == n_presets, "%d of %d passed; first:\n%s", t.counts[GNN_ORACLE_PASS],
                  n_presets, t.first_fail);
    /* two vertices merged: canonical rejects it */
    run_with_impl("idmap.fused", &m_idmap_merge, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_msg(strstr(t.first_fail, "not a bijection"), "%s", t.first_fail);
}
END_TEST

/* ---- samplers against the reference pipeline ------------------------------------------------------ */

/* Mutant sampler tables (MUTANT_SAMPLER above): layer and blocks run the reference pipeline
 * and break the result. */
/* The reference layer with its last edge pointing at the next local id. */
static gnn_status layer_edge_off(void *state, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                                 gnn_block *out)
{
    gnn_sampled s;
    gnn_status st = gnn_sample_uniform_ref(state, seeds, n_seeds, p, &s);
    if (st)
        return st;
    st = gnn_block_build_ref(&s, out);
    gnn_sampled_free(&s);
    if (!st && out->nnz > 0 && out->n_src > 1)
        out->indices[out->nnz - 1] = (int32_t)((out->indices[out->nnz - 1] + 1) % out->n_src);
    return st;
}
/* An unordered ID map: new src by descending global id (build_descending above). */
static gnn_status layer_descending(void *state, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                                   gnn_block *out)
{
    gnn_sampled s;
    gnn_status st = gnn_sample_uniform_ref(state, seeds, n_seeds, p, &s);
    if (st)
        return st;
    st = build_descending(&s, out);
    gnn_sampled_free(&s);
    return st;
}
/* L layers through the descending map: every layer's dst are the (unordered) src above. */
static const gnn_sampler_ops k_desc_layers_ops = MUTANT_SAMPLER("descending", layer_descending, NULL);
static gnn_status blocks_descending(void *state, const int64_t *seeds, int64_t n_seeds, const int64_t *fanouts, int L,
                                    const gnn_sample_params *base, gnn_block *blocks)
{
    return gnn_sample_blocks(&k_desc_layers_ops, state, seeds, n_seeds, fanouts, L, base, blocks);
}
/* The reference blocks with the last edge of the input layer pointing at the next local id. */
static gnn_status blocks_edge_off(void *state, const int64_t *seeds, int64_t n_seeds, const int64_t *fanouts, int L,
                                  const gnn_sample_params *base, gnn_block *blocks)
{
    gnn_status st = gnn_sample_blocks(&gnn_sampler_ref, state, seeds, n_seeds, fanouts, L, base, blocks);
    gnn_block *b = &blocks[0];
    if (!st && b->nnz > 0 && b->n_src > 1)
        b->indices[b->nnz - 1] = (int32_t)((b->indices[b->nnz - 1] + 1) % b->n_src);
    return st;
}
/* The reference blocks with the first two dst of the input layer swapped together with their
 * rows and every edge to them: a valid relabelling of that block, but its dst no longer follow
 * the src order of the block above. */
static gnn_status blocks_chain_broken(void *state, const int64_t *seeds, int64_t n_seeds, const int64_t *fanouts,
                                      int L, const gnn_sample_params *base, gnn_block *blocks)
{
    gnn_status st = gnn_sample_blocks(&gnn_sampler_ref, state, seeds, n_seeds, fanouts, L, base, blocks);
    gnn_block *b = &blocks[0];
    if (st || b->n_dst < 2)
        return st;
    int32_t *idx = malloc((size_t)b->nnz * sizeof(int32_t) + 1);
    const int64_t d0 = b->indptr[1] - b->indptr[0], d1 = b->indptr[2] - b->indptr[1];
    memcpy(idx, b->indices + b->indptr[1], (size_t)d1 * sizeof(int32_t));
    memcpy(idx + d1, b->indices, (size_t)d0 * sizeof(int32_t));
    memcpy(idx + d0 + d1, b->indices + b->indptr[2], (size_t)(b->nnz - b->indptr[2]) * sizeof(int32_t));
    for (int64_t e = 0; e < b->nnz; e++)
        b->indices[e] = idx[e] == 0 ? 1 : idx[e] == 1 ? 0 : idx[e];
    b->indptr[1] = d1;
    const int64_t t = b->src_gid[0];
    b->src_gid[0] = b->src_gid[1];
    b->src_gid[1] = t;
    free(idx);
    return st;
}
static const gnn_sampler_ops k_layer_edge_ops = MUTANT_SAMPLER("edge-off", layer_edge_off, blocks_edge_off);
static const gnn_sampler_ops k_layer_desc_ops = MUTANT_SAMPLER("descending", layer_descending, blocks_descending);
static const gnn_sampler_ops k_chain_ops = MUTANT_SAMPLER("chain", layer_edge_off, blocks_chain_broken);
static const gnn_oracle_impl m_edge_off = { "edge-off", &k_layer_edge_ops, 0 };
static const gnn_oracle_impl m_unordered = { "descending", &k_layer_desc_ops, 0 };
static const gnn_oracle_impl m_chain = { "chain", &k_chain_ops, 0 };

START_TEST(sampler_entries_catch_wrong_blocks)
{
    tally t;
    /* one edge relabelled: caught bitwise and canonically, one layer or many */
    static const char *const all[] = { "sample.layer", "sample.layer.fusedmap", "sample.blocks",
                                       "sample.blocks.fusedmap", NULL };
    for (int i = 0; all[i]; i++) {
        run_with_impl(all[i], &m_edge_off, 0, 1, &t);
        ck_assert_msg(t.counts[GNN_ORACLE_FAIL] > 0, "%s: a relabelled edge went unnoticed", all[i]);
        ck_assert_msg(strstr(t.first_fail, ".indices") && strstr(t.first_fail, "elements differ"), "%s: %s", all[i],
                      t.first_fail);
    }
    /* an unordered ID map: bitwise fails, canonical accepts it on every preset, including the
     * lower layers whose dst order is the unordered src order above */
    static const char *const pairs[][2] = { { "sample.layer", "sample.layer.fusedmap" },
                                            { "sample.blocks", "sample.blocks.fusedmap" } };
    for (int i = 0; i < 2; i++) {
        run_with_impl(pairs[i][0], &m_unordered, 0, 1, &t);
        ck_assert_msg(t.counts[GNN_ORACLE_FAIL] > 0, "%s: an unordered map passed bitwise", pairs[i][0]);
        ck_assert_msg(strstr(t.first_fail, ".src_gid"), "%s", t.first_fail);
        run_with_impl(pairs[i][1], &m_unordered, 0, 1, &t);
        const int n_presets = gnn_oracle_n_presets(gnn_oracle_find(pairs[i][1]));
        ck_assert_msg(t.counts[GNN_ORACLE_PASS] == n_presets, "%s: %d of %d passed; first:\n%s", pairs[i][1],
                      t.counts[GNN_ORACLE_PASS], n_presets, t.first_fail);
    }
    /* a block whose dst are not the src of the block above, in order */
    run_with_impl("sample.blocks.fusedmap", &m_chain, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_msg(strstr(t.first_fail, "the src of the block above"), "%s", t.first_fail);
}
END_TEST

Suite *suite_oracle_sampling(void)
{
    Suite *s = suite_create("oracle_sampling");
    TCase *h = tcase_create("harness");
    tcase_set_tags(h, "cpu");
    tcase_set_timeout(h, 60);
    tcase_add_test(h, chisq_pvalue_known);
    tcase_add_test(h, chisq_rejects_biased_sampler);
    tcase_add_test(h, verify_catches_broken_sampler);
    tcase_add_test(h, verify_catches_broken_builder);
    tcase_add_test(h, canonical_relabel);
    tcase_add_test(h, chisq_rejects_biased_weighted);
    tcase_add_test(h, idmap_canonical_comparator);
    tcase_add_test(h, idmap_entries_catch_wrong_maps);
    tcase_add_test(h, sampler_entries_catch_wrong_blocks);
    suite_add_tcase(s, h);
    return s;
}
