/* core/io/partition_load.c -- loading a partition set (core/io/partition_io_internal.h has the layout
 * and the three layers of checks): one part, as a rank does, or the whole set, rebuilding the
 * part vector and the global graph; bitwise comparison of two structures; a part's features.
 * Every failure names the file at fault; docs/partitioning.md ("Loading") lists the checks in
 * the order they run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/io/partition_io_internal.h"
#include "gnnref/crc32c.h"
#include "gnnref/dataset.h"
#include "gnnref/partition.h"
#include "gnnref/tensor.h"

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


/* Part r's counts (from partmeta, checked against the manifest) and id tables (pointing into its
 * mapped file). */
typedef struct part_tables {
    int64_t n;              /* global vertices */
    int64_t n_solid, n_halo, nl;
    const int64_t *vid_o;   /* (nl): local -> global, solid then halo */
    const int64_t *halo;    /* (2 n_halo): owner, owner-local id */
    const int32_t *trainer; /* (n_solid), NULL unless T > 1 */
} part_tables;

/* The whole file, padding included, against the manifest: the mapping starts at byte 0 and the
 * loader has checked that the header's file size is the file's size. */
static gnn_status check_whole_file(const gnn_dataset *ds, const file_entry *fe, const char *path, gnn_err *err)
{
    uint64_t size;
    memcpy(&size, (const unsigned char *)ds->map_base + GNN_HDR_OFF_FILE_SIZE, sizeof size);
    const int64_t bytes = (int64_t)size;
    const uint32_t crc = gnn_crc32c(0, ds->map_base, (size_t)size);
    if (bytes != fe->bytes || crc != fe->crc)
        return gnn_err_set(err, GNN_ERR_CHECKSUM,
                           "%s: %lld bytes with CRC32C 0x%08x, the manifest says %lld bytes with 0x%08x: the file is "
                           "corrupted or belongs to another partition set",
                           path, (long long)bytes, crc, (long long)fe->bytes, fe->crc);
    return GNN_OK;
}

/* partmeta against the manifest and its files[r] entry, so that a valid file of another set or
 * another rank is refused; fills t's counts. */
static gnn_status check_partmeta(const gnn_dataset *ds, int64_t r, const gnn_part_manifest *m, const file_entry *fe,
                                 const char *path, part_tables *t, gnn_err *err)
{
    const void *pv = NULL;
    gnn_status st = need_ext(ds, "partmeta", GNN_PARTMETA_COUNT, 8, path, &pv, err);
    if (st)
        return st;
    const int64_t *meta = pv;
    const int64_t n_solid = meta[GNN_PARTMETA_N_SOLID], n_halo = meta[GNN_PARTMETA_N_HALO], n = m->n;
    if (meta[GNN_PARTMETA_VERSION] != 1 || (uint64_t)meta[GNN_PARTMETA_SET_ID] != m->set_id ||
        meta[GNN_PARTMETA_RANK] != r || meta[GNN_PARTMETA_K] != m->k || meta[GNN_PARTMETA_TRAINERS] != m->trainers ||
        meta[GNN_PARTMETA_N] != n || meta[GNN_PARTMETA_NNZ] != m->nnz || meta[GNN_PARTMETA_F] != m->num_features ||
        n_solid != fe->n_solid ||
        n_halo != fe->n_halo || n_solid < 0 || n_halo < 0 || n_solid > n || n_halo > n ||
        ds->graph.n != n_solid + n_halo || ds->graph.nnz != fe->nnz)
        return gnn_err_set(err, GNN_ERR_FORMAT,
                           "%s: partmeta (set 0x%016llx, rank %lld of %lld, %lld trainers, n %lld, %lld solid, %lld "
                           "halo, %lld local edges) does not match the manifest (set 0x%016llx, rank %lld of %lld, "
                           "%lld trainers, n %lld, %lld solid, %lld halo, %lld local edges)",
                           path, (unsigned long long)meta[GNN_PARTMETA_SET_ID], (long long)meta[GNN_PARTMETA_RANK],
                           (long long)meta[GNN_PARTMETA_K], (long long)meta[GNN_PARTMETA_TRAINERS],
                           (long long)meta[GNN_PARTMETA_N], (long long)n_solid, (long long)n_halo,
                           (long long)ds->graph.nnz,
                           (unsigned long long)m->set_id, (long long)r, (long long)m->k, (long long)m->trainers,
                           (long long)n, (long long)fe->n_solid, (long long)fe->n_halo, (long long)fe->nnz);
    t->n = n;
    t->n_solid = n_solid;
    t->n_halo = n_halo;
    t->nl = n_solid + n_halo;
    return GNN_OK;
}

