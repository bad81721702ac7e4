/* opt/cpu/impl_cpu.c -- the OpenMP/SIMD tier's part of the optimized context
 * (include/gnnref/impl.h): it overrides every table that has a cpu implementation.
 * update: the OpenBLAS variant (gnn_update_cpu); gnn_update_blocked is benchmarked and checked
 * by the oracle but not the default. */
#include "gnnref/impl.h"

void gnn_impl_override_cpu(gnn_impl *c)
{
    c->aggregate = &gnn_aggregate_cpu;
    c->index_add = &gnn_index_add_cpu;
    c->nn = &gnn_nn_cpu;
    c->update = &gnn_update_cpu;
    c->gat = &gnn_gat_cpu;
    c->act = &gnn_act_cpu;
    c->sampler = &gnn_sampler_cpu;
    c->idmap = &gnn_idmap_cpu;
    c->hec = &gnn_hec_cpu;
    c->aep = &gnn_aep_cpu;
    c->db_halo = &gnn_db_halo_cpu;
    c->partition = &gnn_partition_cpu;
    c->spmm = &gnn_spmm_cpu;
}

/* the blas context: opt, with the linear layers on OpenBLAS in fixed tiles (opt/cpu/nn_blas.c;
 * ReLU and dropout stay opt/cpu/nn.c's) */
void gnn_impl_override_blas(gnn_impl *c)
{
    c->nn = &gnn_nn_blas;
}
