/* opt/cpu/quant_avx2.c -- the cpu quantize + pack's AVX2 path (opt/cpu/quant_impl.h): the codes
 * 8 values a step, the SSE2 path's operations (opt/cpu/quant_sse2.c) at twice the width, packed
 * by put_codes. Built with a target attribute; opt/cpu/quant.c calls it only where the CPU has
 * AVX2 (or the oracle forces it, gnn_quant_cpu_avx2). */
#include "opt/cpu/quant_impl.h"

#ifdef QUANT_X86
/* AVX2: the same operations, 8 values a step. */
__attribute__((target("avx2"))) int gnn_quant_cpu_codes_avx2(const float *h, int len, const row_consts *rc,
                                                              const uint16_t *u16, int bits, uint8_t *out)
{
    const __m256 k = _mm256_set1_ps(rc->k), zk = _mm256_set1_ps(rc->zk), sk = _mm256_set1_ps(rc->sk);
    const __m256 lo = _mm256_set1_ps(-1.0f), hi = _mm256_set1_ps(rc->hi), m = _mm256_set1_ps(rc->m);
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), inv16 = _mm256_set1_ps(1.0f / 65536.0f);
    const __m256 magic = _mm256_set1_ps(8388608.0f);
    int j = 0;
    for (; j + 8 <= len; j += 8) {
        __m256 r = _mm256_div_ps(_mm256_sub_ps(_mm256_mul_ps(_mm256_loadu_ps(h + j), k), zk), sk);
        r = _mm256_min_ps(_mm256_max_ps(r, lo), hi);
        __m256 q;
        if (rc->stochastic) {
            __m256 t = _mm256_cvtepi32_ps(_mm256_cvttps_epi32(r));
            t = _mm256_sub_ps(t, _mm256_and_ps(_mm256_cmp_ps(t, r, _CMP_GT_OQ), one));
            const __m256i uw = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(u16 + j)));
            const __m256 u = _mm256_mul_ps(_mm256_cvtepi32_ps(uw), inv16);
            q = _mm256_add_ps(t, _mm256_and_ps(_mm256_cmp_ps(u, _mm256_sub_ps(r, t), _CMP_LT_OQ), one));
        } else {
            q = _mm256_sub_ps(_mm256_add_ps(r, magic), magic);
        }
        q = _mm256_min_ps(_mm256_max_ps(q, zero), m);
        const __m256i qi = _mm256_cvttps_epi32(q);
        const __m128i p16 = _mm_packs_epi32(_mm256_castsi256_si128(qi), _mm256_extracti128_si256(qi, 1));
        put_codes(_mm_packus_epi16(p16, p16), 8, bits, out + j * bits / 8);
    }
    return j;
}
#endif
