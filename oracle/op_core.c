/* oracle/op_core.c -- oracle entries for core services: Philox known answers, the draw
 * formulas of DESIGN.md section 2, and CRC32C.
 *
 *   rng.philox.kat  the three Random123 known-answer vectors DESIGN.md section 2 lists;
 *   rng.draws       integer and float draws recomputed from raw Philox blocks with the
 *                   counter layout written out again and a 128-bit product done in 32-bit
 *                   limbs (a different algorithm from rng.h's unsigned __int128);
 *   crc32c.kat      the slicing-by-8 CRC32C against a bit-at-a-time CRC, at every start
 *                   alignment and split into two incremental calls. */
#include <math.h>
#include <string.h>
#include "gnnref/crc32c.h"
#include "gnnref/oracle.h"
#include "gnnref/rng.h"

static const gnn_oracle_impl k_core_ref = { .name = "ref", .ops = NULL, .flags = 0 };
static const gnn_oracle_impl *const k_core_impls[] = { &k_core_ref, NULL };

/* ---- rng.philox.kat ------------------------------------------------------------------------ */

typedef struct kat {
    uint32_t ctr[4], key[2], out[4];
} kat;

/* Random123 kat_vectors for philox4x32_10 (also DESIGN.md section 2). */
static const kat k_philox_kat[3] = {
    { { 0, 0, 0, 0 }, { 0, 0 }, { 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u } },
    { { 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu },
      { 0xffffffffu, 0xffffffffu },
      { 0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu } },
    { { 0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u },
      { 0xa4093822u, 0x299f31d0u },
      { 0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u } },
};

static const gnn_oracle_param k_kat_params[] = {
    { "vector", GNN_PARAM_INT, 0, 2, "Random123 known-answer vector 0, 1 or 2" },
};
static const char *const k_kat_presets[] = { "vector=0", "vector=1", "vector=2", NULL };

static gnn_oracle_outcome philox_kat_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const kat *k = &k_philox_kat[gnn_oracle_int(c, 0)];
    uint32_t *want = gnn_oracle_alloc_out(ctx, "want", sizeof k->out);
    uint32_t *got = gnn_oracle_alloc_out(ctx, "philox.out", sizeof k->out);
    if (!want || !got)
        return gnn_oracle_fail(ctx, "out of memory");
    memcpy(want, k->out, sizeof k->out);
    gnn_philox4x32_10(k->ctr, k->key, got);
    gnn_oracle_digest(ctx, got, sizeof k->out);
    return gnn_oracle_compare_int(ctx, "philox4x32_10", want, got, 4, 4);
}

const gnn_oracle_entry gnn_oracle_rng_philox_kat = {
    .name = "rng.philox.kat",
    .what = "Philox4x32-10 against the Random123 known answers",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "integer arithmetic: the published vectors are exact",
    .params = k_kat_params,
    .n_params = 1,
    .presets = k_kat_presets,
    .ref = &k_core_ref,
    .impls = k_core_impls,
    .flags = GNN_ORACLE_SEEDLESS,
    .run = philox_kat_run,
};

/* ---- rng.draws ------------------------------------------------------------------------------- */

/* High 64 bits of r * n from four 32 x 32 -> 64 products (schoolbook). */
static uint64_t mulhi64_limbs(uint64_t r, uint64_t n)
{
    const uint64_t rl = r & 0xffffffffu, rh = r >> 32, nl = n & 0xffffffffu, nh = n >> 32;
    const uint64_t p0 = rl * nl, p1 = rl * nh, p2 = rh * nl, p3 = rh * nh;
    const uint64_t mid = (p0 >> 32) + (p1 & 0xffffffffu) + (p2 & 0xffffffffu);
    return p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
}

enum { DR_N, DR_DRAWS };
static const gnn_oracle_param k_draws_params[] = {
    { "n", GNN_PARAM_INT, 0, 9.2e18, "integer draws are taken in [0, n)" },
    { "draws", GNN_PARAM_INT, 0, 1 << 20, "number of draws of each kind" },
};
static const char *const k_draws_presets[] = {
    "n=0,draws=9", "n=1,draws=9", "n=7,draws=64", "n=1000003,draws=64", "n=4294967311,draws=64",
    "n=4611686018427387904,draws=33", NULL
};

