// bench/shim.cc -- Google Benchmark (1.7) behind a small C ABI (bench/bench.h), and main().
//
// The benchmarks themselves are C (bench/bench_registry.c, over the oracle registry); this
// file only forwards: a registered C function receives the benchmark::State as an opaque
// pointer and drives KeepRunning() through gnn_bench_keep_running().
#include <benchmark/benchmark.h>

#include <string>

#include "bench/bench.h"

namespace {
benchmark::State &S(void *st) { return *static_cast<benchmark::State *>(st); }
}  // namespace

extern "C" {

void gnn_bench_register(const char *name, gnn_bench_fn fn, void *arg)
{
    benchmark::RegisterBenchmark(name, [fn, arg](benchmark::State &st) { fn(&st, arg); })
        ->UseRealTime()  // OpenMP: CPU time would add up the threads
        ->Unit(benchmark::kMillisecond);
}

int gnn_bench_keep_running(void *st) { return S(st).KeepRunning() ? 1 : 0; }

int64_t gnn_bench_iterations(void *st) { return static_cast<int64_t>(S(st).iterations()); }

void gnn_bench_set_counter(void *st, const char *name, double value)
{
    S(st).counters[name] = benchmark::Counter(value);
}

void gnn_bench_set_bytes(void *st, double bytes_per_iteration)
{
    S(st).SetBytesProcessed(static_cast<int64_t>(bytes_per_iteration * static_cast<double>(S(st).iterations())));
}

void gnn_bench_set_label(void *st, const char *label) { S(st).SetLabel(label); }

void gnn_bench_error(void *st, const char *msg) { S(st).SkipWithError(msg); }

void gnn_bench_pause(void *st) { S(st).PauseTiming(); }

void gnn_bench_resume(void *st) { S(st).ResumeTiming(); }

}  // extern "C"

int main(int argc, char **argv)
{
    if (const int rc = gnn_bench_take_plugins(&argc, argv))  // --plugin LIB.so (bench/bench_plugin.c)
        return rc;
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 2;
    benchmark::AddCustomContext("gnnref", GNN_VERSION);
    gnn_bench_register_all();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    gnn_bench_cleanup();
    return 0;
}
