/* core/import.c -- importers: the shared/datasets text layout, OGB raw CSV, plain edge lists.
 *
 * Every file is read through zlib (gzopen/gzgets), which reads gzip-compressed and plain
 * files alike, so "edge.csv" and "edge.csv.gz" take the same path. Parsing is strict: a line
 * that does not have exactly the expected fields is an error naming "file:line: reason
 * (got 'text')", never skipped. Blank lines are allowed (they carry nothing); comments only
 * where the format has them (edge lists). Rules per importer are in docs/formats.md. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <zlib.h>
#include "gnnref/dataset.h"
#include "gnnref/tensor.h"

#define PATH_CAP 4096
/* largest vertex id any importer accepts: keeps n * sizeof(int64_t) and friends far from overflow */
#define MAX_ID ((int64_t)1 << 40)

/* ==== line reader over zlib ==== */

typedef struct line_reader {
    gzFile f;
    const char *path;
    char *buf;      /* the current line, NUL-terminated, without its '\n' (and '\r') */
    size_t cap;
    int64_t lineno; /* 1-based number of the current line */
    unsigned char *chunk; /* decompressed bytes not yet split into lines: [pos, end) */
    size_t pos, end;
    int eof;
} line_reader;

#define LR_CHUNK ((size_t)1 << 18)

static gnn_status lr_open(line_reader *lr, const char *path, gnn_err *err)
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

static void lr_close(line_reader *lr)
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
static int lr_next(line_reader *lr, gnn_err *err)
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
static gnn_status lr_fail(const line_reader *lr, gnn_status s, const char *reason, gnn_err *err)
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
    return lr_fail(lr, GNN_ERR_RANGE, why, err);
}

static int is_blank(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return *s == '\0';
}

/* ==== limits ==== */

static int64_t max_vertices_of(const gnn_import_options *opt)
{
    return opt ? opt->max_vertices : GNN_IMPORT_MAX_VERTICES;
}

/* The message for a vertex count above the limit, from `what` (the file and its claim). */
static gnn_status too_many_vertices(const char *what, int64_t n, int64_t max_v, gnn_err *err)
{
    return gnn_err_set(err, GNN_ERR_RANGE,
                       "%s: %lld vertices, above the limit of %lld (gnnref convert --max-vertices N raises it; "
                       "docs/formats.md, \"Limits\")",
                       what, (long long)n, (long long)max_v);
}

void gnn_import_defaults(gnn_import_options *o)
{
    if (o)
        o->max_vertices = GNN_IMPORT_MAX_VERTICES;
}

/* ==== strict field parsing ==== */

/* An integer field at *p, skipping leading blanks; advances *p. Returns 0 or -1. */
static int field_i64(const char **p, int64_t *out)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!(isdigit((unsigned char)*s) || ((*s == '-' || *s == '+') && isdigit((unsigned char)s[1]))))
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno)
        return -1;
    *out = v;
    *p = end;
    return 0;
}

static int field_f32(const char **p, float *out)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s || *s == ',')
        return -1;
    char *end;
    double v = strtod(s, &end);
    if (end == s)
        return -1;
    *out = (float)v; /* NaN, Inf and out-of-range values are caught by the caller's isfinite */
    *p = end;
    return 0;
}

/* True when only blanks remain. */
static int at_end(const char *p)
{
    return is_blank(p);
}

/* ==== growable int64 arrays ==== */

typedef struct i64_vec {
    int64_t *v;
    int64_t len, cap;
} i64_vec;

static int vec_push(i64_vec *a, int64_t x)
{
    if (a->len == a->cap) {
        int64_t nc = a->cap ? a->cap * 2 : 1024;
        int64_t *nv = realloc(a->v, (size_t)nc * sizeof(int64_t));
        if (!nv)
            return -1;
        a->v = nv;
        a->cap = nc;
    }
    a->v[a->len++] = x;
    return 0;
}

static void vec_free(i64_vec *a)
{
    free(a->v);
    memset(a, 0, sizeof *a);
}

/* ==== paths ==== */

static gnn_status join(char *out, const char *dir, const char *name, gnn_err *err)
{
    if ((size_t)snprintf(out, PATH_CAP, "%s/%s", dir, name) >= PATH_CAP)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s/%s: path too long", dir, name);
    return GNN_OK;
}

