/* tests/data_util.h -- what the dataset suites share (tests/test_data.c, tests/test_import.c):
 * a private temporary directory per test (a checked fixture), small file writers, reading and
 * writing whole files, a copy of the text fixture with one file replaced, comparing two
 * datasets, and running the tool with its stderr captured. Each including suite gets its own
 * static copy (static inline: a suite that uses a few of them is not warned about the rest;
 * tests/test_fuzz_regress.c takes only the directory fixture). */
#ifndef GNNREF_TESTS_DATA_UTIL_H
#define GNNREF_TESTS_DATA_UTIL_H

#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "gnnref/dataset.h"
#include "file_util.h"

#define FIXTURES "tests/fixtures"

static char g_tmp[256];

static inline void tmp_setup(void)
{
    snprintf(g_tmp, sizeof g_tmp, "/tmp/gnnref-data-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(g_tmp));
}

static inline int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(p);
}

static inline void tmp_teardown(void)
{
    if (g_tmp[0])
        nftw(g_tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    g_tmp[0] = '\0';
}

/* g_tmp/name into a static rotating buffer (enough for one test's paths). */
static inline const char *tmp_path(const char *name)
{
    static char buf[8][512];
    static int k;
    char *b = buf[k++ % 8];
    snprintf(b, 512, "%s/%s", g_tmp, name);
    return b;
}

static inline void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

static inline int contains(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

#define ck_assert_msg_has(err, needle) \
    ck_assert_msg(contains((err).msg, (needle)), "message '%s' lacks '%s'", (err).msg, (needle))

/* A small SBM with every section present. */
static inline void ds_assert_equal(const gnn_dataset *a, const gnn_dataset *b)
{
    ck_assert_str_eq(a->name, b->name);
    ck_assert_int_eq(a->graph.n, b->graph.n);
    ck_assert_int_eq(a->graph.nnz, b->graph.nnz);
    ck_assert_int_eq(a->num_features, b->num_features);
    ck_assert_int_eq(a->num_classes, b->num_classes);
    const int64_t n = a->graph.n;
    ck_assert(!memcmp(a->graph.indptr, b->graph.indptr, (size_t)(n + 1) * 8));
    ck_assert(!memcmp(a->graph.indices, b->graph.indices, (size_t)a->graph.nnz * 8));
    ck_assert_int_eq(a->feat == NULL, b->feat == NULL);
    if (a->feat)
        ck_assert(!memcmp(a->feat, b->feat, (size_t)(n * a->num_features) * 4));
    ck_assert_int_eq(a->labels == NULL, b->labels == NULL);
    if (a->labels)
        ck_assert(!memcmp(a->labels, b->labels, (size_t)n * 4));
    ck_assert_int_eq(a->split == NULL, b->split == NULL);
    if (a->split)
        ck_assert(!memcmp(a->split, b->split, (size_t)n));
    ck_assert(!memcmp(&a->stats, &b->stats, sizeof a->stats));
}

/* ---- whole files as bytes: read_blob, write_blob (file_util.h) ---- */

/* Copy the fixture into g_tmp/t, then overwrite one file. */
static inline const char *text_copy_with(const char *file, const char *content)
{
    static const char *const names[] = { "meta.txt", "edges.txt", "features.txt", "labels.txt",
                                         "train.txt", "val.txt", "test.txt" };
    const char *dir = tmp_path("t");
    mkdir(dir, 0755);
    char src[512], dst[512];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(src, sizeof src, FIXTURES "/text_tiny/%s", names[i]);
        snprintf(dst, sizeof dst, "%s/%s", dir, names[i]);
        blob b = read_blob(src);
        write_blob(dst, b, b.len);
    }
    snprintf(dst, sizeof dst, "%s/%s", dir, file);
    write_text(dst, content);
    return dir;
}

/* Run `$GNN_TOOL args` with stdout and stderr to files; returns the exit status. */
static inline int run_tool(const char *args, char *err_text, size_t cap)
{
    const char *tool = getenv("GNN_TOOL");
    char cmd[2048];
    const int n = snprintf(cmd, sizeof cmd, "%s %s >%s 2>%s", tool, args, tmp_path("stdout.txt"),
                           tmp_path("stderr.txt"));
    ck_assert_msg(n > 0 && (size_t)n < sizeof cmd, "run_tool: the command line is too long: %s", args);
    int rc = system(cmd);
    ck_assert(WIFEXITED(rc));
    FILE *f = fopen(tmp_path("stderr.txt"), "r");
    size_t k = f ? fread(err_text, 1, cap - 1, f) : 0;
    err_text[k] = '\0';
    if (f)
        fclose(f);
    return WEXITSTATUS(rc);
}

#endif
