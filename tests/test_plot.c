/* tests/test_plot.c -- `gnnref plot` (cli/cmd_plot.c, docs/plot.md): every kind of picture is a
 * valid PNG of the requested size (its 8-byte signature, then an IHDR chunk with the width and
 * height); inputs that lack what a picture needs are refused with exit 2 and a message naming
 * the file and the key; a missing gnuplot is exit 2 with how to install it; a gnuplot that
 * fails, hangs or writes no PNG is exit 1, leaves the old picture as it was and no temporary
 * file behind. The drawing tests say SKIP where gnuplot is not installed
 * (`ci/install-deps.sh plot`). */
#include <check.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli_util.h"

static char out[1 << 16];

static int have_gnuplot(const char *test)
{
    const char *p = getenv("PATH");
    char path[4096];
    while (p && *p) {
        const size_t len = strcspn(p, ":");
        snprintf(path, sizeof path, "%.*s/gnuplot", (int)len, p);
        if (len && access(path, X_OK) == 0)
            return 1;
        p += len + (p[len] == ':');
    }
    printf("%s: SKIP (gnuplot is not installed: ci/install-deps.sh plot)\n", test);
    return 0;
}

/* `ENV $GNN_TOOL args`, output into out; the exit status */
static int tool_env(const char *env, const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s \"%s\" %s >%s 2>&1 </dev/null", env, getenv("GNN_TOOL"), args, tmp("env-out.txt"));
    const int rc = system(cmd);
    FILE *f = fopen(tmp("env-out.txt"), "r");
    const size_t n = f ? fread(out, 1, sizeof out - 1, f) : 0;
    out[n] = '\0';
    if (f)
        fclose(f);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void run_ok(const char *args)
{
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
}

/* The reports the pictures are drawn from (each test runs in its own process and makes its own). */
static const char *g_train, *g_dist, *g_s2, *g_s4, *g_bench, *g_info;

/* all = 0: the single-rank train report alone */
static void make_reports(int all)
{
    static char train[512], dist[512], s2[512], s4[512], bench[512], info[512];
    snprintf(train, sizeof train, "%s", tmp("train.json"));
    snprintf(dist, sizeof dist, "%s", tmp("dist.json"));
    snprintf(s2, sizeof s2, "%s", tmp("s2.json"));
    snprintf(s4, sizeof s4, "%s", tmp("s4.json"));
    snprintf(bench, sizeof bench, "%s", tmp("bench.json"));
    snprintf(info, sizeof info, "%s", tmp("info.json"));
    char args[1024];
    snprintf(args, sizeof args, "train --data builtin --epochs 3 --quiet --json %s", train);
    run_ok(args);
    g_train = train;
    if (!all)
        return;
    snprintf(args, sizeof args,
             "train --data builtin --epochs 2 --quiet --backend sim --ranks 4 --remote hec --json %s", dist);
    run_ok(args);
    snprintf(args, sizeof args, "train --data builtin --epochs 1 --quiet --backend sim --ranks 2 --json %s", s2);
    run_ok(args);
    snprintf(args, sizeof args, "train --data builtin --epochs 1 --quiet --backend sim --ranks 4 --json %s", s4);
    run_ok(args);
    snprintf(args, sizeof args, "info builtin --json %s", info);
    run_ok(args);
    /* gnnref-bench's JSON (Google Benchmark's format), small: two implementations and the
     * triad of the same run */
    FILE *f = fopen(bench, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"context\": {\"host_name\": \"test\", \"num_cpus\": 2},\n \"benchmarks\": [\n"
          "  {\"name\": \"quant/triad/threads=1/real_time\", \"run_type\": \"iteration\", \"real_time\": 9.1,"
          " \"time_unit\": \"ms\", \"GB/s\": 21.9, \"bytes_per_second\": 2.19e10},\n"
          "  {\"name\": \"quant/unpack-int2/d=128/ref/real_time\", \"run_type\": \"iteration\", \"GB/s\": 0.57},\n"
          "  {\"name\": \"quant/unpack-int2/d=128/cpu/threads=1/real_time\", \"run_type\": \"iteration\","
          " \"GB/s\": 26.8, \"triad_GB/s\": 32.1, \"of_triad\": 0.83},\n"
          "  {\"name\": \"linear.fwd/blas/threads=1/n=16384/real_time\", \"run_type\": \"iteration\","
          " \"bytes_per_second\": 4.2e9},\n"
          "  {\"name\": \"sample/rmat-s22/ref/real_time\", \"run_type\": \"iteration\", \"edges_per_s\": 1.2e7}\n"
          " ]}\n",
          f);
    fclose(f);
    g_dist = dist, g_s2 = s2, g_s4 = s4, g_bench = bench, g_info = info;
}

