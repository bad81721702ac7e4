/* cli/plot_bench.c -- `gnnref plot --kind bench` (cli/plot.h, docs/plot.md): gnnref-bench
 * JSON (Google Benchmark's format), one bar per benchmark of the first throughput any of them
 * carries (k_metrics), coloured by implementation, the ceiling benchmarks (triad, copy,
 * gather-ceiling) drawn as dashed lines and a ceiling measured beside a benchmark as a point.
 * A missing key is `gnnref: error: FILE: ...` naming it, exit 2 (the shared helpers:
 * cli/plot_draw.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/plot.h"

typedef struct bench_row {
    char label[160];
    double value, ceiling; /* ceiling: the counter measured beside it (triad_GB/s, ceiling_GB/s) or NaN */
    int impl;              /* 1 ref, 2 cpu/opt, 3 blas, 4 other */
    int is_ceiling;        /* a triad, copy or gather-ceiling benchmark: drawn as a line */
} bench_row;

typedef struct bench_set {
    bench_row *rows;
    int n, n_left_out;
    char metric[32]; /* the throughput drawn */
} bench_set;

/* the throughputs a benchmark may carry, in order of preference; GB/s and bytes_per_second
 * (bytes per second, Google Benchmark's own) are one unit */
static const char *const k_metrics[] = { "GB/s", "edges_per_s", "edges/s", "items_per_second", "rows/s", "GFLOP/s",
                                         NULL };

static int bench_value(json_object *b, const char *metric, double *v)
{
    if (!strcmp(metric, "GB/s")) {
        if (plot_num(b, "GB/s", v) == 0)
            return 0;
        if (plot_num(b, "bytes_per_second", v) == 0) {
            *v *= 1e-9;
            return 0;
        }
        return -1;
    }
    json_object *x; /* "edges/s" holds a '/', not a path: look it up directly */
    if (!json_object_object_get_ex(b, metric, &x) || !plot_is_num(x))
        return -1;
    *v = json_object_get_double(x);
    return isfinite(*v) ? 0 : -1;
}

static int impl_of(const char *name)
{
    char buf[256];
    snprintf(buf, sizeof buf, "/%s/", name);
    if (strstr(buf, "/ref/"))
        return 1;
    if (strstr(buf, "/blas/"))
        return 3;
    if (strstr(buf, "/cpu/") || strstr(buf, "/opt/") || strstr(buf, "/fused/") || strstr(buf, "/unfused/"))
        return 2;
    return 4;
}

static int has_word(const char *s, const char *w)
{
    for (const char *p = s; *p; p++)
        if (!strncasecmp(p, w, strlen(w)))
            return 1;
    return 0;
}

