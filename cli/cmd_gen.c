/* cli/cmd_gen.c -- `gnnref gen` and `gnnref convert`: make and import datasets. Thin: flags
 * are parsed here, the work is done by the library (include/gnnref/dataset.h).
 * Exit codes (DESIGN.md section 6): 0 ok, 2 bad usage or bad input, 1 other failures. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/flags.h"
#include "gnnref/dataset.h"

/* One line about the stored graph, shared by gen and convert. */
static void print_summary(const gnn_dataset *ds, const char *out, double seconds)
{
    printf("%s: %lld vertices, %lld edges (CSR entries), %lld features, %lld classes%s -> %s (%.3f s)\n", ds->name,
           (long long)ds->graph.n, (long long)ds->graph.nnz, (long long)ds->num_features, (long long)ds->num_classes,
           ds->split ? ", split" : "", out, seconds);
}

/* Save, print, and write the JSON report of gen and convert. */
static int finish_output(gnn_dataset *ds, const char *out, const char *json, json_object *report, double t0)
{
    gnn_err err;
    const double t_make = gnn_now_s() - t0;
    gnn_status s = gnn_dataset_save(ds, out, &err);
    if (s) {
        json_object_put(report);
        return cli_error(cli_status_code(s), "%s", cli_errmsg(&err, s));
    }
    print_summary(ds, out, t_make);
    cli_report_dataset(report, ds);
    json_object_object_add(report, "output", json_object_new_string(out));
    json_object_object_add(report, "seconds", json_object_new_double(t_make));
    int rc = cli_report_write(report, json);
    json_object_put(report);
    return rc;
}

/* ---- gen ---- */

/* The flags every generator takes (its seed is in its parameters). */
typedef struct gen_common {
    const char *out, *json;
    int64_t threads;
} gen_common;

static const cli_flag k_gen_common[] = {
    { .name = "output", .alias = 'o', .type = CLI_STR, CLI_AT(gen_common, out), .meta = "OUT", .bits = CLI_REQUIRED,
      .help = "the gnnref binary file to write" },
    CLI_FLAG_THREADS(gen_common, threads, "OpenMP threads (the output is the same at any count)"),
    CLI_FLAG_JSON(gen_common, json, CLI_JSON_HELP),
    CLI_END
};

typedef struct rmat_opts {
    gnn_rmat_params p;
    gen_common g;
} rmat_opts;

typedef struct sbm_opts {
    gnn_sbm_params p;
    double split[3]; /* into p.train, p.val, p.test */
    gen_common g;
} sbm_opts;

/* hsbm: the sbm flags (their table addresses an sbm_opts, the first member) and the types */
typedef struct hsbm_opts {
    sbm_opts s;
    int64_t types, featureless;
} hsbm_opts;

static const cli_flag k_rmat_flags[] = {
    { .name = "scale", .type = CLI_INT, CLI_AT(rmat_opts, p.scale), .meta = "S", .lo = 1, .hi = 40,
      .help = "2^S vertices" },
    { .name = "edge-factor", .type = CLI_INT, CLI_AT(rmat_opts, p.edge_factor), .meta = "E", .lo = 1, .hi = 1 << 20,
      .help = "E * 2^S generated edges" },
    { .name = "features", .type = CLI_INT, CLI_AT(rmat_opts, p.num_features), .meta = "F", .lo = 0, .hi = 1 << 20,
      .help = "uniform [-1, 1) features per vertex" },
    { .name = "classes", .type = CLI_INT, CLI_AT(rmat_opts, p.num_classes), .meta = "C", .lo = 0, .hi = INT32_MAX,
      .help = "uniform random labels in 0..C-1 (0: none)" },
    CLI_FLAG_SEED(rmat_opts, p.seed, "seed of every draw"),
    CLI_END
};

