/* cli/parts.h -- what the subcommands that partition share (partition, partcheck, train):
 * the flags' choices and parsers, and the check of a saved set against the run. */
#ifndef GNNREF_CLI_PARTS_H
#define GNNREF_CLI_PARTS_H

#include <stddef.h>
#include "cli/flags.h"
#include "gnnref/dataset.h"
#include "gnnref/partition.h"

/* metis, range, hash, random (gnn_part_method) */
extern const cli_choice cli_part_methods[];

/* --balance LIST: METIS balance constraints (gnn_part_balance_parse), into an unsigned ... */
int cli_flag_parse_balance(const char *arg, void *dst, char *why, size_t cap);
/* ... reported as the list of names (["vertices"] for none: the unit column) or as one
 * comma-separated string (null for none). */
json_object *cli_flag_json_balance(const void *src);
json_object *cli_flag_json_balance_str(const void *src);
/* "train,degree"; `none` when balance is 0. */
void cli_balance_names(unsigned balance, const char *none, char *buf, size_t cap);

/* A saved set (manifest m of dir) against this run: one part per rank (P), and made from the
 * loaded dataset ds (named data) when there is one: the same vertex count and graph CRC32C;
 * hint ends that message (may be ""). GNN_OK or GNN_ERR_INVAL with the message in err. */
gnn_status cli_set_check(const gnn_part_manifest *m, const char *dir, int P, const gnn_dataset *ds, const char *data,
                         const char *hint, gnn_err *err);

#endif
