/* opt/cuda/idmap_host.c -- host logic of the CUDA ID maps, ordered and Fused-Map, over a device
 * interface (opt/cuda/idmap_host.h): the same code drives a GPU (`cuda`) and the emulator
 * (`cuda-emu`). Kernels: opt/cuda/idmap_body.h; design: docs/cuda_sampling.md.
 *
 * ORDERED (bitwise ref/idmap.c): insert every item by atomic min of its first position ->
 * flag the neighbors that are their vertex's first item (and the repeated dst) -> exclusive scan
 * of the flags -> assign src_gid and local ids. FUSED (FastGL): dst kernel -> neighbor kernel
 * (CAS claim + atomicAdd counter) -> relabel kernel; n_src is the counter. */
#include <stdlib.h>
#include <string.h>
#include "gnnref/idmap.h"
#include "opt/cuda/idmap_host.h"

int gnn_kdev_launch_n(const gnn_kdev *dev, gnn_kid k, int64_t n, unsigned block, const void *args)
{
    if (n <= 0)
        return 0;
    const int64_t blocks = (n + block - 1) / block;
    if (blocks > 0x7fffffff)
        return -1;
    const gnn_kdim g = { (unsigned)blocks, 1, 1 }, b = { block, 1, 1 };
    return dev->launch(k, g, b, 1, 0, args);
}

gnn_status gnn_kscan(const gnn_kdev *dev, int64_t *x, int64_t n, int64_t *total)
{
    *total = 0;
    if (n <= 0)
        return GNN_OK;
    const int64_t tiles = (n + GNN_KSCAN_TILE - 1) / GNN_KSCAN_TILE;
    int64_t *sums = (int64_t *)dev->alloc((size_t)tiles * sizeof(int64_t));
    if (!sums)
        return GNN_ERR_NOMEM;
    gnn_status st = GNN_OK;
    gnn_kscan_args a;
    a.x = x;
    a.n = n;
    a.sums = sums;
    const gnn_kdim g = { (unsigned)tiles, 1, 1 }, b = { GNN_KSCAN_BLOCK, 1, 1 };
    if (tiles > 0x7fffffff || dev->launch(GNN_K_SCAN_TILE, g, b, 3, GNN_KSCAN_BLOCK * sizeof(int64_t), &a)) {
        st = GNN_ERR_INTERNAL;
    } else if (tiles == 1) {
        if (dev->to_host(total, sums, sizeof(int64_t)))
            st = GNN_ERR_INTERNAL;
    } else if ((st = gnn_kscan(dev, sums, tiles, total)) == GNN_OK) {
        if (gnn_kdev_launch_n(dev, GNN_K_SCAN_ADD, n, GNN_KMAP_BLOCK, &a))
            st = GNN_ERR_INTERNAL;
    }
    dev->release(sums);
    return st;
}

/* ---- the table ----------------------------------------------------------------------------- */

void gnn_kmap_init(gnn_kmap *m, const gnn_kdev *dev, gnn_idmap_kind kind)
{
    memset(m, 0, sizeof *m);
    m->dev = dev;
    m->kind = kind == GNN_IDMAP_FUSED ? GNN_IDMAP_FUSED : GNN_IDMAP_ORDERED;
}

void gnn_kmap_free(gnn_kmap *m)
{
    const gnn_kdev *dev = m->dev;
    if (!dev)
        return;
    dev->release(m->d.key);
    dev->release(m->d.val);
    dev->release(m->d.slot);
    dev->release(m->d.counter);
    dev->release(m->d.err);
    dev->release(m->pos);
    memset(m, 0, sizeof *m);
}

