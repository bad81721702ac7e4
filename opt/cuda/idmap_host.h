/* opt/cuda/idmap_host.h -- the host side of the CUDA ID maps and sampler, written ONCE in C11
 * (opt/cuda/idmap_host.c, opt/cuda/sample_host.c) over a small device interface, gnn_kdev:
 *   gnn_kdev_cuda (opt/cuda/idmap.cu): cudaMalloc, cudaMemcpy, <<<grid, block>>> launches of the
 *     __global__ wrappers (opt/cuda/idmap_kernel.h) -- the `cuda` implementations;
 *   gnn_kdev_emu (opt/cuda/idmap_emu.c): malloc, memcpy, gnn_emu_launch of the same per-thread
 *     bodies -- the `cuda-emu` implementations.
 * So the emulation runs exactly the host logic a GPU run does (the launches, their sizes and
 * order, the copies), not a re-implementation of it. Internal to the library. */
#ifndef GNNREF_OPT_CUDA_IDMAP_HOST_H
#define GNNREF_OPT_CUDA_IDMAP_HOST_H

#include <stddef.h>
#include <stdint.h>
#include "gnnref/idmap.h"
#include "gnnref/status.h"
#include "opt/cuda/emu.h"
#include "opt/cuda/idmap_body.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every kernel of the sampler and the maps (the device interface launches them by id). */
typedef enum gnn_kid {
    GNN_K_SCAN_TILE = 0,        /* gnn_kscan_args, 3 phases, shared GNN_KSCAN_BLOCK int64 */
    GNN_K_SCAN_ADD,             /* gnn_kscan_args */
    GNN_K_MAP_ORDERED_INSERT,   /* gnn_kmap_args */
    GNN_K_MAP_ORDERED_FLAG,
    GNN_K_MAP_ORDERED_ASSIGN,
    GNN_K_MAP_FUSED_DST,
    GNN_K_MAP_FUSED_NBR,
    GNN_K_MAP_FUSED_RELABEL,
    GNN_K_SAMPLE_COUNT,         /* gnn_ksample_args */
    GNN_K_SAMPLE_DRAW,
    GNN_K_COUNT
} gnn_kid;

/* A device: memory and launches. Each returns 0 on success (alloc: NULL on failure). */
typedef struct gnn_kdev {
    const char *name; /* "cuda", "cuda-emu" */
    void *(*alloc)(size_t bytes);
    void (*release)(void *p); /* NULL is fine */
    int (*to_dev)(void *dst, const void *src, size_t bytes);
    int (*to_host)(void *dst, const void *src, size_t bytes);
    int (*fill)(void *dst, int byte, size_t bytes);
    /* args: the kernel's argument struct (copied by value into the launch) */
    int (*launch)(gnn_kid k, gnn_kdim grid, gnn_kdim block, int phases, size_t shared, const void *args);
    int (*sync)(void); /* wait for the launches; 0 or a launch/run error */
} gnn_kdev;

extern const gnn_kdev gnn_kdev_emu;
extern const gnn_kdev gnn_kdev_cuda; /* CUDA builds only (opt/cuda/idmap.cu) */

/* One-thread-per-item launch of kernel k over n threads (nothing for n = 0). */
int gnn_kdev_launch_n(const gnn_kdev *dev, gnn_kid k, int64_t n, unsigned block, const void *args);

/* Exclusive prefix sum of x (n, device) in place; *total = the sum (host). */
gnn_status gnn_kscan(const gnn_kdev *dev, int64_t *x, int64_t n, int64_t *total);

/* A device hash table that grows on demand (its arrays are reused across builds). */
typedef struct gnn_kmap {
    const gnn_kdev *dev;
    gnn_idmap_kind kind; /* FUSED, or ORDERED (REF and DENSE use it: they need the same order) */
    gnn_kmap_dev d;      /* the device arrays */
    uint64_t cap;
    int64_t items_cap;   /* slot and pos capacity */
    int64_t *pos;        /* (items_cap) ORDERED flags and scan */
} gnn_kmap;

void gnn_kmap_init(gnn_kmap *m, const gnn_kdev *dev, gnn_idmap_kind kind);
void gnn_kmap_free(gnn_kmap *m);
/* Room for n_dst + nnz items, the table emptied, the counter at n_dst: ready for inserts. */
gnn_status gnn_kmap_begin(gnn_kmap *m, int64_t n_dst, int64_t nnz);
/* The dst items' inserts: FUSED the dst kernel (claims with local id = position; src_gid[0..n_dst)
 * written), which must complete before any neighbor is inserted; ORDERED the atomic-min insert
 * of items [0, n_dst) (any order with the neighbors' would do). */
gnn_status gnn_kmap_insert_dst(gnn_kmap *m, const int64_t *d_dst, int64_t n_dst, int64_t *d_src_gid);
/* The neighbors' inserts (items [n_dst, n_dst + nnz)) as a kernel of their own: the unfused path
 * and the plain ID map; the sampler's fused path inserts them as it draws instead. */
gnn_status gnn_kmap_insert_nbr(gnn_kmap *m, const int64_t *d_dst, int64_t n_dst, const int64_t *d_nbr, int64_t nnz,
                               int64_t *d_src_gid);
/* After every insert: local ids of the neighbors and src_gid (device), *n_src (host).
 * GNN_ERR_INVAL for a repeated dst. */
gnn_status gnn_kmap_finish(gnn_kmap *m, const int64_t *d_dst, int64_t n_dst, const int64_t *d_nbr, int64_t nnz,
                           int32_t *d_local, int64_t *d_src_gid, int64_t *n_src);

/* The gnn_idmap_ops bodies over a device (opt/cuda/idmap_host.c). */
gnn_status gnn_kidmap_create(void **state, const gnn_kdev *dev, gnn_idmap_kind kind, int64_t n_vertices);
gnn_status gnn_kidmap_build(void *state, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                            int32_t *local, int64_t *src_gid, int64_t *n_src);
void gnn_kidmap_destroy(void *state);

#ifdef __cplusplus
}
#endif
#endif
