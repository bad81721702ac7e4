/* oracle/op_comm_faults.c -- the oracle entry sim.faults: the simulator's fault injection
 * (docs/simulator.md section 4) against the keying of docs/simulator.md, recomputed here from
 * raw Philox blocks (oracle/spec_rng.h): which asynchronous segment is dropped, delayed or
 * corrupted, what every wait returns, the report's counters, and for blocking collectives the
 * exact abort message. Apart from oracle/op_comm.c because it is no SPMD body of the
 * communicator's checks: it runs its own simulation with faults on and predicts every fault
 * decision; it shares only the keyed fill, the failure record and the `sim` implementation
 * (oracle/op_comm.h). The overview of all comm.* entries is at the top of oracle/op_comm.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/crc32c.h"
#include "gnnref/sim.h"
#include "oracle/op_comm.h"
#include "oracle/spec_rng.h"

static const gnn_oracle_impl *const k_sim_only[] = { &gnn_oracle_comm_impl_sim, NULL };

/* ---- sim.faults --------------------------------------------------------------------------------- */

enum { F_RANKS, F_STEPS, F_MAXC, F_DROP, F_DELAY, F_DSTEPS, F_FLIP, F_BLOCK, N_F_PARAMS };
static const gnn_oracle_param k_f_params[N_F_PARAMS] = {
    { "ranks", GNN_PARAM_INT, 2, COMM_MAX_RANKS, "simulated ranks" },
    { "steps", GNN_PARAM_INT, 1, 64, "ialltoallv posts on one tag, each waited at once" },
    { "maxc", GNN_PARAM_INT, 0, 64, "i32 elements per segment: uniform in [0, maxc] (empty segments too)" },
    { "drop", GNN_PARAM_REAL, 0, 1, "drop probability" },
    { "delay", GNN_PARAM_REAL, 0, 1, "delay probability" },
    { "dsteps", GNN_PARAM_INT, 0, 8, "delay in steps (>= 1 when delay > 0)" },
    { "flip", GNN_PARAM_REAL, 0, 1, "bit-flip probability, asynchronous and blocking" },
    { "block", GNN_PARAM_INT, 0, 3, "blocking alltoallvs after the asynchronous steps" },
};
/* mixed faults; drop everything; delay everything (some past the last wait: undelivered);
 * flip everything (every flip detected, the first blocking message aborts the run); only
 * empty segments (dropped and delayed, never flipped) */
static const char *const k_f_presets[] = {
    "ranks=2,steps=6,maxc=3,drop=0.3,delay=0.3,dsteps=1,flip=0.3,block=2",
    "ranks=3,steps=8,maxc=4,drop=0.2,delay=0.4,dsteps=2,flip=0.2,block=0",
    "ranks=4,steps=5,maxc=2,drop=1,delay=0,dsteps=0,flip=0,block=1",
    "ranks=5,steps=4,maxc=3,drop=0,delay=1,dsteps=3,flip=0,block=1",
    "ranks=3,steps=6,maxc=5,drop=0,delay=0,dsteps=0,flip=1,block=1",
    "ranks=8,steps=3,maxc=2,drop=0.25,delay=0.25,dsteps=1,flip=0.1,block=3",
    "ranks=4,steps=10,maxc=0,drop=0.5,delay=0.5,dsteps=2,flip=0.5,block=1",
    NULL,
};

#define FAULT_TAG 5 /* the user tag of the asynchronous phase: part of every async fault key */

typedef struct fault_job {
    const gnn_oracle_case *cs;
    int P, steps, block, dsteps;
    double drop, delay, flip;
    int64_t *C; /* [(steps + block) * P * P] i32 elements src -> dst at each step */
    gnn_comm_spmd_result res[COMM_MAX_RANKS];
    gnn_status rank_st[COMM_MAX_RANKS];
} fault_job;

