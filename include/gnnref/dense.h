/* include/gnnref/dense.h -- the dense kernel of the fma context: the linear layer (and the fused
 * UPDATE) with one fixed accumulation order per output element, so that its bits are the same
 * on every x86-64 CPU, at every thread count (docs/dense.md).
 *
 * The order (the bitwise contract; ref/dense.c is its specification, in plain C with fmaf):
 *   y[i][j]  = fma chain over k = 0, 1, ..., in-1, starting from b[j] (0 when b is NULL):
 *              acc = b[j]; acc = fmaf(x[i][k], w[k][j], acc) for k ascending; y[i][j] = acc
 *              (the bias is the chain's first value, not added after it);
 *   dx[i][k] = the chain over j = 0, ..., out-1 from 0: acc = fmaf(dy[i][j], w[k][j], acc);
 *   dw[k][j] = the chain over i = 0, ..., n-1 from 0:   acc = fmaf(x[i][k], dy[i][j], acc);
 *   db[j]    = dy[0][j] + dy[1][j] + ... from 0.0f, separately rounded adds (ref's order, as
 *              nn.h's and the blas table's db).
 * Each step is one fused multiply-add, rounded once (IEEE 754 fusedMultiplyAdd, which fmaf
 * and the vfmadd instructions compute exactly alike), so the result is a function of the
 * inputs alone: no CPU, kernel choice, tiling or thread count can change a bit. It differs
 * from ref's (nn.h: multiply and add each rounded) within the oracle's tolerance.
 *
 * Paths: the same order on three code paths, chosen at run time by the CPU's features:
 *   scalar   plain C with fmaf (any CPU; the fallback),
 *   avx2     AVX2 + FMA registers, 8 lanes across output columns,
 *   avx512   AVX-512F registers, 16 lanes across output columns.
 * The oracle holds the three bitwise to the specification (entries dense.fwd, dense.bwd). The
 * environment variable GNN_DENSE_PATH=scalar|avx2|avx512|auto forces one (the tool refuses a
 * path the CPU lacks with a usage error, gnn_dense_path_from_env); a program may force one
 * with gnn_dense_path_set. */
#ifndef GNNREF_DENSE_H
#define GNNREF_DENSE_H

#include <stdint.h>
#include "gnnref/nn.h"
#include "gnnref/status.h"
#include "gnnref/update.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gnn_dense_path {
    GNN_DENSE_SCALAR = 0, /* fmaf, any CPU */
    GNN_DENSE_AVX2,       /* x86-64 with AVX2 and FMA */
    GNN_DENSE_AVX512,     /* x86-64 with AVX-512F */
    GNN_DENSE_N_PATHS
} gnn_dense_path;

/* "scalar", "avx2", "avx512" ("?" for anything else). */
const char *gnn_dense_path_name(gnn_dense_path p);
/* 1 when this CPU (and this build) can run path p. The scalar path runs everywhere. */
int gnn_dense_path_supported(gnn_dense_path p);
/* The fastest supported path (what runs when nothing is forced). */
gnn_dense_path gnn_dense_path_best(void);
/* The path the fma tables run now: the forced one (gnn_dense_path_set, or GNN_DENSE_PATH when
 * it names a supported path at the first call), else gnn_dense_path_best(). */
gnn_dense_path gnn_dense_path_current(void);
/* Force path p for the whole process (every later call of the fma tables). GNN_ERR_UNSUPPORTED,
 * nothing changed, when the CPU lacks it (err names the path and the missing feature);
 * GNN_ERR_INVAL when p is not a path. Thread-safe; a call already running keeps its path. */
gnn_status gnn_dense_path_set(gnn_dense_path p, gnn_err *err);
/* Apply the environment variable GNN_DENSE_PATH: unset, empty or "auto" keeps the automatic
 * choice; "scalar", "avx2" or "avx512" forces that path. GNN_ERR_INVAL for any other value,
 * GNN_ERR_UNSUPPORTED for a path this CPU lacks, each with a message naming the variable and
 * its value, and nothing changed. The tool calls it before any subcommand runs. */
gnn_status gnn_dense_path_from_env(gnn_err *err);

/* The tables. gnn_nn_fma: the linear layer on the current path (ReLU and dropout are
 * opt/cpu/nn.c's, bitwise ref's). gnn_nn_fma_scalar, _avx2, _avx512: one path each, whatever
 * is forced (the oracle and the benchmarks; on a CPU without the path they run the scalar
 * path, which gives the same bits; the oracle SKIPs them there). gnn_nn_fma_ref: the
 * specification (ref/dense.c). */
extern const gnn_nn_ops gnn_nn_fma, gnn_nn_fma_scalar, gnn_nn_fma_avx2, gnn_nn_fma_avx512, gnn_nn_fma_ref;
/* The fused UPDATE of update.h in the same order: forward y = Dropout(ReLU(z)) with z the
 * linear's fma chain from b (so it equals gnn_nn_fma's linear, then ReLU, then dropout, bit for
 * bit); backward from y: dz = y > 0 ? dy / (1-p) : 0, then dx, dw and db of the linear's
 * backward on dz. gnn_update_fma runs the current path, _scalar/_avx2/_avx512 one path each;
 * gnn_update_fma_ref is the specification (ref/dense.c). */
extern const gnn_update_ops gnn_update_fma, gnn_update_fma_scalar, gnn_update_fma_avx2, gnn_update_fma_avx512,
    gnn_update_fma_ref;

/* The path a table of this header runs (its own, or the current one for gnn_nn_fma and
 * gnn_update_fma); -1 for any other table. */
int gnn_dense_path_of(const void *ops);

/* The specification's bodies (ref/dense.c; unchecked: the public entry points gnn_nn_linear_fwd
 * and _bwd check the arguments). */
void gnn_dense_fwd_ref(const float *x, int64_t n, int64_t in, const float *w, const float *b, int64_t out,
                       float *y);
void gnn_dense_bwd_ref(const float *x, const float *dy, int64_t n, int64_t in, const float *w, int64_t out,
                       float *dx, float *dw, float *db);

#ifdef __cplusplus
}
#endif
#endif
