/* oracle/op_quant.c -- oracle entries for quantized rows (include/gnnref/quant.h,
 * docs/quant.md; SuperGCN Sec. 1.4 and 2, next-capabilities.md A.3).
 *
 *   quant.pack        quantize + pack: the impl's bytes (codes and parameters) against ref
 *                     bitwise, at 1, 2 and 4 threads for the same bits; then properties of the
 *                     result checked from quant.h's statement, not from the code: the message
 *                     fills exactly gnn_quant_message_bytes (the guards catch one byte more);
 *                     pad bits are zero (every code is in [0, 2^b - 1] by construction of the
 *                     bit fields, so the padding is where an out-of-range code would leak);
 *                     Z <= min (Z and S are bf16 rounded down and up); decoding (ref's unpack)
 *                     is within S of every value (S/2 for nearest), up to 4 ulps of the largest
 *                     magnitude involved; a constant row whose value bf16 holds (the all-zero
 *                     rows, with -0 among them) has S = 1 and decodes to itself exactly. bits=32:
 *                     the bytes are the floats' and unpack gives back every bit.
 *   quant.unpack      unpack + dequantize of arbitrary bytes (random codes, random pad bits,
 *                     random finite bf16 parameters) against ref bitwise; and the packing round
 *                     trip: gnn_quant_codes_pack(gnn_quant_codes_unpack(bytes)) is the bytes with
 *                     the pad bits cleared; and unpack after the impl's pack decodes as ref's.
 *   quant.stochastic  unbiasedness (stat): the same rows quantized at `draws` steps (each step
 *                     its own streams); for every element with expected count N p (1 - p) >= 5,
 *                     p = r - floor(r), r = (x - Z) / S in double, the count of round-ups over
 *                     the N steps is Binomial(N, p): the sum of the squared standardized counts
 *                     is chi-square with one degree of freedom per element (FAIL when its
 *                     p-value < 1e-5); and the mean decoded error over all of them, standardized,
 *                     must be within 5 standard deviations of 0 (two-sided p ~ 6e-7).
 * Row kinds (mix=1, row i by i % 9): spread values; a constant bf16 value; zeros with -0; a
 * constant 0.1 (not a bf16); a range wider than FLT_MAX (+-3.3e38 and FLT_MAX: the k = 0.5
 * path); all negative; subnormals and tiny values; 1000 + 1e-3 spread (cancellation); ties,
 * [0, M, v_2, v_3, ...] with v_f = u_f 2^-16 (f even: frac 2^16 == u_f, no round-up) or
 * (u_f + 1/2) 2^-16 (f odd: ceil(frac 2^16) = u_f + 1, a round-up), u_f the row's own 16-bit
 * draw f. With edge=1 row 0 also holds -FLT_MAX (below the lowest finite bf16: the one
 * exception to the bound, whose values below Z must decode to Z). d: 1, 3, 5, 13, 37 (not
 * multiples of 4, 8, 16), 67, 200, 321 (opt/cpu's sets of 64 values and the rest), 256 + 3 (past
 * one chunk of opt/cpu), 0; rows: 0, 1, many; row ids up to 2^47; draw0 past 2^34 (the block
 * wraps mod 2^32), a multiple of 8 (mid=0) or 4 more (mid=1: every row's first draw in the
 * middle of a Philox block). */
#include <float.h>
#include <math.h>
#include <string.h>
#include "gnnref/cuda.h"
#include "gnnref/oracle.h"
#include "gnnref/quant.h"
#include "gnnref/tensor.h"
#include "opt/cpu/quant_paths.h"

static const gnn_oracle_impl k_quant_ref = { .name = "ref", .ops = &gnn_quant_ref, .flags = 0 };
static const gnn_oracle_impl k_quant_cpu = { .name = "cpu", .ops = &gnn_quant_cpu, .flags = GNN_ORACLE_THREADED };
/* the cpu table with its codes' path forced (opt/cpu/quant_paths.h): each path is checked on
 * every machine, not only the one this CPU takes */