/* The documented keys (docs/simulator.md, "Keying"): seed = faults.seed, tag GNN_TAG_FAULT =
 * 13; async: step = the segment's step, layer 1, id = tag << 32 | (src * P + dst); blocking:
 * step = earlier blocking messages src -> dst, layer 0, id = src * P + dst. The value 13 is
 * written here, not taken from rng.h. */
static spec_addr fault_addr(const fault_job *J, int async, int64_t step, int src, int dst)
{
    const uint64_t pair = (uint64_t)src * (uint64_t)J->P + (uint64_t)dst;
    return (spec_addr){ .seed = J->cs->seed, .tag = 13, .layer = async ? 1u : 0u, .step = (uint32_t)step,
                        .id = async ? (uint64_t)FAULT_TAG << 32 | pair : pair };
}

typedef struct fate {
    int dropped, delayed, flipped;
    int64_t due; /* the step of the wait that delivers it */
} fate;

/* Float draw 0 < drop drops; else draw 1 < delay delays; draw 2 < flip flips (non-empty only). */
static fate async_fate(const fault_job *J, int64_t step, int src, int dst)
{
    fate f = { 0, 0, 0, step };
    if (src == dst)
        return f;
    const spec_addr a = fault_addr(J, 1, step, src, dst);
    const int64_t n = J->C[(step * J->P + src) * J->P + dst];
    f.dropped = spec_float(&a, 0) < J->drop;
    if (f.dropped)
        return f;
    f.delayed = spec_float(&a, 1) < J->delay;
    f.due = step + (f.delayed ? J->dsteps : 0);
    f.flipped = n > 0 && spec_float(&a, 2) < J->flip;
    return f;
}

static uint64_t fault_stream(int64_t step, int src, int dst) { return 2000000 + ((uint64_t)step * 64 + (uint64_t)src) * 64 + (uint64_t)dst; }

/* What the first corrupted blocking collective must abort with, or "" when none is. */
typedef struct block_fail {
    int at;        /* index of the blocking collective that fails, or -1 */
    int src, dst;  /* its first corrupted message in (src, dst) order: the one reported */
    char msg[256];
    int64_t flipped; /* flipped (= detected) blocking messages up to and including that collective */
} block_fail;

static int predict_blocking(const fault_job *J, block_fail *bf)
{
    const int P = J->P;
    int64_t seq[COMM_MAX_RANKS * COMM_MAX_RANKS] = { 0 };
    memset(bf, 0, sizeof *bf);
    bf->at = -1;
    for (int b = 0; b < J->block; b++) {
        for (int src = 0; src < P; src++)
            for (int dst = 0; dst < P; dst++) {
                const int64_t n = J->C[((J->steps + b) * P + src) * P + dst];
                if (src == dst || n == 0)
                    continue;
                const int64_t k = seq[src * P + dst]++;
                const spec_addr a = fault_addr(J, 0, k, src, dst);
                if (!(spec_float(&a, 2) < J->flip))
                    continue;
                bf->flipped++;
                if (bf->at >= 0)
                    continue;
                /* the bit: integer draw 2 in [0, 8 * bytes) */
                const size_t bytes = (size_t)n * 4;
                int32_t *v = malloc(bytes);
                if (!v)
                    return 0;
                gnn_oracle_comm_fill(J->cs, fault_stream(J->steps + b, src, dst), v, n, GNN_DT_I32);
                const uint32_t sent = gnn_crc32c(0, v, bytes);
                const uint64_t bit = spec_uint(&a, 2, 8 * (uint64_t)bytes);
                ((uint8_t *)v)[bit / 8] ^= (uint8_t)(1u << (bit % 8));
                const uint32_t got = gnn_crc32c(0, v, bytes);
                free(v);
                bf->at = b;
                bf->src = src;
                bf->dst = dst;
                snprintf(bf->msg, sizeof bf->msg,
                         "corrupted message: CRC32C mismatch in alltoallv from rank %d to rank %d (%zu bytes, sent "
                         "0x%08x, received 0x%08x)",
                         src, dst, bytes, sent, got);
            }
        if (bf->at >= 0)
            return 1;
    }
    return 1;
}

