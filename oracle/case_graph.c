/* oracle/case_graph.c -- the generated graphs that the sampler and partition entries share:
 * R-MAT (Graph500 parameters: a hub, many isolated vertices) or a 4-class SBM (70% of the
 * expected degree inside the class), 2^scale vertices, no features or labels. */
#include "gnnref/dataset.h"
#include "gnnref/oracle.h"

static void free_dataset(void *p) { gnn_dataset_free(p); }

gnn_status gnn_oracle_case_dataset(gnn_dataset *ds, int gen, int scale, int64_t ef, uint64_t seed, gnn_err *err)
{
    if (gen == 0) {
        gnn_rmat_params rp;
        gnn_rmat_defaults(&rp);
        rp.scale = scale;
        rp.edge_factor = (int)ef;
        rp.seed = seed;
        rp.num_features = 0;
        rp.num_classes = 0;
        return gnn_gen_rmat(ds, &rp, err);
    }
    gnn_sbm_params sp;
    gnn_sbm_defaults(&sp);
    sp.n = (int64_t)1 << scale;
    sp.classes = 4;
    sp.deg_in = 0.7 * (double)ef;
    sp.deg_out = 0.3 * (double)ef;
    sp.num_features = 0;
    sp.noise = 0;
    sp.seed = seed;
    sp.train = sp.val = sp.test = 0;
    return gnn_gen_sbm(ds, &sp, err);
}

gnn_oracle_outcome gnn_oracle_case_graph(gnn_oracle_ctx *ctx, int gen, int scale, int64_t ef, uint64_t seed,
                                         const gnn_csr **g)
{
    gnn_dataset *ds = gnn_oracle_alloc(ctx, sizeof *ds);
    if (!ds)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_err err = { "" };
    const gnn_status st = gnn_oracle_case_dataset(ds, gen, scale, ef, seed, &err);
    if (st)
        return gnn_oracle_fail(ctx, "graph generator: %s (%s)", gnn_status_str(st), err.msg);
    gnn_oracle_defer(ctx, free_dataset, ds);
    *g = &ds->graph;
    return GNN_ORACLE_PASS;
}