static gnn_oracle_outcome draws_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const uint64_t n = (uint64_t)gnn_oracle_int(c, DR_N);
    const int64_t count = gnn_oracle_int(c, DR_DRAWS);
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1);
    /* a stream address with every field populated, id above 2^32 so id_hi is exercised */
    const uint64_t seed = ((uint64_t)gnn_oracle_draw_uint(&g, 1ull << 32) << 32) | gnn_oracle_draw_uint(&g, 1ull << 32);
    const unsigned tag = (unsigned)gnn_oracle_draw_range(&g, 1, 255);
    const unsigned layer = (unsigned)gnn_oracle_draw_range(&g, 0, 255);
    const uint32_t step = (uint32_t)gnn_oracle_draw_uint(&g, 1ull << 32);
    const uint64_t id = gnn_oracle_draw_uint(&g, 1ull << 48);
    const gnn_rng_stream s = gnn_rng_stream_make(seed, tag, step, layer, id);
    /* the counter and key exactly as DESIGN.md section 2 writes them */
    const uint32_t key[2] = { (uint32_t)seed, (uint32_t)(seed >> 32) };
    const uint32_t c1 = (uint32_t)id, c2 = (uint32_t)((id >> 32) & 0xffffu) | layer << 16 | tag << 24;

    uint64_t *want_u = gnn_oracle_alloc_out(ctx, "want.uint", (size_t)count * 8);
    uint64_t *got_u = gnn_oracle_alloc_out(ctx, "rng_uint", (size_t)count * 8);
    float *want_f = gnn_oracle_alloc_out(ctx, "want.float", (size_t)count * 4);
    float *got_f = gnn_oracle_alloc_out(ctx, "rng_float", (size_t)count * 4);
    if (!want_u || !got_u || !want_f || !got_f)
        return gnn_oracle_fail(ctx, "out of memory");
    for (int64_t i = 0; i < count; i++) {
        uint32_t w[4];
        const uint32_t ctr_u[4] = { (uint32_t)(i / 2), c1, c2, step };
        gnn_philox4x32_10(ctr_u, key, w);
        const uint64_t r = (uint64_t)w[2 * (i % 2) + 1] << 32 | w[2 * (i % 2)];
        want_u[i] = mulhi64_limbs(r, n);
        got_u[i] = gnn_rng_uint(&s, (uint64_t)i, n);
        const uint32_t ctr_f[4] = { (uint32_t)(i / 4), c1, c2, step };
        gnn_philox4x32_10(ctr_f, key, w);
        want_f[i] = ldexpf((float)(w[i % 4] >> 8), -24);
        got_f[i] = gnn_rng_float(&s, (uint64_t)i);
    }
    gnn_oracle_outcome o = GNN_ORACLE_PASS;
    for (int64_t i = 0; i < count; i++)
        if (n > 0 && got_u[i] >= n) {
            o = gnn_oracle_fail(ctx, "rng_uint draw %lld = %llu is not below n = %llu", (long long)i,
                                (unsigned long long)got_u[i], (unsigned long long)n);
            break;
        }
    gnn_oracle_digest(ctx, got_u, (size_t)count * 8);
    gnn_oracle_digest(ctx, got_f, (size_t)count * 4);
    o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "rng_uint", want_u, got_u, count, 8));
    const gnn_oracle_tol bitwise = { GNN_CMP_BITWISE, 0, 0 };
    return gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, &bitwise, "rng_float", want_f, got_f, count, 0));
}

const gnn_oracle_entry gnn_oracle_rng_draws = {
    .name = "rng.draws",
    .what = "integer and float draws recomputed from raw Philox blocks (counter layout, 32-bit limbs)",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "integer arithmetic and an exact 24-bit float conversion: any difference is a bug",
    .params = k_draws_params,
    .n_params = 2,
    .presets = k_draws_presets,
    .ref = &k_core_ref,
    .impls = k_core_impls,
    .run = draws_run,
};

/* ---- crc32c.kat ------------------------------------------------------------------------------ */

/* CRC32C one bit at a time: the definition, with no tables. */
static uint32_t crc32c_bitwise(uint32_t crc, const unsigned char *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static const gnn_oracle_param k_crc_params[] = {
    { "len", GNN_PARAM_INT, 0, 1 << 24, "message length in bytes" },
};
static const char *const k_crc_presets[] = { "len=0", "len=1", "len=7", "len=8", "len=9", "len=63",
                                             "len=64", "len=1000", "len=4099", NULL };

static gnn_oracle_outcome crc_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const size_t len = (size_t)gnn_oracle_int(c, 0);
    enum { N_CHECKS = 10 }; /* check value, 8 alignments, one incremental split */
    unsigned char *buf = gnn_oracle_alloc(ctx, len + 8);
    int32_t *want = gnn_oracle_alloc_out(ctx, "want", N_CHECKS * 4);
    int32_t *got = gnn_oracle_alloc_out(ctx, "crc32c", N_CHECKS * 4);
    if (!buf || !want || !got)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1);
    unsigned char *msg = gnn_oracle_alloc(ctx, len + 1);
    if (!msg)
        return gnn_oracle_fail(ctx, "out of memory");
    for (size_t i = 0; i < len; i++)
        msg[i] = (unsigned char)gnn_oracle_draw_uint(&g, 256);
    want[0] = (int32_t)0xE3069283u; /* the published check value of "123456789" */
    got[0] = (int32_t)gnn_crc32c(0, "123456789", 9);
    const uint32_t truth = crc32c_bitwise(0, msg, len);
    for (int off = 0; off < 8; off++) {
        memcpy(buf + off, msg, len);
        want[1 + off] = (int32_t)truth;
        got[1 + off] = (int32_t)gnn_crc32c(0, buf + off, len);
    }
    const size_t split = (size_t)gnn_oracle_draw_uint(&g, len + 1);
    want[9] = (int32_t)truth;
    got[9] = (int32_t)gnn_crc32c(gnn_crc32c(0, msg, split), msg + split, len - split);
    gnn_oracle_digest(ctx, got, N_CHECKS * 4);
    gnn_oracle_outcome o = gnn_oracle_compare_int(ctx, "crc32c", want, got, N_CHECKS, 4);
    if (o == GNN_ORACLE_FAIL)
        gnn_oracle_note(ctx, "  (element 0: check value; 1..8: start offset 0..7; 9: split at %zu)", split);
    return o;
}

const gnn_oracle_entry gnn_oracle_crc32c_kat = {
    .name = "crc32c.kat",
    .what = "CRC32C (slicing-by-8) against a bit-at-a-time CRC, all alignments, incremental",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "a checksum is exact or wrong",
    .params = k_crc_params,
    .n_params = 1,
    .presets = k_crc_presets,
    .ref = &k_core_ref,
    .impls = k_core_impls,
    .run = crc_run,
};
