/* tests/test_stress.c -- what `gnnref oracle --stress` perturbs (docs/oracle.md, "Stress mode";
 * opt/cpu/omp_stress.h), shown on planted kernels in a test-only oracle entry.
 *
 * planted.chunks: a per-chunk running sum written as an optimization would write it: each
 * thread carries its sum from one iteration to the next and restarts it where a chunk of the
 * loop's normal size (4096) begins. That is right under schedule(dynamic, 4096), where every
 * thread receives whole aligned chunks, and wrong under any other chunk: a result that depends
 * on which thread ran which iteration. Every run without stress passes; under stress, the
 * runs with the kernels' random chunk fail. The same loop with a chunk OpenMP cannot change
 * (before issue 34, stress set a random runtime schedule, which no `schedule(dynamic, N)`
 * loop reads) passes every stress run: the knob reached nothing.
 *
 * planted.book: a parallel counting sort whose scatter starts before the prefix is final (the
 * single that sums the counts has `nowait`, M69's bug): stress mode's pauses (the summing
 * thread late) make it fail, where plain runs pass nearly always. A pause shows it only while
 * another thread of the team is on a core, so on a loaded machine a sweep may catch nothing:
 * up to five sweeps. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <time.h>

#include "gnnref/oracle.h"
#include "opt/cpu/omp_stress.h"
#include "core/base/clock.h"
#ifdef GNN_HAVE_OPENMP
#include <omp.h>
#endif

#define PLANT_CHUNK 4096

static const gnn_oracle_param k_params[] = { { "n", GNN_PARAM_INT, 1, 1 << 22, "items" } };
/* long enough (milliseconds) that every thread of the team takes part: one thread alone, taking
 * the chunks in order, would carry its sum correctly */
static const char *const k_presets[] = { "n=1048576", "n=262144", NULL };

/* ---- planted.chunks ------------------------------------------------------------------------ */

static int g_chunk_fixed; /* 1: the loop's chunk is a constant (no stress mode can reach it) */

/* out[i] = x[chunk start] + ... + x[i], the chunks aligned to PLANT_CHUNK */
static void chunks_ref(const int64_t *x, int64_t n, int64_t *out)
{
    int64_t run = 0;
    for (int64_t i = 0; i < n; i++) {
        if (i % PLANT_CHUNK == 0)
            run = 0;
        run += x[i];
        out[i] = run;
    }
}

static void chunks_planted(const int64_t *x, int64_t n, int64_t *out)
{
    const int chunk = g_chunk_fixed ? PLANT_CHUNK : gnn_omp_chunk(PLANT_CHUNK);
    int started = 0;
#pragma omp parallel
    {
        int64_t run = 0; /* carried to this thread's next iteration: the planted bug */
        int first = 1;
#ifdef GNN_HAVE_OPENMP
        const int nt = omp_get_num_threads();
#else
        const int nt = 1;
#endif
#pragma omp for schedule(dynamic, chunk)
        for (int64_t i = 0; i < n; i++) {
            if (first) {
                /* the test's gate, not the bug: each thread holds its first chunk until every
                 * thread holds one (at most 0.2 s), so the chunks interleave even on a loaded
                 * machine, where one thread could otherwise take them all in order (right) */
                first = 0;
                __atomic_add_fetch(&started, 1, __ATOMIC_ACQ_REL);
                const double t0 = gnn_now_s();
                while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < nt && gnn_now_s() - t0 < 0.2)
                    sched_yield();
            }
            if (i % PLANT_CHUNK == 0)
                run = 0;
            run += x[i];
            out[i] = run;
        }
    }
}

/* ---- planted.book -------------------------------------------------------------------------- */

#define BOOK_CELLS 64

/* new id of item i: its cell's start + its rank among the cell's items (a counting sort) */
static void book_ref(const int64_t *x, int64_t n, int64_t *out)
{
    int64_t cnt[BOOK_CELLS + 1] = { 0 };
    for (int64_t i = 0; i < n; i++)
        cnt[x[i] % BOOK_CELLS + 1]++;
    for (int c = 0; c < BOOK_CELLS; c++)
        cnt[c + 1] += cnt[c];
    for (int64_t i = 0; i < n; i++)
        out[i] = cnt[x[i] % BOOK_CELLS]++;
}

