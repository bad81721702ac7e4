/* opt/cuda/kbase.h -- what the kernels of opt/cuda share, so that one source of host logic
 * (opt/cuda/<name>_host.h) drives the bodies (<name>_body.h) twice: on a GPU (included by
 * <name>.cu, nvcc) and through the emulator (included by <name>_emu.c, C11). docs/cuda.md.
 *
 * Float math in bodies goes through GNN_FADD, GNN_FMUL, ... : on the device the explicitly
 * rounded intrinsics (__fadd_rn, ...: never contracted into an FMA, IEEE division and square
 * root whatever the flags), on the host the plain operators under -ffp-contract=off. Both
 * round each operation once to nearest even, as ref/ does.
 *
 * Kernels: a body `static GNN_HD void NAME_body(const gnn_kthread *t, int phase, void *shared,
 * const NAME_args *a)` and a phase count `static GNN_HD int NAME_phases(const gnn_kthread *t,
 * const NAME_args *a)` (the same for every thread of a block), then GNN_KERNEL(NAME) makes the
 * __global__ wrapper (CUDA) or the emulator adapters (C), and GNN_K_LAUNCH(NAME, grid, block,
 * shared_bytes, args) launches it. Buffers: GNN_K_ALLOC, GNN_K_FREE, GNN_K_PUT (host to
 * device), GNN_K_GET (device to host), GNN_K_ZERO; each evaluates to a gnn_status. */
#ifndef GNNREF_OPT_CUDA_KBASE_H
#define GNNREF_OPT_CUDA_KBASE_H

#include <stdint.h>
#include <string.h>
#include "gnnref/status.h"
#include "opt/cuda/emu.h"

#if defined(__CUDA_ARCH__)
#define GNN_FADD(a, b) __fadd_rn((a), (b))
#define GNN_FSUB(a, b) __fsub_rn((a), (b))
#define GNN_FMUL(a, b) __fmul_rn((a), (b))
#define GNN_FDIV(a, b) __fdiv_rn((a), (b))
#define GNN_FSQRT(a) __fsqrt_rn(a)
#define GNN_DSUB(a, b) __dsub_rn((a), (b))
#define GNN_DDIV(a, b) __ddiv_rn((a), (b))
#define GNN_D2F(a) __double2float_rn(a)
#define GNN_F2U(f) __float_as_uint(f)
#define GNN_U2F(u) __uint_as_float(u)
#else
#include <math.h>
#define GNN_FADD(a, b) ((a) + (b))
#define GNN_FSUB(a, b) ((a) - (b))
#define GNN_FMUL(a, b) ((a) * (b))
#define GNN_FDIV(a, b) ((a) / (b))
#define GNN_FSQRT(a) sqrtf(a)
#define GNN_DSUB(a, b) ((a) - (b))
#define GNN_DDIV(a, b) ((a) / (b))
#define GNN_D2F(a) ((float)(a))
static inline uint32_t gnn_k_f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static inline float gnn_k_u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
#define GNN_F2U(f) gnn_k_f2u(f)
#define GNN_U2F(u) gnn_k_u2f(u)
#endif

/* Linear thread id within the block, and the block's thread count. */
static inline GNN_HD unsigned gnn_k_tid(const gnn_kthread *t)
{
    return t->thread.x + t->block_dim.x * (t->thread.y + t->block_dim.y * t->thread.z);
}

static inline gnn_kdim gnn_k_dim(unsigned x, unsigned y, unsigned z)
{
    gnn_kdim d;
    d.x = x;
    d.y = y;
    d.z = z;
    return d;
}

/* Blocks of `per` covering n (n >= 0): the grid's x or y. */
static inline unsigned gnn_k_blocks(int64_t n, int64_t per) { return (unsigned)((n + per - 1) / per); }

#if defined(__CUDACC__)
/* ---- CUDA: the __global__ wrapper runs the block's phases with a barrier between two ---- */
#include <cuda_runtime.h>
#include "opt/cuda/cuda_util.h"

#define GNN_KERNEL(NAME, ARGS)                                                                                     \
    static __global__ void NAME##_kernel(ARGS a)                                                                   \
    {                                                                                                              \
        extern __shared__ __align__(16) unsigned char gnn_k_shared_[];                                            \
        gnn_kthread t;                                                                                             \
        t.block.x = blockIdx.x, t.block.y = blockIdx.y, t.block.z = blockIdx.z;                                    \
        t.thread.x = threadIdx.x, t.thread.y = threadIdx.y, t.thread.z = threadIdx.z;                              \
        t.block_dim.x = blockDim.x, t.block_dim.y = blockDim.y, t.block_dim.z = blockDim.z;                        \
        t.grid_dim.x = gridDim.x, t.grid_dim.y = gridDim.y, t.grid_dim.z = gridDim.z;                              \
        const int np = NAME##_phases(&t, &a);                                                                      \
        for (int p = 0; p < np; p++) {                                                                             \
            if (p)                                                                                                 \
                __syncthreads();                                                                                   \
            NAME##_body(&t, p, gnn_k_shared_, &a);                                                                 \
        }                                                                                                          \
    }

