/* core/io/format.c -- the native binary format, versions 1 to 3 (DESIGN.md section 5, docs/formats.md;
 * version 2 adds CSR features, include/gnnref/dataset.h; version 3 adds the type sections, whose
 * header half and sections core/io/format_types.c reads and writes).
 *
 * One little-endian file per graph:
 *
 *   [0, 512)   header: magic "GNNREF\0\0", version, counts, flags, file size, name,
 *              a table of 5 sections {offset, length, crc32c, element size}, import stats,
 *              and the CRC32C of header bytes [0, 508) at offset 508
 *   then       indptr  int64 (n + 1)
 *              indices int64 (nnz)
 *              features f32 (n * f)      optional
 *              labels  int32 (n)         optional
 *              split   uint8 (n)         optional
 *              up to 5 named extension sections (partition files' id tables), each with its
 *              own entry {offset, length, crc32c, element size, name} at header offset 320
 *
 * Every section starts at a multiple of 64 bytes (zero padding between them), so a
 * page-aligned mmap of the file gives 64-byte aligned arrays, which is what every kernel
 * in gnnref expects (GNN_ALIGN). Each section carries its own CRC32C, so a corrupted file is
 * reported with the name of the section that changed.
 *
 * Loading maps the file PROT_READ and points the dataset into the mapping: a graph of any
 * size opens in the time it takes to checksum it, and pages are shared with the page cache
 * instead of being copied. The mapping is preceded by an anonymous reservation that also
 * covers a spare, writable area of n bytes after the file, used when a new split is made
 * for a loaded dataset (gnn_dataset_split_storage). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/io/format_internal.h"
#include "gnnref/crc32c.h"
#include "gnnref/dataset.h"
#include "gnnref/tensor.h"

static const char *const k_section_name[GNN_FORMAT_NUM_SECTIONS] = {
    "indptr", "indices", "features", "labels", "split"
};
static const uint32_t k_elem_size[GNN_FORMAT_NUM_SECTIONS] = { 8, 8, 4, 4, 1 };

const char *gnn_format_section_name(int s)
{
    return (s >= 0 && s < GNN_FORMAT_NUM_SECTIONS) ? k_section_name[s] : "?";
}

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* ---- the section plan shared by save and load ---- */

/* Counts above these are refused before any size arithmetic (2^46 vertices or edges,
 * 2^32 features or classes), so every product below fits in 64 bits. */
#define MAX_COUNT ((int64_t)1 << 46)
#define MAX_WIDTH ((int64_t)1 << 32)

#define MAX_SLOTS (GNN_FORMAT_NUM_SECTIONS + GNN_FORMAT_MAX_EXT)

/* Header bytes of slot s: the five dataset sections at 128, the extensions at 320. */
static size_t slot_offset(int s)
{
    return s < GNN_FORMAT_NUM_SECTIONS ? GNN_HDR_OFF_SECTIONS + (size_t)s * GNN_HDR_SECTION_SIZE
                                       : GNN_HDR_OFF_EXT + (size_t)(s - GNN_FORMAT_NUM_SECTIONS) * GNN_HDR_SECTION_SIZE;
}

/* An extension name is 1 to 8 characters of [a-z0-9_]. */
static int ext_name_ok(const char *name, size_t max)
{
    size_t len = strnlen(name, max);
    if (len == 0 || len > 8)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return 0;
    }
    return 1;
}

const gnn_format_ext *gnn_dataset_ext(const gnn_dataset *ds, const char *name)
{
    if (!ds || !name)
        return NULL;
    for (int i = 0; i < ds->num_ext && i < GNN_FORMAT_MAX_EXT; i++)
        if (strcmp(ds->ext[i].name, name) == 0)
            return &ds->ext[i];
    return NULL;
}

/* Expected byte length of section s for the given counts; -1 when it overflows. */
static int64_t section_length(int s, int64_t n, int64_t nnz, int64_t f)
{
    /* counts are bounded by load/validate so that these products fit; checked anyway */
    const int64_t lim = INT64_MAX / 16;
    int64_t count;
    switch (s) {
    case GNN_SEC_INDPTR: count = n + 1; break;
    case GNN_SEC_INDICES: count = nnz; break;
    case GNN_SEC_FEATURES:
        if (f > 0 && n > lim / f)
            return -1;
        count = n * f;
        break;
    default: count = n; break;
    }
    if (count < 0 || count > lim)
        return -1;
    return count * (int64_t)k_elem_size[s];
}

/* ---- save ---- */

/* xs (nx): the extension sections written (the dataset's, then the CSR features' when csr);
 * typed: the type header at [512, 1024) follows (gnn_format_types_encode) */
