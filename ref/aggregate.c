/* ref/aggregate.c -- reference neighbor aggregation, forward and backward.
 *
 * Plain C11, no intrinsics, no threads: this file is the specification; opt/cpu/aggregate.c
 * must reproduce it bit for bit.
 *
 * @eq{DistGNN-MB 1} h_N(v) = AGG({ f_u : u in N(v) }), with AGG = mean for GraphSAGE:
 *   out[v][f] = (x[u_0][f] + x[u_1][f] + ... ) * (1.0f / deg(v)),
 * the sum taken in CSR (draw) order, the reciprocal computed once per row (DESIGN.md
 * section 2, "Floating point"). deg(v) = 0 gives a zero row. */
#include <string.h>
#include "gnnref/aggregate.h"

static gnn_status agg_forward_ref(const gnn_block *blk, const float *x, int64_t d,
                                  gnn_agg_kind kind, float *out)
{
    for (int64_t v = 0; v < blk->n_dst; v++) {
        float *out_v = out + v * d;
        const int64_t b = blk->indptr[v], e = blk->indptr[v + 1];
        for (int64_t f = 0; f < d; f++)
            out_v[f] = 0.0f;
        /* accumulate in CSR order: the oracle compares bitwise */
        for (int64_t i = b; i < e; i++) {
            const float *x_u = x + (int64_t)blk->indices[i] * d;
            for (int64_t f = 0; f < d; f++)
                out_v[f] += x_u[f];
        }
        if (kind == GNN_AGG_MEAN && e > b) {
            const float inv = 1.0f / (float)(e - b);
            for (int64_t f = 0; f < d; f++)
                out_v[f] *= inv;
        }
    }
    return GNN_OK;
}

/* d out[v] / d x[u] = (1/deg v) per edge u -> v. dx[u] collects the contributions of its
 * edges in order of v, then edge position: the order opt/ must keep. */
static gnn_status agg_backward_ref(const gnn_block *blk, const float *dout, int64_t d,
                                   gnn_agg_kind kind, float *dx)
{
    memset(dx, 0, (size_t)blk->n_src * (size_t)d * sizeof(float));
    for (int64_t v = 0; v < blk->n_dst; v++) {
        const int64_t b = blk->indptr[v], e = blk->indptr[v + 1];
        if (e == b)
            continue;
        const float scale = kind == GNN_AGG_MEAN ? 1.0f / (float)(e - b) : 1.0f;
        const float *dout_v = dout + v * d;
        for (int64_t i = b; i < e; i++) {
            float *dx_u = dx + (int64_t)blk->indices[i] * d;
            for (int64_t f = 0; f < d; f++)
                dx_u[f] += dout_v[f] * scale;
        }
    }
    return GNN_OK;
}

const gnn_aggregate_ops gnn_aggregate_ref = {
    .name = "ref",
    .caps = GNN_CAP_DETERMINISTIC,
    .forward = agg_forward_ref,
    .backward = agg_backward_ref,
};
