/* opt/cpu/idmap.c -- parallel ID maps: ORDERED and DENSE reproduce ref/idmap.c bit for bit;
 * FUSED is FastGL's Fused-Map (Sec. 4.3, @alg{FastGL 2}), unordered.
 *
 * Why ORDERED/DENSE match the reference: the reference gives local ids in order of first
 * appearance. Here every item (dst i = item i, neighbor e = item n_dst + e) records itself
 * into its vertex's cell by atomic min, so after one parallel pass each cell holds the
 * vertex's FIRST item number, whatever the thread interleaving. A neighbor item is "new"
 * exactly when it is its vertex's first item and that item is not a dst; an exclusive prefix
 * sum over these flags numbers the new vertices in item order: the reference's ids.
 * The passes: insert (atomic min) -> flag -> scan -> relabel -> reset touched cells. */
#include <stdlib.h>
#include <string.h>
#include "gnnref/aggregate.h" /* GNN_CAP_* */
#include "gnnref/tensor.h"
#include "opt/cpu/idmap_impl.h"
#ifdef GNN_HAVE_OPENMP
#include <omp.h>
#endif

gnn_status gnn_cpu_idmap_create(gnn_cpu_idmap **out, gnn_idmap_kind kind, int64_t n_vertices)
{
    *out = NULL;
    if ((kind == GNN_IDMAP_ORDERED || kind == GNN_IDMAP_FUSED) && n_vertices >= ((int64_t)1 << 33) - 1)
        return GNN_ERR_RANGE; /* packed hash words hold ids below 2^33 - 1 */
    gnn_cpu_idmap *m = calloc(1, sizeof *m);
    if (!m)
        return GNN_ERR_NOMEM;
    m->kind = kind;
    m->n_vertices = n_vertices;
    if (kind == GNN_IDMAP_DENSE) {
        m->first = gnn_malloc((size_t)(n_vertices > 0 ? n_vertices : 1) * sizeof(int32_t));
        if (!m->first) {
            free(m);
            return GNN_ERR_NOMEM;
        }
#pragma omp parallel for schedule(static)
        for (int64_t v = 0; v < n_vertices; v++)
            m->first[v] = GNN_IDMAP_NONE;
    }
    *out = m;
    return GNN_OK;
}

void gnn_cpu_idmap_destroy(gnn_cpu_idmap *m)
{
    if (!m)
        return;
    gnn_free(m->tab);
    gnn_free(m->first);
    gnn_free(m->slot);
    gnn_free(m->uslot);
    gnn_free(m->flag);
    gnn_free(m->fi);
    free(m);
}

/* Grow the table to >= 2 * items slots (a power of two) and the slot array to items. */
static gnn_status reserve(gnn_cpu_idmap *m, int64_t items)
{
    if (m->kind == GNN_IDMAP_ORDERED || m->kind == GNN_IDMAP_FUSED) {
        uint64_t cap = 1024;
        while (cap < 2 * (uint64_t)items)
            cap <<= 1;
        if (cap > m->cap) {
            gnn_free(m->tab);
            m->tab = gnn_malloc(cap * sizeof(*m->tab));
            if (!m->tab) {
                m->cap = 0;
                return GNN_ERR_NOMEM;
            }
            m->cap = cap;
            m->mask = cap - 1;
#pragma omp parallel for schedule(static)
            for (uint64_t i = 0; i < cap; i++)
                m->tab[i] = 0; /* empty */
        }
        if (items > m->slot_cap) {
            gnn_free(m->slot);
            gnn_free(m->uslot);
            m->slot = gnn_malloc((size_t)items * sizeof(uint32_t));
            m->uslot = gnn_malloc((size_t)items * sizeof(uint32_t));
            if (!m->slot || !m->uslot) {
                m->slot_cap = 0;
                return GNN_ERR_NOMEM;
            }
            m->slot_cap = items;
        }
    }
    if (m->kind != GNN_IDMAP_FUSED && items > m->scratch_cap) {
        gnn_free(m->flag);
        gnn_free(m->fi);
        m->flag = gnn_malloc((size_t)items * sizeof(int64_t));
        m->fi = gnn_malloc((size_t)items * sizeof(int32_t));
        if (!m->flag || !m->fi) {
            m->scratch_cap = 0;
            return GNN_ERR_NOMEM;
        }
        m->scratch_cap = items;
    }
    return GNN_OK;
}

