/* tests/test_reorder.c -- FastGL's Match-Reorder (include/gnnref/reorder.h, docs/reorder.md):
 * a window of four batches worked by hand under each normalization (the overlap matrix, the
 * greedy orders, windows, the rows loaded), argument errors, Match never loading more than the
 * full batch, and the tool: `sample --match` reports, `train --match` gives the same step losses
 * bit for bit with fewer pull bytes, the reorder is deterministic, and the flags are refused
 * where they do not apply. The oracle entries reorder.* check ref against cpu. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_util.h"
#include "gnnref/reorder.h"

static char out[1 << 16];
static const gnn_reorder_ops *const k_ops[] = { &gnn_reorder_ref, &gnn_reorder_cpu };

/* S0 = {1..4}, S1 = {3..10}, S2 = {1,2,3}, S3 = {2..7}, ids in scrambled order:
 *   overlaps 01: 2, 02: 3, 03: 3, 12: 1, 13: 5, 23: 2
 *   min:   from 0: 2/4, 3/3, 3/4 -> 2; from 2: 1/3, 2/3 -> 3; then 1      = 0 2 3 1
 *   later: from 0: 2/8, 3/3, 3/6 -> 2; from 2: 1/3, 2/6 tie -> 1; then 3 = 0 2 1 3
 *   count: from 0: 2, 3, 3 tie -> 2; from 2: 1, 2 -> 3; then 1         = 0 2 3 1
 * rows loaded: full 21; match in order 0 1 2 3: 4 + 6 + 2 + 4 = 16; in 0 2 3 1: 4 + 0 + 4 + 3
 * = 11; in 0 2 1 3: 4 + 0 + 7 + 1 = 12. */
static const int64_t s0[] = { 4, 1, 3, 2 }, s1[] = { 10, 3, 9, 4, 8, 5, 7, 6 }, s2[] = { 3, 1, 2 },
                     s3[] = { 7, 2, 6, 3, 5, 4 };
static const int64_t *const k_sets[] = { s0, s1, s2, s3 };
static const int64_t k_len[] = { 4, 8, 3, 6 };

