/* opt/cpu/partition.c -- the partition structure in parallel with OpenMP, bit for bit equal to
 * ref/partition.c (include/gnnref/partition.h) at any thread count.
 *
 * The reference scans all n vertices once per rank to find its solid vertices; here one
 * parallel counting sort groups every vertex by owner:
 *   1. each thread counts the parts of a contiguous chunk of ids; an exclusive prefix over
 *      (thread, part) gives every thread its write position in every part, so the grouped
 *      list keeps increasing ids inside each part (the reference's solid order) and each
 *      vertex learns its rank among its owner's vertices (its owner-local id) on the way.
 * Then, rank by rank, every step parallel over vertices or rows:
 *   2. vid_p = -1; solid vertices get local ids 0..n_solid-1; every cut in-neighbor of a
 *      solid vertex is marked -2 (racing writers store the same value: atomic writes);
 *   3. the marks are compacted in increasing id by chunked count / prefix / write (so the
 *      halo order is the reference's, increasing global id) and given ids n_solid + i;
 *   4. halo owners and owner-local ids by lookup;
 *   5. local CSR: row lengths, a chunked parallel prefix sum, then every solid row mapped
 *      through vid_p in its original order (rows are independent: dynamic schedule);
 *   6. train/val/test compacted by chunked count / prefix / write.
 * Nothing depends on how many threads run or how chunks are scheduled: each output element
 * is a function of its position alone. The counting sorts of steps 1, 3, 5 (its prefix sum)
 * and 6 have stress points before counting and before summing (opt/cpu/omp_stress.h), so a
 * missing barrier between them fails `gnnref oracle --stress` (oracle-stress: partition.build). */
#include <stdint.h>
#include <string.h>
#include "gnnref/dataset.h"
#include "gnnref/partition.h"
#include "gnnref/tensor.h"
#include "opt/cpu/omp_stress.h"
#include "opt/cpu/omp_compat.h"
#include "ref/partition_ldg_impl.h" /* the table's ldg body */

#define MARK_HALO (-2)

static void *alloc_n(int64_t count, size_t elem) { return gnn_malloc((size_t)(count > 0 ? count : 1) * elem); }

/* In place: a[0] = 0 and a[i] = a[1] + ... + a[i] for i in [1, m] (chunked parallel scan). */
static gnn_status prefix_sum(int64_t *a, int64_t m)
{
    a[0] = 0;
    const int T = gnn_omp_max_threads();
    int64_t *sums = gnn_calloc((size_t)T + 1, sizeof(int64_t));
    if (!sums)
        return GNN_ERR_NOMEM;
#pragma omp parallel
    {
        const int t = gnn_omp_thread_num(), nt = gnn_omp_num_threads();
        const int64_t lo = 1 + (int64_t)((__int128)m * t / nt), hi = 1 + (int64_t)((__int128)m * (t + 1) / nt);
        int64_t run = 0;
        GNN_OMP_STRESS_POINT();
        for (int64_t i = lo; i < hi; i++) {
            run += a[i];
            a[i] = run;
        }
        sums[t + 1] = run;
#pragma omp barrier
#pragma omp single
        {
            GNN_OMP_STRESS_POINT();
            for (int i = 1; i <= nt; i++)
                sums[i] += sums[i - 1];
        }
        const int64_t add = sums[t];
        for (int64_t i = lo; i < hi; i++)
            a[i] += add;
    }
    gnn_free(sums);
    return GNN_OK;
}

/* Step 1: group vertices by owner. by_part[base[p] + r] = the r-th vertex (increasing id) of
 * part p; owner_rank[v] = r for that vertex; base (k + 1) = exclusive prefix of part sizes. */