static const gnn_oracle_impl k_quant_avx2 = { .name = "cpu-avx2", .ops = &gnn_quant_cpu_avx2, .flags = 0 };
static const gnn_oracle_impl k_quant_sse2 = { .name = "cpu-sse2", .ops = &gnn_quant_cpu_sse2, .flags = 0 };
static const gnn_oracle_impl k_quant_scalar = { .name = "cpu-scalar", .ops = &gnn_quant_cpu_scalar, .flags = 0 };
/* the CUDA tier (docs/cuda.md): `cuda` on a GPU (SKIP without one), `cuda-emu` the same kernel
 * bodies through the CPU emulator (everywhere) */
static const gnn_oracle_impl k_quant_cuda = { .name = "cuda", .ops = &gnn_quant_cuda, .flags = 0 };
static const gnn_oracle_impl k_quant_cuda_emu = { .name = "cuda-emu", .ops = &gnn_quant_cuda_emu,
                                                   .flags = GNN_ORACLE_EMULATED };
static const gnn_oracle_impl *const k_quant_impls[] = { &k_quant_ref,    &k_quant_cpu,  &k_quant_avx2,
                                                        &k_quant_sse2,   &k_quant_scalar, &k_quant_cuda,
                                                        &k_quant_cuda_emu, NULL };

/* SKIP for `cuda` where no GPU can run it (with gnn_cuda_available's reason) */
static int quant_cuda_skip(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, gnn_oracle_outcome *o)
{
    char why[256];
    if (c->impl != &k_quant_cuda || gnn_cuda_available(why, sizeof why))
        return 0;
    *o = gnn_oracle_skip(ctx, "%s", why);
    return 1;
}

enum { Q_N, Q_D, Q_BITS, Q_ROUND, Q_MIX, Q_EDGE, Q_DRAWS, Q_MID, N_QUANT_PARAMS };
static const gnn_oracle_param k_quant_params[N_QUANT_PARAMS] = {
    { "n", GNN_PARAM_INT, 0, 1e6, "rows" },
    { "d", GNN_PARAM_INT, 0, 65536, "values per row" },
    { "bits", GNN_PARAM_INT, 2, 32, "2, 4, 8, or 32 (fp32, the identity)" },
    { "round", GNN_PARAM_INT, 0, 1, "0 stochastic, 1 nearest" },
    { "mix", GNN_PARAM_INT, 0, 1, "0 spread values only, 1 the awkward row kinds by row (see the file header)" },
    { "edge", GNN_PARAM_INT, 0, 1, "1: row 0 also holds -FLT_MAX (below the lowest finite bf16)" },
    { "draws", GNN_PARAM_INT, 1, 100000, "quant.stochastic: steps (independent quantizations) per element" },
    { "mid", GNN_PARAM_INT, 0, 1, "1: draw0 = 4 mod 8, every row's first draw in the middle of a Philox block" },
};

static const char *const k_pack_presets[] = {
    "n=37,d=13,bits=2,round=0,mix=1,edge=0,draws=1,mid=0",
    "n=37,d=13,bits=4,round=1,mix=1,edge=0,draws=1,mid=1",
    "n=24,d=37,bits=8,round=0,mix=1,edge=1,draws=1,mid=1",
    "n=24,d=37,bits=2,round=1,mix=1,edge=1,draws=1,mid=0",
    "n=1,d=1,bits=2,round=0,mix=0,edge=0,draws=1,mid=0",
    "n=1,d=1,bits=2,round=0,mix=0,edge=0,draws=1,mid=1",        /* one row of one value, mid-block */
    "n=9,d=1,bits=4,round=0,mix=1,edge=0,draws=1,mid=1",
    "n=0,d=16,bits=2,round=0,mix=0,edge=0,draws=1,mid=0",       /* no rows */
    "n=8,d=0,bits=2,round=0,mix=0,edge=0,draws=1,mid=1",        /* empty rows */
    "n=16,d=3,bits=8,round=1,mix=1,edge=0,draws=1,mid=0",
    "n=16,d=5,bits=2,round=0,mix=1,edge=0,draws=1,mid=1",
    "n=18,d=67,bits=2,round=0,mix=1,edge=0,draws=1,mid=1",      /* one set of 64 + a tail, mid-block */
    "n=18,d=200,bits=4,round=0,mix=1,edge=0,draws=1,mid=1",     /* 128 + 64 + 8 (+ the 4 of mid) */
    "n=9,d=321,bits=8,round=0,mix=1,edge=0,draws=1,mid=0",      /* 256 + 64 + 1 */
    "n=40,d=259,bits=2,round=0,mix=1,edge=0,draws=1,mid=0",     /* past one chunk of opt/cpu */
    "n=40,d=259,bits=4,round=1,mix=1,edge=0,draws=1,mid=1",
    "n=300,d=128,bits=2,round=0,mix=0,edge=0,draws=1,mid=0",    /* the training width, threaded */
    "n=300,d=128,bits=2,round=0,mix=0,edge=0,draws=1,mid=1",
    "n=200,d=256,bits=8,round=0,mix=1,edge=0,draws=1,mid=0",
    "n=33,d=19,bits=32,round=0,mix=1,edge=1,draws=1,mid=0",     /* fp32: the identity */
    NULL,
};
static const char *const k_stat_presets[] = {
    "n=8,d=37,bits=2,round=0,mix=0,edge=0,draws=2000,mid=0",
    "n=6,d=21,bits=4,round=0,mix=0,edge=0,draws=2000,mid=1",
    "n=4,d=19,bits=8,round=0,mix=0,edge=0,draws=3000,mid=0",
    "n=2,d=130,bits=2,round=0,mix=0,edge=0,draws=2000,mid=1", /* the fused sets of opt/cpu */
    NULL,
};

