/* sim/sim.c -- the multi-rank simulator: P ranks as threads in one process (include/gnnref/sim.h,
 * docs/simulator.md).
 *
 * This file holds the run (threads, report), the machinery every operation shares (the
 * virtual clocks, the abort, the bounded wait with deadlock detection, the fault keying)
 * and the ops table. The blocking collectives are in sim_coll.c, the asynchronous
 * alltoallv in sim_async.c.
 *
 * Concurrency, in one sentence: all shared state lives in one sim_world and is touched only
 * with its one mutex held; a rank that must wait sleeps on the one condition variable, which
 * is broadcast whenever something a waiter may be waiting for changes. A simulator does not
 * need to be fast; it needs to be obviously free of races, so that every report it makes is
 * about the program under test and never about itself. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "gnnref/rng.h"
#include "sim/sim_internal.h"

void gnn_sim_defaults(gnn_sim_config *c)
{
    memset(c, 0, sizeof *c);
    c->ranks = 1;
    c->alpha_s = 2e-6;     /* 2 us per message */
    c->beta_Bps = 12.5e9;  /* 100 Gb/s */
    c->timeout_s = 60.0;
    c->threads_per_rank = 1;
    c->wire_crc = 1;
}

/* ---- clocks --------------------------------------------------------------------------- */

static double ts_seconds(const struct timespec *t) { return (double)t->tv_sec + 1e-9 * (double)t->tv_nsec; }

/* CPU time of the calling thread: what this rank computed, whatever else the machine runs.
 * Wall time would charge a rank for the time the OS gave the other ranks' threads. */
double sim_thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return ts_seconds(&t);
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return ts_seconds(&t);
}

/* At the entry of every comm call (mutex held): the CPU time since the previous call
 * returned was compute; it advances the virtual clock. */
void sim_enter(sim_rank *R)
{
    double dt = sim_thread_cpu() - R->cpu_mark;
    if (dt < 0)
        dt = 0;
    R->compute += dt;
    R->clock += dt;
}

/* At the return of every comm call: compute is measured from here. The CPU time the
 * simulator itself spends inside a call (copies, checksums) is not the program's. */
void sim_leave(sim_rank *R) { R->cpu_mark = sim_thread_cpu(); }

/* alpha + bytes / beta: the cost of one message */
double sim_msg_time(const sim_world *W, size_t bytes) { return W->cfg.alpha_s + (double)bytes / W->cfg.beta_Bps; }

/* ---- abort, describe, block ----------------------------------------------------------- */

/* Mark rank `rank` as a failing rank with its own error (mutex held; docs/simulator.md,
 * "Which error a run reports"); its first error is the one it keeps. */
static void set_failing(sim_world *W, int rank, gnn_status st, const char *msg)
{
    sim_rank *R = &W->ranks[rank];
    if (R->failing)
        return;
    R->failing = 1;
    R->fail_status = st;
    snprintf(R->fail_msg, sizeof R->fail_msg, "%s", msg);
}

/* A check of the simulator charges an error to `rank` (mutex held): the rank becomes a
 * failing rank, and the first error in time stops the run and wakes every rank. The rank it
 * is charged to returns the message itself; every other rank that is or later gets inside a
 * comm call returns "aborted: <message>" and is then only woken, not failing. The checks
 * run inside comm calls, which all return at once after the abort, so only the first one
 * counts (and of several found in one critical section, the first). */
void sim_abort(sim_world *W, int rank, gnn_status st, const char *fmt, ...)
{
    if (W->aborted)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(W->abort_msg, sizeof W->abort_msg, fmt, ap);
    va_end(ap);
    set_failing(W, rank, st, W->abort_msg);
    W->aborted = 1;
    W->abort_rank = rank;
    pthread_cond_broadcast(&W->cv);
}

