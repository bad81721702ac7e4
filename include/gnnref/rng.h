/* include/gnnref/rng.h -- the keyed counter-based generator (DESIGN.md section 2).
 *
 * Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as
 * 1, 2, 3", SC'11). Every random choice in gnnref is a pure function of
 * (seed, tag, step, layer, id, draw index) -- never of thread, rank, device or call
 * order -- so ref, OpenMP at any thread count, CUDA and any number of ranks make the
 * same choices.
 *
 * Addressing:
 *   key     = { seed & 0xffffffff, seed >> 32 }
 *   counter = { block, id & 0xffffffff, ((id >> 32) & 0xffff) | layer << 16 | tag << 24, step }
 * Integer draw i in [0, n): words 2(i%2), 2(i%2)+1 of block i/2 as r = hi << 32 | lo,
 *   result (r * n) >> 64 in 128-bit arithmetic (no modulo, no rejection: fixed draw count).
 * Float draw i in [0, 1): word i%4 of block i/4, result (w >> 8) * 2^-24. */
#ifndef GNNREF_RNG_H
#define GNNREF_RNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The block function and the stream address below are also compiled for the device by nvcc
 * (the CUDA kernels draw with them: opt/cuda/philox_body.h), so they are written in the subset
 * of C11 that CUDA C++ shares; elsewhere GNN_RNG_HD is empty. */
#if defined(__CUDACC__)
#define GNN_RNG_HD __host__ __device__
#else
#define GNN_RNG_HD
#endif

/* Tags name the use of a stream; they are part of the format of every result. Never renumber. */
typedef enum gnn_rng_tag {
    GNN_TAG_SHUFFLE = 1,  /* epoch order of training ids; step = epoch, id = 0 */
    GNN_TAG_SAMPLE = 2,   /* neighbor sampling; id = dst vertex (global) */
    GNN_TAG_DROPOUT = 3,  /* dropout mask; id = row (global vertex id), draw = column */
    GNN_TAG_INIT = 4,     /* weight init (docs/determinism.md): sage step 0, layer 2l + r; others step 16 + l,
                             layer = the tensor's role; id = row i, draw = column j */
    GNN_TAG_QUANT = 5,    /* stochastic quantization (SuperGCN's int2; int4 and int8 too) */
    GNN_TAG_HEC_PUSH = 6, /* DistGNN-MB push selection */
    GNN_TAG_SPLIT = 7,    /* random train/val/test split; id = 0, draw = position */
    GNN_TAG_GEN = 8,      /* graph generators; id = edge/vertex index per generator docs */
    GNN_TAG_GEN_FEAT = 9, /* generator features/labels; id = vertex */
    GNN_TAG_ORACLE = 10,  /* oracle case generation */
    GNN_TAG_PARTITION = 11,
    GNN_TAG_ATTN_DROPOUT = 12, /* GAT attention dropout; id = dst vertex (global), draw = edge position * heads + head */
    GNN_TAG_FAULT = 13,   /* simulator fault injection; step = message sequence, id = src * P + dst */
    GNN_TAG_KVSTORE = 14, /* feature-store pulls of `gnnref partcheck`: step = pull, id = rank, draw = position */
    GNN_TAG_LABEL_MASK = 15 /* label propagation (SuperGCN): step = epoch (0: drawn once), layer 0, id = vertex, draw 0 */
} gnn_rng_tag;

/* One Philox4x32-10 block: out = Philox(ctr, key). */
void gnn_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* The same, inline (hot loops: samplers, dropout). Each round:
 * (c0, c1, c2, c3) <- (hi(M1*c2) ^ c1 ^ k0, lo(M1*c2), hi(M0*c0) ^ c3 ^ k1, lo(M0*c0)),
 * then the key is bumped by (W0, W1). */
GNN_RNG_HD static inline void gnn_philox4x32_10_inline(const uint32_t ctr[4], const uint32_t key[2],
                                                      uint32_t out[4])
{
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3], k0 = key[0], k1 = key[1];
    for (int r = 0; r < 10; r++) {
        const uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

/* A stream address: everything but the draw index. */
typedef struct gnn_rng_stream {
    uint32_t key[2];
    uint32_t ctr_id_lo;
    uint32_t ctr_hi; /* (id_hi & 0xffff) | layer << 16 | tag << 24 */
    uint32_t step;
} gnn_rng_stream;

GNN_RNG_HD static inline gnn_rng_stream gnn_rng_stream_make(uint64_t seed, unsigned tag, uint32_t step,
                                                            unsigned layer, uint64_t id)
{
    gnn_rng_stream s;
    s.key[0] = (uint32_t)(seed & 0xffffffffu);
    s.key[1] = (uint32_t)(seed >> 32);
    s.ctr_id_lo = (uint32_t)(id & 0xffffffffu);
    s.ctr_hi = (uint32_t)((id >> 32) & 0xffffu) | ((uint32_t)(layer & 0xffu) << 16) |
               ((uint32_t)(tag & 0xffu) << 24);
    s.step = step;
    return s;
}

/* Block b of a stream (4 words). */
static inline void gnn_rng_block(const gnn_rng_stream *s, uint32_t block, uint32_t out[4])
{
    const uint32_t ctr[4] = { block, s->ctr_id_lo, s->ctr_hi, s->step };
    gnn_philox4x32_10_inline(ctr, s->key, out);
}

/* Integer draw i in [0, n). n == 0 returns 0. */
static inline uint64_t gnn_rng_uint(const gnn_rng_stream *s, uint64_t i, uint64_t n)
{
    uint32_t w[4];
    gnn_rng_block(s, (uint32_t)(i / 2), w);
    const unsigned k = (unsigned)(i % 2) * 2;
    const uint64_t r = ((uint64_t)w[k + 1] << 32) | w[k];
    return (uint64_t)(((unsigned __int128)r * n) >> 64);
}

/* Float draw i in [0, 1), 24 bits of resolution. */
static inline float gnn_rng_float(const gnn_rng_stream *s, uint64_t i)
{
    uint32_t w[4];
    gnn_rng_block(s, (uint32_t)(i / 4), w);
    return (float)(w[i % 4] >> 8) * (1.0f / 16777216.0f);
}

/* Fisher-Yates shuffle of v[0..n) from the end (DESIGN.md section 2, epoch order):
 * for i = n-1 down to 1: j = uint(i+1) with draw n-1-i; swap v[i], v[j]. */
void gnn_rng_shuffle_i64(const gnn_rng_stream *s, int64_t *v, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