/* The sections vid_o, halo, feat (finite) and, when T > 1, trainer, each of the size partmeta
 * gives; their tables into t. */
static gnn_status find_tables(const gnn_dataset *ds, const gnn_part_manifest *m, const char *path, part_tables *t,
                              gnn_err *err)
{
    const int64_t n_solid = t->n_solid;
    const void *pv = NULL;
    gnn_status st;
    if ((st = need_ext(ds, "vid_o", t->nl, 8, path, &pv, err)))
        return st;
    t->vid_o = pv;
    if ((st = need_ext(ds, "halo", 2 * t->n_halo, 8, path, &pv, err)))
        return st;
    t->halo = pv;
    if (n_solid > 0 && m->num_features > INT64_MAX / n_solid)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: %lld solid rows x %lld features overflow", path, (long long)n_solid,
                           (long long)m->num_features);
    if ((st = need_ext(ds, "feat", n_solid * m->num_features, 4, path, &pv, err)))
        return st;
    const float *feat = pv;
    const int64_t fw = m->num_features;
    for (int64_t i = 0; i < n_solid * fw; i++)
        if (!isfinite(feat[i]))
            return gnn_err_set(err, GNN_ERR_NAN, "%s: section 'feat': row %lld column %lld is %g", path,
                               (long long)(i / fw), (long long)(i % fw), (double)feat[i]);
    t->trainer = NULL;
    if (m->trainers > 1) {
        if ((st = need_ext(ds, "trainer", n_solid, 4, path, &pv, err)))
            return st;
        t->trainer = pv;
    }
    return GNN_OK;
}

/* The structure the builders give: solid and halo each increasing, disjoint, in range; halo
 * owners other ranks; halo rows empty; trainers in range. (Disjointness is checked as vid_p is
 * built, in copy_structure.) */
static gnn_status check_tables(const gnn_dataset *ds, int64_t r, const gnn_part_manifest *m, const part_tables *t,
                               const char *path, gnn_err *err)
{
    const int64_t n = t->n, n_solid = t->n_solid, n_halo = t->n_halo, nl = t->nl;
    const int64_t *vid_o = t->vid_o, *halo = t->halo;
    const int32_t *trainer = t->trainer;
    for (int64_t l = 0; l < nl; l++) {
        const int bad_order = l > 0 && l != n_solid && vid_o[l] <= vid_o[l - 1];
        if (vid_o[l] < 0 || vid_o[l] >= n || bad_order)
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section 'vid_o': entry %lld = %lld is %s", path, (long long)l,
                               (long long)vid_o[l], bad_order ? "not increasing" : "out of range");
    }
    for (int64_t i = 0; i < n_halo; i++)
        if (halo[2 * i] < 0 || halo[2 * i] >= m->k || halo[2 * i] == r || halo[2 * i + 1] < 0 || halo[2 * i + 1] >= n)
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: halo %lld: owner %lld, owner-local id %lld: out of range", path,
                               (long long)i, (long long)halo[2 * i], (long long)halo[2 * i + 1]);
    for (int64_t l = n_solid; l < nl; l++)
        if (ds->graph.indptr[l + 1] != ds->graph.indptr[l])
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: halo row %lld has in-edges", path, (long long)l);
    if (trainer)
        for (int64_t l = 0; l < n_solid; l++)
            if (trainer[l] < 0 || trainer[l] >= m->trainers)
                return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section 'trainer': entry %lld = %d outside [0, %lld)", path,
                                   (long long)l, trainer[l], (long long)m->trainers);
    return GNN_OK;
}

/* *L's own copies of the local graph and the id tables, and vid_p (global -> local, -1 where
 * the vertex is not on this part), which refuses a vertex that is both solid and halo. */
