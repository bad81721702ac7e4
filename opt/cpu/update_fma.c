/* opt/cpu/update_fma.c -- the fused UPDATE y = Dropout(ReLU(x . w + b)) of the fma context
 * (include/gnnref/update.h, include/gnnref/dense.h), on the dense kernel of opt/cpu/dense.c.
 *
 * @sec{DistGNN-MB 3.3} ("Operator Fusion"): each tile of y is finished while it is in cache. The
 * dense GEMM computes a tile, every element one FMA chain from b[j] over c in order (the bias is
 * the chain's start, so the epilogue adds none), and calls the epilogue on the tile at once:
 * ReLU and the keyed dropout (gnn_update_epilogue, opt/cpu/update_epilogue.c, with b = NULL).
 * So the result is the fma linear layer followed by ReLU and dropout, bit for bit, on every
 * path and thread count (oracle: update.fma.fwd against ref/dense.c's gnn_update_fma_ref).
 *
 * Backward from y: dz = y > 0 ? dy * (1/(1-p)) : 0 for every row first (gnn_update_dz, rows over
 * the threads), then the linear layer's backward on dz: dx = dz w^T and dw = x^T dz on the dense
 * kernel (dw in fixed tiles, each element one chain over all n rows: no per-thread copies), db
 * in ref's order (gnn_cpu_col_sums). The price is dz held whole (n x k floats), as the OpenBLAS
 * UPDATE (opt/cpu/update.c) holds it.
 *
 * No OpenBLAS anywhere: the fma context depends on the CPU in no kernel it runs (docs/dense.md).
 * The arguments are checked by the public entry points (core/ops/kernels.c). */
#include <string.h>
#include "gnnref/dense.h"
#include "gnnref/tensor.h"
#include "opt/cpu/dense_impl.h"
#include "opt/cpu/nn_impl.h"
#include "opt/cpu/update_impl.h"

#define DZ_ROWS 64 /* rows per work item of the dz pass */

static void relu_dropout_tile(void *ctx, float *c, int64_t ldc, int64_t row0, int64_t rows, int64_t col0,
                              int64_t cols)
{
    gnn_update_epilogue(c, ldc, row0, rows, col0, cols, NULL, (const gnn_dropout_key *)ctx);
}

static gnn_status update_fwd_on(int path, const float *x, int64_t n, int64_t c, const float *w, const float *b,
                                int64_t k, const gnn_dropout_key *key, float *y)
{
    const gnn_dense_gemm g = { .M = n, .N = k, .K = c, .A = x, .a_rs = c, .a_cs = 1, .B = w, .b_rs = k, .b_cs = 1,
                               .C = y, .ldc = k, .init = b, .epilogue = relu_dropout_tile, .epi_ctx = (void *)key };
    return gnn_dense_gemm_run(gnn_dense_kernel_of(path), &g);
}

static gnn_status update_bwd_on(int path, const float *x, const float *y, const float *dy, int64_t n, int64_t c,
                                const float *w, int64_t k, float p, float *dx, float *dw, float *db)
{
    const float scale = 1.0f / (1.0f - p);
    if (k == 0) { /* nothing flows back: dx = 0 (dw and db are empty) */
        if (dx && n > 0 && c > 0)
            memset(dx, 0, (size_t)(n * c) * sizeof(float));
        return GNN_OK;
    }
    float *dz = gnn_malloc_scratch((size_t)(n > 0 ? n : 1) * (size_t)k * sizeof(float)); /* (n, k) */
    if (!dz)
        return GNN_ERR_NOMEM;
    const int64_t nb = (n + DZ_ROWS - 1) / DZ_ROWS;
#pragma omp parallel for schedule(dynamic, 1) if (n * k >= 65536)
    for (int64_t q = 0; q < nb; q++) {
        const int64_t i0 = q * DZ_ROWS, rows = n - i0 < DZ_ROWS ? n - i0 : DZ_ROWS;
        gnn_update_dz(y + i0 * k, dy + i0 * k, scale, rows * k, dz + i0 * k);
    }
    const gnn_dense_kernel *kr = gnn_dense_kernel_of(path);
    gnn_status st = GNN_OK;
    if (c > 0)
        st = gnn_dense_dw(kr, x, dz, n, c, k, dw);
    if (!st && dx)
        st = gnn_dense_dx(kr, dz, n, c, w, k, dx);
    if (!st && db)
        gnn_cpu_col_sums(dz, n, k, db);
    gnn_free(dz);
    return st;
}

#define UPDATE_TABLE(tag, path, name_)                                                                               \
    static gnn_status update_fwd_##tag(const float *x, int64_t n, int64_t c, const float *w, const float *b,         \
                                       int64_t k, const gnn_dropout_key *key, float *y)                              \
    {                                                                                                                \
        return update_fwd_on(path, x, n, c, w, b, k, key, y);                                                        \
    }                                                                                                                \
    static gnn_status update_bwd_##tag(const float *x, const float *y, const float *dy, int64_t n, int64_t c,        \
                                       const float *w, int64_t k, float p, float *dx, float *dw, float *db)          \
    {                                                                                                                \
        return update_bwd_on(path, x, y, dy, n, c, w, k, p, dx, dw, db);                                             \
    }                                                                                                                \
    const gnn_update_ops gnn_update_##tag = {                                                                        \
        .name = name_,                                                                                               \
        .caps = 3u, /* GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED: the same bits at any thread count */                \
        .forward = update_fwd_##tag,                                                                                 \
        .backward = update_bwd_##tag,                                                                                \
    };

UPDATE_TABLE(fma, -1, "fma")
UPDATE_TABLE(fma_scalar, GNN_DENSE_SCALAR, "fma-scalar")
UPDATE_TABLE(fma_avx2, GNN_DENSE_AVX2, "fma-avx2")
UPDATE_TABLE(fma_avx512, GNN_DENSE_AVX512, "fma-avx512")
