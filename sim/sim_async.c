/* sim/sim_async.c -- the simulator's asynchronous alltoallv (ialltoallv, wait, req_free).
 *
 * Matching: a rank's posts on one tag are numbered 0, 1, 2, ... (its steps on that tag);
 * the step-th posts of all ranks form one exchange. Post copies every segment onto the wire
 * at once (the receiver never reads the sender's buffer) and puts it in the destination's
 * inbox, with the step of the destination's wait that will deliver it: its own step, or a
 * later one when the fault injection delays it. wait(step s) blocks until every rank has
 * posted step s on the tag -- from then on nothing more can arrive for step s, so the
 * segments it returns do not depend on thread timing -- and takes the inbox segments due at
 * s, sorted by (step, src).
 *
 * The send buffer must not change before the wait: post keeps a CRC32C of the user's send
 * segments and wait recomputes it over the user's buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnnref/crc32c.h"
#include "sim/sim_internal.h"

/* CRC32C of the send segments, in destination order (the bytes the post promised to keep) */
static uint32_t send_crc(const void *send, const int64_t *scounts, const int64_t *sdispls, size_t s, int P)
{
    uint32_t crc = 0;
    for (int q = 0; q < P; q++)
        if (scounts[q] > 0)
            crc = gnn_crc32c(crc, (const char *)send + (size_t)sdispls[q] * s, (size_t)scounts[q] * s);
    return crc;
}

static void msg_free(sim_msg *m)
{
    if (m) {
        free(m->data);
        free(m);
    }
}

static void req_destroy(sim_req *q)
{
    if (!q)
        return;
    for (int i = 0; i < q->n_segs; i++)
        free(q->bufs[i]);
    free(q->segs);
    free(q->bufs);
    free(q->scounts);
    free(q);
}

/* Room for one more segment in R's inbox (mutex held). */
static int inbox_reserve(sim_rank *R)
{
    if (R->n_inbox < R->cap_inbox)
        return 1;
    const size_t cap = R->cap_inbox ? 2 * R->cap_inbox : 16;
    sim_msg **p = realloc(R->inbox, cap * sizeof *p);
    if (!p)
        return 0;
    R->inbox = p;
    R->cap_inbox = cap;
    return 1;
}

