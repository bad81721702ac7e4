/* opt/cpu/quant.c -- OpenMP/SIMD quantized rows, bitwise equal to ref/quant.c at any thread
 * count (include/gnnref/quant.h, docs/quant.md).
 *
 * What changed and why the bits still match:
 *  - rows over threads, in blocks of QROWS rows: every row's bytes depend on that row alone
 *    (its values, its parameters, its own Philox stream keyed by its global id), so neither the
 *    thread count nor the blocking can change a bit;
 *  - the codes of a row in chunks of QCH values, 16 (AVX-512F), 8 (AVX2) or 4 (SSE2, every
 *    x86-64) at a time, chosen at run time, the rest one at a time with ref's own functions:
 *    the same f32 operations as ref, element by element: r = (h k - Z k) / (S k) (a division,
 *    never a reciprocal), the same clamps (max_ps(r, -1) maps a NaN to -1 as fmaxf does);
 *    floorf(r) as the truncation (float)(int32_t)r minus one where that is above r (exact for
 *    |r| < 2^31, and r is clamped to [-1, M + 1]); nearbyintf(r) as (r + 2^23) - 2^23 (ties to
 *    even in the default rounding mode, exact for 0 <= r < 2^22; for -1 <= r < 0 both give a
 *    value <= 0, which the clamp turns into 0 as ref's does); a row whose values are finite
 *    and >= Z has 0 <= r < M + 1/2, and there the AVX-512 loop drops the clamps that cannot
 *    act (codes_avx512 says why);
 *  - the row's min and max lane-wise (AVX-512F or SSE2): the same values (the order of a min is
 *    irrelevant, except for -0 against +0, which Z = min + 0 and the double difference make
 *    equal); the parameters from them by ref's own gnn_quant_range_params_ref;
 *  - the draws: the chunk's Philox blocks computed side by side (gnn_cpu_philox_blocks, AVX2 or
 *    AVX-512 lanes), the words gnn_rng_float reads, turned into the same floats;
 *  - packing in registers (four codes as one word times a constant: chunk_pack's comment) and
 *    unpacking with per-lane shifts (unpack_avx512, unpack_avx2; elsewhere a loop built for
 *    AVX2 and baseline by GNN_CLONES) instead of ref's bit arithmetic per element: the same
 *    bytes and the same decode, ((float)q (S k') + Z k') / k' clamped, the partial last byte
 *    as ref does it.
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

#if defined(__GNUC__) && defined(__x86_64__)
#define QUANT_X86 1
#include <immintrin.h>
#endif

/* The per-row constants of steps 2 and 3 (quant.h). */
typedef struct row_consts {
    float k, zk, sk, m, hi; /* hi = M + 1 */
    int stochastic;
    int plain; /* min and max finite and min >= Z: then 0 <= r < M + 1/2 (see codes_avx512) */
} row_consts;

/* Codes of h[j0 .. len) into c, one value at a time: ref's operations exactly (the tails of the
 * SIMD paths, and every value where there is no SIMD path). */
