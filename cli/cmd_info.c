/* cli/cmd_info.c -- `gnnref info`: open a dataset or a partition set, run every check, and
 * print its counts. Thin: opening and checking are the library's (include/gnnref/dataset.h,
 * partition.h); the degree and label statistics here are what the command prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/flags.h"
#include "gnnref/dataset.h"
#include "gnnref/partition.h"

typedef struct info_opts {
    const char *data, *json;
} info_opts;

static const cli_flag k_flags[] = {
    CLI_FLAG_DATA(info_opts, data, CLI_REQUIRED,
                  "a gnnref binary file (a part file too), a text-layout or OGB directory, a partition set's "
                  "directory, or builtin"),
    CLI_FLAG_JSON(info_opts, json, CLI_JSON_HELP),
    CLI_END
};

static const cli_group k_groups[] = { { k_flags, 0, NULL }, { NULL, 0, NULL } };

static const cli_command k_cmd = {
    .name = "info",
    .usage = "[DATA] [flags]",
    .preface = "Open DATA (--data PATH or the one positional argument), run every check (structure, ids,\n"
               "NaN/Inf features, labels, split codes; CRC32C for binary files) and print its counts:\n"
               "vertices, edges, degrees, features, classes with the label histogram and majority-class\n"
               "rate, split sizes, what the importer merged or dropped, and 'checks: ok'. A partition set\n"
               "is loaded and checked whole, and its parts listed.\n",
    .positional = "data",
    .pos_meta = "DATA",
    .groups = k_groups,
};

/* The report's config: the flags, and "path" (the key before --data). */
static void info_config(json_object *cfg, const info_opts *o, const cli_args *a)
{
    cli_config_json(cfg, a, o, 0);
    json_object_object_add(cfg, "path", json_object_new_string(o->data));
}

typedef struct degree_stats {
    int64_t min, max, isolated, self_loops;
    double mean;
    int symmetric;       /* 1 yes, 0 no, -1 unknown (rows not sorted) */
    int64_t no_reverse;  /* entries u in row v without v in row u */
} degree_stats;

/* Entries without a reverse, for a graph with sorted rows, in O(nnz): scanning v in
 * ascending order, the vertices v that list u arrive in ascending order, so they must match
 * row u front to back; a cursor per row consumes them. An entry without a reverse is seen
 * twice: when it is scanned (its reverse is not found in the other row) and from its own
 * row's cursor (it is skipped or left over), so the count is halved at the end.
 * Returns -1 when the cursor array cannot be allocated. */
static int64_t count_no_reverse(const gnn_csr *g)
{
    int64_t *pos = malloc(((size_t)g->n + 1) * sizeof(int64_t));
    if (!pos)
        return -1;
    memcpy(pos, g->indptr, (size_t)g->n * sizeof(int64_t));
    int64_t missing = 0;
    for (int64_t v = 0; v < g->n; v++)
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
            const int64_t u = g->indices[e], end = g->indptr[u + 1];
            while (pos[u] < end && g->indices[pos[u]] < v) {
                pos[u]++; /* u lists a vertex below v that does not list u */
                missing++;
            }
            if (pos[u] < end && g->indices[pos[u]] == v)
                pos[u]++;
            else
                missing++;
        }
    for (int64_t u = 0; u < g->n; u++)
        missing += g->indptr[u + 1] - pos[u];
    free(pos);
    return missing / 2;
}

static degree_stats graph_stats(const gnn_csr *g)
{
    degree_stats d = { 0, 0, 0, 0, 0.0, 1, 0 };
    d.min = g->n > 0 ? INT64_MAX : 0;
    for (int64_t v = 0; v < g->n; v++) {
        int64_t k = gnn_csr_degree(g, v);
        d.min = k < d.min ? k : d.min;
        d.max = k > d.max ? k : d.max;
        d.isolated += k == 0;
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
            d.self_loops += g->indices[e] == v;
            if (e > g->indptr[v] && g->indices[e] < g->indices[e - 1])
                d.symmetric = -1;
        }
    }
    d.mean = g->n > 0 ? (double)g->nnz / (double)g->n : 0.0;
    if (d.symmetric < 0)
        return d;
    d.no_reverse = count_no_reverse(g);
    d.symmetric = d.no_reverse == 0 ? 1 : d.no_reverse > 0 ? 0 : -1;
    return d;
}

