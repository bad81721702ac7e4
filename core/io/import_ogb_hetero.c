/* core/io/import_ogb_hetero.c -- the importer of OGB's heterogeneous raw CSV, the layout of
 * ogbn-mag (docs/formats.md, "OGB heterogeneous raw CSV"), from DIR or DIR/raw:
 *
 *   raw/num-node-dict.csv              a header of vertex type names, one row of counts
 *   raw/triplet-type-list.csv          "src,rel,dst" per relation
 *   raw/relations/<src>___<rel>___<dst>/edge.csv        "u,v": type-wise ids, u of src, v of dst
 *   raw/relations/<src>___<rel>___<dst>/num-edge-list.csv   optional: the edge count
 *   raw/node-feat/<type>/node-feat.csv                  optional per type
 *   raw/node-label/<type>/node-label.csv                optional per type
 *   split/<name>/<type>/{train,valid,test}.csv          optional per type: type-wise ids
 *
 * each gzipped or not. Homogenized as DGL's to_homogeneous and ogb's reader order things:
 * vertex types sorted by name, each type one contiguous id range at the offset of the earlier
 * types' counts; relations sorted by (src, rel, dst), relation id = that index. Edges are kept
 * directed as listed (in-edges: row = dst), deduplicated per relation; with reverse_relations,
 * relation R + r ("dst:rev-rel:src") holds every edge of relation r reversed, which is what RGCN
 * on ogbn-mag does. A type without node-feat is featureless (zero rows, vtype_featless = 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "core/io/import_internal.h"
#include "gnnref/dataset.h"
#include "gnnref/tensor.h"

#define NAME_CAP GNN_TYPE_NAME_MAX

typedef struct htype {
    char name[NAME_CAP];
    int64_t count, offset;
} htype;

typedef struct hrel {
    char src[NAME_CAP], rel[NAME_CAP], dst[NAME_CAP];
    int s, d; /* sorted vertex type indices */
} hrel;

typedef struct hgraph {
    htype *types;
    int64_t T, n;
    hrel *rels;
    int64_t R;
    i64_vec src, dst, rel; /* homogenized edges and their relations (reverse ones included) */
    int64_t records;       /* edge lines read */
} hgraph;

static void hgraph_free(hgraph *g)
{
    free(g->types);
    free(g->rels);
    vec_free(&g->src);
    vec_free(&g->dst);
    vec_free(&g->rel);
}

/* Split line (modified in place) at commas into at most max fields, blanks around each trimmed;
 * returns the number of fields, or max + 1 when there are more. */
static int split_fields(char *line, char **out, int max)
{
    int k = 0;
    for (char *p = line;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        while (*p == ' ' || *p == '\t')
            p++;
        size_t len = strlen(p);
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            p[--len] = '\0';
        if (k == max)
            return max + 1;
        out[k++] = p;
        if (!comma)
            return k;
        p = comma + 1;
    }
}

/* A type or relation name: 1 to 63 printable characters, none of them '/' (names are folder
 * names in the layout) or '"' (quoted CSV fields are not read). */
static int name_ok(const char *s)
{
    size_t len = strlen(s);
    if (len == 0 || len >= NAME_CAP)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] < 0x20 || s[i] >= 0x7f || s[i] == '/' || s[i] == '"')
            return 0;
    return 1;
}

static int cmp_type(const void *a, const void *b) { return strcmp(((const htype *)a)->name, ((const htype *)b)->name); }

static int cmp_rel(const void *a, const void *b)
{
    const hrel *x = a, *y = b;
    int c = strcmp(x->src, y->src);
    if (!c)
        c = strcmp(x->rel, y->rel);
    return c ? c : strcmp(x->dst, y->dst);
}

