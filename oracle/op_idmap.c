/* oracle/op_idmap.c -- oracle entries for the global-to-local ID maps (include/gnnref/idmap.h,
 * DESIGN.md section 2 "Orders").
 *
 *   idmap.build  bitwise: the ordered kinds (REF through the object API, ORDERED, DENSE)
 *                against gnn_idmap_build_ref: local ids and src_gid, every bit, at 1, 2 and
 *                4 threads;
 *   idmap.fused  canonical: FastGL's Fused-Map hands out local ids in arrival order, so only
 *                the relabelling to first-appearance order is fixed: each side must be a
 *                bijection and, relabelled, equal the reference bit for bit.
 *
 * Each case builds TWICE on the same map object (inputs A, then B): a map that leaves state
 * behind (DENSE resets only the entries it touched) shows up on the second build. Inputs:
 * n_dst distinct dst ids and nnz neighbor ids, a `hit` percent of them dst ids, the rest
 * drawn from a pool of `pool` distinct non-dst ids (a small pool gives many repeats), all
 * sparse in [0, nv). `bad` makes input B invalid: a repeated dst (GNN_ERR_INVAL), a neighbor
 * id equal to nv or a negative one (GNN_ERR_RANGE), which every kind must report. */
#include <stdio.h>
#include <string.h>
#include "gnnref/idmap.h"
#include "gnnref/cuda.h"
#include "gnnref/oracle.h"

/* Every implementation is a real ID map table (idmap.h) and the kind its map is created with,
 * side by side on one line so the name listed by `gnnref oracle --list` and what runs cannot
 * drift apart. ref is the reference table (it ignores the kind); refmap is the cpu table's REF
 * kind (the reference map inside the cpu object, as the cpu sampler's "-ref" variants use it). */
#define IDMAP_IMPL(var, name_, ops_, kind_, flags_)                                                \
    static const gnn_oracle_impl var = { .name = name_, .ops = &ops_, .flags = flags_ };          \
    static const gnn_idmap_kind var##_kind = kind_
IDMAP_IMPL(k_idmap_ref, "ref", gnn_idmap_ref, GNN_IDMAP_REF, 0);
IDMAP_IMPL(k_idmap_refmap, "refmap", gnn_idmap_cpu, GNN_IDMAP_REF, 0);
IDMAP_IMPL(k_idmap_ordered, "ordered", gnn_idmap_cpu, GNN_IDMAP_ORDERED, GNN_ORACLE_THREADED);
IDMAP_IMPL(k_idmap_dense, "dense", gnn_idmap_cpu, GNN_IDMAP_DENSE, GNN_ORACLE_THREADED);
IDMAP_IMPL(k_idmap_fused, "fused", gnn_idmap_cpu, GNN_IDMAP_FUSED, GNN_ORACLE_THREADED);
/* the CUDA tier (opt/cuda/, docs/cuda_sampling.md): cuda on a GPU, cuda-emu the same kernels on
 * the CPU; ORDERED is the atomic-min + scan map, FUSED FastGL's Fused-Map */
IDMAP_IMPL(k_idmap_cuda_ordered, "cuda", gnn_idmap_cuda, GNN_IDMAP_ORDERED, 0);
IDMAP_IMPL(k_idmap_emu_ordered, "cuda-emu", gnn_idmap_cuda_emu, GNN_IDMAP_ORDERED, GNN_ORACLE_EMULATED);
IDMAP_IMPL(k_idmap_cuda_fused, "cuda", gnn_idmap_cuda, GNN_IDMAP_FUSED, 0);
IDMAP_IMPL(k_idmap_emu_fused, "cuda-emu", gnn_idmap_cuda_emu, GNN_IDMAP_FUSED, GNN_ORACLE_EMULATED);
static const gnn_oracle_impl *const k_idmap_ordered_impls[] = { &k_idmap_ref, &k_idmap_refmap, &k_idmap_ordered,
                                                                &k_idmap_dense, &k_idmap_cuda_ordered,
                                                                &k_idmap_emu_ordered, NULL };
