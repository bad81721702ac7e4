/* opt/cuda/impl_cuda.c -- the CUDA tier's part of the cuda and cuda-emu contexts
 * (include/gnnref/impl.h, docs/cuda.md section 7): each overrides, on top of opt, the tables the
 * tier has. The cuda tables run the kernels on a GPU (in a build without nvcc they are the stubs
 * of the opt/cuda *_nocuda.c files, and the context's runnable says why it cannot run); the cuda-emu tables
 * run the same kernel bodies and host logic on the CPU through the emulator. All four are bitwise
 * their references, as opt's tables are, so a context's step losses are opt's. Compiled in every
 * build. */
#include "gnnref/impl.h"

void gnn_impl_override_cuda(gnn_impl *c)
{
    c->aggregate = &gnn_aggregate_cuda; /* FastGL's Memory-Aware gather: ref's order, bitwise */
    c->quant = &gnn_quant_cuda;         /* int2/4/8 pack and unpack: ref's codes, bitwise */
    c->sampler = &gnn_sampler_cuda;     /* one thread per dst, the keyed draws; uniform only */
    c->idmap = &gnn_idmap_cuda;         /* ordered map: first appearance by atomic min and a scan */
}

void gnn_impl_override_cuda_emu(gnn_impl *c)
{
    c->aggregate = &gnn_aggregate_cuda_emu;
    c->quant = &gnn_quant_cuda_emu;
    c->sampler = &gnn_sampler_cuda_emu;
    c->idmap = &gnn_idmap_cuda_emu;
}
