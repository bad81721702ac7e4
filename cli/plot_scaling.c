/* cli/plot_scaling.c -- `gnnref plot --kind scaling` (cli/plot.h, docs/plot.md): reports of
 * one job at several rank counts, seconds per epoch against ranks: the mean measured epoch
 * time of each report, per backend, and the simulator's prediction (sim.predicted_epoch_s)
 * where the reports carry one. The reports must be the same job (their configuration but the
 * ranks, k_same_job) at two or more rank counts; a missing key is `gnnref: error: FILE: ...`
 * naming it, exit 2 (the shared helpers: cli/plot_draw.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/plot.h"

#define MAX_SERIES 8

typedef struct scale_pt {
    double ranks, measured, predicted;
    const char *backend;
} scale_pt;

static int by_ranks(const void *a, const void *b)
{
    const double x = ((const scale_pt *)a)->ranks, y = ((const scale_pt *)b)->ranks;
    return (x > y) - (x < y);
}

/* the configuration that makes two reports the same job (everything but the ranks) */
static const char *const k_same_job[] = { "data", "model", "mode", "layers", "hidden", "fanouts", "batch", "remote",
                                          "sampling", "heads", NULL };

/* Report i is the same job as report 0: every key of k_same_job in its configuration is the
 * same JSON. 0, or the message printed (CLI_USAGE). */
static int same_job(const plot_input *in, int i)
{
    int rc = 0;
    for (int q = 0; k_same_job[q]; q++) {
        char key[64];
        snprintf(key, sizeof key, "config.%s", k_same_job[q]);
        json_object *x = plot_get(in[0].root, key), *y = plot_get(in[i].root, key);
        const char *sx = x ? json_object_to_json_string(x) : "null";
        char *sx_copy = strdup(sx);
        const char *sy = y ? json_object_to_json_string(y) : "null";
        if (sx_copy && strcmp(sx_copy, sy) != 0)
            rc = cli_error(CLI_USAGE, "%s and %s are not the same job: \"%s\" is %s in one and %s in the other "
                                      "(--kind scaling compares one job at several rank counts)",
                           in[0].path, in[i].path, key, sx_copy, sy);
        free(sx_copy);
        if (rc)
            break;
    }
    return rc;
}

/* Report i's point: its ranks, its mean measured epoch time, its predicted one (NaN when it
 * has none; *n_pred counts those it has) and its backend. 0, or the message printed. */
static int read_point(const plot_input *in, int i, scale_pt *pt, int *n_pred)
{
    json_object *list;
    int rc = plot_epochs_of(&in[i], &list);
    if (rc)
        return rc;
    if (plot_num(in[i].root, "ranks", &pt->ranks) != 0 || pt->ranks < 1)
        return plot_no_key(&in[i], "ranks", "the rank count, 1 or more", "the reports are placed by it");
    double sum = 0;
    int k = 0;
    for (size_t e = 0; e < json_object_array_length(list); e++) {
        double t;
        if (plot_num(json_object_array_get_idx(list, e), "time_s", &t) == 0) {
            sum += t;
            k++;
        }
    }
    if (!k)
        return plot_no_key(&in[i], "epochs[0].time_s", "seconds", "the measured time per epoch is drawn from it");
    pt->measured = sum / k;
    pt->predicted = NAN;
    if (plot_num(in[i].root, "sim.predicted_epoch_s", &pt->predicted) == 0 && pt->predicted > 0)
        (*n_pred)++;
    else
        pt->predicted = NAN;
    json_object *b = plot_get(in[i].root, "backend");
    pt->backend = b && json_object_is_type(b, json_type_string) ? json_object_get_string(b) : "?";
    return 0;
}

/* The points of the n reports, sorted by ranks: each read, each the same job as the first, at
 * two or more rank counts. 0, or the message printed. */
static int read_points(const plot_input *in, int n, scale_pt *pt, int *n_pred)
{
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        rc = read_point(in, i, &pt[i], n_pred);
        if (!rc && i > 0)
            rc = same_job(in, i);
    }
    if (rc)
        return rc;
    qsort(pt, (size_t)n, sizeof *pt, by_ranks);
    int distinct = 0;
    for (int i = 0; i < n; i++)
        distinct += i == 0 || pt[i].ranks != pt[i - 1].ranks;
    if (distinct < 2)
        return cli_error(CLI_USAGE, "plot: every report is of %g ranks: --kind scaling needs reports at two or more "
                                    "rank counts",
                         pt[0].ranks);
    return 0;
}

