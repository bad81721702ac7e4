/* cli/cmd_data.c -- `gnnref gen`, `gnnref convert`, `gnnref info`: make, import and inspect datasets.
 * Thin: flags are parsed here, the work is done by the library (include/gnnref/dataset.h).
 * Exit codes (DESIGN.md section 6): 0 ok, 2 bad usage or bad input, 1 other failures. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli/cli.h"
#include "gnnref/dataset.h"
#include "gnnref/partition.h"
#include "gnnref/tensor.h"

/* ---- small flag helpers ---- */

/* Matches "--name VALUE" or "--name=VALUE" at argv[*i]; advances *i past the value.
 * Returns 1 on a match (value in *val), 0 when argv[*i] is another flag, -1 when the value
 * is missing (an error has been printed). */
static int flag_arg(int argc, char **argv, int *i, const char *name, const char **val)
{
    const char *a = argv[*i];
    size_t k = strlen(name);
    if (strncmp(a, name, k) != 0)
        return 0;
    if (a[k] == '=') {
        *val = a + k + 1;
        return 1;
    }
    if (a[k] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        cli_error(CLI_USAGE, "%s needs a value", name);
        return -1;
    }
    *val = argv[++*i];
    return 1;
}

static int is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int bad_value(const char *flag, const char *val, const char *expected)
{
    return cli_error(CLI_USAGE, "%s: bad value '%s' (expected %s)", flag, val, expected);
}

/* One line about the stored graph, shared by gen and convert. */
static void print_summary(const gnn_dataset *ds, const char *out, double seconds)
{
    printf("%s: %lld vertices, %lld edges (CSR entries), %lld features, %lld classes%s -> %s (%.3f s)\n", ds->name,
           (long long)ds->graph.n, (long long)ds->graph.nnz, (long long)ds->num_features, (long long)ds->num_classes,
           ds->split ? ", split" : "", out, seconds);
}

static void report_dataset(json_object *r, const gnn_dataset *ds)
{
    json_object_object_add(r, "name", json_object_new_string(ds->name));
    json_object_object_add(r, "n", json_object_new_int64(ds->graph.n));
    json_object_object_add(r, "edges", json_object_new_int64(ds->graph.nnz));
    json_object_object_add(r, "num_features", json_object_new_int64(ds->num_features));
    json_object_object_add(r, "num_classes", json_object_new_int64(ds->num_classes));
    json_object *st = json_object_new_object();
    json_object_object_add(st, "edges_read", json_object_new_int64(ds->stats.edges_read));
    json_object_object_add(st, "self_loops_dropped", json_object_new_int64(ds->stats.self_loops_dropped));
    json_object_object_add(st, "duplicates_merged", json_object_new_int64(ds->stats.duplicates_merged));
    json_object_object_add(st, "symmetrized", json_object_new_boolean(ds->stats.symmetrized != 0));
    json_object_object_add(r, "import", st);
}

/* Save, print, and write the JSON report of gen and convert. */
static int finish_output(gnn_dataset *ds, const char *out, const char *json, json_object *report, double t0)
{
    gnn_err err;
    const double t_make = now_s() - t0;
    gnn_status s = gnn_dataset_save(ds, out, &err);
    if (s) {
        json_object_put(report);
        return cli_error(cli_status_code(s), "%s", cli_errmsg(&err, s));
    }
    print_summary(ds, out, t_make);
    report_dataset(report, ds);
    json_object_object_add(report, "output", json_object_new_string(out));
    json_object_object_add(report, "seconds", json_object_new_double(t_make));
    int rc = cli_report_write(report, json);
    json_object_put(report);
    return rc;
}

/* ---- gen ---- */

static const char k_gen_usage[] =
    "usage: gnnref gen rmat [--scale S] [--edge-factor E] [--seed N] [--features F] [--classes C]\n"
    "                       [--threads T] -o OUT [--json FILE]\n"
    "       gnnref gen sbm  [--nodes N] [--classes C] [--deg-in X] [--deg-out Y] [--features F]\n"
    "                       [--noise S] [--seed N] [--split TRAIN,VAL,TEST] [--threads T] -o OUT [--json FILE]\n"
    "\n"
    "Generate a graph into a gnnref binary file. The output is a pure function of the flags:\n"
    "the same at any thread count.\n"
    "  rmat   R-MAT with the Graph500 initiator a=0.57 b=0.19 c=0.19: 2^S vertices,\n"
    "         E * 2^S generated edges, symmetrized, deduplicated, self-loops dropped.\n"
    "         Defaults: --scale 16 --edge-factor 16 --seed 1, no features or labels;\n"
    "         --features F adds uniform [-1, 1) features, --classes C uniform random labels.\n"
    "  sbm    stochastic block model with class-correlated features (the built-in dataset):\n"
    "         each vertex picks deg-in/2 partners in its class and deg-out/2 outside on average,\n"
    "         features = class centroid (+-1) + Gaussian noise of std S, labels = class.\n"
    "         Defaults (the built-in dataset): --nodes 20000 --classes 8 --deg-in 7 --deg-out 5\n"
    "         --features 64 --noise 5 --seed 1 --split 0.1,0.2,0.2\n"
    "Algorithms: docs/formats.md.\n";

