/* cli/plot_draw.c -- the pictures of `gnnref plot` drawn from one report (cli/plot.h,
 * docs/plot.md): loss and phases of a training report, traffic and ranks of a distributed
 * one; and the helpers every picture file shares (the JSON lookups, the key messages, the
 * titles, the data files). For each kind: the checks of the keys it reads (a missing or
 * malformed one is `gnnref: error: FILE: ...` naming the key, exit 2), its data files in the
 * temporary directory and its part of the gnuplot script. The keys are those of DESIGN.md
 * section 6 and of the train report (cli/train_report.c, cli/backend.c). The pictures of
 * several reports are in cli/plot_scaling.c (one job at several rank counts) and
 * cli/plot_bench.c (gnnref-bench JSON). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/plot.h"

#define MAX_PHASES 16

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

int plot_is_num(json_object *v)
{
    return json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double);
}

int plot_num(json_object *o, const char *path, double *out)
{
    json_object *v = plot_get(o, path);
    if (!v || !plot_is_num(v))
        return -1;
    *out = json_object_get_double(v);
    return isfinite(*out) && fabs(*out) < 1e100 ? 0 : -1; /* gnuplot takes larger ones for undefined */
}

/* `FILE: no "KEY" (WANT) in it: WHY`, exit 2 */
int plot_no_key(const plot_input *in, const char *key, const char *want, const char *why)
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
void plot_panel_title_at(const plot_ctx *c, const char *desc, int on_canvas)
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

void plot_panel_title(const plot_ctx *c, const char *desc) { plot_panel_title_at(c, desc, 0); }

/* A data file of the temporary directory, named in the script by its full path. */
FILE *plot_data_file(const plot_ctx *c, const char *name, char *path, size_t cap)
{
    return plot_tmp_file(c->tmp, name, path, cap);
}

int plot_close_data(FILE *f, const char *path)
{
    if (fclose(f) != 0)
        return cli_error(CLI_FAIL, "plot: cannot write '%s'", path);
    return 0;
}

void plot_put_num(FILE *f, double v)
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
            return plot_no_key(in, key, "an object of seconds per phase", "the times per phase are drawn from it");
        plot_num(row, "time_s", &total);
        plot_num(row, label_key, &lab);
        t->label[i] = (int64_t)lab;
        double sum = 0;
        json_object_object_foreach(ph, name, val)
        {
            if (!plot_is_num(val) || !(fabs(json_object_get_double(val)) < 1e100)) {
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
        return plot_no_key(in, key, "at least one entry", "the list is empty");
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
    FILE *f = plot_data_file(c, file, path, sizeof path);
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
            plot_put_num(f, t->v[(size_t)i * (MAX_PHASES + 1) + (size_t)k]);
        fputc('\n', f);
    }
    if (plot_close_data(f, path))
        return CLI_FAIL;
    FILE *gp = c->gp;
    plot_panel_title(c, desc);
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

int plot_epochs_of(const plot_input *in, json_object **list)
{
    *list = plot_get(in->root, "epochs");
    if (!*list || !json_object_is_type(*list, json_type_array))
        return plot_no_key(in, "epochs", "a list of per-epoch figures",
                           "not a train report (gnnref train --json writes one)");
    if (json_object_array_length(*list) == 0)
        return plot_no_key(in, "epochs[0]", "one epoch at least", "the run recorded no epoch");
    return 0;
}

int plot_loss(const plot_ctx *c, const plot_input *in)
{
    static const char *const cols[] = { "loss", "val_loss", "train_acc", "val_acc", "test_acc" };
    static const char *const titles[] = { "loss (train steps)", "loss (val)", "train accuracy", "val accuracy",
                                          "test accuracy" };
    json_object *list;
    int rc = plot_epochs_of(in, &list);
    if (rc)
        return rc;
    const int n = (int)json_object_array_length(list);
    int valid[5] = { 0 };
    char path[4200], key[64];
    FILE *f = plot_data_file(c, "loss.dat", path, sizeof path);
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
            plot_put_num(f, v);
        }
        fputc('\n', f);
    }
    if (plot_close_data(f, path))
        return CLI_FAIL;
    if (!valid[0]) {
        snprintf(key, sizeof key, "epochs[0].loss");
        return plot_no_key(in, key, "a number", "the loss per epoch is drawn from it");
    }
    FILE *gp = c->gp;
    plot_panel_title(c, "loss and accuracy per epoch");
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
    int rc = plot_epochs_of(in, &list);
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
        return plot_no_key(in, "ranks", "the rank count", "every gnnref report has it");
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
        return plot_no_key(in, "comm.matrix.bytes", "a ranks x ranks list of bytes sent",
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
            if (!plot_is_num(v) || !(json_object_get_double(v) >= 0 && json_object_get_double(v) < 1e100))
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
    FILE *f = plot_data_file(c, "traffic.dat", path, sizeof path);
    if (!f)
        return CLI_FAIL;
    for (int i = 0; i < r; i++) {
        json_object *row = json_object_array_get_idx(m, i);
        for (int j = 0; j < r; j++)
            fprintf(f, "%s%.9g", j ? " " : "", json_object_get_double(json_object_array_get_idx(row, j)) / units[u].div);
        fputc('\n', f);
    }
    if (plot_close_data(f, path))
        return CLI_FAIL;
    FILE *gp = c->gp;
    plot_panel_title(c, "bytes sent, rank to rank");
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
        return plot_no_key(in, "per_rank", "a list of per-rank times",
                           "the per-rank phase times are drawn from it (a distributed train report has it)");
    stack_tab t;
    rc = stack_read(in, list, "per_rank", "rank", &t);
    if (!rc)
        rc = stack_draw(c, &t, "ranks.dat", "rank", "seconds per phase per rank (whole run)");
    stack_free(&t);
    return rc;
}
