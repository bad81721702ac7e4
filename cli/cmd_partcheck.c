/* cli/cmd_partcheck.c -- `gnnref partcheck DATA --method M`: build the partition with one part
 * per rank, build each rank's db_halo (include/gnnref/halo.h) through the communicator, then
 * run seeded pulls through the feature store (include/gnnref/kvstore.h) and check every row
 * against the full feature matrix. One line per rank with the db_halo sizes and CRC32C and
 * one with the kvstore figures, identical under every backend with the same rank count, so
 * ci/mpi-check.sh compares the simulator with mpirun line by line.
 *
 * Every rank loads DATA and computes the same part vector (gnn_partition_assign is
 * deterministic) with K = ranks, then the partition (gnn_partition_build_cpu). Under the
 * simulator the ranks are threads of one process: the first rank to arrive loads and builds,
 * the others wait for it and share the result (read-only). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/backend.h"
#include "gnnref/dataset.h"
#include "gnnref/halo.h"
#include "gnnref/kvstore.h"
#include "gnnref/partition.h"
#include "gnnref/rng.h"
#include "gnnref/tensor.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gnnref partcheck DATA [--method metis|range|hash|random] [flags]\n"
            "       (under MPI: mpirun -np P gnnref partcheck DATA --backend mpi ...)\n"
            "Partition DATA into one part per rank, build db_halo on every rank (DistGNN-MB Algorithm 1)\n"
            "and pull feature rows through the hybrid-partitioning feature store; check the rows.\n"
            "  DATA                  native file, text-layout dir, OGB dir, or builtin\n"
            "  --method M            part vector: metis (default), range, hash, random (K = ranks)\n"
            "  --balance LIST        METIS balance constraints: train,val,test,degree\n"
            "  --seed S              seed of --split, METIS, random and the pulled ids (default 1)\n"
            "  --split A,B,C         seeded random train/val/test fractions (replaces the data's split)\n"
            "  --partitions DIR      use the saved partition set DIR (gnnref partition DATA --parts P -o DIR;\n"
            "                        it must have P parts and come from DATA) instead of partitioning here\n"
            "  --impl ref|cpu        db_halo builder: ref (allgatherv, Algorithm 1) or cpu (alltoallv to\n"
            "                        the owners; default)\n"
            "  --pulls N             seeded pulls per rank (default 4)\n"
            "  --pull-ids M          ids per pull and rank (default 1000), drawn uniformly with repeats from\n"
            "                        Philox (seed, KVSTORE, step = pull, id = rank)\n"
            "  --threads N           OpenMP threads (per rank under the simulator: --threads-per-rank)\n"
            "  --json FILE           write the report: db_halo sizes, bytes and CRC per rank, kvstore\n"
            "                        figures per rank, the traffic matrix, and the common keys\n"
            "Output: per rank `db_halo rank R: to r0 N0, to r1 N1, ... crc 0x........` and\n"
            "`kvstore rank R: pulls N rows M remote M2 bytes B exact yes|no`; exit 1 on any mismatch.\n"
            "%s",
            cli_backend_help());
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* the per-rank record gathered to rank 0: these fields, then the P db_halo row sizes */
enum {
    R_CRC, R_ENTRIES, R_DB_BYTES, R_PULLS, R_IDS, R_LOCAL, R_REMOTE, R_SERVED, R_B_HEADER, R_B_IDS, R_B_ROWS_RECV,
    R_B_ROWS_SENT, R_EXACT, R_DB_NS, R_PULL_NS, R_N_SOLID, R_N_HALO, R_FIELDS
};

