/* ref/distagg_body.h -- the forward and backward of distributed aggregation: the
 * specification (include/gnnref/distagg.h, docs/distagg.md), written once for the reference
 * (ref/distagg.c) and the OpenMP tier (opt/cpu/distagg.c), which differ only where they
 * thread and in the quantization table they pass (`quant`: gnn_quant_ref, gnn_quant_cpu,
 * bitwise equal, oracle quant.pack).
 *
 * The includer defines, before including it:
 *   GNN_DISTAGG_ROWS  put before each loop over rows (send rows, the local graph, the
 *                     received rows): empty in the reference; the OpenMP tier shares the rows
 *                     among threads. Every output row is one sum, from 0.0f, computed by one
 *                     thread in the header's order, so the bits do not depend on the split;
 *   GNN_DISTAGG_SIMD  put before each loop over features: empty in the reference; `omp simd`
 *                     in the tier. Lanes are different features, never a split of one sum, and
 *                     -ffp-contract=off keeps each product rounded before its add.
 * The exchange (pack, ialltoallv, wait, unpack) is core/dist/distagg_xchg.c's, so the local
 * work overlaps the messages (Fig. 1 step 5). No atomics: the backward gathers by source
 * through the transposed lists setup builds. */
#ifndef GNNREF_REF_DISTAGG_BODY_H
#define GNNREF_REF_DISTAGG_BODY_H

#include "gnnref/distagg.h"
#include "gnnref/tensor.h"

#if !defined(GNN_DISTAGG_ROWS) || !defined(GNN_DISTAGG_SIMD)
#error "define GNN_DISTAGG_ROWS and GNN_DISTAGG_SIMD before including ref/distagg_body.h"
#endif

/* ---- forward and backward -------------------------------------------------------------------- */

/* acc_row += a * c (GCN products) or += a (mul = 0); lanes (GNN_DISTAGG_SIMD) are features,
 * each element one sum in order */
static inline void axpy(float *restrict acc, const float *restrict a, float c, int mul, int64_t d)
{
    if (mul) {
        GNN_DISTAGG_SIMD
        for (int64_t f = 0; f < d; f++)
            acc[f] += a[f] * c;
    } else {
        GNN_DISTAGG_SIMD
        for (int64_t f = 0; f < d; f++)
            acc[f] += a[f];
    }
}

static gnn_status distagg_forward(const gnn_quant_ops *quant, gnn_comm *c, const gnn_distagg *da, const float *x,
                                  int64_t d, gnn_agg_kind kind, const gnn_quant_cfg *q, float *out)
{
    const int gcn = kind == GNN_AGG_GCN;
    float *send = gnn_calloc((size_t)(da->n_send * d) + 1, sizeof(float));
    float *recv = gnn_calloc((size_t)(da->n_recv * d) + 1, sizeof(float));
    if (!send || !recv) {
        gnn_free(send), gnn_free(recv);
        return GNN_ERR_NOMEM;
    }
    /* 1. @alg{SuperGCN 2, lines 4-8} the send rows: a post row is x[u]; a pre row the sum of its
     * pre sources in g's CSR order of row v (step 4, pre-aggregation) */
    GNN_DISTAGG_ROWS
    for (int64_t s = 0; s < da->n_send; s++)
        for (int64_t i = da->send_ptr[s]; i < da->send_ptr[s + 1]; i++)
            axpy(send + s * d, x + da->send_src[i] * d, da->send_c[i], gcn && da->send_pre[s], d);
    /* 2. post the exchange (step 5) */
    gnn_distagg_xchg X;
    gnn_status st = gnn_distagg_xchg_post(c, da, quant,
                                          (gnn_distagg_rows){ da->send_off, da->send_npost, da->send_gid }, send, d, q,
                                          0, &X);
    if (st)
        goto free_rows;
    /* 3. the local graph while the rows travel: v's local in-edges in g's CSR order */
    GNN_DISTAGG_ROWS
    for (int64_t v = 0; v < da->n_own; v++) {
        float *out_v = out + v * d;
        for (int64_t f = 0; f < d; f++)
            out_v[f] = 0.0f;
        for (int64_t i = da->loc_ptr[v]; i < da->loc_ptr[v + 1]; i++)
            axpy(out_v, x + da->loc_src[i] * d, da->loc_c[i], gcn, d);
    }
    /* 4. wait, unpack, then the received rows by sender and message order (step 6) */
    st = gnn_distagg_xchg_finish(c, da, quant,
                                 (gnn_distagg_rows){ da->recv_off, da->recv_npost, da->recv_gid }, d, &X, recv);
    if (st)
        goto free_rows;
    GNN_DISTAGG_ROWS
    for (int64_t v = 0; v < da->n_own; v++) {
        float *out_v = out + v * d;
        for (int64_t i = da->fwd_ptr[v]; i < da->fwd_ptr[v + 1]; i++)
            axpy(out_v, recv + da->fwd_row[i] * d, da->fwd_c[i], gcn && !da->fwd_pre[i], d);
        if (kind == GNN_AGG_MEAN && da->deg_in[v] > 0)
            for (int64_t f = 0; f < d; f++)
                out_v[f] *= da->inv_deg[v];
    }
free_rows:
    gnn_free(send);
    gnn_free(recv);
    return st;
}

