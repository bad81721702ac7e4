/* opt/cuda/quant_body.h -- int2/4/8 quantize + pack and unpack (include/gnnref/quant.h, the
 * rule; ref/quant.c, the specification) as kernel bodies, compiled as CUDA by
 * opt/cuda/quant.cu and as C11 by opt/cuda/quant_emu.c; docs/cuda.md.
 *
 * Pack: one block of GNN_QK_T threads per row. Phase 0: each thread takes the min and max of
 * its strided share of the row; phases 1..7: a tree reduction in shared memory (any order of
 * min/max gives ref's Z and S: only the sign of a zero can differ, and Z = bf16(min + 0) and
 * the test max - Z > 0 do not see it); phase 8: every thread derives Z, S, k from the row's
 * min and max exactly as ref (the double division included) and codes the values of one Philox
 * block at a time: block g of the row is block draw0 / 8 + g of its stream (taken mod 2^32 as
 * ref's gnn_quant_draw16 does), whose 8 16-bit draws (half i % 2, low half first, of word
 * (i / 2) % 4) serve the values f with (draw0 + f) / 8 = draw0 / 8 + g: two quads of 4 values
 * (draw0 is a multiple of 4, so a row whose first draw is the middle of a block has its first
 * quad in words 2, 3 of block 0), each quad writing whole bytes (int2: 1, int4: 2, int8: 4), so
 * no two threads touch one byte and the pad bits are written as zeros. Unpack: one block per
 * row, elements strided over the threads. */
#ifndef GNNREF_OPT_CUDA_QUANT_BODY_H
#define GNNREF_OPT_CUDA_QUANT_BODY_H

#include <float.h>
#include "gnnref/quant.h"
#include "gnnref/rng.h"
#include "opt/cuda/kbase.h"
#include "opt/cuda/philox_body.h"

#define GNN_QK_T 128 /* threads per row */
#define GNN_QK_LOG 7

/* bf16 of z rounded toward -inf, saturated to the lowest finite bf16 (ref/quant.c bf16_down) */
static inline GNN_HD uint16_t gnn_qk_bf16_down(float z)
{
    const uint32_t u = GNN_F2U(z);
    const uint16_t h = (uint16_t)(u >> 16);
    if ((u & 0xffffu) == 0 || !(u >> 31))
        return h;
    return h == 0xFF7Fu ? h : (uint16_t)(h + 1);
}
/* bf16 of s > 0 rounded toward +inf (bf16_up) */
static inline GNN_HD uint16_t gnn_qk_bf16_up(float s)
{
    const uint32_t u = GNN_F2U(s);
    const uint16_t h = (uint16_t)(u >> 16);
    if ((u & 0xffffu) == 0 || h == 0x7F7Fu)
        return h;
    return (uint16_t)(h + 1);
}
static inline GNN_HD float gnn_qk_bf16_f32(uint16_t h) { return GNN_U2F((uint32_t)h << 16); }
static inline GNN_HD int gnn_qk_isinf(float f) { return (GNN_F2U(f) & 0x7fffffffu) == 0x7f800000u; }
static inline GNN_HD float gnn_qk_min(float a, float b) { return b < a ? b : a; }
static inline GNN_HD float gnn_qk_max(float a, float b) { return b > a ? b : a; }
/* fminf / fmaxf of ref's code_of and decode, for non-NaN operands (r and v are never NaN for
 * finite inputs); the sign of an equal zero is the one case where the choice shows, and ref's
 * fminf(fmaxf(r, -1), M + 1) never compares two zeros */
static inline GNN_HD float gnn_qk_floor(float r)
{
#if defined(__CUDA_ARCH__)
    return floorf(r);
#else
    return floorf(r);
#endif
}
static inline GNN_HD float gnn_qk_ceil(float r) { return ceilf(r); }
static inline GNN_HD float gnn_qk_rint(float r)
{
#if defined(__CUDA_ARCH__)
    return rintf(r); /* ties to even, as nearbyintf in the default rounding mode */
#else
    return nearbyintf(r);
#endif
}

