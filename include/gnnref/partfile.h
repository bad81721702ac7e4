/* include/gnnref/partfile.h -- part vectors as METIS-style `.part` text files (docs/partitioning.md,
 * docs/commplan.md), so that a partition made elsewhere (gpmetis, ParMETIS, another tool) can be
 * used here, and one made here checked by other tools.
 *
 * The format is gpmetis's output file (graph.part.K): one line per vertex, in vertex id order,
 * holding the vertex's part id as a decimal integer, each line ended by '\n'. Reading also
 * accepts spaces or tabs around the number and a "\r\n" ending, and blank lines after the last
 * vertex; anything else (an empty line before it, a sign or a fraction, a second number, more
 * or fewer lines than vertices, an id outside [0, K)) is an error whose message names the file
 * and the line. Library code: returns gnn_status, never prints. */
#ifndef GNNREF_PARTFILE_H
#define GNNREF_PARTFILE_H

#include <stdint.h>
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write part[0..n) to path, one id per line. GNN_ERR_INVAL: NULL path, n < 0, part NULL while
 * n > 0, or an id < 0; GNN_ERR_IO (naming the file and the system's reason) when it cannot be
 * written. The file is written to path.tmp first and renamed, so a failed write leaves no
 * half file under the name. */
gnn_status gnn_part_vector_write(const char *path, const int32_t *part, int64_t n, gnn_err *err);

/* Read the part vector of n vertices from path into part (n entries). k > 0: every id must be in
 * [0, k) (GNN_ERR_RANGE otherwise); k <= 0: any id in [0, 2^31 - 1). *k_seen (may be NULL)
 * receives the largest id + 1 (0 when n = 0). Errors: GNN_ERR_INVAL (bad arguments), GNN_ERR_IO
 * (cannot open or read, naming the file), GNN_ERR_FORMAT ("FILE:LINE: ..." for a malformed
 * line; "FILE: ..." for too few or too many lines), GNN_ERR_RANGE ("FILE:LINE: part id ...").
 * On error part's content is unspecified. */
gnn_status gnn_part_vector_read(const char *path, int64_t n, int64_t k, int32_t *part, int64_t *k_seen, gnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