static const cli_flag k_sbm_flags[] = {
    { .name = "nodes", .type = CLI_INT, CLI_AT(sbm_opts, p.n), .meta = "N", .lo = 1, .hi = (int64_t)1 << 40,
      .help = "vertices" },
    { .name = "classes", .type = CLI_INT, CLI_AT(sbm_opts, p.classes), .meta = "C", .lo = 1, .hi = INT32_MAX,
      .help = "classes (blocks), equally likely" },
    { .name = "deg-in", .type = CLI_REAL, CLI_AT(sbm_opts, p.deg_in), .meta = "X", .rlo = 0, .rhi = 1e6,
      .help = "mean neighbors in the vertex's own class" },
    { .name = "deg-out", .type = CLI_REAL, CLI_AT(sbm_opts, p.deg_out), .meta = "Y", .rlo = 0, .rhi = 1e6,
      .help = "mean neighbors outside it" },
    { .name = "features", .type = CLI_INT, CLI_AT(sbm_opts, p.num_features), .meta = "F", .lo = 0, .hi = 1 << 20,
      .help = "features per vertex" },
    { .name = "noise", .type = CLI_REAL, CLI_AT(sbm_opts, p.noise), .meta = "S", .rlo = 0, .rhi = 1e30,
      .help = "std of the Gaussian noise added to the class centroid" },
    CLI_FLAG_SEED(sbm_opts, p.seed, "seed of every draw"),
    CLI_FLAG_SPLIT(sbm_opts, split, 0, cli_flag_parse_split, "train/val/test fractions of the random split"),
    CLI_END
};

/* the OGB-shaped presets: the sbm flags with the preset's defaults, and the degree weights */
static const cli_flag k_shape_flags[] = {
    { .name = "deg-power", .type = CLI_REAL, CLI_AT(sbm_opts, p.deg_power), .meta = "A", .rlo = 0, .rhi = 100,
      .help = "tail exponent of the Pareto vertex weights that scale each vertex's partner counts (degrees ~ "
              "power law of exponent A+1; 0: all weights 1, the plain sbm)" },
    { .name = "deg-max", .type = CLI_REAL, CLI_AT(sbm_opts, p.deg_max), .meta = "W", .rlo = 1, .rhi = 1e9,
      .help = "the largest vertex weight (the smallest is 1)" },
    CLI_END
};

static const cli_flag k_hsbm_flags[] = {
    { .name = "types", .type = CLI_INT, CLI_AT(hsbm_opts, types), .meta = "T", .lo = 1, .hi = 16,
      .help = "vertex types: vertex v has type v*T/n (each type a contiguous id range); T^2 relations, edge u -> v "
              "of relation type(u)*T + type(v)" },
    { .name = "featureless", .type = CLI_INT, CLI_AT(hsbm_opts, featureless), .meta = "K", .lo = 0, .hi = 16,
      .help = "the last K types have no input features (zero rows, marked featureless in the file)" },
    CLI_END
};

static const cli_group k_rmat_groups[] = {
    { k_rmat_flags, 0, NULL }, { k_gen_common, offsetof(rmat_opts, g), NULL }, { NULL, 0, NULL }
};
static const cli_group k_sbm_groups[] = {
    { k_sbm_flags, 0, NULL }, { k_gen_common, offsetof(sbm_opts, g), NULL }, { NULL, 0, NULL }
};

static const cli_group k_shape_groups[] = {
    { k_sbm_flags, 0, NULL }, { k_shape_flags, 0, NULL }, { k_gen_common, offsetof(sbm_opts, g), NULL },
    { NULL, 0, NULL }
};

static const cli_group k_hsbm_groups[] = {
    { k_hsbm_flags, 0, NULL }, { k_sbm_flags, offsetof(hsbm_opts, s), NULL },
    { k_gen_common, offsetof(hsbm_opts, s.g), NULL }, { NULL, 0, NULL }
};

static const cli_command k_rmat_cmd = {
    .name = "gen rmat",
    .usage = "-o OUT [flags]",
    .preface = "R-MAT with the Graph500 initiator a=0.57 b=0.19 c=0.19: 2^S vertices, E * 2^S generated edges,\n"
               "symmetrized, deduplicated, self-loops dropped; no features or labels unless asked for.\n"
               "The output is a pure function of the flags: the same at any thread count (docs/formats.md).\n",
    .groups = k_rmat_groups,
};

static const cli_command k_sbm_cmd = {
    .name = "gen sbm",
    .usage = "-o OUT [flags]",
    .preface = "Stochastic block model with class-correlated features (the built-in dataset: its defaults):\n"
               "each vertex picks deg-in/2 partners in its class and deg-out/2 outside on average, features =\n"
               "class centroid (+-1) + Gaussian noise of std S, labels = class. The output is a pure function\n"
               "of the flags: the same at any thread count (docs/formats.md).\n",
    .groups = k_sbm_groups,
};

