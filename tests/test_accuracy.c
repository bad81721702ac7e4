/* tests/test_accuracy.c -- the accuracy acceptance of distributed training on partitions
 * (issues 7 and 25; include/gnnref/train_part.h, docs/hec.md section 7), tagged `slow`: every
 * case trains the same model to the end several times, so together they take minutes.
 *
 * builtin_per_rank (tcase per_rank): DistGNN-MB's convention (issue 25): the batch is per
 *   rank, and a figure is the mean over seeds 1-4. One rank with --batch 256 against P = 4 and
 *   8 simulated ranks with --batch 256 each, compared at convergence (20 epochs against 60; the
 *   comment above the case says why): hec within 1 point of one rank, fetch within 0.5, drop
 *   above the majority class, HEC's pushes fewer bytes than fetch's pulls; and hec with 10% of
 *   its pushes dropped by the simulator within 2 points of hec without faults.
 * facebook_per_rank: the same convention on Facebook: one rank --batch 256 for 1 epoch against
 *   4 ranks at --batch 256 each for 2 epochs, means over seeds 1-4: hec within 1 point, fetch
 *   within 0.5 point; and DistDGLv2's distributed sampling equal to fetch.
 * The figures are printed (stderr). Every run is deterministic (keyed random choices,
 * rank-order reductions), so a case that passes once passes always on the same build; a
 * failure means the training changed, not noise.
 *
 * Settings: 3-layer GraphSAGE, fanouts 5,10,15, METIS parts balanced on train and degree, HEC
 * with ls 2, d 1 and cs, nc sized to the graph (auto).
 *   builtin   the built-in SBM (20,000 vertices, 2,000 train), LayerNorm;
 *   facebook  ../shared/datasets/facebook, random split 50/25/25 (seed 1), 4 ranks:
 *             converted once to the native format so each run maps it instead of parsing
 *             text. Skipped when the folder is absent.
 * GAT runs in every mode on Cora (4 ranks, 10 epochs) and must learn; skipped without it.
 * CK_EXCLUDE_TAGS=slow leaves the suite out (the sanitizer build does). */
#include <check.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"

static char out[1 << 16];

typedef struct run_fig {
    double test_acc, majority;
    int64_t push_bytes, pull_bytes;
    double hit_l0;
    int64_t dropped, segments; /* the simulator's dropped async segments; all pushes' segments */
} run_fig;

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    ck_assert_msg(json_object_object_get_ex(o, key, &v), "report lacks key \"%s\"", key);
    return v;
}

