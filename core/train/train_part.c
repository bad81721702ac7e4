/* core/train/train_part.c -- distributed mini-batch training on a partition: DistGNN-MB sections
 * 3.1-3.2 and Algorithm 2 (the Historical Embedding Cache with Asynchronous Embedding Push),
 * plus the two baselines, drop and fetch. The contract is include/gnnref/train_part.h; the
 * semantics, with a worked example, are docs/hec.md.
 *
 * This file is the public entry: it checks the configuration, sets up (train_part_setup.c:
 * Algorithm 1 and line 2), runs the epochs through the loop gnn_train shares (core/train/epoch.c:
 * lines 3-5) with this trainer's step (train_part_step.c: lines 6-24, the push and receive in
 * train_part_push.c) and evaluation (train_part_eval.c), and sums the run's report.
 *
 * M = ceil(max_r n_train_r / batch) steps per epoch on every rank; with more than one rank,
 * each rank cuts its epoch order into M near-equal batches (batch_slice). A rank with an empty
 * batch (fewer train vertices than steps) still takes part in every collective of a step (the
 * waits, the posts, the pulls, the allreduce). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/train/epoch.h"
#include "core/train/train_part_internal.h"
#include "gnnref/crc32c.h"

const char *gnn_remote_name(gnn_remote_mode m)
{
    return m == GNN_REMOTE_DROP ? "drop" : m == GNN_REMOTE_HEC ? "hec" : m == GNN_REMOTE_FETCH ? "fetch" : "?";
}

gnn_status gnn_remote_parse(const char *s, gnn_remote_mode *m)
{
    for (int k = 0; k < 3; k++)
        if (s && !strcmp(s, gnn_remote_name((gnn_remote_mode)k))) {
            *m = (gnn_remote_mode)k;
            return GNN_OK;
        }
    return GNN_ERR_INVAL;
}

void gnn_part_train_defaults(gnn_part_train_config *p)
{
    memset(p, 0, sizeof *p);
    p->remote = GNN_REMOTE_HEC;
    p->hec_ls = 2;
    p->hec_delay = 1;
    p->tag_base = 100;
    p->pipeline_copy_cap = 5;
    p->embed_opt = GNN_SPARSE_ADAM;
    p->embed_lr = 0.01f;
    p->reorder_window = -1; /* no reorder */
    p->match_norm = GNN_MATCH_MIN;
}

