/* bench/bench_sample.c -- multi-layer neighbor sampling on R-MAT (DESIGN.md section 7).
 *
 * Graph: gnn_gen_rmat with the Graph500 initiator (gnn_rmat_defaults: a=0.57, b=0.19,
 * c=0.19, seed 1), scale 22 and edge factor 16 (4.2 M vertices, 128 M CSR entries after
 * symmetrizing). GNN_BENCH_RMAT_SCALE=S picks another scale (16 for a quick run). Generating
 * scale 22 takes about half a minute and 1-2 GB, so the graph is generated once and cached in
 * <build>/bench-cache/rmat-s<S>-e16.gnn (gnn_dataset_save; later runs gnn_dataset_load, which
 * mmaps and checks every section's CRC32C). <build> is the folder above bin/gnnref-bench;
 * GNN_BENCH_CACHE_DIR overrides the folder. The samplers read a copy of the topology in
 * (transparent) huge pages, as `gnnref sample` does by default (--topology memory).
 * Work: fanouts 15,10,5 (input layer first), batches of 1000 seeds taken from all vertices
 * shuffled by (seed 1, SHUFFLE, step 0); iteration i of a benchmark samples batch i mod nb
 * with step i mod nb, so every benchmark walks the same sequence of batches from batch 0
 * (Google Benchmark decides how far: a slow one covers a shorter prefix, which is why the
 * counters are throughputs). With the cached graph, the 52 sampling benchmarks at scale 22
 * take about 2 minutes on 2 cores; the weighted reference without replacement is the slowest
 * (about 6 s per batch: it keys every neighbor of every hub).
 * Matrix: {without, with replacement} x {uniform, weighted} x {ref} + {fused, unfused} x
 * ID map {ordered, fused, dense} x {1, 2 threads}. Weighted: w_e = 0.05 + float draw e of
 * (seed 1, GEN, step 0, layer 8, id 0), the rule of `gnnref sample --weights random`.
 * Check before timing: the first time a benchmark runs, the optimized sampler's blocks for
 * batch 0 are compared with the reference's (gnn_sample_blocks over gnn_sampler_ref, built once
 * per group), layer by layer: bitwise for ordered ID maps; for the FUSED map after the
 * canonical relabel (gnn_oracle_block_canonical on the top layer, whose dst are the seeds;
 * gnn_oracle_block_canonical_all below, whose dst order is the unordered src order above).
 * A mismatch skips the benchmark with the first difference as its error message, so no
 * number is printed for a sampler that disagrees with the reference. The graph is loaded
 * and the check is run only when a sampling benchmark is selected (--benchmark_filter).
 * Counters:
 *   edges_per_s  sampled edges (all layers) per second of sampling calls (freeing the blocks
 *                and creating the sampler are not counted)
 *   speedup      edges_per_s / edges_per_s of ref in the same {replace, weights} group, in
 *                this run (ref is registered, and runs, first in its group) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "bench/bench.h"
#include "gnnref/dataset.h"
#include "gnnref/idmap.h"
#include "gnnref/oracle.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "gnnref/tensor.h"
#include "core/base/clock.h"

#define SB_LAYERS 3
static const int64_t k_fanouts[SB_LAYERS] = { 15, 10, 5 };
static const int64_t k_batch = 1000;
static const uint64_t k_seed = 1;

typedef struct sample_case {
    char name[160];
    int opt;                      /* 0: ref (gnn_sample_blocks over gnn_sampler_ref) */
    int replace, weighted;
    gnn_sampler_variant variant;
    gnn_idmap_kind idmap;
    int threads;                  /* opt only */
    int checked;                  /* 0: not yet, 1: equal to ref, -1: differs or failed */
    char msg[512];
    double *ref_eps;              /* edges/s of ref in this {replace, weights} group */
} sample_case;

static sample_case *g_cases;
static int g_n;
static double g_ref_eps[4];

/* the fixture, built on first use */
static int g_state;               /* 0: not built, 1: ready, -1: failed */
static char g_err[600];
static gnn_dataset g_ds;
static gnn_csr g_topo;            /* huge-page copy of g_ds.graph that the samplers read */
static int64_t *g_seeds;          /* (n) shuffled vertex ids */
static int64_t g_nb;              /* batches */
static float *g_weights;          /* (nnz), built on first weighted benchmark */
static int g_scale = 22;

