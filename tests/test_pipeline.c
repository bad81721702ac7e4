/* tests/test_pipeline.c -- DistDGLv2's asynchronous mini-batch pipeline for training on
 * partitions (core/train/train_part_pipe.c, docs/pipeline.md): pipelined training gives the serial
 * run's step losses bit for bit in every remote mode, at capacities from 1 to 25, with the
 * copy stage narrower than the sampling stage, across epochs, and when early stopping leaves
 * prefetched batches behind (nothing hangs or leaks); the flags that cannot combine are
 * refused. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_util.h"

static char out[1 << 16];

static void run(const char *flags, const char *json)
{
    char args[2048];
    snprintf(args, sizeof args, "train %s --json %s", flags, json);
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
}

START_TEST(pipelined_equals_serial)
{
    NEED_TOOL();
    static const char *const modes[] = { "hec --model sage", "fetch --model gat --heads 2", "drop --model gin" };
    static const char *const caps[] = { "--pipeline 1", "--pipeline 3 --pipeline-copy 1", "--pipeline 25" };
    static char a[1 << 20], b[1 << 20];
    for (int m = 0; m < 3; m++) {
        char common[512], flags[1024];
        snprintf(common, sizeof common,
                 "--data builtin --remote %s --layers 2 --fanouts 4,6 --batch 128 --epochs 3 --hidden 8 --quiet "
                 "--backend sim --ranks 3 --eval-every 0",
                 modes[m]);
        run(common, tmp("serial.json"));
        cli_steps_text(tmp("serial.json"), a, sizeof a);
        for (int c = 0; c < 3; c++) {
            snprintf(flags, sizeof flags, "%s %s", common, caps[c]);
            run(flags, tmp("pipe.json"));
            cli_steps_text(tmp("pipe.json"), b, sizeof b);
            ck_assert_msg(strlen(a) > 20 && !strcmp(a, b), "%s, %s: the pipelined steps differ from the serial ones",
                          modes[m], caps[c]);
        }
    }
}
END_TEST

/* early stopping ends the run with batches of later epochs prefetched: they are dropped */
START_TEST(early_stop_with_batches_ahead)
{
    NEED_TOOL();
    static char a[1 << 20], b[1 << 20];
    const char *common = "--data builtin --remote hec --layers 2 --fanouts 4,6 --batch 128 --epochs 30 --patience 1 "
                         "--hidden 8 --quiet --backend sim --ranks 2";
    run(common, tmp("serial.json"));
    char flags[1024];
    snprintf(flags, sizeof flags, "%s --pipeline 25", common);
    run(flags, tmp("pipe.json"));
    cli_steps_text(tmp("serial.json"), a, sizeof a);
    cli_steps_text(tmp("pipe.json"), b, sizeof b);
    ck_assert(!strcmp(a, b));
    expect_usage_error("train --data builtin --sampling distributed --pipeline 4", "--sampling distributed", out,
                       sizeof out);
    expect_usage_error("train --data builtin --remote hec --pipeline-copy 2", "--pipeline-copy applies to", out,
                       sizeof out);
}
END_TEST

Suite *suite_pipeline(void)
{
    Suite *s = suite_create("pipeline");
    TCase *tc = tcase_create("pipeline");
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, pipelined_equals_serial);
    tcase_add_test(tc, early_stop_with_batches_ahead);
    suite_add_tcase(s, tc);
    return s;
}