static gnn_status check_config(const gnn_part_input *in, const gnn_train_config *c, const gnn_part_train_config *pc,
                               int P, int rank, gnn_err *err)
{
    if (c->model != GNN_MODEL_SAGE && c->model != GNN_MODEL_GAT && c->model != GNN_MODEL_GIN &&
        c->model != GNN_MODEL_RGCN)
        return gnn_err_set(err, GNN_ERR_INVAL,
                           "training on partitions supports sage, gat, gin and rgcn, not %s (its normalization needs "
                           "the global degrees of halo vertices, which a part does not store)",
                           gnn_model_name(c->model));
    if (c->model == GNN_MODEL_RGCN && pc->sampling == GNN_SAMPLING_DISTRIBUTED)
        return gnn_err_set(err, GNN_ERR_INVAL, "rgcn: distributed sampling does not sample per edge type yet (use "
                                               "--sampling local: the whole topology with its edge types)");
    if (c->model == GNN_MODEL_RGCN && (!in->etype || !in->global || in->relations < 1 || in->relations > 254 ||
                                       in->global->n != in->n_global))
        return gnn_err_set(err, GNN_ERR_INVAL, "rgcn on partitions needs the whole graph's edge types (1..254 of "
                                               "them; a typed dataset: --data builtin-typed or a typed file)");
    if (c->model == GNN_MODEL_RGCN && (c->rgcn_bases < 0 || c->rgcn_bases > 64))
        return gnn_err_set(err, GNN_ERR_INVAL, "--rgcn-bases %lld: expected 0..64", (long long)c->rgcn_bases);
    if (pc->embed_dim > 0 && in->learn_input && pc->embed_dim != in->num_features)
        return gnn_err_set(err, GNN_ERR_INVAL, "--embed-dim %lld: the featureless types' embeddings stand in for "
                                               "features, so they need the features' width %lld",
                           (long long)pc->embed_dim, (long long)in->num_features);
    if (c->mode != GNN_MODE_MINIBATCH)
        return gnn_err_set(err, GNN_ERR_INVAL, "training on partitions is mini-batch only");
    if (c->layers < 1 || c->layers > GNN_MAX_LAYERS || c->hidden < 1 || c->batch < 1 || c->epochs < 1)
        return gnn_err_set(err, GNN_ERR_INVAL, "layers 1..%d, hidden, batch and epochs >= 1", GNN_MAX_LAYERS);
    for (int l = 0; l < c->layers; l++)
        if (c->fanouts[l] == 0 || c->fanouts[l] < -1)
            return gnn_err_set(err, GNN_ERR_INVAL, "fanout %lld for layer %d: expected >= 1 or -1 (all)",
                               (long long)c->fanouts[l], l);
    if (!(c->dropout >= 0.0f && c->dropout < 1.0f) || !(c->lr > 0.0f) || !(c->weight_decay >= 0.0f) ||
        !(c->attn_dropout < 1.0f) || c->patience < 0 || c->stop_rule < GNN_STOP_AUTO || c->stop_rule > GNN_STOP_GAT)
        return gnn_err_set(err, GNN_ERR_INVAL, "dropout in [0, 1), lr > 0, weight decay >= 0, patience >= 0, "
                                               "stop rule acc or gat");
    if (c->model == GNN_MODEL_GAT && (c->heads < 1 || c->heads > GNN_MAX_HEADS || c->out_heads < 1 ||
                                      c->out_heads > GNN_MAX_HEADS || !(c->gat_slope >= 0.0f && c->gat_slope < 1.0f)))
        return gnn_err_set(err, GNN_ERR_INVAL, "gat: heads 1..%d, slope in [0, 1)", GNN_MAX_HEADS);
    if ((unsigned)pc->remote > GNN_REMOTE_FETCH)
        return gnn_err_set(err, GNN_ERR_INVAL, "remote mode %d: expected drop, hec or fetch", (int)pc->remote);
    if ((unsigned)pc->sampling > GNN_SAMPLING_DISTRIBUTED ||
        (pc->sampling == GNN_SAMPLING_DISTRIBUTED && pc->remote != GNN_REMOTE_FETCH))
        return gnn_err_set(err, GNN_ERR_INVAL, "--sampling distributed pulls the sampled vertices' features: it needs "
                                               "--remote fetch (remote is %s)",
                           gnn_remote_name(pc->remote));
    if (pc->embed_dim < 0 || pc->embed_dim > (1 << 16) ||
        (pc->embed_dim > 0 && (pc->remote != GNN_REMOTE_FETCH || !(pc->embed_lr > 0.0f) ||
                               (pc->embed_opt != GNN_SPARSE_ADAGRAD && pc->embed_opt != GNN_SPARSE_ADAM))))
        return gnn_err_set(err, GNN_ERR_INVAL, "sparse embeddings: --embed-dim 1..65536 with --remote fetch (or "
                                               "--sampling distributed), an lr > 0 and adagrad or adam");
    if (pc->pipeline_cap < 0 || pc->pipeline_cap > 4096 || pc->pipeline_copy_cap < 1 ||
        (pc->pipeline_cap > 0 && pc->sampling == GNN_SAMPLING_DISTRIBUTED))
        return gnn_err_set(err, GNN_ERR_INVAL, "--pipeline %lld: expected 0..4096, and not with --sampling distributed "
                                               "(its hops are collectives, which stay on the trainer's thread)",
                           (long long)pc->pipeline_cap);
    if (pc->match && (pc->remote != GNN_REMOTE_FETCH || pc->embed_dim > 0))
        return gnn_err_set(err, GNN_ERR_INVAL, "--match reuses the previous mini-batch's pulled feature rows: it needs "
                                               "--remote fetch and the features (not --embed-dim, whose rows change "
                                               "every step)");
    if (pc->reorder_window < -1 || pc->reorder_window > INT32_MAX || (unsigned)pc->match_norm > GNN_MATCH_COUNT ||
        (pc->reorder_window >= 0 && (!pc->match || pc->pipeline_cap > 0 || pc->sampling == GNN_SAMPLING_DISTRIBUTED)))
        return gnn_err_set(err, GNN_ERR_INVAL, "--reorder-window %lld: expected 0..2^31-1 with --match, and not with "
                                               "--pipeline or --sampling distributed (the window is sampled ahead on "
                                               "the trainer's thread)",
                           (long long)pc->reorder_window);
    if (pc->sampling == GNN_SAMPLING_DISTRIBUTED && c->layers > GNN_DSAMPLE_MAX_LAYERS)
        return gnn_err_set(err, GNN_ERR_INVAL, "distributed sampling: at most %d layers", GNN_DSAMPLE_MAX_LAYERS);
    if (pc->hec_cs < 0 || pc->hec_nc < 0 || pc->hec_ls < 0 || pc->hec_delay < 1 || pc->hec_delay > MAX_DELAY)
        return gnn_err_set(err, GNN_ERR_INVAL, "--hec-cs, --hec-nc >= 0, --hec-ls >= 0, --hec-delay in 1..%d",
                           MAX_DELAY);
    if (pc->tag_base < 0 || pc->tag_base + c->layers > GNN_COMM_MAX_TAG)
        return gnn_err_set(err, GNN_ERR_INVAL, "tag_base %d: layers' tags must stay below %d", pc->tag_base,
                           GNN_COMM_MAX_TAG);
    if (P > MAX_RANKS)
        return gnn_err_set(err, GNN_ERR_INVAL, "%d ranks: training on partitions supports at most %d", P, MAX_RANKS);
    return GNN_OK;
}