static const cli_command k_hsbm_cmd = {
    .name = "gen hsbm",
    .usage = "-o OUT [flags]",
    .preface = "A typed (heterogeneous) stochastic block model, written with its types (format version 3):\n"
               "the sbm graph, features and labels, vertex v of type v*T/n named t0, t1, ..., relations\n"
               "'ta:r<r>:tb' for r = a*T + b; --featureless K zeroes the last K types' features and marks\n"
               "them featureless. --types 2 with the sbm defaults is --data builtin-typed (docs/hetero.md).\n",
    .groups = k_hsbm_groups,
};

static const cli_command k_products_cmd = {
    .name = "gen products",
    .usage = "-o OUT [flags]",
    .preface = "An sbm shaped like ogbn-products: 2,449,029 vertices, ~124M CSR entries, 100 features, 47 classes,\n"
               "split 8%/2%/90%, power-law degrees from Pareto vertex weights, ~81% of edges inside the class.\n"
               "Every sbm flag sets its part (--nodes N for a scaled-down copy). Where it differs from the real\n"
               "set: docs/scale.md.\n",
    .groups = k_shape_groups,
};

static const cli_command k_papers_cmd = {
    .name = "gen papers100m",
    .usage = "-o OUT [flags]",
    .preface = "An sbm shaped like ogbn-papers100M: 111,059,956 vertices, ~1.6G CSR entries, 172 classes,\n"
               "1,207,179 / 125,265 / 214,338 train / val / test (as fractions of --nodes), the rest unsplit,\n"
               "power-law degrees. No features by default (128 would be 57 GB): --features F stores F.\n"
               "The graph alone needs ~15 GB while it is built (docs/scale.md).\n",
    .groups = k_shape_groups,
};

/* After parsing: the output checked before generating (which can take long), the threads set. */
static int gen_ready(const gen_common *g, int *threads)
{
    if (cli_output_check("-o", g->out) || cli_report_check(g->json))
        return CLI_USAGE;
    *threads = cli_set_threads(g->threads);
    return CLI_CONTINUE;
}

/* The report of a generator, its config filled from the flags. */
static json_object *gen_report(const char *generator, const cli_args *a, const void *o, uint64_t seed, int threads,
                               json_object **cfg)
{
    json_object *report = cli_report_new("gen", seed, threads, "self", 1, cfg);
    json_object_object_add(*cfg, "generator", json_object_new_string(generator));
    cli_config_json(*cfg, a, o, 0);
    json_object_object_add(*cfg, "threads", json_object_new_int(threads)); /* in effect */
    return report;
}

/* After the generator ran (status s): save, print and report, or the error. */
static int gen_finish(gnn_status s, gnn_dataset *ds, const gnn_err *err, const gen_common *g, json_object *report,
                      double t0)
{
    if (s) {
        json_object_put(report);
        return cli_error(cli_status_code(s), "%s", cli_errmsg(err, s));
    }
    const int rc = finish_output(ds, g->out, g->json, report, t0);
    gnn_dataset_free(ds);
    return rc;
}

static int gen_rmat(int argc, char **argv)
{
    rmat_opts o;
    memset(&o, 0, sizeof o);
    gnn_rmat_defaults(&o.p);
    cli_args a;
    int threads, rc = cli_parse(&k_rmat_cmd, argc, argv, &o, &a);
    if (rc != CLI_CONTINUE || (rc = gen_ready(&o.g, &threads)) != CLI_CONTINUE)
        return rc;
    json_object *cfg, *report = gen_report("rmat", &a, &o, o.p.seed, threads, &cfg);
    json_object_object_add(cfg, "a", json_object_new_double(o.p.a)); /* the Graph500 initiator */
    json_object_object_add(cfg, "b", json_object_new_double(o.p.b));
    json_object_object_add(cfg, "c", json_object_new_double(o.p.c));
    gnn_dataset ds;
    gnn_err err = { "" };
    const double t0 = gnn_now_s();
    return gen_finish(gnn_gen_rmat(&ds, &o.p, &err), &ds, &err, &o.g, report, t0);
}

