/* core/train/train_part_step.c -- one step of distributed mini-batch training on a partition:
 * DistGNN-MB Algorithm 2, lines 6-24, then the backward pass, the gradient allreduce and Adam.
 * gnn_ptrain_step below is the algorithm, one named call per line; the functions above it are
 * those lines. The contract is include/gnnref/train_part.h; docs/hec.md section 7 explains
 * each choice, and its "Reading Algorithm 2 in the code" maps the lines to these functions.
 *
 * How a rank sees a vertex it does not own (the remote mode; one function each):
 *   hec   remote_hec: a halo row of layer l's input is loaded from the layer-l cache on a hit;
 *         on a miss the vertex leaves block l with its edges (line 11);
 *   drop  remote_drop: every halo is a miss;
 *   fetch remote_fetch: sampling runs on the whole topology, and the input features of every
 *         sampled vertex are pulled from its owner; there are no halos.
 * Blocks carry global ids once sampled (dropout is keyed by them, DESIGN.md section 2); hec and
 * drop keep each block's local source ids beside it, which say which rows are halos. */
#include <string.h>
#include "core/train/epoch.h"
#include "core/train/train_part_internal.h"
#include "gnnref/crc32c.h"

/* One step's working state. */
typedef struct pstep {
    const int64_t *seeds;         /* (n_seeds) local ids; n_seeds may be 0 */
    int64_t n_seeds;
    fwd_key key;                  /* training; key.step is the global step */
    int push;                     /* hec and k < M - d: this step pushes */
    gnn_block blk[GNN_MAX_LAYERS];
    int64_t *loc[GNN_MAX_LAYERS]; /* (blk[l].n_src) local ids of each block's sources (hec, drop) */
    lcache C[GNN_MAX_LAYERS];
    int64_t lookups[GNN_MAX_LAYERS], hits[GNN_MAX_LAYERS]; /* this step's halo searches and hits */
    double sums[2];               /* loss sum, sampled edges: summed over the ranks */
    double *phase;                /* the epoch's phase times */
    float *demb;                  /* sparse embeddings: (blk[0].n_src, f) d loss / d layer 0's input */
    int64_t k;                    /* the step within the epoch */
    float *x0;                    /* the pipeline's copy of layer 0's input rows (drop, hec), or NULL */
} pstep;

static void pstep_free(pstep *S)
{
    gnn_free(S->demb);
    gnn_free(S->x0);
    for (int l = 0; l < GNN_MAX_LAYERS; l++) {
        gnn_lcache_free(&S->C[l]);
        gnn_block_free(&S->blk[l]);
        gnn_free(S->loc[l]);
    }
}

/* ---- line 6: the mini-batch -------------------------------------------------------------- */
/* (the local and fetch sampling, gnn_ptrain_sample, is core/train/train_part_sample.c: the
 * pipeline's worker runs it too) */

/* Distributed sampling (DistDGLv2, dsample.h): every rank takes part in each hop's exchange,
 * also with no seeds; the blocks carry global ids, as fetch's, and are bitwise fetch's. */
static gnn_status sample_distributed(ptrainer *T, pstep *S)
{
    const gnn_train_config *c = &T->cfg;
    const int L = T->m.L;
    const double t0 = gnn_now_s();
    int64_t *gseeds = gnn_malloc((size_t)(S->n_seeds + 1) * sizeof(int64_t));
    if (!gseeds)
        return GNN_ERR_NOMEM;
    for (int64_t i = 0; i < S->n_seeds; i++)
        gseeds[i] = T->L->vid_o[S->seeds[i]];
    const gnn_sample_params base = { .seed = c->seed, .step = S->key.step };
    gnn_status st = gnn_dsample_blocks(T->dsampler, T->comm, gseeds, S->n_seeds, c->fanouts, L, &base, S->blk,
                                       &T->dstats);
    gnn_free(gseeds);
    if (st)
        return gnn_err_set(T->err, st, "distributed sampling: %s", gnn_comm_errmsg(T->comm));
    for (int l = 0; l < L; l++) {
        S->sums[1] += (double)S->blk[l].nnz;
        if (S->n_seeds == 0) /* an empty mini-batch has no blocks */
            gnn_block_free(&S->blk[l]);
    }
    S->phase[GNN_PHASE_SAMPLE] += gnn_now_s() - t0;
    return GNN_OK;
}