static gnn_status group_by_part(const int32_t *part, int64_t n, int64_t k, int64_t *by_part, int64_t *owner_rank,
                                int64_t *base)
{
    const int T = gnn_omp_max_threads();
    int64_t *cnt = gnn_calloc((size_t)T * (size_t)k, sizeof(int64_t)); /* cnt[t * k + p] */
    if (!cnt)
        return GNN_ERR_NOMEM;
#pragma omp parallel
    {
        const int t = gnn_omp_thread_num(), nt = gnn_omp_num_threads();
        const int64_t lo = (int64_t)((__int128)n * t / nt), hi = (int64_t)((__int128)n * (t + 1) / nt);
        int64_t *c = cnt + (size_t)t * (size_t)k;
        GNN_OMP_STRESS_POINT();
        for (int64_t v = lo; v < hi; v++)
            c[part[v]]++;
#pragma omp barrier
#pragma omp single
        {
            /* cnt[t][p] <- sum over t' < t of cnt[t'][p]; base[p] <- sizes of parts < p */
            GNN_OMP_STRESS_POINT();
            base[0] = 0;
            for (int64_t p = 0; p < k; p++) {
                int64_t run = 0;
                for (int i = 0; i < nt; i++) {
                    const int64_t x = cnt[(size_t)i * (size_t)k + (size_t)p];
                    cnt[(size_t)i * (size_t)k + (size_t)p] = run;
                    run += x;
                }
                base[p + 1] = base[p] + run;
            }
        }
        for (int64_t v = lo; v < hi; v++) {
            const int64_t r = c[part[v]]++;
            owner_rank[v] = r;
            by_part[base[part[v]] + r] = v;
        }
    }
    gnn_free(cnt);
    return GNN_OK;
}

/* Step 2: vid_p (n) = -1; solid vertices get local ids 0..n_solid-1; every cut in-neighbor of
 * a solid vertex is marked MARK_HALO */
static void mark_solid_and_halo(int64_t *vid_p, int64_t p, const gnn_csr *g, const int32_t *part, const int64_t *solid,
                                int64_t n_solid)
{
    const int64_t n = g->n;
    const int32_t p32 = (int32_t)p;
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < n; v++)
        vid_p[v] = -1;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n_solid; i++)
        vid_p[solid[i]] = i;
#pragma omp parallel for schedule(dynamic, gnn_omp_chunk(256))
    for (int64_t i = 0; i < n_solid; i++) {
        const int64_t v = solid[i];
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
            const int64_t u = g->indices[e];
            if (part[u] != p32) {
#pragma omp atomic write
                vid_p[u] = MARK_HALO;
            }
        }
    }
}

/* Step 3: compact the marks in increasing id into L->vid_o[n_solid ..] and give them ids
 * n_solid + i; vid_o is allocated once the count is known. tcount: (threads + 1) scratch */
static gnn_status compact_halo(gnn_part_local *L, int64_t *vid_p, int64_t n, int64_t n_solid, int64_t *tcount)
{
    int nomem = 0;
    int64_t n_halo = 0;
#pragma omp parallel
    {
        const int t = gnn_omp_thread_num(), nt = gnn_omp_num_threads();
        const int64_t lo = (int64_t)((__int128)n * t / nt), hi = (int64_t)((__int128)n * (t + 1) / nt);
        int64_t c = 0;
        GNN_OMP_STRESS_POINT();
        for (int64_t u = lo; u < hi; u++)
            c += vid_p[u] == MARK_HALO;
        tcount[t + 1] = c;
#pragma omp barrier
#pragma omp single
        {
            GNN_OMP_STRESS_POINT();
            tcount[0] = 0;
            for (int i = 1; i <= nt; i++)
                tcount[i] += tcount[i - 1];
            n_halo = tcount[nt];
            L->vid_o = alloc_n(n_solid + n_halo, sizeof(int64_t));
            nomem = L->vid_o == NULL;
        }
        if (!nomem) {
            int64_t at = tcount[t];
            for (int64_t u = lo; u < hi; u++)
                if (vid_p[u] == MARK_HALO) {
                    L->vid_o[n_solid + at] = u;
                    vid_p[u] = n_solid + at;
                    at++;
                }
        }
    }
    if (nomem)
        return GNN_ERR_NOMEM;
    L->n_halo = n_halo;
    return GNN_OK;
}