/* How the features are stored (docs/sparse-features.md): dense, or csr with its nonzeros and
 * density; printed and into r as "feature_storage": {"kind", "nnz", "density"}. */
static void info_feat_storage(const gnn_dataset *ds, json_object *r)
{
    const int64_t cells = ds->graph.n * ds->num_features;
    int64_t nnz = 0;
    if (gnn_dataset_feat_is_csr(ds))
        nnz = ds->feat_csr.nnz;
    else
        for (int64_t i = 0; ds->feat && i < cells; i++)
            nnz += ds->feat[i] != 0.0f;
    const double density = cells > 0 ? (double)nnz / (double)cells : 0.0;
    const char *kind = gnn_dataset_feat_is_csr(ds) ? "csr" : "dense";
    printf("feature storage: %s, %lld nonzeros, density %.2f%%\n", kind, (long long)nnz, 100.0 * density);
    json_object *fj = json_object_new_object();
    json_object_object_add(fj, "kind", json_object_new_string(kind));
    json_object_object_add(fj, "nnz", json_object_new_int64(nnz));
    json_object_object_add(fj, "density", json_object_new_double(density));
    json_object_object_add(r, "feature_storage", fj);
}

/* Vertices, edges, symmetry and degrees: printed and into r. */
static void info_graph(const gnn_dataset *ds, json_object *r)
{
    const degree_stats d = graph_stats(&ds->graph);
    printf("vertices: %lld\n", (long long)ds->graph.n);
    printf("edges: %lld (CSR entries, in-neighbors), self-loops %lld, symmetric ", (long long)ds->graph.nnz,
           (long long)d.self_loops);
    if (d.symmetric == 0)
        printf("no (%lld entries have no reverse)\n", (long long)d.no_reverse);
    else
        printf("%s\n", d.symmetric == 1 ? "yes" : "unknown (rows not sorted, or out of memory)");
    printf("degree: min %lld, mean %.2f, max %lld, isolated %lld\n", (long long)d.min, d.mean, (long long)d.max,
           (long long)d.isolated);
    printf("features: %lld (f32)\n", (long long)ds->num_features);
    info_feat_storage(ds, r);
    printf("classes: %lld\n", (long long)ds->num_classes);
    json_object *dj = json_object_new_object();
    json_object_object_add(dj, "min", json_object_new_int64(d.min));
    json_object_object_add(dj, "mean", json_object_new_double(d.mean));
    json_object_object_add(dj, "max", json_object_new_int64(d.max));
    json_object_object_add(dj, "isolated", json_object_new_int64(d.isolated));
    json_object_object_add(r, "degree", dj);
    json_object_object_add(r, "self_loops", json_object_new_int64(d.self_loops));
    json_object_object_add(r, "symmetric", d.symmetric < 0 ? NULL : json_object_new_boolean(d.symmetric));
}

/* Extension sections: a partition file's id tables (docs/formats.md). */
static void info_extensions(const gnn_dataset *ds, json_object *r)
{
    json_object *ej = json_object_new_object();
    printf("extension sections:");
    for (int i = 0; i < ds->num_ext; i++) {
        printf(" %s (%lld x %u B)", ds->ext[i].name, (long long)ds->ext[i].count, ds->ext[i].elem_size);
        json_object_object_add(ej, ds->ext[i].name, json_object_new_int64(ds->ext[i].count));
    }
    printf("\n");
    json_object_object_add(r, "extensions", ej);
    const gnn_format_ext *pm = gnn_dataset_ext(ds, "partmeta");
    if (pm && pm->elem_size == 8 && pm->count >= GNN_PARTMETA_COUNT) {
        const int64_t *m = pm->data;
        printf("partition part %lld of %lld (set 0x%016llx): %lld solid, %lld halo of %lld global vertices, %lld "
               "trainer%s\n",
               (long long)m[GNN_PARTMETA_RANK], (long long)m[GNN_PARTMETA_K],
               (unsigned long long)m[GNN_PARTMETA_SET_ID], (long long)m[GNN_PARTMETA_N_SOLID],
               (long long)m[GNN_PARTMETA_N_HALO], (long long)m[GNN_PARTMETA_N], (long long)m[GNN_PARTMETA_TRAINERS],
               m[GNN_PARTMETA_TRAINERS] == 1 ? "" : "s");
    }
}

