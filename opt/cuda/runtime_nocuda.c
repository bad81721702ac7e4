/* opt/cuda/runtime_nocuda.c -- the CUDA tier of a build without nvcc (or with NO_CUDA=1): the
 * Makefile compiles opt/cuda/ *_nocuda.c only then, in place of the .cu files. The `cuda` tables
 * exist, named "cuda" with no ops (the checked entry points answer GNN_ERR_UNSUPPORTED), and
 * gnn_cuda_available says why there is no GPU, so the oracle reports SKIP (docs/cuda.md). */
#include <stdio.h>
#include "gnnref/aggregate.h"
#include "gnnref/cuda.h"
#include "gnnref/quant.h"

int gnn_cuda_available(char *why, size_t cap)
{
    if (why && cap)
        snprintf(why, cap, "no GPU: built without CUDA (nvcc not found, or NO_CUDA=1)");
    return 0;
}

int gnn_cuda_built(void) { return 0; }

const gnn_aggregate_ops gnn_aggregate_cuda = { .name = "cuda", .caps = GNN_CAP_DETERMINISTIC };
const gnn_quant_ops gnn_quant_cuda = { .name = "cuda", .caps = 1u };
