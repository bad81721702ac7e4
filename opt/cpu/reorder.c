/* opt/cpu/reorder.c -- OpenMP Match-Reorder (include/gnnref/reorder.h; ref/reorder.c is the
 * specification).
 *
 * What changed from ref, and why the results are still ref's bits at any thread count:
 *   degree    the sets are sorted in parallel (one set per iteration) and the n(n-1)/2 pairs are
 *             counted in parallel by rows, dynamically scheduled (rows shrink); each count is an exact
 *             integer written by one thread to its two cells, so no order matters;
 *   order     serial, as ref: each greedy step's argmax (largest degree as an exact rational,
 *             then smallest index) is too little work for threads (argmax_from says what a
 *             parallel argmax per step cost);
 *   plan      the lookups (binary searches) run in parallel; the loaded rows are numbered after,
 *             in row order, by one pass, as ref numbers them;
 *   assemble  rows copied in parallel: each output row is one memcpy of one input row.
 * degree's copy of the sets to their offsets (a serial prefix sum, then a parallel scatter)
 * runs under stress too (oracle-stress: reorder.degree). */
#include <stdlib.h>
#include <string.h>
#include "gnnref/reorder.h"
#include "gnnref/tensor.h"
#include "opt/cpu/omp_stress.h"
#include "core/base/cmp.h"

static int64_t merge_count(const int64_t *a, int64_t na, const int64_t *b, int64_t nb)
{
    int64_t i = 0, j = 0, c = 0;
    while (i < na && j < nb) {
        const int64_t x = a[i], y = b[j];
        i += x <= y;
        j += y <= x;
        c += x == y;
    }
    return c;
}

static gnn_status degree_cpu(const int64_t *const *sets, const int64_t *len, int64_t n, int64_t *overlap)
{
    int64_t *off = gnn_malloc_array((size_t)n + 1, sizeof(int64_t));
    if (!off)
        return GNN_ERR_NOMEM;
    off[0] = 0;
    for (int64_t i = 0; i < n; i++)
        off[i + 1] = off[i] + len[i];
    int64_t *buf = gnn_malloc_array((size_t)off[n] + 1, sizeof(int64_t));
    if (!buf) {
        gnn_free(off);
        return GNN_ERR_NOMEM;
    }
#pragma omp parallel for schedule(dynamic, gnn_omp_chunk(1))
    for (int64_t i = 0; i < n; i++) {
        if (len[i] > 0)
            memcpy(buf + off[i], sets[i], (size_t)len[i] * sizeof(int64_t));
        qsort(buf + off[i], (size_t)len[i], sizeof(int64_t), gnn_cmp_i64);
        overlap[i * n + i] = len[i];
    }
    /* row i counts the pairs (i, j > i): rows shrink, so they are handed out dynamically */
#pragma omp parallel for schedule(dynamic, gnn_omp_chunk(1))
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = i + 1; j < n; j++)
            overlap[i * n + j] = overlap[j * n + i] = merge_count(buf + off[i], len[i], buf + off[j], len[j]);
    gnn_free(buf);
    gnn_free(off);
    return GNN_OK;
}

/* better(k, num/den) than (h, hn/hd) by the rule: larger degree, then smaller index */
static int better(int64_t k, int64_t num, int64_t den, int64_t h, int64_t hn, int64_t hd)
{
    if (h < 0)
        return 1;
    const int c = gnn_match_frac_cmp(num, den, hn, hd);
    return c > 0 || (c == 0 && k < h);
}

/* the greedy step from z: the unplaced batch with the largest degree, the smallest index on ties.
 * Serial on purpose: a step is n degree comparisons (n <= a few thousand: the n x n counts bound
 * it), too little work for a parallel region per step. With one (`omp parallel if (n >= 1024)`)
 * 2 threads ran 0.19-0.51x ref at n = 1,536 on a loaded 2-core machine, and 11.5 s per call
 * instead of 19 ms with libgomp's spinning wait policy (gnnref-bench reorder.order,
 * docs/reorder.md). */