static void codes_scalar(const float *h, int j0, int len, const row_consts *rc, const uint32_t *w, uint8_t *c)
{
    for (int j = j0; j < len; j++) {
        float r = (h[j] * rc->k - rc->zk) / rc->sk;
        r = fminf(fmaxf(r, -1.0f), rc->hi);
        float q;
        if (rc->stochastic) {
            const float t = floorf(r), u = (float)(w[j] >> 8) * (1.0f / 16777216.0f);
            q = t + (u < r - t ? 1.0f : 0.0f);
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

static int codes_sse2(const float *h, int len, const row_consts *rc, const uint32_t *w, int bits, uint8_t *out)
{
    const __m128 k = _mm_set1_ps(rc->k), zk = _mm_set1_ps(rc->zk), sk = _mm_set1_ps(rc->sk);
    const __m128 lo = _mm_set1_ps(-1.0f), hi = _mm_set1_ps(rc->hi), m = _mm_set1_ps(rc->m), zero = _mm_setzero_ps();
    const __m128 one = _mm_set1_ps(1.0f), inv24 = _mm_set1_ps(1.0f / 16777216.0f), magic = _mm_set1_ps(8388608.0f);
    int j = 0;
    for (; j + 4 <= len; j += 4) {
        __m128 r = _mm_div_ps(_mm_sub_ps(_mm_mul_ps(_mm_loadu_ps(h + j), k), zk), sk);
        r = _mm_min_ps(_mm_max_ps(r, lo), hi);
        __m128 q;
        if (rc->stochastic) {
            __m128 t = _mm_cvtepi32_ps(_mm_cvttps_epi32(r));
            t = _mm_sub_ps(t, _mm_and_ps(_mm_cmpgt_ps(t, r), one));
            const __m128 u = _mm_mul_ps(_mm_cvtepi32_ps(_mm_srli_epi32(_mm_loadu_si128((const __m128i *)(w + j)), 8)), inv24);
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
                                                      const uint32_t *w, int bits, uint8_t *out)
{
    const __m256 k = _mm256_set1_ps(rc->k), zk = _mm256_set1_ps(rc->zk), sk = _mm256_set1_ps(rc->sk);
    const __m256 lo = _mm256_set1_ps(-1.0f), hi = _mm256_set1_ps(rc->hi), m = _mm256_set1_ps(rc->m);
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), inv24 = _mm256_set1_ps(1.0f / 16777216.0f);
    const __m256 magic = _mm256_set1_ps(8388608.0f);
    int j = 0;
    for (; j + 8 <= len; j += 8) {
        __m256 r = _mm256_div_ps(_mm256_sub_ps(_mm256_mul_ps(_mm256_loadu_ps(h + j), k), zk), sk);
        r = _mm256_min_ps(_mm256_max_ps(r, lo), hi);
        __m256 q;
        if (rc->stochastic) {
            __m256 t = _mm256_cvtepi32_ps(_mm256_cvttps_epi32(r));
            t = _mm256_sub_ps(t, _mm256_and_ps(_mm256_cmp_ps(t, r, _CMP_GT_OQ), one));
            const __m256i wv = _mm256_loadu_si256((const __m256i *)(w + j));
            const __m256 u = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(wv, 8)), inv24);
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

/* AVX-512F: the same operations, 16 values a step (the comparisons give masks; max_ps and
 * min_ps treat a NaN as SSE's do). */
__attribute__((target("avx512f"))) static int codes_avx512(const float *h, int len, const row_consts *rc,
                                                           const uint32_t *w, int bits, uint8_t *out)
{
    const __m512 k = _mm512_set1_ps(rc->k), zk = _mm512_set1_ps(rc->zk), sk = _mm512_set1_ps(rc->sk);
    const __m512 lo = _mm512_set1_ps(-1.0f), hi = _mm512_set1_ps(rc->hi), m = _mm512_set1_ps(rc->m);
    const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f), inv24 = _mm512_set1_ps(1.0f / 16777216.0f);
    const __m512 magic = _mm512_set1_ps(8388608.0f);
    int j = 0;
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
                const __m512i wv = _mm512_loadu_si512((const void *)(w + j));
                const __m512 u = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_srli_epi32(wv, 8)), inv24);
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
            const __m512i wv = _mm512_loadu_si512((const void *)(w + j));
            const __m512 u = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_srli_epi32(wv, 8)), inv24);
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
enum { PATH_AUTO = 0, PATH_AVX2 = 1, PATH_SSE2 = 2, PATH_SCALAR = 3 };
static void chunk_pack(const uint8_t *c, int len, int bits, uint8_t *out);

/* The packed codes of one chunk of len <= QCH values at out. The SIMD paths write whole
 * vectors' codes packed (a vector holds whole bytes at every width); the values after them go
 * one at a time into c, then chunk_pack. */
static void chunk_codes(const float *h, int len, const row_consts *rc, const uint32_t *w, int bits, uint8_t *out,
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
}

/* Steps 2 to 4 for one row whose constants are rc. */
static void row_codes(const float *h, int64_t d, int64_t gid, const gnn_quant_cfg *q, const row_consts *rc,
                      uint8_t *data_i, int path)
{
    const gnn_rng_stream st = gnn_rng_stream_make(q->seed, GNN_TAG_QUANT, q->step, 2 * q->layer + q->dir, (uint64_t)gid);
    const uint32_t blk0 = (uint32_t)(q->draw0 / 4); /* block draw0 / 4 + f / 4, mod 2^32 */
    uint32_t w[QCH];
    for (int64_t f0 = 0; f0 < d; f0 += QCH) {
        const int len = d - f0 < QCH ? (int)(d - f0) : QCH;
        if (rc->stochastic)
            gnn_cpu_philox_blocks(&st, blk0 + (uint32_t)(f0 / 4), (len + 3) / 4, w);
        chunk_codes(h + f0, len, rc, w, q->bits, data_i + f0 * q->bits / 8, path); /* QCH b / 8 bytes a chunk */
    }
}

/* Rows in blocks of QROWS: the parameters of the whole block first, then its codes. A row's
 * parameters are a chain of dependent steps (min and max, a double division, the bf16
 * roundings); the rows of a block have independent chains that the CPU overlaps, where one row
 * at a time would wait on each; and the block's rows stay in L1 for the second pass. */
#define QROWS 8
static void pack_path(const float *x, int64_t n, int64_t d, const int64_t *row_gid, const gnn_quant_cfg *q,
                      uint8_t *data, uint8_t *params, int path)
{
    if (q->bits == 32) {
        if (n * d > 0)
            memcpy(data, x, (size_t)(n * d) * sizeof(float));
        return;
    }
    const int64_t rb = gnn_quant_data_bytes(d, q->bits), nblk = (n + QROWS - 1) / QROWS;
#pragma omp parallel for schedule(static) if (n * d >= 16384)
    for (int64_t blk = 0; blk < nblk; blk++) {
        const int64_t i0 = blk * QROWS, i1 = i0 + QROWS < n ? i0 + QROWS : n;
        row_consts rc[QROWS];
        for (int64_t i = i0; i < i1; i++)
            row_setup(x + i * d, d, q, params + i * GNN_QUANT_PARAM_BYTES, &rc[i - i0], path);
        for (int64_t i = i0; i < i1; i++)
            row_codes(x + i * d, d, row_gid ? row_gid[i] : 0, q, &rc[i - i0], data + i * rb, path);
    }
}

static void pack_cpu(const float *x, int64_t n, int64_t d, const int64_t *row_gid, const gnn_quant_cfg *q,
                     uint8_t *data, uint8_t *params)
{
    pack_path(x, n, d, row_gid, q, data, params, PATH_AUTO);
}
static void pack_avx2(const float *x, int64_t n, int64_t d, const int64_t *row_gid, const gnn_quant_cfg *q,
                      uint8_t *data, uint8_t *params)
{
    pack_path(x, n, d, row_gid, q, data, params, PATH_AVX2);
}
static void pack_sse2(const float *x, int64_t n, int64_t d, const int64_t *row_gid, const gnn_quant_cfg *q,
                      uint8_t *data, uint8_t *params)
{
    pack_path(x, n, d, row_gid, q, data, params, PATH_SSE2);
}
static void pack_scalar(const float *x, int64_t n, int64_t d, const int64_t *row_gid, const gnn_quant_cfg *q,
                        uint8_t *data, uint8_t *params)
{
    pack_path(x, n, d, row_gid, q, data, params, PATH_SCALAR);
}

/* ref's decode of code c: ((float)c * (S k') + Z k') / k', clamped to the finite range (fmaxf and
 * fminf as ternaries: the same values for every non-NaN v, and v is never NaN here). */
#define DEC(c) clampf(((float)(c) * sk + zk) * inv)
static inline float clampf(float v)
{
    v = v > -FLT_MAX ? v : -FLT_MAX;
    return v < FLT_MAX ? v : FLT_MAX;
}

/* One row, whole bytes in a SIMD loop, the last partial byte after. */
GNN_CLONES static void unpack_row(const uint8_t *p, int64_t d, int bits, float sk, float zk, float inv, float *o)
{
    int64_t full;
    if (bits == 8) {
        full = d;
#pragma omp simd
        for (int64_t j = 0; j < d; j++)
            o[j] = DEC(p[j]);
    } else if (bits == 4) {
        full = d / 2;
#pragma omp simd
        for (int64_t j = 0; j < full; j++) {
            const int v = p[j];
            o[2 * j] = DEC(v >> 4);
            o[2 * j + 1] = DEC(v & 15);
        }
    } else {
        full = d / 4;
#pragma omp simd
        for (int64_t j = 0; j < full; j++) {
            const int v = p[j];
            o[4 * j] = DEC(v >> 6);
            o[4 * j + 1] = DEC((v >> 4) & 3);
            o[4 * j + 2] = DEC((v >> 2) & 3);
            o[4 * j + 3] = DEC(v & 3);
        }
    }
    const int per = 8 / bits, m = (1 << bits) - 1;
    for (int64_t f = full * per; f < d; f++)
        o[f] = DEC((p[full] >> (8 - bits - (f - full * per) * bits)) & m);
}

#ifdef QUANT_X86
/* The codes of values l = 0..15 of a vector are bits (8 - b - (l % p) b) of byte l / p of the
 * vector's 2b bytes (p = 8 / b codes a byte): the bytes widened to dwords, each lane's byte
 * fetched by one permute, shifted by its own count, masked; then ref's decode, clamp included. */
static const int32_t k_lane_idx[3][16] = {
    { 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3 }, /* int2: l / 4 */
    { 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7 }, /* int4: l / 2 */
    { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
};
static const int32_t k_lane_shift[3][16] = {
    { 6, 4, 2, 0, 6, 4, 2, 0, 6, 4, 2, 0, 6, 4, 2, 0 }, /* int2: 6 - 2 (l % 4) */
    { 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0 }, /* int4: 4 - 4 (l % 2) */
    { 0 },
};
static int lane_table(int bits) { return bits == 2 ? 0 : bits == 4 ? 1 : 2; }

__attribute__((target("avx512f"))) static int64_t unpack_avx512(const uint8_t *p, int64_t d, int bits, float sk,
                                                                float zk, float inv, float *o)
{
    const int t = lane_table(bits);
    const __m512i idx = _mm512_loadu_si512((const void *)k_lane_idx[t]);
    const __m512i sh = _mm512_loadu_si512((const void *)k_lane_shift[t]);
    const __m512i mask = _mm512_set1_epi32((1 << bits) - 1);
    const __m512 vs = _mm512_set1_ps(sk), vz = _mm512_set1_ps(zk), vi = _mm512_set1_ps(inv);
    const __m512 lo = _mm512_set1_ps(-FLT_MAX), hi = _mm512_set1_ps(FLT_MAX);
    int64_t j = 0;
    for (; j + 16 <= d; j += 16) {
        const uint8_t *pj = p + j * bits / 8; /* 2 b bytes: never past the row */
        __m128i b;
        if (bits == 8) {
            b = _mm_loadu_si128((const __m128i *)pj);
        } else if (bits == 4) {
            b = _mm_loadl_epi64((const __m128i *)pj);
        } else {
            int32_t v;
            memcpy(&v, pj, 4);
            b = _mm_cvtsi32_si128(v);
        }
        __m512i c = _mm512_cvtepu8_epi32(b);
        if (bits != 8)
            c = _mm512_and_si512(_mm512_srlv_epi32(_mm512_permutexvar_epi32(idx, c), sh), mask);
        __m512 v = _mm512_mul_ps(_mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(c), vs), vz), vi);
        _mm512_storeu_ps(o + j, _mm512_min_ps(_mm512_max_ps(v, lo), hi));
    }
    return j;
}

