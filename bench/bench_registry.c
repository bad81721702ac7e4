/* bench/bench_registry.c -- benchmarks from the oracle registry (DESIGN.md section 7).
 *
 * For every registry entry with a bench hook, every benchmark size of that hook and every
 * implementation (threaded ones at 1 and 2 threads), the case is first run through the
 * oracle at that very size; only a PASS is registered as a benchmark. So a number printed
 * here always belongs to an implementation that agrees with the reference on these inputs.
 *
 * Reported per benchmark (Google Benchmark columns plus counters):
 *   bytes_per_second  Google Benchmark's own, from the bytes the hook says one call touches
 *   GB/s              the same bytes over our wall-clock time per call, in 10^9 bytes
 *   GFLOP/s           where the hook counts floating-point operations
 *   edges/s, rows/s   items per second, as the hook names them
 *   speedup           time of ref / time of this implementation, both measured in this run
 *                     (the ref benchmark of the same entry and size runs first)
 * Inputs are built once per benchmark (outside the timing) and released before the next. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench/bench.h"
#include "gnnref/oracle.h"
#include "core/base/clock.h"

/* Thread counts benchmarked for threaded implementations. The oracle also runs 4 threads
 * (oversubscribed on purpose, to shake out races); a timing at 4 threads on a 2-core
 * machine means nothing, so the benchmarks stay at 1 and 2. */
static const int k_bench_threads[] = { 1, 2 };

typedef struct bench_case {
    gnn_oracle_case c;
    char name[320];
    int is_ref;
    double *ref_seconds; /* per-call time of this entry and size under ref (0: not measured) */
} bench_case;

static bench_case *g_cases;
static int g_n, g_cap;
static double *g_ref_slots;
static int g_n_slots;

/* the one live fixture */
static const bench_case *g_live;
static void *g_fixture;
static gnn_oracle_work g_work;

static void release_live(void)
{
    if (g_live && g_fixture)
        g_live->c.entry->bench->teardown(g_fixture);
    g_live = NULL;
    g_fixture = NULL;
}

static void bench_fn(void *st, void *arg)
{
    const bench_case *b = arg;
    const gnn_oracle_bench *hook = b->c.entry->bench;
    if (g_live != b) {
        release_live();
        memset(&g_work, 0, sizeof g_work);
        gnn_status s = hook->setup(&b->c, &g_fixture, &g_work);
        if (s) {
            g_fixture = NULL;
            gnn_bench_error(st, gnn_status_str(s));
            while (gnn_bench_keep_running(st)) {
            }
            return;
        }
        g_live = b;
    }
    const int prev = b->c.threads > 0 ? gnn_oracle_set_threads(b->c.threads) : 0;
    gnn_status s = GNN_OK;
    const double t0 = gnn_now_s();
    while (gnn_bench_keep_running(st))
        if (hook->run(g_fixture) != GNN_OK)
            s = GNN_ERR_INTERNAL;
    const double elapsed = gnn_now_s() - t0;
    if (b->c.threads > 0)
        gnn_oracle_set_threads(prev);
    if (s) {
        gnn_bench_error(st, "the implementation returned an error");
        return;
    }
    const int64_t iters = gnn_bench_iterations(st);
    if (iters <= 0 || elapsed <= 0)
        return;
    const double per_call = elapsed / (double)iters;
    gnn_bench_set_bytes(st, g_work.bytes);
    gnn_bench_set_counter(st, "GB/s", g_work.bytes / per_call * 1e-9);
    if (g_work.flops > 0)
        gnn_bench_set_counter(st, "GFLOP/s", g_work.flops / per_call * 1e-9);
    if (g_work.items > 0)
        gnn_bench_set_counter(st, g_work.items_name ? g_work.items_name : "items/s", g_work.items / per_call);
    if (b->is_ref)
        *b->ref_seconds = per_call;
    else if (*b->ref_seconds > 0)
        gnn_bench_set_counter(st, "speedup", *b->ref_seconds / per_call);
}

static bench_case *add_case(void)
{
    if (g_n == g_cap) {
        int cap = g_cap ? 2 * g_cap : 32;
        bench_case *p = realloc(g_cases, (size_t)cap * sizeof *p);
        if (!p)
            return NULL;
        g_cases = p;
        g_cap = cap;
    }
    return &g_cases[g_n++];
}

