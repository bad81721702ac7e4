/* tests/test_quant.c -- quantized rows (include/gnnref/quant.h, docs/quant.md): the byte
 * formula, the packing layout by known answers, the rule on rows whose answer is known by hand
 * (integers never round, constant rows, the identity of fp32), the keying of the draws (a row's
 * bytes follow its global id, not its position; the step, layer and direction change them),
 * the same bytes at 1, 2 and 3 threads, bad arguments, and proofs that the oracle entries can
 * fail (a mutant that changes one byte, a "stochastic" rounding that is biased). The
 * comparisons of cpu against ref over many inputs are the oracle's (quant.pack, quant.unpack,
 * quant.stochastic). */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/impl.h"
#include "gnnref/oracle.h"
#include "gnnref/quant.h"
#include "gnnref/rng.h"
#include "opt/cpu/quant_paths.h"
#include "oracle_util.h"
#ifdef GNN_HAVE_OPENMP
#include <omp.h>
#endif

static const gnn_quant_ops *const k_impls[] = { &gnn_quant_ref, &gnn_quant_cpu, NULL };

static gnn_quant_cfg cfg(int bits, gnn_quant_round round)
{
    gnn_quant_cfg q;
    memset(&q, 0, sizeof q);
    q.bits = bits;
    q.round = round;
    q.seed = 42;
    q.step = 3;
    q.layer = 1;
    q.dir = 0;
    q.draw0 = 0;
    return q;
}

START_TEST(byte_formula)
{
    ck_assert_int_eq(gnn_quant_row_bytes(128, 2), 32 + 4);
    ck_assert_int_eq(gnn_quant_row_bytes(128, 4), 64 + 4);
    ck_assert_int_eq(gnn_quant_row_bytes(128, 8), 128 + 4);
    ck_assert_int_eq(gnn_quant_row_bytes(128, 32), 512);
    ck_assert_int_eq(gnn_quant_row_bytes(13, 2), 4 + 4); /* 26 bits: padded to 4 bytes */
    ck_assert_int_eq(gnn_quant_row_bytes(1, 8), 1 + 4);
    ck_assert_int_eq(gnn_quant_row_bytes(0, 2), 4);
    ck_assert_int_eq(gnn_quant_row_bytes(0, 32), 0);
    ck_assert_int_eq(gnn_quant_row_bytes(5, 3), -1);
    ck_assert_int_eq(gnn_quant_row_bytes(-1, 2), -1);
    ck_assert_int_eq(gnn_quant_data_bytes(13, 4), 7);
    ck_assert_int_eq(gnn_quant_message_bytes(10, 13, 2), 80);
    ck_assert_int_eq(gnn_quant_message_bytes(-1, 13, 2), -1);
    ck_assert_int_eq(gnn_quant_message_bytes(INT64_MAX / 2, 128, 32), -1); /* overflow */
    /* the acceptance's form: int2 data is 1/16 of fp32 plus the row padding; params 4 per row */
    for (int64_t d = 1; d <= 300; d++) {
        const int64_t data = gnn_quant_data_bytes(d, 2), fp32 = gnn_quant_row_bytes(d, 32);
        ck_assert_int_eq(data, (d + 3) / 4);
        ck_assert_int_eq(16 * data - fp32, 16 * ((d + 3) / 4) - 4 * d); /* 0 when 4 divides d */
        ck_assert_int_eq(gnn_quant_row_bytes(d, 2) - data, GNN_QUANT_PARAM_BYTES);
    }
    ck_assert_uint_eq(gnn_quant_draw0(1, 4, 2, 3, 13), ((1u * 4 + 2) * 4 + 3) * 16u);
    ck_assert_uint_eq(gnn_quant_draw0(0, 4, 0, 0, 13), 0);
    /* F8: d rounded up to whole Philox blocks of 8 draws, so every row starts on a block */
    ck_assert_uint_eq(gnn_quant_draw0(0, 2, 0, 1, 3), 8);
    ck_assert_uint_eq(gnn_quant_draw0(0, 2, 0, 1, 12), 16);
    ck_assert_uint_eq(gnn_quant_draw0(1, 3, 2, 1, 128), ((1u * 3 + 2) * 3 + 1) * 128u);
}
END_TEST

