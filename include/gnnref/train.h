/* include/gnnref/train.h -- single-rank mini-batch GraphSAGE training (DistGNN-MB section 2).
 *
 * Model, per layer l < L (@eq{DistGNN-MB 1}, mean aggregator):
 *   h_in   = Dropout_l(h_l)                         (keyed mask, layer index l)
 *   z      = W_n . mean_{u in S(v)} h_in[u] + W_s . h_in[v] + b
 *   h_l+1  = ReLU(z) for l < L-1; logits = z for the last layer.
 * Dropout is applied to every layer's input: for l > 0 that is Eq. 1's Dropout of the
 * previous layer's output; for l = 0 it is input-feature dropout (as in DGL's GraphSAGE
 * example and Kipf & Welling's GCN). S(v) is the sampled neighborhood of the block.
 * Evaluation uses full neighborhoods, layer by layer over the whole graph, without dropout. */
#ifndef GNNREF_TRAIN_H
#define GNNREF_TRAIN_H

#include <stdint.h>
#include "gnnref/dataset.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GNN_MAX_LAYERS 16

typedef struct gnn_train_config {
    int layers;                         /* L >= 1 */
    int64_t hidden;                     /* width of hidden layers */
    int64_t fanouts[GNN_MAX_LAYERS];    /* per layer, DGL order (fanouts[0] = input layer); -1 = all */
    int64_t batch;                      /* seeds per mini-batch */
    int epochs;
    float lr;
    float dropout;                      /* p in [0, 1) */
    float weight_decay;                 /* L2 added to gradients in Adam */
    uint64_t seed;
    int impl_opt;                       /* 0: ref kernels, 1: opt/cpu kernels */
    int eval_every;                     /* evaluate every k epochs (and always the last); 0 = never */
    /* optional progress hook, called after every step (library code never prints) */
    void (*on_step)(int epoch, int64_t step_in_epoch, int64_t steps_per_epoch, double loss, void *ctx);
    void *on_step_ctx;
} gnn_train_config;

void gnn_train_defaults(gnn_train_config *c);

/* Phases timed per epoch (seconds). */
enum { GNN_PHASE_SAMPLE, GNN_PHASE_FORWARD, GNN_PHASE_BACKWARD, GNN_PHASE_UPDATE, GNN_PHASE_EVAL, GNN_PHASE_COUNT };
extern const char *const gnn_phase_names[GNN_PHASE_COUNT];

typedef struct gnn_epoch_stats {
    int epoch;
    double loss;                        /* mean of the epoch's step losses */
    double train_acc, val_acc, test_acc; /* full-neighborhood evaluation; -1 if not evaluated */
    double time_s;
    double phase_s[GNN_PHASE_COUNT];
    int64_t steps;
    int64_t edges_sampled;
} gnn_epoch_stats;

typedef struct gnn_train_result {
    gnn_epoch_stats *epochs;            /* (n_epochs) */
    int n_epochs;
    double *step_loss;                  /* (n_steps) */
    int64_t n_steps;
    double train_acc, val_acc, test_acc; /* of the final model */
    double best_val_acc, test_acc_at_best_val;
    int best_epoch;
    double majority_rate;               /* test accuracy of always predicting the most common train label */
} gnn_train_result;
void gnn_train_result_free(gnn_train_result *r);

/* Called after each epoch (may be NULL); progress/printing belongs to the caller. */
typedef void (*gnn_epoch_cb)(const gnn_epoch_stats *st, void *ctx);

/* Train GraphSAGE. Needs labels and a split with at least one train vertex.
 * The result depends only on (dataset, config): not on the thread count, nor on impl_opt. */
gnn_status gnn_train_sage(const gnn_dataset *ds, const gnn_train_config *cfg, gnn_epoch_cb cb,
                          void *ctx, gnn_train_result *res, gnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
