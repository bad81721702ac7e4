/* include/gnnref/reorder.h -- FastGL's Match-Reorder (Zhu et al., ASPLOS'24, section 4.1 and
 * Algorithm 1; ../shared/specs/next-capabilities.md B.1; docs/reorder.md).
 *
 * A mini-batch's input set S_k is the src vertices of its input-layer block (blocks[0].src_gid,
 * DGL's input_nodes): the rows whose features it loads. Consecutive batches overlap, so
 *   Match:   batch k reuses the rows of S_k ∩ S_{k-1} from the previous batch's buffer and loads
 *            only S_k \ S_{k-1};
 *   Reorder: a window of n sampled batches is put in a greedy order that follows the largest
 *            match degree from each batch to the next (Algorithm 1, with the three fixes below).
 *
 * Match degree of batches i != j, from the exact overlap N_o = |S_i ∩ S_j| and N_i = |S_i|:
 *   MIN    N_o / min(N_i, N_j)          the paper's M_ij (section 4.1);
 *   LATER  N_o / N_max(i,j)             the public code's (utilis.py: |S_i ∩ S_j| / |S_j| for i < j,
 *                                       copied to [j][i]): normalized by the later batch's size;
 *   COUNT  N_o                          the raw overlap, which is what Match saves.
 * A zero denominator gives degree 0. Degrees are compared as exact rationals, a/b > c/d when
 * a*d > c*b in 128-bit integers, never as floats: the matrix and the order are the same bits
 * in ref and cpu, at any thread count.
 *
 * Greedy order of a window w_0 .. w_{n-1} (@alg{FastGL 1}), with the spec's fixes:
 *   - the first batch of the window stays first (line 4);
 *   - a batch is never its own successor: the diagonal is not a degree (M[k][k] = 0, fix 1);
 *   - the argmax of line 7 runs over the batches not yet placed only, so the result is a
 *     permutation even when every remaining degree is 0 (fix 2; torch.argmax would return
 *     batch 0 again); ties go to the smallest index in the window (fix 3: a total order).
 * With window W (0 = all n batches), batches [0, W), [W, 2W), ... are ordered apart; the last
 * window may be shorter.
 *
 * Library code: returns gnn_status, never prints. Arguments are checked once in the entry
 * points (core/ops/reorder.c); the tables assume valid input. */
#ifndef GNNREF_REORDER_H
#define GNNREF_REORDER_H

#include <stdint.h>
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gnn_match_norm {
    GNN_MATCH_MIN = 0,   /* N_o / min(N_i, N_j): the paper's */
    GNN_MATCH_LATER = 1, /* N_o / N_max(i,j): the public code's */
    GNN_MATCH_COUNT = 2  /* N_o */
} gnn_match_norm;
const char *gnn_match_norm_name(gnn_match_norm m); /* "min", "later", "count" */
gnn_status gnn_match_norm_parse(const char *s, gnn_match_norm *m); /* GNN_ERR_INVAL when unknown */

/* Match: how batch `cur` is assembled from the previous batch `prev`. */
typedef struct gnn_match_plan {
    int64_t n;         /* rows of the batch (|S_cur|) */
    int64_t n_prev;    /* rows of the previous batch */
    int64_t *from;     /* (n) from[r] >= 0: row from[r] of the previous batch; from[r] < 0: row
                          -1 - from[r] of the loaded rows */
    int64_t n_load;    /* |S_cur \ S_prev|: the rows loaded */
    int64_t *load_ids; /* (n_load) their ids, in row order */
} gnn_match_plan;
void gnn_match_plan_free(gnn_match_plan *p);

typedef struct gnn_reorder_ops {
    const char *name; /* "ref", "cpu" */
    unsigned caps;
    /* overlap (n, n): overlap[i][j] = |S_i ∩ S_j|, the diagonal |S_i|. sets[i] (len[i]) */
    gnn_status (*degree)(const int64_t *const *sets, const int64_t *len, int64_t n, int64_t *overlap);
    /* order (n): the greedy order of one window from its overlap matrix, as indices 0..n-1 */
    gnn_status (*order)(const int64_t *overlap, int64_t n, gnn_match_norm norm, int64_t *order);
    /* the plan of cur (n_cur ids) after prev (n_prev ids); p is filled (free it) */
    gnn_status (*plan)(const int64_t *prev, int64_t n_prev, const int64_t *cur, int64_t n_cur, gnn_match_plan *p);
    /* x (p->n, d): row r = prev_x[from[r]] or loaded[-1 - from[r]], copied bytes */
    gnn_status (*assemble)(const gnn_match_plan *p, const float *prev_x, const float *loaded, int64_t d, float *x);
} gnn_reorder_ops;

extern const gnn_reorder_ops gnn_reorder_ref, gnn_reorder_cpu;

/* ---- checked entry points (core/ops/reorder.c) ----------------------------------------------------
 * GNN_ERR_INVAL: NULL ops or a NULL array that has elements, n or a length < 0, an unknown norm,
 * an id repeated within one set, a non-symmetric overlap matrix or an off-diagonal count above
 * either set's size; GNN_ERR_RANGE: a negative id; GNN_ERR_NOMEM. */

/* The window's overlap counts (n, n). */
gnn_status gnn_match_degree(const gnn_reorder_ops *ops, const int64_t *const *sets, const int64_t *len, int64_t n,
                            int64_t *overlap);
/* The greedy order of one window from its overlap counts (order: a permutation of 0..n-1). */
gnn_status gnn_greedy_reorder(const gnn_reorder_ops *ops, const int64_t *overlap, int64_t n, gnn_match_norm norm,
                              int64_t *order);
/* Both, window by window over n batches: order (n) receives batch indices 0..n-1, each window's
 * a permutation of its own range. window 0 = one window of all n. */
gnn_status gnn_reorder_windows(const gnn_reorder_ops *ops, const int64_t *const *sets, const int64_t *len, int64_t n,
                               int64_t window, gnn_match_norm norm, int64_t *order);
gnn_status gnn_match_plan_build(const gnn_reorder_ops *ops, const int64_t *prev, int64_t n_prev, const int64_t *cur,
                                int64_t n_cur, gnn_match_plan *p);
gnn_status gnn_match_assemble(const gnn_reorder_ops *ops, const gnn_match_plan *p, const float *prev_x,
                              const float *loaded, int64_t d, float *x);

/* Degree i -> j of an overlap matrix as the exact fraction *num / *den (den >= 1; 0/1 when the
 * normalizer is 0; i != j). Shared by ref, cpu and the oracle. */
void gnn_match_degree_frac(const int64_t *overlap, int64_t n, int64_t i, int64_t j, gnn_match_norm norm,
                           int64_t *num, int64_t *den);
/* -1, 0, 1 as a/b <, ==, > c/d (b, d >= 1), in 128-bit integers. */
int gnn_match_frac_cmp(int64_t a, int64_t b, int64_t c, int64_t d);

/* Rows loaded when batches run in `order` (n positions; NULL: 0..n-1), with Match (match 1:
 * each batch loads |S_k \ S_{k-1}|, the first all of its rows) or without (every row). Checked. */
gnn_status gnn_match_rows_loaded(const gnn_reorder_ops *ops, const int64_t *const *sets, const int64_t *len, int64_t n,
                                 const int64_t *order, int match, int64_t *rows);

#ifdef __cplusplus
}
#endif
#endif
