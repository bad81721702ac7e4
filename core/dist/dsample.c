/* core/dist/dsample.c -- DistDGLv2's distributed neighbor sampling (include/gnnref/dsample.h,
 * docs/dist_sampling.md; @sec{DistDGLv2 3.3}, section 4.2.2; next-capabilities.md C.2).
 *
 * It has no ref/opt pair of its own: the owner's sampling runs the sampler ops it is given (the
 * implementation context's: gnn_sampler_ref or gnn_sampler_cpu) on the part's local graph, and
 * the requester's block is built by the ID map it is given. This file is the protocol: split,
 * request, sample, reply, stitch. */
#include <stdlib.h>
#include <string.h>
#include "gnnref/dsample.h"
#include "gnnref/tensor.h"

struct gnn_dsampler {
    const gnn_part_local *L;
    const int32_t *owner;
    int64_t n, k;
    const float *w;
    gnn_sampler *smp; /* on L->graph, drawing with VID_o */
    gnn_idmap *map;   /* builds the requester's blocks */
};

void gnn_dsampler_destroy(gnn_dsampler *s)
{
    if (!s)
        return;
    gnn_sampler_destroy(s->smp);
    gnn_idmap_destroy(s->map);
    free(s);
}

gnn_status gnn_dsampler_create(gnn_dsampler **out, const gnn_part_local *L, const int32_t *owner, int64_t n_global,
                               int64_t k, const float *local_weights, const gnn_sampler_ops *sampler,
                               const gnn_idmap_ops *idmap, gnn_idmap_kind kind, gnn_err *err)
{
    if (!out)
        return gnn_err_set(err, GNN_ERR_INVAL, "distributed sampler: NULL output");
    *out = NULL;
    if (!L || !sampler || !idmap || (!owner && n_global > 0))
        return gnn_err_set(err, GNN_ERR_INVAL, "distributed sampler: NULL part, part vector, sampler or ID map");
    if (n_global < 0 || k < 1 || k > INT32_MAX || L->rank < 0 || L->rank >= k)
        return gnn_err_set(err, GNN_ERR_INVAL, "distributed sampler: n %lld, k %lld, rank %lld out of range",
                           (long long)n_global, (long long)k, (long long)L->rank);
    if ((unsigned)kind >= GNN_IDMAP_KIND_COUNT)
        return gnn_err_set(err, GNN_ERR_INVAL, "distributed sampler: ID map kind %d", (int)kind);
    gnn_dsampler *s = calloc(1, sizeof *s);
    if (!s)
        return gnn_err_set(err, GNN_ERR_NOMEM, "out of memory");
    *s = (gnn_dsampler){ .L = L, .owner = owner, .n = n_global, .k = k, .w = local_weights };
    gnn_sampler_options o;
    gnn_sampler_defaults(&o);
    o.idmap = GNN_IDMAP_DENSE; /* the owner only reads each row's draws: any ordered map */
    gnn_status st = gnn_sampler_create(&s->smp, sampler, &L->graph, &o);
    if (!st)
        st = gnn_idmap_create(&s->map, idmap, kind, n_global);
    if (st) {
        gnn_dsampler_destroy(s);
        return gnn_err_set(err, st, "distributed sampler: %s", gnn_status_str(st));
    }
    *out = s;
    return GNN_OK;
}

gnn_status gnn_dsample_local_weights(const gnn_part_local *L, const gnn_csr *g, const float *w, float *out,
                                     gnn_err *err)
{
    if (!L || !g || !w || (!out && L->graph.nnz > 0))
        return gnn_err_set(err, GNN_ERR_INVAL, "local weights: NULL argument");
    for (int64_t v = 0; v < L->n_solid; v++) {
        const int64_t gv = L->vid_o[v], lo = L->graph.indptr[v], d = L->graph.indptr[v + 1] - lo;
        if (gv < 0 || gv >= g->n || g->indptr[gv + 1] - g->indptr[gv] != d)
            return gnn_err_set(err, GNN_ERR_INVAL, "local weights: local row %lld (vertex %lld) is not its global row",
                               (long long)v, (long long)gv);
        memcpy(out + lo, w + g->indptr[gv], (size_t)d * sizeof(float));
    }
    return GNN_OK;
}

