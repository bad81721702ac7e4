/* core/ops/rgcn.c -- the checked entry points of the relational graph convolution
 * (include/gnnref/rgcn.h): every argument once, then the table. */
#include "gnnref/rgcn.h"

static int missing(const void *p, int64_t rows, int64_t cols) { return !p && rows > 0 && cols > 0; }

/* the parameters, the block (indptr from 0 to nnz, never decreasing; ids in range) and the
 * relation of every edge */
static gnn_status rgcn_check(const gnn_block *blk, const int32_t *etype, const float *x, const gnn_rgcn_params *p)
{
    if (!blk || !p || p->in < 0 || p->out < 0 || p->R < 1 || p->B < 0)
        return GNN_ERR_INVAL;
    if (blk->n_dst < 0 || blk->n_src < blk->n_dst || blk->nnz < 0 || !blk->indptr ||
        (blk->nnz > 0 && (!blk->indices || !etype)))
        return GNN_ERR_INVAL;
    const int64_t io = p->in * p->out;
    if (missing(x, blk->n_src, p->in) || missing(p->w0, p->in, p->out) || (p->B == 0 && missing(p->w, p->R, io)) ||
        (p->B > 0 && (missing(p->v, p->B, io) || !p->a)))
        return GNN_ERR_INVAL;
    if (blk->indptr[0] != 0 || blk->indptr[blk->n_dst] != blk->nnz)
        return GNN_ERR_INVAL;
    for (int64_t v = 0; v < blk->n_dst; v++)
        if (blk->indptr[v + 1] < blk->indptr[v])
            return GNN_ERR_INVAL;
    for (int64_t e = 0; e < blk->nnz; e++)
        if (blk->indices[e] < 0 || blk->indices[e] >= blk->n_src || etype[e] < 0 || etype[e] >= p->R)
            return GNN_ERR_RANGE;
    return GNN_OK;
}

gnn_status gnn_rgcn_forward(const gnn_rgcn_ops *ops, const gnn_block *blk, const int32_t *etype, const float *x,
                            const gnn_rgcn_params *p, float *z, float *agg)
{
    if (!ops || !ops->forward)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    gnn_status st = rgcn_check(blk, etype, x, p);
    if (st)
        return st;
    if (missing(z, blk->n_dst, p->out))
        return GNN_ERR_INVAL;
    return ops->forward(blk, etype, x, p, z, agg);
}

gnn_status gnn_rgcn_backward(const gnn_rgcn_ops *ops, const gnn_block *blk, const int32_t *etype, const float *x,
                             const gnn_rgcn_params *p, const float *agg, const float *dz, float *dx,
                             const gnn_rgcn_grads *g)
{
    if (!ops || !ops->backward)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    gnn_status st = rgcn_check(blk, etype, x, p);
    if (st)
        return st;
    if (!g || missing(dz, blk->n_dst, p->out) || missing(agg, p->R * blk->n_dst, p->in))
        return GNN_ERR_INVAL;
    return ops->backward(blk, etype, x, p, agg, dz, dx, g);
}
