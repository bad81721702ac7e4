/* core/base/status.c -- the status message table and error details. */
#include <stdarg.h>
#include <stdio.h>
#include "gnnref/status.h"

static const char *const k_status_msg[GNN_STATUS_COUNT] = {
    [GNN_OK] = "ok",
    [GNN_ERR_INVAL] = "invalid argument",
    [GNN_ERR_NOMEM] = "out of memory",
    [GNN_ERR_IO] = "I/O error",
    [GNN_ERR_FORMAT] = "malformed input",
    [GNN_ERR_CHECKSUM] = "checksum mismatch",
    [GNN_ERR_RANGE] = "value out of range",
    [GNN_ERR_NAN] = "NaN or Inf in input",
    [GNN_ERR_UNSUPPORTED] = "unsupported",
    [GNN_ERR_MISMATCH] = "result differs from the reference",
    [GNN_ERR_INTERNAL] = "internal error (a bug in gnnref)",
    [GNN_ERR_COMM] = "communication error",
};

const char *gnn_status_str(gnn_status s)
{
    if ((unsigned)s >= GNN_STATUS_COUNT)
        return "unknown status";
    return k_status_msg[s];
}

gnn_status gnn_err_set(gnn_err *err, gnn_status s, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return s;
}