/* quiet: no message (the sizing pass; the drawing pass says it) */
static int bench_read(const plot_input *in, int n, bench_set *s, int quiet)
{
    memset(s, 0, sizeof *s);
    int total = 0, any_mean = 0;
    for (int f = 0; f < n; f++) {
        json_object *list = plot_get(in[f].root, "benchmarks");
        if (!list || !json_object_is_type(list, json_type_array))
            return quiet ? CLI_USAGE
                         : plot_no_key(&in[f], "benchmarks", "Google Benchmark's list",
                                       "not gnnref-bench JSON (gnnref-bench --benchmark_format=json writes it)");
        total += (int)json_object_array_length(list);
        for (size_t i = 0; i < json_object_array_length(list); i++) {
            json_object *rt = plot_get(json_object_array_get_idx(list, i), "aggregate_name");
            any_mean |= rt && json_object_is_type(rt, json_type_string) && !strcmp(json_object_get_string(rt), "mean");
        }
    }
    /* the metric: the first of k_metrics that a benchmark has */
    for (int m = 0; k_metrics[m] && !s->metric[0]; m++)
        for (int f = 0; f < n && !s->metric[0]; f++) {
            json_object *list = plot_get(in[f].root, "benchmarks");
            for (size_t i = 0; i < json_object_array_length(list); i++) {
                double v;
                if (bench_value(json_object_array_get_idx(list, i), k_metrics[m], &v) == 0) {
                    snprintf(s->metric, sizeof s->metric, "%s", k_metrics[m]);
                    break;
                }
            }
        }
    if (!s->metric[0])
        return quiet ? CLI_USAGE
                     : plot_no_key(&in[0], "benchmarks[].GB/s",
                                   "or bytes_per_second, edges_per_s, items_per_second, GFLOP/s",
                                   "no benchmark has a throughput to draw");
    s->rows = calloc((size_t)(total > 0 ? total : 1), sizeof *s->rows);
    if (!s->rows)
        return quiet ? CLI_FAIL : cli_error(CLI_FAIL, "out of memory");
    for (int f = 0; f < n; f++) {
        json_object *list = plot_get(in[f].root, "benchmarks");
        for (size_t i = 0; i < json_object_array_length(list); i++) {
            json_object *b = json_object_array_get_idx(list, i);
            json_object *name = plot_get(b, any_mean ? "run_name" : "name"), *err = plot_get(b, "error_occurred"),
                        *agg = plot_get(b, "aggregate_name"), *type = plot_get(b, "run_type");
            if (!name || !json_object_is_type(name, json_type_string))
                name = plot_get(b, "name");
            if (!name || !json_object_is_type(name, json_type_string) || (err && json_object_get_boolean(err)))
                continue;
            const int is_agg = type && json_object_is_type(type, json_type_string) &&
                               !strcmp(json_object_get_string(type), "aggregate");
            if (any_mean ? !(is_agg && agg && !strcmp(json_object_get_string(agg), "mean")) : is_agg)
                continue;
            bench_row *r = &s->rows[s->n];
            if (bench_value(b, s->metric, &r->value) != 0) {
                s->n_left_out++;
                continue;
            }
            char nm[160];
            snprintf(nm, sizeof nm, "%s", json_object_get_string(name));
            const size_t len = strlen(nm);
            if (len > 10 && !strcmp(nm + len - 10, "/real_time"))
                nm[len - 10] = '\0';
            for (char *p = nm; *p; p++)
                if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
                    *p = '_';
            if (n > 1)
                snprintf(r->label, sizeof r->label, "%s: %s", in[f].name, nm);
            else
                snprintf(r->label, sizeof r->label, "%s", nm);
            r->impl = impl_of(nm);
            r->is_ceiling = has_word(nm, "triad") || has_word(nm, "copy") || has_word(nm, "ceiling");
            r->ceiling = NAN;
            if (!strcmp(s->metric, "GB/s") && plot_num(b, "triad_GB/s", &r->ceiling) != 0 &&
                plot_num(b, "ceiling_GB/s", &r->ceiling) != 0)
                r->ceiling = NAN;
            s->n++;
        }
    }
    return 0;
}

int plot_bench_rows(const plot_input *in, int n)
{
    bench_set s;
    if (bench_read(in, n, &s, 1))
        return 0;
    int bars = 0, ceilings = 0, beside = 0, impl[5] = { 0 };
    for (int i = 0; i < s.n; i++) {
        bars += !s.rows[i].is_ceiling;
        ceilings += s.rows[i].is_ceiling;
        beside |= !s.rows[i].is_ceiling && isfinite(s.rows[i].ceiling);
        impl[s.rows[i].impl] |= !s.rows[i].is_ceiling;
    }
    free(s.rows);
    return bars + (ceilings < 6 ? ceilings : 6) + beside + impl[1] + impl[2] + impl[3] + impl[4];
}

