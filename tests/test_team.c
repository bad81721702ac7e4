/* tests/test_team.c -- the adaptive OpenMP team size (include/gnnref/team.h): its choices on
 * synthetic timings (tests/test_train.c: training with it gives the same step losses). */
#include <check.h>
#include <string.h>
#include "gnnref/team.h"

/* Run n units through t; a unit on a team of s threads takes cost[s] seconds per unit of
 * work (cost indexed by team size). Returns how many units ran on each team size. */
static void run_units(gnn_team *t, int n, const double *cost, int64_t *ran)
{
    for (int i = 0; i < n; i++) {
        const int s = gnn_team_begin(t);
        ck_assert_int_ge(s, 1);
        ran[s]++;
        gnn_team_end(t, cost[s] * 1000.0, 1000.0);
    }
}

START_TEST(team_fixed_without_adapt)
{
    gnn_team t;
    gnn_team_init_free(&t, 4, 0, 1); /* free cores are only a guess for adapting teams */
    const double cost[5] = { 0, 1.0, 0.1, 0.1, 2.0 };
    int64_t ran[5] = { 0 };
    run_units(&t, 100, cost, ran);
    ck_assert_int_eq(ran[4], 100);
    ck_assert(gnn_team_mean(&t) == 4.0);
    gnn_team_restore(&t);
}
END_TEST

/* The candidates: T, T-1, then T halved down to 1, without repeats. */
START_TEST(team_candidates)
{
    gnn_team t;
    gnn_team_init_free(&t, 16, 1, 16);
    static const int want[] = { 16, 15, 8, 4, 2, 1 };
    ck_assert_int_eq(t.n, 6);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(t.size[i], want[i]);
    gnn_team_init_free(&t, 2, 1, 2);
    ck_assert_int_eq(t.n, 2);
    ck_assert_int_eq(t.size[0], 2);
    ck_assert_int_eq(t.size[1], 1);
    gnn_team_init_free(&t, 1, 1, 1);
    ck_assert_int_eq(t.n, 1);
    gnn_team_restore(&t);
}
END_TEST

/* A quiet machine: the full team is fastest. It stays there, and its probes thin out: after
 * the warm-up and one measured unit, the first probe (unit 4) confirms the choice and doubles
 * the interval to 8: probes at units 4, 13, 30, 63, 128 and 257. 400 units pay 6 probe units. */
START_TEST(team_quiet_machine_keeps_full_team)
{
    gnn_team t;
    gnn_team_init_free(&t, 2, 1, 2);
    const double cost[3] = { 0, 1.6, 1.0 };
    int64_t ran[3] = { 0 };
    run_units(&t, 400, cost, ran);
    ck_assert_int_eq(ran[1], 6);
    ck_assert_int_eq(ran[1] + ran[2], 400);
    gnn_team_restore(&t);
}
END_TEST

/* One core taken: 1 thread is faster than 2 (as measured under one busy loop, 2 threads take
 * about 1.15 times as long). After the warm-up and one measured unit, one probe moves it to 1;
 * then 2 is probed again, 4, 8, 16, ... units apart: 4 + 5 units of 200 on 2 threads. */
START_TEST(team_busy_core_moves_to_smaller_team)
{
    gnn_team t;
    gnn_team_init_free(&t, 2, 1, 2);
    const double cost[3] = { 0, 1.0, 1.15 };
    int64_t ran[3] = { 0 };
    run_units(&t, 200, cost, ran);
    ck_assert_int_eq(ran[2], GNN_TEAM_WARMUP + 1 + 5);
    ck_assert_int_eq(t.size[t.cur], 1);
    ck_assert(gnn_team_mean(&t) < 1.05);
    gnn_team_restore(&t);
}
END_TEST

/* The first guess: a machine with no free core starts on 1 thread, and a probe of 2 finds
 * that 2 are faster when they are (then 1 is probed again 4, 8 and 16 units later). */
