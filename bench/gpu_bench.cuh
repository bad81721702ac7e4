/* bench/gpu_bench.cuh -- what the GPU benchmark's files share (bench/gpu_bench.cu: main, the
 * options, the copy kernel; bench/gpu_bench_agg.cu: the aggregation against cuSPARSE;
 * bench/gpu_bench_quant.cu: the quant pack; bench/gpu_bench_idmap.cu: the Fused-Map against CUB;
 * bench/gpu_bench_sample.cu: the sampling benchmarks' input and the GPU sampler): the error
 * checks, the output row, the random numbers and the timers. Not a library header: the
 * benchmark is one program (make gpu-bench, docs/cuda.md). */
#ifndef GNNREF_BENCH_GPU_BENCH_CUH
#define GNNREF_BENCH_GPU_BENCH_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>
#include "gnnref/idmap.h"
#include "gnnref/sample.h"

/* a failed CUDA call ends the run: exit 1 */
#define CK(call)                                                                                                   \
    do {                                                                                                           \
        cudaError_t e_ = (call);                                                                                   \
        if (e_ != cudaSuccess) {                                                                                   \
            fprintf(stderr, "gnnref-gpu-bench: %s: %s\n", #call, cudaGetErrorString(e_));                         \
            exit(1);                                                                                               \
        }                                                                                                          \
    } while (0)

/* One output row: `name | value | unit | goal | note`. */
void row(const char *name, double value, const char *unit, const char *goal, const char *note);
/* the goal column: "TARGET (met)" or "TARGET (MISSED)"; a missed goal is reported, never an error */
const char *goal_of(char *buf, size_t cap, double value, double target);
/* The run's one random sequence (an LCG): the CSR of the aggregation, then the sampling seeds,
 * in that order, so a run's inputs are fixed. */
uint32_t rnd(void);

/* mean milliseconds of reps runs of fn after two warm-up runs */
template <typename F> static double time_ms(int reps, F fn)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    fn();
    fn();
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(a));
    for (int r = 0; r < reps; r++)
        fn();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return (double)ms / reps;
}

/* soft checks: a failed CUDA call makes its benchmark print a FAIL row and the run exit 1 */
extern char g_fail[256];
#define CKS(call)                                                                                                  \
    do {                                                                                                           \
        cudaError_t e_ = (call);                                                                                   \
        if (e_ != cudaSuccess) {                                                                                   \
            snprintf(g_fail, sizeof g_fail, "%s: %s", #call, cudaGetErrorString(e_));                              \
            return -1;                                                                                             \
        }                                                                                                          \
    } while (0)

/* a device array freed on scope exit */
template <typename T> struct dbuf {
    T *p = nullptr;
    dbuf() = default;
    dbuf(const dbuf &) = delete;
    dbuf &operator=(const dbuf &) = delete;
    ~dbuf()
    {
        if (p)
            cudaFree(p);
    }
    cudaError_t alloc(size_t count)
    {
        if (p)
            cudaFree(p);
        p = nullptr;
        return cudaMalloc((void **)&p, (count ? count : 1) * sizeof(T));
    }
};

/* Median milliseconds of reps runs of fn after one warm-up run. Each run lies between two
 * cudaEvents on the default stream, the device idle before it, and ends with the second event
 * synchronized, so host work inside fn (a public API's copies and checks) counts. fn returns 0 on
 * success; after() runs outside the timed region after every run (the warm-up too), even a failed
 * one. Returns -1 with g_fail set on a failure. */
template <typename F, typename G> static double time_median_ms(int reps, F fn, G after)
{
    cudaEvent_t a = nullptr, b = nullptr;
    std::vector<float> t;
    cudaError_t e = cudaEventCreate(&a);
    if (e == cudaSuccess)
        e = cudaEventCreate(&b);
    int bad = 0;
    for (int r = -1; e == cudaSuccess && !bad && r < reps; r++) { /* r = -1: the warm-up */
        if ((e = cudaDeviceSynchronize()) != cudaSuccess || (e = cudaEventRecord(a)) != cudaSuccess)
            break;
        bad = fn();
        if ((e = cudaEventRecord(b)) == cudaSuccess)
            e = cudaEventSynchronize(b);
        float ms = 0;
        if (e == cudaSuccess && !bad)
            e = cudaEventElapsedTime(&ms, a, b);
        after();
        if (e == cudaSuccess && !bad && r >= 0)
            t.push_back(ms);
    }
    if (a)
        cudaEventDestroy(a);
    if (b)
        cudaEventDestroy(b);
    if (e != cudaSuccess) {
        snprintf(g_fail, sizeof g_fail, "timing: %s", cudaGetErrorString(e));
        return -1;
    }
    if (bad || t.empty()) {
        if (!g_fail[0])
            snprintf(g_fail, sizeof g_fail, "the timed run failed");
        return -1;
    }
    std::sort(t.begin(), t.end());
    const size_t n = t.size();
    return n % 2 ? (double)t[n / 2] : 0.5 * ((double)t[n / 2 - 1] + (double)t[n / 2]);
}

/* The row `name | 0 | FAIL: g_fail`, g_fail cleared, *rc = 1. */
void fail_row(const char *name, int *rc);

/* one layer's ID-map input: dst (n_dst, unique) then the neighbours (nnz), contiguous */
struct map_layer {
    int64_t n_dst = 0, nnz = 0;
    std::vector<int64_t> ids; /* dst ++ nbr */
};

/* bench/gpu_bench_agg.cu: the random CSR block (n_dst rows, degrees uniform in lo..hi, sources
 * uniform in n_src, features of width d), the memory-aware gather (sum and weighted) checked
 * bitwise against ref, cuSPARSE SpMM on the same CSR, the fraction of the copy bandwidth; then
 * the quant pack on the same features. */
void bench_agg(int64_t n_dst, int64_t n_src, int64_t lo, int64_t hi, int64_t d, int reps, double copy_gbs);
/* bench/gpu_bench_quant.cu: int2 stochastic quantize + pack of n rows of d (d_x on the device). */
void bench_quant(const float *d_x, int64_t n, int64_t d, int reps, double copy_gbs);
/* bench/gpu_bench_idmap.cu: the Fused-Map (public API, and its kernels alone) against CUB sort
 * + unique on the layers. */
void bench_fusedmap(const std::vector<map_layer> &layers, int64_t n_vertices, int64_t batch, int reps, int sms,
                    int *rc);
/* bench/gpu_bench_sample.cu: the R-MAT graph, then per batch size: the reference blocks, the
 * maps (bench_fusedmap), the samplers. */
void bench_sampling(int scale, const std::vector<int64_t> &batches, const std::vector<int64_t> &fanouts, int reps,
                    int sms, int *rc);

#endif