/* Sum n int64 counters over the ranks (as f64: exact below 2^53). */
static gnn_status sum_counters(ptrainer *T, int64_t *v, int n)
{
    double d[4 * GNN_MAX_LAYERS + 8];
    for (int i = 0; i < n; i++)
        d[i] = (double)v[i];
    gnn_status st = T->P > 1 ? gnn_comm_allreduce(T->comm, d, d, n, GNN_DT_F64) : GNN_OK;
    for (int i = 0; i < n && !st; i++)
        v[i] = (int64_t)d[i];
    return st;
}

/* The smallest and largest cs and nc over the ranks (each rank sizes its own caches). */
static gnn_status size_range(ptrainer *T, gnn_part_report *rep)
{
    int64_t me[2] = { T->cs, T->nc };
    int64_t *all = gnn_malloc((size_t)T->P * 4 * sizeof(int64_t));
    if (!all)
        return GNN_ERR_NOMEM;
    int64_t *cnt = all + 2 * T->P, *displ = cnt + T->P;
    for (int q = 0; q < T->P; q++) {
        cnt[q] = 2;
        displ[q] = 2 * q;
    }
    gnn_status st = gnn_comm_allgatherv(T->comm, me, 2, all, cnt, displ, GNN_DT_I64);
    if (!st) {
        rep->hec_cs_min = rep->hec_cs_max = all[0];
        rep->hec_nc_min = rep->hec_nc_max = all[1];
        for (int q = 1; q < T->P; q++) {
            rep->hec_cs_min = all[2 * q] < rep->hec_cs_min ? all[2 * q] : rep->hec_cs_min;
            rep->hec_cs_max = all[2 * q] > rep->hec_cs_max ? all[2 * q] : rep->hec_cs_max;
            rep->hec_nc_min = all[2 * q + 1] < rep->hec_nc_min ? all[2 * q + 1] : rep->hec_nc_min;
            rep->hec_nc_max = all[2 * q + 1] > rep->hec_nc_max ? all[2 * q + 1] : rep->hec_nc_max;
        }
    }
    gnn_free(all);
    return st;
}


/* The test accuracy of always predicting the most common train label, over all ranks (the
 * label counts of the first 256 classes, summed). Collective. */
static gnn_status majority_rate(ptrainer *T, double *rate)
{
    const gnn_part_input *in = T->in;
    int64_t cnt[2 * 256 + 2] = { 0 };
    const int64_t K = T->classes < 256 ? T->classes : 256;
    for (int64_t v = 0; v < T->n_solid; v++) {
        const int32_t y = in->labels[v];
        if (y >= 0 && y < K && in->split[v] == GNN_SPLIT_TRAIN)
            cnt[y]++;
        if (y >= 0 && y < K && in->split[v] == GNN_SPLIT_TEST)
            cnt[256 + y]++;
    }
    double d[512];
    for (int i = 0; i < 512; i++)
        d[i] = (double)cnt[i];
    gnn_status st = T->P > 1 ? gnn_comm_allreduce(T->comm, d, d, 512, GNN_DT_F64) : GNN_OK;
    if (st)
        return gnn_err_set(T->err, st, "summing the label counts: %s", gnn_comm_errmsg(T->comm));
    int major = 0;
    double tot = 0;
    for (int y = 0; y < K; y++) {
        if (d[y] > d[major])
            major = y;
        tot += d[256 + y];
    }
    *rate = tot > 0 ? d[256 + major] / tot : 0.0;
    return GNN_OK;
}

/* ---- the epoch loop's callbacks (core/train/epoch.h) ---------------------------------------------- */