static gnn_status fault_rank(gnn_comm *c, void *arg)
{
    fault_job *J = arg;
    const int P = J->P, me = c->rank;
    gnn_comm_spmd_result *out = &J->res[me];
    int64_t sc[COMM_MAX_RANKS], sd[COMM_MAX_RANKS], rc[COMM_MAX_RANKS], rd[COMM_MAX_RANKS];
    const size_t cap = (size_t)gnn_oracle_int(J->cs, F_MAXC) * COMM_MAX_RANKS + 1;
    int32_t *send = malloc(cap * 4), *want = malloc(cap * 4), *recv = malloc(cap * 4);
    gnn_status st = GNN_OK;
    if (!send || !want || !recv) {
        st = gnn_err_set(&c->err, GNN_ERR_NOMEM, "sim.faults: out of memory");
        goto done;
    }
    for (int s = 0; s < J->steps; s++) {
        int64_t tot = 0;
        for (int q = 0; q < P; q++) {
            sc[q] = J->C[((int64_t)s * P + me) * P + q];
            sd[q] = tot;
            gnn_oracle_comm_fill(J->cs, fault_stream(s, me, q), send + tot, sc[q], GNN_DT_I32);
            tot += sc[q];
        }
        gnn_comm_req *req = NULL;
        const gnn_comm_seg *seg;
        int n;
        if ((st = gnn_comm_ialltoallv(c, send, sc, sd, GNN_DT_I32, FAULT_TAG, &req)))
            goto done;
        st = gnn_comm_wait(c, req, &seg, &n);
        if (st) {
            gnn_comm_req_free(c, req);
            goto done;
        }
        /* expected: the segments due at this wait, by (step, src) */
        int k = 0;
        for (int s2 = 0; s2 <= s; s2++)
            for (int q = 0; q < P; q++) {
                const fate f = async_fate(J, s2, q, me);
                if (f.dropped || f.flipped || f.due != s)
                    continue;
                const int64_t cnt = J->C[((int64_t)s2 * P + q) * P + me];
                if (k >= n) {
                    gnn_oracle_comm_fail(out,
                                         "rank %d, wait of step %d: segment (src %d, step %d) missing: %d returned", me,
                                         s, q, s2, n);
                    k++;
                    continue;
                }
                if (seg[k].src != q || seg[k].step != s2 || seg[k].count != cnt) {
                    gnn_oracle_comm_fail(out,
                                         "rank %d, wait of step %d: segment %d is (src %d, step %lld, count %lld), "
                                         "expected (%d, %d, %lld)",
                                         me, s, k, seg[k].src, (long long)seg[k].step, (long long)seg[k].count, q, s2,
                                         (long long)cnt);
                } else {
                    gnn_oracle_comm_fill(J->cs, fault_stream(s2, q, me), want, cnt, GNN_DT_I32);
                    if (memcmp(seg[k].data, want, (size_t)cnt * 4) != 0)
                        gnn_oracle_comm_fail(out, "rank %d, wait of step %d: the data of (src %d, step %d) differ", me,
                                             s, q, s2);
                    out->crc = gnn_crc32c(out->crc, seg[k].data, (size_t)cnt * 4);
                }
                k++;
            }
        if (k != n)
            gnn_oracle_comm_fail(out, "rank %d, wait of step %d: %d segments returned, the fault keys give %d", me, s,
                                 n, k);
        gnn_comm_req_free(c, req);
    }
    block_fail bf;
    if (!predict_blocking(J, &bf)) {
        st = gnn_err_set(&c->err, GNN_ERR_NOMEM, "sim.faults: out of memory");
        goto done;
    }
    for (int b = 0; b < J->block; b++) {
        int64_t stot = 0, rtot = 0;
        for (int q = 0; q < P; q++) {
            sc[q] = J->C[((int64_t)(J->steps + b) * P + me) * P + q];
            rc[q] = J->C[((int64_t)(J->steps + b) * P + q) * P + me];
            sd[q] = stot;
            rd[q] = rtot;
            gnn_oracle_comm_fill(J->cs, fault_stream(J->steps + b, me, q), send + stot, sc[q], GNN_DT_I32);
            stot += sc[q];
            rtot += rc[q];
        }
        st = gnn_comm_alltoallv(c, send, sc, sd, recv, rc, rd, GNN_DT_I32);
        if (b == bf.at) { /* the run must stop here, on every rank, with the corrupted message */
            J->rank_st[me] = st;
            if (st != GNN_ERR_COMM)
                gnn_oracle_comm_fail(out, "rank %d: blocking alltoallv %d: status %s, expected GNN_ERR_COMM (a flipped "
                                                     "bit)",
                                                me, b, gnn_status_str(st));
            else if (strcmp(gnn_comm_errmsg(c) + (me == bf.dst ? 0 : strlen("aborted: ")), bf.msg) != 0)
                gnn_oracle_comm_fail(out, "rank %d: blocking alltoallv %d: \"%s\", expected \"%s%s\"", me, b,
                                     gnn_comm_errmsg(c), me == bf.dst ? "" : "aborted: ", bf.msg);
            st = GNN_OK; /* the failure was the expected outcome; the run reports it */
            goto done;
        }
        if (st)
            goto done;
        for (int q = 0; q < P; q++) {
            gnn_oracle_comm_fill(J->cs, fault_stream(J->steps + b, q, me), want, rc[q], GNN_DT_I32);
            if (memcmp(recv + rd[q], want, (size_t)rc[q] * 4) != 0)
                gnn_oracle_comm_fail(out, "rank %d: blocking alltoallv %d: the data from rank %d differ", me, b, q);
        }
        out->crc = gnn_crc32c(out->crc, recv, (size_t)rtot * 4);
    }
done:
    free(send);
    free(want);
    free(recv);
    return st;
}

