/* core/io/format_types.c -- the type sections of the native format, version 3 (docs/formats.md,
 * "Types"; include/gnnref/dataset.h has the layout constants).
 *
 * A typed file's header is 1024 bytes: the version-1/2 header at [0, 512), unchanged, and a
 * type header at [512, 1024) with its own table of five sections and its own CRC32C. Why a
 * second half instead of more extension entries: partition part files already use all five
 * extension slots, and the type header's fixed table keeps the type sections out of
 * `num_ext`, so every reader of extensions (partition files, CSR features) is unchanged.
 *
 *   vtype     int32     n            vertex type, never decreasing (homogenized ids)
 *   etype     int32     nnz          edge type of CSR entry e
 *   vtnames   char[64]  num_vtypes   NUL-terminated, NUL-padded names
 *   etnames   char[64]  num_etypes   canonical triplets "src:rel:dst" where there is one
 *   featless  uint8     num_vtypes   1: the type has no input features (zero rows)
 *
 * A section is present exactly when its count is above 0 (vtype, vtnames and featless with
 * vertex types, etype and etnames with edge types); the loader points the dataset into the
 * mapping, as for every other section. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/io/format_internal.h"
#include "gnnref/crc32c.h"
#include "gnnref/dataset.h"
#include "gnnref/tensor.h"

static const char *const k_tsec_name[GNN_FORMAT_NUM_TYPE_SECTIONS] = { "vtype", "etype", "vtnames", "etnames",
                                                                      "featless" };
static const uint32_t k_tsec_elem[GNN_FORMAT_NUM_TYPE_SECTIONS] = { 4, 4, GNN_TYPE_NAME_MAX, GNN_TYPE_NAME_MAX, 1 };

const char *gnn_format_type_section_name(int s)
{
    return (s >= 0 && s < GNN_FORMAT_NUM_TYPE_SECTIONS) ? k_tsec_name[s] : "?";
}

/* Elements of type section s for the counts; whether it is present follows from them. */
static int64_t tsec_count(int s, int64_t n, int64_t nnz, int64_t T, int64_t R)
{
    switch (s) {
    case GNN_TSEC_VTYPE: return T > 0 ? n : 0;
    case GNN_TSEC_ETYPE: return R > 0 ? nnz : 0;
    case GNN_TSEC_VTNAMES:
    case GNN_TSEC_FEATLESS: return T;
    default: return R;
    }
}

static int tsec_present(int s, int64_t T, int64_t R)
{
    return (s == GNN_TSEC_ETYPE || s == GNN_TSEC_ETNAMES) ? R > 0 : T > 0;
}

/* Names for the types that have none in memory: "t<i>" for vertex types, "r<i>" for edge types,
 * zero-padded like every name in a file. */
static void default_names(char (*out)[GNN_TYPE_NAME_MAX], int64_t count, char prefix)
{
    for (int64_t i = 0; i < count; i++)
        snprintf(out[i], GNN_TYPE_NAME_MAX, "%c%lld", prefix, (long long)i);
}

gnn_status gnn_format_types_plan(const gnn_dataset *ds, const char *path, section_plan *tsec, uint64_t *pos,
                                 void **scratch, gnn_err *err)
{
    const int64_t T = ds->num_vtypes, R = ds->num_etypes;
    *scratch = NULL;
    /* the names are written zero-padded whatever the memory holds after each NUL, so that the
     * same dataset always gives the same bytes: copy them into a zeroed buffer */
    const size_t names_bytes = (size_t)(T + R) * GNN_TYPE_NAME_MAX;
    char *buf = gnn_calloc(names_bytes + (size_t)T + 1, 1);
    if (!buf)
        return gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory for the type names", path);
    *scratch = buf;
    char (*vn)[GNN_TYPE_NAME_MAX] = (char (*)[GNN_TYPE_NAME_MAX])buf;
    char (*en)[GNN_TYPE_NAME_MAX] = vn + T;
    uint8_t *featless = (uint8_t *)(buf + names_bytes);
    if (ds->vtype_names)
        for (int64_t t = 0; t < T; t++)
            memcpy(vn[t], ds->vtype_names[t], strnlen(ds->vtype_names[t], GNN_TYPE_NAME_MAX - 1));
    else
        default_names(vn, T, 't');
    if (ds->etype_names)
        for (int64_t r = 0; r < R; r++)
            memcpy(en[r], ds->etype_names[r], strnlen(ds->etype_names[r], GNN_TYPE_NAME_MAX - 1));
    else
        default_names(en, R, 'r');
    if (ds->vtype_featless)
        memcpy(featless, ds->vtype_featless, (size_t)T);
    const void *data[GNN_FORMAT_NUM_TYPE_SECTIONS] = { ds->vtype, ds->etype, vn, en, featless };
    for (int s = 0; s < GNN_FORMAT_NUM_TYPE_SECTIONS; s++) {
        section_plan *p = &tsec[s];
        memset(p, 0, sizeof *p);
        if (!(p->present = tsec_present(s, T, R)))
            continue;
        p->data = data[s];
        p->offset = fmt_round_up(*pos, GNN_FORMAT_ALIGN);
        p->length = (uint64_t)tsec_count(s, ds->graph.n, ds->graph.nnz, T, R) * k_tsec_elem[s];
        p->crc = p->length ? gnn_crc32c(0, p->data, (size_t)p->length) : 0;
        *pos = p->offset + p->length;
    }
    return GNN_OK;
}