typedef struct gnn_qk_pack_args {
    const float *x;        /* (n, d) */
    const int64_t *gid;    /* (n) or NULL (id 0) */
    uint8_t *data;         /* (n, rb) */
    uint8_t *params;       /* (n, 4) */
    int64_t n, d, rb;
    int bits, round;
    uint32_t key0, key1, ctr_hi_base, step; /* the stream less the id (gnn_rng_stream_make) */
    uint64_t draw0;
} gnn_qk_pack_args;

static inline GNN_HD int gnn_qk_pack_phases(const gnn_kthread *t, const gnn_qk_pack_args *a)
{
    (void)t;
    (void)a;
    return GNN_QK_LOG + 2;
}

/* shared: mn[T], mx[T] float */
#define GNN_QK_PACK_SHARED (2 * GNN_QK_T * 4)

static inline GNN_HD void gnn_qk_pack_body(const gnn_kthread *t, int phase, void *shared, const gnn_qk_pack_args *a)
{
    float *mn = (float *)shared, *mx = mn + GNN_QK_T;
    const unsigned j = t->thread.x;
    const int64_t i = t->block.x, d = a->d;
    const float *h = a->x + i * d;
    if (phase == 0) {
        float lo = 0.0f, hi = 0.0f;
        int any = 0;
        for (int64_t f = j; f < d; f += GNN_QK_T) {
            lo = any ? gnn_qk_min(lo, h[f]) : h[f];
            hi = any ? gnn_qk_max(hi, h[f]) : h[f];
            any = 1;
        }
        /* a thread with no element holds the row's first value: neutral for min and max */
        mn[j] = any ? lo : (d > 0 ? h[0] : 0.0f);
        mx[j] = any ? hi : (d > 0 ? h[0] : 0.0f);
        return;
    }
    if (phase <= GNN_QK_LOG) {
        const unsigned half = GNN_QK_T >> phase;
        if (j < half) {
            mn[j] = gnn_qk_min(mn[j], mn[j + half]);
            mx[j] = gnn_qk_max(mx[j], mx[j + half]);
        }
        return;
    }
    /* the parameters (ref/quant.c gnn_quant_range_params_ref; d = 0: Z = +0, S = 1) */
    const int b = a->bits, m = (1 << b) - 1;
    const float rmin = mn[0], rmax = mx[0];
    uint16_t zb = 0, sb = 0x3F80u;
    if (d > 0) {
        zb = gnn_qk_bf16_down(GNN_FADD(rmin, 0.0f));
        const float s0 = GNN_D2F(GNN_DDIV(GNN_DSUB((double)rmax, (double)gnn_qk_bf16_f32(zb)), (double)m));
        sb = s0 > 0.0f ? gnn_qk_bf16_up(s0) : 0x3F80u;
    }
    if (j == 0) {
        uint8_t *p = a->params + i * GNN_QUANT_PARAM_BYTES;
        p[0] = (uint8_t)(zb & 0xff);
        p[1] = (uint8_t)(zb >> 8);
        p[2] = (uint8_t)(sb & 0xff);
        p[3] = (uint8_t)(sb >> 8);
    }
    const float z = gnn_qk_bf16_f32(zb), s = gnn_qk_bf16_f32(sb);
    const float k = gnn_qk_isinf(GNN_FSUB(d > 0 ? rmax : 0.0f, z)) ? 0.5f : 1.0f;
    const float zk = GNN_FMUL(z, k), sk = GNN_FMUL(s, k);
    const uint64_t id = a->gid ? (uint64_t)a->gid[i] : 0;
    const uint32_t key[2] = { a->key0, a->key1 };
    uint8_t *row = a->data + i * a->rb;
    const int64_t lead = (int64_t)(a->draw0 % 8) / 4; /* quads before the row's first, in block 0: 0 or 1 */
    const int64_t blocks = (lead + (d + 3) / 4 + 1) / 2;
    for (int64_t g = j; g < blocks; g += GNN_QK_T) {
        uint32_t w[4] = { 0, 0, 0, 0 };
        if (a->round == GNN_QUANT_STOCHASTIC) {
            const uint32_t ctr[4] = { (uint32_t)(a->draw0 / 8 + (uint64_t)g), (uint32_t)(id & 0xffffffffu),
                                      (uint32_t)((id >> 32) & 0xffffu) | a->ctr_hi_base, a->step };
            gnn_philox4x32_10_inline(ctr, key, w);
        }
        for (int half = 0; half < 2; half++) {
            const int64_t quad = 2 * g + half - lead; /* values 4 quad .. 4 quad + 3 */
            if (quad < 0 || 4 * quad >= d)
                continue;
            uint32_t codes = 0; /* 4 codes, first element in the high bits of the quad's bytes */
            for (int e = 0; e < 4; e++) {
                const int64_t f = quad * 4 + e;
                uint32_t c = 0;
                if (f < d) {
                    float r = GNN_FDIV(GNN_FSUB(GNN_FMUL(h[f], k), zk), sk);
                    r = gnn_qk_min(gnn_qk_max(r, -1.0f), (float)m + 1.0f);
                    float cf;
                    if (a->round == GNN_QUANT_STOCHASTIC) {
                        /* draw 8 (draw0 / 8 + g) + 4 half + e: half e % 2 of word 2 half + e / 2 */
                        const uint32_t u16 = (w[2 * half + e / 2] >> (16 * (e % 2))) & 0xffffu;
                        const float tr = gnn_qk_floor(r), frac = GNN_FSUB(r, tr);
                        const uint32_t up = (uint32_t)gnn_qk_ceil(GNN_FMUL(frac, 65536.0f)); /* exact */
                        cf = GNN_FADD(tr, u16 < up ? 1.0f : 0.0f);
                    } else {
                        cf = gnn_qk_rint(r);
                    }
                    cf = cf > 0.0f ? cf : 0.0f;
                    cf = cf < (float)m ? cf : (float)m;
                    c = (uint32_t)cf;
                }
                codes = codes << b | c;
            }
            /* 4 b bits = b / 2 bytes, big-endian within the quad: bytes quad b / 2 ... */
            const int nbytes = b / 2;
            for (int y = 0; y < nbytes; y++) {
                const int64_t at = quad * nbytes + y;
                if (at < a->rb)
                    row[at] = (uint8_t)(codes >> (8 * (nbytes - 1 - y)));
            }
        }
    }
}
GNN_KERNEL(gnn_qk_pack, gnn_qk_pack_args)

