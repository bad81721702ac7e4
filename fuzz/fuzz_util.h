/* fuzz/fuzz_util.h -- what the libFuzzer harnesses of fuzz/ share (docs/fuzzing.md):
 *   - a private scratch directory per process (on /dev/shm when there is one), emptied after
 *     every input, removed at exit;
 *   - in-memory files: memfd_create, opened by the library as /proc/self/fd/N;
 *   - the "bundle" input: several named files in one input, each introduced by a line
 *     "@@ NAME" (at the start of the input or after a '\n'); the file's bytes run to the '\n'
 *     before the next "@@ " line (or to the end). A NAME ending in ".gz" is written gzipped
 *     by the harness (so the fuzzer mutates plain text and still drives zlib); ending in
 *     ".gz!" the bytes are written as they are under the name without the '!' (corrupt
 *     gzip streams). Names are sanitized: [A-Za-z0-9_.-] and '/', no "..", at most 4 levels;
 *   - fz_fix_gnn: recompute the file size, the header CRCs and every section's CRC32C of a
 *     native .gnn image, so that mutations reach the value checks behind the checksums.
 * Every function here is static inline: each harness is one translation unit. */
#ifndef GNNREF_FUZZ_UTIL_H
#define GNNREF_FUZZ_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "gnnref/crc32c.h"
#include "gnnref/dataset.h"

#define FZ_PATH 4096

static char fz_root[FZ_PATH];

static inline int fz_rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    remove(p);
    return 0;
}

/* Remove dir's contents (keep_top) or dir itself. */
static inline void fz_rm_tree(const char *dir, int keep_top)
{
    char top[FZ_PATH];
    snprintf(top, sizeof top, "%s", dir);
    nftw(top, fz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
    if (keep_top)
        mkdir(top, 0700);
}

static inline void fz_cleanup(void)
{
    if (fz_root[0])
        fz_rm_tree(fz_root, 0);
}

/* The process's scratch directory, created on first use. */
static inline const char *fz_scratch(void)
{
    if (!fz_root[0]) {
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        snprintf(fz_root, sizeof fz_root, "%s/gnnref-fuzz-XXXXXX", base);
        if (!mkdtemp(fz_root)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(fz_cleanup);
    }
    return fz_root;
}

/* mkdir -p of path's parent directories (path itself is a file). */
static inline int fz_mkparents(const char *path)
{
    char p[FZ_PATH];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            if (mkdir(p, 0700) != 0 && errno != EEXIST)
                return -1;
            *s = '/';
        }
    return 0;
}

static inline int fz_write(const char *path, const void *data, size_t len, int gz)
{
    if (fz_mkparents(path))
        return -1;
    if (gz) {
        gzFile g = gzopen(path, "wb1");
        if (!g)
            return -1;
        int ok = len == 0 || gzwrite(g, data, (unsigned)len) == (int)len;
        return gzclose(g) == Z_OK && ok ? 0 : -1;
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = len == 0 || fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* An in-memory file holding data; *path gets "/proc/self/fd/N". Returns the fd (close it). */
static inline int fz_memfd(const void *data, size_t len, char *path, size_t cap)
{
    int fd = memfd_create("fuzz", MFD_CLOEXEC);
    if (fd < 0) {
        perror("fuzz: memfd_create");
        abort();
    }
    const uint8_t *p = data;
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, p + done, len - done);
        if (w <= 0) {
            perror("fuzz: write");
            abort();
        }
        done += (size_t)w;
    }
    snprintf(path, cap, "/proc/self/fd/%d", fd);
    return fd;
}

/* A sanitized relative name into out; 0 when it is usable. */
static inline int fz_clean_name(const uint8_t *s, size_t n, char *out, size_t cap)
{
    if (n == 0 || n >= cap || n > 200)
        return -1;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
              c == '-' || c == '/' || c == '!'))
            return -1;
        if (c == '/' && ++depth > 4)
            return -1;
        out[i] = (char)c;
    }
    out[n] = '\0';
    if (out[0] == '/' || out[n - 1] == '/' || strstr(out, "..") || strstr(out, "//"))
        return -1;
    return 0;
}

