/* tests/test_halo.c -- db_halo (include/gnnref/halo.h) and the feature store
 * (include/gnnref/kvstore.h), SPMD under the simulator.
 *
 * db_halo: a hand-made graph whose tables are worked out by hand below, on 2 and 3 ranks, by
 * both builders; the errors every rank must agree on (more parts than ranks, a rank passing
 * another rank's part, parts of different partitions, a missing part), none of which may
 * hang; the verifier and the oracle entry catching wrong tables. kvstore: pulls on 1..4 ranks
 * bitwise against the full matrix, the byte counters exact for a known request (and equal to
 * the simulator's accounting), bad ids (the failing rank names the id, the others the rank,
 * and the store still works afterwards), bad create arguments. The ref-vs-cpu oracle on
 * generated graphs runs in tests/test_oracle.c with every registry entry.
 *
 * Rank functions run on the simulator's threads, where Check's assertions must not be used:
 * they store what they got, and the test asserts after the run. */
#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/halo.h"
#include "gnnref/kvstore.h"
#include "gnnref/oracle.h"
#include "gnnref/partition.h"
#include "gnnref/sim.h"
#include "gnnref/tensor.h"
#include "cli_util.h"
#include "thread_util.h"

#define MAXP 8

/* The hand-made graph of tests/test_partition.c: two triangles {0,1,2}, {3,4,5}, the bridge
 * 2-3, the directed edge 0 -> 5 and a self-loop 4 -> 4. Rows are in-neighbors:
 *   row 0: 1 2      row 3: 2 4 5
 *   row 1: 0 2      row 4: 3 4 5
 *   row 2: 0 1 3    row 5: 0 3 4 */
static const int64_t k_ptr[7] = { 0, 2, 4, 7, 10, 13, 16 };
static const int64_t k_idx[16] = { 1, 2, 0, 2, 0, 1, 3, 2, 4, 5, 3, 4, 5, 0, 3, 4 };

static gnn_csr tiny_graph(void)
{
    gnn_csr g = { .n = 6, .nnz = 16, .indptr = (int64_t *)k_ptr, .indices = (int64_t *)k_idx, .owns = 0 };
    return g;
}

static gnn_sim_config config(int P)
{
    gnn_sim_config cfg;
    gnn_sim_defaults(&cfg);
    cfg.ranks = P;
    cfg.timeout_s = 30;
    return cfg;
}

/* ---- db_halo on the hand-made graph ------------------------------------------------------ */

typedef struct db_job {
    const gnn_db_halo_ops *ops;
    const gnn_part_local *parts[MAXP]; /* what each rank passes */
    int64_t n;
    gnn_db_halo t[MAXP];
    gnn_status st[MAXP];
    char msg[MAXP][256];
} db_job;

static gnn_status db_rank(gnn_comm *c, void *arg)
{
    db_job *J = arg;
    const int r = gnn_comm_rank(c);
    gnn_err err = { "" };
    J->st[r] = gnn_db_halo_build(J->ops, c, J->parts[r], J->n, &J->t[r], &err);
    snprintf(J->msg[r], sizeof J->msg[r], "%s", err.msg);
    return GNN_OK; /* the test looks at every rank's status */
}

static void db_run(db_job *J, int P)
{
    gnn_sim_config cfg = config(P);
    gnn_err err = { "" };
    ck_assert_msg(gnn_sim_run(&cfg, db_rank, J, NULL, &err) == GNN_OK, "%s", err.msg);
}

/* Run the builder on P's parts, one per rank, on the 6-vertex tiny graph. */
static void db_run_parts(db_job *J, const gnn_db_halo_ops *ops, gnn_partition *P, int ranks)
{
    memset(J, 0, sizeof *J);
    J->ops = ops;
    J->n = 6;
    for (int r = 0; r < ranks; r++)
        J->parts[r] = &P->parts[r];
    db_run(J, ranks);
}

static void db_free(db_job *J)
{
    for (int r = 0; r < MAXP; r++)
        gnn_db_halo_free(&J->t[r]);
}

