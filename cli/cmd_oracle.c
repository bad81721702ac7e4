/* cli/cmd_oracle.c -- `gnnref oracle`: run the oracle registry (DESIGN.md sections 3 and 6).
 *
 *   gnnref oracle [--list] [--op NAME] [--impl NAME] [--cases N] [--seed S]
 *                 [--threads LIST] [--case STRING] [--json FILE] [--verbose]
 *                 [--stress N [--stress-noise K] [--stress-seed S]] [--plugin LIB.so ...]
 *
 * Prints one line per (op, implementation, thread count) with its case counts, every failure
 * in full (case string, first mismatches, the command that replays it), and a final line
 *   oracle: N passed, N failed, N skipped, N unsupported
 * With --plugin (include/gnnref/plugin.h, docs/plugin.md) it runs the implementations the plugin
 * libraries register, on every op that takes their kind of table, instead of ours.
 * Exit status: 0 when nothing failed, 1 when a case failed, 2 on bad usage (a plugin that cannot
 * be loaded included). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/flags.h"
#include "gnnref/oracle.h"

#define MAX_SHOWN_FAILURES 10 /* per group, in full; the JSON report has all of them */
#define MAX_THREAD_COUNTS 16  /* values of --threads */
#define MAX_PLUGINS 16        /* --plugin given this many times at most */
#define MAX_RUN_IMPLS 64      /* implementations of one entry in one run */

/* "threads 1,2,4" from the n thread counts tc, with a prefix and suffix. */
static void thread_list(char *buf, size_t cap, const int *tc, int n, const char *pre, const char *post)
{
    size_t len = (size_t)snprintf(buf, cap, "%s", pre);
    for (int t = 0; t < n && len < cap; t++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%d", t ? "," : "", tc[t]);
    if (len < cap)
        snprintf(buf + len, cap - len, "%s", post);
}

typedef struct run_state {
    int verbose;
    const gnn_plugin_set *plugins; /* NULL without --plugin */
    const gnn_oracle_stress *stress; /* NULL: each case once */
    json_object *results; /* NULL without --json */
    /* the current group: one (entry, impl, threads) */
    const gnn_oracle_entry *entry;
    const gnn_oracle_impl *impl;
    int threads;
    int counts[GNN_ORACLE_OUTCOME_COUNT];
    double seconds;
    char first_note[160]; /* first SKIP / UNSUPPORTED reason of the group */
    int n_fail_shown, n_fail_hidden;
    char *fail_text;      /* failures of the group, in full */
    size_t fail_len, fail_cap;
} run_state;

static void append(run_state *st, const char *s)
{
    size_t n = strlen(s);
    if (st->fail_len + n + 1 > st->fail_cap) {
        size_t cap = st->fail_cap ? st->fail_cap * 2 : 4096;
        while (cap < st->fail_len + n + 1)
            cap *= 2;
        char *p = realloc(st->fail_text, cap);
        if (!p)
            return;
        st->fail_text = p;
        st->fail_cap = cap;
    }
    memcpy(st->fail_text + st->fail_len, s, n + 1);
    st->fail_len += n;
}

/* "line one\nline two" printed with an indent on every line */
static void append_indented(run_state *st, const char *text, const char *indent)
{
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[2304];
        snprintf(line, sizeof line, "%s%.*s\n", indent, (int)n, p);
        append(st, line);
        p += n + (nl ? 1 : 0);
    }
}

static void first_line(const char *s, char *out, size_t n)
{
    size_t len = strcspn(s, "\n");
    if (len >= n)
        len = n - 1;
    memcpy(out, s, len);
    out[len] = '\0';
}

