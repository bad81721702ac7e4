/* opt/cpu/update.c -- the fused UPDATE y = Dropout(ReLU(x . w + b)) on OpenBLAS ("cpu").
 *
 * @sec{DistGNN-MB 3.3}: the paper fuses the bias, ReLU and dropout into the GEMM so that each
 * output block is finished while it is still in the core's L2 ("Operator Fusion"), and maps
 * blocks of rows to OpenMP threads ("Thread-Parallelization"). Here the GEMM is OpenBLAS's
 * cblas_sgemm on a block of UPDATE_BN rows, and the epilogue (opt/cpu/update_epilogue.c) runs
 * on that block right after its GEMM, by the same thread: y is written once by the GEMM and
 * read-modified-written once more from L2, instead of three more passes over memory (bias,
 * ReLU, dropout) in the unfused sequence.
 *
 * Threads. Debian's libopenblas0-pthread is the default OpenBLAS (openblas_get_parallel() == 1:
 * its own pthread pool, not OpenMP). Calling a threaded sgemm from OpenMP threads would run
 * T x T threads, and alternating a threaded sgemm with an OpenMP epilogue keeps two spinning
 * thread pools on the same cores. So OpenMP is the only parallel level: OpenBLAS is kept at one
 * thread for the process (gnn_cpu_blas_single_thread, opt/cpu/nn_blas.c: set once, never
 * restored, so that simulated ranks calling at the same time cannot race on the setting), and
 * each OpenMP thread calls a single-threaded sgemm on its row blocks. Measured
 * on the 2-core development machine (N = 100000, C = K = 256, p = 0.5, 2 threads; see
 * docs/update.md): this was faster than one threaded sgemm per 2048-row block followed by a
 * parallel epilogue. (The OpenMP variant of OpenBLAS also runs single-threaded inside a
 * parallel region, so the same code is right there.) A program that wants OpenBLAS's own
 * threads for other work must set them again after calling this kernel.
 *
 * Backward: per block of rows, dz = (y > 0 ? dy / (1-p) : 0) in one pass, then dx_blk = dz .
 * w^T (sgemm, NoTrans x Trans). dw = x^T . dz is cut by columns of x into fixed tiles
 * (gnn_cpu_dw_tile_rows: a function of c only), each one sgemm (Trans x NoTrans) over every row. The
 * paper's BWD_W gives each thread its own copy of the weight gradients and reduces them in
 * thread order; that sum depends on which rows a thread owned, so the result depended on the
 * thread count (it did here until the training issue). With fixed tiles each element of dw
 * is one sgemm's sum over all n rows, whichever thread runs it: the same bits at any thread
 * count, and no copies to reduce, at the price of dz (n, k) held whole. dw and dx still sum
 * in OpenBLAS's order, so the oracle compares them to ref within a tolerance. db needs no
 * GEMM: it is summed in ref's order (each column over the rows in order from 0.0f, columns
 * split across the threads), so it is bitwise ref's and the oracle compares it so.
 *
 * The arguments are checked by the public entry points (gnn_update_forward and _backward,
 * core/ops/kernels.c): these bodies assume valid input. */
#include <string.h>
#include <cblas.h>
#include "gnnref/tensor.h"
#include "gnnref/update.h"
#include "opt/cpu/nn_impl.h"
#include "opt/cpu/update_impl.h"

/* OpenBLAS extensions (declared by its cblas.h, but not by the netlib cblas.h that Debian's
 * alternatives may select; we link libopenblas directly, so declare them here). */
#define UPDATE_BN 256  /* forward rows per block: y block 256 x K floats (256 KiB at K = 256) */
#define UPDATE_BWD_BN 256

static gnn_status update_fwd_cpu(const float *x, int64_t n, int64_t c, const float *w, const float *b,
                                 int64_t k, const gnn_dropout_key *key, float *y)
{
    if (n == 0 || k == 0)
        return GNN_OK;
    const int64_t nb = (n + UPDATE_BN - 1) / UPDATE_BN;
    gnn_cpu_blas_single_thread();
#pragma omp parallel for schedule(dynamic, 1) /* which thread runs a block changes no bit */
    for (int64_t blk = 0; blk < nb; blk++) {
        const int64_t i0 = blk * UPDATE_BN, rows = n - i0 < UPDATE_BN ? n - i0 : UPDATE_BN;
        float *yb = y + i0 * k;
        if (c > 0)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)k, (int)c, 1.0f, x + i0 * c,
                        (int)c, w, (int)k, 0.0f, yb, (int)k);
        else
            memset(yb, 0, (size_t)(rows * k) * sizeof(float));
        gnn_update_epilogue(yb, k, i0, rows, 0, k, b, key); /* while the block is in L2 */
    }
    return GNN_OK;
}