static void expect_table(const gnn_db_halo *t, int64_t P, const int64_t *off, const int64_t *solid)
{
    ck_assert_int_eq(t->ranks, P);
    for (int64_t r = 0; r <= P; r++)
        ck_assert_msg(t->off[r] == off[r], "off[%lld] = %lld, expected %lld", (long long)r, (long long)t->off[r],
                      (long long)off[r]);
    for (int64_t i = 0; i < off[P]; i++)
        ck_assert_msg(t->solid[i] == solid[i], "solid[%lld] = %lld, expected %lld", (long long)i,
                      (long long)t->solid[i], (long long)solid[i]);
}

static const gnn_db_halo_ops *const k_builders[2] = { &gnn_db_halo_ref, &gnn_db_halo_cpu };

START_TEST(tiny_tables)
{
    const gnn_db_halo_ops *ops = k_builders[_i];
    gnn_csr g = tiny_graph();
    gnn_err err;

    /* 2 parts {0,1,2} | {3,4,5}: part 0's halo is 3 (local 0 on part 1); part 1's halos are 0
     * and 2 (locals 0 and 2 on part 0). So rank 0 pushes solids 0, 2 to rank 1; rank 1 pushes
     * solid 0 (vertex 3) to rank 0. */
    const int32_t part2[6] = { 0, 0, 0, 1, 1, 1 };
    gnn_partition P2;
    ck_assert_int_eq(gnn_partition_build(&gnn_partition_ref, &P2, &g, NULL, part2, 2, &err), GNN_OK);
    db_job J;
    db_run_parts(&J, ops, &P2, 2);
    for (int r = 0; r < 2; r++) {
        ck_assert_msg(J.st[r] == GNN_OK, "%s rank %d: %s", ops->name, r, J.msg[r]);
        ck_assert_int_eq(gnn_db_halo_verify(&P2, r, &J.t[r], &err), GNN_OK);
    }
    const int64_t off20[3] = { 0, 0, 2 }, sol20[2] = { 0, 2 }, off21[3] = { 0, 1, 1 }, sol21[1] = { 0 };
    expect_table(&J.t[0], 2, off20, sol20);
    expect_table(&J.t[1], 2, off21, sol21);
    ck_assert_uint_ne(gnn_db_halo_crc(&J.t[0]), gnn_db_halo_crc(&J.t[1]));
    db_free(&J);

    /* 3 parts {0,1} | {2,3} | {4,5}: halos: part 0 {2}; part 1 {0, 1, 4, 5}; part 2 {0, 3}.
     *   rank 0 (solid 0, 1):  to 1: 0, 1   to 2: 0 (vertex 0)
     *   rank 1 (solid 2, 3):  to 0: 0 (vertex 2)   to 2: 1 (vertex 3)
     *   rank 2 (solid 4, 5):  to 1: 0, 1 */
    const int32_t part3[6] = { 0, 0, 1, 1, 2, 2 };
    gnn_partition P3;
    ck_assert_int_eq(gnn_partition_build(&gnn_partition_ref, &P3, &g, NULL, part3, 3, &err), GNN_OK);
    db_run_parts(&J, ops, &P3, 3);
    for (int r = 0; r < 3; r++) {
        ck_assert_msg(J.st[r] == GNN_OK, "%s rank %d: %s", ops->name, r, J.msg[r]);
        ck_assert_int_eq(gnn_db_halo_verify(&P3, r, &J.t[r], &err), GNN_OK);
    }
    const int64_t off30[4] = { 0, 0, 2, 3 }, sol30[3] = { 0, 1, 0 };
    const int64_t off31[4] = { 0, 1, 1, 2 }, sol31[2] = { 0, 1 };
    const int64_t off32[4] = { 0, 0, 2, 2 }, sol32[2] = { 0, 1 };
    expect_table(&J.t[0], 3, off30, sol30);
    expect_table(&J.t[1], 3, off31, sol31);
    expect_table(&J.t[2], 3, off32, sol32);

    /* the verifier catches a wrong entry, a missing one and a self row */
    J.t[0].solid[1] = 0;
    ck_assert_int_eq(gnn_db_halo_verify(&P3, 0, &J.t[0], &err), GNN_ERR_MISMATCH);
    ck_assert_ptr_nonnull(strstr(err.msg, "row 1"));
    J.t[0].solid[1] = 1;
    J.t[0].off[3] = 2; /* drop the entry to rank 2 */
    ck_assert_int_eq(gnn_db_halo_verify(&P3, 0, &J.t[0], &err), GNN_ERR_MISMATCH);
    ck_assert_ptr_nonnull(strstr(err.msg, "missing"));
    J.t[0].off[3] = 3;
    J.t[0].off[1] = 1; /* rank 0's own row: one entry */
    ck_assert_int_eq(gnn_db_halo_verify(&P3, 0, &J.t[0], &err), GNN_ERR_MISMATCH);
    ck_assert_ptr_nonnull(strstr(err.msg, "itself"));
    J.t[0].off[1] = 0;
    ck_assert_int_eq(gnn_db_halo_verify(&P3, 0, &J.t[0], &err), GNN_OK);
    ck_assert_int_eq(gnn_db_halo_verify(&P2, 0, &J.t[0], &err), GNN_ERR_MISMATCH); /* 3 ranks, 2 parts */
    db_free(&J);
    gnn_partition_free(&P2);
    gnn_partition_free(&P3);
}
END_TEST

