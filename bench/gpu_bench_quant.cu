/* bench/gpu_bench_quant.cu -- the GPU benchmark's quant row (bench/gpu_bench.cuh): int2
 * stochastic quantize + pack (opt/cuda/quant_body.h, launched as gnn_qk_pack) of n rows of d
 * features already on the device, in GB/s (the features read, the codes and parameters
 * written) and as a fraction of the copy kernel's bandwidth of the same run. */
#include <string.h>
#include "bench/gpu_bench.cuh"
#include "opt/cuda/quant_host.h"

void bench_quant(const float *d_x, int64_t n, int64_t d, int reps, double copy_gbs)
{
    char note[256];
    gnn_qk_pack_args a;
    const int64_t rb = gnn_quant_data_bytes(d, 2);
    uint8_t *d_data, *d_par;
    CK(cudaMalloc(&d_data, (size_t)(n * rb)));
    CK(cudaMalloc(&d_par, (size_t)n * GNN_QUANT_PARAM_BYTES));
    memset(&a, 0, sizeof a);
    a.x = d_x;
    a.gid = NULL;
    a.data = d_data;
    a.params = d_par;
    a.n = n;
    a.d = d;
    a.rb = rb;
    a.bits = 2;
    a.round = GNN_QUANT_STOCHASTIC;
    a.key0 = 42;
    a.ctr_hi_base = (uint32_t)GNN_TAG_QUANT << 24;
    const double ms = time_ms(reps, [&] {
        if (GNN_K_LAUNCH(gnn_qk_pack, gnn_k_dim((unsigned)n, 1, 1), gnn_k_dim(GNN_QK_T, 1, 1), GNN_QK_PACK_SHARED,
                         a) != GNN_OK)
            exit(1);
    });
    const double qbytes = (double)n * d * 4 + (double)n * (rb + 4);
    snprintf(note, sizeof note, "int2 stochastic, %lld rows x %lld; %.3f ms; %.2f of copy; %.3g rows/s", (long long)n,
             (long long)d, ms, qbytes / (ms * 1e-3) * 1e-9 / copy_gbs, n / (ms * 1e-3));
    row("quant.pack int2", qbytes / (ms * 1e-3) * 1e-9, "GB/s", "-", note);
    cudaFree(d_data);
    cudaFree(d_par);
}
