/* include/gnnref/sample.h -- neighbor sampling and mini-batch block construction.
 *
 * Uniform sampling without replacement of dst vertex v at layer l, step t, fanout k,
 * degree d (DESIGN.md section 2; tag GNN_TAG_SAMPLE, id = v):
 *   d <= k (or k < 0, "all"): all neighbors in CSR order, no draws;
 *   d >  k: partial Fisher-Yates over positions 0..d-1: for j = 0..k-1,
 *           r = j + uint(d - j) with draw j, swap positions j and r; output positions 0..k-1.
 * With replacement: k draws uint(d), in draw order (d = 0 gives no samples).
 * Block construction (DGL to_block): see include/gnnref/graph.h. */
#ifndef GNNREF_SAMPLE_H
#define GNNREF_SAMPLE_H

#include <stdint.h>
#include "gnnref/aggregate.h" /* GNN_CAP_* */
#include "gnnref/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gnn_sample_params {
    int64_t fanout;   /* k; < 0 means all neighbors */
    int replace;      /* 0: without replacement, 1: with replacement */
    uint64_t seed;
    uint32_t step;    /* global iteration */
    unsigned layer;   /* model layer index of the block (0 = input layer) */
    const float *weights; /* NULL: uniform. Else (g->nnz) non-negative finite per-edge weights,
                           * aligned with g->indices (weights[e] belongs to g->indices[e]);
                           * a neighbor of weight 0 is never drawn. Method: docs/sampling.md. */
    uint64_t weights_version; /* set a new value after changing weights in place: the cpu sampler
                               * caches per-row data of the weights it last saw (docs/sampling.md
                               * section 8), and the entry point the rows it found valid (5.1);
                               * both are dropped when this changes; no effect on draws */
    const int64_t *rng_ids; /* NULL: vertex v draws from the stream with id = v. Else (g->n) the
                             * id each vertex draws with, rng_ids[v]: a partition's VID_o, so that
                             * a part's local graph (whose rows list the global in-edges in CSR
                             * order) draws exactly what the global graph draws (docs/hec.md). */
    uint64_t rng_id_offset; /* added to that id: 0 for plain sampling; relation r of a typed
                             * sampler draws with r << GNN_SAMPLE_TYPED_ID_SHIFT
                             * (include/gnnref/sample_typed.h), so relations draw independently */
} gnn_sample_params;

/* The stream id vertex v of g draws with (DESIGN.md section 2, tag GNN_TAG_SAMPLE): one
 * definition for every sampler. The stream keeps 48 bits of it (rng.h). */
static inline uint64_t gnn_sample_rng_id(const gnn_sample_params *p, int64_t v)
{
    return (uint64_t)(p->rng_ids ? p->rng_ids[v] : v) + p->rng_id_offset;
}

/* The layer loop behind gnn_sample_blocks and gnn_sampler_blocks, in one place (the layer
 * order and the RNG layer index are part of the determinism contract): calls
 * layer(ctx, dst, n_dst, p, &blocks[l]) for l = L-1 down to 0 with p = *base, p.fanout =
 * fanouts[l], p.layer = l, starting from the seeds and continuing from each block's src. */
typedef gnn_status (*gnn_sample_layer_fn)(void *ctx, const int64_t *dst, int64_t n_dst,
                                          const gnn_sample_params *p, gnn_block *out);
gnn_status gnn_sample_layers(gnn_sample_layer_fn layer, void *ctx, const int64_t *seeds,
                             int64_t n_seeds, const int64_t *fanouts, int L,
                             const gnn_sample_params *base, gnn_block *blocks);

/* Synthetic per-edge weights for measurements (`gnnref sample --weights random`, the sampler
 * benchmarks): w[e] = 0.05 + float draw e of (seed, GNN_TAG_GEN, step 0, layer
 * GNN_SAMPLE_WEIGHT_LAYER, id 0). Layer 8 of tag GEN is used by no generator, so the weights
 * do not repeat a generator's draws. nnz must be below 2^34 (float draw e uses block e / 4). */
#define GNN_SAMPLE_WEIGHT_LAYER 8u
gnn_status gnn_sample_random_weights(float *w, int64_t nnz, uint64_t seed);

/* ---- sampler objects: one reusable object per graph, from an ops table ----------------------
 * The cpu samplers (opt/cpu/sample.c):
 * variant FUSED: one pass per layer samples every dst in parallel and inserts each sampled
 *   neighbor into the ID map as it is drawn, writing the CSC block directly (the Intel/DGL
 *   fused sampling with compaction);
 * variant UNFUSED: the classic pipeline with intermediate arrays: sample to COO, unique,
 *   relabel, convert to CSC (each step a separate parallel pass).
 * Both produce exactly the reference block (gnn_sampler_ref: sample, then build) at any thread
 * count with an ordered ID map (GNN_IDMAP_ORDERED, GNN_IDMAP_DENSE, GNN_IDMAP_REF); with
 * GNN_IDMAP_FUSED (FastGL's Fused-Map) the src order is unordered and equal to the reference
 * only after canonical relabelling. */
typedef enum gnn_sampler_variant { GNN_SAMPLER_FUSED = 0, GNN_SAMPLER_UNFUSED = 1 } gnn_sampler_variant;
const char *gnn_sampler_variant_name(gnn_sampler_variant v);

