/* cli/cmd_partcheck.c -- `gnnref partcheck DATA --method M`: build the partition with one part
 * per rank, build each rank's db_halo (include/gnnref/halo.h) through the communicator, then
 * run seeded pulls through the feature store (include/gnnref/kvstore.h) and check every row
 * against the full feature matrix. One line per rank with the db_halo sizes and CRC32C and
 * one with the kvstore figures, identical under every backend with the same rank count, so
 * ci/mpi-check.sh compares the simulator with mpirun line by line.
 *
 * Every rank loads DATA and computes the same part vector (gnn_partition_assign is
 * deterministic) with K = ranks, then the partition with the --impl context's builder. Under
 * the simulator the ranks are threads of one process: the first rank to arrive loads and
 * builds, the others wait for it and share the result (read-only). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/backend.h"
#include "cli/parts.h"
#include "gnnref/dataset.h"
#include "gnnref/halo.h"
#include "gnnref/impl.h"
#include "gnnref/kvstore.h"
#include "gnnref/partition.h"
#include "gnnref/rng.h"
#include "gnnref/tensor.h"

/* the per-rank record gathered to rank 0: these fields, then the P db_halo row sizes */
enum {
    R_CRC, R_ENTRIES, R_DB_BYTES, R_PULLS, R_IDS, R_LOCAL, R_REMOTE, R_SERVED, R_B_HEADER, R_B_IDS, R_B_ROWS_RECV,
    R_B_ROWS_SENT, R_EXACT, R_DB_NS, R_PULL_NS, R_N_SOLID, R_N_HALO, R_FIELDS
};

typedef struct partcheck_opts {
    const char *data, *parts_dir, *json; /* parts_dir: --partitions DIR, or NULL */
    gnn_part_options po;                 /* method, seed, balance (a saved set: its manifest's) */
    double split[3];
    const gnn_impl *impl;                /* the db_halo and partition builders */
    int64_t pulls, pull_ids, threads;
    cli_backend backend;
} partcheck_opts;

typedef struct job {
    partcheck_opts o;
    int have_split;
    /* the shared, read-only inputs, built once per process */
    cli_shared shared;
    gnn_dataset ds;
    int32_t *part;
    gnn_partition full;
    gnn_part_info info;
    /* results on rank 0 */
    int P;
    int64_t *all;               /* (P, R_FIELDS + P) */
    int64_t *tbytes, *tmsgs;    /* traffic matrix */
} job;

/* Load DATA, the split, the part vector with K = P and the partition; or, with --partitions
 * DIR, the saved set (every part, checked: gnn_partition_load), which must come from DATA. */
static gnn_status prepare(void *arg, int P, gnn_err *err)
{
    job *J = arg;
    partcheck_opts *o = &J->o;
    gnn_status st = gnn_dataset_open(&J->ds, o->data, err);
    if (st)
        return st;
    const int64_t n = J->ds.graph.n;
    if (o->parts_dir) {
        gnn_part_manifest m;
        if ((st = gnn_partition_load(o->parts_dir, &J->full, NULL, &m, err)) ||
            (st = cli_set_check(&m, o->parts_dir, P, &J->ds, o->data, "", err)))
            return st;
        o->po.method = m.method; /* reported: how the set was made */
        o->po.seed = m.seed;
        o->po.balance = m.balance;
        J->part = gnn_malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
        if (!J->part)
            return gnn_err_set(err, GNN_ERR_NOMEM, "out of memory");
        if (n > 0)
            memcpy(J->part, J->full.part, sizeof(int32_t) * (size_t)n);
        return GNN_OK;
    }
    if (J->have_split &&
        (st = gnn_dataset_split_random(&J->ds, o->split[0], o->split[1], o->split[2], o->po.seed, err)))
        return st;
    if (P > n)
        return gnn_err_set(err, GNN_ERR_INVAL, "%d ranks for %lld vertices: at most one rank per vertex", P,
                           (long long)n);
    J->part = gnn_malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    if (!J->part)
        return gnn_err_set(err, GNN_ERR_NOMEM, "out of memory");
    o->po.k = P;
    o->po.vtype = J->ds.vtype; /* --balance types */
    o->po.num_vtypes = J->ds.num_vtypes;
    o->po.ops = o->impl->partition; /* ldg streams with the context's table */
    if ((st = gnn_partition_assign(&J->ds.graph, J->ds.split, &o->po, J->part, &J->info, err)))
        return st;
    return gnn_partition_build(o->impl->partition, &J->full, &J->ds.graph, J->ds.split, J->part, P, err);
}

