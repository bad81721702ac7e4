/* cli/cmd_commcheck.c -- `gnnref commcheck`: every collective on fixed inputs, on the chosen
 * backend, checked bitwise against the expected outputs; one CRC32C per case and rank, so
 * that two backends can be compared (ci/mpi-check.sh compares sim with mpirun). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/backend.h"
#include "gnnref/commcheck.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gnnref commcheck [flags]     (under MPI: mpirun -np P gnnref commcheck --backend mpi)\n"
            "  --seed S              seed of the inputs (default 1)\n"
            "  --inject KIND         sim only: mismatch, deadlock or modify (a deliberate bug the simulator\n"
            "                        must report within --sim-timeout)\n"
            "  --json FILE           write the report: per case and rank, the CRC32C and the outcome\n"
            "%s",
            cli_backend_help());
}

typedef struct job {
    uint64_t seed;
    const char *inject;
    gnn_commcheck_result *all; /* rank 0: [P] */
    int P;
} job;

static gnn_status rank_fn(gnn_comm *c, void *arg)
{
    job *J = arg;
    gnn_commcheck_result mine;
    gnn_status st = gnn_commcheck_run(c, J->seed, J->inject, &mine);
    if (st)
        return st;
    const int P = gnn_comm_size(c);
    int64_t *cnt = malloc(sizeof(int64_t) * 2 * (size_t)P);
    gnn_commcheck_result *all = malloc(sizeof(gnn_commcheck_result) * (size_t)P);
    if (!cnt || !all) {
        free(cnt);
        free(all);
        return gnn_err_set(&c->err, GNN_ERR_NOMEM, "commcheck: out of memory");
    }
    for (int q = 0; q < P; q++) {
        cnt[q] = (int64_t)sizeof mine;
        cnt[P + q] = (int64_t)sizeof mine * q;
    }
    st = gnn_comm_allgatherv(c, &mine, (int64_t)sizeof mine, all, cnt, cnt + P, GNN_DT_U8);
    free(cnt);
    if (!st && c->rank == 0) {
        J->all = all;
        J->P = P;
    } else {
        free(all);
    }
    return st;
}

int gnn_cmd_commcheck(int argc, char **argv)
{
    static const struct option opts[] = { { "seed", required_argument, 0, 's' }, { "inject", required_argument, 0, 'i' },
                                          { "json", required_argument, 0, 'j' }, { "help", no_argument, 0, 'h' },
                                          CLI_BACKEND_OPTIONS,                   { 0, 0, 0, 0 } };
    cli_backend b;
    cli_backend_defaults(&b);
    job J = { .seed = 1 };
    const char *json = NULL;
    optind = 1;
    opterr = 0;
    int ch, rc;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (ch >= CLI_OPT_BACKEND && ch < CLI_OPT_BACKEND_END) {
            if ((rc = cli_backend_option(ch, optarg, &b)))
                return rc;
            continue;
        }
        switch (ch) {
        case 's':
            if (cli_parse_u64(optarg, &J.seed))
                return cli_error(CLI_USAGE, "--seed '%s': expected a non-negative integer", optarg);
            break;
        case 'i':
            if (strcmp(optarg, "mismatch") && strcmp(optarg, "deadlock") && strcmp(optarg, "modify"))
                return cli_error(CLI_USAGE, "--inject '%s': expected mismatch, deadlock or modify", optarg);
            J.inject = optarg;
            break;
        case 'j': json = optarg; break;
        case 'h': usage(stdout); return CLI_OK;
        default:
            usage(stderr);
            return cli_error(CLI_USAGE, "commcheck: unknown or incomplete flag '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_error(CLI_USAGE, "commcheck: unexpected argument '%s'", argv[optind]);
    if (b.kind != CLI_BACKEND_MPI && cli_report_check(json)) /* under MPI: rank 0, at the end */
        return CLI_USAGE;
    if ((rc = cli_backend_check(&b)))
        return rc;
    if (J.inject && b.kind != CLI_BACKEND_SIM)
        return cli_error(CLI_USAGE, "--inject needs --backend sim: under MPI the injected bug would hang");
    if (J.inject && b.sim.ranks < 2)
        return cli_error(CLI_USAGE, "--inject %s needs --ranks 2 or more: one rank has no one to disagree with",
                         J.inject);

    gnn_err err = { "" };
    gnn_sim_report rep;
    memset(&rep, 0, sizeof rep);
    gnn_status st = cli_backend_run(&b, rank_fn, &J, &rep, &err);
    if (st) {
        gnn_sim_report_free(&rep);
        free(J.all);
        return cli_error(CLI_FAIL, "commcheck: %s", cli_errmsg(&err, st));
    }
    if (!J.all) { /* an MPI rank other than 0: rank 0 reports */
        gnn_sim_report_free(&rep);
        return CLI_OK;
    }
    const int P = J.P, n = J.all[0].n;
    int pass = 0, fail = 0;
    printf("commcheck: backend %s, %d rank%s, seed %llu\n", b.name, P, P > 1 ? "s" : "", (unsigned long long)J.seed);
    printf("%-40s", "case");
    for (int q = 0; q < P && q < 8; q++)
        printf(" rank%-5d", q);
    printf(" result\n");
    json_object *cfg, *r = cli_report_new("commcheck", J.seed, 1, b.name, P, &cfg);
    json_object_object_add(cfg, "inject", J.inject ? json_object_new_string(J.inject) : NULL);
    json_object *res = json_object_new_array();
    for (int k = 0; k < n; k++) {
        int ok = 1;
        const char *detail = "";
        for (int q = 0; q < P; q++) {
            const gnn_commcheck_case *cs = &J.all[q].c[k];
            if (J.all[q].n != n || strcmp(cs->name, J.all[0].c[k].name)) {
                ok = 0;
                detail = "ranks ran different cases";
            } else if (!cs->pass) {
                ok = 0;
                detail = cs->detail;
            }
            json_object *o = json_object_new_object();
            char crc[16];
            snprintf(crc, sizeof crc, "%08x", cs->crc);
            json_object_object_add(o, "case", json_object_new_string(J.all[0].c[k].name));
            json_object_object_add(o, "rank", json_object_new_int(q));
            json_object_object_add(o, "crc", json_object_new_string(crc));
            json_object_object_add(o, "outcome", json_object_new_string(cs->pass ? "PASS" : "FAIL"));
            json_object_object_add(o, "detail", json_object_new_string(cs->detail));
            json_object_array_add(res, o);
        }
        printf("%-40s", J.all[0].c[k].name);
        for (int q = 0; q < P && q < 8; q++)
            printf(" %08x ", J.all[q].c[k].crc);
        printf(" %s%s%s\n", ok ? "PASS" : "FAIL", ok ? "" : ": ", detail);
        ok ? pass++ : fail++;
    }
    printf("commcheck: %d cases, %d passed, %d failed\n", n, pass, fail);
    json_object_object_add(r, "results", res);
    json_object *counts = json_object_new_object();
    json_object_object_add(counts, "pass", json_object_new_int(pass));
    json_object_object_add(counts, "fail", json_object_new_int(fail));
    json_object_object_add(r, "counts", counts);
    json_object *sim = cli_backend_json(&b, &rep);
    if (sim)
        json_object_object_add(r, "sim", sim);
    rc = json ? cli_report_write(r, json) : 0;
    json_object_put(r);
    gnn_sim_report_free(&rep);
    free(J.all);
    return rc ? rc : fail ? CLI_FAIL : CLI_OK;
}
