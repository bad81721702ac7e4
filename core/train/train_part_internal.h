/* core/train/train_part_internal.h -- internal: the state of one rank training on its part
 * (gnn_train_part, include/gnnref/train_part.h), shared by the files that implement it, one
 * concern each, so that DistGNN-MB's Algorithm 2 reads as the paper writes it:
 *   core/train/train_part.c        the public entry: configuration checks, the epoch loop's callbacks
 *                            (the loop itself is core/train/epoch.c), the run's report
 *   core/train/train_part_setup.c  Algorithm 1 and the rest of set-up: train counts, db_halo and the
 *                            halo exchange plan, features, graphs, sampler, model, caches;
 *                            teardown; the halo exchange itself
 *   core/train/train_part_step.c   one step of Algorithm 2 (gnn_ptrain_step) and the three remote
 *                            modes: drop, hec, fetch
 *   core/train/train_part_push.c   the Asynchronous Embedding Push: choose and pack (lines 15-23),
 *                            post (line 24), wait and store (lines 8-9)
 *   core/train/train_part_eval.c   exact distributed evaluation
 *   core/train/train_part_pipe.c   DistDGLv2's asynchronous mini-batch pipeline (a worker thread)
 *   core/train/train_part_sample.c the mini-batch's blocks (line 6), which the step and the
 *                            pipeline's worker share
 * The calls between these files go one way: train_part -> setup, step, eval, pipe;
 * setup -> pipe; step -> push, pipe, sample; eval -> setup; pipe -> sample.
 * docs/hec.md section 7 describes the training, and "Reading Algorithm 2 in the code" maps each
 * line of the algorithm to its function. */
#ifndef GNNREF_CORE_TRAIN_PART_INTERNAL_H
#define GNNREF_CORE_TRAIN_PART_INTERNAL_H

#include <stdint.h>
#include "core/train/model.h"
#include "gnnref/halo.h"
#include "gnnref/dsample.h"
#include "gnnref/hec.h"
#include "gnnref/impl.h"
#include "gnnref/kvstore.h"
#include "gnnref/sample.h"
#include "gnnref/train_part.h"

#define MAX_DELAY GNN_HEC_MAX_DELAY
#define MAX_RANKS 256 /* the size of pack_cnt; checked with the configuration */

/* A push in flight: one ialltoallv per layer, and its send buffer, which must stay unchanged
 * until the wait. */
typedef struct push {
    gnn_comm_req *req[GNN_MAX_LAYERS];
    float *buf[GNN_MAX_LAYERS];
} push;

