/* core/train_part.c -- distributed mini-batch training on a partition: DistGNN-MB sections
 * 3.1-3.2 and Algorithm 2 (the Historical Embedding Cache with Asynchronous Embedding Push),
 * plus the two baselines, drop and fetch. The contract is include/gnnref/train_part.h; the
 * semantics, with a worked example, are docs/hec.md.
 *
 * One step k (k counts the epoch's mini-batches, 0 <= k < M, as Algorithm 2 does; the global
 * step t keys every random choice):
 *   hec   for each layer l: if k >= d, wait for the push posted d steps ago (line 8); age the
 *         cache; store what arrived (line 9);
 *         sample L blocks on the local graph (halo rows are empty: halos are never expanded);
 *         forward, layer by layer: the halo rows of layer l's input are searched in the
 *         layer-l cache (lines 10-11); hits are loaded (line 12); a miss leaves the block of
 *         layer l with its edges; then, if k < M - d, the solid rows of layer l's input that
 *         are halos on a remote rank r are chosen (at most nc per r, by degree; aep.h) and
 *         packed with their embedding (lines 14-23), and posted with one ialltoallv per mlayer
 *         after the forward pass (line 24);
 *         backward: the gradient of every halo row of every layer's input is zeroed, because
 *         that input came from the cache (or nowhere), not from the rows below it;
 *   drop  as hec with every halo a miss and no push;
 *   fetch sample on the whole topology, pull the input features of the sampled vertices;
 * then the gradients are allreduced and every rank applies the same Adam step.
 *
 * M = ceil(max_r n_train_r / batch) steps per epoch on every rank; with more than one rank,
 * each rank cuts its epoch order into M near-equal batches (batch_slice). A rank with an empty
 * batch (fewer train vertices than steps) still takes part in every collective of a step (the
 * waits, the posts, the pulls, the allreduce). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/model.h"
#include "gnnref/aep.h"
#include "gnnref/crc32c.h"
#include "gnnref/halo.h"
#include "gnnref/idmap.h"
#include "gnnref/kvstore.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "gnnref/train_part.h"

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
}

#define MAX_DELAY GNN_HEC_MAX_DELAY

/* A push in flight: one ialltoallv per layer, posted at step `posted`. */
typedef struct push {
    gnn_comm_req *req[GNN_MAX_LAYERS];
    float *buf[GNN_MAX_LAYERS];
} push;

typedef struct ptrainer {
    gnn_comm *comm;
    int P, rank;
    gnn_train_config cfg;         /* resolved copy */
    gnn_part_train_config pc;
    const gnn_part_input *in;
    const gnn_part_local *L;
    int64_t n_solid, n_halo, n_local, f, classes;
    model m;
    gnn_csr loops;                /* gat: the local graph with self-loops on solid rows */
    const gnn_csr *lgraph;        /* the local graph (with loops for gat) */
    gnn_csr gloops;               /* fetch, gat: the global graph with self-loops */
    const gnn_csr *ggraph;        /* fetch: the global graph sampled on */
    float *normed;                /* row-normalized solid features, or NULL */
    const float *fsolid;          /* (n_solid, f) the features used */
    float *halo_feat;             /* (n_halo, f) evaluation: halo features from their owners */
    gnn_sampler *sampler;         /* the context's sampler on the graph sampled on */
    const gnn_hec_ops *hec_ops;
    const gnn_aep_ops *aep_ops;
    int64_t *train;               /* local ids of labelled train vertices, increasing */
    int64_t n_train;
    int64_t *n_train_all;         /* (P) */
    /* db_halo, and its inverse: for solid v, the ranks where it is a halo */
    gnn_db_halo db;
    int64_t *hr_off, *hr;         /* (n_solid + 1), (db.off[P]) */
    /* the evaluation's halo exchange: recv row of halo i is xr_pos[i] */
    int64_t *xs_cnt, *xs_dsp, *xr_cnt, *xr_dsp, *xr_pos;
    /* hec */
    gnn_hec hec[GNN_MAX_LAYERS];
    int64_t cs, nc;
    push inflight[MAX_DELAY];     /* ring by step mod d */
    float *pack[GNN_MAX_LAYERS];  /* this step's packed pushes (moved into inflight) */
    int64_t pack_cnt[GNN_MAX_LAYERS][2 * 256]; /* per layer: counts, displacements (elements) */
    /* fetch */
    gnn_kvstore kv;
    int kv_made;
    /* gradients */
    float *gbuf;
    int64_t n_params;
    /* counters of this rank (run totals; epoch figures are differences) */
    int64_t lookups[GNN_MAX_LAYERS], hits[GNN_MAX_LAYERS], pushed[GNN_MAX_LAYERS], received[GNN_MAX_LAYERS];
    int64_t push_bytes, pull_bytes, dropped_edges, eval_bytes;
    int64_t step_pushed; /* this step, all layers (trace) */
    int64_t step_received[GNN_MAX_LAYERS];
    int epoch;
    gnn_err *err;
} ptrainer;

#define MAX_RANKS 256 /* pack_cnt's size; checked at init */

static int hec_mode(const ptrainer *T) { return T->pc.remote == GNN_REMOTE_HEC; }
static int local_mode(const ptrainer *T) { return T->pc.remote != GNN_REMOTE_FETCH; }

/* The embedding width of layer l's input. */
static int64_t in_width(const ptrainer *T, int l) { return T->m.layer[l].in; }

/* ---- set-up -------------------------------------------------------------------------------- */

/* Rows of the halo exchange: rank r receives from owner q the rows of its halos owned by q in
 * increasing global id, which is the order of q's db_halo row for r (halo.h). */
static gnn_status exchange_plan(ptrainer *T)
{
    const int P = T->P;
    T->xs_cnt = gnn_calloc((size_t)P * 4, sizeof(int64_t));
    T->xr_pos = gnn_malloc((size_t)(T->n_halo + 1) * sizeof(int64_t));
    if (!T->xs_cnt || !T->xr_pos)
        return GNN_ERR_NOMEM;
    T->xs_dsp = T->xs_cnt + P;
    T->xr_cnt = T->xs_cnt + 2 * P;
    T->xr_dsp = T->xs_cnt + 3 * P;
    for (int r = 0; r < P; r++) {
        T->xs_cnt[r] = T->db.off[r + 1] - T->db.off[r];
        T->xs_dsp[r] = T->db.off[r];
    }
    for (int64_t i = 0; i < T->n_halo; i++)
        T->xr_cnt[T->L->halo_owner[i]]++;
    int64_t o = 0, *seen = gnn_calloc((size_t)P, sizeof(int64_t));
    if (!seen)
        return GNN_ERR_NOMEM;
    for (int q = 0; q < P; q++) {
        T->xr_dsp[q] = o;
        o += T->xr_cnt[q];
    }
    for (int64_t i = 0; i < T->n_halo; i++) {
        const int q = T->L->halo_owner[i];
        T->xr_pos[i] = T->xr_dsp[q] + seen[q]++;
    }
    gnn_free(seen);
    return GNN_OK;
}

/* Send the rows db.solid of src (n_solid, w) to the ranks that hold them as halos; write
 * the received rows into halo_out (n_halo, w) in halo order. Collective. */