/* Every rank must fail, none may hang: `want[r]` is rank r's status, `needle[r]` a piece of its message. */
static void expect_all_fail(db_job *J, int P, const gnn_status *want, const char *const *needle)
{
    db_run(J, P);
    for (int r = 0; r < P; r++) {
        ck_assert_msg(J->st[r] == want[r], "%s rank %d: status %s (%s), expected %s", J->ops->name, r,
                      gnn_status_str(J->st[r]), J->msg[r], gnn_status_str(want[r]));
        ck_assert_msg(strstr(J->msg[r], needle[r]) != NULL, "%s rank %d: message '%s' lacks '%s'", J->ops->name, r,
                      J->msg[r], needle[r]);
        ck_assert_ptr_null(J->t[r].off);
    }
}

START_TEST(db_halo_errors)
{
    const gnn_db_halo_ops *ops = k_builders[_i];
    gnn_csr g = tiny_graph();
    gnn_err err;
    const int32_t part3[6] = { 0, 0, 1, 1, 2, 2 }, partA[6] = { 0, 0, 0, 1, 1, 1 }, partB[6] = { 0, 0, 1, 1, 1, 1 };
    gnn_partition P3, PA, PB;
    ck_assert_int_eq(gnn_partition_build(&gnn_partition_ref, &P3, &g, NULL, part3, 3, &err), GNN_OK);
    ck_assert_int_eq(gnn_partition_build(&gnn_partition_ref, &PA, &g, NULL, partA, 2, &err), GNN_OK);
    ck_assert_int_eq(gnn_partition_build(&gnn_partition_ref, &PB, &g, NULL, partB, 2, &err), GNN_OK);
    db_job J;

    /* 3 parts on 2 ranks: rank 1 has halos owned by rank 2 */
    memset(&J, 0, sizeof J);
    J.ops = ops;
    J.n = 6;
    J.parts[0] = &P3.parts[0];
    J.parts[1] = &P3.parts[1];
    {
        const gnn_status want[2] = { GNN_ERR_INVAL, GNN_ERR_RANGE };
        const char *const needle[2] = { "rank 1", "more parts than there are ranks" };
        expect_all_fail(&J, 2, want, needle);
    }
    /* a rank passing another rank's part */
    memset(&J, 0, sizeof J);
    J.ops = ops;
    J.n = 6;
    J.parts[0] = &PA.parts[1];
    J.parts[1] = &PA.parts[1];
    {
        const gnn_status want[2] = { GNN_ERR_INVAL, GNN_ERR_INVAL };
        const char *const needle[2] = { "was given part 1", "rank 0" };
        expect_all_fail(&J, 2, want, needle);
    }
    /* parts of two different partitions: 3 + 4 solid vertices for a 6-vertex graph */
    memset(&J, 0, sizeof J);
    J.ops = ops;
    J.n = 6;
    J.parts[0] = &PA.parts[0];
    J.parts[1] = &PB.parts[1];
    {
        const gnn_status want[2] = { GNN_ERR_INVAL, GNN_ERR_INVAL };
        const char *const needle[2] = { "own 7 of the 6", "own 7 of the 6" };
        expect_all_fail(&J, 2, want, needle);
    }
    /* a rank with no part at all (NULL), on 3 ranks */
    memset(&J, 0, sizeof J);
    J.ops = ops;
    J.n = 6;
    J.parts[0] = &P3.parts[0];
    J.parts[1] = NULL;
    J.parts[2] = &P3.parts[2];
    {
        const gnn_status want[3] = { GNN_ERR_INVAL, GNN_ERR_INVAL, GNN_ERR_INVAL };
        const char *const needle[3] = { "(first: rank 1)", "me is NULL", "(first: rank 1)" };
        expect_all_fail(&J, 3, want, needle);
    }
    /* a halo whose owner field names the wrong rank. ref (Algorithm 1: every rank scans every
     * halo list) never reads the field and builds the right tables; cpu sends each id to the
     * owner the field names, so that rank receives an id it does not hold as a solid vertex and
     * says so, while the others finish (the exchange is complete by then) */
    ck_assert_int_gt(P3.parts[0].n_halo, 0);
    {
        int32_t *own = &P3.parts[0].halo_owner[0];
        const int32_t right = *own, wrong = 3 - right; /* right is 1 or 2: the other of the two */
        ck_assert(right == 1 || right == 2);
        *own = wrong;
        db_run_parts(&J, ops, &P3, 3);
        const int routed = ops == &gnn_db_halo_cpu;
        for (int r = 0; r < 3; r++) {
            const gnn_status want = routed && r == wrong ? GNN_ERR_INVAL : GNN_OK;
            ck_assert_msg(J.st[r] == want, "%s rank %d: %s (%s), expected %s", ops->name, r, gnn_status_str(J.st[r]),
                          J.msg[r], gnn_status_str(want));
        }
        if (routed) {
            ck_assert_msg(strstr(J.msg[wrong], "rank 0 says vertex") && strstr(J.msg[wrong], "inconsistent partition"),
                          "%s: %s", ops->name, J.msg[wrong]);
            ck_assert_ptr_null(J.t[wrong].off);
        }
        *own = right;
        for (int r = 0; !routed && r < 3; r++) /* ref: the tables of the right owner field */
            ck_assert_msg(gnn_db_halo_verify(&P3, r, &J.t[r], &err) == GNN_OK, "rank %d: %s", r, err.msg);
        db_free(&J);
    }
    /* no communicator: the one error returned without communicating */
    gnn_db_halo t;
    ck_assert_int_eq(gnn_db_halo_build(ops, NULL, &PA.parts[0], 6, &t, &err), GNN_ERR_INVAL);
    ck_assert_ptr_null(t.off);
    gnn_partition_free(&P3);
    gnn_partition_free(&PA);
    gnn_partition_free(&PB);
}
END_TEST