/* The epoch's counters start from here (epoch_end takes the differences). */
static gnn_status epoch_begin(void *self, int ep, gnn_err *err)
{
    ptrainer *T = self;
    const int L = T->m.L;
    (void)err;
    T->epoch = ep;
    for (int l = 0; l < L; l++) {
        T->epoch0[l] = T->lookups[l];
        T->epoch0[L + l] = T->hits[l];
    }
    T->epoch0[2 * L] = T->push_bytes;
    T->epoch0[2 * L + 1] = T->pull_bytes;
    return GNN_OK;
}

/* Step k: this rank's slice of its epoch order, and the global batch's size (every rank's
 * slice at this step; every seed is labelled), then Algorithm 2's step. */
static gnn_status epoch_step(void *self, const int64_t *order, int64_t k, uint32_t step, gnn_epoch_stats *E,
                             double *loss, gnn_err *err)
{
    ptrainer *T = self;
    const int64_t batch = T->cfg.batch;
    (void)err; /* T->err */
    int64_t j = k; /* the mini-batch run at step k: k, or the reorder's pick (the same on every rank) */
    gnn_status st = T->pc.reorder_window >= 0 ? gnn_ptrain_reorder(T, order, k, step, &j, E->phase_s) : GNN_OK;
    if (st)
        return st;
    int64_t b0, nb;
    gnn_ptrain_batch_slice(T->n_train, j, T->steps, batch, T->P, &b0, &nb);
    double denom = 0.0;
    for (int q = 0; q < T->P; q++) {
        int64_t q0, qn;
        gnn_ptrain_batch_slice(T->n_train_all[q], j, T->steps, batch, T->P, &q0, &qn);
        denom += (double)qn;
    }
    /* batch j keeps its original step's keys (sampling, dropout); Adam counts the executed step */
    return gnn_ptrain_step(T, order + (nb ? b0 : 0), nb, denom, k, step, step - (uint32_t)k + (uint32_t)j, loss, E);
}

static gnn_status epoch_evaluate(void *self, double acc[4], double *val_loss, gnn_err *err)
{
    (void)err; /* T->err */
    return gnn_ptrain_evaluate(self, acc, val_loss);
}

/* The epoch's halo lookups and hits per layer and its push and pull bytes, summed over ranks. */
static gnn_status epoch_end(void *self, gnn_epoch_stats *E, gnn_err *err)
{
    ptrainer *T = self;
    const int L = T->m.L;
    int64_t d[2 * GNN_MAX_LAYERS + 2];
    for (int l = 0; l < L; l++) {
        d[l] = T->lookups[l] - T->epoch0[l];
        d[L + l] = T->hits[l] - T->epoch0[L + l];
    }
    d[2 * L] = T->push_bytes - T->epoch0[2 * L];
    d[2 * L + 1] = T->pull_bytes - T->epoch0[2 * L + 1];
    gnn_status st = sum_counters(T, d, 2 * L + 2);
    if (st)
        return gnn_err_set(err, st, "summing the epoch's counters: %s", gnn_comm_errmsg(T->comm));
    for (int l = 0; l < L; l++) {
        E->hec_lookups[l] = d[l];
        E->hec_hits[l] = d[L + l];
    }
    E->push_bytes = d[2 * L];
    E->pull_bytes = d[2 * L + 1];
    return GNN_OK;
}

/* ---- checkpoints (docs/checkpoint.md) ---------------------------------------------------------
 * At an epoch's end this rank's state that a later step reads is: the model and Adam's moments
 * (the same on every rank), the HEC of every layer (tags, ages, embeddings, write pointer,
 * counters), Match's previous batch, and the sparse embeddings' rows and optimizer state in the
 * feature store. No push is in flight: a step k posts only while k < M - d and waits at k + d,
 * so the last d steps of an epoch receive what is left (checked). The pipeline's batches and the
 * reorder's windows are pure functions of (seed, epoch, step) and start afresh at an epoch. The
 * run's counters are saved too, so the resumed report's totals are the whole run's. */
enum { PART_COUNTERS = 4 * GNN_MAX_LAYERS + 6 };

