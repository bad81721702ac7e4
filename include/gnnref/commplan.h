/* include/gnnref/commplan.h -- SuperGCN's communication plan: which rows travel between ranks
 * in one layer of distributed full-batch aggregation (docs/commplan.md; SuperGCN section 2,
 * "Subgraph construction based on a hybrid of pre- and post-aggregation", Algorithm 2, Fig. 2;
 * ../shared/specs/next-capabilities.md A.2).
 *
 * Input: the global graph g (in-edge CSR: row v lists the sources u of the edges u -> v) and a
 * part vector part[v] in [0, k) (the owner rank of v). For every ordered rank pair (i -> j),
 * i != j, the remote graph R_ij is the set of DISTINCT edges u -> v of g with part[u] = i and
 * part[v] = j (a repeated edge counts once; a self-loop is never cut): u's row is needed on j.
 * U_ij = its distinct sources (owned by i), W_ij = its distinct destinations (owned by j).
 * Every edge of R_ij is aggregated either before the message (pre: rank i sums its sources
 * into one partial row per destination v) or after it (post: rank i sends u's raw row and j
 * aggregates it into every destination). Rows sent i -> j = |post rows| + |pre rows|.
 *
 * Plans (gnn_plan_kind):
 *   pre      every edge pre: one row per v in W_ij (DistGNN);
 *   post     every edge post: one row per u in U_ij (BNS-GCN);
 *   hybrid   @alg{SuperGCN 2}: a minimum vertex cover C of the bipartite graph (U_ij, W_ij,
 *            R_ij); edge u -> v is post when u is in C, else pre (then v is in C). Rows = |C| =
 *            the maximum matching size (Konig), <= min(|U_ij|, |W_ij|);
 *   degree   the older heuristic of the public SuperGCN code (decide_pre_or_post_aggr): post
 *            when outdeg(u) > indeg(v), both counted in R_ij, else pre.
 *
 * The cover as a pure function of (g, part, k), so that every implementation gives the same
 * bits (next-capabilities.md A.2, "which minimum cover"; the whole B_ij at once, no split into
 * connected components, which changes nothing about the volume):
 *   L = U_ij in ascending global id, R = W_ij in ascending global id, each u's neighbors in
 *   ascending global id of v. Hopcroft-Karp, phase after phase until a phase finds no path:
 *     BFS: dist[u] = 0 for every free u (ascending), the others INF; a queue in that order;
 *       popping u, for each neighbor v in order: u2 = mate(v); if u2 is none, the shortest
 *       augmenting length is dist[u] + 1 (kept from the first such v found, "dist_free");
 *       else if dist[u2] is INF, dist[u2] = dist[u] + 1 and u2 joins the queue. A phase with
 *       no free v reached ends the algorithm.
 *     DFS from every free u in ascending id, each vertex's neighbors tried in ascending order,
 *       each neighbor at most once per phase (a per-vertex cursor): at u, neighbor v with
 *       mate none is taken when dist[u] + 1 == dist_free; neighbor v with mate u2 is followed
 *       when dist[u2] == dist[u] + 1 and the DFS from u2 succeeds; on success the path's edges
 *       flip (u takes v); a u whose neighbors are exhausted gets dist[u] = INF.
 *   Konig: Z = the vertices reachable from the free u by alternating paths (u -> v along any
 *   edge, v -> mate(v)); C = (U \ Z) u (W n Z). Z depends only on the matching, so C does.
 *
 * Layout of a plan: sparse, one slot per ordered pair with at least one cut edge, so that its
 * memory grows with the cut and never with k^2 (k may be 65536 with a handful of cut pairs).
 * Slot s holds pair pair[s] = i * k + j, the slots in ascending pair id; a pair without cut
 * edges (the diagonal among them) has no slot, and every slot has at least one edge.
 * gnn_commplan_slot finds a pair's slot. Per slot s:
 *   edges   R_ij sorted by (u, v) ascending: edge_src, edge_dst (global ids) and edge_post
 *           (1: aggregated on j after the message, 0: on i before it);
 *   post    the sources u with a post edge, ascending: the raw rows i sends (first in the
 *           message);
 *   pre     the destinations v with a pre edge, ascending: the partial sums i sends (after the
 *           post rows);
 *   match   hybrid only (empty for the other plans): the maximum matching, pairs
 *           (match_src, match_dst) in ascending source id: the optimality certificate,
 *           |match| = rows of the pair.
 * Rows of slot s = (post_ptr[s+1] - post_ptr[s]) + (pre_ptr[s+1] - pre_ptr[s]).
 *
 * Bytes: a pair's message in one layer is rows x gnn_quant_row_bytes(d, bits) (include/gnnref/quant.h,
 * the one formula: fp32 4 d; int b the codes packed, each row padded to a byte, plus the bf16
 * (min, scale) pair, 4 bytes), i.e. gnn_quant_message_bytes(rows, d, bits).
 *
 * Library code: returns gnn_status, never prints. */
