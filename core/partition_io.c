/* core/partition_io.c -- partition sets on disk (include/gnnref/partition.h, "partition sets";
 * docs/partitioning.md, "Files"; DESIGN.md section 5).
 *
 * A set is a directory: manifest.json plus part-RRRRR.gnn for every rank. Each part file is an
 * ordinary native-format file (core/format.c) -- `gnnref info` opens it, its sections carry
 * their own CRC32C -- holding the part's local graph, labels and split, plus extension sections
 * with the id tables (vid_o, halo, trainer), the solid vertices' features (feat: a part stores
 * no features for its halos, DistGNN-MB 3.1) and partmeta.
 *
 * Three layers of checks, so that one flipped byte anywhere is caught and named:
 *   1. the manifest carries the CRC32C of its own text (with the CRC field read as zeros);
 *   2. a part file's header and every section carry a CRC32C (core/format.c), and the manifest
 *      carries the CRC32C of the whole file (which also covers the padding between sections);
 *   3. the part's partmeta must agree with the manifest (set id, rank, k, counts), and the id
 *      tables must have the structure the builders give them -- so a valid file from another set
 *      or another rank is refused too. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include "gnnref/crc32c.h"
#include "gnnref/dataset.h"
#include "gnnref/partition.h"
#include "gnnref/tensor.h"

#define MANIFEST "manifest.json"
#define CRC_KEY "manifest_crc32c"
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

static void part_path(char *buf, size_t cap, const char *dir, int64_t r)
{
    snprintf(buf, cap, "%s/part-%05lld.gnn", dir, (long long)r);
}

/* count * size bytes, NULL when the product overflows: counts come from files. */
static void *xmalloc(size_t count, size_t size) { return gnn_malloc_array(count > 0 ? count : 1, size); }

/* Files of a partition set must be regular files: opening a FIFO would wait for a writer. */
static gnn_status check_regular(const char *path, gnn_err *err)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return gnn_err_set(err, GNN_ERR_IO, "%s: not a regular file", path);
    return GNN_OK;
}

/* CRC32C and size of a whole file. */
static gnn_status file_crc(const char *path, uint32_t *crc, int64_t *bytes, gnn_err *err)
{
    gnn_status st = check_regular(path, err);
    if (st)
        return st;
    FILE *f = fopen(path, "rb");
    if (!f)
        return gnn_err_set(err, GNN_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    static const size_t chunk = 1 << 20;
    unsigned char *buf = malloc(chunk);
    if (!buf) {
        fclose(f);
        return gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
    }
    uint32_t c = 0;
    int64_t total = 0;
    size_t got;
    while ((got = fread(buf, 1, chunk, f)) > 0) {
        c = gnn_crc32c(c, buf, got);
        total += (int64_t)got;
    }
    const int bad = ferror(f);
    free(buf);
    fclose(f);
    if (bad)
        return gnn_err_set(err, GNN_ERR_IO, "%s: read error", path);
    *crc = c;
    *bytes = total;
    return GNN_OK;
}

/* ---- save ------------------------------------------------------------------------------------ */

/* The native-format dataset of part r: borrows L's graph and tables, owns the rest. */
typedef struct part_file {
    gnn_dataset ds;
    float *feat;   /* (n_solid x f) */
    int64_t *halo; /* (2 n_halo): owner, owner-local id */
    int64_t meta[GNN_PARTMETA_COUNT];
} part_file;

static void part_file_free(part_file *pf)
{
    gnn_free(pf->feat);
    gnn_free(pf->halo);
    gnn_free(pf->ds.labels);
    gnn_free(pf->ds.split);
}

static void add_ext(gnn_dataset *ds, const char *name, const void *data, int64_t count, uint32_t size)
{
    gnn_format_ext *x = &ds->ext[ds->num_ext++];
    memset(x, 0, sizeof *x);
    snprintf(x->name, sizeof x->name, "%s", name);
    x->data = data;
    x->count = count;
    x->elem_size = size;
}

static gnn_status make_part_file(part_file *pf, const gnn_partition *p, int64_t r, const gnn_dataset *ds,
                                 uint64_t set_id, gnn_err *err)
{
    const gnn_part_local *L = &p->parts[r];
    const int64_t nl = L->n_solid + L->n_halo, f = ds->num_features;
    memset(pf, 0, sizeof *pf);
    gnn_dataset *o = &pf->ds;
    char suffix[48];
    snprintf(suffix, sizeof suffix, ".part%lldof%lld", (long long)r, (long long)p->k);
    const size_t room = sizeof o->name - 1 - strlen(suffix); /* the suffix always fits */
    snprintf(o->name, sizeof o->name, "%.*s%s", (int)room, ds->name, suffix);
    o->graph = L->graph;
    o->graph.owns = 0;
    /* the features go to the extension section feat, solid rows only: the native features
     * section would need a row for every local vertex, and halos have none */
    o->num_features = 0;
    o->num_classes = ds->num_classes;
    const int64_t fw = ds->feat ? f : 0;
    pf->feat = xmalloc((size_t)(L->n_solid * fw), sizeof(float));
    pf->halo = xmalloc((size_t)(2 * L->n_halo), sizeof(int64_t));
    if (!pf->feat || !pf->halo)
        return gnn_err_set(err, GNN_ERR_NOMEM, "partition save: out of memory");
    for (int64_t l = 0; l < L->n_solid && fw > 0; l++)
        memcpy(pf->feat + l * fw, ds->feat + L->vid_o[l] * fw, (size_t)fw * sizeof(float));
    for (int64_t i = 0; i < L->n_halo; i++) {
        pf->halo[2 * i] = L->halo_owner[i];
        pf->halo[2 * i + 1] = L->halo_owner_local[i];
    }
    if (ds->labels) {
        o->labels = xmalloc((size_t)nl, sizeof(int32_t));
        if (!o->labels)
            return gnn_err_set(err, GNN_ERR_NOMEM, "partition save: out of memory");
        for (int64_t l = 0; l < nl; l++)
            o->labels[l] = l < L->n_solid ? ds->labels[L->vid_o[l]] : -1;
    }
    if (ds->split) {
        o->split = xmalloc((size_t)nl, 1);
        if (!o->split)
            return gnn_err_set(err, GNN_ERR_NOMEM, "partition save: out of memory");
        for (int64_t l = 0; l < nl; l++)
            o->split[l] = l < L->n_solid ? ds->split[L->vid_o[l]] : GNN_SPLIT_NONE;
    }
    o->owns_arrays = 0; /* freed by part_file_free */
    int64_t *m = pf->meta;
    m[GNN_PARTMETA_VERSION] = 1;
    m[GNN_PARTMETA_SET_ID] = (int64_t)set_id;
    m[GNN_PARTMETA_RANK] = r;
    m[GNN_PARTMETA_K] = p->k;
    m[GNN_PARTMETA_TRAINERS] = p->trainers;
    m[GNN_PARTMETA_N] = p->n;
    m[GNN_PARTMETA_NNZ] = ds->graph.nnz;
    m[GNN_PARTMETA_N_SOLID] = L->n_solid;
    m[GNN_PARTMETA_N_HALO] = L->n_halo;
    m[GNN_PARTMETA_F] = fw;
    add_ext(o, "vid_o", L->vid_o, nl, 8);
    add_ext(o, "halo", pf->halo, 2 * L->n_halo, 8);
    if (p->trainers > 1)
        add_ext(o, "trainer", L->trainer, L->n_solid, 4);
    add_ext(o, "feat", pf->feat, L->n_solid * fw, 4);
    add_ext(o, "partmeta", m, GNN_PARTMETA_COUNT, 8);
    return GNN_OK;
}

static json_object *hex32(uint32_t v)
{
    char b[16];
    snprintf(b, sizeof b, "0x%08x", v);
    return json_object_new_string(b);
}

static json_object *hex64(uint64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "0x%016llx", (unsigned long long)v);
    return json_object_new_string(b);
}

