/* core/impl.c -- the implementation context (include/gnnref/impl.h): the reference context,
 * and the optimized one built from it by the optimized tiers' overrides, once. */
#include <pthread.h>
#include <string.h>
#include "gnnref/impl.h"

static const gnn_impl k_ref = {
    .name = "ref",
    .aggregate = &gnn_aggregate_ref,
    .index_add = &gnn_index_add_ref,
    .nn = &gnn_nn_ref,
    .update = &gnn_update_ref,
    .gat = &gnn_gat_ref,
    .act = &gnn_act_ref,
    .sampler = &gnn_sampler_ref,
    .idmap = &gnn_idmap_ref,
    .hec = &gnn_hec_ref,
    .aep = &gnn_aep_ref,
    .db_halo = &gnn_db_halo_ref,
    .partition = &gnn_partition_ref,
    .spmm = &gnn_spmm_ref,
};

static gnn_impl g_opt;
static pthread_once_t g_opt_once = PTHREAD_ONCE_INIT;

static void init_opt(void)
{
    g_opt = k_ref; /* what no tier overrides stays the reference */
    g_opt.name = "opt";
    gnn_impl_override_cpu(&g_opt);
}

const gnn_impl *gnn_impl_ref(void) { return &k_ref; }

const gnn_impl *gnn_impl_opt(void)
{
    pthread_once(&g_opt_once, init_opt);
    return &g_opt;
}

const gnn_impl *gnn_impl_select(const char *name)
{
    if (!name)
        return NULL;
    if (!strcmp(name, "ref"))
        return gnn_impl_ref();
    if (!strcmp(name, "opt"))
        return gnn_impl_opt();
    return NULL;
}
