/* tests/test_rgcn.c -- the relational graph convolution (include/gnnref/rgcn.h,
 * docs/hetero.md). The registry's rgcn.fwd, rgcn.bwd and grad.rgcn compare ref and cpu bitwise
 * and the backward against finite differences; here a layer worked by hand, the basis
 * decomposition against explicit relation weights, mutants the entries must catch, and the
 * argument checks. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/dataset.h"
#include "gnnref/impl.h"
#include "gnnref/oracle.h"
#include "gnnref/rgcn.h"
#include "gnnref/train.h"
#include "gnnref/sim.h"

/* dst 0 and 1, sources 0..3; edges 2 -> 0 (r0), 3 -> 0 (r0), 1 -> 0 (r1), 0 -> 1 (r1);
 * in = out = 1: z0 = x0 w0 + mean(x2, x3) W_0 + x1 W_1 + b, z1 = x1 w0 + x0 W_1 + b */
static void tiny(gnn_block *b, int64_t *indptr, int32_t *indices, int64_t *gid)
{
    memset(b, 0, sizeof *b);
    b->n_dst = 2, b->n_src = 4, b->nnz = 4;
    indptr[0] = 0, indptr[1] = 3, indptr[2] = 4;
    indices[0] = 2, indices[1] = 3, indices[2] = 1, indices[3] = 0;
    for (int i = 0; i < 4; i++)
        gid[i] = i;
    b->indptr = indptr, b->indices = indices, b->src_gid = gid;
}

START_TEST(worked_by_hand)
{
    gnn_block b;
    int64_t indptr[3], gid[4];
    int32_t indices[4];
    tiny(&b, indptr, indices, gid);
    const int32_t et[4] = { 0, 0, 1, 1 };
    const float x[4] = { 1, 2, 4, 8 }, w0[1] = { 0.5f }, w[2] = { 0.25f, 2 }, bias[1] = { 1 };
    const gnn_rgcn_params p = { .in = 1, .out = 1, .R = 2, .B = 0, .w0 = w0, .w = w, .bias = bias };
    const gnn_rgcn_ops *ops[2] = { &gnn_rgcn_ref, &gnn_rgcn_cpu };
    for (int k = 0; k < 2; k++) {
        float z[2], agg[4];
        ck_assert_int_eq(gnn_rgcn_forward(ops[k], &b, et, x, &p, z, agg), GNN_OK);
        ck_assert(z[0] == 0.5f + 6 * 0.25f + 2 * 2 + 1); /* 7 */
        ck_assert(z[1] == 2 * 0.5f + 1 * 2 + 1);         /* 4 */
        ck_assert(agg[0] == 6 && agg[1] == 0 && agg[2] == 2 && agg[3] == 1);
        /* backward of L = z0 + 2 z1 */
        const float dz[2] = { 1, 2 };
        float dx[4], dw0[1], dw[2], db[1];
        const gnn_rgcn_grads g = { .dw0 = dw0, .dw = dw, .dbias = db };
        ck_assert_int_eq(gnn_rgcn_backward(ops[k], &b, et, x, &p, agg, dz, dx, &g), GNN_OK);
        ck_assert(db[0] == 3 && dw0[0] == 1 * 1 + 2 * 2 && dw[0] == 6 && dw[1] == 2 + 2 * 1);
        ck_assert(dx[0] == 0.5f + 2 * 2); /* self of dst 0, then 0 -> 1 (r1, c = 1) */
        ck_assert(dx[1] == 2 * 0.5f + 1 * 2);
        ck_assert(dx[2] == 0.25f * 0.5f && dx[3] == 0.25f * 0.5f); /* mean of two: 1/2 each */
    }
}
END_TEST

