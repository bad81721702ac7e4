/* tests/test_commplan.c -- SuperGCN's communication plan (include/gnnref/commplan.h,
 * docs/commplan.md) and METIS-style .part files (include/gnnref/partfile.h).
 *
 * The plans themselves are checked against the reference and a verifier by the oracle
 * (commplan.build, commplan.verify); here: the paper's Fig. 2 worked through on every
 * implementation and through `gnnref commplan` on the shipped fixture, a mutant that the
 * oracle must catch, the entry point's argument checks, the byte formula, the .part reader and
 * writer with their bad files, `gnnref partition --write-part / --read-part`, and issue 22's
 * acceptance identities on the built-in dataset and (tag slow) Facebook with METIS K = 2, 4, 8. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "gnnref/commplan.h"
#include "gnnref/dataset.h"
#include "gnnref/impl.h"
#include "gnnref/partfile.h"
#include "gnnref/partition.h"
#include "cli_util.h"
#include "oracle_util.h"

#define FIX "tests/fixtures"

static const gnn_commplan_ops *const k_impls[] = { &gnn_commplan_ref, &gnn_commplan_cpu, NULL };

/* Fig. 2: S0 owns 0..3, S1 owns 4..6; cut edges 4-1, 4-2, 4-3, 5-2, 6-2 both ways, local 0-3. */
static void fig2_graph(gnn_csr *g, int32_t part[7])
{
    static const int64_t src[] = { 0, 4, 4, 4, 5, 6 }, dst[] = { 3, 1, 2, 3, 2, 2 };
    gnn_err err;
    ck_assert_msg(gnn_csr_from_edges(g, 7, 6, src, dst, GNN_CSR_SYMMETRIZE, &err) == GNN_OK, "%s", err.msg);
    static const int32_t p[7] = { 0, 0, 0, 0, 1, 1, 1 };
    memcpy(part, p, sizeof p);
}

static void expect_ids(const char *what, const int64_t *got, int64_t n, const int64_t *want, int64_t wn)
{
    ck_assert_msg(n == wn, "%s: %lld ids, expected %lld", what, (long long)n, (long long)wn);
    for (int64_t i = 0; i < n; i++)
        ck_assert_msg(got[i] == want[i], "%s[%lld] = %lld, expected %lld", what, (long long)i, (long long)got[i],
                      (long long)want[i]);
}

