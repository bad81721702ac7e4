/* core/ops/minibatch.c -- multi-layer sampling glue (DGL's MultiLayerNeighborSampler order), the
 * sampler objects' checked entry points (sample.h: create, layer, blocks, destroy, dispatched
 * to an implementation's gnn_sampler_ops), the ID map objects' (idmap.h: create, build,
 * destroy, dispatched to a gnn_idmap_ops) and the synthetic edge weights used by measurements.
 * blocks[L-1] has the seeds as dst and fanout fanouts[L-1]; the src vertices of blocks[l+1]
 * are the dst vertices (the seeds) of blocks[l]. The RNG layer index is the block's model layer. */
#include <stdlib.h>
#include <string.h>
#include "gnnref/idmap.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "gnnref/sample_typed.h"
#include "gnnref/tensor.h"
#include "core/ops/sampler_base.h"

/* ---- sampler objects ------------------------------------------------------------------------ */

struct gnn_sampler {
    const gnn_sampler_ops *ops;
    const gnn_csr *g;          /* the graph the seeds and weights are checked against */
    void *state;               /* the implementation's object */
    gnn_typed_sampler *typed;  /* instead, with gnn_sampler_options.etype: one per relation */
    gnn_weight_memo memo;      /* the rows whose weights were found valid (sampler_base.h) */
};

gnn_status gnn_sampler_create(gnn_sampler **out, const gnn_sampler_ops *ops, const gnn_csr *g,
                              const gnn_sampler_options *o)
{
    if (!out)
        return GNN_ERR_INVAL;
    *out = NULL;
    gnn_sampler_options def;
    if (!o) {
        gnn_sampler_defaults(&def);
        o = &def;
    }
    if (!g || !gnn_sampler_ops_options_valid(ops, o))
        return GNN_ERR_INVAL;
    gnn_sampler *s = calloc(1, sizeof *s);
    if (!s)
        return GNN_ERR_NOMEM;
    s->ops = ops;
    s->g = g;
    gnn_status st = o->etype ? gnn_typed_sampler_create(&s->typed, ops, g, o->etype, o->relations, o, NULL)
                             : ops->create(&s->state, g, o);
    if (st) {
        free(s);
        return st;
    }
    *out = s;
    return GNN_OK;
}

void gnn_sampler_destroy(gnn_sampler *s)
{
    if (!s)
        return;
    if (s->typed)
        gnn_typed_sampler_destroy(s->typed);
    else
        s->ops->destroy(s->state);
    gnn_weight_memo_free(&s->memo);
    free(s);
}

const gnn_sampler_ops *gnn_sampler_ops_of(const gnn_sampler *s) { return s ? s->ops : NULL; }

gnn_status gnn_sampler_layer(gnn_sampler *s, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                             gnn_block *out)
{
    if (!out)
        return GNN_ERR_INVAL;
    memset(out, 0, sizeof *out);
    if (!s || !p || n_seeds < 0 || (n_seeds > 0 && !seeds))
        return GNN_ERR_INVAL;
    if (s->typed) /* an entry point of its own (sample_typed.h), which checks the data */
        return gnn_typed_sampler_layer(s->typed, seeds, n_seeds, p, NULL, out);
    const gnn_status st = gnn_sample_data_check(s->g, seeds, n_seeds, p, &s->memo);
    return st ? st : s->ops->layer(s->state, seeds, n_seeds, p, out);
}

static gnn_status sampler_layer_fn(void *ctx, const int64_t *dst, int64_t n_dst, const gnn_sample_params *p,
                                   gnn_block *out)
{
    return gnn_sampler_layer(ctx, dst, n_dst, p, out);
}

gnn_status gnn_sampler_blocks(gnn_sampler *s, const int64_t *seeds, int64_t n_seeds, const int64_t *fanouts, int L,
                              const gnn_sample_params *base, gnn_block *blocks)
{
    if (!s)
        return GNN_ERR_INVAL;
    if (s->ops->blocks && !s->typed) {
        if (L < 1 || L > 255 || !fanouts || !base || !blocks || n_seeds < 0 || (n_seeds > 0 && !seeds))
            return GNN_ERR_INVAL;
        /* the first layer; a blocks body checks its later ones */
        const gnn_status st = gnn_sample_data_check(s->g, seeds, n_seeds, base, &s->memo);
        return st ? st : s->ops->blocks(s->state, seeds, n_seeds, fanouts, L, base, blocks);
    }
    return gnn_sample_layers(sampler_layer_fn, s, seeds, n_seeds, fanouts, L, base, blocks);
}

