/* ref/distagg.c -- reference distributed aggregation (include/gnnref/distagg.h, docs/distagg.md).
 *
 * Plain C11, no intrinsics, no threads: this file is the specification; opt/cpu/distagg.c must
 * reproduce its bits at any thread count. The arguments are checked once by the entry points
 * (core/dist/distagg.c): the functions here assume valid input.
 *
 * SuperGCN's Fig. 1, steps 4-6 (@sec{SuperGCN 2}, "Subgraph construction based on a hybrid of
 * pre- and post-aggregation"; the edge split of @alg{SuperGCN 2, lines 4-8} comes from the
 * plan, include/gnnref/commplan.h):
 *   setup    split this rank's in-edges into the local graph, the pre-aggregation graph (the
 *            sources it sums for another rank) and the post-aggregation graph (the received
 *            rows to local destinations); every list in the order the header's contract names;
 *   forward  1. the send rows: post rows copied, pre rows summed (step 4, pre-aggregation);
 *            2. pack and post the exchange (step 5);
 *            3. the local graph aggregated while it travels (step 4, overlapped);
 *            4. wait, unpack (step 5), post-aggregate and, for MEAN, scale (step 6);
 *   backward the transpose, the same rows the other way ([CODE] super_gnn Aggregator.backward).
 * Setup is here; forward and backward are ref/distagg_body.h, which opt/cpu/distagg.c includes
 * too, with its row loops threaded (the one body of both; the quantization table a parameter).
 * The exchange itself (pack, post, wait, check, unpack, the optional timing) and the plan's
 * edge lookup are plumbing every implementation shares: core/dist/distagg_xchg.c and
 * core/dist/distagg.c; so are setup's growable lists of addends, their stable sort into CSR
 * lists and the degrees (core/dist/distagg_setup.c, core/dist/distagg_internal.h). ref/ keeps
 * the algorithm only (issue 35 item 3). */
#include <string.h>
#include "core/dist/distagg_internal.h"
#include "gnnref/distagg.h"
#include "gnnref/tensor.h"

/* ---- setup ----------------------------------------------------------------------------------- */

/* setup state shared by the steps below */
typedef struct setup_ctx {
    const gnn_csr *g;
    const int32_t *part;
    const gnn_commplan *plan;
    int64_t k, rank;
    int64_t *lid; /* (n) local id of an owned vertex, -1 for the others */
    gnn_da_degrees D;
} setup_ctx;

/* step 1: owned vertices, their degrees, the local graph by destination and by source */
static gnn_status setup_local(setup_ctx *S, gnn_distagg *da)
{
    const gnn_csr *g = S->g;
    for (int64_t v = 0; v < g->n; v++)
        S->lid[v] = S->part[v] == S->rank ? da->n_own++ : -1;
    da->own_gid = gnn_malloc_array((size_t)da->n_own + 1, sizeof(int64_t));
    da->deg_in = gnn_malloc_array((size_t)da->n_own + 1, sizeof(int64_t));
    da->inv_deg = gnn_malloc_array((size_t)da->n_own + 1, sizeof(float));
    if (!da->own_gid || !da->deg_in || !da->inv_deg)
        return GNN_ERR_NOMEM;
    gnn_da_addends loc = { 0 };
    for (int64_t v = 0; v < g->n; v++) {
        const int64_t l = S->lid[v];
        if (l < 0)
            continue;
        da->own_gid[l] = v;
        da->deg_in[l] = gnn_csr_degree(g, v);
        da->inv_deg[l] = S->D.inv_in[v];
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) { /* g's CSR order of row v */
            const int64_t u = g->indices[e];
            if (S->part[u] == S->rank && gnn_da_add(&loc, l, S->lid[u], S->D.isq_out[u] * S->D.isq_in[v], 0.0f, 0)) {
                gnn_da_addends_free(&loc);
                return GNN_ERR_NOMEM;
            }
        }
    }
    int bad = gnn_da_by_key(&loc, da->n_own, &da->loc_ptr, &da->loc_src, &da->loc_c, NULL, NULL);
    if (!bad) { /* the transpose: key = source, the addends already by v then position */
        gnn_da_addends t = loc;
        t.key = loc.idx, t.idx = loc.key;
        bad = gnn_da_by_key(&t, da->n_own, &da->loct_ptr, &da->loct_dst, &da->loct_c, NULL, NULL);
    }
    gnn_da_addends_free(&loc);
    return bad ? GNN_ERR_NOMEM : GNN_OK;
}

/* step 2: the forward send rows (= backward received rows), to every other rank q ascending:
 * the post rows u, then the pre rows v with their pre sources in g's CSR order of row v; and
 * the backward addends by source (a post row: itself; a pre row: dout[v] * b_uv per pre edge) */