static gnn_status part_save(void *self, gnn_ckpt *w, gnn_err *err)
{
    ptrainer *T = self;
    const int L = T->m.L;
    for (int i = 0; i < T->pc.hec_delay && i < MAX_DELAY; i++)
        for (int l = 0; l < L; l++)
            if (T->inflight[i].req[l])
                return gnn_err_set(err, GNN_ERR_INTERNAL, "checkpoint: a push of layer %d is in flight at the end of "
                                                          "an epoch", l);
    gnn_ckpt_put_model(w, &T->m);
    int64_t c[PART_COUNTERS];
    int n = 0;
    for (int l = 0; l < GNN_MAX_LAYERS; l++)
        c[n++] = T->lookups[l], c[n++] = T->hits[l], c[n++] = T->pushed[l], c[n++] = T->received[l];
    c[n++] = T->push_bytes, c[n++] = T->pull_bytes, c[n++] = T->dropped_edges, c[n++] = T->eval_bytes;
    c[n++] = T->match_rows, c[n++] = T->match_loaded;
    gnn_ckpt_put(w, GNN_CKPT_SEC_PART, c, sizeof c);
    gnn_ckpt_put(w, GNN_CKPT_SEC_PART + 1, &T->dstats, sizeof T->dstats);
    gnn_ckpt_put2(w, GNN_CKPT_SEC_PART + 2, &T->kv.total, sizeof T->kv.total, &T->kv.push_total,
                  sizeof T->kv.push_total);
    if (hec_mode(T))
        for (int l = 0; l < L; l++) {
            const gnn_hec *h = &T->hec[l];
            const int64_t head[2] = { h->cs, h->wp };
            gnn_ckpt_put2(w, GNN_CKPT_SEC_HEC + 4 * (uint32_t)l, head, sizeof head, &h->cnt, sizeof h->cnt);
            gnn_ckpt_put(w, GNN_CKPT_SEC_HEC + 4 * (uint32_t)l + 1, h->tag, (size_t)h->cs * sizeof(int64_t));
            gnn_ckpt_put(w, GNN_CKPT_SEC_HEC + 4 * (uint32_t)l + 2, h->age, (size_t)h->cs * sizeof(int32_t));
            gnn_ckpt_put(w, GNN_CKPT_SEC_HEC + 4 * (uint32_t)l + 3, h->emb, (size_t)(h->cs * h->dim) * sizeof(float));
        }
    if (T->pc.match)
        gnn_ckpt_put2(w, GNN_CKPT_SEC_MATCH, T->mprev_ids, (size_t)T->mprev_n * sizeof(int64_t), T->mprev_x,
                      (size_t)(T->mprev_n * in_width(T, 0)) * sizeof(float));
    if (embedding(T)) {
        const gnn_kvstore *kv = &T->kv;
        const size_t cells = (size_t)(kv->n_local * kv->dim);
        const int64_t kind = kv->opt_kind;
        gnn_ckpt_put2(w, GNN_CKPT_SEC_EMBED, &kind, sizeof kind, kv->feat, cells * sizeof(float));
        if (kv->opt_kind) {
            gnn_ckpt_put(w, GNN_CKPT_SEC_EMBED + 1, kv->opt_s1, cells * sizeof(float));
            if (kv->opt_s2)
                gnn_ckpt_put(w, GNN_CKPT_SEC_EMBED + 2, kv->opt_s2, cells * sizeof(float));
            if (kv->opt_steps)
                gnn_ckpt_put(w, GNN_CKPT_SEC_EMBED + 3, kv->opt_steps, (size_t)kv->n_local * sizeof(int64_t));
        }
    }
    return GNN_OK;
}

static gnn_status load_hec(ptrainer *T, const gnn_ckpt *r, int l, gnn_err *err)
{
    gnn_hec *h = &T->hec[l];
    const uint32_t id = GNN_CKPT_SEC_HEC + 4 * (uint32_t)l;
    unsigned char head[2 * sizeof(int64_t) + sizeof(gnn_hec_counters)];
    gnn_status st = gnn_ckpt_read(r, id, head, sizeof head, err);
    if (st)
        return st;
    int64_t hv[2];
    gnn_hec_counters cnt;
    memcpy(hv, head, sizeof hv);
    memcpy(&cnt, head + sizeof hv, sizeof cnt);
    if (hv[0] != h->cs)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: layer %d's cache has %lld lines; this run's has %lld", r->path, l,
                           (long long)hv[0], (long long)h->cs);
    int64_t *tag = gnn_malloc((size_t)h->cs * sizeof(int64_t));
    int32_t *age = gnn_malloc((size_t)h->cs * sizeof(int32_t));
    float *emb = falloc(h->cs * h->dim);
    st = GNN_ERR_NOMEM;
    if (tag && age && emb && !(st = gnn_ckpt_read(r, id + 1, tag, (size_t)h->cs * sizeof(int64_t), err)) &&
        !(st = gnn_ckpt_read(r, id + 2, age, (size_t)h->cs * sizeof(int32_t), err)) &&
        !(st = gnn_ckpt_read(r, id + 3, emb, (size_t)(h->cs * h->dim) * sizeof(float), err)))
        st = gnn_hec_restore(h, tag, age, emb, hv[1], &cnt, err);
    gnn_free(tag);
    gnn_free(age);
    gnn_free(emb);
    return st;
}

