/* ref/gat_impl.h -- what ref/gat.c (the specification) and opt/cpu/gat.c both evaluate, row by
 * row: a logit's dot product, LeakyReLU, the edge softmax of a dst row and the softmax and
 * LeakyReLU backward of an edge. The loops over rows and edges, and how opt splits them over
 * threads and SIMD lanes, stay in each file. Plain C11, no threads. Internal: not installed. */
#ifndef GNN_REF_GAT_IMPL_H
#define GNN_REF_GAT_IMPL_H
#include <math.h>
#include <stdint.h>
#include "gnnref/graph.h"

/* sum_f x[f] * y[f], f ascending from 0.0f (a logit a . z_u, or datt = dout_v . z_u per head) */
static inline float gnn_gat_dot(const float *x, const float *y, int64_t F)
{
    float acc = 0.0f;
    for (int64_t f = 0; f < F; f++)
        acc += x[f] * y[f];
    return acc;
}

static inline float gnn_gat_leaky(float x, float slope) { return x > 0.0f ? x : slope * x; }

/* Edge softmax of row v, all heads: a[(i - b)*H + h] for edges i in [b, e) receives
 * alpha = exp(s - m) / sum exp(s - m), s = LeakyReLU(el[u][h] + er[v][h]), m the row's largest
 * s, the sum in CSR order from 0.0f (numerically stable: every exponent <= 0, the largest
 * term is exactly 1, so the sum is in [1, deg] and never overflows or vanishes). */
static inline void gnn_gat_softmax_row(const gnn_block *blk, const float *el, const float *er, int64_t H, float slope,
                                       int64_t v, float *a)
{
    const int64_t b = blk->indptr[v], e = blk->indptr[v + 1];
    for (int64_t h = 0; h < H; h++) {
        const float er_vh = er[v * H + h];
        float m = -INFINITY;
        for (int64_t i = b; i < e; i++) {
            const float s = gnn_gat_leaky(el[(int64_t)blk->indices[i] * H + h] + er_vh, slope);
            a[(i - b) * H + h] = s;
            if (s > m)
                m = s;
        }
        float sum = 0.0f;
        for (int64_t i = b; i < e; i++) {
            const float x = expf(a[(i - b) * H + h] - m);
            a[(i - b) * H + h] = x;
            sum += x;
        }
        for (int64_t i = b; i < e; i++)
            a[(i - b) * H + h] = a[(i - b) * H + h] / sum;
    }
}

/* dpre of one edge: ds = alpha * (dalpha - dot) (the softmax backward, dot = the row's sum of
 * alpha * dalpha), then LeakyReLU's backward at pre = el[u] + er[v] */
static inline float gnn_gat_dpre(float alpha, float dalpha, float dot, float pre, float slope)
{
    const float ds = alpha * (dalpha - dot);
    return pre > 0.0f ? ds : ds * slope;
}

#endif