typedef struct gen_common {
    const char *out, *json;
    int64_t threads;
} gen_common;

/* Flags every generator takes; returns 1 when consumed, 0 when not, -1 on error. */
static int gen_common_flag(int argc, char **argv, int *i, gen_common *g, uint64_t *seed)
{
    const char *v;
    int r;
    if ((r = flag_arg(argc, argv, i, "-o", &v)) || (r = flag_arg(argc, argv, i, "--output", &v))) {
        if (r > 0) {
            g->out = v;
            if (cli_output_check("-o", v)) /* before generating, which can take long */
                return -1;
        }
        return r;
    }
    if ((r = flag_arg(argc, argv, i, "--json", &v))) {
        if (r > 0) {
            g->json = v;
            if (cli_report_check(v))
                return -1;
        }
        return r;
    }
    if ((r = flag_arg(argc, argv, i, "--seed", &v))) {
        if (r > 0 && cli_parse_u64(v, seed))
            return bad_value("--seed", v, "an unsigned integer"), -1;
        return r;
    }
    if ((r = flag_arg(argc, argv, i, "--threads", &v))) {
        if (r > 0 && cli_parse_i64(v, 1, 4096, &g->threads))
            return bad_value("--threads", v, "an integer in [1, 4096]"), -1;
        return r;
    }
    return 0;
}

static int gen_rmat(int argc, char **argv)
{
    gnn_rmat_params p;
    gnn_rmat_defaults(&p);
    gen_common g = { NULL, NULL, 0 };
    for (int i = 1; i < argc; i++) {
        const char *v;
        int64_t x;
        int r;
        if (is_help(argv[i])) {
            fputs(k_gen_usage, stdout);
            return CLI_OK;
        }
        if ((r = gen_common_flag(argc, argv, &i, &g, &p.seed))) {
            if (r < 0)
                return CLI_USAGE;
        } else if ((r = flag_arg(argc, argv, &i, "--scale", &v))) {
            if (r < 0 || cli_parse_i64(v, 1, 40, &x))
                return r < 0 ? CLI_USAGE : bad_value("--scale", v, "an integer in [1, 40]");
            p.scale = (int)x;
        } else if ((r = flag_arg(argc, argv, &i, "--edge-factor", &v))) {
            if (r < 0 || cli_parse_i64(v, 1, 1 << 20, &x))
                return r < 0 ? CLI_USAGE : bad_value("--edge-factor", v, "an integer in [1, 2^20]");
            p.edge_factor = (int)x;
        } else if ((r = flag_arg(argc, argv, &i, "--features", &v))) {
            if (r < 0 || cli_parse_i64(v, 0, 1 << 20, &p.num_features))
                return r < 0 ? CLI_USAGE : bad_value("--features", v, "an integer in [0, 2^20]");
        } else if ((r = flag_arg(argc, argv, &i, "--classes", &v))) {
            if (r < 0 || cli_parse_i64(v, 0, INT32_MAX, &p.num_classes))
                return r < 0 ? CLI_USAGE : bad_value("--classes", v, "a non-negative integer");
        } else {
            return cli_error(CLI_USAGE, "gen rmat: unknown argument '%s' (see gnnref gen --help)", argv[i]);
        }
    }
    if (!g.out)
        return cli_error(CLI_USAGE, "gen rmat: -o OUT is required (see gnnref gen --help)");
    int threads = cli_set_threads(g.threads);
    json_object *cfg;
    json_object *report = cli_report_new("gen", p.seed, threads, "self", 1, &cfg);
    json_object_object_add(cfg, "generator", json_object_new_string("rmat"));
    json_object_object_add(cfg, "scale", json_object_new_int(p.scale));
    json_object_object_add(cfg, "edge_factor", json_object_new_int(p.edge_factor));
    json_object_object_add(cfg, "a", json_object_new_double(p.a));
    json_object_object_add(cfg, "b", json_object_new_double(p.b));
    json_object_object_add(cfg, "c", json_object_new_double(p.c));
    json_object_object_add(cfg, "features", json_object_new_int64(p.num_features));
    json_object_object_add(cfg, "classes", json_object_new_int64(p.num_classes));
    json_object_object_add(cfg, "output", json_object_new_string(g.out));
    gnn_dataset ds;
    gnn_err err;
    double t0 = now_s();
    gnn_status s = gnn_gen_rmat(&ds, &p, &err);
    if (s) {
        json_object_put(report);
        return cli_error(cli_status_code(s), "%s", cli_errmsg(&err, s));
    }
    int rc = finish_output(&ds, g.out, g.json, report, t0);
    gnn_dataset_free(&ds);
    return rc;
}

