/* opt/cpu/sample_wtable.h -- the per-graph cache of weighted sampling (opt/cpu/sample_wtable.c),
 * owned by the cpu sampler object (opt/cpu/sample.c) and freed with it.
 *
 * Weighted sampling reads a whole row per sampled vertex: its validation and positive count
 * P (the sample count depends on it), and with replacement its prefix sums. On a power-law
 * graph the sampled vertices are mostly hubs, so that O(degree) work dominated. The table
 * keeps, per row, what does not depend on the draw:
 *   npos[v]      P of row v, once the row has been validated (the first successful layer that
 *                samples v); a row that fails validation is never cached, so a bad weight is
 *                reported on every call that samples its row, exactly as the reference does;
 *   checkpoints  (for draws, with or without replacement) the row's prefix sums in double, in
 *                CSR order (the values of docs/sampling.md section 5.2), kept only at the end
 *                of every block of GNN_WCK_BLOCK = 16 positions: the search rebuilds the other
 *                sums of one block from the floats by the same additions
 *                (gnn_cpu_weighted_search_ck). Built the first time the row is drawn from,
 *                for rows of degree >= GNN_WTABLE_MIN_DEG (a shorter row builds its full sums
 *                per call, in scratch): half a byte per edge of those rows, allocated once,
 *                touched row by row.
 * Keyed by the graph, the address of the weights array, the caller's weights_version
 * (gnn_sample_params) and a fingerprint of 64 probed weights: a change of any resets it. So a
 * new array at a freed array's address, or one rewritten in place, is noticed unless every
 * probed weight is unchanged; a caller that changes weights in place must set a new
 * weights_version (docs/sampling.md section 8). */
#ifndef GNNREF_OPT_CPU_SAMPLE_WTABLE_H
#define GNNREF_OPT_CPU_SAMPLE_WTABLE_H

#include <stdint.h>
#include "gnnref/graph.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "gnnref/status.h"
#include "opt/cpu/interleave_point.h"
#include "opt/cpu/sample_weighted.h"

#define GNN_WTABLE_MIN_DEG 256 /* rows at least this long keep their checkpoints */
#define GNN_WT_STATE 61                               /* gnn_wtable.at: the state's bits */
#define GNN_WT_OFFSET (((int64_t)1 << GNN_WT_STATE) - 1) /* gnn_wtable.at: the offset's bits */


typedef struct gnn_wtable {
    const gnn_csr *g;
    const float *w;   /* the bound weights (NULL: none yet) */
    uint64_t version; /* their gnn_sample_params.weights_version */
    uint64_t fp;      /* their fingerprint (gnn_sample_weights_fingerprint, core/ops/sampler_base.h) */
    int64_t *npos;    /* (n) row v's positive count once validated, else -1 (one word: one miss) */
    int64_t *at;      /* (n) -1 for a short row; else where row v's checkpoints start in prefix
                       * (bits 0..60) and their state (bits 61..62: 0 not built, 1 being
                       * built, 2 ready): one word, so one cache miss per sampled vertex */
    double *prefix;   /* the long rows' checkpoints; NULL until the first layer that draws */
    int64_t *fresh;   /* (fresh_cap) per layer: P of seed i's row when computed in this call, else -1 */
    int64_t fresh_cap;
} gnn_wtable;

/* Bind the table to (g, w) for a layer of n_seeds seeds: resets it when g, the address w, the
 * caller's version (gnn_sample_params.weights_version) or the fingerprint of w (64 probed
 * weights) differ from the bound ones, allocates what the layer needs (the prefix array when it draws: fanout >= 0,
 * with or without replacement). Start from a zeroed struct. GNN_OK or GNN_ERR_NOMEM. */
gnn_status gnn_wtable_bind(gnn_wtable *t, const gnn_csr *g, const float *w, uint64_t version, int draws,
                           int64_t n_seeds);

/* Cache the positive counts of the rows validated by this layer (fresh[i] >= 0); call it only
 * when every seed of the layer was valid. Threaded. */
void gnn_wtable_commit(gnn_wtable *t, const int64_t *seeds, int64_t n_seeds);

