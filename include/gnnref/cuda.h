/* include/gnnref/cuda.h -- is the CUDA tier usable here? (docs/cuda.md)
 *
 * Every `cuda` implementation (the ops tables gnn_aggregate_cuda, gnn_quant_cuda, ... declared
 * next to the other tables of their subsystem) needs a GPU at run time; the oracle asks this
 * function first and reports SKIP with its reason when it says no. The `cuda-emu` tables run
 * the same kernel bodies on the CPU and need nothing. */
#ifndef GNNREF_CUDA_H
#define GNNREF_CUDA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when this build has the CUDA tier (nvcc was found) and a device it can run on is present;
 * else 0, with the reason in why (cap bytes, NUL-terminated, may be NULL): "built without
 * CUDA", no driver, no device, or a device the kernels were not compiled for. The answer is
 * computed once per process (thread-safe) and never crashes on a machine without a driver.
 * GNN_CUDA_DISABLE=1 in the environment makes it say no ("disabled by GNN_CUDA_DISABLE"). */
int gnn_cuda_available(char *why, size_t cap);

/* 1 when the library was built with nvcc (the `cuda` tables hold kernels), else 0. */
int gnn_cuda_built(void);

#ifdef __cplusplus
}
#endif
#endif
