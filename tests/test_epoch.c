/* tests/test_epoch.c -- the epoch loop both trainers share (core/train/epoch.c), against its
 * specification rather than against itself.
 *
 * The epoch order is shared code: gnn_train and gnn_train_part (every rank, ref and opt, the
 * simulator and MPI) all shuffle through gnn_train_epochs, so no ref-vs-opt or sim-vs-MPI
 * comparison can see it drift from DESIGN.md section 2. Here the order each step receives is
 * recomputed from the words of the specification alone: Fisher-Yates from the end, swap
 * position i with j = uint draw (n-1-i) below i+1 of the stream (seed, SHUFFLE, step = epoch,
 * layer 0, id = the plan's shuffle id: 0 for gnn_train, the rank for gnn_train_part), applied
 * to the train ids in the order given; draws as rng.h's gnn_rng_uint.
 *
 * Early stopping is the loop's too (record_eval, core/train/epoch.c): both rules are driven
 * here by a planted sequence of evaluations, so what restarts patience, what is kept and where
 * the run stops are checked against the rules' words (train.h gnn_stop_rule, docs/models.md section 4),
 * also across a checkpoint and resume. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/train/epoch.h"
#include "gnnref/rng.h"

#define N_TRAIN 37
#define EPOCHS 3
#define STEPS 2

typedef struct recorder {
    int64_t order[EPOCHS][N_TRAIN]; /* the order step 0 of each epoch received */
    int seen[EPOCHS];
    int ep;
} recorder;

static gnn_status rec_begin(void *self, int ep, gnn_err *err)
{
    (void)err;
    ((recorder *)self)->ep = ep;
    return GNN_OK;
}

static gnn_status rec_step(void *self, const int64_t *order, int64_t k, uint32_t step, gnn_epoch_stats *E,
                           double *loss, gnn_err *err)
{
    (void)step, (void)E, (void)err;
    recorder *r = self;
    if (k == 0 && order) {
        memcpy(r->order[r->ep], order, sizeof r->order[0]);
        r->seen[r->ep] = 1;
    }
    *loss = 0.0;
    return GNN_OK;
}

static gnn_status rec_eval(void *self, double acc[4], double *val_loss, gnn_err *err)
{
    (void)self, (void)err;
    acc[0] = acc[1] = acc[2] = acc[3] = 0.0;
    *val_loss = 0.0;
    return GNN_OK;
}

/* The specification, written out: Fisher-Yates from the end with the epoch's stream. */
static void spec_order(uint64_t seed, int ep, uint64_t id, const int64_t *train, int64_t *out)
{
    memcpy(out, train, N_TRAIN * sizeof(int64_t));
    const gnn_rng_stream s = gnn_rng_stream_make(seed, GNN_TAG_SHUFFLE, (uint32_t)ep, 0, id);
    for (int64_t i = N_TRAIN - 1; i >= 1; i--) {
        const int64_t j = (int64_t)gnn_rng_uint(&s, (uint64_t)(N_TRAIN - 1 - i), (uint64_t)(i + 1));
        const int64_t t = out[i];
        out[i] = out[j];
        out[j] = t;
    }
}

/* Every epoch's order, for shuffle ids 0 (gnn_train), 1 and 3 (ranks of gnn_train_part): the
 * specification's, and different between ranks (a rank that shuffled with another's stream
 * would walk its ids in a foreign order: mutant M42 of ci/mutants.txt). */
START_TEST(epoch_order_is_the_specified_shuffle)
{
    int64_t train[N_TRAIN];
    for (int i = 0; i < N_TRAIN; i++)
        train[i] = 1000 + 7 * i; /* not 0..n-1: a shuffle of positions would not pass */
    static const uint64_t ids[] = { 0, 1, 3 };
    int64_t first[3][N_TRAIN];
    for (size_t t = 0; t < sizeof ids / sizeof ids[0]; t++) {
        gnn_train_config c;
        gnn_train_defaults(&c);
        c.seed = 0x5eed0000000000abull;
        c.epochs = EPOCHS;
        c.eval_every = 0;
        recorder r;
        memset(&r, 0, sizeof r);
        const epoch_plan p = { .cfg = &c, .steps = STEPS, .train = train, .n_train = N_TRAIN, .shuffle_id = ids[t] };
        const epoch_ops ops = { .begin = rec_begin, .step = rec_step, .evaluate = rec_eval };
        gnn_train_result res;
        memset(&res, 0, sizeof res);
        gnn_err err = { 0 };
        ck_assert_int_eq(gnn_train_epochs(&p, &ops, &r, &res, &err), GNN_OK);
        gnn_train_result_free(&res);
        for (int ep = 0; ep < EPOCHS; ep++) {
            int64_t want[N_TRAIN];
            spec_order(c.seed, ep, ids[t], train, want);
            ck_assert_msg(r.seen[ep], "shuffle id %d: epoch %d: no step 0", (int)ids[t], ep);
            for (int i = 0; i < N_TRAIN; i++)
                ck_assert_msg(r.order[ep][i] == want[i],
                              "shuffle id %d, epoch %d: position %d holds %lld, the specified shuffle %lld",
                              (int)ids[t], ep, i, (long long)r.order[ep][i], (long long)want[i]);
        }
        memcpy(first[t], r.order[0], sizeof first[t]);
    }
    ck_assert_msg(memcmp(first[0], first[1], sizeof first[0]) != 0, "ranks 0 and 1 walk their ids in the same order");
    ck_assert_msg(memcmp(first[1], first[2], sizeof first[0]) != 0, "ranks 1 and 3 walk their ids in the same order");
}
END_TEST

