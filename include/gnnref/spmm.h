/* include/gnnref/spmm.h -- sparse input features: a CSR feature matrix and the sparse-dense
 * product of a GNN's first layer (docs/sparse-features.md).
 *
 * Bag-of-words inputs (Cora, CiteSeer: 1-2% of the entries are nonzero) are stored as CSR,
 * and the first layer's product y = X W becomes a sparse-dense product (SpMM), as PyG's and
 * DGL's sparse inputs do; Kipf & Welling's own GCN code keeps its features as a scipy sparse
 * matrix for the same reason.
 *
 * The matrix X (rows, cols): row i holds col[indptr[i] .. indptr[i+1]) with values val[...];
 * the columns of a row are strictly increasing (so a row is the dense row's nonzeros in
 * column order), every column in [0, cols), every value finite. Stored zeros are allowed
 * (dropout leaves them); they take part in every sum like any other entry.
 *
 * The orders (the bitwise contract; ref/spmm.c is the specification):
 *   fwd: y[i][j] = b[j] (or +0 when b is NULL), then += val[p] * w[col[p]][j] for p from
 *        indptr[i] up, one rounding per step (-ffp-contract=off);
 *   dw:  from the transpose X^T (cols, rows), whose row c lists the rows i holding column c in
 *        ascending i: dw[c][j] = +0, then += val * dz[i][j] in that order. No atomics: each dw
 *        row is one thread's;
 *   transpose: a stable counting sort by column (ascending rows within a column);
 *   gather: out row r = x row rows[r], entries in x's order;
 *   dropout: the entry (i, c) is kept when float draw c of (seed, DROPOUT, step, layer,
 *        row_gid[i]) >= p (DESIGN.md section 2), kept values scaled by 1/(1-p), dropped ones
 *        set to 0 * value (kept in the structure): the same bits gnn_dropout_fwd gives the
 *        dense row's element c.
 * Relation to the dense kernels (nn.h's linear, which sums over every k in order): a skipped
 * term is 0 * w, which is +0 or -0; adding it to a sum s leaves s unchanged unless s is -0
 * and the term +0. So dw is bitwise the dense linear_bwd's dw (its sum starts at +0 and an
 * f32 sum that starts at +0 never becomes -0), and y is bitwise the dense linear_fwd's y
 * whenever b is NULL or has no -0 element; otherwise an output that is exactly zero may
 * differ in its sign. (And with an Inf or NaN weight, dense gets NaN from 0 * Inf where
 * sparse skips the term.) dX is not computed: X is the input layer, which needs no gradient. */
#ifndef GNNREF_SPMM_H
#define GNNREF_SPMM_H

#include <stdint.h>
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A CSR matrix of f32 features. owns: gnn_fcsr_free frees the three arrays (gnn_free). */
typedef struct gnn_fcsr {
    int64_t rows, cols, nnz;
    int64_t *indptr; /* (rows + 1), indptr[0] = 0, non-decreasing, indptr[rows] = nnz */
    int32_t *col;    /* (nnz) strictly increasing within a row, in [0, cols) */
    float *val;      /* (nnz) finite */
    int owns;
} gnn_fcsr;

typedef struct gnn_spmm_ops {
    const char *name; /* "ref", "cpu" */
    unsigned caps;
    /* y (x->rows, k) = x . w (x->cols, k) + b (k, may be NULL) */
    void (*fwd)(const gnn_fcsr *x, const float *w, const float *b, int64_t k, float *y);
    /* dw (xt->rows, k) = xt . dz (xt->cols, k): xt is X^T, so this is X^T dz */
    void (*dw)(const gnn_fcsr *xt, const float *dz, int64_t k, float *dw);
    /* xt = x^T: xt's arrays are allocated by the entry point (cols + 1, nnz, nnz), filled here */
    void (*transpose)(const gnn_fcsr *x, gnn_fcsr *xt);
    /* out's rows = x's rows rows[0..out->rows): out->indptr is filled by the entry point,
     * col and val here */
    void (*gather)(const gnn_fcsr *x, const int64_t *rows, gnn_fcsr *out);
    /* keyed dropout on x's values in place (row i's id is row_gid[i]) */
    void (*dropout)(gnn_fcsr *x, const int64_t *row_gid, float p, uint64_t seed, uint32_t step, unsigned layer);
} gnn_spmm_ops;
extern const gnn_spmm_ops gnn_spmm_ref, gnn_spmm_cpu;

