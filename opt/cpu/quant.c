/* opt/cpu/quant.c -- OpenMP/SIMD quantized rows, bitwise equal to ref/quant.c at any thread
 * count (include/gnnref/quant.h, docs/quant.md).
 *
 * What changed and why the bits still match:
 *  - rows over threads, in blocks of QROWS rows: every row's bytes depend on that row alone
 *    (its values, its parameters, its own Philox stream keyed by its global id), so neither the
 *    thread count nor the blocking can change a bit;
 *  - the codes of a row in chunks of QCH values, 16 (AVX-512F), 8 (AVX2) or 4 (SSE2, every
 *    x86-64) at a time, chosen at run time, the rest one at a time with ref's own functions:
 *    the same f32 operations as ref, element by element: r = (h k - Z k) / (S k) (a true
 *    division, except in AVX-512F's fast rows, below), the same clamps (max_ps(r, -1) maps a
 *    NaN to -1 as fmaxf does);
 *    floorf(r) as the truncation (float)(int32_t)r minus one where that is above r (exact for
 *    |r| < 2^31, and r is clamped to [-1, M + 1]); nearbyintf(r) as (r + 2^23) - 2^23 (ties to
 *    even in the default rounding mode, exact for 0 <= r < 2^22; for -1 <= r < 0 both give a
 *    value <= 0, which the clamp turns into 0 as ref's does); a row whose values are finite
 *    and >= Z has 0 <= r < M + 1/2, and there the AVX-512 loop drops the clamps that cannot
 *    act (codes_avx512 says why);
 *  - AVX-512F's fast rows (plain, and 2^-100 <= S k <= 2^100: every row of ordinary data): the
 *    quotient by the reciprocal and an exact FMA residual, q0 = a y, r = fma(fma(-q0, s, a),
 *    y, q0), proven to be the correctly rounded a / s because s has 8 significant bits
 *    (QUOTIENT_AVX512 has the proof; a lane with 0 < a < thr takes vdivps); codes 64 at a time,
 *    packed together (put64); stochastic rows (with AVX-512BW too) in sets of 64 values that
 *    start on a Philox block, their 8 blocks computed in registers next to the codes that use
 *    them (stoch_step), and the draw compared in 16-bit integers (stoch_ceil16); a row whose
 *    first draw is the middle of a block (draw0 = 4 mod 8) takes its first 4 values, whole
 *    bytes at every width, through the chunk path first;
 *  - the row's min and max lane-wise (AVX-512F or SSE2): the same values (the order of a min is
 *    irrelevant, except for -0 against +0, which Z = min + 0 and the double difference make
 *    equal); the parameters from them by ref's own gnn_quant_range_params_ref, or with AVX-512F
 *    by the same operations for the 8 rows of a block in the lanes of one vector
 *    (block_setup_avx512); the next rows prefetched while a block's codes are computed;
 *  - the draws elsewhere: the chunk's Philox blocks computed side by side
 *    (gnn_cpu_philox_blocks, AVX2 or AVX-512 lanes), their words split into the 16-bit draws
 *    (chunk_draws), compared as floats u16 2^-16 < frac, which is ref's integer comparison
 *    u16 < ceil(frac 2^16) exactly (u16 2^-16 and frac are exact, and u16 is an integer);
 *  - packing in registers (four codes as one word times a constant: chunk_pack's comment)
 *    instead of ref's bit arithmetic per element: the same bytes;
 *  - unpack + dequantize: opt/cpu/quant_unpack.c.
 * Each SIMD path can be forced (opt/cpu/quant_paths.h) so that the oracle checks the paths this
 * CPU does not take.
 * The entry points (core/quant.c) check the arguments: these bodies assume valid input. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "gnnref/quant.h"
#include "gnnref/rng.h"
#include "opt/cpu/clones.h"
#include "opt/cpu/philox_lanes.h"
#include "opt/cpu/quant_paths.h"

#define QCH 256 /* values per chunk: whole bytes at every width, whole Philox blocks */

/* The key of every Philox round of one pack call (the seed's: the same for every row). */
typedef struct philox_keys {
    uint32_t k0[10], k1[10];
} philox_keys;

static void philox_keys_of(uint64_t seed, philox_keys *ks)
{
    uint32_t a = (uint32_t)(seed & 0xffffffffu), b = (uint32_t)(seed >> 32);
    for (int r = 0; r < 10; r++) {
        ks->k0[r] = a;
        ks->k1[r] = b;
        a += 0x9E3779B9u;
        b += 0xBB67AE85u;
    }
}

#if defined(__GNUC__) && defined(__x86_64__)
#define QUANT_X86 1
#include <immintrin.h>
#endif

/* The per-row constants of steps 2 and 3 (quant.h). */
typedef struct row_consts {
    float k, zk, sk, m, hi; /* hi = M + 1 */
    int stochastic;
    int plain; /* min and max finite and min >= Z: then 0 <= r < M + 1/2 (see codes_avx512) */
    int fast;  /* plain, and 2^-100 <= S k <= 2^100: the quotient by reciprocal (QUOTIENT below);
                * 2 where moreover k = 1 and |Z| >= thr 2^24, so that no value has 0 < a < thr */
    float y;   /* RN(1 / (S k)), where fast */
    float thr; /* max(2^-116, S k 2^-119): a value a with 0 < a < thr takes the true division */
} row_consts;

/* Codes of h[j0 .. len) into c, one value at a time: ref's operations exactly (the tails of the
 * SIMD paths, and every value where there is no SIMD path); u: the values' 16-bit draws. */
static void codes_scalar(const float *h, int j0, int len, const row_consts *rc, const uint16_t *u, uint8_t *c)
{
    for (int j = j0; j < len; j++) {
        float r = (h[j] * rc->k - rc->zk) / rc->sk;
        r = fminf(fmaxf(r, -1.0f), rc->hi);
        float q;
        if (rc->stochastic) {
            const float t = floorf(r), frac = r - t;
            q = t + ((uint32_t)u[j] < (uint32_t)ceilf(frac * 65536.0f) ? 1.0f : 0.0f);
        } else {
            q = nearbyintf(r);
        }
        q = q > 0.0f ? q : 0.0f;
        q = q < rc->m ? q : rc->m;
        c[j] = (uint8_t)q;
    }
}

#ifdef QUANT_X86
/* SSE2 (every x86-64): 4 values a step. max_ps(r, -1) is fmaxf(r, -1) for every r, a NaN
 * included (max_ps returns its second operand when one is NaN); floor is the truncation minus
 * one where that is above r; nearbyint is (r + 2^23) - 2^23 (see the file header). */
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

static int codes_sse2(const float *h, int len, const row_consts *rc, const uint16_t *u16, int bits, uint8_t *out)
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

/* The codes in the bytes of b (the first in the low byte; 8 or 16 of them, n) packed at out as
 * chunk_pack does: the dword multiplies of chunk_pack's comment, then the bytes that hold the
 * results gathered by one shuffle. */