static void encode_header(unsigned char *h, const gnn_dataset *ds, const section_plan *sec, uint64_t file_size,
                          const gnn_format_ext *xs, int nx, int csr, int typed)
{
    memset(h, 0, GNN_FORMAT_HEADER_SIZE);
    memcpy(h, GNN_FORMAT_MAGIC, 8);
    /* version 2 only for CSR features and 3 only for types: every other file stays readable by
     * older readers, byte for byte what they wrote */
    fmt_put_u32(h + GNN_HDR_OFF_VERSION,
                typed ? GNN_FORMAT_VERSION_TYPED : csr ? GNN_FORMAT_VERSION_CSR : GNN_FORMAT_VERSION);
    fmt_put_u32(h + GNN_HDR_OFF_HEADER_SIZE, typed ? GNN_FORMAT_HEADER_SIZE_TYPED : GNN_FORMAT_HEADER_SIZE);
    fmt_put_u64(h + GNN_HDR_OFF_N, (uint64_t)ds->graph.n);
    fmt_put_u64(h + GNN_HDR_OFF_NNZ, (uint64_t)ds->graph.nnz);
    fmt_put_u64(h + GNN_HDR_OFF_NUM_FEATURES, (uint64_t)ds->num_features);
    fmt_put_u64(h + GNN_HDR_OFF_NUM_CLASSES, (uint64_t)ds->num_classes);
    uint32_t flags = 0;
    for (int s = 0; s < GNN_FORMAT_NUM_SECTIONS; s++)
        if (sec[s].present)
            flags |= 1u << s;
    if (csr)
        flags |= GNN_FORMAT_FLAG_FEAT_CSR;
    if (typed)
        flags |= GNN_FORMAT_FLAG_TYPED;
    fmt_put_u32(h + GNN_HDR_OFF_FLAGS, flags);
    fmt_put_u32(h + GNN_HDR_OFF_NUM_SECTIONS, (uint32_t)(GNN_FORMAT_NUM_SECTIONS + nx));
    fmt_put_u64(h + GNN_HDR_OFF_FILE_SIZE, file_size);
    size_t name_len = strnlen(ds->name, sizeof ds->name);
    if (name_len > 63)
        name_len = 63; /* keep a NUL so the field is always a C string */
    memcpy(h + GNN_HDR_OFF_NAME, ds->name, name_len);
    for (int s = 0; s < GNN_FORMAT_NUM_SECTIONS + nx; s++) {
        unsigned char *e = h + slot_offset(s);
        fmt_put_u64(e, sec[s].offset);
        fmt_put_u64(e + 8, sec[s].length);
        fmt_put_u32(e + 16, sec[s].crc);
        if (s < GNN_FORMAT_NUM_SECTIONS) {
            fmt_put_u32(e + 20, sec[s].present ? k_elem_size[s] : 0);
        } else {
            const gnn_format_ext *x = &xs[s - GNN_FORMAT_NUM_SECTIONS];
            fmt_put_u32(e + 20, x->elem_size);
            memcpy(e + 24, x->name, strnlen(x->name, 8));
        }
    }
    const int64_t st[4] = { ds->stats.edges_read, ds->stats.self_loops_dropped,
                            ds->stats.duplicates_merged, ds->stats.symmetrized };
    for (int i = 0; i < 4; i++)
        fmt_put_u64(h + GNN_HDR_OFF_STATS + 8 * (size_t)i, (uint64_t)st[i]);
    fmt_put_u32(h + GNN_HDR_OFF_CRC, gnn_crc32c(0, h, GNN_HDR_OFF_CRC));
}

/* Writes everything to an open stream (the header's hsize bytes, then every present slot in
 * slot order); returns 0 or -1 (errno set by stdio). */
static int write_all(FILE *f, const unsigned char *header, size_t hsize, const section_plan *sec)
{
    static const unsigned char zeros[GNN_FORMAT_ALIGN];
    uint64_t pos = 0;
    if (fwrite(header, 1, hsize, f) != hsize)
        return -1;
    pos = hsize;
    for (int s = 0; s < FMT_ALL_SLOTS; s++) {
        if (!sec[s].present)
            continue;
        size_t pad = (size_t)(sec[s].offset - pos);
        if (pad && fwrite(zeros, 1, pad, f) != pad)
            return -1;
        if (sec[s].length && fwrite(sec[s].data, 1, sec[s].length, f) != sec[s].length)
            return -1;
        pos = sec[s].offset + sec[s].length;
    }
    return 0;
}

