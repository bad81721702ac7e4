/* tests/test_mpi.c -- the MPI backend's own paths, in this process as an MPI singleton (one
 * rank, no mpirun): in-place buffers, the int-count limit, the asynchronous alltoallv's
 * ordering errors, the once-per-process initialization, and the build without MPI; and, in
 * every build, the one deadline of the asynchronous wait (opt/mpi/wait_bound.h) against a
 * fake clock. The
 * multi-rank comparison with the simulator (every collective, np 1..4, and training) runs
 * under mpirun in ci/mpi-check.sh, also part of make check.
 *
 * MPI can be initialized once per process and OpenMPI keeps allocations past MPI_Finalize,
 * so the singleton cases run only when Check forks a process per case (the default); under
 * CK_FORK=no (ci/sanitize.sh's leak-checked run) they say so and pass. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnnref/comm.h"
#include "opt/mpi/wait_bound.h"

/* 1 when this case may initialize MPI here (built with MPI, a forked process per case) */
static int singleton_ok(void)
{
    if (!gnn_comm_mpi_built()) {
        printf("test_mpi: MPI backend not built: singleton cases skipped\n");
        return 0;
    }
    const char *f = getenv("CK_FORK");
    if (f && !strcmp(f, "no")) {
        printf("test_mpi: CK_FORK=no: MPI singleton cases skipped (MPI initializes once per process)\n");
        return 0;
    }
    return 1;
}

START_TEST(mpi_not_built_or_abort_noop)
{
    gnn_err err = { "" };
    gnn_comm *c = (gnn_comm *)&err; /* overwritten */
    if (!gnn_comm_mpi_built()) {
        ck_assert_int_eq(gnn_comm_mpi(&c, &err), GNN_ERR_UNSUPPORTED);
        ck_assert_ptr_null(c);
        ck_assert_msg(strstr(err.msg, "not built") != NULL, "message: %s", err.msg);
    }
    /* gnn_comm_mpi_abort ignores a handle of another backend, and NULL */
    ck_assert_int_eq(gnn_comm_self(&c), GNN_OK);
    gnn_comm_mpi_abort(c, 1);
    gnn_comm_mpi_abort(NULL, 1);
    ck_assert_int_eq(gnn_comm_barrier(c), GNN_OK);
    gnn_comm_free(c);
}
END_TEST

