/* core/train/train.c -- single-rank training glue: GraphSAGE (DistGNN-MB Eq. 1), GCN (Kipf &
 * Welling 2017), GAT (Velickovic et al. 2018; DistGNN-MB Eq. 2) and GIN-0 (Xu et al. 2019),
 * mini-batch (DistGNN-MB section 2) or full-batch. docs/models.md explains every line.
 *
 * One step: take L blocks (sampled from a batch of seeds in DGL order, or the full graph
 * L times), gather input features, forward through L layers, softmax cross-entropy on the
 * labelled seeds, backward, Adam. Kernels come from ops tables (ref or opt/cpu); every
 * choice of randomness is keyed (DESIGN.md section 2); the glue's own loops (bias, head
 * mean, column sums) are serial; so the per-step losses are the same bits at any thread
 * count and for either implementation wherever the kernels are bitwise. The epoch loop
 * (shuffle, batches, evaluation, early stopping, the per-epoch figures) is core/train/epoch.c,
 * shared with the trainer on partitions; this file supplies its step and its evaluation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/act.h"
#include "gnnref/aggregate.h"
#include "gnnref/gat.h"
#include "gnnref/idmap.h"
#include "gnnref/nn.h"
#include "gnnref/sample.h"
#include "gnnref/spmm.h"
#include "gnnref/tensor.h"
#include "gnnref/train.h"
#include "core/train/epoch.h"
#include "core/train/grad_probe.h"
#include "core/train/model.h"

const char *const gnn_phase_names[GNN_PHASE_COUNT] = { "sample", "forward", "backward", "update", "eval", "comm",
                                                               "comm_pre", "comm_post" };

const char *gnn_model_name(gnn_model_kind m)
{
    switch (m) {
    case GNN_MODEL_SAGE: return "sage";
    case GNN_MODEL_GCN: return "gcn";
    case GNN_MODEL_GAT: return "gat";
    case GNN_MODEL_GIN: return "gin";
    case GNN_MODEL_RGCN: return "rgcn";
    }
    return "?";
}

const char *gnn_mode_name(gnn_train_mode m)
{
    return m == GNN_MODE_FULLBATCH ? "fullbatch" : m == GNN_MODE_MINIBATCH ? "minibatch" : "?";
}

const char *gnn_stop_rule_name(gnn_stop_rule r)
{
    return r == GNN_STOP_ACC ? "acc" : r == GNN_STOP_GAT ? "gat" : r == GNN_STOP_AUTO ? "auto" : "?";
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
    c->impl = gnn_impl_opt();
    c->eval_every = 1;
    c->patience = 0;
    c->stop_rule = GNN_STOP_AUTO;
    c->heads = 8;
    c->out_heads = 1;
    c->gat_variant = GNN_GAT_VELICKOVIC;
    c->attn_dropout = -1.0f;
    c->gat_slope = 0.2f;
    c->layernorm = 0;
    c->feat_norm = GNN_FEAT_NORM_AUTO;
    c->wd_scope = GNN_WD_AUTO;
    c->checkpoint_every = 1;
}

void gnn_train_resolve(gnn_train_config *c)
{
    if (c->feat_norm == GNN_FEAT_NORM_AUTO)
        c->feat_norm = (c->model == GNN_MODEL_GCN || c->model == GNN_MODEL_GAT) ? GNN_FEAT_NORM_ROW
                                                                               : GNN_FEAT_NORM_NONE;
    if (c->wd_scope == GNN_WD_AUTO)
        c->wd_scope = c->model == GNN_MODEL_GCN ? GNN_WD_FIRST : GNN_WD_ALL;
    if (c->stop_rule == GNN_STOP_AUTO) /* GAT's paper setup: the authors' rule (models.md section 4) */
        c->stop_rule = c->model == GNN_MODEL_GAT ? GNN_STOP_GAT : GNN_STOP_ACC;
    if (c->attn_dropout < 0.0f)
        c->attn_dropout = c->dropout;
}

