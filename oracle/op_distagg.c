/* oracle/op_distagg.c -- oracle entries for SuperGCN's distributed aggregation
 * (include/gnnref/distagg.h, docs/distagg.md), run SPMD under the simulator (gnn_sim_run) at 1
 * to 8 ranks, the implementation at 1, 2 and 4 OpenMP threads per rank.
 *
 *   distagg.fwd, distagg.bwd  on every rank, in one simulated run:
 *     1. ref vs the implementation, bitwise (fp32, and quantized when bits < 32);
 *     2. fp32 against single-rank aggregation (gnn_aggregate_ref on gnn_block_full of the whole
 *        graph, forward or backward) within the summation-order bound below; with one rank,
 *        bitwise (every edge is local, in the single-rank order);
 *     3. quantized: against the single-rank result within the quantization bound below plus
 *        the summation-order bound;
 *     4. the bytes each call put on the communicator (its traffic accounting, ialltoallv, per
 *        destination) equal the plan's rows of the pair times gnn_quant_row_bytes(d, bits)
 *        exactly (forward rows(i -> j), backward rows(j -> i)), one message per non-empty pair.
 *
 * The summation-order bound. Distributed and single-rank aggregation add the same products in a
 * different order (local edges, then the rank blocks, pre rows as one addend). Any order of
 * adding n terms is within (n - 1) 2^-24 sum|t| of the exact sum (Higham, Accuracy and
 * Stability, 4.2), so the two within 2 (n + 1) 2^-24 S, S = sum|t| (computed by gnn_aggregate_ref
 * on |x|), n the row's degree (in-degree forward, out-degree backward); the +1 covers MEAN's
 * final multiply. The quantization bound. A received row with max |value| A has range <= 2A;
 * Z is rounded down and S up to bf16 (< 2^-7 relative each), so S <= 2.03 A / M < 2.1 A / M (M = 2^b - 1),
 * and every decoded element is within S of its value (quant.h). A row's error reaches the
 * output times its coefficient: each post row once per edge, each pre row once (its A from the
 * sum of |c x| over its sources, an upper bound of the partial sum's magnitude).
 *
 * Inputs: R-MAT (gen=0) or a 4-class SBM (gen=1), optionally with repeated edges and self-loops
 * (dup=1); the part vector by gnn_partition_assign (method 0 random, 1 range, 2 hash, 3 metis),
 * or 4: range over ranks - 1 parts (the last rank owns nothing), 5: everything on rank 0 (no
 * cut edges); the plan by gnn_commplan_ref; x (or dout) with spread exponents. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/aggregate.h"
#include "gnnref/commplan.h"
#include "gnnref/crc32c.h"
#include "gnnref/distagg.h"
#include "gnnref/oracle.h"
#include "gnnref/partition.h"
#include "gnnref/sim.h"
#include "gnnref/tensor.h"
#include "oracle/comm_spmd.h"

extern const gnn_oracle_entry gnn_oracle_distagg_bwd;

#define MAX_RANKS 8

/* ranks first: gnnref commcheck runs the presets whose parameter 0 is its rank count */
enum { P_RANKS, P_GEN, P_SCALE, P_EF, P_METHOD, P_PLAN, P_KIND, P_D, P_BITS, P_ROUND, P_DUP, N_PARAMS };
static const gnn_oracle_param k_params[N_PARAMS] = {
    { "ranks", GNN_PARAM_INT, 1, MAX_RANKS, "simulated ranks = parts" },
    { "gen", GNN_PARAM_INT, 0, 1, "graph: 0 R-MAT (Graph500), 1 SBM (4 classes)" },
    { "scale", GNN_PARAM_INT, 1, 14, "2^scale vertices" },
    { "ef", GNN_PARAM_INT, 1, 64, "edge factor (R-MAT) or average degree (SBM)" },
    { "method", GNN_PARAM_INT, 0, 5,
      "part vector: 0 random, 1 range, 2 hash, 3 metis, 4 range over ranks-1 (last rank empty), 5 all on rank 0" },
    { "plan", GNN_PARAM_INT, 0, 3, "0 pre, 1 post, 2 hybrid, 3 degree" },
    { "kind", GNN_PARAM_INT, 0, 2, "0 mean, 1 sum, 2 gcn" },
    { "d", GNN_PARAM_INT, 0, 1024, "row width" },
    { "bits", GNN_PARAM_INT, 2, 32, "2, 4, 8 (quantized rows) or 32 (fp32)" },
    { "round", GNN_PARAM_INT, 0, 1, "0 stochastic, 1 nearest" },
    { "dup", GNN_PARAM_INT, 0, 1, "1: repeat every third edge and add a self-loop on every fifth vertex" },
};