gnn_status sim_aborted(sim_rank *R)
{
    const sim_world *W = R->W;
    if (R->failing)
        return gnn_err_set(&R->comm->err, R->fail_status, "%s", R->fail_msg);
    R->woken = 1; /* whatever this rank does next is a consequence of another rank's error */
    return gnn_err_set(&R->comm->err, GNN_ERR_COMM, "aborted: %s", W->abort_msg);
}

/* What rank q is doing, for error messages (mutex held). `verb` introduces a blocking
 * collective it has entered: "called" in a mismatch report, "blocked in" in a deadlock. */
static void describe_rank(const sim_world *W, int q, const char *verb, char *buf, size_t len)
{
    const sim_rank *R = &W->ranks[q];
    char call[192];
    if (R->state == SIM_EXITED) {
        if (R->status == GNN_OK)
            snprintf(buf, len, "rank %d exited", q);
        else
            snprintf(buf, len, "rank %d exited with an error (%s)", q, gnn_status_str(R->status));
    } else if (R->state == SIM_BLOCKED_WAIT) {
        sim_wait_missing(R, call, sizeof call);
        snprintf(buf, len, "rank %d blocked in wait(ialltoallv tag %d step %lld) for %s", q, R->wait_tag,
                 (long long)R->wait_step, call);
    } else if (R->arrived == W->done) {
        /* entered the blocking collective being gathered (blocked, or the rank reporting) */
        snprintf(buf, len, "rank %d %s %s", q, verb, gnn_comm_call_str(&R->slot.call, call, sizeof call));
    } else {
        snprintf(buf, len, "rank %d running", q);
    }
}

/* Every rank's state, "; "-separated (truncated to len; error messages are bounded). */
void sim_describe_ranks(const sim_world *W, const char *verb, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int q = 0; q < W->P && n + 1 < len; q++) {
        char one[320];
        describe_rank(W, q, verb, one, sizeof one);
        int k = snprintf(buf + n, len - n, "%s%s", q ? "; " : "", one);
        if (k < 0)
            break;
        n += (size_t)k;
    }
}

/* Could this blocked rank go on (its wait condition holds)? */
static int rank_ready(const sim_rank *R)
{
    switch (R->state) {
    case SIM_BLOCKED_COLL:
        return sim_coll_ready(R);
    case SIM_BLOCKED_WAIT:
        return sim_wait_ready(R);
    default:
        return 0;
    }
}

/* Deadlock: no rank is running and no blocked rank's condition holds, so nothing can ever
 * change (a condition is made true only by a running rank). Checked whenever a rank blocks
 * or exits, the only two transitions that can lead there. The error is charged to the
 * lowest blocked rank, so the run's message does not depend on thread timing. */
static void check_deadlock(sim_world *W)
{
    if (W->aborted)
        return;
    int lowest_blocked = -1;
    for (int q = 0; q < W->P; q++) {
        const sim_rank *R = &W->ranks[q];
        if (R->state == SIM_RUNNING)
            return;
        if (R->state == SIM_EXITED)
            continue;
        if (rank_ready(R))
            return;
        if (lowest_blocked < 0)
            lowest_blocked = q;
    }
    if (lowest_blocked < 0)
        return; /* everybody exited: the run is over */
    char who[sizeof W->abort_msg];
    sim_describe_ranks(W, "blocked in", who, sizeof who);
    sim_abort(W, lowest_blocked, GNN_ERR_COMM, "deadlock: %s", who);
}

/* Block the calling rank (mutex held) until its condition holds, the run aborts, or
 * cfg.timeout_s passes. Nothing waits without a bound. */
