/* cli/cmd_sample.c -- `gnnref sample`: time multi-layer neighbor sampling (mini-batch blocks).
 *
 * Seeds: the dataset's train vertices when it has a split, otherwise all vertices, in an
 * order shuffled by the keyed generator (tag SHUFFLE, step = epoch, id 0; DESIGN.md section 2)
 * and cut into batches; global batch t (step t) of epoch t / nb is batch t % nb of that
 * epoch's order, nb = ceil(seeds / batch). The sampler is the --impl context's: ref's is the
 * serial specification, opt's (opt/cpu/sample.c) takes the chosen variant and ID map. Both
 * draw the same samples (the determinism contract); only the src order differs for the
 * unordered FUSED ID map.
 * Only the sampling calls are timed: not loading, seed shuffling, weight generation, sampler
 * creation (reported apart as setup_seconds) or freeing the blocks. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/flags.h"
#include "gnnref/dataset.h"
#include "gnnref/idmap.h"
#include "gnnref/impl.h"
#include "gnnref/reorder.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "gnnref/team.h"
#include "gnnref/tensor.h"

#define SAMPLE_MAX_LAYERS 16

enum { TAG_OPT = CLI_TAG(0), TAG_MATCH = CLI_TAG(1) }; /* flags of the optimized sampler only; of --match only */

typedef struct sample_opts {
    const char *data, *json;
    int64_t fanouts[SAMPLE_MAX_LAYERS];
    int layers;               /* fanouts given */
    int64_t batch, batches;   /* batches: 0 = one epoch, resolved before the report */
    const gnn_impl *impl;
    int variant;              /* gnn_sampler_variant */
    int idmap;                /* gnn_idmap_kind */
    int64_t threads;
    int replace, weighted, topo_mmap;
    int adapt_threads;        /* gnn_team: fewer threads for a batch when measured faster */
    int match;                /* FastGL Match-Reorder: count the rows each batch loads (reorder.h) */
    int64_t reorder_window;   /* batches per reorder window; 0 = one epoch */
    int match_norm;           /* gnn_match_norm of the reported match degrees */
    uint64_t seed;
} sample_opts;

static const cli_choice k_variants[] = {
    { "fused", GNN_SAMPLER_FUSED, 0 }, { "unfused", GNN_SAMPLER_UNFUSED, 0 }, { NULL, 0, 0 }
};
static const cli_choice k_idmaps[] = {
    { "ordered", GNN_IDMAP_ORDERED, 0 }, { "fused", GNN_IDMAP_FUSED, 0 }, { "dense", GNN_IDMAP_DENSE, 0 },
    { "ref", GNN_IDMAP_REF, 0 }, { NULL, 0, 0 }
};
static const cli_choice k_weights[] = { { "none", 0, 0 }, { "random", 1, 0 }, { NULL, 0, 0 } };
static const cli_choice k_topologies[] = { { "memory", 0, 0 }, { "mmap", 1, 0 }, { NULL, 0, 0 } };
static const cli_choice k_on_off[] = { { "on", 1, 0 }, { "off", 0, 0 }, { NULL, 0, 0 } };
static const cli_choice k_norms[] = {
    { "min", GNN_MATCH_MIN, 0 }, { "later", GNN_MATCH_LATER, 0 }, { "count", GNN_MATCH_COUNT, 0 }, { NULL, 0, 0 }
};

