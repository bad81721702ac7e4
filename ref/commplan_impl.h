/* ref/commplan_impl.h -- what ref/commplan.c (the specification) and opt/cpu/commplan.c share:
 * a cut edge and its (pair, u, v) order (step 1), and the rows of one slot from its sides
 * (step 3). How the edges are grouped and the slots spread over threads stays in each file.
 * Plain C11, no threads. Internal: not installed. */
#ifndef GNN_REF_COMMPLAN_IMPL_H
#define GNN_REF_COMMPLAN_IMPL_H
#include <stdint.h>
#include <stdlib.h>
#include "core/base/cmp.h"

/* a cut edge u -> v of partition pair part[u] * k + part[v] */
typedef struct gnn_cut_edge {
    int64_t pair, u, v;
} gnn_cut_edge;

/* the plan's order of cut edges: by pair, then u, then v */
static inline int gnn_cut_edge_cmp(const void *a, const void *b)
{
    const gnn_cut_edge *x = a, *y = b;
    if (x->pair != y->pair)
        return x->pair < y->pair ? -1 : 1;
    if (x->u != y->u)
        return x->u < y->u ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}


/* Step 3, the rows of one slot from its m edges (src, dst sorted by (u, v)) and their sides
 * post: post_rows[0..*n_post) the sources of its post edges, each once (the edges are sorted by
 * u, so a source's post edges are adjacent); pre_rows[0..*n_pre) the destinations of its pre
 * edges: collected, sorted, each once. Each array has room for m. */
static inline void gnn_commplan_collect_rows(const int64_t *src, const int64_t *dst, const uint8_t *post, int64_t m,
                                          int64_t *post_rows, int64_t *n_post, int64_t *pre_rows, int64_t *n_pre)
{
    int64_t np = 0, q = 0;
    for (int64_t e = 0; e < m; e++)
        if (post[e] && (np == 0 || post_rows[np - 1] != src[e]))
            post_rows[np++] = src[e];
    for (int64_t e = 0; e < m; e++)
        if (!post[e])
            pre_rows[q++] = dst[e];
    qsort(pre_rows, (size_t)q, sizeof(int64_t), gnn_cmp_i64);
    int64_t nq = 0;
    for (int64_t i = 0; i < q; i++)
        if (nq == 0 || pre_rows[nq - 1] != pre_rows[i])
            pre_rows[nq++] = pre_rows[i];
    *n_post = np;
    *n_pre = nq;
}

#endif
