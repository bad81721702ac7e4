/* examples/plugin/bad.c -- a deliberately wrong aggregation: what an oracle FAIL looks like.
 *
 *     make -C examples/plugin
 *     gnnref oracle --plugin examples/plugin/bad.so --op aggregate.mean.fwd
 *
 * The forward has the classic off-by-one: the loop over a row's edges stops one early, so
 * every dst row of two or more edges loses its last edge (rows of degree 0 and 1 come out
 * right, which is why a quick test on a path graph would not see it). The mean still divides
 * by the full degree. The oracle reports each failing case with its case string, the first
 * mismatching elements as [row,col] with both values, and the command that replays it.
 * The backward is correct (aggregate.*.bwd pass); the weighted operations are not provided
 * (NULL: their cases say UNSUPPORTED). Docs: docs/plugin.md, "Reading a FAIL". */
#include <stdlib.h>
#include "gnnref/plugin.h"

static gnn_status bad_forward(const gnn_block *blk, const float *x, int64_t d, gnn_agg_kind kind, float *out)
{
    if (kind == GNN_AGG_GCN)
        return GNN_ERR_UNSUPPORTED;
    for (int64_t v = 0; v < blk->n_dst; v++) {
        const int64_t b = blk->indptr[v], e = blk->indptr[v + 1], deg = e - b;
        float *o = out + v * d;
        for (int64_t f = 0; f < d; f++)
            o[f] = 0.0f;
        const int64_t last = deg >= 2 ? e - 1 : e; /* BUG: should be e */
        for (int64_t i = b; i < last; i++)
            for (int64_t f = 0; f < d; f++)
                o[f] += x[(int64_t)blk->indices[i] * d + f];
        if (kind == GNN_AGG_MEAN && deg > 0)
            for (int64_t f = 0; f < d; f++)
                o[f] *= 1.0f / (float)deg;
    }
    return GNN_OK;
}

static gnn_status bad_backward(const gnn_block *blk, const float *dout, int64_t d, gnn_agg_kind kind, float *dx)
{
    if (kind == GNN_AGG_GCN)
        return GNN_ERR_UNSUPPORTED;
    for (int64_t i = 0; i < blk->n_src * d; i++)
        dx[i] = 0.0f;
    for (int64_t v = 0; v < blk->n_dst; v++) {
        const int64_t b = blk->indptr[v], e = blk->indptr[v + 1];
        if (e == b)
            continue;
        const float c = kind == GNN_AGG_MEAN ? 1.0f / (float)(e - b) : 1.0f;
        for (int64_t i = b; i < e; i++)
            for (int64_t f = 0; f < d; f++)
                dx[(int64_t)blk->indices[i] * d + f] += dout[v * d + f] * c;
    }
    return GNN_OK;
}

static const gnn_aggregate_ops bad_aggregate = {
    .name = "bad-lastedge",
    .caps = 0,
    .forward = bad_forward,
    .backward = bad_backward,
    .weighted_forward = NULL,  /* not provided: UNSUPPORTED */
    .weighted_backward = NULL,
};

GNN_PLUGIN_REGISTER(r)
{
    return gnn_plugin_add_aggregate(r, &bad_aggregate, 0) == GNN_OK ? 0 : 1;
}
