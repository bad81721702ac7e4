/* oracle/op_dsample.c -- the oracle entry of DistDGLv2's distributed sampling
 * (include/gnnref/dsample.h, docs/dist_sampling.md), run SPMD under the simulator at 1 to 8 ranks,
 * the implementation at 1, 2 and 4 OpenMP threads per rank.
 *
 *   dsample.blocks  every rank samples L blocks from its own seeds (any owner) through the
 *     exchange, once with the reference tables (gnn_sampler_ref on the local rows,
 *     gnn_idmap_ref for the block) and once with the implementation's (cpu: gnn_sampler_cpu,
 *     gnn_idmap_cpu with the case's ID map kind). Both must be BITWISE the blocks of
 *     gnn_sample_blocks(gnn_sampler_ref) on the whole graph from the same seeds (the Fused-Map
 *     kind after canonical relabelling: GNN_CMP_CANONICAL). Then, written differently, the
 *     bytes every rank put on the communicator per layer: requests = 48 bytes of header to each
 *     other rank + 8 per frontier vertex another rank owns; replies = 8 per vertex it was asked
 *     for + 8 per neighbour it sampled for them, counted from the expected blocks.
 *
 * Inputs: R-MAT or SBM (optionally with repeated edges and self-loops), the part vector of
 * gnn_oracle_case_parts (random, range, hash, METIS, a rank that owns nothing, all on rank 0),
 * uniform or weighted (gnn_sample_random_weights, some weights 0), with or without replacement,
 * fanouts below and above the degrees (and -1, all), 1 to 3 layers, seeds drawn per rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/cuda.h"
#include "gnnref/dsample.h"
#include "gnnref/oracle.h"
#include "gnnref/partition.h"
#include "gnnref/rng.h"
#include "gnnref/sim.h"
#include "gnnref/tensor.h"

#define MAX_RANKS 8
#define MAX_L 3

enum { P_RANKS, P_GEN, P_SCALE, P_EF, P_METHOD, P_L, P_FAN, P_REPLACE, P_WEIGHTED, P_IDMAP, P_SEEDS, P_DUP, N_PARAMS };
static const gnn_oracle_param k_params[N_PARAMS] = {
    { "ranks", GNN_PARAM_INT, 1, MAX_RANKS, "simulated ranks = parts" },
    { "gen", GNN_PARAM_INT, 0, 1, "graph: 0 R-MAT (Graph500), 1 SBM (4 classes)" },
    { "scale", GNN_PARAM_INT, 1, 14, "2^scale vertices" },
    { "ef", GNN_PARAM_INT, 1, 64, "edge factor (R-MAT) or average degree (SBM)" },
    { "method", GNN_PARAM_INT, 0, 5,
      "part vector: 0 random, 1 range, 2 hash, 3 metis, 4 range over ranks-1 (last rank empty), 5 all on rank 0" },
    { "L", GNN_PARAM_INT, 1, MAX_L, "layers (blocks)" },
    { "fan", GNN_PARAM_INT, -1, 64, "fanout of the input layer; layer l takes fan + l (-1: all neighbours)" },
    { "replace", GNN_PARAM_INT, 0, 1, "1: with replacement" },
    { "weighted", GNN_PARAM_INT, 0, 1, "1: per-edge weights (gnn_sample_random_weights, every 7th edge 0)" },
    { "idmap", GNN_PARAM_INT, 0, 3, "the block's ID map: 0 ref, 1 ordered, 2 fused (canonical), 3 dense" },
    { "seeds", GNN_PARAM_INT, 0, 4096, "seeds per rank (distinct, any owner)" },
    { "dup", GNN_PARAM_INT, 0, 1, "1: repeat every third edge and add a self-loop on every fifth vertex" },
};

typedef gnn_dsample_tables dsample_impl;
static const dsample_impl k_ref_tables = { &gnn_sampler_ref, &gnn_idmap_ref };
static const dsample_impl k_cpu_tables = { &gnn_sampler_cpu, &gnn_idmap_cpu };
/* the CUDA sampler and ID map (docs/cuda_sampling.md): on a GPU, and their kernels' bodies on the
 * CPU; every ID map kind but the Fused-Map runs as the ordered map (bitwise); uniform only */
static const dsample_impl k_cuda_tables = { &gnn_sampler_cuda, &gnn_idmap_cuda };
static const dsample_impl k_emu_tables = { &gnn_sampler_cuda_emu, &gnn_idmap_cuda_emu };

