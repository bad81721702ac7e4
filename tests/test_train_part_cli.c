/* tests/test_train_part_cli.c -- `gnnref train` on partitions (--partitions DIR, --remote
 * drop|hec|fetch; include/gnnref/train_part.h): usage errors exit 2 with their message; the
 * report's keys of training on partitions; with one rank every mode gives the plain `train`
 * step losses bit for bit (the library's promise); a saved set trains exactly as the same
 * partition computed in memory (each rank loads its own part). The JSON prints every step
 * loss with 17 significant digits, so equal text is equal bits. A small generated SBM keeps
 * each run well under a second. GNN_TOOL (set by `make check`) names the tool; without it
 * these cases say SKIP and return. */
#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"

static char out[1 << 16];

/* 1000 vertices, 3 classes, 8 features, split 0.1/0.2/0.2 (gen's default) */
/* (tmp() rotates four buffers and tool() uses them: the paths are kept in their own) */
static const char *small_data(void)
{
    static char path[256];
    snprintf(path, sizeof path, "%s", tmp("s.gnn"));
    char args[1024];
    snprintf(args, sizeof args, "gen sbm --nodes 1000 --classes 3 --features 8 --seed 7 -o %s", path);
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    return path;
}

/* the saved set of data in K parts, METIS balanced on train and degree, seed 5 */
static const char *small_set(const char *data, int k, const char *name)
{
    static char dir[256];
    snprintf(dir, sizeof dir, "%s", tmp(name));
    char args[1024];
    snprintf(args, sizeof args, "partition %s --parts %d --balance train,degree --seed 5 -o %s", data, k, dir);
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    return dir;
}

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    ck_assert_msg(json_object_object_get_ex(o, key, &v), "report lacks key \"%s\"", key);
    return v;
}

