/* opt/cuda/idmap.cu -- the CUDA device (gnn_kdev_cuda: cudaMalloc, cudaMemcpy, launches of the
 * __global__ wrappers of opt/cuda/idmap_kernel.h) and the `cuda` ID map table
 * (gnn_cuda_available, include/gnnref/cuda.h, says whether a GPU is there). The host logic is opt/cuda/idmap_host.c (plain C, shared with `cuda-emu`); the kernels'
 * per-thread bodies are opt/cuda/idmap_body.h. docs/cuda_sampling.md. Built by nvcc; no fast
 * math (--fmad=false; the maps are integer code anyway). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include "gnnref/aggregate.h" /* GNN_CAP_* */
#include "gnnref/cuda.h"
#include "gnnref/idmap.h"
#include "opt/cuda/idmap_body.h"
#include "opt/cuda/idmap_host.h"
#include "opt/cuda/idmap_kernel.h"

/* sample.cu: the sampler's kernels (GNN_K_SAMPLE_*) */
extern "C" int gnn_cuda_sample_launch(gnn_kid k, gnn_kdim grid, gnn_kdim block, int phases, size_t shared,
                                      const void *args);

/* ---- the device ----------------------------------------------------------------------------- */

static void *cu_alloc(size_t bytes)
{
    void *p = NULL;
    return cudaMalloc(&p, bytes ? bytes : 1) == cudaSuccess ? p : NULL;
}
static void cu_release(void *p)
{
    if (p)
        cudaFree(p);
}
static int cu_to_dev(void *dst, const void *src, size_t bytes)
{
    return bytes && cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice) != cudaSuccess ? -1 : 0;
}
static int cu_to_host(void *dst, const void *src, size_t bytes)
{
    return bytes && cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost) != cudaSuccess ? -1 : 0;
}
static int cu_fill(void *dst, int byte, size_t bytes)
{
    return bytes && cudaMemset(dst, byte, bytes) != cudaSuccess ? -1 : 0;
}
static int cu_sync(void) { return cudaDeviceSynchronize() == cudaSuccess ? 0 : -1; }

static int cu_launch(gnn_kid k, gnn_kdim g, gnn_kdim b, int phases, size_t shared, const void *args)
{
    switch (k) {
    case GNN_K_SCAN_TILE: return gnn_klaunch<gnn_kscan_tile_body, gnn_kscan_args>(g, b, phases, shared, args);
    case GNN_K_SCAN_ADD: return gnn_klaunch<gnn_kscan_add_body, gnn_kscan_args>(g, b, phases, shared, args);
    case GNN_K_MAP_ORDERED_INSERT:
        return gnn_klaunch<gnn_kmap_ordered_insert_body, gnn_kmap_args>(g, b, phases, shared, args);
    case GNN_K_MAP_ORDERED_FLAG:
        return gnn_klaunch<gnn_kmap_ordered_flag_body, gnn_kmap_args>(g, b, phases, shared, args);
    case GNN_K_MAP_ORDERED_ASSIGN:
        return gnn_klaunch<gnn_kmap_ordered_assign_body, gnn_kmap_args>(g, b, phases, shared, args);
    case GNN_K_MAP_FUSED_DST: return gnn_klaunch<gnn_kmap_fused_dst_body, gnn_kmap_args>(g, b, phases, shared, args);
    case GNN_K_MAP_FUSED_NBR: return gnn_klaunch<gnn_kmap_fused_nbr_body, gnn_kmap_args>(g, b, phases, shared, args);
    case GNN_K_MAP_FUSED_RELABEL:
        return gnn_klaunch<gnn_kmap_fused_relabel_body, gnn_kmap_args>(g, b, phases, shared, args);
    case GNN_K_SAMPLE_COUNT:
    case GNN_K_SAMPLE_DRAW: return gnn_cuda_sample_launch(k, g, b, phases, shared, args);
    default: return -1;
    }
}

extern "C" const gnn_kdev gnn_kdev_cuda = {
    "cuda", cu_alloc, cu_release, cu_to_dev, cu_to_host, cu_fill, cu_launch, cu_sync,
};

/* ---- the `cuda` ID map table ------------------------------------------------------------------ */

static gnn_status cu_create(void **state, gnn_idmap_kind kind, int64_t n_vertices)
{
    *state = NULL;
    if (!gnn_cuda_available(NULL, 0))
        return GNN_ERR_UNSUPPORTED; /* the oracle says SKIP, with the reason */
    return gnn_kidmap_create(state, &gnn_kdev_cuda, kind, n_vertices);
}

static void cu_destroy(void *state)
{
    if (state)
        gnn_kidmap_destroy(state);
}

extern "C" const gnn_idmap_ops gnn_idmap_cuda = {
    "cuda", GNN_CAP_DETERMINISTIC, cu_create, gnn_kidmap_build, cu_destroy,
};
