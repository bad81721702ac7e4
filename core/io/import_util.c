/* core/io/import_util.c -- what the importers share (core/io/import_internal.h): the line reader
 * over zlib, the vertex limit and its messages, the dataset's name from its path, and the steps
 * every importer ends with: the graph from an edge list, the split files. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#include "core/io/import_internal.h"
#include "gnnref/dataset.h"
#include "gnnref/tensor.h"

/* ==== line reader over zlib ==== */

#define LR_CHUNK ((size_t)1 << 18)

gnn_status gnn_lr_open(line_reader *lr, const char *path, gnn_err *err)
{
    memset(lr, 0, sizeof *lr);
    lr->path = path;
    lr->f = gzopen(path, "rb");
    if (!lr->f)
        return gnn_err_set(err, GNN_ERR_IO, "%s: cannot open: %s", path, errno ? strerror(errno) : "zlib error");
    gzbuffer(lr->f, 1 << 18);
    lr->cap = 4096;
    lr->buf = malloc(lr->cap);
    lr->chunk = malloc(LR_CHUNK);
    if (!lr->buf || !lr->chunk) {
        gzclose(lr->f);
        lr->f = NULL;
        free(lr->buf);
        free(lr->chunk);
        lr->buf = NULL;
        lr->chunk = NULL;
        return gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory for a line buffer", path);
    }
    return GNN_OK;
}

void gnn_lr_close(line_reader *lr)
{
    if (lr->f)
        gzclose(lr->f);
    free(lr->buf);
    free(lr->chunk);
    lr->f = NULL;
    lr->buf = NULL;
    lr->chunk = NULL;
}

/* Next line into lr->buf. Returns 1 (a line), 0 (end of file) or a negative gnn_status
 * (read or gzip error, or a NUL byte, message in err). Lines of any length are read whole.
 * The bytes are read with gzread and split here, not with gzgets: gzgets copies a NUL byte
 * into the line and reports no length, so a NUL in a last line without '\n' cut the line
 * short unseen, and whatever followed it was lost. A NUL is an error wherever it appears. */
int gnn_lr_next(line_reader *lr, gnn_err *err)
{
    size_t len = 0;
    int have = 0; /* any byte of this line read, its '\n' included */
    for (;;) {
        if (lr->pos == lr->end) {
            if (lr->eof)
                break;
            const int got = gzread(lr->f, lr->chunk, (unsigned)LR_CHUNK);
            int zerr = Z_OK;
            const char *zmsg = gzerror(lr->f, &zerr);
            /* a truncated gzip stream gives its data, then 0 with Z_BUF_ERROR: an error, not
             * a short file */
            if (got < 0 || (got == 0 && zerr != Z_OK && zerr != Z_STREAM_END))
                return -(int)gnn_err_set(err, zerr == Z_ERRNO ? GNN_ERR_IO : GNN_ERR_FORMAT, "%s:%lld: read error: %s",
                                         lr->path, (long long)lr->lineno + 1, zerr == Z_ERRNO ? strerror(errno) : zmsg);
            if (got == 0) {
                lr->eof = 1;
                break;
            }
            lr->pos = 0;
            lr->end = (size_t)got;
        }
        const unsigned char *at = lr->chunk + lr->pos;
        const unsigned char *nl = memchr(at, '\n', lr->end - lr->pos);
        const size_t take = nl ? (size_t)(nl - at) + 1 : lr->end - lr->pos;
        if (memchr(at, '\0', take))
            return -(int)gnn_err_set(err, GNN_ERR_FORMAT, "%s:%lld: a NUL byte in a text file (binary data?)", lr->path,
                                     (long long)lr->lineno + 1);
        if (len + take + 1 > lr->cap) {
            size_t cap = lr->cap;
            while (len + take + 1 > cap)
                cap *= 2;
            char *nb = realloc(lr->buf, cap);
            if (!nb)
                return -(int)gnn_err_set(err, GNN_ERR_NOMEM, "%s:%lld: line too long", lr->path,
                                         (long long)lr->lineno + 1);
            lr->buf = nb;
            lr->cap = cap;
        }
        memcpy(lr->buf + len, at, take);
        len += take;
        lr->pos += take;
        have = 1;
        if (nl)
            break;
    }
    if (!have)
        return 0;
    lr->buf[len] = '\0';
    lr->lineno++;
    while (len > 0 && (lr->buf[len - 1] == '\n' || lr->buf[len - 1] == '\r'))
        lr->buf[--len] = '\0';
    return 1;
}