/* Steps 4 and 5: the solid part of vid_o, halo owners, then the local CSR: row lengths, a
 * chunked parallel prefix sum, every solid row mapped through vid_p in its original order */
static gnn_status owners_and_local_csr(gnn_part_local *L, const gnn_csr *g, const int32_t *part, const int64_t *solid,
                                       const int64_t *owner_rank)
{
    const int64_t n_solid = L->n_solid, n_halo = L->n_halo, n_local = n_solid + n_halo;
    int64_t *vid_o = L->vid_o;
    const int64_t *vid_p = L->vid_p;
    /* 4: solid part of vid_o, halo owners */
    L->halo_owner = alloc_n(n_halo, sizeof(int32_t));
    L->halo_owner_local = alloc_n(n_halo, sizeof(int64_t));
    L->graph.indptr = alloc_n(n_local + 1, sizeof(int64_t));
    L->graph.owns = 1;
    L->graph.n = n_local;
    if (!L->halo_owner || !L->halo_owner_local || !L->graph.indptr)
        return GNN_ERR_NOMEM;
    int64_t *indptr = L->graph.indptr;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n_solid; i++) {
        vid_o[i] = solid[i];
        indptr[i + 1] = g->indptr[solid[i] + 1] - g->indptr[solid[i]];
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n_halo; i++) {
        const int64_t u = vid_o[n_solid + i];
        L->halo_owner[i] = part[u];
        L->halo_owner_local[i] = owner_rank[u];
        indptr[n_solid + i + 1] = 0;
    }
    /* 5: the local CSR */
    if (prefix_sum(indptr, n_local))
        return GNN_ERR_NOMEM;
    const int64_t nnz = indptr[n_local];
    L->graph.nnz = nnz;
    int64_t *indices = L->graph.indices = alloc_n(nnz, sizeof(int64_t));
    if (!indices)
        return GNN_ERR_NOMEM;
#pragma omp parallel for schedule(dynamic, gnn_omp_chunk(256))
    for (int64_t i = 0; i < n_solid; i++) {
        const int64_t v = solid[i];
        int64_t at = indptr[i];
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++)
            indices[at++] = vid_p[g->indices[e]];
    }
    return GNN_OK;
}

/* Step 6: the split by owner, compacted by chunked count / prefix / write into L->train, val,
 * test (empty lists without a split). tcount: (3 threads + 3) scratch, 3 counters per thread */
static gnn_status split_lists(gnn_part_local *L, const uint8_t *split, const int64_t *solid, int64_t *tcount)
{
    const int64_t n_solid = L->n_solid;
    int nomem = 0;
    int64_t nsplit[3] = { 0, 0, 0 };
    int64_t *lists[3] = { NULL, NULL, NULL };
    if (split) {
#pragma omp parallel
        {
            const int t = gnn_omp_thread_num(), nt = gnn_omp_num_threads();
            const int64_t lo = (int64_t)((__int128)n_solid * t / nt), hi = (int64_t)((__int128)n_solid * (t + 1) / nt);
            int64_t c[3] = { 0, 0, 0 };
            GNN_OMP_STRESS_POINT();
            for (int64_t i = lo; i < hi; i++) {
                const uint8_t s = split[solid[i]];
                if (s >= GNN_SPLIT_TRAIN && s <= GNN_SPLIT_TEST)
                    c[s - 1]++;
            }
            for (int j = 0; j < 3; j++)
                tcount[3 * (t + 1) + j] = c[j];
#pragma omp barrier
#pragma omp single
            {
                GNN_OMP_STRESS_POINT();
                for (int j = 0; j < 3; j++) {
                    tcount[j] = 0;
                    for (int i = 1; i <= nt; i++)
                        tcount[3 * i + j] += tcount[3 * (i - 1) + j];
                    nsplit[j] = tcount[3 * nt + j];
                    lists[j] = alloc_n(nsplit[j], sizeof(int64_t));
                    nomem |= lists[j] == NULL;
                }
            }
            if (!nomem) {
                int64_t at[3] = { tcount[3 * t], tcount[3 * t + 1], tcount[3 * t + 2] };
                for (int64_t i = lo; i < hi; i++) {
                    const uint8_t s = split[solid[i]];
                    if (s >= GNN_SPLIT_TRAIN && s <= GNN_SPLIT_TEST)
                        lists[s - 1][at[s - 1]++] = i;
                }
            }
        }
    } else {
        for (int j = 0; j < 3; j++) {
            lists[j] = alloc_n(0, sizeof(int64_t));
            nomem |= lists[j] == NULL;
        }
    }
    L->train = lists[0];
    L->val = lists[1];
    L->test = lists[2];
    L->n_train = nsplit[0];
    L->n_val = nsplit[1];
    L->n_test = nsplit[2];
    return nomem ? GNN_ERR_NOMEM : GNN_OK;
}

