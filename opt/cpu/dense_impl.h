/* opt/cpu/dense_impl.h -- internal: the micro-kernels of the dense kernel (opt/cpu/dense.c) and
 * the GEMM driver that the fma linear layer (opt/cpu/dense.c) and the fma UPDATE
 * (opt/cpu/update_fma.c) share. Not a public header; the contract is include/gnnref/dense.h.
 *
 * A micro-kernel computes one MR x NR block of C = A . B, every element one FMA chain over
 * k = 0 .. kc-1 in order, starting from the block's current values (load), or from init[j]
 * (init != NULL), or from 0:
 *     acc[r][j] = load ? c[r*ldc + j] : init ? init[j] : 0
 *     acc[r][j] = fma(a[r*a_rs + k*a_cs], b[k*ldb + j], acc[r][j])   for k = 0, 1, ..., kc-1
 *     c[r*ldc + j] = acc[r][j]
 * for every r < MR and j < NR: all MR rows of a and NR columns of b must be readable, and all
 * of c writable (the driver gives edge blocks padded copies). Each lane of a vector FMA is one
 * correctly rounded fma, so every path gives fmaf's bits. */
#ifndef GNNREF_OPT_DENSE_IMPL_H
#define GNNREF_OPT_DENSE_IMPL_H

#include <stdint.h>
#include <string.h>
#include "gnnref/dense.h"

/* fmaf(a, b, c), exactly, with double arithmetic only (the scalar path's FMA where the compiler
 * has no FMA instruction; opt/cpu/dense.c says why it is exact). */
static inline float gnn_dense_fma1_emulated(float a, float b, float c)
{
    const double p = (double)a * (double)b, dc = (double)c;
    const double s = p + dc, z = s - p;
    const double e = (p - (s - z)) + (dc - z); /* p + c = s + e exactly */
    uint64_t u, ue;
    memcpy(&u, &s, sizeof u);
    memcpy(&ue, &e, sizeof ue);
    /* round to odd: when s is inexact, even and finite, its neighbour toward p + c (one step of
     * the bit pattern: up in magnitude when e has s's sign, down otherwise). Without branches: the
     * parity of s is as good as random, and a mispredicted branch cost three times the rest. */
    const uint64_t fix = (uint64_t)((e != 0.0) & (int)(~u & 1u) &
                                    ((u & 0x7ff0000000000000ull) != 0x7ff0000000000000ull));
    u += fix * (1u - 2u * ((u ^ ue) >> 63));
    double r;
    memcpy(&r, &u, sizeof r);
    return (float)r;
}
/* the same over n triples (the oracle's dense.fma1) */
typedef void (*gnn_dense_fma_fn)(const float *a, const float *b, const float *c, int64_t n, float *r);
void gnn_dense_fma_emulated(const float *a, const float *b, const float *c, int64_t n, float *r);

typedef void (*gnn_dense_ukr)(int64_t kc, const float *a, int64_t a_rs, int64_t a_cs, const float *b, int64_t ldb,
                              float *c, int64_t ldc, const float *init, int load);

typedef struct gnn_dense_kernel {
    int mr, nr;        /* register block: rows (broadcast from a) x columns (vector lanes of b) */
    gnn_dense_ukr ukr;
} gnn_dense_kernel;

/* the paths' micro-kernels (opt/cpu/dense_avx2.c, dense_avx512.c; the scalar one is in
 * dense.c). On a build without x86-64 intrinsics the AVX ones are absent (NULL ukr). */
extern const gnn_dense_kernel gnn_dense_kernel_scalar, gnn_dense_kernel_avx2, gnn_dense_kernel_avx512;

/* The kernel of path p, or of the current path when p < 0; the scalar one when the CPU lacks p. */
const gnn_dense_kernel *gnn_dense_kernel_of(int p);

/* One GEMM C (M x N) = A (M x K) . B (K x N) with strided operands, A(m, k) = A[m*a_rs + k*a_cs],
 * B(k, n) = B[k*b_rs + n*b_cs], C(m, n) = C[m*ldc + n]; every element the chain of dense.h from
 * init[n] (init NULL: 0). Threads over tiles of C fixed by the shapes and the kernel; K is cut
 * into panels, the chain going on from the value stored by the previous panel (a float stored
 * and loaded back is exact). epilogue (may be NULL) is called once per tile, after its last
 * panel, on C's rows row0 .. row0+rows-1 and columns col0 .. col0+cols-1 (the fused UPDATE's
 * bias-free ReLU and dropout, while the tile is in cache). */
typedef struct gnn_dense_gemm {
    int64_t M, N, K;
    const float *A;
    int64_t a_rs, a_cs;
    const float *B;
    int64_t b_rs, b_cs;
    float *C;
    int64_t ldc;
    const float *init;
    void (*epilogue)(void *ctx, float *c, int64_t ldc, int64_t row0, int64_t rows, int64_t col0, int64_t cols);
    void *epi_ctx;
} gnn_dense_gemm;

/* GNN_ERR_NOMEM when a packing buffer cannot be allocated (nothing is written then). */
gnn_status gnn_dense_gemm_run(const gnn_dense_kernel *kr, const gnn_dense_gemm *g);

/* The three GEMMs of the linear layer on kernel kr (dense.h's orders); NOMEM as above. */
gnn_status gnn_dense_fwd(const gnn_dense_kernel *kr, const float *x, int64_t n, int64_t in, const float *w,
                         const float *b, int64_t out, float *y);
gnn_status gnn_dense_dx(const gnn_dense_kernel *kr, const float *dy, int64_t n, int64_t in, const float *w,
                        int64_t out, float *dx);
gnn_status gnn_dense_dw(const gnn_dense_kernel *kr, const float *x, const float *dy, int64_t n, int64_t in,
                        int64_t out, float *dw);

#endif
