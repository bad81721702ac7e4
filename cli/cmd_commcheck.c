/* cli/cmd_commcheck.c -- `gnnref commcheck`: every collective on fixed inputs, on the chosen
 * backend, checked bitwise against the expected outputs; one CRC32C per case and rank, so
 * that two backends can be compared (ci/mpi-check.sh compares sim with mpirun). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/backend.h"
#include "gnnref/commcheck.h"

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

typedef struct commcheck_opts {
    uint64_t seed;
    int inject; /* 0: none, else an index + 1 of k_inject */
    const char *json;
    cli_backend backend;
} commcheck_opts;

static const cli_choice k_inject[] = {
    { "mismatch", 1, 0 }, { "deadlock", 2, 0 }, { "modify", 3, 0 }, { "flip", 4, 0 },
    { "skip", 5, 0 },     { "late", 6, 0 },     { NULL, 0, 0 }
};
enum { INJECT_FLIP = 4, INJECT_SKIP = 5, INJECT_LATE = 6 };

static const cli_flag k_flags[] = {
    CLI_FLAG_SEED(commcheck_opts, seed, "seed of the inputs"),
    { .name = "inject", .type = CLI_CHOICE, CLI_AT(commcheck_opts, inject), .choices = k_inject,
      .help = "a deliberate bug the run must report, never hang on: mismatch, deadlock, modify (sim only); flip "
              "(sim only, flips a bit of every message: every one must be detected); skip (sim, or MPI with its "
              "bounded wait, GNN_MPI_WAIT_TIMEOUT); late (MPI only, 4 ranks or more: rank q posts an ialltoallv 3q s "
              "late; with GNN_MPI_WAIT_TIMEOUT=5 rank 0's wait must fail after 5 s naming rank 2: the bound is of "
              "the whole wait)" },
    CLI_FLAG_JSON(commcheck_opts, json, "write the report: per case and rank, the CRC32C and the outcome"),
    CLI_END
};

static const cli_group k_groups[] = {
    { k_flags, 0, NULL },
    { cli_backend_flags, offsetof(commcheck_opts, backend), CLI_BACKEND_TITLE },
    { NULL, 0, NULL }
};

static const cli_command k_cmd = {
    .name = "commcheck",
    .usage = "[flags]     (under MPI: mpirun -np P gnnref commcheck --backend mpi)",
    .preface = "Run every collective on keyed inputs on the chosen backend and check each output bitwise;\n"
               "one CRC32C per case and rank, so that two backends can be compared line by line.\n",
    .groups = k_groups,
};

/* Parse and check the flags; CLI_CONTINUE or the exit code. */
static int commcheck_options(int argc, char **argv, commcheck_opts *o, cli_args *a)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    cli_backend_defaults(&o->backend);
    int rc = cli_parse(&k_cmd, argc, argv, o, a);
    if (rc != CLI_CONTINUE)
        return rc;
    const cli_backend *b = &o->backend;
    if (b->kind != CLI_BACKEND_MPI && cli_report_check(o->json)) /* under MPI: rank 0, at the end */
        return CLI_USAGE;
    if ((rc = cli_backend_check(&o->backend, a)))
        return rc;
    /* under MPI only a skipped ialltoallv is reported (by the bounded wait); the other bugs
     * would leave ranks in MPI's blocking collectives, which have no bound */
    if (o->inject == INJECT_LATE && b->kind != CLI_BACKEND_MPI)
        return cli_error(CLI_USAGE, "--inject late needs --backend mpi: it checks the bound of MPI's asynchronous "
                                    "wait (GNN_MPI_WAIT_TIMEOUT)");
    if (o->inject && o->inject != INJECT_LATE && b->kind != CLI_BACKEND_SIM &&
        !(o->inject == INJECT_SKIP && b->kind == CLI_BACKEND_MPI))
        return cli_error(CLI_USAGE, "--inject needs --backend sim%s: under %s the injected %s would %s",
                         o->inject == INJECT_SKIP ? " or mpi" : "", b->kind == CLI_BACKEND_MPI ? "MPI" : "one rank",
                         k_inject[o->inject - 1].name,
                         b->kind == CLI_BACKEND_MPI ? "hang in a collective that has no bound" : "have no one to meet");
    if (o->inject && b->kind == CLI_BACKEND_SIM && b->sim.ranks < 2)
        return cli_error(CLI_USAGE, "--inject %s needs --ranks 2 or more: one rank has no one to disagree with",
                         k_inject[o->inject - 1].name);
    /* flip: every message of the run gets a bit flipped, unless --fault-flip says otherwise */
    if (o->inject == INJECT_FLIP && !cli_given(a, "fault-flip"))
        o->backend.sim.faults.flip_p = 1.0;
    return CLI_CONTINUE;
}

