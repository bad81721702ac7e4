/* oracle/op_sample_typed.c -- the oracle entry of sampling per edge type
 * (include/gnnref/sample_typed.h, docs/hetero.md section 7), at 1, 2 and 4 threads.
 *
 *   sample.typed  L blocks from a typed sampler (gnn_sampler_create with an etype) over the
 *     implementation's sampler (cpu: every variant and ID map) against one over gnn_sampler_ref: bitwise,
 *     every array and every edge's type. Then the reference itself is checked against the rule
 *     written differently (no relation graphs): for each dst v and relation r, v's row of g is
 *     scanned for edges of type r; uniform draws are replayed from the stream id v + r * 2^40
 *     (partial Fisher-Yates, or draw order with replacement) and must give the block's sources
 *     in order; weighted draws must come from that relation's edges of weight > 0, with the
 *     rule's count; each row's edges come grouped by relation in order. With one relation the
 *     blocks must be gnn_sample_blocks(gnn_sampler_ref)'s, bit for bit.
 *
 * Inputs: R-MAT or SBM (optionally repeated edges and self-loops), 1 to 6 relations drawn per
 * edge (or a relation left without edges), uniform or weighted (some weights 0), with or
 * without replacement, fanouts above the degrees and -1 (all), 1 to 3 layers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/cuda.h"
#include "gnnref/oracle.h"
#include "gnnref/rng.h"
#include "gnnref/sample_typed.h"
#include "gnnref/tensor.h"

#define MAX_L 3

enum { P_GEN, P_SCALE, P_EF, P_R, P_EMPTY, P_L, P_FAN, P_REPLACE, P_WEIGHTED, P_VARIANT, P_IDMAP, P_SEEDS, P_DUP,
       P_INPLACE, N_PARAMS };
static const gnn_oracle_param k_params[N_PARAMS] = {
    { "gen", GNN_PARAM_INT, 0, 1, "graph: 0 R-MAT (Graph500), 1 SBM (4 classes)" },
    { "scale", GNN_PARAM_INT, 1, 14, "2^scale vertices" },
    { "ef", GNN_PARAM_INT, 1, 64, "edge factor (R-MAT) or average degree (SBM)" },
    { "R", GNN_PARAM_INT, 1, 6, "relations; edge e has a keyed draw in [0, R)" },
    { "empty", GNN_PARAM_INT, 0, 1, "1: relation R-1 gets no edges (its draws go to relation 0)" },
    { "L", GNN_PARAM_INT, 1, MAX_L, "layers (blocks)" },
    { "fan", GNN_PARAM_INT, -1, 64, "fanout per relation of the input layer; layer l takes fan + l (-1: all)" },
    { "replace", GNN_PARAM_INT, 0, 1, "1: with replacement" },
    { "weighted", GNN_PARAM_INT, 0, 1, "1: per-edge weights (gnn_sample_random_weights, every 7th edge 0)" },
    { "variant", GNN_PARAM_INT, 0, 1, "the cpu relation samplers: 0 fused, 1 unfused" },
    { "idmap", GNN_PARAM_INT, 0, 3, "the relation samplers' ID map: 0 ref, 1 ordered, 2 fused, 3 dense" },
    { "seeds", GNN_PARAM_INT, 0, 4096, "seeds (distinct)" },
    { "dup", GNN_PARAM_INT, 0, 1, "1: repeat every third edge and add a self-loop on every fifth vertex" },
    { "inplace", GNN_PARAM_INT, 0, 1,
      "weighted: 1 then rewrites the weights in place (all but the relation tables' fingerprint probes), sets a "
      "new weights_version and samples again with the same objects: their caches must follow" },
};

typedef struct typed_impl {
    const gnn_sampler_ops *ops;
} typed_impl;
static const typed_impl k_ref_ops = { &gnn_sampler_ref };
static const typed_impl k_cpu_ops = { &gnn_sampler_cpu };
/* the CUDA sampler under each relation (docs/cuda_sampling.md): on a GPU, and its kernels' bodies
 * on the CPU; each relation draws with its own stream offset (rng_id_offset); uniform only */
