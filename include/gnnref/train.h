/* include/gnnref/train.h -- single-rank GNN training: GraphSAGE, GCN, GAT and GIN, mini-batch
 * (DistGNN-MB section 2) or full-batch. docs/models.md has every equation; docs/sage.md the
 * mini-batch pipeline.
 *
 * Every layer l < L first applies keyed dropout to its input (layer index l; for l = 0 that is
 * input-feature dropout, as in Kipf & Welling and Velickovic et al.), then:
 *   sage: z = W_n . mean_{u in S(v)} x[u] + W_s . x[v] + b           (DistGNN-MB Eq. 1)
 *   gcn:  z = (A_hat x) W + b, A_hat = D^-1/2 (A+I) D^-1/2 (GNN_AGG_GCN over the graph with
 *         self-loops); when out < in the product is formed first: z = A_hat (x W) + b.
 *   gin:  z = W2 . ReLU(W1 . (x[v] + sum_{u in S(v)} x[u]) + b1) + b2    (GIN-0)
 *   rgcn: z = x[v] W0 + sum_r mean_{u in N_r(v)} x[u] W_r + b (rgcn.h; relations = the dataset's
 *         edge types; W_r = sum_b a_rb V_b with rgcn_bases > 0); full batch only for now
 *   gat:  per head, z_h = x W_h (velickovic) or ReLU(x W_h + b_h) (distgnn, DistGNN-MB Eq. 2),
 *         attention over the graph with self-loops (gat.h), heads concatenated in hidden
 *         layers (+ b, velickovic) and averaged in the output layer.
 * Hidden layers then apply the optional LayerNorm and the activation (ReLU; ELU for gat);
 * the last layer's z are the logits. S(v) is the sampled neighborhood in mini-batch mode and
 * the full neighborhood in full-batch mode and in evaluation (which has no dropout). */
#ifndef GNNREF_TRAIN_H
#define GNNREF_TRAIN_H

#include <stdint.h>
#include "gnnref/comm.h"
#include "gnnref/dataset.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GNN_MAX_LAYERS 16
#define GNN_MAX_HEADS 64

typedef enum gnn_model_kind { GNN_MODEL_SAGE = 0, GNN_MODEL_GCN, GNN_MODEL_GAT, GNN_MODEL_GIN, GNN_MODEL_RGCN } gnn_model_kind;
typedef enum gnn_train_mode { GNN_MODE_MINIBATCH = 0, GNN_MODE_FULLBATCH } gnn_train_mode;
typedef enum gnn_gat_variant { GNN_GAT_VELICKOVIC = 0, GNN_GAT_DISTGNN } gnn_gat_variant;
/* AUTO = the model's default, fixed by gnn_train_resolve (see there). */
typedef enum gnn_feat_norm { GNN_FEAT_NORM_AUTO = -1, GNN_FEAT_NORM_NONE = 0, GNN_FEAT_NORM_ROW = 1 } gnn_feat_norm;
typedef enum gnn_wd_scope { GNN_WD_AUTO = -1, GNN_WD_ALL = 0, GNN_WD_FIRST = 1 } gnn_wd_scope;
/* Early stopping's rule (docs/models.md section 4); AUTO = gat for GNN_MODEL_GAT, acc otherwise.
 *   ACC: an evaluation is better when its val accuracy is higher than the best so far, or equal
 *        with a lower val loss; patience counts evaluations since the best; the best is kept.
 *   GAT: Velickovic et al.'s code (PetarV-/GAT, execute_cora.py): patience restarts when the val
 *        accuracy reaches its maximum so far OR the val loss its minimum (>= and <=, ties
 *        count); the model is kept (saved) when both do, and the kept model is reported. */
typedef enum gnn_stop_rule { GNN_STOP_AUTO = -1, GNN_STOP_ACC = 0, GNN_STOP_GAT = 1 } gnn_stop_rule;

const char *gnn_model_name(gnn_model_kind m);    /* "sage", "gcn", "gat", "gin", "rgcn" */
const char *gnn_mode_name(gnn_train_mode m);     /* "minibatch", "fullbatch" */
const char *gnn_stop_rule_name(gnn_stop_rule r); /* "acc", "gat" ("auto" before gnn_train_resolve) */

