/* opt/mpi/wait_bound.h -- the bound of the MPI backend's asynchronous wait (opt/mpi/comm_mpi.c,
 * docs/comm.md section 8, "The bounded wait").
 *
 * A wait has several things to wait for, one after the other: the message of every other rank
 * (in rank order), then the completion of its own sends. GNN_MPI_WAIT_TIMEOUT bounds the whole
 * call: one deadline, entry + bound, computed once when the call starts and shared by every
 * target, so a wait fails at most one poll pause after the bound, however many sources it
 * waits for. (A deadline per target would let a wait on P - 1 slow sources last P times the
 * bound.)
 *
 * This file knows nothing of MPI: the caller passes a clock and a poll function, so that
 * tests/test_mpi.c drives it with a fake clock and fake sources, deterministically and in
 * every build (no mpirun, no sleeping). */
#ifndef GNNREF_OPT_MPI_WAIT_BOUND_H
#define GNNREF_OPT_MPI_WAIT_BOUND_H

/* The clock of a wait: now() in seconds (monotonic), and the pause between two polls of one
 * target (`tries`: the polls of that target so far, 1, 2, ...). */
typedef struct gnn_wait_clock {
    double (*now)(void *arg);
    void (*pause)(void *arg, int tries);
    void *arg;
} gnn_wait_clock;

/* Poll target `target` once: 1 done, 0 not yet, -1 failed (the poller keeps its own error). */
typedef int (*gnn_wait_poll_fn)(void *arg, int target);

typedef enum gnn_wait_outcome {
    GNN_WAIT_DONE = 0,     /* every target done */
    GNN_WAIT_DEADLINE = 1, /* *stuck was not done at the deadline */
    GNN_WAIT_FAILED = 2    /* the poll of *stuck failed */
} gnn_wait_outcome;

/* Poll targets 0 .. n_targets - 1 in order, each until it is done, under one deadline:
 * clk->now() at entry + timeout_s (timeout_s <= 0: no deadline). A target is always polled
 * at least once, so one that is done by the time its turn comes never times out. *stuck
 * (may be NULL) receives the target that ended the wait (-1 when done); *waited_s (may be
 * NULL) the seconds from entry to return. */
gnn_wait_outcome gnn_wait_bounded(const gnn_wait_clock *clk, double timeout_s, int n_targets, gnn_wait_poll_fn poll,
                                  void *arg, int *stuck, double *waited_s);

#endif
