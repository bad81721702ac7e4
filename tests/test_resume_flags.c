/* tests/test_resume_flags.c -- every flag of `gnnref train` meets --resume as declared
 * (docs/checkpoint.md, "Flags and the fingerprint").
 *
 * The walk goes over the command's flag tables themselves (cli_train_command: the one table
 * per group that drives parsing, help and the report's config), so a flag added later is
 * walked too. A flag either
 *   - enters the checkpoint's fingerprint (not listed in cli_train_resume_rules): the test
 *     writes a checkpoint in a run where the flag applies, then resumes with the flag changed
 *     (a value derived from its descriptor and the run's reported value, or one given below)
 *     and expects a clear refusal naming the file: `fingerprinted`;
 *   - may differ on resume (FREE): runs killed after their first epoch are resumed with every
 *     such flag changed at once, and the step losses must be the uninterrupted run's:
 *     `free_flags_resume`;
 *   - does not combine with checkpoints (REFUSED): giving it with --resume is a usage error:
 *     `refused_flags`.
 * `declared` checks the list itself: every entry names a flag of the tables, with a reason. */
#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/train.h"
#include "cli_util.h"

static char out[1 << 16];

#define COMMON "--epochs 1 --quiet --hidden 8"

/* The runs a flag is checked in: where it applies (by its tags, or as given below). */
enum { C_ONE, C_GAT, C_RGCN, C_HEC, C_FETCH, C_MATCHW, C_EMBED, C_SPLIT, C_METIS, N_CTX };
static const char *const k_ctx[N_CTX] = {
    [C_ONE] = "--data builtin",
    [C_GAT] = "--data builtin --model gat",
    [C_RGCN] = "--data builtin-typed --model rgcn",
    [C_HEC] = "--data builtin --backend sim --ranks 2 --remote hec",
    [C_FETCH] = "--data builtin --backend sim --ranks 2 --remote fetch",
    [C_MATCHW] = "--data builtin --backend sim --ranks 2 --remote fetch --match --reorder-window 2",
    [C_EMBED] = "--data builtin --backend sim --ranks 2 --remote fetch --embed-dim 4",
    [C_SPLIT] = "--data builtin --split 0.5,0.2,0.3",
    [C_METIS] = "--data builtin --backend sim --ranks 2 --remote hec --part-method metis --part-balance train",
};

/* Flags whose run or changed value the descriptor does not give. value NULL: derived. A "@set"
 * value is the saved partition set the test makes. */
static const struct {
    const char *flag;
    int ctx;
    const char *value;
} k_how[] = {
    { "data", C_ONE, "builtin-typed" },
    { "mode", C_ONE, "fullbatch" },    /* no minibatch flag in the run: they do not apply there */
    { "fanouts", C_ONE, "3,3" },
    { "split", C_SPLIT, "0.5,0.3,0.2" }, /* as many train vertices: the same step count */
    { "partitions", C_HEC, "@set" },
    { "sampling", C_FETCH, NULL },
    { "embed-dim", C_FETCH, NULL },
    { "embed-optimizer", C_EMBED, NULL },
    { "embed-lr", C_EMBED, NULL },
    { "match", C_FETCH, NULL },
    { "reorder-window", C_MATCHW, NULL },
    { "match-norm", C_MATCHW, NULL },
    { "part-balance", C_METIS, "train,degree" },
};

/* What a refusal of another fingerprint says (core/io/checkpoint.c compare). */
static const char *const k_refusals[] = { "another training configuration", "written by a run on",
                                          "written for dataset", "other training data" };

static const cli_resume_rule *rule_of(const char *flag)
{
    for (const cli_resume_rule *r = cli_train_resume_rules; r->flag; r++)
        if (!strcmp(r->flag, flag))
            return r;
    return NULL;
}

static const cli_flag *flag_named(const char *name)
{
    for (const cli_group *g = cli_train_command()->groups; g->flags; g++)
        for (const cli_flag *f = g->flags; f->name; f++)
            if (!strcmp(f->name, name))
                return f;
    return NULL;
}

static int ctx_of(const cli_flag *f, const char **value)
{
    *value = NULL;
    for (size_t i = 0; i < sizeof k_how / sizeof k_how[0]; i++)
        if (!strcmp(k_how[i].flag, f->name)) {
            *value = k_how[i].value;
            return k_how[i].ctx;
        }
    if (f->bits & TRAIN_TAG_GAT)
        return C_GAT;
    if (f->bits & TRAIN_TAG_RGCN)
        return C_RGCN;
    if (f->bits & (TRAIN_TAG_PARTS | TRAIN_TAG_MEMORY | TRAIN_TAG_HEC | CLI_TAG_SIM))
        return C_HEC;
    return C_ONE;
}

