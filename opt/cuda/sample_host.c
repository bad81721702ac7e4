/* opt/cuda/sample_host.c -- host logic of the CUDA uniform sampler over a device interface
 * (opt/cuda/idmap_host.h): the same code drives a GPU (`cuda`, opt/cuda/sample.cu) and the
 * emulator (`cuda-emu`, opt/cuda/sample_emu.c). Kernels: opt/cuda/sample_body.h; design:
 * docs/cuda_sampling.md.
 *
 * One layer: seeds to the device -> count kernel (one thread per seed; a seed out of range sets
 * the error word) -> exclusive scan of the counts (the output offsets) -> the ID map's dst
 * inserts -> draw kernel (one thread per seed, draws keyed exactly as ref/sample.c, each sample
 * inserted into the map as it is drawn: fused sampling; or a separate insert kernel: unfused) ->
 * the map's finish kernels -> the block back to the host. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/aggregate.h" /* GNN_CAP_* */
#include "gnnref/sample.h"
#include "gnnref/tensor.h"
#include "opt/cuda/sample_body.h"
#include "opt/cuda/sample_host.h"

typedef struct ksampler {
    const gnn_kdev *dev;
    const gnn_csr *g;
    int64_t *d_indptr, *d_indices; /* the graph, resident */
    int fused;                     /* variant FUSED: insert while drawing */
    gnn_kmap map;
    int64_t *d_seeds, *d_off;      /* (seeds_cap), (seeds_cap + 1) */
    int64_t seeds_cap;
    int64_t *d_nbr, *d_scratch;    /* (nnz_cap), (2 nnz_cap) */
    int32_t *d_local;              /* (nnz_cap) */
    int64_t nnz_cap;
    int64_t *d_src_gid;            /* (items_cap) */
    int64_t items_cap;
    int64_t *d_rng_ids;            /* (g->n) when the parameters carry rng_ids */
    int32_t *d_err;
} ksampler;

void gnn_ksampler_destroy(void *state)
{
    ksampler *s = (ksampler *)state;
    if (!s)
        return;
    const gnn_kdev *dev = s->dev;
    dev->release(s->d_indptr);
    dev->release(s->d_indices);
    dev->release(s->d_seeds);
    dev->release(s->d_off);
    dev->release(s->d_nbr);
    dev->release(s->d_scratch);
    dev->release(s->d_local);
    dev->release(s->d_src_gid);
    dev->release(s->d_rng_ids);
    dev->release(s->d_err);
    gnn_kmap_free(&s->map);
    free(s);
}

/* The graph to the device; map kind and variant from o (NULL: no map, the one-shot sampler). */
static gnn_status ksampler_new(ksampler **out, const gnn_kdev *dev, const gnn_csr *g, const gnn_sampler_options *o)
{
    ksampler *s = (ksampler *)calloc(1, sizeof *s);
    if (!s)
        return GNN_ERR_NOMEM;
    s->dev = dev;
    s->g = g;
    s->fused = o && o->variant == GNN_SAMPLER_FUSED;
    gnn_kmap_init(&s->map, dev, o ? (gnn_idmap_kind)o->idmap : GNN_IDMAP_ORDERED);
    s->d_indptr = (int64_t *)dev->alloc(((size_t)g->n + 1) * sizeof(int64_t));
    s->d_indices = (int64_t *)dev->alloc((size_t)(g->nnz > 0 ? g->nnz : 1) * sizeof(int64_t));
    s->d_err = (int32_t *)dev->alloc(sizeof(int32_t));
    gnn_status st = GNN_OK;
    if (!s->d_indptr || !s->d_indices || !s->d_err)
        st = GNN_ERR_NOMEM;
    else if (dev->to_dev(s->d_indptr, g->indptr, ((size_t)g->n + 1) * sizeof(int64_t)) ||
             (g->nnz > 0 && dev->to_dev(s->d_indices, g->indices, (size_t)g->nnz * sizeof(int64_t))))
        st = GNN_ERR_INTERNAL;
    if (st) {
        gnn_ksampler_destroy(s);
        return st;
    }
    *out = s;
    return GNN_OK;
}

