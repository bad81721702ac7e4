/* opt/cuda/quant_emu.c -- the `cuda-emu` quantization: the kernel bodies and host logic of
 * opt/cuda/quant.cu (quant_body.h, quant_host.h) run by the emulator (opt/cuda/emu.h) on the
 * CPU, so the oracle checks them on every machine. docs/cuda.md. */
#include "opt/cuda/quant_host.h"

const gnn_quant_ops gnn_quant_cuda_emu = {
    .name = "cuda-emu",
    .caps = 1u, /* GNN_CAP_DETERMINISTIC */
    .pack = qk_pack,
    .unpack = qk_unpack,
};
