/* oracle/registry.c -- THE registry: every operation once (DESIGN.md section 3).
 *
 * `gnnref oracle`, tests/test_oracle.c and bench/bench_registry.c iterate this table and
 * nothing else. To add an op: write its entry next to its kind in oracle/op_*.c (see
 * docs/oracle.md, "Adding an op"), declare it below and list it in the table. */
#include <stddef.h>
#include "gnnref/oracle.h"

extern const gnn_oracle_entry gnn_oracle_rng_philox_kat, gnn_oracle_rng_draws, gnn_oracle_rng_lanes, gnn_oracle_crc32c_kat;
extern const gnn_oracle_entry gnn_oracle_sample_uniform, gnn_oracle_sample_uniform_dist, gnn_oracle_sample_weighted,
    gnn_oracle_sample_weighted_dist, gnn_oracle_block_build;
extern const gnn_oracle_entry gnn_oracle_idmap_build, gnn_oracle_idmap_fused;
extern const gnn_oracle_entry gnn_oracle_sample_layer, gnn_oracle_sample_layer_fusedmap, gnn_oracle_sample_blocks,
    gnn_oracle_sample_blocks_fusedmap;
extern const gnn_oracle_entry gnn_oracle_aggregate_mean_fwd, gnn_oracle_aggregate_mean_bwd,
    gnn_oracle_aggregate_sum_fwd, gnn_oracle_aggregate_sum_bwd;
/* aggregation modes and index_add (GCN, edge-weighted; SuperGCN section 2) */
extern const gnn_oracle_entry gnn_oracle_aggregate_gcn_fwd, gnn_oracle_aggregate_gcn_bwd,
    gnn_oracle_aggregate_weighted_fwd, gnn_oracle_aggregate_weighted_bwd, gnn_oracle_grad_aggregate_gcn,
    gnn_oracle_grad_aggregate_weighted, gnn_oracle_index_add;
extern const gnn_oracle_entry gnn_oracle_linear_fwd, gnn_oracle_linear_bwd, gnn_oracle_xent, gnn_oracle_relu,
    gnn_oracle_dropout;
extern const gnn_oracle_entry gnn_oracle_grad_aggregate_mean, gnn_oracle_grad_aggregate_sum, gnn_oracle_grad_linear,
    gnn_oracle_grad_xent, gnn_oracle_grad_relu, gnn_oracle_grad_dropout;
/* the fma context's fixed-order FMA kernel, every path (oracle/op_dense.c) */
extern const gnn_oracle_entry gnn_oracle_dense_fwd, gnn_oracle_dense_bwd, gnn_oracle_dense_fma1;
/* fused UPDATE, DistGNN-MB 3.3 (oracle/op_update.c) */
extern const gnn_oracle_entry gnn_oracle_update_fwd, gnn_oracle_update_bwd, gnn_oracle_grad_update,
    gnn_oracle_update_fma_fwd, gnn_oracle_update_fma_bwd;
/* sparse input features: CSR x dense, its dW, gather and dropout (oracle/op_spmm.c) */
extern const gnn_oracle_entry gnn_oracle_spmm_fwd, gnn_oracle_spmm_dw, gnn_oracle_spmm_input;
/* GAT attention/aggregation, ELU and LayerNorm (oracle/op_gat.c, oracle/op_act.c) */
extern const gnn_oracle_entry gnn_oracle_gat_fwd, gnn_oracle_gat_bwd, gnn_oracle_gat_bwd_dattn, gnn_oracle_grad_gat;
extern const gnn_oracle_entry gnn_oracle_elu_fwd, gnn_oracle_elu_bwd, gnn_oracle_layernorm_fwd, gnn_oracle_layernorm_bwd,
    gnn_oracle_grad_elu, gnn_oracle_grad_layernorm;
