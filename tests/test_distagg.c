/* tests/test_distagg.c -- SuperGCN's distributed aggregation (include/gnnref/distagg.h,
 * docs/distagg.md).
 *
 * The comparisons (ref vs cpu, against single-rank aggregation, bytes against the plan) run
 * from the registry (distagg.fwd, distagg.bwd); here: the paper's Fig. 2 worked through under
 * the simulator (hybrid: S1 sends S0 two rows, pre and post three; exact small-integer inputs,
 * so every plan gives the single-rank bits), mutants the oracle must catch, the entry points'
 * argument checks, and the implementation context. */
#include <check.h>
#include <math.h>
#include <string.h>
#include "gnnref/aggregate.h"
#include "gnnref/commplan.h"
#include "gnnref/distagg.h"
#include "gnnref/impl.h"
#include "gnnref/sim.h"
#include "gnnref/tensor.h"
#include "oracle_util.h"

static const gnn_distagg_ops *const k_impls[] = { &gnn_distagg_ref, &gnn_distagg_cpu, NULL };

/* Fig. 2: S0 owns 0..3, S1 owns 4..6; cut edges 4-1, 4-2, 4-3, 5-2, 6-2 both ways, local 0-3. */
static void fig2_graph(gnn_csr *g, int32_t part[7])
{
    static const int64_t src[] = { 0, 4, 4, 4, 5, 6 }, dst[] = { 3, 1, 2, 3, 2, 2 };
    gnn_err err;
    ck_assert_msg(gnn_csr_from_edges(g, 7, 6, src, dst, GNN_CSR_SYMMETRIZE, &err) == GNN_OK, "%s", err.msg);
    static const int32_t p[7] = { 0, 0, 0, 0, 1, 1, 1 };
    memcpy(part, p, sizeof p);
}

#define D 3

typedef struct fig2_job {
    const gnn_csr *g;
    const int32_t *part;
    const gnn_commplan *plan;
    const gnn_distagg_ops *ops;
    gnn_agg_kind kind;
    int bwd, bits;
    float x[7 * D];      /* global input */
    float out[7 * D];    /* by global id, each rank writes its own rows */
    int64_t bytes[2][2]; /* [src][dst] ialltoallv bytes of the one call */
} fig2_job;

static gnn_status fig2_rank(gnn_comm *c, void *arg)
{
    fig2_job *J = arg;
    const int r = c->rank;
    gnn_distagg da;
    gnn_status st = gnn_distagg_setup(J->ops, J->g, J->part, 2, r, J->plan, &da, &c->err);
    if (st)
        return st;
    float xl[7 * D], ol[7 * D];
    for (int64_t l = 0; l < da.n_own; l++)
        memcpy(xl + l * D, J->x + da.own_gid[l] * D, sizeof(float) * D);
    const int64_t *B = c->traffic.bytes + (size_t)GNN_COMM_IALLTOALLV * 2;
    const int64_t b0[2] = { B[0], B[1] };
    const gnn_quant_cfg q = { .bits = J->bits, .round = GNN_QUANT_NEAREST, .seed = 1 };
    st = J->bwd ? gnn_distagg_backward(J->ops, c, &da, xl, D, J->kind, &q, ol)
                : gnn_distagg_forward(J->ops, c, &da, xl, D, J->kind, &q, ol);
    for (int64_t l = 0; !st && l < da.n_own; l++)
        memcpy(J->out + da.own_gid[l] * D, ol + l * D, sizeof(float) * D);
    J->bytes[r][0] = B[0] - b0[0];
    J->bytes[r][1] = B[1] - b0[1];
    gnn_distagg_free(&da);
    return st;
}

static void fig2_run(fig2_job *J)
{
    gnn_sim_config cfg;
    gnn_sim_defaults(&cfg);
    cfg.ranks = 2;
    cfg.timeout_s = 30;
    gnn_err err = { "" };
    ck_assert_msg(gnn_sim_run(&cfg, fig2_rank, J, NULL, &err) == GNN_OK, "%s", err.msg);
}

/* every plan, MEAN and SUM, both directions on the Fig. 2 graph: the rows S1 sends S0
 * (forward) and S0 sends back (backward) are the plan's, 4 D bytes each; small-integer inputs
 * make every sum exact, so the result is single-rank aggregation's bits whatever the order
 * (MEAN's backward, whose terms are rounded, within 1e-6) */
