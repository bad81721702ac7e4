/* cli/cmd_plot.c -- `gnnref plot REPORT.json... -o OUT.png`: pictures of gnnref reports and
 * gnnref-bench JSON, drawn by gnuplot (docs/plot.md). This file: the flags, the inputs (read
 * with json-c and told apart by their keys), the choice of picture, and the run: a private
 * temporary directory holds the data files, the script and gnuplot's output; gnuplot, found on
 * PATH at run time (ci/install-deps.sh plot installs it), runs with a timeout; the PNG is
 * checked and copied to OUT.png; the directory is removed on every path. The pictures
 * themselves: cli/plot_draw.c; the process and file handling: cli/plot_run.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/flags.h"
#include "cli/plot.h"

#define DEFAULT_TIMEOUT_S 60.0

typedef struct plot_opts {
    const char *output, *title;
    int kind;
    int size[2]; /* 0, 0: chosen by the picture */
} plot_opts;

static const cli_choice k_kinds[] = {
    { "auto", PLOT_AUTO, 0 },      { "loss", PLOT_LOSS, 0 },       { "phases", PLOT_PHASES, 0 },
    { "traffic", PLOT_TRAFFIC, 0 }, { "ranks", PLOT_RANKS, 0 },     { "scaling", PLOT_SCALING, 0 },
    { "bench", PLOT_BENCH, 0 },    { NULL, 0, 0 },
};

static int parse_size(const char *arg, void *dst, char *why, size_t cap)
{
    int w = 0, h = 0, used = 0;
    if (!strcmp(arg, "auto")) {
        memset(dst, 0, 2 * sizeof(int));
        return 0;
    }
    if (sscanf(arg, "%5dx%5d%n", &w, &h, &used) != 2 || arg[used] != '\0' || w < 64 || h < 64 || w > 10000 ||
        h > 10000) {
        snprintf(why, cap, "expected WIDTHxHEIGHT in pixels, each in 64..10000 (800x500), or auto");
        return 1;
    }
    const int v[2] = { w, h };
    memcpy(dst, v, sizeof v);
    return 0;
}

static json_object *size_json(const void *src)
{
    int v[2];
    char buf[32];
    memcpy(v, src, sizeof v);
    if (v[0] <= 0)
        return json_object_new_string("auto");
    snprintf(buf, sizeof buf, "%dx%d", v[0], v[1]);
    return json_object_new_string(buf);
}

static const cli_flag k_flags[] = {
    { .name = "output", .alias = 'o', .type = CLI_STR, CLI_AT(plot_opts, output), .meta = "OUT.png",
      .bits = CLI_REQUIRED, .help = "the PNG to write (replaced whole once gnuplot has drawn it)" },
    { .name = "kind", .type = CLI_CHOICE, CLI_AT(plot_opts, kind), .choices = k_kinds,
      .help = "the picture: loss (loss and accuracy per epoch), phases (seconds per phase per epoch), traffic "
              "(the rank-to-rank bytes as a heat map), ranks (seconds per phase per rank), scaling (seconds per "
              "epoch against ranks, several reports), bench (gnnref-bench throughput with the ceiling); auto "
              "chooses from the inputs: loss above phases for a single-rank train report, traffic beside ranks for "
              "a distributed one, scaling for several reports, bench for gnnref-bench JSON" },
    { .name = "title", .type = CLI_STR, CLI_AT(plot_opts, title), .meta = "TEXT", .dflt = "from the report",
      .help = "the picture's title" },
    { .name = "size", .type = CLI_CUSTOM, CLI_AT(plot_opts, size), .meta = "WxH", .parse = parse_size,
      .json = size_json, .help = "the PNG's size in pixels; auto fits the picture" },
    CLI_END
};

static const cli_group k_groups[] = { { k_flags, 0, NULL }, { NULL, 0, NULL } };

