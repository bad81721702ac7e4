/* ref/sample.c -- reference uniform neighbor sampler and block construction.
 *
 * Plain C11, no intrinsics, no threads: this file is the specification; opt/ must
 * reproduce its output bit for bit (DESIGN.md section 2).
 *
 * The sampler follows GraphSAGE's fixed-size neighborhood sampling (Hamilton et al. 2017,
 * as used for every layer in DistGNN-MB section 2, Eq. 1): each dst vertex v keeps at most
 * k of its in-neighbors, chosen uniformly without replacement by a partial Fisher-Yates
 * shuffle whose draws come from the keyed stream (seed, SAMPLE, step, layer, id = v).
 * Because the stream of v depends only on (seed, step, layer, v), any thread or rank that
 * samples v makes the same choice. */
#include <stdlib.h>
#include <string.h>
#include "gnnref/idmap.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "gnnref/tensor.h"
#include "ref/sample_ref.h"

void gnn_sampled_free(gnn_sampled *s)
{
    gnn_free(s->dst_gid);
    gnn_free(s->offsets);
    gnn_free(s->nbr_gid);
    memset(s, 0, sizeof *s);
}

/* Number of samples v contributes: min(k, d) without replacement, k with (0 if d == 0). */
static int64_t sample_count(int64_t d, const gnn_sample_params *p)
{
    if (p->fanout < 0)
        return d;
    if (p->replace)
        return d > 0 ? p->fanout : 0;
    return d < p->fanout ? d : p->fanout;
}

gnn_status gnn_sample_uniform_ref(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds,
                                  const gnn_sample_params *p, gnn_sampled *out)
{
    if (p->weights) /* weighted sampling has its own specification: ref/sample_weighted.c */
        return gnn_sample_weighted_ref(g, seeds, n_seeds, p, out);
    memset(out, 0, sizeof *out);
    /* pass 1: output offsets */
    int64_t *offsets = gnn_malloc(((size_t)n_seeds + 1) * sizeof(int64_t));
    int64_t *dst_gid = gnn_malloc((size_t)n_seeds * sizeof(int64_t));
    if (!offsets || !dst_gid)
        goto nomem;
    offsets[0] = 0;
    int64_t max_deg = 0;
    for (int64_t i = 0; i < n_seeds; i++) {
        int64_t v = seeds[i]; /* in [0, g->n): checked by the entry point */
        int64_t d = gnn_csr_degree(g, v);
        if (d > max_deg)
            max_deg = d;
        dst_gid[i] = v;
        offsets[i + 1] = offsets[i] + sample_count(d, p);
    }
    int64_t nnz = offsets[n_seeds];
    int64_t *nbr = gnn_malloc((size_t)nnz * sizeof(int64_t));
    int64_t *pos = gnn_malloc((size_t)max_deg * sizeof(int64_t)); /* scratch: positions 0..d-1 */
    if (!nbr || !pos) {
        gnn_free(nbr);
        gnn_free(pos);
        goto nomem;
    }
    /* pass 2: draw */
    for (int64_t i = 0; i < n_seeds; i++) {
        const int64_t v = seeds[i];
        const int64_t *adj = g->indices + g->indptr[v];
        const int64_t d = gnn_csr_degree(g, v);
        const int64_t k = offsets[i + 1] - offsets[i];
        int64_t *out_v = nbr + offsets[i];
        const gnn_rng_stream s = gnn_rng_stream_make(p->seed, GNN_TAG_SAMPLE, p->step, p->layer,
                                                   gnn_sample_rng_id(p, v));
        if (p->replace && p->fanout >= 0) {
            /* with replacement: k draws uint(d), in draw order */
            for (int64_t j = 0; j < k; j++)
                out_v[j] = adj[gnn_rng_uint(&s, (uint64_t)j, (uint64_t)d)];
        } else if (k == d) {
            /* d <= k: all neighbors in CSR order, no draws */
            for (int64_t j = 0; j < d; j++)
                out_v[j] = adj[j];
        } else {
            /* d > k: partial Fisher-Yates over positions 0..d-1:
             * for j = 0..k-1: r = j + uint(d - j) with draw j; swap pos[j], pos[r]; emit pos[j] */
            for (int64_t j = 0; j < d; j++)
                pos[j] = j;
            for (int64_t j = 0; j < k; j++) {
                int64_t r = j + (int64_t)gnn_rng_uint(&s, (uint64_t)j, (uint64_t)(d - j));
                int64_t t = pos[j];
                pos[j] = pos[r];
                pos[r] = t;
                out_v[j] = adj[pos[j]];
            }
        }
    }
    gnn_free(pos);
    out->n_dst = n_seeds;
    out->nnz = nnz;
    out->dst_gid = dst_gid;
    out->offsets = offsets;
    out->nbr_gid = nbr;
    return GNN_OK;
nomem:
    gnn_free(offsets);
    gnn_free(dst_gid);
    return GNN_ERR_NOMEM;
}

/* Block construction in DGL's to_block order (DESIGN.md section 2, "Orders"): the CSC
 * offsets are the sampled offsets, and the reference ID map (ref/idmap.c) relabels the
 * sampled global ids to block-local ids in first-appearance order. */
gnn_status gnn_block_build_ref(const gnn_sampled *s, gnn_block *out)
{
    const int64_t n_dst = s->n_dst;
    if (n_dst + s->nnz > INT32_MAX)
        return GNN_ERR_RANGE;
    gnn_status st = gnn_block_alloc(out, n_dst, n_dst + s->nnz, s->nnz);
    if (st)
        return st;
    st = gnn_idmap_build_ref(s->dst_gid, n_dst, s->nbr_gid, s->nnz, out->indices, out->src_gid, &out->n_src);
    if (st) {
        gnn_block_free(out);
        return st;
    }
    memcpy(out->indptr, s->offsets, ((size_t)n_dst + 1) * sizeof(int64_t));
    out->nnz = s->nnz;
    return GNN_OK;
}

/* ---- the reference as a sampler object (gnn_sampler_ops, sample.h) ----------------------
 * The object is only the graph; a layer is the specification's two steps: sample the seeds'
 * neighbors in global ids, then build the block in first-appearance order. */
typedef struct ref_sampler {
    const gnn_csr *g;
} ref_sampler;

static gnn_status ref_create(void **state, const gnn_csr *g, const gnn_sampler_options *o)
{
    (void)o; /* one plain pipeline: no variants */
    ref_sampler *s = malloc(sizeof *s);
    if (!s)
        return GNN_ERR_NOMEM;
    s->g = g;
    *state = s;
    return GNN_OK;
}

static gnn_status ref_layer(void *state, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                            gnn_block *out)
{
    const ref_sampler *s = state;
    gnn_sampled sm;
    gnn_status st = gnn_sample_uniform_ref(s->g, seeds, n_seeds, p, &sm);
    if (st)
        return st;
    st = gnn_block_build_ref(&sm, out);
    gnn_sampled_free(&sm);
    return st;
}

static void ref_destroy(void *state) { free(state); }

const gnn_sampler_ops gnn_sampler_ref = {
    .name = "ref",
    .caps = GNN_CAP_DETERMINISTIC,
    .create = ref_create,
    .layer = ref_layer,
    .blocks = NULL, /* the generic layer loop */
    .destroy = ref_destroy,
};
