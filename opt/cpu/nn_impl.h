/* opt/cpu/nn_impl.h -- internal: the element-wise steps of opt/cpu/nn.c (ReLU and keyed
 * dropout, bitwise ref's), shared by the optimized nn tables: gnn_nn_cpu (the bitwise loop
 * linear layer), gnn_nn_blas (opt/cpu/nn_blas.c: the linear layer on OpenBLAS) and gnn_nn_fma
 * (opt/cpu/dense.c: the fixed-order FMA kernel). Not a
 * public header; the contracts are gnn_relu_fwd's, gnn_relu_bwd's, gnn_dropout_fwd's and
 * gnn_dropout_bwd's in include/gnnref/nn.h. */
#ifndef GNNREF_OPT_NN_IMPL_H
#define GNNREF_OPT_NN_IMPL_H

#include <stdint.h>

void gnn_cpu_relu_fwd(float *x, int64_t count);
void gnn_cpu_relu_bwd(const float *y, float *dy, int64_t count);
void gnn_cpu_dropout_fwd(float *x, int64_t n, int64_t d, const int64_t *row_gid, float p, uint64_t seed,
                         uint32_t step, unsigned layer, float *mask);
void gnn_cpu_dropout_bwd(float *dy, int64_t n, int64_t d, const float *mask);
/* db (out) = column sums of dy (n, out), each over the rows in order from 0.0f (ref's bits),
 * columns over the threads (opt/cpu/nn.c) */
void gnn_cpu_col_sums(const float *dy, int64_t n, int64_t out, float *db);

/* OpenBLAS to one thread for the rest of the process (a no-op when it already is): OpenMP is
 * the one parallel level of the optimized tier, and a single-threaded sgemm per fixed tile is
 * what makes gnn_nn_blas's bits independent of the thread count (opt/cpu/nn_blas.c). */
void gnn_cpu_blas_single_thread(void);

/* Rows of a weight gradient's tile (dw (in, out) = x^T dy, cut along `in`, each tile one sgemm
 * over every row of x): a function of `in` only, never of the thread count, so the tiling and
 * therefore the bits are the same at any thread count. About 8 tiles of at least 16 rows, at
 * most 128 (a K-panel of OpenBLAS's packed A stays in L2). Shared by gnn_nn_blas and the cpu
 * UPDATE. */
static inline int64_t gnn_cpu_dw_tile_rows(int64_t in)
{
    int64_t r = (in + 7) / 8;
    r = (r + 15) / 16 * 16;
    return r < 16 ? 16 : r > 128 ? 128 : r;
}

#endif