START_TEST(layout_known_answer)
{
    const uint8_t c2[5] = { 3, 0, 1, 2, 1 }, c4[3] = { 0xA, 0x5, 0xF };
    uint8_t out[4] = { 0xEE, 0xEE, 0xEE, 0xEE }, back[5];
    gnn_quant_codes_pack_ref(c2, 1, 5, 2, out); /* first element in the high bits, pad zero */
    ck_assert_uint_eq(out[0], 0xC6);
    ck_assert_uint_eq(out[1], 0x40);
    ck_assert_uint_eq(out[2], 0xEE);
    gnn_quant_codes_unpack_ref(out, 1, 5, 2, back);
    ck_assert(!memcmp(back, c2, 5));
    gnn_quant_codes_pack_ref(c4, 1, 3, 4, out);
    ck_assert_uint_eq(out[0], 0xA5);
    ck_assert_uint_eq(out[1], 0xF0);
    /* a row whose answer is known by hand: Z = 0, S = 1, codes 0..3, parameters 00 00 80 3F */
    const float x[4] = { 0.0f, 1.0f, 2.0f, 3.0f };
    for (int k = 0; k_impls[k]; k++)
        for (int round = 0; round < 2; round++) {
            gnn_quant_cfg q = cfg(2, (gnn_quant_round)round);
            const int64_t gid = 7;
            uint8_t data[1], par[4];
            float y[4];
            ck_assert_int_eq(gnn_quant_pack(k_impls[k], x, 1, 4, &gid, &q, data, par), GNN_OK);
            ck_assert_uint_eq(data[0], 0x1B);
            ck_assert_uint_eq(par[0], 0x00);
            ck_assert_uint_eq(par[1], 0x00);
            ck_assert_uint_eq(par[2], 0x80);
            ck_assert_uint_eq(par[3], 0x3F);
            ck_assert_int_eq(gnn_quant_unpack(k_impls[k], data, par, 1, 4, 2, y), GNN_OK);
            ck_assert(!memcmp(x, y, sizeof x));
        }
}
END_TEST

/* The float32 trap of next-capabilities.md A.3: floor(r + u) turns r = 3 into code 4 when
 * u = 0.99999994. Values on the grid (r an integer) have frac = 0 and must never round up,
 * whatever the draws: 2000 steps, every row exact. */
START_TEST(integers_never_round)
{
    enum { N = 4, D = 12 };
    float x[N * D], y[N * D];
    int64_t gid[N];
    for (int i = 0; i < N; i++) {
        gid[i] = 1000 + i;
        for (int f = 0; f < D; f++)
            x[i * D + f] = (float)((f * 5 + i) % 4) * 0.5f - 1.0f; /* {-1, -0.5, 0, 0.5}: Z = -1, S = 0.5 */
    }
    for (int k = 0; k_impls[k]; k++)
        for (uint32_t t = 0; t < 2000; t++) {
            gnn_quant_cfg q = cfg(2, GNN_QUANT_STOCHASTIC);
            q.step = t;
            uint8_t data[N * 3], par[N * 4];
            ck_assert_int_eq(gnn_quant_pack(k_impls[k], x, N, D, gid, &q, data, par), GNN_OK);
            ck_assert_int_eq(gnn_quant_unpack(k_impls[k], data, par, N, D, 2, y), GNN_OK);
            ck_assert_msg(!memcmp(x, y, sizeof x), "%s step %u: a value on the grid was rounded", k_impls[k]->name, t);
        }
}
END_TEST

START_TEST(constant_rows)
{
    static const float values[] = { 0.0f, -0.0f, 1.5f, -3.0f, 1024.0f, 0x1p-130f, 0.1f, -7.3f, 123456.7f };
    enum { D = 21 };
    for (int k = 0; k_impls[k]; k++)
        for (int bits = 2; bits <= 8; bits *= 2)
            for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
                float x[D], y[D];
                for (int f = 0; f < D; f++)
                    x[f] = values[v];
                uint32_t u;
                memcpy(&u, &values[v], 4);
                const int bf16 = (u & 0xffffu) == 0;
                const int64_t gid = 5;
                uint8_t data[D], par[4];
                gnn_quant_cfg q = cfg(bits, GNN_QUANT_STOCHASTIC);
                ck_assert_int_eq(gnn_quant_pack(k_impls[k], x, 1, D, &gid, &q, data, par), GNN_OK);
                ck_assert_int_eq(gnn_quant_unpack(k_impls[k], data, par, 1, D, bits, y), GNN_OK);
                const float s = gnn_bf16_to_f32((uint16_t)(par[2] | par[3] << 8));
                for (int f = 0; f < D; f++) {
                    if (bf16) { /* S = 1, codes 0, decodes to itself exactly */
                        ck_assert_msg(s == 1.0f, "%s bits %d: constant %g has S %g", k_impls[k]->name, bits,
                                      (double)values[v], (double)s);
                        ck_assert_msg(y[f] == x[f], "%s bits %d: constant %g decodes to %g", k_impls[k]->name, bits,
                                      (double)x[f], (double)y[f]);
                    } else { /* quantized as any row: within S, and S is below 2^-8 |value| */
                        ck_assert(fabsf(y[f] - x[f]) <= s);
                        ck_assert(s <= fabsf(x[f]) * 0x1p-8f);
                    }
                }
            }
}
END_TEST