typedef struct quant_case {
    int64_t n, d;
    int bits;
    gnn_quant_cfg q;
    float *x;      /* (n, d) */
    int64_t *gid;  /* (n) */
} quant_case;

/* Row i of kind i % 9 (mix=1) or 0 (mix=0); see the file header (kind 8 is made by make_case). */
static void fill_row(gnn_oracle_draws *g, float *h, int64_t d, int kind)
{
    gnn_oracle_fill_spread(g, h, d);
    switch (kind) {
    case 1: { /* a constant bf16 value */
        float c = h[0];
        uint32_t u;
        memcpy(&u, &c, sizeof u);
        u &= 0xffff0000u;
        memcpy(&c, &u, sizeof u);
        for (int64_t f = 0; f < d; f++)
            h[f] = c;
        break;
    }
    case 2:
        for (int64_t f = 0; f < d; f++)
            h[f] = f % 3 == 1 ? -0.0f : 0.0f;
        break;
    case 3:
        for (int64_t f = 0; f < d; f++)
            h[f] = 0.1f;
        break;
    case 4:
        for (int64_t f = 0; f < d; f++)
            h[f] = h[f] * 5e36f; /* |spread| < 64 */
        h[0] = -3.3e38f;
        if (d > 1)
            h[d - 1] = FLT_MAX;
        break;
    case 5:
        for (int64_t f = 0; f < d; f++)
            h[f] = -100.0f - fabsf(h[f]);
        break;
    case 6:
        for (int64_t f = 0; f < d; f++)
            h[f] = h[f] * 1e-40f; /* subnormals */
        break;
    case 7:
        for (int64_t f = 0; f < d; f++)
            h[f] = 1000.0f + h[f] * 1e-3f;
        break;
    default:
        break;
    }
}