static const gnn_oracle_impl *const k_idmap_fused_impls[] = { &k_idmap_fused, &k_idmap_cuda_fused, &k_idmap_emu_fused,
                                                              NULL };

/* The kind impl's map is created with; REF for an implementation not registered here (the
 * self-tests' mutants, whose tables ignore it). */
static gnn_idmap_kind kind_of(const gnn_oracle_impl *impl)
{
    static const struct {
        const gnn_oracle_impl *impl;
        const gnn_idmap_kind *kind;
    } known[] = {
        { &k_idmap_ref, &k_idmap_ref_kind },         { &k_idmap_refmap, &k_idmap_refmap_kind },
        { &k_idmap_ordered, &k_idmap_ordered_kind }, { &k_idmap_dense, &k_idmap_dense_kind },
        { &k_idmap_fused, &k_idmap_fused_kind },
        { &k_idmap_cuda_ordered, &k_idmap_cuda_ordered_kind }, { &k_idmap_emu_ordered, &k_idmap_emu_ordered_kind },
        { &k_idmap_cuda_fused, &k_idmap_cuda_fused_kind },     { &k_idmap_emu_fused, &k_idmap_emu_fused_kind },
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].impl == impl)
            return *known[i].kind;
    return GNN_IDMAP_REF;
}


/* The `cuda` implementations run where a GPU is; elsewhere their cases are SKIP with the reason
 * (never FAIL). `cuda-emu` runs the same kernels' bodies on the CPU, everywhere. */
static gnn_oracle_outcome cuda_gate(gnn_oracle_ctx *ctx, const gnn_oracle_impl *impl)
{
    char why[256];
    if ((impl == &k_idmap_cuda_ordered || impl == &k_idmap_cuda_fused) && !gnn_cuda_available(why, sizeof why))
        return gnn_oracle_skip(ctx, "%s", why);
    return GNN_ORACLE_PASS;
}

enum { I_NV, I_NDST, I_NNZ, I_HIT, I_POOL, I_BAD, I_COLLIDE, I_LOCKSTEP, N_I_PARAMS };
/* nv up to 2^33 - 2, the hash maps' limit (ids above 2^32 test the packed table words; the
 * DENSE map, which allocates nv cells, is skipped above DENSE_MAX_NV) */
#define DENSE_MAX_NV ((int64_t)1 << 26)
static const gnn_oracle_param k_i_params[N_I_PARAMS] = {
    { "nv", GNN_PARAM_INT, 1, 8589934590.0, "n_vertices: ids are in [0, nv) (DENSE allocates nv entries)" },
    { "n_dst", GNN_PARAM_INT, 0, 1e7, "distinct dst ids" },
    { "nnz", GNN_PARAM_INT, 0, 1e8, "neighbor ids" },
    { "hit", GNN_PARAM_INT, 0, 100, "percent of neighbors that are dst ids" },
    { "pool", GNN_PARAM_INT, 1, 1e8, "the other neighbors come from this many distinct non-dst ids" },
    { "bad", GNN_PARAM_INT, 0, 3, "second build: 1 repeated dst (INVAL), 2 a neighbor id = nv, 3 a negative id (RANGE)" },
    { "collide", GNN_PARAM_INT, 0, 1,
      "1: every id hashes (cpu maps' multiplicative hash) into the last 8 of 1024 slots: long probe chains that wrap "
      "past the end of the table" },
    { "lockstep", GNN_PARAM_INT, 0, 1,
      "1: neighbor e is pool id e mod pool (hit ignored): every 4096-item chunk of the cpu maps' insert loop holds "
      "the same ids in the same order, so the threads lower the same words at the same moments" },
};
/* many repeats, neighbors that are all dst ids, no neighbors, a single dst, no dst, sparse
 * ids in a large id space, a size where threads race, and the three invalid inputs */
