/* tests/test_sim.c -- the multi-rank simulator (sim/, docs/simulator.md).
 *
 * Every collective on 1..5 ranks (more ranks than this machine has cores) against outputs
 * computed here from the same deterministic inputs; the checks (mismatch, deadlock, modified
 * send buffer, timeout) each end the run with a message naming every rank's call; fault
 * injection step by step; the time model against its closed forms; the accounting.
 *
 * Rank functions run on the simulator's threads, where Check's assertions must not be used:
 * they return GNN_ERR_MISMATCH with a message (REQUIRE) and the test asserts on the run. */
#include <check.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "gnnref/comm.h"
#include "gnnref/rng.h"
#include "gnnref/sim.h"

#define MAXP 8

/* inside a rank function: fail the rank (and so the run) with a message */
#define REQUIRE(c, cond, ...)                                                                                        \
    do {                                                                                                             \
        if (!(cond))                                                                                                 \
            return gnn_err_set(&(c)->err, GNN_ERR_MISMATCH, __VA_ARGS__);                                            \
    } while (0)
#define CALL(expr)                                                                                                   \
    do {                                                                                                             \
        gnn_status st_ = (expr);                                                                                     \
        if (st_)                                                                                                     \
            return st_;                                                                                              \
    } while (0)

static gnn_sim_config config(int P)
{
    gnn_sim_config cfg;
    gnn_sim_defaults(&cfg);
    cfg.ranks = P;
    cfg.timeout_s = 30; /* the checks must answer long before this */
    return cfg;
}

/* A random float of rank r, element i, with magnitudes spread over 2^-3..2^3 so that the
 * order of a sum changes its rounding. */
static double rnd(int r, int64_t i)
{
    const gnn_rng_stream s = gnn_rng_stream_make(42, GNN_TAG_ORACLE, (uint32_t)r, 0, 0);
    const double u = (double)gnn_rng_float(&s, (uint64_t)(2 * i)) - 0.5;
    const double v = (double)gnn_rng_float(&s, (uint64_t)(2 * i + 1));
    return (u + v * 0x1p-24) * ldexp(1.0, (int)(i % 7) - 3);
}
/* small integers: every sum is exact */
static double exact(int r, int64_t i) { return (double)((r * 7 + i * 3) % 17) - 8.0; }

/* ---- every collective, P = 1..5 ------------------------------------------------------- */

static int64_t a2a_n(int src, int dst, int salt) { return (src + 2 * dst + salt) % 3; } /* 0, 1 or 2 */
static int32_t a2a_v(int src, int dst, int salt, int64_t i) { return src * 10000 + dst * 100 + salt * 10 + (int32_t)i; }
static int64_t agv_n(int q) { return (q * 5 + 2) % 4; }

static gnn_status check_allreduce(gnn_comm *c, gnn_dtype t, int64_t n, int random, int in_place)
{
    const int P = gnn_comm_size(c), me = gnn_comm_rank(c);
    const size_t s = gnn_dtype_size(t);
    char x[MAXP][64 * 8], mine[64 * 8], out[64 * 8], want[64 * 8];
    const void *xp[MAXP];
    for (int q = 0; q < P; q++) {
        for (int64_t i = 0; i < n; i++) {
            const double v = random ? rnd(q, i) : exact(q, i);
            if (t == GNN_DT_F32)
                ((float *)x[q])[i] = (float)v;
            else
                ((double *)x[q])[i] = v;
        }
        xp[q] = x[q];
    }
    gnn_comm_allreduce_expected(xp, P, want, n, t);
    memcpy(mine, x[me], (size_t)n * s);
    if (in_place) {
        CALL(gnn_comm_allreduce(c, mine, mine, n, t));
        memcpy(out, mine, (size_t)n * s);
    } else {
        CALL(gnn_comm_allreduce(c, mine, out, n, t));
        REQUIRE(c, memcmp(mine, x[me], (size_t)n * s) == 0, "allreduce changed its send buffer");
    }
    REQUIRE(c, memcmp(out, want, (size_t)n * s) == 0, "allreduce(%s, n=%lld, %s, %s) differs from the expected bits",
            gnn_dtype_name(t), (long long)n, random ? "random" : "exact", in_place ? "in place" : "out of place");
    return GNN_OK;
}

