/* opt/cpu/update_impl.h -- internal: the fused bias + ReLU + dropout epilogue shared by the
 * two optimized UPDATE kernels (opt/cpu/update.c, opt/cpu/update_blocked.c). Not a public
 * header. (The argument checks every implementation shares are the public entry points'
 * work, in core/ops/kernels.c.) */
#ifndef GNNREF_OPT_UPDATE_IMPL_H
#define GNNREF_OPT_UPDATE_IMPL_H

#include <stdint.h>
#include "gnnref/update.h"

/* Finish an output block in place @sec{DistGNN-MB 3.3} ("Operator Fusion"): for rows
 * row0 .. row0+rows-1 of the whole output and columns j0 .. j0+cols-1,
 *     y <- (y + b[j] > 0 ? y + b[j] : 0) * m[row][j]
 * where y points at element (row0, j0) with leading dimension ldy, b may be NULL (then no
 * bias is added: the block already holds x . w + b, or there is none), and m is the keyed
 * dropout multiplier of gnn_dropout_fwd (nothing is multiplied when key is NULL or p == 0).
 * The Philox blocks of a row are generated several at a time in SIMD lanes; the values are
 * those of gnn_rng_block, so the mask is bit-identical to gnn_dropout_fwd's. */
void gnn_update_epilogue(float *y, int64_t ldy, int64_t row0, int64_t rows, int64_t j0, int64_t cols,
                         const float *b, const gnn_dropout_key *key);

/* dz = (y > 0 ? dy * scale : 0) for `count` contiguous elements (the backward's one pass). */
void gnn_update_dz(const float *y, const float *dy, float scale, int64_t count, float *dz);

#endif