static int file_exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* dir/name or dir/name.gz, whichever exists (plain first); returns 1 when found. */
static int find_maybe_gz(char *out, const char *dir, const char *name)
{
    if ((size_t)snprintf(out, PATH_CAP, "%s/%s", dir, name) < PATH_CAP && file_exists(out))
        return 1;
    if ((size_t)snprintf(out, PATH_CAP, "%s/%s.gz", dir, name) < PATH_CAP && file_exists(out))
        return 1;
    return 0;
}

/* The last path component of dir (ignoring trailing slashes), for the dataset name. */
static void set_name(gnn_dataset *ds, const char *path, int strip_ext)
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
static gnn_status build_graph(gnn_dataset *ds, int64_t n, const i64_vec *src, const i64_vec *dst, unsigned flags,
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
 * and appear in no earlier split file. */
static gnn_status read_split_file(const char *path, int64_t n, uint8_t code, uint8_t *split, int64_t *count,
                                  gnn_err *err)
{
    static const char *const k_code[] = { "none", "train", "val", "test" };
    line_reader lr;
    gnn_status st = lr_open(&lr, path, err);
    if (st)
        return st;
    int r;
    *count = 0;
    while ((r = lr_next(&lr, err)) > 0) {
        if (is_blank(lr.buf))
            continue;
        const char *p = lr.buf;
        int64_t v;
        if (field_i64(&p, &v) || !at_end(p)) {
            st = lr_fail(&lr, GNN_ERR_FORMAT, "expected one vertex id per line", err);
            break;
        }
        if (v < 0 || v >= n) {
            char why[128];
            snprintf(why, sizeof why, "vertex id %lld outside [0, %lld)", (long long)v, (long long)n);
            st = lr_fail(&lr, GNN_ERR_RANGE, why, err);
            break;
        }
        if (split[v] != GNN_SPLIT_NONE) {
            char why[128];
            snprintf(why, sizeof why, "vertex %lld is already in the %s split", (long long)v, k_code[split[v]]);
            st = lr_fail(&lr, GNN_ERR_FORMAT, why, err);
            break;
        }
        split[v] = code;
        (*count)++;
    }
    if (r < 0)
        st = (gnn_status)-r;
    lr_close(&lr);
    return st;
}

/* Read up to three split files (train/val/test names under dir, each optional, .gz allowed).
 * Leaves ds->split NULL when none exists. */
static gnn_status read_splits(gnn_dataset *ds, const char *dir, const char *const names[3], gnn_err *err)
{
    char path[PATH_CAP];
    int any = 0;
    for (int k = 0; k < 3; k++)
        any |= find_maybe_gz(path, dir, names[k]);
    if (!any)
        return GNN_OK;
    ds->split = gnn_calloc((size_t)ds->graph.n, 1);
    if (!ds->split)
        return gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory for the split of %lld vertices", dir,
                           (long long)ds->graph.n);
    for (int k = 0; k < 3; k++) {
        if (!find_maybe_gz(path, dir, names[k]))
            continue;
        int64_t cnt;
        gnn_status st = read_split_file(path, ds->graph.n, (uint8_t)(GNN_SPLIT_TRAIN + k), ds->split, &cnt, err);
        if (st)
            return st;
    }
    return GNN_OK;
}

/* ==== text layout (shared/datasets) ==== */

typedef struct text_meta {
    int64_t n, f, c, directed_edges; /* -1 when the key is absent */
} text_meta;

static gnn_status read_meta(const char *dir, text_meta *m, gnn_err *err)
{
    char path[PATH_CAP];
    gnn_status st = join(path, dir, "meta.txt", err);
    if (st)
        return st;
    m->n = m->f = m->c = m->directed_edges = -1;
    line_reader lr;
    if ((st = lr_open(&lr, path, err)))
        return st;
    int r;
    while ((r = lr_next(&lr, err)) > 0) {
        if (is_blank(lr.buf))
            continue;
        /* "key value": only the numeric keys below are read; others are notes for people */
        char key[64];
        const char *p = lr.buf;
        size_t k = strcspn(p, " \t");
        if (k == 0 || k >= sizeof key) {
            st = lr_fail(&lr, GNN_ERR_FORMAT, "expected 'key value'", err);
            break;
        }
        memcpy(key, p, k);
        key[k] = '\0';
        p += k;
        int64_t *slot = !strcmp(key, "num_nodes") ? &m->n
                        : !strcmp(key, "num_features") ? &m->f
                        : !strcmp(key, "num_classes") ? &m->c
                        : !strcmp(key, "num_directed_edges") ? &m->directed_edges : NULL;
        if (!slot)
            continue;
        int64_t v;
        if (field_i64(&p, &v) || !at_end(p) || v < 0 || v > MAX_ID) {
            st = lr_fail(&lr, GNN_ERR_FORMAT, "expected a non-negative integer value", err);
            break;
        }
        *slot = v;
    }
    if (r < 0)
        st = (gnn_status)-r;
    lr_close(&lr);
    if (!st && m->n < 0)
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: missing key 'num_nodes'", path);
    if (!st && m->c > INT32_MAX)
        st = gnn_err_set(err, GNN_ERR_RANGE, "%s: num_classes %lld is too large", path, (long long)m->c);
    return st;
}