static gnn_status distagg_backward(const gnn_quant_ops *quant, gnn_comm *c, const gnn_distagg *da, const float *dout,
                                   int64_t d, gnn_agg_kind kind, const gnn_quant_cfg *q, float *dx)
{
    const int mul = kind != GNN_AGG_SUM; /* b_uv: MEAN 1/deg_in(v), SUM 1 (no product), GCN c_uv */
    const int mean = kind == GNN_AGG_MEAN;
    float *send = gnn_calloc((size_t)(da->n_recv * d) + 1, sizeof(float));
    float *recv = gnn_calloc((size_t)(da->n_send * d) + 1, sizeof(float));
    if (!send || !recv) {
        gnn_free(send), gnn_free(recv);
        return GNN_ERR_NOMEM;
    }
    /* 1. the rows back to each sender of the forward: for a post row u, g_u = the sum of
     * dout[v] * b_uv over its post edges by v then position; for a pre row v, dout[v] */
    GNN_DISTAGG_ROWS
    for (int64_t s = 0; s < da->n_recv; s++)
        for (int64_t i = da->recv_ptr[s]; i < da->recv_ptr[s + 1]; i++) {
            const int64_t v = da->recv_dst[i];
            axpy(send + s * d, dout + v * d, mean ? da->inv_deg[v] : da->recv_c[i], mul && !da->recv_pre[s], d);
        }
    /* 2. post the exchange: the forward's rows the other way */
    gnn_distagg_xchg X;
    gnn_status st = gnn_distagg_xchg_post(c, da, quant,
                                          (gnn_distagg_rows){ da->recv_off, da->recv_npost, da->recv_gid }, send, d, q,
                                          1, &X);
    if (st)
        goto free_rows;
    /* 3. the local graph transposed while they travel: u's out-edges by v then position */
    GNN_DISTAGG_ROWS
    for (int64_t u = 0; u < da->n_own; u++) {
        float *dx_u = dx + u * d;
        for (int64_t f = 0; f < d; f++)
            dx_u[f] = 0.0f;
        for (int64_t i = da->loct_ptr[u]; i < da->loct_ptr[u + 1]; i++) {
            const int64_t v = da->loct_dst[i];
            axpy(dx_u, dout + v * d, mean ? da->inv_deg[v] : da->loct_c[i], mul, d);
        }
    }
    /* 4. wait, unpack, then the received rows by sender and message order: a post row as it
     * is, a pre row v times b_uv per pre edge u -> v */
    st = gnn_distagg_xchg_finish(c, da, quant,
                                 (gnn_distagg_rows){ da->send_off, da->send_npost, da->send_gid }, d, &X, recv);
    if (st)
        goto free_rows;
    GNN_DISTAGG_ROWS
    for (int64_t u = 0; u < da->n_own; u++)
        for (int64_t i = da->bwd_ptr[u]; i < da->bwd_ptr[u + 1]; i++)
            axpy(dx + u * d, recv + da->bwd_row[i] * d, mean ? da->bwd_cm[i] : da->bwd_c[i], mul && da->bwd_pre[i], d);
free_rows:
    gnn_free(send);
    gnn_free(recv);
    return st;
}

#endif
