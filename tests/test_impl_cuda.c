/* tests/test_impl_cuda.c -- the cuda and cuda-emu implementation contexts (include/gnnref/impl.h,
 * docs/cuda.md section 7): opt with the CUDA tier's aggregate, quant, sampler and ID map tables
 * on top. Cases:
 *   context  which tables each context holds (the four CUDA ones, opt's elsewhere), select, runnable;
 *   losses   `gnnref train --impl cuda-emu` gives opt's step losses bit for bit (every table it
 *            swaps is bitwise its reference, as opt's are), and `gnnref sample` the same blocks;
 *   no_gpu   `--impl cuda` on a machine without a usable GPU (or a build without CUDA) fails with
 *            exit 1 and gnn_cuda_available's reason; SKIP where a GPU exists (tag gpu: there it
 *            trains and must give opt's losses too). */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "cli_util.h"
#include "gnnref/cuda.h"
#include "gnnref/impl.h"

START_TEST(context_tables)
{
    const gnn_impl *opt = gnn_impl_opt();
    const gnn_impl *cu = gnn_impl_cuda(), *emu = gnn_impl_cuda_emu();
    ck_assert_ptr_eq(gnn_impl_select("cuda"), cu);
    ck_assert_ptr_eq(gnn_impl_select("cuda-emu"), emu);
    ck_assert_str_eq(cu->name, "cuda");
    ck_assert_str_eq(emu->name, "cuda-emu");
    ck_assert_ptr_eq(emu->aggregate, &gnn_aggregate_cuda_emu);
    ck_assert_ptr_eq(emu->quant, &gnn_quant_cuda_emu);
    ck_assert_ptr_eq(emu->sampler, &gnn_sampler_cuda_emu);
    ck_assert_ptr_eq(emu->idmap, &gnn_idmap_cuda_emu);
    ck_assert_ptr_eq(cu->aggregate, &gnn_aggregate_cuda);
    ck_assert_ptr_eq(cu->quant, &gnn_quant_cuda);
    ck_assert_ptr_eq(cu->sampler, &gnn_sampler_cuda);
    ck_assert_ptr_eq(cu->idmap, &gnn_idmap_cuda);
    /* the rest is opt's, table by table (the fallback the context promises) */
    const gnn_impl *ctx[2] = { cu, emu };
    for (int i = 0; i < 2; i++) {
        ck_assert_ptr_eq(ctx[i]->nn, opt->nn);
        ck_assert_ptr_eq(ctx[i]->update, opt->update);
        ck_assert_ptr_eq(ctx[i]->gat, opt->gat);
        ck_assert_ptr_eq(ctx[i]->index_add, opt->index_add);
        ck_assert_ptr_eq(ctx[i]->hec, opt->hec);
        ck_assert_ptr_eq(ctx[i]->distagg, opt->distagg);
        ck_assert_ptr_eq(ctx[i]->reorder, opt->reorder);
    }
    /* cuda-emu runs everywhere; cuda exactly where gnn_cuda_available says so, with its reason */
    char why[256], why2[256];
    ck_assert_int_eq(gnn_impl_runnable(emu, why, sizeof why), 1);
    ck_assert_int_eq(gnn_impl_runnable(opt, why, sizeof why), 1);
    const int have = gnn_cuda_available(why2, sizeof why2);
    ck_assert_int_eq(gnn_impl_runnable(cu, why, sizeof why), have);
    if (!have)
        ck_assert_str_eq(why, why2);
    ck_assert_int_eq(gnn_impl_runnable(NULL, why, sizeof why), 0);
}
END_TEST

/* `train` with the built-in set under impl, its step list (%.17g per loss) into buf. */
static void train_steps(const char *model, const char *impl, char *buf, size_t cap)
{
    char args[512], out[8192];
    const char *json = tmp("r.json");
    snprintf(args, sizeof args, "train --data builtin --model %s --layers 2 --epochs 2 --seed 3 --quiet --threads 2 "
                                "--impl %s --json %s", model, impl, json);
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    cli_steps_text(json, buf, cap);
}