__attribute__((target("avx2"))) static int64_t unpack_avx2(const uint8_t *p, int64_t d, int bits, float sk, float zk,
                                                           float inv, float *o)
{
    const int t = lane_table(bits); /* the first 8 lanes of the 16-lane tables */
    const __m256i idx = _mm256_loadu_si256((const __m256i *)k_lane_idx[t]);
    const __m256i sh = _mm256_loadu_si256((const __m256i *)k_lane_shift[t]);
    const __m256i mask = _mm256_set1_epi32((1 << bits) - 1);
    const __m256 vs = _mm256_set1_ps(sk), vz = _mm256_set1_ps(zk), vi = _mm256_set1_ps(inv);
    const __m256 lo = _mm256_set1_ps(-FLT_MAX), hi = _mm256_set1_ps(FLT_MAX);
    int64_t j = 0;
    for (; j + 8 <= d; j += 8) {
        const uint8_t *pj = p + j * bits / 8; /* b bytes */
        __m128i b;
        if (bits == 8) {
            b = _mm_loadl_epi64((const __m128i *)pj);
        } else if (bits == 4) {
            int32_t v;
            memcpy(&v, pj, 4);
            b = _mm_cvtsi32_si128(v);
        } else {
            uint16_t v;
            memcpy(&v, pj, 2);
            b = _mm_cvtsi32_si128(v);
        }
        __m256i c = _mm256_cvtepu8_epi32(b);
        if (bits != 8)
            c = _mm256_and_si256(_mm256_srlv_epi32(_mm256_permutevar8x32_epi32(c, idx), sh), mask);
        __m256 v = _mm256_mul_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(c), vs), vz), vi);
        _mm256_storeu_ps(o + j, _mm256_min_ps(_mm256_max_ps(v, lo), hi));
    }
    return j;
}
#endif

