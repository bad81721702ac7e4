/* oracle/op_sampler.c -- oracle entries for the optimized samplers (gnn_sampler_*, declared in
 * include/gnnref/sample.h; opt/cpu/sample.c) against the reference pipeline.
 *
 *   sample.layer          bitwise: one layer (gnn_sampler_layer) of every variant (fused,
 *                         unfused) with every ordered ID map (ordered, dense, ref) equals
 *                         the reference sampler (gnn_sample_uniform_ref, or
 *                         gnn_sample_weighted_ref with weights) followed by
 *                         gnn_block_build_ref: n_src, indptr,
 *                         indices and src_gid, every bit, at 1, 2 and 4 threads;
 *   sample.layer.fusedmap canonical: the same with FastGL's Fused-Map, whose new src come in
 *                         arrival order: equal after relabelling (gnn_oracle_compare_blocks);
 *   sample.blocks         bitwise: L layers in DGL order (gnn_sampler_blocks) against
 *                         gnn_sample_blocks with that reference, layer by layer, with the
 *                         chain checked (each block's dst are the src of the block above);
 *   sample.blocks.fusedmap canonical: the same with the Fused-Map (its unordered src become
 *                         the next layer's dst, so the lower layers are relabelled on both
 *                         sides, dst included).
 *
 * Every mode: uniform without and with replacement, weighted (per-edge weights with zeros)
 * without and with replacement. Graphs: R-MAT (gnn_gen_rmat, Graph500 parameters, vertex 0 the
 * hub, many isolated vertices) and SBM (gnn_gen_sbm, 4 classes), 2^scale vertices, generated
 * from the case seed. Each case calls the SAME sampler object twice (steps t and t + 1), so
 * scratch state a sampler keeps between calls (a dense map's touched entries) is checked too;
 * the equality at every thread count is the determinism contract of DESIGN.md section 2. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gnnref/dataset.h"
#include "gnnref/idmap.h"
#include "gnnref/cuda.h"
#include "gnnref/oracle.h"
#include "gnnref/sample.h"

/* ---- implementations ---------------------------------------------------------------------- */

/* Every implementation is a real sampler table (sample.h) and the options its object is created
 * with, side by side on one line so the name `gnnref oracle --list` prints and what runs cannot
 * drift apart. The reference is gnn_sampler_ref: sample (gnn_sample_uniform_ref, which hands
 * weighted parameters to gnn_sample_weighted_ref; sample.weighted's "ref-dispatch" checks that
 * it does), then gnn_block_build_ref, per layer. */
#define SAMPLER_IMPL(var, name_, ops_, variant_, idmap_, flags_)                                   \
    static const gnn_oracle_impl var = { .name = name_, .ops = &ops_, .flags = flags_ };          \
    static const gnn_sampler_options var##_options = { .variant = variant_, .idmap = idmap_ }
SAMPLER_IMPL(k_sampler_ref, "ref", gnn_sampler_ref, GNN_SAMPLER_FUSED, GNN_IDMAP_DENSE, 0);
SAMPLER_IMPL(k_fused_ordered, "fused-ordered", gnn_sampler_cpu, GNN_SAMPLER_FUSED, GNN_IDMAP_ORDERED, GNN_ORACLE_THREADED);
SAMPLER_IMPL(k_fused_dense, "fused-dense", gnn_sampler_cpu, GNN_SAMPLER_FUSED, GNN_IDMAP_DENSE, GNN_ORACLE_THREADED);
SAMPLER_IMPL(k_fused_refmap, "fused-ref", gnn_sampler_cpu, GNN_SAMPLER_FUSED, GNN_IDMAP_REF, GNN_ORACLE_THREADED);
SAMPLER_IMPL(k_fused_fused, "fused-fused", gnn_sampler_cpu, GNN_SAMPLER_FUSED, GNN_IDMAP_FUSED,
             GNN_ORACLE_THREADED);
SAMPLER_IMPL(k_unfused_ordered, "unfused-ordered", gnn_sampler_cpu, GNN_SAMPLER_UNFUSED, GNN_IDMAP_ORDERED,
             GNN_ORACLE_THREADED);
SAMPLER_IMPL(k_unfused_dense, "unfused-dense", gnn_sampler_cpu, GNN_SAMPLER_UNFUSED, GNN_IDMAP_DENSE,
             GNN_ORACLE_THREADED);
SAMPLER_IMPL(k_unfused_refmap, "unfused-ref", gnn_sampler_cpu, GNN_SAMPLER_UNFUSED, GNN_IDMAP_REF,
             GNN_ORACLE_THREADED);
SAMPLER_IMPL(k_unfused_fused, "unfused-fused", gnn_sampler_cpu, GNN_SAMPLER_UNFUSED, GNN_IDMAP_FUSED,
             GNN_ORACLE_THREADED);

/* the CUDA tier (opt/cuda/, docs/cuda_sampling.md): cuda on a GPU, cuda-emu the same kernels on the
 * CPU; fused sampling (each sample inserted into the map as it is drawn) with the ordered map
 * (bitwise) or FastGL's Fused-Map (canonical). Uniform only: weighted cases are UNSUPPORTED. */