static const cli_flag k_flags[] = {
    CLI_FLAG_DATA(sample_opts, data, 0, CLI_DATA_HELP),
    { .name = "fanouts", .type = CLI_INTS, CLI_AT(sample_opts, fanouts), .meta = "K1,K2,...", .lo = -1,
      .hi = INT32_MAX, .max = SAMPLE_MAX_LAYERS, .count_off = offsetof(sample_opts, layers), .note = "-1 = all",
      .help = "neighbors per layer, input layer first" },
    { .name = "batch", .type = CLI_INT, CLI_AT(sample_opts, batch), .meta = "B", .lo = 1, .hi = INT32_MAX,
      .help = "seeds per mini-batch" },
    { .name = "batches", .type = CLI_INT, CLI_AT(sample_opts, batches), .meta = "M", .lo = 0, .hi = INT32_MAX,
      .note = "0 = one epoch, every seed once", .help = "mini-batches to sample" },
    CLI_FLAG_IMPL(sample_opts, impl, "the implementation context's sampler: ref, the serial specification, "
                                     "opt, the optimized sampler, or the CUDA sampler (uniform only): cuda on a GPU, "
                                     "cuda-emu its kernels emulated on the CPU (docs/cuda_sampling.md)"),
    { .name = "variant", .type = CLI_CHOICE, CLI_AT(sample_opts, variant), .choices = k_variants, .bits = TAG_OPT,
      .help = "opt only: sample and map in one pass, or sample/unique/relabel as separate passes" },
    { .name = "idmap", .type = CLI_CHOICE, CLI_AT(sample_opts, idmap), .choices = k_idmaps, .bits = TAG_OPT,
      .help = "opt only: the ID map (docs/idmap.md); fused (FastGL's Fused-Map) numbers new src vertices in "
              "arrival order, the others reproduce the reference order exactly" },
    CLI_FLAG_THREADS(sample_opts, threads, "OpenMP threads for --impl opt (ref is serial)"),
    { .name = "adapt-threads", .type = CLI_CHOICE, CLI_AT(sample_opts, adapt_threads), .choices = k_on_off,
      .bits = TAG_OPT, .help = "opt only: sample a batch on fewer threads when that is measured to be faster, as "
                               "when another process holds a core (a few batches try another team size; the "
                               "blocks are the same bits; the report's team_mean says what ran; docs/openmp.md)" },
    { .name = "replace", .type = CLI_BOOL, CLI_AT(sample_opts, replace), .help = "sample with replacement" },
    { .name = "weights", .type = CLI_CHOICE, CLI_AT(sample_opts, weighted), .choices = k_weights,
      .help = "per-edge weights: none (uniform) or random, w_e = 0.05 + float draw e of (seed, GEN, step 0, "
              "layer 8, id 0)" },
    CLI_FLAG_SEED(sample_opts, seed, "seed of the shuffle, the samples and the weights"),
    { .name = "topology", .type = CLI_CHOICE, CLI_AT(sample_opts, topo_mmap), .choices = k_topologies,
      .help = "sample from a copy of the graph in anonymous memory with transparent huge pages requested, or "
              "from the file mapping as loaded (4 KiB pages: more TLB misses)" },
    { .name = "match", .type = CLI_BOOL, CLI_AT(sample_opts, match),
      .help = "FastGL Match-Reorder (docs/reorder.md): report the input rows the batches load in full, with Match (each batch reuses its predecessor's rows and loads only the new ones) and with the greedy reorder under each normalization, and the window's match degrees" },
    { .name = "reorder-window", .type = CLI_INT, CLI_AT(sample_opts, reorder_window), .meta = "N", .lo = 0,
      .hi = INT32_MAX, .note = "0 = one epoch", .bits = TAG_MATCH,
      .help = "--match: batches reordered together (FastGL's n; the last window may be shorter)" },
    { .name = "match-norm", .type = CLI_CHOICE, CLI_AT(sample_opts, match_norm), .choices = k_norms, .bits = TAG_MATCH,
      .help = "--match: the match degree reported: min (the paper's N_o / min(N_i, N_j)), later (the public code's N_o / N_later) or count (N_o)" },
    CLI_FLAG_JSON(sample_opts, json, CLI_JSON_HELP),
    CLI_END
};

static const cli_group k_groups[] = { { k_flags, 0, NULL }, { NULL, 0, NULL } };

static const cli_command k_cmd = {
    .name = "sample",
    .usage = "[flags]",
    .preface = "Time multi-layer neighbor sampling (mini-batch blocks) and report sampled edges per second.\n",
    .epilogue = "Seeds: the train vertices when the dataset has a split, else all vertices, shuffled\n"
                "with (seed, SHUFFLE, step = epoch); batch t samples with step t.\n"
                "Only the sampling is timed. Per-layer dst/src/edges are TOTALS over all batches\n"
                "(the lines also show the per-batch mean); layer 0 is the input layer.\n",
    .groups = k_groups,
};

typedef struct layer_tot {
    int64_t dst, src, edges;
} layer_tot;