START_TEST(fp32_identity)
{
    const float x[6] = { -0.0f, NAN, INFINITY, -FLT_MAX, 0x1p-149f, 3.25f };
    for (int k = 0; k_impls[k]; k++) {
        uint8_t data[24];
        float y[6];
        gnn_quant_cfg q = cfg(32, GNN_QUANT_STOCHASTIC);
        ck_assert_int_eq(gnn_quant_pack(k_impls[k], x, 2, 3, NULL, &q, data, NULL), GNN_OK);
        ck_assert(!memcmp(data, x, sizeof x));
        ck_assert_int_eq(gnn_quant_unpack(k_impls[k], data, NULL, 2, 3, 32, y), GNN_OK);
        ck_assert(!memcmp(x, y, sizeof x));
    }
}
END_TEST

/* A row's bytes are a function of its values and its key, never of its position; the step,
 * the layer, the direction and draw0 each give other draws. */
START_TEST(draws_are_keyed)
{
    enum { D = 64 };
    float x[2 * D], xs[2 * D];
    for (int f = 0; f < 2 * D; f++)
        x[f] = sinf((float)f * 0.37f);
    memcpy(xs, x + D, D * sizeof(float));
    memcpy(xs + D, x, D * sizeof(float));
    const int64_t gid[2] = { 11, 1ll << 40 }, gids[2] = { 1ll << 40, 11 };
    for (int k = 0; k_impls[k]; k++) {
        uint8_t a[2 * 16], b[2 * 16], pa[8], pb[8];
        gnn_quant_cfg q = cfg(2, GNN_QUANT_STOCHASTIC);
        ck_assert_int_eq(gnn_quant_pack(k_impls[k], x, 2, D, gid, &q, a, pa), GNN_OK);
        ck_assert_int_eq(gnn_quant_pack(k_impls[k], xs, 2, D, gids, &q, b, pb), GNN_OK);
        ck_assert(!memcmp(a, b + 16, 16) && !memcmp(a + 16, b, 16));
        ck_assert(!memcmp(pa, pb + 4, 4) && !memcmp(pa + 4, pb, 4));
        for (int change = 0; change < 5; change++) {
            gnn_quant_cfg q2 = q;
            int64_t g2[2] = { gid[0], gid[1] };
            if (change == 0)
                q2.step++;
            else if (change == 1)
                q2.layer++;
            else if (change == 2)
                q2.dir = 1;
            else if (change == 3)
                q2.draw0 = gnn_quant_draw0(1, 4, 1, 2, D);
            else
                g2[0]++;
            ck_assert_int_eq(gnn_quant_pack(k_impls[k], x, 2, D, g2, &q2, b, pb), GNN_OK);
            ck_assert_msg(memcmp(a, b, 16) != 0, "%s: change %d left row 0's codes as they were", k_impls[k]->name,
                          change);
            ck_assert(!memcmp(pa, pb, 8)); /* the parameters do not depend on the draws */
        }
    }
}
END_TEST

static void set_threads(int t)
{
#ifdef GNN_HAVE_OPENMP
    omp_set_num_threads(t);
#else
    (void)t;
#endif
}

