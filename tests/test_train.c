/* tests/test_train.c -- single-rank GraphSAGE training: argument checks, bitwise
 * reproducibility across thread counts and implementations, learning on the SBM, and the
 * published-range accuracy on Cora (skipped when ../shared/datasets is absent). */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#ifdef GNN_HAVE_OPENMP
#include <omp.h>
#endif
#include "gnnref/dataset.h"
#include "gnnref/sample.h"
#include "gnnref/train.h"

static void small_sbm(gnn_dataset *ds, uint64_t seed)
{
    gnn_sbm_params p;
    gnn_sbm_defaults(&p);
    p.n = 1500;
    p.num_features = 24;
    p.seed = seed;
    p.train = 0.3;
    gnn_err err;
    ck_assert_msg(gnn_gen_sbm(ds, &p, &err) == GNN_OK, "%s", err.msg);
}

static void set_threads(int t)
{
#ifdef GNN_HAVE_OPENMP
    omp_set_num_threads(t);
#else
    (void)t;
#endif
}

START_TEST(train_rejects_bad_config)
{
    gnn_dataset ds;
    small_sbm(&ds, 3);
    gnn_train_config c;
    gnn_train_result r;
    gnn_err err;
    gnn_train_defaults(&c);
    c.layers = 0;
    ck_assert_int_eq(gnn_train_sage(&ds, &c, NULL, NULL, &r, &err), GNN_ERR_INVAL);
    gnn_train_defaults(&c);
    c.dropout = 1.0f;
    ck_assert_int_eq(gnn_train_sage(&ds, &c, NULL, NULL, &r, &err), GNN_ERR_INVAL);
    gnn_train_defaults(&c);
    c.fanouts[1] = 0;
    ck_assert_int_eq(gnn_train_sage(&ds, &c, NULL, NULL, &r, &err), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "fanout"));
    /* no split: a clear message that names the fix */
    uint8_t *split = ds.split;
    ds.split = NULL;
    gnn_train_defaults(&c);
    ck_assert_int_eq(gnn_train_sage(&ds, &c, NULL, NULL, &r, &err), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "--split"));
    ds.split = split;
    gnn_dataset_free(&ds);
}
END_TEST

START_TEST(sample_api)
{
    /* path 0 <- 1 <- 2, vertex 3 isolated */
    int64_t src[] = { 1, 2 }, dst[] = { 0, 1 };
    gnn_csr g;
    ck_assert_int_eq(gnn_csr_from_edges(&g, 4, 2, src, dst, 0, NULL), GNN_OK);
    gnn_sample_params p = { .fanout = 5, .seed = 1 };
    gnn_sampled s;
    int64_t bad[] = { 7 };
    ck_assert_int_eq(gnn_sample_uniform_ref(&g, bad, 1, &p, &s), GNN_ERR_RANGE);
    int64_t dup[] = { 0, 0 };
    ck_assert_int_eq(gnn_sample_uniform_ref(&g, dup, 2, &p, &s), GNN_OK);
    gnn_block b;
    ck_assert_int_eq(gnn_block_build_ref(&s, &b), GNN_ERR_INVAL); /* duplicate seeds are an error */
    gnn_sampled_free(&s);
    int64_t seeds[] = { 3, 0 }; /* degree 0 and fanout > degree */
    ck_assert_int_eq(gnn_sample_uniform_ref(&g, seeds, 2, &p, &s), GNN_OK);
    ck_assert_int_eq(s.nnz, 1);
    ck_assert_int_eq(gnn_block_build_ref(&s, &b), GNN_OK);
    ck_assert_int_eq(b.n_dst, 2);
    ck_assert_int_eq(b.n_src, 3);
    ck_assert_int_eq(b.src_gid[2], 1);
    ck_assert_int_eq(gnn_block_validate(&b, NULL), GNN_OK);
    gnn_block_free(&b);
    gnn_sampled_free(&s);
    /* with replacement: fanout draws even above the degree, none at degree 0 */
    p.replace = 1;
    ck_assert_int_eq(gnn_sample_uniform_ref(&g, seeds, 2, &p, &s), GNN_OK);
    ck_assert_int_eq(s.nnz, 5);
    gnn_sampled_free(&s);
    /* multi-layer: layer 1's src are layer 0's dst */
    gnn_block blk[2];
    memset(blk, 0, sizeof blk);
    int64_t fo[2] = { -1, 1 };
    int64_t one[] = { 0 };
    gnn_sample_params base = { .seed = 9 };
    ck_assert_int_eq(gnn_sample_blocks(&gnn_sample_ref, &g, one, 1, fo, 2, &base, blk), GNN_OK);
    ck_assert_int_eq(blk[1].n_src, 2);
    ck_assert_int_eq(blk[0].n_dst, 2);
    ck_assert_int_eq(blk[0].n_src, 3);
    gnn_block_free(&blk[0]);
    gnn_block_free(&blk[1]);
    ck_assert_int_eq(gnn_sample_blocks(&gnn_sample_ref, &g, one, 1, fo, 0, &base, blk), GNN_ERR_INVAL);
    gnn_csr_free(&g);
}
END_TEST

