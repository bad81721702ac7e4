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
 *    act (gnn_quant_cpu_codes_avx512 says why);
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
 *    (gnn_quant_cpu_block_setup_avx512); the next rows prefetched while a block's codes are computed;
 *  - the draws elsewhere: the chunk's Philox blocks computed side by side
 *    (gnn_cpu_philox_blocks, AVX2 or AVX-512 lanes), their words split into the 16-bit draws
 *    (chunk_draws), compared as floats u16 2^-16 < frac, which is ref's integer comparison
 *    u16 < ceil(frac 2^16) exactly (u16 2^-16 and frac are exact, and u16 is an integer);
 *  - packing in registers (four codes as one word times a constant: chunk_pack's comment)
 *    instead of ref's bit arithmetic per element: the same bytes;
 *  - unpack + dequantize: opt/cpu/quant_unpack.c.
 * Each SIMD path can be forced (opt/cpu/quant_paths.h) so that the oracle checks the paths this
 * CPU does not take.
 * This file: the rows over threads and in blocks, the row parameters, the chunks' draws, the
 * scalar codes and the packing, the choice of path and the ops tables. The SIMD codes, one file
 * per width (opt/cpu/quant_impl.h): opt/cpu/quant_sse2.c, quant_avx2.c, quant_avx512.c.
 * The entry points (core/ops/quant.c) check the arguments: these bodies assume valid input. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "gnnref/quant.h"
#include "gnnref/rng.h"
#include "opt/cpu/clones.h"
#include "opt/cpu/philox_lanes.h"
#include "opt/cpu/quant_impl.h"
#include "opt/cpu/quant_paths.h"

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

/* The packed codes of one chunk of len <= QCH values at out, by path: PATH_AUTO (AVX-512F, else
 * AVX2, else SSE2, as the CPU has them), or one path forced (the oracle checks each: a CPU takes
 * only one of them; a forced path the CPU lacks falls back to the next one down). The SIMD
 * paths write whole vectors' codes packed (a vector holds whole bytes at every width); the
 * values after them go one at a time into c, then chunk_pack. */
static void chunk_codes(const float *h, int len, const row_consts *rc, const uint16_t *w, int bits, uint8_t *out,
                        int path)
{
    int done = 0;
#ifdef QUANT_X86
    if (path == PATH_AUTO && gnn_cpu_philox_have_avx512())
        done = gnn_quant_cpu_codes_avx512(h, len, rc, w, bits, out);
    else if ((path == PATH_AUTO || path == PATH_AVX2) && gnn_cpu_philox_have_avx2())
        done = gnn_quant_cpu_codes_avx2(h, len, rc, w, bits, out);
    else if (path != PATH_SCALAR)
        done = gnn_quant_cpu_codes_sse2(h, len, rc, w, bits, out);
#else
    (void)path;
#endif
    if (done < len) {
        uint8_t c[QCH];
        codes_scalar(h, done, len, rc, w, c);
        chunk_pack(c + done, len - done, bits, out + done * bits / 8);
    }
}

/* The row's min and max (d >= 1): lane-wise min_ps / max_ps, then across the lanes. The same
 * values as ref's scan for finite rows, whatever the order (a min is a min; -0 against +0 is
 * the one place where the order shows, and Z = min + 0 and the double difference make the two
 * zeros equal). */
static void row_minmax(const float *h, int64_t d, float *mn_out, float *mx_out, int path)
{
    float mn = h[0], mx = h[0];
    int64_t f = 1;
#ifdef QUANT_X86
    int64_t done = path == PATH_AUTO && gnn_cpu_philox_have_avx512() ? gnn_quant_cpu_minmax_avx512(h, d, &mn, &mx) : 0;
    if (!done && path != PATH_SCALAR)
        done = gnn_quant_cpu_minmax_sse2(h, d, &mn, &mx);
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

#ifndef QPF
#define QPF (32 * 1024)
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
    if (avx512 && rc->fast && rc->stochastic && gnn_quant_cpu_have_avx512bw()) {
        /* the row's whole sets here; the rest below */
        /* a row whose first draw is the middle of a block (draw0 % 8 == 4): its first 4 values
         * (whole bytes at every width) here, then the rest from the start of the next block */
        if (q->draw0 % 8 != 0 && d > 4) {
            chunk_draws(&st, q->draw0, 0, 4, u);
            chunk_codes(h, 4, rc, u, q->bits, data_i, path);
            f0 = 4;
        }
        if (q->draw0 % 8 == 0 || f0 == 4) /* a multiple of 64 values */
            f0 += gnn_quant_cpu_stoch_fused_avx512(h + f0, d - f0, (uint32_t)((q->draw0 + (uint64_t)f0) / 8), &st,
                                                   ks, rc, q->bits, data_i + f0 * q->bits / 8);
    } else if (avx512 && rc->fast && !rc->stochastic) {
        for (int64_t len; (len = d - f0 < (1 << 20) ? d - f0 : (1 << 20)) >= 16;)
            f0 += gnn_quant_cpu_codes_fast_avx512(h + f0, (int)len, rc, NULL, q->bits, data_i + f0 * q->bits / 8);
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
 * at a time would wait on each (with AVX-512F, gnn_quant_cpu_block_setup_avx512 computes them in the lanes of
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
            gnn_quant_cpu_block_setup_avx512(x + i0 * d, (int)(i1 - i0), d, q, params + i0 * GNN_QUANT_PARAM_BYTES, rc);
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
