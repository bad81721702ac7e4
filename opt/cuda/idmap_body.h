/* opt/cuda/idmap_body.h -- per-thread bodies of the CUDA ID maps and of the prefix sum they use
 * (docs/cuda_sampling.md). Each body is `GNN_HD void f(const gnn_kthread *t, int phase, void
 * *shared, const void *args)` (opt/cuda/emu.h): compiled by nvcc into a __global__ wrapper
 * (opt/cuda/idmap_kernel.h) and by gcc into the `cuda-emu` implementations, which run it
 * through gnn_emu_launch. Written in the common subset of C11 and C++17.
 *
 * The table: open addressing over cap = 2^k slots (cap >= 2 * items), linear probing,
 * key[] = global id or -1 (empty), claimed by compare-and-swap from -1; a key never changes
 * again within a build, so a plain read that sees a key other than -1 is final.
 *   ORDERED (bitwise equal to ref/idmap.c): item it (dst i = item i, neighbor e = item
 *     n_dst + e) lowers val[slot] to it by atomic min (val starts at 0x7f7f...: above every item),
 *     so after the insert kernel val[slot] is the vertex's FIRST item, whatever the order the
 *     threads ran in; a neighbor item is new when it is its vertex's first item; an exclusive
 *     scan over those flags numbers the new vertices in item order: first-appearance order.
 *   FUSED (FastGL's Fused-Map, Sec. 4.3, Alg. 2): dst i claims its key and writes val = i (a
 *     kernel of its own, first); a neighbor whose CAS claims a key takes
 *     local = atomicAdd(&counter, 1) (counter starts at n_dst) -- ONE atomic that reads and
 *     bumps, not the paper's separate read and increment (lines 28-29), which can hand one id to
 *     two vertices -- and writes val and src_gid[local]; the readers run in the next kernel. */
#ifndef GNNREF_OPT_CUDA_IDMAP_BODY_H
#define GNNREF_OPT_CUDA_IDMAP_BODY_H

#include <stdint.h>
#include "opt/cuda/emu.h"

#define GNN_KMAP_BLOCK 256 /* threads per block of the one-thread-per-item kernels */
#define GNN_KSCAN_BLOCK 256 /* threads per block of the scan */
#define GNN_KSCAN_ITEMS 8   /* elements per scan thread: a tile is 2048 elements */
#define GNN_KSCAN_TILE (GNN_KSCAN_BLOCK * GNN_KSCAN_ITEMS)
#define GNN_KMAP_FIRST_NONE ((int64_t)0x7f7f7f7f7f7f7f7fll) /* val fill of ORDERED: above every item */

/* The global thread index of a 1-D launch. */
GNN_HD static inline int64_t gnn_k_gid(const gnn_kthread *t)
{
    return (int64_t)t->block.x * t->block_dim.x + t->thread.x;
}

/* ---- the hash table ------------------------------------------------------------------------ */

typedef struct gnn_kmap_dev {
    int64_t *key;      /* (cap) global id, -1 empty */
    int64_t *val;      /* (cap) ORDERED: first item; FUSED: local id */
    int64_t *slot;     /* (items) the slot of each item */
    int64_t *counter;  /* (1) FUSED: next local id */
    int32_t *err;      /* (1) set to 1 by a repeated dst */
    uint64_t mask;     /* cap - 1 */
} gnn_kmap_dev;

GNN_HD static inline uint64_t gnn_kmap_hash(int64_t gid, uint64_t mask)
{
    uint64_t h = (uint64_t)gid * 0x9E3779B97F4A7C15ull;
    return (h ^ (h >> 29)) & mask;
}

/* The slot of gid: the one holding it, or an empty one this call claims (*claimed = 1). */
GNN_HD static inline uint64_t gnn_kmap_find_or_claim(const gnn_kmap_dev *m, int64_t gid, int *claimed)
{
    uint64_t h = gnn_kmap_hash(gid, m->mask);
    for (;;) {
        int64_t k = m->key[h];
        if (k == -1) {
            GNN_INTERLEAVE_POINT(); /* the window before the claim (opt/cpu/interleave_point.h) */
            k = gnn_atomic_cas_i64(&m->key[h], -1, gid);
            if (k == -1) {
                *claimed = 1;
                return h;
            }
        }
        if (k == gid) {
            *claimed = 0;
            return h;
        }
        h = (h + 1) & m->mask;
    }
}