gnn_status gnn_kmap_begin(gnn_kmap *m, int64_t n_dst, int64_t nnz)
{
    const gnn_kdev *dev = m->dev;
    const int64_t items = n_dst + nnz;
    uint64_t cap = 1024;
    while (cap < 2 * (uint64_t)items)
        cap <<= 1;
    if (!m->d.counter) {
        m->d.counter = (int64_t *)dev->alloc(sizeof(int64_t));
        m->d.err = (int32_t *)dev->alloc(sizeof(int32_t));
        if (!m->d.counter || !m->d.err)
            return GNN_ERR_NOMEM;
    }
    if (cap > m->cap) {
        dev->release(m->d.key);
        dev->release(m->d.val);
        m->d.key = (int64_t *)dev->alloc(cap * sizeof(int64_t));
        m->d.val = (int64_t *)dev->alloc(cap * sizeof(int64_t));
        m->cap = m->d.key && m->d.val ? cap : 0;
        if (!m->cap)
            return GNN_ERR_NOMEM;
        m->d.mask = cap - 1;
    }
    if (items > m->items_cap) {
        const int64_t want = items + items / 4 + 1024;
        dev->release(m->d.slot);
        dev->release(m->pos);
        m->d.slot = (int64_t *)dev->alloc((size_t)want * sizeof(int64_t));
        m->pos = (int64_t *)dev->alloc((size_t)want * sizeof(int64_t));
        m->items_cap = m->d.slot && m->pos ? want : 0;
        if (!m->items_cap)
            return GNN_ERR_NOMEM;
    }
    /* empty every slot (key -1: bytes 0xff), ORDERED's first items above every item; the
     * whole table, so a failed build leaves nothing behind */
    const int32_t zero = 0;
    if (dev->fill(m->d.key, 0xff, m->cap * sizeof(int64_t)) ||
        (m->kind == GNN_IDMAP_ORDERED && dev->fill(m->d.val, 0x7f, m->cap * sizeof(int64_t))) ||
        dev->to_dev(m->d.counter, &n_dst, sizeof(int64_t)) || dev->to_dev(m->d.err, &zero, sizeof zero))
        return GNN_ERR_INTERNAL;
    return GNN_OK;
}

static gnn_kmap_args map_args(const gnn_kmap *m, const int64_t *d_dst, int64_t n_dst, const int64_t *d_nbr, int64_t nnz,
                              int32_t *d_local, int64_t *d_src_gid)
{
    gnn_kmap_args a;
    memset(&a, 0, sizeof a);
    a.m = m->d;
    a.dst = d_dst;
    a.nbr = d_nbr;
    a.n_dst = n_dst;
    a.nnz = nnz;
    a.pos = m->pos;
    a.local = d_local;
    a.src_gid = d_src_gid;
    return a;
}

gnn_status gnn_kmap_insert_dst(gnn_kmap *m, const int64_t *d_dst, int64_t n_dst, int64_t *d_src_gid)
{
    const gnn_kmap_args a = map_args(m, d_dst, n_dst, NULL, 0, NULL, d_src_gid); /* items [0, n_dst) */
    const gnn_kid k = m->kind == GNN_IDMAP_FUSED ? GNN_K_MAP_FUSED_DST : GNN_K_MAP_ORDERED_INSERT;
    return gnn_kdev_launch_n(m->dev, k, n_dst, GNN_KMAP_BLOCK, &a) ? GNN_ERR_INTERNAL : GNN_OK;
}

gnn_status gnn_kmap_insert_nbr(gnn_kmap *m, const int64_t *d_dst, int64_t n_dst, const int64_t *d_nbr, int64_t nnz,
                               int64_t *d_src_gid)
{
    gnn_kmap_args a = map_args(m, d_dst, n_dst, d_nbr, nnz, NULL, d_src_gid);
    a.item0 = n_dst; /* ORDERED: items [n_dst, n_dst + nnz) */
    const gnn_kid k = m->kind == GNN_IDMAP_FUSED ? GNN_K_MAP_FUSED_NBR : GNN_K_MAP_ORDERED_INSERT;
    return gnn_kdev_launch_n(m->dev, k, nnz, GNN_KMAP_BLOCK, &a) ? GNN_ERR_INTERNAL : GNN_OK;
}