static gnn_oracle_outcome faults_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int P = (int)gnn_oracle_int(c, F_RANKS);
    fault_job *J = gnn_oracle_alloc(ctx, sizeof *J);
    if (!J)
        return gnn_oracle_fail(ctx, "out of memory");
    *J = (fault_job){ .cs = c, .P = P, .steps = (int)gnn_oracle_int(c, F_STEPS), .block = (int)gnn_oracle_int(c, F_BLOCK),
                      .dsteps = (int)gnn_oracle_int(c, F_DSTEPS), .drop = gnn_oracle_real(c, F_DROP),
                      .delay = gnn_oracle_real(c, F_DELAY), .flip = gnn_oracle_real(c, F_FLIP) };
    if (J->delay > 0 && J->dsteps < 1)
        return gnn_oracle_fail(ctx, "invalid case: delay > 0 needs dsteps >= 1");
    const int64_t n = (int64_t)(J->steps + J->block) * P * P, maxc = gnn_oracle_int(c, F_MAXC);
    J->C = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)n);
    if (!J->C)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws d = gnn_oracle_draws_make(c, 1);
    for (int64_t i = 0; i < n; i++)
        J->C[i] = gnn_oracle_draw_range(&d, 0, maxc);
    for (int r = 0; r < P; r++)
        J->res[r].pass = 1;

    /* the verifier's count of every fault */
    int64_t dropped = 0, delayed = 0, flipped = 0, detected = 0, undelivered = 0;
    for (int s = 0; s < J->steps; s++)
        for (int src = 0; src < P; src++)
            for (int dst = 0; dst < P; dst++) {
                if (src == dst)
                    continue;
                const fate f = async_fate(J, s, src, dst);
                dropped += f.dropped;
                delayed += f.delayed;
                flipped += f.flipped;
                if (!f.dropped && f.due >= J->steps)
                    undelivered++;
                else if (f.flipped)
                    detected++;
            }
    block_fail bf;
    if (!predict_blocking(J, &bf))
        return gnn_oracle_fail(ctx, "out of memory");
    flipped += bf.flipped;
    detected += bf.flipped;

    gnn_sim_config cfg;
    gnn_sim_defaults(&cfg);
    cfg.ranks = P;
    cfg.timeout_s = 60;
    cfg.faults = (gnn_sim_faults){ .seed = c->seed, .drop_p = J->drop, .delay_p = J->delay, .delay_steps = J->dsteps,
                                   .flip_p = J->flip };
    gnn_sim_report rep;
    gnn_err err = { "" };
    const gnn_status st = gnn_sim_run(&cfg, fault_rank, J, &rep, &err);
    char want_msg[300] = "";
    if (bf.at >= 0)
        snprintf(want_msg, sizeof want_msg, "rank %d: %s", bf.dst, bf.msg);
    gnn_oracle_outcome o = GNN_ORACLE_PASS;
    if (bf.at < 0 && st)
        o = gnn_oracle_fail(ctx, "the run failed, but no blocking message is corrupted by the fault keys: %s", err.msg);
    else if (bf.at >= 0 && (st != GNN_ERR_COMM || strcmp(err.msg, want_msg) != 0))
        o = gnn_oracle_fail(ctx, "the run returned %s \"%s\"; the fault keys corrupt blocking alltoallv %d first from "
                            "rank %d to rank %d: expected GNN_ERR_COMM \"%s\"",
                            gnn_status_str(st), err.msg, bf.at, bf.src, bf.dst, want_msg);
    for (int r = 0; r < P && o == GNN_ORACLE_PASS; r++)
        if (!J->res[r].pass)
            o = gnn_oracle_fail(ctx, "%s", J->res[r].detail);
    if (o == GNN_ORACLE_PASS && rep.ranks == P &&
        (rep.faults_dropped != dropped || rep.faults_delayed != delayed || rep.faults_flipped != flipped ||
         rep.faults_detected != detected || rep.undelivered != undelivered))
        o = gnn_oracle_fail(ctx, "report: dropped %lld, delayed %lld, flipped %lld, detected %lld, undelivered %lld; "
                            "the fault keys give %lld, %lld, %lld, %lld, %lld",
                            (long long)rep.faults_dropped, (long long)rep.faults_delayed, (long long)rep.faults_flipped,
                            (long long)rep.faults_detected, (long long)rep.undelivered, (long long)dropped,
                            (long long)delayed, (long long)flipped, (long long)detected, (long long)undelivered);
    gnn_sim_report_free(&rep);
    for (int r = 0; r < P; r++)
        gnn_oracle_digest(ctx, &J->res[r].crc, sizeof J->res[r].crc);
    const int64_t counts[5] = { dropped, delayed, flipped, detected, undelivered };
    gnn_oracle_digest(ctx, counts, sizeof counts);
    gnn_oracle_note(ctx, "dropped %lld, delayed %lld, flipped %lld (detected %lld), undelivered %lld%s%s",
                    (long long)dropped, (long long)delayed, (long long)flipped, (long long)detected,
                    (long long)undelivered, bf.at >= 0 ? "; aborted: " : "", bf.at >= 0 ? bf.msg : "");
    return o;
}

const gnn_oracle_entry gnn_oracle_sim_faults = {
    .name = "sim.faults",
    .what = "the simulator's fault injection against its documented keys, recomputed from raw Philox: every wait's "
            "segments, the report's counters, the exact abort message of a corrupted blocking collective",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "every decision is a pure function of (seed, message identity): exact",
    .params = k_f_params, .n_params = N_F_PARAMS, .presets = k_f_presets,
    .ref = &gnn_oracle_comm_impl_sim, .impls = k_sim_only, .run = faults_run,
};