static int gen_sbm(int argc, char **argv)
{
    gnn_sbm_params p;
    gnn_sbm_defaults(&p);
    gen_common g = { NULL, NULL, 0 };
    for (int i = 1; i < argc; i++) {
        const char *v;
        double fr[3];
        int r;
        if (is_help(argv[i])) {
            fputs(k_gen_usage, stdout);
            return CLI_OK;
        }
        if ((r = gen_common_flag(argc, argv, &i, &g, &p.seed))) {
            if (r < 0)
                return CLI_USAGE;
        } else if ((r = flag_arg(argc, argv, &i, "--nodes", &v))) {
            if (r < 0 || cli_parse_i64(v, 1, (int64_t)1 << 40, &p.n))
                return r < 0 ? CLI_USAGE : bad_value("--nodes", v, "an integer in [1, 2^40]");
        } else if ((r = flag_arg(argc, argv, &i, "--classes", &v))) {
            if (r < 0 || cli_parse_i64(v, 1, INT32_MAX, &p.classes))
                return r < 0 ? CLI_USAGE : bad_value("--classes", v, "a positive integer");
        } else if ((r = flag_arg(argc, argv, &i, "--deg-in", &v))) {
            if (r < 0 || cli_parse_f64(v, 0, 1e6, &p.deg_in))
                return r < 0 ? CLI_USAGE : bad_value("--deg-in", v, "a number in [0, 1e6]");
        } else if ((r = flag_arg(argc, argv, &i, "--deg-out", &v))) {
            if (r < 0 || cli_parse_f64(v, 0, 1e6, &p.deg_out))
                return r < 0 ? CLI_USAGE : bad_value("--deg-out", v, "a number in [0, 1e6]");
        } else if ((r = flag_arg(argc, argv, &i, "--features", &v))) {
            if (r < 0 || cli_parse_i64(v, 0, 1 << 20, &p.num_features))
                return r < 0 ? CLI_USAGE : bad_value("--features", v, "an integer in [0, 2^20]");
        } else if ((r = flag_arg(argc, argv, &i, "--noise", &v))) {
            if (r < 0 || cli_parse_f64(v, 0, 1e30, &p.noise))
                return r < 0 ? CLI_USAGE : bad_value("--noise", v, "a number >= 0");
        } else if ((r = flag_arg(argc, argv, &i, "--split", &v))) {
            if (r < 0 || cli_parse_f64_list(v, 0, 1, fr, 3) != 3 || fr[0] + fr[1] + fr[2] > 1 + 1e-9)
                return r < 0 ? CLI_USAGE : bad_value("--split", v, "TRAIN,VAL,TEST fractions summing to at most 1");
            p.train = fr[0], p.val = fr[1], p.test = fr[2];
        } else {
            return cli_error(CLI_USAGE, "gen sbm: unknown argument '%s' (see gnnref gen --help)", argv[i]);
        }
    }
    if (!g.out)
        return cli_error(CLI_USAGE, "gen sbm: -o OUT is required (see gnnref gen --help)");
    int threads = cli_set_threads(g.threads);
    json_object *cfg;
    json_object *report = cli_report_new("gen", p.seed, threads, "self", 1, &cfg);
    json_object_object_add(cfg, "generator", json_object_new_string("sbm"));
    json_object_object_add(cfg, "nodes", json_object_new_int64(p.n));
    json_object_object_add(cfg, "classes", json_object_new_int64(p.classes));
    json_object_object_add(cfg, "deg_in", json_object_new_double(p.deg_in));
    json_object_object_add(cfg, "deg_out", json_object_new_double(p.deg_out));
    json_object_object_add(cfg, "features", json_object_new_int64(p.num_features));
    json_object_object_add(cfg, "noise", json_object_new_double(p.noise));
    json_object *sp = json_object_new_array();
    json_object_array_add(sp, json_object_new_double(p.train));
    json_object_array_add(sp, json_object_new_double(p.val));
    json_object_array_add(sp, json_object_new_double(p.test));
    json_object_object_add(cfg, "split", sp);
    json_object_object_add(cfg, "output", json_object_new_string(g.out));
    gnn_dataset ds;
    gnn_err err;
    double t0 = now_s();
    gnn_status s = gnn_gen_sbm(&ds, &p, &err);
    if (s) {
        json_object_put(report);
        return cli_error(cli_status_code(s), "%s", cli_errmsg(&err, s));
    }
    int rc = finish_output(&ds, g.out, g.json, report, t0);
    gnn_dataset_free(&ds);
    return rc;
}