START_TEST(fig2_exact)
{
    gnn_csr g;
    int32_t part[7];
    fig2_graph(&g, part);
    gnn_block blk;
    ck_assert_int_eq(gnn_block_full(&blk, &g), GNN_OK);
    static const int64_t want_rows10[GNN_PLAN_COUNT] = { 3, 3, 2, -1 }; /* pre, post, hybrid (the paper) */
    for (int pk = 0; pk < GNN_PLAN_COUNT; pk++) {
        gnn_commplan plan;
        gnn_err err;
        ck_assert_msg(gnn_commplan_build(&gnn_commplan_ref, &g, part, 2, (gnn_plan_kind)pk, &plan, &err) == GNN_OK,
                      "%s", err.msg);
        const int64_t rows10 = gnn_commplan_rows(&plan, 2), rows01 = gnn_commplan_rows(&plan, 1);
        if (want_rows10[pk] >= 0)
            ck_assert_int_eq(rows10, want_rows10[pk]);
        for (int i = 0; k_impls[i]; i++)
            for (int kind = 0; kind < 2; kind++) /* MEAN, SUM: exact on integers */
                for (int bwd = 0; bwd < 2; bwd++) {
                    fig2_job *J = gnn_calloc(1, sizeof *J);
                    *J = (fig2_job){ .g = &g, .part = part, .plan = &plan, .ops = k_impls[i],
                                     .kind = (gnn_agg_kind)kind, .bwd = bwd, .bits = 32 };
                    for (int e = 0; e < 7 * D; e++)
                        J->x[e] = (float)((e * 5) % 11) - 4.0f;
                    fig2_run(J);
                    float want[7 * D];
                    ck_assert_int_eq(bwd ? gnn_aggregate_backward(&gnn_aggregate_ref, &blk, J->x, D, J->kind, want)
                                         : gnn_aggregate_forward(&gnn_aggregate_ref, &blk, J->x, D, J->kind, want),
                                     GNN_OK);
                    /* MEAN's backward terms dout[v] * (1/deg v) are not exact: there the order shows */
                    const float tol = bwd && kind == GNN_AGG_MEAN ? 1e-6f : 0.0f;
                    for (int e = 0; e < 7 * D; e++)
                        ck_assert_msg(tol > 0 ? fabsf(want[e] - J->out[e]) <= tol * fabsf(want[e])
                                              : memcmp(&want[e], &J->out[e], sizeof(float)) == 0,
                                      "%s plan %d kind %d %s: element %d is %.9g, single-rank %.9g", k_impls[i]->name,
                                      pk, kind, bwd ? "backward" : "forward", e, J->out[e], want[e]);
                    /* forward: S1 -> S0 carries rows(1 -> 0); backward the same rows back */
                    ck_assert_int_eq(J->bytes[1][0], (bwd ? rows01 : rows10) * 4 * D);
                    ck_assert_int_eq(J->bytes[0][1], (bwd ? rows10 : rows01) * 4 * D);
                    ck_assert_int_eq(J->bytes[0][0] + J->bytes[1][1], 0);
                    gnn_free(J);
                }
        gnn_commplan_free(&plan);
    }
    gnn_block_free(&blk);
    gnn_csr_free(&g);
}
END_TEST

/* hybrid int2: S1 sends S0 the paper's two rows (h4 and p2 = h5 + h6), each ceil(3 * 2 / 8) + 4
 * = 5 bytes; rows constant at a small integer decode exactly (quant.h: S = 1, codes 0), and so
 * does p2, so the result is single-rank aggregation's bits */