static gnn_status halo_exchange(ptrainer *T, const float *src, int64_t w, float *halo_out)
{
    const int P = T->P;
    const int64_t ns = T->db.off[P];
    float *sbuf = falloc(ns * w), *rbuf = falloc(T->n_halo * w);
    int64_t *c = gnn_malloc((size_t)P * 4 * sizeof(int64_t));
    gnn_status st = GNN_ERR_NOMEM;
    if (!sbuf || !rbuf || !c)
        goto done;
    for (int64_t j = 0; j < ns; j++)
        memcpy(sbuf + j * w, src + T->db.solid[j] * w, (size_t)w * sizeof(float));
    for (int r = 0; r < P; r++) {
        c[r] = T->xs_cnt[r] * w;
        c[P + r] = T->xs_dsp[r] * w;
        c[2 * P + r] = T->xr_cnt[r] * w;
        c[3 * P + r] = T->xr_dsp[r] * w;
        if (r != T->rank)
            T->eval_bytes += c[r] * (int64_t)sizeof(float);
    }
    if ((st = gnn_comm_alltoallv(T->comm, sbuf, c, c + P, rbuf, c + 2 * P, c + 3 * P, GNN_DT_F32)))
        goto done;
    for (int64_t i = 0; i < T->n_halo; i++)
        memcpy(halo_out + i * w, rbuf + T->xr_pos[i] * w, (size_t)w * sizeof(float));
done:
    gnn_free(sbuf);
    gnn_free(rbuf);
    gnn_free(c);
    return st;
}

