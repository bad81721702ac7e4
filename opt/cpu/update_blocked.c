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
 * ref bit for bit, and the oracle compares it bitwise (docs/update.md).
 *
 * Backward: dz = (y > 0 ? dy / (1-p) : 0) per row block (one pass, into a per-thread buffer);
 * BWD_D: dx block = dz block . w^T with the same micro-kernel (each dx[i][c] summed over j in
 * order, as in ref); BWD_W: the paper parallelizes along N with one weight-gradient copy per
 * thread, reduced at the end ("parallelize along the N dimension, let each thread compute its
 * own copy of the weight gradients and subsequently perform a reduction across all copies"),
 * which regroups every dw sum with the thread count. Here the threads split the tiles of dw
 * instead, each tile summed over all rows in order (update_dw_db): ref's order, so dw and db
 * are bitwise too, at every thread count, and the T copies of dw are not needed.
 * The arguments are checked by the public entry points (core/ops/kernels.c): the bodies assume
 * valid input. */
#include <string.h>
#include "gnnref/tensor.h"
#include "gnnref/update.h"
#include "opt/cpu/clones.h"
#include "opt/cpu/update_impl.h"
#include "opt/cpu/omp_compat.h"


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

/* dw and db in ref's order (BWD_W). The paper gives each thread its own copy of the weight
 * gradients over its rows and reduces the copies at the end; the sums then regroup with the
 * thread count (which rows a copy holds), so the result depends on it. Here the threads split
 * dw itself: a task owns a ct x jt tile of dw and adds, for every row i in ascending order,
 * x[i][c] * dz[i][j] into it (the micro-kernel over row blocks of BN, in order), which is
 * ref's dw[c][j] = 0 + x[0][c] dz[0][j] + x[1][c] dz[1][j] + ... term for term: bitwise, at any
 * thread count and any tiling, and no T x C x K copies. The task recomputes the dz of its
 * columns (one compare and multiply per element, against ct multiply-adds per element of the
 * GEMM). db: the same, one task per column block, dz summed over the rows in order from 0.0f. */
#define DW_JT 64 /* dw tile columns (multiple of the 16-wide register tile) */
static void update_dw_db(const float *x, const float *y, const float *dy, int64_t n, int64_t c, int64_t k,
                         float scale, float *dw, float *db, float *scratch, size_t per)
{
    const int64_t T = gnn_omp_max_threads();
    const int64_t jt = k < DW_JT ? k : DW_JT, njt = k > 0 ? (k + jt - 1) / jt : 0;
    /* tile rows: 64, halved (down to 4, the register tile) until there are a few tiles per
     * thread; the tiling never changes a sum, only who computes it */
    int64_t ct = 64;
    while (ct > 4 && ((c + ct - 1) / ct) * njt < 4 * T)
        ct /= 2;
    const int64_t nct = c > 0 ? (c + ct - 1) / ct : 0;
#pragma omp parallel
    {
        float *dzc = scratch + (size_t)gnn_omp_thread_num() * per; /* dz[BN][jt] of a row block */
#pragma omp for schedule(dynamic, 1) nowait
        for (int64_t t = 0; t < nct * njt; t++) {
            const int64_t c0 = (t / njt) * ct, j0 = (t % njt) * jt;
            const int64_t cw = c - c0 < ct ? c - c0 : ct, jw = k - j0 < jt ? k - j0 : jt;
            float *dw_t = dw + c0 * k + j0;
            for (int64_t r = 0; r < cw; r++)
                memset(dw_t + r * k, 0, (size_t)jw * sizeof(float));
            for (int64_t i0 = 0; i0 < n; i0 += BN) {
                const int64_t rows = n - i0 < BN ? n - i0 : BN;
                for (int64_t r = 0; r < rows; r++)
                    gnn_update_dz(y + (i0 + r) * k + j0, dy + (i0 + r) * k + j0, scale, jw, dzc + r * jw);
                micro_kernel(cw, jw, rows, x + i0 * c + c0, 1, c, dzc, jw, dw_t, k);
            }
        }
        if (db) {
#pragma omp for schedule(static)
            for (int64_t jb = 0; jb < njt; jb++) {
                const int64_t j0 = jb * jt, jw = k - j0 < jt ? k - j0 : jt;
                float *acc = db + j0;
                for (int64_t j = 0; j < jw; j++)
                    acc[j] = 0.0f;
                for (int64_t i = 0; i < n; i++) {
                    gnn_update_dz(y + i * k + j0, dy + i * k + j0, scale, jw, dzc);
#pragma omp simd
                    for (int64_t j = 0; j < jw; j++)
                        acc[j] += dzc[j];
                }
            }
        }
    }
}

static gnn_status update_bwd_blocked(const float *x, const float *y, const float *dy, int64_t n, int64_t c,
                                     const float *w, int64_t k, float p, float *dx, float *dw, float *db)
{
    const float scale = 1.0f / (1.0f - p);
    const int64_t bc = block_of(c), bk = block_of(k);
    const int64_t nc = bc ? c / bc : 0, nk = bk ? k / bk : 0, nn = (n + BN - 1) / BN;
    const int T = gnn_omp_max_threads();
    const size_t ck = (size_t)c * (size_t)k;
    /* per thread: a dz row block (BWD_D), which also holds the dz tile of update_dw_db */
    const size_t per = (size_t)BN * (size_t)(k > DW_JT ? k : DW_JT);
    float *wT = dx ? gnn_malloc(ck * sizeof(float)) : NULL; /* w^T as [nc][nk][bk][bc] */
    float *scratch = gnn_malloc((size_t)T * per * sizeof(float));
    if ((dx && !wT) || !scratch) {
        gnn_free(wT);
        gnn_free(scratch);
        return GNN_ERR_NOMEM;
    }
    if (dx) {
#pragma omp parallel num_threads(T)
        {
            float *dz = scratch + (size_t)gnn_omp_thread_num() * per;
#pragma omp for schedule(static) collapse(2)
            for (int64_t cb = 0; cb < nc; cb++)
                for (int64_t kb = 0; kb < nk; kb++) {
                    float *dst = wT + (cb * nk + kb) * bk * bc;
                    for (int64_t t = 0; t < bk; t++)
                        for (int64_t q = 0; q < bc; q++)
                            dst[t * bc + q] = w[(cb * bc + q) * k + kb * bk + t];
                }
            /* implicit barrier: wT is complete */
#pragma omp for schedule(static)
            for (int64_t ib = 0; ib < nn; ib++) {
                const int64_t i0 = ib * BN, rows = n - i0 < BN ? n - i0 : BN;
                if (c == 0)
                    continue;
                /* BWD_D: dx[bn][bc] = sum over nk of dz[bn][bk] . wT[bk][bc], each dx[i][c] summed
                 * over j in order from 0.0f, as in ref */
                gnn_update_dz(y + i0 * k, dy + i0 * k, scale, rows * k, dz);
                float *dxb = dx + i0 * c;
                for (int64_t r = 0; r < rows; r++)
                    memset(dxb + r * c, 0, (size_t)c * sizeof(float));
                for (int64_t cb = 0; cb < nc; cb++)
                    for (int64_t kb = 0; kb < nk; kb++)
                        micro_kernel(rows, bc, bk, dz + kb * bk, k, 1, wT + (cb * nk + kb) * bk * bc, bc,
                                     dxb + cb * bc, c);
            }
        }
    }
    update_dw_db(x, y, dy, n, c, k, scale, dw, db, scratch, per);
    gnn_free(wT);
    gnn_free(scratch);
    return GNN_OK;
}

const gnn_update_ops gnn_update_blocked = {
    .name = "cpu-blocked",
    .caps = 3u, /* GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED: ref's bits at any thread count */
    .forward = update_fwd_blocked,
    .backward = update_bwd_blocked,
};
