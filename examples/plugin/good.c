/* examples/plugin/good.c -- a correct outside aggregation and index_add, checked bitwise by
 * gnnref's oracle (two kinds of table from one plugin).
 *
 *     make -C examples/plugin            (builds good.so and bad.so through pkg-config)
 *     gnnref oracle --plugin examples/plugin/good.so
 *
 * The kernels are written column by column: for each feature f, one pass over the rows (the
 * reference, ref/aggregate.c, goes row by row, every feature of a row at once). That is a
 * different loop nest, yet every output element sees the same additions in the same order --
 * the summation-order contract of include/gnnref/aggregate.h: forward sums each dst row's
 * edges in CSR order from 0.0f, mean multiplies once by the reciprocal 1.0f / deg; backward
 * adds into dx[u] by dst, then edge position; each product is formed before it is added. So
 * the oracle's bitwise comparators pass. Build with -ffp-contract=off (no fused multiply-add),
 * as gnnref itself is: a contracted a + x * c rounds once instead of twice.
 *
 * The index_add gathers instead of scattering: the positions i are bucketed by target row with
 * a counting sort (stable, so each row's positions stay ascending), then every out row adds its
 * src rows in that order -- the order include/gnnref/index_add.h fixes, so bitwise again.
 *
 * It calls nothing in libgnnref (the registry hands it the function it calls), so it needs
 * gnnref's headers only. Docs: docs/plugin.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/plugin.h"

/* 1 / sqrtf(ds(u)) per src u, ds(u) = block edges whose src is u (GCN's source degree). */
static float *inv_sqrt_src_degrees(const gnn_block *blk)
{
    const size_t n = (size_t)blk->n_src + 1;
    int64_t *ds = calloc(n, sizeof *ds);
    float *r = calloc(n, sizeof *r);
    if (!ds || !r) {
        free(ds);
        free(r);
        return NULL;
    }
    for (int64_t e = 0; e < blk->nnz; e++)
        ds[blk->indices[e]]++;
    for (int64_t u = 0; u < blk->n_src; u++)
        r[u] = ds[u] > 0 ? 1.0f / sqrtf((float)ds[u]) : 0.0f;
    free(ds);
    return r;
}

/* The coefficient of edge e = (u -> v) in row v of degree deg (GCN: c_e, mean: 1/deg, sum: 1). */
static float coef(gnn_agg_kind kind, const float *inv_ds, int32_t u, int64_t deg)
{
    if (kind == GNN_AGG_GCN)
        return inv_ds[u] * (1.0f / sqrtf((float)deg));
    return kind == GNN_AGG_MEAN ? 1.0f / (float)deg : 1.0f;
}

static gnn_status good_forward(const gnn_block *blk, const float *x, int64_t d, gnn_agg_kind kind, float *out)
{
    float *inv_ds = NULL;
    if (kind == GNN_AGG_GCN && !(inv_ds = inv_sqrt_src_degrees(blk)))
        return GNN_ERR_NOMEM;
    for (int64_t f = 0; f < d; f++)
        for (int64_t v = 0; v < blk->n_dst; v++) {
            const int64_t b = blk->indptr[v], e = blk->indptr[v + 1], deg = e - b;
            float acc = 0.0f;
            if (kind == GNN_AGG_GCN) {
                for (int64_t i = b; i < e; i++)
                    acc += x[(int64_t)blk->indices[i] * d + f] * coef(kind, inv_ds, blk->indices[i], deg);
            } else {
                for (int64_t i = b; i < e; i++)
                    acc += x[(int64_t)blk->indices[i] * d + f];
                if (kind == GNN_AGG_MEAN && deg > 0)
                    acc *= 1.0f / (float)deg;
            }
            out[v * d + f] = acc;
        }
    free(inv_ds);
    return GNN_OK;
}

