/* include/gnnref/train_part.h -- distributed mini-batch training on a partition
 * (DistGNN-MB sections 3.1-3.2, Algorithm 2; docs/hec.md "Training on partitions", whose
 * "Reading Algorithm 2 in the code" maps each line of the algorithm to core/train_part*.c).
 *
 * SPMD and collective over a gnn_comm: every rank calls gnn_train_part with its own part (a
 * gnn_part_local from partition.h, built in memory or loaded from a partition set) and the
 * same configuration; it runs alike under the simulator and MPI. Each rank draws its seeds
 * from its own training vertices, computes its gradients, and the gradients are allreduced
 * (deterministic, rank order), so every rank applies the same update.
 *
 * How a rank sees vertices it does not own (remote mode):
 *   drop   sample on the part's local graph; every halo vertex leaves the mini-batch with its
 *          edges (the lower bound: no communication but the allreduce);
 *   hec    sample on the local graph; a halo vertex's layer-l input comes from this rank's
 *          layer-l Historical Embedding Cache (hec.h) when it hits, and the vertex leaves the
 *          block of layer l with its edges when it misses (Algorithm 2 line 11); the caches are
 *          filled by the owners' Asynchronous Embedding Push (aep.h): at step k each rank sends,
 *          per layer and remote rank r, at most nc of this mini-batch's solid vertices that are
 *          halos on r (db_halo, halo.h), with their layer-l input as computed in this step's
 *          forward pass, by one ialltoallv per layer on tag tag_base + l, received at k + d;
 *   fetch  the exact baseline (hybrid partitioning): every rank holds the whole topology
 *          (`global`), samples on it, and pulls the features of the sampled vertices it does
 *          not own from their owners through the feature store (kvstore.h) every step;
 *          with sampling = GNN_SAMPLING_DISTRIBUTED (DistDGLv2, dsample.h) a rank holds only its
 *          part: each hop's frontier is sampled by the owners of its vertices (request/reply),
 *          and the blocks are bitwise fetch's, so the step losses are too.
 *
 * Determinism: sampling draws with the global id (gnn_sample_params.rng_ids = VID_o), so a
 * solid vertex samples the same neighbors on its part's local graph as on the global graph;
 * dropout and attention dropout are keyed by global id; the epoch order of a rank's train
 * vertices is Fisher-Yates with (seed, SHUFFLE, epoch, id = rank). With one rank, every mode
 * is bit for bit gnn_train (train.h) on the same graph. With P ranks the `steps` losses are
 * the same bits under the simulator and MPI, and with the ref and opt contexts (cfg->impl):
 * every kernel they use is bitwise equal to its reference.
 *
 * Evaluation is exact and distributed: full-neighborhood inference layer by layer over each
 * rank's solid vertices, with the halo rows of every layer's input exchanged from their owners
 * (one alltoallv per layer), then the correct counts are allreduced. The accuracies are those
 * of gnn_train's evaluation of the same model.
 *
 * Models: sage, gat and gin (gcn's normalization needs the global degrees of halo vertices,
 * which a part does not store: GNN_ERR_INVAL). Mini-batch mode only.
 * Library code: returns gnn_status with a message; never prints. */
#ifndef GNNREF_TRAIN_PART_H
#define GNNREF_TRAIN_PART_H

#include <stdint.h>
#include "gnnref/comm.h"
#include "gnnref/hec.h"
#include "gnnref/partition.h"
#include "gnnref/train.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GNN_HEC_MAX_DELAY 64 /* the largest hec_delay */

typedef enum gnn_remote_mode { GNN_REMOTE_DROP = 0, GNN_REMOTE_HEC = 1, GNN_REMOTE_FETCH = 2 } gnn_remote_mode;
/* Where the blocks are sampled: LOCAL the graph the remote mode names (the part's local graph,
 * or fetch's whole topology); DISTRIBUTED (fetch only) by the owners of each hop's vertices. */
typedef enum gnn_sampling_mode { GNN_SAMPLING_LOCAL = 0, GNN_SAMPLING_DISTRIBUTED = 1 } gnn_sampling_mode;
const char *gnn_remote_name(gnn_remote_mode m); /* "drop", "hec", "fetch" */
gnn_status gnn_remote_parse(const char *s, gnn_remote_mode *m); /* GNN_ERR_INVAL when unknown */