__attribute__((target("avx2"))) static inline void put_codes(__m128i b, int n, int bits, uint8_t *out)
{
    if (bits == 8) {
        if (n == 16)
            _mm_storeu_si128((__m128i *)out, b);
        else
            _mm_storel_epi64((__m128i *)out, b);
    } else if (bits == 4) {
        const __m128i t = _mm_shuffle_epi8(_mm_mullo_epi32(b, _mm_set1_epi32(0x1001)),
                                           _mm_setr_epi8(1, 3, 5, 7, 9, 11, 13, 15, -1, -1, -1, -1, -1, -1, -1, -1));
        if (n == 16) {
            _mm_storel_epi64((__m128i *)out, t);
        } else {
            const uint32_t v = (uint32_t)_mm_cvtsi128_si32(t);
            memcpy(out, &v, 4);
        }
    } else {
        const __m128i t = _mm_shuffle_epi8(_mm_mullo_epi32(b, _mm_set1_epi32(0x40100401)),
                                           _mm_setr_epi8(3, 7, 11, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
        const uint32_t v = (uint32_t)_mm_cvtsi128_si32(t);
        memcpy(out, &v, (size_t)n / 4);
    }
}

/* AVX2: the same operations, 8 values a step. */
__attribute__((target("avx2"))) static int codes_avx2(const float *h, int len, const row_consts *rc,
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

/* The quotient r = RN(a / s) of a plain row, without a division where the proof below holds
 * (rc->fast rows, lanes with a == 0 or a >= thr), else by vdivps (the whole vector, rarely).
 * A 16-lane vdivps costs about 6 cycles on the EPYC (Zen 4) we measure on; this is a multiply
 * and two FMAs. docs/quant.md section 4 states the same argument.
 *   s = S k > 0 has at most 8 significant bits (S is a bf16, k = 1 or 1/2): s = m 2^e, m an
 *   integer < 2^8, and 2^-100 <= s <= 2^100, so y = RN(1 / s) is normal, y = (1 / s)(1 + e1),
 *   |e1| <= 2^-24. Let Q = a / s exactly (ref's r is RN(Q)), 0 <= Q < M + 1/2 in a plain row.
 *   a = 0: q0 = 0, e = +0, r = +0 = RN(Q) (a = -0 gives +0 where ref gives -0: the same codes).
 *   a >= thr = max(2^-116, s 2^-119): Q >= 2^-119, so Q and a y are normal and
 *   1. q0 = RN(a y) = Q (1 + e1)(1 + e2), |q0 - Q| < 2^-22.9 Q (within two ulps);
 *   2. e = fma(-q0, s, a) is exact: a - q0 s is a multiple of 2^min(al, be + e) (2^al, 2^be
 *      the ulps of a and q0), at most 2^-22.9 a in magnitude, so at most 10 significant bits,
 *      and that unit is >= a 2^-33 >= 2^-149 (a >= 2^-116): a float, so the fma is exact;
 *   3. r = fma(e, y, q0) = RN(q0 + (Q - q0)(1 + e1)) = RN(Q + d), |d| = |Q - q0| |e1| <
 *      2^-46.9 Q < 2^-22.9 ulp(Q);
 *   4. Q = A 2^f / (m 2^e) (A < 2^24 the integer significand of a) is never a rounding
 *      boundary of RN (a midpoint has a 25-bit odd significand, while Q m = A 2^(f-e) forces
 *      odd(Q's significand) <= odd(A) < 2^24), and its distance to the nearest one is
 *      >= 2^min(f-e, u-1) / m (u the ulp exponent of Q), that is >= ulp(Q) / 2^9: so no
 *      boundary lies between Q and Q + d, and r = RN(Q), bit for bit ref's quotient.
 *   Scaled (stoch_ceil16): with y 2^16 and s 2^-16 in place of y and s (both exact: s >= 2^-100
 *   keeps s 2^-16's 8 bits normal, and y 2^16 <= 2^116), q0, e and r are those above times 2^16,
 *   1 and 2^16 exactly (a power of two commutes with RN away from the subnormals), so the
 *   result is R = r 2^16 bit for bit.
 * The rounding mode is the default (round to nearest even), as ref's and nearbyintf's.
 * Rows with fast == 2 skip the test of a: there k = 1 and Z != 0 with |Z| >= thr 2^24 (so Z is
 * normal); a value h > Z is at least the float after Z, that is h - Z >= |Z| 2^-24 >= thr, and
 * a = RN(h - Z) >= thr too (thr is a power of two or s 2^-119 exactly); h = Z gives a = 0. */
#define QUOTIENT_NOCHECK_AVX512(r, a, s, y)                                                                \
    do {                                                                                                   \
        const __m512 q0_ = _mm512_mul_ps((a), (y));                                                        \
        (r) = _mm512_fmadd_ps(_mm512_fnmadd_ps(q0_, (s), (a)), (y), q0_);                                  \
    } while (0)
#define QUOTIENT_AVX512(r, a, s, y, thr)                                                                   \
    do {                                                                                                   \
        QUOTIENT_NOCHECK_AVX512(r, a, s, y);                                                               \
        const __mmask16 tiny_ = _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask((a), (thr), _CMP_LT_OQ), (a),   \
                                                        _mm512_setzero_ps(), _CMP_NEQ_UQ);                  \
        if (__builtin_expect(tiny_ != 0, 0))                                                               \
            (r) = _mm512_div_ps((a), (s));                                                                 \
    } while (0)

/* The 64 codes of one step (four vectors of dwords, each < 2^bits, in value order) packed at
 * out: bytes by vpmovdb, then four codes a dword v = c0 | c1 << 8 | c2 << 16 | c3 << 24 packed
 * by chunk_pack's multiplies (int2: v * 0x40100401 >> 24, one byte; int4: v * 0x1001, bits
 * 8..15 and 24..31, two bytes), narrowed by vpmovdb / vpmovdw. */
static inline __attribute__((always_inline, target("avx512f"))) void put64_bytes(__m512i v, const int bits,
                                                                                uint8_t *out)
{
    if (bits == 8) {
        _mm512_storeu_si512((void *)out, v);
    } else if (bits == 4) {
        const __m512i t = _mm512_mullo_epi32(v, _mm512_set1_epi32(0x1001));
        const __m512i p = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi32(t, 8), _mm512_set1_epi32(0xff)),
                                          _mm512_and_si512(_mm512_srli_epi32(t, 16), _mm512_set1_epi32(0xff00)));
        _mm256_storeu_si256((__m256i *)out, _mm512_cvtepi32_epi16(p));
    } else {
        const __m512i t = _mm512_srli_epi32(_mm512_mullo_epi32(v, _mm512_set1_epi32(0x40100401)), 24);
        _mm_storeu_si128((__m128i *)out, _mm512_cvtepi32_epi8(t));
    }
}
static inline __attribute__((always_inline, target("avx512f"))) void put64(__m512i q0, __m512i q1, __m512i q2,
                                                                          __m512i q3, const int bits, uint8_t *out)
{
    put64_bytes(_mm512_inserti64x4(
                    _mm512_castsi256_si512(_mm256_inserti128_si256(_mm256_castsi128_si256(_mm512_cvtepi32_epi8(q0)),
                                                                   _mm512_cvtepi32_epi8(q1), 1)),
                    _mm256_inserti128_si256(_mm256_castsi128_si256(_mm512_cvtepi32_epi8(q2)), _mm512_cvtepi32_epi8(q3),
                                            1),
                    1),
                bits, out);
}

