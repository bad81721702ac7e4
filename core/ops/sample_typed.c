/* core/ops/sample_typed.c -- sampling per edge type: the relations' graphs, one sampler per
 * relation, and the merge of their blocks (include/gnnref/sample_typed.h, docs/hetero.md
 * section 7). @sec{DistDGLv2 4.1.1}
 *
 * Why a merge of per-relation blocks and not a sampler of its own: each relation's draws are
 * the plain sampler's rule on the relation's graph (only the stream id moves), so every
 * implementation, variant and ID map the samplers have serves the typed case too, and the
 * oracle's sampler checks cover the draws. The merge renumbers the src vertices in first
 * appearance over (dst, relation, draw), which is what the reference's block construction
 * (gnn_block_build_ref) does to the concatenated samples: the block is the same whichever ID
 * map numbered the relations' blocks.
 *
 * The relations' samplers are the implementation's objects themselves (ops->create, ops->layer),
 * not gnn_sampler objects: gnn_typed_sampler_layer is an entry point and checks the layer's data
 * once, against g (the relations' rows together are g's rows), before any relation's body; this
 * file then calls nothing of core/ops/minibatch.c, which calls it (one way; issue 35, item 2). */
#include <stdlib.h>
#include <string.h>
#include "gnnref/sample_typed.h"
#include "gnnref/tensor.h"
#include "core/ops/sampler_base.h"

void gnn_typed_graph_free(gnn_typed_graph *tg)
{
    if (!tg)
        return;
    for (int64_t r = 0; tg->rel && r < tg->R; r++)
        gnn_csr_free(&tg->rel[r]);
    free(tg->rel);
    memset(tg, 0, sizeof *tg);
}

/* Relation r's rows: counts per (r, v), then each edge copied in CSR order. */
static gnn_status typed_graph_fill(gnn_typed_graph *tg, const gnn_csr *g, const int32_t *etype)
{
    const int64_t n = g->n, R = tg->R;
    for (int64_t r = 0; r < R; r++) {
        gnn_csr *q = &tg->rel[r];
        q->n = n;
        q->owns = 1;
        if (!(q->indptr = gnn_calloc((size_t)n + 1, sizeof(int64_t))))
            return GNN_ERR_NOMEM;
    }
    for (int64_t v = 0; v < n; v++)
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++)
            tg->rel[etype[e]].indptr[v + 1]++;
    for (int64_t r = 0; r < R; r++) {
        gnn_csr *q = &tg->rel[r];
        for (int64_t v = 0; v < n; v++)
            q->indptr[v + 1] += q->indptr[v];
        q->nnz = q->indptr[n];
        /* at least one element, so that an empty relation still has valid arrays */
        if (!(q->indices = gnn_malloc(((size_t)q->nnz + 1) * sizeof(int64_t))))
            return GNN_ERR_NOMEM;
    }
    int64_t *fill = gnn_calloc((size_t)R, sizeof(int64_t));
    if (!fill)
        return GNN_ERR_NOMEM;
    for (int64_t v = 0; v < n; v++) {
        for (int64_t r = 0; r < R; r++)
            fill[r] = tg->rel[r].indptr[v];
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
            const int32_t r = etype[e];
            tg->rel[r].indices[fill[r]++] = g->indices[e];
        }
    }
    gnn_free(fill);
    return GNN_OK;
}

gnn_status gnn_typed_graph_build(gnn_typed_graph *tg, const gnn_csr *g, const int32_t *etype, int64_t R, gnn_err *err)
{
    if (!tg)
        return gnn_err_set(err, GNN_ERR_INVAL, "typed graph: NULL output");
    memset(tg, 0, sizeof *tg);
    if (!g || (!etype && g->nnz > 0))
        return gnn_err_set(err, GNN_ERR_INVAL, "typed graph: NULL graph or edge types");
    if (R < 1 || R > GNN_SAMPLE_TYPED_MAX_RELATIONS)
        return gnn_err_set(err, GNN_ERR_INVAL, "typed graph: %lld relations (expected 1..%d)", (long long)R,
                           GNN_SAMPLE_TYPED_MAX_RELATIONS);
    if (g->n >= ((int64_t)1 << GNN_SAMPLE_TYPED_ID_SHIFT))
        return gnn_err_set(err, GNN_ERR_INVAL, "typed graph: %lld vertices; typed sampling keys relation r's "
                           "draws by v + r * 2^%d, so it needs fewer than 2^%d", (long long)g->n,
                           GNN_SAMPLE_TYPED_ID_SHIFT, GNN_SAMPLE_TYPED_ID_SHIFT);
    for (int64_t e = 0; e < g->nnz; e++)
        if (etype[e] < 0 || etype[e] >= R)
            return gnn_err_set(err, GNN_ERR_RANGE, "typed graph: edge %lld has type %d (expected 0..%lld)",
                               (long long)e, etype[e], (long long)R - 1);
    tg->R = R;
    tg->rel = calloc((size_t)R, sizeof *tg->rel);
    gnn_status st = !tg->rel ? GNN_ERR_NOMEM : typed_graph_fill(tg, g, etype);
    if (st) {
        gnn_typed_graph_free(tg);
        return gnn_err_set(err, st, "typed graph: out of memory splitting %lld edges into %lld relations",
                           (long long)g->nnz, (long long)R);
    }
    return GNN_OK;
}