static void flush_group(run_state *st)
{
    if (!st->entry)
        return;
    int total = 0;
    for (int o = 0; o < GNN_ORACLE_OUTCOME_COUNT; o++)
        total += st->counts[o];
    gnn_oracle_outcome worst = GNN_ORACLE_PASS;
    for (int o = 0; o < GNN_ORACLE_OUTCOME_COUNT; o++)
        if (st->counts[o])
            worst = gnn_oracle_worst(worst, (gnn_oracle_outcome)o);
    char impl[48], tol[48], counts[96] = "";
    if (st->threads > 0)
        snprintf(impl, sizeof impl, "%s threads=%d", st->impl->name, st->threads);
    else
        snprintf(impl, sizeof impl, "%s", st->impl->name);
    gnn_oracle_tol_format(gnn_oracle_tol_of(st->entry, st->impl), tol, sizeof tol); /* this impl's own */
    size_t len = 0;
    for (int o = 0; o < GNN_ORACLE_OUTCOME_COUNT; o++)
        if (st->counts[o] && len < sizeof counts)
            len += (size_t)snprintf(counts + len, sizeof counts - len, "%s%d %s", len ? ", " : "", st->counts[o],
                                    o == GNN_ORACLE_PASS ? "passed"
                                    : o == GNN_ORACLE_FAIL ? "FAILED"
                                    : o == GNN_ORACLE_SKIP ? "skipped"
                                                           : "unsupported");
    printf("%-11s %-22s %-15s %3d cases  %-22s %s%s%s\n", gnn_oracle_outcome_str(worst), st->entry->name, impl, total,
           tol, counts, st->first_note[0] ? ": " : "", st->first_note);
    if (st->fail_len) {
        fputs(st->fail_text, stdout);
        if (st->n_fail_hidden)
            printf("            ... and %d more failures (all in --json; narrow with --op/--case)\n", st->n_fail_hidden);
    }
    fflush(stdout);
    memset(st->counts, 0, sizeof st->counts);
    st->first_note[0] = '\0';
    st->n_fail_shown = st->n_fail_hidden = 0;
    st->fail_len = 0;
    if (st->fail_text)
        st->fail_text[0] = '\0';
    st->seconds = 0;
    st->entry = NULL;
}

/* "       replay: gnnref oracle --case '...'" and, under stress, the same stress settings (the
 * case string names its thread count) */
static void replay_line(const run_state *st, const gnn_oracle_impl *impl, const char *case_str, char *line,
                        size_t cap)
{
    const gnn_oracle_stress *s = st->stress;
    const char *plugin = gnn_plugin_path_of(st->plugins, impl);
    char pl[600] = "";
    if (plugin)
        snprintf(pl, sizeof pl, " --plugin '%s'", plugin);
    if (!s) {
        snprintf(line, cap, "       replay: gnnref oracle%s --case '%s'\n", pl, case_str);
        return;
    }
    snprintf(line, cap, "       replay: gnnref oracle%s --case '%s' --stress %d --stress-noise %d --stress-seed %llu\n",
             pl, case_str, s->runs, s->noise, (unsigned long long)s->seed);
}

static void visit(const gnn_oracle_case *c, const gnn_oracle_result *r, void *user)
{
    run_state *st = user;
    if (st->entry != c->entry || st->impl != c->impl || st->threads != c->threads) {
        flush_group(st);
        st->entry = c->entry;
        st->impl = c->impl;
        st->threads = c->threads;
    }
    st->counts[r->outcome]++;
    st->seconds += r->seconds;
    if ((r->outcome == GNN_ORACLE_SKIP || r->outcome == GNN_ORACLE_UNSUPPORTED) && !st->first_note[0])
        first_line(r->detail, st->first_note, sizeof st->first_note);
    if (st->verbose) {
        char note[200];
        first_line(r->detail, note, sizeof note);
        printf("  %-11s %s  %s\n", gnn_oracle_outcome_str(r->outcome), r->case_str, note);
    }
    if (r->outcome == GNN_ORACLE_FAIL) {
        if (st->n_fail_shown < MAX_SHOWN_FAILURES) {
            char line[1024];
            snprintf(line, sizeof line, "  FAIL %s\n", r->case_str);
            append(st, line);
            append_indented(st, r->detail, "       ");
            replay_line(st, c->impl, r->case_str, line, sizeof line);
            append(st, line);
            st->n_fail_shown++;
        } else {
            st->n_fail_hidden++;
        }
    }
    if (st->results) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "op", json_object_new_string(c->entry->name));
        json_object_object_add(o, "impl", json_object_new_string(c->impl ? c->impl->name : "?"));
        const char *plugin = gnn_plugin_path_of(st->plugins, c->impl);
        if (plugin) /* the library that registered it */
            json_object_object_add(o, "plugin", json_object_new_string(plugin));
        json_object_object_add(o, "threads", json_object_new_int(c->threads));
        json_object_object_add(o, "case", json_object_new_string(r->case_str));
        json_object_object_add(o, "outcome", json_object_new_string(gnn_oracle_outcome_str(r->outcome)));
        json_object_object_add(o, "detail", json_object_new_string(r->detail));
        json_object_object_add(o, "seconds", json_object_new_double(r->seconds));
        char dig[16];
        snprintf(dig, sizeof dig, "0x%08x", r->digest); /* CRC32C of the outputs: equal across refactors */
        json_object_object_add(o, "digest", json_object_new_string(dig));
        json_object_array_add(st->results, o);
    }
}

