/* core/train/train_part_setup.c -- what a rank does before the first epoch of training on its part
 * (DistGNN-MB Algorithm 1, "Initialize", and Algorithm 2 line 2), and after the last:
 *   1. agree on every rank's inputs and train count (a rank with bad input fails every rank);
 *   2. db_halo (@alg{DistGNN-MB 1, lines 2-3}: who holds which of my solid vertices as a halo),
 *      its inverse, and the plan of the evaluation's halo exchange;
 *   3. the features (row-normalized like gnn_train when asked) and the halos' features;
 *   4. the graphs sampled on (local, or the whole topology for fetch) and the sampler;
 *   5. the model;
 *   6. the caches (@alg{DistGNN-MB 1, lines 4-6}: HEC.cs, HEC.nc, HEC.ls), sized to the
 *      graph unless given (docs/hec.md section 4).
 * Every step here is collective or local in the same order on every rank. */
#include <string.h>
#include "core/train/train_part_internal.h"
#include "gnnref/rng.h"

/* This rank's own inputs (a failure here fails every rank: see gather_train_counts). */
static gnn_status check_local(const gnn_part_input *in, const gnn_part_train_config *pc, int rank, gnn_err *err)
{
    if (in->part->rank != rank)
        return gnn_err_set(err, GNN_ERR_INVAL, "part %lld given to rank %d", (long long)in->part->rank, rank);
    if (in->num_features < 1 || in->num_classes < 1 || (in->part->n_solid > 0 && (!in->feat || !in->labels || !in->split)))
        return gnn_err_set(err, GNN_ERR_INVAL, "rank %d: features, labels and split are required", rank);
    if (pc->remote == GNN_REMOTE_FETCH && pc->sampling != GNN_SAMPLING_DISTRIBUTED &&
        (!in->global || !in->owner || in->global->n != in->n_global))
        return gnn_err_set(err, GNN_ERR_INVAL, "fetch needs the whole topology (%lld vertices) and the part vector",
                           (long long)in->n_global);
    if (pc->sampling == GNN_SAMPLING_DISTRIBUTED && !in->owner)
        return gnn_err_set(err, GNN_ERR_INVAL, "distributed sampling needs the part vector");
    if (in->n_global > INT32_MAX)
        return gnn_err_set(err, GNN_ERR_RANGE, "%lld vertices exceed the int32 block-local id range",
                           (long long)in->n_global);
    for (int64_t v = 0; v < in->part->n_solid; v++)
        if (in->labels[v] >= in->num_classes)
            return gnn_err_set(err, GNN_ERR_RANGE, "rank %d: label %d of local vertex %lld is not below %lld classes",
                               rank, in->labels[v], (long long)v, (long long)in->num_classes);
    return GNN_OK;
}

/* 1. Every rank's verdict on its own inputs and its train count, in one allgatherv: a rank
 * with bad input fails every rank instead of leaving them waiting in the next collective. */
static gnn_status gather_train_counts(ptrainer *T)
{
    const gnn_part_input *in = T->in;
    gnn_err *err = T->err;
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
    gnn_status st = gnn_comm_allgatherv(T->comm, me, 2, T->n_train_all, cnt, cnt + T->P, GNN_DT_I64);
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
    int64_t total = 0, max_train = 0;
    for (int q = 0; q < T->P; q++) {
        total += T->n_train_all[q];
        max_train = T->n_train_all[q] > max_train ? T->n_train_all[q] : max_train;
    }
    if (total == 0)
        return gnn_err_set(err, GNN_ERR_INVAL, "no rank has a labelled training vertex");
    /* @alg{DistGNN-MB 2, line 4}: M = ceil(max_r n_train_r / batch) steps per epoch on every
     * rank, so that every rank takes part in every step's collectives */
    T->steps = (max_train + T->cfg.batch - 1) / T->cfg.batch;
    return GNN_OK;
}

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