/* One vector of codes of a fast row (QUOTIENT_AVX512), as the plain loop of codes_avx512. */
static inline __attribute__((always_inline, target("avx512f"))) __m512i
fast_codes16(const float *hj, const uint16_t *uj, __m512 k, __m512 zk, __m512 sk, __m512 y, __m512 thr, __m512i mi,
             const int stochastic, const int unchecked)
{
    __m512 r;
    if (unchecked) { /* k = 1: h k = h */
        const __m512 a = _mm512_sub_ps(_mm512_loadu_ps(hj), zk);
        QUOTIENT_NOCHECK_AVX512(r, a, sk, y);
    } else {
        const __m512 a = _mm512_sub_ps(_mm512_mul_ps(_mm512_loadu_ps(hj), k), zk);
        QUOTIENT_AVX512(r, a, sk, y, thr);
    }
    if (!stochastic)
        return _mm512_cvtps_epi32(r);
    const __m512i ti = _mm512_cvttps_epi32(r);
    const __m512i uw = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)uj));
    const __m512 u = _mm512_mul_ps(_mm512_cvtepi32_ps(uw), _mm512_set1_ps(1.0f / 65536.0f));
    const __mmask16 up = _mm512_cmp_ps_mask(u, _mm512_sub_ps(r, _mm512_cvtepi32_ps(ti)), _CMP_LT_OQ);
    return _mm512_min_epi32(_mm512_mask_add_epi32(ti, up, ti, _mm512_set1_epi32(1)), mi);
}

static inline __attribute__((always_inline, target("avx512f"))) int
fast_loop(const float *h, int len, const row_consts *rc, const uint16_t *w, const int bits, uint8_t *out,
          const int stochastic, const int unchecked)
{
    const __m512 k = _mm512_set1_ps(rc->k), zk = _mm512_set1_ps(rc->zk), sk = _mm512_set1_ps(rc->sk);
    const __m512 y = _mm512_set1_ps(rc->y), thr = _mm512_set1_ps(rc->thr);
    const __m512i mi = _mm512_set1_epi32((int)rc->m);
    int j = 0;
    for (; j + 64 <= len; j += 64) {
        __m512i c[4];
        for (int v = 0; v < 4; v++) /* w is NULL where nearest */
            c[v] = fast_codes16(h + j + 16 * v, stochastic ? w + j + 16 * v : NULL, k, zk, sk, y, thr, mi, stochastic,
                                unchecked);
        put64(c[0], c[1], c[2], c[3], bits, out + j * bits / 8);
    }
    for (; j + 16 <= len; j += 16) {
        const __m512i c = fast_codes16(h + j, stochastic ? w + j : NULL, k, zk, sk, y, thr, mi, stochastic, unchecked);
        put_codes(_mm512_cvtepi32_epi8(c), 16, bits, out + j * bits / 8);
    }
    return j;
}

/* fast_loop specialised for each (bits, rounding, test of a), so that each loop is straight. */
#define FAST_LOOP_BITS(st, un)                                                                             \
    (bits == 2 ? fast_loop(h, len, rc, w, 2, out, st, un)                                                  \
               : bits == 4 ? fast_loop(h, len, rc, w, 4, out, st, un) : fast_loop(h, len, rc, w, 8, out, st, un))
__attribute__((target("avx512f"))) static int codes_fast_avx512(const float *h, int len, const row_consts *rc,
                                                                const uint16_t *w, int bits, uint8_t *out)
{
    if (rc->stochastic)
        return rc->fast == 2 ? FAST_LOOP_BITS(1, 1) : FAST_LOOP_BITS(1, 0);
    return rc->fast == 2 ? FAST_LOOP_BITS(0, 1) : FAST_LOOP_BITS(0, 0);
}

/* AVX-512F: the same operations, 16 values a step (the comparisons give masks; max_ps and
 * min_ps treat a NaN as SSE's do). */
__attribute__((target("avx512f"))) static int codes_avx512(const float *h, int len, const row_consts *rc,
                                                           const uint16_t *w, int bits, uint8_t *out)
{
    const __m512 k = _mm512_set1_ps(rc->k), zk = _mm512_set1_ps(rc->zk), sk = _mm512_set1_ps(rc->sk);
    const __m512 lo = _mm512_set1_ps(-1.0f), hi = _mm512_set1_ps(rc->hi), m = _mm512_set1_ps(rc->m);
    const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f), inv16 = _mm512_set1_ps(1.0f / 65536.0f);
    const __m512 magic = _mm512_set1_ps(8388608.0f);
    int j = 0;
    if (rc->fast)
        return codes_fast_avx512(h, len, rc, w, bits, out);
    if (rc->plain) {
        /* Every value of the row is finite and >= Z, so r = (h k - Z k) / (S k) >= 0, and
         * r <= M (1 + 2^-24)^3 < M + 1/2 (S >= (max - Z) / M up to the f32 rounding of S0,
         * then rounded up): the clamps of r never act, floor(r) is the truncation, and
         * nearbyintf(r) is the conversion in the current rounding mode (cvtps2dq, as
         * nearbyintf reads the same MXCSR); only q = M + 1 (stochastic, t = M) needs the clamp.
         * The same codes as the general loop below, with fewer operations. */
        const __m512i mi = _mm512_set1_epi32((int)rc->m), onei = _mm512_set1_epi32(1);
        for (; j + 16 <= len; j += 16) {
            const __m512 r = _mm512_div_ps(_mm512_sub_ps(_mm512_mul_ps(_mm512_loadu_ps(h + j), k), zk), sk);
            __m512i qi;
            if (rc->stochastic) {
                const __m512i ti = _mm512_cvttps_epi32(r);
                const __m512i uw = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(w + j)));
                const __m512 u = _mm512_mul_ps(_mm512_cvtepi32_ps(uw), inv16);
                const __mmask16 up = _mm512_cmp_ps_mask(u, _mm512_sub_ps(r, _mm512_cvtepi32_ps(ti)), _CMP_LT_OQ);
                qi = _mm512_min_epi32(_mm512_mask_add_epi32(ti, up, ti, onei), mi);
            } else {
                qi = _mm512_cvtps_epi32(r);
            }
            put_codes(_mm512_cvtepi32_epi8(qi), 16, bits, out + j * bits / 8);
        }
        return j;
    }
    for (; j + 16 <= len; j += 16) {
        __m512 r = _mm512_div_ps(_mm512_sub_ps(_mm512_mul_ps(_mm512_loadu_ps(h + j), k), zk), sk);
        r = _mm512_min_ps(_mm512_max_ps(r, lo), hi);
        __m512 q;
        if (rc->stochastic) {
            __m512 t = _mm512_cvtepi32_ps(_mm512_cvttps_epi32(r));
            t = _mm512_mask_sub_ps(t, _mm512_cmp_ps_mask(t, r, _CMP_GT_OQ), t, one);
            const __m512i uw = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(w + j)));
            const __m512 u = _mm512_mul_ps(_mm512_cvtepi32_ps(uw), inv16);
            q = _mm512_mask_add_ps(t, _mm512_cmp_ps_mask(u, _mm512_sub_ps(r, t), _CMP_LT_OQ), t, one);
        } else {
            q = _mm512_sub_ps(_mm512_add_ps(r, magic), magic);
        }
        q = _mm512_min_ps(_mm512_max_ps(q, zero), m);
        put_codes(_mm512_cvtepi32_epi8(_mm512_cvttps_epi32(q)), 16, bits, out + j * bits / 8);
    }
    return j;
}
#endif