START_TEST(fig2_int2_bytes)
{
    gnn_csr g;
    int32_t part[7];
    fig2_graph(&g, part);
    gnn_commplan plan;
    gnn_err err;
    ck_assert_int_eq(gnn_commplan_build(&gnn_commplan_ref, &g, part, 2, GNN_PLAN_HYBRID, &plan, &err), GNN_OK);
    gnn_block blk;
    ck_assert_int_eq(gnn_block_full(&blk, &g), GNN_OK);
    for (int i = 0; k_impls[i]; i++) {
        fig2_job *J = gnn_calloc(1, sizeof *J);
        *J = (fig2_job){ .g = &g, .part = &part[0], .plan = &plan, .ops = k_impls[i], .kind = GNN_AGG_SUM, .bits = 2 };
        for (int v = 0; v < 7; v++)
            for (int f = 0; f < D; f++)
                J->x[v * D + f] = (float)(v + 1);
        fig2_run(J);
        ck_assert_int_eq(gnn_quant_row_bytes(D, 2), 5);
        ck_assert_int_eq(J->bytes[1][0], 2 * 5);
        ck_assert_int_eq(J->bytes[0][1], gnn_commplan_rows(&plan, 1) * 5);
        float want[7 * D];
        ck_assert_int_eq(gnn_aggregate_forward(&gnn_aggregate_ref, &blk, J->x, D, GNN_AGG_SUM, want), GNN_OK);
        for (int e = 0; e < 7 * D; e++)
            ck_assert_msg(J->out[e] == want[e], "%s: element %d is %g, single-rank %g", k_impls[i]->name, e, J->out[e],
                          want[e]);
        gnn_free(J);
    }
    gnn_block_free(&blk);
    gnn_commplan_free(&plan);
    gnn_csr_free(&g);
}
END_TEST

/* a message lost on the wire (the simulator drops every asynchronous segment): the ranks stop
 * with GNN_ERR_COMM naming the missing rows, nothing hangs */
START_TEST(lost_segment)
{
    gnn_csr g;
    int32_t part[7];
    fig2_graph(&g, part);
    gnn_commplan plan;
    gnn_err err = { "" };
    ck_assert_int_eq(gnn_commplan_build(&gnn_commplan_ref, &g, part, 2, GNN_PLAN_HYBRID, &plan, &err), GNN_OK);
    fig2_job *J = gnn_calloc(1, sizeof *J);
    *J = (fig2_job){ .g = &g, .part = part, .plan = &plan, .ops = &gnn_distagg_ref, .kind = GNN_AGG_SUM, .bits = 32 };
    gnn_sim_config cfg;
    gnn_sim_defaults(&cfg);
    cfg.ranks = 2;
    cfg.timeout_s = 30;
    cfg.faults.seed = 5;
    cfg.faults.drop_p = 1.0;
    ck_assert_int_eq(gnn_sim_run(&cfg, fig2_rank, J, NULL, &err), GNN_ERR_COMM);
    ck_assert_msg(strstr(err.msg, "distagg: received 0 of"), "%s", err.msg);
    gnn_free(J);
    gnn_commplan_free(&plan);
    gnn_csr_free(&g);
}
END_TEST

/* ---- mutants ---- */

/* a forward one ulp off on one element: ref vs impl must fail bitwise */
static gnn_status ulp_forward(gnn_comm *c, const gnn_distagg *da, const float *x, int64_t d, gnn_agg_kind kind,
                              const gnn_quant_cfg *q, float *out)
{
    gnn_status st = gnn_distagg_ref.forward(c, da, x, d, kind, q, out);
    if (!st && da->n_own * d > 0)
        out[0] = nextafterf(out[0], INFINITY);
    return st;
}
/* MEAN over the local in-degree (a classic bug): wrong against single-rank aggregation */
static gnn_status local_mean_forward(gnn_comm *c, const gnn_distagg *da, const float *x, int64_t d, gnn_agg_kind kind,
                                     const gnn_quant_cfg *q, float *out)
{
    gnn_status st = gnn_distagg_ref.forward(c, da, x, d, kind, q, out);
    for (int64_t v = 0; !st && kind == GNN_AGG_MEAN && v < da->n_own; v++) {
        const int64_t loc = da->loc_ptr[v + 1] - da->loc_ptr[v];
        for (int64_t f = 0; loc > 0 && f < d; f++)
            out[v * d + f] *= (float)da->deg_in[v] / (float)loc;
    }
    return st;
}
/* quantization asked for, fp32 sent: the bytes are not the plan's */
static gnn_status fp32_forward(gnn_comm *c, const gnn_distagg *da, const float *x, int64_t d, gnn_agg_kind kind,
                               const gnn_quant_cfg *q, float *out)
{
    (void)q;
    return gnn_distagg_ref.forward(c, da, x, d, kind, NULL, out);
}
static const gnn_distagg_ops k_ulp = { .name = "ulp", .setup = gnn_distagg_setup_ref, .forward = ulp_forward,
                                       .backward = NULL };
