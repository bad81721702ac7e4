/* core/train.c -- single-rank training glue: GraphSAGE (DistGNN-MB Eq. 1), GCN (Kipf &
 * Welling 2017), GAT (Velickovic et al. 2018; DistGNN-MB Eq. 2) and GIN-0 (Xu et al. 2019),
 * mini-batch (DistGNN-MB section 2) or full-batch. docs/models.md explains every line.
 *
 * One step: take L blocks (sampled from a batch of seeds in DGL order, or the full graph
 * L times), gather input features, forward through L layers, softmax cross-entropy on the
 * labelled seeds, backward, Adam. Kernels come from ops tables (ref or opt/cpu); every
 * choice of randomness is keyed (DESIGN.md section 2); the glue's own loops (bias, head
 * mean, column sums) are serial; so the per-step losses are the same bits at any thread
 * count and for either implementation wherever the kernels are bitwise. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gnnref/act.h"
#include "gnnref/aggregate.h"
#include "gnnref/gat.h"
#include "gnnref/idmap.h"
#include "gnnref/nn.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "gnnref/tensor.h"
#include "gnnref/train.h"

const char *const gnn_phase_names[GNN_PHASE_COUNT] = { "sample", "forward", "backward", "update", "eval", "comm" };

const char *gnn_model_name(gnn_model_kind m)
{
    switch (m) {
    case GNN_MODEL_SAGE: return "sage";
    case GNN_MODEL_GCN: return "gcn";
    case GNN_MODEL_GAT: return "gat";
    case GNN_MODEL_GIN: return "gin";
    }
    return "?";
}

const char *gnn_mode_name(gnn_train_mode m)
{
    return m == GNN_MODE_FULLBATCH ? "fullbatch" : m == GNN_MODE_MINIBATCH ? "minibatch" : "?";
}

void gnn_train_defaults(gnn_train_config *c)
{
    memset(c, 0, sizeof *c);
    c->model = GNN_MODEL_SAGE;
    c->mode = GNN_MODE_MINIBATCH;
    c->layers = 2;
    c->hidden = 64;
    for (int l = 0; l < GNN_MAX_LAYERS; l++)
        c->fanouts[l] = 10;
    c->batch = 256;
    c->epochs = 100;
    c->lr = 0.01f;
    c->dropout = 0.5f;
    c->weight_decay = 5e-4f;
    c->seed = 1;
    c->impl_opt = 1;
    c->eval_every = 1;
    c->patience = 0;
    c->heads = 8;
    c->out_heads = 1;
    c->gat_variant = GNN_GAT_VELICKOVIC;
    c->attn_dropout = -1.0f;
    c->gat_slope = 0.2f;
    c->layernorm = 0;
    c->feat_norm = GNN_FEAT_NORM_AUTO;
    c->wd_scope = GNN_WD_AUTO;
}

void gnn_train_resolve(gnn_train_config *c)
{
    if (c->feat_norm == GNN_FEAT_NORM_AUTO)
        c->feat_norm = (c->model == GNN_MODEL_GCN || c->model == GNN_MODEL_GAT) ? GNN_FEAT_NORM_ROW
                                                                               : GNN_FEAT_NORM_NONE;
    if (c->wd_scope == GNN_WD_AUTO)
        c->wd_scope = c->model == GNN_MODEL_GCN ? GNN_WD_FIRST : GNN_WD_ALL;
    if (c->attn_dropout < 0.0f)
        c->attn_dropout = c->dropout;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- parameters ------------------------------------------------------------------------
 * One layer's parameters and their gradients and Adam moments live in flat arrays of the
 * same layout: the model's weights first (weight-decayed per wd_scope), then LayerNorm's
 * gamma and beta (never decayed). Offsets (-1: absent):
 *   sage [W_n (in,out) | W_s (in,out) | b (out)]
 *   gcn  [W (in,out) | b (out)]
 *   gin  [W1 (in,mid) | b1 (mid) | W2 (mid,out) | b2 (out)]
 *   gat  [W (in,H*F) | a_l (H*F) | a_r (H*F) | b]   b: (out) velickovic, (H*F) distgnn */
typedef struct layer {
    int64_t in, out;      /* input width, output width (gat: H*F hidden, F output) */
    int64_t heads, f, hf; /* gat: heads, features per head, H*F */
    int64_t mid;          /* gin: MLP hidden width */
    int last;             /* the output layer: no LayerNorm, no activation */
    int project_first;    /* gcn: out < in, so z = A_hat (x W) + b */
    int64_t o_w, o_w2, o_b, o_b2, o_al, o_ar, o_gamma, o_beta;
    int64_t count, n_decay;
    float *p, *g, *m, *v;
} layer;

typedef struct model {
    gnn_model_kind kind;
    gnn_gat_variant variant;
    int L, ln;
    float slope;
    layer layer[GNN_MAX_LAYERS];
    const gnn_aggregate_ops *agg;
    const gnn_nn_ops *nn;
    const gnn_gat_ops *gat;
    const gnn_act_ops *act;
} model;

static void model_free(model *m)
{
    for (int l = 0; l < m->L; l++) {
        gnn_free(m->layer[l].p);
        gnn_free(m->layer[l].g);
        gnn_free(m->layer[l].m);
        gnn_free(m->layer[l].v);
    }
}

static int64_t take(int64_t *count, int64_t n)
{
    const int64_t o = *count;
    *count += n;
    return o;
}

/* Glorot uniform for the weights (parameter index 2l, 2l+1 for sage, as before the other
 * models existed; 4096 l + 512 k + h for the others, k the weight's rank in the layer, h the
 * head), biases 0, LayerNorm gamma 1 and beta 0. gat's attention vectors: Glorot of a
 * (F, 1) matrix per head, as Velickovic's one-output convolution. */
