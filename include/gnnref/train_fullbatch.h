/* include/gnnref/train_fullbatch.h -- SuperGCN's distributed full-batch training: every rank
 * owns the vertices of its part, every layer aggregates over the whole graph with the
 * pre/post/hybrid exchange of a communication plan, optionally quantized to int2/4/8, and
 * optionally with label propagation at the input (docs/fullbatch.md; SuperGCN section 2 and
 * Fig. 1, @alg{SuperGCN 2}; ../shared/specs/next-capabilities.md A.4, A.5).
 *
 * SPMD and collective over a gnn_comm of P ranks (the simulator or MPI): every rank calls
 * gnn_train_fullbatch_dist with the same dataset, part vector and configuration.
 *
 * One step per epoch (epoch e is global step e):
 *   (LP) draw the propagation mask: training vertex v propagates its label when float draw 0
 *        of (seed, GNN_TAG_LABEL_MASK, step = e (or 0 when drawn once), layer 0, id = v) is
 *        below lp_rate; x0[v] = x[v] + E[y[v]] for those, E (classes, features) learnable;
 *   forward through the model's layers (train.h: sage, gcn, gin), each aggregation over the
 *        owned rows by gnn_distagg_forward (include/gnnref/distagg.h: quantized with bits and
 *        round, keyed by (seed, QUANT, step = e, layer, row id));
 *   loss = sum over the supervised vertices (training vertices that do not propagate) of
 *        nll / (N_train (1 - lp_rate)), N_train the labelled train vertices of the whole graph
 *        (the expected supervised count, as SuperGCN's code; lp_rate 0: the mean over N_train);
 *   backward (gnn_distagg_backward, quantized when quant_backward), the gradients allreduced in
 *        rank order (and E's, when LP is on), one Adam step on every rank.
 * Evaluation: the same forward with fp32 exchanges, no dropout, every training vertex
 * propagating its label; correct counts and the val loss summed over the ranks.
 *
 * Determinism: the step losses are the same bits under the simulator and MPI at the same P,
 * at any thread count, and for the ref and opt contexts (every kernel they run is bitwise its
 * reference; blas differs within the oracle's tolerance). With P = 1 and no LP they are the
 * bits of gnn_train's full-batch mode (train.h) on the same dataset and configuration. With
 * P > 1 the sums of an aggregation run in distagg.h's order, so fp32 training agrees with one
 * rank within rounding, not bitwise.
 *
 * Library code: returns gnn_status with a message in err; never prints. */
#ifndef GNNREF_TRAIN_FULLBATCH_H
#define GNNREF_TRAIN_FULLBATCH_H

#include <stdint.h>
#include "gnnref/comm.h"
#include "gnnref/commplan.h"
#include "gnnref/dataset.h"
#include "gnnref/quant.h"
#include "gnnref/train.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gnn_fb_config {
    gnn_plan_kind plan;      /* default hybrid */
    int bits;                /* 32 (default), 8, 4, 2: the training exchanges' rows */
    gnn_quant_round round;   /* default stochastic */
    int quant_backward;      /* 1 (default): the backward's rows are quantized too */
    float lp_rate;           /* [0, 1): label propagation's share of the training vertices; 0 = off */
    int lp_once;             /* 0 (default): a new mask every epoch (SuperGCN's code); 1: drawn once */
    int tag;                 /* the exchanges' ialltoallv tag (default GNN_DISTAGG_TAG) */
    /* the alpha-beta model of the report's exchange times (the simulator's defaults) */
    double alpha_s, beta_Bps;
} gnn_fb_config;
void gnn_fb_defaults(gnn_fb_config *c);

/* What the ranks bring: the same on every rank. ds: the whole dataset (graph, features,
 * labels, split); part (ds->graph.n): the owner rank of every vertex, in [0, P). Each rank
 * reads the rows it owns (and, for the plan and the exchange's setup, the whole graph). */
typedef struct gnn_fb_input {
    const gnn_dataset *ds;
    const int32_t *part;
} gnn_fb_input;

/* Whole-run figures, the same on every rank. Bytes are summed over the ranks. */
typedef struct gnn_fb_report {
    int ranks;
    int64_t cut_edges;          /* distinct cut edges of the graph aggregated (gcn: with self-loops) */
    int64_t plan_rows;          /* rows of one exchange, all pairs: the plan's total */
    int64_t rows_pre, rows_post, rows_hybrid; /* the same for the pre, post and hybrid plans */
    int64_t own_min, own_max;   /* owned vertices per rank */
    /* training, per layer (aggregation of layer l) and direction, the whole run */
    int64_t fwd_width[GNN_MAX_LAYERS], bwd_width[GNN_MAX_LAYERS]; /* width aggregated; 0: no exchange */
    int64_t fwd_bytes[GNN_MAX_LAYERS], bwd_bytes[GNN_MAX_LAYERS]; /* measured (the communicator's accounting) */
    int64_t epoch_bytes;        /* measured: the training exchanges of one epoch (the first) */
    int64_t epoch_formula;      /* the plan's formula for one epoch: sum over exchanges of
                                   plan_rows x gnn_quant_row_bytes(width, bits) */
    int64_t eval_bytes;         /* the evaluations' fp32 exchanges, all epochs */
    int64_t lp_propagated;      /* training vertices that propagated their label, summed over epochs */
    int64_t n_train;            /* labelled training vertices of the graph */
    /* the exchanges' time, max over ranks, summed over the run's training steps */
    double xchg_model_s;        /* alpha-beta model: per exchange, the slowest incoming segment */
    double xchg_hidden_s;       /* of that, covered by the local aggregation measured between post and wait */
    double xchg_wait_s;         /* measured time in the waits */
} gnn_fb_report;

/* Train cfg->model (sage, gcn or gin; GNN_ERR_INVAL for gat) full batch on partitions
 * (collective). cfg->mode, fanouts, batch and comm are ignored (comm is the communicator);
 * cfg->adapt_threads too. res: gnn_train's result, the same on every rank; rep may be NULL. */
gnn_status gnn_train_fullbatch_dist(gnn_comm *comm, const gnn_fb_input *in, const gnn_train_config *cfg,
                                    const gnn_fb_config *fc, gnn_epoch_cb cb, void *ctx, gnn_train_result *res,
                                    gnn_fb_report *rep, gnn_err *err);

/* gnn_train_fullbatch_dist's step under the gradient probe (train.h, gnn_grad_probe; the
 * oracle's grad.fullbatch). Collective: set up as gnn_train_fullbatch_dist, probe->warmup
 * training steps (epochs 0, 1, ...), then step `step`
 * evaluated by the step's own code (label propagation's mask, dropout and the exchanges keyed by
 * it; fc->bits should be 32: quantized exchanges are not differentiable). The extra parameters
 * are the label embeddings E with LP. The same results on every rank. */
gnn_status gnn_fb_grad_probe(gnn_comm *comm, const gnn_fb_input *in, const gnn_train_config *cfg,
                             const gnn_fb_config *fc, uint32_t step, gnn_grad_probe *probe, gnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