START_TEST(team_first_guess_and_recovery)
{
    gnn_team t;
    gnn_team_init_free(&t, 2, 1, 0);
    ck_assert_int_eq(t.size[t.cur], 1);
    const double cost[3] = { 0, 1.6, 1.0 };
    int64_t ran[3] = { 0 };
    run_units(&t, 40, cost, ran);
    ck_assert_int_eq(t.size[t.cur], 2);
    ck_assert_int_eq(ran[1], GNN_TEAM_WARMUP + 1 + 3);
    gnn_team_restore(&t);
}
END_TEST

/* An informed first guess (gnn_team_init saw a busy core: t.informed, as it sets it) is kept
 * for GNN_TEAM_PROBE_INFORMED units before the first probe; a short loop of 20 units, the
 * busy benchmark's sampler, then pays one probe unit at most. */
START_TEST(team_informed_guess_probes_late)
{
    gnn_team t;
    gnn_team_init_free(&t, 2, 1, 1);
    t.informed = 1;
    t.probe_every = GNN_TEAM_PROBE_INFORMED;
    ck_assert_int_eq(t.size[t.cur], 1);
    const double cost[3] = { 0, 1.0, 1.15 };
    int64_t ran[3] = { 0 };
    run_units(&t, GNN_TEAM_PROBE_INFORMED, cost, ran); /* the warm-up counts */
    ck_assert_int_eq(ran[2], 0);
    run_units(&t, 1, cost, ran);
    ck_assert_int_eq(ran[2], 1);
    ck_assert_int_eq(t.size[t.cur], 1);
    /* told the loop's length: no probe with fewer units left than the interval */
    gnn_team_init_free(&t, 2, 1, 1);
    t.informed = 1;
    t.probe_every = GNN_TEAM_PROBE_INFORMED;
    gnn_team_expect(&t, 20);
    memset(ran, 0, sizeof ran);
    run_units(&t, 20, cost, ran);
    ck_assert_int_eq(ran[2], 0);
    /* the gnn_team_init path itself: a valid state whatever this machine runs now */
    gnn_team_init(&t, 2, 1);
    ck_assert(t.cur >= 0 && t.cur < t.n && t.n == 2);
    gnn_team_restore(&t);
}
END_TEST

/* Load arrives mid-run: the full team's average rises above what 1 thread was measured at,
 * and it switches without waiting for the next probe; when the load goes, a probe finds 2
 * again within the longest probe interval. */
START_TEST(team_follows_a_changing_load)
{
    gnn_team t;
    gnn_team_init_free(&t, 2, 1, 2);
    const double quiet[3] = { 0, 1.6, 1.0 }, busy[3] = { 0, 1.6, 2.4 };
    int64_t ran[3] = { 0 };
    run_units(&t, 600, quiet, ran); /* probes are now GNN_TEAM_PROBE_MAX apart */
    ck_assert_int_eq(t.size[t.cur], 2);
    memset(ran, 0, sizeof ran);
    run_units(&t, 20, busy, ran);
    ck_assert_int_eq(t.size[t.cur], 1);
    ck_assert_int_le(ran[2], 6);
    memset(ran, 0, sizeof ran);
    run_units(&t, GNN_TEAM_PROBE_MAX + 2, quiet, ran);
    ck_assert_int_eq(t.size[t.cur], 2);
    gnn_team_restore(&t);
}
END_TEST

Suite *suite_team(void)
{
    Suite *s = suite_create("team");
    TCase *tc = tcase_create("core");
    tcase_set_tags(tc, "core");
    tcase_add_test(tc, team_fixed_without_adapt);
    tcase_add_test(tc, team_candidates);
    tcase_add_test(tc, team_quiet_machine_keeps_full_team);
    tcase_add_test(tc, team_busy_core_moves_to_smaller_team);
    tcase_add_test(tc, team_first_guess_and_recovery);
    tcase_add_test(tc, team_informed_guess_probes_late);
    tcase_add_test(tc, team_follows_a_changing_load);
    suite_add_tcase(s, tc);
    return s;
}
