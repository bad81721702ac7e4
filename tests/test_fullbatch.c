/* tests/test_fullbatch.c -- SuperGCN's distributed full-batch training
 * (include/gnnref/train_fullbatch.h, docs/fullbatch.md): one rank is gnn_train's full batch bit
 * for bit; ref and opt, and 1 or 2 threads per rank, give the same step losses under the
 * simulator; every epoch's exchanges are exactly the plan's formula in bytes for every plan and
 * bit width; P ranks agree with one rank within rounding; the label propagation mask is the
 * keyed draw the header states; a rank that owns nothing takes part; bad configurations are
 * refused with a message. The accuracy acceptance (Facebook, 5 seeds) is tests/test_accuracy.c;
 * sim against mpirun is ci/mpi-check.sh. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/dataset.h"
#include "gnnref/impl.h"
#include "gnnref/partition.h"
#include "gnnref/rng.h"
#include "gnnref/sim.h"
#include "gnnref/train.h"
#include "gnnref/train_fullbatch.h"

#define MAX_STEPS 16

static void fb_sbm(gnn_dataset *ds, uint64_t seed)
{
    gnn_sbm_params p;
    gnn_sbm_defaults(&p);
    p.n = 1200;
    p.num_features = 24;
    p.seed = seed;
    p.train = 0.3;
    gnn_err err;
    ck_assert_msg(gnn_gen_sbm(ds, &p, &err) == GNN_OK, "%s", err.msg);
}

/* A run: the input, the configuration, and what rank 0 brings back. */
typedef struct fb_run {
    gnn_fb_input in;
    gnn_train_config cfg;
    gnn_fb_config fc;
    double loss[MAX_STEPS];
    int64_t n_steps;
    double test_acc;
    gnn_fb_report rep;
} fb_run;

static gnn_status fb_rank(gnn_comm *c, void *arg)
{
    fb_run *R = arg;
    gnn_train_result res;
    gnn_fb_report rep;
    gnn_err err = { "" };
    gnn_status st = gnn_train_fullbatch_dist(c, &R->in, &R->cfg, &R->fc, NULL, NULL, &res, &rep, &err);
    if (st)
        return gnn_err_set(&c->err, st, "%s", err.msg);
    if (gnn_comm_rank(c) == 0) {
        R->n_steps = res.n_steps < MAX_STEPS ? res.n_steps : MAX_STEPS;
        memcpy(R->loss, res.step_loss, (size_t)R->n_steps * sizeof(double));
        R->test_acc = res.test_acc;
        R->rep = rep;
    }
    gnn_train_result_free(&res);
    return GNN_OK;
}

/* Run R on P simulated ranks with t OpenMP threads per rank. */
static void fb_sim(fb_run *R, int P, int t)
{
    gnn_sim_config sc;
    gnn_sim_defaults(&sc);
    sc.ranks = P;
    sc.threads_per_rank = t;
    sc.timeout_s = 60;
    gnn_err err = { "" };
    gnn_status st = gnn_sim_run(&sc, fb_rank, R, NULL, &err);
    ck_assert_msg(st == GNN_OK, "P=%d: %s", P, err.msg);
}

static void fb_config(fb_run *R, const gnn_dataset *ds, const int32_t *part, gnn_model_kind model)
{
    memset(R, 0, sizeof *R);
    R->in.ds = ds;
    R->in.part = part;
    gnn_train_defaults(&R->cfg);
    R->cfg.model = model;
    R->cfg.mode = GNN_MODE_FULLBATCH;
    R->cfg.hidden = 8;
    R->cfg.epochs = 3;
    R->cfg.eval_every = 0;
    gnn_fb_defaults(&R->fc);
}

/* METIS parts of ds (k of them). */
static int32_t *metis_parts(const gnn_dataset *ds, int k)
{
    int32_t *part = malloc(sizeof(int32_t) * (size_t)ds->graph.n);
    gnn_part_options o;
    gnn_part_defaults(&o);
    o.k = k;
    o.seed = 1;
    gnn_err err = { "" };
    ck_assert_msg(gnn_partition_assign(&ds->graph, ds->split, &o, part, NULL, &err) == GNN_OK, "%s", err.msg);
    return part;
}

