/* include/gnnref/status.h -- status codes and error details.
 *
 * Library code never prints and never exits: every fallible function returns a
 * gnn_status, and functions that read user input also fill an optional gnn_err
 * with a message naming the file, the section and the offending value. The CLI
 * turns both into `gnnref: error: ...` and an exit code (DESIGN.md section 6). */
#ifndef GNNREF_STATUS_H
#define GNNREF_STATUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gnn_status {
    GNN_OK = 0,
    GNN_ERR_INVAL,       /* bad argument (programming error or bad flag) */
    GNN_ERR_NOMEM,       /* allocation failed */
    GNN_ERR_IO,          /* open/read/write/mmap failed */
    GNN_ERR_FORMAT,      /* malformed input: magic, version, truncation, bad text line */
    GNN_ERR_CHECKSUM,    /* CRC32C mismatch */
    GNN_ERR_RANGE,       /* a value out of range: vertex id, label, degree, size limit */
    GNN_ERR_NAN,         /* NaN (or Inf where not allowed) in numeric input */
    GNN_ERR_UNSUPPORTED, /* feature not built in or not implemented for this input */
    GNN_ERR_MISMATCH,    /* oracle: implementation differs from reference */
    GNN_ERR_INTERNAL,    /* invariant violated: a bug in gnnref */
    GNN_ERR_COMM,        /* communication: mismatched collective, deadlock, timeout, corrupted
                            message, modified send buffer, a failed or aborted rank */
    GNN_STATUS_COUNT
} gnn_status;

/* Human-readable message for a status (never NULL). */
const char *gnn_status_str(gnn_status s);

/* Detailed error for input-reading functions. All pointers to gnn_err may be NULL. */
typedef struct gnn_err {
    char msg[512];
} gnn_err;

/* printf-style: fills err->msg (if err != NULL) and returns s, so callers can write
 * `return gnn_err_set(err, GNN_ERR_FORMAT, "%s: header: bad magic 0x%08x", path, m);` */
gnn_status gnn_err_set(gnn_err *err, gnn_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
