/* opt/cuda/sample.cu -- the CUDA sampler's __global__ wrappers and the `cuda` sampler tables.
 * The host logic is opt/cuda/sample_host.c (plain C over the device interface, shared with
 * `cuda-emu`); the per-thread bodies are opt/cuda/sample_body.h; the device (memory, the other
 * launches) is opt/cuda/idmap.cu. docs/cuda_sampling.md. */
#include <cuda_runtime.h>
#include "gnnref/aggregate.h" /* GNN_CAP_* */
#include "gnnref/cuda.h"
#include "gnnref/sample.h"
#include "opt/cuda/idmap_host.h"
#include "opt/cuda/idmap_kernel.h"
#include "opt/cuda/sample_body.h"
#include "opt/cuda/sample_host.h"

extern "C" int gnn_cuda_sample_launch(gnn_kid k, gnn_kdim g, gnn_kdim b, int phases, size_t shared, const void *args)
{
    switch (k) {
    case GNN_K_SAMPLE_COUNT:
        return gnn_klaunch<gnn_ksample_count_body, gnn_ksample_args>(g, b, phases, shared, args);
    case GNN_K_SAMPLE_DRAW: return gnn_klaunch<gnn_ksample_draw_body, gnn_ksample_args>(g, b, phases, shared, args);
    default: return -1;
    }
}

static gnn_status cu_create(void **state, const gnn_csr *g, const gnn_sampler_options *o)
{
    *state = NULL;
    if (!gnn_cuda_available(NULL, 0))
        return GNN_ERR_UNSUPPORTED; /* the oracle says SKIP, with the reason */
    return gnn_ksampler_create(state, &gnn_kdev_cuda, g, o);
}

extern "C" const gnn_sampler_ops gnn_sampler_cuda = {
    "cuda", GNN_CAP_DETERMINISTIC, cu_create, gnn_ksampler_layer, NULL, gnn_ksampler_destroy,
};