static gnn_status copy_structure(const gnn_dataset *ds, int64_t r, const gnn_part_manifest *m, const part_tables *t,
                                 gnn_part_local *L, const char *path, gnn_err *err)
{
    const int64_t n = t->n, n_solid = t->n_solid, n_halo = t->n_halo, nl = t->nl;
    const int64_t *vid_o = t->vid_o, *halo = t->halo;
    const int32_t *trainer = t->trainer;
    L->rank = r;
    L->n_solid = n_solid;
    L->n_halo = n_halo;
    L->trainers = m->trainers;
    L->graph.n = nl;
    L->graph.nnz = ds->graph.nnz;
    L->graph.owns = 1;
    L->graph.indptr = xmalloc((size_t)nl + 1, sizeof(int64_t));
    L->graph.indices = xmalloc((size_t)ds->graph.nnz, sizeof(int64_t));
    L->vid_o = xmalloc((size_t)nl, sizeof(int64_t));
    L->vid_p = xmalloc((size_t)n, sizeof(int64_t));
    L->halo_owner = xmalloc((size_t)n_halo, sizeof(int32_t));
    L->halo_owner_local = xmalloc((size_t)n_halo, sizeof(int64_t));
    if (trainer)
        L->trainer = xmalloc((size_t)n_solid, sizeof(int32_t));
    if (!L->graph.indptr || !L->graph.indices || !L->vid_o || !L->vid_p || !L->halo_owner || !L->halo_owner_local ||
        (trainer && !L->trainer))
        return gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
    memcpy(L->graph.indptr, ds->graph.indptr, ((size_t)nl + 1) * sizeof(int64_t));
    if (ds->graph.nnz)
        memcpy(L->graph.indices, ds->graph.indices, (size_t)ds->graph.nnz * sizeof(int64_t));
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
        if (L->vid_p[vid_o[l]] >= 0)
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section 'vid_o': vertex %lld is both solid and halo", path,
                               (long long)vid_o[l]);
        L->vid_p[vid_o[l]] = l;
    }
    return GNN_OK;
}

/* The split by owner, from the part's split section: L's train, val and test lists of local
 * ids, increasing. */
