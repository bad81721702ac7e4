/* ref/spmm.c -- reference sparse-dense product of the input layer (include/gnnref/spmm.h).
 *
 * Plain C11, no intrinsics, no threads: this file is the specification; opt/cpu/spmm.c must
 * reproduce its output bit for bit at any thread count. Every order below is part of the
 * contract (spmm.h says how it relates to the dense linear layer of ref/nn.c). The public
 * entry points (core/ops/spmm.c) check the arguments and allocate the outputs of transpose and
 * gather: the functions here assume valid input. */
#include <string.h>
#include "gnnref/rng.h"
#include "gnnref/spmm.h"

/* y[i][j] = b[j] + sum over row i's entries p, in CSR order, of val[p] * w[col[p]][j]. */
void gnn_spmm_fwd_ref(const gnn_fcsr *x, const float *w, const float *b, int64_t k, float *y)
{
    for (int64_t i = 0; i < x->rows; i++) {
        float *y_i = y + i * k;
        for (int64_t j = 0; j < k; j++)
            y_i[j] = b ? b[j] : 0.0f;
        for (int64_t p = x->indptr[i]; p < x->indptr[i + 1]; p++) {
            const float v = x->val[p];
            const float *w_c = w + (int64_t)x->col[p] * k;
            for (int64_t j = 0; j < k; j++)
                y_i[j] += v * w_c[j]; /* CSR order: the oracle compares bitwise */
        }
    }
}

/* dw[c][j] = sum over xt's row c (the rows i of X holding column c, ascending) of
 * val * dz[i][j], from +0: the order of the dense dw, minus its zero terms. */
void gnn_spmm_dw_ref(const gnn_fcsr *xt, const float *dz, int64_t k, float *dw)
{
    for (int64_t c = 0; c < xt->rows; c++) {
        float *dw_c = dw + c * k;
        for (int64_t j = 0; j < k; j++)
            dw_c[j] = 0.0f;
        for (int64_t p = xt->indptr[c]; p < xt->indptr[c + 1]; p++) {
            const float v = xt->val[p];
            const float *dz_i = dz + (int64_t)xt->col[p] * k;
            for (int64_t j = 0; j < k; j++)
                dw_c[j] += v * dz_i[j];
        }
    }
}

/* Counting sort by column: count, exclusive prefix sum, then place the entries scanning the
 * rows in ascending order, so each column's rows come out ascending (stable). */
void gnn_spmm_transpose_ref(const gnn_fcsr *x, gnn_fcsr *xt)
{
    int64_t *next = xt->indptr; /* (cols + 1): counts, then starts, then ends */
    memset(next, 0, (size_t)(x->cols + 1) * sizeof(int64_t));
    for (int64_t p = 0; p < x->nnz; p++)
        next[x->col[p] + 1]++;
    for (int64_t c = 0; c < x->cols; c++)
        next[c + 1] += next[c];
    for (int64_t i = 0; i < x->rows; i++)
        for (int64_t p = x->indptr[i]; p < x->indptr[i + 1]; p++) {
            const int64_t q = next[x->col[p]]++;
            xt->col[q] = (int32_t)i;
            xt->val[q] = x->val[p];
        }
    /* next[c] is now the end of column c = the start of c + 1: shift back by one */
    for (int64_t c = x->cols; c > 0; c--)
        next[c] = next[c - 1];
    next[0] = 0;
}

void gnn_spmm_gather_ref(const gnn_fcsr *x, const int64_t *rows, gnn_fcsr *out)
{
    for (int64_t r = 0; r < out->rows; r++) {
        const int64_t s = x->indptr[rows[r]], len = x->indptr[rows[r] + 1] - s;
        memcpy(out->col + out->indptr[r], x->col + s, (size_t)len * sizeof(int32_t));
        memcpy(out->val + out->indptr[r], x->val + s, (size_t)len * sizeof(float));
    }
}

/* The entry (i, c) gets the scale of gnn_dropout_fwd's element (i, c): float draw c (word c%4
 * of block c/4) of stream (seed, DROPOUT, step, layer, row_gid[i]); kept when >= p. A dropped
 * value becomes value * 0 (+0 or -0, as the dense product gives) and stays in the structure. */
void gnn_spmm_dropout_ref(gnn_fcsr *x, const int64_t *row_gid, float p, uint64_t seed, uint32_t step,
                          unsigned layer)
{
    const float scale = 1.0f / (1.0f - p);
    for (int64_t i = 0; i < x->rows; i++) {
        const gnn_rng_stream s = gnn_rng_stream_make(seed, GNN_TAG_DROPOUT, step, layer, (uint64_t)row_gid[i]);
        for (int64_t q = x->indptr[i]; q < x->indptr[i + 1]; q++) {
            const float u = gnn_rng_float(&s, (uint64_t)x->col[q]);
            x->val[q] *= u >= p ? scale : 0.0f;
        }
    }
}

const gnn_spmm_ops gnn_spmm_ref = {
    .name = "ref",
    .caps = 1u, /* GNN_CAP_DETERMINISTIC */
    .fwd = gnn_spmm_fwd_ref,
    .dw = gnn_spmm_dw_ref,
    .transpose = gnn_spmm_transpose_ref,
    .gather = gnn_spmm_gather_ref,
    .dropout = gnn_spmm_dropout_ref,
};
