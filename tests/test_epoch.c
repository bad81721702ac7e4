/* tests/test_epoch.c -- the epoch loop both trainers share (core/epoch.c), against its
 * specification rather than against itself.
 *
 * The epoch order is shared code: gnn_train and gnn_train_part (every rank, ref and opt, the
 * simulator and MPI) all shuffle through gnn_train_epochs, so no ref-vs-opt or sim-vs-MPI
 * comparison can see it drift from DESIGN.md section 2. Here the order each step receives is
 * recomputed from the words of the specification alone: Fisher-Yates from the end, swap
 * position i with j = uint draw (n-1-i) below i+1 of the stream (seed, SHUFFLE, step = epoch,
 * layer 0, id = the plan's shuffle id: 0 for gnn_train, the rank for gnn_train_part), applied
 * to the train ids in the order given; draws as rng.h's gnn_rng_uint. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/epoch.h"
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

Suite *suite_epoch(void)
{
    Suite *s = suite_create("epoch");
    TCase *tc = tcase_create("core");
    tcase_set_tags(tc, "core");
    tcase_add_test(tc, epoch_order_is_the_specified_shuffle);
    suite_add_tcase(s, tc);
    return s;
}
