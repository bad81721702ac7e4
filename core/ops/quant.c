/* core/ops/quant.c -- the byte formula of quantized rows and the checked entry points of the
 * quantize/pack and unpack/dequantize table (include/gnnref/quant.h, docs/quant.md).
 *
 * As core/ops/spmm.c does: every gnn_quant_<op>(ops, ...) checks its arguments once, here, then
 * dispatches to the table it is given, whose bodies (ref/quant.c, opt/cpu/quant.c) assume
 * valid input. */
#include "gnnref/quant.h"

static int bits_ok(int bits) { return bits == 2 || bits == 4 || bits == 8 || bits == 32; }

int64_t gnn_quant_data_bytes(int64_t d, int bits)
{
    if (d < 0 || !bits_ok(bits) || d > INT64_MAX / 32)
        return -1;
    return bits == 32 ? 4 * d : (d * bits + 7) / 8; /* each row padded to a whole byte */
}

int64_t gnn_quant_row_bytes(int64_t d, int bits)
{
    const int64_t b = gnn_quant_data_bytes(d, bits);
    if (b < 0)
        return -1;
    return bits == 32 ? b : b + GNN_QUANT_PARAM_BYTES;
}

int64_t gnn_quant_message_bytes(int64_t n, int64_t d, int bits)
{
    const int64_t r = gnn_quant_row_bytes(d, bits);
    if (r < 0 || n < 0 || (r > 0 && n > INT64_MAX / r))
        return -1;
    return n * r;
}

uint64_t gnn_quant_draw0(unsigned kind, int64_t ranks, int64_t sender, int64_t receiver, int64_t d)
{
    const uint64_t f8 = ((uint64_t)d + 7) / 8 * 8; /* whole Philox blocks: 8 draws of 16 bits each */
    return (((uint64_t)kind * (uint64_t)ranks + (uint64_t)sender) * (uint64_t)ranks + (uint64_t)receiver) * f8;
}

static int missing(const void *p, int64_t count) { return !p && count > 0; }

gnn_status gnn_quant_pack(const gnn_quant_ops *ops, const float *x, int64_t n, int64_t d, const int64_t *row_gid,
                          const gnn_quant_cfg *q, uint8_t *data, uint8_t *params)
{
    if (!ops || !ops->pack)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (!q || n < 0 || d < 0 || !bits_ok(q->bits) || (q->round != GNN_QUANT_STOCHASTIC && q->round != GNN_QUANT_NEAREST) ||
        q->layer > 127 || q->dir > 1 || q->draw0 % 4 != 0)
        return GNN_ERR_INVAL;
    const int64_t bytes = gnn_quant_message_bytes(n, d, q->bits);
    if (bytes < 0 || (d > 0 && n > INT64_MAX / d))
        return GNN_ERR_INVAL;
    const int quantized = q->bits != 32;
    if (missing(x, n * d) || missing(data, n * gnn_quant_data_bytes(d, q->bits)) || (quantized && missing(params, n)) ||
        (quantized && q->round == GNN_QUANT_STOCHASTIC && missing(row_gid, n)))
        return GNN_ERR_INVAL;
    return ops->pack(x, n, d, row_gid, q, data, params);
}

gnn_status gnn_quant_unpack(const gnn_quant_ops *ops, const uint8_t *data, const uint8_t *params, int64_t n, int64_t d,
                            int bits, float *x)
{
    if (!ops || !ops->unpack)
        return ops ? GNN_ERR_UNSUPPORTED : GNN_ERR_INVAL;
    if (n < 0 || d < 0 || !bits_ok(bits) || gnn_quant_message_bytes(n, d, bits) < 0 || (d > 0 && n > INT64_MAX / d))
        return GNN_ERR_INVAL;
    if (missing(x, n * d) || missing(data, n * gnn_quant_data_bytes(d, bits)) || (bits != 32 && missing(params, n)))
        return GNN_ERR_INVAL;
    return ops->unpack(data, params, n, d, bits, x);
}
