/* core/train/train_fullbatch.c -- SuperGCN's distributed full-batch training (include/gnnref/
 * train_fullbatch.h, docs/fullbatch.md; @alg{SuperGCN 2}, Fig. 1; next-capabilities.md A.4, A.5).
 *
 * The model is the single-rank trainer's (core/train/model.h), with one change: every layer's
 * aggregation runs through a magg_hook that calls gnn_distagg_forward / _backward on the rank's
 * owned rows, so a layer's "block" is the rank's rows (n_src = n_dst = owned vertices, src ids
 * their global ids, which key the dropout as on one rank). The epoch loop is core/train/epoch.c's,
 * with one step per epoch; this file supplies the step (label propagation, forward, loss,
 * backward, allreduce, Adam) and the distributed evaluation, and counts the exchanges' bytes
 * and times for the report. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/distagg.h"
#include "gnnref/rng.h"
#include "gnnref/train_fullbatch.h"
#include "core/train/epoch.h"
#include "core/train/grad_probe.h"
#include "core/train/model.h"

void gnn_fb_defaults(gnn_fb_config *c)
{
    memset(c, 0, sizeof *c);
    c->plan = GNN_PLAN_HYBRID;
    c->bits = 32;
    c->round = GNN_QUANT_STOCHASTIC;
    c->quant_backward = 1;
    c->tag = GNN_DISTAGG_TAG;
    c->alpha_s = 2e-6;
    c->beta_Bps = 12.5e9;
}

typedef struct fbtrainer {
    gnn_comm *comm;
    int P, rank;
    gnn_train_config cfg;   /* resolved copy */
    gnn_fb_config fc;
    const gnn_impl *impl;
    const gnn_dataset *ds;
    gnn_csr loops;          /* gcn: the graph with self-loops (A + I) */
    const gnn_csr *graph;   /* the graph aggregated over: ds->graph or `loops` */
    gnn_commplan plan;
    gnn_distagg da;
    gnn_distagg_times times;
    int64_t n_own, f, classes;
    float *x;               /* (n_own, f) the owned rows of the features (row-normalized if asked);
                               NULL when layer 0 reads CSR */
    int sparse0;            /* layer 0 multiplies CSR input (gcn projecting first, no LP), as
                               gnn_train does: docs/sparse-features.md */
    gnn_fcsr xcsr;          /* then: ds->feat_csr (borrowed), or its row-normalized copy (owned) */
    float *x0;              /* (n_own, f) with label propagation: x plus the label embeddings */
    int32_t *label;         /* (n_own) label of a labelled train vertex, -1 elsewhere */
    int32_t *sup;           /* (n_own) this step's supervised labels (train minus propagating) */
    uint8_t *prop;          /* (n_own) 1: propagates its label in this step */
    gnn_block blk;          /* the rank's rows: n_src = n_dst = n_own, src_gid = da.own_gid, no edges */
    model m;
    magg_hook hook;
    float *E, *Eg, *Em, *Ev; /* label embedding (classes, f), its gradient and Adam moments */
    int64_t n_E;
    float *gbuf;            /* P > 1: every gradient, packed for one allreduce */
    int64_t n_params;
    int64_t n_train;        /* labelled train vertices of the whole graph */
    /* the hook's state */
    int training;           /* 1: a training step (bits as configured), 0: evaluation (fp32) */
    uint32_t step;
    /* this rank's figures */
    int64_t fwd_w[GNN_MAX_LAYERS], bwd_w[GNN_MAX_LAYERS], fwd_b[GNN_MAX_LAYERS], bwd_b[GNN_MAX_LAYERS];
    int64_t eval_b, epoch0_b, lp_count;
    double model_s, hidden_s, wait_s;
    gnn_err *err;
} fbtrainer;

static int lp_on(const fbtrainer *T)
{
    return T->fc.lp_rate > 0.0f;
}

/* Bytes this rank has posted with ialltoallv so far (the communicator's accounting). */
static int64_t xchg_bytes(const gnn_comm *c)
{
    int64_t b = 0;
    for (int q = 0; q < c->size; q++)
        b += c->traffic.bytes[GNN_COMM_IALLTOALLV * c->size + q];
    return b;
}

/* ---- the aggregation hook: one exchange, counted ---------------------------------------------- */

/* Layer l's distributed aggregation in direction dir (0 forward, 1 backward), then its bytes
 * and, for a training step, its alpha-beta time: the slowest incoming segment (forward: the
 * rows received; backward: the rows sent forward come back), and how much of it the local
 * aggregation between post and wait covered. */