/* 2. db_halo: the push targets (hec) and the evaluation's exchange (every mode); then its
 * inverse, hr: for each solid vertex, the ranks where it is a halo, increasing (the push's
 * candidates, @alg{DistGNN-MB 2, line 18}, Map). */
static gnn_status build_db_halo(ptrainer *T)
{
    gnn_status st;
    /* @alg{DistGNN-MB 1, lines 2-3}: B <- Bcast(hv); db_halo <- CreateDB(B) */
    if ((st = gnn_db_halo_build(T->impl->db_halo, T->comm, T->L, T->in->n_global, &T->db, T->err)))
        return st;
    if ((st = exchange_plan(T)))
        return st;
    T->hr_off = gnn_calloc((size_t)T->n_solid + 1, sizeof(int64_t));
    T->hr = gnn_malloc((size_t)(T->db.off[T->P] + 1) * sizeof(int64_t));
    int64_t *fill = gnn_malloc((size_t)(T->n_solid + 1) * sizeof(int64_t));
    if (!T->hr_off || !T->hr || !fill) {
        gnn_free(fill);
        return GNN_ERR_NOMEM;
    }
    for (int64_t j = 0; j < T->db.off[T->P]; j++)
        T->hr_off[T->db.solid[j] + 1]++;
    for (int64_t v = 0; v < T->n_solid; v++)
        T->hr_off[v + 1] += T->hr_off[v];
    memcpy(fill, T->hr_off, (size_t)(T->n_solid + 1) * sizeof(int64_t));
    for (int r = 0; r < T->P; r++) /* rows by rank: each vertex's ranks come out increasing */
        for (int64_t j = T->db.off[r]; j < T->db.off[r + 1]; j++)
            T->hr[fill[T->db.solid[j]]++] = r;
    gnn_free(fill);
    return GNN_OK;
}

gnn_status gnn_ptrain_halo_exchange(ptrainer *T, const float *src, int64_t w, float *halo_out)
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

/* 3. The solid features (row-normalized like gnn_train when asked) and, for the evaluation,
 * the halos' features from their owners. */
static gnn_status prepare_features(ptrainer *T)
{
    gnn_status st;
    if (embedding(T)) { /* U(-1, 1), keyed by the vertex: the same rows at any rank count */
        if (!(T->emb0 = falloc(T->n_solid * T->f)) || !(T->halo_feat = falloc(T->n_halo * T->f)))
            return GNN_ERR_NOMEM;
        const uint8_t *learn = T->in->learn_input; /* NULL: every row; else the featureless types' */
        for (int64_t v = 0; v < T->n_solid; v++) {
            float *row = T->emb0 + v * T->f;
            if (learn && !learn[T->L->vid_o[v]]) { /* a featured vertex: its features, never pushed */
                if (T->cfg.feat_norm == GNN_FEAT_NORM_ROW)
                    gnn_rows_normalize(T->in->feat + v * T->f, 1, T->f, row);
                else
                    memcpy(row, T->in->feat + v * T->f, (size_t)T->f * sizeof(float));
                continue;
            }
            const gnn_rng_stream s = gnn_rng_stream_make(T->cfg.seed, GNN_TAG_INIT, 2, 0, (uint64_t)T->L->vid_o[v]);
            for (int64_t j = 0; j < T->f; j++)
                row[j] = 2.0f * gnn_rng_float(&s, (uint64_t)j) - 1.0f;
        }
        T->fsolid = T->emb0; /* until the store holds them (the evaluation reads the store's) */
        return GNN_OK;
    }
    T->fsolid = T->in->feat;
    if (T->cfg.feat_norm == GNN_FEAT_NORM_ROW) {
        if (!(T->normed = falloc(T->n_solid * T->f)))
            return GNN_ERR_NOMEM;
        gnn_rows_normalize(T->in->feat, T->n_solid, T->f, T->normed);
        T->fsolid = T->normed;
    }
    if (!(T->halo_feat = falloc(T->n_halo * T->f)))
        return GNN_ERR_NOMEM;
    if ((st = gnn_ptrain_halo_exchange(T, T->fsolid, T->f, T->halo_feat)))
        return gnn_err_set(T->err, st, "exchanging the halo features: %s", gnn_comm_errmsg(T->comm));
    return GNN_OK;
}