/* ---- the trainer -------------------------------------------------------------------------- */

typedef struct trainer {
    const gnn_dataset *ds;
    gnn_train_config cfg;   /* resolved copy */
    const gnn_csr *graph;   /* ds->graph, or `loops` (gcn, gat) */
    gnn_csr loops;          /* the graph with self-loops (A + I) */
    const float *feat;      /* ds->feat, or `normed` (not used when sparse0) */
    float *normed;          /* row-normalized features */
    int sparse0;            /* layer 0 reads CSR input (gcn multiplying first, gat): docs/sparse-features.md */
    gnn_fcsr xcsr;          /* then: ds->feat_csr (borrowed), or its row-normalized copy (owned) */
    gnn_block full;         /* the full block of `graph` (evaluation, full-batch steps) */
    gnn_sampler *sampler;   /* mini-batch: the context's sampler (opt: fused, dense ordered ID map) */
    model m;
    int64_t *train_ids;
    int64_t n_train;
    int32_t *fb_labels;     /* full-batch: label of this rank's train vertices, -1 elsewhere */
    gnn_comm *comm;         /* NULL or one rank: no communication */
    int P, rank;
    float *gbuf;            /* P > 1: every layer's gradient, packed for one allreduce */
    int64_t n_params;
    float *xg;              /* the gradient probe over the inputs: d loss / d feat, else NULL */
} trainer;

/* Rows in chunks over the threads (a copy: the bits do not depend on who copies), the first
 * lines of the row GATHER_AHEAD places ahead requested early: the rows are random reads of a
 * matrix far larger than the caches, and one row's memcpy alone waits on each miss in turn.
 * This gather was 13% of a SAGE epoch's cycles (200k vertices, perf, 1 thread) once the dense
 * layers ran on OpenBLAS; serial, that share grew with the thread count. */
#define GATHER_AHEAD 8
#define GATHER_LINES 4 /* 64-byte lines prefetched per row (the rest streams behind them) */
static void gather_features(const trainer *T, const int64_t *gid, int64_t n, float *out)
{
    const int64_t f = T->ds->num_features;
    const int64_t lines = (f * (int64_t)sizeof(float) + 63) / 64 < GATHER_LINES ? (f * (int64_t)sizeof(float) + 63) / 64
                                                                                 : GATHER_LINES;
#pragma omp parallel for schedule(dynamic, 256) if (n * f >= 65536)
    for (int64_t i = 0; i < n; i++) {
        if (i + GATHER_AHEAD < n) {
            const char *row = (const char *)(T->feat + gid[i + GATHER_AHEAD] * f);
            for (int64_t b = 0; b < lines; b++)
                __builtin_prefetch(row + 64 * b);
        }
        memcpy(out + i * f, T->feat + gid[i] * f, (size_t)f * sizeof(float));
    }
}

/* Layer 0's input as CSR: the rows of the block's src vertices (gathered in the context's
 * table), then the keyed dropout on their values, whose bits are gnn_dropout_fwd's on the
 * dense rows (spmm.h). */
static gnn_status sparse_input(const trainer *T, const gnn_block *blk, lcache *C, const fwd_key *k)
{
    const gnn_spmm_ops *ops = T->m.spmm;
    gnn_status st = gnn_spmm_gather(ops, &T->xcsr, blk->src_gid, blk->n_src, &C->xs);
    if (!st && k->train && T->cfg.dropout > 0.0f)
        st = gnn_spmm_dropout(ops, &C->xs, blk->src_gid, T->cfg.dropout, T->cfg.seed, k->step, 0);
    return st;
}

/* Forward through all layers on blocks blk[0..L) (blk[l] of layer l); C[l] filled.
 * The logits are C[L-1].y. */