/* What a run holds and measures. */
typedef struct sample_run {
    gnn_dataset ds;
    gnn_csr topo;          /* --topology memory: the copy sampled */
    const gnn_csr *g;      /* the graph sampled */
    int64_t *seeds, n_seeds;
    float *weights;
    gnn_sampler *sampler;
    gnn_block blk[SAMPLE_MAX_LAYERS];
    layer_tot tot[SAMPLE_MAX_LAYERS];
    double setup_s, seconds;
    int64_t edges_sampled;
    double team_mean;      /* mean OpenMP team size of the batches (team.h) */
    /* --match: every batch's input set (layer 0's src_gid), and what the rows come to */
    int64_t **sets, *set_len;
    int64_t rows_full, rows_match, rows_reorder[3]; /* rows_reorder by gnn_match_norm */
    int64_t window;        /* the reorder window in effect */
    double degree_avg, degree_min, degree_max; /* off-diagonal match degrees of the windows (--match-norm) */
} sample_run;

/* The reference sampler is serial: the variant, the ID map and the threads are opt's. */
static int is_ref(const sample_opts *o) { return o->impl == gnn_impl_ref(); }

static int sample_options(int argc, char **argv, sample_opts *o, cli_args *a)
{
    memset(o, 0, sizeof *o);
    o->data = "builtin";
    static const int64_t fanouts[] = { 15, 10, 5 };
    memcpy(o->fanouts, fanouts, sizeof fanouts);
    o->layers = 3;
    o->batch = 1000;
    o->batches = 10;
    o->adapt_threads = 1;
    o->impl = gnn_impl_opt();
    o->variant = GNN_SAMPLER_FUSED;
    o->idmap = GNN_IDMAP_ORDERED;
    o->seed = 1;
    int rc = cli_parse(&k_cmd, argc, argv, o, a);
    if (rc != CLI_CONTINUE)
        return rc;
    const char *mflag = cli_given_tag(a, TAG_MATCH);
    if (mflag && !o->match)
        return cli_error(CLI_USAGE, "%s applies to --match", mflag);
    if (o->weighted && (o->impl->sampler == &gnn_sampler_cuda || o->impl->sampler == &gnn_sampler_cuda_emu))
        return cli_error(CLI_USAGE, "--weights random: the %s sampler is uniform only (docs/cuda_sampling.md); "
                         "use --impl opt or ref", o->impl->name);
    return cli_report_check(o->json) ? CLI_USAGE : CLI_CONTINUE;
}

/* Seed vertices in id order: the train vertices if there is a split, else all. Returns the count. */
static int64_t fill_seeds(const gnn_dataset *ds, int64_t *v)
{
    int64_t k = 0;
    for (int64_t i = 0; i < ds->graph.n; i++)
        if (!ds->split || ds->split[i] == GNN_SPLIT_TRAIN)
            v[k++] = i;
    return k;
}

/* Everything before the timed loop: the dataset, the seeds, the weights, the topology copy
 * and the sampler (its creation timed apart, as setup). */
