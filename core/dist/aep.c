/* core/dist/aep.c -- the AEP push selection's checked entry point (include/gnnref/aep.h): every
 * argument is checked once here, then the implementation's select runs, so ref/aep.c and
 * opt/cpu/aep.c can assume valid input. */
#include "gnnref/aep.h"

static gnn_status check_args(const gnn_aep_select_args *a, uint8_t *keep, int64_t *n_kept, gnn_err *err)
{
    if (!a || !keep || !n_kept || a->m < 0 || (a->m > 0 && (!a->vid_o || !a->deg)))
        return gnn_err_set(err, GNN_ERR_INVAL, "aep select: NULL argument or negative count");
    if (a->nc < 0 || a->layer < 0 || a->layer > 255 || a->dst_rank < 0)
        return gnn_err_set(err, GNN_ERR_INVAL, "aep select: nc %lld, layer %d, destination rank %d: out of range",
                           (long long)a->nc, a->layer, a->dst_rank);
    for (int64_t i = 0; i < a->m; i++)
        if (a->deg[i] < 0 || a->vid_o[i] < 0)
            return gnn_err_set(err, GNN_ERR_INVAL, "aep select: candidate %lld: vertex %lld, degree %lld", (long long)i,
                               (long long)a->vid_o[i], (long long)a->deg[i]);
    return GNN_OK;
}

gnn_status gnn_aep_select(const gnn_aep_ops *ops, const gnn_aep_select_args *a, uint8_t *keep, int64_t *n_kept,
                          gnn_err *err)
{
    if (!ops || !ops->select)
        return gnn_err_set(err, GNN_ERR_INVAL, "aep select: no implementation (ops is NULL)");
    gnn_status st = check_args(a, keep, n_kept, err);
    if (st)
        return st;
    return ops->select(a, keep, n_kept, err);
}