gnn_status gnn_dataset_save(const gnn_dataset *ds, const char *path, gnn_err *err)
{
    if (!ds || !path)
        return gnn_err_set(err, GNN_ERR_INVAL, "dataset save: NULL argument");
    if (!host_is_little_endian())
        return gnn_err_set(err, GNN_ERR_UNSUPPORTED, "%s: the binary format needs a little-endian host", path);
    /* never write a file that load would refuse */
    gnn_status st = gnn_dataset_validate(ds, path, err);
    if (st)
        return st;

    if (ds->num_ext < 0 || ds->num_ext > GNN_FORMAT_MAX_EXT)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: %d extension sections, at most %d", path, ds->num_ext,
                           GNN_FORMAT_MAX_EXT);
    for (int i = 0; i < ds->num_ext; i++) {
        const gnn_format_ext *x = &ds->ext[i];
        if (!ext_name_ok(x->name, sizeof x->name) ||
            !(x->elem_size == 1 || x->elem_size == 2 || x->elem_size == 4 || x->elem_size == 8) || x->count < 0 ||
            x->count > MAX_COUNT || (x->count > 0 && !x->data))
            return gnn_err_set(err, GNN_ERR_INVAL,
                               "%s: extension section %d ('%.8s'): needs a name of 1-8 characters [a-z0-9_], element "
                               "size 1, 2, 4 or 8, and a count in [0, 2^46] with data",
                               path, i, x->name);
        for (int j = 0; j < i; j++)
            if (strcmp(ds->ext[j].name, x->name) == 0)
                return gnn_err_set(err, GNN_ERR_INVAL, "%s: extension section '%s' twice", path, x->name);
    }
    /* CSR features: three more extension sections in place of the dense 'features' */
    const int csr = gnn_dataset_feat_is_csr(ds);
    gnn_format_ext xs[GNN_FORMAT_MAX_EXT];
    int nx = ds->num_ext;
    memcpy(xs, ds->ext, (size_t)nx * sizeof xs[0]);
    if (csr) {
        if (nx + 3 > GNN_FORMAT_MAX_EXT)
            return gnn_err_set(err, GNN_ERR_INVAL, "%s: CSR features need 3 extension sections, %d are taken", path, nx);
        const gnn_fcsr *F = &ds->feat_csr;
        const gnn_format_ext fx[3] = { { "feat_ptr", F->indptr, F->rows + 1, 8 }, { "feat_col", F->col, F->nnz, 4 },
                                       { "feat_val", F->val, F->nnz, 4 } };
        for (int i = 0; i < 3; i++) {
            if (gnn_dataset_ext(ds, fx[i].name))
                return gnn_err_set(err, GNN_ERR_INVAL, "%s: extension section '%s' is reserved for CSR features",
                                   path, fx[i].name);
            xs[nx++] = fx[i];
        }
    }
    const int nslots = GNN_FORMAT_NUM_SECTIONS + nx;
    const int64_t n = ds->graph.n, nnz = ds->graph.nnz, f = ds->num_features;
    const int typed = fmt_is_typed(ds);
    const size_t hsize = typed ? GNN_FORMAT_HEADER_SIZE_TYPED : GNN_FORMAT_HEADER_SIZE;
    section_plan sec[FMT_ALL_SLOTS];
    memset(sec, 0, sizeof sec);
    sec[GNN_SEC_INDPTR].data = ds->graph.indptr;
    sec[GNN_SEC_INDICES].data = ds->graph.indices;
    sec[GNN_SEC_FEATURES].data = f > 0 && !csr ? ds->feat : NULL;
    sec[GNN_SEC_LABELS].data = ds->labels;
    sec[GNN_SEC_SPLIT].data = ds->split;
    uint64_t pos = hsize;
    for (int s = 0; s < GNN_FORMAT_NUM_SECTIONS; s++) {
        sec[s].present = s <= GNN_SEC_INDICES || sec[s].data != NULL;
        if (!sec[s].present)
            continue;
        int64_t len = section_length(s, n, nnz, f);
        if (len < 0)
            return gnn_err_set(err, GNN_ERR_RANGE, "%s: section '%s' is too large to write", path, k_section_name[s]);
        sec[s].offset = fmt_round_up(pos, GNN_FORMAT_ALIGN);
        sec[s].length = (uint64_t)len;
        sec[s].crc = gnn_crc32c(0, sec[s].data, (size_t)len);
        pos = sec[s].offset + sec[s].length;
    }
    for (int s = GNN_FORMAT_NUM_SECTIONS; s < nslots; s++) {
        const gnn_format_ext *x = &xs[s - GNN_FORMAT_NUM_SECTIONS];
        sec[s].present = 1;
        sec[s].data = x->data;
        sec[s].offset = fmt_round_up(pos, GNN_FORMAT_ALIGN);
        sec[s].length = (uint64_t)x->count * x->elem_size;
        sec[s].crc = x->count > 0 ? gnn_crc32c(0, x->data, (size_t)sec[s].length) : 0;
        pos = sec[s].offset + sec[s].length;
    }
    void *scratch = NULL; /* the type names and flags as written */
    if (typed && (st = gnn_format_types_plan(ds, path, sec + FMT_TYPE_SLOT0, &pos, &scratch, err)))
        return st;
    unsigned char header[GNN_FORMAT_HEADER_SIZE_TYPED];
    encode_header(header, ds, sec, pos, xs, nx, csr, typed);
    if (typed)
        gnn_format_types_encode(header, ds, sec + FMT_TYPE_SLOT0);

    /* write path.tmp, then rename: a reader never sees a half-written file under path */
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 5);
    if (!tmp) {
        gnn_free(scratch);
        return gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp", 5);
    FILE *fp = fopen(tmp, "wb");
    if (!fp) {
        st = gnn_err_set(err, GNN_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
        free(tmp);
        gnn_free(scratch);
        return st;
    }
    int bad = write_all(fp, header, hsize, sec);
    int saved_errno = errno;
    if (!bad && fflush(fp) != 0)
        bad = 1, saved_errno = errno;
    if (!bad && fsync(fileno(fp)) != 0)
        bad = 1, saved_errno = errno;
    if (fclose(fp) != 0 && !bad)
        bad = 1, saved_errno = errno;
    if (!bad && rename(tmp, path) != 0)
        bad = 1, saved_errno = errno;
    if (bad) {
        unlink(tmp);
        st = gnn_err_set(err, GNN_ERR_IO, "%s: write failed: %s", path, strerror(saved_errno));
    }
    free(tmp);
    gnn_free(scratch);
    return st;
}

/* ---- load ---- */

typedef struct header_info {
    int64_t n, nnz, f, classes;
    uint32_t version;
    uint32_t flags;
    uint64_t file_size;
    char name[64];
    gnn_import_stats stats;
    int nslots; /* 5 + extension sections */
    uint32_t hsize; /* 512, or 1024 for a typed file (version 3) */
    int64_t num_vtypes, num_etypes;
    section_plan sec[FMT_ALL_SLOTS]; /* the type sections from FMT_TYPE_SLOT0 */
    gnn_format_ext ext[GNN_FORMAT_MAX_EXT];
} header_info;


/* Parse and check the fixed part of the header (magic, version, CRC, counts). */
static gnn_status parse_header(const unsigned char *h, uint64_t actual_size, const char *path,
                               header_info *hi, gnn_err *err)
{
    if (memcmp(h, GNN_FORMAT_MAGIC, 8) != 0) {
        char shown[8 * 4 + 1];
        size_t k = 0;
        for (int i = 0; i < 8; i++)
            k += (size_t)snprintf(shown + k, sizeof shown - k, (h[i] >= 32 && h[i] < 127) ? "%c" : "\\x%02x", h[i]);
        return gnn_err_set(err, GNN_ERR_FORMAT,
                           "%s: section 'header': bad magic '%s', expected 'GNNREF\\0\\0' (not a gnnref binary file; "
                           "for other data use `gnnref convert --format text|ogb|edgelist`)", path, shown);
    }
    uint32_t version = fmt_get_u32(h + GNN_HDR_OFF_VERSION);
    if (version != GNN_FORMAT_VERSION && version != GNN_FORMAT_VERSION_CSR && version != GNN_FORMAT_VERSION_TYPED)
        return gnn_err_set(err, GNN_ERR_FORMAT,
                           "%s: section 'header': format version %u, this build reads versions %u to %u", path,
                           version, GNN_FORMAT_VERSION, GNN_FORMAT_VERSION_TYPED);
    hi->version = version;
    uint32_t want = fmt_get_u32(h + GNN_HDR_OFF_CRC), got = gnn_crc32c(0, h, GNN_HDR_OFF_CRC);
    if (want != got)
        return gnn_err_set(err, GNN_ERR_CHECKSUM,
                           "%s: section 'header': CRC32C mismatch (stored 0x%08x, computed 0x%08x)", path, want, got);
    /* version 3 (types) has the 1024-byte header, the others 512 */
    const uint32_t want_hsize = version == GNN_FORMAT_VERSION_TYPED ? GNN_FORMAT_HEADER_SIZE_TYPED : GNN_FORMAT_HEADER_SIZE;
    uint32_t hsize = fmt_get_u32(h + GNN_HDR_OFF_HEADER_SIZE), nsec = fmt_get_u32(h + GNN_HDR_OFF_NUM_SECTIONS);
    if (hsize != want_hsize || nsec < GNN_FORMAT_NUM_SECTIONS || nsec > MAX_SLOTS)
        return gnn_err_set(err, GNN_ERR_FORMAT,
                           "%s: section 'header': header size %u and section count %u, expected %u (version %u) and %u "
                           "to %u", path, hsize, nsec, want_hsize, version, GNN_FORMAT_NUM_SECTIONS, MAX_SLOTS);
    hi->nslots = (int)nsec;
    hi->hsize = hsize;
    hi->n = (int64_t)fmt_get_u64(h + GNN_HDR_OFF_N);
    hi->nnz = (int64_t)fmt_get_u64(h + GNN_HDR_OFF_NNZ);
    hi->f = (int64_t)fmt_get_u64(h + GNN_HDR_OFF_NUM_FEATURES);
    hi->classes = (int64_t)fmt_get_u64(h + GNN_HDR_OFF_NUM_CLASSES);
    if (hi->n < 0 || hi->n > MAX_COUNT || hi->nnz < 0 || hi->nnz > MAX_COUNT || hi->f < 0 || hi->f > MAX_WIDTH ||
        hi->classes < 0 || hi->classes > MAX_WIDTH)
        return gnn_err_set(err, GNN_ERR_RANGE,
                           "%s: section 'header': counts out of range (n %lld, nnz %lld, features %lld, classes %lld)",
                           path, (long long)hi->n, (long long)hi->nnz, (long long)hi->f, (long long)hi->classes);
    hi->flags = fmt_get_u32(h + GNN_HDR_OFF_FLAGS);
    hi->file_size = fmt_get_u64(h + GNN_HDR_OFF_FILE_SIZE);
    if (actual_size < hi->file_size)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: truncated: the file is %llu bytes, its header says %llu",
                           path, (unsigned long long)actual_size, (unsigned long long)hi->file_size);
    if (actual_size > hi->file_size)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: the file is %llu bytes, its header says %llu (trailing data)",
                           path, (unsigned long long)actual_size, (unsigned long long)hi->file_size);
    memcpy(hi->name, h + GNN_HDR_OFF_NAME, 63);
    hi->name[63] = '\0';
    hi->stats.edges_read = (int64_t)fmt_get_u64(h + GNN_HDR_OFF_STATS);
    hi->stats.self_loops_dropped = (int64_t)fmt_get_u64(h + GNN_HDR_OFF_STATS + 8);
    hi->stats.duplicates_merged = (int64_t)fmt_get_u64(h + GNN_HDR_OFF_STATS + 16);
    hi->stats.symmetrized = (int64_t)fmt_get_u64(h + GNN_HDR_OFF_STATS + 24);
    return GNN_OK;
}

