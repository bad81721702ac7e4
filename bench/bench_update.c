/* bench/bench_update.c -- the fused UPDATE y = Dropout(ReLU(x . w + b)) against a bare sgemm
 * and the unfused sequence (DistGNN-MB 3.3; include/gnnref/update.h; docs/update.md).
 *
 * Shape: the acceptance size N = 100000, C = K = 256, p = 0.5, at 2 threads (OpenMP for
 * our kernels, OpenBLAS's own pool for the bare sgemm and the unfused GEMM); ref at N = 2000
 * only (it is slow). Inputs uniform in [-1, 1) from the oracle streams (seed 1).
 * Benchmarks, in this order (the baselines first, so that the ratios use this run's times):
 *   update.fwd/sgemm        cblas_sgemm of the same shape (beta = 0), nothing else
 *   update.fwd/unfused      sgemm, then a bias pass, gnn_relu_fwd, gnn_dropout_fwd, each a
 *                           separate pass over y (the passes split over rows with OpenMP)
 *   update.fwd/{cpu,cpu-blocked}   the fused kernels
 *   update.bwd/sgemm        the two bare GEMMs of the backward: dx = dy w^T, dw = x^T dy
 *   update.bwd/{cpu,cpu-blocked}   the fused backward (dz pass, dx, dw with per-thread copies, db)
 * Counters: GFLOP/s (2 N C K per forward, 4 N C K per backward); for the fused kernels
 * fused_over_sgemm (their time / the bare sgemm's: the issue asks <= 1.10 forward) and
 * unfused_over_fused (the unfused time / theirs: the issue asks >= 1.3). */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cblas.h>
#include "bench/bench.h"
#include "gnnref/nn.h"
#include "gnnref/oracle.h"
#include "gnnref/tensor.h"
#include "gnnref/update.h"
#include "core/base/clock.h"
#ifdef _OPENMP
#include <omp.h>
#endif

void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);

enum { UB_SGEMM, UB_UNFUSED, UB_FUSED, UB_BWD_SGEMM, UB_BWD_FUSED };

typedef struct upd_bench {
    char name[96];
    int kind;
    const gnn_update_ops *ops;
    int64_t n;
} upd_bench;

static const int64_t k_c = 256, k_k = 256, k_big = 100000, k_small = 2000;
static const int k_threads = 2;

static upd_bench g_ub[12];
static int g_nub;
static double g_t_sgemm, g_t_unfused, g_t_bwd_sgemm; /* per call, this run */

/* the live inputs (for one n at a time) */
static int64_t g_n = -1;
static float *g_x, *g_w, *g_b, *g_y, *g_dy, *g_dx, *g_dw, *g_db;
static int64_t *g_gid;

static void free_inputs(void)
{
    gnn_free(g_x), gnn_free(g_w), gnn_free(g_b), gnn_free(g_y), gnn_free(g_dy);
    gnn_free(g_dx), gnn_free(g_dw), gnn_free(g_db), gnn_free(g_gid);
    g_x = g_w = g_b = g_y = g_dy = g_dx = g_dw = g_db = NULL;
    g_gid = NULL;
    g_n = -1;
}

static int make_inputs(int64_t n)
{
    if (g_n == n)
        return 0;
    free_inputs();
    g_x = gnn_malloc((size_t)(n * k_c) * sizeof(float));
    g_w = gnn_malloc((size_t)(k_c * k_k) * sizeof(float));
    g_b = gnn_malloc((size_t)k_k * sizeof(float));
    g_y = gnn_malloc((size_t)(n * k_k) * sizeof(float));
    g_dy = gnn_malloc((size_t)(n * k_k) * sizeof(float));
    g_dx = gnn_malloc((size_t)(n * k_c) * sizeof(float));
    g_dw = gnn_malloc((size_t)(k_c * k_k) * sizeof(float));
    g_db = gnn_malloc((size_t)k_k * sizeof(float));
    g_gid = gnn_malloc((size_t)n * sizeof(int64_t));
    if (!g_x || !g_w || !g_b || !g_y || !g_dy || !g_dx || !g_dw || !g_db || !g_gid) {
        free_inputs();
        return -1;
    }
    gnn_oracle_case c;
    memset(&c, 0, sizeof c);
    c.seed = 1;
    gnn_oracle_draws g = gnn_oracle_draws_make(&c, 1);
    float *arrays[] = { g_x, g_w, g_b, g_dy };
    const int64_t counts[] = { n * k_c, k_c * k_k, k_k, n * k_k };
    for (int a = 0; a < 4; a++)
        for (int64_t i = 0; i < counts[a]; i++)
            arrays[a][i] = 2.0f * gnn_oracle_draw_float(&g) - 1.0f;
    for (int64_t i = 0; i < n; i++)
        g_gid[i] = i; /* the ids a NULL row_gid stands for */
    g_n = n;
    return 0;
}

static const gnn_dropout_key k_key = { 0.5f, 42, 7, 1, NULL };

static void sgemm_fwd(int64_t n)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)k_k, (int)k_c, 1.0f, g_x, (int)k_c, g_w,
                (int)k_k, 0.0f, g_y, (int)k_k);
}

