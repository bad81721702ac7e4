/* opt/cpu/idmap_impl.h -- internals of the parallel ID maps, shared by opt/cpu/idmap.c (whose
 * gnn_idmap_cpu table wraps them) and the cpu sampler (opt/cpu/sample.c), which inserts each
 * neighbor into the map as it draws it. The callers check the arguments first: the public entry
 * points (core/ops/minibatch.c) and the sampler's layer planning.
 *
 * Items are numbered by position: dst i is item i, neighbor e is item n_dst + e, so "first
 * appearance" is "smallest item number" (DESIGN.md section 2, "Orders").
 *   ORDERED  open-addressing table (key = gid, val = smallest item number, by atomic min);
 *   DENSE    array first[gid] (smallest item number, by atomic min), sized to the graph;
 *   FUSED    open-addressing table (key = gid, val = local id handed out by fetch-and-add
 *            when the CAS that inserts the key succeeds; FastGL Alg. 2). */
#ifndef GNNREF_OPT_CPU_IDMAP_IMPL_H
#define GNNREF_OPT_CPU_IDMAP_IMPL_H

#include <stdint.h>
#include "gnnref/idmap.h"
#include "opt/cpu/interleave_point.h"

#define GNN_IDMAP_NONE INT32_MAX /* item numbers are < 2^31 (block-local ids are int32) */

/* Scheduling (docs/openmp.md). Loops whose items cost a store or a probe run on the calling
 * thread below GNN_CPU_PAR_MIN items: a team start wakes every sleeping thread (the tool runs
 * with OMP_WAIT_POLICY=passive) and its end waits for the last of them, which on a busy
 * machine may be a preempted one. Above it, the items go in chunks of GNN_CPU_CHUNK handed
 * out dynamically, so a thread that loses its core holds at most one chunk: the others take
 * the rest. No result here depends on which thread does which chunk. */
#define GNN_CPU_PAR_MIN 2048
#define GNN_CPU_CHUNK 4096

/* The sum of part[0..c) for the chunks c one thread takes from a dynamic loop: it takes them
 * in increasing order (a shared counter hands them out), so each thread extends its own
 * running sum instead of waiting at a barrier for a `single` to scan the chunk totals. Any
 * order stays correct (a smaller c restarts the sum); integer sums, so the result is exact. */
typedef struct gnn_run_prefix {
    int64_t c, sum;
} gnn_run_prefix;

static inline int64_t gnn_run_prefix_to(gnn_run_prefix *r, const int64_t *part, int64_t c)
{
    if (c < r->c) {
        r->c = 0;
        r->sum = 0;
    }
    for (; r->c < c; r->c++)
        r->sum += part[r->c];
    return r->sum;
}

typedef struct gnn_cpu_idmap gnn_cpu_idmap;

struct gnn_cpu_idmap {
    gnn_idmap_kind kind;
    int64_t n_vertices;
    /* hash table (ORDERED, FUSED): one 64-bit word per slot, (gid + 1) << 31 | value, 0 when
     * empty; value = first item (ORDERED) or local id (FUSED), 31 bits. Packing both in one
     * word lets one compare-and-swap claim the key and lower the value, on one cache line.
     * Hence hash kinds need ids < 2^33 - 1 (checked at creation). */
    uint64_t *tab;
    uint64_t cap, mask;
    /* dense array (DENSE): first item number per vertex, GNN_IDMAP_NONE when untouched;
     * int32 cells keep the array at 4 bytes per vertex (16 MB for 4M vertices: cache-friendly) */
    int32_t *first;
    /* per item: the table slot (hash kinds) -- lets later passes skip the probe */
    uint32_t *slot;
    int64_t slot_cap;
    /* finish() scratch, kept between builds: per neighbor item, the new-vertex flag (then its
     * rank) and the first item of its vertex */
    int64_t *flag;
    int32_t *fi;
    int64_t scratch_cap;
    /* hash kinds: the slot of each local id (dst and new vertices), so the reset after a build
     * clears each used slot once instead of once per item */
    uint32_t *uslot;
    /* finish() scratch: per chunk of GNN_CPU_CHUNK neighbor items, its count of new vertices
     * (then the first local id it hands out) */
    int64_t *ccnt;
    int64_t ccnt_cap;
    /* FUSED: next local id (fetch-and-add) and where new ids write their global id */
    int64_t counter;
    int64_t *src_gid;
    int64_t n_dst;
    int dup; /* set when a dst id repeats */
};

