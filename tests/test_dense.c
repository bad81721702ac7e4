/* tests/test_dense.c -- the fma context's dense kernel (include/gnnref/dense.h, opt/cpu/dense.c):
 * the path choice and its refusals, the context's tables, the oracle entries of every path at
 * 1, 2 and 4 threads through the registry, and the oracle's power against the bugs a packed
 * FMA kernel invites (a K split into two chains, the bias added after the chain, a column tail
 * summed without FMA): each passes ref's tolerance but not the bitwise check of its own
 * specification. The same bits on every CPU, through the tool: tests/test_cpu_bits.c. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/dense.h"
#include "gnnref/impl.h"
#include "gnnref/tensor.h"
#include "opt/cpu/dense_impl.h"
#include "oracle_util.h"
#include "thread_util.h"

START_TEST(paths_and_refusals)
{
    ck_assert_str_eq(gnn_dense_path_name(GNN_DENSE_SCALAR), "scalar");
    ck_assert_str_eq(gnn_dense_path_name(GNN_DENSE_AVX2), "avx2");
    ck_assert_str_eq(gnn_dense_path_name(GNN_DENSE_AVX512), "avx512");
    ck_assert(gnn_dense_path_supported(GNN_DENSE_SCALAR));
    ck_assert(gnn_dense_path_supported(gnn_dense_path_best()));
    ck_assert_int_eq(gnn_dense_path_current(), gnn_dense_path_best()); /* nothing forced (GNN_DENSE_PATH unset) */
    gnn_err err = { "" };
    ck_assert_int_eq(gnn_dense_path_set((gnn_dense_path)7, &err), GNN_ERR_INVAL);
    for (int p = 0; p < GNN_DENSE_N_PATHS; p++) {
        err.msg[0] = 0;
        const gnn_status st = gnn_dense_path_set((gnn_dense_path)p, &err);
        if (gnn_dense_path_supported((gnn_dense_path)p)) {
            ck_assert_int_eq(st, GNN_OK);
            ck_assert_int_eq(gnn_dense_path_current(), p);
            ck_assert_int_eq(gnn_dense_path_of(&gnn_nn_fma), p);
            ck_assert_int_eq(gnn_dense_path_of(&gnn_update_fma), p);
        } else { /* refused, naming the path and the missing feature; the path in force unchanged */
            ck_assert_int_eq(st, GNN_ERR_UNSUPPORTED);
            ck_assert_msg(strstr(err.msg, gnn_dense_path_name((gnn_dense_path)p)) && strstr(err.msg, "lacks"), "%s",
                          err.msg);
            ck_assert(gnn_dense_path_supported(gnn_dense_path_current()));
        }
    }
    ck_assert_int_eq(gnn_dense_path_of(&gnn_nn_fma_avx512), GNN_DENSE_AVX512);
    ck_assert_int_eq(gnn_dense_path_of(&gnn_update_fma_scalar), GNN_DENSE_SCALAR);
    ck_assert_int_eq(gnn_dense_path_of(&gnn_nn_blas), -1);
    /* the environment variable: a bad value is an error naming it; auto and unset keep the path */
    ck_assert_int_eq(setenv("GNN_DENSE_PATH", "avx9", 1), 0);
    ck_assert_int_eq(gnn_dense_path_from_env(&err), GNN_ERR_INVAL);
    ck_assert_msg(strstr(err.msg, "GNN_DENSE_PATH=avx9"), "%s", err.msg);
    ck_assert_int_eq(gnn_dense_path_set(GNN_DENSE_SCALAR, &err), GNN_OK);
    setenv("GNN_DENSE_PATH", "auto", 1);
    ck_assert_int_eq(gnn_dense_path_from_env(&err), GNN_OK);
    ck_assert_int_eq(gnn_dense_path_current(), GNN_DENSE_SCALAR);
    setenv("GNN_DENSE_PATH", "avx2", 1);
    ck_assert_int_eq(gnn_dense_path_from_env(&err), gnn_dense_path_supported(GNN_DENSE_AVX2) ? GNN_OK
                                                                                            : GNN_ERR_UNSUPPORTED);
    unsetenv("GNN_DENSE_PATH");
}
END_TEST

/* The context: opt's tables but the dense layers and the fused UPDATE; --impl fma selects it. */
START_TEST(fma_context)
{
    const gnn_impl *f = gnn_impl_fma(), *o = gnn_impl_opt();
    ck_assert_ptr_eq(gnn_impl_select("fma"), f);
    ck_assert_str_eq(f->name, "fma");
    ck_assert_ptr_eq(f->nn, &gnn_nn_fma);
    ck_assert_ptr_eq(f->update, &gnn_update_fma);
    ck_assert_ptr_eq(f->aggregate, o->aggregate);
    ck_assert_ptr_eq(f->gat, o->gat);
    ck_assert_ptr_eq(f->spmm, o->spmm);
    ck_assert_ptr_eq(f->sampler, o->sampler);
    ck_assert_ptr_eq(f->quant, o->quant);
    ck_assert_ptr_eq(f->rgcn, o->rgcn);
}
END_TEST

