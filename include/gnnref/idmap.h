/* include/gnnref/idmap.h -- global-to-local ID maps for mini-batch blocks.
 *
 * Given the dst vertices of a block (unique, in seed order) and the sampled neighbors in
 * order (dst by dst, each one's samples in draw order), an ID map assigns block-local ids:
 * dst i gets local id i; every other vertex gets the next id at its first appearance
 * (DESIGN.md section 2, "Orders"; DGL's to_block). Kinds:
 *   REF      serial open-addressing table (ref/idmap.c): the specification;
 *   ORDERED  parallel hash table; the first position of each vertex by atomic min, then a
 *            prefix sum over first appearances: reproduces REF bit for bit;
 *   FUSED    FastGL's Fused-Map (Sec. 4.3, Alg. 2): compare-and-swap insert plus an atomic
 *            counter that hands out local ids as vertices arrive: unordered (registered with
 *            the canonical comparator);
 *   DENSE    DGL's dense mapping array sized to the graph (first position by atomic min),
 *            resetting only the touched entries afterwards: reproduces REF bit for bit. */
#ifndef GNNREF_IDMAP_H
#define GNNREF_IDMAP_H

#include <stdint.h>
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gnn_idmap_kind {
    GNN_IDMAP_REF = 0,
    GNN_IDMAP_ORDERED = 1,
    GNN_IDMAP_FUSED = 2,
    GNN_IDMAP_DENSE = 3,
    GNN_IDMAP_KIND_COUNT
} gnn_idmap_kind;

const char *gnn_idmap_kind_name(gnn_idmap_kind k); /* "ref", "ordered", "fused", "dense" */
/* Parse a name; returns GNN_ERR_INVAL for an unknown one. */
gnn_status gnn_idmap_kind_parse(const char *name, gnn_idmap_kind *k);
/* 1 when the kind reproduces the reference order exactly (all but FUSED). */
int gnn_idmap_kind_ordered(gnn_idmap_kind k);

typedef struct gnn_idmap gnn_idmap; /* reusable workspace (hash table or dense array) */

/* n_vertices: ids are in [0, n_vertices) (DENSE sizes its array to it). */
gnn_status gnn_idmap_create(gnn_idmap **m, gnn_idmap_kind kind, int64_t n_vertices);
void gnn_idmap_destroy(gnn_idmap *m);

/* Map dst (n_dst, unique) and nbr (nnz) to local ids:
 *   local   (nnz)              local id of nbr[e];
 *   src_gid (n_dst + nnz cap)  global id of each local id, dst first; *n_src receives the count.
 * Duplicate dst ids: GNN_ERR_INVAL. Ids outside [0, n_vertices): GNN_ERR_RANGE. */
gnn_status gnn_idmap_build(gnn_idmap *m, const int64_t *dst, int64_t n_dst, const int64_t *nbr,
                           int64_t nnz, int32_t *local, int64_t *src_gid, int64_t *n_src);

/* The reference map as a plain function (used by gnn_block_build_ref). */
gnn_status gnn_idmap_build_ref(const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                               int32_t *local, int64_t *src_gid, int64_t *n_src);

#ifdef __cplusplus
}
#endif
#endif