/* The checkpoint of context k (written once per test) and its report's config. */
static json_object *g_config[N_CTX];
static char g_ckpt[N_CTX][256];
static const char *ckpt_of(int k)
{
    if (!g_ckpt[k][0]) {
        char name[32], args[2048];
        snprintf(name, sizeof name, "ck%d", k);
        snprintf(g_ckpt[k], sizeof g_ckpt[k], "%s", tmp(name));
        snprintf(name, sizeof name, "ck%d.json", k);
        const char *json = tmp(name);
        snprintf(args, sizeof args, "train %s %s --checkpoint %s --json %s", k_ctx[k], COMMON, g_ckpt[k], json);
        ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
        json_object *root = json_object_from_file(json), *cfg = NULL;
        ck_assert_msg(root && json_object_object_get_ex(root, "config", &cfg), "%s: no config", json);
        g_config[k] = json_object_get(cfg);
        json_object_put(root);
    }
    return g_ckpt[k];
}

static void teardown(void)
{
    for (int k = 0; k < N_CTX; k++) {
        if (g_config[k])
            json_object_put(g_config[k]);
        g_config[k] = NULL;
        g_ckpt[k][0] = 0;
    }
    cli_cleanup();
}

/* The report's value of flag f in context k (its config key, as cli_config_json names it). */
static json_object *reported(const cli_flag *f, int k)
{
    char key[64];
    snprintf(key, sizeof key, "%s", f->key ? f->key : f->name);
    for (char *p = key; *p; p++)
        *p = *p == '-' ? '_' : *p;
    json_object *v = NULL;
    json_object_object_get_ex(g_config[k], key, &v);
    return v;
}

/* A valid value of f other than the run's: from its type, range or choices. 0 when there is
 * none to derive (the flag then needs a line in k_how). */
static int changed_value(const cli_flag *f, int k, char *buf, size_t cap)
{
    json_object *v = reported(f, k);
    switch (f->type) {
    case CLI_BOOL:
        if (v && json_object_get_boolean(v))
            return 0;
        snprintf(buf, cap, "%s", "");
        return 1;
    case CLI_INT: {
        const int64_t x = v ? json_object_get_int64(v) : f->lo;
        snprintf(buf, cap, "%lld", (long long)(x + 1 <= f->hi ? x + 1 : x - 1));
        return 1;
    }
    case CLI_U64:
        snprintf(buf, cap, "%llu", (unsigned long long)(v ? json_object_get_uint64(v) : 0) + 1);
        return 1;
    case CLI_REAL: {
        const double x = v ? json_object_get_double(v) : 0.0;
        snprintf(buf, cap, "%.9g", x > 0.0 ? x / 2 : f->rlo + (f->rhi - f->rlo) / 4);
        return 1;
    }
    case CLI_CHOICE:
    case CLI_IMPL: {
        static const cli_choice k_impls[] = { { "ref", 0, 0 }, { "opt", 0, 0 }, { "blas", 0, 0 }, { NULL, 0, 0 } };
        const char *now = v ? json_object_get_string(v) : "";
        for (const cli_choice *c = f->type == CLI_IMPL ? k_impls : f->choices; c->name; c++)
            if (!c->hidden && strcmp(c->name, now)) {
                snprintf(buf, cap, "%s", c->name);
                return 1;
            }
        return 0;
    }
    default:
        return 0;
    }
}

START_TEST(declared)
{
    for (const cli_resume_rule *r = cli_train_resume_rules; r->flag; r++) {
        ck_assert_msg(flag_named(r->flag), "cli_train_resume_rules names --%s, which `gnnref train` has not", r->flag);
        ck_assert_msg(r->kind == CLI_RESUME_FREE || r->kind == CLI_RESUME_REFUSED, "--%s: kind %d", r->flag, r->kind);
        ck_assert_msg(r->why && strlen(r->why) > 10, "--%s: no reason given", r->flag);
        for (const cli_resume_rule *q = cli_train_resume_rules; q < r; q++)
            ck_assert_msg(strcmp(q->flag, r->flag), "--%s listed twice", r->flag);
    }
    int n = 0;
    for (const cli_group *g = cli_train_command()->groups; g->flags; g++)
        for (const cli_flag *f = g->flags; f->name; f++)
            n++;
    ck_assert_int_gt(n, 50); /* the walk sees the whole command: train's, partitions', full batch's, the backend's */
}
END_TEST

