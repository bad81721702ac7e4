/* core/base/rng.c -- Philox4x32-10 (Salmon et al., SC'11), the generator of cuRAND and JAX.
 * Known answers (Random123 kat_vectors) are checked by the oracle entry rng.philox.kat. */
#include "gnnref/rng.h"

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

static inline void mulhilo(uint32_t a, uint32_t b, uint32_t *hi, uint32_t *lo)
{
    uint64_t p = (uint64_t)a * b;
    *hi = (uint32_t)(p >> 32);
    *lo = (uint32_t)p;
}

void gnn_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < 10; r++) {
        uint32_t hi0, lo0, hi1, lo1;
        mulhilo(PHILOX_M0, c0, &hi0, &lo0);
        mulhilo(PHILOX_M1, c2, &hi1, &lo1);
        /* one round: (c0, c1, c2, c3) <- (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0) */
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        k0 += PHILOX_W0; /* key schedule bump after each round */
        k1 += PHILOX_W1;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

void gnn_rng_shuffle_i64(const gnn_rng_stream *s, int64_t *v, int64_t n)
{
    for (int64_t i = n - 1; i >= 1; i--) {
        int64_t j = (int64_t)gnn_rng_uint(s, (uint64_t)(n - 1 - i), (uint64_t)(i + 1));
        int64_t t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}
