/* include/gnnref/distagg.h -- SuperGCN's distributed full-batch aggregation, forward and
 * backward, over gnn_comm (docs/distagg.md; SuperGCN section 2 and Fig. 1 steps 4-6,
 * @alg{SuperGCN 2}; ../shared/specs/next-capabilities.md A.2 "Message layout", "Weights",
 * "Summation order", "Backward", "Overlap").
 *
 * The graph g (in-edge CSR: row v lists the sources u of the edges u -> v, repeats allowed) is
 * cut by a part vector into k ranks; rank r owns the vertices v with part[v] = r and holds their
 * rows, in ascending global id ("owned rows", n_own of them). One layer's aggregation
 *     out[v] = AGG over the in-edges u -> v of g of x[u]     (MEAN, SUM or GCN, as aggregate.h)
 * is computed with the GLOBAL degrees: MEAN scales by 1.0f / deg_in(v), GCN's coefficient is
 * c_uv = (1.0f / sqrtf((float)deg_out(u))) * (1.0f / sqrtf((float)deg_in(v))), both counted in g
 * (so every product is bitwise the product gnn_aggregate_ref forms on gnn_block_full(g)). A cut
 * edge u -> v (part[u] = i != j = part[v]) follows the plan's decision for the pair (i -> j)
 * (include/gnnref/commplan.h; a repeated edge follows its distinct edge's decision):
 *   post  rank i sends u's raw row (a "post row"), rank j aggregates it into v;
 *   pre   rank i sums its pre sources of v into one "pre row" and sends that; j adds it to v.
 *
 * ---- message layout (one exchange per direction, gnn_comm_ialltoallv, dtype u8) ----
 * Rank i's message to rank j holds the plan's rows of the pair (i -> j): first its post rows
 * (source u ascending), then its pre rows (destination v ascending); rows(i -> j) =
 * gnn_commplan_rows(plan, i k + j). fp32 (bits 32): the rows' floats, 4 d bytes each. Quantized
 * (bits 2, 4, 8; include/gnnref/quant.h): the packed codes of every row in row order, then the
 * 4-byte parameters of every row in row order; the post rows packed with draw0 =
 * gnn_quant_draw0(0, k, i, j, d), the pre rows with gnn_quant_draw0(1, k, i, j, d), each row
 * keyed by its global id (u for a post row, v for a pre row). Either way the message is
 * exactly rows(i -> j) x gnn_quant_row_bytes(d, bits) bytes, and that is what the
 * communicator's traffic accounting counts. Nothing is sent to oneself.
 * Backward sends the same rows in the other direction (j -> i, same order, same count):
 * for a post row u the gradient sum g_u, for a pre row v the row dout[v].
 *
 * ---- summation order (the contract: ref, cpu at any thread count, the simulator and MPI at
 * the same rank count compute the same bits) ----
 * Each addend is formed first and then added (acc += t, in float, starting from 0.0f; no FMA).
 * Forward, out[v] on v's owner j:
 *   1. v's local in-edges (source owned by j) in g's CSR order of row v: t = x[u] (MEAN, SUM)
 *      or x[u] * c_uv (GCN);
 *   2. the received rows, by sender rank i ascending, each sender's rows in message order:
 *      a post row u adds one t per occurrence of a post edge u -> v in row v of g (as in 1);
 *      a pre row v adds itself once (t = p_v);
 *   3. MEAN: out[v] = acc * (1.0f / deg_in(v)) when deg_in(v) > 0.
 * The pre row p_v that rank i sends: v's in-edges in g's CSR order of row v whose source is
 * owned by i and whose edge is pre, t = x[u] (MEAN, SUM) or x[u] * c_uv (GCN), from 0.0f. (g's
 * rows are sorted by source id when gnnref builds g, gnn_csr_from_edges: then this is the
 * ascending source id the spec proposes.)
 * Backward, with b_uv = 1.0f / deg_in(v) (MEAN), 1 (SUM: the product is skipped, x * 1.0f is
 * exact) or c_uv (GCN), dx[u] on u's owner i:
 *   1. u's local out-edges u -> v (v owned by i) by v ascending, then position in row v:
 *      t = dout[v] * b_uv;
 *   2. the received rows, by sender rank j ascending, each sender's rows in message order: a
 *      post row u (the gradient g_u) adds itself once; a pre row v adds dout[v] * b_uv once per
 *      occurrence of a pre edge u -> v in row v of g.
 * The post row g_u that rank j sends back: u's post edges u -> v (v owned by j) by v ascending,
 * then position in row v, t = dout[v] * b_uv, from 0.0f. The pre row of v is dout[v] itself.
 * No atomics: every output row is one sum in this order. With one rank every edge is local and
 * the result is bitwise gnn_aggregate_ref's on gnn_block_full(g).
 *
 * ---- overlap (Fig. 1 step 5) ----
 * forward/backward: compute the send rows (post copies, pre sums), pack them, post the exchange
 * with gnn_comm_ialltoallv, aggregate the local edges while it travels, gnn_comm_wait, unpack,
 * then add the received rows (post-aggregation).
 *
 * Library code: returns gnn_status, never prints. The forward and backward are collective:
 * every rank of the communicator calls them in the same order with the same d, kind and bits. */
