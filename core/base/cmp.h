/* core/base/cmp.h -- comparisons every tier needs, written once (the same int64 comparator had
 * been written in nine files: ref, opt, core, the oracle and the tool). Internal to the tree:
 * not installed. */
#ifndef GNN_CORE_CMP_H
#define GNN_CORE_CMP_H

#include <stdint.h>

/* qsort's and bsearch's order of two int64_t, ascending; (x > y) - (x < y) cannot overflow
 * where x - y would. */
static inline int gnn_cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

#endif
