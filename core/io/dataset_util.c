/* core/io/dataset_util.c -- dataset checks and the feature storage choice.
 *
 * gnn_dataset_validate is the one place where the values of a dataset are checked; the
 * binary loader, the importers and the generators all end with it, and gnn_dataset_save
 * starts with it, so no path can produce or accept a dataset that the others would refuse.
 * Its messages name the file (`what`), the section and the offending value, and the checks
 * run in a fixed order, so the first error reported is the same on every run.
 *
 * A leaf of core/io/: the loader, the importers and the generators call it, it calls none of
 * them (opening by spec, which dispatches to them, is core/io/dataset_open.c; random splits,
 * core/io/dataset_split.c). */
#include <math.h>
#include <string.h>
#include "gnnref/dataset.h"
#include "gnnref/tensor.h"

/* ---- validation ---- */

static gnn_status validate_graph(const gnn_csr *g, const char *what, gnn_err *err)
{
    if (g->n < 0 || g->nnz < 0)
        return gnn_err_set(err, GNN_ERR_RANGE, "%s: section 'header': negative size (n %lld, nnz %lld)", what,
                           (long long)g->n, (long long)g->nnz);
    if (!g->indptr || (g->nnz > 0 && !g->indices))
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: section 'indptr': graph arrays missing", what);
    if (g->indptr[0] != 0)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section 'indptr': indptr[0] is %lld, expected 0", what,
                           (long long)g->indptr[0]);
    for (int64_t v = 0; v < g->n; v++)
        if (g->indptr[v + 1] < g->indptr[v]) {
            /* the degree is printed only where the difference fits an int64: indptr[v] =
             * INT64_MAX, indptr[v+1] = INT64_MIN would overflow it */
            int64_t deg;
            if (__builtin_sub_overflow(g->indptr[v + 1], g->indptr[v], &deg))
                return gnn_err_set(err, GNN_ERR_RANGE,
                                   "%s: section 'indptr': vertex %lld has a negative degree (indptr %lld -> %lld)", what,
                                   (long long)v, (long long)g->indptr[v], (long long)g->indptr[v + 1]);
            return gnn_err_set(err, GNN_ERR_RANGE,
                               "%s: section 'indptr': vertex %lld has negative degree %lld (indptr %lld -> %lld)", what,
                               (long long)v, (long long)deg, (long long)g->indptr[v], (long long)g->indptr[v + 1]);
        }
    if (g->indptr[g->n] != g->nnz)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section 'indptr': indptr[n] is %lld, expected nnz = %lld", what,
                           (long long)g->indptr[g->n], (long long)g->nnz);
    for (int64_t v = 0; v < g->n; v++)
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++)
            if (g->indices[e] < 0 || g->indices[e] >= g->n)
                return gnn_err_set(err, GNN_ERR_RANGE,
                                   "%s: section 'indices': entry %lld (a neighbor of vertex %lld) has vertex id %lld, "
                                   "expected [0, %lld)", what, (long long)e, (long long)v, (long long)g->indices[e],
                                   (long long)g->n);
    return GNN_OK;
}

static gnn_status validate_values(const gnn_dataset *ds, const char *what, gnn_err *err)
{
    const int64_t n = ds->graph.n, f = ds->num_features, c = ds->num_classes;
    if (f < 0 || c < 0 || c > INT32_MAX)
        return gnn_err_set(err, GNN_ERR_RANGE, "%s: section 'header': num_features %lld, num_classes %lld", what,
                           (long long)f, (long long)c);
    if (c > (n > GNN_CLASSES_ANY ? n : GNN_CLASSES_ANY))
        return gnn_err_set(err, GNN_ERR_RANGE,
                           "%s: section 'header': num_classes %lld for %lld vertices: a dataset has at most max(n, %d) "
                           "classes", what, (long long)c, (long long)n, GNN_CLASSES_ANY);
    if (f > 0 && !ds->feat)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: section 'features': %lld features but no array", what, (long long)f);
    for (int64_t v = 0; f > 0 && v < n; v++) {
        const float *row_v = ds->feat + v * f;
        for (int64_t j = 0; j < f; j++)
            if (!isfinite(row_v[j]))
                return gnn_err_set(err, GNN_ERR_NAN, "%s: section 'features': vertex %lld column %lld is %s", what,
                                   (long long)v, (long long)j, isnan(row_v[j]) ? "NaN" : "Inf");
    }
    for (int64_t v = 0; ds->labels && v < n; v++) {
        const int32_t y = ds->labels[v];
        if (y != -1 && (y < 0 || y >= c))
            return gnn_err_set(err, GNN_ERR_RANGE, "%s: section 'labels': vertex %lld has label %d, expected -1 or [0, %lld)",
                               what, (long long)v, (int)y, (long long)c);
    }
    for (int64_t v = 0; ds->split && v < n; v++)
        if (ds->split[v] > GNN_SPLIT_TEST)
            return gnn_err_set(err, GNN_ERR_RANGE,
                               "%s: section 'split': vertex %lld has split code %u, expected 0 (none), 1 (train), 2 (val) "
                               "or 3 (test)", what, (long long)v, (unsigned)ds->split[v]);
    return GNN_OK;
}