/* Find the 8 hex digits of "manifest_crc32c": "0x........" in text; NULL when absent. */
static char *crc_digits(char *text, size_t len)
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

static gnn_status write_text_file(const char *path, const char *text, size_t len, gnn_err *err)
{
    char tmp[4112];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return gnn_err_set(err, GNN_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
    int bad = fwrite(text, 1, len, f) != len;
    bad |= fflush(f) != 0;
    bad |= fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        const int e = errno;
        unlink(tmp);
        return gnn_err_set(err, GNN_ERR_IO, "%s: write failed: %s", path, strerror(e));
    }
    return GNN_OK;
}

gnn_status gnn_partition_save(const char *dir, const gnn_partition *p, const gnn_dataset *ds,
                              const gnn_part_manifest *prov, gnn_err *err)
{
    if (!dir || !p || !ds || !p->parts)
        return gnn_err_set(err, GNN_ERR_INVAL, "partition save: NULL argument");
    if (ds->graph.n != p->n)
        return gnn_err_set(err, GNN_ERR_INVAL, "partition save: the partition has %lld vertices, the dataset %lld",
                           (long long)p->n, (long long)ds->graph.n);
    if (strlen(dir) > 3800)
        return gnn_err_set(err, GNN_ERR_INVAL, "partition save: directory name too long");
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return gnn_err_set(err, GNN_ERR_IO, "%s: cannot create the directory: %s", dir, strerror(errno));
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return gnn_err_set(err, GNN_ERR_IO, "%s: not a directory", dir);

    gnn_part_manifest m;
    memset(&m, 0, sizeof m);
    if (prov)
        m = *prov;
    else
        m.edge_cut = -1;
    snprintf(m.dataset, sizeof m.dataset, "%s", ds->name);
    m.n = p->n;
    m.nnz = ds->graph.nnz;
    m.num_features = ds->feat ? ds->num_features : 0;
    m.num_classes = ds->num_classes;
    m.graph_crc = gnn_graph_crc(&ds->graph);
    m.k = p->k;
    m.trainers = p->trainers < 1 ? 1 : p->trainers;
    m.set_id = gnn_partition_set_id(p, m.graph_crc);

    json_object *root = json_object_new_object();
    json_object_object_add(root, "format", json_object_new_string("gnnref-partition-set"));
    json_object_object_add(root, "format_version", json_object_new_int(1));
    json_object_object_add(root, "set_id", hex64(m.set_id));
    json_object *jd = json_object_new_object();
    json_object_object_add(jd, "name", json_object_new_string(m.dataset));
    json_object_object_add(jd, "n", json_object_new_int64(m.n));
    json_object_object_add(jd, "nnz", json_object_new_int64(m.nnz));
    json_object_object_add(jd, "num_features", json_object_new_int64(m.num_features));
    json_object_object_add(jd, "num_classes", json_object_new_int64(m.num_classes));
    json_object_object_add(jd, "graph_crc32c", hex32(m.graph_crc));
    json_object_object_add(root, "dataset", jd);
    json_object_object_add(root, "parts", json_object_new_int64(m.k));
    json_object_object_add(root, "trainers", json_object_new_int64(m.trainers));
    json_object_object_add(root, "method", json_object_new_string(gnn_part_method_name(m.method)));
    json_object_object_add(root, "seed", json_object_new_uint64(m.seed));
    json_object *bal = json_object_new_array();
    for (int c = 0; c < GNN_PART_MAX_CON; c++)
        if (m.balance & (1u << c))
            json_object_array_add(bal, json_object_new_string(gnn_part_constraint_name(1u << c)));
    json_object_object_add(root, "balance", bal);
    json_object_object_add(root, "ufactor", json_object_new_int(m.ufactor));
    if (m.have_split) {
        json_object *sp = json_object_new_array();
        for (int i = 0; i < 3; i++)
            json_object_array_add(sp, json_object_new_double(m.split[i]));
        json_object_object_add(root, "split", sp);
    } else {
        json_object_object_add(root, "split", NULL);
    }
    json_object_object_add(root, "edge_cut", json_object_new_int64(m.edge_cut));
    json_object *files = json_object_new_array();
    json_object_object_add(root, "files", files);

    gnn_status st = GNN_OK;
    char path[4096];
    for (int64_t r = 0; r < p->k && !st; r++) {
        part_file pf;
        st = make_part_file(&pf, p, r, ds, m.set_id, err);
        part_path(path, sizeof path, dir, r);
        if (!st)
            st = gnn_dataset_save(&pf.ds, path, err);
        part_file_free(&pf);
        uint32_t crc = 0;
        int64_t bytes = 0;
        if (!st)
            st = file_crc(path, &crc, &bytes, err);
        if (st)
            break;
        const gnn_part_local *L = &p->parts[r];
        json_object *e = json_object_new_object();
        json_object_object_add(e, "rank", json_object_new_int64(r));
        json_object_object_add(e, "file", json_object_new_string(strrchr(path, '/') + 1));
        json_object_object_add(e, "bytes", json_object_new_int64(bytes));
        json_object_object_add(e, "crc32c", hex32(crc));
        json_object_object_add(e, "n_solid", json_object_new_int64(L->n_solid));
        json_object_object_add(e, "n_halo", json_object_new_int64(L->n_halo));
        json_object_object_add(e, "nnz", json_object_new_int64(L->graph.nnz));
        json_object_array_add(files, e);
    }
    if (!st) {
        json_object_object_add(root, CRC_KEY, json_object_new_string("0x00000000"));
        size_t len = 0;
        const char *js = json_object_to_json_string_length(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE,
                                                           &len);
        char *text = malloc(len + 2);
        if (!text) {
            st = gnn_err_set(err, GNN_ERR_NOMEM, "partition save: out of memory");
        } else {
            memcpy(text, js, len);
            text[len++] = '\n';
            text[len] = '\0';
            char *d = crc_digits(text, len);
            if (!d) {
                st = gnn_err_set(err, GNN_ERR_INTERNAL, "partition save: manifest checksum field not found");
            } else {
                char hex[9];
                snprintf(hex, sizeof hex, "%08x", gnn_crc32c(0, text, len));
                memcpy(d, hex, 8);
                snprintf(path, sizeof path, "%s/%s", dir, MANIFEST);
                st = write_text_file(path, text, len, err);
            }
            free(text);
        }
    }
    json_object_put(root);
    return st;
}

