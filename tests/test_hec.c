/* tests/test_hec.c -- the Historical Embedding Cache (include/gnnref/hec.h, docs/hec.md):
 * hand-worked sequences with known results, run on every implementation (ref and cpu):
 * the three-step worked example of docs/hec.md, a repeated id in one batch, a batch that
 * wraps around the cache, age saturation (ls + 1, and INT32_MAX for a lifespan that never
 * expires), reset, the argument errors (nothing changes on error), and mutants that the
 * oracle entries hec.ops and hec.verify must reject (Intel's store at the batch position,
 * first-wins duplicates, a cache without lifespan). The ref-vs-cpu oracle itself runs in
 * tests/test_oracle.c with every registry entry. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "gnnref/hec.h"
#include "gnnref/oracle.h"
#include "thread_util.h"

static const gnn_hec_ops *const k_impls[] = { &gnn_hec_ref, &gnn_hec_cpu };
#define N_IMPLS ((int)(sizeof k_impls / sizeof k_impls[0]))

/* One expected line: tag, age, and the embedding's value (dim 2, both entries equal). */
typedef struct want_line {
    int64_t tag;
    int32_t age;
    float v;
} want_line;

static void check_lines(const gnn_hec *h, const want_line *w, int64_t wp, const char *when)
{
    ck_assert_int_eq(h->wp, wp);
    for (int64_t i = 0; i < h->cs; i++) {
        ck_assert_msg(h->tag[i] == w[i].tag, "%s (%s): line %lld tag %lld, want %lld", when, h->ops->name,
                      (long long)i, (long long)h->tag[i], (long long)w[i].tag);
        ck_assert_msg(h->age[i] == w[i].age, "%s (%s): line %lld age %d, want %d", when, h->ops->name, (long long)i,
                      (int)h->age[i], (int)w[i].age);
        for (int64_t f = 0; f < h->dim; f++)
            ck_assert_msg(h->emb[i * h->dim + f] == w[i].v, "%s (%s): line %lld emb %g, want %g", when,
                          h->ops->name, (long long)i, (double)h->emb[i * h->dim + f], (double)w[i].v);
    }
}

static void check_counters(const gnn_hec *h, uint64_t hits, uint64_t misses, uint64_t expired, uint64_t stores,
                           uint64_t overwrites, uint64_t evictions)
{
    ck_assert_uint_eq(h->cnt.hits, hits);
    ck_assert_uint_eq(h->cnt.misses, misses);
    ck_assert_uint_eq(h->cnt.expired, expired);
    ck_assert_uint_eq(h->cnt.stores, stores);
    ck_assert_uint_eq(h->cnt.overwrites, overwrites);
    ck_assert_uint_eq(h->cnt.evictions, evictions);
}

/* The worked example of docs/hec.md: cs = 3, dim = 2, ls = 1; embeddings a1 = (1,1),
 * a2 = (2,2), b1 = (3,3), c1 = (4,4), d1 = (5,5).
 *   step 1: receive (10,a1) (11,b1) (10,a2); search {11, 12}
 *   step 2: receive (12,c1);                  search {10, 12}
 *   step 3: receive (13,d1);                  search {10, 11, 12, 13} */