START_TEST(hand_window)
{
    const gnn_reorder_ops *ops = k_ops[_i];
    static const int64_t want_ov[16] = { 4, 2, 3, 3, 2, 8, 1, 5, 3, 1, 3, 2, 3, 5, 2, 6 };
    static const int64_t want_order[3][4] = { { 0, 2, 3, 1 }, { 0, 2, 1, 3 }, { 0, 2, 3, 1 } };
    static const int64_t want_rows[3] = { 11, 12, 11 };
    int64_t ov[16], order[4], rows;
    ck_assert_int_eq(gnn_match_degree(ops, k_sets, k_len, 4, ov), GNN_OK);
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(ov[i], want_ov[i]);
    for (int norm = 0; norm < 3; norm++) {
        ck_assert_int_eq(gnn_greedy_reorder(ops, ov, 4, (gnn_match_norm)norm, order), GNN_OK);
        for (int i = 0; i < 4; i++)
            ck_assert_msg(order[i] == want_order[norm][i], "%s norm %s position %d: %lld", ops->name,
                          gnn_match_norm_name((gnn_match_norm)norm), i, (long long)order[i]);
        ck_assert_int_eq(gnn_reorder_windows(ops, k_sets, k_len, 4, 0, (gnn_match_norm)norm, order), GNN_OK);
        ck_assert_int_eq(gnn_match_rows_loaded(ops, k_sets, k_len, 4, order, 1, &rows), GNN_OK);
        ck_assert_int_eq(rows, want_rows[norm]);
    }
    ck_assert_int_eq(gnn_match_rows_loaded(ops, k_sets, k_len, 4, NULL, 0, &rows), GNN_OK);
    ck_assert_int_eq(rows, 21);
    ck_assert_int_eq(gnn_match_rows_loaded(ops, k_sets, k_len, 4, NULL, 1, &rows), GNN_OK);
    ck_assert_int_eq(rows, 16);
    /* windows of 2: each its own pair, in order; of 3: {0, 1, 2} -> 0 2 1, then {3}; of 1: identity */
    static const int64_t w2[4] = { 0, 1, 2, 3 }, w3[4] = { 0, 2, 1, 3 };
    for (int64_t w = 1; w <= 3; w++) {
        ck_assert_int_eq(gnn_reorder_windows(ops, k_sets, k_len, 4, w, GNN_MATCH_MIN, order), GNN_OK);
        for (int i = 0; i < 4; i++)
            ck_assert_int_eq(order[i], w == 3 ? w3[i] : w2[i]);
    }
    /* n = 1 and the plan of S3 after S1: reuse 5 rows, load {2} (row 1) */
    ck_assert_int_eq(gnn_reorder_windows(ops, k_sets, k_len, 1, 0, GNN_MATCH_MIN, order), GNN_OK);
    ck_assert_int_eq(order[0], 0);
    gnn_match_plan p;
    ck_assert_int_eq(gnn_match_plan_build(ops, s1, 8, s3, 6, &p), GNN_OK);
    ck_assert_int_eq(p.n_load, 1);
    ck_assert_int_eq(p.load_ids[0], 2);
    ck_assert_int_eq(p.from[1], -1);
    ck_assert_int_eq(p.from[0], 6); /* id 7 is row 6 of S1 */
    float prev[8], loaded[1] = { 200.0f }, x[6];
    for (int i = 0; i < 8; i++)
        prev[i] = 100.0f + (float)s1[i];
    ck_assert_int_eq(gnn_match_assemble(ops, &p, prev, loaded, 1, x), GNN_OK);
    for (int i = 0; i < 6; i++)
        ck_assert(x[i] == (s3[i] == 2 ? 200.0f : 100.0f + (float)s3[i]));
    gnn_match_plan_free(&p);
}
END_TEST

START_TEST(api_errors)
{
    int64_t ov[16], order[4], rows;
    const int64_t dup[] = { 1, 2, 1 }, neg[] = { 0, -3 };
    const int64_t *bad[] = { s0, dup }, *badr[] = { s0, neg }, blen[] = { 4, 3 }, nlen[] = { 4, 2 };
    ck_assert_int_eq(gnn_match_degree(NULL, k_sets, k_len, 4, ov), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_match_degree(&gnn_reorder_ref, k_sets, k_len, -1, ov), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_match_degree(&gnn_reorder_ref, k_sets, k_len, 4, NULL), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_match_degree(&gnn_reorder_ref, bad, blen, 2, ov), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_match_degree(&gnn_reorder_ref, badr, nlen, 2, ov), GNN_ERR_RANGE);
    ck_assert_int_eq(gnn_match_degree(&gnn_reorder_ref, k_sets, k_len, 0, NULL), GNN_OK);
    ck_assert_int_eq(gnn_match_degree(&gnn_reorder_ref, k_sets, k_len, 4, ov), GNN_OK);
    ck_assert_int_eq(gnn_greedy_reorder(&gnn_reorder_ref, ov, 4, (gnn_match_norm)3, order), GNN_ERR_INVAL);
    ov[1] = 3; /* not symmetric */
    ck_assert_int_eq(gnn_greedy_reorder(&gnn_reorder_ref, ov, 4, GNN_MATCH_MIN, order), GNN_ERR_INVAL);
    ov[1] = ov[4] = 5; /* symmetric but above |S0| */
    ck_assert_int_eq(gnn_greedy_reorder(&gnn_reorder_ref, ov, 4, GNN_MATCH_MIN, order), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_reorder_windows(&gnn_reorder_ref, k_sets, k_len, 4, -1, GNN_MATCH_MIN, order), GNN_ERR_INVAL);
    const int64_t bad_order[] = { 0, 4, 1, 2 };
    ck_assert_int_eq(gnn_match_rows_loaded(&gnn_reorder_ref, k_sets, k_len, 4, bad_order, 1, &rows), GNN_ERR_RANGE);
    gnn_match_plan p;
    ck_assert_int_eq(gnn_match_plan_build(&gnn_reorder_ref, s0, 4, dup, 3, &p), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_match_plan_build(&gnn_reorder_ref, s0, 4, s2, 3, NULL), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_match_plan_build(&gnn_reorder_ref, s0, 4, s2, 3, &p), GNN_OK);
    float x[3], prev[4] = { 0 };
    ck_assert_int_eq(gnn_match_assemble(&gnn_reorder_ref, &p, prev, NULL, 1, NULL), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_match_assemble(&gnn_reorder_ref, &p, prev, NULL, -1, x), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_match_assemble(&gnn_reorder_ref, &p, NULL, NULL, 1, x), GNN_ERR_RANGE);
    gnn_match_plan_free(&p);
    gnn_match_norm m;
    ck_assert_int_eq(gnn_match_norm_parse("later", &m), GNN_OK);
    ck_assert_int_eq(m, GNN_MATCH_LATER);
    ck_assert_int_eq(gnn_match_norm_parse("max", &m), GNN_ERR_INVAL);
}
END_TEST

