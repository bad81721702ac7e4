/* cli/cmd_partition.c -- `gnnref partition --data DATA --parts K --method ...`: compute a part
 * vector (include/gnnref/partition.h) and report its quality: edge cut, imbalance per balance
 * constraint, halo vertices per part and the halo fraction. Thin: the library does the work.
 * With -o DIR it also builds the partition structure (solid/halo vertices, local CSRs, id
 * tables) with the --impl context's builder and writes the partition set: DIR/manifest.json
 * and one native-format file per part. On a typed dataset (gnn_dataset.vtype) it also builds the
 * partition book (include/gnnref/hetero.h) of the part vector with the --impl context and
 * reports each (part, type) cell: its count, its range of reshuffled ids, its type-wise ids. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/parts.h"
#include "gnnref/dataset.h"
#include "gnnref/hetero.h"
#include "gnnref/impl.h"
#include "gnnref/partfile.h"
#include "gnnref/partition.h"
#include "gnnref/tensor.h"

typedef struct partition_opts {
    const char *data, *json, *out_dir;
    const char *read_part, *write_part; /* METIS-style .part files (include/gnnref/partfile.h) */
    gnn_part_options po; /* k, method, balance, seed, ufactor, trainers */
    double split[3];
    const gnn_impl *impl;
    int64_t threads;
} partition_opts;

static const cli_flag k_flags[] = {
    CLI_FLAG_DATA(partition_opts, data, CLI_REQUIRED, CLI_DATA_HELP),
    { .name = "parts", .type = CLI_INT, CLI_AT(partition_opts, po.k), .meta = "K", .lo = 1, .hi = INT32_MAX,
      .note = "at least 1 part, at most one per vertex", .bits = CLI_REQUIRED, .help = "number of parts (ranks)" },
    { .name = "method", .type = CLI_CHOICE, CLI_AT(partition_opts, po.method), .choices = cli_part_methods,
      .help = "metis: METIS_PartGraphKway on the symmetrized graph, minimum edge cut under the balance "
              "constraints; range: contiguous id ranges; hash: MurmurHash3 fmix64(v) mod K; random: Philox draw "
              "of (seed, PARTITION, id v); ldg: streaming linear deterministic greedy (Stanton-Kliot), memory O(n + K), "
              "capacity 1 + ufactor / 1000 per balance column, by the --impl context's table" },
    { .name = "balance", .type = CLI_CUSTOM, CLI_AT(partition_opts, po.balance), .meta = "LIST",
      .parse = cli_flag_parse_balance, .json = cli_flag_json_balance,
      .help = "METIS balance constraints, one vertex-weight column each: train, val, test (1 in that split, else "
              "0), degree (in-degree), types (a typed dataset: one column per vertex type, DistDGLv2 4.1.3); "
              "vertices: one column of unit weights (vertex counts); at most 16 columns in all" },
    CLI_FLAG_SEED(partition_opts, po.seed, "seed of --split, of METIS (METIS_OPTION_SEED = S mod 2^31) and of random"),
    CLI_FLAG_SPLIT(partition_opts, split, CLI_NULL_UNSET, cli_flag_parse_split, CLI_SPLIT_HELP),
    { .name = "ufactor", .type = CLI_INT, CLI_AT(partition_opts, po.ufactor), .meta = "U", .lo = 1, .hi = 1000000,
      .help = "METIS allowed imbalance 1 + U/1000 per constraint" },
    { .name = "trainers", .type = CLI_INT, CLI_AT(partition_opts, po.trainers), .meta = "T", .lo = 1, .hi = 1 << 20,
      .help = "two-level partitioning (DistDGLv2 4.1.2): split into K x T sub-parts, coalesce T consecutive ones "
              "per part; each trainer's seeds are the train vertices of its sub-part (1: one level)" },
    CLI_FLAG_IMPL(partition_opts, impl, "the implementation context whose builder makes the partition structure "
                                        "for -o (the same bytes either way)"),
    CLI_FLAG_THREADS(partition_opts, threads, "OpenMP threads (symmetrization, metrics; METIS itself is serial)"),
    CLI_FLAG_JSON(partition_opts, json, "write the report: edge_cut, imbalance (per constraint), halo (per part), "
                                        "halo_fraction, the METIS options, and the common keys"),
    { .name = "output", .alias = 'o', .type = CLI_STR, CLI_AT(partition_opts, out_dir), .meta = "DIR",
      .help = "write the partition set: DIR/manifest.json (checksummed) and DIR/part-RRRRR.gnn per part (native "
              "format: local graph, features, labels, split, id tables); load with --partitions DIR" },
    { .name = "read-part", .type = CLI_STR, CLI_AT(partition_opts, read_part), .meta = "FILE",
      .help = "take the part vector from FILE, a METIS-style .part file (one part id in [0, K) per line, in vertex "
              "order, as gpmetis writes it) instead of computing it; --method, --balance and --ufactor are then "
              "not used" },
    { .name = "write-part", .type = CLI_STR, CLI_AT(partition_opts, write_part), .meta = "FILE",
      .help = "write the part vector to FILE as a METIS-style .part file (one part id per line, in vertex order)" },
    CLI_END
};

