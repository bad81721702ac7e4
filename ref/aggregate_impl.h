/* ref/aggregate_impl.h -- what ref/aggregate.c (the specification) and opt/cpu/aggregate.c both
 * evaluate: the GCN source factors 1 / sqrt(ds(u)), a dst row's factor and an edge's
 * coefficient c_e. How the rows and edges are split over threads and SIMD lanes stays in each
 * file. Plain C11, no threads. Internal: not installed. */
#ifndef GNN_REF_AGGREGATE_IMPL_H
#define GNN_REF_AGGREGATE_IMPL_H
#include <math.h>
#include <stdint.h>
#include "gnnref/aggregate.h"
#include "gnnref/tensor.h"

/* 1 / sqrt(ds(u)) for every src u, ds(u) = number of block edges whose src is u; 0 for a src
 * with no edges (never used: no edge reads it). Integer counts, then one correctly rounded
 * factor per src. Caller frees with gnn_free; NULL when out of memory. */
static inline float *gnn_agg_src_inv_sqrt_degrees(const gnn_block *blk)
{
    float *r = gnn_calloc((size_t)blk->n_src + 1, sizeof(float));
    int64_t *ds = gnn_calloc((size_t)blk->n_src + 1, sizeof(int64_t));
    if (!r || !ds) {
        gnn_free(r);
        gnn_free(ds);
        return NULL;
    }
    for (int64_t i = 0; i < blk->nnz; i++)
        ds[blk->indices[i]]++;
    for (int64_t u = 0; u < blk->n_src; u++)
        r[u] = ds[u] > 0 ? 1.0f / sqrtf((float)ds[u]) : 0.0f;
    gnn_free(ds);
    return r;
}

/* the factor of a dst row with deg > 0 edges: 1/deg (mean), 1/sqrt(deg) (GCN's dd(v)), 1 (sum) */
static inline float gnn_agg_row_factor(gnn_agg_kind kind, int64_t deg)
{
    return kind == GNN_AGG_MEAN ? 1.0f / (float)deg : kind == GNN_AGG_GCN ? 1.0f / sqrtf((float)deg) : 1.0f;
}

/* c_e of edge i = (u -> v) in the backward, row = gnn_agg_row_factor of v: w[i] (weighted),
 * inv_ds[u] * row (GCN), row (mean, sum) */
static inline float gnn_agg_edge_coef(gnn_agg_kind kind, const float *w, int64_t i, const float *inv_ds, int64_t u,
                                      float row)
{
    return w ? w[i] : kind == GNN_AGG_GCN ? inv_ds[u] * row : row;
}

#endif
