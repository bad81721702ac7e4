/* core/train/model.h -- internal: the models' parameters and one layer's forward and backward,
 * shared by the single-rank and data-parallel trainer (core/train/train.c) and the trainer on
 * partitions (core/train_part*.c); their shared epoch loop is core/train/epoch.h. Not a public
 * header: the types carry no gnn_ prefix. docs/models.md has every equation. */
#ifndef GNNREF_CORE_MODEL_H
#define GNNREF_CORE_MODEL_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "gnnref/act.h"
#include "gnnref/dataset.h"
#include "gnnref/aggregate.h"
#include "gnnref/gat.h"
#include "gnnref/graph.h"
#include "gnnref/impl.h"
#include "gnnref/nn.h"
#include "gnnref/rgcn.h"
#include "gnnref/spmm.h"
#include "gnnref/update.h"
#include "gnnref/tensor.h"
#include "gnnref/train.h"
#include "core/base/clock.h" /* gnn_now_s: the phase timers */

/* ---- parameters ------------------------------------------------------------------------
 * One layer's parameters and their gradients and Adam moments live in flat arrays of the
 * same layout: the model's weights first (weight-decayed per wd_scope), then LayerNorm's
 * gamma and beta (never decayed). Offsets (-1: absent):
 *   sage [W_n (in,out) | W_s (in,out) | b (out)]
 *   gcn  [W (in,out) | b (out)]
 *   gin  [W1 (in,mid) | b1 (mid) | W2 (mid,out) | b2 (out)]
 *   gat  [W (in,H*F) | a_l (H*F) | a_r (H*F) | b]   b: (out) velickovic, (H*F) distgnn
 *   rgcn [W0 (in,out) | W (R,in,out) or V (B,in,out) | a (R,B) with bases | b (out)] */
typedef struct mlayer {
    int64_t in, out;      /* input width, output width (gat: H*F hidden, F output) */
    int64_t heads, f, hf; /* gat: heads, features per head, H*F */
    int64_t mid;          /* gin: MLP hidden width */
    int last;             /* the output layer: no LayerNorm, no activation */
    int project_first;    /* gcn: out < in, so z = A_hat (x W) + b */
    int64_t o_w, o_w2, o_b, o_b2, o_al, o_ar, o_gamma, o_beta;
    int64_t o_rel_a;      /* rgcn with bases: a (R, B) */
    int64_t count, n_decay;
    float *p, *g, *m, *v;
} mlayer;

/* Where a layer's aggregation runs when it is not the block's (gnn_aggregate_*): the distributed
 * full-batch trainer (core/train/train_fullbatch.c) sets it so that layer l aggregates over the whole
 * partitioned graph (include/gnnref/distagg.h). x, out (n_own, d): the rank's owned rows, which
 * are then the block's src and dst rows. NULL: the block's aggregation. */
typedef struct magg_hook {
    gnn_status (*forward)(void *ctx, int l, const float *x, int64_t d, gnn_agg_kind kind, float *out);
    gnn_status (*backward)(void *ctx, int l, const float *dout, int64_t d, gnn_agg_kind kind, float *dx);
    void *ctx;
} magg_hook;

typedef struct model {
    gnn_model_kind kind;
    gnn_gat_variant variant;
    int L, ln;
    float slope;
    mlayer layer[GNN_MAX_LAYERS];
    const gnn_aggregate_ops *agg;
    const gnn_nn_ops *nn;
    const gnn_update_ops *update; /* the fused GEMM + bias + ReLU where a layer has that shape */
    const gnn_gat_ops *gat;
    const gnn_act_ops *act;
    const gnn_spmm_ops *spmm; /* layer 0's product when the input features are CSR */
    const magg_hook *dist;    /* NULL, or the distributed aggregation (sage, gcn, gin) */
    const gnn_rgcn_ops *rgcn;
    int64_t R, B;             /* rgcn: relations, bases */
    const int32_t *etype;     /* rgcn: the relation of every edge of a block without its own
                                 block.etype (the full block's: the graph's CSR order), set by the
                                 trainer; sampled blocks carry theirs (sample_typed.h) */
} model;

