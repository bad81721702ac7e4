/* opt/cpu/nn.c -- OpenMP/SIMD linear layer, ReLU and keyed dropout, bitwise equal to ref/nn.c.
 *
 * What changed and why it still matches: the reference's per-element accumulation orders
 * (k ascending for y, i ascending for dw and db, j ascending for dx) are kept; only
 * independent outputs are spread over threads and SIMD lanes:
 *  - forward and dx: rows i in parallel; y[i][:] is vectorized across j (distinct outputs);
 *  - dx uses w transposed once (out, in) so that dx[i][:] vectorizes across k while each
 *    dx[i][k] still adds dy[i][j] * w[k][j] for j = 0, 1, ... in order;
 *  - dw: rows k of dw in parallel, each summing over i in order; db likewise by columns.
 * No cross-thread reduction is used, so the result does not depend on the thread count.
 * (A GEMM-library UPDATE with a tolerance is the kernels issue's cpu-blocked variant.)
 * ReLU and dropout: see their section below (the dropout mask from the Philox lanes of
 * opt/cpu/philox_lanes.c, rows over threads; docs/sage.md, "Keyed dropout and ReLU").
 * The public entry points (gnn_nn_linear_fwd and _bwd, gnn_nn_relu_*, gnn_nn_dropout_*,
 * core/ops/kernels.c) check the arguments first: these bodies assume valid input. */
#include <string.h>
#include "gnnref/nn.h"
#include "gnnref/rng.h"
#include "gnnref/tensor.h"
#include "opt/cpu/clones.h"
#include "opt/cpu/nn_impl.h"
#include "opt/cpu/philox_lanes.h"

/* one row of the dropout forward (below; external so that GNN_CLONES can build its AVX2 copy) */
void gnn_cpu_dropout_row(float *x_r, int64_t d, const gnn_rng_stream *s, float p, float scale, float *m_r);

static void linear_fwd_cpu(const float *x, int64_t n, int64_t in, const float *w, const float *b,
                           int64_t out, float *y)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        float *y_i = y + i * out;
        for (int64_t j = 0; j < out; j++)
            y_i[j] = b ? b[j] : 0.0f;
        for (int64_t k = 0; k < in; k++) {
            const float x_ik = x[i * in + k];
            const float *w_k = w + k * out;
#pragma omp simd
            for (int64_t j = 0; j < out; j++)
                y_i[j] += x_ik * w_k[j];
        }
    }
}

static void linear_bwd_cpu(const float *x, const float *dy, int64_t n, int64_t in, const float *w,
                           int64_t out, float *dx, float *dw, float *db)
{
    if (dw) {
#pragma omp parallel for schedule(static)
        for (int64_t k = 0; k < in; k++) {
            float *dw_k = dw + k * out;
            memset(dw_k, 0, (size_t)out * sizeof(float));
            for (int64_t i = 0; i < n; i++) {
                const float x_ik = x[i * in + k];
                const float *dy_i = dy + i * out;
#pragma omp simd
                for (int64_t j = 0; j < out; j++)
                    dw_k[j] += x_ik * dy_i[j];
            }
        }
    }
    if (db) {
        memset(db, 0, (size_t)out * sizeof(float));
        for (int64_t i = 0; i < n; i++) {
            const float *dy_i = dy + i * out;
#pragma omp simd
            for (int64_t j = 0; j < out; j++)
                db[j] += dy_i[j];
        }
    }
    if (dx) {
        float *wt = gnn_malloc((size_t)in * (size_t)out * sizeof(float)); /* (out, in) */
        if (!wt) { /* fall back to the reference order without the transpose */
            gnn_linear_bwd_ref(x, dy, n, in, w, out, dx, NULL, NULL);
            return;
        }
        for (int64_t k = 0; k < in; k++)
            for (int64_t j = 0; j < out; j++)
                wt[j * in + k] = w[k * out + j];
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; i++) {
            float *dx_i = dx + i * in;
            const float *dy_i = dy + i * out;
            for (int64_t k = 0; k < in; k++)
                dx_i[k] = 0.0f;
            for (int64_t j = 0; j < out; j++) {
                const float g = dy_i[j];
                const float *wt_j = wt + j * in;
#pragma omp simd
                for (int64_t k = 0; k < in; k++)
                    dx_i[k] += g * wt_j[k];
            }
        }
        gnn_free(wt);
    }
}

/* db[j] = sum over i ascending of dy[i][j], from 0.0f: ref's order, so ref's bits. Columns in
 * blocks of 16 (one line) over the threads; a column's sum never leaves its block. Shared by
 * the blas and fma tables (nn_impl.h). */
void gnn_cpu_col_sums(const float *dy, int64_t n, int64_t out, float *db)
{
    const int64_t nblk = (out + 15) / 16;
#pragma omp parallel for schedule(dynamic, 1) if (n * out >= 65536 && nblk > 1)
    for (int64_t q = 0; q < nblk; q++) {
        const int64_t j0 = q * 16, jn = out - j0 < 16 ? out - j0 : 16;
        float acc[16] = { 0.0f };
        for (int64_t i = 0; i < n; i++) {
            const float *dy_i = dy + i * out + j0;
            for (int64_t j = 0; j < jn; j++)
                acc[j] += dy_i[j];
        }
        memcpy(db + j0, acc, (size_t)jn * sizeof(float));
    }
}

