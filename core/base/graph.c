/* core/base/graph.c -- CSR construction from edge lists, validation, mini-batch blocks. */
#include <stdlib.h>
#include <string.h>
#include "gnnref/graph.h"
#include "gnnref/tensor.h"
#include "core/base/cmp.h"

/* Sort a short row by insertion sort, a long one by qsort. */
static void sort_row(int64_t *v, int64_t n)
{
    if (n > 32) {
        qsort(v, (size_t)n, sizeof(int64_t), gnn_cmp_i64);
        return;
    }
    for (int64_t i = 1; i < n; i++) {
        const int64_t x = v[i];
        int64_t j = i - 1;
        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
}

/* Parallel and deterministic: edges are counted and scattered with atomics (so the order
 * within a row depends on the threads), then every row is sorted -- which makes the result
 * independent of the thread count -- and deduplicated in a count-scan-copy sequence. */
gnn_status gnn_csr_from_edges(gnn_csr *g, int64_t n, int64_t m, const int64_t *src,
                              const int64_t *dst, unsigned flags, gnn_err *err)
{
    memset(g, 0, sizeof *g);
    if (n < 0 || m < 0 || (m > 0 && (!src || !dst)))
        return gnn_err_set(err, GNN_ERR_INVAL, "csr: bad sizes n=%lld m=%lld", (long long)n, (long long)m);
    int64_t bad = -1;
#pragma omp parallel for schedule(static) reduction(max : bad)
    for (int64_t e = 0; e < m; e++)
        if (src[e] < 0 || src[e] >= n || dst[e] < 0 || dst[e] >= n)
            bad = bad > e ? bad : e;
    if (bad >= 0) { /* report the first bad edge */
        for (bad = 0; bad < m; bad++)
            if (src[bad] < 0 || src[bad] >= n || dst[bad] < 0 || dst[bad] >= n)
                break;
        return gnn_err_set(err, GNN_ERR_RANGE, "edge %lld: (%lld, %lld) has a vertex id outside [0, %lld)",
                           (long long)bad, (long long)src[bad], (long long)dst[bad], (long long)n);
    }
    const int sym = (flags & GNN_CSR_SYMMETRIZE) != 0;
    const int drop = (flags & GNN_CSR_DROP_SELF) != 0;
    const int by_src = (flags & GNN_CSR_BY_SRC) != 0;
    int64_t *indptr = gnn_calloc((size_t)n + 1, sizeof(int64_t));
    if (!indptr)
        return GNN_ERR_NOMEM;
    /* count: row = dst (in-neighbors) unless by_src */
#pragma omp parallel for schedule(static)
    for (int64_t e = 0; e < m; e++) {
        const int64_t u = src[e], v = dst[e];
        if (drop && u == v)
            continue;
        __atomic_fetch_add(&indptr[(by_src ? u : v) + 1], 1, __ATOMIC_RELAXED);
        if (sym && u != v)
            __atomic_fetch_add(&indptr[(by_src ? v : u) + 1], 1, __ATOMIC_RELAXED);
    }
    for (int64_t v = 0; v < n; v++)
        indptr[v + 1] += indptr[v];
    const int64_t total = indptr[n];
    int64_t *indices = gnn_malloc((size_t)total * sizeof(int64_t));
    int64_t *fill = gnn_malloc(((size_t)n + 1) * sizeof(int64_t));
    int64_t *uniq = gnn_calloc((size_t)n + 1, sizeof(int64_t));
    if (!indices || !fill || !uniq) {
        gnn_free(indptr);
        gnn_free(indices);
        gnn_free(fill);
        gnn_free(uniq);
        return GNN_ERR_NOMEM;
    }
    memcpy(fill, indptr, (size_t)n * sizeof(int64_t));
#pragma omp parallel for schedule(static)
    for (int64_t e = 0; e < m; e++) {
        const int64_t u = src[e], v = dst[e];
        if (drop && u == v)
            continue;
        const int64_t r1 = by_src ? u : v, c1 = by_src ? v : u;
        indices[__atomic_fetch_add(&fill[r1], 1, __ATOMIC_RELAXED)] = c1;
        if (sym && u != v)
            indices[__atomic_fetch_add(&fill[c1], 1, __ATOMIC_RELAXED)] = r1;
    }
    gnn_free(fill);
    /* canonical order within each row; optional dedup: count, scan, copy */
    const int dedup = (flags & GNN_CSR_DEDUP) != 0;
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t v = 0; v < n; v++) {
        int64_t *row = indices + indptr[v];
        const int64_t len = indptr[v + 1] - indptr[v];
        sort_row(row, len);
        int64_t k = len;
        if (dedup && len > 1) {
            k = 1;
            for (int64_t i = 1; i < len; i++)
                if (row[i] != row[i - 1])
                    row[k++] = row[i];
        }
        uniq[v + 1] = k;
    }
    for (int64_t v = 0; v < n; v++)
        uniq[v + 1] += uniq[v];
    int64_t *out = indices;
    if (uniq[n] != total) {
        out = gnn_malloc((size_t)uniq[n] * sizeof(int64_t));
        if (!out) {
            gnn_free(indptr);
            gnn_free(indices);
            gnn_free(uniq);
            return GNN_ERR_NOMEM;
        }
#pragma omp parallel for schedule(dynamic, 1024)
        for (int64_t v = 0; v < n; v++)
            memcpy(out + uniq[v], indices + indptr[v], (size_t)(uniq[v + 1] - uniq[v]) * sizeof(int64_t));
        gnn_free(indices);
    }
    gnn_free(indptr);
    g->n = n;
    g->nnz = uniq[n];
    g->indptr = uniq;
    g->indices = out;
    g->owns = 1;
    return GNN_OK;
}

