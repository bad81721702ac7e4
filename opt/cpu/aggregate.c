/* opt/cpu/aggregate.c -- OpenMP/SIMD neighbor aggregation, bitwise equal to ref/aggregate.c.
 * The public entry points (core/ops/kernels.c) check the arguments first: these bodies assume
 * valid input.
 *
 * What changed and why it still matches the reference:
 *  - forward: dst rows are split into work items by nonzeros (each holds about the same
 *    number of edges, so hub rows do not stall one thread; at least 8 per thread and at most
 *    about 4096 edges each, taken dynamically, so a preempted thread holds little); each row
 *    is still summed by one thread in CSR order, so every out[v][f] sees the same additions
 *    in the same order.
 *  - the feature dimension is vectorized with `omp simd` (lanes are distinct features, never
 *    a reordering of one feature's sum) over an accumulator block of GNN_AGG_FB floats that
 *    stays in L1, and the kernel is register-blocked over edges: four edges are added to a
 *    register copy of acc[f] in edge order before it is stored back (the same additions in
 *    the same order as one edge at a time). Rows are software-prefetched GNN_AGG_PF edges
 *    ahead (see gather_rows).
 *  - GCN: 1/sqrt(ds(u)) is computed once per src, 1/sqrt(dd(v)) once per row, and c_e is
 *    their product as in the reference (the same two correctly rounded factors, one multiply:
 *    ref's own functions, ref/aggregate_impl.h).
 *  - weighted dw: parallel over edges, GNN_AGG_DW edges' dot products side by side, each
 *    summed over f in order from 0.0f as the reference does.
 *  - backward: the reference scatters dout[v] * (1/deg v) into dx[u] edge by edge. Here the
 *    edges are first transposed (a stable counting sort by src keeps the order "by v, then
 *    by edge position"), and each dx[u] is then gathered by one thread in that same order,
 *    starting from 0.0f like the reference's memset: no atomics, same bits. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif
#include "gnnref/aggregate.h"
#include "gnnref/tensor.h"
#include "opt/cpu/omp_stress.h"
#include "opt/cpu/chunks.h"
#include "opt/cpu/omp_compat.h"
#include "ref/aggregate_impl.h" /* ref's 1 / sqrt(ds(u)), row factors and edge coefficients */

#define GNN_AGG_FB 1024 /* features per accumulator block (4 KiB: stays in L1) */

/* Work items of the row loops: at least 8 per thread, and at most about GNN_AGG_CHUNK_NNZ
 * edges each, handed out dynamically. A thread that loses its core on a busy machine then
 * holds one small item, not a fixed share, while the others take the rest (docs/openmp.md).
 * Each row is still summed by one thread, in order, whatever item holds it: same bits. */
#define GNN_AGG_CHUNK_NNZ 4096

static int64_t work_items(int64_t nnz)
{
    const int64_t by_threads = (int64_t)gnn_omp_max_threads() * 8, by_size = nnz / GNN_AGG_CHUNK_NNZ;
    return by_size > by_threads ? by_size : by_threads;
}

/* Rows are fetched from random places: the hardware prefetcher cannot guess the next one, so
 * while edge i is summed, the whole row of edge i + GNN_AGG_PF (possibly the next dst's) is
 * prefetched. */
#define GNN_AGG_PF 4

static inline void prefetch_row(const float *x, int64_t d, int64_t u)
{
    const char *p = (const char *)(x + u * d);
    for (int64_t k = 0; k < d * (int64_t)sizeof(float); k += 64)
        __builtin_prefetch(p + k, 0, 3);
}

/* Outputs at least this large are written with non-temporal stores (store_row): they do not
 * fit in a core's share of the last-level cache, so the next pass reads them from memory
 * anyway. Smaller ones (a SAGE layer's 2,560 x 64 floats) stay in the cache for it. */
#define GNN_AGG_NT_BYTES ((int64_t)8 << 20)

/* The finished row goes to memory. With nt, by non-temporal stores where it is 16-byte aligned
 * and a whole number of 4-float vectors: a row written once and read by a later pass, from
 * memory when the output is large, so reading its lines for ownership first and keeping them
 * in the cache only take bandwidth from the random row reads (at d = 256 on the sampled blocks
 * of R-MAT scale 22: 0.76 -> 0.83 of the gather ceiling, docs/aggregate.md). The values are the
 * same either way; each work item ends with store_fence. */
static inline void store_row(float *dst, const float *acc, int64_t fb, int nt)
{
#if defined(__SSE2__)
    if (nt && ((uintptr_t)dst & 15) == 0 && (fb & 3) == 0) {
        for (int64_t f = 0; f < fb; f += 4)
            _mm_stream_ps(dst + f, _mm_loadu_ps(acc + f));
        return;
    }
#endif
    memcpy(dst, acc, (size_t)fb * sizeof(float));
}

