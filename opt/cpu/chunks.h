/* opt/cpu/chunks.h -- how the threaded kernels split a CSR's rows into chunks of about equal
 * nonzeros, written once (aggregate.c, gat.c and index_add.c each had the binary search, two
 * of them the chunk bounds too). A chunk's rows are the rows whose first nonzero falls in its
 * share; which rows a thread gets never changes a result, only the balance. Internal. */
#ifndef GNN_OPT_CPU_CHUNKS_H
#define GNN_OPT_CPU_CHUNKS_H

#include <stdint.h>

/* The first k in [0, n) with ptr[k] >= target, or n (ptr non-decreasing). */
static inline int64_t gnn_first_at_least(const int64_t *ptr, int64_t n, int64_t target)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (ptr[mid] < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Rows [*r0, *r1) of chunk c of `chunks` over the n rows of ptr (nnz nonzeros in all),
 * balanced by nonzeros; by rows when there are none, so that a graph of empty rows still
 * spreads. The last chunk ends at n. */
static inline void gnn_chunk_rows(const int64_t *ptr, int64_t n, int64_t nnz, int64_t c, int64_t chunks, int64_t *r0,
                                  int64_t *r1)
{
    *r0 = nnz > 0 ? gnn_first_at_least(ptr, n, c * nnz / chunks) : c * n / chunks;
    *r1 = nnz > 0 ? gnn_first_at_least(ptr, n, (c + 1) * nnz / chunks) : (c + 1) * n / chunks;
    if (c == chunks - 1)
        *r1 = n;
}

#endif