static gnn_status forward_all(const trainer *T, const gnn_block *const *blk, lcache *C, const fwd_key *k)
{
    const model *m = &T->m;
    const gnn_train_config *c = &T->cfg;
    for (int l = 0; l < m->L; l++) {
        const mlayer *S = &m->layer[l];
        const int64_t ns = blk[l]->n_src;
        if (l == 0 && T->sparse0) {
            gnn_status st = sparse_input(T, blk[0], &C[0], k);
            if (!st)
                st = gnn_layer_fwd(m, 0, blk[0], &C[0], k);
            if (st)
                return st;
            continue;
        }
        if (!(C[l].x = falloc(ns * S->in)))
            return GNN_ERR_NOMEM;
        if (l == 0)
            gather_features(T, blk[0]->src_gid, ns, C[0].x);
        else /* the next layer's src are this layer's dst: same rows, same order */
            memcpy(C[l].x, C[l - 1].y, (size_t)(ns * S->in) * sizeof(float));
        if (k->train && c->dropout > 0.0f) {
            if (!(C[l].mask = falloc(ns * S->in)))
                return GNN_ERR_NOMEM;
            gnn_status st = gnn_nn_dropout_fwd(m->nn, C[l].x, ns, S->in, blk[l]->src_gid, c->dropout, c->seed,
                                               k->step, (unsigned)l, C[l].mask);
            if (st)
                return st;
        }
        gnn_status st = gnn_layer_fwd(m, l, blk[l], &C[l], k);
        if (st)
            return st;
        if (!k->train && l > 0) /* evaluation keeps only what the next layer reads */
            gnn_lcache_release_below(C, l);
    }
    return GNN_OK;
}

/* The loss of one step on blocks blk (seeds = dst of blk[L-1]) with labels lab (n_seeds),
 * summed over the labelled seeds and divided by denom, into *sum; with grads, the backward too:
 * every layer's gradient into m->layer[l].g. phase (may be NULL) gets the forward's and the
 * backward's times. Also the gradient probe's evaluation (gnn_train_grad_probe), which asks for
 * the branch pattern (pattern not NULL; core/train/grad_probe.h). */
static gnn_status step_loss(trainer *T, const gnn_block *const *blk, const int32_t *lab, uint32_t step, double denom,
                            int grads, double *sum, double *phase, uint64_t *pattern)
{
    const gnn_train_config *c = &T->cfg;
    model *m = &T->m;
    const int L = m->L;
    lcache C[GNN_MAX_LAYERS];
    memset(C, 0, sizeof C);
    float *dy = NULL, *dx = NULL;
    gnn_status st;
    const fwd_key k = { .train = 1, .attn_drop = c->attn_dropout, .seed = c->seed, .step = step };
    double t1 = gnn_now_s(), t2 = t1;
    if ((st = forward_all(T, blk, C, &k)))
        goto done;
    const int64_t n_seeds = blk[L - 1]->n_dst, classes = m->layer[L - 1].out;
    if (!(dy = falloc(n_seeds * classes))) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    *sum = gnn_softmax_xent_sum(C[L - 1].y, n_seeds, classes, lab, denom, dy, NULL);
    if (pattern)
        *pattern = gnn_grad_probe_pattern(m, blk, C);
    t2 = gnn_now_s();
    if (phase)
        phase[GNN_PHASE_FORWARD] += t2 - t1;
    for (int l = L - 1; l >= 0 && grads; l--) {
        const mlayer *S = &m->layer[l];
        const int need_dx = l > 0 || T->xg; /* layer 0's: the gradient probe over the inputs */
        if (need_dx && !(dx = falloc(blk[l]->n_src * S->in))) {
            st = GNN_ERR_NOMEM;
            goto done;
        }
        if ((st = gnn_layer_bwd(m, l, blk[l], &C[l], &k, dy, need_dx ? dx : NULL)))
            goto done;
        gnn_free(dy);
        dy = dx; /* d loss / d y[l-1]; after layer 0, d loss / d its input rows */
        dx = NULL;
    }
    if (grads && T->xg) { /* the input rows' gradients, summed per vertex (a vertex is one src row) */
        const int64_t f = m->layer[0].in;
        memset(T->xg, 0, (size_t)(T->ds->graph.n * f) * sizeof(float));
        for (int64_t i = 0; i < blk[0]->n_src; i++)
            for (int64_t j = 0; j < f; j++)
                T->xg[blk[0]->src_gid[i] * f + j] += dy[i * f + j];
    }
    if (phase && grads)
        phase[GNN_PHASE_BACKWARD] += gnn_now_s() - t2;
done:
    for (int l = 0; l < L; l++)
        gnn_lcache_free(&C[l]);
    gnn_free(dy);
    gnn_free(dx);
    return st;
}