static gnn_oracle_outcome make_case(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, quant_case *s)
{
    s->n = gnn_oracle_int(c, Q_N);
    s->d = gnn_oracle_int(c, Q_D);
    s->bits = (int)gnn_oracle_int(c, Q_BITS);
    if (gnn_quant_row_bytes(s->d, s->bits) < 0)
        return gnn_oracle_fail(ctx, "bits=%d: expected 2, 4, 8 or 32", s->bits);
    const int mix = (int)gnn_oracle_int(c, Q_MIX);
    s->x = gnn_oracle_alloc(ctx, (size_t)(s->n * s->d + 1) * sizeof(float));
    s->gid = gnn_oracle_alloc(ctx, (size_t)(s->n + 1) * sizeof(int64_t));
    if (!s->x || !s->gid)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1), gi = gnn_oracle_draws_make(c, 2);
    memset(&s->q, 0, sizeof s->q);
    s->q.bits = s->bits;
    s->q.round = gnn_oracle_int(c, Q_ROUND) ? GNN_QUANT_NEAREST : GNN_QUANT_STOCHASTIC;
    s->q.seed = c->seed * 0x9E3779B97F4A7C15ull + 7;
    s->q.step = (uint32_t)gnn_oracle_draw_uint(&gi, 1000);
    s->q.layer = (unsigned)gnn_oracle_draw_uint(&gi, 128);
    s->q.dir = (unsigned)gnn_oracle_draw_uint(&gi, 2);
    /* past 2^34 (a multiple of 8: gnn_quant_draw0's F8), then 4 more where mid */
    s->q.draw0 = gnn_quant_draw0(1, 4096, 4095, 17, s->d) + 8 * gnn_oracle_draw_uint(&gi, 1u << 20) +
                 4 * (uint64_t)gnn_oracle_int(c, Q_MID);
    for (int64_t i = 0; i < s->n; i++) {
        float *h = s->x + i * s->d;
        s->gid[i] = (int64_t)gnn_oracle_draw_uint(&gi, 1ull << 47);
        const int kind = mix ? (int)(i % 9) : 0;
        fill_row(&g, h, s->d, kind);
        if (kind == 8 && s->bits != 32) {
            /* ties: h = [0, M, v_2, v_3, ...] with u_f the row's own 16-bit draw f
             * (gnn_quant_draw16), v_f = u_f 2^-16 for even f and (u_f + 1/2) 2^-16 for odd f,
             * so Z = 0, S = 1, r = v_f exactly: even f has ceil(frac 2^16) == u_f and must not
             * round up (a path comparing with <= would), odd f has ceil(frac 2^16) = u_f + 1 and
             * must (a path taking the floor would not) */
            const gnn_rng_stream st = gnn_rng_stream_make(s->q.seed, GNN_TAG_QUANT, s->q.step,
                                                          2 * s->q.layer + s->q.dir, (uint64_t)s->gid[i]);
            for (int64_t f = 0; f < s->d; f++) {
                const float u = (float)gnn_quant_draw16(&st, s->q.draw0 + (uint64_t)f) + (f % 2 ? 0.5f : 0.0f);
                h[f] = f == 0 ? 0.0f : f == 1 ? (float)((1 << s->bits) - 1) : u * (1.0f / 65536.0f);
            }
        }
    }
    if (gnn_oracle_int(c, Q_EDGE) && s->n > 0 && s->d > 0)
        s->x[s->d > 2 ? 1 : 0] = -FLT_MAX;
    return GNN_ORACLE_PASS;
}

/* Byte arrays, bitwise: the first mismatches with their row and byte. */
static gnn_oracle_outcome compare_bytes(gnn_oracle_ctx *ctx, const char *name, const uint8_t *ref, const uint8_t *impl,
                                        int64_t count, int64_t per_row)
{
    int shown = 0;
    int64_t bad = 0;
    for (int64_t i = 0; i < count; i++)
        if (ref[i] != impl[i]) {
            if (shown++ < 5)
                gnn_oracle_note(ctx, "%s: byte %lld (row %lld, byte %lld): ref 0x%02x, impl 0x%02x", name, (long long)i,
                                per_row ? (long long)(i / per_row) : 0LL, per_row ? (long long)(i % per_row) : (long long)i,
                                ref[i], impl[i]);
            bad++;
        }
    return bad ? gnn_oracle_fail(ctx, "%s: %lld of %lld bytes differ", name, (long long)bad, (long long)count)
               : GNN_ORACLE_PASS;
}

static double ulp_of(double v)
{
    v = fabs(v);
    if (v < FLT_MIN)
        return ldexp(1.0, -149);
    return ldexp(1.0, ilogb(v) - 23);
}