static const typed_impl k_cuda_ops = { &gnn_sampler_cuda };
static const typed_impl k_emu_ops = { &gnn_sampler_cuda_emu };

static void free_blocks(void *p)
{
    gnn_block *b = p;
    for (int l = 0; l < MAX_L; l++)
        gnn_block_free(&b[l]);
}

static void free_sampler(void *p) { gnn_sampler_destroy(p); }

/* A typed sampler over ops, freed at the end of the case. */
static gnn_oracle_outcome typed_sampler(gnn_oracle_ctx *ctx, const typed_impl *impl, const gnn_csr *g,
                                        const int32_t *et, int64_t R, const gnn_sampler_options *o, gnn_sampler **s)
{
    gnn_sampler_options to;
    gnn_sampler_defaults(&to);
    if (o)
        to = *o;
    to.etype = et;
    to.relations = R;
    *s = NULL;
    const gnn_status st = gnn_sampler_create(s, impl->ops, g, &to);
    if (st)
        return gnn_oracle_status(ctx, "typed sampler create", st);
    gnn_oracle_defer(ctx, free_sampler, *s);
    return GNN_ORACLE_PASS;
}

/* L blocks from the typed sampler s (a cuda table without a mode: UNSUPPORTED). */
static gnn_oracle_outcome typed_sample(gnn_oracle_ctx *ctx, gnn_sampler *s, const char *who, const int64_t *seeds,
                                       int64_t ns, const int64_t *fan, int L, const gnn_sample_params *base,
                                       gnn_block *out)
{
    return gnn_oracle_status(ctx, who, gnn_sampler_blocks(s, seeds, ns, fan, L, base, out));
}

/* L blocks from a new typed sampler over ops (*s: the sampler, freed at the end of the case). */
static gnn_oracle_outcome typed_blocks(gnn_oracle_ctx *ctx, const typed_impl *impl, const gnn_csr *g,
                                       const int32_t *et, int64_t R, const gnn_sampler_options *o,
                                       const int64_t *seeds, int64_t ns, const int64_t *fan, int L,
                                       const gnn_sample_params *base, gnn_block *out, gnn_sampler **s)
{
    gnn_oracle_outcome oc = typed_sampler(ctx, impl, g, et, R, o, s);
    return oc != GNN_ORACLE_PASS ? oc : typed_sample(ctx, *s, impl->ops->name, seeds, ns, fan, L, base, out);
}

/* One row of the rule, written without relation graphs: the uniform draws of dst v's edges of
 * relation r (pos: their edge indices in CSR order, d of them); writes want[0..count). */
static int64_t spec_uniform(const gnn_csr *g, const int64_t *pos, int64_t d, int64_t v, int64_t r,
                            const gnn_sample_params *p, int64_t *scratch, int64_t *want)
{
    const gnn_rng_stream s = gnn_rng_stream_make(p->seed, GNN_TAG_SAMPLE, p->step, p->layer,
                                               (uint64_t)v + ((uint64_t)r << GNN_SAMPLE_TYPED_ID_SHIFT));
    if (p->replace && p->fanout >= 0) {
        const int64_t k = d > 0 ? p->fanout : 0;
        for (int64_t j = 0; j < k; j++)
            want[j] = g->indices[pos[gnn_rng_uint(&s, (uint64_t)j, (uint64_t)d)]];
        return k;
    }
    const int64_t k = p->fanout < 0 || d < p->fanout ? d : p->fanout;
    for (int64_t j = 0; j < d; j++)
        scratch[j] = pos[j];
    if (k == d) {
        for (int64_t j = 0; j < d; j++)
            want[j] = g->indices[scratch[j]];
        return d;
    }
    for (int64_t j = 0; j < k; j++) { /* partial Fisher-Yates over the relation's positions */
        const int64_t q = j + (int64_t)gnn_rng_uint(&s, (uint64_t)j, (uint64_t)(d - j));
        const int64_t t = scratch[j];
        scratch[j] = scratch[q];
        scratch[q] = t;
        want[j] = g->indices[scratch[j]];
    }
    return k;
}