/* Make the non-temporal stores of this thread visible before the team's join. */
static inline void store_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

/* Sum rows x[u_i] for i in [b, e) into out (d wide), starting from 0.0f, in index order,
 * u_i = rows[i] if rows != NULL else idx[i]. Each row is scaled first (the product formed,
 * then added) by: escale[i] (per edge) if escale != NULL, else sscale[u_i] * rowc (per src,
 * GCN) if sscale != NULL, else not at all. Then the sum is multiplied by post if do_post.
 * Rows of edges below pf_end are prefetched GNN_AGG_PF edges ahead. nt: the row is stored
 * non-temporally (store_row).
 *
 * The accumulator block is GNN_AGG_FB floats, so rows up to that width are summed in one
 * pass over the edges: each row is streamed once, front to back, while the next ones are
 * being fetched. (An earlier version held 64 floats in registers and made d/64 passes over
 * the edges; at d = 256 on sampled blocks it reached about 0.52 of the gather ceiling, this
 * one about 0.68: the kernel is bound by fetching random rows, not by the adds, and the
 * accumulator's loads and stores hit L1.) */
static void gather_rows(const float *x, int64_t d, const int32_t *idx, const float *escale,
                        const float *sscale, const int64_t *rows, float rowc, int64_t b, int64_t e,
                        float post, int do_post, int64_t pf_end, int nt, float *out)
{
    for (int64_t f0 = 0; f0 < d; f0 += GNN_AGG_FB) {
        const int64_t fb = d - f0 < GNN_AGG_FB ? d - f0 : GNN_AGG_FB;
        float acc[GNN_AGG_FB];
#pragma omp simd
        for (int64_t f = 0; f < fb; f++)
            acc[f] = 0.0f;
        int64_t i = b;
        /* four edges per pass over the accumulator: acc[f] is loaded once, the four rows are
         * added in edge order (t += r0; t += r1; ...: the same additions as one at a time),
         * and stored once; the partial sum stays in a register across the four */
        for (; i + 4 <= e; i += 4) {
            int64_t u[4];
            float sc[4];
            const float *r[4];
            for (int k = 0; k < 4; k++) {
                u[k] = rows ? rows[i + k] : (int64_t)idx[i + k];
                sc[k] = escale ? escale[i + k] : sscale ? sscale[u[k]] * rowc : 1.0f;
                r[k] = x + u[k] * d + f0;
                if (f0 == 0 && i + k + GNN_AGG_PF < pf_end)
                    prefetch_row(x, d, rows ? rows[i + k + GNN_AGG_PF] : (int64_t)idx[i + k + GNN_AGG_PF]);
            }
            const float *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3];
            if (escale || sscale) {
                const float s0 = sc[0], s1 = sc[1], s2 = sc[2], s3 = sc[3];
#pragma omp simd
                for (int64_t f = 0; f < fb; f++) {
                    float t = acc[f];
                    t += r0[f] * s0;
                    t += r1[f] * s1;
                    t += r2[f] * s2;
                    t += r3[f] * s3;
                    acc[f] = t;
                }
            } else {
#pragma omp simd
                for (int64_t f = 0; f < fb; f++) {
                    float t = acc[f];
                    t += r0[f];
                    t += r1[f];
                    t += r2[f];
                    t += r3[f];
                    acc[f] = t;
                }
            }
        }
        for (; i < e; i++) {
            const int64_t u = rows ? rows[i] : (int64_t)idx[i];
            if (f0 == 0 && i + GNN_AGG_PF < pf_end)
                prefetch_row(x, d, rows ? rows[i + GNN_AGG_PF] : (int64_t)idx[i + GNN_AGG_PF]);
            const float *x_u = x + u * d + f0;
            if (escale || sscale) {
                const float s = escale ? escale[i] : sscale[u] * rowc;
#pragma omp simd
                for (int64_t f = 0; f < fb; f++)
                    acc[f] += x_u[f] * s;
            } else {
#pragma omp simd
                for (int64_t f = 0; f < fb; f++)
                    acc[f] += x_u[f];
            }
        }
        if (do_post) {
#pragma omp simd
            for (int64_t f = 0; f < fb; f++)
                acc[f] *= post;
        }
        store_row(out + f0, acc, fb, nt);
    }
}

/* Forward over dst rows split by nonzeros. Per row v: kind MEAN/SUM as before; GCN scales
 * each edge by inv_ds[u] * (1/sqrt(deg v)); w != NULL scales edge i by w[i]. */