SAMPLER_IMPL(k_cuda_ordered, "cuda", gnn_sampler_cuda, GNN_SAMPLER_FUSED, GNN_IDMAP_ORDERED, 0);
SAMPLER_IMPL(k_emu_ordered, "cuda-emu", gnn_sampler_cuda_emu, GNN_SAMPLER_FUSED, GNN_IDMAP_ORDERED,
             GNN_ORACLE_EMULATED);
SAMPLER_IMPL(k_cuda_fused, "cuda", gnn_sampler_cuda, GNN_SAMPLER_FUSED, GNN_IDMAP_FUSED, 0);
SAMPLER_IMPL(k_emu_fused, "cuda-emu", gnn_sampler_cuda_emu, GNN_SAMPLER_FUSED, GNN_IDMAP_FUSED,
             GNN_ORACLE_EMULATED);

static const gnn_oracle_impl *const k_ordered_impls[] = {
    &k_sampler_ref, &k_fused_ordered, &k_fused_dense, &k_fused_refmap,
    &k_unfused_ordered, &k_unfused_dense, &k_unfused_refmap, &k_cuda_ordered, &k_emu_ordered, NULL,
};
static const gnn_oracle_impl *const k_fusedmap_impls[] = { &k_fused_fused, &k_unfused_fused, &k_cuda_fused,
                                                           &k_emu_fused, NULL };

/* The options impl's sampler is created with; NULL (the defaults) for an implementation not
 * registered here (the self-tests' mutants). */
static const gnn_sampler_options *options_of(const gnn_oracle_impl *impl)
{
    static const struct {
        const gnn_oracle_impl *impl;
        const gnn_sampler_options *o;
    } known[] = {
        { &k_sampler_ref, &k_sampler_ref_options },         { &k_fused_ordered, &k_fused_ordered_options },
        { &k_fused_dense, &k_fused_dense_options },         { &k_fused_refmap, &k_fused_refmap_options },
        { &k_fused_fused, &k_fused_fused_options },         { &k_unfused_ordered, &k_unfused_ordered_options },
        { &k_unfused_dense, &k_unfused_dense_options },     { &k_unfused_refmap, &k_unfused_refmap_options },
        { &k_unfused_fused, &k_unfused_fused_options },
        { &k_cuda_ordered, &k_cuda_ordered_options },       { &k_emu_ordered, &k_emu_ordered_options },
        { &k_cuda_fused, &k_cuda_fused_options },           { &k_emu_fused, &k_emu_fused_options },
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].impl == impl)
            return known[i].o;
    return NULL;
}

/* The `cuda` implementations run where a GPU is; elsewhere their cases are SKIP with the reason
 * (never FAIL). `cuda-emu` runs the same kernels' bodies on the CPU, everywhere. */
static gnn_oracle_outcome cuda_gate(gnn_oracle_ctx *ctx, const gnn_oracle_impl *impl)
{
    char why[256];
    if ((impl == &k_cuda_ordered || impl == &k_cuda_fused) && !gnn_cuda_available(why, sizeof why))
        return gnn_oracle_skip(ctx, "%s", why);
    return GNN_ORACLE_PASS;
}

/* ---- case inputs: graph, weights, seeds ------------------------------------------------------ */

static void free_sampler(void *p) { gnn_sampler_destroy(p); }

/* Blocks owned by the case (one deferred free for all of them). */
typedef struct block_set {
    int n;
    gnn_block b[4];
} block_set;
static void free_block_set(void *p)
{
    block_set *s = p;
    for (int i = 0; i < s->n; i++)
        gnn_block_free(&s->b[i]);
}
static gnn_block *case_blocks(gnn_oracle_ctx *ctx, int n)
{
    block_set *s = gnn_oracle_alloc(ctx, sizeof *s); /* zeroed */
    if (!s)
        return NULL;
    s->n = n;
    gnn_oracle_defer(ctx, free_block_set, s);
    return s->b;
}

typedef struct sampler_input {
    const gnn_csr *g;
    float *weights; /* (g->nnz) or NULL */
    const int64_t *rng_ids; /* (g->n) or NULL: gnn_sample_params.rng_ids */
    int64_t *seeds; /* (n_seeds) */
    int64_t n_seeds;
} sampler_input;

/* gen 0: R-MAT (Graph500 a, b, c), edge factor ef; gen 1: SBM with 4 classes and average degree
 * ef (70% inside the class). Both 2^scale vertices, seeded by the case. Weights (stream 4):
 * zero with probability zeros/100, else (1/4 + u) 2^e, e in [-8, 8]. Seeds (stream 3): distinct,
 * in random order; n_seeds = -1 takes every vertex. dup 1 repeats the first seed at the end,
 * dup 2 puts an id out of range (n) there; dup 3 changes nothing here (layer_run corrupts a
 * weight). */