/* Write the bundle's files under dir; returns the number written. */
static inline int fz_unbundle(const uint8_t *data, size_t size, const char *dir)
{
    int files = 0;
    size_t i = 0;
    /* find the first marker */
    while (i < size && !(size - i >= 3 && memcmp(data + i, "@@ ", 3) == 0 && (i == 0 || data[i - 1] == '\n')))
        i++;
    while (i < size) {
        size_t name0 = i + 3, name1 = name0;
        while (name1 < size && data[name1] != '\n')
            name1++;
        size_t body0 = name1 < size ? name1 + 1 : size, j = body0;
        while (j < size && !(size - j >= 4 && memcmp(data + j, "\n@@ ", 4) == 0))
            j++;
        size_t body1 = j, next = j < size ? j + 1 : size;
        if (body0 > body1)
            body0 = body1;
        char name[256], path[FZ_PATH];
        if (fz_clean_name(data + name0, name1 - name0, name, sizeof name) == 0) {
            size_t k = strlen(name);
            int gz = 0;
            if (k > 4 && strcmp(name + k - 4, ".gz!") == 0)
                name[k - 1] = '\0';
            else if (k > 3 && strcmp(name + k - 3, ".gz") == 0)
                gz = 1;
            if (!strchr(name, '!')) {
                snprintf(path, sizeof path, "%s/%s", dir, name);
                if (fz_write(path, data + body0, body1 - body0, gz) == 0)
                    files++;
            }
        }
        i = next;
    }
    return files;
}

/* ---- native .gnn images ---- */

static inline uint64_t fz_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}
static inline uint32_t fz_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void fz_put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void fz_put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Fix one table entry's CRC (offset, length, crc at +16) when the section lies in the image. */
static inline void fz_fix_entry(uint8_t *b, size_t len, const uint8_t *e)
{
    uint64_t off = fz_u64(e), n = fz_u64(e + 8);
    if (off <= len && n <= len - off)
        fz_put_u32((uint8_t *)e + 16, gnn_crc32c(0, b + off, (size_t)n));
}

/* Make b[0..len) consistent where a checksum or the size would refuse it: file size, every
 * section's CRC32C that lies inside the image, the type header's CRC, the header's CRC. */
static inline void fz_fix_gnn(uint8_t *b, size_t len)
{
    if (len < GNN_FORMAT_HEADER_SIZE || memcmp(b, GNN_FORMAT_MAGIC, 8) != 0)
        return;
    fz_put_u64(b + GNN_HDR_OFF_FILE_SIZE, len);
    for (unsigned s = 0; s < GNN_FORMAT_NUM_SECTIONS; s++)
        fz_fix_entry(b, len, b + GNN_HDR_OFF_SECTIONS + s * GNN_HDR_SECTION_SIZE);
    for (unsigned s = 0; s < GNN_FORMAT_MAX_EXT; s++)
        fz_fix_entry(b, len, b + GNN_HDR_OFF_EXT + s * 32u);
    if (fz_u32(b + GNN_HDR_OFF_VERSION) == GNN_FORMAT_VERSION_TYPED && len >= GNN_FORMAT_HEADER_SIZE_TYPED) {
        for (unsigned s = 0; s < GNN_FORMAT_NUM_TYPE_SECTIONS; s++)
            fz_fix_entry(b, len, b + GNN_THDR_OFF_SECTIONS + s * 32u);
        fz_put_u32(b + GNN_THDR_OFF_CRC, gnn_crc32c(0, b + GNN_THDR_OFF_MAGIC, GNN_THDR_OFF_CRC - GNN_THDR_OFF_MAGIC));
    }
    fz_put_u32(b + GNN_HDR_OFF_CRC, gnn_crc32c(0, b, GNN_HDR_OFF_CRC));
}

/* Errors are expected; print them only when FUZZ_VERBOSE is set (for replaying one input). */
static inline void fz_note(const char *what, int st, const char *msg)
{
    static int verbose = -1;
    if (verbose < 0)
        verbose = getenv("FUZZ_VERBOSE") != NULL;
    if (verbose)
        fprintf(stderr, "%s: status %d: %s\n", what, st, msg);
}

#endif
