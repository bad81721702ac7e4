/* oracle/op_lanes.c -- rng.lanes: the Philox blocks that opt/cpu computes side by side
 * (opt/cpu/philox_lanes.c: the sampler's integer draws, the keyed dropout mask of the nn
 * table and of the fused UPDATE) against gnn_rng_block, one block at a time.
 *
 * Every path is checked on every machine: the portable one (omp simd lanes) and, where the
 * CPU has them, the AVX2 and the AVX-512 ones. gnn_cpu_philox_blocks takes only one of them on a given CPU, so
 * without this entry the path a CI machine does not take would never run (a portable path
 * that confused two words of a block passed every other entry on an AVX2 machine).
 * Boundaries: nq = 0, 1, below, at and above the lane counts (4 for AVX2's half, 8, 16, 32),
 * a tail of every length, and counters that wrap past 2^32 (block q0 + b is counter word
 * q0 + b mod 2^32, as gnn_rng_block takes it). */
#include <string.h>
#include "gnnref/oracle.h"
#include "gnnref/rng.h"
#include "opt/cpu/philox_lanes.h"

typedef int (*lanes_fn)(const gnn_rng_stream *s, uint32_t q0, int nq, uint32_t *out);

static int lanes_portable(const gnn_rng_stream *s, uint32_t q0, int nq, uint32_t *out)
{
    gnn_cpu_philox_blocks_portable(s, q0, nq, out);
    return 1;
}

static const lanes_fn k_fn_portable = lanes_portable, k_fn_avx2 = gnn_cpu_philox_blocks_avx2,
                      k_fn_avx512 = gnn_cpu_philox_blocks_avx512;
static const gnn_oracle_impl k_lanes_ref = { .name = "ref", .ops = NULL, .flags = 0 };
static const gnn_oracle_impl k_lanes_portable = { .name = "portable", .ops = &k_fn_portable, .flags = 0 };
static const gnn_oracle_impl k_lanes_avx2 = { .name = "avx2", .ops = &k_fn_avx2, .flags = 0 };
static const gnn_oracle_impl k_lanes_avx512 = { .name = "avx512", .ops = &k_fn_avx512, .flags = 0 };
static const gnn_oracle_impl *const k_lanes_impls[] = { &k_lanes_ref, &k_lanes_portable, &k_lanes_avx2,
                                                        &k_lanes_avx512, NULL };

enum { L_Q0, L_NQ, N_L_PARAMS };
static const gnn_oracle_param k_lanes_params[N_L_PARAMS] = {
    { "q0", GNN_PARAM_INT, 0, 4294967295.0, "first block (counter word 0)" },
    { "nq", GNN_PARAM_INT, 0, 1 << 20, "blocks" },
};
static const char *const k_lanes_presets[] = {
    "q0=0,nq=0",  "q0=0,nq=1",  "q0=5,nq=3",  "q0=0,nq=4",   "q0=1,nq=7",          "q0=0,nq=8",
    "q0=3,nq=15", "q0=0,nq=16", "q0=9,nq=17", "q0=0,nq=33",  "q0=77,nq=100",       "q0=0,nq=1000",
    "q0=2,nq=31", "q0=0,nq=32", "q0=4294967280,nq=40", /* AVX-512: one step short, two steps, a wrap inside a step */
    "q0=4294967290,nq=20",      "q0=4294967295,nq=1",        NULL,
};

static gnn_oracle_outcome lanes_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const uint32_t q0 = (uint32_t)gnn_oracle_int(c, L_Q0);
    const int nq = (int)gnn_oracle_int(c, L_NQ);
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1);
    /* every field of the stream address populated: id above 2^32, any tag, layer and step */
    const uint64_t seed = ((uint64_t)gnn_oracle_draw_uint(&g, 1ull << 32) << 32) | gnn_oracle_draw_uint(&g, 1ull << 32);
    const unsigned tag = (unsigned)gnn_oracle_draw_range(&g, 1, 255), layer = (unsigned)gnn_oracle_draw_range(&g, 0, 255);
    const uint32_t step = (uint32_t)gnn_oracle_draw_uint(&g, 1ull << 32);
    const gnn_rng_stream s = gnn_rng_stream_make(seed, tag, step, layer, gnn_oracle_draw_uint(&g, 1ull << 48));
    const size_t bytes = (size_t)nq * 4 * sizeof(uint32_t);
    uint32_t *want = gnn_oracle_alloc_out(ctx, "want", bytes), *got = gnn_oracle_alloc_out(ctx, "words", bytes);
    if ((!want || !got) && nq > 0)
        return gnn_oracle_fail(ctx, "out of memory");
    for (int b = 0; b < nq; b++)
        gnn_rng_block(&s, q0 + (uint32_t)b, want + 4 * (size_t)b);
    if (c->impl == &k_lanes_ref) {
        for (int b = 0; b < nq; b++)
            gnn_rng_block(&s, q0 + (uint32_t)b, got + 4 * (size_t)b);
    } else if (!(*(const lanes_fn *)c->impl->ops)(&s, q0, nq, got)) {
        return gnn_oracle_skip(ctx, "no %s on this CPU or in this build: another path is the one taken",
                               c->impl == &k_lanes_avx2 ? "AVX2" : "AVX-512F");
    }
    gnn_oracle_digest(ctx, got, bytes);
    return gnn_oracle_compare_int(ctx, "words", want, got, (int64_t)nq * 4, 4);
}

const gnn_oracle_entry gnn_oracle_rng_lanes = {
    .name = "rng.lanes",
    .what = "Philox blocks side by side (opt/cpu/philox_lanes.c: portable lanes, AVX2, AVX-512, each on its own) "
            "against gnn_rng_block one block at a time",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "the same rounds on the same key, only the counter word differs: every bit is specified",
    .params = k_lanes_params,
    .n_params = N_L_PARAMS,
    .presets = k_lanes_presets,
    .ref = &k_lanes_ref,
    .impls = k_lanes_impls,
    .run = lanes_run,
};