static gnn_status fn_collectives(gnn_comm *c, void *arg)
{
    const int P = gnn_comm_size(c), me = gnn_comm_rank(c);
    REQUIRE(c, strcmp(c->ops->name, "sim") == 0, "backend %s", c->ops->name);
    CALL(gnn_comm_barrier(c));
    CALL(gnn_comm_barrier(c));

    /* bcast from every root: i64 exact values, then random f32 */
    for (int root = 0; root < P; root++) {
        int64_t b[16];
        const int64_t n = root + 3;
        for (int64_t i = 0; i < n; i++)
            b[i] = me == root ? root * 1000 + i : -1;
        CALL(gnn_comm_bcast(c, b, n, GNN_DT_I64, root));
        for (int64_t i = 0; i < n; i++)
            REQUIRE(c, b[i] == root * 1000 + i, "bcast root %d: b[%lld] = %lld", root, (long long)i, (long long)b[i]);
        float f[17];
        for (int i = 0; i < 17; i++)
            f[i] = me == root ? (float)rnd(root, i) : -1.0f;
        CALL(gnn_comm_bcast(c, f, 17, GNN_DT_F32, root));
        for (int i = 0; i < 17; i++)
            REQUIRE(c, f[i] == (float)rnd(root, i), "bcast f32 root %d: f[%d]", root, i);
    }

    /* allgatherv: some ranks send nothing; one element of gap after each block must stay */
    {
        int64_t counts[MAXP], displs[MAXP], pos = 0;
        for (int q = 0; q < P; q++) {
            counts[q] = agv_n(q);
            displs[q] = pos;
            pos += counts[q] + 1;
        }
        double send[4], recv[64];
        for (int64_t i = 0; i < counts[me]; i++)
            send[i] = me * 1000 + (double)i + 0.5;
        for (int64_t i = 0; i < pos; i++)
            recv[i] = -1.0;
        CALL(gnn_comm_allgatherv(c, send, counts[me], recv, counts, displs, GNN_DT_F64));
        for (int q = 0; q < P; q++) {
            for (int64_t i = 0; i < counts[q]; i++)
                REQUIRE(c, recv[displs[q] + i] == q * 1000 + (double)i + 0.5, "allgatherv: block %d element %lld", q,
                        (long long)i);
            REQUIRE(c, recv[displs[q] + counts[q]] == -1.0, "allgatherv wrote past block %d", q);
        }
    }

    /* alltoallv: segments stored in reverse rank order, received with a gap after each */
    {
        int64_t sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP], pos = 0;
        int32_t send[64], recv[64];
        for (int q = P - 1; q >= 0; q--) {
            sc[q] = a2a_n(me, q, 0);
            sd[q] = pos;
            for (int64_t i = 0; i < sc[q]; i++)
                send[pos + i] = a2a_v(me, q, 0, i);
            pos += sc[q];
        }
        pos = 0;
        for (int q = 0; q < P; q++) {
            rc[q] = a2a_n(q, me, 0);
            rd[q] = pos;
            pos += rc[q] + 1;
        }
        for (int64_t i = 0; i < pos; i++)
            recv[i] = -7;
        CALL(gnn_comm_alltoallv(c, send, sc, sd, recv, rc, rd, GNN_DT_I32));
        for (int q = 0; q < P; q++) {
            for (int64_t i = 0; i < rc[q]; i++)
                REQUIRE(c, recv[rd[q] + i] == a2a_v(q, me, 0, i), "alltoallv: from rank %d element %lld: %d", q,
                        (long long)i, recv[rd[q] + i]);
            REQUIRE(c, recv[rd[q] + rc[q]] == -7, "alltoallv wrote past the segment from rank %d", q);
        }
    }

    /* allreduce: bitwise equal to the serial rank-order sum, with empty chunks (n < P) too */
    const int64_t ns[] = { 0, 3, 37 };
    for (int k = 0; k < 3; k++)
        for (int random = 0; random < 2; random++) {
            CALL(check_allreduce(c, GNN_DT_F32, ns[k], random, 0));
            CALL(check_allreduce(c, GNN_DT_F64, ns[k], random, 1));
        }

    /* ialltoallv: three posts outstanding on one tag, then their waits in order */
    {
        gnn_comm_req *req[3];
        int32_t send[3][64];
        for (int step = 0; step < 3; step++) {
            int64_t sc[MAXP], sd[MAXP], pos = 0;
            for (int q = 0; q < P; q++) {
                sc[q] = a2a_n(me, q, step);
                sd[q] = pos;
                for (int64_t i = 0; i < sc[q]; i++)
                    send[step][pos + i] = a2a_v(me, q, step, i);
                pos += sc[q];
            }
            CALL(gnn_comm_ialltoallv(c, send[step], sc, sd, GNN_DT_I32, 7, &req[step]));
        }
        for (int step = 0; step < 3; step++) {
            const gnn_comm_seg *seg;
            int n;
            CALL(gnn_comm_wait(c, req[step], &seg, &n));
            REQUIRE(c, n == P, "wait step %d: %d segments", step, n);
            for (int q = 0; q < P; q++) {
                REQUIRE(c, seg[q].src == q && seg[q].step == step && seg[q].count == a2a_n(q, me, step),
                        "wait step %d: segment %d is (src %d, step %lld, count %lld)", step, q, seg[q].src,
                        (long long)seg[q].step, (long long)seg[q].count);
                for (int64_t i = 0; i < seg[q].count; i++)
                    REQUIRE(c, ((const int32_t *)seg[q].data)[i] == a2a_v(q, me, step, i), "wait step %d: data", step);
            }
            gnn_comm_req_free(c, req[step]);
        }
    }
    CALL(gnn_comm_barrier(c));
    return GNN_OK;
}

