/* opt/cpu/nn_blas.c -- the linear layer on OpenBLAS ("blas"): the dense layers of training at
 * sgemm speed, with bits that do not depend on the thread count, the rank count or the
 * backend (simulator or mpirun).
 *
 * Why: the bitwise loop kernel of opt/cpu/nn.c keeps nn.h's per-element order (k ascending),
 * which caps it near 11 GFLOP/s on two cores; OpenBLAS's packed, register-blocked sgemm runs
 * several times faster but sums in its own order (k panels, FMA). So this table is held to ref
 * within a tolerance (oracle: linear.fwd and linear.bwd, impl "blas"), and instead keeps the
 * property training needs: the same bits at every thread count, so that step losses are
 * bitwise equal at 1, 2 and 3 threads and between the simulator and mpirun.
 *
 * How the bits are fixed @sec{DistGNN-MB 3.3} ("Thread-Parallelization", with a fixed split):
 *  - the work is cut into tiles that depend only on the shapes (never on the thread count),
 *    each tile is one single-threaded cblas_sgemm, and every output element belongs to exactly
 *    one tile: its value is a function of the tile's shape and inputs alone, whichever thread
 *    runs it (OpenBLAS is kept to one thread: gnn_cpu_blas_single_thread);
 *  - forward y (n, out) and dx (n, in): blocks of LIN_BN rows;
 *  - dw (in, out) = x^T dy: blocks of the `in` dimension (dw_tile_rows), each one sgemm over all
 *    n rows (K = n), so no partial copies and no reduction across threads (the paper's BWD_W
 *    keeps a copy per thread and reduces them in thread order, which depends on the thread
 *    count; the cpu UPDATE, opt/cpu/update.c, now tiles its dw the same way as here);
 *  - db (out) = sum_i dy[i]: ref's order exactly (rows ascending from 0.0f per column), so it is
 *    ref's bits.
 * The tiles are handed out dynamically (a late thread does not hold the others back on a busy
 * machine); which thread takes a tile does not change a bit. The bias is added after the
 * block's sgemm while it is in cache: y = (x w) + b, where ref accumulates b + x w in k order.
 *
 * The public entry points (gnn_nn_linear_fwd and _bwd, core/ops/kernels.c) check the arguments:
 * these bodies assume valid input. ReLU and dropout are opt/cpu/nn.c's (nn_impl.h). */
#include <pthread.h>
#include <string.h>
#include <cblas.h>
#include "gnnref/nn.h"
#include "opt/cpu/nn_impl.h"

/* OpenBLAS extensions (declared by its cblas.h, not by the netlib cblas.h that Debian's
 * alternatives may select; we link libopenblas directly) */
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);

#define LIN_BN 256      /* rows per forward / dx tile: a 256 x out block of y stays in L2 */
#define LIN_PAR_MIN 4   /* tiles below which one thread does the work (fork/join costs more) */

static void set_one_thread(void) { openblas_set_num_threads(1); }

/* Once per process (the simulator's ranks are threads that enter here together: one of them
 * sets it); after that only a read, unless something else in the process (a program linking
 * the library) raised the count again, which is set back before any sgemm. */
void gnn_cpu_blas_single_thread(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, set_one_thread);
    if (openblas_get_num_threads() != 1)
        openblas_set_num_threads(1);
}


static void linear_fwd_blas(const float *x, int64_t n, int64_t in, const float *w, const float *b, int64_t out,
                            float *y)
{
    if (n == 0 || out == 0)
        return;
    gnn_cpu_blas_single_thread();
    const int64_t nb = (n + LIN_BN - 1) / LIN_BN;
#pragma omp parallel for schedule(dynamic, 1) if (nb >= LIN_PAR_MIN)
    for (int64_t t = 0; t < nb; t++) {
        const int64_t i0 = t * LIN_BN, rows = n - i0 < LIN_BN ? n - i0 : LIN_BN;
        float *yb = y + i0 * out;
        if (in > 0)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)out, (int)in, 1.0f, x + i0 * in,
                        (int)in, w, (int)out, 0.0f, yb, (int)out);
        else
            memset(yb, 0, (size_t)(rows * out) * sizeof(float));
        if (b)
            for (int64_t i = 0; i < rows; i++)
#pragma omp simd
                for (int64_t j = 0; j < out; j++)
                    yb[i * out + j] += b[j];
    }
}

static void linear_bwd_blas(const float *x, const float *dy, int64_t n, int64_t in, const float *w, int64_t out,
                            float *dx, float *dw, float *db)
{
    gnn_cpu_blas_single_thread();
    if (db)
        gnn_cpu_col_sums(dy, n, out, db);
    if (dw && in > 0 && out > 0) {
        const int64_t tr = gnn_cpu_dw_tile_rows(in), nt = (in + tr - 1) / tr;
#pragma omp parallel for schedule(dynamic, 1) if (nt > 1 && n * in * out >= 262144)
        for (int64_t t = 0; t < nt; t++) {
            const int64_t k0 = t * tr, rows = in - k0 < tr ? in - k0 : tr;
            if (n > 0)
                cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)rows, (int)out, (int)n, 1.0f, x + k0,
                            (int)in, dy, (int)out, 0.0f, dw + k0 * out, (int)out);
            else
                memset(dw + k0 * out, 0, (size_t)(rows * out) * sizeof(float));
        }
    }
    if (dx && n > 0 && in > 0) {
        const int64_t nb = (n + LIN_BN - 1) / LIN_BN;
#pragma omp parallel for schedule(dynamic, 1) if (nb >= LIN_PAR_MIN)
        for (int64_t t = 0; t < nb; t++) {
            const int64_t i0 = t * LIN_BN, rows = n - i0 < LIN_BN ? n - i0 : LIN_BN;
            if (out > 0)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)in, (int)out, 1.0f, dy + i0 * out,
                            (int)out, w, (int)out, 0.0f, dx + i0 * in, (int)in);
            else
                memset(dx + i0 * in, 0, (size_t)(rows * in) * sizeof(float));
        }
    }
}

const gnn_nn_ops gnn_nn_blas = {
    .name = "blas",
    .caps = 3u, /* GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED: the same bits at any thread count */
    .linear_fwd = linear_fwd_blas,
    .linear_bwd = linear_bwd_blas,
    .relu_fwd = gnn_cpu_relu_fwd,
    .relu_bwd = gnn_cpu_relu_bwd,
    .dropout_fwd = gnn_cpu_dropout_fwd,
    .dropout_bwd = gnn_cpu_dropout_bwd,
};