int gnn_cmd_gen(int argc, char **argv)
{
    if (argc < 2 || is_help(argv[1])) {
        fputs(k_gen_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    if (!strcmp(argv[1], "rmat"))
        return gen_rmat(argc - 1, argv + 1);
    if (!strcmp(argv[1], "sbm"))
        return gen_sbm(argc - 1, argv + 1);
    return cli_error(CLI_USAGE, "gen: unknown generator '%s' (expected rmat or sbm)", argv[1]);
}

/* ---- convert ---- */

static const char k_convert_usage[] =
    "usage: gnnref convert [--format auto|text|ogb|edgelist|native] IN -o OUT\n"
    "                      [--split TRAIN,VAL,TEST [--seed N]] [--max-vertices N] [--json FILE]\n"
    "\n"
    "Import IN and write it as a gnnref binary file (checked, CRC32C per section).\n"
    "  text      a directory in the shared/datasets layout (meta.txt, edges.txt, features.txt,\n"
    "            labels.txt, optional train/val/test.txt); edges kept as listed, deduplicated\n"
    "  ogb       an OGB dataset directory (DIR or DIR/raw: edge.csv, node-feat.csv, node-label.csv,\n"
    "            split/*/{train,valid,test}.csv; gzipped or not); edges symmetrized, deduplicated\n"
    "  edgelist  a file of 'u v' lines ('#' or '%' comments), n = max id + 1; symmetrized,\n"
    "            deduplicated, self-loops dropped\n"
    "  native    a gnnref binary file (re-checked and rewritten)\n"
    "  auto      (default) 'builtin', a native file, a text directory or an OGB directory\n"
    "--split adds a seeded random split (replacing any split in IN), e.g. for data without one.\n"
    "--max-vertices N (default 16777216, at most 2^40): refuse a text, OGB or edge-list input\n"
    "            with more vertices (a vertex id, num_nodes or a row count) before allocating\n"
    "            for them; a 12-byte edge list '0 100000000' would otherwise cost 800 MB.\n"
    "Rules, limits and counts reported: docs/formats.md.\n";

int gnn_cmd_convert(int argc, char **argv)
{
    const char *format = "auto", *in = NULL, *out = NULL, *json = NULL;
    double fr[3];
    int have_split = 0;
    uint64_t seed = 1;
    gnn_import_options io;
    gnn_import_defaults(&io);
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (is_help(argv[i])) {
            fputs(k_convert_usage, stdout);
            return CLI_OK;
        }
        if ((r = flag_arg(argc, argv, &i, "--format", &v))) {
            if (r < 0)
                return CLI_USAGE;
            format = v;
        } else if ((r = flag_arg(argc, argv, &i, "-o", &v)) || (r = flag_arg(argc, argv, &i, "--output", &v))) {
            if (r < 0 || cli_output_check("-o", v))
                return CLI_USAGE;
            out = v;
        } else if ((r = flag_arg(argc, argv, &i, "--json", &v))) {
            if (r < 0 || cli_report_check(v))
                return CLI_USAGE;
            json = v;
        } else if ((r = flag_arg(argc, argv, &i, "--seed", &v))) {
            if (r < 0 || cli_parse_u64(v, &seed))
                return r < 0 ? CLI_USAGE : bad_value("--seed", v, "an unsigned integer");
        } else if ((r = flag_arg(argc, argv, &i, "--split", &v))) {
            if (r < 0 || cli_parse_f64_list(v, 0, 1, fr, 3) != 3 || fr[0] + fr[1] + fr[2] > 1 + 1e-9)
                return r < 0 ? CLI_USAGE : bad_value("--split", v, "TRAIN,VAL,TEST fractions summing to at most 1");
            have_split = 1;
        } else if ((r = flag_arg(argc, argv, &i, "--max-vertices", &v))) {
            if (r < 0 || cli_parse_i64(v, 1, (int64_t)1 << 40, &io.max_vertices))
                return r < 0 ? CLI_USAGE : bad_value("--max-vertices", v, "an integer in [1, 2^40]");
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_error(CLI_USAGE, "convert: unknown flag '%s' (see gnnref convert --help)", argv[i]);
        } else if (!in) {
            in = argv[i];
        } else {
            return cli_error(CLI_USAGE, "convert: more than one input ('%s' and '%s')", in, argv[i]);
        }
    }
    if (!in || !out)
        return cli_error(CLI_USAGE, "convert: IN and -o OUT are required (see gnnref convert --help)");
    gnn_dataset ds;
    gnn_err err;
    gnn_status s;
    double t0 = now_s();
    if (!strcmp(format, "auto")) { /* the importers of text and OGB directories take the limit */
        const char *kind = gnn_dataset_spec_kind(in);
        if (kind && (!strcmp(kind, "text") || !strcmp(kind, "ogb")))
            format = kind;
    }
    if (!strcmp(format, "text"))
        s = gnn_import_text(&ds, in, &io, &err);
    else if (!strcmp(format, "ogb"))
        s = gnn_import_ogb(&ds, in, &io, &err);
    else if (!strcmp(format, "edgelist"))
        s = gnn_import_edgelist(&ds, in, &io, &err);
    else if (!strcmp(format, "native"))
        s = gnn_dataset_load(&ds, in, &err);
    else if (!strcmp(format, "auto"))
        s = gnn_dataset_open(&ds, in, &err);
    else
        return bad_value("--format", format, "auto, text, ogb, edgelist or native");
    if (s)
        return cli_error(cli_status_code(s), "%s", cli_errmsg(&err, s));
    if (have_split && (s = gnn_dataset_split_random(&ds, fr[0], fr[1], fr[2], seed, &err))) {
        gnn_dataset_free(&ds);
        return cli_error(cli_status_code(s), "%s", cli_errmsg(&err, s));
    }
    json_object *cfg;
    json_object *report = cli_report_new("convert", seed, cli_set_threads(0), "self", 1, &cfg);
    json_object_object_add(cfg, "format", json_object_new_string(format));
    json_object_object_add(cfg, "input", json_object_new_string(in));
    json_object_object_add(cfg, "output", json_object_new_string(out));
    json_object_object_add(cfg, "max_vertices", json_object_new_int64(io.max_vertices));
    if (have_split) {
        json_object *sp = json_object_new_array();
        for (int k = 0; k < 3; k++)
            json_object_array_add(sp, json_object_new_double(fr[k]));
        json_object_object_add(cfg, "split", sp);
    }
    int rc = finish_output(&ds, out, json, report, t0);
    if (rc == CLI_OK && (ds.stats.duplicates_merged || ds.stats.self_loops_dropped))
        printf("  %lld edge records read; %lld self-loops dropped; %lld duplicate entries merged%s\n",
               (long long)ds.stats.edges_read, (long long)ds.stats.self_loops_dropped,
               (long long)ds.stats.duplicates_merged, ds.stats.symmetrized ? " (after symmetrizing)" : "");
    gnn_dataset_free(&ds);
    return rc;
}

/* ---- info ---- */

static const char k_info_usage[] =
    "usage: gnnref info PATH|builtin [--json FILE]\n"
    "\n"
    "Open a dataset (a gnnref binary file, a text-layout or OGB directory, or 'builtin'),\n"
    "run every check (structure, ids, NaN/Inf features, labels, split codes; CRC32C for binary\n"
    "files) and print its counts: vertices, edges, degrees, features, classes with the label\n"
    "histogram and majority-class rate, split sizes, what the importer merged or dropped, and\n"
    "'checks: ok'.\n";

typedef struct degree_stats {
    int64_t min, max, isolated, self_loops;
    double mean;
    int symmetric;       /* 1 yes, 0 no, -1 unknown (rows not sorted) */
    int64_t no_reverse;  /* entries u in row v without v in row u */
} degree_stats;

/* Entries without a reverse, for a graph with sorted rows, in O(nnz): scanning v in
 * ascending order, the vertices v that list u arrive in ascending order, so they must match
 * row u front to back; a cursor per row consumes them. An entry without a reverse is seen
 * twice: when it is scanned (its reverse is not found in the other row) and from its own
 * row's cursor (it is skipped or left over), so the count is halved at the end.
 * Returns -1 when the cursor array cannot be allocated. */
static int64_t count_no_reverse(const gnn_csr *g)
{
    int64_t *pos = malloc(((size_t)g->n + 1) * sizeof(int64_t));
    if (!pos)
        return -1;
    memcpy(pos, g->indptr, (size_t)g->n * sizeof(int64_t));
    int64_t missing = 0;
    for (int64_t v = 0; v < g->n; v++)
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
            const int64_t u = g->indices[e], end = g->indptr[u + 1];
            while (pos[u] < end && g->indices[pos[u]] < v) {
                pos[u]++; /* u lists a vertex below v that does not list u */
                missing++;
            }
            if (pos[u] < end && g->indices[pos[u]] == v)
                pos[u]++;
            else
                missing++;
        }
    for (int64_t u = 0; u < g->n; u++)
        missing += g->indptr[u + 1] - pos[u];
    free(pos);
    return missing / 2;
}

