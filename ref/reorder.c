/* ref/reorder.c -- reference Match-Reorder (include/gnnref/reorder.h, docs/reorder.md; FastGL
 * section 4.1, @alg{FastGL 1}).
 *
 * Plain C11, no threads: this file is the specification; opt/cpu/reorder.c must give the same
 * integers (overlap counts, orders, plans) and the same feature bytes. Arguments are checked by
 * the entry points (core/ops/reorder.c): ids are >= 0 and distinct within a set.
 *   degree    every set sorted once (a copy), then each pair counted by a sorted-id merge;
 *   order     Algorithm 1 with the fixes: candidates are the batches not yet placed, the
 *             largest degree from the last placed batch wins, ties to the smallest index;
 *   plan      the previous batch's (id, row) pairs sorted by id, each row of the batch looked up
 *             by binary search; the misses are loaded, in row order;
 *   assemble  row by row, a copy from the previous batch or from the loaded rows. */
#include <stdlib.h>
#include <string.h>
#include "gnnref/reorder.h"
#include "gnnref/tensor.h"
#include "ref/reorder_impl.h"

/* |a ∩ b| of two sorted sets */
static int64_t merge_count(const int64_t *a, int64_t na, const int64_t *b, int64_t nb)
{
    int64_t i = 0, j = 0, c = 0;
    while (i < na && j < nb) {
        if (a[i] < b[j])
            i++;
        else if (a[i] > b[j])
            j++;
        else {
            c++;
            i++;
            j++;
        }
    }
    return c;
}

static gnn_status degree_ref(const int64_t *const *sets, const int64_t *len, int64_t n, int64_t *overlap)
{
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++)
        total += len[i];
    int64_t *buf = gnn_malloc_array((size_t)total + 1, sizeof(int64_t));
    int64_t *off = gnn_malloc_array((size_t)n + 1, sizeof(int64_t));
    if (!buf || !off) {
        gnn_free(buf);
        gnn_free(off);
        return GNN_ERR_NOMEM;
    }
    off[0] = 0;
    for (int64_t i = 0; i < n; i++) { /* each set sorted once */
        off[i + 1] = off[i] + len[i];
        gnn_reorder_sorted_copy(sets[i], len[i], buf + off[i]);
    }
    for (int64_t i = 0; i < n; i++) {
        overlap[i * n + i] = len[i];
        for (int64_t j = i + 1; j < n; j++)
            overlap[i * n + j] = overlap[j * n + i] = merge_count(buf + off[i], len[i], buf + off[j], len[j]);
    }
    gnn_free(buf);
    gnn_free(off);
    return GNN_OK;
}

static gnn_status order_ref(const int64_t *overlap, int64_t n, gnn_match_norm norm, int64_t *order)
{
    if (n == 0)
        return GNN_OK;
    uint8_t *placed = gnn_calloc((size_t)n, 1);
    if (!placed)
        return GNN_ERR_NOMEM;
    int64_t z = 0; /* @alg{FastGL 1, line 4}: the first sampled batch is first */
    order[0] = 0;
    placed[0] = 1;
    for (int64_t i = 1; i < n; i++) { /* @alg{FastGL 1, line 6} */
        /* @alg{FastGL 1, line 7}: argmax over the batches not yet placed (fixes 1 and 2); the
         * strict > keeps the smallest index among equal degrees (fix 3) */
        int64_t h = -1, hn = 0, hd = 1;
        for (int64_t k = 0; k < n; k++) {
            if (placed[k])
                continue;
            int64_t num, den;
            gnn_match_degree_frac(overlap, n, z, k, norm, &num, &den);
            if (h < 0 || gnn_match_frac_cmp(num, den, hn, hd) > 0) {
                h = k;
                hn = num;
                hd = den;
            }
        }
        order[i] = h; /* @alg{FastGL 1, line 8} */
        placed[h] = 1; /* @alg{FastGL 1, line 9}: z's row and column are out of the race */
        z = h;         /* @alg{FastGL 1, line 10} */
    }
    gnn_free(placed);
    return GNN_OK;
}

static gnn_status plan_ref(const int64_t *prev, int64_t n_prev, const int64_t *cur, int64_t n_cur, gnn_match_plan *p)
{
    gnn_reorder_idpos *s = gnn_reorder_plan_alloc(n_prev, n_cur, p);
    if (!s)
        return GNN_ERR_NOMEM;
    for (int64_t i = 0; i < n_prev; i++)
        s[i] = (gnn_reorder_idpos){ prev[i], i };
    qsort(s, (size_t)n_prev, sizeof(gnn_reorder_idpos), gnn_reorder_cmp_idpos);
    for (int64_t r = 0; r < n_cur; r++) {
        const int64_t pos = gnn_reorder_find(s, n_prev, cur[r]);
        if (pos >= 0)
            p->from[r] = pos; /* reused: S_cur ∩ S_prev */
        else
            gnn_reorder_plan_load(p, r, cur[r]); /* loaded: S_cur \ S_prev, in row order */
    }
    gnn_free(s);
    return GNN_OK;
}

static gnn_status assemble_ref(const gnn_match_plan *p, const float *prev_x, const float *loaded, int64_t d, float *x)
{
    for (int64_t r = 0; r < p->n; r++)
        gnn_reorder_copy_row(p, prev_x, loaded, d, r, x);
    return GNN_OK;
}

const gnn_reorder_ops gnn_reorder_ref = {
    .name = "ref",
    .caps = 0,
    .degree = degree_ref,
    .order = order_ref,
    .plan = plan_ref,
    .assemble = assemble_ref,
};
