/* ref/quant.c -- reference quantized rows (include/gnnref/quant.h, docs/quant.md).
 *
 * Plain C11, no intrinsics, no threads: this file is the specification; opt/cpu/quant.c must
 * reproduce its bytes bit for bit at any thread count. @sec{SuperGCN 1.4}: Z = min(h),
 * S = (max(h) - min(h)) / (2^b - 1), q = round((h - Z) / S), h' = q S + Z, round = stochastic
 * rounding; next-capabilities.md A.3 resolves what the paper leaves open (one (Z, S) per row,
 * bf16 parameters used by both sides, the overflow-free rounding, the packing, the draws).
 *
 * The rule, in the order the code below follows it (quant.h states it once more):
 *   1. Z = bf16 of (min + 0) rounded down (saturated to the lowest finite bf16), S = bf16 of
 *      (float)((max - Z) / M in double) rounded up, S = 1 when that is not positive;
 *   2. r = (h k - Z k) / (S k) in f32 (k = 0.5 only where max - Z overflows f32), clamped to
 *      [-1, M + 1];
 *   3. stochastic: t = floor(r), frac = r - t (exact), q = t + (u16 < ceil(frac 65536)), the
 *      comparison in integers (frac 65536 is exact, its ceiling an integer in 0 .. 65536), u16
 *      = 16-bit draw draw0 + f of the row's stream (seed, GNN_TAG_QUANT, step, 2 layer + dir,
 *      row_gid): half (draw0 + f) % 2 of word ((draw0 + f) / 2) % 4 of block (draw0 + f) / 8,
 *      half 0 the low 16 bits, so one Philox block serves 8 values (next-capabilities.md A.3,
 *      "Decision: 16 random bits per value"); nearest: q = nearbyintf(r); then q clamped to
 *      [0, M];
 *   4. packed row-major, 8/b codes a byte, first element in the high bits, each row padded to
 *      a whole byte with zero bits; the parameters Z, S as bf16, little-endian, Z first.
 *   decode: h' = ((float)q * (S k') + Z k') / k', k' = 0.5 where M S overflows f32, else 1,
 *   rounded after the product and after the sum (no FMA: -ffp-contract=off), clamped to the
 *   finite range.
 * The entry points (core/ops/quant.c) check the arguments: the functions here assume valid input. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "gnnref/quant.h"
#include "gnnref/rng.h"

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* bf16 of a finite z rounded toward -inf; -inf (below -0x1.fep127) saturates to the lowest
 * finite bf16, 0xFF7F. */
static uint16_t bf16_down(float z)
{
    const uint32_t u = f32_bits(z);
    const uint16_t h = (uint16_t)(u >> 16);
    if ((u & 0xffffu) == 0 || !(u >> 31))
        return h; /* exact, or positive: truncation goes down */
    return h == 0xFF7Fu ? h : (uint16_t)(h + 1); /* negative: one bf16 further from zero */
}

/* bf16 of a finite s > 0 rounded toward +inf. */
static uint16_t bf16_up(float s)
{
    const uint32_t u = f32_bits(s);
    const uint16_t h = (uint16_t)(u >> 16);
    if ((u & 0xffffu) == 0 || h == 0x7F7Fu)
        return h;
    return (uint16_t)(h + 1);
}

/* Step 1, from the row's min and max. */
void gnn_quant_range_params_ref(float mn, float mx, int bits, uint16_t *z, uint16_t *s)
{
    const double m = (double)((1 << bits) - 1);
    *z = bf16_down(mn + 0.0f); /* + 0.0f: a zero min is +0 whichever zero the row holds */
    const float s0 = (float)(((double)mx - (double)gnn_bf16_to_f32(*z)) / m); /* no overflow in double */
    *s = s0 > 0.0f ? bf16_up(s0) : 0x3F80u; /* 0x3F80 = 1.0: the row equals Z (or lies below it) */
}

void gnn_quant_row_params_ref(const float *row, int64_t d, int bits, uint16_t *z, uint16_t *s)
{
    if (d <= 0) {
        *z = 0;
        *s = 0x3F80u;
        return;
    }
    float mn = row[0], mx = row[0];
    for (int64_t f = 1; f < d; f++) {
        mn = row[f] < mn ? row[f] : mn;
        mx = row[f] > mx ? row[f] : mx;
    }
    gnn_quant_range_params_ref(mn, mx, bits, z, s);
}

/* The 16-bit draw i of a row (quant.h): 8 values a Philox block. */
uint32_t gnn_quant_draw16(const gnn_rng_stream *st, uint64_t i)
{
    uint32_t w[4];
    gnn_rng_block(st, (uint32_t)(i / 8), w);
    return (w[(i / 2) % 4] >> (16 * (i % 2))) & 0xffffu; /* half 0: the low 16 bits */
}

/* Steps 2 and 3 for one value: h, the row's Z k and S k, the bit width's M, the draw u16. */
static uint8_t code_of(float h, float k, float zk, float sk, int m, gnn_quant_round round, uint32_t u16)
{
    float r = (h * k - zk) / sk;
    r = fminf(fmaxf(r, -1.0f), (float)m + 1.0f); /* keeps the conversion below defined */
    float c;
    if (round == GNN_QUANT_STOCHASTIC) {
        const float t = floorf(r), frac = r - t;              /* exact */
        const uint32_t up = (uint32_t)ceilf(frac * 65536.0f); /* exact: an integer in 0 .. 65536 */
        c = t + (u16 < up ? 1.0f : 0.0f); /* u16 2^-16 < frac, in integers; NOT floorf(r + u) (quant.h) */
    } else {
        c = nearbyintf(r); /* ties to even */
    }
    c = c > 0.0f ? c : 0.0f;
    c = c < (float)m ? c : (float)m;
    return (uint8_t)c;
}