START_TEST(mpi_singleton)
{
    if (!singleton_ok())
        return;
    gnn_err err = { "" };
    gnn_comm *c = NULL;
    ck_assert_msg(gnn_comm_mpi(&c, &err) == GNN_OK, "gnn_comm_mpi: %s", err.msg);
    ck_assert_str_eq(c->ops->name, "mpi");
    ck_assert_ptr_null(c->ops->allreduce); /* the generic deterministic allreduce */
    ck_assert_int_eq(gnn_comm_rank(c), 0);
    ck_assert_int_eq(gnn_comm_size(c), 1);
    ck_assert_int_eq(gnn_comm_barrier(c), GNN_OK);
    ck_assert_int_eq(gnn_comm_bcast(c, NULL, 0, GNN_DT_F32, 0), GNN_OK);

    /* alltoallv whose send range overlaps the receive range (MPI forbids aliasing; the
     * backend copies the send part first, so it behaves like the others' memmove) */
    double b[8];
    for (int i = 0; i < 8; i++)
        b[i] = i + 0.5;
    const int64_t sc[1] = { 5 }, sd[1] = { 3 }, rc[1] = { 5 }, rd[1] = { 1 };
    ck_assert_int_eq(gnn_comm_alltoallv(c, b, sc, sd, b, rc, rd, GNN_DT_F64), GNN_OK);
    const double want[8] = { 0.5, 3.5, 4.5, 5.5, 6.5, 7.5, 6.5, 7.5 };
    for (int i = 0; i < 8; i++)
        ck_assert_msg(b[i] == want[i], "alltoallv in place: b[%d] = %g, want %g", i, b[i], want[i]);
    /* allgatherv with the send part inside the receive buffer */
    int32_t g[4] = { 1, 2, 3, 4 };
    const int64_t gc[1] = { 3 }, gd[1] = { 0 };
    ck_assert_int_eq(gnn_comm_allgatherv(c, g + 1, 3, g, gc, gd, GNN_DT_I32), GNN_OK);
    ck_assert_int_eq(g[0], 2);
    ck_assert_int_eq(g[1], 3);
    ck_assert_int_eq(g[2], 4);
    ck_assert_int_eq(g[3], 4);
    /* allreduce in place equals the expected rank-order sum */
    float x[3] = { 1.25f, -2.0f, 3.0f }, e[3];
    const void *xs[1] = { x };
    gnn_comm_allreduce_expected(xs, 1, e, 3, GNN_DT_F32);
    ck_assert_int_eq(gnn_comm_allreduce(c, x, x, 3, GNN_DT_F32), GNN_OK);
    ck_assert(!memcmp(x, e, sizeof x));

    /* counts are int in MPI: a count over INT_MAX is a clear error before any transfer */
    const int64_t big[1] = { (int64_t)INT_MAX + 1 }, zero[1] = { 0 };
    ck_assert_int_eq(gnn_comm_alltoallv(c, b, big, zero, b, big, zero, GNN_DT_U8), GNN_ERR_RANGE);
    ck_assert_msg(strstr(gnn_comm_errmsg(c), "scounts[0] = 2147483648") && strstr(gnn_comm_errmsg(c), "int"),
                  "message: %s", gnn_comm_errmsg(c));
    ck_assert_int_eq(gnn_comm_allgatherv(c, b, (int64_t)INT_MAX + 1, b, big, zero, GNN_DT_U8), GNN_ERR_RANGE);
    ck_assert_int_eq(gnn_comm_ialltoallv(c, b, big, zero, GNN_DT_U8, 0, &(gnn_comm_req *){ NULL }), GNN_ERR_RANGE);

    /* asynchronous alltoallv: two posts outstanding on tag 3, one on tag 4 */
    int32_t s0[2] = { 10, 11 }, s1[1] = { 20 }, s2[3] = { 30, 31, 32 };
    const int64_t c0[1] = { 2 }, c1[1] = { 1 }, c2[1] = { 3 }, d0[1] = { 0 };
    gnn_comm_req *r0, *r1, *r2;
    ck_assert_int_eq(gnn_comm_ialltoallv(c, s0, c0, d0, GNN_DT_I32, 3, &r0), GNN_OK);
    ck_assert_int_eq(gnn_comm_ialltoallv(c, s1, c1, d0, GNN_DT_I32, 3, &r1), GNN_OK);
    ck_assert_int_eq(gnn_comm_ialltoallv(c, s2, c2, d0, GNN_DT_I32, 4, &r2), GNN_OK);
    const gnn_comm_seg *segs;
    int n;
    ck_assert_int_eq(gnn_comm_wait(c, r1, &segs, &n), GNN_ERR_COMM); /* step 1 before step 0 */
    ck_assert_msg(strstr(gnn_comm_errmsg(c), "post order"), "message: %s", gnn_comm_errmsg(c));
    ck_assert_int_eq(gnn_comm_wait(c, r2, &segs, &n), GNN_OK); /* another tag: independent */
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(segs[0].src, 0);
    ck_assert_int_eq(segs[0].step, 0);
    ck_assert_int_eq(segs[0].count, 3);
    ck_assert_int_eq(((const int32_t *)segs[0].data)[2], 32);
    ck_assert_int_eq(gnn_comm_wait(c, r0, &segs, &n), GNN_OK);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(segs[0].step, 0);
    ck_assert_int_eq(segs[0].count, 2);
    ck_assert_int_eq(((const int32_t *)segs[0].data)[1], 11);
    ck_assert_int_eq(gnn_comm_wait(c, r0, &segs, &n), GNN_ERR_COMM); /* twice */
    ck_assert_int_eq(gnn_comm_wait(c, r1, &segs, &n), GNN_OK);
    ck_assert_int_eq(segs[0].step, 1);
    ck_assert_int_eq(((const int32_t *)segs[0].data)[0], 20);
    gnn_comm_req_free(c, r0);
    gnn_comm_req_free(c, r1);
    gnn_comm_req_free(c, r2);
    /* a request freed before its wait: later waits on its tag are out of order */
    ck_assert_int_eq(gnn_comm_ialltoallv(c, s0, c0, d0, GNN_DT_I32, 5, &r0), GNN_OK);
    ck_assert_int_eq(gnn_comm_ialltoallv(c, s1, c1, d0, GNN_DT_I32, 5, &r1), GNN_OK);
    gnn_comm_req_free(c, r0);
    ck_assert_int_eq(gnn_comm_wait(c, r1, &segs, &n), GNN_ERR_COMM);
    gnn_comm_req_free(c, r1);

    /* the traffic matrix gathers over MPI too; one rank sends nothing */
    int64_t *tb, *tm;
    ck_assert_int_eq(gnn_comm_traffic_matrix(c, -1, &tb, &tm), GNN_OK);
    for (int i = 0; i < GNN_COMM_OP_COUNT; i++)
        ck_assert_int_eq(tb[i], 0);
    free(tb);
    free(tm);

    /* freeing the last handle finalizes MPI; MPI cannot start again in this process */
    gnn_comm_free(c);
    c = (gnn_comm *)&err;
    ck_assert_int_eq(gnn_comm_mpi(&c, &err), GNN_ERR_UNSUPPORTED);
    ck_assert_ptr_null(c);
    ck_assert_msg(strstr(err.msg, "finalized"), "message: %s", err.msg);
}
END_TEST

START_TEST(mpi_two_handles)
{
    if (!singleton_ok())
        return;
    /* two handles at once: separate communicators; MPI ends with the last one */
    gnn_err err = { "" };
    gnn_comm *a = NULL, *b = NULL;
    ck_assert_msg(gnn_comm_mpi(&a, &err) == GNN_OK, "gnn_comm_mpi: %s", err.msg);
    ck_assert_msg(gnn_comm_mpi(&b, &err) == GNN_OK, "gnn_comm_mpi (second): %s", err.msg);
    double v = 2.5;
    ck_assert_int_eq(gnn_comm_allreduce(a, &v, &v, 1, GNN_DT_F64), GNN_OK);
    gnn_comm_free(a);
    ck_assert_int_eq(gnn_comm_allreduce(b, &v, &v, 1, GNN_DT_F64), GNN_OK); /* still alive */
    ck_assert(v == 2.5);
    gnn_comm_free(b);
}
END_TEST