static inline uint64_t gnn_cpu_idmap_hash(int64_t gid, uint64_t mask)
{
    return ((uint64_t)gid * 0x9E3779B97F4A7C15ull >> 17) & mask;
}

/* atomic min on a 32-bit cell by compare-and-swap (a plain load first: most cells already
 * hold a smaller item, and then no locked instruction is issued). The interleaving points
 * (opt/cpu/interleave_point.h, empty here) mark the windows before each CAS. */
static inline void gnn_atomic_min_i32(int32_t *cell, int32_t v)
{
    int32_t cur = __atomic_load_n(cell, __ATOMIC_RELAXED);
    GNN_INTERLEAVE_POINT();
    while (v < cur && !__atomic_compare_exchange_n(cell, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        GNN_INTERLEAVE_POINT();
}

#define GNN_IDMAP_VAL_MASK 0x7FFFFFFFull
static inline uint64_t gnn_cpu_idmap_word(int64_t gid, uint64_t val) { return ((uint64_t)(gid + 1) << 31) | val; }
static inline int32_t gnn_cpu_idmap_val(uint64_t w) { return (int32_t)(w & GNN_IDMAP_VAL_MASK); }

/* Find gid's slot, or claim an empty one with `mine` (gid's word with its initial value).
 * For ORDERED, finding the key lowers its value to mine's by atomic min on the whole word
 * (same key bits, so comparing words compares values). Sets *claimed when this call
 * inserted the key. */
static inline uint64_t gnn_cpu_idmap_probe(gnn_cpu_idmap *m, int64_t gid, uint64_t mine, int lower, int *claimed)
{
    const uint64_t key = (uint64_t)(gid + 1);
    uint64_t h = gnn_cpu_idmap_hash(gid, m->mask);
    *claimed = 0;
    for (;;) {
        uint64_t w = __atomic_load_n(&m->tab[h], __ATOMIC_RELAXED);
        if (w == 0) {
            GNN_INTERLEAVE_POINT();
            if (__atomic_compare_exchange_n(&m->tab[h], &w, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
                *claimed = 1;
                return h;
            }
            /* lost the race: w holds the winner's word; examine it below */
        }
        if ((w >> 31) == key) {
            GNN_INTERLEAVE_POINT();
            while (lower && mine < w &&
                   !__atomic_compare_exchange_n(&m->tab[h], &w, mine, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                GNN_INTERLEAVE_POINT();
            return h;
        }
        h = (h + 1) & m->mask;
    }
}

/* Insert item `item` (global id gid). Thread-safe; call between gnn_cpu_idmap_begin and
 * gnn_cpu_idmap_finish. For FUSED, items >= n_dst get their local id here: @alg{FastGL 2},
 * the hash claim by compare-and-swap and the local id by an atomic add in one step. */
static inline void gnn_cpu_idmap_insert(gnn_cpu_idmap *m, int64_t item, int64_t gid)
{
    int claimed;
    switch (m->kind) {
    case GNN_IDMAP_DENSE:
        gnn_atomic_min_i32(&m->first[gid], (int32_t)item);
        break;
    case GNN_IDMAP_ORDERED:
        m->slot[item] = (uint32_t)gnn_cpu_idmap_probe(m, gid, gnn_cpu_idmap_word(gid, (uint64_t)item), 1, &claimed);
        break;
    case GNN_IDMAP_FUSED: {
        const uint64_t h = gnn_cpu_idmap_probe(m, gid, gnn_cpu_idmap_word(gid, GNN_IDMAP_VAL_MASK), 0, &claimed);
        m->slot[item] = (uint32_t)h;
        if (claimed) {
            /* one fetch-and-add both reads and advances the counter (FastGL's Alg. 2 reads
             * LocalID and adds 1 in two steps, which races; docs/idmap.md) */
            GNN_INTERLEAVE_POINT(); /* claimed, not numbered: others may number first */
            const int64_t local = __atomic_fetch_add(&m->counter, 1, __ATOMIC_RELAXED);
            __atomic_store_n(&m->tab[h], gnn_cpu_idmap_word(gid, (uint64_t)local), __ATOMIC_RELAXED);
            m->src_gid[local] = gid;
            m->uslot[local] = (uint32_t)h;
        }
        break;
    }
    default:
        break;
    }
}

/* A map of `kind` for ids in [0, n_vertices) (kind valid, n_vertices >= 0). GNN_ERR_RANGE for
 * the hash kinds beyond 2^33 - 2 (the packed table words). */
gnn_status gnn_cpu_idmap_create(gnn_cpu_idmap **m, gnn_idmap_kind kind, int64_t n_vertices);
void gnn_cpu_idmap_destroy(gnn_cpu_idmap *m);
/* gnn_idmap_build's body: arguments valid (every id in [0, n_vertices)); a repeated dst gives
 * GNN_ERR_INVAL and leaves the map clean for the next build. */
gnn_status gnn_cpu_idmap_build(gnn_cpu_idmap *m, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                               int32_t *local, int64_t *src_gid, int64_t *n_src);

/* Prepare for n_dst + nnz items (serial: sizes, scratch). src_gid: the output array (n_dst + nnz
 * capacity). Then every dst i goes through gnn_cpu_idmap_insert_dst (any thread, any order)
 * and the OR of their results through gnn_cpu_idmap_dst_status; for FUSED all of that before
 * the first neighbor insert (a neighbor must find the dst's claim), for ORDERED and DENSE at
 * any time before finish (an atomic min does not care about the order). */
gnn_status gnn_cpu_idmap_prepare(gnn_cpu_idmap *m, int64_t n_dst, int64_t nnz, int64_t *src_gid);
/* prepare, then the dst inserts in parallel, then their status */
gnn_status gnn_cpu_idmap_begin(gnn_cpu_idmap *m, const int64_t *dst, int64_t n_dst, int64_t nnz, int64_t *src_gid);

/* Insert dst item i: src_gid[i] = dst[i], and the vertex's cell. Returns 1 for a vertex out of
 * range, 2 when FUSED finds the vertex claimed by an earlier dst (ORDERED and DENSE find
 * repeats in finish), else 0. Thread-safe. */
static inline int gnn_cpu_idmap_insert_dst(gnn_cpu_idmap *m, const int64_t *dst, int64_t i)
{
    const int64_t v = dst[i];
    if (v < 0 || v >= m->n_vertices)
        return 1;
    m->src_gid[i] = v;
    if (m->kind == GNN_IDMAP_FUSED) {
        int claimed;
        const uint64_t h = gnn_cpu_idmap_probe(m, v, gnn_cpu_idmap_word(v, (uint64_t)i), 0, &claimed);
        m->slot[i] = (uint32_t)h;
        m->uslot[i] = (uint32_t)h;
        return claimed ? 0 : 2;
    }
    gnn_cpu_idmap_insert(m, i, v);
    if (m->kind == GNN_IDMAP_ORDERED)
        m->uslot[i] = m->slot[i];
    return 0;
}

/* The OR of the dst inserts' results: GNN_ERR_RANGE for a vertex out of range (the map is then
 * reset, as after finish), a repeat is remembered for finish's GNN_ERR_INVAL. */
gnn_status gnn_cpu_idmap_dst_status(gnn_cpu_idmap *m, const int64_t *dst, int64_t n_dst, const int64_t *nbr,
                                    int64_t nnz, int bad);
/* After every neighbor item n_dst + e holding nbr[e] was inserted: local ids, src_gid, n_src,
 * and the map is reset for the next use. */
gnn_status gnn_cpu_idmap_finish(gnn_cpu_idmap *m, const int64_t *dst, int64_t n_dst, const int64_t *nbr,
                                int64_t nnz, int32_t *local, int64_t *src_gid, int64_t *n_src);

#endif