static const cli_group k_groups[] = { { k_flags, 0, NULL }, { NULL, 0, NULL } };

static const cli_command k_cmd = {
    .name = "partition",
    .usage = "[DATA] --parts K [flags]",
    .preface = "Split DATA (--data PATH or the one positional argument) into K parts and report the quality\n"
               "of the part vector; with -o, write the partition set.\n",
    .epilogue = "Metrics (docs/partitioning.md): edge_cut counts undirected edges of the symmetrized graph\n"
                "(self-loops dropped) whose ends are in different parts, each once; imbalance of a\n"
                "constraint = max part weight / mean part weight; halo vertices of a part = in-neighbors\n"
                "of its vertices owned by other parts; halo_fraction = halos / (vertices + halos).\n",
    .positional = "data",
    .pos_meta = "DATA",
    .groups = k_groups,
};

/* What a run computed. */
typedef struct part_run {
    gnn_dataset ds;
    int32_t *part, *trainer;  /* (n) */
    gnn_part_info info;
    gnn_part_quality q;
    gnn_partition P;          /* -o: the structure */
    gnn_hetero_book book;     /* a typed dataset: the partition book (book.P = 0 otherwise) */
    double t_assign, t_build, t_save;
} part_run;

static int partition_options(int argc, char **argv, partition_opts *o, cli_args *a)
{
    memset(o, 0, sizeof *o);
    gnn_part_defaults(&o->po);
    o->po.ufactor = GNN_METIS_DEFAULT_UFACTOR;
    o->impl = gnn_impl_opt();
    int rc = cli_parse(&k_cmd, argc, argv, o, a);
    if (rc != CLI_CONTINUE)
        return rc;
    /* before partitioning, which can take long */
    if (cli_report_check(o->json) || cli_output_dir_check("-o", o->out_dir) ||
        cli_output_check("--write-part", o->write_part))
        return CLI_USAGE;
    if (o->read_part && o->po.trainers > 1)
        return cli_error(CLI_USAGE, "--read-part: a .part file holds one level; --trainers must be 1");
    return CLI_CONTINUE;
}

/* -o DIR: the structure, with the context's builder, and the files. */
static int write_set(const partition_opts *o, const cli_args *a, part_run *R)
{
    gnn_err err = { "" };
    gnn_status st;
    const double t1 = gnn_now_s();
    if ((st = gnn_partition_build(o->impl->partition, &R->P, &R->ds.graph, R->ds.split, R->part, o->po.k, &err)) ||
        (st = gnn_partition_set_trainers(&R->P, R->trainer, o->po.trainers, &err)))
        return cli_error(cli_status_code(st), "%s: %s", o->data, cli_errmsg(&err, st));
    const double t2 = gnn_now_s();
    gnn_part_manifest prov;
    memset(&prov, 0, sizeof prov);
    prov.method = o->po.method;
    prov.seed = o->po.seed;
    prov.balance = o->po.balance;
    prov.ufactor = o->po.ufactor;
    prov.have_split = cli_given(a, "split");
    memcpy(prov.split, o->split, sizeof prov.split);
    prov.edge_cut = R->q.edge_cut;
    if ((st = gnn_partition_save(o->out_dir, &R->P, &R->ds, &prov, &err)))
        return cli_error(cli_status_code(st), "%s", cli_errmsg(&err, st));
    R->t_build = t2 - t1;
    R->t_save = gnn_now_s() - t2;
    return CLI_OK;
}