/* One (rank, step, layer) of the HEC pipeline, after the step's loads (hec mode). */
typedef struct gnn_part_trace {
    int rank, epoch, layer;
    uint32_t step;          /* global step */
    int64_t received;       /* (id, embedding) pairs stored at this step */
    int64_t lookups, hits;  /* this mini-batch's halo vertices searched at this layer, and hits */
    int64_t pushed;         /* pairs this rank sent at this step (all destinations) */
    gnn_hec_counters cnt;   /* the cache's counters so far */
    uint32_t state_crc;     /* CRC32C of the cache: tags, ages, embeddings, write pointer */
} gnn_part_trace;

typedef struct gnn_part_train_config {
    gnn_remote_mode remote;  /* default hec */
    int64_t hec_cs;          /* lines per layer cache; 0 (default): min(n_halo, (ls + 1)(P - 1) nc),
                                at least 1 (docs/hec.md section 4) */
    int32_t hec_ls;          /* lifespan (default 2) */
    int64_t hec_nc;          /* pushes per remote rank, layer and step; 0 (default): sized to the
                                graph, max over r of ceil(|db_halo[r]| / min(ls + 1, M)), at
                                least 1, M = steps per epoch: every halo line can be refreshed
                                within its lifespan, or within an epoch when that is shorter */
    int hec_delay;           /* 1 <= d <= GNN_HEC_MAX_DELAY (default 1) */
    int tag_base;            /* layer l pushes on ialltoallv tag tag_base + l (default 100) */
    gnn_sampling_mode sampling; /* default LOCAL; DISTRIBUTED needs remote fetch (not `global`) */
    /* sparse embeddings (DistDGLv2 3.3, docs/embedding.md; fetch only): embed_dim > 0 replaces
     * the input features by a learnable table of that width, sharded like the vertices in the
     * feature store, initialized U(-1, 1) by (seed, INIT, step 2, layer 0, id = vertex, draw =
     * column); a step pulls its input rows and, after backward, pushes their gradients, which
     * the owners apply with embed_opt (sparse Adagrad or Adam) and embed_lr */
    int64_t pipeline_cap;       /* asynchronous mini-batch pipeline (DistDGLv2 4.2.1, docs/pipeline.md):
                                   a worker thread samples up to this many mini-batches ahead of the
                                   trainer; the step losses do not change. 0 (default): serial.
                                   Not with distributed sampling (its hops are collectives) */
    int64_t pipeline_copy_cap;  /* ... of which up to this many with layer 0's input rows copied
                                   (drop, hec; the paper's CPU feature copy: default 5) */
    int64_t embed_dim;          /* 0 (default): the features */
    int embed_opt;              /* a gnn_sparse_opt_kind (default Adam) */
    float embed_lr;             /* default 0.01 */
    /* optional: called on every rank after every (step, layer) of hec mode */
    void (*on_trace)(const gnn_part_trace *t, void *ctx);
    void *trace_ctx;
    /* FastGL's Match-Reorder (section 4.1, reorder.h, docs/reorder.md; fetch only, not with
     * embed_dim: learnable rows change between steps). match: a step pulls only the layer-0 input
     * ids its previous mini-batch on this rank did not have and copies the others from that
     * batch's rows: the features, hence the step losses, are bitwise the same, the pull bytes
     * fewer. reorder_window >= 0 (needs match; not with the pipeline or distributed sampling):
     * each window of that many steps (0 = the epoch) is sampled first, and its mini-batches run
     * in the greedy order of the match degrees (match_norm, a gnn_match_norm) of the overlap
     * counts summed over the ranks, so every rank runs its batch of the same original step; a
     * batch keeps the sampling and dropout keys of its original step, Adam counts the executed
     * steps. -1 (default): the epoch order. */
    int match;
    int64_t reorder_window;
    int match_norm;
} gnn_part_train_config;
void gnn_part_train_defaults(gnn_part_train_config *p);