static const char *const k_i_presets[] = {
    "nv=1000,n_dst=50,nnz=400,hit=30,pool=40,bad=0",
    "nv=200,n_dst=20,nnz=100,hit=100,pool=1,bad=0",
    "nv=100,n_dst=30,nnz=0,hit=0,pool=1,bad=0",
    "nv=100,n_dst=1,nnz=12,hit=25,pool=5,bad=0",
    "nv=500,n_dst=0,nnz=300,hit=0,pool=100,bad=0",
    "nv=1,n_dst=1,nnz=5,hit=100,pool=1,bad=0",
    "nv=4000000,n_dst=300,nnz=5000,hit=20,pool=3000,bad=0",
    "nv=100000,n_dst=2000,nnz=40000,hit=25,pool=20000,bad=0",
    "nv=100000,n_dst=3000,nnz=30000,hit=10,pool=3,bad=0",
    "nv=1000,n_dst=10,nnz=50,hit=30,pool=20,bad=1",
    "nv=1000,n_dst=10,nnz=50,hit=30,pool=20,bad=2",
    "nv=1000,n_dst=10,nnz=50,hit=30,pool=20,bad=3",
    /* boundaries: 70000 neighbors (the exclusive scan of the new-vertex flags goes parallel at
     * 65536: every smaller preset runs it serially); ids colliding in the hash (a 1024-slot table,
     * every key in its last 8 slots: probes run long and wrap to slot 0); ids up to 2^33 - 2 (the
     * packed table words keep gid + 1 in 33 bits; DENSE is skipped there) */
    "nv=200000,n_dst=1000,nnz=70000,hit=20,pool=5000,bad=0",
    "nv=4000000,n_dst=60,nnz=400,hit=30,pool=100,bad=0,collide=1",
    "nv=8589934590,n_dst=300,nnz=5000,hit=20,pool=3000,bad=0",
    /* contention: 16 chunks of 4096 neighbors, each the same 512 ids in the same order, so the
     * threads claim and lower the same table words at the same moments. (A CAS tried once
     * instead of until it holds, mutant M03, still passed 3 x 8 stress runs of it on 2 cores:
     * it needs a third thread to change the word inside one CAS window; docs/oracle.md) */
    "nv=100000,n_dst=8,nnz=65536,hit=0,pool=512,bad=0,lockstep=1",
    NULL,
};

/* One input: n_dst distinct ids, then nnz neighbors (stream base: dst, base + 1: neighbors). */
typedef struct idmap_input {
    int64_t *dst; /* (n_dst) */
    int64_t *nbr; /* (nnz) */
} idmap_input;

