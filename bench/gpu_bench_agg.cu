/* bench/gpu_bench_agg.cu -- the GPU benchmark's aggregation rows (bench/gpu_bench.cuh): on a
 * random CSR block (degrees uniform in lo..hi, sources uniform, d = 256 by default), the
 * Memory-Aware gather (opt/cuda/aggregate_body.h), sum and weighted, timed on the device alone
 * (no host copies), its output compared bitwise with ref/aggregate.c on the host; cuSPARSE SpMM
 * on the same CSR (values = the weights; row-major dense), the best of its default and
 * CSR_ALG2 algorithms (SKIP when cuSPARSE was not found at build time), with issue 24's goal of
 * 1.5x; the weighted gather's fraction of the copy bandwidth (goal 0.70); then the quant pack on
 * the same features (bench/gpu_bench_quant.cu). */
#include <string.h>
#include "bench/gpu_bench.cuh"
#include "gnnref/aggregate.h"
#include "opt/cuda/aggregate_host.h"
#ifdef GNN_HAVE_CUSPARSE
#include <cusparse.h>
#endif

/* The random CSR block on the host and on the device. */
struct agg_input {
    int64_t n_dst = 0, n_src = 0, nnz = 0, d = 0;
    std::vector<int64_t> indptr;           /* (n_dst + 1) */
    std::vector<int32_t> indices, indptr32; /* (nnz), (n_dst + 1): cuSPARSE's 32-bit CSR */
    std::vector<float> x, w;               /* (n_src, d) features, (nnz) weights */
    int64_t *d_ptr = nullptr;
    int32_t *d_idx = nullptr, *d_ptr32 = nullptr;
    float *d_x = nullptr, *d_w = nullptr, *d_out = nullptr;
    double bytes = 0; /* what a perfect kernel moves: one feature row per edge, the index and
                       * weight arrays, the output */
};

/* The block: degrees uniform in lo..hi, sources uniform in n_src, features in [-1, 1], weights
 * in (0, 1], drawn from rnd() in this order (the run's inputs are fixed). */
static void make_csr(agg_input &in, int64_t n_dst, int64_t n_src, int64_t lo, int64_t hi, int64_t d)
{
    in.n_dst = n_dst;
    in.n_src = n_src;
    in.d = d;
    in.indptr.resize((size_t)n_dst + 1);
    in.indptr[0] = 0;
    for (int64_t v = 0; v < n_dst; v++)
        in.indptr[v + 1] = in.indptr[v] + lo + (int64_t)(rnd() % (uint32_t)(hi - lo + 1));
    const int64_t nnz = in.nnz = in.indptr[n_dst];
    in.indices.resize((size_t)nnz);
    in.indptr32.resize((size_t)n_dst + 1);
    for (int64_t i = 0; i < nnz; i++)
        in.indices[i] = (int32_t)(rnd() % (uint32_t)n_src);
    for (int64_t v = 0; v <= n_dst; v++)
        in.indptr32[v] = (int32_t)in.indptr[v];
    in.x.resize((size_t)(n_src * d));
    in.w.resize((size_t)nnz);
    for (auto &f : in.x)
        f = (float)(rnd() % 2001) / 1000.0f - 1.0f;
    for (auto &f : in.w)
        f = (float)(rnd() % 1000 + 1) / 1000.0f;
    in.bytes = (double)nnz * d * 4 + (double)nnz * 8 + (double)(n_dst + 1) * 8 + (double)n_dst * d * 4;
}

