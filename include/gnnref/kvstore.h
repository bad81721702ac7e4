/* include/gnnref/kvstore.h -- a feature store for hybrid partitioning (docs/kvstore.md).
 *
 * Hybrid partitioning (Intel's DistGNN-MB article): the graph topology is replicated on every
 * rank, the vertex features are partitioned by owner. A rank samples mini-batches on its own
 * copy of the graph and then fetches the feature rows it lacks from their owners: DistDGL's
 * KVStore pull (DistDGLv2 section 4.1.4), over gnn_comm, so it runs alike under the
 * simulator and MPI.
 *
 * The partition book (replicated): for every global vertex v, owner[v] (its rank, the part
 * vector) and row[v], its row in the owner's store: v's index among the owner's vertices in
 * increasing global id, i.e. its solid local id VID_p on the owner (partition.h). Each rank
 * stores the rows of the vertices it owns: (n_local, dim) f32.
 *
 * pull(ids[m]) -> out (m, dim): collective (every rank calls it, with its own m, which may be
 * 0). ids are global vertex ids in any order, repeats allowed; out[i] is exactly the row of
 * ids[i] in the unpartitioned feature matrix (copied bytes: bitwise). Protocol, one batched
 * round trip per request, never a message per row:
 *   0. validate ids locally (before any communication);
 *   1. header: an alltoallv of two int64 per pair (how many ids I ask you for; whether my
 *      request is valid);
 *   2. ids: ONE alltoallv carries every requested remote id to its owner, grouped by owner in
 *      request order (repeats are sent as requested);
 *   3. rows: ONE alltoallv returns the rows, in the order asked;
 *   ids the caller owns are copied locally, without communication (counted as local rows).
 * Bad ids: a rank whose request holds an id outside [0, n) (or m < 0, or out NULL with m > 0)
 * returns GNN_ERR_RANGE (GNN_ERR_INVAL) naming the first bad id and its position; it still
 * takes part in the header exchange, with zero counts and its verdict, so EVERY rank learns
 * of the failure there and returns GNN_ERR_RANGE naming the failing rank(s), with nothing
 * else exchanged: no rank hangs, no rows are written, and the counters count only the header.
 *
 * Counters (gnn_kv_stats): per call (last) and cumulative (total). The bytes are the payload
 * this rank sends or receives; the same traffic is also in the communicator's accounting
 * (gnn_comm_traffic, under alltoallv). */
#ifndef GNNREF_KVSTORE_H
#define GNNREF_KVSTORE_H

#include <stdint.h>
#include "gnnref/comm.h"
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gnn_kv_stats {
    int64_t calls;               /* pulls (total) or 1 (last) */
    int64_t ids;                 /* ids requested (m) */
    int64_t rows_local;          /* served from this rank's own rows, no communication */
    int64_t rows_remote;         /* fetched from other ranks */
    int64_t rows_served;         /* rows this rank sent to others */
    int64_t bytes_header_sent;   /* 16 per other rank per call */
    int64_t bytes_ids_sent;      /* 8 per remote id */
    int64_t bytes_ids_received;  /* 8 per id others asked me for */
    int64_t bytes_rows_sent;     /* 4 dim per row served */
    int64_t bytes_rows_received; /* 4 dim per remote row */
} gnn_kv_stats;

typedef struct gnn_kvstore {
    gnn_comm *comm;   /* not owned */
    int64_t n;        /* global vertices */
    int64_t dim;      /* feature width */
    int32_t *owner;   /* (n) the partition book: owner rank of v */
    int64_t *row;     /* (n) v's row on its owner */
    int64_t n_local;  /* rows stored here */
    float *feat;      /* (n_local, dim) this rank's rows, in increasing global id */
    gnn_kv_stats last, total;
} gnn_kvstore;

/* Create the store on every rank (collective). part (n): owner of each vertex, identical on
 * every rank (checked: a CRC32C of part, n and dim is compared across ranks); values in
 * [0, P). rows (n_local, dim): this rank's rows, in increasing global id, n_local = the
 * number of v with part[v] == rank (checked); copied. Every rank gets the same status. */
gnn_status gnn_kvstore_create(gnn_kvstore *kv, gnn_comm *c, int64_t n, const int32_t *part, int64_t dim,
                              const float *rows, int64_t n_local, gnn_err *err);
/* The same, taking this rank's rows out of the full (n, dim) matrix (tests, the CLI). */
gnn_status gnn_kvstore_create_from_full(gnn_kvstore *kv, gnn_comm *c, int64_t n, const int32_t *part, int64_t dim,
                                        const float *feat, gnn_err *err);
/* Pull the rows of ids[0..m) into out (m, dim); collective (see above). */
gnn_status gnn_kvstore_pull(gnn_kvstore *kv, const int64_t *ids, int64_t m, float *out, gnn_err *err);
void gnn_kvstore_free(gnn_kvstore *kv);

#ifdef __cplusplus
}
#endif
#endif