/* Every path bitwise against the specification at 1, 2 and 4 threads (1 alone in a build without
 * OpenMP, whose oracle skips the others: tests/thread_util.h), and the default path within ref's
 * tolerance, through the registry. A path the CPU lacks is a SKIP, nothing else. */
START_TEST(registry_paths_threads)
{
    static const char *const entries[] = { "dense.fwd", "dense.bwd", "update.fma.fwd", "update.fma.bwd" };
    static const int threads[] = { 1, 2, 4 };
    const int n_threads = test_threads(2) > 1 ? 3 : 1;
    for (size_t k = 0; k < sizeof entries / sizeof entries[0]; k++) {
        const gnn_oracle_entry *e = gnn_oracle_find(entries[k]);
        ck_assert_msg(e != NULL, "no entry %s", entries[k]);
        tally t = { { 0 }, "" };
        const int fails = gnn_oracle_run_entry_threads(e, NULL, 1, 1, threads, n_threads, tally_visit, &t, t.counts);
        ck_assert_msg(fails == 0, "%s: %d failed; first:\n%s", entries[k], fails, t.first_fail);
        ck_assert_int_gt(t.counts[GNN_ORACLE_PASS], 0);
        const int lacking = !gnn_dense_path_supported(GNN_DENSE_AVX2) + !gnn_dense_path_supported(GNN_DENSE_AVX512);
        ck_assert_msg(lacking > 0 || t.counts[GNN_ORACLE_SKIP] == 0, "%s: %d skipped on a CPU with every path",
                      entries[k], t.counts[GNN_ORACLE_SKIP]);
    }
    static const char *const twins[] = { "linear.fwd", "linear.bwd", "update.fwd", "update.bwd" };
    for (size_t k = 0; k < sizeof twins / sizeof twins[0]; k++) {
        const gnn_oracle_entry *e = gnn_oracle_find(twins[k]);
        tally t = { { 0 }, "" };
        const int fails = gnn_oracle_run_entry_threads(e, "fma", 1, 1, threads, n_threads, tally_visit, &t, t.counts);
        ck_assert_msg(fails == 0 && t.counts[GNN_ORACLE_PASS] > 0, "%s fma: %d failed:\n%s", twins[k], fails,
                      t.first_fail);
    }
}
END_TEST

/* ---- the oracle's power: three plausible bugs, each within ref's tolerance ---------------------- */

/* the bias added after the chain (what an sgemm + bias epilogue does): y = chain from 0, + b */
static void mut_bias_after(const float *x, int64_t n, int64_t in, const float *w, const float *b, int64_t out, float *y)
{
    gnn_nn_fma.linear_fwd(x, n, in, w, NULL, out, y);
    if (b)
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < out; j++)
                y[i * out + j] += b[j];
}

/* K split into two chains summed at the end (partial sums over two K panels) */
static void mut_split_k(const float *x, int64_t n, int64_t in, const float *w, const float *b, int64_t out, float *y)
{
    const int64_t h = in / 2;
    float *x2 = gnn_malloc((size_t)(n * (in - h) + 1) * sizeof(float));
    float *y2 = gnn_malloc((size_t)(n * out + 1) * sizeof(float));
    float *x1 = gnn_malloc((size_t)(n * h + 1) * sizeof(float));
    ck_assert(x1 && x2 && y2);
    for (int64_t i = 0; i < n; i++) {
        memcpy(x1 + i * h, x + i * in, (size_t)h * sizeof(float));
        memcpy(x2 + i * (in - h), x + i * in + h, (size_t)(in - h) * sizeof(float));
    }
    gnn_nn_fma.linear_fwd(x1, n, h, w, b, out, y);
    gnn_nn_fma.linear_fwd(x2, n, in - h, w + h * out, NULL, out, y2);
    for (int64_t e = 0; e < n * out; e++)
        y[e] += y2[e];
    gnn_free(x1);
    gnn_free(x2);
    gnn_free(y2);
}

/* the columns past the last whole 16 summed in ref's order (a tail loop without FMA) */
static void mut_tail_no_fma(const float *x, int64_t n, int64_t in, const float *w, const float *b, int64_t out,
                            float *y)
{
    gnn_nn_fma.linear_fwd(x, n, in, w, b, out, y);
    const int64_t j0 = out / 16 * 16;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = j0; j < out; j++) {
            float acc = b ? b[j] : 0.0f;
            for (int64_t k = 0; k < in; k++)
                acc += x[i * in + k] * w[k * out + j];
            y[i * out + j] = acc;
        }
}