typedef struct ptrainer {
    gnn_comm *comm;
    int P, rank;
    gnn_train_config cfg;         /* resolved copy */
    gnn_part_train_config pc;
    const gnn_impl *impl;         /* cfg's context: sampler, HEC, push selection, db_halo, kernels */
    const gnn_part_input *in;
    const gnn_part_local *L;
    int64_t n_solid, n_halo, n_local, f, classes;
    int64_t steps;                /* M: steps per epoch, the same on every rank */
    model m;
    gnn_csr loops;                /* gat: the local graph with self-loops on solid rows */
    const gnn_csr *lgraph;        /* the local graph (with loops for gat) */
    gnn_csr gloops;               /* fetch, gat: the global graph with self-loops */
    const gnn_csr *ggraph;        /* fetch: the global graph sampled on */
    float *normed;                /* row-normalized solid features, or NULL */
    const float *fsolid;          /* (n_solid, f) the features used */
    float *halo_feat;             /* (n_halo, f) evaluation: halo features from their owners */
    gnn_sampler *sampler;         /* the context's sampler on the graph sampled on (not distributed) */
    gnn_sampler_options sopt;     /* its options (the pipeline's worker makes its own sampler with them):
                                     rgcn samples per edge type of the graph sampled on */
    int32_t *letype;              /* rgcn: the local graph's edge types (its solid rows are global's) */
    gnn_dsampler *dsampler;       /* distributed sampling: the owners sample (dsample.h) */
    gnn_part_local lview;         /* ... on this part with lgraph as its graph (gat: self-loops) */
    gnn_dsample_stats dstats;     /* ... this rank's figures */
    float *emb0;                  /* sparse embeddings: this rank's initial rows (the store copies them) */
    struct ppipe *pipe;           /* the mini-batch pipeline's worker, or NULL (serial) */
    int64_t *train;               /* local ids of labelled train vertices, increasing */
    int64_t n_train;
    int64_t *n_train_all;         /* (P) */
    /* db_halo (@alg{DistGNN-MB 1, line 3}), and its inverse: for solid v, the ranks where it
     * is a halo */
    gnn_db_halo db;
    int64_t *hr_off, *hr;         /* (n_solid + 1), (db.off[P]) */
    /* the evaluation's halo exchange: recv row of halo i is xr_pos[i] */
    int64_t *xs_cnt, *xs_dsp, *xr_cnt, *xr_dsp, *xr_pos;
    /* hec */
    gnn_hec hec[GNN_MAX_LAYERS];
    int64_t cs, nc;
    push inflight[MAX_DELAY];     /* ring by step mod d */
    float *pack[GNN_MAX_LAYERS];  /* this step's packed pushes (moved into inflight) */
    int64_t pack_cnt[GNN_MAX_LAYERS][2 * MAX_RANKS]; /* per layer: counts, displacements (elements) */
    /* fetch */
    gnn_kvstore kv;
    int kv_made;
    /* fetch with Match (pc.match, reorder.h): the input ids and rows of this rank's last pull */
    int64_t *mprev_ids, mprev_n;
    float *mprev_x;
    int64_t match_rows, match_loaded; /* layer-0 input rows used, and pulled, by this rank */
    int64_t *mperm;                   /* (steps) reorder: the batch run at each step of the epoch */
    /* gradients */
    float *gbuf;
    int64_t n_params;
    /* counters of this rank (run totals; epoch figures are differences from epoch0) */
    int64_t lookups[GNN_MAX_LAYERS], hits[GNN_MAX_LAYERS], pushed[GNN_MAX_LAYERS], received[GNN_MAX_LAYERS];
    int64_t push_bytes, pull_bytes, dropped_edges, eval_bytes;
    int64_t epoch0[2 * GNN_MAX_LAYERS + 2]; /* lookups, hits, push and pull bytes at the epoch's start */
    int64_t step_pushed; /* this step, all layers (trace) */
    int64_t step_received[GNN_MAX_LAYERS];
    int epoch;
    int start_epoch;              /* resumed from a checkpoint: the first epoch run (the pipeline starts there) */
    gnn_err *err;
} ptrainer;

static inline int hec_mode(const ptrainer *T) { return T->pc.remote == GNN_REMOTE_HEC; }
/* drop and hec sample the part's local graph; fetch the whole topology (or distributed) */
static inline int local_mode(const ptrainer *T) { return T->pc.remote != GNN_REMOTE_FETCH; }
static inline int dist_sampling(const ptrainer *T) { return T->pc.sampling == GNN_SAMPLING_DISTRIBUTED; }
/* layer 0's input is a learnable embedding in the feature store (docs/embedding.md) */
static inline int embedding(const ptrainer *T) { return T->pc.embed_dim > 0; }
/* The embedding width of layer l's input (the width of layer l's cache and pushes). */
static inline int64_t in_width(const ptrainer *T, int l) { return T->m.layer[l].in; }

/* Step k's slice [*b0, *b0 + *nb) of a rank's epoch order of n train vertices, M steps.
 * One rank: batches of `batch`, the last one short, as gnn_train cuts them. More ranks: M
 * near-equal slices (sizes floor((k + 1) n / M) - floor(k n / M) <= batch, since
 * M = ceil(max_r n_r / batch)), so every step's global batch is near P * batch. Fixed slices
 * would leave a last step made of the few seeds that the ranks with more train vertices have
 * left over (METIS balances train counts only within ~3%), and Adam would take a full-size
 * step on that tiny batch's noisy gradient every epoch. */
static inline void gnn_ptrain_batch_slice(int64_t n, int64_t k, int64_t M, int64_t batch, int P, int64_t *b0,
                                          int64_t *nb)
{
    if (P == 1) {
        *b0 = k * batch;
        *nb = n > *b0 ? (n - *b0 < batch ? n - *b0 : batch) : 0;
    } else {
        *b0 = (int64_t)((__int128)k * n / M);
        *nb = (int64_t)((__int128)(k + 1) * n / M) - *b0;
    }
}

/* ---- core/train/train_part_setup.c ---- */
/* Everything a rank needs before the first epoch (collective; a rank with bad input fails
 * every rank). T's comm, P, rank, cfg, pc, impl, in, L and err are set. */
gnn_status gnn_ptrain_setup(ptrainer *T);
/* Free what setup and the steps allocated (safe after a failed setup). */
void gnn_ptrain_teardown(ptrainer *T);
/* Send the rows db.solid of src (n_solid, w) to the ranks that hold them as halos; write the
 * received rows into halo_out (n_halo, w) in halo order. Collective. */