static gnn_status build_split_lists(const gnn_dataset *ds, int64_t n_solid, gnn_part_local *L, const char *path,
                                    gnn_err *err)
{
    int64_t cnt[4] = { 0, 0, 0, 0 };
    for (int64_t l = 0; l < n_solid && ds->split; l++)
        cnt[ds->split[l]]++;
    L->n_train = cnt[GNN_SPLIT_TRAIN];
    L->n_val = cnt[GNN_SPLIT_VAL];
    L->n_test = cnt[GNN_SPLIT_TEST];
    L->train = xmalloc((size_t)L->n_train, sizeof(int64_t));
    L->val = xmalloc((size_t)L->n_val, sizeof(int64_t));
    L->test = xmalloc((size_t)L->n_test, sizeof(int64_t));
    if (!L->train || !L->val || !L->test)
        return gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
    int64_t it = 0, iv = 0, is = 0;
    for (int64_t l = 0; l < n_solid && ds->split; l++) {
        if (ds->split[l] == GNN_SPLIT_TRAIN)
            L->train[it++] = l;
        else if (ds->split[l] == GNN_SPLIT_VAL)
            L->val[iv++] = l;
        else if (ds->split[l] == GNN_SPLIT_TEST)
            L->test[is++] = l;
    }
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
    part_tables t = { 0 };
    if ((st = check_whole_file(&ds, fe, path, err)) || (st = check_partmeta(&ds, r, m, fe, path, &t, err)) ||
        (st = find_tables(&ds, m, path, &t, err)) || (st = check_tables(&ds, r, m, &t, path, err)) ||
        (st = copy_structure(&ds, r, m, &t, L, path, err)) || (st = build_split_lists(&ds, t.n_solid, L, path, err))) {
        gnn_part_local_free(L);
        gnn_dataset_free(&ds);
        return st;
    }
    if (out_ds)
        *out_ds = ds;
    else
        gnn_dataset_free(&ds);
    return GNN_OK;
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
    gnn_status st = gnn_pset_manifest_read(dir, &m, &files, err);
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

/* The part vector (and trainer vector) from the solid lists: every vertex owned exactly once. */
static gnn_status rebuild_part_vector(gnn_partition *p, const file_entry *files, const char *dir, gnn_err *err)
{
    for (int64_t v = 0; v < p->n; v++)
        p->part[v] = -1;
    for (int64_t r = 0; r < p->k; r++) {
        const gnn_part_local *L = &p->parts[r];
        for (int64_t l = 0; l < L->n_solid; l++) {
            const int64_t v = L->vid_o[l];
            if (p->part[v] >= 0)
                return gnn_err_set(err, GNN_ERR_FORMAT, "%s/%s: vertex %lld is solid in parts %d and %lld", dir,
                                   files[r].name, (long long)v, p->part[v], (long long)r);
            p->part[v] = (int32_t)r;
            if (p->trainer)
                p->trainer[v] = L->trainer[l];
        }
    }
    for (int64_t v = 0; v < p->n; v++)
        if (p->part[v] < 0)
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: vertex %lld is solid in no part", dir, (long long)v);
    return GNN_OK;
}

/* Halo owners and their local ids agree with the owners' files. */
static gnn_status check_halo_owners(const gnn_partition *p, const file_entry *files, const char *dir, gnn_err *err)
{
    for (int64_t r = 0; r < p->k; r++) {
        const gnn_part_local *L = &p->parts[r];
        for (int64_t i = 0; i < L->n_halo; i++) {
            const int64_t v = L->vid_o[L->n_solid + i];
            const gnn_part_local *O = &p->parts[p->part[v]];
            if (L->halo_owner[i] != p->part[v] || L->halo_owner_local[i] != O->vid_p[v])
                return gnn_err_set(err, GNN_ERR_FORMAT,
                                   "%s/%s: halo vertex %lld: owner %d, local id %lld there; the owners' files say "
                                   "%d, %lld",
                                   dir, files[r].name, (long long)v, L->halo_owner[i], (long long)L->halo_owner_local[i],
                                   p->part[v], (long long)O->vid_p[v]);
        }
    }
    return GNN_OK;
}

/* The global graph into *G (owned, freed by the caller on failure): every vertex's in-edges are
 * stored at its owner. Its CRC32C and the set id it gives must be the manifest's. */
static gnn_status rebuild_graph(const gnn_partition *p, const gnn_part_manifest *m, gnn_csr *G, const char *dir,
                                gnn_err *err)
{
    const int64_t n = p->n;
    int64_t nnz = 0;
    for (int64_t r = 0; r < p->k; r++)
        nnz += p->parts[r].graph.nnz;
    if (nnz != m->nnz)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: the parts hold %lld edges, the manifest says %lld", dir,
                           (long long)nnz, (long long)m->nnz);
    G->n = n;
    G->nnz = nnz;
    G->owns = 1;
    G->indptr = xmalloc((size_t)n + 1, sizeof(int64_t));
    G->indices = xmalloc((size_t)nnz, sizeof(int64_t));
    if (!G->indptr || !G->indices)
        return gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", dir);
    G->indptr[0] = 0;
    for (int64_t v = 0; v < n; v++) {
        const gnn_part_local *O = &p->parts[p->part[v]];
        G->indptr[v + 1] = G->indptr[v] + gnn_csr_degree(&O->graph, O->vid_p[v]);
    }
    for (int64_t v = 0; v < n; v++) {
        const gnn_part_local *O = &p->parts[p->part[v]];
        const int64_t l = O->vid_p[v];
        int64_t at = G->indptr[v];
        for (int64_t e = O->graph.indptr[l]; e < O->graph.indptr[l + 1]; e++)
            G->indices[at++] = O->vid_o[O->graph.indices[e]];
    }
    const uint32_t gcrc = gnn_graph_crc(G);
    if (gcrc != m->graph_crc || gnn_partition_set_id(p, gcrc) != m->set_id)
        return gnn_err_set(err, GNN_ERR_FORMAT,
                           "%s: the parts rebuild a graph with CRC32C 0x%08x and set id 0x%016llx; the manifest says "
                           "0x%08x and 0x%016llx",
                           dir, gcrc, (unsigned long long)gnn_partition_set_id(p, gcrc), m->graph_crc,
                           (unsigned long long)m->set_id);
    return GNN_OK;
}

gnn_status gnn_partition_load(const char *dir, gnn_partition *p, gnn_csr *g, gnn_part_manifest *mo, gnn_err *err)
{
    if (!dir || !p)
        return gnn_err_set(err, GNN_ERR_INVAL, "partition load: NULL argument");
    memset(p, 0, sizeof *p);
    if (g)
        memset(g, 0, sizeof *g);
    gnn_part_manifest m;
    file_entry *files = NULL;
    gnn_status st = gnn_pset_manifest_read(dir, &m, &files, err);
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
    if (st || (st = rebuild_part_vector(p, files, dir, err)) || (st = check_halo_owners(p, files, dir, err)) ||
        (st = rebuild_graph(p, &m, &G, dir, err)))
        goto fail;
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