/* ---- ReLU and keyed dropout ------------------------------------------------------------------
 * Element-wise: every output is one selection or one f32 multiply of its own input, as in
 * ref, so spreading elements (ReLU, the backward) or rows (the dropout forward) over threads
 * and SIMD lanes changes no bit. Calls below these sizes stay on one thread (OpenMP's fork and
 * join would cost more than the work); the result is the same either way. */
#define ELEM_PAR_MIN 65536 /* elements: ReLU, dropout backward */
#define DROP_PAR_MIN 8192  /* elements: dropout forward (a Philox block per 4 of them) */
#define DROP_CHUNK 256     /* columns of a row per mask chunk (on the stack) */
/* Work is handed out in chunks, not halves: on a busy machine a thread that shares its core
 * holds one chunk, while the other threads take the rest (docs/openmp.md). Which thread runs
 * an element or a row changes no bit. */
#define ELEM_CHUNK 16384 /* elements: ReLU, dropout backward (64 KiB) */
#define DROP_ROWS 32     /* rows: dropout forward */

void gnn_cpu_relu_fwd(float *x, int64_t count)
{
#pragma omp parallel for simd schedule(dynamic, ELEM_CHUNK) if (count >= ELEM_PAR_MIN)
    for (int64_t i = 0; i < count; i++)
        x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void gnn_cpu_relu_bwd(const float *y, float *dy, int64_t count)
{
#pragma omp parallel for simd schedule(dynamic, ELEM_CHUNK) if (count >= ELEM_PAR_MIN)
    for (int64_t i = 0; i < count; i++)
        dy[i] = y[i] > 0.0f ? dy[i] : 0.0f;
}

/* One row of the dropout forward: x_r (d) *= its keyed mask, which goes to m_r when given.
 * The mask comes from gnn_cpu_dropout_mask (opt/cpu/philox_lanes.c: the row's Philox blocks
 * side by side in SIMD lanes, the words of gnn_rng_block), DROP_CHUNK columns at a time, so
 * it is ref's mask bit for bit; x * m is ref's one multiply. p = 0 keeps every element (every
 * draw is >= 0) with scale 1: no draws are needed. */
GNN_CLONES
void gnn_cpu_dropout_row(float *x_r, int64_t d, const gnn_rng_stream *s, float p, float scale, float *m_r)
{
    float buf[DROP_CHUNK];
    for (int64_t c0 = 0; c0 < d; c0 += DROP_CHUNK) {
        const int64_t len = d - c0 < DROP_CHUNK ? d - c0 : DROP_CHUNK;
        float *m = m_r ? m_r + c0 : buf, *xc = x_r + c0;
        if (p > 0.0f) {
            gnn_cpu_dropout_mask(s, c0, len, p, scale, m);
        } else {
#pragma omp simd
            for (int64_t j = 0; j < len; j++)
                m[j] = scale;
        }
#pragma omp simd
        for (int64_t j = 0; j < len; j++)
            xc[j] *= m[j];
    }
}

/* Rows in a static split over the threads; a row's result depends only on its own stream
 * (seed, DROPOUT, step, layer, row_gid[i]), never on which thread ran it. */
void gnn_cpu_dropout_fwd(float *x, int64_t n, int64_t d, const int64_t *row_gid, float p, uint64_t seed,
                            uint32_t step, unsigned layer, float *mask)
{
    const float scale = 1.0f / (1.0f - p); /* f32, as ref */
#pragma omp parallel for schedule(dynamic, DROP_ROWS) if (n * d >= DROP_PAR_MIN)
    for (int64_t i = 0; i < n; i++) {
        const gnn_rng_stream s = gnn_rng_stream_make(seed, GNN_TAG_DROPOUT, step, layer, (uint64_t)row_gid[i]);
        gnn_cpu_dropout_row(x + i * d, d, &s, p, scale, mask ? mask + i * d : NULL);
    }
}

void gnn_cpu_dropout_bwd(float *dy, int64_t n, int64_t d, const float *mask)
{
    const int64_t count = n * d;
#pragma omp parallel for simd schedule(dynamic, ELEM_CHUNK) if (count >= ELEM_PAR_MIN)
    for (int64_t i = 0; i < count; i++)
        dy[i] *= mask[i];
}

const gnn_nn_ops gnn_nn_cpu = {
    .name = "cpu",
    .caps = 3u, /* GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED */
    .linear_fwd = linear_fwd_cpu,
    .linear_bwd = linear_bwd_cpu,
    .relu_fwd = gnn_cpu_relu_fwd,
    .relu_bwd = gnn_cpu_relu_bwd,
    .dropout_fwd = gnn_cpu_dropout_fwd,
    .dropout_bwd = gnn_cpu_dropout_bwd,
};