/* The states of a long row's word at[v] (bits 61..62) and what gnn_wtable_claim_row found. */
#define GNN_WT_BUILDING ((int64_t)1 << GNN_WT_STATE)
#define GNN_WT_READY ((int64_t)2 << GNN_WT_STATE)
typedef enum gnn_wt_claim {
    GNN_WT_CLAIM_SHORT, /* a short row: no checkpoints kept */
    GNN_WT_CLAIM_BUSY,  /* another thread builds them right now (a repeated seed) */
    GNN_WT_CLAIM_MINE,  /* this call moved the row from "not built" to "being built": build it,
                         * then gnn_wtable_publish_row */
    GNN_WT_CLAIM_READY  /* built: *e locates them */
} gnn_wt_claim;

/* The build claim on row v's word (cell = &at[v]): one compare-and-swap from "not built" to
 * "being built", so exactly one of the threads that find the row unbuilt builds it, whatever
 * the interleaving (tests/test_interleave.c runs them all). *e: the word read. */
static inline gnn_wt_claim gnn_wtable_claim_row(int64_t *cell, int64_t *e)
{
    *e = __atomic_load_n(cell, __ATOMIC_ACQUIRE);
    if (*e < 0)
        return GNN_WT_CLAIM_SHORT;
    const int64_t st = *e & ~GNN_WT_OFFSET;
    if (st == GNN_WT_READY)
        return GNN_WT_CLAIM_READY;
    if (st != 0)
        return GNN_WT_CLAIM_BUSY;
    GNN_INTERLEAVE_POINT(); /* the window between the load and the CAS */
    if (!__atomic_compare_exchange_n(cell, e, *e | GNN_WT_BUILDING, 0, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
        return GNN_WT_CLAIM_BUSY;
    return GNN_WT_CLAIM_MINE;
}

/* After the build of a row claimed with word e: "ready", with a release so that a thread that
 * reads the state sees the checkpoints. */
static inline void gnn_wtable_publish_row(int64_t *cell, int64_t e)
{
    __atomic_store_n(cell, (e & GNN_WT_OFFSET) | GNN_WT_READY, __ATOMIC_RELEASE);
}

/* The checkpoints of validated row v (d >= 1; gnn_cpu_weighted_checkpoints: the prefix sum at
 * the end of every block of 16 positions), built on first use; NULL for a short row, or when
 * another thread is building the same row right now (a repeated seed): the caller then
 * computes the row's full sums itself. */
const double *gnn_wtable_checkpoints_row(gnn_wtable *t, int64_t v);

void gnn_wtable_free(gnn_wtable *t);

/* Write the `count` samples of validated row v (its positive count is in the table) into out,
 * bitwise the reference's (docs/sampling.md 5.2): the kernels of opt/cpu/sample_weighted.h
 * with the table's cached count and prefix sums. s: v's stream. 0, or -1 when scratch memory
 * runs out. */
int gnn_wtable_sample(gnn_wtable *t, int64_t v, const gnn_sample_params *p, const gnn_rng_stream *s, int64_t count,
                      int64_t *out, gnn_wscratch *scr);

/* Row v's cached positive count, or -1 when not (yet) validated. */
static inline int64_t gnn_wtable_positives(const gnn_wtable *t, int64_t v)
{
    return __atomic_load_n(&t->npos[v], __ATOMIC_ACQUIRE); /* -1 until validated */
}

/* Software prefetch of what gnn_wtable_sample reads first for row v, so that the misses of the
 * next vertices overlap the current one's draws (the vertices of a chunk otherwise follow one
 * another, each waiting for its own misses). Stage 0: the row's cached count and state, its
 * first weights and ids (g->indptr[v] must be in cache: the sampler prefetches a chunk's
 * offsets first). Stage 1, a few vertices later: the row's first checkpoints (it reads
 * at[v], which stage 0 fetched). Only hints: nothing is written, any value is safe. */
static inline void gnn_wtable_prefetch(const gnn_wtable *t, int64_t v, int stage)
{
    if (stage == 0) {
        const int64_t b = t->g->indptr[v];
        __builtin_prefetch(&t->npos[v]);
        __builtin_prefetch(&t->at[v]);
        __builtin_prefetch(t->w + b);
        __builtin_prefetch(t->g->indices + b);
    } else if (t->prefix) {
        const int64_t e = __atomic_load_n(&t->at[v], __ATOMIC_RELAXED);
        if (e >= 0 && (e >> GNN_WT_STATE) == 2)
            __builtin_prefetch(t->prefix + (e & GNN_WT_OFFSET));
    }
}

#endif