/* A wrong builder the oracle must reject: ref's table with the last entry of the last
 * non-empty row dropped (a halo whose embedding would never be pushed). */
static gnn_status drop_last(gnn_comm *c, const gnn_part_local *me, int64_t n, const int64_t *n_halo_all,
                            gnn_db_halo *out, gnn_err *err)
{
    gnn_status st = gnn_db_halo_ref.build_agreed(c, me, n, n_halo_all, out, err);
    if (!st && out->off[out->ranks] > 0)
        for (int64_t r = out->ranks - 1; r >= 0; r--)
            if (out->off[r + 1] > out->off[r]) {
                for (int64_t q = r + 1; q <= out->ranks; q++)
                    out->off[q]--;
                break;
            }
    return st;
}

START_TEST(oracle_catches_mutant)
{
    static const gnn_db_halo_ops mutant_ops = { "drop-last", drop_last };
    const gnn_oracle_impl mutant = { .name = "cpu", .ops = &mutant_ops, .flags = 0 };
    const gnn_oracle_entry *e = gnn_oracle_find("partition.db_halo");
    ck_assert_ptr_nonnull(e);
    gnn_oracle_case c;
    gnn_err err;
    ck_assert_int_eq(gnn_oracle_case_init(&c, e, &mutant, 0, "gen=1,scale=8,ef=6,ranks=3,method=2,dim=0,m=0", 1, &err),
                     GNN_OK);
    gnn_oracle_result r;
    ck_assert_int_eq(gnn_oracle_run(&c, &r), GNN_ORACLE_FAIL);
    ck_assert_msg(strstr(r.detail, "rank[0].off") != NULL, "%s", r.detail);
    /* and the real one passes the same case (on 2 threads where the build has them) */
    ck_assert_int_eq(gnn_oracle_case_init(&c, e, gnn_oracle_find_impl(e, "cpu"), test_threads(2),
                                          "gen=1,scale=8,ef=6,ranks=3,method=2,dim=0,m=0", 1, &err),
                     GNN_OK);
    ck_assert_msg(gnn_oracle_run(&c, &r) == GNN_ORACLE_PASS, "%s", r.detail);
}
END_TEST