/* Read "u v" edge lines with ids in [0, n). */
static gnn_status read_text_edges(const char *path, int64_t n, i64_vec *src, i64_vec *dst, gnn_err *err)
{
    line_reader lr;
    gnn_status st = lr_open(&lr, path, err);
    if (st)
        return st;
    int r;
    while ((r = lr_next(&lr, err)) > 0) {
        if (is_blank(lr.buf))
            continue;
        const char *p = lr.buf;
        int64_t u, v;
        if (field_i64(&p, &u) || field_i64(&p, &v) || !at_end(p)) {
            st = lr_fail(&lr, GNN_ERR_FORMAT, "expected two vertex ids 'u v'", err);
            break;
        }
        if (u < 0 || u >= n || v < 0 || v >= n) {
            char why[160];
            snprintf(why, sizeof why, "vertex id %lld outside [0, %lld) (num_nodes in meta.txt)",
                     (long long)(u < 0 || u >= n ? u : v), (long long)n);
            st = lr_fail(&lr, GNN_ERR_RANGE, why, err);
            break;
        }
        if (vec_push(src, u) || vec_push(dst, v)) {
            st = gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
            break;
        }
    }
    if (r < 0)
        st = (gnn_status)-r;
    lr_close(&lr);
    return st;
}

/* Sparse COO "node feature value" into the dense (n, f) matrix; strictly increasing
 * (node, feature) order, which is the layout's contract and catches repeated entries. */
static gnn_status read_text_features(const char *path, int64_t n, int64_t f, float *feat, gnn_err *err)
{
    line_reader lr;
    gnn_status st = lr_open(&lr, path, err);
    if (st)
        return st;
    int r;
    int64_t pv = -1, pj = -1;
    while ((r = lr_next(&lr, err)) > 0) {
        if (is_blank(lr.buf))
            continue;
        const char *p = lr.buf;
        int64_t v, j;
        float x;
        char why[160];
        if (field_i64(&p, &v) || field_i64(&p, &j) || field_f32(&p, &x) || !at_end(p)) {
            st = lr_fail(&lr, GNN_ERR_FORMAT, "expected 'node feature value'", err);
            break;
        }
        if (v < 0 || v >= n || j < 0 || j >= f) {
            snprintf(why, sizeof why, "%s id %lld outside [0, %lld)", (v < 0 || v >= n) ? "node" : "feature",
                     (long long)((v < 0 || v >= n) ? v : j), (long long)((v < 0 || v >= n) ? n : f));
            st = lr_fail(&lr, GNN_ERR_RANGE, why, err);
            break;
        }
        if (!isfinite(x)) {
            snprintf(why, sizeof why, "node %lld feature %lld is not a finite f32", (long long)v, (long long)j);
            st = lr_fail(&lr, GNN_ERR_NAN, why, err);
            break;
        }
        if (v < pv || (v == pv && j <= pj)) {
            snprintf(why, sizeof why, "entry (%lld, %lld) does not come after (%lld, %lld): the file must be sorted by "
                     "node then feature, without repeats", (long long)v, (long long)j, (long long)pv, (long long)pj);
            st = lr_fail(&lr, GNN_ERR_FORMAT, why, err);
            break;
        }
        pv = v;
        pj = j;
        feat[v * f + j] = x;
    }
    if (r < 0)
        st = (gnn_status)-r;
    lr_close(&lr);
    return st;
}