/* A type name: non-empty, NUL-terminated within GNN_TYPE_NAME_MAX, printable ASCII. */
static gnn_status validate_names(const char (*names)[GNN_TYPE_NAME_MAX], int64_t count, const char *sec,
                                 const char *kind, const char *what, gnn_err *err)
{
    for (int64_t t = 0; names && t < count; t++) {
        const size_t len = strnlen(names[t], GNN_TYPE_NAME_MAX);
        int ok = len > 0 && len < GNN_TYPE_NAME_MAX;
        for (size_t i = 0; ok && i < len; i++)
            ok = names[t][i] >= 0x20 && names[t][i] < 0x7f;
        if (!ok)
            return gnn_err_set(err, GNN_ERR_FORMAT,
                               "%s: section '%s': %s type %lld has %s name (expected 1 to %d printable ASCII "
                               "characters and a NUL)", what, sec, kind, (long long)t,
                               len == 0 ? "an empty" : len == GNN_TYPE_NAME_MAX ? "an unterminated" : "a non-printable",
                               GNN_TYPE_NAME_MAX - 1);
    }
    return GNN_OK;
}

/* Vertex types: in range, never decreasing (homogenized ids: each type one contiguous id range,
 * type 0 first), featureless flags 0/1 with zero feature rows; edge types in range. */
static gnn_status validate_types(const gnn_dataset *ds, const char *what, gnn_err *err)
{
    const int64_t n = ds->graph.n, T = ds->num_vtypes, R = ds->num_etypes, f = ds->num_features;
    if (T < 0 || T > GNN_TYPES_MAX || R < 0 || R > GNN_TYPES_MAX || (T > 0) != (ds->vtype != NULL) ||
        (R > 0) != (ds->etype != NULL) || (T == 0 && (ds->vtype_names || ds->vtype_featless)) ||
        (R == 0 && ds->etype_names))
        return gnn_err_set(err, GNN_ERR_INVAL,
                           "%s: section 'types header': %lld vertex types (array %s), %lld edge types (array %s): "
                           "expected 0 to %d of each, with an array exactly when the count is above 0",
                           what, (long long)T, ds->vtype ? "present" : "absent", (long long)R,
                           ds->etype ? "present" : "absent", GNN_TYPES_MAX);
    for (int64_t v = 0; T > 0 && v < n; v++) {
        const int32_t t = ds->vtype[v];
        if (t < 0 || t >= T)
            return gnn_err_set(err, GNN_ERR_RANGE, "%s: section 'vtype': vertex %lld has type %d, expected [0, %lld)",
                               what, (long long)v, (int)t, (long long)T);
        if (v > 0 && t < ds->vtype[v - 1])
            return gnn_err_set(err, GNN_ERR_FORMAT,
                               "%s: section 'vtype': vertex %lld has type %d after type %d: each type's vertices must "
                               "be one contiguous id range, type 0 first (homogenized ids)",
                               what, (long long)v, (int)t, (int)ds->vtype[v - 1]);
    }
    for (int64_t v = 0; R > 0 && v < n; v++)
        for (int64_t e = ds->graph.indptr[v]; e < ds->graph.indptr[v + 1]; e++)
            if (ds->etype[e] < 0 || ds->etype[e] >= R)
                return gnn_err_set(err, GNN_ERR_RANGE,
                                   "%s: section 'etype': entry %lld (an in-edge of vertex %lld) has type %d, expected "
                                   "[0, %lld)", what, (long long)e, (long long)v, (int)ds->etype[e], (long long)R);
    gnn_status st = validate_names((const char (*)[GNN_TYPE_NAME_MAX])ds->vtype_names, T, "vtnames", "vertex", what, err);
    if (!st)
        st = validate_names((const char (*)[GNN_TYPE_NAME_MAX])ds->etype_names, R, "etnames", "edge", what, err);
    if (st || !ds->vtype_featless)
        return st;
    for (int64_t t = 0; t < T; t++)
        if (ds->vtype_featless[t] > 1)
            return gnn_err_set(err, GNN_ERR_RANGE, "%s: section 'featless': vertex type %lld has flag %u, expected 0 or 1",
                               what, (long long)t, (unsigned)ds->vtype_featless[t]);
    for (int64_t v = 0; ds->feat && f > 0 && v < n; v++) {
        if (!ds->vtype_featless[ds->vtype[v]])
            continue;
        for (int64_t j = 0; j < f; j++)
            if (ds->feat[v * f + j] != 0.0f)
                return gnn_err_set(err, GNN_ERR_FORMAT,
                                   "%s: section 'features': vertex %lld (type %d, featureless) has %g in column %lld, "
                                   "expected a zero row", what, (long long)v, (int)ds->vtype[v],
                                   (double)ds->feat[v * f + j], (long long)j);
    }
    return GNN_OK;
}