/* The reference blocks against the rule, layer by layer, dst by dst, relation by relation. */
static gnn_oracle_outcome verify_rule(gnn_oracle_ctx *ctx, const gnn_csr *g, const int32_t *et, int64_t R,
                                      const float *w, const gnn_block *b, int L, const int64_t *fan,
                                      const gnn_sample_params *base)
{
    int64_t max_d = 1;
    for (int64_t v = 0; v < g->n; v++)
        if (gnn_csr_degree(g, v) > max_d)
            max_d = gnn_csr_degree(g, v);
    int64_t *pos = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)max_d * 2);
    int64_t *want = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(max_d + 64));
    if (!pos || !want)
        return gnn_oracle_fail(ctx, "out of memory");
    for (int l = 0; l < L; l++) {
        gnn_sample_params p = *base;
        p.layer = (unsigned)l;
        p.fanout = fan[l];
        const gnn_block *B = &b[l];
        if (!B->etype)
            return gnn_oracle_fail(ctx, "layer %d: the block has no edge types", l);
        for (int64_t i = 0; i < B->n_dst; i++) {
            const int64_t v = B->src_gid[i];
            int64_t e = B->indptr[i];
            for (int64_t r = 0; r < R; r++) {
                int64_t d = 0, live = 0;
                for (int64_t x = g->indptr[v]; x < g->indptr[v + 1]; x++)
                    if (et[x] == r) {
                        pos[d++] = x;
                        live += w ? w[x] > 0.0f : 1;
                    }
                int64_t k;
                if (!w)
                    k = spec_uniform(g, pos, d, v, r, &p, pos + max_d, want);
                else /* weighted: the count of the rule over the positive-weight edges */
                    k = p.fanout < 0 ? live : p.replace ? (live > 0 ? p.fanout : 0) : (live < p.fanout ? live : p.fanout);
                if (B->indptr[i + 1] - e < k)
                    return gnn_oracle_fail(ctx, "layer %d dst %lld (vertex %lld) relation %lld: %lld edges left, rule "
                                           "wants %lld", l, (long long)i, (long long)v, (long long)r,
                                           (long long)(B->indptr[i + 1] - e), (long long)k);
                for (int64_t j = 0; j < k; j++, e++) {
                    const int64_t got = B->src_gid[B->indices[e]];
                    if (B->etype[e] != r)
                        return gnn_oracle_fail(ctx, "layer %d dst %lld edge %lld: type %d, expected %lld", l,
                                               (long long)i, (long long)e, B->etype[e], (long long)r);
                    if (!w && got != want[j])
                        return gnn_oracle_fail(ctx, "layer %d vertex %lld relation %lld draw %lld: source %lld, the "
                                               "rule draws %lld", l, (long long)v, (long long)r, (long long)j,
                                               (long long)got, (long long)want[j]);
                    int ok = 0;
                    for (int64_t x = 0; x < d && !ok; x++)
                        ok = g->indices[pos[x]] == got && (!w || w[pos[x]] > 0.0f);
                    if (!ok)
                        return gnn_oracle_fail(ctx, "layer %d vertex %lld relation %lld: source %lld is not an in-edge "
                                               "of that relation with weight > 0", l, (long long)v, (long long)r,
                                               (long long)got);
                }
            }
            if (e != B->indptr[i + 1])
                return gnn_oracle_fail(ctx, "layer %d dst %lld: %lld edges beyond the relations' samples", l,
                                       (long long)i, (long long)(B->indptr[i + 1] - e));
        }
    }
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome compare_etypes(gnn_oracle_ctx *ctx, const gnn_block *want, const gnn_block *got, int L)
{
    for (int l = 0; l < L; l++) {
        char name[64];
        snprintf(name, sizeof name, "layer %d edge types", l);
        if (!got[l].etype)
            return gnn_oracle_fail(ctx, "%s: missing", name);
        gnn_oracle_outcome o = gnn_oracle_compare_int(ctx, name, want[l].etype, got[l].etype, want[l].nnz, 4);
        if (o != GNN_ORACLE_PASS)
            return o;
    }
    return GNN_ORACLE_PASS;
}

