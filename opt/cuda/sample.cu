/* opt/cuda/sample.cu -- the CUDA sampler's __global__ wrappers and the `cuda` sampler tables.
 * The host logic is opt/cuda/sample_host.c (plain C over the device interface, shared with
 * `cuda-emu`); the per-thread bodies are opt/cuda/sample_body.h; the device (memory, the other
 * launches) is opt/cuda/idmap.cu. docs/cuda_sampling.md. */
#include <cuda_runtime.h>
#include <string.h>
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

static gnn_status cu_sample(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                            gnn_sampled *out)
{
    memset(out, 0, sizeof *out);
    if (!gnn_cuda_available(NULL, 0))
        return GNN_ERR_UNSUPPORTED;
    return gnn_ksample_uniform(&gnn_kdev_cuda, g, seeds, n_seeds, p, out);
}

static gnn_status cu_build(const gnn_sampled *s, gnn_block *out)
{
    if (!gnn_cuda_available(NULL, 0))
        return GNN_ERR_UNSUPPORTED;
    return gnn_kblock_build(&gnn_kdev_cuda, s, out);
}

extern "C" const gnn_sample_ops gnn_sample_cuda = { "cuda", cu_sample, cu_build };
