/* core/io/partition_manifest.c -- a partition set's manifest.json (core/io/partition_io_internal.h has
 * the layout): the set's fingerprints, and reading the manifest with every check -- its own
 * CRC32C first, then each field's type and range, then its counts against the bytes on disk
 * (check_counts) -- before anything is allocated from what it says. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include "core/io/partition_io_internal.h"
#include "gnnref/crc32c.h"
#include "gnnref/dataset.h"
#include "gnnref/partition.h"

#define MAX_MANIFEST_BYTES ((long)64 << 20)

uint32_t gnn_graph_crc(const gnn_csr *g)
{
    uint32_t c = gnn_crc32c(0, g->indptr, ((size_t)g->n + 1) * sizeof(int64_t));
    return gnn_crc32c(c, g->indices, (size_t)g->nnz * sizeof(int64_t));
}

uint64_t gnn_partition_set_id(const gnn_partition *p, uint32_t graph_crc)
{
    const uint32_t hi = gnn_crc32c(0, p->part, (size_t)p->n * sizeof(int32_t));
    const uint32_t lo = p->trainer ? gnn_crc32c(graph_crc, p->trainer, (size_t)p->n * sizeof(int32_t)) : graph_crc;
    return (uint64_t)hi << 32 | lo;
}

/* Files of a partition set must be regular files: opening a FIFO would wait for a writer. */
gnn_status gnn_pset_check_regular(const char *path, gnn_err *err)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return gnn_err_set(err, GNN_ERR_IO, "%s: not a regular file", path);
    return GNN_OK;
}

/* Find the 8 hex digits of "manifest_crc32c": "0x........" in text; NULL when absent. */
char *gnn_pset_crc_digits(char *text, size_t len)
{
    const size_t klen = strlen("\"" CRC_KEY "\"");
    for (size_t i = 0; i + klen <= len; i++) {
        if (memcmp(text + i, "\"" CRC_KEY "\"", klen) != 0)
            continue;
        size_t j = i + klen;
        while (j < len && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r'))
            j++;
        if (j >= len || text[j] != ':')
            return NULL;
        j++;
        while (j < len && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r'))
            j++;
        if (j + 12 > len || memcmp(text + j, "\"0x", 3) != 0 || text[j + 11] != '"')
            return NULL;
        return text + j + 3;
    }
    return NULL;
}

/* ---- the manifest ------------------------------------------------------------------------------ */

static gnn_status get_field(json_object *o, const char *key, json_type type, json_object **out, const char *path,
                            gnn_err *err)
{
    if (!json_object_object_get_ex(o, key, out) || !json_object_is_type(*out, type))
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: field '%s' is missing or not a %s", path, key,
                           json_type_to_name(type));
    return GNN_OK;
}

static gnn_status get_i64(json_object *o, const char *key, int64_t lo, int64_t *v, const char *path, gnn_err *err)
{
    json_object *x;
    gnn_status s = get_field(o, key, json_type_int, &x, path, err);
    if (s)
        return s;
    *v = json_object_get_int64(x);
    if (*v < lo)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: field '%s' = %lld, expected at least %lld", path, key,
                           (long long)*v, (long long)lo);
    return GNN_OK;
}

static gnn_status get_hex(json_object *o, const char *key, int digits, uint64_t *v, const char *path, gnn_err *err)
{
    json_object *x;
    gnn_status s = get_field(o, key, json_type_string, &x, path, err);
    if (s)
        return s;
    const char *t = json_object_get_string(x);
    char *end = NULL;
    if (strlen(t) != (size_t)digits + 2 || t[0] != '0' || t[1] != 'x')
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: field '%s' = '%s', expected 0x and %d hex digits", path, key, t,
                           digits);
    errno = 0;
    *v = strtoull(t + 2, &end, 16);
    if (errno || *end)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: field '%s' = '%s' is not hexadecimal", path, key, t);
    return GNN_OK;
}

