/* tests/test_oracle.c -- the oracle registry as a Check suite, and self-tests of the harness.
 *
 * tcase "registry" (tags cpu, registry): one test per registry entry (tcase_add_loop_test),
 *   every implementation, every preset, two seeds; any FAIL fails the test with the case string
 *   and the detail. tcase "well_formed": the registry's names, fields and presets.
 * tcase "harness": proofs that the oracle CAN fail. Each self-test hands the harness a
 *   deliberately broken implementation (a mutant of the reference: one ulp nudged, edges
 *   summed in reverse, an edge dropped, a write past the end, a NaN, an Inf, a biased sampler,
 *   a repeated sample, a reordered ID map, a backward missing its 1/deg, a weighted sampler with
 *   squared weights or the wrong keys, an ID map with two new ids swapped or two vertices merged,
 *   a sampler block with one edge relabelled, a broken layer chain) and asserts FAIL with
 *   the expected message; plus comparator semantics, the chi-square p-value against published
 *   quantiles, case-string replay and malformed case strings (library and CLI).
 * No test re-implements a kernel: mutants wrap the reference and break one thing. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "gnnref/aggregate.h"
#include "gnnref/index_add.h"
#include "gnnref/idmap.h"
#include "gnnref/nn.h"
#include "gnnref/oracle.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "gnnref/tensor.h"

static int n_registry(void)
{
    int n = 0;
    while (gnn_oracle_registry[n])
        n++;
    return n;
}

/* ---- helpers ------------------------------------------------------------------------------- */

typedef struct tally {
    int counts[GNN_ORACLE_OUTCOME_COUNT];
    char first_fail[4096]; /* case string and detail of the first FAIL */
} tally;

static void tally_visit(const gnn_oracle_case *c, const gnn_oracle_result *r, void *user)
{
    (void)c;
    tally *t = user;
    if (r->outcome == GNN_ORACLE_FAIL && !t->first_fail[0])
        snprintf(t->first_fail, sizeof t->first_fail, "%s\n%s", r->case_str, r->detail);
}

/* Every preset of entry `name`, `cases` seeds each, with implementation impl (any pointer:
 * mutants are not in the registry). */
static void run_with_impl(const char *name, const gnn_oracle_impl *impl, int threads, int cases, tally *t)
{
    memset(t, 0, sizeof *t);
    const gnn_oracle_entry *e = gnn_oracle_find(name);
    ck_assert_msg(e != NULL, "no entry %s", name);
    for (int p = 0; e->presets[p]; p++)
        for (int k = 0; k < cases; k++) {
            gnn_oracle_case c;
            gnn_err err;
            ck_assert_int_eq(gnn_oracle_case_init(&c, e, impl, threads, e->presets[p], 1 + (uint64_t)k, &err), GNN_OK);
            gnn_oracle_result r;
            gnn_oracle_outcome o = gnn_oracle_run(&c, &r);
            t->counts[o]++;
            tally_visit(&c, &r, t);
        }
}

/* ---- tcase registry: the oracle over every entry --------------------------------------------- */

START_TEST(registry_entry)
{
    const gnn_oracle_entry *e = gnn_oracle_registry[_i];
    tally t;
    memset(&t, 0, sizeof t);
    int fails = gnn_oracle_run_entry(e, NULL, 2, 1000, tally_visit, &t, t.counts);
    ck_assert_msg(fails == 0, "%s: %d FAIL; first:\n%s", e->name, fails, t.first_fail);
    /* a test that only skips proves nothing: every entry has a reference that runs here */
    ck_assert_msg(t.counts[GNN_ORACLE_PASS] > 0, "%s: no case passed", e->name);
}
END_TEST

START_TEST(registry_well_formed)
{
    /* the ops the design names are all registered, once */
    static const char *const required[] = {
        "rng.philox.kat", "crc32c.kat", "sample.uniform", "sample.uniform.dist", "block.build",
        "aggregate.mean.fwd", "aggregate.mean.bwd", "aggregate.sum.fwd", "aggregate.sum.bwd", "linear.fwd",
        "linear.bwd", "xent", "relu", "dropout", "grad.aggregate.mean", "grad.aggregate.sum", "grad.linear",
        "grad.xent", "grad.relu", "grad.dropout", "sample.weighted", "sample.weighted.dist", "idmap.build",
        "idmap.fused", "sample.layer", "sample.layer.fusedmap", "sample.blocks", "sample.blocks.fusedmap", NULL,
    };
    for (int i = 0; required[i]; i++)
        ck_assert_msg(gnn_oracle_find(required[i]) != NULL, "%s is not registered", required[i]);
    const int n = n_registry();
    for (int i = 0; i < n; i++) {
        const gnn_oracle_entry *e = gnn_oracle_registry[i];
        for (int j = i + 1; j < n; j++)
            ck_assert_msg(strcmp(e->name, gnn_oracle_registry[j]->name), "%s registered twice", e->name);
        ck_assert_msg(e->what && *e->what && e->reason && *e->reason, "%s: what/reason missing", e->name);
        ck_assert_msg(e->run && e->ref && e->impls && e->impls[0], "%s: run/ref/impls missing", e->name);
        ck_assert_msg(e->n_params <= GNN_ORACLE_MAX_PARAMS, "%s: too many params", e->name);
        ck_assert_msg(gnn_oracle_n_presets(e) > 0, "%s: no presets", e->name);
        for (int p = 0; e->presets[p]; p++)
            for (const gnn_oracle_impl *const *ip = e->impls; *ip; ip++) {
                gnn_oracle_case c, back;
                gnn_err err;
                ck_assert_msg(gnn_oracle_case_init(&c, e, *ip, 2, e->presets[p], 42, &err) == GNN_OK, "%s preset '%s': %s",
                              e->name, e->presets[p], err.msg);
                char s1[512], s2[512];
                gnn_oracle_case_format(&c, s1, sizeof s1);
                ck_assert_msg(gnn_oracle_case_parse(s1, &back, &err) == GNN_OK, "%s: %s", s1, err.msg);
                gnn_oracle_case_format(&back, s2, sizeof s2);
                ck_assert_str_eq(s1, s2);
            }
    }
}
END_TEST

/* ---- replay ---------------------------------------------------------------------------------- */

START_TEST(replay_reproduces)
{
    for (const gnn_oracle_entry *const *ep = gnn_oracle_registry; *ep; ep++) {
        const gnn_oracle_entry *e = *ep;
        const gnn_oracle_impl *impl = NULL;
        for (const gnn_oracle_impl *const *ip = e->impls; *ip; ip++)
            impl = *ip; /* the last: the optimized one where there is one */
        gnn_oracle_case c, back;
        gnn_err err;
        ck_assert_int_eq(gnn_oracle_case_init(&c, e, impl, 2, e->presets[0], 7, &err), GNN_OK);
        char s[512];
        gnn_oracle_case_format(&c, s, sizeof s);
        ck_assert_msg(gnn_oracle_case_parse(s, &back, &err) == GNN_OK, "%s: %s", s, err.msg);
        ck_assert_ptr_eq(back.entry, c.entry);
        ck_assert_ptr_eq(back.impl, c.impl);
        ck_assert_int_eq(back.threads, c.threads);
        ck_assert_uint_eq(back.seed, c.seed);
        ck_assert(memcmp(back.v, c.v, sizeof c.v) == 0);
        gnn_oracle_result r1, r2;
        gnn_oracle_outcome o1 = gnn_oracle_run(&c, &r1), o2 = gnn_oracle_run(&back, &r2);
        ck_assert_int_eq(o1, o2);
        ck_assert_msg(r1.digest == r2.digest, "%s: replay digest %08x != %08x", s, r1.digest, r2.digest);
        ck_assert_str_eq(r1.case_str, s);
    }
    /* the digest sees the data: another seed gives other inputs and so other outputs */
    const gnn_oracle_entry *e = gnn_oracle_find("aggregate.mean.fwd");
    gnn_oracle_case a, b;
    ck_assert_int_eq(gnn_oracle_case_init(&a, e, e->ref, 0, e->presets[0], 7, NULL), GNN_OK);
    ck_assert_int_eq(gnn_oracle_case_init(&b, e, e->ref, 0, e->presets[0], 8, NULL), GNN_OK);
    gnn_oracle_result ra, rb;
    gnn_oracle_run(&a, &ra);
    gnn_oracle_run(&b, &rb);
    ck_assert_uint_ne(ra.digest, rb.digest);
    /* the example string of the documentation replays */
    ck_assert_int_eq(gnn_oracle_case_parse(
                         "aggregate.mean.fwd(impl=cpu,threads=2,n_dst=37,n_src=80,d=13,deg=0..9,seed=5)", &a, NULL),
                     GNN_OK);
    ck_assert_int_eq(a.threads, 2);
    ck_assert_int_eq(a.v[3].lo, 0);
    ck_assert_int_eq(a.v[3].hi, 9);
    ck_assert_int_eq(gnn_oracle_run(&a, &ra), gnn_oracle_have_openmp() ? GNN_ORACLE_PASS : GNN_ORACLE_SKIP);
}
END_TEST