/* The implementations of e that this run checks, NULL-terminated in out (MAX_RUN_IMPLS + 1):
 * e's own without plugins; with plugins, theirs for e's kind, after e's own only when --impl
 * names one (so that `--impl cpu` runs ours beside the plugin's). */
static void run_impls(const gnn_oracle_entry *e, const gnn_plugin_set *set, const char *impl_filter,
                      const gnn_oracle_impl **out)
{
    int n = 0;
    if (!set || impl_filter)
        for (const gnn_oracle_impl *const *ip = e->impls; *ip && n < MAX_RUN_IMPLS; ip++)
            out[n++] = *ip;
    for (const gnn_oracle_impl *const *ip = gnn_plugin_impls_for(set, e); set && *ip && n < MAX_RUN_IMPLS; ip++)
        out[n++] = *ip;
    out[n] = NULL;
}

/* Is e selected: its name matches --op and, with plugins, a plugin implements its kind. */
static int selected(const gnn_oracle_entry *e, const char *op, const gnn_plugin_set *set)
{
    if (op && !gnn_oracle_name_matches(op, e->name))
        return 0;
    return !set || gnn_plugin_impls_for(set, e)[0] != NULL;
}

/* Has e an implementation called name in this run? */
static int has_impl(const gnn_oracle_entry *e, const gnn_plugin_set *set, const char *name)
{
    if (gnn_oracle_find_impl(e, name))
        return 1;
    for (const gnn_oracle_impl *const *ip = gnn_plugin_impls_for(set, e); *ip; ip++)
        if (!strcmp((*ip)->name, name))
            return 1;
    return 0;
}

static void list_entries(const char *op, const char *impl_filter, const int *thread_counts, int n_thread_counts,
                         const gnn_plugin_set *set)
{
    printf("%-22s %-24s %-24s %s\n", "OP", "COMPARATOR", "IMPLEMENTATIONS", "PRESETS");
    for (const gnn_oracle_entry *const *ep = gnn_oracle_registry; *ep; ep++) {
        const gnn_oracle_entry *e = *ep;
        if (!selected(e, op, set))
            continue;
        if (impl_filter && !has_impl(e, set, impl_filter))
            continue;
        char tol[48], impls[320] = "", tc[96];
        thread_list(tc, sizeof tc, thread_counts, n_thread_counts, "(threads ", ")");
        gnn_oracle_tol_format(&e->tol, tol, sizeof tol);
        size_t len = 0;
        const gnn_oracle_impl *list[MAX_RUN_IMPLS + 1];
        run_impls(e, set, set ? "" : NULL, list); /* with plugins: ours, then theirs */
        for (const gnn_oracle_impl *const *ip = list; *ip && len < sizeof impls; ip++)
            len += (size_t)snprintf(impls + len, sizeof impls - len, "%s%s%s%s", ip == list ? "" : ", ", (*ip)->name,
                                    ((*ip)->flags & GNN_ORACLE_THREADED) ? tc : "",
                                    gnn_plugin_path_of(set, *ip) ? " [plugin]" : "");
        printf("%-22s %-24s %-24s %d\n", e->name, tol, impls, gnn_oracle_n_presets(e));
        printf("    checks:    %s\n", e->what);
        printf("    tolerance: %s\n", e->reason);
        for (const gnn_oracle_impl_tol *t = e->impl_tols; t && t->impl; t++) { /* its own, for one impl */
            char own[48];
            gnn_oracle_tol_format(&t->tol, own, sizeof own);
            printf("    tolerance of %s: %s: %s\n", t->impl->name, own, t->reason);
        }
        printf("    reference: %s%s\n", e->ref->name, e->bench ? "    (benchmarked by gnnref-bench)" : "");
        for (const gnn_oracle_impl *const *ip = gnn_plugin_impls_for(set, e); set && *ip; ip++)
            printf("    plugin:    %s from %s\n", (*ip)->name, gnn_plugin_path_of(set, *ip));
        printf("    params:   ");
        for (int i = 0; i < e->n_params; i++)
            printf(" %s%s", e->params[i].name, e->params[i].type == GNN_PARAM_RANGE ? "=LO..HI" : "");
        printf("\n");
    }
}

