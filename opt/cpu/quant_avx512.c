/* opt/cpu/quant_avx512.c -- the cpu quantize + pack's AVX-512 paths (opt/cpu/quant_impl.h),
 * taken where the CPU has AVX-512F (PATH_AUTO):
 *  - the codes 16 values a step (gnn_quant_cpu_codes_avx512), with fewer operations in a plain
 *    row (its clamps cannot act);
 *  - a fast row's quotient by the reciprocal and an exact FMA residual (QUOTIENT_AVX512: the
 *    proof that it is ref's correctly rounded division), its codes 64 at a time packed together
 *    (put64);
 *  - the row's min and max lane-wise, and the parameters of the 8 rows of a block in the lanes
 *    of one vector (gnn_quant_cpu_block_setup_avx512: ref's operations lane by lane);
 *  - with AVX-512BW too, a fast stochastic row in sets of 64 values, their Philox blocks
 *    computed in registers beside the codes that use them (stoch_step) and the draws compared
 *    in 16-bit integers (stoch_ceil16).
 * opt/cpu/quant.c's header lists what each changes from ref/quant.c and why the bits match.
 * Built with target attributes, so the rest of the library stays baseline x86-64. */
#include <math.h>
#include "opt/cpu/quant_impl.h"

#ifdef QUANT_X86
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

/* One vector of codes of a fast row (QUOTIENT_AVX512), as the plain loop of
 * gnn_quant_cpu_codes_avx512. */
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
__attribute__((target("avx512f"))) int gnn_quant_cpu_codes_fast_avx512(const float *h, int len, const row_consts *rc,
                                                                        const uint16_t *w, int bits, uint8_t *out)
{
    if (rc->stochastic)
        return rc->fast == 2 ? FAST_LOOP_BITS(1, 1) : FAST_LOOP_BITS(1, 0);
    return rc->fast == 2 ? FAST_LOOP_BITS(0, 1) : FAST_LOOP_BITS(0, 0);
}

/* AVX-512F: the same operations, 16 values a step (the comparisons give masks; max_ps and
 * min_ps treat a NaN as SSE's do). */
__attribute__((target("avx512f"))) int gnn_quant_cpu_codes_avx512(const float *h, int len, const row_consts *rc,
                                                                   const uint16_t *w, int bits, uint8_t *out)
{
    const __m512 k = _mm512_set1_ps(rc->k), zk = _mm512_set1_ps(rc->zk), sk = _mm512_set1_ps(rc->sk);
    const __m512 lo = _mm512_set1_ps(-1.0f), hi = _mm512_set1_ps(rc->hi), m = _mm512_set1_ps(rc->m);
    const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f), inv16 = _mm512_set1_ps(1.0f / 65536.0f);
    const __m512 magic = _mm512_set1_ps(8388608.0f);
    int j = 0;
    if (rc->fast)
        return gnn_quant_cpu_codes_fast_avx512(h, len, rc, w, bits, out);
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

/* The row's min and max (d >= 1) lane-wise, 16 values a step: see row_minmax (opt/cpu/quant.c). */
__attribute__((target("avx512f"))) int64_t gnn_quant_cpu_minmax_avx512(const float *h, int64_t d, float *mn,
                                                                        float *mx)
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
__attribute__((target("avx512f"))) void gnn_quant_cpu_block_setup_avx512(const float *x, int nr, int64_t d,
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
__attribute__((target("avx512f,avx512bw"))) int64_t
gnn_quant_cpu_stoch_fused_avx512(const float *h, int64_t d, uint32_t blk0, const gnn_rng_stream *st,
                                 const philox_keys *ks, const row_consts *rc, int bits, uint8_t *out)
{
    const int un = rc->fast == 2;
    if (bits == 2)
        return un ? stoch_row(h, d, blk0, st, ks, rc, 2, out, 1) : stoch_row(h, d, blk0, st, ks, rc, 2, out, 0);
    if (bits == 4)
        return un ? stoch_row(h, d, blk0, st, ks, rc, 4, out, 1) : stoch_row(h, d, blk0, st, ks, rc, 4, out, 0);
    return un ? stoch_row(h, d, blk0, st, ks, rc, 8, out, 1) : stoch_row(h, d, blk0, st, ks, rc, 8, out, 0);
}

/* 1 where the CPU has AVX-512BW besides AVX-512F (the fused stochastic rows need both). */
int gnn_quant_cpu_have_avx512bw(void)
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