static void forward_rows(const gnn_block *blk, const float *x, int64_t d, gnn_agg_kind kind,
                         const float *inv_ds, const float *w, float *out)
{
    const int64_t n = blk->n_dst, nnz = blk->nnz;
    const int64_t chunks = work_items(nnz);
    const int nt = n * d * (int64_t)sizeof(float) >= GNN_AGG_NT_BYTES;
#pragma omp parallel for schedule(dynamic, gnn_omp_chunk(1))
    for (int64_t c = 0; c < chunks; c++) {
        /* rows whose first edge falls in this chunk's share of the nonzeros; ties (empty rows)
         * are resolved by also splitting on row count so zero-degree graphs still spread */
        int64_t r0, r1;
        gnn_chunk_rows(blk->indptr, n, nnz, c, chunks, &r0, &r1);
        const int64_t pf_end = blk->indptr[r1];
        for (int64_t v = r0; v < r1; v++) {
            const int64_t b = blk->indptr[v], e = blk->indptr[v + 1];
            if (w) {
                gather_rows(x, d, blk->indices, w, NULL, NULL, 1.0f, b, e, 1.0f, 0, pf_end, nt, out + v * d);
            } else if (kind == GNN_AGG_GCN) {
                const float inv_dd = e > b ? gnn_agg_row_factor(GNN_AGG_GCN, e - b) : 0.0f;
                gather_rows(x, d, blk->indices, NULL, inv_ds, NULL, inv_dd, b, e, 1.0f, 0, pf_end, nt, out + v * d);
            } else {
                const int mean = kind == GNN_AGG_MEAN && e > b;
                gather_rows(x, d, blk->indices, NULL, NULL, NULL, 1.0f, b, e, mean ? gnn_agg_row_factor(kind, e - b) : 1.0f,
                            mean, pf_end, nt, out + v * d);
            }
        }
        store_fence(); /* this work item's rows, before the team's join */
    }
}

/* @eq{DistGNN-MB 1} AGG and @eq{GCN 2}, as agg_forward_ref. */
static gnn_status agg_forward_cpu(const gnn_block *blk, const float *x, int64_t d,
                                  gnn_agg_kind kind, float *out)
{
    float *inv_ds = NULL;
    if (kind == GNN_AGG_GCN && !(inv_ds = gnn_agg_src_inv_sqrt_degrees(blk)))
        return GNN_ERR_NOMEM;
    forward_rows(blk, x, d, kind, inv_ds, NULL, out);
    gnn_free(inv_ds);
    return GNN_OK;
}

static gnn_status agg_weighted_forward_cpu(const gnn_block *blk, const float *x, int64_t d, const float *w,
                                           float *out)
{
    static const float k_none[1] = { 0.0f }; /* w may be NULL when there are no edges */
    forward_rows(blk, x, d, GNN_AGG_SUM, NULL, w ? w : k_none, out);
    return GNN_OK;
}

/* Backward through the transpose: the reference scatters dout[v] * c_e into dx[u] edge by
 * edge, visiting v ascending, then edge position. The stable counting sort by src below
 * lists, for each u, its edges in exactly that order with their v and c_e; each dx[u] is
 * then gathered by one thread from 0.0f (the reference's memset): no atomics, same bits. */
static gnn_status backward_transposed(const gnn_block *blk, const float *dout, int64_t d, gnn_agg_kind kind,
                                      const float *w, float *dx)
{
    const int64_t n_src = blk->n_src, n_dst = blk->n_dst, nnz = blk->nnz;
    float *inv_ds = NULL;
    if (!w && kind == GNN_AGG_GCN && !(inv_ds = gnn_agg_src_inv_sqrt_degrees(blk)))
        return GNN_ERR_NOMEM;
    /* transpose: for each src u, its edges' dst v and coefficient, in order (v, edge position) */
    int64_t *t_ptr = gnn_calloc((size_t)n_src + 1, sizeof(int64_t));
    int64_t *t_dst = gnn_malloc((size_t)nnz * sizeof(int64_t));
    float *t_scale = gnn_malloc((size_t)nnz * sizeof(float));
    if (!t_ptr || !t_dst || !t_scale) {
        gnn_free(inv_ds);
        gnn_free(t_ptr);
        gnn_free(t_dst);
        gnn_free(t_scale);
        return GNN_ERR_NOMEM;
    }
    for (int64_t i = 0; i < nnz; i++)
        t_ptr[blk->indices[i] + 1]++;
    for (int64_t u = 0; u < n_src; u++)
        t_ptr[u + 1] += t_ptr[u];
    for (int64_t v = 0; v < n_dst; v++) {
        const int64_t b = blk->indptr[v], e = blk->indptr[v + 1];
        if (e == b)
            continue;
        const float row = gnn_agg_row_factor(kind, e - b);
        for (int64_t i = b; i < e; i++) {
            const int64_t u = blk->indices[i];
            const int64_t at = t_ptr[u]++; /* stable: v ascending */
            t_dst[at] = v;
            t_scale[at] = gnn_agg_edge_coef(kind, w, i, inv_ds, u, row);
        }
    }
    for (int64_t u = n_src; u > 0; u--) /* undo the fill shift */
        t_ptr[u] = t_ptr[u - 1];
    t_ptr[0] = 0;
    const int64_t chunks = work_items(nnz);
    const int nt = n_src * d * (int64_t)sizeof(float) >= GNN_AGG_NT_BYTES;
#pragma omp parallel for schedule(dynamic, gnn_omp_chunk(1))
    for (int64_t c = 0; c < chunks; c++) {
        int64_t r0, r1;
        gnn_chunk_rows(t_ptr, n_src, nnz, c, chunks, &r0, &r1);
        for (int64_t u = r0; u < r1; u++)
            gather_rows(dout, d, NULL, t_scale, NULL, t_dst, 1.0f, t_ptr[u], t_ptr[u + 1], 1.0f, 0,
                        t_ptr[r1], nt, dx + u * d);
        store_fence();
    }
    gnn_free(inv_ds);
    gnn_free(t_ptr);
    gnn_free(t_dst);
    gnn_free(t_scale);
    return GNN_OK;
}

