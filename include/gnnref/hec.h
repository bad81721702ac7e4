/* include/gnnref/hec.h -- the Historical Embedding Cache (HEC), DistGNN-MB section 3.2.
 *
 * One cache per GNN layer per rank (@alg{DistGNN-MB 1} lines 4-6). Layer l's cache holds
 * historical *input* embeddings of layer l (raw features for layer 0) of vertices owned by
 * other ranks, pushed by their owners d steps ago (the AEP push is not part of this header).
 * docs/hec.md has the semantics with a worked example; this header is the contract.
 *
 * State (every field below is compared bitwise by the oracle entry hec.ops):
 *   cs lines, line i = (tag[i], age[i], emb[i * dim .. i * dim + dim)):
 *     tag  the global vertex id (VID_o) cached in the line, or GNN_HEC_EMPTY (-1);
 *     age  steps since the line was last written, saturating at age_cap = min(ls + 1,
 *          INT32_MAX) (an expired line stays expired; the counter can never overflow);
 *          an empty line's age is 0 and aging leaves it 0;
 *     emb  dim floats; an empty line's are +0.0f (lines only become empty at init/reset).
 *   wp   the write pointer in [0, cs): the line the next insertion takes. Insertions go
 *        round-robin over the lines, so the line taken is always the one filled longest ago
 *        (the paper's OCF, "oldest cache-line first"); lines fill 0, 1, ..., cs-1 first.
 *   counters (below).
 *
 * Operations, in the order each training step applies them per layer (issue 7, "Semantics"):
 *   age     every occupied line: age = min(age + 1, age_cap).
 *   store   m received (id, embedding) pairs, applied one after the other in the given order
 *           (@alg{DistGNN-MB 2} line 9, HECStore):
 *             - id already a tag of some line (whatever its age): overwrite that line's
 *               embedding, age = 0 ("overwrite");
 *             - otherwise: take line wp; if it held a tag, that tag is evicted ("eviction");
 *               tag = id, embedding written, age = 0; wp = (wp + 1) % cs.
 *           So an id repeated within one batch ends with its LAST embedding, in one line; a
 *           batch with more than cs distinct new ids wraps around and evicts its own
 *           earlier insertions.
 *   search  m halo ids -> lines[i] = the line whose tag is ids[i] if its age <= ls (a hit),
 *           else -1 (a miss: the tag is absent, or present but expired)
 *           (@alg{DistGNN-MB 2} line 11, HECSearch; line 10 finds the halos). Search
 *           changes only the counters.
 *   load    lines (m) -> out row i = emb of line lines[i]; a line of -1 (a miss) leaves out
 *           row i untouched: the caller drops that halo vertex and its edges
 *           (@alg{DistGNN-MB 2} line 12, HECLoad). Load changes nothing in the cache.
 * Nothing here depends on thread count or timing: an implementation must reproduce the
 * reference (ref/hec.c) bit for bit in every field, counter and search result.
 *
 * Errors (the wrappers below check everything before any change, so a call that fails
 * leaves the cache exactly as it was; messages through gnn_err, which may be NULL):
 *   GNN_ERR_INVAL  cs < 1, dim < 1, ls < 0, m < 0, a NULL array with m > 0, an ops table
 *                  without a name or function, a cache not initialized;
 *   GNN_ERR_RANGE  a vertex id < 0 in store or search; a line outside [-1, cs) in load;
 *                  cs * dim floats beyond the address space;
 *   GNN_ERR_NOMEM  allocation failed (init only). */
#ifndef GNNREF_HEC_H
#define GNNREF_HEC_H

#include <stdint.h>
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GNN_HEC_EMPTY ((int64_t)-1) /* tag of an empty line */
#define GNN_HEC_MISS ((int64_t)-1)  /* search result of a miss */

/* Counters since init or the last reset. Identities: hits + misses = ids searched;
 * expired <= misses; stores = overwrites + insertions, insertions = evictions + lines
 * filled from empty. */
typedef struct gnn_hec_counters {
    uint64_t hits;       /* search: tag present, age <= ls */
    uint64_t misses;     /* search: tag absent, or expired */
    uint64_t expired;    /* the misses whose tag was present with age > ls */
    uint64_t stores;     /* (id, embedding) pairs stored */
    uint64_t overwrites; /* stores whose id was already a tag (line rewritten in place) */
    uint64_t evictions;  /* insertions into a line that held another tag */
} gnn_hec_counters;