static gnn_status exchange(fbtrainer *T, int l, unsigned dir, const float *in, int64_t d, gnn_agg_kind kind, float *out)
{
    const int quant = T->training && (dir == 0 || T->fc.quant_backward);
    const gnn_quant_cfg q = { .bits = quant ? T->fc.bits : 32, .round = T->fc.round, .seed = T->cfg.seed,
                              .step = T->step, .layer = (unsigned)l };
    const int64_t b0 = xchg_bytes(T->comm);
    const gnn_distagg_times t0 = T->times;
    gnn_status st = dir ? gnn_distagg_backward(T->impl->distagg, T->comm, &T->da, in, d, kind, &q, out)
                        : gnn_distagg_forward(T->impl->distagg, T->comm, &T->da, in, d, kind, &q, out);
    if (st)
        return gnn_err_set(T->err, st, "layer %d %s exchange: %s", l, dir ? "backward" : "forward",
                           T->comm->err.msg[0] ? T->comm->err.msg : gnn_status_str(st));
    const int64_t b = xchg_bytes(T->comm) - b0;
    if (!T->training) {
        T->eval_b += b;
        return GNN_OK;
    }
    if (dir) {
        T->bwd_w[l] = d;
        T->bwd_b[l] += b;
    } else {
        T->fwd_w[l] = d;
        T->fwd_b[l] += b;
    }
    const int64_t *off = dir ? T->da.send_off : T->da.recv_off, rb = gnn_quant_row_bytes(d, q.bits);
    double slowest = 0.0;
    for (int p = 0; p < T->P; p++) {
        const int64_t bytes = (off[p + 1] - off[p]) * rb;
        const double t = T->fc.alpha_s + (double)bytes / T->fc.beta_Bps;
        if (p != T->rank && bytes > 0 && t > slowest)
            slowest = t;
    }
    const double local = T->times.local_s - t0.local_s;
    T->model_s += slowest;
    T->hidden_s += local < slowest ? local : slowest;
    T->wait_s += T->times.wait_s - t0.wait_s;
    return GNN_OK;
}

static gnn_status hook_forward(void *ctx, int l, const float *x, int64_t d, gnn_agg_kind kind, float *out)
{
    return exchange(ctx, l, 0, x, d, kind, out);
}

static gnn_status hook_backward(void *ctx, int l, const float *dout, int64_t d, gnn_agg_kind kind, float *dx)
{
    return exchange(ctx, l, 1, dout, d, kind, dx);
}

/* ---- label propagation (SuperGCN section 2, Lemma 3; next-capabilities.md A.4) ------------------ */

/* E: N(0, 1) as torch.nn.Embedding, by Box-Muller over the INIT stream (seed, INIT, step 1,
 * layer 0, id = class c) (Glorot's streams use step 0): element j from float draws 2j, 2j + 1,
 * in double, rounded once to float. */