/* Run `train FLAGS --json FILE` (exit 0) and return the parsed report (caller puts it). */
static json_object *train_json(const char *flags)
{
    char args[2048];
    snprintf(args, sizeof args, "train %s --json %s", flags, tmp("r.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    json_object *r = json_object_from_file(tmp("r.json"));
    ck_assert_msg(r != NULL, "%s: no JSON report", args);
    return r;
}

/* The "steps" list as compact text (caller frees). */
static char *steps_text(json_object *r)
{
    return strdup(json_object_to_json_string_ext(get(r, "steps"), JSON_C_TO_STRING_PLAIN));
}

START_TEST(usage_errors)
{
    NEED_TOOL();
    const char *data = small_data(), *set = small_set(data, 2, "set2");
    ck_assert_int_eq(tool("train --help", out, sizeof out), 0);
    static const char *const flags[] = { "--partitions", "--remote", "--part-method", "--part-balance",
                                         "--hec-cs",     "--hec-ls", "--hec-nc",      "--hec-delay" };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        ck_assert_msg(strstr(out, flags[i]) != NULL, "--help does not list %s", flags[i]);
    char split[1024], full[1024], balance[1024], ranks[1024], fetch[1024], other[1024], gcn[1024];
    snprintf(split, sizeof split, "train --partitions %s --split 0.5,0.2,0.2", set);
    snprintf(full, sizeof full, "train --partitions %s --mode fullbatch --backend sim --ranks 2", set);
    snprintf(balance, sizeof balance, "train --partitions %s --part-balance degree", set);
    snprintf(ranks, sizeof ranks, "train --partitions %s --backend sim --ranks 3 --epochs 1", set);
    snprintf(fetch, sizeof fetch, "train --partitions %s --remote fetch --backend sim --ranks 2 --epochs 1", set);
    snprintf(other, sizeof other, "train --partitions %s --data builtin --backend sim --ranks 2 --epochs 1", set);
    snprintf(gcn, sizeof gcn, "train --data %s --remote hec --model gcn --backend sim --ranks 2 --epochs 1", data);
    const struct { const char *args, *says, *also; } bad[] = {
        { split, "--split does not apply to --partitions", "own split" },
        { "train --hec-nc 4", "--hec-nc applies to --remote hec only", "no --remote" },
        { "train --remote fetch --hec-cs 8", "--hec-cs applies to --remote hec only", "remote is fetch" },
        { "train --remote drop --hec-ls 3", "--hec-ls applies to --remote hec only", "remote is drop" },
        { "train --remote hec --hec-delay 0", "--hec-delay '0'", "1..64" },
        { "train --remote hec --hec-delay 65", "--hec-delay '65'", "1..64" },
        { "train --remote hec --hec-cs -1", "--hec-cs '-1'", "0 = auto" },
        { "train --remote hec --mode fullbatch", "--remote does not apply to --mode fullbatch",
          "full batch on partitions" },
        /* a saved set with --mode fullbatch is SuperGCN's full batch on partitions: it reads the
         * set's dataset, and builtin (the default --data) is another graph */
        { full, "was not made from builtin", "full batch on partitions reads the set's dataset" },
        { "train --remote bogus", "--remote 'bogus'", "drop, hec or fetch" },
        { "train --part-method range", "--part-method applies to partitioning in memory", "--remote" },
        { balance, "--part-balance does not apply to --partitions", "partitioned" },
        { "train --remote hec --part-balance weight", "--part-balance", "'weight'" },
        { "train --remote hec --part-method kway", "--part-method 'kway'", "metis" },
        /* a set has exactly one part per rank: the message names both numbers */
        { ranks, "has 2 parts but 3 ranks run", "--ranks 2" },
        /* fetch needs the set's own dataset (the default, builtin, is another graph), and a
         * --data given with a set must be the set's */
        { fetch, "was not made from builtin", "1000 vertices" },
        { other, "was not made from builtin", "20000 vertices" },
        { "train --partitions /nonexistent/set --backend sim --ranks 2", "/nonexistent/set", "" },
        /* the library refuses gcn on partitions (a part lacks its halos' global degrees) */
        { gcn, "gcn", "" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        expect_usage_error(bad[i].args, bad[i].says, out, sizeof out);
        ck_assert_msg(strstr(out, bad[i].also), "%s: expected '%s' in: %s", bad[i].args, bad[i].also, out);
    }
}
END_TEST

/* An in-memory hec run on 2 simulated ranks: the new config, epoch and top-level keys, the
 * explicit HEC settings echoed, and the human lines. Then fetch from a saved set. */
START_TEST(json_report_keys)
{
    NEED_TOOL();
    const char *data = small_data();
    char flags[1024];
    snprintf(flags, sizeof flags,
             "--data %s --remote hec --hec-cs 40 --hec-ls 3 --hec-nc 16 --hec-delay 2 --backend sim --ranks 2 "
             "--epochs 2 --hidden 8 --fanouts 4,4 --batch 16 --seed 5",
             data);
    json_object *r = train_json(flags);
    ck_assert_ptr_nonnull(strstr(out, "remote=hec parts=memory(metis)"));
    ck_assert_ptr_nonnull(strstr(out, " comm_pre "));
    ck_assert_ptr_nonnull(strstr(out, " comm_post "));
    ck_assert_ptr_nonnull(strstr(out, "  hit l0 "));
    ck_assert_ptr_nonnull(strstr(out, "  push MB "));
    ck_assert_ptr_nonnull(strstr(out, "hec: cs 40 nc 16 ls 3 d 2  hit rate l0 "));
    ck_assert_ptr_nonnull(strstr(out, "halo edges dropped "));
    ck_assert_ptr_nonnull(strstr(out, "test accuracy: "));
    ck_assert_str_eq(json_object_get_string(get(r, "backend")), "sim");
    ck_assert_int_eq(json_object_get_int(get(r, "ranks")), 2);
    json_object *cfg = get(r, "config");
    ck_assert_str_eq(json_object_get_string(get(cfg, "remote")), "hec");
    ck_assert_ptr_null(get(cfg, "partitions"));
    ck_assert_str_eq(json_object_get_string(get(cfg, "part_method")), "metis");
    json_object *bal = get(cfg, "part_balance");
    ck_assert_int_eq((int)json_object_array_length(bal), 2);
    ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(bal, 0)), "train");
    ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(bal, 1)), "degree");
    json_object *hec = get(cfg, "hec");
    ck_assert_int_eq(json_object_get_int64(get(hec, "cs")), 40);
    ck_assert_int_eq(json_object_get_int(get(hec, "ls")), 3);
    ck_assert_int_eq(json_object_get_int64(get(hec, "nc")), 16);
    ck_assert_int_eq(json_object_get_int(get(hec, "delay")), 2);
    for (int i = 0; i < 2; i++) { /* given sizes: the same on every rank */
        ck_assert_int_eq(json_object_get_int64(json_object_array_get_idx(get(hec, "cs_range"), i)), 40);
        ck_assert_int_eq(json_object_get_int64(json_object_array_get_idx(get(hec, "nc_range"), i)), 16);
    }
    json_object *eps = get(r, "epochs");
    ck_assert_int_eq((int)json_object_array_length(eps), 2);
    int64_t push = 0;
    for (int e = 0; e < 2; e++) {
        json_object *E = json_object_array_get_idx(eps, e);
        json_object *rates = get(E, "hec_hit_rate");
        ck_assert_int_eq((int)json_object_array_length(rates), 2); /* one per layer */
        for (int l = 0; l < 2; l++) {
            json_object *x = json_object_array_get_idx(rates, l);
            ck_assert(x == NULL || (json_object_get_double(x) >= 0.0 && json_object_get_double(x) <= 1.0));
        }
        push += json_object_get_int64(get(E, "push_bytes"));
        ck_assert_int_eq(json_object_get_int64(get(E, "pull_bytes")), 0);
        get(get(E, "phases"), "comm_pre");
        get(get(E, "phases"), "comm_post");
    }
    json_object *pt = get(r, "partition_training");
    ck_assert_int_eq(json_object_get_int64(get(pt, "solid_total")), 1000); /* every vertex owned once */
    ck_assert_int_gt(json_object_get_int64(get(pt, "halo_total")), 0);
    ck_assert_int_gt(json_object_get_int64(get(pt, "train_total")), 0);
    static const char *const per_layer[] = { "lookups", "hits", "hit_rate", "pushed_rows", "received_rows" };
    for (size_t i = 0; i < sizeof per_layer / sizeof per_layer[0]; i++)
        ck_assert_int_eq((int)json_object_array_length(get(pt, per_layer[i])), 2);
    /* two ranks with halos push (at steps k < M - d of an epoch: about 4 steps a rank here) */
    ck_assert_int_gt(json_object_get_int64(get(pt, "push_bytes")), 0);
    ck_assert_int_eq(json_object_get_int64(get(pt, "push_bytes")), push); /* the epochs sum to the run */
    get(pt, "halo_edges_dropped");
    get(pt, "eval_bytes");
    ck_assert(json_object_get_double(get(get(r, "sim"), "predicted_epoch_s")) > 0.0);
    json_object_put(r);

    /* fetch on a saved set, its dataset given: no HEC, pulls instead of pushes */
    const char *set = small_set(data, 2, "set2");
    snprintf(flags, sizeof flags,
             "--data %s --partitions %s --remote fetch --backend sim --ranks 2 --epochs 1 --hidden 8 --fanouts 4,4 "
             "--batch 32 --seed 5",
             data, set);
    r = train_json(flags);
    char want[600];
    snprintf(want, sizeof want, "remote=fetch parts=%s", set);
    ck_assert_msg(strstr(out, want) != NULL, "no '%s' in %s", want, out);
    ck_assert_ptr_nonnull(strstr(out, "  pull MB "));
    ck_assert_ptr_nonnull(strstr(out, "fetch: pulled bytes "));
    cfg = get(r, "config");
    ck_assert_str_eq(json_object_get_string(get(cfg, "remote")), "fetch");
    ck_assert_str_eq(json_object_get_string(get(cfg, "partitions")), set);
    ck_assert_str_eq(json_object_get_string(get(cfg, "part_method")), "metis"); /* from the manifest */
    ck_assert_ptr_null(get(cfg, "hec"));
    pt = get(r, "partition_training");
    ck_assert_int_gt(json_object_get_int64(get(pt, "pull_bytes")), 0);
    ck_assert_int_eq(json_object_get_int64(get(pt, "push_bytes")), 0);
    json_object_put(r);
}
END_TEST

