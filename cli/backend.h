/* cli/backend.h -- backend flags (--backend, --ranks, the simulator's model and faults) and
 * the launcher shared by the subcommands that communicate (train, commcheck, partcheck). */
#ifndef GNNREF_CLI_BACKEND_H
#define GNNREF_CLI_BACKEND_H

#include <pthread.h>
#include "cli/cli.h"
#include "cli/flags.h"
#include "gnnref/comm.h"
#include "gnnref/sim.h"

typedef enum { CLI_BACKEND_SELF = 0, CLI_BACKEND_SIM, CLI_BACKEND_MPI } cli_backend_kind;

typedef struct cli_backend {
    cli_backend_kind kind;  /* --backend */
    const char *name;       /* "self", "sim", "mpi": set by cli_backend_check */
    gnn_sim_config sim;     /* ranks, alpha, timeout, threads per rank, faults (sim only) */
    double bandwidth_gbit;  /* --bandwidth, turned into sim.beta_Bps by cli_backend_check */
} cli_backend;

/* The backend flags, one table that the subcommands which communicate (train, commcheck,
 * partcheck) add to theirs as a group: { cli_backend_flags, offsetof(options, backend) }.
 * The simulator's flags carry CLI_TAG_SIM. */
extern const cli_flag cli_backend_flags[];
#define CLI_BACKEND_TITLE "communicator (docs/comm.md, docs/simulator.md):"

void cli_backend_defaults(cli_backend *b);
/* After parsing: flags that do not apply to the chosen backend; MPI not built; the derived
 * fields (name, beta, a --fault-delay's probability). 0 or a usage exit code. */
int cli_backend_check(cli_backend *b, const cli_args *a);
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
