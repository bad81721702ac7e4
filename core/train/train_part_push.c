/* core/train/train_part_push.c -- the Asynchronous Embedding Push of DistGNN-MB (section 3.2.1,
 * Algorithm 2 lines 7-9 and 14-24), hec mode: each rank sends, per layer and remote rank r,
 * at most nc of its mini-batch's solid vertices that are halos on r, with their layer-l input,
 * by one ialltoallv per layer posted at step k and waited for at step k + d, where the pairs
 * are stored into the receiver's layer-l cache. docs/hec.md sections 1 and 7 state the rules.
 *
 * A pair travels as 2 + dim floats: the global id's 8 bytes, then the embedding. The receiver
 * stores the pairs in the order received (rank order of the segments, each in the sender's
 * order): the cache's state, which the oracle compares bitwise, depends on that order. */
#include <string.h>
#include "core/train/train_part_internal.h"
#include "gnnref/aep.h"

static int64_t pair_width(int64_t dim) { return 2 + dim; }

/* ---- the sender: lines 15-24 ------------------------------------------------------------- */

/* Layer l's push candidates: for each rank r, the solid sources of the block that are halos
 * on r (@alg{DistGNN-MB 2, line 15}, findSolidNodes, and @alg{DistGNN-MB 2, line 18}, Map
 * through db_halo's inverse), in source order, grouped by rank: candidate j of rank r is at
 * off[r] + j. For each: its source row, global id and local in-degree. */
typedef struct cands {
    int64_t *off;                 /* (P + 1) */
    int64_t *row, *vid, *deg;     /* (off[P]) */
} cands;

static void cands_free(cands *c)
{
    gnn_free(c->off);
    gnn_free(c->row);
    gnn_free(c->vid);
    gnn_free(c->deg);
}

static gnn_status find_candidates(const ptrainer *T, int64_t ns, const int64_t *loc, cands *c)
{
    const int P = T->P;
    memset(c, 0, sizeof *c);
    int64_t *n = gnn_calloc((size_t)P + 1, sizeof(int64_t));
    c->off = gnn_malloc((size_t)(P + 1) * sizeof(int64_t));
    if (!n || !c->off) {
        gnn_free(n);
        return GNN_ERR_NOMEM;
    }
    for (int64_t i = 0; i < ns; i++)
        if (loc[i] < T->n_solid)
            for (int64_t j = T->hr_off[loc[i]]; j < T->hr_off[loc[i] + 1]; j++)
                n[T->hr[j]]++;
    c->off[0] = 0;
    for (int r = 0; r < P; r++)
        c->off[r + 1] = c->off[r] + n[r];
    const int64_t total = c->off[P];
    c->row = gnn_malloc((size_t)(total + 1) * sizeof(int64_t));
    c->vid = gnn_malloc((size_t)(total + 1) * sizeof(int64_t));
    c->deg = gnn_malloc((size_t)(total + 1) * sizeof(int64_t));
    if (!c->row || !c->vid || !c->deg) {
        gnn_free(n);
        return GNN_ERR_NOMEM;
    }
    memset(n, 0, (size_t)P * sizeof(int64_t));
    for (int64_t i = 0; i < ns; i++) {
        const int64_t v = loc[i];
        if (v >= T->n_solid)
            continue;
        for (int64_t j = T->hr_off[v]; j < T->hr_off[v + 1]; j++) {
            const int r = (int)T->hr[j];
            const int64_t k = c->off[r] + n[r]++;
            c->row[k] = i;
            c->vid[k] = T->L->vid_o[v];
            c->deg[k] = T->L->graph.indptr[v + 1] - T->L->graph.indptr[v];
        }
    }
    gnn_free(n);
    return GNN_OK;
}

/* An empty push for layer l: a rank without a mini-batch still takes part in the ialltoallv. */
static gnn_status pack_empty(ptrainer *T, int l)
{
    memset(T->pack_cnt[l], 0, sizeof T->pack_cnt[l]);
    gnn_free(T->pack[l]);
    T->pack[l] = falloc(1);
    return T->pack[l] ? GNN_OK : GNN_ERR_NOMEM;
}

/* Keep at most nc of each rank's candidates (@alg{DistGNN-MB 2, lines 19-20}: Sample by
 * degree, aep.h) and gather them with their embedding rows of x (n_src, dim) into T->pack[l]
 * (@alg{DistGNN-MB 2, line 22}), with the counts and displacements of the ialltoallv. */
