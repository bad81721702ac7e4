/* cli/common.c -- shared CLI helpers: errors, strict number parsing, threads, JSON reports. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef GNN_HAVE_OPENMP
#include <omp.h>
#endif
#include "cli/cli.h"
#include "gnnref/dataset.h"

int cli_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gnnref: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

int cli_status_code(gnn_status s)
{
    switch (s) {
    case GNN_OK: return CLI_OK;
    case GNN_ERR_INVAL:
    case GNN_ERR_IO:
    case GNN_ERR_FORMAT:
    case GNN_ERR_CHECKSUM:
    case GNN_ERR_RANGE:
    case GNN_ERR_NAN: return CLI_USAGE;
    default: return CLI_FAIL;
    }
}

const char *cli_errmsg(const gnn_err *err, gnn_status s) { return err->msg[0] ? err->msg : gnn_status_str(s); }

int cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int cli_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int cli_parse_f64(const char *s, double lo, double hi, double *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int cli_parse_i64_list(const char *s, int64_t lo, int64_t hi, int64_t *out, int cap)
{
    char buf[1024];
    if (!s || strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n >= cap || cli_parse_i64(tok, lo, hi, &out[n]))
            return -1;
        n++;
    }
    return n > 0 ? n : -1;
}

int cli_parse_f64_list(const char *s, double lo, double hi, double *out, int cap)
{
    char buf[1024];
    if (!s || strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n >= cap || cli_parse_f64(tok, lo, hi, &out[n]))
            return -1;
        n++;
    }
    return n > 0 ? n : -1;
}

int cli_set_threads(int64_t n)
{
#ifdef GNN_HAVE_OPENMP
    if (n > 0)
        omp_set_num_threads((int)n);
    return omp_get_max_threads();
#else
    (void)n;
    return 1;
#endif
}

json_object *cli_report_new(const char *command, uint64_t seed, int threads, const char *backend,
                            int ranks, json_object **config)
{
    json_object *r = json_object_new_object();
    json_object_object_add(r, "command", json_object_new_string(command));
    json_object_object_add(r, "version", json_object_new_string(GNN_VERSION));
    json_object_object_add(r, "seed", json_object_new_uint64(seed));
    json_object_object_add(r, "threads", json_object_new_int(threads));
    json_object_object_add(r, "backend", json_object_new_string(backend));
    json_object_object_add(r, "ranks", json_object_new_int(ranks));
    json_object *cfg = json_object_new_object();
    json_object_object_add(r, "config", cfg);
    if (config)
        *config = cfg;
    return r;
}

json_object *cli_json_i64_array(const int64_t *v, int64_t n, int64_t stride)
{
    json_object *a = json_object_new_array();
    for (int64_t i = 0; i < n; i++)
        json_object_array_add(a, json_object_new_int64(v[i * stride]));
    return a;
}

/* Can `path` (an output file, or with want_dir an output directory) be written? An existing
 * one must be of the right kind and writable; a new one's directory must exist and be
 * writable. */
static int output_check(const char *flag, const char *path, int want_dir)
{
    if (!path)
        return 0;
    struct stat st;
    if (stat(path, &st) == 0) {
        if (!want_dir && S_ISDIR(st.st_mode))
            return cli_error(CLI_USAGE, "%s %s: is a directory, not a file", flag, path);
        if (want_dir && !S_ISDIR(st.st_mode))
            return cli_error(CLI_USAGE, "%s %s: exists and is not a directory", flag, path);
        if (access(path, want_dir ? W_OK | X_OK : W_OK) != 0)
            return cli_error(CLI_USAGE, "%s %s: cannot write there: %s", flag, path, strerror(errno));
        return 0;
    }
    /* a new one: its directory must exist and take new entries */
    char dir[4096];
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') /* "out/" names the directory "out" */
        len--;
    const char *slash = NULL;
    for (size_t i = 0; i < len; i++)
        if (path[i] == '/')
            slash = path + i;
    if (!slash) {
        strcpy(dir, ".");
    } else if (slash == path) {
        strcpy(dir, "/");
    } else {
        const size_t n = (size_t)(slash - path);
        if (n >= sizeof dir)
            return cli_error(CLI_USAGE, "%s %s: the path is too long", flag, path);
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return cli_error(CLI_USAGE, "%s %s: cannot create it: directory '%s' does not exist", flag, path, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return cli_error(CLI_USAGE, "%s %s: cannot create it in '%s': %s", flag, path, dir, strerror(errno));
    return 0;
}

int cli_output_check(const char *flag, const char *path) { return output_check(flag, path, 0); }

int cli_output_dir_check(const char *flag, const char *path) { return output_check(flag, path, 1); }

int cli_report_check(const char *path) { return cli_output_check("--json", path); }

static int report_write_error(const char *path)
{
    /* json-c's message ends with a newline; cli_error adds its own */
    char msg[512];
    const char *e = json_util_get_last_err();
    snprintf(msg, sizeof msg, "%s", e ? e : "unknown error");
    size_t n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
        msg[--n] = '\0';
    return cli_error(CLI_FAIL, "%s: cannot write JSON report: %s", path, msg);
}

/* A regular file (or a new one) is written as PATH.tmp.PID and renamed over PATH, as datasets
 * are: a reader never sees half a report, and a failed write (a full disk) leaves no empty
 * or truncated report behind; an existing one stays as it was. Written in place: anything
 * that is not a regular file (a symbolic link, /dev/stdout, a pipe), and a writable report
 * in a directory that takes no new file. */
/* The peak resident memory of this process so far (getrusage's ru_maxrss, kibibytes on Linux),
 * in bytes; 0 when the system does not say. Under the simulator every rank is this process;
 * under MPI it is the writing rank's. */
int64_t cli_peak_rss_bytes(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? (int64_t)ru.ru_maxrss * 1024 : 0;
}

int cli_report_write(json_object *report, const char *path)
{
    if (!path)
        return 0;
    /* every report says how much memory its command held at most (issue 36 item 4): last, so a
     * command's own figures cannot replace it */
    json_object_object_add(report, "peak_rss_bytes", json_object_new_int64(cli_peak_rss_bytes()));
    const int flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE;
    struct stat st;
    char tmp[4096 + 32];
    if ((lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) ||
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return json_object_to_file_ext(path, report, flags) == 0 ? 0 : report_write_error(path);
    if (json_object_to_file_ext(tmp, report, flags) != 0) {
        if (access(tmp, F_OK) != 0) /* not even created: try the report itself */
            return json_object_to_file_ext(path, report, flags) == 0 ? 0 : report_write_error(path);
        const int rc = report_write_error(path);
        unlink(tmp);
        return rc;
    }
    if (rename(tmp, path) != 0) {
        const int e = errno;
        unlink(tmp);
        return cli_error(CLI_FAIL, "%s: cannot write JSON report: rename: %s", path, strerror(e));
    }
    return 0;
}

int cli_is_tty(void) { return isatty(STDOUT_FILENO); }


void cli_report_dataset(json_object *r, const gnn_dataset *ds)
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