/* db[j] = sum of dz[i][j] over i ascending from 0.0f (ref's order): columns in blocks of 16 (one
 * 64-byte line) across the threads, each block's rows in order, dz recomputed from y and dy
 * (one compare and one multiply: the same expression as gnn_update_dz). */
static void update_db(const float *y, const float *dy, int64_t n, int64_t k, float scale, float *db)
{
    const int64_t nblk = (k + 15) / 16;
#pragma omp parallel for schedule(static) if (n * k >= 65536)
    for (int64_t b = 0; b < nblk; b++) {
        const int64_t j0 = b * 16, jn = k - j0 < 16 ? k - j0 : 16;
        float acc[16] = { 0.0f };
        for (int64_t i = 0; i < n; i++) {
            const float *y_i = y + i * k + j0, *dy_i = dy + i * k + j0;
            for (int64_t j = 0; j < jn; j++)
                acc[j] += y_i[j] > 0.0f ? dy_i[j] * scale : 0.0f;
        }
        memcpy(db + j0, acc, (size_t)jn * sizeof(float));
    }
}


static gnn_status update_bwd_cpu(const float *x, const float *y, const float *dy, int64_t n, int64_t c,
                                 const float *w, int64_t k, float p, float *dx, float *dw, float *db)
{
    const float scale = 1.0f / (1.0f - p);
    if (k == 0) { /* nothing flows back: dx = 0 (dw and db are empty) */
        if (dx && n > 0 && c > 0)
            memset(dx, 0, (size_t)(n * c) * sizeof(float));
        return GNN_OK;
    }
    float *dz = gnn_malloc((size_t)(n > 0 ? n : 1) * (size_t)k * sizeof(float)); /* (n, k), every row */
    if (!dz)
        return GNN_ERR_NOMEM;
    gnn_cpu_blas_single_thread();
    const int64_t nb = (n + UPDATE_BWD_BN - 1) / UPDATE_BWD_BN;
    const int64_t tr = gnn_cpu_dw_tile_rows(c), nt = c > 0 ? (c + tr - 1) / tr : 0;
#pragma omp parallel
    {
        /* dz, then dx, block by block (one sgemm per fixed block of rows) */
#pragma omp for schedule(dynamic, 1)
        for (int64_t blk = 0; blk < nb; blk++) {
            const int64_t i0 = blk * UPDATE_BWD_BN, rows = n - i0 < UPDATE_BWD_BN ? n - i0 : UPDATE_BWD_BN;
            gnn_update_dz(y + i0 * k, dy + i0 * k, scale, rows * k, dz + i0 * k);
            if (dx && c > 0)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)c, (int)k, 1.0f, dz + i0 * k,
                            (int)k, w, (int)k, 0.0f, dx + i0 * c, (int)c);
        }
        /* (implicit barrier: dz is complete) dw = x^T dz in fixed tiles of c, each summing
         * every row (K = n) in one sgemm: no per-thread copies, no reduction */
#pragma omp for schedule(dynamic, 1)
        for (int64_t t = 0; t < nt; t++) {
            const int64_t c0 = t * tr, rows = c - c0 < tr ? c - c0 : tr;
            if (n > 0)
                cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)rows, (int)k, (int)n, 1.0f, x + c0, (int)c,
                            dz, (int)k, 0.0f, dw + c0 * k, (int)k);
            else
                memset(dw + c0 * k, 0, (size_t)(rows * k) * sizeof(float));
        }
    }
    if (db)
        update_db(y, dy, n, k, scale, db);
    gnn_free(dz);
    return GNN_OK;
}

const gnn_update_ops gnn_update_cpu = {
    .name = "cpu",
    .caps = 3u, /* GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED: the same bits at any thread count */
    .forward = update_fwd_cpu,
    .backward = update_bwd_cpu,
};