static gnn_oracle_outcome make_input(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int gen, int scale, int64_t ef,
                                     int64_t n_seeds, int weighted, int64_t zeros, int dup, int64_t zends,
                                     int64_t rngids, sampler_input *in)
{
    /* the seeds keep their historical salts, so every case string still names the same graph */
    const gnn_csr *cg = NULL;
    const uint64_t gseed = c->seed * 0x9E3779B97F4A7C15ull + (gen == 0 ? 23 : 29);
    gnn_oracle_outcome go = gnn_oracle_case_graph(ctx, gen, scale, ef, gseed, &cg);
    if (go != GNN_ORACLE_PASS)
        return go;
    const gnn_csr *g = cg;
    in->g = g;
    in->weights = NULL;
    if (weighted) {
        in->weights = gnn_oracle_alloc(ctx, ((size_t)g->nnz + 1) * sizeof(float));
        if (!in->weights)
            return gnn_oracle_fail(ctx, "out of memory");
        gnn_oracle_draws gw = gnn_oracle_draws_make(c, 4);
        for (int64_t e = 0; e < g->nnz; e++) {
            const int zero = (int64_t)gnn_oracle_draw_uint(&gw, 100) < zeros;
            const float u = gnn_oracle_draw_float(&gw);
            const int ex = (int)gnn_oracle_draw_range(&gw, -8, 8);
            in->weights[e] = zero ? 0.0f : ldexpf(0.25f + u, ex);
        }
    }
    const int64_t n = g->n;
    if (n_seeds < 0)
        n_seeds = n;
    if (n_seeds > n || (dup && n_seeds < 2) || (dup == 3 && !weighted))
        return gnn_oracle_fail(ctx, "invalid case: seeds=%lld with %lld vertices%s", (long long)n_seeds, (long long)n,
                               dup == 3 && !weighted ? " (dup=3 needs weighted=1)" : dup ? " (dup needs 2 seeds)" : "");
    in->seeds = gnn_oracle_alloc(ctx, ((size_t)n + 1) * sizeof(int64_t));
    if (!in->seeds)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws gs = gnn_oracle_draws_make(c, 3);
    for (int64_t i = 0; i < n; i++)
        in->seeds[i] = i;
    for (int64_t i = 0; i < n_seeds && i < n - 1; i++) {
        int64_t j = gnn_oracle_draw_range(&gs, i, n - 1), t = in->seeds[i];
        in->seeds[i] = in->seeds[j];
        in->seeds[j] = t;
    }
    if (zends) {
        /* degree-0 seeds first, in the middle and last: the rows a sampler splitting its work
         * by seed chunks and prefix sums writes no edges for, at each end of the layout */
        const int64_t at[3] = { 0, n_seeds / 2, n_seeds - 1 };
        int64_t v = 0, placed = 0;
        for (int t = 0; t < 3 && n_seeds >= 3; t++, v++) {
            while (v < n && g->indptr[v + 1] > g->indptr[v])
                v++;
            if (v == n)
                break;
            int64_t j = 0;
            while (j < n_seeds && in->seeds[j] != v)
                j++;
            if (j < n_seeds) /* already a seed: swap it in (the seeds stay distinct) */
                in->seeds[j] = in->seeds[at[t]];
            in->seeds[at[t]] = v;
            placed++;
        }
        if (placed < 3)
            return gnn_oracle_fail(ctx, "invalid case: zends=1 needs 3 seeds and 3 isolated vertices in the graph");
    }
    in->rng_ids = NULL;
    if (rngids) {
        /* a partition's VID_o: local vertex v draws with global id rng_ids[v], distinct and above
         * 2^32 (so the stream's id_hi field is used), in no particular order */
        int64_t *ids = gnn_oracle_alloc(ctx, ((size_t)n + 1) * sizeof(int64_t));
        if (!ids)
            return gnn_oracle_fail(ctx, "out of memory");
        for (int64_t u = 0; u < n; u++)
            ids[u] = ((int64_t)1 << 36) + (int64_t)(((uint64_t)u * 0x9E3779B1u) & 0xFFFFFFFFu); /* odd: a bijection */
        in->rng_ids = ids;
    }
    if (dup == 1)
        in->seeds[n_seeds - 1] = in->seeds[0];
    if (dup == 2)
        in->seeds[n_seeds - 1] = n;
    in->n_seeds = n_seeds;
    return GNN_ORACLE_PASS;
}

/* The sampler object of impl (the reference or the implementation) for g, freed after the case. */
static gnn_oracle_outcome make_sampler(gnn_oracle_ctx *ctx, const char *who, const gnn_oracle_impl *impl,
                                       const gnn_csr *g, gnn_sampler **s)
{
    gnn_oracle_outcome o = gnn_oracle_status(ctx, who, gnn_sampler_create(s, impl->ops, g, options_of(impl)));
    if (o == GNN_ORACLE_PASS)
        gnn_oracle_defer(ctx, free_sampler, *s);
    return o;
}

/* Digest of what the comparator compares: the block itself, or (canonical entries, whose raw
 * order may change from run to run) its canonical relabelling, so replays agree. */
static void digest_blocks(gnn_oracle_ctx *ctx, gnn_oracle_cmp cmp, const gnn_block *b, int L)
{
    for (int l = 0; l < L; l++) {
        gnn_block cb;
        const gnn_block *d = &b[l];
        if (cmp == GNN_CMP_CANONICAL) {
            if (gnn_oracle_block_canonical_all(&b[l], &cb))
                continue;
            d = &cb;
        }
        gnn_oracle_digest(ctx, &d->n_src, sizeof d->n_src);
        gnn_oracle_digest(ctx, d->indptr, ((size_t)d->n_dst + 1) * sizeof(int64_t));
        gnn_oracle_digest(ctx, d->indices, (size_t)d->nnz * sizeof(int32_t));
        gnn_oracle_digest(ctx, d->src_gid, (size_t)d->n_src * sizeof(int64_t));
        if (d == &cb)
            gnn_block_free(&cb);
    }
}

