/* include/gnnref/commcheck.h -- every collective of gnn_comm on fixed inputs, checked.
 *
 * gnn_commcheck_run is an SPMD function: every rank calls it with its communicator. It runs
 * a fixed list of cases (barrier; bcast from several roots; allgatherv and alltoallv with
 * empty and uneven parts; allreduce of exactly summable integers and of random f32/f64,
 * fewer elements than ranks, empty, in place; asynchronous alltoallv with three posts
 * outstanding; the traffic matrix). Each rank generates every rank's input from the keyed
 * generator (seed, GNN_TAG_ORACLE, step = case, id = rank), so it can compute the expected
 * output itself and compare bitwise; each case's output is also summarized by a CRC32C, so
 * two backends (sim and MPI) can be compared case by case. `gnnref commcheck` runs it.
 *
 * After those, the presets of the oracle's comm.* entries whose rank count is the
 * communicator's size (oracle/op_comm.c: allreduce against a serial rank-order sum, the
 * argument checks; oracle/op_comm_layouts.c: alltoallv and allgatherv with scattered, in-place
 * and overlapping buffers), with `seed`: under mpirun that is the MPI implementation of those
 * entries.
 *
 * inject (deliberate bugs the run must report, never hang on):
 *   "mismatch": rank 0 calls barrier while the others call allreduce (simulator only);
 *   "deadlock": rank 0 waits in a barrier while the others wait for an ialltoallv that
 *               rank 0 never posts (simulator only);
 *   "modify":   rank 0 changes its ialltoallv send buffer before the wait (simulator only);
 *   "flip":     with the simulator flipping a bit of every message (--fault-flip 1), every
 *               asynchronous segment from another rank must be discarded by its CRC32C and a
 *               blocking alltoallv must stop the run with GNN_ERR_COMM naming both ranks;
 *   "skip":     the last rank skips its second ialltoallv post on a tag; the others wait for
 *               it: the simulator reports a deadlock, MPI's bounded wait a timeout naming the
 *               rank (GNN_MPI_WAIT_TIMEOUT, docs/comm.md section 8);
 *   "late":     rank q posts an ialltoallv q * GNN_COMMCHECK_LATE_S seconds after a barrier and
 *               every rank waits (MPI, 4 ranks or more, GNN_MPI_WAIT_TIMEOUT=5): each source is
 *               within 3 s of the one before, but rank 0's wait must fail after 5 s naming
 *               rank 2, since the bound is of the whole call; rank 0 returns
 *               GNN_ERR_MISMATCH if its wait succeeds. */
#ifndef GNNREF_COMMCHECK_H
#define GNNREF_COMMCHECK_H

#include <stdint.h>
#include "gnnref/comm.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GNN_COMMCHECK_MAX_CASES 128
#define GNN_COMMCHECK_LATE_S 3 /* inject "late": seconds between two ranks' posts */

typedef struct gnn_commcheck_case {
    char name[128];
    uint32_t crc;     /* CRC32C of this rank's output for the case */
    int pass;         /* output equal to the expected one, bitwise */
    char detail[200]; /* the first difference, when !pass */
} gnn_commcheck_case;

typedef struct gnn_commcheck_result {
    int n;
    gnn_commcheck_case c[GNN_COMMCHECK_MAX_CASES];
} gnn_commcheck_result;

/* Returns GNN_OK when every communication call succeeded (the cases' pass flags say whether
 * their outputs were right), or the failing call's status (message in c->err). */
gnn_status gnn_commcheck_run(gnn_comm *c, uint64_t seed, const char *inject, gnn_commcheck_result *out);

#ifdef __cplusplus
}
#endif
#endif