/* num-node-dict.csv: line 1 the type names, line 2 their counts; sorted by name after. */
static gnn_status read_node_dict(const char *path, int64_t max_v, hgraph *g, gnn_err *err)
{
    line_reader lr;
    gnn_status st = gnn_lr_open(&lr, path, err);
    if (st)
        return st;
    int r, line = 0;
    char *f[GNN_TYPES_MAX > 4096 ? 4096 : GNN_TYPES_MAX]; /* fields of one line */
    const int maxf = (int)(sizeof f / sizeof f[0]);
    while (!st && (r = gnn_lr_next(&lr, err)) > 0) {
        if (is_blank(lr.buf))
            continue;
        if (++line > 2) {
            st = gnn_lr_fail(&lr, GNN_ERR_UNSUPPORTED, "more than one row of counts (one graph only)", err);
            break;
        }
        const int k = split_fields(lr.buf, f, maxf);
        if (line == 1) {
            if (k > maxf) {
                st = gnn_lr_fail(&lr, GNN_ERR_RANGE, "too many vertex types (at most 4096)", err);
                break;
            }
            if (!(g->types = calloc((size_t)k, sizeof *g->types))) {
                st = gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
                break;
            }
            g->T = k;
            for (int i = 0; i < k && !st; i++) {
                for (int j = 0; j < i && name_ok(f[i]); j++)
                    if (!strcmp(g->types[j].name, f[i]))
                        f[i] = ""; /* reported below as a repeated name */
                if (!name_ok(f[i]))
                    st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected distinct vertex type names of 1 to 63 characters "
                                     "without '/' or '\"'", err);
                else
                    snprintf(g->types[i].name, NAME_CAP, "%s", f[i]);
            }
            continue;
        }
        if (k != g->T) {
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected one count per vertex type of the header line", err);
            break;
        }
        for (int i = 0; i < k && !st; i++) {
            const char *p = f[i];
            int64_t c;
            if (field_i64(&p, &c) || !at_end(p) || c < 0 || c > MAX_ID)
                st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected vertex counts >= 0", err);
            else
                g->types[i].count = c;
        }
    }
    if (!st && r < 0)
        st = (gnn_status)-r;
    gnn_lr_close(&lr);
    if (!st && line < 2)
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: expected a line of vertex type names and a line of counts", path);
    if (st)
        return st;
    qsort(g->types, (size_t)g->T, sizeof *g->types, cmp_type);
    for (int64_t t = 0; t < g->T; t++) {
        g->types[t].offset = g->n;
        g->n += g->types[t].count;
        if (g->n > max_v)
            return gnn_import_too_many_vertices(path, g->n, max_v, err);
    }
    return GNN_OK;
}

static int find_type(const hgraph *g, const char *name)
{
    for (int64_t t = 0; t < g->T; t++)
        if (!strcmp(g->types[t].name, name))
            return (int)t;
    return -1;
}