static int draw_input(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, uint64_t base, idmap_input *in)
{
    const int64_t nv = gnn_oracle_int(c, I_NV), n_dst = gnn_oracle_int(c, I_NDST), nnz = gnn_oracle_int(c, I_NNZ);
    const int64_t hit = gnn_oracle_int(c, I_HIT), pool = gnn_oracle_int(c, I_POOL);
    if (n_dst + (hit < 100 ? pool : 0) > nv)
        return -1;
    /* n_dst + pool distinct ids: Floyd's sampling into a small open-addressing set */
    const int64_t want = n_dst + pool;
    int64_t cap = 16;
    while (cap < 2 * want)
        cap <<= 1;
    int64_t *set = gnn_oracle_alloc(ctx, (size_t)cap * sizeof(int64_t));
    int64_t *ids = gnn_oracle_alloc(ctx, ((size_t)want + 1) * sizeof(int64_t));
    in->dst = gnn_oracle_alloc(ctx, ((size_t)n_dst + 1) * sizeof(int64_t));
    in->nbr = gnn_oracle_alloc(ctx, ((size_t)nnz + 1) * sizeof(int64_t));
    if (!set || !ids || !in->dst || !in->nbr)
        return 1;
    for (int64_t i = 0; i < cap; i++)
        set[i] = -1;
    gnn_oracle_draws gd = gnn_oracle_draws_make(c, base), gn = gnn_oracle_draws_make(c, base + 1);
    const int64_t take = want < nv ? want : nv;
    if (gnn_oracle_int(c, I_COLLIDE)) {
        /* ids whose slot in a 1024-slot table (opt/cpu/idmap_impl.h's hash) is one of the last 8:
         * scanned upward from a random start, so distinct; about one id in 128 qualifies */
        int64_t t = (int64_t)gnn_oracle_draw_uint(&gd, (uint64_t)nv), found = 0;
        for (int64_t tries = 0; found < take && tries < nv; tries++, t = t + 1 < nv ? t + 1 : 0)
            if ((((uint64_t)t * 0x9E3779B97F4A7C15ull) >> 17 & 1023) >= 1016)
                ids[found++] = t;
        if (found < take)
            return -1;
    } else
    for (int64_t j = nv - take, i = 0; j < nv; j++, i++) {
        int64_t t = (int64_t)gnn_oracle_draw_uint(&gd, (uint64_t)j + 1), h;
        for (h = (int64_t)(((uint64_t)t * 0x9E3779B97F4A7C15ull) & (uint64_t)(cap - 1)); set[h] != -1 && set[h] != t;
             h = (h + 1) & (cap - 1))
            ;
        if (set[h] == t) { /* Floyd: t taken, take j (never taken before) */
            t = j;
            for (h = (int64_t)(((uint64_t)t * 0x9E3779B97F4A7C15ull) & (uint64_t)(cap - 1)); set[h] != -1;
                 h = (h + 1) & (cap - 1))
                ;
        }
        set[h] = t;
        ids[i] = t;
    }
    /* Floyd's order is biased toward large ids late: shuffle, then split into dst and pool */
    gnn_rng_shuffle_i64(&gd.s, ids, take);
    memcpy(in->dst, ids, (size_t)n_dst * sizeof(int64_t));
    const int64_t *pool_ids = ids + n_dst, n_pool = take - n_dst;
    if (gnn_oracle_int(c, I_LOCKSTEP) && n_pool > 0) {
        for (int64_t e = 0; e < nnz; e++)
            in->nbr[e] = pool_ids[e % n_pool];
        return 0;
    }
    for (int64_t e = 0; e < nnz; e++) {
        const int is_dst = n_dst > 0 && ((int64_t)gnn_oracle_draw_uint(&gn, 100) < hit || n_pool == 0);
        const uint64_t r = gnn_oracle_draw_uint(&gn, (uint64_t)(is_dst ? n_dst : n_pool));
        in->nbr[e] = is_dst ? in->dst[r] : pool_ids[r];
    }
    return 0;
}

static void free_idmap(void *p) { gnn_idmap_destroy(p); }

typedef struct idmap_out {
    int32_t *local;   /* (nnz) */
    int64_t *src_gid; /* (n_dst + nnz) */
    int64_t n_src;
} idmap_out;

static int alloc_out(gnn_oracle_ctx *ctx, const char *side, int64_t n_dst, int64_t nnz, idmap_out *o)
{
    char n1[48], n2[48];
    snprintf(n1, sizeof n1, "%s.local", side);
    snprintf(n2, sizeof n2, "%s.src_gid", side);
    o->local = gnn_oracle_alloc_out(ctx, n1, (size_t)nnz * sizeof(int32_t));
    o->src_gid = gnn_oracle_alloc_out(ctx, n2, (size_t)(n_dst + nnz) * sizeof(int64_t));
    o->n_src = -1;
    return o->local && o->src_gid ? 0 : 1;
}