static gnn_status choose_and_gather(ptrainer *T, int l, const cands *c, const float *x, uint32_t step)
{
    const int P = T->P;
    const int64_t dim = in_width(T, l), w = pair_width(dim), total = c->off[P];
    uint8_t *keep = gnn_malloc((size_t)(total + 1));
    gnn_status st = GNN_ERR_NOMEM;
    if (!keep)
        return st;
    int64_t kept_total = 0, *sc = T->pack_cnt[l], *sd = T->pack_cnt[l] + P;
    for (int r = 0; r < P; r++) {
        const gnn_aep_select_args a = { .vid_o = c->vid + c->off[r], .deg = c->deg + c->off[r],
                                        .m = c->off[r + 1] - c->off[r], .nc = T->nc, .seed = T->cfg.seed,
                                        .step = step, .layer = l, .dst_rank = r };
        int64_t kept = 0;
        if ((st = gnn_aep_select(T->impl->aep, &a, keep + c->off[r], &kept, T->err)))
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
            memcpy(row, &c->vid[k], sizeof(int64_t));
            memcpy(row + 2, x + c->row[k] * dim, (size_t)dim * sizeof(float));
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
    gnn_free(keep);
    return st;
}

gnn_status gnn_ptrain_pack(ptrainer *T, int l, const gnn_block *b, const int64_t *loc, const float *x, uint32_t step,
                           double *phase)
{
    const double t0 = gnn_now_s();
    gnn_status st;
    if (!b) {
        st = pack_empty(T, l);
    } else {
        cands c;
        st = find_candidates(T, b->n_src, loc, &c);
        if (!st)
            st = choose_and_gather(T, l, &c, x, step);
        cands_free(&c);
    }
    phase[GNN_PHASE_COMM_PRE] += gnn_now_s() - t0;
    return st;
}

gnn_status gnn_ptrain_post(ptrainer *T, int64_t k, double *phase)
{
    const double t0 = gnn_now_s();
    push *s = &T->inflight[k % T->pc.hec_delay];
    gnn_status st = GNN_OK;
    for (int l = 0; l < T->m.L && !st; l++) {
        st = gnn_comm_ialltoallv(T->comm, T->pack[l], T->pack_cnt[l], T->pack_cnt[l] + T->P, GNN_DT_F32,
                                 T->pc.tag_base + l, &s->req[l]);
        if (st) {
            gnn_err_set(T->err, st, "posting the push of layer %d: %s", l, gnn_comm_errmsg(T->comm));
            break;
        }
        s->buf[l] = T->pack[l]; /* must stay unchanged until the wait */
        T->pack[l] = NULL;
    }
    phase[GNN_PHASE_COMM_PRE] += gnn_now_s() - t0;
    return st;
}

/* ---- the receiver: lines 7-9 ------------------------------------------------------------- */

/* @alg{DistGNN-MB 2, line 9}, HECStore: the pairs of layer l's received segments, in the order
 * received. Each must be a whole number of pairs, and each id a halo of this rank. */
static gnn_status store_pairs(ptrainer *T, int l, const gnn_comm_seg *segs, int n_segs)
{
    const int64_t dim = in_width(T, l), w = pair_width(dim);
    int64_t m = 0;
    for (int i = 0; i < n_segs; i++) {
        if (segs[i].count % w)
            return gnn_err_set(T->err, GNN_ERR_FORMAT, "a push of layer %d from rank %d has %lld floats, "
                               "not a multiple of %lld", l, segs[i].src, (long long)segs[i].count, (long long)w);
        m += segs[i].count / w;
    }
    int64_t *ids = gnn_malloc((size_t)(m + 1) * sizeof(int64_t));
    float *emb = falloc(m * dim);
    gnn_status st = GNN_ERR_NOMEM;
    if (!ids || !emb)
        goto done;
    int64_t j = 0;
    for (int i = 0; i < n_segs; i++) {
        const float *p = segs[i].data;
        for (int64_t q = 0; q < segs[i].count / w; q++, j++) {
            memcpy(&ids[j], p + q * w, sizeof(int64_t));
            memcpy(emb + j * dim, p + q * w + 2, (size_t)dim * sizeof(float));
            const int64_t id = ids[j];
            if (id < 0 || id >= T->in->n_global || T->L->vid_p[id] < T->n_solid) {
                st = gnn_err_set(T->err, GNN_ERR_INTERNAL, "rank %d pushed vertex %lld at layer %d, which is not "
                                 "a halo of rank %d", segs[i].src, (long long)id, l, T->rank);
                goto done;
            }
        }
    }
    if ((st = gnn_hec_store(&T->hec[l], ids, emb, m, T->err)))
        goto done;
    T->received[l] += m;
    T->step_received[l] = m;
done:
    gnn_free(ids);
    gnn_free(emb);
    return st;
}

gnn_status gnn_ptrain_receive(ptrainer *T, int64_t k, double *phase)
{
    const double t0 = gnn_now_s();
    const int d = T->pc.hec_delay;
    push *s = &T->inflight[k % d];
    gnn_status st = GNN_OK;
    for (int l = 0; l < T->m.L && !st; l++) {
        T->step_received[l] = 0;
        if (k < d) { /* @alg{DistGNN-MB 2, line 7}: nothing was posted d steps ago */
            gnn_hec_age(&T->hec[l]);
            continue;
        }
        const gnn_comm_seg *segs = NULL;
        int n_segs = 0;
        /* @alg{DistGNN-MB 2, line 8}: comm_wait */
        if ((st = gnn_comm_wait(T->comm, s->req[l], &segs, &n_segs))) {
            gnn_err_set(T->err, st, "receiving the push of layer %d: %s", l, gnn_comm_errmsg(T->comm));
            break;
        }
        gnn_hec_age(&T->hec[l]); /* aging comes before storing: a line stored now is searched at age 0 */
        if ((st = store_pairs(T, l, segs, n_segs)))
            break;
        gnn_comm_req_free(T->comm, s->req[l]);
        s->req[l] = NULL;
        gnn_free(s->buf[l]);
        s->buf[l] = NULL;
    }
    phase[GNN_PHASE_COMM_POST] += gnn_now_s() - t0;
    return st;
}
