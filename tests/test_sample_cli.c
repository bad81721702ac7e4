/* tests/test_sample_cli.c -- `gnnref sample`: exit codes and messages, the JSON report keys
 * of DESIGN.md section 6, and the same per-layer counts from --impl ref and --impl opt for
 * every variant and ID map (the samples are identical by contract; the FUSED ID map only
 * renumbers src vertices, which leaves the counts alone). GNN_TOOL (set by `make check`)
 * names the tool; without it these cases say SKIP and return. */
#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_util.h"
#include "thread_util.h"

static char out[1 << 16];

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    ck_assert_msg(json_object_object_get_ex(o, key, &v), "report lacks key \"%s\"", key);
    return v;
}

START_TEST(sample_usage_errors)
{
    NEED_TOOL();
    ck_assert_int_eq(tool("sample --help", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "--idmap"));
    ck_assert_ptr_nonnull(strstr(out, "TOTALS"));
    ck_assert_int_eq(tool("--help", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "sample"));
    static const struct { const char *args, *says; } bad[] = {
        { "sample --bogus", "unknown or incomplete flag" },
        { "sample --impl gpu", "--impl" },
        { "sample --variant half", "--variant 'half'" },
        { "sample --idmap sorted", "--idmap 'sorted'" },
        { "sample --fanouts 5,x", "--fanouts" },
        { "sample --fanouts -2", "--fanouts" },
        { "sample --batch 0", "--batch" },
        { "sample --batches -1", "--batches" },
        { "sample --threads 0", "--threads" },
        { "sample --weights heavy", "--weights" },
        { "sample --seed -3", "--seed" },
        { "sample extra", "unexpected argument" },
        { "sample --data /nonexistent/graph.gnn", "/nonexistent/graph.gnn" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_usage_error(bad[i].args, bad[i].says, out, sizeof out);
}
END_TEST

/* Run one configuration with --json and return the parsed report (caller puts it). */
static json_object *run_json(const char *flags)
{
    char args[1024];
    snprintf(args, sizeof args, "sample --data builtin --fanouts 6,4,3 --batch 500 --batches 3 --seed 7 %s --json %s",
             flags, tmp("s.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    json_object *r = json_object_from_file(tmp("s.json"));
    ck_assert_msg(r != NULL, "%s: no JSON report", args);
    return r;
}

START_TEST(sample_json_report)
{
    NEED_TOOL();
    json_object *r = run_json("--impl opt --variant unfused --idmap dense --threads 2");
    char head[64];
    snprintf(head, sizeof head, "sample: opt unfused/dense threads=%d: ", test_threads(2)); /* what ran */
    ck_assert_msg(strstr(out, head) != NULL, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "M edges/s"));
    ck_assert_str_eq(json_object_get_string(get(r, "command")), "sample");
    get(r, "version");
    ck_assert_int_eq(json_object_get_int64(get(r, "seed")), 7);
    ck_assert_int_eq(json_object_get_int(get(r, "threads")), test_threads(2));
    ck_assert_str_eq(json_object_get_string(get(r, "backend")), "self");
    ck_assert_int_eq(json_object_get_int(get(r, "ranks")), 1);
    json_object *cfg = get(r, "config");
    ck_assert_str_eq(json_object_get_string(get(cfg, "impl")), "opt");
    ck_assert_str_eq(json_object_get_string(get(cfg, "variant")), "unfused");
    ck_assert_str_eq(json_object_get_string(get(cfg, "idmap")), "dense");
    ck_assert_int_eq(json_object_get_int(get(cfg, "batch")), 500);
    ck_assert_int_eq(json_object_array_length(get(cfg, "fanouts")), 3);
    const int64_t edges = json_object_get_int64(get(r, "edges_sampled"));
    ck_assert_int_gt(edges, 0);
    ck_assert(json_object_get_double(get(r, "seconds")) >= 0.0);
    ck_assert(json_object_get_double(get(r, "edges_per_s")) >= 0.0);
    json_object *ls = get(r, "layers");
    ck_assert_int_eq(json_object_array_length(ls), 3);
    int64_t sum = 0;
    for (size_t l = 0; l < 3; l++) {
        json_object *o = json_object_array_get_idx(ls, l);
        const int64_t dst = json_object_get_int64(get(o, "dst")), src = json_object_get_int64(get(o, "src"));
        ck_assert_int_ge(src, dst);
        sum += json_object_get_int64(get(o, "edges"));
    }
    /* layer 2 holds the seeds: 3 batches of 500 */
    ck_assert_int_eq(json_object_get_int64(get(json_object_array_get_idx(ls, 2), "dst")), 1500);
    ck_assert_int_eq(sum, edges);
    json_object_put(r);

    /* ref: variant and idmap do not apply, and the report says so */
    r = run_json("--impl ref --idmap fused");
    ck_assert_ptr_nonnull(strstr(out, "sample: ref threads=1: "));
    ck_assert_ptr_nonnull(strstr(out, "apply to --impl opt only"));
    cfg = get(r, "config");
    ck_assert(json_object_get_type(get(cfg, "variant")) == json_type_null);
    ck_assert(json_object_get_type(get(cfg, "idmap")) == json_type_null);
    get(r, "note");
    json_object_put(r);

    /* an unwritable report path is bad input, found before sampling (tests/test_cli.c: all
     * subcommands) */
    ck_assert_int_eq(tool("sample --batches 1 --json /nonexistent/dir/r.json", out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "/nonexistent/dir/r.json"));
    ck_assert_ptr_null(strstr(out, "edges/s"));
}
END_TEST

/* "edges_sampled" and every layer's dst/src/edges, as one string. */
static char *counts(json_object *r)
{
    char buf[1024];
    int k = snprintf(buf, sizeof buf, "edges %lld:", (long long)json_object_get_int64(get(r, "edges_sampled")));
    json_object *ls = get(r, "layers");
    for (size_t l = 0; l < json_object_array_length(ls) && k < (int)sizeof buf - 80; l++) {
        json_object *o = json_object_array_get_idx(ls, l);
        k += snprintf(buf + k, sizeof buf - (size_t)k, " [%lld %lld %lld]",
                      (long long)json_object_get_int64(get(o, "dst")), (long long)json_object_get_int64(get(o, "src")),
                      (long long)json_object_get_int64(get(o, "edges")));
    }
    return strdup(buf);
}

START_TEST(sample_ref_opt_same_counts)
{
    NEED_TOOL();
    static const char *const modes[] = { "", "--replace", "--weights random", "--replace --weights random" };
    static const char *const opts[] = {
        "--impl opt --variant fused --idmap ordered --threads 2",
        "--impl opt --variant fused --idmap fused --threads 2",
        "--impl opt --variant fused --idmap dense --threads 1",
        "--impl opt --variant unfused --idmap ordered --threads 2",
        "--impl opt --variant unfused --idmap fused --threads 2",
        "--impl opt --variant unfused --idmap ref --threads 2",
    };
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        char flags[512];
        snprintf(flags, sizeof flags, "--impl ref %s", modes[m]);
        json_object *r = run_json(flags);
        char *want = counts(r);
        json_object_put(r);
        for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
            snprintf(flags, sizeof flags, "%s %s", opts[i], modes[m]);
            r = run_json(flags);
            char *got = counts(r);
            ck_assert_msg(!strcmp(want, got), "%s: %s, but ref %s: %s", flags, got, modes[m], want);
            free(got);
            json_object_put(r);
        }
        free(want);
    }
}
END_TEST

Suite *suite_sample_cli(void)
{
    Suite *s = suite_create("sample_cli");
    TCase *tc = tcase_create("cpu");
    tcase_set_tags(tc, "cpu");
    tcase_set_timeout(tc, 180);
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    tcase_add_test(tc, sample_usage_errors);
    tcase_add_test(tc, sample_json_report);
    tcase_add_test(tc, sample_ref_opt_same_counts);
    suite_add_tcase(s, tc);
    return s;
}
