/* tests/test_rgcn_minibatch.c -- sampling per edge type (include/gnnref/sample_typed.h) and
 * RGCN trained on sampled mini-batches, on one rank and on partitions, with sparse embeddings
 * for featureless types (docs/hetero.md sections 7 and 8). The sampler's bits are the oracle's
 * (`sample.typed`); here: a graph worked by hand, the trainers, the refusals. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_util.h"
#include "gnnref/dataset.h"
#include "gnnref/impl.h"
#include "gnnref/sample_typed.h"
#include "gnnref/train.h"

/* Vertex 0's in-edges: 1 (relation 0), 2 (1), 3 (1), 4 (0), 5 (2); vertex 1's: 0 (1). */
static const int64_t k_indptr[] = { 0, 5, 6, 6, 6, 6, 6 };
static const int64_t k_indices[] = { 1, 2, 3, 4, 5, 0 };
static const int32_t k_etype[] = { 0, 1, 1, 0, 2, 1 };

static gnn_sampler *typed_sampler(const gnn_csr *g, const gnn_sampler_ops *ops, int64_t R)
{
    gnn_sampler_options o;
    gnn_sampler_defaults(&o);
    o.etype = k_etype;
    o.relations = R;
    gnn_sampler *s = NULL;
    ck_assert_int_eq(gnn_sampler_create(&s, ops, g, &o), GNN_OK);
    return s;
}

/* all neighbours (fanout -1): relation 0's in CSR order, then 1's, then 2's; fanout 1: one per
 * relation that has an edge, from that relation; 2 relations' worth of one type is refused */
START_TEST(worked_by_hand)
{
    const gnn_csr g = { .n = 6, .nnz = 6, .indptr = (int64_t *)k_indptr, .indices = (int64_t *)k_indices };
    const gnn_sampler_ops *impls[] = { &gnn_sampler_ref, &gnn_sampler_cpu };
    for (int i = 0; i < 2; i++) {
        gnn_sampler *s = typed_sampler(&g, impls[i], 3);
        const int64_t seeds[] = { 0, 1 };
        gnn_sample_params p = { .fanout = -1, .seed = 5, .step = 2 };
        gnn_block b;
        ck_assert_int_eq(gnn_sampler_layer(s, seeds, 2, &p, &b), GNN_OK);
        const int64_t want_src[] = { 0, 1, 4, 2, 3, 5 }; /* dst first, then first appearance */
        const int32_t want_idx[] = { 1, 2, 3, 4, 5, 0 }, want_type[] = { 0, 0, 1, 1, 2, 1 };
        ck_assert_int_eq(b.n_src, 6);
        ck_assert_int_eq(b.nnz, 6);
        ck_assert_int_eq(b.indptr[1], 5);
        for (int j = 0; j < 6; j++) {
            ck_assert_int_eq(b.src_gid[j], want_src[j]);
            ck_assert_int_eq(b.indices[j], want_idx[j]);
            ck_assert_int_eq(b.etype[j], want_type[j]);
        }
        gnn_block_free(&b);
        p.fanout = 1;
        ck_assert_int_eq(gnn_sampler_layer(s, seeds, 2, &p, &b), GNN_OK);
        ck_assert_int_eq(b.indptr[1], 3); /* one of each relation */
        ck_assert_int_eq(b.nnz, 4);
        const int64_t first = b.src_gid[b.indices[0]], second = b.src_gid[b.indices[1]];
        ck_assert(first == 1 || first == 4);
        ck_assert(second == 2 || second == 3);
        ck_assert_int_eq(b.src_gid[b.indices[2]], 5);
        ck_assert_int_eq(b.etype[0] * 100 + b.etype[1] * 10 + b.etype[2], 12);
        gnn_block_free(&b);
        /* a duplicate seed is refused, as by the plain sampler */
        const int64_t dup[] = { 0, 0 };
        ck_assert_int_eq(gnn_sampler_layer(s, dup, 2, &p, &b), GNN_ERR_INVAL);
        gnn_sampler_destroy(s);
    }
    /* an edge type out of range cannot make a sampler */
    gnn_sampler_options o;
    gnn_sampler_defaults(&o);
    o.etype = k_etype;
    o.relations = 2;
    gnn_sampler *s = NULL;
    ck_assert_int_eq(gnn_sampler_create(&s, &gnn_sampler_cpu, &g, &o), GNN_ERR_RANGE);
    gnn_err err = { "" };
    gnn_typed_graph tg;
    ck_assert_int_eq(gnn_typed_graph_build(&tg, &g, k_etype, 2, &err), GNN_ERR_RANGE);
    ck_assert_ptr_nonnull(strstr(err.msg, "edge 4 has type 2"));
    ck_assert_int_eq(gnn_typed_graph_build(&tg, &g, k_etype, 0, &err), GNN_ERR_INVAL);
}
END_TEST

