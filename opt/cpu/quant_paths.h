/* opt/cpu/quant_paths.h -- gnn_quant_cpu with the path of its codes forced (opt/cpu/quant.c).
 *
 * gnn_quant_cpu computes a chunk's codes with AVX-512F where the CPU has it, else AVX2, else
 * SSE2 (every x86-64), and the values past the last whole vector one at a time; elsewhere only
 * one at a time. A machine takes one of these paths, so the oracle (quant.pack) also runs the
 * others through these tables: AVX2 where the CPU has it, SSE2 on every x86-64, the scalar one
 * everywhere. Not for other callers. */
#ifndef GNNREF_OPT_CPU_QUANT_PATHS_H
#define GNNREF_OPT_CPU_QUANT_PATHS_H

#include "gnnref/quant.h"

extern const gnn_quant_ops gnn_quant_cpu_avx2, gnn_quant_cpu_sse2, gnn_quant_cpu_scalar;

#endif
