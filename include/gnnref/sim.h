/* include/gnnref/sim.h -- the deterministic multi-rank simulator (DESIGN.md section 4,
 * docs/simulator.md): P ranks as threads in one process, behind the gnn_comm interface.
 *
 * What it adds over real MPI:
 *  - checks: a collective entered with different operations or sizes on different ranks is
 *    reported with each rank's call; when every rank is blocked it reports a deadlock with
 *    each rank's pending operation; a send buffer modified before its asynchronous
 *    operation completes is reported; every wait is bounded (timeout_s). Nothing hangs: the
 *    first error aborts the run and wakes every rank with GNN_ERR_COMM;
 *  - accounting: bytes and messages per (operation, source, destination), counted where
 *    the simulator copies the data (bytes_moved) next to the wrappers' logical counts;
 *  - a time model: each rank has a virtual clock advanced by its measured compute time
 *    (the thread's CPU time between communication calls) and by alpha + bytes / beta per
 *    message; collectives synchronize the clocks (closed forms in docs/simulator.md);
 *  - seeded fault injection: delay asynchronous segments by k steps, drop them with
 *    probability p, flip one bit on the wire; every message carries a CRC32C, so a flipped
 *    bit is always detected (a blocking operation then fails; an asynchronous segment is
 *    discarded and counted); lose a message of a blocking collective (the run then fails at
 *    once, naming the collective and both ranks, instead of waiting for the timeout).
 * Each rank runs with one OpenMP thread unless threads_per_rank says otherwise. */
#ifndef GNNREF_SIM_H
#define GNNREF_SIM_H

#include <stdint.h>
#include "gnnref/comm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* At most this many ranks: the fault key packs src * P + dst into 32 bits, and the
 * accounting matrices grow as P^2. Ranks are threads, so this is far beyond what one
 * machine runs usefully anyway. */
#define GNN_SIM_MAX_RANKS 1024

typedef struct gnn_sim_faults {
    uint64_t seed;      /* fault decisions: Philox (seed, GNN_TAG_FAULT, step, id) per message */
    double drop_p;      /* asynchronous segments dropped with this probability */
    double delay_p;     /* asynchronous segments delayed with this probability ... */
    int delay_steps;    /* ... by this many steps of their tag (>= 1) */
    double flip_p;      /* any message (not to self) gets one bit flipped with this probability */
    double drop_blocking_p; /* a message of a blocking collective (not to self, >= 1 byte) is lost with
                               this probability: the collective cannot complete, and the run fails at
                               once naming the collective, the sending and the receiving rank (its own
                               draw, float draw 0 of the blocking stream: the other faults' decisions
                               do not change) */
} gnn_sim_faults;

typedef struct gnn_sim_config {
    int ranks;              /* P >= 1 */
    double alpha_s;         /* latency per message, seconds (default 2e-6) */
    double beta_Bps;        /* bandwidth, bytes per second (default 12.5e9: 100 Gb/s) */
    double timeout_s;       /* bound on every wait (default 60) */
    int threads_per_rank;   /* OpenMP threads inside each rank (default 1) */
    int wire_crc;           /* 1 (default): every message between ranks carries a CRC32C checked
                               at delivery; 0: only while flips are injected (a wire copy is the
                               simulator's own memory, which nothing else changes: a faster run) */
    gnn_sim_faults faults;  /* all zero: no faults */
} gnn_sim_config;

void gnn_sim_defaults(gnn_sim_config *c);

/* The SPMD function: runs once per rank, on its own thread, with that rank's communicator.
 * Its return value is that rank's status. */
typedef gnn_status (*gnn_spmd_fn)(gnn_comm *c, void *arg);

typedef struct gnn_sim_report {
    int ranks;
    double wall_s;              /* wall time of the whole run */
    double *clock_s;            /* [ranks] virtual clock at the rank's exit: predicted time */
    double *compute_s;          /* [ranks] measured compute (thread CPU time outside comm calls) */
    double *comm_s;             /* [ranks] modelled communication and waiting time (clock - compute) */
    int64_t *bytes;             /* [GNN_COMM_OP_COUNT][ranks][ranks] logical traffic (the wrappers' counts) */
    int64_t *msgs;              /* [GNN_COMM_OP_COUNT][ranks][ranks] */
    int64_t *bytes_moved;       /* [ranks][ranks] bytes the simulator actually copied between ranks */
    int64_t faults_dropped, faults_delayed, faults_flipped, faults_detected;
    int64_t undelivered;        /* asynchronous segments still in flight when the run ended */
    gnn_status *rank_status;    /* [ranks] each rank's return value */
    int *rank_failing;          /* [ranks] 1 for a failing rank (below), 0 otherwise */
} gnn_sim_report;

/* Run fn on cfg->ranks ranks. Returns GNN_OK when every rank returned GNN_OK. Otherwise it
 * returns the status of the lowest failing rank, with err naming that rank and the reason
 * (for a mismatch or a deadlock: every rank's call), followed by the other failing ranks'
 * errors in rank order ("[also failing: rank 2 ...]"). A failing rank is one that an
 * error is charged to by its own doing: the simulator's check charged it (mismatch,
 * deadlock, timeout, a corrupted or lost message, ...), or its fn returned an error while
 * none of its comm calls had returned another rank's error. A rank woken by another's error
 * ("aborted: ...") is not failing, whatever it returns then. docs/simulator.md, "Which error
 * a run reports", says why this makes the report independent of thread timing. rep (may be
 * NULL) is filled in every case once the threads have started; free it with
 * gnn_sim_report_free. */
gnn_status gnn_sim_run(const gnn_sim_config *cfg, gnn_spmd_fn fn, void *arg, gnn_sim_report *rep, gnn_err *err);
void gnn_sim_report_free(gnn_sim_report *rep);

#ifdef __cplusplus
}
#endif
#endif
