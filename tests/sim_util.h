/* tests/sim_util.h -- what the simulator suites share (tests/test_sim.c, tests/test_sim_faults.c,
 * tests/test_sim_golden.c): the run configuration and the rank-side assertions. Rank functions
 * run on the simulator's threads, where Check's assertions must not be used: they return
 * GNN_ERR_MISMATCH with a message (REQUIRE) and the test asserts on the run. */
#ifndef GNNREF_TESTS_SIM_UTIL_H
#define GNNREF_TESTS_SIM_UTIL_H

#include "gnnref/comm.h"
#include "gnnref/sim.h"


#define MAXP 8

/* inside a rank function: fail the rank (and so the run) with a message */
#define REQUIRE(c, cond, ...)                                                                                        \
    do {                                                                                                             \
        if (!(cond))                                                                                                 \
            return gnn_err_set(&(c)->err, GNN_ERR_MISMATCH, __VA_ARGS__);                                            \
    } while (0)
#define CALL(expr)                                                                                                   \
    do {                                                                                                             \
        gnn_status st_ = (expr);                                                                                     \
        if (st_)                                                                                                     \
            return st_;                                                                                              \
    } while (0)

static gnn_sim_config config(int P)
{
    gnn_sim_config cfg;
    gnn_sim_defaults(&cfg);
    cfg.ranks = P;
    cfg.timeout_s = 30; /* the checks must answer long before this */
    return cfg;
}


#endif