/* graph partitioning: the partition structure, DistGNN-MB 3.1 (oracle/op_partition.c) */
extern const gnn_oracle_entry gnn_oracle_partition_build, gnn_oracle_partition_verify, gnn_oracle_partition_files;
/* the ldg streaming part vector, Stanton and Kliot (oracle/op_partition_ldg.c) */
extern const gnn_oracle_entry gnn_oracle_partition_ldg;
/* SuperGCN's communication plan: pre/post/hybrid/degree per rank pair (oracle/op_commplan.c) */
extern const gnn_oracle_entry gnn_oracle_commplan_build, gnn_oracle_commplan_verify;
/* SuperGCN's quantized rows: int2/4/8 pack and unpack, stochastic rounding (oracle/op_quant.c) */
extern const gnn_oracle_entry gnn_oracle_quant_pack, gnn_oracle_quant_unpack, gnn_oracle_quant_stochastic;
/* SuperGCN's distributed aggregation, forward and backward, under the simulator (oracle/op_distagg.c) */
extern const gnn_oracle_entry gnn_oracle_distagg_fwd, gnn_oracle_distagg_bwd;
/* DistDGLv2's distributed sampling under the simulator (oracle/op_dsample.c) */
extern const gnn_oracle_entry gnn_oracle_dsample_blocks;
/* sampling per edge type (oracle/op_sample_typed.c) */
extern const gnn_oracle_entry gnn_oracle_sample_typed;
/* FastGL's Match-Reorder (oracle/op_reorder.c) */
extern const gnn_oracle_entry gnn_oracle_reorder_degree, gnn_oracle_reorder_order, gnn_oracle_reorder_assemble;
/* the feature store's push of sparse-embedding gradients (oracle/op_kvpush.c) */
extern const gnn_oracle_entry gnn_oracle_kvstore_push;
/* the relational graph convolution (oracle/op_rgcn.c) */
extern const gnn_oracle_entry gnn_oracle_rgcn_fwd, gnn_oracle_rgcn_bwd, gnn_oracle_grad_rgcn;
extern const gnn_oracle_entry gnn_oracle_grad_train, gnn_oracle_grad_fullbatch;
extern const gnn_oracle_entry gnn_oracle_hetero_ids; /* partition books, type-wise ids (oracle/op_hetero.c) */
/* db_halo (DistGNN-MB Algorithm 1) and the hybrid-partitioning feature store (oracle/op_halo.c) */
extern const gnn_oracle_entry gnn_oracle_partition_db_halo, gnn_oracle_partition_db_halo_agree, gnn_oracle_kvstore_pull;
/* DistGNN-MB's Asynchronous Embedding Push: which solid vertices are pushed (oracle/op_aep.c) */
extern const gnn_oracle_entry gnn_oracle_aep_select;
/* code that ref and opt share, against verifiers written from its header (oracle/op_shared.c) */
extern const gnn_oracle_entry gnn_oracle_aep_verify, gnn_oracle_sample_blocks_layers;
/* the Historical Embedding Cache, DistGNN-MB 3.2 (oracle/op_hec.c) */
extern const gnn_oracle_entry gnn_oracle_hec_ops, gnn_oracle_hec_verify;
/* distributed training on partitions: drop, HEC + AEP, fetch (oracle/op_train_part.c) */
extern const gnn_oracle_entry gnn_oracle_train_part, gnn_oracle_train_part_single;
/* the communicator's shared code and the simulator's faults, against verifiers written from
 * docs/comm.md and docs/simulator.md (oracle/op_comm.c: allreduce and checks;
 * oracle/op_comm_layouts.c: alltoallv and allgatherv; oracle/op_comm_faults.c: sim.faults) */
extern const gnn_oracle_entry gnn_oracle_comm_allreduce, gnn_oracle_comm_alltoallv, gnn_oracle_comm_allgatherv,
    gnn_oracle_comm_checks, gnn_oracle_sim_faults;