/* What an implementation may be told beyond the graph; the reference ignores both (it is
 * one plain pipeline), the cpu sampler uses them. */
typedef struct gnn_sampler_options {
    gnn_sampler_variant variant; /* default GNN_SAMPLER_FUSED */
    int idmap;                   /* a gnn_idmap_kind (idmap.h); default GNN_IDMAP_DENSE */
    /* Heterogeneous graphs: with etype set (g->nnz relation ids in [0, relations), aligned with
     * g->indices, outliving the sampler), the sampler samples each relation with the layer's
     * fanout and its blocks carry block.etype (include/gnnref/sample_typed.h). Default NULL. */
    const int32_t *etype;
    int64_t relations;
} gnn_sampler_options;
void gnn_sampler_defaults(gnn_sampler_options *o);

/* A sampler implementation: an object per graph that samples layers. The entry points below
 * check every argument once, so the bodies may assume valid ones. */
typedef struct gnn_sampler_ops {
    const char *name; /* "ref", "cpu" */
    unsigned caps;    /* GNN_CAP_* (aggregate.h) */
    /* *state: the implementation's object for g (g outlives it) */
    gnn_status (*create)(void **state, const gnn_csr *g, const gnn_sampler_options *o);
    /* one layer into out (zeroed by the caller; allocated here, freed on error) */
    gnn_status (*layer)(void *state, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                        gnn_block *out);
    /* L layers in DGL order; NULL: gnn_sample_layers over layer */
    gnn_status (*blocks)(void *state, const int64_t *seeds, int64_t n_seeds, const int64_t *fanouts, int L,
                         const gnn_sample_params *base, gnn_block *blocks);
    void (*destroy)(void *state);
} gnn_sampler_ops;

/* ref: the specification's two steps per layer, sample the neighbors in global ids, then build
 * the block in first-appearance order (ref/sample.c, ref/sample_weighted.c, ref/sample_ref.h);
 * cpu: the OpenMP samplers above (opt/cpu/sample.c). */
extern const gnn_sampler_ops gnn_sampler_ref, gnn_sampler_cpu;
/* The CUDA samplers (opt/cuda/sample.cu, opt/cuda/sample_emu.c; docs/cuda_sampling.md): one thread
 * per dst with the reference's keyed draws, then the ordered ID map (every kind but FUSED: bitwise
 * the reference) or FastGL's Fused-Map (FUSED: canonical); variant FUSED inserts each sample into
 * the map as it is drawn. Uniform only: weighted parameters are checked as the reference checks
 * them, then refused with GNN_ERR_UNSUPPORTED; so are typed samplers (etype). cuda needs a GPU
 * (create returns GNN_ERR_UNSUPPORTED without one); cuda-emu runs the same kernels' bodies on the
 * CPU. */
extern const gnn_sampler_ops gnn_sampler_cuda, gnn_sampler_cuda_emu;

typedef struct gnn_sampler gnn_sampler; /* an implementation's object and its ops */

/* o may be NULL: gnn_sampler_defaults. GNN_ERR_INVAL for a NULL ops or graph, an unknown
 * variant or ID map kind. The graph must outlive the sampler. */
gnn_status gnn_sampler_create(gnn_sampler **s, const gnn_sampler_ops *ops, const gnn_csr *g,
                              const gnn_sampler_options *o);
void gnn_sampler_destroy(gnn_sampler *s);
const gnn_sampler_ops *gnn_sampler_ops_of(const gnn_sampler *s);
/* One layer: sample p->fanout neighbors of each seed and build the block (out is zeroed
 * here, then allocated). Seeds must be unique (GNN_ERR_INVAL) and in range (GNN_ERR_RANGE). */
gnn_status gnn_sampler_layer(gnn_sampler *s, const int64_t *seeds, int64_t n_seeds,
                             const gnn_sample_params *p, gnn_block *out);
/* L layers in DGL order (gnn_sample_layers below: blocks[L-1] from the seeds, blocks[l]'s dst are
 * blocks[l+1]'s src), or the implementation's own blocks. blocks must hold L zeroed gnn_block;
 * GNN_ERR_INVAL for L outside [1, 255] or a NULL argument. */
gnn_status gnn_sampler_blocks(gnn_sampler *s, const int64_t *seeds, int64_t n_seeds,
                              const int64_t *fanouts, int L, const gnn_sample_params *base,
                              gnn_block *blocks);

/* Multi-layer sampling (DGL order) in one call: a sampler of ops over g with the default options
 * (gnn_sampler_create), L layers (gnn_sampler_blocks), then destroyed. blocks[L-1] has dst =
 * seeds and fanout fanouts[L-1]; blocks[l]'s dst are blocks[l+1]'s src. blocks must hold L
 * zeroed gnn_block. base->fanout and base->layer are ignored (set per layer); replace, seed,
 * step, weights and rng_ids are used. Errors as gnn_sampler_create and gnn_sampler_blocks. */
gnn_status gnn_sample_blocks(const gnn_sampler_ops *ops, const gnn_csr *g, const int64_t *seeds,
                             int64_t n_seeds, const int64_t *fanouts, int L,
                             const gnn_sample_params *base, gnn_block *blocks);

#ifdef __cplusplus
}
#endif
#endif