/* ---- the typed sampler --------------------------------------------------------------------- */

struct gnn_typed_sampler {
    const gnn_csr *g;
    const int32_t *etype;
    gnn_typed_graph tg;
    const gnn_sampler_ops *ops;
    void **rel;         /* (R) the implementation's object per relation graph (NULL: not made) */
    gnn_block *parts;   /* (R) one layer's relation blocks (scratch) */
    int32_t *local;     /* (n) the merge's gid -> block-local id, -1 between calls */
    /* the relations' weights, split from the caller's when its (pointer, version) changes */
    float *rel_w;       /* (nnz) relation r's at rel_w + tg.rel[0].nnz + ... */
    const float *w_of;
    uint64_t w_version, w_gen;
    gnn_weight_memo memo; /* the rows whose weights were found valid (sampler_base.h) */
};

void gnn_typed_sampler_destroy(gnn_typed_sampler *s)
{
    if (!s)
        return;
    for (int64_t r = 0; s->rel && r < s->tg.R; r++)
        if (s->rel[r])
            s->ops->destroy(s->rel[r]);
    free(s->rel);
    free(s->parts);
    gnn_free(s->local);
    gnn_free(s->rel_w);
    gnn_typed_graph_free(&s->tg);
    gnn_weight_memo_free(&s->memo);
    free(s);
}

int64_t gnn_typed_sampler_relations(const gnn_typed_sampler *s) { return s ? s->tg.R : 0; }

gnn_status gnn_typed_sampler_create(gnn_typed_sampler **out, const gnn_sampler_ops *ops, const gnn_csr *g,
                                    const int32_t *etype, int64_t R, const gnn_sampler_options *o, gnn_err *err)
{
    if (!out)
        return gnn_err_set(err, GNN_ERR_INVAL, "typed sampler: NULL output");
    *out = NULL;
    gnn_sampler_options plain;
    gnn_sampler_defaults(&plain);
    if (o)
        plain = *o;
    plain.etype = NULL; /* each relation's sampler is a plain one */
    plain.relations = 0;
    if (!gnn_sampler_ops_options_valid(ops, &plain))
        return gnn_err_set(err, GNN_ERR_INVAL, "typed sampler: NULL or incomplete implementation, or unknown options");
    gnn_typed_sampler *s = calloc(1, sizeof *s);
    if (!s)
        return gnn_err_set(err, GNN_ERR_NOMEM, "typed sampler: out of memory");
    gnn_status st = gnn_typed_graph_build(&s->tg, g, etype, R, err);
    if (st) {
        free(s);
        return st;
    }
    s->g = g;
    s->etype = etype;
    s->ops = ops;
    s->rel = calloc((size_t)R, sizeof *s->rel);
    s->parts = calloc((size_t)R, sizeof *s->parts);
    s->local = gnn_malloc(((size_t)g->n + 1) * sizeof(int32_t));
    if (!s->rel || !s->parts || !s->local) {
        gnn_typed_sampler_destroy(s);
        return gnn_err_set(err, GNN_ERR_NOMEM, "typed sampler: out of memory");
    }
    for (int64_t v = 0; v < g->n; v++)
        s->local[v] = -1;
    for (int64_t r = 0; r < R; r++)
        if ((st = ops->create(&s->rel[r], &s->tg.rel[r], &plain))) {
            s->rel[r] = NULL;
            gnn_typed_sampler_destroy(s);
            return gnn_err_set(err, st, "typed sampler: relation %lld's %s sampler: %s", (long long)r, ops->name,
                               gnn_status_str(st));
        }
    *out = s;
    return GNN_OK;
}

/* The relations' weights from the caller's w (aligned with g's edges), in the relation graphs'
 * order; redone only when w or its version changes. */
