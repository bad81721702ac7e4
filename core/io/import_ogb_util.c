/* core/io/import_ogb_util.c -- what the two OGB importers share (declared in
 * core/io/import_internal.h): node-feat.csv and node-label.csv readers, the split directory's
 * search, the dataset's name for DIR/raw. The homogeneous importer (core/io/import_ogb.c) hands
 * the heterogeneous layout to core/io/import_ogb_hetero.c, and that one used to call these back
 * in import_ogb.c; here, both call them and the calls between the files go one way. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "core/io/import_internal.h"
#include "gnnref/dataset.h"
#include "gnnref/tensor.h"

/* node-feat.csv: one row of comma-separated floats per node, all rows as wide as the first
 * (shared with the heterogeneous importer, core/io/import_internal.h). */
gnn_status gnn_ogb_read_features(const char *path, float **out, int64_t *rows, int64_t *width, gnn_err *err)
{
    line_reader lr;
    gnn_status st = gnn_lr_open(&lr, path, err);
    if (st)
        return st;
    float *buf = NULL, *row = NULL;
    int64_t cap_rows = 0, w = -1, nrows = 0, row_cap = 0;
    int r;
    while ((r = gnn_lr_next(&lr, err)) > 0) {
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
                st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected comma-separated numbers", err);
                goto done;
            }
            if (!isfinite(row[k])) {
                snprintf(why, sizeof why, "node %lld feature %lld is not a finite f32", (long long)nrows, (long long)k);
                st = gnn_lr_fail(&lr, GNN_ERR_NAN, why, err);
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
                st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected comma-separated numbers", err);
                goto done;
            }
            break;
        }
        if (w < 0)
            w = k;
        if (k != w) {
            snprintf(why, sizeof why, "row has %lld values, expected %lld (the first row's width)", (long long)k,
                     (long long)w);
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, why, err);
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
    gnn_lr_close(&lr);
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
gnn_status gnn_ogb_read_labels(const char *path, i64_vec *labels, int64_t *max_label, gnn_err *err)
{
    line_reader lr;
    gnn_status st = gnn_lr_open(&lr, path, err);
    if (st)
        return st;
    int r;
    *max_label = -1;
    while ((r = gnn_lr_next(&lr, err)) > 0) {
        const char *p = lr.buf;
        while (*p == ' ' || *p == '\t')
            p++;
        int64_t y = -1;
        if (*p != '\0' && strncasecmp(p, "nan", 3) != 0) {
            char *end;
            double d = strtod(p, &end);
            if (end == p || !at_end(end) || d != floor(d) || d < -1 || d > INT32_MAX) {
                st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected one integer label >= -1, 'nan' or an empty line "
                                 "(multi-label data is not supported)", err);
                break;
            }
            y = (int64_t)d;
        } else if (*p != '\0' && !at_end(p + 3)) {
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected one label per line", err);
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
    gnn_lr_close(&lr);
    return st;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The split directory: the alphabetically first subdirectory of `root` holding `probe_name`
 * (train.csv[.gz]; the heterogeneous layout's <type>/train.csv). */
int gnn_ogb_find_split_dir(const char *root, const char *probe_name, char *out)
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
            gnn_import_find_maybe_gz(probe, out, probe_name))
            found = 1;
        free(names[i]);
    }
    return found;
}

/* gnn_import_run has named the dataset after the last component of dir; for DIR/raw, DIR's. */
void gnn_ogb_name(gnn_dataset *ds, const char *dir)
{
    if (!strcmp(ds->name, "raw")) { /* DIR/raw was given: name the dataset after DIR */
        char parent[PATH_CAP];
        size_t len = strlen(dir);
        while (len > 1 && dir[len - 1] == '/')
            len--;
        if (len >= 4 && len - 4 < PATH_CAP) {
            memcpy(parent, dir, len - 4);
            parent[len - 4] = '\0';
            if (parent[0])
                gnn_import_set_name(ds, parent, 0);
        }
    }
}