typedef struct gnn_qk_unpack_args {
    const uint8_t *data, *params;
    float *x;
    int64_t n, d, rb;
    int bits;
} gnn_qk_unpack_args;

static inline GNN_HD int gnn_qk_unpack_phases(const gnn_kthread *t, const gnn_qk_unpack_args *a)
{
    (void)t;
    (void)a;
    return 1;
}
static inline GNN_HD void gnn_qk_unpack_body(const gnn_kthread *t, int phase, void *shared,
                                             const gnn_qk_unpack_args *a)
{
    (void)phase;
    (void)shared;
    const int64_t i = t->block.x;
    const int b = a->bits, m = (1 << b) - 1;
    const uint8_t *row = a->data + i * a->rb, *p = a->params + i * GNN_QUANT_PARAM_BYTES;
    const float z = gnn_qk_bf16_f32((uint16_t)(p[0] | p[1] << 8)), s = gnn_qk_bf16_f32((uint16_t)(p[2] | p[3] << 8));
    const float k = gnn_qk_isinf(GNN_FMUL((float)m, s)) ? 0.5f : 1.0f;
    const float sk = GNN_FMUL(s, k), zk = GNN_FMUL(z, k), inv = GNN_FDIV(1.0f, k);
    float *out = a->x + i * a->d;
    for (int64_t f = t->thread.x; f < a->d; f += GNN_QK_T) {
        const int64_t bit = f * b;
        const int c = (row[bit / 8] >> (8 - b - bit % 8)) & m;
        const float v = GNN_FMUL(GNN_FADD(GNN_FMUL((float)c, sk), zk), inv);
        out[f] = gnn_qk_min(gnn_qk_max(v, -FLT_MAX), FLT_MAX);
    }
}
GNN_KERNEL(gnn_qk_unpack, gnn_qk_unpack_args)

#endif
