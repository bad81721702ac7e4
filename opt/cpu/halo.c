/* opt/cpu/halo.c -- db_halo with one alltoallv instead of Algorithm 1's broadcast
 * (include/gnnref/halo.h; ref/halo.c is the specification, matched bit for bit).
 *
 * What changed: ref sends every halo id to all P - 1 other ranks, and each rank scans all of
 * them to find the few it owns. But a rank knows the owner of each of its halos
 * (halo_owner), so here each halo id goes only to its owner:
 *   1. the agreement step (gnn_db_halo_build, core/dist/halo.c, before this builder runs), as for ref;
 *   2. group my halos by owner: a stable counting sort in parallel (each thread counts its
 *      contiguous slice, the offsets are laid out owner-major, thread-minor, then each thread
 *      scatters its slice), so every group keeps the halo order = increasing global id
 *      (stress points before counting and summing: oracle-stress: partition.db_halo);
 *   3. alltoallv of the P group sizes (one int64 per pair), so every owner knows how many ids
 *      each rank sends it;
 *   4. alltoallv of the ids: the owner receives from rank r exactly r's halos it owns, in
 *      increasing global id: the row of r in ref's table, still as global ids;
 *   5. map them to local ids through vid_p, in parallel. Solid local ids are numbered in
 *      increasing global id, so the rows stay increasing: the same table as ref.
 * Volume: 8 bytes per halo plus 8 (P - 1) per rank for the counts, against ref's
 * 8 (P - 1) per halo. */
#include <string.h>
#include "gnnref/halo.h"
#include "gnnref/tensor.h"
#include "opt/cpu/omp_compat.h"
#include "opt/cpu/omp_stress.h"

/* Stable grouping of the halos by owner: ids[pos] = global ids grouped, scount[o] per owner. */
static gnn_status group_by_owner(const gnn_part_local *me, int P, int64_t *ids, int64_t *scount, gnn_err *err)
{
    const int64_t nh = me->n_halo;
    const int32_t *owner = me->halo_owner;
    const int64_t *hv = me->vid_o + me->n_solid;
    const int T = gnn_omp_max_threads();
    int64_t *cnt = gnn_calloc((size_t)T * (size_t)P, sizeof(int64_t)); /* (T, P): thread t's count of owner o */
    if (!cnt)
        return gnn_err_set(err, GNN_ERR_NOMEM, "db_halo: out of memory");
    memset(scount, 0, sizeof(int64_t) * (size_t)P);
#pragma omp parallel num_threads(T)
    {
        const int t = gnn_omp_thread_num(), nt = gnn_omp_num_threads();
        const int64_t lo = nh * t / nt, hi = nh * (t + 1) / nt;
        int64_t *mine = cnt + (size_t)t * P;
        GNN_OMP_STRESS_POINT(); /* opt/cpu/omp_stress.h: a late count, a late sum under stress */
        for (int64_t i = lo; i < hi; i++)
            mine[owner[i]]++;
#pragma omp barrier
#pragma omp single
        {
            GNN_OMP_STRESS_POINT();
            /* positions: owner-major, thread-minor: thread t's halos of owner o follow those of
             * threads < t, so the grouping is stable whatever the thread count */
            int64_t pos = 0;
            for (int o = 0; o < P; o++)
                for (int u = 0; u < nt; u++) {
                    const int64_t k = cnt[(size_t)u * P + o];
                    cnt[(size_t)u * P + o] = pos;
                    pos += k;
                    scount[o] += k;
                }
        }
        for (int64_t i = lo; i < hi; i++)
            ids[mine[owner[i]]++] = hv[i];
    }
    gnn_free(cnt);
    return GNN_OK;
}

/* @alg{DistGNN-MB 1, lines 2-3}, by alltoallv to the owners instead of a broadcast.
 * Arguments agreed by gnn_db_halo_build; every rank's n_halo is not needed: the counts that
 * matter here are per owner, exchanged in step 3. */
