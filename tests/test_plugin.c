/* tests/test_plugin.c -- the plugin ABI (include/gnnref/plugin.h, oracle/plugin.c, docs/plugin.md).
 *
 * tcase "loader": every refusal of gnn_plugin_load names the file and leaves the set as it
 *   was: a missing file, a file that is not a shared library, and -- built here with the system
 *   C compiler into a temporary directory (SKIP when there is none, or when the tree's
 *   include/ is not under the working directory) -- a library without the registration
 *   function, one without its ABI version, one built for another ABI version (both versions
 *   named), a registration that fails (its reason kept), one that registers nothing, tables
 *   with a bad or taken name or unknown flags.
 * tcase "examples": examples/plugin/good.c and bad.c built the same way, run in process
 *   through gnn_oracle_run_entry_impls (good: every aggregation case passes, bitwise; bad: the
 *   forwards fail), case strings naming a plugin implementation parsed and replayed, and both
 *   through the built tool, `gnnref oracle --plugin` (GNN_TOOL): PASS and exit 0, FAIL naming
 *   the case and exit 1, and the loader's errors as exit 2 naming the file.
 * ci/plugin-check.sh does the same against an installed gnnref, built through pkg-config. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gnnref/oracle.h"
#include "gnnref/plugin.h"
#include "cli_util.h"

static char g_out[1 << 16];

/* Is there a C compiler and the tree's headers? */
static int can_build(void)
{
    static int have = -1;
    if (have < 0) {
        struct stat st;
        have = stat("include/gnnref/plugin.h", &st) == 0 && system("cc --version >/dev/null 2>&1") == 0;
    }
    return have;
}

#define NEED_CC()                                                                                               \
    do {                                                                                                        \
        if (!can_build()) {                                                                                     \
            fprintf(stderr, "%s: SKIP (no cc, or include/gnnref/plugin.h not under the working directory)\n", \
                    __func__);                                                                                  \
            return;                                                                                             \
        }                                                                                                       \
    } while (0)

/* Build a plugin from source text (src) or from a file of the tree (file) into tmp(name).so;
 * returns its path (a static buffer of four). */
static const char *build_so(const char *name, const char *src, const char *file)
{
    static char so[4][512];
    static int k;
    k = (k + 1) % 4;
    char c_path[512], cmd[2048];
    snprintf(so[k], sizeof so[k], "%s", tmp(name));
    strncat(so[k], ".so", sizeof so[k] - strlen(so[k]) - 1);
    if (src) {
        snprintf(c_path, sizeof c_path, "%s.c", tmp(name));
        FILE *f = fopen(c_path, "w");
        ck_assert_ptr_nonnull(f);
        fputs(src, f);
        fclose(f);
    } else {
        snprintf(c_path, sizeof c_path, "%s", file);
    }
    snprintf(cmd, sizeof cmd,
             "cc -std=c11 -O1 -fPIC -ffp-contract=off -Iinclude -shared '%s' -o '%s' -lm >'%s' 2>&1", c_path, so[k],
             tmp("cc.txt"));
    ck_assert_msg(system(cmd) == 0, "cannot build %s: %s", c_path, cmd);
    return so[k];
}

/* gnn_plugin_load must refuse path with status want and a message holding says1 (and says2). */
static void expect_refused(const char *path, gnn_status want, const char *says1, const char *says2)
{
    gnn_plugin_set *set;
    ck_assert_int_eq(gnn_plugin_set_new(&set), GNN_OK);
    gnn_err err;
    memset(&err, 0, sizeof err);
    const gnn_status s = gnn_plugin_load(set, path, &err);
    ck_assert_msg(s == want, "%s: status %s, expected %s (%s)", path, gnn_status_str(s), gnn_status_str(want),
                  err.msg);
    ck_assert_msg(strstr(err.msg, path) != NULL, "the message does not name the file %s: %s", path, err.msg);
    ck_assert_msg(strstr(err.msg, says1) != NULL, "expected '%s' in: %s", says1, err.msg);
    ck_assert_msg(!says2 || strstr(err.msg, says2) != NULL, "expected '%s' in: %s", says2, err.msg);
    ck_assert_int_eq(gnn_plugin_count(set), 0); /* nothing was kept */
    gnn_plugin_set_free(set);
}

