/* opt/cpu/reorder.c -- OpenMP Match-Reorder (include/gnnref/reorder.h; ref/reorder.c is the
 * specification).
 *
 * What changed from ref, and why the results are still ref's bits at any thread count:
 *   degree    the sets are sorted in parallel (one set per iteration) and the n(n-1)/2 pairs are
 *             counted in parallel by rows, dynamically scheduled (rows shrink); each count is an exact
 *             integer written by one thread to its two cells, so no order matters;
 *   order     ref's own (gnn_reorder_ref.order), serial: each greedy step's argmax (largest
 *             degree as an exact rational, then smallest index) is too little work for threads
 *             (order_cpu says what a parallel argmax per step cost);
 *   plan      the lookups (binary searches) run in parallel; the loaded rows are numbered after,
 *             in row order, by one pass, as ref numbers them;
 *   assemble  rows copied in parallel: each output row is one memcpy of one input row.
 * The sorted copies, the (id, row) pairs, the lookup and a row's source are ref's
 * (ref/reorder_impl.h).
 * degree's copy of the sets to their offsets (a serial prefix sum, then a parallel scatter)
 * runs under stress too (oracle-stress: reorder.degree). */
#include <stdlib.h>
#include <string.h>
#include "gnnref/reorder.h"
#include "gnnref/tensor.h"
#include "opt/cpu/omp_stress.h"
#include "ref/reorder_impl.h"

/* |a ∩ b| of two sorted sets, ref's merge without its branches */
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
        gnn_reorder_sorted_copy(sets[i], len[i], buf + off[i]);
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

/* ref's greedy order, serial on purpose: a step is n degree comparisons
 * (n <= a few thousand: the n x n counts bound it), too little work for a parallel region per
 * step. With one (`omp parallel if (n >= 1024)`) 2 threads ran 0.19-0.51x ref at n = 1,536 on a
 * loaded 2-core machine, and 11.5 s per call instead of 19 ms with libgomp's spinning wait
 * policy (gnnref-bench reorder.order, docs/reorder.md). */
static gnn_status order_cpu(const int64_t *overlap, int64_t n, gnn_match_norm norm, int64_t *order)
{
    return gnn_reorder_ref.order(overlap, n, norm, order);
}

static gnn_status plan_cpu(const int64_t *prev, int64_t n_prev, const int64_t *cur, int64_t n_cur, gnn_match_plan *p)
{
    gnn_reorder_idpos *s = gnn_reorder_plan_alloc(n_prev, n_cur, p);
    if (!s)
        return GNN_ERR_NOMEM;
#pragma omp parallel for schedule(static) if (n_prev >= 4096)
    for (int64_t i = 0; i < n_prev; i++)
        s[i] = (gnn_reorder_idpos){ prev[i], i };
    qsort(s, (size_t)n_prev, sizeof(gnn_reorder_idpos), gnn_reorder_cmp_idpos);
#pragma omp parallel for schedule(static) if (n_cur >= 1024)
    for (int64_t r = 0; r < n_cur; r++)
        p->from[r] = gnn_reorder_find(s, n_prev, cur[r]);
    for (int64_t r = 0; r < n_cur; r++) /* the misses numbered in row order, as ref */
        if (p->from[r] < 0)
            gnn_reorder_plan_load(p, r, cur[r]);
    gnn_free(s);
    return GNN_OK;
}

static gnn_status assemble_cpu(const gnn_match_plan *p, const float *prev_x, const float *loaded, int64_t d, float *x)
{
#pragma omp parallel for schedule(static) if (p->n * d >= 16384)
    for (int64_t r = 0; r < p->n; r++)
        gnn_reorder_copy_row(p, prev_x, loaded, d, r, x);
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
