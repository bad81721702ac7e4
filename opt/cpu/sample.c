/* opt/cpu/sample.c -- OpenMP neighbor samplers, fused and unfused, bitwise equal to the
 * reference block (ref/sample.c + ref/idmap.c) at any thread count.
 *
 * What changed and why it still matches:
 *  - each dst vertex draws from its own keyed stream (seed, SAMPLE, step, layer, v), so the
 *    dst vertices can be sampled in any order, on any thread;
 *  - counts per dst are known before drawing (min(k, d), k, or the weighted count), so an
 *    exclusive prefix sum gives every dst its output range: threads write disjoint slices
 *    in the reference's layout;
 *  - the partial Fisher-Yates keeps only the swapped positions (at most k of them) instead
 *    of the reference's array of all d positions: the same swaps, the same outputs, O(k)
 *    work per vertex instead of O(d) (hubs dominate R-MAT samples);
 *  - one Philox block serves two integer draws (the reference recomputes it per draw);
 *  - weighted: a per-graph table (opt/cpu/sample_wtable.h) caches each row's positive count
 *    and, for long rows, its prefix sums: the values the reference recomputes per call;
 *  - local ids come from an ordered parallel ID map (opt/cpu/idmap.c), which reproduces the
 *    first-appearance order, or from FastGL's Fused-Map (unordered, canonical comparator).
 * FUSED (Intel/DGL fused sampling with compaction): one parallel pass per layer samples and
 * inserts each neighbor into the ID map as it is drawn, then the map's relabel pass writes
 * the CSC block directly. UNFUSED: sample to COO (row, col), unique + relabel (the ID map
 * as separate passes over the COO), convert the sorted COO to CSC: each step a pass over an
 * intermediate array, the pipeline the fused one replaces.
 * The layer's plan (counts per chunk of seeds, then offsets from the running sum) has a stress
 * point per chunk (opt/cpu/omp_stress.h): under `gnnref oracle --stress` a chunk is counted
 * late, so offsets that did not wait for every count fail there; the ID maps' numbering is
 * opt/cpu/idmap.c's (oracle-stress: sample.blocks, dsample.blocks). */
#include <stdlib.h>
#include <string.h>
#include "gnnref/idmap.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "gnnref/tensor.h"
#include "opt/cpu/idmap_impl.h"
#include "opt/cpu/philox_lanes.h"
#include "opt/cpu/sample_weighted.h"
#include "opt/cpu/sample_wtable.h"
#include "opt/cpu/omp_stress.h"
#ifdef GNN_HAVE_OPENMP
#include <omp.h>
#endif

typedef struct cpu_sampler {
    const gnn_csr *g;
    gnn_sampler_variant variant;
    gnn_idmap_kind kind;
    gnn_cpu_idmap *map;
    int64_t *nbr, *row; /* (cap) sampled global ids; COO rows (unfused) */
    int32_t *local;     /* (cap) unfused relabel output */
    int64_t cap;
    gnn_wtable wt;      /* weighted sampling: rows' positive counts and prefix sums, cached */
} cpu_sampler;

/* o is valid (gnn_sampler_create checks it). */
static gnn_status cpu_create(void **out, const gnn_csr *g, const gnn_sampler_options *o)
{
    cpu_sampler *s = calloc(1, sizeof *s);
    if (!s)
        return GNN_ERR_NOMEM;
    s->g = g;
    s->variant = o->variant;
    s->kind = (gnn_idmap_kind)o->idmap;
    /* the fused pass inserts into a parallel map; REF is serial, so it runs unfused-style */
    gnn_status st = gnn_cpu_idmap_create(&s->map, s->kind == GNN_IDMAP_REF ? GNN_IDMAP_ORDERED : s->kind, g->n);
    if (st) {
        free(s);
        return st;
    }
    *out = s;
    return GNN_OK;
}

static void cpu_destroy(void *vs)
{
    cpu_sampler *s = vs;
    if (!s)
        return;
    gnn_cpu_idmap_destroy(s->map);
    gnn_free(s->nbr);
    gnn_free(s->row);
    gnn_free(s->local);
    gnn_wtable_free(&s->wt);
    free(s);
}