/* triplet-type-list.csv: "src,rel,dst" per line, src and dst known types; sorted after. */
static gnn_status read_triplets(const char *path, int reverse, hgraph *g, gnn_err *err)
{
    line_reader lr;
    gnn_status st = gnn_lr_open(&lr, path, err);
    if (st)
        return st;
    int r;
    int64_t cap = 0;
    char why[256];
    while (!st && (r = gnn_lr_next(&lr, err)) > 0) {
        if (is_blank(lr.buf))
            continue;
        char *f[4];
        if (split_fields(lr.buf, f, 3) != 3 || !name_ok(f[0]) || !name_ok(f[1]) || !name_ok(f[2])) {
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected 'src_type,relation,dst_type'", err);
            break;
        }
        const int s = find_type(g, f[0]), d = find_type(g, f[2]);
        /* "src:rel:dst" and, reversed, "dst:rev-rel:src" must fit a type name */
        const size_t len = strlen(f[0]) + strlen(f[1]) + strlen(f[2]) + 2 + (reverse ? 4 : 0);
        if (s < 0 || d < 0 || len >= NAME_CAP) {
            snprintf(why, sizeof why, s < 0 || d < 0 ? "vertex type '%.63s' is not in num-node-dict.csv"
                                                     : "the relation's name '%.63s:...' is longer than 63 characters",
                     s < 0 ? f[0] : d < 0 ? f[2] : f[0]);
            st = gnn_lr_fail(&lr, s < 0 || d < 0 ? GNN_ERR_FORMAT : GNN_ERR_RANGE, why, err);
            break;
        }
        if (g->R == cap) {
            cap = cap ? 2 * cap : 16;
            hrel *nr = cap <= GNN_TYPES_MAX / 2 ? realloc(g->rels, (size_t)cap * sizeof *nr) : NULL;
            if (!nr) {
                st = gnn_lr_fail(&lr, GNN_ERR_RANGE, "too many relations", err);
                break;
            }
            g->rels = nr;
        }
        hrel *h = &g->rels[g->R++];
        memset(h, 0, sizeof *h);
        snprintf(h->src, NAME_CAP, "%s", f[0]);
        snprintf(h->rel, NAME_CAP, "%s", f[1]);
        snprintf(h->dst, NAME_CAP, "%s", f[2]);
        h->s = s;
        h->d = d;
    }
    if (!st && r < 0)
        st = (gnn_status)-r;
    gnn_lr_close(&lr);
    if (st)
        return st;
    if (g->R > 0) /* an empty list leaves rels NULL, which qsort must not be given */
        qsort(g->rels, (size_t)g->R, sizeof *g->rels, cmp_rel);
    for (int64_t i = 1; i < g->R; i++)
        if (!cmp_rel(&g->rels[i - 1], &g->rels[i]))
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: relation '%s,%s,%s' is listed twice", path, g->rels[i].src,
                               g->rels[i].rel, g->rels[i].dst);
    return GNN_OK;
}

/* num-edge-list.csv: one line, the edge count, which must be what edge.csv held. */
static gnn_status check_edge_count(const char *path, int64_t got, gnn_err *err)
{
    line_reader lr;
    gnn_status st = gnn_lr_open(&lr, path, err);
    if (st)
        return st;
    int r, lines = 0;
    while (!st && (r = gnn_lr_next(&lr, err)) > 0) {
        if (is_blank(lr.buf))
            continue;
        const char *p = lr.buf;
        int64_t m;
        if (++lines > 1)
            st = gnn_lr_fail(&lr, GNN_ERR_UNSUPPORTED, "more than one graph (one line expected)", err);
        else if (field_i64(&p, &m) || !at_end(p) || m < 0)
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected the number of edges", err);
        else if (m != got) {
            char why[160];
            snprintf(why, sizeof why, "%lld edges, but edge.csv has %lld", (long long)m, (long long)got);
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, why, err);
        }
    }
    if (!st && r < 0)
        st = (gnn_status)-r;
    gnn_lr_close(&lr);
    return st;
}

