/* core/io/dataset_open.c -- opening a dataset by spec, and the built-in dataset.
 *
 * gnn_dataset_open is the dispatcher: it names the kind of a spec (gnn_dataset_spec_kind) and
 * hands it to the binary loader (core/io/format.c), an importer (core/io/import_text.c,
 * core/io/import_ogb.c) or a generator (core/io/gen.c). It lives apart from the validator
 * (core/io/dataset_util.c), which those all call, so the calls between the files of core/io/
 * go one way. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "gnnref/dataset.h"

/* ---- opening by spec ---- */

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int exists_in(const char *dir, const char *name)
{
    char p[4096];
    struct stat sb;
    if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, name) >= sizeof p)
        return 0;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

const char *gnn_dataset_spec_kind(const char *spec)
{
    if (!spec)
        return NULL;
    if (!strcmp(spec, "builtin") || !strcmp(spec, "builtin-typed"))
        return spec[7] ? "builtin-typed" : "builtin";
    struct stat sb;
    if (stat(spec, &sb) != 0)
        return NULL;
    if (!S_ISDIR(sb.st_mode))
        return "native";
    if (exists_in(spec, "meta.txt"))
        return "text";
    if (exists_in(spec, "edge.csv") || exists_in(spec, "edge.csv.gz") || exists_in(spec, "raw/edge.csv") ||
        exists_in(spec, "raw/edge.csv.gz"))
        return "ogb";
    /* the heterogeneous layout (ogbn-mag): gnn_import_ogb hands it to gnn_import_ogb_hetero */
    if (exists_in(spec, "num-node-dict.csv") || exists_in(spec, "num-node-dict.csv.gz") ||
        exists_in(spec, "raw/num-node-dict.csv") || exists_in(spec, "raw/num-node-dict.csv.gz"))
        return "ogb";
    return NULL;
}

gnn_status gnn_dataset_open(gnn_dataset *ds, const char *spec, gnn_err *err)
{
    if (!ds || !spec)
        return gnn_err_set(err, GNN_ERR_INVAL, "dataset open: NULL argument");
    memset(ds, 0, sizeof *ds);
    const char *kind = gnn_dataset_spec_kind(spec);
    if (!kind) {
        if (is_dir(spec))
            return gnn_err_set(err, GNN_ERR_FORMAT,
                               "%s: a directory with neither meta.txt (text layout) nor edge.csv[.gz] or "
                               "raw/edge.csv[.gz] (OGB layout) nor raw/num-node-dict.csv[.gz] (OGB heterogeneous "
                               "layout)", spec);
        return gnn_err_set(err, GNN_ERR_IO,
                           "%s: no such file or directory (expected 'builtin', 'builtin-typed', a gnnref binary file, a text-layout "
                           "directory with meta.txt, or an OGB directory with edge.csv[.gz])", spec);
    }
    if (!strcmp(kind, "builtin"))
        return gnn_dataset_builtin(ds, err);
    if (!strcmp(kind, "builtin-typed")) {
        gnn_sbm_params p;
        gnn_sbm_defaults(&p);
        gnn_status st = gnn_gen_typed_sbm(ds, &p, 2, err);
        if (st == GNN_OK)
            snprintf(ds->name, sizeof ds->name, "builtin-typed");
        return st;
    }
    if (!strcmp(kind, "text"))
        return gnn_import_text(ds, spec, NULL, err);
    if (!strcmp(kind, "ogb"))
        return gnn_import_ogb(ds, spec, NULL, err);
    return gnn_dataset_load(ds, spec, err);
}

/* ---- built-in dataset ---- */

gnn_status gnn_dataset_builtin(gnn_dataset *ds, gnn_err *err)
{
    gnn_sbm_params p;
    gnn_sbm_defaults(&p);
    gnn_status st = gnn_gen_sbm(ds, &p, err);
    if (st == GNN_OK)
        snprintf(ds->name, sizeof ds->name, "builtin");
    return st;
}