static gnn_oracle_outcome sane_then_compare(gnn_oracle_ctx *ctx, gnn_oracle_cmp cmp, const char *name,
                                            const int64_t *seeds, int64_t n_seeds, const gnn_block *want,
                                            const gnn_block *got, int L)
{
    /* check that the impl's blocks can be read before digesting them */
    for (int l = 0; l < L; l++) {
        gnn_err err = { "" };
        if (gnn_block_validate(&got[l], &err) != GNN_OK)
            return gnn_oracle_fail(ctx, "%s[%d]: invalid block: %s", name, l, err.msg);
    }
    digest_blocks(ctx, cmp, got, L);
    return gnn_oracle_compare_blocks(ctx, cmp, name, seeds, n_seeds, want, got, L);
}

/* ---- sample.layer ------------------------------------------------------------------------- */

enum { L_GEN, L_SCALE, L_EF, L_SEEDS, L_FANOUT, L_REPLACE, L_WEIGHTED, L_ZEROS, L_STEP, L_LAYER, L_DUP, L_ZENDS, L_RNGIDS,
       L_INPLACE, N_L_PARAMS };
/* optional (both entries): seeds of degree 0 at both ends and the middle; the partition's
 * rng_ids; weights changed in place between the two calls */
#define SAMPLER_OPTIONAL_PARAMS                                                                                   \
    { "zends", GNN_PARAM_INT, 0, 1, "1: isolated vertices as the first, middle and last seeds" },               \
        { "rngids", GNN_PARAM_INT, 0, 1,                                                                        \
          "1: rng_ids given (a partition's VID_o: distinct ids above 2^32 that the draws are keyed by)" },      \
        { "inplace", GNN_PARAM_INT, 0, 1,                                                                       \
          "weighted: 1 rewrites the weights in place before the second call (every weight but the cpu table's " \
          "fingerprint probes) and sets a new weights_version: the objects' caches must follow" }
#define SAMPLER_DEFAULTS "zends=0,rngids=0,inplace=0"

/* Between the two calls of a case with inplace=1: the weights rewritten in place where the cpu
 * sampler's fingerprint does not look, and a new weights_version (sample.h's contract). */
static gnn_oracle_outcome rewrite_weights(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, const sampler_input *in,
                                          gnn_sample_params *p)
{
    if (!in->weights)
        return gnn_oracle_fail(ctx, "invalid case: inplace=1 needs weighted=1");
    uint8_t *keep = gnn_oracle_alloc(ctx, (size_t)in->g->nnz + 1);
    if (!keep)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_weights_keep(keep, NULL, in->g->nnz);
    gnn_oracle_weights_rewrite(in->weights, keep, in->g->nnz, c->seed, 1);
    p->weights_version++;
    return GNN_ORACLE_PASS;
}
static const gnn_oracle_param k_l_params[N_L_PARAMS] = {
    { "gen", GNN_PARAM_INT, 0, 1, "graph: 0 R-MAT, 1 SBM" },
    { "scale", GNN_PARAM_INT, 1, 20, "2^scale vertices" },
    { "ef", GNN_PARAM_INT, 1, 64, "R-MAT edge factor; SBM average degree" },
    { "seeds", GNN_PARAM_INT, -1, 1e7, "distinct seeds in random order; -1 = every vertex" },
    { "fanout", GNN_PARAM_INT, -1, 1e6, "k; -1 = all neighbors" },
    { "replace", GNN_PARAM_INT, 0, 1, "1: with replacement" },
    { "weighted", GNN_PARAM_INT, 0, 1, "1: per-edge weights" },
    { "zeros", GNN_PARAM_INT, 0, 100, "weighted: percent of edges with weight 0" },
    { "step", GNN_PARAM_INT, 0, 4294967294.0, "global iteration of the first call (the second uses step + 1)" },
    { "layer", GNN_PARAM_INT, 0, 255, "model layer (stream layer)" },
    { "dup", GNN_PARAM_INT, 0, 3,
      "a bad batch first, then the valid one: 1 the last seed repeats the first (GNN_ERR_INVAL); 2 the last seed is "
      "out of range (GNN_ERR_RANGE); 3 a negative weight in a sampled row (GNN_ERR_INVAL; weighted=1)" },
    SAMPLER_OPTIONAL_PARAMS,
};
/* the four modes on both graphs; whole graphs (with isolated vertices: degree-0 seeds), fanout
 * above every degree, all neighbors, a single seed, the empty batch, all-zero weights, a size
 * where threads race, bad batches (a repeated seed, an id out of range, a negative weight),
 * fanouts above 64 */
