/* tests/mix_util.h -- splitmix64, the weighted-sampling suites' own input generator (not the
 * library's RNG under test), shared by tests/test_sample_weighted.c and
 * tests/test_sample_wtable.c: each including suite gets its own static copy. */
#ifndef GNNREF_TESTS_MIX_UTIL_H
#define GNNREF_TESTS_MIX_UTIL_H

#include <stdint.h>

static inline uint64_t mix_next(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* uniform in [0, n), n >= 1 */
static inline int64_t mix_below(uint64_t *x, int64_t n) { return (int64_t)(mix_next(x) % (uint64_t)n); }
/* uniform in [0, 1), multiples of 2^-24 */
static inline float mix_unit(uint64_t *x) { return (float)(mix_next(x) >> 40) * (1.0f / 16777216.0f); }

#endif
