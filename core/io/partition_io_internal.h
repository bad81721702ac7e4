/* core/io/partition_io_internal.h -- internal: what the files of partition sets on disk share
 * (include/gnnref/partition.h, "partition sets"; docs/partitioning.md, "Files"; DESIGN.md
 * section 5), one concern each:
 *   core/io/partition_save.c      writing a set: the part files, then the manifest
 *   core/io/partition_manifest.c  the set's fingerprints; reading and checking the manifest,
 *                              its counts bounded by the bytes on disk (check_counts)
 *   core/io/partition_load.c      loading one part and the whole set, comparing two structures,
 *                              a part's features
 *
 * A set is a directory: manifest.json plus part-RRRRR.gnn for every rank. Each part file is an
 * ordinary native-format file (core/io/format.c) -- `gnnref info` opens it, its sections carry
 * their own CRC32C -- holding the part's local graph, labels and split, plus extension sections
 * with the id tables (vid_o, halo, trainer), the solid vertices' features (feat: a part stores
 * no features for its halos, DistGNN-MB 3.1) and partmeta.
 *
 * Three layers of checks, so that one flipped byte anywhere is caught and named:
 *   1. the manifest carries the CRC32C of its own text (with the CRC field read as zeros);
 *   2. a part file's header and every section carry a CRC32C (core/io/format.c), and the manifest
 *      carries the CRC32C of the whole file (which also covers the padding between sections);
 *   3. the part's partmeta must agree with the manifest (set id, rank, k, counts), and the id
 *      tables must have the structure the builders give them -- so a valid file from another set
 *      or another rank is refused too. */
#ifndef GNNREF_CORE_PARTITION_IO_INTERNAL_H
#define GNNREF_CORE_PARTITION_IO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "gnnref/partition.h"
#include "gnnref/tensor.h"

#define MANIFEST "manifest.json"
#define CRC_KEY "manifest_crc32c"

/* One entry of the manifest's files array: part r's file as the manifest describes it. */
typedef struct file_entry {
    char name[64];
    int64_t bytes;
    uint32_t crc;
    int64_t n_solid, n_halo, nnz;
} file_entry;

/* count * size bytes, NULL when the product overflows: counts come from files. */
static inline void *xmalloc(size_t count, size_t size) { return gnn_malloc_array(count > 0 ? count : 1, size); }

/* ---- core/io/partition_manifest.c ---- */

/* Files of a partition set must be regular files: opening a FIFO would wait for a writer. */
gnn_status gnn_pset_check_regular(const char *path, gnn_err *err);
/* Find the 8 hex digits of "manifest_crc32c": "0x........" in text; NULL when absent. */
char *gnn_pset_crc_digits(char *text, size_t len);
/* Parse and check dir/manifest.json; *files (k entries) allocated when files != NULL. */
gnn_status gnn_pset_manifest_read(const char *dir, gnn_part_manifest *m, file_entry **files, gnn_err *err);

#endif