static gnn_status model_init(model *m, const gnn_train_config *c, int64_t in, int64_t classes)
{
    memset(m, 0, sizeof *m);
    m->kind = c->model;
    m->variant = c->gat_variant;
    m->L = c->layers;
    m->ln = c->layernorm;
    m->slope = c->gat_slope;
    m->agg = c->impl_opt ? &gnn_aggregate_cpu : &gnn_aggregate_ref;
    m->nn = c->impl_opt ? &gnn_nn_cpu : &gnn_nn_ref;
    m->gat = c->impl_opt ? &gnn_gat_cpu : &gnn_gat_ref;
    m->act = c->impl_opt ? &gnn_act_cpu : &gnn_act_ref;
    int64_t width = in;
    for (int l = 0; l < m->L; l++) {
        layer *S = &m->layer[l];
        S->last = l == m->L - 1;
        S->in = width;
        S->o_w = S->o_w2 = S->o_b = S->o_b2 = S->o_al = S->o_ar = S->o_gamma = S->o_beta = -1;
        int64_t n = 0;
        switch (m->kind) {
        case GNN_MODEL_SAGE:
            S->out = S->last ? classes : c->hidden;
            S->o_w = take(&n, S->in * S->out);
            S->o_w2 = take(&n, S->in * S->out);
            S->o_b = take(&n, S->out);
            break;
        case GNN_MODEL_GCN:
            S->out = S->last ? classes : c->hidden;
            S->project_first = S->out < S->in;
            S->o_w = take(&n, S->in * S->out);
            S->o_b = take(&n, S->out);
            break;
        case GNN_MODEL_GIN:
            S->out = S->last ? classes : c->hidden;
            S->mid = c->hidden;
            S->o_w = take(&n, S->in * S->mid);
            S->o_b = take(&n, S->mid);
            S->o_w2 = take(&n, S->mid * S->out);
            S->o_b2 = take(&n, S->out);
            break;
        case GNN_MODEL_GAT:
            S->heads = S->last ? c->out_heads : c->heads;
            S->f = S->last ? classes : c->hidden;
            S->hf = S->heads * S->f;
            S->out = S->last ? S->f : S->hf;
            S->o_w = take(&n, S->in * S->hf);
            S->o_al = take(&n, S->hf);
            S->o_ar = take(&n, S->hf);
            S->o_b = take(&n, m->variant == GNN_GAT_DISTGNN ? S->hf : S->out);
            break;
        }
        S->n_decay = n;
        if (m->ln && !S->last) {
            S->o_gamma = take(&n, S->out);
            S->o_beta = take(&n, S->out);
        }
        S->count = n;
        S->p = gnn_calloc((size_t)n, sizeof(float));
        S->g = gnn_calloc((size_t)n, sizeof(float));
        S->m = gnn_calloc((size_t)n, sizeof(float));
        S->v = gnn_calloc((size_t)n, sizeof(float));
        if (!S->p || !S->g || !S->m || !S->v) {
            m->L = l + 1;
            model_free(m);
            return GNN_ERR_NOMEM;
        }
        const unsigned base = (unsigned)l * 4096u;
        switch (m->kind) {
        case GNN_MODEL_SAGE:
            gnn_glorot_init(S->p + S->o_w, S->in, S->out, c->seed, (unsigned)(2 * l));
            gnn_glorot_init(S->p + S->o_w2, S->in, S->out, c->seed, (unsigned)(2 * l + 1));
            break;
        case GNN_MODEL_GCN:
            gnn_glorot_init(S->p + S->o_w, S->in, S->out, c->seed, base);
            break;
        case GNN_MODEL_GIN:
            gnn_glorot_init(S->p + S->o_w, S->in, S->mid, c->seed, base);
            gnn_glorot_init(S->p + S->o_w2, S->mid, S->out, c->seed, base + 512u);
            break;
        case GNN_MODEL_GAT:
            gnn_glorot_init(S->p + S->o_w, S->in, S->hf, c->seed, base);
            for (int64_t h = 0; h < S->heads; h++) {
                gnn_glorot_init(S->p + S->o_al + h * S->f, S->f, 1, c->seed, base + 512u + (unsigned)h);
                gnn_glorot_init(S->p + S->o_ar + h * S->f, S->f, 1, c->seed, base + 1024u + (unsigned)h);
            }
            break;
        }
        if (S->o_gamma >= 0)
            for (int64_t j = 0; j < S->out; j++)
                S->p[S->o_gamma + j] = 1.0f;
        width = S->out;
    }
    return GNN_OK;
}

/* ---- one layer, forward and backward ----------------------------------------------------- */

/* What a layer's forward keeps for its backward. x is the layer's input after dropout
 * (n_src, in), mask its dropout scale; t0, t1 model intermediates (see layer_fwd); alpha the
 * attention coefficients (gat); z the pre-normalization output (n_dst, out); zn the LayerNorm
 * output, mu/rstd its statistics; y the layer's output (after the activation; = z last). */
typedef struct lcache {
    float *x, *mask, *t0, *t1, *alpha, *z, *zn, *mu, *rstd, *y;
} lcache;

static void lcache_free(lcache *C)
{
    gnn_free(C->x);
    gnn_free(C->mask);
    gnn_free(C->t0);
    gnn_free(C->t1);
    gnn_free(C->alpha);
    gnn_free(C->z);
    gnn_free(C->zn);
    gnn_free(C->mu);
    gnn_free(C->rstd);
    gnn_free(C->y);
    memset(C, 0, sizeof *C);
}

static float *falloc(int64_t n)
{
    return gnn_malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
}

/* Randomness of a forward pass: training (dropout on) or evaluation (off). */
typedef struct fwd_key {
    int train;
    float attn_drop;
    uint64_t seed;
    uint32_t step;
} fwd_key;

static void add_bias(float *z, int64_t n, int64_t d, const float *b)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < d; j++)
            z[i * d + j] += b[j];
}

/* db[j] = sum_i dz[i][j], i ascending (the order of linear_bwd's db). */
static void col_sums(const float *dz, int64_t n, int64_t d, float *db)
{
    memset(db, 0, (size_t)d * sizeof(float));
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < d; j++)
            db[j] += dz[i * d + j];
}

static gnn_gat_params gat_params(const model *m, int l, const gnn_block *blk, const fwd_key *k)
{
    const layer *S = &m->layer[l];
    gnn_gat_params gp = { .heads = S->heads, .f = S->f, .slope = m->slope,
                          .attn_drop = k->train ? k->attn_drop : 0.0f, .seed = k->seed,
                          .step = k->step, .layer = (unsigned)l, .dst_gid = blk->src_gid };
    return gp;
}