/* <build>/bench-cache from /proc/self/exe = <build>/bin/gnnref-bench, or GNN_BENCH_CACHE_DIR. */
static void cache_dir(char *dir, size_t cap)
{
    const char *env = getenv("GNN_BENCH_CACHE_DIR");
    if (env && *env) {
        snprintf(dir, cap, "%s", env);
        return;
    }
    char exe[2048];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(dir, cap, "build/bench-cache");
        return;
    }
    exe[n] = '\0';
    for (int up = 0; up < 2; up++) { /* strip /gnnref-bench, then /bin */
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
    }
    snprintf(dir, cap, "%s/bench-cache", exe[0] ? exe : ".");
}

/* Load the cached graph, or generate and cache it. */
static int fixture_build(void)
{
    char dir[2100], path[2200];
    cache_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/rmat-s%d-e16.gnn", dir, g_scale);
    gnn_err err = { "" };
    memset(&g_ds, 0, sizeof g_ds);
    const double t0 = gnn_now_s();
    gnn_status st = gnn_dataset_load(&g_ds, path, &err);
    if (st == GNN_OK) {
        fprintf(stderr, "gnnref-bench: sampling graph %s: %lld vertices, %lld edges, loaded from %s (%.1f s)\n",
                g_ds.name, (long long)g_ds.graph.n, (long long)g_ds.graph.nnz, path, gnn_now_s() - t0);
    } else {
        if (st != GNN_ERR_IO)
            fprintf(stderr, "gnnref-bench: ignoring the cached graph: %s\n", err.msg);
        fprintf(stderr, "gnnref-bench: generating R-MAT scale %d, edge factor 16 (once; cached in %s) ...\n", g_scale,
                path);
        gnn_rmat_params p;
        gnn_rmat_defaults(&p);
        p.scale = g_scale;
        p.edge_factor = 16;
        if ((st = gnn_gen_rmat(&g_ds, &p, &err))) {
            snprintf(g_err, sizeof g_err, "generating R-MAT scale %d failed: %s", g_scale, err.msg);
            return -1;
        }
        const double t1 = gnn_now_s();
        if (mkdir(dir, 0777) && errno != EEXIST)
            fprintf(stderr, "gnnref-bench: cannot create %s (%s): the graph is not cached\n", dir, strerror(errno));
        else if ((st = gnn_dataset_save(&g_ds, path, &err)))
            fprintf(stderr, "gnnref-bench: cannot cache the graph: %s\n", err.msg);
        fprintf(stderr, "gnnref-bench: sampling graph %s: %lld vertices, %lld edges, generated in %.1f s, saved in %.1f s\n",
                g_ds.name, (long long)g_ds.graph.n, (long long)g_ds.graph.nnz, t1 - t0, gnn_now_s() - t1);
    }
    if ((st = gnn_csr_copy(&g_topo, &g_ds.graph, GNN_CSR_HUGEPAGES))) {
        snprintf(g_err, sizeof g_err, "copying the topology failed: %s", gnn_status_str(st));
        return -1;
    }
    const int64_t n = g_ds.graph.n;
    g_seeds = gnn_malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (!g_seeds) {
        snprintf(g_err, sizeof g_err, "out of memory");
        return -1;
    }
    for (int64_t v = 0; v < n; v++)
        g_seeds[v] = v;
    const gnn_rng_stream s = gnn_rng_stream_make(k_seed, GNN_TAG_SHUFFLE, 0, 0, 0);
    gnn_rng_shuffle_i64(&s, g_seeds, n);
    g_nb = (n + k_batch - 1) / k_batch;
    return 0;
}

static int fixture_ready(void)
{
    if (g_state == 0)
        g_state = fixture_build() == 0 ? 1 : -1;
    return g_state == 1;
}

static int weights_ready(void)
{
    if (g_weights)
        return 1;
    const int64_t nnz = g_ds.graph.nnz;
    if ((uint64_t)nnz >= (1ull << 34))
        return 0;
    g_weights = gnn_malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(float));
    if (!g_weights)
        return 0;
    if (gnn_sample_random_weights(g_weights, nnz, k_seed)) /* as gnnref sample --weights random */
        return 0;
    return 1;
}

