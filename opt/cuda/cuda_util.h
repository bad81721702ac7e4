/* opt/cuda/cuda_util.h -- what the .cu files of opt/cuda share (CUDA C++ only): turning CUDA
 * errors into gnn_status, and device buffers that free themselves. docs/cuda.md. */
#ifndef GNNREF_OPT_CUDA_UTIL_H
#define GNNREF_OPT_CUDA_UTIL_H

#include <cuda_runtime.h>
#include <stddef.h>
#include "gnnref/status.h"

/* A CUDA error as a gnn_status: allocation failures are GNN_ERR_NOMEM, a missing device or
 * kernel image GNN_ERR_UNSUPPORTED, anything else GNN_ERR_INTERNAL. */
static inline gnn_status gnn_cuda_status(cudaError_t e)
{
    switch (e) {
    case cudaSuccess:
        return GNN_OK;
    case cudaErrorMemoryAllocation:
        return GNN_ERR_NOMEM;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorNoKernelImageForDevice:
        return GNN_ERR_UNSUPPORTED;
    default:
        return GNN_ERR_INTERNAL;
    }
}

/* Evaluate a CUDA call; on error, return its gnn_status from the enclosing function (after
 * clearing the sticky "last error"). */
#define GNN_CUDA_TRY(call)                                                                                         \
    do {                                                                                                           \
        cudaError_t gnn_cuda_e_ = (call);                                                                          \
        if (gnn_cuda_e_ != cudaSuccess) {                                                                          \
            (void)cudaGetLastError();                                                                              \
            return gnn_cuda_status(gnn_cuda_e_);                                                                   \
        }                                                                                                          \
    } while (0)

/* A device allocation freed at scope exit. */
struct gnn_dbuf {
    void *p = nullptr;
    gnn_dbuf() = default;
    gnn_dbuf(const gnn_dbuf &) = delete;
    gnn_dbuf &operator=(const gnn_dbuf &) = delete;
    ~gnn_dbuf()
    {
        if (p)
            cudaFree(p);
    }
    /* bytes == 0 allocates nothing and leaves p NULL */
    cudaError_t alloc(size_t bytes) { return bytes ? cudaMalloc(&p, bytes) : cudaSuccess; }
    template <typename T> T *as() const { return static_cast<T *>(p); }
};

/* Copy host -> device (nothing for 0 bytes). */
static inline cudaError_t gnn_cuda_put(gnn_dbuf &d, const void *h, size_t bytes)
{
    cudaError_t e = d.alloc(bytes);
    if (e == cudaSuccess && bytes)
        e = cudaMemcpy(d.p, h, bytes, cudaMemcpyHostToDevice);
    return e;
}

#endif