/* The properties of quant.h, from its statement (ref's unpack decodes). */
static gnn_oracle_outcome verify_pack(gnn_oracle_ctx *ctx, const quant_case *s, const uint8_t *data,
                                      const uint8_t *params)
{
    const int64_t n = s->n, d = s->d, rb = gnn_quant_data_bytes(d, s->bits);
    float *dec = gnn_oracle_alloc(ctx, (size_t)(n * d + 1) * sizeof(float));
    if (!dec)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_quant_unpack_ref(data, params, n, d, s->bits, dec);
    if (s->bits == 32) {
        if (n * d > 0 && memcmp(dec, s->x, (size_t)(n * d) * sizeof(float)))
            return gnn_oracle_fail(ctx, "fp32: unpack(pack(x)) is not x bit for bit");
        return GNN_ORACLE_PASS;
    }
    const int m = (1 << s->bits) - 1, pad = (int)(rb * 8 - d * s->bits);
    const double half = s->q.round == GNN_QUANT_NEAREST ? 0.5 : 1.0;
    for (int64_t i = 0; i < n; i++) {
        const float *h = s->x + i * d, *h2 = dec + i * d;
        const uint8_t *p = params + i * GNN_QUANT_PARAM_BYTES;
        const double z = gnn_bf16_to_f32((uint16_t)(p[0] | p[1] << 8)), S = gnn_bf16_to_f32((uint16_t)(p[2] | p[3] << 8));
        if (!(S > 0) || !isfinite(S) || !isfinite(z))
            return gnn_oracle_fail(ctx, "row %lld: parameters Z %g, S %g (expected finite, S > 0)", (long long)i, z, S);
        if (pad && (data[i * rb + rb - 1] & ((1u << pad) - 1)))
            return gnn_oracle_fail(ctx, "row %lld: pad bits 0x%02x are not zero", (long long)i,
                                   data[i * rb + rb - 1] & ((1u << pad) - 1));
        double mn = INFINITY, mx = -INFINITY;
        for (int64_t f = 0; f < d; f++) {
            mn = h[f] < mn ? h[f] : mn;
            mx = h[f] > mx ? h[f] : mx;
        }
        const int saturated = mn < -0x1.fep127; /* below the lowest finite bf16: the one exception */
        if (d > 0 && z > mn && !saturated)
            return gnn_oracle_fail(ctx, "row %lld: Z = %.9g is above the row's min %.9g", (long long)i, z, mn);
        if (d > 0 && mx == mn && mx == z && S != 1.0)
            return gnn_oracle_fail(ctx, "row %lld: constant row %.9g held by bf16 has S = %g, expected 1", (long long)i,
                                   mx, S);
        for (int64_t f = 0; f < d; f++) {
            const double err = fabs((double)h[f] - (double)h2[f]);
            if (mx == mn && mx == z && h2[f] != h[f])
                return gnn_oracle_fail(ctx, "row %lld [%lld]: constant row %.9g decodes to %.9g, expected exactly",
                                       (long long)i, (long long)f, (double)h[f], (double)h2[f]);
            if (saturated && h[f] < z) {
                if (h2[f] != (float)z)
                    return gnn_oracle_fail(ctx, "row %lld [%lld]: %.9g below Z = %.9g decodes to %.9g, expected Z",
                                           (long long)i, (long long)f, (double)h[f], z, (double)h2[f]);
                continue;
            }
            double big = fabs(z) > fabs(h[f]) ? fabs(z) : fabs(h[f]);
            big = big > S * m ? big : S * m;
            const double bound = half * S * (1.0 + 0x1p-20) + 4.0 * ulp_of(big);
            if (!(err <= bound))
                return gnn_oracle_fail(ctx, "row %lld [%lld]: |x - decode| = |%.9g - %.9g| = %.4g > %s S + eps = %.4g "
                                       "(Z %.9g, S %.9g)", (long long)i, (long long)f, (double)h[f], (double)h2[f],
                                       err, half == 1.0 ? "" : "1/2", bound, z, S);
        }
    }
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome pack_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    gnn_oracle_outcome skip;
    if (quant_cuda_skip(ctx, c, &skip))
        return skip;
    const gnn_quant_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    quant_case s;
    gnn_oracle_outcome o = make_case(ctx, c, &s);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t n = s.n, rb = gnn_quant_data_bytes(s.d, s.bits);
    const int64_t pb = s.bits == 32 ? 0 : n * GNN_QUANT_PARAM_BYTES;
    if (gnn_quant_message_bytes(n, s.d, s.bits) != n * rb + pb)
        return gnn_oracle_fail(ctx, "gnn_quant_message_bytes(%lld, %lld, %d) = %lld, expected %lld",
                               (long long)n, (long long)s.d, s.bits,
                               (long long)gnn_quant_message_bytes(n, s.d, s.bits), (long long)(n * rb + pb));
    /* exact sizes: the guards catch one byte written past the message */
    uint8_t *want = gnn_oracle_alloc_out(ctx, "ref.data", (size_t)(n * rb)), *got = gnn_oracle_alloc_out(ctx, "impl.data", (size_t)(n * rb));
    uint8_t *wantp = gnn_oracle_alloc_out(ctx, "ref.params", (size_t)pb), *gotp = gnn_oracle_alloc_out(ctx, "impl.params", (size_t)pb);
    if (!want || !got || !wantp || !gotp)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_status st = gnn_quant_pack(ref, s.x, n, s.d, s.gid, &s.q, want, wantp);
    if (st)
        return gnn_oracle_fail(ctx, "ref pack returned %s", gnn_status_str(st));
    if ((o = gnn_oracle_status(ctx, "impl pack", gnn_quant_pack(impl, s.x, n, s.d, s.gid, &s.q, got, gotp))) !=
        GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, got, (size_t)(n * rb));
    gnn_oracle_digest(ctx, gotp, (size_t)pb);
    o = compare_bytes(ctx, "data", want, got, n * rb, rb);
    o = gnn_oracle_worst(o, compare_bytes(ctx, "params", wantp, gotp, pb, GNN_QUANT_PARAM_BYTES));
    if (o != GNN_ORACLE_PASS)
        return o;
    return verify_pack(ctx, &s, got, gotp);
}