static int gen_sbm(int argc, char **argv)
{
    sbm_opts o;
    memset(&o, 0, sizeof o);
    gnn_sbm_defaults(&o.p);
    o.split[0] = o.p.train, o.split[1] = o.p.val, o.split[2] = o.p.test;
    cli_args a;
    int threads, rc = cli_parse(&k_sbm_cmd, argc, argv, &o, &a);
    if (rc != CLI_CONTINUE || (rc = gen_ready(&o.g, &threads)) != CLI_CONTINUE)
        return rc;
    o.p.train = o.split[0], o.p.val = o.split[1], o.p.test = o.split[2];
    json_object *cfg, *report = gen_report("sbm", &a, &o, o.p.seed, threads, &cfg);
    gnn_dataset ds;
    gnn_err err = { "" };
    const double t0 = gnn_now_s();
    return gen_finish(gnn_gen_sbm(&ds, &o.p, &err), &ds, &err, &o.g, report, t0);
}

/* gen products, gen papers100m: the sbm with a preset's defaults */
static int gen_shape(const char *preset, const cli_command *cmd, int argc, char **argv)
{
    sbm_opts o;
    memset(&o, 0, sizeof o);
    gnn_err err = { "" };
    if (gnn_sbm_preset(&o.p, preset, &err))
        return cli_error(CLI_FAIL, "%s", err.msg);
    o.split[0] = o.p.train, o.split[1] = o.p.val, o.split[2] = o.p.test;
    cli_args a;
    int threads, rc = cli_parse(cmd, argc, argv, &o, &a);
    if (rc != CLI_CONTINUE || (rc = gen_ready(&o.g, &threads)) != CLI_CONTINUE)
        return rc;
    o.p.train = o.split[0], o.p.val = o.split[1], o.p.test = o.split[2];
    json_object *cfg, *report = gen_report(preset, &a, &o, o.p.seed, threads, &cfg);
    gnn_dataset ds;
    const double t0 = gnn_now_s();
    gnn_status s = gnn_gen_sbm(&ds, &o.p, &err);
    if (!s)
        snprintf(ds.name, sizeof ds.name, "%s-shape-n%lld", preset, (long long)o.p.n);
    return gen_finish(s, &ds, &err, &o.g, report, t0);
}

static int gen_hsbm(int argc, char **argv)
{
    hsbm_opts o;
    memset(&o, 0, sizeof o);
    gnn_sbm_defaults(&o.s.p);
    o.s.split[0] = o.s.p.train, o.s.split[1] = o.s.p.val, o.s.split[2] = o.s.p.test;
    o.types = 2;
    cli_args a;
    int threads, rc = cli_parse(&k_hsbm_cmd, argc, argv, &o, &a);
    if (rc != CLI_CONTINUE || (rc = gen_ready(&o.s.g, &threads)) != CLI_CONTINUE)
        return rc;
    if (o.featureless > o.types)
        return cli_error(CLI_USAGE, "--featureless %lld: at most --types (%lld)", (long long)o.featureless,
                         (long long)o.types);
    o.s.p.train = o.s.split[0], o.s.p.val = o.s.split[1], o.s.p.test = o.s.split[2];
    json_object *cfg, *report = gen_report("hsbm", &a, &o, o.s.p.seed, threads, &cfg);
    gnn_dataset ds;
    gnn_err err = { "" };
    const double t0 = gnn_now_s();
    return gen_finish(gnn_gen_hsbm(&ds, &o.s.p, o.types, o.featureless, &err), &ds, &err, &o.s.g, report, t0);
}

static int is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