typedef struct input {
    gnn_dataset ds;      /* the generated graph */
    gnn_csr dup;         /* with repeated edges and self-loops (dup=1) */
    const gnn_csr *g;    /* ds.graph or dup */
    int32_t *part;
    int64_t k;
    gnn_commplan plan;
} input;

static void input_free(input *in)
{
    gnn_commplan_free(&in->plan);
    gnn_free(in->part);
    gnn_csr_free(&in->dup);
    gnn_dataset_free(&in->ds);
    memset(in, 0, sizeof *in);
}

/* repeated edges (every third edge again) and self-loops (every fifth vertex): the multiplicity
 * a plan of distinct edges must still honour */
static gnn_status with_repeats(const gnn_csr *g, gnn_csr *h, gnn_err *err)
{
    const int64_t n = g->n, m = g->nnz + g->nnz / 3 + n / 5 + 1;
    int64_t *src = gnn_malloc(sizeof(int64_t) * (size_t)m), *dst = gnn_malloc(sizeof(int64_t) * (size_t)m);
    gnn_status st = GNN_ERR_NOMEM;
    if (src && dst) {
        int64_t at = 0;
        for (int64_t v = 0; v < n; v++)
            for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
                src[at] = g->indices[e], dst[at++] = v;
                if (e % 3 == 0)
                    src[at] = g->indices[e], dst[at++] = v;
            }
        for (int64_t v = 0; v < n; v += 5)
            src[at] = v, dst[at++] = v;
        st = gnn_csr_from_edges(h, n, at, src, dst, 0, err);
    }
    gnn_free(src);
    gnn_free(dst);
    return st;
}

/* The case's graph, part vector and plan, without an oracle context (the simulated run and
 * gnnref commcheck's SPMD body, on every rank of an mpirun, build the same). On failure err
 * says why and in is left empty. */
static gnn_status input_build(const gnn_oracle_case *c, input *in, gnn_err *err)
{
    memset(in, 0, sizeof *in);
    gnn_status st = gnn_oracle_case_dataset(&in->ds, (int)gnn_oracle_int(c, P_GEN), (int)gnn_oracle_int(c, P_SCALE),
                                            gnn_oracle_int(c, P_EF), c->seed * 0x9E3779B97F4A7C15ull + 43, err);
    in->g = &in->ds.graph;
    if (!st && gnn_oracle_int(c, P_DUP) && !(st = with_repeats(in->g, &in->dup, err)))
        in->g = &in->dup;
    const int64_t n = in->g->n, method = gnn_oracle_int(c, P_METHOD);
    in->k = gnn_oracle_int(c, P_RANKS);
    if (!st && !(in->part = gnn_malloc(((size_t)n + 1) * sizeof(int32_t))))
        st = gnn_err_set(err, GNN_ERR_NOMEM, "out of memory");
    if (!st)
        st = gnn_oracle_case_parts(in->g, (int)method, in->k, c->seed, in->part, err);
    if (!st)
        st = gnn_commplan_build(&gnn_commplan_ref, in->g, in->part, in->k, (gnn_plan_kind)gnn_oracle_int(c, P_PLAN),
                                &in->plan, err);
    if (st)
        input_free(in);
    return st;
}

static void free_input(void *p) { input_free(p); }
static void free_block(void *p) { gnn_block_free(p); }

static gnn_oracle_outcome make_input(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, input **out)
{
    input *in = gnn_oracle_alloc(ctx, sizeof *in);
    if (!in)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_err err = { "" };
    const gnn_status st = input_build(c, in, &err);
    if (st)
        return gnn_oracle_fail(ctx, "the case's input: %s (%s)", gnn_status_str(st), err.msg);
    gnn_oracle_defer(ctx, free_input, in);
    *out = in;
    return GNN_ORACLE_PASS;
}

/* ---- the simulated run ----------------------------------------------------------------------- */

enum { CALL_REF32, CALL_IMPL32, CALL_REFQ, CALL_IMPLQ, N_CALLS };

typedef struct job {
    const input *in;
    int64_t d;
    gnn_agg_kind kind;
    int bwd, bits;
    gnn_quant_cfg q;
    const gnn_distagg_ops *ref, *impl;
    const float *x;                       /* (n, d) the global input: x, or dout */
    int64_t n_own[MAX_RANKS];
    float *out[N_CALLS][MAX_RANKS];       /* (n_own, d) per call and rank */
    int64_t bytes[N_CALLS][MAX_RANKS][MAX_RANKS], msgs[N_CALLS][MAX_RANKS][MAX_RANKS];
} job;

