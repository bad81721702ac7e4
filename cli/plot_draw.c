/* cli/plot_draw.c -- the pictures of `gnnref plot` (cli/plot.h, docs/plot.md): for each kind,
 * the checks of the keys it reads (a missing or malformed one is `gnnref: error: FILE: ...`
 * naming the key, exit 2), its data files in the temporary directory and its part of the
 * gnuplot script. The keys are those of DESIGN.md section 6 and of the train report
 * (cli/train_report.c, cli/backend.c); gnnref-bench's are Google Benchmark's JSON format. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/plot.h"

#define MAX_PHASES 16
#define MAX_SERIES 8

/* ---- JSON helpers ---- */

json_object *plot_get(json_object *o, const char *path)
{
    char key[128];
    while (o && *path) {
        const size_t len = strcspn(path, ".");
        if (len >= sizeof key || !json_object_is_type(o, json_type_object))
            return NULL;
        memcpy(key, path, len);
        key[len] = '\0';
        json_object *next = NULL;
        if (!json_object_object_get_ex(o, key, &next))
            return NULL;
        o = next;
        path += len + (path[len] == '.');
    }
    return o;
}

static int is_num(json_object *v) { return json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double); }

int plot_num(json_object *o, const char *path, double *out)
{
    json_object *v = plot_get(o, path);
    if (!v || !is_num(v))
        return -1;
    *out = json_object_get_double(v);
    return isfinite(*out) && fabs(*out) < 1e100 ? 0 : -1; /* gnuplot takes larger ones for undefined */
}

/* `FILE: no "KEY" (WANT) in it: WHY`, exit 2 */
static int no_key(const plot_input *in, const char *key, const char *want, const char *why)
{
    return cli_error(CLI_USAGE, "%s: no \"%s\" (%s) in it: %s", in->path, key, want, why);
}

/* `FILE: "KEY" is not WANT: WHY`, exit 2 */
static int bad_key(const plot_input *in, const char *key, const char *want, const char *why)
{
    return cli_error(CLI_USAGE, "%s: \"%s\" is not %s: %s", in->path, key, want, why);
}

/* ---- titles and shared settings ---- */

/* The panel's title: its description in a multiplot, --title as given, else the report's
 * title and the description. on_canvas: centred on the picture, not on the plot (whose left
 * edge moves with long tic labels). */
static void panel_title_at(const plot_ctx *c, const char *desc, int on_canvas)
{
    char buf[1024];
    if (c->multi)
        snprintf(buf, sizeof buf, "%s", desc);
    else if (c->exact)
        snprintf(buf, sizeof buf, "%s", c->title);
    else
        snprintf(buf, sizeof buf, "%s: %s", c->title, desc);
    fputs(on_canvas ? "set tmargin 3\nset label 99 " : "set title ", c->gp);
    plot_gp_string(c->gp, buf);
    fputs(on_canvas ? " at screen 0.5, screen 0.975 center front\n" : "\n", c->gp);
}

static void panel_title(const plot_ctx *c, const char *desc) { panel_title_at(c, desc, 0); }

/* A data file of the temporary directory, named in the script by its full path. */
static FILE *data_file(const plot_ctx *c, const char *name, char *path, size_t cap)
{
    return plot_tmp_file(c->tmp, name, path, cap);
}

static int close_data(FILE *f, const char *path)
{
    if (fclose(f) != 0)
        return cli_error(CLI_FAIL, "plot: cannot write '%s'", path);
    return 0;
}

static void put_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, " %.9g", v);
    else
        fputs(" ?", f);
}

/* the phases' colours, in the reports' order (sample, forward, backward, update, eval, comm,
 * comm_pre, comm_post, ...); "other" is grey */
static const char *const k_colors[12] = { "#9467bd", "#2ca02c", "#1f77b4", "#ff7f0e", "#f2d64b", "#d62728",
                                          "#17becf", "#8c564b", "#e377c2", "#bcbd22", "#7f7f7f", "#393b79" };

/* ---- stacked seconds per phase: per epoch (phases) or per rank (ranks) ---- */

typedef struct stack_tab {
    int n_rows, n_cols;
    char names[MAX_PHASES + 1][32];
    double *v; /* n_rows x (MAX_PHASES + 1): the phases, then "other" */
    int64_t *label;
} stack_tab;

/* Rows from list[i].phases (an object of seconds) and list[i].time_s; row labels from
 * list[i].<label_key>. */
