/* core/dataset.c -- dataset lifetime. (Formats, importers and generators live in
 * core/format.c, core/import_*.c and core/gen.c.) */
#include <string.h>
#include <sys/mman.h>
#include "gnnref/dataset.h"
#include "gnnref/tensor.h"

void gnn_dataset_free(gnn_dataset *ds)
{
    if (ds->map_base) {
        munmap(ds->map_base, ds->map_len);
        ds->graph.owns = 0; /* arrays point into the mapping */
    } else if (ds->owns_arrays) {
        gnn_free(ds->feat);
        gnn_free(ds->labels);
        gnn_free(ds->split);
    }
    gnn_csr_free(&ds->graph);
    gnn_fcsr_free(&ds->feat_csr); /* frees only what it owns (a loaded file's points into the mapping) */
    gnn_free(ds->feat_view);
    gnn_free(ds->etype);
    memset(ds, 0, sizeof *ds);
}