static gnn_status load_embed(ptrainer *T, const gnn_ckpt *r, gnn_err *err)
{
    gnn_kvstore *kv = &T->kv;
    const size_t cells = (size_t)(kv->n_local * kv->dim);
    const void *p;
    size_t nb;
    gnn_status st = gnn_ckpt_get(r, GNN_CKPT_SEC_EMBED, &p, &nb, err);
    if (st)
        return st;
    int64_t kind;
    if (nb != sizeof kind + cells * sizeof(float))
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: the embedding section has %zu bytes, not %zu", r->path, nb,
                           sizeof kind + cells * sizeof(float));
    memcpy(&kind, p, sizeof kind);
    if (kind != 0 && kind != GNN_SPARSE_ADAGRAD && kind != GNN_SPARSE_ADAM)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: embedding optimizer %lld", r->path, (long long)kind);
    memcpy(kv->feat, (const unsigned char *)p + sizeof kind, cells * sizeof(float));
    if (!kind)
        return GNN_OK;
    if (!kv->opt_kind) { /* as the first push makes it (core/dist/kvstore_push.c) */
        kv->opt_s1 = gnn_calloc(cells + 1, sizeof(float));
        if (kind == GNN_SPARSE_ADAM) {
            kv->opt_s2 = gnn_calloc(cells + 1, sizeof(float));
            kv->opt_steps = gnn_calloc((size_t)kv->n_local + 1, sizeof(int64_t));
        }
        if (!kv->opt_s1 || (kind == GNN_SPARSE_ADAM && (!kv->opt_s2 || !kv->opt_steps)))
            return GNN_ERR_NOMEM;
        kv->opt_kind = (int)kind;
    }
    if (kv->opt_kind != kind)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: embedding optimizer %lld, the store's is %d", r->path,
                           (long long)kind, kv->opt_kind);
    if ((st = gnn_ckpt_read(r, GNN_CKPT_SEC_EMBED + 1, kv->opt_s1, cells * sizeof(float), err)))
        return st;
    if (kind == GNN_SPARSE_ADAM &&
        ((st = gnn_ckpt_read(r, GNN_CKPT_SEC_EMBED + 2, kv->opt_s2, cells * sizeof(float), err)) ||
         (st = gnn_ckpt_read(r, GNN_CKPT_SEC_EMBED + 3, kv->opt_steps, (size_t)kv->n_local * sizeof(int64_t), err))))
        return st;
    return GNN_OK;
}

static gnn_status part_load(void *self, const gnn_ckpt *r, gnn_err *err)
{
    ptrainer *T = self;
    const int L = T->m.L;
    gnn_status st = gnn_ckpt_get_model(r, &T->m, err);
    int64_t c[PART_COUNTERS];
    if (st || (st = gnn_ckpt_read(r, GNN_CKPT_SEC_PART, c, sizeof c, err)) ||
        (st = gnn_ckpt_read(r, GNN_CKPT_SEC_PART + 1, &T->dstats, sizeof T->dstats, err)))
        return st;
    int n = 0;
    for (int l = 0; l < GNN_MAX_LAYERS; l++)
        T->lookups[l] = c[n++], T->hits[l] = c[n++], T->pushed[l] = c[n++], T->received[l] = c[n++];
    T->push_bytes = c[n++], T->pull_bytes = c[n++], T->dropped_edges = c[n++], T->eval_bytes = c[n++];
    T->match_rows = c[n++], T->match_loaded = c[n++];
    const void *p;
    size_t nb;
    if ((st = gnn_ckpt_get(r, GNN_CKPT_SEC_PART + 2, &p, &nb, err)))
        return st;
    if (nb != sizeof T->kv.total + sizeof T->kv.push_total)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: the store's counters have %zu bytes", r->path, nb);
    memcpy(&T->kv.total, p, sizeof T->kv.total);
    memcpy(&T->kv.push_total, (const unsigned char *)p + sizeof T->kv.total, sizeof T->kv.push_total);
    for (int l = 0; l < L && hec_mode(T); l++)
        if ((st = load_hec(T, r, l, err)))
            return st;
    if (T->pc.match) {
        if ((st = gnn_ckpt_get(r, GNN_CKPT_SEC_MATCH, &p, &nb, err)))
            return st;
        const size_t row = sizeof(int64_t) + (size_t)in_width(T, 0) * sizeof(float);
        if (nb % row)
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: Match's previous batch has %zu bytes, not a multiple of %zu",
                               r->path, nb, row);
        const int64_t m = (int64_t)(nb / row);
        gnn_free(T->mprev_ids);
        gnn_free(T->mprev_x);
        T->mprev_ids = gnn_malloc_array((size_t)m + 1, sizeof(int64_t));
        T->mprev_x = falloc(m * in_width(T, 0));
        T->mprev_n = 0;
        if (!T->mprev_ids || !T->mprev_x)
            return GNN_ERR_NOMEM;
        memcpy(T->mprev_ids, p, (size_t)m * sizeof(int64_t));
        memcpy(T->mprev_x, (const unsigned char *)p + (size_t)m * sizeof(int64_t),
               (size_t)(m * in_width(T, 0)) * sizeof(float));
        T->mprev_n = m;
    }
    if (embedding(T) && (st = load_embed(T, r, err)))
        return st;
    return GNN_OK;
}

