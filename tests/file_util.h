/* tests/file_util.h -- whole files as bytes, and the little-endian surgery on saved .gnn files
 * that the format tests do (docs/formats.md): read, change a value, recompute the CRCs a
 * writer of that value would have written, write back. Everything is static inline, so a
 * suite includes it whole without unused-function warnings. */
#ifndef GNNREF_TESTS_FILE_UTIL_H
#define GNNREF_TESTS_FILE_UTIL_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "gnnref/crc32c.h"
#include "gnnref/dataset.h"

typedef struct blob {
    unsigned char *p;
    size_t len;
} blob;

static inline blob read_blob(const char *path)
{
    blob b = { NULL, 0 };
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    b.len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    b.p = malloc(b.len);
    ck_assert_uint_eq(fread(b.p, 1, b.len, f), b.len);
    fclose(f);
    return b;
}

/* Writes the first len bytes of b to path and frees b. */
static inline void write_blob(const char *path, blob b, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(b.p, 1, len, f), len);
    fclose(f);
    free(b.p);
}

static inline uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t le64(const unsigned char *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }

static inline void put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Recompute the CRC32C of the section whose header entry is `entry` (offset, length, CRC at
 * bytes 0, 8, 16) and the header's own CRC, as a writer of the changed values would. */
static inline void refresh_entry_crcs(blob b, unsigned char *entry)
{
    put_le32(entry + 16, gnn_crc32c(0, b.p + le64(entry), (size_t)le64(entry + 8)));
    put_le32(b.p + GNN_HDR_OFF_CRC, gnn_crc32c(0, b.p, GNN_HDR_OFF_CRC));
}

#endif
