/* oracle/op_comm.h -- what the communicator's oracle entries share, internal to oracle/.
 *
 * The entries for the communicator and the simulator's faults are three files, split by what
 * they check so that each stays readable on its own:
 *   oracle/op_comm.c          the overview of every entry, the helpers below, the runner of an
 *                             SPMD body under the simulator, comm.allreduce, comm.checks, and
 *                             the table of SPMD bodies that `gnnref commcheck` runs;
 *   oracle/op_comm_layouts.c  comm.alltoallv and comm.allgatherv: the displacement layouts a
 *                             user may pass (packed, scattered, in place, overlapping, refused);
 *   oracle/op_comm_faults.c   sim.faults: the simulator's fault decisions against their keys.
 * The rank bodies' result type and the table of SPMD bodies are in oracle/comm_spmd.h (which
 * oracle/commcheck.c includes too); this header is for the three files above only. */
#ifndef GNNREF_ORACLE_OP_COMM_H
#define GNNREF_ORACLE_OP_COMM_H

#include <stddef.h>
#include <stdint.h>
#include "gnnref/comm.h"
#include "gnnref/oracle.h"
#include "oracle/comm_spmd.h"

#define COMM_MAX_RANKS 8
#define SENTINEL 0xA5 /* receive buffers start as this byte: what a call must not write stays so */

/* The implementations of the comm.* entries: `sim` (the reference: the SPMD body under the
 * simulator) and `mpi` (reports SKIP; commcheck runs it under mpirun). sim.faults has `sim`
 * only. One object each, so that a case's impl pointer can be compared with them. */
extern const gnn_oracle_impl gnn_oracle_comm_impl_sim;
extern const gnn_oracle_impl *const gnn_oracle_comm_impls[];

/* Record the first failed check of this rank in out (printf-style); the rank goes on with the
 * collectives, so the others are not left waiting. Returns GNN_OK. */
gnn_status gnn_oracle_comm_fail(gnn_comm_spmd_result *out, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Keyed values for one buffer of n elements of type t (stream = one segment): f32 spread
 * exponents, f64 the same with 48 bits of mantissa, integers all bits. */
void gnn_oracle_comm_fill(const gnn_oracle_case *cs, uint64_t stream, void *buf, int64_t n, gnn_dtype t);

/* Every rank's traffic counters at one moment (c->traffic is this rank's). */
typedef struct traffic_snap {
    int64_t bytes[GNN_COMM_OP_COUNT * COMM_MAX_RANKS], msgs[GNN_COMM_OP_COUNT * COMM_MAX_RANKS];
    int64_t calls[GNN_COMM_OP_COUNT];
} traffic_snap;

void gnn_oracle_comm_snap_take(const gnn_comm *c, traffic_snap *s);

/* Since snapshot s: exactly want_bytes[q] / want_msgs[q] to each rank under op (NULL: none),
 * `calls` more calls of op, and nothing under any other operation; else a failed check. */
void gnn_oracle_comm_check_traffic(const gnn_comm *c, const traffic_snap *s, gnn_comm_op op,
                                   const int64_t *want_bytes, const int64_t *want_msgs, int64_t calls,
                                   const char *what, gnn_comm_spmd_result *out);

/* The guards of a gnn_guard_alloc buffer, then its bytes against the expected image (the first
 * differing element named in the failed check). */
void gnn_oracle_comm_check_image(const gnn_comm *c, const char *what, const void *got, const void *want,
                                 size_t bytes, size_t elem, gnn_comm_spmd_result *out);

/* Runs fn on every rank of a simulated communicator of the case's parameter 0 (`ranks`) ranks
 * and digests each rank's CRC in rank order; the `mpi` implementation reports SKIP. */
gnn_oracle_outcome gnn_oracle_comm_spmd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, gnn_comm_spmd_fn fn);

/* The entries of oracle/op_comm_layouts.c and their rank bodies, for the table of SPMD bodies in
 * oracle/op_comm.c. */
extern const gnn_oracle_entry gnn_oracle_comm_alltoallv, gnn_oracle_comm_allgatherv;
gnn_status gnn_oracle_comm_alltoallv_rank(gnn_comm *c, const gnn_oracle_case *cs, gnn_comm_spmd_result *out);
gnn_status gnn_oracle_comm_allgatherv_rank(gnn_comm *c, const gnn_oracle_case *cs, gnn_comm_spmd_result *out);

#endif