/* ---- one hop ------------------------------------------------------------------------------------ */

/* The request header a requester sends every rank: how many ids follow, and the keys the owner
 * draws with. */
enum { H_N, H_SEED, H_STEP, H_LAYER, H_FANOUT, H_REPLACE, H_WORDS };

typedef struct hop {
    int P, me;
    int64_t *cnt, *sdsp, *rcnt, *rdsp; /* (P) ids I ask of each rank / their offsets; ids asked of me */
    int64_t *scnt, *at, *hc, *hd;      /* (P) ids sent (0 to myself), fill positions, header layout */
    int64_t *ncnt, *nd, *rn, *rd;      /* (P) reply ids I send each rank and their offsets; received */
    int64_t *hdr_s, *hdr_r;            /* (P * H_WORDS) */
    int64_t *req, *got;                /* ids asked (grouped by owner, frontier order), ids asked of me */
    int64_t *own_cnt, *own_nbr;        /* my replies: per asked id its count, then the ids */
    int64_t own_nnz;
    int64_t *rep_cnt, *rep_nbr;        /* the replies to my requests, grouped by owner */
} hop;

static void hop_free(hop *h)
{
    gnn_free(h->cnt), gnn_free(h->sdsp), gnn_free(h->rcnt), gnn_free(h->rdsp);
    gnn_free(h->scnt), gnn_free(h->at), gnn_free(h->hc), gnn_free(h->hd);
    gnn_free(h->ncnt), gnn_free(h->nd), gnn_free(h->rn), gnn_free(h->rd);
    gnn_free(h->hdr_s), gnn_free(h->hdr_r), gnn_free(h->req), gnn_free(h->got);
    gnn_free(h->own_cnt), gnn_free(h->own_nbr), gnn_free(h->rep_cnt), gnn_free(h->rep_nbr);
}

static void displs(const int64_t *cnt, int P, int64_t *dsp)
{
    int64_t at = 0;
    for (int q = 0; q < P; q++)
        dsp[q] = at, at += cnt[q];
}

static int64_t bytes_sent(const gnn_comm *c)
{
    int64_t b = 0;
    for (int q = 0; q < c->size; q++)
        b += c->traffic.bytes[GNN_COMM_ALLTOALLV * c->size + q];
    return b;
}

/* Sample the ids asked of me (ids got[0..n)) with the requester's keys: counts and global
 * neighbour ids appended to h->own_cnt / h->own_nbr. *bad: the first id I do not own, else -1. */
static gnn_status serve(gnn_dsampler *s, const int64_t *ids, int64_t n, const gnn_sample_params *p, int64_t *cnt,
                        int64_t **nbr, int64_t *nnz, int64_t *cap, int64_t *bad)
{
    if (n == 0)
        return GNN_OK;
    const gnn_part_local *L = s->L;
    int64_t *loc = gnn_malloc((size_t)n * sizeof(int64_t));
    if (!loc)
        return GNN_ERR_NOMEM;
    for (int64_t i = 0; i < n; i++) {
        const int64_t v = ids[i];
        const int64_t l = v >= 0 && v < s->n ? L->vid_p[v] : -1;
        if (l < 0 || l >= L->n_solid) {
            if (*bad < 0)
                *bad = v;
            loc[i] = -1;
        } else {
            loc[i] = l;
        }
    }
    if (*bad >= 0) { /* answer nothing for them all; the caller fails after the exchange */
        memset(cnt, 0, (size_t)n * sizeof(int64_t));
        gnn_free(loc);
        return GNN_OK;
    }
    gnn_sample_params q = *p;
    q.rng_ids = L->vid_o; /* the stream of the global id: the whole graph's draws */
    q.weights = s->w;
    gnn_block b;
    gnn_status st = gnn_sampler_layer(s->smp, loc, n, &q, &b);
    gnn_free(loc);
    if (st)
        return st;
    if (*nnz + b.nnz > *cap) {
        const int64_t want = 2 * (*nnz + b.nnz) + 16;
        int64_t *grown = gnn_malloc((size_t)want * sizeof(int64_t));
        if (!grown) {
            gnn_block_free(&b);
            return GNN_ERR_NOMEM;
        }
        if (*nnz)
            memcpy(grown, *nbr, (size_t)*nnz * sizeof(int64_t));
        gnn_free(*nbr);
        *nbr = grown, *cap = want;
    }
    for (int64_t i = 0; i < n; i++) { /* each dst's edges are in draw order */
        cnt[i] = b.indptr[i + 1] - b.indptr[i];
        for (int64_t e = b.indptr[i]; e < b.indptr[i + 1]; e++)
            (*nbr)[(*nnz)++] = L->vid_o[b.src_gid[b.indices[e]]];
    }
    gnn_block_free(&b);
    return GNN_OK;
}

