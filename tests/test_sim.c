/* tests/test_sim.c -- the multi-rank simulator (sim/, docs/simulator.md): its collectives,
 * time model and accounting; the checks and fault injection are in tests/test_sim_faults.c.
 *
 * Every collective on 1..5 ranks (more ranks than this machine has cores) against outputs
 * computed here from the same deterministic inputs; the time model against its closed forms;
 * the accounting.
 *
 * Rank functions run on the simulator's threads, where Check's assertions must not be used:
 * they return GNN_ERR_MISMATCH with a message (REQUIRE) and the test asserts on the run. */
#include <check.h>
#include <math.h>
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
#include "sim_util.h"

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
#if !defined(_OPENMP)
    fprintf(stderr, "threads_per_rank: the ranks' thread counts are not checked (no OpenMP in this build)\n");
#endif
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

/* ---- which error a failed run reports (docs/simulator.md, "Which error a run reports") ---- */

/* Ranks 1 and 2 fail on their own after a barrier; `late` (1 or 2) fails a few milliseconds
 * after the other, so that the order in time alternates between runs. Ranks 0 and 3 are
 * woken in their next barrier by the abort; rank 3 turns that into an error of its own kind,
 * which is a consequence and must not be reported as a cause. */
static gnn_status fn_two_failures(gnn_comm *c, void *arg)
{
    const int late = *(const int *)arg, r = gnn_comm_rank(c);
    CALL(gnn_comm_barrier(c));
    if (r == 1 || r == 2) {
        if (r == late) {
            const struct timespec ms = { 0, 3000000 };
            nanosleep(&ms, NULL);
        }
        return gnn_err_set(&c->err, GNN_ERR_MISMATCH, "planted failure on rank %d", r);
    }
    const gnn_status st = gnn_comm_barrier(c);
    if (st && r == 3)
        return gnn_err_set(&c->err, GNN_ERR_RANGE, "rank 3 gave up (a consequence)");
    return st;
}

START_TEST(lowest_failing_rank_reported)
{
    int rank2_first = 0, rank2_unlisted = 0, consequence_listed = 0;
    char example[sizeof(((gnn_err *)0)->msg)] = "";
    for (int run = 0; run < 20; run++) {
        gnn_sim_config cfg = config(4);
        int late = 1 + run % 2;
        gnn_err err = { "" };
        gnn_sim_report rep;
        const gnn_status st = gnn_sim_run(&cfg, fn_two_failures, &late, &rep, &err);
        ck_assert_msg(st == GNN_ERR_MISMATCH, "run %d: status %s: %s", run, gnn_status_str(st), err.msg);
        for (int r = 0; r < 4; r++) /* 1 and 2 failed by themselves; 0 and 3 were woken */
            ck_assert_msg(rep.rank_failing[r] == (r == 1 || r == 2), "run %d: rank_failing[%d] = %d: %s", run, r,
                          rep.rank_failing[r], err.msg);
        ck_assert_int_eq(rep.rank_status[3], GNN_ERR_RANGE);
        gnn_sim_report_free(&rep);
        const char *one = strstr(err.msg, "planted failure on rank 1"), *two = strstr(err.msg, "planted failure on rank 2");
        const int bad = strncmp(err.msg, "rank 1 failed", 13) != 0 || !two || (one && two < one) ||
                        strstr(err.msg, "consequence");
        rank2_first += strncmp(err.msg, "rank 2 failed", 13) == 0;
        rank2_unlisted += !two;
        consequence_listed += strstr(err.msg, "consequence") != NULL;
        if (bad && !example[0])
            snprintf(example, sizeof example, "%s", err.msg);
    }
    ck_assert_msg(!example[0],
                  "of 20 runs, %d reported rank 2 first, %d did not list rank 2, %d listed rank 3's consequence; "
                  "e.g. '%s'",
                  rank2_first, rank2_unlisted, consequence_listed, example);
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
    tcase_add_test(tc, time_model_closed_forms);
    tcase_add_test(tc, traffic_matrix_matches_bytes_moved);
    tcase_add_test(tc, lowest_failing_rank_reported);
    suite_add_tcase(s, tc);
    return s;
}