START_TEST(every_collective)
{
    const int P = _i;
    gnn_sim_config cfg = config(P);
    gnn_sim_report rep;
    gnn_err err = { "" };
    gnn_status st = gnn_sim_run(&cfg, fn_collectives, NULL, &rep, &err);
    ck_assert_msg(st == GNN_OK, "P=%d: %s", P, err.msg);
    ck_assert_int_eq(rep.ranks, P);
    ck_assert_int_eq(rep.undelivered, 0);
    for (int r = 0; r < P; r++) {
        ck_assert_int_eq(rep.rank_status[r], GNN_OK);
        ck_assert(rep.compute_s[r] >= 0 && rep.clock_s[r] >= rep.compute_s[r]);
        ck_assert(fabs(rep.comm_s[r] - (rep.clock_s[r] - rep.compute_s[r])) < 1e-12);
    }
    ck_assert(rep.wall_s > 0);
    gnn_sim_report_free(&rep);
}
END_TEST

static gnn_status fn_threads(gnn_comm *c, void *arg)
{
#if defined(_OPENMP)
    REQUIRE(c, omp_get_max_threads() == *(int *)arg, "rank %d: %d OpenMP threads", c->rank, omp_get_max_threads());
#endif
    return gnn_comm_barrier(c);
}

START_TEST(threads_per_rank)
{
    for (int t = 1; t <= 3; t++) {
        gnn_sim_config cfg = config(3);
        cfg.threads_per_rank = t;
        gnn_err err = { "" };
        ck_assert_msg(gnn_sim_run(&cfg, fn_threads, &t, NULL, &err) == GNN_OK, "%s", err.msg);
    }
}
END_TEST

static gnn_status fn_nothing(gnn_comm *c, void *arg) { return GNN_OK; }