/* Check the section table against the counts and the file size. */
static gnn_status parse_sections(const unsigned char *h, const char *path, header_info *hi, gnn_err *err)
{
    const uint32_t known = (hi->version >= GNN_FORMAT_VERSION_CSR ? GNN_FORMAT_FLAG_FEAT_CSR : 0) |
                           (hi->version >= GNN_FORMAT_VERSION_TYPED ? GNN_FORMAT_FLAG_TYPED : 0);
    if ((hi->flags & ~known) >> GNN_FORMAT_NUM_SECTIONS)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section 'header': unknown section flags 0x%x", path, hi->flags);
    const int typed = (hi->flags & GNN_FORMAT_FLAG_TYPED) != 0;
    if (typed != (hi->version == GNN_FORMAT_VERSION_TYPED))
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section 'header': version 3 without the types flag (bit 6)", path);
    const int csr = (hi->flags & GNN_FORMAT_FLAG_FEAT_CSR) != 0;
    if (csr && (hi->flags >> GNN_SEC_FEATURES & 1u))
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section 'features': present, but the header says CSR features",
                           path);
    uint64_t prev_end = hi->hsize;
    for (int s = 0; s < hi->nslots; s++) {
        section_plan *p = &hi->sec[s];
        const unsigned char *e = h + slot_offset(s);
        p->present = s >= GNN_FORMAT_NUM_SECTIONS || ((hi->flags >> s) & 1u);
        p->offset = fmt_get_u64(e);
        p->length = fmt_get_u64(e + 8);
        p->crc = fmt_get_u32(e + 16);
        uint32_t esize = fmt_get_u32(e + 20);
        if (s >= GNN_FORMAT_NUM_SECTIONS) {
            gnn_format_ext *x = &hi->ext[s - GNN_FORMAT_NUM_SECTIONS];
            memset(x, 0, sizeof *x);
            memcpy(x->name, e + 24, 8);
            int padded = 1; /* NUL-padded: every byte after the name is 0 */
            for (size_t i = strnlen(x->name, 8); i < 8; i++)
                padded &= e[24 + i] == 0;
            if (!ext_name_ok(x->name, 8) || !padded)
                return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section 'header': extension section %d has a bad name",
                                   path, s - GNN_FORMAT_NUM_SECTIONS);
            for (int j = GNN_FORMAT_NUM_SECTIONS; j < s; j++)
                if (strcmp(hi->ext[j - GNN_FORMAT_NUM_SECTIONS].name, x->name) == 0)
                    return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section 'header': extension section '%s' twice",
                                       path, x->name);
            if (!(esize == 1 || esize == 2 || esize == 4 || esize == 8) || p->length % esize != 0 ||
                p->length / esize > (uint64_t)MAX_COUNT)
                return gnn_err_set(err, GNN_ERR_FORMAT,
                                   "%s: section '%s': length %llu bytes of %u-byte elements is not a valid array",
                                   path, x->name, (unsigned long long)p->length, esize);
            x->elem_size = esize;
            x->count = (int64_t)(p->length / esize);
        }
        const char *name = s < GNN_FORMAT_NUM_SECTIONS ? k_section_name[s] : hi->ext[s - GNN_FORMAT_NUM_SECTIONS].name;
        if (s >= GNN_FORMAT_NUM_SECTIONS)
            goto placement;
        if (!p->present) {
            if (s <= GNN_SEC_INDICES)
                return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section '%s' is required but absent", path, name);
            if (s == GNN_SEC_FEATURES && hi->f > 0 && !csr)
                return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section 'features' is absent but the header says %lld features",
                                   path, (long long)hi->f);
            continue;
        }
        int64_t want = section_length(s, hi->n, hi->nnz, hi->f);
        if (want < 0 || p->length != (uint64_t)want || esize != k_elem_size[s])
            return gnn_err_set(err, GNN_ERR_FORMAT,
                               "%s: section '%s': length %llu bytes of %u-byte elements, expected %lld bytes of %u-byte elements",
                               path, name, (unsigned long long)p->length, esize, (long long)want, k_elem_size[s]);
    placement:
        if (p->offset % GNN_FORMAT_ALIGN != 0 || p->offset < prev_end)
            return gnn_err_set(err, GNN_ERR_FORMAT,
                               "%s: section '%s': offset %llu is not %u-byte aligned after the previous section (ends at %llu)",
                               path, name, (unsigned long long)p->offset, GNN_FORMAT_ALIGN, (unsigned long long)prev_end);
        if (p->offset > hi->file_size || p->length > hi->file_size - p->offset)
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: truncated: section '%s' ends at byte %llu, the file has %llu",
                               path, name, (unsigned long long)(p->offset + p->length), (unsigned long long)hi->file_size);
        prev_end = p->offset + p->length;
    }
    /* the type sections come last; h holds the whole 1024-byte header of a typed file */
    if (typed)
        return gnn_format_types_parse(h, path, hi->n, hi->nnz, hi->file_size, &prev_end, hi->sec + FMT_TYPE_SLOT0,
                                      &hi->num_vtypes, &hi->num_etypes, err);
    return GNN_OK;
}