/* "file:line: reason (got 'text')" with the text shortened to something readable. */
gnn_status gnn_lr_fail(const line_reader *lr, gnn_status s, const char *reason, gnn_err *err)
{
    char shown[72];
    size_t k = strlen(lr->buf);
    if (k > 64) {
        memcpy(shown, lr->buf, 61);
        memcpy(shown + 61, "...", 4);
    } else {
        memcpy(shown, lr->buf, k + 1);
    }
    return gnn_err_set(err, s, "%s:%lld: %s (got '%s')", lr->path, (long long)lr->lineno, reason, shown);
}

/* A vertex id that would make the graph larger than the limit, at the current line. */
static gnn_status id_above_limit(const line_reader *lr, int64_t id, int64_t max_v, gnn_err *err)
{
    char why[200];
    snprintf(why, sizeof why,
             "vertex id %lld needs %lld vertices, above the limit of %lld (gnnref convert --max-vertices N raises it)",
             (long long)id, (long long)id + 1, (long long)max_v);
    return gnn_lr_fail(lr, GNN_ERR_RANGE, why, err);
}

gnn_status gnn_import_keep_edge(const line_reader *lr, int64_t u, int64_t v, int64_t max_v, i64_vec *src, i64_vec *dst,
                                int64_t *max_id, gnn_err *err)
{
    if (u < 0 || v < 0 || u > MAX_ID || v > MAX_ID)
        return gnn_lr_fail(lr, GNN_ERR_RANGE, "vertex id negative or above 2^40", err);
    if (u >= max_v || v >= max_v)
        return id_above_limit(lr, u > v ? u : v, max_v, err);
    if (vec_push(src, u) || vec_push(dst, v))
        return gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", lr->path);
    if (u > *max_id)
        *max_id = u;
    if (v > *max_id)
        *max_id = v;
    return GNN_OK;
}

/* ==== limits and arguments ==== */

/* The message for a vertex count above the limit, from `what` (the file and its claim). */
gnn_status gnn_import_too_many_vertices(const char *what, int64_t n, int64_t max_v, gnn_err *err)
{
    return gnn_err_set(err, GNN_ERR_RANGE,
                       "%s: %lld vertices, above the limit of %lld (gnnref convert --max-vertices N raises it; "
                       "docs/formats.md, \"Limits\")",
                       what, (long long)n, (long long)max_v);
}

void gnn_import_defaults(gnn_import_options *o)
{
    if (o) {
        o->max_vertices = GNN_IMPORT_MAX_VERTICES;
        o->feat_storage = GNN_FEAT_STORE_AUTO;
        o->reverse_relations = 0;
    }
}

static int64_t max_vertices_of(const gnn_import_options *opt)
{
    return opt ? opt->max_vertices : GNN_IMPORT_MAX_VERTICES;
}

static gnn_status check_import_args(const void *ds, const char *path, const gnn_import_options *opt, const char *what,
                                    gnn_err *err)
{
    if (!ds || !path)
        return gnn_err_set(err, GNN_ERR_INVAL, "import %s: NULL argument", what);
    if (opt && (opt->max_vertices < 1 || opt->max_vertices > MAX_ID + 1))
        return gnn_err_set(err, GNN_ERR_INVAL, "import %s: max_vertices %lld outside [1, 2^40]", what,
                           (long long)opt->max_vertices);
    if (opt && (opt->feat_storage < GNN_FEAT_STORE_AUTO || opt->feat_storage > GNN_FEAT_STORE_CSR))
        return gnn_err_set(err, GNN_ERR_INVAL, "import %s: feature storage %d: expected auto, dense or csr", what,
                           (int)opt->feat_storage);
    return GNN_OK;
}