static void unfused_fwd(int64_t n)
{
    sgemm_fwd(n);
    const int64_t chunk = 1024, nch = (n + chunk - 1) / chunk;
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < nch; q++) /* bias pass */
        for (int64_t i = q * chunk; i < (q + 1) * chunk && i < n; i++)
            for (int64_t j = 0; j < k_k; j++)
                g_y[i * k_k + j] += g_b[j];
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < nch; q++) { /* ReLU pass */
        const int64_t i0 = q * chunk, rows = n - i0 < chunk ? n - i0 : chunk;
        gnn_relu_fwd(g_y + i0 * k_k, rows * k_k);
    }
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < nch; q++) { /* dropout pass */
        const int64_t i0 = q * chunk, rows = n - i0 < chunk ? n - i0 : chunk;
        gnn_dropout_fwd(g_y + i0 * k_k, rows, k_k, g_gid + i0, k_key.p, k_key.seed, k_key.step, k_key.layer, NULL);
    }
}

static void sgemm_bwd(int64_t n)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)k_c, (int)k_k, 1.0f, g_dy, (int)k_k, g_w,
                (int)k_k, 0.0f, g_dx, (int)k_c);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)k_c, (int)k_k, (int)n, 1.0f, g_x, (int)k_c, g_dy,
                (int)k_k, 0.0f, g_dw, (int)k_k);
}

static void bench_update_fn(void *st, void *arg)
{
    const upd_bench *u = arg;
    if (make_inputs(u->n)) {
        gnn_bench_error(st, "out of memory");
        while (gnn_bench_keep_running(st)) {
        }
        return;
    }
    const int n = (int)u->n;
    int prev_omp = 1;
#ifdef _OPENMP
    prev_omp = omp_get_max_threads();
    omp_set_num_threads(k_threads);
#endif
    const int prev_blas = openblas_get_num_threads();
    openblas_set_num_threads(k_threads);
    gnn_status s = GNN_OK;
    if (u->kind == UB_BWD_FUSED) /* a y from the forward: the realistic zero pattern */
        s = gnn_update_forward(&gnn_update_cpu, g_x, n, k_c, g_w, g_b, k_k, &k_key, g_y);
    const double t0 = gnn_now_s();
    while (gnn_bench_keep_running(st)) {
        switch (u->kind) {
        case UB_SGEMM: sgemm_fwd(n); break;
        case UB_UNFUSED: unfused_fwd(n); break;
        case UB_FUSED: s |= gnn_update_forward(u->ops, g_x, n, k_c, g_w, g_b, k_k, &k_key, g_y); break;
        case UB_BWD_SGEMM: sgemm_bwd(n); break;
        default: s |= gnn_update_backward(u->ops, g_x, g_y, g_dy, n, k_c, g_w, k_k, k_key.p, g_dx, g_dw, g_db); break;
        }
    }
    const double elapsed = gnn_now_s() - t0;
    openblas_set_num_threads(prev_blas);
#ifdef _OPENMP
    omp_set_num_threads(prev_omp);
#endif
    if (s) {
        gnn_bench_error(st, "the implementation returned an error");
        return;
    }
    const int64_t iters = gnn_bench_iterations(st);
    if (iters <= 0 || elapsed <= 0)
        return;
    const double per = elapsed / (double)iters;
    const int bwd = u->kind >= UB_BWD_SGEMM;
    const double flops = (bwd ? 4.0 : 2.0) * (double)u->n * (double)k_c * (double)k_k;
    gnn_bench_set_counter(st, "GFLOP/s", flops / per * 1e-9);
    if (u->n != k_big)
        return;
    switch (u->kind) {
    case UB_SGEMM: g_t_sgemm = per; break;
    case UB_UNFUSED: g_t_unfused = per; break;
    case UB_BWD_SGEMM: g_t_bwd_sgemm = per; break;
    case UB_FUSED:
        if (g_t_sgemm > 0)
            gnn_bench_set_counter(st, "fused_over_sgemm", per / g_t_sgemm);
        if (g_t_unfused > 0)
            gnn_bench_set_counter(st, "unfused_over_fused", g_t_unfused / per);
        break;
    default:
        if (g_t_bwd_sgemm > 0)
            gnn_bench_set_counter(st, "fused_over_sgemm", per / g_t_bwd_sgemm);
        break;
    }
}

static void add(const char *name, int kind, const gnn_update_ops *ops, int64_t n)
{
    upd_bench *u = &g_ub[g_nub++];
    snprintf(u->name, sizeof u->name, "%s/n=%lld,c=256,k=256,p=0.5", name, (long long)n);
    u->kind = kind;
    u->ops = ops;
    u->n = n;
}

void gnn_bench_register_update(void)
{
    g_nub = 0;
    add("update.fwd/ref", UB_FUSED, &gnn_update_ref, k_small);
    add("update.fwd/cpu/threads=2", UB_FUSED, &gnn_update_cpu, k_small);
    add("update.fwd/sgemm/threads=2", UB_SGEMM, NULL, k_big);
    add("update.fwd/unfused/threads=2", UB_UNFUSED, NULL, k_big);
    add("update.fwd/cpu/threads=2", UB_FUSED, &gnn_update_cpu, k_big);
    add("update.fwd/cpu-blocked/threads=2", UB_FUSED, &gnn_update_blocked, k_big);
    add("update.bwd/ref", UB_BWD_FUSED, &gnn_update_ref, k_small);
    add("update.bwd/sgemm/threads=2", UB_BWD_SGEMM, NULL, k_big);
    add("update.bwd/cpu/threads=2", UB_BWD_FUSED, &gnn_update_cpu, k_big);
    add("update.bwd/cpu-blocked/threads=2", UB_BWD_FUSED, &gnn_update_blocked, k_big);
    for (int i = 0; i < g_nub; i++)
        gnn_bench_register(g_ub[i].name, bench_update_fn, &g_ub[i]);
}

void gnn_bench_cleanup_update(void)
{
    free_inputs();
}
