/* ref/reorder_impl.h -- what ref/reorder.c and opt/cpu/reorder.c share: the order of ids, the
 * sorted copy of a set (degree), the previous batch's (id, row) pairs and their lookup (plan), and the source of an assembled row.
 * Part of the specification (ref/reorder.c): plain C11, no threads. Internal: not installed. */
#ifndef GNN_REF_REORDER_IMPL_H
#define GNN_REF_REORDER_IMPL_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/reorder.h"
#include "gnnref/tensor.h"
#include "core/base/cmp.h"

/* dst[0..len) = the set, sorted ascending (each set sorted once, a copy: degree) */
static inline void gnn_reorder_sorted_copy(const int64_t *set, int64_t len, int64_t *dst)
{
    if (len > 0)
        memcpy(dst, set, (size_t)len * sizeof(int64_t));
    qsort(dst, (size_t)len, sizeof(int64_t), gnn_cmp_i64);
}

/* one row of the previous batch: its vertex id and its row */
typedef struct gnn_reorder_idpos {
    int64_t id, pos;
} gnn_reorder_idpos;

static inline int gnn_reorder_cmp_idpos(const void *a, const void *b)
{
    const int64_t x = ((const gnn_reorder_idpos *)a)->id, y = ((const gnn_reorder_idpos *)b)->id;
    return (x > y) - (x < y);
}

/* a plan for n_cur rows over a previous batch of n_prev (p->n, p->n_prev, from and load_ids
 * allocated, nothing loaded yet) and the scratch for the previous batch's (id, row) pairs; NULL
 * when out of memory (p then empty) */
static inline gnn_reorder_idpos *gnn_reorder_plan_alloc(int64_t n_prev, int64_t n_cur, gnn_match_plan *p)
{
    memset(p, 0, sizeof *p);
    gnn_reorder_idpos *s = gnn_malloc_array((size_t)n_prev + 1, sizeof(gnn_reorder_idpos));
    p->from = gnn_malloc_array((size_t)n_cur + 1, sizeof(int64_t));
    p->load_ids = gnn_malloc_array((size_t)n_cur + 1, sizeof(int64_t));
    if (!s || !p->from || !p->load_ids) {
        gnn_free(s);
        gnn_match_plan_free(p);
        return NULL;
    }
    p->n = n_cur;
    p->n_prev = n_prev;
    return s;
}

/* row r, a miss (S_cur \ S_prev), is loaded: the next loaded row, in row order */
static inline void gnn_reorder_plan_load(gnn_match_plan *p, int64_t r, int64_t id)
{
    p->from[r] = -1 - p->n_load;
    p->load_ids[p->n_load++] = id;
}

/* the row of id in the previous batch, s[0..n) sorted by id (binary search for the first
 * id >= key); -1 when id is not there */
static inline int64_t gnn_reorder_find(const gnn_reorder_idpos *s, int64_t n, int64_t id)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (s[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && s[lo].id == id ? s[lo].pos : -1;
}

/* row r of the assembled batch: from the previous batch's features (from[r] >= 0) or from the
 * loaded rows (from[r] = -1 - k: the k-th loaded row) */
static inline void gnn_reorder_copy_row(const gnn_match_plan *p, const float *prev_x, const float *loaded, int64_t d,
                                        int64_t r, float *x)
{
    const int64_t f = p->from[r];
    const float *row = f >= 0 ? prev_x + f * d : loaded + (-1 - f) * d;
    memcpy(x + r * d, row, (size_t)d * sizeof(float));
}

#endif