/* Forward of layer l on C->x (n_src, in): fills the rest of C. */
static gnn_status layer_fwd(const model *m, int l, const gnn_block *blk, lcache *C, const fwd_key *k)
{
    const layer *S = &m->layer[l];
    const float *P = S->p;
    const int64_t ns = blk->n_src, nd = blk->n_dst;
    gnn_status st = GNN_OK;
    if (!(C->z = falloc(nd * S->out)))
        return GNN_ERR_NOMEM;
    switch (m->kind) {
    case GNN_MODEL_SAGE: /* t0 = mean (nd, in); z = t0 W_n + b; t1 = x[dst] W_s; z += t1 */
        if (!(C->t0 = falloc(nd * S->in)) || !(C->t1 = falloc(nd * S->out)))
            return GNN_ERR_NOMEM;
        if ((st = m->agg->forward(blk, C->x, S->in, GNN_AGG_MEAN, C->t0)))
            return st;
        m->nn->linear_fwd(C->t0, nd, S->in, P + S->o_w, P + S->o_b, S->out, C->z);
        m->nn->linear_fwd(C->x, nd, S->in, P + S->o_w2, NULL, S->out, C->t1); /* dst = src 0..nd-1 */
        for (int64_t i = 0; i < nd * S->out; i++)
            C->z[i] += C->t1[i];
        gnn_free(C->t1);
        C->t1 = NULL;
        break;
    case GNN_MODEL_GCN:
        if (S->project_first) { /* t0 = x W (ns, out); z = A_hat t0 + b */
            if (!(C->t0 = falloc(ns * S->out)))
                return GNN_ERR_NOMEM;
            m->nn->linear_fwd(C->x, ns, S->in, P + S->o_w, NULL, S->out, C->t0);
            if ((st = m->agg->forward(blk, C->t0, S->out, GNN_AGG_GCN, C->z)))
                return st;
            add_bias(C->z, nd, S->out, P + S->o_b);
            if (k->train == 0) { /* x W is not needed for the backward of evaluation */
                gnn_free(C->t0);
                C->t0 = NULL;
            }
        } else { /* t0 = A_hat x (nd, in); z = t0 W + b */
            if (!(C->t0 = falloc(nd * S->in)))
                return GNN_ERR_NOMEM;
            if ((st = m->agg->forward(blk, C->x, S->in, GNN_AGG_GCN, C->t0)))
                return st;
            m->nn->linear_fwd(C->t0, nd, S->in, P + S->o_w, P + S->o_b, S->out, C->z);
        }
        break;
    case GNN_MODEL_GIN: /* t0 = x[dst] + sum (nd, in); t1 = ReLU(t0 W1 + b1) (nd, mid); z = t1 W2 + b2 */
        if (!(C->t0 = falloc(nd * S->in)) || !(C->t1 = falloc(nd * S->mid)))
            return GNN_ERR_NOMEM;
        if ((st = m->agg->forward(blk, C->x, S->in, GNN_AGG_SUM, C->t0)))
            return st;
        for (int64_t i = 0; i < nd * S->in; i++) /* (1 + eps) h_v with eps = 0, added last */
            C->t0[i] += C->x[i];
        m->nn->linear_fwd(C->t0, nd, S->in, P + S->o_w, P + S->o_b, S->mid, C->t1);
        gnn_relu_fwd(C->t1, nd * S->mid);
        m->nn->linear_fwd(C->t1, nd, S->mid, P + S->o_w2, P + S->o_b2, S->out, C->z);
        break;
    case GNN_MODEL_GAT: { /* t0 = projection (ns, H*F); t1 = attention output (nd, H*F) */
        const int dist = m->variant == GNN_GAT_DISTGNN;
        if (!(C->t0 = falloc(ns * S->hf)) || !(C->t1 = falloc(nd * S->hf)))
            return GNN_ERR_NOMEM;
        if (k->train && !(C->alpha = falloc(blk->nnz * S->heads)))
            return GNN_ERR_NOMEM;
        m->nn->linear_fwd(C->x, ns, S->in, P + S->o_w, dist ? P + S->o_b : NULL, S->hf, C->t0);
        if (dist && !S->last) /* Eq. 2's ReLU; the output layer's projection stays linear */
            gnn_relu_fwd(C->t0, ns * S->hf);
        const gnn_gat_params gp = gat_params(m, l, blk, k);
        if ((st = m->gat->forward(blk, C->t0, P + S->o_al, P + S->o_ar, &gp, C->t1, C->alpha)))
            return st;
        if (!S->last) { /* heads concatenated */
            memcpy(C->z, C->t1, (size_t)(nd * S->hf) * sizeof(float));
        } else { /* heads averaged: sum in head order, then divide */
            for (int64_t i = 0; i < nd; i++)
                for (int64_t f = 0; f < S->f; f++) {
                    float acc = 0.0f;
                    for (int64_t h = 0; h < S->heads; h++)
                        acc += C->t1[i * S->hf + h * S->f + f];
                    C->z[i * S->f + f] = acc / (float)S->heads;
                }
        }
        if (!dist)
            add_bias(C->z, nd, S->out, P + S->o_b);
        break;
    }
    }
    if (S->last) {
        C->y = C->z; /* logits */
        C->z = NULL;
        return GNN_OK;
    }
    const float *pre = C->z;
    if (m->ln) {
        if (!(C->zn = falloc(nd * S->out)) || !(C->mu = falloc(nd)) || !(C->rstd = falloc(nd)))
            return GNN_ERR_NOMEM;
        if ((st = m->act->layernorm_fwd(C->z, nd, S->out, P + S->o_gamma, P + S->o_beta, 1e-5f, C->zn, C->mu,
                                        C->rstd)))
            return st;
        pre = C->zn;
    }
    if (!(C->y = falloc(nd * S->out)))
        return GNN_ERR_NOMEM;
    if (m->kind == GNN_MODEL_GAT) {
        m->act->elu_fwd(pre, nd * S->out, 1.0f, C->y);
    } else {
        memcpy(C->y, pre, (size_t)(nd * S->out) * sizeof(float));
        gnn_relu_fwd(C->y, nd * S->out);
    }
    return GNN_OK;
}

/* Backward of layer l from dy (n_dst, out), which it may overwrite. Writes the layer's
 * parameter gradients into S->g and, when dx != NULL, d loss / d x (n_src, in) before the
 * dropout (i.e. w.r.t. the previous layer's output). */