int64_t gnn_cpu_exclusive_scan(int64_t *v, int64_t n)
{
#ifdef GNN_HAVE_OPENMP
    const int T = omp_get_max_threads();
#else
    const int T = 1;
#endif
    if (n < 65536 || T == 1) {
        int64_t run = 0;
        for (int64_t i = 0; i < n; i++) {
            const int64_t x = v[i];
            v[i] = run;
            run += x;
        }
        return run;
    }
    int64_t part[257] = { 0 };
    const int chunks = T > 256 ? 256 : T;
#pragma omp parallel for schedule(static, 1)
    for (int c = 0; c < chunks; c++) {
        const int64_t b = n * c / chunks, e = n * (c + 1) / chunks;
        int64_t s = 0;
        for (int64_t i = b; i < e; i++)
            s += v[i];
        part[c + 1] = s;
    }
    for (int c = 0; c < chunks; c++)
        part[c + 1] += part[c];
#pragma omp parallel for schedule(static, 1)
    for (int c = 0; c < chunks; c++) {
        const int64_t b = n * c / chunks, e = n * (c + 1) / chunks;
        int64_t run = part[c];
        for (int64_t i = b; i < e; i++) {
            const int64_t x = v[i];
            v[i] = run;
            run += x;
        }
    }
    return part[chunks];
}

gnn_status gnn_cpu_idmap_begin(gnn_cpu_idmap *m, const int64_t *dst, int64_t n_dst, int64_t nnz, int64_t *src_gid)
{
    if (n_dst < 0 || nnz < 0 || n_dst + nnz > INT32_MAX)
        return GNN_ERR_RANGE;
    gnn_status st = reserve(m, n_dst + nnz);
    if (st)
        return st;
    m->n_dst = n_dst;
    m->src_gid = src_gid;
    m->counter = n_dst;
    m->dup = 0;
    int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad)
    for (int64_t i = 0; i < n_dst; i++) {
        const int64_t v = dst[i];
        if (v < 0 || v >= m->n_vertices) {
            bad = 1;
            continue;
        }
        src_gid[i] = v;
        if (m->kind == GNN_IDMAP_FUSED) {
            int claimed;
            const uint64_t h = gnn_cpu_idmap_probe(m, v, gnn_cpu_idmap_word(v, (uint64_t)i), 0, &claimed);
            m->slot[i] = (uint32_t)h;
            m->uslot[i] = (uint32_t)h;
            if (!claimed)
                bad = 2; /* a repeated dst */
        } else {
            gnn_cpu_idmap_insert(m, i, v);
            if (m->kind == GNN_IDMAP_ORDERED)
                m->uslot[i] = m->slot[i];
        }
    }
    if (bad & 1)
        return GNN_ERR_RANGE;
    if (bad & 2)
        m->dup = 1;
    return GNN_OK;
}

/* The smallest item number of the vertex of item `item` (ORDERED, DENSE). */
static inline int64_t first_item(const gnn_cpu_idmap *m, int64_t item, int64_t gid)
{
    return m->kind == GNN_IDMAP_DENSE ? m->first[gid] : gnn_cpu_idmap_val(m->tab[m->slot[item]]);
}

/* Reset the cells this build touched. After a successful build every touched vertex is in
 * src_gid[0..n_src) exactly once, so the reset visits each cell once (fewer writes than one
 * per item); after an error it walks the items (writes are idempotent). */
static void reset_touched(gnn_cpu_idmap *m, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                          const int64_t *src_gid, int64_t n_src)
{
    if (src_gid && m->kind == GNN_IDMAP_DENSE) {
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n_src; i++)
            m->first[src_gid[i]] = GNN_IDMAP_NONE;
        return;
    }
    if (src_gid) { /* hash kinds: uslot[0..n_src) lists every used slot once */
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n_src; i++)
            m->tab[m->uslot[i]] = 0;
        return;
    }
    const int64_t items = n_dst + nnz;
#pragma omp parallel for schedule(static)
    for (int64_t it = 0; it < items; it++) {
        const int64_t gid = it < n_dst ? dst[it] : nbr[it - n_dst];
        if (gid < 0 || gid >= m->n_vertices)
            continue;
        if (m->kind == GNN_IDMAP_DENSE) {
            __atomic_store_n(&m->first[gid], GNN_IDMAP_NONE, __ATOMIC_RELAXED);
        } else {
            __atomic_store_n(&m->tab[m->slot[it]], 0, __ATOMIC_RELAXED);
        }
    }
}