/* pair 1 -> 0 is the paper's narrative: pre 3 rows, post 3, hybrid 2 (send h4 and p2 = h5 + h6) */
START_TEST(fig2_plans)
{
    gnn_csr g;
    int32_t part[7];
    fig2_graph(&g, part);
    for (int i = 0; k_impls[i]; i++) {
        gnn_commplan P[GNN_PLAN_COUNT];
        gnn_err err;
        for (int kind = 0; kind < GNN_PLAN_COUNT; kind++)
            ck_assert_msg(gnn_commplan_build(k_impls[i], &g, part, 2, (gnn_plan_kind)kind, &P[kind], &err) == GNN_OK,
                          "%s", err.msg);
        ck_assert_int_eq(P[0].n_edges, 10);
        /* two slots, the pairs with cut edges: 0 -> 1 (id 1), then 1 -> 0 (id 2) */
        ck_assert_int_eq(P[GNN_PLAN_HYBRID].n_pairs, 2);
        ck_assert_int_eq(gnn_commplan_slot(&P[GNN_PLAN_HYBRID], 0), -1);
        const int64_t p10 = 1 * 2 + 0, s10 = gnn_commplan_slot(&P[GNN_PLAN_HYBRID], p10);
        const int64_t s01 = gnn_commplan_slot(&P[GNN_PLAN_HYBRID], 0 * 2 + 1);
        ck_assert(s01 == 0 && s10 == 1);
        ck_assert_int_eq(gnn_commplan_edges(&P[0], p10), 5); /* "the communication volume ... is 5" */
        ck_assert_int_eq(gnn_commplan_edges(&P[0], 0), 0);
        ck_assert_int_eq(gnn_commplan_rows(&P[GNN_PLAN_PRE], p10), 3);
        ck_assert_int_eq(gnn_commplan_rows(&P[GNN_PLAN_POST], p10), 3);
        ck_assert_int_eq(gnn_commplan_rows(&P[GNN_PLAN_HYBRID], p10), 2);
        ck_assert_int_eq(gnn_commplan_rows(&P[GNN_PLAN_DEGREE], p10), 2);
        const gnn_commplan *H = &P[GNN_PLAN_HYBRID];
        static const int64_t post10[] = { 4 }, pre10[] = { 2 }, post01[] = { 2 }, pre01[] = { 4 };
        expect_ids("hybrid 1->0 post", H->post_rows + H->post_ptr[s10], H->post_ptr[s10 + 1] - H->post_ptr[s10],
                   post10, 1);
        expect_ids("hybrid 1->0 pre", H->pre_rows + H->pre_ptr[s10], H->pre_ptr[s10 + 1] - H->pre_ptr[s10], pre10, 1);
        expect_ids("hybrid 0->1 post", H->post_rows + H->post_ptr[s01], H->post_ptr[s01 + 1] - H->post_ptr[s01],
                   post01, 1);
        expect_ids("hybrid 0->1 pre", H->pre_rows + H->pre_ptr[s01], H->pre_ptr[s01 + 1] - H->pre_ptr[s01], pre01, 1);
        /* edges of 1 -> 0 in (u, v) order: 4->1 post, 4->2 post, 4->3 post, 5->2 pre, 6->2 pre */
        static const int64_t es[] = { 4, 4, 4, 5, 6 }, ed[] = { 1, 2, 3, 2, 2 };
        static const uint8_t side[] = { 1, 1, 1, 0, 0 };
        for (int e = 0; e < 5; e++) {
            const int64_t x = H->edge_ptr[s10] + e;
            ck_assert_int_eq(H->edge_src[x], es[e]);
            ck_assert_int_eq(H->edge_dst[x], ed[e]);
            ck_assert_int_eq(H->edge_post[x], side[e]);
        }
        /* the certificate: the matching 4-1, 5-2 (Hopcroft-Karp's first phase in ascending order) */
        ck_assert_int_eq(H->match_ptr[s10 + 1] - H->match_ptr[s10], 2);
        static const int64_t ms[] = { 4, 5 }, md[] = { 1, 2 };
        expect_ids("match src", H->match_src + H->match_ptr[s10], 2, ms, 2);
        expect_ids("match dst", H->match_dst + H->match_ptr[s10], 2, md, 2);
        ck_assert_int_eq(P[GNN_PLAN_PRE].match_ptr[2], 0);
        for (int kind = 0; kind < GNN_PLAN_COUNT; kind++)
            gnn_commplan_free(&P[kind]);
    }
    gnn_csr_free(&g);
}
END_TEST

