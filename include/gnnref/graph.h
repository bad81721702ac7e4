/* include/gnnref/graph.h -- compressed sparse graphs and mini-batch blocks.
 *
 * gnn_csr stores, for every vertex v, a list of neighbors indices[indptr[v] .. indptr[v+1]).
 * For message passing gnnref stores the IN-neighbors of each vertex (a CSC of the adjacency,
 * DGL's "in_edges" view): row v lists the sources u of edges u -> v. For undirected
 * (symmetrized) graphs in- and out-neighbors coincide. Offsets and global ids are int64.
 *
 * gnn_block is one layer of a mini-batch in DGL's to_block semantics (DESIGN.md section 2):
 * dst vertices first in seed order, then newly seen sources in order of first appearance;
 * edges CSC by dst, each dst's edges in draw order, with block-local int32 src ids. */
#ifndef GNNREF_GRAPH_H
#define GNNREF_GRAPH_H

#include <stdint.h>
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gnn_csr {
    int64_t n;        /* vertices */
    int64_t nnz;      /* edges */
    int64_t *indptr;  /* (n + 1), indptr[0] = 0, non-decreasing, indptr[n] = nnz */
    int64_t *indices; /* (nnz), each in [0, n) */
    int owns;         /* 1: indptr/indices were allocated by gnnref and are freed by gnn_csr_free */
} gnn_csr;

/* Options for gnn_csr_from_edges. */
enum {
    GNN_CSR_DEDUP = 1u << 0,     /* drop repeated (u, v) pairs */
    GNN_CSR_SYMMETRIZE = 1u << 1, /* add v -> u for every u -> v */
    GNN_CSR_DROP_SELF = 1u << 2,  /* drop u -> u */
    GNN_CSR_BY_SRC = 1u << 3      /* row = src (out-neighbors); default row = dst (in-neighbors) */
};

/* Build from an edge list src[i] -> dst[i], i < m, ids in [0, n). Within each row the
 * neighbors are sorted ascending (a canonical order independent of the input order). */
gnn_status gnn_csr_from_edges(gnn_csr *g, int64_t n, int64_t m, const int64_t *src,
                              const int64_t *dst, unsigned flags, gnn_err *err);
/* Structural validation: sizes, monotone offsets, ids in range. */
gnn_status gnn_csr_validate(const gnn_csr *g, gnn_err *err);
void gnn_csr_free(gnn_csr *g);
/* An owned copy of src in anonymous memory (for example of a graph mmapped from a file).
 * With GNN_CSR_HUGEPAGES the arrays are 2 MiB aligned and the kernel is asked for
 * transparent huge pages (madvise), which cuts TLB misses of random neighbor reads. */
enum { GNN_CSR_HUGEPAGES = 1u << 0 };
gnn_status gnn_csr_copy(gnn_csr *dst, const gnn_csr *src, unsigned flags);
/* out = g with a self-loop v -> v appended as the LAST in-edge of every row v that has none
 * (rows that already hold v keep theirs, nothing is added). Kipf & Welling's A + I for GCN. */
gnn_status gnn_csr_add_self_loops(gnn_csr *out, const gnn_csr *g);
/* The same on rows v < rows only; the other rows are copied (a part's halo rows stay empty). */
gnn_status gnn_csr_add_self_loops_rows(gnn_csr *out, const gnn_csr *g, int64_t rows);
static inline int64_t gnn_csr_degree(const gnn_csr *g, int64_t v) { return g->indptr[v + 1] - g->indptr[v]; }

typedef struct gnn_block {
    int64_t n_dst;    /* dst vertices = rows; they are also src 0 .. n_dst-1 */
    int64_t n_src;    /* src vertices (>= n_dst) */
    int64_t nnz;      /* edges */
    int64_t *src_gid; /* (n_src) global id of each local src; first n_dst are the dst vertices */
    int64_t *indptr;  /* (n_dst + 1) CSC offsets by dst */
    int32_t *indices; /* (nnz) block-local src ids, each dst's edges in draw order */
    int64_t cap_src, cap_nnz; /* allocated capacities (internal) */
    int32_t *etype;   /* (nnz) or NULL: the relation of each edge, set by the typed sampler
                         (include/gnnref/sample_typed.h); owned, freed by gnn_block_free */
} gnn_block;

gnn_status gnn_block_alloc(gnn_block *b, int64_t n_dst, int64_t cap_src, int64_t cap_nnz);
void gnn_block_free(gnn_block *b);
/* Structural validation of a block: ranges, dst prefix, int32 limits. */
gnn_status gnn_block_validate(const gnn_block *b, gnn_err *err);
/* The "full" block of a graph: dst = src = all vertices in id order, edges = all in-edges. */
gnn_status gnn_block_full(gnn_block *b, const gnn_csr *g);

#ifdef __cplusplus
}
#endif
#endif
