/* ref/aep.c -- AEP push selection, the specification (include/gnnref/aep.h):
 * @alg{DistGNN-MB 2} line 20, "randomly sampling a subset of sv' based on their degree".
 * Compute every candidate's Efraimidis-Spirakis key, sort (key descending, global id
 * ascending: a strict total order, so any correct sort gives the same result) and keep the
 * first nc. The arguments are checked by gnn_aep_select (core/dist/aep.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/aep.h"
#include "gnnref/rng.h"
#include "gnnref/tensor.h"

double gnn_aep_key(const gnn_aep_select_args *a, int64_t i)
{
    const gnn_rng_stream s =
        gnn_rng_stream_make(a->seed, GNN_TAG_HEC_PUSH, a->step, (unsigned)a->layer, (uint64_t)a->vid_o[i]);
    uint32_t w[4];
    const uint32_t d = (uint32_t)a->dst_rank; /* integer draw d: block d/2, words 2(d%2), 2(d%2)+1 */
    gnn_rng_block(&s, d / 2, w);
    const int h = (int)(d % 2) * 2;
    const uint64_t r = ((uint64_t)w[h + 1] << 32) | w[h];
    const double u = ((double)(r >> 12) + 0.5) * 0x1p-52; /* exact, in (0, 1) */
    const double weight = a->deg[i] > 0 ? (double)a->deg[i] : 1.0;
    return log(u) / weight;
}

typedef struct keyed {
    double key;
    int64_t vid;
    int64_t pos;
} keyed;

static int by_key(const void *pa, const void *pb)
{
    const keyed *x = pa, *y = pb;
    if (x->key != y->key)
        return x->key > y->key ? -1 : 1;
    return (x->vid > y->vid) - (x->vid < y->vid);
}

/* @alg{DistGNN-MB 2, lines 19-20}: when more than nc candidates map to a rank, Sample them by
 * degree. Arguments checked by gnn_aep_select (core/dist/aep.c). */
static gnn_status select_ref(const gnn_aep_select_args *a, uint8_t *keep, int64_t *n_kept, gnn_err *err)
{
    const int64_t m = a->m;
    if (m <= a->nc) { /* everything, no draws */
        memset(keep, 1, (size_t)m);
        *n_kept = m;
        return GNN_OK;
    }
    memset(keep, 0, (size_t)m);
    keyed *k = gnn_malloc((size_t)m * sizeof *k);
    if (!k)
        return gnn_err_set(err, GNN_ERR_NOMEM, "aep select: out of memory");
    for (int64_t i = 0; i < m; i++) {
        k[i].key = gnn_aep_key(a, i);
        k[i].vid = a->vid_o[i];
        k[i].pos = i;
    }
    qsort(k, (size_t)m, sizeof *k, by_key);
    for (int64_t j = 0; j < a->nc; j++)
        keep[k[j].pos] = 1;
    *n_kept = a->nc;
    gnn_free(k);
    return GNN_OK;
}

const gnn_aep_ops gnn_aep_ref = { "ref", select_ref };