/* ---- the bound of a whole wait (opt/mpi/wait_bound.h), against a fake clock -------------------------
 * Time is a counter: each pause between two polls advances it by 1/128 s, exactly (binary
 * fractions: no rounding in any comparison). Target t is done once the clock reaches ready[t];
 * the last target is the wait's own sends. No MPI and no sleeping: the same result in every
 * build and on every machine. */
#define FAKE_STEP (1.0 / 128)

typedef struct fake_wait {
    double now;
    const double *ready; /* [n] when each target is done; a negative value: its poll fails */
    int polls;
} fake_wait;

static double fake_now(void *arg) { return ((fake_wait *)arg)->now; }
static void fake_pause(void *arg, int tries)
{
    (void)tries;
    ((fake_wait *)arg)->now += FAKE_STEP;
}
static int fake_poll(void *arg, int t)
{
    fake_wait *F = arg;
    F->polls++;
    return F->ready[t] < 0 ? -1 : F->now >= F->ready[t];
}

typedef struct wait_case {
    const char *what;
    double timeout;
    int n;                  /* targets: n - 1 sources, then the sends */
    double ready[4];
    gnn_wait_outcome want;
    int want_stuck;
    double want_waited;     /* exactly */
} wait_case;

#define NEVER 1e9
static const wait_case k_wait_cases[] = {
    /* sources arrive at 0.6, 1.2 and 1.9 times the bound: each within the bound of the one
     * before, so a deadline per source would wait 1.9 bounds and succeed; one deadline for the
     * call fails at the first poll after 1 s, naming the second source */
    { "staggered sources", 1.0, 4, { 0.625, 1.25, 1.875, 0 }, GNN_WAIT_DEADLINE, 1, 1.0 + FAKE_STEP },
    /* three sources never send: the wait ends one pause after the bound, at the first */
    { "three silent sources", 1.0, 4, { NEVER, NEVER, NEVER, 0 }, GNN_WAIT_DEADLINE, 0, 1.0 + FAKE_STEP },
    /* the sends are part of the call: sources in time, sends taken late */
    { "late sends", 1.0, 4, { 0.25, 0.5, 0.75, 1.5 }, GNN_WAIT_DEADLINE, 3, 1.0 + FAKE_STEP },
    /* everything before the bound: done when the last target is */
    { "all in time", 1.0, 4, { 0.25, 0.5, 0.75, 0.875 }, GNN_WAIT_DONE, -1, 0.875 },
    /* a target already done when its turn comes, after the bound has passed, is not a timeout */
    { "done at its turn", 1.0, 3, { 1.0 + FAKE_STEP, 0.5, 0.0 }, GNN_WAIT_DONE, -1, 1.0 + FAKE_STEP },
    /* 0: no bound */
    { "no bound", 0.0, 4, { 5, 10, 20, 20 }, GNN_WAIT_DONE, -1, 20 },
    /* a failed poll ends the wait at once, naming its target */
    { "failed poll", 1.0, 4, { 0.25, -1, NEVER, 0 }, GNN_WAIT_FAILED, 1, 0.25 },
};

START_TEST(wait_bound_whole_call)
{
    const wait_case *w = &k_wait_cases[_i];
    fake_wait F = { 0.0, w->ready, 0 };
    const gnn_wait_clock clk = { fake_now, fake_pause, &F };
    int stuck = -2;
    double waited = -1;
    const gnn_wait_outcome out = gnn_wait_bounded(&clk, w->timeout, w->n, fake_poll, &F, &stuck, &waited);
    ck_assert_msg(out == w->want && stuck == w->want_stuck && waited == w->want_waited,
                  "%s: outcome %d, stuck at target %d, waited %.7g s after %d polls; expected outcome %d at target %d "
                  "after %.7g s (bound %g s: one deadline for the whole call)",
                  w->what, (int)out, stuck, waited, F.polls, (int)w->want, w->want_stuck, w->want_waited, w->timeout);
    /* polls: one per pause, plus one per target */
    ck_assert_int_le(F.polls, (int)(waited / FAKE_STEP) + w->n);
}
END_TEST

Suite *suite_mpi(void)
{
    Suite *s = suite_create("mpi");
    TCase *tc = tcase_create("mpi");
    tcase_set_tags(tc, "mpi");
    tcase_add_test(tc, mpi_not_built_or_abort_noop);
    tcase_add_test(tc, mpi_singleton);
    tcase_add_test(tc, mpi_two_handles);
    tcase_add_loop_test(tc, wait_bound_whole_call, 0, (int)(sizeof k_wait_cases / sizeof k_wait_cases[0]));
    suite_add_tcase(s, tc);
    return s;
}