/* One relation's edges: type-wise "u,v" with u < count(src), v < count(dst). */
static gnn_status read_relation(const char *raw, int64_t ri, int reverse, hgraph *g, gnn_err *err)
{
    const hrel *h = &g->rels[ri];
    const htype *ts = &g->types[h->s], *td = &g->types[h->d];
    char dir[PATH_CAP], path[PATH_CAP];
    if ((size_t)snprintf(dir, PATH_CAP, "%s/relations/%s___%s___%s", raw, h->src, h->rel, h->dst) >= PATH_CAP)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s/relations: path too long", raw);
    if (!gnn_import_find_maybe_gz(path, dir, "edge.csv"))
        return gnn_err_set(err, GNN_ERR_IO, "%s: no edge.csv[.gz] for relation '%s,%s,%s' of triplet-type-list.csv",
                           dir, h->src, h->rel, h->dst);
    line_reader lr;
    gnn_status st = gnn_lr_open(&lr, path, err);
    if (st)
        return st;
    int r;
    int64_t read = 0;
    while (!st && (r = gnn_lr_next(&lr, err)) > 0) {
        if (is_blank(lr.buf))
            continue;
        const char *p = lr.buf;
        int64_t u, v;
        if (field_i64(&p, &u) || *p++ != ',' || field_i64(&p, &v) || !at_end(p)) {
            st = gnn_lr_fail(&lr, GNN_ERR_FORMAT, "expected 'u,v'", err);
            break;
        }
        if (u < 0 || u >= ts->count || v < 0 || v >= td->count) {
            char why[256];
            const int bad_u = u < 0 || u >= ts->count;
            snprintf(why, sizeof why, "%s id %lld outside [0, %lld) (vertex type '%s')", bad_u ? "source" : "destination",
                     (long long)(bad_u ? u : v), (long long)(bad_u ? ts->count : td->count), bad_u ? ts->name : td->name);
            st = gnn_lr_fail(&lr, GNN_ERR_RANGE, why, err);
            break;
        }
        read++;
        const int64_t gu = ts->offset + u, gv = td->offset + v;
        if (vec_push(&g->src, gu) || vec_push(&g->dst, gv) || vec_push(&g->rel, ri) ||
            (reverse && (vec_push(&g->src, gv) || vec_push(&g->dst, gu) || vec_push(&g->rel, g->R + ri))))
            st = gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
    }
    if (!st && r < 0)
        st = (gnn_status)-r;
    gnn_lr_close(&lr);
    g->records += read;
    if (!st && gnn_import_find_maybe_gz(path, dir, "num-edge-list.csv"))
        st = check_edge_count(path, read, err);
    return st;
}

/* ---- the graph: in-edge CSR with an edge type per entry ---- */

typedef struct entry {
    int64_t u;
    int64_t r;
} entry;

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->u != y->u)
        return x->u < y->u ? -1 : 1;
    return (x->r > y->r) - (x->r < y->r);
}

/* Rows by destination, each sorted by (source, relation); an entry repeated within a relation is
 * merged (counted), the same pair in two relations is two entries. */
static gnn_status build_typed_graph(gnn_dataset *ds, const hgraph *g, int reverse, const char *what, gnn_err *err)
{
    const int64_t n = g->n, m = g->src.len;
    gnn_csr *G = &ds->graph;
    entry *ent = gnn_malloc_array((size_t)m + 1, sizeof *ent);
    int64_t *fill = gnn_malloc_array((size_t)n + 1, sizeof(int64_t)); /* the rows' fill cursors */
    G->indptr = gnn_calloc((size_t)n + 1, sizeof(int64_t));
    G->indices = gnn_malloc_array((size_t)m + 1, sizeof(int64_t));
    ds->etype = gnn_malloc_array((size_t)m + 1, sizeof(int32_t));
    G->n = n;
    G->owns = 1;
    if (!ent || !fill || !G->indptr || !G->indices || !ds->etype) {
        gnn_free(ent);
        gnn_free(fill);
        return gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory building the graph of %lld edges", what, (long long)m);
    }
    for (int64_t e = 0; e < m; e++)
        G->indptr[g->dst.v[e] + 1]++;
    for (int64_t v = 0; v < n; v++)
        G->indptr[v + 1] += G->indptr[v];
    memcpy(fill, G->indptr, (size_t)n * sizeof(int64_t));
    for (int64_t e = 0; e < m; e++)
        ent[fill[g->dst.v[e]]++] = (entry){ g->src.v[e], g->rel.v[e] };
    gnn_free(fill);
    int64_t k = 0;
    for (int64_t v = 0; v < n; v++) {
        const int64_t b = G->indptr[v], end = G->indptr[v + 1];
        qsort(ent + b, (size_t)(end - b), sizeof *ent, cmp_entry);
        G->indptr[v] = k;
        for (int64_t e = b; e < end; e++)
            if (e == b || cmp_entry(&ent[e], &ent[e - 1])) {
                G->indices[k] = ent[e].u;
                ds->etype[k++] = (int32_t)ent[e].r;
            }
    }
    G->indptr[n] = k;
    G->nnz = k;
    gnn_free(ent);
    ds->num_etypes = g->R * (reverse ? 2 : 1);
    ds->stats.edges_read = g->records;
    ds->stats.self_loops_dropped = 0;
    ds->stats.duplicates_merged = m - k;
    ds->stats.symmetrized = reverse;
    return GNN_OK;
}

