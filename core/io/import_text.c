/* core/io/import_text.c -- the importer of the text layout of shared/datasets (its README;
 * docs/formats.md, "Text layout"): meta.txt, edges.txt, features.txt, labels.txt and the split
 * files train.txt, val.txt, test.txt, each checked strictly (core/io/import_internal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/io/import_internal.h"
#include "gnnref/dataset.h"
#include "gnnref/tensor.h"

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
    if ((st = gnn_lr_open(&lr, path, err)))
        return st;
    int r;
    while ((r = gnn_lr_next(&lr, err)) > 0) {
        if (is_blank(lr.buf))
            continue;
        /* "key value": only the numeric keys below are read; others are notes for people */
        char key[64];
        const char *p = lr.buf;
        size_t k = strcspn(p, " \t");
        if (k == 0 || k >= sizeof key) {
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected 'key value'", err);
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
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected a non-negative integer value", err);
            break;
        }
        *slot = v;
    }
    if (r < 0)
        st = (gnn_status)-r;
    gnn_lr_close(&lr);
    if (!st && m->n < 0)
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: missing key 'num_nodes'", path);
    if (!st && m->c > INT32_MAX)
        st = gnn_err_set(err, GNN_ERR_RANGE, "%s: num_classes %lld is too large", path, (long long)m->c);
    return st;
}

/* The dense feature matrix is n x num_features cells, both claims of meta.txt: 3 tiny files
 * claiming 1000 x 1000000 made `gnnref info` take 25 s and 3.9 GB. A claim is paid for by what
 * the files hold: at most max(2^24, 1024 x the entries of features.txt) cells (Facebook: 106 M
 * cells from 315 k entries, density 1/337; docs/fuzzing.md, finding 1). */
#define FEAT_CELLS_FLOOR ((int64_t)1 << 24)
#define FEAT_CELLS_PER_ENTRY 1024

/* The entries of features.txt (its non-blank lines), for the bound above. */
static gnn_status count_feature_entries(const char *path, int64_t *entries, gnn_err *err)
{
    line_reader lr;
    gnn_status st = gnn_lr_open(&lr, path, err);
    if (st)
        return st;
    int r;
    *entries = 0;
    while ((r = gnn_lr_next(&lr, err)) > 0)
        *entries += !is_blank(lr.buf);
    gnn_lr_close(&lr);
    return r < 0 ? (gnn_status)-r : GNN_OK;
}

/* Read "u v" edge lines with ids in [0, n). */
static gnn_status read_text_edges(const char *path, int64_t n, i64_vec *src, i64_vec *dst, gnn_err *err)
{
    line_reader lr;
    gnn_status st = gnn_lr_open(&lr, path, err);
    if (st)
        return st;
    int r;
    while ((r = gnn_lr_next(&lr, err)) > 0) {
        if (is_blank(lr.buf))
            continue;
        const char *p = lr.buf;
        int64_t u, v;
        if (field_i64(&p, &u) || field_i64(&p, &v) || !at_end(p)) {
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected two vertex ids 'u v'", err);
            break;
        }
        if (u < 0 || u >= n || v < 0 || v >= n) {
            char why[160];
            snprintf(why, sizeof why, "vertex id %lld outside [0, %lld) (num_nodes in meta.txt)",
                     (long long)(u < 0 || u >= n ? u : v), (long long)n);
            st = gnn_lr_fail(&lr, GNN_ERR_RANGE, why, err);
            break;
        }
        if (vec_push(src, u) || vec_push(dst, v)) {
            st = gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
            break;
        }
    }
    if (r < 0)
        st = (gnn_status)-r;
    gnn_lr_close(&lr);
    return st;
}

/* Sparse COO "node feature value" into the dense (n, f) matrix; strictly increasing
 * (node, feature) order, which is the layout's contract and catches repeated entries. */
