/* opt/cpu/update_blocked.c -- the fused UPDATE in the paper's blocked layout ("cpu-blocked").
 *
 * @sec{DistGNN-MB 3.3}, "Blocking": in[N][C] is viewed as in[nn][bn][nc][bc] and the weight
 * as wt[nk][nc][bc][bk], so that with nc as the outer loop the dot product runs on small
 * matrices in[bn][bc] . wt[bc][bk] -> out[bn][bk], and the output block stays in cache until
 * it is finished (bias, ReLU, dropout: "Operator Fusion"). Here:
 *  - in[nn][bn][nc][bc] is exactly the row-major x (row i = nn*bn + r, column nc*bc + t), so x
 *    needs no copy: a block in[nn][.][nc][.] is x at row nn*bn, column nc*bc, stride C;
 *  - w (C, K) row-major is packed once per call into wt[nk][nc][bc][bk] (contiguous bc x bk
 *    blocks) and, for the backward-by-data, w^T into [nc][nk][bk][bc];
 *  - block sizes: bn = 64 rows; bc = 64 if 64 divides C, else bc = C; bk = 64 if 64 divides K,
 *    else bk = K (the paper's remainder rule for C and K); the last row block has N mod 64 rows;
 *  - the out[bn][bk] block is the y block itself (row stride K): it is set to the bias, the nc
 *    blocks are accumulated into it in order, then the epilogue runs on it while it is in L1/L2;
 *  - threads: OpenMP over nn ("Thread-Parallelization": the outermost output dimension);
 *  - micro-kernel: a 4-row x 16-column register tile in plain C (omp simd across the 16
 *    columns), built also for AVX2 where the compiler supports target_clones.
 * Every y[i][j] is b[j] + x[i][0] w[0][j] + x[i][1] w[1][j] + ... in c order, each product and
 * sum rounded in turn (-ffp-contract=off), which is exactly ref's order: the forward matches
 * ref bit for bit (the oracle still uses the entry's tolerance; see docs/update.md).
 *
 * Backward: dz = (y > 0 ? dy / (1-p) : 0) per row block (one pass, into a per-thread buffer);
 * BWD_D: dx block = dz block . w^T with the same micro-kernel (each dx[i][c] summed over j in
 * order, as in ref); BWD_W: "parallelize along the N dimension, let each thread compute its own
 * copy of the weight gradients and subsequently perform a reduction across all copies": each
 * thread accumulates dw_t += x_blk^T . dz and db_t += column sums of dz over its row blocks
 * (static schedule), then dw = dw_0 + dw_1 + ... in thread order (fixed for a thread count).
 * The arguments are checked by the public entry points (core/kernels.c): the bodies assume
 * valid input. */
#include <string.h>
#include "gnnref/tensor.h"
#include "gnnref/update.h"
#include "opt/cpu/clones.h"
#include "opt/cpu/update_impl.h"
#ifdef _OPENMP
#include <omp.h>
#endif


#define BN 64
#define BCK 64 /* bc and bk when they divide C and K */
#define RB 4   /* register tile rows */
#define JB 16  /* register tile columns */

/* C[M][N] += A[M][T] . B[T][N]; A(r, t) = A[r*ars + t*ats], B row t at B + t*ldb, C row r at
 * C + r*ldc. Every C element adds its T products for t = 0, 1, ... in order. */
