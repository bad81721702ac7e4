/* core/ops/reorder.c -- the checked entry points of Match-Reorder (include/gnnref/reorder.h): every
 * argument once, then the table; and the exact-rational degree rule ref, cpu and the oracle
 * share, so there is one definition of "the larger match degree". */
#include <stdlib.h>
#include <string.h>
#include "gnnref/reorder.h"
#include "gnnref/tensor.h"
#include "core/base/cmp.h"

const char *gnn_match_norm_name(gnn_match_norm m)
{
    return m == GNN_MATCH_MIN ? "min" : m == GNN_MATCH_LATER ? "later" : m == GNN_MATCH_COUNT ? "count" : "?";
}

gnn_status gnn_match_norm_parse(const char *s, gnn_match_norm *m)
{
    for (int k = 0; k < 3; k++)
        if (s && !strcmp(s, gnn_match_norm_name((gnn_match_norm)k))) {
            *m = (gnn_match_norm)k;
            return GNN_OK;
        }
    return GNN_ERR_INVAL;
}

void gnn_match_plan_free(gnn_match_plan *p)
{
    if (!p)
        return;
    gnn_free(p->from);
    gnn_free(p->load_ids);
    memset(p, 0, sizeof *p);
}

void gnn_match_degree_frac(const int64_t *overlap, int64_t n, int64_t i, int64_t j, gnn_match_norm norm,
                           int64_t *num, int64_t *den)
{
    const int64_t no = overlap[i * n + j], ni = overlap[i * n + i], nj = overlap[j * n + j];
    int64_t d = 1;
    if (norm == GNN_MATCH_MIN)
        d = ni < nj ? ni : nj;
    else if (norm == GNN_MATCH_LATER) /* the later batch of the window: the larger index */
        d = i > j ? ni : nj;
    if (d <= 0) { /* an empty batch overlaps nothing */
        *num = 0;
        *den = 1;
        return;
    }
    *num = no;
    *den = d;
}

int gnn_match_frac_cmp(int64_t a, int64_t b, int64_t c, int64_t d)
{
    const __int128 l = (__int128)a * d, r = (__int128)c * b; /* never rounded: exact in 128 bits */
    return (l > r) - (l < r);
}

/* a set: ids >= 0 (GNN_ERR_RANGE), none repeated (GNN_ERR_INVAL); tmp holds len ids */
static gnn_status check_set(const int64_t *s, int64_t len, int64_t *tmp)
{
    if (len < 0 || (len > 0 && !s))
        return GNN_ERR_INVAL;
    for (int64_t i = 0; i < len; i++)
        if (s[i] < 0)
            return GNN_ERR_RANGE;
    if (len > 0)
        memcpy(tmp, s, (size_t)len * sizeof(int64_t));
    qsort(tmp, (size_t)len, sizeof(int64_t), gnn_cmp_i64);
    for (int64_t i = 1; i < len; i++)
        if (tmp[i] == tmp[i - 1])
            return GNN_ERR_INVAL;
    return GNN_OK;
}

static gnn_status check_sets(const int64_t *const *sets, const int64_t *len, int64_t n)
{
    if (n < 0 || (n > 0 && (!sets || !len)))
        return GNN_ERR_INVAL;
    int64_t most = 0;
    for (int64_t i = 0; i < n; i++) {
        if (len[i] < 0)
            return GNN_ERR_INVAL;
        most = len[i] > most ? len[i] : most;
    }
    int64_t *tmp = gnn_malloc_array((size_t)most + 1, sizeof(int64_t));
    if (!tmp)
        return GNN_ERR_NOMEM;
    gnn_status st = GNN_OK;
    for (int64_t i = 0; i < n && !st; i++)
        st = check_set(sets[i], len[i], tmp);
    gnn_free(tmp);
    return st;
}

gnn_status gnn_match_degree(const gnn_reorder_ops *ops, const int64_t *const *sets, const int64_t *len, int64_t n,
                            int64_t *overlap)
{
    if (!ops || !ops->degree)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    gnn_status st = check_sets(sets, len, n);
    if (st)
        return st;
    if (n > 0 && !overlap)
        return GNN_ERR_INVAL;
    return n ? ops->degree(sets, len, n, overlap) : GNN_OK;
}

/* Counts of sets: a non-negative diagonal, and off the diagonal symmetric, non-negative and
 * within both sets' sizes. The upper triangle is walked in 64 x 64 tiles, so that the transposed
 * reads of a tile stay in cache (row by row, every overlap[j][i] was a cache miss: 11 of the
 * 17 ms of a checked call at n = 1,536, measured with gnnref-bench's reorder.order). 0 or -1. */
