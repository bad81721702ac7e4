/* opt/cpu/aep.c -- AEP push selection with OpenMP (include/gnnref/aep.h): the keys in
 * parallel (each a pure function of its candidate), then the nc-th largest by quickselect on
 * the strict total order (key descending, global id ascending) instead of a full sort, and
 * one parallel pass marking everything at or above it. Same set as ref/aep.c, bit for bit:
 * the keys are computed by the same function, and a strict total order has one nc-th element. */
#include <string.h>
#include "gnnref/aep.h"
#include "gnnref/tensor.h"

typedef struct keyed {
    double key;
    int64_t vid;
} keyed;

/* a before b in the selection order */
static int before(const keyed *a, const keyed *b)
{
    return a->key > b->key || (a->key == b->key && a->vid < b->vid);
}

/* Hoare-style quickselect: afterwards k[j] is the element of rank j (0 = first). */
static void select_rank(keyed *k, int64_t n, int64_t j)
{
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        const keyed pivot = k[lo + (hi - lo) / 2];
        int64_t i = lo, e = hi;
        while (i <= e) {
            while (before(&k[i], &pivot))
                i++;
            while (before(&pivot, &k[e]))
                e--;
            if (i <= e) {
                const keyed t = k[i];
                k[i] = k[e];
                k[e] = t;
                i++;
                e--;
            }
        }
        if (j <= e)
            hi = e;
        else if (j >= i)
            lo = i;
        else
            return;
    }
}

/* @alg{DistGNN-MB 2, lines 19-20}, as select_ref. Arguments checked by gnn_aep_select
 * (core/dist/aep.c). */
static gnn_status select_cpu(const gnn_aep_select_args *a, uint8_t *keep, int64_t *n_kept, gnn_err *err)
{
    const int64_t m = a->m, nc = a->nc;
    if (m <= nc) {
        memset(keep, 1, (size_t)m);
        *n_kept = m;
        return GNN_OK;
    }
    if (nc == 0) {
        memset(keep, 0, (size_t)m);
        *n_kept = 0;
        return GNN_OK;
    }
    keyed *k = gnn_malloc((size_t)m * sizeof *k), *work = gnn_malloc((size_t)m * sizeof *work);
    if (!k || !work) {
        gnn_free(k);
        gnn_free(work);
        return gnn_err_set(err, GNN_ERR_NOMEM, "aep select: out of memory");
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < m; i++) {
        k[i].key = gnn_aep_key(a, i);
        k[i].vid = a->vid_o[i];
    }
    memcpy(work, k, (size_t)m * sizeof *k);
    select_rank(work, m, nc - 1);
    const keyed last = work[nc - 1]; /* the nc-th in the order: keep everything not after it */
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < m; i++)
        keep[i] = !before(&last, &k[i]);
    *n_kept = nc;
    gnn_free(k);
    gnn_free(work);
    return GNN_OK;
}

const gnn_aep_ops gnn_aep_cpu = { "cpu", select_cpu };