static const char *const k_l_presets[] = {
    "gen=0,scale=9,ef=8,seeds=64,fanout=5,replace=0,weighted=0,zeros=0,step=3,layer=1,dup=0",
    "gen=0,scale=9,ef=8,seeds=64,fanout=5,replace=1,weighted=0,zeros=0,step=3,layer=1,dup=0",
    "gen=0,scale=9,ef=8,seeds=64,fanout=5,replace=0,weighted=1,zeros=20,step=3,layer=1,dup=0",
    "gen=0,scale=9,ef=8,seeds=64,fanout=5,replace=1,weighted=1,zeros=20,step=3,layer=1,dup=0",
    "gen=1,scale=9,ef=10,seeds=100,fanout=4,replace=0,weighted=0,zeros=0,step=7,layer=0,dup=0",
    "gen=1,scale=9,ef=10,seeds=100,fanout=4,replace=1,weighted=0,zeros=0,step=7,layer=0,dup=0",
    "gen=1,scale=9,ef=10,seeds=100,fanout=4,replace=0,weighted=1,zeros=20,step=7,layer=0,dup=0",
    "gen=1,scale=9,ef=10,seeds=100,fanout=4,replace=1,weighted=1,zeros=20,step=7,layer=0,dup=0",
    "gen=0,scale=8,ef=4,seeds=-1,fanout=3,replace=0,weighted=0,zeros=0,step=0,layer=0,dup=0",
    "gen=1,scale=8,ef=2,seeds=-1,fanout=2,replace=1,weighted=1,zeros=30,step=1,layer=2,dup=0",
    "gen=0,scale=8,ef=4,seeds=50,fanout=1000,replace=0,weighted=0,zeros=0,step=2,layer=0,dup=0",
    "gen=0,scale=8,ef=4,seeds=50,fanout=-1,replace=0,weighted=1,zeros=50,step=2,layer=0,dup=0",
    "gen=1,scale=8,ef=6,seeds=1,fanout=10,replace=0,weighted=0,zeros=0,step=5,layer=1,dup=0",
    "gen=0,scale=8,ef=4,seeds=0,fanout=5,replace=0,weighted=0,zeros=0,step=0,layer=0,dup=0",
    "gen=1,scale=8,ef=6,seeds=40,fanout=3,replace=1,weighted=1,zeros=100,step=4,layer=0,dup=0",
    "gen=0,scale=12,ef=8,seeds=1024,fanout=10,replace=0,weighted=0,zeros=0,step=9,layer=1,dup=0",
    "gen=0,scale=8,ef=4,seeds=20,fanout=5,replace=0,weighted=0,zeros=0,step=0,layer=0,dup=1",
    "gen=0,scale=8,ef=4,seeds=20,fanout=5,replace=1,weighted=1,zeros=0,step=0,layer=0,dup=2",
    "gen=1,scale=8,ef=6,seeds=20,fanout=3,replace=0,weighted=1,zeros=0,step=2,layer=1,dup=3",
    "gen=1,scale=8,ef=6,seeds=20,fanout=3,replace=1,weighted=1,zeros=0,step=2,layer=1,dup=3",
    /* fanouts above 64 on R-MAT hubs: the dense Fisher-Yates, draws beyond one small batch */
    "gen=0,scale=12,ef=16,seeds=300,fanout=80,replace=0,weighted=0,zeros=0,step=3,layer=1,dup=0",
    "gen=0,scale=12,ef=16,seeds=300,fanout=100,replace=1,weighted=0,zeros=0,step=3,layer=1,dup=0",
    "gen=0,scale=12,ef=16,seeds=300,fanout=80,replace=0,weighted=1,zeros=10,step=3,layer=1,dup=0",
    "gen=0,scale=12,ef=16,seeds=300,fanout=100,replace=1,weighted=1,zeros=10,step=3,layer=1,dup=0",
    /* boundaries of the cpu sampler: fanout 64 (the largest kept in the sparse Fisher-Yates, on
     * hubs of d > 256 where its 256-bit filter aliases and repeated positions are likely) and 65
     * (the smallest dense one); 64 and 65 draws with replacement (one batch of draw words, or
     * the cursor); fanouts 1 and 2 without replacement (draw words without AVX2 batching);
     * degree-0 seeds at both ends and the middle with 33 seeds (a chunk of 32 and one more);
     * rng_ids as partitioned training passes them, uniform and weighted */
    "gen=0,scale=12,ef=16,seeds=300,fanout=64,replace=0,weighted=0,zeros=0,step=3,layer=1,dup=0",
    "gen=0,scale=12,ef=16,seeds=300,fanout=65,replace=0,weighted=0,zeros=0,step=3,layer=1,dup=0",
    "gen=0,scale=10,ef=8,seeds=100,fanout=64,replace=1,weighted=0,zeros=0,step=1,layer=0,dup=0",
    "gen=0,scale=10,ef=8,seeds=100,fanout=65,replace=1,weighted=0,zeros=0,step=1,layer=0,dup=0",
    "gen=1,scale=9,ef=10,seeds=100,fanout=1,replace=0,weighted=0,zeros=0,step=2,layer=3,dup=0",
    "gen=1,scale=9,ef=10,seeds=100,fanout=2,replace=0,weighted=0,zeros=0,step=2,layer=3,dup=0",
    "gen=0,scale=8,ef=4,seeds=33,fanout=4,replace=0,weighted=0,zeros=0,step=5,layer=1,dup=0,zends=1",
    "gen=0,scale=8,ef=4,seeds=33,fanout=3,replace=1,weighted=1,zeros=20,step=5,layer=1,dup=0,zends=1",
    "gen=0,scale=9,ef=8,seeds=64,fanout=5,replace=0,weighted=0,zeros=0,step=3,layer=1,dup=0,rngids=1",
    "gen=1,scale=9,ef=10,seeds=100,fanout=4,replace=1,weighted=1,zeros=20,step=7,layer=0,dup=0,rngids=1",
    /* weights changed in place with a new version between the two calls (docs/oracle.md, "Caches
     * keyed by a version"): hubs above GNN_WTABLE_MIN_DEG (their prefix-sum checkpoints), with
     * and without replacement, and every vertex of a small graph (every row's positive count) */
    "gen=0,scale=12,ef=16,seeds=300,fanout=80,replace=0,weighted=1,zeros=10,step=3,layer=1,dup=0,inplace=1",
    "gen=0,scale=12,ef=16,seeds=300,fanout=20,replace=1,weighted=1,zeros=10,step=3,layer=1,dup=0,inplace=1",
    "gen=1,scale=8,ef=6,seeds=-1,fanout=3,replace=0,weighted=1,zeros=30,step=2,layer=0,dup=0,inplace=1",
    NULL,
};