START_TEST(malformed_case_strings)
{
    static const struct {
        const char *s, *fragment;
    } bad[] = {
        { "", "empty" },
        { "   ", "empty" },
        { "aggregate.mean.fwd", "closing ')'" },
        { "aggregate.mean.fwd(impl=ref,n_dst=3,n_src=3,d=1,deg=0..1,seed=1", "closing ')'" },
        { "nosuch.op(impl=ref,seed=1)", "unknown op 'nosuch.op'" },
        { "aggregate.mean.fwd(impl=cpu,threads=2,n_dst=37,n_src=80,d=13,seed=5)", "deg is missing" },
        { "aggregate.mean.fwd(impl=cpu,threads=2,n_dst=37,n_src=80,d=13,deg=9..0,seed=5)", "range is empty" },
        { "aggregate.mean.fwd(impl=cpu,threads=2,n_dst=37,n_src=80,d=abc,deg=0..9,seed=5)", "not an integer" },
        { "aggregate.mean.fwd(impl=cpu,threads=2,n_dst=37 x,n_src=80,d=1,deg=0..9,seed=5)", "not an integer" },
        { "aggregate.mean.fwd(impl=cpu,threads=2,n_dst=37,n_src=80,d=13,deg=0..9,colour=3,seed=5)", "unknown key 'colour'" },
        { "aggregate.mean.fwd(impl=gpu,n_dst=37,n_src=80,d=13,deg=0..9,seed=5)", "no implementation 'gpu'" },
        { "aggregate.mean.fwd(impl=cpu,n_dst=37,n_src=80,d=13,deg=0..9,seed=5)", "threads=N is required" },
        { "aggregate.mean.fwd(impl=ref,threads=2,n_dst=37,n_src=80,d=13,deg=0..9,seed=5)", "not threaded" },
        { "aggregate.mean.fwd(impl=cpu,threads=0,n_dst=37,n_src=80,d=13,deg=0..9,seed=5)", "threads='0'" },
        { "aggregate.mean.fwd(impl=cpu,threads=2,n_dst=37,n_src=80,d=13,d=14,deg=0..9,seed=5)", "given twice" },
        { "aggregate.mean.fwd(impl=cpu,threads=2,n_dst=37,n_src=80,d=13,deg=0..9,seed=-1)", "seed='-1'" },
        { "aggregate.mean.fwd(impl=cpu,threads=2,n_dst=37,n_src=80,d=13,deg=0..9)", "seed is missing" },
        { "aggregate.mean.fwd(threads=2,n_dst=37,n_src=80,d=13,deg=0..9,seed=1)", "impl is missing" },
        { "aggregate.mean.fwd(impl=cpu,threads=2,n_dst=-1,n_src=80,d=13,deg=0..9,seed=5)", "outside" },
        { "dropout(impl=ref,n=3,d=3,p=1.5,step=0,layer=0,seed=1)", "outside" },
        { "dropout(impl=ref,n=3,d=3,p=nan,step=0,layer=0,seed=1)", "not a finite number" },
        { "relu(impl=ref,n=3,seed=1,oops)", "not KEY=VALUE" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gnn_oracle_case c;
        gnn_err err = { "" };
        gnn_status s = gnn_oracle_case_parse(bad[i].s, &c, &err);
        ck_assert_msg(s == GNN_ERR_FORMAT, "'%s' parsed (status %d)", bad[i].s, s);
        ck_assert_msg(strstr(err.msg, bad[i].fragment) != NULL, "'%s': message '%s' lacks '%s'", bad[i].s, err.msg,
                      bad[i].fragment);
    }
    /* whitespace is tolerated, and the result is the canonical string */
    gnn_oracle_case c;
    ck_assert_int_eq(gnn_oracle_case_parse(" relu( impl = ref , n = 3 , seed = 9 ) ", &c, NULL), GNN_OK);
    char s[128];
    gnn_oracle_case_format(&c, s, sizeof s);
    ck_assert_str_eq(s, "relu(impl=ref,n=3,seed=9)");
    /* reals print in their shortest exact form */
    ck_assert_int_eq(gnn_oracle_case_parse("dropout(impl=ref,n=3,d=3,p=0.1,step=0,layer=0,seed=1)", &c, NULL), GNN_OK);
    gnn_oracle_case_format(&c, s, sizeof s);
    ck_assert_str_eq(s, "dropout(impl=ref,n=3,d=3,p=0.1,step=0,layer=0,seed=1)");
}
END_TEST

/* The CLI: exit codes and messages (GNN_TOOL is set by `make check`; skipped without it). */
static int run_tool(const char *args, char *out, size_t n)
{
    const char *tool = getenv("GNN_TOOL");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s oracle %s 2>&1", tool, args);
    FILE *f = popen(cmd, "r");
    ck_assert_ptr_nonnull(f);
    size_t len = fread(out, 1, n - 1, f);
    out[len] = '\0';
    int st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(cli_exit_codes)
{
    if (!getenv("GNN_TOOL"))
        return; /* run by `make check`, which sets GNN_TOOL */
    static char out[1 << 16];
    ck_assert_int_eq(run_tool("--case 'aggregate.mean.fwd(impl=cpu,n_dst=1)'", out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "gnnref: error: oracle: --case: aggregate.mean.fwd:"));
    ck_assert_int_eq(run_tool("--case 'garbage'", out, sizeof out), 2);
    ck_assert_int_eq(run_tool("--op nosuch", out, sizeof out), 2);
    ck_assert_int_eq(run_tool("--impl nosuch", out, sizeof out), 2);
    ck_assert_int_eq(run_tool("--cases 0", out, sizeof out), 2);
    ck_assert_int_eq(run_tool("--bogus", out, sizeof out), 2);
    ck_assert_int_eq(run_tool("--case 'relu(impl=ref,n=5,seed=3)'", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "oracle: 1 passed, 0 failed, 0 skipped, 0 unsupported"));
    ck_assert_int_eq(run_tool("--op rng.philox.kat", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "oracle: 3 passed, 0 failed, 0 skipped, 0 unsupported"));
    ck_assert_int_eq(run_tool("--list", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "aggregate.mean.fwd"));
    ck_assert_ptr_nonnull(strstr(out, "tolerance:"));
}
END_TEST

/* ---- mutants of aggregation ------------------------------------------------------------------ */

/* 1. the last output element one ulp up */
static gnn_status fwd_nudge(const gnn_block *b, const float *x, int64_t d, gnn_agg_kind k, float *out)
{
    gnn_status s = gnn_aggregate_ref.forward(b, x, d, k, out);
    if (b->n_dst * d > 0)
        out[b->n_dst * d - 1] = nextafterf(out[b->n_dst * d - 1], INFINITY);
    return s;
}

/* 2. each row's edges summed in reverse order: the same terms, another rounding */
static gnn_status fwd_reversed(const gnn_block *b, const float *x, int64_t d, gnn_agg_kind k, float *out)
{
    gnn_block r = *b;
    r.indices = malloc((size_t)b->nnz * sizeof(int32_t) + 1);
    for (int64_t v = 0; v < b->n_dst; v++)
        for (int64_t e = b->indptr[v]; e < b->indptr[v + 1]; e++)
            r.indices[e] = b->indices[b->indptr[v] + b->indptr[v + 1] - 1 - e];
    gnn_status s = gnn_aggregate_ref.forward(&r, x, d, k, out);
    free(r.indices);
    return s;
}

/* 3. off by one: each row's last edge dropped */
static gnn_status bwd_drop_last(const gnn_block *b, const float *dout, int64_t d, gnn_agg_kind k, float *dx)
{
    gnn_block r = *b;
    r.indptr = malloc(((size_t)b->n_dst + 1) * sizeof(int64_t));
    r.indices = malloc((size_t)b->nnz * sizeof(int32_t) + 1);
    r.indptr[0] = 0;
    for (int64_t v = 0; v < b->n_dst; v++) {
        int64_t w = r.indptr[v];
        for (int64_t e = b->indptr[v]; e + 1 < b->indptr[v + 1]; e++)
            r.indices[w++] = b->indices[e];
        r.indptr[v + 1] = w;
    }
    r.nnz = r.indptr[b->n_dst];
    gnn_status s = gnn_aggregate_ref.backward(&r, dout, d, k, dx);
    free(r.indptr);
    free(r.indices);
    return s;
}

/* 4. a write one element past the end / one before the start */
static gnn_status fwd_past_end(const gnn_block *b, const float *x, int64_t d, gnn_agg_kind k, float *out)
{
    gnn_status s = gnn_aggregate_ref.forward(b, x, d, k, out);
    out[b->n_dst * d] = 0.0f;
    return s;
}
static gnn_status fwd_before_start(const gnn_block *b, const float *x, int64_t d, gnn_agg_kind k, float *out)
{
    gnn_status s = gnn_aggregate_ref.forward(b, x, d, k, out);
    out[-1] = 0.0f;
    return s;
}

/* 5. a NaN; an element never written; an infinity */
static gnn_status fwd_nan(const gnn_block *b, const float *x, int64_t d, gnn_agg_kind k, float *out)
{
    gnn_status s = gnn_aggregate_ref.forward(b, x, d, k, out);
    if (b->n_dst * d > 0)
        out[0] = NAN;
    return s;
}
static gnn_status fwd_forget_last(const gnn_block *b, const float *x, int64_t d, gnn_agg_kind k, float *out)
{
    const int64_t n = b->n_dst * d;
    float *tmp = malloc((size_t)n * sizeof(float) + 1);
    gnn_status s = gnn_aggregate_ref.forward(b, x, d, k, tmp);
    if (n > 0)
        memcpy(out, tmp, (size_t)(n - 1) * sizeof(float));
    free(tmp);
    return s;
}
static gnn_status fwd_inf(const gnn_block *b, const float *x, int64_t d, gnn_agg_kind k, float *out)
{
    gnn_status s = gnn_aggregate_ref.forward(b, x, d, k, out);
    if (b->n_dst * d > 0)
        out[0] = INFINITY;
    return s;
}

/* 6. a backward that forgets the 1/deg of mean (uses the sum backward) */
static gnn_status bwd_no_scale(const gnn_block *b, const float *dout, int64_t d, gnn_agg_kind k, float *dx)
{
    (void)k;
    return gnn_aggregate_ref.backward(b, dout, d, GNN_AGG_SUM, dx);
}

static gnn_status unsupported_fwd(const gnn_block *b, const float *x, int64_t d, gnn_agg_kind k, float *out)
{
    (void)b, (void)x, (void)d, (void)k, (void)out;
    return GNN_ERR_UNSUPPORTED;
}

#define AGG_MUTANT(var, fwd, bwd)                                                                     \
    static const gnn_aggregate_ops var##_ops = { #var, 0, fwd, bwd, NULL, NULL };                      \
    static const gnn_oracle_impl var = { #var, &var##_ops, 0 }
AGG_MUTANT(m_nudge, fwd_nudge, NULL);
AGG_MUTANT(m_reversed, fwd_reversed, NULL);
AGG_MUTANT(m_drop_last, NULL, bwd_drop_last);
AGG_MUTANT(m_past_end, fwd_past_end, NULL);
AGG_MUTANT(m_before_start, fwd_before_start, NULL);
AGG_MUTANT(m_nan, fwd_nan, NULL);
AGG_MUTANT(m_forget_last, fwd_forget_last, NULL);
AGG_MUTANT(m_inf, fwd_inf, NULL);
AGG_MUTANT(m_unsupported, unsupported_fwd, NULL);
static gnn_status ref_fwd(const gnn_block *b, const float *x, int64_t d, gnn_agg_kind k, float *out)
{
    return gnn_aggregate_ref.forward(b, x, d, k, out);
}
AGG_MUTANT(m_no_scale, ref_fwd, bwd_no_scale);

START_TEST(bitwise_catches_wrong_impl)
{
    tally t;
    run_with_impl("aggregate.mean.fwd", &m_nudge, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_msg(strstr(t.first_fail, "1 of") && strstr(t.first_fail, "1 ulp") && strstr(t.first_fail, "ref "),
                  "detail: %s", t.first_fail);
    /* a reversed summation order: same terms, other bits; bitwise must see it */
    run_with_impl("aggregate.sum.fwd", &m_reversed, 0, 2, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] > 0, "reversed summation order went unnoticed");
    ck_assert_ptr_nonnull(strstr(t.first_fail, "elements differ (bitwise)"));
    /* off by one: the last edge of every row dropped in the backward */
    run_with_impl("aggregate.mean.bwd", &m_drop_last, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_ptr_nonnull(strstr(t.first_fail, "dx"));
}
END_TEST

START_TEST(guard_catches_oob)
{
    tally t;
    run_with_impl("aggregate.mean.fwd", &m_past_end, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_int_eq(t.counts[GNN_ORACLE_PASS], 0); /* even the empty batch writes out[0] past its end */
    ck_assert_msg(strstr(t.first_fail, "out-of-bounds write") && strstr(t.first_fail, "after the end"), "%s",
                  t.first_fail);
    run_with_impl("aggregate.mean.fwd", &m_before_start, 0, 1, &t);
    ck_assert_int_eq(t.counts[GNN_ORACLE_PASS], 0);
    ck_assert_msg(strstr(t.first_fail, "before the start") && strstr(t.first_fail, "offset -1"), "%s", t.first_fail);
    /* the guard primitives directly: every byte on both sides */
    for (size_t n = 0; n < 70; n += 23)
        for (int side = 0; side < 2; side++)
            for (int i = 0; i < GNN_GUARD_BYTES; i++) {
                unsigned char *p = gnn_guard_alloc(n, 0);
                ck_assert_uint_eq((uintptr_t)p % 64, 0);
                char msg[256];
                ck_assert_int_eq(gnn_guard_check(p, msg, sizeof msg), GNN_OK);
                if (side)
                    p[n + (size_t)i] ^= 1;
                else
                    p[-1 - i] ^= 1;
                ck_assert_int_eq(gnn_guard_check(p, msg, sizeof msg), GNN_ERR_MISMATCH);
                gnn_guard_free(p);
            }
}
END_TEST

START_TEST(nan_fails)
{
    tally t;
    run_with_impl("aggregate.mean.fwd", &m_nan, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_msg(strstr(t.first_fail, "NaN in the impl output"), "%s", t.first_fail);
    run_with_impl("aggregate.mean.fwd", &m_forget_last, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_msg(strstr(t.first_fail, "never written"), "%s", t.first_fail);
}
END_TEST

/* ---- comparators through a test entry --------------------------------------------------------- */

static struct {
    const gnn_oracle_tol *tol;
    const float *ref, *impl;
    int64_t n;
} g_cmp;

static gnn_oracle_outcome cmp_entry_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    (void)c;
    float *a = gnn_oracle_alloc_out(ctx, "ref", (size_t)g_cmp.n * sizeof(float));
    float *b = gnn_oracle_alloc_out(ctx, "impl", (size_t)g_cmp.n * sizeof(float));
    memcpy(a, g_cmp.ref, (size_t)g_cmp.n * sizeof(float));
    memcpy(b, g_cmp.impl, (size_t)g_cmp.n * sizeof(float));
    return gnn_oracle_compare_f32(ctx, g_cmp.tol, "x", a, b, g_cmp.n, 0);
}

static const gnn_oracle_param k_test_params[] = { { "n", GNN_PARAM_INT, 0, 10, "unused" } };
static const char *const k_test_presets[] = { "n=1", NULL };
static const gnn_oracle_impl k_test_impl = { "test", NULL, 0 };
static const gnn_oracle_impl *const k_test_impls[] = { &k_test_impl, NULL };
static const gnn_oracle_entry k_cmp_entry = {
    .name = "selftest.compare", .what = "comparator self-test", .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "test", .params = k_test_params, .n_params = 1, .presets = k_test_presets,
    .ref = &k_test_impl, .impls = k_test_impls, .run = cmp_entry_run,
};

static gnn_oracle_outcome compare(gnn_oracle_cmp cmp, double a, double b, const float *ref, const float *impl,
                                  int64_t n, gnn_oracle_result *r)
{
    const gnn_oracle_tol tol = { cmp, a, b };
    g_cmp.tol = &tol;
    g_cmp.ref = ref;
    g_cmp.impl = impl;
    g_cmp.n = n;
    gnn_oracle_case c;
    ck_assert_int_eq(gnn_oracle_case_init(&c, &k_cmp_entry, &k_test_impl, 0, "n=1", 1, NULL), GNN_OK);
    return gnn_oracle_run(&c, r);
}

START_TEST(inf_must_match)
{
    gnn_oracle_result r;
    const float ref[2] = { 1.0f, INFINITY };
    const float same[2] = { 1.0f, INFINITY }, neg[2] = { 1.0f, -INFINITY }, big[2] = { 1.0f, 3e38f };
    ck_assert_int_eq(compare(GNN_CMP_BITWISE, 0, 0, ref, same, 2, &r), GNN_ORACLE_PASS);
    ck_assert_int_eq(compare(GNN_CMP_ALLCLOSE, 1e-5, 1e-4, ref, same, 2, &r), GNN_ORACLE_PASS);
    ck_assert_int_eq(compare(GNN_CMP_NMSE, 1e-10, 0, ref, same, 2, &r), GNN_ORACLE_PASS);
    ck_assert_int_eq(compare(GNN_CMP_ALLCLOSE, 1e30, 1e30, ref, neg, 2, &r), GNN_ORACLE_FAIL);
    ck_assert_ptr_nonnull(strstr(r.detail, "Inf mismatch at [1]"));
    ck_assert_int_eq(compare(GNN_CMP_ALLCLOSE, 1e30, 1e30, ref, big, 2, &r), GNN_ORACLE_FAIL);
    ck_assert_int_eq(compare(GNN_CMP_ULP, 1e9, 0, big, ref, 2, &r), GNN_ORACLE_FAIL);
    /* through a mutant kernel */
    tally t;
    run_with_impl("aggregate.mean.fwd", &m_inf, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_msg(strstr(t.first_fail, "Inf mismatch"), "%s", t.first_fail);
}
END_TEST

START_TEST(comparators)
{
    gnn_oracle_result r;
    const float one = 1.0f, up1 = nextafterf(1.0f, 2.0f), up2 = nextafterf(up1, 2.0f);
    const float a[3] = { one, 2.0f, -3.0f };
    float b[3] = { up1, 2.0f, -3.0f };
    ck_assert_int_eq(gnn_oracle_ulp_f32(one, up1), 1);
    ck_assert_int_eq(gnn_oracle_ulp_f32(one, up2), 2);
    ck_assert_int_eq(gnn_oracle_ulp_f32(0.0f, -0.0f), 0);
    ck_assert_int_eq(gnn_oracle_ulp_f32(1e-45f, -1e-45f), 2);
    /* bitwise sees one ulp, and names the element with both values */
    ck_assert_int_eq(compare(GNN_CMP_BITWISE, 0, 0, a, b, 3, &r), GNN_ORACLE_FAIL);
    ck_assert_ptr_nonnull(strstr(r.detail, "1 of 3 elements differ (bitwise)"));
    ck_assert_ptr_nonnull(strstr(r.detail, "x [0]: ref 1 (0x3f800000) impl 1.00000012 (0x3f800001)"));
    ck_assert_int_eq(compare(GNN_CMP_ULP, 1, 0, a, b, 3, &r), GNN_ORACLE_PASS);
    b[0] = up2;
    ck_assert_int_eq(compare(GNN_CMP_ULP, 1, 0, a, b, 3, &r), GNN_ORACLE_FAIL);
    ck_assert_int_eq(compare(GNN_CMP_ALLCLOSE, 0, 1e-6, a, b, 3, &r), GNN_ORACLE_PASS);   /* 2.4e-7 relative */
    ck_assert_int_eq(compare(GNN_CMP_ALLCLOSE, 0, 1e-7, a, b, 3, &r), GNN_ORACLE_FAIL);
    ck_assert_int_eq(compare(GNN_CMP_ALLCLOSE, 1e-6, 0, a, b, 3, &r), GNN_ORACLE_PASS);
    ck_assert_int_eq(compare(GNN_CMP_NMSE, 1e-12, 0, a, b, 3, &r), GNN_ORACLE_PASS);     /* (2.4e-7)^2 / 14 */
    ck_assert_int_eq(compare(GNN_CMP_NMSE, 1e-16, 0, a, b, 3, &r), GNN_ORACLE_FAIL);
    ck_assert_ptr_nonnull(strstr(r.detail, "nmse"));
    /* -0 and +0: equal as values, different as bits */
    const float pz = 0.0f, nz = -0.0f;
    ck_assert_int_eq(compare(GNN_CMP_BITWISE, 0, 0, &pz, &nz, 1, &r), GNN_ORACLE_FAIL);
    ck_assert_int_eq(compare(GNN_CMP_ULP, 0, 0, &pz, &nz, 1, &r), GNN_ORACLE_PASS);
    /* a NaN in the reference is a failure too */
    const float nan1 = NAN;
    ck_assert_int_eq(compare(GNN_CMP_ALLCLOSE, 1, 1, &nan1, &one, 1, &r), GNN_ORACLE_FAIL);
    ck_assert_ptr_nonnull(strstr(r.detail, "NaN in the ref output"));
    /* empty arrays compare equal */
    ck_assert_int_eq(compare(GNN_CMP_BITWISE, 0, 0, a, b, 0, &r), GNN_ORACLE_PASS);
    /* the tolerance names */
    char s[64];
    gnn_oracle_tol_format(&(gnn_oracle_tol){ GNN_CMP_ALLCLOSE, 1e-5, 1e-4 }, s, sizeof s);
    ck_assert_str_eq(s, "allclose(1e-05, 0.0001)");
    gnn_oracle_tol_format(&(gnn_oracle_tol){ GNN_CMP_CHISQ, 1e-4, 0 }, s, sizeof s);
    ck_assert_str_eq(s, "chisq(0.0001)");
    /* outcome order */
    ck_assert_int_eq(gnn_oracle_worst(GNN_ORACLE_PASS, GNN_ORACLE_FAIL), GNN_ORACLE_FAIL);
    ck_assert_int_eq(gnn_oracle_worst(GNN_ORACLE_SKIP, GNN_ORACLE_PASS), GNN_ORACLE_SKIP);
    ck_assert_str_eq(gnn_oracle_outcome_str(GNN_ORACLE_UNSUPPORTED), "UNSUPPORTED");
    /* op name selection */
    ck_assert(gnn_oracle_name_matches("aggregate", "aggregate.mean.fwd"));
    ck_assert(gnn_oracle_name_matches("aggregate.*.bwd", "aggregate.sum.bwd"));
    ck_assert(!gnn_oracle_name_matches("aggregate.mean", "aggregate.meanx"));
    ck_assert(!gnn_oracle_name_matches("grad", "aggregate.mean.fwd"));
}
END_TEST

/* ---- outcomes SKIP and UNSUPPORTED ------------------------------------------------------------- */

static gnn_oracle_outcome skip_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    (void)c;
    return gnn_oracle_skip(ctx, "no GPU in this build");
}
static const gnn_oracle_entry k_skip_entry = {
    .name = "selftest.skip", .what = "skip", .tol = { GNN_CMP_BITWISE, 0, 0 }, .reason = "test",
    .params = k_test_params, .n_params = 1, .presets = k_test_presets, .ref = &k_test_impl, .impls = k_test_impls,
    .run = skip_run,
};

START_TEST(outcomes_skip_unsupported)
{
    int counts[GNN_ORACLE_OUTCOME_COUNT] = { 0 };
    ck_assert_int_eq(gnn_oracle_run_entry(&k_skip_entry, NULL, 3, 1, NULL, NULL, counts), 0);
    ck_assert_int_eq(counts[GNN_ORACLE_SKIP], 3);
    gnn_oracle_case c;
    gnn_oracle_result r;
    gnn_oracle_case_init(&c, &k_skip_entry, &k_test_impl, 0, "n=1", 1, NULL);
    ck_assert_int_eq(gnn_oracle_run(&c, &r), GNN_ORACLE_SKIP);
    ck_assert_str_eq(r.detail, "no GPU in this build");
    tally t;
    run_with_impl("aggregate.mean.fwd", &m_unsupported, 0, 1, &t);
    ck_assert_int_eq(t.counts[GNN_ORACLE_UNSUPPORTED], gnn_oracle_n_presets(gnn_oracle_find("aggregate.mean.fwd")));
    /* threaded implementations run at 1, 2 and 4 threads (4 oversubscribes two cores on
     * purpose), and the case string says so */
    ck_assert_int_eq(gnn_oracle_n_thread_counts, 3);
    ck_assert_int_eq(gnn_oracle_thread_counts[0], 1);
    ck_assert_int_eq(gnn_oracle_thread_counts[1], 2);
    ck_assert_int_eq(gnn_oracle_thread_counts[2], 4);
    memset(counts, 0, sizeof counts);
    const gnn_oracle_entry *e = gnn_oracle_find("aggregate.sum.fwd");
    gnn_oracle_run_entry(e, "cpu", 1, 1, NULL, NULL, counts);
    const int n = counts[GNN_ORACLE_PASS] + counts[GNN_ORACLE_SKIP];
    ck_assert_int_eq(n, gnn_oracle_n_thread_counts * gnn_oracle_n_presets(e));
    ck_assert_int_eq(counts[GNN_ORACLE_SKIP],
                     gnn_oracle_have_openmp() ? 0 : (gnn_oracle_n_thread_counts - 1) * gnn_oracle_n_presets(e));
    gnn_oracle_case c4;
    ck_assert_int_eq(gnn_oracle_case_init(&c4, e, gnn_oracle_find_impl(e, "cpu"), 4, e->presets[0], 1, NULL), GNN_OK);
    char s4[512];
    gnn_oracle_case_format(&c4, s4, sizeof s4);
    ck_assert_ptr_nonnull(strstr(s4, "impl=cpu,threads=4,"));
}
END_TEST

/* ---- gradient checks can fail ------------------------------------------------------------------ */

static void lin_bwd_no_db(const float *x, const float *dy, int64_t n, int64_t in, const float *w, int64_t out,
                          float *dx, float *dw, float *db)
{
    gnn_linear_bwd_ref(x, dy, n, in, w, out, dx, dw, db);
    if (db && out > 0)
        db[0] *= 0.5f;
}
static const gnn_nn_ops k_lin_mutant_ops = { "half-db", 0, gnn_linear_fwd_ref, lin_bwd_no_db };
static const gnn_oracle_impl m_half_db = { "half-db", &k_lin_mutant_ops, 0 };

START_TEST(grad_catches_wrong_backward)
{
    tally t;
    run_with_impl("grad.aggregate.mean", &m_no_scale, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_msg(strstr(t.first_fail, "finite difference vs backward"), "%s", t.first_fail);
    run_with_impl("grad.linear", &m_half_db, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_msg(strstr(t.first_fail, "db"), "%s", t.first_fail);
    /* and the same mutant is also caught by the bitwise entry */
    run_with_impl("linear.bwd", &m_half_db, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
}
END_TEST

/* ---- samplers: chi-square and verify can fail ---------------------------------------------------- */

/* Biased: in every fourth step, a dst whose first CSR neighbor was not drawn gets it instead
 * of its last sample. Still k distinct neighbors: only the distribution is wrong. */
static gnn_status biased_uniform(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                                 gnn_sampled *out)
{
    gnn_status s = gnn_sample_uniform_ref(g, seeds, n_seeds, p, out);
    if (s || p->step % 4)
        return s;
    for (int64_t i = 0; i < n_seeds; i++) {
        const int64_t b = out->offsets[i], e = out->offsets[i + 1];
        const int64_t first = g->indices[g->indptr[seeds[i]]];
        int found = 0;
        for (int64_t j = b; j < e; j++)
            found |= out->nbr_gid[j] == first;
        if (!found && e > b)
            out->nbr_gid[e - 1] = first;
    }
    return s;
}
static const gnn_sample_ops k_biased_ops = { "biased", biased_uniform, gnn_block_build_ref };
static const gnn_oracle_impl m_biased = { "biased", &k_biased_ops, 0 };

/* Repeats: the second sample of each dst copies the first. */
static gnn_status repeating_uniform(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds,
                                    const gnn_sample_params *p, gnn_sampled *out)
{
    gnn_status s = gnn_sample_uniform_ref(g, seeds, n_seeds, p, out);
    for (int64_t i = 0; !s && i < n_seeds; i++)
        if (out->offsets[i + 1] - out->offsets[i] >= 2)
            out->nbr_gid[out->offsets[i] + 1] = out->nbr_gid[out->offsets[i]];
    return s;
}
static const gnn_sample_ops k_repeating_ops = { "repeating", repeating_uniform, gnn_block_build_ref };
static const gnn_oracle_impl m_repeating = { "repeating", &k_repeating_ops, 0 };

/* Non-deterministic: every call uses the next step. */
static gnn_status drifting_uniform(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                                   gnn_sampled *out)
{
    static uint32_t calls;
    gnn_sample_params q = *p;
    q.step += calls++;
    return gnn_sample_uniform_ref(g, seeds, n_seeds, &q, out);
}
static const gnn_sample_ops k_drifting_ops = { "drifting", drifting_uniform, gnn_block_build_ref };
static const gnn_oracle_impl m_drifting = { "drifting", &k_drifting_ops, 0 };

START_TEST(chisq_pvalue_known)
{
    /* 0.95 quantiles of chi-square (any table): p = 0.05 */
    ck_assert_double_eq_tol(gnn_oracle_chisq_pvalue(3.841458820694124, 1), 0.05, 1e-9);
    ck_assert_double_eq_tol(gnn_oracle_chisq_pvalue(18.307038053275146, 10), 0.05, 1e-9);
    ck_assert_double_eq_tol(gnn_oracle_chisq_pvalue(124.34211340400407, 100), 0.05, 1e-9);
    /* closed forms for even dof: Q(1, x/2) = e^-x/2 (so -2 ln 1e-4 has p = 1e-4, the alpha of
     * sample.uniform.dist) and Q(2, x/2) = e^-x/2 (1 + x/2) */
    ck_assert_double_eq_tol(gnn_oracle_chisq_pvalue(-2.0 * log(1e-4), 2), 1e-4, 1e-15);
    for (double x = 0.5; x < 80; x *= 1.7)
        ck_assert_double_eq_tol(gnn_oracle_chisq_pvalue(x, 4), exp(-x / 2) * (1 + x / 2), 1e-13);
    /* Q(1, x) = e^-x, on both sides of the series / continued-fraction switch */
    for (double x = 0.25; x < 40; x *= 2)
        ck_assert_double_eq_tol(gnn_oracle_gamma_q(1.0, x), exp(-x), 1e-12 * exp(-x) + 1e-300);
    /* Q(1/2, x) = erfc(sqrt(x)) */
    for (double x = 0.1; x < 30; x *= 3)
        ck_assert_double_eq_tol(gnn_oracle_gamma_q(0.5, x), erfc(sqrt(x)), 1e-12);
    ck_assert(gnn_oracle_chisq_pvalue(0, 5) == 1.0);
    ck_assert(gnn_oracle_chisq_pvalue(1e4, 10) < 1e-100);
    ck_assert(isnan(gnn_oracle_gamma_q(0, 1)));
}
END_TEST

START_TEST(chisq_rejects_biased_sampler)
{
    tally t;
    run_with_impl("sample.uniform.dist", &m_biased, 0, 1, &t);
    const int n_presets = gnn_oracle_n_presets(gnn_oracle_find("sample.uniform.dist"));
    /* Every preset but one rejects it. The exception is deg=17,fanout=16: there the first
     * neighbor is missing from only 1 step in 17, so the mutant moves ~30 of ~1900 draws per
     * vertex -- a chi-square contribution of ~7 per vertex against 64 degrees of freedom,
     * far from alpha = 1e-4. That preset exists for the k = d - 1 edge of the variance
     * formula, not for power. */
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] >= n_presets - 1, "biased sampler: %d of %d presets failed",
                  t.counts[GNN_ORACLE_FAIL], n_presets);
    ck_assert_msg(strstr(t.first_fail, "not distributed as expected") && strstr(t.first_fail, "p = "), "%s",
                  t.first_fail);
}
END_TEST

START_TEST(verify_catches_broken_sampler)
{
    tally t;
    run_with_impl("sample.uniform", &m_repeating, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_msg(strstr(t.first_fail, "drawn twice") || strstr(t.first_fail, "CSR order"), "%s", t.first_fail);
    run_with_impl("sample.uniform", &m_drifting, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
}
END_TEST

/* ---- block builder: verify and the canonical comparator ------------------------------------------ */

/* An unordered ID map: new src renumbered by descending global id (what a hash map with
 * atomics might give), edges remapped consistently. Correct up to relabeling. */
static gnn_status build_descending(const gnn_sampled *s, gnn_block *out)
{
    gnn_status st = gnn_block_build_ref(s, out);
    if (st)
        return st;
    const int64_t nd = out->n_dst, nn = out->n_src - nd;
    int32_t *relabel = malloc((size_t)out->n_src * sizeof(int32_t) + 1);
    int64_t *gid = malloc((size_t)out->n_src * sizeof(int64_t) + 1);
    for (int64_t i = 0; i < out->n_src; i++)
        relabel[i] = (int32_t)i;
    /* selection sort descending on a copy: tests are small */
    memcpy(gid, out->src_gid, (size_t)out->n_src * sizeof(int64_t));
    int64_t *order = malloc((size_t)nn * sizeof(int64_t) + 1);
    for (int64_t p = 0; p < nn; p++)
        order[p] = nd + p;
    for (int64_t a = 0; a < nn; a++)
        for (int64_t b = a + 1; b < nn; b++)
            if (gid[order[b]] > gid[order[a]]) {
                int64_t t = order[a];
                order[a] = order[b];
                order[b] = t;
            }
    for (int64_t r = 0; r < nn; r++) {
        relabel[order[r]] = (int32_t)(nd + r);
        out->src_gid[nd + r] = gid[order[r]];
    }
    for (int64_t e = 0; e < out->nnz; e++)
        out->indices[e] = relabel[out->indices[e]];
    free(relabel);
    free(gid);
    free(order);
    return GNN_OK;
}
static const gnn_sample_ops k_desc_ops = { "descending", gnn_sample_uniform_ref, build_descending };
static const gnn_oracle_impl m_descending = { "descending", &k_desc_ops, 0 };

START_TEST(verify_catches_broken_builder)
{
    tally t;
    run_with_impl("block.build", &m_descending, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_msg(strstr(t.first_fail, "order of first appearance"), "%s", t.first_fail);
}
END_TEST

static struct {
    gnn_oracle_cmp cmp;
    const gnn_block *a, *b;
} g_blk;

static gnn_oracle_outcome blk_entry_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    (void)c;
    return gnn_oracle_compare_block(ctx, g_blk.cmp, "block", g_blk.a, g_blk.b);
}
static const gnn_oracle_entry k_blk_entry = {
    .name = "selftest.block", .what = "block comparator self-test", .tol = { GNN_CMP_CANONICAL, 0, 0 },
    .reason = "test", .params = k_test_params, .n_params = 1, .presets = k_test_presets, .ref = &k_test_impl,
    .impls = k_test_impls, .run = blk_entry_run,
};

static gnn_oracle_outcome compare_blocks(gnn_oracle_cmp cmp, const gnn_block *a, const gnn_block *b,
                                         gnn_oracle_result *r)
{
    g_blk.cmp = cmp;
    g_blk.a = a;
    g_blk.b = b;
    gnn_oracle_case c;
    gnn_oracle_case_init(&c, &k_blk_entry, &k_test_impl, 0, "n=1", 1, NULL);
    return gnn_oracle_run(&c, r);
}

START_TEST(canonical_relabel)
{
    /* seeds 10, 20; samples: 10 -> (7, 30, 7), 20 -> (30, 5, 10) */
    int64_t dst[] = { 10, 20 }, off[] = { 0, 3, 6 }, nbr[] = { 7, 30, 7, 30, 5, 10 };
    gnn_sampled s = { .n_dst = 2, .nnz = 6, .dst_gid = dst, .offsets = off, .nbr_gid = nbr };
    gnn_block ref, desc, canon;
    ck_assert_int_eq(gnn_block_build_ref(&s, &ref), GNN_OK);
    ck_assert_int_eq(build_descending(&s, &desc), GNN_OK);
    /* first appearance: 7, 30, 5; descending: 30, 7, 5; canonical (ascending): 5, 7, 30 */
    ck_assert_int_eq(ref.src_gid[2], 7);
    ck_assert_int_eq(ref.src_gid[3], 30);
    ck_assert_int_eq(ref.src_gid[4], 5);
    ck_assert_int_eq(gnn_oracle_block_canonical(&ref, &canon), GNN_OK);
    ck_assert_int_eq(canon.src_gid[0], 10);
    ck_assert_int_eq(canon.src_gid[1], 20);
    ck_assert_int_eq(canon.src_gid[2], 5);
    ck_assert_int_eq(canon.src_gid[3], 7);
    ck_assert_int_eq(canon.src_gid[4], 30);
    for (int64_t e = 0; e < 6; e++) /* the relabel round trip holds */
        ck_assert_int_eq(canon.src_gid[canon.indices[e]], nbr[e]);
    gnn_block_free(&canon);
    gnn_oracle_result r;
    ck_assert_int_eq(compare_blocks(GNN_CMP_BITWISE, &ref, &ref, &r), GNN_ORACLE_PASS);
    ck_assert_int_eq(compare_blocks(GNN_CMP_BITWISE, &ref, &desc, &r), GNN_ORACLE_FAIL);
    ck_assert_ptr_nonnull(strstr(r.detail, "block.src_gid"));
    ck_assert_int_eq(compare_blocks(GNN_CMP_CANONICAL, &ref, &desc, &r), GNN_ORACLE_PASS);
    /* a wrong edge is not a relabeling */
    desc.indices[5] = desc.indices[4];
    ck_assert_int_eq(compare_blocks(GNN_CMP_CANONICAL, &ref, &desc, &r), GNN_ORACLE_FAIL);
    ck_assert_ptr_nonnull(strstr(r.detail, "block.indices"));
    desc.n_src--;
    ck_assert_int_eq(compare_blocks(GNN_CMP_CANONICAL, &ref, &desc, &r), GNN_ORACLE_FAIL);
    ck_assert_ptr_nonnull(strstr(r.detail, "sizes differ"));
    gnn_block_free(&ref);
    gnn_block_free(&desc);
}
END_TEST

/* ---- weighted samplers: chi-square can fail ------------------------------------------------------ */

/* The reference sampler for either kind of parameters (as the oracle's sampler entries use it). */
static gnn_status sample_any(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                             gnn_sampled *out)
{
    if (p->weights)
        return gnn_sample_weighted_ref(g, seeds, n_seeds, p, out);
    return gnn_sample_uniform_ref(g, seeds, n_seeds, p, out);
}
static const gnn_sample_ops k_any_ops = { "ref", sample_any, gnn_block_build_ref };
static const gnn_sample_ops k_any_desc_ops = { "descending", sample_any, build_descending };

/* The weights squared: still only positive-weight neighbors, the right counts, no repeats;
 * only the distribution is wrong. */
static gnn_status squared_weighted(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds,
                                   const gnn_sample_params *p, gnn_sampled *out)
{
    float *w2 = malloc((size_t)g->nnz * sizeof(float) + 1);
    for (int64_t e = 0; e < g->nnz; e++)
        w2[e] = p->weights[e] * p->weights[e];
    gnn_sample_params q = *p;
    q.weights = w2;
    gnn_status s = gnn_sample_weighted_ref(g, seeds, n_seeds, &q, out);
    free(w2);
    return s;
}
static const gnn_sample_ops k_squared_ops = { "squared", squared_weighted, gnn_block_build_ref };
static const gnn_oracle_impl m_squared = { "squared", &k_squared_ops, 0 };

/* The classic wrong weighted reservoir: keep the k largest u * w instead of u^(1/w) (without
 * replacement; with replacement it defers to the reference). For k = 1 it already favours
 * heavy neighbors more than w_i / W. */
static gnn_status linear_keys(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                              gnn_sampled *out)
{
    if (p->replace)
        return gnn_sample_weighted_ref(g, seeds, n_seeds, p, out);
    memset(out, 0, sizeof *out);
    out->n_dst = n_seeds;
    out->dst_gid = malloc((size_t)n_seeds * sizeof(int64_t) + 1);
    out->offsets = malloc(((size_t)n_seeds + 1) * sizeof(int64_t));
    out->offsets[0] = 0;
    for (int64_t i = 0; i < n_seeds; i++) {
        const int64_t v = seeds[i];
        int64_t pos = 0;
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++)
            pos += p->weights[e] > 0;
        out->dst_gid[i] = v;
        out->offsets[i + 1] = out->offsets[i] + (p->fanout < 0 || p->fanout > pos ? pos : p->fanout);
    }
    out->nnz = out->offsets[n_seeds];
    out->nbr_gid = malloc((size_t)out->nnz * sizeof(int64_t) + 1);
    for (int64_t i = 0; i < n_seeds; i++) {
        const int64_t v = seeds[i], b = g->indptr[v], d = g->indptr[v + 1] - b;
        const gnn_rng_stream st = gnn_rng_stream_make(p->seed, GNN_TAG_SAMPLE, p->step, p->layer, (uint64_t)v);
        double *key = malloc((size_t)d * sizeof(double) + 1);
        for (int64_t j = 0; j < d; j++)
            key[j] = p->weights[b + j] > 0 ? ((double)gnn_rng_float(&st, (uint64_t)j) + 0x1p-25) * p->weights[b + j] : -1;
        for (int64_t t = out->offsets[i]; t < out->offsets[i + 1]; t++) {
            int64_t best = -1;
            for (int64_t j = 0; j < d; j++)
                if (key[j] > 0 && (best < 0 || key[j] > key[best]))
                    best = j;
            key[best] = -1;
            out->nbr_gid[t] = g->indices[b + best];
        }
        free(key);
    }
    return GNN_OK;
}
static const gnn_sample_ops k_linear_keys_ops = { "linear-keys", linear_keys, gnn_block_build_ref };
static const gnn_oracle_impl m_linear_keys = { "linear-keys", &k_linear_keys_ops, 0 };

/* The right sets in the wrong order: each dst's samples reversed (increasing keys). */
static gnn_status reversed_weighted(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds,
                                    const gnn_sample_params *p, gnn_sampled *out)
{
    gnn_status s = gnn_sample_weighted_ref(g, seeds, n_seeds, p, out);
    for (int64_t i = 0; !s && i < n_seeds; i++)
        for (int64_t a = out->offsets[i], b = out->offsets[i + 1] - 1; a < b; a++, b--) {
            const int64_t t = out->nbr_gid[a];
            out->nbr_gid[a] = out->nbr_gid[b];
            out->nbr_gid[b] = t;
        }
    return s;
}
static const gnn_sample_ops k_reversed_ops = { "reversed", reversed_weighted, gnn_block_build_ref };
static const gnn_oracle_impl m_reversed_w = { "reversed", &k_reversed_ops, 0 };

START_TEST(chisq_rejects_biased_weighted)
{
    tally t;
    const int n_presets = gnn_oracle_n_presets(gnn_oracle_find("sample.weighted.dist"));
    /* every preset but the one where fanout >= the positive weights (nothing random) */
    run_with_impl("sample.weighted.dist", &m_squared, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] == n_presets - 1, "squared weights: %d of %d presets failed; first:\n%s",
                  t.counts[GNN_ORACLE_FAIL], n_presets, t.first_fail);
    ck_assert_msg(strstr(t.first_fail, "not distributed as expected"), "%s", t.first_fail);
    /* wrong keys: the six presets that draw k < #positive without replacement (k = 1 on two
     * degrees, k-sets and ordered k-tuples for k = 2 and 3) reject it */
    run_with_impl("sample.weighted.dist", &m_linear_keys, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] == 6, "linear keys: %d presets failed", t.counts[GNN_ORACLE_FAIL]);
    ck_assert_msg(strstr(t.first_fail, "not distributed as expected"), "%s", t.first_fail);
    /* the right sets in increasing-key order: only the two ordered-tuple presets can tell */
    run_with_impl("sample.weighted.dist", &m_reversed_w, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] == 2, "reversed order: %d presets failed", t.counts[GNN_ORACLE_FAIL]);
    ck_assert_msg(strstr(t.first_fail, "ordered k-tuple counts"), "%s", t.first_fail);
    run_with_impl("sample.weighted", &m_squared, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] == 0, "%s", t.first_fail);
}
END_TEST

/* ---- ID maps: bitwise and canonical ------------------------------------------------------------ */

/* Mutant ID map tables: the reference map (gnn_idmap_build has checked the ids), then a wrong
 * relabelling. They keep no state and ignore the kind. */
static gnn_status m_idmap_create(void **state, gnn_idmap_kind kind, int64_t n_vertices)
{
    *state = NULL;
    return GNN_OK;
}
static void m_idmap_destroy(void *state) {}

/* The first two new local ids swapped, consistently: a correct map up to relabelling. */
static gnn_status idmap_swap(void *state, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                             int32_t *local, int64_t *src_gid, int64_t *n_src)
{
    gnn_status s = gnn_idmap_build_ref(dst, n_dst, nbr, nnz, local, src_gid, n_src);
    if (s || *n_src < n_dst + 2)
        return s;
    const int32_t a = (int32_t)n_dst, b = (int32_t)n_dst + 1;
    const int64_t t = src_gid[a];
    src_gid[a] = src_gid[b];
    src_gid[b] = t;
    for (int64_t e = 0; e < nnz; e++)
        local[e] = local[e] == a ? b : local[e] == b ? a : local[e];
    return GNN_OK;
}
/* The second new vertex merged into the first (its id left unused): not a bijection. */
static gnn_status idmap_merge(void *state, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                              int32_t *local, int64_t *src_gid, int64_t *n_src)
{
    gnn_status s = gnn_idmap_build_ref(dst, n_dst, nbr, nnz, local, src_gid, n_src);
    for (int64_t e = 0; !s && e < nnz; e++)
        if (local[e] == n_dst + 1)
            local[e] = (int32_t)n_dst;
    return s;
}
static const gnn_idmap_ops k_swap_ops = { "swap", 0, m_idmap_create, idmap_swap, m_idmap_destroy };
static const gnn_idmap_ops k_merge_ops = { "merge", 0, m_idmap_create, idmap_merge, m_idmap_destroy };
static const gnn_oracle_impl m_idmap_swap = { "swap", &k_swap_ops, 0 }, m_idmap_merge = { "merge", &k_merge_ops, 0 };

static struct {
    gnn_oracle_cmp cmp;
    int64_t n_dst, nnz, ref_n_src, impl_n_src;
    const int32_t *ref_local, *impl_local;
    const int64_t *ref_gid, *impl_gid;
} g_map;

static gnn_oracle_outcome map_entry_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    (void)c;
    return gnn_oracle_compare_idmap(ctx, g_map.cmp, "map", g_map.n_dst, g_map.nnz, g_map.ref_local, g_map.ref_gid,
                                    g_map.ref_n_src, g_map.impl_local, g_map.impl_gid, g_map.impl_n_src);
}
static const gnn_oracle_entry k_map_entry = {
    .name = "selftest.idmap", .what = "ID-map comparator self-test", .tol = { GNN_CMP_CANONICAL, 0, 0 },
    .reason = "test", .params = k_test_params, .n_params = 1, .presets = k_test_presets, .ref = &k_test_impl,
    .impls = k_test_impls, .run = map_entry_run,
};

static gnn_oracle_outcome compare_maps(gnn_oracle_cmp cmp, const int32_t *impl_local, const int64_t *impl_gid,
                                       int64_t impl_n_src, gnn_oracle_result *r)
{
    /* dst 10, 20; neighbors 7, 30, 7, 30, 5, 10: reference local ids 2 3 2 3 4 0 */
    static const int32_t ref_local[] = { 2, 3, 2, 3, 4, 0 };
    static const int64_t ref_gid[] = { 10, 20, 7, 30, 5 };
    g_map.cmp = cmp;
    g_map.n_dst = 2;
    g_map.nnz = 6;
    g_map.ref_n_src = 5;
    g_map.ref_local = ref_local;
    g_map.ref_gid = ref_gid;
    g_map.impl_local = impl_local;
    g_map.impl_gid = impl_gid;
    g_map.impl_n_src = impl_n_src;
    gnn_oracle_case c;
    gnn_oracle_case_init(&c, &k_map_entry, &k_test_impl, 0, "n=1", 1, NULL);
    return gnn_oracle_run(&c, r);
}

START_TEST(idmap_canonical_comparator)
{
    gnn_oracle_result r;
    const int32_t same[] = { 2, 3, 2, 3, 4, 0 }, swapped[] = { 3, 2, 3, 2, 4, 0 }, rotated[] = { 4, 2, 4, 2, 3, 0 };
    const int64_t gid[] = { 10, 20, 7, 30, 5 }, gid_swapped[] = { 10, 20, 30, 7, 5 }, gid_rot[] = { 10, 20, 30, 5, 7 };
    ck_assert_int_eq(compare_maps(GNN_CMP_BITWISE, same, gid, 5, &r), GNN_ORACLE_PASS);
    ck_assert_int_eq(compare_maps(GNN_CMP_CANONICAL, same, gid, 5, &r), GNN_ORACLE_PASS);
    /* two new ids swapped: bitwise sees it, canonical accepts it */
    ck_assert_int_eq(compare_maps(GNN_CMP_BITWISE, swapped, gid_swapped, 5, &r), GNN_ORACLE_FAIL);
    ck_assert_msg(strstr(r.detail, "map.local") && strstr(r.detail, "elements differ"), "%s", r.detail);
    ck_assert_int_eq(compare_maps(GNN_CMP_CANONICAL, swapped, gid_swapped, 5, &r), GNN_ORACLE_PASS);
    ck_assert_int_eq(compare_maps(GNN_CMP_CANONICAL, rotated, gid_rot, 5, &r), GNN_ORACLE_PASS);
    /* a relabelling of local ids without the matching src_gid is a wrong map */
    ck_assert_int_eq(compare_maps(GNN_CMP_CANONICAL, swapped, gid, 5, &r), GNN_ORACLE_FAIL);
    ck_assert_msg(strstr(r.detail, "map.src_gid"), "%s", r.detail);
    /* dst must keep their ids */
    const int32_t dst_moved[] = { 2, 3, 2, 3, 4, 1 };
    ck_assert_int_eq(compare_maps(GNN_CMP_CANONICAL, dst_moved, gid, 5, &r), GNN_ORACLE_FAIL);
    /* not a bijection: one global id under two local ids; an unused id; an id out of range */
    const int64_t gid_dup[] = { 10, 20, 7, 7, 5 };
    ck_assert_int_eq(compare_maps(GNN_CMP_CANONICAL, same, gid_dup, 5, &r), GNN_ORACLE_FAIL);
    ck_assert_msg(strstr(r.detail, "two local ids") && strstr(r.detail, "not a bijection"), "%s", r.detail);
    const int32_t merged[] = { 2, 2, 2, 2, 4, 0 };
    ck_assert_int_eq(compare_maps(GNN_CMP_CANONICAL, merged, gid, 5, &r), GNN_ORACLE_FAIL);
    ck_assert_msg(strstr(r.detail, "never used") && strstr(r.detail, "not a bijection"), "%s", r.detail);
    const int32_t wild[] = { 2, 3, 2, 3, 5, 0 };
    ck_assert_int_eq(compare_maps(GNN_CMP_CANONICAL, wild, gid, 5, &r), GNN_ORACLE_FAIL);
    ck_assert_msg(strstr(r.detail, "outside [0, n_src = 5)"), "%s", r.detail);
    ck_assert_int_eq(compare_maps(GNN_CMP_CANONICAL, same, gid, 4, &r), GNN_ORACLE_FAIL);
    ck_assert_msg(strstr(r.detail, "n_src differs"), "%s", r.detail);
}
END_TEST

START_TEST(idmap_entries_catch_wrong_maps)
{
    tally t;
    const int n_presets = gnn_oracle_n_presets(gnn_oracle_find("idmap.build"));
    /* swapped new ids: the bitwise entry fails, the canonical one passes every preset */
    run_with_impl("idmap.build", &m_idmap_swap, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_msg(strstr(t.first_fail, ".local") && strstr(t.first_fail, "elements differ (bitwise)"), "%s",
                  t.first_fail);
    run_with_impl("idmap.fused", &m_idmap_swap, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_PASS] == n_presets, "%d of %d passed; first:\n%s", t.counts[GNN_ORACLE_PASS],
                  n_presets, t.first_fail);
    /* two vertices merged: canonical rejects it */
    run_with_impl("idmap.fused", &m_idmap_merge, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_msg(strstr(t.first_fail, "not a bijection"), "%s", t.first_fail);
}
END_TEST

/* ---- samplers against the reference pipeline ------------------------------------------------------ */

/* Mutant sampler tables: the object is the graph itself; layer and blocks run the reference
 * pipeline (sample_any, then a block builder) and break the result. */
static gnn_status m_sampler_create(void **state, const gnn_csr *g, const gnn_sampler_options *o)
{
    *state = (void *)g;
    return GNN_OK;
}
static void m_sampler_destroy(void *state) {}

/* The reference layer with its last edge pointing at the next local id. */
static gnn_status layer_edge_off(void *state, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                                 gnn_block *out)
{
    gnn_sampled s;
    gnn_status st = sample_any(state, seeds, n_seeds, p, &s);
    if (st)
        return st;
    st = gnn_block_build_ref(&s, out);
    gnn_sampled_free(&s);
    if (!st && out->nnz > 0 && out->n_src > 1)
        out->indices[out->nnz - 1] = (int32_t)((out->indices[out->nnz - 1] + 1) % out->n_src);
    return st;
}
/* An unordered ID map: new src by descending global id (build_descending above). */
static gnn_status layer_descending(void *state, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                                   gnn_block *out)
{
    gnn_sampled s;
    gnn_status st = sample_any(state, seeds, n_seeds, p, &s);
    if (st)
        return st;
    st = build_descending(&s, out);
    gnn_sampled_free(&s);
    return st;
}
/* L layers through the descending map: every layer's dst are the (unordered) src above. */
static gnn_status blocks_descending(void *state, const int64_t *seeds, int64_t n_seeds, const int64_t *fanouts, int L,
                                    const gnn_sample_params *base, gnn_block *blocks)
{
    return gnn_sample_blocks(&k_any_desc_ops, state, seeds, n_seeds, fanouts, L, base, blocks);
}
/* The reference blocks with the last edge of the input layer pointing at the next local id. */
static gnn_status blocks_edge_off(void *state, const int64_t *seeds, int64_t n_seeds, const int64_t *fanouts, int L,
                                  const gnn_sample_params *base, gnn_block *blocks)
{
    gnn_status st = gnn_sample_blocks(&k_any_ops, state, seeds, n_seeds, fanouts, L, base, blocks);
    gnn_block *b = &blocks[0];
    if (!st && b->nnz > 0 && b->n_src > 1)
        b->indices[b->nnz - 1] = (int32_t)((b->indices[b->nnz - 1] + 1) % b->n_src);
    return st;
}
/* The reference blocks with the first two dst of the input layer swapped together with their
 * rows and every edge to them: a valid relabelling of that block, but its dst no longer follow
 * the src order of the block above. */
static gnn_status blocks_chain_broken(void *state, const int64_t *seeds, int64_t n_seeds, const int64_t *fanouts,
                                      int L, const gnn_sample_params *base, gnn_block *blocks)
{
    gnn_status st = gnn_sample_blocks(&k_any_ops, state, seeds, n_seeds, fanouts, L, base, blocks);
    gnn_block *b = &blocks[0];
    if (st || b->n_dst < 2)
        return st;
    int32_t *idx = malloc((size_t)b->nnz * sizeof(int32_t) + 1);
    const int64_t d0 = b->indptr[1] - b->indptr[0], d1 = b->indptr[2] - b->indptr[1];
    memcpy(idx, b->indices + b->indptr[1], (size_t)d1 * sizeof(int32_t));
    memcpy(idx + d1, b->indices, (size_t)d0 * sizeof(int32_t));
    memcpy(idx + d0 + d1, b->indices + b->indptr[2], (size_t)(b->nnz - b->indptr[2]) * sizeof(int32_t));
    for (int64_t e = 0; e < b->nnz; e++)
        b->indices[e] = idx[e] == 0 ? 1 : idx[e] == 1 ? 0 : idx[e];
    b->indptr[1] = d1;
    const int64_t t = b->src_gid[0];
    b->src_gid[0] = b->src_gid[1];
    b->src_gid[1] = t;
    free(idx);
    return st;
}
#define MUTANT_SAMPLER(name_, layer_, blocks_)                                                                      \
    { .name = name_, .caps = 0, .create = m_sampler_create, .layer = layer_, .blocks = blocks_,                     \
      .destroy = m_sampler_destroy }
static const gnn_sampler_ops k_layer_edge_ops = MUTANT_SAMPLER("edge-off", layer_edge_off, blocks_edge_off);
static const gnn_sampler_ops k_layer_desc_ops = MUTANT_SAMPLER("descending", layer_descending, blocks_descending);
static const gnn_sampler_ops k_chain_ops = MUTANT_SAMPLER("chain", layer_edge_off, blocks_chain_broken);
static const gnn_oracle_impl m_edge_off = { "edge-off", &k_layer_edge_ops, 0 };
static const gnn_oracle_impl m_unordered = { "descending", &k_layer_desc_ops, 0 };
static const gnn_oracle_impl m_chain = { "chain", &k_chain_ops, 0 };

START_TEST(sampler_entries_catch_wrong_blocks)
{
    tally t;
    /* one edge relabelled: caught bitwise and canonically, one layer or many */
    static const char *const all[] = { "sample.layer", "sample.layer.fusedmap", "sample.blocks",
                                       "sample.blocks.fusedmap", NULL };
    for (int i = 0; all[i]; i++) {
        run_with_impl(all[i], &m_edge_off, 0, 1, &t);
        ck_assert_msg(t.counts[GNN_ORACLE_FAIL] > 0, "%s: a relabelled edge went unnoticed", all[i]);
        ck_assert_msg(strstr(t.first_fail, ".indices") && strstr(t.first_fail, "elements differ"), "%s: %s", all[i],
                      t.first_fail);
    }
    /* an unordered ID map: bitwise fails, canonical accepts it on every preset, including the
     * lower layers whose dst order is the unordered src order above */
    static const char *const pairs[][2] = { { "sample.layer", "sample.layer.fusedmap" },
                                            { "sample.blocks", "sample.blocks.fusedmap" } };
    for (int i = 0; i < 2; i++) {
        run_with_impl(pairs[i][0], &m_unordered, 0, 1, &t);
        ck_assert_msg(t.counts[GNN_ORACLE_FAIL] > 0, "%s: an unordered map passed bitwise", pairs[i][0]);
        ck_assert_msg(strstr(t.first_fail, ".src_gid"), "%s", t.first_fail);
        run_with_impl(pairs[i][1], &m_unordered, 0, 1, &t);
        const int n_presets = gnn_oracle_n_presets(gnn_oracle_find(pairs[i][1]));
        ck_assert_msg(t.counts[GNN_ORACLE_PASS] == n_presets, "%s: %d of %d passed; first:\n%s", pairs[i][1],
                      t.counts[GNN_ORACLE_PASS], n_presets, t.first_fail);
    }
    /* a block whose dst are not the src of the block above, in order */
    run_with_impl("sample.blocks.fusedmap", &m_chain, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_msg(strstr(t.first_fail, "the src of the block above"), "%s", t.first_fail);
}
END_TEST

/* ---- mutants of index_add and weighted aggregation ----------------------------------------- */

/* each out row receives its additions in DESCENDING i: the same terms, another rounding (what
 * an unstable sort of idx would do) */
static gnn_status ia_reversed(float *out, int64_t n_out, int64_t d, const int64_t *idx, const float *src, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (idx[i] < 0 || idx[i] >= n_out)
            return GNN_ERR_RANGE;
    for (int64_t i = n - 1; i >= 0; i--)
        for (int64_t f = 0; f < d; f++)
            out[idx[i] * d + f] += src[i * d + f];
    return GNN_OK;
}
/* adds everything valid up to the bad index, then reports the range error: a body that
 * checks too late, which the entry point gnn_index_add_run keeps from ever seeing a bad index */
static gnn_status ia_partial(float *out, int64_t n_out, int64_t d, const int64_t *idx, const float *src, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        if (idx[i] < 0 || idx[i] >= n_out)
            return GNN_ERR_RANGE;
        for (int64_t f = 0; f < d; f++)
            out[idx[i] * d + f] += src[i * d + f];
    }
    return GNN_OK;
}
static const gnn_index_add_ops m_ia_reversed_ops = { "ia_reversed", 0, ia_reversed };
static const gnn_oracle_impl m_ia_reversed = { "ia_reversed", &m_ia_reversed_ops, 0 };
static const gnn_index_add_ops m_ia_partial_ops = { "ia_partial", 0, ia_partial };
static const gnn_oracle_impl m_ia_partial = { "ia_partial", &m_ia_partial_ops, 0 };

/* dw summed over f in reverse order */
static gnn_status wbwd_dw_reversed(const gnn_block *b, const float *x, const float *dout, int64_t d, const float *w,
                                   float *dx, float *dw)
{
    gnn_status s = gnn_aggregate_ref.weighted_backward(b, x, dout, d, w, dx, NULL);
    if (s || !dw)
        return s;
    for (int64_t v = 0; v < b->n_dst; v++)
        for (int64_t e = b->indptr[v]; e < b->indptr[v + 1]; e++) {
            float acc = 0.0f;
            for (int64_t f = d - 1; f >= 0; f--)
                acc += dout[v * d + f] * x[(int64_t)b->indices[e] * d + f];
            dw[e] = acc;
        }
    return GNN_OK;
}
/* GCN backward that uses only the dst degree (forgets ds(u)^-1/2) */
static gnn_status gcn_bwd_dst_only(const gnn_block *b, const float *dout, int64_t d, gnn_agg_kind k, float *dx)
{
    (void)k;
    memset(dx, 0, (size_t)(b->n_src * d) * sizeof(float));
    for (int64_t v = 0; v < b->n_dst; v++) {
        const int64_t deg = b->indptr[v + 1] - b->indptr[v];
        for (int64_t e = b->indptr[v]; e < b->indptr[v + 1]; e++)
            for (int64_t f = 0; f < d; f++)
                dx[(int64_t)b->indices[e] * d + f] += dout[v * d + f] * (1.0f / sqrtf((float)deg));
    }
    return GNN_OK;
}
static const gnn_aggregate_ops m_w_dw_rev_ops = { "w_dw_reversed", 0, NULL, NULL, NULL, wbwd_dw_reversed };
static const gnn_oracle_impl m_w_dw_rev = { "w_dw_reversed", &m_w_dw_rev_ops, 0 };
static const gnn_aggregate_ops m_gcn_dst_ops = { "gcn_dst_only", 0, ref_fwd, gcn_bwd_dst_only, NULL, NULL };
static const gnn_oracle_impl m_gcn_dst = { "gcn_dst_only", &m_gcn_dst_ops, 0 };

START_TEST(index_add_and_weighted_entries_catch_mutants)
{
    tally t;
    run_with_impl("index_add", &m_ia_reversed, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] > 0, "additions in descending i went unnoticed");
    ck_assert_ptr_nonnull(strstr(t.first_fail, "elements differ (bitwise)"));
    /* every index is checked by the entry point (core/kernels.c) before the body runs, so
     * even a body that writes before its own range check leaves out unchanged */
    run_with_impl("index_add", &m_ia_partial, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] == 0, "the entry point let a bad index through: %s", t.first_fail);
    run_with_impl("aggregate.weighted.bwd", &m_w_dw_rev, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] > 0, "dw summed in reverse went unnoticed");
    ck_assert_ptr_nonnull(strstr(t.first_fail, "dw"));
    run_with_impl("grad.aggregate.gcn", &m_gcn_dst, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] > 0, "a GCN backward without ds(u) went unnoticed");
}
END_TEST

