/* opt/cpu/update_epilogue.c -- the fused bias + ReLU + dropout epilogue of the optimized
 * UPDATE kernels (opt/cpu/update_impl.h), applied to an output block right after its GEMM,
 * while the block is still in cache @sec{DistGNN-MB 3.3} ("Operator Fusion").
 *
 * The costly part is the dropout mask: one Philox4x32-10 block (ten rounds of two 32x32->64
 * multiplies) per four outputs. A chunk's mask comes from gnn_cpu_dropout_mask
 * (opt/cpu/philox_lanes.c: consecutive blocks of a row one per SIMD lane, AVX2 where the CPU
 * has it), the same helper as the nn table's dropout (opt/cpu/nn.c). The words are exactly
 * those of gnn_rng_block, so the mask is bit-identical to gnn_dropout_fwd's (oracle:
 * update.fwd checks every dropped element against the stream). */
#include <stddef.h>
#include <string.h>
#include "gnnref/rng.h"
#include "opt/cpu/philox_lanes.h"
#include "opt/cpu/clones.h"
#include "opt/cpu/update_impl.h"


#define CHUNK_BLOCKS 64 /* Philox blocks per chunk: 256 columns */

GNN_CLONES
void gnn_update_epilogue(float *y, int64_t ldy, int64_t row0, int64_t rows, int64_t j0, int64_t cols,
                         const float *b, const gnn_dropout_key *key)
{
    const float p = key ? key->p : 0.0f;
    const float scale = 1.0f / (1.0f - p);
    const float *bj = b ? b + j0 : NULL;
    if (!(p > 0.0f)) { /* bias and ReLU only */
        for (int64_t r = 0; r < rows; r++) {
            float *y_r = y + r * ldy;
            if (bj) {
#pragma omp simd
                for (int64_t j = 0; j < cols; j++) {
                    const float z = y_r[j] + bj[j];
                    y_r[j] = z > 0.0f ? z : 0.0f;
                }
            } else {
#pragma omp simd
                for (int64_t j = 0; j < cols; j++)
                    y_r[j] = y_r[j] > 0.0f ? y_r[j] : 0.0f;
            }
        }
        return;
    }
    float mask[4 * CHUNK_BLOCKS];
    for (int64_t r = 0; r < rows; r++) {
        float *y_r = y + r * ldy;
        const int64_t i = row0 + r;
        const uint64_t id = key->row_gid ? (uint64_t)key->row_gid[i] : (uint64_t)i;
        const gnn_rng_stream st = gnn_rng_stream_make(key->seed, GNN_TAG_DROPOUT, key->step, key->layer, id);
        /* columns in chunks of up to 4 CHUNK_BLOCKS starting at a multiple of 4 (a block edge) */
        for (int64_t c0 = j0; c0 < j0 + cols;) {
            const int64_t qa = c0 / 4;                          /* first Philox block */
            int64_t c1 = (qa + CHUNK_BLOCKS) * 4;               /* chunk end (exclusive) */
            if (c1 > j0 + cols)
                c1 = j0 + cols;
            const int64_t len = c1 - c0;
            gnn_cpu_dropout_mask(&st, c0, len, p, scale, mask);
            float *yc = y_r + (c0 - j0);
            if (bj) {
                const float *bc = bj + (c0 - j0);
#pragma omp simd
                for (int64_t j = 0; j < len; j++) {
                    const float z = yc[j] + bc[j];
                    yc[j] = (z > 0.0f ? z : 0.0f) * mask[j];
                }
            } else {
#pragma omp simd
                for (int64_t j = 0; j < len; j++)
                    yc[j] = (yc[j] > 0.0f ? yc[j] : 0.0f) * mask[j];
            }
            c0 = c1;
        }
    }
}

GNN_CLONES
void gnn_update_dz(const float *y, const float *dy, float scale, int64_t count, float *dz)
{
#pragma omp simd
    for (int64_t e = 0; e < count; e++)
        dz[e] = y[e] > 0.0f ? dy[e] * scale : 0.0f;
}