/* What a layer's forward keeps for its backward. x is the layer's input after dropout
 * (n_src, in), mask its dropout scale; xs, instead of x (x NULL, xs.indptr set), the same input
 * as CSR (layer 0 with sparse input features: gcn multiplying first, gat; the dropout already
 * applied to its values, no mask: the input layer needs no dX; docs/sparse-features.md); t0, t1 model intermediates (see gnn_layer_fwd); alpha the
 * attention coefficients (gat); z the pre-normalization output (n_dst, out); zn the LayerNorm
 * output, mu/rstd its statistics; y the layer's output (after the activation; = z last). */
typedef struct lcache {
    float *x, *mask, *t0, *t1, *alpha, *z, *zn, *mu, *rstd, *y;
    gnn_fcsr xs;
} lcache;

/* Evaluation keeps only what the next layer reads: once layer l > 0 has run (its input was a
 * copy of layer l-1's output), layer l-1's cache and output go. */
void gnn_lcache_release_below(lcache *C, int l);

/* Randomness of a forward pass: training (dropout on) or evaluation (off). */
typedef struct fwd_key {
    int train;
    float attn_drop;
    uint64_t seed;
    uint32_t step;
} fwd_key;

static inline float *falloc(int64_t n)
{
    return gnn_malloc_scratch((size_t)(n > 0 ? n : 1) * sizeof(float)); /* one step's buffer */
}

/* Row normalization (Kipf & Welling, Velickovic): y = x / sum_j |x_j| per row of x (n, f),
 * the sum in column order; a zero row stays 0. Both trainers use it, so that a part's rows are
 * the bits of the whole graph's. */
static inline void gnn_rows_normalize(const float *x, int64_t n, int64_t f, float *y)
{
    for (int64_t v = 0; v < n; v++) {
        const float *xv = x + v * f;
        float *yv = y + v * f, s = 0.0f;
        for (int64_t j = 0; j < f; j++)
            s += fabsf(xv[j]);
        for (int64_t j = 0; j < f; j++)
            yv[j] = s != 0.0f ? xv[j] / s : xv[j];
    }
}

/* The context a config names (NULL: the optimized one). */
static inline const gnn_impl *gnn_config_impl(const gnn_train_config *c)
{
    return c->impl ? c->impl : gnn_impl_opt();
}

/* Zero every layer's gradient: a rank with an empty mini-batch contributes nothing to the
 * allreduce, but takes part in it. */
static inline void gnn_model_zero_grads(model *m)
{
    for (int l = 0; l < m->L; l++)
        memset(m->layer[l].g, 0, (size_t)m->layer[l].count * sizeof(float));
}

/* Test accuracy of always predicting the most common train label of ds (core/train/train.c). */
double gnn_majority_rate(const gnn_dataset *ds);

/* Glorot weights, zero biases, LayerNorm gamma 1 (parameter indices: model.c). */
gnn_status gnn_model_init(model *m, const gnn_train_config *c, int64_t in, int64_t classes);
void gnn_model_free(model *m);
void gnn_lcache_free(lcache *C);
/* Forward of layer l on C->x (n_src, in): fills the rest of C. */
gnn_status gnn_layer_fwd(const model *m, int l, const gnn_block *blk, lcache *C, const fwd_key *k);
/* Backward of layer l from dy (n_dst, out), which it may overwrite: the layer's parameter
 * gradients into m->layer[l].g and, when dx != NULL, d loss / d x (n_src, in) before the
 * dropout. */
gnn_status gnn_layer_bwd(const model *m, int l, const gnn_block *blk, const lcache *C, const fwd_key *k,
                         float *dy, float *dx);
/* One Adam step (global iteration `step`, 0-based) on every layer with the gradients in g:
 * weight decay per c->wd_scope on the decayed part, none on LayerNorm's. */
void gnn_model_adam(model *m, const gnn_train_config *c, uint32_t step);

#endif
