/* core/dist/distagg.c -- the checked entry points of distributed aggregation
 * (include/gnnref/distagg.h, docs/distagg.md).
 *
 * As core/dist/commplan.c does: every argument is checked once, here, then the table's op runs,
 * whose body (ref/distagg.c, opt/cpu/distagg.c) assumes valid input. The checks of forward
 * and backward are local (no communication): a rank that refuses its arguments does not post,
 * and the other ranks' waits end with the communicator's bound. */
#include <string.h>
#include "gnnref/distagg.h"
#include "gnnref/tensor.h"

/* The post flag of the plan's cut edge (u, v) of pair (i, j), -1 when the plan has no such edge
 * (include/gnnref/distagg.h; setup's rule, shared by every implementation and the oracle). */
int gnn_distagg_edge_post(const gnn_commplan *plan, int64_t i, int64_t j, int64_t u, int64_t v)
{
    const int64_t s = gnn_commplan_slot(plan, i * plan->k + j);
    if (s < 0)
        return -1; /* a pair without cut edges */
    int64_t lo = plan->edge_ptr[s], hi = plan->edge_ptr[s + 1];
    while (lo < hi) { /* first edge >= (u, v): the pair's edges are sorted by (u, v) */
        const int64_t m = lo + (hi - lo) / 2;
        if (plan->edge_src[m] < u || (plan->edge_src[m] == u && plan->edge_dst[m] < v))
            lo = m + 1;
        else
            hi = m;
    }
    if (lo < plan->edge_ptr[s + 1] && plan->edge_src[lo] == u && plan->edge_dst[lo] == v)
        return plan->edge_post[lo];
    return -1;
}

void gnn_distagg_free(gnn_distagg *da)
{
    if (!da)
        return;
    void *arrays[] = {
        da->own_gid,  da->deg_in,   da->inv_deg,  da->loc_ptr,    da->loc_src,  da->loc_c,    da->loct_ptr,
        da->loct_dst, da->loct_c,   da->send_off, da->send_npost, da->send_gid, da->send_pre, da->send_ptr,
        da->send_src, da->send_c,   da->recv_off, da->recv_npost, da->recv_gid, da->recv_pre, da->recv_ptr,
        da->recv_dst, da->recv_c,   da->fwd_ptr,  da->fwd_row,    da->fwd_c,    da->fwd_pre,  da->bwd_ptr,
        da->bwd_row,  da->bwd_c,    da->bwd_cm,   da->bwd_pre,
    };
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        gnn_free(arrays[i]);
    memset(da, 0, sizeof *da);
}

gnn_status gnn_distagg_setup(const gnn_distagg_ops *ops, const gnn_csr *g, const int32_t *part, int64_t k,
                             int64_t rank, const gnn_commplan *plan, gnn_distagg *out, gnn_err *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!ops || !g || !plan || !out)
        return gnn_err_set(err, GNN_ERR_INVAL, "distagg: %s is NULL",
                           !ops ? "ops" : !g ? "the graph" : !plan ? "the plan" : "out");
    if (!ops->setup)
        return gnn_err_set(err, GNN_ERR_UNSUPPORTED, "distagg: implementation '%s' has no setup", ops->name);
    gnn_status st = gnn_csr_validate(g, err);
    if (st)
        return st == GNN_ERR_NOMEM ? st : GNN_ERR_INVAL;
    if (k < 1 || k > INT32_MAX)
        return gnn_err_set(err, GNN_ERR_INVAL, "distagg: %lld ranks (expected 1 .. 2^31 - 1)", (long long)k);
    if (rank < 0 || rank >= k)
        return gnn_err_set(err, GNN_ERR_INVAL, "distagg: rank %lld outside [0, %lld)", (long long)rank, (long long)k);
    if (g->n > 0 && !part)
        return gnn_err_set(err, GNN_ERR_INVAL, "distagg: no part vector");
    if (plan->n != g->n || plan->k != k || !plan->edge_ptr)
        return gnn_err_set(err, GNN_ERR_INVAL, "distagg: the plan is for %lld vertices and %lld ranks, the graph has "
                           "%lld vertices and the call %lld ranks", (long long)plan->n, (long long)plan->k,
                           (long long)g->n, (long long)k);
    for (int64_t v = 0; v < g->n; v++)
        if (part[v] < 0 || part[v] >= k)
            return gnn_err_set(err, GNN_ERR_RANGE, "distagg: vertex %lld is in part %d (expected 0 .. %lld)",
                               (long long)v, (int)part[v], (long long)(k - 1));
    /* every cut edge of g must be in the plan (a plan of another graph or part vector) */
    for (int64_t v = 0; v < g->n; v++)
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
            const int64_t u = g->indices[e];
            if (part[u] != part[v] && gnn_distagg_edge_post(plan, part[u], part[v], u, v) < 0)
                return gnn_err_set(err, GNN_ERR_INVAL, "distagg: cut edge %lld -> %lld (ranks %d -> %d) is not in the "
                                   "plan (a plan of another graph or part vector?)", (long long)u, (long long)v,
                                   (int)part[u], (int)part[v]);
        }
    st = ops->setup(g, part, k, rank, plan, out);
    if (st) {
        gnn_distagg_free(out);
        return gnn_err_set(err, st, "distagg setup (%s, rank %lld): %s", ops->name, (long long)rank,
                           gnn_status_str(st));
    }
    return GNN_OK;
}

