/* opt/cuda/idmap_emu.c -- the emulated device (gnn_kdev_emu: host memory, gnn_emu_launch of the
 * per-thread bodies, block by block, phase by phase, thread by thread; opt/cuda/emu.h) and the
 * `cuda-emu` ID map table: the host logic of opt/cuda/idmap_host.c, the bodies of
 * opt/cuda/idmap_body.h, run on the CPU. docs/cuda_sampling.md. */
#include <stdlib.h>
#include <string.h>
#include "gnnref/aggregate.h" /* GNN_CAP_* */
#include "gnnref/idmap.h"
#include "opt/cuda/idmap_host.h"
#include "opt/cuda/sample_body.h"

static void *emu_alloc(size_t bytes)
{
    /* as cudaMalloc: uninitialized; a garbage pattern (0xa5 bytes), so a kernel that reads
     * before it writes gives a wrong result rather than a lucky zero */
    void *p = malloc(bytes ? bytes : 1);
    if (p)
        memset(p, 0xa5, bytes);
    return p;
}
static void emu_release(void *p) { free(p); }
static int emu_copy(void *dst, const void *src, size_t bytes)
{
    if (bytes)
        memcpy(dst, src, bytes);
    return 0;
}
static int emu_fill(void *dst, int byte, size_t bytes)
{
    if (bytes)
        memset(dst, byte, bytes);
    return 0;
}
static int emu_sync(void) { return 0; }

static int emu_launch(gnn_kid k, gnn_kdim grid, gnn_kdim block, int phases, size_t shared, const void *args)
{
    static const gnn_emu_body bodies[GNN_K_COUNT] = {
        [GNN_K_SCAN_TILE] = gnn_kscan_tile_body,
        [GNN_K_SCAN_ADD] = gnn_kscan_add_body,
        [GNN_K_MAP_ORDERED_INSERT] = gnn_kmap_ordered_insert_body,
        [GNN_K_MAP_ORDERED_FLAG] = gnn_kmap_ordered_flag_body,
        [GNN_K_MAP_ORDERED_ASSIGN] = gnn_kmap_ordered_assign_body,
        [GNN_K_MAP_FUSED_DST] = gnn_kmap_fused_dst_body,
        [GNN_K_MAP_FUSED_NBR] = gnn_kmap_fused_nbr_body,
        [GNN_K_MAP_FUSED_RELABEL] = gnn_kmap_fused_relabel_body,
        [GNN_K_SAMPLE_COUNT] = gnn_ksample_count_body,
        [GNN_K_SAMPLE_DRAW] = gnn_ksample_draw_body,
    };
    if ((unsigned)k >= GNN_K_COUNT || !bodies[k])
        return -1;
    return gnn_emu_launch(grid, block, phases, shared, bodies[k], args);
}

const gnn_kdev gnn_kdev_emu = {
    .name = "cuda-emu",
    .alloc = emu_alloc,
    .release = emu_release,
    .to_dev = emu_copy,
    .to_host = emu_copy,
    .fill = emu_fill,
    .launch = emu_launch,
    .sync = emu_sync,
};

static gnn_status emu_create(void **state, gnn_idmap_kind kind, int64_t n_vertices)
{
    return gnn_kidmap_create(state, &gnn_kdev_emu, kind, n_vertices);
}

/* REF, ORDERED and DENSE run the ordered map (bitwise the reference); FUSED the Fused-Map,
 * canonical (gnn_idmap_kind_ordered). */
const gnn_idmap_ops gnn_idmap_cuda_emu = {
    .name = "cuda-emu",
    .caps = GNN_CAP_DETERMINISTIC,
    .create = emu_create,
    .build = gnn_kidmap_build,
    .destroy = gnn_kidmap_destroy,
};