/* ---- kvstore ------------------------------------------------------------------------------ */

enum { KV_N = 10, KV_DIM = 3, KV_MAXM = 16 };

typedef struct kv_job {
    int32_t part[KV_N];
    float feat[KV_N * KV_DIM];
    int64_t ids[MAXP][KV_MAXM];
    int64_t m[MAXP];
    float out[MAXP][KV_MAXM * KV_DIM];
    gnn_status st[MAXP], st2[MAXP];
    char msg[MAXP][256];
    gnn_kv_stats last[MAXP], total[MAXP];
    int retry; /* after the first pull, pull the ids again with ids[r][0] (a good id) only */
} kv_job;

static gnn_status kv_rank(gnn_comm *c, void *arg)
{
    kv_job *J = arg;
    const int r = gnn_comm_rank(c);
    gnn_kvstore kv;
    gnn_err err = { "" };
    gnn_status st = gnn_kvstore_create_from_full(&kv, c, KV_N, J->part, KV_DIM, J->feat, &err);
    if (st)
        return gnn_err_set(&c->err, st, "%s", err.msg);
    J->st[r] = gnn_kvstore_pull(&kv, J->ids[r], J->m[r], J->out[r], &err);
    snprintf(J->msg[r], sizeof J->msg[r], "%s", err.msg);
    J->last[r] = kv.last;
    if (J->retry) {
        const int64_t good = 5;
        J->st2[r] = gnn_kvstore_pull(&kv, &good, 1, J->out[r], &err);
    }
    J->total[r] = kv.total;
    gnn_kvstore_free(&kv);
    return GNN_OK;
}

static void kv_fill(kv_job *J, int P)
{
    memset(J, 0, sizeof *J);
    for (int v = 0; v < KV_N; v++) {
        J->part[v] = (int32_t)((v * 7 + 3) % P);
        for (int j = 0; j < KV_DIM; j++)
            J->feat[v * KV_DIM + j] = (float)v + 0.125f * (float)j - 100.0f;
    }
}

/* P = 1..4: each rank pulls a list with repeats, its own ids and everyone else's; rank 1 pulls
 * nothing. */
START_TEST(kvstore_pull_ranks)
{
    const int P = _i;
    kv_job J;
    kv_fill(&J, P);
    for (int r = 0; r < P; r++) {
        J.m[r] = r == 1 ? 0 : KV_MAXM - r;
        for (int64_t i = 0; i < J.m[r]; i++)
            J.ids[r][i] = (i * 3 + r) % KV_N; /* 16 ids over 10 vertices: repeats */
    }
    gnn_sim_config cfg = config(P);
    gnn_sim_report rep;
    gnn_err err = { "" };
    ck_assert_msg(gnn_sim_run(&cfg, kv_rank, &J, &rep, &err) == GNN_OK, "%s", err.msg);
    int64_t counted = 0, moved = 0;
    for (int r = 0; r < P; r++) {
        ck_assert_msg(J.st[r] == GNN_OK, "rank %d: %s", r, J.msg[r]);
        for (int64_t i = 0; i < J.m[r]; i++)
            ck_assert_msg(memcmp(J.out[r] + i * KV_DIM, J.feat + J.ids[r][i] * KV_DIM, sizeof(float) * KV_DIM) == 0,
                          "P=%d rank %d: row %lld (id %lld) differs", P, r, (long long)i, (long long)J.ids[r][i]);
        int64_t own = 0;
        for (int64_t i = 0; i < J.m[r]; i++)
            own += J.part[J.ids[r][i]] == r;
        ck_assert_int_eq(J.last[r].rows_local, own);
        ck_assert_int_eq(J.last[r].rows_remote, J.m[r] - own);
        ck_assert_int_eq(J.last[r].bytes_rows_received, (J.m[r] - own) * KV_DIM * 4);
        counted += J.last[r].bytes_header_sent + J.last[r].bytes_ids_sent + J.last[r].bytes_rows_sent;
    }
    for (int i = 0; i < P * P; i++)
        moved += rep.bytes[(size_t)GNN_COMM_ALLTOALLV * P * P + (size_t)i];
    ck_assert_int_eq(counted, moved);
    gnn_sim_report_free(&rep);
}
END_TEST