/* `gnnref commplan` on the shipped fixture, as docs/commplan.md shows it */
START_TEST(fig2_cli)
{
    NEED_TOOL();
    char out[16384], args[1024];
    snprintf(args, sizeof args, "convert --format edgelist %s/fig2.edges -o %s", FIX, tmp("fig2.gnn"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    snprintf(args, sizeof args, "commplan --data %s --read-part %s/fig2.part --widths 768 --rows --json %s",
             tmp("fig2.gnn"), FIX, tmp("fig2.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    ck_assert_msg(strstr(out, "hybrid 1 -> 0: post [4] pre [2]"), "%s", out);
    ck_assert_msg(strstr(out, "hybrid / min(pre, post) = 0.6667"), "%s", out);
    json_object *r = json_object_from_file(tmp("fig2.json")), *plans, *h, *x;
    ck_assert_ptr_nonnull(r);
    ck_assert(json_object_object_get_ex(r, "cut_edges", &x) && json_object_get_int64(x) == 10);
    ck_assert(json_object_object_get_ex(r, "plans", &plans) && json_object_object_get_ex(plans, "hybrid", &h));
    ck_assert(json_object_object_get_ex(h, "total_rows", &x) && json_object_get_int64(x) == 4);
    json_object *bytes, *b2, *b32;
    ck_assert(json_object_object_get_ex(h, "bytes", &bytes) && json_object_object_get_ex(bytes, "2", &b2) &&
              json_object_object_get_ex(bytes, "32", &b32));
    /* 4 rows of 768 values: fp32 4 * 768 * 4; int2 4 * (192 + 4) */
    ck_assert_int_eq(json_object_get_int64(json_object_array_get_idx(b32, 0)), 4 * 768 * 4);
    ck_assert_int_eq(json_object_get_int64(json_object_array_get_idx(b2, 0)), 4 * (192 + 4));
    json_object_put(r);
    expect_usage_error("commplan --data builtin --parts 2 --method nope", "--method", out, sizeof out);
    snprintf(args, sizeof args, "commplan --data %s --read-part %s/fig2.part --parts 1", tmp("fig2.gnn"), FIX);
    expect_usage_error(args, "fig2.part:5", out, sizeof out);
}
END_TEST

/* A hybrid that is not minimum (the post plan under the hybrid name): both entries must fail. */
static gnn_status mutant_build(const gnn_csr *g, const int32_t *part, int64_t k, gnn_plan_kind kind, gnn_commplan *out)
{
    gnn_status st = gnn_commplan_ref.build(g, part, k, kind == GNN_PLAN_HYBRID ? GNN_PLAN_POST : kind, out);
    out->kind = kind;
    return st;
}
static const gnn_commplan_ops k_mutant = { .name = "mutant", .build = mutant_build };

START_TEST(mutant_caught)
{
    const gnn_oracle_impl impl = { .name = "mutant", .ops = &k_mutant, .flags = 0 };
    tally t;
    run_with_impl("commplan.verify", &impl, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] > 0, "commplan.verify passed a non-minimum hybrid plan");
    run_with_impl("commplan.build", &impl, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] > 0, "commplan.build passed a plan that differs from ref");
    run_with_impl("commplan.verify", &(gnn_oracle_impl){ .name = "ref", .ops = &gnn_commplan_ref }, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] == 0, "%s", t.first_fail);
}
END_TEST

START_TEST(api_checks)
{
    gnn_csr g;
    int32_t part[7];
    fig2_graph(&g, part);
    gnn_commplan P;
    gnn_err err;
    for (int i = 0; k_impls[i]; i++) {
        const gnn_commplan_ops *ops = k_impls[i];
        ck_assert_int_eq(gnn_commplan_build(NULL, &g, part, 2, GNN_PLAN_HYBRID, &P, &err), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_commplan_build(ops, NULL, part, 2, GNN_PLAN_HYBRID, &P, &err), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_commplan_build(ops, &g, part, 2, GNN_PLAN_HYBRID, NULL, &err), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_commplan_build(ops, &g, part, 0, GNN_PLAN_HYBRID, &P, &err), GNN_ERR_INVAL);
        ck_assert_ptr_null(P.edge_ptr);
        ck_assert_int_eq(gnn_commplan_build(ops, &g, NULL, 2, GNN_PLAN_HYBRID, &P, &err), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_commplan_build(ops, &g, part, 2, (gnn_plan_kind)7, &P, &err), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_commplan_build(ops, &g, part, 1, GNN_PLAN_HYBRID, &P, &err), GNN_ERR_RANGE);
        ck_assert_msg(strstr(err.msg, "vertex 4"), "%s", err.msg);
        ck_assert_ptr_null(P.edge_ptr);
        gnn_commplan_free(&P); /* safe on an empty plan */
        /* one rank: no cut edge, every plan empty */
        int32_t zero[7] = { 0 };
        ck_assert_int_eq(gnn_commplan_build(ops, &g, zero, 1, GNN_PLAN_HYBRID, &P, &err), GNN_OK);
        ck_assert_int_eq(P.n_edges, 0);
        ck_assert_int_eq(gnn_commplan_rows(&P, 0), 0);
        gnn_commplan_free(&P);
        /* more parts than vertices: empty parts */
        ck_assert_int_eq(gnn_commplan_build(ops, &g, part, 9, GNN_PLAN_HYBRID, &P, &err), GNN_OK);
        ck_assert_int_eq(P.n_edges, 10);
        ck_assert_int_eq(gnn_commplan_rows(&P, 1 * 9 + 0), 2);
        gnn_commplan_free(&P);
    }
    const gnn_commplan_ops none = { .name = "none" };
    ck_assert_int_eq(gnn_commplan_build(&none, &g, part, 2, GNN_PLAN_PRE, &P, &err), GNN_ERR_UNSUPPORTED);
    gnn_csr_free(&g);
    gnn_plan_kind kind;
    ck_assert_int_eq(gnn_plan_kind_parse("hybrid", &kind), GNN_OK);
    ck_assert_int_eq(kind, GNN_PLAN_HYBRID);
    ck_assert_int_eq(gnn_plan_kind_parse("cover", &kind), GNN_ERR_INVAL);
    ck_assert_str_eq(gnn_plan_kind_name(GNN_PLAN_DEGREE), "degree");
    ck_assert_ptr_null(gnn_plan_kind_name(GNN_PLAN_COUNT));
}
END_TEST

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void expect_read_error(const char *text, int64_t n, int64_t k, gnn_status want, const char *says)
{
    const char *path = tmp("bad.part");
    write_text(path, text);
    int32_t part[8];
    gnn_err err = { "" };
    ck_assert_int_eq(gnn_part_vector_read(path, n, k, part, NULL, &err), want);
    ck_assert_msg(strstr(err.msg, "bad.part") && strstr(err.msg, says), "'%s': expected '%s' in: %s", text, says,
                  err.msg);
}

START_TEST(part_file)
{
    const int32_t part[6] = { 0, 2, 1, 1, 0, 2 };
    int32_t back[6];
    int64_t seen = 0;
    gnn_err err = { "" };
    const char *path = tmp("v.part");
    ck_assert_int_eq(gnn_part_vector_write(path, part, 6, &err), GNN_OK);
    ck_assert_int_eq(gnn_part_vector_read(path, 6, 3, back, &seen, &err), GNN_OK);
    ck_assert_int_eq(memcmp(part, back, sizeof part), 0);
    ck_assert_int_eq(seen, 3);
    FILE *f = fopen(path, "r");
    char text[64] = "";
    ck_assert_uint_eq(fread(text, 1, sizeof text - 1, f), 12);
    fclose(f);
    ck_assert_str_eq(text, "0\n2\n1\n1\n0\n2\n"); /* gpmetis's layout */
    /* tolerated: CRLF, blanks around the id, no final newline, blank lines at the end */
    write_text(path, "0\r\n 1\t\n2");
    ck_assert_int_eq(gnn_part_vector_read(path, 3, 0, back, &seen, &err), GNN_OK);
    ck_assert(back[0] == 0 && back[1] == 1 && back[2] == 2 && seen == 3);
    write_text(path, "1\n1\n\n\n");
    ck_assert_int_eq(gnn_part_vector_read(path, 2, 2, back, &seen, &err), GNN_OK);
    ck_assert_int_eq(seen, 2);
    ck_assert_int_eq(gnn_part_vector_read(path, 0, 2, NULL, NULL, &err), GNN_ERR_FORMAT); /* more ids than 0 */
    /* errors name the file and the line */
    expect_read_error("0\n1\nx\n", 3, 2, GNN_ERR_FORMAT, "bad.part:3");
    expect_read_error("0\n-1\n", 2, 2, GNN_ERR_FORMAT, "bad.part:2");
    expect_read_error("0\n1.5\n", 2, 2, GNN_ERR_FORMAT, "bad.part:2");
    expect_read_error("0\n1 1\n", 2, 2, GNN_ERR_FORMAT, "bad.part:2");
    expect_read_error("0\n2\n", 2, 2, GNN_ERR_RANGE, "bad.part:2: part id 2");
    expect_read_error("0\n99999999999999\n", 2, 0, GNN_ERR_FORMAT, "bad.part:2");
    expect_read_error("0\n1\n", 3, 2, GNN_ERR_FORMAT, "2 part ids");
    expect_read_error("0\n1\n1\n", 2, 2, GNN_ERR_FORMAT, "bad.part:3");
    expect_read_error("0\n\n1\n", 2, 2, GNN_ERR_FORMAT, "bad.part:2: empty line");
    expect_read_error("", 1, 2, GNN_ERR_FORMAT, "0 part ids");
    { /* a NUL byte is named as one (printed, the line would end there and read as "0") */
        FILE *g = fopen(path, "wb");
        ck_assert_ptr_nonnull(g);
        ck_assert_uint_eq(fwrite("0\n0\0009\n1\n", 1, 7, g), 7);
        fclose(g);
        ck_assert_int_eq(gnn_part_vector_read(path, 3, 2, back, NULL, &err), GNN_ERR_FORMAT);
        ck_assert_msg(strstr(err.msg, ".part:2: a NUL byte at column 2"), "%s", err.msg);
    }
    ck_assert_int_eq(gnn_part_vector_read(tmp("missing.part"), 2, 2, back, NULL, &err), GNN_ERR_IO);
    ck_assert_msg(strstr(err.msg, "missing.part"), "%s", err.msg);
    ck_assert_int_eq(gnn_part_vector_write(tmp("no/such/dir.part"), part, 6, &err), GNN_ERR_IO);
    const int32_t neg[2] = { 0, -1 };
    ck_assert_int_eq(gnn_part_vector_write(path, neg, 2, &err), GNN_ERR_INVAL);
}
END_TEST

/* gnnref partition writes a vector, reads it back (same cut), and refuses bad files */
START_TEST(partition_cli)
{
    NEED_TOOL();
    char out[16384], out2[16384], args[1024];
    snprintf(args, sizeof args, "partition --data builtin --parts 4 --write-part %s", tmp("b.part"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    snprintf(args, sizeof args, "partition --data builtin --parts 4 --read-part %s", tmp("b.part"));
    ck_assert_msg(tool(args, out2, sizeof out2) == 0, "%s", out2);
    const char *c1 = strstr(out, "edge cut:"), *c2 = strstr(out2, "edge cut:");
    ck_assert(c1 && c2);
    ck_assert_msg(!strncmp(c1, c2, strcspn(c1, "\n")), "cuts differ:\n%s\n%s", out, out2);
    ck_assert_msg(strstr(out2, "part vector: read from"), "%s", out2);
    snprintf(args, sizeof args, "partition --data builtin --parts 3 --read-part %s", tmp("b.part"));
    expect_usage_error(args, "outside [0, 3)", out, sizeof out);
    write_text(tmp("short.part"), "0\n1\n");
    snprintf(args, sizeof args, "partition --data builtin --parts 2 --read-part %s", tmp("short.part"));
    expect_usage_error(args, "short.part: 2 part ids", out, sizeof out);
    snprintf(args, sizeof args, "partition --data builtin --parts 2 --trainers 2 --read-part %s", tmp("b.part"));
    expect_usage_error(args, "--trainers", out, sizeof out);
    /* the plan from the same vector, through --read-part, equals the one from a saved set */
    snprintf(args, sizeof args, "partition --data builtin --parts 4 --read-part %s -o %s", tmp("b.part"),
             tmp("set"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    snprintf(args, sizeof args, "commplan --data builtin --read-part %s --method hybrid", tmp("b.part"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    snprintf(args, sizeof args, "commplan --data builtin --partitions %s --method hybrid --impl ref", tmp("set"));
    ck_assert_msg(tool(args, out2, sizeof out2) == 0, "%s", out2);
    c1 = strstr(out, "total"), c2 = strstr(out2, "total");
    ck_assert(c1 && c2);
    ck_assert_msg(!strncmp(c1, c2, strcspn(c1, "\n")), "totals differ:\n%s\n%s", out, out2);
}
END_TEST

/* ---- K from a .part file: bounded, and the plan sparse (issue 34 item 5) --------------------------- */

#define RUN_RSS_MAX_KB (256 * 1024) /* the fig2 runs below need a few MB; a k x k layout needed GBs */
#define RUN_OUT_MAX (4 << 20)       /* bytes of output a run may write (RLIMIT_FSIZE): a cut, not a wait */

/* Run `$GNN_TOOL argv...` with stdout and stderr into out_path, its output capped at
 * RUN_OUT_MAX bytes; returns the exit status (-signal when killed), *rss_kb its peak resident
 * memory (wait4: this child's alone, whatever else the test process ran). */
static int tool_measured(const char *const *argv, const char *out_path, long *rss_kb)
{
    const pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        const int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
            _exit(126);
        const struct rlimit fsize = { RUN_OUT_MAX, RUN_OUT_MAX };
        setrlimit(RLIMIT_FSIZE, &fsize);
        char *args[16];
        int a = 0;
        args[a++] = getenv("GNN_TOOL");
        for (int i = 0; argv[i] && a < 15; i++)
            args[a++] = (char *)argv[i];
        args[a] = NULL;
        execv(args[0], args);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    ck_assert_int_eq(wait4(pid, &status, 0, &ru), pid);
    *rss_kb = ru.ru_maxrss;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

/* the captured output (at most cap - 1 bytes) and its line count */
static int64_t read_out(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    int64_t lines = 0;
    size_t n = 0;
    for (int c; (c = getc(f)) != EOF;) {
        lines += c == '\n';
        if (n + 1 < cap)
            out[n++] = (char)c;
    }
    out[n] = '\0';
    fclose(f);
    return lines;
}

/* Without --parts, K is the largest id + 1: an id of 70000 ended in "out of memory" (exit 1);
 * an id of 3000 took 101 s and 1.67 GB and printed 9 million lines, one per empty pair. */
START_TEST(parts_bounded)
{
    NEED_TOOL();
    char out[16384], args[1024];
    snprintf(args, sizeof args, "convert --format edgelist %s/fig2.edges -o %s", FIX, tmp("fig2.gnn"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    /* beyond --parts' bound (65536): refused, naming the file, the line and the value */
    write_text(tmp("k70001.part"), "0\n0\n0\n0\n1\n1\n70000\n");
    snprintf(args, sizeof args, "commplan --data %s --read-part %s", tmp("fig2.gnn"), tmp("k70001.part"));
    expect_usage_error(args, "k70001.part:7: part id 70000", out, sizeof out);
    ck_assert_msg(strstr(out, "65536"), "the bound is not named: %s", out);
    /* an id of 3000 (K = 3001) and of 65535 (K = 65536, the bound): 4 pairs have cut edges
     * (1 <-> 0 and 0 <-> K - 1); nothing else is stored or printed */
    static const char *const ids[] = { "3000", "65535" };
    for (int t = 0; t < 2; t++) {
        char part_text[64], json[600], data[600], part[600];
        snprintf(part_text, sizeof part_text, "0\n0\n0\n0\n1\n1\n%s\n", ids[t]);
        snprintf(part, sizeof part, "%s", tmp("k.part"));
        snprintf(json, sizeof json, "%s", tmp("k.json"));
        snprintf(data, sizeof data, "%s", tmp("fig2.gnn"));
        write_text(part, part_text);
        const char *argv[] = { "commplan", "--data", data, "--read-part", part, "--rows", "--json", json, NULL };
        long rss = 0;
        const int rc = tool_measured(argv, tmp("k.out"), &rss);
        const int64_t lines = read_out(tmp("k.out"), out, sizeof out);
        ck_assert_msg(rc == 0 && rss < RUN_RSS_MAX_KB && lines < 60,
                      "id %s: exit %d, peak memory %ld KB (at most %d), %lld lines (at most 60): %.2000s", ids[t], rc,
                      rss, RUN_RSS_MAX_KB, (long long)lines, out);
        char want[64];
        snprintf(want, sizeof want, "hybrid %s -> 0: post [6] pre []", ids[t]);
        ck_assert_msg(strstr(out, want), "'%s' not in: %s", want, out);
        json_object *r = json_object_from_file(json), *x, *plans, *h;
        ck_assert_ptr_nonnull(r);
        ck_assert(json_object_object_get_ex(r, "k", &x) && json_object_get_int64(x) == atoll(ids[t]) + 1);
        ck_assert(json_object_object_get_ex(r, "pairs", &x) && json_object_array_length(x) == 4);
        ck_assert(json_object_object_get_ex(r, "plans", &plans) && json_object_object_get_ex(plans, "hybrid", &h));
        ck_assert(json_object_object_get_ex(h, "rows", &x) && json_object_array_length(x) == 4);
        ck_assert(json_object_object_get_ex(h, "total_rows", &x) && json_object_get_int64(x) == 6);
        json_object_put(r);
    }
    /* the library itself: K = 65536 with 4 pairs of cut edges, in both implementations */
    gnn_csr g;
    int32_t p7[7];
    fig2_graph(&g, p7);
    p7[6] = 65535;
    for (int i = 0; k_impls[i]; i++) {
        gnn_commplan P;
        gnn_err err = { "" };
        ck_assert_msg(gnn_commplan_build(k_impls[i], &g, p7, 65536, GNN_PLAN_HYBRID, &P, &err) == GNN_OK, "%s: %s",
                      k_impls[i]->name, err.msg);
        ck_assert_int_eq(gnn_commplan_rows(&P, 65535 * 65536LL + 0), 1);
        ck_assert_int_eq(gnn_commplan_rows(&P, 0 * 65536LL + 65535), 1);
        ck_assert_int_eq(gnn_commplan_rows(&P, 1 * 65536LL + 0), 2);
        ck_assert_int_eq(gnn_commplan_rows(&P, 2 * 65536LL + 3), 0);
        gnn_commplan_free(&P);
    }
    gnn_csr_free(&g);
}
END_TEST

/* Issue 22's acceptance on one dataset: METIS with 2, 4 and 8 parts; for every pair hybrid <=
 * min(pre, post), the matching certifies the cover (|match| = rows), and on the symmetric graph
 * total pre = total post. Prints hybrid / pre per K (not asserted). */
static void acceptance(const char *what, const gnn_dataset *ds)
{
    for (int64_t K = 2; K <= 8; K *= 2) {
        gnn_part_options o;
        gnn_part_defaults(&o);
        o.k = K;
        gnn_err err;
        int32_t *part = malloc((size_t)ds->graph.n * sizeof(int32_t));
        ck_assert_ptr_nonnull(part);
        ck_assert_msg(gnn_partition_assign(&ds->graph, NULL, &o, part, NULL, &err) == GNN_OK, "%s", err.msg);
        gnn_commplan P[GNN_PLAN_COUNT];
        for (int kind = 0; kind < GNN_PLAN_COUNT; kind++)
            ck_assert_msg(gnn_commplan_build(&gnn_commplan_cpu, &ds->graph, part, K, (gnn_plan_kind)kind, &P[kind],
                                             &err) == GNN_OK, "%s", err.msg);
        int64_t tot[GNN_PLAN_COUNT] = { 0 };
        for (int64_t p = 0; p < K * K; p++) {
            int64_t r[GNN_PLAN_COUNT];
            for (int kind = 0; kind < GNN_PLAN_COUNT; kind++)
                tot[kind] += r[kind] = gnn_commplan_rows(&P[kind], p);
            if (gnn_commplan_edges(&P[0], p) == 0)
                continue; /* no slot: no rows, no matching */
            const int64_t mn = r[GNN_PLAN_PRE] < r[GNN_PLAN_POST] ? r[GNN_PLAN_PRE] : r[GNN_PLAN_POST];
            ck_assert_msg(r[GNN_PLAN_HYBRID] <= mn, "%s K=%lld pair %lld: hybrid %lld > min(pre, post) %lld", what,
                          (long long)K, (long long)p, (long long)r[GNN_PLAN_HYBRID], (long long)mn);
            const gnn_commplan *H = &P[GNN_PLAN_HYBRID];
            const int64_t s = gnn_commplan_slot(H, p);
            ck_assert_int_eq(H->match_ptr[s + 1] - H->match_ptr[s], r[GNN_PLAN_HYBRID]);
        }
        ck_assert_int_eq(tot[GNN_PLAN_PRE], tot[GNN_PLAN_POST]);
        fprintf(stderr, "%s K=%lld: cut edges %lld, rows pre %lld post %lld hybrid %lld degree %lld, hybrid/pre %.4f\n",
                what, (long long)K, (long long)P[0].n_edges, (long long)tot[0], (long long)tot[1], (long long)tot[2],
                (long long)tot[3], tot[0] ? (double)tot[2] / (double)tot[0] : 0.0);
        for (int kind = 0; kind < GNN_PLAN_COUNT; kind++)
            gnn_commplan_free(&P[kind]);
        free(part);
    }
}

START_TEST(acceptance_builtin)
{
    gnn_dataset ds;
    gnn_err err;
    ck_assert_msg(gnn_dataset_open(&ds, "builtin", &err) == GNN_OK, "%s", err.msg);
    acceptance("builtin", &ds);
    gnn_dataset_free(&ds);
}
END_TEST

#define FACEBOOK "../shared/datasets/facebook"
START_TEST(acceptance_facebook)
{
    struct stat st;
    if (stat(FACEBOOK, &st) != 0) {
        fprintf(stderr, "acceptance_facebook: SKIP (%s not found; run from the repo root with shared/ beside it)\n",
                FACEBOOK);
        return;
    }
    gnn_dataset ds;
    gnn_err err;
    ck_assert_msg(gnn_dataset_open(&ds, FACEBOOK, &err) == GNN_OK, "%s", err.msg);
    acceptance("facebook", &ds);
    gnn_dataset_free(&ds);
}
END_TEST

Suite *suite_commplan(void)
{
    Suite *s = suite_create("commplan");
    TCase *tc = tcase_create("cpu");
    tcase_set_tags(tc, "cpu");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    tcase_add_test(tc, fig2_plans);
    tcase_add_test(tc, fig2_cli);
    tcase_add_test(tc, mutant_caught);
    tcase_add_test(tc, api_checks);
    tcase_add_test(tc, part_file);
    tcase_add_test(tc, partition_cli);
    tcase_add_test(tc, acceptance_builtin);
    tcase_add_test(tc, parts_bounded);
    suite_add_tcase(s, tc);
    TCase *slow = tcase_create("slow");
    tcase_set_tags(slow, "cpu slow");
    tcase_set_timeout(slow, 300);
    tcase_add_test(slow, acceptance_facebook);
    suite_add_tcase(s, slow);
    return s;
}
