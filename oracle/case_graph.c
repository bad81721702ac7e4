/* oracle/case_graph.c -- the generated graphs that the sampler and partition entries share:
 * R-MAT (Graph500 parameters: a hub, many isolated vertices) or a 4-class SBM (70% of the
 * expected degree inside the class), 2^scale vertices, no features or labels. */
#include <string.h>
#include "gnnref/dataset.h"
#include "gnnref/oracle.h"
#include "gnnref/partition.h"
#include "gnnref/tensor.h"

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

static void free_csr(void *p) { gnn_csr_free(p); }

gnn_status gnn_oracle_case_multigraph(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, const gnn_csr *g, gnn_csr *out)
{
    const int64_t n = g->n;
    memset(out, 0, sizeof *out);
    out->indptr = gnn_malloc(((size_t)n + 1) * sizeof(int64_t));
    out->indices = gnn_malloc((size_t)(g->nnz + 2 * n + 1) * sizeof(int64_t));
    out->owns = 1;
    out->n = n;
    if (!out->indptr || !out->indices) {
        gnn_csr_free(out);
        return GNN_ERR_NOMEM;
    }
    gnn_oracle_defer(ctx, free_csr, out);
    gnn_oracle_draws d = gnn_oracle_draws_make(c, 5);
    int64_t at = 0;
    out->indptr[0] = 0;
    for (int64_t v = 0; v < n; v++) {
        const int64_t row = at;
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++)
            if (gnn_oracle_draw_uint(&d, 4) != 0)
                out->indices[at++] = g->indices[e];
        if (v % 7 == 3 && at > row)
            out->indices[at++] = out->indices[row];
        if (v % 5 == 0)
            out->indices[at++] = v;
        out->indptr[v + 1] = at;
    }
    out->nnz = at;
    return GNN_OK;
}

gnn_oracle_outcome gnn_oracle_case_graph_multi(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int gen, int scale,
                                               int64_t ef, uint64_t seed, int multi, const gnn_csr **g)
{
    gnn_oracle_outcome o = gnn_oracle_case_graph(ctx, gen, scale, ef, seed, g);
    if (o != GNN_ORACLE_PASS || !multi)
        return o;
    gnn_csr *m = gnn_oracle_alloc(ctx, sizeof *m);
    if (!m || gnn_oracle_case_multigraph(ctx, c, *g, m))
        return gnn_oracle_fail(ctx, "multigraph: out of memory");
    *g = m;
    return GNN_ORACLE_PASS;
}

gnn_status gnn_oracle_case_parts(const gnn_csr *g, int method, int64_t k, uint64_t seed, int32_t *part, gnn_err *err)
{
    const int64_t n = g->n;
    if (method == 4 || method == 5) { /* a rank that owns nothing; no cut edge at all */
        const int64_t parts = method == 5 ? 1 : (k > 1 ? k - 1 : 1);
        for (int64_t v = 0; v < n; v++)
            part[v] = (int32_t)(v * parts / (n > 0 ? n : 1));
        return GNN_OK;
    }
    if (method < 0 || method > 5)
        return gnn_err_set(err, GNN_ERR_INVAL, "invalid case: method=%d", method);
    if (k > n)
        return gnn_err_set(err, GNN_ERR_INVAL, "invalid case: ranks=%lld > %lld vertices", (long long)k, (long long)n);
    static const gnn_part_method methods[4] = { GNN_PART_RANDOM, GNN_PART_RANGE, GNN_PART_HASH, GNN_PART_METIS };
    gnn_part_options po;
    gnn_part_defaults(&po);
    po.method = methods[method];
    po.k = k;
    po.seed = seed;
    return gnn_partition_assign(g, NULL, &po, part, NULL, err);
}
