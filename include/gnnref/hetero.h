/* include/gnnref/hetero.h -- heterogeneous id spaces: the partition book of a typed graph,
 * type-wise ids and the conversions between them (docs/hetero.md, "Partition books and
 * type-wise ids"; ../shared/specs/next-capabilities.md C.4; DGL guide 7.5, "reshuffle";
 * @sec{DistDGLv2 4.1.1}).
 *
 * Homogenized ids (the input): every vertex of every type has one id in [0, n), and each type's
 * vertices are one contiguous range, type 0 first (DGL's to_homogeneous), so the type array is
 * NON-DECREASING. gnn_hetero_book_build checks that and refuses any other order.
 *
 * The reshuffle (the book): given a part vector part[v] in [0, P), the vertices are renumbered
 * so that each partition's vertices are contiguous and, inside a partition, each type's
 * vertices are contiguous: cell (p, t) comes at position c = p T + t, cells in increasing c,
 * and inside a cell the vertices keep their old (homogenized) order (a stable sort by cell):
 *   n_{p,t}          the vertices v with part[v] = p and type[v] = t;
 *   start[c]         sum of n over the cells before c; cell (p, t) holds the new homogeneous
 *                    ids [start[p T + t], start[p T + t + 1]); start[P T] = n;
 *   new_of_old[v]    start[c(v)] + the number of u < v in v's cell;
 *   type_count[t]    n_t = sum_p n_{p,t};
 *   tw_offset[c]     sum over q < p of n_{q,t}: partition p's vertices of type t have the
 *                    type-wise ids [tw_offset[p T + t], tw_offset[p T + t] + n_{p,t}), so the
 *                    type-wise ids of type t run over [0, n_t) partition by partition.
 * Conversions (DGL's map_to_per_ntype and map_to_homo_nid), for new homogeneous ids h:
 *   to_typed   h -> (t, w): the cell c = the last with start[c] <= h (a binary search over the
 *              P T + 1 starts; empty cells share their start with the next one and are never
 *              the last), t = c mod T, w = tw_offset[c] + h - start[c];
 *   to_homo    (t, w) -> h: p = the last partition with tw_offset[p T + t] <= w (a binary search
 *              over the P offsets of type t), h = start[p T + t] + w - tw_offset[p T + t];
 *   part_of    h -> c / T for the c of to_typed.
 * Edges use the same book: an edge belongs to the partition of its dst (DistDGL's rule), with its
 * edge type; pass part_e[e] = part[dst(e)] and the edge types in homogenized edge order (each
 * type contiguous, type 0 first).
 *
 * Implementations (the implementation context's `hetero` table, impl.h): gnn_hetero_ref
 * (ref/hetero.c, the specification: counting, prefix sums, one binary search per id) and
 * gnn_hetero_cpu (opt/cpu/hetero.c: OpenMP over ids, a chunked parallel counting sort), the same
 * bits at any thread count. Both through the checked entry points below (core/ops/hetero.c).
 * Library code: returns gnn_status with a message in gnn_err; never prints. */
#ifndef GNNREF_HETERO_H
#define GNNREF_HETERO_H

#include <stdint.h>
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gnn_hetero_book {
    int64_t P, T;        /* partitions, types (>= 1 each) */
    int64_t n;           /* ids in all (= start[P T]) */
    int64_t *start;      /* (P T + 1) first new homogeneous id of each cell (p, t), c = p T + t */
    int64_t *tw_offset;  /* (P T) type-wise id of the first vertex of each cell */
    int64_t *type_count; /* (T) n_t */
} gnn_hetero_book;

/* An implementation. Arguments are checked by the entry points (core/ops/hetero.c): every id is in
 * range and every array is present. build receives a zeroed *book and allocates its arrays
 * (on error it leaves *book empty); new_of_old may be NULL. */
typedef struct gnn_hetero_ops {
    const char *name; /* "ref", "cpu" */
    gnn_status (*build)(const int32_t *part, const int32_t *type, int64_t n, int64_t P, int64_t T,
                        gnn_hetero_book *book, int64_t *new_of_old, gnn_err *err);
    void (*to_typed)(const gnn_hetero_book *b, const int64_t *homo, int64_t m, int32_t *type_out,
                     int64_t *typewise_out);
    void (*to_homo)(const gnn_hetero_book *b, const int32_t *type, const int64_t *typewise, int64_t m,
                    int64_t *homo_out);
    void (*part_of)(const gnn_hetero_book *b, const int64_t *homo, int64_t m, int32_t *part_out);
} gnn_hetero_ops;

extern const gnn_hetero_ops gnn_hetero_ref, gnn_hetero_cpu;

/* Build the book of n homogenized ids with the part vector part (n, values in [0, P)) and the
 * type array type (n, values in [0, T), non-decreasing), and optionally the relabel new_of_old
 * (n; NULL when not wanted). *book is overwritten (free it with gnn_hetero_book_free, also after
 * an error). Errors: GNN_ERR_INVAL: NULL ops or book, NULL part or type with n > 0, n < 0,
 * P or T < 1 or beyond INT32_MAX, P T beyond 2^40; GNN_ERR_RANGE: a part or type value out of
 * range, or a type smaller than the one before it (not homogenized), the message naming the
 * position and the value; GNN_ERR_NOMEM. */
gnn_status gnn_hetero_book_build(const gnn_hetero_ops *ops, const int32_t *part, const int32_t *type, int64_t n,
                                 int64_t P, int64_t T, gnn_hetero_book *book, int64_t *new_of_old, gnn_err *err);
void gnn_hetero_book_free(gnn_hetero_book *book);

/* Batch conversions of m ids (m = 0 is fine; the arrays may then be NULL). GNN_ERR_INVAL: NULL
 * ops or book, a book that was not built, m < 0, a NULL array with m > 0; GNN_ERR_RANGE: a
 * homogeneous id outside [0, n), a type outside [0, T) or a type-wise id outside [0, n_t),
 * the message naming the first such position and its value (nothing is written then). */
gnn_status gnn_hetero_to_typed(const gnn_hetero_ops *ops, const gnn_hetero_book *book, const int64_t *homo,
                               int64_t m, int32_t *type_out, int64_t *typewise_out, gnn_err *err);
gnn_status gnn_hetero_to_homo(const gnn_hetero_ops *ops, const gnn_hetero_book *book, const int32_t *type,
                              const int64_t *typewise, int64_t m, int64_t *homo_out, gnn_err *err);
gnn_status gnn_hetero_part_of(const gnn_hetero_ops *ops, const gnn_hetero_book *book, const int64_t *homo,
                              int64_t m, int32_t *part_out, gnn_err *err);

/* The cell counts n_{p,t} = start[c + 1] - start[c] of cell c = p T + t (unchecked). */
static inline int64_t gnn_hetero_cell_count(const gnn_hetero_book *b, int64_t p, int64_t t)
{
    return b->start[p * b->T + t + 1] - b->start[p * b->T + t];
}

#ifdef __cplusplus
}
#endif
#endif
