/* oracle/op_shared.c -- verifiers for library code that the reference and the optimized
 * implementations share, so that no ref-vs-opt comparison can see a bug in it. Each is
 * written from the specification (the header that states the contract), never from the
 * shared code, and takes no parameter from the object it checks.
 *
 *   aep.verify            gnn_aep_key (ref/aep.c, called by both selections) and the selection
 *       rule of include/gnnref/aep.h: every key recomputed from raw Philox blocks with the
 *       stream address written out again (oracle/spec_rng.h), then the nc largest kept by a
 *       bounded heap (ties to the smaller global id) -- neither the reference's sort nor the
 *       cpu quickselect. Global ids above 2^32 (the high word of the counter), odd and even
 *       destination ranks (the two halves of a block), layers up to 255.
 *   sample.blocks.layers  the layer loop of core/ops/minibatch.c (gnn_sample_layers, behind
 *       gnn_sample_blocks and every sampler without its own blocks): each block of an
 *       L-layer sample must equal ONE layer sampled by the same implementation with the
 *       parameters sample.h assigns to that layer -- fanout fanouts[l], RNG layer l, dst =
 *       the seeds for l = L - 1 and the src of block l + 1 below that, every other field
 *       (replace, seed, step, weights, rng_ids) from the base -- while the base's own fanout
 *       and layer are set to values the loop must ignore. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/aep.h"
#include "gnnref/cuda.h"
#include "gnnref/idmap.h"
#include "gnnref/oracle.h"
#include "gnnref/sample.h"
#include "gnnref/tensor.h"
#include "oracle/spec_rng.h"
#include "ref/sample_ref.h"

/* ---- aep.verify ----------------------------------------------------------------------------- */