/* Match loads |S_k \ S_{k-1}| <= |S_k| for every pair, including empty and identical batches */
START_TEST(match_never_loads_more)
{
    enum { N = 24 };
    static int64_t buf[N][64];
    const int64_t *sets[N];
    int64_t len[N];
    uint64_t x = 12345;
    for (int i = 0; i < N; i++) {
        len[i] = i % 5 == 2 ? 0 : 8 + i % 40; /* some empty */
        for (int64_t j = 0; j < len[i]; j++) { /* distinct: a stride through [0, 128) */
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            buf[i][j] = (int64_t)(((x >> 33) % 2 + (uint64_t)j * 2) % 128);
        }
        if (i % 7 == 6)
            memcpy(buf[i], buf[i - 1], sizeof buf[i]), len[i] = len[i - 1]; /* identical to its predecessor */
        sets[i] = buf[i];
    }
    for (int o = 0; o < 2; o++) {
        int64_t full, match;
        ck_assert_int_eq(gnn_match_rows_loaded(k_ops[o], sets, len, N, NULL, 0, &full), GNN_OK);
        ck_assert_int_eq(gnn_match_rows_loaded(k_ops[o], sets, len, N, NULL, 1, &match), GNN_OK);
        ck_assert_int_le(match, full);
        for (int i = 1; i < N; i++) {
            gnn_match_plan p;
            ck_assert_int_eq(gnn_match_plan_build(k_ops[o], sets[i - 1], len[i - 1], sets[i], len[i], &p), GNN_OK);
            ck_assert_int_le(p.n_load, len[i]);
            if (i % 7 == 6)
                ck_assert_int_eq(p.n_load, 0);
            gnn_match_plan_free(&p);
        }
    }
}
END_TEST

static int64_t json_int(const char *path, const char *key)
{
    static char buf[1 << 20];
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strstr(buf, key);
    ck_assert_msg(p != NULL, "%s: no %s", path, key);
    return strtoll(strchr(p + strlen(key), ':') + 1, NULL, 10); /* "key": value */
}