static void assert_same_steps(const fb_run *a, const fb_run *b, const char *what)
{
    ck_assert_int_eq(a->n_steps, b->n_steps);
    for (int64_t s = 0; s < a->n_steps; s++)
        ck_assert_msg(a->loss[s] == b->loss[s], "%s: step %lld: %.17g vs %.17g", what, (long long)s, a->loss[s],
                      b->loss[s]);
}

/* P ranks against one, fp32: the same function summed in another order (distagg.h). Measured
 * at most 2e-8 relative over these few steps; 1e-6 leaves a margin of 50 and still catches a
 * rank that computes something else (a 0.1% error in one rank's label embedding). */
static void assert_close_steps(const fb_run *a, const fb_run *one, const char *what)
{
    ck_assert_int_eq(a->n_steps, one->n_steps);
    for (int64_t s = 0; s < a->n_steps; s++)
        ck_assert_msg(fabs(a->loss[s] - one->loss[s]) <= 1e-6 * fabs(one->loss[s]), "%s: step %lld: %.17g vs one rank %.17g",
                      what, (long long)s, a->loss[s], one->loss[s]);
}

/* One rank, no label propagation: gnn_train's full batch, bit for bit (header's promise). */
START_TEST(fb_one_rank_is_gnn_train)
{
    static const gnn_model_kind models[3] = { GNN_MODEL_SAGE, GNN_MODEL_GCN, GNN_MODEL_GIN };
    gnn_dataset ds;
    fb_sbm(&ds, 3);
    int32_t *part = calloc((size_t)ds.graph.n, sizeof(int32_t));
    for (int i = 0; i < 3; i++)
        for (int ln = 0; ln < 2; ln++) {
            fb_run R;
            fb_config(&R, &ds, part, models[i]);
            R.cfg.layernorm = ln;
            R.cfg.eval_every = 1;
            fb_sim(&R, 1, 1);
            gnn_train_result res;
            gnn_err err = { "" };
            ck_assert_msg(gnn_train(&ds, &R.cfg, NULL, NULL, &res, &err) == GNN_OK, "%s", err.msg);
            ck_assert_int_eq(res.n_steps, R.n_steps);
            for (int64_t s = 0; s < R.n_steps; s++)
                ck_assert_msg(res.step_loss[s] == R.loss[s], "%s ln=%d step %lld: gnn_train %.17g, one rank %.17g",
                              gnn_model_name(models[i]), ln, (long long)s, res.step_loss[s], R.loss[s]);
            ck_assert(res.test_acc == R.test_acc);
            ck_assert_int_eq(R.rep.plan_rows, 0);
            ck_assert_int_eq(R.rep.epoch_bytes, 0);
            gnn_train_result_free(&res);
        }
    free(part);
    gnn_dataset_free(&ds);
}
END_TEST

/* ref and opt, 1 and 2 threads per rank: the same step losses, quantized with label
 * propagation (every kernel of the two contexts is bitwise its reference). */
START_TEST(fb_ref_opt_threads_bitwise)
{
    static const gnn_model_kind models[3] = { GNN_MODEL_SAGE, GNN_MODEL_GCN, GNN_MODEL_GIN };
    gnn_dataset ds;
    fb_sbm(&ds, 4);
    int32_t *part = metis_parts(&ds, 3);
    for (int i = 0; i < 3; i++) {
        fb_run base, other;
        fb_config(&base, &ds, part, models[i]);
        base.cfg.impl = gnn_impl_ref();
        base.fc.bits = 2;
        base.fc.lp_rate = 0.5f;
        fb_sim(&base, 3, 1);
        other = base;
        other.cfg.impl = gnn_impl_opt();
        fb_sim(&other, 3, 1);
        assert_same_steps(&base, &other, "ref vs opt, 1 thread");
        fb_sim(&other, 3, 2);
        assert_same_steps(&base, &other, "ref vs opt, 2 threads per rank");
        other.cfg.impl = gnn_impl_blas(); /* the same bits at every thread count too */
        fb_run blas1 = other;
        fb_sim(&blas1, 3, 1);
        fb_sim(&other, 3, 2);
        assert_same_steps(&blas1, &other, "blas, 1 vs 2 threads per rank");
    }
    free(part);
    gnn_dataset_free(&ds);
}
END_TEST