typedef struct oracle_opts {
    int list, verbose;
    const char *op, *impl, *case_str, *json;
    int64_t cases;
    uint64_t seed;
    int64_t thread_counts[MAX_THREAD_COUNTS];
    int n_thread_counts;
    int64_t stress, stress_noise; /* --stress N (0: off) and its settings */
    uint64_t stress_seed;
    struct {
        const char *path[MAX_PLUGINS];
        int n;
    } plugins; /* --plugin, each one given */
} oracle_opts;

/* --plugin LIB.so, repeatable: the paths in order */
static int parse_plugin(const char *arg, void *dst, char *why, size_t cap)
{
    oracle_opts probe;
    memcpy(&probe.plugins, dst, sizeof probe.plugins);
    if (!*arg) {
        snprintf(why, cap, "a shared library's path");
        return 1;
    }
    if (probe.plugins.n >= MAX_PLUGINS) {
        snprintf(why, cap, "at most %d --plugin flags", MAX_PLUGINS);
        return 1;
    }
    probe.plugins.path[probe.plugins.n++] = arg;
    memcpy(dst, &probe.plugins, sizeof probe.plugins);
    return 0;
}

static json_object *json_plugin(const void *src)
{
    oracle_opts probe;
    memcpy(&probe.plugins, src, sizeof probe.plugins);
    if (probe.plugins.n == 0)
        return NULL;
    json_object *a = json_object_new_array();
    for (int i = 0; i < probe.plugins.n; i++)
        json_object_array_add(a, json_object_new_string(probe.plugins.path[i]));
    return a;
}

#define ORACLE_TAG_STRESS CLI_TAG(0) /* flags that apply with --stress only */

static const cli_flag k_flags[] = {
    { .name = "list", .type = CLI_BOOL, CLI_AT(oracle_opts, list),
      .help = "list the registry: ops, implementations, comparator, tolerance and why" },
    { .name = "op", .type = CLI_STR, CLI_AT(oracle_opts, op), .meta = "NAME", .dflt = "every op",
      .help = "only ops named NAME, under NAME. (\"aggregate\"), or matching a pattern (\"grad.*\")" },
    { .name = "impl", .type = CLI_STR, CLI_AT(oracle_opts, impl), .meta = "NAME", .dflt = "every one",
      .help = "only the implementation NAME of each op: ref, cpu, or a finer name such as fused-ordered "
              "(--list shows them); not the context of the other commands' --impl ref|opt" },
    { .name = "cases", .type = CLI_INT, CLI_AT(oracle_opts, cases), .meta = "N", .lo = 1, .hi = 1000000,
      .help = "seeds per size preset" },
    CLI_FLAG_SEED(oracle_opts, seed, "first seed; case k of a preset uses seed S + k"),
    { .name = "threads", .type = CLI_INTS, CLI_AT(oracle_opts, thread_counts), .meta = "LIST", .lo = 1, .hi = 1024,
      .max = MAX_THREAD_COUNTS, .count_off = offsetof(oracle_opts, n_thread_counts), .key = "thread_counts",
      .help = "run the threaded implementations only at these OpenMP thread counts, each once (a --case names its "
              "own)" },
    { .name = "case", .type = CLI_STR, CLI_AT(oracle_opts, case_str), .meta = "STRING",
      .help = "replay exactly one case, as printed by a failure, e.g. "
              "'aggregate.mean.fwd(impl=cpu,threads=2,n_dst=37,n_src=80,d=13,deg=0..9,seed=5)'" },
    CLI_FLAG_JSON(oracle_opts, json, "write the JSON report (results and counts)"),
    { .name = "verbose", .alias = 'v', .type = CLI_BOOL, CLI_AT(oracle_opts, verbose),
      .help = "print every case, not only failures" },
    { .name = "stress", .type = CLI_INT, CLI_AT(oracle_opts, stress), .meta = "N", .lo = 0, .hi = 100000,
      .note = "0 = off",
      .help = "race hunting: run every case N times under perturbed scheduling (background noise threads; in the "
              "kernels, random chunks for the dynamic loops and random pauses inside the threaded counting sorts), the "
              "threaded implementations at 2, 4 and 8 threads unless --threads is "
              "given; a failing run fails the case, and so does a run whose output differs from the first run's where "
              "the comparator is exact (bitwise, canonical, verify). A failure's replay line repeats these settings "
              "(docs/oracle.md, \"Races\")" },
    { .name = "stress-noise", .type = CLI_INT, CLI_AT(oracle_opts, stress_noise), .meta = "K", .lo = 0, .hi = 64,
      .bits = ORACLE_TAG_STRESS, .dflt = "one per online CPU",
      .help = "with --stress: at most K noise threads; run k of a case has K - k mod (K+1) of them, from every core "
              "contended down to none" },
    { .name = "stress-seed", .type = CLI_U64, CLI_AT(oracle_opts, stress_seed), .meta = "S",
      .bits = ORACLE_TAG_STRESS,
      .help = "with --stress: seed of the perturbations (each run's is drawn from S, the case string and the run's "
              "index)" },
    { .name = "plugin", .type = CLI_CUSTOM, CLI_AT(oracle_opts, plugins), .meta = "LIB.so", .dflt = "none",
      .parse = parse_plugin, .json = json_plugin,
      .help = "load a plugin (include/gnnref/plugin.h, docs/plugin.md) and check the implementations it registers "
              "instead of ours, on every op that takes their kind of table (--op narrows, --impl cpu adds ours "
              "beside them); repeatable" },
    CLI_END
};