/* With one rank, every remote mode trains exactly as plain `train` with the same flags. */
START_TEST(one_rank_equals_plain_train)
{
    NEED_TOOL();
    const char *data = small_data();
    char common[512], flags[1024];
    snprintf(common, sizeof common, "--data %s --epochs 2 --hidden 8 --fanouts 4,4 --batch 32 --seed 5 --quiet", data);
    json_object *r = train_json(common);
    char *plain = steps_text(r);
    ck_assert_int_gt((int)json_object_array_length(get(r, "steps")), 4);
    json_object_put(r);
    static const char *const modes[] = { "hec", "drop", "fetch" };
    for (size_t i = 0; i < 3; i++) {
        snprintf(flags, sizeof flags, "%s --remote %s --backend sim --ranks 1", common, modes[i]);
        r = train_json(flags);
        char *steps = steps_text(r);
        ck_assert_msg(strcmp(plain, steps) == 0, "--remote %s --ranks 1: steps %s differ from plain train's %s",
                      modes[i], steps, plain);
        free(steps);
        json_object_put(r);
    }
    free(plain);
}
END_TEST

/* Each rank loading its own part of a saved set trains exactly as the same partition made in
 * memory (same method, balance and seed): the same step losses, bit for bit. */
START_TEST(saved_set_equals_memory)
{
    NEED_TOOL();
    const char *data = small_data(), *set = small_set(data, 3, "set3");
    char common[256], flags[1024];
    snprintf(common, sizeof common,
             "--remote hec --backend sim --ranks 3 --epochs 2 --hidden 8 --fanouts 4,4 --batch 16 --seed 5 --quiet");
    snprintf(flags, sizeof flags, "%s --data %s", common, data);
    json_object *r = train_json(flags);
    char *mem = steps_text(r);
    ck_assert_int_gt((int)json_object_array_length(get(r, "steps")), 2);
    json_object_put(r);
    snprintf(flags, sizeof flags, "%s --partitions %s", common, set);
    r = train_json(flags);
    char *saved = steps_text(r);
    ck_assert_ptr_null(get(get(r, "config"), "data")); /* hec on a set needs no dataset */
    ck_assert_msg(strcmp(mem, saved) == 0, "steps from the set %s differ from in memory %s", saved, mem);
    free(saved);
    json_object_put(r);
    free(mem);
}
END_TEST