static int stack_read(const plot_input *in, json_object *list, const char *list_key, const char *label_key,
                      stack_tab *t)
{
    char key[96];
    const int n = (int)json_object_array_length(list);
    memset(t, 0, sizeof *t);
    t->v = calloc((size_t)n * (MAX_PHASES + 1), sizeof *t->v);
    t->label = calloc((size_t)n, sizeof *t->label);
    if (!t->v || !t->label)
        return cli_error(CLI_FAIL, "out of memory");
    t->n_rows = n;
    for (int i = 0; i < n; i++) {
        json_object *row = json_object_array_get_idx(list, i);
        json_object *ph = plot_get(row, "phases");
        double total = NAN, lab = i;
        snprintf(key, sizeof key, "%s[%d].phases", list_key, i);
        if (!ph || !json_object_is_type(ph, json_type_object))
            return no_key(in, key, "an object of seconds per phase", "the times per phase are drawn from it");
        plot_num(row, "time_s", &total);
        plot_num(row, label_key, &lab);
        t->label[i] = (int64_t)lab;
        double sum = 0;
        json_object_object_foreach(ph, name, val)
        {
            if (!is_num(val) || !(fabs(json_object_get_double(val)) < 1e100)) {
                snprintf(key, sizeof key, "%s[%d].phases.%s", list_key, i, name);
                return bad_key(in, key, "a number of seconds", "each phase is a time");
            }
            int col = -1;
            for (int k = 0; k < t->n_cols; k++)
                if (!strcmp(t->names[k], name))
                    col = k;
            if (col < 0 && t->n_cols < MAX_PHASES) {
                col = t->n_cols++;
                snprintf(t->names[col], sizeof t->names[0], "%s", name);
            }
            if (col >= 0) {
                t->v[(size_t)i * (MAX_PHASES + 1) + (size_t)col] = json_object_get_double(val);
                sum += json_object_get_double(val);
            }
        }
        /* what the phases leave of the row's time: drawn as "other" */
        t->v[(size_t)i * (MAX_PHASES + 1) + MAX_PHASES] = isfinite(total) && total > sum ? total - sum : 0.0;
    }
    if (n == 0) {
        snprintf(key, sizeof key, "%s[0]", list_key);
        return no_key(in, key, "at least one entry", "the list is empty");
    }
    return 0;
}

static void stack_free(stack_tab *t)
{
    free(t->v);
    free(t->label);
}

static int stack_draw(const plot_ctx *c, stack_tab *t, const char *file, const char *xlabel, const char *desc)
{
    char path[4200];
    FILE *f = data_file(c, file, path, sizeof path);
    if (!f)
        return CLI_FAIL;
    /* columns worth drawing: a phase nonzero somewhere; "other" when it is over 1% of the
     * largest row */
    int use[MAX_PHASES + 1] = { 0 };
    double max_row = 0;
    for (int i = 0; i < t->n_rows; i++) {
        double s = 0;
        for (int k = 0; k <= MAX_PHASES; k++)
            s += t->v[(size_t)i * (MAX_PHASES + 1) + (size_t)k];
        max_row = s > max_row ? s : max_row;
    }
    for (int i = 0; i < t->n_rows; i++)
        for (int k = 0; k < t->n_cols; k++)
            use[k] |= t->v[(size_t)i * (MAX_PHASES + 1) + (size_t)k] > 0;
    for (int i = 0; i < t->n_rows; i++)
        use[MAX_PHASES] |= t->v[(size_t)i * (MAX_PHASES + 1) + MAX_PHASES] > 0.01 * max_row;
    for (int i = 0; i < t->n_rows; i++) {
        fprintf(f, "%lld", (long long)t->label[i]);
        for (int k = 0; k <= MAX_PHASES; k++)
            put_num(f, t->v[(size_t)i * (MAX_PHASES + 1) + (size_t)k]);
        fputc('\n', f);
    }
    if (close_data(f, path))
        return CLI_FAIL;
    FILE *gp = c->gp;
    panel_title(c, desc);
    const int step = t->n_rows <= 24 ? 1 : (t->n_rows + 23) / 24;
    fprintf(gp, "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.85 border -1\n"
                "set boxwidth 0.75 relative\nset xlabel ");
    plot_gp_string(gp, xlabel);
    fprintf(gp, "\nset ylabel 'seconds'\nset yrange [0:*]\nset grid ytics\nset key below horizontal\nset xtics nomirror "
                "rotate by 0\n");
    int first = 1;
    for (int k = 0; k <= MAX_PHASES; k++) {
        if (!use[k])
            continue;
        fputs(first ? "plot " : ", \\\n     ", gp);
        plot_gp_string(gp, path);
        fprintf(gp, " using %d", k + 2);
        if (first)
            fprintf(gp, ":xtic(int($0) %% %d == 0 ? stringcolumn(1) : '')", step);
        fprintf(gp, " lc rgb '%s' title ", k == MAX_PHASES ? "#c7c7c7" : k_colors[k % 12]);
        plot_gp_string(gp, k == MAX_PHASES ? "other" : t->names[k]);
        first = 0;
    }
    if (first) { /* every phase zero: an empty frame with a note, not a gnuplot error */
        fputs("set label 'every phase took 0 s' at graph 0.5, graph 0.5 center\nplot ", gp);
        plot_gp_string(gp, path);
        fputs(" using 2:xtic(1) notitle\n", gp);
    }
    fputc('\n', gp);
    return 0;
}

