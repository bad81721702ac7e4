/* include/gnnref/sample_typed.h -- neighbor sampling per edge type (heterogeneous graphs).
 *
 * @sec{DistDGLv2 4.1.1}: a heterogeneous graph samples its mini-batches with a fanout per layer
 * applied to every edge type separately: DGL's MultiLayerNeighborSampler([15, 25]) with a scalar
 * fanout draws that many in-neighbors of EACH edge type (next-capabilities C.4 resolves the
 * paper's silence this way, as DGL does; docs/hetero.md section 7).
 *
 * The rule, for dst v, layer l, step t and relations r = 0 .. R-1 in order:
 *   v's in-edges of relation r, in the graph's CSR order, form a row of degree d_r (the
 *   relation's graph, gnn_typed_graph below); the sample.h rule (uniform or weighted, with or
 *   without replacement) picks fanout_r of them with the stream id v + r * 2^40
 *   (gnn_sample_params.rng_id_offset = r << GNN_SAMPLE_TYPED_ID_SHIFT), so every relation draws
 *   from its own stream and relation 0 draws what the untyped sampler draws.
 * The block lists, for each dst, relation 0's samples, then relation 1's, ..., each in draw
 * order; block.etype[e] is the relation of edge e. Its src vertices are numbered in first
 * appearance (dst first, then the edges in that order), whichever ID map the relation
 * samplers use, so the block is the same for every implementation, variant and ID map. With
 * one relation it is the untyped sampler's block, bit for bit (the oracle checks both). */
#ifndef GNNREF_SAMPLE_TYPED_H
#define GNNREF_SAMPLE_TYPED_H

#include <stdint.h>
#include "gnnref/sample.h"
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Relation r's stream ids are v + (r << 40): the stream keeps 48 bits of the id (rng.h), so
 * vertex ids below 2^40 and up to 256 relations stay distinct. */
#define GNN_SAMPLE_TYPED_ID_SHIFT 40
#define GNN_SAMPLE_TYPED_MAX_RELATIONS 256

/* The relations' graphs of a typed graph: rel[r] has g's n rows, row v listing v's in-edges of
 * relation r in g's CSR order. */
typedef struct gnn_typed_graph {
    int64_t R;
    gnn_csr *rel; /* (R) owned */
} gnn_typed_graph;

/* Split g by etype (g->nnz entries in [0, R), aligned with g->indices).
 * GNN_ERR_INVAL: NULL arguments, R outside 1 .. GNN_SAMPLE_TYPED_MAX_RELATIONS, a graph of
 * 2^40 vertices or more; GNN_ERR_RANGE: an edge type out of range (err names the edge). */
gnn_status gnn_typed_graph_build(gnn_typed_graph *tg, const gnn_csr *g, const int32_t *etype, int64_t R,
                                 gnn_err *err);
void gnn_typed_graph_free(gnn_typed_graph *tg);

/* A typed sampler: one sampler of the given implementation (gnn_sampler_ref, gnn_sampler_cpu)
 * per relation, and the merge into one block. Not reentrant (one call at a time per object).
 * g and etype must outlive it. o may be NULL (gnn_sampler_defaults); its etype is ignored.
 * gnn_sampler_create makes one when gnn_sampler_options.etype is set, so the trainers need
 * nothing else (sample.h). */
typedef struct gnn_typed_sampler gnn_typed_sampler;
gnn_status gnn_typed_sampler_create(gnn_typed_sampler **s, const gnn_sampler_ops *ops, const gnn_csr *g,
                                    const int32_t *etype, int64_t R, const gnn_sampler_options *o, gnn_err *err);
void gnn_typed_sampler_destroy(gnn_typed_sampler *s);
int64_t gnn_typed_sampler_relations(const gnn_typed_sampler *s);

/* One layer: fanout_r = rel_fanout ? rel_fanout[r] : p->fanout for relation r (< 0: all).
 * p->weights are g's (aligned with g->indices; split per relation once per weights_version);
 * p->rng_id_offset is the sampler's own: pass 0. out is zeroed here, then allocated with
 * out->etype set.
 * Seeds unique (GNN_ERR_INVAL) and in range (GNN_ERR_RANGE), as gnn_sampler_layer. */
gnn_status gnn_typed_sampler_layer(gnn_typed_sampler *s, const int64_t *seeds, int64_t n_seeds,
                                   const gnn_sample_params *p, const int64_t *rel_fanout, gnn_block *out);
/* L layers in DGL order (gnn_sample_layers), fanouts[l] per relation at layer l. */
gnn_status gnn_typed_sampler_blocks(gnn_typed_sampler *s, const int64_t *seeds, int64_t n_seeds,
                                    const int64_t *fanouts, int L, const gnn_sample_params *base,
                                    gnn_block *blocks);

#ifdef __cplusplus
}
#endif
#endif