static gnn_status one_call(gnn_comm *c, job *J, const gnn_distagg *da, int call, const float *xl)
{
    const int r = c->rank, P = c->size;
    const int64_t *B = c->traffic.bytes + (size_t)GNN_COMM_IALLTOALLV * (size_t)P;
    const int64_t *M = c->traffic.msgs + (size_t)GNN_COMM_IALLTOALLV * (size_t)P;
    int64_t b0[MAX_RANKS], m0[MAX_RANKS];
    for (int q = 0; q < P; q++)
        b0[q] = B[q], m0[q] = M[q];
    const gnn_distagg_ops *ops = call == CALL_REF32 || call == CALL_REFQ ? J->ref : J->impl;
    gnn_quant_cfg q32 = J->q;
    q32.bits = 32;
    const gnn_quant_cfg *q = call == CALL_REF32 ? NULL : call == CALL_IMPL32 ? &q32 : &J->q;
    const gnn_status st = J->bwd ? gnn_distagg_backward(ops, c, da, xl, J->d, J->kind, q, J->out[call][r])
                                 : gnn_distagg_forward(ops, c, da, xl, J->d, J->kind, q, J->out[call][r]);
    if (st)
        return gnn_err_set(&c->err, st, "%s %s: %s", ops->name, J->bwd ? "backward" : "forward", c->err.msg);
    for (int q2 = 0; q2 < P; q2++)
        J->bytes[call][r][q2] = B[q2] - b0[q2], J->msgs[call][r][q2] = M[q2] - m0[q2];
    return GNN_OK;
}

static gnn_status rank_fn(gnn_comm *c, void *arg)
{
    job *J = arg;
    const int r = c->rank;
    const input *in = J->in;
    gnn_distagg A, B;
    gnn_status st = gnn_distagg_setup(J->ref, in->g, in->part, in->k, r, &in->plan, &A, &c->err);
    if (st)
        return st;
    if ((st = gnn_distagg_setup(J->impl, in->g, in->part, in->k, r, &in->plan, &B, &c->err))) {
        gnn_distagg_free(&A);
        return st;
    }
    float *xl = gnn_malloc_array((size_t)(A.n_own * J->d) + 1, sizeof(float));
    if (!xl || A.n_own != J->n_own[r] || B.n_own != A.n_own)
        st = xl ? gnn_err_set(&c->err, GNN_ERR_MISMATCH, "rank %d owns %lld rows (impl %lld); the part vector gives "
                              "%lld", r, (long long)A.n_own, (long long)B.n_own, (long long)J->n_own[r])
                : GNN_ERR_NOMEM;
    for (int64_t l = 0; !st && l < A.n_own; l++)
        memcpy(xl + l * J->d, J->x + A.own_gid[l] * J->d, sizeof(float) * (size_t)J->d);
    for (int call = 0; call < N_CALLS && !st; call++)
        if (J->bits < 32 || call < CALL_REFQ)
            st = one_call(c, J, call == CALL_REF32 || call == CALL_REFQ ? &A : &B, call, xl);
    gnn_free(xl);
    gnn_distagg_free(&A);
    gnn_distagg_free(&B);
    return st;
}

/* ---- the checks after the run ---------------------------------------------------------------- */

