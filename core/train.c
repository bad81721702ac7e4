/* core/train.c -- mini-batch GraphSAGE training glue (DistGNN-MB section 2, Eq. 1).
 *
 * One step: sample L blocks from a batch of seeds (DGL order), gather input features,
 * forward through L SAGE layers, softmax cross-entropy on the seeds, backward, Adam.
 * Kernels come from ops tables (ref or opt/cpu); every choice of randomness is keyed
 * (DESIGN.md section 2), and every kernel used is bitwise thread-count independent, so the
 * per-step losses are the same bits at any thread count and for either implementation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gnnref/aggregate.h"
#include "gnnref/idmap.h"
#include "gnnref/nn.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "gnnref/tensor.h"
#include "gnnref/train.h"

const char *const gnn_phase_names[GNN_PHASE_COUNT] = { "sample", "forward", "backward", "update", "eval" };

void gnn_train_defaults(gnn_train_config *c)
{
    memset(c, 0, sizeof *c);
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
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Parameters of one SAGE layer and their Adam state, in one flat array:
 * [W_n (in, out) | W_s (in, out) | b (out)]. */
typedef struct sage_layer {
    int64_t in, out;
    float *p, *g, *m, *v; /* (count) */
    int64_t count;
} sage_layer;

static float *wn(const sage_layer *L) { return L->p; }
static float *ws(const sage_layer *L) { return L->p + L->in * L->out; }
static float *bias(const sage_layer *L) { return L->p + 2 * L->in * L->out; }