typedef struct gnn_train_config {
    gnn_model_kind model;               /* default sage */
    gnn_train_mode mode;                /* default minibatch; fullbatch ignores fanouts and batch */
    int layers;                         /* L >= 1 */
    int64_t hidden;                     /* width of hidden layers */
    int64_t fanouts[GNN_MAX_LAYERS];    /* per layer, DGL order (fanouts[0] = input layer); -1 = all */
    int64_t batch;                      /* seeds per mini-batch */
    int epochs;                         /* >= 1 (every run ends with an evaluation) */
    float lr;
    float dropout;                      /* p in [0, 1) */
    float weight_decay;                 /* L2 added to gradients in Adam */
    uint64_t seed;
    const struct gnn_impl *impl;        /* the implementation context (impl.h): every kernel, the
                                           sampler, and on partitions the HEC, push selection and
                                           db_halo; default gnn_impl_opt(); NULL is the default too */
    int eval_every;                     /* evaluate every k epochs (and always the last); 0 = never */
    int patience;                       /* early stopping: stop after this many evaluated epochs
                                           without a better one (stop_rule); 0 = off */
    gnn_stop_rule stop_rule;            /* what "better" is, for patience and the kept model */
    int64_t heads;                      /* gat: heads of hidden layers (concatenated), >= 1 */
    int64_t out_heads;                  /* gat: heads of the output layer (averaged), >= 1 */
    gnn_gat_variant gat_variant;
    float attn_dropout;                 /* gat: attention dropout in [0, 1); < 0: same as dropout */
    float gat_slope;                    /* gat: LeakyReLU slope (0.2) */
    int layernorm;                      /* 1: LayerNorm before the activation of hidden layers */
    int64_t rgcn_bases;                 /* rgcn: bases B of the decomposition; 0 (default): a weight
                                           per relation */
    int64_t relations;                  /* rgcn: R, set by the trainer from the dataset's edge types */
    int adapt_threads;                  /* 1: one rank may run a step on fewer OpenMP threads when
                                           that is measured to be faster (team.h: a core taken by
                                           another process); the bits do not change. 0: never */
    gnn_feat_norm feat_norm;            /* row: divide each feature row by its sum (Kipf & Welling,
                                           Velickovic); AUTO: row for gcn and gat, none otherwise */
    gnn_wd_scope wd_scope;              /* weight decay on all layers or the first only;
                                           AUTO: first for gcn (Kipf & Welling), all otherwise */
    /* Synchronous data parallelism (NULL: one rank). Every rank holds the whole graph, takes
     * its slice [nb r/P, nb (r+1)/P) of each global mini-batch (full batch: of the train
     * vertices), and the gradients are allreduced, so the update is the single-rank update up
     * to the order of summation. Rank 0 evaluates and broadcasts. */
    gnn_comm *comm;
    /* Checkpoint and resume (docs/checkpoint.md, checkpoint.h). checkpoint_dir: every rank writes
     * DIR/rank-RRRRR.ckpt at the end of every checkpoint_every-th epoch (and of the last one, or
     * the one early stopping ends on); NULL: none. resume_dir: start from the checkpoint there,
     * which must match the dataset, ranks, partition and configuration (refused otherwise); the
     * remaining step losses and the final weights are bitwise those of the run never stopped.
     * The result then holds the restored epochs' and steps' figures too. */
    const char *checkpoint_dir;
    int checkpoint_every;               /* >= 1; 0 means 1 */
    const char *resume_dir;
    /* optional progress hook, called after every step (library code never prints) */
    void (*on_step)(int epoch, int64_t step_in_epoch, int64_t steps_per_epoch, double loss, void *ctx);
    void *on_step_ctx;
} gnn_train_config;

void gnn_train_defaults(gnn_train_config *c);
/* Replace AUTO values and a negative attn_dropout by their effective values (gnn_train does
 * the same on its own copy; callers use this to report the configuration). */
void gnn_train_resolve(gnn_train_config *c);

/* Phases timed per epoch (seconds). DistGNN-MB's breakdown (section 4): MBC = sample, FWD =
 * forward, BWD = backward, ARed = comm (the gradient allreduce and the evaluation's
 * exchanges). Training on partitions (train_part.h) adds comm_pre (choosing, gathering and
 * posting the pushes) and comm_post (receiving them and storing them into the caches, then
 * searching and loading the halo rows; fetch: the pulls). */
enum { GNN_PHASE_SAMPLE, GNN_PHASE_FORWARD, GNN_PHASE_BACKWARD, GNN_PHASE_UPDATE, GNN_PHASE_EVAL, GNN_PHASE_COMM,
       GNN_PHASE_COMM_PRE, GNN_PHASE_COMM_POST, GNN_PHASE_COUNT };
extern const char *const gnn_phase_names[GNN_PHASE_COUNT];

typedef struct gnn_epoch_stats {
    int epoch;
    double loss;                        /* mean of the epoch's step losses */
    double val_loss;                    /* cross-entropy on the val split; -1 if not evaluated */
    double train_acc, val_acc, test_acc; /* full-neighborhood evaluation; -1 if not evaluated */
    double time_s;
    double phase_s[GNN_PHASE_COUNT];
    int64_t steps;
    int64_t edges_sampled;              /* all ranks' sampled edges */
    int64_t comm_bytes;                 /* bytes this rank sent during the epoch */
    /* training on partitions (train_part.h), summed over ranks; 0 otherwise */
    int64_t hec_lookups[GNN_MAX_LAYERS], hec_hits[GNN_MAX_LAYERS];
    int64_t push_bytes, pull_bytes;
    double team_mean;                   /* mean OpenMP team size of the epoch's steps (team.h) */
} gnn_epoch_stats;