/* The exact bytes of a known request. 2 ranks, n = 10, part[v] = (7v + 3) mod 2: rank 0 owns
 * the odd vertices, rank 1 the even ones. Rank 0 pulls 4, 1, 4, 6, 3: local 1 and 3 (2 rows),
 * remote 4, 4, 6 (3 rows, repeats sent as asked). Rank 1 pulls 5: one remote row. */
START_TEST(kvstore_bytes_exact)
{
    kv_job J;
    kv_fill(&J, 2);
    const int64_t ids0[5] = { 4, 1, 4, 6, 3 };
    memcpy(J.ids[0], ids0, sizeof ids0);
    J.m[0] = 5;
    J.ids[1][0] = 5;
    J.m[1] = 1;
    gnn_sim_config cfg = config(2);
    gnn_sim_report rep;
    gnn_err err = { "" };
    ck_assert_msg(gnn_sim_run(&cfg, kv_rank, &J, &rep, &err) == GNN_OK, "%s", err.msg);
    const gnn_kv_stats *a = &J.last[0], *b = &J.last[1];
    ck_assert_int_eq(a->ids, 5);
    ck_assert_int_eq(a->rows_local, 2);
    ck_assert_int_eq(a->rows_remote, 3);
    ck_assert_int_eq(a->rows_served, 1);
    ck_assert_int_eq(a->bytes_header_sent, 16);
    ck_assert_int_eq(a->bytes_ids_sent, 24);
    ck_assert_int_eq(a->bytes_ids_received, 8);
    ck_assert_int_eq(a->bytes_rows_sent, 12);
    ck_assert_int_eq(a->bytes_rows_received, 36);
    ck_assert_int_eq(b->rows_local, 0);
    ck_assert_int_eq(b->rows_remote, 1);
    ck_assert_int_eq(b->rows_served, 3);
    ck_assert_int_eq(b->bytes_ids_sent, 8);
    ck_assert_int_eq(b->bytes_rows_sent, 36);
    ck_assert_int_eq(b->bytes_rows_received, 12);
    ck_assert_int_eq(a->calls, 1);
    ck_assert_int_eq(J.total[0].calls, 1);
    /* the communicator's accounting: rank 0 -> 1: header 16 + ids 24 + rows 12 = 52;
     * rank 1 -> 0: 16 + 8 + 36 = 60; 3 alltoallv messages each way */
    const size_t base = (size_t)GNN_COMM_ALLTOALLV * 4;
    ck_assert_int_eq(rep.bytes[base + 0 * 2 + 1], 52);
    ck_assert_int_eq(rep.bytes[base + 1 * 2 + 0], 60);
    ck_assert_int_eq(rep.msgs[base + 0 * 2 + 1], 3);
    ck_assert_int_eq(rep.msgs[base + 1 * 2 + 0], 3);
    for (int64_t i = 0; i < 5; i++)
        ck_assert_mem_eq(J.out[0] + i * KV_DIM, J.feat + ids0[i] * KV_DIM, sizeof(float) * KV_DIM);
    gnn_sim_report_free(&rep);
}
END_TEST

/* A bad id on rank 2 of 3: rank 2 gets GNN_ERR_RANGE naming the id, the others
 * GNN_ERR_RANGE naming rank 2; nothing but the header moves; the next pull works. */
