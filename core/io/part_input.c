/* core/io/part_input.c -- one rank's input for training on partitions (include/gnnref/part_input.h):
 * from a dataset partitioned in memory, the solid rows gathered by vid_o; from a saved set,
 * the rank's own part file. */
#include <string.h>

#include "gnnref/part_input.h"
#include "gnnref/tensor.h"

gnn_status gnn_part_input_from_dataset(gnn_part_data *d, const gnn_dataset *ds, const gnn_partition *P, int64_t rank,
                                       gnn_err *err)
{
    if (!d)
        return gnn_err_set(err, GNN_ERR_INVAL, "part input: NULL argument");
    memset(d, 0, sizeof *d);
    if (!ds || !P)
        return gnn_err_set(err, GNN_ERR_INVAL, "part input: NULL argument");
    if (rank < 0 || rank >= P->k)
        return gnn_err_set(err, GNN_ERR_INVAL, "part input: rank %lld of a partition into %lld parts",
                           (long long)rank, (long long)P->k);
    if (P->n != ds->graph.n)
        return gnn_err_set(err, GNN_ERR_INVAL, "part input: a partition of %lld vertices for a dataset of %lld",
                           (long long)P->n, (long long)ds->graph.n);
    const gnn_part_local *L = &P->parts[rank];
    const int64_t ns = L->n_solid, f = ds->feat ? ds->num_features : 0;
    /* + 1: a part without solid vertices still gets buffers, so NULL means "the dataset has none" */
    d->feat = f > 0 ? gnn_malloc(sizeof(float) * (size_t)(ns * f + 1)) : NULL;
    d->labels = ds->labels ? gnn_malloc(sizeof(int32_t) * (size_t)(ns + 1)) : NULL;
    d->split = ds->split ? gnn_malloc((size_t)ns + 1) : NULL;
    if ((f > 0 && !d->feat) || (ds->labels && !d->labels) || (ds->split && !d->split)) {
        gnn_part_input_free(d);
        return gnn_err_set(err, GNN_ERR_NOMEM, "part input: out of memory (%lld solid vertices)", (long long)ns);
    }
    for (int64_t i = 0; i < ns; i++) {
        const int64_t v = L->vid_o[i]; /* local solid id i is global vertex v */
        if (d->feat)
            memcpy(d->feat + i * f, ds->feat + v * f, sizeof(float) * (size_t)f);
        if (d->labels)
            d->labels[i] = ds->labels[v];
        if (d->split)
            d->split[i] = ds->split[v];
    }
    d->in.part = L;
    d->in.n_global = ds->graph.n;
    d->in.num_features = ds->num_features;
    d->in.num_classes = ds->num_classes;
    d->in.feat = d->feat;
    d->in.labels = d->labels;
    d->in.split = d->split;
    d->in.global = &ds->graph;
    d->in.owner = P->part;
    gnn_status st = gnn_part_input_types(d, ds, err);
    if (st)
        gnn_part_input_free(d);
    return st;
}

gnn_status gnn_part_input_types(gnn_part_data *d, const gnn_dataset *ds, gnn_err *err)
{
    if (!d || !ds)
        return gnn_err_set(err, GNN_ERR_INVAL, "part input: NULL argument");
    if (d->in.n_global != ds->graph.n)
        return gnn_err_set(err, GNN_ERR_INVAL, "part input: %s has %lld vertices, the partition %lld", ds->name,
                           (long long)ds->graph.n, (long long)d->in.n_global);
    if (ds->etype) {
        d->in.global = &ds->graph;
        d->in.etype = ds->etype;
        d->in.relations = ds->num_etypes;
    }
    int featless = 0;
    for (int64_t t = 0; ds->vtype && ds->vtype_featless && t < ds->num_vtypes; t++)
        featless |= ds->vtype_featless[t] != 0;
    if (!featless)
        return GNN_OK;
    if (!(d->learn = gnn_malloc((size_t)ds->graph.n + 1)))
        return gnn_err_set(err, GNN_ERR_NOMEM, "part input: out of memory");
    for (int64_t v = 0; v < ds->graph.n; v++)
        d->learn[v] = ds->vtype_featless[ds->vtype[v]] != 0;
    d->in.learn_input = d->learn;
    return GNN_OK;
}

gnn_status gnn_part_input_from_set(gnn_part_data *d, const char *dir, int64_t rank, const gnn_part_manifest *m,
                                   gnn_err *err)
{
    if (!d)
        return gnn_err_set(err, GNN_ERR_INVAL, "part input: NULL argument");
    memset(d, 0, sizeof *d);
    if (!dir || !m)
        return gnn_err_set(err, GNN_ERR_INVAL, "part input: NULL argument");
    gnn_status st = gnn_partition_load_part(dir, rank, &d->part, &d->local, NULL, err);
    if (st) {
        gnn_part_input_free(d);
        return st;
    }
    d->in.part = &d->part;
    d->in.n_global = m->n;
    d->in.feat = gnn_part_features(&d->local, &d->in.num_features);
    d->in.num_classes = m->num_classes;
    d->in.labels = d->local.labels; /* the first n_solid entries are the solid vertices' */
    d->in.split = d->local.split;
    return GNN_OK;
}

void gnn_part_input_free(gnn_part_data *d)
{
    if (!d)
        return;
    gnn_free(d->feat);
    gnn_free(d->labels);
    gnn_free(d->split);
    gnn_free(d->learn);
    gnn_part_local_free(&d->part);
    gnn_dataset_free(&d->local);
    memset(d, 0, sizeof *d);
}
