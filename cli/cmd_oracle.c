/* cli/cmd_oracle.c -- `gnnref oracle`: run the oracle registry (DESIGN.md sections 3 and 6).
 *
 *   gnnref oracle [--list] [--op NAME] [--impl NAME] [--cases N] [--seed S]
 *                 [--threads LIST] [--case STRING] [--json FILE] [--verbose]
 *
 * Prints one line per (op, implementation, thread count) with its case counts, every failure
 * in full (case string, first mismatches, the command that replays it), and a final line
 *   oracle: N passed, N failed, N skipped, N unsupported
 * Exit status: 0 when nothing failed, 1 when a case failed, 2 on bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "gnnref/oracle.h"

#define MAX_SHOWN_FAILURES 10 /* per group, in full; the JSON report has all of them */
#define MAX_THREAD_COUNTS 16  /* values of --threads */

/* "threads 1,2,4" from the n thread counts tc, with a prefix and suffix. */
static void thread_list(char *buf, size_t cap, const int *tc, int n, const char *pre, const char *post)
{
    size_t len = (size_t)snprintf(buf, cap, "%s", pre);
    for (int t = 0; t < n && len < cap; t++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%d", t ? "," : "", tc[t]);
    if (len < cap)
        snprintf(buf + len, cap - len, "%s", post);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gnnref oracle [--list] [--op NAME] [--impl NAME] [--cases N] [--seed S]\n"
            "                     [--threads LIST] [--case STRING] [--json FILE] [--verbose]\n"
            "\n"
            "Check every implementation in this build against the reference (docs/oracle.md).\n"
            "\n"
            "  --list          list the registry: ops, implementations, comparator, tolerance and why\n"
            "  --op NAME       only ops named NAME, under NAME. (\"aggregate\"), or matching a pattern\n"
            "                  (\"grad.*\")\n"
            "  --impl NAME     only the implementation NAME (ref, cpu)\n"
            "  --cases N       seeds per size preset (default 3)\n"
            "  --seed S        first seed (default 1); case k of a preset uses seed S + k\n"
            "  --threads LIST  run the threaded implementations only at these OpenMP thread counts,\n"
            "                  comma-separated, each in [1, 1024] (default 1,2,4; a --case names its own)\n"
            "  --case STRING   replay exactly one case, as printed by a failure, e.g.\n"
            "                  'aggregate.mean.fwd(impl=cpu,threads=2,n_dst=37,n_src=80,d=13,deg=0..9,seed=5)'\n"
            "  --json FILE     write a JSON report (results and counts)\n"
            "  --verbose, -v   print every case, not only failures\n"
            "\n"
            "Exit status: 0 all passed (or skipped), 1 a case failed, 2 bad usage.\n");
}

