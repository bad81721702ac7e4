/* core/io/gen_internal.h -- the streaming CSR construction of the generators (core/io/gen.c,
 * core/io/gen_stream.c; docs/formats.md, "Generators"). Internal to core/io: not installed.
 *
 * A keyed generator can produce any of its edges again from (seed, edge or vertex id), so it
 * never needs to hold its edge list. It runs its edge loop twice through gen_csr_put:
 *   gen_csr_begin(&b, n, m);                  indptr, and the slots for 2m entries (the most there
 *                                             can be: allocated first, so that a graph too big for
 *                                             memory fails at once, not after a pass)
 *   for every edge (u, v): self += gen_csr_put(&b, u, v);   pass 1: both endpoints' degrees
 *   gen_csr_place(&b);                        prefix sum -> indptr
 *   for every edge (u, v): gen_csr_put(&b, u, v);   pass 2: the same edges into their slots
 *   gen_csr_finish(&b, ds, m, self, err);     sort, deduplicate, compact each row; stats
 * (each thread queues its edges through a gen_csr_buf, below, which is the same and faster).
 * The result is bitwise gnn_csr_from_edges(n, m, src, dst, SYMMETRIZE | DEDUP | DROP_SELF) of
 * the same edges with the stats the edge-list path records, at any thread count: pass 2's
 * atomic cursors put a row's entries in an order that depends on the threads, and the sort
 * of each row removes that order. Peak memory: indptr (n + 1) and the slot array (2m), int64
 * each, shrunk to nnz at the end. */
#ifndef GNN_CORE_IO_GEN_INTERNAL_H
#define GNN_CORE_IO_GEN_INTERNAL_H

#include <stdint.h>
#include "gnnref/dataset.h"

typedef struct gen_csr {
    int64_t n;       /* vertices */
    int pass;        /* 1: count; 2: place */
    int64_t *indptr; /* (n + 1) pass 1: degree of v at [v + 1]; pass 2: the next free slot of row v at [v] */
    int64_t *slots;  /* (2m) pass 2: the 2 (m - self-loops) entries, row v from its start in indptr */
} gen_csr;

/* Pass 1 starts: indptr zeroed, slots for 2m entries (m generated edges). GNN_ERR_NOMEM when
 * either cannot be allocated (b is empty then). */
gnn_status gen_csr_begin(gen_csr *b, int64_t n, int64_t m);
/* Between the passes: the prefix sum. */
void gen_csr_place(gen_csr *b);
/* After pass 2: every row sorted and deduplicated in place, the rows compacted, the slot array
 * shrunk to nnz; ds->graph takes indptr and the slots, ds->stats records m generated edges of
 * which `self` were self-loops. b is empty afterwards, on success or failure. */
gnn_status gen_csr_finish(gen_csr *b, gnn_dataset *ds, int64_t m, int64_t self, gnn_err *err);
/* Frees what b holds (on a generator's error path). */
void gen_csr_abort(gen_csr *b);

/* Edge u -> v of the generated list (ids in [0, n)): counted (pass 1) or placed (pass 2) in
 * row v and, reversed, in row u. A self-loop is dropped; the return value says it was one. */
static inline int gen_csr_put(gen_csr *b, int64_t u, int64_t v)
{
    if (u == v)
        return 1;
    if (b->pass == 1) {
        __atomic_fetch_add(&b->indptr[v + 1], 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&b->indptr[u + 1], 1, __ATOMIC_RELAXED);
    } else {
        b->slots[__atomic_fetch_add(&b->indptr[v], 1, __ATOMIC_RELAXED)] = u;
        b->slots[__atomic_fetch_add(&b->indptr[u], 1, __ATOMIC_RELAXED)] = v;
    }
    return 0;
}

/* A thread's chunk of edges waiting to be put: a generator draws GEN_CHUNK edges, then puts
 * them in one short loop, so that their cache misses (random rows of indptr and the slots)
 * overlap instead of each one waiting behind the Philox rounds of the next edge. */
#define GEN_CHUNK 256
typedef struct gen_csr_buf {
    gen_csr *b;
    int64_t k;    /* edges waiting */
    int64_t self; /* self-loops among the edges put so far */
    int64_t u[GEN_CHUNK], v[GEN_CHUNK];
} gen_csr_buf;

static inline void gen_csr_flush(gen_csr_buf *q)
{
    for (int64_t i = 0; i < q->k; i++)
        q->self += gen_csr_put(q->b, q->u[i], q->v[i]);
    q->k = 0;
}

static inline void gen_csr_add(gen_csr_buf *q, int64_t u, int64_t v)
{
    q->u[q->k] = u;
    q->v[q->k] = v;
    if (++q->k == GEN_CHUNK)
        gen_csr_flush(q);
}

#endif
