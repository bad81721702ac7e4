/* tests/test_sim_faults.c -- the multi-rank simulator's checks and fault injection (sim/,
 * docs/simulator.md); its collectives, time model and accounting are in tests/test_sim.c.
 *
 * The checks (mismatch, deadlock, modified send buffer, timeout, a failing rank, waits out of
 * order) each end the run with a message naming every rank's call; fault injection (delay,
 * drop, bit flips, on asynchronous and blocking messages) step by step. The golden fault
 * patterns of fixed seeds are pinned in tests/test_sim_golden.c.
 *
 * Rank functions run on the simulator's threads, where Check's assertions must not be used:
 * they return GNN_ERR_MISMATCH with a message (REQUIRE) and the test asserts on the run. */
#include <check.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_util.h"
#include "gnnref/comm.h"
#include "gnnref/sim.h"
#include "sim_util.h"


/* ---- mismatch, deadlock, modified send buffer, timeout, failing rank ------------------- */

typedef struct mismatch_case {
    int P;
    const char *want[3]; /* substrings of the run's message */
} mismatch_case;

static const mismatch_case k_mismatch[] = {
    { 2, { "collective mismatch (different operations)", "rank 0 called allreduce(f32, count=100) [call #0]",
           "rank 1 called barrier(u8, count=0) [call #0]" } },
    { 3, { "rank 0 sends 1 elements to rank 2, which expects 2", "rank 0 called alltoallv(i32, count=3) [call #0]",
           "rank 2 called alltoallv(i32, count=3) [call #0]" } },
    { 2, { "different roots", "rank 0 called bcast(i32, count=4, root=0)",
           "rank 1 called bcast(i32, count=4, root=1)" } },
    { 2, { "different element types", "rank 0 called allgatherv(f32, count=2)",
           "rank 1 called allgatherv(i32, count=2)" } },
    { 2, { "different counts", "rank 0 called allreduce(f64, count=10)", "rank 1 called allreduce(f64, count=12)" } },
    /* ranks 0 and 1 both disagree with rank 2: which pair is compared first depends on
     * the order of arrival, so only what both reports say is checked */
    { 3, { "collective mismatch (counts[1] is 2 on rank ", " but 3 on rank 2)",
           "rank 2 called allgatherv(f32, count=2) [call #1]" } },
    { 2, { "different operations", "rank 0 called barrier(u8, count=0) [call #0]",
           "rank 1 called allreduce(f32, count=8) [call #0]" } },
};

static gnn_status fn_mismatch(gnn_comm *c, void *arg)
{
    const int v = *(const int *)arg, me = gnn_comm_rank(c);
    float f[128] = { 0 }, g[128];
    int64_t cnt[MAXP], dsp[MAXP];
    switch (v) {
    case 0:
        return me == 0 ? gnn_comm_allreduce(c, f, g, 100, GNN_DT_F32) : gnn_comm_barrier(c);
    case 1: { /* rank 2 expects 2 elements from rank 0, which sends 1 */
        int32_t s[3] = { 0 }, r[4];
        int64_t sc[3] = { 1, 1, 1 }, sd[3] = { 0, 1, 2 }, rc[3] = { 1, 1, 1 }, rd[3] = { 0, 1, 2 };
        if (me == 2)
            rc[0] = 2, rd[1] = 2, rd[2] = 3;
        return gnn_comm_alltoallv(c, s, sc, sd, r, rc, rd, GNN_DT_I32);
    }
    case 2: {
        int32_t b[4] = { 0 };
        return gnn_comm_bcast(c, b, 4, GNN_DT_I32, me);
    }
    case 3:
        for (int q = 0; q < 2; q++)
            cnt[q] = 2, dsp[q] = 2 * q;
        return gnn_comm_allgatherv(c, f, 2, g, cnt, dsp, me == 0 ? GNN_DT_F32 : GNN_DT_I32);
    case 4:
        return gnn_comm_allreduce(c, f, g, me == 0 ? 10 : 12, GNN_DT_F64);
    case 5: /* rank 2 believes rank 1 sends 3 elements */
        CALL(gnn_comm_barrier(c));
        for (int q = 0; q < 3; q++)
            cnt[q] = 2, dsp[q] = 4 * q;
        if (me == 2)
            cnt[1] = 3;
        return gnn_comm_allgatherv(c, f, 2, g, cnt, dsp, GNN_DT_F32);
    case 6: /* the same two calls in a different order */
        if (me == 0) {
            CALL(gnn_comm_barrier(c));
            return gnn_comm_allreduce(c, f, g, 8, GNN_DT_F32);
        }
        CALL(gnn_comm_allreduce(c, f, g, 8, GNN_DT_F32));
        return gnn_comm_barrier(c);
    }
    return GNN_ERR_INTERNAL;
}

