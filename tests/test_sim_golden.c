/* tests/test_sim_golden.c -- the simulator's golden fault patterns (sim/, docs/simulator.md):
 * which messages a fixed fault seed drops, delays and corrupts, pinned message by message, on
 * asynchronous messages (the segments each wait returns), and on blocking ones (the first
 * corrupted message with its CRC32C; the first lost one). The fault checks step by step are in
 * tests/test_sim_faults.c.
 *
 * Rank functions run on the simulator's threads, where Check's assertions must not be used:
 * they return GNN_ERR_MISMATCH with a message (CALL) and the test asserts on the run. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gnnref/comm.h"
#include "gnnref/sim.h"
#include "sim_util.h"

/* ---- golden fault patterns --------------------------------------------------------------
 * Which segments a fixed fault seed drops, delays and corrupts is pinned here, message by
 * message, so that a changed fault key (a swapped Philox field, another layer or tag, src and
 * dst exchanged, a draw index moved) fails even where every count stays plausible. The oracle
 * entry sim.faults recomputes the same decisions from docs/simulator.md's keying; these
 * strings pin them against the generator too. Each string lists, per receiving rank, what
 * each wait returned: "src:step" per segment. Empty segments (count 0) travel like the
 * others: dropped and delayed, never flipped. */

#define GOLD_STEPS 4
#define GOLD_P 3

typedef struct gold_arg {
    char got[GOLD_P][256];
} gold_arg;

/* rank r sends (r + q + step) % 3 i32 to rank q at each step on tag 6; every wait at once */
static gnn_status fn_gold(gnn_comm *c, void *arg)
{
    gold_arg *a = arg;
    const int P = gnn_comm_size(c), me = gnn_comm_rank(c);
    char *out = a->got[me];
    size_t n_out = 0;
    for (int step = 0; step < GOLD_STEPS; step++) {
        int32_t send[2 * MAXP] = { 0 };
        int64_t sc[MAXP], sd[MAXP];
        for (int q = 0; q < P; q++) {
            sc[q] = (me + q + step) % 3;
            sd[q] = 2 * q;
        }
        gnn_comm_req *req;
        const gnn_comm_seg *seg;
        int n;
        CALL(gnn_comm_ialltoallv(c, send, sc, sd, GNN_DT_I32, 6, &req));
        gnn_status st = gnn_comm_wait(c, req, &seg, &n);
        if (!st) {
            n_out += (size_t)snprintf(out + n_out, sizeof a->got[0] - n_out, "%s[", step ? " " : "");
            for (int k = 0; k < n; k++)
                n_out += (size_t)snprintf(out + n_out, sizeof a->got[0] - n_out, "%s%d:%lld", k ? " " : "", seg[k].src,
                                          (long long)seg[k].step);
            n_out += (size_t)snprintf(out + n_out, sizeof a->got[0] - n_out, "]");
        }
        gnn_comm_req_free(c, req);
        if (st)
            return st;
    }
    return GNN_OK;
}

typedef struct gold_case {
    const char *what;
    gnn_sim_faults f;
    const char *want[GOLD_P];
    int64_t dropped, delayed, flipped, detected, undelivered;
} gold_case;

