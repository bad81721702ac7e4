/* include/gnnref/aep.h -- Asynchronous Embedding Push: which solid vertices a rank pushes
 * (DistGNN-MB section 3.2.1, Algorithm 2 lines 15-24; docs/hec.md).
 *
 * At step k and layer l, rank p takes its mini-batch's solid vertices that are halos on
 * remote rank r (the Map of db_halo: the candidates), and when there are more than nc of them
 * it keeps nc, "randomly sampling a subset based on their degree" (Algorithm 2, line 20):
 * without replacement, with probability proportional to the weight
 *     w = max(deg, 1)    (deg: the vertex's in-degree, which is the same on every rank and
 *                         in every id space; 0 counts as 1 so that a vertex without in-edges
 *                         can still be pushed)
 * by Efraimidis-Spirakis keys, like the weighted sampler (docs/sampling.md), from the keyed
 * generator so that the choice is a pure function of (seed, step, layer, vertex, r):
 *     stream (seed, GNN_TAG_HEC_PUSH, step k, layer l, id = the candidate's global id VID_o);
 *     r64 = the 64-bit word of integer draw r (the destination rank), u = ((r64 >> 12) + 0.5) 2^-52,
 *     key = log(u) / w  (double, libm log);
 *     keep the nc largest keys, ties to the smaller global id; output them in candidate order.
 * With m <= nc every candidate is kept and no draw is made. Candidates must be distinct.
 *
 * ref (ref/aep.c) sorts all keys; cpu (opt/cpu/aep.c) computes the keys in parallel and
 * selects with a partial quickselect: the same set, the same order, bit for bit. Both are
 * called through gnn_aep_select, which checks the arguments once. */
#ifndef GNNREF_AEP_H
#define GNNREF_AEP_H

#include <stdint.h>
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gnn_aep_select_args {
    const int64_t *vid_o; /* (m) candidates' global ids, distinct */
    const int64_t *deg;   /* (m) their in-degrees (>= 0) */
    int64_t m;
    int64_t nc;           /* at most this many are kept (>= 0) */
    uint64_t seed;
    uint32_t step;        /* global mini-batch step k */
    int layer;            /* 0..255 */
    int dst_rank;         /* r, the rank the push goes to (>= 0) */
} gnn_aep_select_args;

/* An implementation: select with arguments gnn_aep_select has checked. Which table a program
 * uses is chosen by the implementation context (impl.h: its `aep` field). */
typedef struct gnn_aep_ops {
    const char *name; /* "ref", "cpu" */
    gnn_status (*select)(const gnn_aep_select_args *a, uint8_t *keep, int64_t *n_kept, gnn_err *err);
} gnn_aep_ops;

extern const gnn_aep_ops gnn_aep_ref, gnn_aep_cpu;

/* The checked entry point (core/dist/aep.c): keep (m entries, written) gets 1 for the kept
 * candidates, *n_kept their count = min(m, nc). GNN_ERR_INVAL, with a message, for a NULL ops,
 * a NULL argument or negative m, nc < 0, layer outside 0..255, a negative destination rank, a
 * negative degree or global id; checked before anything is written. */
gnn_status gnn_aep_select(const gnn_aep_ops *ops, const gnn_aep_select_args *a, uint8_t *keep, int64_t *n_kept,
                          gnn_err *err);

/* The key of candidate i (a pure function of the arguments), shared by both implementations. */
double gnn_aep_key(const gnn_aep_select_args *a, int64_t i);

#ifdef __cplusplus
}
#endif
#endif