static gnn_status run_impl(gnn_idmap *m, const idmap_input *in, int64_t n_dst, int64_t nnz, idmap_out *o)
{
    return gnn_idmap_build(m, in->dst, n_dst, in->nbr, nnz, o->local, o->src_gid, &o->n_src);
}

/* The map of impl for the case (freed after it). */
static gnn_oracle_outcome make_map(gnn_oracle_ctx *ctx, const char *who, const gnn_oracle_impl *impl, int64_t nv,
                                   gnn_idmap **m)
{
    gnn_oracle_outcome o = gnn_oracle_status(ctx, who, gnn_idmap_create(m, impl->ops, kind_of(impl), nv));
    if (o == GNN_ORACLE_PASS)
        gnn_oracle_defer(ctx, free_idmap, *m);
    return o;
}

/* Build `in` with the reference (on map rm) and the implementation (on map m) and compare. */
static gnn_oracle_outcome build_compare(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, gnn_idmap *rm, gnn_idmap *m,
                                        const idmap_input *in, const char *which)
{
    const int64_t n_dst = gnn_oracle_int(c, I_NDST), nnz = gnn_oracle_int(c, I_NNZ);
    idmap_out want, got;
    char side[32];
    snprintf(side, sizeof side, "ref.%s", which);
    if (alloc_out(ctx, side, n_dst, nnz, &want))
        return gnn_oracle_fail(ctx, "out of memory");
    snprintf(side, sizeof side, "impl.%s", which);
    if (alloc_out(ctx, side, n_dst, nnz, &got))
        return gnn_oracle_fail(ctx, "out of memory");
    const gnn_status sr = run_impl(rm, in, n_dst, nnz, &want);
    if (sr != GNN_OK)
        return gnn_oracle_fail(ctx, "ref on input %s returned %s", which, gnn_status_str(sr));
    char who[48];
    snprintf(who, sizeof who, "impl (input %s)", which);
    gnn_oracle_outcome o = gnn_oracle_status(ctx, who, run_impl(m, in, n_dst, nnz, &got));
    if (o != GNN_ORACLE_PASS)
        return o;
    if (got.n_src >= n_dst && got.n_src <= n_dst + nnz) {
        if (gnn_oracle_ctx_tol(ctx)->cmp != GNN_CMP_CANONICAL) {
            gnn_oracle_digest(ctx, got.local, (size_t)nnz * sizeof(int32_t));
            gnn_oracle_digest(ctx, got.src_gid, (size_t)got.n_src * sizeof(int64_t));
        } else { /* the raw order may change from run to run: digest what it maps each edge to */
            gnn_oracle_digest(ctx, &got.n_src, sizeof got.n_src);
            for (int64_t e = 0; e < nnz; e++) {
                const int64_t gid = got.local[e] >= 0 && got.local[e] < got.n_src ? got.src_gid[got.local[e]] : -1;
                gnn_oracle_digest(ctx, &gid, sizeof gid);
            }
        }
    }
    return gnn_oracle_compare_idmap(ctx, gnn_oracle_ctx_tol(ctx)->cmp, which, n_dst, nnz, want.local, want.src_gid, want.n_src,
                                    got.local, got.src_gid, got.n_src);
}