/* The case's inputs over graph g: edge types (keyed stream 41, relation R-1 left empty with
 * empty=1), weights in w when weighted (gnn_sample_random_weights, every 7th edge 0; base->weights
 * stays NULL otherwise), every vertex shuffled into seeds (stream 43: the first `seeds` are
 * used), the fanouts, the parameters and the implementation's sampler options. One source for
 * the oracle and the benchmark, so a benchmark times the very inputs the oracle checked. */
static gnn_status typed_inputs(const gnn_oracle_case *c, const gnn_csr *g, int32_t *et, float *w, int64_t *seeds,
                               int64_t *fan, gnn_sample_params *base, gnn_sampler_options *opt)
{
    const int64_t n = g->n, R = gnn_oracle_int(c, P_R);
    const int L = (int)gnn_oracle_int(c, P_L);
    const gnn_rng_stream ts = gnn_rng_stream_make(c->seed, GNN_TAG_ORACLE, 41, 0, 0);
    const int64_t drawn = gnn_oracle_int(c, P_EMPTY) && R > 1 ? R - 1 : R;
    for (int64_t e = 0; e < g->nnz; e++)
        et[e] = (int32_t)gnn_rng_uint(&ts, (uint64_t)e, (uint64_t)drawn);
    const float *wp = NULL;
    if (gnn_oracle_int(c, P_WEIGHTED)) {
        const gnn_status st = gnn_sample_random_weights(w, g->nnz, c->seed);
        if (st)
            return st;
        for (int64_t e = 0; e < g->nnz; e += 7)
            w[e] = 0.0f;
        wp = w;
    }
    for (int64_t v = 0; v < n; v++)
        seeds[v] = v;
    const gnn_rng_stream ss = gnn_rng_stream_make(c->seed, GNN_TAG_ORACLE, 43, 0, 0);
    gnn_rng_shuffle_i64(&ss, seeds, n);
    const int64_t f = gnn_oracle_int(c, P_FAN);
    for (int l = 0; l < L; l++)
        fan[l] = f < 0 ? -1 : f + l;
    *base = (gnn_sample_params){ .replace = (int)gnn_oracle_int(c, P_REPLACE), .seed = c->seed, .step = 17,
                                 .weights = wp };
    gnn_sampler_defaults(opt);
    opt->variant = (gnn_sampler_variant)gnn_oracle_int(c, P_VARIANT);
    opt->idmap = (int)gnn_oracle_int(c, P_IDMAP);
    return GNN_OK;
}

/* inplace=1: the weights rewritten in place where no relation sampler's table fingerprint looks
 * (each relation's weights are a slice of the typed sampler's split copy: its probes are mapped
 * back to g's edges), a new weights_version, and the same two objects sample again (the step
 * moved on): both must equal a typed reference sampler made after the change, which has no
 * cache to keep; then the rule on the new weights. */