static gnn_status setup_send(setup_ctx *S, gnn_distagg *da)
{
    const gnn_commplan *P = S->plan;
    const int64_t k = S->k, r = S->rank;
    da->send_off = gnn_calloc((size_t)k + 1, sizeof(int64_t));
    da->send_npost = gnn_calloc((size_t)k + 1, sizeof(int64_t));
    if (!da->send_off || !da->send_npost)
        return GNN_ERR_NOMEM;
    for (int64_t q = 0; q < k; q++) {
        const int64_t p = q == r ? -1 : gnn_commplan_slot(P, r * k + q); /* -1: no cut edge r -> q */
        da->send_npost[q] = p < 0 ? 0 : P->post_ptr[p + 1] - P->post_ptr[p];
        da->send_off[q + 1] = da->send_off[q] + (p < 0 ? 0 : gnn_commplan_slot_rows(P, p));
    }
    da->n_send = da->send_off[k];
    da->send_gid = gnn_malloc_array((size_t)da->n_send + 1, sizeof(int64_t));
    da->send_pre = gnn_malloc((size_t)da->n_send + 1);
    if (!da->send_gid || !da->send_pre)
        return GNN_ERR_NOMEM;
    gnn_da_addends src = { 0 }, bwd = { 0 };
    gnn_status st = GNN_OK;
    for (int64_t q = 0; q < k && !st; q++) {
        const int64_t p = q == r ? -1 : gnn_commplan_slot(P, r * k + q);
        if (p < 0)
            continue;
        int64_t row = da->send_off[q];
        for (int64_t i = P->post_ptr[p]; i < P->post_ptr[p + 1]; i++, row++) {
            const int64_t u = P->post_rows[i];
            da->send_gid[row] = u;
            da->send_pre[row] = 0;
            if (gnn_da_add(&src, row, S->lid[u], 1.0f, 0.0f, 0) || gnn_da_add(&bwd, S->lid[u], row, 0.0f, 0.0f, 0))
                st = GNN_ERR_NOMEM;
        }
        for (int64_t i = P->pre_ptr[p]; i < P->pre_ptr[p + 1] && !st; i++, row++) {
            const int64_t v = P->pre_rows[i];
            da->send_gid[row] = v;
            da->send_pre[row] = 1;
            for (int64_t e = S->g->indptr[v]; e < S->g->indptr[v + 1] && !st; e++) {
                const int64_t u = S->g->indices[e];
                if (S->part[u] != r || gnn_distagg_edge_post(P, r, q, u, v) != 0)
                    continue;
                const float c = S->D.isq_out[u] * S->D.isq_in[v];
                if (gnn_da_add(&src, row, S->lid[u], c, 0.0f, 0) ||
                    gnn_da_add(&bwd, S->lid[u], row, c, S->D.inv_in[v], 1))
                    st = GNN_ERR_NOMEM;
            }
        }
    }
    if (!st && (gnn_da_by_key(&src, da->n_send, &da->send_ptr, &da->send_src, &da->send_c, NULL, NULL) ||
                gnn_da_by_key(&bwd, da->n_own, &da->bwd_ptr, &da->bwd_row, &da->bwd_c, &da->bwd_cm, &da->bwd_pre)))
        st = GNN_ERR_NOMEM;
    gnn_da_addends_free(&src);
    gnn_da_addends_free(&bwd);
    return st;
}

/* step 3: the forward received rows (= backward send rows), from every other rank q
 * ascending: its post rows u, then its pre rows v. A post row's entries are its post edges
 * u -> v by v ascending, then position in row v (each occurrence of a repeated edge); a pre
 * row's entry is v. Then the forward addends by destination, each v's in row order. */