static int64_t argmax_from(const int64_t *overlap, int64_t n, gnn_match_norm norm, const uint8_t *placed, int64_t z)
{
    int64_t best = -1, bn = 0, bd = 1;
    for (int64_t k = 0; k < n; k++) {
        if (placed[k])
            continue;
        int64_t num, den;
        gnn_match_degree_frac(overlap, n, z, k, norm, &num, &den);
        if (better(k, num, den, best, bn, bd)) {
            best = k;
            bn = num;
            bd = den;
        }
    }
    return best;
}

static gnn_status order_cpu(const int64_t *overlap, int64_t n, gnn_match_norm norm, int64_t *order)
{
    if (n == 0)
        return GNN_OK;
    uint8_t *placed = gnn_calloc((size_t)n, 1);
    if (!placed)
        return GNN_ERR_NOMEM;
    int64_t z = 0;
    order[0] = 0;
    placed[0] = 1;
    for (int64_t i = 1; i < n; i++) {
        const int64_t h = argmax_from(overlap, n, norm, placed, z);
        order[i] = h;
        placed[h] = 1;
        z = h;
    }
    gnn_free(placed);
    return GNN_OK;
}

typedef struct idpos {
    int64_t id, pos;
} idpos;

static int cmp_idpos(const void *a, const void *b)
{
    const int64_t x = ((const idpos *)a)->id, y = ((const idpos *)b)->id;
    return (x > y) - (x < y);
}

static gnn_status plan_cpu(const int64_t *prev, int64_t n_prev, const int64_t *cur, int64_t n_cur, gnn_match_plan *p)
{
    memset(p, 0, sizeof *p);
    idpos *s = gnn_malloc_array((size_t)n_prev + 1, sizeof(idpos));
    p->from = gnn_malloc_array((size_t)n_cur + 1, sizeof(int64_t));
    p->load_ids = gnn_malloc_array((size_t)n_cur + 1, sizeof(int64_t));
    if (!s || !p->from || !p->load_ids) {
        gnn_free(s);
        gnn_match_plan_free(p);
        return GNN_ERR_NOMEM;
    }
#pragma omp parallel for schedule(static) if (n_prev >= 4096)
    for (int64_t i = 0; i < n_prev; i++)
        s[i] = (idpos){ prev[i], i };
    qsort(s, (size_t)n_prev, sizeof(idpos), cmp_idpos);
    p->n = n_cur;
    p->n_prev = n_prev;
#pragma omp parallel for schedule(static) if (n_cur >= 1024)
    for (int64_t r = 0; r < n_cur; r++) {
        int64_t lo = 0, hi = n_prev;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (s[mid].id < cur[r])
                lo = mid + 1;
            else
                hi = mid;
        }
        p->from[r] = lo < n_prev && s[lo].id == cur[r] ? s[lo].pos : -1;
    }
    for (int64_t r = 0; r < n_cur; r++) /* the misses numbered in row order, as ref */
        if (p->from[r] < 0) {
            p->from[r] = -1 - p->n_load;
            p->load_ids[p->n_load++] = cur[r];
        }
    gnn_free(s);
    return GNN_OK;
}

static gnn_status assemble_cpu(const gnn_match_plan *p, const float *prev_x, const float *loaded, int64_t d, float *x)
{
#pragma omp parallel for schedule(static) if (p->n * d >= 16384)
    for (int64_t r = 0; r < p->n; r++) {
        const int64_t f = p->from[r];
        const float *row = f >= 0 ? prev_x + f * d : loaded + (-1 - f) * d;
        memcpy(x + r * d, row, (size_t)d * sizeof(float));
    }
    return GNN_OK;
}

const gnn_reorder_ops gnn_reorder_cpu = {
    .name = "cpu",
    .caps = 0,
    .degree = degree_cpu,
    .order = order_cpu,
    .plan = plan_cpu,
    .assemble = assemble_cpu,
};