static void unpack_path(const uint8_t *data, const uint8_t *params, int64_t n, int64_t d, int bits, float *x,
                        int path)
{
    if (bits == 32) {
        if (n * d > 0)
            memcpy(x, data, (size_t)(n * d) * sizeof(float));
        return;
    }
    const int64_t rb = gnn_quant_data_bytes(d, bits);
#pragma omp parallel for schedule(static) if (n * d >= 16384)
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *par_i = params + i * GNN_QUANT_PARAM_BYTES, *p = data + i * rb;
        const float z = gnn_bf16_to_f32((uint16_t)(par_i[0] | par_i[1] << 8));
        const float s = gnn_bf16_to_f32((uint16_t)(par_i[2] | par_i[3] << 8));
        const float k = isinf((float)((1 << bits) - 1) * s) ? 0.5f : 1.0f; /* as ref: q S cannot overflow */
        const float sk = s * k, zk = z * k, inv = 1.0f / k;
        float *o = x + i * d;
        int64_t done = 0; /* a multiple of 8: whole bytes */
#ifdef QUANT_X86
        if (path == PATH_AUTO && gnn_cpu_philox_have_avx512())
            done = unpack_avx512(p, d, bits, sk, zk, inv, o);
        else if ((path == PATH_AUTO || path == PATH_AVX2) && gnn_cpu_philox_have_avx2())
            done = unpack_avx2(p, d, bits, sk, zk, inv, o);
#endif
        unpack_row(p + done * bits / 8, d - done, bits, sk, zk, inv, o + done);
    }
}