static gnn_status read_text_features(const char *path, int64_t n, int64_t f, float *feat, gnn_err *err)
{
    line_reader lr;
    gnn_status st = gnn_lr_open(&lr, path, err);
    if (st)
        return st;
    int r;
    int64_t pv = -1, pj = -1;
    while ((r = gnn_lr_next(&lr, err)) > 0) {
        if (is_blank(lr.buf))
            continue;
        const char *p = lr.buf;
        int64_t v, j;
        float x;
        char why[176]; /* the longest message, four 20-character ids, fits (-Wformat-truncation) */
        if (field_i64(&p, &v) || field_i64(&p, &j) || field_f32(&p, &x) || !at_end(p)) {
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected 'node feature value'", err);
            break;
        }
        if (v < 0 || v >= n || j < 0 || j >= f) {
            snprintf(why, sizeof why, "%s id %lld outside [0, %lld)", (v < 0 || v >= n) ? "node" : "feature",
                     (long long)((v < 0 || v >= n) ? v : j), (long long)((v < 0 || v >= n) ? n : f));
            st = gnn_lr_fail(&lr, GNN_ERR_RANGE, why, err);
            break;
        }
        if (!isfinite(x)) {
            snprintf(why, sizeof why, "node %lld feature %lld is not a finite f32", (long long)v, (long long)j);
            st = gnn_lr_fail(&lr, GNN_ERR_NAN, why, err);
            break;
        }
        if (v < pv || (v == pv && j <= pj)) {
            snprintf(why, sizeof why, "entry (%lld, %lld) does not come after (%lld, %lld): the file must be sorted by "
                     "node then feature, without repeats", (long long)v, (long long)j, (long long)pv, (long long)pj);
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, why, err);
            break;
        }
        pv = v;
        pj = j;
        feat[v * f + j] = x;
    }
    if (r < 0)
        st = (gnn_status)-r;
    gnn_lr_close(&lr);
    return st;
}

/* labels.txt: line i is the label of node i, -1 or [0, c); exactly n lines. */
static gnn_status read_text_labels(const char *path, int64_t n, int64_t c, int32_t *labels, gnn_err *err)
{
    line_reader lr;
    gnn_status st = gnn_lr_open(&lr, path, err);
    if (st)
        return st;
    int r;
    int64_t v = 0;
    while ((r = gnn_lr_next(&lr, err)) > 0) {
        const char *p = lr.buf;
        int64_t y;
        char why[160];
        if (field_i64(&p, &y) || !at_end(p)) {
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected one integer label per line", err);
            break;
        }
        if (v >= n) {
            snprintf(why, sizeof why, "more label lines than num_nodes = %lld", (long long)n);
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, why, err);
            break;
        }
        if (y != -1 && (y < 0 || y >= c)) {
            snprintf(why, sizeof why, "node %lld has label %lld, expected -1 or [0, %lld)", (long long)v, (long long)y,
                     (long long)c);
            st = gnn_lr_fail(&lr, GNN_ERR_RANGE, why, err);
            break;
        }
        labels[v++] = (int32_t)y;
    }
    if (r < 0)
        st = (gnn_status)-r;
    gnn_lr_close(&lr);
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
        return gnn_import_too_many_vertices(what, m.n, max_v, err);
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
    if ((st = gnn_import_build_graph(ds, m.n, &src, &dst, GNN_CSR_DEDUP, path, err)))
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
        int64_t entries = 0;
        if (m.n * ds->num_features > FEAT_CELLS_FLOOR) {
            if ((st = count_feature_entries(path, &entries, err)))
                goto out;
            if (m.n * ds->num_features / FEAT_CELLS_PER_ENTRY > entries) {
                st = gnn_err_set(err, GNN_ERR_RANGE,
                                 "%s/meta.txt: num_nodes %lld x num_features %lld = %lld feature cells for %lld entries "
                                 "in features.txt: at most max(2^24, %d x entries) cells (a claim is paid for by "
                                 "data)",
                                 dir, (long long)m.n, (long long)ds->num_features, (long long)(m.n * ds->num_features),
                                 (long long)entries, FEAT_CELLS_PER_ENTRY);
                goto out;
            }
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
    st = gnn_import_read_splits(ds, dir, k_split_names, err);
out:
    vec_free(&src);
    vec_free(&dst);
    return st;
}


gnn_status gnn_import_text(gnn_dataset *ds, const char *dir, const gnn_import_options *opt, gnn_err *err)
{
    return gnn_import_run(ds, dir, opt, "text", 0, import_text_body, err);
}
