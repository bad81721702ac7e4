/* ref/aggregate.c -- reference neighbor aggregation, forward and backward.
 *
 * Plain C11, no intrinsics, no threads: this file is the specification; opt/cpu/aggregate.c
 * must reproduce it bit for bit. The arguments are checked once by the public entry points
 * (gnn_aggregate_forward, ... in core/ops/kernels.c): the functions here assume valid input.
 *
 * @eq{DistGNN-MB 1} h_N(v) = AGG({ f_u : u in N(v) }), with AGG = mean for GraphSAGE:
 *   out[v][f] = (x[u_0][f] + x[u_1][f] + ... ) * (1.0f / deg(v)),
 * the sum taken in CSR (draw) order, the reciprocal computed once per row (DESIGN.md
 * section 2, "Floating point"). deg(v) = 0 gives a zero row.
 *
 * GCN (Kipf & Welling; SuperGCN section 2 aggregates with the same normalized adjacency):
 *   out[v] = sum over edges e = (u -> v), in CSR order, of x[u] * c_e,
 *   c_e = (1.0f / sqrtf((float)ds(u))) * (1.0f / sqrtf((float)dd(v))),
 * the block's D_src^-1/2 A D_dst^-1/2 with both degrees counted inside the block.
 * Weighted: the same sum with c_e = w[e] (an attention coefficient or an edge weight). */
#include <math.h>
#include <string.h>
#include "gnnref/aggregate.h"
#include "gnnref/tensor.h"
#include "ref/aggregate_impl.h" /* 1 / sqrt(ds(u)) per src, a row's factor, an edge's c_e */

/* @eq{DistGNN-MB 1} AGG (mean for GraphSAGE, sum for GIN) and @eq{GCN 2}'s normalized
 * propagation D^-1/2 A D^-1/2 (kind GNN_AGG_GCN). */
static gnn_status agg_forward_ref(const gnn_block *blk, const float *x, int64_t d,
                                  gnn_agg_kind kind, float *out)
{
    float *inv_ds = NULL;
    if (kind == GNN_AGG_GCN && !(inv_ds = gnn_agg_src_inv_sqrt_degrees(blk)))
        return GNN_ERR_NOMEM;
    for (int64_t v = 0; v < blk->n_dst; v++) {
        float *out_v = out + v * d;
        const int64_t b = blk->indptr[v], e = blk->indptr[v + 1];
        for (int64_t f = 0; f < d; f++)
            out_v[f] = 0.0f;
        if (kind == GNN_AGG_GCN) {
            if (e == b)
                continue;
            const float inv_dd = gnn_agg_row_factor(GNN_AGG_GCN, e - b); /* 1 / sqrt(dd(v)) */
            for (int64_t i = b; i < e; i++) {
                const int64_t u = blk->indices[i];
                const float c = inv_ds[u] * inv_dd; /* c_e */
                const float *x_u = x + u * d;
                for (int64_t f = 0; f < d; f++)
                    out_v[f] += x_u[f] * c;
            }
            continue;
        }
        /* accumulate in CSR order: the oracle compares bitwise */
        for (int64_t i = b; i < e; i++) {
            const float *x_u = x + (int64_t)blk->indices[i] * d;
            for (int64_t f = 0; f < d; f++)
                out_v[f] += x_u[f];
        }
        if (kind == GNN_AGG_MEAN && e > b) {
            const float inv = gnn_agg_row_factor(GNN_AGG_MEAN, e - b); /* 1 / deg(v) */
            for (int64_t f = 0; f < d; f++)
                out_v[f] *= inv;
        }
    }
    gnn_free(inv_ds);
    return GNN_OK;
}

/* d out[v] / d x[u] = c_e per edge e = (u -> v): 1/deg v (mean), 1 (sum), the GCN
 * coefficient, or w[e] (weighted). dx[u] collects the contributions of its edges in order
 * of v, then edge position: the order opt/ must keep. coef: per-edge coefficients (NULL for
 * mean and sum), inv_ds: 1/sqrt(ds) per src (GCN only). */
static void scatter_back(const gnn_block *blk, const float *dout, int64_t d, gnn_agg_kind kind,
                         const float *inv_ds, const float *w, float *dx)
{
    memset(dx, 0, (size_t)blk->n_src * (size_t)d * sizeof(float));
    for (int64_t v = 0; v < blk->n_dst; v++) {
        const int64_t b = blk->indptr[v], e = blk->indptr[v + 1];
        if (e == b)
            continue;
        const float row = gnn_agg_row_factor(kind, e - b);
        const float *dout_v = dout + v * d;
        for (int64_t i = b; i < e; i++) {
            const int64_t u = blk->indices[i];
            const float c = gnn_agg_edge_coef(kind, w, i, inv_ds, u, row);
            float *dx_u = dx + u * d;
            for (int64_t f = 0; f < d; f++)
                dx_u[f] += dout_v[f] * c;
        }
    }
}

static gnn_status agg_backward_ref(const gnn_block *blk, const float *dout, int64_t d,
                                   gnn_agg_kind kind, float *dx)
{
    float *inv_ds = NULL;
    if (kind == GNN_AGG_GCN && !(inv_ds = gnn_agg_src_inv_sqrt_degrees(blk)))
        return GNN_ERR_NOMEM;
    scatter_back(blk, dout, d, kind, inv_ds, NULL, dx);
    gnn_free(inv_ds);
    return GNN_OK;
}

/* Weighted forward: out[v] = sum over edges e of v, in CSR order, of x[src(e)] * w[e]. */
static gnn_status agg_weighted_forward_ref(const gnn_block *blk, const float *x, int64_t d, const float *w,
                                           float *out)
{
    for (int64_t v = 0; v < blk->n_dst; v++) {
        float *out_v = out + v * d;
        for (int64_t f = 0; f < d; f++)
            out_v[f] = 0.0f;
        for (int64_t i = blk->indptr[v]; i < blk->indptr[v + 1]; i++) {
            const float *x_u = x + (int64_t)blk->indices[i] * d;
            const float c = w[i];
            for (int64_t f = 0; f < d; f++)
                out_v[f] += x_u[f] * c;
        }
    }
    return GNN_OK;
}

/* Weighted backward: dx[u] = sum over edges (u -> v), by v then edge position, of
 * dout[v] * w[e]; dw[e] = d L / d w[e] = <dout[v], x[u]>, summed over f in order from 0.0f. */
static gnn_status agg_weighted_backward_ref(const gnn_block *blk, const float *x, const float *dout, int64_t d,
                                            const float *w, float *dx, float *dw)
{
    if (dx)
        scatter_back(blk, dout, d, GNN_AGG_SUM, NULL, w, dx);
    if (dw) {
        for (int64_t v = 0; v < blk->n_dst; v++) {
            const float *dout_v = dout + v * d;
            for (int64_t i = blk->indptr[v]; i < blk->indptr[v + 1]; i++) {
                const float *x_u = x + (int64_t)blk->indices[i] * d;
                float acc = 0.0f;
                for (int64_t f = 0; f < d; f++)
                    acc += dout_v[f] * x_u[f];
                dw[i] = acc;
            }
        }
    }
    return GNN_OK;
}

const gnn_aggregate_ops gnn_aggregate_ref = {
    .name = "ref",
    .caps = GNN_CAP_DETERMINISTIC,
    .forward = agg_forward_ref,
    .backward = agg_backward_ref,
    .weighted_forward = agg_weighted_forward_ref,
    .weighted_backward = agg_weighted_backward_ref,
};
