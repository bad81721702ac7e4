/* ref/hetero.c -- the reference partition book of a typed graph and its id conversions
 * (include/gnnref/hetero.h, docs/hetero.md "Partition books and type-wise ids"; DGL guide 7.5,
 * "reshuffle", @sec{DistDGLv2 4.1.1}).
 *
 * Plain C11, serial, the header's definitions written out: count the (partition, type) cells,
 * prefix-sum them in (p, t) order, prefix-sum each type's cells over the partitions for the
 * type-wise offsets, hand out new ids cell by cell in old-id order (a stable counting sort), and
 * convert every id with its own binary search. opt/cpu/hetero.c must give the same bits.
 * Arguments are checked by the entry points (core/ops/hetero.c). */
#include <string.h>
#include "gnnref/hetero.h"
#include "gnnref/tensor.h"

static gnn_status hetero_ref_build(const int32_t *part, const int32_t *type, int64_t n, int64_t P, int64_t T,
                                   gnn_hetero_book *b, int64_t *new_of_old, gnn_err *err)
{
    const int64_t C = P * T;
    b->P = P, b->T = T, b->n = n;
    b->start = gnn_calloc((size_t)C + 1, sizeof(int64_t));
    b->tw_offset = gnn_calloc((size_t)C, sizeof(int64_t));
    b->type_count = gnn_calloc((size_t)T, sizeof(int64_t));
    int64_t *cursor = new_of_old ? gnn_malloc_array((size_t)C, sizeof(int64_t)) : NULL;
    if (!b->start || !b->tw_offset || !b->type_count || (new_of_old && !cursor)) {
        gnn_free(cursor);
        gnn_hetero_book_free(b);
        return gnn_err_set(err, GNN_ERR_NOMEM, "hetero book: out of memory for %lld cells", (long long)C);
    }
    /* n_{p,t} into start[c + 1], then the exclusive prefix over cells in (p, t) order */
    for (int64_t v = 0; v < n; v++)
        b->start[(int64_t)part[v] * T + type[v] + 1]++;
    for (int64_t c = 0; c < C; c++)
        b->start[c + 1] += b->start[c];
    /* type-wise ids: each type's cells in partition order */
    for (int64_t t = 0; t < T; t++) {
        int64_t run = 0;
        for (int64_t p = 0; p < P; p++) {
            b->tw_offset[p * T + t] = run;
            run += b->start[p * T + t + 1] - b->start[p * T + t];
        }
        b->type_count[t] = run;
    }
    /* new ids: old order inside each cell */
    if (new_of_old) {
        memcpy(cursor, b->start, (size_t)C * sizeof(int64_t));
        for (int64_t v = 0; v < n; v++)
            new_of_old[v] = cursor[(int64_t)part[v] * T + type[v]]++;
    }
    gnn_free(cursor);
    return GNN_OK;
}

/* the last i in [0, count) with a[i * stride] <= x (a[0] <= x holds for every caller) */
static int64_t last_le(const int64_t *a, int64_t count, int64_t stride, int64_t x)
{
    int64_t lo = 0, hi = count - 1;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo + 1) / 2;
        if (a[mid * stride] <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static void hetero_ref_to_typed(const gnn_hetero_book *b, const int64_t *homo, int64_t m, int32_t *type_out,
                                int64_t *tw_out)
{
    const int64_t C = b->P * b->T;
    for (int64_t i = 0; i < m; i++) {
        const int64_t c = last_le(b->start, C, 1, homo[i]);
        type_out[i] = (int32_t)(c % b->T);
        tw_out[i] = b->tw_offset[c] + homo[i] - b->start[c];
    }
}

static void hetero_ref_to_homo(const gnn_hetero_book *b, const int32_t *type, const int64_t *tw, int64_t m,
                               int64_t *homo_out)
{
    for (int64_t i = 0; i < m; i++) {
        const int64_t t = type[i], p = last_le(b->tw_offset + t, b->P, b->T, tw[i]);
        const int64_t c = p * b->T + t;
        homo_out[i] = b->start[c] + tw[i] - b->tw_offset[c];
    }
}

static void hetero_ref_part_of(const gnn_hetero_book *b, const int64_t *homo, int64_t m, int32_t *part_out)
{
    const int64_t C = b->P * b->T;
    for (int64_t i = 0; i < m; i++)
        part_out[i] = (int32_t)(last_le(b->start, C, 1, homo[i]) / b->T);
}

const gnn_hetero_ops gnn_hetero_ref = {
    .name = "ref",
    .build = hetero_ref_build,
    .to_typed = hetero_ref_to_typed,
    .to_homo = hetero_ref_to_homo,
    .part_of = hetero_ref_part_of,
};
