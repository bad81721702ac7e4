/* tests/test_embedding.c -- sparse embeddings: the feature store's push with sparse Adagrad and
 * Adam (include/gnnref/kvstore.h, docs/embedding.md). The registry's kvstore.push compares the
 * store with gnn_sparse_opt_step_ref bitwise at 1-5 and 8 simulated ranks; both run the same
 * row rule, so here the rule itself against values written out step by step, the rank order
 * mattering (a store summing in another order would differ), a bad request failing on every
 * rank with nothing updated, and the argument checks. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/kvstore.h"
#include "gnnref/sim.h"
#include "cli_util.h"

/* Adagrad over three steps on one row, against the formula in float, step by step */
START_TEST(adagrad_rule)
{
    gnn_sparse_opt o;
    gnn_sparse_opt_defaults(&o, GNN_SPARSE_ADAGRAD, 0.1f);
    ck_assert(o.eps == 1e-10f);
    float w[2] = { 1.0f, -2.0f }, G[2] = { 0, 0 };
    const float g[3][2] = { { 0.5f, -1.0f }, { 0.25f, 3.0f }, { -1.0f, 0.0f } };
    float ew[2] = { 1.0f, -2.0f }, eG[2] = { 0, 0 };
    for (int t = 0; t < 3; t++) {
        gnn_sparse_opt_row(&o, w, g[t], G, NULL, NULL, 2);
        for (int j = 0; j < 2; j++) {
            volatile float gg = g[t][j] * g[t][j];
            eG[j] = eG[j] + gg;
            volatile float den = sqrtf(eG[j]) + 1e-10f;
            volatile float upd = 0.1f * g[t][j];
            ew[j] = ew[j] - upd / den;
            ck_assert(w[j] == ew[j] && G[j] == eG[j]);
        }
    }
    /* the first step of Adagrad moves each weight by lr sign(g) (up to eps) */
    float w1[2] = { 1.0f, -2.0f }, G1[2] = { 0, 0 };
    gnn_sparse_opt_row(&o, w1, g[0], G1, NULL, NULL, 2);
    ck_assert(fabsf(w1[0] - 0.9f) < 1e-6f && fabsf(w1[1] - (-1.9f)) < 1e-6f);
}
END_TEST

/* Adam: per-row steps (DGL's SparseAdam), bias correction in double rounded to float */
START_TEST(adam_rule)
{
    gnn_sparse_opt o;
    gnn_sparse_opt_defaults(&o, GNN_SPARSE_ADAM, 0.01f);
    ck_assert(o.eps == 1e-8f && o.beta1 == 0.9f && o.beta2 == 0.999f);
    float w[1] = { 0.5f }, m[1] = { 0 }, v[1] = { 0 };
    int64_t step = 0;
    float ew = 0.5f, em = 0, ev = 0;
    const float g[4] = { 1.0f, -0.5f, 2.0f, 0.125f };
    for (int t = 1; t <= 4; t++) {
        gnn_sparse_opt_row(&o, w, &g[t - 1], m, v, &step, 1);
        ck_assert_int_eq(step, t);
        em = 0.9f * em + (1.0f - 0.9f) * g[t - 1];
        volatile float g2 = g[t - 1] * g[t - 1];
        ev = 0.999f * ev + (1.0f - 0.999f) * g2;
        const float c1 = (float)(1.0 - pow(0.9f, t)), c2 = (float)(1.0 - pow(0.999f, t));
        volatile float mh = em / c1, vh = ev / c2, den = sqrtf(vh) + 1e-8f, num = 0.01f * mh;
        ew = ew - num / den;
        ck_assert(w[0] == ew && m[0] == em && v[0] == ev);
    }
    /* the first step moves by lr sign(g): bias correction undoes the zero start */
    float w1 = 0.5f, m1 = 0, v1 = 0;
    int64_t s1 = 0;
    gnn_sparse_opt_row(&o, &w1, &g[0], &m1, &v1, &s1, 1);
    ck_assert(fabsf(w1 - (0.5f - 0.01f)) < 1e-6f);
}
END_TEST

/* The rank order of the sums matters: lists whose sums round differently in another order,
 * so a store that summed as pushes arrive (DGL) could not match the reference bit for bit. */
START_TEST(rank_order_matters)
{
    gnn_sparse_opt o;
    gnn_sparse_opt_defaults(&o, GNN_SPARSE_ADAGRAD, 1.0f);
    const int64_t id0[1] = { 0 }, m[3] = { 1, 1, 1 };
    const int64_t *ids[3] = { id0, id0, id0 };
    const float gA[1] = { 1e8f }, gB[1] = { -1e8f }, gC[1] = { 1.0f };
    const float *o1[3] = { gA, gB, gC }, *o2[3] = { gA, gC, gB };
    float a[1] = { 0 }, aG[1] = { 0 }, b[1] = { 0 }, bG[1] = { 0 };
    gnn_sparse_opt_step_ref(&o, 1, 1, a, aG, NULL, NULL, 3, ids, m, o1);
    gnn_sparse_opt_step_ref(&o, 1, 1, b, bG, NULL, NULL, 3, ids, m, o2);
    ck_assert(aG[0] == 1.0f && bG[0] == 0.0f); /* 1e8 - 1e8 + 1 = 1; 1e8 + 1 - 1e8 = 0 */
}
END_TEST

typedef struct bad_job {
    float table[40];
    int32_t owner[10];
    int bad_rank;
    float after[4][40];
} bad_job;