static gnn_oracle_outcome layer_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_oracle_cmp cmp = gnn_oracle_ctx_tol(ctx)->cmp;
    const int dup = (int)gnn_oracle_int(c, L_DUP);
    sampler_input in;
    gnn_oracle_outcome o = make_input(ctx, c, (int)gnn_oracle_int(c, L_GEN), (int)gnn_oracle_int(c, L_SCALE),
                                      gnn_oracle_int(c, L_EF), gnn_oracle_int(c, L_SEEDS),
                                      (int)gnn_oracle_int(c, L_WEIGHTED), gnn_oracle_int(c, L_ZEROS), dup,
                                      gnn_oracle_int(c, L_ZENDS), gnn_oracle_int(c, L_RNGIDS), &in);
    if (o != GNN_ORACLE_PASS || (o = cuda_gate(ctx, c->impl)) != GNN_ORACLE_PASS)
        return o;
    gnn_sampler *r, *s;
    if ((o = make_sampler(ctx, "ref: gnn_sampler_create", c->entry->ref, in.g, &r)) != GNN_ORACLE_PASS ||
        (o = make_sampler(ctx, "gnn_sampler_create", c->impl, in.g, &s)) != GNN_ORACLE_PASS)
        return o;
    gnn_sample_params p = {
        .fanout = gnn_oracle_int(c, L_FANOUT),
        .replace = (int)gnn_oracle_int(c, L_REPLACE),
        .seed = c->seed * 0x9E3779B97F4A7C15ull + 19,
        .step = (uint32_t)gnn_oracle_int(c, L_STEP),
        .layer = (unsigned)gnn_oracle_int(c, L_LAYER),
        .weights = in.weights,
        .rng_ids = in.rng_ids,
    };
    gnn_block *b = case_blocks(ctx, 4); /* want, got for each of the two calls */
    if (!b)
        return gnn_oracle_fail(ctx, "out of memory");
    int64_t n_seeds = in.n_seeds;
    if (dup) { /* the bad batch first; then the object must still work on the valid batch */
        int64_t at = -1; /* dup 3: the first edge of the first seed with one */
        float saved = 0.0f;
        if (dup == 3) {
            for (int64_t i = 0; i < n_seeds && at < 0; i++)
                if (in.g->indptr[in.seeds[i] + 1] > in.g->indptr[in.seeds[i]])
                    at = in.g->indptr[in.seeds[i]];
            if (at < 0)
                return gnn_oracle_fail(ctx, "invalid case: dup=3 needs a seed with an edge");
            saved = in.weights[at];
            in.weights[at] = -1.0f;
        }
        const gnn_status expect = dup == 2 ? GNN_ERR_RANGE : GNN_ERR_INVAL;
        static const char *const what[] = { "", "a repeated seed", "a seed id out of range", "a negative weight" };
        gnn_block bad_ref, bad_impl;
        const gnn_status sr = gnn_sampler_layer(r, in.seeds, n_seeds, &p, &bad_ref);
        if (sr == GNN_OK)
            gnn_block_free(&bad_ref);
        const gnn_status si = gnn_sampler_layer(s, in.seeds, n_seeds, &p, &bad_impl);
        if (si == GNN_OK)
            gnn_block_free(&bad_impl);
        if (sr == expect && si == GNN_ERR_UNSUPPORTED) /* an implementation without this mode (cuda: weights) */
            return gnn_oracle_status(ctx, "impl (bad batch)", si);
        if (sr != expect || si != expect)
            return gnn_oracle_fail(ctx, "%s: ref returned %s, impl %s; both must return %s", what[dup],
                                   gnn_status_str(sr), gnn_status_str(si), gnn_status_str(expect));
        if (dup == 3)
            in.weights[at] = saved;
        else
            n_seeds--;
    }
    for (int call = 0; call < 2; call++, p.step++) {
        gnn_block *want = &b[2 * call], *got = &b[2 * call + 1];
        if (call == 1 && gnn_oracle_int(c, L_INPLACE) && (o = rewrite_weights(ctx, c, &in, &p)) != GNN_ORACLE_PASS)
            return o;
        gnn_status st = gnn_sampler_layer(r, in.seeds, n_seeds, &p, want);
        if (st)
            return gnn_oracle_fail(ctx, "ref (step %u) returned %s", p.step, gnn_status_str(st));
        char who[48], name[32];
        snprintf(who, sizeof who, "impl (step %u)", p.step);
        if ((o = gnn_oracle_status(ctx, who, gnn_sampler_layer(s, in.seeds, n_seeds, &p, got))) != GNN_ORACLE_PASS)
            return o;
        snprintf(name, sizeof name, "step%u.block", p.step);
        if ((o = sane_then_compare(ctx, cmp, name, in.seeds, n_seeds, want, got, 1)) != GNN_ORACLE_PASS)
            return o;
    }
    return GNN_ORACLE_PASS;
}