static gnn_status layer_bwd(const model *m, int l, const gnn_block *blk, const lcache *C, const fwd_key *k,
                            float *dy, float *dx)
{
    const layer *S = &m->layer[l];
    const float *P = S->p;
    float *G = S->g;
    const int64_t ns = blk->n_src, nd = blk->n_dst;
    gnn_status st = GNN_OK;
    float *dz = dy, *s1 = NULL, *s2 = NULL;
    if (!S->last) { /* activation, then LayerNorm */
        if (!(s1 = falloc(nd * S->out)))
            return GNN_ERR_NOMEM;
        if (m->kind == GNN_MODEL_GAT) { /* from the ELU's input; out of place */
            m->act->elu_bwd(m->ln ? C->zn : C->z, dy, nd * S->out, 1.0f, s1);
            memcpy(dy, s1, (size_t)(nd * S->out) * sizeof(float));
        } else {
            gnn_relu_bwd(C->y, dy, nd * S->out);
        }
        if (m->ln) {
            if ((st = m->act->layernorm_bwd(C->z, dy, nd, S->out, P + S->o_gamma, C->mu, C->rstd, s1,
                                            G + S->o_gamma, G + S->o_beta)))
                goto done;
            memcpy(dy, s1, (size_t)(nd * S->out) * sizeof(float));
        }
        gnn_free(s1);
        s1 = NULL;
    }
    switch (m->kind) {
    case GNN_MODEL_SAGE:
        /* W_n, b from the mean; W_s from the dst rows of x */
        if (dx && (!(s1 = falloc(nd * S->in)) || !(s2 = falloc(nd * S->in)))) {
            st = GNN_ERR_NOMEM;
            goto done;
        }
        m->nn->linear_bwd(C->t0, dz, nd, S->in, P + S->o_w, S->out, s1, G + S->o_w, G + S->o_b);
        m->nn->linear_bwd(C->x, dz, nd, S->in, P + S->o_w2, S->out, s2, G + S->o_w2, NULL);
        if (dx) {
            if ((st = m->agg->backward(blk, s1, S->in, GNN_AGG_MEAN, dx)))
                goto done;
            for (int64_t i = 0; i < nd * S->in; i++) /* self path of the dst rows */
                dx[i] += s2[i];
        }
        break;
    case GNN_MODEL_GCN:
        if (S->project_first) {
            if (!(s1 = falloc(ns * S->out))) {
                st = GNN_ERR_NOMEM;
                goto done;
            }
            col_sums(dz, nd, S->out, G + S->o_b);
            if ((st = m->agg->backward(blk, dz, S->out, GNN_AGG_GCN, s1)))
                goto done;
            m->nn->linear_bwd(C->x, s1, ns, S->in, P + S->o_w, S->out, dx, G + S->o_w, NULL);
        } else {
            if (dx && !(s1 = falloc(nd * S->in))) {
                st = GNN_ERR_NOMEM;
                goto done;
            }
            m->nn->linear_bwd(C->t0, dz, nd, S->in, P + S->o_w, S->out, dx ? s1 : NULL, G + S->o_w, G + S->o_b);
            if (dx && (st = m->agg->backward(blk, s1, S->in, GNN_AGG_GCN, dx)))
                goto done;
        }
        break;
    case GNN_MODEL_GIN:
        if (!(s1 = falloc(nd * S->mid)) || (dx && !(s2 = falloc(nd * S->in)))) {
            st = GNN_ERR_NOMEM;
            goto done;
        }
        m->nn->linear_bwd(C->t1, dz, nd, S->mid, P + S->o_w2, S->out, s1, G + S->o_w2, G + S->o_b2);
        gnn_relu_bwd(C->t1, s1, nd * S->mid);
        m->nn->linear_bwd(C->t0, s1, nd, S->in, P + S->o_w, S->mid, s2, G + S->o_w, G + S->o_b);
        if (dx) {
            if ((st = m->agg->backward(blk, s2, S->in, GNN_AGG_SUM, dx)))
                goto done;
            for (int64_t i = 0; i < nd * S->in; i++)
                dx[i] += s2[i];
        }
        break;
    case GNN_MODEL_GAT: {
        const int dist = m->variant == GNN_GAT_DISTGNN;
        if (!(s1 = falloc(nd * S->hf)) || !(s2 = falloc(ns * S->hf))) {
            st = GNN_ERR_NOMEM;
            goto done;
        }
        if (!dist)
            col_sums(dz, nd, S->out, G + S->o_b);
        if (!S->last) {
            memcpy(s1, dz, (size_t)(nd * S->hf) * sizeof(float));
        } else {
            for (int64_t i = 0; i < nd; i++)
                for (int64_t h = 0; h < S->heads; h++)
                    for (int64_t f = 0; f < S->f; f++)
                        s1[i * S->hf + h * S->f + f] = dz[i * S->f + f] / (float)S->heads;
        }
        const gnn_gat_params gp = gat_params(m, l, blk, k);
        if ((st = m->gat->backward(blk, C->t0, P + S->o_al, P + S->o_ar, &gp, C->alpha, s1, s2, G + S->o_al,
                                   G + S->o_ar)))
            goto done;
        if (dist && !S->last)
            gnn_relu_bwd(C->t0, s2, ns * S->hf);
        m->nn->linear_bwd(C->x, s2, ns, S->in, P + S->o_w, S->hf, dx, G + S->o_w, dist ? G + S->o_b : NULL);
        break;
    }
    }
    if (dx && C->mask)
        gnn_dropout_bwd(dx, ns, S->in, C->mask);
done:
    gnn_free(s1);
    gnn_free(s2);
    return st;
}

/* ---- the trainer -------------------------------------------------------------------------- */

typedef struct trainer {
    const gnn_dataset *ds;
    gnn_train_config cfg;   /* resolved copy */
    const gnn_csr *graph;   /* ds->graph, or `loops` (gcn, gat) */
    gnn_csr loops;          /* the graph with self-loops (A + I) */
    const float *feat;      /* ds->feat, or `normed` */
    float *normed;          /* row-normalized features */
    gnn_block full;         /* the full block of `graph` (evaluation, full-batch steps) */
    gnn_sampler *sampler;   /* opt mini-batch: fused sampling with the dense ordered ID map */
    model m;
    int64_t *train_ids;
    int64_t n_train;
    int32_t *fb_labels;     /* full-batch: label of this rank's train vertices, -1 elsewhere */
    gnn_comm *comm;         /* NULL or one rank: no communication */
    int P, rank;
    float *gbuf;            /* P > 1: every layer's gradient, packed for one allreduce */
    int64_t n_params;
} trainer;

static void gather_features(const trainer *T, const int64_t *gid, int64_t n, float *out)
{
    const int64_t f = T->ds->num_features;
    for (int64_t i = 0; i < n; i++)
        memcpy(out + i * f, T->feat + gid[i] * f, (size_t)f * sizeof(float));
}

/* Forward through all layers on blocks blk[0..L) (blk[l] of layer l); C[l] filled.
 * The logits are C[L-1].y. */
