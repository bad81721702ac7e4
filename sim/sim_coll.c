/* sim/sim_coll.c -- the simulator's blocking collectives: barrier, bcast, allgatherv, alltoallv
 * (an allreduce reaches us as an alltoallv and an allgatherv, core/dist/comm.c).
 *
 * One rendezvous serves them all. Blocking collectives are numbered 0, 1, 2, ... in the
 * order every rank calls them (the world's `done` counter is the number being gathered).
 * Each rank that enters records its call and its buffers in its slot, compares them with
 * the ranks already there (a mismatch is reported at once, with every rank's call), and
 * waits. The last rank to arrive does the work for everybody -- ranks share one address
 * space -- while holding the mutex: it puts every message on the wire (a staging copy),
 * checks each one's CRC32C on delivery, counts the bytes, advances every clock by the
 * alpha-beta cost, and releases the others. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnnref/crc32c.h"
#include "sim/sim_internal.h"

int sim_coll_ready(const sim_rank *R) { return R->W->done > R->arrived; }

/* The transfer src -> dst of the collective being gathered: its bytes (0: none), where they
 * come from and where they go. Sizes are consistent: the mismatch check has compared
 * every pair of slots. */
static size_t transfer(const sim_world *W, int src, int dst, const char **from, char **to)
{
    const sim_slot *S = &W->ranks[src].slot, *D = &W->ranks[dst].slot;
    const size_t s = gnn_dtype_size(S->dtype);
    switch (S->kind) {
    case GNN_COMM_BCAST: /* root -> every other rank, the linear model */
        if (src != S->root || dst == src)
            return 0;
        *from = S->send;
        *to = D->recv;
        return (size_t)S->count * s;
    case GNN_COMM_ALLGATHERV: /* src's send -> dst's recv at dst's displs[src] */
        *from = S->send;
        *to = (char *)D->recv + (size_t)D->rdispls[src] * s;
        return (size_t)S->count * s;
    case GNN_COMM_ALLTOALLV: /* src's segment for dst -> dst's recv at dst's rdispls[src] */
        *from = (const char *)S->send + (size_t)S->sdispls[dst] * s;
        *to = (char *)D->recv + (size_t)D->rdispls[src] * s;
        return (size_t)S->scounts[dst] * s;
    default:
        return 0;
    }
}

/* Do ranks a < b disagree about this collective? Writes the reason. Symmetric in a and b
 * by construction (always called with a < b), so the report does not depend on which rank
 * arrived first. */
static int slot_mismatch(const sim_world *W, int a, int b, char *why, size_t len)
{
    const sim_slot *A = &W->ranks[a].slot, *B = &W->ranks[b].slot;
    if (A->call.op != B->call.op || A->kind != B->kind) {
        snprintf(why, len, "different operations");
        return 1;
    }
    if (A->dtype != B->dtype) {
        snprintf(why, len, "different element types");
        return 1;
    }
    if ((A->call.op == GNN_COMM_ALLREDUCE || A->call.op == GNN_COMM_BCAST) && A->call.count != B->call.count) {
        snprintf(why, len, "different counts");
        return 1;
    }
    if (A->kind == GNN_COMM_BCAST && A->root != B->root) {
        snprintf(why, len, "different roots");
        return 1;
    }
    if (A->kind == GNN_COMM_ALLGATHERV) {
        /* the wrapper checked count == counts[own rank]; equal arrays make all consistent */
        for (int q = 0; q < W->P; q++)
            if (A->rcounts[q] != B->rcounts[q]) {
                snprintf(why, len, "counts[%d] is %lld on rank %d but %lld on rank %d", q, (long long)A->rcounts[q],
                         a, (long long)B->rcounts[q], b);
                return 1;
            }
    }
    if (A->kind == GNN_COMM_ALLTOALLV) {
        if (A->scounts[b] != B->rcounts[a]) {
            snprintf(why, len, "rank %d sends %lld elements to rank %d, which expects %lld", a,
                     (long long)A->scounts[b], b, (long long)B->rcounts[a]);
            return 1;
        }
        if (B->scounts[a] != A->rcounts[b]) {
            snprintf(why, len, "rank %d sends %lld elements to rank %d, which expects %lld", b,
                     (long long)B->scounts[a], a, (long long)A->rcounts[b]);
            return 1;
        }
    }
    return 0;
}

