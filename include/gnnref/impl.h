/* include/gnnref/impl.h -- the implementation context: every subsystem's ops table in one
 * struct, the one place where an implementation is chosen (docs/architecture.md, "The
 * implementation context").
 *
 * In the spirit of BLIS's context (config/<arch>/bli_cntx_init_<arch>.c): the "ref" context
 * holds the reference of every subsystem; the "opt" context starts as a copy of it and each
 * optimized tier overrides only the tables it has (opt/cpu/impl_cpu.c; the "fma" and "blas"
 * contexts are opt with one more override each, for the dense layers). So an optimized tier can grow one op at a time,
 * and whatever it lacks falls back to the reference.
 *
 * The "cuda" and "cuda-emu" contexts are opt with the CUDA tier's tables on top (opt/cuda/impl_cuda.c):
 * aggregation, quantized rows, the sampler and the ID map run the GPU kernels (cuda) or the same
 * kernel bodies on the CPU through the emulator (cuda-emu); every other table stays opt's.
 *
 * The model, the trainers, the HEC, the partitioner, the samplers and the CLI take a context
 * (gnn_train_config.impl, the CLI's --impl ref|opt|fma|blas|cuda|cuda-emu); no other code chooses between
 * them. The oracle still names implementations one by one (it checks each table against the
 * reference), and benchmarks time them one by one. */
#ifndef GNNREF_IMPL_H
#define GNNREF_IMPL_H

#include <stddef.h>
#include "gnnref/act.h"
#include "gnnref/aep.h"
#include "gnnref/aggregate.h"
#include "gnnref/commplan.h"
#include "gnnref/distagg.h"
#include "gnnref/gat.h"
#include "gnnref/halo.h"
#include "gnnref/hec.h"
#include "gnnref/hetero.h"
#include "gnnref/idmap.h"
#include "gnnref/index_add.h"
#include "gnnref/nn.h"
#include "gnnref/partition.h"
#include "gnnref/quant.h"
#include "gnnref/reorder.h"
#include "gnnref/rgcn.h"
#include "gnnref/sample.h"
#include "gnnref/spmm.h"
#include "gnnref/update.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gnn_impl {
    const char *name;                      /* "ref", "opt", "fma", "blas", "cuda", "cuda-emu" */
    int (*runnable)(char *why, size_t cap); /* NULL: runs anywhere; else 0 with the reason when not here */
    const gnn_aggregate_ops *aggregate;    /* neighbor aggregation (aggregate.h) */
    const gnn_index_add_ops *index_add;    /* scatter-add by index (index_add.h) */
    const gnn_nn_ops *nn;                  /* linear layer, ReLU, dropout (nn.h) */
    const gnn_update_ops *update;          /* DistGNN-MB's fused UPDATE (update.h) */
    const gnn_gat_ops *gat;                /* graph attention (gat.h) */
    const gnn_act_ops *act;                /* ELU, LayerNorm (act.h) */
    const gnn_sampler_ops *sampler;        /* neighbor sampler objects (sample.h) */
    const gnn_idmap_ops *idmap;            /* global-to-local ID maps (idmap.h) */
    const gnn_hec_ops *hec;                /* historical embedding cache (hec.h) */
    const gnn_aep_ops *aep;                /* HEC push selection (aep.h) */
    const gnn_db_halo_ops *db_halo;        /* DistGNN-MB Algorithm 1 (halo.h) */
    const gnn_partition_ops *partition;    /* partition structure builder (partition.h) */
    const gnn_spmm_ops *spmm;              /* sparse input features: CSR x dense (spmm.h) */
    const gnn_commplan_ops *commplan;      /* SuperGCN pre/post/hybrid communication plan (commplan.h) */
    const gnn_quant_ops *quant;            /* SuperGCN int2/4/8 quantized rows (quant.h) */
    const gnn_distagg_ops *distagg;        /* SuperGCN distributed aggregation (distagg.h) */
    const gnn_rgcn_ops *rgcn;              /* relational graph convolution (rgcn.h) */
    const gnn_hetero_ops *hetero;          /* partition books and type-wise ids (hetero.h) */
    const gnn_reorder_ops *reorder;        /* FastGL Match-Reorder (reorder.h) */
} gnn_impl;