static gnn_status forward_all(const trainer *T, const gnn_block *const *blk, lcache *C, const fwd_key *k)
{
    const model *m = &T->m;
    const gnn_train_config *c = &T->cfg;
    for (int l = 0; l < m->L; l++) {
        const layer *S = &m->layer[l];
        const int64_t ns = blk[l]->n_src;
        if (!(C[l].x = falloc(ns * S->in)))
            return GNN_ERR_NOMEM;
        if (l == 0)
            gather_features(T, blk[0]->src_gid, ns, C[0].x);
        else /* the next layer's src are this layer's dst: same rows, same order */
            memcpy(C[l].x, C[l - 1].y, (size_t)(ns * S->in) * sizeof(float));
        if (k->train && c->dropout > 0.0f) {
            if (!(C[l].mask = falloc(ns * S->in)))
                return GNN_ERR_NOMEM;
            gnn_dropout_fwd(C[l].x, ns, S->in, blk[l]->src_gid, c->dropout, c->seed, k->step, (unsigned)l,
                            C[l].mask);
        }
        gnn_status st = layer_fwd(m, l, blk[l], &C[l], k);
        if (st)
            return st;
        if (!k->train && l > 0) { /* evaluation keeps only what the next layer reads */
            float *y = C[l - 1].y;
            C[l - 1].y = NULL;
            lcache_free(&C[l - 1]);
            gnn_free(y);
        }
    }
    return GNN_OK;
}

/* Sum the gradients of all ranks (deterministic allreduce, rank order) and the step's loss
 * sum and sampled edges (sums[2]); a no-op on one rank. */
static gnn_status allreduce_grads(trainer *T, double sums[2], double *phase)
{
    if (T->P <= 1)
        return GNN_OK;
    const double t0 = now_s();
    const model *m = &T->m;
    int64_t o = 0;
    for (int l = 0; l < m->L; l++) {
        memcpy(T->gbuf + o, m->layer[l].g, (size_t)m->layer[l].count * sizeof(float));
        o += m->layer[l].count;
    }
    gnn_status st = gnn_comm_allreduce(T->comm, T->gbuf, T->gbuf, T->n_params, GNN_DT_F32);
    if (!st)
        st = gnn_comm_allreduce(T->comm, sums, sums, 2, GNN_DT_F64);
    o = 0;
    for (int l = 0; l < m->L && !st; l++) {
        memcpy(m->layer[l].g, T->gbuf + o, (size_t)m->layer[l].count * sizeof(float));
        o += m->layer[l].count;
    }
    phase[GNN_PHASE_COMM] += now_s() - t0;
    return st;
}

/* One training step on blocks blk (seeds = dst of blk[L-1]) with labels lab (n_seeds):
 * the loss is summed over the labelled seeds and divided by denom, the labelled count of
 * the global mini-batch, of which this rank holds a slice (blk == NULL: an empty slice,
 * whose gradients are zero). With P ranks the gradients are then allreduced, so every rank
 * applies the same update. *loss: the global batch's mean loss; *edges += sampled edges of
 * all ranks. */
static gnn_status train_step(trainer *T, const gnn_block *const *blk, const int32_t *lab, uint32_t step,
                             double denom, double *loss, double *edges, double *phase)
{
    const gnn_train_config *c = &T->cfg;
    model *m = &T->m;
    const int L = m->L;
    lcache C[GNN_MAX_LAYERS];
    memset(C, 0, sizeof C);
    float *dy = NULL, *dx = NULL;
    gnn_status st;
    const fwd_key k = { .train = 1, .attn_drop = c->attn_dropout, .seed = c->seed, .step = step };
    double sums[2] = { 0.0, *edges };

    double t1 = now_s(), t2 = t1, t3 = t1;
    if (!blk) {
        for (int l = 0; l < L; l++)
            memset(m->layer[l].g, 0, (size_t)m->layer[l].count * sizeof(float));
        goto reduce;
    }
    if ((st = forward_all(T, blk, C, &k)))
        goto done;
    const int64_t n_seeds = blk[L - 1]->n_dst, classes = m->layer[L - 1].out;
    if (!(dy = falloc(n_seeds * classes))) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    sums[0] = gnn_softmax_xent_sum(C[L - 1].y, n_seeds, classes, lab, denom, dy, NULL);
    t2 = now_s();
    phase[GNN_PHASE_FORWARD] += t2 - t1;

    for (int l = L - 1; l >= 0; l--) {
        const layer *S = &m->layer[l];
        if (l > 0 && !(dx = falloc(blk[l]->n_src * S->in))) {
            st = GNN_ERR_NOMEM;
            goto done;
        }
        if ((st = layer_bwd(m, l, blk[l], &C[l], &k, dy, l > 0 ? dx : NULL)))
            goto done;
        gnn_free(dy);
        dy = dx; /* d loss / d y[l-1] */
        dx = NULL;
    }
    t3 = now_s();
    phase[GNN_PHASE_BACKWARD] += t3 - t2;
reduce:
    if ((st = allreduce_grads(T, sums, phase)))
        goto done;
    *loss = sums[0] / denom;
    *edges = sums[1];
    t3 = now_s();

    for (int l = 0; l < L; l++) {
        layer *S = &m->layer[l];
        const float wd = (c->wd_scope == GNN_WD_FIRST && l > 0) ? 0.0f : c->weight_decay;
        const gnn_adam decayed = { c->lr, 0.9f, 0.999f, 1e-8f, wd };
        const gnn_adam plain = { c->lr, 0.9f, 0.999f, 1e-8f, 0.0f };
        gnn_adam_step(&decayed, (int64_t)step + 1, S->p, S->g, S->m, S->v, S->n_decay);
        if (S->count > S->n_decay)
            gnn_adam_step(&plain, (int64_t)step + 1, S->p + S->n_decay, S->g + S->n_decay, S->m + S->n_decay,
                          S->v + S->n_decay, S->count - S->n_decay);
    }
    phase[GNN_PHASE_UPDATE] += now_s() - t3;
    st = GNN_OK;
done:
    for (int l = 0; l < L; l++)
        lcache_free(&C[l]);
    gnn_free(dy);
    gnn_free(dx);
    return st;
}

/* One mini-batch step: sample L blocks from this rank's `seeds` (its slice of the global
 * batch, possibly empty), then train_step. */