/* bases: the same layer as with the relation weights they make */
START_TEST(bases_are_relation_weights)
{
    gnn_block b;
    int64_t indptr[3], gid[4];
    int32_t indices[4];
    tiny(&b, indptr, indices, gid);
    const int32_t et[4] = { 1, 0, 0, 1 };
    const float x[8] = { 1, -1, 2, 0.5f, 3, 1, -2, 4 }, w0[4] = { 1, 2, 3, 4 };
    const float v[8] = { 0.5f, 1, -1, 2, 1, 0, 0.25f, -0.5f }, a[4] = { 1, 2, -1, 0.5f };
    float w[8];
    const gnn_rgcn_params pb = { .in = 2, .out = 2, .R = 2, .B = 2, .w0 = w0, .v = v, .a = a };
    gnn_rgcn_relation_weights(&pb, w);
    ck_assert(w[0] == 1 * 0.5f + 2 * 1 && w[4] == -1 * 0.5f + 0.5f * 1);
    const gnn_rgcn_params pw = { .in = 2, .out = 2, .R = 2, .B = 0, .w0 = w0, .w = w };
    float z1[4], z2[4];
    ck_assert_int_eq(gnn_rgcn_forward(&gnn_rgcn_cpu, &b, et, x, &pb, z1, NULL), GNN_OK);
    ck_assert_int_eq(gnn_rgcn_forward(&gnn_rgcn_ref, &b, et, x, &pw, z2, NULL), GNN_OK);
    ck_assert(!memcmp(z1, z2, sizeof z1));
}
END_TEST

/* an implementation one ulp off in its z: rgcn.fwd must fail */
static gnn_status ulp_forward(const gnn_block *blk, const int32_t *etype, const float *x, const gnn_rgcn_params *p,
                              float *z, float *agg)
{
    gnn_status st = gnn_rgcn_ref.forward(blk, etype, x, p, z, agg);
    if (!st && blk->n_dst * p->out > 0)
        z[blk->n_dst * p->out - 1] = nextafterf(z[blk->n_dst * p->out - 1], INFINITY);
    return st;
}
/* a backward that forgets the mean's 1 / c on the edges: rgcn.bwd and grad.rgcn must fail */
static gnn_status sum_backward(const gnn_block *blk, const int32_t *etype, const float *x, const gnn_rgcn_params *p,
                               const float *agg, const float *dz, float *dx, const gnn_rgcn_grads *g)
{
    gnn_status st = gnn_rgcn_ref.backward(blk, etype, x, p, agg, dz, dx, g);
    for (int64_t e = 0; !st && dx && e < blk->nnz; e++)
        for (int64_t i = 0; i < p->in; i++)
            dx[(int64_t)blk->indices[e] * p->in + i] += 0.5f * dz[0];
    return st;
}
static const gnn_rgcn_ops k_ulp = { .name = "ulp", .forward = ulp_forward, .backward = NULL };
static const gnn_rgcn_ops k_sum = { .name = "sum", .forward = NULL, .backward = sum_backward };

static int fails_with(const char *entry, const gnn_rgcn_ops *ops)
{
    const gnn_oracle_entry *e = gnn_oracle_find(entry);
    ck_assert_ptr_nonnull(e);
    const gnn_oracle_impl impl = { .name = ops->name, .ops = ops };
    int fails = 0;
    for (int p = 0; e->presets[p]; p++) {
        gnn_oracle_case c;
        gnn_err err;
        ck_assert_int_eq(gnn_oracle_case_init(&c, e, &impl, 1, e->presets[p], 1, &err), GNN_OK);
        gnn_oracle_result r;
        fails += gnn_oracle_run(&c, &r) == GNN_ORACLE_FAIL;
    }
    return fails;
}

START_TEST(mutants_caught)
{
    ck_assert_msg(fails_with("rgcn.fwd", &k_ulp) > 0, "rgcn.fwd passed a z one ulp off");
    gnn_rgcn_ops sum = k_sum;
    sum.forward = gnn_rgcn_ref.forward;
    ck_assert_msg(fails_with("rgcn.bwd", &sum) > 0, "rgcn.bwd passed a wrong dx");
}
END_TEST

