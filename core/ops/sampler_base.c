/* core/ops/sampler_base.c -- what the sampler objects' entry points (core/ops/minibatch.c) and
 * the typed sampler's (core/ops/sample_typed.c) share: the layer loop in DGL order, the sampler
 * options' defaults and checks, and the data checks that run once per layer before any body.
 * A file of its own so that minibatch.c -> sample_typed.c -> sampler_base.c is one way (the two
 * had called each other: the typed sampler went back through gnn_sampler_layer for each
 * relation; issue 35, item 2). */
#include <float.h>
#include <string.h>
#include "gnnref/idmap.h"
#include "gnnref/sample.h"
#include "gnnref/tensor.h"
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

uint64_t gnn_sample_weights_fingerprint(const float *w, int64_t nnz)
{
    uint64_t h = (uint64_t)nnz;
    for (int64_t j = 0; nnz > 0 && j < GNN_SAMPLE_WEIGHT_PROBES; j++) {
        uint32_t bits;
        memcpy(&bits, &w[gnn_sample_weight_probe(j, nnz)], sizeof bits); /* 0 .. nnz - 1 */
        h = (h ^ bits) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    return h;
}

void gnn_weight_memo_free(gnn_weight_memo *m)
{
    gnn_free(m->bits);
    memset(m, 0, sizeof *m);
}

/* The memo's bits for p's weights over g, cleared when the key changed; NULL without a memo or
 * when its bits cannot be allocated (then every row is read: slower, never wrong). */
static uint64_t *memo_bind(gnn_weight_memo *m, const gnn_csr *g, const gnn_sample_params *p)
{
    if (!m)
        return NULL;
    const size_t words = ((size_t)g->n + 63) / 64 + 1;
    const uint64_t fp = gnn_sample_weights_fingerprint(p->weights, g->nnz);
    if (!m->bits) {
        if (!(m->bits = gnn_malloc(words * sizeof(uint64_t))))
            return NULL;
        m->w = NULL; /* forces the clear below */
    }
    if (m->w != p->weights || m->version != p->weights_version || m->fp != fp) {
        memset(m->bits, 0, words * sizeof(uint64_t));
        m->w = p->weights;
        m->version = p->weights_version;
        m->fp = fp;
    }
    return m->bits;
}

/* 1 when a weight of row v is negative, NaN or infinite */
static int row_weights_bad(const gnn_csr *g, const float *w, int64_t v)
{
    for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++)
        if (!(w[e] >= 0.0f && w[e] <= FLT_MAX))
            return 1;
    return 0;
}

/* The data checks of every sampler body, once, in the reference's order (docs/sampling.md):
 * a seed outside [0, g->n) is GNN_ERR_RANGE; then, with weights, a negative, NaN or infinite
 * weight in a seed's row is GNN_ERR_INVAL. In parallel: a layer's seeds are as many as the
 * previous layer's sampled vertices. The bodies (ref/, opt/cpu, opt/cuda) assume both. */
gnn_status gnn_sample_data_check(const gnn_csr *g, const int64_t *seeds, int64_t n, const gnn_sample_params *p,
                                 gnn_weight_memo *memo)
{
    int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad) if (n >= 4096)
    for (int64_t i = 0; i < n; i++)
        bad |= seeds[i] < 0 || seeds[i] >= g->n;
    if (bad)
        return GNN_ERR_RANGE;
    if (!p->weights)
        return GNN_OK;
    uint64_t *bits = memo_bind(memo, g, p);
#pragma omp parallel for schedule(dynamic, 256) reduction(| : bad) if (n >= 4096)
    for (int64_t i = 0; i < n; i++) {
        const int64_t v = seeds[i];
        const uint64_t bit = (uint64_t)1 << (v & 63);
        uint64_t word = 0;
        if (bits) {
#pragma omp atomic read
            word = bits[v >> 6];
        }
        if (word & bit)
            continue; /* found valid under this key before */
        if (row_weights_bad(g, p->weights, v)) {
            bad = 1;
        } else if (bits) {
#pragma omp atomic update
            bits[v >> 6] |= bit;
        }
    }
    return bad ? GNN_ERR_INVAL : GNN_OK;
}