static void typed(gnn_dataset *ds, int64_t n)
{
    gnn_sbm_params p;
    gnn_sbm_defaults(&p);
    p.n = n;
    p.num_features = 16;
    p.train = 0.3;
    gnn_err err = { "" };
    ck_assert_msg(gnn_gen_typed_sbm(ds, &p, 2, &err) == GNN_OK, "%s", err.msg);
}

/* RGCN on sampled blocks learns, and ref and opt give the same step losses */
START_TEST(minibatch_trains)
{
    gnn_dataset ds;
    typed(&ds, 2000);
    gnn_train_config c;
    gnn_train_defaults(&c);
    c.model = GNN_MODEL_RGCN;
    c.rgcn_bases = 2;
    c.epochs = 15;
    c.eval_every = 0;
    gnn_train_result r;
    gnn_err err = { "" };
    ck_assert_msg(gnn_train(&ds, &c, NULL, NULL, &r, &err) == GNN_OK, "%s", err.msg);
    fprintf(stderr, "rgcn mini-batch, typed SBM (2000 vertices), 15 epochs: test %.4f, majority class %.4f\n",
            r.test_acc, r.majority_rate);
    ck_assert_msg(r.test_acc > r.majority_rate + 0.3, "test %.4f, majority class %.4f", r.test_acc, r.majority_rate);
    gnn_train_result_free(&r);
    c.epochs = 2;
    gnn_train_result a, b;
    c.impl = gnn_impl_ref();
    ck_assert_int_eq(gnn_train(&ds, &c, NULL, NULL, &a, &err), GNN_OK);
    c.impl = gnn_impl_opt();
    ck_assert_int_eq(gnn_train(&ds, &c, NULL, NULL, &b, &err), GNN_OK);
    ck_assert_int_eq(a.n_steps, b.n_steps);
    for (int64_t s = 0; s < a.n_steps; s++)
        ck_assert_msg(a.step_loss[s] == b.step_loss[s], "step %lld: ref %.17g opt %.17g", (long long)s,
                      a.step_loss[s], b.step_loss[s]);
    gnn_train_result_free(&a);
    gnn_train_result_free(&b);
    gnn_dataset_free(&ds);
}
END_TEST

static char out[1 << 16];

static double final_test(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "train %s --json %s", args, tmp("r.json"));
    ck_assert_msg(tool(cmd, out, sizeof out) == 0, "%s: %s", cmd, out);
    const char *p = strstr(out, "test accuracy: ");
    ck_assert_msg(p != NULL, "%s: %s", cmd, out);
    return atof(p + strlen("test accuracy: "));
}

/* On 4 simulated ranks with fetch (the whole topology) RGCN reaches one rank's accuracy within 1
 * point (one rank takes 4 ranks' global batch, so both take the same steps); hec and drop (each
 * part's rows, halos cached or dropped) learn too. The pipeline prefetches typed blocks bit for
 * bit. */
