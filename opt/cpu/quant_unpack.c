/* opt/cpu/quant_unpack.c -- gnn_quant_cpu's unpack + dequantize (include/gnnref/quant.h,
 * docs/quant.md section 4), bitwise equal to ref/quant.c at any thread count; its pack is
 * opt/cpu/quant.c, which holds the ops tables.
 *
 * What changed and why the bits still match: rows over threads (each row's floats depend on
 * that row's bytes and parameters alone); unpacking with per-lane shifts (unpack_avx512,
 * unpack_avx2; elsewhere a loop built for AVX2 and baseline by GNN_CLONES) instead of ref's bit
 * arithmetic per element: the same codes and the same decode, ((float)q (S k') + Z k') / k'
 * clamped, the partial last byte as ref does it.
 * The entry points (core/ops/quant.c) check the arguments: these bodies assume valid input. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "gnnref/quant.h"
#include "opt/cpu/clones.h"
#include "opt/cpu/philox_lanes.h"
#include "opt/cpu/quant_paths.h"

#if defined(__GNUC__) && defined(__x86_64__)
#define QUANT_X86 1
#include <immintrin.h>
#endif

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

gnn_status gnn_quant_cpu_unpack(const uint8_t *data, const uint8_t *params, int64_t n, int64_t d, int bits, float *x)
{
    unpack_path(data, params, n, d, bits, x, PATH_AUTO);
    return GNN_OK;
}
gnn_status gnn_quant_cpu_unpack_avx2(const uint8_t *data, const uint8_t *params, int64_t n, int64_t d, int bits, float *x)
{
    unpack_path(data, params, n, d, bits, x, PATH_AVX2);
    return GNN_OK;
}
gnn_status gnn_quant_cpu_unpack_plain(const uint8_t *data, const uint8_t *params, int64_t n, int64_t d, int bits, float *x)
{
    unpack_path(data, params, n, d, bits, x, PATH_SCALAR);
    return GNN_OK;
}

