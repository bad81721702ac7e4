/* core/ops/sampler_base.c -- what the sampler objects' entry points (core/ops/minibatch.c) and
 * the typed sampler's (core/ops/sample_typed.c) share: the layer loop in DGL order, the sampler
 * options' defaults and checks, and the data checks that run once per layer before any body.
 * A file of its own so that minibatch.c -> sample_typed.c -> sampler_base.c is one way (the two
 * had called each other: the typed sampler went back through gnn_sampler_layer for each
 * relation; issue 35, item 2). */
#include <float.h>
#include "gnnref/idmap.h"
#include "gnnref/sample.h"
#include "core/ops/sampler_base.h"

gnn_status gnn_sample_layers(gnn_sample_layer_fn layer, void *ctx, const int64_t *seeds,
                             int64_t n_seeds, const int64_t *fanouts, int L,
                             const gnn_sample_params *base, gnn_block *blocks)
{
    if (L < 1 || L > 255 || !layer || !fanouts || !base || !blocks || n_seeds < 0 || (n_seeds > 0 && !seeds))
        return GNN_ERR_INVAL;
    const int64_t *dst = seeds;
    int64_t n_dst = n_seeds;
    for (int l = L - 1; l >= 0; l--) {
        gnn_sample_params p = *base;
        p.fanout = fanouts[l];
        p.layer = (unsigned)l;
        gnn_status st = layer(ctx, dst, n_dst, &p, &blocks[l]);
        if (st)
            return st;
        dst = blocks[l].src_gid;
        n_dst = blocks[l].n_src;
    }
    return GNN_OK;
}

const char *gnn_sampler_variant_name(gnn_sampler_variant v)
{
    return v == GNN_SAMPLER_FUSED ? "fused" : v == GNN_SAMPLER_UNFUSED ? "unfused" : "unknown";
}

void gnn_sampler_defaults(gnn_sampler_options *o)
{
    if (!o)
        return;
    o->variant = GNN_SAMPLER_FUSED;
    o->idmap = GNN_IDMAP_DENSE;
    o->etype = NULL;
    o->relations = 0;
}

int gnn_sampler_ops_options_valid(const gnn_sampler_ops *ops, const gnn_sampler_options *o)
{
    return ops && ops->create && ops->layer && ops->destroy && o &&
           (o->variant == GNN_SAMPLER_FUSED || o->variant == GNN_SAMPLER_UNFUSED) && o->idmap >= 0 &&
           o->idmap < GNN_IDMAP_KIND_COUNT;
}

/* The data checks of every sampler body, once, in the reference's order (docs/sampling.md):
 * a seed outside [0, g->n) is GNN_ERR_RANGE; then, with weights, a negative, NaN or infinite
 * weight in a seed's row is GNN_ERR_INVAL. In parallel: a layer's seeds are as many as the
 * previous layer's sampled vertices. The bodies (ref/, opt/cpu, opt/cuda) assume both. */
gnn_status gnn_sample_data_check(const gnn_csr *g, const int64_t *seeds, int64_t n, const gnn_sample_params *p)
{
    int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad) if (n >= 4096)
    for (int64_t i = 0; i < n; i++)
        bad |= seeds[i] < 0 || seeds[i] >= g->n;
    if (bad)
        return GNN_ERR_RANGE;
    if (!p->weights)
        return GNN_OK;
#pragma omp parallel for schedule(dynamic, 256) reduction(| : bad) if (n >= 4096)
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = g->indptr[seeds[i]]; e < g->indptr[seeds[i] + 1]; e++)
            bad |= !(p->weights[e] >= 0.0f && p->weights[e] <= FLT_MAX);
    return bad ? GNN_ERR_INVAL : GNN_OK;
}
