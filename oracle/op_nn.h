/* oracle/op_nn.h -- what the linear layer's entries (oracle/op_nn.c: linear.fwd, linear.bwd)
 * share with the fma kernel's (oracle/op_dense.c: dense.fwd, dense.bwd): the case parameters,
 * the run functions (c->entry->ref against c->impl, at the case's tolerance) and the
 * benchmarks; and what oracle/op_nn.c shares with its gradient checks (oracle/op_nn_grad.c):
 * xent's parameters and inputs. Internal to oracle/. */
#ifndef GNNREF_ORACLE_OP_NN_H
#define GNNREF_ORACLE_OP_NN_H
#include <stdint.h>
#include "gnnref/oracle.h"

/* n, in, out, then bias (forward) or dx (backward), and the backward's nulls */
enum { L_N, L_IN, L_OUT, L_OPT, N_LINF_PARAMS, L_NULLS = N_LINF_PARAMS, N_LIN_PARAMS };
extern const gnn_oracle_param gnn_oracle_linf_params[N_LINF_PARAMS], gnn_oracle_linb_params[N_LIN_PARAMS];

/* y = x w + b; dw, db, dx (each optional): the entry's reference against the case's table */
gnn_oracle_outcome gnn_oracle_linear_fwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c);
gnn_oracle_outcome gnn_oracle_linear_bwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c);

/* The comparison of a twin that sums ref's terms in ref's order with fewer roundings (fma, tol
 * {GNN_CMP_VERIFY, a}): mag (M, N) = scale (|init[n]| + sum_k |A(m, k)| |B(k, n)|), the magnitude
 * of each output's terms, in double (A(m, k) = A[m a_rs + k a_cs], B(k, n) = B[k b_rs + n b_cs];
 * init may be NULL), NULL when out of memory; then every element within a (2 terms + 1) 2^-24
 * mag[e] of ref's, NaN failing and infinities matching. */
double *gnn_oracle_gemm_magnitude(gnn_oracle_ctx *ctx, int64_t M, int64_t N, int64_t K, const float *A, int64_t a_rs,
                                  int64_t a_cs, const float *B, int64_t b_rs, int64_t b_cs, const float *init,
                                  double scale);
gnn_oracle_outcome gnn_oracle_compare_rounding(gnn_oracle_ctx *ctx, const gnn_oracle_tol *tol, const char *name,
                                               const float *want, const float *got, const double *mag, int64_t terms,
                                               int64_t count, int64_t cols);

/* xent's parameters and inputs (op_nn.c: xent; op_nn_grad.c: grad.xent): rows, classes,
 * every unl-th row unlabelled, logits in [-scale, scale] */
enum { X_N, X_C, X_UNL, X_SCALE, N_XENT_PARAMS };
extern const gnn_oracle_param gnn_oracle_xent_params[N_XENT_PARAMS];
/* Logits z (n, cls): multiples of 2^-quantum_shift in [-scale, scale]; labels (n) uniform, with
 * every unl-th row unlabelled (-1). */
void gnn_oracle_xent_inputs(const gnn_oracle_case *c, float *z, int32_t *labels, int64_t n, int64_t cls,
                            int quantum_shift);

/* the fma kernel's entries (op_dense.c, op_update.c): SKIP, naming what is missing, when the
 * case's table is a dense-kernel path this CPU (or build) cannot run; PASS otherwise */
gnn_oracle_outcome gnn_oracle_dense_path_check(gnn_oracle_ctx *ctx, const void *ops);

/* n = 16384 rows, 128 -> 128: the forward, and the training backward (dw, db, dx) */
extern const gnn_oracle_bench gnn_oracle_lin_bench_fwd, gnn_oracle_lin_bench_bwd;

#endif