/* The warning about an empty val or test split counts the split the parts carry, summed over
 * the ranks: a set partitioned with --split 0.5,0,0.5 has no val vertex even though --data's
 * own split has some (fetch reads --data for the topology only). */
START_TEST(empty_split_warning_from_the_parts)
{
    NEED_TOOL();
    char args[1024];
    snprintf(args, sizeof args, "partition builtin --parts 3 --split 0.5,0,0.5 -o %s", tmp("nosplit"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    snprintf(args, sizeof args,
             "train --partitions %s --data builtin --remote fetch --backend sim --ranks 3 --epochs 1 --layers 2 "
             "--fanouts 3,3 --quiet",
             tmp("nosplit"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    ck_assert_msg(strstr(out, "no labelled validation vertex") && !strstr(out, "no labelled test vertex"), "%s", out);
    /* the same dataset in memory, its own split: nothing to say */
    ck_assert_msg(tool("train --remote hec --backend sim --ranks 3 --epochs 1 --layers 2 --fanouts 3,3 --quiet", out,
                       sizeof out) == 0,
                  "%s", out);
    ck_assert_ptr_null(strstr(out, "warning"));
}
END_TEST

Suite *suite_train_part_cli(void)
{
    Suite *s = suite_create("train_part_cli");
    TCase *tc = tcase_create("sim");
    tcase_set_tags(tc, "sim");
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, usage_errors);
    tcase_add_test(tc, json_report_keys);
    tcase_add_test(tc, one_rank_equals_plain_train);
    tcase_add_test(tc, saved_set_equals_memory);
    tcase_add_test(tc, empty_split_warning_from_the_parts);
    suite_add_tcase(s, tc);
    return s;
}
