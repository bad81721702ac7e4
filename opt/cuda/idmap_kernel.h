/* opt/cuda/idmap_kernel.h -- the one __global__ wrapper of the sampler's and the ID maps' kernels
 * (nvcc only; opt/cuda/idmap.cu, opt/cuda/sample.cu). A body (opt/cuda/emu.h) is what one thread
 * does between two barriers; the wrapper runs phase 0, __syncthreads(), phase 1, ... exactly the
 * schedule gnn_emu_launch emulates on the host. Every thread of a block runs every phase (bodies
 * return early for out-of-range threads), so every thread reaches every barrier. */
#ifndef GNNREF_OPT_CUDA_IDMAP_KERNEL_H
#define GNNREF_OPT_CUDA_IDMAP_KERNEL_H
#ifdef __CUDACC__

#include <cuda_runtime.h>
#include "opt/cuda/emu.h"

typedef void (*gnn_kbody)(const gnn_kthread *, int, void *, const void *);

template <gnn_kbody Body, typename A>
__global__ void gnn_kernel(A a, int phases)
{
    extern __shared__ __align__(16) unsigned char gnn_kshared[];
    gnn_kthread t;
    t.block.x = blockIdx.x, t.block.y = blockIdx.y, t.block.z = blockIdx.z;
    t.thread.x = threadIdx.x, t.thread.y = threadIdx.y, t.thread.z = threadIdx.z;
    t.block_dim.x = blockDim.x, t.block_dim.y = blockDim.y, t.block_dim.z = blockDim.z;
    t.grid_dim.x = gridDim.x, t.grid_dim.y = gridDim.y, t.grid_dim.z = gridDim.z;
    for (int ph = 0; ph < phases; ph++) {
        if (ph)
            __syncthreads();
        Body(&t, ph, gnn_kshared, &a);
    }
}

/* Launch Body over grid x block with the argument struct *args (copied by value); 0 or -1. */
template <gnn_kbody Body, typename A>
static int gnn_klaunch(gnn_kdim g, gnn_kdim b, int phases, size_t shared, const void *args)
{
    const dim3 grid(g.x, g.y, g.z), block(b.x, b.y, b.z);
    gnn_kernel<Body, A><<<grid, block, shared>>>(*(const A *)args, phases);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

#endif
#endif
