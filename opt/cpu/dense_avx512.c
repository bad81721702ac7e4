/* opt/cpu/dense_avx512.c -- the AVX-512 micro-kernel of the dense kernel (opt/cpu/dense_impl.h):
 * an 8 x 32 block of C in 16 zmm accumulators (8 rows broadcast from A, 32 columns = two
 * 16-lane vectors of B), each lane one FMA chain over k in order: vfmadd231ps rounds each lane
 * once, exactly as fmaf, so the block is the specification's (ref/dense.c) bit for bit.
 * 16 independent chains per k step cover the FMA latency on every AVX-512 core (4 cycles, one or
 * two 512-bit FMA units), with 10 loads for 16 FMAs. Built with a target attribute, so the rest
 * of the library stays baseline x86-64; opt/cpu/dense.c calls it only where the CPU has AVX-512F. */
#include "opt/cpu/dense_impl.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define MR 8
#define NR 32

#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

__attribute__((target("avx512f"))) static void ukr_avx512(int64_t kc, const float *a, int64_t a_rs, int64_t a_cs,
                                                          const float *b, int64_t ldb, float *c, int64_t ldc,
                                                          const float *init, int load)
{
#define DECL(r) __m512 c##r##l, c##r##h;
    ROWS(DECL)
#undef DECL
    if (load) {
#define LOAD(r)                                                                                                        \
    c##r##l = _mm512_loadu_ps(c + (r) * ldc);                                                                          \
    c##r##h = _mm512_loadu_ps(c + (r) * ldc + 16);
        ROWS(LOAD)
#undef LOAD
    } else {
        const __m512 il = init ? _mm512_loadu_ps(init) : _mm512_setzero_ps();
        const __m512 ih = init ? _mm512_loadu_ps(init + 16) : _mm512_setzero_ps();
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
        const __m512 bl = _mm512_loadu_ps(b), bh = _mm512_loadu_ps(b + 16);
        b += ldb;
#define STEP(r)                                                                                                        \
    {                                                                                                                  \
        const __m512 t = _mm512_set1_ps(a##r[o]);                                                                      \
        c##r##l = _mm512_fmadd_ps(t, bl, c##r##l);                                                                     \
        c##r##h = _mm512_fmadd_ps(t, bh, c##r##h);                                                                     \
    }
        ROWS(STEP)
#undef STEP
    }
#define STORE(r)                                                                                                       \
    _mm512_storeu_ps(c + (r) * ldc, c##r##l);                                                                          \
    _mm512_storeu_ps(c + (r) * ldc + 16, c##r##h);
    ROWS(STORE)
#undef STORE
}

const gnn_dense_kernel gnn_dense_kernel_avx512 = { MR, NR, ukr_avx512 };
#else
const gnn_dense_kernel gnn_dense_kernel_avx512 = { 8, 32, 0 };
#endif
