/* core/ops/kernels.c -- the public entry points of the kernel subsystems: aggregate.h,
 * index_add.h, nn.h (the linear layer, ReLU, keyed dropout), update.h, gat.h and act.h.
 *
 * Each gnn_<subsystem>_<op>(ops, ...) checks its arguments once, here, then dispatches to
 * the ops table it is given (as core/dist/comm.c and core/dist/hec.c do). So every implementation
 * answers a bad call with the same status, and the bodies in ref/ and opt/ assume valid
 * input. Every check happens before the body runs: a rejected call writes nothing.
 *
 * The rules and statuses are the ones the bodies used to apply, moved unchanged (the oracle
 * and the Check suite "api" hold every implementation to them):
 *   - a NULL ops table is GNN_ERR_INVAL; an op the table does not have (a NULL field, as
 *     in a partial table) is GNN_ERR_UNSUPPORTED, what the oracle reports as UNSUPPORTED
 *     (each entry point's first test);
 *   - negative sizes and a NULL array that has elements are GNN_ERR_INVAL;
 *   - a value outside its range (an index past its rows) is GNN_ERR_RANGE.
 * docs/architecture.md and each kernel's docs page say which call checks what. */
#include <math.h>
#include "gnnref/act.h"
#include "gnnref/aggregate.h"
#include "gnnref/gat.h"
#include "gnnref/index_add.h"
#include "gnnref/nn.h"
#include "gnnref/update.h"

/* Index scans below this length run on one thread: the thousands of tiny calls of the
 * gradient checks would otherwise mostly time OpenMP's fork and join. */
#define GNN_CHECK_PAR_MIN 65536

/* A NULL array is an error only when it has elements: rows * cols > 0. */
static int missing(const void *p, int64_t rows, int64_t cols) { return !p && rows > 0 && cols > 0; }

/* ---- aggregate.h ---------------------------------------------------------------------------- */

/* The block's sizes, d, and an input (in_rows, d) and output (out_rows, d) that exist when
 * they have elements. The block's arrays are read as they are (the sampler builds them). */
static int agg_bad(const gnn_block *blk, const void *in, int64_t in_rows, int64_t d, const void *out,
                   int64_t out_rows)
{
    if (!blk || d < 0 || blk->n_dst < 0 || blk->n_src < 0 || blk->nnz < 0)
        return 1;
    return missing(in, in_rows, d) || missing(out, out_rows, d);
}

static int agg_bad_kind(gnn_agg_kind kind)
{
    return kind != GNN_AGG_MEAN && kind != GNN_AGG_SUM && kind != GNN_AGG_GCN;
}

/* forward and backward share their checks with the roles of the block's sides swapped: the
 * forward reads (n_src, d) and writes (n_dst, d), the backward reads (n_dst, d), writes (n_src, d) */
static gnn_status agg_plain(const gnn_aggregate_ops *ops, int backward, const gnn_block *blk, const float *in,
                            int64_t d, gnn_agg_kind kind, float *out)
{
    gnn_status (*op)(const gnn_block *, const float *, int64_t, gnn_agg_kind, float *) =
        !ops ? NULL : backward ? ops->backward : ops->forward;
    if (!op)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    const int64_t n_src = blk ? blk->n_src : 0, n_dst = blk ? blk->n_dst : 0;
    if (agg_bad(blk, in, backward ? n_dst : n_src, d, out, backward ? n_src : n_dst) || agg_bad_kind(kind))
        return GNN_ERR_INVAL;
    return op(blk, in, d, kind, out);
}

gnn_status gnn_aggregate_forward(const gnn_aggregate_ops *ops, const gnn_block *blk, const float *x, int64_t d,
                                 gnn_agg_kind kind, float *out)
{
    return agg_plain(ops, 0, blk, x, d, kind, out);
}

gnn_status gnn_aggregate_backward(const gnn_aggregate_ops *ops, const gnn_block *blk, const float *dout, int64_t d,
                                  gnn_agg_kind kind, float *dx)
{
    return agg_plain(ops, 1, blk, dout, d, kind, dx);
}

