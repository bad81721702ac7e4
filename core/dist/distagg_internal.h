/* core/dist/distagg_internal.h -- internal: the plumbing of distributed aggregation's setup
 * (ref/distagg.c's gnn_distagg_setup_ref), kept out of the reference so that ref/ holds the
 * algorithm only (issue 35 item 3): growable lists of addends, their stable sort by key into
 * CSR lists, the degrees and GCN factors of the graph, and a search in sorted ids. Defined in
 * core/dist/distagg_setup.c. None of it decides an order or a value the header's contract
 * names: the reference adds the addends in that order, and gnn_da_by_key keeps it. */
#ifndef GNNREF_CORE_DIST_DISTAGG_INTERNAL_H
#define GNNREF_CORE_DIST_DISTAGG_INTERNAL_H

#include <stdint.h>
#include "gnnref/graph.h"

/* A growable list of addends: (index, coefficient, second coefficient, flag) and a key. */
typedef struct gnn_da_addends {
    int64_t n, cap;
    int64_t *key, *idx;
    float *c, *cm;
    uint8_t *flag;
} gnn_da_addends;

/* Append (key, idx, c, cm, flag) to a, grown by doubling; 0, or -1 out of memory (a stays valid). */
int gnn_da_add(gnn_da_addends *a, int64_t key, int64_t idx, float c, float cm, uint8_t flag);
/* Free a's arrays and zero it. */
void gnn_da_addends_free(gnn_da_addends *a);
/* A CSR over `rows` rows from the addends by key, stable (each row keeps the addends' order):
 * ptr (rows + 1), idx, c, cm, flag (any of c, cm, flag may be NULL). 0, or -1 out of memory. */
int gnn_da_by_key(const gnn_da_addends *a, int64_t rows, int64_t **ptr, int64_t **idx, float **c, float **cm,
                  uint8_t **flag);

/* The degrees of g and the GCN factors: c_uv = isq_out[u] * isq_in[v], as gnn_aggregate_ref
 * forms it on gnn_block_full(g) (1.0f / sqrtf((float)deg), one multiply). */
typedef struct gnn_da_degrees {
    int64_t *out;      /* (n) */
    float *isq_out;    /* (n) */
    float *isq_in;     /* (n) */
    float *inv_in;     /* (n) 1.0f / (float)deg_in */
} gnn_da_degrees;

/* Fill D from g; 0, or -1 out of memory (free D with gnn_da_degrees_free either way). */
int gnn_da_degrees_make(const gnn_csr *g, gnn_da_degrees *D);
void gnn_da_degrees_free(gnn_da_degrees *D);

/* The index of u in the sorted ids [lo, hi) of ids (u is there). */
int64_t gnn_da_find_id(const int64_t *ids, int64_t lo, int64_t hi, int64_t u);

#endif