/* 0: path is a PNG whose IHDR says w x h */
static void expect_png(const char *path, uint32_t w, uint32_t h, const char *args)
{
    static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    unsigned char b[24];
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s: no %s", args, path);
    const size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    ck_assert_msg(n == sizeof b && !memcmp(b, sig, 8), "%s: %s is not a PNG (signature)", args, path);
    ck_assert_msg(!memcmp(b + 12, "IHDR", 4) && b[8] == 0 && b[9] == 0 && b[10] == 0 && b[11] == 13,
                  "%s: %s has no IHDR chunk first", args, path);
    const uint32_t pw = (uint32_t)b[16] << 24 | (uint32_t)b[17] << 16 | (uint32_t)b[18] << 8 | b[19];
    const uint32_t ph = (uint32_t)b[20] << 24 | (uint32_t)b[21] << 16 | (uint32_t)b[22] << 8 | b[23];
    if (w)
        ck_assert_msg(pw == w && ph == h, "%s: %s is %ux%u, not %ux%u", args, path, pw, ph, w, h);
    else
        ck_assert_msg(pw >= 64 && ph >= 64, "%s: %s is %ux%u", args, path, pw, ph);
}

/* the gnnref-plot-* directories left in dir */
static int leftovers(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));)
        n += !strncmp(e->d_name, "gnnref-plot-", 12);
    closedir(d);
    return n;
}

START_TEST(every_kind_is_a_png_of_the_size_asked)
{
    NEED_TOOL();
    if (!have_gnuplot(__func__))
        return;
    make_reports(1);
    const struct {
        const char *kind, **in1, **in2;
        const char *says; /* in the success line */
    } cases[] = {
        { "auto", &g_train, NULL, "loss+phases" },   { "loss", &g_train, NULL, "loss" },
        { "phases", &g_train, NULL, "phases" },      { "auto", &g_dist, NULL, "traffic+ranks" },
        { "traffic", &g_dist, NULL, "traffic" },     { "ranks", &g_dist, NULL, "ranks" },
        { "loss", &g_dist, NULL, "loss" },           { "auto", &g_s2, &g_s4, "scaling" },
        { "scaling", &g_s4, &g_s2, "scaling" },      { "auto", &g_bench, NULL, "bench" },
        { "bench", &g_bench, NULL, "bench" },
    };
    char tdir[600], env[700], png[600];
    snprintf(tdir, sizeof tdir, "%s", tmp("t"));
    snprintf(png, sizeof png, "%s", tmp("pic.png"));
    mkdir(tdir, 0700);
    snprintf(env, sizeof env, "TMPDIR=%s", tdir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const uint32_t w = 300 + 20 * (uint32_t)i, h = 200 + 10 * (uint32_t)i;
        char args[2048];
        unlink(png);
        snprintf(args, sizeof args, "plot %s %s --kind %s --size %ux%u -o %s --title \"it's \\\"%zu\\\" a_b\"", *cases[i].in1,
                 cases[i].in2 ? *cases[i].in2 : "", cases[i].kind, w, h, png, i);
        ck_assert_msg(tool_env(env, args) == 0, "%s: %s", args, out);
        ck_assert_msg(strstr(out, "plot: wrote") && strstr(out, cases[i].says), "%s: %s", args, out);
        expect_png(png, w, h, args);
    }
    /* the size chosen by the picture */
    char args[2048];
    snprintf(args, sizeof args, "plot %s -o %s", g_train, png);
    ck_assert_msg(tool_env(env, args) == 0, "%s: %s", args, out);
    expect_png(png, 820, 900, args);
    ck_assert_int_eq(leftovers(tdir), 0);
}
END_TEST