START_TEST(threads_same_bytes)
{
    const int64_t n = 1500, d = 130;
    float *x = malloc((size_t)(n * d) * sizeof(float)), *y = malloc((size_t)(n * d) * sizeof(float));
    float *y1 = malloc((size_t)(n * d) * sizeof(float));
    int64_t *gid = malloc((size_t)n * sizeof(int64_t));
    const int64_t rb = gnn_quant_data_bytes(d, 2);
    uint8_t *want = malloc((size_t)(n * rb)), *got = malloc((size_t)(n * rb));
    uint8_t *pw = malloc((size_t)n * 4), *pg = malloc((size_t)n * 4);
    ck_assert(x && y && y1 && gid && want && got && pw && pg);
    for (int64_t i = 0; i < n * d; i++)
        x[i] = cosf((float)i * 0.011f) * (float)(1 + i % 7);
    for (int64_t i = 0; i < n; i++)
        gid[i] = 3 * i + 1;
    gnn_quant_cfg q = cfg(2, GNN_QUANT_STOCHASTIC);
    ck_assert_int_eq(gnn_quant_pack(&gnn_quant_ref, x, n, d, gid, &q, want, pw), GNN_OK);
    ck_assert_int_eq(gnn_quant_unpack(&gnn_quant_ref, want, pw, n, d, 2, y1), GNN_OK);
    for (int t = 1; t <= 3; t++) {
        set_threads(t);
        ck_assert_int_eq(gnn_quant_pack(&gnn_quant_cpu, x, n, d, gid, &q, got, pg), GNN_OK);
        ck_assert_int_eq(gnn_quant_unpack(&gnn_quant_cpu, got, pg, n, d, 2, y), GNN_OK);
        ck_assert_msg(!memcmp(want, got, (size_t)(n * rb)) && !memcmp(pw, pg, (size_t)n * 4), "threads %d", t);
        ck_assert_msg(!memcmp(y, y1, (size_t)(n * d) * sizeof(float)), "threads %d", t);
    }
    set_threads(2);
    free(x), free(y), free(y1), free(gid), free(want), free(got), free(pw), free(pg);
}
END_TEST

/* The 16-bit draws by hand from the Random123 known answers (DESIGN.md section 2): a stream
 * whose counter is {block, 0, 0, 0} under key {0, 0} (seed 0, tag 0, layer 0, id 0, step 0)
 * has block 0 = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}, so draws 0..7 are the low and
 * high halves of those words in order; the all-ones counter and key (block 0xffffffff: draws
 * 8 (2^32 - 1) + k, and again 2^35 blocks later, the block taken mod 2^32) give
 * {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}. */
START_TEST(draw16_known_answer)
{
    static const uint32_t zero[8] = { 0xe8d5, 0x6627, 0xc58d, 0xe169, 0xac4c, 0xbc57, 0xdbd8, 0x9b00 };
    static const uint32_t ones[8] = { 0x276d, 0x408f, 0x3b0e, 0x41c8, 0xc7c6, 0xa20b, 0x51fd, 0x6d54 };
    const gnn_rng_stream s0 = gnn_rng_stream_make(0, 0, 0, 0, 0);
    const gnn_rng_stream s1 = gnn_rng_stream_make(~0ull, 0xff, 0xffffffffu, 0xff, 0xffffffffffffull);
    ck_assert_uint_eq(s1.ctr_hi, 0xffffffffu);
    for (uint64_t k = 0; k < 8; k++) {
        ck_assert_uint_eq(gnn_quant_draw16(&s0, k), zero[k]);
        ck_assert_uint_eq(gnn_quant_draw16(&s1, 8 * 0xffffffffull + k), ones[k]);
        ck_assert_uint_eq(gnn_quant_draw16(&s1, 8 * 0xffffffffull + (8ull << 32) + k), ones[k]);
    }
}
END_TEST

/* The 16-bit draw i of the row (seed, QUANT, step, 2 layer + dir, gid), written out from the
 * counter layout (DESIGN.md section 2) with one gnn_philox4x32_10 call: half i % 2 (low half
 * first) of word (i / 2) % 4 of block i / 8. */
static uint32_t draw16_by_hand(const gnn_quant_cfg *q, int64_t gid, uint64_t i)
{
    const uint64_t id = (uint64_t)gid;
    const uint32_t ctr[4] = { (uint32_t)(i / 8), (uint32_t)id,
                              (uint32_t)((id >> 32) & 0xffff) | (2u * q->layer + q->dir) << 16 | 5u << 24, q->step };
    const uint32_t key[2] = { (uint32_t)q->seed, (uint32_t)(q->seed >> 32) };
    uint32_t w[4];
    gnn_philox4x32_10(ctr, key, w);
    return (w[(i / 2) % 4] >> (i % 2 ? 16 : 0)) & 0xffffu;
}