static const cli_group k_groups[] = { { k_flags, 0, NULL }, { NULL, 0, NULL } };

static const cli_command k_cmd = {
    .name = "oracle",
    .usage = "[flags]",
    .preface = "Check every implementation in this build against the reference (docs/oracle.md).\n",
    .epilogue = "Exit status: 0 all passed (or skipped), 1 a case failed, 2 bad usage.\n",
    .groups = k_groups,
};

static int oracle_options(int argc, char **argv, oracle_opts *o, cli_args *a)
{
    memset(o, 0, sizeof *o);
    o->cases = 3;
    o->seed = 1;
    for (int t = 0; t < gnn_oracle_n_thread_counts && t < MAX_THREAD_COUNTS; t++)
        o->thread_counts[o->n_thread_counts++] = gnn_oracle_thread_counts[t];
    gnn_oracle_stress sd;
    gnn_oracle_stress_init(&sd, 0);
    o->stress_noise = sd.noise;
    o->stress_seed = sd.seed;
    int rc = cli_parse(&k_cmd, argc, argv, o, a);
    if (rc != CLI_CONTINUE)
        return rc;
    const char *stress_flag = cli_given_tag(a, ORACLE_TAG_STRESS);
    if (!o->stress && stress_flag)
        return cli_error(CLI_USAGE, "%s applies with --stress N only", stress_flag);
    if (o->stress && !cli_given(a, "threads")) { /* stress mode's own counts: 2, 4, 8 */
        o->n_thread_counts = 0;
        for (int t = 0; t < gnn_oracle_n_stress_thread_counts && t < MAX_THREAD_COUNTS; t++)
            o->thread_counts[o->n_thread_counts++] = gnn_oracle_stress_thread_counts[t];
    }
    for (int t = 0; t < o->n_thread_counts; t++) /* each count once: a group per count */
        for (int u = 0; u < t; u++)
            if (o->thread_counts[u] == o->thread_counts[t]) {
                char given[160];
                size_t len = 0;
                for (int k = 0; k < o->n_thread_counts && len < sizeof given; k++)
                    len += (size_t)snprintf(given + len, sizeof given - len, "%s%lld", k ? "," : "",
                                            (long long)o->thread_counts[k]);
                return cli_error(CLI_USAGE, "--threads '%s': %lld given twice", given, (long long)o->thread_counts[t]);
            }
    return cli_report_check(o->json) ? CLI_USAGE : CLI_CONTINUE;
}