START_TEST(api_checks)
{
    gnn_block b;
    int64_t indptr[3], gid[4];
    int32_t indices[4];
    tiny(&b, indptr, indices, gid);
    int32_t et[4] = { 0, 0, 1, 1 };
    const float x[4] = { 1, 2, 4, 8 }, w0[1] = { 0.5f }, w[2] = { 0.25f, 2 };
    gnn_rgcn_params p = { .in = 1, .out = 1, .R = 2, .B = 0, .w0 = w0, .w = w };
    float z[2], agg[4];
    ck_assert_int_eq(gnn_rgcn_forward(NULL, &b, et, x, &p, z, agg), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_rgcn_forward(&gnn_rgcn_cpu, &b, NULL, x, &p, z, agg), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_rgcn_forward(&gnn_rgcn_cpu, &b, et, x, &p, NULL, agg), GNN_ERR_INVAL);
    et[3] = 2; /* outside [0, R) */
    ck_assert_int_eq(gnn_rgcn_forward(&gnn_rgcn_ref, &b, et, x, &p, z, agg), GNN_ERR_RANGE);
    et[3] = 1;
    p.R = 0;
    ck_assert_int_eq(gnn_rgcn_forward(&gnn_rgcn_ref, &b, et, x, &p, z, agg), GNN_ERR_INVAL);
    p.R = 2, p.B = 1; /* bases without V and a */
    ck_assert_int_eq(gnn_rgcn_forward(&gnn_rgcn_ref, &b, et, x, &p, z, agg), GNN_ERR_INVAL);
    p.B = 0;
    indices[1] = 4; /* a source outside the block */
    ck_assert_int_eq(gnn_rgcn_forward(&gnn_rgcn_ref, &b, et, x, &p, z, agg), GNN_ERR_RANGE);
    indices[1] = 3;
    const gnn_rgcn_grads g = { 0 };
    const float dz[2] = { 1, 1 };
    ck_assert_int_eq(gnn_rgcn_backward(&gnn_rgcn_cpu, &b, et, x, &p, NULL, dz, NULL, &g), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_rgcn_backward(&gnn_rgcn_cpu, &b, et, x, &p, agg, dz, NULL, NULL), GNN_ERR_INVAL);
}
END_TEST

/* ---- training (full batch; docs/hetero.md section 4) ---- */

static void typed(gnn_dataset *ds, int64_t n)
{
    gnn_sbm_params p;
    gnn_sbm_defaults(&p);
    p.n = n;
    p.num_features = 16;
    p.train = 0.3;
    gnn_err err = { "" };
    ck_assert_msg(gnn_gen_typed_sbm(ds, &p, 2, &err) == GNN_OK, "%s", err.msg);
    ck_assert_int_eq(ds->num_etypes, 4);
}

/* the typed SBM's relations are (type of u, type of v), each type a contiguous id range */
START_TEST(typed_sbm)
{
    gnn_dataset ds;
    typed(&ds, 1000);
    int64_t per[4] = { 0 };
    for (int64_t v = 0; v < ds.graph.n; v++)
        for (int64_t e = ds.graph.indptr[v]; e < ds.graph.indptr[v + 1]; e++) {
            const int64_t u = ds.graph.indices[e];
            ck_assert_int_eq(ds.etype[e], (u >= 500) * 2 + (v >= 500));
            per[ds.etype[e]]++;
        }
    for (int r = 0; r < 4; r++)
        ck_assert_int_gt(per[r], 0);
    gnn_dataset_free(&ds);
}
END_TEST