/* the checks forward and backward share; `what` names the input array */
static gnn_status check_call(const gnn_distagg_ops *ops, gnn_comm *c, const gnn_distagg *da, const float *in,
                             int64_t d, gnn_agg_kind kind, const gnn_quant_cfg *q, const float *out, const char *op,
                             int has_op)
{
    if (!c)
        return GNN_ERR_INVAL;
    if (!ops || !da)
        return gnn_err_set(&c->err, GNN_ERR_INVAL, "distagg %s: %s is NULL", op, !ops ? "ops" : "da");
    if (!has_op)
        return gnn_err_set(&c->err, GNN_ERR_UNSUPPORTED, "distagg: implementation '%s' has no %s", ops->name, op);
    if (c->size != da->k || c->rank != da->rank)
        return gnn_err_set(&c->err, GNN_ERR_INVAL, "distagg %s: the communicator is rank %d of %d, the structures "
                           "rank %lld of %lld", op, c->rank, c->size, (long long)da->rank, (long long)da->k);
    if (d < 0)
        return gnn_err_set(&c->err, GNN_ERR_INVAL, "distagg %s: d = %lld", op, (long long)d);
    if (kind != GNN_AGG_MEAN && kind != GNN_AGG_SUM && kind != GNN_AGG_GCN)
        return gnn_err_set(&c->err, GNN_ERR_INVAL, "distagg %s: unknown aggregation kind %d", op, (int)kind);
    if (da->n_own * d > 0 && (!in || !out))
        return gnn_err_set(&c->err, GNN_ERR_INVAL, "distagg %s: %s is NULL with %lld x %lld elements", op,
                           !in ? "the input" : "the output", (long long)da->n_own, (long long)d);
    if (da->tag < 0 || da->tag >= GNN_COMM_MAX_TAG)
        return gnn_err_set(&c->err, GNN_ERR_INVAL, "distagg %s: tag %d outside [0, %d)", op, da->tag, GNN_COMM_MAX_TAG);
    if (q) {
        if (q->bits != 2 && q->bits != 4 && q->bits != 8 && q->bits != 32)
            return gnn_err_set(&c->err, GNN_ERR_INVAL, "distagg %s: %d bits (expected 2, 4, 8 or 32)", op, q->bits);
        if (q->round != GNN_QUANT_STOCHASTIC && q->round != GNN_QUANT_NEAREST)
            return gnn_err_set(&c->err, GNN_ERR_INVAL, "distagg %s: unknown rounding %d", op, (int)q->round);
        if (q->layer > 127)
            return gnn_err_set(&c->err, GNN_ERR_INVAL, "distagg %s: layer %u > 127", op, q->layer);
    }
    return GNN_OK;
}

gnn_status gnn_distagg_forward(const gnn_distagg_ops *ops, gnn_comm *c, const gnn_distagg *da, const float *x,
                               int64_t d, gnn_agg_kind kind, const gnn_quant_cfg *q, float *out)
{
    gnn_status st = check_call(ops, c, da, x, d, kind, q, out, "forward", ops && ops->forward);
    return st ? st : ops->forward(c, da, x, d, kind, q, out);
}

gnn_status gnn_distagg_backward(const gnn_distagg_ops *ops, gnn_comm *c, const gnn_distagg *da, const float *dout,
                                int64_t d, gnn_agg_kind kind, const gnn_quant_cfg *q, float *dx)
{
    gnn_status st = check_call(ops, c, da, dout, d, kind, q, dx, "backward", ops && ops->backward);
    return st ? st : ops->backward(c, da, dout, d, kind, q, dx);
}