static gnn_status build_agreed(gnn_comm *c, const gnn_part_local *me, int64_t n_global, const int64_t *n_halo_all,
                               gnn_db_halo *out, gnn_err *err)
{
    const int P = gnn_comm_size(c);
    gnn_status st;
    /* scount, sdispls, rcount, rdispls, ones, idx: P each */
    int64_t *a = gnn_malloc(sizeof(int64_t) * 6 * (size_t)P);
    int64_t *send = gnn_malloc(sizeof(int64_t) * (size_t)(me->n_halo > 0 ? me->n_halo : 1));
    int64_t *recv = NULL;
    if (!a || !send) {
        st = gnn_err_set(err, GNN_ERR_NOMEM, "db_halo: out of memory");
        goto fail;
    }
    int64_t *scount = a, *sdispls = a + P, *rcount = a + 2 * P, *rdispls = a + 3 * P, *ones = a + 4 * P,
            *idx = a + 5 * P;
    if ((st = group_by_owner(me, P, send, scount, err)))
        goto fail;
    for (int q = 0; q < P; q++) {
        ones[q] = 1;
        idx[q] = q;
    }
    /* 3. the group sizes */
    if ((st = gnn_comm_alltoallv(c, scount, ones, idx, rcount, ones, idx, GNN_DT_I64))) {
        gnn_err_set(err, st, "db_halo: alltoallv of the counts: %s", gnn_comm_errmsg(c));
        goto fail;
    }
    int64_t stot = 0, rtot = 0;
    for (int q = 0; q < P; q++) {
        sdispls[q] = stot;
        stot += scount[q];
        rdispls[q] = rtot;
        rtot += rcount[q];
    }
    recv = gnn_malloc(sizeof(int64_t) * (size_t)(rtot > 0 ? rtot : 1));
    out->off = gnn_malloc(sizeof(int64_t) * ((size_t)P + 1));
    if (!recv || !out->off) {
        st = gnn_err_set(err, GNN_ERR_NOMEM, "db_halo: out of memory (%lld ids)", (long long)rtot);
        goto fail;
    }
    /* 4. the ids, each to its owner only */
    if ((st = gnn_comm_alltoallv(c, send, scount, sdispls, recv, rcount, rdispls, GNN_DT_I64))) {
        gnn_err_set(err, st, "db_halo: alltoallv of the halo ids: %s", gnn_comm_errmsg(c));
        goto fail;
    }
    out->ranks = P;
    for (int q = 0; q <= P; q++)
        out->off[q] = q < P ? rdispls[q] : rtot;
    /* 5. global -> local; every id received must be one of my solid vertices */
    int64_t bad = -1;
    const int64_t *vid_p = me->vid_p, n_solid = me->n_solid;
#pragma omp parallel for schedule(static) reduction(max : bad)
    for (int64_t i = 0; i < rtot; i++) {
        const int64_t v = recv[i];
        const int64_t l = v >= 0 && v < n_global ? vid_p[v] : -1;
        if (l < 0 || l >= n_solid) {
            if (i > bad)
                bad = i;
        } else {
            recv[i] = l;
        }
    }
    if (bad >= 0) {
        int src = 0;
        while (src + 1 < P && rdispls[src + 1] <= bad)
            src++;
        st = gnn_err_set(err, GNN_ERR_INVAL,
                         "db_halo: rank %d says vertex %lld is owned by rank %d, which does not hold it as a solid "
                         "vertex (inconsistent partition)",
                         src, (long long)recv[bad], gnn_comm_rank(c));
        goto fail;
    }
    out->solid = recv;
    gnn_free(a);
    gnn_free(send);
    return GNN_OK;
fail:
    gnn_free(a);
    gnn_free(send);
    gnn_free(recv);
    gnn_db_halo_free(out);
    return st;
}

const gnn_db_halo_ops gnn_db_halo_cpu = { "cpu", build_agreed };
