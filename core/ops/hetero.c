/* core/ops/hetero.c -- the checked entry points of the partition book and the id conversions
 * (include/gnnref/hetero.h): every argument is checked here once, so ref/hetero.c and
 * opt/cpu/hetero.c can assume valid input. The checks are one pass over each input array. */
#include <stdint.h>
#include <string.h>
#include "gnnref/hetero.h"
#include "gnnref/tensor.h"

/* cells are int64 counts: 2^40 of them is 8 TiB of starts, far past any real book, and keeps
 * every product P T, threads x P T far from overflow */
#define MAX_CELLS ((int64_t)1 << 40)

void gnn_hetero_book_free(gnn_hetero_book *b)
{
    if (!b)
        return;
    gnn_free(b->start);
    gnn_free(b->tw_offset);
    gnn_free(b->type_count);
    memset(b, 0, sizeof *b);
}

gnn_status gnn_hetero_book_build(const gnn_hetero_ops *ops, const int32_t *part, const int32_t *type, int64_t n,
                                 int64_t P, int64_t T, gnn_hetero_book *book, int64_t *new_of_old, gnn_err *err)
{
    if (!book)
        return gnn_err_set(err, GNN_ERR_INVAL, "hetero book: NULL book");
    memset(book, 0, sizeof *book);
    if (!ops || !ops->build)
        return gnn_err_set(err, GNN_ERR_INVAL, "hetero book: NULL implementation");
    if (n < 0)
        return gnn_err_set(err, GNN_ERR_INVAL, "hetero book: %lld ids: need n >= 0", (long long)n);
    if (P < 1 || P > INT32_MAX)
        return gnn_err_set(err, GNN_ERR_INVAL, "hetero book: %lld partitions: need 1 to %d", (long long)P, INT32_MAX);
    if (T < 1 || T > INT32_MAX)
        return gnn_err_set(err, GNN_ERR_INVAL, "hetero book: %lld types: need 1 to %d", (long long)T, INT32_MAX);
    if (P > MAX_CELLS / T)
        return gnn_err_set(err, GNN_ERR_INVAL, "hetero book: %lld partitions x %lld types: more than 2^40 cells",
                           (long long)P, (long long)T);
    if (n > 0 && (!part || !type))
        return gnn_err_set(err, GNN_ERR_INVAL, "hetero book: NULL %s array for %lld ids", !part ? "part" : "type",
                           (long long)n);
    for (int64_t v = 0; v < n; v++) {
        if (part[v] < 0 || part[v] >= P)
            return gnn_err_set(err, GNN_ERR_RANGE, "hetero book: part[%lld] = %d outside [0, %lld)", (long long)v,
                               (int)part[v], (long long)P);
        if (type[v] < 0 || type[v] >= T)
            return gnn_err_set(err, GNN_ERR_RANGE, "hetero book: type[%lld] = %d outside [0, %lld)", (long long)v,
                               (int)type[v], (long long)T);
        /* the book's ranges assume homogenized ids: each type one contiguous range, type 0 first */
        if (v > 0 && type[v] < type[v - 1])
            return gnn_err_set(err, GNN_ERR_RANGE,
                               "hetero book: type[%lld] = %d after type[%lld] = %d: the type array must be "
                               "homogenized (non-decreasing: each type's ids contiguous, type 0 first)",
                               (long long)v, (int)type[v], (long long)(v - 1), (int)type[v - 1]);
    }
    gnn_status s = ops->build(part, type, n, P, T, book, new_of_old, err);
    if (s)
        gnn_hetero_book_free(book);
    return s;
}

/* have: whether ops has the conversion asked for */
static gnn_status check_book(const gnn_hetero_ops *ops, int have, const gnn_hetero_book *b, int64_t m,
                             const char *who, gnn_err *err)
{
    if (!ops || !have)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: NULL implementation", who);
    if (!b || !b->start || !b->tw_offset || !b->type_count || b->P < 1 || b->T < 1)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: the book was not built", who);
    if (m < 0)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: %lld ids: need m >= 0", who, (long long)m);
    return GNN_OK;
}

static gnn_status check_homo(const gnn_hetero_book *b, const int64_t *homo, int64_t m, const char *who, gnn_err *err)
{
    for (int64_t i = 0; i < m; i++)
        if (homo[i] < 0 || homo[i] >= b->n)
            return gnn_err_set(err, GNN_ERR_RANGE, "%s: homogeneous id %lld at position %lld outside [0, %lld)", who,
                               (long long)homo[i], (long long)i, (long long)b->n);
    return GNN_OK;
}

gnn_status gnn_hetero_to_typed(const gnn_hetero_ops *ops, const gnn_hetero_book *book, const int64_t *homo,
                               int64_t m, int32_t *type_out, int64_t *typewise_out, gnn_err *err)
{
    static const char who[] = "hetero to_typed";
    gnn_status s = check_book(ops, ops && ops->to_typed, book, m, who, err);
    if (s)
        return s;
    if (m > 0 && (!homo || !type_out || !typewise_out))
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: NULL array for %lld ids", who, (long long)m);
    if ((s = check_homo(book, homo, m, who, err)))
        return s;
    if (m > 0)
        ops->to_typed(book, homo, m, type_out, typewise_out);
    return GNN_OK;
}

gnn_status gnn_hetero_to_homo(const gnn_hetero_ops *ops, const gnn_hetero_book *book, const int32_t *type,
                              const int64_t *typewise, int64_t m, int64_t *homo_out, gnn_err *err)
{
    static const char who[] = "hetero to_homo";
    gnn_status s = check_book(ops, ops && ops->to_homo, book, m, who, err);
    if (s)
        return s;
    if (m > 0 && (!type || !typewise || !homo_out))
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: NULL array for %lld ids", who, (long long)m);
    for (int64_t i = 0; i < m; i++) {
        if (type[i] < 0 || type[i] >= book->T)
            return gnn_err_set(err, GNN_ERR_RANGE, "%s: type %d at position %lld outside [0, %lld)", who,
                               (int)type[i], (long long)i, (long long)book->T);
        if (typewise[i] < 0 || typewise[i] >= book->type_count[type[i]])
            return gnn_err_set(err, GNN_ERR_RANGE, "%s: type-wise id %lld of type %d at position %lld outside [0, %lld)",
                               who, (long long)typewise[i], (int)type[i], (long long)i,
                               (long long)book->type_count[type[i]]);
    }
    if (m > 0)
        ops->to_homo(book, type, typewise, m, homo_out);
    return GNN_OK;
}

gnn_status gnn_hetero_part_of(const gnn_hetero_ops *ops, const gnn_hetero_book *book, const int64_t *homo,
                              int64_t m, int32_t *part_out, gnn_err *err)
{
    static const char who[] = "hetero part_of";
    gnn_status s = check_book(ops, ops && ops->part_of, book, m, who, err);
    if (s)
        return s;
    if (m > 0 && (!homo || !part_out))
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: NULL array for %lld ids", who, (long long)m);
    if ((s = check_homo(book, homo, m, who, err)))
        return s;
    if (m > 0)
        ops->part_of(book, homo, m, part_out);
    return GNN_OK;
}