START_TEST(sample_reports_match)
{
    NEED_TOOL();
    char args[1024];
    snprintf(args, sizeof args, "sample --data builtin --fanouts 5,10,15 --batch 250 --batches 0 --match "
                                "--reorder-window 3 --match-norm later --json %s", tmp("s.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    ck_assert_msg(strstr(out, "match: rows loaded: full"), "%s", out);
    const int64_t full = json_int(tmp("s.json"), "\"full\""), match = json_int(tmp("s.json"), "\"match\"");
    ck_assert_int_gt(full, 0);
    ck_assert_int_le(match, full); /* Match alone never loads more; the reorders are only reported */
    ck_assert_int_eq(json_int(tmp("s.json"), "\"reorder_window\""), 3);
}
END_TEST

static void train(const char *flags, const char *json)
{
    char args[2048];
    snprintf(args, sizeof args,
             "train --data builtin --backend sim --ranks 4 --remote fetch --layers 3 --fanouts 5,10,15 --batch 250 "
             "--epochs 2 --hidden 8 --eval-every 0 --quiet %s --json %s",
             flags, json);
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
}

START_TEST(train_match_equals_plain)
{
    NEED_TOOL();
    static char a[1 << 20], b[1 << 20];
    train("", tmp("plain.json"));
    train("--match", tmp("match.json"));
    cli_steps_text(tmp("plain.json"), a, sizeof a);
    cli_steps_text(tmp("match.json"), b, sizeof b);
    ck_assert_msg(strlen(a) > 20 && !strcmp(a, b), "--match changed the step losses");
    const int64_t pa = json_int(tmp("plain.json"), "\"pull_bytes\""), pb = json_int(tmp("match.json"), "\"pull_bytes\"");
    ck_assert_msg(pb < pa, "first epoch's pull bytes: %lld with --match, %lld without", (long long)pb, (long long)pa);
    /* the reorder changes the order (hence the losses) but is a pure function of the seed */
    train("--match --reorder-window 3 --match-norm count", tmp("r1.json"));
    train("--match --reorder-window 3 --match-norm count", tmp("r2.json"));
    cli_steps_text(tmp("r1.json"), a, sizeof a);
    cli_steps_text(tmp("r2.json"), b, sizeof b);
    ck_assert_msg(strlen(a) > 20 && !strcmp(a, b), "the reordered run is not deterministic");
}
END_TEST

START_TEST(flags_refused)
{
    NEED_TOOL();
    const char *tr = "train --data builtin --layers 3 --fanouts 5,10,15 --epochs 1 --backend sim --ranks 2";
    char args[1024];
    expect_usage_error("sample --reorder-window 2", "applies to --match", out, sizeof out);
    expect_usage_error("sample --match-norm count", "applies to --match", out, sizeof out);
    snprintf(args, sizeof args, "%s --remote fetch --reorder-window 2", tr);
    expect_usage_error(args, "applies to --match", out, sizeof out);
    snprintf(args, sizeof args, "%s --remote hec --match", tr);
    expect_usage_error(args, "--remote fetch", out, sizeof out);
    snprintf(args, sizeof args, "%s --match", tr);
    expect_usage_error(args, "--remote fetch", out, sizeof out);
    snprintf(args, sizeof args, "%s --remote fetch --match --embed-dim 8", tr);
    expect_usage_error(args, "--embed-dim", out, sizeof out);
    snprintf(args, sizeof args, "%s --remote fetch --match --reorder-window 0 --pipeline 4", tr);
    expect_usage_error(args, "--pipeline", out, sizeof out);
    snprintf(args, sizeof args, "%s --remote fetch --match --match-norm later", tr);
    expect_usage_error(args, "--reorder-window", out, sizeof out);
}
END_TEST

Suite *suite_reorder(void)
{
    Suite *s = suite_create("reorder");
    TCase *tc = tcase_create("api");
    tcase_add_loop_test(tc, hand_window, 0, 2);
    tcase_add_test(tc, api_errors);
    tcase_add_test(tc, match_never_loads_more);
    suite_add_tcase(s, tc);
    TCase *tcli = tcase_create("cli");
    tcase_add_checked_fixture(tcli, NULL, cli_cleanup);
    tcase_set_timeout(tcli, 300);
    tcase_add_test(tcli, sample_reports_match);
    tcase_add_test(tcli, train_match_equals_plain);
    tcase_add_test(tcli, flags_refused);
    suite_add_tcase(s, tcli);
    return s;
}
