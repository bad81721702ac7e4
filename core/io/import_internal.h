/* core/io/import_internal.h -- internal: what the importers share (include/gnnref/dataset.h,
 * "importers"; docs/formats.md; DESIGN.md section 5), one file per input format:
 *   core/io/import_util.c      the frame of every importer (arguments, naming, validation), the
 *                           line reader over zlib, the vertex limit, the shared steps (keeping
 *                           an edge, the graph from an edge list, split files)
 *   core/io/import_text.c      the text layout of shared/datasets (meta.txt, edges.txt, ...)
 *   core/io/import_ogb.c       OGB raw CSV (edge.csv, node-feat.csv, node-label.csv, split/)
 *   core/io/import_ogb_hetero.c  OGB heterogeneous raw CSV (ogbn-mag: num-node-dict.csv, relations/)
 *   core/io/import_ogb_util.c  what the two OGB importers share (features, labels, split/, name)
 *   core/io/import_edgelist.c  plain edge lists
 *
 * Every file is read through zlib (gzopen/gzread), which reads gzip-compressed and plain
 * files alike, so "edge.csv" and "edge.csv.gz" take the same path. Parsing is strict: a line
 * that does not have exactly the expected fields is an error naming "file:line: reason
 * (got 'text')", never skipped. Blank lines are allowed (they carry nothing); comments only
 * where the format has them (edge lists). Rules per importer are in docs/formats.md. */
#ifndef GNNREF_CORE_IMPORT_INTERNAL_H
#define GNNREF_CORE_IMPORT_INTERNAL_H

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#include "gnnref/dataset.h"

#define PATH_CAP 4096
/* largest vertex id any importer accepts: keeps n * sizeof(int64_t) and friends far from overflow */
#define MAX_ID ((int64_t)1 << 40)

/* ==== line reader over zlib (core/io/import_util.c) ==== */

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

gnn_status gnn_lr_open(line_reader *lr, const char *path, gnn_err *err);
void gnn_lr_close(line_reader *lr);
/* Next line into lr->buf. Returns 1 (a line), 0 (end of file) or a negative gnn_status
 * (read or gzip error, or a NUL byte, message in err). Lines of any length are read whole. */
int gnn_lr_next(line_reader *lr, gnn_err *err);
/* "file:line: reason (got 'text')" with the text shortened to something readable. */
gnn_status gnn_lr_fail(const line_reader *lr, gnn_status s, const char *reason, gnn_err *err);

static inline int is_blank(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return *s == '\0';
}

/* ==== the frame and the limit (core/io/import_util.c) ==== */

/* An importer's reading: path into *ds (zeroed, named, owning its arrays), at most max_v
 * vertices; what it allocated before a failure is freed by the caller. */
typedef gnn_status (*gnn_import_body)(gnn_dataset *ds, const char *path, int64_t max_v, gnn_err *err);
/* The frame of every public importer: check the arguments (`what` names the importer in the
 * message), start from an empty dataset named after path (without its extension when
 * strip_ext), read it with body, then gnn_dataset_validate; on any failure *ds is freed. */
gnn_status gnn_import_run(gnn_dataset *ds, const char *path, const gnn_import_options *opt, const char *what,
                          int strip_ext, gnn_import_body body, gnn_err *err);
/* The same frame for a body that reads more of the options (opt may be NULL: the defaults). */
typedef gnn_status (*gnn_import_body_opt)(gnn_dataset *ds, const char *path, const gnn_import_options *opt,
                                          int64_t max_v, gnn_err *err);
gnn_status gnn_import_run_opt(gnn_dataset *ds, const char *path, const gnn_import_options *opt, const char *what,
                              int strip_ext, gnn_import_body_opt body, gnn_err *err);
/* The message for a vertex count above the limit, from `what` (the file and its claim). */
gnn_status gnn_import_too_many_vertices(const char *what, int64_t n, int64_t max_v, gnn_err *err);

