/* tests/test_cpu_bits.c -- the default training context gives the same bits on every x86-64 CPU
 * (issue 34, item 2; docs/determinism.md, docs/dense.md), through the tool.
 *
 * A CI fleet of mixed runners cannot be had in a test, but what makes one CPU's bits differ
 * from another's can be forced on one machine:
 *  - the dense kernel's path: GNN_DENSE_PATH=scalar, avx2, avx512 (each that this CPU has; one it
 *    lacks must be refused with exit 2, not ignored);
 *  - OpenBLAS's kernel: OPENBLAS_CORETYPE, two core types this CPU can run (OpenBLAS picks its
 *    kernel by CPU model at run time; --impl blas changes its step losses between the two, which
 *    proves the variable takes effect; the default context must not notice it).
 * For sage, gcn, gat and gin, mini-batch and full batch, every forced run of `gnnref train` with
 * the default context (no --impl) must give the step losses of the unforced run, bit for bit (the
 * report prints each with %.17g). With the blas default of before this item, the OpenBLAS core
 * types change the default's losses and the test fails. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_util.h"

static char out[1 << 16];

/* `gnnref train FLAGS --json J` with env NAME=VALUE (NAME NULL: none); the exit status */
static int train_env(const char *name, const char *value, const char *flags, const char *json)
{
    char args[2048];
    snprintf(args, sizeof args, "train %s --json %s", flags, json);
    if (name)
        ck_assert_int_eq(setenv(name, value, 1), 0);
    const int rc = tool(args, out, sizeof out);
    if (name)
        unsetenv(name);
    return rc;
}

static void steps_env(const char *name, const char *value, const char *flags, char *buf, size_t cap)
{
    const int rc = train_env(name, value, flags, tmp("r.json"));
    ck_assert_msg(rc == 0, "%s=%s train %s: exit %d: %s", name ? name : "", name ? value : "", flags, rc, out);
    cli_steps_text(tmp("r.json"), buf, cap);
}

/* which kernel paths this CPU has (what the tool must run, or refuse) */
static int cpu_has_path(const char *path)
{
    if (!strcmp(path, "scalar"))
        return 1;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (!strcmp(path, "avx2"))
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (!strcmp(path, "avx512"))
        return __builtin_cpu_supports("avx512f");
#endif
    return 0;
}

START_TEST(default_context_same_bits_on_every_cpu)
{
    NEED_TOOL();
    static const char *const models[] = { "sage", "gcn", "gat", "gin" };
    static const char *const modes[] = { "minibatch", "fullbatch" };
    static const char *const paths[] = { "scalar", "avx2", "avx512" };
#if defined(__x86_64__)
    /* two OpenBLAS core types this CPU runs, whose sgemm kernels differ */
    const char *cores[2] = { "Nehalem", "Sandybridge" };
    if (__builtin_cpu_supports("avx512f"))
        cores[0] = "Haswell", cores[1] = "SkylakeX";
    else if (__builtin_cpu_supports("avx2"))
        cores[0] = "Sandybridge", cores[1] = "Haswell";
    const int n_cores = 2;
#else
    const char *cores[2] = { NULL, NULL }; /* OpenBLAS's core types are x86's names */
    const int n_cores = 0;
#endif
    static char want[1 << 16], got[1 << 16], blas[2][1 << 16];
    char data[512], flags[1024];
    snprintf(data, sizeof data, "gen sbm --nodes 1500 --features 24 --split 0.4,0.2,0.2 --seed 3 -o %s",
             tmp("small.gnn"));
    ck_assert_msg(tool(data, out, sizeof out) == 0, "%s: %s", data, out);
    snprintf(data, sizeof data, "%s", tmp("small.gnn"));
    int blas_changed = 0, runs = 0;
    for (int m = 0; m < 4; m++)
        for (int f = 0; f < 2; f++) {
            snprintf(flags, sizeof flags, "--data %s --model %s --mode %s --hidden 16 --epochs 4 --eval-every 0 "
                     "--quiet%s%s", data, models[m], modes[f], m == 2 ? " --heads 4" : "",
                     f == 0 ? " --batch 128" : "");
            steps_env(NULL, NULL, flags, want, sizeof want); /* the default, on this CPU's best path */
            ck_assert_msg(strlen(want) > 40, "%s: too few steps: %s", flags, want);
            for (int p = 0; p < 3; p++) {
                if (!cpu_has_path(paths[p]))
                    continue; /* refused: checked once below */
                steps_env("GNN_DENSE_PATH", paths[p], flags, got, sizeof got);
                ck_assert_msg(!strcmp(want, got),
                              "%s %s: GNN_DENSE_PATH=%s changes the default's step losses:\n%s\nvs\n%s", models[m],
                              modes[f], paths[p], got, want);
                runs++;
            }
            for (int c = 0; c < n_cores; c++) {
                steps_env("OPENBLAS_CORETYPE", cores[c], flags, got, sizeof got);
                ck_assert_msg(!strcmp(want, got),
                              "%s %s: OPENBLAS_CORETYPE=%s changes the default's step losses:\n%s\nvs\n%s", models[m],
                              modes[f], cores[c], got, want);
                runs++;
                char bflags[1100];
                snprintf(bflags, sizeof bflags, "%s --impl blas", flags);
                steps_env("OPENBLAS_CORETYPE", cores[c], bflags, blas[c], sizeof blas[c]);
            }
            if (n_cores == 2 && strcmp(blas[0], blas[1]))
                blas_changed++;
        }
    /* the core types reach OpenBLAS: --impl blas follows them (else the check above proves nothing) */
    if (n_cores == 2)
        ck_assert_msg(blas_changed > 0, "OPENBLAS_CORETYPE=%s and =%s give --impl blas the same step losses in every "
                      "configuration: the variable did not take effect", cores[0], cores[1]);
    fprintf(stderr, "cpu_bits: %d forced runs gave the default's bits; --impl blas changed with the core type (%s, "
            "%s) in %d of 8 configurations\n", runs, cores[0] ? cores[0] : "-", cores[1] ? cores[1] : "-",
            blas_changed);
    /* a path this CPU lacks is refused, naming it, before any work */
    for (int p = 0; p < 3; p++)
        if (!cpu_has_path(paths[p])) {
            ck_assert_msg(train_env("GNN_DENSE_PATH", paths[p], "--epochs 1 --quiet", tmp("x.json")) == 2,
                          "GNN_DENSE_PATH=%s on a CPU without it: expected exit 2: %s", paths[p], out);
            ck_assert_msg(strstr(out, "gnnref: error: GNN_DENSE_PATH=") && strstr(out, paths[p]) &&
                              strstr(out, "lacks"), "%s", out);
        }
    ck_assert_msg(train_env("GNN_DENSE_PATH", "avx9", "--epochs 1 --quiet", tmp("x.json")) == 2, "%s", out);
    ck_assert_msg(strstr(out, "gnnref: error: GNN_DENSE_PATH=avx9: expected scalar, avx2, avx512 or auto"), "%s", out);
}
END_TEST

Suite *suite_cpu_bits(void)
{
    Suite *s = suite_create("cpu_bits");
    TCase *tc = tcase_create("default_context");
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, default_context_same_bits_on_every_cpu);
    suite_add_tcase(s, tc);
    return s;
}