/* The rule at its boundary, by hand, in every implementation: a row with Z = 0 and S = 1 (its
 * values 0 and M), so r is the value itself, and values made from the row's own draws u: u 2^-16
 * (frac 2^16 = u: never up), (u + 1/2) 2^-16 (ceil(frac 2^16) = u + 1: always up), and the same
 * plus 2. Rows start on a block and in the middle of one (draw0 = 4 mod 8), 200 values (the
 * fused sets of 64 of opt/cpu, and the rest), ids past 2^32. Before 16-bit draws, the codes
 * followed 24-bit float draws of other words and this test failed. */
START_TEST(stochastic_rule_known_answer)
{
    static const gnn_quant_ops *const impls[] = { &gnn_quant_ref,      &gnn_quant_cpu,        &gnn_quant_cpu_avx2,
                                                  &gnn_quant_cpu_sse2, &gnn_quant_cpu_scalar, &gnn_quant_cuda_emu,
                                                  NULL };
    enum { N = 3, D = 200 };
    static float x[N * D];
    static uint8_t want[N * D], codes[N * D], data[N * D], par[N * 4];
    const int64_t gid[N] = { 5, (1ll << 33) + 77, 123456789 };
    for (int bits = 2; bits <= 8; bits *= 2)
        for (int mid = 0; mid < 2; mid++) {
            gnn_quant_cfg q = cfg(bits, GNN_QUANT_STOCHASTIC);
            q.seed = 0x123456789abcdef0ull;
            q.step = 9;
            q.layer = 3;
            q.dir = 1;
            q.draw0 = 8 * 12345 + 4 * (uint64_t)mid;
            const int m = (1 << bits) - 1;
            for (int i = 0; i < N; i++)
                for (int f = 0; f < D; f++) {
                    const uint32_t u = draw16_by_hand(&q, gid[i], q.draw0 + (uint64_t)f);
                    const int up = f % 2, base = f % 4 < 2 ? 0 : 2;
                    float *h = &x[i * D + f];
                    *h = (float)base + ((float)u + (up ? 0.5f : 0.0f)) * (1.0f / 65536.0f);
                    want[i * D + f] = (uint8_t)(base + up);
                    if (f < 2) { /* Z = 0, S = 1 */
                        *h = f ? (float)m : 0.0f;
                        want[i * D + f] = (uint8_t)(f ? m : 0);
                    }
                }
            for (int k = 0; impls[k]; k++) {
                ck_assert_int_eq(gnn_quant_pack(impls[k], x, N, D, gid, &q, data, par), GNN_OK);
                for (int i = 0; i < N; i++) {
                    ck_assert_uint_eq(par[4 * i] | par[4 * i + 1] << 8, 0);      /* Z = 0 */
                    ck_assert_uint_eq(par[4 * i + 2] | par[4 * i + 3] << 8, 0x3F80); /* S = 1 */
                }
                gnn_quant_codes_unpack_ref(data, N, D, bits, codes);
                for (int e = 0; e < N * D; e++)
                    ck_assert_msg(codes[e] == want[e], "%s bits %d mid %d: row %d value %d: code %d, expected %d",
                                  impls[k]->name, bits, mid, e / D, e % D, codes[e], want[e]);
            }
        }
}
END_TEST