gnn_status gnn_kmap_finish(gnn_kmap *m, const int64_t *d_dst, int64_t n_dst, const int64_t *d_nbr, int64_t nnz,
                           int32_t *d_local, int64_t *d_src_gid, int64_t *n_src)
{
    const gnn_kdev *dev = m->dev;
    const gnn_kmap_args a = map_args(m, d_dst, n_dst, d_nbr, nnz, d_local, d_src_gid);
    int32_t err = 0;
    if (m->kind == GNN_IDMAP_FUSED) {
        /* a repeated dst was found by the dst kernel */
        if (dev->to_host(&err, m->d.err, sizeof err))
            return GNN_ERR_INTERNAL;
        if (err)
            return GNN_ERR_INVAL;
        if (gnn_kdev_launch_n(dev, GNN_K_MAP_FUSED_RELABEL, nnz, GNN_KMAP_BLOCK, &a) ||
            dev->to_host(n_src, m->d.counter, sizeof(int64_t)) || dev->sync())
            return GNN_ERR_INTERNAL;
        return GNN_OK;
    }
    if (gnn_kdev_launch_n(dev, GNN_K_MAP_ORDERED_FLAG, n_dst + nnz, GNN_KMAP_BLOCK, &a) ||
        dev->to_host(&err, m->d.err, sizeof err))
        return GNN_ERR_INTERNAL;
    if (err)
        return GNN_ERR_INVAL;
    int64_t n_new;
    gnn_status st = gnn_kscan(dev, m->pos, nnz, &n_new);
    if (st)
        return st;
    if (gnn_kdev_launch_n(dev, GNN_K_MAP_ORDERED_ASSIGN, n_dst + nnz, GNN_KMAP_BLOCK, &a) || dev->sync())
        return GNN_ERR_INTERNAL;
    *n_src = n_dst + n_new;
    return GNN_OK;
}

/* ---- gnn_idmap_ops bodies (arguments checked by gnn_idmap_build, core/ops/minibatch.c) ------------ */

typedef struct kidmap {
    gnn_kmap map;
    int64_t *d_in;      /* dst then nbr (device) */
    int64_t *d_src_gid; /* (n_dst + nnz) */
    int32_t *d_local;   /* (nnz) */
    int64_t cap;        /* items the three hold */
} kidmap;

gnn_status gnn_kidmap_create(void **state, const gnn_kdev *dev, gnn_idmap_kind kind, int64_t n_vertices)
{
    (void)n_vertices; /* the table is sized by the items, not the id space */
    kidmap *k = (kidmap *)calloc(1, sizeof *k);
    if (!k)
        return GNN_ERR_NOMEM;
    gnn_kmap_init(&k->map, dev, kind);
    *state = k;
    return GNN_OK;
}

void gnn_kidmap_destroy(void *state)
{
    kidmap *k = (kidmap *)state;
    if (!k)
        return;
    const gnn_kdev *dev = k->map.dev;
    dev->release(k->d_in);
    dev->release(k->d_src_gid);
    dev->release(k->d_local);
    gnn_kmap_free(&k->map);
    free(k);
}

gnn_status gnn_kidmap_build(void *state, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                            int32_t *local, int64_t *src_gid, int64_t *n_src)
{
    kidmap *k = (kidmap *)state;
    const gnn_kdev *dev = k->map.dev;
    const int64_t items = n_dst + nnz;
    if (items > k->cap) {
        const int64_t want = items + items / 4 + 1024;
        dev->release(k->d_in);
        dev->release(k->d_src_gid);
        dev->release(k->d_local);
        k->d_in = (int64_t *)dev->alloc((size_t)want * sizeof(int64_t));
        k->d_src_gid = (int64_t *)dev->alloc((size_t)want * sizeof(int64_t));
        k->d_local = (int32_t *)dev->alloc((size_t)want * sizeof(int32_t));
        k->cap = k->d_in && k->d_src_gid && k->d_local ? want : 0;
        if (!k->cap)
            return GNN_ERR_NOMEM;
    }
    int64_t *d_dst = k->d_in, *d_nbr = k->d_in + n_dst;
    if ((n_dst && dev->to_dev(d_dst, dst, (size_t)n_dst * sizeof(int64_t))) ||
        (nnz && dev->to_dev(d_nbr, nbr, (size_t)nnz * sizeof(int64_t))))
        return GNN_ERR_INTERNAL;
    gnn_status st;
    int64_t ns = 0;
    if ((st = gnn_kmap_begin(&k->map, n_dst, nnz)) || (st = gnn_kmap_insert_dst(&k->map, d_dst, n_dst, k->d_src_gid)) ||
        (st = gnn_kmap_insert_nbr(&k->map, d_dst, n_dst, d_nbr, nnz, k->d_src_gid)) ||
        (st = gnn_kmap_finish(&k->map, d_dst, n_dst, d_nbr, nnz, k->d_local, k->d_src_gid, &ns)))
        return st;
    if ((nnz && dev->to_host(local, k->d_local, (size_t)nnz * sizeof(int32_t))) ||
        (ns && dev->to_host(src_gid, k->d_src_gid, (size_t)ns * sizeof(int64_t))))
        return GNN_ERR_INTERNAL;
    *n_src = ns;
    return GNN_OK;
}