/* Codes of one chunk of len <= QCH values into c, by path: PATH_AUTO (AVX-512F, else AVX2,
 * else SSE2, as the CPU has them), or one path forced (the oracle checks each: a CPU takes
 * only one of them; a forced path the CPU lacks falls back to the next one down). */
static void chunk_pack(const uint8_t *c, int len, int bits, uint8_t *out);

/* The packed codes of one chunk of len <= QCH values at out. The SIMD paths write whole
 * vectors' codes packed (a vector holds whole bytes at every width); the values after them go
 * one at a time into c, then chunk_pack. */
static void chunk_codes(const float *h, int len, const row_consts *rc, const uint16_t *w, int bits, uint8_t *out,
                        int path)
{
    int done = 0;
#ifdef QUANT_X86
    if (path == PATH_AUTO && gnn_cpu_philox_have_avx512())
        done = codes_avx512(h, len, rc, w, bits, out);
    else if ((path == PATH_AUTO || path == PATH_AVX2) && gnn_cpu_philox_have_avx2())
        done = codes_avx2(h, len, rc, w, bits, out);
    else if (path != PATH_SCALAR)
        done = codes_sse2(h, len, rc, w, bits, out);
#else
    (void)path;
#endif
    if (done < len) {
        uint8_t c[QCH];
        codes_scalar(h, done, len, rc, w, c);
        chunk_pack(c + done, len - done, bits, out + done * bits / 8);
    }
}

/* Codes c[0..len) (each < 2^bits) packed into whole bytes and the last partial one (pad bits
 * zero). Four codes as one little-endian word v = c0 | c1 << 8 | c2 << 16 | c3 << 24: for int2,
 * v * 0x40100401 puts c0 << 6 | c1 << 4 | c2 << 2 | c3 in bits 24..31 (the other partial
 * products land in bits 0..21 without overlapping, or above bit 31); for int4,
 * v * 0x1001 puts c0 << 4 | c1 in bits 8..15 and c2 << 4 | c3 in bits 24..31. */
static void chunk_pack(const uint8_t *c, int len, int bits, uint8_t *out)
{
    int full;
    if (bits == 8) {
        memcpy(out, c, (size_t)len);
        return;
    }
    if (bits == 4) {
        full = len / 4 * 2;
        for (int j = 0; j < full / 2; j++) {
            uint32_t v;
            memcpy(&v, c + 4 * j, 4);
            v *= 0x1001u;
            out[2 * j] = (uint8_t)(v >> 8);
            out[2 * j + 1] = (uint8_t)(v >> 24);
        }
    } else {
        full = len / 4;
        for (int j = 0; j < full; j++) {
            uint32_t v;
            memcpy(&v, c + 4 * j, 4);
            out[j] = (uint8_t)((v * 0x40100401u) >> 24);
        }
    }
    const int per = 8 / bits;
    for (int b = full; b * per < len; b++) { /* the rest, as ref: first code in the high bits */
        uint8_t x = 0;
        for (int j = b * per; j < len && j < (b + 1) * per; j++)
            x |= (uint8_t)(c[j] << (8 - bits - (j - b * per) * bits));
        out[b] = x;
    }
}

/* The row's min and max (d >= 1): lane-wise min_ps / max_ps, then across the lanes. The same
 * values as ref's scan for finite rows, whatever the order (a min is a min; -0 against +0 is
 * the one place where the order shows, and Z = min + 0 and the double difference make the two
 * zeros equal). */
#ifdef QUANT_X86
__attribute__((target("avx512f"))) static int64_t minmax_avx512(const float *h, int64_t d, float *mn, float *mx)
{
    if (d < 16)
        return 0;
    __m512 lo = _mm512_loadu_ps(h), hi = lo;
    int64_t f = 16;
    for (; f + 16 <= d; f += 16) {
        const __m512 v = _mm512_loadu_ps(h + f);
        lo = _mm512_min_ps(lo, v);
        hi = _mm512_max_ps(hi, v);
    }
    *mn = _mm512_reduce_min_ps(lo);
    *mx = _mm512_reduce_max_ps(hi);
    return f;
}

static int64_t minmax_sse2(const float *h, int64_t d, float *mn, float *mx)
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

static void row_minmax(const float *h, int64_t d, float *mn_out, float *mx_out, int path)
{
    float mn = h[0], mx = h[0];
    int64_t f = 1;
#ifdef QUANT_X86
    int64_t done = path == PATH_AUTO && gnn_cpu_philox_have_avx512() ? minmax_avx512(h, d, &mn, &mx) : 0;
    if (!done && path != PATH_SCALAR)
        done = minmax_sse2(h, d, &mn, &mx);
    if (done)
        f = done;
#else
    (void)path;
#endif
    for (; f < d; f++) {
        mn = h[f] < mn ? h[f] : mn;
        mx = h[f] > mx ? h[f] : mx;
    }
    *mn_out = mn;
    *mx_out = mx;
}

/* Step 1 for one row: its parameters (written to par_i) and the constants of steps 2 and 3. */
static void row_setup(const float *h, int64_t d, const gnn_quant_cfg *q, uint8_t *par_i, row_consts *rc, int path)
{
    const int b = q->bits;
    uint16_t zb = 0, sb = 0x3F80u;
    float mn = 0.0f, mx = 0.0f;
    if (d > 0) {
        row_minmax(h, d, &mn, &mx, path);
        gnn_quant_range_params_ref(mn, mx, b, &zb, &sb);
    }
    par_i[0] = (uint8_t)(zb & 0xff);
    par_i[1] = (uint8_t)(zb >> 8);
    par_i[2] = (uint8_t)(sb & 0xff);
    par_i[3] = (uint8_t)(sb >> 8);
    const float z = gnn_bf16_to_f32(zb), s = gnn_bf16_to_f32(sb);
    rc->k = isinf(mx - z) ? 0.5f : 1.0f; /* as ref: h k - Z k cannot overflow */
    rc->zk = z * rc->k;
    rc->sk = s * rc->k;
    rc->m = (float)((1 << b) - 1);
    rc->hi = rc->m + 1.0f;
    rc->stochastic = q->round == GNN_QUANT_STOCHASTIC;
    rc->plain = d > 0 && isfinite(mn) && isfinite(mx) && mn >= z;
    rc->fast = rc->plain && rc->sk >= 0x1p-100f && rc->sk <= 0x1p100f;
    rc->y = 1.0f / rc->sk;
    rc->thr = rc->sk * 0x1p-119f > 0x1p-116f ? rc->sk * 0x1p-119f : 0x1p-116f;
    if (rc->fast && rc->k == 1.0f && z != 0.0f && fabsf(z) >= rc->thr * 0x1p24f)
        rc->fast = 2;
}

