/* cli/cli.h -- the gnnref command-line tool: subcommands and shared helpers.
 * The CLI is thin: it parses flags, calls the library, and turns gnn_status into
 * `gnnref: error: ...` on stderr with exit codes 0 (ok), 1 (failure), 2 (bad usage or input). */
#ifndef GNNREF_CLI_H
#define GNNREF_CLI_H

#include <stdint.h>
#include <json-c/json.h>
#include "gnnref/status.h"
#include "core/base/clock.h" /* gnn_now_s: the times a report gives */

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Subcommands: argv[0] is the subcommand name. */
int gnn_cmd_gen(int argc, char **argv);
int gnn_cmd_convert(int argc, char **argv);
int gnn_cmd_info(int argc, char **argv);
int gnn_cmd_oracle(int argc, char **argv);
int gnn_cmd_train(int argc, char **argv);
int gnn_cmd_sample(int argc, char **argv);
int gnn_cmd_commcheck(int argc, char **argv);
int gnn_cmd_partition(int argc, char **argv);
int gnn_cmd_partcheck(int argc, char **argv);
int gnn_cmd_commplan(int argc, char **argv);
int gnn_cmd_plot(int argc, char **argv); /* cli/cmd_plot.c */

/* Print `gnnref: error: <fmt>` to stderr; returns code. */
int cli_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Exit code for a library status: input problems -> 2, others -> 1. */
int cli_status_code(gnn_status s);
/* The library's message for a failed call, or the status's name when it left none. */
const char *cli_errmsg(const gnn_err *err, gnn_status s);

/* Strict number parsing: the whole string must be a number in range. Return 0 on success. */
int cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);
int cli_parse_u64(const char *s, uint64_t *out);
int cli_parse_f64(const char *s, double lo, double hi, double *out);
/* Comma-separated integers ("15,10,5"); returns count or -1; at most cap values. */
int cli_parse_i64_list(const char *s, int64_t lo, int64_t hi, int64_t *out, int cap);
/* Comma-separated doubles. */
int cli_parse_f64_list(const char *s, double lo, double hi, double *out, int cap);

/* Set the OpenMP thread count (n <= 0: leave the default). Returns the count in effect. */
int cli_set_threads(int64_t n);

/* A report with the keys every report carries (DESIGN.md section 6): command, version,
 * seed, threads, backend, ranks, and an empty "config" object returned in *config. */
json_object *cli_report_new(const char *command, uint64_t seed, int threads, const char *backend,
                            int ranks, json_object **config);
/* A JSON array of n integers v[0], v[stride], v[2 stride], ... */
json_object *cli_json_i64_array(const int64_t *v, int64_t n, int64_t stride);
/* Write the report to path (pretty-printed), with "peak_rss_bytes" (cli_peak_rss_bytes) added;
 * returns 0 or prints an error and returns 1. */
int cli_report_write(json_object *report, const char *path);
/* The process's peak resident memory so far, in bytes (0 when unknown). */
int64_t cli_peak_rss_bytes(void);
/* Before the work: can a report be written to path (NULL: yes)? An existing file must be
 * writable, a new one's directory must exist and be writable. Returns 0, or prints an error
 * and returns CLI_USAGE, so that a typo in --json does not cost a whole run. */
int cli_report_check(const char *path);
/* The same check for any output file given by `flag` (gen and convert's -o), and for an
 * output directory (partition's -o: an existing directory, or a new one in an existing one). */
int cli_output_check(const char *flag, const char *path);
int cli_output_dir_check(const char *flag, const char *path);

/* True when stdout is a terminal (progress lines are shown only then). */
int cli_is_tty(void);
/* A dataset's counts and import figures into a report: name, n, edges, num_features,
 * num_classes, import (gen, convert, info). */
struct gnn_dataset;
void cli_report_dataset(json_object *r, const struct gnn_dataset *ds);

#endif