gnn_status gnn_csr_validate(const gnn_csr *g, gnn_err *err)
{
    if (g->n < 0 || g->nnz < 0)
        return gnn_err_set(err, GNN_ERR_RANGE, "graph: negative size n=%lld nnz=%lld", (long long)g->n, (long long)g->nnz);
    if (!g->indptr || (g->nnz > 0 && !g->indices))
        return gnn_err_set(err, GNN_ERR_INVAL, "graph: missing arrays");
    if (g->indptr[0] != 0)
        return gnn_err_set(err, GNN_ERR_FORMAT, "graph: indptr[0] = %lld, expected 0", (long long)g->indptr[0]);
    for (int64_t v = 0; v < g->n; v++)
        if (g->indptr[v + 1] < g->indptr[v])
            return gnn_err_set(err, GNN_ERR_RANGE, "graph: vertex %lld has negative degree (indptr %lld -> %lld)",
                               (long long)v, (long long)g->indptr[v], (long long)g->indptr[v + 1]);
    if (g->indptr[g->n] != g->nnz)
        return gnn_err_set(err, GNN_ERR_FORMAT, "graph: indptr[n] = %lld but nnz = %lld",
                           (long long)g->indptr[g->n], (long long)g->nnz);
    for (int64_t e = 0; e < g->nnz; e++)
        if (g->indices[e] < 0 || g->indices[e] >= g->n)
            return gnn_err_set(err, GNN_ERR_RANGE, "graph: edge %lld: vertex id %lld outside [0, %lld)",
                               (long long)e, (long long)g->indices[e], (long long)g->n);
    return GNN_OK;
}

void gnn_csr_free(gnn_csr *g)
{
    if (g->owns) {
        gnn_free(g->indptr);
        gnn_free(g->indices);
    }
    memset(g, 0, sizeof *g);
}

/* One array for gnn_csr_copy: parallel first touch (pages land near the threads that use them). */
static int64_t *copy_array(const int64_t *src, int64_t count, int huge)
{
    const size_t bytes = (size_t)(count > 0 ? count : 1) * sizeof(int64_t);
    int64_t *p = huge ? gnn_malloc_huge(bytes) : gnn_malloc(bytes);
    if (!p)
        return NULL;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; i++)
        p[i] = src[i];
    return p;
}

gnn_status gnn_csr_copy(gnn_csr *dst, const gnn_csr *src, unsigned flags)
{
    memset(dst, 0, sizeof *dst);
    const int huge = (flags & GNN_CSR_HUGEPAGES) != 0;
    int64_t *ip = copy_array(src->indptr, src->n + 1, huge);
    int64_t *ix = copy_array(src->indices, src->nnz, huge);
    if (!ip || !ix) {
        free(ip);
        free(ix);
        return GNN_ERR_NOMEM;
    }
    dst->n = src->n;
    dst->nnz = src->nnz;
    dst->indptr = ip;
    dst->indices = ix;
    dst->owns = 1; /* gnn_free is free(): both allocators pair with it */
    return GNN_OK;
}

gnn_status gnn_block_alloc(gnn_block *b, int64_t n_dst, int64_t cap_src, int64_t cap_nnz)
{
    memset(b, 0, sizeof *b);
    if (n_dst < 0 || cap_src < n_dst || cap_nnz < 0 || cap_src > INT32_MAX)
        return GNN_ERR_RANGE;
    b->src_gid = gnn_malloc((size_t)cap_src * sizeof(int64_t));
    b->indptr = gnn_calloc((size_t)n_dst + 1, sizeof(int64_t));
    b->indices = gnn_malloc((size_t)cap_nnz * sizeof(int32_t));
    if (!b->src_gid || !b->indptr || !b->indices) {
        gnn_block_free(b);
        return GNN_ERR_NOMEM;
    }
    b->n_dst = n_dst;
    b->cap_src = cap_src;
    b->cap_nnz = cap_nnz;
    return GNN_OK;
}