static void upload(agg_input &in)
{
    CK(cudaMalloc(&in.d_ptr, in.indptr.size() * sizeof(int64_t)));
    CK(cudaMalloc(&in.d_ptr32, in.indptr32.size() * sizeof(int32_t)));
    CK(cudaMalloc(&in.d_idx, in.indices.size() * sizeof(int32_t)));
    CK(cudaMalloc(&in.d_x, in.x.size() * sizeof(float)));
    CK(cudaMalloc(&in.d_w, in.w.size() * sizeof(float)));
    CK(cudaMalloc(&in.d_out, (size_t)(in.n_dst * in.d) * sizeof(float)));
    CK(cudaMemcpy(in.d_ptr, in.indptr.data(), in.indptr.size() * sizeof(int64_t), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(in.d_ptr32, in.indptr32.data(), in.indptr32.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(in.d_idx, in.indices.data(), in.indices.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(in.d_x, in.x.data(), in.x.size() * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(in.d_w, in.w.data(), in.w.size() * sizeof(float), cudaMemcpyHostToDevice));
}

static void release(agg_input &in)
{
    cudaFree(in.d_ptr);
    cudaFree(in.d_ptr32);
    cudaFree(in.d_idx);
    cudaFree(in.d_x);
    cudaFree(in.d_w);
    cudaFree(in.d_out);
}

/* The memory-aware gather, sum (agg_ms[0]) and weighted (agg_ms[1]), each checked bitwise
 * against ref's forward on the host. */
static void bench_gather(agg_input &in, int reps, double copy_gbs, double agg_ms[2])
{
    char note[256];
    const int64_t n_dst = in.n_dst, n_src = in.n_src, nnz = in.nnz, d = in.d;
    std::vector<float> out((size_t)(n_dst * d)), want((size_t)(n_dst * d));
    gnn_block blk;
    memset(&blk, 0, sizeof blk);
    blk.n_dst = n_dst;
    blk.n_src = n_src;
    blk.nnz = nnz;
    blk.indptr = in.indptr.data();
    blk.indices = in.indices.data();
    for (int weighted = 0; weighted < 2; weighted++) {
        const int mode = weighted ? GNN_AGGK_EDGE : GNN_AGGK_PLAIN;
        agg_ms[weighted] = time_ms(reps, [&] {
            if (agg_k_gather(in.d_ptr, in.d_idx, in.d_w, NULL, in.d_x, in.d_out, n_dst, d, mode) != GNN_OK)
                exit(1);
        });
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(out.data(), in.d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
        if (weighted)
            gnn_aggregate_weighted_forward(&gnn_aggregate_ref, &blk, in.x.data(), d, in.w.data(), want.data());
        else
            gnn_aggregate_forward(&gnn_aggregate_ref, &blk, in.x.data(), d, GNN_AGG_SUM, want.data());
        const int same = memcmp(out.data(), want.data(), out.size() * sizeof(float)) == 0;
        const double gbs = in.bytes / (agg_ms[weighted] * 1e-3) * 1e-9;
        snprintf(note, sizeof note, "n_dst=%lld n_src=%lld nnz=%lld d=%lld; %.3f ms; %.2f of copy; bitwise ref: %s",
                 (long long)n_dst, (long long)n_src, (long long)nnz, (long long)d, agg_ms[weighted], gbs / copy_gbs,
                 same ? "yes" : "NO");
        row(weighted ? "agg.weighted (memory-aware)" : "agg.sum (memory-aware)", gbs, "GB/s", "-", note);
        if (!same)
            printf("MISMATCH: the GPU aggregation differs from ref\n");
    }
}

#ifdef GNN_HAVE_CUSPARSE
/* cuSPARSE SpMM on the same CSR and weights, the best of two algorithms, against the weighted
 * gather's time weighted_ms. */
static void bench_cusparse(const agg_input &in, int reps, double weighted_ms)
{
    char note[256], gbuf[32];
    cusparseHandle_t h;
    cusparseSpMatDescr_t A;
    cusparseDnMatDescr_t B, C;
    float *d_c;
    CK(cudaMalloc(&d_c, (size_t)(in.n_dst * in.d) * sizeof(float)));
    const float alpha = 1.0f, beta = 0.0f;
    if (cusparseCreate(&h) != CUSPARSE_STATUS_SUCCESS ||
        cusparseCreateCsr(&A, in.n_dst, in.n_src, in.nnz, in.d_ptr32, in.d_idx, in.d_w, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F) != CUSPARSE_STATUS_SUCCESS ||
        cusparseCreateDnMat(&B, in.n_src, in.d, in.d, in.d_x, CUDA_R_32F, CUSPARSE_ORDER_ROW) !=
            CUSPARSE_STATUS_SUCCESS ||
        cusparseCreateDnMat(&C, in.n_dst, in.d, in.d, d_c, CUDA_R_32F, CUSPARSE_ORDER_ROW) != CUSPARSE_STATUS_SUCCESS) {
        row("cusparse.spmm", 0, "-", "-", "SKIP: cuSPARSE setup failed");
        row("speedup.agg_vs_cusparse", 0, "-", ">= 1.50 (SKIP)", "SKIP: no cuSPARSE time");
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
                     best_alg, best, best / weighted_ms);
            row("cusparse.spmm", in.bytes / (best * 1e-3) * 1e-9, "GB/s", "-", note);
            row("speedup.agg_vs_cusparse", best / weighted_ms, "x", goal_of(gbuf, sizeof gbuf, best / weighted_ms, 1.5),
                "cuSPARSE ms / memory-aware weighted ms; the goal is at d = 256");
        } else {
            row("cusparse.spmm", 0, "-", "-", "SKIP: cuSPARSE SpMM failed");
            row("speedup.agg_vs_cusparse", 0, "-", ">= 1.50 (SKIP)", "SKIP: no cuSPARSE time");
        }
        cusparseDestroySpMat(A);
        cusparseDestroyDnMat(B);
        cusparseDestroyDnMat(C);
        cusparseDestroy(h);
    }
    cudaFree(d_c);
}
#else
static void bench_cusparse(const agg_input &, int, double)
{
    row("cusparse.spmm", 0, "-", "-", "SKIP: built without cuSPARSE (libcusparse not found)");
    row("speedup.agg_vs_cusparse", 0, "-", ">= 1.50 (SKIP)", "SKIP: no cuSPARSE time");
}
#endif

void bench_agg(int64_t n_dst, int64_t n_src, int64_t lo, int64_t hi, int64_t d, int reps, double copy_gbs)
{
    agg_input in;
    make_csr(in, n_dst, n_src, lo, hi, d);
    upload(in);
    double agg_ms[2];
    bench_gather(in, reps, copy_gbs, agg_ms);
    bench_cusparse(in, reps, agg_ms[1]);
    char gbuf[32];
    const double frac = in.bytes / (agg_ms[1] * 1e-3) * 1e-9 / copy_gbs;
    row("agg.fraction_of_copy", frac, "x", goal_of(gbuf, sizeof gbuf, frac, 0.70),
        "agg.weighted GB/s / copy GB/s, same run");
    /* quant: int2 stochastic pack of n_dst rows of d */
    bench_quant(in.d_x, n_dst, d, reps, copy_gbs);
    release(in);
}