typedef struct job {
    const gnn_csr *g;
    const int32_t *part;
    int64_t k;
    gnn_partition parts;
    const float *w;            /* global weights or NULL */
    float *lw[MAX_RANKS];      /* each part's local weights */
    const dsample_impl *impl;
    gnn_idmap_kind kind;
    int L;
    int64_t fanouts[MAX_L];
    gnn_sample_params base;
    int64_t *seeds[MAX_RANKS];
    int64_t n_seeds;
    gnn_block got[2][MAX_RANKS][MAX_L]; /* [ref tables, impl tables] */
    gnn_dsample_stats stats[2][MAX_RANKS];
} job;

static gnn_status rank_fn(gnn_comm *c, void *arg)
{
    job *J = arg;
    const int r = c->rank;
    for (int t = 0; t < 2; t++) {
        const dsample_impl *T = t ? J->impl : &k_ref_tables;
        gnn_dsampler *s = NULL;
        gnn_status st = gnn_dsampler_create(&s, &J->parts.parts[r], J->part, J->g->n, J->k, J->w ? J->lw[r] : NULL,
                                            T->sampler, T->idmap, t ? J->kind : GNN_IDMAP_REF, &c->err);
        gnn_sample_params base = J->base;
        base.step = J->base.step + 3u * (uint32_t)r; /* ranks at different steps: the owner must draw with the
                                                        requester's keys, which the request header carries */
        if (!st)
            st = gnn_dsample_blocks(s, c, J->seeds[r], J->n_seeds, J->fanouts, J->L, &base, J->got[t][r],
                                    &J->stats[t][r]);
        gnn_dsampler_destroy(s);
        if (st)
            return c->err.msg[0] ? st : gnn_err_set(&c->err, st, "rank %d: %s", r, gnn_status_str(st));
    }
    return GNN_OK;
}

static void free_job(void *p)
{
    job *J = p;
    for (int t = 0; t < 2; t++)
        for (int r = 0; r < MAX_RANKS; r++)
            for (int l = 0; l < MAX_L; l++)
                gnn_block_free(&J->got[t][r][l]);
    for (int r = 0; r < MAX_RANKS; r++) {
        gnn_free(J->lw[r]);
        gnn_free(J->seeds[r]);
    }
    gnn_partition_free(&J->parts);
}

static void free_blocks(void *p)
{
    gnn_block *b = p;
    for (int l = 0; l < MAX_L; l++)
        gnn_block_free(&b[l]);
}

