/* opt/cuda/sample_nocuda.c -- the CUDA sampler and ID map tables of a build without nvcc (or with
 * NO_CUDA=1): the Makefile compiles opt/cuda/ *_nocuda.c only then, in place of opt/cuda/sample.cu
 * and opt/cuda/idmap.cu. The `cuda` tables exist (the oracle and the tests name them) and refuse
 * everything with GNN_ERR_UNSUPPORTED; gnn_cuda_available (include/gnnref/cuda.h) says why, and
 * the oracle reports their cases as SKIP. The `cuda-emu` tables are built either way. */
#include "gnnref/aggregate.h" /* GNN_CAP_* */
#include "gnnref/idmap.h"
#include "gnnref/sample.h"

static gnn_status nocuda_create(void **state, gnn_idmap_kind kind, int64_t n_vertices)
{
    (void)kind;
    (void)n_vertices;
    *state = NULL;
    return GNN_ERR_UNSUPPORTED;
}
static gnn_status nocuda_build(void *state, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                               int32_t *local, int64_t *src_gid, int64_t *n_src)
{
    (void)state, (void)dst, (void)n_dst, (void)nbr, (void)nnz, (void)local, (void)src_gid, (void)n_src;
    return GNN_ERR_UNSUPPORTED;
}
static void nocuda_destroy(void *state) { (void)state; }

const gnn_idmap_ops gnn_idmap_cuda = {
    .name = "cuda",
    .caps = GNN_CAP_DETERMINISTIC,
    .create = nocuda_create,
    .build = nocuda_build,
    .destroy = nocuda_destroy,
};

static gnn_status nocuda_s_create(void **state, const gnn_csr *g, const gnn_sampler_options *o)
{
    (void)g;
    (void)o;
    *state = NULL;
    return GNN_ERR_UNSUPPORTED;
}
static gnn_status nocuda_s_layer(void *state, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                                 gnn_block *out)
{
    (void)state, (void)seeds, (void)n_seeds, (void)p, (void)out;
    return GNN_ERR_UNSUPPORTED;
}
static void nocuda_s_destroy(void *state) { (void)state; }

const gnn_sampler_ops gnn_sampler_cuda = {
    .name = "cuda",
    .caps = GNN_CAP_DETERMINISTIC,
    .create = nocuda_s_create,
    .layer = nocuda_s_layer,
    .blocks = NULL,
    .destroy = nocuda_s_destroy,
};