/* ---- early stopping's rules (core/train/epoch.c record_eval; train.h gnn_stop_rule) ----
 * A planted sequence of evaluations, one per epoch, patience 3. Under gat (Velickovic et al.'s
 * execute_cora.py): a val accuracy >= its maximum OR a val loss <= its minimum restarts
 * patience, the model is kept when both are (ties count), and the run stops after 3
 * evaluations with neither. Under acc: better = a higher val accuracy, or equal with a lower
 * loss. The columns: val accuracy, val loss, test accuracy, and what gat does. */
static const double k_planted[][3] = {
    { 0.50, 1.00, 0.10 }, /*  0 both (the first): keep 0 */
    { 0.60, 0.90, 0.11 }, /*  1 both: keep 1 */
    { 0.55, 0.85, 0.12 }, /*  2 the loss alone: restart, no keep (acc: 1 without better) */
    { 0.55, 0.80, 0.13 }, /*  3 the loss alone: restart (acc: 2) */
    { 0.60, 0.95, 0.14 }, /*  4 the accuracy alone, a tie: restart (acc: 3, it stops here) */
    { 0.60, 0.80, 0.15 }, /*  5 both, ties of both extremes: keep 5 */
    { 0.58, 0.81, 0.16 }, /*  6 neither: 1 */
    { 0.59, 0.82, 0.17 }, /*  7 neither: 2 */
    { 0.61, 0.83, 0.18 }, /*  8 the accuracy alone: restart, no keep (the best val accuracy) */
    { 0.60, 0.84, 0.19 }, /*  9 neither: 1 */
    { 0.60, 0.85, 0.20 }, /* 10 neither: 2 */
    { 0.60, 0.86, 0.21 }, /* 11 neither: 3, stop */
    { 0.90, 0.10, 0.90 }, /* 12 and on: better in every way, never reached */
};
#define N_PLANTED ((int)(sizeof k_planted / sizeof k_planted[0]))

typedef struct planted {
    int ep;
    int fail_at; /* evaluate fails at this epoch (-1: never): a run interrupted after a checkpoint */
} planted;

static gnn_status planted_begin(void *self, int ep, gnn_err *err)
{
    (void)err;
    ((planted *)self)->ep = ep;
    return GNN_OK;
}

static gnn_status planted_step(void *self, const int64_t *order, int64_t k, uint32_t step, gnn_epoch_stats *E,
                               double *loss, gnn_err *err)
{
    (void)self, (void)order, (void)k, (void)step, (void)E, (void)err;
    *loss = 1.0;
    return GNN_OK;
}

static gnn_status planted_eval(void *self, double acc[4], double *val_loss, gnn_err *err)
{
    const planted *p = self;
    if (p->ep == p->fail_at)
        return gnn_err_set(err, GNN_ERR_IO, "planted failure at epoch %d", p->ep);
    const double *x = k_planted[p->ep < N_PLANTED ? p->ep : N_PLANTED - 1];
    acc[0] = 0.0;
    acc[1] = 0.5;
    acc[2] = x[0];
    *val_loss = x[1];
    acc[3] = x[2];
    return GNN_OK;
}

