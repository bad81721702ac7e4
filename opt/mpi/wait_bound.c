/* opt/mpi/wait_bound.c -- one deadline for a whole asynchronous wait (opt/mpi/wait_bound.h,
 * docs/comm.md section 8). Plain C, no MPI: built in every configuration. */
#include "opt/mpi/wait_bound.h"

gnn_wait_outcome gnn_wait_bounded(const gnn_wait_clock *clk, double timeout_s, int n_targets, gnn_wait_poll_fn poll,
                                  void *arg, int *stuck, double *waited_s)
{
    const double t0 = clk->now(clk->arg);
    /* computed once, here: the bound of the whole call, not of each target */
    const double deadline = t0 + timeout_s;
    gnn_wait_outcome out = GNN_WAIT_DONE;
    int t = 0;
    for (; t < n_targets && out == GNN_WAIT_DONE; t++) {
        for (int tries = 0;;) {
            const int r = poll(arg, t);
            if (r != 0) {
                out = r > 0 ? GNN_WAIT_DONE : GNN_WAIT_FAILED;
                break;
            }
            if (timeout_s > 0 && clk->now(clk->arg) > deadline) {
                out = GNN_WAIT_DEADLINE;
                break;
            }
            clk->pause(clk->arg, ++tries);
        }
    }
    if (stuck)
        *stuck = out == GNN_WAIT_DONE ? -1 : t - 1;
    if (waited_s)
        *waited_s = clk->now(clk->arg) - t0;
    return out;
}
