/* bench/gpu_bench.cu -- the GPU benchmarks of the CUDA tier (docs/cuda.md; run by
 * ci/gpu-check.sh; built by `make gpu-bench` in a CUDA build): on one card, in one run,
 *   copy       a float4 copy kernel: the card's achievable memory bandwidth (read + write);
 *   agg        the Memory-Aware gather (opt/cuda/aggregate_body.h), sum and weighted, on a
 *              random CSR at d = 256 (default), timed on the device alone (no host copies),
 *              its output compared bitwise with ref/aggregate.c on the host;
 *   cusparse   cuSPARSE SpMM on the same CSR (values = the weights; row-major dense), the best
 *              of its default and CSR_ALG2 algorithms; SKIP when cuSPARSE was not found at
 *              build time;
 *   quant      int2 stochastic quantize + pack (opt/cuda/quant_body.h) of n x d rows.
 * Prints one row per figure: `name | value | unit | note`. Exit 0 with "SKIP: no GPU: ..." where
 * no GPU can run it. Options: --n-dst N --n-src N --deg LO..HI --d D --reps R. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include "gnnref/aggregate.h"
#include "gnnref/cuda.h"
#include "opt/cuda/aggregate_host.h"
#include "opt/cuda/quant_host.h"
#ifdef GNN_HAVE_CUSPARSE
#include <cusparse.h>
#endif

#define CK(call)                                                                                                   \
    do {                                                                                                           \
        cudaError_t e_ = (call);                                                                                   \
        if (e_ != cudaSuccess) {                                                                                   \
            fprintf(stderr, "gnnref-gpu-bench: %s: %s\n", #call, cudaGetErrorString(e_));                         \
            exit(1);                                                                                               \
        }                                                                                                          \
    } while (0)

static void row(const char *name, double value, const char *unit, const char *note)
{
    printf("%-28s | %12.3f | %-8s | %s\n", name, value, unit, note);
}

static __global__ void copy_kernel(const float4 *__restrict__ in, float4 *__restrict__ out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

static uint64_t g_lcg = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    g_lcg = g_lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(g_lcg >> 33);
}

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

int main(int argc, char **argv)
{
    int64_t n_dst = 65536, n_src = 262144, lo = 5, hi = 25, d = 256;
    int reps = 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--n-dst"))
            n_dst = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--n-src"))
            n_src = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--d"))
            d = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--deg") && sscanf(argv[i + 1], "%lld..%lld", (long long *)&lo, (long long *)&hi) == 2)
            ;
        else {
            fprintf(stderr, "usage: gnnref-gpu-bench [--n-dst N] [--n-src N] [--deg LO..HI] [--d D] [--reps R]\n");
            return 2;
        }
    }
    char why[256];
    if (!gnn_cuda_available(why, sizeof why)) {
        printf("SKIP: %s\n", why);
        return 0;
    }
    printf("device: %s\n", why);
    printf("%-28s | %12s | %-8s | %s\n", "benchmark", "value", "unit", "note");

    /* the copy kernel: 512 MiB in, 512 MiB out */
    const size_t n4 = (size_t)128 << 20;
    float4 *cin, *cout;
    CK(cudaMalloc(&cin, n4 * sizeof(float4)));
    CK(cudaMalloc(&cout, n4 * sizeof(float4)));
    CK(cudaMemset(cin, 0, n4 * sizeof(float4)));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const double copy_ms = time_ms(reps, [&] { copy_kernel<<<sms * 8, 512>>>(cin, cout, n4); });
    const double copy_gbs = 2.0 * n4 * sizeof(float4) / (copy_ms * 1e-3) * 1e-9;
    row("copy", copy_gbs, "GB/s", "float4 copy kernel, 512 MiB each way (read + write)");
    cudaFree(cin);
    cudaFree(cout);

    /* a random CSR block: degrees uniform in lo..hi, sources uniform */
    std::vector<int64_t> indptr((size_t)n_dst + 1);
    indptr[0] = 0;
    for (int64_t v = 0; v < n_dst; v++)
        indptr[v + 1] = indptr[v] + lo + (int64_t)(rnd() % (uint32_t)(hi - lo + 1));
    const int64_t nnz = indptr[n_dst];
    std::vector<int32_t> indices((size_t)nnz), indptr32((size_t)n_dst + 1);
    for (int64_t i = 0; i < nnz; i++)
        indices[i] = (int32_t)(rnd() % (uint32_t)n_src);
    for (int64_t v = 0; v <= n_dst; v++)
        indptr32[v] = (int32_t)indptr[v];
    std::vector<float> x((size_t)(n_src * d)), w((size_t)nnz), out((size_t)(n_dst * d)), want((size_t)(n_dst * d));
    for (auto &f : x)
        f = (float)(rnd() % 2001) / 1000.0f - 1.0f;
    for (auto &f : w)
        f = (float)(rnd() % 1000 + 1) / 1000.0f;

    int64_t *d_ptr;
    int32_t *d_idx, *d_ptr32;
    float *d_x, *d_w, *d_out;
    CK(cudaMalloc(&d_ptr, indptr.size() * sizeof(int64_t)));
    CK(cudaMalloc(&d_ptr32, indptr32.size() * sizeof(int32_t)));
    CK(cudaMalloc(&d_idx, indices.size() * sizeof(int32_t)));
    CK(cudaMalloc(&d_x, x.size() * sizeof(float)));
    CK(cudaMalloc(&d_w, w.size() * sizeof(float)));
    CK(cudaMalloc(&d_out, out.size() * sizeof(float)));
    CK(cudaMemcpy(d_ptr, indptr.data(), indptr.size() * sizeof(int64_t), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_ptr32, indptr32.data(), indptr32.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_idx, indices.data(), indices.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_w, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));

    char note[256];
    /* bytes a perfect kernel moves: one feature row per edge, the index and weight arrays, the output */
    const double bytes = (double)nnz * d * 4 + (double)nnz * 8 + (double)(n_dst + 1) * 8 + (double)n_dst * d * 4;
    gnn_block blk;
    memset(&blk, 0, sizeof blk);
    blk.n_dst = n_dst;
    blk.n_src = n_src;
    blk.nnz = nnz;
    blk.indptr = indptr.data();
    blk.indices = indices.data();
    double agg_ms[2];
    for (int weighted = 0; weighted < 2; weighted++) {
        const int mode = weighted ? GNN_AGGK_EDGE : GNN_AGGK_PLAIN;
        agg_ms[weighted] = time_ms(reps, [&] {
            if (agg_k_gather(d_ptr, d_idx, d_w, NULL, d_x, d_out, n_dst, d, mode) != GNN_OK)
                exit(1);
        });
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
        if (weighted)
            gnn_aggregate_weighted_forward(&gnn_aggregate_ref, &blk, x.data(), d, w.data(), want.data());
        else
            gnn_aggregate_forward(&gnn_aggregate_ref, &blk, x.data(), d, GNN_AGG_SUM, want.data());
        const int same = memcmp(out.data(), want.data(), out.size() * sizeof(float)) == 0;
        const double gbs = bytes / (agg_ms[weighted] * 1e-3) * 1e-9;
        snprintf(note, sizeof note, "n_dst=%lld n_src=%lld nnz=%lld d=%lld; %.3f ms; %.2f of copy; bitwise ref: %s",
                 (long long)n_dst, (long long)n_src, (long long)nnz, (long long)d, agg_ms[weighted], gbs / copy_gbs,
                 same ? "yes" : "NO");
        row(weighted ? "agg.weighted (memory-aware)" : "agg.sum (memory-aware)", gbs, "GB/s", note);
        if (!same)
            printf("MISMATCH: the GPU aggregation differs from ref\n");
    }