static void batch_of(int64_t b, const int64_t **seeds, int64_t *n)
{
    *seeds = g_seeds + b * k_batch;
    *n = (b + 1) * k_batch <= g_ds.graph.n ? k_batch : g_ds.graph.n - b * k_batch;
}

static gnn_sample_params params_of(const sample_case *c, int64_t b)
{
    gnn_sample_params p;
    memset(&p, 0, sizeof p);
    p.replace = c->replace;
    p.seed = k_seed;
    p.step = (uint32_t)b;
    p.weights = c->weighted ? g_weights : NULL;
    return p;
}

/* First difference between two blocks (sizes, then arrays), or 0 when equal. */
static int block_diff(const gnn_block *a, const gnn_block *b, char *msg, size_t cap)
{
    if (a->n_dst != b->n_dst || a->n_src != b->n_src || a->nnz != b->nnz) {
        snprintf(msg, cap, "sizes differ: ref n_dst=%lld n_src=%lld nnz=%lld, opt n_dst=%lld n_src=%lld nnz=%lld",
                 (long long)a->n_dst, (long long)a->n_src, (long long)a->nnz, (long long)b->n_dst,
                 (long long)b->n_src, (long long)b->nnz);
        return 1;
    }
    for (int64_t i = 0; i <= a->n_dst; i++)
        if (a->indptr[i] != b->indptr[i]) {
            snprintf(msg, cap, "indptr[%lld]: ref %lld opt %lld", (long long)i, (long long)a->indptr[i],
                     (long long)b->indptr[i]);
            return 1;
        }
    for (int64_t i = 0; i < a->n_src; i++)
        if (a->src_gid[i] != b->src_gid[i]) {
            snprintf(msg, cap, "src_gid[%lld]: ref %lld opt %lld", (long long)i, (long long)a->src_gid[i],
                     (long long)b->src_gid[i]);
            return 1;
        }
    for (int64_t e = 0; e < a->nnz; e++)
        if (a->indices[e] != b->indices[e]) {
            snprintf(msg, cap, "indices[%lld]: ref %d opt %d", (long long)e, a->indices[e], b->indices[e]);
            return 1;
        }
    return 0;
}

/* The reference blocks of batch 0, one chain per {replace, weights} group, built once. */
static gnn_block g_ref_blocks[4][SB_LAYERS];
static int g_ref_state[4]; /* 0: not built, 1: built, -1: failed */

static int ref_chain(const sample_case *c, int grp, char *msg, size_t cap)
{
    if (g_ref_state[grp] == 0) {
        const int64_t *seeds;
        int64_t n;
        batch_of(0, &seeds, &n);
        const gnn_sample_params base = params_of(c, 0);
        gnn_status st = gnn_sample_blocks(&gnn_sampler_ref, &g_topo, seeds, n, k_fanouts, SB_LAYERS, &base,
                                          g_ref_blocks[grp]);
        g_ref_state[grp] = st ? -1 : 1;
        if (st)
            snprintf(msg, cap, "the reference sampler failed on batch 0: %s", gnn_status_str(st));
    } else if (g_ref_state[grp] < 0) {
        snprintf(msg, cap, "the reference sampler failed on batch 0");
    }
    return g_ref_state[grp] == 1;
}

/* Batch 0 through the optimized sampler vs the reference chain, layer by layer: bitwise for
 * ordered ID maps; for FUSED, the top layer after gnn_oracle_block_canonical (its dst are the
 * seeds, in order) and the lower layers after gnn_oracle_block_canonical_all (their dst are
 * the unordered src of the layer above, so the dst are relabelled too). Returns 1 when equal. */
