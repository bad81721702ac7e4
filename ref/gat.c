/* ref/gat.c -- reference graph attention (GAT): attention logits, edge softmax, attention
 * dropout and attention-weighted aggregation, forward and backward (include/gnnref/gat.h).
 *
 * Plain C11, no threads, no intrinsics: this file is the specification. opt/cpu/gat.c
 * reproduces every forward bit and every bit of dz; dal and dar are cross-row reductions the
 * optimized version may split into fixed-order partials (docs/gat.md).
 *
 * @eq{GAT 1-4}, @eq{DistGNN-MB 2}: with z the projected features of a layer,
 *   e_u = a_src . z_u,  e_v = a_dst . z_v                 (the split a^T [z_u || z_v] = e_u + e_v)
 *   alpha_uv = EdgeSoftmax_v(LeakyReLU(e_u + e_v))          (softmax over v's in-edges)
 *   h_v = AGG({ alpha_uv z_u : u in N(v) })                 (sum, one head at a time)
 * per head h, heads concatenated. DistGNN-MB section 3.3 ("Broadcast Support for AGG"): the
 * scalar alpha_uv[h] is broadcast over the F features of head h; here that is the inner loop
 * over f of the aggregation.
 *
 * Summation orders (part of the contract, see gat.h):
 *   el, er: f ascending from 0.0f;  softmax denominator: v's edges in CSR order from 0.0f;
 *   out: v's edges in CSR order from 0.0f, acc += att * z (product first, then the add);
 *   backward: see gat_backward_ref below.
 *
 * The arguments (parameters, the block's structure and src ids, the arrays) are checked by
 * the public entry points gnn_gat_forward and gnn_gat_backward (core/ops/kernels.c): the
 * functions here assume valid input. */
#include <math.h>
#include <string.h>
#include "gnnref/aggregate.h" /* GNN_CAP_* */
#include "gnnref/gat.h"
#include "gnnref/rng.h"
#include "gnnref/tensor.h"
#include "ref/gat_impl.h" /* the dot product, LeakyReLU, the edge softmax and its backward */

/* el[u][h] = sum_f z[u][h][f] * a[h][f], f ascending, for rows u < n. */
static void gat_logits(const float *z, const float *a, int64_t n, int64_t H, int64_t F, float *el)
{
    for (int64_t u = 0; u < n; u++)
        for (int64_t h = 0; h < H; h++)
            el[u * H + h] = gnn_gat_dot(z + (u * H + h) * F, a + h * F, F);
}

/* Attention dropout multipliers of dst row v: mk[j*H + h] = scale if float draw (j*H + h) of
 * stream (seed, GNN_TAG_ATTN_DROPOUT, step, layer, dst_gid[v]) >= p, else 0; scale =
 * 1/(1-p) computed in f32 as gnn_dropout_fwd does. p = 0 keeps everything with scale 1. */
static void gat_drop_row(const gnn_gat_params *p, int64_t v, int64_t deg, float *mk)
{
    const int64_t H = p->heads, cnt = deg * H;
    const float scale = 1.0f / (1.0f - p->attn_drop);
    if (p->attn_drop == 0.0f) {
        for (int64_t i = 0; i < cnt; i++)
            mk[i] = 1.0f;
        return;
    }
    const uint64_t id = p->dst_gid ? (uint64_t)p->dst_gid[v] : (uint64_t)v;
    const gnn_rng_stream s = gnn_rng_stream_make(p->seed, GNN_TAG_ATTN_DROPOUT, p->step, p->layer, id);
    for (int64_t i = 0; i < cnt; i++)
        mk[i] = gnn_rng_float(&s, (uint64_t)i) >= p->attn_drop ? scale : 0.0f;
}

static int64_t max_degree(const gnn_block *blk)
{
    int64_t m = 0;
    for (int64_t v = 0; v < blk->n_dst; v++)
        if (blk->indptr[v + 1] - blk->indptr[v] > m)
            m = blk->indptr[v + 1] - blk->indptr[v];
    return m;
}

/* @eq{GAT 1-4}: logits, LeakyReLU, the edge softmax and the weighted sum per head;
 * @eq{DistGNN-MB 2} writes the same as e_u + e_v, EdgeSoftmax, AGG. */
