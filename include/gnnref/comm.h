/* include/gnnref/comm.h -- the communicator: one interface, three backends (DESIGN.md section 4).
 *
 * All distributed code talks to a gnn_comm handle passed explicitly. Backends:
 *   self  one rank (core/dist/comm.c); every collective is a local copy;
 *   sim   P ranks as threads in one process (sim/, include/gnnref/sim.h), with checks
 *         (mismatched collectives, deadlock, modified send buffers, bounded waits),
 *         traffic accounting, an alpha-beta time model and seeded fault injection;
 *   mpi   OpenMPI (opt/mpi/), for real clusters under mpirun.
 * No MPI call and no mutable global state outside opt/mpi/ and sim/. The same SPMD function
 * runs on every backend; docs/comm.md is the reader's page.
 *
 * Counts and displacements are in elements of the given dtype. Every call is collective
 * (all ranks of the communicator call it, in the same order) except gnn_comm_wait and
 * gnn_comm_req_free, which are local.
 *
 * Determinism: gnn_comm_allreduce is a reduce-scatter in which the owner of each chunk sums
 * the P contributions in rank order 0..P-1, then an allgather. It is written once, here, over
 * the backend's alltoallv and allgatherv, so sim and MPI compute the same bits. */
#ifndef GNNREF_COMM_H
#define GNNREF_COMM_H

#include <stddef.h>
#include <stdint.h>
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gnn_dtype { GNN_DT_U8 = 0, GNN_DT_I32, GNN_DT_I64, GNN_DT_F32, GNN_DT_F64, GNN_DT_COUNT } gnn_dtype;
size_t gnn_dtype_size(gnn_dtype t);     /* 0 for an invalid dtype */
const char *gnn_dtype_name(gnn_dtype t); /* "u8", "i32", "i64", "f32", "f64" */

/* The operations, as named in the traffic matrix and in error messages. */
typedef enum gnn_comm_op {
    GNN_COMM_NONE = 0, /* internal traffic that is not accounted (gathering the report) */
    GNN_COMM_BARRIER,
    GNN_COMM_BCAST,
    GNN_COMM_ALLGATHERV,
    GNN_COMM_ALLTOALLV,
    GNN_COMM_IALLTOALLV, /* asynchronous alltoallv (begin/wait) */
    GNN_COMM_ALLREDUCE,
    GNN_COMM_OP_COUNT
} gnn_comm_op;
const char *gnn_comm_op_name(gnn_comm_op op); /* "barrier", "bcast", ..., "ialltoallv", "allreduce" */

/* What a rank is calling: set by the gnn_comm_* wrappers before they call the backend, so a
 * backend can account traffic under the user-visible operation (an allreduce's alltoallv is
 * accounted as allreduce) and compare the calls of different ranks (the simulator's
 * mismatch check). count: elements: the total for allreduce and bcast, this rank's send
 * count for allgatherv, the sum of send counts for alltoallv; root: bcast only, else -1. */
typedef struct gnn_comm_call {
    gnn_comm_op op;
    gnn_dtype dtype;
    int64_t count;
    int root;
    int tag;        /* ialltoallv only, else -1 */
    int64_t seq;    /* this rank's number of collective calls before this one */
} gnn_comm_call;
/* "allreduce(f32, count=100)" into buf; returns buf. */
char *gnn_comm_call_str(const gnn_comm_call *call, char *buf, size_t len);

typedef struct gnn_comm gnn_comm;
/* opaque: each backend defines its own request type and casts it */
typedef struct gnn_comm_req gnn_comm_req;

/* One segment received by an asynchronous alltoallv: `count` elements from rank `src`,
 * posted by src at its `step`-th ialltoallv on this tag (0-based). `data` stays valid until
 * gnn_comm_req_free. */
typedef struct gnn_comm_seg {
    int src;
    int64_t step;
    int64_t count;
    const void *data;
} gnn_comm_seg;

/* Backend operations. Arguments are already validated by the wrappers (ranks in range,
 * non-negative counts, dtype valid, c->call filled). Every function returns GNN_OK or an
 * error status with a message in c->err. A backend may leave allreduce NULL: the wrapper
 * then runs the generic deterministic algorithm over alltoallv and allgatherv (the only
 * allreduce gnnref has today, so that sim and MPI agree bitwise). */
typedef struct gnn_comm_ops {
    const char *name; /* "self", "sim", "mpi" */
    gnn_status (*barrier)(gnn_comm *c);
    gnn_status (*bcast)(gnn_comm *c, void *buf, int64_t count, gnn_dtype t, int root);
    /* recv (sum of counts) receives rank q's `send` (counts[q] elements) at displs[q] */
    gnn_status (*allgatherv)(gnn_comm *c, const void *send, int64_t count, void *recv, const int64_t *counts,
                             const int64_t *displs, gnn_dtype t);
    /* rank r sends scounts[q] elements at sdispls[q] to rank q, which receives them at its
     * rdispls[r]; its rcounts[r] must equal r's scounts[q] */
    gnn_status (*alltoallv)(gnn_comm *c, const void *send, const int64_t *scounts, const int64_t *sdispls,
                            void *recv, const int64_t *rcounts, const int64_t *rdispls, gnn_dtype t);
    /* Asynchronous alltoallv on `tag` (0 <= tag < GNN_COMM_MAX_TAG). The receive counts need
     * not be known. The send buffer must stay unchanged until gnn_comm_wait returns (the
     * simulator checks it). Every rank posts its ialltoallvs on a tag in the same sequence;
     * the step-th post of each rank forms one exchange. */
    gnn_status (*ialltoallv)(gnn_comm *c, const void *send, const int64_t *scounts, const int64_t *sdispls,
                             gnn_dtype t, int tag, gnn_comm_req **req);
    /* Wait for the exchange of `req` (waits on one tag must come in post order). On return
     * *segs holds the segments due at this step, sorted by (step, src): normally one per
     * source rank, own rank included, all with step = req's step; under the simulator's
     * fault injection a dropped or corrupted segment is missing and a delayed one arrives
     * with a later step's wait (docs/simulator.md). */
    gnn_status (*wait)(gnn_comm *c, gnn_comm_req *req, const gnn_comm_seg **segs, int *n_segs);
    void (*req_free)(gnn_comm *c, gnn_comm_req *req);
    gnn_status (*allreduce)(gnn_comm *c, const void *send, void *recv, int64_t count, gnn_dtype t);
    void (*destroy)(gnn_comm *c); /* frees impl; the wrapper frees the handle */
} gnn_comm_ops;