START_TEST(bad_inputs_are_refused)
{
    NEED_TOOL();
    make_reports(1);
    FILE *f = fopen(tmp("garbage.json"), "w");
    fputs("not json at all", f);
    fclose(f);
    f = fopen(tmp("other.json"), "w");
    fputs("{\"hello\": [1, 2]}", f);
    fclose(f);
    f = fopen(tmp("noepochs.json"), "w");
    fputs("{\"command\": \"train\", \"ranks\": 1, \"epochs\": [{\"epoch\": 0, \"loss\": 1.5}]}", f);
    fclose(f);
    char o[600]; /* tmp()'s buffers rotate: copies */
    snprintf(o, sizeof o, "%s", tmp("bad.png"));
    struct {
        char args[2048];
        char says[256];
    } c[24];
    int n = 0;
#define CASE(says_, ...)                                                                                               \
    do {                                                                                                               \
        snprintf(c[n].args, sizeof c[n].args, __VA_ARGS__);                                                            \
        snprintf(c[n].says, sizeof c[n].says, "%s", says_);                                                            \
        n++;                                                                                                           \
    } while (0)
    CASE("REPORT.json is required", "plot -o %s", o);
    CASE("-o OUT.png is required", "plot %s", g_train);
    CASE("--kind 'pie'", "plot %s --kind pie -o %s", g_train, o);
    CASE("--size '10x10'", "plot %s --size 10x10 -o %s", g_train, o);
    CASE("--size '800'", "plot %s --size 800 -o %s", g_train, o);
    CASE("/nonexistent/r.json: cannot read it", "plot /nonexistent/r.json -o %s", o);
    CASE("garbage.json: not a gnnref report", "plot %s -o %s", tmp("garbage.json"), o);
    CASE("other.json: not a gnnref report: no \"command\" key", "plot %s -o %s", tmp("other.json"), o);
    CASE("\"ranks\" is 1 here", "plot %s --kind traffic -o %s", g_train, o);
    CASE("\"ranks\" is 1 here", "plot %s --kind ranks -o %s", g_train, o);
    CASE("info.json: nothing to draw", "plot %s -o %s", g_info, o);
    CASE("info.json: no \"epochs\"", "plot %s --kind loss -o %s", g_info, o);
    CASE("noepochs.json: no \"epochs[0].phases\"", "plot %s --kind phases -o %s", tmp("noepochs.json"), o);
    CASE("no \"benchmarks\" key", "plot %s --kind bench -o %s", g_train, o);
    CASE("bench.json: --kind loss draws gnnref reports", "plot %s --kind loss -o %s", g_bench, o);
    CASE("draw them separately", "plot %s %s -o %s", g_train, g_bench, o);
    CASE("needs two or more reports", "plot %s --kind scaling -o %s", g_s2, o);
    CASE("two or more rank counts", "plot %s %s -o %s", g_s2, g_s2, o);
    CASE("not the same job: \"config.remote\"", "plot %s %s -o %s", g_s2, g_dist, o);
    CASE("--kind traffic draws one report; given 2", "plot %s %s --kind traffic -o %s", g_s2, g_s4, o);
    CASE("-o /nonexistent/dir/p.png: cannot create it", "plot %s -o /nonexistent/dir/p.png", g_train);
    CASE("is a directory", "plot %s -o %s", g_train, tmp(""));
#undef CASE
    for (int i = 0; i < n; i++)
        expect_usage_error(c[i].args, c[i].says, out, sizeof out);
    ck_assert_int_eq(access(o, F_OK), -1); /* nothing written */
}
END_TEST

