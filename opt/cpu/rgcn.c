/* opt/cpu/rgcn.c -- OpenMP relational graph convolution, bitwise equal to ref/rgcn.c at any
 * thread count (include/gnnref/rgcn.h, docs/hetero.md).
 *
 * What changed and why the bits still match: every output element is still one sum in the
 * header's order, computed by one thread, with -ffp-contract=off (products then sums, no FMA);
 * the products z and dW run a row's columns side by side in vector lanes, each lane keeping
 * its column's order; the threads split the elements (dst rows for the
 * means and z, parameter rows for the weight gradients, src rows for dx). The backward's dx
 * is a gather, not ref's scatter: each source's edges are listed by (v ascending, position)
 * (a stable counting sort by source of the edges in CSR order), so it adds the same terms in
 * the same order without atomics; each edge's 1 / c is computed once. The basis
 * decomposition's W_r is ref's own function (gnn_rgcn_weights); so are a row's means and
 * each element of dbias, dV, da, dagg and dx's self term (ref/rgcn_impl.h). */
#include <string.h>
#include "gnnref/rgcn.h"
#include "gnnref/tensor.h"
#include "ref/rgcn_impl.h" /* ref's buffers, per-row means and per-element sums */

/* per edge, 1 / c_{v, r(e)} */
static float *edge_inv(const gnn_block *blk, const int32_t *etype, int64_t R)
{
    float *inv = gnn_malloc_array((size_t)blk->nnz + 1, sizeof(float));
    int fail = 0;
    if (!inv)
        return NULL;
#pragma omp parallel reduction(| : fail)
    {
        int64_t *c = gnn_calloc((size_t)R, sizeof(int64_t));
        fail |= !c;
#pragma omp for schedule(dynamic, 256)
        for (int64_t v = 0; v < blk->n_dst; v++) {
            if (!c)
                continue;
            for (int64_t e = blk->indptr[v]; e < blk->indptr[v + 1]; e++)
                c[etype[e]]++;
            for (int64_t e = blk->indptr[v]; e < blk->indptr[v + 1]; e++)
                inv[e] = 1.0f / (float)c[etype[e]];
            for (int64_t e = blk->indptr[v]; e < blk->indptr[v + 1]; e++)
                c[etype[e]] = 0;
        }
        gnn_free(c);
    }
    if (fail) {
        gnn_free(inv);
        return NULL;
    }
    return inv;
}

static gnn_status rgcn_forward_cpu(const gnn_block *blk, const int32_t *etype, const float *x, const gnn_rgcn_params *p,
                                   float *z, float *agg_out)
{
    const int64_t nd = blk->n_dst, in = p->in, out = p->out, R = p->R;
    float *own_w, *own_agg, *agg;
    const float *w;
    if (gnn_rgcn_forward_buffers(p, nd, agg_out, &own_w, &own_agg, &w, &agg))
        return GNN_ERR_NOMEM;
    int fail = 0;
#pragma omp parallel reduction(| : fail)
    {
    float *tv = gnn_malloc_array((size_t)out + 1, sizeof(float)); /* one relation's product row */
    fail |= !tv;
#pragma omp for schedule(dynamic, 64)
    for (int64_t v = 0; v < nd; v++) {
        if (!tv)
            continue;
        for (int64_t r = 0; r < R; r++) /* ref's means: the sum in CSR order, then times 1 / c */
            gnn_rgcn_mean_row(blk, etype, x, in, v, r, agg + (r * nd + v) * in);
        /* z's row: every column j keeps ref's order (i ascending for each product, then the
         * relations, then the bias); the columns side by side in the vector lanes */
        float *zv = z + v * out, *t = tv;
        for (int64_t j = 0; j < out; j++)
            zv[j] = 0.0f;
        for (int64_t i = 0; i < in; i++) {
            const float xi = x[v * in + i], *W0 = p->w0 + i * out;
#pragma omp simd
            for (int64_t j = 0; j < out; j++)
                zv[j] += xi * W0[j];
        }
        for (int64_t r = 0; r < R; r++) {
            const float *a = agg + (r * nd + v) * in, *W = w + r * in * out;
            for (int64_t j = 0; j < out; j++)
                t[j] = 0.0f;
            for (int64_t i = 0; i < in; i++) {
                const float ai = a[i], *Wi = W + i * out;
#pragma omp simd
                for (int64_t j = 0; j < out; j++)
                    t[j] += ai * Wi[j];
            }
#pragma omp simd
            for (int64_t j = 0; j < out; j++)
                zv[j] += t[j];
        }
        if (p->bias)
#pragma omp simd
            for (int64_t j = 0; j < out; j++)
                zv[j] += p->bias[j];
    }
    gnn_free(tv);
    }
    gnn_free(own_w);
    gnn_free(own_agg);
    return fail ? GNN_ERR_NOMEM : GNN_OK;
}