/* Rank 0: one line per case with every rank's CRC32C, and the report's "results". Returns the
 * failed cases. */
static int print_cases(const job *J, json_object *res)
{
    const int P = J->P, n = J->all[0].n;
    int fail = 0;
    printf("%-40s", "case");
    for (int q = 0; q < P && q < 8; q++)
        printf(" rank%-5d", q);
    printf(" result\n");
    for (int k = 0; k < n; k++) {
        int ok = 1;
        const char *detail = "";
        for (int q = 0; q < P; q++) {
            const gnn_commcheck_case *cs = &J->all[q].c[k];
            if (J->all[q].n != n || strcmp(cs->name, J->all[0].c[k].name)) {
                ok = 0;
                detail = "ranks ran different cases";
            } else if (!cs->pass) {
                ok = 0;
                detail = cs->detail;
            }
            json_object *o = json_object_new_object();
            char crc[16];
            snprintf(crc, sizeof crc, "%08x", cs->crc);
            json_object_object_add(o, "case", json_object_new_string(J->all[0].c[k].name));
            json_object_object_add(o, "rank", json_object_new_int(q));
            json_object_object_add(o, "crc", json_object_new_string(crc));
            json_object_object_add(o, "outcome", json_object_new_string(cs->pass ? "PASS" : "FAIL"));
            json_object_object_add(o, "detail", json_object_new_string(cs->detail));
            json_object_array_add(res, o);
        }
        printf("%-40s", J->all[0].c[k].name);
        for (int q = 0; q < P && q < 8; q++)
            printf(" %08x ", J->all[q].c[k].crc);
        printf(" %s%s%s\n", ok ? "PASS" : "FAIL", ok ? "" : ": ", detail);
        fail += !ok;
    }
    printf("commcheck: %d cases, %d passed, %d failed\n", n, n - fail, fail);
    return fail;
}

int gnn_cmd_commcheck(int argc, char **argv)
{
    commcheck_opts o;
    cli_args a;
    int rc = commcheck_options(argc, argv, &o, &a);
    if (rc != CLI_CONTINUE)
        return rc;
    const cli_backend *b = &o.backend;
    job J = { .seed = o.seed, .inject = o.inject ? k_inject[o.inject - 1].name : NULL };
    gnn_err err = { "" };
    gnn_sim_report rep;
    memset(&rep, 0, sizeof rep);
    gnn_status st = cli_backend_run(b, rank_fn, &J, &rep, &err);
    const gnn_sim_faults *F = &b->sim.faults;
    if (st && b->kind == CLI_BACKEND_SIM && (F->flip_p > 0 || F->drop_p > 0 || F->delay_p > 0))
        fprintf(stderr, "commcheck: faults injected: %lld bits flipped, %lld detected by CRC32C, %lld segments dropped, "
                        "%lld delayed\n",
                (long long)rep.faults_flipped, (long long)rep.faults_detected, (long long)rep.faults_dropped,
                (long long)rep.faults_delayed);
    if (st) {
        gnn_sim_report_free(&rep);
        free(J.all);
        return cli_error(CLI_FAIL, "commcheck: %s", cli_errmsg(&err, st));
    }
    if (!J.all) { /* an MPI rank other than 0: rank 0 reports */
        gnn_sim_report_free(&rep);
        return CLI_OK;
    }
    const int P = J.P;
    printf("commcheck: backend %s, %d rank%s, seed %llu\n", b->name, P, P > 1 ? "s" : "", (unsigned long long)J.seed);
    json_object *cfg, *r = cli_report_new("commcheck", J.seed, 1, b->name, P, &cfg);
    cli_config_json(cfg, &a, &o, b->kind == CLI_BACKEND_SIM ? 0 : CLI_TAG_SIM);
    json_object *res = json_object_new_array();
    const int fail = print_cases(&J, res);
    json_object_object_add(r, "results", res);
    json_object *counts = json_object_new_object();
    json_object_object_add(counts, "pass", json_object_new_int(J.all[0].n - fail));
    json_object_object_add(counts, "fail", json_object_new_int(fail));
    json_object_object_add(r, "counts", counts);
    json_object *sim = cli_backend_json(b, &rep);
    if (sim)
        json_object_object_add(r, "sim", sim);
    rc = o.json ? cli_report_write(r, o.json) : 0;
    json_object_put(r);
    gnn_sim_report_free(&rep);
    free(J.all);
    return rc ? rc : fail ? CLI_FAIL : CLI_OK;
}