static gnn_status reserve(cpu_sampler *s, int64_t nnz)
{
    if (nnz <= s->cap)
        return GNN_OK;
    const int64_t cap = nnz + nnz / 4 + 1024;
    gnn_free(s->nbr);
    gnn_free(s->row);
    gnn_free(s->local);
    s->nbr = gnn_malloc((size_t)cap * sizeof(int64_t));
    s->row = s->variant == GNN_SAMPLER_UNFUSED ? gnn_malloc((size_t)cap * sizeof(int64_t)) : NULL;
    s->local = s->variant == GNN_SAMPLER_UNFUSED ? gnn_malloc((size_t)cap * sizeof(int32_t)) : NULL;
    if (!s->nbr || (s->variant == GNN_SAMPLER_UNFUSED && (!s->row || !s->local))) {
        s->cap = 0;
        return GNN_ERR_NOMEM;
    }
    s->cap = cap;
    return GNN_OK;
}

/* ---- per-vertex uniform kernel ----------------------------------------------------------- */

static inline int64_t uniform_count(int64_t d, int64_t k, int replace)
{
    if (k < 0)
        return d;
    if (replace)
        return d > 0 ? k : 0;
    return d < k ? d : k;
}

/* Integer draws j = 0, 1, ... in [0, n_j): two draws per Philox block (DESIGN.md section 2). */
typedef struct draw_cursor {
    const gnn_rng_stream *s;
    uint32_t w[4];
    uint64_t block; /* block held in w, or UINT64_MAX */
} draw_cursor;

static inline uint64_t draw_uint(draw_cursor *c, uint64_t j, uint64_t n)
{
    const uint64_t b = j / 2;
    if (b != c->block) {
        gnn_rng_block(c->s, (uint32_t)b, c->w);
        c->block = b;
    }
    const unsigned h = (unsigned)(j % 2) * 2;
    const uint64_t r = ((uint64_t)c->w[h + 1] << 32) | c->w[h];
    return (uint64_t)(((unsigned __int128)r * n) >> 64);
}

#define GNN_SWAP_SMALL 64 /* fanouts up to this keep their swaps in a small list */

/* The 64-bit words of integer draws 0..k-1 (draw j: words 2(j%2), 2(j%2)+1 of block j/2),
 * k <= GNN_SWAP_SMALL. The blocks are independent: with AVX2 they are computed eight side by
 * side (opt/cpu/philox_lanes.c, about 5 cycles a block); otherwise in one loop, which lets the
 * CPU overlap their multiply chains (one Philox block is ~50 cycles of dependent latency). */
static inline void draw_words(const gnn_rng_stream *s, int64_t k, uint64_t *r)
{
    if (k > 2 && gnn_cpu_philox_have_avx2()) {
        uint32_t w[2 * GNN_SWAP_SMALL + 4];
        const int nb = (int)((k + 1) / 2);
        gnn_cpu_philox_blocks(s, 0, nb, w);
        for (int64_t j = 0; j < k; j++) /* draw j = words 2j (low) and 2j + 1 (high) */
            r[j] = ((uint64_t)w[2 * j + 1] << 32) | w[2 * j];
        return;
    }
    for (int64_t b = 0; 2 * b < k; b++) {
        uint32_t w[4];
        gnn_rng_block(s, (uint32_t)b, w);
        r[2 * b] = ((uint64_t)w[1] << 32) | w[0];
        r[2 * b + 1] = ((uint64_t)w[3] << 32) | w[2];
    }
}

static inline uint64_t scale_draw(uint64_t r, uint64_t n) { return (uint64_t)(((unsigned __int128)r * n) >> 64); }

/* Partial Fisher-Yates over virtual positions 0..d-1 where only swapped positions are stored:
 * pos(x) = the stored value for x, or x itself. Same swaps as ref/sample.c. Writes the chosen
 * positions (base + position); the caller gathers the neighbor ids afterwards. k <= 64. */