/* dx by source: the self term, then the source's edges in (v, position) order */
static gnn_status dx_gather(const gnn_block *blk, const int32_t *etype, const gnn_rgcn_params *p, const float *dz,
                            const float *dagg, float *dx)
{
    const int64_t nd = blk->n_dst, ns = blk->n_src, in = p->in, m = blk->nnz;
    int64_t *ptr = gnn_calloc((size_t)ns + 2, sizeof(int64_t)), *lst = gnn_malloc_array((size_t)m + 1, sizeof(int64_t));
    int64_t *vof = gnn_malloc_array((size_t)m + 1, sizeof(int64_t));
    float *inv = edge_inv(blk, etype, p->R);
    gnn_status st = ptr && lst && vof && inv ? GNN_OK : GNN_ERR_NOMEM;
    if (!st) {
        for (int64_t e = 0; e < m; e++)
            ptr[blk->indices[e] + 1]++;
        for (int64_t u = 0; u < ns; u++)
            ptr[u + 1] += ptr[u];
        for (int64_t v = 0; v < nd; v++) /* stable: each source's edges by v, then position */
            for (int64_t e = blk->indptr[v]; e < blk->indptr[v + 1]; e++) {
                const int64_t u = blk->indices[e];
                vof[ptr[u]] = v;
                lst[ptr[u]++] = e;
            }
        for (int64_t u = ns; u > 0; u--)
            ptr[u] = ptr[u - 1];
        ptr[0] = 0;
#pragma omp parallel for schedule(dynamic, 64)
        for (int64_t u = 0; u < ns; u++) {
            float *d = dx + u * in;
            for (int64_t i = 0; i < in; i++)
                d[i] = gnn_rgcn_dx_self(p, dz, nd, u, i);
            for (int64_t k = ptr[u]; k < ptr[u + 1]; k++) {
                const int64_t e = lst[k], v = vof[k], r = etype[e];
                const float *g = dagg + (r * nd + v) * in, c = inv[e];
#pragma omp simd
                for (int64_t i = 0; i < in; i++)
                    d[i] += g[i] * c;
            }
        }
    }
    gnn_free(ptr);
    gnn_free(lst);
    gnn_free(vof);
    gnn_free(inv);
    return st;
}

static gnn_status rgcn_backward_cpu(const gnn_block *blk, const int32_t *etype, const float *x,
                                    const gnn_rgcn_params *p, const float *agg, const float *dz, float *dx,
                                    const gnn_rgcn_grads *g)
{
    const int64_t nd = blk->n_dst, in = p->in, out = p->out, R = p->R, io = in * out, B = p->B;
    gnn_rgcn_bwd_bufs bb;
    gnn_status st = gnn_rgcn_backward_buffers(p, nd, g, dx != NULL, &bb);
    const float *w = bb.w;
    float *dw = bb.dw, *dagg = bb.dagg;
    if (st)
        goto done;
    if (g->dbias)
#pragma omp parallel for schedule(static)
        for (int64_t j = 0; j < out; j++)
            g->dbias[j] = gnn_rgcn_dbias(dz, nd, out, j);
    /* dW0 (row -1) and every dW_r, a parameter row (r, i) per item, its columns summed over v */
#pragma omp parallel for schedule(dynamic, 4)
    for (int64_t ri = -in; ri < R * in; ri++) {
        const int self = ri < 0;
        if (self && !g->dw0)
            continue;
        const int64_t r = self ? 0 : ri / in, i = self ? ri + in : ri % in;
        float *dst = self ? g->dw0 + i * out : dw + r * io + i * out;
        const float *src = self ? x : agg + r * nd * in;
        for (int64_t j = 0; j < out; j++)
            dst[j] = 0.0f;
        for (int64_t v = 0; v < nd; v++) { /* each column's sum in v order, the columns in lanes */
            const float sv = src[v * in + i], *dzv = dz + v * out;
#pragma omp simd
            for (int64_t j = 0; j < out; j++)
                dst[j] += sv * dzv[j];
        }
    }
    if (B > 0 && g->dv)
#pragma omp parallel for schedule(static)
        for (int64_t bk = 0; bk < B * io; bk++)
            g->dv[bk] = gnn_rgcn_dv(p, dw, bk / io, bk % io);
    if (B > 0 && g->da)
#pragma omp parallel for schedule(static)
        for (int64_t rb = 0; rb < R * B; rb++)
            g->da[rb] = gnn_rgcn_da(p, dw, rb / B, rb % B);
    if (!dx)
        goto done;
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t rv = 0; rv < R * nd; rv++) {
        const int64_t r = rv / nd, v = rv % nd;
        for (int64_t i = 0; i < in; i++)
            dagg[rv * in + i] = gnn_rgcn_dz_wt(dz + v * out, w + r * io, out, i);
    }
    st = dx_gather(blk, etype, p, dz, dagg, dx);
done:
    gnn_rgcn_backward_free(g, &bb);
    return st;
}

const gnn_rgcn_ops gnn_rgcn_cpu = {
    .name = "cpu",
    .caps = 1u | 2u, /* GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED */
    .forward = rgcn_forward_cpu,
    .backward = rgcn_backward_cpu,
};
