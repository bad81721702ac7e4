/* core/base/tensor.c -- 64-byte aligned allocation and dense f32 matrices. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "gnnref/tensor.h"

#define GNN_HUGE_MIN ((size_t)4 << 20) /* arrays from 4 MiB up get huge-page hints */

void *gnn_malloc_huge(size_t bytes)
{
    /* 2 MiB alignment lets the kernel back the array with transparent huge pages, so that
     * the TLB covers random reads; madvise is a hint, ignored where unsupported */
    const size_t huge = (size_t)2 << 20;
    const size_t r2 = (bytes + huge - 1) / huge * huge;
    if (r2 < bytes)
        return NULL;
    void *p = aligned_alloc(huge, r2 ? r2 : huge);
#ifdef MADV_HUGEPAGE
    if (p)
        (void)madvise(p, r2 ? r2 : huge, MADV_HUGEPAGE);
#endif
    return p;
}

void *gnn_malloc(size_t bytes)
{
    /* aligned_alloc needs a size that is a multiple of the alignment */
    size_t rounded = (bytes + GNN_ALIGN - 1) / GNN_ALIGN * GNN_ALIGN;
    if (rounded < bytes)
        return NULL;
    if (rounded == 0)
        rounded = GNN_ALIGN;
    if (rounded >= GNN_HUGE_MIN) {
        /* large arrays (graphs, ID-map tables, features) are read at random */
        void *p = gnn_malloc_huge(rounded);
        if (p)
            return p;
    }
    return aligned_alloc(GNN_ALIGN, rounded);
}

void *gnn_malloc_scratch(size_t bytes)
{
    size_t rounded = (bytes + GNN_ALIGN - 1) / GNN_ALIGN * GNN_ALIGN;
    if (rounded < bytes)
        return NULL;
    return aligned_alloc(GNN_ALIGN, rounded ? rounded : GNN_ALIGN);
}

void *gnn_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    void *p = gnn_malloc(count * size);
    if (p)
        memset(p, 0, count * size);
    return p;
}

void *gnn_malloc_array(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    return gnn_malloc(count * size);
}

void gnn_free(void *p) { free(p); }

gnn_status gnn_tensor_alloc(gnn_tensor *t, int64_t rows, int64_t cols)
{
    t->data = NULL;
    t->rows = t->cols = 0;
    if (rows < 0 || cols < 0)
        return GNN_ERR_INVAL;
    float *d = gnn_calloc((size_t)rows * (size_t)cols, sizeof(float));
    if (!d)
        return GNN_ERR_NOMEM;
    t->data = d;
    t->rows = rows;
    t->cols = cols;
    return GNN_OK;
}

void gnn_tensor_free(gnn_tensor *t)
{
    gnn_free(t->data);
    t->data = NULL;
    t->rows = t->cols = 0;
}