struct gnn_hec_ops;

typedef struct gnn_hec {
    const struct gnn_hec_ops *ops; /* the implementation that owns this cache */
    int64_t cs;                    /* lines */
    int64_t dim;                   /* embedding width of the layer */
    int32_t ls;                    /* lifespan: a line hits while age <= ls */
    int32_t age_cap;               /* min(ls + 1, INT32_MAX): ages saturate here */
    int64_t *tag;                  /* (cs) global vertex id or GNN_HEC_EMPTY */
    int32_t *age;                  /* (cs) */
    float *emb;                    /* (cs, dim) row-major */
    int64_t wp;                    /* write pointer, in [0, cs) */
    gnn_hec_counters cnt;
    void *index;                   /* implementation-private (cpu: the tag index); NULL in ref */
} gnn_hec;

/* An implementation. The bodies may assume valid arguments (the gnn_hec_* wrappers check
 * them) and must leave the fields above exactly as the reference would. */
typedef struct gnn_hec_ops {
    const char *name; /* "ref", "cpu" */
    /* h->cs, dim, ls, age_cap are set; allocate tag, age, emb (and index), all lines empty. */
    gnn_status (*init)(gnn_hec *h);
    void (*reset)(gnn_hec *h);   /* every line empty, wp = 0, counters 0; keeps the memory */
    void (*destroy)(gnn_hec *h); /* frees what init allocated */
    void (*age)(gnn_hec *h);
    /* ids (m), emb (m, dim) */
    void (*store)(gnn_hec *h, const int64_t *ids, const float *emb, int64_t m);
    /* ids (m) -> lines (m) */
    void (*search)(gnn_hec *h, const int64_t *ids, int64_t m, int64_t *lines);
    /* lines (m) in [-1, cs) -> out (m, dim); rows of -1 untouched */
    void (*load)(const gnn_hec *h, const int64_t *lines, int64_t m, float *out);
} gnn_hec_ops;

/* ref: plain arrays and linear scans (ref/hec.c), the specification.
 * cpu: an open-addressing hash from tag to line for O(1) search and store, OpenMP gather,
 *      scatter and aging (opt/cpu/hec.c).
 * Which one a program uses is chosen by the implementation context (impl.h: its `hec` field),
 * the one place where an implementation is chosen; the oracle and benchmarks name them. */
extern const gnn_hec_ops gnn_hec_ref, gnn_hec_cpu;

/* The public API: argument checks, then h->ops. On error of init, *h is left zeroed
 * (gnn_hec_free is safe). */
gnn_status gnn_hec_init(gnn_hec *h, const gnn_hec_ops *ops, int64_t cs, int64_t dim, int32_t ls, gnn_err *err);
void gnn_hec_reset(gnn_hec *h);
void gnn_hec_free(gnn_hec *h); /* safe on a zeroed or already freed cache */
void gnn_hec_age(gnn_hec *h);
gnn_status gnn_hec_store(gnn_hec *h, const int64_t *ids, const float *emb, int64_t m, gnn_err *err);
gnn_status gnn_hec_search(gnn_hec *h, const int64_t *ids, int64_t m, int64_t *lines, gnn_err *err);
gnn_status gnn_hec_load(const gnn_hec *h, const int64_t *lines, int64_t m, float *out, gnn_err *err);
/* Put a saved state back (checkpoints, docs/checkpoint.md): tag, age (cs each), emb (cs, dim),
 * wp and the counters, as read from a cache of the same cs, dim and ls. The occupied lines must
 * be a prefix of distinct tags (lines fill 0, 1, ... and never empty again), ages in
 * [0, age_cap], wp in [0, cs): GNN_ERR_FORMAT otherwise, the cache then reset. Works through
 * the implementation's own store, so its private index (cpu) is rebuilt. */
gnn_status gnn_hec_restore(gnn_hec *h, const int64_t *tag, const int32_t *age, const float *emb, int64_t wp,
                           const gnn_hec_counters *cnt, gnn_err *err);
/* Lines holding a tag (occupancy). */
int64_t gnn_hec_occupied(const gnn_hec *h);

#ifdef __cplusplus
}
#endif
#endif
