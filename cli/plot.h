/* cli/plot.h -- `gnnref plot` (docs/plot.md), shared by its files: cli/cmd_plot.c (the flags,
 * reading the inputs, choosing the picture), the data files and the gnuplot script of each
 * kind in cli/plot_draw.c (the pictures of one report, and the helpers the picture files
 * share), cli/plot_scaling.c (one job at several rank counts) and cli/plot_bench.c
 * (gnnref-bench JSON), and cli/plot_run.c (the private temporary directory, running gnuplot
 * with a timeout, checking the PNG). Nothing here is library code: gnuplot is found on PATH at
 * run time and never linked. */
#ifndef GNNREF_CLI_PLOT_H
#define GNNREF_CLI_PLOT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

/* The pictures (--kind); PLOT_TRAIN and PLOT_DIST are --kind auto's two-panel choices. */
typedef enum plot_kind {
    PLOT_AUTO,
    PLOT_LOSS,    /* one training report: loss and accuracies per epoch */
    PLOT_PHASES,  /* one training report: seconds per phase per epoch, stacked */
    PLOT_TRAFFIC, /* a distributed report: the rank-to-rank bytes as a heat map */
    PLOT_RANKS,   /* a distributed report: seconds per phase per rank, stacked */
    PLOT_SCALING, /* reports of one job at several rank counts: seconds per epoch against ranks */
    PLOT_BENCH,   /* gnnref-bench JSON: throughput per benchmark, the ceiling drawn in */
    PLOT_TRAIN,   /* auto, one single-rank report: loss above phases */
    PLOT_DIST,    /* auto, one distributed report: traffic beside ranks */
} plot_kind;

/* One input file, read whole. */
typedef struct plot_input {
    const char *path;  /* as given */
    const char *name;  /* its last component, for titles and messages */
    json_object *root;
    int is_bench;      /* gnnref-bench (Google Benchmark) JSON: "benchmarks" and "context" */
} plot_input;

/* The private temporary directory: every file made in it is recorded and removed again. */
#define PLOT_TMP_MAX 16
typedef struct plot_tmp {
    char dir[4096];
    char files[PLOT_TMP_MAX][32];
    int n;
} plot_tmp;

/* What a panel writer needs: the temporary directory and the script being written. */
typedef struct plot_ctx {
    plot_tmp *tmp;
    FILE *gp;          /* the gnuplot script */
    const char *title; /* --title, or the one made from the report */
    int exact;         /* title is --title: a single panel takes it as it is */
    int multi;         /* a panel of a multiplot: the panel gets its own short title */
} plot_ctx;

/* ---- cli/plot_run.c ---- */

/* Make the directory ($TMPDIR or /tmp, gnnref-plot-XXXXXX); 0 or an error printed (1). */
int plot_tmp_open(plot_tmp *t);
/* Create name in it for writing and record it; its full path into path. NULL: error printed. */
FILE *plot_tmp_file(plot_tmp *t, const char *name, char *path, size_t cap);
/* Record a file another program makes there (gnuplot's output and log). */
void plot_tmp_path(plot_tmp *t, const char *name, char *path, size_t cap);
/* Remove every recorded file and the directory. Safe to call twice. */
void plot_tmp_close(plot_tmp *t);

/* gnuplot's path: $GNNREF_GNUPLOT when set, else "gnuplot" searched on PATH; 0 when found. */
int plot_find_gnuplot(char *path, size_t cap);
/* Run gnuplot on script with stdout and stderr into log, killed after timeout_s seconds (or at
 * SIGINT, SIGTERM, SIGHUP). 0: it exited 0; else why into why (and 1). */
int plot_run_gnuplot(const char *gnuplot, const char *script, const char *log, double timeout_s, char *why,
                     size_t cap);
/* A PNG file: its 8-byte signature and an IHDR chunk first; its size into *w, *h. 0: valid. */
int plot_png_size(const char *path, uint32_t *w, uint32_t *h);
/* Copy the finished picture to out (as OUT.tmp.PID renamed over OUT for a regular file, in
 * place otherwise); 0 or an error printed (1). */
int plot_install(const char *src, const char *out);

/* s as a gnuplot single-quoted string ('' for ', control characters as spaces). */
void plot_gp_string(FILE *f, const char *s);

/* ---- the pictures: each writes its data files and its part of the script, or prints
 * `gnnref: error: FILE: ...` naming the missing key and returns CLI_USAGE ---- */
/* cli/plot_draw.c: one report */
int plot_loss(const plot_ctx *c, const plot_input *in);
int plot_phases(const plot_ctx *c, const plot_input *in);
int plot_traffic(const plot_ctx *c, const plot_input *in);
int plot_ranks(const plot_ctx *c, const plot_input *in);
/* cli/plot_scaling.c */
int plot_scaling(const plot_ctx *c, const plot_input *in, int n);
/* cli/plot_bench.c. The bench picture's rows (to size it): the bars it would draw and the
 * entries of its key. */
int plot_bench_rows(const plot_input *in, int n);
int plot_bench(const plot_ctx *c, const plot_input *in, int n);

/* ---- cli/plot_draw.c: what the picture files share ---- */
/* v is a JSON number (int or double). */
int plot_is_num(json_object *v);
/* `FILE: no "KEY" (WANT) in it: WHY`, exit 2 (returns CLI_USAGE). */
int plot_no_key(const plot_input *in, const char *key, const char *want, const char *why);
/* The panel's title: its description in a multiplot, --title as given, else the report's
 * title and the description. on_canvas: centred on the picture, not on the plot. */
void plot_panel_title_at(const plot_ctx *c, const char *desc, int on_canvas);
void plot_panel_title(const plot_ctx *c, const char *desc);
/* A data file of the temporary directory, named in the script by its full path; NULL: error
 * printed. plot_close_data closes it: 0, or an error printed (CLI_FAIL). */
FILE *plot_data_file(const plot_ctx *c, const char *name, char *path, size_t cap);
int plot_close_data(FILE *f, const char *path);
/* " %.9g", or " ?" (gnuplot's missing value) when v is not finite. */
void plot_put_num(FILE *f, double v);
/* A train report's "epochs" list, one epoch at least: 0, or the message printed (CLI_USAGE). */
int plot_epochs_of(const plot_input *in, json_object **list);

/* The JSON helpers the checks share: o's member at a dotted path ("comm.matrix.bytes"), NULL
 * when missing (or null). */
json_object *plot_get(json_object *o, const char *path);
/* The value at path as a number (int or double): 0 and *out, or -1 when missing or not one. */
int plot_num(json_object *o, const char *path, double *out);

#endif
