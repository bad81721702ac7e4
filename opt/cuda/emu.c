/* opt/cuda/emu.c -- the CUDA emulator behind the `cuda-emu` implementations (opt/cuda/emu.h):
 * runs a kernel's per-thread body block by block, phase by phase (a phase ends at a barrier),
 * thread by thread, on the host. Slow by design: it exists to test the kernels' index
 * arithmetic and barrier placement on machines without a GPU (docs/cuda.md). */
#include <stdlib.h>
#include <string.h>
#include "opt/cuda/emu.h"

typedef struct fixed_phases {
    int n;
} fixed_phases;

static int phases_fixed(const gnn_kthread *t, const void *args)
{
    (void)t;
    return ((const fixed_phases *)args)->n;
}

static int launch(gnn_kdim grid, gnn_kdim block, size_t shared_bytes, gnn_emu_phases phases, const void *phases_arg,
                  gnn_emu_body body, const void *args)
{
    void *shared = malloc(shared_bytes ? shared_bytes : 1);
    if (!shared)
        return -1;
    const char *order = getenv("GNN_EMU_THREAD_ORDER");
    const int reverse = order && strcmp(order, "reverse") == 0;
    const unsigned long nthreads = (unsigned long)block.x * block.y * block.z;
    gnn_kthread t = { .block_dim = block, .grid_dim = grid };
    for (t.block.z = 0; t.block.z < grid.z; t.block.z++)
        for (t.block.y = 0; t.block.y < grid.y; t.block.y++)
            for (t.block.x = 0; t.block.x < grid.x; t.block.x++) {
                /* a block's shared area starts as garbage, as on a GPU: all bits set (floats NaN,
                 * integers -1), so a body that reads before it writes gives a wrong result */
                memset(shared, 0xff, shared_bytes);
                t.thread.x = t.thread.y = t.thread.z = 0;
                const int np = phases(&t, phases_arg);
                for (int phase = 0; phase < np; phase++)
                    for (unsigned long k = 0; k < nthreads; k++) {
                        const unsigned long id = reverse ? nthreads - 1 - k : k;
                        t.thread.x = (unsigned)(id % block.x);
                        t.thread.y = (unsigned)(id / block.x % block.y);
                        t.thread.z = (unsigned)(id / block.x / block.y);
                        body(&t, phase, shared, args);
                    }
            }
    free(shared);
    return 0;
}

int gnn_emu_launch(gnn_kdim grid, gnn_kdim block, int phases, size_t shared_bytes, gnn_emu_body body,
                   const void *args)
{
    const fixed_phases f = { phases };
    return launch(grid, block, shared_bytes, phases_fixed, &f, body, args);
}

int gnn_emu_launch_blocks(gnn_kdim grid, gnn_kdim block, size_t shared_bytes, gnn_emu_phases phases,
                          gnn_emu_body body, const void *args)
{
    return launch(grid, block, shared_bytes, phases, args, body, args);
}
