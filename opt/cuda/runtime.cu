/* opt/cuda/runtime.cu -- gnn_cuda_available (include/gnnref/cuda.h) in a build with nvcc.
 * The CUDA runtime is linked statically: on a machine without the driver cudaGetDeviceCount
 * fails cleanly (no libcuda.so to load) and we say so. A probe kernel is looked up too, so a
 * card the kernels were not compiled for (an sm_90 cubin plus compute_90 PTX, Makefile
 * CUDA_GENCODE) is reported here, not as a failing launch later. */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <mutex>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/cuda.h"

static __global__ void gnn_cuda_probe_kernel(int *p)
{
    if (p)
        *p = 1;
}

static std::once_flag g_once;
static int g_ok;
static char g_why[256];

static void probe(void)
{
    const char *off = getenv("GNN_CUDA_DISABLE");
    if (off && *off && strcmp(off, "0") != 0) {
        snprintf(g_why, sizeof g_why, "no GPU: disabled by GNN_CUDA_DISABLE");
        return;
    }
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        /* the static runtime loads the driver's libcuda.so.1 itself; without it the error is
         * "insufficient driver", which reads as a version problem: say what it is */
        void *drv = e == cudaErrorInsufficientDriver ? dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD) : NULL;
        if (e == cudaErrorInsufficientDriver && !drv && !(drv = dlopen("libcuda.so.1", RTLD_LAZY)))
            snprintf(g_why, sizeof g_why, "no GPU: no CUDA driver (libcuda.so.1 not found)");
        else
            snprintf(g_why, sizeof g_why, "no GPU: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
        if (drv)
            dlclose(drv);
        (void)cudaGetLastError();
        return;
    }
    if (n <= 0) {
        snprintf(g_why, sizeof g_why, "no GPU: no CUDA device found");
        return;
    }
    int dev = 0;
    cudaDeviceProp prop;
    if ((e = cudaGetDevice(&dev)) != cudaSuccess || (e = cudaGetDeviceProperties(&prop, dev)) != cudaSuccess) {
        snprintf(g_why, sizeof g_why, "no GPU: %s", cudaGetErrorString(e));
        (void)cudaGetLastError();
        return;
    }
    cudaFuncAttributes attr;
    if ((e = cudaFuncGetAttributes(&attr, gnn_cuda_probe_kernel)) != cudaSuccess) {
        snprintf(g_why, sizeof g_why, "no usable GPU: %.120s (sm_%d%d) has no image of the kernels: %.80s", prop.name,
                 prop.major, prop.minor, cudaGetErrorString(e));
        (void)cudaGetLastError();
        return;
    }
    snprintf(g_why, sizeof g_why, "%.200s (sm_%d%d, %.1f GiB)", prop.name, prop.major, prop.minor,
             (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    g_ok = 1;
}

extern "C" int gnn_cuda_available(char *why, size_t cap)
{
    std::call_once(g_once, probe);
    if (why && cap)
        snprintf(why, cap, "%s", g_why);
    return g_ok;
}

extern "C" int gnn_cuda_built(void) { return 1; }