gnn_status gnn_aggregate_weighted_forward(const gnn_aggregate_ops *ops, const gnn_block *blk, const float *x,
                                          int64_t d, const float *w, float *out)
{
    if (!ops || !ops->weighted_forward)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (agg_bad(blk, x, blk ? blk->n_src : 0, d, out, blk ? blk->n_dst : 0) || (!w && blk->nnz > 0))
        return GNN_ERR_INVAL;
    return ops->weighted_forward(blk, x, d, w, out);
}

/* dx and dw are each optional; w is needed for dx, x for dw. */
gnn_status gnn_aggregate_weighted_backward(const gnn_aggregate_ops *ops, const gnn_block *blk, const float *x,
                                           const float *dout, int64_t d, const float *w, float *dx, float *dw)
{
    if (!ops || !ops->weighted_backward)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (agg_bad(blk, dout, blk ? blk->n_dst : 0, d, NULL, 0) || (dx && !w && blk->nnz > 0) ||
        (dw && agg_bad(blk, x, blk->n_src, d, NULL, 0)))
        return GNN_ERR_INVAL;
    return ops->weighted_backward(blk, x, dout, d, w, dx, dw);
}

/* ---- index_add.h ---------------------------------------------------------------------------- */

gnn_status gnn_index_add_run(const gnn_index_add_ops *ops, float *out, int64_t n_out, int64_t d, const int64_t *idx,
                             const float *src, int64_t n)
{
    if (!ops || !ops->run)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (n_out < 0 || d < 0 || n < 0 || (n > 0 && !idx) || (n > 0 && d > 0 && (!src || !out)))
        return GNN_ERR_INVAL;
    /* every index is checked before the body runs: a bad call leaves out unchanged */
    int bad = 0;
#pragma omp parallel for reduction(| : bad) schedule(static) if (n >= GNN_CHECK_PAR_MIN)
    for (int64_t i = 0; i < n; i++)
        bad |= idx[i] < 0 || idx[i] >= n_out;
    if (bad)
        return GNN_ERR_RANGE;
    return ops->run(out, n_out, d, idx, src, n);
}

/* ---- nn.h: the linear layer ------------------------------------------------------------------ */

gnn_status gnn_nn_linear_fwd(const gnn_nn_ops *ops, const float *x, int64_t n, int64_t in, const float *w,
                             const float *b, int64_t out, float *y)
{
    if (!ops || !ops->linear_fwd)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (n < 0 || in < 0 || out < 0 || missing(x, n, in) || missing(w, in, out) || missing(y, n, out))
        return GNN_ERR_INVAL;
    ops->linear_fwd(x, n, in, w, b, out, y);
    return GNN_OK;
}

/* dx, dw and db are each optional; x is read for dw, w for dx. */
gnn_status gnn_nn_linear_bwd(const gnn_nn_ops *ops, const float *x, const float *dy, int64_t n, int64_t in,
                             const float *w, int64_t out, float *dx, float *dw, float *db)
{
    if (!ops || !ops->linear_bwd)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (n < 0 || in < 0 || out < 0 || missing(dy, n, out) || (dw && missing(x, n, in)) || (dx && missing(w, in, out)))
        return GNN_ERR_INVAL;
    ops->linear_bwd(x, dy, n, in, w, out, dx, dw, db);
    return GNN_OK;
}

/* ---- nn.h: ReLU and keyed dropout -------------------------------------------------------------- */

gnn_status gnn_nn_relu_fwd(const gnn_nn_ops *ops, float *x, int64_t count)
{
    if (!ops || !ops->relu_fwd)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (count < 0 || missing(x, count, 1))
        return GNN_ERR_INVAL;
    ops->relu_fwd(x, count);
    return GNN_OK;
}

gnn_status gnn_nn_relu_bwd(const gnn_nn_ops *ops, const float *y, float *dy, int64_t count)
{
    if (!ops || !ops->relu_bwd)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (count < 0 || missing(y, count, 1) || missing(dy, count, 1))
        return GNN_ERR_INVAL;
    ops->relu_bwd(y, dy, count);
    return GNN_OK;
}