/* no gnuplot: exit 2, saying how to install it; GNNREF_GNUPLOT naming nothing: exit 2 too */
START_TEST(missing_gnuplot_says_how_to_install_it)
{
    NEED_TOOL();
    make_reports(0);
    char args[2048], none[600];
    snprintf(none, sizeof none, "%s", tmp("none.png"));
    snprintf(args, sizeof args, "plot %s -o %s", g_train, none);
    ck_assert_msg(tool_env("PATH=/nonexistent", args) == 2, "%s: %s", args, out);
    ck_assert_msg(strstr(out, "gnuplot is not installed") && strstr(out, "ci/install-deps.sh plot") &&
                      strstr(out, "apt-get install gnuplot-nox"),
                  "%s", out);
    ck_assert_msg(tool_env("GNNREF_GNUPLOT=/nonexistent/gnuplot", args) == 2, "%s: %s", args, out);
    ck_assert_msg(strstr(out, "GNNREF_GNUPLOT '/nonexistent/gnuplot'"), "%s", out);
    ck_assert_int_eq(access(none, F_OK), -1);
}
END_TEST

/* a gnuplot that fails, hangs or writes nothing: exit 1, the old picture kept, nothing left
 * in TMPDIR, and a hang ended by the timeout */
START_TEST(failing_or_hanging_gnuplot)
{
    NEED_TOOL();
    make_reports(0);
    static const struct {
        const char *script, *says;
    } fakes[] = {
        { "#!/bin/sh\necho 'line 3: no such terminal' >&2\nexit 3\n", "gnuplot failed (exit 3)" },
        { "#!/bin/sh\nwhile :; do :; done\n", "did not finish within 0.5 s" }, /* no PATH needed */
        { "#!/bin/sh\nexit 0\n", "wrote no valid PNG" },
    };
    char pic[600], tdir[600];
    snprintf(pic, sizeof pic, "%s", tmp("keep.png"));
    snprintf(tdir, sizeof tdir, "%s", tmp("t"));
    mkdir(tdir, 0700);
    FILE *f = fopen(pic, "w");
    fputs("old", f);
    fclose(f);
    for (size_t i = 0; i < sizeof fakes / sizeof fakes[0]; i++) {
        char fake[600], env[2048], args[2048];
        snprintf(fake, sizeof fake, "%s", tmp("fake-gnuplot"));
        f = fopen(fake, "w");
        fputs(fakes[i].script, f);
        fclose(f);
        chmod(fake, 0700);
        snprintf(env, sizeof env, "TMPDIR=%s GNNREF_GNUPLOT=%s GNNREF_PLOT_TIMEOUT=0.5", tdir, fake);
        snprintf(args, sizeof args, "plot %s -o %s", g_train, pic);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        ck_assert_msg(tool_env(env, args) == 1, "fake %zu: %s", i, out);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        ck_assert_msg(strstr(out, "gnnref: error: plot: ") && strstr(out, fakes[i].says), "fake %zu: %s", i, out);
        ck_assert_msg(t1.tv_sec - t0.tv_sec < 20, "fake %zu: took %lds", i, (long)(t1.tv_sec - t0.tv_sec));
        ck_assert_int_eq(leftovers(tdir), 0);
        char old[8] = "";
        f = fopen(pic, "r");
        ck_assert_ptr_nonnull(f);
        ck_assert_ptr_nonnull(fgets(old, sizeof old, f));
        fclose(f);
        ck_assert_str_eq(old, "old");
        unlink(fake);
    }
    char args[2048];
    snprintf(args, sizeof args, "plot %s -o %s", g_train, pic);
    ck_assert_msg(tool_env("GNNREF_PLOT_TIMEOUT=soon", args) == 2 && strstr(out, "GNNREF_PLOT_TIMEOUT 'soon'"), "%s",
                  out);
}
END_TEST

Suite *suite_plot(void)
{
    Suite *s = suite_create("plot");
    TCase *tc = tcase_create("plot");
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, every_kind_is_a_png_of_the_size_asked);
    tcase_add_test(tc, bad_inputs_are_refused);
    tcase_add_test(tc, missing_gnuplot_says_how_to_install_it);
    tcase_add_test(tc, failing_or_hanging_gnuplot);
    suite_add_tcase(s, tc);
    return s;
}