/* per output row (global id): the quantization error bound (a row scalar) */
static gnn_oracle_outcome quant_bounds(gnn_oracle_ctx *ctx, const input *in, const job *J, double *qerr)
{
    const gnn_csr *g = in->g;
    const int64_t n = g->n, k = in->k, d = J->d;
    const double M = (double)((1 << J->bits) - 1), ef = 2.1 / M + 1e-6;
    int64_t *dout = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(n + 1));
    double *grp = gnn_oracle_alloc(ctx, sizeof(double) * (size_t)(n * k * d + 1));
    uint8_t *used = gnn_oracle_alloc(ctx, (size_t)(n * k + 1));
    if (!dout || !grp || !used)
        return gnn_oracle_fail(ctx, "out of memory");
    for (int64_t e = 0; e < g->nnz; e++)
        dout[g->indices[e]]++;
    memset(qerr, 0, sizeof(double) * (size_t)n);
    for (int64_t v = 0; v < n; v++)
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
            const int64_t u = g->indices[e];
            if (in->part[u] == in->part[v])
                continue;
            const int post = gnn_distagg_edge_post(&in->plan, in->part[u], in->part[v], u, v);
            if (post < 0)
                return gnn_oracle_fail(ctx, "the plan lacks cut edge %lld -> %lld", (long long)u, (long long)v);
            const double din = (double)gnn_csr_degree(g, v);
            const double coef = J->kind == GNN_AGG_GCN ? 1.0 / sqrt((double)dout[u]) / sqrt(din)
                                : J->kind == GNN_AGG_MEAN && J->bwd ? 1.0 / din : 1.0;
            /* forward: output v, input row u; backward: output u, input row v (dout) */
            const int64_t w = J->bwd ? u : v, a = J->bwd ? v : u, peer = J->bwd ? in->part[v] : in->part[u];
            const int direct = J->bwd ? !post : post; /* the input row travels as it is */
            const float *row = J->x + a * d;
            if (direct) {
                double A = 0;
                for (int64_t f = 0; f < d; f++)
                    A = fmax(A, fabs((double)row[f]));
                qerr[w] += coef * A * ef;
            } else {
                double *G = grp + (w * k + peer) * d;
                used[w * k + peer] = 1;
                for (int64_t f = 0; f < d; f++)
                    G[f] += coef * fabs((double)row[f]);
            }
        }
    for (int64_t w = 0; w < n; w++) {
        for (int64_t p = 0; p < k; p++)
            if (used[w * k + p]) {
                double A = 0;
                for (int64_t f = 0; f < d; f++)
                    A = fmax(A, grp[(w * k + p) * d + f]);
                qerr[w] += A * ef;
            }
        if (!J->bwd && J->kind == GNN_AGG_MEAN && gnn_csr_degree(g, w) > 0)
            qerr[w] /= (double)gnn_csr_degree(g, w);
    }
    return GNN_ORACLE_PASS;
}

/* |got - want| <= qerr + 2 (deg + 1) 2^-24 (S + qerr) for every element of rank r's rows */
static gnn_oracle_outcome within_bound(gnn_oracle_ctx *ctx, const char *name, int r, const int64_t *gids,
                                       int64_t n_own, int64_t d, const float *got, const float *want, const float *sabs,
                                       const int64_t *deg, const double *qerr, double *worst)
{
    for (int64_t l = 0; l < n_own; l++) {
        const int64_t v = gids[l];
        const double q = qerr ? qerr[v] : 0.0;
        for (int64_t f = 0; f < d; f++) {
            const double gv = got[l * d + f], wv = want[v * d + f];
            const double bound = q + 2.0 * (double)(deg[v] + 1) * 0x1p-24 * ((double)sabs[v * d + f] + q) + 1e-35;
            *worst = fmax(*worst, fabs(gv - wv) / bound);
            if (!(fabs(gv - wv) <= bound))
                return gnn_oracle_fail(ctx,
                                       "%s: rank %d, vertex %lld, feature %lld: %.9g, single-rank %.9g, |diff| %.3g > "
                                       "bound %.3g (degree %lld, sum|terms| %.6g, quantization %.3g)",
                                       name, r, (long long)v, (long long)f, gv, wv, fabs(gv - wv), bound,
                                       (long long)deg[v], (double)sabs[v * d + f], q);
        }
    }
    return GNN_ORACLE_PASS;
}

/* the plan's bytes: rows of the pair (forward i -> j, backward j -> i) times the row bytes */
static gnn_oracle_outcome check_bytes(gnn_oracle_ctx *ctx, const input *in, const job *J, int call, int bits,
                                      int64_t *total_rows, int64_t *total_bytes)
{
    const int64_t P = in->k, rb = gnn_quant_row_bytes(J->d, bits);
    for (int64_t i = 0; i < P; i++)
        for (int64_t j = 0; j < P; j++) {
            const int64_t rows = i == j ? 0 : J->bwd ? gnn_commplan_rows(&in->plan, j * P + i)
                                                     : gnn_commplan_rows(&in->plan, i * P + j);
            const int64_t got = J->bytes[call][i][j], want = rows * rb, msgs = J->msgs[call][i][j];
            if (got != want || msgs != (want > 0))
                return gnn_oracle_fail(ctx,
                                       "call %d (%d bits): rank %lld sent rank %lld %lld bytes in %lld messages; the "
                                       "plan gives %lld rows x %lld bytes = %lld in %d", call, bits, (long long)i,
                                       (long long)j, (long long)got, (long long)msgs, (long long)rows, (long long)rb,
                                       (long long)want, want > 0);
            *total_rows += rows;
            *total_bytes += got;
        }
    return GNN_ORACLE_PASS;
}

