/* opt/cuda/aggregate.cu -- Memory-Aware aggregation on a GPU (FastGL Sec. 4.2): the bodies of
 * opt/cuda/aggregate_body.h as __global__ kernels, driven by opt/cuda/aggregate_host.h.
 * Bitwise equal to ref/aggregate.c (docs/cuda.md); opt/cuda/aggregate_emu.c runs the same
 * code through the emulator. */
#include "opt/cuda/aggregate_host.h"

extern "C" const gnn_aggregate_ops gnn_aggregate_cuda = {
    "cuda", GNN_CAP_DETERMINISTIC, agg_k_fwd, agg_k_bwd, agg_k_wfwd, agg_k_wbwd,
};