gnn_status sim_block(sim_rank *R, sim_state st)
{
    sim_world *W = R->W;
    R->state = st;
    if (!rank_ready(R))
        check_deadlock(W);
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    const double t = W->cfg.timeout_s;
    deadline.tv_sec += (time_t)t;
    deadline.tv_nsec += (long)((t - (double)(time_t)t) * 1e9);
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000L;
    }
    while (!rank_ready(R)) {
        if (W->aborted) {
            R->state = SIM_RUNNING;
            return sim_aborted(R);
        }
        if (pthread_cond_timedwait(&W->cv, &W->mu, &deadline) == ETIMEDOUT && !rank_ready(R) && !W->aborted) {
            char who[sizeof W->abort_msg];
            sim_describe_ranks(W, "blocked in", who, sizeof who);
            sim_abort(W, R->rank, GNN_ERR_COMM, "timeout: rank %d waited %g s; %s", R->rank, t, who);
        }
    }
    R->state = SIM_RUNNING;
    return GNN_OK;
}

/* ---- fault keying ------------------------------------------------------------------------ */

/* Philox (seed, GNN_TAG_FAULT, step, layer, id) with id = tag << 32 | (src * P + dst):
 * every decision is a function of the message's identity, never of thread timing. */
static gnn_rng_stream fault_stream(const sim_world *W, unsigned layer, int tag, int64_t step, int src, int dst)
{
    const uint64_t id = (uint64_t)(unsigned)tag << 32 | (uint64_t)((int64_t)src * W->P + dst);
    return gnn_rng_stream_make(W->cfg.faults.seed, GNN_TAG_FAULT, (uint32_t)step, layer, id);
}

/* Float draw `draw` < p. p <= 0 never hits (and draws nothing); p >= 1 always does. */
int sim_fault_hit(const sim_world *W, unsigned layer, int tag, int64_t step, int src, int dst, unsigned draw,
                  double p)
{
    if (p <= 0)
        return 0;
    const gnn_rng_stream s = fault_stream(W, layer, tag, step, src, dst);
    return (double)gnn_rng_float(&s, draw) < p;
}

/* Flip one bit of a wire copy: bit number = integer draw 2 in [0, 8 * bytes). */
void sim_fault_flip(const sim_world *W, unsigned layer, int tag, int64_t step, int src, int dst, void *data,
                    size_t bytes)
{
    const gnn_rng_stream s = fault_stream(W, layer, tag, step, src, dst);
    const uint64_t bit = gnn_rng_uint(&s, 2, (uint64_t)bytes * 8);
    ((unsigned char *)data)[bit / 8] ^= (unsigned char)(1u << (bit % 8));
}

/* ---- the ops table ---------------------------------------------------------------------- */

/* The handle's impl is the rank's sim_rank, owned by the world: nothing to free here. */
static void sim_destroy(gnn_comm *c) { c->impl = NULL; }

static const gnn_comm_ops k_sim_ops = {
    .name = "sim",
    .barrier = sim_barrier,
    .bcast = sim_bcast,
    .allgatherv = sim_allgatherv,
    .alltoallv = sim_alltoallv,
    .ialltoallv = sim_ialltoallv,
    .wait = sim_wait,
    .req_free = sim_req_free,
    .allreduce = NULL, /* the generic deterministic allreduce of core/dist/comm.c: same bits as MPI */
    .destroy = sim_destroy,
};

/* ---- the run ------------------------------------------------------------------------------ */

static void *rank_main(void *p)
{
    sim_rank *R = p;
    sim_world *W = R->W;
#if defined(_OPENMP)
    /* per thread: the ICV of this rank's thread, not of the process */
    omp_set_num_threads(W->cfg.threads_per_rank);
#endif
    R->cpu_mark = sim_thread_cpu();
    const gnn_status st = R->fn(R->comm, R->arg);

    pthread_mutex_lock(&W->mu);
    sim_enter(R); /* the compute after its last comm call */
    R->status = st;
    R->state = SIM_EXITED;
    /* A failed rank will never join the collectives the others are in or will enter: its
     * error stops the run. After another rank's error it is still a failing rank of its
     * own, unless one of its comm calls returned that error (then it is a consequence). */
    if (st != GNN_OK && !R->woken && !R->failing) {
        char msg[sizeof R->fail_msg];
        snprintf(msg, sizeof msg, "rank %d failed (%s): %s", R->rank, gnn_status_str(st), gnn_comm_errmsg(R->comm));
        if (W->aborted)
            set_failing(W, R->rank, st, msg);
        else
            sim_abort(W, R->rank, st, "%s", msg);
    }
    check_deadlock(W); /* others may be waiting for this rank */
    pthread_mutex_unlock(&W->mu);
    return NULL;
}