/* labels.txt: line i is the label of node i, -1 or [0, c); exactly n lines. */
static gnn_status read_text_labels(const char *path, int64_t n, int64_t c, int32_t *labels, gnn_err *err)
{
    line_reader lr;
    gnn_status st = lr_open(&lr, path, err);
    if (st)
        return st;
    int r;
    int64_t v = 0;
    while ((r = lr_next(&lr, err)) > 0) {
        const char *p = lr.buf;
        int64_t y;
        char why[160];
        if (field_i64(&p, &y) || !at_end(p)) {
            st = lr_fail(&lr, GNN_ERR_FORMAT, "expected one integer label per line", err);
            break;
        }
        if (v >= n) {
            snprintf(why, sizeof why, "more label lines than num_nodes = %lld", (long long)n);
            st = lr_fail(&lr, GNN_ERR_FORMAT, why, err);
            break;
        }
        if (y != -1 && (y < 0 || y >= c)) {
            snprintf(why, sizeof why, "node %lld has label %lld, expected -1 or [0, %lld)", (long long)v, (long long)y,
                     (long long)c);
            st = lr_fail(&lr, GNN_ERR_RANGE, why, err);
            break;
        }
        labels[v++] = (int32_t)y;
    }
    if (r < 0)
        st = (gnn_status)-r;
    lr_close(&lr);
    if (!st && v != n)
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: %lld label lines, expected num_nodes = %lld (one per node)", path,
                         (long long)v, (long long)n);
    return st;
}

static gnn_status import_text_body(gnn_dataset *ds, const char *dir, int64_t max_v, gnn_err *err)
{
    text_meta m;
    gnn_status st = read_meta(dir, &m, err);
    if (st)
        return st;
    if (m.n > max_v) {
        char what[PATH_CAP + 48];
        snprintf(what, sizeof what, "%s/meta.txt: num_nodes", dir);
        return too_many_vertices(what, m.n, max_v, err);
    }
    char path[PATH_CAP];
    i64_vec src = { 0 }, dst = { 0 };
    if ((st = join(path, dir, "edges.txt", err)) || (st = read_text_edges(path, m.n, &src, &dst, err)))
        goto out;
    if (m.directed_edges >= 0 && m.directed_edges != src.len) {
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: %lld edge lines, but meta.txt says num_directed_edges %lld", path,
                         (long long)src.len, (long long)m.directed_edges);
        goto out;
    }
    /* the layout's edges are already symmetric: keep them as they are, only deduplicate */
    if ((st = build_graph(ds, m.n, &src, &dst, GNN_CSR_DEDUP, path, err)))
        goto out;
    vec_free(&src);
    vec_free(&dst);

    ds->num_features = m.f > 0 ? m.f : 0;
    if ((st = join(path, dir, "features.txt", err)))
        goto out;
    if (file_exists(path) && m.f < 0) {
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s/meta.txt: missing key 'num_features' (features.txt exists)", dir);
        goto out;
    }
    if (ds->num_features == 0 && file_exists(path)) {
        /* num_features 0 with a features file: any entry is out of range, nothing is ignored */
        if ((st = read_text_features(path, m.n, 0, NULL, err)))
            goto out;
    } else if (ds->num_features > 0) {
        if (m.n > 0 && ds->num_features > INT64_MAX / 4 / m.n) {
            st = gnn_err_set(err, GNN_ERR_RANGE, "%s/meta.txt: num_nodes x num_features is too large", dir);
            goto out;
        }
        ds->feat = gnn_calloc((size_t)(m.n * ds->num_features), sizeof(float));
        if (!ds->feat) {
            st = gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory for %lld x %lld features", dir, (long long)m.n,
                             (long long)ds->num_features);
            goto out;
        }
        if ((st = read_text_features(path, m.n, ds->num_features, ds->feat, err)))
            goto out;
    }

    if ((st = join(path, dir, "labels.txt", err)))
        goto out;
    if (file_exists(path)) {
        if (m.c < 0) {
            st = gnn_err_set(err, GNN_ERR_FORMAT, "%s/meta.txt: missing key 'num_classes' (labels.txt exists)", dir);
            goto out;
        }
        ds->num_classes = m.c;
        ds->labels = gnn_malloc((size_t)m.n * sizeof(int32_t));
        if (!ds->labels) {
            st = GNN_ERR_NOMEM;
            goto out;
        }
        if ((st = read_text_labels(path, m.n, m.c, ds->labels, err)))
            goto out;
    } else {
        ds->num_classes = m.c > 0 ? m.c : 0;
    }
    static const char *const k_split_names[3] = { "train.txt", "val.txt", "test.txt" };
    st = read_splits(ds, dir, k_split_names, err);