gnn_status gnn_ksampler_create(void **state, const gnn_kdev *dev, const gnn_csr *g, const gnn_sampler_options *o)
{
    *state = NULL;
    if (o->etype) /* typed sampling (sample_typed.h) is not ported */
        return GNN_ERR_UNSUPPORTED;
    ksampler *s;
    gnn_status st = ksampler_new(&s, dev, g, o);
    if (st == GNN_OK)
        *state = s;
    return st;
}

/* Device buffers for n seeds and nnz samples (grown, never shrunk). */
static gnn_status reserve_seeds(ksampler *s, int64_t n)
{
    if (n <= s->seeds_cap && s->d_seeds)
        return GNN_OK;
    const int64_t want = n + n / 4 + 256;
    s->dev->release(s->d_seeds);
    s->dev->release(s->d_off);
    s->d_seeds = (int64_t *)s->dev->alloc((size_t)want * sizeof(int64_t));
    s->d_off = (int64_t *)s->dev->alloc(((size_t)want + 1) * sizeof(int64_t));
    s->seeds_cap = s->d_seeds && s->d_off ? want : 0;
    return s->seeds_cap ? GNN_OK : GNN_ERR_NOMEM;
}

static gnn_status reserve_samples(ksampler *s, int64_t nnz, int64_t items)
{
    const gnn_kdev *dev = s->dev;
    if (nnz > s->nnz_cap || !s->d_nbr) {
        const int64_t want = nnz + nnz / 4 + 1024;
        dev->release(s->d_nbr);
        dev->release(s->d_scratch);
        dev->release(s->d_local);
        s->d_nbr = (int64_t *)dev->alloc((size_t)want * sizeof(int64_t));
        s->d_scratch = (int64_t *)dev->alloc(2 * (size_t)want * sizeof(int64_t));
        s->d_local = (int32_t *)dev->alloc((size_t)want * sizeof(int32_t));
        s->nnz_cap = s->d_nbr && s->d_scratch && s->d_local ? want : 0;
        if (!s->nnz_cap)
            return GNN_ERR_NOMEM;
    }
    if (items > s->items_cap || !s->d_src_gid) {
        const int64_t want = items + items / 4 + 1024;
        dev->release(s->d_src_gid);
        s->d_src_gid = (int64_t *)dev->alloc((size_t)want * sizeof(int64_t));
        s->items_cap = s->d_src_gid ? want : 0;
        if (!s->items_cap)
            return GNN_ERR_NOMEM;
    }
    return GNN_OK;
}

static gnn_ksample_args sample_args(const ksampler *s, int64_t n_seeds, const gnn_sample_params *p)
{
    gnn_ksample_args a;
    memset(&a, 0, sizeof a);
    a.indptr = s->d_indptr;
    a.indices = s->d_indices;
    a.n = s->g->n;
    a.rng_ids = p->rng_ids ? s->d_rng_ids : NULL;
    a.rng_id_offset = p->rng_id_offset;
    a.seeds = s->d_seeds;
    a.n_seeds = n_seeds;
    a.fanout = p->fanout;
    a.replace = p->replace;
    a.seed = p->seed;
    a.step = p->step;
    a.layer = p->layer;
    a.offsets = s->d_off;
    a.nbr = s->d_nbr;
    a.scratch = s->d_scratch;
    a.err = s->d_err;
    a.insert = GNN_KSAMPLE_NO_INSERT;
    a.m = s->map.d;
    a.src_gid = s->d_src_gid;
    return a;
}

