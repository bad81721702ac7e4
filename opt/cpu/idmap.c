/* opt/cpu/idmap.c -- parallel ID maps: ORDERED and DENSE reproduce ref/idmap.c bit for bit;
 * FUSED is FastGL's Fused-Map (Sec. 4.3, @alg{FastGL 2}), unordered.
 *
 * Why ORDERED/DENSE match the reference: the reference gives local ids in order of first
 * appearance. Here every item (dst i = item i, neighbor e = item n_dst + e) records itself
 * into its vertex's cell by atomic min, so after one parallel pass each cell holds the
 * vertex's FIRST item number, whatever the thread interleaving. A neighbor item is "new"
 * exactly when it is its vertex's first item and that item is not a dst; an exclusive prefix
 * sum over these flags numbers the new vertices in item order: the reference's ids.
 * The passes: insert (atomic min) -> flag and count per chunk -> number the new vertices
 * (each chunk from the sum of the counts before it) -> relabel and reset the touched cells;
 * the last three run in one OpenMP team with two barriers, the loops over chunks handed out
 * dynamically: a thread that loses its core on a busy machine delays its chunk, not
 * a fixed half of the work (docs/openmp.md). Which thread handles which chunk never changes
 * a value: every item's result depends on the items before it only through the scan. The
 * count per chunk has a stress point (opt/cpu/omp_stress.h): under `gnnref oracle --stress` a
 * chunk is counted late, so a numbering that did not wait for every count fails there
 * (oracle-stress: idmap.build, idmap.fused). */
#include <stdlib.h>
#include <string.h>
#include "gnnref/aggregate.h" /* GNN_CAP_* */
#include "gnnref/tensor.h"
#include "opt/cpu/idmap_impl.h"
#include "opt/cpu/omp_stress.h"
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
    gnn_free(m->ccnt);
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
    const int64_t chunks = items / GNN_CPU_CHUNK + 1;
    if (m->kind != GNN_IDMAP_FUSED && chunks > m->ccnt_cap) {
        gnn_free(m->ccnt);
        m->ccnt = gnn_malloc((size_t)chunks * sizeof(int64_t));
        m->ccnt_cap = m->ccnt ? chunks : 0;
        if (!m->ccnt)
            return GNN_ERR_NOMEM;
    }
    return GNN_OK;
}

gnn_status gnn_cpu_idmap_prepare(gnn_cpu_idmap *m, int64_t n_dst, int64_t nnz, int64_t *src_gid)
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
    return GNN_OK;
}

static void reset_touched(gnn_cpu_idmap *m, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz);

gnn_status gnn_cpu_idmap_dst_status(gnn_cpu_idmap *m, const int64_t *dst, int64_t n_dst, const int64_t *nbr,
                                    int64_t nnz, int bad)
{
    if (bad & 1) {
        reset_touched(m, dst, n_dst, nbr, nnz);
        return GNN_ERR_RANGE;
    }
    if (bad & 2)
        m->dup = 1;
    return GNN_OK;
}

gnn_status gnn_cpu_idmap_begin(gnn_cpu_idmap *m, const int64_t *dst, int64_t n_dst, int64_t nnz, int64_t *src_gid)
{
    gnn_status st = gnn_cpu_idmap_prepare(m, n_dst, nnz, src_gid);
    if (st)
        return st;
    int bad = 0;
#pragma omp parallel for schedule(dynamic, gnn_omp_chunk(GNN_CPU_CHUNK)) reduction(| : bad) if (n_dst >= GNN_CPU_PAR_MIN)
    for (int64_t i = 0; i < n_dst; i++)
        bad |= gnn_cpu_idmap_insert_dst(m, dst, i);
    return gnn_cpu_idmap_dst_status(m, dst, n_dst, NULL, 0, bad);
}

/* The smallest item number of the vertex of item `item` (ORDERED, DENSE). */
static inline int64_t first_item(const gnn_cpu_idmap *m, int64_t item, int64_t gid)
{
    return m->kind == GNN_IDMAP_DENSE ? m->first[gid] : gnn_cpu_idmap_val(m->tab[m->slot[item]]);
}