#define GNN_COMM_MAX_TAG 1024

/* Traffic sent by this rank: bytes and messages per (operation, destination). A message is
 * one transfer from this rank to another rank (never to itself) of more than zero bytes;
 * the count is the logical traffic of the operation (alltoallv: scounts[q]; allgatherv and
 * bcast: the data to every other rank; allreduce: its reduce-scatter and allgather). The
 * wrappers fill it, identically on every backend. */
typedef struct gnn_comm_traffic {
    int64_t *bytes; /* [GNN_COMM_OP_COUNT][size] */
    int64_t *msgs;  /* [GNN_COMM_OP_COUNT][size] */
    int64_t calls[GNN_COMM_OP_COUNT];
} gnn_comm_traffic;

struct gnn_comm {
    const gnn_comm_ops *ops;
    int rank, size;
    void *impl;              /* the backend's state */
    gnn_comm_call call;      /* the call in progress (see gnn_comm_call) */
    int64_t n_calls;         /* collective calls made so far */
    gnn_comm_traffic traffic;
    gnn_err err;             /* the last error's message */
};

/* Allocate a handle for a backend (used by backends' constructors). */
gnn_status gnn_comm_alloc(const gnn_comm_ops *ops, int rank, int size, void *impl, gnn_comm **out);
/* The one-rank backend. */
gnn_status gnn_comm_self(gnn_comm **out);
/* The MPI backend (opt/mpi/): MPI_Init_thread on first use (MPI_THREAD_FUNNELED), one
 * handle over MPI_COMM_WORLD; MPI_Finalize when the handle is freed. GNN_ERR_UNSUPPORTED
 * with a message when gnnref was built without MPI (NO_MPI=1, or no mpicc). */
gnn_status gnn_comm_mpi(gnn_comm **out, gnn_err *err);
int gnn_comm_mpi_built(void); /* 1 when the MPI backend is compiled in */
/* End every rank of an MPI job (MPI_Abort), so that ranks waiting for a failed one do not
 * hang; does nothing for a handle of another backend. */
void gnn_comm_mpi_abort(gnn_comm *c, int code);
/* Destroy a handle from any backend (NULL is fine). */
void gnn_comm_free(gnn_comm *c);
const char *gnn_comm_errmsg(const gnn_comm *c);

static inline int gnn_comm_rank(const gnn_comm *c) { return c ? c->rank : 0; }
static inline int gnn_comm_size(const gnn_comm *c) { return c ? c->size : 1; }

/* The collectives. Each validates its arguments (GNN_ERR_INVAL with a message naming the
 * argument), sets c->call, accounts the traffic and calls the backend. */
gnn_status gnn_comm_barrier(gnn_comm *c);
gnn_status gnn_comm_bcast(gnn_comm *c, void *buf, int64_t count, gnn_dtype t, int root);
gnn_status gnn_comm_allgatherv(gnn_comm *c, const void *send, int64_t count, void *recv, const int64_t *counts,
                               const int64_t *displs, gnn_dtype t);
gnn_status gnn_comm_alltoallv(gnn_comm *c, const void *send, const int64_t *scounts, const int64_t *sdispls,
                              void *recv, const int64_t *rcounts, const int64_t *rdispls, gnn_dtype t);
gnn_status gnn_comm_ialltoallv(gnn_comm *c, const void *send, const int64_t *scounts, const int64_t *sdispls,
                               gnn_dtype t, int tag, gnn_comm_req **req);
gnn_status gnn_comm_wait(gnn_comm *c, gnn_comm_req *req, const gnn_comm_seg **segs, int *n_segs);
void gnn_comm_req_free(gnn_comm *c, gnn_comm_req *req);
/* Sum of f32 or f64 vectors; send == recv is allowed (in place). Deterministic: the owner of
 * chunk j = [count*j/P, count*(j+1)/P) sums the ranks' chunk j in rank order 0..P-1
 * (((x_0 + x_1) + x_2) + ...), then every chunk is allgathered. */
gnn_status gnn_comm_allreduce(gnn_comm *c, const void *send, void *recv, int64_t count, gnn_dtype t);
/* The same algorithm written out serially for P given vectors (x[q] of rank q): the
 * expected output the tests compare every backend against. */
void gnn_comm_allreduce_expected(const void *const *x, int P, void *out, int64_t count, gnn_dtype t);

/* Gather every rank's traffic (collective; itself not accounted): bytes and msgs
 * [GNN_COMM_OP_COUNT][size][size] (op, src, dst), malloc'd, on rank `root` (the others get
 * NULL and GNN_OK), or on every rank with root = -1 (O(size^3) memory over the ranks). */
gnn_status gnn_comm_traffic_matrix(gnn_comm *c, int root, int64_t **bytes, int64_t **msgs);

#ifdef __cplusplus
}
#endif
#endif
