/* opt/cuda/philox_body.h -- the keyed integer draw of include/gnnref/rng.h (DESIGN.md section 2)
 * for kernel bodies: GNN_HD, so nvcc compiles it for the device and gcc for the `cuda-emu`
 * implementations. The block function and the stream address are rng.h's own
 * (gnn_philox4x32_10_inline and gnn_rng_stream_make are marked GNN_RNG_HD there); only the
 * draw is written again, because rng.h's gnn_rng_uint takes the high half of a 64 x 64-bit
 * product through unsigned __int128, which device code does not have: here it is __umul64hi on
 * the device. tests/test_cuda_sample.c checks gnn_k_uint against gnn_rng_uint, and the oracle's
 * bitwise entries for the `cuda-emu` and `cuda` tables check the draws through the samples and
 * the quantized codes. */
#ifndef GNNREF_OPT_CUDA_PHILOX_BODY_H
#define GNNREF_OPT_CUDA_PHILOX_BODY_H

#include <stdint.h>
#include "gnnref/rng.h"   /* gnn_rng_stream, gnn_philox4x32_10_inline, gnn_rng_stream_make */
#include "opt/cuda/emu.h" /* GNN_HD */

/* High 64 bits of the 128-bit product. */
GNN_HD static inline uint64_t gnn_k_mulhi64(uint64_t a, uint64_t b)
{
#ifdef __CUDA_ARCH__
    return __umul64hi(a, b);
#else
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}

/* Integer draw i in [0, n): words 2(i%2), 2(i%2)+1 of block i/2, (r * n) >> 64 (gnn_rng_uint). */
GNN_HD static inline uint64_t gnn_k_uint(const gnn_rng_stream *s, uint64_t i, uint64_t n)
{
    const uint32_t ctr[4] = { (uint32_t)(i / 2), s->ctr_id_lo, s->ctr_hi, s->step };
    uint32_t w[4];
    gnn_philox4x32_10_inline(ctr, s->key, w);
    const unsigned k = (unsigned)(i % 2) * 2;
    return gnn_k_mulhi64(((uint64_t)w[k + 1] << 32) | w[k], n);
}

#endif
