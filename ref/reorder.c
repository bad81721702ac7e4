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
#include "core/base/cmp.h"

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
        if (len[i] > 0)
            memcpy(buf + off[i], sets[i], (size_t)len[i] * sizeof(int64_t));
        qsort(buf + off[i], (size_t)len[i], sizeof(int64_t), gnn_cmp_i64);
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

typedef struct idpos {
    int64_t id, pos;
} idpos;

static int cmp_idpos(const void *a, const void *b)
{
    const int64_t x = ((const idpos *)a)->id, y = ((const idpos *)b)->id;
    return (x > y) - (x < y);
}

static gnn_status plan_ref(const int64_t *prev, int64_t n_prev, const int64_t *cur, int64_t n_cur, gnn_match_plan *p)
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
    for (int64_t i = 0; i < n_prev; i++)
        s[i] = (idpos){ prev[i], i };
    qsort(s, (size_t)n_prev, sizeof(idpos), cmp_idpos);
    p->n = n_cur;
    p->n_prev = n_prev;
    for (int64_t r = 0; r < n_cur; r++) {
        int64_t lo = 0, hi = n_prev; /* first id >= cur[r] */
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (s[mid].id < cur[r])
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < n_prev && s[lo].id == cur[r])
            p->from[r] = s[lo].pos; /* reused: S_cur ∩ S_prev */
        else {
            p->from[r] = -1 - p->n_load; /* loaded: S_cur \ S_prev, in row order */
            p->load_ids[p->n_load++] = cur[r];
        }
    }
    gnn_free(s);
    return GNN_OK;
}

static gnn_status assemble_ref(const gnn_match_plan *p, const float *prev_x, const float *loaded, int64_t d, float *x)
{
    for (int64_t r = 0; r < p->n; r++) {
        const int64_t f = p->from[r];
        const float *row = f >= 0 ? prev_x + f * d : loaded + (-1 - f) * d;
        memcpy(x + r * d, row, (size_t)d * sizeof(float));
    }
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