out:
    vec_free(&src);
    vec_free(&dst);
    return st;
}

static gnn_status check_import_args(const void *ds, const char *path, const gnn_import_options *opt,
                                    const char *what, gnn_err *err)
{
    if (!ds || !path)
        return gnn_err_set(err, GNN_ERR_INVAL, "import %s: NULL argument", what);
    if (opt && (opt->max_vertices < 1 || opt->max_vertices > MAX_ID + 1))
        return gnn_err_set(err, GNN_ERR_INVAL, "import %s: max_vertices %lld outside [1, 2^40]", what,
                           (long long)opt->max_vertices);
    return GNN_OK;
}

gnn_status gnn_import_text(gnn_dataset *ds, const char *dir, const gnn_import_options *opt, gnn_err *err)
{
    gnn_status ast = check_import_args(ds, dir, opt, "text", err);
    if (ast)
        return ast;
    memset(ds, 0, sizeof *ds);
    ds->owns_arrays = 1; /* so gnn_dataset_free cleans up a partial import */
    set_name(ds, dir, 0);
    gnn_status st = import_text_body(ds, dir, max_vertices_of(opt), err);
    if (!st)
        st = gnn_dataset_validate(ds, dir, err);
    if (st)
        gnn_dataset_free(ds);
    return st;
}

/* ==== OGB raw CSV ==== */

/* "u,v" rows; ids >= 0 and <= MAX_ID (n is known only later). */
static gnn_status read_ogb_edges(const char *path, int64_t max_v, i64_vec *src, i64_vec *dst, int64_t *max_id,
                                 gnn_err *err)
{
    line_reader lr;
    gnn_status st = lr_open(&lr, path, err);
    if (st)
        return st;
    int r;
    *max_id = -1;
    while ((r = lr_next(&lr, err)) > 0) {
        if (is_blank(lr.buf))
            continue;
        const char *p = lr.buf;
        int64_t u, v;
        if (field_i64(&p, &u) || *p++ != ',' || field_i64(&p, &v) || !at_end(p)) {
            st = lr_fail(&lr, GNN_ERR_FORMAT, "expected 'u,v'", err);
            break;
        }
        if (u < 0 || v < 0 || u > MAX_ID || v > MAX_ID) {
            st = lr_fail(&lr, GNN_ERR_RANGE, "vertex id negative or above 2^40", err);
            break;
        }
        if (u >= max_v || v >= max_v) {
            st = id_above_limit(&lr, u > v ? u : v, max_v, err);
            break;
        }
        if (vec_push(src, u) || vec_push(dst, v)) {
            st = gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
            break;
        }
        if (u > *max_id)
            *max_id = u;
        if (v > *max_id)
            *max_id = v;
    }
    if (r < 0)
        st = (gnn_status)-r;
    lr_close(&lr);
    return st;
}

/* num-node-list.csv: one line with the vertex count (single-graph datasets). */
static gnn_status read_ogb_num_nodes(const char *path, int64_t *n, gnn_err *err)
{
    line_reader lr;
    gnn_status st = lr_open(&lr, path, err);
    if (st)
        return st;
    int r, lines = 0;
    while ((r = lr_next(&lr, err)) > 0) {
        if (is_blank(lr.buf))
            continue;
        const char *p = lr.buf;
        if (++lines > 1) {
            st = lr_fail(&lr, GNN_ERR_UNSUPPORTED, "more than one graph (only single-graph node datasets are supported)",
                         err);
            break;
        }
        if (field_i64(&p, n) || !at_end(p) || *n < 0 || *n > MAX_ID) {
            st = lr_fail(&lr, GNN_ERR_FORMAT, "expected the number of nodes", err);
            break;
        }
    }
    if (r < 0)
        st = (gnn_status)-r;
    lr_close(&lr);
    if (!st && lines == 0)
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: empty file, expected the number of nodes", path);
    return st;
}

