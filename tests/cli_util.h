/* tests/cli_util.h -- helpers for the suites that run the gnnref tool (GNN_TOOL, set by
 * `make check`): a private temporary directory, running the tool with its output captured,
 * and a checked-fixture teardown that removes the directory again. Each including suite gets
 * its own static copy (one directory per test process). */
#ifndef GNNREF_TESTS_CLI_UTIL_H
#define GNNREF_TESTS_CLI_UTIL_H

#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char g_dir[256];

/* g_dir/name (the directory is made on first use); four rotating buffers. */
static const char *tmp(const char *name)
{
    static char path[4][512];
    static int k;
    if (!g_dir[0]) {
        strcpy(g_dir, "/tmp/gnnref-cli-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(g_dir));
    }
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", g_dir, name);
    return path[k];
}

/* Run `$GNN_TOOL args`; stdout and stderr together into out; returns the exit status. */
static int tool(const char *args, char *out, size_t cap)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s >%s 2>&1 </dev/null", getenv("GNN_TOOL"), args, tmp("out.txt"));
    int rc = system(cmd);
    FILE *f = fopen(tmp("out.txt"), "r");
    size_t n = f ? fread(out, 1, cap - 1, f) : 0;
    out[n] = '\0';
    if (f)
        fclose(f);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* `$GNN_TOOL args` must exit 2 (bad usage or input) with "gnnref: error: " and `says` in its
 * output (out, cap: the captured output, for the caller to inspect further). */
static inline void expect_usage_error(const char *args, const char *says, char *out, size_t cap)
{
    ck_assert_msg(tool(args, out, cap) == 2, "%s: expected exit 2: %s", args, out);
    ck_assert_msg(strstr(out, "gnnref: error: ") && strstr(out, says), "%s: expected '%s' in: %s", args, says, out);
}

#define NEED_TOOL()                                                                              \
    do {                                                                                         \
        if (!getenv("GNN_TOOL")) {                                                               \
            fprintf(stderr, "%s: SKIP (GNN_TOOL is not set; `make check` sets it)\n", __func__); \
            return;                                                                              \
        }                                                                                        \
    } while (0)

static int cli_rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(p);
}

/* The "steps" list of a train report (path json) as text into buf: each loss is printed with
 * %.17g, so equal text is equal bits. Fails the test when the report has none. A suite that
 * does not call it gets an unused-function warning suppressed by the attribute. */
static __attribute__((unused)) void cli_steps_text(const char *json, char *buf, size_t cap)
{
    FILE *f = fopen(json, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = 0;
    char *a = strstr(buf, "\"steps\":["); /* the list, not an epoch's "steps" count */
    ck_assert_msg(a != NULL, "%s: no steps list", json);
    char *b = strchr(a, ']');
    ck_assert_ptr_nonnull(b);
    b[1] = 0;
    memmove(buf, a, strlen(a) + 1);
}

/* Checked-fixture teardown: remove the temporary directory and everything in it. */
static void cli_cleanup(void)
{
    if (g_dir[0])
        nftw(g_dir, cli_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    g_dir[0] = '\0';
}

#endif
