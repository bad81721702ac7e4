/* include/gnnref/rgcn.h -- the relational graph convolution (RGCN, Schlichtkrull et al. 2018),
 * one layer forward and backward on a block whose edges carry a relation (edge type); the
 * model of heterogeneous graphs in DistDGLv2 (section 4.1; docs/hetero.md;
 * ../shared/specs/next-capabilities.md C.4).
 *
 *   z[v] = x[v] W0 + sum over relations r = 0..R-1 of agg_r[v] W_r + b,
 *   agg_r[v] = (1 / c_{v,r}) sum over the in-edges u -> v of relation r of x[u],
 * c_{v,r} their number in the block (agg_r[v] = 0 when there are none); the dst vertices are
 * the block's first n_dst sources (x[v] of dst v is row v). With B > 0 bases the relation
 * weights are W_r = sum_b a[r][b] V_b (basis decomposition); with B = 0 they are given.
 *
 * The order of every sum (the contract: ref and cpu at any thread count give the same bits;
 * every product formed, then added, from 0.0f; no FMA):
 *   W_r[i][j]     = sum over b ascending of a[r][b] * V_b[i][j];
 *   agg_r[v][i]   = (sum over v's in-edges of relation r in CSR order of x[u][i]) * (1.0f / c);
 *   z[v][j]       = ((s_0 + t_0) + t_1 ... + t_{R-1}) + b[j], s_0 = sum_i x[v][i] W0[i][j],
 *                   t_r = sum_i agg_r[v][i] W_r[i][j] (i ascending);
 * backward from dz (n_dst, out):
 *   db[j]         = sum over v ascending of dz[v][j];
 *   dW0[i][j]     = sum over v ascending of x[v][i] dz[v][j]; dW_r likewise with agg_r;
 *   dV_b[i][j]    = sum over r ascending of a[r][b] * dW_r[i][j];
 *   da[r][b]      = sum over i, then j ascending of V_b[i][j] * dW_r[i][j];
 *   dagg_r[v][i]  = sum over j ascending of dz[v][j] W_r[i][j];
 *   dx[u][i]      = (u < n_dst ? sum_j dz[u][j] W0[i][j] : 0) + the edges u -> v of the block
 *                   by v ascending, then position, each adding dagg_{r(e)}[v][i] * (1.0f / c_{v,r(e)}).
 * Library code: returns gnn_status, never prints. */
#ifndef GNNREF_RGCN_H
#define GNNREF_RGCN_H

#include <stdint.h>
#include "gnnref/graph.h"
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gnn_rgcn_params {
    int64_t in, out;   /* widths */
    int64_t R;         /* relations, >= 1 */
    int64_t B;         /* bases; 0: w holds W_r */
    const float *w0;   /* (in, out) the self weight */
    const float *w;    /* B = 0: (R, in, out) */
    const float *v;    /* B > 0: (B, in, out) */
    const float *a;    /* B > 0: (R, B) */
    const float *bias; /* (out) or NULL */
} gnn_rgcn_params;

/* Gradients, each NULL when not wanted (the shapes of the parameters). */
typedef struct gnn_rgcn_grads {
    float *dw0, *dw, *dv, *da, *dbias;
} gnn_rgcn_grads;

typedef struct gnn_rgcn_ops {
    const char *name; /* "ref", "cpu" */
    unsigned caps;
    /* z (n_dst, out); agg (R, n_dst, in) receives the relations' means for the backward (may be
     * NULL) */
    gnn_status (*forward)(const gnn_block *blk, const int32_t *etype, const float *x, const gnn_rgcn_params *p,
                          float *z, float *agg);
    /* from the forward's agg; dx (n_src, in) may be NULL */
    gnn_status (*backward)(const gnn_block *blk, const int32_t *etype, const float *x, const gnn_rgcn_params *p,
                           const float *agg, const float *dz, float *dx, const gnn_rgcn_grads *g);
} gnn_rgcn_ops;

extern const gnn_rgcn_ops gnn_rgcn_ref, gnn_rgcn_cpu;

/* Checked entry points (core/ops/kernels.c). GNN_ERR_INVAL: NULL ops, blk or params; in, out < 0;
 * R < 1; B < 0; a NULL array that has elements (x, z, w0, w or v and a, dz, agg for the
 * backward); GNN_ERR_RANGE: an etype outside [0, R), a malformed block. GNN_ERR_NOMEM. */
gnn_status gnn_rgcn_forward(const gnn_rgcn_ops *ops, const gnn_block *blk, const int32_t *etype, const float *x,
                            const gnn_rgcn_params *p, float *z, float *agg);
gnn_status gnn_rgcn_backward(const gnn_rgcn_ops *ops, const gnn_block *blk, const int32_t *etype, const float *x,
                             const gnn_rgcn_params *p, const float *agg, const float *dz, float *dx,
                             const gnn_rgcn_grads *g);

/* W_r of the basis decomposition into w (R, in, out) in the order above (ref and cpu share it). */
void gnn_rgcn_relation_weights(const gnn_rgcn_params *p, float *w);
/* The relation weights a layer multiplies by: p->w, or (B > 0) the decomposition into a new
 * buffer *own (the caller frees it; NULL when B = 0). NULL when out of memory. Unchecked. */
const float *gnn_rgcn_weights(const gnn_rgcn_params *p, float **own);

#ifdef __cplusplus
}
#endif
#endif