/* A CRC of what this rank's part is: its sizes, global ids and local graph. */
/* The checkpoint's data CRC (docs/checkpoint.md): the part (sizes, global ids, local graph) and
 * what this rank learns from: its solid vertices' split codes and labels. A set made again with
 * another split, or in memory under another --split, is other training data. */
static uint32_t part_crc(const gnn_part_input *in)
{
    const gnn_part_local *L = in->part;
    const int64_t head[4] = { L->n_solid, L->n_halo, L->graph.n, L->graph.nnz };
    uint32_t c = gnn_crc32c(0, head, sizeof head);
    c = gnn_crc32c(c, L->vid_o, (size_t)(L->n_solid + L->n_halo) * sizeof(int64_t));
    c = gnn_crc32c(c, L->graph.indptr, (size_t)(L->graph.n + 1) * sizeof(*L->graph.indptr));
    c = gnn_crc32c(c, L->graph.indices, (size_t)L->graph.nnz * sizeof(*L->graph.indices));
    return gnn_ckpt_data_crc(c, in->split, in->labels, L->n_solid);
}

static const epoch_ops part_epoch_ops = { .begin = epoch_begin, .step = epoch_step, .evaluate = epoch_evaluate,
                                          .end = epoch_end, .save = part_save, .load = part_load };

/* The run's figures, summed over the ranks, and the range of the cache sizes. Collective. */
static gnn_status fill_report(ptrainer *T, gnn_part_report *rep)
{
    const int L = T->m.L;
    int64_t v[8 * GNN_MAX_LAYERS + 10];
    int n = 0;
    for (int l = 0; l < L; l++) {
        v[n++] = T->lookups[l];
        v[n++] = T->hits[l];
        v[n++] = T->pushed[l];
        v[n++] = T->received[l];
        const int ds = l < GNN_DSAMPLE_MAX_LAYERS;
        v[n++] = ds ? T->dstats.local[l] : 0;
        v[n++] = ds ? T->dstats.remote[l] : 0;
        v[n++] = ds ? T->dstats.request_bytes[l] : 0;
        v[n++] = ds ? T->dstats.reply_bytes[l] : 0;
    }
    v[n++] = T->kv.push_total.bytes_sent;
    v[n++] = T->kv.push_total.rows_updated;
    v[n++] = T->push_bytes;
    v[n++] = T->pull_bytes;
    v[n++] = T->dropped_edges;
    v[n++] = T->eval_bytes;
    v[n++] = T->n_solid;
    v[n++] = T->n_halo;
    v[n++] = T->n_train;
    gnn_status st = sum_counters(T, v, n);
    if (st)
        return gnn_err_set(T->err, st, "summing the run's counters: %s", gnn_comm_errmsg(T->comm));
    rep->ranks = T->P;
    rep->hec_cs = T->cs;
    rep->hec_nc = T->nc;
    if ((st = size_range(T, rep)))
        return gnn_err_set(T->err, st, "gathering the cache sizes: %s", gnn_comm_errmsg(T->comm));
    n = 0;
    for (int l = 0; l < L; l++) {
        rep->lookups[l] = v[n++];
        rep->hits[l] = v[n++];
        rep->pushed_rows[l] = v[n++];
        rep->received_rows[l] = v[n++];
        rep->sample_local[l] = v[n++];
        rep->sample_remote[l] = v[n++];
        rep->sample_request_bytes[l] = v[n++];
        rep->sample_reply_bytes[l] = v[n++];
    }
    rep->embed_push_bytes = v[n++];
    rep->embed_rows_updated = v[n++];
    double pt[2];
    gnn_ptrain_pipe_times(T, &pt[0], &pt[1]);
    if (T->P > 1 && (st = gnn_comm_allreduce(T->comm, pt, pt, 2, GNN_DT_F64)))
        return gnn_err_set(T->err, st, "summing the pipeline's times: %s", gnn_comm_errmsg(T->comm));
    rep->pipeline_worker_s = pt[0];
    rep->pipeline_full_s = pt[1];
    rep->push_bytes = v[n++];
    rep->pull_bytes = v[n++];
    rep->halo_edges_dropped = v[n++];
    rep->eval_bytes = v[n++];
    rep->solid_total = v[n++];
    rep->halo_total = v[n++];
    rep->train_total = v[n++];
    int64_t mr[2] = { T->match_rows, T->match_loaded }; /* Match (train_part_step.c, fetch_match) */
    if ((st = sum_counters(T, mr, 2)))
        return gnn_err_set(T->err, st, "summing the match counters: %s", gnn_comm_errmsg(T->comm));
    rep->match_rows = mr[0];
    rep->match_rows_loaded = mr[1];
    return GNN_OK;
}

