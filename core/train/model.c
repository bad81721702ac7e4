/* core/train/model.c -- the models' parameters (Glorot init, layout) and one layer's forward and
 * backward for GraphSAGE (DistGNN-MB Eq. 1), GCN (Kipf & Welling 2017), GAT (Velickovic et
 * al. 2018; DistGNN-MB Eq. 2) and GIN-0 (Xu et al. 2019). Used by core/train/train.c and
 * core/train/train_part.c; docs/models.md explains every line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/train/model.h"
#include "gnnref/rng.h"



void gnn_lcache_release_below(lcache *C, int l)
{
    float *y = C[l - 1].y;
    C[l - 1].y = NULL;
    gnn_lcache_free(&C[l - 1]);
    gnn_free(y);
}

void gnn_model_free(model *m)
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

/* The init stream of a parameter tensor (docs/determinism.md, "Weight init"): its role in the
 * layer is the stream's layer field. Never renumber: the values are part of every result. */
enum init_role {
    ROLE_W = 0,     /* gcn W, gin W1, gat W, rgcn W0 (the self weight) */
    ROLE_W2 = 1,    /* gin W2, rgcn's stacked W_r (or bases V_b) */
    ROLE_REL_A = 2, /* rgcn's coefficients a (R, B) */
    ROLE_ATT_L = 3, /* gat's a_l, heads stacked */
    ROLE_ATT_R = 4  /* gat's a_r, heads stacked */
};

/* Glorot uniform of `mats` stacked (rows, cols) matrices, the tensor of `role` in layer l
 * (every model but sage): element (k, i, j) is (2 u - 1) sqrt(6 / (rows + cols)), u float draw
 * j of (seed, INIT, step 16 + l, layer role, id = k rows + i). The step names the layer and the
 * layer field the tensor, so every (layer, tensor, row) has its own stream: the layer field
 * keeps 8 bits (rng.h), too few to hold a layer and a tensor and a head as one index. sage keeps
 * its streams of step 0 (gnn_glorot_init, parameter index 2l + r), which no other tensor uses. */
static void glorot_tensor(float *w, int64_t mats, int64_t rows, int64_t cols, uint64_t seed, int l,
                          enum init_role role)
{
    const float limit = (float)sqrt(6.0 / (double)(rows + cols > 0 ? rows + cols : 1));
    for (int64_t k = 0; k < mats * rows; k++) {
        const gnn_rng_stream s = gnn_rng_stream_make(seed, GNN_TAG_INIT, 16u + (uint32_t)l, (unsigned)role, (uint64_t)k);
        for (int64_t j = 0; j < cols; j++)
            w[k * cols + j] = (2.0f * gnn_rng_float(&s, (uint64_t)j) - 1.0f) * limit;
    }
}

/* Glorot uniform for the weights (streams: glorot_tensor; sage: parameter index 2l for W_n and
 * 2l + 1 for W_s, its streams from before the other models existed), biases 0, LayerNorm gamma
 * 1 and beta 0. gat's attention vectors: Glorot of a (F, 1) matrix per head, as Velickovic's
 * one-output convolution, the heads stacked (head h's row i is row h F + i). */