static degree_stats graph_stats(const gnn_csr *g)
{
    degree_stats d = { 0, 0, 0, 0, 0.0, 1, 0 };
    d.min = g->n > 0 ? INT64_MAX : 0;
    for (int64_t v = 0; v < g->n; v++) {
        int64_t k = gnn_csr_degree(g, v);
        d.min = k < d.min ? k : d.min;
        d.max = k > d.max ? k : d.max;
        d.isolated += k == 0;
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
            d.self_loops += g->indices[e] == v;
            if (e > g->indptr[v] && g->indices[e] < g->indices[e - 1])
                d.symmetric = -1;
        }
    }
    d.mean = g->n > 0 ? (double)g->nnz / (double)g->n : 0.0;
    if (d.symmetric < 0)
        return d;
    d.no_reverse = count_no_reverse(g);
    d.symmetric = d.no_reverse == 0 ? 1 : d.no_reverse > 0 ? 0 : -1;
    return d;
}

static void info_labels(const gnn_dataset *ds, json_object *r)
{
    const int64_t n = ds->graph.n, c = ds->num_classes;
    if (!ds->labels) {
        printf("labels: none\n");
        return;
    }
    int64_t *hist = calloc((size_t)c + 1, sizeof(int64_t)); /* hist[c] = unlabelled */
    if (!hist)
        return;
    for (int64_t v = 0; v < n; v++)
        hist[ds->labels[v] < 0 ? c : ds->labels[v]]++;
    int64_t best = 0;
    for (int64_t k = 1; k < c; k++)
        if (hist[k] > hist[best])
            best = k;
    const int64_t labelled = n - hist[c];
    const double rate = labelled > 0 && c > 0 ? (double)hist[best] / (double)labelled : 0.0;
    printf("labels: %lld labelled, %lld unlabelled (-1)\nlabel histogram:", (long long)labelled, (long long)hist[c]);
    json_object *h = json_object_new_array();
    for (int64_t k = 0; k < c; k++) {
        if (k < 32)
            printf(" %lld:%lld", (long long)k, (long long)hist[k]);
        json_object_array_add(h, json_object_new_int64(hist[k]));
    }
    printf("%s\n", c > 32 ? " ..." : "");
    if (c > 0)
        printf("majority class: %lld (%lld vertices, rate %.4f of labelled)\n", (long long)best, (long long)hist[best], rate);
    json_object_object_add(r, "label_counts", h);
    json_object_object_add(r, "unlabelled", json_object_new_int64(hist[c]));
    json_object_object_add(r, "majority_class", json_object_new_int64(c > 0 ? best : -1));
    json_object_object_add(r, "majority_rate", json_object_new_double(rate));
    free(hist);
}