/* Seeds to the device, counts, their scan: the output offsets d_off[0..n] and *nnz. */
static gnn_status plan(ksampler *s, const int64_t *seeds, int64_t n, const gnn_sample_params *p, int64_t *nnz)
{
    const gnn_kdev *dev = s->dev;
    gnn_status st = reserve_seeds(s, n);
    if (st)
        return st;
    if (p->rng_ids) { /* (g->n) ids the vertices draw with: copied per call (the caller may change them) */
        if (!s->d_rng_ids && !(s->d_rng_ids = (int64_t *)dev->alloc(((size_t)s->g->n + 1) * sizeof(int64_t))))
            return GNN_ERR_NOMEM;
        if (s->g->n && dev->to_dev(s->d_rng_ids, p->rng_ids, (size_t)s->g->n * sizeof(int64_t)))
            return GNN_ERR_INTERNAL;
    }
    const int32_t zero = 0;
    if ((n && dev->to_dev(s->d_seeds, seeds, (size_t)n * sizeof(int64_t))) || dev->to_dev(s->d_err, &zero, sizeof zero))
        return GNN_ERR_INTERNAL;
    const gnn_ksample_args a = sample_args(s, n, p);
    int32_t err = 0;
    if (gnn_kdev_launch_n(dev, GNN_K_SAMPLE_COUNT, n, GNN_KSAMPLE_BLOCK, &a) || dev->to_host(&err, s->d_err, sizeof err))
        return GNN_ERR_INTERNAL;
    if (err)
        return GNN_ERR_RANGE;
    if ((st = gnn_kscan(dev, s->d_off, n, nnz)))
        return st;
    if (dev->to_dev(s->d_off + n, nnz, sizeof(int64_t)))
        return GNN_ERR_INTERNAL;
    return n + *nnz > INT32_MAX ? GNN_ERR_RANGE : GNN_OK;
}

gnn_status gnn_ksampler_layer(void *state, const int64_t *seeds, int64_t n, const gnn_sample_params *p, gnn_block *out)
{
    ksampler *s = (ksampler *)state;
    const gnn_kdev *dev = s->dev;
    if (p->weights) /* not ported; the seeds and the weights were checked by gnn_sampler_layer */
        return GNN_ERR_UNSUPPORTED;
    int64_t nnz = 0, n_src = 0;
    gnn_status st;
    if ((st = plan(s, seeds, n, p, &nnz)) || (st = reserve_samples(s, nnz, n + nnz)) ||
        (st = gnn_kmap_begin(&s->map, n, nnz)) || (st = gnn_kmap_insert_dst(&s->map, s->d_seeds, n, s->d_src_gid)))
        return st;
    gnn_ksample_args a = sample_args(s, n, p); /* after begin: the map's arrays may have moved */
    if (s->fused)
        a.insert = s->map.kind == GNN_IDMAP_FUSED ? GNN_KSAMPLE_INSERT_FUSED : GNN_KSAMPLE_INSERT_ORDERED;
    if (gnn_kdev_launch_n(dev, GNN_K_SAMPLE_DRAW, n, GNN_KSAMPLE_BLOCK, &a))
        return GNN_ERR_INTERNAL;
    if (!s->fused && (st = gnn_kmap_insert_nbr(&s->map, s->d_seeds, n, s->d_nbr, nnz, s->d_src_gid)))
        return st;
    if ((st = gnn_kmap_finish(&s->map, s->d_seeds, n, s->d_nbr, nnz, s->d_local, s->d_src_gid, &n_src)))
        return st;
    if ((st = gnn_block_alloc(out, n, n + nnz, nnz)))
        return st;
    if (dev->to_host(out->indptr, s->d_off, ((size_t)n + 1) * sizeof(int64_t)) ||
        (nnz && dev->to_host(out->indices, s->d_local, (size_t)nnz * sizeof(int32_t))) ||
        (n_src && dev->to_host(out->src_gid, s->d_src_gid, (size_t)n_src * sizeof(int64_t)))) {
        gnn_block_free(out);
        return GNN_ERR_INTERNAL;
    }
    out->n_src = n_src;
    out->nnz = nnz;
    return GNN_OK;
}
