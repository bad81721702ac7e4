/* ref/rgcn.c -- reference relational graph convolution (include/gnnref/rgcn.h, docs/hetero.md;
 * Schlichtkrull et al. 2018, Eq. 2 and 3 (basis decomposition), as DistDGLv2 trains it on
 * heterogeneous graphs, @sec{DistDGLv2 4.1}).
 *
 * Plain C11, one output element at a time, in the order the header fixes: this file is the
 * specification; opt/cpu/rgcn.c must reproduce it bit for bit. Arguments are checked by the
 * entry points (core/ops/kernels.c). */
#include <string.h>
#include "gnnref/rgcn.h"
#include "gnnref/tensor.h"
#include "ref/rgcn_impl.h" /* one relation's mean of a row, the backward's sums, element by element */

void gnn_rgcn_relation_weights(const gnn_rgcn_params *p, float *w)
{
    const int64_t io = p->in * p->out;
    for (int64_t r = 0; r < p->R; r++)
        for (int64_t k = 0; k < io; k++) {
            float acc = 0.0f;
            for (int64_t b = 0; b < p->B; b++)
                acc += p->a[r * p->B + b] * p->v[b * io + k];
            w[r * io + k] = acc;
        }
}

const float *gnn_rgcn_weights(const gnn_rgcn_params *p, float **own)
{
    *own = NULL;
    if (p->B == 0)
        return p->w;
    if (!(*own = gnn_malloc_array((size_t)(p->R * p->in * p->out) + 1, sizeof(float))))
        return NULL;
    gnn_rgcn_relation_weights(p, *own);
    return *own;
}

/* agg_r[v] for every relation, in CSR order, then times 1 / c */
static void means(const gnn_block *blk, const int32_t *etype, const float *x, int64_t in, int64_t R, float *agg)
{
    const int64_t nd = blk->n_dst;
    for (int64_t v = 0; v < nd; v++)
        for (int64_t r = 0; r < R; r++)
            gnn_rgcn_mean_row(blk, etype, x, in, v, r, agg + (r * nd + v) * in);
}

static gnn_status rgcn_forward_ref(const gnn_block *blk, const int32_t *etype, const float *x, const gnn_rgcn_params *p,
                                   float *z, float *agg_out)
{
    const int64_t nd = blk->n_dst, in = p->in, out = p->out, R = p->R;
    float *own_w, *own_agg, *agg;
    const float *w;
    if (gnn_rgcn_forward_buffers(p, nd, agg_out, &own_w, &own_agg, &w, &agg))
        return GNN_ERR_NOMEM;
    means(blk, etype, x, in, R, agg);
    for (int64_t v = 0; v < nd; v++)
        for (int64_t j = 0; j < out; j++) {
            float s = 0.0f;
            for (int64_t i = 0; i < in; i++)
                s += x[v * in + i] * p->w0[i * out + j];
            for (int64_t r = 0; r < R; r++) {
                const float *a = agg + (r * nd + v) * in, *W = w + r * in * out;
                float t = 0.0f;
                for (int64_t i = 0; i < in; i++)
                    t += a[i] * W[i * out + j];
                s += t;
            }
            z[v * out + j] = p->bias ? s + p->bias[j] : s;
        }
    gnn_free(own_w);
    gnn_free(own_agg);
    return GNN_OK;
}

static gnn_status rgcn_backward_ref(const gnn_block *blk, const int32_t *etype, const float *x,
                                    const gnn_rgcn_params *p, const float *agg, const float *dz, float *dx,
                                    const gnn_rgcn_grads *g)
{
    const int64_t nd = blk->n_dst, ns = blk->n_src, in = p->in, out = p->out, R = p->R, io = in * out;
    gnn_rgcn_bwd_bufs bb; /* W_r, dW_r, dagg (with dx) */
    gnn_status st = gnn_rgcn_backward_buffers(p, nd, g, dx != NULL, &bb);
    const float *w = bb.w;
    float *dw = bb.dw, *dagg = bb.dagg;
    if (st)
        goto done;
    if (g->dbias)
        for (int64_t j = 0; j < out; j++)
            g->dbias[j] = gnn_rgcn_dbias(dz, nd, out, j);
    if (g->dw0)
        for (int64_t i = 0; i < in; i++)
            for (int64_t j = 0; j < out; j++) {
                float s = 0.0f;
                for (int64_t v = 0; v < nd; v++)
                    s += x[v * in + i] * dz[v * out + j];
                g->dw0[i * out + j] = s;
            }
    for (int64_t r = 0; r < R; r++) /* dW_r: every relation's, also when only dV or da is wanted */
        for (int64_t i = 0; i < in; i++)
            for (int64_t j = 0; j < out; j++) {
                float s = 0.0f;
                for (int64_t v = 0; v < nd; v++)
                    s += agg[(r * nd + v) * in + i] * dz[v * out + j];
                dw[r * io + i * out + j] = s;
            }
    if (p->B > 0) {
        for (int64_t b = 0; g->dv && b < p->B; b++)
            for (int64_t k = 0; k < io; k++)
                g->dv[b * io + k] = gnn_rgcn_dv(p, dw, b, k);
        for (int64_t r = 0; g->da && r < R; r++)
            for (int64_t b = 0; b < p->B; b++)
                g->da[r * p->B + b] = gnn_rgcn_da(p, dw, r, b);
    }
    if (!dx)
        goto done;
    for (int64_t r = 0; r < R; r++)
        for (int64_t v = 0; v < nd; v++)
            for (int64_t i = 0; i < in; i++)
                dagg[(r * nd + v) * in + i] = gnn_rgcn_dz_wt(dz + v * out, w + r * io, out, i);
    for (int64_t u = 0; u < ns; u++) /* the self term first */
        for (int64_t i = 0; i < in; i++)
            dx[u * in + i] = gnn_rgcn_dx_self(p, dz, nd, u, i);
    for (int64_t v = 0; v < nd; v++) { /* the edges by v ascending, then position */
        int64_t cnt[64], *c = cnt;
        int64_t *heap = R > 64 ? gnn_calloc((size_t)R, sizeof(int64_t)) : NULL;
        if (R > 64) {
            if (!heap) {
                st = GNN_ERR_NOMEM;
                goto done;
            }
            c = heap;
        } else {
            memset(cnt, 0, sizeof cnt);
        }
        for (int64_t e = blk->indptr[v]; e < blk->indptr[v + 1]; e++)
            c[etype[e]]++;
        for (int64_t e = blk->indptr[v]; e < blk->indptr[v + 1]; e++) {
            const int64_t r = etype[e], u = blk->indices[e];
            const float inv = 1.0f / (float)c[r];
            for (int64_t i = 0; i < in; i++)
                dx[u * in + i] += dagg[(r * nd + v) * in + i] * inv;
        }
        gnn_free(heap);
    }
done:
    gnn_rgcn_backward_free(g, &bb);
    return st;
}

const gnn_rgcn_ops gnn_rgcn_ref = {
    .name = "ref",
    .caps = 1u, /* GNN_CAP_DETERMINISTIC */
    .forward = rgcn_forward_ref,
    .backward = rgcn_backward_ref,
};
