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

/* ---- push: sparse embeddings (DistDGLv2 section 3.3, "pull and push"; docs/embedding.md) ----
 * A learnable table stored like the features (rows sharded by owner, pulled per mini-batch)
 * is trained by pushing (id, gradient row) pairs to the owners, which update only the rows
 * touched. gnnref's push is deterministic (next-capabilities.md C.3):
 *   1. each rank sums the rows of a repeated id in position order (from 0.0f);
 *   2. header (how many ids, whether the request is valid), ids and rows go to the owners by
 *      alltoallv (the pull's three-step protocol); ids the caller owns stay here;
 *   3. each owner sums the rows of an id over the ranks in rank order 0..P-1 (from 0.0f), then
 *      applies one optimizer update to each touched row (gnn_sparse_opt_row).
 * So the simulator and MPI agree bitwise, and the table equals gnn_sparse_opt_step_ref's (one
 * process, the same lists) bit for bit. DGL instead applies each push as it arrives: its result
 * depends on the arrival order. A bad request (an id outside [0, n), m < 0, NULL arrays, an
 * invalid optimizer, or another kind than the store's first push) fails on EVERY rank after the
 * header, nothing updated. The push is collective and completes every update before it
 * returns: a pull after it reads the new rows (synchronous read, C.1). */
typedef enum gnn_sparse_opt_kind { GNN_SPARSE_ADAGRAD = 1, GNN_SPARSE_ADAM = 2 } gnn_sparse_opt_kind;
typedef struct gnn_sparse_opt {
    gnn_sparse_opt_kind kind;
    float lr;           /* > 0 */
    float eps;          /* > 0: DGL's defaults, Adagrad 1e-10, Adam 1e-8 */
    float beta1, beta2; /* Adam, in [0, 1): 0.9, 0.999 */
} gnn_sparse_opt;
/* kind's defaults (DGL's SparseAdagrad / SparseAdam) with learning rate lr. */
void gnn_sparse_opt_defaults(gnn_sparse_opt *o, gnn_sparse_opt_kind kind, float lr);

/* One row's update, the rule both the store and the reference run (each step a float operation,
 * no FMA). Adagrad (state s1 = G): G += g g; w -= lr g / (sqrtf(G) + eps). Adam (s1 = m, s2 =
 * v, *step the row's own step count, as DGL's SparseAdam keeps one per row): step += 1;
 * m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g g; c1 = (float)(1 - b1^step), c2 =
 * (float)(1 - b2^step) (in double); w -= lr (m / c1) / (sqrtf(v / c2) + eps). */
void gnn_sparse_opt_row(const gnn_sparse_opt *o, float *w, const float *g, float *s1, float *s2, int64_t *step,
                        int64_t dim);

/* The specification of a push on one process (tests and the oracle): P lists (ids[q], m[q],
 * grads[q] (m[q], dim)), w (n, dim) the whole table, s1, s2 (n, dim) and steps (n) its state:
 * each list's repeats summed in position order, then every id's rows summed over the lists in
 * list order (both from 0.0f), then one gnn_sparse_opt_row per touched row. Unchecked. */
void gnn_sparse_opt_step_ref(const gnn_sparse_opt *o, int64_t n, int64_t dim, float *w, float *s1, float *s2,
                             int64_t *steps, int P, const int64_t *const *ids, const int64_t *m,
                             const float *const *grads);

typedef struct gnn_kv_push_stats {
    int64_t calls;
    int64_t ids;                /* ids pushed (m) */
    int64_t unique;             /* distinct ids after summing repeats */
    int64_t rows_local;         /* of those, owned here: no communication */
    int64_t rows_remote;        /* sent to their owners */
    int64_t rows_received;      /* (id, row) pairs other ranks sent here */
    int64_t rows_updated;       /* rows this rank updated */
    int64_t bytes_sent;         /* header 16 per other rank, 8 per id, 4 dim per row */
} gnn_kv_push_stats;

typedef struct gnn_kvstore {
    gnn_comm *comm;   /* not owned */
    int64_t n;        /* global vertices */
    int64_t dim;      /* feature width */
    int32_t *owner;   /* (n) the partition book: owner rank of v */
    int64_t *row;     /* (n) v's row on its owner */
    int64_t n_local;  /* rows stored here */
    float *feat;      /* (n_local, dim) this rank's rows, in increasing global id */
    gnn_kv_stats last, total;
    /* push: the optimizer state of this rank's rows, made by the first push (its kind stays) */
    int opt_kind;     /* 0 before the first push, else a gnn_sparse_opt_kind */
    float *opt_s1, *opt_s2; /* (n_local, dim) Adagrad's G; Adam's m and v */
    int64_t *opt_steps;     /* (n_local) Adam's step per row */
    gnn_kv_push_stats push_last, push_total;
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
/* Push (ids[0..m), grads (m, dim)) with optimizer o; collective (see above). */
gnn_status gnn_kvstore_push(gnn_kvstore *kv, const int64_t *ids, int64_t m, const float *grads, const gnn_sparse_opt *o,
                            gnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
