/* opt/cpu/quant_paths.h -- gnn_quant_cpu with the path of its codes forced (opt/cpu/quant.c,
 * opt/cpu/quant_unpack.c), and what the two files share.
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

/* The paths (opt/cpu/quant.c, opt/cpu/quant_unpack.c): AUTO takes AVX-512F, else AVX2, else
 * SSE2 (pack) where the CPU has them. */
enum { PATH_AUTO = 0, PATH_AVX2 = 1, PATH_SSE2 = 2, PATH_SCALAR = 3 };

/* unpack + dequantize (opt/cpu/quant_unpack.c) by path: AUTO, AVX2 forced, and the plain loop */
gnn_status gnn_quant_cpu_unpack(const uint8_t *data, const uint8_t *params, int64_t n, int64_t d, int bits, float *x);
gnn_status gnn_quant_cpu_unpack_avx2(const uint8_t *data, const uint8_t *params, int64_t n, int64_t d, int bits, float *x);
gnn_status gnn_quant_cpu_unpack_plain(const uint8_t *data, const uint8_t *params, int64_t n, int64_t d, int bits, float *x);

#endif