void gnn_bench_register_all(void)
{
    /* one ref-time slot per (entry, size) */
    int slots = 0;
    for (const gnn_oracle_entry *const *ep = gnn_oracle_registry; *ep; ep++)
        if ((*ep)->bench)
            for (int s = 0; (*ep)->bench->sizes[s]; s++)
                slots++;
    g_ref_slots = calloc((size_t)slots + 1, sizeof(double));
    g_n_slots = slots;
    if (!g_ref_slots)
        return;
    int slot = 0, rejected = 0, emulated = 0, no_device = 0;
    for (const gnn_oracle_entry *const *ep = gnn_oracle_registry; *ep; ep++) {
        const gnn_oracle_entry *e = *ep;
        if (!e->bench)
            continue;
        for (int s = 0; e->bench->sizes[s]; s++, slot++) {
            /* ref first, so that speedups can be measured against it in the same run */
            const gnn_oracle_impl *order[16];
            int n_impl = 0;
            order[n_impl++] = e->ref;
            for (const gnn_oracle_impl *const *ip = e->impls; *ip && n_impl < 12; ip++)
                if (*ip != e->ref)
                    order[n_impl++] = *ip;
            n_impl += gnn_bench_plugin_impls(e, order + n_impl, 16 - n_impl); /* --plugin: beside ours */
            for (int k = 0; k < n_impl; k++) {
                const gnn_oracle_impl *impl = order[k];
                if (impl->flags & GNN_ORACLE_EMULATED) { /* checked by the oracle, never timed */
                    emulated++;
                    continue;
                }
                const int threaded = (impl->flags & GNN_ORACLE_THREADED) != 0;
                const int n_t = threaded ? (int)(sizeof k_bench_threads / sizeof k_bench_threads[0]) : 1;
                for (int t = 0; t < n_t; t++) {
                    gnn_oracle_case c;
                    gnn_err err;
                    if (gnn_oracle_case_init(&c, e, impl, threaded ? k_bench_threads[t] : 0, e->bench->sizes[s],
                                             1, &err)) {
                        fprintf(stderr, "gnnref-bench: %s: bad benchmark size '%s': %s\n", e->name, e->bench->sizes[s],
                                err.msg);
                        rejected++;
                        continue;
                    }
                    gnn_oracle_result r;
                    const gnn_oracle_outcome o = gnn_oracle_run(&c, &r);
                    if (o == GNN_ORACLE_SKIP) { /* no device for it here (the cuda tables without a GPU) */
                        no_device++;
                        continue;
                    }
                    if (o != GNN_ORACLE_PASS) {
                        fprintf(stderr, "gnnref-bench: not benchmarking %s: oracle %s\n  %s\n", r.case_str,
                                gnn_oracle_outcome_str(r.outcome), r.detail);
                        rejected++;
                        continue;
                    }
                    bench_case *b = add_case();
                    if (!b)
                        return;
                    b->c = c;
                    b->is_ref = impl == e->ref;
                    b->ref_seconds = &g_ref_slots[slot];
                    if (c.threads > 0)
                        snprintf(b->name, sizeof b->name, "%s/%s/threads=%d/%s", e->name, impl->name, c.threads,
                                 e->bench->sizes[s]);
                    else
                        snprintf(b->name, sizeof b->name, "%s/%s/%s", e->name, impl->name, e->bench->sizes[s]);
                }
            }
        }
    }
    /* register only now: g_cases no longer moves */
    for (int i = 0; i < g_n; i++)
        gnn_bench_register(g_cases[i].name, bench_fn, &g_cases[i]);
    fprintf(stderr, "gnnref-bench: %d benchmarks, each checked by the oracle at its size first%s\n", g_n,
            rejected ? " (some were not registered: see above)" : "");
    if (emulated || no_device)
        fprintf(stderr, "gnnref-bench: left out: %d cases of emulated implementations (cuda-emu: checked by the "
                        "oracle, not timed) and %d cases whose device is absent (the oracle says SKIP)\n",
                emulated, no_device);
    gnn_bench_register_sample(); /* bench/bench_sample.c */
    gnn_bench_register_update(); /* bench/bench_update.c */
    gnn_bench_register_aggregate(); /* bench/bench_aggregate.c */
    gnn_bench_register_quant(); /* bench/bench_quant.c */
}

void gnn_bench_cleanup(void)
{
    release_live();
    gnn_bench_cleanup_plugins(); /* after the last fixture: it may hold a plugin's table */
    free(g_cases);
    free(g_ref_slots);
    g_cases = NULL;
    g_ref_slots = NULL;
    g_n = g_cap = g_n_slots = 0;
    gnn_bench_cleanup_sample();
    gnn_bench_cleanup_update();
    gnn_bench_cleanup_aggregate();
    gnn_bench_cleanup_quant();
}