void gnn_format_types_encode(unsigned char *h, const gnn_dataset *ds, const section_plan *tsec)
{
    unsigned char *t = h + GNN_FORMAT_HEADER_SIZE;
    memset(t, 0, GNN_FORMAT_HEADER_SIZE_TYPED - GNN_FORMAT_HEADER_SIZE);
    memcpy(h + GNN_THDR_OFF_MAGIC, GNN_THDR_MAGIC, 8);
    fmt_put_u64(h + GNN_THDR_OFF_NUM_VTYPES, (uint64_t)ds->num_vtypes);
    fmt_put_u64(h + GNN_THDR_OFF_NUM_ETYPES, (uint64_t)ds->num_etypes);
    uint32_t flags = 0;
    for (int s = 0; s < GNN_FORMAT_NUM_TYPE_SECTIONS; s++) {
        unsigned char *e = h + GNN_THDR_OFF_SECTIONS + (size_t)s * GNN_HDR_SECTION_SIZE;
        if (!tsec[s].present)
            continue;
        flags |= 1u << s;
        fmt_put_u64(e, tsec[s].offset);
        fmt_put_u64(e + 8, tsec[s].length);
        fmt_put_u32(e + 16, tsec[s].crc);
        fmt_put_u32(e + 20, k_tsec_elem[s]);
        memcpy(e + 24, k_tsec_name[s], strlen(k_tsec_name[s]));
    }
    fmt_put_u32(h + GNN_THDR_OFF_FLAGS, flags);
    fmt_put_u32(h + GNN_THDR_OFF_NUM_SECTIONS, GNN_FORMAT_NUM_TYPE_SECTIONS);
    fmt_put_u32(h + GNN_THDR_OFF_CRC,
                gnn_crc32c(0, h + GNN_THDR_OFF_MAGIC, GNN_THDR_OFF_CRC - GNN_THDR_OFF_MAGIC));
}

/* The fixed part of the type header: tag, CRC, counts, flags. */
static gnn_status parse_type_counts(const unsigned char *h, const char *path, int64_t *T, int64_t *R, uint32_t *flags,
                                    gnn_err *err)
{
    if (memcmp(h + GNN_THDR_OFF_MAGIC, GNN_THDR_MAGIC, 8) != 0)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section 'types header': bad tag at byte %u, expected '%s'", path,
                           GNN_THDR_OFF_MAGIC, GNN_THDR_MAGIC);
    const uint32_t want = fmt_get_u32(h + GNN_THDR_OFF_CRC);
    const uint32_t got = gnn_crc32c(0, h + GNN_THDR_OFF_MAGIC, GNN_THDR_OFF_CRC - GNN_THDR_OFF_MAGIC);
    if (want != got)
        return gnn_err_set(err, GNN_ERR_CHECKSUM,
                           "%s: section 'types header': CRC32C mismatch (stored 0x%08x, computed 0x%08x)", path, want,
                           got);
    *T = (int64_t)fmt_get_u64(h + GNN_THDR_OFF_NUM_VTYPES);
    *R = (int64_t)fmt_get_u64(h + GNN_THDR_OFF_NUM_ETYPES);
    *flags = fmt_get_u32(h + GNN_THDR_OFF_FLAGS);
    const uint32_t nsec = fmt_get_u32(h + GNN_THDR_OFF_NUM_SECTIONS);
    if (*T < 0 || *T > GNN_TYPES_MAX || *R < 0 || *R > GNN_TYPES_MAX || (*T == 0 && *R == 0) ||
        nsec != GNN_FORMAT_NUM_TYPE_SECTIONS)
        return gnn_err_set(err, GNN_ERR_RANGE,
                           "%s: section 'types header': %lld vertex types, %lld edge types, %u type sections "
                           "(expected 0 to %d types of each kind, not both 0, and %d sections)",
                           path, (long long)*T, (long long)*R, nsec, GNN_TYPES_MAX, GNN_FORMAT_NUM_TYPE_SECTIONS);
    uint32_t expect = 0;
    for (int s = 0; s < GNN_FORMAT_NUM_TYPE_SECTIONS; s++)
        expect |= (uint32_t)tsec_present(s, *T, *R) << s;
    if (*flags != expect)
        return gnn_err_set(err, GNN_ERR_FORMAT,
                           "%s: section 'types header': section flags 0x%x, expected 0x%x for %lld vertex types and "
                           "%lld edge types", path, *flags, expect, (long long)*T, (long long)*R);
    return GNN_OK;
}

