/* sim/sim_internal.h -- the simulator's shared state (internal to sim/; docs/simulator.md).
 *
 * One sim_world per gnn_sim_run, shared by the P rank threads. Every field of the world and
 * of the ranks that another thread can see is read and written only with world->mu held:
 * one mutex, one condition variable (broadcast on every change a blocked rank may wait
 * for). A rank thread touches its own cpu_mark and its own gnn_comm without the lock. */
#ifndef GNNREF_SIM_INTERNAL_H
#define GNNREF_SIM_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "gnnref/sim.h"

#define SIM_MAX_RANKS GNN_SIM_MAX_RANKS /* include/gnnref/sim.h says why */

/* Philox `layer` field of the fault streams: blocking messages and async segments draw
 * from different streams (docs/simulator.md, "Fault model"). */
#define SIM_FAULT_LAYER_BLOCKING 0u
#define SIM_FAULT_LAYER_ASYNC 1u
/* float draws of a message's fault stream (the flipped bit is integer draw 2, sim.c). An
 * async segment uses all three; a blocking message uses DROP (drop_blocking_p) and FLIP. */
#define SIM_DRAW_DROP 0u
#define SIM_DRAW_DELAY 1u
#define SIM_DRAW_FLIP 2u

typedef enum sim_state {
    SIM_RUNNING = 0,  /* computing, or inside a comm call that does not wait */
    SIM_BLOCKED_COLL, /* waiting for the other ranks of a blocking collective */
    SIM_BLOCKED_WAIT, /* in gnn_comm_wait, waiting for the other ranks' posts */
    SIM_EXITED        /* fn returned */
} sim_state;

/* A rank's entry in the rendezvous of a blocking collective: what it called and where its
 * buffers are. The pointers are the caller's and stay valid while the rank is blocked in
 * the call, which is exactly while other ranks may read them. */
typedef struct sim_slot {
    gnn_comm_op kind;   /* the backend function: barrier, bcast, allgatherv or alltoallv */
    gnn_comm_call call; /* the user-visible call (both phases of an allreduce say allreduce) */
    gnn_dtype dtype;
    const void *send;   /* bcast: the buffer (on the root), allgatherv/alltoallv: the send buffer */
    void *recv;         /* bcast: the buffer, allgatherv/alltoallv: the receive buffer */
    int64_t count;      /* bcast: elements; allgatherv: this rank's send count */
    int root;           /* bcast only */
    const int64_t *scounts, *sdispls; /* alltoallv [P] */
    const int64_t *rcounts, *rdispls; /* alltoallv [P]; allgatherv: counts and displs [P] */
    double entry_clock; /* the rank's virtual clock when it entered */
} sim_slot;

/* An asynchronous segment in flight: a wire copy of what `src` posted for one destination. */
typedef struct sim_msg {
    int src, tag;
    int64_t step;       /* src's step on this tag */
    int64_t due;        /* delivered by the destination's wait of this step (step + delay) */
    int64_t count;      /* elements */
    size_t bytes;
    gnn_comm_call call; /* the sender's ialltoallv (for mismatch messages) */
    uint32_t crc;       /* CRC32C of the data as posted (before any injected flip) */
    double arrival;     /* virtual time at which it reaches the destination */
    void *data;         /* bytes, owned: the receiver never reads the sender's buffer */
} sim_msg;

/* The request of one ialltoallv (cast to the opaque gnn_comm_req). */
typedef struct sim_req {
    int tag;
    int64_t step;
    gnn_comm_call call;
    gnn_dtype dtype;
    const void *send;  /* the user's send buffer, checked again at wait */
    int64_t *scounts;  /* [P] copies of the user's arrays */
    int64_t *sdispls;  /* [P] */
    uint32_t send_crc; /* CRC32C of the send segments in rank order, at post */
    int waited;
    int n_segs;
    gnn_comm_seg *segs; /* [n_segs] what wait returned */
    void **bufs;        /* [n_segs] their data, freed by req_free */
} sim_req;

typedef struct sim_world sim_world;

