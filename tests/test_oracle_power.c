/* tests/test_oracle_power.c -- self-tests of the oracle powers of issue 20 (docs/oracle.md,
 * "Bitwise where the order is fixed" and "Races"): each test plants a deliberately broken
 * implementation (or a correct one) and asserts what the machinery must say, so that a harness
 * whose check was lost fails here.
 *
 *   same_bits_across_thread_counts  a copy of update.fwd's cpu ops whose output moves one ulp when
 *       more than one OpenMP thread runs it, held to cpu's nmse line (so the comparison with
 *       ref passes at every count): run at threads 1 then 2 (and 2 then 1) the later count's
 *       cases FAIL with "thread-count dependence"; registered GNN_ORACLE_THREAD_DEPENDENT it
 *       passes.
 *   per_impl_tolerance_lookup  gnn_oracle_tol_of / gnn_oracle_reason_of: update.fwd's cpu gets
 *       its impl_tols line (nmse), cpu-blocked, ref and NULL the entry's (bitwise).
 *   per_impl_tolerance_decides  ref's forward with every positive output one ulp up (~1e-7
 *       relative) fails update.fwd as an implementation without a line of its own (bitwise) and
 *       passes every preset when it is listed with cpu's nmse line.
 *   stress_catches_scheduling_dependence  a one-case entry with an exact comparator (verify) and
 *       an implementation that flips a low bit on every second call, which each run alone
 *       passes: gnn_oracle_run_stress (runs 3) FAILs naming run 2 and the digest; the stable
 *       implementation passes all three runs; under a tolerance the digest is not compared;
 *       s == NULL is one plain run.
 *   stress_real_entry  aggregate.sum.fwd's cpu (bitwise) under stress (runs 3, noise 1, threads
 *       2) passes every preset; a copy of it wrong on every second call fails at run 2 (a later
 *       run's failure is reported, with that run's detail).
 *   stress_cli  `gnnref oracle --stress 2 --stress-noise 1 --stress-seed 3` prints its stress line
 *       with those settings and passes; --stress-noise or --stress-seed without --stress is a
 *       usage error naming --stress.
 *   hec_reset_of_a_full_large_cache  hec.ops and hec.verify at seed 1 reset a full cache of
 *       >= 4096 lines (the cpu reset's parallel path) and then store a batch that leaves lines
 *       empty, at least once, and pass (a copy of cpu's ops that counts it). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef GNN_HAVE_OPENMP
#include <omp.h>
#endif
#include "gnnref/aggregate.h"
#include "gnnref/hec.h"
#include "gnnref/oracle.h"
#include "gnnref/update.h"
#include "cli_util.h"
#include "oracle_util.h"

static int starts_with(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

static int max_threads(void)
{
#ifdef GNN_HAVE_OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* An entry of the registry with one planted implementation: its impls list is that
 * implementation alone; with tol_of_impl, its impl_tols is one line for it, the tolerance and
 * reason of the entry's implementation of that name; without, the entry's own impl_tols (the
 * planted implementation is not on it). */
typedef struct planted {
    gnn_oracle_entry e;
    gnn_oracle_impl impl;
    const gnn_oracle_impl *impls[2];
    gnn_oracle_impl_tol tols[2];
} planted;

static void plant(planted *p, const char *entry, const char *tol_of_impl, const char *name, const void *ops,
                  unsigned flags)
{
    const gnn_oracle_entry *e = gnn_oracle_find(entry);
    ck_assert_msg(e != NULL, "no entry %s", entry);
    memset(p, 0, sizeof *p);
    p->e = *e;
    p->impl = (gnn_oracle_impl){ .name = name, .ops = ops, .flags = flags };
    p->impls[0] = &p->impl;
    p->e.impls = p->impls;
    if (tol_of_impl) {
        const gnn_oracle_impl *from = gnn_oracle_find_impl(e, tol_of_impl);
        ck_assert_msg(from != NULL, "%s has no implementation %s", entry, tol_of_impl);
        p->tols[0] = (gnn_oracle_impl_tol){ &p->impl, *gnn_oracle_tol_of(e, from), gnn_oracle_reason_of(e, from) };
        p->e.impl_tols = p->tols;
    }
}

