/* include/gnnref/quant.h -- quantized rows: int2, int4 and int8 (and fp32 as the identity) for
 * the boundary rows SuperGCN sends (SuperGCN Sec. 1.4 "Stochastic Integer Quantization" and
 * Sec. 2 "Quantization of communication to Int2"; next-capabilities.md A.3; docs/quant.md).
 *
 * ---- bytes on the wire (the one formula; the traffic matrix must equal it) ----
 * A row of d values at b bits (b = 2, 4, 8) is ceil(d b / 8) bytes of packed codes (8/b codes
 * per byte, row-major, first element in the high bits, the row padded to a whole byte with zero
 * bits) plus GNN_QUANT_PARAM_BYTES = 4 bytes of parameters (Z, S as two bf16 values). fp32
 * (b = 32) is the identity: 4 d bytes, no parameters. A message of n rows is n times one row:
 *     gnn_quant_message_bytes(n, d, b) = n * gnn_quant_row_bytes(d, b). */
#ifndef GNNREF_QUANT_H
#define GNNREF_QUANT_H

#include <stdint.h>
#include "gnnref/rng.h"
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GNN_QUANT_PARAM_BYTES 4 /* per quantized row: Z and S as bf16, little-endian, Z first */

/* Bytes of one row of d values at `bits` per value, parameters included: 32 gives 4 d; 2, 4, 8
 * give ceil(d bits / 8) + 4. -1 for another bit width or d < 0. */
int64_t gnn_quant_row_bytes(int64_t d, int bits);
/* The packed codes of one row alone: ceil(d bits / 8) (4 d for 32); -1 as above. */
int64_t gnn_quant_data_bytes(int64_t d, int bits);
/* A message of n rows: n * gnn_quant_row_bytes(d, bits); -1 for bad arguments or overflow. */
int64_t gnn_quant_message_bytes(int64_t n, int64_t d, int bits);

typedef enum gnn_quant_round {
    GNN_QUANT_STOCHASTIC = 0, /* the paper's rounding (Sec. 1.4), unbiased: the default */
    GNN_QUANT_NEAREST = 1     /* ties to even: what the public SuperGCN code runs */
} gnn_quant_round;

/* How a message is quantized, and the address of its random draws (DESIGN.md section 2):
 * row i's stream is (seed, GNN_TAG_QUANT, step, layer 2 * layer + dir, id = row_gid[i]); its
 * element f takes the 16-bit draw i = draw0 + f (gnn_quant_draw16: half i % 2 of word
 * (i / 2) % 4 of block i / 8, half 0 the low 16 bits, the block taken mod 2^32), so one Philox
 * block serves 8 values. draw0 (a multiple of 4) names the message within the step:
 * gnn_quant_draw0 gives next-capabilities.md A.3's ((kind P + sender) P + receiver) F8, a
 * multiple of 8 (every row starts on a block). So every draw is a function of the row's
 * identity, never of its position, the thread or the rank. */
typedef struct gnn_quant_cfg {
    int bits;              /* 2, 4, 8; or 32, the identity */
    gnn_quant_round round; /* stochastic or nearest */
    uint64_t seed;         /* the run's seed */
    uint32_t step;         /* the epoch */
    unsigned layer;        /* the model layer l, < 128 */
    unsigned dir;          /* 0 forward (features), 1 backward (gradients) */
    uint64_t draw0;        /* first draw of every row, a multiple of 4 (gnn_quant_draw0: of 8) */
} gnn_quant_cfg;

/* ((kind P + sender) P + receiver) F8, F8 = d rounded up to a multiple of 8; kind 0 post rows,
 * 1 pre rows (next-capabilities.md A.3, "Random-number addressing" and its 16-bit decision). */
uint64_t gnn_quant_draw0(unsigned kind, int64_t ranks, int64_t sender, int64_t receiver, int64_t d);

/* ---- the rule (ref/quant.c is the specification; @sec{SuperGCN 1.4}) ----
 * Per row h of d values (bits b, M = 2^b - 1):
 *   Z = bf16 of (min h + 0) rounded toward -inf (+0 for a zero min; the lowest finite bf16 where
 *       that would be -inf); S0 = (float)(((double)max h - Z) / M), S = bf16 of S0 rounded toward
 *       +inf; S = 1 when S0 is not positive (a row equal to Z: every constant row whose value
 *       bf16 holds, the all-zero rows among them, gets codes 0 and decodes to itself exactly).
 *   Z is rounded down and S up so that every value lies in [Z, Z + M S] up to the f32 rounding
 *   of S0: the clamp below then almost never fires and stochastic rounding stays unbiased.
 *   k = 0.5 when max h - Z overflows f32 (a range wider than FLT_MAX), else 1;
 *   r = (h k - Z k) / (S k), then r = min(max(r, -1), M + 1)  (f32; k = 1 is the textbook
 *       (h - Z) / S bit for bit; the clamp only keeps the integer conversion defined);
 *   stochastic: t = floorf(r), frac = r - t (exact), c = ceil(frac 65536) as an integer in
 *       0 .. 65536 (frac 65536 is exact: a power of two), q = t + (u16 < c), u16 the element's
 *       16-bit draw (gnn_quant_draw16); that is q = t + (u16 2^-16 < frac) computed exactly,
 *       so P(up) = ceil(frac 2^16) / 2^16: unbiased to within 2^-16 of a step;
 *   nearest:    q = nearbyintf(r) (ties to even);
 *   q = min(max(q, 0), M).  NOT floor(r + u): f32 rounds 3 + 0.99999994 to 4, an int2 code of 4
 *       (next-capabilities.md A.3, "the float32 trap"); and r at the row max can exceed M by
 *       an ulp, so the clamp is part of the rule.
 *   decode: k' = 0.5 when M S overflows f32, else 1; h' = ((float)q * (S k') + Z k') / k', each
 *       step rounded (no FMA), then clamped to [-FLT_MAX, FLT_MAX] (k' = 1 is the textbook
 *       q S + Z bit for bit; without k' a range wider than FLT_MAX decodes to inf, and the top
 *       code of a row whose max is near FLT_MAX can round past it).
 * Then |h - h'| <= S (stochastic; S/2 nearest) up to a few ulps of max(|Z|, |h|); a row whose
 * min is below the lowest finite bf16 (-3.3895e38) is the one exception (values below Z decode
 * to Z). Inputs must be finite: NaN or Inf give unspecified codes (never outside [0, M]). */