static gnn_status setup_recv(setup_ctx *S, gnn_distagg *da)
{
    const gnn_commplan *P = S->plan;
    const gnn_csr *g = S->g;
    const int64_t k = S->k, r = S->rank;
    da->recv_off = gnn_calloc((size_t)k + 1, sizeof(int64_t));
    da->recv_npost = gnn_calloc((size_t)k + 1, sizeof(int64_t));
    if (!da->recv_off || !da->recv_npost)
        return GNN_ERR_NOMEM;
    for (int64_t q = 0; q < k; q++) {
        const int64_t p = q == r ? -1 : gnn_commplan_slot(P, q * k + r); /* -1: no cut edge q -> r */
        da->recv_npost[q] = p < 0 ? 0 : P->post_ptr[p + 1] - P->post_ptr[p];
        da->recv_off[q + 1] = da->recv_off[q] + (p < 0 ? 0 : gnn_commplan_slot_rows(P, p));
    }
    da->n_recv = da->recv_off[k];
    da->recv_gid = gnn_malloc_array((size_t)da->n_recv + 1, sizeof(int64_t));
    da->recv_pre = gnn_malloc((size_t)da->n_recv + 1);
    if (!da->recv_gid || !da->recv_pre)
        return GNN_ERR_NOMEM;
    gnn_da_addends dst = { 0 }, fwd = { 0 };
    gnn_status st = GNN_OK;
    for (int64_t q = 0; q < k && !st; q++) {
        const int64_t p = q == r ? -1 : gnn_commplan_slot(P, q * k + r);
        if (p < 0)
            continue;
        int64_t row = da->recv_off[q];
        for (int64_t i = P->post_ptr[p]; i < P->post_ptr[p + 1]; i++, row++)
            da->recv_gid[row] = P->post_rows[i], da->recv_pre[row] = 0;
        for (int64_t i = P->pre_ptr[p]; i < P->pre_ptr[p + 1] && !st; i++, row++) {
            const int64_t v = P->pre_rows[i];
            da->recv_gid[row] = v, da->recv_pre[row] = 1;
            if (gnn_da_add(&dst, row, S->lid[v], 1.0f, 0.0f, 1))
                st = GNN_ERR_NOMEM;
        }
    }
    /* the post edges, scanned by v ascending then position: each one's row from the plan */
    for (int64_t v = 0; v < g->n && !st; v++) {
        if (S->lid[v] < 0)
            continue;
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1] && !st; e++) {
            const int64_t u = g->indices[e], q = S->part[u];
            if (q == r || gnn_distagg_edge_post(P, q, r, u, v) != 1)
                continue;
            const int64_t p = gnn_commplan_slot(P, q * k + r); /* exists: u -> v is a post edge of it */
            const int64_t row = da->recv_off[q] + gnn_da_find_id(P->post_rows, P->post_ptr[p], P->post_ptr[p + 1], u) -
                                P->post_ptr[p];
            if (gnn_da_add(&dst, row, S->lid[v], S->D.isq_out[u] * S->D.isq_in[v], 0.0f, 0))
                st = GNN_ERR_NOMEM;
        }
    }
    if (!st && gnn_da_by_key(&dst, da->n_recv, &da->recv_ptr, &da->recv_dst, &da->recv_c, NULL, NULL))
        st = GNN_ERR_NOMEM;
    for (int64_t s = 0; s < da->n_recv && !st; s++) /* every row's addends to its destinations */
        for (int64_t i = da->recv_ptr[s]; i < da->recv_ptr[s + 1] && !st; i++)
            if (gnn_da_add(&fwd, da->recv_dst[i], s, da->recv_c[i], 0.0f, da->recv_pre[s]))
                st = GNN_ERR_NOMEM;
    if (!st && gnn_da_by_key(&fwd, da->n_own, &da->fwd_ptr, &da->fwd_row, &da->fwd_c, NULL, &da->fwd_pre))
        st = GNN_ERR_NOMEM;
    gnn_da_addends_free(&dst);
    gnn_da_addends_free(&fwd);
    return st;
}

gnn_status gnn_distagg_setup_ref(const gnn_csr *g, const int32_t *part, int64_t k, int64_t rank,
                                 const gnn_commplan *plan, gnn_distagg *out)
{
    memset(out, 0, sizeof *out);
    out->n = g->n, out->k = k, out->rank = rank, out->tag = GNN_DISTAGG_TAG;
    setup_ctx S = { .g = g, .part = part, .plan = plan, .k = k, .rank = rank };
    S.lid = gnn_malloc_array((size_t)g->n + 1, sizeof(int64_t));
    gnn_status st = !S.lid || gnn_da_degrees_make(g, &S.D) ? GNN_ERR_NOMEM : GNN_OK;
    if (!st)
        st = setup_local(&S, out);
    if (!st)
        st = setup_send(&S, out);
    if (!st)
        st = setup_recv(&S, out);
    gnn_free(S.lid);
    gnn_da_degrees_free(&S.D);
    if (st)
        gnn_distagg_free(out);
    return st;
}

/* ---- forward and backward: ref/distagg_body.h, one thread ------------------------------------ */

#define GNN_DISTAGG_ROWS /* the reference: one thread */
#define GNN_DISTAGG_SIMD /* the reference: one feature at a time */
#include "ref/distagg_body.h"

static gnn_status distagg_forward_ref(gnn_comm *c, const gnn_distagg *da, const float *x, int64_t d,
                                      gnn_agg_kind kind, const gnn_quant_cfg *q, float *out)
{
    return distagg_forward(&gnn_quant_ref, c, da, x, d, kind, q, out);
}

static gnn_status distagg_backward_ref(gnn_comm *c, const gnn_distagg *da, const float *dout, int64_t d,
                                       gnn_agg_kind kind, const gnn_quant_cfg *q, float *dx)
{
    return distagg_backward(&gnn_quant_ref, c, da, dout, d, kind, q, dx);
}

const gnn_distagg_ops gnn_distagg_ref = {
    .name = "ref",
    .caps = GNN_CAP_DETERMINISTIC,
    .setup = gnn_distagg_setup_ref,
    .forward = distagg_forward_ref,
    .backward = distagg_backward_ref,
};