/* Part p's local structure (steps 2-6); solid (n_solid): its vertices in increasing id */
static gnn_status build_part(gnn_part_local *L, int64_t p, const gnn_csr *g, const uint8_t *split, const int32_t *part,
                             const int64_t *solid, int64_t n_solid, const int64_t *owner_rank, int64_t *tcount)
{
    gnn_status s;
    L->rank = p;
    L->trainers = 1;
    L->n_solid = n_solid;
    L->vid_p = alloc_n(g->n, sizeof(int64_t));
    if (!L->vid_p)
        return GNN_ERR_NOMEM;
    mark_solid_and_halo(L->vid_p, p, g, part, solid, n_solid);
    if ((s = compact_halo(L, L->vid_p, g->n, n_solid, tcount)) ||
        (s = owners_and_local_csr(L, g, part, solid, owner_rank)))
        return s;
    return split_lists(L, split, solid, tcount);
}

/* Arguments checked by gnn_partition_build (core/dist/partition.c). */
static gnn_status build_cpu(gnn_partition *out, const gnn_csr *g, const uint8_t *split, const int32_t *part, int64_t k,
                            gnn_err *err)
{
    const int64_t n = g->n;
    gnn_status s = GNN_OK;
    int64_t *by_part = alloc_n(n, sizeof(int64_t)), *owner_rank = alloc_n(n, sizeof(int64_t));
    int64_t *base = gnn_malloc(((size_t)k + 1) * sizeof(int64_t));
    int64_t *tcount = gnn_malloc((3 * (size_t)gnn_omp_max_threads() + 3) * sizeof(int64_t));
    out->n = n;
    out->k = k;
    out->trainers = 1;
    out->part = alloc_n(n, sizeof(int32_t));
    out->parts = gnn_calloc((size_t)k, sizeof(gnn_part_local));
    if (!by_part || !owner_rank || !base || !tcount || !out->part || !out->parts) {
        s = GNN_ERR_NOMEM;
        goto done;
    }
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < n; v++)
        out->part[v] = part[v];
    if ((s = group_by_part(part, n, k, by_part, owner_rank, base)))
        goto done;
    for (int64_t p = 0; p < k && !s; p++)
        s = build_part(&out->parts[p], p, g, split, part, by_part + base[p], base[p + 1] - base[p], owner_rank, tcount);
done:
    gnn_free(by_part);
    gnn_free(owner_rank);
    gnn_free(base);
    gnn_free(tcount);
    if (s) {
        gnn_partition_free(out);
        gnn_err_set(err, s, "partition (cpu): out of memory");
    }
    return s;
}

const gnn_partition_ops gnn_partition_cpu = { "cpu", build_cpu, gnn_partition_ldg_cpu };