/* Every plan and bit width: one epoch's exchanges are exactly the plan's formula, every layer's
 * forward bytes are epochs x rows x gnn_quant_row_bytes(width), the hybrid plan sends the fewest
 * rows, and fp32 training agrees with one rank within rounding (the same function, summed in
 * another order). */
START_TEST(fb_traffic_is_the_formula)
{
    static const gnn_plan_kind plans[4] = { GNN_PLAN_PRE, GNN_PLAN_POST, GNN_PLAN_HYBRID, GNN_PLAN_DEGREE };
    static const int bits[4] = { 32, 8, 4, 2 };
    gnn_dataset ds;
    fb_sbm(&ds, 5);
    int32_t *one = calloc((size_t)ds.graph.n, sizeof(int32_t));
    fb_run single;
    fb_config(&single, &ds, one, GNN_MODEL_GCN);
    fb_sim(&single, 1, 1);
    for (int P = 2; P <= 4; P += 2) {
        int32_t *part = metis_parts(&ds, P);
        for (int p = 0; p < 4; p++)
            for (int b = 0; b < 4; b++) {
                fb_run R;
                fb_config(&R, &ds, part, GNN_MODEL_GCN);
                R.fc.plan = plans[p];
                R.fc.bits = bits[b];
                fb_sim(&R, P, 1);
                const gnn_fb_report *r = &R.rep;
                ck_assert_msg(r->epoch_bytes == r->epoch_formula && r->epoch_bytes > 0,
                              "P=%d plan %s bits %d: epoch %lld bytes, formula %lld", P, gnn_plan_kind_name(plans[p]),
                              bits[b], (long long)r->epoch_bytes, (long long)r->epoch_formula);
                for (int l = 0; l < R.cfg.layers; l++)
                    ck_assert_int_eq(r->fwd_bytes[l],
                                     R.cfg.epochs * r->plan_rows * gnn_quant_row_bytes(r->fwd_width[l], bits[b]));
                ck_assert(r->rows_hybrid <= r->rows_pre && r->rows_hybrid <= r->rows_post);
                ck_assert_int_eq(r->rows_pre, r->rows_post); /* the SBM is symmetric */
                if (bits[b] == 32)
                    assert_close_steps(&R, &single, gnn_plan_kind_name(plans[p]));
            }
        free(part);
    }
    free(one);
    gnn_dataset_free(&ds);
}
END_TEST

/* The propagation mask is float draw 0 of (seed, LABEL_MASK, epoch or 0, layer 0, id = v)
 * below the rate, over the labelled train vertices: counted here independently. */
START_TEST(fb_label_mask_is_keyed)
{
    gnn_dataset ds;
    fb_sbm(&ds, 6);
    int32_t *part = metis_parts(&ds, 2);
    for (int once = 0; once < 2; once++) {
        fb_run R;
        fb_config(&R, &ds, part, GNN_MODEL_SAGE);
        R.fc.lp_rate = 0.62f;
        R.fc.lp_once = once;
        R.cfg.epochs = 4;
        fb_sim(&R, 2, 1);
        int64_t expect = 0;
        for (uint32_t e = 0; e < 4; e++)
            for (int64_t v = 0; v < ds.graph.n; v++)
                if (ds.split[v] == GNN_SPLIT_TRAIN && ds.labels[v] >= 0) {
                    const gnn_rng_stream s = gnn_rng_stream_make(R.cfg.seed, GNN_TAG_LABEL_MASK, once ? 0u : e, 0,
                                                                 (uint64_t)v);
                    expect += gnn_rng_float(&s, 0) < 0.62f;
                }
        ck_assert_int_eq(R.rep.lp_propagated, expect);
        ck_assert(expect > 0);
        /* the same function as on one rank (the mask and E follow global ids) */
        fb_run one = R;
        int32_t *zero = calloc((size_t)ds.graph.n, sizeof(int32_t));
        one.in.part = zero;
        fb_sim(&one, 1, 1);
        assert_close_steps(&R, &one, "label propagation, 2 ranks vs 1");
        free(zero);
        /* SAGE aggregates layer 0's input: with LP its gradient crosses the ranks too */
        ck_assert_int_gt(R.rep.bwd_width[0], 0);
    }
    free(part);
    gnn_dataset_free(&ds);
}
END_TEST