static inline gnn_status gnn_k_launch_check(void)
{
    cudaError_t e = cudaGetLastError();
    return gnn_cuda_status(e);
}
#define GNN_K_LAUNCH(NAME, GRID, BLOCK, SHARED, ARGS)                                                              \
    (((GRID).x == 0 || (GRID).y == 0 || (GRID).z == 0)                                                             \
         ? GNN_OK                                                                                                  \
         : (NAME##_kernel<<<dim3((GRID).x, (GRID).y, (GRID).z), dim3((BLOCK).x, (BLOCK).y, (BLOCK).z),             \
                            (SHARED)>>>(ARGS),                                                                     \
            gnn_k_launch_check()))

static inline gnn_status gnn_k_alloc(void **p, size_t bytes)
{
    *p = NULL;
    return bytes ? gnn_cuda_status(cudaMalloc(p, bytes)) : GNN_OK;
}
#define GNN_K_ALLOC(PP, BYTES) gnn_k_alloc((void **)(PP), (size_t)(BYTES))
#define GNN_K_FREE(P) ((P) ? (void)cudaFree((void *)(P)) : (void)0)
static inline gnn_status gnn_k_put(void *dev, const void *host, size_t bytes)
{
    return bytes ? gnn_cuda_status(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice)) : GNN_OK;
}
static inline gnn_status gnn_k_get(void *host, const void *dev, size_t bytes)
{
    return bytes ? gnn_cuda_status(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost)) : GNN_OK;
}
static inline gnn_status gnn_k_zero(void *dev, size_t bytes)
{
    return bytes ? gnn_cuda_status(cudaMemset(dev, 0, bytes)) : GNN_OK;
}
/* the end of the host logic: wait for the kernels, report their errors */
#define GNN_K_SYNC() gnn_cuda_status(cudaDeviceSynchronize())
#else
/* ---- the emulator: "device" buffers are host memory ---- */
#include "gnnref/tensor.h"

#define GNN_KERNEL(NAME, ARGS)                                                                                     \
    static inline void NAME##_emu(const gnn_kthread *t, int p, void *sh, const void *a)                                 \
    {                                                                                                              \
        NAME##_body(t, p, sh, (const ARGS *)a);                                                                    \
    }                                                                                                              \
    static inline int NAME##_emu_phases(const gnn_kthread *t, const void *a) { return NAME##_phases(t, (const ARGS *)a); }

#define GNN_K_LAUNCH(NAME, GRID, BLOCK, SHARED, ARGS)                                                              \
    (gnn_emu_launch_blocks((GRID), (BLOCK), (SHARED), NAME##_emu_phases, NAME##_emu, &(ARGS)) ? GNN_ERR_NOMEM      \
                                                                                              : GNN_OK)
static inline gnn_status gnn_k_alloc(void **p, size_t bytes)
{
    *p = NULL;
    if (!bytes)
        return GNN_OK;
    return (*p = gnn_malloc(bytes)) ? GNN_OK : GNN_ERR_NOMEM;
}
#define GNN_K_ALLOC(PP, BYTES) gnn_k_alloc((void **)(PP), (size_t)(BYTES))
#define GNN_K_FREE(P) gnn_free((void *)(P))
static inline gnn_status gnn_k_put(void *dev, const void *host, size_t bytes)
{
    if (bytes)
        memcpy(dev, host, bytes);
    return GNN_OK;
}
static inline gnn_status gnn_k_get(void *host, const void *dev, size_t bytes)
{
    if (bytes)
        memcpy(host, dev, bytes);
    return GNN_OK;
}
static inline gnn_status gnn_k_zero(void *dev, size_t bytes)
{
    if (bytes)
        memset(dev, 0, bytes);
    return GNN_OK;
}
#define GNN_K_SYNC() GNN_OK
#endif

#define GNN_K_PUT(DEV, HOST, BYTES) gnn_k_put((DEV), (HOST), (size_t)(BYTES))
#define GNN_K_GET(HOST, DEV, BYTES) gnn_k_get((HOST), (DEV), (size_t)(BYTES))
#define GNN_K_ZERO(DEV, BYTES) gnn_k_zero((DEV), (size_t)(BYTES))

/* Host logic: `GNN_K_CHECK(expr)` stores a failing status in the local `st` and jumps to the
 * function's `done:` label, where every buffer is freed. */
#define GNN_K_CHECK(expr)                                                                                          \
    do {                                                                                                           \
        if ((st = (expr)) != GNN_OK)                                                                               \
            goto done;                                                                                             \
    } while (0)

#endif