#define QROWS 8
#ifndef QPF
#define QPF (32 * 1024)
#endif
#ifdef QUANT_X86
/* The 8 lane-wise vectors v[0..8) reduced by OP (min or max), result r in lane r (0..7): pairs
 * of vectors halved by 128-bit shuffles twice, then the four lanes of each 128-bit lane. */
#define REDUCE8(OP, v, out)                                                                                \
    do {                                                                                                   \
        __m512 t_[4];                                                                                      \
        for (int p_ = 0; p_ < 4; p_++)                                                                     \
            t_[p_] = OP(_mm512_shuffle_f32x4(v[2 * p_], v[2 * p_ + 1], _MM_SHUFFLE(1, 0, 1, 0)),           \
                        _mm512_shuffle_f32x4(v[2 * p_], v[2 * p_ + 1], _MM_SHUFFLE(3, 2, 3, 2)));          \
        const __m512 u0_ = OP(_mm512_shuffle_f32x4(t_[0], t_[1], _MM_SHUFFLE(2, 0, 2, 0)),                 \
                              _mm512_shuffle_f32x4(t_[0], t_[1], _MM_SHUFFLE(3, 1, 3, 1)));                \
        const __m512 u1_ = OP(_mm512_shuffle_f32x4(t_[2], t_[3], _MM_SHUFFLE(2, 0, 2, 0)),                 \
                              _mm512_shuffle_f32x4(t_[2], t_[3], _MM_SHUFFLE(3, 1, 3, 1)));                \
        const __m512 g_ = OP(_mm512_unpacklo_ps(u0_, u1_), _mm512_unpackhi_ps(u0_, u1_));                  \
        const __m512 h_ = OP(g_, _mm512_shuffle_ps(g_, g_, _MM_SHUFFLE(1, 0, 3, 2)));                      \
        (out) = _mm512_permutexvar_ps(                                                                     \
            _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 0, 4, 8, 12, 1, 5, 9, 13), h_);                    \
    } while (0)

/* row_setup for the nr <= QROWS rows of a block at once (d >= 1; AVX-512F): each row's min and
 * max lane-wise (two accumulators, the lanes past d filled with h[0]), the 8 rows reduced
 * together (REDUCE8), then the parameters of the 8 rows in the lanes of one vector: the same
 * operations as gnn_quant_range_params_ref and row_setup, lane by lane (bf16_down and bf16_up
 * as integer selects, the double difference and division in 8 double lanes, cvtpd2ps as the
 * C conversion), where one row at a time waits on each step of its chain and on its branches. */
__attribute__((target("avx512f"))) static void block_setup_avx512(const float *x, int nr, int64_t d,
                                                                  const gnn_quant_cfg *q, uint8_t *params,
                                                                  row_consts *rc)
{
    __m512 lo[QROWS], hi[QROWS];
    const int64_t dv = d / 16 * 16;
    const __mmask16 tail = (__mmask16)((1u << (d - dv)) - 1u);
    for (int r = 0; r < QROWS; r++) { /* rows past nr (the last block) repeat row 0 */
        const float *h = x + (r < nr ? r : 0) * d;
        const __m512 first = _mm512_set1_ps(h[0]);
        __m512 l0 = first, u0 = first, l1 = first, u1 = first;
        int64_t f = 0;
        for (; f + 32 <= dv; f += 32) {
            const __m512 v0 = _mm512_loadu_ps(h + f), v1 = _mm512_loadu_ps(h + f + 16);
            l0 = _mm512_min_ps(l0, v0);
            u0 = _mm512_max_ps(u0, v0);
            l1 = _mm512_min_ps(l1, v1);
            u1 = _mm512_max_ps(u1, v1);
        }
        if (f < dv) {
            const __m512 v0 = _mm512_loadu_ps(h + f);
            l0 = _mm512_min_ps(l0, v0);
            u0 = _mm512_max_ps(u0, v0);
        }
        if (tail) {
            const __m512 v1 = _mm512_mask_loadu_ps(first, tail, h + dv);
            l1 = _mm512_min_ps(l1, v1);
            u1 = _mm512_max_ps(u1, v1);
        }
        lo[r] = _mm512_min_ps(l0, l1);
        hi[r] = _mm512_max_ps(u0, u1);
    }
    __m512 mn, mx;
    REDUCE8(_mm512_min_ps, lo, mn);
    REDUCE8(_mm512_max_ps, hi, mx);
    const __m512i ffff = _mm512_set1_epi32(0xffff), one = _mm512_set1_epi32(1);
    /* Z = bf16_down(mn + 0): the high half, one further from zero where negative and inexact,
     * except 0xFF7F (the lowest finite bf16) */
    const __m512i uz = _mm512_castps_si512(_mm512_add_ps(mn, _mm512_setzero_ps()));
    const __m512i hz = _mm512_srli_epi32(uz, 16);
    const __mmask16 keepz = _mm512_testn_epi32_mask(uz, ffff) |
                            _mm512_testn_epi32_mask(uz, _mm512_set1_epi32(INT32_MIN)) |
                            _mm512_cmpeq_epi32_mask(hz, _mm512_set1_epi32(0xFF7F));
    const __m512i zb = _mm512_mask_add_epi32(hz, (__mmask16)~keepz, hz, one);
    const __m512 z = _mm512_castsi512_ps(_mm512_slli_epi32(zb, 16));
    /* S0 = (float)(((double)mx - (double)Z) / M), S = bf16_up(S0) where S0 > 0, else 1 */
    const __m512d md = _mm512_set1_pd((double)((1 << q->bits) - 1));
    const __m256 s0h = _mm512_cvtpd_ps(_mm512_div_pd(
        _mm512_sub_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(mx)), _mm512_cvtps_pd(_mm512_castps512_ps256(z))), md));
    const __m512 s0 = _mm512_castpd_ps(_mm512_zextpd256_pd512(_mm256_castps_pd(s0h)));
    const __m512i us = _mm512_castps_si512(s0), hs = _mm512_srli_epi32(us, 16);
    const __mmask16 keeps =
        _mm512_testn_epi32_mask(us, ffff) | _mm512_cmpeq_epi32_mask(hs, _mm512_set1_epi32(0x7F7F));
    const __m512i sb = _mm512_mask_mov_epi32(_mm512_set1_epi32(0x3F80),
                                             _mm512_cmp_ps_mask(s0, _mm512_setzero_ps(), _CMP_GT_OQ),
                                             _mm512_mask_add_epi32(hs, (__mmask16)~keeps, hs, one));
    const __m512 s = _mm512_castsi512_ps(_mm512_slli_epi32(sb, 16));
    _mm512_mask_storeu_epi32((void *)params, (__mmask16)((1u << nr) - 1u),
                             _mm512_or_si512(zb, _mm512_slli_epi32(sb, 16))); /* Z, S little-endian */
    /* row_setup's constants */
    const __m512 inf = _mm512_set1_ps(INFINITY);
    const __mmask16 wide = _mm512_cmp_ps_mask(_mm512_abs_ps(_mm512_sub_ps(mx, z)), inf, _CMP_EQ_OQ);
    const __m512 k = _mm512_mask_mov_ps(_mm512_set1_ps(1.0f), wide, _mm512_set1_ps(0.5f));
    const __m512 zk = _mm512_mul_ps(z, k), sk = _mm512_mul_ps(s, k);
    const __mmask16 plain = _mm512_cmp_ps_mask(_mm512_abs_ps(mn), inf, _CMP_LT_OQ) &
                            _mm512_cmp_ps_mask(_mm512_abs_ps(mx), inf, _CMP_LT_OQ) &
                            _mm512_cmp_ps_mask(mn, z, _CMP_GE_OQ);
    const __mmask16 fast = plain & _mm512_cmp_ps_mask(sk, _mm512_set1_ps(0x1p-100f), _CMP_GE_OQ) &
                           _mm512_cmp_ps_mask(sk, _mm512_set1_ps(0x1p100f), _CMP_LE_OQ);
    const __m512 y = _mm512_div_ps(_mm512_set1_ps(1.0f), sk);
    const __m512 thr = _mm512_max_ps(_mm512_mul_ps(sk, _mm512_set1_ps(0x1p-119f)), _mm512_set1_ps(0x1p-116f));
    const __mmask16 fast2 =
        fast & (__mmask16)~wide & _mm512_cmp_ps_mask(z, _mm512_setzero_ps(), _CMP_NEQ_UQ) &
        _mm512_cmp_ps_mask(_mm512_abs_ps(z), _mm512_mul_ps(thr, _mm512_set1_ps(0x1p24f)), _CMP_GE_OQ);
    float kv[16], zkv[16], skv[16], yv[16], tv[16];
    _mm512_storeu_ps(kv, k);
    _mm512_storeu_ps(zkv, zk);
    _mm512_storeu_ps(skv, sk);
    _mm512_storeu_ps(yv, y);
    _mm512_storeu_ps(tv, thr);
    const float m = (float)((1 << q->bits) - 1);
    for (int r = 0; r < nr; r++) {
        rc[r].k = kv[r];
        rc[r].zk = zkv[r];
        rc[r].sk = skv[r];
        rc[r].y = yv[r];
        rc[r].thr = tv[r];
        rc[r].m = m;
        rc[r].hi = m + 1.0f;
        rc[r].stochastic = q->round == GNN_QUANT_STOCHASTIC;
        rc[r].plain = (plain >> r) & 1;
        rc[r].fast = (fast2 >> r) & 1 ? 2 : (fast >> r) & 1;
    }
}
#endif