/* ---- types, features, labels, split ---- */

static gnn_status set_type_names(gnn_dataset *ds, const hgraph *g, int reverse)
{
    ds->num_vtypes = g->T;
    ds->vtype = gnn_malloc_array((size_t)g->n + 1, sizeof(int32_t));
    ds->vtype_names = gnn_calloc((size_t)g->T, NAME_CAP);
    ds->vtype_featless = gnn_calloc((size_t)g->T, 1);
    ds->etype_names = gnn_calloc((size_t)ds->num_etypes, NAME_CAP);
    if (!ds->vtype || !ds->vtype_names || !ds->vtype_featless || (ds->num_etypes > 0 && !ds->etype_names))
        return GNN_ERR_NOMEM;
    for (int64_t t = 0; t < g->T; t++) {
        snprintf(ds->vtype_names[t], NAME_CAP, "%s", g->types[t].name);
        for (int64_t v = g->types[t].offset; v < g->types[t].offset + g->types[t].count; v++)
            ds->vtype[v] = (int32_t)t;
    }
    for (int64_t r = 0; r < g->R; r++) {
        const hrel *h = &g->rels[r]; /* lengths checked by read_triplets */
        snprintf(ds->etype_names[r], NAME_CAP, "%s:%s:%s", h->src, h->rel, h->dst);
        if (reverse)
            snprintf(ds->etype_names[g->R + r], NAME_CAP, "%s:rev-%s:%s", h->dst, h->rel, h->src);
    }
    if (ds->num_etypes == 0) { /* no relations: no edge types */
        gnn_free(ds->etype_names);
        gnn_free(ds->etype);
        ds->etype_names = NULL;
        ds->etype = NULL;
    }
    return GNN_OK;
}

/* node-feat/<type>/node-feat.csv per type: one width for all types that have it; the others are
 * featureless (zero rows). */
static gnn_status read_hetero_features(gnn_dataset *ds, const hgraph *g, const char *raw, gnn_err *err)
{
    char dir[PATH_CAP], path[PATH_CAP], first[PATH_CAP] = "";
    gnn_status st = GNN_OK;
    for (int64_t t = 0; t < g->T && !st; t++) {
        const htype *ty = &g->types[t];
        ds->vtype_featless[t] = 1;
        if ((size_t)snprintf(dir, PATH_CAP, "%s/node-feat/%s", raw, ty->name) >= PATH_CAP ||
            !gnn_import_find_maybe_gz(path, dir, "node-feat.csv"))
            continue;
        float *x = NULL;
        int64_t rows = 0, w = 0;
        if ((st = gnn_ogb_read_features(path, &x, &rows, &w, err)))
            break;
        if (rows != ty->count)
            st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: %lld rows, expected %lld (vertex type '%s' in num-node-dict.csv)",
                             path, (long long)rows, (long long)ty->count, ty->name);
        else if (rows > 0 && ds->feat && w != ds->num_features)
            st = gnn_err_set(err, GNN_ERR_UNSUPPORTED,
                             "%s: %lld features per row, but %s has %lld (every type with features must have the same "
                             "width)", path, (long long)w, first, (long long)ds->num_features);
        else if (rows > 0 && !ds->feat && w > 0 && g->n > ((int64_t)1 << 24) / w &&
                 (g->n > INT64_MAX / 4 / w || g->n / 1024 > rows))
            /* the featureless types' rows are zeros no file pays for: n x w cells is a claim,
             * at most max(2^24, 1024 x the cells read) (docs/fuzzing.md, finding 3; 10 KB of
             * one row made 100001 x 5000 cells, 2 GB, 26 s) */
            st = gnn_err_set(err, GNN_ERR_RANGE,
                             "%s: %lld rows of %lld features for %lld vertices in all (%lld cells, mostly of "
                             "featureless types): at most max(2^24, 1024 x the cells read)",
                             path, (long long)rows, (long long)w, (long long)g->n,
                             g->n > INT64_MAX / w ? -1LL : (long long)(g->n * w));
        else if (rows > 0 && !ds->feat) {
            ds->num_features = w;
            snprintf(first, PATH_CAP, "%s", path);
            if (w > 0 && !(ds->feat = gnn_calloc((size_t)(g->n * w), sizeof(float))))
                st = gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory for %lld x %lld features", path,
                                 (long long)g->n, (long long)w);
        }
        if (!st && rows > 0 && w > 0)
            memcpy(ds->feat + ty->offset * w, x, (size_t)(rows * w) * sizeof(float));
        if (!st)
            ds->vtype_featless[t] = 0;
        gnn_free(x);
    }
    return st;
}

