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

/* ---- ID map objects: a reusable map from an ops table ------------------------------------------
 * An implementation is an ops table; gnn_idmap_create/build/destroy below are its checked entry
 * points (core/ops/minibatch.c): they check every argument once, so the bodies may assume valid
 * ones. Which table a program uses is chosen by the implementation context (impl.h: its
 * `idmap` field), not here. */
typedef struct gnn_idmap_ops {
    const char *name; /* "ref", "cpu" */
    unsigned caps;    /* GNN_CAP_* (aggregate.h) */
    /* *state: the implementation's map of `kind` for ids in [0, n_vertices) (both checked) */
    gnn_status (*create)(void **state, gnn_idmap_kind kind, int64_t n_vertices);
    /* gnn_idmap_build with its arguments checked: pointers set, counts in range, every id in
     * [0, n_vertices). A repeated dst id is the body's to report (GNN_ERR_INVAL): the map
     * finds it as it inserts, and afterwards must still be usable. */
    gnn_status (*build)(void *state, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                        int32_t *local, int64_t *src_gid, int64_t *n_src);
    void (*destroy)(void *state);
} gnn_idmap_ops;

/* ref: gnn_idmap_build_ref for every kind (ref/idmap.c, the specification; it ignores the kind
 * as the reference sampler ignores its options: first-appearance order is right for every
 * kind, FUSED included after canonical relabelling);
 * cpu: the parallel maps (opt/cpu/idmap.c): ORDERED, DENSE, FUSED, and REF through
 * gnn_idmap_build_ref. */
extern const gnn_idmap_ops gnn_idmap_ref, gnn_idmap_cpu;
/* The CUDA maps (opt/cuda/idmap.cu, opt/cuda/idmap_emu.c; docs/cuda_sampling.md): FUSED is
 * FastGL's Fused-Map (CAS insert, one atomicAdd per new vertex: unordered), every other kind the
 * ordered map (atomic min of each vertex's first position, then a scan: bitwise the reference).
 * cuda needs a GPU (create returns GNN_ERR_UNSUPPORTED without one); cuda-emu runs the same
 * kernels' bodies on the CPU through the emulator (opt/cuda/emu.h). */
extern const gnn_idmap_ops gnn_idmap_cuda, gnn_idmap_cuda_emu;

typedef struct gnn_idmap gnn_idmap; /* an implementation's map (hash table or dense array) and its ops */

/* n_vertices: ids are in [0, n_vertices) (DENSE sizes its array to it). GNN_ERR_INVAL for a NULL
 * m, an incomplete ops table, an unknown kind or n_vertices < 0. cpu: GNN_ERR_RANGE for the hash
 * kinds (ORDERED, FUSED) with n_vertices >= 2^33 - 1 (its packed table words). */
gnn_status gnn_idmap_create(gnn_idmap **m, const gnn_idmap_ops *ops, gnn_idmap_kind kind, int64_t n_vertices);
void gnn_idmap_destroy(gnn_idmap *m);

/* Map dst (n_dst, unique) and nbr (nnz) to local ids:
 *   local   (nnz)              local id of nbr[e];
 *   src_gid (n_dst + nnz cap)  global id of each local id, dst first; *n_src receives the count.
 * NULL pointers: GNN_ERR_INVAL. Negative counts, n_dst + nnz > INT32_MAX, ids outside
 * [0, n_vertices): GNN_ERR_RANGE (checked here, in that order, before the map is touched).
 * Duplicate dst ids: GNN_ERR_INVAL (found by the map). */
gnn_status gnn_idmap_build(gnn_idmap *m, const int64_t *dst, int64_t n_dst, const int64_t *nbr,
                           int64_t nnz, int32_t *local, int64_t *src_gid, int64_t *n_src);

/* The reference map as a plain function (gnn_block_build_ref and gnn_idmap_ref use it). Ids
 * must be >= 0 (GNN_ERR_RANGE); it has no upper bound to check. */
gnn_status gnn_idmap_build_ref(const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                               int32_t *local, int64_t *src_gid, int64_t *n_src);

#ifdef __cplusplus
}
#endif
#endif