typedef struct gnn_train_result {
    gnn_epoch_stats *epochs;            /* (n_epochs) */
    int n_epochs;
    double *step_loss;                  /* (n_steps) */
    int64_t n_steps;
    double train_acc, val_acc, test_acc; /* of the final model */
    double best_val_acc, test_acc_at_best_val;
    int best_epoch;                     /* best: highest val accuracy, ties to the lower val loss */
    /* The model stop_rule keeps (acc: the best epoch's; gat: the last one saved when the val
     * accuracy and the val loss both reached their extremes), as a restore of it would report
     * it: evaluation is a pure function of the parameters, so the test accuracy recorded at that
     * epoch is the restored model's. -1 / the final figures when nothing was kept. */
    int restored_epoch;
    double test_acc_restored;
    int stopped_early;                  /* 1: --patience ended training before cfg->epochs */
    int stop_epoch;                     /* last epoch run when stopped early, else -1 */
    double majority_rate;               /* test accuracy of always predicting the most common train label */
    uint32_t weights_crc;               /* CRC32C of the final parameters, layer by layer (model order) */
    uint32_t state_crc;                 /* ... of the parameters and Adam's moments */
    int resumed_epochs;                 /* epochs restored from cfg->resume_dir (0: a fresh run) */
} gnn_train_result;
void gnn_train_result_free(gnn_train_result *r);

/* Called after each epoch (may be NULL); progress/printing belongs to the caller. */
typedef void (*gnn_epoch_cb)(const gnn_epoch_stats *st, void *ctx);

/* Train cfg->model. Needs labels and a split with at least one train vertex.
 * The result depends only on (dataset, config): not on the thread count, nor on cfg->impl
 * (every kernel of the models is bitwise equal to its reference; see models.md). */
gnn_status gnn_train(const gnn_dataset *ds, const gnn_train_config *cfg, gnn_epoch_cb cb,
                     void *ctx, gnn_train_result *res, gnn_err *err);
/* gnn_train with cfg->model replaced by GNN_MODEL_SAGE (the earlier entry point). */
gnn_status gnn_train_sage(const gnn_dataset *ds, const gnn_train_config *cfg, gnn_epoch_cb cb,
                          void *ctx, gnn_train_result *res, gnn_err *err);

/* A trainer's gradient against central differences of its own step (the oracle's grad.train and
 * grad.fullbatch, docs/oracle.md "Gradient checks"). The parameters are every layer's, in order,
 * then an extra block (label propagation's embeddings; else none): parts[l] counts layer l's,
 * parts[L] the extra's. For i < min(count, cap): grad[i] the backward's gradient of the step's
 * loss (summed over the ranks), and fd[i] a central difference, in double, each perturbed value
 * taken as stored in f32. A difference with step s = h / 2^t is taken where the loss is smooth:
 * central where every ReLU, LeakyReLU and ELU of the step stays on its side at x - s and x + s;
 * else from the side where it does, by Richardson's extrapolation of the one-sided differences
 * at s and s / 2 (second order too). fd[i] = d(h / 2^(t+1)), step[i] = h / 2^(t+1), for the
 * smallest t < GNN_GRAD_PROBE_HALVINGS at which d(h / 2^t) and d(h / 2^(t+1)) agree within
 * atol 2^t + rtol |d|: the loss's rounding reaches a difference divided by its step, so the
 * absolute part scales with h / s. Where no t does (a kink at the point itself, a curvature or
 * rounding no step resolves), step[i] = 0. */
#define GNN_GRAD_PROBE_HALVINGS 6
typedef struct gnn_grad_probe {
    double h, atol, rtol;          /* in: the first step and the agreement tolerance */
    int inputs;                    /* in: gnn_train_grad_probe: the input features (n, f) are probed
                                      too, as the extra block (the gradient learnable input
                                      embeddings receive: layer 0's input rows'); dense input only */
    int warmup;                    /* in: training steps (Adam updates) before the probed one: the
                                      biases leave 0, where an all-zero row's ReLU inputs sit
                                      exactly on their kinks */
    int64_t cap;                   /* in: the arrays' length */
    double *grad, *fd, *step;      /* out: (cap) each, given by the caller */
    int64_t count, parts[GNN_MAX_LAYERS + 1]; /* out */
} gnn_grad_probe;

/* gnn_train's step under the probe: the model initialized as gnn_train does (cfg->comm ignored:
 * one rank), probe->warmup training steps 0, 1, ... on the probed batch, then step `step` (full
 * batch: the whole graph; mini-batch: the first cfg->batch training vertices in id order, their
 * blocks sampled once) evaluated by the step's own code. Checks as gnn_train. */
gnn_status gnn_train_grad_probe(const gnn_dataset *ds, const gnn_train_config *cfg, uint32_t step,
                                gnn_grad_probe *probe, gnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