static gnn_status gat_forward_ref(const gnn_block *blk, const float *z, const float *al, const float *ar,
                                  const gnn_gat_params *p, float *out, float *alpha)
{
    gnn_status st = GNN_OK;
    const int64_t H = p->heads, F = p->f, HF = H * F, dmax = max_degree(blk);
    float *el = gnn_malloc((size_t)(blk->n_src * H) * sizeof(float));
    float *er = gnn_malloc((size_t)(blk->n_dst * H) * sizeof(float));
    float *a = gnn_malloc((size_t)(dmax * H) * sizeof(float));  /* one row's alpha */
    float *mk = gnn_malloc((size_t)(dmax * H) * sizeof(float)); /* one row's dropout multipliers */
    if (!el || !er || !a || !mk) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    gat_logits(z, al, blk->n_src, H, F, el); /* e_u = a_src . z_u */
    gat_logits(z, ar, blk->n_dst, H, F, er); /* e_v = a_dst . z_v (dst v is src v) */
    for (int64_t v = 0; v < blk->n_dst; v++) {
        const int64_t b = blk->indptr[v], e = blk->indptr[v + 1];
        gnn_gat_softmax_row(blk, el, er, H, p->slope, v, a); /* alpha, ref/gat_impl.h */
        if (alpha)
            memcpy(alpha + b * H, a, (size_t)((e - b) * H) * sizeof(float));
        gat_drop_row(p, v, e - b, mk);
        for (int64_t i = 0; i < (e - b) * H; i++)
            a[i] = a[i] * mk[i]; /* att = alpha * keep / (1 - p) */
        if (HF == 0)
            continue; /* zero-width rows: nothing to aggregate (and out may be NULL) */
        float *out_v = out + v * HF;
        for (int64_t k = 0; k < HF; k++)
            out_v[k] = 0.0f;
        /* AGG: out[v][h][:] += att[e][h] * z[u][h][:], edges in CSR order; the head's scalar
         * weight is broadcast over its F features (DistGNN-MB 3.3) */
        for (int64_t i = b; i < e; i++) {
            const float *z_u = z + (int64_t)blk->indices[i] * HF;
            for (int64_t h = 0; h < H; h++) {
                const float w = a[(i - b) * H + h];
                for (int64_t f = 0; f < F; f++)
                    out_v[h * F + f] += w * z_u[h * F + f];
            }
        }
    }
done:
    gnn_free(el);
    gnn_free(er);
    gnn_free(a);
    gnn_free(mk);
    return st;
}

/* Backward. With att = alpha * mk and pre = el[u] + er[v] (per head; e = (u -> v)):
 *   datt[e][h]   = sum_f dout[v][h][f] * z[u][h][f]                      (f ascending)
 *   dalpha[e][h] = datt[e][h] * mk[e][h]
 *   ds[e][h]     = alpha[e][h] * (dalpha[e][h] - dot[v][h]),
 *                  dot[v][h] = sum over v's edges, CSR order, of alpha * dalpha
 *                  (softmax backward: d alpha_i / d s_j = alpha_i (delta_ij - alpha_j))
 *   dpre[e][h]   = pre > 0 ? ds : ds * slope                              (LeakyReLU)
 *   der[v][h]    = sum over v's edges, CSR order, of dpre
 *   del[u][h]    = sum over edges (u -> v), by v then edge position, of dpre
 *   dz[u][h][f]  = (sum over edges (u -> v), by v then edge position, of att[e][h] * dout[v][h][f])
 *                  + del[u][h] * al[h][f]  + (u < n_dst ? der[u][h] * ar[h][f] : nothing)
 *   dal[h][f]    = sum over u ascending (u < n_src) of del[u][h] * z[u][h][f]
 *   dar[h][f]    = sum over v ascending (v < n_dst) of der[v][h] * z[v][h][f]
 * every sum starting from 0.0f, each product formed before it is added. */