static inline void fisher_yates_sparse(int64_t base, int64_t d, int64_t k, const gnn_rng_stream *s, int64_t *out)
{
    uint64_t rw[GNN_SWAP_SMALL + 1];
    int64_t key[GNN_SWAP_SMALL], val[GNN_SWAP_SMALL];
    /* a 256-bit filter over the stored keys (bit key & 255): when neither j's nor r's bit is
     * set, neither is stored and the list scan is skipped -- the common case when d >> k */
    uint64_t filt[4] = { 0, 0, 0, 0 };
    int n = 0;
    draw_words(s, k, rw);
    for (int64_t j = 0; j < k; j++) {
        const int64_t r = j + (int64_t)scale_draw(rw[j], (uint64_t)(d - j));
        int64_t pj = j, pr = r;
        int at_r = -1;
        const uint64_t bj = filt[(j >> 6) & 3] >> (j & 63), br = filt[(r >> 6) & 3] >> (r & 63);
        if ((bj | br) & 1)
            for (int q = 0; q < n; q++) {
                if (key[q] == j)
                    pj = val[q];
                if (key[q] == r) {
                    pr = val[q];
                    at_r = q;
                }
            }
        out[j] = base + pr;
        /* pos[r] = old pos[j] (pos[j] is never read again) */
        if (at_r >= 0) {
            val[at_r] = pj;
        } else {
            key[n] = r;
            val[n] = pj;
            filt[(r >> 6) & 3] |= (uint64_t)1 << (r & 63);
            n++;
        }
    }
}

static inline void fisher_yates_dense(int64_t base, int64_t d, int64_t k, draw_cursor *c, int64_t *out,
                                      int64_t *pos)
{
    for (int64_t j = 0; j < d; j++)
        pos[j] = j;
    for (int64_t j = 0; j < k; j++) {
        const int64_t r = j + (int64_t)draw_uint(c, (uint64_t)j, (uint64_t)(d - j));
        const int64_t t = pos[j];
        pos[j] = pos[r];
        pos[r] = t;
        out[j] = base + pos[j];
    }
}

/* Per-thread scratch. */
typedef struct thread_scratch {
    int64_t *pos;
    int64_t pos_cap;
    gnn_wscratch w;
} thread_scratch;

static int scratch_pos(thread_scratch *t, int64_t d)
{
    if (d <= t->pos_cap)
        return 0;
    gnn_free(t->pos);
    t->pos = gnn_malloc((size_t)d * sizeof(int64_t));
    t->pos_cap = t->pos ? d : 0;
    return t->pos ? 0 : -1;
}

/* Sample `count` neighbors of v, exactly as the reference. Uniform sampling writes the chosen
 * EDGE INDICES into out (returns 1: the caller gathers g->indices[out[j]] in a separate tight
 * loop, where many cache misses overlap); weighted sampling writes the global ids (returns 0).
 * When scratch memory runs out it sets *oom and still fills out with valid values of the
 * same kind (the row's first edge), so the later passes stay in bounds; the layer then fails
 * with GNN_ERR_NOMEM. */
static inline int sample_vertex(const gnn_csr *g, int64_t v, const gnn_sample_params *p, int64_t count,
                                int64_t *out, thread_scratch *t, gnn_wtable *wt, int *oom)
{
    const int64_t b = g->indptr[v], d = g->indptr[v + 1] - b;
    const gnn_rng_stream s = gnn_rng_stream_make(p->seed, GNN_TAG_SAMPLE, p->step, p->layer,
                                                   gnn_sample_rng_id(p, v));
    if (p->weights) {
        if (gnn_wtable_sample(wt, v, p, &s, count, out, &t->w)) {
            for (int64_t j = 0; j < count; j++) /* count > 0 implies d > 0 */
                out[j] = g->indices[b];
            *oom = 1;
        }
        return 0;
    }
    draw_cursor c = { &s, { 0, 0, 0, 0 }, UINT64_MAX };
    const int64_t k = p->fanout;
    if (p->replace && k >= 0) {
        if (count <= GNN_SWAP_SMALL) {
            uint64_t rw[GNN_SWAP_SMALL + 1];
            draw_words(&s, count, rw);
            for (int64_t j = 0; j < count; j++)
                out[j] = b + (int64_t)scale_draw(rw[j], (uint64_t)d);
        } else {
            for (int64_t j = 0; j < count; j++)
                out[j] = b + (int64_t)draw_uint(&c, (uint64_t)j, (uint64_t)d);
        }
    } else if (count == d) {
        for (int64_t j = 0; j < d; j++) /* all neighbors in CSR order, no draws */
            out[j] = b + j;
    } else if (k <= GNN_SWAP_SMALL) {
        fisher_yates_sparse(b, d, k, &s, out);
    } else if (scratch_pos(t, d)) {
        for (int64_t j = 0; j < count; j++)
            out[j] = b;
        *oom = 1;
    } else {
        fisher_yates_dense(b, d, k, &c, out, t->pos);
    }
    return 1;
}