static int check_case(sample_case *c, int grp)
{
    gnn_block opt[SB_LAYERS], ca, cb;
    memset(opt, 0, sizeof opt);
    memset(&ca, 0, sizeof ca);
    memset(&cb, 0, sizeof cb);
    if (!ref_chain(c, grp, c->msg, sizeof c->msg))
        return 0;
    const int canonical = !gnn_idmap_kind_ordered(c->idmap);
    const int64_t *seeds;
    int64_t n;
    batch_of(0, &seeds, &n);
    const gnn_sample_params base = params_of(c, 0);
    int ok = 0;
    gnn_sampler *s = NULL;
    gnn_status st = gnn_sampler_create(&s, &gnn_sampler_cpu, &g_topo,
                                       &(gnn_sampler_options){ .variant = c->variant, .idmap = (int)c->idmap });
    if (st) {
        snprintf(c->msg, sizeof c->msg, "gnn_sampler_create: %s", gnn_status_str(st));
        goto done;
    }
    const int prev = gnn_oracle_set_threads(c->threads);
    st = gnn_sampler_blocks(s, seeds, n, k_fanouts, SB_LAYERS, &base, opt);
    gnn_oracle_set_threads(prev);
    if (st) {
        snprintf(c->msg, sizeof c->msg, "gnn_sampler_blocks: %s", gnn_status_str(st));
        goto done;
    }
    for (int l = SB_LAYERS - 1; l >= 0; l--) {
        const gnn_block *a = &g_ref_blocks[grp][l], *b = &opt[l];
        if (canonical) {
            gnn_status (*relabel)(const gnn_block *, gnn_block *) =
                l == SB_LAYERS - 1 ? gnn_oracle_block_canonical : gnn_oracle_block_canonical_all;
            if (relabel(a, &ca) || relabel(b, &cb)) {
                snprintf(c->msg, sizeof c->msg, "layer %d: canonical relabel failed (out of memory)", l);
                goto done;
            }
            a = &ca;
            b = &cb;
        }
        char d[400];
        if (block_diff(a, b, d, sizeof d)) {
            snprintf(c->msg, sizeof c->msg, "batch 0 layer %d differs from ref (%s): %s", l,
                     canonical ? "canonical" : "bitwise", d);
            goto done;
        }
        gnn_block_free(&ca);
        gnn_block_free(&cb);
    }
    ok = 1;
done:
    for (int l = 0; l < SB_LAYERS; l++)
        gnn_block_free(&opt[l]);
    gnn_block_free(&ca);
    gnn_block_free(&cb);
    if (s)
        gnn_sampler_destroy(s);
    return ok;
}

static void skip(void *st, const char *msg)
{
    gnn_bench_error(st, msg);
    while (gnn_bench_keep_running(st)) {
    }
}

static void sample_bench(void *st, void *arg)
{
    sample_case *c = arg;
    if (!fixture_ready()) {
        skip(st, g_err);
        return;
    }
    if (c->weighted && !weights_ready()) {
        skip(st, "cannot build the edge weights (out of memory or more than 2^34 edges)");
        return;
    }
    if (c->opt && c->checked == 0) {
        c->checked = check_case(c, c->replace * 2 + c->weighted) ? 1 : -1;
        if (c->checked < 0)
            fprintf(stderr, "gnnref-bench: not benchmarking %s: %s\n", c->name, c->msg);
    }
    if (c->checked < 0) {
        skip(st, c->msg);
        return;
    }
    gnn_sampler *s = NULL;
    gnn_status rc = GNN_OK;
    if (c->opt && (rc = gnn_sampler_create(&s, &gnn_sampler_cpu, &g_topo,
                                                  &(gnn_sampler_options){ .variant = c->variant, .idmap = (int)c->idmap }))) {
        skip(st, gnn_status_str(rc));
        return;
    }
    const int prev = c->opt ? gnn_oracle_set_threads(c->threads) : 0;
    gnn_block blk[SB_LAYERS];
    memset(blk, 0, sizeof blk);
    double seconds = 0.0;
    int64_t edges = 0, b = 0;
    while (gnn_bench_keep_running(st)) {
        const int64_t *seeds;
        int64_t n;
        batch_of(b, &seeds, &n);
        const gnn_sample_params p = params_of(c, b);
        const double t0 = gnn_now_s();
        gnn_status r = c->opt ? gnn_sampler_blocks(s, seeds, n, k_fanouts, SB_LAYERS, &p, blk)
                              : gnn_sample_blocks(&gnn_sampler_ref, &g_topo, seeds, n, k_fanouts, SB_LAYERS, &p, blk);
        seconds += gnn_now_s() - t0;
        if (r)
            rc = r;
        for (int l = 0; l < SB_LAYERS; l++) {
            edges += blk[l].nnz;
            gnn_block_free(&blk[l]);
        }
        b = (b + 1) % g_nb;
    }
    if (c->opt) {
        gnn_oracle_set_threads(prev);
        gnn_sampler_destroy(s);
    }
    if (rc) {
        gnn_bench_error(st, gnn_status_str(rc));
        return;
    }
    if (seconds <= 0)
        return;
    const double eps = (double)edges / seconds;
    gnn_bench_set_counter(st, "edges_per_s", eps);
    if (!c->opt)
        *c->ref_eps = eps;
    else if (*c->ref_eps > 0)
        gnn_bench_set_counter(st, "speedup", eps / *c->ref_eps);
    if (c->opt)
        gnn_bench_set_label(st, gnn_idmap_kind_ordered(c->idmap) ? "checked bitwise vs ref"
                                                                 : "checked canonically vs ref");
}