static void book_planted(const int64_t *x, int64_t n, int64_t *out)
{
#ifdef GNN_HAVE_OPENMP
    const int T = omp_get_max_threads();
#else
    const int T = 1;
#endif
    int64_t cnt[64][BOOK_CELLS];
    memset(cnt, 0, sizeof cnt);
#pragma omp parallel num_threads(T < 64 ? T : 64)
    {
#ifdef GNN_HAVE_OPENMP
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
        const int t = 0, nt = 1;
#endif
        const int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
        GNN_OMP_STRESS_POINT();
        for (int64_t i = lo; i < hi; i++)
            cnt[t][x[i] % BOOK_CELLS]++;
#pragma omp barrier
#pragma omp single nowait /* the planted bug: the scatter below does not wait for the sums */
        {
            GNN_OMP_STRESS_POINT();
            int64_t run = 0;
            for (int c = 0; c < BOOK_CELLS; c++)
                for (int u = 0; u < nt; u++) {
                    const int64_t k = cnt[u][c];
                    cnt[u][c] = run;
                    run += k;
                }
        }
        for (int64_t i = lo; i < hi; i++)
            out[i] = cnt[t][x[i] % BOOK_CELLS]++;
    }
}

/* ---- the entry --------------------------------------------------------------------------- */

typedef void (*plant_fn)(const int64_t *x, int64_t n, int64_t *out);

static gnn_oracle_outcome plant_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, plant_fn ref, plant_fn impl)
{
    const int64_t n = gnn_oracle_int(c, 0);
    int64_t *x = gnn_oracle_alloc(ctx, (size_t)n * sizeof(int64_t));
    int64_t *a = gnn_oracle_alloc_out(ctx, "ref", (size_t)n * sizeof(int64_t));
    int64_t *b = gnn_oracle_alloc_out(ctx, "impl", (size_t)n * sizeof(int64_t));
    if (!x || !a || !b)
        return gnn_oracle_fail(ctx, "out of memory");
    for (int64_t i = 0; i < n; i++)
        x[i] = (int64_t)((uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull >> 40); /* any values: integers, exact */
    ref(x, n, a);
    impl(x, n, b);
    gnn_oracle_digest(ctx, b, (size_t)n * sizeof(int64_t));
    return gnn_oracle_compare_int(ctx, "out", a, b, n, 8);
}

static gnn_oracle_outcome chunks_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    return plant_run(ctx, c, chunks_ref, chunks_planted);
}

static gnn_oracle_outcome book_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    return plant_run(ctx, c, book_ref, book_planted);
}