/* Reset the cells a failed build touched: walk the items (the writes are idempotent). A
 * successful build resets in finish, once per vertex. */
static void reset_touched(gnn_cpu_idmap *m, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz)
{
    const int64_t items = n_dst + nnz;
#pragma omp parallel for schedule(dynamic, gnn_omp_chunk(GNN_CPU_CHUNK)) if (items >= GNN_CPU_PAR_MIN)
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
    int bad = m->dup ? 2 : 0;
    if (m->kind == GNN_IDMAP_FUSED) {
        if (bad) {
            reset_touched(m, dst, n_dst, nbr, nnz);
            return GNN_ERR_INVAL;
        }
        const int64_t ns = m->counter;
#pragma omp parallel if (nnz + ns >= GNN_CPU_PAR_MIN)
        {
#pragma omp for schedule(dynamic, gnn_omp_chunk(GNN_CPU_CHUNK))
            for (int64_t e = 0; e < nnz; e++)
                local[e] = gnn_cpu_idmap_val(m->tab[m->slot[n_dst + e]]);
            /* the reset clears the cells the loop above reads: after its barrier */
#pragma omp for schedule(dynamic, gnn_omp_chunk(GNN_CPU_CHUNK)) nowait
            for (int64_t i = 0; i < ns; i++)
                m->tab[m->uslot[i]] = 0;
        }
        *n_src = ns;
        return GNN_OK;
    }
    int64_t *flag = m->flag, *cnt = m->ccnt;
    int32_t *fi = m->fi;
    const int64_t chunks = (nnz + GNN_CPU_CHUNK - 1) / GNN_CPU_CHUNK;
#pragma omp parallel if (n_dst + nnz >= GNN_CPU_PAR_MIN)
    {
        /* a dst whose vertex's first item is not itself repeats an earlier dst */
#pragma omp for schedule(dynamic, gnn_omp_chunk(GNN_CPU_CHUNK)) reduction(| : bad) nowait
        for (int64_t i = 0; i < n_dst; i++)
            if (first_item(m, i, dst[i]) != i)
                bad |= 2;
        /* new vertex at e: its first item is this neighbor item; keep each edge's first item
         * so the relabel reads it sequentially instead of probing again; count per chunk */
#pragma omp for schedule(dynamic, gnn_omp_chunk(1))
        for (int64_t c = 0; c < chunks; c++) {
            const int64_t e0 = c * GNN_CPU_CHUNK, e1 = e0 + GNN_CPU_CHUNK < nnz ? e0 + GNN_CPU_CHUNK : nnz;
            int64_t count = 0;
            GNN_OMP_STRESS_POINT();
            for (int64_t e = e0; e < e1; e++) {
                if (e + 32 < e1) /* the cell reads are random: start them early */
                    __builtin_prefetch(m->kind == GNN_IDMAP_DENSE ? (const void *)&m->first[nbr[e + 32]]
                                                                  : (const void *)&m->tab[m->slot[n_dst + e + 32]]);
                const int64_t f = first_item(m, n_dst + e, nbr[e]);
                fi[e] = (int32_t)f;
                flag[e] = f == n_dst + e;
                count += flag[e];
            }
            cnt[c] = count;
        }
        /* after that barrier every thread sees the same `bad` (the reduction is complete) */
        if (!bad) {
            /* number the new vertices in item order: chunk c's first is n_dst + the new
             * vertices of chunks 0..c-1; flag[e] becomes the local id of the new vertex at e */
            gnn_run_prefix r = { 0, 0 };
#pragma omp for schedule(dynamic, gnn_omp_chunk(1))
            for (int64_t c = 0; c < chunks; c++) {
                const int64_t e0 = c * GNN_CPU_CHUNK, e1 = e0 + GNN_CPU_CHUNK < nnz ? e0 + GNN_CPU_CHUNK : nnz;
                int64_t id = n_dst + gnn_run_prefix_to(&r, cnt, c);
                for (int64_t e = e0; e < e1; e++)
                    if (flag[e]) {
                        flag[e] = id;
                        src_gid[id] = nbr[e];
                        if (m->kind == GNN_IDMAP_ORDERED)
                            m->uslot[id] = m->slot[n_dst + e];
                        id++;
                    }
            }
            /* dst: local id = item number; new vertex: the id its first item got */
#pragma omp for schedule(dynamic, gnn_omp_chunk(GNN_CPU_CHUNK)) nowait
            for (int64_t e = 0; e < nnz; e++) {
                const int64_t f = fi[e];
                local[e] = (int32_t)(f < n_dst ? f : flag[f - n_dst]);
            }
            /* the map's cells are read by no loop after the barrier above: clear them now.
             * Every touched vertex is in src_gid[0..n_src) exactly once, so each cell is
             * cleared once (fewer writes than one per item) */
            const int64_t ns = n_dst + gnn_run_prefix_to(&r, cnt, chunks);
            if (m->kind == GNN_IDMAP_DENSE) {
#pragma omp for schedule(dynamic, gnn_omp_chunk(GNN_CPU_CHUNK)) nowait
                for (int64_t i = 0; i < ns; i++)
                    m->first[src_gid[i]] = GNN_IDMAP_NONE;
            } else {
#pragma omp for schedule(dynamic, gnn_omp_chunk(GNN_CPU_CHUNK)) nowait
                for (int64_t i = 0; i < ns; i++)
                    m->tab[m->uslot[i]] = 0;
            }
        }
    }
    if (bad) {
        reset_touched(m, dst, n_dst, nbr, nnz);
        return GNN_ERR_INVAL;
    }
    int64_t n_new = 0;
    for (int64_t c = 0; c < chunks; c++)
        n_new += cnt[c];
    *n_src = n_dst + n_new;
    return GNN_OK;
}

