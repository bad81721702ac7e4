/* opt/cuda/sample_host.h -- the host side of the CUDA sampler (opt/cuda/sample_host.c), written
 * once in C11 over the device interface of opt/cuda/idmap_host.h, and the tables' bodies that
 * the `cuda` (opt/cuda/sample.cu) and `cuda-emu` (opt/cuda/sample_emu.c) tables wrap.
 * Internal to the library. */
#ifndef GNNREF_OPT_CUDA_SAMPLE_HOST_H
#define GNNREF_OPT_CUDA_SAMPLE_HOST_H

#include "gnnref/sample.h"
#include "opt/cuda/idmap_host.h"

#ifdef __cplusplus
extern "C" {
#endif

/* gnn_sampler_ops bodies over dev. create copies the graph to the device (it stays resident for
 * the sampler's life); GNN_ERR_UNSUPPORTED for a typed sampler's options (etype). layer:
 * uniform sampling, then the ID map of o->idmap (FUSED: FastGL's Fused-Map; every other kind the
 * ordered map, which reproduces the reference); o->variant FUSED inserts every sample into the
 * map as it is drawn, UNFUSED in a kernel of its own. Weighted parameters: GNN_ERR_UNSUPPORTED,
 * after the entry point (gnn_sampler_layer) has checked the seeds and the weights of their rows
 * as for every sampler (docs/cuda_sampling.md). */
gnn_status gnn_ksampler_create(void **state, const gnn_kdev *dev, const gnn_csr *g, const gnn_sampler_options *o);
gnn_status gnn_ksampler_layer(void *state, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                              gnn_block *out);
void gnn_ksampler_destroy(void *state);

#ifdef __cplusplus
}
#endif
#endif