static gnn_oracle_outcome unpack_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    gnn_oracle_outcome skip;
    if (quant_cuda_skip(ctx, c, &skip))
        return skip;
    const gnn_quant_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    quant_case s;
    gnn_oracle_outcome o = make_case(ctx, c, &s);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t n = s.n, d = s.d, rb = gnn_quant_data_bytes(d, s.bits);
    const int64_t pb = s.bits == 32 ? 0 : n * GNN_QUANT_PARAM_BYTES;
    uint8_t *data = gnn_oracle_alloc(ctx, (size_t)(n * rb + 1)), *params = gnn_oracle_alloc(ctx, (size_t)(pb + 1));
    uint8_t *codes = gnn_oracle_alloc(ctx, (size_t)(n * d + 1)), *again = gnn_oracle_alloc(ctx, (size_t)(n * rb + 1));
    float *want = gnn_oracle_alloc_out(ctx, "ref.x", (size_t)(n * d) * sizeof(float));
    float *got = gnn_oracle_alloc_out(ctx, "impl.x", (size_t)(n * d) * sizeof(float));
    if (!data || !params || !codes || !again || !want || !got)
        return gnn_oracle_fail(ctx, "out of memory");
    /* arbitrary bytes (pad bits too), finite bf16 parameters: Z from the case's values, S > 0 */
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 3);
    for (int64_t i = 0; i < n * rb; i++)
        data[i] = (uint8_t)gnn_oracle_draw_uint(&g, 256);
    for (int64_t i = 0; i < n && s.bits != 32; i++) {
        uint32_t zu, su;
        const float zf = d > 0 ? s.x[i * d] : 0.0f, sf = fabsf(d > 1 ? s.x[i * d + 1] : 1.0f) * 0.01f + 1e-30f;
        memcpy(&zu, &zf, 4);
        memcpy(&su, &sf, 4);
        const uint16_t zb = (uint16_t)(zu >> 16), sb = (uint16_t)((su >> 16) ? su >> 16 : 0x3F80u);
        params[4 * i + 0] = (uint8_t)(zb & 0xff);
        params[4 * i + 1] = (uint8_t)(zb >> 8);
        params[4 * i + 2] = (uint8_t)(sb & 0xff);
        params[4 * i + 3] = (uint8_t)(sb >> 8);
    }
    if (s.bits == 32) /* arbitrary bytes may be NaN patterns: the floats of the case instead */
        memcpy(data, s.x, (size_t)(n * d) * sizeof(float));
    gnn_status st = gnn_quant_unpack(ref, data, params, n, d, s.bits, want);
    if (st)
        return gnn_oracle_fail(ctx, "ref unpack returned %s", gnn_status_str(st));
    if ((o = gnn_oracle_status(ctx, "impl unpack", gnn_quant_unpack(impl, data, params, n, d, s.bits, got))) !=
        GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, got, (size_t)(n * d) * sizeof(float));
    static const gnn_oracle_tol bitwise = { GNN_CMP_BITWISE, 0, 0 };
    o = gnn_oracle_compare_f32(ctx, &bitwise, "x", want, got, n * d, d);
    if (o != GNN_ORACLE_PASS || s.bits == 32)
        return o;
    /* the packing round trip: the bytes again, pad bits cleared */
    gnn_quant_codes_unpack_ref(data, n, d, s.bits, codes);
    gnn_quant_codes_pack_ref(codes, n, d, s.bits, again);
    const int pad = (int)(rb * 8 - d * s.bits);
    for (int64_t i = 0; i < n; i++)
        for (int64_t b = 0; b < rb; b++) {
            const uint8_t expect = b == rb - 1 && pad ? (uint8_t)(data[i * rb + b] & ~((1u << pad) - 1)) : data[i * rb + b];
            if (again[i * rb + b] != expect)
                return gnn_oracle_fail(ctx, "round trip: row %lld byte %lld is 0x%02x, expected 0x%02x", (long long)i,
                                       (long long)b, again[i * rb + b], expect);
        }
    /* and the codes decode as quant.h says: ((float)q (S k') + Z k') / k', clamped */
    for (int64_t i = 0; i < n; i++) {
        const float z = gnn_bf16_to_f32((uint16_t)(params[4 * i] | params[4 * i + 1] << 8));
        const float sc = gnn_bf16_to_f32((uint16_t)(params[4 * i + 2] | params[4 * i + 3] << 8));
        const float k = isinf((float)((1 << s.bits) - 1) * sc) ? 0.5f : 1.0f; /* quant.h's k' */
        for (int64_t f = 0; f < d; f++) {
            const float e = (float)codes[i * d + f] * (sc * k);
            float v = (e + z * k) / k;
            v = v > FLT_MAX ? FLT_MAX : v < -FLT_MAX ? -FLT_MAX : v;
            if (memcmp(&v, &got[i * d + f], sizeof v))
                return gnn_oracle_fail(ctx, "row %lld [%lld]: code %d decodes to %.9g, expected %.9g", (long long)i,
                                       (long long)f, codes[i * d + f], (double)got[i * d + f], (double)v);
        }
    }
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome stat_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    gnn_oracle_outcome skip;
    if (quant_cuda_skip(ctx, c, &skip))
        return skip;
    const gnn_quant_ops *impl = c->impl->ops;
    quant_case s;
    gnn_oracle_outcome o = make_case(ctx, c, &s);
    if (o != GNN_ORACLE_PASS)
        return o;
    if (s.bits == 32 || s.q.round != GNN_QUANT_STOCHASTIC)
        return gnn_oracle_fail(ctx, "quant.stochastic needs bits 2, 4 or 8 and round=0");
    const int64_t n = s.n, d = s.d, nd = n * d, rb = gnn_quant_data_bytes(d, s.bits);
    const int64_t draws = gnn_oracle_int(c, Q_DRAWS);
    uint8_t *data = gnn_oracle_alloc(ctx, (size_t)(n * rb + 1)), *params = gnn_oracle_alloc(ctx, (size_t)(n * 4 + 4));
    uint8_t *codes = gnn_oracle_alloc(ctx, (size_t)(nd + 1));
    double *ups = gnn_oracle_alloc(ctx, (size_t)(nd + 1) * sizeof(double));
    double *err = gnn_oracle_alloc(ctx, (size_t)(nd + 1) * sizeof(double));
    if (!data || !params || !codes || !ups || !err)
        return gnn_oracle_fail(ctx, "out of memory");
    uint8_t first[4 * 64];
    for (int64_t t = 0; t < draws; t++) {
        s.q.step = (uint32_t)t; /* a new stream for every row at every step */
        gnn_status st = gnn_quant_pack(impl, s.x, n, d, s.gid, &s.q, data, params);
        if ((o = gnn_oracle_status(ctx, "impl pack", st)) != GNN_ORACLE_PASS)
            return o;
        if (t == 0)
            memcpy(first, params, (size_t)(n < 64 ? n : 64) * 4);
        else if (memcmp(first, params, (size_t)(n < 64 ? n : 64) * 4))
            return gnn_oracle_fail(ctx, "step %lld: the parameters changed with the step", (long long)t);
        gnn_oracle_digest(ctx, data, (size_t)(n * rb));
        gnn_quant_codes_unpack_ref(data, n, d, s.bits, codes);
        for (int64_t i = 0; i < n; i++) {
            const double z = gnn_bf16_to_f32((uint16_t)(params[4 * i] | params[4 * i + 1] << 8));
            const double S = gnn_bf16_to_f32((uint16_t)(params[4 * i + 2] | params[4 * i + 3] << 8));
            for (int64_t f = 0; f < d; f++) {
                const int64_t e = i * d + f;
                const double r = ((double)s.x[e] - z) / S;
                ups[e] += (double)codes[e] - floor(r); /* 0 or 1 where the element is tested */
                err[e] += ((double)codes[e] * S + z) - (double)s.x[e];
            }
        }
    }
    /* Binomial(N, p) per element; the chi-square of the standardized counts */
    double x2 = 0, dof = 0, sum_err = 0, var_err = 0;
    for (int64_t i = 0; i < n; i++) {
        const double z = gnn_bf16_to_f32((uint16_t)(params[4 * i] | params[4 * i + 1] << 8));
        const double S = gnn_bf16_to_f32((uint16_t)(params[4 * i + 2] | params[4 * i + 3] << 8));
        for (int64_t f = 0; f < d; f++) {
            const int64_t e = i * d + f;
            const double r = ((double)s.x[e] - z) / S, p = r - floor(r), N = (double)draws;
            if (N * p * (1 - p) < 5)
                continue;
            x2 += (ups[e] - N * p) * (ups[e] - N * p) / (N * p * (1 - p));
            dof += 1;
            sum_err += err[e];
            var_err += N * S * S * p * (1 - p);
        }
    }
    if (dof < 1)
        return gnn_oracle_fail(ctx, "no element has N p (1 - p) >= 5: the case tests nothing");
    o = gnn_oracle_chisq_check(ctx, "round-ups per element", x2, dof, gnn_oracle_ctx_tol(ctx)->a);
    const double zscore = sum_err / sqrt(var_err);
    if (!(fabs(zscore) <= 5.0))
        return gnn_oracle_fail(ctx, "mean decoded error over %g elements x %lld draws is %.3g standard deviations "
                               "from 0 (bound 5): stochastic rounding is biased", dof, (long long)draws, zscore);
    gnn_oracle_note(ctx, "mean decoded error: %.3g standard deviations", zscore);
    return o;
}