static gnn_oracle_outcome idmap_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int64_t nv = gnn_oracle_int(c, I_NV), n_dst = gnn_oracle_int(c, I_NDST), nnz = gnn_oracle_int(c, I_NNZ);
    const int bad = (int)gnn_oracle_int(c, I_BAD);
    if (bad == 1 && n_dst < 2)
        return gnn_oracle_fail(ctx, "invalid case: bad=1 needs n_dst >= 2");
    if (bad >= 2 && nnz < 1)
        return gnn_oracle_fail(ctx, "invalid case: bad=%d needs nnz >= 1", bad);
    idmap_input in[2];
    for (int k = 0; k < 2; k++) {
        int r = draw_input(ctx, c, 1 + 2 * (uint64_t)k, &in[k]);
        if (r < 0)
            return gnn_oracle_fail(ctx, "invalid case: n_dst + pool > nv (ids are distinct)");
        if (r > 0)
            return gnn_oracle_fail(ctx, "out of memory");
    }
    if (kind_of(c->impl) == GNN_IDMAP_DENSE && nv > DENSE_MAX_NV)
        return gnn_oracle_skip(ctx, "nv = %lld: the DENSE map would allocate nv cells (the oracle runs it up to %lld)",
                               (long long)nv, (long long)DENSE_MAX_NV);
    gnn_idmap *rm, *m;
    gnn_oracle_outcome o = cuda_gate(ctx, c->impl);
    if (o != GNN_ORACLE_PASS)
        return o;
    o = make_map(ctx, "ref: gnn_idmap_create", c->entry->ref, nv, &rm);
    if (o != GNN_ORACLE_PASS || (o = make_map(ctx, "gnn_idmap_create", c->impl, nv, &m)) != GNN_ORACLE_PASS)
        return o;
    o = build_compare(ctx, c, rm, m, &in[0], "A");
    if (o != GNN_ORACLE_PASS)
        return o;
    if (!bad)
        return build_compare(ctx, c, rm, m, &in[1], "B");
    /* input B made invalid: every kind must say so, and the map must stay usable (input A
     * again, after a build that may have inserted some ids before it failed) */
    const gnn_status expect = bad == 1 ? GNN_ERR_INVAL : GNN_ERR_RANGE;
    const char *what = bad == 1 ? "a repeated dst" : bad == 2 ? "a neighbor id = nv" : "a negative neighbor id";
    if (bad == 1)
        in[1].dst[n_dst - 1] = in[1].dst[0];
    else
        in[1].nbr[nnz / 2] = bad == 2 ? nv : -1;
    idmap_out want, got;
    if (alloc_out(ctx, "ref.B", n_dst, nnz, &want) || alloc_out(ctx, "impl.B", n_dst, nnz, &got))
        return gnn_oracle_fail(ctx, "out of memory");
    const gnn_status sr = run_impl(rm, &in[1], n_dst, nnz, &want);
    const gnn_status si = run_impl(m, &in[1], n_dst, nnz, &got);
    if (sr != expect)
        return gnn_oracle_fail(ctx, "ref on input B with %s returned %s, expected %s", what, gnn_status_str(sr),
                               gnn_status_str(expect));
    if (si != expect)
        return gnn_oracle_fail(ctx, "impl on input B with %s returned %s, expected %s", what, gnn_status_str(si),
                               gnn_status_str(expect));
    return build_compare(ctx, c, rm, m, &in[0], "A again");
}

const gnn_oracle_entry gnn_oracle_idmap_build = {
    .name = "idmap.build",
    .what = "ordered ID maps (REF object, ORDERED, DENSE) reproduce gnn_idmap_build_ref: local ids and src_gid, "
            "two builds per map object, invalid input rejected",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "DESIGN.md section 2 fixes the src order (first appearance): exact",
    .params = k_i_params, .n_params = N_I_PARAMS, .presets = k_i_presets, .defaults = "collide=0,lockstep=0",
    .ref = &k_idmap_ref, .impls = k_idmap_ordered_impls, .run = idmap_run,
};

const gnn_oracle_entry gnn_oracle_idmap_fused = {
    .name = "idmap.fused",
    .what = "FastGL's Fused-Map is a bijection equal to the reference after relabelling to first-appearance order",
    .tol = { GNN_CMP_CANONICAL, 0, 0 },
    .reason = "the atomic counter hands out ids in arrival order (inherently unordered); the relabelled map is exact",
    .params = k_i_params, .n_params = N_I_PARAMS, .presets = k_i_presets, .defaults = "collide=0,lockstep=0",
    .ref = &k_idmap_ref, .impls = k_idmap_fused_impls, .run = idmap_run,
};