/* RGCN learns the typed SBM's classes, and ref and opt give the same step losses */
START_TEST(rgcn_trains)
{
    gnn_dataset ds;
    typed(&ds, 2000);
    for (int bases = 0; bases <= 2; bases += 2) {
        gnn_train_config c;
        gnn_train_defaults(&c);
        c.model = GNN_MODEL_RGCN;
        c.mode = GNN_MODE_FULLBATCH;
        c.rgcn_bases = bases;
        c.epochs = 40;
        c.eval_every = 0;
        gnn_train_result r;
        gnn_err err = { "" };
        ck_assert_msg(gnn_train(&ds, &c, NULL, NULL, &r, &err) == GNN_OK, "%s", err.msg);
        ck_assert_msg(r.test_acc > r.majority_rate + 0.3, "rgcn (bases %d): test %.4f, majority class %.4f", bases,
                      r.test_acc, r.majority_rate);
        gnn_train_result_free(&r);
        c.epochs = 3;
        gnn_train_result a, b;
        c.impl = gnn_impl_ref();
        ck_assert_int_eq(gnn_train(&ds, &c, NULL, NULL, &a, &err), GNN_OK);
        c.impl = gnn_impl_opt();
        ck_assert_int_eq(gnn_train(&ds, &c, NULL, NULL, &b, &err), GNN_OK);
        for (int64_t s = 0; s < a.n_steps; s++)
            ck_assert_msg(a.step_loss[s] == b.step_loss[s], "bases %d step %lld: ref %.17g opt %.17g", bases,
                          (long long)s, a.step_loss[s], b.step_loss[s]);
        gnn_train_result_free(&a);
        gnn_train_result_free(&b);
    }
    gnn_dataset_free(&ds);
    /* an untyped graph is refused */
    gnn_dataset plain;
    gnn_sbm_params p;
    gnn_sbm_defaults(&p);
    p.n = 200;
    gnn_err err = { "" };
    ck_assert_int_eq(gnn_gen_sbm(&plain, &p, &err), GNN_OK);
    gnn_train_config c;
    gnn_train_defaults(&c);
    c.model = GNN_MODEL_RGCN;
    gnn_train_result r;
    ck_assert_int_eq(gnn_train(&plain, &c, NULL, NULL, &r, &err), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "edge types"));
    gnn_dataset_free(&plain);
}
END_TEST

/* 4 simulated ranks (data parallel, full batch) against one rank: the same model trained on
 * sums in another order, within 1 point (issue 23's acceptance, on a typed SBM) */
typedef struct four_job {
    const gnn_dataset *ds;
    gnn_train_config cfg;
    double test_acc;
} four_job;

static gnn_status four_rank(gnn_comm *c, void *arg)
{
    four_job *J = arg;
    gnn_train_config cfg = J->cfg;
    cfg.comm = c;
    gnn_train_result r;
    gnn_err err = { "" };
    gnn_status st = gnn_train(J->ds, &cfg, NULL, NULL, &r, &err);
    if (st)
        return gnn_err_set(&c->err, st, "%s", err.msg);
    if (c->rank == 0)
        J->test_acc = r.test_acc;
    gnn_train_result_free(&r);
    return GNN_OK;
}

START_TEST(rgcn_four_ranks)
{
    gnn_dataset ds;
    typed(&ds, 2000);
    four_job J = { .ds = &ds };
    gnn_train_defaults(&J.cfg);
    J.cfg.model = GNN_MODEL_RGCN;
    J.cfg.mode = GNN_MODE_FULLBATCH;
    J.cfg.epochs = 40;
    J.cfg.eval_every = 0;
    gnn_train_result one;
    gnn_err err = { "" };
    ck_assert_int_eq(gnn_train(&ds, &J.cfg, NULL, NULL, &one, &err), GNN_OK);
    gnn_sim_config sc;
    gnn_sim_defaults(&sc);
    sc.ranks = 4;
    sc.timeout_s = 120;
    ck_assert_msg(gnn_sim_run(&sc, four_rank, &J, NULL, &err) == GNN_OK, "%s", err.msg);
    fprintf(stderr, "rgcn, typed SBM (2000 vertices), 40 epochs: one rank %.4f, 4 ranks %.4f (majority class %.4f)\n",
            one.test_acc, J.test_acc, one.majority_rate);
    ck_assert(one.test_acc > one.majority_rate + 0.3);
    ck_assert_msg(fabs(J.test_acc - one.test_acc) <= 0.01, "4 ranks %.4f, one rank %.4f", J.test_acc, one.test_acc);
    gnn_train_result_free(&one);
    gnn_dataset_free(&ds);
}
END_TEST

Suite *suite_rgcn(void)
{
    Suite *s = suite_create("rgcn");
    TCase *tc = tcase_create("rgcn");
    tcase_add_test(tc, worked_by_hand);
    tcase_add_test(tc, bases_are_relation_weights);
    tcase_add_test(tc, mutants_caught);
    tcase_add_test(tc, api_checks);
    tcase_add_test(tc, typed_sbm);
    tcase_add_test(tc, rgcn_trains);
    tcase_add_test(tc, rgcn_four_ranks);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    return s;
}