static void info_labels(const gnn_dataset *ds, json_object *r)
{
    const int64_t n = ds->graph.n, c = ds->num_classes;
    if (!ds->labels) {
        printf("labels: none\n");
        return;
    }
    int64_t *hist = calloc((size_t)c + 1, sizeof(int64_t)); /* hist[c] = unlabelled */
    if (!hist)
        return;
    for (int64_t v = 0; v < n; v++)
        hist[ds->labels[v] < 0 ? c : ds->labels[v]]++;
    int64_t best = 0;
    for (int64_t k = 1; k < c; k++)
        if (hist[k] > hist[best])
            best = k;
    const int64_t labelled = n - hist[c];
    const double rate = labelled > 0 && c > 0 ? (double)hist[best] / (double)labelled : 0.0;
    printf("labels: %lld labelled, %lld unlabelled (-1)\nlabel histogram:", (long long)labelled, (long long)hist[c]);
    json_object *h = json_object_new_array();
    for (int64_t k = 0; k < c; k++) {
        if (k < 32)
            printf(" %lld:%lld", (long long)k, (long long)hist[k]);
        json_object_array_add(h, json_object_new_int64(hist[k]));
    }
    printf("%s\n", c > 32 ? " ..." : "");
    if (c > 0)
        printf("majority class: %lld (%lld vertices, rate %.4f of labelled)\n", (long long)best, (long long)hist[best], rate);
    json_object_object_add(r, "label_counts", h);
    json_object_object_add(r, "unlabelled", json_object_new_int64(hist[c]));
    json_object_object_add(r, "majority_class", json_object_new_int64(c > 0 ? best : -1));
    json_object_object_add(r, "majority_rate", json_object_new_double(rate));
    free(hist);
}

static void info_split(const gnn_dataset *ds, json_object *r)
{
    if (!ds->split) {
        printf("split: none (make one with gnnref convert --split TRAIN,VAL,TEST)\n");
        return;
    }
    int64_t cnt[4] = { 0, 0, 0, 0 };
    for (int64_t v = 0; v < ds->graph.n; v++)
        cnt[ds->split[v]]++; /* codes <= 3: checked by gnn_dataset_validate */
    printf("split: train %lld, val %lld, test %lld, none %lld\n", (long long)cnt[1], (long long)cnt[2],
           (long long)cnt[3], (long long)cnt[0]);
    json_object *s = json_object_new_object();
    json_object_object_add(s, "train", json_object_new_int64(cnt[1]));
    json_object_object_add(s, "val", json_object_new_int64(cnt[2]));
    json_object_object_add(s, "test", json_object_new_int64(cnt[3]));
    json_object_object_add(s, "none", json_object_new_int64(cnt[0]));
    json_object_object_add(r, "split", s);
}

/* Vertex and edge types (a typed dataset, docs/hetero.md): per type its name and count, and
 * whether a vertex type is featureless; printed (the first 64 of each) and into r as
 * "vertex_types": [{"name", "count", "first", "featureless"}], "edge_types": [{"name", "count"}]. */