START_TEST(worked_example)
{
    const gnn_hec_ops *ops = k_impls[_i];
    gnn_hec h;
    ck_assert_int_eq(gnn_hec_init(&h, ops, 3, 2, 1, NULL), GNN_OK);
    ck_assert_int_eq(h.age_cap, 2);
    const want_line empty[3] = { { -1, 0, 0 }, { -1, 0, 0 }, { -1, 0, 0 } };
    check_lines(&h, empty, 0, "init");

    /* step 1: the repeated 10 overwrites its own line: 10 ends with a2 */
    gnn_hec_age(&h);
    const int64_t ids1[3] = { 10, 11, 10 };
    const float emb1[6] = { 1, 1, 3, 3, 2, 2 };
    ck_assert_int_eq(gnn_hec_store(&h, ids1, emb1, 3, NULL), GNN_OK);
    const want_line s1[3] = { { 10, 0, 2 }, { 11, 0, 3 }, { -1, 0, 0 } };
    check_lines(&h, s1, 2, "step 1");
    const int64_t q1[2] = { 11, 12 };
    int64_t lines[4];
    ck_assert_int_eq(gnn_hec_search(&h, q1, 2, lines, NULL), GNN_OK);
    ck_assert_int_eq(lines[0], 1);
    ck_assert_int_eq(lines[1], -1);
    float out[8] = { -9, -9, -9, -9, -9, -9, -9, -9 };
    ck_assert_int_eq(gnn_hec_load(&h, lines, 2, out, NULL), GNN_OK);
    ck_assert(out[0] == 3 && out[1] == 3);
    ck_assert(out[2] == -9 && out[3] == -9); /* 12 missed: its row is left alone */
    check_counters(&h, 1, 1, 0, 3, 1, 0);

    /* step 2: 12 fills the last empty line, the write pointer wraps to 0 */
    gnn_hec_age(&h);
    const int64_t ids2[1] = { 12 };
    const float emb2[2] = { 4, 4 };
    ck_assert_int_eq(gnn_hec_store(&h, ids2, emb2, 1, NULL), GNN_OK);
    const want_line s2[3] = { { 10, 1, 2 }, { 11, 1, 3 }, { 12, 0, 4 } };
    check_lines(&h, s2, 0, "step 2");
    const int64_t q2[2] = { 10, 12 };
    ck_assert_int_eq(gnn_hec_search(&h, q2, 2, lines, NULL), GNN_OK);
    ck_assert_int_eq(lines[0], 0); /* age 1 <= ls: still a hit */
    ck_assert_int_eq(lines[1], 2);
    ck_assert_int_eq(gnn_hec_load(&h, lines, 2, out, NULL), GNN_OK);
    ck_assert(out[0] == 2 && out[1] == 2 && out[2] == 4 && out[3] == 4);
    check_counters(&h, 3, 1, 0, 4, 1, 0);

    /* step 3: 13 takes line 0 (filled first: OCF) and evicts 10; 11 (age 2) has expired */
    gnn_hec_age(&h);
    const int64_t ids3[1] = { 13 };
    const float emb3[2] = { 5, 5 };
    ck_assert_int_eq(gnn_hec_store(&h, ids3, emb3, 1, NULL), GNN_OK);
    const want_line s3[3] = { { 13, 0, 5 }, { 11, 2, 3 }, { 12, 1, 4 } };
    check_lines(&h, s3, 1, "step 3");
    const int64_t q3[4] = { 10, 11, 12, 13 };
    ck_assert_int_eq(gnn_hec_search(&h, q3, 4, lines, NULL), GNN_OK);
    ck_assert_int_eq(lines[0], -1); /* evicted */
    ck_assert_int_eq(lines[1], -1); /* present, expired */
    ck_assert_int_eq(lines[2], 2);
    ck_assert_int_eq(lines[3], 0);
    for (int k = 0; k < 8; k++)
        out[k] = -9;
    ck_assert_int_eq(gnn_hec_load(&h, lines, 4, out, NULL), GNN_OK);
    const float want_out[8] = { -9, -9, -9, -9, 4, 4, 5, 5 };
    for (int k = 0; k < 8; k++)
        ck_assert_msg(out[k] == want_out[k], "%s: out[%d] = %g, want %g", ops->name, k, (double)out[k],
                      (double)want_out[k]);
    check_counters(&h, 5, 3, 1, 5, 1, 1);
    ck_assert_int_eq(gnn_hec_occupied(&h), 3);
    gnn_hec_free(&h);
    gnn_hec_free(&h); /* twice is safe */
}
END_TEST