START_TEST(mismatch_reported)
{
    const mismatch_case *mc = &k_mismatch[_i];
    gnn_sim_config cfg = config(mc->P);
    gnn_sim_report rep;
    gnn_err err = { "" };
    int v = _i;
    gnn_status st = gnn_sim_run(&cfg, fn_mismatch, &v, &rep, &err);
    ck_assert_int_eq(st, GNN_ERR_COMM);
    for (int k = 0; k < 3; k++)
        ck_assert_msg(strstr(err.msg, mc->want[k]), "case %d: \"%s\" not in \"%s\"", _i, mc->want[k], err.msg);
    ck_assert_msg(rep.wall_s < 5, "mismatch found after %g s (bound 30 s)", rep.wall_s);
    for (int r = 0; r < mc->P; r++)
        ck_assert_int_eq(rep.rank_status[r], GNN_ERR_COMM);
    gnn_sim_report_free(&rep);
}
END_TEST

static gnn_status fn_deadlock(gnn_comm *c, void *arg)
{
    const int v = *(const int *)arg, me = gnn_comm_rank(c);
    int32_t buf[4] = { 1, 2, 3, 4 };
    int64_t sc[MAXP] = { 1, 1, 1 }, sd[MAXP] = { 0, 1, 2 };
    gnn_comm_req *req = NULL;
    const gnn_comm_seg *seg;
    int n;
    gnn_status st;
    switch (v) {
    case 0: /* rank 0 in a barrier, rank 1 waiting for a post nobody else makes */
        if (me == 0)
            return gnn_comm_barrier(c);
        CALL(gnn_comm_ialltoallv(c, buf, sc, sd, GNN_DT_I32, 3, &req));
        st = gnn_comm_wait(c, req, &seg, &n);
        gnn_comm_req_free(c, req);
        return st;
    case 1: /* rank 0 leaves while the others are in a barrier */
        return me == 0 ? GNN_OK : gnn_comm_barrier(c);
    case 2: /* each waits on a tag only it posts on */
        CALL(gnn_comm_barrier(c));
        CALL(gnn_comm_ialltoallv(c, buf, sc, sd, GNN_DT_I32, 10 + me, &req));
        st = gnn_comm_wait(c, req, &seg, &n);
        gnn_comm_req_free(c, req);
        return st;
    }
    return GNN_ERR_INTERNAL;
}

START_TEST(deadlock_reported)
{
    static const struct {
        int P;
        const char *want[3];
    } k[] = {
        { 2, { "rank 0: deadlock: ", "rank 0 blocked in barrier(u8, count=0) [call #0]",
               "rank 1 blocked in wait(ialltoallv tag 3 step 0) for rank 0" } },
        { 3, { "deadlock: rank 0 exited; ", "rank 1 blocked in barrier(u8, count=0) [call #0]",
               "rank 2 blocked in barrier(u8, count=0) [call #0]" } },
        { 2, { "deadlock: ", "rank 0 blocked in wait(ialltoallv tag 10 step 0) for rank 1",
               "rank 1 blocked in wait(ialltoallv tag 11 step 0) for rank 0" } },
    };
    gnn_sim_config cfg = config(k[_i].P);
    gnn_sim_report rep;
    gnn_err err = { "" };
    int v = _i;
    ck_assert_int_eq(gnn_sim_run(&cfg, fn_deadlock, &v, &rep, &err), GNN_ERR_COMM);
    for (int j = 0; j < 3; j++)
        ck_assert_msg(strstr(err.msg, k[_i].want[j]), "case %d: \"%s\" not in \"%s\"", _i, k[_i].want[j], err.msg);
    ck_assert_msg(rep.wall_s < 5, "deadlock found after %g s (bound 30 s)", rep.wall_s);
    gnn_sim_report_free(&rep);
}
END_TEST

