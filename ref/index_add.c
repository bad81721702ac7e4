/* ref/index_add.c -- reference index_add (scatter-add), SuperGCN section 2.
 *
 * Plain C11, serial: the specification. For i = 0, 1, ..., n-1 in this order,
 *     out[idx[i]][f] += src[i][f]   for f = 0 .. d-1,
 * which is PyTorch's out.index_add_(0, idx, src). Every out row therefore receives its
 * additions in ascending i, starting from its value on entry; opt/cpu/index_add.c keeps that
 * order per row (stable sort of idx) and is compared bitwise (oracle entry "index_add").
 *
 * SuperGCN uses index_add as the scatter half of aggregation on CPUs: a scatter over edges
 * written with atomics is order-dependent and slow; sorting the indices first turns it into
 * a conflict-free gather per output row.
 *
 * The public entry point gnn_index_add_run (core/ops/kernels.c) checks the sizes and every index
 * before this runs (a bad call leaves out unchanged): the body assumes valid input. */
#include "gnnref/index_add.h"
#include "gnnref/aggregate.h"

static gnn_status index_add_ref(float *out, int64_t n_out, int64_t d, const int64_t *idx, const float *src,
                                int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        float *o = out + idx[i] * d;
        const float *s = src + i * d;
        for (int64_t f = 0; f < d; f++)
            o[f] += s[f];
    }
    return GNN_OK;
}

const gnn_index_add_ops gnn_index_add_ref = {
    .name = "ref",
    .caps = GNN_CAP_DETERMINISTIC,
    .run = index_add_ref,
};
