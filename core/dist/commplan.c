/* core/dist/commplan.c -- the checked entry point of the communication plan (include/gnnref/commplan.h,
 * docs/commplan.md), the plan's names and its free.
 *
 * As core/ops/spmm.c does for its kernels: gnn_commplan_build checks every argument once, here, then
 * dispatches to the table it is given, whose bodies (ref/commplan.c, opt/cpu/commplan.c) assume
 * valid input. The bytes of a plan's rows are quant.h's (gnn_quant_message_bytes): one formula. */
#include <string.h>
#include "gnnref/commplan.h"
#include "gnnref/tensor.h"

static const char *const k_plan_names[GNN_PLAN_COUNT] = { "pre", "post", "hybrid", "degree" };

const char *gnn_plan_kind_name(gnn_plan_kind kind)
{
    return (unsigned)kind < GNN_PLAN_COUNT ? k_plan_names[kind] : NULL;
}

gnn_status gnn_plan_kind_parse(const char *name, gnn_plan_kind *kind)
{
    for (int i = 0; name && i < GNN_PLAN_COUNT; i++)
        if (!strcmp(name, k_plan_names[i])) {
            *kind = (gnn_plan_kind)i;
            return GNN_OK;
        }
    return GNN_ERR_INVAL;
}

void gnn_commplan_free(gnn_commplan *c)
{
    if (!c)
        return;
    gnn_free(c->pair);
    gnn_free(c->edge_ptr);
    gnn_free(c->edge_src);
    gnn_free(c->edge_dst);
    gnn_free(c->edge_post);
    gnn_free(c->post_ptr);
    gnn_free(c->post_rows);
    gnn_free(c->pre_ptr);
    gnn_free(c->pre_rows);
    gnn_free(c->match_ptr);
    gnn_free(c->match_src);
    gnn_free(c->match_dst);
    memset(c, 0, sizeof *c);
}

int64_t gnn_commplan_count_cut(const gnn_csr *g, const int32_t *part)
{
    int64_t m = 0;
    for (int64_t v = 0; v < g->n; v++)
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++)
            m += part[g->indices[e]] != part[v];
    return m;
}

/* Per cut edge, counted with its repeats (so at least per distinct one), the most a builder
 * holds at once, derived from ref/commplan.c and opt/cpu/commplan.c: the plan itself (pair id,
 * four offsets, source, destination, side, post and pre rows, the matching: 89 bytes); the
 * cpu builder's scratch beside it (the sorted (pair, u, v) list, per-slot counts and rows: 80
 * bytes; while grouping, the list twice and qsort's merge buffer, 72, before most of the plan
 * exists; ref's list and merge buffer, 48); the per-pair solvers running at the same time,
 * whose bipartite graphs, matchings and covers sum to at most 82 bytes per edge. 251 bytes,
 * rounded up to 320 for the allocator's headers; plus the cpu builder's bucket counts
 * (one row of GNN_COMMPLAN_BUCKETS per thread, and a few more) and a megabyte for the rest.
 * Nothing depends on k: no array has an entry per rank pair. */
int64_t gnn_commplan_bytes_bound(int64_t cut, int threads)
{
    const int64_t per_edge = 320;
    if (cut < 0)
        cut = 0;
    if (threads < 1)
        threads = 1;
    return per_edge * (cut + 1) + (int64_t)threads * 2 * GNN_COMMPLAN_BUCKETS * (int64_t)sizeof(int64_t) +
           (1 << 20);
}

gnn_status gnn_commplan_build(const gnn_commplan_ops *ops, const gnn_csr *g, const int32_t *part, int64_t k,
                              gnn_plan_kind kind, gnn_commplan *out, gnn_err *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!ops || !g || !out)
        return gnn_err_set(err, GNN_ERR_INVAL, "commplan: %s is NULL", !ops ? "ops" : !g ? "the graph" : "out");
    if (!ops->build)
        return gnn_err_set(err, GNN_ERR_UNSUPPORTED, "commplan: implementation '%s' has no build", ops->name);
    gnn_status st = gnn_csr_validate(g, err);
    if (st)
        return st == GNN_ERR_NOMEM ? st : GNN_ERR_INVAL;
    if (k < 1 || k > INT32_MAX)
        return gnn_err_set(err, GNN_ERR_INVAL, "commplan: %lld parts (expected 1 .. 2^31 - 1)", (long long)k);
    if (g->n > 0 && !part)
        return gnn_err_set(err, GNN_ERR_INVAL, "commplan: no part vector");
    if ((unsigned)kind >= GNN_PLAN_COUNT)
        return gnn_err_set(err, GNN_ERR_INVAL, "commplan: unknown plan kind %d", (int)kind);
    for (int64_t v = 0; v < g->n; v++)
        if (part[v] < 0 || part[v] >= k)
            return gnn_err_set(err, GNN_ERR_RANGE, "commplan: vertex %lld is in part %d (expected 0 .. %lld)",
                               (long long)v, (int)part[v], (long long)(k - 1));
    st = ops->build(g, part, k, kind, out);
    if (st) {
        gnn_commplan_free(out);
        return gnn_err_set(err, st, "commplan (%s, %s plan): %s", ops->name, gnn_plan_kind_name(kind),
                           gnn_status_str(st));
    }
    return GNN_OK;
}