/* ORDERED insert of one item: claim or find the slot, record it, lower the first item. */
GNN_HD static inline void gnn_kmap_insert_ordered(const gnn_kmap_dev *m, int64_t item, int64_t gid)
{
    int claimed;
    const uint64_t h = gnn_kmap_find_or_claim(m, gid, &claimed);
    m->slot[item] = (int64_t)h;
    gnn_atomic_min_i64(&m->val[h], item);
}

/* FUSED insert of neighbor item `item` (>= n_dst): the thread whose CAS claims the key numbers
 * it with one atomicAdd (the fix of Alg. 2 lines 28-29) and publishes it. */
GNN_HD static inline void gnn_kmap_insert_fused(const gnn_kmap_dev *m, int64_t item, int64_t gid, int64_t *src_gid)
{
    int claimed;
    const uint64_t h = gnn_kmap_find_or_claim(m, gid, &claimed);
    m->slot[item] = (int64_t)h;
    if (claimed) {
        GNN_INTERLEAVE_POINT(); /* claimed, not numbered: others may number first */
        const int64_t local = gnn_atomic_add_i64(m->counter, 1);
        m->val[h] = local;
        src_gid[local] = gid;
    }
}

/* ---- kernels: arguments and bodies ---------------------------------------------------------- */

/* Every map kernel: one thread per item of [0, n_items) (dst first, then neighbors). */
typedef struct gnn_kmap_args {
    gnn_kmap_dev m;
    const int64_t *dst; /* (n_dst) */
    const int64_t *nbr; /* (nnz) */
    int64_t n_dst, nnz;
    int64_t item0;      /* ORDERED insert: thread k inserts item item0 + k */
    int64_t *pos;       /* (nnz) ORDERED: new-vertex flags, then their exclusive scan */
    int32_t *local;     /* (nnz) */
    int64_t *src_gid;   /* (n_dst + nnz) */
} gnn_kmap_args;

/* ORDERED, items [item0, n_dst + nnz): the atomic-min insert (dst and neighbors alike: the min
 * does not care which thread comes first). */
GNN_HD static inline void gnn_kmap_ordered_insert_body(const gnn_kthread *t, int phase, void *shared, const void *args)
{
    (void)phase;
    (void)shared;
    const gnn_kmap_args *a = (const gnn_kmap_args *)args;
    const int64_t it = a->item0 + gnn_k_gid(t);
    if (it >= a->n_dst + a->nnz)
        return;
    gnn_kmap_insert_ordered(&a->m, it, it < a->n_dst ? a->dst[it] : a->nbr[it - a->n_dst]);
}

/* ORDERED, items [0, n_dst + nnz), after the inserts: a dst whose vertex's first item is not
 * itself repeats an earlier dst (err); a neighbor sets its flag when it is its vertex's first
 * item (a new src vertex). */
GNN_HD static inline void gnn_kmap_ordered_flag_body(const gnn_kthread *t, int phase, void *shared, const void *args)
{
    (void)phase;
    (void)shared;
    const gnn_kmap_args *a = (const gnn_kmap_args *)args;
    const int64_t it = gnn_k_gid(t);
    if (it >= a->n_dst + a->nnz)
        return;
    const int64_t first = a->m.val[a->m.slot[it]];
    if (it < a->n_dst) {
        if (first != it)
            *a->m.err = 1; /* every writer writes 1 */
    } else {
        a->pos[it - a->n_dst] = first == it;
    }
}

/* ORDERED, items [0, n_dst + nnz), after the scan of the flags (pos = new vertices before each
 * neighbor): dst i is src i; a new vertex at e is src n_dst + pos[e]; every neighbor's local id
 * is its vertex's: the dst position, or the number its first item got. */
GNN_HD static inline void gnn_kmap_ordered_assign_body(const gnn_kthread *t, int phase, void *shared, const void *args)
{
    (void)phase;
    (void)shared;
    const gnn_kmap_args *a = (const gnn_kmap_args *)args;
    const int64_t it = gnn_k_gid(t);
    if (it >= a->n_dst + a->nnz)
        return;
    if (it < a->n_dst) {
        a->src_gid[it] = a->dst[it];
        return;
    }
    const int64_t e = it - a->n_dst, first = a->m.val[a->m.slot[it]];
    if (first == it)
        a->src_gid[a->n_dst + a->pos[e]] = a->nbr[e];
    a->local[e] = (int32_t)(first < a->n_dst ? first : a->n_dst + a->pos[first - a->n_dst]);
}