#ifndef GNNREF_DISTAGG_H
#define GNNREF_DISTAGG_H

#include <stdint.h>
#include "gnnref/aggregate.h"
#include "gnnref/comm.h"
#include "gnnref/commplan.h"
#include "gnnref/graph.h"
#include "gnnref/quant.h"
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the ialltoallv tag a new gnn_distagg uses (the caller may set another in [0, GNN_COMM_MAX_TAG)) */
#define GNN_DISTAGG_TAG 900

/* Where the exchange adds its wall times when gnn_distagg.times is set (the caller's; never part
 * of a result): post_s packing and posting, local_s from the post to the wait (the work the
 * transfer overlaps), wait_s in the wait; calls the exchanges finished. */
typedef struct gnn_distagg_times {
    double post_s, local_s, wait_s;
    int64_t calls;
} gnn_distagg_times;

/* One rank's structures (built by setup; read-only afterwards, but for *times). Local ids
 * index the owned rows: own_gid[l] is the global id of local row l. */
typedef struct gnn_distagg {
    int64_t n, k, rank;  /* global vertices, ranks, this rank */
    int tag;             /* ialltoallv tag of both exchanges */
    gnn_distagg_times *times; /* NULL (setup's default), or where the exchanges add their times */
    int64_t n_own;
    int64_t *own_gid;    /* (n_own) ascending */
    int64_t *deg_in;     /* (n_own) global in-degree */
    float *inv_deg;      /* (n_own) 1.0f / (float)deg_in, 0 where deg_in = 0 */
    /* local edges by destination (forward step 1): source local id, GCN coefficient */
    int64_t *loc_ptr;    /* (n_own + 1) */
    int64_t *loc_src;    /* (loc_ptr[n_own]) */
    float *loc_c;        /* (loc_ptr[n_own]) c_uv */
    /* the same edges by source (backward step 1), by v ascending then position */
    int64_t *loct_ptr;   /* (n_own + 1) */
    int64_t *loct_dst;   /* (loct_ptr[n_own]) destination local id */
    float *loct_c;       /* c_uv */
    /* forward send rows = backward received rows, grouped by destination rank */
    int64_t n_send;
    int64_t *send_off;   /* (k + 1) rows to rank q: [send_off[q], send_off[q + 1]) */
    int64_t *send_npost; /* (k) how many of them are post rows (they come first) */
    int64_t *send_gid;   /* (n_send) u (post row) or v (pre row) */
    uint8_t *send_pre;   /* (n_send) 1 pre row, 0 post row */
    int64_t *send_ptr;   /* (n_send + 1) the row's sources: a post row has one (u itself) */
    int64_t *send_src;   /* (send_ptr[n_send]) source local id, CSR order of row v */
    float *send_c;       /* (send_ptr[n_send]) c_uv (pre rows) */
    /* forward received rows = backward send rows, grouped by sender rank */
    int64_t n_recv;
    int64_t *recv_off;   /* (k + 1) rows from rank q */
    int64_t *recv_npost; /* (k) */
    int64_t *recv_gid;   /* (n_recv) */
    uint8_t *recv_pre;   /* (n_recv) 1 pre row, 0 post row */
    int64_t *recv_ptr;   /* (n_recv + 1) backward send sums: post row u: its post edges (with
                            repeats) by v then position; pre row v: one entry, v */
    int64_t *recv_dst;   /* destination local id */
    float *recv_c;       /* c_uv */
    /* forward step 2: by owned destination, the received addends in order */
    int64_t *fwd_ptr;    /* (n_own + 1) */
    int64_t *fwd_row;    /* received row index */
    float *fwd_c;        /* c_uv (post addend), 1 (pre addend) */
    uint8_t *fwd_pre;    /* 1: a pre row, added as it is */
    /* backward step 2: by owned source, the received addends in order */
    int64_t *bwd_ptr;    /* (n_own + 1) */
    int64_t *bwd_row;    /* received row index (into the forward send rows' order) */
    float *bwd_c;        /* c_uv (pre addend) */
    float *bwd_cm;       /* 1.0f / deg_in(v) (pre addend, MEAN) */
    uint8_t *bwd_pre;    /* 1: dout[v] times b_uv; 0: a post gradient row, added as it is */
} gnn_distagg;