START_TEST(api_checks)
{
    const float x[8] = { 0 };
    const int64_t gid[2] = { 0, 1 };
    static const gnn_quant_ops empty = { .name = "empty", .caps = 0, .pack = NULL, .unpack = NULL };
    for (int k = 0; k_impls[k]; k++) {
        const gnn_quant_ops *ops = k_impls[k];
        uint8_t data[8], par[8];
        float y[8];
        memset(data, 0xAB, sizeof data);
        gnn_quant_cfg q = cfg(2, GNN_QUANT_STOCHASTIC), bad;
        ck_assert_int_eq(gnn_quant_pack(NULL, x, 2, 4, gid, &q, data, par), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_quant_pack(ops, x, 2, 4, gid, NULL, data, par), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_quant_pack(ops, x, -1, 4, gid, &q, data, par), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_quant_pack(ops, x, 2, -4, gid, &q, data, par), GNN_ERR_INVAL);
        bad = q, bad.bits = 3;
        ck_assert_int_eq(gnn_quant_pack(ops, x, 2, 4, gid, &bad, data, par), GNN_ERR_INVAL);
        bad = q, bad.bits = 16;
        ck_assert_int_eq(gnn_quant_pack(ops, x, 2, 4, gid, &bad, data, par), GNN_ERR_INVAL);
        bad = q, bad.round = (gnn_quant_round)2;
        ck_assert_int_eq(gnn_quant_pack(ops, x, 2, 4, gid, &bad, data, par), GNN_ERR_INVAL);
        bad = q, bad.layer = 128;
        ck_assert_int_eq(gnn_quant_pack(ops, x, 2, 4, gid, &bad, data, par), GNN_ERR_INVAL);
        bad = q, bad.dir = 2;
        ck_assert_int_eq(gnn_quant_pack(ops, x, 2, 4, gid, &bad, data, par), GNN_ERR_INVAL);
        bad = q, bad.draw0 = 6;
        ck_assert_int_eq(gnn_quant_pack(ops, x, 2, 4, gid, &bad, data, par), GNN_ERR_INVAL);
        bad = q, bad.draw0 = 12; /* a multiple of 4: the middle of a Philox block is allowed */
        ck_assert_int_eq(gnn_quant_pack(ops, x, 2, 4, gid, &bad, data, par), GNN_OK);
        memset(data, 0xAB, sizeof data);
        ck_assert_int_eq(gnn_quant_pack(ops, NULL, 2, 4, gid, &q, data, par), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_quant_pack(ops, x, 2, 4, gid, &q, NULL, par), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_quant_pack(ops, x, 2, 4, gid, &q, data, NULL), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_quant_pack(ops, x, 2, 4, NULL, &q, data, par), GNN_ERR_INVAL);
        for (int i = 0; i < 8; i++)
            ck_assert_uint_eq(data[i], 0xAB); /* nothing written */
        /* allowed: no ids when nothing is drawn; no arrays when there is nothing to hold */
        bad = q, bad.round = GNN_QUANT_NEAREST;
        ck_assert_int_eq(gnn_quant_pack(ops, x, 2, 4, NULL, &bad, data, par), GNN_OK);
        ck_assert_int_eq(gnn_quant_pack(ops, NULL, 0, 4, NULL, &q, NULL, NULL), GNN_OK);
        bad = q, bad.bits = 32;
        ck_assert_int_eq(gnn_quant_pack(ops, x, 2, 1, NULL, &bad, data, NULL), GNN_OK);
        ck_assert_int_eq(gnn_quant_unpack(NULL, data, par, 2, 4, 2, y), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_quant_unpack(ops, data, par, 2, 4, 5, y), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_quant_unpack(ops, data, par, -2, 4, 2, y), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_quant_unpack(ops, NULL, par, 2, 4, 2, y), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_quant_unpack(ops, data, NULL, 2, 4, 2, y), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_quant_unpack(ops, data, par, 2, 4, 2, NULL), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_quant_unpack(ops, data, NULL, 2, 1, 32, y), GNN_OK);
    }
    gnn_quant_cfg q = cfg(2, GNN_QUANT_STOCHASTIC);
    uint8_t data[8], par[8];
    float y[8];
    ck_assert_int_eq(gnn_quant_pack(&empty, x, 2, 4, gid, &q, data, par), GNN_ERR_UNSUPPORTED);
    ck_assert_int_eq(gnn_quant_unpack(&empty, data, par, 2, 4, 2, y), GNN_ERR_UNSUPPORTED);
    /* the contexts carry the tables */
    ck_assert_ptr_eq(gnn_impl_ref()->quant, &gnn_quant_ref);
    ck_assert_ptr_eq(gnn_impl_opt()->quant, &gnn_quant_cpu);
}
END_TEST

/* ---- proofs that the entries can fail ---- */