/* Outcomes by thread count, and what the failures say. */
typedef struct by_threads {
    int pass[3], fail[3];   /* [0]: threads 1, [1]: threads 2, [2]: other */
    int fail_not_same_bits; /* FAILs whose detail lacks the thread-count dependence line */
    char first_fail[4096];
} by_threads;

static void by_threads_visit(const gnn_oracle_case *c, const gnn_oracle_result *r, void *user)
{
    by_threads *t = user;
    const int k = c->threads == 1 ? 0 : c->threads == 2 ? 1 : 2;
    t->pass[k] += r->outcome == GNN_ORACLE_PASS;
    if (r->outcome != GNN_ORACLE_FAIL)
        return;
    t->fail[k]++;
    t->fail_not_same_bits += strstr(r->detail, "thread-count dependence") == NULL;
    if (!t->first_fail[0])
        snprintf(t->first_fail, sizeof t->first_fail, "%s\n%s", r->case_str, r->detail);
}

/* ---- same bits at every thread count ---------------------------------------------------------- */

/* The last positive element of y one ulp up (0 stays 0: dropout's zeros are checked exactly). */
static void nudge_last_positive(float *y, int64_t count)
{
    for (int64_t i = count - 1; i >= 0; i--)
        if (y[i] > 0.0f) {
            y[i] = nextafterf(y[i], INFINITY);
            return;
        }
}

/* cpu's forward, one element one ulp up when more than one thread runs it. */
static gnn_status fwd_thread_nudge(const float *x, int64_t n, int64_t c, const float *w, const float *b, int64_t k,
                                   const gnn_dropout_key *key, float *y)
{
    gnn_status s = gnn_update_cpu.forward(x, n, c, w, b, k, key, y);
    if (s == GNN_OK && max_threads() > 1)
        nudge_last_positive(y, n * k);
    return s;
}

START_TEST(same_bits_across_thread_counts)
{
    if (!gnn_oracle_have_openmp()) {
        fprintf(stderr, "%s: SKIP (no OpenMP in this build: one thread count)\n", __func__);
        return;
    }
    static gnn_update_ops ops;
    ops = gnn_update_cpu;
    ops.forward = fwd_thread_nudge;
    static planted p;
    plant(&p, "update.fwd", "cpu", "thread-nudge", &ops, GNN_ORACLE_THREADED);
    ck_assert_int_eq(gnn_oracle_tol_of(&p.e, &p.impl)->cmp, GNN_CMP_NMSE);
    const int n_presets = gnn_oracle_n_presets(&p.e);

    /* the tolerance alone lets the nudge through: one case passes at 1 and at 2 threads, with
     * different digests */
    gnn_oracle_case c1, c2;
    gnn_oracle_result r1, r2;
    ck_assert_int_eq(gnn_oracle_case_init(&c1, &p.e, &p.impl, 1, p.e.presets[0], 1, NULL), GNN_OK);
    c2 = c1;
    c2.threads = 2;
    ck_assert_msg(gnn_oracle_run(&c1, &r1) == GNN_ORACLE_PASS, "%s", r1.detail);
    ck_assert_msg(gnn_oracle_run(&c2, &r2) == GNN_ORACLE_PASS, "%s", r2.detail);
    ck_assert_uint_ne(r1.digest, r2.digest);

    /* threads 1 then 2: the cases at 2 fail the cross-count check, and only that check */
    static const int t12[] = { 1, 2 }, t21[] = { 2, 1 };
    int counts[GNN_ORACLE_OUTCOME_COUNT] = { 0 };
    static by_threads t;
    memset(&t, 0, sizeof t);
    int fails = gnn_oracle_run_entry_threads(&p.e, NULL, 1, 1, t12, 2, by_threads_visit, &t, counts);
    ck_assert_msg(fails > 0, "a thread-count dependent result passed at threads 1 and 2");
    ck_assert_int_eq(t.fail[1], fails);
    ck_assert_int_eq(t.pass[0], n_presets);
    ck_assert_msg(t.fail_not_same_bits == 0, "%s", t.first_fail);
    ck_assert_msg(strstr(t.first_fail, "at threads=2 but") && strstr(t.first_fail, "at threads=1;") &&
                      strstr(t.first_fail, "not registered GNN_ORACLE_THREAD_DEPENDENT"),
                  "%s", t.first_fail);

    /* the first count in the list is the reference, whichever it is */
    memset(&t, 0, sizeof t);
    ck_assert_int_eq(gnn_oracle_run_entry_threads(&p.e, NULL, 1, 1, t21, 2, by_threads_visit, &t, counts), fails);
    ck_assert_int_eq(t.fail[0], fails);
    ck_assert_int_eq(t.pass[1], n_presets);

    /* registered GNN_ORACLE_THREAD_DEPENDENT: the same implementation passes both counts */
    p.impl.flags |= GNN_ORACLE_THREAD_DEPENDENT;
    memset(&t, 0, sizeof t);
    memset(counts, 0, sizeof counts);
    fails = gnn_oracle_run_entry_threads(&p.e, NULL, 1, 1, t12, 2, by_threads_visit, &t, counts);
    ck_assert_msg(fails == 0, "%s", t.first_fail);
    ck_assert_int_eq(counts[GNN_ORACLE_PASS], 2 * n_presets);
}
END_TEST