/* The f32 scale k of a row: 0.5 where max - Z overflows f32, so that h k - Z k cannot. */
static float row_k(float mx, float z)
{
    return isinf(mx - z) ? 0.5f : 1.0f;
}

/* @sec{SuperGCN 2} ("Quantization of communication to Int2"): quantize the boundary rows, then
 * pack them; row i's draws come from its own stream, keyed by its global id. */
gnn_status gnn_quant_pack_ref(const float *x, int64_t n, int64_t d, const int64_t *row_gid, const gnn_quant_cfg *q,
                              uint8_t *data, uint8_t *params)
{
    const int b = q->bits;
    if (b == 32) { /* fp32: the identity, the host's float bytes */
        if (n * d > 0)
            memcpy(data, x, (size_t)(n * d) * sizeof(float));
        return GNN_OK;
    }
    const int m = (1 << b) - 1;
    const int64_t rb = gnn_quant_data_bytes(d, b);
    for (int64_t i = 0; i < n; i++) {
        const float *h = x + i * d;
        uint8_t *data_i = data + i * rb, *par_i = params + i * GNN_QUANT_PARAM_BYTES;
        uint16_t zb, sb;
        gnn_quant_row_params_ref(h, d, b, &zb, &sb);
        par_i[0] = (uint8_t)(zb & 0xff);
        par_i[1] = (uint8_t)(zb >> 8);
        par_i[2] = (uint8_t)(sb & 0xff);
        par_i[3] = (uint8_t)(sb >> 8);
        const float z = gnn_bf16_to_f32(zb), s = gnn_bf16_to_f32(sb);
        float mx = d > 0 ? h[0] : 0.0f;
        for (int64_t f = 1; f < d; f++)
            mx = h[f] > mx ? h[f] : mx;
        const float k = row_k(mx, z), zk = z * k, sk = s * k;
        const gnn_rng_stream st = gnn_rng_stream_make(q->seed, GNN_TAG_QUANT, q->step, 2 * q->layer + q->dir,
                                                      row_gid ? (uint64_t)row_gid[i] : 0);
        memset(data_i, 0, (size_t)rb); /* pad bits are zero */
        for (int64_t f = 0; f < d; f++) {
            const uint32_t u16 = q->round == GNN_QUANT_STOCHASTIC ? gnn_quant_draw16(&st, q->draw0 + (uint64_t)f) : 0;
            const uint8_t c = code_of(h[f], k, zk, sk, m, q->round, u16);
            const int64_t bit = f * b; /* first element in the high bits */
            data_i[bit / 8] |= (uint8_t)(c << (8 - b - bit % 8));
        }
    }
    return GNN_OK;
}

gnn_status gnn_quant_unpack_ref(const uint8_t *data, const uint8_t *params, int64_t n, int64_t d, int bits, float *x)
{
    if (bits == 32) {
        if (n * d > 0)
            memcpy(x, data, (size_t)(n * d) * sizeof(float));
        return GNN_OK;
    }
    const int m = (1 << bits) - 1;
    const int64_t rb = gnn_quant_data_bytes(d, bits);
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *data_i = data + i * rb, *par_i = params + i * GNN_QUANT_PARAM_BYTES;
        const float z = gnn_bf16_to_f32((uint16_t)(par_i[0] | par_i[1] << 8));
        const float s = gnn_bf16_to_f32((uint16_t)(par_i[2] | par_i[3] << 8));
        const float k = isinf((float)m * s) ? 0.5f : 1.0f, sk = s * k, zk = z * k, inv = 1.0f / k;
        float *x_i = x + i * d;
        for (int64_t f = 0; f < d; f++) {
            const int64_t bit = f * bits;
            const int c = (data_i[bit / 8] >> (8 - bits - bit % 8)) & m;
            const float v = ((float)c * sk + zk) * inv; /* product rounded, then the sum: no FMA */
            x_i[f] = fminf(fmaxf(v, -FLT_MAX), FLT_MAX);
        }
    }
    return GNN_OK;
}

void gnn_quant_codes_pack_ref(const uint8_t *codes, int64_t n, int64_t d, int bits, uint8_t *data)
{
    const int64_t rb = gnn_quant_data_bytes(d, bits);
    for (int64_t i = 0; i < n; i++) {
        uint8_t *data_i = data + i * rb;
        memset(data_i, 0, (size_t)rb);
        for (int64_t f = 0; f < d; f++) {
            const int64_t bit = f * bits;
            data_i[bit / 8] |= (uint8_t)(codes[i * d + f] << (8 - bits - bit % 8));
        }
    }
}

void gnn_quant_codes_unpack_ref(const uint8_t *data, int64_t n, int64_t d, int bits, uint8_t *codes)
{
    const int64_t rb = gnn_quant_data_bytes(d, bits);
    for (int64_t i = 0; i < n; i++)
        for (int64_t f = 0; f < d; f++) {
            const int64_t bit = f * bits;
            codes[i * d + f] = (uint8_t)((data[i * rb + bit / 8] >> (8 - bits - bit % 8)) & ((1 << bits) - 1));
        }
}

const gnn_quant_ops gnn_quant_ref = {
    .name = "ref",
    .caps = 1u, /* GNN_CAP_DETERMINISTIC */
    .pack = gnn_quant_pack_ref,
    .unpack = gnn_quant_unpack_ref,
};