/* The modelled duration of the collective (docs/simulator.md, "Time model"): a barrier costs
 * alpha * ceil(log2 P) (a dissemination barrier); anything else max over ranks q of
 * max(S_q, R_q), where S_q (R_q) sums alpha + bytes / beta over q's outgoing (incoming)
 * messages: a rank sends and receives at once, one message at a time each way.
 * sr: scratch [2P]. */
static double coll_cost(const sim_world *W, gnn_comm_op kind, double *sr)
{
    const int P = W->P;
    if (kind == GNN_COMM_BARRIER) {
        int rounds = 0;
        while ((1 << rounds) < P)
            rounds++;
        return W->cfg.alpha_s * rounds;
    }
    double *S = sr, *R = sr + P, cost = 0;
    for (int q = 0; q < 2 * P; q++)
        sr[q] = 0;
    for (int src = 0; src < P; src++)
        for (int dst = 0; dst < P; dst++) {
            const char *from;
            char *to;
            const size_t bytes = src == dst ? 0 : transfer(W, src, dst, &from, &to);
            if (bytes > 0) {
                const double t = sim_msg_time(W, bytes);
                S[src] += t;
                R[dst] += t;
            }
        }
    for (int q = 0; q < P; q++) {
        if (S[q] > cost)
            cost = S[q];
        if (R[q] > cost)
            cost = R[q];
    }
    return cost;
}

/* The messages of one collective between the put and the delivery (complete's steps):
 * the staging copy and, per message src -> dst at i = src * P + dst, where it sits, the
 * CRC32C it left with and whether the drop-blocking fault lost it; and the first lost and
 * the first corrupted message, for the abort's report. */
typedef struct coll_wire {
    char *bytes;         /* (total + 1) every message, in (src, dst) order */
    size_t *off;         /* (P * P) message i's offset in bytes */
    uint32_t *crc;       /* (P * P) message i's CRC32C when sent (when checksums are on) */
    unsigned char *lost; /* (P * P) message i lost to the drop-blocking fault */
    int lost_src, lost_dst; /* the first lost message (-1: none) */
    int64_t lost_seq, n_lost;
    size_t lost_bytes;
    int bad_src, bad_dst; /* the first message whose CRC32C failed on delivery (-1: none) */
    uint32_t bad_got;
    size_t bad_bytes;
} coll_wire;

/* Step 1 of complete: every message onto the wire first: a rank's receive buffer may overlap
 * its send buffer, so no delivery may happen before every send has been read. A modelled
 * message between two ranks is counted (bytes_moved), numbered (its fault step) and
 * checksummed, then may be lost (drop-blocking) or flipped; a lost message still used the
 * link but is never flipped nor delivered. */
static void put_on_wire(sim_world *W, int modelled, coll_wire *cw)
{
    const int P = W->P;
    size_t pos = 0;
    for (int src = 0; src < P; src++)
        for (int dst = 0; dst < P; dst++) {
            const size_t i = (size_t)src * (size_t)P + (size_t)dst;
            const char *from;
            char *to;
            const size_t bytes = transfer(W, src, dst, &from, &to);
            cw->off[i] = pos;
            if (bytes == 0)
                continue;
            memcpy(cw->bytes + pos, from, bytes);
            if (src != dst && modelled) {
                W->bytes_moved[i] += (int64_t)bytes;
                const int64_t seq = W->msg_seq[i]++; /* the message's fault step */
                cw->crc[i] = W->checksums ? gnn_crc32c(0, cw->bytes + pos, bytes) : 0;
                if (sim_fault_hit(W, SIM_FAULT_LAYER_BLOCKING, 0, seq, src, dst, SIM_DRAW_DROP,
                                  W->cfg.faults.drop_blocking_p)) {
                    cw->lost[i] = 1;
                    W->faults_dropped++;
                    if (cw->n_lost++ == 0) {
                        cw->lost_src = src;
                        cw->lost_dst = dst;
                        cw->lost_seq = seq;
                        cw->lost_bytes = bytes;
                    }
                } else if (sim_fault_hit(W, SIM_FAULT_LAYER_BLOCKING, 0, seq, src, dst, SIM_DRAW_FLIP,
                                         W->cfg.faults.flip_p)) {
                    sim_fault_flip(W, SIM_FAULT_LAYER_BLOCKING, 0, seq, src, dst, cw->bytes + pos, bytes);
                    W->faults_flipped++;
                }
            }
            pos += bytes;
        }
}