typedef struct gnn_distagg_ops {
    const char *name; /* "ref", "cpu" */
    unsigned caps;
    /* build rank `rank`'s structures; arguments checked by gnn_distagg_setup; *out zeroed */
    gnn_status (*setup)(const gnn_csr *g, const int32_t *part, int64_t k, int64_t rank, const gnn_commplan *plan,
                        gnn_distagg *out);
    /* x (n_own, d) -> out (n_own, d); q NULL or bits 32: fp32 rows; x and out do not overlap */
    gnn_status (*forward)(gnn_comm *c, const gnn_distagg *da, const float *x, int64_t d, gnn_agg_kind kind,
                          const gnn_quant_cfg *q, float *out);
    /* dout (n_own, d) -> dx (n_own, d); dout and dx do not overlap */
    gnn_status (*backward)(gnn_comm *c, const gnn_distagg *da, const float *dout, int64_t d, gnn_agg_kind kind,
                           const gnn_quant_cfg *q, float *dx);
} gnn_distagg_ops;

extern const gnn_distagg_ops gnn_distagg_ref, gnn_distagg_cpu;

/* Checked entry points (core/dist/distagg.c).
 * setup: GNN_ERR_INVAL with a message: NULL ops, g, plan or out; a malformed g; k < 1 or
 *   beyond int32; rank outside [0, k); no part vector while n > 0; a plan of another n or k; a
 *   cut edge of g the plan does not list. GNN_ERR_RANGE: a part value outside [0, k).
 *   GNN_ERR_UNSUPPORTED: ops lacks setup. GNN_ERR_NOMEM. On error *out is empty (free is safe).
 * forward / backward: GNN_ERR_INVAL, nothing written or sent: NULL ops, c or da; c's size or
 *   rank not da's; d < 0; kind not MEAN, SUM or GCN; a NULL array that has elements; q with
 *   bits not 2, 4, 8, 32, an unknown rounding or layer > 127 (q->dir and q->draw0 are set by the
 *   call: dir 0 forward, 1 backward; draw0 per message, see above). The check is local: a rank
 *   that refuses does not post, and the others' waits fail with the communicator's bound.
 *   GNN_ERR_COMM: the exchange failed or a segment is missing or of the wrong size (message in
 *   c->err). GNN_ERR_UNSUPPORTED: ops lacks the op. */
gnn_status gnn_distagg_setup(const gnn_distagg_ops *ops, const gnn_csr *g, const int32_t *part, int64_t k,
                             int64_t rank, const gnn_commplan *plan, gnn_distagg *out, gnn_err *err);
gnn_status gnn_distagg_forward(const gnn_distagg_ops *ops, gnn_comm *c, const gnn_distagg *da, const float *x,
                               int64_t d, gnn_agg_kind kind, const gnn_quant_cfg *q, float *out);
gnn_status gnn_distagg_backward(const gnn_distagg_ops *ops, gnn_comm *c, const gnn_distagg *da, const float *dout,
                                int64_t d, gnn_agg_kind kind, const gnn_quant_cfg *q, float *dx);
void gnn_distagg_free(gnn_distagg *da);

/* The reference setup (ref/distagg.c), which the cpu table shares: setup is once per run. */
gnn_status gnn_distagg_setup_ref(const gnn_csr *g, const int32_t *part, int64_t k, int64_t rank,
                                 const gnn_commplan *plan, gnn_distagg *out);
/* Is the cut edge u -> v (owners i -> j) post in plan? 1 post, 0 pre, -1 when the plan does not
 * list it (unchecked: i, j < plan->k). */
int gnn_distagg_edge_post(const gnn_commplan *plan, int64_t i, int64_t j, int64_t u, int64_t v);

/* ---- the exchange that ref and cpu share (core/dist/distagg_xchg.c; unchecked) ----
 * Rows grouped by peer rank: off (k + 1), npost (k) post rows first, gid (rows) their keys. */
typedef struct gnn_distagg_rows {
    const int64_t *off, *npost, *gid;
} gnn_distagg_rows;
typedef struct gnn_distagg_xchg {
    uint8_t *sbuf;          /* the packed message (stays unchanged until the wait) */
    int64_t *scounts, *sdispls;
    gnn_comm_req *req;
    int64_t row_bytes;
    int bits;
    double posted_s;        /* when the post returned (with da->times) */
} gnn_distagg_xchg;
/* Pack rows (send.off[k], d) by send's layout with quant (bits 32 when q is NULL) and post the
 * ialltoallv on da->tag; dir 0 forward, 1 backward. On error nothing is left allocated. */
gnn_status gnn_distagg_xchg_post(gnn_comm *c, const gnn_distagg *da, const gnn_quant_ops *quant, gnn_distagg_rows send,
                                 const float *rows, int64_t d, const gnn_quant_cfg *q, unsigned dir,
                                 gnn_distagg_xchg *x);
/* Wait, check every segment against recv's layout, unpack into rows (recv.off[k], d), free. */
gnn_status gnn_distagg_xchg_finish(gnn_comm *c, const gnn_distagg *da, const gnn_quant_ops *quant,
                                   gnn_distagg_rows recv, int64_t d, gnn_distagg_xchg *x, float *rows);

#ifdef __cplusplus
}
#endif
#endif