typedef struct dctx {
    gnn_dsampler *s;
    gnn_comm *c;
    gnn_dsample_stats *stats;
} dctx;

/* Steps 1-4 of the header: the frontier's samples, every rank's share answered by its owner.
 * On return h->rep_cnt / rep_nbr hold, per owner q (q != me) in frontier order, the counts and
 * ids of my requests (rep_cnt at h->sdsp[q]); my own vertices' are the first *n_mine counts of
 * h->own_cnt and the first ids of h->own_nbr. A failure returns at once: the simulator and the
 * MPI launcher end every rank on the first failing one (docs/simulator.md). */
static gnn_status exchange(dctx *D, hop *h, const int64_t *dst, int64_t n_dst, const gnn_sample_params *p,
                           int64_t *n_mine)
{
    gnn_dsampler *s = D->s;
    gnn_comm *c = D->c;
    const int P = h->P, me = h->me;
    const unsigned lay = p->layer < GNN_DSAMPLE_MAX_LAYERS ? p->layer : GNN_DSAMPLE_MAX_LAYERS - 1;
    gnn_status st;
    /* 1. split by owner, frontier order within each owner */
    for (int64_t i = 0; i < n_dst; i++)
        h->cnt[s->owner[dst[i]]]++;
    displs(h->cnt, P, h->sdsp);
    memcpy(h->at, h->sdsp, (size_t)P * sizeof(int64_t));
    for (int64_t i = 0; i < n_dst; i++)
        h->req[h->at[s->owner[dst[i]]]++] = dst[i];
    *n_mine = h->cnt[me];
    /* 2. request: a header to every rank, then the ids (my own stay here) */
    const int64_t b0 = bytes_sent(c);
    for (int q = 0; q < P; q++) {
        int64_t *H = h->hdr_s + (size_t)q * H_WORDS;
        H[H_N] = q == me ? 0 : h->cnt[q];
        H[H_SEED] = (int64_t)p->seed, H[H_STEP] = p->step, H[H_LAYER] = p->layer;
        H[H_FANOUT] = p->fanout, H[H_REPLACE] = p->replace;
        h->hc[q] = H_WORDS, h->hd[q] = (int64_t)q * H_WORDS;
        h->scnt[q] = q == me ? 0 : h->cnt[q];
    }
    if ((st = gnn_comm_alltoallv(c, h->hdr_s, h->hc, h->hd, h->hdr_r, h->hc, h->hd, GNN_DT_I64)))
        return st;
    int64_t n_got = 0;
    for (int q = 0; q < P; q++) {
        h->rcnt[q] = q == me ? 0 : h->hdr_r[(size_t)q * H_WORDS + H_N];
        n_got += h->rcnt[q];
    }
    displs(h->rcnt, P, h->rdsp);
    if (!(h->got = gnn_malloc((size_t)(n_got + 1) * sizeof(int64_t))) ||
        !(h->own_cnt = gnn_malloc((size_t)(n_got + *n_mine + 1) * sizeof(int64_t))))
        return GNN_ERR_NOMEM;
    if ((st = gnn_comm_alltoallv(c, h->req, h->scnt, h->sdsp, h->got, h->rcnt, h->rdsp, GNN_DT_I64)))
        return st;
    const int64_t b1 = bytes_sent(c);
    /* 3. sample: my own vertices (my keys), then each requester's (its keys), in rank order */
    int64_t cap = 0, bad = -1;
    h->own_nnz = 0;
    if ((st = serve(s, h->req + h->sdsp[me], *n_mine, p, h->own_cnt, &h->own_nbr, &h->own_nnz, &cap, &bad)))
        return st;
    const int64_t mine_nnz = h->own_nnz;
    for (int q = 0; q < P; q++) {
        h->ncnt[q] = 0;
        if (q == me || h->rcnt[q] == 0)
            continue;
        const int64_t *H = h->hdr_r + (size_t)q * H_WORDS;
        const gnn_sample_params pq = { .fanout = H[H_FANOUT], .replace = (int)H[H_REPLACE], .seed = (uint64_t)H[H_SEED],
                                       .step = (uint32_t)H[H_STEP], .layer = (unsigned)H[H_LAYER] };
        const int64_t before = h->own_nnz;
        if ((st = serve(s, h->got + h->rdsp[q], h->rcnt[q], &pq, h->own_cnt + *n_mine + h->rdsp[q], &h->own_nbr,
                        &h->own_nnz, &cap, &bad)))
            return st;
        h->ncnt[q] = h->own_nnz - before;
        if (D->stats)
            D->stats->served[lay] += h->rcnt[q];
    }
    if (bad >= 0)
        return gnn_err_set(&c->err, GNN_ERR_COMM,
                           "distributed sampling: rank %d was asked for vertex %lld, which it does not own", me,
                           (long long)bad);
    /* 4. reply: per asked id its count (laid out as the requests were), then the ids */
    if (!(h->rep_cnt = gnn_malloc((size_t)(n_dst + 1) * sizeof(int64_t))) ||
        (!h->own_nbr && !(h->own_nbr = gnn_malloc(sizeof(int64_t)))))
        return GNN_ERR_NOMEM;
    if ((st = gnn_comm_alltoallv(c, h->own_cnt + *n_mine, h->rcnt, h->rdsp, h->rep_cnt, h->scnt, h->sdsp,
                                 GNN_DT_I64)))
        return st;
    int64_t total = 0;
    for (int q = 0; q < P; q++) {
        h->rn[q] = 0;
        for (int64_t i = 0; q != me && i < h->cnt[q]; i++)
            h->rn[q] += h->rep_cnt[h->sdsp[q] + i];
        h->rd[q] = total;
        total += h->rn[q];
    }
    displs(h->ncnt, P, h->nd);
    if (!(h->rep_nbr = gnn_malloc((size_t)(total + 1) * sizeof(int64_t))))
        return GNN_ERR_NOMEM;
    if ((st = gnn_comm_alltoallv(c, h->own_nbr + mine_nnz, h->ncnt, h->nd, h->rep_nbr, h->rn, h->rd, GNN_DT_I64)))
        return st;
    if (D->stats) {
        D->stats->local[lay] += *n_mine;
        D->stats->remote[lay] += n_dst - *n_mine;
        D->stats->request_bytes[lay] += b1 - b0;
        D->stats->reply_bytes[lay] += bytes_sent(c) - b1;
    }
    return GNN_OK;
}