static int sample_setup(sample_opts *o, sample_run *R)
{
    gnn_err err = { "" };
    gnn_status st = gnn_dataset_open(&R->ds, o->data, &err);
    if (st)
        return cli_error(cli_status_code(st), "%s", cli_errmsg(&err, st));
    const gnn_dataset *ds = &R->ds;
    R->seeds = gnn_malloc((size_t)(ds->graph.n > 0 ? ds->graph.n : 1) * sizeof(int64_t));
    if (!R->seeds)
        return cli_error(CLI_FAIL, "out of memory");
    if ((R->n_seeds = fill_seeds(ds, R->seeds)) == 0)
        return cli_error(CLI_USAGE, "%s: no seed vertices (%s)", o->data,
                         ds->split ? "the split has no train vertices" : "the graph is empty");
    if (o->batches == 0) /* one epoch */
        o->batches = (R->n_seeds + o->batch - 1) / o->batch;
    if (o->match && (!(R->sets = gnn_calloc((size_t)o->batches, sizeof(int64_t *))) ||
                     !(R->set_len = gnn_calloc((size_t)o->batches, sizeof(int64_t)))))
        return cli_error(CLI_FAIL, "out of memory (--match: %lld input sets)", (long long)o->batches);
    if (o->weighted) {
        if ((uint64_t)ds->graph.nnz >= (1ull << 34)) /* float draw e: block e / 4 is 32 bits */
            return cli_error(CLI_USAGE, "--weights random: at most 2^34 edges (the graph has %lld)",
                             (long long)ds->graph.nnz);
        R->weights = gnn_malloc((size_t)(ds->graph.nnz > 0 ? ds->graph.nnz : 1) * sizeof(float));
        if (!R->weights)
            return cli_error(CLI_FAIL, "out of memory (%lld edge weights)", (long long)ds->graph.nnz);
        gnn_sample_random_weights(R->weights, ds->graph.nnz, o->seed); /* nnz < 2^34 checked above */
    }
    R->g = &ds->graph;
    if (!o->topo_mmap) { /* both implementations sample the same copy: a fair comparison */
        if ((st = gnn_csr_copy(&R->topo, &ds->graph, GNN_CSR_HUGEPAGES)))
            return cli_error(CLI_FAIL, "cannot copy the graph into memory: %s (try --topology mmap)",
                             gnn_status_str(st));
        R->g = &R->topo;
    }
    const double t0 = gnn_now_s();
    st = gnn_sampler_create(&R->sampler, o->impl->sampler, R->g,
                            &(gnn_sampler_options){ .variant = (gnn_sampler_variant)o->variant, .idmap = o->idmap });
    R->setup_s = gnn_now_s() - t0;
    if (st)
        return cli_error(cli_status_code(st), "cannot create the %s sampler: %s", o->impl->sampler->name,
                         gnn_status_str(st));
    return CLI_OK;
}

/* The timed loop: o->batches batches, a new shuffle at each epoch's start. */
static int sample_loop(const sample_opts *o, sample_run *R)
{
    const int64_t nb = (R->n_seeds + o->batch - 1) / o->batch; /* batches per epoch */
    gnn_sample_params base;
    memset(&base, 0, sizeof base);
    base.replace = o->replace;
    base.seed = o->seed;
    base.weights = R->weights;
    const int tty = cli_is_tty() && o->batches > 1;
    gnn_team team; /* the team size may change between batches: the blocks do not (team.h) */
    gnn_team_init(&team, 0, o->adapt_threads && !is_ref(o));
    gnn_team_expect(&team, o->batches);
    for (int64_t t = 0; t < o->batches; t++) {
        const int64_t pos = t % nb;
        if (pos == 0) { /* a new epoch: shuffle the seed list from its sorted order again */
            fill_seeds(&R->ds, R->seeds);
            const gnn_rng_stream s = gnn_rng_stream_make(o->seed, GNN_TAG_SHUFFLE, (uint32_t)(t / nb), 0, 0);
            gnn_rng_shuffle_i64(&s, R->seeds, R->n_seeds);
        }
        const int64_t *bs = R->seeds + pos * o->batch;
        const int64_t bn = pos * o->batch + o->batch <= R->n_seeds ? o->batch : R->n_seeds - pos * o->batch;
        base.step = (uint32_t)t;
        gnn_team_begin(&team);
        const double t0 = gnn_now_s();
        const gnn_status st = gnn_sampler_blocks(R->sampler, bs, bn, o->fanouts, o->layers, &base, R->blk);
        const double dt = gnn_now_s() - t0;
        R->seconds += dt;
        if (st) {
            gnn_team_restore(&team);
            return cli_error(cli_status_code(st), "sampling batch %lld failed: %s", (long long)t, gnn_status_str(st));
        }
        int64_t edges = 0;
        for (int l = 0; l < o->layers; l++)
            edges += R->blk[l].nnz;
        gnn_team_end(&team, dt, (double)edges);
        if (o->match) { /* the input set S_t: layer 0's sources (outside the timed call) */
            const int64_t m = R->blk[0].n_src;
            if (!(R->sets[t] = gnn_malloc_array((size_t)m + 1, sizeof(int64_t)))) {
                gnn_team_restore(&team);
                return cli_error(CLI_FAIL, "out of memory (--match: the input set of batch %lld)", (long long)t);
            }
            memcpy(R->sets[t], R->blk[0].src_gid, (size_t)m * sizeof(int64_t));
            R->set_len[t] = m;
        }
        for (int l = 0; l < o->layers; l++) {
            R->tot[l].dst += R->blk[l].n_dst;
            R->tot[l].src += R->blk[l].n_src;
            R->tot[l].edges += R->blk[l].nnz;
            R->edges_sampled += R->blk[l].nnz;
            gnn_block_free(&R->blk[l]);
        }
        if (tty) { /* progress on a terminal (outside the timed calls) */
            printf("\rbatch %lld/%lld  %.1f M edges/s", (long long)(t + 1), (long long)o->batches,
                   R->seconds > 0 ? (double)R->edges_sampled / R->seconds * 1e-6 : 0.0);
            fflush(stdout);
        }
    }
    if (tty)
        printf("\r\033[K");
    R->team_mean = gnn_team_mean(&team);
    gnn_team_restore(&team);
    return CLI_OK;
}

