/* core/tensor.c -- 64-byte aligned allocation and dense f32 matrices. */
#include <stdlib.h>
#include <string.h>
#include "gnnref/tensor.h"

void *gnn_malloc(size_t bytes)
{
    /* aligned_alloc needs a size that is a multiple of the alignment */
    size_t rounded = (bytes + GNN_ALIGN - 1) / GNN_ALIGN * GNN_ALIGN;
    if (rounded < bytes)
        return NULL;
    if (rounded == 0)
        rounded = GNN_ALIGN;
    return aligned_alloc(GNN_ALIGN, rounded);
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
