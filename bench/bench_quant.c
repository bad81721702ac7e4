/* bench/bench_quant.c -- quantized rows (include/gnnref/quant.h, docs/quant.md) against the
 * stream triad measured in the same run (DESIGN.md section 7; the acceptance of issue 22: "the
 * SIMD version moves at least 50% of the stream-triad bandwidth that the same benchmark run
 * measures").
 *
 * Input: 2^24 / d rows of d values (64 MiB of f32, twice the L3 of the machines we run on),
 * spread values from an oracle stream, row ids 3 i + 1; int2, seed 1, step 0, layer 0, forward.
 *
 *   quant/triad/threads=T                  a[i] = b[i] + s c[i] over 2^24 floats (STREAM's
 *       triad, 3 arrays of 64 MiB): bytes 3 * 4 * 2^24 (STREAM's count: no write-allocate).
 *   quant/pack-int2-{stochastic,nearest}/d=D/{ref,cpu/threads=T}   gnn_quant_pack of all rows.
 *       Bytes: the f32 read + the packed codes and parameters written (n (4 d + d/4 + 4)).
 *   quant/unpack-int2/d=D/{ref,cpu/threads=T}                       gnn_quant_unpack of them.
 *       Bytes: the message read + the f32 written (the same count).
 * Before timing, cpu's bytes (pack) and floats (unpack) are compared with ref's bitwise on the
 * whole input; a mismatch reports an error and no number.
 * Threads: 1, 2, and all cores where the machine has more than 2 (there the triad is the
 * machine's memory bandwidth, not one core's share of it).
 * Counters: GB/s (10^9 bytes per second of wall time of the timed calls), speedup (over ref,
 * this run), and for cpu: triad_GB/s, the triad at the same thread count measured by a triad
 * call right after every timed call (paused, so not in the Time column), and of_triad = GB/s /
 * triad_GB/s: the acceptance figure (>= 0.5). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench/bench.h"
#include "gnnref/oracle.h"
#include "gnnref/quant.h"
#include "gnnref/tensor.h"
#include "core/base/clock.h"
#ifdef GNN_HAVE_OPENMP
#include <omp.h>
#endif

#define QB_ELEMS (1ll << 24)
#define QB_BITS 2

typedef struct quant_case {
    char name[128];
    int kind;    /* 0 triad, 1 pack stochastic, 2 pack nearest, 3 unpack */
    int is_cpu;
    int threads; /* 0 for ref */
    int64_t d;
    int checked; /* cpu: 0 not yet, 1 equal to ref, -1 differs */
    char msg[256];
} quant_case;

static quant_case g_cases[32];
static int g_n;
static double g_ref_s[4][2]; /* per-iteration time of ref, by kind and d (0: 128, 1: 256) */

static int g_state; /* 0 not built, 1 ready, -1 failed */
static char g_err[256];
static float *g_x, *g_y, *g_y_ref, *g_ta, *g_tb, *g_tc;
static int64_t *g_gid;
static uint8_t *g_data, *g_par, *g_data_ref, *g_par_ref;

static int fixture_build(void)
{
    const size_t fb = (size_t)QB_ELEMS * sizeof(float), nmax = (size_t)(QB_ELEMS / 128);
    const size_t mb = (size_t)gnn_quant_message_bytes((int64_t)nmax, 128, QB_BITS);
    g_x = gnn_malloc(fb);
    g_y = gnn_malloc(fb);
    g_y_ref = gnn_malloc(fb);
    g_ta = gnn_malloc(fb);
    g_tb = gnn_malloc(fb);
    g_tc = gnn_malloc(fb);
    g_gid = gnn_malloc(nmax * sizeof(int64_t));
    g_data = gnn_malloc(mb);
    g_data_ref = gnn_malloc(mb);
    g_par = gnn_malloc(nmax * GNN_QUANT_PARAM_BYTES);
    g_par_ref = gnn_malloc(nmax * GNN_QUANT_PARAM_BYTES);
    if (!g_x || !g_y || !g_y_ref || !g_ta || !g_tb || !g_tc || !g_gid || !g_data || !g_data_ref || !g_par ||
        !g_par_ref) {
        snprintf(g_err, sizeof g_err, "out of memory for the quantization benchmarks");
        return -1;
    }
    gnn_oracle_case oc;
    memset(&oc, 0, sizeof oc);
    oc.seed = 1;
    gnn_oracle_draws g = gnn_oracle_draws_make(&oc, 4);
    gnn_oracle_fill_spread(&g, g_x, QB_ELEMS);
    for (size_t i = 0; i < nmax; i++)
        g_gid[i] = 3 * (int64_t)i + 1;
    /* touch every page now, not in the first timed call */
    memset(g_y, 0, fb);
    memset(g_y_ref, 0, fb);
    memset(g_data, 0, mb);
    memset(g_data_ref, 0, mb);
    for (int64_t i = 0; i < QB_ELEMS; i++) {
        g_ta[i] = 0.0f;
        g_tb[i] = (float)(i & 1023);
        g_tc[i] = 0.5f;
    }
    return 0;
}