/* ---- the manifest ------------------------------------------------------------------------------ */

typedef struct file_entry {
    char name[64];
    int64_t bytes;
    uint32_t crc;
    int64_t n_solid, n_halo, nnz;
} file_entry;

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

/* Parse and check dir/manifest.json; *files (k entries) allocated when files != NULL. */
static gnn_status manifest_read(const char *dir, gnn_part_manifest *m, file_entry **files, gnn_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, MANIFEST);
    memset(m, 0, sizeof *m);
    if (files)
        *files = NULL;
    gnn_status rst = check_regular(path, err);
    if (rst)
        return rst;
    FILE *f = fopen(path, "rb");
    if (!f)
        return gnn_err_set(err, GNN_ERR_IO, "%s: cannot open: %s (not a partition set? write one with `gnnref "
                                            "partition DATA --parts K -o DIR`)",
                           path, strerror(errno));
    char *text = NULL;
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        len = ftell(f);
    if (len < 0 || len > MAX_MANIFEST_BYTES || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: unreadable or larger than %ld bytes", path, MAX_MANIFEST_BYTES);
    }
    text = malloc((size_t)len + 1);
    if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) {
        fclose(f);
        free(text);
        return gnn_err_set(err, GNN_ERR_IO, "%s: read error", path);
    }
    fclose(f);
    text[len] = '\0';
    gnn_status st = GNN_OK;
    json_object *root = NULL;
    char *d = crc_digits(text, (size_t)len);
    if (!d) {
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: no \"%s\": \"0x........\" field: not a gnnref manifest, or corrupted",
                         path, CRC_KEY);
        goto done;
    }
    {
        char stored[9];
        memcpy(stored, d, 8);
        stored[8] = '\0';
        memset(d, '0', 8);
        const uint32_t got = gnn_crc32c(0, text, (size_t)len);
        memcpy(d, stored, 8);
        char computed[9];
        snprintf(computed, sizeof computed, "%08x", got);
        if (strcmp(stored, computed) != 0) { /* as text: 'A' for 'a' is a flipped byte too */
            st = gnn_err_set(err, GNN_ERR_CHECKSUM,
                             "%s: CRC32C mismatch (stored %s, computed %08x): the manifest is corrupted or was edited",
                             path, stored, got);
            goto done;
        }
    }
    {
        enum json_tokener_error jerr;
        root = json_tokener_parse_verbose(text, &jerr);
        if (!root || !json_object_is_type(root, json_type_object)) {
            st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: not a JSON object (%s)", path,
                             root ? "wrong type" : json_tokener_error_desc(jerr));
            goto done;
        }
    }
    json_object *x, *jd, *jf;
    if ((st = get_field(root, "format", json_type_string, &x, path, err)))
        goto done;
    if (strcmp(json_object_get_string(x), "gnnref-partition-set") != 0) {
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: format '%s', expected 'gnnref-partition-set'", path,
                         json_object_get_string(x));
        goto done;
    }
    int64_t ver;
    if ((st = get_i64(root, "format_version", 0, &ver, path, err)))
        goto done;
    if (ver != 1) {
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: format_version %lld, this build reads 1", path, (long long)ver);
        goto done;
    }
    uint64_t u;
    if ((st = get_hex(root, "set_id", 16, &m->set_id, path, err)) || (st = get_field(root, "dataset", json_type_object, &jd, path, err)))
        goto done;
    if ((st = get_field(jd, "name", json_type_string, &x, path, err)))
        goto done;
    snprintf(m->dataset, sizeof m->dataset, "%s", json_object_get_string(x));
    if ((st = get_i64(jd, "n", 0, &m->n, path, err)) || (st = get_i64(jd, "nnz", 0, &m->nnz, path, err)) ||
        (st = get_i64(jd, "num_features", 0, &m->num_features, path, err)) ||
        (st = get_i64(jd, "num_classes", 0, &m->num_classes, path, err)) ||
        (st = get_hex(jd, "graph_crc32c", 8, &u, path, err)))
        goto done;
    m->graph_crc = (uint32_t)u;
    if ((st = get_i64(root, "parts", 1, &m->k, path, err)) || (st = get_i64(root, "trainers", 1, &m->trainers, path, err)))
        goto done;
    if (m->k > INT32_MAX || m->trainers > INT32_MAX) { /* k may exceed n: parts may be empty */
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: %lld parts x %lld trainers for %lld vertices: out of range", path,
                         (long long)m->k, (long long)m->trainers, (long long)m->n);
        goto done;
    }
    if ((st = get_field(root, "method", json_type_string, &x, path, err)))
        goto done;
    if (gnn_part_method_parse(json_object_get_string(x), &m->method)) {
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: unknown method '%s'", path, json_object_get_string(x));
        goto done;
    }
    int64_t v64;
    if ((st = get_i64(root, "seed", INT64_MIN, &v64, path, err)))
        goto done;
    m->seed = (uint64_t)json_object_get_uint64(json_object_object_get(root, "seed"));
    if ((st = get_field(root, "balance", json_type_array, &x, path, err)))
        goto done;
    for (size_t i = 0; i < json_object_array_length(x); i++) {
        json_object *b = json_object_array_get_idx(x, i);
        unsigned bit = 0;
        for (int c = 0; c < GNN_PART_MAX_CON; c++)
            if (json_object_is_type(b, json_type_string) &&
                strcmp(json_object_get_string(b), gnn_part_constraint_name(1u << c)) == 0)
                bit = 1u << c;
        if (!bit) {
            st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: unknown balance constraint '%s'", path,
                             json_object_get_string(b));
            goto done;
        }
        m->balance |= bit;
    }
    if ((st = get_i64(root, "ufactor", 0, &v64, path, err)))
        goto done;
    m->ufactor = (int)v64;
    if (json_object_object_get_ex(root, "split", &x) && x) {
        if (!json_object_is_type(x, json_type_array) || json_object_array_length(x) != 3) {
            st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: field 'split' is not null or 3 fractions", path);
            goto done;
        }
        m->have_split = 1;
        for (int i = 0; i < 3; i++)
            m->split[i] = json_object_get_double(json_object_array_get_idx(x, (size_t)i));
    }
    if ((st = get_i64(root, "edge_cut", -1, &m->edge_cut, path, err)) ||
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
        for (int64_t r = 0; r < m->k; r++) {
            json_object *e = json_object_array_get_idx(jf, (size_t)r);
            file_entry *fe = &(*files)[r];
            int64_t rank;
            char want[64];
            snprintf(want, sizeof want, "part-%05lld.gnn", (long long)r);
            if (!json_object_is_type(e, json_type_object) || (st = get_i64(e, "rank", 0, &rank, path, err)) ||
                (st = get_field(e, "file", json_type_string, &x, path, err)) || rank != r ||
                strcmp(json_object_get_string(x), want) != 0) {
                if (!st)
                    st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: files[%lld] is not rank %lld's %s", path, (long long)r,
                                     (long long)r, want);
                goto done;
            }
            snprintf(fe->name, sizeof fe->name, "%s", want);
            if ((st = get_i64(e, "bytes", 0, &fe->bytes, path, err)) || (st = get_hex(e, "crc32c", 8, &u, path, err)) ||
                (st = get_i64(e, "n_solid", 0, &fe->n_solid, path, err)) ||
                (st = get_i64(e, "n_halo", 0, &fe->n_halo, path, err)) || (st = get_i64(e, "nnz", 0, &fe->nnz, path, err)))
                goto done;
            fe->crc = (uint32_t)u;
        }
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
    return manifest_read(dir, m, NULL, err);
}