/* Step 2 of complete: deliver every message not lost, checking the CRC32C of every message
 * between two ranks (when checksums are on); a corrupted one is counted and not delivered. */
static void deliver(sim_world *W, int modelled, coll_wire *cw)
{
    const int P = W->P;
    for (int src = 0; src < P; src++)
        for (int dst = 0; dst < P; dst++) {
            const size_t i = (size_t)src * (size_t)P + (size_t)dst;
            const char *from;
            char *to;
            const size_t bytes = transfer(W, src, dst, &from, &to);
            if (bytes == 0 || cw->lost[i])
                continue;
            if (src != dst && modelled && W->checksums) {
                const uint32_t got = gnn_crc32c(0, cw->bytes + cw->off[i], bytes);
                if (got != cw->crc[i]) {
                    W->faults_detected++;
                    if (cw->bad_src < 0) {
                        cw->bad_src = src;
                        cw->bad_dst = dst;
                        cw->bad_got = got;
                        cw->bad_bytes = bytes;
                    }
                    continue;
                }
            }
            memcpy(to, cw->bytes + cw->off[i], bytes);
        }
}

/* After delivery: a lost or a corrupted message aborts the run, charged to its receiver.
 * A lost message of a blocking collective: on a real network its receiver would wait for it
 * forever (or until a transport timeout). The simulator knows at once, so it stops the run
 * now, naming both ranks. */
static void abort_on_bad_message(sim_world *W, const coll_wire *cw)
{
    const int P = W->P;
    const gnn_comm_op op = W->ranks[0].slot.call.op;
    if (cw->lost_src >= 0) {
        char call[192];
        gnn_comm_call_str(&W->ranks[cw->lost_dst].slot.call, call, sizeof call);
        sim_abort(W, cw->lost_dst, GNN_ERR_COMM,
                  "lost message: %s from rank %d to rank %d dropped (%zu bytes, blocking message #%lld from rank %d "
                  "to rank %d): rank %d, in %s, would wait for it forever (%lld message%s of this collective lost)",
                  gnn_comm_op_name(op), cw->lost_src, cw->lost_dst, cw->lost_bytes, (long long)cw->lost_seq,
                  cw->lost_src, cw->lost_dst, cw->lost_dst, call, (long long)cw->n_lost, cw->n_lost == 1 ? "" : "s");
    }
    if (cw->bad_src >= 0) {
        const size_t i = (size_t)cw->bad_src * (size_t)P + (size_t)cw->bad_dst;
        sim_abort(W, cw->bad_dst, GNN_ERR_COMM,
                  "corrupted message: CRC32C mismatch in %s from rank %d to rank %d (%zu bytes, sent 0x%08x, "
                  "received 0x%08x)",
                  gnn_comm_op_name(op), cw->bad_src, cw->bad_dst, cw->bad_bytes, cw->crc[i], cw->bad_got);
    }
}

/* Step 3 of complete: the clocks: everybody leaves at T0 + cost, T0 the latest entry. */
static void advance_clocks(sim_world *W, gnn_comm_op kind, double *sr /* (2P) scratch */)
{
    double t0 = 0;
    for (int q = 0; q < W->P; q++)
        if (W->ranks[q].slot.entry_clock > t0)
            t0 = W->ranks[q].slot.entry_clock;
    const double t1 = t0 + coll_cost(W, kind, sr);
    for (int q = 0; q < W->P; q++)
        W->ranks[q].clock = t1;
}

static void free_wire(coll_wire *cw, double *sr)
{
    free(cw->bytes);
    free(cw->off);
    free(cw->crc);
    free(cw->lost);
    free(sr);
}

/* The last rank has arrived (mutex held): move the data, check it, account it, advance the
 * clocks, release everybody. On a corrupted message the collective does not complete:
 * the run aborts and every rank fails with the message. */