static gnn_status sample_blocks(ptrainer *T, pstep *S)
{
    if (dist_sampling(T))
        return sample_distributed(T, S);
    if (T->pipe) { /* prefetched by the worker (an empty mini-batch too: it has no blocks) */
        gnn_status st = gnn_ptrain_pipe_take(T, T->epoch, S->k, S->blk, S->loc, &S->x0, &S->sums[1],
                                             &S->phase[GNN_PHASE_SAMPLE]);
        const gnn_block *top = &S->blk[T->m.L - 1];
        if (!st && S->n_seeds && top->n_dst != S->n_seeds)
            st = GNN_ERR_INTERNAL;
        for (int64_t i = 0; !st && i < (S->n_seeds ? S->n_seeds : 0); i++)
            if (top->src_gid[i] != T->L->vid_o[S->seeds[i]]) /* the schedule's seeds, in order */
                st = GNN_ERR_INTERNAL;
        return st == GNN_ERR_INTERNAL && !T->err->msg[0]
                   ? gnn_err_set(T->err, st, "pipeline: the prefetched mini-batch of step %lld is not the schedule's",
                                 (long long)S->k)
                   : st;
    }
    if (S->n_seeds == 0)
        return GNN_OK;
    const double t0 = gnn_now_s();
    gnn_status st = gnn_ptrain_sample(T, T->sampler, S->seeds, S->n_seeds, S->key.step, S->blk, S->loc, &S->sums[1]);
    S->phase[GNN_PHASE_SAMPLE] += gnn_now_s() - t0;
    return st;
}

/* Layer l's input rows (n_src, in): layer 0 loads the features of its solid sources
 * (LoadMBFeatures; halo rows zero until remote_rows fills them; fetch pulls them all), a
 * higher layer copies the layer below's output (the next layer's sources are this layer's
 * destinations: same rows, same order). */
static gnn_status layer_input(ptrainer *T, pstep *S, int l)
{
    if (S->n_seeds == 0)
        return GNN_OK;
    const double t0 = gnn_now_s();
    const int64_t ns = S->blk[l].n_src, in = in_width(T, l);
    lcache *C = &S->C[l];
    if (l == 0 && S->x0) { /* copied ahead by the pipeline's worker */
        C->x = S->x0;
        S->x0 = NULL;
        return GNN_OK;
    }
    if (!(C->x = falloc(ns * in)))
        return GNN_ERR_NOMEM;
    if (l > 0)
        memcpy(C->x, S->C[l - 1].y, (size_t)(ns * in) * sizeof(float));
    else if (local_mode(T))
        for (int64_t i = 0; i < ns; i++) {
            if (S->loc[0][i] < T->n_solid)
                memcpy(C->x + i * in, T->fsolid + S->loc[0][i] * in, (size_t)in * sizeof(float));
            else
                memset(C->x + i * in, 0, (size_t)in * sizeof(float));
        }
    S->phase[GNN_PHASE_FORWARD] += gnn_now_s() - t0;
    return GNN_OK;
}

/* ---- lines 10-12: the rows this rank does not own, by remote mode ------------------------- */

/* The halo sources of block l (@alg{DistGNN-MB 2, line 10}, findHaloNodes): their rows in
 * the block and their global ids (the cache's tags), and what the cache gives for them. */
typedef struct halos {
    int64_t n;
    int64_t *row, *vid;           /* (n) */
    int64_t *line;                /* (n) the cache line of a hit, GNN_HEC_MISS otherwise */
    float *emb;                   /* (n, dim) the hits' embeddings (hec) */
} halos;

static void halos_free(halos *h)
{
    gnn_free(h->row);
    gnn_free(h->vid);
    gnn_free(h->line);
    gnn_free(h->emb);
}

static gnn_status find_halos(const ptrainer *T, const pstep *S, int l, halos *h)
{
    const int64_t ns = S->blk[l].n_src, *loc = S->loc[l];
    memset(h, 0, sizeof *h);
    for (int64_t i = 0; i < ns; i++)
        h->n += loc[i] >= T->n_solid;
    if (h->n == 0)
        return GNN_OK;
    h->row = gnn_malloc((size_t)h->n * sizeof(int64_t));
    h->vid = gnn_malloc((size_t)h->n * sizeof(int64_t));
    h->line = gnn_malloc((size_t)h->n * sizeof(int64_t));
    if (!h->row || !h->vid || !h->line)
        return GNN_ERR_NOMEM;
    int64_t j = 0;
    for (int64_t i = 0; i < ns; i++)
        if (loc[i] >= T->n_solid) {
            h->row[j] = i;
            h->vid[j++] = T->L->vid_o[loc[i]];
        }
    return GNN_OK;
}