/* P = 3, 4 steps on tag 6 */
static const gold_case k_gold[] = {
    { "drop 0.4, seed 7", { .seed = 7, .drop_p = 0.4 },
      { "[0:0 1:0 2:0] [0:1 1:1 2:1] [0:2 1:2 2:2] [0:3 1:3]",
        "[0:0 1:0] [0:1 1:1] [1:2 2:2] [0:3 1:3 2:3]",
        "[0:0 1:0 2:0] [0:1 1:1 2:1] [0:2 2:2] [2:3]" },
      7, 0, 0, 0, 0 },
    { "delay 0.4 by 1, seed 7", { .seed = 7, .delay_p = 0.4, .delay_steps = 1 },
      { "[0:0 1:0] [2:0 0:1 1:1] [2:1 0:2 2:2] [1:2 0:3]",
        "[1:0 2:0] [0:0 1:1 2:1] [0:1 1:2] [0:2 2:2 1:3]",
        "[2:0] [0:0 1:0 0:1 2:1] [1:1 0:2 1:2 2:2] [1:3 2:3]" },
      0, 15, 0, 0, 5 },
    { "flip 0.4, seed 7", { .seed = 7, .flip_p = 0.4 },
      { "[0:0 1:0 2:0] [0:1 1:1 2:1] [0:2 1:2] [0:3]",
        "[1:0 2:0] [1:1 2:1] [0:2 1:2 2:2] [1:3 2:3]",
        "[1:0 2:0] [0:1 1:1 2:1] [0:2 1:2 2:2] [1:3 2:3]" },
      0, 0, 8, 8, 0 },
    /* a corrupted segment delayed past the last wait is undelivered, not detected */
    { "all three, seed 7", { .seed = 7, .drop_p = 0.3, .delay_p = 0.3, .delay_steps = 2, .flip_p = 0.3 },
      { "[0:0 1:0 2:0] [0:1 1:1 2:1] [0:2] [0:3]",
        "[1:0] [1:1] [1:2] [1:3]",
        "[2:0] [0:1 1:1 2:1] [1:0 0:2 2:2] [2:3]" },
      6, 10, 6, 4, 6 },
    /* the seed's high word is the key's second word */
    { "all three, seed 2^40 + 3", { .seed = (1ull << 40) + 3, .drop_p = 0.3, .delay_p = 0.3, .delay_steps = 1, .flip_p = 0.3 },
      { "[0:0 1:0] [0:1 1:1 2:1] [0:2] [1:2 0:3]",
        "[1:0] [1:1] [1:2 2:2] [0:2 0:3 1:3 2:3]",
        "[2:0] [1:0 1:1 2:1] [0:2 2:2] [1:3 2:3]" },
      7, 6, 5, 5, 0 },
};

START_TEST(fault_golden_async)
{
    const gold_case *g = &k_gold[_i];
    gnn_sim_config cfg = config(GOLD_P);
    cfg.faults = g->f;
    gold_arg a;
    memset(&a, 0, sizeof a);
    gnn_sim_report rep;
    gnn_err err = { "" };
    ck_assert_msg(gnn_sim_run(&cfg, fn_gold, &a, &rep, &err) == GNN_OK, "%s: %s", g->what, err.msg);
    for (int r = 0; r < GOLD_P; r++)
        ck_assert_msg(!strcmp(a.got[r], g->want[r]), "%s: rank %d received\n  %s\nthe golden pattern is\n  %s", g->what,
                      r, a.got[r], g->want[r]);
    ck_assert_int_eq(rep.faults_dropped, g->dropped);
    ck_assert_int_eq(rep.faults_delayed, g->delayed);
    ck_assert_int_eq(rep.faults_flipped, g->flipped);
    ck_assert_int_eq(rep.faults_detected, g->detected);
    ck_assert_int_eq(rep.undelivered, g->undelivered);
    gnn_sim_report_free(&rep);
}
END_TEST

/* Blocking messages: the first corrupted message of a fixed seed, with the CRC32C it arrived
 * with (which pins the flipped bit, integer draw 2 of its key). */
static gnn_status fn_gold_blocking(gnn_comm *c, void *arg)
{
    const int P = gnn_comm_size(c), me = gnn_comm_rank(c);
    for (int k = 0; k < 6; k++) {
        int32_t s[MAXP], r[MAXP];
        int64_t cnt[MAXP], dsp[MAXP];
        for (int q = 0; q < P; q++) {
            cnt[q] = 1;
            dsp[q] = q;
            s[q] = me * 100 + q * 10 + k;
        }
        CALL(gnn_comm_alltoallv(c, s, cnt, dsp, r, cnt, dsp, GNN_DT_I32));
    }
    (void)arg;
    return GNN_OK;
}

static const struct {
    uint64_t seed;
    double flip_p;
    const char *want; /* the run's message */
} k_gold_blocking[] = {
    { 1, 0.2, "rank 1: corrupted message: CRC32C mismatch in alltoallv from rank 0 to rank 1 (4 bytes, sent 0xc50119d2, "
              "received 0xfac4e853)" },
    { 5, 0.5, "rank 1: corrupted message: CRC32C mismatch in alltoallv from rank 0 to rank 1 (4 bytes, sent 0x01440ba0, "
              "received 0xfa87f159)" },
    { 12, 0.1, "rank 2: corrupted message: CRC32C mismatch in alltoallv from rank 0 to rank 2 (4 bytes, sent 0x076461b1, "
               "received 0xf50fe2b2)" },
};