/* node-label/<type>/node-label.csv per type: its labels at the type's offset, -1 elsewhere. */
static gnn_status read_hetero_labels(gnn_dataset *ds, const hgraph *g, const char *raw, gnn_err *err)
{
    char dir[PATH_CAP], path[PATH_CAP];
    int64_t max_label = -1;
    gnn_status st = GNN_OK;
    for (int64_t t = 0; t < g->T && !st; t++) {
        const htype *ty = &g->types[t];
        if ((size_t)snprintf(dir, PATH_CAP, "%s/node-label/%s", raw, ty->name) >= PATH_CAP ||
            !gnn_import_find_maybe_gz(path, dir, "node-label.csv"))
            continue;
        i64_vec lab = { 0 };
        int64_t mx = -1;
        if (!(st = gnn_ogb_read_labels(path, &lab, &mx, err)) && lab.len != ty->count)
            st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: %lld lines, expected %lld (vertex type '%s' in num-node-dict.csv)",
                             path, (long long)lab.len, (long long)ty->count, ty->name);
        if (!st && !ds->labels) {
            if (!(ds->labels = gnn_malloc_array((size_t)g->n + 1, sizeof(int32_t))))
                st = gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
            for (int64_t v = 0; !st && v < g->n; v++)
                ds->labels[v] = -1;
        }
        for (int64_t i = 0; !st && i < lab.len; i++)
            ds->labels[ty->offset + i] = (int32_t)lab.v[i];
        max_label = mx > max_label ? mx : max_label;
        vec_free(&lab);
    }
    ds->num_classes = ds->labels ? max_label + 1 : 0;
    return st;
}

/* split/<name>/<type>/{train,valid,test}.csv: <name> the alphabetically first folder of split/
 * that holds <type>/train.csv for some type; type-wise ids, each type's at its offset. */
static gnn_status read_hetero_split(gnn_dataset *ds, const hgraph *g, const char *split_root, gnn_err *err)
{
    static const char *const k_names[3] = { "train.csv", "valid.csv", "test.csv" };
    char best[PATH_CAP] = "", found[PATH_CAP], probe[PATH_CAP + NAME_CAP];
    for (int64_t t = 0; t < g->T; t++) {
        snprintf(probe, sizeof probe, "%s/train.csv", g->types[t].name);
        if (gnn_ogb_find_split_dir(split_root, probe, found) && (!best[0] || strcmp(found, best) < 0))
            memcpy(best, found, PATH_CAP);
    }
    if (!best[0])
        return GNN_OK;
    for (int64_t t = 0; t < g->T; t++) {
        char dir[PATH_CAP];
        if ((size_t)snprintf(dir, PATH_CAP, "%s/%s", best, g->types[t].name) >= PATH_CAP)
            return gnn_err_set(err, GNN_ERR_INVAL, "%s: path too long", best);
        gnn_status st = gnn_import_read_splits_at(ds, dir, k_names, g->types[t].offset, g->types[t].count, err);
        if (st)
            return st;
    }
    return GNN_OK;
}