static gnn_status agg_backward_cpu(const gnn_block *blk, const float *dout, int64_t d,
                                   gnn_agg_kind kind, float *dx)
{
    return backward_transposed(blk, dout, d, kind, NULL, dx);
}

/* dw[e] = sum over f in order of dout[v][f] * x[u][f]: each dot product is a serial chain
 * (the order is the contract), so the parallelism is across edges: threads take ranges of
 * edges, and within a range GNN_AGG_DW edges run side by side (independent chains fill the
 * adder's pipeline; the lanes are edges, never a split of one edge's sum). */
#define GNN_AGG_DW 8
static void weighted_dw(const gnn_block *blk, const float *x, const float *dout, int64_t d, float *dw)
{
    const int64_t n = blk->n_dst, nnz = blk->nnz;
    const int64_t chunks = work_items(nnz);
#pragma omp parallel for schedule(dynamic, gnn_omp_chunk(1))
    for (int64_t c = 0; c < chunks; c++) {
        const int64_t e0 = c * nnz / chunks, e1 = (c + 1) * nnz / chunks;
        if (e0 >= e1)
            continue;
        int64_t v = gnn_first_at_least(blk->indptr, n + 1, e0 + 1) - 1; /* the row holding edge e0 */
        for (int64_t i0 = e0; i0 < e1; i0 += GNN_AGG_DW) {
            const int64_t m = e1 - i0 < GNN_AGG_DW ? e1 - i0 : GNN_AGG_DW;
            const float *a[GNN_AGG_DW], *b[GNN_AGG_DW];
            float acc[GNN_AGG_DW];
            for (int64_t j = 0; j < GNN_AGG_DW; j++) {
                const int64_t i = i0 + (j < m ? j : 0);
                while (blk->indptr[v + 1] <= i0 + j && j < m)
                    v++;
                a[j] = dout + (j < m ? v : 0) * d;
                b[j] = x + (int64_t)blk->indices[i] * d;
                acc[j] = 0.0f;
            }
            if (m < GNN_AGG_DW)
                for (int64_t j = m; j < GNN_AGG_DW; j++)
                    a[j] = a[0];
            for (int64_t f = 0; f < d; f++)
                for (int64_t j = 0; j < GNN_AGG_DW; j++)
                    acc[j] += a[j][f] * b[j][f];
            for (int64_t j = 0; j < m; j++)
                dw[i0 + j] = acc[j];
        }
    }
}

static gnn_status agg_weighted_backward_cpu(const gnn_block *blk, const float *x, const float *dout, int64_t d,
                                            const float *w, float *dx, float *dw)
{
    if (dx) {
        static const float k_none[1] = { 0.0f };
        gnn_status s = backward_transposed(blk, dout, d, GNN_AGG_SUM, w ? w : k_none, dx);
        if (s)
            return s;
    }
    if (dw)
        weighted_dw(blk, x, dout, d, dw);
    return GNN_OK;
}

const gnn_aggregate_ops gnn_aggregate_cpu = {
    .name = "cpu",
    .caps = GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED,
    .forward = agg_forward_cpu,
    .backward = agg_backward_cpu,
    .weighted_forward = agg_weighted_forward_cpu,
    .weighted_backward = agg_weighted_backward_cpu,
};