typedef struct run_state {
    int verbose;
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
    gnn_oracle_tol_format(&st->entry->tol, tol, sizeof tol);
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
            snprintf(line, sizeof line, "       replay: gnnref oracle --case '%s'\n", r->case_str);
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

static void list_entries(const char *op, const char *impl_filter, const int *thread_counts, int n_thread_counts)
{
    printf("%-22s %-24s %-24s %s\n", "OP", "COMPARATOR", "IMPLEMENTATIONS", "PRESETS");
    for (const gnn_oracle_entry *const *ep = gnn_oracle_registry; *ep; ep++) {
        const gnn_oracle_entry *e = *ep;
        if (op && !gnn_oracle_name_matches(op, e->name))
            continue;
        if (impl_filter && !gnn_oracle_find_impl(e, impl_filter))
            continue;
        char tol[48], impls[160] = "", tc[96];
        thread_list(tc, sizeof tc, thread_counts, n_thread_counts, "(threads ", ")");
        gnn_oracle_tol_format(&e->tol, tol, sizeof tol);
        size_t len = 0;
        for (const gnn_oracle_impl *const *ip = e->impls; *ip && len < sizeof impls; ip++)
            len += (size_t)snprintf(impls + len, sizeof impls - len, "%s%s%s", ip == e->impls ? "" : ", ", (*ip)->name,
                                    ((*ip)->flags & GNN_ORACLE_THREADED) ? tc : "");
        printf("%-22s %-24s %-24s %d\n", e->name, tol, impls, gnn_oracle_n_presets(e));
        printf("    checks:    %s\n", e->what);
        printf("    tolerance: %s\n", e->reason);
        printf("    reference: %s%s\n", e->ref->name, e->bench ? "    (benchmarked by gnnref-bench)" : "");
        printf("    params:   ");
        for (int i = 0; i < e->n_params; i++)
            printf(" %s%s", e->params[i].name, e->params[i].type == GNN_PARAM_RANGE ? "=LO..HI" : "");
        printf("\n");
    }
}

int gnn_cmd_oracle(int argc, char **argv)
{
    const char *op = NULL, *impl = NULL, *case_str = NULL, *json_path = NULL;
    int64_t cases = 3;
    uint64_t seed = 1;
    int list = 0, verbose = 0;
    int thread_counts[MAX_THREAD_COUNTS], n_thread_counts = gnn_oracle_n_thread_counts, threads_given = 0;
    for (int t = 0; t < gnn_oracle_n_thread_counts && t < MAX_THREAD_COUNTS; t++)
        thread_counts[t] = gnn_oracle_thread_counts[t];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        char flag[64];
        const char *eq = strchr(a, '=');
        if (!strncmp(a, "--", 2) && eq && (size_t)(eq - a) < sizeof flag) {
            snprintf(flag, sizeof flag, "%.*s", (int)(eq - a), a);
            val = eq + 1;
            a = flag;
        }
#define NEED_VALUE()                                                                  \
    do {                                                                              \
        if (!val) {                                                                   \
            if (i + 1 >= argc)                                                        \
                return cli_error(CLI_USAGE, "oracle: %s needs a value", a);           \
            val = argv[++i];                                                          \
        }                                                                             \
    } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return CLI_OK;
        } else if (!strcmp(a, "--list")) {
            list = 1;
        } else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
            verbose = 1;
        } else if (!strcmp(a, "--op")) {
            NEED_VALUE();
            op = val;
        } else if (!strcmp(a, "--impl")) {
            NEED_VALUE();
            impl = val;
        } else if (!strcmp(a, "--case")) {
            NEED_VALUE();
            case_str = val;
        } else if (!strcmp(a, "--json")) {
            NEED_VALUE();
            json_path = val;
            if (cli_report_check(json_path))
                return CLI_USAGE;
        } else if (!strcmp(a, "--cases")) {
            NEED_VALUE();
            if (cli_parse_i64(val, 1, 1000000, &cases))
                return cli_error(CLI_USAGE, "oracle: --cases '%s': expected an integer in [1, 1000000]", val);
        } else if (!strcmp(a, "--threads")) {
            NEED_VALUE();
            int64_t tc[MAX_THREAD_COUNTS];
            int n = cli_parse_i64_list(val, 1, 1024, tc, MAX_THREAD_COUNTS);
            if (n < 0)
                return cli_error(CLI_USAGE,
                                 "oracle: --threads '%s': expected at most %d comma-separated integers in [1, 1024]",
                                 val, MAX_THREAD_COUNTS);
            for (int t = 0; t < n; t++) {
                for (int u = 0; u < t; u++)
                    if (tc[u] == tc[t])
                        return cli_error(CLI_USAGE, "oracle: --threads '%s': %lld given twice", val, (long long)tc[t]);
                thread_counts[t] = (int)tc[t];
            }
            n_thread_counts = n;
            threads_given = 1;
        } else if (!strcmp(a, "--seed")) {
            NEED_VALUE();
            if (cli_parse_u64(val, &seed))
                return cli_error(CLI_USAGE, "oracle: --seed '%s': expected an unsigned 64-bit integer", val);
        } else {
            cli_error(CLI_USAGE, "oracle: unknown flag '%s'", argv[i]);
            usage(stderr);
            return CLI_USAGE;
        }
