/* opt/cpu/philox_lanes.c -- many Philox4x32-10 blocks of one stream at once, bitwise
 * gnn_rng_block's words, for the kernels that need a row of them: the keyed dropout mask
 * (gnn_cpu_dropout_mask, below: the fused UPDATE epilogue, opt/cpu/update_epilogue.c, and the
 * nn table's dropout, opt/cpu/nn.c) and the integer draws of the sampler (opt/cpu/sample.c).
 *
 * gnn_rng_block computes one block at a time: ten dependent rounds of two 32x32->64
 * multiplies. Here consecutive blocks are computed side by side, one per SIMD lane (the same
 * rounds on the same key, only the counter word differs):
 *  - portable C (philox_blocks): PHILOX_LANES lanes in `omp simd` loops;
 *  - x86-64 with AVX2 (philox_blocks_avx2, chosen at run time by __builtin_cpu_supports): each
 *    32-bit state word lives in a 64-bit lane, so one vpmuludq gives four full 32x32->64
 *    products and the high half is one shift away (the compiler's own vectorization of the C
 *    loop shuffles 32-bit lanes around every multiply and ran at 25 cycles per block; this
 *    runs at about 5 (docs/update.md));
 *  - x86-64 with AVX-512F (philox_blocks_avx512): the same with eight 64-bit lanes per
 *    register, 16 blocks per step, for calls of 12 blocks or more (the training dropout's
 *    rows: the largest serial-looking cost of a SAGE epoch once its GEMMs ran on OpenBLAS). */
#include <stddef.h>
#include <string.h>
#include "gnnref/rng.h"
#include "opt/cpu/philox_lanes.h"
#include "opt/cpu/clones.h"

#if defined(__GNUC__) && defined(__x86_64__)
#define GNN_PHILOX_AVX2 1
#include <immintrin.h>
#endif

#define PHILOX_LANES 16

/* Words of Philox blocks q0 .. q0+nq-1 of stream s: out[4 (q - q0) + w]. */
static inline void philox_blocks(const gnn_rng_stream *s, uint32_t q0, int nq, uint32_t *out)
{
    for (int base = 0; base < nq; base += PHILOX_LANES) {
        uint32_t c0[PHILOX_LANES], c1[PHILOX_LANES], c2[PHILOX_LANES], c3[PHILOX_LANES];
#pragma omp simd
        for (int l = 0; l < PHILOX_LANES; l++) {
            c0[l] = q0 + (uint32_t)(base + l);
            c1[l] = s->ctr_id_lo;
            c2[l] = s->ctr_hi;
            c3[l] = s->step;
        }
        uint32_t k0 = s->key[0], k1 = s->key[1];
        for (int r = 0; r < 10; r++) {
#pragma omp simd
            for (int l = 0; l < PHILOX_LANES; l++) {
                const uint64_t p0 = (uint64_t)0xD2511F53u * c0[l], p1 = (uint64_t)0xCD9E8D57u * c2[l];
                const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1[l] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3[l] ^ k1;
                c1[l] = (uint32_t)p1;
                c3[l] = (uint32_t)p0;
                c0[l] = n0;
                c2[l] = n2;
            }
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        const int m = nq - base < PHILOX_LANES ? nq - base : PHILOX_LANES;
        uint32_t *o = out + 4 * base;
        for (int l = 0; l < m; l++) {
            o[4 * l + 0] = c0[l];
            o[4 * l + 1] = c1[l];
            o[4 * l + 2] = c2[l];
            o[4 * l + 3] = c3[l];
        }
    }
}

#ifdef GNN_PHILOX_AVX2
/* The same words with AVX2: 8 blocks per step (two registers of four 64-bit lanes; only the
 * low 32 bits of a lane are state, vpmuludq reads only those, so no masking is needed). */
__attribute__((target("avx2"))) static void philox_blocks_avx2(const gnn_rng_stream *s, uint32_t q0, int nq,
                                                               uint32_t *out)
{
    const __m256i m0 = _mm256_set1_epi64x(0xD2511F53u), m1 = _mm256_set1_epi64x(0xCD9E8D57u);
    const __m256i id_lo = _mm256_set1_epi64x(s->ctr_id_lo), hi = _mm256_set1_epi64x(s->ctr_hi),
                  step = _mm256_set1_epi64x(s->step);
    uint32_t tail[32];
    for (int base = 0; base < nq; base += 8) {
        const uint32_t q = q0 + (uint32_t)base;
        __m256i a0 = _mm256_set_epi64x(q + 3, q + 2, q + 1, q), b0 = _mm256_set_epi64x(q + 7, q + 6, q + 5, q + 4);
        __m256i a1 = id_lo, b1 = id_lo, a2 = hi, b2 = hi, a3 = step, b3 = step;
        uint32_t k0 = s->key[0], k1 = s->key[1];
        for (int r = 0; r < 10; r++) {
            const __m256i kk0 = _mm256_set1_epi64x(k0), kk1 = _mm256_set1_epi64x(k1);
            const __m256i pa0 = _mm256_mul_epu32(a0, m0), pa1 = _mm256_mul_epu32(a2, m1);
            const __m256i pb0 = _mm256_mul_epu32(b0, m0), pb1 = _mm256_mul_epu32(b2, m1);
            a0 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(pa1, 32), a1), kk0);
            a2 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(pa0, 32), a3), kk1);
            b0 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(pb1, 32), b1), kk0);
            b2 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(pb0, 32), b3), kk1);
            a1 = pa1;
            a3 = pa0;
            b1 = pb1;
            b3 = pb0;
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        /* lane j -> words (c0, c1, c2, c3) of block q + j, 16 bytes each */
        uint32_t *o = nq - base >= 8 ? out + 4 * base : tail;
        for (int half = 0; half < 2; half++) {
            const __m256i c0 = half ? b0 : a0, c1 = half ? b1 : a1, c2 = half ? b2 : a2, c3 = half ? b3 : a3;
            const __m256i t01 = _mm256_blend_epi32(c0, _mm256_slli_epi64(c1, 32), 0xAA);
            const __m256i t23 = _mm256_blend_epi32(c2, _mm256_slli_epi64(c3, 32), 0xAA);
            const __m256i lo = _mm256_unpacklo_epi64(t01, t23), hi2 = _mm256_unpackhi_epi64(t01, t23);
            _mm256_storeu_si256((__m256i *)(o + 16 * half), _mm256_permute2x128_si256(lo, hi2, 0x20));
            _mm256_storeu_si256((__m256i *)(o + 16 * half + 8), _mm256_permute2x128_si256(lo, hi2, 0x31));
        }
        if (o == tail)
            memcpy(out + 4 * base, tail, (size_t)(nq - base) * 4 * sizeof(uint32_t));
    }
}

