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
 * thread pools on the same cores. So OpenMP is the only parallel level: OpenBLAS is set to one
 * thread for the duration of the call (openblas_set_num_threads; the previous count is
 * restored), and each OpenMP thread calls a single-threaded sgemm on its row blocks. Measured
 * on the 2-core development machine (N = 100000, C = K = 256, p = 0.5, 2 threads; see
 * docs/update.md): this was faster than one threaded sgemm per 2048-row block followed by a
 * parallel epilogue. (The OpenMP variant of OpenBLAS also runs single-threaded inside a
 * parallel region, so the same code is right there.) Because of that global setting, the cpu
 * UPDATE must not run concurrently with other OpenBLAS calls of the same process.
 *
 * Backward: per row block, dz = (y > 0 ? dy / (1-p) : 0) in one pass into a per-thread buffer,
 * then dx_blk = dz . w^T (sgemm, NoTrans x Trans) and dw_t += x_blk^T . dz (sgemm, Trans x
 * NoTrans, beta = 1) into the thread's own copy (the paper's BWD_W: "each thread computes its
 * own copy of the weight gradients"), reduced at the end in thread order 0, 1, ... dw's sums
 * run in another order than ref's and depend on the thread count (which rows a thread owns),
 * so the oracle compares dw and dx within a tolerance. db needs no GEMM: it is summed in ref's
 * order (each column over the rows in order from 0.0f, columns split across the threads), so
 * it is bitwise ref's at any thread count and the oracle compares it so.
 *
 * The arguments are checked by the public entry points (gnn_update_forward and _backward,
 * core/kernels.c): these bodies assume valid input. */
#include <string.h>
#include <cblas.h>
#include "gnnref/tensor.h"
#include "gnnref/update.h"
#include "opt/cpu/update_impl.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* OpenBLAS extensions (declared by its cblas.h, but not by the netlib cblas.h that Debian's
 * alternatives may select; we link libopenblas directly, so declare them here). */
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
int openblas_get_parallel(void);

#define UPDATE_BN 256  /* forward rows per block: y block 256 x K floats (256 KiB at K = 256) */
#define UPDATE_BWD_BN 256

static int max_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static gnn_status update_fwd_cpu(const float *x, int64_t n, int64_t c, const float *w, const float *b,
                                 int64_t k, const gnn_dropout_key *key, float *y)
{
    if (n == 0 || k == 0)
        return GNN_OK;
    const int64_t nb = (n + UPDATE_BN - 1) / UPDATE_BN;
    const int prev = openblas_get_num_threads();
    if (prev != 1)
        openblas_set_num_threads(1);
#pragma omp parallel for schedule(static)
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
    if (prev != 1)
        openblas_set_num_threads(prev);
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
    const int T = max_threads();
    const size_t ck = (size_t)c * (size_t)k;
    /* per thread: dz block and dw copy (thread 0 also uses them: dw is only written by the
     * final reduction) */
    const size_t per = (size_t)UPDATE_BWD_BN * (size_t)k + ck;
    float *scratch = gnn_malloc((size_t)T * per * sizeof(float));
    if (!scratch)
        return GNN_ERR_NOMEM;
    const int64_t nb = (n + UPDATE_BWD_BN - 1) / UPDATE_BWD_BN;
    const int prev = openblas_get_num_threads();
    if (prev != 1)
        openblas_set_num_threads(1);
    int used = 1;
#pragma omp parallel num_threads(T)
    {
        const int t = thread_id();
#pragma omp single
        {
#ifdef _OPENMP
            used = omp_get_num_threads();
#endif
        }
        float *dz = scratch + (size_t)t * per, *dw_t = dz + (size_t)UPDATE_BWD_BN * (size_t)k;
        memset(dw_t, 0, ck * sizeof(float));
#pragma omp for schedule(static)
        for (int64_t blk = 0; blk < nb; blk++) {
            const int64_t i0 = blk * UPDATE_BWD_BN, rows = n - i0 < UPDATE_BWD_BN ? n - i0 : UPDATE_BWD_BN;
            if (k == 0) {
                if (dx && c > 0)
                    memset(dx + i0 * c, 0, (size_t)(rows * c) * sizeof(float));
                continue;
            }
            gnn_update_dz(y + i0 * k, dy + i0 * k, scale, rows * k, dz);
            if (c > 0) {
                if (dx)
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)c, (int)k, 1.0f, dz,
                                (int)k, w, (int)k, 0.0f, dx + i0 * c, (int)c);
                cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)c, (int)k, (int)rows, 1.0f, x + i0 * c,
                            (int)c, dz, (int)k, 1.0f, dw_t, (int)k);
            }
        }
    }
    /* the reduction of the per-thread copies, in thread order @sec{DistGNN-MB 3.3} (BWD_W) */
    if (ck > 0) {
        memcpy(dw, scratch + (size_t)UPDATE_BWD_BN * (size_t)k, ck * sizeof(float));
        for (int t = 1; t < used; t++) {
            const float *src = scratch + (size_t)t * per + (size_t)UPDATE_BWD_BN * (size_t)k;
#pragma omp parallel for schedule(static)
            for (int64_t e = 0; e < (int64_t)ck; e++)
                dw[e] += src[e];
        }
    }
    if (db)
        update_db(y, dy, n, k, scale, db);
    if (prev != 1)
        openblas_set_num_threads(prev);
    gnn_free(scratch);
    return GNN_OK;
}

const gnn_update_ops gnn_update_cpu = {
    .name = "cpu",
    .caps = 2u, /* GNN_CAP_THREADED: deterministic for a given thread count, not across counts */
    .forward = update_fwd_cpu,
    .backward = update_bwd_cpu,
};