static gnn_status good_backward(const gnn_block *blk, const float *dout, int64_t d, gnn_agg_kind kind, float *dx)
{
    float *inv_ds = NULL;
    if (kind == GNN_AGG_GCN && !(inv_ds = inv_sqrt_src_degrees(blk)))
        return GNN_ERR_NOMEM;
    for (int64_t f = 0; f < d; f++) {
        for (int64_t u = 0; u < blk->n_src; u++)
            dx[u * d + f] = 0.0f;
        for (int64_t v = 0; v < blk->n_dst; v++) {
            const int64_t b = blk->indptr[v], e = blk->indptr[v + 1];
            for (int64_t i = b; i < e; i++)
                dx[(int64_t)blk->indices[i] * d + f] += dout[v * d + f] * coef(kind, inv_ds, blk->indices[i], e - b);
        }
    }
    free(inv_ds);
    return GNN_OK;
}

static gnn_status good_weighted_forward(const gnn_block *blk, const float *x, int64_t d, const float *w, float *out)
{
    for (int64_t f = 0; f < d; f++)
        for (int64_t v = 0; v < blk->n_dst; v++) {
            float acc = 0.0f;
            for (int64_t i = blk->indptr[v]; i < blk->indptr[v + 1]; i++)
                acc += x[(int64_t)blk->indices[i] * d + f] * w[i];
            out[v * d + f] = acc;
        }
    return GNN_OK;
}

static gnn_status good_weighted_backward(const gnn_block *blk, const float *x, const float *dout, int64_t d,
                                         const float *w, float *dx, float *dw)
{
    if (dx)
        for (int64_t f = 0; f < d; f++) {
            for (int64_t u = 0; u < blk->n_src; u++)
                dx[u * d + f] = 0.0f;
            for (int64_t v = 0; v < blk->n_dst; v++)
                for (int64_t i = blk->indptr[v]; i < blk->indptr[v + 1]; i++)
                    dx[(int64_t)blk->indices[i] * d + f] += dout[v * d + f] * w[i];
        }
    if (dw) /* dw[e] = <dout[v], x[u]>, summed over f in order from 0.0f */
        for (int64_t v = 0; v < blk->n_dst; v++)
            for (int64_t i = blk->indptr[v]; i < blk->indptr[v + 1]; i++) {
                const float *a = dout + v * d, *b = x + (int64_t)blk->indices[i] * d;
                float acc = 0.0f;
                for (int64_t f = 0; f < d; f++)
                    acc += a[f] * b[f];
                dw[i] = acc;
            }
    return GNN_OK;
}

static const gnn_aggregate_ops good_aggregate = {
    .name = "good-columns",
    .caps = GNN_CAP_DETERMINISTIC,
    .forward = good_forward,
    .backward = good_backward,
    .weighted_forward = good_weighted_forward,
    .weighted_backward = good_weighted_backward,
};

/* out[idx[i]] += src[i] for i ascending, row by row: first[] is a CSR of the positions by target */
static gnn_status good_index_add(float *out, int64_t n_out, int64_t d, const int64_t *idx, const float *src,
                                 int64_t n)
{
    int64_t *first = calloc((size_t)n_out + 2, sizeof *first), *pos = malloc(((size_t)n + 1) * sizeof *pos);
    if (!first || !pos) {
        free(first);
        free(pos);
        return GNN_ERR_NOMEM;
    }
    for (int64_t i = 0; i < n; i++)
        first[idx[i] + 2]++;
    for (int64_t r = 0; r < n_out; r++)
        first[r + 2] += first[r + 1];
    for (int64_t i = 0; i < n; i++) /* first[r + 1]: the next free slot of row r */
        pos[first[idx[i] + 1]++] = i;
    for (int64_t r = 0; r < n_out; r++)
        for (int64_t k = first[r]; k < first[r + 1]; k++)
            for (int64_t f = 0; f < d; f++)
                out[r * d + f] += src[pos[k] * d + f];
    free(first);
    free(pos);
    return GNN_OK;
}

static const gnn_index_add_ops good_index_add_ops = {
    .name = "good-gather",
    .caps = GNN_CAP_DETERMINISTIC,
    .run = good_index_add,
};

GNN_PLUGIN_REGISTER(r)
{
    if (gnn_plugin_add_aggregate(r, &good_aggregate, 0) != GNN_OK)
        return 1;
    return gnn_plugin_add_index_add(r, &good_index_add_ops, 0) == GNN_OK ? 0 : 1;
}