/* ---- tcase loader ------------------------------------------------------------------------ */

START_TEST(missing_and_not_a_library)
{
    expect_refused(tmp("no-such-plugin.so"), GNN_ERR_IO, "cannot open", NULL);
    FILE *f = fopen(tmp("text.so"), "w");
    ck_assert_ptr_nonnull(f);
    fputs("not a shared library\n", f);
    fclose(f);
    expect_refused(tmp("text.so"), GNN_ERR_IO, "cannot load", NULL);
    expect_refused(g_dir, GNN_ERR_IO, "not a regular file", NULL);
    gnn_err err;
    ck_assert_int_eq(gnn_plugin_load(NULL, "x.so", &err), GNN_ERR_INVAL);
    /* a set without plugins runs nothing more */
    ck_assert_ptr_null(gnn_plugin_impls_for(NULL, gnn_oracle_find("aggregate.mean.fwd"))[0]);
}
END_TEST

START_TEST(missing_symbols_and_wrong_abi)
{
    NEED_CC();
    expect_refused(build_so("nosym", "int not_a_plugin(void) { return 0; }\n", NULL), GNN_ERR_FORMAT,
                   "missing symbol gnnref_plugin_register", NULL);
    expect_refused(build_so("noabi", "int gnnref_plugin_register(void *r) { (void)r; return 0; }\n", NULL),
                   GNN_ERR_FORMAT, "missing symbol gnnref_plugin_abi_version", NULL);
    expect_refused(build_so("wrongabi",
                            "const unsigned gnnref_plugin_abi_version = 999;\n"
                            "int gnnref_plugin_register(void *r) { (void)r; return 0; }\n",
                            NULL),
                   GNN_ERR_UNSUPPORTED, "ABI version 999", "ABI version 2 only");
}
END_TEST

#define PLUGIN_HEAD                                                                                   \
    "#include \"gnnref/plugin.h\"\n"                                                                  \
    "static gnn_status fwd(const gnn_block *b, const float *x, int64_t d, gnn_agg_kind k, float *o)\n" \
    "{ (void)b, (void)x, (void)d, (void)k, (void)o; return GNN_ERR_UNSUPPORTED; }\n"