#ifdef QUANT_X86
/* Stochastic codes of a fast row with its Philox words computed in registers (AVX-512F and
 * AVX-512BW), 64 values (8 blocks, one per 64-bit lane) a set, G sets side by side. The rounds
 * are gnn_rng_block's (as philox_lanes.c's AVX-512 path: a state word in the low half of a
 * 64-bit lane, vpmuludq reads only those halves); in rounds 1 and 2 the counter words 1..3 are
 * the same in every lane, so one of the two products of those rounds is a scalar. Lane j then
 * holds the four words of block j, the 16-bit draws of values 8j .. 8j+7 of the set: two
 * two-source permutes put the words in block-then-word order, and read as 16-bit halves, low
 * half first, that order is the values' own (quant.h: value i takes half i % 2 of word
 * (i / 2) % 4 of block i / 8): a vector of 32 words holds the draws of 32 consecutive values.
 * The codes are then decided in 16-bit lanes against it (stoch_ceil16 says how). */

/* C = ceil(R), R = r 2^16 (the quotient of QUOTIENT scaled by 2^16: y 2^16 and s 2^-16 in
 * place of y and s, both exact for 2^-100 <= s <= 2^100, so R is ref's r times 2^16 bit for
 * bit; a power of two commutes with RN away from the subnormals). Then the code is
 *     q = min(hi16(C) + (u16 < lo16(C)), M):
 * with t = floor(r) and c = ceil(frac 2^16) in 0 .. 2^16, C = t 2^16 + c (t 2^16 is an
 * integer); for c < 2^16 that is hi16 = t, lo16 = c, and ref's t + (u16 < c); for c = 2^16,
 * hi16 = t + 1, lo16 = 0, and ref's t + 1 (every u16 < 2^16). A plain row has 0 <= r < M + 1/2,
 * so C < 2^24 and hi16 <= M: the min is ref's clamp of q = M + 1. */
static inline __attribute__((always_inline, target("avx512f"))) __m512i
stoch_ceil16(__m512 x, __m512 k, __m512 zk, __m512 sk, __m512 y16, __m512 s16, __m512 thr, const int unchecked)
{
    __m512 R;
    if (unchecked) {
        const __m512 a = _mm512_sub_ps(x, zk);
        QUOTIENT_NOCHECK_AVX512(R, a, s16, y16);
    } else {
        const __m512 a = _mm512_sub_ps(_mm512_mul_ps(x, k), zk);
        QUOTIENT_NOCHECK_AVX512(R, a, s16, y16);
        const __mmask16 tiny = _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(a, thr, _CMP_LT_OQ), a,
                                                       _mm512_setzero_ps(), _CMP_NEQ_UQ);
        if (__builtin_expect(tiny != 0, 0))
            R = _mm512_mul_ps(_mm512_div_ps(a, sk), _mm512_set1_ps(65536.0f));
    }
    return _mm512_cvt_roundps_epu32(R, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
}

/* The codes of 32 consecutive values (16-bit lanes, in value order) from the C of the first 16
 * (ca) and of the next 16 (cb) and their draws u (32 words in value order). */
static inline __attribute__((always_inline, target("avx512f,avx512bw"))) __m512i
stoch_codes32(__m512i ca, __m512i cb, __m512i u, __m512i ilo, __m512i ihi, __m512i m)
{
    const __m512i lo = _mm512_permutex2var_epi16(ca, ilo, cb), hi = _mm512_permutex2var_epi16(ca, ihi, cb);
    const __mmask32 up = _mm512_cmplt_epu16_mask(u, lo);
    return _mm512_min_epu16(_mm512_mask_add_epi16(hi, up, hi, _mm512_set1_epi16(1)), m);
}

static const uint16_t k_word_lo[32] = { 0,  2,  4,  6,  8,  10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30,
                                        32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62 };
static const uint16_t k_word_hi[32] = { 1,  3,  5,  7,  9,  11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31,
                                        33, 35, 37, 39, 41, 43, 45, 47, 49, 51, 53, 55, 57, 59, 61, 63 };