typedef struct job {
    /* flags */
    const char *data;
    const char *parts_dir; /* --partitions DIR, or NULL */
    gnn_part_options po;
    int have_split;
    double split[3];
    const gnn_db_halo_ops *impl;
    int64_t pulls, pull_ids;
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
    gnn_status st = gnn_dataset_open(&J->ds, J->data, err);
    if (st)
        return st;
    const int64_t n = J->ds.graph.n;
    if (J->parts_dir) {
        gnn_part_manifest m;
        if ((st = gnn_partition_load(J->parts_dir, &J->full, NULL, &m, err)))
            return st;
        if (m.k != P)
            return gnn_err_set(err, GNN_ERR_INVAL, "%s has %lld parts: run it with --ranks %lld (mpirun -np %lld)",
                               J->parts_dir, (long long)m.k, (long long)m.k, (long long)m.k);
        if (m.n != n || m.graph_crc != gnn_graph_crc(&J->ds.graph))
            return gnn_err_set(err, GNN_ERR_INVAL,
                               "%s was not made from %s (its graph: %lld vertices, CRC32C 0x%08x; %s: %lld vertices, "
                               "0x%08x)",
                               J->parts_dir, J->data, (long long)m.n, m.graph_crc, J->data, (long long)n,
                               gnn_graph_crc(&J->ds.graph));
        J->po.method = m.method;
        J->po.seed = m.seed;
        J->po.balance = m.balance;
        J->part = gnn_malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
        if (!J->part)
            return gnn_err_set(err, GNN_ERR_NOMEM, "out of memory");
        if (n > 0)
            memcpy(J->part, J->full.part, sizeof(int32_t) * (size_t)n);
        return GNN_OK;
    }
    if (J->have_split &&
        (st = gnn_dataset_split_random(&J->ds, J->split[0], J->split[1], J->split[2], J->po.seed, err)))
        return st;
    if (P > n)
        return gnn_err_set(err, GNN_ERR_INVAL, "%d ranks for %lld vertices: at most one rank per vertex", P,
                           (long long)n);
    J->part = gnn_malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    if (!J->part)
        return gnn_err_set(err, GNN_ERR_NOMEM, "out of memory");
    J->po.k = P;
    if ((st = gnn_partition_assign(&J->ds.graph, J->ds.split, &J->po, J->part, &J->info, err)))
        return st;
    return gnn_partition_build_cpu(&J->full, &J->ds.graph, J->ds.split, J->part, P, err);
}