/* ==== paths ==== */

/* dir/name or dir/name.gz, whichever exists (plain first); returns 1 when found. */
int gnn_import_find_maybe_gz(char *out, const char *dir, const char *name)
{
    if ((size_t)snprintf(out, PATH_CAP, "%s/%s", dir, name) < PATH_CAP && file_exists(out))
        return 1;
    if ((size_t)snprintf(out, PATH_CAP, "%s/%s.gz", dir, name) < PATH_CAP && file_exists(out))
        return 1;
    return 0;
}

/* The last path component of dir (ignoring trailing slashes), for the dataset name. */
void gnn_import_set_name(gnn_dataset *ds, const char *path, int strip_ext)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    size_t b = len;
    while (b > 0 && path[b - 1] != '/')
        b--;
    size_t k = len - b;
    if (k >= sizeof ds->name)
        k = sizeof ds->name - 1;
    memcpy(ds->name, path + b, k);
    ds->name[k] = '\0';
    if (strip_ext) {
        char *dot = strrchr(ds->name, '.');
        if (dot && dot != ds->name)
            *dot = '\0';
    }
}

/* ==== shared steps ==== */

/* Build the in-neighbor CSR from an edge list and record what was merged or dropped:
 * duplicates_merged = (entries the flags give without deduplication) - nnz. */
gnn_status gnn_import_build_graph(gnn_dataset *ds, int64_t n, const i64_vec *src, const i64_vec *dst, unsigned flags,
                                  const char *what, gnn_err *err)
{
    int64_t self = 0;
    for (int64_t e = 0; e < src->len; e++)
        self += src->v[e] == dst->v[e];
    const int drop = (flags & GNN_CSR_DROP_SELF) != 0, sym = (flags & GNN_CSR_SYMMETRIZE) != 0;
    /* entries before dedup: self-loops count once (or not at all when dropped), others twice when symmetrized */
    const int64_t raw = (src->len - self) * (sym ? 2 : 1) + (drop ? 0 : self);
    gnn_status st = gnn_csr_from_edges(&ds->graph, n, src->len, src->v, dst->v, flags, err);
    if (st)
        return st == GNN_ERR_NOMEM ? gnn_err_set(err, st, "%s: out of memory building the graph", what) : st;
    ds->stats.edges_read = src->len;
    ds->stats.self_loops_dropped = drop ? self : 0;
    ds->stats.duplicates_merged = raw - ds->graph.nnz;
    ds->stats.symmetrized = sym;
    return GNN_OK;
}

/* Read a file of vertex ids, one per line, marking split[v] = code; ids must be in [0, n)
 * and appear in no earlier split file. (split points at the first vertex the ids count from.) */
static gnn_status read_split_file(const char *path, int64_t n, uint8_t code, uint8_t *split, int64_t *count,
                                  gnn_err *err)
{
    static const char *const k_code[] = { "none", "train", "val", "test" };
    line_reader lr;
    gnn_status st = gnn_lr_open(&lr, path, err);
    if (st)
        return st;
    int r;
    *count = 0;
    while ((r = gnn_lr_next(&lr, err)) > 0) {
        if (is_blank(lr.buf))
            continue;
        const char *p = lr.buf;
        int64_t v;
        if (field_i64(&p, &v) || !at_end(p)) {
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected one vertex id per line", err);
            break;
        }
        if (v < 0 || v >= n) {
            char why[128];
            snprintf(why, sizeof why, "vertex id %lld outside [0, %lld)", (long long)v, (long long)n);
            st = gnn_lr_fail(&lr, GNN_ERR_RANGE, why, err);
            break;
        }
        if (split[v] != GNN_SPLIT_NONE) {
            char why[128];
            snprintf(why, sizeof why, "vertex %lld is already in the %s split", (long long)v, k_code[split[v]]);
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, why, err);
            break;
        }
        split[v] = code;
        (*count)++;
    }
    if (r < 0)
        st = (gnn_status)-r;
    gnn_lr_close(&lr);
    return st;
}