/* The reference context: every table is the subsystem's reference. */
const gnn_impl *gnn_impl_ref(void);
/* The optimized context: the reference, overridden by every optimized table in this build. */
const gnn_impl *gnn_impl_opt(void);
/* The optimized context with the dense layers and the fused UPDATE on the fixed-order FMA
 * kernel (gnn_nn_fma and gnn_update_fma, include/gnnref/dense.h, opt/cpu/dense.c): everything
 * else is opt's. Each output of a linear layer is one chain of fused multiply-adds in k order,
 * so its step losses differ from ref's and opt's within the oracle's stated tolerance, but are
 * the same bits on every x86-64 CPU (whichever of its scalar, AVX2 and AVX-512 paths runs), at
 * every thread count and rank count and between the simulator and mpirun; no OpenBLAS is called
 * (docs/dense.md, docs/models.md section 7). The CLI's `train` runs it by default. */
const gnn_impl *gnn_impl_fma(void);
/* The optimized context with the dense layers on OpenBLAS (gnn_nn_blas, opt/cpu/nn_blas.c) and
 * the fused UPDATE too (gnn_update_cpu): everything else is opt's. Its linear layers sum in
 * OpenBLAS's order, which OpenBLAS chooses by CPU at run time (OPENBLAS_CORETYPE): its step
 * losses differ from ref's within the oracle's tolerance and from one CPU model to another;
 * they are the same bits at every thread count and rank count and between the simulator and
 * mpirun on one machine. For those who accept CPU-dependent bits for speed (`--impl blas`). */
const gnn_impl *gnn_impl_blas(void);
/* The optimized context with the CUDA tier's tables (opt/cuda/impl_cuda.c, docs/cuda.md section 7):
 * aggregation (gnn_aggregate_cuda), quantized rows (gnn_quant_cuda), the sampler
 * (gnn_sampler_cuda) and the ID map (gnn_idmap_cuda); everything else is opt's. Each of the four is
 * bitwise its reference (the Fused-Map ID map kind up to its canonical relabelling, as the cpu
 * one), so its step losses are opt's. Weighted sampling is not ported: a weighted sampler
 * refuses with GNN_ERR_UNSUPPORTED. It needs a GPU: runnable is gnn_cuda_available. */
const gnn_impl *gnn_impl_cuda(void);
/* The same context with the `cuda-emu` tables: the same kernel bodies and host logic run on the
 * CPU through the emulator (opt/cuda/emu.h). Slow, for checking; runs in every build. */
const gnn_impl *gnn_impl_cuda_emu(void);
/* "ref", "opt", "fma", "blas", "cuda" or "cuda-emu"; NULL for any other name (the CLI turns that
 * into a usage error). A context is returned even where it cannot run: ask gnn_impl_runnable. */
const gnn_impl *gnn_impl_select(const char *name);
/* 1 when c can run on this machine; else 0 with the reason in why (cap bytes, may be NULL):
 * the cuda context on a build without CUDA or a machine without a usable GPU
 * (gnn_cuda_available's reason). 0 with "no context" for NULL. */
int gnn_impl_runnable(const gnn_impl *c, char *why, size_t cap);

/* The override functions of the optimized tiers, applied in order by gnn_impl_opt (each sets
 * only the fields it has an implementation for). */
void gnn_impl_override_cpu(gnn_impl *c);
/* fma: applied after the cpu override by gnn_impl_fma */
void gnn_impl_override_fma(gnn_impl *c);
/* blas: applied after the cpu override by gnn_impl_blas */
void gnn_impl_override_blas(gnn_impl *c);
/* cuda, cuda-emu: applied after the cpu override by gnn_impl_cuda and gnn_impl_cuda_emu (the
 * CUDA tier's tables, or their emulated twins; opt/cuda/impl_cuda.c) */
void gnn_impl_override_cuda(gnn_impl *c);
void gnn_impl_override_cuda_emu(gnn_impl *c);

#ifdef __cplusplus
}
#endif
#endif
