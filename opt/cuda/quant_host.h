/* opt/cuda/quant_host.h -- host logic of the quantization kernels (opt/cuda/quant_body.h),
 * included by opt/cuda/quant.cu (a GPU) and opt/cuda/quant_emu.c (the emulator). The ops
 * table's pack and unpack return the device's failure (no memory, a lost device) as a
 * gnn_status (include/gnnref/quant.h); the outputs are then also set to 0xFF bytes, which no
 * correct pack or unpack writes into the params, so a caller that dropped the status still
 * sees a mismatch in the oracle. docs/cuda.md. */
#ifndef GNNREF_OPT_CUDA_QUANT_HOST_H
#define GNNREF_OPT_CUDA_QUANT_HOST_H

#include "opt/cuda/quant_body.h"

static inline gnn_status qk_pack_st(const float *x, int64_t n, int64_t d, const int64_t *row_gid, const gnn_quant_cfg *q,
                             uint8_t *data, uint8_t *params)
{
    gnn_status st = GNN_OK;
    float *d_x = NULL;
    int64_t *d_gid = NULL;
    uint8_t *d_data = NULL, *d_par = NULL;
    gnn_qk_pack_args a;
    const int64_t rb = gnn_quant_data_bytes(d, q->bits);
    if (q->bits == 32) { /* the identity: the host's float bytes */
        if (n * d > 0)
            memcpy(data, x, (size_t)(n * d) * sizeof(float));
        return GNN_OK;
    }
    if (n == 0)
        return GNN_OK;
    GNN_K_CHECK(GNN_K_ALLOC(&d_x, (size_t)(n * d) * sizeof(float)));
    GNN_K_CHECK(GNN_K_PUT(d_x, x, (size_t)(n * d) * sizeof(float)));
    if (row_gid) {
        GNN_K_CHECK(GNN_K_ALLOC(&d_gid, (size_t)n * sizeof(int64_t)));
        GNN_K_CHECK(GNN_K_PUT(d_gid, row_gid, (size_t)n * sizeof(int64_t)));
    }
    GNN_K_CHECK(GNN_K_ALLOC(&d_data, (size_t)(n * rb)));
    GNN_K_CHECK(GNN_K_ALLOC(&d_par, (size_t)n * GNN_QUANT_PARAM_BYTES));
    a.x = d_x;
    a.gid = d_gid;
    a.data = d_data;
    a.params = d_par;
    a.n = n;
    a.d = d;
    a.rb = rb;
    a.bits = q->bits;
    a.round = (int)q->round;
    a.key0 = (uint32_t)(q->seed & 0xffffffffu);
    a.key1 = (uint32_t)(q->seed >> 32);
    a.ctr_hi_base = ((uint32_t)((2 * q->layer + q->dir) & 0xffu) << 16) | ((uint32_t)(GNN_TAG_QUANT & 0xff) << 24);
    a.step = q->step;
    a.draw0 = q->draw0;
    GNN_K_CHECK(GNN_K_LAUNCH(gnn_qk_pack, gnn_k_dim((unsigned)n, 1, 1), gnn_k_dim(GNN_QK_T, 1, 1),
                             GNN_QK_PACK_SHARED, a));
    GNN_K_CHECK(GNN_K_SYNC());
    GNN_K_CHECK(GNN_K_GET(data, d_data, (size_t)(n * rb)));
    GNN_K_CHECK(GNN_K_GET(params, d_par, (size_t)n * GNN_QUANT_PARAM_BYTES));
done:
    GNN_K_FREE(d_x);
    GNN_K_FREE(d_gid);
    GNN_K_FREE(d_data);
    GNN_K_FREE(d_par);
    return st;
}

static inline gnn_status qk_unpack_st(const uint8_t *data, const uint8_t *params, int64_t n, int64_t d, int bits, float *x)
{
    gnn_status st = GNN_OK;
    uint8_t *d_data = NULL, *d_par = NULL;
    float *d_x = NULL;
    gnn_qk_unpack_args a;
    const int64_t rb = gnn_quant_data_bytes(d, bits);
    if (bits == 32) {
        if (n * d > 0)
            memcpy(x, data, (size_t)(n * d) * sizeof(float));
        return GNN_OK;
    }
    if (n == 0 || d == 0)
        return GNN_OK;
    GNN_K_CHECK(GNN_K_ALLOC(&d_data, (size_t)(n * rb)));
    GNN_K_CHECK(GNN_K_PUT(d_data, data, (size_t)(n * rb)));
    GNN_K_CHECK(GNN_K_ALLOC(&d_par, (size_t)n * GNN_QUANT_PARAM_BYTES));
    GNN_K_CHECK(GNN_K_PUT(d_par, params, (size_t)n * GNN_QUANT_PARAM_BYTES));
    GNN_K_CHECK(GNN_K_ALLOC(&d_x, (size_t)(n * d) * sizeof(float)));
    a.data = d_data;
    a.params = d_par;
    a.x = d_x;
    a.n = n;
    a.d = d;
    a.rb = rb;
    a.bits = bits;
    GNN_K_CHECK(GNN_K_LAUNCH(gnn_qk_unpack, gnn_k_dim((unsigned)n, 1, 1), gnn_k_dim(GNN_QK_T, 1, 1), 0, a));
    GNN_K_CHECK(GNN_K_SYNC());
    GNN_K_CHECK(GNN_K_GET(x, d_x, (size_t)(n * d) * sizeof(float)));
done:
    GNN_K_FREE(d_data);
    GNN_K_FREE(d_par);
    GNN_K_FREE(d_x);
    return st;
}

static inline gnn_status qk_pack(const float *x, int64_t n, int64_t d, const int64_t *row_gid,
                                 const gnn_quant_cfg *q, uint8_t *data, uint8_t *params)
{
    const gnn_status st = qk_pack_st(x, n, d, row_gid, q, data, params);
    if (st != GNN_OK) {
        memset(data, 0xff, (size_t)(n * gnn_quant_data_bytes(d, q->bits)));
        if (params)
            memset(params, 0xff, (size_t)n * GNN_QUANT_PARAM_BYTES);
    }
    return st;
}

static inline gnn_status qk_unpack(const uint8_t *data, const uint8_t *params, int64_t n, int64_t d, int bits,
                                   float *x)
{
    const gnn_status st = qk_unpack_st(data, params, n, d, bits, x);
    if (st != GNN_OK)
        memset(x, 0xff, (size_t)(n * d) * sizeof(float));
    return st;
}

#endif