/* Read up to three split files (train/val/test names under dir, each optional, .gz allowed).
 * Leaves ds->split NULL when none exists. */
gnn_status gnn_import_read_splits(gnn_dataset *ds, const char *dir, const char *const names[3], gnn_err *err)
{
    return gnn_import_read_splits_at(ds, dir, names, 0, ds->graph.n, err);
}

gnn_status gnn_import_read_splits_at(gnn_dataset *ds, const char *dir, const char *const names[3], int64_t offset,
                                     int64_t count, gnn_err *err)
{
    char path[PATH_CAP];
    int any = 0;
    for (int k = 0; k < 3; k++)
        any |= gnn_import_find_maybe_gz(path, dir, names[k]);
    if (!any)
        return GNN_OK;
    if (offset < 0 || count < 0 || offset + count > ds->graph.n)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: split of vertices [%lld, %lld) outside the graph's %lld", dir,
                           (long long)offset, (long long)(offset + count), (long long)ds->graph.n);
    if (!ds->split && !(ds->split = gnn_calloc((size_t)ds->graph.n, 1)))
        return gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory for the split of %lld vertices", dir,
                           (long long)ds->graph.n);
    for (int k = 0; k < 3; k++) {
        if (!gnn_import_find_maybe_gz(path, dir, names[k]))
            continue;
        int64_t cnt;
        gnn_status st = read_split_file(path, count, (uint8_t)(GNN_SPLIT_TRAIN + k), ds->split + offset, &cnt, err);
        if (st)
            return st;
    }
    return GNN_OK;
}

/* ==== the frame of every importer ==== */

/* Either body (the options' limit only) or body_opt (all the options) reads. */
static gnn_status import_frame(gnn_dataset *ds, const char *path, const gnn_import_options *opt, const char *what,
                               int strip_ext, gnn_import_body body, gnn_import_body_opt body_opt, gnn_err *err)
{
    gnn_status ast = check_import_args(ds, path, opt, what, err);
    if (ast)
        return ast;
    memset(ds, 0, sizeof *ds);
    ds->owns_arrays = 1; /* so gnn_dataset_free cleans up a partial import */
    gnn_import_set_name(ds, path, strip_ext);
    gnn_status st = body ? body(ds, path, max_vertices_of(opt), err) : body_opt(ds, path, opt, max_vertices_of(opt), err);
    /* sparse input features: CSR by the density rule unless the options force one (the
     * importers read into the dense matrix, which stays as the dense view) */
    if (!st)
        st = gnn_dataset_set_feat_storage(ds, opt ? opt->feat_storage : GNN_FEAT_STORE_AUTO, err);
    if (!st)
        st = gnn_dataset_validate(ds, path, err);
    if (st)
        gnn_dataset_free(ds);
    return st;
}

gnn_status gnn_import_run(gnn_dataset *ds, const char *path, const gnn_import_options *opt, const char *what,
                          int strip_ext, gnn_import_body body, gnn_err *err)
{
    return import_frame(ds, path, opt, what, strip_ext, body, NULL, err);
}

gnn_status gnn_import_run_opt(gnn_dataset *ds, const char *path, const gnn_import_options *opt, const char *what,
                              int strip_ext, gnn_import_body_opt body, gnn_err *err)
{
    return import_frame(ds, path, opt, what, strip_ext, NULL, body, err);
}