START_TEST(bad_config)
{
    gnn_err err = { "" };
    gnn_sim_config cfg = config(0);
    ck_assert_int_eq(gnn_sim_run(&cfg, fn_nothing, NULL, NULL, &err), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "ranks = 0"));
    cfg = config(2);
    cfg.faults.flip_p = 1.5;
    ck_assert_int_eq(gnn_sim_run(&cfg, fn_nothing, NULL, NULL, &err), GNN_ERR_INVAL);
    cfg = config(2);
    cfg.faults.delay_p = 0.5;
    ck_assert_int_eq(gnn_sim_run(&cfg, fn_nothing, NULL, NULL, &err), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "delay_steps"));
    cfg = config(2);
    cfg.timeout_s = 0;
    ck_assert_int_eq(gnn_sim_run(&cfg, fn_nothing, NULL, NULL, &err), GNN_ERR_INVAL);
    cfg = config(2);
    ck_assert_int_eq(gnn_sim_run(&cfg, NULL, NULL, NULL, &err), GNN_ERR_INVAL);
    gnn_sim_report rep;
    ck_assert_int_eq(gnn_sim_run(&cfg, fn_nothing, NULL, &rep, &err), GNN_OK);
    ck_assert_int_eq(rep.ranks, 2);
    gnn_sim_report_free(&rep);
}
END_TEST

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

/* ---- the time model ------------------------------------------------------------------------ */

typedef struct time_arg {
    int op;    /* 0 alltoallv, 1 allreduce f64, 2 barrier, 3 bcast, 4 ialltoallv */
    int64_t n; /* allreduce / bcast elements */
} time_arg;

static int64_t t_n(int src, int dst) { return ((src + dst) % 3 + 1) * 10; } /* i32 elements */

static gnn_status fn_time(gnn_comm *c, void *arg)
{
    const time_arg *a = arg;
    const int P = gnn_comm_size(c), me = gnn_comm_rank(c);
    static const int32_t zeros[64 * MAXP];
    int32_t recv[64 * MAXP] = { 0 };
    int64_t sc[MAXP] = { 0 }, sd[MAXP] = { 0 }, rc[MAXP] = { 0 }, rd[MAXP] = { 0 }, ps = 0, pr = 0;
    for (int q = 0; q < P; q++) {
        sc[q] = t_n(me, q);
        sd[q] = ps;
        ps += sc[q];
        rc[q] = t_n(q, me);
        rd[q] = pr;
        pr += rc[q];
    }
    switch (a->op) {
    case 0:
        return gnn_comm_alltoallv(c, zeros, sc, sd, recv, rc, rd, GNN_DT_I32);
    case 1: {
        double x[400] = { 0 };
        return gnn_comm_allreduce(c, x, x, a->n, GNN_DT_F64);
    }
    case 2:
        return gnn_comm_barrier(c);
    case 3:
        return gnn_comm_bcast(c, recv, a->n, GNN_DT_I32, P - 1);
    case 4: { /* after a barrier, rank 0 sends 250 i32 to every other rank, the others nothing */
        gnn_comm_req *req;
        const gnn_comm_seg *seg;
        int n;
        CALL(gnn_comm_barrier(c)); /* so that the post happens at a clock > 0 */
        for (int q = 0; q < P; q++)
            sc[q] = me == 0 && q > 0 ? 250 : 0, sd[q] = 0;
        CALL(gnn_comm_ialltoallv(c, zeros, sc, sd, GNN_DT_I32, 0, &req));
        gnn_status st = gnn_comm_wait(c, req, &seg, &n);
        gnn_comm_req_free(c, req);
        return st;
    }
    }
    return GNN_ERR_INTERNAL;
}

/* Run one op and check every rank's clock: cost <= clock_r <= cost + (all measured compute).
 * clock_r = max_q(compute before, rank q) + cost + compute after (rank r), so the only
 * slack is measured compute, which the large alpha makes negligible. */