/* One training step on blocks blk with labels lab (step_loss): the loss is summed over the
 * labelled seeds and divided by denom, the labelled count of the global mini-batch, of which
 * this rank holds a slice (blk == NULL: an empty slice, whose gradients are zero). With P ranks
 * the gradients are then allreduced, so every rank applies the same update. *loss: the global
 * batch's mean loss; *edges += sampled edges of all ranks. */
static gnn_status train_step(trainer *T, const gnn_block *const *blk, const int32_t *lab, uint32_t step,
                             double denom, double *loss, double *edges, double *phase)
{
    double sums[2] = { 0.0, *edges };
    gnn_status st;
    if (!blk)
        gnn_model_zero_grads(&T->m);
    else if ((st = step_loss(T, blk, lab, step, denom, 1, &sums[0], phase, NULL)))
        return st;
    if ((st = gnn_step_reduce_update(&T->m, &T->cfg, T->comm, T->gbuf, T->n_params, step, sums, phase)))
        return st;
    *loss = sums[0] / denom;
    *edges = sums[1];
    return GNN_OK;
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
    double t0 = gnn_now_s(), all_edges = 0.0;
    gnn_status st;
    if (n_seeds == 0) {
        st = train_step(T, NULL, NULL, step, denom, loss, &all_edges, phase);
        *edges += (int64_t)all_edges;
        return st;
    }
    const gnn_sample_params base = { .seed = c->seed, .step = step };
    /* every sampler's blocks equal the reference's bit for bit (ordered ID maps) */
    st = gnn_sampler_blocks(T->sampler, seeds, n_seeds, c->fanouts, L, &base, blk);
    if (st)
        goto done;
    for (int l = 0; l < L; l++) {
        all_edges += (double)blk[l].nnz;
        bp[l] = &blk[l];
    }
    phase[GNN_PHASE_SAMPLE] += gnn_now_s() - t0;
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
 * accuracies per split (acc[1..3]) and the val cross-entropy (*val_loss). epoch_ops.evaluate,
 * on rank 0 only: every rank holds the same model. */
static gnn_status evaluate(void *self, double acc[4], double *val_loss, gnn_err *err)
{
    const trainer *T = self;
    const gnn_dataset *ds = T->ds;
    (void)err; /* the loop names its failures: it only runs out of memory */
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
        gnn_lcache_free(&C[l]);
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
    if ((unsigned)c->model > GNN_MODEL_RGCN)
        return gnn_err_set(err, GNN_ERR_INVAL, "model %d: expected sage, gcn, gat, gin or rgcn", (int)c->model);
    if (c->model == GNN_MODEL_RGCN) {
        if (!ds->etype || ds->num_etypes < 1 || ds->num_etypes > 254)
            return gnn_err_set(err, GNN_ERR_INVAL, "%s: --model rgcn needs edge types (1..254 of them; try --data "
                                                   "builtin-typed)",
                               ds->name);
        if (c->rgcn_bases < 0 || c->rgcn_bases > 64)
            return gnn_err_set(err, GNN_ERR_INVAL, "--rgcn-bases %lld: expected 0..64", (long long)c->rgcn_bases);
    }
    if ((unsigned)c->mode > GNN_MODE_FULLBATCH)
        return gnn_err_set(err, GNN_ERR_INVAL, "mode %d: expected minibatch or fullbatch", (int)c->mode);
    if (c->layers < 1 || c->layers > GNN_MAX_LAYERS)
        return gnn_err_set(err, GNN_ERR_INVAL, "--layers %d: expected 1..%d", c->layers, GNN_MAX_LAYERS);
    if (c->hidden < 1 || c->batch < 1 || c->epochs < 1)
        return gnn_err_set(err, GNN_ERR_INVAL, "hidden, batch and epochs must be >= 1");
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
    if (c->stop_rule < GNN_STOP_AUTO || c->stop_rule > GNN_STOP_GAT)
        return gnn_err_set(err, GNN_ERR_INVAL, "--stop-rule %d: expected acc or gat", (int)c->stop_rule);
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
    gnn_model_free(&T->m);
    gnn_block_free(&T->full);
    gnn_csr_free(&T->loops);
    gnn_free(T->normed);
    gnn_fcsr_free(&T->xcsr); /* frees only the owned (normalized) copy */
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
    if ((st = gnn_model_init(&T->m, c, f, ds->num_classes)))
        return st;
    T->m.etype = ds->etype; /* rgcn: the full block's edges are the graph's, in CSR order */
    /* sparse input features: layer 0 multiplies the CSR when its product comes first (gcn
     * narrowing, gat's projection); sage and gin (and gcn aggregating first) read dense rows */
    T->sparse0 = gnn_dataset_feat_is_csr(ds) &&
                 (c->model == GNN_MODEL_GAT || (c->model == GNN_MODEL_GCN && T->m.layer[0].project_first));
    if (T->sparse0) {
        T->xcsr = ds->feat_csr;
        T->xcsr.owns = 0;
        if (c->feat_norm == GNN_FEAT_NORM_ROW) { /* the bits of gnn_rows_normalize's rows */
            if ((st = gnn_fcsr_copy(&ds->feat_csr, &T->xcsr)))
                return st;
            gnn_fcsr_rows_normalize(&T->xcsr);
        }
    } else if (c->feat_norm == GNN_FEAT_NORM_ROW) {
        if (!(T->normed = falloc(n * f)))
            return GNN_ERR_NOMEM;
        gnn_rows_normalize(ds->feat, n, f, T->normed);
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
    for (int l = 0; l < T->m.L; l++)
        T->n_params += T->m.layer[l].count;
    if (T->P > 1 && !(T->gbuf = falloc(T->n_params)))
        return GNN_ERR_NOMEM;
    gnn_sampler_options so; /* rgcn samples each relation with the layer's fanout (sample_typed.h) */
    gnn_sampler_defaults(&so);
    if (c->model == GNN_MODEL_RGCN)
        so.etype = ds->etype, so.relations = ds->num_etypes;
    if (c->mode == GNN_MODE_MINIBATCH &&
        (st = gnn_sampler_create(&T->sampler, gnn_config_impl(c)->sampler, T->graph, &so)))
        return gnn_err_set(err, st, "sampler: %s", gnn_status_str(st));
    return GNN_OK;
}

/* Test accuracy of always predicting the most common train label. */
double gnn_majority_rate(const gnn_dataset *ds)
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

/* Step k of an epoch (epoch_ops.step). Full batch: one step over the whole graph, the loss
 * over the train vertices. Mini-batch: the k-th batch of `batch` seeds of the epoch order (the
 * last one short), of which this rank takes its slice. */
static gnn_status epoch_step(void *self, const int64_t *order, int64_t k, uint32_t step, gnn_epoch_stats *E,
                             double *loss, gnn_err *err)
{
    trainer *T = self;
    const gnn_train_config *c = &T->cfg;
    (void)err; /* the loop names a failed step */
    if (c->mode == GNN_MODE_FULLBATCH) {
        const gnn_block *bp[GNN_MAX_LAYERS];
        for (int l = 0; l < c->layers; l++)
            bp[l] = &T->full;
        double no_edges = 0.0;
        return train_step(T, bp, T->fb_labels, step, (double)T->n_train, loss, &no_edges, E->phase_s);
    }
    const int64_t b0 = k * c->batch, nb = T->n_train - b0 < c->batch ? T->n_train - b0 : c->batch;
    /* rank r takes seeds [nb r / P, nb (r+1) / P) of the global batch; every seed is
     * labelled, so the global normalizer is nb */
    const int64_t lo = nb * T->rank / T->P, hi = nb * (T->rank + 1) / T->P;
    return minibatch_step(T, order + b0 + lo, hi - lo, (double)nb, step, loss, E->phase_s, &E->edges_sampled);
}

/* Checkpoints: the model and Adam's moments are all this trainer adds to the loop's state (its
 * sampling and dropout are keyed by the global step, which the loop saves; Adam's step count is
 * that step + 1). Every rank holds the same model and writes its own file. */
static gnn_status save_state(void *self, gnn_ckpt *w, gnn_err *err)
{
    (void)err;
    gnn_ckpt_put_model(w, &((trainer *)self)->m);
    return GNN_OK;
}

static gnn_status load_state(void *self, const gnn_ckpt *r, gnn_err *err)
{
    return gnn_ckpt_get_model(r, &((trainer *)self)->m, err);
}

static const epoch_ops train_epoch_ops = { .step = epoch_step, .evaluate = evaluate, .save = save_state,
                                           .load = load_state };

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
    T.cfg.relations = cfg->model == GNN_MODEL_RGCN ? ds->num_etypes : 0;
    const gnn_train_config *c = &T.cfg;
    T.comm = c->comm;
    T.P = gnn_comm_size(c->comm);
    T.rank = gnn_comm_rank(c->comm);
    gnn_ckpt resume;
    memset(&resume, 0, sizeof resume);
    gnn_ckpt_fingerprint fp;
    memset(&fp, 0, sizeof fp);
    snprintf(fp.dataset, sizeof fp.dataset, "%.63s", ds->name);
    fp.n = ds->graph.n;
    fp.nnz = ds->graph.nnz;
    fp.ranks = T.P;
    fp.rank = T.rank;
    fp.config_crc = gnn_ckpt_config_crc(c, NULL);
    fp.part_crc = gnn_ckpt_data_crc(0, ds->split, ds->labels, ds->graph.n); /* --split changes it */
    if ((st = trainer_init(&T, ds, err)))
        goto done;
    if (c->resume_dir && (st = gnn_epoch_resume_open(T.comm, c->resume_dir, &fp, &resume, err)))
        goto done;
    res->majority_rate = gnn_majority_rate(ds);
    const int full = c->mode == GNN_MODE_FULLBATCH;
    /* every rank shuffles all train ids alike (id 0) and takes its slice of each batch */
    const epoch_plan plan = { .cfg = c, .steps = full ? 1 : (T.n_train + c->batch - 1) / c->batch,
                              .train = full ? NULL : T.train_ids, .n_train = T.n_train, .shuffle_id = 0,
                              .comm = T.comm, .root_evaluates = 1, .cb = cb, .cb_ctx = ctx, .fp = &fp,
                              .resume = c->resume_dir ? &resume : NULL };
    st = gnn_train_epochs(&plan, &train_epoch_ops, &T, res, err);
    res->weights_crc = gnn_model_crc(&T.m, 0);
    res->state_crc = gnn_model_crc(&T.m, 1);
done:
    gnn_ckpt_free(&resume);
    trainer_free(&T);
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

/* ---- the gradient probe (include/gnnref/train.h, core/train/grad_probe.h) ---------------------------- */

typedef struct probe_step {
    trainer *T;
    const gnn_block *const *blk;
    const int32_t *lab;
    uint32_t step;
    double denom;
} probe_step;

static gnn_status probe_eval(void *self, int grads, double *loss, uint64_t *pattern)
{
    const probe_step *p = self;
    double sum = 0.0;
    const gnn_status st = step_loss(p->T, p->blk, p->lab, p->step, p->denom, grads, &sum, NULL, pattern);
    *loss = sum / p->denom;
    return st;
}

gnn_status gnn_train_grad_probe(const gnn_dataset *ds, const gnn_train_config *cfg, uint32_t step,
                                gnn_grad_probe *probe, gnn_err *err)
{
    gnn_status st = check_inputs(ds, cfg, err);
    if (st)
        return st;
    trainer T;
    memset(&T, 0, sizeof T);
    T.cfg = *cfg;
    gnn_train_resolve(&T.cfg);
    T.cfg.relations = cfg->model == GNN_MODEL_RGCN ? ds->num_etypes : 0;
    T.cfg.comm = NULL;
    T.P = 1;
    gnn_block blk[GNN_MAX_LAYERS];
    const gnn_block *bp[GNN_MAX_LAYERS];
    memset(blk, 0, sizeof blk);
    int32_t *lab = NULL;
    if ((st = trainer_init(&T, ds, err)))
        goto done;
    const int L = T.m.L;
    probe_step ps = { .T = &T, .blk = bp, .step = step };
    if (T.cfg.mode == GNN_MODE_FULLBATCH) { /* epoch_step's full batch */
        for (int l = 0; l < L; l++)
            bp[l] = &T.full;
        ps.lab = T.fb_labels;
        ps.denom = (double)T.n_train;
    } else { /* minibatch_step on the first `batch` train vertices, sampled once for every evaluation */
        const int64_t nb = T.n_train < T.cfg.batch ? T.n_train : T.cfg.batch;
        const gnn_sample_params base = { .seed = T.cfg.seed, .step = step };
        if ((st = gnn_sampler_blocks(T.sampler, T.train_ids, nb, T.cfg.fanouts, L, &base, blk)))
            goto done;
        if (!(lab = gnn_malloc((size_t)(nb + 1) * sizeof(int32_t)))) {
            st = GNN_ERR_NOMEM;
            goto done;
        }
        for (int64_t i = 0; i < nb; i++)
            lab[i] = ds->labels[T.train_ids[i]];
        for (int l = 0; l < L; l++)
            bp[l] = &blk[l];
        ps.lab = lab;
        ps.denom = (double)nb;
    }
    double phase[GNN_PHASE_COUNT] = { 0 }, loss, edges = 0.0;
    for (int t = 0; t < probe->warmup && !st; t++)
        st = train_step(&T, bp, ps.lab, (uint32_t)t, ps.denom, &loss, &edges, phase);
    grad_probe gp = { .m = &T.m, .eval = probe_eval, .self = &ps };
    const int64_t nx = ds->graph.n * ds->num_features;
    if (!st && probe->inputs) { /* the input rows as parameters too: a copy the probe may move */
        if (T.sparse0) {
            st = gnn_err_set(err, GNN_ERR_INVAL, "the gradient probe over the inputs reads dense rows (the sparse "
                                                 "input layer computes no input gradient)");
            goto done;
        }
        float *x = falloc(nx);
        if (!x || !(T.xg = falloc(nx))) {
            gnn_free(x);
            st = GNN_ERR_NOMEM;
            goto done;
        }
        memcpy(x, T.feat, (size_t)nx * sizeof(float));
        gnn_free(T.normed);
        T.feat = T.normed = x; /* freed with the trainer */
        gp.extra = x, gp.extra_g = T.xg, gp.n_extra = nx;
    }
    if (!st)
        st = gnn_grad_probe_run(&gp, probe);
done:
    for (int l = 0; l < GNN_MAX_LAYERS; l++)
        gnn_block_free(&blk[l]);
    gnn_free(lab);
    gnn_free(T.xg);
    trainer_free(&T);
    return st;
}
