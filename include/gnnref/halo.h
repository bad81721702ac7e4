/* include/gnnref/halo.h -- db_halo, DistGNN-MB section 3.2 and Algorithm 1 (docs/db_halo.md).
 *
 * On rank p, db_halo says, for every remote rank r, which of p's solid vertices are halo
 * vertices on r: the vertices whose embeddings p must push to r (DistGNN-MB's asynchronous
 * embedding push, Algorithm 2 line 18, Map(sv, db_halo)). Stored CSR-like, one row per rank:
 *
 *   solid[off[r] .. off[r+1])   p's solid LOCAL ids (VID_p, in [0, n_solid)) that are halos on
 *                               rank r, increasing (so also increasing in global id: solid
 *                               vertices are numbered in increasing global id);
 *   off[p+1] - off[p] = 0       a rank is never the halo owner of its own vertices.
 *
 * The build is SPMD and collective over a gnn_comm: every rank calls it with its own
 * gnn_part_local (partition.h), so it runs alike under the simulator and MPI.
 *   ref  (ref/halo.c)      Algorithm 1 as written: B <- Bcast(hv): every rank allgathers its
 *                          halo vertices' global ids; db_halo <- CreateDB(B): each rank scans
 *                          every other rank's list and keeps the ids it owns. Volume: every
 *                          halo id goes to all P - 1 other ranks (8 bytes each).
 *   cpu  (opt/cpu/halo.c)  each rank knows the owner of each of its halos (halo_owner), so it
 *                          sends each halo id only to that owner with one alltoallv (after an
 *                          alltoallv of the P counts): 8 bytes per halo instead of (P - 1) x 8.
 *                          OpenMP for the grouping by owner and the mapping back to local ids.
 *                          Bitwise the same tables as ref.
 * Both are called through gnn_db_halo_build (core/dist/halo.c), which checks the arguments once
 * with an agreement step (an allgatherv of three int64 per rank: argument verdict, n_solid,
 * n_halo), so that bad arguments on one rank make EVERY rank return an error instead of
 * leaving the others waiting in a collective (the builders get every rank's n_halo from it).
 * The checks:
 *   - me->rank must equal the communicator rank (GNN_ERR_INVAL);
 *   - every halo owner must be a rank of the communicator other than me (GNN_ERR_RANGE);
 *   - the ranks' solid vertices must add up to n_global: a partition with more parts than
 *     the communicator has ranks (or ranks given parts of different partitions) fails with
 *     GNN_ERR_INVAL on every rank.
 * A rank whose own arguments are bad gets the message naming them; the others get
 * GNN_ERR_INVAL naming the rank(s) that failed. Only c == NULL, out == NULL and ops == NULL
 * return without communicating.
 *
 * Library code: returns gnn_status with a message; never prints. */
#ifndef GNNREF_HALO_H
#define GNNREF_HALO_H

#include <stdint.h>
#include "gnnref/comm.h"
#include "gnnref/partition.h"
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gnn_db_halo {
    int64_t ranks;  /* P, the communicator size (= parts of the partition) */
    int64_t *off;   /* (ranks + 1) row offsets */
    int64_t *solid; /* (off[ranks]) solid local ids, row r: halos on rank r, increasing */
} gnn_db_halo;

/* An implementation. Which table a program uses is chosen by the implementation context
 * (impl.h: its `db_halo` field). */
typedef struct gnn_db_halo_ops {
    const char *name; /* "ref", "cpu" */
    /* The builder, called by gnn_db_halo_build once every rank has agreed that the arguments
     * are valid: n_halo_all (P entries) holds every rank's n_halo; *out is empty. On error it
     * leaves *out empty. */
    gnn_status (*build_agreed)(gnn_comm *c, const gnn_part_local *me, int64_t n_global, const int64_t *n_halo_all,
                               gnn_db_halo *out, gnn_err *err);
} gnn_db_halo_ops;

extern const gnn_db_halo_ops gnn_db_halo_ref, gnn_db_halo_cpu;

/* Build this rank's db_halo with ops (collective over c): the checked entry point. n_global:
 * vertices of the whole graph (the length of me->vid_p). Checks the arguments with the
 * agreement step above (every rank returns the same success or failure), then runs
 * ops->build_agreed. On error *out is left empty (gnn_db_halo_free is safe). */
gnn_status gnn_db_halo_build(const gnn_db_halo_ops *ops, gnn_comm *c, const gnn_part_local *me, int64_t n_global,
                             gnn_db_halo *out, gnn_err *err);
void gnn_db_halo_free(gnn_db_halo *t);

/* CRC32C of the table: ranks, off[0..ranks], solid[0..off[ranks]) as little-endian int64
 * (what `gnnref partcheck` prints, so that two backends can be compared by one number). */
uint32_t gnn_db_halo_crc(const gnn_db_halo *t);

/* The property checker (oracle/op_halo.c), a different algorithm from both builders: for
 * each remote part r it marks the global sources of the edges of r's local CSR owned by
 * `rank` (the in-neighbors of r's solid vertices that `rank` owns: by definition r's halos
 * from `rank`), then lists rank's solid vertices with a mark, in local id order. Checks
 * ranks == full->k, the offsets, the empty own row, and every row. GNN_OK, or
 * GNN_ERR_MISMATCH with the first difference. */
gnn_status gnn_db_halo_verify(const gnn_partition *full, int64_t rank, const gnn_db_halo *t, gnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