/* ---- per-implementation tolerances ------------------------------------------------------------- */

START_TEST(per_impl_tolerance_lookup)
{
    const gnn_oracle_entry *e = gnn_oracle_find("update.fwd");
    ck_assert_ptr_nonnull(e);
    const gnn_oracle_impl *cpu = gnn_oracle_find_impl(e, "cpu"), *blk = gnn_oracle_find_impl(e, "cpu-blocked");
    ck_assert_ptr_nonnull(cpu);
    ck_assert_ptr_nonnull(blk);
    ck_assert_ptr_nonnull(e->impl_tols);
    const gnn_oracle_impl_tol *line = NULL;
    for (const gnn_oracle_impl_tol *t = e->impl_tols; t->impl; t++)
        if (t->impl == cpu)
            line = t;
    ck_assert_msg(line != NULL, "update.fwd has no impl_tols line for cpu");
    ck_assert_int_eq(e->tol.cmp, GNN_CMP_BITWISE);
    /* cpu: its own line */
    const gnn_oracle_tol *tc = gnn_oracle_tol_of(e, cpu);
    ck_assert_ptr_eq(tc, &line->tol);
    ck_assert_int_eq(tc->cmp, GNN_CMP_NMSE);
    ck_assert(tc->a > 0 && tc->a < 1e-10);
    ck_assert_ptr_eq(gnn_oracle_reason_of(e, cpu), line->reason);
    ck_assert_str_ne(gnn_oracle_reason_of(e, cpu), e->reason);
    /* the others (and NULL): the entry's */
    ck_assert_ptr_eq(gnn_oracle_tol_of(e, blk), &e->tol);
    ck_assert_ptr_eq(gnn_oracle_tol_of(e, e->ref), &e->tol);
    ck_assert_ptr_eq(gnn_oracle_tol_of(e, NULL), &e->tol);
    ck_assert_ptr_eq(gnn_oracle_reason_of(e, blk), e->reason);
    ck_assert_ptr_eq(gnn_oracle_reason_of(e, NULL), e->reason);
    /* an entry without impl_tols */
    const gnn_oracle_entry *ia = gnn_oracle_find("index_add");
    ck_assert_ptr_nonnull(ia);
    ck_assert_ptr_eq(gnn_oracle_tol_of(ia, gnn_oracle_find_impl(ia, "cpu")), &ia->tol);
    ck_assert_ptr_eq(gnn_oracle_reason_of(ia, gnn_oracle_find_impl(ia, "cpu")), ia->reason);
}
END_TEST

