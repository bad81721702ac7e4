/* include/gnnref/dataset.h -- graphs with features, labels and splits; file formats; generators.
 *
 * The native format (DESIGN.md section 5, docs/formats.md) is one little-endian binary file per
 * graph: a header with magic, version and counts, then sections (indptr int64, indices int64,
 * features f32, labels i32, split u8), each with its own CRC32C, 64-byte aligned so that
 * gnn_dataset_load can mmap the file and point into it without copying. */
#ifndef GNNREF_DATASET_H
#define GNNREF_DATASET_H

#include <stdint.h>
#include <stddef.h>
#include "gnnref/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* split[v] values */
enum { GNN_SPLIT_NONE = 0, GNN_SPLIT_TRAIN = 1, GNN_SPLIT_VAL = 2, GNN_SPLIT_TEST = 3 };

typedef struct gnn_dataset {
    char name[64];
    gnn_csr graph;         /* in-neighbors: row v lists sources u of edges u -> v */
    int64_t num_features;  /* feature width f (may be 0) */
    int64_t num_classes;   /* labels in [0, num_classes) or -1 (unlabelled) */
    float *feat;           /* (n, f) row-major; NULL when f == 0 */
    int32_t *labels;       /* (n); NULL when there are no labels */
    uint8_t *split;        /* (n) GNN_SPLIT_*; NULL when there is no split */
    /* ownership (internal): either heap arrays or one mmap region */
    void *map_base;
    size_t map_len;
    int owns_arrays;
} gnn_dataset;

void gnn_dataset_free(gnn_dataset *ds);
static inline int64_t gnn_dataset_n(const gnn_dataset *ds) { return ds->graph.n; }

/* Value checks: graph structure, ids in range, NaN/Inf features, labels in range, split codes. */
gnn_status gnn_dataset_validate(const gnn_dataset *ds, const char *what, gnn_err *err);

/* Native binary format. load mmaps read-only and checks every CRC32C and gnn_dataset_validate. */
gnn_status gnn_dataset_save(const gnn_dataset *ds, const char *path, gnn_err *err);
gnn_status gnn_dataset_load(gnn_dataset *ds, const char *path, gnn_err *err);

/* Importers (all return GNN_ERR_FORMAT / GNN_ERR_RANGE / GNN_ERR_NAN with file:line in err). */
gnn_status gnn_import_text(gnn_dataset *ds, const char *dir, gnn_err *err);     /* shared/datasets layout */
gnn_status gnn_import_ogb(gnn_dataset *ds, const char *dir, gnn_err *err);      /* OGB raw CSV, .gz or not */
gnn_status gnn_import_edgelist(gnn_dataset *ds, const char *path, gnn_err *err); /* "u v" lines, '#' comments */

/* Open anything: "builtin", a native file, a text-layout directory (meta.txt) or an OGB directory. */
gnn_status gnn_dataset_open(gnn_dataset *ds, const char *spec, gnn_err *err);

/* Seeded random split by fractions (train, val, test), replacing any existing split.
 * Uses tag GNN_TAG_SPLIT: a Fisher-Yates permutation of 0..n-1, then the first
 * round(train*n) are train, the next round(val*n) val, the next round(test*n) test. */
gnn_status gnn_dataset_split_random(gnn_dataset *ds, double train, double val, double test,
                                    uint64_t seed, gnn_err *err);

/* R-MAT with Graph500 parameters (a=0.57, b=0.19, c=0.19), 2^scale vertices,
 * edge_factor * 2^scale generated edges, deduplicated, self-loops dropped, symmetrized.
 * Deterministic from seed at any thread count (edge e draws from stream id = e). */
typedef struct gnn_rmat_params {
    int scale;
    int edge_factor;
    double a, b, c;
    uint64_t seed;
    int64_t num_features; /* random features (0 for none) */
    int64_t num_classes;  /* random labels (0 for none) */
} gnn_rmat_params;
void gnn_rmat_defaults(gnn_rmat_params *p);
gnn_status gnn_gen_rmat(gnn_dataset *ds, const gnn_rmat_params *p, gnn_err *err);

/* Stochastic block model: n vertices in `classes` equal-probability classes; each vertex has
 * on average deg_in neighbors in its class and deg_out outside; features are a noisy class
 * signal (class centroid + Gaussian noise of std `noise`), so a GNN that averages neighbors
 * beats an MLP. Deterministic from seed at any thread count. */
typedef struct gnn_sbm_params {
    int64_t n;
    int64_t classes;
    double deg_in, deg_out;
    int64_t num_features;
    double noise;
    uint64_t seed;
    double train, val, test; /* split fractions */
} gnn_sbm_params;
void gnn_sbm_defaults(gnn_sbm_params *p);
gnn_status gnn_gen_sbm(gnn_dataset *ds, const gnn_sbm_params *p, gnn_err *err);

/* The built-in dataset used by `make run`: gnn_gen_sbm with gnn_sbm_defaults. */
gnn_status gnn_dataset_builtin(gnn_dataset *ds, gnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