/* What one rank brings. feat, labels and split cover its solid vertices (local ids
 * 0 .. n_solid - 1); labels < 0 are unlabelled. fetch also needs the whole topology and the
 * part vector (identical on every rank); distributed sampling only the part vector; the other
 * modes ignore them (may be NULL). */
typedef struct gnn_part_input {
    const gnn_part_local *part; /* part->rank must be the communicator rank */
    int64_t n_global;
    int64_t num_features, num_classes;
    const float *feat;          /* (n_solid, num_features) */
    const int32_t *labels;      /* (n_solid) */
    const uint8_t *split;       /* (n_solid) GNN_SPLIT_* */
    const gnn_csr *global;      /* fetch: the global in-edge CSR (rgcn: in every mode) */
    const int32_t *owner;       /* fetch: (n_global) the part vector */
    /* rgcn (docs/hetero.md section 8): the edge types of `global` (global->nnz, aligned with its
     * indices) and their count. A part's solid rows repeat global's rows in CSR order, so each
     * rank takes its local rows' types from them; the samplers draw per edge type. */
    const int32_t *etype;
    int64_t relations;
    /* With --embed-dim: NULL (every vertex's input row is a learnable embedding), or (n_global)
     * 1 where it is (vertices of featureless types) and 0 where the vertex's features are its
     * input (then embed_dim must equal num_features): only the learnable rows are pushed. */
    const uint8_t *learn_input;
    /* optional: the dataset's name, part of a checkpoint's fingerprint (docs/checkpoint.md) */
    const char *name;
} gnn_part_input;

/* Whole-run figures, summed over all ranks (identical on every rank). */
typedef struct gnn_part_report {
    int ranks;
    int64_t hec_cs, hec_nc;                   /* effective values on this rank (hec mode) */
    int64_t hec_cs_min, hec_cs_max;           /* ... and their range over the ranks */
    int64_t hec_nc_min, hec_nc_max;
    int64_t solid_total, halo_total, train_total;
    int64_t lookups[GNN_MAX_LAYERS], hits[GNN_MAX_LAYERS]; /* halo searches and hits per layer */
    int64_t pushed_rows[GNN_MAX_LAYERS];     /* pairs sent per layer (to other ranks) */
    int64_t received_rows[GNN_MAX_LAYERS];   /* pairs stored per layer */
    int64_t push_bytes;                       /* bytes of the pushes (ids and embeddings) */
    int64_t pull_bytes;                       /* fetch: bytes of the pulls (headers, ids, rows) */
    int64_t halo_edges_dropped;               /* sampled edges removed with missed halos */
    int64_t eval_bytes;                       /* bytes of the evaluation's halo exchanges */
    /* distributed sampling, per block (layer l), summed over ranks */
    int64_t sample_local[GNN_MAX_LAYERS];     /* frontier vertices sampled where they live */
    int64_t sample_remote[GNN_MAX_LAYERS];    /* frontier vertices requested from their owners */
    int64_t sample_request_bytes[GNN_MAX_LAYERS], sample_reply_bytes[GNN_MAX_LAYERS];
    int64_t embed_push_bytes, embed_rows_updated; /* sparse embeddings: pushes' bytes, rows updated */
    double pipeline_worker_s, pipeline_full_s; /* the pipeline's workers: sampling, and waiting for room
                                                  (summed over ranks); the trainers' wait for a batch is
                                                  the epochs' sample phase */
    int64_t match_rows, match_rows_loaded;    /* --match: layer-0 input rows used, and pulled (summed) */
} gnn_part_report;

/* Train on this rank's part (collective). cfg->comm is ignored (comm is the communicator);
 * cfg->impl also picks the HEC, push selection, db_halo and sampler implementations.
 * res is gnn_train's result (the same on every rank); rep may be NULL. Per-epoch HEC and
 * byte figures are in res->epochs[e] (summed over ranks). */
gnn_status gnn_train_part(gnn_comm *comm, const gnn_part_input *in, const gnn_train_config *cfg,
                          const gnn_part_train_config *pc, gnn_epoch_cb cb, void *ctx, gnn_train_result *res,
                          gnn_part_report *rep, gnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