/* Benchmarks live in bench/bench_quant.c (against the stream triad of the same run). */
#define QUANT_ENTRY(sym, nm, wh, tl, rs, pr, fn)                                                                \
    const gnn_oracle_entry sym = {                                                                              \
        .name = nm, .what = wh, .tol = tl, .reason = rs, .params = k_quant_params,                              \
        .n_params = N_QUANT_PARAMS, .presets = pr, .ref = &k_quant_ref, .impls = k_quant_impls, .run = fn,      \
    }

QUANT_ENTRY(gnn_oracle_quant_pack, "quant.pack",
            "quantize + pack against ref (bitwise), then range, padding, Z <= min, |x - decode| <= S (S/2 nearest), "
            "constant rows exact",
            ((gnn_oracle_tol){ GNN_CMP_BITWISE, 0, 0 }),
            "codes are integers and every f32 step is ref's (division, clamps, keyed draws per row): the bytes are "
            "fixed, at any thread count",
            k_pack_presets, pack_run);
QUANT_ENTRY(gnn_oracle_quant_unpack, "quant.unpack",
            "unpack + dequantize of arbitrary bytes against ref (bitwise), the packing round trip, decode = q S + Z",
            ((gnn_oracle_tol){ GNN_CMP_BITWISE, 0, 0 }),
            "one product and one sum per value, no FMA (-ffp-contract=off): the same bits in every implementation",
            k_pack_presets, unpack_run);
QUANT_ENTRY(gnn_oracle_quant_stochastic, "quant.stochastic",
            "stochastic rounding is unbiased: round-ups per element ~ Binomial(N, frac) (chi-square), mean decoded "
            "error within 5 sd of 0",
            ((gnn_oracle_tol){ GNN_CMP_CHISQ, 1e-5, 0 }),
            "statistical: a fixed seed makes it deterministic; 1e-5 false alarms per case if the draws were random",
            k_stat_presets, stat_run);
