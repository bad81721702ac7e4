/* opt/cpu/hec.c -- the Historical Embedding Cache with a tag index and OpenMP, bitwise equal
 * to ref/hec.c (oracle entry hec.ops: tags, ages, embeddings, write pointer, counters and
 * every search result, at 1, 2 and 4 threads).
 *
 * What changes against the reference, and why it still matches:
 *  - The tag index. ref finds a tag by scanning all cs lines; here an open-addressing hash
 *    (linear probing, power-of-two table of at least 2 cs slots, so the load factor stays
 *    <= 1/2) maps each cached tag to its line. It is kept in sync on every insertion and
 *    eviction; deletion shifts the following entries back (Knuth's Algorithm R), so there
 *    are no tombstones to pile up under the constant eviction churn of a full cache.
 *    A hash rather than a direct-mapped array: tags are global vertex ids (up to 2^63), and
 *    one array over the global id range per layer per rank would cost 8 n bytes each (2.4 GB
 *    per rank for 3 layers of a 100M-vertex graph), while the hash costs 32 cs bytes. The
 *    index decides nothing, it only finds: the lines chosen are the ones ref chooses.
 *  - search: one read-only probe per id, in parallel; the counters are sums of integers
 *    (reduction), exact in any order.
 *  - store: the line of each pair is resolved serially in the given order (a probe, plus
 *    the write-pointer logic of ref), which fixes tags, ages, wp and counters exactly as
 *    ref does. The embedding copies, the bulk of the work, then run in parallel, and only
 *    the last pair that resolved to a line copies into it, so a repeated id (or a line
 *    reused after a wrap-around within the batch) ends with the last embedding, as in ref.
 *    Pairs are processed in chunks of GNN_HEC_CHUNK so the scratch is fixed at init and
 *    store cannot fail; chunk c + 1 starts after chunk c's copies, which keeps the order.
 *  - age and load: elementwise loops over lines / rows, in parallel. */
#include <string.h>
#include "gnnref/hec.h"
#include "gnnref/tensor.h"

#define GNN_HEC_CHUNK 4096    /* pairs resolved before their copies run in parallel */
#define GNN_HEC_PAR_MIN 4096  /* below this many lines / rows a loop stays serial */

typedef struct hec_slot {
    int64_t key;  /* a cached tag, or GNN_HEC_EMPTY */
    int64_t line; /* its line */
} hec_slot;

typedef struct hec_index {
    hec_slot *slot; /* (mask + 1) */
    uint64_t mask;
    int64_t *dest;  /* (GNN_HEC_CHUNK) store scratch: the line of each pair of a chunk */
    int64_t *last;  /* (cs) store scratch: the last pair of the chunk that resolved to a line */
} hec_index;