/* The bytes each rank must have sent per layer, from the expected blocks of every rank. */
static gnn_oracle_outcome check_bytes(gnn_oracle_ctx *ctx, const job *J, gnn_block want[][MAX_L], int t)
{
    const int64_t P = J->k;
    int64_t req[MAX_RANKS][MAX_L] = { { 0 } }, rep[MAX_RANKS][MAX_L] = { { 0 } };
    for (int64_t r = 0; r < P; r++)
        for (int l = 0; l < J->L; l++) {
            const gnn_block *b = &want[r][l];
            req[r][l] += 48 * (P - 1);
            for (int64_t i = 0; i < b->n_dst; i++) {
                const int64_t o = J->part[b->src_gid[i]];
                if (o == r)
                    continue;
                req[r][l] += 8;
                rep[o][l] += 8 + 8 * (b->indptr[i + 1] - b->indptr[i]);
            }
        }
    for (int64_t r = 0; r < P; r++)
        for (int l = 0; l < J->L; l++) {
            const gnn_dsample_stats *s = &J->stats[t][r];
            if (s->request_bytes[l] != req[r][l] || s->reply_bytes[l] != rep[r][l])
                return gnn_oracle_fail(ctx, "%s tables, rank %lld, layer %d: sent %lld request and %lld reply bytes; the "
                                            "blocks give %lld and %lld",
                                       t ? "impl" : "ref", (long long)r, l, (long long)s->request_bytes[l],
                                       (long long)s->reply_bytes[l], (long long)req[r][l], (long long)rep[r][l]);
        }
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    char why[256];
    if (c->impl->ops == &k_cuda_tables && !gnn_cuda_available(why, sizeof why)) /* SKIP, never FAIL, without a GPU */
        return gnn_oracle_skip(ctx, "%s", why);
    const dsample_impl *T = c->impl->ops;
    if ((T == &k_cuda_tables || T == &k_emu_tables) && gnn_oracle_int(c, P_WEIGHTED)) /* before any rank fails */
        return gnn_oracle_status(ctx, "the CUDA sampler (uniform only, docs/cuda_sampling.md)", GNN_ERR_UNSUPPORTED);
    const gnn_csr *g = NULL;
    gnn_oracle_outcome o = gnn_oracle_case_graph_multi(ctx, c, (int)gnn_oracle_int(c, P_GEN),
                                                       (int)gnn_oracle_int(c, P_SCALE), gnn_oracle_int(c, P_EF),
                                                       c->seed * 0x9E3779B97F4A7C15ull + 47, (int)gnn_oracle_int(c, P_DUP), &g);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t n = g->n, k = gnn_oracle_int(c, P_RANKS), ns = gnn_oracle_int(c, P_SEEDS);
    const int L = (int)gnn_oracle_int(c, P_L);
    job *J = gnn_oracle_alloc(ctx, sizeof *J);
    int32_t *part = gnn_oracle_alloc(ctx, sizeof(int32_t) * (size_t)(n + 1));
    float *w = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(g->nnz + 1));
    gnn_block(*want)[MAX_L] = gnn_oracle_alloc(ctx, sizeof(gnn_block) * MAX_RANKS * MAX_L);
    if (!J || !part || !w || !want)
        return gnn_oracle_fail(ctx, "out of memory");
    memset(J, 0, sizeof *J);
    memset(want, 0, sizeof(gnn_block) * MAX_RANKS * MAX_L);
    gnn_oracle_defer(ctx, free_job, J);
    for (int64_t r = 0; r < MAX_RANKS; r++)
        gnn_oracle_defer(ctx, free_blocks, want[r]);
    gnn_err err = { "" };
    if (gnn_oracle_case_parts(g, (int)gnn_oracle_int(c, P_METHOD), k, c->seed, part, &err))
        return gnn_oracle_fail(ctx, "part vector: %s", err.msg);
    if (ns > n)
        return gnn_oracle_fail(ctx, "invalid case: seeds=%lld > %lld vertices", (long long)ns, (long long)n);
    *J = (job){ .g = g, .part = part, .k = k, .impl = c->impl->ops, .kind = (gnn_idmap_kind)gnn_oracle_int(c, P_IDMAP),
                .L = L, .n_seeds = ns };
    if (gnn_partition_build(&gnn_partition_ref, &J->parts, g, NULL, part, k, &err))
        return gnn_oracle_fail(ctx, "partition: %s", err.msg);
    if (gnn_oracle_int(c, P_WEIGHTED)) {
        if (gnn_sample_random_weights(w, g->nnz, c->seed))
            return gnn_oracle_fail(ctx, "weights");
        for (int64_t e = 0; e < g->nnz; e += 7)
            w[e] = 0.0f;
        J->w = w;
        for (int64_t r = 0; r < k; r++) {
            const gnn_part_local *Lr = &J->parts.parts[r];
            if (!(J->lw[r] = gnn_malloc(sizeof(float) * (size_t)(Lr->graph.nnz + 1))) ||
                gnn_dsample_local_weights(Lr, g, w, J->lw[r], &err))
                return gnn_oracle_fail(ctx, "local weights of rank %lld: %s", (long long)r, err.msg);
        }
    }
    const int64_t fan = gnn_oracle_int(c, P_FAN);
    for (int l = 0; l < L; l++)
        J->fanouts[l] = fan < 0 ? -1 : fan + l;
    J->base = (gnn_sample_params){ .replace = (int)gnn_oracle_int(c, P_REPLACE), .seed = c->seed, .step = 11,
                                   .weights = J->w };
    /* seeds: rank r takes the first ns of a keyed permutation of the vertices */
    for (int64_t r = 0; r < k; r++) {
        int64_t *perm = gnn_malloc(sizeof(int64_t) * (size_t)(n + 1));
        if (!perm)
            return gnn_oracle_fail(ctx, "out of memory");
        for (int64_t v = 0; v < n; v++)
            perm[v] = v;
        const gnn_rng_stream s = gnn_rng_stream_make(c->seed, GNN_TAG_ORACLE, 31, 0, (uint64_t)r);
        gnn_rng_shuffle_i64(&s, perm, n);
        J->seeds[r] = perm;
        gnn_sample_params base = J->base;
        base.step = J->base.step + 3u * (uint32_t)r;
        gnn_status st = gnn_sample_blocks(&gnn_sampler_ref, g, perm, ns, J->fanouts, L, &base, want[r]);
        if (st)
            return gnn_oracle_fail(ctx, "single-machine blocks of rank %lld: %s", (long long)r, gnn_status_str(st));
    }
    J->base.weights = NULL; /* the ranks sample with their local weights */

    gnn_sim_config cfg;
    gnn_sim_defaults(&cfg);
    cfg.ranks = (int)k;
    cfg.timeout_s = 60;
    cfg.threads_per_rank = c->threads > 0 ? c->threads : 1;
    const gnn_status st = gnn_sim_run(&cfg, rank_fn, J, NULL, &err);
    if (st)
        return gnn_oracle_fail(ctx, "simulated run on %lld ranks: %s (%s)", (long long)k, gnn_status_str(st), err.msg);
    const gnn_oracle_cmp cmp = J->kind == GNN_IDMAP_FUSED ? GNN_CMP_CANONICAL : GNN_CMP_BITWISE;
    int64_t local = 0, remote = 0;
    for (int64_t r = 0; r < k; r++)
        for (int t = 0; t < 2; t++) {
            char name[96];
            snprintf(name, sizeof name, "rank[%lld] %s tables vs one machine", (long long)r, t ? c->impl->name : "ref");
            if ((o = gnn_oracle_compare_blocks(ctx, t ? cmp : GNN_CMP_BITWISE, name, J->seeds[r], ns, want[r],
                                               J->got[t][r], L)) != GNN_ORACLE_PASS)
                return o;
            if (t)
                for (int l = 0; l < L; l++)
                    local += J->stats[t][r].local[l], remote += J->stats[t][r].remote[l];
        }
    for (int t = 0; t < 2; t++)
        if ((o = check_bytes(ctx, J, want, t)) != GNN_ORACLE_PASS)
            return o;
    gnn_oracle_note(ctx, "%lld ranks, %d layers: %lld frontier vertices sampled where they live, %lld requested",
                    (long long)k, L, (long long)local, (long long)remote);
    return GNN_ORACLE_PASS;
}

