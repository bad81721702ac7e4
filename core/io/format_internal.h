/* core/io/format_internal.h -- internal: what core/io/format.c (the native format) and
 * core/io/format_types.c (its type sections, version 3) share: the little-endian field access and
 * the plan of a section (docs/formats.md). */
#ifndef GNNREF_CORE_FORMAT_INTERNAL_H
#define GNNREF_CORE_FORMAT_INTERNAL_H

#include <stdint.h>
#include <string.h>
#include "gnnref/dataset.h"

/* The header is encoded byte by byte, so it reads the same on any host; the sections are raw
 * arrays and need a little-endian host. */
static inline void fmt_put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline void fmt_put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint32_t fmt_get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static inline uint64_t fmt_get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static inline uint64_t fmt_round_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

/* One section of a file, shared by save and load. */
typedef struct section_plan {
    const void *data; /* save: the array to write; load: where it lies in the mapping */
    uint64_t offset;
    uint64_t length;
    uint32_t crc;
    int present;
} section_plan;

/* Slots: the five dataset sections, the extension sections, then the type sections. */
#define FMT_TYPE_SLOT0 (GNN_FORMAT_NUM_SECTIONS + GNN_FORMAT_MAX_EXT)
#define FMT_ALL_SLOTS (FMT_TYPE_SLOT0 + GNN_FORMAT_NUM_TYPE_SECTIONS)

/* ---- core/io/format_types.c ---- */

/* A typed dataset (version 3)? */
static inline int fmt_is_typed(const gnn_dataset *ds) { return ds->num_vtypes > 0 || ds->num_etypes > 0; }

/* Save: plan the type sections of ds from file offset *pos on (updated: the end of the last),
 * their CRCs computed. Names or featureless flags that ds leaves NULL are written as "t<i>",
 * "r<i>" and zeros from *scratch, which the caller frees with gnn_free. */
gnn_status gnn_format_types_plan(const gnn_dataset *ds, const char *path, section_plan *tsec, uint64_t *pos,
                                 void **scratch, gnn_err *err);
/* Save: the type header, bytes [512, 1024) of h, with its CRC32C at 1020. */
void gnn_format_types_encode(unsigned char *h, const gnn_dataset *ds, const section_plan *tsec);
/* Load: check the type header in h (1024 bytes): tag, CRC, counts, the table against n, nnz,
 * the file size and the end of the previous section (*prev_end, updated). */
gnn_status gnn_format_types_parse(const unsigned char *h, const char *path, int64_t n, int64_t nnz,
                                  uint64_t file_size, uint64_t *prev_end, section_plan *tsec, int64_t *num_vtypes,
                                  int64_t *num_etypes, gnn_err *err);
/* Load: point ds's type arrays into the mapping at base. */
void gnn_format_types_attach(gnn_dataset *ds, const unsigned char *base, const section_plan *tsec,
                             int64_t num_vtypes, int64_t num_etypes);

#endif