static void info_split(const gnn_dataset *ds, json_object *r)
{
    if (!ds->split) {
        printf("split: none (make one with gnnref convert --split TRAIN,VAL,TEST)\n");
        return;
    }
    int64_t cnt[4] = { 0, 0, 0, 0 };
    for (int64_t v = 0; v < ds->graph.n; v++)
        cnt[ds->split[v]]++; /* codes <= 3: checked by gnn_dataset_validate */
    printf("split: train %lld, val %lld, test %lld, none %lld\n", (long long)cnt[1], (long long)cnt[2],
           (long long)cnt[3], (long long)cnt[0]);
    json_object *s = json_object_new_object();
    json_object_object_add(s, "train", json_object_new_int64(cnt[1]));
    json_object_object_add(s, "val", json_object_new_int64(cnt[2]));
    json_object_object_add(s, "test", json_object_new_int64(cnt[3]));
    json_object_object_add(s, "none", json_object_new_int64(cnt[0]));
    json_object_object_add(r, "split", s);
}

/* `gnnref info DIR` on a partition set: gnn_partition_load checks every byte (manifest CRC,
 * section and whole-file CRCs, partmeta, id tables, the rebuilt graph's CRC). */
static int info_partition_set(const char *dir, const char *json)
{
    gnn_partition P;
    gnn_csr g;
    gnn_part_manifest m;
    gnn_err err = { "" };
    const double t0 = now_s();
    gnn_status s = gnn_partition_load(dir, &P, &g, &m, &err);
    if (s)
        return cli_error(cli_status_code(s), "%s", cli_errmsg(&err, s));
    const double t_load = now_s() - t0;
    printf("partition set: %s (dataset %s, %lld vertices, %lld edges; loaded and checked in %.3f s)\n", dir, m.dataset,
           (long long)m.n, (long long)m.nnz, t_load);
    printf("parts %lld, trainers per part %lld, method %s, seed %llu, edge cut %lld, set 0x%016llx\n", (long long)m.k,
           (long long)m.trainers, gnn_part_method_name(m.method), (unsigned long long)m.seed, (long long)m.edge_cut,
           (unsigned long long)m.set_id);
    json_object *cfg;
    json_object *r = cli_report_new("info", m.seed, cli_set_threads(0), "self", 1, &cfg);
    json_object_object_add(cfg, "path", json_object_new_string(dir));
    json_object_object_add(r, "kind", json_object_new_string("partition-set"));
    json_object_object_add(r, "parts", json_object_new_int64(m.k));
    json_object_object_add(r, "trainers", json_object_new_int64(m.trainers));
    json_object *pa = json_object_new_array();
    printf("%6s %10s %10s %10s %8s %8s %8s\n", "part", "solid", "halo", "edges", "train", "val", "test");
    int64_t halos = 0;
    for (int64_t p = 0; p < P.k; p++) {
        const gnn_part_local *L = &P.parts[p];
        halos += L->n_halo;
        printf("%6lld %10lld %10lld %10lld %8lld %8lld %8lld\n", (long long)p, (long long)L->n_solid,
               (long long)L->n_halo, (long long)L->graph.nnz, (long long)L->n_train, (long long)L->n_val,
               (long long)L->n_test);
        json_object *e = json_object_new_object();
        json_object_object_add(e, "solid", json_object_new_int64(L->n_solid));
        json_object_object_add(e, "halo", json_object_new_int64(L->n_halo));
        json_object_object_add(e, "edges", json_object_new_int64(L->graph.nnz));
        json_object_object_add(e, "train", json_object_new_int64(L->n_train));
        json_object_array_add(pa, e);
    }
    json_object_object_add(r, "per_part", pa);
    json_object_object_add(r, "halo_total", json_object_new_int64(halos));
    printf("checks: ok\n");
    json_object_object_add(r, "checks", json_object_new_string("ok"));
    json_object_object_add(r, "open_seconds", json_object_new_double(t_load));
    int rc = cli_report_write(r, json);
    json_object_put(r);
    gnn_partition_free(&P);
    gnn_csr_free(&g);
    return rc;
}

