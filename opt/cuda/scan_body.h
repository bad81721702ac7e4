/* opt/cuda/scan_body.h -- the building blocks of the transposed (by-source) edge list, as
 * kernel bodies (opt/cuda/kbase.h): an exclusive prefix sum of int64 and one pass of a stable
 * least-significant-digit radix sort (8-bit digits) of int32 keys with int64 values. Integer
 * arithmetic only: the result is the same on any device and in the emulator. Used by
 * opt/cuda/aggregate_host.h (the backward's gather) and available to the other kernels. */
#ifndef GNNREF_OPT_CUDA_SCAN_BODY_H
#define GNNREF_OPT_CUDA_SCAN_BODY_H

#include "opt/cuda/kbase.h"

#define GNN_SCAN_T 256 /* threads of a scan block = elements it scans */
#define GNN_SCAN_LOG 8
#define GNN_RADIX_T 256 /* elements of a radix tile (one per thread) = digit values */

/* ---- exclusive scan, level 1: each block scans its GNN_SCAN_T elements (Hillis-Steele in
 * shared memory, one step per phase), writes the exclusive result and its total to sums */
typedef struct gnn_scan_args {
    const int64_t *in;
    int64_t *out; /* may be in */
    int64_t *sums; /* (blocks) */
    int64_t n;
} gnn_scan_args;

static inline GNN_HD int gnn_scan_block_phases(const gnn_kthread *t, const gnn_scan_args *a)
{
    (void)t;
    (void)a;
    return GNN_SCAN_LOG + 2;
}

/* shared: orig[T], buf[2][T] (int64) */
static inline GNN_HD void gnn_scan_block_body(const gnn_kthread *t, int phase, void *shared, const gnn_scan_args *a)
{
    int64_t *orig = (int64_t *)shared, *buf0 = orig + GNN_SCAN_T, *buf1 = buf0 + GNN_SCAN_T;
    const unsigned j = t->thread.x;
    const int64_t i = (int64_t)t->block.x * GNN_SCAN_T + j;
    if (phase == 0) {
        orig[j] = buf0[j] = i < a->n ? a->in[i] : 0;
    } else if (phase <= GNN_SCAN_LOG) {
        const unsigned off = 1u << (phase - 1);
        const int64_t *src = (phase - 1) & 1 ? buf1 : buf0;
        int64_t *dst = phase & 1 ? buf1 : buf0;
        dst[j] = src[j] + (j >= off ? src[j - off] : 0);
    } else {
        const int64_t *incl = GNN_SCAN_LOG & 1 ? buf1 : buf0;
        if (i < a->n)
            a->out[i] = incl[j] - orig[j];
        if (j == GNN_SCAN_T - 1)
            a->sums[t->block.x] = incl[j];
    }
}
GNN_KERNEL(gnn_scan_block, gnn_scan_args)

/* ---- exclusive scan, level 2: add the scanned block totals */
typedef struct gnn_scan_add_args {
    int64_t *out;
    const int64_t *sums; /* exclusive scan of the level-1 totals */
    int64_t n;
} gnn_scan_add_args;

static inline GNN_HD int gnn_scan_add_phases(const gnn_kthread *t, const gnn_scan_add_args *a)
{
    (void)t;
    (void)a;
    return 1;
}
static inline GNN_HD void gnn_scan_add_body(const gnn_kthread *t, int phase, void *shared, const gnn_scan_add_args *a)
{
    (void)phase;
    (void)shared;
    const int64_t i = (int64_t)t->block.x * GNN_SCAN_T + t->thread.x;
    if (i < a->n)
        a->out[i] += a->sums[t->block.x];
}
GNN_KERNEL(gnn_scan_add, gnn_scan_add_args)

/* ---- radix sort pass, step 1: per tile, every element's rank among the tile's elements of
 * the same digit before it, and the tile's count of each digit, stored digit-major
 * (hist[digit * tiles + tile]) so that an exclusive scan of hist is each (digit, tile)'s first
 * output position: tiles in order within a digit, hence stable */
typedef struct gnn_radix_args {
    const int32_t *key_in;
    const int64_t *val_in;
    int32_t *key_out;
    int64_t *val_out;
    int64_t *rank; /* (n) */
    int64_t *hist; /* (256 * tiles); after the scan: offsets */
    int64_t n, tiles;
    int shift;
} gnn_radix_args;

static inline GNN_HD int gnn_radix_hist_phases(const gnn_kthread *t, const gnn_radix_args *a)
{
    (void)t;
    (void)a;
    return 2;
}
/* shared: dig[T] (int32, -1 past the end) */
static inline GNN_HD void gnn_radix_hist_body(const gnn_kthread *t, int phase, void *shared, const gnn_radix_args *a)
{
    int32_t *dig = (int32_t *)shared;
    const unsigned j = t->thread.x;
    const int64_t i = (int64_t)t->block.x * GNN_RADIX_T + j;
    if (phase == 0) {
        dig[j] = i < a->n ? (int32_t)(((uint32_t)a->key_in[i] >> a->shift) & 255u) : -1;
        return;
    }
    const int32_t mine = dig[j];
    int64_t before = 0, count = 0;
    for (unsigned k = 0; k < GNN_RADIX_T; k++) {
        before += k < j && dig[k] == mine;
        count += dig[k] == (int32_t)j;
    }
    if (i < a->n)
        a->rank[i] = before;
    a->hist[(int64_t)j * a->tiles + t->block.x] = count;
}
GNN_KERNEL(gnn_radix_hist, gnn_radix_args)

/* step 2 (after the scan of hist): every element to its place */
static inline GNN_HD int gnn_radix_scatter_phases(const gnn_kthread *t, const gnn_radix_args *a)
{
    (void)t;
    (void)a;
    return 1;
}
static inline GNN_HD void gnn_radix_scatter_body(const gnn_kthread *t, int phase, void *shared, const gnn_radix_args *a)
{
    (void)phase;
    (void)shared;
    const int64_t i = (int64_t)t->block.x * GNN_RADIX_T + t->thread.x;
    if (i >= a->n)
        return;
    const int32_t k = a->key_in[i];
    const int64_t dg = (int64_t)(((uint32_t)k >> a->shift) & 255u);
    const int64_t at = a->hist[dg * a->tiles + t->block.x] + a->rank[i];
    a->key_out[at] = k;
    a->val_out[at] = a->val_in[i];
}
GNN_KERNEL(gnn_radix_scatter, gnn_radix_args)

#endif
