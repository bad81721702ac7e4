/* oracle/spec_rng.h -- the keyed generator's addressing, written out again from DESIGN.md
 * section 2 for the verifiers of oracle/ (internal to oracle/).
 *
 * A verifier that recomputes a draw through gnn_rng_stream_make would share that code with
 * the implementation it checks; these functions build the Philox counter and key by hand
 * (key = {seed lo, seed hi}; counter = {block, id lo, (id hi & 0xFFFF) | layer << 16 |
 * tag << 24, step}) and call only the raw block function, whose known answers the entry
 * rng.philox.kat checks. So a swapped field in a stream address (the simulator's fault keys,
 * the AEP push keys) cannot agree with them. */
#ifndef GNNREF_ORACLE_SPEC_RNG_H
#define GNNREF_ORACLE_SPEC_RNG_H

#include <stdint.h>
#include "gnnref/rng.h"

typedef struct spec_addr {
    uint64_t seed;
    unsigned tag, layer;
    uint32_t step;
    uint64_t id;
} spec_addr;

static inline void spec_block(const spec_addr *a, uint32_t block, uint32_t out[4])
{
    const uint32_t key[2] = { (uint32_t)(a->seed & 0xffffffffu), (uint32_t)(a->seed >> 32) };
    const uint32_t ctr[4] = { block, (uint32_t)(a->id & 0xffffffffu),
                              (uint32_t)((a->id >> 32) & 0xffffu) | (a->layer & 0xffu) << 16 | (a->tag & 0xffu) << 24,
                              a->step };
    gnn_philox4x32_10(ctr, key, out);
}

/* the 64-bit word of integer draw i: words 2(i%2) (low) and 2(i%2)+1 (high) of block i/2 */
static inline uint64_t spec_word64(const spec_addr *a, uint64_t i)
{
    uint32_t w[4];
    spec_block(a, (uint32_t)(i / 2), w);
    return (uint64_t)w[2 * (i % 2) + 1] << 32 | w[2 * (i % 2)];
}

/* integer draw i in [0, n): (r * n) >> 64 */
static inline uint64_t spec_uint(const spec_addr *a, uint64_t i, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)spec_word64(a, i) * n) >> 64);
}

/* float draw i in [0, 1): word i%4 of block i/4, (w >> 8) * 2^-24 */
static inline double spec_float(const spec_addr *a, uint64_t i)
{
    uint32_t w[4];
    spec_block(a, (uint32_t)(i / 4), w);
    return (double)(w[i % 4] >> 8) / 16777216.0;
}

#endif