Suite *suite_oracle(void)
{
    Suite *s = suite_create("oracle");
    /* tag "registry": the make tiers exclude this tcase (CK_EXCLUDE_TAGS) where `gnnref oracle`
     * already runs every entry through the same gnn_oracle_run_entry, natively and under ASan
     * (docs/building.md); CK_INCLUDE_TAGS=registry runs it alone */
    TCase *reg = tcase_create("registry");
    tcase_set_tags(reg, "cpu registry");
    tcase_set_timeout(reg, 120);
    tcase_add_loop_test(reg, registry_entry, 0, n_registry());
    suite_add_tcase(s, reg);

    TCase *wf = tcase_create("well_formed");
    tcase_set_tags(wf, "cpu");
    tcase_set_timeout(wf, 60);
    tcase_add_test(wf, registry_well_formed);
    suite_add_tcase(s, wf);

    TCase *h = tcase_create("harness");
    tcase_set_tags(h, "cpu");
    tcase_set_timeout(h, 60);
    tcase_add_test(h, replay_reproduces);
    tcase_add_test(h, malformed_case_strings);
    tcase_add_test(h, cli_exit_codes);
    tcase_add_test(h, bitwise_catches_wrong_impl);
    tcase_add_test(h, guard_catches_oob);
    tcase_add_test(h, nan_fails);
    tcase_add_test(h, inf_must_match);
    tcase_add_test(h, comparators);
    tcase_add_test(h, outcomes_skip_unsupported);
    tcase_add_test(h, grad_catches_wrong_backward);
    tcase_add_test(h, chisq_pvalue_known);
    tcase_add_test(h, chisq_rejects_biased_sampler);
    tcase_add_test(h, verify_catches_broken_sampler);
    tcase_add_test(h, verify_catches_broken_builder);
    tcase_add_test(h, canonical_relabel);
    tcase_add_test(h, chisq_rejects_biased_weighted);
    tcase_add_test(h, idmap_canonical_comparator);
    tcase_add_test(h, idmap_entries_catch_wrong_maps);
    tcase_add_test(h, sampler_entries_catch_wrong_blocks);
    tcase_add_test(h, index_add_and_weighted_entries_catch_mutants);
    suite_add_tcase(s, h);
    return s;
}
