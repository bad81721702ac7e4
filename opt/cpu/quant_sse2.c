/* opt/cpu/quant_sse2.c -- the cpu quantize + pack's SSE2 path (opt/cpu/quant_impl.h): the codes
 * 4 values a step, and the row's min and max lane-wise. SSE2 is in every x86-64, so this is
 * the path of an x86-64 without AVX2 and the narrowest the oracle forces (gnn_quant_cpu_sse2).
 * The same f32 operations as ref/quant.c element by element (opt/cpu/quant.c's header says
 * why each replacement of a libm call gives ref's bits). */
#include "opt/cpu/quant_impl.h"

#ifdef QUANT_X86
/* SSE2 (every x86-64): 4 values a step. max_ps(r, -1) is fmaxf(r, -1) for every r, a NaN
 * included (max_ps returns its second operand when one is NaN); floor is the truncation minus
 * one where that is above r; nearbyint is (r + 2^23) - 2^23 (opt/cpu/quant.c's header says why). */
/* Four codes (bytes of v, first in the low byte) packed at out as chunk_pack does. */
static inline void put4(uint32_t v, int bits, uint8_t *out)
{
    if (bits == 8) {
        memcpy(out, &v, 4);
    } else if (bits == 4) {
        v *= 0x1001u;
        out[0] = (uint8_t)(v >> 8);
        out[1] = (uint8_t)(v >> 24);
    } else {
        out[0] = (uint8_t)((v * 0x40100401u) >> 24);
    }
}

int gnn_quant_cpu_codes_sse2(const float *h, int len, const row_consts *rc, const uint16_t *u16, int bits,
                             uint8_t *out)
{
    const __m128 k = _mm_set1_ps(rc->k), zk = _mm_set1_ps(rc->zk), sk = _mm_set1_ps(rc->sk);
    const __m128 lo = _mm_set1_ps(-1.0f), hi = _mm_set1_ps(rc->hi), m = _mm_set1_ps(rc->m), zero = _mm_setzero_ps();
    const __m128 one = _mm_set1_ps(1.0f), inv16 = _mm_set1_ps(1.0f / 65536.0f), magic = _mm_set1_ps(8388608.0f);
    int j = 0;
    for (; j + 4 <= len; j += 4) {
        __m128 r = _mm_div_ps(_mm_sub_ps(_mm_mul_ps(_mm_loadu_ps(h + j), k), zk), sk);
        r = _mm_min_ps(_mm_max_ps(r, lo), hi);
        __m128 q;
        if (rc->stochastic) {
            __m128 t = _mm_cvtepi32_ps(_mm_cvttps_epi32(r));
            t = _mm_sub_ps(t, _mm_and_ps(_mm_cmpgt_ps(t, r), one));
            const __m128i uw = _mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(u16 + j)), _mm_setzero_si128());
            const __m128 u = _mm_mul_ps(_mm_cvtepi32_ps(uw), inv16); /* u16 2^-16, exact */
            q = _mm_add_ps(t, _mm_and_ps(_mm_cmplt_ps(u, _mm_sub_ps(r, t)), one));
        } else {
            q = _mm_sub_ps(_mm_add_ps(r, magic), magic);
        }
        q = _mm_min_ps(_mm_max_ps(q, zero), m);
        const __m128i qi = _mm_cvttps_epi32(q);
        const __m128i b = _mm_packus_epi16(_mm_packs_epi32(qi, qi), _mm_setzero_si128());
        put4((uint32_t)_mm_cvtsi128_si32(b), bits, out + j * bits / 8);
    }
    return j;
}

int64_t gnn_quant_cpu_minmax_sse2(const float *h, int64_t d, float *mn, float *mx)
{
    if (d < 4)
        return 0;
    __m128 lo = _mm_loadu_ps(h), hi = lo;
    int64_t f = 4;
    for (; f + 4 <= d; f += 4) {
        const __m128 v = _mm_loadu_ps(h + f);
        lo = _mm_min_ps(lo, v);
        hi = _mm_max_ps(hi, v);
    }
    float a[4], b[4];
    _mm_storeu_ps(a, lo);
    _mm_storeu_ps(b, hi);
    *mn = a[0];
    *mx = b[0];
    for (int l = 1; l < 4; l++) {
        *mn = a[l] < *mn ? a[l] : *mn;
        *mx = b[l] > *mx ? b[l] : *mx;
    }
    return f;
}
#endif