/* row_gid is read for every row, even when d == 0 (each row opens its stream); mask may be NULL */
gnn_status gnn_nn_dropout_fwd(const gnn_nn_ops *ops, float *x, int64_t n, int64_t d, const int64_t *row_gid,
                              float p, uint64_t seed, uint32_t step, unsigned layer, float *mask)
{
    if (!ops || !ops->dropout_fwd)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (n < 0 || d < 0 || missing(x, n, d) || missing(row_gid, n, 1))
        return GNN_ERR_INVAL;
    if (!(p >= 0.0f && p < 1.0f) || layer > 255) /* also rejects NaN */
        return GNN_ERR_INVAL;
    ops->dropout_fwd(x, n, d, row_gid, p, seed, step, layer, mask);
    return GNN_OK;
}

gnn_status gnn_nn_dropout_bwd(const gnn_nn_ops *ops, float *dy, int64_t n, int64_t d, const float *mask)
{
    if (!ops || !ops->dropout_bwd)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (n < 0 || d < 0 || missing(dy, n, d) || missing(mask, n, d))
        return GNN_ERR_INVAL;
    ops->dropout_bwd(dy, n, d, mask);
    return GNN_OK;
}

/* ---- update.h --------------------------------------------------------------------------------- */

gnn_status gnn_update_forward(const gnn_update_ops *ops, const float *x, int64_t n, int64_t c, const float *w,
                              const float *b, int64_t k, const gnn_dropout_key *key, float *y)
{
    if (!ops || !ops->forward)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (n < 0 || c < 0 || k < 0)
        return GNN_ERR_INVAL;
    if (missing(x, n, c) || missing(w, c, k) || missing(y, n, k))
        return GNN_ERR_INVAL;
    if (key && !(key->p >= 0.0f && key->p < 1.0f)) /* also rejects NaN */
        return GNN_ERR_INVAL;
    return ops->forward(x, n, c, w, b, k, key, y);
}

gnn_status gnn_update_backward(const gnn_update_ops *ops, const float *x, const float *y, const float *dy, int64_t n,
                               int64_t c, const float *w, int64_t k, float p, float *dx, float *dw, float *db)
{
    if (!ops || !ops->backward)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (n < 0 || c < 0 || k < 0 || !(p >= 0.0f && p < 1.0f))
        return GNN_ERR_INVAL;
    if (missing(x, n, c) || (n > 0 && k > 0 && (!y || !dy)) || (c > 0 && k > 0 && (!w || !dw)))
        return GNN_ERR_INVAL;
    return ops->backward(x, y, dy, n, c, w, k, p, dx, dw, db);
}

/* ---- gat.h ------------------------------------------------------------------------------------ */

/* Shared by both directions: the parameters, the block's sizes and structure (indptr from 0
 * to nnz, never decreasing), the inputs, then the src ids. A malformed indptr is reported
 * before an id out of range, as gat.h lists them. */
static gnn_status gat_check(const gnn_block *blk, const float *z, const float *al, const float *ar,
                            const gnn_gat_params *p)
{
    if (!blk || !p || p->heads < 1 || p->f < 0 || !(p->attn_drop >= 0.0f && p->attn_drop < 1.0f) ||
        !isfinite(p->slope))
        return GNN_ERR_INVAL;
    if (blk->n_dst < 0 || blk->n_src < blk->n_dst || blk->nnz < 0 || !blk->indptr)
        return GNN_ERR_INVAL;
    if (p->heads > INT64_MAX / (p->f > 0 ? p->f : 1) || (blk->nnz > 0 && p->heads > INT64_MAX / blk->nnz))
        return GNN_ERR_RANGE;
    const int64_t hf = p->heads * p->f;
    if (missing(z, blk->n_src, hf) || (hf > 0 && (!al || !ar)) || (blk->nnz > 0 && !blk->indices))
        return GNN_ERR_INVAL;
    if (blk->indptr[0] != 0 || blk->indptr[blk->n_dst] != blk->nnz)
        return GNN_ERR_INVAL;
    int bad_ptr = 0, bad_idx = 0;
    const int64_t n_dst = blk->n_dst, nnz = blk->nnz, n_src = blk->n_src;
    const int64_t *ptr = blk->indptr;
    const int32_t *idx = blk->indices;
#pragma omp parallel for schedule(static) reduction(| : bad_ptr) if (n_dst >= GNN_CHECK_PAR_MIN)
    for (int64_t v = 0; v < n_dst; v++)
        bad_ptr |= ptr[v + 1] < ptr[v];
#pragma omp parallel for schedule(static) reduction(| : bad_idx) if (nnz >= GNN_CHECK_PAR_MIN)
    for (int64_t i = 0; i < nnz; i++)
        bad_idx |= idx[i] < 0 || idx[i] >= n_src;
    return bad_ptr ? GNN_ERR_INVAL : bad_idx ? GNN_ERR_RANGE : GNN_OK;
}