/* Map the file read-only inside an anonymous reservation of file + spare split bytes. */
static gnn_status map_file(int fd, uint64_t size, int64_t n, const char *path, void **base, size_t *len,
                           gnn_err *err)
{
    const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    const uint64_t file_pages = fmt_round_up(size, page);
    const uint64_t spare = fmt_round_up((uint64_t)(n > 0 ? n : 1), page);
    if (file_pages + spare > (uint64_t)SIZE_MAX)
        return gnn_err_set(err, GNN_ERR_RANGE, "%s: too large to map", path);
    void *r = mmap(NULL, (size_t)(file_pages + spare), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r == MAP_FAILED)
        return gnn_err_set(err, GNN_ERR_NOMEM, "%s: cannot reserve %llu bytes of address space: %s", path,
                           (unsigned long long)(file_pages + spare), strerror(errno));
    /* MAP_FIXED over our own reservation: replaces those pages, nothing else */
    void *m = mmap(r, (size_t)size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
    if (m == MAP_FAILED) {
        int e = errno;
        munmap(r, (size_t)(file_pages + spare));
        return gnn_err_set(err, GNN_ERR_IO, "%s: mmap failed: %s", path, strerror(e));
    }
    *base = r;
    *len = (size_t)(file_pages + spare);
    return GNN_OK;
}

/* The spare split area of a loaded dataset: the last fmt_round_up(n, page) bytes of the mapping. */
static uint8_t *spare_split(const gnn_dataset *ds)
{
    const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    const uint64_t spare = fmt_round_up((uint64_t)(ds->graph.n > 0 ? ds->graph.n : 1), page);
    return (uint8_t *)ds->map_base + (ds->map_len - spare);
}

static gnn_status check_section_crcs(const unsigned char *base, const char *path, const header_info *hi, gnn_err *err)
{
    for (int s = 0; s < FMT_ALL_SLOTS; s++) {
        const section_plan *p = &hi->sec[s];
        if (!p->present || (s >= hi->nslots && s < FMT_TYPE_SLOT0))
            continue;
        uint32_t got = gnn_crc32c(0, base + p->offset, (size_t)p->length);
        const char *name = s < GNN_FORMAT_NUM_SECTIONS ? k_section_name[s]
                           : s < FMT_TYPE_SLOT0        ? hi->ext[s - GNN_FORMAT_NUM_SECTIONS].name
                                                       : gnn_format_type_section_name(s - FMT_TYPE_SLOT0);
        if (got != p->crc)
            return gnn_err_set(err, GNN_ERR_CHECKSUM,
                               "%s: section '%s': CRC32C mismatch (stored 0x%08x, computed 0x%08x): the file is corrupted",
                               path, name, p->crc, got);
    }
    return GNN_OK;
}

/* Version 2 with flag bit 5: the features are CSR in the extension sections feat_ptr (int64,
 * n + 1), feat_col (int32) and feat_val (f32, as many as feat_col). Move them from ds->ext to
 * ds->feat_csr (pointing into the read-only mapping), check them (gnn_fcsr_validate: the
 * message names the section, the row and the value), and build the dense view `feat`. */
static gnn_status load_csr_features(gnn_dataset *ds, const char *path, gnn_err *err)
{
    static const char *const names[3] = { "feat_ptr", "feat_col", "feat_val" };
    static const uint32_t esize[3] = { 8, 4, 4 };
    const int64_t n = ds->graph.n, f = ds->num_features;
    const void *data[3];
    int64_t count[3];
    for (int i = 0; i < 3; i++) {
        const gnn_format_ext *x = gnn_dataset_ext(ds, names[i]);
        if (!x)
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section '%s' is absent but the header says CSR features",
                               path, names[i]);
        if (x->elem_size != esize[i])
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section '%s': %u-byte elements, expected %u", path,
                               names[i], x->elem_size, esize[i]);
        data[i] = x->data;
        count[i] = x->count;
    }
    if (count[0] != n + 1 || count[1] != count[2])
        return gnn_err_set(err, GNN_ERR_FORMAT,
                           "%s: section 'feat_ptr': %lld offsets for %lld vertices, and %lld columns for %lld values "
                           "(expected n + 1 offsets and as many columns as values)", path, (long long)count[0],
                           (long long)n, (long long)count[1], (long long)count[2]);
    if (f > 0 && n > INT64_MAX / 4 / f)
        return gnn_err_set(err, GNN_ERR_RANGE, "%s: section 'feat_ptr': %lld x %lld features are too large", path,
                           (long long)n, (long long)f);
    /* the dense view is a claim: at most max(2^24, 1024 x entries) cells, checked before it is
     * allocated (the rule of gnn_dataset_validate, core/io/dataset_util.c) */
    if (f > 0 && n > ((int64_t)1 << 24) / f && n * f / 1024 > count[1])
        return gnn_err_set(err, GNN_ERR_RANGE,
                           "%s: section 'feat_ptr': %lld x %lld features (%lld cells of dense view) from %lld stored "
                           "entries: CSR features may have at most max(2^24, 1024 x entries) cells",
                           path, (long long)n, (long long)f, (long long)(n * f), (long long)count[1]);
    int kept = 0; /* the dataset's own extension sections, without the three */
    for (int i = 0; i < ds->num_ext; i++)
        if (strcmp(ds->ext[i].name, names[0]) && strcmp(ds->ext[i].name, names[1]) && strcmp(ds->ext[i].name, names[2]))
            ds->ext[kept++] = ds->ext[i];
    ds->num_ext = kept;
    gnn_fcsr *F = &ds->feat_csr;
    F->rows = n;
    F->cols = f;
    F->nnz = count[1];
    F->indptr = (int64_t *)(uintptr_t)data[0]; /* read-only memory: the mapping */
    F->col = (int32_t *)(uintptr_t)data[1];
    F->val = (float *)(uintptr_t)data[2];
    F->owns = 0;
    gnn_status st = gnn_fcsr_validate(F, path, err);
    if (st)
        return st;
    if (!(ds->feat_view = gnn_malloc((size_t)(n * f) * sizeof(float))))
        return gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory for the dense view of %lld x %lld features",
                           path, (long long)n, (long long)f);
    gnn_fcsr_to_dense(F, ds->feat_view);
    ds->feat = f > 0 ? ds->feat_view : NULL;
    return GNN_OK;
}

