/* tests/test_rgcn.c -- the relational graph convolution (include/gnnref/rgcn.h,
 * docs/hetero.md). The registry's rgcn.fwd, rgcn.bwd and grad.rgcn compare ref and cpu bitwise
 * and the backward against finite differences; here a layer worked by hand, the basis
 * decomposition against explicit relation weights, mutants the entries must catch, and the
 * argument checks. */
#include <check.h>
#include <math.h>
#include <string.h>
#include "gnnref/oracle.h"
#include "gnnref/rgcn.h"

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

Suite *suite_rgcn(void)
{
    Suite *s = suite_create("rgcn");
    TCase *tc = tcase_create("rgcn");
    tcase_add_test(tc, worked_by_hand);
    tcase_add_test(tc, bases_are_relation_weights);
    tcase_add_test(tc, mutants_caught);
    tcase_add_test(tc, api_checks);
    suite_add_tcase(s, tc);
    return s;
}