#ifdef GNN_HAVE_CUSPARSE
    {
        cusparseHandle_t h;
        cusparseSpMatDescr_t A;
        cusparseDnMatDescr_t B, C;
        float *d_c;
        CK(cudaMalloc(&d_c, out.size() * sizeof(float)));
        const float alpha = 1.0f, beta = 0.0f;
        if (cusparseCreate(&h) != CUSPARSE_STATUS_SUCCESS ||
            cusparseCreateCsr(&A, n_dst, n_src, nnz, d_ptr32, d_idx, d_w, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F) != CUSPARSE_STATUS_SUCCESS ||
            cusparseCreateDnMat(&B, n_src, d, d, d_x, CUDA_R_32F, CUSPARSE_ORDER_ROW) != CUSPARSE_STATUS_SUCCESS ||
            cusparseCreateDnMat(&C, n_dst, d, d, d_c, CUDA_R_32F, CUSPARSE_ORDER_ROW) != CUSPARSE_STATUS_SUCCESS) {
            row("cusparse.spmm", 0, "-", "SKIP: cuSPARSE setup failed");
        } else {
            double best = 0;
            const char *best_alg = "";
            const cusparseSpMMAlg_t algs[2] = { CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG2 };
            const char *names[2] = { "default", "CSR_ALG2" };
            for (int k = 0; k < 2; k++) {
                size_t ws = 0;
                void *buf = NULL;
                if (cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                            &alpha, A, B, &beta, C, CUDA_R_32F, algs[k], &ws) != CUSPARSE_STATUS_SUCCESS)
                    continue;
                CK(cudaMalloc(&buf, ws ? ws : 1));
                int ok = 1;
                const double ms = time_ms(reps, [&] {
                    ok &= cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                       A, B, &beta, C, CUDA_R_32F, algs[k], buf) == CUSPARSE_STATUS_SUCCESS;
                });
                cudaFree(buf);
                if (ok && (best == 0 || ms < best)) {
                    best = ms;
                    best_alg = names[k];
                }
            }
            if (best > 0) {
                snprintf(note, sizeof note, "same CSR and weights, %s; %.3f ms; memory-aware weighted is %.2fx faster",
                         best_alg, best, best / agg_ms[1]);
                row("cusparse.spmm", bytes / (best * 1e-3) * 1e-9, "GB/s", note);
                row("speedup.agg_vs_cusparse", best / agg_ms[1], "x", "goal >= 1.5 at d = 256 (issue 24)");
            } else {
                row("cusparse.spmm", 0, "-", "SKIP: cuSPARSE SpMM failed");
            }
            cusparseDestroySpMat(A);
            cusparseDestroyDnMat(B);
            cusparseDestroyDnMat(C);
            cusparseDestroy(h);
        }
        cudaFree(d_c);
    }