/* Arguments checked by gnn_idmap_build (core/ops/minibatch.c): every id is in [0, n_vertices). */
gnn_status gnn_cpu_idmap_build(gnn_cpu_idmap *m, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                               int32_t *local, int64_t *src_gid, int64_t *n_src)
{
    if (m->kind == GNN_IDMAP_REF)
        return gnn_idmap_build_ref(dst, n_dst, nbr, nnz, local, src_gid, n_src);
    gnn_status st = gnn_cpu_idmap_prepare(m, n_dst, nnz, src_gid);
    if (st) /* out of memory, before the first insert */
        return st;
    /* one team for the dst and the neighbor inserts: ORDERED and DENSE need no barrier between
     * them (atomic min), FUSED does (a neighbor must find its dst's claim) */
    int bad = 0;
    const int fused = m->kind == GNN_IDMAP_FUSED;
#pragma omp parallel if (n_dst + nnz >= GNN_CPU_PAR_MIN)
    {
        if (fused) {
#pragma omp for schedule(dynamic, gnn_omp_chunk(GNN_CPU_CHUNK)) reduction(| : bad)
            for (int64_t i = 0; i < n_dst; i++)
                bad |= gnn_cpu_idmap_insert_dst(m, dst, i);
        } else {
#pragma omp for schedule(dynamic, gnn_omp_chunk(GNN_CPU_CHUNK)) reduction(| : bad) nowait
            for (int64_t i = 0; i < n_dst; i++)
                bad |= gnn_cpu_idmap_insert_dst(m, dst, i);
        }
#pragma omp for schedule(dynamic, gnn_omp_chunk(GNN_CPU_CHUNK)) nowait
        for (int64_t e = 0; e < nnz; e++)
            gnn_cpu_idmap_insert(m, n_dst + e, nbr[e]);
    }
    if ((st = gnn_cpu_idmap_dst_status(m, dst, n_dst, nbr, nnz, bad)))
        return st;
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