/* The same seed gives bitwise the same per-step losses at 1 and 2 threads, with ref and opt. */
START_TEST(train_bitwise_reproducible)
{
    gnn_dataset ds;
    small_sbm(&ds, 5);
    gnn_train_config c;
    gnn_train_defaults(&c);
    c.epochs = 2;
    c.batch = 128;
    c.hidden = 16;
    c.fanouts[0] = 5;
    c.fanouts[1] = 3;
    c.eval_every = 0;
    gnn_train_result base;
    gnn_err err;
    set_threads(1);
    c.impl_opt = 0;
    ck_assert_msg(gnn_train_sage(&ds, &c, NULL, NULL, &base, &err) == GNN_OK, "%s", err.msg);
    ck_assert_int_gt(base.n_steps, 4);
    for (int impl = 0; impl < 2; impl++)
        for (int t = 1; t <= 2; t++) {
            set_threads(t);
            c.impl_opt = impl;
            gnn_train_result r;
            ck_assert_msg(gnn_train_sage(&ds, &c, NULL, NULL, &r, &err) == GNN_OK, "%s", err.msg);
            ck_assert_int_eq(r.n_steps, base.n_steps);
            for (int64_t s = 0; s < r.n_steps; s++)
                ck_assert_msg(memcmp(&r.step_loss[s], &base.step_loss[s], sizeof(double)) == 0,
                              "impl=%s threads=%d step %lld: loss %.17g vs ref/1 thread %.17g",
                              impl ? "opt" : "ref", t, (long long)s, r.step_loss[s], base.step_loss[s]);
            gnn_train_result_free(&r);
        }
    /* a different seed gives different losses (the check above can fail) */
    c.seed = 2;
    gnn_train_result other;
    ck_assert_int_eq(gnn_train_sage(&ds, &c, NULL, NULL, &other, &err), GNN_OK);
    ck_assert(memcmp(other.step_loss, base.step_loss, sizeof(double)) != 0);
    gnn_train_result_free(&other);
    gnn_train_result_free(&base);
    set_threads(2);
    gnn_dataset_free(&ds);
}
END_TEST

START_TEST(train_learns_sbm)
{
    gnn_dataset ds;
    small_sbm(&ds, 7);
    gnn_train_config c;
    gnn_train_defaults(&c);
    c.epochs = 15;
    c.eval_every = 5;
    gnn_train_result r;
    gnn_err err;
    ck_assert_msg(gnn_train_sage(&ds, &c, NULL, NULL, &r, &err) == GNN_OK, "%s", err.msg);
    ck_assert_int_eq(r.n_epochs, 15);
    ck_assert(r.epochs[14].loss < r.epochs[0].loss);
    ck_assert_msg(r.test_acc > r.majority_rate + 0.3, "test %.3f majority %.3f", r.test_acc, r.majority_rate);
    ck_assert(r.epochs[0].val_acc < 0); /* not evaluated at epoch 0 with eval_every 5 */
    ck_assert(r.epochs[4].val_acc >= 0);
    gnn_train_result_free(&r);
    gnn_dataset_free(&ds);
}
END_TEST

/* Acceptance: mean test accuracy over seeds 1..5 on Cora's public split >= 0.79
 * (GCN's published 81.5% is the mark for the kernels issue). */
START_TEST(train_cora_accuracy)
{
    const char *dir = "../shared/datasets/cora";
    if (access(dir, R_OK) != 0) {
        fprintf(stderr, "SKIP train_cora_accuracy: %s not found\n", dir);
        return;
    }
    gnn_dataset ds;
    gnn_err err;
    ck_assert_msg(gnn_dataset_open(&ds, dir, &err) == GNN_OK, "%s", err.msg);
    gnn_train_config c;
    gnn_train_defaults(&c);
    c.eval_every = 0; /* only the final model is scored */
    double sum = 0.0;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        c.seed = seed;
        gnn_train_result r;
        ck_assert_msg(gnn_train_sage(&ds, &c, NULL, NULL, &r, &err) == GNN_OK, "%s", err.msg);
        fprintf(stderr, "cora seed %llu: test_acc %.4f\n", (unsigned long long)seed, r.test_acc);
        sum += r.test_acc;
        gnn_train_result_free(&r);
    }
    fprintf(stderr, "cora mean test_acc over seeds 1..5: %.4f\n", sum / 5.0);
    ck_assert_msg(sum / 5.0 >= 0.79, "mean test accuracy %.4f < 0.79", sum / 5.0);
    gnn_dataset_free(&ds);
}
END_TEST

Suite *suite_train(void)
{
    Suite *s = suite_create("train");
    TCase *tc = tcase_create("cpu");
    tcase_set_tags(tc, "cpu");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, train_rejects_bad_config);
    tcase_add_test(tc, sample_api);
    tcase_add_test(tc, train_bitwise_reproducible);
    tcase_add_test(tc, train_learns_sbm);
    suite_add_tcase(s, tc);
    TCase *slow = tcase_create("slow");
    tcase_set_tags(slow, "cpu slow");
    tcase_set_timeout(slow, 900);
    tcase_add_test(slow, train_cora_accuracy);
    suite_add_tcase(s, slow);
    return s;
}
