/* opt/cpu/quant_impl.h -- internal: what the files of the cpu quantize + pack share. Not a public
 * header: the contract is include/gnnref/quant.h, and why every path gives ref's bits is the
 * header of opt/cpu/quant.c.
 *
 *   opt/cpu/quant.c         the rows over threads, the row parameters, the chunks' draws, the
 *                           scalar codes and packing, the choice of path, the ops tables
 *   opt/cpu/quant_sse2.c    the codes 4 values a step (SSE2, every x86-64), the row's min/max
 *   opt/cpu/quant_avx2.c    the codes 8 values a step (AVX2)
 *   opt/cpu/quant_avx512.c  the codes 16 and 64 values a step (AVX-512F), the fast rows'
 *                           quotient, the parameters of 8 rows at once, the fused stochastic
 *                           rows (AVX-512BW)
 * The SIMD files are built with target attributes, so the library stays baseline x86-64;
 * opt/cpu/quant.c calls each only where the CPU has it (or the oracle forces a path,
 * opt/cpu/quant_paths.h). */
#ifndef GNNREF_OPT_CPU_QUANT_IMPL_H
#define GNNREF_OPT_CPU_QUANT_IMPL_H

#include <stdint.h>
#include <string.h>
#include "gnnref/quant.h"
#include "gnnref/rng.h"

#define QCH 256  /* values per chunk: whole bytes at every width, whole Philox blocks */
#define QROWS 8  /* rows per block: their parameters first, then their codes (pack_path) */

/* The key of every Philox round of one pack call (the seed's: the same for every row). */
typedef struct philox_keys {
    uint32_t k0[10], k1[10];
} philox_keys;

/* The per-row constants of steps 2 and 3 (quant.h). */
typedef struct row_consts {
    float k, zk, sk, m, hi; /* hi = M + 1 */
    int stochastic;
    int plain; /* min and max finite and min >= Z: then 0 <= r < M + 1/2 (see gnn_quant_cpu_codes_avx512) */
    int fast;  /* plain, and 2^-100 <= S k <= 2^100: the quotient by reciprocal (QUOTIENT_AVX512);
                * 2 where moreover k = 1 and |Z| >= thr 2^24, so that no value has 0 < a < thr */
    float y;   /* RN(1 / (S k)), where fast */
    float thr; /* max(2^-116, S k 2^-119): a value a with 0 < a < thr takes the true division */
} row_consts;

#if defined(__GNUC__) && defined(__x86_64__)
#define QUANT_X86 1
#include <immintrin.h>

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

/* opt/cpu/quant_sse2.c: 4 values a step. Each codes function returns how many of the len
 * values it did (whole vectors); the rest are the scalar path's. */
int gnn_quant_cpu_codes_sse2(const float *h, int len, const row_consts *rc, const uint16_t *u16, int bits,
                             uint8_t *out);
/* The row's min and max lane-wise (d >= 1): how many values it scanned (0: none, d too short). */
int64_t gnn_quant_cpu_minmax_sse2(const float *h, int64_t d, float *mn, float *mx);

/* opt/cpu/quant_avx2.c: 8 values a step. */
int gnn_quant_cpu_codes_avx2(const float *h, int len, const row_consts *rc, const uint16_t *u16, int bits,
                             uint8_t *out);

/* opt/cpu/quant_avx512.c: 16 values a step (a fast row: 64 and 16, by the reciprocal). */
int gnn_quant_cpu_codes_avx512(const float *h, int len, const row_consts *rc, const uint16_t *w, int bits,
                               uint8_t *out);
int gnn_quant_cpu_codes_fast_avx512(const float *h, int len, const row_consts *rc, const uint16_t *w, int bits,
                                    uint8_t *out);
int64_t gnn_quant_cpu_minmax_avx512(const float *h, int64_t d, float *mn, float *mx);
/* row_setup (opt/cpu/quant.c) for the nr <= QROWS rows of a block at once (d >= 1). */
void gnn_quant_cpu_block_setup_avx512(const float *x, int nr, int64_t d, const gnn_quant_cfg *q, uint8_t *params,
                                      row_consts *rc);
/* The whole sets of 64 values of a fast stochastic row whose first value takes the first draw
 * of block blk0, its Philox words computed in registers (AVX-512F and AVX-512BW); returns how
 * many values were done. */
int64_t gnn_quant_cpu_stoch_fused_avx512(const float *h, int64_t d, uint32_t blk0, const gnn_rng_stream *st,
                                         const philox_keys *ks, const row_consts *rc, int bits, uint8_t *out);
/* 1 where the CPU has AVX-512BW besides AVX-512F (the fused stochastic rows need both). */
int gnn_quant_cpu_have_avx512bw(void);
#endif /* QUANT_X86 */

#endif