static const cli_command k_cmd = {
    .name = "plot",
    .usage = "REPORT.json... -o OUT.png [flags]",
    .preface = "Draw gnnref JSON reports (--json FILE of train and the other subcommands) or gnnref-bench's JSON\n"
               "(--benchmark_format=json) as a PNG with gnuplot, found on PATH (install it with\n"
               "`ci/install-deps.sh plot` or `apt-get install gnuplot-nox`). The inputs are the positional\n"
               "arguments: one report, several reports of one job at different rank counts, or gnnref-bench\n"
               "JSON. What each picture shows: docs/plot.md.\n",
    .epilogue = "Exit status: 0 drawn; 1 gnuplot failed or timed out (GNNREF_PLOT_TIMEOUT, default 60 s);\n"
                "2 bad usage, an input that lacks what the picture needs (the message names the file and the\n"
                "key), or no gnuplot (GNNREF_GNUPLOT names one that is not on PATH).\n",
    .groups = k_groups,
};

/* ---- the inputs ---- */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

static int read_input(const char *path, plot_input *in)
{
    memset(in, 0, sizeof *in);
    in->path = path;
    in->name = base_name(path);
    struct stat st;
    if (stat(path, &st) != 0)
        return cli_error(CLI_USAGE, "%s: cannot read it: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return cli_error(CLI_USAGE, "%s: is a directory, not a JSON report", path);
    in->root = json_object_from_file(path);
    if (!in->root) {
        char msg[512];
        const char *e = json_util_get_last_err();
        snprintf(msg, sizeof msg, "%s", e ? e : "unknown error");
        for (size_t n = strlen(msg); n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r');)
            msg[--n] = '\0';
        return cli_error(CLI_USAGE, "%s: not a gnnref report: cannot read it as JSON (%s)", path, msg);
    }
    if (!json_object_is_type(in->root, json_type_object))
        return cli_error(CLI_USAGE, "%s: not a gnnref report: the JSON is not an object", path);
    json_object *b = plot_get(in->root, "benchmarks"), *c = plot_get(in->root, "command");
    if (b && json_object_is_type(b, json_type_array)) {
        in->is_bench = 1;
        return 0;
    }
    if (!c || !json_object_is_type(c, json_type_string))
        return cli_error(CLI_USAGE, "%s: not a gnnref report: no \"command\" key (nor gnnref-bench's \"benchmarks\")",
                         path);
    return 0;
}

/* The inputs are the positional arguments, as many as given: they are taken out of argv
 * before the table's parser reads the flags (a flag's value stays with its flag). */
static int split_args(int argc, char **argv, char **flags, int *n_flags, const char **inputs, int *n_inputs)
{
    int only_pos = 0;
    *n_flags = 0;
    *n_inputs = 0;
    flags[(*n_flags)++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!only_pos && !strcmp(a, "--")) {
            only_pos = 1;
            continue;
        }
        if (only_pos || a[0] != '-' || a[1] == '\0') {
            inputs[(*n_inputs)++] = a;
            continue;
        }
        flags[(*n_flags)++] = argv[i];
        const cli_flag *f = NULL;
        if (a[1] == '-' && !strchr(a, '=')) {
            for (const cli_flag *p = k_flags; p->name; p++)
                if (!strcmp(p->name, a + 2))
                    f = p;
        } else if (a[1] != '-' && a[2] == '\0') {
            for (const cli_flag *p = k_flags; p->name; p++)
                if (p->alias == a[1])
                    f = p;
        }
        if (f && f->type != CLI_BOOL && i + 1 < argc)
            flags[(*n_flags)++] = argv[++i];
    }
    flags[*n_flags] = NULL;
    return 0;
}

/* ---- the choice of picture ---- */

static const char *kind_name(int k)
{
    for (const cli_choice *c = k_kinds; c->name; c++)
        if (c->value == k)
            return c->name;
    return k == PLOT_TRAIN ? "loss+phases" : k == PLOT_DIST ? "traffic+ranks" : "?";
}

static int choose(int kind, const plot_input *in, int n, int *out)
{
    int benches = 0;
    for (int i = 0; i < n; i++)
        benches += in[i].is_bench;
    if (benches && benches < n) {
        const plot_input *b = NULL, *r = NULL;
        for (int i = 0; i < n; i++)
            *(in[i].is_bench ? &b : &r) = &in[i];
        return cli_error(CLI_USAGE, "%s is gnnref-bench JSON and %s a gnnref report: draw them separately", b->path,
                         r->path);
    }
    if (kind == PLOT_AUTO) {
        if (benches)
            kind = PLOT_BENCH;
        else if (n > 1)
            kind = PLOT_SCALING;
        else {
            double ranks = 1;
            plot_num(in[0].root, "ranks", &ranks);
            if (ranks > 1 && plot_get(in[0].root, "comm.matrix.bytes"))
                kind = PLOT_DIST;
            else if (plot_get(in[0].root, "epochs"))
                kind = PLOT_TRAIN;
            else
                return cli_error(CLI_USAGE, "%s: nothing to draw in this \"%s\" report: no \"epochs\" key (train "
                                            "reports) and no \"comm.matrix.bytes\" of several ranks",
                                 in[0].path, json_object_get_string(plot_get(in[0].root, "command")));
        }
    } else if (kind == PLOT_BENCH) {
        if (!benches)
            return cli_error(CLI_USAGE, "%s: --kind bench draws gnnref-bench JSON: no \"benchmarks\" key (it is a "
                                        "gnnref \"%s\" report)",
                             in[0].path, json_object_get_string(plot_get(in[0].root, "command")));
    } else {
        if (benches)
            return cli_error(CLI_USAGE, "%s: --kind %s draws gnnref reports, and this is gnnref-bench JSON (no "
                                        "\"command\" key)",
                             in[0].path, kind_name(kind));
        if (kind != PLOT_SCALING && n != 1)
            return cli_error(CLI_USAGE, "plot: --kind %s draws one report; given %d (several reports: --kind scaling)",
                             kind_name(kind), n);
    }
    *out = kind;
    return 0;
}

/* The title made from the report: "FILE: train sage on DATA, 4 ranks (sim)". */
static void default_title(int kind, const plot_input *in, int n, char *buf, size_t cap)
{
    if (kind == PLOT_BENCH) {
        json_object *host = plot_get(in[0].root, "context.host_name");
        snprintf(buf, cap, "%s%s: gnnref-bench%s%s", in[0].name, n > 1 ? " ..." : "", host ? " on " : "",
                 host ? json_object_get_string(host) : "");
        return;
    }
    json_object *cmd = plot_get(in[0].root, "command"), *model = plot_get(in[0].root, "config.model"),
                *data = plot_get(in[0].root, "config.data"), *parts = plot_get(in[0].root, "config.partitions"),
                *backend = plot_get(in[0].root, "backend");
    const char *d = data && json_object_is_type(data, json_type_string) ? json_object_get_string(data)
                    : parts && json_object_is_type(parts, json_type_string) ? json_object_get_string(parts)
                                                                              : NULL;
    double ranks = 1;
    plot_num(in[0].root, "ranks", &ranks);
    char what[256];
    snprintf(what, sizeof what, "%s%s%s%s%s", cmd ? json_object_get_string(cmd) : "report",
             model && json_object_is_type(model, json_type_string) ? " " : "",
             model && json_object_is_type(model, json_type_string) ? json_object_get_string(model) : "",
             d ? " on " : "", d ? base_name(d) : "");
    if (kind == PLOT_SCALING)
        snprintf(buf, cap, "%s ... (%d reports): %s", in[0].name, n, what);
    else
        snprintf(buf, cap, "%s: %s, %g rank%s (%s)", in[0].name, what, ranks, ranks == 1 ? "" : "s",
                 backend ? json_object_get_string(backend) : "?");
}

static void default_size(int kind, const plot_input *in, int n, int *w, int *h)
{
    switch (kind) {
    case PLOT_TRAFFIC: *w = 640, *h = 560; break;
    case PLOT_TRAIN: *w = 820, *h = 900; break;
    case PLOT_DIST: *w = 1240, *h = 560; break;
    case PLOT_BENCH: {
        const int rows = plot_bench_rows(in, n);
        *w = 1000;
        *h = 150 + 18 * rows;
        *h = *h < 380 ? 380 : *h > 8000 ? 8000 : *h;
        break;
    }
    default: *w = 820, *h = 500; break;
    }
}

/* ---- the script ---- */

static int write_script(const plot_ctx *base, int kind, const plot_input *in, int n, int w, int h, const char *png)
{
    FILE *gp = base->gp;
    fprintf(gp, "# gnnref plot: --kind %s\n", kind_name(kind));
    fprintf(gp, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                "    set terminal pngcairo size %d,%d noenhanced font 'sans,10'\n"
                "} else {\n"
                "    set terminal png size %d,%d noenhanced\n"
                "}\nset output ",
            w, h, w, h);
    plot_gp_string(gp, png);
    fputc('\n', gp);
    plot_ctx c = *base;
    int rc = 0;
    if (kind == PLOT_TRAIN || kind == PLOT_DIST) {
        c.multi = 1;
        fprintf(gp, "set multiplot layout %s title ", kind == PLOT_TRAIN ? "2,1" : "1,2");
        plot_gp_string(gp, c.title);
        fputc('\n', gp);
        if (kind == PLOT_TRAIN) {
            rc = plot_loss(&c, in);
            fputs("reset\n", gp);
            rc = rc ? rc : plot_phases(&c, in);
        } else {
            rc = plot_traffic(&c, in);
            fputs("reset\n", gp);
            /* a distributed report without per-rank times: the heat map alone, on the left */
            rc = rc ? rc : plot_get(in[0].root, "per_rank") ? plot_ranks(&c, in) : 0;
        }
        fputs("unset multiplot\n", gp);
    } else {
        switch (kind) {
        case PLOT_LOSS: rc = plot_loss(&c, in); break;
        case PLOT_PHASES: rc = plot_phases(&c, in); break;
        case PLOT_TRAFFIC: rc = plot_traffic(&c, in); break;
        case PLOT_RANKS: rc = plot_ranks(&c, in); break;
        case PLOT_SCALING: rc = plot_scaling(&c, in, n); break;
        case PLOT_BENCH: rc = plot_bench(&c, in, n); break;
        default: rc = cli_error(CLI_FAIL, "plot: internal: kind %d", kind);
        }
    }
    fputs("set output\n", gp);
    return rc;
}

/* The end of gnuplot's log, after its error line. */
static void show_log(const char *log)
{
    FILE *f = fopen(log, "r");
    if (!f)
        return;
    char buf[2048];
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, size > (long)sizeof buf - 1 ? size - (long)sizeof buf + 1 : 0, SEEK_SET);
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    if (n)
        fprintf(stderr, "gnuplot said:\n%s%s", buf, buf[n - 1] == '\n' ? "" : "\n");
}