/* FUSED, items [0, n_dst): dst i claims its key with local id i; finding it already claimed
 * means another dst has the same id (err: whichever of the two wins the CAS, the build is
 * refused). */
GNN_HD static inline void gnn_kmap_fused_dst_body(const gnn_kthread *t, int phase, void *shared, const void *args)
{
    (void)phase;
    (void)shared;
    const gnn_kmap_args *a = (const gnn_kmap_args *)args;
    const int64_t i = gnn_k_gid(t);
    if (i >= a->n_dst)
        return;
    int claimed;
    const uint64_t h = gnn_kmap_find_or_claim(&a->m, a->dst[i], &claimed);
    a->m.slot[i] = (int64_t)h;
    a->src_gid[i] = a->dst[i];
    if (claimed)
        a->m.val[h] = i;
    else
        *a->m.err = 1;
}

/* FUSED, neighbors e in [0, nnz) (the unfused path; the sampler inserts as it draws). */
GNN_HD static inline void gnn_kmap_fused_nbr_body(const gnn_kthread *t, int phase, void *shared, const void *args)
{
    (void)phase;
    (void)shared;
    const gnn_kmap_args *a = (const gnn_kmap_args *)args;
    const int64_t e = gnn_k_gid(t);
    if (e >= a->nnz)
        return;
    gnn_kmap_insert_fused(&a->m, a->n_dst + e, a->nbr[e], a->src_gid);
}

/* FUSED, neighbors e in [0, nnz), a kernel after every insert: the readers. */
GNN_HD static inline void gnn_kmap_fused_relabel_body(const gnn_kthread *t, int phase, void *shared, const void *args)
{
    (void)phase;
    (void)shared;
    const gnn_kmap_args *a = (const gnn_kmap_args *)args;
    const int64_t e = gnn_k_gid(t);
    if (e >= a->nnz)
        return;
    a->local[e] = (int32_t)a->m.val[a->m.slot[a->n_dst + e]];
}

/* ---- exclusive prefix sum of int64 ------------------------------------------------------------
 * Tile kernel: block b scans x[b * TILE, (b + 1) * TILE) in place (exclusive, within the tile)
 * and writes the tile's total to sums[b]. Three phases (two barriers): each thread sums its
 * GNN_KSCAN_ITEMS consecutive elements into shared[thread]; thread 0 turns shared[] into its
 * exclusive scan and writes the total; each thread rewrites its elements from its offset.
 * The host scans sums[] the same way (recursively) and the add kernel adds sums[b] to tile b. */
typedef struct gnn_kscan_args {
    int64_t *x;
    int64_t n;
    int64_t *sums; /* (tiles) */
} gnn_kscan_args;

GNN_HD static inline void gnn_kscan_tile_body(const gnn_kthread *t, int phase, void *shared, const void *args)
{
    const gnn_kscan_args *a = (const gnn_kscan_args *)args;
    int64_t *sh = (int64_t *)shared; /* (GNN_KSCAN_BLOCK) */
    const int64_t base = (int64_t)t->block.x * GNN_KSCAN_TILE + (int64_t)t->thread.x * GNN_KSCAN_ITEMS;
    const int64_t end = base + GNN_KSCAN_ITEMS < a->n ? base + GNN_KSCAN_ITEMS : a->n;
    if (phase == 0) {
        int64_t s = 0;
        for (int64_t i = base; i < end; i++)
            s += a->x[i];
        sh[t->thread.x] = s;
    } else if (phase == 1) {
        if (t->thread.x == 0) {
            int64_t run = 0;
            for (unsigned i = 0; i < t->block_dim.x; i++) {
                const int64_t v = sh[i];
                sh[i] = run;
                run += v;
            }
            a->sums[t->block.x] = run;
        }
    } else {
        int64_t run = sh[t->thread.x];
        for (int64_t i = base; i < end; i++) {
            const int64_t v = a->x[i];
            a->x[i] = run;
            run += v;
        }
    }
}

GNN_HD static inline void gnn_kscan_add_body(const gnn_kthread *t, int phase, void *shared, const void *args)
{
    (void)phase;
    (void)shared;
    const gnn_kscan_args *a = (const gnn_kscan_args *)args;
    const int64_t i = gnn_k_gid(t);
    if (i < a->n)
        a->x[i] += a->sums[i / GNN_KSCAN_TILE];
}

#endif