/* node-feat.csv: one row of comma-separated floats per node, all rows as wide as the first. */
static gnn_status read_ogb_features(const char *path, float **out, int64_t *rows, int64_t *width, gnn_err *err)
{
    line_reader lr;
    gnn_status st = lr_open(&lr, path, err);
    if (st)
        return st;
    float *buf = NULL, *row = NULL;
    int64_t cap_rows = 0, w = -1, nrows = 0, row_cap = 0;
    int r;
    while ((r = lr_next(&lr, err)) > 0) {
        const char *p = lr.buf;
        int64_t k = 0;
        char why[160];
        /* parse the row into a scratch buffer first: the width is known only after the first */
        for (;;) {
            if (k == row_cap) {
                int64_t nc = row_cap ? row_cap * 2 : 256;
                float *nr = realloc(row, (size_t)nc * sizeof(float));
                if (!nr) {
                    st = GNN_ERR_NOMEM;
                    goto done;
                }
                row = nr;
                row_cap = nc;
            }
            if (field_f32(&p, &row[k])) {
                st = lr_fail(&lr, GNN_ERR_FORMAT, "expected comma-separated numbers", err);
                goto done;
            }
            if (!isfinite(row[k])) {
                snprintf(why, sizeof why, "node %lld feature %lld is not a finite f32", (long long)nrows, (long long)k);
                st = lr_fail(&lr, GNN_ERR_NAN, why, err);
                goto done;
            }
            k++;
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p != '\0') {
                st = lr_fail(&lr, GNN_ERR_FORMAT, "expected comma-separated numbers", err);
                goto done;
            }
            break;
        }
        if (w < 0)
            w = k;
        if (k != w) {
            snprintf(why, sizeof why, "row has %lld values, expected %lld (the first row's width)", (long long)k,
                     (long long)w);
            st = lr_fail(&lr, GNN_ERR_FORMAT, why, err);
            goto done;
        }
        if (nrows == cap_rows) {
            int64_t nc = cap_rows ? cap_rows * 2 : 1024;
            float *nb = gnn_malloc((size_t)(nc * w) * sizeof(float));
            if (!nb) {
                st = gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
                goto done;
            }
            if (buf)
                memcpy(nb, buf, (size_t)(nrows * w) * sizeof(float));
            gnn_free(buf);
            buf = nb;
            cap_rows = nc;
        }
        memcpy(buf + nrows * w, row, (size_t)w * sizeof(float));
        nrows++;
    }
    if (r < 0)
        st = (gnn_status)-r;
done:
    free(row);
    lr_close(&lr);
    if (st) {
        gnn_free(buf);
        return st;
    }
    *out = buf;
    *rows = nrows;
    *width = w < 0 ? 0 : w;
    return GNN_OK;
}