static gnn_oracle_outcome inplace_again(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, const gnn_csr *g,
                                        const int32_t *et, float *w, const int64_t *seeds, const int64_t *fan,
                                        gnn_sample_params *base, gnn_sampler *sref, gnn_sampler *simpl)
{
    const int64_t R = gnn_oracle_int(c, P_R), ns = gnn_oracle_int(c, P_SEEDS);
    const int L = (int)gnn_oracle_int(c, P_L);
    if (!base->weights)
        return gnn_oracle_fail(ctx, "invalid case: inplace=1 needs weighted=1");
    uint8_t *keep = gnn_oracle_alloc(ctx, (size_t)g->nnz + 1);
    int64_t *at = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(g->nnz + 1));
    gnn_block *fresh = gnn_oracle_alloc(ctx, sizeof(gnn_block) * MAX_L * 3);
    if (!keep || !at || !fresh)
        return gnn_oracle_fail(ctx, "out of memory");
    for (int t = 0; t < 3; t++)
        gnn_oracle_defer(ctx, free_blocks, fresh + t * MAX_L);
    for (int64_t r = 0; r < R; r++) { /* relation r's slice: its edges of g in CSR order */
        int64_t m = 0;
        for (int64_t e = 0; e < g->nnz; e++)
            if (et[e] == r)
                at[m++] = e;
        gnn_oracle_weights_keep(keep, at, m);
    }
    gnn_oracle_weights_rewrite(w, keep, g->nnz, c->seed, 1);
    base->weights_version++;
    base->step++;
    gnn_block *want = fresh, *got = fresh + MAX_L, *again = fresh + 2 * MAX_L;
    gnn_sampler *snew;
    gnn_oracle_outcome o;
    if ((o = typed_blocks(ctx, &k_ref_ops, g, et, R, NULL, seeds, ns, fan, L, base, want, &snew)) != GNN_ORACLE_PASS ||
        (o = typed_sample(ctx, sref, "ref (weights changed in place)", seeds, ns, fan, L, base, again)) !=
            GNN_ORACLE_PASS ||
        (o = typed_sample(ctx, simpl, "impl (weights changed in place)", seeds, ns, fan, L, base, got)) !=
            GNN_ORACLE_PASS)
        return o;
    if ((o = gnn_oracle_compare_blocks(ctx, GNN_CMP_BITWISE, "ref object after the in-place change", seeds, ns, want,
                                       again, L)) != GNN_ORACLE_PASS ||
        (o = gnn_oracle_compare_blocks(ctx, GNN_CMP_BITWISE, "impl object after the in-place change", seeds, ns, want,
                                       got, L)) != GNN_ORACLE_PASS ||
        (o = compare_etypes(ctx, want, got, L)) != GNN_ORACLE_PASS)
        return o;
    return verify_rule(ctx, g, et, R, w, want, L, fan, base);
}

/* the case's graph seed: the benchmark's graph must be the oracle's */
static uint64_t graph_seed(const gnn_oracle_case *c) { return c->seed * 0x9E3779B97F4A7C15ull + 53; }

