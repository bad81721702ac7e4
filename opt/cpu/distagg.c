/* opt/cpu/distagg.c -- distributed aggregation with OpenMP (include/gnnref/distagg.h,
 * docs/distagg.md): ref/distagg.c with its loops over rows shared among threads.
 *
 * What changed from ref, and why the bits still match:
 *  - the send rows (pre sums, post copies), the local aggregation and the post-aggregation are
 *    each a parallel loop over rows (dynamic chunks: hub rows do not stall one thread); every
 *    output row is still one sum computed by one thread in the header's order, from 0.0f;
 *  - the feature loop is vectorized (omp simd): lanes are different features, never a split
 *    of one sum; -ffp-contract=off keeps each product rounded before its add;
 *  - quantization runs through gnn_quant_cpu, bitwise equal to gnn_quant_ref (oracle quant.pack);
 *  - setup is the reference's (gnn_distagg_setup_ref): it runs once per run.
 * The exchange (pack, ialltoallv, wait, unpack) is the reference's code, so the local work
 * still overlaps the messages (Fig. 1 step 5). No atomics: the backward gathers by source
 * through the transposed lists setup builds. */
#include <string.h>
#include "gnnref/distagg.h"
#include "gnnref/tensor.h"

/* ---- forward and backward -------------------------------------------------------------------- */

/* acc_row += a * c or += a (mul = 0): lanes are features, each element one sum in order */
static inline void axpy(float *restrict acc, const float *restrict a, float c, int mul, int64_t d)
{
    if (mul) {
#pragma omp simd
        for (int64_t f = 0; f < d; f++)
            acc[f] += a[f] * c;
    } else {
#pragma omp simd
        for (int64_t f = 0; f < d; f++)
            acc[f] += a[f];
    }
}

static gnn_status distagg_forward_cpu(gnn_comm *c, const gnn_distagg *da, const float *x, int64_t d,
                                      gnn_agg_kind kind, const gnn_quant_cfg *q, float *out)
{
    const int gcn = kind == GNN_AGG_GCN;
    float *send = gnn_calloc((size_t)(da->n_send * d) + 1, sizeof(float));
    float *recv = gnn_calloc((size_t)(da->n_recv * d) + 1, sizeof(float));
    if (!send || !recv) {
        gnn_free(send), gnn_free(recv);
        return GNN_ERR_NOMEM;
    }
    /* 1. the send rows: a post row is x[u]; a pre row the sum of its
     * pre sources in g's CSR order of row v (step 4, pre-aggregation) */
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t s = 0; s < da->n_send; s++)
        for (int64_t i = da->send_ptr[s]; i < da->send_ptr[s + 1]; i++)
            axpy(send + s * d, x + da->send_src[i] * d, da->send_c[i], gcn && da->send_pre[s], d);
    /* 2. post the exchange (step 5) */
    gnn_distagg_xchg X;
    gnn_status st = gnn_distagg_xchg_post(c, da, &gnn_quant_cpu,
                                          (gnn_distagg_rows){ da->send_off, da->send_npost, da->send_gid }, send, d, q,
                                          0, &X);
    if (st)
        goto free_rows;
    /* 3. the local graph while the rows travel: v's local in-edges in g's CSR order */
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t v = 0; v < da->n_own; v++) {
        float *out_v = out + v * d;
        for (int64_t f = 0; f < d; f++)
            out_v[f] = 0.0f;
        for (int64_t i = da->loc_ptr[v]; i < da->loc_ptr[v + 1]; i++)
            axpy(out_v, x + da->loc_src[i] * d, da->loc_c[i], gcn, d);
    }
    /* 4. wait, unpack, then the received rows by sender and message order (step 6) */
    st = gnn_distagg_xchg_finish(c, da, &gnn_quant_cpu,
                                 (gnn_distagg_rows){ da->recv_off, da->recv_npost, da->recv_gid }, d, &X, recv);
    if (st)
        goto free_rows;
#pragma omp parallel for schedule(dynamic, 64)
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

static gnn_status distagg_backward_cpu(gnn_comm *c, const gnn_distagg *da, const float *dout, int64_t d,
                                       gnn_agg_kind kind, const gnn_quant_cfg *q, float *dx)
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
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t s = 0; s < da->n_recv; s++)
        for (int64_t i = da->recv_ptr[s]; i < da->recv_ptr[s + 1]; i++) {
            const int64_t v = da->recv_dst[i];
            axpy(send + s * d, dout + v * d, mean ? da->inv_deg[v] : da->recv_c[i], mul && !da->recv_pre[s], d);
        }
    /* 2. post the exchange: the forward's rows the other way */
    gnn_distagg_xchg X;
    gnn_status st = gnn_distagg_xchg_post(c, da, &gnn_quant_cpu,
                                          (gnn_distagg_rows){ da->recv_off, da->recv_npost, da->recv_gid }, send, d, q,
                                          1, &X);
    if (st)
        goto free_rows;
    /* 3. the local graph transposed while they travel: u's out-edges by v then position */
#pragma omp parallel for schedule(dynamic, 64)
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
    st = gnn_distagg_xchg_finish(c, da, &gnn_quant_cpu,
                                 (gnn_distagg_rows){ da->send_off, da->send_npost, da->send_gid }, d, &X, recv);
    if (st)
        goto free_rows;
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t u = 0; u < da->n_own; u++)
        for (int64_t i = da->bwd_ptr[u]; i < da->bwd_ptr[u + 1]; i++)
            axpy(dx + u * d, recv + da->bwd_row[i] * d, mean ? da->bwd_cm[i] : da->bwd_c[i], mul && da->bwd_pre[i], d);
free_rows:
    gnn_free(send);
    gnn_free(recv);
    return st;
}

const gnn_distagg_ops gnn_distagg_cpu = {
    .name = "cpu",
    .caps = GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED,
    .setup = gnn_distagg_setup_ref, /* once per run: the reference's lists */
    .forward = distagg_forward_cpu,
    .backward = distagg_backward_cpu,
};