#ifndef GNNREF_COMMPLAN_H
#define GNNREF_COMMPLAN_H

#include <stdint.h>
#include "gnnref/graph.h"
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gnn_plan_kind {
    GNN_PLAN_PRE = 0,
    GNN_PLAN_POST = 1,
    GNN_PLAN_HYBRID = 2,
    GNN_PLAN_DEGREE = 3,
    GNN_PLAN_COUNT
} gnn_plan_kind;

/* "pre", "post", "hybrid", "degree"; NULL for another value. */
const char *gnn_plan_kind_name(gnn_plan_kind kind);
/* GNN_ERR_INVAL for an unknown name. */
gnn_status gnn_plan_kind_parse(const char *name, gnn_plan_kind *kind);

typedef struct gnn_commplan {
    int64_t n, k;          /* global vertices, ranks */
    gnn_plan_kind kind;
    int64_t n_edges;       /* cut edges (distinct), all pairs */
    int64_t n_pairs;       /* slots: ordered pairs (i, j) with at least one cut edge */
    int64_t *pair;         /* (n_pairs) slot s's pair id i * k + j, strictly ascending */
    int64_t *edge_ptr;     /* (n_pairs + 1) slot s's edges: [edge_ptr[s], edge_ptr[s + 1]), never empty */
    int64_t *edge_src;     /* (n_edges) source u (owned by i) */
    int64_t *edge_dst;     /* (n_edges) destination v (owned by j) */
    uint8_t *edge_post;    /* (n_edges) 1 post, 0 pre */
    int64_t *post_ptr;     /* (n_pairs + 1) */
    int64_t *post_rows;    /* (post_ptr[n_pairs]) source ids sent raw, ascending per slot */
    int64_t *pre_ptr;      /* (n_pairs + 1) */
    int64_t *pre_rows;     /* (pre_ptr[n_pairs]) destination ids sent as partial sums, ascending */
    int64_t *match_ptr;    /* (n_pairs + 1) all 0 unless hybrid */
    int64_t *match_src;    /* (match_ptr[n_pairs]) matched pairs, ascending source */
    int64_t *match_dst;
} gnn_commplan;

/* An implementation: build the plan of `kind` for arguments the entry point has checked (g a
 * valid CSR, part[v] in [0, k), k >= 1; *out zeroed). Allocates every array of *out with
 * gnn_malloc (freed by gnn_commplan_free); on error leaves nothing allocated. */
typedef struct gnn_commplan_ops {
    const char *name; /* "ref", "cpu" */
    unsigned caps;
    gnn_status (*build)(const gnn_csr *g, const int32_t *part, int64_t k, gnn_plan_kind kind, gnn_commplan *out);
} gnn_commplan_ops;

extern const gnn_commplan_ops gnn_commplan_ref, gnn_commplan_cpu;