gnn_status gnn_model_init(model *m, const gnn_train_config *c, int64_t in, int64_t classes)
{
    memset(m, 0, sizeof *m);
    m->kind = c->model;
    m->variant = c->gat_variant;
    m->L = c->layers;
    m->ln = c->layernorm;
    m->slope = c->gat_slope;
    const gnn_impl *impl = gnn_config_impl(c);
    m->agg = impl->aggregate;
    m->nn = impl->nn;
    m->update = impl->update;
    m->gat = impl->gat;
    m->act = impl->act;
    m->spmm = impl->spmm;
    m->rgcn = impl->rgcn;
    m->R = c->relations;
    m->B = c->rgcn_bases;
    int64_t width = in;
    for (int l = 0; l < m->L; l++) {
        mlayer *S = &m->layer[l];
        S->last = l == m->L - 1;
        S->in = width;
        S->o_w = S->o_w2 = S->o_b = S->o_b2 = S->o_al = S->o_ar = S->o_gamma = S->o_beta = S->o_rel_a = -1;
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
        case GNN_MODEL_RGCN:
            S->out = S->last ? classes : c->hidden;
            S->o_w = take(&n, S->in * S->out);
            S->o_w2 = take(&n, (m->B ? m->B : m->R) * S->in * S->out);
            if (m->B)
                S->o_rel_a = take(&n, m->R * m->B);
            S->o_b = take(&n, S->out);
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
            gnn_model_free(m);
            return GNN_ERR_NOMEM;
        }
        switch (m->kind) {
        case GNN_MODEL_SAGE:
            gnn_glorot_init(S->p + S->o_w, S->in, S->out, c->seed, (unsigned)(2 * l));
            gnn_glorot_init(S->p + S->o_w2, S->in, S->out, c->seed, (unsigned)(2 * l + 1));
            break;
        case GNN_MODEL_GCN:
            glorot_tensor(S->p + S->o_w, 1, S->in, S->out, c->seed, l, ROLE_W);
            break;
        case GNN_MODEL_GIN:
            glorot_tensor(S->p + S->o_w, 1, S->in, S->mid, c->seed, l, ROLE_W);
            glorot_tensor(S->p + S->o_w2, 1, S->mid, S->out, c->seed, l, ROLE_W2);
            break;
        case GNN_MODEL_GAT:
            glorot_tensor(S->p + S->o_w, 1, S->in, S->hf, c->seed, l, ROLE_W);
            glorot_tensor(S->p + S->o_al, S->heads, S->f, 1, c->seed, l, ROLE_ATT_L);
            glorot_tensor(S->p + S->o_ar, S->heads, S->f, 1, c->seed, l, ROLE_ATT_R);
            break;
        case GNN_MODEL_RGCN:
            glorot_tensor(S->p + S->o_w, 1, S->in, S->out, c->seed, l, ROLE_W);
            glorot_tensor(S->p + S->o_w2, m->B ? m->B : m->R, S->in, S->out, c->seed, l, ROLE_W2);
            if (m->B)
                glorot_tensor(S->p + S->o_rel_a, 1, m->R, m->B, c->seed, l, ROLE_REL_A);
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


void gnn_lcache_free(lcache *C)
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
    gnn_fcsr_free(&C->xs);
    memset(C, 0, sizeof *C);
}


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

/* The layer's input times w: the dense linear layer on C->x, or, when the input is CSR
 * (C->xs), the sparse-dense product, whose bits are the dense ref's (spmm.h: b NULL or
 * without -0). y (n, out). */
static gnn_status input_linear_fwd(const model *m, const lcache *C, int64_t n, int64_t in, const float *w,
                                   const float *b, int64_t out, float *y)
{
    if (!C->xs.indptr)
        return gnn_nn_linear_fwd(m->nn, C->x, n, in, w, b, out, y);
    return gnn_spmm_fwd(m->spmm, &C->xs, w, b, out, y);
}

/* Its backward: dw (in, out) = x^T dy and db (out) = column sums of dy (rows ascending, the
 * order of linear_bwd's db). With CSR input dw comes from the transpose of the dropped-out
 * input, built here once per step (no atomics: spmm.h), and dx cannot be asked for: a CSR
 * input is the first layer's, whose input needs no gradient. */
static gnn_status input_linear_bwd(const model *m, const lcache *C, const float *dy, int64_t n, int64_t in,
                                   const float *w, int64_t out, float *dx, float *dw, float *db)
{
    if (!C->xs.indptr)
        return gnn_nn_linear_bwd(m->nn, C->x, dy, n, in, w, out, dx, dw, db);
    if (dx)
        return GNN_ERR_UNSUPPORTED;
    if (db)
        col_sums(dy, n, out, db);
    gnn_fcsr xt;
    gnn_status st = gnn_spmm_transpose(m->spmm, &C->xs, &xt);
    if (st)
        return st;
    st = gnn_spmm_dw(m->spmm, &xt, dy, out, dw);
    gnn_fcsr_free(&xt);
    return st;
}

/* Layers of the fused UPDATE's shape, y = ReLU(x W + b) (DistGNN-MB section 3.3, its dropout
 * p = 0 here: our dropout is the next layer's input dropout, keyed by that layer), run through
 * the context's gnn_update_ops in one call, backward from y: GIN's inner MLP layer, and a
 * hidden gcn layer that aggregates first without LayerNorm. The reference UPDATE gives the
 * bits of linear + ReLU (same sums in the same order; dz = dy * 1.0f is dy), so ref's and opt's
 * losses do not change (opt's table is cpu-blocked, which keeps ref's order); the blas context
 * runs the OpenBLAS kernel (gnn_update_cpu, fixed tiles: the same bits at any thread count). */
/* Layer l's aggregation: the block's, or the distributed one of m->dist. */
static gnn_status agg_fwd(const model *m, int l, const gnn_block *blk, const float *x, int64_t d, gnn_agg_kind kind,
                          float *out)
{
    if (m->dist)
        return m->dist->forward(m->dist->ctx, l, x, d, kind, out);
    return gnn_aggregate_forward(m->agg, blk, x, d, kind, out);
}

static gnn_status agg_bwd(const model *m, int l, const gnn_block *blk, const float *dout, int64_t d,
                          gnn_agg_kind kind, float *dx)
{
    if (m->dist)
        return m->dist->backward(m->dist->ctx, l, dout, d, kind, dx);
    return gnn_aggregate_backward(m->agg, blk, dout, d, kind, dx);
}

/* rgcn's parameters of layer S, in the model's layout */
static gnn_rgcn_params rgcn_params(const model *m, const mlayer *S)
{
    const float *P = S->p;
    return (gnn_rgcn_params){ .in = S->in, .out = S->out, .R = m->R, .B = m->B, .w0 = P + S->o_w,
                              .w = m->B ? NULL : P + S->o_w2, .v = m->B ? P + S->o_w2 : NULL,
                              .a = m->B ? P + S->o_rel_a : NULL, .bias = P + S->o_b };
}

static int gcn_fused(const model *m, const mlayer *S)
{
    return m->kind == GNN_MODEL_GCN && !S->project_first && !S->last && !m->ln;
}

static gnn_gat_params gat_params(const model *m, int l, const gnn_block *blk, const fwd_key *k)
{
    const mlayer *S = &m->layer[l];
    gnn_gat_params gp = { .heads = S->heads, .f = S->f, .slope = m->slope,
                          .attn_drop = k->train ? k->attn_drop : 0.0f, .seed = k->seed,
                          .step = k->step, .layer = (unsigned)l, .dst_gid = blk->src_gid };
    return gp;
}

/* @eq{DistGNN-MB 2}, @eq{GAT 5-6} (heads concatenated, averaged in the last layer):
 * t0 = projection (ns, H*F); t1 = attention output (nd, H*F) */
static gnn_status gat_layer_fwd(const model *m, int l, const gnn_block *blk, lcache *C, const fwd_key *k)
{
    const mlayer *S = &m->layer[l];
    const float *P = S->p;
    const int64_t ns = blk->n_src, nd = blk->n_dst;
    gnn_status st;
    const int dist = m->variant == GNN_GAT_DISTGNN;
    if (!(C->t0 = falloc(ns * S->hf)) || !(C->t1 = falloc(nd * S->hf)))
        return GNN_ERR_NOMEM;
    if (k->train && !(C->alpha = falloc(blk->nnz * S->heads)))
        return GNN_ERR_NOMEM;
    if ((st = input_linear_fwd(m, C, ns, S->in, P + S->o_w, dist ? P + S->o_b : NULL, S->hf, C->t0)))
        return st;
    if (dist && !S->last && (st = gnn_nn_relu_fwd(m->nn, C->t0, ns * S->hf))) /* Eq. 2's ReLU (not the output's) */
        return st;
    const gnn_gat_params gp = gat_params(m, l, blk, k);
    if ((st = gnn_gat_forward(m->gat, blk, C->t0, P + S->o_al, P + S->o_ar, &gp, C->t1, C->alpha)))
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
    return GNN_OK;
}

/* Forward of layer l on C->x (n_src, in): fills the rest of C. */
gnn_status gnn_layer_fwd(const model *m, int l, const gnn_block *blk, lcache *C, const fwd_key *k)
{
    const mlayer *S = &m->layer[l];
    const float *P = S->p;
    const int64_t ns = blk->n_src, nd = blk->n_dst;
    gnn_status st = GNN_OK;
    if (!(C->z = falloc(nd * S->out)))
        return GNN_ERR_NOMEM;
    switch (m->kind) {
    /* @eq{DistGNN-MB 1}: t0 = mean (nd, in); z = t0 W_n + b; t1 = x[dst] W_s; z += t1 */
    case GNN_MODEL_SAGE:
        if (!(C->t0 = falloc(nd * S->in)) || !(C->t1 = falloc(nd * S->out)))
            return GNN_ERR_NOMEM;
        if ((st = agg_fwd(m, l, blk, C->x, S->in, GNN_AGG_MEAN, C->t0)) ||
            (st = gnn_nn_linear_fwd(m->nn, C->t0, nd, S->in, P + S->o_w, P + S->o_b, S->out, C->z)) ||
            (st = gnn_nn_linear_fwd(m->nn, C->x, nd, S->in, P + S->o_w2, NULL, S->out, C->t1))) /* dst = src 0..nd-1 */
            return st;
        for (int64_t i = 0; i < nd * S->out; i++)
            C->z[i] += C->t1[i];
        gnn_free(C->t1);
        C->t1 = NULL;
        break;
    case GNN_MODEL_GCN: /* @eq{GCN 2}: z = A_hat x W + b, in the cheaper order */
        if (S->project_first) { /* t0 = x W (ns, out); z = A_hat t0 + b */
            if (!(C->t0 = falloc(ns * S->out)))
                return GNN_ERR_NOMEM;
            if ((st = input_linear_fwd(m, C, ns, S->in, P + S->o_w, NULL, S->out, C->t0)) ||
                (st = agg_fwd(m, l, blk, C->t0, S->out, GNN_AGG_GCN, C->z)))
                return st;
            add_bias(C->z, nd, S->out, P + S->o_b);
            if (k->train == 0) { /* x W is not needed for the backward of evaluation */
                gnn_free(C->t0);
                C->t0 = NULL;
            }
        } else { /* t0 = A_hat x (nd, in); z = t0 W + b */
            if (!(C->t0 = falloc(nd * S->in)))
                return GNN_ERR_NOMEM;
            if ((st = agg_fwd(m, l, blk, C->x, S->in, GNN_AGG_GCN, C->t0)))
                return st;
            if (gcn_fused(m, S)) { /* y = ReLU(t0 W + b) in one call: the layer is done */
                C->y = C->z;
                C->z = NULL;
                return gnn_update_forward(m->update, C->t0, nd, S->in, P + S->o_w, P + S->o_b, S->out, NULL, C->y);
            }
            if ((st = gnn_nn_linear_fwd(m->nn, C->t0, nd, S->in, P + S->o_w, P + S->o_b, S->out, C->z)))
                return st;
        }
        break;
    /* @eq{GIN 4.1} with eps = 0: t0 = x[dst] + sum (nd, in); t1 = ReLU(t0 W1 + b1) (nd, mid);
     * z = t1 W2 + b2 */
    case GNN_MODEL_GIN:
        if (!(C->t0 = falloc(nd * S->in)) || !(C->t1 = falloc(nd * S->mid)))
            return GNN_ERR_NOMEM;
        if ((st = agg_fwd(m, l, blk, C->x, S->in, GNN_AGG_SUM, C->t0)))
            return st;
        for (int64_t i = 0; i < nd * S->in; i++) /* (1 + eps) h_v with eps = 0, added last */
            C->t0[i] += C->x[i];
        if ((st = gnn_update_forward(m->update, C->t0, nd, S->in, P + S->o_w, P + S->o_b, S->mid, NULL, C->t1)) ||
            (st = gnn_nn_linear_fwd(m->nn, C->t1, nd, S->mid, P + S->o_w2, P + S->o_b2, S->out, C->z)))
            return st;
        break;
    case GNN_MODEL_GAT:
        if ((st = gat_layer_fwd(m, l, blk, C, k)))
            return st;
        break;
    case GNN_MODEL_RGCN: { /* t0 = the relations' means (R, nd, in), kept for the backward */
        const gnn_rgcn_params rp = rgcn_params(m, S);
        if (!(C->t0 = falloc(m->R * nd * S->in)))
            return GNN_ERR_NOMEM;
        if ((st = gnn_rgcn_forward(m->rgcn, blk, blk->etype ? blk->etype : m->etype, C->x, &rp, C->z, C->t0)))
            return st;
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
        if ((st = gnn_act_layernorm_fwd(m->act, C->z, nd, S->out, P + S->o_gamma, P + S->o_beta, 1e-5f, C->zn,
                                         C->mu, C->rstd)))
            return st;
        pre = C->zn;
    }
    if (!(C->y = falloc(nd * S->out)))
        return GNN_ERR_NOMEM;
    if (m->kind == GNN_MODEL_GAT)
        return gnn_act_elu_fwd(m->act, pre, nd * S->out, 1.0f, C->y);
    memcpy(C->y, pre, (size_t)(nd * S->out) * sizeof(float));
    return gnn_nn_relu_fwd(m->nn, C->y, nd * S->out);
}

/* GAT's backward from dz (n_dst, out): through the heads' concatenation or mean, the attention,
 * Eq. 2's ReLU (distgnn) and the projection; dx (n_src, in) may be NULL. */
static gnn_status gat_layer_bwd(const model *m, int l, const gnn_block *blk, const lcache *C, const fwd_key *k,
                                const float *dz, float *dx)
{
    const mlayer *S = &m->layer[l];
    const float *P = S->p;
    float *G = S->g;
    const int64_t ns = blk->n_src, nd = blk->n_dst;
    const int dist = m->variant == GNN_GAT_DISTGNN;
    const gnn_gat_params gp = gat_params(m, l, blk, k);
    float *s1 = falloc(nd * S->hf), *s2 = falloc(ns * S->hf);
    gnn_status st = GNN_OK;
    if (!s1 || !s2) {
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
    if ((st = gnn_gat_backward(m->gat, blk, C->t0, P + S->o_al, P + S->o_ar, &gp, C->alpha, s1, s2, G + S->o_al,
                               G + S->o_ar)))
        goto done;
    if (dist && !S->last && (st = gnn_nn_relu_bwd(m->nn, C->t0, s2, ns * S->hf)))
        goto done;
    st = input_linear_bwd(m, C, s2, ns, S->in, P + S->o_w, S->hf, dx, G + S->o_w, dist ? G + S->o_b : NULL);
done:
    gnn_free(s1);
    gnn_free(s2);
    return st;
}

/* Backward of layer l from dy (n_dst, out), which it may overwrite. Writes the layer's
 * parameter gradients into S->g and, when dx != NULL, d loss / d x (n_src, in) before the
 * dropout (i.e. w.r.t. the previous layer's output). */
gnn_status gnn_layer_bwd(const model *m, int l, const gnn_block *blk, const lcache *C, const fwd_key *k,
                            float *dy, float *dx)
{
    const mlayer *S = &m->layer[l];
    const float *P = S->p;
    float *G = S->g;
    const int64_t ns = blk->n_src, nd = blk->n_dst;
    gnn_status st = GNN_OK;
    float *dz = dy, *s1 = NULL, *s2 = NULL;
    if (!S->last) { /* activation, then LayerNorm */
        if (!(s1 = falloc(nd * S->out)))
            return GNN_ERR_NOMEM;
        if (m->kind == GNN_MODEL_GAT) { /* from the ELU's input; out of place */
            if ((st = gnn_act_elu_bwd(m->act, m->ln ? C->zn : C->z, dy, nd * S->out, 1.0f, s1)))
                goto done;
            memcpy(dy, s1, (size_t)(nd * S->out) * sizeof(float));
        } else if (!gcn_fused(m, S) && (st = gnn_nn_relu_bwd(m->nn, C->y, dy, nd * S->out))) {
            goto done; /* (a fused layer takes its ReLU's backward in gnn_update_backward) */
        }
        if (m->ln) {
            if ((st = gnn_act_layernorm_bwd(m->act, C->z, dy, nd, S->out, P + S->o_gamma, C->mu, C->rstd, s1,
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
        if ((st = gnn_nn_linear_bwd(m->nn, C->t0, dz, nd, S->in, P + S->o_w, S->out, s1, G + S->o_w, G + S->o_b)) ||
            (st = gnn_nn_linear_bwd(m->nn, C->x, dz, nd, S->in, P + S->o_w2, S->out, s2, G + S->o_w2, NULL)))
            goto done;
        if (dx) {
            if ((st = agg_bwd(m, l, blk, s1, S->in, GNN_AGG_MEAN, dx)))
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
            if ((st = agg_bwd(m, l, blk, dz, S->out, GNN_AGG_GCN, s1)) ||
                (st = input_linear_bwd(m, C, s1, ns, S->in, P + S->o_w, S->out, dx, G + S->o_w, NULL)))
                goto done;
        } else {
            if (dx && !(s1 = falloc(nd * S->in))) {
                st = GNN_ERR_NOMEM;
                goto done;
            }
            if (gcn_fused(m, S))
                st = gnn_update_backward(m->update, C->t0, C->y, dz, nd, S->in, P + S->o_w, S->out, 0.0f,
                                         dx ? s1 : NULL, G + S->o_w, G + S->o_b);
            else
                st = gnn_nn_linear_bwd(m->nn, C->t0, dz, nd, S->in, P + S->o_w, S->out, dx ? s1 : NULL, G + S->o_w,
                                       G + S->o_b);
            if (st || (dx && (st = agg_bwd(m, l, blk, s1, S->in, GNN_AGG_GCN, dx))))
                goto done;
        }
        break;
    case GNN_MODEL_GIN:
        if (!(s1 = falloc(nd * S->mid)) || (dx && !(s2 = falloc(nd * S->in)))) {
            st = GNN_ERR_NOMEM;
            goto done;
        }
        if ((st = gnn_nn_linear_bwd(m->nn, C->t1, dz, nd, S->mid, P + S->o_w2, S->out, s1, G + S->o_w2, G + S->o_b2)) ||
            (st = gnn_update_backward(m->update, C->t0, C->t1, s1, nd, S->in, P + S->o_w, S->mid, 0.0f, s2,
                                      G + S->o_w, G + S->o_b)))
            goto done;
        if (dx) {
            if ((st = agg_bwd(m, l, blk, s2, S->in, GNN_AGG_SUM, dx)))
                goto done;
            for (int64_t i = 0; i < nd * S->in; i++)
                dx[i] += s2[i];
        }
        break;
    case GNN_MODEL_GAT:
        if ((st = gat_layer_bwd(m, l, blk, C, k, dz, dx)))
            goto done;
        break;
    case GNN_MODEL_RGCN: {
        const gnn_rgcn_params rp = rgcn_params(m, S);
        const gnn_rgcn_grads rg = { .dw0 = G + S->o_w, .dw = m->B ? NULL : G + S->o_w2, .dv = m->B ? G + S->o_w2 : NULL,
                                    .da = m->B ? G + S->o_rel_a : NULL, .dbias = G + S->o_b };
        if ((st = gnn_rgcn_backward(m->rgcn, blk, blk->etype ? blk->etype : m->etype, C->x, &rp, C->t0, dz, dx, &rg)))
            goto done;
        break;
    }
    }
    if (dx && C->mask) /* the context's table: the threaded one under --impl opt */
        st = gnn_nn_dropout_bwd(m->nn, dx, ns, S->in, C->mask);
done:
    gnn_free(s1);
    gnn_free(s2);
    return st;
}

void gnn_model_adam(model *m, const gnn_train_config *c, uint32_t step)
{
    for (int l = 0; l < m->L; l++) {
        mlayer *S = &m->layer[l];
        const float wd = (c->wd_scope == GNN_WD_FIRST && l > 0) ? 0.0f : c->weight_decay;
        const gnn_adam decayed = { c->lr, 0.9f, 0.999f, 1e-8f, wd };
        const gnn_adam plain = { c->lr, 0.9f, 0.999f, 1e-8f, 0.0f };
        gnn_adam_step(&decayed, (int64_t)step + 1, S->p, S->g, S->m, S->v, S->n_decay);
        if (S->count > S->n_decay)
            gnn_adam_step(&plain, (int64_t)step + 1, S->p + S->n_decay, S->g + S->n_decay, S->m + S->n_decay,
                          S->v + S->n_decay, S->count - S->n_decay);
    }
}
