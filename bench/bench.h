/* bench/bench.h -- the C ABI of bench/shim.cc: Google Benchmark for C functions.
 *
 * A benchmark is a C function fn(state, arg) that loops `while (gnn_bench_keep_running(st))`
 * over the work it times, and may report counters. bench/bench_registry.c registers one
 * benchmark per oracle registry entry, size and implementation (gnn_bench_register_all);
 * the shim's main() initializes Google Benchmark, calls it, and runs them. */
#ifndef GNNREF_BENCH_H
#define GNNREF_BENCH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*gnn_bench_fn)(void *state, void *arg);

/* Register fn(state, arg) under `name` (copied). Timed in wall-clock time (OpenMP). */
void gnn_bench_register(const char *name, gnn_bench_fn fn, void *arg);
/* The timing loop: true while Google Benchmark wants another iteration. */
int gnn_bench_keep_running(void *state);
/* Iterations of the loop just finished. */
int64_t gnn_bench_iterations(void *state);
/* A counter shown as is ("GB/s", "speedup"). */
void gnn_bench_set_counter(void *state, const char *name, double value);
/* Bytes touched per iteration: Google Benchmark's own bytes_per_second column. */
void gnn_bench_set_bytes(void *state, double bytes_per_iteration);
void gnn_bench_set_label(void *state, const char *label);
/* Stop and restart the clock inside the timing loop (work between them is not timed). */
void gnn_bench_pause(void *state);
void gnn_bench_resume(void *state);
/* Mark the benchmark as failed with a message (its results are not reported). */
void gnn_bench_error(void *state, const char *msg);

/* Defined in bench/bench_registry.c: register everything; release fixtures at exit. */
void gnn_bench_register_all(void);
void gnn_bench_cleanup(void);
/* Defined in bench/bench_sample.c (called by the two above): sampling on R-MAT. */
void gnn_bench_register_sample(void);
void gnn_bench_cleanup_sample(void);
/* Defined in bench/bench_update.c: the fused UPDATE against sgemm and the unfused sequence. */
void gnn_bench_register_update(void);
void gnn_bench_cleanup_update(void);
/* Defined in bench/bench_aggregate.c: mean aggregation on sampled blocks vs the gather ceiling. */
void gnn_bench_register_aggregate(void);
void gnn_bench_cleanup_aggregate(void);
/* Defined in bench/bench_quant.c: int2 quantize+pack and unpack+dequantize vs the stream triad. */
void gnn_bench_register_quant(void);
void gnn_bench_cleanup_quant(void);

/* Defined in bench/bench_plugin.c: take every --plugin LIB.so (or --plugin=LIB.so) out of argv
 * and load it (include/gnnref/plugin.h); 0, or 2 after a message on stderr naming the file.
 * gnn_bench_plugin_impls puts the loaded implementations that entry e runs into out (at most
 * max) and returns their count; gnn_bench_cleanup_plugins unloads them. */
struct gnn_oracle_entry;
struct gnn_oracle_impl;
int gnn_bench_take_plugins(int *argc, char **argv);
int gnn_bench_plugin_impls(const struct gnn_oracle_entry *e, const struct gnn_oracle_impl **out, int max);
void gnn_bench_cleanup_plugins(void);

#ifdef __cplusplus
}
#endif
#endif