GNN_CLONES
static void micro_kernel(int64_t M, int64_t N, int64_t T, const float *A, int64_t ars, int64_t ats,
                         const float *B, int64_t ldb, float *C, int64_t ldc)
{
    int64_t r = 0;
    for (; r + RB <= M; r += RB) {
        int64_t j = 0;
        for (; j + JB <= N; j += JB) {
            float t0[JB], t1[JB], t2[JB], t3[JB];
            float *c0 = C + r * ldc + j, *c1 = c0 + ldc, *c2 = c1 + ldc, *c3 = c2 + ldc;
#pragma omp simd
            for (int l = 0; l < JB; l++) {
                t0[l] = c0[l];
                t1[l] = c1[l];
                t2[l] = c2[l];
                t3[l] = c3[l];
            }
            const float *a = A + r * ars;
            for (int64_t t = 0; t < T; t++) {
                const float *b = B + t * ldb + j;
                const float a0 = a[t * ats], a1 = a[ars + t * ats], a2 = a[2 * ars + t * ats], a3 = a[3 * ars + t * ats];
#pragma omp simd
                for (int l = 0; l < JB; l++) {
                    t0[l] += a0 * b[l];
                    t1[l] += a1 * b[l];
                    t2[l] += a2 * b[l];
                    t3[l] += a3 * b[l];
                }
            }
#pragma omp simd
            for (int l = 0; l < JB; l++) {
                c0[l] = t0[l];
                c1[l] = t1[l];
                c2[l] = t2[l];
                c3[l] = t3[l];
            }
        }
        if (j < N) /* column remainder of the 4-row strip */
            for (int q = 0; q < RB; q++) {
                float *cq = C + (r + q) * ldc;
                const float *a = A + (r + q) * ars;
                for (int64_t t = 0; t < T; t++) {
                    const float av = a[t * ats];
                    const float *b = B + t * ldb;
#pragma omp simd
                    for (int64_t jj = j; jj < N; jj++)
                        cq[jj] += av * b[jj];
                }
            }
    }
    for (; r < M; r++) { /* row remainder */
        float *cr = C + r * ldc;
        const float *a = A + r * ars;
        for (int64_t t = 0; t < T; t++) {
            const float av = a[t * ats];
            const float *b = B + t * ldb;
#pragma omp simd
            for (int64_t jj = 0; jj < N; jj++)
                cr[jj] += av * b[jj];
        }
    }
}

static int64_t block_of(int64_t dim) { return dim % BCK == 0 && dim > 0 ? BCK : dim; }

static gnn_status update_fwd_blocked(const float *x, int64_t n, int64_t c, const float *w, const float *b,
                                     int64_t k, const gnn_dropout_key *key, float *y)
{
    if (n == 0 || k == 0)
        return GNN_OK;
    const int64_t bc = block_of(c), bk = block_of(k);
    const int64_t nc = bc ? c / bc : 0, nk = k / bk, nn = (n + BN - 1) / BN;
    float *wt = gnn_malloc((size_t)c * (size_t)k * sizeof(float)); /* wt[nk][nc][bc][bk] */
    if (!wt)
        return GNN_ERR_NOMEM;
#pragma omp parallel
    {
#pragma omp for schedule(static) collapse(2)
        for (int64_t kb = 0; kb < nk; kb++)
            for (int64_t cb = 0; cb < nc; cb++) {
                float *dst = wt + (kb * nc + cb) * bc * bk;
                for (int64_t t = 0; t < bc; t++)
                    memcpy(dst + t * bk, w + (cb * bc + t) * k + kb * bk, (size_t)bk * sizeof(float));
            }
        /* implicit barrier: wt is complete */
#pragma omp for schedule(static)
        for (int64_t ib = 0; ib < nn; ib++) {
            const int64_t i0 = ib * BN, rows = n - i0 < BN ? n - i0 : BN;
            for (int64_t kb = 0; kb < nk; kb++) {
                float *out = y + i0 * k + kb * bk; /* out[bn][bk], row stride K */
                for (int64_t r = 0; r < rows; r++)
                    for (int64_t j = 0; j < bk; j++)
                        out[r * k + j] = b ? b[kb * bk + j] : 0.0f;
                for (int64_t cb = 0; cb < nc; cb++)
                    micro_kernel(rows, bk, bc, x + i0 * c + cb * bc, c, 1, wt + (kb * nc + cb) * bc * bk, bk, out, k);
                gnn_update_epilogue(out, k, i0, rows, kb * bk, bk, NULL, key); /* bias already in */
            }
        }
    }
    gnn_free(wt);
    return GNN_OK;
}

