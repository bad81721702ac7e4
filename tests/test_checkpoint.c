/* tests/test_checkpoint.c -- checkpoint and resume (include/gnnref/checkpoint.h,
 * docs/checkpoint.md), through the tool: a run killed with SIGKILL at a step chosen by the
 * keyed generator (the test hook GNNREF_TEST_KILL_AT_STEP of cli/train_report.c), then resumed
 * from its last checkpoint, gives the step losses and the final weights (a CRC32C of every
 * parameter, "final.weights_crc32c") of the run never stopped, bit for bit: on one rank, data
 * parallel on 4 simulated ranks, and on partitions on 4 simulated ranks (hec with delay 2, hec
 * with the pipeline and a checkpoint every 2 epochs, fetch with sparse embeddings, fetch with
 * Match). Checkpoints of another configuration, dataset or rank count, and corrupted, truncated
 * or missing files are refused with a message. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_util.h"
#include "gnnref/checkpoint.h"
#include "gnnref/crc32c.h"
#include "gnnref/rng.h"

static char out[1 << 16];

/* The value of "key": "..." in a JSON file, into v. */
static void json_str(const char *path, const char *key, char *v, size_t cap)
{
    static char buf[1 << 20];
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *p = strstr(buf, pat);
    ck_assert_msg(p != NULL, "%s: no %s", path, key);
    p += strlen(pat);
    size_t k = 0;
    while (p[k] && p[k] != '"' && k + 1 < cap) {
        v[k] = p[k];
        k++;
    }
    v[k] = 0;
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

/* One setting: the uninterrupted run, then a run with --checkpoint killed after a keyed step
 * (at least one epoch in, so a checkpoint exists; before the last), then --resume. */
static void kill_and_resume(int setting, const char *flags, int epochs, int every)
{
    static char a[1 << 20], b[1 << 20];
    char args[2048], wa[32], wb[32], ev[32] = "";
    if (every > 1)
        snprintf(ev, sizeof ev, "--checkpoint-every %d", every);
    else
        every = 1;
    snprintf(args, sizeof args, "train %s --epochs %d --quiet --json %s", flags, epochs, tmp("full.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    cli_steps_text(tmp("full.json"), a, sizeof a);
    const int total = count(a, "\"loss\""), M = total / epochs;
    ck_assert_msg(M >= 2 && M * epochs == total, "%s: %d steps over %d epochs", flags, total, epochs);
    /* the kill step: a test's choice of case, keyed like the oracle's (tag ORACLE, id = setting),
     * uniform over [every M, total - 1): after the first checkpoint, before the last step */
    const gnn_rng_stream s = gnn_rng_stream_make(25, GNN_TAG_ORACLE, 0, 0, (uint64_t)setting);
    const int kill = every * M + (int)gnn_rng_uint(&s, 0, (uint64_t)(total - 1 - every * M));
    remove(tmp("killed.json"));
    snprintf(args, sizeof args, "env GNNREF_TEST_KILL_AT_STEP=%d %s train %s --epochs %d --quiet --checkpoint %s %s "
                                "--json %s", kill, getenv("GNN_TOOL"), flags, epochs, tmp("ck"), ev,
             tmp("killed.json"));
    /* `tool` prefixes GNN_TOOL: run through env instead, so the variable reaches the child */
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s >%s 2>&1 </dev/null", args, tmp("killed.txt"));
    const int rc = system(cmd);
    ck_assert_msg(!(WIFEXITED(rc) && WEXITSTATUS(rc) == 0), "%s: the run was not killed", flags);
    FILE *f = fopen(tmp("killed.json"), "r");
    ck_assert_msg(f == NULL, "%s: the killed run wrote its report", flags);
    snprintf(args, sizeof args, "train %s --epochs %d --quiet --resume %s --checkpoint %s --json %s", flags, epochs,
             tmp("ck"), tmp("ck"), tmp("resumed.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    cli_steps_text(tmp("resumed.json"), b, sizeof b);
    ck_assert_msg(!strcmp(a, b), "%s, killed after step %d: the resumed run's step losses differ", flags, kill);
    json_str(tmp("full.json"), "weights_crc32c", wa, sizeof wa);
    json_str(tmp("resumed.json"), "weights_crc32c", wb, sizeof wb);
    ck_assert_msg(!strcmp(wa, wb), "%s: final weights %s, resumed %s", flags, wa, wb);
    json_str(tmp("full.json"), "state_crc32c", wa, sizeof wa);
    json_str(tmp("resumed.json"), "state_crc32c", wb, sizeof wb);
    ck_assert_msg(!strcmp(wa, wb), "%s: final Adam state %s, resumed %s", flags, wa, wb);
    /* the resumed run did run steps: it restored at least one epoch and fewer than the run has */
    f = fopen(tmp("resumed.json"), "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(b, 1, sizeof b - 1, f);
    fclose(f);
    b[n] = 0;
    const char *re = strstr(b, "\"resumed_epochs\":");
    ck_assert_ptr_nonnull(re);
    const int resumed = atoi(re + strlen("\"resumed_epochs\":"));
    ck_assert_msg(resumed >= 1 && resumed < epochs, "%s: killed after step %d, resumed after %d epochs", flags, kill,
                  resumed);
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp("ck"));
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(single_rank)
{
    NEED_TOOL();
    kill_and_resume(0, "--data builtin --batch 128 --hidden 16 --fanouts 5,5", 4, 0);
}
END_TEST

START_TEST(data_parallel_4_ranks)
{
    NEED_TOOL();
    kill_and_resume(1, "--data builtin --batch 128 --hidden 16 --fanouts 5,5 --backend sim --ranks 4", 4, 0);
}
END_TEST

START_TEST(partitions_hec_4_ranks)
{
    NEED_TOOL();
    const char *base = "--data builtin --batch 64 --hidden 16 --fanouts 5,5 --backend sim --ranks 4";
    char flags[512];
    snprintf(flags, sizeof flags, "%s --remote hec --hec-delay 2", base);
    kill_and_resume(2, flags, 4, 0);
    snprintf(flags, sizeof flags, "%s --remote hec --pipeline 3", base);
    kill_and_resume(3, flags, 5, 2);
    snprintf(flags, sizeof flags, "%s --remote fetch --embed-dim 8", base);
    kill_and_resume(4, flags, 3, 0);
    snprintf(flags, sizeof flags, "%s --remote fetch --match", base);
    kill_and_resume(5, flags, 3, 0);
}
END_TEST

/* A checkpoint of one run, and runs that must not resume from it. */
START_TEST(refused)
{
    NEED_TOOL();
    char args[2048], cmd[2048];
    const char *flags = "--data builtin --batch 256 --hidden 8 --fanouts 3,3 --epochs 2 --quiet";
    snprintf(args, sizeof args, "train %s --backend sim --ranks 2 --checkpoint %s", flags, tmp("ck"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    snprintf(args, sizeof args, "train %s --backend sim --ranks 2 --lr 0.02 --resume %s", flags, tmp("ck"));
    expect_usage_error(args, "another training configuration", out, sizeof out);
    snprintf(args, sizeof args, "train %s --backend sim --ranks 4 --resume %s", flags, tmp("ck"));
    expect_usage_error(args, "written by a run on 2 ranks; this run has 4", out, sizeof out);
    snprintf(args, sizeof args, "train --data builtin-typed --batch 256 --hidden 8 --fanouts 3,3 --epochs 2 --quiet "
                                "--backend sim --ranks 2 --resume %s", tmp("ck"));
    expect_usage_error(args, "written for dataset", out, sizeof out);
    snprintf(args, sizeof args, "train %s --backend sim --ranks 2 --remote hec --resume %s", flags, tmp("ck"));
    expect_usage_error(args, "ck/rank-0000", out, sizeof out);
    /* a flipped byte in rank 1's file: every rank refuses, naming rank 1's file */
    snprintf(cmd, sizeof cmd, "cp %s/rank-00001.ckpt %s && printf '\\377' | dd of=%s/rank-00001.ckpt bs=1 seek=2000 "
                              "conv=notrunc 2>/dev/null", tmp("ck"), tmp("saved.ckpt"), tmp("ck"));
    ck_assert_int_eq(system(cmd), 0);
    snprintf(args, sizeof args, "train %s --backend sim --ranks 2 --resume %s", flags, tmp("ck"));
    expect_usage_error(args, "checksum mismatch", out, sizeof out);
    ck_assert_msg(strstr(out, "rank-00001.ckpt"), "%s", out);
    snprintf(cmd, sizeof cmd, "head -c 100 %s > %s/rank-00001.ckpt", tmp("saved.ckpt"), tmp("ck"));
    ck_assert_int_eq(system(cmd), 0);
    expect_usage_error(args, "truncated", out, sizeof out);
    snprintf(cmd, sizeof cmd, "head -c 3000 %s > %s/rank-00001.ckpt", tmp("saved.ckpt"), tmp("ck"));
    ck_assert_int_eq(system(cmd), 0);
    expect_usage_error(args, "truncated", out, sizeof out);
    snprintf(cmd, sizeof cmd, "printf 'NOTACKPT' > %s/rank-00001.ckpt; head -c 400 /dev/zero >> %s/rank-00001.ckpt",
             tmp("ck"), tmp("ck"));
    ck_assert_int_eq(system(cmd), 0);
    expect_usage_error(args, "bad magic", out, sizeof out);
    snprintf(cmd, sizeof cmd, "rm %s/rank-00001.ckpt", tmp("ck"));
    ck_assert_int_eq(system(cmd), 0);
    expect_usage_error(args, "no checkpoint of rank 1", out, sizeof out);
    /* restored, it resumes (a finished run: nothing left, the same report) */
    snprintf(cmd, sizeof cmd, "cp %s %s/rank-00001.ckpt", tmp("saved.ckpt"), tmp("ck"));
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    /* flags that do not combine */
    expect_usage_error("train --data builtin --checkpoint-every 2", "--checkpoint-every applies to --checkpoint",
                       out, sizeof out);
    expect_usage_error("train --data builtin --mode fullbatch --parts 2 --backend sim --ranks 2 --checkpoint x",
                       "full batch on partitions", out, sizeof out);
}
END_TEST

/* Section id's payload in the file image b (len bytes): its offset, and its length in *n; 0 when
 * absent. */
static size_t section_at(const unsigned char *b, size_t len, uint32_t id, uint64_t *n)
{
    uint32_t sections, sid;
    memcpy(&sections, b + 56, 4);
    size_t o = GNN_CKPT_HEADER_SIZE;
    for (uint32_t s = 0; s < sections && o + 16 <= len; s++) {
        memcpy(&sid, b + o, 4);
        memcpy(n, b + o + 8, 8);
        if (sid == id)
            return o + 16;
        o += 16 + (size_t)*n;
    }
    return 0;
}

/* Put v as the double at index k of section id's payload, its CRC made right (the checksum
 * holds: only the value is wrong), and expect --resume to refuse it saying `says`. */
static void resume_refuses_value(const char *args, const unsigned char *orig, size_t len, uint32_t id, int k, double v,
                                 const char *says)
{
    unsigned char *b = malloc(len);
    ck_assert_ptr_nonnull(b);
    memcpy(b, orig, len);
    uint64_t n = 0;
    const size_t o = section_at(b, len, id, &n);
    ck_assert_msg(o > 0 && (uint64_t)(k + 1) * sizeof(double) <= n, "section %u: not found or too short", id);
    memcpy(b + o + (size_t)k * sizeof(double), &v, sizeof v);
    const uint32_t crc = gnn_crc32c(0, b + o, (size_t)n);
    memcpy(b + o - 12, &crc, 4);
    FILE *f = fopen(tmp("ckv/rank-00000.ckpt"), "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(b, 1, len, f), len);
    fclose(f);
    free(b);
    expect_usage_error(args, says, out, sizeof out);
}

/* Fuzz finding 5 (fuzz_ckpt, docs/fuzzing.md): the loop's counts are doubles in the file, and a
 * value that is no whole number in range was converted to an integer type unchecked (undefined
 * behaviour: UBSan stopped on -3.2e78 as an epoch's step count; the release build resumed with
 * INT64_MIN steps). Each is now refused, naming the file. */
START_TEST(resume_checks_values)
{
    NEED_TOOL();
    char args[2048];
    const char *flags = "--data builtin --batch 1024 --hidden 8 --fanouts 3,3 --epochs 2 --quiet";
    snprintf(args, sizeof args, "train %s --checkpoint %s", flags, tmp("ckv"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    FILE *f = fopen(tmp("ckv/rank-00000.ckpt"), "rb");
    ck_assert_ptr_nonnull(f);
    static unsigned char orig[1 << 20];
    const size_t len = fread(orig, 1, sizeof orig, f);
    fclose(f);
    ck_assert_msg(len > GNN_CKPT_HEADER_SIZE && len < sizeof orig, "checkpoint of %zu bytes", len);
    snprintf(args, sizeof args, "train %s --resume %s", flags, tmp("ckv"));
    const char *count = "not a whole number in range";
    resume_refuses_value(args, orig, len, GNN_CKPT_SEC_EPOCHS, 7, -3.24322e78, count); /* epoch 0's steps */
    resume_refuses_value(args, orig, len, GNN_CKPT_SEC_EPOCHS, 8, 0.0 / 0.0, count);   /* its edges sampled */
    resume_refuses_value(args, orig, len, GNN_CKPT_SEC_EPOCHS, 0, 7.0, count);         /* an epoch beyond 2 */
    resume_refuses_value(args, orig, len, GNN_CKPT_SEC_LOOP, 4, 1e300, "the loop's state is out of range");
    resume_refuses_value(args, orig, len, GNN_CKPT_SEC_LOOP, 11, 0.5, "the loop's state is out of range");
    resume_refuses_value(args, orig, len, GNN_CKPT_SEC_LOOP, 0, 1e19, "epochs and");
    /* the file as written resumes (a finished run: nothing left) */
    f = fopen(tmp("ckv/rank-00000.ckpt"), "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(orig, 1, len, f), len);
    fclose(f);
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
}
END_TEST

Suite *suite_checkpoint(void)
{
    Suite *s = suite_create("checkpoint");
    TCase *tc = tcase_create("checkpoint");
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, single_rank);
    tcase_add_test(tc, data_parallel_4_ranks);
    tcase_add_test(tc, refused);
    tcase_add_test(tc, resume_checks_values);
    suite_add_tcase(s, tc);
    /* 7 s: the full tier only (tag full: make check leaves it out; check-full, the sanitizer and no-OpenMP suites run it) */
    TCase *full = tcase_create("checkpoint-slow");
    tcase_set_tags(full, "full");
    tcase_add_checked_fixture(full, NULL, cli_cleanup);
    tcase_set_timeout(full, 300);
    tcase_add_test(full, partitions_hec_4_ranks);
    suite_add_tcase(s, full);
    return s;
}