static void check_time(int P, time_arg a, const double *cost_of_rank, double alpha, double beta)
{
    gnn_sim_config cfg = config(P);
    cfg.alpha_s = alpha;
    cfg.beta_Bps = beta;
    gnn_sim_report rep;
    gnn_err err = { "" };
    ck_assert_msg(gnn_sim_run(&cfg, fn_time, &a, &rep, &err) == GNN_OK, "%s", err.msg);
    double compute = 0;
    for (int r = 0; r < P; r++)
        compute += rep.compute_s[r];
    ck_assert_msg(compute < 1e-3 * (cost_of_rank[P - 1] + alpha), "compute %g s is not negligible", compute);
    for (int r = 0; r < P; r++)
        ck_assert_msg(rep.clock_s[r] >= cost_of_rank[r] - 1e-12 && rep.clock_s[r] <= cost_of_rank[r] + compute + 1e-12,
                      "op %d P=%d rank %d: clock %.9f s, model %.9f s (+ compute %.3g s)", a.op, P, r, rep.clock_s[r],
                      cost_of_rank[r], compute);
    gnn_sim_report_free(&rep);
}

START_TEST(time_model_closed_forms)
{
    const double alpha = 1.0, beta = 1000.0; /* seconds per message, bytes per second */
    for (int P = 1; P <= 5; P++) {
        double cost[MAXP];
        /* alltoallv: max over q of max(S_q, R_q), alpha + bytes/beta per message */
        double worst = 0;
        for (int q = 0; q < P; q++) {
            double S = 0, R = 0;
            for (int o = 0; o < P; o++)
                if (o != q) {
                    S += alpha + 4.0 * (double)t_n(q, o) / beta;
                    R += alpha + 4.0 * (double)t_n(o, q) / beta;
                }
            worst = fmax(worst, fmax(S, R));
        }
        for (int r = 0; r < P; r++)
            cost[r] = worst;
        check_time(P, (time_arg){ .op = 0 }, cost, alpha, beta);
        /* allreduce of n = 60 P doubles: 2 (P-1) (alpha + n s / (P beta)) */
        const int64_t n = 60 * P;
        for (int r = 0; r < P; r++)
            cost[r] = 2.0 * (P - 1) * (alpha + (double)n * 8.0 / (P * beta));
        check_time(P, (time_arg){ .op = 1, .n = n }, cost, alpha, beta);
        /* barrier: alpha ceil(log2 P) */
        for (int r = 0; r < P; r++)
            cost[r] = alpha * (P == 1 ? 0 : P == 2 ? 1 : P <= 4 ? 2 : 3);
        check_time(P, (time_arg){ .op = 2 }, cost, alpha, beta);
        /* bcast of 50 i32: (P - 1) (alpha + 200 / beta), the linear model */
        for (int r = 0; r < P; r++)
            cost[r] = (P - 1) * (alpha + 200.0 / beta);
        check_time(P, (time_arg){ .op = 3, .n = 50 }, cost, alpha, beta);
        /* async, after a barrier (clock B): rank 0 posts 1000 bytes to each; posting costs it
         * nothing and its wait returns only empty segments, so its clock stays B; every
         * other rank waits for one arrival, alpha + 1000 / beta after rank 0's post */
        for (int r = 0; r < P; r++)
            cost[r] = alpha * (P == 1 ? 0 : P == 2 ? 1 : P <= 4 ? 2 : 3) + (r == 0 ? 0 : alpha + 1000.0 / beta);
        check_time(P, (time_arg){ .op = 4 }, cost, alpha, beta);
    }
}
END_TEST

/* ---- accounting ----------------------------------------------------------------------------- */

typedef struct traffic_arg {
    int64_t *bytes, *msgs; /* rank 0's traffic matrix [op][src][dst] */
} traffic_arg;