static gnn_status check_config(const gnn_part_input *in, const gnn_train_config *c, const gnn_part_train_config *pc,
                               int P, int rank, gnn_err *err)
{
    if (c->model != GNN_MODEL_SAGE && c->model != GNN_MODEL_GAT && c->model != GNN_MODEL_GIN)
        return gnn_err_set(err, GNN_ERR_INVAL,
                           "training on partitions supports sage, gat and gin, not %s (its normalization needs the "
                           "global degrees of halo vertices, which a part does not store)",
                           gnn_model_name(c->model));
    if (c->mode != GNN_MODE_MINIBATCH)
        return gnn_err_set(err, GNN_ERR_INVAL, "training on partitions is mini-batch only");
    if (c->layers < 1 || c->layers > GNN_MAX_LAYERS || c->hidden < 1 || c->batch < 1 || c->epochs < 1)
        return gnn_err_set(err, GNN_ERR_INVAL, "layers 1..%d, hidden, batch and epochs >= 1", GNN_MAX_LAYERS);
    for (int l = 0; l < c->layers; l++)
        if (c->fanouts[l] == 0 || c->fanouts[l] < -1)
            return gnn_err_set(err, GNN_ERR_INVAL, "fanout %lld for layer %d: expected >= 1 or -1 (all)",
                               (long long)c->fanouts[l], l);
    if (!(c->dropout >= 0.0f && c->dropout < 1.0f) || !(c->lr > 0.0f) || !(c->weight_decay >= 0.0f) ||
        !(c->attn_dropout < 1.0f) || c->patience < 0)
        return gnn_err_set(err, GNN_ERR_INVAL, "dropout in [0, 1), lr > 0, weight decay >= 0, patience >= 0");
    if (c->model == GNN_MODEL_GAT && (c->heads < 1 || c->heads > GNN_MAX_HEADS || c->out_heads < 1 ||
                                      c->out_heads > GNN_MAX_HEADS || !(c->gat_slope >= 0.0f && c->gat_slope < 1.0f)))
        return gnn_err_set(err, GNN_ERR_INVAL, "gat: heads 1..%d, slope in [0, 1)", GNN_MAX_HEADS);
    if ((unsigned)pc->remote > GNN_REMOTE_FETCH)
        return gnn_err_set(err, GNN_ERR_INVAL, "remote mode %d: expected drop, hec or fetch", (int)pc->remote);
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

/* This rank's own inputs (a failure here fails every rank: see setup). */
static gnn_status check_local(const gnn_part_input *in, const gnn_part_train_config *pc, int rank, gnn_err *err)
{
    if (in->part->rank != rank)
        return gnn_err_set(err, GNN_ERR_INVAL, "part %lld given to rank %d", (long long)in->part->rank, rank);
    if (in->num_features < 1 || in->num_classes < 1 || (in->part->n_solid > 0 && (!in->feat || !in->labels || !in->split)))
        return gnn_err_set(err, GNN_ERR_INVAL, "rank %d: features, labels and split are required", rank);
    if (pc->remote == GNN_REMOTE_FETCH && (!in->global || !in->owner || in->global->n != in->n_global))
        return gnn_err_set(err, GNN_ERR_INVAL, "fetch needs the whole topology (%lld vertices) and the part vector",
                           (long long)in->n_global);
    if (in->n_global > INT32_MAX)
        return gnn_err_set(err, GNN_ERR_RANGE, "%lld vertices exceed the int32 block-local id range",
                           (long long)in->n_global);
    for (int64_t v = 0; v < in->part->n_solid; v++)
        if (in->labels[v] >= in->num_classes)
            return gnn_err_set(err, GNN_ERR_RANGE, "rank %d: label %d of local vertex %lld is not below %lld classes",
                               rank, in->labels[v], (long long)v, (long long)in->num_classes);
    return GNN_OK;
}

/* Steps per epoch, the same on every rank: M = ceil(max_r n_train_r / batch) (>= 1 once setup
 * has checked that some rank has a train vertex). */
static int64_t steps_per_epoch(const ptrainer *T)
{
    int64_t max_train = 0;
    for (int q = 0; q < T->P; q++)
        max_train = T->n_train_all[q] > max_train ? T->n_train_all[q] : max_train;
    return (max_train + T->cfg.batch - 1) / T->cfg.batch;
}

static gnn_status setup(ptrainer *T)
{
    const gnn_part_input *in = T->in;
    const gnn_train_config *c = &T->cfg;
    const gnn_part_local *L = T->L;
    gnn_err *err = T->err;
    gnn_status st;
    T->n_solid = L->n_solid;
    T->n_halo = L->n_halo;
    T->n_local = L->n_solid + L->n_halo;
    T->f = in->num_features;
    T->classes = in->num_classes;
    T->hec_ops = gnn_config_impl(c)->hec;
    T->aep_ops = gnn_config_impl(c)->aep;
    const int gat = c->model == GNN_MODEL_GAT;

    /* every rank's verdict and train count: a rank with bad input fails every rank */
    const gnn_status mine = check_local(in, &T->pc, T->rank, err);
    int64_t me[2] = { mine, 0 };
    T->train = gnn_malloc((size_t)(T->n_solid + 1) * sizeof(int64_t));
    T->n_train_all = gnn_malloc((size_t)T->P * 2 * sizeof(int64_t) + 1);
    int64_t *cnt = gnn_malloc((size_t)T->P * 2 * sizeof(int64_t) + 1);
    if (!T->train || !T->n_train_all || !cnt) {
        gnn_free(cnt);
        return GNN_ERR_NOMEM;
    }
    for (int64_t v = 0; v < T->n_solid && !mine; v++)
        if (in->split[v] == GNN_SPLIT_TRAIN && in->labels[v] >= 0)
            T->train[me[1]++] = v;
    T->n_train = me[1];
    for (int q = 0; q < T->P; q++) {
        cnt[q] = 2;
        cnt[T->P + q] = 2 * q;
    }
    st = gnn_comm_allgatherv(T->comm, me, 2, T->n_train_all, cnt, cnt + T->P, GNN_DT_I64);
    gnn_free(cnt);
    if (st)
        return gnn_err_set(err, st, "gathering the train counts: %s", gnn_comm_errmsg(T->comm));
    if (mine)
        return mine;
    for (int q = 0; q < T->P; q++)
        if (T->n_train_all[2 * q])
            return gnn_err_set(err, GNN_ERR_INVAL, "rank %d's inputs are invalid (its error names them)", q);
    for (int q = 0; q < T->P; q++) /* keep the counts only */
        T->n_train_all[q] = T->n_train_all[2 * q + 1];
    int64_t total = 0;
    for (int q = 0; q < T->P; q++)
        total += T->n_train_all[q];
    if (total == 0)
        return gnn_err_set(err, GNN_ERR_INVAL, "no rank has a labelled training vertex");

    /* db_halo: the push targets (hec) and the evaluation's exchange (every mode) */
    const gnn_db_halo_ops *dbo = gnn_config_impl(c)->db_halo;
    if ((st = dbo->build(T->comm, L, in->n_global, &T->db, err)))
        return st;
    if ((st = exchange_plan(T)))
        return st;
    T->hr_off = gnn_calloc((size_t)T->n_solid + 1, sizeof(int64_t));
    T->hr = gnn_malloc((size_t)(T->db.off[T->P] + 1) * sizeof(int64_t));
    if (!T->hr_off || !T->hr)
        return GNN_ERR_NOMEM;
    for (int64_t j = 0; j < T->db.off[T->P]; j++)
        T->hr_off[T->db.solid[j] + 1]++;
    for (int64_t v = 0; v < T->n_solid; v++)
        T->hr_off[v + 1] += T->hr_off[v];
    {
        int64_t *fill = gnn_malloc((size_t)(T->n_solid + 1) * sizeof(int64_t));
        if (!fill)
            return GNN_ERR_NOMEM;
        memcpy(fill, T->hr_off, (size_t)(T->n_solid + 1) * sizeof(int64_t));
        for (int r = 0; r < T->P; r++) /* rows by rank: each vertex's ranks come out increasing */
            for (int64_t j = T->db.off[r]; j < T->db.off[r + 1]; j++)
                T->hr[fill[T->db.solid[j]]++] = r;
        gnn_free(fill);
    }

    /* features: row-normalized like gnn_train when asked; the halos' for evaluation */
    T->fsolid = in->feat;
    if (c->feat_norm == GNN_FEAT_NORM_ROW) {
        if (!(T->normed = falloc(T->n_solid * T->f)))
            return GNN_ERR_NOMEM;
        for (int64_t v = 0; v < T->n_solid; v++) {
            const float *x = in->feat + v * T->f;
            float *y = T->normed + v * T->f, s = 0.0f;
            for (int64_t j = 0; j < T->f; j++)
                s += fabsf(x[j]);
            for (int64_t j = 0; j < T->f; j++)
                y[j] = s != 0.0f ? x[j] / s : x[j];
        }
        T->fsolid = T->normed;
    }
    if (!(T->halo_feat = falloc(T->n_halo * T->f)))
        return GNN_ERR_NOMEM;
    if ((st = halo_exchange(T, T->fsolid, T->f, T->halo_feat)))
        return gnn_err_set(err, st, "exchanging the halo features: %s", gnn_comm_errmsg(T->comm));

    /* graphs: local (with loops on solid rows for gat); global for fetch */
    T->lgraph = &L->graph;
    if (gat) {
        if ((st = gnn_csr_add_self_loops_rows(&T->loops, &L->graph, T->n_solid)))
            return st;
        T->lgraph = &T->loops;
    }
    if (!local_mode(T)) {
        T->ggraph = in->global;
        if (gat) {
            if ((st = gnn_csr_add_self_loops(&T->gloops, in->global)))
                return gnn_err_set(err, st, "adding self-loops: %s", gnn_status_str(st));
            T->ggraph = &T->gloops;
        }
        if ((st = gnn_kvstore_create(&T->kv, T->comm, in->n_global, in->owner, T->f, T->fsolid, T->n_solid, err)))
            return st;
        T->kv_made = 1;
    }
    if ((st = gnn_sampler_create(&T->sampler, gnn_config_impl(c)->sampler, local_mode(T) ? T->lgraph : T->ggraph,
                                 NULL)))
        return gnn_err_set(err, st, "sampler: %s", gnn_status_str(st));

    if ((st = gnn_model_init(&T->m, c, T->f, T->classes)))
        return st;
    for (int l = 0; l < T->m.L; l++)
        T->n_params += T->m.layer[l].count;
    if (T->P > 1 && !(T->gbuf = falloc(T->n_params)))
        return GNN_ERR_NOMEM;

    /* the caches: cs and nc sized to the graph unless given (docs/hec.md section 4) */
    if (hec_mode(T)) {
        const gnn_part_train_config *pc = &T->pc;
        /* nc: enough that each remote rank's halo lines owned here can all be refreshed
         * within one lifespan (ls + 1 steps), or within one epoch (M steps) when the lifespan
         * is longer: max over r of ceil(|db_halo[r]| / W), W = min(ls + 1, M). Without the
         * cap a long lifespan would give nc = 1 and a cache that never fills.
         * Fewer are sent when fewer of them are in the mini-batch. */
        int64_t nc = pc->hec_nc;
        if (nc <= 0) {
            const int64_t M = steps_per_epoch(T);
            const int64_t W = pc->hec_ls + 1 < M ? pc->hec_ls + 1 : M;
            nc = 1;
            for (int r = 0; r < T->P; r++) {
                const int64_t rows = T->db.off[r + 1] - T->db.off[r];
                const int64_t need = (rows + W - 1) / W;
                if (need > nc)
                    nc = need;
            }
        }
        T->nc = nc;
        int64_t cs = pc->hec_cs;
        if (cs <= 0) {
            const double want = (double)(pc->hec_ls + 1) * (double)(T->P - 1) * (double)T->nc;
            cs = want < (double)T->n_halo ? (int64_t)want : T->n_halo;
            if (cs < 1)
                cs = 1;
        }
        T->cs = cs;
        for (int l = 0; l < T->m.L; l++)
            if ((st = gnn_hec_init(&T->hec[l], T->hec_ops, cs, in_width(T, l), pc->hec_ls, err)))
                return st;
    }
    return GNN_OK;
}

static void teardown(ptrainer *T)
{
    for (int i = 0; i < MAX_DELAY; i++)
        for (int l = 0; l < GNN_MAX_LAYERS; l++) {
            if (T->inflight[i].req[l])
                gnn_comm_req_free(T->comm, T->inflight[i].req[l]);
            gnn_free(T->inflight[i].buf[l]);
        }
    for (int l = 0; l < GNN_MAX_LAYERS; l++) {
        gnn_hec_free(&T->hec[l]);
        gnn_free(T->pack[l]);
    }
    if (T->kv_made)
        gnn_kvstore_free(&T->kv);
    gnn_sampler_destroy(T->sampler);
    gnn_model_free(&T->m);
    gnn_csr_free(&T->loops);
    gnn_csr_free(&T->gloops);
    gnn_free(T->normed);
    gnn_free(T->halo_feat);
    gnn_free(T->train);
    gnn_free(T->n_train_all);
    gnn_db_halo_free(&T->db);
    gnn_free(T->hr_off);
    gnn_free(T->hr);
    gnn_free(T->xs_cnt);
    gnn_free(T->xr_pos);
    gnn_free(T->gbuf);
}

/* ---- the push (hec) ------------------------------------------------------------------------ */

/* A pushed pair travels as 2 + dim floats: the global id's 8 bytes, then the embedding. */
static int64_t pair_width(int64_t dim) { return 2 + dim; }

/* Choose and pack layer l's pushes from x (n_src, dim), the layer's input before dropout:
 * for each remote rank r, the solid sources that are halos on r (candidates in source
 * order), at most nc of them by degree (aep.h). Algorithm 2 lines 15-23. */
static gnn_status pack_layer(ptrainer *T, int l, const gnn_block *b, const int64_t *loc, const float *x,
                             uint32_t step)
{
    const int P = T->P;
    const int64_t dim = in_width(T, l), w = pair_width(dim), ns = b->n_src;
    int64_t *cand_n = gnn_calloc((size_t)P + 1, sizeof(int64_t));
    int64_t *cand = NULL, *cid = NULL, *cdeg = NULL, *coff = NULL;
    uint8_t *keep = NULL;
    gnn_status st = GNN_ERR_NOMEM;
    if (!cand_n)
        return st;
    for (int64_t i = 0; i < ns; i++)
        if (loc[i] < T->n_solid)
            for (int64_t j = T->hr_off[loc[i]]; j < T->hr_off[loc[i] + 1]; j++)
                cand_n[T->hr[j]]++;
    coff = gnn_malloc((size_t)(P + 1) * sizeof(int64_t));
    if (!coff)
        goto done;
    coff[0] = 0;
    for (int r = 0; r < P; r++)
        coff[r + 1] = coff[r] + cand_n[r];
    const int64_t total = coff[P];
    cand = gnn_malloc((size_t)(total + 1) * sizeof(int64_t)); /* source row of each candidate */
    cid = gnn_malloc((size_t)(total + 1) * sizeof(int64_t));
    cdeg = gnn_malloc((size_t)(total + 1) * sizeof(int64_t));
    keep = gnn_malloc((size_t)(total + 1));
    if (!cand || !cid || !cdeg || !keep)
        goto done;
    memset(cand_n, 0, (size_t)P * sizeof(int64_t));
    for (int64_t i = 0; i < ns; i++) {
        const int64_t v = loc[i];
        if (v >= T->n_solid)
            continue;
        for (int64_t j = T->hr_off[v]; j < T->hr_off[v + 1]; j++) {
            const int r = (int)T->hr[j];
            const int64_t k = coff[r] + cand_n[r]++;
            cand[k] = i;
            cid[k] = T->L->vid_o[v];
            cdeg[k] = T->L->graph.indptr[v + 1] - T->L->graph.indptr[v];
        }
    }
    int64_t kept_total = 0, *sc = T->pack_cnt[l], *sd = T->pack_cnt[l] + P;
    for (int r = 0; r < P; r++) {
        const gnn_aep_select_args a = { .vid_o = cid + coff[r], .deg = cdeg + coff[r], .m = coff[r + 1] - coff[r],
                                        .nc = T->nc, .seed = T->cfg.seed, .step = step, .layer = l,
                                        .dst_rank = r };
        int64_t kept = 0;
        if ((st = T->aep_ops->select(&a, keep + coff[r], &kept, T->err)))
            goto done;
        sc[r] = kept * w;
        sd[r] = kept_total * w;
        kept_total += kept;
    }
    gnn_free(T->pack[l]);
    if (!(T->pack[l] = falloc(kept_total * w))) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    int64_t o = 0;
    for (int64_t k = 0; k < total; k++) /* candidates are grouped by rank: the kept ones in order */
        if (keep[k]) {
            float *row = T->pack[l] + o * w;
            memcpy(row, &cid[k], sizeof(int64_t));
            memcpy(row + 2, x + cand[k] * dim, (size_t)dim * sizeof(float));
            o++;
        }
    for (int r = 0; r < P; r++)
        if (r != T->rank) {
            T->pushed[l] += sc[r] / w;
            T->step_pushed += sc[r] / w;
            T->push_bytes += sc[r] * (int64_t)sizeof(float);
        }
    st = GNN_OK;
done:
    gnn_free(cand_n);
    gnn_free(coff);
    gnn_free(cand);
    gnn_free(cid);
    gnn_free(cdeg);
    gnn_free(keep);
    return st;
}

/* An empty push for layer l (a rank without a mini-batch still takes part). */
static gnn_status pack_empty(ptrainer *T, int l)
{
    memset(T->pack_cnt[l], 0, sizeof T->pack_cnt[l]);
    gnn_free(T->pack[l]);
    T->pack[l] = falloc(1);
    return T->pack[l] ? GNN_OK : GNN_ERR_NOMEM;
}

/* Post every layer's packed push (Algorithm 2 line 24); slot = step mod d. */
static gnn_status post_pushes(ptrainer *T, int64_t k)
{
    push *s = &T->inflight[k % T->pc.hec_delay];
    for (int l = 0; l < T->m.L; l++) {
        gnn_status st = gnn_comm_ialltoallv(T->comm, T->pack[l], T->pack_cnt[l], T->pack_cnt[l] + T->P, GNN_DT_F32,
                                            T->pc.tag_base + l, &s->req[l]);
        if (st)
            return gnn_err_set(T->err, st, "posting the push of layer %d: %s", l, gnn_comm_errmsg(T->comm));
        s->buf[l] = T->pack[l]; /* must stay unchanged until the wait */
        T->pack[l] = NULL;
    }
    return GNN_OK;
}

/* Steps 1-3 of docs/hec.md for every layer: receive the push posted d steps ago (when
 * k >= d), age the cache, store the pairs in the order received. */
static gnn_status receive_and_store(ptrainer *T, int64_t k)
{
    const int d = T->pc.hec_delay;
    push *s = &T->inflight[k % d];
    for (int l = 0; l < T->m.L; l++) {
        const gnn_comm_seg *segs = NULL;
        int n_segs = 0;
        gnn_status st;
        T->step_received[l] = 0;
        if (k >= d) {
            if ((st = gnn_comm_wait(T->comm, s->req[l], &segs, &n_segs)))
                return gnn_err_set(T->err, st, "receiving the push of layer %d: %s", l, gnn_comm_errmsg(T->comm));
        }
        gnn_hec_age(&T->hec[l]);
        if (k >= d) {
            const int64_t dim = in_width(T, l), w = pair_width(dim);
            int64_t m = 0;
            for (int i = 0; i < n_segs; i++) {
                if (segs[i].count % w) {
                    st = gnn_err_set(T->err, GNN_ERR_FORMAT, "a push of layer %d from rank %d has %lld floats, "
                                     "not a multiple of %lld", l, segs[i].src, (long long)segs[i].count, (long long)w);
                    goto fail;
                }
                m += segs[i].count / w;
            }
            int64_t *ids = gnn_malloc((size_t)(m + 1) * sizeof(int64_t));
            float *emb = falloc(m * dim);
            if (!ids || !emb) {
                gnn_free(ids);
                gnn_free(emb);
                st = GNN_ERR_NOMEM;
                goto fail;
            }
            int64_t j = 0;
            for (int i = 0; i < n_segs; i++) {
                const float *p = segs[i].data;
                for (int64_t q = 0; q < segs[i].count / w; q++, j++) {
                    memcpy(&ids[j], p + q * w, sizeof(int64_t));
                    memcpy(emb + j * dim, p + q * w + 2, (size_t)dim * sizeof(float));
                    const int64_t id = ids[j];
                    if (id < 0 || id >= T->in->n_global || T->L->vid_p[id] < T->n_solid) {
                        gnn_free(ids);
                        gnn_free(emb);
                        st = gnn_err_set(T->err, GNN_ERR_INTERNAL, "rank %d pushed vertex %lld at layer %d, which "
                                         "is not a halo of rank %d", segs[i].src, (long long)id, l, T->rank);
                        goto fail;
                    }
                }
            }
            st = gnn_hec_store(&T->hec[l], ids, emb, m, T->err);
            gnn_free(ids);
            gnn_free(emb);
            if (st)
                goto fail;
            T->received[l] += m;
            T->step_received[l] = m;
            gnn_comm_req_free(T->comm, s->req[l]);
            s->req[l] = NULL;
            gnn_free(s->buf[l]);
            s->buf[l] = NULL;
        }
        continue;
    fail:
        return st;
    }
    return GNN_OK;
}

static uint32_t hec_crc(const gnn_hec *h)
{
    uint32_t c = gnn_crc32c(0, h->tag, (size_t)h->cs * sizeof(int64_t));
    c = gnn_crc32c(c, h->age, (size_t)h->cs * sizeof(int32_t));
    c = gnn_crc32c(c, h->emb, (size_t)(h->cs * h->dim) * sizeof(float));
    return gnn_crc32c(c, &h->wp, sizeof h->wp);
}

/* ---- one step ------------------------------------------------------------------------------ */

/* Layer l's input rows of halo vertices (hec, drop): hits loaded from the cache (steps 4-5),
 * misses zeroed and their edges removed from the block. x is (n_src, dim). */
static gnn_status substitute_halos(ptrainer *T, int l, gnn_block *b, const int64_t *loc, float *x, int64_t *lookups,
                                   int64_t *hits)
{
    const int64_t ns = b->n_src, dim = in_width(T, l);
    int64_t nh = 0;
    for (int64_t i = 0; i < ns; i++)
        nh += loc[i] >= T->n_solid;
    *lookups = nh;
    *hits = 0;
    if (nh == 0)
        return GNN_OK;
    int64_t *hi = gnn_malloc((size_t)nh * sizeof(int64_t)), *ids = gnn_malloc((size_t)nh * sizeof(int64_t));
    int64_t *lines = gnn_malloc((size_t)nh * sizeof(int64_t));
    uint8_t *miss = gnn_calloc((size_t)ns, 1);
    float *tmp = NULL;
    gnn_status st = GNN_ERR_NOMEM;
    if (!hi || !ids || !lines || !miss)
        goto done;
    nh = 0;
    for (int64_t i = 0; i < ns; i++)
        if (loc[i] >= T->n_solid) {
            hi[nh] = i;
            ids[nh++] = T->L->vid_o[loc[i]];
        }
    if (hec_mode(T)) {
        if ((st = gnn_hec_search(&T->hec[l], ids, nh, lines, T->err)))
            goto done;
        if (!(tmp = falloc(nh * dim))) {
            st = GNN_ERR_NOMEM;
            goto done;
        }
        if ((st = gnn_hec_load(&T->hec[l], lines, nh, tmp, T->err)))
            goto done;
    } else {
        for (int64_t j = 0; j < nh; j++)
            lines[j] = GNN_HEC_MISS;
    }
    for (int64_t j = 0; j < nh; j++) {
        float *row = x + hi[j] * dim;
        if (lines[j] != GNN_HEC_MISS) {
            memcpy(row, tmp + j * dim, (size_t)dim * sizeof(float));
            (*hits)++;
        } else {
            memset(row, 0, (size_t)dim * sizeof(float));
            miss[hi[j]] = 1;
        }
    }
    if (*hits < nh) { /* Algorithm 2 line 11: a missed halo leaves the block with its edges */
        int64_t o = 0;
        for (int64_t v = 0; v < b->n_dst; v++) {
            const int64_t e0 = b->indptr[v], e1 = b->indptr[v + 1];
            b->indptr[v] = o;
            for (int64_t e = e0; e < e1; e++)
                if (!miss[b->indices[e]])
                    b->indices[o++] = b->indices[e];
        }
        b->indptr[b->n_dst] = o;
        T->dropped_edges += b->nnz - o;
        b->nnz = o;
    }
    st = GNN_OK;
done:
    gnn_free(hi);
    gnn_free(ids);
    gnn_free(lines);
    gnn_free(miss);
    gnn_free(tmp);
    return st;
}

static void trace(ptrainer *T, int l, uint32_t step, int64_t lookups, int64_t hits)
{
    if (!T->pc.on_trace || !hec_mode(T))
        return;
    gnn_part_trace t = { .rank = T->rank, .epoch = T->epoch, .layer = l, .step = step,
                         .received = T->step_received[l], .lookups = lookups, .hits = hits,
                         .pushed = T->step_pushed, .cnt = T->hec[l].cnt, .state_crc = hec_crc(&T->hec[l]) };
    T->pc.on_trace(&t, T->pc.trace_ctx);
}

/* One step: (hec) receive and store; sample; forward with the halo rows substituted; (hec)
 * pack and post the pushes; loss; backward; allreduce; Adam. seeds: local ids (n_seeds may
 * be 0). *loss: the global mini-batch's mean loss. */
static gnn_status step_part(ptrainer *T, const int64_t *seeds, int64_t n_seeds, double denom, int64_t k, int64_t M,
                            uint32_t step, double *loss, gnn_epoch_stats *E)
{
    const gnn_train_config *c = &T->cfg;
    model *m = &T->m;
    const int L = m->L, hec = hec_mode(T), local = local_mode(T);
    const int push_now = hec && k < M - T->pc.hec_delay; /* Algorithm 2 line 14 */
    double *phase = E->phase_s;
    gnn_block blk[GNN_MAX_LAYERS];
    int64_t *loc[GNN_MAX_LAYERS]; /* local ids of each block's sources (hec, drop) */
    lcache C[GNN_MAX_LAYERS];
    memset(blk, 0, sizeof blk);
    memset(loc, 0, sizeof loc);
    memset(C, 0, sizeof C);
    int64_t *gseeds = NULL;
    int32_t *lab = NULL;
    float *dy = NULL, *dx = NULL;
    double sums[2] = { 0.0, 0.0 };
    gnn_status st = GNN_OK;
    const fwd_key key = { .train = 1, .attn_drop = c->attn_dropout, .seed = c->seed, .step = step };
    T->step_pushed = 0;

    double t0 = gnn_now_s();
    if (hec && (st = receive_and_store(T, k)))
        goto done;
    phase[GNN_PHASE_COMM_POST] += gnn_now_s() - t0;

    if (n_seeds > 0) {
        t0 = gnn_now_s();
        const int64_t *s = seeds;
        if (!local) { /* fetch samples the global graph from the seeds' global ids */
            if (!(gseeds = gnn_malloc((size_t)n_seeds * sizeof(int64_t)))) {
                st = GNN_ERR_NOMEM;
                goto done;
            }
            for (int64_t i = 0; i < n_seeds; i++)
                gseeds[i] = T->L->vid_o[seeds[i]];
            s = gseeds;
        }
        gnn_sample_params base = { .seed = c->seed, .step = step, .rng_ids = local ? T->L->vid_o : NULL };
        st = gnn_sampler_blocks(T->sampler, s, n_seeds, c->fanouts, L, &base, blk);
        if (st)
            goto done;
        for (int l = 0; l < L; l++) {
            sums[1] += (double)blk[l].nnz;
            if (local) { /* keep the local ids; the blocks carry global ids from here on */
                if (!(loc[l] = gnn_malloc((size_t)blk[l].n_src * sizeof(int64_t)))) {
                    st = GNN_ERR_NOMEM;
                    goto done;
                }
                memcpy(loc[l], blk[l].src_gid, (size_t)blk[l].n_src * sizeof(int64_t));
                for (int64_t i = 0; i < blk[l].n_src; i++)
                    blk[l].src_gid[i] = T->L->vid_o[loc[l][i]];
            }
        }
        phase[GNN_PHASE_SAMPLE] += gnn_now_s() - t0;
    }

    /* forward */
    int64_t lookups[GNN_MAX_LAYERS] = { 0 }, hits[GNN_MAX_LAYERS] = { 0 };
    for (int l = 0; l < L; l++) {
        const int64_t ns = n_seeds > 0 ? blk[l].n_src : 0, in = in_width(T, l);
        if (n_seeds == 0) { /* an empty mini-batch still takes part in the collectives */
            if (push_now && (st = pack_empty(T, l)))
                goto done;
            if (l == 0 && !local) {
                float none;
                if ((st = gnn_kvstore_pull(&T->kv, NULL, 0, &none, T->err)))
                    goto done;
            }
            continue;
        }
        t0 = gnn_now_s();
        if (!(C[l].x = falloc(ns * in))) {
            st = GNN_ERR_NOMEM;
            goto done;
        }
        if (l == 0 && local) {
            for (int64_t i = 0; i < ns; i++) {
                if (loc[0][i] < T->n_solid)
                    memcpy(C[0].x + i * in, T->fsolid + loc[0][i] * in, (size_t)in * sizeof(float));
                else
                    memset(C[0].x + i * in, 0, (size_t)in * sizeof(float));
            }
        } else if (l == 0) { /* fetch: Algorithm-free exact baseline, every row from its owner */
            const double tp = gnn_now_s();
            const int64_t b0 = T->kv.total.bytes_header_sent + T->kv.total.bytes_ids_sent + T->kv.total.bytes_rows_sent;
            if ((st = gnn_kvstore_pull(&T->kv, blk[0].src_gid, ns, C[0].x, T->err)))
                goto done;
            T->pull_bytes += T->kv.total.bytes_header_sent + T->kv.total.bytes_ids_sent + T->kv.total.bytes_rows_sent - b0;
            phase[GNN_PHASE_COMM_POST] += gnn_now_s() - tp;
            t0 = gnn_now_s();
        } else {
            memcpy(C[l].x, C[l - 1].y, (size_t)(ns * in) * sizeof(float));
        }
        if (local) {
            const double th = gnn_now_s();
            if ((st = substitute_halos(T, l, &blk[l], loc[l], C[l].x, &lookups[l], &hits[l])))
                goto done;
            T->lookups[l] += lookups[l];
            T->hits[l] += hits[l];
            const double tq = gnn_now_s();
            phase[GNN_PHASE_COMM_POST] += tq - th;
            if (push_now && (st = pack_layer(T, l, &blk[l], loc[l], C[l].x, step)))
                goto done;
            phase[GNN_PHASE_COMM_PRE] += gnn_now_s() - tq;
            t0 += gnn_now_s() - th; /* not forward time */
        }
        if (c->dropout > 0.0f) {
            if (!(C[l].mask = falloc(ns * in))) {
                st = GNN_ERR_NOMEM;
                goto done;
            }
            gnn_dropout_fwd(C[l].x, ns, in, blk[l].src_gid, c->dropout, c->seed, step, (unsigned)l, C[l].mask);
        }
        if ((st = gnn_layer_fwd(m, l, &blk[l], &C[l], &key)))
            goto done;
        phase[GNN_PHASE_FORWARD] += gnn_now_s() - t0;
    }
    if (push_now) {
        t0 = gnn_now_s();
        if ((st = post_pushes(T, k)))
            goto done;
        phase[GNN_PHASE_COMM_PRE] += gnn_now_s() - t0;
    }
    for (int l = 0; l < L; l++)
        trace(T, l, step, lookups[l], hits[l]);

    /* loss and backward */
    t0 = gnn_now_s();
    if (n_seeds > 0) {
        const int64_t classes = m->layer[L - 1].out;
        if (!(lab = gnn_malloc((size_t)n_seeds * sizeof(int32_t))) || !(dy = falloc(n_seeds * classes))) {
            st = GNN_ERR_NOMEM;
            goto done;
        }
        for (int64_t i = 0; i < n_seeds; i++)
            lab[i] = T->in->labels[seeds[i]];
        sums[0] = gnn_softmax_xent_sum(C[L - 1].y, n_seeds, classes, lab, denom, dy, NULL);
        for (int l = L - 1; l >= 0; l--) {
            const mlayer *S = &m->layer[l];
            if (l > 0 && !(dx = falloc(blk[l].n_src * S->in))) {
                st = GNN_ERR_NOMEM;
                goto done;
            }
            if ((st = gnn_layer_bwd(m, l, &blk[l], &C[l], &key, dy, l > 0 ? dx : NULL)))
                goto done;
            if (l > 0 && local) /* a halo row's input came from the cache: no gradient below it */
                for (int64_t i = 0; i < blk[l].n_src; i++)
                    if (loc[l][i] >= T->n_solid)
                        memset(dx + i * S->in, 0, (size_t)S->in * sizeof(float));
            gnn_free(dy);
            dy = dx;
            dx = NULL;
        }
    } else {
        for (int l = 0; l < L; l++)
            memset(m->layer[l].g, 0, (size_t)m->layer[l].count * sizeof(float));
    }
    phase[GNN_PHASE_BACKWARD] += gnn_now_s() - t0;

    /* allreduce (ARed) and Adam */
    if (T->P > 1) {
        t0 = gnn_now_s();
        int64_t o = 0;
        for (int l = 0; l < L; l++) {
            memcpy(T->gbuf + o, m->layer[l].g, (size_t)m->layer[l].count * sizeof(float));
            o += m->layer[l].count;
        }
        if ((st = gnn_comm_allreduce(T->comm, T->gbuf, T->gbuf, T->n_params, GNN_DT_F32)) ||
            (st = gnn_comm_allreduce(T->comm, sums, sums, 2, GNN_DT_F64))) {
            gnn_err_set(T->err, st, "allreduce: %s", gnn_comm_errmsg(T->comm));
            goto done;
        }
        o = 0;
        for (int l = 0; l < L; l++) {
            memcpy(m->layer[l].g, T->gbuf + o, (size_t)m->layer[l].count * sizeof(float));
            o += m->layer[l].count;
        }
        phase[GNN_PHASE_COMM] += gnn_now_s() - t0;
    }
    *loss = sums[0] / denom;
    E->edges_sampled += (int64_t)sums[1];
    t0 = gnn_now_s();
    gnn_model_adam(m, c, step);
    phase[GNN_PHASE_UPDATE] += gnn_now_s() - t0;
done:
    for (int l = 0; l < L; l++) {
        gnn_lcache_free(&C[l]);
        gnn_block_free(&blk[l]);
        gnn_free(loc[l]);
    }
    gnn_free(gseeds);
    gnn_free(lab);
    gnn_free(dy);
    gnn_free(dx);
    return st;
}

/* ---- evaluation ---------------------------------------------------------------------------- */

/* Exact full-neighborhood inference over the solid vertices, layer by layer, the halo rows of
 * each layer's input exchanged from their owners; correct counts and the val loss summed over
 * ranks. acc[1..3]: train, val, test. Collective. */
static gnn_status evaluate_part(ptrainer *T, double acc[4], double *val_loss)
{
    const model *m = &T->m;
    const gnn_csr *g = T->lgraph;
    const int64_t ns = T->n_solid, nl = T->n_local, classes = m->layer[m->L - 1].out;
    const fwd_key key = { .train = 0, .seed = T->cfg.seed };
    gnn_block b;
    lcache C;
    memset(&C, 0, sizeof C);
    float *x = NULL, *scratch = NULL;
    int32_t *pred = NULL, *vl = NULL;
    gnn_status st = gnn_block_alloc(&b, ns, nl, g->indptr[ns]);
    if (st)
        return st;
    b.n_src = nl;
    b.nnz = g->indptr[ns];
    for (int64_t v = 0; v <= ns; v++)
        b.indptr[v] = g->indptr[v];
    for (int64_t e = 0; e < b.nnz; e++)
        b.indices[e] = (int32_t)g->indices[e];
    for (int64_t v = 0; v < nl; v++)
        b.src_gid[v] = T->L->vid_o[v];
    if (!(x = falloc(nl * T->f))) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    memcpy(x, T->fsolid, (size_t)(ns * T->f) * sizeof(float));
    memcpy(x + ns * T->f, T->halo_feat, (size_t)(T->n_halo * T->f) * sizeof(float));
    for (int l = 0; l < m->L; l++) {
        C.x = x;
        x = NULL;
        if ((st = gnn_layer_fwd(m, l, &b, &C, &key)))
            goto done;
        if (l < m->L - 1) {
            const int64_t w = m->layer[l].out;
            if (!(x = falloc(nl * w))) {
                st = GNN_ERR_NOMEM;
                goto done;
            }
            memcpy(x, C.y, (size_t)(ns * w) * sizeof(float));
            if ((st = halo_exchange(T, C.y, w, x + ns * w))) {
                gnn_err_set(T->err, st, "evaluation: %s", gnn_comm_errmsg(T->comm));
                goto done;
            }
            gnn_lcache_free(&C);
        }
    }
    pred = gnn_malloc((size_t)(ns + 1) * sizeof(int32_t));
    vl = gnn_malloc((size_t)(ns + 1) * sizeof(int32_t));
    scratch = falloc(ns * classes);
    if (!pred || !vl || !scratch) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    gnn_argmax(C.y, ns, classes, pred);
    double s[8] = { 0 }; /* right[1..3], total[1..3] at 1..3 and 4..6; val loss sum at 7 */
    for (int64_t v = 0; v < ns; v++) {
        const int sp = T->in->split[v];
        vl[v] = sp == GNN_SPLIT_VAL ? T->in->labels[v] : -1;
        if (sp < 1 || sp > 3 || T->in->labels[v] < 0)
            continue;
        s[3 + sp] += 1.0;
        s[sp] += pred[v] == T->in->labels[v];
    }
    s[7] = ns > 0 ? gnn_softmax_xent_sum(C.y, ns, classes, vl, 1.0, scratch, NULL) : 0.0;
    if (T->P > 1 && (st = gnn_comm_allreduce(T->comm, s, s, 8, GNN_DT_F64))) {
        gnn_err_set(T->err, st, "evaluation: %s", gnn_comm_errmsg(T->comm));
        goto done;
    }
    for (int k = 1; k < 4; k++)
        acc[k] = s[3 + k] > 0 ? s[k] / s[3 + k] : 0.0;
    *val_loss = s[5] > 0 ? s[7] / s[5] : 0.0;
done:
    gnn_lcache_free(&C);
    gnn_block_free(&b);
    gnn_free(x);
    gnn_free(scratch);
    gnn_free(pred);
    gnn_free(vl);
    return st;
}

/* ---- the driver ---------------------------------------------------------------------------- */

static int64_t sent_bytes(const gnn_comm *c)
{
    int64_t b = 0;
    for (int i = 0; i < GNN_COMM_OP_COUNT * c->size; i++)
        b += c->traffic.bytes[i];
    return b;
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

/* Step k's slice [*b0, *b0 + *nb) of a rank's epoch order of n train vertices, M steps.
 * One rank: batches of `batch`, the last one short, as gnn_train cuts them. More ranks: M
 * near-equal slices (sizes floor((k + 1) n / M) - floor(k n / M) <= batch, since
 * M = ceil(max_r n_r / batch)), so every step's global batch is near P * batch. Fixed slices
 * would leave a last step made of the few seeds that the ranks with more train vertices have
 * left over (METIS balances train counts only within ~3%), and Adam would take a full-size
 * step on that tiny batch's noisy gradient every epoch. */
static void batch_slice(int64_t n, int64_t k, int64_t M, int64_t batch, int P, int64_t *b0, int64_t *nb)
{
    if (P == 1) {
        *b0 = k * batch;
        *nb = n > *b0 ? (n - *b0 < batch ? n - *b0 : batch) : 0;
    } else {
        *b0 = (int64_t)((__int128)k * n / M);
        *nb = (int64_t)((__int128)(k + 1) * n / M) - *b0;
    }
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
    T->comm = comm;
    T->P = gnn_comm_size(comm);
    T->rank = gnn_comm_rank(comm);
    T->cfg = *cfg;
    T->cfg.comm = NULL;
    gnn_train_resolve(&T->cfg);
    T->pc = *pc;
    T->in = in;
    T->err = err;
    const gnn_train_config *c = &T->cfg;
    int64_t *order = NULL;
    gnn_status st = !in || !in->part ? gnn_err_set(err, GNN_ERR_INVAL, "no part given")
                                     : check_config(in, c, pc, T->P, T->rank, err);
    if (st)
        goto done;
    T->L = in->part;
    if ((st = setup(T)))
        goto done;

    const int64_t M = steps_per_epoch(T);
    res->epochs = calloc((size_t)c->epochs + 1, sizeof(gnn_epoch_stats));
    res->step_loss = calloc((size_t)(M * c->epochs) + 1, sizeof(double));
    order = gnn_malloc((size_t)(T->n_train + 1) * sizeof(int64_t));
    if (!res->epochs || !res->step_loss || !order) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    res->best_val_acc = -1.0;
    res->stop_epoch = -1;
    {
        /* the majority-class rate over all ranks */
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
        if (T->P > 1 && (st = gnn_comm_allreduce(comm, d, d, 512, GNN_DT_F64)))
            goto done;
        int major = 0;
        double tot = 0;
        for (int y = 0; y < K; y++) {
            if (d[y] > d[major])
                major = y;
            tot += d[256 + y];
        }
        res->majority_rate = tot > 0 ? d[256 + major] / tot : 0.0;
    }
    double best_val_loss = INFINITY;
    int since_best = 0;
    uint32_t step = 0;
    const int L = T->m.L;
    for (int ep = 0; ep < c->epochs; ep++) {
        gnn_epoch_stats *E = &res->epochs[ep];
        T->epoch = ep;
        E->epoch = ep;
        E->train_acc = E->val_acc = E->test_acc = E->val_loss = -1.0;
        const double te0 = gnn_now_s();
        const int64_t bytes0 = sent_bytes(comm);
        int64_t c0[2 * GNN_MAX_LAYERS + 2];
        for (int l = 0; l < L; l++) {
            c0[l] = T->lookups[l];
            c0[L + l] = T->hits[l];
        }
        c0[2 * L] = T->push_bytes;
        c0[2 * L + 1] = T->pull_bytes;
        /* this rank's epoch order: Fisher-Yates with (seed, SHUFFLE, epoch, id = rank) */
        memcpy(order, T->train, (size_t)T->n_train * sizeof(int64_t));
        const gnn_rng_stream sh = gnn_rng_stream_make(c->seed, GNN_TAG_SHUFFLE, (uint32_t)ep, 0, (uint64_t)T->rank);
        gnn_rng_shuffle_i64(&sh, order, T->n_train);
        double loss_sum = 0.0;
        for (int64_t k = 0; k < M; k++) {
            int64_t b0, nb;
            batch_slice(T->n_train, k, M, c->batch, T->P, &b0, &nb);
            double denom = 0.0; /* every rank's batch at this step: every seed is labelled */
            for (int q = 0; q < T->P; q++) {
                int64_t q0, qn;
                batch_slice(T->n_train_all[q], k, M, c->batch, T->P, &q0, &qn);
                denom += (double)qn;
            }
            double loss = 0.0;
            if ((st = step_part(T, order + (nb ? b0 : 0), nb, denom, k, M, step, &loss, E))) {
                if (!err->msg[0] || st == GNN_ERR_COMM)
                    gnn_err_set(err, st, "training step %u failed: %s", step,
                                st == GNN_ERR_COMM ? gnn_comm_errmsg(comm) : gnn_status_str(st));
                goto done;
            }
            gnn_train_record_step(res, E, c, ep, M, loss, &loss_sum, &step);
        }
        E->loss = E->steps ? loss_sum / (double)E->steps : 0.0;
        int last = ep == c->epochs - 1, stop = 0;
        if ((c->eval_every > 0 && (ep + 1) % c->eval_every == 0) || last) {
            double acc[4] = { 0 }, vloss = 0.0;
            const double tv = gnn_now_s();
            if ((st = evaluate_part(T, acc, &vloss))) {
                if (!err->msg[0])
                    gnn_err_set(err, st, "evaluation failed: %s", gnn_status_str(st));
                goto done;
            }
            E->phase_s[GNN_PHASE_EVAL] += gnn_now_s() - tv;
            stop = gnn_train_record_eval(res, E, acc, vloss, ep, last, c->patience, &best_val_loss, &since_best);
        }
        int64_t d[2 * GNN_MAX_LAYERS + 2];
        for (int l = 0; l < L; l++) {
            d[l] = T->lookups[l] - c0[l];
            d[L + l] = T->hits[l] - c0[L + l];
        }
        d[2 * L] = T->push_bytes - c0[2 * L];
        d[2 * L + 1] = T->pull_bytes - c0[2 * L + 1];
        if ((st = sum_counters(T, d, 2 * L + 2))) {
            gnn_err_set(err, st, "summing the epoch's counters: %s", gnn_comm_errmsg(comm));
            goto done;
        }
        for (int l = 0; l < L; l++) {
            E->hec_lookups[l] = d[l];
            E->hec_hits[l] = d[L + l];
        }
        E->push_bytes = d[2 * L];
        E->pull_bytes = d[2 * L + 1];
        E->time_s = gnn_now_s() - te0;
        E->comm_bytes = sent_bytes(comm) - bytes0;
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
    if (rep) {
        int64_t v[4 * GNN_MAX_LAYERS + 8];
        int n = 0;
        for (int l = 0; l < L; l++) {
            v[n++] = T->lookups[l];
            v[n++] = T->hits[l];
            v[n++] = T->pushed[l];
            v[n++] = T->received[l];
        }
        v[n++] = T->push_bytes;
        v[n++] = T->pull_bytes;
        v[n++] = T->dropped_edges;
        v[n++] = T->eval_bytes;
        v[n++] = T->n_solid;
        v[n++] = T->n_halo;
        v[n++] = T->n_train;
        if ((st = sum_counters(T, v, n))) {
            gnn_err_set(err, st, "summing the run's counters: %s", gnn_comm_errmsg(comm));
            goto done;
        }
        rep->ranks = T->P;
        rep->hec_cs = T->cs;
        rep->hec_nc = T->nc;
        if ((st = size_range(T, rep))) {
            gnn_err_set(err, st, "gathering the cache sizes: %s", gnn_comm_errmsg(comm));
            goto done;
        }
        n = 0;
        for (int l = 0; l < L; l++) {
            rep->lookups[l] = v[n++];
            rep->hits[l] = v[n++];
            rep->pushed_rows[l] = v[n++];
            rep->received_rows[l] = v[n++];
        }
        rep->push_bytes = v[n++];
        rep->pull_bytes = v[n++];
        rep->halo_edges_dropped = v[n++];
        rep->eval_bytes = v[n++];
        rep->solid_total = v[n++];
        rep->halo_total = v[n++];
        rep->train_total = v[n++];
    }
    st = GNN_OK;
done:
    teardown(T);
    free(T);
    gnn_free(order);
    if (st)
        gnn_train_result_free(res);
    return st;
}