static gnn_status update_bwd_blocked(const float *x, const float *y, const float *dy, int64_t n, int64_t c,
                                     const float *w, int64_t k, float p, float *dx, float *dw, float *db)
{
    const float scale = 1.0f / (1.0f - p);
    const int64_t bc = block_of(c), bk = block_of(k);
    const int64_t nc = bc ? c / bc : 0, nk = bk ? k / bk : 0, nn = (n + BN - 1) / BN;
#ifdef _OPENMP
    const int T = omp_get_max_threads();
#else
    const int T = 1;
#endif
    const size_t ck = (size_t)c * (size_t)k;
    const size_t per = (size_t)BN * (size_t)k + ck + (size_t)k; /* dz block, dw copy, db copy */
    float *wT = gnn_malloc(ck * sizeof(float));                  /* w^T as [nc][nk][bk][bc] */
    float *scratch = gnn_malloc((size_t)T * per * sizeof(float));
    if (!wT || !scratch) {
        gnn_free(wT);
        gnn_free(scratch);
        return GNN_ERR_NOMEM;
    }
    int used = 1;
#pragma omp parallel num_threads(T)
    {
#ifdef _OPENMP
        const int t_id = omp_get_thread_num();
#pragma omp single
        used = omp_get_num_threads();
#else
        const int t_id = 0;
#endif
        float *dz = scratch + (size_t)t_id * per, *dw_t = dz + (size_t)BN * (size_t)k, *db_t = dw_t + ck;
        memset(dw_t, 0, (ck + (size_t)k) * sizeof(float));
        if (dx) {
#pragma omp for schedule(static) collapse(2)
            for (int64_t cb = 0; cb < nc; cb++)
                for (int64_t kb = 0; kb < nk; kb++) {
                    float *dst = wT + (cb * nk + kb) * bk * bc;
                    for (int64_t t = 0; t < bk; t++)
                        for (int64_t q = 0; q < bc; q++)
                            dst[t * bc + q] = w[(cb * bc + q) * k + kb * bk + t];
                }
        }
        /* barrier (end of omp for, or the single above): wT is complete */
#pragma omp barrier
#pragma omp for schedule(static)
        for (int64_t ib = 0; ib < nn; ib++) {
            const int64_t i0 = ib * BN, rows = n - i0 < BN ? n - i0 : BN;
            gnn_update_dz(y + i0 * k, dy + i0 * k, scale, rows * k, dz);
            if (dx && c > 0) { /* BWD_D: dx[bn][bc] = sum over nk of dz[bn][bk] . wT[bk][bc] */
                float *dxb = dx + i0 * c;
                for (int64_t r = 0; r < rows; r++)
                    memset(dxb + r * c, 0, (size_t)c * sizeof(float));
                for (int64_t cb = 0; cb < nc; cb++)
                    for (int64_t kb = 0; kb < nk; kb++)
                        micro_kernel(rows, bc, bk, dz + kb * bk, k, 1, wT + (cb * nk + kb) * bk * bc, bc,
                                     dxb + cb * bc, c);
            }
            /* BWD_W into this thread's copy: dw_t[c][k] += x_blk^T . dz */
            if (c > 0 && k > 0)
                micro_kernel(c, k, rows, x + i0 * c, 1, c, dz, k, dw_t, k);
            for (int64_t r = 0; r < rows; r++) {
                const float *dz_r = dz + r * k;
#pragma omp simd
                for (int64_t j = 0; j < k; j++)
                    db_t[j] += dz_r[j];
            }
        }
        /* the reduction of the copies in thread order 0, 1, ..., parallel over elements */
        const float *base = scratch + (size_t)BN * (size_t)k;
#pragma omp for schedule(static)
        for (int64_t e = 0; e < (int64_t)ck; e++) {
            float acc = base[e];
            for (int t = 1; t < used; t++)
                acc += base[(size_t)t * per + (size_t)e];
            dw[e] = acc;
        }
        if (db) {
#pragma omp for schedule(static)
            for (int64_t j = 0; j < k; j++) {
                float acc = base[ck + (size_t)j];
                for (int t = 1; t < used; t++)
                    acc += base[(size_t)t * per + ck + (size_t)j];
                db[j] = acc;
            }
        }
    }
    gnn_free(wT);
    gnn_free(scratch);
    return GNN_OK;
}

const gnn_update_ops gnn_update_blocked = {
    .name = "cpu-blocked",
    .caps = 2u, /* GNN_CAP_THREADED: deterministic for a given thread count */
    .forward = update_fwd_blocked,
    .backward = update_bwd_blocked,
};
