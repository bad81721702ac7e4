/* opt/cpu/hetero.c -- the partition book and the id conversions with OpenMP, bit for bit equal
 * to ref/hetero.c (include/gnnref/hetero.h) at any thread count.
 *
 * Build: a chunked parallel counting sort. Each thread counts the cells of a contiguous chunk
 * of old ids; one pass over (cell, thread) turns the counts into the cell starts and gives each
 * thread its first new id in every cell; each thread then hands out new ids to its chunk in old
 * order. Chunks are in id order and each starts where the chunks before it end, so every vertex
 * gets the reference's new id (an integer fixed by its position alone: no order of additions
 * can change it). The per-type offsets are independent across types (parallel over types).
 * When the threads' counts would outweigh the ids (threads x P T > 4 n + 4096), the serial
 * counting sort (the reference's) runs instead. The two stress points (opt/cpu/omp_stress.h)
 * make a thread count late and the summing thread sum late under `gnnref oracle --stress`
 * (oracle-stress: hetero.ids), so a missing barrier fails there in most runs (M69).
 * Conversions: one binary search per id, ids split over threads (each output element depends
 * on its own input only). */
#include <stdint.h>
#include <string.h>
#include "gnnref/hetero.h"
#include "gnnref/tensor.h"
#include "opt/cpu/omp_stress.h"
#include "opt/cpu/omp_compat.h"

/* the same as ref's: the last i in [0, count) with a[i * stride] <= x */
static inline int64_t last_le(const int64_t *a, int64_t count, int64_t stride, int64_t x)
{
    int64_t lo = 0, hi = count - 1;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo + 1) / 2;
        if (a[mid * stride] <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static void count_serial(const int32_t *part, const int32_t *type, int64_t n, int64_t T, int64_t C, int64_t *start,
                         int64_t *new_of_old, int64_t *cursor)
{
    for (int64_t v = 0; v < n; v++)
        start[(int64_t)part[v] * T + type[v] + 1]++;
    for (int64_t c = 0; c < C; c++)
        start[c + 1] += start[c];
    if (new_of_old) {
        memcpy(cursor, start, (size_t)C * sizeof(int64_t));
        for (int64_t v = 0; v < n; v++)
            new_of_old[v] = cursor[(int64_t)part[v] * T + type[v]]++;
    }
}

static gnn_status hetero_cpu_build(const int32_t *part, const int32_t *type, int64_t n, int64_t P, int64_t T,
                                   gnn_hetero_book *b, int64_t *new_of_old, gnn_err *err)
{
    const int64_t C = P * T;
    const int nt_max = gnn_omp_max_threads();
    /* per-thread counts only where they are small next to the ids they count */
    const int parallel = nt_max > 1 && (int64_t)nt_max * C <= 4 * n + 4096;
    b->P = P, b->T = T, b->n = n;
    b->start = gnn_calloc((size_t)C + 1, sizeof(int64_t));
    b->tw_offset = gnn_calloc((size_t)C, sizeof(int64_t));
    b->type_count = gnn_calloc((size_t)T, sizeof(int64_t));
    /* serial: one cursor per cell; parallel: one per (thread, cell) */
    int64_t *cnt = parallel ? gnn_calloc((size_t)nt_max * (size_t)C, sizeof(int64_t))
                 : new_of_old ? gnn_malloc_array((size_t)C, sizeof(int64_t)) : NULL;
    if (!b->start || !b->tw_offset || !b->type_count || ((parallel || new_of_old) && !cnt)) {
        gnn_free(cnt);
        gnn_hetero_book_free(b);
        return gnn_err_set(err, GNN_ERR_NOMEM, "hetero book: out of memory for %lld cells", (long long)C);
    }
    int64_t *start = b->start;
    if (!parallel) {
        count_serial(part, type, n, T, C, start, new_of_old, cnt);
    } else {
#pragma omp parallel
        {
            const int t = gnn_omp_thread_num(), nt = gnn_omp_num_threads();
            const int64_t lo = (int64_t)((__int128)n * t / nt), hi = (int64_t)((__int128)n * (t + 1) / nt);
            int64_t *my = cnt + (size_t)t * (size_t)C;
            GNN_OMP_STRESS_POINT();
            for (int64_t v = lo; v < hi; v++)
                my[(int64_t)part[v] * T + type[v]]++;
#pragma omp barrier
#pragma omp single
            {
                /* start[c + 1] = start[c] + the cell's count; cnt[i][c] <- the first new id of
                 * thread i's chunk in cell c. No thread hands out an id before this is done:
                 * the single's own barrier. */
                GNN_OMP_STRESS_POINT();
                for (int64_t c = 0; c < C; c++) {
                    int64_t run = start[c];
                    for (int i = 0; i < nt; i++) {
                        const int64_t x = cnt[(size_t)i * (size_t)C + (size_t)c];
                        cnt[(size_t)i * (size_t)C + (size_t)c] = run;
                        run += x;
                    }
                    start[c + 1] = run;
                }
            }
            if (new_of_old)
                for (int64_t v = lo; v < hi; v++)
                    new_of_old[v] = my[(int64_t)part[v] * T + type[v]]++;
        }
    }
    /* type-wise offsets: each type's cells in partition order, types independent */
#pragma omp parallel for schedule(static) if (parallel)
    for (int64_t t = 0; t < T; t++) {
        int64_t run = 0;
        for (int64_t p = 0; p < P; p++) {
            b->tw_offset[p * T + t] = run;
            run += start[p * T + t + 1] - start[p * T + t];
        }
        b->type_count[t] = run;
    }
    gnn_free(cnt);
    return GNN_OK;
}

static void hetero_cpu_to_typed(const gnn_hetero_book *b, const int64_t *homo, int64_t m, int32_t *type_out,
                                int64_t *tw_out)
{
    const int64_t C = b->P * b->T, T = b->T;
    const int64_t *start = b->start, *off = b->tw_offset;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < m; i++) {
        const int64_t c = last_le(start, C, 1, homo[i]);
        type_out[i] = (int32_t)(c % T);
        tw_out[i] = off[c] + homo[i] - start[c];
    }
}

static void hetero_cpu_to_homo(const gnn_hetero_book *b, const int32_t *type, const int64_t *tw, int64_t m,
                               int64_t *homo_out)
{
    const int64_t P = b->P, T = b->T;
    const int64_t *start = b->start, *off = b->tw_offset;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < m; i++) {
        const int64_t t = type[i], c = last_le(off + t, P, T, tw[i]) * T + t;
        homo_out[i] = start[c] + tw[i] - off[c];
    }
}

static void hetero_cpu_part_of(const gnn_hetero_book *b, const int64_t *homo, int64_t m, int32_t *part_out)
{
    const int64_t C = b->P * b->T, T = b->T;
    const int64_t *start = b->start;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < m; i++)
        part_out[i] = (int32_t)(last_le(start, C, 1, homo[i]) / T);
}

const gnn_hetero_ops gnn_hetero_cpu = {
    .name = "cpu",
    .build = hetero_cpu_build,
    .to_typed = hetero_cpu_to_typed,
    .to_homo = hetero_cpu_to_homo,
    .part_of = hetero_cpu_part_of,
};