START_TEST(kvstore_bad_id)
{
    kv_job J;
    kv_fill(&J, 3);
    for (int r = 0; r < 3; r++) {
        J.m[r] = 3;
        J.ids[r][0] = 5;
        J.ids[r][1] = r;
        J.ids[r][2] = 9 - r;
    }
    J.ids[2][1] = KV_N; /* one past the end */
    J.retry = 1;
    gnn_sim_config cfg = config(3);
    gnn_sim_report rep;
    gnn_err err = { "" };
    ck_assert_msg(gnn_sim_run(&cfg, kv_rank, &J, &rep, &err) == GNN_OK, "%s", err.msg);
    for (int r = 0; r < 3; r++) {
        ck_assert_int_eq(J.st[r], GNN_ERR_RANGE);
        ck_assert_msg(strstr(J.msg[r], r == 2 ? "ids[1] = 10 is outside [0, 10)" : "rank 2's request is invalid"),
                      "rank %d: %s", r, J.msg[r]);
        ck_assert_int_eq(J.last[r].bytes_ids_sent, 0);
        ck_assert_int_eq(J.last[r].bytes_rows_received, 0);
        ck_assert_int_eq(J.last[r].bytes_header_sent, 32);
        ck_assert_msg(J.st2[r] == GNN_OK, "rank %d: the pull after the failed one: %s", r, gnn_status_str(J.st2[r]));
        ck_assert_mem_eq(J.out[r], J.feat + 5 * KV_DIM, sizeof(float) * KV_DIM);
        ck_assert_int_eq(J.total[r].calls, 2);
    }
    gnn_sim_report_free(&rep);
}
END_TEST

typedef struct kv_create_job {
    int32_t part[MAXP][6];
    gnn_status st[MAXP];
    char msg[MAXP][256];
} kv_create_job;

static gnn_status kv_create_rank(gnn_comm *c, void *arg)
{
    kv_create_job *J = arg;
    const int r = gnn_comm_rank(c);
    float feat[6 * 2] = { 0 };
    gnn_kvstore kv;
    gnn_err err = { "" };
    J->st[r] = gnn_kvstore_create_from_full(&kv, c, 6, J->part[r], 2, feat, &err);
    snprintf(J->msg[r], sizeof J->msg[r], "%s", err.msg);
    gnn_kvstore_free(&kv);
    return GNN_OK;
}

START_TEST(kvstore_create_errors)
{
    kv_create_job J;
    gnn_sim_config cfg = config(2);
    gnn_err err = { "" };
    /* a part value beyond the ranks: every rank sees it */
    memset(&J, 0, sizeof J);
    const int32_t three[6] = { 0, 1, 2, 0, 1, 0 };
    memcpy(J.part[0], three, sizeof three);
    memcpy(J.part[1], three, sizeof three);
    ck_assert_msg(gnn_sim_run(&cfg, kv_create_rank, &J, NULL, &err) == GNN_OK, "%s", err.msg);
    for (int r = 0; r < 2; r++) {
        ck_assert_int_eq(J.st[r], GNN_ERR_RANGE);
        ck_assert_ptr_nonnull(strstr(J.msg[r], "part[2] = 2"));
    }
    /* different part vectors on the two ranks */
    memset(&J, 0, sizeof J);
    const int32_t a[6] = { 0, 1, 0, 1, 0, 1 }, b[6] = { 1, 0, 0, 1, 0, 1 };
    memcpy(J.part[0], a, sizeof a);
    memcpy(J.part[1], b, sizeof b);
    ck_assert_msg(gnn_sim_run(&cfg, kv_create_rank, &J, NULL, &err) == GNN_OK, "%s", err.msg);
    for (int r = 0; r < 2; r++) {
        ck_assert_int_eq(J.st[r], GNN_ERR_INVAL);
        ck_assert_msg(strstr(J.msg[r], "different partition books"), "rank %d: %s", r, J.msg[r]);
    }
}
END_TEST

/* ---- gnnref partcheck ---------------------------------------------------------------------- */

/* The db_halo lines of a partcheck output (everything from "db_halo rank 0" to the kvstore lines). */
static void db_lines(const char *out, char *lines, size_t cap)
{
    const char *a = strstr(out, "db_halo rank 0:"), *b = a ? strstr(a, "kvstore rank 0:") : NULL;
    ck_assert_msg(a && b, "no db_halo/kvstore lines in:\n%s", out);
    ck_assert_uint_lt((size_t)(b - a), cap);
    memcpy(lines, a, (size_t)(b - a));
    lines[b - a] = '\0';
}

