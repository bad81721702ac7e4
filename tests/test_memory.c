/* tests/test_memory.c -- what the reports say about memory (issue 36 item 4).
 *
 * tcase "shared" (tag slow): simulated ranks share the dataset. `gnnref train` with 4 simulated
 * ranks, data-parallel on one dataset whose features are most of its size, must peak below 1.5x
 * the 1-rank run on the same file: a per-rank copy of the features alone would add 3x them.
 * The figure compared is the reports' peak_rss_bytes (cli_report_write: getrusage of the
 * process, every simulated rank being this process). */
#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include "cli_util.h"

static char out[1 << 16];

static long long peak_of(const char *report)
{
    json_object *r = json_object_from_file(report), *x;
    ck_assert_msg(r && json_object_object_get_ex(r, "peak_rss_bytes", &x), "%s: no peak_rss_bytes", report);
    const long long v = (long long)json_object_get_int64(x);
    json_object_put(r);
    return v;
}

START_TEST(sim_ranks_share_the_dataset)
{
    NEED_TOOL();
    char args[2048];
    /* 60,000 vertices x 512 features: 123 MB of features, the graph about 6 MB */
    snprintf(args, sizeof args, "gen sbm --nodes 60000 --features 512 --seed 3 -o %s", tmp("m.gnn"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    long long peak[2];
    const int ranks[2] = { 1, 4 };
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof args,
                 "train --data %s --backend sim --ranks %d --epochs 1 --batch 512 --fanouts 5,5 --hidden 16 "
                 "--quiet --json %s",
                 tmp("m.gnn"), ranks[i], tmp("m.json"));
        ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
        peak[i] = peak_of(tmp("m.json"));
    }
    fprintf(stderr, "memory: peak resident 1 rank %.1f MB, 4 simulated ranks %.1f MB (%.2fx)\n", peak[0] / 1e6,
            peak[1] / 1e6, (double)peak[1] / (double)peak[0]);
    ck_assert_msg(peak[0] > 123LL * 1000 * 1000, "1 rank peaked at %lld bytes, below its own features", peak[0]);
    ck_assert_msg((double)peak[1] < 1.5 * (double)peak[0], "4 simulated ranks peaked at %lld bytes, 1 rank at %lld",
                  peak[1], peak[0]);
}
END_TEST

Suite *suite_memory(void)
{
    Suite *s = suite_create("memory");
    TCase *t = tcase_create("shared");
    tcase_set_tags(t, "slow");
    tcase_set_timeout(t, 600);
    tcase_add_checked_fixture(t, NULL, cli_cleanup);
    tcase_add_test(t, sim_ranks_share_the_dataset);
    suite_add_tcase(s, t);
    return s;
}