#define MUTANT_TABLE(tag, fn)                                                                                        \
    static const gnn_nn_ops k_ops_##tag = { .name = #tag, .linear_fwd = fn, .linear_bwd = gnn_dense_bwd_ref };       \
    static const gnn_oracle_impl k_mut_##tag = { .name = #tag, .ops = &k_ops_##tag, .flags = 0 };
MUTANT_TABLE(bias_after, mut_bias_after)
MUTANT_TABLE(split_k, mut_split_k)
MUTANT_TABLE(tail_no_fma, mut_tail_no_fma)

/* entry e's presets, `cases` seeds each, with impl held to tol (a copy of e whose impl_tols
 * list impl: a mutant is in no registry table) */
static void run_at_tol(const gnn_oracle_entry *e, const gnn_oracle_impl *impl, const gnn_oracle_tol *tol, int cases,
                       tally *t)
{
    memset(t, 0, sizeof *t);
    const gnn_oracle_impl_tol tols[] = { { impl, *tol, "the twin's" }, { NULL, { GNN_CMP_BITWISE, 0, 0 }, NULL } };
    gnn_oracle_entry copy = *e;
    copy.impl_tols = tols;
    for (int p = 0; copy.presets[p]; p++)
        for (int k = 0; k < cases; k++) {
            gnn_oracle_case c;
            gnn_err err;
            ck_assert_int_eq(gnn_oracle_case_init(&c, &copy, impl, 0, copy.presets[p], 1 + (uint64_t)k, &err), GNN_OK);
            gnn_oracle_result r;
            t->counts[gnn_oracle_run(&c, &r)]++;
            tally_visit(&c, &r, t);
        }
}

START_TEST(oracle_catches_order_bugs)
{
    const gnn_oracle_entry *lin = gnn_oracle_find("linear.fwd");
    const gnn_oracle_tol *fma_tol = gnn_oracle_tol_of(lin, gnn_oracle_find_impl(lin, "fma"));
    ck_assert_int_eq(fma_tol->cmp, GNN_CMP_VERIFY); /* the rounding bound */
    const gnn_oracle_impl *const muts[] = { &k_mut_bias_after, &k_mut_split_k, &k_mut_tail_no_fma };
    for (int m = 0; m < 3; m++) {
        tally t;
        /* within ref's tolerance: the rounding bound cannot tell a reordered chain... */
        run_at_tol(lin, muts[m], fma_tol, 2, &t);
        ck_assert_msg(t.counts[GNN_ORACLE_FAIL] == 0 && t.counts[GNN_ORACLE_PASS] > 0,
                      "linear.fwd at fma's tolerance fails the mutant %s:\n%s", muts[m]->name, t.first_fail);
        /* ... the bitwise check against the specification does */
        run_with_impl("dense.fwd", muts[m], 0, 2, &t);
        ck_assert_msg(t.counts[GNN_ORACLE_FAIL] > 0, "dense.fwd passes the mutant %s", muts[m]->name);
    }
}
END_TEST

/* the scalar path's FMA without an FMA instruction: rounding p + c to double, then to float,
 * rounds twice; dense.fma1 must see it (near-midpoint triples), and pass the real one */
static void fma_double_rounding(const float *a, const float *b, const float *c, int64_t n, float *r)
{
    for (int64_t i = 0; i < n; i++)
        r[i] = (float)((double)a[i] * (double)b[i] + (double)c[i]);
}

START_TEST(fma_emulation_exact)
{
    const gnn_dense_fma_fn wrong = fma_double_rounding;
    const gnn_oracle_impl mut = { .name = "double-rounding", .ops = &wrong, .flags = 0 };
    tally t;
    run_with_impl("dense.fma1", &mut, 0, 1, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] > 0, "dense.fma1 passes a double-rounding FMA");
    const gnn_oracle_entry *e = gnn_oracle_find("dense.fma1");
    run_with_impl("dense.fma1", gnn_oracle_find_impl(e, "emulated"), 0, 2, &t);
    ck_assert_msg(t.counts[GNN_ORACLE_FAIL] == 0 && t.counts[GNN_ORACLE_PASS] > 0, "%s", t.first_fail);
}
END_TEST

Suite *suite_dense(void)
{
    Suite *s = suite_create("dense");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, paths_and_refusals);
    tcase_add_test(tc, fma_context);
    tcase_add_test(tc, oracle_catches_order_bugs);
    tcase_add_test(tc, fma_emulation_exact);
    suite_add_tcase(s, tc);
    /* 14 s: the full tier only (tag full: make check leaves it out; check-full, the sanitizer and no-OpenMP suites run it) */
    TCase *full = tcase_create("core-slow");
    tcase_set_tags(full, "full");
    tcase_set_timeout(full, 120);
    tcase_add_test(full, registry_paths_threads);
    suite_add_tcase(s, full);
    return s;
}