typedef struct gnn_quant_ops {
    const char *name; /* "ref", "cpu" */
    unsigned caps;
    /* quantize + pack: x (n, d) f32 -> data (n, gnn_quant_data_bytes(d, bits)) bytes and
     * params (n, 4) bytes (NULL for bits 32); row_gid (n): the rows' global ids (stochastic).
     * GNN_OK, or why the implementation could not (a device out of memory or lost: the CUDA
     * tables); the arguments are checked by gnn_quant_pack before. */
    gnn_status (*pack)(const float *x, int64_t n, int64_t d, const int64_t *row_gid, const gnn_quant_cfg *q,
                       uint8_t *data, uint8_t *params);
    /* unpack + dequantize: data, params as pack writes them -> x (n, d); pad bits are ignored.
     * GNN_OK, or why not (as pack) */
    gnn_status (*unpack)(const uint8_t *data, const uint8_t *params, int64_t n, int64_t d, int bits, float *x);
} gnn_quant_ops;
extern const gnn_quant_ops gnn_quant_ref, gnn_quant_cpu;
/* The CUDA tier (docs/cuda.md): `cuda` on a GPU (needs gnn_cuda_available, include/gnnref/cuda.h;
 * without nvcc the table has no ops), `cuda-emu` the same kernel bodies through the CPU
 * emulator (slow; for tests). Both bitwise ref's. */
extern const gnn_quant_ops gnn_quant_cuda, gnn_quant_cuda_emu;

/* Checked entry points (core/ops/quant.c). GNN_ERR_INVAL, nothing written: ops or q NULL; n < 0,
 * d < 0; bits not 2, 4, 8, 32; round not one of the two; layer > 127; dir > 1; draw0 not a
 * multiple of 4; a NULL array that has elements (x, data; params unless bits is 32; row_gid
 * when stochastic with bits < 32). GNN_ERR_UNSUPPORTED: ops lacks the op. Otherwise what the
 * implementation returns (a device's failure: the outputs' contents are then unspecified). */
gnn_status gnn_quant_pack(const gnn_quant_ops *ops, const float *x, int64_t n, int64_t d, const int64_t *row_gid,
                          const gnn_quant_cfg *q, uint8_t *data, uint8_t *params);
gnn_status gnn_quant_unpack(const gnn_quant_ops *ops, const uint8_t *data, const uint8_t *params, int64_t n, int64_t d,
                            int bits, float *x);

/* ---- the pieces of the rule, for the oracle, the tests and a reader (ref/quant.c; unchecked) */

/* The 16-bit draw i of a row's stream st: half i % 2 of word (i / 2) % 4 of Philox block
 * (uint32_t)(i / 8) of st, half 0 being the low 16 bits (on a little-endian machine the block's
 * words read as 8 uint16 values in memory order are draws 8b .. 8b + 7). */
uint32_t gnn_quant_draw16(const gnn_rng_stream *st, uint64_t i);

/* bf16 <-> f32: the high 16 bits of the f32. */
static inline float gnn_bf16_to_f32(uint16_t h)
{
    union { uint32_t u; float f; } v;
    v.u = (uint32_t)h << 16;
    return v.f;
}
/* The parameters of one row of d >= 1 values (the rule above), as bf16 bits; and the same from
 * the row's min and max (what the rule reads of the row). A row of d = 0 values gets Z = +0,
 * S = 1. */
void gnn_quant_row_params_ref(const float *row, int64_t d, int bits, uint16_t *z, uint16_t *s);
void gnn_quant_range_params_ref(float mn, float mx, int bits, uint16_t *z, uint16_t *s);
/* Codes (n, d), each < 2^bits, packed into data (n, gnn_quant_data_bytes(d, bits)) with zero
 * pad bits, and back (pad bits ignored). bits 2, 4 or 8. */
void gnn_quant_codes_pack_ref(const uint8_t *codes, int64_t n, int64_t d, int bits, uint8_t *data);
void gnn_quant_codes_unpack_ref(const uint8_t *data, int64_t n, int64_t d, int bits, uint8_t *codes);

/* Reference bodies of the table (ref/quant.c; unchecked: the entry points check). */
gnn_status gnn_quant_pack_ref(const float *x, int64_t n, int64_t d, const int64_t *row_gid, const gnn_quant_cfg *q,
                              uint8_t *data, uint8_t *params);
gnn_status gnn_quant_unpack_ref(const uint8_t *data, const uint8_t *params, int64_t n, int64_t d, int bits, float *x);

#ifdef __cplusplus
}
#endif
#endif
