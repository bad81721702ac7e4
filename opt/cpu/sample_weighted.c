/* opt/cpu/sample_weighted.c -- the one out-of-line kernel of the per-vertex weighted kernels
 * (opt/cpu/sample_weighted.h), which declares it: the vectorized A-ES candidate pass, built for
 * AVX2 and the baseline (opt/cpu/clones.h). In a file of its own so that the header's users
 * (opt/cpu/sample.c, opt/cpu/sample_wtable.c) depend on it one way: it had been defined in
 * sample_wtable.c, which itself uses the header (issue 35, item 2). */
#include <string.h>
#include "opt/cpu/clones.h"
#include "opt/cpu/sample_weighted.h"

/* A-ES candidates of one chunk of m positions (declared in opt/cpu/sample_weighted.h): u[h]
 * from draw words 2h (low) and 2h+1 (high), exactly gnn_weighted_u (r >> 12 < 2^52 is placed in
 * a double's mantissa and 2^52 taken off: both exact, so no 64-bit conversion is needed and
 * the loop vectorizes); cand[h] = 1 for a positive weight that passes the log-free bound test
 * against bound (INFINITY: every positive weight). Built for AVX2 and the baseline. */
GNN_CLONES void gnn_cpu_aes_candidates(const uint32_t *words, const float *w, int m, double bound, double *u,
                                       uint8_t *cand)
{
    for (int h = 0; h < m; h++) {
        const uint64_t r = ((uint64_t)words[2 * h + 1] << 32) | words[2 * h];
        const uint64_t bits = (r >> 12) | 0x4330000000000000ull; /* 2^52 + (r >> 12) */
        double x;
        memcpy(&x, &bits, sizeof x);
        const double uh = ((x - 0x1p52) + 0.5) * 0x1p-52;
        const double wv = (double)w[h];
        u[h] = uh;
        cand[h] = (uint8_t)((wv > 0.0) & ((1.0 - uh) * (1.0 - 0x1p-29) < bound * wv));
    }
}
