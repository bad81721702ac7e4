/* opt/mpi/comm_mpi.c -- the OpenMPI backend of gnn_comm (placeholder: being written). */
#include "gnnref/comm.h"

int gnn_comm_mpi_built(void) { return 0; }

gnn_status gnn_comm_mpi(gnn_comm **out, gnn_err *err)
{
    *out = NULL;
    return gnn_err_set(err, GNN_ERR_UNSUPPORTED, "the MPI backend is not built");
}

void gnn_comm_mpi_abort(gnn_comm *c, int code) { (void)c; (void)code; }
