/* core/io/import_edgelist.c -- the importer of plain edge lists (docs/formats.md, "Edge lists"):
 * "u v" per line, '#' and '%' comments, symmetrized, deduplicated, self-loops dropped; parsing
 * is strict (core/io/import_internal.h). */
#include <stdio.h>
#include <string.h>
#include "core/io/import_internal.h"
#include "gnnref/dataset.h"

static gnn_status import_edgelist_body(gnn_dataset *ds, const char *path, int64_t max_v, gnn_err *err)
{
    line_reader lr;
    gnn_status st = gnn_lr_open(&lr, path, err);
    if (st)
        return st;
    i64_vec src = { 0 }, dst = { 0 };
    int64_t max_id = -1;
    int r;
    while ((r = gnn_lr_next(&lr, err)) > 0) {
        const char *p = lr.buf;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0' || *p == '#' || *p == '%')
            continue; /* blank line or comment */
        int64_t u, v;
        if (field_i64(&p, &u) || field_i64(&p, &v) || !at_end(p)) {
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected two vertex ids 'u v'", err);
            break;
        }
        if ((st = gnn_import_keep_edge(&lr, u, v, max_v, &src, &dst, &max_id, err)))
            break;
    }
    if (r < 0)
        st = (gnn_status)-r;
    gnn_lr_close(&lr);
    if (!st)
        st = gnn_import_build_graph(ds, max_id + 1, &src, &dst, GNN_CSR_SYMMETRIZE | GNN_CSR_DEDUP | GNN_CSR_DROP_SELF,
                                    path, err);
    vec_free(&src);
    vec_free(&dst);
    return st;
}

gnn_status gnn_import_edgelist(gnn_dataset *ds, const char *path, const gnn_import_options *opt, gnn_err *err)
{
    return gnn_import_run(ds, path, opt, "edgelist", 1, import_edgelist_body, err);
}
