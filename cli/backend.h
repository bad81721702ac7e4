/* cli/backend.h -- backend flags (--backend, --ranks, the simulator's model and faults) and
 * the launcher shared by the subcommands that communicate (train, commcheck). */
#ifndef GNNREF_CLI_BACKEND_H
#define GNNREF_CLI_BACKEND_H

#include <getopt.h>
#include <pthread.h>
#include "cli/cli.h"
#include "gnnref/comm.h"
#include "gnnref/sim.h"

typedef enum { CLI_BACKEND_SELF = 0, CLI_BACKEND_SIM, CLI_BACKEND_MPI } cli_backend_kind;

typedef struct cli_backend {
    cli_backend_kind kind;
    const char *name;       /* "self", "sim", "mpi" */
    gnn_sim_config sim;     /* ranks, alpha, beta, timeout, faults (sim only) */
    int ranks_given, delay_p_given;
    const char *sim_flag;   /* the last simulator-only flag given, for the usage check */
} cli_backend;

/* getopt_long codes of the backend flags (above any single character) */
enum {
    CLI_OPT_BACKEND = 1000, CLI_OPT_RANKS, CLI_OPT_ALPHA, CLI_OPT_BANDWIDTH, CLI_OPT_SIM_TIMEOUT, CLI_OPT_TPR,
    CLI_OPT_FAULT_SEED, CLI_OPT_FAULT_DROP, CLI_OPT_FAULT_DELAY, CLI_OPT_FAULT_DELAY_P, CLI_OPT_FAULT_FLIP,
    CLI_OPT_BACKEND_END
};
#define CLI_BACKEND_OPTIONS                                                                                            \
    { "backend", required_argument, 0, CLI_OPT_BACKEND }, { "ranks", required_argument, 0, CLI_OPT_RANKS },            \
        { "alpha", required_argument, 0, CLI_OPT_ALPHA }, { "bandwidth", required_argument, 0, CLI_OPT_BANDWIDTH },    \
        { "sim-timeout", required_argument, 0, CLI_OPT_SIM_TIMEOUT },                                                  \
        { "threads-per-rank", required_argument, 0, CLI_OPT_TPR },                                                     \
        { "fault-seed", required_argument, 0, CLI_OPT_FAULT_SEED },                                                    \
        { "fault-drop", required_argument, 0, CLI_OPT_FAULT_DROP },                                                    \
        { "fault-delay", required_argument, 0, CLI_OPT_FAULT_DELAY },                                                  \
        { "fault-delay-p", required_argument, 0, CLI_OPT_FAULT_DELAY_P },                                              \
        { "fault-flip", required_argument, 0, CLI_OPT_FAULT_FLIP }

void cli_backend_defaults(cli_backend *b);
const char *cli_backend_help(void);
/* Parse one backend flag (ch in [CLI_OPT_BACKEND, CLI_OPT_BACKEND_END)); 0 or a usage exit code. */
int cli_backend_option(int ch, const char *arg, cli_backend *b);
/* After parsing: flags that do not apply to the chosen backend; MPI not built. 0 or exit code. */
int cli_backend_check(cli_backend *b);
/* Run fn on the backend: self (one rank), sim (gnn_sim_run; rep filled), or MPI (this
 * process's rank; on a failing rank the whole job is aborted so nothing hangs). */
gnn_status cli_backend_run(const cli_backend *b, gnn_spmd_fn fn, void *arg, gnn_sim_report *rep, gnn_err *err);
/* What the ranks of one process share (the dataset, a partition): under the simulator the
 * ranks are threads of one process, under MPI each process has one rank. The first rank to
 * arrive prepares it while the others wait; then it is read-only. */
typedef struct cli_shared {
    pthread_mutex_t lock;
    int done;
    gnn_status st; /* prepare's status, the same for every rank */
    gnn_err err;   /* and its message */
} cli_shared;
void cli_shared_init(cli_shared *s);
void cli_shared_destroy(cli_shared *s);
/* Run prepare(arg, P, &s->err) the first time; every call returns its status. */
gnn_status cli_shared_once(cli_shared *s, gnn_status (*prepare)(void *arg, int P, gnn_err *err), void *arg, int P);

/* The "sim" object of a report (NULL unless the backend is sim). */
json_object *cli_backend_json(const cli_backend *b, const gnn_sim_report *rep);
/* The "comm" object: totals, by_op and the [src][dst] matrices, from gnn_comm_traffic_matrix. */
json_object *cli_traffic_json(const int64_t *bytes, const int64_t *msgs, int P);

#endif
