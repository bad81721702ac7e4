/* include/gnnref/gat.h -- graph attention (Velickovic et al., ICLR 2018; DistGNN-MB Eq. 2):
 * the attention and aggregation part of a GAT layer, after the per-head projection.
 *
 * z (n_src, H*F): projected features, head h in columns [h*F, (h+1)*F). The projection is the
 * model's: z = x . W (Velickovic; the bias is added after aggregation) or
 * z = ReLU(x . W + b) (DistGNN-MB Eq. 2, bias and ReLU before the attention). al, ar (H*F):
 * the src and dst attention vectors. blk: CSC block (dst v is also src v).
 *
 *   el[u][h] = sum_f z[u][h][f] * al[h][f]            (f ascending; u < n_src)
 *   er[v][h] = sum_f z[v][h][f] * ar[h][f]            (v < n_dst)
 *   s[e][h]  = LeakyReLU(el[u][h] + er[v][h])         (slope p->slope, e = (u -> v))
 *   alpha[e][h] = exp(s[e][h] - m) / sum over v's edges, CSR order, of exp(s - m),
 *                 m = max over v's edges of s          (numerically stable edge softmax)
 *   att[e][h] = alpha[e][h] * keep / (1 - attn_drop)   attention dropout: keep when float
 *                 draw (j*H + h) of stream (seed, GNN_TAG_ATTN_DROPOUT, step, layer,
 *                 id = dst_gid[v]) >= attn_drop, j = e's position in v's row (0 = first)
 *   out[v][h][f] = sum over v's edges, CSR order, of att[e][h] * z[u][h][f]
 * A dst with no edges gets a zero row. Heads are concatenated in out (n_dst, H*F); averaging
 * them (the output layer) is the model's.
 *
 * backward, from dout (n_dst, H*F): dz (n_src, H*F), dal, dar (H*F), all overwritten.
 * forward saves alpha (nnz*H, pre-dropout) for it; the dropout mask is recomputed from keys.
 * Orders of the backward (ref/gat.c; mk = keep / (1 - attn_drop), pre = el[u] + er[v]):
 *   datt = sum_f dout[v][h][f] * z[u][h][f] (f ascending); dalpha = datt * mk;
 *   dot[v][h] = sum over v's edges, CSR order, of alpha * dalpha; ds = alpha * (dalpha - dot);
 *   dpre = pre > 0 ? ds : ds * slope; der[v][h] = sum over v's edges, CSR order, of dpre;
 *   del[u][h] = sum over edges (u -> v), by v then edge position, of dpre;
 *   dz[u][h][f] = (sum over edges (u -> v), by v then position, of att * dout[v][h][f])
 *                 + del[u][h] * al[h][f], then + der[u][h] * ar[h][f] when u < n_dst;
 *   dal[h][f] = sum over u ascending of del[u][h] * z[u][h][f]; dar the same with der, v < n_dst.
 * Every sum starts from 0.0f and adds each product after forming it. Errors: GNN_ERR_INVAL for
 * heads < 1, f < 0, attn_drop outside [0, 1), a non-finite slope, a malformed block or a NULL
 * array that has elements; GNN_ERR_RANGE for a src id outside [0, n_src). */
#ifndef GNNREF_GAT_H
#define GNNREF_GAT_H

#include <stdint.h>
#include "gnnref/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gnn_gat_params {
    int64_t heads;          /* H >= 1 */
    int64_t f;              /* F: features per head */
    float slope;            /* LeakyReLU negative slope (0.2 in the paper) */
    float attn_drop;        /* attention dropout p in [0, 1) */
    uint64_t seed;
    uint32_t step;
    unsigned layer;
    const int64_t *dst_gid; /* (n_dst) global id of each dst (usually blk->src_gid); NULL: v */
} gnn_gat_params;

typedef struct gnn_gat_ops {
    const char *name; /* "ref", "cpu" */
    unsigned caps;
    /* out (n_dst, H*F); alpha (nnz*H) saved for backward (may be NULL when not training) */
    gnn_status (*forward)(const gnn_block *blk, const float *z, const float *al, const float *ar,
                          const gnn_gat_params *p, float *out, float *alpha);
    gnn_status (*backward)(const gnn_block *blk, const float *z, const float *al, const float *ar,
                           const gnn_gat_params *p, const float *alpha, const float *dout, float *dz,
                           float *dal, float *dar);
} gnn_gat_ops;

extern const gnn_gat_ops gnn_gat_ref, gnn_gat_cpu;

/* The public entry points (core/ops/kernels.c): check everything the "Errors" above list, in
 * that order (parameters, block sizes, an overflowing nnz*H or H*F (GNN_ERR_RANGE), the
 * inputs, the block's indptr, its src ids (GNN_ERR_RANGE), then the outputs: out, or alpha
 * when nnz > 0, dout, dz, dal and dar), then call ops's op of the same name, whose body
 * assumes valid input and may still return GNN_ERR_NOMEM. Nothing is written on an error.
 * ops NULL is GNN_ERR_INVAL; an op ops lacks is GNN_ERR_UNSUPPORTED. */
gnn_status gnn_gat_forward(const gnn_gat_ops *ops, const gnn_block *blk, const float *z, const float *al,
                           const float *ar, const gnn_gat_params *p, float *out, float *alpha);
gnn_status gnn_gat_backward(const gnn_gat_ops *ops, const gnn_block *blk, const float *z, const float *al,
                            const float *ar, const gnn_gat_params *p, const float *alpha, const float *dout,
                            float *dz, float *dal, float *dar);

#ifdef __cplusplus
}
#endif
#endif
