/* include/gnnref/dsample.h -- DistDGLv2's distributed neighbor sampling over gnn_comm
 * (docs/dist_sampling.md; DistDGLv2 sections 3.3 and 4.2.2, @sec{DistDGLv2 3.3};
 * ../shared/specs/next-capabilities.md C.2).
 *
 * Graph-partitioned sampling: rank r holds its part (partition.h: gnn_part_local), whose solid
 * rows are the global in-edge rows of its vertices in the global CSR order, each source replaced
 * by its local id. A mini-batch's blocks are sampled hop by hop, as gnn_sample_blocks does on
 * one machine (DGL order: the block of the last layer first, from the seeds):
 *   1. split the hop's frontier (the dst vertices, global ids) by owner (the part vector);
 *   2. request: to every owner, a header (the requester's seed, step, layer, fanout, replace:
 *      the owner draws with the requester's keys) and the frontier vertices it owns, in frontier
 *      order (one alltoallv of headers, one of ids); a rank's own vertices never leave it;
 *   3. every owner samples each requested vertex on its local row with the sampler of the ops
 *      given (rng_ids = VID_o: the stream of global id v), and translates the chosen local ids
 *      to global ids;
 *   4. reply: per requested vertex its sample count, then the sampled global ids (one
 *      alltoallv each);
 *   5. stitch the local and remote results back in frontier order and build the block with the
 *      ID map given (the map's first-appearance order for every kind but FUSED).
 * Because every draw is keyed by (seed, SAMPLE, step, layer, v) and a solid row keeps the global
 * order, the blocks are BITWISE the blocks gnn_sample_blocks builds from the whole graph with the
 * reference sampler (FUSED: after canonical relabelling), at any rank count. Weighted sampling:
 * local_weights aligned with the part's local graph (a solid row's weights are its global row's,
 * in order; gnn_dsample_local_weights builds them).
 *
 * Collective: every rank calls gnn_dsample_blocks the same number of times with the same L;
 * a rank with no seeds takes part with n_seeds = 0. Four alltoallv per hop (request headers,
 * request ids, reply counts, reply ids): an L-layer mini-batch costs 4 L collectives.
 * Library code: returns gnn_status, never prints. */
#ifndef GNNREF_DSAMPLE_H
#define GNNREF_DSAMPLE_H

#include <stdint.h>
#include "gnnref/comm.h"
#include "gnnref/graph.h"
#include "gnnref/idmap.h"
#include "gnnref/partition.h"
#include "gnnref/sample.h"
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GNN_DSAMPLE_MAX_LAYERS 16

/* Per-layer figures of this rank (layer l = the block of layer l), added up over calls. */
typedef struct gnn_dsample_stats {
    int64_t local[GNN_DSAMPLE_MAX_LAYERS];         /* frontier vertices this rank owned */
    int64_t remote[GNN_DSAMPLE_MAX_LAYERS];        /* frontier vertices requested from other ranks */
    int64_t served[GNN_DSAMPLE_MAX_LAYERS];        /* vertices this rank sampled for other ranks */
    int64_t request_bytes[GNN_DSAMPLE_MAX_LAYERS]; /* sent to other ranks: headers and ids */
    int64_t reply_bytes[GNN_DSAMPLE_MAX_LAYERS];   /* sent to other ranks: counts and ids */
} gnn_dsample_stats;

typedef struct gnn_dsampler gnn_dsampler;

/* The two tables a distributed sampler runs (the implementation context's sampler and idmap):
 * the oracle's implementations of dsample.blocks are such pairs. */
typedef struct gnn_dsample_tables {
    const gnn_sampler_ops *sampler; /* the owner's sampling of its local rows */
    const gnn_idmap_ops *idmap;     /* the requester's block */
} gnn_dsample_tables;

/* A rank's sampler: its part L (L->rank the communicator rank), the part vector owner (n_global
 * entries in [0, k)), optional local_weights (L->graph.nnz, aligned with L->graph.indices;
 * NULL: uniform), the sampler ops run on the local rows (gnn_sampler_ref or _cpu) and the ID
 * map that builds the blocks (ops and kind). Everything given must outlive the sampler, and the
 * local weights must not change while it lives (its cpu sampler caches per-row data of them,
 * keyed by base->weights_version, which the caller of gnn_dsample_blocks does not own: make a
 * new sampler for new weights).
 * GNN_ERR_INVAL with a message: a NULL pointer; n_global or k out of range; an ID map kind
 * unknown. GNN_ERR_NOMEM. */
gnn_status gnn_dsampler_create(gnn_dsampler **out, const gnn_part_local *L, const int32_t *owner, int64_t n_global,
                               int64_t k, const float *local_weights, const gnn_sampler_ops *sampler,
                               const gnn_idmap_ops *idmap, gnn_idmap_kind kind, gnn_err *err);
void gnn_dsampler_destroy(gnn_dsampler *s);

/* L blocks from the seeds (global ids, unique, any owner), as gnn_sample_blocks: blocks[L-1]
 * from the seeds, blocks[l]'s dst are blocks[l+1]'s src; base: seed, step, replace (fanout,
 * layer set per layer; weights and rng_ids are the sampler's). blocks must hold L zeroed
 * blocks; their src_gid are global ids. stats (may be NULL) is added to. Collective.
 * GNN_ERR_INVAL: bad arguments (checked locally: the others then fail in the exchange);
 * GNN_ERR_RANGE: a seed outside [0, n_global); GNN_ERR_COMM: an exchange failed or a rank was
 * asked for a vertex it does not own (message in c->err). */
gnn_status gnn_dsample_blocks(gnn_dsampler *s, gnn_comm *c, const int64_t *seeds, int64_t n_seeds,
                              const int64_t *fanouts, int L, const gnn_sample_params *base, gnn_block *blocks,
                              gnn_dsample_stats *stats);

/* The local weights of part L from the global graph g and its weights w (g->nnz): a solid row's
 * weights are its global row's, in order; halo rows have none. out: (L->graph.nnz).
 * GNN_ERR_INVAL when a solid row's length differs from its global row's. */
gnn_status gnn_dsample_local_weights(const gnn_part_local *L, const gnn_csr *g, const float *w, float *out,
                                     gnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
