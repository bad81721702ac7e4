/* include/gnnref/checkpoint.h -- checkpoint files of `gnnref train --checkpoint DIR` and
 * `--resume DIR` (docs/checkpoint.md states what each trainer saves and why a resumed run is
 * bitwise the run never stopped).
 *
 * A checkpoint is a directory with one file per rank, DIR/rank-RRRRR.ckpt (5 digits), written
 * by that rank at the end of an epoch. A file, little-endian:
 *   header (GNN_CKPT_HEADER_SIZE bytes):
 *     0  magic "GNNCKPT\0"            8  u32 version (GNN_CKPT_VERSION)
 *     12 u32 header size              16 u32 rank          20 u32 ranks
 *     24 i32 epochs done              28 u32 global step (the next step's key)
 *     32 u32 config CRC               36 u32 part CRC (0 for gnn_train)
 *     40 i64 n                        48 i64 nnz            56 u32 sections
 *     60 u32 reserved                 64 char dataset[64] (NUL padded)
 *     128 u32 CRC32C of bytes 0..127  132 .. 159 reserved (0)
 *   then `sections` sections, each: u32 id, u32 CRC32C of the payload, u64 length, payload.
 * It is written as path.tmp, flushed, fsynced and renamed (as datasets are: core/io/format.c), so a
 * reader never sees a half-written file under its name. Reading checks the magic, version,
 * header CRC, every section's bounds and CRC before anything is used, and then the fingerprint:
 * dataset name, n, nnz, rank count, rank, the configuration's CRC and the data CRC (split, labels, part).
 * Library code: returns gnn_status with a message in err; never prints. */
#ifndef GNNREF_CHECKPOINT_H
#define GNNREF_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>
#include "gnnref/status.h"
#include "gnnref/train.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GNN_CKPT_VERSION 1u
#define GNN_CKPT_HEADER_SIZE 160

/* What a checkpoint must match to be resumed. */
typedef struct gnn_ckpt_fingerprint {
    char dataset[64];     /* the dataset's name (truncated) */
    int64_t n, nnz;       /* vertices and edges of the graph trained on (gnn_train), or of the whole
                             graph and of this rank's local graph (gnn_train_part: n_global, local nnz) */
    int32_t ranks, rank;
    uint32_t config_crc;  /* gnn_ckpt_config_crc */
    uint32_t part_crc;    /* the data CRC: the split codes and labels trained on (gnn_ckpt_data_crc),
                             after the part's sizes, global ids and local graph on partitions */
} gnn_ckpt_fingerprint;

/* A checkpoint being written (gnn_ckpt_begin .. gnn_ckpt_commit) or read (gnn_ckpt_open). */
typedef struct gnn_ckpt {
    gnn_ckpt_fingerprint fp;
    int32_t epochs_done;  /* epochs completed when it was written */
    uint32_t step;        /* the global step of the next step */
    unsigned char *buf;   /* the whole file (header, sections) */
    size_t len, cap;
    uint32_t n_sections;
    char path[4096];      /* read: the file's path (messages) */
    int failed;           /* write: an allocation failed (reported by commit) */
} gnn_ckpt;

/* Section ids: the loop's, then each trainer's (docs/checkpoint.md lists them). */
enum {
    GNN_CKPT_SEC_LOOP = 1,        /* the epoch loop's state (core/train/epoch.c) */
    GNN_CKPT_SEC_STEPS = 2,       /* the step losses so far (f64) */
    GNN_CKPT_SEC_EPOCHS = 3,      /* the epochs' figures so far */
    GNN_CKPT_SEC_MODEL = 16,      /* per layer l: id + l, its parameters, Adam's m and v (f32) */
    GNN_CKPT_SEC_PART = 48,       /* training on partitions: counters */
    GNN_CKPT_SEC_HEC = 64,        /* per layer l: id + l, the HEC's state */
    GNN_CKPT_SEC_MATCH = 96,      /* Match's previous batch: ids, then rows */
    GNN_CKPT_SEC_EMBED = 97       /* the sparse embeddings: rows, optimizer state */
};

/* DIR/rank-RRRRR.ckpt into out (size bytes); GNN_ERR_RANGE when it does not fit. */
gnn_status gnn_ckpt_path(const char *dir, int rank, char *out, size_t size);

/* A CRC32C of every training-relevant field of c (and pc when not NULL: the partition
 * trainer's; the pipeline's capacities and tags are not: they change no bit). The fields are
 * serialized one by one (no padding bytes). */
struct gnn_part_train_config;
uint32_t gnn_ckpt_config_crc(const gnn_train_config *c, const struct gnn_part_train_config *pc);

/* The data part of the fingerprint: crc continued over whether split and labels are given,
 * then split (n codes) and labels (n). A run whose split or labels differ trains on other data,
 * so --split (or a set made with another split) is refused on resume. */
uint32_t gnn_ckpt_data_crc(uint32_t crc, const uint8_t *split, const int32_t *labels, int64_t n);

/* Writing: begin, put sections, commit (writes DIR/rank-RRRRR.ckpt atomically; creates DIR
 * when missing), free. */
gnn_status gnn_ckpt_begin(gnn_ckpt *w, const gnn_ckpt_fingerprint *fp, int32_t epochs_done, uint32_t step);
void gnn_ckpt_put(gnn_ckpt *w, uint32_t id, const void *data, size_t bytes);
/* Two parts in one section (e.g. ids then rows). */
void gnn_ckpt_put2(gnn_ckpt *w, uint32_t id, const void *a, size_t na, const void *b, size_t nb);
/* Write path.tmp (when tmp_only) or path.tmp and rename it (gnn_ckpt_rename). */
gnn_status gnn_ckpt_commit(gnn_ckpt *w, const char *dir, int tmp_only, gnn_err *err);
gnn_status gnn_ckpt_rename(const char *dir, int rank, gnn_err *err);

/* Reading: load and check DIR/rank-RRRRR.ckpt (magic, version, header and section CRCs),
 * then compare its fingerprint with `expect`; every mismatch is refused with a message that
 * names the file and both values. */
gnn_status gnn_ckpt_open(gnn_ckpt *r, const char *dir, const gnn_ckpt_fingerprint *expect, gnn_err *err);
/* Section id's payload: GNN_ERR_FORMAT (named) when absent. */
gnn_status gnn_ckpt_get(const gnn_ckpt *r, uint32_t id, const void **data, size_t *bytes, gnn_err *err);
/* Section id's payload copied into out, which must be exactly `bytes` long. */
gnn_status gnn_ckpt_read(const gnn_ckpt *r, uint32_t id, void *out, size_t bytes, gnn_err *err);
void gnn_ckpt_free(gnn_ckpt *c);

#ifdef __cplusplus
}
#endif
#endif
