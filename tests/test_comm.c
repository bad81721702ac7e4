/* tests/test_comm.c -- the communicator wrappers and the self backend: argument checks,
 * the deterministic allreduce's expected output, commcheck on one rank, the traffic
 * accounting, and the CLI's backend flags. The multi-rank simulator has its own suite
 * (test_sim.c); sim vs MPI runs in ci/mpi-check.sh. */
#include <check.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "gnnref/commcheck.h"
#include "gnnref/comm.h"

static char out[1 << 16];

START_TEST(self_commcheck)
{
    gnn_comm *c = NULL;
    ck_assert_int_eq(gnn_comm_self(&c), GNN_OK);
    ck_assert_int_eq(gnn_comm_rank(c), 0);
    ck_assert_int_eq(gnn_comm_size(c), 1);
    gnn_commcheck_result r;
    ck_assert_int_eq(gnn_commcheck_run(c, 7, NULL, &r), GNN_OK);
    ck_assert_int_gt(r.n, 10);
    for (int k = 0; k < r.n; k++)
        ck_assert_msg(r.c[k].pass, "%s: %s", r.c[k].name, r.c[k].detail);
    /* one rank sends nothing to anyone */
    for (int i = 0; i < GNN_COMM_OP_COUNT; i++)
        ck_assert_int_eq(c->traffic.bytes[i], 0);
    ck_assert_int_gt(c->traffic.calls[GNN_COMM_ALLREDUCE], 5);
    gnn_comm_free(c);
    ck_assert_int_eq(gnn_comm_rank(NULL), 0);
    ck_assert_int_eq(gnn_comm_size(NULL), 1);
}
END_TEST

START_TEST(bad_arguments)
{
    gnn_comm *c = NULL;
    ck_assert_int_eq(gnn_comm_self(&c), GNN_OK);
    float x[4] = { 1, 2, 3, 4 };
    int32_t xi[4] = { 0 };
    int64_t neg[1] = { -1 }, one[1] = { 1 }, zero[1] = { 0 };
    ck_assert_int_eq(gnn_comm_bcast(c, x, 4, GNN_DT_F32, 1), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(gnn_comm_errmsg(c), "root 1"));
    ck_assert_int_eq(gnn_comm_bcast(c, x, 4, (gnn_dtype)99, 0), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_comm_allreduce(c, xi, xi, 4, GNN_DT_I32), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(gnn_comm_errmsg(c), "only f32 and f64"));
    ck_assert_int_eq(gnn_comm_allreduce(c, x, x, -1, GNN_DT_F32), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_comm_alltoallv(c, x, neg, zero, x, one, zero, GNN_DT_F32), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(gnn_comm_errmsg(c), "scounts[0] = -1"));
    ck_assert_int_eq(gnn_comm_alltoallv(c, x, one, zero, x, zero, zero, GNN_DT_F32), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_comm_allgatherv(c, x, 2, x, one, zero, GNN_DT_F32), GNN_ERR_INVAL);
    gnn_comm_req *req = NULL;
    ck_assert_int_eq(gnn_comm_ialltoallv(c, x, one, zero, GNN_DT_F32, GNN_COMM_MAX_TAG, &req), GNN_ERR_INVAL);
    ck_assert_ptr_null(req);
    /* waits on a tag must come in post order */
    gnn_comm_req *r0 = NULL, *r1 = NULL;
    const gnn_comm_seg *seg;
    int n;
    ck_assert_int_eq(gnn_comm_ialltoallv(c, x, one, zero, GNN_DT_F32, 3, &r0), GNN_OK);
    ck_assert_int_eq(gnn_comm_ialltoallv(c, x, one, zero, GNN_DT_F32, 3, &r1), GNN_OK);
    ck_assert_int_eq(gnn_comm_wait(c, r1, &seg, &n), GNN_ERR_COMM);
    ck_assert_int_eq(gnn_comm_wait(c, r0, &seg, &n), GNN_OK);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(seg[0].step, 0);
    ck_assert_int_eq(gnn_comm_wait(c, r1, &seg, &n), GNN_OK);
    ck_assert_int_eq(seg[0].step, 1);
    gnn_comm_req_free(c, r0);
    gnn_comm_req_free(c, r1);
    gnn_comm_free(c);
}
END_TEST

/* The expected allreduce is the rank-order sum, element by element: (x0 + x1) + x2. */
START_TEST(allreduce_expected_order)
{
    const float a[3] = { 1e8f, 1.0f, -3.0f }, b[3] = { 1.0f, 2.0f, 5.0f }, cc[3] = { -1e8f, 3.0f, 0.5f };
    const void *x[3] = { a, b, cc };
    float o[3];
    gnn_comm_allreduce_expected(x, 3, o, 3, GNN_DT_F32);
    ck_assert(o[0] == (1e8f + 1.0f) + -1e8f); /* 0: the 1 is lost in rank order */
    ck_assert(o[0] == 0.0f);
    ck_assert(o[1] == 6.0f);
    ck_assert(o[2] == 2.5f);
    char buf[128];
    gnn_comm_call call = { .op = GNN_COMM_BCAST, .dtype = GNN_DT_F64, .count = 5, .root = 2, .tag = -1, .seq = 9 };
    ck_assert_str_eq(gnn_comm_call_str(&call, buf, sizeof buf), "bcast(f64, count=5, root=2) [call #9]");
}
END_TEST