static gnn_oracle_outcome run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    char why[256];
    if (c->impl->ops == &k_cuda_ops && !gnn_cuda_available(why, sizeof why)) /* SKIP, never FAIL, without a GPU */
        return gnn_oracle_skip(ctx, "%s", why);
    const gnn_csr *g = NULL;
    gnn_oracle_outcome o = gnn_oracle_case_graph_multi(ctx, c, (int)gnn_oracle_int(c, P_GEN),
                                                       (int)gnn_oracle_int(c, P_SCALE), gnn_oracle_int(c, P_EF),
                                                       graph_seed(c), (int)gnn_oracle_int(c, P_DUP), &g);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t n = g->n, R = gnn_oracle_int(c, P_R), ns = gnn_oracle_int(c, P_SEEDS);
    const int L = (int)gnn_oracle_int(c, P_L);
    if (ns > n)
        return gnn_oracle_fail(ctx, "invalid case: seeds=%lld > %lld vertices", (long long)ns, (long long)n);
    int32_t *et = gnn_oracle_alloc(ctx, sizeof(int32_t) * (size_t)(g->nnz + 1));
    float *w = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(g->nnz + 1));
    int64_t *seeds = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(n + 1));
    gnn_block *want = gnn_oracle_alloc(ctx, sizeof(gnn_block) * MAX_L * 3);
    if (!et || !w || !seeds || !want)
        return gnn_oracle_fail(ctx, "out of memory");
    memset(want, 0, sizeof(gnn_block) * MAX_L * 3);
    gnn_block *got = want + MAX_L, *plain = want + 2 * MAX_L;
    for (int t = 0; t < 3; t++)
        gnn_oracle_defer(ctx, free_blocks, want + t * MAX_L);
    int64_t fan[MAX_L];
    gnn_sample_params base;
    gnn_sampler_options opt;
    if (typed_inputs(c, g, et, w, seeds, fan, &base, &opt))
        return gnn_oracle_fail(ctx, "weights");
    const float *wp = base.weights;
    gnn_sampler *sref, *simpl;
    if ((o = typed_blocks(ctx, &k_ref_ops, g, et, R, NULL, seeds, ns, fan, L, &base, want, &sref)) != GNN_ORACLE_PASS ||
        (o = typed_blocks(ctx, c->impl->ops, g, et, R, &opt, seeds, ns, fan, L, &base, got, &simpl)) != GNN_ORACLE_PASS)
        return o;
    if ((o = gnn_oracle_compare_blocks(ctx, GNN_CMP_BITWISE, "typed blocks", seeds, ns, want, got, L)) != GNN_ORACLE_PASS ||
        (o = compare_etypes(ctx, want, got, L)) != GNN_ORACLE_PASS ||
        (o = verify_rule(ctx, g, et, R, wp, want, L, fan, &base)) != GNN_ORACLE_PASS)
        return o;
    if (gnn_oracle_int(c, P_INPLACE) && (o = inplace_again(ctx, c, g, et, w, seeds, fan, &base, sref, simpl)) !=
                                            GNN_ORACLE_PASS)
        return o;
    if (R == 1) { /* one relation: the untyped sampler's blocks */
        const gnn_status st = gnn_sample_blocks(&gnn_sampler_ref, g, seeds, ns, fan, L, &base, plain);
        if (st)
            return gnn_oracle_fail(ctx, "untyped blocks: %s", gnn_status_str(st));
        if ((o = gnn_oracle_compare_blocks(ctx, GNN_CMP_BITWISE, "one relation vs the untyped sampler", seeds, ns,
                                           plain, want, L)) != GNN_ORACLE_PASS)
            return o;
    }
    int64_t edges = 0;
    for (int l = 0; l < L; l++)
        edges += want[l].nnz;
    gnn_oracle_note(ctx, "%lld relations, %d layers, %lld sampled edges", (long long)R, L, (long long)edges);
    return GNN_ORACLE_PASS;
}