/* cs = 2, one batch (1,e1) (2,e2) (3,e3) (1,e4) (2,e5) (1,e6): the batch wraps around and
 * evicts its own insertions; the result is what applying the pairs one by one gives.
 *   1 -> L0 (wp 1); 2 -> L1 (wp 0); 3 -> L0 evicts 1 (wp 1); 1 -> L1 evicts 2 (wp 0);
 *   2 -> L0 evicts 3 (wp 1); 1 is cached in L1: overwrite with e6. */
START_TEST(batch_wraps_and_repeats)
{
    const gnn_hec_ops *ops = k_impls[_i];
    gnn_hec h;
    ck_assert_int_eq(gnn_hec_init(&h, ops, 2, 3, 0, NULL), GNN_OK);
    gnn_hec_age(&h);
    const int64_t ids[6] = { 1, 2, 3, 1, 2, 1 };
    float emb[18];
    for (int k = 0; k < 18; k++)
        emb[k] = (float)(k / 3 + 1); /* e_k = (k, k, k) */
    ck_assert_int_eq(gnn_hec_store(&h, ids, emb, 6, NULL), GNN_OK);
    const want_line w[2] = { { 2, 0, 5 }, { 1, 0, 6 } };
    check_lines(&h, w, 1, "wrap");
    check_counters(&h, 0, 0, 0, 6, 1, 3);
    /* ls = 0: a line hits only in the step it was written */
    int64_t lines[3];
    const int64_t q[3] = { 1, 2, 3 };
    ck_assert_int_eq(gnn_hec_search(&h, q, 3, lines, NULL), GNN_OK);
    ck_assert_int_eq(lines[0], 1);
    ck_assert_int_eq(lines[1], 0);
    ck_assert_int_eq(lines[2], -1);
    gnn_hec_age(&h);
    ck_assert_int_eq(gnn_hec_search(&h, q, 3, lines, NULL), GNN_OK);
    ck_assert(lines[0] == -1 && lines[1] == -1 && lines[2] == -1);
    check_counters(&h, 2, 4, 2, 6, 1, 3);
    gnn_hec_free(&h);
}
END_TEST

/* Ages saturate at ls + 1 (so at most INT32_MAX); an expired line comes back when stored. */
START_TEST(age_saturates)
{
    const gnn_hec_ops *ops = k_impls[_i];
    gnn_hec h;
    ck_assert_int_eq(gnn_hec_init(&h, ops, 4, 1, 1, NULL), GNN_OK);
    const int64_t id = 7;
    const float e = 1.5f;
    ck_assert_int_eq(gnn_hec_store(&h, &id, &e, 1, NULL), GNN_OK);
    for (int s = 0; s < 10; s++)
        gnn_hec_age(&h);
    ck_assert_int_eq(h.age[0], 2);
    ck_assert_int_eq(h.age[1], 0); /* empty lines do not age */
    int64_t line;
    ck_assert_int_eq(gnn_hec_search(&h, &id, 1, &line, NULL), GNN_OK);
    ck_assert_int_eq(line, -1);
    ck_assert_uint_eq(h.cnt.expired, 1);
    const float e2 = 2.5f;
    ck_assert_int_eq(gnn_hec_store(&h, &id, &e2, 1, NULL), GNN_OK); /* overwrite in place, age 0 */
    ck_assert_int_eq(h.age[0], 0);
    ck_assert_int_eq(h.wp, 1);
    ck_assert_uint_eq(h.cnt.overwrites, 1);
    ck_assert_int_eq(gnn_hec_search(&h, &id, 1, &line, NULL), GNN_OK);
    ck_assert_int_eq(line, 0);
    gnn_hec_free(&h);

    /* ls = INT32_MAX: the cap is INT32_MAX itself, and lines never expire */
    ck_assert_int_eq(gnn_hec_init(&h, ops, 2, 1, INT32_MAX, NULL), GNN_OK);
    ck_assert_int_eq(h.age_cap, INT32_MAX);
    ck_assert_int_eq(gnn_hec_store(&h, &id, &e, 1, NULL), GNN_OK);
    h.age[0] = INT32_MAX - 1; /* as after 2^31 - 2 steps */
    gnn_hec_age(&h);
    gnn_hec_age(&h);
    gnn_hec_age(&h);
    ck_assert_int_eq(h.age[0], INT32_MAX);
    ck_assert_int_eq(gnn_hec_search(&h, &id, 1, &line, NULL), GNN_OK);
    ck_assert_int_eq(line, 0);
    gnn_hec_free(&h);
}
END_TEST

