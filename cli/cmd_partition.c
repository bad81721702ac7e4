/* cli/cmd_partition.c -- `gnnref partition DATA --parts K --method ...`: compute a part vector
 * (include/gnnref/partition.h) and report its quality: edge cut, imbalance per balance
 * constraint, halo vertices per part and the halo fraction. Thin: the library does the work.
 * With -o DIR it also builds the partition structure (solid/halo vertices, local CSRs, id tables)
 * and writes the partition set: DIR/manifest.json and one native-format file per part. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/cli.h"
#include "gnnref/dataset.h"
#include "gnnref/partition.h"
#include "gnnref/tensor.h"

static void partition_usage(FILE *f)
{
    fprintf(f,
            "usage: gnnref partition DATA --parts K [--method metis|range|hash|random]\n"
            "                        [--balance train,val,test,degree] [--seed S] [--split TRAIN,VAL,TEST]\n"
            "                        [--ufactor U] [--trainers T] [--threads N] [--json FILE] [-o DIR]\n"
            "  DATA                  native file, text-layout dir, OGB dir, or builtin\n"
            "  --parts K             number of parts (ranks), 1 <= K <= vertices\n"
            "  --method M            metis (default): METIS_PartGraphKway on the symmetrized graph,\n"
            "                        minimum edge cut under the balance constraints;\n"
            "                        range: contiguous id ranges; hash: MurmurHash3 fmix64(v) mod K;\n"
            "                        random: Philox draw of (seed, PARTITION, id v)\n"
            "  --balance LIST        METIS balance constraints, one vertex-weight column each:\n"
            "                        train, val, test (1 in that split, else 0), degree (in-degree);\n"
            "                        default: one column of unit weights (vertex counts)\n"
            "  --seed S              seed of --split, of METIS (METIS_OPTION_SEED = S mod 2^31) and of\n"
            "                        random (default 1)\n"
            "  --split A,B,C         seeded random train/val/test fractions (replaces the data's split)\n"
            "  --ufactor U           METIS allowed imbalance 1 + U/1000 per constraint (default %d)\n"
            "  --trainers T          two-level partitioning (DistDGLv2 4.1.2): split into K x T sub-parts,\n"
            "                        coalesce T consecutive ones per part; each trainer's seeds are the\n"
            "                        train vertices of its sub-part (default 1: one level)\n"
            "  --threads N           OpenMP threads (symmetrization, metrics; METIS itself is serial)\n"
            "  --json FILE           write the report: edge_cut, imbalance (per constraint), halo (per\n"
            "                        part), halo_fraction, the METIS options, and the common keys\n"
            "  -o DIR                write the partition set: DIR/manifest.json (checksummed) and\n"
            "                        DIR/part-RRRRR.gnn per part (native format: local graph, features,\n"
            "                        labels, split, id tables); load with --partitions DIR\n"
            "Metrics (docs/partitioning.md): edge_cut counts undirected edges of the symmetrized graph\n"
            "(self-loops dropped) whose ends are in different parts, each once; imbalance of a\n"
            "constraint = max part weight / mean part weight; halo vertices of a part = in-neighbors\n"
            "of its vertices owned by other parts; halo_fraction = halos / (vertices + halos).\n",
            GNN_METIS_DEFAULT_UFACTOR);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int gnn_cmd_partition(int argc, char **argv)
{
    static const struct option opts[] = {
        { "parts", required_argument, 0, 'k' },  { "method", required_argument, 0, 'm' },
        { "balance", required_argument, 0, 'b' }, { "seed", required_argument, 0, 's' },
        { "split", required_argument, 0, 'S' },  { "ufactor", required_argument, 0, 'u' },
        { "threads", required_argument, 0, 't' }, { "json", required_argument, 0, 'j' },
        { "trainers", required_argument, 0, 'T' },
        { "help", no_argument, 0, 'h' },          { 0, 0, 0, 0 }
    };
    gnn_part_options po;
    gnn_part_defaults(&po);
    po.k = 0;
    const char *json = NULL, *balance_arg = NULL, *out_dir = NULL;
    int64_t threads = 0, ufactor = GNN_METIS_DEFAULT_UFACTOR;
    double split[3] = { 0, 0, 0 };
    int have_split = 0, have_k = 0;
    gnn_err err = { "" };
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'k':
            if (cli_parse_i64(optarg, INT64_MIN, INT64_MAX, &po.k))
                return cli_error(CLI_USAGE, "--parts '%s': expected an integer", optarg);
            if (po.k < 1)
                return cli_error(CLI_USAGE, "--parts %lld: need at least 1 part", (long long)po.k);
            have_k = 1;
            break;
        case 'm':
            if (gnn_part_method_parse(optarg, &po.method))
                return cli_error(CLI_USAGE, "--method '%s': expected metis, range, hash or random", optarg);
            break;
        case 'b':
            if (gnn_part_balance_parse(optarg, &po.balance, &err))
                return cli_error(CLI_USAGE, "--%s", err.msg);
            balance_arg = optarg;
            break;
        case 's':
            if (cli_parse_u64(optarg, &po.seed))
                return cli_error(CLI_USAGE, "--seed '%s': expected a non-negative integer", optarg);
            break;
        case 'S':
            if (cli_parse_f64_list(optarg, 0.0, 1.0, split, 3) != 3 || split[0] + split[1] + split[2] > 1.0 + 1e-9)
                return cli_error(CLI_USAGE, "--split '%s': expected TRAIN,VAL,TEST fractions summing to at most 1",
                                 optarg);
            have_split = 1;
            break;
        case 'u':
            if (cli_parse_i64(optarg, 1, 1000000, &ufactor))
                return cli_error(CLI_USAGE, "--ufactor '%s': expected an integer in 1..1000000", optarg);
            break;
        case 't':
            if (cli_parse_i64(optarg, 1, 4096, &threads))
                return cli_error(CLI_USAGE, "--threads '%s': expected an integer in 1..4096", optarg);
            break;
        case 'T':
            if (cli_parse_i64(optarg, 1, 1 << 20, &po.trainers))
                return cli_error(CLI_USAGE, "--trainers '%s': expected an integer in 1..1048576", optarg);
            break;
        case 'j':
            json = optarg;
            if (cli_report_check(json))
                return CLI_USAGE;
            break;
        case 'o':
            out_dir = optarg;
            if (cli_output_dir_check("-o", out_dir)) /* before partitioning, which can take long */
                return CLI_USAGE;
            break;
        case 'h': partition_usage(stdout); return CLI_OK;
        default:
            partition_usage(stderr);
            return cli_error(CLI_USAGE, "partition: unknown or incomplete flag '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_error(CLI_USAGE, "partition: DATA is required (a dataset path or 'builtin'; see gnnref partition "
                                    "--help)");
    const char *data = argv[optind];
    if (optind + 1 < argc)
        return cli_error(CLI_USAGE, "partition: unexpected argument '%s'", argv[optind + 1]);
    if (!have_k)
        return cli_error(CLI_USAGE, "partition: --parts K is required");
    po.ufactor = (int)ufactor;
    const int nthreads = cli_set_threads(threads);

    gnn_dataset ds;
    gnn_status st = gnn_dataset_open(&ds, data, &err);
    if (st)
        return cli_error(cli_status_code(st), "%s", cli_errmsg(&err, st));
    int rc = CLI_OK;
    int32_t *part = NULL, *trainer = NULL;
    gnn_partition P;
    memset(&P, 0, sizeof P);
    gnn_part_quality q;
    memset(&q, 0, sizeof q);
    const int64_t n = ds.graph.n;
    if (have_split && (st = gnn_dataset_split_random(&ds, split[0], split[1], split[2], po.seed, &err))) {
        rc = cli_error(cli_status_code(st), "--split: %s", err.msg);
        goto done;
    }
    if (po.k > n || po.trainers > n / po.k) { /* K x T > n, without overflow */
        rc = cli_error(CLI_USAGE, "--parts %lld%s: %s has only %lld vertices (at most one part per vertex)",
                       (long long)po.k, po.trainers > 1 ? " x --trainers" : "", data, (long long)n);
        goto done;
    }
    part = gnn_malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
    trainer = gnn_malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
    if (!part || !trainer) {
        rc = cli_error(CLI_FAIL, "out of memory (%lld vertices)", (long long)n);
        goto done;
    }
    gnn_part_info info;
    const double t0 = now_s();
    st = gnn_partition_assign2(&ds.graph, ds.split, &po, part, trainer, &info, &err);
    const double t_assign = now_s() - t0;
    if (st) {
        rc = cli_error(cli_status_code(st), "%s: %s", data, cli_errmsg(&err, st));
        goto done;
    }
    if ((st = gnn_partition_quality(&ds.graph, ds.split, part, po.k, po.balance, &q, &err))) {
        rc = cli_error(cli_status_code(st), "%s: %s", data, cli_errmsg(&err, st));
        goto done;
    }

    /* the structure and the files */
    double t_build = 0, t_save = 0;
    if (out_dir) {
        const double t1 = now_s();
        if ((st = gnn_partition_build_cpu(&P, &ds.graph, ds.split, part, po.k, &err)) ||
            (st = gnn_partition_set_trainers(&P, trainer, po.trainers, &err))) {
            rc = cli_error(cli_status_code(st), "%s: %s", data, cli_errmsg(&err, st));
            goto done;
        }
        const double t2 = now_s();
        gnn_part_manifest prov;
        memset(&prov, 0, sizeof prov);
        prov.method = po.method;
        prov.seed = po.seed;
        prov.balance = po.balance;
        prov.ufactor = po.ufactor;
        prov.have_split = have_split;
        memcpy(prov.split, split, sizeof split);
        prov.edge_cut = q.edge_cut;
        if ((st = gnn_partition_save(out_dir, &P, &ds, &prov, &err))) {
            rc = cli_error(cli_status_code(st), "%s", cli_errmsg(&err, st));
            goto done;
        }
        t_build = t2 - t1;
        t_save = now_s() - t2;
    }

    /* human-readable summary */
    printf("gnnref partition: %s  n=%lld edges=%lld (CSR entries)  method=%s parts=%lld seed=%llu balance=%s%s\n",
           ds.name, (long long)n, (long long)ds.graph.nnz, gnn_part_method_name(po.method), (long long)po.k,
           (unsigned long long)po.seed, balance_arg ? balance_arg : "none (vertex counts)",
           have_split ? "  (random split)" : "");
    if (info.metis_called) {
        printf("metis %s: ufactor %d (allowed imbalance %.3f), METIS_OPTION_SEED %d, %d constraint%s, METIS edge cut "
               "%lld, %.3f s\n",
               info.metis_version, po.ufactor, 1.0 + po.ufactor / 1000.0, (int)(po.seed & 0x7fffffffu), info.ncon,
               info.ncon == 1 ? "" : "s", (long long)info.metis_objval, t_assign);
    } else if (po.method == GNN_PART_METIS) {
        printf("metis: not called (one part: every vertex in part 0)\n");
    }
    printf("edge cut: %lld of %lld undirected edges (%.2f%%)\n", (long long)q.edge_cut, (long long)q.edges,
           q.edges > 0 ? 100.0 * (double)q.edge_cut / (double)q.edges : 0.0);
    printf("imbalance (max / mean part weight):");
    for (int c = 0; c < q.ncon; c++)
        printf(" %s %.4f", gnn_part_constraint_name(q.con[c]), q.imbalance[c]);
    printf("   (vertex counts %.4f)\n", q.vertex_imbalance);
    printf("halo: %lld halo vertices over all parts, halo fraction %.4f (halos / (vertices + halos))\n",
           (long long)q.halo_total, q.halo_fraction);
    printf("%6s %10s %10s", "part", "solid", "halo");
    for (int c = 0; c < q.ncon; c++)
        if (q.con[c])
            printf(" %10s", gnn_part_constraint_name(q.con[c]));
    printf("\n");
    for (int64_t p = 0; p < po.k; p++) {
        printf("%6lld %10lld %10lld", (long long)p, (long long)q.solid[p], (long long)q.halo[p]);
        for (int c = 0; c < q.ncon; c++)
            if (q.con[c])
                printf(" %10lld", (long long)q.weight[p * q.ncon + c]);
        printf("\n");
    }
    if (po.trainers > 1) {
        /* two-level: the train vertices of every (part, trainer) sub-part */
        printf("two-level: %lld trainers per part (%lld sub-parts); train vertices per trainer:\n",
               (long long)po.trainers, (long long)(po.k * po.trainers));
        int64_t *tc = gnn_calloc((size_t)(po.k * po.trainers), sizeof(int64_t));
        if (tc) {
            for (int64_t v = 0; v < n; v++)
                if (ds.split && ds.split[v] == GNN_SPLIT_TRAIN)
                    tc[part[v] * po.trainers + trainer[v]]++;
            for (int64_t p = 0; p < po.k; p++) {
                printf("%6lld ", (long long)p);
                for (int64_t t = 0; t < po.trainers; t++)
                    printf(" %8lld", (long long)tc[p * po.trainers + t]);
                printf("\n");
            }
            gnn_free(tc);
        }
    }
    if (out_dir)
        printf("wrote %s: manifest.json and %lld part files (build %.3f s, write %.3f s)\n", out_dir, (long long)po.k,
               t_build, t_save);

    if (json) {
        json_object *cfg;
        json_object *r = cli_report_new("partition", po.seed, nthreads, "self", 1, &cfg);
        json_object_object_add(cfg, "data", json_object_new_string(data));
        json_object_object_add(cfg, "dataset", json_object_new_string(ds.name));
        json_object_object_add(cfg, "parts", json_object_new_int64(po.k));
        json_object_object_add(cfg, "method", json_object_new_string(gnn_part_method_name(po.method)));
        json_object *bal = json_object_new_array();
        for (int c = 0; c < q.ncon; c++)
            if (q.con[c])
                json_object_array_add(bal, json_object_new_string(gnn_part_constraint_name(q.con[c])));
        json_object_object_add(cfg, "balance", bal);
        json_object_object_add(cfg, "seed", json_object_new_uint64(po.seed));
        if (have_split) {
            json_object *sp = json_object_new_array();
            for (int i = 0; i < 3; i++)
                json_object_array_add(sp, json_object_new_double(split[i]));
            json_object_object_add(cfg, "split", sp);
        } else {
            json_object_object_add(cfg, "split", NULL);
        }
        json_object_object_add(cfg, "ufactor", json_object_new_int(po.ufactor));
        json_object_object_add(cfg, "threads", json_object_new_int(nthreads));
        json_object_object_add(cfg, "trainers", json_object_new_int64(po.trainers));
        json_object_object_add(cfg, "output", out_dir ? json_object_new_string(out_dir) : NULL);
        json_object_object_add(r, "n", json_object_new_int64(n));
        json_object_object_add(r, "edges", json_object_new_int64(q.edges));
        json_object_object_add(r, "edge_cut", json_object_new_int64(q.edge_cut));
        json_object_object_add(r, "edge_cut_fraction",
                               json_object_new_double(q.edges > 0 ? (double)q.edge_cut / (double)q.edges : 0.0));
        json_object *imb = json_object_new_object(), *wts = json_object_new_object();
        for (int c = 0; c < q.ncon; c++) {
            json_object_object_add(imb, gnn_part_constraint_name(q.con[c]), json_object_new_double(q.imbalance[c]));
            json_object_object_add(wts, gnn_part_constraint_name(q.con[c]),
                                   cli_json_i64_array(q.weight + c, po.k, q.ncon));
        }
        json_object_object_add(r, "imbalance", imb);
        json_object_object_add(r, "vertex_imbalance", json_object_new_double(q.vertex_imbalance));
        json_object_object_add(r, "weights", wts);
        json_object_object_add(r, "solid", cli_json_i64_array(q.solid, po.k, 1));
        json_object_object_add(r, "halo", cli_json_i64_array(q.halo, po.k, 1));
        json_object_object_add(r, "halo_total", json_object_new_int64(q.halo_total));
        json_object_object_add(r, "halo_fraction", json_object_new_double(q.halo_fraction));
        json_object_object_add(r, "seconds", json_object_new_double(t_assign));
        if (info.metis_called) {
            json_object *m = json_object_new_object();
            json_object_object_add(m, "version", json_object_new_string(info.metis_version));
            json_object *o = json_object_new_object();
            for (int i = 0; i < info.n_opts; i++)
                json_object_object_add(o, info.opts[i].name, json_object_new_int(info.opts[i].value));
            json_object_object_add(m, "options", o);
            json_object_object_add(m, "ncon", json_object_new_int(info.ncon));
            json_object_object_add(m, "objval", json_object_new_int64(info.metis_objval));
            json_object_object_add(m, "vertices", json_object_new_int64(info.metis_vertices));
            json_object_object_add(m, "adjacency", json_object_new_int64(info.metis_adjacency));
            json_object_object_add(r, "metis", m);
        } else {
            json_object_object_add(r, "metis", NULL);
        }
        rc = cli_report_write(r, json);
        json_object_put(r);
    }
done:
    gnn_part_quality_free(&q);
    gnn_partition_free(&P);
    gnn_free(part);
    gnn_free(trainer);
    gnn_dataset_free(&ds);
    return rc;
}