static int check_overlap(const int64_t *overlap, int64_t n)
{
    enum { TILE = 64 };
    for (int64_t i = 0; i < n; i++)
        if (overlap[i * n + i] < 0)
            return -1;
    for (int64_t i0 = 0; i0 < n; i0 += TILE)
        for (int64_t j0 = i0; j0 < n; j0 += TILE)
            for (int64_t i = i0; i < i0 + TILE && i < n; i++)
                for (int64_t j = j0 > i + 1 ? j0 : i + 1; j < j0 + TILE && j < n; j++) {
                    const int64_t o = overlap[i * n + j];
                    if (o < 0 || o != overlap[j * n + i] || o > overlap[i * n + i] || o > overlap[j * n + j])
                        return -1;
                }
    return 0;
}

gnn_status gnn_greedy_reorder(const gnn_reorder_ops *ops, const int64_t *overlap, int64_t n, gnn_match_norm norm,
                              int64_t *order)
{
    if (!ops || !ops->order)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (n < 0 || (n > 0 && (!overlap || !order)) || (unsigned)norm > GNN_MATCH_COUNT)
        return GNN_ERR_INVAL;
    return check_overlap(overlap, n) ? GNN_ERR_INVAL : n ? ops->order(overlap, n, norm, order) : GNN_OK;
}

gnn_status gnn_reorder_windows(const gnn_reorder_ops *ops, const int64_t *const *sets, const int64_t *len, int64_t n,
                               int64_t window, gnn_match_norm norm, int64_t *order)
{
    if (!ops || !ops->degree || !ops->order)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (window < 0 || (unsigned)norm > GNN_MATCH_COUNT || (n > 0 && !order))
        return GNN_ERR_INVAL;
    gnn_status st = check_sets(sets, len, n);
    if (st || n == 0)
        return st;
    const int64_t W = window == 0 || window > n ? n : window;
    int64_t *ov = gnn_malloc_array((size_t)(W * W) + 1, sizeof(int64_t));
    if (!ov)
        return GNN_ERR_NOMEM;
    for (int64_t w0 = 0; w0 < n && !st; w0 += W) {
        const int64_t m = n - w0 < W ? n - w0 : W; /* the last window may be shorter */
        if (!(st = ops->degree(sets + w0, len + w0, m, ov)) && !(st = ops->order(ov, m, norm, order + w0)))
            for (int64_t i = 0; i < m; i++)
                order[w0 + i] += w0;
    }
    gnn_free(ov);
    return st;
}

gnn_status gnn_match_plan_build(const gnn_reorder_ops *ops, const int64_t *prev, int64_t n_prev, const int64_t *cur,
                                int64_t n_cur, gnn_match_plan *p)
{
    if (!ops || !ops->plan)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (!p)
        return GNN_ERR_INVAL;
    memset(p, 0, sizeof *p);
    const int64_t *sets[2] = { prev, cur }, len[2] = { n_prev, n_cur };
    gnn_status st = check_sets(sets, len, 2);
    return st ? st : ops->plan(prev, n_prev, cur, n_cur, p);
}

gnn_status gnn_match_assemble(const gnn_reorder_ops *ops, const gnn_match_plan *p, const float *prev_x,
                              const float *loaded, int64_t d, float *x)
{
    if (!ops || !ops->assemble)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (!p || d < 0 || p->n < 0 || p->n_load < 0 || p->n_load > p->n || (p->n > 0 && !p->from))
        return GNN_ERR_INVAL;
    if (p->n == 0 || d == 0)
        return GNN_OK;
    if (!x || (p->n_load > 0 && !loaded))
        return GNN_ERR_INVAL;
    for (int64_t r = 0; r < p->n; r++) /* every row names a loaded row or a previous one */
        if (p->from[r] < -p->n_load || p->from[r] >= p->n_prev || (p->from[r] >= 0 && !prev_x))
            return GNN_ERR_RANGE;
    return ops->assemble(p, prev_x, loaded, d, x);
}

gnn_status gnn_match_rows_loaded(const gnn_reorder_ops *ops, const int64_t *const *sets, const int64_t *len, int64_t n,
                                 const int64_t *order, int match, int64_t *rows)
{
    if (!ops || !rows)
        return GNN_ERR_INVAL;
    gnn_status st = check_sets(sets, len, n);
    if (st)
        return st;
    for (int64_t k = 0; order && k < n; k++)
        if (order[k] < 0 || order[k] >= n)
            return GNN_ERR_RANGE;
    *rows = 0;
    for (int64_t k = 0; k < n && !st; k++) {
        const int64_t b = order ? order[k] : k, a = order ? order[k ? k - 1 : 0] : k - 1;
        if (!match || k == 0) {
            *rows += len[b];
            continue;
        }
        gnn_match_plan p;
        if (!(st = ops->plan(sets[a], len[a], sets[b], len[b], &p)))
            *rows += p.n_load;
        gnn_match_plan_free(&p);
    }
    return st;
}
