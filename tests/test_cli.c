/* tests/test_cli.c -- the top-level tool and `gnnref train`: exit codes, messages, and the
 * JSON report keys that DESIGN.md section 6 promises to scripts. GNN_TOOL (set by
 * `make check`) names the tool; without it these cases say SKIP and return. */
#include <check.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h> /* mkfifo */
#include <sys/wait.h>
#include <unistd.h>

#include "cli_util.h"
#include "thread_util.h"

static char out[1 << 16];

START_TEST(top_level)
{
    NEED_TOOL();
    ck_assert_int_eq(tool("", out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "usage: gnnref"));
    ck_assert_int_eq(tool("--help", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "train"));
    ck_assert_int_eq(tool("--version", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "gnnref "));
    ck_assert_int_eq(tool("frobnicate", out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "gnnref: error: unknown command 'frobnicate'"));
    /* a FIFO as the dataset: refused at once (opening it for reading used to wait for a
     * writer forever) */
    ck_assert_int_eq(mkfifo(tmp("fifo.gnn"), 0600), 0);
    char args[600];
    snprintf(args, sizeof args, "info %s", tmp("fifo.gnn"));
    expect_usage_error(args, "not a regular file", out, sizeof out);
    snprintf(args, sizeof args, "train --data %s --epochs 1", tmp("fifo.gnn"));
    expect_usage_error(args, "not a regular file", out, sizeof out);
}
END_TEST