/* Checksums prove integrity, not sanity: a manifest and part files edited together, with every
 * CRC recomputed, can claim any count. Before anything is allocated from them, every count is
 * bounded by bytes that exist: each part file must have the size the manifest gives it (a stat,
 * not a read), each file's counts must fit in that size (a solid vertex takes at least 16
 * bytes, its indptr and vid_o entries; a halo 32, adding its halo pair; an edge 8), and the
 * global counts must be the sums of the parts' (every vertex is solid in exactly one part, and
 * its in-edges are stored there). So n, and with it every O(n) array of a rank, is at most the
 * set's size on disk over 16. */
static gnn_status check_counts(const char *dir, const gnn_part_manifest *m, const file_entry *files, gnn_err *err)
{
    int64_t n = 0, nnz = 0;
    for (int64_t r = 0; r < m->k; r++) {
        const file_entry *fe = &files[r];
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, fe->name);
        struct stat sb;
        if (stat(path, &sb) != 0)
            return gnn_err_set(err, GNN_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        if (!S_ISREG(sb.st_mode))
            return gnn_err_set(err, GNN_ERR_IO, "%s: not a regular file", path);
        if ((int64_t)sb.st_size != fe->bytes)
            return gnn_err_set(err, GNN_ERR_CHECKSUM,
                               "%s: %lld bytes, the manifest says %lld: the file is truncated, corrupted or belongs to "
                               "another partition set",
                               path, (long long)sb.st_size, (long long)fe->bytes);
        if (fe->n_solid > fe->bytes / 16 || fe->n_halo > fe->bytes / 32 || fe->nnz > fe->bytes / 8 ||
            fe->n_solid > m->n || fe->n_halo > m->n)
            return gnn_err_set(err, GNN_ERR_FORMAT,
                               "%s/%s: files[%lld] claims %lld solid vertices, %lld halos and %lld edges; a %lld-byte "
                               "file of a set of %lld vertices cannot hold them",
                               dir, MANIFEST, (long long)r, (long long)fe->n_solid, (long long)fe->n_halo,
                               (long long)fe->nnz, (long long)fe->bytes, (long long)m->n);
        n += fe->n_solid; /* each term is at most a real file's size: no overflow */
        nnz += fe->nnz;
    }
    if (n != m->n || nnz != m->nnz)
        return gnn_err_set(err, GNN_ERR_FORMAT,
                           "%s/%s: the dataset has %lld vertices and %lld edges, the parts %lld solid vertices and %lld "
                           "edges: every vertex is solid in one part and its in-edges are stored there",
                           dir, MANIFEST, (long long)m->n, (long long)m->nnz, (long long)n, (long long)nnz);
    if (m->num_classes > (m->n > GNN_CLASSES_ANY ? m->n : GNN_CLASSES_ANY))
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s/%s: %lld classes for %lld vertices (at most max(n, %d))", dir,
                           MANIFEST, (long long)m->num_classes, (long long)m->n, GNN_CLASSES_ANY);
    return GNN_OK;
}


/* The whole of path into *text (NUL-terminated, *len bytes), at most MAX_MANIFEST_BYTES. */
static gnn_status read_manifest_text(const char *path, char **text, long *len, gnn_err *err)
{
    gnn_status rst = gnn_pset_check_regular(path, err);
    if (rst)
        return rst;
    FILE *f = fopen(path, "rb");
    if (!f)
        return gnn_err_set(err, GNN_ERR_IO, "%s: cannot open: %s (not a partition set? write one with `gnnref "
                                            "partition DATA --parts K -o DIR`)",
                           path, strerror(errno));
    *len = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        *len = ftell(f);
    if (*len < 0 || *len > MAX_MANIFEST_BYTES || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: unreadable or larger than %ld bytes", path, MAX_MANIFEST_BYTES);
    }
    *text = malloc((size_t)*len + 1);
    if (!*text || fread(*text, 1, (size_t)*len, f) != (size_t)*len) {
        fclose(f);
        free(*text);
        *text = NULL;
        return gnn_err_set(err, GNN_ERR_IO, "%s: read error", path);
    }
    fclose(f);
    (*text)[*len] = '\0';
    return GNN_OK;
}

/* Layer 1: the manifest's CRC32C of its own text, computed with the field's digits as zeros
 * (text is restored before returning). */