gnn_status gnn_train_part(gnn_comm *comm, const gnn_part_input *in, const gnn_train_config *cfg,
                          const gnn_part_train_config *pc, gnn_epoch_cb cb, void *ctx, gnn_train_result *res,
                          gnn_part_report *rep, gnn_err *err)
{
    memset(res, 0, sizeof *res);
    if (rep)
        memset(rep, 0, sizeof *rep);
    if (!comm || !cfg || !pc)
        return gnn_err_set(err, GNN_ERR_INVAL, "communicator, training and partition configuration are required");
    ptrainer *T = calloc(1, sizeof *T);
    if (!T)
        return gnn_err_set(err, GNN_ERR_NOMEM, "out of memory");
    gnn_ckpt resume;
    memset(&resume, 0, sizeof resume);
    gnn_ckpt_fingerprint fp;
    T->comm = comm;
    T->P = gnn_comm_size(comm);
    T->rank = gnn_comm_rank(comm);
    T->cfg = *cfg;
    T->cfg.comm = NULL;
    gnn_train_resolve(&T->cfg);
    T->impl = gnn_config_impl(&T->cfg);
    T->pc = *pc;
    T->in = in;
    T->err = err;
    gnn_status st = !in || !in->part ? gnn_err_set(err, GNN_ERR_INVAL, "no part given")
                                     : check_config(in, &T->cfg, pc, T->P, T->rank, err);
    if (st)
        goto done;
    T->L = in->part;
    memset(&fp, 0, sizeof fp);
    snprintf(fp.dataset, sizeof fp.dataset, "%.63s", in->name ? in->name : "");
    fp.n = in->n_global;
    fp.nnz = in->part->graph.nnz;
    fp.ranks = T->P;
    fp.rank = T->rank;
    fp.config_crc = gnn_ckpt_config_crc(&T->cfg, pc);
    fp.part_crc = part_crc(in);
    /* resumed: open before set-up, whose pipeline starts at the first epoch run */
    if (T->cfg.resume_dir) {
        if ((st = gnn_epoch_resume_open(comm, T->cfg.resume_dir, &fp, &resume, err)))
            goto done;
        T->start_epoch = resume.epochs_done;
    }
    /* @alg{DistGNN-MB 2, line 2}: Initialize (Algorithm 1), and the rest of set-up */
    if ((st = gnn_ptrain_setup(T)) || (st = majority_rate(T, &res->majority_rate)))
        goto done;
    /* @alg{DistGNN-MB 2, lines 3-5}: each rank shuffles its own train vertices (id = rank) */
    const epoch_plan plan = { .cfg = &T->cfg, .steps = T->steps, .train = T->train, .n_train = T->n_train,
                              .shuffle_id = (uint64_t)T->rank, .comm = comm, .cb = cb, .cb_ctx = ctx, .fp = &fp,
                              .resume = T->cfg.resume_dir ? &resume : NULL };
    if ((st = gnn_train_epochs(&plan, &part_epoch_ops, T, res, err)))
        goto done;
    res->weights_crc = gnn_model_crc(&T->m, 0);
    res->state_crc = gnn_model_crc(&T->m, 1);
    if (rep)
        st = fill_report(T, rep);
done:
    gnn_ckpt_free(&resume);
    gnn_ptrain_teardown(T);
    free(T);
    if (st)
        gnn_train_result_free(res);
    return st;
}