static gnn_status run_planted(gnn_stop_rule rule, int fail_at, const char *ckpt, int resume, gnn_train_result *res)
{
    gnn_train_config c;
    gnn_train_defaults(&c);
    c.model = GNN_MODEL_GAT;
    c.stop_rule = rule;
    gnn_train_resolve(&c);
    c.epochs = 40;
    c.patience = 3;
    c.checkpoint_dir = ckpt;
    static gnn_ckpt_fingerprint fp;
    memset(&fp, 0, sizeof fp);
    snprintf(fp.dataset, sizeof fp.dataset, "planted");
    fp.ranks = 1;
    fp.config_crc = gnn_ckpt_config_crc(&c, NULL);
    gnn_ckpt r;
    memset(&r, 0, sizeof r);
    gnn_err err = { 0 };
    if (resume)
        ck_assert_msg(gnn_epoch_resume_open(NULL, ckpt, &fp, &r, &err) == GNN_OK, "%s", err.msg);
    planted self = { 0, fail_at };
    const epoch_plan p = { .cfg = &c, .steps = 1, .fp = &fp, .resume = resume ? &r : NULL };
    const epoch_ops ops = { .begin = planted_begin, .step = planted_step, .evaluate = planted_eval };
    memset(res, 0, sizeof *res);
    const gnn_status st = gnn_train_epochs(&p, &ops, &self, res, &err);
    gnn_ckpt_free(&r);
    return st;
}

/* The gat rule's patience, kept model and stop epoch on the planted sequence; acc's beside it. */
START_TEST(epoch_stop_rule_gat)
{
    ck_assert_int_eq(GNN_STOP_GAT, 1); /* AUTO resolves gat for GNN_MODEL_GAT: */
    gnn_train_config c;
    gnn_train_defaults(&c);
    c.model = GNN_MODEL_GAT;
    gnn_train_resolve(&c);
    ck_assert_str_eq(gnn_stop_rule_name(c.stop_rule), "gat");
    c.model = GNN_MODEL_GCN;
    c.stop_rule = GNN_STOP_AUTO;
    gnn_train_resolve(&c);
    ck_assert_str_eq(gnn_stop_rule_name(c.stop_rule), "acc");

    gnn_train_result r;
    ck_assert_int_eq(run_planted(GNN_STOP_GAT, -1, NULL, 0, &r), GNN_OK);
    ck_assert_msg(r.stopped_early && r.stop_epoch == 11, "gat: stopped %d at epoch %d, expected at 11 (patience "
                  "restarted by the loss alone at 2 and 3, by a tied accuracy at 4 and 8)", r.stopped_early,
                  r.stop_epoch);
    ck_assert_int_eq(r.n_epochs, 12);
    ck_assert_msg(r.restored_epoch == 5, "gat: kept epoch %d, expected 5 (both extremes, tied)", r.restored_epoch);
    ck_assert(r.test_acc_restored == 0.15);
    ck_assert_int_eq(r.best_epoch, 8); /* the best val accuracy: reported as before */
    ck_assert(r.test_acc_at_best_val == 0.18);
    ck_assert(r.test_acc == 0.21); /* the stop epoch's */
    gnn_train_result_free(&r);

    ck_assert_int_eq(run_planted(GNN_STOP_ACC, -1, NULL, 0, &r), GNN_OK);
    ck_assert_int_eq(r.stop_epoch, 4);
    ck_assert_int_eq(r.restored_epoch, 1);
    ck_assert_int_eq(r.best_epoch, 1);
    ck_assert(r.test_acc_restored == 0.11 && r.test_acc_at_best_val == 0.11);
    gnn_train_result_free(&r);
}
END_TEST

/* The gat rule's state crosses a checkpoint: a run interrupted at epoch 8 (after epoch 7's
 * checkpoint) and resumed ends exactly as the run never stopped (a resume that forgot the
 * extremes would keep epoch 8, whose loss beats +inf). */
START_TEST(epoch_stop_rule_gat_resume)
{
    char dir[] = "/tmp/gnnref-stop-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    gnn_train_result r;
    ck_assert_int_eq(run_planted(GNN_STOP_GAT, 8, dir, 0, &r), GNN_ERR_IO);
    gnn_train_result_free(&r);
    ck_assert_int_eq(run_planted(GNN_STOP_GAT, -1, dir, 1, &r), GNN_OK);
    ck_assert_int_eq(r.resumed_epochs, 8);
    ck_assert_int_eq(r.stop_epoch, 11);
    ck_assert_int_eq(r.restored_epoch, 5);
    ck_assert(r.test_acc_restored == 0.15);
    gnn_train_result_free(&r);
    char path[512];
    ck_assert_int_eq(gnn_ckpt_path(dir, 0, path, sizeof path), GNN_OK);
    remove(path);
    rmdir(dir);
}
END_TEST

Suite *suite_epoch(void)
{
    Suite *s = suite_create("epoch");
    TCase *tc = tcase_create("core");
    tcase_set_tags(tc, "core");
    tcase_add_test(tc, epoch_order_is_the_specified_shuffle);
    tcase_add_test(tc, epoch_stop_rule_gat);
    tcase_add_test(tc, epoch_stop_rule_gat_resume);
    suite_add_tcase(s, tc);
    return s;
}