const gnn_oracle_entry *const gnn_oracle_registry[] = {
    /* core services */
    &gnn_oracle_rng_philox_kat,
    &gnn_oracle_rng_draws,
    &gnn_oracle_rng_lanes,
    &gnn_oracle_crc32c_kat,
    /* sampling (DESIGN.md section 2, "Uses" and "Orders") */
    &gnn_oracle_sample_uniform,
    &gnn_oracle_sample_uniform_dist,
    &gnn_oracle_sample_weighted,
    &gnn_oracle_sample_weighted_dist,
    &gnn_oracle_block_build,
    /* ID maps and the optimized samplers against the reference pipeline */
    &gnn_oracle_idmap_build,
    &gnn_oracle_idmap_fused,
    &gnn_oracle_sample_layer,
    &gnn_oracle_sample_layer_fusedmap,
    &gnn_oracle_sample_blocks,
    &gnn_oracle_sample_blocks_fusedmap,
    &gnn_oracle_sample_blocks_layers,
    /* aggregation */
    &gnn_oracle_aggregate_mean_fwd,
    &gnn_oracle_aggregate_mean_bwd,
    &gnn_oracle_aggregate_sum_fwd,
    &gnn_oracle_aggregate_sum_bwd,
    /* aggregation modes and index_add: GCN, edge-weighted (with their gradient checks) */
    &gnn_oracle_aggregate_gcn_fwd,
    &gnn_oracle_aggregate_gcn_bwd,
    &gnn_oracle_aggregate_weighted_fwd,
    &gnn_oracle_aggregate_weighted_bwd,
    &gnn_oracle_grad_aggregate_gcn,
    &gnn_oracle_grad_aggregate_weighted,
    &gnn_oracle_index_add,
    /* dense layers and training primitives */
    &gnn_oracle_linear_fwd,
    &gnn_oracle_linear_bwd,
    &gnn_oracle_xent,
    &gnn_oracle_relu,
    &gnn_oracle_dropout,
    /* the fma kernel: each path bitwise to its specification (oracle/op_dense.c) */
    &gnn_oracle_dense_fwd,
    &gnn_oracle_dense_bwd,
    &gnn_oracle_dense_fma1,
    /* gradient checks: every backward in ref against finite differences */
    &gnn_oracle_grad_aggregate_mean,
    &gnn_oracle_grad_aggregate_sum,
    &gnn_oracle_grad_linear,
    &gnn_oracle_grad_xent,
    &gnn_oracle_grad_relu,
    &gnn_oracle_grad_dropout,
    /* fused UPDATE y = Dropout(ReLU(x . w + b)), DistGNN-MB 3.3 (oracle/op_update.c) */
    &gnn_oracle_update_fwd,
    &gnn_oracle_update_bwd,
    &gnn_oracle_grad_update,
    &gnn_oracle_update_fma_fwd,
    &gnn_oracle_update_fma_bwd,
    /* sparse input features (oracle/op_spmm.c) */
    &gnn_oracle_spmm_fwd,
    &gnn_oracle_spmm_dw,
    &gnn_oracle_spmm_input,
    /* GAT attention/aggregation, ELU and LayerNorm (oracle/op_gat.c, oracle/op_act.c) */
    &gnn_oracle_gat_fwd,
    &gnn_oracle_gat_bwd,
    &gnn_oracle_gat_bwd_dattn,
    &gnn_oracle_grad_gat,
    &gnn_oracle_elu_fwd,
    &gnn_oracle_elu_bwd,
    &gnn_oracle_layernorm_fwd,
    &gnn_oracle_layernorm_bwd,
    &gnn_oracle_grad_elu,
    &gnn_oracle_grad_layernorm,
    /* graph partitioning: the partition structure, DistGNN-MB 3.1 (oracle/op_partition.c) */
    &gnn_oracle_partition_build,
    &gnn_oracle_partition_verify,
    &gnn_oracle_partition_files,
    &gnn_oracle_partition_ldg, /* oracle/op_partition_ldg.c */
    /* SuperGCN's communication plan (oracle/op_commplan.c) */
    &gnn_oracle_commplan_build,
    &gnn_oracle_commplan_verify,
    /* SuperGCN's quantized rows (oracle/op_quant.c) */
    &gnn_oracle_quant_pack,
    &gnn_oracle_quant_unpack,
    &gnn_oracle_quant_stochastic,
    /* SuperGCN's distributed aggregation (oracle/op_distagg.c) */
    &gnn_oracle_distagg_fwd,
    &gnn_oracle_distagg_bwd,
    /* DistDGLv2's distributed sampling (oracle/op_dsample.c) */
    &gnn_oracle_dsample_blocks,
    &gnn_oracle_sample_typed,
    &gnn_oracle_reorder_degree,
    &gnn_oracle_reorder_order,
    &gnn_oracle_reorder_assemble,
    &gnn_oracle_kvstore_push,
    &gnn_oracle_rgcn_fwd,
    &gnn_oracle_rgcn_bwd,
    &gnn_oracle_grad_rgcn,
    &gnn_oracle_hetero_ids,
    /* db_halo (DistGNN-MB Algorithm 1) and the feature store, under the simulator (oracle/op_halo.c) */
    &gnn_oracle_partition_db_halo,
    &gnn_oracle_partition_db_halo_agree,
    &gnn_oracle_kvstore_pull,
    /* DistGNN-MB AEP (oracle/op_aep.c) */
    &gnn_oracle_aep_select,
    &gnn_oracle_aep_verify,
    /* the Historical Embedding Cache, DistGNN-MB 3.2 (oracle/op_hec.c) */
    &gnn_oracle_hec_ops,
    &gnn_oracle_hec_verify,
    /* the trainers' own steps against finite differences (oracle/op_grad_train.c) */
    &gnn_oracle_grad_train,
    &gnn_oracle_grad_fullbatch,
    /* distributed training on partitions (oracle/op_train_part.c) */
    &gnn_oracle_train_part,
    &gnn_oracle_train_part_single,
    /* the communicator and the simulator's faults (oracle/op_comm.c, op_comm_layouts.c, op_comm_faults.c) */
    &gnn_oracle_comm_allreduce,
    &gnn_oracle_comm_alltoallv,
    &gnn_oracle_comm_allgatherv,
    &gnn_oracle_comm_checks,
    &gnn_oracle_sim_faults,
    NULL,
};
