/* oracle/comm_spmd.h -- the rank-side bodies of the oracle entries that run over a
 * communicator (oracle/op_comm.c, oracle/op_comm_layouts.c, oracle/op_distagg.c), internal to
 * oracle/.
 *
 * Each body is an SPMD function: every rank of a communicator calls it with the same case
 * and checks its own part of the result against a verifier written from the specification
 * (docs/comm.md), never from core/dist/comm.c. The oracle runs a case under the simulator at the
 * case's rank count (implementation `sim`); `gnnref commcheck` runs the same bodies, with
 * the same case strings, over whatever communicator it has: under `mpirun -np P ... --backend
 * mpi` that is the entries' MPI implementation (oracle/commcheck.c, ci/mpi-check.sh). By
 * convention parameter 0 of these entries is `ranks`. */
#ifndef GNNREF_ORACLE_COMM_SPMD_H
#define GNNREF_ORACLE_COMM_SPMD_H

#include <stdint.h>
#include "gnnref/comm.h"
#include "gnnref/oracle.h"

/* One rank's verdict on a case. */
typedef struct gnn_comm_spmd_result {
    int pass;          /* every check of this rank held */
    uint32_t crc;      /* CRC32C of what this rank received (compared across backends) */
    char detail[200];  /* the first failed check, when !pass */
} gnn_comm_spmd_result;

/* Returns GNN_OK when the rank took part in every collective of the case (refusals the case
 * expects included); an unexpected communication error is returned as is (message in c->err). */
typedef gnn_status (*gnn_comm_spmd_fn)(gnn_comm *c, const gnn_oracle_case *cs, gnn_comm_spmd_result *out);

typedef struct gnn_comm_spmd_entry {
    const gnn_oracle_entry *entry;
    gnn_comm_spmd_fn fn;
} gnn_comm_spmd_entry;

/* The entries with an SPMD body, NULL-terminated (entry == NULL). */
extern const gnn_comm_spmd_entry gnn_oracle_comm_spmd[];

/* SuperGCN's distributed aggregation (oracle/op_distagg.c): distagg.fwd and distagg.bwd run
 * their own simulated check in the oracle; this body runs one of their cases on any
 * communicator, for gnnref commcheck (sim against mpirun). */
gnn_status gnn_oracle_distagg_rank(gnn_comm *c, const gnn_oracle_case *cs, gnn_comm_spmd_result *out);
extern const gnn_oracle_entry gnn_oracle_distagg_fwd, gnn_oracle_distagg_bwd;

#endif
