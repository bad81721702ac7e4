/* opt/cpu/spmm.c -- OpenMP sparse-dense product of the input layer, bitwise equal to
 * ref/spmm.c at any thread count (include/gnnref/spmm.h, docs/sparse-features.md).
 *
 * What changed and why the bits still match: only independent outputs are spread over threads
 * and SIMD lanes; every output element keeps the reference's summation order.
 *  - fwd: rows of y over threads; y[i][:] vectorized across j, each y[i][j] adding its terms
 *    in CSR order;
 *  - dw: rows of dw (columns of X) over threads, each summing over X^T's row in ascending i:
 *    no atomics and no cross-thread reduction, so the thread count cannot change a bit;
 *  - transpose: a counting sort whose placement pass runs per thread over a fixed range of
 *    rows, each thread starting in every column where the rows before its range end (the
 *    per-thread counts are prefix-summed in thread order): the entries land where the serial
 *    sort puts them, whatever the thread count (stress points before counting and summing:
 *    oracle-stress: spmm.dw);
 *  - gather: rows copied in parallel (each to its own slice);
 *  - dropout: rows over threads; a row's Philox block is computed once for the entries that
 *    share it (four columns per block) instead of once per entry.
 * The entry points (core/ops/spmm.c) check the arguments: these bodies assume valid input. */
#include <stdlib.h>
#include <string.h>
#include "gnnref/rng.h"
#include "gnnref/spmm.h"
#include "opt/cpu/omp_stress.h"
#include "opt/cpu/omp_compat.h"

static void fwd_cpu(const gnn_fcsr *x, const float *w, const float *b, int64_t k, float *y)
{
#pragma omp parallel for schedule(dynamic, gnn_omp_chunk(64))
    for (int64_t i = 0; i < x->rows; i++) {
        float *y_i = y + i * k;
        for (int64_t j = 0; j < k; j++)
            y_i[j] = b ? b[j] : 0.0f;
        for (int64_t p = x->indptr[i]; p < x->indptr[i + 1]; p++) {
            const float v = x->val[p];
            const float *w_c = w + (int64_t)x->col[p] * k;
#pragma omp simd
            for (int64_t j = 0; j < k; j++)
                y_i[j] += v * w_c[j];
        }
    }
}

static void dw_cpu(const gnn_fcsr *xt, const float *dz, int64_t k, float *dw)
{
#pragma omp parallel for schedule(dynamic, gnn_omp_chunk(64))
    for (int64_t c = 0; c < xt->rows; c++) {
        float *dw_c = dw + c * k;
        memset(dw_c, 0, (size_t)k * sizeof(float));
        for (int64_t p = xt->indptr[c]; p < xt->indptr[c + 1]; p++) {
            const float v = xt->val[p];
            const float *dz_i = dz + (int64_t)xt->col[p] * k;
#pragma omp simd
            for (int64_t j = 0; j < k; j++)
                dw_c[j] += v * dz_i[j];
        }
    }
}

/* Thread t owns rows [rows t / T, rows (t+1) / T). cnt[t][c] counts its entries of column c;
 * after the prefix sum over (c, t) in that order it is where t's first entry of c goes, which
 * is the serial sort's position because the rows before t's range are exactly threads 0..t-1's. */
static void transpose_cpu(const gnn_fcsr *x, gnn_fcsr *xt)
{
    const int64_t C = x->cols;
    const int T = x->nnz < 65536 ? 1 : gnn_omp_max_threads();
    int64_t *cnt = calloc((size_t)T * (size_t)(C + 1), sizeof(int64_t));
    if (!cnt) { /* no scratch: the serial sort gives the same result */
        gnn_spmm_transpose_ref(x, xt);
        return;
    }
#pragma omp parallel num_threads(T)
    {
        const int t = gnn_omp_thread_num(), nt = gnn_omp_num_threads();
        const int64_t r0 = x->rows * t / nt, r1 = x->rows * (t + 1) / nt;
        int64_t *my = cnt + (int64_t)t * (C + 1);
        GNN_OMP_STRESS_POINT(); /* opt/cpu/omp_stress.h: a late count, a late sum under stress */
        for (int64_t p = x->indptr[r0]; p < x->indptr[r1]; p++)
            my[x->col[p]]++;
#pragma omp barrier
#pragma omp single
        {
            GNN_OMP_STRESS_POINT();
            int64_t run = 0;
            for (int64_t c = 0; c < C; c++) {
                xt->indptr[c] = run;
                for (int u = 0; u < nt; u++) {
                    const int64_t n = cnt[(int64_t)u * (C + 1) + c];
                    cnt[(int64_t)u * (C + 1) + c] = run;
                    run += n;
                }
            }
            xt->indptr[C] = run;
        }
        for (int64_t i = r0; i < r1; i++)
            for (int64_t p = x->indptr[i]; p < x->indptr[i + 1]; p++) {
                const int64_t q = my[x->col[p]]++;
                xt->col[q] = (int32_t)i;
                xt->val[q] = x->val[p];
            }
    }
    free(cnt);
}

static void gather_cpu(const gnn_fcsr *x, const int64_t *rows, gnn_fcsr *out)
{
#pragma omp parallel for schedule(dynamic, gnn_omp_chunk(256))
    for (int64_t r = 0; r < out->rows; r++) {
        const int64_t s = x->indptr[rows[r]], len = x->indptr[rows[r] + 1] - s;
        memcpy(out->col + out->indptr[r], x->col + s, (size_t)len * sizeof(int32_t));
        memcpy(out->val + out->indptr[r], x->val + s, (size_t)len * sizeof(float));
    }
}

static void dropout_cpu(gnn_fcsr *x, const int64_t *row_gid, float p, uint64_t seed, uint32_t step, unsigned layer)
{
    const float scale = 1.0f / (1.0f - p);
#pragma omp parallel for schedule(dynamic, gnn_omp_chunk(64))
    for (int64_t i = 0; i < x->rows; i++) {
        const gnn_rng_stream s = gnn_rng_stream_make(seed, GNN_TAG_DROPOUT, step, layer, (uint64_t)row_gid[i]);
        uint32_t w[4] = { 0, 0, 0, 0 };
        int64_t have = -1; /* the block in w */
        for (int64_t q = x->indptr[i]; q < x->indptr[i + 1]; q++) {
            const int64_t c = x->col[q];
            if (c / 4 != have) {
                have = c / 4;
                gnn_rng_block(&s, (uint32_t)have, w);
            }
            const float u = (float)(w[c % 4] >> 8) * (1.0f / 16777216.0f); /* float draw c */
            x->val[q] *= u >= p ? scale : 0.0f;
        }
    }
}

const gnn_spmm_ops gnn_spmm_cpu = {
    .name = "cpu",
    .caps = 1u | 2u, /* GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED */
    .fwd = fwd_cpu,
    .dw = dw_cpu,
    .transpose = transpose_cpu,
    .gather = gather_cpu,
    .dropout = dropout_cpu,
};