/* single-rank expectation on the whole graph: want and S = the same with |x| (sum|terms|) */
static gnn_oracle_outcome single_rank(gnn_oracle_ctx *ctx, const input *in, const job *J, float *want, float *sabs)
{
    const int64_t n = in->g->n, d = J->d;
    gnn_block *blk = gnn_oracle_alloc(ctx, sizeof *blk);
    float *ax = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(n * d + 1));
    if (!blk || !ax)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_status st = gnn_block_full(blk, in->g);
    if (st)
        return gnn_oracle_fail(ctx, "gnn_block_full: %s", gnn_status_str(st));
    gnn_oracle_defer(ctx, free_block, blk);
    for (int64_t i = 0; i < n * d; i++)
        ax[i] = fabsf(J->x[i]);
    if (J->bwd) {
        st = gnn_aggregate_backward(&gnn_aggregate_ref, blk, J->x, d, J->kind, want);
        if (!st)
            st = gnn_aggregate_backward(&gnn_aggregate_ref, blk, ax, d, J->kind, sabs);
    } else {
        st = gnn_aggregate_forward(&gnn_aggregate_ref, blk, J->x, d, J->kind, want);
        if (!st)
            st = gnn_aggregate_forward(&gnn_aggregate_ref, blk, ax, d, J->kind, sabs);
    }
    return st ? gnn_oracle_fail(ctx, "single-rank gnn_aggregate_ref: %s", gnn_status_str(st)) : GNN_ORACLE_PASS;
}

/* worst[0], worst[1]: the largest |diff| / bound seen, fp32 and quantized */
static gnn_oracle_outcome check_rank(gnn_oracle_ctx *ctx, const input *in, const job *J, int r, const int64_t *gids,
                                     const float *want, const float *sabs, const int64_t *deg, const double *qerr,
                                     double worst[2])
{
    const int64_t m = J->n_own[r], d = J->d;
    char name[96];
    const gnn_oracle_tol bitwise = { GNN_CMP_BITWISE, 0, 0 };
    gnn_oracle_digest(ctx, J->out[CALL_IMPL32][r], sizeof(float) * (size_t)(m * d));
    snprintf(name, sizeof name, "rank[%d].fp32 (ref vs %s)", r, J->impl->name);
    gnn_oracle_outcome o = gnn_oracle_compare_f32(ctx, &bitwise, name, J->out[CALL_REF32][r], J->out[CALL_IMPL32][r],
                                                  m * d, d);
    if (o == GNN_ORACLE_PASS && J->bits < 32) {
        gnn_oracle_digest(ctx, J->out[CALL_IMPLQ][r], sizeof(float) * (size_t)(m * d));
        snprintf(name, sizeof name, "rank[%d].int%d (ref vs %s)", r, J->bits, J->impl->name);
        o = gnn_oracle_compare_f32(ctx, &bitwise, name, J->out[CALL_REFQ][r], J->out[CALL_IMPLQ][r], m * d, d);
    }
    if (o != GNN_ORACLE_PASS)
        return o;
    /* one rank: every edge is local, in the single-rank order: the same bits */
    for (int call = 0; in->k == 1 && call < N_CALLS; call++)
        if (J->bits < 32 || call < CALL_REFQ)
            for (int64_t i = 0; i < m * d; i++)
                if (memcmp(&J->out[call][r][i], &want[gids[i / (d ? d : 1)] * d + i % d], sizeof(float)))
                    return gnn_oracle_fail(ctx, "one rank, call %d: element %lld is %.9g, single-rank %.9g (bitwise)",
                                           call, (long long)i, J->out[call][r][i], want[gids[i / d] * d + i % d]);
    o = within_bound(ctx, "fp32 vs single-rank", r, gids, m, d, J->out[CALL_REF32][r], want, sabs, deg, NULL,
                     &worst[0]);
    if (o == GNN_ORACLE_PASS && J->bits < 32)
        o = within_bound(ctx, "quantized vs single-rank", r, gids, m, d, J->out[CALL_REFQ][r], want, sabs, deg, qerr,
                         &worst[1]);
    return o;
}