/* Load, split, assign, measure and (-o) write. */
static int partition_run(const partition_opts *o, const cli_args *a, part_run *R)
{
    gnn_err err = { "" };
    gnn_status st = gnn_dataset_open(&R->ds, o->data, &err);
    if (st)
        return cli_error(cli_status_code(st), "%s", cli_errmsg(&err, st));
    const int64_t n = R->ds.graph.n;
    gnn_part_options po = o->po;
    po.vtype = R->ds.vtype;
    po.num_vtypes = R->ds.vtype ? R->ds.num_vtypes : 0;
    if ((po.balance & GNN_BALANCE_TYPES) && !R->ds.vtype)
        return cli_error(CLI_USAGE, "--balance types: %s has no vertex types (a homogeneous graph)", o->data);
    if (cli_given(a, "split") &&
        (st = gnn_dataset_split_random(&R->ds, o->split[0], o->split[1], o->split[2], o->po.seed, &err)))
        return cli_error(cli_status_code(st), "--split: %s", err.msg);
    if (o->po.k > n || o->po.trainers > n / o->po.k) /* K x T > n, without overflow */
        return cli_error(CLI_USAGE, "--parts %lld%s: %s has only %lld vertices (at most one part per vertex)",
                         (long long)o->po.k, o->po.trainers > 1 ? " x --trainers" : "", o->data, (long long)n);
    R->part = gnn_malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
    R->trainer = gnn_malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
    if (!R->part || !R->trainer)
        return cli_error(CLI_FAIL, "out of memory (%lld vertices)", (long long)n);
    const double t0 = gnn_now_s();
    if (o->read_part) { /* a vector made elsewhere: one level, the info says no method ran */
        memset(R->trainer, 0, (size_t)(n > 0 ? n : 1) * sizeof(int32_t));
        R->info.k = o->po.k;
        st = gnn_part_vector_read(o->read_part, n, o->po.k, R->part, NULL, &err);
    } else {
        po.ops = o->impl->partition; /* ldg streams with the context's table */
        st = gnn_partition_assign2(&R->ds.graph, R->ds.split, &po, R->part, R->trainer, &R->info, &err);
    }
    R->t_assign = gnn_now_s() - t0;
    if (st && o->read_part)
        return cli_error(cli_status_code(st), "--read-part: %s", cli_errmsg(&err, st));
    if (st || (st = gnn_partition_quality_typed(&R->ds.graph, R->ds.split, po.vtype, po.num_vtypes, R->part, o->po.k,
                                                o->po.balance, &R->q, &err)))
        return cli_error(cli_status_code(st), "%s: %s", o->data, cli_errmsg(&err, st));
    /* the book: the dataset's types are homogenized (dataset.h), which the build checks */
    if (R->ds.vtype && (st = gnn_hetero_book_build(o->impl->hetero, R->part, R->ds.vtype, n, o->po.k,
                                                   R->ds.num_vtypes, &R->book, NULL, &err)))
        return cli_error(cli_status_code(st), "%s: partition book: %s", o->data, cli_errmsg(&err, st));
    if (o->write_part && (st = gnn_part_vector_write(o->write_part, R->part, n, &err)))
        return cli_error(cli_status_code(st), "--write-part: %s", cli_errmsg(&err, st));
    return o->out_dir ? write_set(o, a, R) : CLI_OK;
}

/* Two-level: the train vertices of every (part, trainer) sub-part. */
static void print_trainers(const partition_opts *o, const part_run *R)
{
    const int64_t K = o->po.k, T = o->po.trainers;
    printf("two-level: %lld trainers per part (%lld sub-parts); train vertices per trainer:\n", (long long)T,
           (long long)(K * T));
    int64_t *tc = gnn_calloc((size_t)(K * T), sizeof(int64_t));
    if (!tc)
        return;
    for (int64_t v = 0; v < R->ds.graph.n; v++)
        if (R->ds.split && R->ds.split[v] == GNN_SPLIT_TRAIN)
            tc[R->part[v] * T + R->trainer[v]]++;
    for (int64_t p = 0; p < K; p++) {
        printf("%6lld ", (long long)p);
        for (int64_t t = 0; t < T; t++)
            printf(" %8lld", (long long)tc[p * T + t]);
        printf("\n");
    }
    gnn_free(tc);
}

static const char *type_name(const gnn_dataset *ds, int64_t t, char *buf, size_t cap)
{
    if (ds->vtype_names && ds->vtype_names[t][0])
        return ds->vtype_names[t];
    snprintf(buf, cap, "t%lld", (long long)t);
    return buf;
}

