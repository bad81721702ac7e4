/* opt/cuda/quant.cu -- int2/4/8 quantize + pack and unpack on a GPU: the bodies of
 * opt/cuda/quant_body.h as __global__ kernels, driven by opt/cuda/quant_host.h. Bitwise equal
 * to ref/quant.c (the same keyed Philox draws; docs/cuda.md); opt/cuda/quant_emu.c runs the
 * same code through the emulator. */
#include "opt/cuda/quant_host.h"

extern "C" const gnn_quant_ops gnn_quant_cuda = { "cuda", 1u /* GNN_CAP_DETERMINISTIC */, qk_pack, qk_unpack };