static gnn_oracle_outcome run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int bwd)
{
    input *in = NULL;
    gnn_oracle_outcome o = make_input(ctx, c, &in);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int bits = (int)gnn_oracle_int(c, P_BITS);
    if (bits != 2 && bits != 4 && bits != 8 && bits != 32)
        return gnn_oracle_fail(ctx, "invalid case: bits=%d (expected 2, 4, 8 or 32)", bits);
    const gnn_csr *g = in->g;
    const int64_t n = g->n, d = gnn_oracle_int(c, P_D);
    const int P = (int)in->k;
    job *J = gnn_oracle_alloc(ctx, sizeof *J);
    float *x = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(n * d + 1));
    float *want = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(n * d + 1));
    float *sabs = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(n * d + 1));
    int64_t *gids = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(n + 1));
    int64_t *deg = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(n + 1));
    double *qerr = gnn_oracle_alloc(ctx, sizeof(double) * (size_t)(n + 1));
    if (!J || !x || !want || !sabs || !gids || !deg || !qerr)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws dx = gnn_oracle_draws_make(c, 1);
    gnn_oracle_fill_spread(&dx, x, n * d);
    *J = (job){ .in = in, .d = d, .kind = (gnn_agg_kind)gnn_oracle_int(c, P_KIND), .bwd = bwd, .bits = bits,
                .ref = c->entry->ref->ops, .impl = c->impl->ops, .x = x };
    J->q = (gnn_quant_cfg){ .bits = bits, .round = (gnn_quant_round)gnn_oracle_int(c, P_ROUND), .seed = c->seed,
                            .step = 3, .layer = 1 };
    for (int64_t v = 0; v < n; v++)
        J->n_own[in->part[v]]++;
    for (int call = 0; call < N_CALLS; call++)
        for (int r = 0; r < P; r++)
            if (!(J->out[call][r] = gnn_oracle_alloc_out(ctx, "out", sizeof(float) * (size_t)(J->n_own[r] * d))))
                return gnn_oracle_fail(ctx, "out of memory");
    if ((o = single_rank(ctx, in, J, want, sabs)) != GNN_ORACLE_PASS)
        return o;
    for (int64_t e = 0; e < g->nnz; e++)
        deg[g->indices[e]] += bwd; /* backward: out-degree */
    for (int64_t v = 0; v < n && !bwd; v++)
        deg[v] = gnn_csr_degree(g, v);
    if (bits < 32 && (o = quant_bounds(ctx, in, J, qerr)) != GNN_ORACLE_PASS)
        return o;

    gnn_sim_config cfg;
    gnn_sim_defaults(&cfg);
    cfg.ranks = P;
    cfg.timeout_s = 60;
    cfg.threads_per_rank = c->threads > 0 ? c->threads : 1;
    gnn_err err = { "" };
    const gnn_status st = gnn_sim_run(&cfg, rank_fn, J, NULL, &err);
    if (st)
        return gnn_oracle_fail(ctx, "simulated run on %d ranks: %s (%s)", P, gnn_status_str(st), err.msg);

    int64_t rows = 0, bytes32 = 0, bytesq = 0;
    for (int call = 0; call < N_CALLS; call++)
        if (bits < 32 || call < CALL_REFQ) {
            int64_t tr = 0, tb = 0;
            if ((o = check_bytes(ctx, in, J, call, call < CALL_REFQ ? 32 : bits, &tr, &tb)) != GNN_ORACLE_PASS)
                return o;
            if (call == CALL_REF32)
                rows = tr, bytes32 = tb;
            if (call == CALL_REFQ)
                bytesq = tb;
        }
    double worst[2] = { 0, 0 };
    for (int r = 0; r < P; r++) {
        int64_t m = 0;
        for (int64_t v = 0; v < n; v++)
            if (in->part[v] == r)
                gids[m++] = v;
        if ((o = check_rank(ctx, in, J, r, gids, want, sabs, deg, qerr, worst)) != GNN_ORACLE_PASS)
            return o;
    }
    if (bits < 32)
        gnn_oracle_note(ctx, "%d ranks, %s plan: %lld cut edges, %lld rows; bytes: fp32 %lld, int%d %lld; worst "
                        "|diff|/bound fp32 %.3f, int%d %.3f", P, gnn_plan_kind_name(in->plan.kind),
                        (long long)in->plan.n_edges, (long long)rows, (long long)bytes32, bits, (long long)bytesq,
                        worst[0], bits, worst[1]);
    else
        gnn_oracle_note(ctx, "%d ranks, %s plan: %lld cut edges, %lld rows; bytes: fp32 %lld; worst |diff|/bound %.3f",
                        P, gnn_plan_kind_name(in->plan.kind), (long long)in->plan.n_edges, (long long)rows,
                        (long long)bytes32, worst[0]);
    return GNN_ORACLE_PASS;
}

/* ---- gnnref commcheck: the same calls on any communicator ---------------------------------- */

/* One rank of a case of distagg.fwd or distagg.bwd (the case's entry says which) on
 * communicator c (c->size == the case's ranks): ref and cpu, at fp32 and at the case's bits.
 * pass: ref and cpu agree bitwise on this rank and every pair's bytes are the plan's; crc:
 * CRC32C of the cpu outputs in call order, which ci/mpi-check.sh compares between the
 * simulator and mpirun (oracle/comm_spmd.h). */