static gnn_status check_manifest_crc(const char *path, char *text, size_t len, gnn_err *err)
{
    char *d = gnn_pset_crc_digits(text, len);
    if (!d)
        return gnn_err_set(err, GNN_ERR_FORMAT,
                           "%s: no \"%s\": \"0x........\" field: not a gnnref manifest, or corrupted", path, CRC_KEY);
    char stored[9];
    memcpy(stored, d, 8);
    stored[8] = '\0';
    memset(d, '0', 8);
    const uint32_t got = gnn_crc32c(0, text, len);
    memcpy(d, stored, 8);
    char computed[9];
    snprintf(computed, sizeof computed, "%08x", got);
    if (strcmp(stored, computed) != 0) /* as text: 'A' for 'a' is a flipped byte too */
        return gnn_err_set(err, GNN_ERR_CHECKSUM,
                           "%s: CRC32C mismatch (stored %s, computed %08x): the manifest is corrupted or was edited",
                           path, stored, got);
    return GNN_OK;
}

/* The format, the set id, the dataset block and the set's shape (k parts x T trainers). */
static gnn_status parse_identity(json_object *root, const char *path, gnn_part_manifest *m, gnn_err *err)
{
    gnn_status st;
    json_object *x, *jd;
    if ((st = get_field(root, "format", json_type_string, &x, path, err)))
        return st;
    if (strcmp(json_object_get_string(x), "gnnref-partition-set") != 0)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: format '%s', expected 'gnnref-partition-set'", path,
                           json_object_get_string(x));
    int64_t ver;
    if ((st = get_i64(root, "format_version", 0, &ver, path, err)))
        return st;
    if (ver != 1)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: format_version %lld, this build reads 1", path, (long long)ver);
    uint64_t u;
    if ((st = get_hex(root, "set_id", 16, &m->set_id, path, err)) ||
        (st = get_field(root, "dataset", json_type_object, &jd, path, err)))
        return st;
    if ((st = get_field(jd, "name", json_type_string, &x, path, err)))
        return st;
    snprintf(m->dataset, sizeof m->dataset, "%s", json_object_get_string(x));
    if ((st = get_i64(jd, "n", 0, &m->n, path, err)) || (st = get_i64(jd, "nnz", 0, &m->nnz, path, err)) ||
        (st = get_i64(jd, "num_features", 0, &m->num_features, path, err)) ||
        (st = get_i64(jd, "num_classes", 0, &m->num_classes, path, err)) ||
        (st = get_hex(jd, "graph_crc32c", 8, &u, path, err)))
        return st;
    m->graph_crc = (uint32_t)u;
    if ((st = get_i64(root, "parts", 1, &m->k, path, err)) ||
        (st = get_i64(root, "trainers", 1, &m->trainers, path, err)))
        return st;
    if (m->k > INT32_MAX || m->trainers > INT32_MAX) /* k may exceed n: parts may be empty */
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: %lld parts x %lld trainers for %lld vertices: out of range", path,
                           (long long)m->k, (long long)m->trainers, (long long)m->n);
    return GNN_OK;
}

/* How the set was made: method, seed, balance constraints, ufactor, split, edge cut. */
static gnn_status parse_provenance(json_object *root, const char *path, gnn_part_manifest *m, gnn_err *err)
{
    gnn_status st;
    json_object *x;
    if ((st = get_field(root, "method", json_type_string, &x, path, err)))
        return st;
    if (gnn_part_method_parse(json_object_get_string(x), &m->method))
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: unknown method '%s'", path, json_object_get_string(x));
    int64_t v64;
    if ((st = get_i64(root, "seed", INT64_MIN, &v64, path, err)))
        return st;
    m->seed = (uint64_t)json_object_get_uint64(json_object_object_get(root, "seed"));
    if ((st = get_field(root, "balance", json_type_array, &x, path, err)))
        return st;
    for (size_t i = 0; i < json_object_array_length(x); i++) {
        json_object *b = json_object_array_get_idx(x, i);
        unsigned bit = 0;
        for (int c = 0; c < GNN_PART_MAX_CON; c++)
            if (json_object_is_type(b, json_type_string) &&
                strcmp(json_object_get_string(b), gnn_part_constraint_name(1u << c)) == 0)
                bit = 1u << c;
        if (!bit)
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: unknown balance constraint '%s'", path,
                               json_object_get_string(b));
        m->balance |= bit;
    }
    if ((st = get_i64(root, "ufactor", 0, &v64, path, err)))
        return st;
    m->ufactor = (int)v64;
    if (json_object_object_get_ex(root, "split", &x) && x) {
        if (!json_object_is_type(x, json_type_array) || json_object_array_length(x) != 3)
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: field 'split' is not null or 3 fractions", path);
        m->have_split = 1;
        for (int i = 0; i < 3; i++)
            m->split[i] = json_object_get_double(json_object_array_get_idx(x, (size_t)i));
    }
    return get_i64(root, "edge_cut", -1, &m->edge_cut, path, err);
}