static inline __attribute__((always_inline, target("avx512f,avx512bw"))) void
stoch_step(const float *h, uint32_t q, const gnn_rng_stream *st, const philox_keys *ks, const row_consts *rc,
           const int bits, uint8_t *out, const int unchecked, const int G)
{
    const __m512i m0 = _mm512_set1_epi64(0xD2511F53u), m1 = _mm512_set1_epi64(0xCD9E8D57u);
    const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    __m512i c0[4], c1[4], c2[4], c3[4];
    /* round 1: c1 = id_lo, c2 = ctr_hi, c3 = step in every lane */
    const uint64_t p1s = (uint64_t)0xCD9E8D57u * st->ctr_hi;
    const uint32_t r1c0 = (uint32_t)(p1s >> 32) ^ st->ctr_id_lo ^ ks->k0[0], r1c1 = (uint32_t)p1s;
    const __m512i x3 = _mm512_set1_epi64(st->step ^ ks->k1[0]);
    for (int g = 0; g < G; g++) {
        const __m512i p0 = _mm512_mul_epu32(_mm512_add_epi64(_mm512_set1_epi64(q + 8u * (uint32_t)g), lane), m0);
        c2[g] = _mm512_xor_si512(_mm512_srli_epi64(p0, 32), x3);
        c3[g] = p0;
    }
    /* round 2: c0 = r1c0 and c1 = r1c1 in every lane */
    const uint64_t p0s = (uint64_t)0xD2511F53u * r1c0;
    const __m512i x0 = _mm512_set1_epi64(r1c1 ^ ks->k0[1]), hp0 = _mm512_set1_epi64((uint32_t)(p0s >> 32) ^ ks->k1[1]);
    const __m512i lp0 = _mm512_set1_epi64((uint32_t)p0s);
    for (int g = 0; g < G; g++) {
        const __m512i p1 = _mm512_mul_epu32(c2[g], m1);
        c0[g] = _mm512_xor_si512(_mm512_srli_epi64(p1, 32), x0);
        c2[g] = _mm512_xor_si512(hp0, c3[g]);
        c1[g] = p1;
        c3[g] = lp0;
    }
    for (int rd = 2; rd < 10; rd++) {
        const __m512i kk0 = _mm512_set1_epi64(ks->k0[rd]), kk1 = _mm512_set1_epi64(ks->k1[rd]);
        for (int g = 0; g < G; g++) {
            const __m512i p0 = _mm512_mul_epu32(c0[g], m0), p1 = _mm512_mul_epu32(c2[g], m1);
            c0[g] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), c1[g], kk0, 0x96);
            c2[g] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0, 32), c3[g], kk1, 0x96);
            c1[g] = p1;
            c3[g] = p0;
        }
    }
    const __m512 k = _mm512_set1_ps(rc->k), zk = _mm512_set1_ps(rc->zk), sk = _mm512_set1_ps(rc->sk);
    const __m512 y16 = _mm512_set1_ps(rc->y * 65536.0f), s16 = _mm512_set1_ps(rc->sk * (1.0f / 65536.0f));
    const __m512 thr = _mm512_set1_ps(rc->thr);
    const __m512i m = _mm512_set1_epi16((short)rc->m);
    /* words 0, 1 of block j (low halves of lane j of c0, c1) to dwords 2j, 2j + 1; 2, 3 alike;
     * then qwords (block j words 0-1, block j words 2-3) for j = 0..3 and 4..7 */
    const __m512i iw = _mm512_setr_epi32(0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30);
    const __m512i ilo = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11);
    const __m512i ihi = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
    const __m512i wlo = _mm512_loadu_si512((const void *)k_word_lo), whi = _mm512_loadu_si512((const void *)k_word_hi);
    for (int g = 0; g < G; g++) {
        const __m512i w01 = _mm512_permutex2var_epi32(c0[g], iw, c1[g]);
        const __m512i w23 = _mm512_permutex2var_epi32(c2[g], iw, c3[g]);
        const __m512i u0 = _mm512_permutex2var_epi64(w01, ilo, w23), u1 = _mm512_permutex2var_epi64(w01, ihi, w23);
        const float *hg = h + 64 * g;
        const __m512i ca = stoch_ceil16(_mm512_loadu_ps(hg), k, zk, sk, y16, s16, thr, unchecked);
        const __m512i cb = stoch_ceil16(_mm512_loadu_ps(hg + 16), k, zk, sk, y16, s16, thr, unchecked);
        const __m512i cc = stoch_ceil16(_mm512_loadu_ps(hg + 32), k, zk, sk, y16, s16, thr, unchecked);
        const __m512i cd = stoch_ceil16(_mm512_loadu_ps(hg + 48), k, zk, sk, y16, s16, thr, unchecked);
        const __m512i q01 = stoch_codes32(ca, cb, u0, wlo, whi, m), q23 = stoch_codes32(cc, cd, u1, wlo, whi, m);
        put64_bytes(_mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi16_epi8(q01)), _mm512_cvtepi16_epi8(q23), 1),
                    bits, out + 64 * g * bits / 8);
    }
}

static inline __attribute__((always_inline, target("avx512f,avx512bw"))) int64_t
stoch_row(const float *h, int64_t d, uint32_t blk0, const gnn_rng_stream *st, const philox_keys *ks,
          const row_consts *rc, const int bits, uint8_t *out, const int unchecked)
{
    int64_t f = 0;
    for (; f + 256 <= d; f += 256)
        stoch_step(h + f, blk0 + (uint32_t)(f / 8), st, ks, rc, bits, out + f * bits / 8, unchecked, 4);
    if (f + 128 <= d) {
        stoch_step(h + f, blk0 + (uint32_t)(f / 8), st, ks, rc, bits, out + f * bits / 8, unchecked, 2);
        f += 128;
    }
    if (f + 64 <= d) {
        stoch_step(h + f, blk0 + (uint32_t)(f / 8), st, ks, rc, bits, out + f * bits / 8, unchecked, 1);
        f += 64;
    }
    return f;
}

/* The whole sets of 64 values of a fast stochastic row whose first value takes the first draw
 * of block blk0; returns how many values were done. */
__attribute__((target("avx512f,avx512bw"))) static int64_t stoch_fused_avx512(const float *h, int64_t d, uint32_t blk0,
                                                                              const gnn_rng_stream *st,
                                                                              const philox_keys *ks,
                                                                              const row_consts *rc, int bits,
                                                                              uint8_t *out)
{
    const int un = rc->fast == 2;
    if (bits == 2)
        return un ? stoch_row(h, d, blk0, st, ks, rc, 2, out, 1) : stoch_row(h, d, blk0, st, ks, rc, 2, out, 0);
    if (bits == 4)
        return un ? stoch_row(h, d, blk0, st, ks, rc, 4, out, 1) : stoch_row(h, d, blk0, st, ks, rc, 4, out, 0);
    return un ? stoch_row(h, d, blk0, st, ks, rc, 8, out, 1) : stoch_row(h, d, blk0, st, ks, rc, 8, out, 0);
}

/* 1 where the CPU has AVX-512BW besides AVX-512F (the fused stochastic rows need both). */
static int have_avx512bw(void)
{
    static int cached = -1;
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx512bw") ? 1 : 0;
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}
#endif

/* The 16-bit draws of values f0 .. f0+len-1 (len <= QCH) of a row whose stream is st and whose
 * first draw is draw0: draw i = draw0 + f is half i % 2 (low half first) of word (i / 2) % 4 of
 * block i / 8 (quant.h), so the words of the blocks the values span, in order, are their draws
 * two by two; i starts even (draw0 and f0 are multiples of 4). */
static void chunk_draws(const gnn_rng_stream *st, uint64_t draw0, int64_t f0, int len, uint16_t *u)
{
    uint32_t w[4 * (QCH / 8 + 1)];
    const uint64_t i0 = draw0 + (uint64_t)f0;
    const int skip = (int)(i0 % 8) / 2; /* words of the first block before draw i0: 0 or 2 */
    gnn_cpu_philox_blocks(st, (uint32_t)(i0 / 8), (2 * skip + len + 7) / 8, w);
    for (int j = 0; j < (len + 1) / 2; j++) {
        const uint32_t x = w[skip + j];
        u[2 * j] = (uint16_t)(x & 0xffffu);
        u[2 * j + 1] = (uint16_t)(x >> 16);
    }
}