/* ref's forward with every positive output one ulp up: ~1e-7 relative, nmse ~1e-14 */
static gnn_status fwd_all_up(const float *x, int64_t n, int64_t c, const float *w, const float *b, int64_t k,
                             const gnn_dropout_key *key, float *y)
{
    gnn_status s = gnn_update_ref.forward(x, n, c, w, b, k, key, y);
    for (int64_t i = 0; s == GNN_OK && i < n * k; i++)
        if (y[i] > 0.0f)
            y[i] = nextafterf(y[i], INFINITY);
    return s;
}

START_TEST(per_impl_tolerance_decides)
{
    static gnn_update_ops ops;
    ops = gnn_update_ref;
    ops.forward = fwd_all_up;
    /* without a line of its own: the entry's bitwise */
    const gnn_oracle_impl bare = { "all-up", &ops, 0 };
    tally t;
    run_with_impl("update.fwd", &bare, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] > 0, "one ulp on every positive element passed bitwise");
    ck_assert_msg(strstr(t.first_fail, "(bitwise)"), "%s", t.first_fail);
    /* with cpu's nmse line: every preset passes */
    static planted p;
    plant(&p, "update.fwd", "cpu", "all-up", &ops, 0);
    int counts[GNN_ORACLE_OUTCOME_COUNT] = { 0 };
    memset(&t, 0, sizeof t);
    const int fails = gnn_oracle_run_entry(&p.e, NULL, 1, 1, tally_visit, &t, counts);
    ck_assert_msg(fails == 0, "under cpu's nmse line: %s", t.first_fail);
    ck_assert_int_eq(counts[GNN_ORACLE_PASS], gnn_oracle_n_presets(&p.e));
    /* listed with the line of an implementation that has none (cpu-blocked): bitwise again */
    plant(&p, "update.fwd", "cpu-blocked", "all-up", &ops, 0);
    memset(&t, 0, sizeof t);
    memset(counts, 0, sizeof counts);
    ck_assert_int_gt(gnn_oracle_run_entry(&p.e, NULL, 1, 1, tally_visit, &t, counts), 0);
}
END_TEST

/* ---- stress: a one-case entry whose implementation fills 0.5, 1, 1.5, ... ---------------------- */

typedef struct fill_ops {
    void (*fill)(float *out, int64_t n);
} fill_ops;

enum { FILL_N = 64 };
static int g_fill_calls;

static void fill_stable(float *out, int64_t n)
{
    g_fill_calls++;
    for (int64_t i = 0; i < n; i++)
        out[i] = 0.5f * (float)(i + 1);
}

/* The low bit of out[0] flipped on every second call: within one ulp, so each run passes. */
static void fill_flip(float *out, int64_t n)
{
    fill_stable(out, n);
    if (g_fill_calls % 2 == 0 && n > 0) {
        uint32_t u;
        memcpy(&u, &out[0], sizeof u);
        u ^= 1u;
        memcpy(&out[0], &u, sizeof u);
    }
}