gnn_status sim_ialltoallv(gnn_comm *c, const void *send, const int64_t *scounts, const int64_t *sdispls,
                          gnn_dtype t, int tag, gnn_comm_req **req)
{
    sim_rank *R = c->impl;
    sim_world *W = R->W;
    const int P = W->P, me = R->rank;
    const size_t s = gnn_dtype_size(t);
    const gnn_sim_faults *F = &W->cfg.faults;

    /* the wire copies: this rank's own memory until they enter an inbox, so no lock yet */
    sim_req *q = calloc(1, sizeof *q);
    sim_msg **m = calloc((size_t)P, sizeof *m);
    int ok = q && m && (q->scounts = malloc(sizeof(int64_t) * 2 * (size_t)P));
    for (int dst = 0; ok && dst < P; dst++) {
        const size_t bytes = (size_t)scounts[dst] * s;
        if (!(m[dst] = calloc(1, sizeof **m)) || !(m[dst]->data = malloc(bytes + 1))) {
            ok = 0;
            break;
        }
        memcpy(m[dst]->data, (const char *)send + (size_t)sdispls[dst] * s, bytes);
        m[dst]->bytes = bytes;
        m[dst]->crc = W->checksums ? gnn_crc32c(0, m[dst]->data, bytes) : 0; /* fixed for the run: no lock */
    }
    if (!ok) {
        for (int dst = 0; m && dst < P; dst++)
            msg_free(m[dst]);
        free(m);
        req_destroy(q);
        return gnn_err_set(&c->err, GNN_ERR_NOMEM, "ialltoallv: out of memory");
    }
    q->sdispls = q->scounts + P;
    memcpy(q->scounts, scounts, sizeof(int64_t) * (size_t)P);
    memcpy(q->sdispls, sdispls, sizeof(int64_t) * (size_t)P);
    q->send = send;
    q->send_crc = send_crc(send, scounts, sdispls, s, P);
    q->tag = tag;
    q->dtype = t;
    q->call = c->call;

    gnn_status st = GNN_OK;
    pthread_mutex_lock(&W->mu);
    sim_enter(R);
    if (W->aborted) {
        st = sim_aborted(R);
        goto fail;
    }
    for (int dst = 0; dst < P; dst++)
        if (!inbox_reserve(&W->ranks[dst])) {
            sim_abort(W, me, GNN_ERR_NOMEM, "ialltoallv: out of memory for the inbox of rank %d", dst);
            st = sim_aborted(R);
            goto fail;
        }
    q->step = R->posted[tag];
    for (int dst = 0; dst < P; dst++) {
        sim_msg *x = m[dst];
        m[dst] = NULL;
        x->src = me;
        x->tag = tag;
        x->step = x->due = q->step;
        x->count = scounts[dst];
        x->call = c->call;
        /* posting costs the sender nothing; the segment arrives alpha + bytes / beta later */
        x->arrival = R->clock + (dst != me && x->bytes > 0 ? sim_msg_time(W, x->bytes) : 0.0);
        if (dst != me) {
            const size_t i = (size_t)me * (size_t)P + (size_t)dst;
            W->bytes_moved[i] += (int64_t)x->bytes; /* on the wire, whatever becomes of it */
            /* fault decisions (docs/simulator.md, "Fault model"): drop, else delay and/or flip */
            if (sim_fault_hit(W, SIM_FAULT_LAYER_ASYNC, tag, q->step, me, dst, SIM_DRAW_DROP, F->drop_p)) {
                W->faults_dropped++;
                msg_free(x);
                continue;
            }
            if (sim_fault_hit(W, SIM_FAULT_LAYER_ASYNC, tag, q->step, me, dst, SIM_DRAW_DELAY, F->delay_p)) {
                x->due += F->delay_steps;
                W->faults_delayed++;
            }
            if (x->bytes > 0 &&
                sim_fault_hit(W, SIM_FAULT_LAYER_ASYNC, tag, q->step, me, dst, SIM_DRAW_FLIP, F->flip_p)) {
                sim_fault_flip(W, SIM_FAULT_LAYER_ASYNC, tag, q->step, me, dst, x->data, x->bytes);
                W->faults_flipped++;
            }
        }
        sim_rank *D = &W->ranks[dst];
        D->inbox[D->n_inbox++] = x;
    }
    R->posted[tag]++;
    pthread_cond_broadcast(&W->cv); /* a rank waiting for this step may go on */
    sim_leave(R);
    pthread_mutex_unlock(&W->mu);
    free(m);
    *req = (gnn_comm_req *)q;
    return GNN_OK;
fail:
    sim_leave(R);
    pthread_mutex_unlock(&W->mu);
    for (int dst = 0; dst < P; dst++)
        msg_free(m[dst]);
    free(m);
    req_destroy(q);
    return st;
}

/* Has every rank posted the step this rank waits for? */
int sim_wait_ready(const sim_rank *R)
{
    const sim_world *W = R->W;
    for (int q = 0; q < W->P; q++)
        if (W->ranks[q].posted[R->wait_tag] <= R->wait_step)
            return 0;
    return 1;
}

/* "rank 0, rank 2": the ranks that have not posted the awaited step */
void sim_wait_missing(const sim_rank *R, char *buf, size_t len)
{
    const sim_world *W = R->W;
    size_t n = 0;
    buf[0] = '\0';
    for (int q = 0; q < W->P && n + 1 < len; q++)
        if (W->ranks[q].posted[R->wait_tag] <= R->wait_step) {
            int k = snprintf(buf + n, len - n, "%srank %d", n ? ", " : "", q);
            if (k < 0)
                break;
            n += (size_t)k;
        }
}

/* by (step, src): the order wait promises */
static int seg_cmp(const void *a, const void *b)
{
    const gnn_comm_seg *x = a, *y = b;
    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    return (x->src > y->src) - (x->src < y->src);
}

