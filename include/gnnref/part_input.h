/* include/gnnref/part_input.h -- what one rank brings to gnn_train_part (train_part.h's
 * gnn_part_input), made from a dataset partitioned in memory or from a saved partition set
 * (docs/hec.md, "Training on partitions"), so that a C program trains on partitions as
 * `gnnref train --remote MODE` and `gnnref train --partitions DIR` do:
 *
 *     gnn_partition P;      // every rank: the same part vector, then the structure
 *     gnn_partition_assign(&ds.graph, ds.split, &po, part, NULL, &err);
 *     gnn_partition_build(impl->partition, &P, &ds.graph, ds.split, part, ranks, &err);
 *     gnn_part_data d;      // this rank's part and its rows
 *     gnn_part_input_from_dataset(&d, &ds, &P, rank, &err);
 *     gnn_train_part(comm, &d.in, &cfg, &pc, NULL, NULL, &res, &rep, &err);
 *     gnn_part_input_free(&d);
 *
 * Library code: returns gnn_status with a message; never prints. */
#ifndef GNNREF_PART_INPUT_H
#define GNNREF_PART_INPUT_H

#include <stdint.h>
#include "gnnref/dataset.h"
#include "gnnref/partition.h"
#include "gnnref/status.h"
#include "gnnref/train_part.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gnn_part_data {
    gnn_part_input in;  /* what gnn_train_part takes */
    /* what `in` points into when it is not the caller's (private: freed by gnn_part_input_free) */
    float *feat;        /* (n_solid, num_features) rows gathered from a dataset */
    int32_t *labels;    /* (n_solid) */
    uint8_t *split;     /* (n_solid) */
    gnn_part_local part; /* a part loaded from a set ... */
    gnn_dataset local;   /* ... and its file: labels, split and the solid features, mapped */
    uint8_t *learn;      /* (n_global) in.learn_input, made by gnn_part_input_types */
} gnn_part_data;

/* Part `rank` of P, a partition of ds: the solid vertices' feature rows, labels and split
 * codes gathered from ds in local order (row i = global vertex P->parts[rank].vid_o[i]).
 * d->in points into P and ds, which must outlive d; it also carries the whole topology and the
 * part vector (in.global = &ds->graph, in.owner = P->part), which --remote fetch needs and the
 * other modes ignore. GNN_ERR_INVAL for a rank outside P or a P not made from ds (another
 * vertex count), GNN_ERR_NOMEM. */
gnn_status gnn_part_input_from_dataset(gnn_part_data *d, const gnn_dataset *ds, const gnn_partition *P, int64_t rank,
                                       gnn_err *err);

/* Part `rank` of the saved set dir, loaded alone (gnn_partition_load_part): its structure,
 * labels, split and solid features; n_global and num_classes from the set's manifest m
 * (gnn_partition_manifest_load). fetch also needs in.global and in.owner: the set's dataset
 * and its part vector (gnn_partition_load), which the caller sets. */
gnn_status gnn_part_input_from_set(gnn_part_data *d, const char *dir, int64_t rank, const gnn_part_manifest *m,
                                   gnn_err *err);

/* The heterogeneous inputs from the whole dataset ds (called by gnn_part_input_from_dataset;
 * a caller with a saved set and its dataset calls it itself): in.global, in.etype and
 * in.relations from ds's edge types, and in.learn_input, 1 for the vertices of ds's featureless
 * types, when it has any. Nothing is set for an untyped ds. GNN_ERR_INVAL: ds is not the
 * partition's graph (another vertex count); GNN_ERR_NOMEM. */
gnn_status gnn_part_input_types(gnn_part_data *d, const gnn_dataset *ds, gnn_err *err);

/* Frees what d owns (not the dataset, partition or set it was made from); d is zeroed. */
void gnn_part_input_free(gnn_part_data *d);

#ifdef __cplusplus
}
#endif
#endif