START_TEST(train_losses)
{
    NEED_TOOL();
    static const char *const models[] = { "sage", "gcn" };
    static char a[1 << 16], b[1 << 16];
    for (int m = 0; m < 2; m++) {
        train_steps(models[m], "opt", a, sizeof a);
        train_steps(models[m], "cuda-emu", b, sizeof b);
        ck_assert_msg(strlen(a) > 20, "%s: no steps: %s", models[m], a);
        ck_assert_msg(!strcmp(a, b), "%s: cuda-emu's step losses differ from opt's:\nopt      %s\ncuda-emu %s", models[m],
                      a, b);
    }
}
END_TEST

/* `sample`'s per-layer totals (the "layers" list of its report) under impl, into buf. */
static void sample_layers(const char *impl, char *buf, size_t cap)
{
    char args[512], out[8192];
    const char *json = tmp("s.json");
    snprintf(args, sizeof args, "sample --data builtin --batches 2 --threads 2 --impl %s --json %s", impl, json);
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    FILE *f = fopen(json, "r");
    ck_assert_ptr_nonnull(f);
    const size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = 0;
    char *l = strstr(buf, "\"layers\":[");
    ck_assert_msg(l != NULL, "%s: no layers list", json);
    char *e = strchr(l, ']');
    ck_assert_ptr_nonnull(e);
    e[1] = 0;
    memmove(buf, l, strlen(l) + 1);
}

START_TEST(sample_totals)
{
    NEED_TOOL();
    static char a[1 << 14], b[1 << 14];
    sample_layers("opt", a, sizeof a);
    sample_layers("cuda-emu", b, sizeof b);
    ck_assert_msg(!strcmp(a, b), "sample: cuda-emu %s, opt %s", b, a);
}
END_TEST

START_TEST(cuda_without_gpu)
{
    NEED_TOOL();
    char why[256], out[8192];
    if (gnn_cuda_available(why, sizeof why)) {
        fprintf(stderr, "cuda_without_gpu: SKIP (a GPU is present: train_losses_gpu covers it)\n");
        return;
    }
    for (int c = 0; c < 2; c++) {
        const char *args = c ? "sample --data builtin --impl cuda" : "train --data builtin --epochs 1 --impl cuda";
        ck_assert_msg(tool(args, out, sizeof out) == 1, "%s: expected exit 1: %s", args, out);
        ck_assert_msg(strstr(out, "gnnref: error: --impl cuda: the cuda context cannot run here: ") &&
                          strstr(out, why) && strstr(out, "--impl cuda-emu"),
                      "%s: expected the reason '%s' in: %s", args, why, out);
    }
}
END_TEST

/* On a GPU: the real kernels give opt's losses too. SKIP (not FAIL) without one. */
START_TEST(train_losses_gpu)
{
    NEED_TOOL();
    char why[256];
    if (!gnn_cuda_available(why, sizeof why)) {
        fprintf(stderr, "train_losses_gpu: SKIP (%s)\n", why);
        return;
    }
    static char a[1 << 16], b[1 << 16];
    train_steps("sage", "opt", a, sizeof a);
    train_steps("sage", "cuda", b, sizeof b);
    ck_assert_msg(!strcmp(a, b), "cuda's step losses differ from opt's:\nopt  %s\ncuda %s", a, b);
}
END_TEST

Suite *suite_impl_cuda(void)
{
    Suite *s = suite_create("impl_cuda");
    TCase *t = tcase_create("context");
    tcase_add_checked_fixture(t, NULL, cli_cleanup);
    tcase_set_tags(t, "cuda");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, context_tables);
    tcase_add_test(t, train_losses);
    tcase_add_test(t, sample_totals);
    tcase_add_test(t, cuda_without_gpu);
    suite_add_tcase(s, t);
    TCase *g = tcase_create("gpu");
    tcase_add_checked_fixture(g, NULL, cli_cleanup);
    tcase_set_tags(g, "gpu");
    tcase_set_timeout(g, 120);
    tcase_add_test(g, train_losses_gpu);
    suite_add_tcase(s, g);
    return s;
}