static int fixture_ready(void)
{
    if (g_state == 0)
        g_state = fixture_build() == 0 ? 1 : -1;
    return g_state == 1;
}

static void triad(void)
{
    float *restrict a = g_ta;
    const float *restrict b = g_tb, *restrict c = g_tc;
    const float s = 3.0f;
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < QB_ELEMS; i++)
        a[i] = b[i] + s * c[i];
}

static gnn_quant_cfg cfg_of(int kind)
{
    gnn_quant_cfg q;
    memset(&q, 0, sizeof q);
    q.bits = QB_BITS;
    q.round = kind == 2 ? GNN_QUANT_NEAREST : GNN_QUANT_STOCHASTIC;
    q.seed = 1;
    return q;
}

static gnn_status run_case(const quant_case *c, const gnn_quant_ops *ops, uint8_t *data, uint8_t *par, float *y)
{
    const int64_t n = QB_ELEMS / c->d;
    if (c->kind == 3)
        return gnn_quant_unpack(ops, g_data_ref, g_par_ref, n, c->d, QB_BITS, y);
    const gnn_quant_cfg q = cfg_of(c->kind);
    return gnn_quant_pack(ops, g_x, n, c->d, g_gid, &q, data, par);
}

/* cpu against ref on the whole input, bitwise, before any timing. For unpack, ref's pack of
 * the same rows (stochastic) is the message both decode. */
static int check_cpu(quant_case *c)
{
    const int64_t n = QB_ELEMS / c->d;
    const size_t mb = (size_t)(n * gnn_quant_data_bytes(c->d, QB_BITS)), pb = (size_t)n * GNN_QUANT_PARAM_BYTES;
    quant_case pk = *c;
    pk.kind = c->kind == 3 ? 1 : c->kind;
    if (run_case(&pk, &gnn_quant_ref, g_data_ref, g_par_ref, NULL)) {
        snprintf(c->msg, sizeof c->msg, "ref pack failed");
        return 0;
    }
    if (c->kind != 3) {
        if (run_case(c, &gnn_quant_cpu, g_data, g_par, NULL) || memcmp(g_data, g_data_ref, mb) ||
            memcmp(g_par, g_par_ref, pb)) {
            snprintf(c->msg, sizeof c->msg, "cpu pack differs from ref (bitwise)");
            return 0;
        }
        return 1;
    }
    if (run_case(c, &gnn_quant_ref, NULL, NULL, g_y_ref) || run_case(c, &gnn_quant_cpu, NULL, NULL, g_y) ||
        memcmp(g_y, g_y_ref, (size_t)QB_ELEMS * sizeof(float))) {
        snprintf(c->msg, sizeof c->msg, "cpu unpack differs from ref (bitwise)");
        return 0;
    }
    return 1;
}

static void fail_all(void *st, const char *msg)
{
    gnn_bench_error(st, msg);
    while (gnn_bench_keep_running(st)) {
    }
}