static gnn_status complete(sim_world *W, sim_rank *me)
{
    const int P = W->P;
    const size_t PP = (size_t)P * (size_t)P;
    const sim_slot *first = &W->ranks[0].slot;
    /* the report gathering (gnn_comm_traffic_matrix, op NONE) is the simulator's machinery,
     * not the program's: it costs no time, moves no counted bytes, suffers no faults */
    const int modelled = first->call.op != GNN_COMM_NONE;

    size_t total = 0;
    for (int src = 0; src < P; src++)
        for (int dst = 0; dst < P; dst++) {
            const char *from;
            char *to;
            total += transfer(W, src, dst, &from, &to);
        }
    coll_wire cw = { .lost_src = -1, .lost_dst = -1, .bad_src = -1, .bad_dst = -1 };
    cw.bytes = malloc(total + 1);
    cw.off = malloc(sizeof(size_t) * PP);
    cw.crc = malloc(sizeof(uint32_t) * PP);
    cw.lost = calloc(PP, 1);
    double *sr = malloc(sizeof(double) * 2 * (size_t)P);
    if (!cw.bytes || !cw.off || !cw.crc || !sr || !cw.lost) {
        free_wire(&cw, sr);
        sim_abort(W, me->rank, GNN_ERR_NOMEM, "%s: out of memory for %zu bytes of messages",
                  gnn_comm_op_name(first->call.op), total);
        return sim_aborted(me);
    }

    put_on_wire(W, modelled, &cw);       /* 1. every message onto the wire */
    deliver(W, modelled, &cw);           /* 2. deliver, checking each CRC32C */
    abort_on_bad_message(W, &cw);
    if (!W->aborted && modelled)
        advance_clocks(W, first->kind, sr); /* 3. the clocks */
    free_wire(&cw, sr);
    if (W->aborted)
        return sim_aborted(me);

    /* 4. release */
    W->done++;
    W->n_arrived = 0;
    pthread_cond_broadcast(&W->cv);
    return GNN_OK;
}

/* Enter blocking collective number W->done with the call described by `in`. */
static gnn_status coll(gnn_comm *c, const sim_slot *in)
{
    sim_rank *R = c->impl;
    sim_world *W = R->W;
    gnn_status st = GNN_OK;
    pthread_mutex_lock(&W->mu);
    sim_enter(R);
    if (W->aborted) {
        st = sim_aborted(R);
        goto out;
    }
    R->slot = *in;
    R->slot.call = c->call;
    R->slot.entry_clock = R->clock;
    R->arrived = W->done;
    /* compare with every rank already here: a mismatch is reported as soon as it exists */
    for (int q = 0; q < W->P; q++) {
        if (q == R->rank || W->ranks[q].arrived != W->done)
            continue;
        const int a = q < R->rank ? q : R->rank, b = q < R->rank ? R->rank : q;
        char why[160], who[sizeof W->abort_msg];
        if (slot_mismatch(W, a, b, why, sizeof why)) {
            sim_describe_ranks(W, "called", who, sizeof who);
            sim_abort(W, a, GNN_ERR_COMM, "collective mismatch (%s): %s", why, who);
            st = sim_aborted(R);
            goto out;
        }
    }
    if (++W->n_arrived < W->P)
        st = sim_block(R, SIM_BLOCKED_COLL);
    else
        st = complete(W, R);
out:
    sim_leave(R);
    pthread_mutex_unlock(&W->mu);
    return st;
}

gnn_status sim_barrier(gnn_comm *c)
{
    const sim_slot in = { .kind = GNN_COMM_BARRIER, .dtype = GNN_DT_U8, .root = -1 };
    return coll(c, &in);
}

gnn_status sim_bcast(gnn_comm *c, void *buf, int64_t count, gnn_dtype t, int root)
{
    const sim_slot in = { .kind = GNN_COMM_BCAST, .dtype = t, .send = buf, .recv = buf, .count = count, .root = root };
    return coll(c, &in);
}

gnn_status sim_allgatherv(gnn_comm *c, const void *send, int64_t count, void *recv, const int64_t *counts,
                          const int64_t *displs, gnn_dtype t)
{
    const sim_slot in = { .kind = GNN_COMM_ALLGATHERV, .dtype = t, .send = send, .recv = recv, .count = count,
                          .root = -1, .rcounts = counts, .rdispls = displs };
    return coll(c, &in);
}

gnn_status sim_alltoallv(gnn_comm *c, const void *send, const int64_t *scounts, const int64_t *sdispls, void *recv,
                         const int64_t *rcounts, const int64_t *rdispls, gnn_dtype t)
{
    const sim_slot in = { .kind = GNN_COMM_ALLTOALLV, .dtype = t, .send = send, .recv = recv, .root = -1,
                          .scounts = scounts, .sdispls = sdispls, .rcounts = rcounts, .rdispls = rdispls };
    return coll(c, &in);
}