START_TEST(registration_refused)
{
    NEED_CC();
    expect_refused(build_so("failing",
                            PLUGIN_HEAD "GNN_PLUGIN_REGISTER(r) { r->fail(r, \"no GPU on this machine\"); return 3; }\n",
                            NULL),
                   GNN_ERR_INVAL, "returned 3", "no GPU on this machine");
    expect_refused(build_so("empty", PLUGIN_HEAD "GNN_PLUGIN_REGISTER(r) { (void)r; (void)fwd; return 0; }\n", NULL),
                   GNN_ERR_INVAL, "registered no implementation", NULL);
    /* a refused table refuses the plugin, even when its function says 0 */
    expect_refused(build_so("taken",
                            PLUGIN_HEAD "static const gnn_aggregate_ops t = { .name = \"cpu\", .forward = fwd };\n"
                                        "GNN_PLUGIN_REGISTER(r) { gnn_plugin_add_aggregate(r, &t, 0); return 0; }\n",
                            NULL),
                   GNN_ERR_INVAL, "add(aggregate 'cpu'): the name is taken by a built-in implementation", NULL);
    expect_refused(build_so("badname",
                            PLUGIN_HEAD "static const gnn_aggregate_ops t = { .name = \"a,b\", .forward = fwd };\n"
                                        "GNN_PLUGIN_REGISTER(r) { return gnn_plugin_add_aggregate(r, &t, 0); }\n",
                            NULL),
                   GNN_ERR_INVAL, "name 'a,b' is not", NULL);
    expect_refused(build_so("badflags",
                            PLUGIN_HEAD "static const gnn_aggregate_ops t = { .name = \"x\", .forward = fwd };\n"
                                        "GNN_PLUGIN_REGISTER(r) { return gnn_plugin_add_aggregate(r, &t, 64); }\n",
                            NULL),
                   GNN_ERR_INVAL, "unknown flag bits 0x40", NULL);
    expect_refused(build_so("badkind",
                            PLUGIN_HEAD "static const gnn_aggregate_ops t = { .name = \"x\", .forward = fwd };\n"
                                        "GNN_PLUGIN_REGISTER(r) { return r->add(r, (gnn_plugin_kind)77, &t, 0); }\n",
                            NULL),
                   GNN_ERR_INVAL, "unknown kind 77", NULL);
    /* a good one after refused ones: the set takes it; the same name twice is refused */
    const char *ok = build_so("ok",
                              PLUGIN_HEAD "static const gnn_aggregate_ops t = { .name = \"mine\", .forward = fwd };\n"
                                          "GNN_PLUGIN_REGISTER(r) { return gnn_plugin_add_aggregate(r, &t, "
                                          "GNN_PLUGIN_THREADED); }\n",
                              NULL);
    gnn_plugin_set *set;
    gnn_err err;
    ck_assert_int_eq(gnn_plugin_set_new(&set), GNN_OK);
    ck_assert_msg(gnn_plugin_load(set, ok, &err) == GNN_OK, "%s", err.msg);
    ck_assert_int_eq(gnn_plugin_count(set), 1);
    gnn_plugin_kind kind;
    const char *path;
    const gnn_oracle_impl *impl = gnn_plugin_impl(set, 0, &kind, &path);
    ck_assert_str_eq(impl->name, "mine");
    ck_assert_int_eq(kind, GNN_PLUGIN_AGGREGATE);
    ck_assert_str_eq(path, ok);
    ck_assert_uint_eq(impl->flags, GNN_ORACLE_THREADED);
    ck_assert_ptr_eq(gnn_plugin_path_of(set, impl), path);
    ck_assert_int_eq(gnn_plugin_load(set, ok, &err), GNN_ERR_INVAL);
    ck_assert_msg(strstr(err.msg, "taken by") != NULL, "%s", err.msg);
    ck_assert_int_eq(gnn_plugin_count(set), 1);
    /* the kinds: aggregation entries take it, others do not */
    ck_assert_ptr_eq(gnn_plugin_impls_for(set, gnn_oracle_find("aggregate.gcn.bwd"))[0], impl);
    ck_assert_ptr_eq(gnn_plugin_impls_for(set, gnn_oracle_find("grad.aggregate.mean"))[0], impl);
    ck_assert_ptr_null(gnn_plugin_impls_for(set, gnn_oracle_find("linear.fwd"))[0]);
    ck_assert_ptr_null(gnn_plugin_impls_for(set, gnn_oracle_find("index_add"))[0]);
    ck_assert_int_eq(gnn_oracle_entry_kind(gnn_oracle_find("index_add")), GNN_PLUGIN_INDEX_ADD);
    ck_assert_int_eq(gnn_oracle_entry_kind(gnn_oracle_find("quant.pack")), GNN_PLUGIN_QUANT);
    ck_assert_int_eq(gnn_oracle_entry_kind(gnn_oracle_find("spmm.fwd")), GNN_PLUGIN_SPMM);
    ck_assert_int_eq(gnn_oracle_entry_kind(gnn_oracle_find("sample.layer")), GNN_PLUGIN_NONE);
    gnn_plugin_set_free(set);
}
END_TEST

/* ---- tcase examples ----------------------------------------------------------------------- */

typedef struct tally {
    int counts[GNN_ORACLE_OUTCOME_COUNT];
    char first_fail[3072];
} tally;

static void tally_visit(const gnn_oracle_case *c, const gnn_oracle_result *r, void *user)
{
    (void)c;
    tally *t = user;
    if (r->outcome == GNN_ORACLE_FAIL && !t->first_fail[0])
        snprintf(t->first_fail, sizeof t->first_fail, "%s\n%s", r->case_str, r->detail);
}

/* Every aggregation entry over the plugin's implementations, one seed, one thread count. */
static int run_plugin(const gnn_plugin_set *set, const char *op, tally *t)
{
    static const int one[] = { 1 };
    int fails = 0;
    for (const gnn_oracle_entry *const *ep = gnn_oracle_registry; *ep; ep++) {
        if (!gnn_oracle_name_matches(op, (*ep)->name))
            continue;
        fails += gnn_oracle_run_entry_impls(*ep, gnn_plugin_impls_for(set, *ep), NULL, 1, 1, one, 1, NULL,
                                            tally_visit, t, t->counts);
    }
    return fails;
}