/* Steps 2 to 4 for one row whose constants are rc. */
static void row_codes(const float *h, int64_t d, int64_t gid, const gnn_quant_cfg *q, const philox_keys *ks,
                      const row_consts *rc, uint8_t *data_i, int path, int avx512)
{
    const gnn_rng_stream st = gnn_rng_stream_make(q->seed, GNN_TAG_QUANT, q->step, 2 * q->layer + q->dir, (uint64_t)gid);
    uint16_t u[QCH + 1];
    int64_t f0 = 0;
#ifdef QUANT_X86
    if (avx512 && rc->fast && rc->stochastic && have_avx512bw()) { /* the row's whole sets; the rest below */
        /* a row whose first draw is the middle of a block (draw0 % 8 == 4): its first 4 values
         * (whole bytes at every width) here, then the rest from the start of the next block */
        if (q->draw0 % 8 != 0 && d > 4) {
            chunk_draws(&st, q->draw0, 0, 4, u);
            chunk_codes(h, 4, rc, u, q->bits, data_i, path);
            f0 = 4;
        }
        if (q->draw0 % 8 == 0 || f0 == 4) /* a multiple of 64 values */
            f0 += stoch_fused_avx512(h + f0, d - f0, (uint32_t)((q->draw0 + (uint64_t)f0) / 8), &st, ks, rc,
                                     q->bits, data_i + f0 * q->bits / 8);
    } else if (avx512 && rc->fast && !rc->stochastic) {
        for (int64_t len; (len = d - f0 < (1 << 20) ? d - f0 : (1 << 20)) >= 16;)
            f0 += codes_fast_avx512(h + f0, (int)len, rc, NULL, q->bits, data_i + f0 * q->bits / 8);
    }
#else
    (void)avx512;
    (void)ks;
#endif
    for (; f0 < d; f0 += QCH) {
        const int len = d - f0 < QCH ? (int)(d - f0) : QCH;
        if (rc->stochastic)
            chunk_draws(&st, q->draw0, f0, len, u);
        chunk_codes(h + f0, len, rc, u, q->bits, data_i + f0 * q->bits / 8, path); /* QCH b / 8 bytes a chunk */
    }
}

/* Rows in blocks of QROWS: the parameters of the whole block first, then its codes. A row's
 * parameters are a chain of dependent steps (min and max, a double division, the bf16
 * roundings); the rows of a block have independent chains that the CPU overlaps, where one row
 * at a time would wait on each (with AVX-512F, block_setup_avx512 computes them in the lanes of
 * one vector); and the block's rows stay in L1 for the second pass. */
static void pack_path(const float *x, int64_t n, int64_t d, const int64_t *row_gid, const gnn_quant_cfg *q,
                      uint8_t *data, uint8_t *params, int path)
{
    if (q->bits == 32) {
        if (n * d > 0)
            memcpy(data, x, (size_t)(n * d) * sizeof(float));
        return;
    }
    const int64_t rb = gnn_quant_data_bytes(d, q->bits), nblk = (n + QROWS - 1) / QROWS;
    const int64_t pf_rows = d > 0 && d * 4 < QPF ? QPF / (d * 4) : 1;
    philox_keys ks;
    philox_keys_of(q->seed, &ks);
#ifdef QUANT_X86
    const int avx512 = path == PATH_AUTO && d > 0 && gnn_cpu_philox_have_avx512();
#else
    const int avx512 = 0;
#endif
#pragma omp parallel for schedule(static) if (n * d >= 16384)
    for (int64_t blk = 0; blk < nblk; blk++) {
        const int64_t i0 = blk * QROWS, i1 = i0 + QROWS < n ? i0 + QROWS : n;
        row_consts rc[QROWS];
#ifdef QUANT_X86
        if (avx512)
            block_setup_avx512(x + i0 * d, (int)(i1 - i0), d, q, params + i0 * GNN_QUANT_PARAM_BYTES, rc);
        else
#endif
            for (int64_t i = i0; i < i1; i++)
                row_setup(x + i * d, d, q, params + i * GNN_QUANT_PARAM_BYTES, &rc[i - i0], path);
        for (int64_t i = i0; i < i1; i++) {
            if (i + pf_rows < n) { /* the row QPF bytes ahead, for block_setup's first pass over it */
                const char *nx = (const char *)(x + (i + pf_rows) * d);
                for (int64_t o = 0; o < d * (int64_t)sizeof(float); o += 64)
                    __builtin_prefetch(nx + o, 0, 2);
            }
            row_codes(x + i * d, d, row_gid ? row_gid[i] : 0, q, &ks, &rc[i - i0], data + i * rb, path, avx512);
        }
    }
}

static gnn_status pack_cpu(const float *x, int64_t n, int64_t d, const int64_t *row_gid, const gnn_quant_cfg *q,
                           uint8_t *data, uint8_t *params)
{
    pack_path(x, n, d, row_gid, q, data, params, PATH_AUTO);
    return GNN_OK;
}
static gnn_status pack_avx2(const float *x, int64_t n, int64_t d, const int64_t *row_gid, const gnn_quant_cfg *q,
                            uint8_t *data, uint8_t *params)
{
    pack_path(x, n, d, row_gid, q, data, params, PATH_AVX2);
    return GNN_OK;
}
static gnn_status pack_sse2(const float *x, int64_t n, int64_t d, const int64_t *row_gid, const gnn_quant_cfg *q,
                            uint8_t *data, uint8_t *params)
{
    pack_path(x, n, d, row_gid, q, data, params, PATH_SSE2);
    return GNN_OK;
}
static gnn_status pack_scalar(const float *x, int64_t n, int64_t d, const int64_t *row_gid, const gnn_quant_cfg *q,
                              uint8_t *data, uint8_t *params)
{
    pack_path(x, n, d, row_gid, q, data, params, PATH_SCALAR);
    return GNN_OK;
}

const gnn_quant_ops gnn_quant_cpu = {
    .name = "cpu",
    .caps = 1u | 2u, /* GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED */
    .pack = pack_cpu,
    .unpack = gnn_quant_cpu_unpack,
};

/* The same with the codes' path forced (opt/cpu/quant_paths.h): for the oracle only. */
const gnn_quant_ops gnn_quant_cpu_avx2 = {
    .name = "cpu-avx2",
    .caps = 1u | 2u,
    .pack = pack_avx2,
    .unpack = gnn_quant_cpu_unpack_avx2,
};
const gnn_quant_ops gnn_quant_cpu_sse2 = {
    .name = "cpu-sse2",
    .caps = 1u | 2u,
    .pack = pack_sse2,
    .unpack = gnn_quant_cpu_unpack_plain,
};
const gnn_quant_ops gnn_quant_cpu_scalar = {
    .name = "cpu-scalar",
    .caps = 1u | 2u,
    .pack = pack_scalar,
    .unpack = gnn_quant_cpu_unpack_plain,
};