static gnn_status check_config(const gnn_sim_config *cfg, gnn_err *err)
{
    const gnn_sim_faults *f = &cfg->faults;
    if (cfg->ranks < 1 || cfg->ranks > SIM_MAX_RANKS)
        return gnn_err_set(err, GNN_ERR_INVAL, "sim: ranks = %d is outside [1, %d]", cfg->ranks, SIM_MAX_RANKS);
    if (!(cfg->alpha_s >= 0) || !(cfg->beta_Bps > 0))
        return gnn_err_set(err, GNN_ERR_INVAL, "sim: alpha = %g s must be >= 0 and beta = %g B/s > 0", cfg->alpha_s,
                           cfg->beta_Bps);
    if (!(cfg->timeout_s > 0) || cfg->timeout_s > 1e6)
        return gnn_err_set(err, GNN_ERR_INVAL, "sim: timeout = %g s is outside (0, 1e6]", cfg->timeout_s);
    if (cfg->threads_per_rank < 1)
        return gnn_err_set(err, GNN_ERR_INVAL, "sim: threads_per_rank = %d must be >= 1", cfg->threads_per_rank);
    if (!(f->drop_p >= 0 && f->drop_p <= 1) || !(f->delay_p >= 0 && f->delay_p <= 1) ||
        !(f->flip_p >= 0 && f->flip_p <= 1) || !(f->drop_blocking_p >= 0 && f->drop_blocking_p <= 1))
        return gnn_err_set(err, GNN_ERR_INVAL,
                           "sim: fault probabilities drop %g, delay %g, flip %g, drop-blocking %g must be in [0, 1]",
                           f->drop_p, f->delay_p, f->flip_p, f->drop_blocking_p);
    if (f->delay_p > 0 && f->delay_steps < 1)
        return gnn_err_set(err, GNN_ERR_INVAL, "sim: delay_steps = %d must be >= 1 when delay_p > 0", f->delay_steps);
    return GNN_OK;
}

static void world_free(sim_world *W)
{
    if (!W)
        return;
    if (W->ranks)
        for (int r = 0; r < W->P; r++) {
            sim_rank *R = &W->ranks[r];
            for (size_t i = 0; i < R->n_inbox; i++) {
                free(R->inbox[i]->data);
                free(R->inbox[i]);
            }
            free(R->inbox);
            gnn_comm_free(R->comm);
        }
    free(W->ranks);
    free(W->bytes_moved);
    free(W->msg_seq);
    pthread_cond_destroy(&W->cv);
    pthread_mutex_destroy(&W->mu);
    free(W);
}

static gnn_status world_create(const gnn_sim_config *cfg, gnn_spmd_fn fn, void *arg, sim_world **out)
{
    *out = NULL;
    sim_world *W = calloc(1, sizeof *W);
    if (!W)
        return GNN_ERR_NOMEM;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* timeouts immune to wall-clock changes */
    pthread_cond_init(&W->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&W->mu, NULL);
    W->cfg = *cfg;
    W->checksums = cfg->wire_crc || cfg->faults.flip_p > 0;
    const int P = W->P = cfg->ranks;
    W->ranks = calloc((size_t)P, sizeof *W->ranks);
    W->bytes_moved = calloc((size_t)P * (size_t)P, sizeof(int64_t));
    W->msg_seq = calloc((size_t)P * (size_t)P, sizeof(int64_t));
    if (!W->ranks || !W->bytes_moved || !W->msg_seq)
        goto nomem;
    for (int r = 0; r < P; r++) {
        sim_rank *R = &W->ranks[r];
        R->W = W;
        R->rank = r;
        R->fn = fn;
        R->arg = arg;
        R->arrived = -1;
        R->state = SIM_RUNNING;
        if (gnn_comm_alloc(&k_sim_ops, r, P, R, &R->comm))
            goto nomem;
    }
    *out = W;
    return GNN_OK;
nomem:
    world_free(W);
    return GNN_ERR_NOMEM;
}