/* Reset empties everything (the cpu tag index too) and the cache works again. */
START_TEST(reset_empties)
{
    const gnn_hec_ops *ops = k_impls[_i];
    gnn_hec h;
    ck_assert_int_eq(gnn_hec_init(&h, ops, 3, 2, 2, NULL), GNN_OK);
    const int64_t ids[4] = { 5, 6, 7, 8 };
    const float emb[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    ck_assert_int_eq(gnn_hec_store(&h, ids, emb, 4, NULL), GNN_OK);
    gnn_hec_reset(&h);
    const want_line empty[3] = { { -1, 0, 0 }, { -1, 0, 0 }, { -1, 0, 0 } };
    check_lines(&h, empty, 0, "reset");
    check_counters(&h, 0, 0, 0, 0, 0, 0);
    int64_t lines[4];
    ck_assert_int_eq(gnn_hec_search(&h, ids, 4, lines, NULL), GNN_OK);
    for (int k = 0; k < 4; k++)
        ck_assert_int_eq(lines[k], -1);
    ck_assert_uint_eq(h.cnt.expired, 0);
    ck_assert_int_eq(gnn_hec_store(&h, ids + 3, emb + 6, 1, NULL), GNN_OK);
    ck_assert_int_eq(h.tag[0], 8);
    ck_assert_int_eq(gnn_hec_search(&h, ids + 3, 1, lines, NULL), GNN_OK);
    ck_assert_int_eq(lines[0], 0);
    gnn_hec_free(&h);
}
END_TEST

/* Bad arguments: the documented statuses, a message naming the value, nothing changed. */
START_TEST(errors)
{
    const gnn_hec_ops *ops = k_impls[_i];
    gnn_hec h;
    gnn_err err;
    ck_assert_int_eq(gnn_hec_init(&h, ops, 0, 4, 1, &err), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "cs = 0"));
    ck_assert_ptr_null(h.tag);
    ck_assert_int_eq(gnn_hec_init(&h, ops, 4, 0, 1, &err), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "dim = 0"));
    ck_assert_int_eq(gnn_hec_init(&h, ops, 4, 4, -1, &err), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "ls = -1"));
    ck_assert_int_eq(gnn_hec_init(&h, ops, INT64_MAX / 2, 1024, 1, &err), GNN_ERR_RANGE);
    ck_assert_int_eq(gnn_hec_init(&h, NULL, 4, 4, 1, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_hec_init(NULL, ops, 4, 4, 1, &err), GNN_ERR_INVAL);
    /* a zeroed (or failed) cache refuses every operation and ignores age/reset/free */
    int64_t id = 1, line = 5;
    float e[4] = { 0 };
    ck_assert_int_eq(gnn_hec_store(&h, &id, e, 1, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_hec_search(&h, &id, 1, &line, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_hec_load(&h, &line, 1, e, &err), GNN_ERR_INVAL);
    gnn_hec_age(&h);
    gnn_hec_reset(&h);
    gnn_hec_free(&h);

    ck_assert_int_eq(gnn_hec_init(&h, ops, 4, 4, 1, &err), GNN_OK);
    const int64_t ids[3] = { 3, 4, 5 };
    float emb[12];
    for (int k = 0; k < 12; k++)
        emb[k] = (float)k;
    ck_assert_int_eq(gnn_hec_store(&h, ids, emb, 3, NULL), GNN_OK);
    const gnn_hec_counters before = h.cnt;
    int64_t tags_before[4];
    memcpy(tags_before, h.tag, sizeof tags_before);
    /* an id < 0 anywhere in the batch: nothing stored, even the valid pairs before it */
    const int64_t bad_ids[3] = { 9, -1, 10 };
    ck_assert_int_eq(gnn_hec_store(&h, bad_ids, emb, 3, &err), GNN_ERR_RANGE);
    ck_assert_ptr_nonnull(strstr(err.msg, "ids[1] = -1"));
    ck_assert_int_eq(memcmp(tags_before, h.tag, sizeof tags_before), 0);
    ck_assert_int_eq(h.wp, 3);
    int64_t lines[3] = { 7, 7, 7 };
    ck_assert_int_eq(gnn_hec_search(&h, bad_ids, 3, lines, &err), GNN_ERR_RANGE);
    ck_assert_int_eq(lines[0], 7); /* nothing written */
    ck_assert_int_eq(memcmp(&before, &h.cnt, sizeof before), 0);
    ck_assert_int_eq(gnn_hec_store(&h, ids, emb, -1, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_hec_store(&h, NULL, emb, 1, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_hec_store(&h, ids, NULL, 1, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_hec_search(&h, ids, 1, NULL, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_hec_store(&h, NULL, NULL, 0, &err), GNN_OK); /* an empty batch */
    ck_assert_int_eq(gnn_hec_search(&h, NULL, 0, NULL, &err), GNN_OK);
    /* load: lines outside [-1, cs) */
    float out[8] = { -9, -9, -9, -9, -9, -9, -9, -9 };
    const int64_t bad_lines[2] = { 0, 4 };
    ck_assert_int_eq(gnn_hec_load(&h, bad_lines, 2, out, &err), GNN_ERR_RANGE);
    ck_assert_ptr_nonnull(strstr(err.msg, "lines[1] = 4"));
    ck_assert(out[0] == -9); /* checked before the first row was written */
    const int64_t bad_lines2[1] = { -2 };
    ck_assert_int_eq(gnn_hec_load(&h, bad_lines2, 1, out, &err), GNN_ERR_RANGE);
    ck_assert_int_eq(gnn_hec_load(&h, bad_lines, 1, NULL, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(memcmp(&before, &h.cnt, sizeof before), 0);
    gnn_hec_free(&h);
}
END_TEST

/* ---- mutants: the oracle entries must reject them ------------------------------------------- */

/* Intel's fork: the line is chosen correctly, but the embedding is written at the batch
 * position k (mod cs) instead of the chosen line. */
static void m_batch_position(gnn_hec *h, const int64_t *ids, const float *emb, int64_t m)
{
    gnn_hec_ref.store(h, ids, emb, m);
    for (int64_t k = 0; k < m; k++)
        memcpy(h->emb + (k % h->cs) * h->dim, emb + k * h->dim, (size_t)h->dim * sizeof(float));
}

/* A repeated id in a batch keeps its FIRST embedding (a parallel scatter with the wrong winner). */
static void m_first_wins(gnn_hec *h, const int64_t *ids, const float *emb, int64_t m)
{
    gnn_hec_ref.store(h, ids, emb, m);
    for (int64_t k = m - 1; k >= 0; k--) /* the earliest occurrence is copied last */
        for (int64_t i = 0; i < h->cs; i++)
            if (h->tag[i] == ids[k])
                memcpy(h->emb + i * h->dim, emb + k * h->dim, (size_t)h->dim * sizeof(float));
}

/* No lifespan (GNNAutoScale's History): a present tag always hits. */
static void m_no_lifespan(gnn_hec *h, const int64_t *ids, int64_t m, int64_t *lines)
{
    const int32_t ls = h->ls;
    h->ls = INT32_MAX;
    gnn_hec_ref.search(h, ids, m, lines);
    h->ls = ls;
}

static gnn_hec_ops k_m_ops[3];
static gnn_oracle_impl k_m_impl[3];

static void mutants_setup(void)
{
    const char *names[3] = { "batch-position", "first-wins", "no-lifespan" };
    for (int k = 0; k < 3; k++) {
        k_m_ops[k] = gnn_hec_ref;
        k_m_ops[k].name = names[k];
        k_m_impl[k] = (gnn_oracle_impl){ .name = "cpu", .ops = &k_m_ops[k], .flags = GNN_ORACLE_THREADED };
    }
    k_m_ops[0].store = m_batch_position;
    k_m_ops[1].store = m_first_wins;
    k_m_ops[2].search = m_no_lifespan;
}

static int run_mutant(const char *entry, const gnn_oracle_impl *impl, char *first_fail, size_t cap)
{
    const gnn_oracle_entry *e = gnn_oracle_find(entry);
    ck_assert_ptr_nonnull(e);
    int fails = 0;
    first_fail[0] = '\0';
    for (int p = 0; e->presets[p]; p++) {
        gnn_oracle_case c;
        gnn_err err;
        ck_assert_int_eq(gnn_oracle_case_init(&c, e, impl, test_threads(2), e->presets[p], 1, &err), GNN_OK);
        gnn_oracle_result r;
        if (gnn_oracle_run(&c, &r) == GNN_ORACLE_FAIL) {
            if (!fails)
                snprintf(first_fail, cap, "%s\n%s", r.case_str, r.detail);
            fails++;
        }
    }
    return fails;
}

START_TEST(oracle_catches_mutants)
{
    mutants_setup();
    char first[4096];
    /* hec.ops names the first step and field that differ */
    ck_assert_int_gt(run_mutant("hec.ops", &k_m_impl[0], first, sizeof first), 0);
    ck_assert_msg(strstr(first, "emb"), "%s", first);
    ck_assert_int_gt(run_mutant("hec.ops", &k_m_impl[1], first, sizeof first), 0);
    ck_assert_int_gt(run_mutant("hec.ops", &k_m_impl[2], first, sizeof first), 0);
    ck_assert_msg(strstr(first, "search lines"), "%s", first);
    /* hec.verify catches each without the reference */
    ck_assert_int_gt(run_mutant("hec.verify", &k_m_impl[0], first, sizeof first), 0);
    ck_assert_msg(strstr(first, "last embedding received"), "%s", first);
    ck_assert_int_gt(run_mutant("hec.verify", &k_m_impl[1], first, sizeof first), 0);
    ck_assert_msg(strstr(first, "last embedding received"), "%s", first);
    ck_assert_int_gt(run_mutant("hec.verify", &k_m_impl[2], first, sizeof first), 0);
    ck_assert_msg(strstr(first, "older than ls: expired"), "%s", first);
    /* and the real implementations pass both, at 2 threads */
    const gnn_oracle_impl cpu = { .name = "cpu", .ops = &gnn_hec_cpu, .flags = GNN_ORACLE_THREADED };
    ck_assert_msg(run_mutant("hec.ops", &cpu, first, sizeof first) == 0, "%s", first);
    ck_assert_msg(run_mutant("hec.verify", &cpu, first, sizeof first) == 0, "%s", first);
}
END_TEST

Suite *suite_hec(void)
{
    Suite *s = suite_create("hec");
    TCase *tc = tcase_create("cpu");
    tcase_set_tags(tc, "cpu");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, worked_example, 0, N_IMPLS);
    tcase_add_loop_test(tc, batch_wraps_and_repeats, 0, N_IMPLS);
    tcase_add_loop_test(tc, age_saturates, 0, N_IMPLS);
    tcase_add_loop_test(tc, reset_empties, 0, N_IMPLS);
    tcase_add_loop_test(tc, errors, 0, N_IMPLS);
    tcase_add_test(tc, oracle_catches_mutants);
    suite_add_tcase(s, tc);
    return s;
}