/* CSR features carry their dense view in memory (n x f floats) but pay only for their entries
 * on disk, so n x f is a claim: a 1.5 KB file with f = 50,000,000 made `gnnref info` take 14 s
 * and 2.35 GB. At most max(2^24, 1024 x entries) cells (density 1/1024 and up; Facebook's bag
 * of words is 1/337); the loader checks the same before it allocates the view (core/io/format.c),
 * and the density rule keeps sparser features dense (docs/fuzzing.md, finding 2). */
#define CSR_CELLS_FLOOR ((int64_t)1 << 24)
#define CSR_CELLS_PER_ENTRY 1024
static int csr_cells_ok(int64_t n, int64_t f, int64_t nnz)
{
    if (n <= 0 || f <= 0 || n <= CSR_CELLS_FLOOR / f)
        return 1;
    return n <= INT64_MAX / f && n * f / CSR_CELLS_PER_ENTRY <= nnz;
}

gnn_status gnn_dataset_validate(const gnn_dataset *ds, const char *what, gnn_err *err)
{
    if (!ds)
        return gnn_err_set(err, GNN_ERR_INVAL, "dataset validate: NULL dataset");
    if (!what)
        what = ds->name[0] ? ds->name : "dataset";
    gnn_status st = validate_graph(&ds->graph, what, err);
    if (!st && gnn_dataset_feat_is_csr(ds)) { /* sparse features: the CSR's own invariants first */
        if (ds->feat_csr.rows != ds->graph.n || ds->feat_csr.cols != ds->num_features)
            return gnn_err_set(err, GNN_ERR_FORMAT,
                               "%s: section 'feat_ptr': CSR features of %lld x %lld for %lld vertices and %lld features",
                               what, (long long)ds->feat_csr.rows, (long long)ds->feat_csr.cols,
                               (long long)ds->graph.n, (long long)ds->num_features);
        st = gnn_fcsr_validate(&ds->feat_csr, what, err);
        if (!st && !csr_cells_ok(ds->graph.n, ds->num_features, ds->feat_csr.nnz))
            st = gnn_err_set(err, GNN_ERR_RANGE,
                             "%s: section 'feat_ptr': %lld x %lld features (%lld cells of dense view) from %lld stored "
                             "entries: CSR features may have at most max(2^24, %d x entries) cells",
                             what, (long long)ds->graph.n, (long long)ds->num_features,
                             ds->graph.n > INT64_MAX / ds->num_features ? -1LL
                                                                        : (long long)(ds->graph.n * ds->num_features),
                             (long long)ds->feat_csr.nnz,
                             CSR_CELLS_PER_ENTRY);
    }
    if (!st)
        st = validate_values(ds, what, err);
    return st ? st : validate_types(ds, what, err);
}

/* ---- feature storage ---- */

gnn_status gnn_dataset_set_feat_storage(gnn_dataset *ds, gnn_feat_storage s, gnn_err *err)
{
    if (!ds || s < GNN_FEAT_STORE_AUTO || s > GNN_FEAT_STORE_CSR)
        return gnn_err_set(err, GNN_ERR_INVAL, "feature storage: bad argument");
    const int64_t n = ds->graph.n, f = ds->num_features;
    if (f == 0 || !ds->feat) /* nothing to store */
        return GNN_OK;
    if (s == GNN_FEAT_STORE_AUTO) { /* the density rule: CSR below GNN_FEAT_CSR_DENSITY */
        int64_t nnz = 0;
        for (int64_t i = 0; i < n * f; i++)
            nnz += ds->feat[i] != 0.0f;
        s = (double)nnz < GNN_FEAT_CSR_DENSITY * (double)n * (double)f && csr_cells_ok(n, f, nnz) ? GNN_FEAT_STORE_CSR
                                                                                                : GNN_FEAT_STORE_DENSE;
    }
    if (s == GNN_FEAT_STORE_DENSE || gnn_dataset_feat_is_csr(ds)) {
        if (s == GNN_FEAT_STORE_DENSE) /* the dense view stays (a loaded file's CSR is not freed: not owned) */
            gnn_fcsr_free(&ds->feat_csr);
        return GNN_OK;
    }
    if (f > INT32_MAX)
        return gnn_err_set(err, GNN_ERR_RANGE, "%s: %lld features: CSR columns are int32", ds->name, (long long)f);
    gnn_status st = gnn_fcsr_from_dense(ds->feat, n, f, &ds->feat_csr);
    return st ? gnn_err_set(err, st, "%s: CSR features: %s", ds->name, gnn_status_str(st)) : GNN_OK;
}
