/* opt/cuda/emu.h -- what a CUDA kernel's per-thread body needs so that it compiles twice: as CUDA
 * (the .cu files of opt/cuda, nvcc) and as C11 (their _emu.c files, the `cuda-emu` implementations, run by
 * the oracle on every machine). docs/cuda.md explains the tier.
 *
 * A kernel is written as a body `GNN_HD void foo_body(const gnn_kthread *t, int phase, void *shared,
 * const foo_args *a)`: what one thread does between two barriers (`phase` counts the
 * __syncthreads() passed). On a GPU the __global__ wrapper calls it phase by phase with
 * __syncthreads() between; the emulator (gnn_emu_launch) runs, for every block, phase 0 for
 * every thread, then phase 1 for every thread, ..., so index arithmetic, shared-memory layout
 * and barrier placement are exercised exactly, and a read of shared memory that a barrier does
 * not order shows up as a wrong result. Atomics go through the gnn_atomic_* helpers. */
#ifndef GNNREF_OPT_CUDA_EMU_H
#define GNNREF_OPT_CUDA_EMU_H

#include <stdint.h>
#include "opt/cpu/interleave_point.h"

#ifdef __CUDACC__
#define GNN_HD __host__ __device__
#define GNN_DEV __device__
#else
#define GNN_HD
#define GNN_DEV
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gnn_kdim {
    unsigned x, y, z;
} gnn_kdim;

/* One thread's coordinates: blockIdx, threadIdx, blockDim, gridDim. */
typedef struct gnn_kthread {
    gnn_kdim block, thread, block_dim, grid_dim;
} gnn_kthread;

/* Atomics: the device's on a GPU; on the host, GCC's __atomic builtins (the emulator runs one
 * thread at a time, but a body must not rely on that). Each returns the old value. The host
 * loops mark the windows before each CAS for the interleaving harness
 * (opt/cpu/interleave_point.h; empty outside its test unit). */
#if defined(__CUDA_ARCH__)
static __device__ __forceinline__ int32_t gnn_atomic_add_i32(int32_t *p, int32_t v) { return atomicAdd((int *)p, v); }
static __device__ __forceinline__ int32_t gnn_atomic_min_i32(int32_t *p, int32_t v) { return atomicMin((int *)p, v); }
static __device__ __forceinline__ int32_t gnn_atomic_cas_i32(int32_t *p, int32_t cmp, int32_t v)
{
    return atomicCAS((int *)p, cmp, v);
}
static __device__ __forceinline__ int64_t gnn_atomic_add_i64(int64_t *p, int64_t v)
{
    return (int64_t)atomicAdd((unsigned long long *)p, (unsigned long long)v);
}
static __device__ __forceinline__ int64_t gnn_atomic_min_i64(int64_t *p, int64_t v)
{
    return (int64_t)atomicMin((long long *)p, (long long)v);
}
static __device__ __forceinline__ int64_t gnn_atomic_cas_i64(int64_t *p, int64_t cmp, int64_t v)
{
    return (int64_t)atomicCAS((unsigned long long *)p, (unsigned long long)cmp, (unsigned long long)v);
}
#else
static inline int32_t gnn_atomic_add_i32(int32_t *p, int32_t v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
static inline int32_t gnn_atomic_min_i32(int32_t *p, int32_t v)
{
    int32_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
    GNN_INTERLEAVE_POINT();
    while (v < old && !__atomic_compare_exchange_n(p, &old, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        GNN_INTERLEAVE_POINT();
    }
    return old;
}
static inline int32_t gnn_atomic_cas_i32(int32_t *p, int32_t cmp, int32_t v)
{
    __atomic_compare_exchange_n(p, &cmp, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return cmp;
}
static inline int64_t gnn_atomic_add_i64(int64_t *p, int64_t v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
static inline int64_t gnn_atomic_min_i64(int64_t *p, int64_t v)
{
    int64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
    GNN_INTERLEAVE_POINT();
    while (v < old && !__atomic_compare_exchange_n(p, &old, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        GNN_INTERLEAVE_POINT();
    }
    return old;
}
static inline int64_t gnn_atomic_cas_i64(int64_t *p, int64_t cmp, int64_t v)
{
    __atomic_compare_exchange_n(p, &cmp, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return cmp;
}
#endif

#ifndef __CUDACC__
/* The emulator (opt/cuda/emu.c): for each block of grid (x fastest), a shared area of
 * shared_bytes with every bit set (uninitialized, as on a GPU), then for phase = 0 .. phases-1, body(t, phase, shared, args) for each thread of
 * the block (x fastest). Blocks run one after another, in order. Returns 0, or -1 when the
 * shared area cannot be allocated. */
typedef void (*gnn_emu_body)(const gnn_kthread *t, int phase, void *shared, const void *args);
int gnn_emu_launch(gnn_kdim grid, gnn_kdim block, int phases, size_t shared_bytes, gnn_emu_body body,
                   const void *args);
/* The same with a phase count per block: phases(t, args) with t->block, t->grid_dim and
 * t->block_dim set (t->thread zero), as a kernel whose loop over phases ends where its block's
 * work does (a GPU wrapper computes the same count, uniformly across the block, and runs that
 * many phases with a barrier between two). */
typedef int (*gnn_emu_phases)(const gnn_kthread *t, const void *args);
int gnn_emu_launch_blocks(gnn_kdim grid, gnn_kdim block, size_t shared_bytes, gnn_emu_phases phases,
                          gnn_emu_body body, const void *args);
/* Within a phase the threads of a block run in order of their linear id (x fastest); with
 * GNN_EMU_THREAD_ORDER=reverse in the environment, in the reverse order. A read of shared memory
 * that another thread writes in the same phase (a missing barrier) then gives a wrong result in
 * one of the two orders whichever thread is the writer: the tests run both. */
#endif

#ifdef __cplusplus
}
#endif
#endif