typedef struct model {
    int L;
    sage_layer layer[GNN_MAX_LAYERS];
    const gnn_aggregate_ops *agg;
    const gnn_nn_ops *nn;
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

static gnn_status model_init(model *m, const gnn_train_config *c, int64_t in, int64_t classes)
{
    memset(m, 0, sizeof *m);
    m->L = c->layers;
    m->agg = c->impl_opt ? &gnn_aggregate_cpu : &gnn_aggregate_ref;
    m->nn = c->impl_opt ? &gnn_nn_cpu : &gnn_nn_ref;
    for (int l = 0; l < m->L; l++) {
        sage_layer *S = &m->layer[l];
        S->in = l == 0 ? in : c->hidden;
        S->out = l == m->L - 1 ? classes : c->hidden;
        S->count = 2 * S->in * S->out + S->out;
        S->p = gnn_calloc((size_t)S->count, sizeof(float));
        S->g = gnn_calloc((size_t)S->count, sizeof(float));
        S->m = gnn_calloc((size_t)S->count, sizeof(float));
        S->v = gnn_calloc((size_t)S->count, sizeof(float));
        if (!S->p || !S->g || !S->m || !S->v) {
            m->L = l + 1;
            model_free(m);
            return GNN_ERR_NOMEM;
        }
        /* Glorot uniform; parameter index 2l for W_n, 2l+1 for W_s; bias starts at 0 */
        gnn_glorot_init(wn(S), S->in, S->out, c->seed, (unsigned)(2 * l));
        gnn_glorot_init(ws(S), S->in, S->out, c->seed, (unsigned)(2 * l + 1));
    }
    return GNN_OK;
}

/* Activations of one step, per layer l: h[l] is the layer's input (n_src_l, in_l) after
 * dropout, mask[l] its dropout scale, agg[l] the mean (n_dst_l, in_l), z[l] the output
 * (n_dst_l, out_l) after ReLU (hidden) or the logits (last). */
typedef struct acts {
    float *h[GNN_MAX_LAYERS], *mask[GNN_MAX_LAYERS], *agg[GNN_MAX_LAYERS], *z[GNN_MAX_LAYERS];
} acts;

static void acts_free(acts *a, int L)
{
    for (int l = 0; l < L; l++) {
        gnn_free(a->h[l]);
        gnn_free(a->mask[l]);
        gnn_free(a->agg[l]);
        gnn_free(a->z[l]);
    }
    memset(a, 0, sizeof *a);
}

/* One SAGE layer: z = W_n . agg + b, then z += W_s . h_self (a second product added
 * elementwise in a fixed order), then ReLU unless last. */
static gnn_status sage_forward(const model *m, int l, const gnn_block *blk, const float *h,
                               float *agg, float *z, float *tmp)
{
    const sage_layer *S = &m->layer[l];
    gnn_status st = m->agg->forward(blk, h, S->in, GNN_AGG_MEAN, agg);
    if (st)
        return st;
    const int64_t n = blk->n_dst;
    m->nn->linear_fwd(agg, n, S->in, wn(S), bias(S), S->out, z);
    m->nn->linear_fwd(h, n, S->in, ws(S), NULL, S->out, tmp); /* dst are src 0..n_dst-1 */
    for (int64_t i = 0; i < n * S->out; i++)
        z[i] += tmp[i];
    if (l < m->L - 1)
        gnn_relu_fwd(z, n * S->out);
    return GNN_OK;
}

typedef struct trainer {
    const gnn_dataset *ds;
    const gnn_train_config *cfg;
    gnn_sampler *sampler; /* opt: fused sampling with the dense ordered ID map; ref: NULL */
    model m;
    int64_t *train_ids;
    int64_t n_train;
} trainer;

static void gather_features(const gnn_dataset *ds, const int64_t *gid, int64_t n, float *out)
{
    const int64_t f = ds->num_features;
    for (int64_t i = 0; i < n; i++)
        memcpy(out + i * f, ds->feat + gid[i] * f, (size_t)f * sizeof(float));
}

/* One training step on `seeds`. Returns the loss in *loss. */
static gnn_status train_step(trainer *T, const int64_t *seeds, int64_t n_seeds, uint32_t step,
                             double *loss, double *phase, int64_t *edges)
{
    const gnn_train_config *c = T->cfg;
    model *m = &T->m;
    const int L = m->L;
    gnn_block blk[GNN_MAX_LAYERS];
    acts a;
    memset(blk, 0, sizeof blk);
    memset(&a, 0, sizeof a);
    float *tmp = NULL, *dz = NULL, *dh = NULL, *dagg = NULL;
    int32_t *lab = NULL;
    gnn_status st;

    double t0 = now_s();
    const gnn_sample_params base = { .seed = c->seed, .step = step };
    /* the fused sampler's blocks equal the reference's bit for bit (ordered ID map) */
    st = T->sampler ? gnn_sampler_blocks(T->sampler, seeds, n_seeds, c->fanouts, L, &base, blk)
                    : gnn_sample_blocks(&gnn_sample_ref, &T->ds->graph, seeds, n_seeds, c->fanouts, L, &base, blk);
    if (st)
        goto done;
    for (int l = 0; l < L; l++)
        *edges += blk[l].nnz;
    double t1 = now_s();
    phase[GNN_PHASE_SAMPLE] += t1 - t0;

    /* forward */
    int64_t max_elems = 0;
    for (int l = 0; l < L; l++) {
        const sage_layer *S = &m->layer[l];
        const int64_t ns = blk[l].n_src, nd = blk[l].n_dst;
        a.h[l] = gnn_malloc((size_t)(ns * S->in) * sizeof(float));
        a.mask[l] = gnn_malloc((size_t)(ns * S->in) * sizeof(float));
        a.agg[l] = gnn_malloc((size_t)(nd * S->in) * sizeof(float));
        a.z[l] = gnn_malloc((size_t)(nd * S->out) * sizeof(float));
        if (!a.h[l] || !a.mask[l] || !a.agg[l] || !a.z[l]) {
            st = GNN_ERR_NOMEM;
            goto done;
        }
        if (ns * S->in > max_elems)
            max_elems = ns * S->in;
        if (nd * S->out > max_elems)
            max_elems = nd * S->out;
    }
    tmp = gnn_malloc((size_t)max_elems * sizeof(float));
    dz = gnn_malloc((size_t)max_elems * sizeof(float));
    dh = gnn_malloc((size_t)max_elems * sizeof(float));
    dagg = gnn_malloc((size_t)max_elems * sizeof(float));
    lab = gnn_malloc((size_t)n_seeds * sizeof(int32_t));
    if (!tmp || !dz || !dh || !dagg || !lab) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    gather_features(T->ds, blk[0].src_gid, blk[0].n_src, a.h[0]);
    for (int l = 0; l < L; l++) {
        const sage_layer *S = &m->layer[l];
        if (l > 0) /* the next layer's src are this layer's dst: same rows, same order */
            memcpy(a.h[l], a.z[l - 1], (size_t)(blk[l].n_src * S->in) * sizeof(float));
        if (c->dropout > 0.0f)
            gnn_dropout_fwd(a.h[l], blk[l].n_src, S->in, blk[l].src_gid, c->dropout, c->seed, step,
                            (unsigned)l, a.mask[l]);
        if ((st = sage_forward(m, l, &blk[l], a.h[l], a.agg[l], a.z[l], tmp)))
            goto done;
    }
    for (int64_t i = 0; i < n_seeds; i++)
        lab[i] = T->ds->labels[seeds[i]];
    const int64_t classes = m->layer[L - 1].out;
    *loss = gnn_softmax_xent(a.z[L - 1], n_seeds, classes, lab, dz, NULL);
    double t2 = now_s();
    phase[GNN_PHASE_FORWARD] += t2 - t1;

    /* backward: dz holds d loss / d z[l] (n_dst_l, out_l) */
    for (int l = L - 1; l >= 0; l--) {
        sage_layer *S = &m->layer[l];
        const int64_t nd = blk[l].n_dst, ns = blk[l].n_src;
        if (l < L - 1)
            gnn_relu_bwd(a.z[l], dz, nd * S->out);
        /* W_n, b from the aggregate; W_s from the dst rows of h */
        m->nn->linear_bwd(a.agg[l], dz, nd, S->in, wn(S), S->out, l > 0 ? dagg : NULL, S->g, S->g + 2 * S->in * S->out);
        m->nn->linear_bwd(a.h[l], dz, nd, S->in, ws(S), S->out, l > 0 ? tmp : NULL, S->g + S->in * S->out, NULL);
        if (l == 0)
            break; /* no gradient needed for the input features */
        if ((st = m->agg->backward(&blk[l], dagg, S->in, GNN_AGG_MEAN, dh)))
            goto done;
        for (int64_t i = 0; i < nd * S->in; i++) /* self path of the dst rows */
            dh[i] += tmp[i];
        if (c->dropout > 0.0f)
            gnn_dropout_bwd(dh, ns, S->in, a.mask[l]);
        /* dh is d loss / d z[l-1] (ns rows = n_dst of layer l-1) */
        float *swap = dz;
        dz = dh;
        dh = swap;
    }
    double t3 = now_s();
    phase[GNN_PHASE_BACKWARD] += t3 - t2;

    /* update */
    gnn_adam adam = { c->lr, 0.9f, 0.999f, 1e-8f, c->weight_decay };
    for (int l = 0; l < L; l++) {
        sage_layer *S = &m->layer[l];
        gnn_adam_step(&adam, (int64_t)step + 1, S->p, S->g, S->m, S->v, S->count);
    }
    phase[GNN_PHASE_UPDATE] += now_s() - t3;
    st = GNN_OK;
done:
    for (int l = 0; l < L; l++)
        gnn_block_free(&blk[l]);
    acts_free(&a, L);
    gnn_free(tmp);
    gnn_free(dz);
    gnn_free(dh);
    gnn_free(dagg);
    gnn_free(lab);
    return st;
}

/* Full-neighborhood inference over the whole graph, layer by layer; accuracies per split. */
static gnn_status evaluate(trainer *T, double acc[4])
{
    const gnn_dataset *ds = T->ds;
    model *m = &T->m;
    const int64_t n = ds->graph.n;
    gnn_block full;
    gnn_status st = gnn_block_full(&full, &ds->graph);
    if (st)
        return st;
    int64_t width = ds->num_features;
    for (int l = 0; l < m->L; l++)
        if (m->layer[l].out > width)
            width = m->layer[l].out;
    float *h = gnn_malloc((size_t)(n * width) * sizeof(float));
    float *agg = gnn_malloc((size_t)(n * width) * sizeof(float));
    float *z = gnn_malloc((size_t)(n * width) * sizeof(float));
    float *tmp = gnn_malloc((size_t)(n * width) * sizeof(float));
    int32_t *pred = gnn_malloc((size_t)n * sizeof(int32_t));
    if (!h || !agg || !z || !tmp || !pred) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    memcpy(h, ds->feat, (size_t)(n * ds->num_features) * sizeof(float));
    for (int l = 0; l < m->L; l++) {
        if ((st = sage_forward(m, l, &full, h, agg, z, tmp)))
            goto done;
        float *swap = h;
        h = z;
        z = swap;
    }
    gnn_argmax(h, n, m->layer[m->L - 1].out, pred);
    int64_t right[4] = { 0 }, total[4] = { 0 };
    for (int64_t v = 0; v < n; v++) {
        const int s = ds->split ? ds->split[v] : 0;
        if (s < 1 || s > 3 || ds->labels[v] < 0)
            continue;
        total[s]++;
        right[s] += pred[v] == ds->labels[v];
    }
    for (int s = 1; s < 4; s++)
        acc[s] = total[s] ? (double)right[s] / (double)total[s] : 0.0;
done:
    gnn_block_free(&full);
    gnn_free(h);
    gnn_free(agg);
    gnn_free(z);
    gnn_free(tmp);
    gnn_free(pred);
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
    if (c->layers < 1 || c->layers > GNN_MAX_LAYERS)
        return gnn_err_set(err, GNN_ERR_INVAL, "--layers %d: expected 1..%d", c->layers, GNN_MAX_LAYERS);
    if (c->hidden < 1 || c->batch < 1 || c->epochs < 0)
        return gnn_err_set(err, GNN_ERR_INVAL, "hidden, batch must be >= 1 and epochs >= 0");
    if (!(c->dropout >= 0.0f && c->dropout < 1.0f))
        return gnn_err_set(err, GNN_ERR_INVAL, "--dropout %g: expected [0, 1)", (double)c->dropout);
    if (!(c->lr > 0.0f))
        return gnn_err_set(err, GNN_ERR_INVAL, "--lr %g: expected > 0", (double)c->lr);
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

gnn_status gnn_train_sage(const gnn_dataset *ds, const gnn_train_config *cfg, gnn_epoch_cb cb,
                          void *ctx, gnn_train_result *res, gnn_err *err)
{
    memset(res, 0, sizeof *res);
    gnn_status st = check_inputs(ds, cfg, err);
    if (st)
        return st;
    trainer T = { .ds = ds, .cfg = cfg };
    const int64_t n = ds->graph.n;
    T.train_ids = malloc((size_t)n * sizeof(int64_t) + 1);
    int64_t *order = malloc((size_t)n * sizeof(int64_t) + 1);
    if (!T.train_ids || !order) {
        free(T.train_ids);
        free(order);
        return GNN_ERR_NOMEM;
    }
    int64_t *label_count = calloc((size_t)ds->num_classes, sizeof(int64_t));
    for (int64_t v = 0; v < n; v++)
        if (ds->split[v] == GNN_SPLIT_TRAIN && ds->labels[v] >= 0) {
            T.train_ids[T.n_train++] = v;
            if (label_count)
                label_count[ds->labels[v]]++;
        }
    if (T.n_train == 0) {
        free(T.train_ids);
        free(order);
        free(label_count);
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: no labelled training vertices", ds->name);
    }
    /* majority-class baseline: the most common train label, scored on the test split */
    int32_t major = 0;
    for (int64_t k = 1; k < ds->num_classes && label_count; k++)
        if (label_count[k] > label_count[major])
            major = (int32_t)k;
    free(label_count);
    int64_t tot = 0, hit = 0;
    for (int64_t v = 0; v < n; v++)
        if (ds->split[v] == GNN_SPLIT_TEST && ds->labels[v] >= 0) {
            tot++;
            hit += ds->labels[v] == major;
        }
    res->majority_rate = tot ? (double)hit / (double)tot : 0.0;

    if ((st = model_init(&T.m, cfg, ds->num_features, ds->num_classes))) {
        free(T.train_ids);
        free(order);
        return st;
    }
    if (cfg->impl_opt && (st = gnn_sampler_create(&T.sampler, &ds->graph, GNN_SAMPLER_FUSED, GNN_IDMAP_DENSE))) {
        model_free(&T.m);
        free(T.train_ids);
        free(order);
        return st;
    }
    const int64_t steps_per_epoch = (T.n_train + cfg->batch - 1) / cfg->batch;
    res->epochs = calloc((size_t)cfg->epochs + 1, sizeof(gnn_epoch_stats));
    res->step_loss = calloc((size_t)(steps_per_epoch * cfg->epochs) + 1, sizeof(double));
    if (!res->epochs || !res->step_loss) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    res->best_val_acc = -1.0;
    uint32_t step = 0;
    for (int ep = 0; ep < cfg->epochs; ep++) {
        gnn_epoch_stats *E = &res->epochs[ep];
        E->epoch = ep;
        E->train_acc = E->val_acc = E->test_acc = -1.0;
        const double te0 = now_s();
        /* epoch order: Fisher-Yates with (seed, SHUFFLE, step = epoch, id 0) */
        memcpy(order, T.train_ids, (size_t)T.n_train * sizeof(int64_t));
        const gnn_rng_stream sh = gnn_rng_stream_make(cfg->seed, GNN_TAG_SHUFFLE, (uint32_t)ep, 0, 0);
        gnn_rng_shuffle_i64(&sh, order, T.n_train);
        double loss_sum = 0.0;
        for (int64_t b0 = 0; b0 < T.n_train; b0 += cfg->batch) {
            const int64_t nb = T.n_train - b0 < cfg->batch ? T.n_train - b0 : cfg->batch;
            double loss = 0.0;
            if ((st = train_step(&T, order + b0, nb, step, &loss, E->phase_s, &E->edges_sampled))) {
                gnn_err_set(err, st, "training step %u failed: %s", step, gnn_status_str(st));
                goto done;
            }
            res->step_loss[res->n_steps++] = loss;
            loss_sum += loss;
            step++;
            E->steps++;
            if (cfg->on_step)
                cfg->on_step(ep, E->steps, steps_per_epoch, loss, cfg->on_step_ctx);
        }
        E->loss = E->steps ? loss_sum / (double)E->steps : 0.0;
        const int last = ep == cfg->epochs - 1;
        if ((cfg->eval_every > 0 && (ep + 1) % cfg->eval_every == 0) || last) {
            double acc[4] = { 0 };
            const double tv = now_s();
            if ((st = evaluate(&T, acc))) {
                gnn_err_set(err, st, "evaluation failed: %s", gnn_status_str(st));
                goto done;
            }
            E->phase_s[GNN_PHASE_EVAL] += now_s() - tv;
            E->train_acc = acc[1];
            E->val_acc = acc[2];
            E->test_acc = acc[3];
            if (acc[2] > res->best_val_acc) {
                res->best_val_acc = acc[2];
                res->test_acc_at_best_val = acc[3];
                res->best_epoch = ep;
            }
            if (last) {
                res->train_acc = acc[1];
                res->val_acc = acc[2];
                res->test_acc = acc[3];
            }
        }
        E->time_s = now_s() - te0;
        res->n_epochs = ep + 1;
        if (cb)
            cb(E, ctx);
    }
    if (res->best_val_acc < 0)
        res->best_val_acc = 0;
    st = GNN_OK;
done:
    gnn_sampler_destroy(T.sampler);
    model_free(&T.m);
    free(T.train_ids);
    free(order);
    if (st)
        gnn_train_result_free(res);
    return st;
}