/* ---- load one part ----------------------------------------------------------------------------- */

static gnn_status need_ext(const gnn_dataset *ds, const char *name, int64_t count, uint32_t size, const char *path,
                           const void **data, gnn_err *err)
{
    const gnn_format_ext *x = gnn_dataset_ext(ds, name);
    if (!x)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section '%s' is missing (not a partition file?)", path, name);
    if (x->elem_size != size || x->count != count)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section '%s': %lld elements of %u bytes, expected %lld of %u", path,
                           name, (long long)x->count, x->elem_size, (long long)count, size);
    *data = x->data;
    return GNN_OK;
}

/* Check file r against the manifest and copy its structure into *L. */
static gnn_status load_part(const char *dir, int64_t r, const gnn_part_manifest *m, const file_entry *fe,
                            gnn_part_local *L, gnn_dataset *out_ds, gnn_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, fe->name);
    memset(L, 0, sizeof *L);
    gnn_dataset ds;
    gnn_status st = gnn_dataset_load(&ds, path, err);
    if (st)
        return st; /* the message starts with the path and names the section */
    {
        /* the whole file, padding included, against the manifest: the mapping starts at byte 0
         * and the loader has checked that the header's file size is the file's size */
        uint64_t size;
        memcpy(&size, (const unsigned char *)ds.map_base + GNN_HDR_OFF_FILE_SIZE, sizeof size);
        const int64_t bytes = (int64_t)size;
        const uint32_t crc = gnn_crc32c(0, ds.map_base, (size_t)size);
        if (bytes != fe->bytes || crc != fe->crc) {
            st = gnn_err_set(err, GNN_ERR_CHECKSUM,
                             "%s: %lld bytes with CRC32C 0x%08x, the manifest says %lld bytes with 0x%08x: the file is "
                             "corrupted or belongs to another partition set",
                             path, (long long)bytes, crc, (long long)fe->bytes, fe->crc);
            goto fail;
        }
    }
    const void *pv = NULL;
    if ((st = need_ext(&ds, "partmeta", GNN_PARTMETA_COUNT, 8, path, &pv, err)))
        goto fail;
    const int64_t *meta = pv;
    const int64_t n_solid = meta[GNN_PARTMETA_N_SOLID], n_halo = meta[GNN_PARTMETA_N_HALO], n = m->n;
    if (meta[GNN_PARTMETA_VERSION] != 1 || (uint64_t)meta[GNN_PARTMETA_SET_ID] != m->set_id ||
        meta[GNN_PARTMETA_RANK] != r || meta[GNN_PARTMETA_K] != m->k || meta[GNN_PARTMETA_TRAINERS] != m->trainers ||
        meta[GNN_PARTMETA_N] != n || meta[GNN_PARTMETA_NNZ] != m->nnz || meta[GNN_PARTMETA_F] != m->num_features ||
        n_solid != fe->n_solid ||
        n_halo != fe->n_halo || n_solid < 0 || n_halo < 0 || n_solid > n || n_halo > n ||
        ds.graph.n != n_solid + n_halo || ds.graph.nnz != fe->nnz) {
        st = gnn_err_set(err, GNN_ERR_FORMAT,
                         "%s: partmeta (set 0x%016llx, rank %lld of %lld, %lld trainers, n %lld, %lld solid, %lld halo, "
                         "%lld local edges) does not match the manifest (set 0x%016llx, rank %lld of %lld, %lld "
                         "trainers, n %lld, %lld solid, %lld halo, %lld local edges)",
                         path, (unsigned long long)meta[GNN_PARTMETA_SET_ID], (long long)meta[GNN_PARTMETA_RANK],
                         (long long)meta[GNN_PARTMETA_K], (long long)meta[GNN_PARTMETA_TRAINERS],
                         (long long)meta[GNN_PARTMETA_N], (long long)n_solid, (long long)n_halo, (long long)ds.graph.nnz,
                         (unsigned long long)m->set_id, (long long)r, (long long)m->k, (long long)m->trainers,
                         (long long)n, (long long)fe->n_solid, (long long)fe->n_halo, (long long)fe->nnz);
        goto fail;
    }
    const int64_t nl = n_solid + n_halo;
    const int64_t *vid_o, *halo;
    const int32_t *trainer = NULL;
    if ((st = need_ext(&ds, "vid_o", nl, 8, path, &pv, err)))
        goto fail;
    vid_o = pv;
    if ((st = need_ext(&ds, "halo", 2 * n_halo, 8, path, &pv, err)))
        goto fail;
    halo = pv;
    if (n_solid > 0 && m->num_features > INT64_MAX / n_solid) {
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: %lld solid rows x %lld features overflow", path, (long long)n_solid,
                         (long long)m->num_features);
        goto fail;
    }
    if ((st = need_ext(&ds, "feat", n_solid * m->num_features, 4, path, &pv, err)))
        goto fail;
    {
        const float *feat = pv;
        const int64_t fw = m->num_features;
        for (int64_t i = 0; i < n_solid * fw; i++)
            if (!isfinite(feat[i])) {
                st = gnn_err_set(err, GNN_ERR_NAN, "%s: section 'feat': row %lld column %lld is %g", path,
                                 (long long)(i / fw), (long long)(i % fw), (double)feat[i]);
                goto fail;
            }
    }
    if (m->trainers > 1) {
        if ((st = need_ext(&ds, "trainer", n_solid, 4, path, &pv, err)))
            goto fail;
        trainer = pv;
    }
    /* the structure the builders give: solid and halo each increasing, disjoint, in range; halo
     * owners other ranks; halo rows empty; trainers in range */
    for (int64_t l = 0; l < nl; l++) {
        const int bad_order = l > 0 && l != n_solid && vid_o[l] <= vid_o[l - 1];
        if (vid_o[l] < 0 || vid_o[l] >= n || bad_order) {
            st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: section 'vid_o': entry %lld = %lld is %s", path, (long long)l,
                             (long long)vid_o[l], bad_order ? "not increasing" : "out of range");
            goto fail;
        }
    }
    for (int64_t i = 0; i < n_halo; i++)
        if (halo[2 * i] < 0 || halo[2 * i] >= m->k || halo[2 * i] == r || halo[2 * i + 1] < 0 || halo[2 * i + 1] >= n) {
            st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: halo %lld: owner %lld, owner-local id %lld: out of range", path,
                             (long long)i, (long long)halo[2 * i], (long long)halo[2 * i + 1]);
            goto fail;
        }
    for (int64_t l = n_solid; l < nl; l++)
        if (ds.graph.indptr[l + 1] != ds.graph.indptr[l]) {
            st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: halo row %lld has in-edges", path, (long long)l);
            goto fail;
        }
    if (trainer)
        for (int64_t l = 0; l < n_solid; l++)
            if (trainer[l] < 0 || trainer[l] >= m->trainers) {
                st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: section 'trainer': entry %lld = %d outside [0, %lld)", path,
                                 (long long)l, trainer[l], (long long)m->trainers);
                goto fail;
            }
    /* copies */
    L->rank = r;
    L->n_solid = n_solid;
    L->n_halo = n_halo;
    L->trainers = m->trainers;
    L->graph.n = nl;
    L->graph.nnz = ds.graph.nnz;
    L->graph.owns = 1;
    L->graph.indptr = xmalloc((size_t)nl + 1, sizeof(int64_t));
    L->graph.indices = xmalloc((size_t)ds.graph.nnz, sizeof(int64_t));
    L->vid_o = xmalloc((size_t)nl, sizeof(int64_t));
    L->vid_p = xmalloc((size_t)n, sizeof(int64_t));
    L->halo_owner = xmalloc((size_t)n_halo, sizeof(int32_t));
    L->halo_owner_local = xmalloc((size_t)n_halo, sizeof(int64_t));
    if (trainer)
        L->trainer = xmalloc((size_t)n_solid, sizeof(int32_t));
    if (!L->graph.indptr || !L->graph.indices || !L->vid_o || !L->vid_p || !L->halo_owner || !L->halo_owner_local ||
        (trainer && !L->trainer)) {
        st = gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
        goto fail;
    }
    memcpy(L->graph.indptr, ds.graph.indptr, ((size_t)nl + 1) * sizeof(int64_t));
    if (ds.graph.nnz)
        memcpy(L->graph.indices, ds.graph.indices, (size_t)ds.graph.nnz * sizeof(int64_t));
    if (nl)
        memcpy(L->vid_o, vid_o, (size_t)nl * sizeof(int64_t));
    if (n_halo) {
        for (int64_t i = 0; i < n_halo; i++) {
            L->halo_owner[i] = (int32_t)halo[2 * i];
            L->halo_owner_local[i] = halo[2 * i + 1];
        }
    }
    if (trainer && n_solid)
        memcpy(L->trainer, trainer, (size_t)n_solid * sizeof(int32_t));
    for (int64_t v = 0; v < n; v++)
        L->vid_p[v] = -1;
    for (int64_t l = 0; l < nl; l++) {
        if (L->vid_p[vid_o[l]] >= 0) {
            st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: section 'vid_o': vertex %lld is both solid and halo", path,
                             (long long)vid_o[l]);
            goto fail;
        }
        L->vid_p[vid_o[l]] = l;
    }
    /* the split by owner, from the part's split section */
    int64_t cnt[4] = { 0, 0, 0, 0 };
    for (int64_t l = 0; l < n_solid && ds.split; l++)
        cnt[ds.split[l]]++;
    L->n_train = cnt[GNN_SPLIT_TRAIN];
    L->n_val = cnt[GNN_SPLIT_VAL];
    L->n_test = cnt[GNN_SPLIT_TEST];
    L->train = xmalloc((size_t)L->n_train, sizeof(int64_t));
    L->val = xmalloc((size_t)L->n_val, sizeof(int64_t));
    L->test = xmalloc((size_t)L->n_test, sizeof(int64_t));
    if (!L->train || !L->val || !L->test) {
        st = gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
        goto fail;
    }
    int64_t it = 0, iv = 0, is = 0;
    for (int64_t l = 0; l < n_solid && ds.split; l++) {
        if (ds.split[l] == GNN_SPLIT_TRAIN)
            L->train[it++] = l;
        else if (ds.split[l] == GNN_SPLIT_VAL)
            L->val[iv++] = l;
        else if (ds.split[l] == GNN_SPLIT_TEST)
            L->test[is++] = l;
    }
    if (out_ds)
        *out_ds = ds;
    else
        gnn_dataset_free(&ds);
    return GNN_OK;
