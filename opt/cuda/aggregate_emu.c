/* opt/cuda/aggregate_emu.c -- the `cuda-emu` aggregation: the kernel bodies and host logic of
 * opt/cuda/aggregate.cu (aggregate_body.h, aggregate_host.h) run by the emulator
 * (opt/cuda/emu.h) on the CPU, so their index arithmetic and barriers are checked by the
 * oracle on every machine. Slow by design. docs/cuda.md. */
#include "opt/cuda/aggregate_host.h"

const gnn_aggregate_ops gnn_aggregate_cuda_emu = {
    .name = "cuda-emu",
    .caps = GNN_CAP_DETERMINISTIC,
    .forward = agg_k_fwd,
    .backward = agg_k_bwd,
    .weighted_forward = agg_k_wfwd,
    .weighted_backward = agg_k_wbwd,
};