/* Put the halos into layer l's input x (n_src, dim): a hit's row is its cached embedding; a
 * miss's row is zeroed and, @alg{DistGNN-MB 2, line 11}, the vertex leaves the block with its
 * edges, so its solid neighbors aggregate over the rest. Counts the lookups and hits. */
static gnn_status place_halos(ptrainer *T, pstep *S, int l, const halos *h)
{
    gnn_block *b = &S->blk[l];
    float *x = S->C[l].x;
    const int64_t dim = in_width(T, l);
    int64_t hits = 0;
    uint8_t *miss = h->n ? gnn_calloc((size_t)b->n_src, 1) : NULL;
    if (h->n && !miss)
        return GNN_ERR_NOMEM;
    for (int64_t j = 0; j < h->n; j++) {
        float *row = x + h->row[j] * dim;
        if (h->line[j] != GNN_HEC_MISS) {
            memcpy(row, h->emb + j * dim, (size_t)dim * sizeof(float));
            hits++;
        } else {
            memset(row, 0, (size_t)dim * sizeof(float));
            miss[h->row[j]] = 1;
        }
    }
    if (hits < h->n) {
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
    gnn_free(miss);
    S->lookups[l] = h->n;
    S->hits[l] = hits;
    T->lookups[l] += h->n;
    T->hits[l] += hits;
    return GNN_OK;
}

/* hec, @alg{DistGNN-MB 2, lines 11-12}: HECSearch the halos in the layer-l cache (a hit needs
 * the tag present and age <= ls), HECLoad the hits. */
static gnn_status remote_hec(ptrainer *T, int l, halos *h)
{
    gnn_status st = gnn_hec_search(&T->hec[l], h->vid, h->n, h->line, T->err);
    if (!st && !(h->emb = falloc(h->n * in_width(T, l))))
        st = GNN_ERR_NOMEM;
    if (!st)
        st = gnn_hec_load(&T->hec[l], h->line, h->n, h->emb, T->err);
    return st;
}

/* drop: the lower bound, no cache and no push: every halo misses. */
static gnn_status remote_drop(ptrainer *T, int l, halos *h)
{
    (void)T;
    (void)l;
    for (int64_t j = 0; j < h->n; j++)
        h->line[j] = GNN_HEC_MISS;
    return GNN_OK;
}

/* hec and drop: find layer l's halos (line 10), look them up by the mode, put them into the
 * input (a miss leaves the block, line 11). */
static gnn_status halo_rows(ptrainer *T, pstep *S, int l, gnn_status (*lookup)(ptrainer *, int, halos *))
{
    if (S->n_seeds == 0)
        return GNN_OK;
    halos h;
    gnn_status st = find_halos(T, S, l, &h);
    if (!st && h.n > 0)
        st = lookup(T, l, &h);
    if (!st)
        st = place_halos(T, S, l, &h);
    halos_free(&h);
    return st;
}

/* fetch with Match (FastGL section 4.1, reorder.h): pull only S_k \ S_{k-1}, the ids this rank's
 * previous pull did not have, and assemble the input from those rows and the previous batch's;
 * then keep this batch's ids and rows (before dropout, which works in place) for the next. The
 * rows are copied bytes: the input is bitwise the plain pull's. */
static gnn_status fetch_match(ptrainer *T, pstep *S)
{
    const gnn_reorder_ops *ops = T->impl->reorder;
    const int64_t n = S->blk[0].n_src, in = in_width(T, 0), *ids = S->blk[0].src_gid;
    gnn_match_plan p;
    gnn_status st = gnn_match_plan_build(ops, T->mprev_ids, T->mprev_n, ids, n, &p);
    float *loaded = st ? NULL : falloc(p.n_load * in);
    if (!st && !loaded)
        st = GNN_ERR_NOMEM;
    if (!st) /* collective: every rank pulls, each its own new ids */
        st = gnn_kvstore_pull(&T->kv, p.load_ids, p.n_load, loaded, T->err);
    if (!st)
        st = gnn_match_assemble(ops, &p, T->mprev_x, loaded, in, S->C[0].x);
    T->match_rows += st ? 0 : n;
    T->match_loaded += st ? 0 : p.n_load;
    gnn_free(loaded);
    gnn_match_plan_free(&p);
    int64_t *keep_ids = st ? NULL : gnn_malloc_array((size_t)n + 1, sizeof(int64_t));
    float *keep_x = st ? NULL : falloc(n * in);
    if (!st && (!keep_ids || !keep_x))
        st = GNN_ERR_NOMEM;
    if (st) {
        gnn_free(keep_ids);
        gnn_free(keep_x);
        return st;
    }
    memcpy(keep_ids, ids, (size_t)n * sizeof(int64_t));
    memcpy(keep_x, S->C[0].x, (size_t)(n * in) * sizeof(float));
    gnn_free(T->mprev_ids);
    gnn_free(T->mprev_x);
    T->mprev_ids = keep_ids;
    T->mprev_x = keep_x;
    T->mprev_n = n;
    return GNN_OK;
}

/* fetch: the exact baseline (hybrid partitioning), no algorithm line: layer 0's input rows of
 * every sampled vertex pulled from its owner through the feature store (with pc.match only
 * those the previous mini-batch lacks). Higher layers have every row computed below. A rank
 * without a mini-batch still takes part in the pull (and keeps its previous batch's rows). */
static gnn_status remote_fetch(ptrainer *T, pstep *S, int l)
{
    if (l > 0)
        return GNN_OK;
    const gnn_kv_stats *kt = &T->kv.total;
    const int64_t b0 = kt->bytes_header_sent + kt->bytes_ids_sent + kt->bytes_rows_sent;
    float none;
    gnn_status st = S->n_seeds && T->pc.match ? fetch_match(T, S)
                    : S->n_seeds ? gnn_kvstore_pull(&T->kv, S->blk[0].src_gid, S->blk[0].n_src, S->C[0].x, T->err)
                                 : gnn_kvstore_pull(&T->kv, NULL, 0, &none, T->err);
    if (!st && S->n_seeds)
        T->pull_bytes += kt->bytes_header_sent + kt->bytes_ids_sent + kt->bytes_rows_sent - b0;
    return st;
}

/* The rows of layer l's input that this rank does not own, by the remote mode (the mode's
 * communication-side time: comm_post). */
static gnn_status remote_rows(ptrainer *T, pstep *S, int l)
{
    const double t0 = gnn_now_s();
    gnn_status st = GNN_OK;
    switch (T->pc.remote) {
    case GNN_REMOTE_HEC: st = halo_rows(T, S, l, remote_hec); break;
    case GNN_REMOTE_DROP: st = halo_rows(T, S, l, remote_drop); break;
    case GNN_REMOTE_FETCH: st = remote_fetch(T, S, l); break;
    }
    S->phase[GNN_PHASE_COMM_POST] += gnn_now_s() - t0;
    return st;
}

/* ---- lines 14-24 are core/train/train_part_push.c; the rest of the step ------------------------- */

/* Layer l's forward (AGG and UPDATE, DistGNN-MB Eq. 1-2): keyed dropout of its input (after
 * the push took the rows: the receiver applies its own dropout, keyed by the vertex), then the
 * layer. */
static gnn_status forward_layer(ptrainer *T, pstep *S, int l)
{
    if (S->n_seeds == 0)
        return GNN_OK;
    const gnn_train_config *c = &T->cfg;
    const double t0 = gnn_now_s();
    const int64_t ns = S->blk[l].n_src, in = in_width(T, l);
    lcache *C = &S->C[l];
    gnn_status st = GNN_OK;
    if (c->dropout > 0.0f) { /* the context's table (--impl): the threaded one under opt */
        if (!(C->mask = falloc(ns * in)))
            return GNN_ERR_NOMEM;
        st = gnn_nn_dropout_fwd(T->m.nn, C->x, ns, in, S->blk[l].src_gid, c->dropout, c->seed, S->key.step,
                                (unsigned)l, C->mask);
    }
    if (!st)
        st = gnn_layer_fwd(&T->m, l, &S->blk[l], C, &S->key);
    S->phase[GNN_PHASE_FORWARD] += gnn_now_s() - t0;
    return st;
}

static uint32_t hec_crc(const gnn_hec *h)
{
    uint32_t c = gnn_crc32c(0, h->tag, (size_t)h->cs * sizeof(int64_t));
    c = gnn_crc32c(c, h->age, (size_t)h->cs * sizeof(int32_t));
    c = gnn_crc32c(c, h->emb, (size_t)(h->cs * h->dim) * sizeof(float));
    return gnn_crc32c(c, &h->wp, sizeof h->wp);
}

/* The caller's view of the HEC pipeline after this step's loads and posts (hec mode). */
static void trace_step(ptrainer *T, const pstep *S)
{
    if (!T->pc.on_trace || !hec_mode(T))
        return;
    for (int l = 0; l < T->m.L; l++) {
        gnn_part_trace t = { .rank = T->rank, .epoch = T->epoch, .layer = l, .step = S->key.step,
                             .received = T->step_received[l], .lookups = S->lookups[l], .hits = S->hits[l],
                             .pushed = T->step_pushed, .cnt = T->hec[l].cnt, .state_crc = hec_crc(&T->hec[l]) };
        T->pc.on_trace(&t, T->pc.trace_ctx);
    }
}

/* The loss over the labelled seeds, divided by the global batch's count denom, and the
 * backward pass. The gradient of every halo row of a layer's input is zeroed before it flows
 * to the layer below: that input came from the cache (or nowhere), not from the rows below.
 * An empty mini-batch contributes zero gradients. */
static gnn_status loss_and_backward(ptrainer *T, pstep *S, double denom)
{
    model *m = &T->m;
    const int L = m->L;
    const double t0 = gnn_now_s();
    if (S->n_seeds == 0) {
        gnn_model_zero_grads(m);
        S->phase[GNN_PHASE_BACKWARD] += gnn_now_s() - t0;
        return GNN_OK;
    }
    const int64_t classes = m->layer[L - 1].out;
    int32_t *lab = gnn_malloc((size_t)S->n_seeds * sizeof(int32_t));
    float *dy = falloc(S->n_seeds * classes), *dx = NULL;
    gnn_status st = GNN_ERR_NOMEM;
    if (!lab || !dy)
        goto done;
    for (int64_t i = 0; i < S->n_seeds; i++)
        lab[i] = T->in->labels[S->seeds[i]];
    S->sums[0] = gnn_softmax_xent_sum(S->C[L - 1].y, S->n_seeds, classes, lab, denom, dy, NULL);
    for (int l = L - 1; l >= 0; l--) {
        const int64_t ns = S->blk[l].n_src, in = m->layer[l].in;
        const int need_dx = l > 0 || embedding(T); /* embeddings: layer 0's input gradient is pushed */
        if (need_dx && !(dx = falloc(ns * in))) {
            st = GNN_ERR_NOMEM;
            goto done;
        }
        if ((st = gnn_layer_bwd(m, l, &S->blk[l], &S->C[l], &S->key, dy, need_dx ? dx : NULL)))
            goto done;
        if (l > 0 && local_mode(T)) /* a halo row's input came from the cache: no gradient below it */
            for (int64_t i = 0; i < ns; i++)
                if (S->loc[l][i] >= T->n_solid)
                    memset(dx + i * in, 0, (size_t)in * sizeof(float));
        gnn_free(dy);
        dy = dx; /* d loss / d y[l-1] */
        dx = NULL;
    }
    S->phase[GNN_PHASE_BACKWARD] += gnn_now_s() - t0;
    if (embedding(T)) { /* d loss / d (layer 0's input rows): the embeddings' gradient */
        S->demb = dy;
        dy = NULL;
    }
    st = GNN_OK;
done:
    gnn_free(lab);
    gnn_free(dy);
    gnn_free(dx);
    return st;
}

/* Sparse embeddings: push the gradient of every layer-0 input row to its owner, which applies
 * the sparse optimizer (collective: an empty mini-batch pushes nothing but takes part). The
 * rows are this step's pulls, so the next pull reads the updated rows. */
static gnn_status embed_push(ptrainer *T, pstep *S)
{
    if (!embedding(T))
        return GNN_OK;
    const double t0 = gnn_now_s();
    gnn_sparse_opt o;
    gnn_sparse_opt_defaults(&o, (gnn_sparse_opt_kind)T->pc.embed_opt, T->pc.embed_lr);
    const float none = 0.0f;
    int64_t m = S->n_seeds && S->demb ? S->blk[0].n_src : 0;
    const int64_t *ids = m ? S->blk[0].src_gid : NULL;
    const float *rows = m ? S->demb : &none;
    int64_t *keep = NULL;
    const uint8_t *learn = T->in->learn_input;
    if (m && learn) { /* only the featureless types' rows learn: pack them, in source order */
        if (!(keep = gnn_malloc((size_t)m * sizeof(int64_t))))
            return GNN_ERR_NOMEM;
        int64_t k = 0;
        for (int64_t i = 0; i < m; i++)
            if (learn[ids[i]]) {
                keep[k] = ids[i];
                if (k != i)
                    memmove(S->demb + k * T->f, S->demb + i * T->f, (size_t)T->f * sizeof(float));
                k++;
            }
        ids = keep;
        m = k;
    }
    gnn_status st = gnn_kvstore_push(&T->kv, m ? ids : NULL, m, m ? rows : &none, &o, T->err);
    gnn_free(keep);
    S->phase[GNN_PHASE_COMM] += gnn_now_s() - t0;
    return st;
}

/* ---- FastGL's reorder (section 4.1, @alg{FastGL 1}) of the fetch steps ------------------------ */

/* The window [k0, k0 + m) of the epoch: each batch sampled with its original step, its input set
 * kept; the overlap counts summed over the ranks (exact in f64 below 2^53); the greedy order. */
static gnn_status plan_window(ptrainer *T, const int64_t *order, int64_t k0, int64_t m, uint32_t step0)
{
    const int64_t n = m;
    int64_t **sets = gnn_calloc((size_t)n, sizeof(int64_t *)), *len = gnn_calloc((size_t)n, sizeof(int64_t));
    int64_t *ov = gnn_malloc_array((size_t)(n * n), sizeof(int64_t)), *w = gnn_malloc_array((size_t)n, sizeof(int64_t));
    double *d = gnn_malloc_array((size_t)(n * n), sizeof(double));
    gnn_status st = sets && len && ov && w && d ? GNN_OK : GNN_ERR_NOMEM;
    for (int64_t b = 0; b < n && !st; b++) {
        int64_t b0, nb;
        gnn_ptrain_batch_slice(T->n_train, k0 + b, T->steps, T->cfg.batch, T->P, &b0, &nb);
        if (nb == 0)
            continue; /* an empty batch: an empty set */
        gnn_block blk[GNN_MAX_LAYERS];
        int64_t *loc[GNN_MAX_LAYERS] = { NULL };
        double edges = 0.0;
        memset(blk, 0, sizeof blk);
        st = gnn_ptrain_sample(T, T->sampler, order + b0, nb, step0 + (uint32_t)b, blk, loc, &edges);
        if (!st && !(sets[b] = gnn_malloc_array((size_t)blk[0].n_src + 1, sizeof(int64_t))))
            st = GNN_ERR_NOMEM;
        if (!st) {
            memcpy(sets[b], blk[0].src_gid, (size_t)blk[0].n_src * sizeof(int64_t));
            len[b] = blk[0].n_src;
        }
        for (int l = 0; l < GNN_MAX_LAYERS; l++)
            gnn_block_free(&blk[l]);
    }
    if (!st)
        st = gnn_match_degree(T->impl->reorder, (const int64_t *const *)sets, len, n, ov);
    for (int64_t i = 0; !st && i < n * n; i++)
        d[i] = (double)ov[i];
    if (!st && T->P > 1 && (st = gnn_comm_allreduce(T->comm, d, d, n * n, GNN_DT_F64)))
        gnn_err_set(T->err, st, "reorder: summing the overlap counts: %s", gnn_comm_errmsg(T->comm));
    for (int64_t i = 0; !st && i < n * n; i++)
        ov[i] = (int64_t)d[i];
    if (!st && !(st = gnn_greedy_reorder(T->impl->reorder, ov, n, (gnn_match_norm)T->pc.match_norm, w)))
        for (int64_t i = 0; i < n; i++)
            T->mperm[k0 + i] = k0 + w[i];
    for (int64_t b = 0; sets && b < n; b++)
        gnn_free(sets[b]);
    gnn_free(sets);
    gnn_free(len);
    gnn_free(ov);
    gnn_free(w);
    gnn_free(d);
    return st;
}

gnn_status gnn_ptrain_reorder(ptrainer *T, const int64_t *order, int64_t k, uint32_t step, int64_t *j, double *phase)
{
    const int64_t M = T->steps, W = T->pc.reorder_window == 0 || T->pc.reorder_window > M ? M : T->pc.reorder_window;
    if (!T->mperm && !(T->mperm = gnn_malloc_array((size_t)M, sizeof(int64_t))))
        return GNN_ERR_NOMEM;
    if (k % W == 0) { /* a window starts: sample it, order it (every rank at the same step) */
        const double t0 = gnn_now_s();
        gnn_status st = plan_window(T, order, k, M - k < W ? M - k : W, step);
        phase[GNN_PHASE_SAMPLE] += gnn_now_s() - t0;
        if (st)
            return st;
    }
    *j = T->mperm[k];
    return GNN_OK;
}

/* ---- Algorithm 2, one step ---------------------------------------------------------------- */

gnn_status gnn_ptrain_step(ptrainer *T, const int64_t *seeds, int64_t n_seeds, double denom, int64_t k, uint32_t step,
                           uint32_t key_step, double *loss, gnn_epoch_stats *E)
{
    const gnn_train_config *c = &T->cfg;
    const int hec = hec_mode(T);
    pstep S;
    memset(&S, 0, sizeof S);
    S.seeds = seeds;
    S.n_seeds = n_seeds;
    S.k = k;
    S.key = (fwd_key){ .train = 1, .attn_drop = c->attn_dropout, .seed = c->seed, .step = key_step };
    S.phase = E->phase_s;
    S.push = hec && k < T->steps - T->pc.hec_delay; /* @alg{DistGNN-MB 2, line 14}: k < M - d */
    T->step_pushed = 0;
    gnn_status st = GNN_OK;

    /* @alg{DistGNN-MB 2, lines 7-9}: if k >= d, comm_wait and HECStore, every layer */
    if (hec && (st = gnn_ptrain_receive(T, k, S.phase)))
        goto done;
    /* @alg{DistGNN-MB 2, line 6}: the mini-batch (its blocks; layer 0's features below) */
    if ((st = sample_blocks(T, &S)))
        goto done;
    for (int l = 0; l < T->m.L; l++) { /* "at each layer" (line 5) */
        /* @alg{DistGNN-MB 2, line 6}: LoadMBFeatures, or the layer below's output */
        if ((st = layer_input(T, &S, l)))
            goto done;
        /* @alg{DistGNN-MB 2, lines 10-12}: findHaloNodes, HECSearch, HECLoad (by remote mode) */
        if ((st = remote_rows(T, &S, l)))
            goto done;
        /* @alg{DistGNN-MB 2, lines 15-23}: findSolidNodes, Map, Sample, gather */
        if (S.push && (st = gnn_ptrain_pack(T, l, n_seeds ? &S.blk[l] : NULL, S.loc[l], S.C[l].x, step, S.phase)))
            goto done;
        /* AGG and UPDATE on the mini-batch (section 3.2: "followed by UPDATE") */
        if ((st = forward_layer(T, &S, l)))
            goto done;
    }
    /* @alg{DistGNN-MB 2, line 24}: AlltoallAsync, received d steps later */
    if (S.push && (st = gnn_ptrain_post(T, k, S.phase)))
        goto done;
    trace_step(T, &S);
    if ((st = loss_and_backward(T, &S, denom)) || (st = embed_push(T, &S)))
        goto done;
    /* every rank applies the same update: allreduce (ARed), then Adam */
    if ((st = gnn_step_reduce_update(&T->m, c, T->comm, T->gbuf, T->n_params, step, S.sums, S.phase))) {
        gnn_err_set(T->err, st, "allreduce: %s", gnn_comm_errmsg(T->comm));
        goto done;
    }
    *loss = S.sums[0] / denom;
    E->edges_sampled += (int64_t)S.sums[1];
done:
    pstep_free(&S);
    return st;
}