/* raw/ and split/ for DIR or DIR/raw, as the homogeneous importer finds them. */
static gnn_status hetero_dirs(const char *dir, char *raw, char *split_root, gnn_err *err)
{
    char probe[PATH_CAP];
    struct stat sb;
    if (gnn_import_find_maybe_gz(probe, dir, "num-node-dict.csv")) {
        snprintf(raw, PATH_CAP, "%s", dir);
        if ((size_t)snprintf(split_root, PATH_CAP, "%s/split", dir) < PATH_CAP && stat(split_root, &sb) == 0 &&
            S_ISDIR(sb.st_mode))
            return GNN_OK;
        snprintf(split_root, PATH_CAP, "%s/../split", dir);
        return GNN_OK;
    }
    if ((size_t)snprintf(raw, PATH_CAP, "%s/raw", dir) < PATH_CAP &&
        gnn_import_find_maybe_gz(probe, raw, "num-node-dict.csv")) {
        snprintf(split_root, PATH_CAP, "%s/split", dir);
        return GNN_OK;
    }
    return gnn_err_set(err, GNN_ERR_IO, "%s: no num-node-dict.csv[.gz] here or in %s/raw (OGB heterogeneous layout)",
                       dir, dir);
}

static gnn_status import_hetero_body(gnn_dataset *ds, const char *dir, const gnn_import_options *opt, int64_t max_v,
                                     gnn_err *err)
{
    gnn_ogb_name(ds, dir);
    char raw[PATH_CAP], split_root[PATH_CAP], path[PATH_CAP];
    gnn_status st = hetero_dirs(dir, raw, split_root, err);
    if (st)
        return st;
    const int reverse = opt && opt->reverse_relations;
    hgraph g;
    memset(&g, 0, sizeof g);
    gnn_import_find_maybe_gz(path, raw, "num-node-dict.csv");
    if ((st = read_node_dict(path, max_v, &g, err)))
        goto out;
    if (!gnn_import_find_maybe_gz(path, raw, "triplet-type-list.csv")) {
        st = gnn_err_set(err, GNN_ERR_IO, "%s: no triplet-type-list.csv[.gz] (OGB heterogeneous layout)", raw);
        goto out;
    }
    if ((st = read_triplets(path, reverse, &g, err)))
        goto out;
    if (2 * g.R > GNN_TYPES_MAX) {
        st = gnn_err_set(err, GNN_ERR_RANGE, "%s: %lld relations, at most %d", path, (long long)g.R, GNN_TYPES_MAX / 2);
        goto out;
    }
    for (int64_t r = 0; r < g.R && !st; r++)
        st = read_relation(raw, r, reverse, &g, err);
    if (st || (st = build_typed_graph(ds, &g, reverse, raw, err)))
        goto out;
    vec_free(&g.src); /* the edges are in the CSR now */
    vec_free(&g.dst);
    vec_free(&g.rel);
    if ((st = set_type_names(ds, &g, reverse))) {
        st = gnn_err_set(err, st, "%s: out of memory for the types", raw);
        goto out;
    }
    if ((st = read_hetero_features(ds, &g, raw, err)) || (st = read_hetero_labels(ds, &g, raw, err)) ||
        (st = read_hetero_split(ds, &g, split_root, err)))
        goto out;
out:
    hgraph_free(&g);
    return st;
}

gnn_status gnn_import_ogb_hetero(gnn_dataset *ds, const char *dir, const gnn_import_options *opt, gnn_err *err)
{
    return gnn_import_run_opt(ds, dir, opt, "ogb-hetero", 0, import_hetero_body, err);
}
