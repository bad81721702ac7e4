/* core/ops/spmm.c -- the CSR feature matrix (gnn_fcsr) and the checked entry points of the
 * sparse-dense product of the input layer (include/gnnref/spmm.h, docs/sparse-features.md).
 *
 * As core/ops/kernels.c does for the other kernels: every gnn_spmm_<op>(ops, ...) checks its
 * arguments once, here, then dispatches to the table it is given, whose bodies (ref/spmm.c,
 * opt/cpu/spmm.c) assume valid input. transpose and gather also allocate their outputs here,
 * so the bodies only fill arrays. */
#include <math.h>
#include <string.h>
#include "gnnref/spmm.h"
#include "gnnref/tensor.h"

/* ---- the matrix ------------------------------------------------------------------------------- */

void gnn_fcsr_free(gnn_fcsr *x)
{
    if (!x)
        return;
    if (x->owns) {
        gnn_free(x->indptr);
        gnn_free(x->col);
        gnn_free(x->val);
    }
    memset(x, 0, sizeof *x);
}

/* Arrays for rows and nnz, owned. */
static gnn_status fcsr_alloc(gnn_fcsr *x, int64_t rows, int64_t cols, int64_t nnz)
{
    memset(x, 0, sizeof *x);
    x->rows = rows;
    x->cols = cols;
    x->nnz = nnz;
    x->owns = 1;
    x->indptr = gnn_malloc_array((size_t)rows + 1, sizeof(int64_t));
    x->col = gnn_malloc_array((size_t)(nnz > 0 ? nnz : 1), sizeof(int32_t));
    x->val = gnn_malloc_array((size_t)(nnz > 0 ? nnz : 1), sizeof(float));
    if (!x->indptr || !x->col || !x->val) {
        gnn_fcsr_free(x);
        return GNN_ERR_NOMEM;
    }
    return GNN_OK;
}

gnn_status gnn_fcsr_from_dense(const float *x, int64_t rows, int64_t cols, gnn_fcsr *out)
{
    if (!out || rows < 0 || cols < 0 || cols > INT32_MAX || (!x && rows > 0 && cols > 0))
        return GNN_ERR_INVAL;
    int64_t nnz = 0;
    for (int64_t i = 0; i < rows * cols; i++)
        nnz += x[i] != 0.0f;
    gnn_status st = fcsr_alloc(out, rows, cols, nnz);
    if (st)
        return st;
    int64_t q = 0;
    out->indptr[0] = 0;
    for (int64_t i = 0; i < rows; i++) {
        const float *row_i = x + i * cols;
        for (int64_t c = 0; c < cols; c++)
            if (row_i[c] != 0.0f) {
                out->col[q] = (int32_t)c;
                out->val[q++] = row_i[c];
            }
        out->indptr[i + 1] = q;
    }
    return GNN_OK;
}

void gnn_fcsr_to_dense(const gnn_fcsr *x, float *y)
{
    memset(y, 0, (size_t)(x->rows * x->cols) * sizeof(float));
    for (int64_t i = 0; i < x->rows; i++)
        for (int64_t p = x->indptr[i]; p < x->indptr[i + 1]; p++)
            y[i * x->cols + x->col[p]] = x->val[p];
}

gnn_status gnn_fcsr_copy(const gnn_fcsr *x, gnn_fcsr *out)
{
    if (!x || !out)
        return GNN_ERR_INVAL;
    gnn_status st = fcsr_alloc(out, x->rows, x->cols, x->nnz);
    if (st)
        return st;
    memcpy(out->indptr, x->indptr, (size_t)(x->rows + 1) * sizeof(int64_t));
    memcpy(out->col, x->col, (size_t)x->nnz * sizeof(int32_t));
    memcpy(out->val, x->val, (size_t)x->nnz * sizeof(float));
    return GNN_OK;
}

gnn_status gnn_fcsr_validate(const gnn_fcsr *x, const char *what, gnn_err *err)
{
    if (!x || x->rows < 0 || x->cols < 0 || x->cols > INT32_MAX || x->nnz < 0 || !x->indptr ||
        (x->nnz > 0 && (!x->col || !x->val)))
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: section 'feat_ptr': bad CSR feature matrix", what);
    if (x->indptr[0] != 0)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section 'feat_ptr': indptr[0] is %lld, expected 0", what,
                           (long long)x->indptr[0]);
    for (int64_t i = 0; i < x->rows; i++)
        if (x->indptr[i + 1] < x->indptr[i] || x->indptr[i + 1] > x->nnz)
            return gnn_err_set(err, GNN_ERR_RANGE,
                               "%s: section 'feat_ptr': row %lld has indptr %lld -> %lld (expected non-decreasing, "
                               "at most nnz = %lld)", what, (long long)i, (long long)x->indptr[i],
                               (long long)x->indptr[i + 1], (long long)x->nnz);
    if (x->indptr[x->rows] != x->nnz)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section 'feat_ptr': indptr[rows] is %lld, expected nnz = %lld",
                           what, (long long)x->indptr[x->rows], (long long)x->nnz);
    for (int64_t i = 0; i < x->rows; i++)
        for (int64_t p = x->indptr[i]; p < x->indptr[i + 1]; p++) {
            const int64_t c = x->col[p];
            if (c < 0 || c >= x->cols)
                return gnn_err_set(err, GNN_ERR_RANGE,
                                   "%s: section 'feat_col': entry %lld (row %lld) has column %lld, expected [0, %lld)",
                                   what, (long long)p, (long long)i, (long long)c, (long long)x->cols);
            if (p > x->indptr[i] && c <= x->col[p - 1])
                return gnn_err_set(err, GNN_ERR_FORMAT,
                                   "%s: section 'feat_col': row %lld has column %lld after %lld (columns must be "
                                   "strictly increasing within a row)", what, (long long)i, (long long)c,
                                   (long long)x->col[p - 1]);
            if (!isfinite(x->val[p]))
                return gnn_err_set(err, GNN_ERR_NAN, "%s: section 'feat_val': vertex %lld column %lld is %s", what,
                                   (long long)i, (long long)c, isnan(x->val[p]) ? "NaN" : "Inf");
        }
    return GNN_OK;
}