/* ==== strict field parsing ==== */

/* An integer field at *p, skipping leading blanks; advances *p. Returns 0 or -1. */
static inline int field_i64(const char **p, int64_t *out)
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

static inline int field_f32(const char **p, float *out)
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
static inline int at_end(const char *p)
{
    return is_blank(p);
}

/* ==== growable int64 arrays ==== */

typedef struct i64_vec {
    int64_t *v;
    int64_t len, cap;
} i64_vec;

static inline int vec_push(i64_vec *a, int64_t x)
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

static inline void vec_free(i64_vec *a)
{
    free(a->v);
    memset(a, 0, sizeof *a);
}

/* ==== paths ==== */

static inline gnn_status join(char *out, const char *dir, const char *name, gnn_err *err)
{
    if ((size_t)snprintf(out, PATH_CAP, "%s/%s", dir, name) >= PATH_CAP)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s/%s: path too long", dir, name);
    return GNN_OK;
}

static inline int file_exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* dir/name or dir/name.gz, whichever exists (plain first); returns 1 when found. */
int gnn_import_find_maybe_gz(char *out, const char *dir, const char *name);
/* The last path component of path (ignoring trailing slashes) as the dataset's name, without
 * its extension when strip_ext. */
void gnn_import_set_name(gnn_dataset *ds, const char *path, int strip_ext);

/* ==== shared steps (core/io/import_util.c) ==== */

/* Keep the edge u -> v read at lr's current line, for the formats whose vertex count is known
 * only at the end (OGB's edge.csv, edge lists): ids in [0, 2^40] and below the limit max_v,
 * else an error at that line; *max_id is the largest id kept. */
gnn_status gnn_import_keep_edge(const line_reader *lr, int64_t u, int64_t v, int64_t max_v, i64_vec *src, i64_vec *dst,
                                int64_t *max_id, gnn_err *err);

/* Build the in-neighbor CSR from an edge list and record what was merged or dropped:
 * duplicates_merged = (entries the flags give without deduplication) - nnz. */
gnn_status gnn_import_build_graph(gnn_dataset *ds, int64_t n, const i64_vec *src, const i64_vec *dst, unsigned flags,
                                  const char *what, gnn_err *err);
/* Read up to three split files (train/val/test names under dir, each optional, .gz allowed).
 * Leaves ds->split NULL when none exists. */
gnn_status gnn_import_read_splits(gnn_dataset *ds, const char *dir, const char *const names[3], gnn_err *err);
/* The same for the vertices [offset, offset + count) (one type of a heterogeneous graph): the
 * files' ids are in [0, count) and mark split[offset + id]; allocates ds->split (zeroed) on the
 * first file found and keeps what earlier calls marked. */
gnn_status gnn_import_read_splits_at(gnn_dataset *ds, const char *dir, const char *const names[3], int64_t offset,
                                     int64_t count, gnn_err *err);

/* ==== OGB steps shared by core/io/import_ogb.c and core/io/import_ogb_hetero.c: ====
 * ==== core/io/import_ogb_util.c                                                  ==== */

/* node-feat.csv: one row of comma-separated finite floats per vertex, every row as wide as the
 * first; *out (gnn_malloc, rows x width) is NULL when there are no rows. */
gnn_status gnn_ogb_read_features(const char *path, float **out, int64_t *rows, int64_t *width, gnn_err *err);
/* node-label.csv: one label per line; "nan", -1 or an empty line is unlabelled (-1). */
gnn_status gnn_ogb_read_labels(const char *path, i64_vec *labels, int64_t *max_label, gnn_err *err);
/* The alphabetically first subdirectory of root holding probe_name (.gz allowed), into out. */
int gnn_ogb_find_split_dir(const char *root, const char *probe_name, char *out);
/* Name the dataset after DIR when the path given was DIR/raw. */
void gnn_ogb_name(gnn_dataset *ds, const char *dir);

#endif