/* The filters must select something: a typo must not pass as "0 failed". The number of ops
 * selected in *n_sel; CLI_CONTINUE or the exit code. */
static int check_selection(const oracle_opts *o, const gnn_plugin_set *set, int *n_sel)
{
    int impl_seen = 0;
    *n_sel = 0;
    for (const gnn_oracle_entry *const *ep = gnn_oracle_registry; *ep; ep++) {
        if (!selected(*ep, o->op, set))
            continue;
        ++*n_sel;
        if (o->impl && has_impl(*ep, set, o->impl))
            impl_seen = 1;
    }
    if (!o->case_str && *n_sel == 0 && set)
        return cli_error(CLI_USAGE, "oracle: the plugins implement no op%s%s (their kinds of table run on: %s)",
                         o->op ? " matching " : "", o->op ? o->op : "",
                         "aggregate.*, grad.aggregate.*, index_add, spmm.*, quant.*; gnnref oracle --list --plugin "
                         "LIB.so shows them");
    if (!o->case_str && *n_sel == 0)
        return cli_error(CLI_USAGE, "oracle: no op matches '%s' (gnnref oracle --list shows them)", o->op);
    if (!o->case_str && o->impl && !impl_seen)
        return cli_error(CLI_USAGE, "oracle: no implementation '%s'%s%s", o->impl, o->op ? " for ops matching " : "",
                         o->op ? o->op : "");
    return CLI_CONTINUE;
}

/* --case: one case, printed in full. */
static void run_one(const gnn_oracle_case *one, run_state *st, int *counts)
{
    gnn_oracle_result r;
    gnn_oracle_outcome oc = gnn_oracle_run_stress(one, st->stress, &r);
    counts[oc]++;
    st->verbose = 0;
    visit(one, &r, st);
    printf("%s %s\n", gnn_oracle_outcome_str(oc), r.case_str);
    if (r.detail[0]) {
        st->fail_len = 0;
        append_indented(st, r.detail, "    ");
        if (st->fail_text)
            fputs(st->fail_text, stdout);
    }
    st->entry = NULL; /* printed in full above; no group line */
}

/* Every selected entry, a line per group. */
static void run_all(const oracle_opts *o, const int *tc, int n_sel, run_state *st, int *counts)
{
    char sel[160], tcs[96];
    thread_list(tcs, sizeof tcs, tc, o->n_thread_counts, "threads ", "");
    snprintf(sel, sizeof sel, "%s%s%s%s", o->op ? " matching " : "", o->op ? o->op : "", o->impl ? ", impl " : "",
             o->impl ? o->impl : "");
    printf("oracle: %d ops%s, %lld seed%s per preset from seed %llu, OpenMP %s\n", n_sel, sel, (long long)o->cases,
           o->cases == 1 ? "" : "s", (unsigned long long)o->seed,
           gnn_oracle_have_openmp() ? tcs : "not built (threaded cases skipped)");
    for (int i = 0; i < gnn_plugin_count(st->plugins); i++) {
        gnn_plugin_kind kind;
        const char *path;
        const gnn_oracle_impl *impl = gnn_plugin_impl(st->plugins, i, &kind, &path);
        printf("oracle: plugin %s (ABI version %u): %s table '%s'%s\n", path, GNN_PLUGIN_ABI_VERSION,
               gnn_plugin_kind_name(kind), impl->name, (impl->flags & GNN_ORACLE_THREADED) ? ", threaded" : "");
    }
    if (st->stress)
        printf("oracle: stress: every case %d times under perturbed scheduling, up to %d noise threads, stress seed "
               "%llu\n",
               st->stress->runs, st->stress->noise, (unsigned long long)st->stress->seed);
    for (const gnn_oracle_entry *const *ep = gnn_oracle_registry; *ep; ep++) {
        if (!selected(*ep, o->op, st->plugins))
            continue;
        const gnn_oracle_impl *impls[MAX_RUN_IMPLS + 1];
        run_impls(*ep, st->plugins, o->impl, impls);
        gnn_oracle_run_entry_impls(*ep, impls, o->impl, (int)o->cases, o->seed, tc, o->n_thread_counts, st->stress,
                                   visit, st, counts);
        flush_group(st);
    }
}