gnn_status sim_wait(gnn_comm *c, gnn_comm_req *req, const gnn_comm_seg **segs, int *n_segs)
{
    sim_rank *R = c->impl;
    sim_world *W = R->W;
    sim_req *q = (sim_req *)req;
    const int tag = q->tag;
    *segs = NULL;
    *n_segs = 0;
    if (q->waited)
        return gnn_err_set(&c->err, GNN_ERR_COMM, "wait: ialltoallv(tag %d, step %lld) was already waited", tag,
                           (long long)q->step);
    /* the user's send buffer, read by its own thread: no lock needed */
    const uint32_t crc_now = send_crc(q->send, q->scounts, q->sdispls, gnn_dtype_size(q->dtype), W->P);

    gnn_status st = GNN_OK;
    pthread_mutex_lock(&W->mu);
    sim_enter(R);
    if (W->aborted) {
        st = sim_aborted(R);
        goto out;
    }
    if (q->step != R->waited[tag]) {
        st = gnn_err_set(&c->err, GNN_ERR_COMM,
                         "wait: tag %d: step %lld waited before step %lld (waits on one tag must come in post order)",
                         tag, (long long)q->step, (long long)R->waited[tag]);
        goto out;
    }
    if (crc_now != q->send_crc) {
        st = gnn_err_set(&c->err, GNN_ERR_COMM, "rank %d modified the send buffer of ialltoallv(tag %d, step %lld) "
                                                "before its wait", R->rank, tag, (long long)q->step);
        goto out;
    }
    R->wait_tag = tag;
    R->wait_step = q->step;
    if ((st = sim_block(R, SIM_BLOCKED_WAIT)))
        goto out;

    /* every rank has posted this step: take the segments due now out of the inbox */
    size_t n_due = 0;
    for (size_t i = 0; i < R->n_inbox; i++)
        n_due += R->inbox[i]->tag == tag && R->inbox[i]->due == q->step;
    q->segs = malloc(sizeof *q->segs * (n_due + 1));
    q->bufs = malloc(sizeof *q->bufs * (n_due + 1));
    if (!q->segs || !q->bufs) {
        sim_abort(W, R->rank, GNN_ERR_NOMEM, "wait: out of memory for %zu segments", n_due);
        st = sim_aborted(R);
        goto out;
    }
    size_t keep = 0;
    double latest = R->clock;
    for (size_t i = 0; i < R->n_inbox; i++) {
        sim_msg *x = R->inbox[i];
        if (x->tag != tag || x->due != q->step) {
            R->inbox[keep++] = x;
            continue;
        }
        if (x->call.dtype != q->dtype && !W->aborted) {
            char mine[192], theirs[192];
            sim_abort(W, R->rank, GNN_ERR_COMM,
                      "ialltoallv mismatch (different element types): rank %d posted %s; rank %d posted %s", R->rank,
                      gnn_comm_call_str(&q->call, mine, sizeof mine), x->src,
                      gnn_comm_call_str(&x->call, theirs, sizeof theirs));
        }
        if (x->src != R->rank && W->checksums && gnn_crc32c(0, x->data, x->bytes) != x->crc) {
            W->faults_detected++; /* a flipped bit: the segment is discarded */
            msg_free(x);
            continue;
        }
        if (x->arrival > latest)
            latest = x->arrival;
        q->segs[q->n_segs] = (gnn_comm_seg){ .src = x->src, .step = x->step, .count = x->count, .data = x->data };
        q->bufs[q->n_segs++] = x->data; /* the request owns the data now */
        free(x);
    }
    R->n_inbox = keep;
    if (W->aborted) {
        st = sim_aborted(R);
        goto out;
    }
    qsort(q->segs, (size_t)q->n_segs, sizeof *q->segs, seg_cmp);
    R->clock = latest; /* the wait ends when the last segment it returns has arrived */
    R->waited[tag]++;
    q->waited = 1;
    *segs = q->segs;
    *n_segs = q->n_segs;
out:
    sim_leave(R);
    pthread_mutex_unlock(&W->mu);
    return st;
}

/* Free a request (waited or not). The segments of a request never waited stay in the
 * inboxes and are counted as undelivered at the end of the run. */
void sim_req_free(gnn_comm *c, gnn_comm_req *req) { req_destroy((sim_req *)req); }