START_TEST(partcheck_cli)
{
    NEED_TOOL();
    static char out[16384], a[8192], b[8192];
    char args[1024];
    /* 3 simulated ranks, range parts: ref and cpu print the same tables; rows exact */
    snprintf(args, sizeof args, "partcheck builtin --method range --backend sim --ranks 3 --pulls 2 --pull-ids 300 "
                                "--impl ref --json %s", tmp("ref.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    db_lines(out, a, sizeof a);
    ck_assert_ptr_nonnull(strstr(out, "kvstore rank 2: pulls 2 rows 600 remote"));
    ck_assert_ptr_nonnull(strstr(out, "exact yes"));
    ck_assert_ptr_null(strstr(out, "exact no"));
    snprintf(args, sizeof args, "partcheck builtin --method range --backend sim --ranks 3 --pulls 2 --pull-ids 300 "
                                "--impl cpu --json %s", tmp("cpu.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    db_lines(out, b, sizeof b);
    ck_assert_str_eq(a, b);
    ck_assert_ptr_nonnull(strstr(a, "db_halo rank 1: to r0 "));
    ck_assert_ptr_nonnull(strstr(a, ", to r1 0, to r2 "));
    /* the reports: common keys, per-rank figures; cpu sends fewer db_halo bytes than ref at 3 ranks */
    json_object *r1 = json_object_from_file(tmp("ref.json")), *r2 = json_object_from_file(tmp("cpu.json")), *x, *y;
    ck_assert_ptr_nonnull(r1);
    ck_assert_ptr_nonnull(r2);
    static const char *const keys[] = { "command", "version", "seed", "config", "threads", "backend", "ranks",
                                        "db_halo", "kvstore", "comm", "ranks_detail" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        ck_assert_msg(json_object_object_get_ex(r2, keys[i], &x), "no key %s", keys[i]);
    ck_assert(json_object_object_get_ex(r1, "db_halo", &x) && json_object_object_get_ex(r2, "db_halo", &y));
    json_object *e1, *e2, *b1, *b2;
    ck_assert(json_object_object_get_ex(x, "entries", &e1) && json_object_object_get_ex(y, "entries", &e2));
    ck_assert_int_eq(json_object_get_int64(e1), json_object_get_int64(e2));
    ck_assert(json_object_object_get_ex(x, "bytes_sent", &b1) && json_object_object_get_ex(y, "bytes_sent", &b2));
    ck_assert_int_lt(json_object_get_int64(b2), json_object_get_int64(b1));
    ck_assert(json_object_object_get_ex(r2, "kvstore", &x) && json_object_object_get_ex(x, "exact", &y));
    ck_assert(json_object_get_boolean(y));
    json_object_put(r1);
    json_object_put(r2);
    /* bad usage */
    ck_assert_int_eq(tool("partcheck builtin --impl fast", out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "--impl 'fast'"));
    ck_assert_int_eq(tool("partcheck /nonexistent/data", out, sizeof out), 2);
    ck_assert_int_eq(tool("partcheck builtin --ranks 2", out, sizeof out), 2); /* --ranks needs --backend sim */
}
END_TEST

Suite *suite_halo(void)
{
    Suite *s = suite_create("halo");
    TCase *tc = tcase_create("db_halo");
    tcase_set_tags(tc, "cpu sim");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, tiny_tables, 0, 2);
    tcase_add_loop_test(tc, db_halo_errors, 0, 2);
    tcase_add_test(tc, oracle_catches_mutant);
    suite_add_tcase(s, tc);
    TCase *tk = tcase_create("kvstore");
    tcase_set_tags(tk, "cpu sim");
    tcase_set_timeout(tk, 60);
    tcase_add_loop_test(tk, kvstore_pull_ranks, 1, 5);
    tcase_add_test(tk, kvstore_bytes_exact);
    tcase_add_test(tk, kvstore_bad_id);
    tcase_add_test(tk, kvstore_create_errors);
    suite_add_tcase(s, tk);
    TCase *tl = tcase_create("partcheck");
    tcase_set_tags(tl, "cpu sim");
    tcase_set_timeout(tl, 60);
    tcase_add_checked_fixture(tl, NULL, cli_cleanup);
    tcase_add_test(tl, partcheck_cli);
    suite_add_tcase(s, tl);
    return s;
}