/* The match degrees of every window's pairs i < j under --match-norm: mean, min, max (floats
 * for the report only; the reorder itself compares exact fractions). */
static gnn_status match_degrees(const sample_opts *o, sample_run *R)
{
    const gnn_reorder_ops *ops = o->impl->reorder;
    const int64_t n = o->batches, W = R->window;
    int64_t *ov = gnn_malloc_array((size_t)(W * W) + 1, sizeof(int64_t));
    if (!ov)
        return GNN_ERR_NOMEM;
    double sum = 0.0;
    int64_t pairs = 0;
    gnn_status st = GNN_OK;
    for (int64_t w0 = 0; w0 < n && !st; w0 += W) {
        const int64_t m = n - w0 < W ? n - w0 : W;
        if ((st = gnn_match_degree(ops, (const int64_t *const *)R->sets + w0, R->set_len + w0, m, ov)))
            break;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = i + 1; j < m; j++) {
                int64_t num, den;
                gnn_match_degree_frac(ov, m, i, j, (gnn_match_norm)o->match_norm, &num, &den);
                const double x = (double)num / (double)den;
                R->degree_min = pairs == 0 || x < R->degree_min ? x : R->degree_min;
                R->degree_max = pairs == 0 || x > R->degree_max ? x : R->degree_max;
                sum += x;
                pairs++;
            }
    }
    R->degree_avg = pairs ? sum / (double)pairs : 0.0;
    gnn_free(ov);
    return st;
}

/* --match: rows loaded in full, with Match in the sampled order, and with Match after the
 * greedy reorder under each normalization (the --impl context's reorder table). */
static int match_figures(const sample_opts *o, sample_run *R)
{
    const gnn_reorder_ops *ops = o->impl->reorder;
    const int64_t n = o->batches, nb = (R->n_seeds + o->batch - 1) / o->batch;
    const int64_t *const *sets = (const int64_t *const *)R->sets;
    R->window = o->reorder_window == 0 ? nb : o->reorder_window; /* 0: one epoch */
    R->window = R->window < n ? R->window : n;
    int64_t *order = gnn_malloc_array((size_t)n + 1, sizeof(int64_t));
    if (!order)
        return cli_error(CLI_FAIL, "out of memory (--match)");
    gnn_status st = gnn_match_rows_loaded(ops, sets, R->set_len, n, NULL, 0, &R->rows_full);
    if (!st)
        st = gnn_match_rows_loaded(ops, sets, R->set_len, n, NULL, 1, &R->rows_match);
    for (int k = 0; k < 3 && !st; k++)
        if (!(st = gnn_reorder_windows(ops, sets, R->set_len, n, R->window, (gnn_match_norm)k, order)))
            st = gnn_match_rows_loaded(ops, sets, R->set_len, n, order, 1, &R->rows_reorder[k]);
    if (!st)
        st = match_degrees(o, R);
    gnn_free(order);
    if (st)
        return cli_error(cli_status_code(st), "--match: %s", gnn_status_str(st));
    if (R->rows_match > R->rows_full) /* S_k \ S_{k-1} is a subset of S_k: a bug if this fails */
        return cli_error(CLI_FAIL, "--match loaded %lld rows, more than the %lld of full loading",
                         (long long)R->rows_match, (long long)R->rows_full);
    return CLI_OK;
}