static gnn_status fill_report(const sim_world *W, double wall_s, gnn_sim_report *rep)
{
    const int P = W->P;
    const size_t PP = (size_t)P * (size_t)P, OPP = (size_t)GNN_COMM_OP_COUNT * PP;
    memset(rep, 0, sizeof *rep);
    rep->ranks = P;
    rep->wall_s = wall_s;
    rep->clock_s = malloc(sizeof(double) * (size_t)P);
    rep->compute_s = malloc(sizeof(double) * (size_t)P);
    rep->comm_s = malloc(sizeof(double) * (size_t)P);
    rep->rank_status = malloc(sizeof(gnn_status) * (size_t)P);
    rep->rank_failing = malloc(sizeof(int) * (size_t)P);
    rep->bytes = malloc(sizeof(int64_t) * OPP);
    rep->msgs = malloc(sizeof(int64_t) * OPP);
    rep->bytes_moved = malloc(sizeof(int64_t) * PP);
    if (!rep->clock_s || !rep->compute_s || !rep->comm_s || !rep->rank_status || !rep->rank_failing || !rep->bytes || !rep->msgs ||
        !rep->bytes_moved) {
        gnn_sim_report_free(rep);
        return GNN_ERR_NOMEM;
    }
    for (int r = 0; r < P; r++) {
        const sim_rank *R = &W->ranks[r];
        rep->clock_s[r] = R->clock;
        rep->compute_s[r] = R->compute;
        rep->comm_s[r] = R->clock - R->compute;
        rep->rank_status[r] = R->status;
        rep->rank_failing[r] = R->failing;
        rep->undelivered += (int64_t)R->n_inbox;
        /* the wrappers' per-rank counts [op][dst] become [op][src][dst] */
        for (int op = 0; op < GNN_COMM_OP_COUNT; op++)
            for (int dst = 0; dst < P; dst++) {
                const size_t o = ((size_t)op * (size_t)P + (size_t)r) * (size_t)P + (size_t)dst;
                rep->bytes[o] = R->comm->traffic.bytes[(size_t)op * (size_t)P + (size_t)dst];
                rep->msgs[o] = R->comm->traffic.msgs[(size_t)op * (size_t)P + (size_t)dst];
            }
    }
    memcpy(rep->bytes_moved, W->bytes_moved, sizeof(int64_t) * PP);
    rep->faults_dropped = W->faults_dropped;
    rep->faults_delayed = W->faults_delayed;
    rep->faults_flipped = W->faults_flipped;
    rep->faults_detected = W->faults_detected;
    return GNN_OK;
}

/* "rank R: <msg>", or just <msg> when it already starts with "rank R "; cut to len (>= 4),
 * ending in "..." when it did not fit */
static void rank_msg(char *buf, size_t len, int rank, const char *msg)
{
    char prefix[32];
    snprintf(prefix, sizeof prefix, "rank %d ", rank);
    const int named = strncmp(msg, prefix, strlen(prefix)) == 0;
    const int k = named ? snprintf(buf, len, "%s", msg) : snprintf(buf, len, "rank %d: %s", rank, msg);
    if (k < 0 || (size_t)k >= len)
        memcpy(buf + len - 4, "...", 4);
}

/* The run's error (after the join): the lowest failing rank's, then the others' in rank
 * order, "... [also failing: rank 2 ...; rank 5 ...]". Which ranks fail does not depend on
 * which error came first in time, so neither does the message. The list keeps up to half of
 * the message; the lowest rank's error is cut first. */