static gnn_status minibatch_step(trainer *T, const int64_t *seeds, int64_t n_seeds, double denom, uint32_t step,
                                 double *loss, double *phase, int64_t *edges)
{
    const gnn_train_config *c = &T->cfg;
    const int L = T->m.L;
    gnn_block blk[GNN_MAX_LAYERS];
    const gnn_block *bp[GNN_MAX_LAYERS];
    memset(blk, 0, sizeof blk);
    int32_t *lab = NULL;
    double t0 = now_s(), all_edges = 0.0;
    gnn_status st;
    if (n_seeds == 0) {
        st = train_step(T, NULL, NULL, step, denom, loss, &all_edges, phase);
        *edges += (int64_t)all_edges;
        return st;
    }
    const gnn_sample_params base = { .seed = c->seed, .step = step };
    /* the fused sampler's blocks equal the reference's bit for bit (ordered ID map) */
    st = T->sampler ? gnn_sampler_blocks(T->sampler, seeds, n_seeds, c->fanouts, L, &base, blk)
                    : gnn_sample_blocks(&gnn_sample_ref, T->graph, seeds, n_seeds, c->fanouts, L, &base, blk);
    if (st)
        goto done;
    for (int l = 0; l < L; l++) {
        all_edges += (double)blk[l].nnz;
        bp[l] = &blk[l];
    }
    phase[GNN_PHASE_SAMPLE] += now_s() - t0;
    if (!(lab = gnn_malloc((size_t)n_seeds * sizeof(int32_t)))) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    for (int64_t i = 0; i < n_seeds; i++)
        lab[i] = T->ds->labels[seeds[i]];
    st = train_step(T, bp, lab, step, denom, loss, &all_edges, phase);
    *edges += (int64_t)all_edges;
done:
    for (int l = 0; l < L; l++)
        gnn_block_free(&blk[l]);
    gnn_free(lab);
    return st;
}

/* Full-neighborhood inference over the whole graph, layer by layer, without dropout:
 * accuracies per split (acc[1..3]) and the val cross-entropy (*val_loss). */
static gnn_status evaluate(trainer *T, double acc[4], double *val_loss)
{
    const gnn_dataset *ds = T->ds;
    const model *m = &T->m;
    const int64_t n = ds->graph.n, classes = m->layer[m->L - 1].out;
    lcache C[GNN_MAX_LAYERS];
    const gnn_block *bp[GNN_MAX_LAYERS];
    memset(C, 0, sizeof C);
    for (int l = 0; l < m->L; l++)
        bp[l] = &T->full;
    const fwd_key k = { .train = 0, .seed = T->cfg.seed };
    int32_t *pred = gnn_malloc((size_t)n * sizeof(int32_t)), *vl = gnn_malloc((size_t)n * sizeof(int32_t));
    float *scratch = falloc(n * classes);
    gnn_status st = GNN_ERR_NOMEM;
    if (!pred || !vl || !scratch)
        goto done;
    if ((st = forward_all(T, bp, C, &k)))
        goto done;
    const float *logits = C[m->L - 1].y;
    gnn_argmax(logits, n, classes, pred);
    int64_t right[4] = { 0 }, total[4] = { 0 };
    for (int64_t v = 0; v < n; v++) {
        const int s = ds->split[v];
        vl[v] = s == GNN_SPLIT_VAL ? ds->labels[v] : -1;
        if (s < 1 || s > 3 || ds->labels[v] < 0)
            continue;
        total[s]++;
        right[s] += pred[v] == ds->labels[v];
    }
    for (int s = 1; s < 4; s++)
        acc[s] = total[s] ? (double)right[s] / (double)total[s] : 0.0;
    *val_loss = total[GNN_SPLIT_VAL] ? gnn_softmax_xent(logits, n, classes, vl, scratch, NULL) : 0.0;
done:
    for (int l = 0; l < m->L; l++)
        lcache_free(&C[l]);
    gnn_free(pred);
    gnn_free(vl);
    gnn_free(scratch);
    return st;
}

void gnn_train_result_free(gnn_train_result *r)
{
    free(r->epochs);
    free(r->step_loss);
    memset(r, 0, sizeof *r);
}

static gnn_status check_inputs(const gnn_dataset *ds, const gnn_train_config *c, gnn_err *err)
{
    if ((unsigned)c->model > GNN_MODEL_GIN)
        return gnn_err_set(err, GNN_ERR_INVAL, "model %d: expected sage, gcn, gat or gin", (int)c->model);
    if ((unsigned)c->mode > GNN_MODE_FULLBATCH)
        return gnn_err_set(err, GNN_ERR_INVAL, "mode %d: expected minibatch or fullbatch", (int)c->mode);
    if (c->layers < 1 || c->layers > GNN_MAX_LAYERS)
        return gnn_err_set(err, GNN_ERR_INVAL, "--layers %d: expected 1..%d", c->layers, GNN_MAX_LAYERS);
    if (c->hidden < 1 || c->batch < 1 || c->epochs < 0)
        return gnn_err_set(err, GNN_ERR_INVAL, "hidden, batch must be >= 1 and epochs >= 0");
    if (!(c->dropout >= 0.0f && c->dropout < 1.0f))
        return gnn_err_set(err, GNN_ERR_INVAL, "--dropout %g: expected [0, 1)", (double)c->dropout);
    if (!(c->attn_dropout < 1.0f)) /* negative: same as dropout */
        return gnn_err_set(err, GNN_ERR_INVAL, "--attn-dropout %g: expected [0, 1)", (double)c->attn_dropout);
    if (!(c->lr > 0.0f))
        return gnn_err_set(err, GNN_ERR_INVAL, "--lr %g: expected > 0", (double)c->lr);
    if (!(c->weight_decay >= 0.0f))
        return gnn_err_set(err, GNN_ERR_INVAL, "--weight-decay %g: expected >= 0", (double)c->weight_decay);
    if (c->patience < 0)
        return gnn_err_set(err, GNN_ERR_INVAL, "--patience %d: expected >= 0 (0 = off)", c->patience);
    if (c->model == GNN_MODEL_GAT) {
        if (c->heads < 1 || c->heads > GNN_MAX_HEADS || c->out_heads < 1 || c->out_heads > GNN_MAX_HEADS)
            return gnn_err_set(err, GNN_ERR_INVAL, "--heads %lld / --out-heads %lld: expected 1..%d",
                               (long long)c->heads, (long long)c->out_heads, GNN_MAX_HEADS);
        if ((unsigned)c->gat_variant > GNN_GAT_DISTGNN)
            return gnn_err_set(err, GNN_ERR_INVAL, "gat variant %d: expected velickovic or distgnn", (int)c->gat_variant);
        if (!(c->gat_slope >= 0.0f && c->gat_slope < 1.0f))
            return gnn_err_set(err, GNN_ERR_INVAL, "gat slope %g: expected [0, 1)", (double)c->gat_slope);
    }
    if (c->feat_norm < GNN_FEAT_NORM_AUTO || c->feat_norm > GNN_FEAT_NORM_ROW ||
        c->wd_scope < GNN_WD_AUTO || c->wd_scope > GNN_WD_FIRST)
        return gnn_err_set(err, GNN_ERR_INVAL, "feature normalization or weight-decay scope out of range");
    if (c->mode == GNN_MODE_MINIBATCH)
        for (int l = 0; l < c->layers; l++)
            if (c->fanouts[l] == 0 || c->fanouts[l] < -1)
                return gnn_err_set(err, GNN_ERR_INVAL, "fanout %lld for layer %d: expected >= 1 or -1 (all)",
                                   (long long)c->fanouts[l], l);
    if (!ds->labels || ds->num_classes < 1)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: dataset has no labels to train on", ds->name);
    if (!ds->split)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: dataset has no train/val/test split; pass --split TRAIN,VAL,TEST", ds->name);
    if (ds->num_features < 1)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: dataset has no node features", ds->name);
    if (ds->graph.n > INT32_MAX)
        return gnn_err_set(err, GNN_ERR_RANGE, "%s: %lld vertices exceed the int32 block-local id range",
                           ds->name, (long long)ds->graph.n);
    return GNN_OK;
}

