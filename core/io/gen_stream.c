/* core/io/gen_stream.c -- the generators' streaming CSR construction (core/io/gen_internal.h):
 * two passes over a keyed edge list that is never stored, then every row sorted and
 * deduplicated in place and the rows compacted into one array.
 *
 * The specification it must equal bit for bit is the edge-list path of core/io/gen.c
 * (gen_graph: gnn_csr_from_edges with SYMMETRIZE | DEDUP | DROP_SELF), which
 * tests/test_gen_stream.c runs beside it. What differs is only memory: the edge-list path holds
 * src and dst (2m int64), the unsorted entries (2m), a fill and a count array (2n) and the
 * compacted copy; this one holds indptr (n + 1) and 2m slots, and shrinks the slots in place. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/base/cmp.h"
#include "core/io/gen_internal.h"
#include "gnnref/tensor.h"

gnn_status gen_csr_begin(gen_csr *b, int64_t n, int64_t m)
{
    memset(b, 0, sizeof *b);
    b->n = n;
    b->pass = 1;
    /* the slots first: they are the big one, and not touched before pass 2 */
    b->slots = (uint64_t)m <= SIZE_MAX / 16 ? gnn_malloc_array(2 * (size_t)m, sizeof(int64_t)) : NULL;
    b->indptr = b->slots ? gnn_calloc((size_t)n + 1, sizeof(int64_t)) : NULL;
    if (!b->indptr || !b->slots) {
        gen_csr_abort(b);
        return GNN_ERR_NOMEM;
    }
    return GNN_OK;
}

void gen_csr_place(gen_csr *b)
{
    const int64_t n = b->n;
    for (int64_t v = 0; v < n; v++)
        b->indptr[v + 1] += b->indptr[v];
    b->pass = 2; /* indptr[v] is now row v's start, which pass 2 advances as its cursor */
}

void gen_csr_abort(gen_csr *b)
{
    gnn_free(b->indptr);
    gnn_free(b->slots);
    memset(b, 0, sizeof *b);
}

/* Ascending, as gnn_csr_from_edges sorts its rows (any correct sort gives the same bits). */
static void sort_row(int64_t *row, int64_t len)
{
    if (len > 32) {
        qsort(row, (size_t)len, sizeof(int64_t), gnn_cmp_i64);
        return;
    }
    for (int64_t i = 1; i < len; i++) {
        const int64_t x = row[i];
        int64_t j = i - 1;
        while (j >= 0 && row[j] > x) {
            row[j + 1] = row[j];
            j--;
        }
        row[j + 1] = x;
    }
}

gnn_status gen_csr_finish(gen_csr *b, gnn_dataset *ds, int64_t m, int64_t self, gnn_err *err)
{
    const int64_t n = b->n;
    int64_t *indptr = b->indptr, *slots = b->slots;
    const int64_t total = indptr[n]; /* pass 2 advanced indptr[v] to row v's end = row v+1's start */
    memmove(indptr + 1, indptr, (size_t)n * sizeof(int64_t));
    indptr[0] = 0;
    if (indptr[n] != total) {
        gen_csr_abort(b);
        return gnn_err_set(err, GNN_ERR_INTERNAL, "generator: the second pass placed %lld entries, the first counted %lld",
                           (long long)indptr[n], (long long)total);
    }
    /* canonical order: each row sorted, repeats dropped; a shortened row ends with -1 (ids are >= 0) */
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t v = 0; v < n; v++) {
        int64_t *row_v = slots + indptr[v];
        const int64_t len = indptr[v + 1] - indptr[v];
        sort_row(row_v, len);
        int64_t k = len > 0;
        for (int64_t i = 1; i < len; i++)
            if (row_v[i] != row_v[k - 1])
                row_v[k++] = row_v[i];
        if (k < len)
            row_v[k] = -1;
    }
    /* compact in place, rows in order: row v moves down to w <= its start, never over a row not yet moved */
    int64_t w = 0, start = 0;
    for (int64_t v = 0; v < n; v++) {
        const int64_t end = indptr[v + 1];
        int64_t k = 0;
        while (start + k < end && slots[start + k] >= 0)
            k++;
        if (w != start)
            memmove(slots + w, slots + start, (size_t)k * sizeof(int64_t));
        indptr[v] = w;
        w += k;
        start = end;
    }
    indptr[n] = w;
    if (w < 2 * m) { /* give the tail back (a failed shrink keeps the larger block) */
        int64_t *shrunk = realloc(slots, (size_t)(w > 0 ? w : 1) * sizeof(int64_t));
        if (shrunk && (uintptr_t)shrunk % GNN_ALIGN != 0) { /* moved: restore gnn_malloc's alignment */
            int64_t *aligned = gnn_malloc_array((size_t)w, sizeof(int64_t));
            if (!aligned) {
                free(shrunk);
                b->slots = NULL;
                gen_csr_abort(b);
                return GNN_ERR_NOMEM;
            }
            memcpy(aligned, shrunk, (size_t)w * sizeof(int64_t));
            free(shrunk);
            shrunk = aligned;
        }
        slots = shrunk ? shrunk : slots;
    }
    ds->graph.n = n;
    ds->graph.nnz = w;
    ds->graph.indptr = indptr;
    ds->graph.indices = slots;
    ds->graph.owns = 1;
    ds->stats.edges_read = m;
    ds->stats.self_loops_dropped = self;
    ds->stats.duplicates_merged = 2 * (m - self) - w;
    ds->stats.symmetrized = 1;
    memset(b, 0, sizeof *b);
    return GNN_OK;
}