/* ---- one training report ---- */

static int epochs_of(const plot_input *in, json_object **list)
{
    *list = plot_get(in->root, "epochs");
    if (!*list || !json_object_is_type(*list, json_type_array))
        return no_key(in, "epochs", "a list of per-epoch figures",
                      "not a train report (gnnref train --json writes one)");
    if (json_object_array_length(*list) == 0)
        return no_key(in, "epochs[0]", "one epoch at least", "the run recorded no epoch");
    return 0;
}

int plot_loss(const plot_ctx *c, const plot_input *in)
{
    static const char *const cols[] = { "loss", "val_loss", "train_acc", "val_acc", "test_acc" };
    static const char *const titles[] = { "loss (train steps)", "loss (val)", "train accuracy", "val accuracy",
                                          "test accuracy" };
    json_object *list;
    int rc = epochs_of(in, &list);
    if (rc)
        return rc;
    const int n = (int)json_object_array_length(list);
    int valid[5] = { 0 };
    char path[4200], key[64];
    FILE *f = data_file(c, "loss.dat", path, sizeof path);
    if (!f)
        return CLI_FAIL;
    for (int i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(list, i);
        double ep = i;
        plot_num(e, "epoch", &ep);
        fprintf(f, "%.9g", ep);
        for (int k = 0; k < 5; k++) {
            double v = NAN;
            if (plot_num(e, cols[k], &v) == 0 && (k == 0 || v >= 0)) /* -1: not evaluated this epoch */
                valid[k]++;
            else
                v = NAN;
            put_num(f, v);
        }
        fputc('\n', f);
    }
    if (close_data(f, path))
        return CLI_FAIL;
    if (!valid[0]) {
        snprintf(key, sizeof key, "epochs[0].loss");
        return no_key(in, key, "a number", "the loss per epoch is drawn from it");
    }
    FILE *gp = c->gp;
    panel_title(c, "loss and accuracy per epoch");
    fprintf(gp, "set datafile missing '?'\nset xlabel 'epoch'\nset ylabel 'loss'\nset ytics nomirror\nset grid\n"
                "set key below horizontal\n");
    if (n <= 20)
        fputs("set xtics 1\n", gp);
    if (n == 1)
        fputs("set offsets 0.5, 0.5, 0, 0\n", gp);
    if (valid[2] || valid[3] || valid[4])
        fputs("set y2label 'accuracy'\nset y2range [0:1]\nset y2tics 0.1\n", gp);
    int first = 1;
    for (int k = 0; k < 5; k++) {
        if (!valid[k])
            continue;
        fputs(first ? "plot " : ", \\\n     ", gp);
        plot_gp_string(gp, path);
        fprintf(gp, " using 1:%d with linespoints pt 7 ps 0.6 lw 2 %s title ", k + 2, k < 2 ? "axes x1y1" : "axes x1y2");
        plot_gp_string(gp, titles[k]);
        first = 0;
    }
    fputc('\n', gp);
    return 0;
}

int plot_phases(const plot_ctx *c, const plot_input *in)
{
    json_object *list;
    int rc = epochs_of(in, &list);
    if (rc)
        return rc;
    stack_tab t;
    rc = stack_read(in, list, "epochs", "epoch", &t);
    if (!rc)
        rc = stack_draw(c, &t, "phases.dat", "epoch", "seconds per phase per epoch");
    stack_free(&t);
    return rc;
}