static gnn_status report_failing(const sim_world *W, gnn_err *err)
{
    int lowest = -1;
    for (int q = 0; q < W->P && lowest < 0; q++)
        if (W->ranks[q].failing)
            lowest = q;
    if (lowest < 0) /* cannot happen: every abort charges a rank */
        return gnn_err_set(err, GNN_ERR_INTERNAL, "sim: the run aborted with no failing rank: %s", W->abort_msg);
    const sim_rank *L = &W->ranks[lowest];
    char also[sizeof err->msg / 2], one[sizeof err->msg];
    const size_t room = sizeof also - 5; /* "...]" and the NUL always fit after it */
    size_t n = 0;
    int cut = 0;
    for (int q = lowest + 1; q < W->P && !cut; q++) {
        if (!W->ranks[q].failing)
            continue;
        rank_msg(one, sizeof one, q, W->ranks[q].fail_msg);
        const int k = snprintf(also + n, room - n, "%s%s", n ? "; " : " [also failing: ", one);
        if (k < 0 || (size_t)k >= room - n) {
            n = room - 1;
            cut = 1;
        } else {
            n += (size_t)k;
        }
    }
    also[n] = '\0';
    if (n)
        memcpy(also + n, cut ? "...]" : "]", cut ? 5 : 2);
    char main_msg[sizeof err->msg];
    rank_msg(main_msg, sizeof main_msg - strlen(also), lowest, L->fail_msg);
    return gnn_err_set(err, L->fail_status, "%s%s", main_msg, also);
}

gnn_status gnn_sim_run(const gnn_sim_config *cfg, gnn_spmd_fn fn, void *arg, gnn_sim_report *rep, gnn_err *err)
{
    if (rep)
        memset(rep, 0, sizeof *rep);
    if (!cfg || !fn)
        return gnn_err_set(err, GNN_ERR_INVAL, "sim: %s is NULL", cfg ? "fn" : "cfg");
    gnn_status st = check_config(cfg, err);
    if (st)
        return st;
    sim_world *W;
    if ((st = world_create(cfg, fn, arg, &W)))
        return gnn_err_set(err, st, "sim: out of memory for %d ranks", cfg->ranks);

    const double t0 = wall_now();
    for (int r = 0; r < W->P; r++) {
        sim_rank *R = &W->ranks[r];
        const int rc = pthread_create(&R->thread, NULL, rank_main, R);
        if (rc != 0) {
            /* the ranks already running fail at their next comm call instead of waiting */
            pthread_mutex_lock(&W->mu);
            for (int q = r; q < W->P; q++) {
                W->ranks[q].state = SIM_EXITED;
                W->ranks[q].status = GNN_ERR_NOMEM;
            }
            sim_abort(W, r, GNN_ERR_NOMEM, "could not start the thread of rank %d (%s)", r, strerror(rc));
            pthread_mutex_unlock(&W->mu);
            break;
        }
        R->started = 1;
    }
    for (int r = 0; r < W->P; r++)
        if (W->ranks[r].started)
            pthread_join(W->ranks[r].thread, NULL);
    const double wall_s = wall_now() - t0;

    /* every thread has been joined: the world is ours alone from here on */
    st = W->aborted ? report_failing(W, err) : GNN_OK;
    if (rep && fill_report(W, wall_s, rep) != GNN_OK && st == GNN_OK)
        st = gnn_err_set(err, GNN_ERR_NOMEM, "sim: out of memory for the report");
    world_free(W);
    return st;
}

void gnn_sim_report_free(gnn_sim_report *rep)
{
    if (!rep)
        return;
    free(rep->clock_s);
    free(rep->compute_s);
    free(rep->comm_s);
    free(rep->bytes);
    free(rep->msgs);
    free(rep->bytes_moved);
    free(rep->rank_status);
    free(rep->rank_failing);
    memset(rep, 0, sizeof *rep);
}