typedef struct sim_rank {
    sim_world *W;
    int rank;
    gnn_comm *comm;
    gnn_spmd_fn fn;
    void *arg;
    pthread_t thread;
    int started;
    gnn_status status;   /* fn's return value */

    /* Its own error, when it is a failing rank (docs/simulator.md, "Which error a run
     * reports"): an error the simulator charged to it, or its fn's error while none of its
     * comm calls had returned another rank's error. */
    int failing;
    gnn_status fail_status;
    char fail_msg[sizeof(((gnn_err *)0)->msg)];
    int woken;           /* a comm call of it returned another rank's error ("aborted: ...") */

    sim_state state;
    sim_slot slot;       /* the blocking collective it is in (valid when arrived == W->done) */
    int64_t arrived;     /* number of the blocking collective it last entered (-1: none) */
    int wait_tag;        /* SIM_BLOCKED_WAIT: the tag and step it waits for */
    int64_t wait_step;

    double clock;        /* virtual clock, seconds */
    double compute;      /* measured compute, seconds */
    double cpu_mark;     /* thread CPU time when its last comm call returned (own thread only) */

    int64_t posted[GNN_COMM_MAX_TAG]; /* ialltoallv posts per tag (the next step) */
    int64_t waited[GNN_COMM_MAX_TAG]; /* waits per tag (the next step to wait) */
    sim_msg **inbox;     /* async segments addressed to this rank, not yet delivered */
    size_t n_inbox, cap_inbox;
} sim_rank;

struct sim_world {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* CLOCK_MONOTONIC, for the bounded waits */
    gnn_sim_config cfg;
    int P;
    sim_rank *ranks; /* [P] */

    /* the blocking-collective rendezvous: collectives are numbered 0, 1, ... in the order
     * every rank calls them; `done` have completed and `n_arrived` ranks have entered
     * number `done` */
    int64_t done;
    int n_arrived;

    /* The first error in time stops the run: every waiting rank wakes and fails with
     * "aborted: <abort_msg>". What the run reports is decided at its end, from the failing
     * ranks (sim_rank.failing), not from this. */
    int aborted;
    int abort_rank; /* the rank the first error is charged to */
    char abort_msg[sizeof(((gnn_err *)0)->msg)];

    /* Messages between ranks carry a CRC32C (cfg->wire_crc, the default), or only while
     * flips are injected: a wire copy is the simulator's own memory, which nothing but an
     * injected flip changes (docs/simulator.md, "Fault model"). */
    int checksums;

    int64_t *bytes_moved; /* [P][P] bytes copied onto the wire, src -> dst (src != dst) */
    int64_t *msg_seq;     /* [P][P] blocking messages so far, src -> dst: their fault step */
    int64_t faults_dropped, faults_delayed, faults_flipped, faults_detected;
};

/* sim.c: the machinery shared by the collectives and the async operations */
double sim_thread_cpu(void);
void sim_enter(sim_rank *R);
void sim_leave(sim_rank *R);
void sim_abort(sim_world *W, int rank, gnn_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
gnn_status sim_aborted(sim_rank *R);
gnn_status sim_block(sim_rank *R, sim_state st);
void sim_describe_ranks(const sim_world *W, const char *verb, char *buf, size_t len);
double sim_msg_time(const sim_world *W, size_t bytes);
/* fault decisions (docs/simulator.md, "Fault model") */
int sim_fault_hit(const sim_world *W, unsigned layer, int tag, int64_t step, int src, int dst, unsigned draw,
                  double p);
void sim_fault_flip(const sim_world *W, unsigned layer, int tag, int64_t step, int src, int dst, void *data,
                    size_t bytes);

/* sim_coll.c */
gnn_status sim_barrier(gnn_comm *c);
gnn_status sim_bcast(gnn_comm *c, void *buf, int64_t count, gnn_dtype t, int root);
gnn_status sim_allgatherv(gnn_comm *c, const void *send, int64_t count, void *recv, const int64_t *counts,
                          const int64_t *displs, gnn_dtype t);
gnn_status sim_alltoallv(gnn_comm *c, const void *send, const int64_t *scounts, const int64_t *sdispls, void *recv,
                         const int64_t *rcounts, const int64_t *rdispls, gnn_dtype t);
int sim_coll_ready(const sim_rank *R);

/* sim_async.c */
gnn_status sim_ialltoallv(gnn_comm *c, const void *send, const int64_t *scounts, const int64_t *sdispls,
                          gnn_dtype t, int tag, gnn_comm_req **req);
gnn_status sim_wait(gnn_comm *c, gnn_comm_req *req, const gnn_comm_seg **segs, int *n_segs);
void sim_req_free(gnn_comm *c, gnn_comm_req *req);
int sim_wait_ready(const sim_rank *R);
void sim_wait_missing(const sim_rank *R, char *buf, size_t len);

#endif
