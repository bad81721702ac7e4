/* tests/test_oracle.c -- the oracle registry as a Check suite, and self-tests of the harness
 * with the kernels' mutants (the sampling pipeline's are in tests/test_oracle_sampling.c).
 *
 * tcase "registry" (tags cpu, registry): one test per registry entry (tcase_add_loop_test),
 *   every implementation, every preset, two seeds; any FAIL fails the test with the case string
 *   and the detail. tcase "well_formed": the registry's names, fields and presets.
 * tcase "harness": proofs that the oracle CAN fail. Each self-test hands the harness a
 *   deliberately broken implementation (a mutant of the reference: one ulp nudged, edges
 *   summed in reverse, an edge dropped, a write past the end, a NaN, an Inf, a backward missing
 *   its 1/deg, index_add in the wrong order, dw summed in reverse) and asserts FAIL with the
 *   expected message; plus comparator semantics, the SKIP and UNSUPPORTED outcomes, case-string
 *   replay and malformed case strings (library and CLI).
 * No test re-implements a kernel: mutants wrap the reference and break one thing. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "gnnref/aggregate.h"
#include "gnnref/index_add.h"
#include "gnnref/nn.h"
#include "gnnref/oracle.h"
#include "gnnref/tensor.h"
#include "oracle_util.h"

static int n_registry(void)
{
    int n = 0;
    while (gnn_oracle_registry[n])
        n++;
    return n;
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
static const gnn_nn_ops k_lin_mutant_ops = { .name = "half-db", .linear_fwd = gnn_linear_fwd_ref,
                                             .linear_bwd = lin_bwd_no_db };
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
    /* every index is checked by the entry point (core/ops/kernels.c) before the body runs, so
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
    tcase_add_test(h, index_add_and_weighted_entries_catch_mutants);
    suite_add_tcase(s, h);
    return s;
}