/* murmur3's 64-bit finalizer: consecutive vertex ids spread over the whole table */
static inline uint64_t hash64(int64_t key)
{
    uint64_t x = (uint64_t)key;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* Line of key, or -1. */
static inline int64_t index_find(const hec_index *ix, int64_t key)
{
    for (uint64_t p = hash64(key) & ix->mask;; p = (p + 1) & ix->mask) {
        const int64_t k = ix->slot[p].key;
        if (k == key)
            return ix->slot[p].line;
        if (k == GNN_HEC_EMPTY)
            return -1;
    }
}

/* key must be absent (the table has room: at most cs keys in >= 2 cs slots) */
static void index_insert(hec_index *ix, int64_t key, int64_t line)
{
    uint64_t p = hash64(key) & ix->mask;
    while (ix->slot[p].key != GNN_HEC_EMPTY)
        p = (p + 1) & ix->mask;
    ix->slot[p].key = key;
    ix->slot[p].line = line;
}

/* key must be present. Backward-shift deletion: every entry after the hole whose home slot
 * is not cyclically in (hole, j] moves into the hole, so probe chains stay unbroken. */
static void index_erase(hec_index *ix, int64_t key)
{
    uint64_t i = hash64(key) & ix->mask;
    while (ix->slot[i].key != key)
        i = (i + 1) & ix->mask;
    for (uint64_t j = (i + 1) & ix->mask; ix->slot[j].key != GNN_HEC_EMPTY; j = (j + 1) & ix->mask) {
        const uint64_t home = hash64(ix->slot[j].key) & ix->mask;
        /* distance from home to j, and from the hole to j, both cyclic */
        if (((j - home) & ix->mask) >= ((j - i) & ix->mask)) {
            ix->slot[i] = ix->slot[j];
            i = j;
        }
    }
    ix->slot[i].key = GNN_HEC_EMPTY;
    ix->slot[i].line = -1;
}

static void hec_cpu_reset(gnn_hec *h)
{
    hec_index *ix = h->index;
    const int64_t cs = h->cs, dim = h->dim;
    int64_t *tag = h->tag;
    int32_t *age = h->age;
    float *emb = h->emb;
#pragma omp parallel for schedule(static) if (cs >= GNN_HEC_PAR_MIN)
    for (int64_t i = 0; i < cs; i++) {
        tag[i] = GNN_HEC_EMPTY;
        age[i] = 0;
        memset(emb + i * dim, 0, (size_t)dim * sizeof(float));
    }
    for (uint64_t p = 0; p <= ix->mask; p++) {
        ix->slot[p].key = GNN_HEC_EMPTY;
        ix->slot[p].line = -1;
    }
    h->wp = 0;
    memset(&h->cnt, 0, sizeof h->cnt);
}

static void hec_cpu_destroy(gnn_hec *h)
{
    hec_index *ix = h->index;
    if (ix) {
        gnn_free(ix->slot);
        gnn_free(ix->dest);
        gnn_free(ix->last);
        gnn_free(ix);
    }
    gnn_free(h->tag);
    gnn_free(h->age);
    gnn_free(h->emb);
    h->index = NULL;
    h->tag = NULL;
    h->age = NULL;
    h->emb = NULL;
}

static gnn_status hec_cpu_init(gnn_hec *h)
{
    uint64_t slots = 2;
    while (slots < 2 * (uint64_t)h->cs)
        slots <<= 1;
    hec_index *ix = gnn_calloc(1, sizeof *ix);
    h->index = ix;
    h->tag = gnn_malloc((size_t)h->cs * sizeof(int64_t));
    h->age = gnn_malloc((size_t)h->cs * sizeof(int32_t));
    h->emb = gnn_malloc((size_t)(h->cs * h->dim) * sizeof(float));
    if (ix) {
        ix->mask = slots - 1;
        ix->slot = gnn_malloc((size_t)slots * sizeof(hec_slot));
        ix->dest = gnn_malloc((size_t)GNN_HEC_CHUNK * sizeof(int64_t));
        ix->last = gnn_calloc((size_t)h->cs, sizeof(int64_t));
    }
    if (!ix || !ix->slot || !ix->dest || !ix->last || !h->tag || !h->age || !h->emb) {
        hec_cpu_destroy(h);
        return GNN_ERR_NOMEM;
    }
    hec_cpu_reset(h);
    return GNN_OK;
}

static void hec_cpu_age(gnn_hec *h)
{
    const int64_t cs = h->cs;
    const int64_t *tag = h->tag;
    int32_t *age = h->age;
    const int32_t cap = h->age_cap;
#pragma omp parallel for schedule(static) if (cs >= GNN_HEC_PAR_MIN)
    for (int64_t i = 0; i < cs; i++)
        if (tag[i] != GNN_HEC_EMPTY && age[i] < cap)
            age[i]++;
}

/* @alg{DistGNN-MB 2} line 9, HECStore: resolve serially in order, copy in parallel. */
static void hec_cpu_store(gnn_hec *h, const int64_t *ids, const float *emb, int64_t m)
{
    hec_index *ix = h->index;
    const int64_t dim = h->dim;
    for (int64_t base = 0; base < m; base += GNN_HEC_CHUNK) {
        const int64_t n = m - base < GNN_HEC_CHUNK ? m - base : GNN_HEC_CHUNK;
        int64_t *dest = ix->dest, *last = ix->last;
        /* 1. the lines, in the pairs' order: exactly ref's decisions */
        for (int64_t k = 0; k < n; k++) {
            const int64_t id = ids[base + k];
            int64_t line = index_find(ix, id);
            if (line >= 0) {
                h->cnt.overwrites++;
            } else {
                line = h->wp;
                const int64_t old = h->tag[line];
                if (old != GNN_HEC_EMPTY) {
                    index_erase(ix, old);
                    h->cnt.evictions++;
                }
                h->tag[line] = id;
                index_insert(ix, id, line);
                h->wp = h->wp + 1 == h->cs ? 0 : h->wp + 1;
            }
            h->age[line] = 0;
            dest[k] = line;
            last[line] = k; /* later pairs of this chunk overwrite: the last one wins */
        }
        h->cnt.stores += (uint64_t)n;
        /* 2. the copies: one writer per line, the last pair that chose it */
        const float *src = emb + base * dim;
        float *cache = h->emb;
#pragma omp parallel for schedule(static) if (n * dim >= GNN_HEC_PAR_MIN)
        for (int64_t k = 0; k < n; k++)
            if (last[dest[k]] == k)
                memcpy(cache + dest[k] * dim, src + k * dim, (size_t)dim * sizeof(float));
    }
}

/* @alg{DistGNN-MB 2} line 11, HECSearch: read-only probes in parallel. */
static void hec_cpu_search(gnn_hec *h, const int64_t *ids, int64_t m, int64_t *lines)
{
    const hec_index *ix = h->index;
    const int32_t *age = h->age;
    const int32_t ls = h->ls;
    uint64_t hits = 0, misses = 0, expired = 0;
#pragma omp parallel for schedule(static) reduction(+ : hits, misses, expired) if (m >= GNN_HEC_PAR_MIN)
    for (int64_t k = 0; k < m; k++) {
        const int64_t line = index_find(ix, ids[k]);
        if (line >= 0 && age[line] <= ls) {
            lines[k] = line;
            hits++;
        } else {
            lines[k] = GNN_HEC_MISS;
            misses++;
            expired += line >= 0;
        }
    }
    h->cnt.hits += hits;
    h->cnt.misses += misses;
    h->cnt.expired += expired;
}

/* @alg{DistGNN-MB 2} line 12, HECLoad: a parallel gather; misses leave their rows alone. */
static void hec_cpu_load(const gnn_hec *h, const int64_t *lines, int64_t m, float *out)
{
    const int64_t dim = h->dim;
    const float *cache = h->emb;
#pragma omp parallel for schedule(static) if (m * dim >= GNN_HEC_PAR_MIN)
    for (int64_t k = 0; k < m; k++)
        if (lines[k] >= 0)
            memcpy(out + k * dim, cache + lines[k] * dim, (size_t)dim * sizeof(float));
}

const gnn_hec_ops gnn_hec_cpu = {
    .name = "cpu",
    .init = hec_cpu_init,
    .reset = hec_cpu_reset,
    .destroy = hec_cpu_destroy,
    .age = hec_cpu_age,
    .store = hec_cpu_store,
    .search = hec_cpu_search,
    .load = hec_cpu_load,
};
