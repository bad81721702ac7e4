/* include/gnnref/index_add.h -- index_add / scatter-add (SuperGCN section 2, "index_add").
 *
 * For i = 0, 1, ..., n-1 in this order: out[idx[i]][:] += src[i][:]   (PyTorch's
 * out.index_add_(0, idx, src)). out (n_out, d) is read and written; src (n, d); idx (n).
 * The order of additions into each out row is part of the contract (ascending i), so an
 * optimized version that keeps it (sort the index stably, then 2D-parallel over rows x
 * feature columns, no atomics) is bitwise equal to the reference.
 * An idx value outside [0, n_out) returns GNN_ERR_RANGE before anything is written. */
#ifndef GNNREF_INDEX_ADD_H
#define GNNREF_INDEX_ADD_H

#include <stdint.h>
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gnn_index_add_ops {
    const char *name; /* "ref", "cpu" */
    unsigned caps;    /* GNN_CAP_* of aggregate.h */
    gnn_status (*run)(float *out, int64_t n_out, int64_t d, const int64_t *idx, const float *src, int64_t n);
} gnn_index_add_ops;

extern const gnn_index_add_ops gnn_index_add_ref, gnn_index_add_cpu;

/* The public entry point (core/ops/kernels.c): checks the arguments and every index, then calls
 * ops->run, whose body assumes valid input. GNN_ERR_INVAL: ops NULL, n_out, d or n < 0, idx
 * NULL with n > 0, src or out NULL with n * d > 0. GNN_ERR_RANGE: an idx[i] outside
 * [0, n_out). Either way out is unchanged. GNN_ERR_UNSUPPORTED: ops->run is NULL. */
gnn_status gnn_index_add_run(const gnn_index_add_ops *ops, float *out, int64_t n_out, int64_t d, const int64_t *idx,
                             const float *src, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