gnn_status gnn_oracle_distagg_rank(gnn_comm *c, const gnn_oracle_case *cs, gnn_comm_spmd_result *out)
{
    input in;
    gnn_err err = { "" };
    /* one rank at a time: under the simulator the ranks are threads of one process, and METIS
     * 5.1 (its GKlib) is not safe to call from several threads at once (concurrent calls gave
     * the ranks different part vectors); under mpirun each process builds its own */
    static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&build_lock);
    gnn_status st = input_build(cs, &in, &err);
    pthread_mutex_unlock(&build_lock);
    if (st)
        return gnn_err_set(&c->err, st, "distagg case input: %s", err.msg);
    const int bits = (int)gnn_oracle_int(cs, P_BITS);
    const int64_t n = in.g->n, d = gnn_oracle_int(cs, P_D);
    const gnn_agg_kind kind = (gnn_agg_kind)gnn_oracle_int(cs, P_KIND);
    const gnn_quant_cfg q = { .bits = bits, .round = (gnn_quant_round)gnn_oracle_int(cs, P_ROUND), .seed = cs->seed,
                              .step = 3, .layer = 1 };
    float *x = gnn_malloc_array((size_t)(n * d) + 1, sizeof(float));
    float *xl = NULL, *o_ref = NULL, *o_cpu = NULL;
    gnn_distagg A, B;
    memset(&A, 0, sizeof A);
    memset(&B, 0, sizeof B);
    if (!x) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    gnn_oracle_draws dx = gnn_oracle_draws_make(cs, 1);
    gnn_oracle_fill_spread(&dx, x, n * d);
    if ((st = gnn_distagg_setup(&gnn_distagg_ref, in.g, in.part, in.k, c->rank, &in.plan, &A, &c->err)) ||
        (st = gnn_distagg_setup(&gnn_distagg_cpu, in.g, in.part, in.k, c->rank, &in.plan, &B, &c->err)))
        goto done;
    const int64_t m = A.n_own;
    xl = gnn_malloc_array((size_t)(m * d) + 1, sizeof(float));
    o_ref = gnn_malloc_array((size_t)(m * d) + 1, sizeof(float));
    o_cpu = gnn_malloc_array((size_t)(m * d) + 1, sizeof(float));
    if (!xl || !o_ref || !o_cpu) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    for (int64_t l = 0; l < m; l++)
        memcpy(xl + l * d, x + A.own_gid[l] * d, sizeof(float) * (size_t)d);
    uint32_t crc = 0;
    const int P = c->size;
    const int64_t *B0 = c->traffic.bytes + (size_t)GNN_COMM_IALLTOALLV * (size_t)P;
    const int bwd = cs->entry == &gnn_oracle_distagg_bwd;
    for (int call = 0; call < 2 && !st; call++) {
        const int b = call ? bits : 32;
        gnn_quant_cfg qc = q;
        qc.bits = b;
        for (int impl = 0; impl < 2 && !st; impl++) {
            int64_t before[MAX_RANKS];
            for (int r = 0; r < P; r++)
                before[r] = B0[r];
            const gnn_distagg_ops *ops = impl ? &gnn_distagg_cpu : &gnn_distagg_ref;
            const gnn_distagg *da = impl ? &B : &A;
            float *o = impl ? o_cpu : o_ref;
            st = bwd ? gnn_distagg_backward(ops, c, da, xl, d, kind, &qc, o)
                     : gnn_distagg_forward(ops, c, da, xl, d, kind, &qc, o);
            for (int r = 0; r < P && !st && out->pass; r++) {
                const int64_t rows = r == c->rank ? 0 : bwd ? gnn_commplan_rows(&in.plan, (int64_t)r * P + c->rank)
                                                            : gnn_commplan_rows(&in.plan, (int64_t)c->rank * P + r);
                const int64_t want = rows * gnn_quant_row_bytes(d, b), got = B0[r] - before[r];
                if (got != want) {
                    out->pass = 0;
                    snprintf(out->detail, sizeof out->detail, "%s %s int%d: rank %d sent rank %d %lld bytes, the "
                             "plan gives %lld", ops->name, bwd ? "backward" : "forward", b, c->rank, r,
                             (long long)got, (long long)want);
                }
            }
        }
        if (st)
            break;
        if (out->pass && memcmp(o_ref, o_cpu, sizeof(float) * (size_t)(m * d))) {
            out->pass = 0;
            snprintf(out->detail, sizeof out->detail, "%s int%d: ref and cpu differ on rank %d",
                     bwd ? "backward" : "forward", b, c->rank);
        }
        crc = gnn_crc32c(crc, o_cpu, sizeof(float) * (size_t)(m * d));
    }
    out->crc = crc;
done:
    gnn_free(x);
    gnn_free(xl);
    gnn_free(o_ref);
    gnn_free(o_cpu);
    gnn_distagg_free(&A);
    gnn_distagg_free(&B);
    input_free(&in);
    return st;
}