/* The partition book: per (part, type) cell its vertex count and its range of reshuffled ids. */
static void print_book(const part_run *R)
{
    const gnn_hetero_book *b = &R->book;
    char buf[32];
    printf("partition book (%lld types; reshuffled ids: part by part, type by type): vertices [ids) per part and "
           "type\n%6s",
           (long long)b->T, "part");
    for (int64_t t = 0; t < b->T; t++)
        printf(" %24.24s", type_name(&R->ds, t, buf, sizeof buf));
    printf("\n");
    for (int64_t p = 0; p < b->P; p++) {
        printf("%6lld", (long long)p);
        for (int64_t t = 0; t < b->T; t++) {
            const int64_t c = p * b->T + t;
            char cell[64];
            snprintf(cell, sizeof cell, "%lld [%lld, %lld)", (long long)(b->start[c + 1] - b->start[c]),
                     (long long)b->start[c], (long long)b->start[c + 1]);
            printf(" %24s", cell);
        }
        printf("\n");
    }
}

static void print_summary(const partition_opts *o, const cli_args *a, const part_run *R)
{
    const gnn_part_quality *q = &R->q;
    const gnn_part_info *info = &R->info;
    char bal[64];
    cli_balance_names(o->po.balance, "none (vertex counts)", bal, sizeof bal);
    printf("gnnref partition: %s  n=%lld edges=%lld (CSR entries)  method=%s parts=%lld seed=%llu balance=%s%s\n",
           R->ds.name, (long long)R->ds.graph.n, (long long)R->ds.graph.nnz,
           o->read_part ? "file" : gnn_part_method_name(o->po.method),
           (long long)o->po.k, (unsigned long long)o->po.seed, bal, cli_given(a, "split") ? "  (random split)" : "");
    if (info->metis_called) {
        printf("metis %s: ufactor %d (allowed imbalance %.3f), METIS_OPTION_SEED %d, %d constraint%s, METIS edge cut "
               "%lld, %.3f s\n",
               info->metis_version, o->po.ufactor, 1.0 + o->po.ufactor / 1000.0, (int)(o->po.seed & 0x7fffffffu),
               info->ncon, info->ncon == 1 ? "" : "s", (long long)info->metis_objval, R->t_assign);
    } else if (o->read_part) {
        printf("part vector: read from %s\n", o->read_part);
    } else if (o->po.method == GNN_PART_METIS) {
        printf("metis: not called (one part: every vertex in part 0)\n");
    }
    printf("edge cut: %lld of %lld undirected edges (%.2f%%)\n", (long long)q->edge_cut, (long long)q->edges,
           q->edges > 0 ? 100.0 * (double)q->edge_cut / (double)q->edges : 0.0);
    printf("imbalance (max / mean part weight):");
    for (int c = 0; c < q->ncon; c++)
        printf(" %s %.4f", gnn_part_constraint_name(q->con[c]), q->imbalance[c]);
    printf("   (vertex counts %.4f)\n", q->vertex_imbalance);
    printf("halo: %lld halo vertices over all parts, halo fraction %.4f (halos / (vertices + halos))\n",
           (long long)q->halo_total, q->halo_fraction);
    printf("%6s %10s %10s", "part", "solid", "halo");
    for (int c = 0; c < q->ncon; c++)
        if (q->con[c])
            printf(" %10s", gnn_part_constraint_name(q->con[c]));
    printf("\n");
    for (int64_t p = 0; p < o->po.k; p++) {
        printf("%6lld %10lld %10lld", (long long)p, (long long)q->solid[p], (long long)q->halo[p]);
        for (int c = 0; c < q->ncon; c++)
            if (q->con[c])
                printf(" %10lld", (long long)q->weight[p * q->ncon + c]);
        printf("\n");
    }
    if (o->po.trainers > 1)
        print_trainers(o, R);
    if (R->book.P > 0)
        print_book(R);
    if (o->write_part)
        printf("wrote %s: the part vector, one part id per line\n", o->write_part);
    if (o->out_dir)
        printf("wrote %s: manifest.json and %lld part files (build %.3f s, write %.3f s)\n", o->out_dir,
               (long long)o->po.k, R->t_build, R->t_save);
}

static json_object *metis_json(const gnn_part_info *info)
{
    if (!info->metis_called)
        return NULL;
    json_object *m = json_object_new_object();
    json_object_object_add(m, "version", json_object_new_string(info->metis_version));
    json_object *o = json_object_new_object();
    for (int i = 0; i < info->n_opts; i++)
        json_object_object_add(o, info->opts[i].name, json_object_new_int(info->opts[i].value));
    json_object_object_add(m, "options", o);
    json_object_object_add(m, "ncon", json_object_new_int(info->ncon));
    json_object_object_add(m, "objval", json_object_new_int64(info->metis_objval));
    json_object_object_add(m, "vertices", json_object_new_int64(info->metis_vertices));
    json_object_object_add(m, "adjacency", json_object_new_int64(info->metis_adjacency));
    return m;
}

