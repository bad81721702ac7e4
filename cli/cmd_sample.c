/* cli/cmd_sample.c -- `gnnref sample`: time multi-layer neighbor sampling (mini-batch blocks).
 *
 * Seeds: the dataset's train vertices when it has a split, otherwise all vertices, in an
 * order shuffled by the keyed generator (tag SHUFFLE, step = epoch, id 0; DESIGN.md section 2)
 * and cut into batches; global batch t (step t) of epoch t / nb is batch t % nb of that
 * epoch's order, nb = ceil(seeds / batch). --impl ref samples with gnn_sample_blocks over
 * gnn_sample_ref (serial, the specification); --impl opt with a reusable gnn_sampler
 * (opt/cpu/sample.c) of the chosen variant and ID map. Both draw the same samples (the
 * determinism contract); only the src order differs for the unordered FUSED ID map.
 * Only the sampling calls are timed: not loading, seed shuffling, weight generation, sampler
 * creation (reported apart as setup_seconds) or freeing the blocks. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/cli.h"
#include "gnnref/dataset.h"
#include "gnnref/idmap.h"
#include "gnnref/impl.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "gnnref/tensor.h"

#define SAMPLE_MAX_LAYERS 16

static void sample_usage(FILE *f)
{
    fprintf(f,
            "usage: gnnref sample [flags]\n"
            "  --data PATH|builtin   dataset: native file, text-layout dir, OGB dir, or builtin (default)\n"
            "  --fanouts K1,K2,...   neighbors per layer, input layer first; -1 = all (default 15,10,5)\n"
            "  --batch B             seeds per mini-batch (default 1000)\n"
            "  --batches M           mini-batches to sample (default 10; 0 = one epoch, every seed once)\n"
            "  --impl ref|opt        ref: the serial reference sampler; opt: the optimized sampler (default)\n"
            "  --variant fused|unfused   opt only: sample and map in one pass, or sample/unique/relabel\n"
            "                        as separate passes (default fused)\n"
            "  --idmap ordered|fused|dense|ref   opt only: the ID map (default ordered; docs/idmap.md).\n"
            "                        fused (FastGL's Fused-Map) numbers new src vertices in arrival order;\n"
            "                        the others reproduce the reference order exactly\n"
            "  --threads N           OpenMP threads for --impl opt (default: all; ref is serial)\n"
            "  --replace             sample with replacement (default: without)\n"
            "  --weights none|random per-edge weights: none (uniform, default) or random:\n"
            "                        w_e = 0.05 + float draw e of (seed, GEN, step 0, layer 8, id 0)\n"
            "  --seed S              seed of the shuffle, the samples and the weights (default 1)\n"
            "  --topology memory|mmap  sample from a copy of the graph in anonymous memory with\n"
            "                        transparent huge pages requested (default), or from the file\n"
            "                        mapping as loaded (4 KiB pages: more TLB misses)\n"
            "  --json FILE           write the report (DESIGN.md section 6 keys)\n"
            "Seeds: the train vertices when the dataset has a split, else all vertices, shuffled\n"
            "with (seed, SHUFFLE, step = epoch); batch t samples with step t.\n"
            "Only the sampling is timed. Per-layer dst/src/edges are TOTALS over all batches\n"
            "(the lines also show the per-batch mean); layer 0 is the input layer.\n");
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
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

typedef struct layer_tot {
    int64_t dst, src, edges;
} layer_tot;

int gnn_cmd_sample(int argc, char **argv)
{
    static const struct option opts[] = {
        { "data", required_argument, 0, 'd' },    { "fanouts", required_argument, 0, 'f' },
        { "batch", required_argument, 0, 'b' },   { "batches", required_argument, 0, 'B' },
        { "impl", required_argument, 0, 'i' },    { "variant", required_argument, 0, 'v' },
        { "idmap", required_argument, 0, 'm' },   { "threads", required_argument, 0, 't' },
        { "replace", no_argument, 0, 'r' },       { "weights", required_argument, 0, 'w' },
        { "seed", required_argument, 0, 's' },    { "json", required_argument, 0, 'j' },
        { "topology", required_argument, 0, 'T' }, { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 }
    };
    const char *data = "builtin", *json = NULL, *fanouts_arg = "15,10,5";
    int64_t fanouts[SAMPLE_MAX_LAYERS];
    int64_t batch = 1000, batches = 10, threads = 0;
    int impl_opt = 1, replace = 0, weighted = 0, variant_set = 0, idmap_set = 0, topo_memory = 1;
    gnn_sampler_variant variant = GNN_SAMPLER_FUSED;
    gnn_idmap_kind idmap = GNN_IDMAP_ORDERED;
    uint64_t seed = 1;
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (ch) {
        case 'd': data = optarg; break;
        case 'f': fanouts_arg = optarg; break;
        case 'b':
            if (cli_parse_i64(optarg, 1, INT32_MAX, &batch))
                return cli_error(CLI_USAGE, "--batch '%s': expected a positive integer", optarg);
            break;
        case 'B':
            if (cli_parse_i64(optarg, 0, INT32_MAX, &batches))
                return cli_error(CLI_USAGE, "--batches '%s': expected an integer >= 0 (0 = one epoch)", optarg);
            break;
        case 'i':
            if (!strcmp(optarg, "ref"))
                impl_opt = 0;
            else if (!strcmp(optarg, "opt") || !strcmp(optarg, "cpu"))
                impl_opt = 1;
            else
                return cli_error(CLI_USAGE, "--impl '%s': expected ref or opt", optarg);
            break;
        case 'v':
            if (!strcmp(optarg, "fused"))
                variant = GNN_SAMPLER_FUSED;
            else if (!strcmp(optarg, "unfused"))
                variant = GNN_SAMPLER_UNFUSED;
            else
                return cli_error(CLI_USAGE, "--variant '%s': expected fused or unfused", optarg);
            variant_set = 1;
            break;
        case 'm':
            if (gnn_idmap_kind_parse(optarg, &idmap) != GNN_OK)
                return cli_error(CLI_USAGE, "--idmap '%s': expected ordered, fused, dense or ref", optarg);
            idmap_set = 1;
            break;
        case 't':
            if (cli_parse_i64(optarg, 1, 4096, &threads))
                return cli_error(CLI_USAGE, "--threads '%s': expected an integer in 1..4096", optarg);
            break;
        case 'r': replace = 1; break;
        case 'w':
            if (!strcmp(optarg, "none"))
                weighted = 0;
            else if (!strcmp(optarg, "random"))
                weighted = 1;
            else
                return cli_error(CLI_USAGE, "--weights '%s': expected none or random", optarg);
            break;
        case 's':
            if (cli_parse_u64(optarg, &seed))
                return cli_error(CLI_USAGE, "--seed '%s': expected a non-negative integer", optarg);
            break;
        case 'j':
            json = optarg;
            if (cli_report_check(json))
                return CLI_USAGE;
            break;
        case 'T':
            if (!strcmp(optarg, "memory"))
                topo_memory = 1;
            else if (!strcmp(optarg, "mmap"))
                topo_memory = 0;
            else
                return cli_error(CLI_USAGE, "--topology '%s': expected memory or mmap", optarg);
            break;
        case 'h': sample_usage(stdout); return CLI_OK;
        default:
            sample_usage(stderr);
            return cli_error(CLI_USAGE, "sample: unknown or incomplete flag '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_error(CLI_USAGE, "sample: unexpected argument '%s'", argv[optind]);
    const int L = cli_parse_i64_list(fanouts_arg, -1, INT32_MAX, fanouts, SAMPLE_MAX_LAYERS);
    if (L < 1)
        return cli_error(CLI_USAGE, "--fanouts '%s': expected 1..%d comma-separated integers >= 0 or -1",
                         fanouts_arg, SAMPLE_MAX_LAYERS);
    /* the reference is serial: its threads are 1 whatever --threads says */
    const int nthreads = impl_opt ? cli_set_threads(threads) : 1;

    gnn_dataset ds;
    gnn_err err = { "" };
    gnn_status st = gnn_dataset_open(&ds, data, &err);
    if (st)
        return cli_error(cli_status_code(st), "%s", cli_errmsg(&err, st));

    int rc = CLI_OK, from_train = 0;
    gnn_csr topo;
    memset(&topo, 0, sizeof topo);
    const gnn_csr *g = &ds.graph;
    int64_t *seeds = NULL;
    float *weights = NULL;
    gnn_sampler *sampler = NULL;
    gnn_block blk[SAMPLE_MAX_LAYERS];
    layer_tot tot[SAMPLE_MAX_LAYERS];
    memset(blk, 0, sizeof blk);
    memset(tot, 0, sizeof tot);

    from_train = ds.split != NULL;
    seeds = gnn_malloc((size_t)(ds.graph.n > 0 ? ds.graph.n : 1) * sizeof(int64_t));
    if (!seeds) {
        rc = cli_error(CLI_FAIL, "out of memory");
        goto done;
    }
    const int64_t n_seeds = fill_seeds(&ds, seeds);
    if (n_seeds == 0) {
        rc = cli_error(CLI_USAGE, "%s: no seed vertices (%s)", data,
                       from_train ? "the split has no train vertices" : "the graph is empty");
        goto done;
    }
    const int64_t nb = (n_seeds + batch - 1) / batch; /* batches per epoch */
    if (batches == 0)
        batches = nb;
    if (weighted) {
        if ((uint64_t)ds.graph.nnz >= (1ull << 34)) { /* float draw e: block e / 4 is 32 bits */
            rc = cli_error(CLI_USAGE, "--weights random: at most 2^34 edges (the graph has %lld)",
                           (long long)ds.graph.nnz);
            goto done;
        }
        weights = gnn_malloc((size_t)(ds.graph.nnz > 0 ? ds.graph.nnz : 1) * sizeof(float));
        if (!weights) {
            rc = cli_error(CLI_FAIL, "out of memory (%lld edge weights)", (long long)ds.graph.nnz);
            goto done;
        }
        gnn_sample_random_weights(weights, ds.graph.nnz, seed); /* nnz < 2^34 checked above */
    }

    if (topo_memory) { /* both implementations sample the same copy: a fair comparison */
        if ((st = gnn_csr_copy(&topo, &ds.graph, GNN_CSR_HUGEPAGES))) {
            rc = cli_error(CLI_FAIL, "cannot copy the graph into memory: %s (try --topology mmap)", gnn_status_str(st));
            goto done;
        }
        g = &topo;
    }
    const char *variant_name = impl_opt ? gnn_sampler_variant_name(variant) : NULL;
    const char *idmap_name = impl_opt ? gnn_idmap_kind_name(idmap) : NULL;
    printf("gnnref sample: %s  n=%lld edges=%lld  seeds: %lld %s  batch=%lld batches=%lld fanouts=%s "
           "replace=%s weights=%s seed=%llu\n",
           ds.name, (long long)ds.graph.n, (long long)ds.graph.nnz, (long long)n_seeds,
           from_train ? "train vertices" : "vertices (no split: all)", (long long)batch, (long long)batches,
           fanouts_arg, replace ? "yes" : "no", weighted ? "random" : "none", (unsigned long long)seed);
    if (!impl_opt && (variant_set || idmap_set))
        printf("note: --variant and --idmap apply to --impl opt only; the reference path ignores them\n");

    double setup_s = 0.0;
    {
        const gnn_impl *impl = gnn_impl_select(impl_opt ? "opt" : "ref");
        const double t0 = now_s();
        st = gnn_sampler_create(&sampler, impl->sampler, g, &(gnn_sampler_options){ variant, (int)idmap });
        setup_s = now_s() - t0;
        if (st) {
            rc = cli_error(cli_status_code(st), "cannot create the %s sampler: %s", impl->sampler->name,
                           gnn_status_str(st));
            goto done;
        }
    }

    gnn_sample_params base;
    memset(&base, 0, sizeof base);
    base.replace = replace;
    base.seed = seed;
    base.weights = weights;
    double seconds = 0.0;
    int64_t edges_sampled = 0;
    const int tty = cli_is_tty() && batches > 1;
    for (int64_t t = 0; t < batches; t++) {
        const int64_t pos = t % nb;
        if (pos == 0) { /* a new epoch: shuffle the seed list from its sorted order again */
            fill_seeds(&ds, seeds);
            const gnn_rng_stream s = gnn_rng_stream_make(seed, GNN_TAG_SHUFFLE, (uint32_t)(t / nb), 0, 0);
            gnn_rng_shuffle_i64(&s, seeds, n_seeds);
        }
        const int64_t *bs = seeds + pos * batch;
        const int64_t bn = pos * batch + batch <= n_seeds ? batch : n_seeds - pos * batch;
        base.step = (uint32_t)t;
        const double t0 = now_s();
        st = gnn_sampler_blocks(sampler, bs, bn, fanouts, L, &base, blk);
        seconds += now_s() - t0;
        if (st) {
            rc = cli_error(cli_status_code(st), "sampling batch %lld failed: %s", (long long)t, gnn_status_str(st));
            goto done;
        }
        for (int l = 0; l < L; l++) {
            tot[l].dst += blk[l].n_dst;
            tot[l].src += blk[l].n_src;
            tot[l].edges += blk[l].nnz;
            edges_sampled += blk[l].nnz;
            gnn_block_free(&blk[l]);
        }
        if (tty) { /* progress on a terminal (outside the timed calls) */
            printf("\rbatch %lld/%lld  %.1f M edges/s", (long long)(t + 1), (long long)batches,
                   seconds > 0 ? (double)edges_sampled / seconds * 1e-6 : 0.0);
            fflush(stdout);
        }
    }
    if (tty)
        printf("\r\033[K");

    const double eps = seconds > 0 ? (double)edges_sampled / seconds : 0.0;
    if (impl_opt)
        printf("sample: opt %s/%s threads=%d: ", variant_name, idmap_name, nthreads);
    else
        printf("sample: ref threads=1: ");
    printf("%lld edges in %.3f s = %.1f M edges/s\n", (long long)edges_sampled, seconds, eps * 1e-6);
    for (int l = 0; l < L; l++)
        printf("  layer %d (fanout %lld): dst %lld  src %lld  edges %lld   totals over %lld batches; "
               "per batch %.1f / %.1f / %.1f\n",
               l, (long long)fanouts[l], (long long)tot[l].dst, (long long)tot[l].src, (long long)tot[l].edges,
               (long long)batches, (double)tot[l].dst / (double)batches, (double)tot[l].src / (double)batches,
               (double)tot[l].edges / (double)batches);
    if (impl_opt && !gnn_idmap_kind_ordered(idmap))
        printf("  (the %s ID map numbers new src vertices in arrival order: the same blocks as ref up to a "
               "relabelling)\n", idmap_name);

    if (json) {
        json_object *cfg;
        json_object *r = cli_report_new("sample", seed, nthreads, "self", 1, &cfg);
        json_object_object_add(cfg, "data", json_object_new_string(data));
        json_object_object_add(cfg, "dataset", json_object_new_string(ds.name));
        json_object *fo = json_object_new_array();
        for (int l = 0; l < L; l++)
            json_object_array_add(fo, json_object_new_int64(fanouts[l]));
        json_object_object_add(cfg, "fanouts", fo);
        json_object_object_add(cfg, "batch", json_object_new_int64(batch));
        json_object_object_add(cfg, "batches", json_object_new_int64(batches));
        json_object_object_add(cfg, "topology", json_object_new_string(topo_memory ? "memory" : "mmap"));
        json_object_object_add(cfg, "impl", json_object_new_string(impl_opt ? "opt" : "ref"));
        /* null: the flag does not apply to the reference path */
        json_object_object_add(cfg, "variant", variant_name ? json_object_new_string(variant_name) : NULL);
        json_object_object_add(cfg, "idmap", idmap_name ? json_object_new_string(idmap_name) : NULL);
        json_object_object_add(cfg, "threads", json_object_new_int(nthreads));
        json_object_object_add(cfg, "replace", json_object_new_boolean(replace));
        json_object_object_add(cfg, "weights", json_object_new_string(weighted ? "random" : "none"));
        json_object_object_add(cfg, "seed", json_object_new_uint64(seed));
        if (!impl_opt)
            json_object_object_add(r, "note", json_object_new_string(
                "--variant and --idmap apply to --impl opt only; the reference sampler is serial"));
        json_object_object_add(r, "seeds_from", json_object_new_string(from_train ? "train" : "all"));
        json_object_object_add(r, "n_seeds", json_object_new_int64(n_seeds));
        json_object_object_add(r, "graph_n", json_object_new_int64(ds.graph.n));
        json_object_object_add(r, "graph_edges", json_object_new_int64(ds.graph.nnz));
        json_object_object_add(r, "batches", json_object_new_int64(batches));
        json_object_object_add(r, "edges_sampled", json_object_new_int64(edges_sampled));
        json_object_object_add(r, "seconds", json_object_new_double(seconds));
        json_object_object_add(r, "edges_per_s", json_object_new_double(eps));
        json_object_object_add(r, "setup_seconds", json_object_new_double(setup_s));
        json_object_object_add(r, "src_order",
                               json_object_new_string(!impl_opt || gnn_idmap_kind_ordered(idmap)
                                                          ? "reference" : "arrival (canonically equal to reference)"));
        json_object_object_add(r, "layers_are", json_object_new_string("totals over all batches"));
        json_object *ls = json_object_new_array();
        for (int l = 0; l < L; l++) {
            json_object *o = json_object_new_object();
            json_object_object_add(o, "layer", json_object_new_int(l));
            json_object_object_add(o, "fanout", json_object_new_int64(fanouts[l]));
            json_object_object_add(o, "dst", json_object_new_int64(tot[l].dst));
            json_object_object_add(o, "src", json_object_new_int64(tot[l].src));
            json_object_object_add(o, "edges", json_object_new_int64(tot[l].edges));
            json_object_array_add(ls, o);
        }
        json_object_object_add(r, "layers", ls);
        rc = cli_report_write(r, json);
        json_object_put(r);
    }

done:
    for (int l = 0; l < SAMPLE_MAX_LAYERS; l++)
        gnn_block_free(&blk[l]);
    if (sampler)
        gnn_sampler_destroy(sampler);
    gnn_free(weights);
    gnn_free(seeds);
    gnn_csr_free(&topo);
    gnn_dataset_free(&ds);
    return rc;
}