static void lp_init(fbtrainer *T)
{
    for (int64_t c = 0; c < T->classes; c++) {
        const gnn_rng_stream s = gnn_rng_stream_make(T->cfg.seed, GNN_TAG_INIT, 1, 0, (uint64_t)c);
        for (int64_t j = 0; j < T->f; j++) {
            const double u1 = 1.0 - (double)gnn_rng_float(&s, (uint64_t)(2 * j)); /* (0, 1]: log is finite */
            const double u2 = (double)gnn_rng_float(&s, (uint64_t)(2 * j + 1));
            T->E[c * T->f + j] = (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
        }
    }
}

/* The step's masks: training vertex v propagates when float draw 0 of (seed, LABEL_MASK, step
 * = epoch (0 when drawn once), layer 0, id = v) is below the rate (all of them in evaluation,
 * train == 0); the others are supervised. Then x0 = x + E[y] on the propagating rows. */
static void lp_inputs(fbtrainer *T, int train, uint32_t epoch)
{
    const int64_t f = T->f;
    const uint32_t key = T->fc.lp_once ? 0u : epoch;
    memcpy(T->x0, T->x, (size_t)(T->n_own * f) * sizeof(float));
    for (int64_t i = 0; i < T->n_own; i++) {
        const int32_t y = T->label[i];
        int p = 0;
        if (y >= 0 && lp_on(T)) {
            const gnn_rng_stream s =
                gnn_rng_stream_make(T->cfg.seed, GNN_TAG_LABEL_MASK, key, 0, (uint64_t)T->da.own_gid[i]);
            p = !train || gnn_rng_float(&s, 0) < T->fc.lp_rate;
        }
        T->prop[i] = (uint8_t)p;
        T->sup[i] = p ? -1 : y;
        if (p)
            for (int64_t j = 0; j < f; j++)
                T->x0[i * f + j] += T->E[(int64_t)y * f + j];
    }
}

/* dE[y_v] += d loss / d x0[v] for the propagating rows, in row order (this rank's share; the
 * allreduce sums the ranks in rank order). */
static void lp_grad(fbtrainer *T, const float *dx0)
{
    memset(T->Eg, 0, (size_t)T->n_E * sizeof(float));
    for (int64_t i = 0; i < T->n_own; i++)
        if (T->prop[i])
            for (int64_t j = 0; j < T->f; j++)
                T->Eg[(int64_t)T->label[i] * T->f + j] += dx0[i * T->f + j];
}

/* ---- forward, step, evaluation ------------------------------------------------------------------ */

/* Forward through every layer on the rank's rows; the logits are C[L-1].y. The input is x0
 * with label propagation, else x. */
static gnn_status forward_all(fbtrainer *T, lcache *C, const fwd_key *k)
{
    const model *m = &T->m;
    const gnn_train_config *c = &T->cfg;
    const int64_t n = T->n_own;
    for (int l = 0; l < m->L; l++) {
        const mlayer *S = &m->layer[l];
        if (l == 0 && T->sparse0) { /* the owned rows of the CSR, then the keyed dropout on their values */
            gnn_status st = gnn_spmm_gather(m->spmm, &T->xcsr, T->blk.src_gid, n, &C[0].xs);
            if (!st && k->train && c->dropout > 0.0f)
                st = gnn_spmm_dropout(m->spmm, &C[0].xs, T->blk.src_gid, c->dropout, c->seed, k->step, 0);
            if (!st)
                st = gnn_layer_fwd(m, 0, &T->blk, &C[0], k);
            if (st)
                return st;
            continue;
        }
        if (!(C[l].x = falloc(n * S->in)))
            return GNN_ERR_NOMEM;
        memcpy(C[l].x, l == 0 ? (lp_on(T) ? T->x0 : T->x) : C[l - 1].y, (size_t)(n * S->in) * sizeof(float));
        if (k->train && c->dropout > 0.0f) {
            if (!(C[l].mask = falloc(n * S->in)))
                return GNN_ERR_NOMEM;
            gnn_status st = gnn_nn_dropout_fwd(m->nn, C[l].x, n, S->in, T->blk.src_gid, c->dropout, c->seed, k->step,
                                               (unsigned)l, C[l].mask);
            if (st)
                return st;
        }
        gnn_status st = gnn_layer_fwd(m, l, &T->blk, &C[l], k);
        if (st)
            return st;
        if (!k->train && l > 0) /* evaluation keeps only what the next layer reads */
            gnn_lcache_release_below(C, l);
    }
    return GNN_OK;
}

/* The loss of step `step` on this rank's rows (the sum over its supervised vertices, before the
 * division by denom) into *sum; with grads, the backward too: every layer's gradient into the
 * model's g and, with label propagation, E's into Eg (this rank's shares: the caller sums the
 * ranks). The forward's and the backward's times into phase when it is not NULL. Also the
 * gradient probe's evaluation (gnn_fb_grad_probe), which asks for the branch pattern. */
static gnn_status fb_loss(fbtrainer *T, uint32_t step, int grads, double denom, double *sum, double *phase,
                          uint64_t *pattern)
{
    model *m = &T->m;
    const int L = m->L;
    const gnn_train_config *c = &T->cfg;
    lcache C[GNN_MAX_LAYERS];
    memset(C, 0, sizeof C);
    float *dy = NULL, *dx = NULL;
    const fwd_key key = { .train = 1, .attn_drop = c->attn_dropout, .seed = c->seed, .step = step };
    gnn_status st;
    T->training = 1;
    T->step = step;
    double t1 = gnn_now_s(), t2;
    if (lp_on(T))
        lp_inputs(T, 1, step);
    if ((st = forward_all(T, C, &key)))
        goto done;
    if (!(dy = falloc(T->n_own * T->classes))) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    *sum = gnn_softmax_xent_sum(C[L - 1].y, T->n_own, T->classes, lp_on(T) ? T->sup : T->label, denom, dy, NULL);
    if (pattern) {
        const gnn_block *bp[GNN_MAX_LAYERS];
        for (int l = 0; l < L; l++)
            bp[l] = &T->blk;
        *pattern = gnn_grad_probe_pattern(m, bp, C);
    }
    t2 = gnn_now_s();
    if (phase)
        phase[GNN_PHASE_FORWARD] += t2 - t1;
    for (int l = L - 1; l >= 0 && grads; l--) {
        const int need_dx = l > 0 || lp_on(T);
        if (need_dx && !(dx = falloc(T->n_own * m->layer[l].in))) {
            st = GNN_ERR_NOMEM;
            goto done;
        }
        if ((st = gnn_layer_bwd(m, l, &T->blk, &C[l], &key, dy, need_dx ? dx : NULL)))
            goto done;
        gnn_free(dy);
        dy = dx; /* d loss / d y[l-1]; after layer 0, d loss / d x0 */
        dx = NULL;
    }
    if (grads && lp_on(T))
        lp_grad(T, dy);
    if (phase && grads)
        phase[GNN_PHASE_BACKWARD] += gnn_now_s() - t2;
done:
    for (int l = 0; l < L; l++)
        gnn_lcache_free(&C[l]);
    gnn_free(dy);
    gnn_free(dx);
    T->training = 0;
    return st;
}

/* The expected supervised count of the whole graph, as SuperGCN's code (lp_rate 0: N_train). */
static double fb_denom(const fbtrainer *T) { return (double)T->n_train * (1.0 - (double)T->fc.lp_rate); }

/* The epoch's one step (epoch_ops.step): global step `step` = the epoch. */
static gnn_status fb_step(void *self, const int64_t *order, int64_t k, uint32_t step, gnn_epoch_stats *E,
                          double *loss, gnn_err *err)
{
    fbtrainer *T = self;
    (void)order, (void)k, (void)err;
    model *m = &T->m;
    const gnn_train_config *c = &T->cfg;
    const int64_t b0 = xchg_bytes(T->comm);
    const double denom = fb_denom(T);
    double sums[2] = { 0.0, 0.0 };
    gnn_status st = fb_loss(T, step, 1, denom, &sums[0], E->phase_s, NULL);
    if (st)
        return st;
    for (int64_t i = 0; lp_on(T) && i < T->n_own; i++)
        T->lp_count += T->prop[i];
    if ((st = gnn_step_reduce_update_extra(m, c, T->P > 1 ? T->comm : NULL, T->gbuf, T->n_params, T->Eg, T->n_E, step,
                                           sums, E->phase_s)))
        return st;
    if (lp_on(T)) { /* the embedding: Adam without weight decay (SuperGCN trains with none) */
        const gnn_adam a = { c->lr, 0.9f, 0.999f, 1e-8f, 0.0f };
        gnn_adam_step(&a, (int64_t)step + 1, T->E, T->Eg, T->Em, T->Ev, T->n_E);
    }
    *loss = sums[0] / denom;
    if (step == 0)
        T->epoch0_b = xchg_bytes(T->comm) - b0;
    return GNN_OK;
}

/* Full-graph inference with fp32 exchanges and no dropout (epoch_ops.evaluate, on every rank):
 * accuracies per split and the val cross-entropy, summed over the ranks. */
static gnn_status fb_evaluate(void *self, double acc[4], double *val_loss, gnn_err *err)
{
    fbtrainer *T = self;
    (void)err;
    const model *m = &T->m;
    const int64_t n = T->n_own, classes = T->classes;
    lcache C[GNN_MAX_LAYERS];
    memset(C, 0, sizeof C);
    const fwd_key k = { .train = 0, .seed = T->cfg.seed };
    int32_t *pred = gnn_malloc((size_t)(n + 1) * sizeof(int32_t)), *vl = gnn_malloc((size_t)(n + 1) * sizeof(int32_t));
    float *scratch = falloc(n * classes);
    gnn_status st = GNN_ERR_NOMEM;
    if (!pred || !vl || !scratch)
        goto done;
    T->training = 0;
    if (lp_on(T))
        lp_inputs(T, 0, 0);
    if ((st = forward_all(T, C, &k)))
        goto done;
    const float *logits = C[m->L - 1].y;
    gnn_argmax(logits, n, classes, pred);
    double s[7] = { 0 }; /* right[1..3], total[1..3], val loss sum */
    for (int64_t i = 0; i < n; i++) {
        const int64_t v = T->da.own_gid[i];
        const int sp = T->ds->split[v];
        const int32_t y = T->ds->labels[v];
        vl[i] = sp == GNN_SPLIT_VAL ? y : -1;
        if (sp < 1 || sp > 3 || y < 0)
            continue;
        s[3 + sp - 1] += 1.0;
        s[sp - 1] += pred[i] == y;
    }
    s[6] = gnn_softmax_xent_sum(logits, n, classes, vl, 1.0, scratch, NULL);
    if (T->P > 1 && (st = gnn_comm_allreduce(T->comm, s, s, 7, GNN_DT_F64)))
        goto done;
    for (int sp = 1; sp < 4; sp++)
        acc[sp] = s[3 + sp - 1] > 0.0 ? s[sp - 1] / s[3 + sp - 1] : 0.0;
    *val_loss = s[4] > 0.0 ? s[6] / s[4] : 0.0;
    st = GNN_OK;
done:
    for (int l = 0; l < m->L; l++)
        gnn_lcache_free(&C[l]);
    gnn_free(pred);
    gnn_free(vl);
    gnn_free(scratch);
    return st;
}

static const epoch_ops fb_epoch_ops = { .step = fb_step, .evaluate = fb_evaluate };

/* ---- setup ---------------------------------------------------------------------------------------- */

static gnn_status check_config(const gnn_comm *comm, const gnn_fb_input *in, const gnn_train_config *c,
                               const gnn_fb_config *fc, gnn_err *err)
{
    if (!comm || !in || !in->ds || !c || !fc)
        return gnn_err_set(err, GNN_ERR_INVAL, "full batch on partitions: NULL communicator, input or configuration");
    const gnn_dataset *ds = in->ds;
    if (c->model != GNN_MODEL_SAGE && c->model != GNN_MODEL_GCN && c->model != GNN_MODEL_GIN)
        return gnn_err_set(err, GNN_ERR_INVAL, "--model %s: full batch on partitions trains sage, gcn or gin (%s: not "
                                               "built)",
                           gnn_model_name(c->model),
                           c->model == GNN_MODEL_GAT ? "gat's attention needs every in-edge's source row"
                                                     : "rgcn's aggregation per relation");
    if (c->layers < 1 || c->layers > GNN_MAX_LAYERS || c->hidden < 1 || c->epochs < 1)
        return gnn_err_set(err, GNN_ERR_INVAL, "layers 1..%d, hidden and epochs >= 1", GNN_MAX_LAYERS);
    if (!(c->dropout >= 0.0f && c->dropout < 1.0f) || !(c->lr > 0.0f) || !(c->weight_decay >= 0.0f) ||
        c->patience < 0 || c->stop_rule < GNN_STOP_AUTO || c->stop_rule > GNN_STOP_GAT)
        return gnn_err_set(err, GNN_ERR_INVAL, "dropout in [0, 1), lr > 0, weight decay >= 0, patience >= 0, "
                                               "stop rule acc or gat");
    if (fc->bits != 2 && fc->bits != 4 && fc->bits != 8 && fc->bits != 32)
        return gnn_err_set(err, GNN_ERR_INVAL, "--comm-bits %d: expected 32, 8, 4 or 2", fc->bits);
    if ((unsigned)fc->round > GNN_QUANT_NEAREST || (unsigned)fc->plan >= GNN_PLAN_COUNT)
        return gnn_err_set(err, GNN_ERR_INVAL, "unknown rounding or plan");
    if (!(fc->lp_rate >= 0.0f && fc->lp_rate < 1.0f))
        return gnn_err_set(err, GNN_ERR_INVAL, "--lp-rate %g: expected [0, 1)", (double)fc->lp_rate);
    if (!(fc->alpha_s >= 0.0) || !(fc->beta_Bps > 0.0))
        return gnn_err_set(err, GNN_ERR_INVAL, "the report's alpha must be >= 0 and beta > 0");
    if (!ds->labels || ds->num_classes < 1 || !ds->split || ds->num_features < 1)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: full-batch training needs labels, a split and features", ds->name);
    if (!in->part && ds->graph.n > 0)
        return gnn_err_set(err, GNN_ERR_INVAL, "full batch on partitions: no part vector");
    if (ds->graph.n > INT32_MAX)
        return gnn_err_set(err, GNN_ERR_RANGE, "%s: %lld vertices exceed the int32 range", ds->name,
                           (long long)ds->graph.n);
    return GNN_OK;
}

static void fb_free(fbtrainer *T)
{
    gnn_distagg_free(&T->da);
    gnn_commplan_free(&T->plan);
    gnn_csr_free(&T->loops);
    gnn_model_free(&T->m);
    gnn_fcsr_free(&T->xcsr); /* frees only the owned (normalized) copy */
    gnn_free(T->x), gnn_free(T->x0), gnn_free(T->label), gnn_free(T->sup), gnn_free(T->prop);
    gnn_free(T->E), gnn_free(T->Eg), gnn_free(T->Em), gnn_free(T->Ev);
    gnn_free(T->gbuf);
}

/* The plan, the exchange, the owned rows, the model (the same init on every rank), LP. */
static gnn_status fb_setup(fbtrainer *T, const gnn_fb_input *in)
{
    const gnn_dataset *ds = in->ds;
    const gnn_train_config *c = &T->cfg;
    gnn_status st;
    T->graph = &ds->graph;
    if (c->model == GNN_MODEL_GCN) {
        if ((st = gnn_csr_add_self_loops(&T->loops, &ds->graph)))
            return gnn_err_set(T->err, st, "adding self-loops: %s", gnn_status_str(st));
        T->graph = &T->loops;
    }
    if ((st = gnn_commplan_build(T->impl->commplan, T->graph, in->part, T->P, T->fc.plan, &T->plan, T->err)) ||
        (st = gnn_distagg_setup(T->impl->distagg, T->graph, in->part, T->P, T->rank, &T->plan, &T->da, T->err)))
        return st;
    T->da.tag = T->fc.tag;
    T->da.times = &T->times;
    T->n_own = T->da.n_own;
    T->f = ds->num_features;
    T->classes = ds->num_classes;
    const int64_t n = T->n_own, f = T->f;
    if ((st = gnn_model_init(&T->m, c, f, T->classes)))
        return st;
    T->sparse0 = gnn_dataset_feat_is_csr(ds) && c->model == GNN_MODEL_GCN && T->m.layer[0].project_first &&
                 !(T->fc.lp_rate > 0.0f);
    if (!(T->label = gnn_malloc((size_t)(n + 1) * sizeof(int32_t))) || (!T->sparse0 && !(T->x = falloc(n * f))))
        return GNN_ERR_NOMEM;
    for (int64_t i = 0; i < n; i++) {
        const int64_t v = T->da.own_gid[i];
        if (!T->sparse0)
            memcpy(T->x + i * f, ds->feat + v * f, (size_t)f * sizeof(float));
        T->label[i] = ds->split[v] == GNN_SPLIT_TRAIN && ds->labels[v] >= 0 ? ds->labels[v] : -1;
    }
    if (T->sparse0) {
        T->xcsr = ds->feat_csr;
        T->xcsr.owns = 0;
        if (c->feat_norm == GNN_FEAT_NORM_ROW) { /* the bits of gnn_rows_normalize's rows */
            if ((st = gnn_fcsr_copy(&ds->feat_csr, &T->xcsr)))
                return st;
            gnn_fcsr_rows_normalize(&T->xcsr);
        }
    } else if (c->feat_norm == GNN_FEAT_NORM_ROW) { /* row by row: the bits of the whole graph's rows */
        gnn_rows_normalize(T->x, n, f, T->x);
    }
    for (int64_t v = 0; v < ds->graph.n; v++)
        T->n_train += ds->split[v] == GNN_SPLIT_TRAIN && ds->labels[v] >= 0;
    if (T->n_train == 0)
        return gnn_err_set(T->err, GNN_ERR_INVAL, "%s: no labelled training vertices", ds->name);
    T->hook = (magg_hook){ hook_forward, hook_backward, T };
    T->m.dist = &T->hook;
    T->blk = (gnn_block){ .n_dst = n, .n_src = n, .src_gid = T->da.own_gid };
    for (int l = 0; l < T->m.L; l++)
        T->n_params += T->m.layer[l].count;
    if (T->fc.lp_rate > 0.0f) {
        T->n_E = T->classes * f;
        if (!(T->E = falloc(T->n_E)) || !(T->Eg = falloc(T->n_E)) || !(T->Em = gnn_calloc((size_t)T->n_E, sizeof(float))) ||
            !(T->Ev = gnn_calloc((size_t)T->n_E, sizeof(float))) || !(T->x0 = falloc(n * f)) ||
            !(T->sup = gnn_malloc((size_t)(n + 1) * sizeof(int32_t))) || !(T->prop = gnn_malloc((size_t)n + 1)))
            return GNN_ERR_NOMEM;
        lp_init(T);
    }
    if (T->P > 1 && !(T->gbuf = falloc(T->n_params + T->n_E)))
        return GNN_ERR_NOMEM;
    return GNN_OK;
}

/* ---- the report ------------------------------------------------------------------------------------ */

/* The rows of one exchange under plan kind k, all pairs (the run's plan, or one built for it). */
static gnn_status plan_rows(fbtrainer *T, const gnn_fb_input *in, gnn_plan_kind k, int64_t *rows)
{
    gnn_commplan other;
    memset(&other, 0, sizeof other);
    const gnn_commplan *p = &T->plan;
    if (k != T->fc.plan) {
        gnn_status st = gnn_commplan_build(T->impl->commplan, T->graph, in->part, T->P, k, &other, T->err);
        if (st)
            return st;
        p = &other;
    }
    *rows = 0;
    for (int64_t q = 0; q < (int64_t)T->P * T->P; q++)
        *rows += gnn_commplan_rows(p, q);
    gnn_commplan_free(&other);
    return GNN_OK;
}

/* Sum the ranks' counters (exact in double below 2^53) and take the slowest rank's times. */
static gnn_status fb_report(fbtrainer *T, const gnn_fb_input *in, gnn_fb_report *rep)
{
    memset(rep, 0, sizeof *rep);
    rep->ranks = T->P;
    const int L = T->m.L;
    gnn_status st;
    if ((st = plan_rows(T, in, T->fc.plan, &rep->plan_rows)) || (st = plan_rows(T, in, GNN_PLAN_PRE, &rep->rows_pre)) ||
        (st = plan_rows(T, in, GNN_PLAN_POST, &rep->rows_post)) ||
        (st = plan_rows(T, in, GNN_PLAN_HYBRID, &rep->rows_hybrid)))
        return st;
    rep->cut_edges = T->plan.n_edges;
    rep->n_train = T->n_train;
    enum { NS = 4 * GNN_MAX_LAYERS + 3 };
    double s[NS] = { 0 }, t[3] = { T->model_s, T->hidden_s, T->wait_s };
    for (int l = 0; l < L; l++) {
        s[l] = (double)T->fwd_b[l];
        s[GNN_MAX_LAYERS + l] = (double)T->bwd_b[l];
        s[2 * GNN_MAX_LAYERS + l] = (double)(T->fwd_w[l] > 0); /* ranks that exchanged: all or none */
        s[3 * GNN_MAX_LAYERS + l] = (double)(T->bwd_w[l] > 0);
    }
    s[4 * GNN_MAX_LAYERS] = (double)T->eval_b;
    s[4 * GNN_MAX_LAYERS + 1] = (double)T->epoch0_b;
    s[4 * GNN_MAX_LAYERS + 2] = (double)T->lp_count;
    double *all = gnn_malloc(sizeof(double) * 3 * (size_t)T->P);
    int64_t *cnt = gnn_malloc(sizeof(int64_t) * 2 * (size_t)T->P);
    double own[2] = { (double)T->n_own, (double)T->n_own }, *owns = gnn_malloc(sizeof(double) * 2 * (size_t)T->P);
    if (!all || !cnt || !owns) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    for (int q = 0; q < T->P; q++)
        cnt[q] = 3, cnt[T->P + q] = 3 * (int64_t)q;
    if (T->P > 1 && ((st = gnn_comm_allreduce(T->comm, s, s, NS, GNN_DT_F64)) ||
                     (st = gnn_comm_allgatherv(T->comm, t, 3, all, cnt, cnt + T->P, GNN_DT_F64))))
        goto done;
    for (int q = 0; q < T->P; q++)
        cnt[q] = 2, cnt[T->P + q] = 2 * (int64_t)q;
    if (T->P > 1 && (st = gnn_comm_allgatherv(T->comm, own, 2, owns, cnt, cnt + T->P, GNN_DT_F64)))
        goto done;
    if (T->P == 1) {
        memcpy(all, t, sizeof t);
        memcpy(owns, own, sizeof own);
    }
    rep->own_min = rep->own_max = (int64_t)owns[0];
    for (int q = 0; q < T->P; q++) {
        rep->xchg_model_s = all[3 * q] > rep->xchg_model_s ? all[3 * q] : rep->xchg_model_s;
        rep->xchg_hidden_s = all[3 * q + 1] > rep->xchg_hidden_s ? all[3 * q + 1] : rep->xchg_hidden_s;
        rep->xchg_wait_s = all[3 * q + 2] > rep->xchg_wait_s ? all[3 * q + 2] : rep->xchg_wait_s;
        rep->own_min = (int64_t)owns[2 * q] < rep->own_min ? (int64_t)owns[2 * q] : rep->own_min;
        rep->own_max = (int64_t)owns[2 * q] > rep->own_max ? (int64_t)owns[2 * q] : rep->own_max;
    }
    /* the plan's formula for one epoch: every exchange moves plan_rows rows of its width */
    for (int l = 0; l < L; l++) {
        rep->fwd_bytes[l] = (int64_t)s[l];
        rep->bwd_bytes[l] = (int64_t)s[GNN_MAX_LAYERS + l];
        rep->fwd_width[l] = T->fwd_w[l];
        rep->bwd_width[l] = T->bwd_w[l];
        const int bwd_bits = T->fc.quant_backward ? T->fc.bits : 32;
        if (T->fwd_w[l] > 0)
            rep->epoch_formula += rep->plan_rows * gnn_quant_row_bytes(T->fwd_w[l], T->fc.bits);
        if (T->bwd_w[l] > 0)
            rep->epoch_formula += rep->plan_rows * gnn_quant_row_bytes(T->bwd_w[l], bwd_bits);
    }
    rep->eval_bytes = (int64_t)s[4 * GNN_MAX_LAYERS];
    rep->epoch_bytes = (int64_t)s[4 * GNN_MAX_LAYERS + 1];
    rep->lp_propagated = (int64_t)s[4 * GNN_MAX_LAYERS + 2];
    st = GNN_OK;
done:
    gnn_free(all);
    gnn_free(cnt);
    gnn_free(owns);
    return st;
}

/* T from the configuration, then its setup; a rank whose setup fails must not leave the others
 * waiting, so every rank agrees on the outcome before the first step. */
static gnn_status fb_start(fbtrainer *T, gnn_comm *comm, const gnn_fb_input *in, const gnn_train_config *cfg,
                           const gnn_fb_config *fc, gnn_err *err)
{
    memset(T, 0, sizeof *T);
    T->comm = comm;
    T->P = gnn_comm_size(comm);
    T->rank = gnn_comm_rank(comm);
    T->cfg = *cfg;
    T->cfg.comm = NULL;
    gnn_train_resolve(&T->cfg);
    T->fc = *fc;
    T->impl = gnn_config_impl(&T->cfg);
    T->ds = in->ds;
    T->err = err;
    gnn_status st = fb_setup(T, in);
    double bad = st ? 1.0 : 0.0;
    if (T->P > 1) {
        gnn_status cst = gnn_comm_allreduce(comm, &bad, &bad, 1, GNN_DT_F64);
        if (!st && cst)
            st = cst;
    }
    if (!st && bad > 0.0)
        st = gnn_err_set(err, GNN_ERR_INVAL, "another rank failed to set up full-batch training");
    return st;
}

gnn_status gnn_train_fullbatch_dist(gnn_comm *comm, const gnn_fb_input *in, const gnn_train_config *cfg,
                                    const gnn_fb_config *fc, gnn_epoch_cb cb, void *ctx, gnn_train_result *res,
                                    gnn_fb_report *rep, gnn_err *err)
{
    memset(res, 0, sizeof *res);
    gnn_status st = check_config(comm, in, cfg, fc, err);
    if (st)
        return st;
    fbtrainer T;
    if ((st = fb_start(&T, comm, in, cfg, fc, err)))
        goto done;
    res->majority_rate = gnn_majority_rate(in->ds);
    const epoch_plan plan = { .cfg = &T.cfg, .steps = 1, .train = NULL, .n_train = T.n_train, .shuffle_id = 0,
                              .comm = comm, .root_evaluates = 0, .cb = cb, .cb_ctx = ctx };
    if ((st = gnn_train_epochs(&plan, &fb_epoch_ops, &T, res, err)))
        goto done;
    if (rep)
        st = fb_report(&T, in, rep);
done:
    fb_free(&T);
    if (st)
        gnn_train_result_free(res);
    return st;
}

/* ---- the gradient probe (include/gnnref/train_fullbatch.h, core/train/grad_probe.h) ------------------- */

typedef struct fb_probe_step {
    fbtrainer *T;
    uint32_t step;
} fb_probe_step;

static gnn_status fb_probe_eval(void *self, int grads, double *loss, uint64_t *pattern)
{
    const fb_probe_step *p = self;
    const double denom = fb_denom(p->T);
    double sum = 0.0;
    const gnn_status st = fb_loss(p->T, p->step, grads, denom, &sum, NULL, pattern);
    *loss = sum / denom;
    return st;
}

gnn_status gnn_fb_grad_probe(gnn_comm *comm, const gnn_fb_input *in, const gnn_train_config *cfg,
                             const gnn_fb_config *fc, uint32_t step, gnn_grad_probe *probe, gnn_err *err)
{
    gnn_status st = check_config(comm, in, cfg, fc, err);
    if (st)
        return st;
    fbtrainer T;
    st = fb_start(&T, comm, in, cfg, fc, err);
    for (int t = 0; t < probe->warmup && !st; t++) {
        gnn_epoch_stats E;
        memset(&E, 0, sizeof E);
        double loss;
        st = fb_step(&T, NULL, 0, (uint32_t)t, &E, &loss, err);
    }
    if (!st) {
        fb_probe_step ps = { &T, step };
        const grad_probe gp = { .m = &T.m, .extra = T.E, .extra_g = T.Eg, .n_extra = T.n_E, .comm = comm,
                                .eval = fb_probe_eval, .self = &ps };
        st = gnn_grad_probe_run(&gp, probe);
    }
    fb_free(&T);
    return st;
}
