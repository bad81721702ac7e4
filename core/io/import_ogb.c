/* core/io/import_ogb.c -- the importer of OGB raw CSV (docs/formats.md, "OGB raw CSV"): edge.csv,
 * num-node-list.csv, node-feat.csv, node-label.csv and split/<name>/{train,valid,test}.csv,
 * each gzipped or not, from DIR or DIR/raw; parsing is strict (core/io/import_internal.h). The
 * heterogeneous layout (num-node-dict.csv, ogbn-mag) is core/io/import_ogb_hetero.c's. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include "core/io/import_internal.h"
#include "gnnref/dataset.h"
#include "gnnref/tensor.h"

/* "u,v" rows; ids >= 0 and <= MAX_ID (n is known only later). */
static gnn_status read_ogb_edges(const char *path, int64_t max_v, i64_vec *src, i64_vec *dst, int64_t *max_id,
                                 gnn_err *err)
{
    line_reader lr;
    gnn_status st = gnn_lr_open(&lr, path, err);
    if (st)
        return st;
    int r;
    *max_id = -1;
    while ((r = gnn_lr_next(&lr, err)) > 0) {
        if (is_blank(lr.buf))
            continue;
        const char *p = lr.buf;
        int64_t u, v;
        if (field_i64(&p, &u) || *p++ != ',' || field_i64(&p, &v) || !at_end(p)) {
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected 'u,v'", err);
            break;
        }
        if ((st = gnn_import_keep_edge(&lr, u, v, max_v, src, dst, max_id, err)))
            break;
    }
    if (r < 0)
        st = (gnn_status)-r;
    gnn_lr_close(&lr);
    return st;
}

/* num-node-list.csv: one line with the vertex count (single-graph datasets). */
static gnn_status read_ogb_num_nodes(const char *path, int64_t *n, gnn_err *err)
{
    line_reader lr;
    gnn_status st = gnn_lr_open(&lr, path, err);
    if (st)
        return st;
    int r, lines = 0;
    while ((r = gnn_lr_next(&lr, err)) > 0) {
        if (is_blank(lr.buf))
            continue;
        const char *p = lr.buf;
        if (++lines > 1) {
            st = gnn_lr_fail(&lr, GNN_ERR_UNSUPPORTED,
                             "more than one graph (only single-graph node datasets are supported)", err);
            break;
        }
        if (field_i64(&p, n) || !at_end(p) || *n < 0 || *n > MAX_ID) {
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected the number of nodes", err);
            break;
        }
    }
    if (r < 0)
        st = (gnn_status)-r;
    gnn_lr_close(&lr);
    if (!st && lines == 0)
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: empty file, expected the number of nodes", path);
    return st;
}

/* Locate raw/ and split/ for an OGB directory given as DIR or DIR/raw. */
static gnn_status ogb_dirs(const char *dir, char *raw, char *split_root, gnn_err *err)
{
    char probe[PATH_CAP];
    if (gnn_import_find_maybe_gz(probe, dir, "edge.csv")) {
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
    if ((size_t)snprintf(raw, PATH_CAP, "%s/raw", dir) < PATH_CAP && gnn_import_find_maybe_gz(probe, raw, "edge.csv")) {
        snprintf(split_root, PATH_CAP, "%s/split", dir);
        return GNN_OK;
    }
    return gnn_err_set(err, GNN_ERR_IO, "%s: no edge.csv[.gz] here or in %s/raw (OGB layout)", dir, dir);
}

static gnn_status import_ogb_body(gnn_dataset *ds, const char *dir, int64_t max_v, gnn_err *err)
{
    gnn_ogb_name(ds, dir);
    char raw[PATH_CAP], split_root[PATH_CAP], path[PATH_CAP];
    gnn_status st = ogb_dirs(dir, raw, split_root, err);
    if (st)
        return st;
    i64_vec src = { 0 }, dst = { 0 }, lab = { 0 };
    float *feat = NULL;
    int64_t n = -1, max_id = -1, rows = 0, width = 0, max_label = -1;
    const char *n_from = "the largest vertex id in edge.csv + 1";
    if (gnn_import_find_maybe_gz(path, raw, "num-node-list.csv")) {
        if ((st = read_ogb_num_nodes(path, &n, err)))
            goto out;
        n_from = "num-node-list.csv";
        if (n > max_v) {
            st = gnn_import_too_many_vertices(path, n, max_v, err);
            goto out;
        }
    }
    gnn_import_find_maybe_gz(path, raw, "edge.csv");
    char edge_path[PATH_CAP];
    memcpy(edge_path, path, PATH_CAP);
    if ((st = read_ogb_edges(edge_path, max_v, &src, &dst, &max_id, err)))
        goto out;
    int have_feat = gnn_import_find_maybe_gz(path, raw, "node-feat.csv");
    if (have_feat && (st = gnn_ogb_read_features(path, &feat, &rows, &width, err)))
        goto out;
    if (n < 0 && have_feat)
        n = rows, n_from = "the rows of node-feat.csv";
    if (have_feat && rows != n) {
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: %lld rows, expected %lld nodes (from %s)", path, (long long)rows,
                         (long long)n, n_from);
        goto out;
    }
    char label_path[PATH_CAP];
    int have_lab = gnn_import_find_maybe_gz(label_path, raw, "node-label.csv");
    if (have_lab && (st = gnn_ogb_read_labels(label_path, &lab, &max_label, err)))
        goto out;
    if (n < 0 && have_lab)
        n = lab.len, n_from = "the lines of node-label.csv";
    if (n < 0)
        n = max_id + 1;
    if (n > max_v) { /* the rows of node-feat.csv or the lines of node-label.csv */
        char what[PATH_CAP + 64];
        snprintf(what, sizeof what, "%s (the vertex count from %s)", dir, n_from);
        st = gnn_import_too_many_vertices(what, n, max_v, err);
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
    if ((st = gnn_import_build_graph(ds, n, &src, &dst, GNN_CSR_SYMMETRIZE | GNN_CSR_DEDUP, edge_path, err)))
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
    if (gnn_ogb_find_split_dir(split_root, "train.csv", split_dir)) {
        static const char *const k_names[3] = { "train.csv", "valid.csv", "test.csv" };
        st = gnn_import_read_splits(ds, split_dir, k_names, err);
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
    /* the heterogeneous layout (ogbn-mag) is told apart by its num-node-dict.csv */
    char probe[PATH_CAP], raw[PATH_CAP];
    if (dir && (gnn_import_find_maybe_gz(probe, dir, "num-node-dict.csv") ||
                ((size_t)snprintf(raw, PATH_CAP, "%s/raw", dir) < PATH_CAP &&
                 gnn_import_find_maybe_gz(probe, raw, "num-node-dict.csv"))))
        return gnn_import_ogb_hetero(ds, dir, opt, err);
    return gnn_import_run(ds, dir, opt, "ogb", 0, import_ogb_body, err);
}
