/* opt/cpu/dense_avx2.c -- the AVX2 + FMA micro-kernel of the dense kernel (opt/cpu/dense_impl.h):
 * a 6 x 16 block of C in 12 ymm accumulators (6 rows broadcast from A, 16 columns = two 8-lane
 * vectors of B; 15 of the 16 ymm registers), each lane one FMA chain over k in order:
 * vfmadd231ps rounds each lane once, exactly as fmaf, so the block is the specification's
 * (ref/dense.c) bit for bit. 12 independent chains per k step cover two FMA units of latency 4
 * to 5. Built with a target attribute, so the rest of the library stays baseline x86-64;
 * opt/cpu/dense.c calls it only where the CPU has AVX2 and FMA. */
#include "opt/cpu/dense_impl.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define MR 6
#define NR 16

#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)

__attribute__((target("avx2,fma"))) static void ukr_avx2(int64_t kc, const float *a, int64_t a_rs, int64_t a_cs,
                                                         const float *b, int64_t ldb, float *c, int64_t ldc,
                                                         const float *init, int load)
{
#define DECL(r) __m256 c##r##l, c##r##h;
    ROWS(DECL)
#undef DECL
    if (load) {
#define LOAD(r)                                                                                                        \
    c##r##l = _mm256_loadu_ps(c + (r) * ldc);                                                                          \
    c##r##h = _mm256_loadu_ps(c + (r) * ldc + 8);
        ROWS(LOAD)
#undef LOAD
    } else {
        const __m256 il = init ? _mm256_loadu_ps(init) : _mm256_setzero_ps();
        const __m256 ih = init ? _mm256_loadu_ps(init + 8) : _mm256_setzero_ps();
#define INIT(r)                                                                                                        \
    c##r##l = il;                                                                                                      \
    c##r##h = ih;
        ROWS(INIT)
#undef INIT
    }
#define ROWPTR(r) const float *a##r = a + (r) * a_rs;
    ROWS(ROWPTR)
#undef ROWPTR
    for (int64_t k = 0, o = 0; k < kc; k++, o += a_cs) {
        const __m256 bl = _mm256_loadu_ps(b), bh = _mm256_loadu_ps(b + 8);
        b += ldb;
#define STEP(r)                                                                                                        \
    {                                                                                                                  \
        const __m256 t = _mm256_broadcast_ss(a##r + o);                                                                \
        c##r##l = _mm256_fmadd_ps(t, bl, c##r##l);                                                                     \
        c##r##h = _mm256_fmadd_ps(t, bh, c##r##h);                                                                     \
    }
        ROWS(STEP)
#undef STEP
    }
#define STORE(r)                                                                                                       \
    _mm256_storeu_ps(c + (r) * ldc, c##r##l);                                                                          \
    _mm256_storeu_ps(c + (r) * ldc + 8, c##r##h);
    ROWS(STORE)
#undef STORE
}

const gnn_dense_kernel gnn_dense_kernel_avx2 = { MR, NR, ukr_avx2 };
#else
const gnn_dense_kernel gnn_dense_kernel_avx2 = { 6, 16, 0 };
#endif