static const gnn_oracle_impl k_aepv_ref = { .name = "ref", .ops = &gnn_aep_ref, .flags = 0 };
static const gnn_oracle_impl k_aepv_cpu = { .name = "cpu", .ops = &gnn_aep_cpu, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_aepv_impls[] = { &k_aepv_ref, &k_aepv_cpu, NULL };

enum { V_M, V_NC, V_MAXDEG, V_ZERO, V_BASE, V_LAYER, V_DST, N_V_PARAMS };
static const gnn_oracle_param k_aepv_params[N_V_PARAMS] = {
    { "m", GNN_PARAM_INT, 0, 1e6, "candidates" },
    { "nc", GNN_PARAM_INT, 0, 1e6, "at most this many are pushed" },
    { "maxdeg", GNN_PARAM_INT, 0, 1e6, "degrees uniform in [0, maxdeg]" },
    { "zero", GNN_PARAM_REAL, 0, 1, "fraction of degree-0 candidates (weight 1)" },
    { "base", GNN_PARAM_INT, 0, 1e15, "smallest global id (above 2^32: the counter's high id word)" },
    { "layer", GNN_PARAM_INT, 0, 255, "layer" },
    { "dst", GNN_PARAM_INT, 0, 1023, "destination rank = integer draw index (odd: the second half of a block)" },
};
static const char *const k_aepv_presets[] = {
    "m=200,nc=17,maxdeg=40,zero=0.1,base=8589934593,layer=3,dst=5",
    "m=100,nc=99,maxdeg=2,zero=0.5,base=0,layer=0,dst=0",
    "m=64,nc=64,maxdeg=9,zero=0,base=4294967296,layer=255,dst=1",
    "m=30,nc=31,maxdeg=9,zero=0,base=7,layer=1,dst=2",
    "m=50,nc=0,maxdeg=9,zero=0,base=7,layer=1,dst=2",
    "m=1,nc=1,maxdeg=0,zero=0,base=1099511627776,layer=2,dst=3",
    "m=3000,nc=250,maxdeg=0,zero=0,base=281474976710656,layer=17,dst=1023",
    "m=5000,nc=1,maxdeg=100000,zero=0.01,base=12345678901,layer=4,dst=6",
    NULL,
};

typedef struct aep_cand {
    double key;
    int64_t vid;
    int64_t pos;
} aep_cand;

/* a is kept before b: larger key, or the same key and a smaller global id (aep.h) */
static int aep_before(const aep_cand *a, const aep_cand *b)
{
    return a->key > b->key || (a->key == b->key && a->vid < b->vid);
}

/* the heap's root is the candidate every other kept one is before (the first to go) */
static void heap_down(aep_cand *h, int64_t n, int64_t i)
{
    for (;;) {
        int64_t w = i;
        const int64_t l = 2 * i + 1, r = l + 1;
        if (l < n && aep_before(&h[w], &h[l]))
            w = l;
        if (r < n && aep_before(&h[w], &h[r]))
            w = r;
        if (w == i)
            return;
        const aep_cand t = h[i];
        h[i] = h[w];
        h[w] = t;
        i = w;
    }
}

static void heap_up(aep_cand *h, int64_t i)
{
    while (i > 0 && aep_before(&h[(i - 1) / 2], &h[i])) {
        const aep_cand t = h[i];
        h[i] = h[(i - 1) / 2];
        h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static gnn_oracle_outcome aepv_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int64_t m = gnn_oracle_int(c, V_M), nc = gnn_oracle_int(c, V_NC), maxdeg = gnn_oracle_int(c, V_MAXDEG);
    const double zero = gnn_oracle_real(c, V_ZERO);
    int64_t *vid = gnn_oracle_alloc(ctx, (size_t)(m + 1) * sizeof(int64_t));
    int64_t *deg = gnn_oracle_alloc(ctx, (size_t)(m + 1) * sizeof(int64_t));
    uint8_t *got = gnn_oracle_alloc_out(ctx, "impl.keep", (size_t)m + 1);
    uint8_t *want = gnn_oracle_alloc(ctx, (size_t)m + 1);
    aep_cand *heap = gnn_oracle_alloc(ctx, (size_t)(nc < m ? nc : m) * sizeof(aep_cand) + 1);
    if (!vid || !deg || !got || !want || !heap)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws d = gnn_oracle_draws_make(c, 1);
    for (int64_t i = 0; i < m; i++) /* distinct, spread, not in id order */
        vid[i] = gnn_oracle_int(c, V_BASE) + 5 * i + 2;
    for (int64_t i = m - 1; i > 0; i--) {
        const int64_t j = (int64_t)gnn_oracle_draw_uint(&d, (uint64_t)i + 1), t = vid[i];
        vid[i] = vid[j];
        vid[j] = t;
    }
    for (int64_t i = 0; i < m; i++)
        deg[i] = (double)gnn_oracle_draw_float(&d) < zero ? 0 : (int64_t)gnn_oracle_draw_uint(&d, (uint64_t)maxdeg + 1);
    const gnn_aep_select_args a = {
        .vid_o = vid, .deg = deg, .m = m, .nc = nc, .seed = c->seed * 0x2545F4914F6CDD1Dull + 3,
        .step = (uint32_t)gnn_oracle_draw_uint(&d, 1ull << 32), .layer = (int)gnn_oracle_int(c, V_LAYER),
        .dst_rank = (int)gnn_oracle_int(c, V_DST),
    };
    /* the specification: key = log(u) / max(deg, 1), u = ((r64 >> 12) + 0.5) 2^-52 with r64
     * the 64-bit word of integer draw dst_rank of (seed, HEC_PUSH, step, layer, id = global id) */
    int64_t n = 0;
    memset(want, m <= nc, (size_t)m);
    for (int64_t i = 0; i < m && m > nc; i++) {
        const spec_addr s = { .seed = a.seed, .tag = GNN_TAG_HEC_PUSH, .layer = (unsigned)a.layer, .step = a.step,
                              .id = (uint64_t)vid[i] };
        const double u = ((double)(spec_word64(&s, (uint64_t)a.dst_rank) >> 12) + 0.5) * 0x1p-52;
        const aep_cand x = { log(u) / (deg[i] > 0 ? (double)deg[i] : 1.0), vid[i], i };
        if (n < nc) {
            heap[n] = x;
            heap_up(heap, n++);
        } else if (nc > 0 && aep_before(&x, &heap[0])) {
            heap[0] = x;
            heap_down(heap, n, 0);
        }
    }
    for (int64_t k = 0; k < n; k++)
        want[heap[k].pos] = 1;
    int64_t kept = -1;
    gnn_err err = { "" };
    const gnn_status st = gnn_aep_select(c->impl->ops, &a, got, &kept, &err);
    if (st == GNN_ERR_UNSUPPORTED)
        return gnn_oracle_status(ctx, "impl", st);
    if (st)
        return gnn_oracle_fail(ctx, "select: %s (%s)", gnn_status_str(st), err.msg);
    gnn_oracle_digest(ctx, got, (size_t)m);
    const int64_t expect = m < nc ? m : nc;
    if (kept != expect)
        return gnn_oracle_fail(ctx, "n_kept %lld, expected min(m, nc) = %lld", (long long)kept, (long long)expect);
    for (int64_t i = 0; i < m; i++)
        if (got[i] != want[i])
            return gnn_oracle_fail(ctx, "keep[%lld] (vertex %lld, degree %lld) = %d; the keys recomputed from the stream "
                                   "address say %d",
                                   (long long)i, (long long)vid[i], (long long)deg[i], got[i], want[i]);
    return GNN_ORACLE_PASS;
}

const gnn_oracle_entry gnn_oracle_aep_verify = {
    .name = "aep.verify",
    .what = "AEP push selection against keys recomputed from raw Philox (aep.h's stream address written out again) "
            "and a heap of the nc largest: checks gnn_aep_key, which ref and cpu share",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "the same libm log of the same u on both sides, a strict order: the kept set is exact",
    .params = k_aepv_params, .n_params = N_V_PARAMS, .presets = k_aepv_presets,
    .ref = &k_aepv_ref, .impls = k_aepv_impls, .run = aepv_run,
};

/* ---- sample.blocks.layers ------------------------------------------------------------------------ */

/* ops NULL: gnn_sample_blocks over gnn_sampler_ref, each single layer the specification's two
 * steps called directly (ref/sample_ref.h); else a sampler object with these options */
typedef struct layers_impl {
    const gnn_sampler_ops *ops;
    gnn_sampler_variant variant;
    int idmap;
} layers_impl;

static const layers_impl k_li_ref = { NULL, GNN_SAMPLER_FUSED, 0 };
static const layers_impl k_li_sref = { &gnn_sampler_ref, GNN_SAMPLER_FUSED, 0 };
static const layers_impl k_li_fused = { &gnn_sampler_cpu, GNN_SAMPLER_FUSED, GNN_IDMAP_DENSE };
static const layers_impl k_li_unfused = { &gnn_sampler_cpu, GNN_SAMPLER_UNFUSED, GNN_IDMAP_ORDERED };
/* the CUDA sampler (docs/cuda_sampling.md): on a GPU, and its kernels' bodies on the CPU;
 * uniform only (weighted cases UNSUPPORTED) */
static const layers_impl k_li_cuda = { &gnn_sampler_cuda, GNN_SAMPLER_FUSED, GNN_IDMAP_ORDERED };
static const layers_impl k_li_emu = { &gnn_sampler_cuda_emu, GNN_SAMPLER_FUSED, GNN_IDMAP_ORDERED };
static const gnn_oracle_impl k_l_ref = { .name = "ref", .ops = &k_li_ref, .flags = 0 };
static const gnn_oracle_impl k_l_sref = { .name = "sampler-ref", .ops = &k_li_sref, .flags = 0 };
static const gnn_oracle_impl k_l_fused = { .name = "fused-dense", .ops = &k_li_fused, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl k_l_unfused = { .name = "unfused-ordered", .ops = &k_li_unfused,
                                             .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl k_l_cuda = { .name = "cuda", .ops = &k_li_cuda, .flags = 0 };
static const gnn_oracle_impl k_l_emu = { .name = "cuda-emu", .ops = &k_li_emu, .flags = GNN_ORACLE_EMULATED };
static const gnn_oracle_impl *const k_l_impls[] = { &k_l_ref, &k_l_sref, &k_l_fused, &k_l_unfused, &k_l_cuda, &k_l_emu,
                                                    NULL };

enum { B_GEN, B_SCALE, B_EF, B_SEEDS, B_L, B_F0, B_FSTEP, B_ALL, B_REPLACE, B_WEIGHTED, B_RNGIDS, N_B_PARAMS };
static const gnn_oracle_param k_l_params[N_B_PARAMS] = {
    { "gen", GNN_PARAM_INT, 0, 1, "graph: 0 R-MAT, 1 SBM" },
    { "scale", GNN_PARAM_INT, 1, 16, "2^scale vertices" },
    { "ef", GNN_PARAM_INT, 1, 64, "edge factor or average degree" },
    { "seeds", GNN_PARAM_INT, 0, 1e5, "distinct seeds" },
    { "L", GNN_PARAM_INT, 1, 8, "layers" },
    { "f0", GNN_PARAM_INT, 1, 100, "fanout of layer 0" },
    { "fstep", GNN_PARAM_INT, 0, 20, "fanout of layer l: f0 + l * fstep (distinct: a swapped index shows)" },
    { "all", GNN_PARAM_INT, 0, 1, "1: layer 0 takes every neighbor (fanout -1)" },
    { "replace", GNN_PARAM_INT, 0, 1, "sampling with replacement" },
    { "weighted", GNN_PARAM_INT, 0, 1, "random edge weights (base->weights)" },
    { "rngids", GNN_PARAM_INT, 0, 1, "draw with the ids of a permutation (base->rng_ids)" },
};
static const char *const k_l_presets[] = {
    "gen=0,scale=8,ef=8,seeds=20,L=3,f0=2,fstep=3,all=0,replace=0,weighted=0,rngids=0",
    "gen=1,scale=8,ef=6,seeds=7,L=1,f0=4,fstep=0,all=0,replace=1,weighted=0,rngids=0",
    "gen=0,scale=9,ef=4,seeds=13,L=4,f0=1,fstep=2,all=1,replace=0,weighted=1,rngids=0",
    "gen=1,scale=7,ef=8,seeds=16,L=2,f0=3,fstep=4,all=0,replace=1,weighted=1,rngids=1",
    "gen=0,scale=8,ef=8,seeds=0,L=3,f0=5,fstep=1,all=0,replace=0,weighted=0,rngids=1",
    "gen=0,scale=10,ef=8,seeds=300,L=3,f0=8,fstep=2,all=0,replace=0,weighted=0,rngids=0",
    NULL,
};

typedef struct layers_run {
    gnn_sampler *s; /* NULL: the reference pipeline */
    const gnn_csr *g;
} layers_run;

static void free_sampler(void *p) { gnn_sampler_destroy(p); }

static void free_blocks(void *p)
{
    gnn_block *b = p;
    for (int l = 0; l < 8; l++)
        gnn_block_free(&b[l]);
}

/* one layer, as the specification of sample.h says it is sampled */
static gnn_status one_layer(const layers_run *R, const int64_t *dst, int64_t n_dst, const gnn_sample_params *p,
                            gnn_block *out)
{
    if (R->s)
        return gnn_sampler_layer(R->s, dst, n_dst, p, out);
    gnn_sampled sm;
    memset(out, 0, sizeof *out);
    gnn_status st = gnn_sample_uniform_ref(R->g, dst, n_dst, p, &sm);
    if (st)
        return st;
    st = gnn_block_build_ref(&sm, out);
    gnn_sampled_free(&sm);
    return st;
}

static gnn_oracle_outcome layers_run_case(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const layers_impl *li = c->impl->ops;
    char why[256];
    if (li == &k_li_cuda && !gnn_cuda_available(why, sizeof why)) /* SKIP, never FAIL, without a GPU */
        return gnn_oracle_skip(ctx, "%s", why);
    const gnn_csr *g;
    gnn_oracle_outcome o = gnn_oracle_case_graph(ctx, (int)gnn_oracle_int(c, B_GEN), (int)gnn_oracle_int(c, B_SCALE),
                                                 gnn_oracle_int(c, B_EF), c->seed * 0x9E3779B97F4A7C15ull + 5, &g);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int L = (int)gnn_oracle_int(c, B_L);
    const int64_t n = g->n, n_seeds = gnn_oracle_int(c, B_SEEDS) < n ? gnn_oracle_int(c, B_SEEDS) : n;
    int64_t *perm = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(n + 1));
    int64_t *rng_ids = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(n + 1));
    float *w = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(g->nnz + 1));
    gnn_block *blocks = gnn_oracle_alloc(ctx, sizeof(gnn_block) * 8), *one = gnn_oracle_alloc(ctx, sizeof(gnn_block) * 8);
    if (!perm || !rng_ids || !w || !blocks || !one)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_defer(ctx, free_blocks, blocks);
    gnn_oracle_defer(ctx, free_blocks, one);
    gnn_oracle_draws d = gnn_oracle_draws_make(c, 1);
    for (int64_t v = 0; v < n; v++)
        perm[v] = v;
    for (int64_t i = n - 1; i > 0; i--) {
        const int64_t j = (int64_t)gnn_oracle_draw_uint(&d, (uint64_t)i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int64_t v = 0; v < n; v++) /* another id space: a permutation, some ids above 2^32 */
        rng_ids[v] = perm[v] + (v % 2 ? (int64_t)1 << 33 : 0);
    if (gnn_sample_random_weights(w, g->nnz, c->seed + 11))
        return gnn_oracle_fail(ctx, "gnn_sample_random_weights failed");
    int64_t fanouts[8];
    for (int l = 0; l < L; l++)
        fanouts[l] = gnn_oracle_int(c, B_ALL) && l == 0 ? -1 : gnn_oracle_int(c, B_F0) + l * gnn_oracle_int(c, B_FSTEP);
    gnn_sample_params base = {
        .fanout = 999, .layer = 77, /* sample.h: ignored, set per layer */
        .replace = (int)gnn_oracle_int(c, B_REPLACE), .seed = c->seed * 31 + 7,
        .step = (uint32_t)gnn_oracle_draw_uint(&d, 1000000),
        .weights = gnn_oracle_int(c, B_WEIGHTED) ? w : NULL, .rng_ids = gnn_oracle_int(c, B_RNGIDS) ? rng_ids : NULL,
    };
    layers_run R = { NULL, g };
    gnn_status st;
    if (li->ops) {
        gnn_sampler_options opt = { .variant = li->variant, .idmap = li->idmap };
        if ((st = gnn_sampler_create(&R.s, li->ops, g, &opt)))
            return gnn_oracle_status(ctx, "impl.create", st);
        gnn_oracle_defer(ctx, free_sampler, R.s);
        st = gnn_sampler_blocks(R.s, perm, n_seeds, fanouts, L, &base, blocks);
    } else {
        st = gnn_sample_blocks(&gnn_sampler_ref, g, perm, n_seeds, fanouts, L, &base, blocks);
    }
    if (st)
        return gnn_oracle_status(ctx, "impl.blocks", st);
    /* every layer against one layer sampled with the parameters sample.h gives it */
    for (int l = L - 1; l >= 0; l--) {
        gnn_sample_params p = base;
        p.fanout = fanouts[l];
        p.layer = (unsigned)l;
        const int64_t *dst = l == L - 1 ? perm : blocks[l + 1].src_gid;
        const int64_t n_dst = l == L - 1 ? n_seeds : blocks[l + 1].n_src;
        if ((st = one_layer(&R, dst, n_dst, &p, &one[l])))
            return gnn_oracle_status(ctx, "impl.layer", st);
        char name[64];
        snprintf(name, sizeof name, "block %d (fanout %lld, RNG layer %d)", l, (long long)fanouts[l], l);
        o = gnn_oracle_compare_block(ctx, GNN_CMP_BITWISE, name, &one[l], &blocks[l]);
        if (o != GNN_ORACLE_PASS)
            return o;
        gnn_oracle_digest(ctx, blocks[l].src_gid, sizeof(int64_t) * (size_t)blocks[l].n_src);
        gnn_oracle_digest(ctx, blocks[l].indices, sizeof(int32_t) * (size_t)blocks[l].nnz);
    }
    return GNN_ORACLE_PASS;
}

const gnn_oracle_entry gnn_oracle_sample_blocks_layers = {
    .name = "sample.blocks.layers",
    .what = "the layer loop shared by gnn_sample_blocks and the samplers (core/ops/minibatch.c): each of L blocks equals "
            "one layer sampled with sample.h's fanout, RNG layer and dst chain, the base's other fields kept",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "the same implementation's single layer with the specified parameters: exact",
    .params = k_l_params, .n_params = N_B_PARAMS, .presets = k_l_presets,
    .ref = &k_l_ref, .impls = k_l_impls, .run = layers_run_case,
};