/* Rank 1 completes its exchange first (the barrier orders it), then rank 0 changes its
 * send buffer and waits: only rank 0 fails, and rank 1 holds what rank 0 posted. */
static gnn_status fn_modify(gnn_comm *c, void *arg)
{
    const int me = gnn_comm_rank(c);
    int32_t buf[4] = { 1, 2, 3, 4 };
    int64_t sc[2] = { 2, 2 }, sd[2] = { 0, 2 };
    gnn_comm_req *req;
    const gnn_comm_seg *seg;
    int n;
    gnn_status st = GNN_OK;
    CALL(gnn_comm_ialltoallv(c, buf, sc, sd, GNN_DT_I32, 1, &req));
    if (me == 1) {
        st = gnn_comm_wait(c, req, &seg, &n);
        if (st == GNN_OK && ((const int32_t *)seg[0].data)[1] != 4)
            st = gnn_err_set(&c->err, GNN_ERR_MISMATCH, "rank 1 did not receive what rank 0 posted");
    }
    if (st == GNN_OK)
        st = gnn_comm_barrier(c);
    if (st == GNN_OK && me == 0) {
        buf[3] = 99; /* the segment for rank 1, which already has its copy */
        st = gnn_comm_wait(c, req, &seg, &n);
    }
    gnn_comm_req_free(c, req);
    return st;
}

START_TEST(modified_send_buffer)
{
    gnn_sim_config cfg = config(2);
    gnn_sim_report rep;
    gnn_err err = { "" };
    ck_assert_int_eq(gnn_sim_run(&cfg, fn_modify, NULL, &rep, &err), GNN_ERR_COMM);
    ck_assert_msg(strstr(err.msg, "rank 0 modified the send buffer of ialltoallv(tag 1, step 0) before its wait"), "%s",
                  err.msg);
    ck_assert_int_eq(rep.rank_status[0], GNN_ERR_COMM);
    ck_assert_int_eq(rep.rank_status[1], GNN_OK);
    gnn_sim_report_free(&rep);
}
END_TEST

typedef struct timeout_arg {
    atomic_int rank0_done;
} timeout_arg;

/* Rank 0 waits in a barrier while rank 1 computes (sleeps) until rank 0 has given up: no
 * deadlock (rank 1 runs), so only the bound can end it, deterministically. */
