/* sim/sim.c -- the multi-rank simulator (placeholder: being written). */
#include <string.h>
#include "gnnref/sim.h"

void gnn_sim_defaults(gnn_sim_config *c)
{
    memset(c, 0, sizeof *c);
    c->ranks = 1;
    c->alpha_s = 2e-6;
    c->beta_Bps = 12.5e9;
    c->timeout_s = 60.0;
    c->threads_per_rank = 1;
}

gnn_status gnn_sim_run(const gnn_sim_config *cfg, gnn_spmd_fn fn, void *arg, gnn_sim_report *rep, gnn_err *err)
{
    if (rep)
        memset(rep, 0, sizeof *rep);
    return gnn_err_set(err, GNN_ERR_UNSUPPORTED, "the simulator is not built yet");
}

void gnn_sim_report_free(gnn_sim_report *rep) { (void)rep; }
