/* opt/cpu/philox_lanes.h -- Philox4x32-10 blocks of one stream computed side by side
 * (opt/cpu/philox_lanes.c). */
#ifndef GNNREF_OPT_CPU_PHILOX_LANES_H
#define GNNREF_OPT_CPU_PHILOX_LANES_H

#include <stdint.h>
#include "gnnref/rng.h"

/* The words of blocks q0 .. q0+nq-1 of stream s, out[4 (q - q0) + w] = word w of block q,
 * bitwise those of gnn_rng_block; AVX2 lanes where the CPU has AVX2, else portable SIMD. */
void gnn_cpu_philox_blocks(const gnn_rng_stream *s, uint32_t q0, int nq, uint32_t *out);

/* The keyed dropout multipliers of columns c0 .. c0+len-1 of one row, whose stream s is
 * (seed, GNN_TAG_DROPOUT, step, layer, row id) (DESIGN.md section 2): m[j] = scale when float
 * draw c0 + j of s is >= p, else 0 -- gnn_dropout_fwd's mask, bit for bit (scale is
 * 1/(1-p) computed in f32 by the caller, as there). c0 >= 0, len >= 0, any alignment. The
 * one place opt/cpu turns Philox words into a dropout mask: the fused UPDATE epilogue
 * (opt/cpu/update_epilogue.c) and the dropout of the nn table (opt/cpu/nn.c) both call it. */
void gnn_cpu_dropout_mask(const gnn_rng_stream *s, int64_t c0, int64_t len, float p, float scale, float *m);

/* 1 when gnn_cpu_philox_blocks runs on AVX2 (x86-64 with AVX2), else 0. */
int gnn_cpu_philox_have_avx2(void);

/* Each path on its own, for the oracle (rng.lanes), so that the path this CPU does not take
 * is checked too: the portable one always runs; the AVX2 one returns 0 without writing where
 * the CPU or the build has no AVX2, else 1. */
void gnn_cpu_philox_blocks_portable(const gnn_rng_stream *s, uint32_t q0, int nq, uint32_t *out);
int gnn_cpu_philox_blocks_avx2(const gnn_rng_stream *s, uint32_t q0, int nq, uint32_t *out);
/* The same for the AVX-512F path (taken by gnn_cpu_philox_blocks for nq >= 12 where the CPU
 * has AVX-512F). */
int gnn_cpu_philox_blocks_avx512(const gnn_rng_stream *s, uint32_t q0, int nq, uint32_t *out);
int gnn_cpu_philox_have_avx512(void);

#endif