/* Every fingerprinted flag: a resume under a changed value is refused, naming the file. */
START_TEST(fingerprinted)
{
    NEED_TOOL();
    char args[4096], value[256], set[512] = "";
    int checked = 0;
    for (const cli_group *g = cli_train_command()->groups; g->flags; g++)
        for (const cli_flag *f = g->flags; f->name; f++) {
            if (rule_of(f->name))
                continue;
            const char *given;
            const int k = ctx_of(f, &given);
            const char *dir = ckpt_of(k);
            if (given && !strcmp(given, "@set")) {
                if (!set[0]) { /* a saved set of 2 random parts: another partition than the run's */
                    snprintf(set, sizeof set, "%s", tmp("set"));
                    snprintf(args, sizeof args, "partition --data builtin --parts 2 --method random -o %s", set);
                    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
                }
                given = set;
            }
            if (given)
                snprintf(value, sizeof value, "%s", given);
            else
                ck_assert_msg(changed_value(f, k, value, sizeof value),
                              "--%s enters the checkpoint's fingerprint (it is not in cli_train_resume_rules), but "
                              "tests/test_resume_flags.c knows no other value to resume it with: add a line to k_how",
                              f->name);
            snprintf(args, sizeof args, "train %s %s --%s %s --resume %s", k_ctx[k], COMMON, f->name, value, dir);
            const int rc = tool(args, out, sizeof out);
            int said = 0;
            for (size_t i = 0; i < sizeof k_refusals / sizeof k_refusals[0]; i++)
                said |= strstr(out, k_refusals[i]) != NULL;
            ck_assert_msg(rc == 2 && said && strstr(out, "rank-0000"),
                          "--%s %s: a resume from a checkpoint written with another value of --%s must be refused, "
                          "naming the file (exit %d): %s\n  (%s)", f->name, value, f->name, rc, out, args);
            checked++;
        }
    ck_assert_int_gt(checked, 30);
}
END_TEST

/* A valid value of f, for a flag given only to be refused. */
static void some_value(const cli_flag *f, char *buf, size_t cap)
{
    switch (f->type) {
    case CLI_BOOL: snprintf(buf, cap, "%s", ""); break;
    case CLI_INT: snprintf(buf, cap, "%lld", (long long)(f->lo > 2 ? f->lo : 2)); break;
    case CLI_U64: snprintf(buf, cap, "%s", "3"); break;
    case CLI_REAL: snprintf(buf, cap, "%.9g", f->rlo + (f->rhi - f->rlo) / 4); break;
    case CLI_CHOICE: snprintf(buf, cap, "%s", f->choices[0].name); break;
    default: ck_abort_msg("--%s: a refused flag of type %d: give it a value here", f->name, (int)f->type);
    }
}

/* Every REFUSED flag: given with --resume, a usage error before any checkpoint is read. */
START_TEST(refused_flags)
{
    NEED_TOOL();
    char args[2048], value[256];
    for (const cli_resume_rule *r = cli_train_resume_rules; r->flag; r++) {
        if (r->kind != CLI_RESUME_REFUSED)
            continue;
        const cli_flag *f = flag_named(r->flag);
        const int fb = (f->bits & TRAIN_TAG_FB) != 0;
        const char *run = fb ? "--data builtin --mode fullbatch --parts 2 --backend sim --ranks 2"
                             : "--data builtin --backend sim --ranks 2 --remote hec";
        some_value(f, value, sizeof value);
        snprintf(args, sizeof args, "train %s %s --%s %s --resume %s", run, COMMON, r->flag, value, tmp("nothing"));
        expect_usage_error(args, fb ? "full batch on partitions" : r->flag, out, sizeof out);
        ck_assert_msg(!strstr(out, "no checkpoint of rank"), "--%s: refused only after reading: %s", r->flag, out);
    }
}
END_TEST

/* A run of 2 epochs killed after its first (a checkpoint of epoch 1), resumed with `changed`:
 * the step losses must be the uninterrupted run's. */
