/* opt/cpu/philox_lanes.h -- Philox4x32-10 blocks of one stream computed side by side
 * (opt/cpu/philox_lanes.c). */
#ifndef GNNREF_OPT_CPU_PHILOX_LANES_H
#define GNNREF_OPT_CPU_PHILOX_LANES_H

#include <stdint.h>
#include "gnnref/rng.h"

/* The words of blocks q0 .. q0+nq-1 of stream s, out[4 (q - q0) + w] = word w of block q,
 * bitwise those of gnn_rng_block; AVX2 lanes where the CPU has AVX2, else portable SIMD. */
void gnn_cpu_philox_blocks(const gnn_rng_stream *s, uint32_t q0, int nq, uint32_t *out);

/* 1 when gnn_cpu_philox_blocks runs on AVX2 (x86-64 with AVX2), else 0. */
int gnn_cpu_philox_have_avx2(void);

#endif
