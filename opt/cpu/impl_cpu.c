/* opt/cpu/impl_cpu.c -- the OpenMP/SIMD tier's part of the optimized context
 * (include/gnnref/impl.h): it overrides every table that has a cpu implementation.
 * update: cpu-blocked (the paper's blocked layout, ref's summation order), so that the layers
 * that run the fused UPDATE (core/train/model.c) keep ref's bits under opt; the OpenBLAS kernel
 * (gnn_update_cpu) is the blas context's. */
#include "gnnref/dense.h"
#include "gnnref/impl.h"

void gnn_impl_override_cpu(gnn_impl *c)
{
    c->aggregate = &gnn_aggregate_cpu;
    c->index_add = &gnn_index_add_cpu;
    c->nn = &gnn_nn_cpu;
    c->update = &gnn_update_blocked; /* ref's order: opt's step losses are ref's bits */
    c->gat = &gnn_gat_cpu;
    c->act = &gnn_act_cpu;
    c->sampler = &gnn_sampler_cpu;
    c->idmap = &gnn_idmap_cpu;
    c->hec = &gnn_hec_cpu;
    c->aep = &gnn_aep_cpu;
    c->db_halo = &gnn_db_halo_cpu;
    c->partition = &gnn_partition_cpu;
    c->spmm = &gnn_spmm_cpu;
    c->commplan = &gnn_commplan_cpu;
    c->quant = &gnn_quant_cpu;
    c->distagg = &gnn_distagg_cpu;
    c->rgcn = &gnn_rgcn_cpu;
    c->hetero = &gnn_hetero_cpu;
    c->reorder = &gnn_reorder_cpu;
}

/* the blas context: opt, with the linear layers and the fused UPDATE on OpenBLAS in fixed tiles
 * (opt/cpu/nn_blas.c, opt/cpu/update.c; ReLU and dropout stay opt/cpu/nn.c's) */
void gnn_impl_override_blas(gnn_impl *c)
{
    c->nn = &gnn_nn_blas;
    c->update = &gnn_update_cpu;
}

/* the fma context: opt, with the linear layers and the fused UPDATE on the fixed-order FMA
 * kernel (opt/cpu/dense.c, opt/cpu/update_fma.c): the same bits on every CPU, no OpenBLAS */
void gnn_impl_override_fma(gnn_impl *c)
{
    c->nn = &gnn_nn_fma;
    c->update = &gnn_update_fma;
}