static void info_types(const gnn_dataset *ds, json_object *r)
{
    const int64_t T = ds->num_vtypes, R = ds->num_etypes, n = ds->graph.n;
    int64_t *cnt = calloc((size_t)(T + R) + 1, sizeof(int64_t));
    if (!cnt)
        return;
    for (int64_t v = 0; T > 0 && v < n; v++)
        cnt[ds->vtype[v]]++;
    for (int64_t e = 0; R > 0 && e < ds->graph.nnz; e++)
        cnt[T + ds->etype[e]]++;
    json_object *vj = json_object_new_array(), *ej = json_object_new_array();
    if (T > 0)
        printf("vertex types: %lld (homogenized ids: each type one contiguous range)\n", (long long)T);
    for (int64_t t = 0, first = 0; t < T; first += cnt[t], t++) {
        const char *name = ds->vtype_names ? ds->vtype_names[t] : "";
        const int fl = ds->vtype_featless ? ds->vtype_featless[t] : 0;
        if (t < 64)
            printf("  %lld %-24s %lld vertices [%lld, %lld)%s\n", (long long)t, name, (long long)cnt[t], (long long)first,
                   (long long)(first + cnt[t]), fl ? ", featureless" : "");
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(name));
        json_object_object_add(o, "count", json_object_new_int64(cnt[t]));
        json_object_object_add(o, "first", json_object_new_int64(first));
        json_object_object_add(o, "featureless", json_object_new_boolean(fl));
        json_object_array_add(vj, o);
    }
    if (R > 0)
        printf("edge types: %lld\n", (long long)R);
    for (int64_t k = 0; k < R; k++) {
        const char *name = ds->etype_names ? ds->etype_names[k] : "";
        if (k < 64)
            printf("  %lld %-40s %lld entries\n", (long long)k, name, (long long)cnt[T + k]);
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(name));
        json_object_object_add(o, "count", json_object_new_int64(cnt[T + k]));
        json_object_array_add(ej, o);
    }
    if (T > 64 || R > 64)
        printf("  (the first 64 of each listed; --json has all)\n");
    json_object_object_add(r, "vertex_types", vj);
    json_object_object_add(r, "edge_types", ej);
    free(cnt);
}

/* `gnnref info DIR` on a partition set: gnn_partition_load checks every byte (manifest CRC,
 * section and whole-file CRCs, partmeta, id tables, the rebuilt graph's CRC). */
static int info_partition_set(const info_opts *o, const cli_args *a)
{
    const char *dir = o->data;
    gnn_partition P;
    gnn_csr g;
    gnn_part_manifest m;
    gnn_err err = { "" };
    const double t0 = gnn_now_s();
    gnn_status s = gnn_partition_load(dir, &P, &g, &m, &err);
    if (s)
        return cli_error(cli_status_code(s), "%s", cli_errmsg(&err, s));
    const double t_load = gnn_now_s() - t0;
    printf("partition set: %s (dataset %s, %lld vertices, %lld edges; loaded and checked in %.3f s)\n", dir, m.dataset,
           (long long)m.n, (long long)m.nnz, t_load);
    printf("parts %lld, trainers per part %lld, method %s, seed %llu, edge cut %lld, set 0x%016llx\n", (long long)m.k,
           (long long)m.trainers, gnn_part_method_name(m.method), (unsigned long long)m.seed, (long long)m.edge_cut,
           (unsigned long long)m.set_id);
    json_object *cfg;
    json_object *r = cli_report_new("info", m.seed, cli_set_threads(0), "self", 1, &cfg);
    info_config(cfg, o, a);
    json_object_object_add(r, "kind", json_object_new_string("partition-set"));
    json_object_object_add(r, "parts", json_object_new_int64(m.k));
    json_object_object_add(r, "trainers", json_object_new_int64(m.trainers));
    json_object *pa = json_object_new_array();
    printf("%6s %10s %10s %10s %8s %8s %8s\n", "part", "solid", "halo", "edges", "train", "val", "test");
    int64_t halos = 0;
    for (int64_t p = 0; p < P.k; p++) {
        const gnn_part_local *L = &P.parts[p];
        halos += L->n_halo;
        printf("%6lld %10lld %10lld %10lld %8lld %8lld %8lld\n", (long long)p, (long long)L->n_solid,
               (long long)L->n_halo, (long long)L->graph.nnz, (long long)L->n_train, (long long)L->n_val,
               (long long)L->n_test);
        json_object *e = json_object_new_object();
        json_object_object_add(e, "solid", json_object_new_int64(L->n_solid));
        json_object_object_add(e, "halo", json_object_new_int64(L->n_halo));
        json_object_object_add(e, "edges", json_object_new_int64(L->graph.nnz));
        json_object_object_add(e, "train", json_object_new_int64(L->n_train));
        json_object_array_add(pa, e);
    }
    json_object_object_add(r, "per_part", pa);
    json_object_object_add(r, "halo_total", json_object_new_int64(halos));
    printf("checks: ok\n");
    json_object_object_add(r, "checks", json_object_new_string("ok"));
    json_object_object_add(r, "open_seconds", json_object_new_double(t_load));
    int rc = cli_report_write(r, o->json);
    json_object_put(r);
    gnn_partition_free(&P);
    gnn_csr_free(&g);
    return rc;
}

