/* opt/cpu/dense_avx512.c -- the AVX-512 micro-kernel of the dense kernel (opt/cpu/dense_impl.h):
 * an 8 x 32 block of C in 16 zmm accumulators (8 rows broadcast from A, 32 columns = two
 * 16-lane vectors of B), each lane one FMA chain over k in order: vfmadd231ps rounds each lane
 * once, exactly as fmaf, so the block is the specification's (ref/dense.c) bit for bit.
 * 16 independent chains per k step cover the FMA latency on every AVX-512 core (4 cycles, one or
 * two 512-bit FMA units), with 10 loads for 16 FMAs. Built with a target attribute, so the rest
 * of the library stays baseline x86-64; opt/cpu/dense.c calls it only where the CPU has AVX-512F.
 * The body is opt/cpu/dense_ukr.h, written once for both widths; this file names the
 * width's intrinsics. */
#include "opt/cpu/dense_impl.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define UKR_NAME ukr_avx512
#define UKR_TARGET "avx512f"
#define MR 8
#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define VL 16
#define NR (2 * VL)
#define VEC __m512
#define VLOAD(p) _mm512_loadu_ps(p)
#define VSTORE(p, v) _mm512_storeu_ps(p, v)
#define VZERO() _mm512_setzero_ps()
#define VBCAST(p) _mm512_set1_ps(*(p))
#define VFMA(x, y, acc) _mm512_fmadd_ps(x, y, acc)
#include "opt/cpu/dense_ukr.h"

const gnn_dense_kernel gnn_dense_kernel_avx512 = { MR, NR, ukr_avx512 };
#else
const gnn_dense_kernel gnn_dense_kernel_avx512 = { 8, 32, 0 };
#endif
