/* include/gnnref/tensor.h -- 64-byte aligned buffers and dense f32 matrices.
 *
 * Every f32 buffer in gnnref is 64-byte aligned (one cache line, one AVX-512 vector)
 * and row-major. A gnn_tensor owns its data; views are plain (pointer, rows, cols). */
#ifndef GNNREF_TENSOR_H
#define GNNREF_TENSOR_H

#include <stdint.h>
#include <stddef.h>
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GNN_ALIGN 64

/* Aligned allocation; size 0 returns a valid unique pointer. Free with gnn_free. */
void *gnn_malloc(size_t bytes);
void *gnn_calloc(size_t count, size_t size); /* zeroed; checks count*size overflow */
void *gnn_malloc_array(size_t count, size_t size); /* not zeroed; NULL when count*size overflows */
void gnn_free(void *p);
/* The same, 2 MiB aligned with a transparent-huge-page hint (gnn_malloc does this by itself
 * from 4 MiB up). Free with gnn_free. */
void *gnn_malloc_huge(size_t bytes);
/* 64-byte aligned, never the huge-page path: for buffers that live one training step and are
 * allocated again the next (activations, masks, gathered features). The C library keeps freed
 * blocks of that size for reuse, where a fresh huge-page mapping every step would be zeroed by
 * the kernel each time (a quarter of a SAGE epoch's time before; docs/performance.md). */
void *gnn_malloc_scratch(size_t bytes);

typedef struct gnn_tensor {
    float *data;  /* (rows, cols) row-major, 64-byte aligned */
    int64_t rows;
    int64_t cols;
} gnn_tensor;

gnn_status gnn_tensor_alloc(gnn_tensor *t, int64_t rows, int64_t cols); /* zeroed */
void gnn_tensor_free(gnn_tensor *t);
static inline float *gnn_tensor_row(const gnn_tensor *t, int64_t r) { return t->data + r * t->cols; }

#ifdef __cplusplus
}
#endif
#endif