/* verify: every element within tol.a ulp of its value; else compare with a reference array */
static gnn_oracle_outcome fill_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const fill_ops *ops = c->impl->ops;
    float *got = gnn_oracle_alloc_out(ctx, "impl.out", FILL_N * sizeof(float));
    float *want = gnn_oracle_alloc_out(ctx, "ref.out", FILL_N * sizeof(float));
    if (!got || !want)
        return gnn_oracle_fail(ctx, "out of memory");
    ops->fill(got, FILL_N);
    gnn_oracle_digest(ctx, got, FILL_N * sizeof(float));
    for (int64_t i = 0; i < FILL_N; i++)
        want[i] = 0.5f * (float)(i + 1);
    const gnn_oracle_tol *tol = gnn_oracle_ctx_tol(ctx);
    if (tol->cmp != GNN_CMP_VERIFY)
        return gnn_oracle_compare_f32(ctx, NULL, "out", want, got, FILL_N, 0);
    for (int64_t i = 0; i < FILL_N; i++)
        if ((double)llabs(gnn_oracle_ulp_f32(want[i], got[i])) > tol->a)
            return gnn_oracle_fail(ctx, "out[%lld] = %.9g, not within %g ulp of %.9g", (long long)i, got[i], tol->a,
                                   want[i]);
    return GNN_ORACLE_PASS;
}

static const fill_ops k_fill_stable_ops = { fill_stable }, k_fill_flip_ops = { fill_flip };
static const gnn_oracle_impl k_fill_stable = { "stable", &k_fill_stable_ops, 0 };
static const gnn_oracle_impl k_fill_flip = { "flip", &k_fill_flip_ops, 0 };
static const gnn_oracle_impl *const k_fill_impls[] = { &k_fill_stable, &k_fill_flip, NULL };
static const gnn_oracle_entry k_fill_verify = {
    .name = "selftest.fill.verify", .what = "stress self-test, exact", .tol = { GNN_CMP_VERIFY, 1, 0 },
    .reason = "test", .params = k_test_params, .n_params = 1, .presets = k_test_presets, .ref = &k_test_impl,
    .impls = k_fill_impls, .run = fill_run,
};
static const gnn_oracle_entry k_fill_nmse = {
    .name = "selftest.fill.nmse", .what = "stress self-test, tolerance", .tol = { GNN_CMP_NMSE, 1e-10, 0 },
    .reason = "test", .params = k_test_params, .n_params = 1, .presets = k_test_presets, .ref = &k_test_impl,
    .impls = k_test_impls, .run = fill_run,
};

static gnn_oracle_case fill_case(const gnn_oracle_entry *e, const gnn_oracle_impl *impl)
{
    gnn_oracle_case c;
    ck_assert_int_eq(gnn_oracle_case_init(&c, e, impl, 0, "n=1", 1, NULL), GNN_OK);
    return c;
}

START_TEST(stress_catches_scheduling_dependence)
{
    const gnn_oracle_stress s = { .runs = 3, .noise = 1, .seed = 1 };
    const gnn_oracle_case flip = fill_case(&k_fill_verify, &k_fill_flip);
    const gnn_oracle_case stable = fill_case(&k_fill_verify, &k_fill_stable);
    gnn_oracle_result r, r2;
    /* each run alone passes: the flip stays within the verifier's ulp */
    g_fill_calls = 0;
    ck_assert_msg(gnn_oracle_run(&flip, &r) == GNN_ORACLE_PASS, "%s", r.detail);
    ck_assert_msg(gnn_oracle_run(&flip, &r2) == GNN_ORACLE_PASS, "%s", r2.detail);
    ck_assert_uint_ne(r.digest, r2.digest);
    /* under stress the second run's digest differs from the first's: FAIL naming run 2 */
    g_fill_calls = 0;
    ck_assert_int_eq(gnn_oracle_run_stress(&flip, &s, &r), GNN_ORACLE_FAIL);
    ck_assert_int_eq(r.outcome, GNN_ORACLE_FAIL);
    ck_assert_msg(starts_with(r.detail, "stress run 2 of 3 output digest "), "%s", r.detail);
    ck_assert_msg(strstr(r.detail, "where run 1 gave") && strstr(r.detail, "depends on scheduling"), "%s", r.detail);
    ck_assert_int_eq(g_fill_calls, 2); /* it stopped at the failing run */
    /* the stable implementation passes all three runs, with run 1's digest */
    g_fill_calls = 0;
    ck_assert_msg(gnn_oracle_run_stress(&stable, &s, &r) == GNN_ORACLE_PASS, "%s", r.detail);
    ck_assert_int_eq(g_fill_calls, 3);
    gnn_oracle_run(&stable, &r2);
    ck_assert_uint_eq(r.digest, r2.digest);
    /* under a tolerance each run is judged against ref alone: the flip passes every run */
    const gnn_oracle_case flip_tol = fill_case(&k_fill_nmse, &k_fill_flip);
    g_fill_calls = 0;
    ck_assert_msg(gnn_oracle_run_stress(&flip_tol, &s, &r) == GNN_ORACLE_PASS, "%s", r.detail);
    ck_assert_int_eq(g_fill_calls, 3);
    /* s == NULL: one run, as gnn_oracle_run */
    g_fill_calls = 0;
    ck_assert_msg(gnn_oracle_run_stress(&flip, NULL, &r) == GNN_ORACLE_PASS, "%s", r.detail);
    ck_assert_int_eq(g_fill_calls, 1);
    g_fill_calls = 0;
    gnn_oracle_run(&flip, &r2);
    ck_assert_int_eq(r.outcome, r2.outcome);
    ck_assert_uint_eq(r.digest, r2.digest);
    ck_assert_str_eq(r.case_str, r2.case_str);
    ck_assert_str_eq(r.detail, r2.detail);
}
END_TEST