static void print_match(const sample_opts *o, const sample_run *R)
{
    const double full = R->rows_full > 0 ? (double)R->rows_full : 1.0;
    printf("match: rows loaded: full %lld, match %lld (%.1f%%)", (long long)R->rows_full, (long long)R->rows_match,
           100.0 * (double)R->rows_match / full);
    for (int k = 0; k < 3; k++)
        printf(", reorder-%s %lld (%.1f%%)", gnn_match_norm_name((gnn_match_norm)k), (long long)R->rows_reorder[k],
               100.0 * (double)R->rows_reorder[k] / full);
    printf("; window %lld\n  match degree (%s): avg %.4f, range %.4f (min %.4f, max %.4f)\n", (long long)R->window,
           gnn_match_norm_name((gnn_match_norm)o->match_norm), R->degree_avg, R->degree_max - R->degree_min,
           R->degree_min, R->degree_max);
}

static void match_report(const sample_opts *o, const sample_run *R, json_object *r)
{
    json_object *rl = json_object_new_object();
    json_object_object_add(rl, "full", json_object_new_int64(R->rows_full));
    json_object_object_add(rl, "match", json_object_new_int64(R->rows_match));
    for (int k = 0; k < 3; k++) {
        char key[32];
        snprintf(key, sizeof key, "reorder_%s", gnn_match_norm_name((gnn_match_norm)k));
        json_object_object_add(rl, key, json_object_new_int64(R->rows_reorder[k]));
    }
    json_object_object_add(r, "rows_loaded", rl);
    json_object_object_add(r, "reorder_window", json_object_new_int64(R->window));
    json_object_object_add(r, "match_norm", json_object_new_string(gnn_match_norm_name((gnn_match_norm)o->match_norm)));
    json_object_object_add(r, "match_degree_avg", json_object_new_double(R->degree_avg));
    json_object_object_add(r, "match_degree_range", json_object_new_double(R->degree_max - R->degree_min));
}

static void print_header(const sample_opts *o, const cli_args *a, const sample_run *R)
{
    char fo[256];
    size_t len = 0;
    for (int l = 0; l < o->layers && len < sizeof fo; l++)
        len += (size_t)snprintf(fo + len, sizeof fo - len, "%s%lld", l ? "," : "", (long long)o->fanouts[l]);
    printf("gnnref sample: %s  n=%lld edges=%lld  seeds: %lld %s  batch=%lld batches=%lld fanouts=%s "
           "replace=%s weights=%s seed=%llu\n",
           R->ds.name, (long long)R->ds.graph.n, (long long)R->ds.graph.nnz, (long long)R->n_seeds,
           R->ds.split ? "train vertices" : "vertices (no split: all)", (long long)o->batch, (long long)o->batches, fo,
           o->replace ? "yes" : "no", o->weighted ? "random" : "none", (unsigned long long)o->seed);
    if (is_ref(o) && cli_given_tag(a, TAG_OPT))
        printf("note: --variant and --idmap apply to --impl opt only; the reference path ignores them\n");
}

static void print_result(const sample_opts *o, const sample_run *R, int nthreads)
{
    const double eps = R->seconds > 0 ? (double)R->edges_sampled / R->seconds : 0.0;
    if (is_ref(o))
        printf("sample: ref threads=1: ");
    else
        printf("sample: %s %s/%s threads=%d: ", o->impl->name, gnn_sampler_variant_name((gnn_sampler_variant)o->variant),
               gnn_idmap_kind_name((gnn_idmap_kind)o->idmap), nthreads);
    printf("%lld edges in %.3f s = %.1f M edges/s\n", (long long)R->edges_sampled, R->seconds, eps * 1e-6);
    const double nb = (double)o->batches;
    for (int l = 0; l < o->layers; l++)
        printf("  layer %d (fanout %lld): dst %lld  src %lld  edges %lld   totals over %lld batches; "
               "per batch %.1f / %.1f / %.1f\n",
               l, (long long)o->fanouts[l], (long long)R->tot[l].dst, (long long)R->tot[l].src,
               (long long)R->tot[l].edges, (long long)o->batches, (double)R->tot[l].dst / nb,
               (double)R->tot[l].src / nb, (double)R->tot[l].edges / nb);
    if (!is_ref(o) && !gnn_idmap_kind_ordered((gnn_idmap_kind)o->idmap))
        printf("  (the %s ID map numbers new src vertices in arrival order: the same blocks as ref up to a "
               "relabelling)\n",
               gnn_idmap_kind_name((gnn_idmap_kind)o->idmap));
}