/* Load every --plugin into *set (NULL when none); CLI_CONTINUE or the exit code. */
static int load_plugins(const oracle_opts *o, gnn_plugin_set **set)
{
    *set = NULL;
    if (o->plugins.n == 0)
        return CLI_CONTINUE;
    if (gnn_plugin_set_new(set))
        return cli_error(CLI_FAIL, "out of memory");
    for (int i = 0; i < o->plugins.n; i++) {
        gnn_err err;
        if (gnn_plugin_load(*set, o->plugins.path[i], &err)) {
            gnn_plugin_set_free(*set);
            *set = NULL;
            return cli_error(CLI_USAGE, "oracle: --plugin %s", err.msg);
        }
    }
    return CLI_CONTINUE;
}

static int oracle_main(const oracle_opts *o, const cli_args *a, const gnn_plugin_set *plugins);

int gnn_cmd_oracle(int argc, char **argv)
{
    oracle_opts o;
    cli_args a;
    gnn_plugin_set *plugins;
    int rc = oracle_options(argc, argv, &o, &a);
    if (rc != CLI_CONTINUE || (rc = load_plugins(&o, &plugins)) != CLI_CONTINUE)
        return rc;
    rc = oracle_main(&o, &a, plugins);
    gnn_plugin_set_free(plugins);
    return rc;
}

static int oracle_main(const oracle_opts *opts, const cli_args *args, const gnn_plugin_set *plugins)
{
    const oracle_opts o = *opts;
    const cli_args a = *args;
    int n_sel, rc = check_selection(&o, plugins, &n_sel);
    if (rc != CLI_CONTINUE)
        return rc;
    int tc[MAX_THREAD_COUNTS]; /* the harness takes ints */
    for (int t = 0; t < o.n_thread_counts; t++)
        tc[t] = (int)o.thread_counts[t];
    if (o.list) {
        list_entries(o.op, o.impl, tc, o.n_thread_counts, plugins);
        return CLI_OK;
    }
    gnn_oracle_case one;
    if (o.case_str) {
        gnn_err err;
        if (gnn_plugin_case_parse(plugins, o.case_str, &one, &err))
            return cli_error(CLI_USAGE, "oracle: --case: %s", err.msg);
    }
    json_object *report = NULL, *config = NULL;
    gnn_oracle_stress stress = { .runs = (int)o.stress, .noise = (int)o.stress_noise, .seed = o.stress_seed };
    run_state st = { .verbose = o.verbose, .stress = o.stress ? &stress : NULL, .plugins = plugins };
    if (o.json) {
        report = cli_report_new("oracle", o.case_str ? one.seed : o.seed, cli_set_threads(0), "self", 1, &config);
        cli_config_json(config, &a, &o, o.stress ? 0 : ORACLE_TAG_STRESS);
        json_object_object_add(config, "openmp", json_object_new_boolean(gnn_oracle_have_openmp()));
        st.results = json_object_new_array();
        json_object_object_add(report, "results", st.results);
    }
    int counts[GNN_ORACLE_OUTCOME_COUNT] = { 0 };
    if (o.case_str)
        run_one(&one, &st, counts);
    else
        run_all(&o, tc, n_sel, &st, counts);
    free(st.fail_text);
    printf("oracle: %d passed, %d failed, %d skipped, %d unsupported\n", counts[GNN_ORACLE_PASS],
           counts[GNN_ORACLE_FAIL], counts[GNN_ORACLE_SKIP], counts[GNN_ORACLE_UNSUPPORTED]);
    rc = counts[GNN_ORACLE_FAIL] ? CLI_FAIL : CLI_OK;
    if (report) {
        json_object *jc = json_object_new_object();
        json_object_object_add(jc, "pass", json_object_new_int(counts[GNN_ORACLE_PASS]));
        json_object_object_add(jc, "fail", json_object_new_int(counts[GNN_ORACLE_FAIL]));
        json_object_object_add(jc, "skip", json_object_new_int(counts[GNN_ORACLE_SKIP]));
        json_object_object_add(jc, "unsupported", json_object_new_int(counts[GNN_ORACLE_UNSUPPORTED]));
        json_object_object_add(report, "counts", jc);
        if (cli_report_write(report, o.json))
            rc = CLI_FAIL;
        json_object_put(report);
    }
    return rc;
}