static void resume_changed(const char *run, const char *changed)
{
    static char a[1 << 18], b[1 << 18];
    char args[4096], cmd[4096];
    snprintf(args, sizeof args, "train %s --epochs 2 --quiet --hidden 8 --json %s", run, tmp("full.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    cli_steps_text(tmp("full.json"), a, sizeof a);
    int M = 0; /* steps per epoch: the first epoch's count */
    json_object *root = json_object_from_file(tmp("full.json")), *eps = NULL, *e0 = NULL, *s = NULL;
    ck_assert(root && json_object_object_get_ex(root, "epochs", &eps));
    e0 = json_object_array_get_idx(eps, 0);
    ck_assert(e0 && json_object_object_get_ex(e0, "steps", &s));
    M = json_object_get_int(s);
    json_object_put(root);
    ck_assert_int_ge(M, 1);
    snprintf(cmd, sizeof cmd, "rm -rf %s; env GNNREF_TEST_KILL_AT_STEP=%d %s train %s --epochs 2 --quiet --hidden 8 "
                              "--checkpoint %s >%s 2>&1 </dev/null", tmp("fk"), M, getenv("GNN_TOOL"), run, tmp("fk"),
             tmp("killed.txt"));
    const int rc = system(cmd);
    ck_assert_msg(!(WIFEXITED(rc) && WEXITSTATUS(rc) == 0), "%s: the run was not killed", run);
    snprintf(args, sizeof args, "train %s --epochs 2 --hidden 8 %s --resume %s --json %s", run, changed, tmp("fk"),
             tmp("resumed.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    cli_steps_text(tmp("resumed.json"), b, sizeof b);
    ck_assert_msg(!strcmp(a, b), "%s resumed with %s: the step losses differ from the run never stopped", run, changed);
}

/* Every FREE flag, changed on resume in one of the runs below: the same step losses. */
START_TEST(free_flags_resume)
{
    NEED_TOOL();
    static const char *const k_runs[][2] = {
        { "--data builtin --threads 2",
          "--threads 1 --adapt-threads off --checkpoint @ck2 --checkpoint-every 2 --backend sim --ranks 1" },
        { "--data builtin --backend sim --ranks 2 --remote hec",
          "--pipeline 2 --pipeline-copy 1 --threads-per-rank 2 --alpha 1e-5 --bandwidth 10 --sim-timeout 30" },
    };
    /* each FREE flag is changed by a run above (the resume's own flags --resume, --json and the
     * base's --quiet, dropped on resume, included) */
    for (const cli_resume_rule *r = cli_train_resume_rules; r->flag; r++) {
        if (r->kind != CLI_RESUME_FREE)
            continue;
        char pat[64];
        snprintf(pat, sizeof pat, "--%s ", r->flag);
        int seen = !strcmp(r->flag, "resume") || !strcmp(r->flag, "json") || !strcmp(r->flag, "quiet");
        for (size_t i = 0; i < sizeof k_runs / sizeof k_runs[0] && !seen; i++)
            seen = strstr(k_runs[i][1], pat) != NULL;
        ck_assert_msg(seen, "--%s is declared free on resume: change it in a run of free_flags_resume", r->flag);
    }
    for (size_t i = 0; i < sizeof k_runs / sizeof k_runs[0]; i++) {
        char changed[1024];
        const char *at = strstr(k_runs[i][1], "@ck2");
        if (at)
            snprintf(changed, sizeof changed, "%.*s%s%s", (int)(at - k_runs[i][1]), k_runs[i][1], tmp("ck2"), at + 4);
        else
            snprintf(changed, sizeof changed, "%s", k_runs[i][1]);
        resume_changed(k_runs[i][0], changed);
    }
}
END_TEST

Suite *suite_resume_flags(void)
{
    Suite *s = suite_create("resume_flags");
    TCase *tc = tcase_create("flags");
    tcase_set_timeout(tc, 240);
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, declared);
    tcase_add_test(tc, refused_flags);
    tcase_add_test(tc, free_flags_resume);
    suite_add_tcase(s, tc);
    /* 7 s: the full tier only (tag full: make check leaves it out; check-full, the sanitizer and no-OpenMP suites run it) */
    TCase *full = tcase_create("flags-slow");
    tcase_set_tags(full, "full");
    tcase_set_timeout(full, 240);
    tcase_add_checked_fixture(full, NULL, teardown);
    tcase_add_test(full, fingerprinted);
    suite_add_tcase(s, full);
    return s;
}