/* node-label.csv: one label per line; "nan" or empty means unlabelled (-1). */
static gnn_status read_ogb_labels(const char *path, i64_vec *labels, int64_t *max_label, gnn_err *err)
{
    line_reader lr;
    gnn_status st = lr_open(&lr, path, err);
    if (st)
        return st;
    int r;
    *max_label = -1;
    while ((r = lr_next(&lr, err)) > 0) {
        const char *p = lr.buf;
        while (*p == ' ' || *p == '\t')
            p++;
        int64_t y = -1;
        if (*p != '\0' && strncasecmp(p, "nan", 3) != 0) {
            char *end;
            double d = strtod(p, &end);
            if (end == p || !at_end(end) || d != floor(d) || d < -1 || d > INT32_MAX) {
                st = lr_fail(&lr, GNN_ERR_FORMAT, "expected one integer label >= -1, 'nan' or an empty line "
                             "(multi-label data is not supported)", err);
                break;
            }
            y = (int64_t)d;
        } else if (*p != '\0' && !at_end(p + 3)) {
            st = lr_fail(&lr, GNN_ERR_FORMAT, "expected one label per line", err);
            break;
        }
        if (vec_push(labels, y)) {
            st = GNN_ERR_NOMEM;
            break;
        }
        if (y > *max_label)
            *max_label = y;
    }
    if (r < 0)
        st = (gnn_status)-r;
    lr_close(&lr);
    return st;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The split directory: the alphabetically first subdirectory of `root` holding train.csv[.gz]. */
static int find_ogb_split_dir(const char *root, char *out)
{
    DIR *d = opendir(root);
    if (!d)
        return 0;
    char *names[256];
    int k = 0;
    struct dirent *e;
    while ((e = readdir(d)) && k < 256) {
        char *s = e->d_name[0] != '.' ? strdup(e->d_name) : NULL;
        if (s)
            names[k++] = s;
    }
    closedir(d);
    qsort(names, (size_t)k, sizeof names[0], cmp_str);
    int found = 0;
    char probe[PATH_CAP];
    for (int i = 0; i < k; i++) {
        if (!found && names[i] && (size_t)snprintf(out, PATH_CAP, "%s/%s", root, names[i]) < PATH_CAP &&
            find_maybe_gz(probe, out, "train.csv"))
            found = 1;
        free(names[i]);
    }
    return found;
}

/* Locate raw/ and split/ for an OGB directory given as DIR or DIR/raw. */
static gnn_status ogb_dirs(const char *dir, char *raw, char *split_root, gnn_err *err)
{
    char probe[PATH_CAP];
    if (find_maybe_gz(probe, dir, "edge.csv")) {
        /* DIR is the raw folder itself: split/ is beside it or inside it */
        snprintf(raw, PATH_CAP, "%s", dir);
        if ((size_t)snprintf(split_root, PATH_CAP, "%s/split", dir) < PATH_CAP) {
            struct stat sb;
            if (stat(split_root, &sb) == 0 && S_ISDIR(sb.st_mode))
                return GNN_OK;
        }
        snprintf(split_root, PATH_CAP, "%s/../split", dir);
        return GNN_OK;
    }
    if ((size_t)snprintf(raw, PATH_CAP, "%s/raw", dir) < PATH_CAP && find_maybe_gz(probe, raw, "edge.csv")) {
        snprintf(split_root, PATH_CAP, "%s/split", dir);
        return GNN_OK;
    }
    return gnn_err_set(err, GNN_ERR_IO, "%s: no edge.csv[.gz] here or in %s/raw (OGB layout)", dir, dir);
}

static gnn_status import_ogb_body(gnn_dataset *ds, const char *dir, int64_t max_v, gnn_err *err)
{
    char raw[PATH_CAP], split_root[PATH_CAP], path[PATH_CAP];
    gnn_status st = ogb_dirs(dir, raw, split_root, err);
    if (st)
        return st;
    i64_vec src = { 0 }, dst = { 0 }, lab = { 0 };
    float *feat = NULL;
    int64_t n = -1, max_id = -1, rows = 0, width = 0, max_label = -1;
    const char *n_from = "the largest vertex id in edge.csv + 1";
    if (find_maybe_gz(path, raw, "num-node-list.csv")) {
        if ((st = read_ogb_num_nodes(path, &n, err)))
            goto out;
        n_from = "num-node-list.csv";
        if (n > max_v) {
            st = too_many_vertices(path, n, max_v, err);
            goto out;
        }
    }
    find_maybe_gz(path, raw, "edge.csv");
    char edge_path[PATH_CAP];
    memcpy(edge_path, path, PATH_CAP);
    if ((st = read_ogb_edges(edge_path, max_v, &src, &dst, &max_id, err)))
        goto out;
    int have_feat = find_maybe_gz(path, raw, "node-feat.csv");
    if (have_feat && (st = read_ogb_features(path, &feat, &rows, &width, err)))
        goto out;
    if (n < 0 && have_feat)
        n = rows, n_from = "the rows of node-feat.csv";
    if (have_feat && rows != n) {
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: %lld rows, expected %lld nodes (from %s)", path, (long long)rows,
                         (long long)n, n_from);
        goto out;
    }
    char label_path[PATH_CAP];
    int have_lab = find_maybe_gz(label_path, raw, "node-label.csv");
    if (have_lab && (st = read_ogb_labels(label_path, &lab, &max_label, err)))
        goto out;
    if (n < 0 && have_lab)
        n = lab.len, n_from = "the lines of node-label.csv";
    if (n < 0)
        n = max_id + 1;
    if (n > max_v) { /* the rows of node-feat.csv or the lines of node-label.csv */
        char what[PATH_CAP + 64];
        snprintf(what, sizeof what, "%s (the vertex count from %s)", dir, n_from);
        st = too_many_vertices(what, n, max_v, err);
        goto out;
    }
    if (have_lab && lab.len != n) {
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: %lld lines, expected %lld nodes (from %s)", label_path,
                         (long long)lab.len, (long long)n, n_from);
        goto out;
    }
    if (max_id >= n) {
        st = gnn_err_set(err, GNN_ERR_RANGE, "%s: vertex id %lld outside [0, %lld) (node count from %s)", edge_path,
                         (long long)max_id, (long long)n, n_from);
        goto out;
    }
    /* OGB lists each edge once: symmetrize, deduplicate; self-loops are kept as listed */
    if ((st = build_graph(ds, n, &src, &dst, GNN_CSR_SYMMETRIZE | GNN_CSR_DEDUP, edge_path, err)))
        goto out;
    ds->num_features = width;
    ds->feat = width > 0 ? feat : NULL;
    if (width == 0)
        gnn_free(feat);
    feat = NULL;
    if (have_lab) {
        ds->num_classes = max_label + 1;
        ds->labels = gnn_malloc((size_t)n * sizeof(int32_t));
        if (!ds->labels) {
            st = GNN_ERR_NOMEM;
            goto out;
        }
        for (int64_t v = 0; v < n; v++)
            ds->labels[v] = (int32_t)lab.v[v];
    }
    char split_dir[PATH_CAP];
    if (find_ogb_split_dir(split_root, split_dir)) {
        static const char *const k_names[3] = { "train.csv", "valid.csv", "test.csv" };
        st = read_splits(ds, split_dir, k_names, err);
    }