START_TEST(examples_in_process)
{
    NEED_CC();
    gnn_plugin_set *set;
    gnn_err err;
    ck_assert_int_eq(gnn_plugin_set_new(&set), GNN_OK);
    const char *good = build_so("good", NULL, "examples/plugin/good.c");
    ck_assert_msg(gnn_plugin_load(set, good, &err) == GNN_OK, "%s", err.msg);
    tally t;
    memset(&t, 0, sizeof t);
    int fails = run_plugin(set, "*aggregate*", &t);
    ck_assert_msg(fails == 0, "good.so: %d FAIL; first:\n%s", fails, t.first_fail);
    ck_assert_int_gt(t.counts[GNN_ORACLE_PASS], 100);
    ck_assert_int_eq(t.counts[GNN_ORACLE_UNSUPPORTED] + t.counts[GNN_ORACLE_SKIP], 0);

    /* a case string naming the plugin's implementation: parsed, formatted back, replayed */
    static const char *const cs = "aggregate.gcn.fwd(impl=good-columns,n_dst=37,n_src=80,d=13,deg=0..9,seed=5)";
    gnn_oracle_case c;
    ck_assert_msg(gnn_plugin_case_parse(set, cs, &c, &err) == GNN_OK, "%s", err.msg);
    ck_assert_str_eq(c.impl->name, "good-columns");
    ck_assert_int_eq(c.threads, 0);
    char back[512];
    gnn_oracle_case_format(&c, back, sizeof back);
    ck_assert_str_eq(back, cs);
    gnn_oracle_result r;
    ck_assert_int_eq(gnn_oracle_run(&c, &r), GNN_ORACLE_PASS);
    ck_assert_int_eq(gnn_plugin_case_parse(set, "aggregate.gcn.fwd(impl=good-columns,threads=2,n_dst=3,n_src=3,d=1,"
                                                "deg=0..1,seed=5)", &c, &err), GNN_ERR_FORMAT);
    ck_assert_msg(strstr(err.msg, "not threaded") != NULL, "%s", err.msg);
    ck_assert_int_eq(gnn_plugin_case_parse(set, "aggregate.gcn.fwd(impl=nope,n_dst=3,n_src=3,d=1,deg=0..1,seed=5)",
                                           &c, &err), GNN_ERR_FORMAT);
    ck_assert_msg(strstr(err.msg, "good-columns (plugin)") != NULL, "%s", err.msg);
    /* ours still parse with a set */
    ck_assert_int_eq(gnn_plugin_case_parse(set, "aggregate.gcn.fwd(impl=cpu,threads=2,n_dst=3,n_src=3,d=1,"
                                                "deg=0..1,seed=5)", &c, &err), GNN_OK);
    ck_assert_str_eq(c.impl->name, "cpu");

    /* bad.so beside it: its forwards fail, naming the case */
    const char *bad = build_so("bad", NULL, "examples/plugin/bad.c");
    ck_assert_msg(gnn_plugin_load(set, bad, &err) == GNN_OK, "%s", err.msg);
    gnn_plugin_set *only_bad;
    ck_assert_int_eq(gnn_plugin_set_new(&only_bad), GNN_OK);
    ck_assert_msg(gnn_plugin_load(only_bad, bad, &err) == GNN_OK, "%s", err.msg);
    memset(&t, 0, sizeof t);
    fails = run_plugin(only_bad, "aggregate.mean.fwd", &t);
    ck_assert_int_gt(fails, 0);
    ck_assert_msg(strstr(t.first_fail, "aggregate.mean.fwd(impl=bad-lastedge,") == t.first_fail, "%s", t.first_fail);
    ck_assert_msg(strstr(t.first_fail, "elements differ (bitwise)") != NULL, "%s", t.first_fail);
    memset(&t, 0, sizeof t);
    ck_assert_int_eq(run_plugin(only_bad, "aggregate.mean.bwd", &t), 0); /* its backward is right */
    gnn_plugin_set_free(only_bad);
    gnn_plugin_set_free(set);
}
END_TEST