static gnn_status gat_backward_ref(const gnn_block *blk, const float *z, const float *al, const float *ar,
                                   const gnn_gat_params *p, const float *alpha, const float *dout, float *dz,
                                   float *dal, float *dar)
{
    gnn_status st = GNN_OK;
    const int64_t H = p->heads, F = p->f, HF = H * F, dmax = max_degree(blk);
    const int64_t n_src = blk->n_src, n_dst = blk->n_dst;
    float *el = gnn_malloc((size_t)(n_src * H) * sizeof(float));
    float *er = gnn_malloc((size_t)(n_dst * H) * sizeof(float));
    float *del = gnn_calloc((size_t)(n_src * H) + 1, sizeof(float));
    float *der = gnn_malloc((size_t)(n_dst * H) * sizeof(float));
    float *mk = gnn_malloc((size_t)(dmax * H) * sizeof(float));
    float *dp = gnn_malloc((size_t)(dmax * H) * sizeof(float)); /* one row's dalpha, then dpre */
    if (!el || !er || !del || !der || !mk || !dp) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    gat_logits(z, al, n_src, H, F, el);
    gat_logits(z, ar, n_dst, H, F, er);
    if (HF == 0)
        goto done; /* zero-width features: dz, dal and dar are empty */
    memset(dz, 0, (size_t)(n_src * HF) * sizeof(float));
    for (int64_t v = 0; v < n_dst; v++) {
        const int64_t b = blk->indptr[v], e = blk->indptr[v + 1];
        const float *dout_v = dout + v * HF;
        gat_drop_row(p, v, e - b, mk);
        for (int64_t i = b; i < e; i++) {
            const int64_t u = blk->indices[i];
            const float *z_u = z + u * HF;
            float *dz_u = dz + u * HF;
            for (int64_t h = 0; h < H; h++) {
                const int64_t j = (i - b) * H + h;
                const float datt = gnn_gat_dot(dout_v + h * F, z_u + h * F, F);
                dp[j] = datt * mk[j];
                /* the aggregation's transpose: dz[u] += att * dout[v] */
                const float att = alpha[i * H + h] * mk[j];
                for (int64_t f = 0; f < F; f++)
                    dz_u[h * F + f] += att * dout_v[h * F + f];
            }
        }
        for (int64_t h = 0; h < H; h++) {
            float dot = 0.0f;
            for (int64_t i = b; i < e; i++)
                dot += alpha[i * H + h] * dp[(i - b) * H + h];
            float acc = 0.0f;
            for (int64_t i = b; i < e; i++) {
                const int64_t j = (i - b) * H + h, u = blk->indices[i];
                const float pre = el[u * H + h] + er[v * H + h];
                const float dpre = gnn_gat_dpre(alpha[i * H + h], dp[j], dot, pre, p->slope);
                acc += dpre;
                del[u * H + h] += dpre;
            }
            der[v * H + h] = acc;
        }
    }
    /* the logits' transposes: e_u = a_src . z_u, e_v = a_dst . z_v */
    for (int64_t u = 0; u < n_src; u++)
        for (int64_t h = 0; h < H; h++) {
            float *dz_uh = dz + u * HF + h * F;
            const float g = del[u * H + h];
            for (int64_t f = 0; f < F; f++)
                dz_uh[f] += g * al[h * F + f];
            if (u < n_dst) {
                const float gr = der[u * H + h];
                for (int64_t f = 0; f < F; f++)
                    dz_uh[f] += gr * ar[h * F + f];
            }
        }
    for (int64_t k = 0; k < HF; k++) {
        dal[k] = 0.0f;
        dar[k] = 0.0f;
    }
    for (int64_t u = 0; u < n_src; u++)
        for (int64_t h = 0; h < H; h++)
            for (int64_t f = 0; f < F; f++)
                dal[h * F + f] += del[u * H + h] * z[u * HF + h * F + f];
    for (int64_t v = 0; v < n_dst; v++)
        for (int64_t h = 0; h < H; h++)
            for (int64_t f = 0; f < F; f++)
                dar[h * F + f] += der[v * H + h] * z[v * HF + h * F + f];
done:
    gnn_free(el);
    gnn_free(er);
    gnn_free(del);
    gnn_free(der);
    gnn_free(mk);
    gnn_free(dp);
    return st;
}

const gnn_gat_ops gnn_gat_ref = {
    .name = "ref",
    .caps = GNN_CAP_DETERMINISTIC,
    .forward = gat_forward_ref,
    .backward = gat_backward_ref,
};