void gnn_bench_register_sample(void)
{
    const char *env = getenv("GNN_BENCH_RMAT_SCALE");
    if (env && *env) {
        char *end;
        long v = strtol(env, &end, 10);
        if (*end || v < 1 || v > 30) {
            fprintf(stderr, "gnnref-bench: GNN_BENCH_RMAT_SCALE='%s' is not an integer in 1..30; "
                            "no sampling benchmarks\n", env);
            return;
        }
        g_scale = (int)v;
    }
#ifdef GNN_HAVE_OPENMP
    static const int threads[] = { 1, 2 };
    const int n_threads = 2;
#else
    static const int threads[] = { 1 };
    const int n_threads = 1;
#endif
    static const gnn_idmap_kind maps[] = { GNN_IDMAP_ORDERED, GNN_IDMAP_FUSED, GNN_IDMAP_DENSE };
    const int per_group = 1 + 2 * 3 * n_threads;
    g_cases = calloc((size_t)(4 * per_group), sizeof *g_cases);
    if (!g_cases)
        return;
    for (int replace = 0; replace < 2; replace++)
        for (int weighted = 0; weighted < 2; weighted++) {
            const int grp = replace * 2 + weighted;
            char prefix[64];
            snprintf(prefix, sizeof prefix, "sample/rmat-s%d/%s/%s", g_scale, weighted ? "weighted" : "uniform",
                     replace ? "replace" : "noreplace");
            sample_case *c = &g_cases[g_n++];
            c->replace = replace;
            c->weighted = weighted;
            c->ref_eps = &g_ref_eps[grp];
            snprintf(c->name, sizeof c->name, "%s/ref", prefix);
            for (int v = 0; v < 2; v++)
                for (int m = 0; m < 3; m++)
                    for (int t = 0; t < n_threads; t++) {
                        c = &g_cases[g_n++];
                        c->opt = 1;
                        c->replace = replace;
                        c->weighted = weighted;
                        c->variant = v ? GNN_SAMPLER_UNFUSED : GNN_SAMPLER_FUSED;
                        c->idmap = maps[m];
                        c->threads = threads[t];
                        c->ref_eps = &g_ref_eps[grp];
                        snprintf(c->name, sizeof c->name, "%s/%s/%s/threads=%d", prefix,
                                 gnn_sampler_variant_name(c->variant), gnn_idmap_kind_name(c->idmap), c->threads);
                    }
        }
    for (int i = 0; i < g_n; i++)
        gnn_bench_register(g_cases[i].name, sample_bench, &g_cases[i]);
    fprintf(stderr, "gnnref-bench: %d sampling benchmarks on R-MAT scale %d (graph loaded and each optimized "
                    "sampler checked against ref on first use)\n", g_n, g_scale);
}

void gnn_bench_cleanup_sample(void)
{
    if (g_state != 0) {
        gnn_csr_free(&g_topo);
        gnn_dataset_free(&g_ds);
    }
    for (int grp = 0; grp < 4; grp++) {
        for (int l = 0; l < SB_LAYERS; l++)
            gnn_block_free(&g_ref_blocks[grp][l]);
        g_ref_state[grp] = 0;
    }
    gnn_free(g_seeds);
    gnn_free(g_weights);
    free(g_cases);
    g_seeds = NULL;
    g_weights = NULL;
    g_cases = NULL;
    g_n = 0;
    g_state = 0;
}