/* "book": the types' names, per (part, type) cell (row-major, cell c = part * T + type) its count,
 * its first reshuffled id (start, P T + 1 entries) and its first type-wise id; per type its count */
static json_object *book_json(const part_run *R)
{
    const gnn_hetero_book *b = &R->book;
    const int64_t C = b->P * b->T;
    json_object *j = json_object_new_object(), *names = json_object_new_array(), *counts = json_object_new_array();
    char buf[32];
    for (int64_t t = 0; t < b->T; t++)
        json_object_array_add(names, json_object_new_string(type_name(&R->ds, t, buf, sizeof buf)));
    for (int64_t p = 0; p < b->P; p++) {
        json_object *row = json_object_new_array();
        for (int64_t t = 0; t < b->T; t++)
            json_object_array_add(row, json_object_new_int64(gnn_hetero_cell_count(b, p, t)));
        json_object_array_add(counts, row);
    }
    json_object_object_add(j, "parts", json_object_new_int64(b->P));
    json_object_object_add(j, "types", json_object_new_int64(b->T));
    json_object_object_add(j, "type_names", names);
    json_object_object_add(j, "counts", counts);
    json_object_object_add(j, "start", cli_json_i64_array(b->start, C + 1, 1));
    json_object_object_add(j, "typewise_offset", cli_json_i64_array(b->tw_offset, C, 1));
    json_object_object_add(j, "type_count", cli_json_i64_array(b->type_count, b->T, 1));
    return j;
}

static json_object *partition_report(const partition_opts *o, const cli_args *a, const part_run *R, int nthreads)
{
    const gnn_part_quality *q = &R->q;
    const int64_t K = o->po.k;
    json_object *cfg;
    json_object *r = cli_report_new("partition", o->po.seed, nthreads, "self", 1, &cfg);
    cli_config_json(cfg, a, o, 0);
    json_object_object_add(cfg, "dataset", json_object_new_string(R->ds.name));
    json_object_object_add(cfg, "threads", json_object_new_int(nthreads)); /* in effect */
    json_object_object_add(r, "n", json_object_new_int64(R->ds.graph.n));
    json_object_object_add(r, "edges", json_object_new_int64(q->edges));
    json_object_object_add(r, "edge_cut", json_object_new_int64(q->edge_cut));
    json_object_object_add(r, "edge_cut_fraction",
                           json_object_new_double(q->edges > 0 ? (double)q->edge_cut / (double)q->edges : 0.0));
    json_object *imb = json_object_new_object(), *wts = json_object_new_object();
    for (int c = 0; c < q->ncon; c++) {
        json_object_object_add(imb, gnn_part_constraint_name(q->con[c]), json_object_new_double(q->imbalance[c]));
        json_object_object_add(wts, gnn_part_constraint_name(q->con[c]), cli_json_i64_array(q->weight + c, K, q->ncon));
    }
    json_object_object_add(r, "imbalance", imb);
    json_object_object_add(r, "vertex_imbalance", json_object_new_double(q->vertex_imbalance));
    json_object_object_add(r, "weights", wts);
    json_object_object_add(r, "solid", cli_json_i64_array(q->solid, K, 1));
    json_object_object_add(r, "halo", cli_json_i64_array(q->halo, K, 1));
    json_object_object_add(r, "halo_total", json_object_new_int64(q->halo_total));
    json_object_object_add(r, "halo_fraction", json_object_new_double(q->halo_fraction));
    json_object_object_add(r, "seconds", json_object_new_double(R->t_assign));
    json_object_object_add(r, "metis", metis_json(&R->info));
    if (R->book.P > 0)
        json_object_object_add(r, "book", book_json(R));
    return r;
}

int gnn_cmd_partition(int argc, char **argv)
{
    partition_opts o;
    cli_args a;
    int rc = partition_options(argc, argv, &o, &a);
    if (rc != CLI_CONTINUE)
        return rc;
    const int nthreads = cli_set_threads(o.threads);
    part_run R;
    memset(&R, 0, sizeof R);
    rc = partition_run(&o, &a, &R);
    if (rc == CLI_OK) {
        print_summary(&o, &a, &R);
        if (o.json) {
            json_object *r = partition_report(&o, &a, &R, nthreads);
            rc = cli_report_write(r, o.json);
            json_object_put(r);
        }
    }
    gnn_part_quality_free(&R.q);
    gnn_partition_free(&R.P);
    gnn_hetero_book_free(&R.book);
    gnn_free(R.part);
    gnn_free(R.trainer);
    gnn_dataset_free(&R.ds);
    return rc;
}