/* ---- one layer -------------------------------------------------------------------------- */

#define GNN_PLAN_CHUNK 256 /* seeds per work item of the planning pass (the oracle's 1024-seed cases run 4) */

/* Compute offsets (n_seeds + 1) of each dst's samples; returns nnz or < 0. The seeds are in
 * range and the weights of their rows valid (gnn_sampler_layer checks both, core/minibatch.c).
 * One team counts each chunk of seeds (a random read of the row per seed) and its total, then,
 * after one barrier, writes each chunk's exclusive offsets from the sum of the totals before it
 * (gnn_run_prefix_to): the count, the scan and the offsets in one team, chunks handed out
 * dynamically. */
static int64_t plan_layer(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                          gnn_wtable *wt, int64_t *offsets, gnn_status *st)
{
    const int64_t chunks = (n_seeds + GNN_PLAN_CHUNK - 1) / GNN_PLAN_CHUNK;
    int64_t part_small[64];
    int64_t *part = chunks <= 64 ? part_small : gnn_malloc((size_t)chunks * sizeof(int64_t));
    if (!part) {
        *st = GNN_ERR_NOMEM;
        return -1;
    }
#pragma omp parallel if (n_seeds >= 2 * GNN_PLAN_CHUNK)
    {
#pragma omp for schedule(dynamic, gnn_omp_chunk(1))
        for (int64_t c = 0; c < chunks; c++) {
            const int64_t i0 = c * GNN_PLAN_CHUNK, i1 = i0 + GNN_PLAN_CHUNK < n_seeds ? i0 + GNN_PLAN_CHUNK : n_seeds;
            int64_t sum = 0;
            GNN_OMP_STRESS_POINT();
            for (int64_t i = i0; i < i1; i++) {
                const int64_t v = seeds[i];
                const int64_t b = g->indptr[v], d = g->indptr[v + 1] - b;
                int64_t cnt;
                if (p->weights) {
                    /* the row's positive count: cached, or counted now (committed below) */
                    int64_t P = gnn_wtable_positives(wt, v);
                    wt->fresh[i] = P < 0 ? (P = gnn_cpu_weighted_positives(p->weights + b, d)) : -1;
                    cnt = gnn_cpu_weighted_count_of(P, p->fanout, p->replace);
                } else {
                    cnt = uniform_count(d, p->fanout, p->replace);
                }
                offsets[i] = cnt;
                sum += offsets[i];
            }
            part[c] = sum;
        }
        gnn_run_prefix r = { 0, 0 };
#pragma omp for schedule(dynamic, gnn_omp_chunk(1)) nowait
        for (int64_t c = 0; c < chunks; c++) {
            const int64_t i0 = c * GNN_PLAN_CHUNK, i1 = i0 + GNN_PLAN_CHUNK < n_seeds ? i0 + GNN_PLAN_CHUNK : n_seeds;
            int64_t run = gnn_run_prefix_to(&r, part, c);
            for (int64_t i = i0; i < i1; i++) {
                const int64_t x = offsets[i];
                offsets[i] = run;
                run += x;
            }
        }
    }
    int64_t nnz = 0;
    for (int64_t c = 0; c < chunks; c++)
        nnz += part[c];
    if (part != part_small)
        gnn_free(part);
    if (p->weights)
        gnn_wtable_commit(wt, seeds, n_seeds);
    offsets[n_seeds] = nnz;
    if (n_seeds + nnz > INT32_MAX) {
        *st = GNN_ERR_RANGE;
        return -1;
    }
    return nnz;
}

/* Address of the map cell a global id will touch (for software prefetch). */
static inline const void *map_cell(const gnn_cpu_idmap *m, int64_t gid)
{
    return m->kind == GNN_IDMAP_DENSE ? (const void *)&m->first[gid]
                                      : (const void *)&m->tab[gnn_cpu_idmap_hash(gid, m->mask)];
}

#define GNN_SAMPLE_CHUNK 32 /* dst vertices per work item */
#define GNN_PREFETCH 64     /* how far ahead the gather and insert loops prefetch */
#define GNN_WPF_ROW 8       /* weighted: dst vertices ahead whose row and table entry are prefetched */
#define GNN_WPF_CK 4        /* ... and whose checkpoints (their location known by then) */