/* `train FLAGS --json FILE` must exit 0; returns its figures. */
static run_fig train(const char *flags)
{
    char args[2048];
    snprintf(args, sizeof args, "train %s --json %s", flags, tmp("acc.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    json_object *r = json_object_from_file(tmp("acc.json"));
    ck_assert_msg(r != NULL, "%s: no JSON report", args);
    run_fig f = { 0 };
    json_object *fin = get(r, "final");
    f.test_acc = json_object_get_double(get(fin, "test_acc"));
    f.majority = json_object_get_double(get(fin, "majority_class_acc"));
    json_object *pt = NULL;
    if (json_object_object_get_ex(r, "partition_training", &pt)) {
        f.push_bytes = json_object_get_int64(get(pt, "push_bytes"));
        f.pull_bytes = json_object_get_int64(get(pt, "pull_bytes"));
        json_object *h = json_object_array_get_idx(get(pt, "hit_rate"), 0);
        f.hit_l0 = h ? json_object_get_double(h) : 0.0;
    }
    json_object *sim = NULL, *faults = NULL;
    if (json_object_object_get_ex(r, "sim", &sim) && json_object_object_get_ex(sim, "faults", &faults))
        f.dropped = json_object_get_int64(get(faults, "dropped"));
    json_object *comm = NULL, *by = NULL, *ia = NULL;
    if (json_object_object_get_ex(r, "comm", &comm) && json_object_object_get_ex(comm, "by_op", &by) &&
        json_object_object_get_ex(by, "ialltoallv", &ia))
        f.segments = json_object_get_int64(get(ia, "messages"));
    json_object_put(r);
    return f;
}

/* ---- the builtin SBM in DistGNN-MB's convention: the batch is per rank ------------------------
 * One rank trains with --batch 256 for 20 epochs; P = 4 and 8 simulated ranks train with
 * --batch 256 EACH (the paper's 256 seeds per socket: a global batch of up to 256 P) for 60 epochs,
 * and every figure is the mean over seeds 1-4. With 2,000 train vertices one rank takes 8 steps
 * per epoch and 4 or 8 ranks take 2 (--batch is the most a rank takes in a step; at 8 ranks the
 * largest part holds a few more than 256, so each rank takes about 125 per step), so the runs
 * are compared at convergence, not at equal epochs: measured with --eval-every 10 (seed 1), hec and fetch
 * reach their plateau by epoch 40 to 50 on 4 and 8 ranks (8 ranks: hec 0.983 at epoch 39, then
 * 0.978..0.991 up to epoch 159; fetch 0.993 at 39, 0.995..0.997 after), and one rank by epoch
 * 16 (its best validation). The same number of updates as one rank (80 epochs) costs four times
 * its compute and moves no figure beyond the plateau's spread (docs/hec.md
 * section 7 has the curves and the global-batch figures this replaced).
 *
 * Asserted on the means over seeds 1-4: hec within 1 point of one rank at 4 and 8 ranks
 * (HEC_8_WITHIN_1), fetch within 0.5 point at 8 ranks (and at 4 ranks on seed 1: the slow
 * tier's budget); hec above drop and drop above the majority class (seed 1); HEC's pushes fewer
 * bytes than fetch's pulls. And faults survived (issue 25 item 3): hec on 4 ranks with 10% of
 * its pushes dropped by the simulator (--fault-drop 0.1 --fault-seed 1, seed 1) finishes, and
 * its final test accuracy is within 2 points of the same run without faults. Cost: 20 runs. */
#define BUILTIN "--data builtin --layers 3 --fanouts 5,10,15 --layernorm --eval-every 0 --batch 256"
#define ONE_EPOCHS 20
#define PART_EPOCHS 60
#define SEEDS 4
#define HEC_8_WITHIN_1 1 /* the mean is -0.86 point; seed 1 alone is -1.48 */
#define FETCH_SEEDS_4 1  /* fetch at 4 ranks: seed 1 only (the slow tier's budget) */
#define FAULT_SEEDS 1    /* the drop-fault run: seed 1 (seeds 1-4 by hand: docs/hec.md) */

typedef struct per_rank_figs {
    const char *title;
    int P, epochs, one_epochs, fetch_seeds, fault_seeds;
    run_fig hec[SEEDS], fetch[SEEDS], drop, fault[SEEDS];
    double hec_mean, fetch_mean, fault_mean, hec_mean_fault_seeds;
} per_rank_figs;

static double mean_acc(const run_fig *f, int n)
{
    double m = 0;
    for (int s = 0; s < n; s++)
        m += f[s].test_acc / n;
    return m;
}

/* P ranks, --batch 256 each (in base, with the data, the model and --partitions where the set
 * is saved), `epochs` epochs: hec on every seed, fetch (base + fetch_add) on the first
 * fetch_seeds, drop on seed 1; and hec again with 10% of the pushes dropped on the first
 * fault_seeds. */
static void per_rank_runs(per_rank_figs *F, const char *base, const char *fetch_add, int P, int epochs, int fetch_seeds,
                          int fault_seeds)
{
    char flags[2048];
    F->P = P;
    F->epochs = epochs;
    F->fetch_seeds = fetch_seeds;
    F->fault_seeds = fault_seeds;
    for (int s = 0; s < SEEDS; s++) {
        for (int m = 0; m < 1 + (s < fetch_seeds); m++) {
            snprintf(flags, sizeof flags, "%s%s%s --epochs %d --seed %d --remote %s --backend sim --ranks %d", base,
                     m ? " " : "", m ? fetch_add : "", epochs, s + 1, m ? "fetch" : "hec", P);
            (m ? F->fetch : F->hec)[s] = train(flags);
        }
        if (s < fault_seeds) {
            snprintf(flags, sizeof flags,
                     "%s --epochs %d --seed %d --remote hec --backend sim --ranks %d --fault-drop 0.1 --fault-seed %d",
                     base, epochs, s + 1, P, s + 1);
            F->fault[s] = train(flags);
        }
    }
    snprintf(flags, sizeof flags, "%s --epochs %d --seed 1 --remote drop --backend sim --ranks %d", base, epochs, P);
    F->drop = train(flags);
    F->hec_mean = mean_acc(F->hec, SEEDS);
    F->fetch_mean = mean_acc(F->fetch, fetch_seeds);
    F->fault_mean = fault_seeds ? mean_acc(F->fault, fault_seeds) : 0.0;
    F->hec_mean_fault_seeds = fault_seeds ? mean_acc(F->hec, fault_seeds) : 0.0;
}

/* one[s]: one rank's figure of seed s + 1; the fetch mean is against one rank's mean over the
 * same seeds */
static double one_mean_of(const double *one, int n)
{
    double m = 0;
    for (int s = 0; s < n; s++)
        m += one[s] / n;
    return m;
}

static void print_per_rank(const per_rank_figs *F, const double *one)
{
    const double one_mean = one_mean_of(one, SEEDS);
    fprintf(stderr, "%s, %d ranks at --batch 256 each (global <= %d), %d epochs; one rank --batch 256, %d epochs:\n",
            F->title, F->P, 256 * F->P, F->epochs, F->one_epochs);
    for (int s = 0; s < SEEDS; s++) {
        fprintf(stderr, "  seed %d  one rank %.4f  hec %.4f (%+.2f)", s + 1, one[s], F->hec[s].test_acc,
                100 * (F->hec[s].test_acc - one[s]));
        if (s < F->fetch_seeds)
            fprintf(stderr, "  fetch %.4f (%+.2f)", F->fetch[s].test_acc, 100 * (F->fetch[s].test_acc - one[s]));
        if (s < F->fault_seeds)
            fprintf(stderr, "  hec, 10%% of pushes dropped %.4f (%+.2f vs hec; %lld of %lld segments dropped)",
                    F->fault[s].test_acc, 100 * (F->fault[s].test_acc - F->hec[s].test_acc),
                    (long long)F->fault[s].dropped, (long long)F->fault[s].segments);
        fprintf(stderr, "\n");
    }
    const double one_fetch = one_mean_of(one, F->fetch_seeds);
    fprintf(stderr, "  mean    one rank %.4f  hec %.4f (%+.2f)  fetch (seeds 1-%d) %.4f (%+.2f against %.4f)", one_mean,
            F->hec_mean, 100 * (F->hec_mean - one_mean), F->fetch_seeds, F->fetch_mean,
            100 * (F->fetch_mean - one_fetch), one_fetch);
    if (F->fault_seeds)
        fprintf(stderr, "  hec with drops (seeds 1-%d) %.4f (%+.2f vs hec)", F->fault_seeds, F->fault_mean,
                100 * (F->fault_mean - F->hec_mean_fault_seeds));
    fprintf(stderr, "\n  seed 1: drop %.4f (majority class %.4f); hec pushed %.1f MB, fetch pulled %.1f MB (%.3f); "
                    "hit rate l0 %.3f\n",
            F->drop.test_acc, F->drop.majority, F->hec[0].push_bytes / 1e6, F->fetch[0].pull_bytes / 1e6,
            F->fetch[0].pull_bytes ? (double)F->hec[0].push_bytes / (double)F->fetch[0].pull_bytes : 0.0,
            F->hec[0].hit_l0);
}

/* hec_within_1: hec's mean within 1 point of one rank's; hec_above_drop: seed 1's hec above
 * drop (not on a graph where dropping the halo loses nothing, as Facebook) */
static void check_per_rank(const per_rank_figs *F, const double *one, int hec_within_1, int hec_above_drop)
{
    const int P = F->P;
    const char *t = F->title;
    const double one_mean = one_mean_of(one, SEEDS), one_fetch = one_mean_of(one, F->fetch_seeds);
    if (hec_within_1)
        ck_assert_msg(F->hec_mean >= one_mean - 0.01, "%s, %d ranks: hec mean %.4f is more than 1 point below one "
                      "rank's %.4f", t, P, F->hec_mean, one_mean);
    if (hec_above_drop)
        ck_assert_msg(F->hec[0].test_acc > F->drop.test_acc, "%s, %d ranks: hec %.4f is not above drop %.4f (seed 1)",
                      t, P, F->hec[0].test_acc, F->drop.test_acc);
    ck_assert_msg(F->fetch_mean >= one_fetch - 0.005, "%s, %d ranks: fetch mean %.4f is more than 0.5 point below "
                  "one rank's %.4f", t, P, F->fetch_mean, one_fetch);
    ck_assert_msg(F->drop.test_acc > F->drop.majority, "%s, %d ranks: drop %.4f does not beat the majority class "
                  "%.4f", t, P, F->drop.test_acc, F->drop.majority);
    for (int s = 0; s < F->fetch_seeds; s++)
        ck_assert_msg(F->hec[s].push_bytes > 0 && F->hec[s].push_bytes < F->fetch[s].pull_bytes,
                      "%s, %d ranks, seed %d: hec pushed %lld bytes, fetch pulled %lld: hec must send fewer", t, P,
                      s + 1, (long long)F->hec[s].push_bytes, (long long)F->fetch[s].pull_bytes);
    for (int s = 0; s < F->fault_seeds; s++)
        ck_assert_msg(F->fault[s].dropped > 0, "%s, seed %d: no push was dropped", t, s + 1);
    if (F->fault_seeds)
        ck_assert_msg(fabs(F->fault_mean - F->hec_mean_fault_seeds) <= 0.02, "%s, %d ranks: hec with 10%% of pushes "
                      "dropped %.4f is not within 2 points of hec without faults %.4f", t, P, F->fault_mean,
                      F->hec_mean_fault_seeds);
}

/* One test for 4 and 8 ranks, so that the four single-rank runs serve both; every figure is
 * printed before anything is asserted. */
START_TEST(builtin_per_rank)
{
    NEED_TOOL();
    double one[SEEDS];
    char flags[1024];
    for (int s = 0; s < SEEDS; s++) {
        snprintf(flags, sizeof flags, BUILTIN " --epochs %d --seed %d", ONE_EPOCHS, s + 1);
        one[s] = train(flags).test_acc;
    }
    per_rank_figs f4 = { .title = "builtin SBM", .one_epochs = ONE_EPOCHS }, f8 = f4;
    per_rank_runs(&f4, BUILTIN, "", 4, PART_EPOCHS, FETCH_SEEDS_4, FAULT_SEEDS);
    print_per_rank(&f4, one);
    per_rank_runs(&f8, BUILTIN, "", 8, PART_EPOCHS, SEEDS, 0);
    print_per_rank(&f8, one);
    check_per_rank(&f4, one, 1, 1);
    check_per_rank(&f8, one, HEC_8_WITHIN_1, 1);
}
END_TEST

#define CORA "../shared/datasets/cora"

/* GAT in every mode, on Cora (its public split; 4 ranks, global batch 64, 10 epochs): every
 * mode must learn far beyond the majority class. (GAT barely learns the builtin SBM, whose
 * features are very noisy, in a budget a test can afford: 0.24 after 3 epochs on one rank.) */
START_TEST(gat_every_mode)
{
    NEED_TOOL();
    struct stat sb;
    if (stat(CORA "/meta.txt", &sb) != 0) {
        fprintf(stderr, "gat_every_mode: SKIP (%s not found; run from the repo root with shared/ beside it)\n", CORA);
        return;
    }
    static const char *const modes[3] = { "hec", "fetch", "drop" };
    const char *common = "--model gat --layers 2 --fanouts 10,10 --epochs 10 --seed 1";
    char flags[512];
    snprintf(flags, sizeof flags, "--data %s %s --batch 64", CORA, common);
    const run_fig one = train(flags);
    fprintf(stderr, "gat, cora, 10 epochs: single rank test %.4f\n", one.test_acc);
    for (int i = 0; i < 3; i++) {
        snprintf(flags, sizeof flags, "--data %s %s --batch 16 --remote %s --backend sim --ranks 4", CORA, common,
                 modes[i]);
        const run_fig f = train(flags);
        fprintf(stderr, "gat, cora, 4 ranks, %s: test %.4f (majority class %.4f)\n", modes[i], f.test_acc,
                f.majority);
        ck_assert_msg(f.test_acc > f.majority + 0.3, "gat %s: test %.4f, majority class %.4f", modes[i], f.test_acc,
                      f.majority);
    }
}
END_TEST

#define FACEBOOK "../shared/datasets/facebook"

/* ---- Facebook in the same convention ----------------------------------------------------------
 * One rank with --batch 256 for FB_ONE_EPOCHS epochs against 4 simulated ranks with --batch
 * 256 EACH for FB_PART_EPOCHS, means over seeds 1-4 (hec and fetch on every seed, drop on seed
 * 1). Facebook's 11,235 train vertices make 44 steps per epoch on one rank and 11 per rank at
 * 4 ranks, so one epoch at 4 ranks is a quarter of one rank's updates: measured (seeds 1-4),
 * hec after one epoch is 1.2 points below one rank's one epoch, after two 0.2 above it
 * (docs/hec.md section 7). Asserted: hec's mean within 1 point of one rank's, fetch's within
 * 0.5, drop above the majority class, HEC's pushes fewer bytes than fetch's pulls (hec above drop
 * is not: Facebook loses nothing without its halo); and DistDGLv2's distributed sampling
 * (seed 1) equal to fetch's accuracy (the same blocks) and within 1 point of one rank's. */
#define FB_ONE_EPOCHS 1
#define FB_PART_EPOCHS 2
#define FB_MODEL "--layers 3 --fanouts 5,10,15 --batch 256"

START_TEST(facebook_per_rank)
{
    NEED_TOOL();
    struct stat sb;
    if (stat(FACEBOOK "/meta.txt", &sb) != 0) {
        fprintf(stderr, "facebook_per_rank: SKIP (%s not found; run from the repo root with shared/ beside it)\n",
                FACEBOOK);
        return;
    }
    char data[512], parts[512], args[2048], base[1200], fetch_add[600];
    snprintf(data, sizeof data, "%s", tmp("facebook.gnn"));
    snprintf(parts, sizeof parts, "%s", tmp("fb4"));
    snprintf(args, sizeof args, "convert %s --split 0.5,0.25,0.25 --seed 1 -o %s", FACEBOOK, data);
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    snprintf(args, sizeof args, "partition %s --parts 4 --balance train,degree --seed 1 -o %s", data, parts);
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    double one[SEEDS];
    for (int s = 0; s < SEEDS; s++) {
        snprintf(args, sizeof args, "--data %s " FB_MODEL " --epochs %d --seed %d", data, FB_ONE_EPOCHS, s + 1);
        one[s] = train(args).test_acc;
    }
    snprintf(base, sizeof base, "--partitions %s " FB_MODEL, parts);
    snprintf(fetch_add, sizeof fetch_add, "--data %s", data);
    per_rank_figs f = { .title = "facebook", .one_epochs = FB_ONE_EPOCHS };
    per_rank_runs(&f, base, fetch_add, 4, FB_PART_EPOCHS, SEEDS, 0);
    print_per_rank(&f, one);
    snprintf(args, sizeof args, "%s --sampling distributed --epochs %d --seed 1 --backend sim --ranks 4", base,
             FB_PART_EPOCHS);
    const run_fig dist = train(args);
    fprintf(stderr, "facebook, 4 ranks, distributed sampling (seed 1): test %.4f (fetch %.4f, one rank %.4f, %+.2f "
                    "points)\n",
            dist.test_acc, f.fetch[0].test_acc, one[0], 100 * (dist.test_acc - one[0]));
    check_per_rank(&f, one, 1, 0);
    ck_assert_msg(dist.test_acc == f.fetch[0].test_acc, "distributed sampling %.4f differs from fetch %.4f",
                  dist.test_acc, f.fetch[0].test_acc);
    ck_assert_msg(fabs(dist.test_acc - one[0]) <= 0.01, "distributed sampling %.4f is not within 1 point of one "
                  "rank's %.4f", dist.test_acc, one[0]);
}
END_TEST

/* ---- full batch on partitions (SuperGCN, issue 22; docs/fullbatch.md) ------------------------- */

#define FB_MAX_STEPS 256

/* The figures of a full-batch run's report: test accuracy, the step losses and the "fullbatch"
 * object. */
typedef struct fb_fig {
    double test_acc;
    int64_t epoch_bytes, epoch_formula, rows_pre, rows_post, rows_hybrid;
    int64_t n_steps; /* the step losses, the first FB_MAX_STEPS of them */
    double loss[FB_MAX_STEPS];
} fb_fig;

static fb_fig train_fb(const char *flags)
{
    char args[2048];
    snprintf(args, sizeof args, "train %s --json %s", flags, tmp("fb.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    json_object *r = json_object_from_file(tmp("fb.json"));
    ck_assert_msg(r != NULL, "%s: no JSON report", args);
    fb_fig f = { 0 };
    f.test_acc = json_object_get_double(get(get(r, "final"), "test_acc"));
    json_object *steps = get(r, "steps");
    f.n_steps = (int64_t)json_object_array_length(steps);
    if (f.n_steps > FB_MAX_STEPS)
        f.n_steps = FB_MAX_STEPS;
    for (int64_t i = 0; i < f.n_steps; i++)
        f.loss[i] = json_object_get_double(get(json_object_array_get_idx(steps, (size_t)i), "loss"));
    json_object *fb = NULL;
    if (json_object_object_get_ex(r, "fullbatch", &fb)) {
        f.epoch_bytes = json_object_get_int64(get(fb, "epoch_bytes"));
        f.epoch_formula = json_object_get_int64(get(fb, "epoch_formula_bytes"));
        f.rows_pre = json_object_get_int64(get(fb, "rows_pre"));
        f.rows_post = json_object_get_int64(get(fb, "rows_post"));
        f.rows_hybrid = json_object_get_int64(get(fb, "rows_hybrid"));
    }
    json_object_put(r);
    return f;
}

/* Facebook as the native format without a split (each run splits with its own --seed). */
static int facebook_native(char *data, size_t cap)
{
    struct stat sb;
    if (stat(FACEBOOK "/meta.txt", &sb) != 0)
        return 0;
    char args[1024];
    snprintf(data, cap, "%s", tmp("facebook-nosplit.gnn"));
    if (stat(data, &sb) != 0) {
        snprintf(args, sizeof args, "convert %s -o %s", FACEBOOK, data);
        ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
    }
    return 1;
}

/* docs/fullbatch.md section 4: 4 ranks and one rank in fp32 compute the same function summed
 * in another order, so their step losses part by rounding, and training amplifies the parting
 * step after step. What the docs state for Facebook, seeds 1 to 5, 200 steps: within 1e-6
 * relative for the first FB_DRIFT_1E6_MIN_STEP steps, and never more than FB_DRIFT_MAX apart.
 * Measured 2026-12-02 with the default context (fma: its bits are every x86-64 CPU's): the
 * first step past 1e-6 is 67, 70, 48, 52, 64 and the largest gap 2.3e-5, 2.3e-5, 4.0e-5,
 * 2.7e-5, 2.5e-5 for seeds 1 to 5; the bounds leave a margin of 8 steps and 2.5x. */
#define FB_DRIFT_1E6_MIN_STEP 40
#define FB_DRIFT_MAX 1e-4

static void assert_fp32_drift(const fb_fig *four, const fb_fig *one, int seed)
{
    ck_assert_int_eq(four->n_steps, one->n_steps);
    int64_t first_over = -1;
    double max_rel = 0.0;
    for (int64_t s = 0; s < one->n_steps; s++) {
        const double rel = fabs(four->loss[s] - one->loss[s]) / fabs(one->loss[s]);
        if (rel > 1e-6 && first_over < 0)
            first_over = s;
        max_rel = rel > max_rel ? rel : max_rel;
    }
    fprintf(stderr, "fullbatch gcn facebook seed %d: 4 ranks vs one, fp32: first step past 1e-6 relative %lld, "
                    "largest gap %.3g relative (of %lld steps)\n",
            seed, (long long)first_over, max_rel, (long long)one->n_steps);
    ck_assert_msg(first_over < 0 || first_over >= FB_DRIFT_1E6_MIN_STEP,
                  "seed %d: 4 ranks part from one rank by more than 1e-6 at step %lld (docs: not before %d)", seed,
                  (long long)first_over, FB_DRIFT_1E6_MIN_STEP);
    ck_assert_msg(max_rel <= FB_DRIFT_MAX, "seed %d: 4 ranks part from one rank by %.3g relative (docs: at most %g)",
                  seed, max_rel, FB_DRIFT_MAX);
}

/* The accuracy acceptance: GCN on Facebook (split 50/25/25), 4 simulated ranks, hybrid
 * plan, 200 epochs, mean over seeds 1-5 of the final test accuracy: fp32 within 0.5 point of
 * the single-rank full batch, int2 with stochastic rounding within 1 point of fp32. int2 with
 * nearest rounding is printed beside them (not asserted); per seed, the fp32 runs' step losses
 * against one rank's (assert_fp32_drift). */
START_TEST(fullbatch_facebook_accuracy)
{
    NEED_TOOL();
    char data[512];
    if (!facebook_native(data, sizeof data)) {
        fprintf(stderr, "fullbatch_facebook_accuracy: SKIP (%s not found)\n", FACEBOOK);
        return;
    }
    static const char *const variant[4] = { "", "--backend sim --ranks 4 --parts 4",
                                            "--backend sim --ranks 4 --parts 4 --comm-bits 2",
                                            "--backend sim --ranks 4 --parts 4 --comm-bits 2 --round nearest" };
    double mean[4] = { 0 };
    char flags[1024];
    static fb_fig one, four; /* the fp32 runs' step losses, compared below */
    for (int seed = 1; seed <= 5; seed++) {
        double acc[4];
        for (int v = 0; v < 4; v++) {
            snprintf(flags, sizeof flags,
                     "--data %s --split 0.5,0.25,0.25 --seed %d --mode fullbatch --model gcn --epochs 200 --quiet %s",
                     data, seed, variant[v]);
            const fb_fig f = train_fb(flags);
            if (v < 2)
                *(v ? &four : &one) = f;
            acc[v] = f.test_acc;
            mean[v] += acc[v] / 5.0;
        }
        fprintf(stderr, "fullbatch gcn facebook seed %d: one rank %.4f  4 ranks fp32 %.4f  int2 stochastic %.4f  "
                        "int2 nearest %.4f\n",
                seed, acc[0], acc[1], acc[2], acc[3]);
        assert_fp32_drift(&four, &one, seed);
    }
    fprintf(stderr, "fullbatch gcn facebook, mean of 5 seeds: one rank %.4f  fp32 %.4f (%+.2f points)  int2 "
                    "stochastic %.4f (%+.2f vs fp32)  int2 nearest %.4f (%+.2f vs fp32)\n",
            mean[0], mean[1], 100 * (mean[1] - mean[0]), mean[2], 100 * (mean[2] - mean[1]), mean[3],
            100 * (mean[3] - mean[1]));
    ck_assert_msg(fabs(mean[1] - mean[0]) <= 0.005, "fp32 on 4 ranks %.4f is not within 0.5 point of one rank's %.4f",
                  mean[1], mean[0]);
    ck_assert_msg(fabs(mean[2] - mean[1]) <= 0.01, "int2 stochastic %.4f is not within 1 point of fp32's %.4f",
                  mean[2], mean[1]);
}
END_TEST

/* The traffic acceptance on Facebook and the built-in dataset, METIS with 2, 4 and 8
 * parts: one training epoch's exchanges (hybrid, int2 both ways) are exactly the plan's formula
 * in bytes, and hybrid sends no more rows than pre or post (per pair, and the optimality
 * certificate: the commplan oracle and tests/test_commplan.c). Prints hybrid/pre per K. */
START_TEST(fullbatch_traffic_formula)
{
    NEED_TOOL();
    char fb[512];
    const int have_fb = facebook_native(fb, sizeof fb);
    const char *data[2] = { "builtin", fb };
    for (int d = 0; d < 1 + have_fb; d++)
        for (int k = 2; k <= 8; k *= 2) {
            char flags[1024];
            snprintf(flags, sizeof flags,
                     "--data %s --split 0.5,0.25,0.25 --mode fullbatch --model gcn --epochs 1 --quiet --backend sim "
                     "--ranks %d --parts %d --part-method metis --plan hybrid --comm-bits 2",
                     data[d], k, k);
            const fb_fig f = train_fb(flags);
            fprintf(stderr, "fullbatch traffic %s K=%d: rows pre %lld post %lld hybrid %lld (hybrid/pre %.3f); epoch "
                            "%lld bytes, plan formula %lld\n",
                    d ? "facebook" : "builtin", k, (long long)f.rows_pre, (long long)f.rows_post,
                    (long long)f.rows_hybrid, f.rows_pre ? (double)f.rows_hybrid / (double)f.rows_pre : 0.0,
                    (long long)f.epoch_bytes, (long long)f.epoch_formula);
            ck_assert(f.epoch_bytes > 0 && f.epoch_bytes == f.epoch_formula);
            ck_assert(f.rows_hybrid <= f.rows_pre && f.rows_hybrid <= f.rows_post);
        }
    if (!have_fb)
        fprintf(stderr, "fullbatch_traffic_formula: facebook SKIP (%s not found)\n", FACEBOOK);
}
END_TEST

Suite *suite_accuracy(void)
{
    Suite *s = suite_create("accuracy");
    TCase *tc = tcase_create("accuracy");
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    tcase_set_tags(tc, "slow");
    tcase_set_timeout(tc, 1800);
    tcase_add_test(tc, gat_every_mode);
    tcase_add_test(tc, facebook_per_rank);
    suite_add_tcase(s, tc);
    TCase *pr = tcase_create("per_rank"); /* CK_RUN_CASE=per_rank runs the builtin SBM's hec cases alone */
    tcase_add_checked_fixture(pr, NULL, cli_cleanup);
    tcase_set_tags(pr, "slow");
    tcase_set_timeout(pr, 1800);
    tcase_add_test(pr, builtin_per_rank);
    suite_add_tcase(s, pr);
    TCase *fb = tcase_create("fullbatch"); /* CK_RUN_CASE=fullbatch runs these alone */
    tcase_add_checked_fixture(fb, NULL, cli_cleanup);
    tcase_set_tags(fb, "slow");
    tcase_set_timeout(fb, 1800);
    tcase_add_test(fb, fullbatch_traffic_formula);
    tcase_add_test(fb, fullbatch_facebook_accuracy);
    suite_add_tcase(s, fb);
    return s;
}