/* The same words with AVX-512F: 16 blocks per step (two registers of eight 64-bit lanes), the
 * rounds exactly as above. A 64-column dropout row is 16 blocks: one step, where AVX2 takes
 * two. The words go out through one two-source permute per 4 blocks. */
__attribute__((target("avx512f"))) static void philox_blocks_avx512(const gnn_rng_stream *s, uint32_t q0, int nq,
                                                                    uint32_t *out)
{
    const __m512i m0 = _mm512_set1_epi64(0xD2511F53u), m1 = _mm512_set1_epi64(0xCD9E8D57u);
    const __m512i id_lo = _mm512_set1_epi64(s->ctr_id_lo), hi = _mm512_set1_epi64(s->ctr_hi),
                  step = _mm512_set1_epi64(s->step);
    const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i first4 = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
    const __m512i last4 = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
    uint32_t tail[64];
    for (int base = 0; base < nq; base += 16) {
        const __m512i q = _mm512_set1_epi64(q0 + (uint32_t)base); /* counters wrap in 32 bits: */
        __m512i a0 = _mm512_add_epi64(q, lane), b0 = _mm512_add_epi64(q, _mm512_add_epi64(lane, _mm512_set1_epi64(8)));
        /* (only the low 32 bits of a lane are state; vpmuludq reads only those, and the
         * output keeps only those, so a carry into bit 32 is harmless) */
        __m512i a1 = id_lo, b1 = id_lo, a2 = hi, b2 = hi, a3 = step, b3 = step;
        uint32_t k0 = s->key[0], k1 = s->key[1];
        for (int r = 0; r < 10; r++) {
            const __m512i kk0 = _mm512_set1_epi64(k0), kk1 = _mm512_set1_epi64(k1);
            const __m512i pa0 = _mm512_mul_epu32(a0, m0), pa1 = _mm512_mul_epu32(a2, m1);
            const __m512i pb0 = _mm512_mul_epu32(b0, m0), pb1 = _mm512_mul_epu32(b2, m1);
            a0 = _mm512_xor_si512(_mm512_xor_si512(_mm512_srli_epi64(pa1, 32), a1), kk0);
            a2 = _mm512_xor_si512(_mm512_xor_si512(_mm512_srli_epi64(pa0, 32), a3), kk1);
            b0 = _mm512_xor_si512(_mm512_xor_si512(_mm512_srli_epi64(pb1, 32), b1), kk0);
            b2 = _mm512_xor_si512(_mm512_xor_si512(_mm512_srli_epi64(pb0, 32), b3), kk1);
            a1 = pa1;
            a3 = pa0;
            b1 = pb1;
            b3 = pb0;
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        /* lane j -> words (c0, c1, c2, c3) of block q + j: the 64-bit pairs (c0|c1, c2|c3) of
         * lanes 0..3, then 4..7, interleaved */
        uint32_t *o = nq - base >= 16 ? out + 4 * base : tail;
        for (int half = 0; half < 2; half++) {
            const __m512i c0 = half ? b0 : a0, c1 = half ? b1 : a1, c2 = half ? b2 : a2, c3 = half ? b3 : a3;
            const __m512i t01 = _mm512_mask_blend_epi32(0xAAAA, c0, _mm512_slli_epi64(c1, 32));
            const __m512i t23 = _mm512_mask_blend_epi32(0xAAAA, c2, _mm512_slli_epi64(c3, 32));
            _mm512_storeu_si512((void *)(o + 32 * half), _mm512_permutex2var_epi64(t01, first4, t23));
            _mm512_storeu_si512((void *)(o + 32 * half + 16), _mm512_permutex2var_epi64(t01, last4, t23));
        }
        if (o == tail)
            memcpy(out + 4 * base, tail, (size_t)(nq - base) * 4 * sizeof(uint32_t));
    }
}

int gnn_cpu_philox_have_avx512(void)
{
    static int cached = -1;
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx512f") ? 1 : 0;
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}

int gnn_cpu_philox_have_avx2(void)
{
    static int cached = -1;
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}
#else
int gnn_cpu_philox_have_avx2(void) { return 0; }
int gnn_cpu_philox_have_avx512(void) { return 0; }
#endif

void gnn_cpu_philox_blocks_portable(const gnn_rng_stream *s, uint32_t q0, int nq, uint32_t *out)
{
    philox_blocks(s, q0, nq, out);
}

int gnn_cpu_philox_blocks_avx2(const gnn_rng_stream *s, uint32_t q0, int nq, uint32_t *out)
{
#ifdef GNN_PHILOX_AVX2
    if (gnn_cpu_philox_have_avx2()) {
        philox_blocks_avx2(s, q0, nq, out);
        return 1;
    }
#endif
    (void)s, (void)q0, (void)nq, (void)out;
    return 0;
}

int gnn_cpu_philox_blocks_avx512(const gnn_rng_stream *s, uint32_t q0, int nq, uint32_t *out)
{
#ifdef GNN_PHILOX_AVX2
    if (gnn_cpu_philox_have_avx512()) {
        philox_blocks_avx512(s, q0, nq, out);
        return 1;
    }
#endif
    (void)s, (void)q0, (void)nq, (void)out;
    return 0;
}

void gnn_cpu_philox_blocks(const gnn_rng_stream *s, uint32_t q0, int nq, uint32_t *out)
{
#ifdef GNN_PHILOX_AVX2
    if (nq >= 12 && gnn_cpu_philox_have_avx512()) { /* below 12 blocks, AVX2's 8 waste less */
        philox_blocks_avx512(s, q0, nq, out);
        return;
    }
    if (gnn_cpu_philox_have_avx2()) {
        philox_blocks_avx2(s, q0, nq, out);
        return;
    }
#endif
    philox_blocks(s, q0, nq, out);
}

#define MASK_BLOCKS 64 /* Philox blocks per chunk of the mask: 256 columns, words on the stack */

/* Chunks start at c0, then at multiples of 4 (block edges): each is at most MASK_BLOCKS blocks.
 * Float draw c is word c % 4 of block c / 4, (w >> 8) * 2^-24 (rng.h, gnn_rng_float). */
GNN_CLONES
void gnn_cpu_dropout_mask(const gnn_rng_stream *s, int64_t c0, int64_t len, float p, float scale, float *m)
{
    uint32_t words[4 * MASK_BLOCKS];
    const int64_t end = c0 + len;
    for (int64_t a = c0; a < end;) {
        const int64_t qa = a / 4;                 /* first Philox block */
        int64_t b = (qa + MASK_BLOCKS) * 4;       /* chunk end (exclusive) */
        if (b > end)
            b = end;
        const int nq = (int)((b - 1) / 4 - qa + 1);
        gnn_cpu_philox_blocks(s, (uint32_t)qa, nq, words);
        const uint32_t *wd = words + (a - 4 * qa); /* word of column a */
        float *mc = m + (a - c0);
        const int64_t n = b - a;
#pragma omp simd
        for (int64_t j = 0; j < n; j++) {
            const float u = (float)(wd[j] >> 8) * (1.0f / 16777216.0f);
            mc[j] = u >= p ? scale : 0.0f;
        }
        a = b;
    }
}