/* ---- stress over a real entry ------------------------------------------------------------------ */

static int g_agg_calls;

/* aggregation's cpu forward, with the low bit of out[0] flipped on every second call */
static gnn_status agg_fwd_flip(const gnn_block *blk, const float *x, int64_t d, gnn_agg_kind kind, float *out)
{
    gnn_status s = gnn_aggregate_cpu.forward(blk, x, d, kind, out);
    if (s == GNN_OK && ++g_agg_calls % 2 == 0 && blk->n_dst * d > 0) {
        uint32_t u;
        memcpy(&u, &out[0], sizeof u);
        u ^= 1u;
        memcpy(&out[0], &u, sizeof u);
    }
    return s;
}

START_TEST(stress_real_entry)
{
    const gnn_oracle_entry *e = gnn_oracle_find("aggregate.sum.fwd");
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(e->tol.cmp, GNN_CMP_BITWISE);
    const int threads = gnn_oracle_have_openmp() ? 2 : 0;
    const gnn_oracle_stress s = { .runs = 3, .noise = 1, .seed = 1 };
    int counts[GNN_ORACLE_OUTCOME_COUNT] = { 0 };
    tally t;
    memset(&t, 0, sizeof t);
    const int t2[] = { 2 };
    const int fails = gnn_oracle_run_entry_stress(e, "cpu", 1, 1, t2, 1, &s, tally_visit, &t, counts);
    ck_assert_msg(fails == 0, "aggregate.sum.fwd cpu under stress: %s", t.first_fail);
    ck_assert_int_eq(counts[GNN_ORACLE_PASS] + counts[GNN_ORACLE_SKIP], gnn_oracle_n_presets(e));

    static gnn_aggregate_ops ops;
    ops = gnn_aggregate_cpu;
    ops.forward = agg_fwd_flip;
    const gnn_oracle_impl m = { "flip", &ops, threads ? GNN_ORACLE_THREADED : 0 };
    gnn_oracle_case c;
    gnn_oracle_result r;
    ck_assert_int_eq(gnn_oracle_case_init(&c, e, &m, threads, e->presets[0], 1, NULL), GNN_OK);
    g_agg_calls = 0;
    ck_assert_msg(gnn_oracle_run(&c, &r) == GNN_ORACLE_PASS, "one run (the first call) passes: %s", r.detail);
    g_agg_calls = 0;
    ck_assert_int_eq(gnn_oracle_run_stress(&c, &s, &r), GNN_ORACLE_FAIL);
    ck_assert_msg(starts_with(r.detail, "stress run 2 of 3 failed (noise threads "), "%s", r.detail);
    ck_assert_msg(strstr(r.detail, "elements differ (bitwise)"), "%s", r.detail);
    ck_assert_int_eq(g_agg_calls, 2);
}
END_TEST