static json_object *sample_report(const sample_opts *o, const cli_args *a, const sample_run *R, int nthreads)
{
    const int ref = is_ref(o);
    json_object *cfg;
    json_object *r = cli_report_new("sample", o->seed, nthreads, "self", 1, &cfg);
    cli_config_json(cfg, a, o, (ref ? TAG_OPT : 0) | (o->match ? 0 : TAG_MATCH)); /* null: the flag does not apply to the reference */
    json_object_object_add(cfg, "dataset", json_object_new_string(R->ds.name));
    json_object_object_add(cfg, "threads", json_object_new_int(nthreads)); /* in effect */
    if (ref)
        json_object_object_add(r, "note", json_object_new_string(
            "--variant and --idmap apply to --impl opt only; the reference sampler is serial"));
    const double eps = R->seconds > 0 ? (double)R->edges_sampled / R->seconds : 0.0;
    json_object_object_add(r, "seeds_from", json_object_new_string(R->ds.split ? "train" : "all"));
    json_object_object_add(r, "n_seeds", json_object_new_int64(R->n_seeds));
    json_object_object_add(r, "graph_n", json_object_new_int64(R->ds.graph.n));
    json_object_object_add(r, "graph_edges", json_object_new_int64(R->ds.graph.nnz));
    json_object_object_add(r, "batches", json_object_new_int64(o->batches));
    json_object_object_add(r, "edges_sampled", json_object_new_int64(R->edges_sampled));
    json_object_object_add(r, "seconds", json_object_new_double(R->seconds));
    json_object_object_add(r, "edges_per_s", json_object_new_double(eps));
    json_object_object_add(r, "setup_seconds", json_object_new_double(R->setup_s));
    json_object_object_add(r, "team_mean", json_object_new_double(R->team_mean));
    json_object_object_add(r, "src_order",
                           json_object_new_string(ref || gnn_idmap_kind_ordered((gnn_idmap_kind)o->idmap)
                                                      ? "reference" : "arrival (canonically equal to reference)"));
    json_object_object_add(r, "layers_are", json_object_new_string("totals over all batches"));
    json_object *ls = json_object_new_array();
    for (int l = 0; l < o->layers; l++) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "layer", json_object_new_int(l));
        json_object_object_add(e, "fanout", json_object_new_int64(o->fanouts[l]));
        json_object_object_add(e, "dst", json_object_new_int64(R->tot[l].dst));
        json_object_object_add(e, "src", json_object_new_int64(R->tot[l].src));
        json_object_object_add(e, "edges", json_object_new_int64(R->tot[l].edges));
        json_object_array_add(ls, e);
    }
    json_object_object_add(r, "layers", ls);
    if (o->match)
        match_report(o, R, r);
    return r;
}

int gnn_cmd_sample(int argc, char **argv)
{
    sample_opts o;
    cli_args a;
    int rc = sample_options(argc, argv, &o, &a);
    if (rc != CLI_CONTINUE)
        return rc;
    const int nthreads = is_ref(&o) ? 1 : cli_set_threads(o.threads);
    sample_run R;
    memset(&R, 0, sizeof R);
    rc = sample_setup(&o, &R);
    if (rc == CLI_OK) {
        print_header(&o, &a, &R);
        rc = sample_loop(&o, &R);
    }
    if (rc == CLI_OK && o.match)
        rc = match_figures(&o, &R);
    if (rc == CLI_OK) {
        print_result(&o, &R, nthreads);
        if (o.match)
            print_match(&o, &R);
        if (o.json) {
            json_object *r = sample_report(&o, &a, &R, nthreads);
            rc = cli_report_write(r, o.json);
            json_object_put(r);
        }
    }
    for (int l = 0; l < SAMPLE_MAX_LAYERS; l++)
        gnn_block_free(&R.blk[l]);
    if (R.sampler)
        gnn_sampler_destroy(R.sampler);
    for (int64_t t = 0; R.sets && t < o.batches; t++)
        gnn_free(R.sets[t]);
    gnn_free(R.sets);
    gnn_free(R.set_len);
    gnn_free(R.weights);
    gnn_free(R.seeds);
    gnn_csr_free(&R.topo);
    gnn_dataset_free(&R.ds);
    return rc;
}
