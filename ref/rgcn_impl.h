/* ref/rgcn_impl.h -- what ref/rgcn.c (the specification) and opt/cpu/rgcn.c both evaluate: the
 * forward's and the backward's buffers, one relation's mean of a dst row, and the backward's scalar sums (dbias,
 * dV, da, dagg and dx's self term), each one element in the order include/gnnref/rgcn.h fixes.
 * The loops around them, and how opt splits them over threads and vector lanes, stay in each
 * file. Plain C11, no threads. Internal: not installed. */
#ifndef GNN_REF_RGCN_IMPL_H
#define GNN_REF_RGCN_IMPL_H
#include <stdint.h>
#include <string.h>
#include "gnnref/rgcn.h"
#include "gnnref/tensor.h"

/* the forward's inputs: *w the relation weights (*own_w when made from the basis), *agg the
 * (R, n_dst, in) means, agg_out or *own_agg; GNN_ERR_NOMEM, with nothing held, when out of memory */
static inline gnn_status gnn_rgcn_forward_buffers(const gnn_rgcn_params *p, int64_t nd, float *agg_out, float **own_w,
                                                  float **own_agg, const float **w, float **agg)
{
    *own_agg = NULL;
    *w = gnn_rgcn_weights(p, own_w);
    *agg = agg_out ? agg_out : (*own_agg = gnn_malloc_array((size_t)(p->R * nd * p->in) + 1, sizeof(float)));
    if ((p->B && !*w) || !*agg) {
        gnn_free(*own_w);
        gnn_free(*own_agg);
        return GNN_ERR_NOMEM;
    }
    return GNN_OK;
}

/* a[0..in) = the mean of x[u] over v's edges of relation r: the sum in CSR order from 0.0f,
 * then times 1 / c (c the number of those edges; none: a stays zero) */
static inline void gnn_rgcn_mean_row(const gnn_block *blk, const int32_t *etype, const float *restrict x, int64_t in,
                                     int64_t v, int64_t r, float *restrict a)
{
    int64_t c = 0;
    memset(a, 0, sizeof(float) * (size_t)in);
    for (int64_t e = blk->indptr[v]; e < blk->indptr[v + 1]; e++)
        if (etype[e] == r) {
            const float *xu = x + (int64_t)blk->indices[e] * in;
            c++;
            for (int64_t i = 0; i < in; i++)
                a[i] += xu[i];
        }
    if (c > 0) {
        const float inv = 1.0f / (float)c;
        for (int64_t i = 0; i < in; i++)
            a[i] = a[i] * inv;
    }
}

/* the backward's buffers: w the relation weights (own_w when made from the basis), dw every
 * relation's dW (g->dw itself when there is no basis), dagg the (R, n_dst, in) gradient of the
 * means (only when need_dagg: dx is wanted) */
typedef struct gnn_rgcn_bwd_bufs {
    const float *w;
    float *own_w, *dw, *dagg;
} gnn_rgcn_bwd_bufs;

/* GNN_ERR_NOMEM when one could not be allocated; gnn_rgcn_backward_free frees them either way */
static inline gnn_status gnn_rgcn_backward_buffers(const gnn_rgcn_params *p, int64_t nd, const gnn_rgcn_grads *g,
                                                   int need_dagg, gnn_rgcn_bwd_bufs *b)
{
    b->w = gnn_rgcn_weights(p, &b->own_w);
    b->dw = g->dw && p->B == 0 ? g->dw : gnn_malloc_array((size_t)(p->R * p->in * p->out) + 1, sizeof(float));
    b->dagg = need_dagg ? gnn_malloc_array((size_t)(p->R * nd * p->in) + 1, sizeof(float)) : NULL;
    return (p->B && !b->w) || !b->dw || (need_dagg && !b->dagg) ? GNN_ERR_NOMEM : GNN_OK;
}

static inline void gnn_rgcn_backward_free(const gnn_rgcn_grads *g, gnn_rgcn_bwd_bufs *b)
{
    gnn_free(b->own_w);
    if (b->dw != g->dw)
        gnn_free(b->dw);
    gnn_free(b->dagg);
}

/* dbias[j] = sum over v ascending of dz[v][j] */
static inline float gnn_rgcn_dbias(const float *dz, int64_t nd, int64_t out, int64_t j)
{
    float s = 0.0f;
    for (int64_t v = 0; v < nd; v++)
        s += dz[v * out + j];
    return s;
}

/* dV[b][k] = sum over r ascending of a[r][b] * dW_r[k] */
static inline float gnn_rgcn_dv(const gnn_rgcn_params *p, const float *dw, int64_t b, int64_t k)
{
    const int64_t io = p->in * p->out;
    float s = 0.0f;
    for (int64_t r = 0; r < p->R; r++)
        s += p->a[r * p->B + b] * dw[r * io + k];
    return s;
}

/* da[r][b] = sum over k ascending of V_b[k] * dW_r[k] */
static inline float gnn_rgcn_da(const gnn_rgcn_params *p, const float *dw, int64_t r, int64_t b)
{
    const int64_t io = p->in * p->out;
    float s = 0.0f;
    for (int64_t k = 0; k < io; k++)
        s += p->v[b * io + k] * dw[r * io + k];
    return s;
}

/* (dz_v W^T)[i] = sum over j ascending of dz_v[j] * W[i][j], dz_v dz's row v: dagg_r[v][i]
 * with W = W_r, dx's self term with W = W0 */
static inline float gnn_rgcn_dz_wt(const float *dz_v, const float *w, int64_t out, int64_t i)
{
    float s = 0.0f;
    for (int64_t j = 0; j < out; j++)
        s += dz_v[j] * w[i * out + j];
    return s;
}

/* dx[u][i]'s self term: sum over j ascending of dz[u][j] * W0[i][j] for a dst row u < nd, 0.0f
 * for the other sources */
static inline float gnn_rgcn_dx_self(const gnn_rgcn_params *p, const float *dz, int64_t nd, int64_t u, int64_t i)
{
    return u < nd ? gnn_rgcn_dz_wt(dz + u * p->out, p->w0, p->out, i) : 0.0f;
}

#endif