out:
    gnn_free(feat);
    vec_free(&src);
    vec_free(&dst);
    vec_free(&lab);
    return st;
}

gnn_status gnn_import_ogb(gnn_dataset *ds, const char *dir, const gnn_import_options *opt, gnn_err *err)
{
    gnn_status ast = check_import_args(ds, dir, opt, "ogb", err);
    if (ast)
        return ast;
    memset(ds, 0, sizeof *ds);
    ds->owns_arrays = 1;
    set_name(ds, dir, 0);
    if (!strcmp(ds->name, "raw")) { /* DIR/raw was given: name the dataset after DIR */
        char parent[PATH_CAP];
        size_t len = strlen(dir);
        while (len > 1 && dir[len - 1] == '/')
            len--;
        if (len >= 4 && len - 4 < PATH_CAP) {
            memcpy(parent, dir, len - 4);
            parent[len - 4] = '\0';
            if (parent[0])
                set_name(ds, parent, 0);
        }
    }
    gnn_status st = import_ogb_body(ds, dir, max_vertices_of(opt), err);
    if (!st)
        st = gnn_dataset_validate(ds, dir, err);
    if (st)
        gnn_dataset_free(ds);
    return st;
}

/* ==== plain edge lists ==== */

static gnn_status import_edgelist_body(gnn_dataset *ds, const char *path, int64_t max_v, gnn_err *err)
{
    line_reader lr;
    gnn_status st = lr_open(&lr, path, err);
    if (st)
        return st;
    i64_vec src = { 0 }, dst = { 0 };
    int64_t max_id = -1;
    int r;
    while ((r = lr_next(&lr, err)) > 0) {
        const char *p = lr.buf;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0' || *p == '#' || *p == '%')
            continue; /* blank line or comment */
        int64_t u, v;
        if (field_i64(&p, &u) || field_i64(&p, &v) || !at_end(p)) {
            st = lr_fail(&lr, GNN_ERR_FORMAT, "expected two vertex ids 'u v'", err);
            break;
        }
        if (u < 0 || v < 0 || u > MAX_ID || v > MAX_ID) {
            st = lr_fail(&lr, GNN_ERR_RANGE, "vertex id negative or above 2^40", err);
            break;
        }
        if (u >= max_v || v >= max_v) {
            st = id_above_limit(&lr, u > v ? u : v, max_v, err);
            break;
        }
        if (vec_push(&src, u) || vec_push(&dst, v)) {
            st = gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
            break;
        }
        if (u > max_id)
            max_id = u;
        if (v > max_id)
            max_id = v;
    }
    if (r < 0)
        st = (gnn_status)-r;
    lr_close(&lr);
    if (!st)
        st = build_graph(ds, max_id + 1, &src, &dst, GNN_CSR_SYMMETRIZE | GNN_CSR_DEDUP | GNN_CSR_DROP_SELF, path, err);
    vec_free(&src);
    vec_free(&dst);
    return st;
}

gnn_status gnn_import_edgelist(gnn_dataset *ds, const char *path, const gnn_import_options *opt, gnn_err *err)
{
    gnn_status ast = check_import_args(ds, path, opt, "edgelist", err);
    if (ast)
        return ast;
    memset(ds, 0, sizeof *ds);
    ds->owns_arrays = 1;
    set_name(ds, path, 1);
    gnn_status st = import_edgelist_body(ds, path, max_vertices_of(opt), err);
    if (!st)
        st = gnn_dataset_validate(ds, path, err);
    if (st)
        gnn_dataset_free(ds);
    return st;
}