/* 4. The graphs: local (with self-loops on solid rows for gat: a halo row stays empty); for
 * fetch the whole topology and the feature store; the sampler on the graph sampled on. */
static gnn_status prepare_graphs(ptrainer *T)
{
    const int gat = T->cfg.model == GNN_MODEL_GAT;
    gnn_err *err = T->err;
    gnn_status st;
    T->lgraph = &T->L->graph;
    if (gat) {
        if ((st = gnn_csr_add_self_loops_rows(&T->loops, &T->L->graph, T->n_solid)))
            return st;
        T->lgraph = &T->loops;
    }
    if (!local_mode(T) && dist_sampling(T)) { /* the owners sample their rows of lgraph */
        const gnn_part_input *in = T->in;
        T->lview = *T->L;
        T->lview.graph = *T->lgraph; /* gat: the loop is the last in-edge, on both sides (graph.h) */
        if ((st = gnn_dsampler_create(&T->dsampler, &T->lview, in->owner, in->n_global, T->P, NULL, T->impl->sampler,
                                      T->impl->idmap, GNN_IDMAP_DENSE, err)) ||
            (st = gnn_kvstore_create(&T->kv, T->comm, in->n_global, in->owner, T->f, T->fsolid, T->n_solid, err)))
            return st;
        T->kv_made = 1;
        return GNN_OK;
    }
    if (!local_mode(T)) {
        const gnn_part_input *in = T->in;
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
    gnn_sampler_defaults(&T->sopt);
    if (T->cfg.model == GNN_MODEL_RGCN) {
        T->sopt.etype = local_mode(T) ? T->letype : T->in->etype;
        T->sopt.relations = T->in->relations;
    }
    if ((st = gnn_sampler_create(&T->sampler, T->impl->sampler, local_mode(T) ? T->lgraph : T->ggraph, &T->sopt)))
        return gnn_err_set(err, st, "sampler: %s", gnn_status_str(st));
    return GNN_OK;
}

/* rgcn: the types of the local graph's edges. A solid row lists its vertex's global in-edges
 * in CSR order (partition.h), so it takes the global row's types; halo rows are empty. The
 * sources are checked against global's, since the types are only right if the rows are. */
static gnn_status local_edge_types(ptrainer *T)
{
    const gnn_csr *lg = &T->L->graph, *g = T->in->global;
    if (!(T->letype = gnn_malloc(((size_t)lg->nnz + 1) * sizeof(int32_t))))
        return GNN_ERR_NOMEM;
    for (int64_t v = 0; v < lg->n; v++) {
        const int64_t b = lg->indptr[v], d = lg->indptr[v + 1] - b;
        if (d == 0)
            continue;
        const int64_t gv = T->L->vid_o[v], gb = g->indptr[gv];
        if (v >= T->n_solid || g->indptr[gv + 1] - gb != d)
            return gnn_err_set(T->err, GNN_ERR_INTERNAL, "rgcn: local row %lld (vertex %lld) is not its global row",
                               (long long)v, (long long)gv);
        for (int64_t j = 0; j < d; j++) {
            if (T->L->vid_o[lg->indices[b + j]] != g->indices[gb + j])
                return gnn_err_set(T->err, GNN_ERR_INTERNAL, "rgcn: local row %lld (vertex %lld) edge %lld is not "
                                   "the global row's", (long long)v, (long long)gv, (long long)j);
            T->letype[b + j] = T->in->etype[gb + j];
        }
    }
    return GNN_OK;
}

/* 6. @alg{DistGNN-MB 1, lines 4-6}: one cache per layer, HEC.cs lines, lifespan HEC.ls; and
 * HEC.nc, the pushes per remote rank, layer and step. Unless given, both are sized to the
 * graph (docs/hec.md section 4). */
static gnn_status init_caches(ptrainer *T)
{
    const gnn_part_train_config *pc = &T->pc;
    /* nc: enough that each remote rank's halo lines owned here can all be refreshed within
     * one lifespan (ls + 1 steps), or within one epoch (M steps) when the lifespan is longer:
     * max over r of ceil(|db_halo[r]| / W), W = min(ls + 1, M). Without the cap a long
     * lifespan would give nc = 1 and a cache that never fills. Fewer are sent when fewer of
     * them are in the mini-batch. */
    int64_t nc = pc->hec_nc;
    if (nc <= 0) {
        const int64_t W = pc->hec_ls + 1 < T->steps ? pc->hec_ls + 1 : T->steps;
        nc = 1;
        for (int r = 0; r < T->P; r++) {
            const int64_t rows = T->db.off[r + 1] - T->db.off[r];
            const int64_t need = (rows + W - 1) / W;
            if (need > nc)
                nc = need;
        }
    }
    T->nc = nc;
    /* cs: every line a rank can receive within a lifespan, at most one per halo vertex */
    int64_t cs = pc->hec_cs;
    if (cs <= 0) {
        const double want = (double)(pc->hec_ls + 1) * (double)(T->P - 1) * (double)T->nc;
        cs = want < (double)T->n_halo ? (int64_t)want : T->n_halo;
        if (cs < 1)
            cs = 1;
    }
    T->cs = cs;
    for (int l = 0; l < T->m.L; l++) {
        gnn_status st = gnn_hec_init(&T->hec[l], T->impl->hec, cs, in_width(T, l), pc->hec_ls, T->err);
        if (st)
            return st;
    }
    return GNN_OK;
}

gnn_status gnn_ptrain_setup(ptrainer *T)
{
    gnn_status st;
    T->n_solid = T->L->n_solid;
    T->n_halo = T->L->n_halo;
    T->n_local = T->L->n_solid + T->L->n_halo;
    T->f = embedding(T) ? T->pc.embed_dim : T->in->num_features;
    T->classes = T->in->num_classes;
    if (T->cfg.model == GNN_MODEL_RGCN) {
        T->cfg.relations = T->in->relations;
        if ((st = local_edge_types(T)))
            return st;
    }
    if ((st = gather_train_counts(T)) || (st = build_db_halo(T)) || (st = prepare_features(T)) ||
        (st = prepare_graphs(T)))
        return st;
    /* 5. the model, and the buffer of the gradient allreduce */
    if ((st = gnn_model_init(&T->m, &T->cfg, T->f, T->classes)))
        return st;
    T->m.etype = T->letype; /* the evaluation's blocks are the local graph's rows (train_part_eval.c) */
    for (int l = 0; l < T->m.L; l++)
        T->n_params += T->m.layer[l].count;
    if (T->P > 1 && !(T->gbuf = falloc(T->n_params)))
        return GNN_ERR_NOMEM;
    if (hec_mode(T) && (st = init_caches(T)))
        return st;
    return dist_sampling(T) ? GNN_OK : gnn_ptrain_pipe_start(T);
}

void gnn_ptrain_teardown(ptrainer *T)
{
    gnn_ptrain_pipe_stop(T); /* first: its worker reads the graph and the train ids */
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
    gnn_free(T->mprev_ids); /* Match and reorder (train_part_step.c) */
    gnn_free(T->mprev_x);
    gnn_free(T->mperm);
    gnn_sampler_destroy(T->sampler);
    gnn_model_free(&T->m);
    gnn_dsampler_destroy(T->dsampler);
    gnn_csr_free(&T->loops);
    gnn_csr_free(&T->gloops);
    gnn_free(T->normed);
    gnn_free(T->letype);
    gnn_free(T->emb0);
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