static const gnn_distagg_ops k_local_mean = { .name = "local-mean", .setup = gnn_distagg_setup_ref,
                                              .forward = local_mean_forward };
static const gnn_distagg_ops k_fp32 = { .name = "fp32", .setup = gnn_distagg_setup_ref, .forward = fp32_forward };

/* Run distagg.fwd's presets with `impl` as both the reference and the implementation, so that
 * only the checks against single-rank aggregation and the plan can fail. */
static void run_self_ref(const gnn_oracle_impl *impl, tally *t)
{
    memset(t, 0, sizeof *t);
    const gnn_oracle_entry *e0 = gnn_oracle_find("distagg.fwd");
    ck_assert_ptr_nonnull(e0);
    gnn_oracle_entry e = *e0;
    const gnn_oracle_impl *impls[] = { impl, NULL };
    e.ref = impl;
    e.impls = impls;
    for (int p = 0; e.presets[p]; p++) {
        gnn_oracle_case c;
        gnn_err err;
        ck_assert_int_eq(gnn_oracle_case_init(&c, &e, impl, 0, e.presets[p], 1, &err), GNN_OK);
        gnn_oracle_result r;
        t->counts[gnn_oracle_run(&c, &r)]++;
        tally_visit(&c, &r, t);
    }
}

START_TEST(mutants_caught)
{
    tally t;
    run_with_impl("distagg.fwd", &(gnn_oracle_impl){ .name = "ulp", .ops = &k_ulp }, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] > 0, "distagg.fwd passed an implementation one ulp off ref");
    run_self_ref(&(gnn_oracle_impl){ .name = "local-mean", .ops = &k_local_mean }, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] > 0, "distagg.fwd passed a mean over local in-degrees");
    run_self_ref(&(gnn_oracle_impl){ .name = "fp32", .ops = &k_fp32 }, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] > 0, "distagg.fwd passed fp32 rows where int2/4/8 were asked for");
    run_self_ref(&(gnn_oracle_impl){ .name = "ref", .ops = &gnn_distagg_ref }, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] == 0, "%s", t.first_fail);
}
END_TEST

/* ---- argument checks ---- */