const gnn_oracle_entry gnn_oracle_sample_layer = {
    .name = "sample.layer",
    .what = "gnn_sampler_layer (fused, unfused x ordered, dense, ref map) equals ref sample + block build: every "
            "array, two calls per object",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "draws keyed by (seed, step, layer, vertex) and first-appearance order: exact at any thread count",
    .params = k_l_params, .n_params = N_L_PARAMS, .presets = k_l_presets, .defaults = SAMPLER_DEFAULTS,
    .ref = &k_sampler_ref, .impls = k_ordered_impls, .run = layer_run,
};

const gnn_oracle_entry gnn_oracle_sample_layer_fusedmap = {
    .name = "sample.layer.fusedmap",
    .what = "gnn_sampler_layer with the Fused-Map (fused, unfused) equals ref sample + block build after relabelling",
    .tol = { GNN_CMP_CANONICAL, 0, 0 },
    .reason = "the Fused-Map's new src come in arrival order (inherently unordered); edges and ids are exact",
    .params = k_l_params, .n_params = N_L_PARAMS, .presets = k_l_presets, .defaults = SAMPLER_DEFAULTS,
    .ref = &k_sampler_ref, .impls = k_fusedmap_impls, .run = layer_run,
};

/* ---- sample.blocks ------------------------------------------------------------------------- */

enum { B_GEN, B_SCALE, B_EF, B_SEEDS, B_L, B_FO0, B_FO1, B_FO2, B_REPLACE, B_WEIGHTED, B_ZEROS, B_STEP, B_ZENDS, B_RNGIDS,
       B_INPLACE, N_BL_PARAMS };
static const gnn_oracle_param k_bl_params[N_BL_PARAMS] = {
    { "gen", GNN_PARAM_INT, 0, 1, "graph: 0 R-MAT, 1 SBM" },
    { "scale", GNN_PARAM_INT, 1, 20, "2^scale vertices" },
    { "ef", GNN_PARAM_INT, 1, 64, "R-MAT edge factor; SBM average degree" },
    { "seeds", GNN_PARAM_INT, -1, 1e7, "distinct seeds in random order; -1 = every vertex" },
    { "L", GNN_PARAM_INT, 1, 3, "layers" },
    { "fo0", GNN_PARAM_INT, -1, 1e6, "fanouts[0] (input layer; -1 = all)" },
    { "fo1", GNN_PARAM_INT, -1, 1e6, "fanouts[1] (L >= 2)" },
    { "fo2", GNN_PARAM_INT, -1, 1e6, "fanouts[2] (L = 3)" },
    { "replace", GNN_PARAM_INT, 0, 1, "1: with replacement" },
    { "weighted", GNN_PARAM_INT, 0, 1, "1: per-edge weights" },
    { "zeros", GNN_PARAM_INT, 0, 100, "weighted: percent of edges with weight 0" },
    { "step", GNN_PARAM_INT, 0, 4294967294.0, "global iteration of the first call (the second uses step + 1)" },
    SAMPLER_OPTIONAL_PARAMS,
};
/* fanouts like DGL's 15,10,5 scaled down, each mode on both graphs, a single seed, the whole
 * graph, all neighbors and fanout above every degree, a larger batch, fanouts above 64 */
static const char *const k_bl_presets[] = {
    "gen=0,scale=10,ef=8,seeds=32,L=3,fo0=8,fo1=5,fo2=3,replace=0,weighted=0,zeros=0,step=0",
    "gen=0,scale=10,ef=8,seeds=32,L=3,fo0=8,fo1=5,fo2=3,replace=1,weighted=0,zeros=0,step=0",
    "gen=1,scale=10,ef=10,seeds=32,L=3,fo0=8,fo1=5,fo2=3,replace=0,weighted=1,zeros=20,step=4",
    "gen=1,scale=10,ef=10,seeds=32,L=3,fo0=8,fo1=5,fo2=3,replace=1,weighted=1,zeros=20,step=4",
    "gen=0,scale=8,ef=4,seeds=1,L=3,fo0=4,fo1=3,fo2=2,replace=0,weighted=1,zeros=30,step=2",
    "gen=1,scale=8,ef=3,seeds=-1,L=2,fo0=3,fo1=2,fo2=0,replace=0,weighted=0,zeros=0,step=1",
    "gen=0,scale=8,ef=4,seeds=16,L=2,fo0=-1,fo1=1000,fo2=0,replace=0,weighted=0,zeros=0,step=3",
    "gen=0,scale=10,ef=8,seeds=128,L=2,fo0=10,fo1=5,fo2=0,replace=1,weighted=0,zeros=0,step=5",
    "gen=0,scale=12,ef=16,seeds=16,L=2,fo0=70,fo1=80,fo2=0,replace=0,weighted=0,zeros=0,step=6",
    /* rng_ids through every layer (the lower layers' dst draw with their own ids); degree-0
     * seeds at both ends and the middle of the top layer */
    "gen=0,scale=10,ef=8,seeds=32,L=3,fo0=8,fo1=5,fo2=3,replace=0,weighted=0,zeros=0,step=0,rngids=1",
    "gen=0,scale=8,ef=4,seeds=33,L=2,fo0=3,fo1=4,fo2=0,replace=1,weighted=1,zeros=20,step=2,zends=1,rngids=1",
    /* weights changed in place with a new version between the calls, through every layer */
    "gen=0,scale=12,ef=16,seeds=64,L=2,fo0=70,fo1=10,fo2=0,replace=0,weighted=1,zeros=10,step=6,inplace=1",
    "gen=1,scale=10,ef=10,seeds=32,L=3,fo0=8,fo1=5,fo2=3,replace=1,weighted=1,zeros=20,step=4,inplace=1",
    NULL,
};