static gnn_status fn_timeout(gnn_comm *c, void *arg)
{
    timeout_arg *a = arg;
    if (gnn_comm_rank(c) == 0) {
        gnn_status st = gnn_comm_barrier(c);
        atomic_store(&a->rank0_done, 1);
        return st;
    }
    for (int i = 0; i < 10000 && !atomic_load(&a->rank0_done); i++) { /* at most 10 s */
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
    return gnn_comm_barrier(c); /* the run is over: this fails at once */
}

START_TEST(timeout_reported)
{
    gnn_sim_config cfg = config(2);
    cfg.timeout_s = 0.2;
    timeout_arg a;
    atomic_init(&a.rank0_done, 0);
    gnn_sim_report rep;
    gnn_err err = { "" };
    ck_assert_int_eq(gnn_sim_run(&cfg, fn_timeout, &a, &rep, &err), GNN_ERR_COMM);
    ck_assert_msg(strstr(err.msg, "rank 0: timeout: rank 0 waited 0.2 s"), "%s", err.msg);
    ck_assert_msg(strstr(err.msg, "rank 0 blocked in barrier(u8, count=0) [call #0]; rank 1 running"), "%s", err.msg);
    ck_assert(rep.wall_s >= 0.2 && rep.wall_s < 5);
    ck_assert_int_eq(rep.rank_status[1], GNN_ERR_COMM);
    gnn_sim_report_free(&rep);
}
END_TEST

static gnn_status fn_fail(gnn_comm *c, void *arg)
{
    if (gnn_comm_rank(c) == 1)
        return gnn_err_set(&c->err, GNN_ERR_RANGE, "boom");
    return gnn_comm_barrier(c);
}

START_TEST(failing_rank_aborts)
{
    gnn_sim_config cfg = config(3);
    gnn_sim_report rep;
    gnn_err err = { "" };
    ck_assert_int_eq(gnn_sim_run(&cfg, fn_fail, NULL, &rep, &err), GNN_ERR_RANGE);
    ck_assert_msg(strstr(err.msg, "rank 1 failed (value out of range): boom"), "%s", err.msg);
    ck_assert_msg(strncmp(err.msg, "rank 1 failed", 13) == 0, "%s", err.msg);
    ck_assert_int_eq(rep.rank_status[0], GNN_ERR_COMM);
    ck_assert_int_eq(rep.rank_status[1], GNN_ERR_RANGE);
    ck_assert_int_eq(rep.rank_status[2], GNN_ERR_COMM);
    gnn_sim_report_free(&rep);
}
END_TEST

static gnn_status fn_wait_order(gnn_comm *c, void *arg)
{
    int32_t a[2] = { 1, 2 }, b[2] = { 3, 4 };
    int64_t sc[2] = { 1, 1 }, sd[2] = { 0, 1 };
    gnn_comm_req *r0, *r1;
    const gnn_comm_seg *seg;
    int n;
    CALL(gnn_comm_ialltoallv(c, a, sc, sd, GNN_DT_I32, 0, &r0));
    CALL(gnn_comm_ialltoallv(c, b, sc, sd, GNN_DT_I32, 0, &r1));
    gnn_status st = gnn_comm_wait(c, r1, &seg, &n);
    REQUIRE(c, st == GNN_ERR_COMM && strstr(c->err.msg, "step 1 waited before step 0"), "out-of-order wait: %s",
            c->err.msg);
    CALL(gnn_comm_wait(c, r0, &seg, &n));
    /* every rank sends element [dst] of its buffer to dst */
    REQUIRE(c, n == 2 && seg[0].step == 0 && ((const int32_t *)seg[1].data)[0] == 1 + c->rank, "step 0 data");
    CALL(gnn_comm_wait(c, r1, &seg, &n));
    REQUIRE(c, n == 2 && seg[0].step == 1 && ((const int32_t *)seg[0].data)[0] == 3 + c->rank, "step 1 data");
    st = gnn_comm_wait(c, r1, &seg, &n);
    REQUIRE(c, st == GNN_ERR_COMM && strstr(c->err.msg, "already waited"), "second wait: %s", c->err.msg);
    gnn_comm_req_free(c, r0);
    gnn_comm_req_free(c, r1);
    return GNN_OK;
}

START_TEST(wait_order)
{
    gnn_sim_config cfg = config(2);
    gnn_err err = { "" };
    ck_assert_msg(gnn_sim_run(&cfg, fn_wait_order, NULL, NULL, &err) == GNN_OK, "%s", err.msg);
}
END_TEST

/* ---- fault injection ------------------------------------------------------------------- */

#define FAULT_STEPS 6

typedef struct fault_arg {
    int mode;                /* 0: check delay 2, 1: check drop, 2: check flip, 3: record */
    uint64_t hash[MAXP];     /* mode 3: what each rank received */
    int64_t delivered[MAXP]; /* mode 3: remote segments received */
} fault_arg;

static int32_t fault_v(int src, int dst, int step, int64_t i)
{
    return src * 1000000 + dst * 10000 + step * 10 + (int32_t)i;
}

/* FAULT_STEPS posts on tag 2, each waited at once; every segment has 2 elements */
static gnn_status fn_faults(gnn_comm *c, void *arg)
{
    fault_arg *a = arg;
    const int P = gnn_comm_size(c), me = gnn_comm_rank(c);
    uint64_t h = 1469598103934665603ull;
    for (int step = 0; step < FAULT_STEPS; step++) {
        int32_t send[2 * MAXP];
        int64_t sc[MAXP], sd[MAXP];
        for (int q = 0; q < P; q++) {
            sc[q] = 2;
            sd[q] = 2 * q;
            send[2 * q] = fault_v(me, q, step, 0);
            send[2 * q + 1] = fault_v(me, q, step, 1);
        }
        gnn_comm_req *req;
        const gnn_comm_seg *seg;
        int n;
        CALL(gnn_comm_ialltoallv(c, send, sc, sd, GNN_DT_I32, 2, &req));
        gnn_status st = gnn_comm_wait(c, req, &seg, &n);
        if (st) {
            gnn_comm_req_free(c, req);
            return st;
        }
        /* what every mode can check: sorted by (step, src), intact data, own segment present */
        int own = 0;
        for (int k = 0; k < n; k++) {
            const int sorted = k == 0 || seg[k - 1].step < seg[k].step ||
                               (seg[k - 1].step == seg[k].step && seg[k - 1].src < seg[k].src);
            REQUIRE(c, sorted, "step %d: segments not sorted by (step, src)", step);
            REQUIRE(c, seg[k].count == 2, "count");
            for (int i = 0; i < 2; i++)
                REQUIRE(c, ((const int32_t *)seg[k].data)[i] == fault_v(seg[k].src, me, (int)seg[k].step, i),
                        "step %d: corrupted data from rank %d delivered", step, seg[k].src);
            own += seg[k].src == me && seg[k].step == step;
            if (seg[k].src != me)
                a->delivered[me]++;
            h = (h ^ (uint64_t)(seg[k].src * 131 + seg[k].step)) * 1099511628211ull;
        }
        REQUIRE(c, own == 1, "step %d: own segment missing", step);
        if (a->mode == 0) { /* delay 2 steps: the remote segments of step - 2, never earlier */
            const int want = step >= 2 ? P : 1;
            REQUIRE(c, n == want, "delay: step %d: %d segments, want %d", step, n, want);
            for (int k = 0; k + 1 < n; k++)
                REQUIRE(c, seg[k].step == step - 2 && seg[k].src == (k < me ? k : k + 1), "delay: step %d: seg %d",
                        step, k);
        } else if (a->mode == 1 || a->mode == 2) { /* dropped, or flipped and discarded */
            REQUIRE(c, n == 1, "step %d: %d segments, want only the own one", step, n);
        }
        gnn_comm_req_free(c, req);
    }
    a->hash[me] = h;
    return GNN_OK;
}

START_TEST(fault_delay_exact_step)
{
    const int P = 3;
    gnn_sim_config cfg = config(P);
    cfg.faults = (gnn_sim_faults){ .seed = 5, .delay_p = 1.0, .delay_steps = 2 };
    fault_arg a = { .mode = 0 };
    gnn_sim_report rep;
    gnn_err err = { "" };
    ck_assert_msg(gnn_sim_run(&cfg, fn_faults, &a, &rep, &err) == GNN_OK, "%s", err.msg);
    ck_assert_int_eq(rep.faults_delayed, P * (P - 1) * FAULT_STEPS);
    ck_assert_int_eq(rep.undelivered, P * (P - 1) * 2); /* due at steps 6 and 7, never waited */
    ck_assert_int_eq(rep.faults_dropped + rep.faults_flipped + rep.faults_detected, 0);
    gnn_sim_report_free(&rep);
}
END_TEST

START_TEST(fault_drop_all)
{
    const int P = 4;
    gnn_sim_config cfg = config(P);
    cfg.faults = (gnn_sim_faults){ .seed = 5, .drop_p = 1.0 };
    fault_arg a = { .mode = 1 };
    gnn_sim_report rep;
    gnn_err err = { "" };
    ck_assert_msg(gnn_sim_run(&cfg, fn_faults, &a, &rep, &err) == GNN_OK, "%s", err.msg);
    ck_assert_int_eq(rep.faults_dropped, P * (P - 1) * FAULT_STEPS);
    ck_assert_int_eq(rep.undelivered, 0);
    gnn_sim_report_free(&rep);
}
END_TEST

START_TEST(fault_flip_async_discarded)
{
    const int P = 3;
    gnn_sim_config cfg = config(P);
    cfg.faults = (gnn_sim_faults){ .seed = 5, .flip_p = 1.0 };
    fault_arg a = { .mode = 2 };
    gnn_sim_report rep;
    gnn_err err = { "" };
    ck_assert_msg(gnn_sim_run(&cfg, fn_faults, &a, &rep, &err) == GNN_OK, "%s", err.msg);
    ck_assert_int_eq(rep.faults_flipped, P * (P - 1) * FAULT_STEPS);
    ck_assert_int_eq(rep.faults_detected, rep.faults_flipped);
    gnn_sim_report_free(&rep);
}
END_TEST

/* Mixed faults: the same seed gives the same deliveries, every remote segment is accounted
 * for exactly once, a corrupted segment is never delivered (fn_faults checks the data). */
START_TEST(fault_mixed_deterministic)
{
    const int P = 4;
    fault_arg runs[3];
    gnn_sim_report rep[3];
    for (int k = 0; k < 3; k++) {
        gnn_sim_config cfg = config(P);
        cfg.faults = (gnn_sim_faults){ .seed = k == 2 ? 8 : 7, .drop_p = 0.25, .delay_p = 0.3, .delay_steps = 1,
                                       .flip_p = 0.25 };
        runs[k] = (fault_arg){ .mode = 3 };
        gnn_err err = { "" };
        ck_assert_msg(gnn_sim_run(&cfg, fn_faults, &runs[k], &rep[k], &err) == GNN_OK, "%s", err.msg);
        int64_t delivered = 0;
        for (int r = 0; r < P; r++)
            delivered += runs[k].delivered[r];
        ck_assert_int_eq(delivered + rep[k].faults_dropped + rep[k].faults_detected + rep[k].undelivered,
                         P * (P - 1) * FAULT_STEPS);
        ck_assert(rep[k].faults_dropped > 0 && rep[k].faults_delayed > 0 && rep[k].faults_flipped > 0);
        ck_assert(rep[k].faults_detected <= rep[k].faults_flipped);
    }
    ck_assert_mem_eq(runs[0].hash, runs[1].hash, sizeof runs[0].hash);
    ck_assert_int_eq(rep[0].faults_dropped, rep[1].faults_dropped);
    ck_assert_int_eq(rep[0].faults_delayed, rep[1].faults_delayed);
    ck_assert_int_eq(rep[0].faults_flipped, rep[1].faults_flipped);
    ck_assert_int_eq(rep[0].undelivered, rep[1].undelivered);
    ck_assert(memcmp(runs[0].hash, runs[2].hash, sizeof runs[0].hash) != 0); /* another seed, other faults */
    for (int k = 0; k < 3; k++)
        gnn_sim_report_free(&rep[k]);
}
END_TEST

static gnn_status fn_flip_blocking(gnn_comm *c, void *arg)
{
    const int P = gnn_comm_size(c);
    int32_t s[2 * MAXP] = { 0 }, r[2 * MAXP];
    int64_t cnt[MAXP], dsp[MAXP];
    for (int q = 0; q < P; q++)
        cnt[q] = 2, dsp[q] = 2 * q;
    if (*(const int *)arg == 0)
        return gnn_comm_alltoallv(c, s, cnt, dsp, r, cnt, dsp, GNN_DT_I32);
    float f[12] = { 1 }, g[12];
    return gnn_comm_allreduce(c, f, g, 12, GNN_DT_F32);
}

START_TEST(fault_flip_blocking_fails)
{
    const int P = 3;
    gnn_sim_config cfg = config(P);
    cfg.faults = (gnn_sim_faults){ .seed = 1, .flip_p = 1.0 };
    for (int v = 0; v < 2; v++) {
        gnn_sim_report rep;
        gnn_err err = { "" };
        ck_assert_int_eq(gnn_sim_run(&cfg, fn_flip_blocking, &v, &rep, &err), GNN_ERR_COMM);
        const char *want =
            v == 0 ? "rank 1: corrupted message: CRC32C mismatch in alltoallv from rank 0 to rank 1 (8 bytes"
                   : "rank 1: corrupted message: CRC32C mismatch in allreduce from rank 0 to rank 1 (16 bytes";
        ck_assert_msg(strstr(err.msg, want), "\"%s\" not in \"%s\"", want, err.msg);
        ck_assert_int_eq(rep.faults_flipped, P * (P - 1));
        ck_assert_int_eq(rep.faults_detected, P * (P - 1));
        for (int r = 0; r < P; r++)
            ck_assert_int_eq(rep.rank_status[r], GNN_ERR_COMM);
        gnn_sim_report_free(&rep);
    }
}
END_TEST

/* ---- a lost message of a blocking collective ------------------------------------------------
 * drop_blocking_p: the collective cannot complete, so the run stops at once (far inside the
 * timeout), charged to the rank that would wait, naming the collective and both ranks. */

/* v 0: one alltoallv; 1: one allreduce; 2: a barrier (no bytes: nothing to lose), then
 * alltoallv; 3: only asynchronous traffic (never touched by drop_blocking_p) */
static gnn_status fn_drop_blocking(gnn_comm *c, void *arg)
{
    const int v = *(const int *)arg, P = gnn_comm_size(c);
    int32_t s[2 * MAXP] = { 0 }, r[2 * MAXP];
    int64_t cnt[MAXP], dsp[MAXP];
    for (int q = 0; q < P; q++)
        cnt[q] = 2, dsp[q] = 2 * q;
    if (v == 3) {
        for (int step = 0; step < 3; step++) {
            gnn_comm_req *req;
            const gnn_comm_seg *seg;
            int n;
            CALL(gnn_comm_ialltoallv(c, s, cnt, dsp, GNN_DT_I32, 5, &req));
            gnn_status st = gnn_comm_wait(c, req, &seg, &n);
            gnn_comm_req_free(c, req);
            CALL(st);
            REQUIRE(c, n == P, "step %d: %d segments, want %d", step, n, P);
        }
        return GNN_OK;
    }
    if (v == 1) {
        float f[12] = { 1 }, g[12];
        return gnn_comm_allreduce(c, f, g, 12, GNN_DT_F32);
    }
    if (v == 2)
        CALL(gnn_comm_barrier(c));
    return gnn_comm_alltoallv(c, s, cnt, dsp, r, cnt, dsp, GNN_DT_I32);
}

START_TEST(fault_drop_blocking_reported)
{
    const int P = 3;
    static const char *const want[3] = {
        "rank 1: lost message: alltoallv from rank 0 to rank 1 dropped (8 bytes, blocking message #0 from rank 0 to "
        "rank 1): rank 1, in alltoallv(i32, count=6) [call #0], would wait for it forever (6 messages of this "
        "collective lost)",
        "rank 1: lost message: allreduce from rank 0 to rank 1 dropped (16 bytes, blocking message #0 from rank 0 to "
        "rank 1): rank 1, in allreduce(f32, count=12) [call #0], would wait for it forever (6 messages of this "
        "collective lost)",
        "rank 1: lost message: alltoallv from rank 0 to rank 1 dropped (8 bytes, blocking message #0 from rank 0 to "
        "rank 1): rank 1, in alltoallv(i32, count=6) [call #1], would wait for it forever (6 messages of this "
        "collective lost)",
    };
    gnn_sim_config cfg = config(P);
    cfg.faults = (gnn_sim_faults){ .seed = 1, .drop_blocking_p = 1.0 };
    for (int v = 0; v < 3; v++) {
        gnn_sim_report rep;
        gnn_err err = { "" };
        ck_assert_int_eq(gnn_sim_run(&cfg, fn_drop_blocking, &v, &rep, &err), GNN_ERR_COMM);
        ck_assert_msg(!strcmp(err.msg, want[v]), "case %d: \"%s\", want \"%s\"", v, err.msg, want[v]);
        ck_assert_msg(rep.wall_s < 5, "lost message reported after %g s (timeout 30 s)", rep.wall_s);
        ck_assert_int_eq(rep.faults_dropped, P * (P - 1));
        ck_assert_int_eq(rep.faults_flipped, 0);
        for (int r = 0; r < P; r++)
            ck_assert_int_eq(rep.rank_status[r], GNN_ERR_COMM);
        gnn_sim_report_free(&rep);
    }
    /* async traffic is the drop fault's (drop_p), never drop_blocking_p's; and drop_p never
     * touches a blocking collective */
    int v = 3;
    gnn_sim_report rep;
    gnn_err err = { "" };
    ck_assert_msg(gnn_sim_run(&cfg, fn_drop_blocking, &v, &rep, &err) == GNN_OK, "%s", err.msg);
    ck_assert_int_eq(rep.faults_dropped, 0);
    gnn_sim_report_free(&rep);
    cfg.faults = (gnn_sim_faults){ .seed = 1, .drop_p = 1.0 };
    for (v = 0; v < 3; v++) {
        ck_assert_msg(gnn_sim_run(&cfg, fn_drop_blocking, &v, &rep, &err) == GNN_OK, "case %d: %s", v, err.msg);
        ck_assert_int_eq(rep.faults_dropped, 0);
        gnn_sim_report_free(&rep);
    }
    /* a probability out of [0, 1] is refused before anything runs */
    cfg.faults = (gnn_sim_faults){ .drop_blocking_p = 1.5 };
    ck_assert_int_eq(gnn_sim_run(&cfg, fn_drop_blocking, &v, NULL, &err), GNN_ERR_INVAL);
    ck_assert_msg(strstr(err.msg, "drop-blocking 1.5"), "%s", err.msg);
}
END_TEST

/* The flag end to end: `train --fault-drop-blocking 1` on 4 simulated ranks stops at its first
 * blocking collective with the lost message named, long before the wait bound (--sim-timeout
 * 60: a timeout would take a minute), instead of training. */
START_TEST(cli_drop_blocking_reported)
{
    NEED_TOOL();
    static char text[1 << 14];
    const int rc = tool("train --data builtin --layers 2 --fanouts 5,10 --hidden 8 --epochs 1 --backend sim "
                        "--ranks 4 --sim-timeout 60 --fault-drop-blocking 1 --fault-seed 2",
                        text, sizeof text);
    ck_assert_msg(rc != 0, "exit 0: %s", text);
    ck_assert_msg(strstr(text, "lost message: ") && strstr(text, " from rank 0 to rank ") &&
                      strstr(text, "would wait for it forever") && !strstr(text, "timeout"),
                  "%s", text);
    /* ... and a probability outside [0, 1] is a usage error naming the flag */
    expect_usage_error("commcheck --backend sim --ranks 2 --fault-drop-blocking 2", "--fault-drop-blocking", text,
                       sizeof text);
}
END_TEST

Suite *suite_sim_faults(void)
{
    Suite *s = suite_create("sim_faults");
    TCase *tc = tcase_create("sim");
    tcase_set_tags(tc, "sim");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, mismatch_reported, 0, (int)(sizeof k_mismatch / sizeof k_mismatch[0]));
    tcase_add_loop_test(tc, deadlock_reported, 0, 3);
    tcase_add_test(tc, modified_send_buffer);
    tcase_add_test(tc, timeout_reported);
    tcase_add_test(tc, failing_rank_aborts);
    tcase_add_test(tc, wait_order);
    tcase_add_test(tc, fault_delay_exact_step);
    tcase_add_test(tc, fault_drop_all);
    tcase_add_test(tc, fault_flip_async_discarded);
    tcase_add_test(tc, fault_mixed_deterministic);
    tcase_add_test(tc, fault_flip_blocking_fails);
    tcase_add_test(tc, fault_drop_blocking_reported);
    suite_add_tcase(s, tc);
    TCase *cli = tcase_create("cli");
    tcase_add_checked_fixture(cli, NULL, cli_cleanup);
    tcase_set_tags(cli, "sim");
    tcase_set_timeout(cli, 60);
    tcase_add_test(cli, cli_drop_blocking_reported);
    suite_add_tcase(s, cli);
    return s;
}