gnn_status gnn_cpu_idmap_finish(gnn_cpu_idmap *m, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                                int32_t *local, int64_t *src_gid, int64_t *n_src)
{
    gnn_status st = GNN_OK;
    int bad = m->dup ? 2 : 0;
    if (m->kind == GNN_IDMAP_FUSED) {
        if (!bad) {
#pragma omp parallel for schedule(static)
            for (int64_t e = 0; e < nnz; e++)
                local[e] = gnn_cpu_idmap_val(m->tab[m->slot[n_dst + e]]);
            *n_src = m->counter;
        }
    } else {
        /* a dst whose vertex's first item is not itself repeats an earlier dst */
#pragma omp parallel for schedule(static) reduction(| : bad)
        for (int64_t i = 0; i < n_dst; i++)
            if (first_item(m, i, dst[i]) != i)
                bad |= 2;
        int64_t *flag = m->flag;
        int32_t *fi = m->fi;
        if (!bad) {
            /* new vertex at e: its first item is this neighbor item; keep each edge's first
             * item so the relabel pass reads it sequentially instead of probing again */
#pragma omp parallel for schedule(static)
            for (int64_t e = 0; e < nnz; e++) {
                if (e + 32 < nnz) /* the cell reads are random: start them early */
                    __builtin_prefetch(m->kind == GNN_IDMAP_DENSE ? (const void *)&m->first[nbr[e + 32]]
                                                                  : (const void *)&m->tab[m->slot[n_dst + e + 32]]);
                const int64_t f = first_item(m, n_dst + e, nbr[e]);
                fi[e] = (int32_t)f;
                flag[e] = f == n_dst + e;
            }
            const int64_t n_new = gnn_cpu_exclusive_scan(flag, nnz); /* flag[e] = rank among new */
#pragma omp parallel for schedule(static)
            for (int64_t e = 0; e < nnz; e++) {
                const int64_t f = fi[e];
                /* dst: local id = item number; new vertex: n_dst + its rank */
                const int64_t id = f < n_dst ? f : n_dst + flag[f - n_dst];
                local[e] = (int32_t)id;
                if (f == n_dst + e) {
                    src_gid[id] = nbr[e];
                    if (m->kind == GNN_IDMAP_ORDERED)
                        m->uslot[id] = m->slot[n_dst + e];
                }
            }
            *n_src = n_dst + n_new;
        }
    }
    if (!bad && st == GNN_OK)
        reset_touched(m, dst, n_dst, nbr, nnz, src_gid, *n_src);
    else
        reset_touched(m, dst, n_dst, nbr, nnz, NULL, 0);
    if (bad & 2)
        return GNN_ERR_INVAL;
    return st;
}

/* Arguments checked by gnn_idmap_build (core/minibatch.c): every id is in [0, n_vertices). */
gnn_status gnn_cpu_idmap_build(gnn_cpu_idmap *m, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                               int32_t *local, int64_t *src_gid, int64_t *n_src)
{
    if (m->kind == GNN_IDMAP_REF)
        return gnn_idmap_build_ref(dst, n_dst, nbr, nnz, local, src_gid, n_src);
    gnn_status st = gnn_cpu_idmap_begin(m, dst, n_dst, nnz, src_gid);
    if (st) /* out of memory, before the first insert */
        return st;
#pragma omp parallel for schedule(dynamic, 4096)
    for (int64_t e = 0; e < nnz; e++)
        gnn_cpu_idmap_insert(m, n_dst + e, nbr[e]);
    return gnn_cpu_idmap_finish(m, dst, n_dst, nbr, nnz, local, src_gid, n_src);
}

/* ---- the table (gnn_idmap_ops, idmap.h) -------------------------------------------------------- */

static gnn_status cpu_create(void **state, gnn_idmap_kind kind, int64_t n_vertices)
{
    gnn_cpu_idmap *m;
    gnn_status st = gnn_cpu_idmap_create(&m, kind, n_vertices);
    *state = m;
    return st;
}

static gnn_status cpu_build(void *state, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                            int32_t *local, int64_t *src_gid, int64_t *n_src)
{
    return gnn_cpu_idmap_build(state, dst, n_dst, nbr, nnz, local, src_gid, n_src);
}

static void cpu_destroy(void *state) { gnn_cpu_idmap_destroy(state); }

/* FUSED's ids are deterministic only up to canonical relabelling (gnn_idmap_kind_ordered) */
const gnn_idmap_ops gnn_idmap_cpu = {
    .name = "cpu",
    .caps = GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED,
    .create = cpu_create,
    .build = cpu_build,
    .destroy = cpu_destroy,
};