#undef NEED_VALUE
    }
    /* the filters must select something: a typo must not pass as "0 failed" */
    int n_sel = 0, impl_seen = 0;
    for (const gnn_oracle_entry *const *ep = gnn_oracle_registry; *ep; ep++) {
        if (op && !gnn_oracle_name_matches(op, (*ep)->name))
            continue;
        n_sel++;
        if (impl && gnn_oracle_find_impl(*ep, impl))
            impl_seen = 1;
    }
    if (!case_str && n_sel == 0)
        return cli_error(CLI_USAGE, "oracle: no op matches '%s' (gnnref oracle --list shows them)", op);
    if (!case_str && impl && !impl_seen)
        return cli_error(CLI_USAGE, "oracle: no implementation '%s'%s%s", impl, op ? " for ops matching " : "",
                         op ? op : "");
    if (list) {
        list_entries(op, impl, thread_counts, n_thread_counts);
        return CLI_OK;
    }

    gnn_oracle_case one;
    if (case_str) {
        gnn_err err;
        if (gnn_oracle_case_parse(case_str, &one, &err))
            return cli_error(CLI_USAGE, "oracle: --case: %s", err.msg);
    }

    json_object *report = NULL, *config = NULL;
    run_state st = { .verbose = verbose };
    if (json_path) {
        report = cli_report_new("oracle", case_str ? one.seed : seed, cli_set_threads(0), "self", 1, &config);
        json_object_object_add(config, "op", op ? json_object_new_string(op) : NULL);
        json_object_object_add(config, "impl", impl ? json_object_new_string(impl) : NULL);
        json_object_object_add(config, "cases", json_object_new_int64(cases));
        json_object_object_add(config, "seed", json_object_new_uint64(seed));
        if (threads_given) {
            json_object *jt = json_object_new_array();
            for (int t = 0; t < n_thread_counts; t++)
                json_object_array_add(jt, json_object_new_int(thread_counts[t]));
            json_object_object_add(config, "thread_counts", jt);
        }
        json_object_object_add(config, "case", case_str ? json_object_new_string(case_str) : NULL);
        json_object_object_add(config, "openmp", json_object_new_boolean(gnn_oracle_have_openmp()));
        st.results = json_object_new_array();
        json_object_object_add(report, "results", st.results);
    }

    int counts[GNN_ORACLE_OUTCOME_COUNT] = { 0 };
    if (case_str) {
        gnn_oracle_result r;
        gnn_oracle_outcome o = gnn_oracle_run(&one, &r);
        counts[o]++;
        st.verbose = 0;
        visit(&one, &r, &st);
        printf("%s %s\n", gnn_oracle_outcome_str(o), r.case_str);
        if (r.detail[0]) {
            st.fail_len = 0;
            append_indented(&st, r.detail, "    ");
            if (st.fail_text)
                fputs(st.fail_text, stdout);
        }
        st.entry = NULL; /* printed in full above; no group line */
    } else {
        char sel[160], tc[96];
        thread_list(tc, sizeof tc, thread_counts, n_thread_counts, "threads ", "");
        snprintf(sel, sizeof sel, "%s%s%s%s", op ? " matching " : "", op ? op : "", impl ? ", impl " : "", impl ? impl : "");
        printf("oracle: %d ops%s, %lld seed%s per preset from seed %llu, OpenMP %s\n", n_sel, sel, (long long)cases,
               cases == 1 ? "" : "s", (unsigned long long)seed,
               gnn_oracle_have_openmp() ? tc : "not built (threaded cases skipped)");
        for (const gnn_oracle_entry *const *ep = gnn_oracle_registry; *ep; ep++) {
            if (op && !gnn_oracle_name_matches(op, (*ep)->name))
                continue;
            gnn_oracle_run_entry_threads(*ep, impl, (int)cases, seed, thread_counts, n_thread_counts, visit, &st,
                                         counts);
            flush_group(&st);
        }
    }
    free(st.fail_text);
    printf("oracle: %d passed, %d failed, %d skipped, %d unsupported\n", counts[GNN_ORACLE_PASS],
           counts[GNN_ORACLE_FAIL], counts[GNN_ORACLE_SKIP], counts[GNN_ORACLE_UNSUPPORTED]);
    int rc = counts[GNN_ORACLE_FAIL] ? CLI_FAIL : CLI_OK;
    if (report) {
        json_object *jc = json_object_new_object();
        json_object_object_add(jc, "pass", json_object_new_int(counts[GNN_ORACLE_PASS]));
        json_object_object_add(jc, "fail", json_object_new_int(counts[GNN_ORACLE_FAIL]));
        json_object_object_add(jc, "skip", json_object_new_int(counts[GNN_ORACLE_SKIP]));
        json_object_object_add(jc, "unsupported", json_object_new_int(counts[GNN_ORACLE_UNSUPPORTED]));
        json_object_object_add(report, "counts", jc);
        if (cli_report_write(report, json_path))
            rc = CLI_FAIL;
        json_object_put(report);
    }
    return rc;
}