fail:
    gnn_part_local_free(L);
    gnn_dataset_free(&ds);
    return st;
}

gnn_status gnn_partition_load_part(const char *dir, int64_t rank, gnn_part_local *L, gnn_dataset *local,
                                   gnn_part_manifest *mo, gnn_err *err)
{
    if (!dir || !L)
        return gnn_err_set(err, GNN_ERR_INVAL, "partition load: NULL argument");
    memset(L, 0, sizeof *L);
    if (local)
        memset(local, 0, sizeof *local);
    gnn_part_manifest m;
    file_entry *files = NULL;
    gnn_status st = manifest_read(dir, &m, &files, err);
    if (st)
        return st;
    if (rank < 0 || rank >= m.k)
        st = gnn_err_set(err, GNN_ERR_INVAL, "%s: rank %lld, the set has %lld parts", dir, (long long)rank,
                         (long long)m.k);
    else
        st = load_part(dir, rank, &m, &files[rank], L, local, err);
    free(files);
    if (!st && mo)
        *mo = m;
    return st;
}

/* ---- load the whole set ------------------------------------------------------------------------ */

gnn_status gnn_partition_load(const char *dir, gnn_partition *p, gnn_csr *g, gnn_part_manifest *mo, gnn_err *err)
{
    if (!dir || !p)
        return gnn_err_set(err, GNN_ERR_INVAL, "partition load: NULL argument");
    memset(p, 0, sizeof *p);
    if (g)
        memset(g, 0, sizeof *g);
    gnn_part_manifest m;
    file_entry *files = NULL;
    gnn_status st = manifest_read(dir, &m, &files, err);
    if (st)
        return st;
    gnn_csr G = { 0 };
    const int64_t n = m.n, k = m.k;
    p->n = n;
    p->k = k;
    p->trainers = m.trainers;
    p->part = xmalloc((size_t)n, sizeof(int32_t));
    p->parts = gnn_calloc((size_t)k, sizeof(gnn_part_local));
    if (m.trainers > 1)
        p->trainer = xmalloc((size_t)n, sizeof(int32_t));
    if (!p->part || !p->parts || (m.trainers > 1 && !p->trainer)) {
        st = gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", dir);
        goto fail;
    }
    for (int64_t r = 0; r < k && !st; r++)
        st = load_part(dir, r, &m, &files[r], &p->parts[r], NULL, err);
    if (st)
        goto fail;
    /* the part vector from the solid lists: every vertex owned exactly once */
    for (int64_t v = 0; v < n; v++)
        p->part[v] = -1;
    int64_t nnz = 0;
    for (int64_t r = 0; r < k; r++) {
        const gnn_part_local *L = &p->parts[r];
        nnz += L->graph.nnz;
        for (int64_t l = 0; l < L->n_solid; l++) {
            const int64_t v = L->vid_o[l];
            if (p->part[v] >= 0) {
                st = gnn_err_set(err, GNN_ERR_FORMAT, "%s/%s: vertex %lld is solid in parts %d and %lld", dir,
                                 files[r].name, (long long)v, p->part[v], (long long)r);
                goto fail;
            }
            p->part[v] = (int32_t)r;
            if (p->trainer)
                p->trainer[v] = L->trainer[l];
        }
    }
    for (int64_t v = 0; v < n; v++)
        if (p->part[v] < 0) {
            st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: vertex %lld is solid in no part", dir, (long long)v);
            goto fail;
        }
    /* halo owners and their local ids agree with the owners' files */
    for (int64_t r = 0; r < k; r++) {
        const gnn_part_local *L = &p->parts[r];
        for (int64_t i = 0; i < L->n_halo; i++) {
            const int64_t v = L->vid_o[L->n_solid + i];
            const gnn_part_local *O = &p->parts[p->part[v]];
            if (L->halo_owner[i] != p->part[v] || L->halo_owner_local[i] != O->vid_p[v]) {
                st = gnn_err_set(err, GNN_ERR_FORMAT,
                                 "%s/%s: halo vertex %lld: owner %d, local id %lld there; the owners' files say %d, %lld",
                                 dir, files[r].name, (long long)v, L->halo_owner[i], (long long)L->halo_owner_local[i],
                                 p->part[v], (long long)O->vid_p[v]);
                goto fail;
            }
        }
    }
    /* the global graph: every vertex's in-edges are stored at its owner */
    if (nnz != m.nnz) {
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: the parts hold %lld edges, the manifest says %lld", dir,
                         (long long)nnz, (long long)m.nnz);
        goto fail;
    }
    G.n = n;
    G.nnz = nnz;
    G.owns = 1;
    G.indptr = xmalloc((size_t)n + 1, sizeof(int64_t));
    G.indices = xmalloc((size_t)nnz, sizeof(int64_t));
    if (!G.indptr || !G.indices) {
        st = gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", dir);
        goto fail;
    }
    G.indptr[0] = 0;
    for (int64_t v = 0; v < n; v++) {
        const gnn_part_local *O = &p->parts[p->part[v]];
        G.indptr[v + 1] = G.indptr[v] + gnn_csr_degree(&O->graph, O->vid_p[v]);
    }
    for (int64_t v = 0; v < n; v++) {
        const gnn_part_local *O = &p->parts[p->part[v]];
        const int64_t l = O->vid_p[v];
        int64_t at = G.indptr[v];
        for (int64_t e = O->graph.indptr[l]; e < O->graph.indptr[l + 1]; e++)
            G.indices[at++] = O->vid_o[O->graph.indices[e]];
    }
    const uint32_t gcrc = gnn_graph_crc(&G);
    if (gcrc != m.graph_crc || gnn_partition_set_id(p, gcrc) != m.set_id) {
        st = gnn_err_set(err, GNN_ERR_FORMAT,
                         "%s: the parts rebuild a graph with CRC32C 0x%08x and set id 0x%016llx; the manifest says "
                         "0x%08x and 0x%016llx",
                         dir, gcrc, (unsigned long long)gnn_partition_set_id(p, gcrc), m.graph_crc,
                         (unsigned long long)m.set_id);
        goto fail;
    }
    free(files);
    if (g)
        *g = G;
    else
        gnn_csr_free(&G);
    if (mo)
        *mo = m;
    return GNN_OK;