/* Sample every dst in parallel into nbr (and rows), optionally inserting into the map.
 * Work goes in chunks of dst vertices; per chunk: (a) draw positions for each dst, (b) gather
 * the neighbor ids, (c) insert them into the ID map, with prefetching: the three loops are
 * independent across edges, so their cache misses overlap instead of queueing.
 * With insert, the same team first inserts the dst vertices (gnn_cpu_idmap_insert_dst; their
 * results OR-ed into *dst_bad): for ORDERED and DENSE without a barrier before the neighbors
 * (an atomic min does not care about the order), for FUSED with one. Chunks are handed out
 * dynamically, so a thread that loses its core delays one chunk of 32 dst vertices. */
static gnn_status draw_all(cpu_sampler *s, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                           const int64_t *offsets, int insert, int64_t *row, int *dst_bad)
{
    const gnn_csr *g = s->g;
    int oom = 0, bad = 0;
    const int64_t chunks = (n_seeds + GNN_SAMPLE_CHUNK - 1) / GNN_SAMPLE_CHUNK;
    const int fused_map = insert && s->map->kind == GNN_IDMAP_FUSED;
#pragma omp parallel reduction(| : oom) if (offsets[n_seeds] + n_seeds >= GNN_CPU_PAR_MIN)
    {
        thread_scratch t;
        memset(&t, 0, sizeof t);
        if (insert && fused_map) {
#pragma omp for schedule(dynamic, gnn_omp_chunk(GNN_CPU_CHUNK)) reduction(| : bad)
            for (int64_t i = 0; i < n_seeds; i++)
                bad |= gnn_cpu_idmap_insert_dst(s->map, seeds, i);
        } else if (insert) {
#pragma omp for schedule(dynamic, gnn_omp_chunk(GNN_CPU_CHUNK)) reduction(| : bad) nowait
            for (int64_t i = 0; i < n_seeds; i++)
                bad |= gnn_cpu_idmap_insert_dst(s->map, seeds, i);
        }
#pragma omp for schedule(dynamic, gnn_omp_chunk(1)) nowait /* then only this thread's scratch is freed */
        for (int64_t c = 0; c < chunks; c++) {
            const int64_t i0 = c * GNN_SAMPLE_CHUNK;
            const int64_t i1 = i0 + GNN_SAMPLE_CHUNK < n_seeds ? i0 + GNN_SAMPLE_CHUNK : n_seeds;
            for (int64_t i = i0; i < i1; i++)
                __builtin_prefetch(&g->indptr[seeds[i]]);
            /* (a) positions (uniform) or ids (weighted) */
            int gather = 0;
            for (int64_t i = i0; i < i1; i++) {
                if (p->weights) { /* the next vertices' table entries and rows, two stages */
                    if (i + GNN_WPF_ROW < i1)
                        gnn_wtable_prefetch(&s->wt, seeds[i + GNN_WPF_ROW], 0);
                    if (i + GNN_WPF_CK < i1)
                        gnn_wtable_prefetch(&s->wt, seeds[i + GNN_WPF_CK], 1);
                }
                const int64_t o = offsets[i], cnt = offsets[i + 1] - o;
                gather |= sample_vertex(g, seeds[i], p, cnt, s->nbr + o, &t, &s->wt, &oom);
            }
            const int64_t e0 = offsets[i0], e1 = offsets[i1];
            /* (b) gather neighbor ids: independent loads */
            if (gather) {
                int64_t *nbr = s->nbr;
                for (int64_t e = e0; e < e1; e++) {
                    if (e + GNN_PREFETCH < e1)
                        __builtin_prefetch(&g->indices[nbr[e + GNN_PREFETCH]]);
                    nbr[e] = g->indices[nbr[e]];
                }
            }
            /* (c) ID map inserts */
            if (insert)
                for (int64_t e = e0; e < e1; e++) {
                    if (e + GNN_PREFETCH < e1)
                        __builtin_prefetch(map_cell(s->map, s->nbr[e + GNN_PREFETCH]), 1);
                    gnn_cpu_idmap_insert(s->map, n_seeds + e, s->nbr[e]);
                }
            if (row)
                for (int64_t i = i0; i < i1; i++)
                    for (int64_t e = offsets[i]; e < offsets[i + 1]; e++)
                        row[e] = i;
        }
        gnn_free(t.pos);
        gnn_wscratch_free(&t.w);
    }
    if (dst_bad)
        *dst_bad = bad;
    return oom ? GNN_ERR_NOMEM : GNN_OK;
}