static void trainer_free(trainer *T)
{
    gnn_sampler_destroy(T->sampler);
    gnn_free(T->gbuf);
    model_free(&T->m);
    gnn_block_free(&T->full);
    gnn_csr_free(&T->loops);
    gnn_free(T->normed);
    free(T->train_ids);
    free(T->fb_labels);
}

/* Graph (with self-loops for gcn and gat), features (row-normalized if asked), full block,
 * train ids, model, sampler. */
static gnn_status trainer_init(trainer *T, const gnn_dataset *ds, gnn_err *err)
{
    const gnn_train_config *c = &T->cfg;
    const int64_t n = ds->graph.n, f = ds->num_features;
    gnn_status st;
    T->ds = ds;
    T->graph = &ds->graph;
    T->feat = ds->feat;
    if (c->model == GNN_MODEL_GCN || c->model == GNN_MODEL_GAT) {
        if ((st = gnn_csr_add_self_loops(&T->loops, &ds->graph)))
            return gnn_err_set(err, st, "adding self-loops: %s", gnn_status_str(st));
        T->graph = &T->loops;
    }
    if (c->feat_norm == GNN_FEAT_NORM_ROW) {
        if (!(T->normed = falloc(n * f)))
            return GNN_ERR_NOMEM;
        for (int64_t v = 0; v < n; v++) { /* x / sum_j |x_j| (column order); zero rows stay 0 */
            const float *x = ds->feat + v * f;
            float *y = T->normed + v * f;
            float s = 0.0f;
            for (int64_t j = 0; j < f; j++)
                s += fabsf(x[j]);
            for (int64_t j = 0; j < f; j++)
                y[j] = s != 0.0f ? x[j] / s : x[j];
        }
        T->feat = T->normed;
    }
    if ((st = gnn_block_full(&T->full, T->graph)))
        return gnn_err_set(err, st, "full block: %s", gnn_status_str(st));
    if (!(T->train_ids = malloc((size_t)n * sizeof(int64_t) + 1)) ||
        !(T->fb_labels = malloc((size_t)n * sizeof(int32_t) + 1)))
        return GNN_ERR_NOMEM;
    for (int64_t v = 0; v < n; v++) {
        const int tr = ds->split[v] == GNN_SPLIT_TRAIN && ds->labels[v] >= 0;
        T->fb_labels[v] = -1;
        if (tr)
            T->train_ids[T->n_train++] = v;
    }
    if (T->n_train == 0)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: no labelled training vertices", ds->name);
    /* full batch on P ranks: rank r's loss covers its slice of the train vertices */
    for (int64_t i = T->n_train * T->rank / T->P; i < T->n_train * (T->rank + 1) / T->P; i++)
        T->fb_labels[T->train_ids[i]] = ds->labels[T->train_ids[i]];
    if ((st = model_init(&T->m, c, f, ds->num_classes)))
        return st;
    for (int l = 0; l < T->m.L; l++)
        T->n_params += T->m.layer[l].count;
    if (T->P > 1 && !(T->gbuf = falloc(T->n_params)))
        return GNN_ERR_NOMEM;
    if (c->impl_opt && c->mode == GNN_MODE_MINIBATCH &&
        (st = gnn_sampler_create(&T->sampler, T->graph, GNN_SAMPLER_FUSED, GNN_IDMAP_DENSE)))
        return gnn_err_set(err, st, "sampler: %s", gnn_status_str(st));
    return GNN_OK;
}

/* Test accuracy of always predicting the most common train label. */
static double majority_rate(const gnn_dataset *ds)
{
    int64_t *count = calloc((size_t)ds->num_classes, sizeof(int64_t));
    if (!count)
        return 0.0;
    for (int64_t v = 0; v < ds->graph.n; v++)
        if (ds->split[v] == GNN_SPLIT_TRAIN && ds->labels[v] >= 0 && ds->labels[v] < ds->num_classes)
            count[ds->labels[v]]++;
    int32_t major = 0;
    for (int64_t k = 1; k < ds->num_classes; k++)
        if (count[k] > count[major])
            major = (int32_t)k;
    free(count);
    int64_t tot = 0, hit = 0;
    for (int64_t v = 0; v < ds->graph.n; v++)
        if (ds->split[v] == GNN_SPLIT_TEST && ds->labels[v] >= 0) {
            tot++;
            hit += ds->labels[v] == major;
        }
    return tot ? (double)hit / (double)tot : 0.0;
}

/* bytes this rank has sent through its communicator so far (every operation) */
static int64_t sent_bytes(const gnn_comm *c)
{
    int64_t b = 0;
    if (c)
        for (int i = 0; i < GNN_COMM_OP_COUNT * c->size; i++)
            b += c->traffic.bytes[i];
    return b;
}

