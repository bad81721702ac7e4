/* core/io/partition_save.c -- writing a partition set (core/io/partition_io_internal.h has the layout
 * and the checks that reading makes): one native-format file per part, then manifest.json, whose
 * CRC32C covers its own text and whose entries carry each part file's size and CRC32C. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include "core/io/partition_io_internal.h"
#include "gnnref/crc32c.h"
#include "gnnref/dataset.h"
#include "gnnref/partition.h"
#include "gnnref/tensor.h"

static void part_path(char *buf, size_t cap, const char *dir, int64_t r)
{
    snprintf(buf, cap, "%s/part-%05lld.gnn", dir, (long long)r);
}

/* CRC32C and size of a whole file. */
static gnn_status file_crc(const char *path, uint32_t *crc, int64_t *bytes, gnn_err *err)
{
    gnn_status st = gnn_pset_check_regular(path, err);
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


/* What the manifest records: the provenance as given (or none: edge_cut -1), the dataset's
 * counts and graph CRC, k, T and the set's fingerprint. */
static void manifest_of(gnn_part_manifest *m, const gnn_partition *p, const gnn_dataset *ds,
                        const gnn_part_manifest *prov)
{
    memset(m, 0, sizeof *m);
    if (prov)
        *m = *prov;
    else
        m->edge_cut = -1;
    snprintf(m->dataset, sizeof m->dataset, "%s", ds->name);
    m->n = p->n;
    m->nnz = ds->graph.nnz;
    m->num_features = ds->feat ? ds->num_features : 0;
    m->num_classes = ds->num_classes;
    m->graph_crc = gnn_graph_crc(&ds->graph);
    m->k = p->k;
    m->trainers = p->trainers < 1 ? 1 : p->trainers;
    m->set_id = gnn_partition_set_id(p, m->graph_crc);
}

/* The manifest as JSON, in the order of docs/partitioning.md; *files is its (empty) "files"
 * array, which the part files' entries go into as they are written. */
static json_object *manifest_json(const gnn_part_manifest *m, json_object **files)
{
    json_object *root = json_object_new_object();
    json_object_object_add(root, "format", json_object_new_string("gnnref-partition-set"));
    json_object_object_add(root, "format_version", json_object_new_int(1));
    json_object_object_add(root, "set_id", hex64(m->set_id));
    json_object *jd = json_object_new_object();
    json_object_object_add(jd, "name", json_object_new_string(m->dataset));
    json_object_object_add(jd, "n", json_object_new_int64(m->n));
    json_object_object_add(jd, "nnz", json_object_new_int64(m->nnz));
    json_object_object_add(jd, "num_features", json_object_new_int64(m->num_features));
    json_object_object_add(jd, "num_classes", json_object_new_int64(m->num_classes));
    json_object_object_add(jd, "graph_crc32c", hex32(m->graph_crc));
    json_object_object_add(root, "dataset", jd);
    json_object_object_add(root, "parts", json_object_new_int64(m->k));
    json_object_object_add(root, "trainers", json_object_new_int64(m->trainers));
    json_object_object_add(root, "method", json_object_new_string(gnn_part_method_name(m->method)));
    json_object_object_add(root, "seed", json_object_new_uint64(m->seed));
    json_object *bal = json_object_new_array();
    for (int c = 0; c < GNN_PART_MAX_CON; c++)
        if (m->balance & (1u << c))
            json_object_array_add(bal, json_object_new_string(gnn_part_constraint_name(1u << c)));
    json_object_object_add(root, "balance", bal);
    json_object_object_add(root, "ufactor", json_object_new_int(m->ufactor));
    if (m->have_split) {
        json_object *sp = json_object_new_array();
        for (int i = 0; i < 3; i++)
            json_object_array_add(sp, json_object_new_double(m->split[i]));
        json_object_object_add(root, "split", sp);
    } else {
        json_object_object_add(root, "split", NULL);
    }
    json_object_object_add(root, "edge_cut", json_object_new_int64(m->edge_cut));
    *files = json_object_new_array();
    json_object_object_add(root, "files", *files);
    return root;
}

/* Write part r's file for every r, each followed by its entry in files: name, size and CRC32C
 * of the whole file as written, and its counts. */
static gnn_status save_parts(const char *dir, const gnn_partition *p, const gnn_dataset *ds, uint64_t set_id,
                             json_object *files, gnn_err *err)
{
    gnn_status st = GNN_OK;
    char path[4096];
    for (int64_t r = 0; r < p->k && !st; r++) {
        part_file pf;
        st = make_part_file(&pf, p, r, ds, set_id, err);
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
    return st;
}

/* The manifest's last field is its own CRC32C: printed as zeros, computed over the whole text,
 * then written into those digits. */
static gnn_status write_manifest(const char *dir, json_object *root, gnn_err *err)
{
    gnn_status st;
    json_object_object_add(root, CRC_KEY, json_object_new_string("0x00000000"));
    size_t len = 0;
    const char *js = json_object_to_json_string_length(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE,
                                                       &len);
    char *text = malloc(len + 2);
    if (!text)
        return gnn_err_set(err, GNN_ERR_NOMEM, "partition save: out of memory");
    memcpy(text, js, len);
    text[len++] = '\n';
    text[len] = '\0';
    char *d = gnn_pset_crc_digits(text, len);
    if (!d) {
        st = gnn_err_set(err, GNN_ERR_INTERNAL, "partition save: manifest checksum field not found");
    } else {
        char hex[9];
        snprintf(hex, sizeof hex, "%08x", gnn_crc32c(0, text, len));
        memcpy(d, hex, 8);
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, MANIFEST);
        st = write_text_file(path, text, len, err);
    }
    free(text);
    return st;
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
    manifest_of(&m, p, ds, prov);
    json_object *files;
    json_object *root = manifest_json(&m, &files);
    gnn_status st = save_parts(dir, p, ds, m.set_id, files, err);
    if (!st)
        st = write_manifest(dir, root, err);
    json_object_put(root);
    return st;
}
