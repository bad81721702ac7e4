/* core/api/impl.c -- the implementation context (include/gnnref/impl.h): the reference context,
 * and the optimized ones built from it by the optimized tiers' overrides, once each. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "gnnref/cuda.h"
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
    .commplan = &gnn_commplan_ref,
    .quant = &gnn_quant_ref,
    .distagg = &gnn_distagg_ref,
    .rgcn = &gnn_rgcn_ref,
    .hetero = &gnn_hetero_ref,
    .reorder = &gnn_reorder_ref,
};

static gnn_impl g_opt;
static pthread_once_t g_opt_once = PTHREAD_ONCE_INIT;

static void init_opt(void)
{
    g_opt = k_ref; /* what no tier overrides stays the reference */
    g_opt.name = "opt";
    gnn_impl_override_cpu(&g_opt);
}

static gnn_impl g_blas;
static pthread_once_t g_blas_once = PTHREAD_ONCE_INIT;

static void init_blas(void)
{
    g_blas = *gnn_impl_opt();
    g_blas.name = "blas";
    gnn_impl_override_blas(&g_blas);
}

static gnn_impl g_fma;
static pthread_once_t g_fma_once = PTHREAD_ONCE_INIT;

static void init_fma(void)
{
    g_fma = *gnn_impl_opt();
    g_fma.name = "fma";
    gnn_impl_override_fma(&g_fma);
}

static gnn_impl g_cuda, g_cuda_emu;
static pthread_once_t g_cuda_once = PTHREAD_ONCE_INIT, g_cuda_emu_once = PTHREAD_ONCE_INIT;

static void init_cuda(void)
{
    g_cuda = *gnn_impl_opt(); /* what the CUDA tier lacks stays opt's */
    g_cuda.name = "cuda";
    g_cuda.runnable = gnn_cuda_available;
    gnn_impl_override_cuda(&g_cuda);
}

static void init_cuda_emu(void)
{
    g_cuda_emu = *gnn_impl_opt();
    g_cuda_emu.name = "cuda-emu";
    gnn_impl_override_cuda_emu(&g_cuda_emu);
}

const gnn_impl *gnn_impl_cuda(void)
{
    pthread_once(&g_cuda_once, init_cuda);
    return &g_cuda;
}

const gnn_impl *gnn_impl_cuda_emu(void)
{
    pthread_once(&g_cuda_emu_once, init_cuda_emu);
    return &g_cuda_emu;
}

int gnn_impl_runnable(const gnn_impl *c, char *why, size_t cap)
{
    if (why && cap)
        why[0] = '\0';
    if (!c) {
        if (why && cap)
            snprintf(why, cap, "no context");
        return 0;
    }
    return c->runnable ? c->runnable(why, cap) : 1;
}

const gnn_impl *gnn_impl_ref(void) { return &k_ref; }

const gnn_impl *gnn_impl_fma(void)
{
    pthread_once(&g_fma_once, init_fma);
    return &g_fma;
}

const gnn_impl *gnn_impl_blas(void)
{
    pthread_once(&g_blas_once, init_blas);
    return &g_blas;
}

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
    if (!strcmp(name, "blas"))
        return gnn_impl_blas();
    if (!strcmp(name, "fma"))
        return gnn_impl_fma();
    if (!strcmp(name, "cuda"))
        return gnn_impl_cuda();
    if (!strcmp(name, "cuda-emu"))
        return gnn_impl_cuda_emu();
    return NULL;
}