static const gnn_oracle_impl k_ref = { .name = "ref", .ops = &k_ref_ops, .flags = 0 };
static const gnn_oracle_impl k_cpu = { .name = "cpu", .ops = &k_cpu_ops, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl k_cuda = { .name = "cuda", .ops = &k_cuda_ops, .flags = 0 };
static const gnn_oracle_impl k_emu = { .name = "cuda-emu", .ops = &k_emu_ops, .flags = GNN_ORACLE_EMULATED };
static const gnn_oracle_impl *const k_impls[] = { &k_ref, &k_cpu, &k_cuda, &k_emu, NULL };

/* one relation (== untyped), up to 6; an empty relation; every variant and ID map; uniform and
 * weighted, with and without replacement; fanouts above the degrees and all; repeated edges;
 * no seeds */
static const char *const k_presets[] = {
    "gen=0,scale=8,ef=8,R=1,L=2,fan=3,idmap=1,seeds=40",
    "gen=1,scale=8,ef=6,R=1,L=2,fan=4,weighted=1,idmap=3,seeds=64",
    "gen=0,scale=8,ef=8,R=3,L=3,fan=2,idmap=0,seeds=30",
    "gen=0,scale=9,ef=8,R=4,L=2,fan=5,replace=1,idmap=1,seeds=50",
    "gen=1,scale=8,ef=8,R=2,L=2,fan=3,weighted=1,idmap=3,seeds=40,variant=1",
    "gen=0,scale=9,ef=8,R=6,L=2,fan=4,idmap=2,seeds=32",
    "gen=1,scale=8,ef=6,R=4,empty=1,L=2,fan=20,idmap=1,seeds=48",
    "gen=0,scale=8,ef=4,R=3,L=2,fan=-1,idmap=3,seeds=20",
    "gen=0,scale=8,ef=8,R=5,L=3,fan=2,weighted=1,replace=1,idmap=1,seeds=24,dup=1",
    "gen=1,scale=7,ef=6,R=2,L=1,fan=6,idmap=1,seeds=0",
    "gen=0,scale=8,ef=8,R=3,empty=1,L=2,fan=3,weighted=1,idmap=2,seeds=33,dup=1,variant=1",
    "gen=1,scale=9,ef=8,R=4,L=3,fan=2,replace=1,idmap=3,seeds=16,variant=1",
    /* weights changed in place with a new version (docs/oracle.md, "Caches keyed by a version"):
     * the typed sampler's split copy and each relation's cpu table must follow; relation rows
     * above GNN_WTABLE_MIN_DEG (R-MAT hubs, R = 2) keep prefix-sum checkpoints */
    "gen=0,scale=12,ef=32,R=2,L=2,fan=20,weighted=1,idmap=1,seeds=200,inplace=1",
    "gen=1,scale=9,ef=8,R=3,L=2,fan=3,weighted=1,replace=1,idmap=3,seeds=64,variant=1,inplace=1",
    NULL,
};

/* ---- benchmark hook: L blocks from the typed sampler (gnn_sampler_blocks) ---------------------
 * The graph, edge types, weights and seeds are the oracle's; the typed sampler (its relation
 * graphs) is made once, as a trainer makes it once per graph. One call samples the L blocks of
 * the seeds and frees them: edges/s are the sampled edges of all layers. */

typedef struct typed_fixture {
    gnn_dataset ds; /* the graph */
    int32_t *et;
    float *w;
    int64_t *seeds, ns, fan[MAX_L];
    int L;
    gnn_sample_params base;
    gnn_sampler *s;
    gnn_block blk[MAX_L];
} typed_fixture;

static void typed_teardown(void *p)
{
    typed_fixture *f = p;
    if (!f)
        return;
    free_blocks(f->blk);
    gnn_sampler_destroy(f->s);
    gnn_dataset_free(&f->ds);
    gnn_free(f->et);
    gnn_free(f->w);
    gnn_free(f->seeds);
    gnn_free(f);
}

static gnn_status typed_bench_run(void *p)
{
    typed_fixture *f = p;
    const gnn_status s = gnn_sampler_blocks(f->s, f->seeds, f->ns, f->fan, f->L, &f->base, f->blk);
    free_blocks(f->blk); /* a trainer frees each batch's blocks too */
    return s;
}

static gnn_status typed_setup(const gnn_oracle_case *c, void **fixture, gnn_oracle_work *work)
{
    if (gnn_oracle_int(c, P_DUP)) /* the multigraph is built in an oracle context only */
        return GNN_ERR_UNSUPPORTED;
    typed_fixture *f = gnn_calloc(1, sizeof *f);
    if (!f)
        return GNN_ERR_NOMEM;
    gnn_err err = { "" };
    gnn_status s = gnn_oracle_case_dataset(&f->ds, (int)gnn_oracle_int(c, P_GEN), (int)gnn_oracle_int(c, P_SCALE),
                                           gnn_oracle_int(c, P_EF), graph_seed(c), &err);
    if (s) {
        memset(&f->ds, 0, sizeof f->ds); /* as gnn_oracle_case_graph: a failed generator owns nothing */
        typed_teardown(f);
        return s;
    }
    const gnn_csr *g = &f->ds.graph;
    f->ns = gnn_oracle_int(c, P_SEEDS);
    f->L = (int)gnn_oracle_int(c, P_L);
    f->et = gnn_malloc(sizeof(int32_t) * (size_t)(g->nnz + 1));
    f->w = gnn_malloc(sizeof(float) * (size_t)(g->nnz + 1));
    f->seeds = gnn_malloc(sizeof(int64_t) * (size_t)(g->n + 1));
    gnn_sampler_options opt;
    if (f->ns > g->n)
        s = GNN_ERR_INVAL;
    else if (!f->et || !f->w || !f->seeds)
        s = GNN_ERR_NOMEM;
    else
        s = typed_inputs(c, g, f->et, f->w, f->seeds, f->fan, &f->base, &opt);
    if (!s) { /* the implementation's sampler with the options its oracle case ran (typed_blocks) */
        const typed_impl *impl = c->impl->ops;
        opt.etype = f->et;
        opt.relations = gnn_oracle_int(c, P_R);
        s = gnn_sampler_create(&f->s, impl->ops, g, &opt);
    }
    /* one call to count the sampled edges and the blocks' bytes */
    if (!s)
        s = gnn_sampler_blocks(f->s, f->seeds, f->ns, f->fan, f->L, &f->base, f->blk);
    if (s) {
        typed_teardown(f);
        return s;
    }
    double edges = 0, bytes = 0;
    for (int l = 0; l < f->L; l++) {
        const gnn_block *b = &f->blk[l];
        edges += (double)b->nnz;
        /* the block written (offsets, local sources, edge types, global ids) and one neighbor id
         * read per sampled edge; the draws' row scans and the ID map's table are not counted */
        bytes += (double)(b->n_dst + 1) * 8.0 + (double)b->nnz * (4.0 + 4.0 + 8.0) + (double)b->n_src * 8.0;
    }
    free_blocks(f->blk);
    work->bytes = bytes;
    work->items = edges;
    work->items_name = "edges/s";
    *fixture = f;
    return GNN_OK;
}

/* DistDGLv2's RGCN setting (a fanout per edge type, DGL's MultiLayerNeighborSampler) at the
 * largest graph the entry allows: R-MAT scale 14 with edge factor 64 (16,384 vertices), 4
 * relations, 4,096 seeds, fanout 10 per relation at the input layer and 11 at the seeds' layer;
 * uniform without replacement (the ordered ID map), and weighted with replacement (the dense
 * one). The oracle runs each size first: under a second per case here. */
static const char *const k_bench_sizes[] = {
    "gen=0,scale=14,ef=64,R=4,L=2,fan=10,idmap=1,seeds=4096",
    "gen=0,scale=14,ef=64,R=4,L=2,fan=10,replace=1,weighted=1,idmap=3,seeds=4096",
    NULL,
};
static const gnn_oracle_bench k_bench = { k_bench_sizes, typed_setup, typed_bench_run, typed_teardown };

const gnn_oracle_entry gnn_oracle_sample_typed = {
    .name = "sample.typed",
    .what = "sampling per edge type: a typed sampler over the implementation's relation samplers against one over the "
            "reference's, the reference against the rule replayed without relation graphs, one relation against the "
            "untyped sampler",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "bitwise: each relation draws with the plain rule from its own keyed stream (v + r * 2^40) and the merge "
              "numbers sources in first appearance, so no ID map or thread count can change a bit",
    .params = k_params, .n_params = N_PARAMS, .presets = k_presets,
    .defaults = "empty=0,replace=0,weighted=0,variant=0,dup=0,inplace=0",
    .ref = &k_ref, .impls = k_impls, .run = run, .bench = &k_bench,
};
