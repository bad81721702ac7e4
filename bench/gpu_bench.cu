/* bench/gpu_bench.cu -- the GPU benchmarks of the CUDA tier (docs/cuda.md; run by
 * ci/gpu-check.sh; built by `make gpu-bench` in a CUDA build): on one card, in one run,
 *   copy       a float4 copy kernel: the card's achievable memory bandwidth (read + write);
 *   agg        the Memory-Aware gather (opt/cuda/aggregate_body.h), sum and weighted, on a
 *              random CSR at d = 256 (default), timed on the device alone (no host copies),
 *              its output compared bitwise with ref/aggregate.c on the host;
 *   cusparse   cuSPARSE SpMM on the same CSR (values = the weights; row-major dense), the best
 *              of its default and CSR_ALG2 algorithms; SKIP when cuSPARSE was not found at
 *              build time;
 *   quant      int2 stochastic quantize + pack (opt/cuda/quant_body.h) of n x d rows;
 *   idmap      on the sampled layers of an R-MAT graph (--scale, --batch, --fanouts): FastGL's
 *              Fused-Map (gnn_idmap_cuda, GNN_IDMAP_FUSED) against CUB sort + unique + relabel,
 *              both through host in/out copies (the public API) and as device kernels alone;
 *   sample     gnn_sampler_cuda (fused variant), ordered and Fused-Map, in edges per second on
 *              the same graph and seeds, its blocks checked against ref's.
 * Times are cudaEvent times: agg/copy/quant the mean of --reps runs after two warm-ups; idmap and
 * sample the median of --reps runs after one warm-up.
 * Prints one row per figure: `name | value | unit | goal | note` (goal: issue 24's target and
 * whether it is met; a missed goal is reported, never an error). Exit 0 with "SKIP: no GPU: ..."
 * where no GPU can run it; exit 1 when a CUDA call fails; a line starting "MISMATCH" when a
 * result differs from ref. Options: --n-dst N --n-src N --deg LO..HI --d D --reps R --scale S
 * --batch B1,B2,.. --fanouts K1,K2,.. (defaults 20, 1000,8192 and 15,10,5).
 * This file: main, the options, the shared row and random numbers, the copy kernel. One file
 * per benchmark besides (bench/gpu_bench.cuh): bench/gpu_bench_agg.cu (agg, cusparse),
 * bench/gpu_bench_quant.cu, bench/gpu_bench_idmap.cu, bench/gpu_bench_sample.cu. */
#include <string.h>
#include "bench/gpu_bench.cuh"
#include "gnnref/cuda.h"

void row(const char *name, double value, const char *unit, const char *goal, const char *note)
{
    printf("%-40s | %12.3f | %-8s | %-16s | %s\n", name, value, unit, goal, note);
}

const char *goal_of(char *buf, size_t cap, double value, double target)
{
    snprintf(buf, cap, ">= %.2f (%s)", target, value >= target ? "met" : "MISSED");
    return buf;
}

static uint64_t g_lcg = 0x9E3779B97F4A7C15ull;
uint32_t rnd(void)
{
    g_lcg = g_lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(g_lcg >> 33);
}

char g_fail[256];

void fail_row(const char *name, int *rc)
{
    char note[320];
    snprintf(note, sizeof note, "FAIL: %s", g_fail[0] ? g_fail : "?");
    row(name, 0, "-", "-", note);
    g_fail[0] = 0;
    *rc = 1;
}

static __global__ void copy_kernel(const float4 *__restrict__ in, float4 *__restrict__ out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

/* comma-separated integers into v (at most 16); 0 on success */
static int parse_list(const char *s, std::vector<int64_t> &v)
{
    v.clear();
    while (*s) {
        char *end;
        const long long x = strtoll(s, &end, 10);
        if (end == s || v.size() >= 16)
            return -1;
        v.push_back((int64_t)x);
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    return v.empty() ? -1 : 0;
}

/* The options (the header's list) and their defaults. */
struct options {
    int64_t n_dst = 65536, n_src = 262144, lo = 5, hi = 25, d = 256;
    int reps = 20, scale = 20;
    std::vector<int64_t> batches = { 1000, 8192 }, fanouts = { 15, 10, 5 };
};

/* 0, or 2 with the usage printed */
static int parse_options(int argc, char **argv, options &o)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--n-dst"))
            o.n_dst = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--n-src"))
            o.n_src = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--d"))
            o.d = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            o.reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--scale") && atoi(argv[i + 1]) >= 1 && atoi(argv[i + 1]) <= 30)
            o.scale = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--batch") && !parse_list(argv[i + 1], o.batches))
            ;
        else if (!strcmp(argv[i], "--fanouts") && !parse_list(argv[i + 1], o.fanouts))
            ;
        else if (!strcmp(argv[i], "--deg") &&
                 sscanf(argv[i + 1], "%lld..%lld", (long long *)&o.lo, (long long *)&o.hi) == 2)
            ;
        else {
            fprintf(stderr, "usage: gnnref-gpu-bench [--n-dst N] [--n-src N] [--deg LO..HI] [--d D] [--reps R]\n"
                            "                        [--scale S] [--batch B1,B2,..] [--fanouts K1,K2,..]\n");
            return 2;
        }
    }
    if (o.reps < 1)
        o.reps = 1;
    return 0;
}

/* the copy kernel: 512 MiB in, 512 MiB out; its GB/s (read + write), the bandwidth the other
 * rows are compared with */
static double bench_copy(int reps, int sms)
{
    const size_t n4 = (size_t)128 << 20;
    float4 *cin, *cout;
    CK(cudaMalloc(&cin, n4 * sizeof(float4)));
    CK(cudaMalloc(&cout, n4 * sizeof(float4)));
    CK(cudaMemset(cin, 0, n4 * sizeof(float4)));
    const double copy_ms = time_ms(reps, [&] { copy_kernel<<<sms * 8, 512>>>(cin, cout, n4); });
    const double copy_gbs = 2.0 * n4 * sizeof(float4) / (copy_ms * 1e-3) * 1e-9;
    row("copy", copy_gbs, "GB/s", "-", "float4 copy kernel, 512 MiB each way (read + write)");
    cudaFree(cin);
    cudaFree(cout);
    return copy_gbs;
}

int main(int argc, char **argv)
{
    options o;
    if (parse_options(argc, argv, o))
        return 2;
    char why[256];
    if (!gnn_cuda_available(why, sizeof why)) {
        printf("SKIP: %s\n", why);
        return 0;
    }
    printf("device: %s\n", why);
    printf("%-40s | %12s | %-8s | %-16s | %s\n", "benchmark", "value", "unit", "goal (issue 24)", "note");
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const double copy_gbs = bench_copy(o.reps, sms);
    /* the aggregation (and cuSPARSE) and the quant pack on one random CSR */
    bench_agg(o.n_dst, o.n_src, o.lo, o.hi, o.d, o.reps, copy_gbs);
    /* the Fused-Map against CUB sort + unique, and the sampler's edges per second, on R-MAT */
    int rc = 0;
    bench_sampling(o.scale, o.batches, o.fanouts, o.reps, sms, &rc);
    return rc;
}