static void unpack_cpu(const uint8_t *data, const uint8_t *params, int64_t n, int64_t d, int bits, float *x)
{
    unpack_path(data, params, n, d, bits, x, PATH_AUTO);
}
static void unpack_avx2_only(const uint8_t *data, const uint8_t *params, int64_t n, int64_t d, int bits, float *x)
{
    unpack_path(data, params, n, d, bits, x, PATH_AVX2);
}
static void unpack_plain(const uint8_t *data, const uint8_t *params, int64_t n, int64_t d, int bits, float *x)
{
    unpack_path(data, params, n, d, bits, x, PATH_SCALAR);
}

const gnn_quant_ops gnn_quant_cpu = {
    .name = "cpu",
    .caps = 1u | 2u, /* GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED */
    .pack = pack_cpu,
    .unpack = unpack_cpu,
};

/* The same with the codes' path forced (opt/cpu/quant_paths.h): for the oracle only. */
const gnn_quant_ops gnn_quant_cpu_avx2 = {
    .name = "cpu-avx2",
    .caps = 1u | 2u,
    .pack = pack_avx2,
    .unpack = unpack_avx2_only,
};
const gnn_quant_ops gnn_quant_cpu_sse2 = {
    .name = "cpu-sse2",
    .caps = 1u | 2u,
    .pack = pack_sse2,
    .unpack = unpack_plain,
};
const gnn_quant_ops gnn_quant_cpu_scalar = {
    .name = "cpu-scalar",
    .caps = 1u | 2u,
    .pack = pack_scalar,
    .unpack = unpack_plain,
};