#else
    row("cusparse.spmm", 0, "-", "SKIP: built without cuSPARSE (libcusparse not found)");
#endif
    row("agg.fraction_of_copy", bytes / (agg_ms[1] * 1e-3) * 1e-9 / copy_gbs, "x", "weighted; goal >= 0.70 (issue 24)");

    /* quant: int2 stochastic pack of n_dst rows of d */
    {
        gnn_qk_pack_args a;
        const int64_t rb = gnn_quant_data_bytes(d, 2);
        uint8_t *d_data, *d_par;
        CK(cudaMalloc(&d_data, (size_t)(n_dst * rb)));
        CK(cudaMalloc(&d_par, (size_t)n_dst * GNN_QUANT_PARAM_BYTES));
        memset(&a, 0, sizeof a);
        a.x = d_x;
        a.gid = NULL;
        a.data = d_data;
        a.params = d_par;
        a.n = n_dst;
        a.d = d;
        a.rb = rb;
        a.bits = 2;
        a.round = GNN_QUANT_STOCHASTIC;
        a.key0 = 42;
        a.ctr_hi_base = (uint32_t)GNN_TAG_QUANT << 24;
        const double ms = time_ms(reps, [&] {
            if (GNN_K_LAUNCH(gnn_qk_pack, gnn_k_dim((unsigned)n_dst, 1, 1), gnn_k_dim(GNN_QK_T, 1, 1),
                             GNN_QK_PACK_SHARED, a) != GNN_OK)
                exit(1);
        });
        const double qbytes = (double)n_dst * d * 4 + (double)n_dst * (rb + 4);
        snprintf(note, sizeof note, "int2 stochastic, %lld rows x %lld; %.3f ms; %.2f of copy; %.3g rows/s",
                 (long long)n_dst, (long long)d, ms, qbytes / (ms * 1e-3) * 1e-9 / copy_gbs, n_dst / (ms * 1e-3));
        row("quant.pack int2", qbytes / (ms * 1e-3) * 1e-9, "GB/s", note);
        cudaFree(d_data);
        cudaFree(d_par);
    }
    cudaFree(d_ptr);
    cudaFree(d_ptr32);
    cudaFree(d_idx);
    cudaFree(d_x);
    cudaFree(d_w);
    cudaFree(d_out);
    return 0;
}