START_TEST(train_usage_errors)
{
    NEED_TOOL();
    ck_assert_int_eq(tool("train --help", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "--fanouts"));
    static const char *const flags[] = { "--model", "--mode", "--patience", "--heads", "--out-heads", "--gat-variant",
                                         "--attn-dropout", "--layernorm", "--normalize-features",
                                         "--weight-decay-layers", "--stop-rule" };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        ck_assert_msg(strstr(out, flags[i]) != NULL, "--help does not list %s", flags[i]);
    static const struct { const char *args, *says; } bad[] = {
        { "train --bogus", "unknown or incomplete flag" },
        { "train --layers 0", "--layers" },
        { "train --layers 2 --fanouts 5", "has 1 values but --layers is 2" },
        { "train --fanouts 5,x", "--fanouts" },
        { "train --dropout 1", "--dropout" },
        { "train --lr -1", "--lr" },
        { "train --impl gpu", "--impl" },
        { "train --model foo", "--model 'foo': expected sage, gcn, gat, gin or rgcn" },
        { "train --mode bogus", "--mode 'bogus'" },
        { "train --model gat --heads 0", "--heads '0'" },
        { "train --model gat --out-heads 65", "--out-heads '65'" },
        { "train --model gcn --heads 4", "--heads applies to --model gat only" },
        { "train --model gat --gat-variant kipf", "--gat-variant 'kipf'" },
        { "train --model gat --attn-dropout 1", "--attn-dropout" },
        { "train --patience -1", "--patience '-1'" },
        { "train --stop-rule loss", "--stop-rule 'loss': expected acc or gat" },
        { "train --stop-rule", "--stop-rule" },
        { "train --epochs 0", "--epochs '0'" },
        { "train --mode fullbatch --fanouts 5,5", "--fanouts does not apply" },
        { "train --mode fullbatch --batch 64", "--batch does not apply" },
        { "train --normalize-features col", "--normalize-features 'col'" },
        { "train --weight-decay-layers last", "--weight-decay-layers 'last'" },
        { "train --split 0.8,0.8,0.1", "--split" },
        { "train --threads 0", "--threads" },
        { "train --seed -3", "--seed" },
        { "train extra", "unexpected argument" },
        { "train --data /nonexistent/graph.gnn", "/nonexistent/graph.gnn" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_usage_error(bad[i].args, bad[i].says, out, sizeof out);
}
END_TEST

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    ck_assert_msg(json_object_object_get_ex(o, key, &v), "report lacks key \"%s\"", key);
    return v;
}

/* sage, mini-batch: the report's top-level keys, the effective configuration, each epoch's
 * keys and phases, the steps, the final accuracies and the kept model (acc: the best epoch's) */
static void check_sage_report(void)
{
    char args[1024];
    snprintf(args, sizeof args,
             "train --data builtin --epochs 2 --batch 1024 --fanouts 5,5 --hidden 16 --split 0.05,0.1,0.1 "
             "--threads 2 --seed 3 --json %s", tmp("train.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "epoch   1"));
    ck_assert_ptr_nonnull(strstr(out, "test accuracy: "));
    json_object *r = json_object_from_file(tmp("train.json"));
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(json_object_get_string(get(r, "command")), "train");
    get(r, "version");
    ck_assert_int_eq(json_object_get_int64(get(r, "seed")), 3);
    ck_assert_int_eq(json_object_get_int(get(r, "threads")), test_threads(2)); /* what ran */
    ck_assert_str_eq(json_object_get_string(get(r, "backend")), "self");
    ck_assert_int_eq(json_object_get_int(get(r, "ranks")), 1);
    ck_assert_int_gt(json_object_get_int64(get(r, "peak_rss_bytes")), 1 << 20); /* at least the tool itself */
    json_object *cfg = get(r, "config");
    ck_assert_int_eq(json_object_get_int(get(cfg, "epochs")), 2);
    ck_assert_int_eq(json_object_array_length(get(cfg, "fanouts")), 2);
    ck_assert_str_eq(json_object_get_string(get(cfg, "model")), "sage");
    ck_assert_str_eq(json_object_get_string(get(cfg, "mode")), "minibatch");
    ck_assert_str_eq(json_object_get_string(get(cfg, "normalize_features")), "none");
    ck_assert_str_eq(json_object_get_string(get(cfg, "weight_decay_layers")), "all");
    ck_assert_int_eq(json_object_get_int(get(cfg, "patience")), 0);
    ck_assert_str_eq(json_object_get_string(get(cfg, "stop_rule")), "acc"); /* sage's default */
    ck_assert_ptr_null(get(cfg, "heads")); /* gat only */
    json_object *eps = get(r, "epochs");
    ck_assert_int_eq(json_object_array_length(eps), 2);
    json_object *e1 = json_object_array_get_idx(eps, 1);
    static const char *const ekeys[] = { "epoch", "loss", "train_acc", "val_acc", "test_acc", "time_s", "phases", "comm_bytes" };
    for (size_t i = 0; i < sizeof ekeys / sizeof ekeys[0]; i++)
        get(e1, ekeys[i]);
    static const char *const phases[] = { "sample", "forward", "backward", "update" };
    for (size_t i = 0; i < 4; i++)
        ck_assert(json_object_get_double(get(get(e1, "phases"), phases[i])) >= 0.0);
    double acc = json_object_get_double(get(e1, "test_acc"));
    ck_assert(acc >= 0.0 && acc <= 1.0);
    json_object *steps = get(r, "steps");
    ck_assert_int_gt(json_object_array_length(steps), 1);
    json_object *s0 = json_object_array_get_idx(steps, 0);
    ck_assert_int_eq(json_object_get_int(get(s0, "step")), 0);
    ck_assert(json_object_get_double(get(s0, "loss")) > 0.0);
    json_object *fin = get(r, "final");
    static const char *const fkeys[] = { "train_acc",           "val_acc",          "test_acc", "best_val_acc",
                                         "test_acc_at_best_val", "test_acc_restored" };
    for (size_t i = 0; i < sizeof fkeys / sizeof fkeys[0]; i++) {
        double v = json_object_get_double(get(fin, fkeys[i]));
        ck_assert(v >= 0.0 && v <= 1.0);
    }
    ck_assert(!json_object_get_boolean(get(fin, "stopped_early")));
    ck_assert_ptr_null(get(fin, "stop_epoch"));
    /* acc keeps the best epoch's model */
    ck_assert_int_eq(json_object_get_int(get(fin, "restored_epoch")), json_object_get_int(get(fin, "best_epoch")));
    ck_assert(json_object_get_double(get(fin, "test_acc_restored")) ==
              json_object_get_double(get(fin, "test_acc_at_best_val")));
    json_object_put(r);
}

/* gat, full-batch, early stopping under acc: effective values in config, the stop in final */
static void check_gat_early_stop(void)
{
    char args[1024];
    snprintf(args, sizeof args,
             "train --data builtin --model gat --mode fullbatch --heads 2 --hidden 4 --epochs 50 --patience 1 "
             "--split 0.05,0.1,0.1 --stop-rule acc --quiet --json %s", tmp("gat.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    json_object *r = json_object_from_file(tmp("gat.json"));
    ck_assert_ptr_nonnull(r);
    json_object *cfg = get(r, "config");
    ck_assert_str_eq(json_object_get_string(get(cfg, "model")), "gat");
    ck_assert_str_eq(json_object_get_string(get(cfg, "mode")), "fullbatch");
    ck_assert_ptr_null(get(cfg, "fanouts"));
    ck_assert_ptr_null(get(cfg, "batch"));
    ck_assert_int_eq(json_object_get_int(get(cfg, "heads")), 2);
    ck_assert_int_eq(json_object_get_int(get(cfg, "out_heads")), 1);
    ck_assert_str_eq(json_object_get_string(get(cfg, "gat_variant")), "velickovic");
    ck_assert(json_object_get_double(get(cfg, "attn_dropout")) == json_object_get_double(get(cfg, "dropout")));
    ck_assert_str_eq(json_object_get_string(get(cfg, "normalize_features")), "row");
    json_object *fin = get(r, "final");
    ck_assert(json_object_get_boolean(get(fin, "stopped_early"))); /* patience 1 over 50 epochs */
    const int stop = json_object_get_int(get(fin, "stop_epoch"));
    ck_assert_int_eq(json_object_get_int(get(fin, "epochs_run")), stop + 1);
    ck_assert_int_eq((int)json_object_array_length(get(r, "epochs")), stop + 1);
    ck_assert_int_eq((int)json_object_array_length(get(r, "steps")), stop + 1); /* one step per epoch */
    ck_assert_int_eq(json_object_get_int(get(fin, "best_epoch")), stop - 1);
    ck_assert_str_eq(json_object_get_string(get(cfg, "stop_rule")), "acc");
    json_object_put(r);
}

/* the same under gat's default rule: its val loss falls every epoch, so patience 1 never runs
 * out; the kept model is the last epoch where the val accuracy and loss both reached their
 * extremes, its test accuracy reported as test_acc_restored */
static void check_gat_default_rule(void)
{
    char args[1024];
    snprintf(args, sizeof args,
             "train --data builtin --model gat --mode fullbatch --heads 2 --hidden 4 --epochs 50 --patience 1 "
             "--split 0.05,0.1,0.1 --quiet --json %s", tmp("gat.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "kept model (--stop-rule gat): epoch "));
    json_object *r = json_object_from_file(tmp("gat.json"));
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(json_object_get_string(get(get(r, "config"), "stop_rule")), "gat");
    json_object *fin = get(r, "final");
    ck_assert(!json_object_get_boolean(get(fin, "stopped_early")));
    json_object *ge = get(r, "epochs");
    const int n = (int)json_object_array_length(ge), kept = json_object_get_int(get(fin, "restored_epoch"));
    ck_assert_int_eq(n, 50);
    double max_acc = 0.0, min_loss = INFINITY;
    int want = -1;
    for (int e = 0; e < n; e++) {
        json_object *ej = json_object_array_get_idx(ge, e);
        const double va = json_object_get_double(get(ej, "val_acc")), vl = json_object_get_double(get(ej, "val_loss"));
        if (va >= max_acc && vl <= min_loss)
            want = e;
        max_acc = va > max_acc ? va : max_acc;
        min_loss = vl < min_loss ? vl : min_loss;
    }
    ck_assert_int_eq(kept, want);
    ck_assert(json_object_get_double(get(fin, "test_acc_restored")) ==
              json_object_get_double(get(json_object_array_get_idx(ge, kept), "test_acc")));
    json_object_put(r);
}

/* empty val and test splits: accuracies of 0 that measure nothing, said on stderr */
static void check_empty_splits(void)
{
    ck_assert_int_eq(tool("train --epochs 1 --quiet --split 1,0,0", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "warning: builtin: no labelled validation vertex"));
    ck_assert_ptr_nonnull(strstr(out, "warning: builtin: no labelled test vertex"));
    ck_assert_int_eq(tool("train --epochs 1 --quiet", out, sizeof out), 0);
    ck_assert_ptr_null(strstr(out, "warning"));
}

/* bad output paths and rank counts are usage errors found before the work (not after a long
 * run): an unwritable report path, a directory as the report, output files and directories
 * that cannot be made, --ranks past the simulator's limit */
static void check_bad_report_paths(void)
{
    static const char *const cmds[] = {
        "train --data builtin --epochs 1", "sample --data builtin --batches 1", "partition builtin --parts 2",
        "gen sbm --nodes 100 -o /tmp/gnnref-cli-g.gnn", "info builtin", "oracle --op hec.ops --cases 1",
        "commcheck --backend sim --ranks 2",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "%s --json /nonexistent/dir/r.json", cmds[i]);
        expect_usage_error(cmd, "--json /nonexistent/dir/r.json: cannot create it: directory", out, sizeof out);
        ck_assert_msg(!strstr(out, "test accuracy") && !strstr(out, "edges/s"), "%s ran: %s", cmd, out);
    }
    /* a directory as the report; gen's and convert's output file, partition's output directory
     * (its parent must exist; an existing file is no directory): all before the work */
    static const struct { const char *cmd, *msg; } outs[] = {
        { "info builtin --json /tmp", "is a directory" },
        { "gen rmat --scale 20 -o /nonexistent/dir/g.gnn", "-o /nonexistent/dir/g.gnn: cannot create it: directory" },
        { "convert /nonexistent/in -o /nonexistent/dir/g.gnn", "-o /nonexistent/dir/g.gnn: cannot create it" },
        { "partition builtin --parts 2 -o /nonexistent/dir/parts", "-o /nonexistent/dir/parts: cannot create it" },
        { "partition builtin --parts 2 -o /proc/self/status", "exists and is not a directory" },
    };
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++)
        expect_usage_error(outs[i].cmd, outs[i].msg, out, sizeof out);
    /* --ranks is bounded by the simulator's limit (GNN_SIM_MAX_RANKS): 4096 was accepted and
     * then refused inside the simulator by a message that did not name the flag */
    static const char *const too_many[] = {
        "commcheck --backend sim --ranks 1025", "train --data builtin --backend sim --ranks 4096 --epochs 1",
        "partcheck builtin --backend sim --ranks 2000",
    };
    for (size_t i = 0; i < sizeof too_many / sizeof too_many[0]; i++)
        expect_usage_error(too_many[i], "--ranks", out, sizeof out);
    ck_assert_ptr_nonnull(strstr(out, "1..1024"));
}

START_TEST(train_json_report)
{
    NEED_TOOL();
    check_sage_report();
    check_gat_early_stop();
    check_gat_default_rule();
    check_empty_splits();
    check_bad_report_paths();
}
END_TEST

/* A report that cannot be written in full (a file-size limit stands in for a full disk:
 * writes past it fail with EFBIG) is an error, exit 1, and leaves no half report and no
 * temporary file behind: an existing report keeps its old content. */
START_TEST(report_write_failure)
{
    NEED_TOOL();
    static const char *const cmds[] = { "train --data builtin --epochs 1 --quiet",
                                        "oracle --op idmap.build --impl ordered --cases 3" };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        const char *rep = tmp("r.json");
        FILE *f = fopen(rep, "w");
        ck_assert_ptr_nonnull(f);
        fputs("old", f);
        fclose(f);
        /* 1 KB blocks: each report (3 KB, 76 KB) exceeds 2, the captured output (< 1 KB) does not */
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "sh -c 'ulimit -f 2; trap \"\" XFSZ; exec %s %s --json %s' >%s 2>&1 </dev/null",
                 getenv("GNN_TOOL"), cmds[i], rep, tmp("o.txt"));
        const int rc = system(cmd);
        f = fopen(tmp("o.txt"), "r");
        const size_t n = f ? fread(out, 1, sizeof out - 1, f) : 0;
        out[n] = '\0';
        if (f)
            fclose(f);
        ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 1, "%s: expected exit 1: %s", cmds[i], out);
        ck_assert_msg(strstr(out, "cannot write JSON report"), "%s: %s", cmds[i], out);
        char got[16] = { 0 };
        f = fopen(rep, "r");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq((int)fread(got, 1, sizeof got - 1, f), 3);
        fclose(f);
        ck_assert_str_eq(got, "old");
        /* and no temporary file (r.json.tmp.PID) is left in the directory */
        snprintf(cmd, sizeof cmd, "ls %s | grep -c tmp", g_dir);
        FILE *p = popen(cmd, "r");
        ck_assert_ptr_nonnull(p);
        int left = -1;
        ck_assert_int_eq(fscanf(p, "%d", &left), 1);
        pclose(p);
        ck_assert_msg(left == 0, "%s: a temporary file was left in %s", cmds[i], g_dir);
    }
    /* without the limit the report replaces the old one whole */
    char args[512];
    snprintf(args, sizeof args, "info builtin --json %s", tmp("r.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    json_object *r = json_object_from_file(tmp("r.json"));
    ck_assert_ptr_nonnull(r);
    json_object_put(r);
}
END_TEST

/* --impl and --threads change nothing in the per-step losses (the JSON prints them with
 * 17 significant digits, so equal text means equal bits). */
START_TEST(train_cli_bitwise)
{
    NEED_TOOL();
    static const char *const models[] = { "--model sage --fanouts 4,4", "--model gcn --fanouts 4,4",
                                          "--model gin --mode fullbatch --epochs 2" };
    static const char *const variants[] = { "--impl ref --threads 1", "--impl opt --threads 2",
                                            "--impl opt --threads 3" };
    char *first = NULL;
    for (size_t i = 0; i < 3 * 3; i++) {
        if (i % 3 == 0) {
            free(first);
            first = NULL;
        }
        char args[1024];
        snprintf(args, sizeof args, "train --data builtin --epochs 1 --hidden 8 --quiet %s %s --json %s",
                 models[i / 3], variants[i % 3], tmp("b.json"));
        ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
        json_object *r = json_object_from_file(tmp("b.json"));
        ck_assert_ptr_nonnull(r);
        const char *steps = json_object_to_json_string_ext(get(r, "steps"), JSON_C_TO_STRING_PLAIN);
        if (!first)
            first = strdup(steps);
        else
            ck_assert_msg(strcmp(first, steps) == 0, "%s %s: steps differ from %s", models[i / 3], variants[i % 3],
                          variants[0]);
        json_object_put(r);
    }
    free(first);
}
END_TEST

/* ---- one vocabulary, one table per subcommand (DESIGN.md section 6) ---- */

/* The flags of each subcommand's table (cli/cmd_*.c; the backend's, cli/backend.c, where it
 * communicates). --help must list exactly these, each with its default (or "required"). */
#define BACKEND_FLAGS "backend", "ranks", "alpha", "bandwidth", "sim-timeout", "threads-per-rank", "fault-seed", \
                      "fault-drop", "fault-delay", "fault-delay-p", "fault-flip", "fault-drop-blocking"
static const struct {
    const char *cmd;
    const char *flags[96];
} k_tables[] = {
    { "train", { "data", "model", "mode", "layers", "hidden", "fanouts", "batch", "epochs", "patience", "stop-rule", "lr",
                 "dropout", "weight-decay", "weight-decay-layers", "normalize-features", "layernorm", "rgcn-bases", "heads",
                 "out-heads", "gat-variant", "attn-dropout", "seed", "split", "impl", "threads", "adapt-threads", "eval-every", "json",
                 "quiet", "checkpoint", "checkpoint-every", "resume", "partitions", "remote", "sampling", "pipeline", "pipeline-copy", "embed-dim", "embed-optimizer", "embed-lr", "part-method", "part-balance", "hec-cs", "hec-ls",
                 "hec-nc", "hec-delay", "parts", "plan", "comm-bits", "round", "quant-backward", "lp-rate",
                 "lp-resample", "match", "reorder-window", "match-norm", BACKEND_FLAGS, NULL } },
    { "sample", { "data", "fanouts", "batch", "batches", "impl", "variant", "idmap", "threads", "adapt-threads",
                  "replace", "weights", "seed", "topology", "match", "reorder-window", "match-norm", "json", NULL } },
    { "partition", { "data", "parts", "method", "balance", "seed", "split", "ufactor", "trainers", "impl", "threads",
                     "json", "output", "read-part", "write-part", NULL } },
    { "commplan", { "data", "parts", "method", "widths", "partitions", "read-part", "part-method", "rows", "seed",
                    "impl", "threads", "json", NULL } },
    { "partcheck", { "data", "method", "balance", "seed", "split", "partitions", "impl", "pulls", "pull-ids",
                     "threads", "json", BACKEND_FLAGS, NULL } },
    { "commcheck", { "seed", "inject", "json", BACKEND_FLAGS, NULL } },
    { "gen", { "scale", "edge-factor", "features", "classes", "seed", "output", "threads", "json", "nodes", "deg-in",
               "deg-out", "noise", "split", "types", "featureless", "deg-power", "deg-max", NULL } },
    { "convert", { "data", "format", "output", "split", "seed", "max-vertices", "feature-storage", "reverse-relations",
                   "json", NULL } },
    { "info", { "data", "json", NULL } },
    { "oracle", { "list", "op", "impl", "cases", "seed", "threads", "case", "json", "verbose", "stress", "stress-noise",
                 "stress-seed", "plugin", NULL } },
    { "plot", { "output", "kind", "title", "size", NULL } },
};

/* The flag an entry of --help starts with: "  --name ..." or "  -o, --name ...". */
static int entry_flag(const char *line, char *name, size_t cap)
{
    if (strncmp(line, "  -", 3) != 0)
        return 0;
    const char *p = strstr(line, "--");
    if (!p || p > line + 6)
        return 0;
    p += 2;
    size_t n = strcspn(p, " \n");
    if (n >= cap)
        n = cap - 1;
    memcpy(name, p, n);
    name[n] = '\0';
    return 1;
}

START_TEST(help_lists_every_flag_with_its_default)
{
    NEED_TOOL();
    for (size_t t = 0; t < sizeof k_tables / sizeof k_tables[0]; t++) {
        char args[64];
        snprintf(args, sizeof args, "%s --help", k_tables[t].cmd);
        ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
        /* every entry: a flag of the table, and its default (or that it is required) */
        char seen[96][32];
        int n_seen = 0;
        for (char *line = out; line && *line;) {
            char *next = strchr(line, '\n');
            char name[32];
            if (entry_flag(line, name, sizeof name)) {
                /* the entry runs on over the indented continuation lines */
                char *end = next;
                while (end && !strncmp(end + 1, "    ", 4))
                    end = strchr(end + 1, '\n');
                const size_t len = end ? (size_t)(end - line) : strlen(line);
                char entry[2048];
                size_t k = 0;
                for (size_t i = 0; i < len && k + 1 < sizeof entry; i++) { /* one line, single spaces */
                    const char ch = line[i] == '\n' ? ' ' : line[i];
                    if (ch != ' ' || (k > 0 && entry[k - 1] != ' '))
                        entry[k++] = ch;
                }
                entry[k] = '\0';
                ck_assert_msg(strstr(entry, "default ") || strstr(entry, "required)"),
                              "%s: --%s shows no default:\n%s", args, name, entry);
                int known = 0;
                for (int f = 0; k_tables[t].flags[f]; f++)
                    known |= !strcmp(k_tables[t].flags[f], name);
                ck_assert_msg(known, "%s lists --%s, which this test does not know: add it to k_tables", args, name);
                if (n_seen < 96)
                    snprintf(seen[n_seen++], sizeof seen[0], "%s", name);
            }
            line = next ? next + 1 : NULL;
        }
        for (int f = 0; k_tables[t].flags[f]; f++) {
            int found = 0;
            for (int k = 0; k < n_seen; k++)
                found |= !strcmp(seen[k], k_tables[t].flags[f]);
            ck_assert_msg(found, "%s does not list --%s", args, k_tables[t].flags[f]);
        }
    }
    /* the values shown are the defaults, not a parsed value */
    ck_assert_int_eq(tool("train --layers 5 --help", out, sizeof out), 0);
    ck_assert_msg(strstr(out, "(1..16; default 2)") != NULL, "%s", out);
    ck_assert_int_eq(tool("sample --help", out, sizeof out), 0);
    ck_assert_msg(strstr(out, "default 15,10,5") && strstr(out, "default opt"), "%s", out);
}
END_TEST

/* Every subcommand that reads a dataset takes --data PATH; partition, partcheck, info and
 * convert also take it as their one positional argument, as before. */
START_TEST(data_flag_and_positional)
{
    NEED_TOOL();
    char args[1024], first[8192];
    static const char *const reads[] = {
        "info %s", "partition %s --parts 3 --method range", "partcheck %s --method range --backend sim --ranks 2 "
                                                            "--pulls 1 --pull-ids 20",
    };
    for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++) {
        char flag_form[512], pos_form[512];
        snprintf(flag_form, sizeof flag_form, reads[i], "--data builtin");
        snprintf(pos_form, sizeof pos_form, reads[i], "builtin");
        ck_assert_msg(tool(flag_form, out, sizeof out) == 0, "%s: %s", flag_form, out);
        /* the lines without timings are the same either way */
        const char *key = i == 0 ? "vertices:" : i == 1 ? "edge cut:" : "db_halo rank 0:";
        const char *a = strstr(out, key);
        ck_assert_msg(a != NULL, "%s: no '%s' in %s", flag_form, key, out);
        snprintf(first, sizeof first, "%.*s", (int)strcspn(a, "\n"), a);
        ck_assert_msg(tool(pos_form, out, sizeof out) == 0, "%s: %s", pos_form, out);
        ck_assert_msg(strstr(out, first) != NULL, "%s: '%s' missing from %s", pos_form, first, out);
        /* both at once is one dataset too many */
        snprintf(args, sizeof args, reads[i], "builtin --data builtin");
        expect_usage_error(args, "two datasets", out, sizeof out);
    }
    snprintf(args, sizeof args, "convert --data tests/fixtures/text_tiny --format text -o %s", tmp("a.gnn"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    snprintf(args, sizeof args, "convert tests/fixtures/text_tiny --format text -o %s", tmp("b.gnn"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    snprintf(args, sizeof args, "cmp -s %s %s", tmp("a.gnn"), tmp("b.gnn"));
    ck_assert_msg(system(args) == 0, "convert --data and convert IN wrote different files");
    /* train and sample read --data (no positional argument) */
    expect_usage_error("sample builtin", "unexpected argument 'builtin'", out, sizeof out);
    snprintf(args, sizeof args, "sample --data %s --batches 1 --batch 2 --fanouts 2", tmp("a.gnn"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    /* a required dataset names both spellings */
    expect_usage_error("partition --parts 2", "DATA is required", out, sizeof out);
    ck_assert_ptr_nonnull(strstr(out, "--data PATH"));
}
END_TEST

/* --impl ref|opt chooses the implementation context in train, sample, partition and partcheck
 * (and "cpu", the old name, is opt); the results are the same bits either way. */
START_TEST(impl_everywhere)
{
    NEED_TOOL();
    char args[1024], a[8192];
    static const char *const cmds[] = { "train --epochs 1", "sample --batches 1", "partition builtin --parts 2",
                                        "partcheck builtin --backend sim --ranks 2" };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        snprintf(args, sizeof args, "%s --impl gpu", cmds[i]);
        expect_usage_error(args, "--impl 'gpu': expected ref, opt, fma, blas, cuda or cuda-emu", out, sizeof out);
    }
    /* partition -o: the same files from either builder */
    for (int k = 0; k < 2; k++) {
        snprintf(args, sizeof args, "partition --data builtin --parts 3 --impl %s -o %s --json %s", k ? "opt" : "ref",
                 tmp(k ? "opt" : "ref"), tmp(k ? "opt.json" : "ref.json"));
        ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
        json_object *r = json_object_from_file(tmp(k ? "opt.json" : "ref.json"));
        ck_assert_ptr_nonnull(r);
        ck_assert_str_eq(json_object_get_string(get(get(r, "config"), "impl")), k ? "opt" : "ref");
        json_object_put(r);
    }
    snprintf(args, sizeof args, "diff -r %s %s >/dev/null", tmp("ref"), tmp("opt"));
    ck_assert_msg(system(args) == 0, "partition --impl ref and opt wrote different sets");
    /* partcheck: the same db_halo tables from both contexts; cpu is opt */
    static const char *const impls[] = { "ref", "opt", "cpu" };
    for (int k = 0; k < 3; k++) {
        snprintf(args, sizeof args, "partcheck --data builtin --method hash --backend sim --ranks 3 --pulls 1 "
                 "--pull-ids 50 --impl %s --json %s", impls[k], tmp("pc.json"));
        ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
        const char *d = strstr(out, "db_halo rank 0:"), *e = d ? strstr(d, "kvstore rank 0:") : NULL;
        ck_assert_msg(d && e, "%s", out);
        if (k == 0)
            snprintf(a, sizeof a, "%.*s", (int)(e - d), d);
        else
            ck_assert_msg(!strncmp(a, d, (size_t)(e - d)), "--impl %s: other db_halo tables:\n%s", impls[k], out);
        json_object *r = json_object_from_file(tmp("pc.json"));
        ck_assert_ptr_nonnull(r);
        ck_assert_str_eq(json_object_get_string(get(get(r, "config"), "impl")), k ? "opt" : "ref");
        json_object_put(r);
    }
    /* sample and train report the context they ran with */
    snprintf(args, sizeof args, "sample --batches 1 --impl ref --json %s", tmp("s.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    json_object *r = json_object_from_file(tmp("s.json"));
    ck_assert_str_eq(json_object_get_string(get(get(r, "config"), "impl")), "ref");
    json_object_put(r);
    snprintf(args, sizeof args, "train --epochs 1 --quiet --impl cpu --json %s", tmp("t.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    r = json_object_from_file(tmp("t.json"));
    ck_assert_str_eq(json_object_get_string(get(get(r, "config"), "impl")), "opt");
    json_object_put(r);
}
END_TEST

/* A value out of range is a usage error that names the flag as written and what it expects. */
START_TEST(out_of_range_names_the_flag)
{
    NEED_TOOL();
    static const struct { const char *args, *says; } bad[] = {
        { "train --layers 17", "--layers '17': expected an integer in 1..16" },
        { "train --layers=0", "--layers '0': expected an integer in 1..16" },
        { "train --dropout 1", "--dropout '1': expected a number in [0, 1)" },
        { "train --lr 0", "--lr '0': expected a number in (0, 10]" },
        { "train --remote hec --hec-delay 99", "--hec-delay '99': expected an integer in 1..64" },
        { "sample --batch 0", "--batch '0': expected an integer >= 1" },
        { "sample --fanouts 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", "--fanouts '1,2," },
        { "partition builtin --parts 2 --ufactor 0", "--ufactor '0': expected an integer in 1..1000000" },
        { "partcheck builtin --pulls -1", "--pulls '-1': expected an integer in 0..1000000" },
        { "commcheck --backend sim --ranks 0", "--ranks '0': expected an integer in 1..1024" },
        { "commcheck --backend sim --alpha -1", "--alpha '-1': expected a number in [0, 1000]" },
        { "gen rmat --scale 41 -o /tmp/x.gnn", "--scale '41': expected an integer in 1..40" },
        { "gen sbm --deg-in -1 -o /tmp/x.gnn", "--deg-in '-1': expected a number in [0, 1e+06]" },
        { "convert builtin -o /tmp/x.gnn --max-vertices 0", "--max-vertices '0': expected an integer in 1.." },
        { "convert builtin -o /tmp/x.gnn --format xml", "--format 'xml': expected auto, text, ogb, edgelist or native" },
        { "oracle --cases 0", "--cases '0': expected an integer in 1..1000000" },
        { "oracle --threads 0", "--threads '0': expected at most 16 comma-separated integers in 1..1024" },
        { "oracle --threads 2,1,2", "--threads '2,1,2': 2 given twice" },
        { "train --epochs", "--epochs needs a value" },
        { "train --quiet=1", "--quiet takes no value" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_usage_error(bad[i].args, bad[i].says, out, sizeof out);
}
END_TEST

Suite *suite_cli(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("cpu");
    tcase_set_tags(tc, "cpu");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    tcase_add_test(tc, top_level);
    tcase_add_test(tc, train_usage_errors);
    tcase_add_test(tc, train_json_report);
    tcase_add_test(tc, report_write_failure);
    tcase_add_test(tc, train_cli_bitwise);
    tcase_add_test(tc, help_lists_every_flag_with_its_default);
    tcase_add_test(tc, data_flag_and_positional);
    tcase_add_test(tc, impl_everywhere);
    tcase_add_test(tc, out_of_range_names_the_flag);
    suite_add_tcase(s, tc);
    return s;
}
