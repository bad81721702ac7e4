/* ref/update.c -- the fused UPDATE of DistGNN-MB, reference (include/gnnref/update.h).
 *
 *     z = x . w + b,   y = Dropout(ReLU(z))                          @sec{DistGNN-MB 3.3}
 *
 * The paper fuses the dot product, the bias, ReLU and dropout so that each output block is
 * finished while it sits in cache (section 3.3, "Operator Fusion"). This file is the
 * specification of what the fused kernel computes, written as plain loops with nothing
 * fused: each z[i][j] = b[j] + x[i][0] w[0][j] + x[i][1] w[1][j] + ... in c order (as
 * gnn_linear_fwd_ref), then y = (z > 0 ? z : 0) * m[i][j] with the keyed dropout mask m of
 * gnn_dropout_fwd (DESIGN.md section 2): row i reads stream (seed, DROPOUT, step, layer,
 * id = row_gid ? row_gid[i] : i), column j keeps when float draw j >= p, kept values are
 * multiplied by 1/(1-p) (computed in f32, as gnn_dropout_fwd does).
 *
 * Backward from y alone: y[i][j] > 0 exactly where z > 0 and the element was kept (the scale
 * 1/(1-p) >= 1 keeps a positive value positive), so
 *     dz[i][j] = y[i][j] > 0 ? dy[i][j] * (1/(1-p)) : 0,
 *     dw[c][j] = sum_i x[i][c] dz[i][j] (i ascending),  db[j] = sum_i dz[i][j] (i ascending),
 *     dx[i][c] = sum_j dz[i][j] w[c][j] (j ascending).
 * dz is recomputed where it is needed instead of stored (no allocation).
 *
 * The argument rules of update.h are applied once, by the public entry points
 * (gnn_update_forward and _backward, core/ops/kernels.c), for every implementation alike: the
 * functions here assume valid input. */
#include <stddef.h>
#include <string.h>
#include "gnnref/rng.h"
#include "gnnref/update.h"

static gnn_status update_fwd_ref(const float *x, int64_t n, int64_t c, const float *w, const float *b,
                                 int64_t k, const gnn_dropout_key *key, float *y)
{
    const float p = key ? key->p : 0.0f;
    const float scale = 1.0f / (1.0f - p);
    for (int64_t i = 0; i < n; i++) {
        float *y_i = y + i * k;
        /* z = x . w + b, each output summed in c order */
        for (int64_t j = 0; j < k; j++)
            y_i[j] = b ? b[j] : 0.0f;
        for (int64_t cc = 0; cc < c; cc++) {
            const float x_ic = x[i * c + cc];
            const float *w_c = w + cc * k;
            for (int64_t j = 0; j < k; j++)
                y_i[j] += x_ic * w_c[j];
        }
        /* ReLU */
        for (int64_t j = 0; j < k; j++)
            y_i[j] = y_i[j] > 0.0f ? y_i[j] : 0.0f;
        /* keyed dropout; p == 0 keeps everything with scale 1, so it is skipped (x * 1.0f == x) */
        if (p > 0.0f) {
            const uint64_t id = key->row_gid ? (uint64_t)key->row_gid[i] : (uint64_t)i;
            const gnn_rng_stream st = gnn_rng_stream_make(key->seed, GNN_TAG_DROPOUT, key->step, key->layer, id);
            uint32_t words[4];
            for (int64_t j = 0; j < k; j++) {
                if (j % 4 == 0) /* float draw j = word j%4 of block j/4 */
                    gnn_rng_block(&st, (uint32_t)(j / 4), words);
                const float u = (float)(words[j % 4] >> 8) * (1.0f / 16777216.0f);
                y_i[j] *= u >= p ? scale : 0.0f;
            }
        }
    }
    return GNN_OK;
}

/* dz[i][j] from y and dy (the only place the backward looks at y). */
static inline float dz_at(const float *y, const float *dy, int64_t idx, float scale)
{
    return y[idx] > 0.0f ? dy[idx] * scale : 0.0f;
}

static gnn_status update_bwd_ref(const float *x, const float *y, const float *dy, int64_t n, int64_t c,
                                 const float *w, int64_t k, float p, float *dx, float *dw, float *db)
{
    const float scale = 1.0f / (1.0f - p);
    /* dw = x^T dz, summed over rows i in order */
    if (c > 0 && k > 0)
        memset(dw, 0, (size_t)c * (size_t)k * sizeof(float));
    for (int64_t i = 0; i < n; i++)
        for (int64_t cc = 0; cc < c; cc++) {
            const float x_ic = x[i * c + cc];
            float *dw_c = dw + cc * k;
            for (int64_t j = 0; j < k; j++)
                dw_c[j] += x_ic * dz_at(y, dy, i * k + j, scale);
        }
    /* db = column sums of dz */
    if (db) {
        for (int64_t j = 0; j < k; j++)
            db[j] = 0.0f;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < k; j++)
                db[j] += dz_at(y, dy, i * k + j, scale);
    }
    /* dx = dz w^T, each output summed over j in order */
    if (dx)
        for (int64_t i = 0; i < n; i++)
            for (int64_t cc = 0; cc < c; cc++) {
                float acc = 0.0f;
                for (int64_t j = 0; j < k; j++)
                    acc += dz_at(y, dy, i * k + j, scale) * w[cc * k + j];
                dx[i * c + cc] = acc;
            }
    return GNN_OK;
}

const gnn_update_ops gnn_update_ref = {
    .name = "ref",
    .caps = 1u, /* GNN_CAP_DETERMINISTIC */
    .forward = update_fwd_ref,
    .backward = update_bwd_ref,
};