/* Checked entry point (core/dist/commplan.c). GNN_ERR_INVAL, with a message: NULL ops, g or out; a
 * malformed g (gnn_csr_validate); k < 1 or beyond int32; no part vector while n > 0; an unknown
 * kind. GNN_ERR_RANGE: a part value outside [0, k) (the message names the first vertex).
 * GNN_ERR_UNSUPPORTED: ops lacks build. GNN_ERR_NOMEM. On error *out is left empty
 * (gnn_commplan_free is safe on it). */
gnn_status gnn_commplan_build(const gnn_commplan_ops *ops, const gnn_csr *g, const int32_t *part, int64_t k,
                              gnn_plan_kind kind, gnn_commplan *out, gnn_err *err);
void gnn_commplan_free(gnn_commplan *plan);

/* The slot of pair p = i * k + j, or -1 when the pair has no cut edge (a binary search over
 * the slots: O(log n_pairs)). */
static inline int64_t gnn_commplan_slot(const gnn_commplan *c, int64_t p)
{
    int64_t lo = 0, hi = c->n_pairs;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (c->pair[mid] < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->n_pairs && c->pair[lo] == p ? lo : -1;
}

/* Counts of slot s. */
static inline int64_t gnn_commplan_slot_rows(const gnn_commplan *c, int64_t s)
{
    return (c->post_ptr[s + 1] - c->post_ptr[s]) + (c->pre_ptr[s + 1] - c->pre_ptr[s]);
}
static inline int64_t gnn_commplan_slot_edges(const gnn_commplan *c, int64_t s)
{
    return c->edge_ptr[s + 1] - c->edge_ptr[s];
}

/* Counts of pair p = i * k + j: 0 for a pair without cut edges. */
static inline int64_t gnn_commplan_rows(const gnn_commplan *c, int64_t p)
{
    const int64_t s = gnn_commplan_slot(c, p);
    return s < 0 ? 0 : gnn_commplan_slot_rows(c, s);
}
static inline int64_t gnn_commplan_edges(const gnn_commplan *c, int64_t p)
{
    const int64_t s = gnn_commplan_slot(c, p);
    return s < 0 ? 0 : gnn_commplan_slot_edges(c, s);
}
/* Rows of all pairs. */
static inline int64_t gnn_commplan_total_rows(const gnn_commplan *c)
{
    return c->post_ptr[c->n_pairs] + c->pre_ptr[c->n_pairs];
}

/* An upper bound on the bytes gnn_commplan_build allocates at its peak (the plan, and the
 * builders' scratch with `threads` OpenMP threads) for a graph with `cut` cut edges counted with their
 * repeats (in-edges u -> v with part[u] != part[v]; gnn_commplan_count_cut): linear in the
 * cut, and independent of k, so that a caller can refuse a run before it allocates anything
 * (gnnref commplan does). */
int64_t gnn_commplan_bytes_bound(int64_t cut, int threads);
/* The cpu builder groups the cut edges into at most this many buckets of consecutive pair
 * ids (a counting sort whose counts are per bucket, not per pair). */
#define GNN_COMMPLAN_BUCKETS 4096
/* The cut edges with their repeats: in-edges u -> v of g with part[u] != part[v] (g valid, part
 * of g->n entries, any values: unchecked, as nothing is indexed by them). */
int64_t gnn_commplan_count_cut(const gnn_csr *g, const int32_t *part);

/* The reference's per-pair solver, which the cpu tier runs on many pairs at once (ref/commplan.c;
 * unchecked). One pair: its m edges (src, dst) sorted by (u, v), distinct; post[e] (m) receives the
 * decision of `kind`; for hybrid, match_src / match_dst (room for min(|U|, |W|) <= m) receive the
 * matching in ascending source id and *n_match its size (0 for the other kinds; the arrays
 * may then be NULL). */
gnn_status gnn_commplan_pair_ref(const int64_t *src, const int64_t *dst, int64_t m, gnn_plan_kind kind, uint8_t *post,
                                 int64_t *match_src, int64_t *match_dst, int64_t *n_match);

#ifdef __cplusplus
}
#endif
#endif