static double plot_timeout(void)
{
    const char *s = getenv("GNNREF_PLOT_TIMEOUT");
    double t;
    if (!s || !s[0])
        return DEFAULT_TIMEOUT_S;
    if (cli_parse_f64(s, 0.001, 86400.0, &t) != 0)
        return -1;
    return t;
}

int gnn_cmd_plot(int argc, char **argv)
{
    plot_opts o = { .output = NULL, .title = NULL, .kind = PLOT_AUTO, .size = { 0, 0 } };
    cli_args a;
    char **flags = calloc((size_t)argc + 1, sizeof *flags);
    const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    plot_input *in = calloc((size_t)argc + 1, sizeof *in);
    int n_flags = 0, n_in = 0, rc = CLI_OK, kind = PLOT_AUTO;
    plot_tmp tmp = { .dir = "" };
    if (!flags || !inputs || !in) {
        rc = cli_error(CLI_FAIL, "out of memory");
        goto done;
    }
    split_args(argc, argv, flags, &n_flags, inputs, &n_in);
    rc = cli_parse(&k_cmd, n_flags, flags, &o, &a);
    if (rc != CLI_CONTINUE)
        goto done;
    rc = CLI_OK;
    const double timeout_s = plot_timeout();
    if (timeout_s < 0) {
        rc = cli_error(CLI_USAGE, "GNNREF_PLOT_TIMEOUT '%s': expected seconds, a number in (0, 86400]",
                       getenv("GNNREF_PLOT_TIMEOUT"));
        goto done;
    }
    if (n_in == 0) {
        rc = cli_error(CLI_USAGE, "plot: REPORT.json is required (one or more gnnref reports, or gnnref-bench JSON; "
                                  "see gnnref plot --help)");
        goto done;
    }
    if ((rc = cli_output_check("-o", o.output)))
        goto done;
    for (int i = 0; i < n_in; i++)
        if ((rc = read_input(inputs[i], &in[i])))
            goto done;
    if ((rc = choose(o.kind, in, n_in, &kind)))
        goto done;
    int w = o.size[0], h = o.size[1];
    if (w <= 0)
        default_size(kind, in, n_in, &w, &h);
    char title[1024];
    if (o.title)
        snprintf(title, sizeof title, "%s", o.title);
    else
        default_title(kind, in, n_in, title, sizeof title);

    /* the data and the script, in the private directory (the checks of each picture's keys
     * happen here: a missing key ends the run before gnuplot is looked for) */
    if (plot_tmp_open(&tmp)) {
        rc = CLI_FAIL;
        goto done;
    }
    char script[4200], png[4200], log[4200], gnuplot[4096];
    FILE *gp = plot_tmp_file(&tmp, "plot.gp", script, sizeof script);
    if (!gp) {
        rc = CLI_FAIL;
        goto done;
    }
    plot_tmp_path(&tmp, "out.png", png, sizeof png);
    plot_tmp_path(&tmp, "gnuplot.log", log, sizeof log);
    const plot_ctx ctx = { .tmp = &tmp, .gp = gp, .title = title, .exact = o.title != NULL, .multi = 0 };
    rc = write_script(&ctx, kind, in, n_in, w, h, png);
    if (fclose(gp) != 0 && !rc)
        rc = cli_error(CLI_FAIL, "plot: cannot write '%s'", script);
    if (rc)
        goto done;

    if (plot_find_gnuplot(gnuplot, sizeof gnuplot) != 0) {
        if (getenv("GNNREF_GNUPLOT") && getenv("GNNREF_GNUPLOT")[0])
            rc = cli_error(CLI_USAGE, "plot: GNNREF_GNUPLOT '%s' is not an executable file", getenv("GNNREF_GNUPLOT"));
        else
            rc = cli_error(CLI_USAGE, "plot: gnuplot is not installed (not found on PATH): install it with "
                                      "`ci/install-deps.sh plot` or `apt-get install gnuplot-nox`");
        goto done;
    }
    char why[512];
    if (plot_run_gnuplot(gnuplot, script, log, timeout_s, why, sizeof why) != 0) {
        rc = cli_error(CLI_FAIL, "plot: %s", why);
        show_log(log);
        goto done;
    }
    uint32_t pw, ph;
    if (plot_png_size(png, &pw, &ph) != 0) {
        rc = cli_error(CLI_FAIL, "plot: gnuplot exited 0 but wrote no valid PNG (%s)", gnuplot);
        show_log(log);
        goto done;
    }
    if ((rc = plot_install(png, o.output)))
        goto done;
    printf("plot: wrote %s (%s, %ux%u)\n", o.output, kind_name(kind), pw, ph);
done:
    plot_tmp_close(&tmp);
    for (int i = 0; in && i < n_in; i++)
        if (in[i].root)
            json_object_put(in[i].root);
    free(in);
    free(inputs);
    free(flags);
    return rc;
}