int plot_bench(const plot_ctx *c, const plot_input *in, int n)
{
    bench_set s;
    int rc = bench_read(in, n, &s, 0);
    if (rc) {
        free(s.rows);
        return rc;
    }
    int bars = 0, n_ceil = 0, n_beside = 0;
    double max = 0;
    for (int i = 0; i < s.n; i++) {
        bars += !s.rows[i].is_ceiling;
        n_ceil += s.rows[i].is_ceiling;
        n_beside += !s.rows[i].is_ceiling && isfinite(s.rows[i].ceiling);
        max = fmax(max, s.rows[i].value);
        if (isfinite(s.rows[i].ceiling))
            max = fmax(max, s.rows[i].ceiling);
    }
    if (!bars) {
        free(s.rows);
        return plot_no_key(&in[0], "benchmarks", "a benchmark besides the ceilings",
                           "only triad, copy or ceiling benchmarks: nothing to compare with them");
    }
    if (s.n_left_out)
        printf("plot: %d benchmark(s) without %s left out\n", s.n_left_out, s.metric);
    if (!n_ceil)
        printf("plot: no ceiling benchmark (triad, copy or gather-ceiling) in this run: no ceiling line\n");
    char path[4200];
    FILE *f = plot_data_file(c, "bench.dat", path, sizeof path);
    if (!f) {
        free(s.rows);
        return CLI_FAIL;
    }
    for (int i = 0; i < s.n; i++) {
        if (s.rows[i].is_ceiling)
            continue;
        fprintf(f, "\"%s\" %.9g %d", s.rows[i].label, s.rows[i].value, s.rows[i].impl);
        plot_put_num(f, s.rows[i].ceiling);
        fputc('\n', f);
    }
    if (plot_close_data(f, path)) {
        free(s.rows);
        return CLI_FAIL;
    }
    FILE *gp = c->gp;
    char desc[96];
    snprintf(desc, sizeof desc, "throughput per benchmark (%s)", s.metric);
    plot_panel_title_at(c, desc, 1);
    /* the key in the bottom left corner of the picture, below the axis, one entry a line */
    int entries = (n_beside > 0) + (n_ceil < 6 ? n_ceil : 6);
    for (int m = 1; m <= 4; m++)
        for (int i = 0; i < s.n; i++)
            if (!s.rows[i].is_ceiling && s.rows[i].impl == m) {
                entries++;
                break;
            }
    fprintf(gp, "set key at screen 0.01, screen 0.01 left bottom vertical Left reverse maxcols 1\nset bmargin %d\n",
            entries + 4);
    fprintf(gp, "set datafile missing '?'\nset xlabel '%s'\nset xrange [0:%.9g]\nset yrange [%d.6:-0.6]\n"
                "set ytics scale 0 font ',8'\nset grid xtics\nset style fill solid 0.85 "
                "border -1\nset linetype 1 lc rgb '#7f7f7f'\nset linetype 2 lc rgb '#1f77b4'\nset linetype 3 lc rgb "
                "'#2ca02c'\nset linetype 4 lc rgb '#9467bd'\n",
            s.metric, max * 1.08 > 0 ? max * 1.08 : 1.0, bars - 1);
    /* the ceilings: a vertical dashed line each (at most 6), named in the key */
    static const char *const ceil_colors[] = { "#d62728", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#bcbd22" };
    int k = 0;
    for (int i = 0; i < s.n && k < 6; i++) {
        if (!s.rows[i].is_ceiling)
            continue;
        fprintf(gp, "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead dt 2 lw 2 lc rgb '%s' front\n",
                s.rows[i].value, s.rows[i].value, ceil_colors[k]);
        k++;
    }
    fputs("plot ", gp);
    plot_gp_string(gp, path);
    fputs(" using ($2/2):0:($2/2):(0.38):3:yticlabels(1) with boxxyerror lc variable notitle", gp);
    static const char *const impl_names[] = { "", "ref", "optimized (cpu, fused, ...)", "blas", "other" };
    for (int m = 1; m <= 4; m++) {
        int used = 0;
        for (int i = 0; i < s.n; i++)
            used |= !s.rows[i].is_ceiling && s.rows[i].impl == m;
        if (used)
            fprintf(gp, ", \\\n     keyentry with boxes lt %d title '%s'", m, impl_names[m]);
    }
    if (n_beside) {
        fputs(", \\\n     ", gp);
        plot_gp_string(gp, path);
        fputs(" using 4:0 with points pt 3 ps 1.2 lc rgb 'black' title 'ceiling measured beside each (triad_GB/s or "
              "ceiling_GB/s)'",
              gp);
    }
    k = 0;
    for (int i = 0; i < s.n && k < 6; i++) {
        if (!s.rows[i].is_ceiling)
            continue;
        char title[220];
        snprintf(title, sizeof title, "ceiling: %s (%.3g %s)", s.rows[i].label, s.rows[i].value, s.metric);
        fprintf(gp, ", \\\n     keyentry with lines dt 2 lw 2 lc rgb '%s' title ", ceil_colors[k]);
        plot_gp_string(gp, title);
        k++;
    }
    fputc('\n', gp);
    free(s.rows);
    return 0;
}