int gnn_cmd_gen(int argc, char **argv)
{
    if (argc < 2 || is_help(argv[1])) {
        rmat_opts r;
        sbm_opts s, pr, pa;
        hsbm_opts h;
        memset(&r, 0, sizeof r);
        memset(&s, 0, sizeof s);
        memset(&h, 0, sizeof h);
        memset(&pr, 0, sizeof pr);
        memset(&pa, 0, sizeof pa);
        gnn_rmat_defaults(&r.p);
        gnn_sbm_defaults(&s.p);
        s.split[0] = s.p.train, s.split[1] = s.p.val, s.split[2] = s.p.test;
        h.s = s;
        h.types = 2;
        (void)gnn_sbm_preset(&pr.p, "products", NULL);
        pr.split[0] = pr.p.train, pr.split[1] = pr.p.val, pr.split[2] = pr.p.test;
        (void)gnn_sbm_preset(&pa.p, "papers100m", NULL);
        pa.split[0] = pa.p.train, pa.split[1] = pa.p.val, pa.split[2] = pa.p.test;
        static const cli_command *const cmds[] = { &k_rmat_cmd, &k_sbm_cmd, &k_hsbm_cmd, &k_products_cmd,
                                                   &k_papers_cmd, NULL };
        const void *const defaults[] = { &r, &s, &h, &pr, &pa };
        cli_help_many(argc < 2 ? stderr : stdout, cmds, defaults);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    if (!strcmp(argv[1], "rmat"))
        return gen_rmat(argc - 1, argv + 1);
    if (!strcmp(argv[1], "sbm"))
        return gen_sbm(argc - 1, argv + 1);
    if (!strcmp(argv[1], "hsbm"))
        return gen_hsbm(argc - 1, argv + 1);
    if (!strcmp(argv[1], "products"))
        return gen_shape("products", &k_products_cmd, argc - 1, argv + 1);
    if (!strcmp(argv[1], "papers100m"))
        return gen_shape("papers100m", &k_papers_cmd, argc - 1, argv + 1);
    return cli_error(CLI_USAGE, "gen: unknown generator '%s' (expected rmat, sbm, hsbm, products or papers100m)",
                     argv[1]);
}

/* ---- convert ---- */

enum { FMT_AUTO, FMT_TEXT, FMT_OGB, FMT_EDGELIST, FMT_NATIVE };

typedef struct convert_opts {
    const char *data, *out, *json;
    int format;
    double split[3];
    uint64_t seed;
    gnn_import_options io;
} convert_opts;

static const cli_choice k_formats[] = {
    { "auto", FMT_AUTO, 0 }, { "text", FMT_TEXT, 0 }, { "ogb", FMT_OGB, 0 }, { "edgelist", FMT_EDGELIST, 0 },
    { "native", FMT_NATIVE, 0 }, { NULL, 0, 0 }
};

static const cli_choice k_feat_storage[] = {
    { "auto", GNN_FEAT_STORE_AUTO, 0 }, { "dense", GNN_FEAT_STORE_DENSE, 0 }, { "csr", GNN_FEAT_STORE_CSR, 0 },
    { NULL, 0, 0 }
};

static const cli_flag k_convert_flags[] = {
    CLI_FLAG_DATA(convert_opts, data, CLI_REQUIRED, "the input, read as --format says"),
    { .name = "format", .type = CLI_CHOICE, CLI_AT(convert_opts, format), .choices = k_formats,
      .help = "text: a directory in the shared/datasets layout (meta.txt, edges.txt, features.txt, labels.txt, "
              "optional train/val/test.txt), edges kept as listed, deduplicated; ogb: an OGB dataset directory "
              "(DIR or DIR/raw: edge.csv, node-feat.csv, node-label.csv, split/*/{train,valid,test}.csv, gzipped "
              "or not), edges symmetrized, deduplicated; or OGB's heterogeneous layout (ogbn-mag: "
              "num-node-dict.csv, triplet-type-list.csv, relations/*/edge.csv, ...), vertex and edge types kept, "
              "edges directed as listed; edgelist: a file of 'u v' lines ('#' or '%' comments), "
              "n = max id + 1, symmetrized, deduplicated, self-loops dropped; native: a gnnref binary file "
              "(re-checked and rewritten); auto: 'builtin', a native file, a text directory or an OGB directory" },
    { .name = "output", .alias = 'o', .type = CLI_STR, CLI_AT(convert_opts, out), .meta = "OUT", .bits = CLI_REQUIRED,
      .help = "the gnnref binary file to write (checked, CRC32C per section)" },
    CLI_FLAG_SPLIT(convert_opts, split, CLI_NULL_UNSET, cli_flag_parse_split,
                   "add a seeded random split (replacing any split in the input), e.g. for data without one"),
    CLI_FLAG_SEED(convert_opts, seed, "seed of --split"),
    { .name = "max-vertices", .type = CLI_INT, CLI_AT(convert_opts, io.max_vertices), .meta = "N", .lo = 1,
      .hi = (int64_t)1 << 40, .help = "refuse a text, OGB or edge-list input with more vertices (a vertex id, "
                                      "num_nodes or a row count) before allocating for them: a 12-byte edge "
                                      "list '0 100000000' would otherwise cost 800 MB" },
    { .name = "feature-storage", .type = CLI_CHOICE, CLI_AT(convert_opts, io.feat_storage), .choices = k_feat_storage,
      .help = "how the features are stored (docs/sparse-features.md): csr (sparse input features, multiplied as "
              "CSR by the first layer), dense, or auto: csr when fewer than 10% of the entries are nonzero "
              "(bag-of-words inputs such as Cora and CiteSeer). Text and OGB inputs always pass through the rule; "
              "a native or built-in input is re-stored only when this flag is given" },
    { .name = "reverse-relations", .type = CLI_BOOL, CLI_AT(convert_opts, io.reverse_relations),
      .help = "OGB heterogeneous input: add relation 'dst:rev-R:src' holding every edge of relation R reversed (as "
              "RGCN on ogbn-mag does); without it the edges are kept directed as listed" },
    CLI_FLAG_JSON(convert_opts, json, CLI_JSON_HELP),
    CLI_END
};

static const cli_group k_convert_groups[] = { { k_convert_flags, 0, NULL }, { NULL, 0, NULL } };

static const cli_command k_convert_cmd = {
    .name = "convert",
    .usage = "[DATA] -o OUT [flags]",
    .preface = "Import DATA (--data PATH or the one positional argument) and write it as a gnnref binary file.\n",
    .epilogue = "Rules, limits and counts reported: docs/formats.md.\n",
    .positional = "data",
    .pos_meta = "DATA",
    .groups = k_convert_groups,
};

/* Read the input as o->format says (auto: resolved to the kind found, for the report). */
static gnn_status convert_read(convert_opts *o, gnn_dataset *ds, gnn_err *err)
{
    if (o->format == FMT_AUTO) { /* the importers of text and OGB directories take the limit */
        const char *kind = gnn_dataset_spec_kind(o->data);
        if (kind && !strcmp(kind, "text"))
            o->format = FMT_TEXT;
        else if (kind && !strcmp(kind, "ogb"))
            o->format = FMT_OGB;
    }
    switch (o->format) {
    case FMT_TEXT: return gnn_import_text(ds, o->data, &o->io, err);
    case FMT_OGB: return gnn_import_ogb(ds, o->data, &o->io, err);
    case FMT_EDGELIST: return gnn_import_edgelist(ds, o->data, &o->io, err);
    case FMT_NATIVE: return gnn_dataset_load(ds, o->data, err);
    default: return gnn_dataset_open(ds, o->data, err);
    }
}

int gnn_cmd_convert(int argc, char **argv)
{
    convert_opts o;
    memset(&o, 0, sizeof o);
    o.seed = 1;
    gnn_import_defaults(&o.io);
    cli_args a;
    int rc = cli_parse(&k_convert_cmd, argc, argv, &o, &a);
    if (rc != CLI_CONTINUE)
        return rc;
    if (cli_output_check("-o", o.out) || cli_report_check(o.json))
        return CLI_USAGE;
    gnn_dataset ds;
    gnn_err err;
    const double t0 = gnn_now_s();
    gnn_status s = convert_read(&o, &ds, &err);
    if (s)
        return cli_error(cli_status_code(s), "%s", cli_errmsg(&err, s));
    if (o.format != FMT_TEXT && o.format != FMT_OGB && cli_given(&a, "feature-storage") &&
        (s = gnn_dataset_set_feat_storage(&ds, o.io.feat_storage, &err))) { /* the importers applied it already */
        gnn_dataset_free(&ds);
        return cli_error(cli_status_code(s), "%s", cli_errmsg(&err, s));
    }
    if (cli_given(&a, "split") && (s = gnn_dataset_split_random(&ds, o.split[0], o.split[1], o.split[2], o.seed, &err))) {
        gnn_dataset_free(&ds);
        return cli_error(cli_status_code(s), "%s", cli_errmsg(&err, s));
    }
    json_object *cfg;
    json_object *report = cli_report_new("convert", o.seed, cli_set_threads(0), "self", 1, &cfg);
    cli_config_json(cfg, &a, &o, 0);
    json_object_object_add(cfg, "input", json_object_new_string(o.data)); /* the name before --data */
    rc = finish_output(&ds, o.out, o.json, report, t0);
    if (rc == CLI_OK && (ds.stats.duplicates_merged || ds.stats.self_loops_dropped))
        printf("  %lld edge records read; %lld self-loops dropped; %lld duplicate entries merged%s\n",
               (long long)ds.stats.edges_read, (long long)ds.stats.self_loops_dropped,
               (long long)ds.stats.duplicates_merged, ds.stats.symmetrized ? " (after symmetrizing)" : "");
    gnn_dataset_free(&ds);
    return rc;
}