/* One hop (gnn_sample_layer_fn): exchange, stitch in frontier order, build the block. */
static gnn_status dlayer(void *vctx, const int64_t *dst, int64_t n_dst, const gnn_sample_params *p, gnn_block *out)
{
    dctx *D = vctx;
    gnn_dsampler *s = D->s;
    hop h;
    memset(&h, 0, sizeof h);
    h.P = D->c->size, h.me = D->c->rank;
    memset(out, 0, sizeof *out);
    const size_t P = (size_t)h.P;
    int64_t n_mine = 0, *off = NULL, *nbr = NULL;
    gnn_status st = GNN_ERR_NOMEM;
    int64_t **vec[12] = { &h.cnt, &h.sdsp, &h.rcnt, &h.rdsp, &h.scnt, &h.at, &h.hc, &h.hd, &h.ncnt, &h.nd, &h.rn, &h.rd };
    for (int i = 0; i < 12; i++)
        if (!(*vec[i] = gnn_calloc(P, sizeof(int64_t))))
            goto done;
    if (!(h.hdr_s = gnn_malloc(P * H_WORDS * sizeof(int64_t))) || !(h.hdr_r = gnn_malloc(P * H_WORDS * sizeof(int64_t))) ||
        !(h.req = gnn_malloc((size_t)(n_dst + 1) * sizeof(int64_t))))
        goto done;
    if ((st = exchange(D, &h, dst, n_dst, p, &n_mine)))
        goto done;
    /* 5. stitch in frontier order: my own rows from own_*, the others' from each owner's reply
     * stream in turn (h.at: next count of owner q; h.rd: next id) */
    int64_t nnz = 0;
    for (int64_t i = 0; i < n_mine; i++)
        nnz += h.own_cnt[i];
    for (int q = 0; q < h.P; q++) {
        h.at[q] = h.sdsp[q];
        nnz += q == h.me ? 0 : h.rn[q];
    }
    if (n_dst + nnz > INT32_MAX) {
        st = GNN_ERR_RANGE;
        goto done;
    }
    if (!(off = gnn_malloc((size_t)(n_dst + 1) * sizeof(int64_t))) || !(nbr = gnn_malloc((size_t)(nnz + 1) * sizeof(int64_t)))) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    int64_t e = 0, mine_i = 0, mine_e = 0;
    off[0] = 0;
    for (int64_t i = 0; i < n_dst; i++) {
        const int q = s->owner[dst[i]];
        const int64_t k = q == h.me ? h.own_cnt[mine_i++] : h.rep_cnt[h.at[q]++];
        const int64_t *from = q == h.me ? h.own_nbr + mine_e : h.rep_nbr + h.rd[q];
        memcpy(nbr + e, from, (size_t)k * sizeof(int64_t));
        if (q == h.me)
            mine_e += k;
        else
            h.rd[q] += k;
        e += k;
        off[i + 1] = e;
    }
    if ((st = gnn_block_alloc(out, n_dst, n_dst + nnz, nnz)))
        goto done;
    if ((st = gnn_idmap_build(s->map, dst, n_dst, nbr, nnz, out->indices, out->src_gid, &out->n_src))) {
        gnn_block_free(out);
        goto done;
    }
    memcpy(out->indptr, off, (size_t)(n_dst + 1) * sizeof(int64_t));
    out->nnz = nnz;
done:
    hop_free(&h);
    gnn_free(off);
    gnn_free(nbr);
    return st;
}

gnn_status gnn_dsample_blocks(gnn_dsampler *s, gnn_comm *c, const int64_t *seeds, int64_t n_seeds,
                              const int64_t *fanouts, int L, const gnn_sample_params *base, gnn_block *blocks,
                              gnn_dsample_stats *stats)
{
    if (!s || !c || !fanouts || !base || !blocks || n_seeds < 0 || (n_seeds > 0 && !seeds) || L < 1 ||
        L > GNN_DSAMPLE_MAX_LAYERS || c->size != s->k || c->rank != s->L->rank)
        return GNN_ERR_INVAL;
    for (int64_t i = 0; i < n_seeds; i++)
        if (seeds[i] < 0 || seeds[i] >= s->n)
            return GNN_ERR_RANGE;
    dctx D = { s, c, stats };
    return gnn_sample_layers(dlayer, &D, seeds, n_seeds, fanouts, L, base, blocks);
}