static gnn_oracle_outcome blocks_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_oracle_cmp cmp = gnn_oracle_ctx_tol(ctx)->cmp;
    const int L = (int)gnn_oracle_int(c, B_L);
    const int64_t fanouts[3] = { gnn_oracle_int(c, B_FO0), gnn_oracle_int(c, B_FO1), gnn_oracle_int(c, B_FO2) };
    sampler_input in;
    gnn_oracle_outcome o = make_input(ctx, c, (int)gnn_oracle_int(c, B_GEN), (int)gnn_oracle_int(c, B_SCALE),
                                      gnn_oracle_int(c, B_EF), gnn_oracle_int(c, B_SEEDS),
                                      (int)gnn_oracle_int(c, B_WEIGHTED), gnn_oracle_int(c, B_ZEROS), 0,
                                      gnn_oracle_int(c, B_ZENDS), gnn_oracle_int(c, B_RNGIDS), &in);
    if (o != GNN_ORACLE_PASS || (o = cuda_gate(ctx, c->impl)) != GNN_ORACLE_PASS)
        return o;
    gnn_sampler *r, *s;
    if ((o = make_sampler(ctx, "ref: gnn_sampler_create", c->entry->ref, in.g, &r)) != GNN_ORACLE_PASS ||
        (o = make_sampler(ctx, "gnn_sampler_create", c->impl, in.g, &s)) != GNN_ORACLE_PASS)
        return o;
    gnn_sample_params base = {
        .fanout = 0, /* ignored: per layer */
        .replace = (int)gnn_oracle_int(c, B_REPLACE),
        .seed = c->seed * 0x9E3779B97F4A7C15ull + 31,
        .step = (uint32_t)gnn_oracle_int(c, B_STEP),
        .layer = 0,
        .weights = in.weights,
        .rng_ids = in.rng_ids,
    };
    for (int call = 0; call < 2; call++, base.step++) {
        if (call == 1 && gnn_oracle_int(c, B_INPLACE) && (o = rewrite_weights(ctx, c, &in, &base)) != GNN_ORACLE_PASS)
            return o;
        gnn_block *want = case_blocks(ctx, L), *got = case_blocks(ctx, L);
        if (!want || !got)
            return gnn_oracle_fail(ctx, "out of memory");
        gnn_status st = gnn_sampler_blocks(r, in.seeds, in.n_seeds, fanouts, L, &base, want);
        if (st)
            return gnn_oracle_fail(ctx, "ref (step %u) returned %s", base.step, gnn_status_str(st));
        char who[48], name[32];
        snprintf(who, sizeof who, "impl (step %u)", base.step);
        st = gnn_sampler_blocks(s, in.seeds, in.n_seeds, fanouts, L, &base, got);
        if ((o = gnn_oracle_status(ctx, who, st)) != GNN_ORACLE_PASS)
            return o;
        snprintf(name, sizeof name, "step%u.blocks", base.step);
        if ((o = sane_then_compare(ctx, cmp, name, in.seeds, in.n_seeds, want, got, L)) != GNN_ORACLE_PASS)
            return o;
    }
    return GNN_ORACLE_PASS;
}

const gnn_oracle_entry gnn_oracle_sample_blocks = {
    .name = "sample.blocks",
    .what = "gnn_sampler_blocks (fused, unfused x ordered, dense, ref map) equals gnn_sample_blocks with the reference "
            "sampler, layer by layer, two calls per object",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "draws keyed by (seed, step, layer, vertex) and first-appearance order: exact at any thread count",
    .params = k_bl_params, .n_params = N_BL_PARAMS, .presets = k_bl_presets, .defaults = SAMPLER_DEFAULTS,
    .ref = &k_sampler_ref, .impls = k_ordered_impls, .run = blocks_run,
};

const gnn_oracle_entry gnn_oracle_sample_blocks_fusedmap = {
    .name = "sample.blocks.fusedmap",
    .what = "gnn_sampler_blocks with the Fused-Map equals the reference blocks after relabelling every layer",
    .tol = { GNN_CMP_CANONICAL, 0, 0 },
    .reason = "the Fused-Map's src order (and so the lower layers' dst order) is arrival order; edges and ids are exact",
    .params = k_bl_params, .n_params = N_BL_PARAMS, .presets = k_bl_presets, .defaults = SAMPLER_DEFAULTS,
    .ref = &k_sampler_ref, .impls = k_fusedmap_impls, .run = blocks_run,
};
