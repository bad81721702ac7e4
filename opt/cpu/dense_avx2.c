/* opt/cpu/dense_avx2.c -- the AVX2 + FMA micro-kernel of the dense kernel (opt/cpu/dense_impl.h):
 * a 6 x 16 block of C in 12 ymm accumulators (6 rows broadcast from A, 16 columns = two 8-lane
 * vectors of B; 15 of the 16 ymm registers), each lane one FMA chain over k in order:
 * vfmadd231ps rounds each lane once, exactly as fmaf, so the block is the specification's
 * (ref/dense.c) bit for bit. 12 independent chains per k step cover two FMA units of latency 4
 * to 5. Built with a target attribute, so the rest of the library stays baseline x86-64;
 * opt/cpu/dense.c calls it only where the CPU has AVX2 and FMA.
 * The body is opt/cpu/dense_ukr.h, written once for both widths; this file names the
 * width's intrinsics. */
#include "opt/cpu/dense_impl.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define UKR_NAME ukr_avx2
#define UKR_TARGET "avx2,fma"
#define MR 6
#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)
#define VL 8
#define NR (2 * VL)
#define VEC __m256
#define VLOAD(p) _mm256_loadu_ps(p)
#define VSTORE(p, v) _mm256_storeu_ps(p, v)
#define VZERO() _mm256_setzero_ps()
#define VBCAST(p) _mm256_broadcast_ss(p)
#define VFMA(x, y, acc) _mm256_fmadd_ps(x, y, acc)
#include "opt/cpu/dense_ukr.h"

const gnn_dense_kernel gnn_dense_kernel_avx2 = { MR, NR, ukr_avx2 };
#else
const gnn_dense_kernel gnn_dense_kernel_avx2 = { 6, 16, 0 };
#endif