START_TEST(partitions_match_one_rank)
{
    NEED_TOOL();
    const char *common = "--data builtin-typed --model rgcn --epochs 12 --eval-every 0 --quiet";
    char args[1024];
    snprintf(args, sizeof args, "%s --batch 1024", common);
    const double one = final_test(args);
    static const char *const modes[] = { "fetch", "hec", "drop" };
    for (int m = 0; m < 3; m++) {
        snprintf(args, sizeof args, "%s --backend sim --ranks 4 --remote %s", common, modes[m]);
        const double four = final_test(args);
        fprintf(stderr, "rgcn, builtin-typed, 12 epochs: one rank (batch 1024) %.4f, 4 ranks (%s) %.4f\n", one,
                modes[m], four);
        ck_assert_msg(one > 0.5, "one rank %.4f", one);
        if (m == 0) /* fetch samples exactly one machine's blocks: the same model up to summation order */
            ck_assert_msg(fabs(four - one) <= 0.01, "fetch: 4 ranks %.4f, one rank %.4f", four, one);
        else /* hec and drop approximate the halos' inputs by design (DistGNN-MB): they learn, behind */
            ck_assert_msg(four > one - 0.1, "%s: 4 ranks %.4f, one rank %.4f", modes[m], four, one);
    }
    static char a[1 << 20], b[1 << 20];
    snprintf(args, sizeof args, "train %s --epochs 2 --backend sim --ranks 3 --remote hec --json %s", common,
             tmp("serial.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    snprintf(args, sizeof args, "train %s --epochs 2 --backend sim --ranks 3 --remote hec --pipeline 4 --json %s",
             common, tmp("pipe.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    cli_steps_text(tmp("serial.json"), a, sizeof a);
    cli_steps_text(tmp("pipe.json"), b, sizeof b);
    ck_assert_msg(strlen(a) > 20 && !strcmp(a, b), "pipelined rgcn steps differ from the serial ones");
}
END_TEST

/* the JSON report's partition_training.embed_rows_updated */
static long long rows_updated(void)
{
    FILE *f = fopen(tmp("r.json"), "r");
    ck_assert_ptr_nonnull(f);
    static char buf[1 << 20];
    const size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = 0;
    const char *p = strstr(buf, "\"embed_rows_updated\":");
    ck_assert_ptr_nonnull(p);
    return atoll(p + strlen("\"embed_rows_updated\":"));
}

/* Featureless types learn an embedding each (pushed to its owner), the featured rows stay their
 * features and are never pushed: the same blocks (same graph, split and seeds) update about half
 * the rows when half the vertices are featureless, all of them when every vertex is embedded */
START_TEST(featureless_embeddings)
{
    NEED_TOOL();
    char args[1024];
    long long updated[2];
    for (int k = 0; k < 2; k++) {
        snprintf(args, sizeof args, "gen hsbm --nodes 3000 --features 16 --featureless %d -o %s", 1 - k, tmp("h.gnn"));
        ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
        snprintf(args, sizeof args,
                 "--data %s --model rgcn --epochs 20 --eval-every 0 --backend sim --ranks 2 --remote fetch "
                 "--embed-dim 16",
                 tmp("h.gnn"));
        const double acc = final_test(args);
        updated[k] = rows_updated();
        fprintf(stderr, "rgcn, hsbm (3000 vertices, %s), embeddings: test %.4f, %lld rows updated\n",
                k ? "every vertex embedded" : "type t1 featureless", acc, updated[k]);
        if (k == 0)
            ck_assert_msg(acc > 0.28, "test %.4f (majority class about 0.13)", acc);
    }
    ck_assert_msg(updated[0] > updated[1] / 4 && updated[0] < updated[1] * 3 / 4, "%lld rows updated, %lld with every "
                  "vertex embedded", updated[0], updated[1]);
    snprintf(args, sizeof args, "gen hsbm --nodes 3000 --features 16 --featureless 1 -o %s", tmp("h.gnn"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    snprintf(args, sizeof args,
             "train --data %s --model rgcn --epochs 1 --backend sim --ranks 2 --remote fetch --embed-dim 8",
             tmp("h.gnn"));
    ck_assert_int_eq(tool(args, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "features' width 16") != NULL, "%s", out);
}
END_TEST

START_TEST(refusals)
{
    NEED_TOOL();
    expect_usage_error("train --data builtin --model rgcn --backend sim --ranks 2 --remote fetch",
                       "edge types", out, sizeof out);
    expect_usage_error("train --data builtin-typed --model rgcn --backend sim --ranks 2 --sampling distributed",
                       "per edge type", out, sizeof out);
}
END_TEST

Suite *suite_rgcn_minibatch(void)
{
    Suite *s = suite_create("rgcn_minibatch");
    TCase *tc = tcase_create("rgcn_minibatch");
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, worked_by_hand);
    tcase_add_test(tc, minibatch_trains);
    tcase_add_test(tc, featureless_embeddings);
    tcase_add_test(tc, refusals);
    suite_add_tcase(s, tc);
    /* 13 s: the full tier only (tag full: make check leaves it out; check-full, the sanitizer and no-OpenMP suites run it) */
    TCase *full = tcase_create("rgcn_minibatch-slow");
    tcase_set_tags(full, "full");
    tcase_add_checked_fixture(full, NULL, cli_cleanup);
    tcase_set_timeout(full, 300);
    tcase_add_test(full, partitions_match_one_rank);
    suite_add_tcase(s, full);
    return s;
}
