/* opt/cpu/update_epilogue.c -- the fused bias + ReLU + dropout epilogue of the optimized
 * UPDATE kernels (opt/cpu/update_impl.h), applied to an output block right after its GEMM,
 * while the block is still in cache @alg{DistGNN-MB 3.3} ("Operator Fusion").
 *
 * The costly part is the dropout mask: one Philox4x32-10 block (ten rounds of two 32x32->64
 * multiplies) per four outputs. gnn_rng_block computes one block at a time; here consecutive
 * blocks of a row are computed side by side, one per SIMD lane (the same rounds on the same
 * key, only the counter word differs):
 *  - portable C (philox_blocks): PHILOX_LANES lanes in `omp simd` loops;
 *  - x86-64 with AVX2 (philox_blocks_avx2, chosen at run time by __builtin_cpu_supports): each
 *    32-bit state word lives in a 64-bit lane, so one vpmuludq gives four full 32x32->64
 *    products and the high half is one shift away (the compiler's own vectorization of the C
 *    loop shuffles 32-bit lanes around every multiply and ran at 25 cycles per block; this
 *    runs at about 5 (docs/update.md)). The only intrinsics in gnnref's UPDATE.
 * The words are exactly those of gnn_rng_block, so the mask is bit-identical to
 * gnn_dropout_fwd's (oracle: update.fwd checks every dropped element against the stream). */
#include <stddef.h>
#include <string.h>
#include "gnnref/rng.h"
#include "opt/cpu/update_impl.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define GNN_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GNN_CLONES
#endif
#if defined(__GNUC__) && defined(__x86_64__)
#define GNN_PHILOX_AVX2 1
#include <immintrin.h>
#endif

#define PHILOX_LANES 16
#define CHUNK_BLOCKS 64 /* Philox blocks per chunk: 256 columns */

/* Words of Philox blocks q0 .. q0+nq-1 (nq <= CHUNK_BLOCKS) of stream s: out[4 (q - q0) + w]. */
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

static int have_avx2(void)
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
#endif

static void philox_row(const gnn_rng_stream *s, uint32_t q0, int nq, uint32_t *out)
{
#ifdef GNN_PHILOX_AVX2
    if (have_avx2()) {
        philox_blocks_avx2(s, q0, nq, out);
        return;
    }
#endif
    philox_blocks(s, q0, nq, out);
}

GNN_CLONES
void gnn_update_epilogue(float *y, int64_t ldy, int64_t row0, int64_t rows, int64_t j0, int64_t cols,
                         const float *b, const gnn_dropout_key *key)
{
    const float p = key ? key->p : 0.0f;
    const float scale = 1.0f / (1.0f - p);
    const float *bj = b ? b + j0 : NULL;
    if (!(p > 0.0f)) { /* bias and ReLU only */
        for (int64_t r = 0; r < rows; r++) {
            float *y_r = y + r * ldy;
            if (bj) {
#pragma omp simd
                for (int64_t j = 0; j < cols; j++) {
                    const float z = y_r[j] + bj[j];
                    y_r[j] = z > 0.0f ? z : 0.0f;
                }
            } else {
#pragma omp simd
                for (int64_t j = 0; j < cols; j++)
                    y_r[j] = y_r[j] > 0.0f ? y_r[j] : 0.0f;
            }
        }
        return;
    }
    uint32_t words[4 * CHUNK_BLOCKS + 4 * PHILOX_LANES];
    float mask[4 * CHUNK_BLOCKS];
    for (int64_t r = 0; r < rows; r++) {
        float *y_r = y + r * ldy;
        const int64_t i = row0 + r;
        const uint64_t id = key->row_gid ? (uint64_t)key->row_gid[i] : (uint64_t)i;
        const gnn_rng_stream st = gnn_rng_stream_make(key->seed, GNN_TAG_DROPOUT, key->step, key->layer, id);
        /* columns in chunks of up to 4 CHUNK_BLOCKS starting at a multiple of 4 (a block edge) */
        for (int64_t c0 = j0; c0 < j0 + cols;) {
            const int64_t qa = c0 / 4;                          /* first Philox block */
            int64_t c1 = (qa + CHUNK_BLOCKS) * 4;               /* chunk end (exclusive) */
            if (c1 > j0 + cols)
                c1 = j0 + cols;
            const int nq = (int)((c1 - 1) / 4 - qa + 1);
            philox_row(&st, (uint32_t)qa, nq, words);
            const uint32_t *wd = words + (c0 - 4 * qa);         /* word of column c0 */
            const int64_t len = c1 - c0;
#pragma omp simd
            for (int64_t j = 0; j < len; j++) {
                const float u = (float)(wd[j] >> 8) * (1.0f / 16777216.0f);
                mask[j] = u >= p ? scale : 0.0f;
            }
            float *yc = y_r + (c0 - j0);
            if (bj) {
                const float *bc = bj + (c0 - j0);
#pragma omp simd
                for (int64_t j = 0; j < len; j++) {
                    const float z = yc[j] + bc[j];
                    yc[j] = (z > 0.0f ? z : 0.0f) * mask[j];
                }
            } else {
#pragma omp simd
                for (int64_t j = 0; j < len; j++)
                    yc[j] = (yc[j] > 0.0f ? yc[j] : 0.0f) * mask[j];
            }
            c0 = c1;
        }
    }
}

GNN_CLONES
void gnn_update_dz(const float *y, const float *dy, float scale, int64_t count, float *dz)
{
#pragma omp simd
    for (int64_t e = 0; e < count; e++)
        dz[e] = y[e] > 0.0f ? dy[e] * scale : 0.0f;
}