static gnn_status typed_weights(gnn_typed_sampler *s, const float *w, uint64_t version)
{
    if (s->rel_w && s->w_of == w && s->w_version == version)
        return GNN_OK;
    const gnn_csr *g = s->g;
    const int64_t R = s->tg.R;
    if (!s->rel_w && !(s->rel_w = gnn_malloc(((size_t)g->nnz + 1) * sizeof(float))))
        return GNN_ERR_NOMEM;
    int64_t *fill = gnn_calloc((size_t)R, sizeof(int64_t));
    if (!fill)
        return GNN_ERR_NOMEM;
    int64_t off = 0;
    for (int64_t r = 0; r < R; r++) /* relation r's block of rel_w */
        fill[r] = off, off += s->tg.rel[r].nnz;
    for (int64_t e = 0; e < g->nnz; e++) /* g's CSR order is each relation's row order */
        s->rel_w[fill[s->etype[e]]++] = w[e];
    gnn_free(fill);
    s->w_of = w;
    s->w_version = version;
    s->w_gen++; /* the relation samplers' version: their caches see every rebuild */
    return GNN_OK;
}

/* Concatenate the relation blocks per dst (relation order, draw order) and number the srcs in
 * first appearance; s->local is -1 everywhere before and after. */
static gnn_status typed_merge(gnn_typed_sampler *s, const int64_t *seeds, int64_t n_seeds, gnn_block *out)
{
    const int64_t R = s->tg.R;
    int64_t nnz = 0;
    for (int64_t r = 0; r < R; r++)
        nnz += s->parts[r].nnz;
    const int64_t cap_src = n_seeds + nnz < s->g->n ? n_seeds + nnz : s->g->n;
    gnn_status st = gnn_block_alloc(out, n_seeds, cap_src < n_seeds ? n_seeds : cap_src, nnz);
    if (st)
        return st;
    if (!(out->etype = gnn_malloc(((size_t)nnz + 1) * sizeof(int32_t)))) {
        gnn_block_free(out);
        return GNN_ERR_NOMEM;
    }
    int32_t *local = s->local;
    for (int64_t i = 0; i < n_seeds; i++) {
        out->src_gid[i] = seeds[i];
        local[seeds[i]] = (int32_t)i;
    }
    int64_t ns = n_seeds, pos = 0;
    for (int64_t i = 0; i < n_seeds; i++) {
        for (int64_t r = 0; r < R; r++) {
            const gnn_block *b = &s->parts[r];
            for (int64_t e = b->indptr[i]; e < b->indptr[i + 1]; e++) {
                const int64_t gid = b->src_gid[b->indices[e]];
                if (local[gid] < 0) {
                    local[gid] = (int32_t)ns;
                    out->src_gid[ns++] = gid;
                }
                out->indices[pos] = local[gid];
                out->etype[pos++] = (int32_t)r;
            }
        }
        out->indptr[i + 1] = pos;
    }
    out->n_src = ns;
    out->nnz = nnz;
    for (int64_t j = 0; j < ns; j++)
        local[out->src_gid[j]] = -1;
    return GNN_OK;
}

gnn_status gnn_typed_sampler_layer(gnn_typed_sampler *s, const int64_t *seeds, int64_t n_seeds,
                                   const gnn_sample_params *p, const int64_t *rel_fanout, gnn_block *out)
{
    if (!out)
        return GNN_ERR_INVAL;
    memset(out, 0, sizeof *out);
    if (!s || !p || n_seeds < 0 || (n_seeds > 0 && !seeds) || p->rng_id_offset)
        return GNN_ERR_INVAL;
    gnn_status st = gnn_sample_data_check(s->g, seeds, n_seeds, p, &s->memo);
    if (!st && p->weights)
        st = typed_weights(s, p->weights, p->weights_version);
    const int64_t R = s->tg.R;
    int64_t off = 0;
    for (int64_t r = 0; r < R && !st; r++) {
        gnn_sample_params q = *p;
        q.fanout = rel_fanout ? rel_fanout[r] : p->fanout;
        q.weights = p->weights ? s->rel_w + off : NULL;
        q.weights_version = s->w_gen;
        q.rng_id_offset = (uint64_t)r << GNN_SAMPLE_TYPED_ID_SHIFT;
        memset(&s->parts[r], 0, sizeof s->parts[r]);
        st = s->ops->layer(s->rel[r], seeds, n_seeds, &q, &s->parts[r]);
        off += s->tg.rel[r].nnz;
    }
    if (!st)
        st = typed_merge(s, seeds, n_seeds, out);
    for (int64_t r = 0; r < R; r++)
        gnn_block_free(&s->parts[r]);
    return st;
}

static gnn_status typed_layer_fn(void *ctx, const int64_t *dst, int64_t n_dst, const gnn_sample_params *p,
                                 gnn_block *out)
{
    return gnn_typed_sampler_layer(ctx, dst, n_dst, p, NULL, out);
}

gnn_status gnn_typed_sampler_blocks(gnn_typed_sampler *s, const int64_t *seeds, int64_t n_seeds,
                                    const int64_t *fanouts, int L, const gnn_sample_params *base,
                                    gnn_block *blocks)
{
    if (!s)
        return GNN_ERR_INVAL;
    return gnn_sample_layers(typed_layer_fn, s, seeds, n_seeds, fanouts, L, base, blocks);
}