static const gnn_oracle_impl k_ref = { .name = "ref", .ops = &k_ref_tables, .flags = 0 };
static const gnn_oracle_impl k_cpu = { .name = "cpu", .ops = &k_cpu_tables, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl k_cuda = { .name = "cuda", .ops = &k_cuda_tables, .flags = 0 };
static const gnn_oracle_impl k_emu = { .name = "cuda-emu", .ops = &k_emu_tables, .flags = GNN_ORACLE_EMULATED };
static const gnn_oracle_impl *const k_impls[] = { &k_ref, &k_cpu, &k_cuda, &k_emu, NULL };

/* 1 to 5 ranks and 8; every ID map kind; uniform and weighted, with and without replacement;
 * fanouts above the degrees (R-MAT's many low-degree vertices, fan=20) and all (-1); a rank
 * that owns nothing, everything on one rank; repeated edges and self-loops; no seeds */
static const char *const k_presets[] = {
    "ranks=1,gen=0,scale=8,ef=8,method=1,L=2,fan=3,idmap=1,seeds=40",
    "ranks=2,gen=1,scale=8,ef=6,method=3,L=2,fan=4,idmap=3,seeds=64",
    "ranks=3,gen=0,scale=8,ef=8,method=0,L=3,fan=2,idmap=0,seeds=30",
    "ranks=4,gen=0,scale=9,ef=8,method=2,L=2,fan=5,replace=1,idmap=1,seeds=50",
    "ranks=5,gen=1,scale=8,ef=8,method=3,L=2,fan=3,weighted=1,idmap=3,seeds=40",
    "ranks=8,gen=0,scale=9,ef=8,method=0,L=2,fan=4,idmap=2,seeds=32",
    "ranks=4,gen=1,scale=8,ef=6,method=4,L=2,fan=20,idmap=1,seeds=48",
    "ranks=3,gen=0,scale=8,ef=4,method=5,L=2,fan=-1,idmap=3,seeds=20",
    "ranks=4,gen=0,scale=8,ef=8,method=3,L=3,fan=2,weighted=1,replace=1,idmap=1,seeds=24,dup=1",
    "ranks=2,gen=1,scale=7,ef=6,method=0,L=1,fan=6,idmap=1,seeds=0",
    "ranks=5,gen=0,scale=8,ef=8,method=1,L=2,fan=3,weighted=1,idmap=2,seeds=33,dup=1",
    "ranks=8,gen=1,scale=9,ef=8,method=3,L=3,fan=2,replace=1,idmap=3,seeds=16",
    NULL,
};

const gnn_oracle_entry gnn_oracle_dsample_blocks = {
    .name = "dsample.blocks",
    .what = "DistDGLv2 distributed sampling under the simulator: every rank's blocks through the request/reply "
            "exchange against gnn_sample_blocks on the whole graph, and every rank's bytes per layer",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "bitwise (canonical for the Fused-Map): every draw is keyed by (seed, step, layer, vertex) and a part's "
              "solid rows keep the global CSR order, so the owner draws what one machine draws; bytes exact",
    .params = k_params, .n_params = N_PARAMS, .presets = k_presets, .defaults = "replace=0,weighted=0,dup=0",
    .ref = &k_ref, .impls = k_impls, .run = run,
};