/* The traffic so far (db_halo, kvstore), then every rank's record gathered to rank 0 (not
 * part of that traffic): rank 0 keeps both in J. */
static gnn_status gather_records(gnn_comm *c, job *J, const int64_t *rec, size_t W, gnn_err *err)
{
    const int P = gnn_comm_size(c);
    int64_t *tb = NULL, *tm = NULL, *cnt = NULL, *all = NULL;
    gnn_status st = gnn_comm_traffic_matrix(c, 0, &tb, &tm);
    if (st) {
        gnn_err_set(err, st, "traffic matrix: %s", gnn_comm_errmsg(c));
        goto out;
    }
    all = gnn_malloc(sizeof(int64_t) * W * (size_t)P);
    cnt = gnn_malloc(sizeof(int64_t) * 2 * (size_t)P);
    if (!all || !cnt) {
        st = gnn_err_set(err, GNN_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (int q = 0; q < P; q++) {
        cnt[q] = (int64_t)W;
        cnt[P + q] = (int64_t)W * q;
    }
    if ((st = gnn_comm_allgatherv(c, rec, (int64_t)W, all, cnt, cnt + P, GNN_DT_I64))) {
        gnn_err_set(err, st, "gathering the results: %s", gnn_comm_errmsg(c));
        goto out;
    }
    if (gnn_comm_rank(c) == 0) {
        J->P = P;
        J->all = all;
        J->tbytes = tb;
        J->tmsgs = tm;
        all = NULL;
        tb = tm = NULL;
    }
out:
    free(tb);
    free(tm);
    gnn_free(cnt);
    gnn_free(all);
    return st;
}

static gnn_status rank_fn(gnn_comm *c, void *arg)
{
    job *J = arg;
    const int P = gnn_comm_size(c), me = gnn_comm_rank(c);
    if (cli_shared_once(&J->shared, prepare, J, P)) /* the same on every rank: the same data and flags */
        return gnn_err_set(&c->err, J->shared.st, "%s: %s", J->o.data, J->shared.err.msg);

    const gnn_dataset *ds = &J->ds;
    const int64_t n = ds->graph.n, dim = ds->num_features;
    gnn_db_halo t = { 0, NULL, NULL };
    gnn_kvstore kv;
    memset(&kv, 0, sizeof kv);
    int64_t *ids = NULL, *rec = NULL;
    float *out = NULL;
    gnn_err err = { "" };
    const size_t W = R_FIELDS + (size_t)P;

    /* db_halo */
    gnn_status st = gnn_comm_barrier(c);
    const double t0 = gnn_now_s();
    int64_t b0 = 0, b1 = 0;
    for (size_t i = 0; i < (size_t)GNN_COMM_OP_COUNT * P; i++)
        b0 += c->traffic.bytes[i];
    if (!st)
        st = gnn_db_halo_build(J->o.impl->db_halo, c, &J->full.parts[me], n, &t, &err);
    const double t1 = gnn_now_s();
    for (size_t i = 0; i < (size_t)GNN_COMM_OP_COUNT * P; i++)
        b1 += c->traffic.bytes[i];
    if (st)
        goto out;

    /* the feature store and the pulls */
    if ((st = gnn_kvstore_create_from_full(&kv, c, n, J->part, dim, ds->feat, &err)))
        goto out;
    ids = gnn_malloc(sizeof(int64_t) * (size_t)(J->o.pull_ids + 1));
    out = gnn_malloc(sizeof(float) * (size_t)(J->o.pull_ids * dim + 1));
    rec = gnn_calloc(W, sizeof(int64_t));
    if (!ids || !out || !rec) {
        st = gnn_err_set(&err, GNN_ERR_NOMEM, "out of memory (%lld ids of %lld features)", (long long)J->o.pull_ids,
                         (long long)dim);
        goto out;
    }
    int exact = 1;
    double pull_s = 0;
    for (int64_t k = 0; k < J->o.pulls; k++) {
        const gnn_rng_stream s = gnn_rng_stream_make(J->o.po.seed, GNN_TAG_KVSTORE, (uint32_t)k, 0, (uint64_t)me);
        for (int64_t i = 0; i < J->o.pull_ids; i++)
            ids[i] = (int64_t)gnn_rng_uint(&s, (uint64_t)i, (uint64_t)n);
        if ((st = gnn_comm_barrier(c)))
            goto out;
        const double p0 = gnn_now_s();
        if ((st = gnn_kvstore_pull(&kv, ids, J->o.pull_ids, out, &err)))
            goto out;
        pull_s += gnn_now_s() - p0;
        for (int64_t i = 0; i < J->o.pull_ids && dim > 0; i++)
            if (memcmp(out + i * dim, ds->feat + ids[i] * dim, sizeof(float) * (size_t)dim) != 0)
                exact = 0;
    }
    rec[R_CRC] = gnn_db_halo_crc(&t);
    rec[R_ENTRIES] = t.off[P];
    rec[R_DB_BYTES] = b1 - b0;
    rec[R_PULLS] = kv.total.calls;
    rec[R_IDS] = kv.total.ids;
    rec[R_LOCAL] = kv.total.rows_local;
    rec[R_REMOTE] = kv.total.rows_remote;
    rec[R_SERVED] = kv.total.rows_served;
    rec[R_B_HEADER] = kv.total.bytes_header_sent;
    rec[R_B_IDS] = kv.total.bytes_ids_sent;
    rec[R_B_ROWS_RECV] = kv.total.bytes_rows_received;
    rec[R_B_ROWS_SENT] = kv.total.bytes_rows_sent;
    rec[R_EXACT] = exact;
    rec[R_DB_NS] = (int64_t)((t1 - t0) * 1e9);
    rec[R_PULL_NS] = (int64_t)(pull_s * 1e9);
    rec[R_N_SOLID] = J->full.parts[me].n_solid;
    rec[R_N_HALO] = J->full.parts[me].n_halo;
    for (int r = 0; r < P; r++)
        rec[R_FIELDS + r] = t.off[r + 1] - t.off[r];

    st = gather_records(c, J, rec, W, &err);
out:
    if (st && err.msg[0])
        gnn_err_set(&c->err, st, "%s", err.msg);
    gnn_db_halo_free(&t);
    gnn_kvstore_free(&kv);
    gnn_free(ids);
    gnn_free(out);
    gnn_free(rec);
    return st;
}

static const cli_flag k_flags[] = {
    CLI_FLAG_DATA(partcheck_opts, data, CLI_REQUIRED, CLI_DATA_HELP),
    { .name = "method", .type = CLI_CHOICE, CLI_AT(partcheck_opts, po.method), .choices = cli_part_methods,
      .help = "part vector, K = ranks (docs/partitioning.md)" },
    { .name = "balance", .type = CLI_CUSTOM, CLI_AT(partcheck_opts, po.balance), .meta = "LIST",
      .parse = cli_flag_parse_balance, .json = cli_flag_json_balance_str, .dflt = "none (vertex counts)",
      .help = "METIS balance constraints: train,val,test,degree" },
    CLI_FLAG_SEED(partcheck_opts, po.seed, "seed of --split, METIS, random and the pulled ids"),
    CLI_FLAG_SPLIT(partcheck_opts, split, CLI_NULL_UNSET, cli_flag_parse_split, CLI_SPLIT_HELP),
    { .name = "partitions", .type = CLI_STR, CLI_AT(partcheck_opts, parts_dir), .meta = "DIR",
      .help = "use the saved partition set DIR (gnnref partition --data DATA --parts P -o DIR; it must have P "
              "parts and come from DATA) instead of partitioning here" },
    CLI_FLAG_IMPL(partcheck_opts, impl, "the implementation context: its db_halo builder (ref: allgatherv, "
                                        "Algorithm 1; opt: alltoallv to the owners) and partition builder"),
    { .name = "pulls", .type = CLI_INT, CLI_AT(partcheck_opts, pulls), .meta = "N", .lo = 0, .hi = 1000000,
      .help = "seeded pulls per rank" },
    { .name = "pull-ids", .type = CLI_INT, CLI_AT(partcheck_opts, pull_ids), .meta = "M", .lo = 0, .hi = 100000000,
      .help = "ids per pull and rank, drawn uniformly with repeats from Philox (seed, KVSTORE, step = pull, id = "
              "rank)" },
    CLI_FLAG_THREADS(partcheck_opts, threads, "OpenMP threads (per rank under the simulator: --threads-per-rank)"),
    CLI_FLAG_JSON(partcheck_opts, json, "write the report: db_halo sizes, bytes and CRC per rank, kvstore figures "
                                        "per rank, the traffic matrix, and the common keys"),
    CLI_END
};

static const cli_group k_groups[] = {
    { k_flags, 0, NULL },
    { cli_backend_flags, offsetof(partcheck_opts, backend), CLI_BACKEND_TITLE },
    { NULL, 0, NULL }
};

static const cli_command k_cmd = {
    .name = "partcheck",
    .usage = "[DATA] [flags]     (under MPI: mpirun -np P gnnref partcheck --data DATA --backend mpi ...)",
    .preface = "Partition DATA into one part per rank, build db_halo on every rank (DistGNN-MB Algorithm 1)\n"
               "and pull feature rows through the hybrid-partitioning feature store; check the rows.\n"
               "DATA is --data PATH or the one positional argument.\n",
    .epilogue = "Output: per rank `db_halo rank R: to r0 N0, to r1 N1, ... crc 0x........` and\n"
                "`kvstore rank R: pulls N rows M remote M2 bytes B exact yes|no`; exit 1 on any mismatch.\n",
    .positional = "data",
    .pos_meta = "DATA",
    .groups = k_groups,
};

static int partcheck_options(int argc, char **argv, partcheck_opts *o, cli_args *a)
{
    memset(o, 0, sizeof *o);
    gnn_part_defaults(&o->po);
    o->impl = gnn_impl_opt();
    o->pulls = 4;
    o->pull_ids = 1000;
    cli_backend_defaults(&o->backend);
    int rc = cli_parse(&k_cmd, argc, argv, o, a);
    if (rc != CLI_CONTINUE)
        return rc;
    if (o->backend.kind != CLI_BACKEND_MPI && cli_report_check(o->json)) /* under MPI: rank 0, at the end */
        return CLI_USAGE;
    if ((rc = cli_backend_check(&o->backend, a)))
        return rc;
    if (!gnn_dataset_spec_kind(o->data))
        return cli_error(CLI_USAGE, "partcheck: %s: no such dataset (a native file, a text-layout or OGB directory, "
                                    "or builtin)",
                         o->data);
    return CLI_CONTINUE;
}

/* Sums over the ranks' records, for the summary line and the report. */
typedef struct totals {
    int64_t entries, db_bytes, remote, ids, kv_bytes, max_db_ns, max_pull_ns;
    int all_exact;
} totals;

/* Rank 0: the run's line, then one db_halo line and one kvstore line per rank, the summary. */
static totals print_ranks(const job *J)
{
    const partcheck_opts *o = &J->o;
    const int P = J->P;
    const size_t W = R_FIELDS + (size_t)P;
    totals t = { .all_exact = 1 };
    char bal[64];
    cli_balance_names(o->po.balance, "none", bal, sizeof bal);
    const gnn_db_halo_ops *db = o->impl->db_halo;
    printf("partcheck: %s  n=%lld  features=%lld  method=%s ranks=%d seed=%llu balance=%s  db_halo impl=%s  "
           "backend=%s\n",
           J->ds.name, (long long)J->ds.graph.n, (long long)J->ds.num_features, gnn_part_method_name(o->po.method), P,
           (unsigned long long)o->po.seed, bal, db->name, o->backend.name);
    for (int r = 0; r < P; r++) {
        const int64_t *x = J->all + W * r;
        printf("db_halo rank %d:", r);
        for (int q = 0; q < P; q++)
            printf(" to r%d %lld%s", q, (long long)x[R_FIELDS + q], q + 1 < P ? "," : "");
        printf(" crc 0x%08x\n", (unsigned)x[R_CRC]);
        t.entries += x[R_ENTRIES];
        t.db_bytes += x[R_DB_BYTES];
        if (x[R_DB_NS] > t.max_db_ns)
            t.max_db_ns = x[R_DB_NS];
    }
    for (int r = 0; r < P; r++) {
        const int64_t *x = J->all + W * r;
        const int64_t bytes = x[R_B_HEADER] + x[R_B_IDS] + x[R_B_ROWS_RECV];
        printf("kvstore rank %d: pulls %lld rows %lld remote %lld bytes %lld exact %s\n", r, (long long)x[R_PULLS],
               (long long)x[R_IDS], (long long)x[R_REMOTE], (long long)bytes, x[R_EXACT] ? "yes" : "no");
        t.all_exact &= x[R_EXACT] != 0;
        t.remote += x[R_REMOTE];
        t.ids += x[R_IDS];
        t.kv_bytes += x[R_B_HEADER] + x[R_B_IDS] + x[R_B_ROWS_SENT];
        if (x[R_PULL_NS] > t.max_pull_ns)
            t.max_pull_ns = x[R_PULL_NS];
    }
    /* the reference builder gathers every rank's tables, the optimized one sends each owner its own */
    printf("summary: db_halo %lld entries, %lld bytes sent (%s), %.6f s; kvstore %lld ids, %lld remote, %lld bytes "
           "sent, pulls %.6f s (slowest rank); rows %s\n",
           (long long)t.entries, (long long)t.db_bytes, !strcmp(db->name, "ref") ? "allgatherv" : "alltoallv",
           (double)t.max_db_ns * 1e-9, (long long)t.ids, (long long)t.remote, (long long)t.kv_bytes,
           (double)t.max_pull_ns * 1e-9, t.all_exact ? "exact" : "MISMATCH");
    return t;
}

/* One rank's record as the report's "ranks_detail" entry. */
static json_object *rank_json(const int64_t *x, int q, int P)
{
    json_object *o = json_object_new_object();
    char crc[16];
    snprintf(crc, sizeof crc, "%08x", (unsigned)x[R_CRC]);
    json_object_object_add(o, "rank", json_object_new_int(q));
    json_object_object_add(o, "solid", json_object_new_int64(x[R_N_SOLID]));
    json_object_object_add(o, "halo", json_object_new_int64(x[R_N_HALO]));
    json_object *db = json_object_new_object();
    json_object_object_add(db, "to", cli_json_i64_array(x + R_FIELDS, P, 1));
    json_object_object_add(db, "entries", json_object_new_int64(x[R_ENTRIES]));
    json_object_object_add(db, "crc", json_object_new_string(crc));
    json_object_object_add(db, "bytes_sent", json_object_new_int64(x[R_DB_BYTES]));
    json_object_object_add(db, "seconds", json_object_new_double((double)x[R_DB_NS] * 1e-9));
    json_object_object_add(o, "db_halo", db);
    static const struct { const char *key; int field; } kv_fields[] = {
        { "pulls", R_PULLS }, { "ids", R_IDS }, { "rows_local", R_LOCAL }, { "rows_remote", R_REMOTE },
        { "rows_served", R_SERVED }, { "bytes_header_sent", R_B_HEADER }, { "bytes_ids_sent", R_B_IDS },
        { "bytes_rows_received", R_B_ROWS_RECV }, { "bytes_rows_sent", R_B_ROWS_SENT },
    };
    json_object *kvo = json_object_new_object();
    for (size_t i = 0; i < sizeof kv_fields / sizeof kv_fields[0]; i++)
        json_object_object_add(kvo, kv_fields[i].key, json_object_new_int64(x[kv_fields[i].field]));
    json_object_object_add(kvo, "exact", json_object_new_boolean(x[R_EXACT] != 0));
    json_object_object_add(kvo, "seconds", json_object_new_double((double)x[R_PULL_NS] * 1e-9));
    json_object_object_add(o, "kvstore", kvo);
    return o;
}

/* Rank 0's report. */
static json_object *partcheck_report(const job *J, const cli_args *a, const totals *t, int nthreads,
                                     const gnn_sim_report *rep, double wall)
{
    const partcheck_opts *o = &J->o;
    const int P = J->P;
    const size_t W = R_FIELDS + (size_t)P;
    json_object *cfg, *r = cli_report_new("partcheck", o->po.seed, nthreads, o->backend.name, P, &cfg);
    cli_config_json(cfg, a, o, o->backend.kind == CLI_BACKEND_SIM ? 0 : CLI_TAG_SIM);
    json_object_object_add(cfg, "dataset", json_object_new_string(J->ds.name));
    json_object_object_add(cfg, "threads", json_object_new_int(nthreads)); /* in effect */
    json_object_object_add(r, "n", json_object_new_int64(J->ds.graph.n));
    json_object_object_add(r, "features", json_object_new_int64(J->ds.num_features));
    json_object *ranks = json_object_new_array();
    for (int q = 0; q < P; q++)
        json_object_array_add(ranks, rank_json(J->all + W * q, q, P));
    json_object_object_add(r, "ranks_detail", ranks);
    json_object *db = json_object_new_object();
    json_object_object_add(db, "impl", json_object_new_string(o->impl->db_halo->name));
    json_object_object_add(db, "entries", json_object_new_int64(t->entries));
    json_object_object_add(db, "bytes_sent", json_object_new_int64(t->db_bytes));
    json_object_object_add(db, "seconds", json_object_new_double((double)t->max_db_ns * 1e-9));
    json_object_object_add(r, "db_halo", db);
    json_object *kvo = json_object_new_object();
    json_object_object_add(kvo, "ids", json_object_new_int64(t->ids));
    json_object_object_add(kvo, "rows_remote", json_object_new_int64(t->remote));
    json_object_object_add(kvo, "bytes_sent", json_object_new_int64(t->kv_bytes));
    json_object_object_add(kvo, "seconds", json_object_new_double((double)t->max_pull_ns * 1e-9));
    json_object_object_add(kvo, "exact", json_object_new_boolean(t->all_exact));
    json_object_object_add(r, "kvstore", kvo);
    json_object_object_add(r, "comm", cli_traffic_json(J->tbytes, J->tmsgs, P));
    json_object_object_add(r, "wall_s", json_object_new_double(wall));
    json_object *sim = cli_backend_json(&o->backend, rep);
    if (sim)
        json_object_object_add(r, "sim", sim);
    return r;
}

int gnn_cmd_partcheck(int argc, char **argv)
{
    job J;
    memset(&J, 0, sizeof J);
    cli_args a;
    int rc = partcheck_options(argc, argv, &J.o, &a);
    if (rc != CLI_CONTINUE)
        return rc;
    J.have_split = cli_given(&a, "split");
    const int nthreads = cli_set_threads(J.o.threads);
    cli_shared_init(&J.shared);
    gnn_err err = { "" };
    gnn_sim_report rep;
    memset(&rep, 0, sizeof rep);
    const double w0 = gnn_now_s();
    gnn_status st = cli_backend_run(&J.o.backend, rank_fn, &J, &rep, &err);
    const double wall = gnn_now_s() - w0;
    rc = CLI_OK;
    if (st) {
        rc = cli_error(J.shared.st ? cli_status_code(J.shared.st) : CLI_FAIL, "partcheck: %s", cli_errmsg(&err, st));
    } else if (J.all) { /* rank 0 (under MPI the others leave the report to it) */
        const totals t = print_ranks(&J);
        if (!t.all_exact)
            rc = cli_error(CLI_FAIL, "partcheck: pulled rows differ from the feature matrix (see 'exact no' above)");
        if (J.o.json) {
            json_object *r = partcheck_report(&J, &a, &t, nthreads, &rep, wall);
            if (cli_report_write(r, J.o.json) && rc == CLI_OK)
                rc = CLI_FAIL;
            json_object_put(r);
        }
    }
    gnn_sim_report_free(&rep);
    gnn_free(J.all);
    free(J.tbytes);
    free(J.tmsgs);
    gnn_partition_free(&J.full);
    gnn_free(J.part);
    if (J.shared.done)
        gnn_dataset_free(&J.ds);
    cli_shared_destroy(&J.shared);
    return rc;
}