static const gnn_oracle_impl k_ref = { .name = "ref", .ops = NULL, .flags = 0 };
static const gnn_oracle_impl k_cpu = { .name = "cpu", .ops = NULL, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_impls[] = { &k_cpu, NULL };

static const gnn_oracle_entry k_chunks = {
    .name = "planted.chunks", .what = "a running sum restarted at the normal chunk's starts (planted bug)",
    .tol = { GNN_CMP_BITWISE, 0, 0 }, .reason = "integers", .params = k_params, .n_params = 1,
    .presets = k_presets, .ref = &k_ref, .impls = k_impls, .run = chunks_run,
};
/* small books, as the partition book's oracle cases: threads that reach the barrier together */
static const char *const k_book_presets[] = { "n=255", "n=999", "n=3333", "n=20001", NULL };
static const gnn_oracle_entry k_book = {
    .name = "planted.book", .what = "a counting sort whose scatter does not wait for the prefix (planted bug)",
    .tol = { GNN_CMP_BITWISE, 0, 0 }, .reason = "integers", .params = k_params, .n_params = 1,
    .presets = k_book_presets, .ref = &k_ref, .impls = k_impls, .run = book_run,
};

/* a gnn_oracle_visit: the first failure's detail into user (2048 bytes) */
static void first_fail(const gnn_oracle_case *c, const gnn_oracle_result *r, void *user)
{
    (void)c;
    char *first = user;
    if (r->outcome == GNN_ORACLE_FAIL && !first[0])
        snprintf(first, 2048, "%s", r->detail);
}

/* Plain runs and stress runs of entry e's one case at `threads`: failures of each. */
static void runs_of(const gnn_oracle_entry *e, int threads, int plain, int stressed, int *plain_fail,
                    int *stress_fail, char *first, size_t cap)
{
    gnn_oracle_case c;
    gnn_err err;
    ck_assert_int_eq(gnn_oracle_case_init(&c, e, &k_cpu, threads, e->presets[0], 1, &err), GNN_OK);
    *plain_fail = *stress_fail = 0;
    first[0] = '\0';
    gnn_oracle_result r;
    for (int k = 0; k < plain; k++)
        *plain_fail += gnn_oracle_run(&c, &r) == GNN_ORACLE_FAIL;
    gnn_oracle_stress s;
    gnn_oracle_stress_init(&s, 8);
    s.noise = 0; /* the kernels' own stress mode alone: no noise threads needed */
    for (int k = 0; k < stressed; k++) {
        s.seed = 1 + (uint64_t)k;
        if (gnn_oracle_run_stress(&c, &s, &r) == GNN_ORACLE_FAIL) {
            if (!(*stress_fail)++)
                snprintf(first, cap, "%s", r.detail);
        }
    }
}

START_TEST(stress_reaches_the_dynamic_chunks)
{
    if (!gnn_oracle_have_openmp()) {
        fprintf(stderr, "stress_reaches_the_dynamic_chunks: SKIP (no OpenMP in this build: no chunks to change)\n");
        return;
    }
    int plain, stressed;
    char first[2048];
    g_chunk_fixed = 0;
    runs_of(&k_chunks, 4, 3, 0, &plain, &stressed, first, sizeof first);
    ck_assert_msg(plain == 0, "%d of 3 plain runs failed: the planted loop is right under its own chunk", plain);
    /* as ci/oracle-stress.sh runs an entry: at 2, 4 and 8 threads, 8 runs each */
    gnn_oracle_stress s;
    gnn_oracle_stress_init(&s, 8);
    s.noise = 0; /* the kernels' stress mode alone */
    int counts[GNN_ORACLE_OUTCOME_COUNT] = { 0 };
    first[0] = '\0';
    gnn_oracle_run_entry_stress(&k_chunks, NULL, 1, 1, NULL, 0, &s, first_fail, first, counts);
    ck_assert_msg(counts[GNN_ORACLE_FAIL] > 0, "stress passed the planted loop: %d cases passed", counts[GNN_ORACLE_PASS]);
    ck_assert_msg(strstr(first, "kernels' dynamic chunk") != NULL, "%s", first);
    /* a chunk stress mode cannot reach: what a random runtime schedule did to every loop */
    g_chunk_fixed = 1;
    memset(counts, 0, sizeof counts);
    gnn_oracle_run_entry_stress(&k_chunks, NULL, 1, 1, NULL, 0, &s, NULL, NULL, counts);
    ck_assert_msg(counts[GNN_ORACLE_FAIL] == 0, "fixed chunk: %d cases failed", counts[GNN_ORACLE_FAIL]);
    g_chunk_fixed = 0;
}
END_TEST

START_TEST(stress_pauses_catch_a_scatter_before_its_prefix)
{
    if (!gnn_oracle_have_openmp()) {
        fprintf(stderr, "stress_pauses_catch_a_scatter_before_its_prefix: SKIP (no OpenMP in this build)\n");
        return;
    }
    /* as ci/oracle-stress.sh runs an entry: every preset at 2, 4 and 8 threads, 8 runs each.
     * A pause shows the bug only while another thread of the team is on a core: on a loaded
     * machine one such sweep in five caught nothing (measured on 2 cores at load 7), so up to
     * five sweeps, each with its own stress seed, and at least one must fail. */
    gnn_oracle_stress s;
    gnn_oracle_stress_init(&s, 8);
    int counts[GNN_ORACLE_OUTCOME_COUNT] = { 0 }, sweeps = 0;
    while (counts[GNN_ORACLE_FAIL] == 0 && sweeps < 5) {
        s.seed = 1 + (uint64_t)sweeps++;
        gnn_oracle_run_entry_stress(&k_book, NULL, 1, 1, NULL, 0, &s, NULL, NULL, counts);
    }
    ck_assert_msg(counts[GNN_ORACLE_FAIL] > 0, "5 stress sweeps passed the planted book: %d cases passed",
                  counts[GNN_ORACLE_PASS]);
}
END_TEST

/* Off, stress mode changes nothing: every chunk is the loop's own, and a point does not pause. */
START_TEST(stress_mode_off_is_the_normal_schedule)
{
    ck_assert_int_eq(gnn_omp_chunk(4096), 4096);
    gnn_omp_stress_set(1, 17, 5, 0);
    ck_assert_int_eq(gnn_omp_chunk(4096), 17);
    gnn_omp_stress_set(1, 0, 5, 1);
    ck_assert_int_eq(gnn_omp_chunk(4096), 4096);
    GNN_OMP_STRESS_POINT(); /* a pause of at most 1 ms */
    gnn_omp_stress_set(0, 0, 0, 0);
    ck_assert_int_eq(gnn_omp_chunk(1), 1);
    ck_assert_int_eq(gnn_omp_stress_on_, 0);
}
END_TEST

Suite *suite_stress(void)
{
    Suite *s = suite_create("stress");
    TCase *tc = tcase_create("stress");
    tcase_set_tags(tc, "stress");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, stress_mode_off_is_the_normal_schedule);
    tcase_add_test(tc, stress_reaches_the_dynamic_chunks);
    tcase_add_test(tc, stress_pauses_catch_a_scatter_before_its_prefix);
    suite_add_tcase(s, tc);
    return s;
}