/* ---- a distributed report ---- */

static int need_ranks(const plot_input *in, const char *kind)
{
    double r;
    char why[160];
    if (plot_num(in->root, "ranks", &r) != 0)
        return no_key(in, "ranks", "the rank count", "every gnnref report has it");
    if (r < 2) {
        snprintf(why, sizeof why, "--kind %s needs a distributed report (\"ranks\" 2 or more), and \"ranks\" is %g here",
                 kind, r);
        return cli_error(CLI_USAGE, "%s: %s", in->path, why);
    }
    return 0;
}

int plot_traffic(const plot_ctx *c, const plot_input *in)
{
    int rc = need_ranks(in, "traffic");
    if (rc)
        return rc;
    json_object *m = plot_get(in->root, "comm.matrix.bytes");
    if (!m || !json_object_is_type(m, json_type_array) || json_object_array_length(m) < 1)
        return no_key(in, "comm.matrix.bytes", "a ranks x ranks list of bytes sent",
                      "the traffic matrix is drawn from it (a distributed train report has it)");
    const int r = (int)json_object_array_length(m);
    double max = 0;
    for (int i = 0; i < r; i++) {
        json_object *row = json_object_array_get_idx(m, i);
        if (!json_object_is_type(row, json_type_array) || (int)json_object_array_length(row) != r)
            return bad_key(in, "comm.matrix.bytes", "a ranks x ranks list of bytes sent",
                           "a row is not a list of as many numbers as there are rows");
        for (int j = 0; j < r; j++) {
            json_object *v = json_object_array_get_idx(row, j);
            if (!is_num(v) || !(json_object_get_double(v) >= 0 && json_object_get_double(v) < 1e100))
                return bad_key(in, "comm.matrix.bytes", "a ranks x ranks list of bytes sent",
                               "an entry is not a non-negative number");
            max = fmax(max, json_object_get_double(v));
        }
    }
    static const struct { double div; const char *unit; } units[] = { { 1e9, "GB" }, { 1e6, "MB" }, { 1e3, "kB" },
                                                                       { 1, "bytes" } };
    int u = 0;
    while (u < 3 && max < units[u].div)
        u++;
    char path[4200];
    FILE *f = data_file(c, "traffic.dat", path, sizeof path);
    if (!f)
        return CLI_FAIL;
    for (int i = 0; i < r; i++) {
        json_object *row = json_object_array_get_idx(m, i);
        for (int j = 0; j < r; j++)
            fprintf(f, "%s%.9g", j ? " " : "", json_object_get_double(json_object_array_get_idx(row, j)) / units[u].div);
        fputc('\n', f);
    }
    if (close_data(f, path))
        return CLI_FAIL;
    FILE *gp = c->gp;
    panel_title(c, "bytes sent, rank to rank");
    fprintf(gp, "set xlabel 'to rank'\nset ylabel 'from rank'\nset cblabel '%s sent'\nunset key\nset tics out\n"
                "set palette defined (0 '#ffffff', 1 '#fee8c8', 2 '#fdbb84', 3 '#ef6548')\n"
                "set xrange [-0.5:%d.5]\nset yrange [%d.5:-0.5]\nset cbrange [0:%.9g]\nset size ratio -1\n",
            units[u].unit, r - 1, r - 1, max > 0 ? max / units[u].div : 1.0);
    if (r <= 32)
        fputs("set xtics 1\nset ytics 1\n", gp);
    fputs("plot ", gp);
    plot_gp_string(gp, path);
    fputs(" matrix with image", gp);
    if (r <= 10) {
        fputs(", \\\n     ", gp);
        plot_gp_string(gp, path);
        fputs(" matrix using 1:2:($3 > 0 ? sprintf('%.3g', $3) : '') with labels font ',8'", gp);
    }
    fputc('\n', gp);
    return 0;
}

int plot_ranks(const plot_ctx *c, const plot_input *in)
{
    int rc = need_ranks(in, "ranks");
    if (rc)
        return rc;
    json_object *list = plot_get(in->root, "per_rank");
    if (!list || !json_object_is_type(list, json_type_array))
        return no_key(in, "per_rank", "a list of per-rank times",
                      "the per-rank phase times are drawn from it (a distributed train report has it)");
    stack_tab t;
    rc = stack_read(in, list, "per_rank", "rank", &t);
    if (!rc)
        rc = stack_draw(c, &t, "ranks.dat", "rank", "seconds per phase per rank (whole run)");
    stack_free(&t);
    return rc;
}

