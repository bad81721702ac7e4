/* opt/cuda/sample_emu.c -- the `cuda-emu` samplers: the host logic of opt/cuda/sample_host.c over
 * the emulated device (gnn_kdev_emu, opt/cuda/idmap_emu.c), which runs the CUDA kernels'
 * per-thread bodies (opt/cuda/sample_body.h, opt/cuda/idmap_body.h) on the CPU, block by block
 * and thread by thread. Passes the same oracle entries as the `cuda` tables, on every machine.
 * docs/cuda_sampling.md. */
#include "gnnref/aggregate.h" /* GNN_CAP_* */
#include "gnnref/sample.h"
#include "opt/cuda/sample_host.h"

static gnn_status emu_create(void **state, const gnn_csr *g, const gnn_sampler_options *o)
{
    return gnn_ksampler_create(state, &gnn_kdev_emu, g, o);
}

const gnn_sampler_ops gnn_sampler_cuda_emu = {
    .name = "cuda-emu",
    .caps = GNN_CAP_DETERMINISTIC,
    .create = emu_create,
    .layer = gnn_ksampler_layer,
    .blocks = NULL, /* the generic layer loop */
    .destroy = gnn_ksampler_destroy,
};