void gnn_fcsr_rows_normalize(gnn_fcsr *x)
{
    for (int64_t i = 0; i < x->rows; i++) {
        float s = 0.0f;
        for (int64_t p = x->indptr[i]; p < x->indptr[i + 1]; p++) /* column order, as the dense sum */
            s += fabsf(x->val[p]);
        if (s != 0.0f)
            for (int64_t p = x->indptr[i]; p < x->indptr[i + 1]; p++)
                x->val[p] = x->val[p] / s;
    }
}

/* ---- entry points ----------------------------------------------------------------------------- */

/* The O(1) shape of a matrix: sizes, arrays present, indptr's ends. */
static int fcsr_bad(const gnn_fcsr *x)
{
    if (!x || x->rows < 0 || x->cols < 0 || x->cols > INT32_MAX || x->nnz < 0 || !x->indptr)
        return 1;
    return (x->nnz > 0 && (!x->col || !x->val)) || x->indptr[0] != 0 || x->indptr[x->rows] != x->nnz;
}

static int missing(const void *p, int64_t rows, int64_t cols) { return !p && rows > 0 && cols > 0; }

gnn_status gnn_spmm_fwd(const gnn_spmm_ops *ops, const gnn_fcsr *x, const float *w, const float *b, int64_t k,
                        float *y)
{
    if (!ops || !ops->fwd)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (fcsr_bad(x) || k < 0 || missing(w, x->cols, k) || missing(y, x->rows, k))
        return GNN_ERR_INVAL;
    ops->fwd(x, w, b, k, y);
    return GNN_OK;
}

gnn_status gnn_spmm_dw(const gnn_spmm_ops *ops, const gnn_fcsr *xt, const float *dz, int64_t k, float *dw)
{
    if (!ops || !ops->dw)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (fcsr_bad(xt) || k < 0 || missing(dz, xt->cols, k) || missing(dw, xt->rows, k))
        return GNN_ERR_INVAL;
    ops->dw(xt, dz, k, dw);
    return GNN_OK;
}

gnn_status gnn_spmm_transpose(const gnn_spmm_ops *ops, const gnn_fcsr *x, gnn_fcsr *xt)
{
    if (!ops || !ops->transpose)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (fcsr_bad(x) || !xt || x->rows > INT32_MAX) /* the rows become int32 columns */
        return GNN_ERR_INVAL;
    gnn_status st = fcsr_alloc(xt, x->cols, x->rows, x->nnz);
    if (st)
        return st;
    ops->transpose(x, xt);
    return GNN_OK;
}

gnn_status gnn_spmm_gather(const gnn_spmm_ops *ops, const gnn_fcsr *x, const int64_t *rows, int64_t n,
                           gnn_fcsr *out)
{
    if (!ops || !ops->gather)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (fcsr_bad(x) || !out || n < 0 || (n > 0 && !rows))
        return GNN_ERR_INVAL;
    int64_t nnz = 0;
    for (int64_t r = 0; r < n; r++) {
        if (rows[r] < 0 || rows[r] >= x->rows)
            return GNN_ERR_RANGE;
        nnz += x->indptr[rows[r] + 1] - x->indptr[rows[r]];
    }
    gnn_status st = fcsr_alloc(out, n, x->cols, nnz);
    if (st)
        return st;
    out->indptr[0] = 0;
    for (int64_t r = 0; r < n; r++)
        out->indptr[r + 1] = out->indptr[r] + (x->indptr[rows[r] + 1] - x->indptr[rows[r]]);
    ops->gather(x, rows, out);
    return GNN_OK;
}

gnn_status gnn_spmm_dropout(const gnn_spmm_ops *ops, gnn_fcsr *x, const int64_t *row_gid, float p, uint64_t seed,
                            uint32_t step, unsigned layer)
{
    if (!ops || !ops->dropout)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (fcsr_bad(x) || (x->rows > 0 && !row_gid) || !(p >= 0.0f && p < 1.0f) || layer > 255)
        return GNN_ERR_INVAL;
    ops->dropout(x, row_gid, p, seed, step, layer);
    return GNN_OK;
}