/* ---- several reports of one job at different rank counts ---- */

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

int plot_scaling(const plot_ctx *c, const plot_input *in, int n)
{
    if (n < 2)
        return cli_error(CLI_USAGE, "plot: --kind scaling needs two or more reports (one job at several rank "
                                    "counts); given %d",
                         n);
    scale_pt *pt = calloc((size_t)n, sizeof *pt);
    if (!pt)
        return cli_error(CLI_FAIL, "out of memory");
    int rc = 0, n_pred = 0;
    for (int i = 0; i < n && !rc; i++) {
        json_object *list;
        if ((rc = epochs_of(&in[i], &list)))
            break;
        if (plot_num(in[i].root, "ranks", &pt[i].ranks) != 0 || pt[i].ranks < 1) {
            rc = no_key(&in[i], "ranks", "the rank count, 1 or more", "the reports are placed by it");
            break;
        }
        double sum = 0;
        int k = 0;
        for (size_t e = 0; e < json_object_array_length(list); e++) {
            double t;
            if (plot_num(json_object_array_get_idx(list, e), "time_s", &t) == 0) {
                sum += t;
                k++;
            }
        }
        if (!k) {
            rc = no_key(&in[i], "epochs[0].time_s", "seconds", "the measured time per epoch is drawn from it");
            break;
        }
        pt[i].measured = sum / k;
        pt[i].predicted = NAN;
        if (plot_num(in[i].root, "sim.predicted_epoch_s", &pt[i].predicted) == 0 && pt[i].predicted > 0)
            n_pred++;
        else
            pt[i].predicted = NAN;
        json_object *b = plot_get(in[i].root, "backend");
        pt[i].backend = b && json_object_is_type(b, json_type_string) ? json_object_get_string(b) : "?";
        /* the same job: its configuration but the ranks */
        for (int q = 0; i > 0 && k_same_job[q]; q++) {
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
    }
    int distinct = 0;
    if (!rc) {
        qsort(pt, (size_t)n, sizeof *pt, by_ranks);
        for (int i = 0; i < n; i++)
            distinct += i == 0 || pt[i].ranks != pt[i - 1].ranks;
        if (distinct < 2)
            rc = cli_error(CLI_USAGE, "plot: every report is of %g ranks: --kind scaling needs reports at two or more "
                                      "rank counts",
                           pt[0].ranks);
    }
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
    FILE *f = data_file(c, "scaling.dat", path, sizeof path);
    if (!f) {
        free(pt);
        return CLI_FAIL;
    }
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
    if (close_data(f, path)) {
        free(pt);
        return CLI_FAIL;
    }
    FILE *gp = c->gp;
    panel_title(c, "seconds per epoch against ranks");
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
    free(pt);
    return 0;
}

/* ---- gnnref-bench JSON ---- */

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
    if (!json_object_object_get_ex(b, metric, &x) || !is_num(x))
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
            return quiet ? CLI_USAGE : no_key(&in[f], "benchmarks", "Google Benchmark's list",
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
        return quiet ? CLI_USAGE : no_key(&in[0], "benchmarks[].GB/s", "or bytes_per_second, edges_per_s, items_per_second, GFLOP/s",
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
        return no_key(&in[0], "benchmarks", "a benchmark besides the ceilings",
                      "only triad, copy or ceiling benchmarks: nothing to compare with them");
    }
    if (s.n_left_out)
        printf("plot: %d benchmark(s) without %s left out\n", s.n_left_out, s.metric);
    if (!n_ceil)
        printf("plot: no ceiling benchmark (triad, copy or gather-ceiling) in this run: no ceiling line\n");
    char path[4200];
    FILE *f = data_file(c, "bench.dat", path, sizeof path);
    if (!f) {
        free(s.rows);
        return CLI_FAIL;
    }
    for (int i = 0; i < s.n; i++) {
        if (s.rows[i].is_ceiling)
            continue;
        fprintf(f, "\"%s\" %.9g %d", s.rows[i].label, s.rows[i].value, s.rows[i].impl);
        put_num(f, s.rows[i].ceiling);
        fputc('\n', f);
    }
    if (close_data(f, path)) {
        free(s.rows);
        return CLI_FAIL;
    }
    FILE *gp = c->gp;
    char desc[96];
    snprintf(desc, sizeof desc, "throughput per benchmark (%s)", s.metric);
    panel_title_at(c, desc, 1);
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