gnn_status gnn_ptrain_halo_exchange(ptrainer *T, const float *src, int64_t w, float *halo_out);

/* ---- core/train/train_part_step.c ---- */
/* One step k (0 <= k < M) of Algorithm 2 on this rank's seeds (local ids; n_seeds may be 0: a
 * rank with an empty mini-batch still takes part in every collective), global step `step` (Adam's
 * count), its random choices keyed by key_step (= step, except under the reorder).
 * denom: the global mini-batch's labelled count. *loss: the global mini-batch's mean loss. */
gnn_status gnn_ptrain_step(ptrainer *T, const int64_t *seeds, int64_t n_seeds, double denom, int64_t k, uint32_t step,
                           uint32_t key_step, double *loss, gnn_epoch_stats *E);
/* pc.reorder_window >= 0: *j, the mini-batch (its step within the epoch) to run at step k of the
 * epoch whose global step k is `step`; at a window's first step the window is sampled (each
 * batch with its original step), its overlap counts summed over the ranks and put in the greedy
 * order (FastGL Algorithm 1). Collective at a window's start. Time into phase[SAMPLE]. */
gnn_status gnn_ptrain_reorder(ptrainer *T, const int64_t *order, int64_t k, uint32_t step, int64_t *j, double *phase);

/* ---- core/train/train_part_sample.c ---- */
/* The blocks of seeds (local ids) at global step `step` with sampler smp, on the local graph
 * (drop, hec: loc[l] receives each block's local source ids) or the whole topology (fetch);
 * the blocks carry global ids. *edges += their edges. Pure: the pipeline's worker runs it with
 * its own sampler (core/train/train_part_pipe.c). */
gnn_status gnn_ptrain_sample(const ptrainer *T, gnn_sampler *smp, const int64_t *seeds, int64_t n_seeds, uint32_t step,
                             gnn_block *blk, int64_t **loc, double *edges);

/* ---- core/train/train_part_pipe.c: the asynchronous mini-batch pipeline (DistDGLv2 4.2.1) ---- */
/* Start the worker that samples the run's mini-batches ahead, in schedule order, at most
 * pc.pipeline_cap of them (no-op when it is 0). */
gnn_status gnn_ptrain_pipe_start(ptrainer *T);
/* The prefetched blocks of (epoch ep, step k) into blk / loc, and for drop and hec layer 0's
 * input rows into *x0 (ownership moves; NULL when not copied); *edges += their
 * edges; the trainer's wait into *stall_s. GNN_ERR_INTERNAL if the worker's next is another. */
gnn_status gnn_ptrain_pipe_take(ptrainer *T, int ep, int64_t k, gnn_block *blk, int64_t **loc, float **x0,
                                double *edges, double *stall_s);
/* Stop and join the worker, free what it prefetched (safe when never started). */
void gnn_ptrain_pipe_stop(ptrainer *T);
/* The worker's time so far: sampling (busy), waiting for room (full). */
void gnn_ptrain_pipe_times(ptrainer *T, double *busy_s, double *full_s);

/* ---- core/train/train_part_push.c (hec mode) ---- */
/* @alg{DistGNN-MB 2, lines 7-9}: for every layer, if k >= d wait for the push posted d steps
 * ago; age the cache; store the pairs in the order received. Time into phase[COMM_POST]. */
gnn_status gnn_ptrain_receive(ptrainer *T, int64_t k, double *phase);
/* @alg{DistGNN-MB 2, lines 15-23}: choose and pack layer l's push from x (b->n_src, dim), the
 * layer's input before dropout; loc: the local ids of b's sources. b == NULL (an empty
 * mini-batch) packs an empty push. Time into phase[COMM_PRE]. */
gnn_status gnn_ptrain_pack(ptrainer *T, int l, const gnn_block *b, const int64_t *loc, const float *x, uint32_t step,
                           double *phase);
/* @alg{DistGNN-MB 2, line 24}: post every layer's packed push (slot k mod d). Time into
 * phase[COMM_PRE]. */
gnn_status gnn_ptrain_post(ptrainer *T, int64_t k, double *phase);

/* ---- core/train/train_part_eval.c ---- */
/* Exact full-neighborhood inference over the solid vertices; acc[1..3] and the val loss,
 * summed over the ranks. Collective. */
gnn_status gnn_ptrain_evaluate(ptrainer *T, double acc[4], double *val_loss);

#endif