/* ref, then one bit of the last row's last byte flipped */
static gnn_status pack_flip(const float *x, int64_t n, int64_t d, const int64_t *row_gid, const gnn_quant_cfg *q,
                            uint8_t *data, uint8_t *params)
{
    gnn_quant_pack_ref(x, n, d, row_gid, q, data, params);
    const int64_t rb = gnn_quant_data_bytes(d, q->bits);
    if (n > 0 && rb > 0)
        data[n * rb - 1] ^= 0x80;
    return GNN_OK;
}
/* "stochastic" that rounds to nearest: deterministic, so biased */
static gnn_status pack_biased(const float *x, int64_t n, int64_t d, const int64_t *row_gid, const gnn_quant_cfg *q,
                              uint8_t *data, uint8_t *params)
{
    gnn_quant_cfg q2 = *q;
    q2.round = GNN_QUANT_NEAREST;
    return gnn_quant_pack_ref(x, n, d, row_gid, &q2, data, params);
}
/* an implementation whose device fails: its status must reach the caller */
static gnn_status pack_device_lost(const float *x, int64_t n, int64_t d, const int64_t *row_gid,
                                   const gnn_quant_cfg *q, uint8_t *data, uint8_t *params)
{
    (void)x, (void)n, (void)d, (void)row_gid, (void)q, (void)data, (void)params;
    return GNN_ERR_IO;
}
static gnn_status unpack_device_lost(const uint8_t *data, const uint8_t *params, int64_t n, int64_t d, int bits,
                                     float *x)
{
    (void)data, (void)params, (void)n, (void)d, (void)bits, (void)x;
    return GNN_ERR_NOMEM;
}
static const gnn_quant_ops k_flip = { .name = "flip", .pack = pack_flip, .unpack = gnn_quant_unpack_ref };
static const gnn_quant_ops k_biased = { .name = "biased", .pack = pack_biased, .unpack = gnn_quant_unpack_ref };
static const gnn_quant_ops k_lost = { .name = "lost", .pack = pack_device_lost, .unpack = unpack_device_lost };

/* The table's status is the entry points' (before, pack and unpack returned nothing, and a
 * device's failure could only show as wrong bytes). */
START_TEST(implementation_status_reaches_caller)
{
    const float x[6] = { 0, 1, 2, 3, 4, 5 };
    const int64_t gid[2] = { 0, 1 };
    uint8_t data[64], params[8];
    float y[6];
    gnn_quant_cfg q = { .bits = 2, .round = GNN_QUANT_STOCHASTIC, .seed = 1 };
    ck_assert_int_eq(gnn_quant_pack(&k_lost, x, 2, 3, gid, &q, data, params), GNN_ERR_IO);
    ck_assert_int_eq(gnn_quant_unpack(&k_lost, data, params, 2, 3, 2, y), GNN_ERR_NOMEM);
    ck_assert_int_eq(gnn_quant_pack(&gnn_quant_ref, x, 2, 3, gid, &q, data, params), GNN_OK);
    ck_assert_int_eq(gnn_quant_unpack(&gnn_quant_ref, data, params, 2, 3, 2, y), GNN_OK);
}
END_TEST

START_TEST(oracle_can_fail)
{
    const gnn_oracle_impl flip = { "flip", &k_flip, 0 }, biased = { "biased", &k_biased, 0 };
    tally t;
    run_with_impl("quant.pack", &flip, 0, 1, &t);
    ck_assert_int_gt(t.counts[GNN_ORACLE_FAIL], 0);
    ck_assert_msg(strstr(t.first_fail, "bytes differ") != NULL, "%s", t.first_fail);
    run_with_impl("quant.stochastic", &biased, 0, 1, &t);
    ck_assert_int_eq(t.counts[GNN_ORACLE_FAIL], gnn_oracle_n_presets(gnn_oracle_find("quant.stochastic")));
    ck_assert_msg(strstr(t.first_fail, "chi-square") != NULL || strstr(t.first_fail, "biased") != NULL, "%s",
                  t.first_fail);
    run_with_impl("quant.pack", &(gnn_oracle_impl){ "ref", &gnn_quant_ref, 0 }, 0, 1, &t);
    ck_assert_int_eq(t.counts[GNN_ORACLE_FAIL], 0);
}
END_TEST

Suite *suite_quant(void)
{
    Suite *s = suite_create("quant");
    TCase *tc = tcase_create("quant");
    tcase_set_tags(tc, "cpu");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, byte_formula);
    tcase_add_test(tc, layout_known_answer);
    tcase_add_test(tc, integers_never_round);
    tcase_add_test(tc, draw16_known_answer);
    tcase_add_test(tc, stochastic_rule_known_answer);
    tcase_add_test(tc, constant_rows);
    tcase_add_test(tc, fp32_identity);
    tcase_add_test(tc, draws_are_keyed);
    tcase_add_test(tc, threads_same_bytes);
    tcase_add_test(tc, api_checks);
    tcase_add_test(tc, oracle_can_fail);
    tcase_add_test(tc, implementation_status_reaches_caller);
    suite_add_tcase(s, tc);
    return s;
}