/* Arguments checked and out zeroed by gnn_sampler_layer (core/ops/minibatch.c). */
static gnn_status cpu_layer(void *vs, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                            gnn_block *out)
{
    cpu_sampler *s = vs;
    int64_t *offsets = gnn_malloc(((size_t)n_seeds + 1) * sizeof(int64_t));
    if (!offsets)
        return GNN_ERR_NOMEM;
    gnn_status st = GNN_OK;
    if (p->weights && (st = gnn_wtable_bind(&s->wt, s->g, p->weights, p->weights_version, p->fanout >= 0, n_seeds)))
        goto done;
    const int64_t nnz = plan_layer(s->g, seeds, n_seeds, p, &s->wt, offsets, &st);
    if (nnz < 0)
        goto done;
    if ((st = reserve(s, nnz)) || (st = gnn_block_alloc(out, n_seeds, n_seeds + nnz, nnz)))
        goto done;
    const int fused = s->variant == GNN_SAMPLER_FUSED && s->kind != GNN_IDMAP_REF;
    if (fused) {
        /* one pass: insert the dst vertices, draw and insert the neighbors; then the map's
         * relabel pass writes the block */
        if ((st = gnn_cpu_idmap_prepare(s->map, n_seeds, nnz, out->src_gid)))
            goto done;
        int dst_bad = 0;
        st = draw_all(s, seeds, n_seeds, p, offsets, 1, NULL, &dst_bad);
        gnn_status st2 = gnn_cpu_idmap_dst_status(s->map, seeds, n_seeds, s->nbr, nnz, dst_bad);
        if (st2 == GNN_OK)
            st2 = gnn_cpu_idmap_finish(s->map, seeds, n_seeds, s->nbr, nnz, out->indices, out->src_gid,
                                       &out->n_src);
        if (st || (st = st2))
            goto done;
        memcpy(out->indptr, offsets, ((size_t)n_seeds + 1) * sizeof(int64_t));
    } else {
        /* 1. sample to COO (row = dst index, col = global id) */
        int64_t *row = s->variant == GNN_SAMPLER_UNFUSED ? s->row : NULL;
        if ((st = draw_all(s, seeds, n_seeds, p, offsets, 0, row, NULL)))
            goto done;
        /* 2. unique + relabel: the ID map as separate passes over the COO columns */
        int32_t *local = s->variant == GNN_SAMPLER_UNFUSED ? s->local : out->indices;
        if (s->kind == GNN_IDMAP_REF)
            st = gnn_idmap_build_ref(seeds, n_seeds, s->nbr, nnz, local, out->src_gid, &out->n_src);
        else
            st = gnn_cpu_idmap_build(s->map, seeds, n_seeds, s->nbr, nnz, local, out->src_gid, &out->n_src);
        if (st)
            goto done;
        if (row) {
            /* 3. sorted COO to CSC: indptr[i] = first edge of row i (binary search), then copy;
             * one team, no barrier between the two (they write different arrays) */
#pragma omp parallel if (nnz >= GNN_CPU_PAR_MIN)
            {
#pragma omp for schedule(dynamic, gnn_omp_chunk(GNN_CPU_CHUNK)) nowait
                for (int64_t i = 0; i <= n_seeds; i++) {
                    int64_t lo = 0, hi = nnz;
                    while (lo < hi) {
                        const int64_t mid = lo + (hi - lo) / 2;
                        if (row[mid] < i)
                            lo = mid + 1;
                        else
                            hi = mid;
                    }
                    out->indptr[i] = lo;
                }
#pragma omp for schedule(dynamic, gnn_omp_chunk(GNN_CPU_CHUNK)) nowait
                for (int64_t e = 0; e < nnz; e++)
                    out->indices[e] = local[e];
            }
        } else {
            memcpy(out->indptr, offsets, ((size_t)n_seeds + 1) * sizeof(int64_t));
        }
    }
    out->nnz = nnz;
done:
    gnn_free(offsets);
    if (st)
        gnn_block_free(out);
    return st;
}

const gnn_sampler_ops gnn_sampler_cpu = {
    .name = "cpu",
    .caps = GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED,
    .create = cpu_create,
    .layer = cpu_layer,
    .blocks = NULL, /* the generic layer loop */
    .destroy = cpu_destroy,
};