START_TEST(stress_cli)
{
    NEED_TOOL();
    static char out[1 << 16];
    const char *args = "oracle --stress 2 --stress-noise 1 --stress-seed 3 --op index_add --impl cpu --threads 2 "
                       "--cases 1";
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    ck_assert_msg(strstr(out, "oracle: stress: every case 2 times under perturbed scheduling, up to 1 noise threads, "
                              "stress seed 3\n"),
                  "%s", out);
    ck_assert_msg(strstr(out, " 0 failed, "), "%s", out);
    expect_usage_error("oracle --stress-noise 2 --op relu", "--stress-noise applies with --stress N only", out,
                       sizeof out);
    expect_usage_error("oracle --stress-seed 5 --op relu", "--stress-seed applies with --stress N only", out,
                       sizeof out);
}
END_TEST

/* ---- hec: a reset of a full large cache --------------------------------------------------------- */

/* cpu's ops, counting the resets of a full cache of >= 4096 lines that are followed by a store
 * leaving lines empty: only those check, line by line, what the reset cleared */
static int g_after_full_reset;
static int64_t g_full_then_partial;

static void reset_counting(gnn_hec *h)
{
    g_after_full_reset = h->cs >= 4096 && gnn_hec_occupied(h) == h->cs;
    gnn_hec_cpu.reset(h);
}

static void store_counting(gnn_hec *h, const int64_t *ids, const float *emb, int64_t m)
{
    gnn_hec_cpu.store(h, ids, emb, m);
    g_full_then_partial += g_after_full_reset && gnn_hec_occupied(h) < h->cs;
    g_after_full_reset = 0;
}

START_TEST(hec_reset_of_a_full_large_cache)
{
    static gnn_hec_ops ops;
    ops = gnn_hec_cpu;
    ops.reset = reset_counting;
    ops.store = store_counting;
    const int threads = gnn_oracle_have_openmp() ? 2 : 0;
    const gnn_oracle_impl m = { "cpu-counting", &ops, threads ? GNN_ORACLE_THREADED : 0 };
    static const char *const names[] = { "hec.ops", "hec.verify" };
    for (int k = 0; k < 2; k++) {
        const gnn_oracle_entry *e = gnn_oracle_find(names[k]);
        ck_assert_ptr_nonnull(e);
        g_full_then_partial = 0;
        for (int p = 0; e->presets[p]; p++) {
            gnn_oracle_case c;
            gnn_oracle_result r;
            ck_assert_int_eq(gnn_oracle_case_init(&c, e, &m, threads, e->presets[p], 1, NULL), GNN_OK);
            g_after_full_reset = 0;
            ck_assert_msg(gnn_oracle_run(&c, &r) == GNN_ORACLE_PASS, "%s\n%s", r.case_str, r.detail);
        }
        ck_assert_msg(g_full_then_partial > 0,
                      "%s: at seed 1 no preset resets a full cache of 4096 lines or more and then stores a batch "
                      "that leaves lines empty",
                      names[k]);
    }
}
END_TEST

Suite *suite_oracle_power(void)
{
    Suite *s = suite_create("oracle_power");
    TCase *tc = tcase_create("power");
    tcase_set_tags(tc, "cpu");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    tcase_add_test(tc, same_bits_across_thread_counts);
    tcase_add_test(tc, per_impl_tolerance_lookup);
    tcase_add_test(tc, per_impl_tolerance_decides);
    tcase_add_test(tc, stress_catches_scheduling_dependence);
    tcase_add_test(tc, stress_real_entry);
    tcase_add_test(tc, stress_cli);
    tcase_add_test(tc, hec_reset_of_a_full_large_cache);
    suite_add_tcase(s, tc);
    return s;
}