/* One call: a sampler with the default options, its L blocks, then gone. */
gnn_status gnn_sample_blocks(const gnn_sampler_ops *ops, const gnn_csr *g, const int64_t *seeds, int64_t n_seeds,
                             const int64_t *fanouts, int L, const gnn_sample_params *base, gnn_block *blocks)
{
    gnn_sampler *s;
    gnn_status st = gnn_sampler_create(&s, ops, g, NULL);
    if (st)
        return st;
    st = gnn_sampler_blocks(s, seeds, n_seeds, fanouts, L, base, blocks);
    gnn_sampler_destroy(s);
    return st;
}

/* ---- ID map objects ------------------------------------------------------------------------- */

static const char *const k_idmap_kind_names[GNN_IDMAP_KIND_COUNT] = { "ref", "ordered", "fused", "dense" };

const char *gnn_idmap_kind_name(gnn_idmap_kind k)
{
    return (unsigned)k < GNN_IDMAP_KIND_COUNT ? k_idmap_kind_names[k] : "unknown";
}

gnn_status gnn_idmap_kind_parse(const char *name, gnn_idmap_kind *k)
{
    for (int i = 0; i < GNN_IDMAP_KIND_COUNT; i++)
        if (name && !strcmp(name, k_idmap_kind_names[i])) {
            *k = (gnn_idmap_kind)i;
            return GNN_OK;
        }
    return GNN_ERR_INVAL;
}

int gnn_idmap_kind_ordered(gnn_idmap_kind k) { return k != GNN_IDMAP_FUSED; }

struct gnn_idmap {
    const gnn_idmap_ops *ops;
    void *state;        /* the implementation's map */
    int64_t n_vertices; /* ids are in [0, n_vertices): checked here on every build */
};

gnn_status gnn_idmap_create(gnn_idmap **out, const gnn_idmap_ops *ops, gnn_idmap_kind kind, int64_t n_vertices)
{
    if (!out)
        return GNN_ERR_INVAL;
    *out = NULL;
    if (!ops || !ops->create || !ops->build || !ops->destroy || (unsigned)kind >= GNN_IDMAP_KIND_COUNT ||
        n_vertices < 0)
        return GNN_ERR_INVAL;
    gnn_idmap *m = calloc(1, sizeof *m);
    if (!m)
        return GNN_ERR_NOMEM;
    m->ops = ops;
    m->n_vertices = n_vertices;
    gnn_status st = ops->create(&m->state, kind, n_vertices);
    if (st) {
        free(m);
        return st;
    }
    *out = m;
    return GNN_OK;
}

void gnn_idmap_destroy(gnn_idmap *m)
{
    if (!m)
        return;
    m->ops->destroy(m->state);
    free(m);
}

/* 1 when some id of v (n entries) lies outside [0, n_vertices); in parallel: the neighbor list
 * is as long as a layer's sampled edges */
static int ids_out_of_range(const int64_t *v, int64_t n, int64_t n_vertices)
{
    int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad)
    for (int64_t i = 0; i < n; i++)
        bad |= v[i] < 0 || v[i] >= n_vertices;
    return bad;
}

gnn_status gnn_idmap_build(gnn_idmap *m, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                           int32_t *local, int64_t *src_gid, int64_t *n_src)
{
    if (!m || (n_dst > 0 && !dst) || (nnz > 0 && (!nbr || !local)) || !src_gid || !n_src)
        return GNN_ERR_INVAL;
    if (n_dst < 0 || nnz < 0 || n_dst + nnz > INT32_MAX)
        return GNN_ERR_RANGE;
    if (ids_out_of_range(nbr, nnz, m->n_vertices) || ids_out_of_range(dst, n_dst, m->n_vertices))
        return GNN_ERR_RANGE;
    return m->ops->build(m->state, dst, n_dst, nbr, nnz, local, src_gid, n_src);
}

/* ---- synthetic weights ----------------------------------------------------------------------- */

gnn_status gnn_sample_random_weights(float *w, int64_t nnz, uint64_t seed)
{
    if (nnz < 0 || (uint64_t)nnz >= (1ull << 34) || (nnz > 0 && !w))
        return GNN_ERR_RANGE;
    const gnn_rng_stream s = gnn_rng_stream_make(seed, GNN_TAG_GEN, 0, GNN_SAMPLE_WEIGHT_LAYER, 0);
#pragma omp parallel for schedule(static)
    for (int64_t e = 0; e < nnz; e++)
        w[e] = 0.05f + gnn_rng_float(&s, (uint64_t)e);
    return GNN_OK;
}