void gnn_block_free(gnn_block *b)
{
    gnn_free(b->src_gid);
    gnn_free(b->indptr);
    gnn_free(b->indices);
    gnn_free(b->etype);
    memset(b, 0, sizeof *b);
}

gnn_status gnn_block_validate(const gnn_block *b, gnn_err *err)
{
    if (b->n_dst < 0 || b->n_src < b->n_dst || b->n_src > INT32_MAX || b->nnz < 0)
        return gnn_err_set(err, GNN_ERR_RANGE, "block: bad sizes n_dst=%lld n_src=%lld nnz=%lld",
                           (long long)b->n_dst, (long long)b->n_src, (long long)b->nnz);
    if (b->indptr[0] != 0 || b->indptr[b->n_dst] != b->nnz)
        return gnn_err_set(err, GNN_ERR_FORMAT, "block: indptr ends %lld..%lld, nnz %lld",
                           (long long)b->indptr[0], (long long)b->indptr[b->n_dst], (long long)b->nnz);
    for (int64_t v = 0; v < b->n_dst; v++)
        if (b->indptr[v + 1] < b->indptr[v])
            return gnn_err_set(err, GNN_ERR_RANGE, "block: dst %lld has negative degree", (long long)v);
    for (int64_t e = 0; e < b->nnz; e++)
        if (b->indices[e] < 0 || b->indices[e] >= b->n_src)
            return gnn_err_set(err, GNN_ERR_RANGE, "block: edge %lld: src %d outside [0, %lld)",
                               (long long)e, b->indices[e], (long long)b->n_src);
    return GNN_OK;
}

gnn_status gnn_block_full(gnn_block *b, const gnn_csr *g)
{
    if (g->n > INT32_MAX)
        return GNN_ERR_RANGE;
    gnn_status s = gnn_block_alloc(b, g->n, g->n, g->nnz);
    if (s)
        return s;
    b->n_src = g->n;
    b->nnz = g->nnz;
    for (int64_t v = 0; v < g->n; v++)
        b->src_gid[v] = v;
    memcpy(b->indptr, g->indptr, ((size_t)g->n + 1) * sizeof(int64_t));
    for (int64_t e = 0; e < g->nnz; e++)
        b->indices[e] = (int32_t)g->indices[e];
    return GNN_OK;
}

/* Kipf & Welling's A + I on the rows v < rows: each gets the in-edge v -> v as its LAST edge
 * unless it already lists v (then the row is copied unchanged); rows >= rows are copied. Two
 * passes: count, then copy. */
gnn_status gnn_csr_add_self_loops_rows(gnn_csr *out, const gnn_csr *g, int64_t rows)
{
    memset(out, 0, sizeof *out);
    if (!g || g->n < 0 || (g->n > 0 && (!g->indptr || (g->nnz > 0 && !g->indices))))
        return GNN_ERR_INVAL;
    int64_t *ip = gnn_malloc(((size_t)g->n + 1) * sizeof(int64_t));
    if (!ip)
        return GNN_ERR_NOMEM;
    ip[0] = 0;
    for (int64_t v = 0; v < g->n; v++) {
        int has = v >= rows;
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1] && !has; e++)
            has = g->indices[e] == v;
        ip[v + 1] = ip[v] + (g->indptr[v + 1] - g->indptr[v]) + (has ? 0 : 1);
    }
    const int64_t nnz = ip[g->n];
    int64_t *ix = gnn_malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(int64_t));
    if (!ix) {
        gnn_free(ip);
        return GNN_ERR_NOMEM;
    }
    for (int64_t v = 0; v < g->n; v++) {
        const int64_t d = g->indptr[v + 1] - g->indptr[v];
        memcpy(ix + ip[v], g->indices + g->indptr[v], (size_t)d * sizeof(int64_t));
        if (ip[v + 1] - ip[v] > d)
            ix[ip[v] + d] = v;
    }
    out->n = g->n;
    out->nnz = nnz;
    out->indptr = ip;
    out->indices = ix;
    out->owns = 1;
    return GNN_OK;
}

gnn_status gnn_csr_add_self_loops(gnn_csr *out, const gnn_csr *g)
{
    return gnn_csr_add_self_loops_rows(out, g, g ? g->n : 0);
}