gnn_status gnn_train(const gnn_dataset *ds, const gnn_train_config *cfg, gnn_epoch_cb cb, void *ctx,
                     gnn_train_result *res, gnn_err *err)
{
    memset(res, 0, sizeof *res);
    gnn_status st = check_inputs(ds, cfg, err);
    if (st)
        return st;
    trainer T;
    memset(&T, 0, sizeof T);
    T.cfg = *cfg;
    gnn_train_resolve(&T.cfg);
    const gnn_train_config *c = &T.cfg;
    T.comm = c->comm;
    T.P = gnn_comm_size(c->comm);
    T.rank = gnn_comm_rank(c->comm);
    int64_t *order = NULL;
    if ((st = trainer_init(&T, ds, err)))
        goto done;
    res->majority_rate = majority_rate(ds);
    const int full = c->mode == GNN_MODE_FULLBATCH;
    const int64_t steps_per_epoch = full ? 1 : (T.n_train + c->batch - 1) / c->batch;
    res->epochs = calloc((size_t)c->epochs + 1, sizeof(gnn_epoch_stats));
    res->step_loss = calloc((size_t)(steps_per_epoch * c->epochs) + 1, sizeof(double));
    order = malloc((size_t)T.n_train * sizeof(int64_t) + 1);
    if (!res->epochs || !res->step_loss || !order) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    res->best_val_acc = -1.0;
    res->stop_epoch = -1;
    double best_val_loss = INFINITY;
    int since_best = 0;
    uint32_t step = 0;
    for (int ep = 0; ep < c->epochs; ep++) {
        gnn_epoch_stats *E = &res->epochs[ep];
        E->epoch = ep;
        E->train_acc = E->val_acc = E->test_acc = E->val_loss = -1.0;
        const double te0 = now_s();
        const int64_t bytes0 = sent_bytes(T.comm);
        double loss_sum = 0.0;
        if (full) { /* one step over the whole graph; the loss over the train vertices */
            const gnn_block *bp[GNN_MAX_LAYERS];
            for (int l = 0; l < c->layers; l++)
                bp[l] = &T.full;
            double loss = 0.0, no_edges = 0.0;
            if ((st = train_step(&T, bp, T.fb_labels, step, (double)T.n_train, &loss, &no_edges, E->phase_s))) {
                gnn_err_set(err, st, "training step %u failed: %s", step,
                            st == GNN_ERR_COMM ? gnn_comm_errmsg(T.comm) : gnn_status_str(st));
                goto done;
            }
            res->step_loss[res->n_steps++] = loss;
            loss_sum += loss;
            step++;
            E->steps++;
            if (c->on_step)
                c->on_step(ep, E->steps, steps_per_epoch, loss, c->on_step_ctx);
        } else {
            /* epoch order: Fisher-Yates with (seed, SHUFFLE, step = epoch, id 0) */
            memcpy(order, T.train_ids, (size_t)T.n_train * sizeof(int64_t));
            const gnn_rng_stream sh = gnn_rng_stream_make(c->seed, GNN_TAG_SHUFFLE, (uint32_t)ep, 0, 0);
            gnn_rng_shuffle_i64(&sh, order, T.n_train);
            for (int64_t b0 = 0; b0 < T.n_train; b0 += c->batch) {
                const int64_t nb = T.n_train - b0 < c->batch ? T.n_train - b0 : c->batch;
                /* rank r takes seeds [nb r / P, nb (r+1) / P) of the global batch; every
                 * seed is labelled, so the global normalizer is nb */
                const int64_t lo = nb * T.rank / T.P, hi = nb * (T.rank + 1) / T.P;
                double loss = 0.0;
                if ((st = minibatch_step(&T, order + b0 + lo, hi - lo, (double)nb, step, &loss, E->phase_s,
                                         &E->edges_sampled))) {
                    gnn_err_set(err, st, "training step %u failed: %s", step,
                            st == GNN_ERR_COMM ? gnn_comm_errmsg(T.comm) : gnn_status_str(st));
                    goto done;
                }
                res->step_loss[res->n_steps++] = loss;
                loss_sum += loss;
                step++;
                E->steps++;
                if (c->on_step)
                    c->on_step(ep, E->steps, steps_per_epoch, loss, c->on_step_ctx);
            }
        }
        E->loss = E->steps ? loss_sum / (double)E->steps : 0.0;
        int last = ep == c->epochs - 1, stop = 0;
        if ((c->eval_every > 0 && (ep + 1) % c->eval_every == 0) || last) {
            double acc[4] = { 0 }, vloss = 0.0;
            const double tv = now_s();
            /* every rank holds the same model: rank 0 evaluates and broadcasts */
            if (T.rank == 0 && (st = evaluate(&T, acc, &vloss))) {
                gnn_err_set(err, st, "evaluation failed: %s", gnn_status_str(st));
                goto done;
            }
            E->phase_s[GNN_PHASE_EVAL] += now_s() - tv;
            if (T.P > 1) {
                double b[5] = { acc[0], acc[1], acc[2], acc[3], vloss };
                const double tc = now_s();
                if ((st = gnn_comm_bcast(T.comm, b, 5, GNN_DT_F64, 0))) {
                    gnn_err_set(err, st, "broadcasting the evaluation: %s", gnn_comm_errmsg(T.comm));
                    goto done;
                }
                E->phase_s[GNN_PHASE_COMM] += now_s() - tc;
                memcpy(acc, b, 4 * sizeof(double));
                vloss = b[4];
            }
            E->train_acc = acc[1];
            E->val_acc = acc[2];
            E->test_acc = acc[3];
            E->val_loss = vloss;
            /* best: a higher val accuracy, or the same with a lower val loss */
            if (acc[2] > res->best_val_acc || (acc[2] == res->best_val_acc && vloss < best_val_loss)) {
                res->best_val_acc = acc[2];
                res->test_acc_at_best_val = acc[3];
                res->best_epoch = ep;
                best_val_loss = vloss;
                since_best = 0;
            } else if (++since_best >= c->patience && c->patience > 0 && !last) {
                stop = 1;
            }
            if (last || stop) {
                res->train_acc = acc[1];
                res->val_acc = acc[2];
                res->test_acc = acc[3];
            }
        }
        E->time_s = now_s() - te0;
        E->comm_bytes = sent_bytes(T.comm) - bytes0;
        res->n_epochs = ep + 1;
        if (cb)
            cb(E, ctx);
        if (stop) {
            res->stopped_early = 1;
            res->stop_epoch = ep;
            break;
        }
    }
    if (res->best_val_acc < 0)
        res->best_val_acc = 0;
    st = GNN_OK;
done:
    trainer_free(&T);
    free(order);
    if (st)
        gnn_train_result_free(res);
    return st;
}

gnn_status gnn_train_sage(const gnn_dataset *ds, const gnn_train_config *cfg, gnn_epoch_cb cb, void *ctx,
                          gnn_train_result *res, gnn_err *err)
{
    gnn_train_config c = *cfg;
    c.model = GNN_MODEL_SAGE;
    return gnn_train(ds, &c, cb, ctx, res, err);
}