gnn_status gnn_format_types_parse(const unsigned char *h, const char *path, int64_t n, int64_t nnz,
                                  uint64_t file_size, uint64_t *prev_end, section_plan *tsec, int64_t *num_vtypes,
                                  int64_t *num_etypes, gnn_err *err)
{
    int64_t T = 0, R = 0;
    uint32_t flags = 0;
    gnn_status st = parse_type_counts(h, path, &T, &R, &flags, err);
    if (st)
        return st;
    for (int s = 0; s < GNN_FORMAT_NUM_TYPE_SECTIONS; s++) {
        const unsigned char *e = h + GNN_THDR_OFF_SECTIONS + (size_t)s * GNN_HDR_SECTION_SIZE;
        section_plan *p = &tsec[s];
        memset(p, 0, sizeof *p);
        if (!(p->present = (int)(flags >> s & 1u)))
            continue;
        p->offset = fmt_get_u64(e);
        p->length = fmt_get_u64(e + 8);
        p->crc = fmt_get_u32(e + 16);
        const uint32_t esize = fmt_get_u32(e + 20);
        char name[9] = { 0 };
        memcpy(name, e + 24, 8);
        const uint64_t want = (uint64_t)tsec_count(s, n, nnz, T, R) * k_tsec_elem[s];
        if (strcmp(name, k_tsec_name[s]) != 0 || esize != k_tsec_elem[s] || p->length != want)
            return gnn_err_set(err, GNN_ERR_FORMAT,
                               "%s: section '%s': entry named '%.8s', %llu bytes of %u-byte elements, expected '%s', "
                               "%llu bytes of %u-byte elements", path, k_tsec_name[s], name,
                               (unsigned long long)p->length, esize, k_tsec_name[s], (unsigned long long)want,
                               k_tsec_elem[s]);
        if (p->offset % GNN_FORMAT_ALIGN != 0 || p->offset < *prev_end)
            return gnn_err_set(err, GNN_ERR_FORMAT,
                               "%s: section '%s': offset %llu is not %u-byte aligned after the previous section (ends at "
                               "%llu)", path, k_tsec_name[s], (unsigned long long)p->offset, GNN_FORMAT_ALIGN,
                               (unsigned long long)*prev_end);
        if (p->offset > file_size || p->length > file_size - p->offset)
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: truncated: section '%s' ends at byte %llu, the file has %llu",
                               path, k_tsec_name[s], (unsigned long long)(p->offset + p->length),
                               (unsigned long long)file_size);
        *prev_end = p->offset + p->length;
    }
    *num_vtypes = T;
    *num_etypes = R;
    return GNN_OK;
}

void gnn_format_types_attach(gnn_dataset *ds, const unsigned char *base, const section_plan *tsec,
                             int64_t num_vtypes, int64_t num_etypes)
{
    /* read-only memory (the mapping); gnn_dataset_free knows not to free it */
    void *at[GNN_FORMAT_NUM_TYPE_SECTIONS];
    for (int s = 0; s < GNN_FORMAT_NUM_TYPE_SECTIONS; s++)
        at[s] = tsec[s].present ? (void *)(uintptr_t)(base + tsec[s].offset) : NULL;
    ds->num_vtypes = num_vtypes;
    ds->num_etypes = num_etypes;
    ds->vtype = at[GNN_TSEC_VTYPE];
    ds->etype = at[GNN_TSEC_ETYPE];
    ds->vtype_names = at[GNN_TSEC_VTNAMES];
    ds->etype_names = at[GNN_TSEC_ETNAMES];
    ds->vtype_featless = at[GNN_TSEC_FEATLESS];
}