static gnn_status bad_rank_fn(gnn_comm *c, void *arg)
{
    bad_job *J = arg;
    gnn_kvstore kv;
    gnn_status st = gnn_kvstore_create_from_full(&kv, c, 10, J->owner, 4, J->table, &c->err);
    if (st)
        return st;
    gnn_sparse_opt o;
    gnn_sparse_opt_defaults(&o, GNN_SPARSE_ADAM, 0.1f);
    const int64_t good[2] = { 1, 7 }, bad[2] = { 1, 10 };
    const float g[8] = { 1, 1, 1, 1, 2, 2, 2, 2 };
    st = gnn_kvstore_push(&kv, c->rank == J->bad_rank ? bad : good, 2, g, &o, &c->err);
    memcpy(J->after[c->rank], kv.feat, sizeof(float) * (size_t)(kv.n_local * 4));
    /* a later push with another optimizer is refused on every rank too */
    gnn_status st2 = GNN_OK;
    if (st == GNN_ERR_RANGE) {
        gnn_sparse_opt_defaults(&o, GNN_SPARSE_ADAGRAD, 0.1f);
        st2 = gnn_kvstore_push(&kv, good, 2, g, &o, &c->err);
        if (st2 == GNN_OK) { /* no state yet: the first successful push fixes the kind */
            gnn_sparse_opt_defaults(&o, GNN_SPARSE_ADAM, 0.1f);
            st2 = gnn_kvstore_push(&kv, good, 2, g, &o, &c->err) == GNN_ERR_INVAL ? GNN_ERR_INVAL : GNN_ERR_MISMATCH;
        }
    }
    gnn_kvstore_free(&kv);
    if (st != GNN_ERR_RANGE)
        return gnn_err_set(&c->err, GNN_ERR_MISMATCH, "rank %d: push with a bad id on rank %d gave %s", c->rank,
                           J->bad_rank, gnn_status_str(st));
    return st2 == GNN_ERR_INVAL ? GNN_OK : gnn_err_set(&c->err, GNN_ERR_MISMATCH, "optimizer switch not refused");
}

START_TEST(bad_request_fails_everywhere)
{
    bad_job J;
    memset(&J, 0, sizeof J);
    for (int i = 0; i < 40; i++)
        J.table[i] = (float)i;
    for (int v = 0; v < 10; v++)
        J.owner[v] = v % 3;
    J.bad_rank = 2;
    gnn_sim_config cfg;
    gnn_sim_defaults(&cfg);
    cfg.ranks = 3;
    cfg.timeout_s = 20;
    gnn_err err = { "" };
    ck_assert_msg(gnn_sim_run(&cfg, bad_rank_fn, &J, NULL, &err) == GNN_OK, "%s", err.msg);
    /* nothing updated anywhere */
    for (int r = 0; r < 3; r++)
        for (int l = 0, v = 0; v < 10; v++)
            if (J.owner[v] == r) {
                ck_assert(!memcmp(J.after[r] + 4 * l, J.table + 4 * v, 16));
                l++;
            }
}
END_TEST

/* Training with embeddings instead of features: fetch and distributed sampling pull and push
 * the same rows (bitwise the same steps), and the embeddings learn the SBM's classes from the
 * graph alone (the builtin SBM; 10 epochs: test about 0.44 against 0.13 for the majority) */
static char out[1 << 16];

static double test_acc_of(const char *json)
{
    FILE *f = fopen(json, "r");
    ck_assert_ptr_nonnull(f);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *fin = strstr(buf, "\"final\"");
    ck_assert_ptr_nonnull(fin);
    const char *t = strstr(fin, "\"test_acc\":");
    ck_assert_ptr_nonnull(t);
    return atof(t + strlen("\"test_acc\":"));
}

START_TEST(training_with_embeddings)
{
    NEED_TOOL();
    char args[1024];
    static char a[1 << 20], b[1 << 20];
    const char *common = "train --data builtin --embed-dim 16 --embed-lr 0.05 --layers 2 --fanouts 10,10 --batch 256 "
                         "--epochs 10 --hidden 32 --backend sim --ranks 3 --quiet --eval-every 0";
    snprintf(args, sizeof args, "%s --json %s", common, tmp("f.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    snprintf(args, sizeof args, "%s --sampling distributed --json %s", common, tmp("d.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    cli_steps_text(tmp("f.json"), a, sizeof a);
    cli_steps_text(tmp("d.json"), b, sizeof b);
    ck_assert_msg(!strcmp(a, b), "embeddings: distributed sampling's steps differ from fetch's");
    const double acc = test_acc_of(tmp("f.json"));
    ck_assert_msg(acc > 0.129 + 0.15, "embeddings did not learn: test %.4f (majority class 0.129)", acc);
    expect_usage_error("train --data builtin --embed-lr 0.1", "--embed-lr applies to --embed-dim", out, sizeof out);
    expect_usage_error("train --data builtin --embed-dim 8 --remote hec", "--remote fetch", out, sizeof out);
}
END_TEST

Suite *suite_embedding(void)
{
    Suite *s = suite_create("embedding");
    TCase *tc = tcase_create("embedding");
    tcase_add_test(tc, adagrad_rule);
    tcase_add_test(tc, adam_rule);
    tcase_add_test(tc, rank_order_matters);
    tcase_add_test(tc, bad_request_fails_everywhere);
    tcase_add_test(tc, training_with_embeddings);
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    suite_add_tcase(s, tc);
    return s;
}