/* A dataset: its counts, degrees, labels, split and extension sections. */
static int info_dataset(const info_opts *o, const cli_args *a)
{
    const char *path = o->data;
    gnn_dataset ds;
    gnn_err err;
    const double t0 = gnn_now_s();
    gnn_status s = gnn_dataset_open(&ds, path, &err);
    if (s)
        return cli_error(cli_status_code(s), "%s", cli_errmsg(&err, s));
    const double t_open = gnn_now_s() - t0;
    /* open already ran every check; run them again so "checks: ok" is said by this command */
    if ((s = gnn_dataset_validate(&ds, path, &err))) {
        gnn_dataset_free(&ds);
        return cli_error(cli_status_code(s), "%s", cli_errmsg(&err, s));
    }
    json_object *cfg;
    json_object *r = cli_report_new("info", 0, cli_set_threads(0), "self", 1, &cfg);
    info_config(cfg, o, a);
    const char *kind = gnn_dataset_spec_kind(path);
    printf("dataset: %s (%s, %s, opened in %.3f s)\n", ds.name, path, kind ? kind : "?", t_open);
    cli_report_dataset(r, &ds);
    json_object_object_add(r, "kind", json_object_new_string(kind ? kind : "?"));
    info_graph(&ds, r);
    info_labels(&ds, r);
    info_split(&ds, r);
    if (ds.stats.edges_read > 0)
        printf("import: %lld edge records read, %lld self-loops dropped, %lld duplicate entries merged%s\n",
               (long long)ds.stats.edges_read, (long long)ds.stats.self_loops_dropped,
               (long long)ds.stats.duplicates_merged, ds.stats.symmetrized ? " (after symmetrizing)" : "");
    if (ds.num_vtypes > 0 || ds.num_etypes > 0)
        info_types(&ds, r);
    if (ds.num_ext > 0)
        info_extensions(&ds, r);
    printf("checks: ok\n");
    json_object_object_add(r, "checks", json_object_new_string("ok"));
    json_object_object_add(r, "open_seconds", json_object_new_double(t_open));
    int rc = cli_report_write(r, o->json);
    json_object_put(r);
    gnn_dataset_free(&ds);
    return rc;
}

int gnn_cmd_info(int argc, char **argv)
{
    info_opts o = { NULL, NULL };
    cli_args a;
    int rc = cli_parse(&k_cmd, argc, argv, &o, &a);
    if (rc != CLI_CONTINUE)
        return rc;
    if (cli_report_check(o.json))
        return CLI_USAGE;
    /* a partition set: load and check all of it */
    char mpath[4096];
    snprintf(mpath, sizeof mpath, "%s/manifest.json", o.data);
    if (access(mpath, F_OK) == 0)
        return info_partition_set(&o, &a);
    return info_dataset(&o, &a);
}