gnn_status gnn_dataset_load(gnn_dataset *ds, const char *path, gnn_err *err)
{
    if (!ds || !path)
        return gnn_err_set(err, GNN_ERR_INVAL, "dataset load: NULL argument");
    memset(ds, 0, sizeof *ds);
    if (!host_is_little_endian())
        return gnn_err_set(err, GNN_ERR_UNSUPPORTED, "%s: the binary format needs a little-endian host", path);
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever; a
     * regular file's reads ignore the flag */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return gnn_err_set(err, GNN_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    gnn_status st = GNN_OK;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        st = gnn_err_set(err, GNN_ERR_IO, "%s: not a regular file", path);
        goto close_fd;
    }
    const uint64_t size = (uint64_t)sb.st_size;
    unsigned char h[GNN_FORMAT_HEADER_SIZE_TYPED]; /* a typed file's; the others use the first 512 */
    if (size < GNN_FORMAT_HEADER_SIZE) {
        /* too short for a header: say "truncated" only when it at least starts like one */
        size_t k = (size_t)size < 8 ? (size_t)size : 8;
        ssize_t got = pread(fd, h, k, 0);
        if (got == (ssize_t)k && memcmp(h, GNN_FORMAT_MAGIC, k) == 0 && k > 0)
            st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: truncated: the file is %llu bytes, the header alone is %u",
                             path, (unsigned long long)size, GNN_FORMAT_HEADER_SIZE);
        else
            st = gnn_err_set(err, GNN_ERR_FORMAT,
                             "%s: section 'header': bad magic in a %llu-byte file (not a gnnref binary file; "
                             "for other data use `gnnref convert --format text|ogb|edgelist`)", path, (unsigned long long)size);
        goto close_fd;
    }
    if (pread(fd, h, GNN_FORMAT_HEADER_SIZE, 0) != (ssize_t)GNN_FORMAT_HEADER_SIZE) {
        st = gnn_err_set(err, GNN_ERR_IO, "%s: cannot read the header: %s", path, strerror(errno));
        goto close_fd;
    }
    header_info hi;
    memset(&hi, 0, sizeof hi);
    if ((st = parse_header(h, size, path, &hi, err)))
        goto close_fd;
    if (hi.hsize > GNN_FORMAT_HEADER_SIZE) { /* version 3: the type header follows */
        if (size < hi.hsize) {
            st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: truncated: the file is %llu bytes, the header alone is %u", path,
                             (unsigned long long)size, hi.hsize);
            goto close_fd;
        }
        if (pread(fd, h + GNN_FORMAT_HEADER_SIZE, hi.hsize - GNN_FORMAT_HEADER_SIZE, GNN_FORMAT_HEADER_SIZE) !=
            (ssize_t)(hi.hsize - GNN_FORMAT_HEADER_SIZE)) {
            st = gnn_err_set(err, GNN_ERR_IO, "%s: cannot read the type header: %s", path, strerror(errno));
            goto close_fd;
        }
    }
    if ((st = parse_sections(h, path, &hi, err)))
        goto close_fd;
    void *base = NULL;
    size_t len = 0;
    if ((st = map_file(fd, size, hi.n, path, &base, &len, err)))
        goto close_fd;
    close(fd);
    fd = -1;
    ds->map_base = base;
    ds->map_len = len;
    if ((st = check_section_crcs(base, path, &hi, err)))
        goto unmap;
    const unsigned char *b = base;
    memcpy(ds->name, hi.name, sizeof ds->name);
    ds->graph.n = hi.n;
    ds->graph.nnz = hi.nnz;
    ds->graph.indptr = (int64_t *)(void *)(b + hi.sec[GNN_SEC_INDPTR].offset);
    ds->graph.indices = (int64_t *)(void *)(b + hi.sec[GNN_SEC_INDICES].offset);
    ds->graph.owns = 0;
    ds->num_features = hi.f;
    ds->num_classes = hi.classes;
    ds->feat = hi.sec[GNN_SEC_FEATURES].present && hi.f > 0 ? (float *)(void *)(b + hi.sec[GNN_SEC_FEATURES].offset) : NULL;
    ds->labels = hi.sec[GNN_SEC_LABELS].present ? (int32_t *)(void *)(b + hi.sec[GNN_SEC_LABELS].offset) : NULL;
    ds->split = hi.sec[GNN_SEC_SPLIT].present ? (uint8_t *)(void *)(b + hi.sec[GNN_SEC_SPLIT].offset) : NULL;
    ds->owns_arrays = 0;
    ds->stats = hi.stats;
    ds->num_ext = hi.nslots - GNN_FORMAT_NUM_SECTIONS;
    for (int i = 0; i < ds->num_ext; i++) {
        ds->ext[i] = hi.ext[i];
        ds->ext[i].data = b + hi.sec[GNN_FORMAT_NUM_SECTIONS + i].offset;
    }
    if (hi.flags & GNN_FORMAT_FLAG_TYPED)
        gnn_format_types_attach(ds, b, hi.sec + FMT_TYPE_SLOT0, hi.num_vtypes, hi.num_etypes);
    if ((hi.flags & GNN_FORMAT_FLAG_FEAT_CSR) && (st = load_csr_features(ds, path, err)))
        goto unmap;
    if ((st = gnn_dataset_validate(ds, path, err)))
        goto unmap;
    return GNN_OK;
unmap:
    gnn_dataset_free(ds);
close_fd:
    if (fd >= 0)
        close(fd);
    return st;
}

gnn_status gnn_dataset_split_storage(gnn_dataset *ds, gnn_err *err)
{
    if (!ds || ds->graph.n < 0)
        return gnn_err_set(err, GNN_ERR_INVAL, "split storage: bad dataset");
    if (ds->map_base) {
        /* the file's own split section (if any) is read-only; switch to the spare area */
        ds->split = spare_split(ds);
        return GNN_OK;
    }
    if (ds->split)
        return GNN_OK;
    if (!ds->owns_arrays)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: cannot add a split to a dataset that does not own its arrays", ds->name);
    ds->split = gnn_calloc((size_t)ds->graph.n, 1);
    return ds->split ? GNN_OK : GNN_ERR_NOMEM;
}