/* A rank that owns no vertex still takes part in every exchange and allreduce. */
START_TEST(fb_rank_without_vertices)
{
    gnn_dataset ds;
    fb_sbm(&ds, 7);
    int32_t *part = malloc(sizeof(int32_t) * (size_t)ds.graph.n);
    for (int64_t v = 0; v < ds.graph.n; v++)
        part[v] = (int32_t)(v % 2); /* rank 2 of 3 owns nothing */
    fb_run R;
    fb_config(&R, &ds, part, GNN_MODEL_GCN);
    R.fc.bits = 4;
    fb_sim(&R, 3, 1);
    ck_assert_int_eq(R.rep.own_min, 0);
    ck_assert_int_eq(R.rep.epoch_bytes, R.rep.epoch_formula);
    ck_assert(isfinite(R.loss[R.n_steps - 1]));
    free(part);
    gnn_dataset_free(&ds);
}
END_TEST

static gnn_status refuse_rank(gnn_comm *c, void *arg)
{
    fb_run *R = arg;
    gnn_train_result res;
    gnn_err err = { "" };
    gnn_status st = gnn_train_fullbatch_dist(c, &R->in, &R->cfg, &R->fc, NULL, NULL, &res, NULL, &err);
    return st ? gnn_err_set(&c->err, st, "%s", err.msg) : GNN_OK;
}

static void assert_refused(fb_run *R, const char *needle)
{
    gnn_sim_config sc;
    gnn_sim_defaults(&sc);
    sc.ranks = 2;
    sc.timeout_s = 20;
    gnn_err err = { "" };
    ck_assert_int_eq(gnn_sim_run(&sc, refuse_rank, R, NULL, &err), GNN_ERR_INVAL);
    ck_assert_msg(strstr(err.msg, needle) != NULL, "message '%s' lacks '%s'", err.msg, needle);
}

START_TEST(fb_rejects_bad_config)
{
    gnn_dataset ds;
    fb_sbm(&ds, 8);
    int32_t *part = metis_parts(&ds, 2);
    fb_run R;
    fb_config(&R, &ds, part, GNN_MODEL_GAT);
    assert_refused(&R, "gat");
    fb_config(&R, &ds, part, GNN_MODEL_GCN);
    R.fc.bits = 3;
    assert_refused(&R, "--comm-bits 3");
    fb_config(&R, &ds, part, GNN_MODEL_GCN);
    R.fc.lp_rate = 1.0f;
    assert_refused(&R, "--lp-rate");
    fb_config(&R, &ds, NULL, GNN_MODEL_GCN);
    assert_refused(&R, "part vector");
    int32_t *bad = malloc(sizeof(int32_t) * (size_t)ds.graph.n);
    memcpy(bad, part, sizeof(int32_t) * (size_t)ds.graph.n);
    bad[5] = 7; /* outside [0, 2): every rank refuses it in set-up, none waits */
    fb_config(&R, &ds, bad, GNN_MODEL_GCN);
    gnn_sim_config sc;
    gnn_sim_defaults(&sc);
    sc.ranks = 2;
    sc.timeout_s = 20;
    gnn_err err = { "" };
    ck_assert_int_ne(gnn_sim_run(&sc, refuse_rank, &R, NULL, &err), GNN_OK);
    free(bad);
    free(part);
    gnn_dataset_free(&ds);
}
END_TEST

Suite *suite_fullbatch(void)
{
    Suite *s = suite_create("fullbatch");
    TCase *tc = tcase_create("fullbatch");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, fb_one_rank_is_gnn_train);
    tcase_add_test(tc, fb_ref_opt_threads_bitwise);
    tcase_add_test(tc, fb_traffic_is_the_formula);
    tcase_add_test(tc, fb_label_mask_is_keyed);
    tcase_add_test(tc, fb_rank_without_vertices);
    tcase_add_test(tc, fb_rejects_bad_config);
    suite_add_tcase(s, tc);
    return s;
}