START_TEST(examples_through_the_tool)
{
    NEED_TOOL();
    NEED_CC();
    char args[2048];
    const char *good = build_so("good", NULL, "examples/plugin/good.c");
    snprintf(args, sizeof args, "oracle --plugin '%s' --op aggregate --cases 1 --threads 1", good);
    ck_assert_msg(tool(args, g_out, sizeof g_out) == 0, "%s: %s", args, g_out);
    ck_assert_msg(strstr(g_out, "PASS        aggregate.mean.fwd     good-columns") != NULL, "%s", g_out);
    ck_assert_msg(strstr(g_out, " 0 failed, 0 skipped, 0 unsupported") != NULL, "%s", g_out);
    ck_assert_msg(strstr(g_out, "impl ref") == NULL && strstr(g_out, " cpu ") == NULL, "ours ran too: %s", g_out);

    const char *bad = build_so("bad", NULL, "examples/plugin/bad.c");
    snprintf(args, sizeof args, "oracle --plugin '%s' --op aggregate.sum.fwd --cases 1", bad);
    ck_assert_msg(tool(args, g_out, sizeof g_out) == 1, "%s: %s", args, g_out);
    ck_assert_msg(strstr(g_out, "FAIL        aggregate.sum.fwd      bad-lastedge") != NULL, "%s", g_out);
    ck_assert_msg(strstr(g_out, "  FAIL aggregate.sum.fwd(impl=bad-lastedge,") != NULL, "%s", g_out);
    char replay[1024];
    snprintf(replay, sizeof replay, "replay: gnnref oracle --plugin '%s' --case 'aggregate.sum.fwd(impl=bad-lastedge,",
             bad);
    ck_assert_msg(strstr(g_out, replay) != NULL, "no replay line with --plugin: %s", g_out);
    /* the replay line replays: the same FAIL */
    const char *cs = strstr(g_out, "--case '");
    ck_assert_ptr_nonnull(cs);
    char one_case[512];
    const size_t n = strcspn(cs + 8, "'");
    snprintf(one_case, sizeof one_case, "%.*s", (int)n, cs + 8);
    snprintf(args, sizeof args, "oracle --plugin '%s' --case '%s'", bad, one_case);
    ck_assert_msg(tool(args, g_out, sizeof g_out) == 1, "%s: %s", args, g_out);
    ck_assert_msg(strstr(g_out, "FAIL aggregate.sum.fwd(impl=bad-lastedge,") == g_out, "%s", g_out);

    /* the loader's errors: exit 2, naming the file */
    snprintf(args, sizeof args, "oracle --plugin '%s'", tmp("absent.so"));
    expect_usage_error(args, "absent.so: cannot open", g_out, sizeof g_out);
    const char *wrong = build_so("wrongabi2",
                                 "const unsigned gnnref_plugin_abi_version = 7;\n"
                                 "int gnnref_plugin_register(void *r) { (void)r; return 0; }\n",
                                 NULL);
    snprintf(args, sizeof args, "oracle --plugin '%s'", wrong);
    expect_usage_error(args, "built for ABI version 7", g_out, sizeof g_out);
    ck_assert_msg(strstr(g_out, wrong) != NULL, "%s", g_out);
    /* an op the plugin does not implement */
    snprintf(args, sizeof args, "oracle --plugin '%s' --op linear.fwd", good);
    expect_usage_error(args, "the plugins implement no op matching linear.fwd", g_out, sizeof g_out);
}
END_TEST

Suite *suite_plugin(void)
{
    Suite *s = suite_create("plugin");
    TCase *tc = tcase_create("loader");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    tcase_add_test(tc, missing_and_not_a_library);
    tcase_add_test(tc, missing_symbols_and_wrong_abi);
    tcase_add_test(tc, registration_refused);
    suite_add_tcase(s, tc);
    tc = tcase_create("examples");
    tcase_set_timeout(tc, 240);
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    tcase_add_test(tc, examples_in_process);
    tcase_add_test(tc, examples_through_the_tool);
    suite_add_tcase(s, tc);
    return s;
}
