/* tests/test_dist.c -- synchronous data-parallel training on the simulator (docs/comm.md
 * section 5): P ranks train the single-rank model up to the order of the gradient sums;
 * runs are deterministic; empty slices (more ranks than seeds) work; full batch too. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnnref/dataset.h"
#include "gnnref/sim.h"
#include "gnnref/train.h"

static gnn_dataset g_ds;
static int g_have_ds;

static const gnn_dataset *dataset(void)
{
    if (!g_have_ds) {
        gnn_err err;
        ck_assert_int_eq(gnn_dataset_builtin(&g_ds, &err), GNN_OK);
        g_have_ds = 1;
    }
    return &g_ds;
}

static void free_dataset(void)
{
    if (g_have_ds)
        gnn_dataset_free(&g_ds);
    g_have_ds = 0;
}

typedef struct job {
    gnn_train_config cfg;
    double *loss;      /* rank 0's step losses */
    int64_t n_steps;
    double test_acc;
} job;

static gnn_status rank_fn(gnn_comm *c, void *arg)
{
    job *J = arg;
    gnn_train_config cfg = J->cfg;
    cfg.comm = c;
    gnn_train_result res;
    gnn_err err = { "" };
    gnn_status st = gnn_train(dataset(), &cfg, NULL, NULL, &res, &err);
    if (st)
        return gnn_err_set(&c->err, st, "%s", err.msg);
    if (gnn_comm_rank(c) == 0) {
        J->loss = malloc(sizeof(double) * (size_t)res.n_steps + 1);
        memcpy(J->loss, res.step_loss, sizeof(double) * (size_t)res.n_steps);
        J->n_steps = res.n_steps;
        J->test_acc = res.test_acc;
    }
    gnn_train_result_free(&res);
    return GNN_OK;
}

static void run(job *J, int ranks)
{
    gnn_sim_config sc;
    gnn_sim_defaults(&sc);
    sc.ranks = ranks;
    gnn_err err = { "" };
    gnn_status st = gnn_sim_run(&sc, rank_fn, J, NULL, &err);
    ck_assert_msg(st == GNN_OK, "sim run with %d ranks: %s", ranks, err.msg);
    ck_assert_int_gt(J->n_steps, 0);
}

static void base_config(gnn_train_config *c)
{
    gnn_train_defaults(c);
    dataset();
    c->epochs = 2;
    c->batch = 256;
    c->seed = 3;
    c->eval_every = 0;
}

/* max over steps of |a - b| / max(|a|, 1e-3) (a well-fit batch may have loss 0) */
static double max_rel(const job *a, const job *b, int64_t steps)
{
    ck_assert_int_eq(a->n_steps, b->n_steps);
    double m = 0.0;
    for (int64_t s = 0; s < a->n_steps && s < steps; s++)
        m = fmax(m, fabs(a->loss[s] - b->loss[s]) / fmax(fabs(a->loss[s]), 1e-3));
    return m;
}

START_TEST(data_parallel_matches_one_rank)
{
    /* not gcn: its mini-batch normalization uses the block's src degrees, which depend on
     * which seeds share a block (as DGL's GraphConv on blocks), so splitting the batch
     * changes the model; full-batch gcn is checked below */
    static const gnn_model_kind models[] = { GNN_MODEL_SAGE, GNN_MODEL_GIN, GNN_MODEL_GAT };
    for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
        job one = { 0 }, four = { 0 }, again = { 0 };
        base_config(&one.cfg);
        one.cfg.model = models[mi];
        if (models[mi] == GNN_MODEL_GAT) { /* smaller, so the test stays quick */
            one.cfg.heads = 2;
            one.cfg.hidden = 16;
        }
        four.cfg = again.cfg = one.cfg;
        run(&one, 1);
        run(&four, 4);
        run(&again, 4);
        /* the same P: the same bits, run after run */
        ck_assert_int_eq(four.n_steps, again.n_steps);
        ck_assert_mem_eq(four.loss, again.loss, sizeof(double) * (size_t)four.n_steps);
        /* P ranks vs one: the same sums in another order; over 2 epochs of Adam the
         * rounding differences stay far below the loss's own step-to-step change */
        const double d = max_rel(&one, &four, one.n_steps);
        printf("data parallel %s: 4 ranks vs 1 rank, max relative step-loss difference %.3g over %lld steps\n",
               gnn_model_name(models[mi]), d, (long long)one.n_steps);
        ck_assert_msg(d < 1e-4, "4 ranks differ from 1 rank by %g", d);
        ck_assert(d > 0.0 || one.n_steps == 1); /* a bitwise tie would mean the ranks did not split the work */
        free(one.loss);
        free(four.loss);
        free(again.loss);
    }
}
END_TEST

/* batch 2 on 3 ranks: one rank has an empty slice in every step */
START_TEST(more_ranks_than_seeds)
{
    job one = { 0 }, three = { 0 };
    base_config(&one.cfg);
    one.cfg.epochs = 1;
    one.cfg.batch = 2;
    three.cfg = one.cfg;
    run(&one, 1);
    run(&three, 3);
    /* 1000 steps of batch 2: rounding differences grow chaotically over hundreds of tiny-batch
     * Adam steps (1e-2 relative by step 400), so compare the first 50, where they are rounding */
    const double d = max_rel(&one, &three, 50);
    ck_assert_msg(d < 1e-4, "3 ranks differ from 1 rank by %g", d);
    free(one.loss);
    free(three.loss);
}
END_TEST

START_TEST(fullbatch_data_parallel)
{
    job one = { 0 }, two = { 0 };
    base_config(&one.cfg);
    one.cfg.model = GNN_MODEL_GCN;
    one.cfg.mode = GNN_MODE_FULLBATCH;
    one.cfg.epochs = 5;
    two.cfg = one.cfg;
    run(&one, 1);
    run(&two, 2);
    const double d = max_rel(&one, &two, one.n_steps);
    ck_assert_msg(d < 1e-5, "2 ranks differ from 1 rank by %g", d);
    free(one.loss);
    free(two.loss);
}
END_TEST

Suite *suite_dist(void)
{
    Suite *s = suite_create("dist");
    TCase *tc = tcase_create("sim");
    tcase_set_tags(tc, "sim");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, NULL, free_dataset);
    tcase_add_test(tc, data_parallel_matches_one_rank);
    tcase_add_test(tc, more_ranks_than_seeds);
    tcase_add_test(tc, fullbatch_data_parallel);
    suite_add_tcase(s, tc);
    return s;
}
