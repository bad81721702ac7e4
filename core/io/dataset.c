/* core/io/dataset.c -- dataset lifetime. (Formats, importers and generators live in
 * core/io/format.c, core/import_*.c and core/io/gen.c.) */
#include <string.h>
#include <sys/mman.h>
#include "gnnref/dataset.h"
#include "gnnref/tensor.h"

/* The type arrays are owned unless they point into the file mapping (dataset.h): a loaded
 * typed file's point into it, a generator's or importer's are heap. */
static void free_unless_mapped(const gnn_dataset *ds, void *p)
{
    const char *c = p, *b = ds->map_base;
    if (p && !(b && c >= b && c < b + ds->map_len))
        gnn_free(p);
}

void gnn_dataset_free(gnn_dataset *ds)
{
    free_unless_mapped(ds, ds->etype);
    free_unless_mapped(ds, ds->vtype);
    free_unless_mapped(ds, ds->vtype_names);
    free_unless_mapped(ds, ds->etype_names);
    free_unless_mapped(ds, ds->vtype_featless);
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
    memset(ds, 0, sizeof *ds);
}