static gnn_oracle_outcome fwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c) { return run(ctx, c, 0); }
static gnn_oracle_outcome bwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c) { return run(ctx, c, 1); }

static const gnn_oracle_impl k_ref = { .name = "ref", .ops = &gnn_distagg_ref, .flags = 0 };
static const gnn_oracle_impl k_cpu = { .name = "cpu", .ops = &gnn_distagg_cpu, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_impls[] = { &k_ref, &k_cpu, NULL };

/* 1 to 5 ranks and 8; every plan and kind; fp32 and int2/4/8 both roundings; repeated edges and
 * self-loops; a rank that owns nothing (method 4), no cut edge (method 5), a 4-vertex graph,
 * d = 0 and d = 1; one rank (bitwise the single-rank result) */
static const char *const k_presets[] = {
    "gen=0,scale=8,ef=8,ranks=1,method=1,plan=2,kind=0,d=7,bits=32",
    "gen=1,scale=7,ef=6,ranks=1,method=1,plan=2,kind=2,d=5,bits=2,dup=1",
    "gen=1,scale=8,ef=6,ranks=2,method=3,plan=2,kind=0,d=16,bits=32",
    "gen=0,scale=8,ef=8,ranks=2,method=0,plan=0,kind=2,d=5,bits=32,dup=1",
    "gen=0,scale=8,ef=4,ranks=3,method=2,plan=1,kind=1,d=13,bits=32",
    "gen=1,scale=8,ef=8,ranks=4,method=3,plan=3,kind=2,d=8,bits=32",
    "gen=0,scale=8,ef=8,ranks=5,method=0,plan=2,kind=2,d=3,bits=32,dup=1",
    "gen=1,scale=9,ef=8,ranks=8,method=3,plan=2,kind=0,d=9,bits=32",
    "gen=0,scale=8,ef=8,ranks=4,method=2,plan=2,kind=0,d=16,bits=2",
    "gen=1,scale=8,ef=6,ranks=3,method=0,plan=0,kind=2,d=7,bits=4,round=1",
    "gen=1,scale=8,ef=6,ranks=5,method=3,plan=1,kind=1,d=12,bits=8",
    "gen=0,scale=8,ef=8,ranks=8,method=0,plan=3,kind=0,d=6,bits=2,dup=1",
    "gen=0,scale=7,ef=8,ranks=4,method=4,plan=2,kind=2,d=6,bits=32",
    "gen=1,scale=7,ef=6,ranks=3,method=5,plan=2,kind=0,d=4,bits=2",
    "gen=0,scale=2,ef=2,ranks=2,method=0,plan=2,kind=1,d=1,bits=32",
    "gen=1,scale=7,ef=6,ranks=4,method=0,plan=1,kind=1,d=0,bits=8",
    NULL,
};

#define DISTAGG_REASON                                                                                               \
    "ref vs cpu: bitwise (distagg.h fixes every order). Against single-rank aggregation: another float summation "  \
    "order of the same products (local edges, then the rank blocks, pre rows as one addend), so within "           \
    "2 (deg + 1) 2^-24 sum|terms| (Higham 4.2: any order is within (deg - 1) 2^-24 sum|terms| of the exact sum); "  \
    "one rank: bitwise; quantized: plus sum over received rows of |c| 2.1 A / (2^b - 1), A the row's max |value| " \
    "(quant.h: |h - h'| <= S); bytes: exactly the plan's rows x gnn_quant_row_bytes"

const gnn_oracle_entry gnn_oracle_distagg_fwd = {
    .name = "distagg.fwd",
    .what = "SuperGCN distributed aggregation forward under the simulator: ref vs cpu per rank, against single-rank "
            "gnn_aggregate_ref, the bytes of every pair against the plan (fp32 and int2/4/8)",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = DISTAGG_REASON,
    .params = k_params, .n_params = N_PARAMS, .presets = k_presets, .defaults = "round=0,dup=0",
    .ref = &k_ref, .impls = k_impls, .run = fwd_run,
};

const gnn_oracle_entry gnn_oracle_distagg_bwd = {
    .name = "distagg.bwd",
    .what = "SuperGCN distributed aggregation backward (the same rows the other way) under the simulator: ref vs cpu "
            "per rank, against single-rank gnn_aggregate_ref backward, the bytes of every pair against the plan",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = DISTAGG_REASON,
    .params = k_params, .n_params = N_PARAMS, .presets = k_presets, .defaults = "round=0,dup=0",
    .ref = &k_ref, .impls = k_impls, .run = bwd_run,
};