static void quant_bench(void *st, void *arg)
{
    quant_case *c = arg;
    if (!fixture_ready()) {
        fail_all(st, g_err);
        return;
    }
    const int prev = c->threads > 0 ? gnn_oracle_set_threads(c->threads) : 0;
    if (c->kind != 0 && c->checked == 0) {
        /* unpack decodes ref's message; ref's own timing needs it too */
        c->checked = (c->is_cpu || c->kind == 3) ? (check_cpu(c) ? 1 : -1) : 1;
        if (c->checked < 0)
            fprintf(stderr, "gnnref-bench: not benchmarking %s: %s\n", c->name, c->msg);
    }
    if (c->checked < 0) {
        if (c->threads > 0)
            gnn_oracle_set_threads(prev);
        fail_all(st, c->msg);
        return;
    }
    const gnn_quant_ops *ops = c->is_cpu ? &gnn_quant_cpu : &gnn_quant_ref;
    gnn_status rc = GNN_OK;
    if (c->kind == 0) /* one untimed warm-up call first (caches, OpenMP thread pool) */
        triad();
    else
        rc = run_case(c, ops, g_data, g_par, g_y);
    double t_main = 0, t_triad = 0;
    int64_t iters = 0;
    while (gnn_bench_keep_running(st)) {
        const double t0 = gnn_now_s();
        gnn_status s = GNN_OK;
        if (c->kind == 0)
            triad();
        else
            s = run_case(c, ops, g_data, g_par, g_y);
        t_main += gnn_now_s() - t0;
        if (s)
            rc = s;
        if (c->is_cpu) {
            /* the triad again, right after, untimed by Google Benchmark: the ratio of two
             * interleaved measurements is steady where two benchmarks apart are not */
            gnn_bench_pause(st);
            const double t1 = gnn_now_s();
            triad();
            t_triad += gnn_now_s() - t1;
            gnn_bench_resume(st);
        }
        iters++;
    }
    if (c->threads > 0)
        gnn_oracle_set_threads(prev);
    if (rc) {
        gnn_bench_error(st, gnn_status_str(rc));
        return;
    }
    if (iters == 0 || t_main <= 0)
        return;
    const double per = t_main / (double)iters;
    const double tri_bytes = 3.0 * 4.0 * (double)QB_ELEMS;
    const double bytes = c->kind == 0 ? tri_bytes
                                      : 4.0 * (double)QB_ELEMS +
                                            (double)gnn_quant_message_bytes(QB_ELEMS / c->d, c->d, QB_BITS);
    gnn_bench_set_bytes(st, bytes);
    const double gbs = bytes / per * 1e-9;
    gnn_bench_set_counter(st, "GB/s", gbs);
    const int di = c->d == 128 ? 0 : 1;
    if (c->kind != 0 && !c->is_cpu)
        g_ref_s[c->kind][di] = per;
    if (c->is_cpu) {
        const double tri_gbs = tri_bytes / (t_triad / (double)iters) * 1e-9;
        if (g_ref_s[c->kind][di] > 0)
            gnn_bench_set_counter(st, "speedup", g_ref_s[c->kind][di] / per);
        gnn_bench_set_counter(st, "triad_GB/s", tri_gbs);
        gnn_bench_set_counter(st, "of_triad", gbs / tri_gbs);
        gnn_bench_set_label(st, "checked bitwise vs ref");
    }
}

void gnn_bench_register_quant(void)
{
    /* 1 and 2 threads, and every core where there are more than 2: with all cores the triad is
     * the machine's memory bandwidth, which is what the ratio is about */
    int threads[3] = { 1, 2, 0 }, n_threads = 1;
#ifdef GNN_HAVE_OPENMP
    n_threads = 2;
    if (omp_get_num_procs() > 2)
        threads[n_threads++] = omp_get_num_procs();
#endif
    static const char *const kind_name[] = { "triad", "pack-int2-stochastic", "pack-int2-nearest", "unpack-int2" };
    for (int t = 0; t < n_threads; t++) {
        quant_case *c = &g_cases[g_n++];
        c->kind = 0;
        c->threads = threads[t];
        snprintf(c->name, sizeof c->name, "quant/triad/threads=%d", threads[t]);
    }
    static const int64_t dims[] = { 128, 256 };
    for (int di = 0; di < 2; di++)
        for (int kind = 1; kind <= 3; kind++) {
            quant_case *r = &g_cases[g_n++];
            r->kind = kind;
            r->d = dims[di];
            snprintf(r->name, sizeof r->name, "quant/%s/d=%lld/ref", kind_name[kind], (long long)dims[di]);
            for (int t = 0; t < n_threads; t++) {
                quant_case *c = &g_cases[g_n++];
                c->kind = kind;
                c->d = dims[di];
                c->is_cpu = 1;
                c->threads = threads[t];
                snprintf(c->name, sizeof c->name, "quant/%s/d=%lld/cpu/threads=%d", kind_name[kind],
                         (long long)dims[di], threads[t]);
            }
        }
    for (int i = 0; i < g_n; i++)
        gnn_bench_register(g_cases[i].name, quant_bench, &g_cases[i]);
}

void gnn_bench_cleanup_quant(void)
{
    gnn_free(g_x);
    gnn_free(g_y);
    gnn_free(g_y_ref);
    gnn_free(g_ta);
    gnn_free(g_tb);
    gnn_free(g_tc);
    gnn_free(g_gid);
    gnn_free(g_data);
    gnn_free(g_data_ref);
    gnn_free(g_par);
    gnn_free(g_par_ref);
    g_x = g_y = g_y_ref = g_ta = g_tb = g_tc = NULL;
    g_gid = NULL;
    g_data = g_data_ref = g_par = g_par_ref = NULL;
    g_n = 0;
    g_state = 0;
}