/* Checked entry points (core/ops/spmm.c). GNN_ERR_INVAL, nothing written: ops NULL; a matrix
 * with negative sizes, missing arrays, or indptr[0] != 0 or indptr[rows] != nnz; k < 0; a NULL
 * array that has elements (w (cols, k), y (rows, k), dz (xt->cols, k), dw (xt->rows, k),
 * rows (n), row_gid (rows)); p outside [0, 1); layer > 255. GNN_ERR_RANGE: a gather row
 * outside [0, x->rows). GNN_ERR_UNSUPPORTED: ops lacks the op. The column indices are not
 * rescanned on every call: a matrix comes from gnn_fcsr_from_dense, the loader or a gather /
 * transpose of one, all of which keep the invariants (gnn_fcsr_validate checks them). */
gnn_status gnn_spmm_fwd(const gnn_spmm_ops *ops, const gnn_fcsr *x, const float *w, const float *b, int64_t k,
                        float *y);
gnn_status gnn_spmm_dw(const gnn_spmm_ops *ops, const gnn_fcsr *xt, const float *dz, int64_t k, float *dw);
/* xt: a fresh matrix that owns its arrays (free with gnn_fcsr_free). */
gnn_status gnn_spmm_transpose(const gnn_spmm_ops *ops, const gnn_fcsr *x, gnn_fcsr *xt);
/* out: a fresh matrix (n, x->cols) of the rows rows[0..n), owning its arrays. */
gnn_status gnn_spmm_gather(const gnn_spmm_ops *ops, const gnn_fcsr *x, const int64_t *rows, int64_t n,
                           gnn_fcsr *out);
gnn_status gnn_spmm_dropout(const gnn_spmm_ops *ops, gnn_fcsr *x, const int64_t *row_gid, float p, uint64_t seed,
                            uint32_t step, unsigned layer);

/* Reference bodies (ref/spmm.c; unchecked: the entry points above check). */
void gnn_spmm_fwd_ref(const gnn_fcsr *x, const float *w, const float *b, int64_t k, float *y);
void gnn_spmm_dw_ref(const gnn_fcsr *xt, const float *dz, int64_t k, float *dw);
void gnn_spmm_transpose_ref(const gnn_fcsr *x, gnn_fcsr *xt);
void gnn_spmm_gather_ref(const gnn_fcsr *x, const int64_t *rows, gnn_fcsr *out);
void gnn_spmm_dropout_ref(gnn_fcsr *x, const int64_t *row_gid, float p, uint64_t seed, uint32_t step,
                          unsigned layer);

/* ---- the matrix itself (core/fcsr.c) ---- */

/* The nonzeros (x != 0; -0 counts as zero) of the dense x (rows, cols), in row-major order. */
gnn_status gnn_fcsr_from_dense(const float *x, int64_t rows, int64_t cols, gnn_fcsr *out);
/* y (rows, cols) = the dense matrix (zeros elsewhere). */
void gnn_fcsr_to_dense(const gnn_fcsr *x, float *y);
/* A copy that owns its arrays. */
gnn_status gnn_fcsr_copy(const gnn_fcsr *x, gnn_fcsr *out);
void gnn_fcsr_free(gnn_fcsr *x);
/* Every invariant above: indptr starts at 0, never decreases, ends at nnz; columns in range
 * and strictly increasing per row; values finite. Messages name `what`, the section
 * ('feat_ptr', 'feat_col', 'feat_val'), the row and the value. */
gnn_status gnn_fcsr_validate(const gnn_fcsr *x, const char *what, gnn_err *err);
/* Row normalization on the values, in place: each row divided by the sum of |val| over its
 * entries in column order (a zero row stays 0), the bits of gnn_rows_normalize on the dense
 * rows (its sum adds |0| = +0 for the zeros, which changes nothing). */
void gnn_fcsr_rows_normalize(gnn_fcsr *x);

#ifdef __cplusplus
}
#endif
#endif