gnn_status gnn_gat_forward(const gnn_gat_ops *ops, const gnn_block *blk, const float *z, const float *al,
                           const float *ar, const gnn_gat_params *p, float *out, float *alpha)
{
    if (!ops || !ops->forward)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    gnn_status st = gat_check(blk, z, al, ar, p);
    if (st)
        return st;
    if (missing(out, blk->n_dst, p->heads * p->f))
        return GNN_ERR_INVAL;
    return ops->forward(blk, z, al, ar, p, out, alpha);
}

gnn_status gnn_gat_backward(const gnn_gat_ops *ops, const gnn_block *blk, const float *z, const float *al,
                            const float *ar, const gnn_gat_params *p, const float *alpha, const float *dout,
                            float *dz, float *dal, float *dar)
{
    if (!ops || !ops->backward)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    gnn_status st = gat_check(blk, z, al, ar, p);
    if (st)
        return st;
    const int64_t hf = p->heads * p->f;
    if ((blk->nnz > 0 && !alpha) || missing(dout, blk->n_dst, hf) || missing(dz, blk->n_src, hf) ||
        (hf > 0 && (!dal || !dar)))
        return GNN_ERR_INVAL;
    return ops->backward(blk, z, al, ar, p, alpha, dout, dz, dal, dar);
}

/* ---- act.h ------------------------------------------------------------------------------------ */

gnn_status gnn_act_elu_fwd(const gnn_act_ops *ops, const float *x, int64_t count, float alpha, float *y)
{
    if (!ops || !ops->elu_fwd)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (count < 0 || (count > 0 && (!x || !y)))
        return GNN_ERR_INVAL;
    ops->elu_fwd(x, count, alpha, y);
    return GNN_OK;
}

gnn_status gnn_act_elu_bwd(const gnn_act_ops *ops, const float *x, const float *dy, int64_t count, float alpha,
                           float *dx)
{
    if (!ops || !ops->elu_bwd)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (count < 0 || (count > 0 && (!x || !dy || !dx)))
        return GNN_ERR_INVAL;
    ops->elu_bwd(x, dy, count, alpha, dx);
    return GNN_OK;
}

/* The sizes of a LayerNorm call (a row needs d >= 1 features) and its three (n, d) or (d)
 * inputs a, b, c, which must exist when there are rows. */
static int ln_bad(int64_t n, int64_t d, const void *a, const void *b, const void *c)
{
    if (n < 0 || d < 0 || (n > 0 && d < 1))
        return 1;
    return n > 0 && (!a || !b || !c);
}

gnn_status gnn_act_layernorm_fwd(const gnn_act_ops *ops, const float *x, int64_t n, int64_t d, const float *gamma,
                                 const float *beta, float eps, float *y, float *mu, float *rstd)
{
    if (!ops || !ops->layernorm_fwd)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (ln_bad(n, d, x, gamma, beta))
        return GNN_ERR_INVAL;
    if (!(eps > 0.0f) || !isfinite(eps) || (n > 0 && (!y || !mu || !rstd)))
        return GNN_ERR_INVAL;
    return ops->layernorm_fwd(x, n, d, gamma, beta, eps, y, mu, rstd);
}

gnn_status gnn_act_layernorm_bwd(const gnn_act_ops *ops, const float *x, const float *dy, int64_t n, int64_t d,
                                 const float *gamma, const float *mu, const float *rstd, float *dx, float *dgamma,
                                 float *dbeta)
{
    if (!ops || !ops->layernorm_bwd)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (ln_bad(n, d, x, dy, gamma))
        return GNN_ERR_INVAL;
    if ((n > 0 && (!mu || !rstd || !dx)) || (d > 0 && (!dgamma || !dbeta)))
        return GNN_ERR_INVAL;
    return ops->layernorm_bwd(x, dy, n, d, gamma, mu, rstd, dx, dgamma, dbeta);
}