fail:
    free(files);
    gnn_csr_free(&G);
    gnn_partition_free(p);
    return st;
}

/* ---- equality ---------------------------------------------------------------------------------- */

static int differ(const void *a, const void *b, int64_t count, size_t size, int64_t *at)
{
    const unsigned char *x = a, *y = b;
    for (int64_t i = 0; i < count; i++)
        if (memcmp(x + (size_t)i * size, y + (size_t)i * size, size) != 0) {
            *at = i;
            return 1;
        }
    return 0;
}

gnn_status gnn_partition_compare(const gnn_partition *a, const gnn_partition *b, gnn_err *err)
{
    int64_t at = 0;
    if (a->n != b->n || a->k != b->k || a->trainers != b->trainers)
        return gnn_err_set(err, GNN_ERR_MISMATCH, "n, k, trainers: %lld, %lld, %lld vs %lld, %lld, %lld",
                           (long long)a->n, (long long)a->k, (long long)a->trainers, (long long)b->n, (long long)b->k,
                           (long long)b->trainers);
    if (differ(a->part, b->part, a->n, 4, &at))
        return gnn_err_set(err, GNN_ERR_MISMATCH, "part[%lld]: %d vs %d", (long long)at, a->part[at], b->part[at]);
    if ((a->trainer == NULL) != (b->trainer == NULL) || (a->trainer && differ(a->trainer, b->trainer, a->n, 4, &at)))
        return gnn_err_set(err, GNN_ERR_MISMATCH, "trainer vector differs (at %lld)", (long long)at);
    for (int64_t r = 0; r < a->k; r++) {
        const gnn_part_local *x = &a->parts[r], *y = &b->parts[r];
        const char *what = NULL;
        if (x->rank != y->rank || x->n_solid != y->n_solid || x->n_halo != y->n_halo || x->graph.n != y->graph.n ||
            x->graph.nnz != y->graph.nnz || x->n_train != y->n_train || x->n_val != y->n_val || x->n_test != y->n_test ||
            x->trainers != y->trainers)
            what = "counts";
        const int64_t nl = x->n_solid + x->n_halo;
        if (!what && differ(x->graph.indptr, y->graph.indptr, nl + 1, 8, &at))
            what = "graph.indptr";
        if (!what && differ(x->graph.indices, y->graph.indices, x->graph.nnz, 8, &at))
            what = "graph.indices";
        if (!what && differ(x->vid_o, y->vid_o, nl, 8, &at))
            what = "vid_o";
        if (!what && differ(x->vid_p, y->vid_p, a->n, 8, &at))
            what = "vid_p";
        if (!what && differ(x->halo_owner, y->halo_owner, x->n_halo, 4, &at))
            what = "halo_owner";
        if (!what && differ(x->halo_owner_local, y->halo_owner_local, x->n_halo, 8, &at))
            what = "halo_owner_local";
        if (!what && differ(x->train, y->train, x->n_train, 8, &at))
            what = "train";
        if (!what && differ(x->val, y->val, x->n_val, 8, &at))
            what = "val";
        if (!what && differ(x->test, y->test, x->n_test, 8, &at))
            what = "test";
        if (!what && ((x->trainer == NULL) != (y->trainer == NULL) ||
                      (x->trainer && differ(x->trainer, y->trainer, x->n_solid, 4, &at))))
            what = "trainer";
        if (what)
            return gnn_err_set(err, GNN_ERR_MISMATCH, "part %lld: %s differs (at index %lld)", (long long)r, what,
                               (long long)at);
    }
    return GNN_OK;
}

const float *gnn_part_features(const gnn_dataset *local, int64_t *f)
{
    const gnn_format_ext *x = gnn_dataset_ext(local, "feat"), *m = gnn_dataset_ext(local, "partmeta");
    if (!x || !m || m->count < GNN_PARTMETA_COUNT) {
        if (f)
            *f = 0;
        return NULL;
    }
    if (f)
        *f = ((const int64_t *)m->data)[GNN_PARTMETA_F];
    return x->data;
}