static gnn_status fn_traffic(gnn_comm *c, void *arg)
{
    traffic_arg *a = arg;
    const int P = gnn_comm_size(c), me = gnn_comm_rank(c);
    int32_t send[64 * MAXP] = { 0 }, recv[64 * MAXP];
    int64_t sc[MAXP] = { 0 }, sd[MAXP] = { 0 }, rc[MAXP] = { 0 }, rd[MAXP] = { 0 }, ps = 0, pr = 0;
    for (int q = 0; q < P; q++) {
        sc[q] = a2a_n(me, q, 1);
        sd[q] = ps;
        ps += sc[q];
        rc[q] = a2a_n(q, me, 1);
        rd[q] = pr;
        pr += rc[q];
    }
    CALL(gnn_comm_alltoallv(c, send, sc, sd, recv, rc, rd, GNN_DT_I32));
    for (int q = 0; q < P; q++)
        rc[q] = agv_n(q), rd[q] = 4 * q;
    CALL(gnn_comm_allgatherv(c, send, rc[me], recv, rc, rd, GNN_DT_I32));
    float f[50] = { 0 };
    CALL(gnn_comm_allreduce(c, f, f, 50, GNN_DT_F32));
    CALL(gnn_comm_bcast(c, f, 7, GNN_DT_F32, 1 % P));
    gnn_comm_req *req;
    const gnn_comm_seg *seg;
    int n;
    CALL(gnn_comm_ialltoallv(c, send, sc, sd, GNN_DT_I32, 4, &req));
    gnn_status st = gnn_comm_wait(c, req, &seg, &n);
    gnn_comm_req_free(c, req);
    CALL(st);
    int64_t *bytes, *msgs;
    /* gathered on rank 0 only: the others get nothing */
    CALL(gnn_comm_traffic_matrix(c, 0, &bytes, &msgs));
    if (me == 0) {
        if (!bytes || !msgs)
            return GNN_ERR_INTERNAL;
        a->bytes = bytes;
        a->msgs = msgs;
    } else if (bytes || msgs) {
        free(bytes);
        free(msgs);
        return GNN_ERR_INTERNAL;
    }
    /* a root that is not a rank is an error on every rank */
    if (gnn_comm_traffic_matrix(c, P, &bytes, &msgs) != GNN_ERR_INVAL || bytes || msgs)
        return GNN_ERR_INTERNAL;
    return GNN_OK;
}

START_TEST(traffic_matrix_matches_bytes_moved)
{
    for (int P = 1; P <= 4; P++) {
        gnn_sim_config cfg = config(P);
        traffic_arg a = { NULL, NULL };
        gnn_sim_report rep;
        gnn_err err = { "" };
        ck_assert_msg(gnn_sim_run(&cfg, fn_traffic, &a, &rep, &err) == GNN_OK, "%s", err.msg);
        int64_t total = 0, moved = 0;
        for (int src = 0; src < P; src++)
            for (int dst = 0; dst < P; dst++) {
                int64_t pair = 0;
                for (int op = 0; op < GNN_COMM_OP_COUNT; op++) {
                    const size_t o = ((size_t)op * P + src) * P + dst;
                    pair += a.bytes[o];
                    /* the matrix gathered by the ranks is the report's */
                    ck_assert_int_eq(a.bytes[o], rep.bytes[o]);
                    ck_assert_int_eq(a.msgs[o], rep.msgs[o]);
                }
                if (src != dst) {
                    ck_assert_msg(pair == rep.bytes_moved[src * P + dst], "P=%d %d->%d: matrix %lld, moved %lld", P,
                                  src, dst, (long long)pair, (long long)rep.bytes_moved[src * P + dst]);
                    moved += rep.bytes_moved[src * P + dst];
                } else {
                    ck_assert_int_eq(pair, 0);
                }
                total += pair;
            }
        ck_assert_int_eq(total, moved);
        ck_assert(P == 1 || total > 0);
        free(a.bytes);
        free(a.msgs);
        gnn_sim_report_free(&rep);
    }
}
END_TEST

Suite *suite_sim(void)
{
    Suite *s = suite_create("sim");
    TCase *tc = tcase_create("sim");
    tcase_set_tags(tc, "sim");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, every_collective, 1, 6);
    tcase_add_test(tc, threads_per_rank);
    tcase_add_test(tc, bad_config);
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
    tcase_add_test(tc, time_model_closed_forms);
    tcase_add_test(tc, traffic_matrix_matches_bytes_moved);
    suite_add_tcase(s, tc);
    return s;
}