START_TEST(api_checks)
{
    gnn_csr g;
    int32_t part[7];
    fig2_graph(&g, part);
    gnn_commplan plan, plan3;
    gnn_err err;
    ck_assert_int_eq(gnn_commplan_build(&gnn_commplan_ref, &g, part, 2, GNN_PLAN_HYBRID, &plan, &err), GNN_OK);
    ck_assert_int_eq(gnn_commplan_build(&gnn_commplan_ref, &g, part, 3, GNN_PLAN_HYBRID, &plan3, &err), GNN_OK);
    gnn_distagg da;
    for (int i = 0; k_impls[i]; i++) {
        const gnn_distagg_ops *ops = k_impls[i];
        ck_assert_int_eq(gnn_distagg_setup(NULL, &g, part, 2, 0, &plan, &da, &err), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_distagg_setup(ops, NULL, part, 2, 0, &plan, &da, &err), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_distagg_setup(ops, &g, part, 2, 0, NULL, &da, &err), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_distagg_setup(ops, &g, part, 2, 2, &plan, &da, &err), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_distagg_setup(ops, &g, part, 0, 0, &plan, &da, &err), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_distagg_setup(ops, &g, NULL, 2, 0, &plan, &da, &err), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_distagg_setup(ops, &g, part, 3, 0, &plan, &da, &err), GNN_ERR_INVAL); /* plan's k is 2 */
        ck_assert_msg(strstr(err.msg, "the plan is for"), "%s", err.msg);
        int32_t bad[7];
        memcpy(bad, part, sizeof bad);
        bad[5] = 2;
        ck_assert_int_eq(gnn_distagg_setup(ops, &g, bad, 2, 0, &plan, &da, &err), GNN_ERR_RANGE);
        bad[5] = 1;
        bad[3] = 1; /* a part vector the plan was not made for: 0 -> 3 is cut now, and the plan lacks it */
        ck_assert_int_eq(gnn_distagg_setup(ops, &g, bad, 2, 0, &plan, &da, &err), GNN_ERR_INVAL);
        ck_assert_msg(strstr(err.msg, "is not in the plan"), "%s", err.msg);
        ck_assert_ptr_null(da.own_gid);

        /* forward / backward on one rank (the self communicator) */
        gnn_commplan plan1;
        const int32_t zero[7] = { 0 };
        ck_assert_int_eq(gnn_commplan_build(&gnn_commplan_ref, &g, zero, 1, GNN_PLAN_HYBRID, &plan1, &err), GNN_OK);
        ck_assert_int_eq(gnn_distagg_setup(ops, &g, zero, 1, 0, &plan1, &da, &err), GNN_OK);
        ck_assert_int_eq(da.n_own, 7);
        gnn_comm *c;
        ck_assert_int_eq(gnn_comm_self(&c), GNN_OK);
        float x[7 * D] = { 0 }, out[7 * D];
        ck_assert_int_eq(gnn_distagg_forward(ops, NULL, &da, x, D, GNN_AGG_SUM, NULL, out), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_distagg_forward(ops, c, NULL, x, D, GNN_AGG_SUM, NULL, out), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_distagg_forward(ops, c, &da, x, -1, GNN_AGG_SUM, NULL, out), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_distagg_forward(ops, c, &da, x, D, (gnn_agg_kind)7, NULL, out), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_distagg_forward(ops, c, &da, NULL, D, GNN_AGG_SUM, NULL, out), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_distagg_backward(ops, c, &da, x, D, GNN_AGG_SUM, NULL, NULL), GNN_ERR_INVAL);
        gnn_quant_cfg q = { .bits = 3 };
        ck_assert_int_eq(gnn_distagg_forward(ops, c, &da, x, D, GNN_AGG_SUM, &q, out), GNN_ERR_INVAL);
        q = (gnn_quant_cfg){ .bits = 2, .layer = 128 };
        ck_assert_int_eq(gnn_distagg_backward(ops, c, &da, x, D, GNN_AGG_SUM, &q, out), GNN_ERR_INVAL);
        gnn_distagg wrong = da;
        wrong.k = 2;
        ck_assert_int_eq(gnn_distagg_forward(ops, c, &wrong, x, D, GNN_AGG_SUM, NULL, out), GNN_ERR_INVAL);
        ck_assert_msg(strstr(gnn_comm_errmsg(c), "rank 0 of 1"), "%s", gnn_comm_errmsg(c));
        /* valid calls: every edge local, the single-rank result exactly; d = 0 too */
        for (int e = 0; e < 7 * D; e++)
            x[e] = (float)(e % 5) * 0.25f;
        ck_assert_int_eq(gnn_distagg_forward(ops, c, &da, x, D, GNN_AGG_GCN, NULL, out), GNN_OK);
        ck_assert_int_eq(gnn_distagg_forward(ops, c, &da, NULL, 0, GNN_AGG_GCN, NULL, NULL), GNN_OK);
        gnn_block blk;
        float want[7 * D];
        ck_assert_int_eq(gnn_block_full(&blk, &g), GNN_OK);
        ck_assert_int_eq(gnn_aggregate_forward(&gnn_aggregate_ref, &blk, x, D, GNN_AGG_GCN, want), GNN_OK);
        ck_assert_int_eq(memcmp(want, out, sizeof want), 0);
        gnn_block_free(&blk);
        gnn_comm_free(c);
        gnn_distagg_free(&da);
        gnn_commplan_free(&plan1);
    }
    gnn_commplan_free(&plan);
    gnn_commplan_free(&plan3);
    gnn_csr_free(&g);
}
END_TEST

/* the implementation context: ref holds the reference, opt the cpu table */
START_TEST(context)
{
    ck_assert_ptr_eq(gnn_impl_ref()->distagg, &gnn_distagg_ref);
    ck_assert_ptr_eq(gnn_impl_opt()->distagg, &gnn_distagg_cpu);
}
END_TEST

Suite *suite_distagg(void)
{
    Suite *s = suite_create("distagg");
    TCase *tc = tcase_create("sim");
    tcase_set_tags(tc, "cpu sim");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, fig2_exact);
    tcase_add_test(tc, fig2_int2_bytes);
    tcase_add_test(tc, lost_segment);
    tcase_add_test(tc, mutants_caught);
    tcase_add_test(tc, api_checks);
    tcase_add_test(tc, context);
    suite_add_tcase(s, tc);
    return s;
}