START_TEST(cli_backend_flags)
{
    NEED_TOOL();
    ck_assert_int_eq(tool("commcheck --json " "/dev/null", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "0 failed"));
    static const struct { const char *args, *says; } bad[] = {
        { "commcheck --backend tcp", "--backend 'tcp'" },
        { "commcheck --ranks 4", "--ranks applies to --backend sim" },
        { "commcheck --ranks 0 --backend sim", "--ranks '0'" },
        { "commcheck --alpha 1e-6", "--alpha applies to --backend sim" },
        { "commcheck --backend sim --fault-drop 2", "--fault-drop '2'" },
        { "commcheck --inject mismatch", "--inject needs --backend sim" },
        { "commcheck --inject skip", "--inject needs --backend sim or mpi" },
        { "commcheck --backend sim --ranks 1 --inject flip", "needs --ranks 2 or more" },
        { "commcheck --backend sim --inject nothing", "--inject 'nothing'" },
        { "commcheck --backend sim --inject deadlock", "needs --ranks 2 or more" },
        { "train --backend sim --fault-delay 0", "--fault-delay '0'" },
        { "train --ranks 2", "--ranks applies to --backend sim" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(tool(bad[i].args, out, sizeof out) == 2, "%s: expected exit 2", bad[i].args);
        ck_assert_msg(strstr(out, bad[i].says) != NULL, "%s: output lacks \"%s\": %s", bad[i].args, bad[i].says, out);
    }
}
END_TEST

static int64_t jint(json_object *o, const char *a, const char *b)
{
    json_object *x, *y;
    ck_assert_msg(json_object_object_get_ex(o, a, &x), "report lacks %s", a);
    if (!b)
        return json_object_get_int64(x);
    ck_assert_msg(json_object_object_get_ex(x, b, &y), "report lacks %s.%s", a, b);
    return json_object_get_int64(y);
}

/* A 3-rank simulated training run: the report carries backend, ranks, the traffic matrix
 * (which sums to the bytes the simulator copied) and the simulator's section. */
/* the deliberate bugs end quickly, with exit 1 and a message naming each rank's call */
START_TEST(cli_injected_bugs)
{
    NEED_TOOL();
    static const struct { const char *args, *says; } bug[] = {
        { "commcheck --backend sim --ranks 2 --inject mismatch", "rank 1 called allreduce(f32, count=4)" },
        { "commcheck --backend sim --ranks 3 --inject deadlock", "rank 2 blocked in wait(ialltoallv tag 3 step 0)" },
        { "commcheck --backend sim --ranks 2 --inject modify", "modified the send buffer" },
        /* a bit flipped in every message: all 2 P (P - 1) are detected (P async segments
         * discarded, then the blocking alltoallv stops the run naming both ranks) */
        { "commcheck --backend sim --ranks 3 --inject flip",
          "corrupted message: CRC32C mismatch in alltoallv from rank 0 to rank 1 (12 bytes" },
        { "commcheck --backend sim --ranks 3 --inject flip", "12 bits flipped, 12 detected by CRC32C" },
        { "commcheck --backend sim --ranks 4 --inject flip --fault-seed 9", "24 bits flipped, 24 detected by CRC32C" },
        /* a rank that skips a post: reported with the rank, never a hang */
        { "commcheck --backend sim --ranks 3 --inject skip",
          "rank 0 blocked in wait(ialltoallv tag 4 step 1) for rank 2; rank 1 blocked in wait(ialltoallv tag 4 step 1) "
          "for rank 2; rank 2 blocked in barrier" },
    };
    for (size_t i = 0; i < sizeof bug / sizeof bug[0]; i++) {
        ck_assert_msg(tool(bug[i].args, out, sizeof out) == 1, "%s: expected exit 1: %s", bug[i].args, out);
        ck_assert_msg(strstr(out, bug[i].says) != NULL, "%s: output lacks \"%s\": %s", bug[i].args, bug[i].says, out);
    }
}
END_TEST

START_TEST(cli_train_sim_report)
{
    NEED_TOOL();
    char args[1024];
    snprintf(args, sizeof args, "train --backend sim --ranks 3 --epochs 1 --batch 512 --quiet --json %s",
             tmp("sim.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    json_object *r = json_object_from_file(tmp("sim.json"));
    ck_assert_ptr_nonnull(r);
    json_object *v;
    ck_assert(json_object_object_get_ex(r, "backend", &v) && !strcmp(json_object_get_string(v), "sim"));
    ck_assert_int_eq(jint(r, "ranks", NULL), 3);
    const int64_t bytes = jint(r, "comm", "bytes");
    ck_assert_int_gt(bytes, 0);
    ck_assert_int_eq(bytes, jint(r, "sim", "bytes_moved_total"));
    json_object *comm, *mx, *mb;
    ck_assert(json_object_object_get_ex(r, "comm", &comm) && json_object_object_get_ex(comm, "matrix", &mx) &&
              json_object_object_get_ex(mx, "bytes", &mb));
    int64_t total = 0;
    for (int s = 0; s < 3; s++)
        for (int d = 0; d < 3; d++) {
            const int64_t b = json_object_get_int64(json_object_array_get_idx(json_object_array_get_idx(mb, s), d));
            ck_assert(s != d || b == 0);
            total += b;
        }
    ck_assert_int_eq(total, bytes);
    ck_assert_int_gt(jint(r, "comm", "messages"), 0);
    json_object *ep;
    ck_assert(json_object_object_get_ex(r, "epochs", &ep));
    ck_assert_int_gt(jint(json_object_array_get_idx(ep, 0), "comm_bytes", NULL), 0);
    json_object_put(r);
}
END_TEST

Suite *suite_comm(void)
{
    Suite *s = suite_create("comm");
    TCase *tc = tcase_create("cpu");
    tcase_set_tags(tc, "cpu");
    tcase_add_test(tc, self_commcheck);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, allreduce_expected_order);
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    tcase_add_test(tc, cli_backend_flags);
    tcase_add_test(tc, cli_injected_bugs);
    tcase_add_test(tc, cli_train_sim_report);
    suite_add_tcase(s, tc);
    return s;
}