START_TEST(fault_golden_blocking)
{
    gnn_sim_config cfg = config(GOLD_P);
    cfg.faults = (gnn_sim_faults){ .seed = k_gold_blocking[_i].seed, .flip_p = k_gold_blocking[_i].flip_p };
    gnn_err err = { "" };
    ck_assert_int_eq(gnn_sim_run(&cfg, fn_gold_blocking, NULL, NULL, &err), GNN_ERR_COMM);
    ck_assert_msg(!strcmp(err.msg, k_gold_blocking[_i].want), "seed %llu: \"%s\", golden \"%s\"",
                  (unsigned long long)k_gold_blocking[_i].seed, err.msg, k_gold_blocking[_i].want);
}
END_TEST

/* A lost blocking message of a fixed seed, pinned (float draw 0 of the blocking stream), and
 * reported as lost, at once, not as a timeout (the bound here is 2 s). Turning the drop on does
 * not move the flips: with drop_blocking_p tiny, the flip goldens above still hold. */
static const struct {
    uint64_t seed;
    double drop_blocking_p;
    const char *want;
} k_gold_drop_blocking[] = {
    { 1, 0.2, "rank 1: lost message: alltoallv from rank 2 to rank 1 dropped (4 bytes, blocking message #0 "
              "from rank 2 to rank 1): rank 1, in alltoallv(i32, count=3) [call #0], would wait for it forever "
              "(1 message of this collective lost)" },
    { 5, 0.2, "rank 1: lost message: alltoallv from rank 0 to rank 1 dropped (4 bytes, blocking message #0 "
              "from rank 0 to rank 1): rank 1, in alltoallv(i32, count=3) [call #0], would wait for it forever "
              "(3 messages of this collective lost)" },
    { 12, 0.1, "rank 1: lost message: alltoallv from rank 0 to rank 1 dropped (4 bytes, blocking message #2 "
               "from rank 0 to rank 1): rank 1, in alltoallv(i32, count=3) [call #2], would wait for it forever "
               "(1 message of this collective lost)" },
};

START_TEST(fault_golden_drop_blocking)
{
    gnn_sim_config cfg = config(GOLD_P);
    cfg.timeout_s = 2;
    cfg.faults = (gnn_sim_faults){ .seed = k_gold_drop_blocking[_i].seed,
                                   .drop_blocking_p = k_gold_drop_blocking[_i].drop_blocking_p };
    gnn_sim_report rep;
    gnn_err err = { "" };
    ck_assert_int_eq(gnn_sim_run(&cfg, fn_gold_blocking, NULL, &rep, &err), GNN_ERR_COMM);
    ck_assert_msg(!strcmp(err.msg, k_gold_drop_blocking[_i].want), "seed %llu: \"%s\", golden \"%s\"",
                      (unsigned long long)k_gold_drop_blocking[_i].seed, err.msg, k_gold_drop_blocking[_i].want);
    ck_assert_msg(rep.wall_s < cfg.timeout_s, "reported after %g s", rep.wall_s);
    ck_assert_int_ge(rep.faults_dropped, 1);
    gnn_sim_report_free(&rep);
    /* the flips of the same seed do not move when the drop is on but never hits */
    cfg.faults = (gnn_sim_faults){ .seed = k_gold_blocking[_i].seed, .flip_p = k_gold_blocking[_i].flip_p,
                                   .drop_blocking_p = 1e-12 };
    ck_assert_int_eq(gnn_sim_run(&cfg, fn_gold_blocking, NULL, NULL, &err), GNN_ERR_COMM);
    ck_assert_msg(!strcmp(err.msg, k_gold_blocking[_i].want), "seed %llu: \"%s\", golden \"%s\"",
                  (unsigned long long)k_gold_blocking[_i].seed, err.msg, k_gold_blocking[_i].want);
}
END_TEST

Suite *suite_sim_golden(void)
{
    Suite *s = suite_create("sim_golden");
    TCase *tc = tcase_create("sim");
    tcase_set_tags(tc, "sim");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, fault_golden_async, 0, (int)(sizeof k_gold / sizeof k_gold[0]));
    tcase_add_loop_test(tc, fault_golden_blocking, 0, (int)(sizeof k_gold_blocking / sizeof k_gold_blocking[0]));
    tcase_add_loop_test(tc, fault_golden_drop_blocking, 0,
                        (int)(sizeof k_gold_drop_blocking / sizeof k_gold_drop_blocking[0]));
    suite_add_tcase(s, tc);
    return s;
}