/* The data file: index 0 the predicted points (a dummy point when there is none), then one
 * index block per backend, its measured points. 0, or CLI_FAIL with the error printed. */
static int write_data(const plot_ctx *c, const scale_pt *pt, int n, int n_pred, const char *const *backends,
                      int n_b, char *path, size_t cap)
{
    FILE *f = plot_data_file(c, "scaling.dat", path, cap);
    if (!f)
        return CLI_FAIL;
    for (int i = 0; i < n; i++)
        if (isfinite(pt[i].predicted))
            fprintf(f, "%.9g %.9g\n", pt[i].ranks, pt[i].predicted);
    fputs(n_pred ? "\n\n" : "1 1\n\n\n", f); /* index 0 holds a dummy point when there is no prediction */
    for (int b = 0; b < n_b; b++) {
        for (int i = 0; i < n; i++)
            if (!strcmp(pt[i].backend, backends[b]))
                fprintf(f, "%.9g %.9g\n", pt[i].ranks, pt[i].measured);
        fputs("\n\n", f);
    }
    return plot_close_data(f, path) ? CLI_FAIL : 0;
}

/* The script: log2 rank axis with a tic at each rank count, the predicted line (dashed) when
 * there is one, a measured line per backend. */
static void write_script(const plot_ctx *c, const scale_pt *pt, int n, int n_pred, const char *const *backends,
                         int n_b, const char *path)
{
    FILE *gp = c->gp;
    plot_panel_title(c, "seconds per epoch against ranks");
    fputs("set xlabel 'ranks'\nset ylabel 'seconds per epoch'\nset logscale x 2\nset grid\nset key below vertical\n"
          "set yrange [0:*]\nset xtics (",
          gp);
    for (int i = 0, k = 0; i < n; i++)
        if (i == 0 || pt[i].ranks != pt[i - 1].ranks)
            fprintf(gp, "%s%.9g", k++ ? ", " : "", pt[i].ranks);
    fprintf(gp, ")\nset xrange [%.9g:%.9g]\n", pt[0].ranks / 1.25, pt[n - 1].ranks * 1.25);
    int first = 1;
    if (n_pred) {
        fputs("plot ", gp);
        plot_gp_string(gp, path);
        fputs(" index 0 using 1:2 with linespoints pt 5 ps 1 lw 2 dt 2 title 'predicted (the simulator''s model: "
              "sim.predicted_epoch_s)'",
              gp);
        first = 0;
    }
    for (int b = 0; b < n_b; b++) {
        char title[160];
        snprintf(title, sizeof title, "measured (mean epoch time_s), backend %s%s", backends[b],
                 !strcmp(backends[b], "sim") ? ": every rank on this machine" : "");
        fputs(first ? "plot " : ", \\\n     ", gp);
        plot_gp_string(gp, path);
        fprintf(gp, " index %d using 1:2 with linespoints pt 7 ps 1 lw 2 title ", b + 1);
        plot_gp_string(gp, title);
        first = 0;
    }
    fputc('\n', gp);
}

int plot_scaling(const plot_ctx *c, const plot_input *in, int n)
{
    if (n < 2)
        return cli_error(CLI_USAGE, "plot: --kind scaling needs two or more reports (one job at several rank "
                                    "counts); given %d",
                         n);
    scale_pt *pt = calloc((size_t)n, sizeof *pt);
    if (!pt)
        return cli_error(CLI_FAIL, "out of memory");
    int n_pred = 0;
    int rc = read_points(in, n, pt, &n_pred);
    if (rc) {
        free(pt);
        return rc;
    }
    /* the series: predicted, then measured per backend (index blocks of one data file) */
    const char *backends[MAX_SERIES];
    int n_b = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int b = 0; b < n_b; b++)
            seen |= !strcmp(backends[b], pt[i].backend);
        if (!seen && n_b < MAX_SERIES)
            backends[n_b++] = pt[i].backend;
    }
    char path[4200];
    if ((rc = write_data(c, pt, n, n_pred, backends, n_b, path, sizeof path)) == 0)
        write_script(c, pt, n, n_pred, backends, n_b, path);
    free(pt);
    return rc;
}