int gnn_cmd_info(int argc, char **argv)
{
    const char *path = NULL, *json = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (is_help(argv[i])) {
            fputs(k_info_usage, stdout);
            return CLI_OK;
        }
        if ((r = flag_arg(argc, argv, &i, "--json", &v))) {
            if (r < 0 || cli_report_check(v))
                return CLI_USAGE;
            json = v;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_error(CLI_USAGE, "info: unknown flag '%s' (see gnnref info --help)", argv[i]);
        } else if (!path) {
            path = argv[i];
        } else {
            return cli_error(CLI_USAGE, "info: more than one dataset ('%s' and '%s')", path, argv[i]);
        }
    }
    if (!path)
        return cli_error(CLI_USAGE, "info: PATH or 'builtin' is required (see gnnref info --help)");
    {
        /* a partition set: load and check all of it */
        char mpath[4096];
        snprintf(mpath, sizeof mpath, "%s/manifest.json", path);
        if (access(mpath, F_OK) == 0)
            return info_partition_set(path, json);
    }
    gnn_dataset ds;
    gnn_err err;
    double t0 = now_s();
    gnn_status s = gnn_dataset_open(&ds, path, &err);
    if (s)
        return cli_error(cli_status_code(s), "%s", cli_errmsg(&err, s));
    const double t_open = now_s() - t0;
    /* open already ran every check; run them again so "checks: ok" is said by this command */
    if ((s = gnn_dataset_validate(&ds, path, &err))) {
        gnn_dataset_free(&ds);
        return cli_error(cli_status_code(s), "%s", cli_errmsg(&err, s));
    }
    json_object *cfg;
    json_object *r = cli_report_new("info", 0, cli_set_threads(0), "self", 1, &cfg);
    json_object_object_add(cfg, "path", json_object_new_string(path));
    const char *kind = gnn_dataset_spec_kind(path);
    degree_stats d = graph_stats(&ds.graph);
    printf("dataset: %s (%s, %s, opened in %.3f s)\n", ds.name, path, kind ? kind : "?", t_open);
    printf("vertices: %lld\n", (long long)ds.graph.n);
    printf("edges: %lld (CSR entries, in-neighbors), self-loops %lld, symmetric ", (long long)ds.graph.nnz,
           (long long)d.self_loops);
    if (d.symmetric == 0)
        printf("no (%lld entries have no reverse)\n", (long long)d.no_reverse);
    else
        printf("%s\n", d.symmetric == 1 ? "yes" : "unknown (rows not sorted, or out of memory)");
    printf("degree: min %lld, mean %.2f, max %lld, isolated %lld\n", (long long)d.min, d.mean, (long long)d.max,
           (long long)d.isolated);
    printf("features: %lld (f32)\nclasses: %lld\n", (long long)ds.num_features, (long long)ds.num_classes);
    report_dataset(r, &ds);
    json_object_object_add(r, "kind", json_object_new_string(kind ? kind : "?"));
    json_object *dj = json_object_new_object();
    json_object_object_add(dj, "min", json_object_new_int64(d.min));
    json_object_object_add(dj, "mean", json_object_new_double(d.mean));
    json_object_object_add(dj, "max", json_object_new_int64(d.max));
    json_object_object_add(dj, "isolated", json_object_new_int64(d.isolated));
    json_object_object_add(r, "degree", dj);
    json_object_object_add(r, "self_loops", json_object_new_int64(d.self_loops));
    json_object_object_add(r, "symmetric", d.symmetric < 0 ? NULL : json_object_new_boolean(d.symmetric));
    info_labels(&ds, r);
    info_split(&ds, r);
    if (ds.stats.edges_read > 0)
        printf("import: %lld edge records read, %lld self-loops dropped, %lld duplicate entries merged%s\n",
               (long long)ds.stats.edges_read, (long long)ds.stats.self_loops_dropped,
               (long long)ds.stats.duplicates_merged, ds.stats.symmetrized ? " (after symmetrizing)" : "");
    if (ds.num_ext > 0) {
        /* extension sections: a partition file's id tables (docs/formats.md) */
        json_object *ej = json_object_new_object();
        printf("extension sections:");
        for (int i = 0; i < ds.num_ext; i++) {
            printf(" %s (%lld x %u B)", ds.ext[i].name, (long long)ds.ext[i].count, ds.ext[i].elem_size);
            json_object_object_add(ej, ds.ext[i].name, json_object_new_int64(ds.ext[i].count));
        }
        printf("\n");
        json_object_object_add(r, "extensions", ej);
        const gnn_format_ext *pm = gnn_dataset_ext(&ds, "partmeta");
        if (pm && pm->elem_size == 8 && pm->count >= GNN_PARTMETA_COUNT) {
            const int64_t *m = pm->data;
            printf("partition part %lld of %lld (set 0x%016llx): %lld solid, %lld halo of %lld global vertices, %lld "
                   "trainer%s\n",
                   (long long)m[GNN_PARTMETA_RANK], (long long)m[GNN_PARTMETA_K],
                   (unsigned long long)m[GNN_PARTMETA_SET_ID], (long long)m[GNN_PARTMETA_N_SOLID],
                   (long long)m[GNN_PARTMETA_N_HALO], (long long)m[GNN_PARTMETA_N], (long long)m[GNN_PARTMETA_TRAINERS],
                   m[GNN_PARTMETA_TRAINERS] == 1 ? "" : "s");
        }
    }
    printf("checks: ok\n");
    json_object_object_add(r, "checks", json_object_new_string("ok"));
    json_object_object_add(r, "open_seconds", json_object_new_double(t_open));
    int rc = cli_report_write(r, json);
    json_object_put(r);
    gnn_dataset_free(&ds);
    return rc;
}