/* The files array jf (k entries, checked by the caller): entry r must be rank r's
 * part-RRRRR.gnn; into files[r] (zeroed) go its size, CRC32C and counts. */
static gnn_status parse_files(json_object *jf, const char *path, int64_t k, file_entry *files, gnn_err *err)
{
    gnn_status st = GNN_OK;
    json_object *x;
    uint64_t u;
    for (int64_t r = 0; r < k; r++) {
        json_object *e = json_object_array_get_idx(jf, (size_t)r);
        file_entry *fe = &files[r];
        int64_t rank;
        char want[64];
        snprintf(want, sizeof want, "part-%05lld.gnn", (long long)r);
        if (!json_object_is_type(e, json_type_object) || (st = get_i64(e, "rank", 0, &rank, path, err)) ||
            (st = get_field(e, "file", json_type_string, &x, path, err)) || rank != r ||
            strcmp(json_object_get_string(x), want) != 0) {
            if (!st)
                st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: files[%lld] is not rank %lld's %s", path, (long long)r,
                                 (long long)r, want);
            return st;
        }
        snprintf(fe->name, sizeof fe->name, "%s", want);
        if ((st = get_i64(e, "bytes", 0, &fe->bytes, path, err)) || (st = get_hex(e, "crc32c", 8, &u, path, err)) ||
            (st = get_i64(e, "n_solid", 0, &fe->n_solid, path, err)) ||
            (st = get_i64(e, "n_halo", 0, &fe->n_halo, path, err)) || (st = get_i64(e, "nnz", 0, &fe->nnz, path, err)))
            return st;
        fe->crc = (uint32_t)u;
    }
    return GNN_OK;
}

gnn_status gnn_pset_manifest_read(const char *dir, gnn_part_manifest *m, file_entry **files, gnn_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, MANIFEST);
    memset(m, 0, sizeof *m);
    if (files)
        *files = NULL;
    char *text = NULL;
    long len = -1;
    gnn_status st = read_manifest_text(path, &text, &len, err);
    if (st)
        return st;
    json_object *root = NULL, *jf;
    if ((st = check_manifest_crc(path, text, (size_t)len, err)))
        goto done;
    {
        enum json_tokener_error jerr;
        root = json_tokener_parse_verbose(text, &jerr);
        if (!root || !json_object_is_type(root, json_type_object)) {
            st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: not a JSON object (%s)", path,
                             root ? "wrong type" : json_tokener_error_desc(jerr));
            goto done;
        }
    }
    if ((st = parse_identity(root, path, m, err)) || (st = parse_provenance(root, path, m, err)) ||
        (st = get_field(root, "files", json_type_array, &jf, path, err)))
        goto done;
    if ((int64_t)json_object_array_length(jf) != m->k) {
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: %zu entries in 'files' for %lld parts", path,
                         json_object_array_length(jf), (long long)m->k);
        goto done;
    }
    if (files) {
        *files = calloc((size_t)m->k, sizeof(file_entry));
        if (!*files) {
            st = gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
            goto done;
        }
        if (!(st = parse_files(jf, path, m->k, *files, err)))
            st = check_counts(dir, m, *files, err);
    }
done:
    if (st && files) {
        free(*files);
        *files = NULL;
    }
    if (root)
        json_object_put(root);
    free(text);
    return st;
}

gnn_status gnn_partition_manifest_load(const char *dir, gnn_part_manifest *m, gnn_err *err)
{
    if (!dir || !m)
        return gnn_err_set(err, GNN_ERR_INVAL, "partition manifest: NULL argument");
    return gnn_pset_manifest_read(dir, m, NULL, err);
}