static gnn_status rank_fn(gnn_comm *c, void *arg)
{
    job *J = arg;
    const int P = gnn_comm_size(c), me = gnn_comm_rank(c);
    if (cli_shared_once(&J->shared, prepare, J, P)) /* the same on every rank: the same data and flags */
        return gnn_err_set(&c->err, J->shared.st, "%s: %s", J->data, J->shared.err.msg);

    const gnn_dataset *ds = &J->ds;
    const int64_t n = ds->graph.n, dim = ds->num_features;
    gnn_db_halo t = { 0, NULL, NULL };
    gnn_kvstore kv;
    memset(&kv, 0, sizeof kv);
    int64_t *ids = NULL, *rec = NULL, *all = NULL, *cnt = NULL;
    float *out = NULL;
    gnn_err err = { "" };
    const size_t W = R_FIELDS + (size_t)P;

    /* db_halo */
    gnn_status st = gnn_comm_barrier(c);
    const double t0 = now_s();
    int64_t b0 = 0, b1 = 0;
    for (size_t i = 0; i < (size_t)GNN_COMM_OP_COUNT * P; i++)
        b0 += c->traffic.bytes[i];
    if (!st)
        st = J->impl->build(c, &J->full.parts[me], n, &t, &err);
    const double t1 = now_s();
    for (size_t i = 0; i < (size_t)GNN_COMM_OP_COUNT * P; i++)
        b1 += c->traffic.bytes[i];
    if (st)
        goto out;

    /* the feature store and the pulls */
    if ((st = gnn_kvstore_create_from_full(&kv, c, n, J->part, dim, ds->feat, &err)))
        goto out;
    ids = gnn_malloc(sizeof(int64_t) * (size_t)(J->pull_ids + 1));
    out = gnn_malloc(sizeof(float) * (size_t)(J->pull_ids * dim + 1));
    rec = gnn_calloc(W, sizeof(int64_t));
    if (!ids || !out || !rec) {
        st = gnn_err_set(&err, GNN_ERR_NOMEM, "out of memory (%lld ids of %lld features)", (long long)J->pull_ids,
                         (long long)dim);
        goto out;
    }
    int exact = 1;
    double pull_s = 0;
    for (int64_t k = 0; k < J->pulls; k++) {
        const gnn_rng_stream s = gnn_rng_stream_make(J->po.seed, GNN_TAG_KVSTORE, (uint32_t)k, 0, (uint64_t)me);
        for (int64_t i = 0; i < J->pull_ids; i++)
            ids[i] = (int64_t)gnn_rng_uint(&s, (uint64_t)i, (uint64_t)n);
        if ((st = gnn_comm_barrier(c)))
            goto out;
        const double p0 = now_s();
        if ((st = gnn_kvstore_pull(&kv, ids, J->pull_ids, out, &err)))
            goto out;
        pull_s += now_s() - p0;
        for (int64_t i = 0; i < J->pull_ids && dim > 0; i++)
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

    /* the traffic so far (db_halo, kvstore), then gather the records (not part of it) */
    int64_t *tb = NULL, *tm = NULL;
    if ((st = gnn_comm_traffic_matrix(c, 0, &tb, &tm))) {
        gnn_err_set(&err, st, "traffic matrix: %s", gnn_comm_errmsg(c));
        goto out;
    }
    all = gnn_malloc(sizeof(int64_t) * W * (size_t)P);
    cnt = gnn_malloc(sizeof(int64_t) * 2 * (size_t)P);
    if (!all || !cnt) {
        free(tb);
        free(tm);
        st = gnn_err_set(&err, GNN_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (int q = 0; q < P; q++) {
        cnt[q] = (int64_t)W;
        cnt[P + q] = (int64_t)W * q;
    }
    if ((st = gnn_comm_allgatherv(c, rec, (int64_t)W, all, cnt, cnt + P, GNN_DT_I64))) {
        free(tb);
        free(tm);
        gnn_err_set(&err, st, "gathering the results: %s", gnn_comm_errmsg(c));
        goto out;
    }
    if (me == 0) {
        J->P = P;
        J->all = all;
        J->tbytes = tb;
        J->tmsgs = tm;
        all = NULL;
    } else {
        free(tb);
        free(tm);
    }
out:
    if (st && err.msg[0])
        gnn_err_set(&c->err, st, "%s", err.msg);
    gnn_db_halo_free(&t);
    gnn_kvstore_free(&kv);
    gnn_free(ids);
    gnn_free(out);
    gnn_free(rec);
    gnn_free(all);
    gnn_free(cnt);
    return st;
}

int gnn_cmd_partcheck(int argc, char **argv)
{
    static const struct option opts[] = {
        { "method", required_argument, 0, 'm' },  { "balance", required_argument, 0, 'b' },
        { "seed", required_argument, 0, 's' },    { "split", required_argument, 0, 'S' },
        { "impl", required_argument, 0, 'i' },    { "pulls", required_argument, 0, 'p' },
        { "pull-ids", required_argument, 0, 'M' }, { "threads", required_argument, 0, 't' },
        { "json", required_argument, 0, 'j' },    { "help", no_argument, 0, 'h' },
        { "partitions", required_argument, 0, 'P' },
        CLI_BACKEND_OPTIONS,                      { 0, 0, 0, 0 }
    };
    cli_backend b;
    cli_backend_defaults(&b);
    job J;
    memset(&J, 0, sizeof J);
    gnn_part_defaults(&J.po);
    J.impl = &gnn_db_halo_cpu;
    J.pulls = 4;
    J.pull_ids = 1000;
    const char *json = NULL, *balance_arg = NULL;
    int64_t threads = 0;
    gnn_err err = { "" };
    optind = 1;
    opterr = 0;
    int ch, rc;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (ch >= CLI_OPT_BACKEND && ch < CLI_OPT_BACKEND_END) {
            if ((rc = cli_backend_option(ch, optarg, &b)))
                return rc;
            continue;
        }
        switch (ch) {
        case 'm':
            if (gnn_part_method_parse(optarg, &J.po.method))
                return cli_error(CLI_USAGE, "--method '%s': expected metis, range, hash or random", optarg);
            break;
        case 'b':
            if (gnn_part_balance_parse(optarg, &J.po.balance, &err))
                return cli_error(CLI_USAGE, "--%s", err.msg);
            balance_arg = optarg;
            break;
        case 's':
            if (cli_parse_u64(optarg, &J.po.seed))
                return cli_error(CLI_USAGE, "--seed '%s': expected a non-negative integer", optarg);
            break;
        case 'S':
            if (cli_parse_f64_list(optarg, 0.0, 1.0, J.split, 3) != 3 || J.split[0] + J.split[1] + J.split[2] > 1.0 + 1e-9)
                return cli_error(CLI_USAGE, "--split '%s': expected TRAIN,VAL,TEST fractions summing to at most 1",
                                 optarg);
            J.have_split = 1;
            break;
        case 'i':
            if (!strcmp(optarg, "ref"))
                J.impl = &gnn_db_halo_ref;
            else if (!strcmp(optarg, "cpu"))
                J.impl = &gnn_db_halo_cpu;
            else
                return cli_error(CLI_USAGE, "--impl '%s': expected ref or cpu", optarg);
            break;
        case 'p':
            if (cli_parse_i64(optarg, 0, 1000000, &J.pulls))
                return cli_error(CLI_USAGE, "--pulls '%s': expected an integer in 0..1000000", optarg);
            break;
        case 'M':
            if (cli_parse_i64(optarg, 0, 100000000, &J.pull_ids))
                return cli_error(CLI_USAGE, "--pull-ids '%s': expected an integer in 0..100000000", optarg);
            break;
        case 't':
            if (cli_parse_i64(optarg, 1, 4096, &threads))
                return cli_error(CLI_USAGE, "--threads '%s': expected an integer in 1..4096", optarg);
            break;
        case 'j': json = optarg; break;
        case 'P': J.parts_dir = optarg; break;
        case 'h': usage(stdout); return CLI_OK;
        default:
            usage(stderr);
            return cli_error(CLI_USAGE, "partcheck: unknown or incomplete flag '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_error(CLI_USAGE, "partcheck: DATA is required (a dataset path or 'builtin')");
    if (b.kind != CLI_BACKEND_MPI && cli_report_check(json)) /* under MPI: rank 0, at the end */
        return CLI_USAGE;
    J.data = argv[optind];
    if (optind + 1 < argc)
        return cli_error(CLI_USAGE, "partcheck: unexpected argument '%s'", argv[optind + 1]);
    if ((rc = cli_backend_check(&b)))
        return rc;
    if (!gnn_dataset_spec_kind(J.data))
        return cli_error(CLI_USAGE, "partcheck: %s: no such dataset (a native file, a text-layout or OGB directory, "
                                    "or builtin)",
                         J.data);
    const int nthreads = cli_set_threads(threads);
    cli_shared_init(&J.shared);

    gnn_sim_report rep;
    memset(&rep, 0, sizeof rep);
    const double w0 = now_s();
    gnn_status st = cli_backend_run(&b, rank_fn, &J, &rep, &err);
    const double wall = now_s() - w0;
    rc = CLI_OK;
    if (st) {
        rc = cli_error(J.shared.st ? cli_status_code(J.shared.st) : CLI_FAIL, "partcheck: %s",
                       cli_errmsg(&err, st));
        goto done;
    }
    if (!J.all) /* an MPI rank other than 0: rank 0 reports */
        goto done;

    const int P = J.P;
    const size_t W = R_FIELDS + (size_t)P;
    int64_t entries = 0, db_bytes = 0, remote = 0, ids_total = 0, kv_bytes = 0, max_db_ns = 0, max_pull_ns = 0;
    int all_exact = 1;
    char bal_buf[64] = "";
    if (!balance_arg && J.po.balance) { /* from a loaded set's manifest */
        for (int c = 0; c < GNN_PART_MAX_CON; c++)
            if (J.po.balance & (1u << c))
                snprintf(bal_buf + strlen(bal_buf), sizeof bal_buf - strlen(bal_buf), "%s%s", bal_buf[0] ? "," : "",
                         gnn_part_constraint_name(1u << c));
        balance_arg = bal_buf;
    }
    printf("partcheck: %s  n=%lld  features=%lld  method=%s ranks=%d seed=%llu balance=%s  db_halo impl=%s  "
           "backend=%s\n",
           J.ds.name, (long long)J.ds.graph.n, (long long)J.ds.num_features, gnn_part_method_name(J.po.method), P,
           (unsigned long long)J.po.seed, balance_arg ? balance_arg : "none", J.impl->name, b.name);
    for (int r = 0; r < P; r++) {
        const int64_t *x = J.all + W * r;
        printf("db_halo rank %d:", r);
        for (int q = 0; q < P; q++)
            printf(" to r%d %lld%s", q, (long long)x[R_FIELDS + q], q + 1 < P ? "," : "");
        printf(" crc 0x%08x\n", (unsigned)x[R_CRC]);
        entries += x[R_ENTRIES];
        db_bytes += x[R_DB_BYTES];
        if (x[R_DB_NS] > max_db_ns)
            max_db_ns = x[R_DB_NS];
    }
    for (int r = 0; r < P; r++) {
        const int64_t *x = J.all + W * r;
        const int64_t bytes = x[R_B_HEADER] + x[R_B_IDS] + x[R_B_ROWS_RECV];
        printf("kvstore rank %d: pulls %lld rows %lld remote %lld bytes %lld exact %s\n", r, (long long)x[R_PULLS],
               (long long)x[R_IDS], (long long)x[R_REMOTE], (long long)bytes, x[R_EXACT] ? "yes" : "no");
        all_exact &= x[R_EXACT] != 0;
        remote += x[R_REMOTE];
        ids_total += x[R_IDS];
        kv_bytes += x[R_B_HEADER] + x[R_B_IDS] + x[R_B_ROWS_SENT];
        if (x[R_PULL_NS] > max_pull_ns)
            max_pull_ns = x[R_PULL_NS];
    }
    printf("summary: db_halo %lld entries, %lld bytes sent (%s), %.6f s; kvstore %lld ids, %lld remote, %lld bytes "
           "sent, pulls %.6f s (slowest rank); rows %s\n",
           (long long)entries, (long long)db_bytes, J.impl == &gnn_db_halo_ref ? "allgatherv" : "alltoallv",
           (double)max_db_ns * 1e-9, (long long)ids_total, (long long)remote, (long long)kv_bytes,
           (double)max_pull_ns * 1e-9, all_exact ? "exact" : "MISMATCH");
    if (!all_exact)
        rc = cli_error(CLI_FAIL, "partcheck: pulled rows differ from the feature matrix (see 'exact no' above)");

    if (json) {
        json_object *cfg, *r = cli_report_new("partcheck", J.po.seed, nthreads, b.name, P, &cfg);
        json_object_object_add(cfg, "data", json_object_new_string(J.data));
        json_object_object_add(cfg, "dataset", json_object_new_string(J.ds.name));
        json_object_object_add(cfg, "method", json_object_new_string(gnn_part_method_name(J.po.method)));
        json_object_object_add(cfg, "balance", balance_arg ? json_object_new_string(balance_arg) : NULL);
        json_object_object_add(cfg, "seed", json_object_new_uint64(J.po.seed));
        if (J.have_split) {
            json_object *sp = json_object_new_array();
            for (int i = 0; i < 3; i++)
                json_object_array_add(sp, json_object_new_double(J.split[i]));
            json_object_object_add(cfg, "split", sp);
        } else {
            json_object_object_add(cfg, "split", NULL);
        }
        json_object_object_add(cfg, "impl", json_object_new_string(J.impl->name));
        json_object_object_add(cfg, "pulls", json_object_new_int64(J.pulls));
        json_object_object_add(cfg, "pull_ids", json_object_new_int64(J.pull_ids));
        json_object_object_add(cfg, "threads", json_object_new_int(nthreads));
        json_object_object_add(cfg, "partitions", J.parts_dir ? json_object_new_string(J.parts_dir) : NULL);
        json_object_object_add(r, "n", json_object_new_int64(J.ds.graph.n));
        json_object_object_add(r, "features", json_object_new_int64(J.ds.num_features));
        json_object *ranks = json_object_new_array();
        for (int q = 0; q < P; q++) {
            const int64_t *x = J.all + W * q;
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
            json_object *kvo = json_object_new_object();
            json_object_object_add(kvo, "pulls", json_object_new_int64(x[R_PULLS]));
            json_object_object_add(kvo, "ids", json_object_new_int64(x[R_IDS]));
            json_object_object_add(kvo, "rows_local", json_object_new_int64(x[R_LOCAL]));
            json_object_object_add(kvo, "rows_remote", json_object_new_int64(x[R_REMOTE]));
            json_object_object_add(kvo, "rows_served", json_object_new_int64(x[R_SERVED]));
            json_object_object_add(kvo, "bytes_header_sent", json_object_new_int64(x[R_B_HEADER]));
            json_object_object_add(kvo, "bytes_ids_sent", json_object_new_int64(x[R_B_IDS]));
            json_object_object_add(kvo, "bytes_rows_received", json_object_new_int64(x[R_B_ROWS_RECV]));
            json_object_object_add(kvo, "bytes_rows_sent", json_object_new_int64(x[R_B_ROWS_SENT]));
            json_object_object_add(kvo, "exact", json_object_new_boolean(x[R_EXACT] != 0));
            json_object_object_add(kvo, "seconds", json_object_new_double((double)x[R_PULL_NS] * 1e-9));
            json_object_object_add(o, "kvstore", kvo);
            json_object_array_add(ranks, o);
        }
        json_object_object_add(r, "ranks_detail", ranks);
        json_object *db = json_object_new_object();
        json_object_object_add(db, "impl", json_object_new_string(J.impl->name));
        json_object_object_add(db, "entries", json_object_new_int64(entries));
        json_object_object_add(db, "bytes_sent", json_object_new_int64(db_bytes));
        json_object_object_add(db, "seconds", json_object_new_double((double)max_db_ns * 1e-9));
        json_object_object_add(r, "db_halo", db);
        json_object *kvo = json_object_new_object();
        json_object_object_add(kvo, "ids", json_object_new_int64(ids_total));
        json_object_object_add(kvo, "rows_remote", json_object_new_int64(remote));
        json_object_object_add(kvo, "bytes_sent", json_object_new_int64(kv_bytes));
        json_object_object_add(kvo, "seconds", json_object_new_double((double)max_pull_ns * 1e-9));
        json_object_object_add(kvo, "exact", json_object_new_boolean(all_exact));
        json_object_object_add(r, "kvstore", kvo);
        json_object_object_add(r, "comm", cli_traffic_json(J.tbytes, J.tmsgs, P));
        json_object_object_add(r, "wall_s", json_object_new_double(wall));
        json_object *sim = cli_backend_json(&b, &rep);
        if (sim)
            json_object_object_add(r, "sim", sim);
        if (cli_report_write(r, json) && rc == CLI_OK)
            rc = CLI_FAIL;
        json_object_put(r);
    }
done:
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
