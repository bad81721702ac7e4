/* tests/test_dsample.c -- DistDGLv2's distributed sampling (include/gnnref/dsample.h,
 * docs/dist_sampling.md). The blocks against one machine's run from the registry (dsample.blocks, at
 * 1-5 and 8 simulated ranks); here: mutants that entry must catch (an owner drawing with its
 * local ids instead of the global ones; an owner dropping neighbours), a rank asked
 * for a vertex it does not own failing with a message instead of hanging, and the argument
 * checks. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/dataset.h"
#include "gnnref/dsample.h"
#include "gnnref/oracle.h"
#include "gnnref/partition.h"
#include "gnnref/sim.h"
#include "cli_util.h"

/* ---- mutants ---- */

/* the owner forgets rng_ids: it draws with the local id, not the vertex's global id */
static gnn_status local_keys_layer(void *state, const int64_t *seeds, int64_t n, const gnn_sample_params *p,
                                   gnn_block *out)
{
    gnn_sample_params q = *p;
    q.rng_ids = NULL;
    return gnn_sampler_ref.layer(state, seeds, n, &q, out);
}

/* the owner drops the last neighbour of every vertex that has two or more */
static gnn_status short_layer(void *state, const int64_t *seeds, int64_t n, const gnn_sample_params *p, gnn_block *out)
{
    gnn_status st = gnn_sampler_ref.layer(state, seeds, n, p, out);
    if (st)
        return st;
    int64_t w = 0;
    for (int64_t i = 0; i < out->n_dst; i++) {
        const int64_t lo = out->indptr[i], hi = out->indptr[i + 1];
        out->indptr[i] = w;
        for (int64_t e = lo; e < hi - (hi - lo >= 2); e++)
            out->indices[w++] = out->indices[e];
    }
    out->indptr[out->n_dst] = w;
    out->nnz = w;
    return GNN_OK;
}

static int run_entry(const gnn_dsample_tables *tables)
{
    const gnn_oracle_entry *e = gnn_oracle_find("dsample.blocks");
    ck_assert_ptr_nonnull(e);
    const gnn_oracle_impl impl = { .name = "mutant", .ops = tables };
    int fails = 0;
    for (int p = 0; e->presets[p]; p++) {
        gnn_oracle_case c;
        gnn_err err;
        ck_assert_int_eq(gnn_oracle_case_init(&c, e, &impl, 1, e->presets[p], 1, &err), GNN_OK);
        gnn_oracle_result r;
        fails += gnn_oracle_run(&c, &r) == GNN_ORACLE_FAIL;
    }
    return fails;
}

START_TEST(mutants_caught)
{
    gnn_sampler_ops local_keys = gnn_sampler_ref, shorter = gnn_sampler_ref; /* the reference, one op broken */
    local_keys.name = "local-keys", local_keys.layer = local_keys_layer, local_keys.blocks = NULL;
    shorter.name = "short", shorter.layer = short_layer, shorter.blocks = NULL;
    const gnn_dsample_tables m1 = { &local_keys, &gnn_idmap_ref }, m2 = { &shorter, &gnn_idmap_ref };
    const gnn_dsample_tables good = { &gnn_sampler_cpu, &gnn_idmap_cpu };
    ck_assert_msg(run_entry(&m1) > 0, "dsample.blocks passed an owner drawing with local ids");
    ck_assert_msg(run_entry(&m2) > 0, "dsample.blocks passed an owner dropping neighbours");
    ck_assert_int_eq(run_entry(&good), 0);
}
END_TEST

/* ---- a rank asked for a vertex it does not own ---- */

typedef struct bad_job {
    gnn_dataset ds;
    gnn_partition parts;
    int32_t *owner[2]; /* rank 1 believes in another part vector */
} bad_job;

static gnn_status bad_rank(gnn_comm *c, void *arg)
{
    bad_job *J = arg;
    gnn_dsampler *s = NULL;
    gnn_status st = gnn_dsampler_create(&s, &J->parts.parts[c->rank], J->owner[c->rank], J->ds.graph.n, 2, NULL,
                                        &gnn_sampler_ref, &gnn_idmap_ref, GNN_IDMAP_REF, &c->err);
    if (st)
        return st;
    const int64_t seeds[4] = { 0, 1, 2, 3 }, fan[2] = { 3, 3 };
    const gnn_sample_params base = { .seed = 1, .step = 0 };
    gnn_block b[2];
    memset(b, 0, sizeof b);
    st = gnn_dsample_blocks(s, c, seeds, 4, fan, 2, &base, b, NULL);
    gnn_block_free(&b[0]);
    gnn_block_free(&b[1]);
    gnn_dsampler_destroy(s);
    return st;
}

START_TEST(unowned_request_fails)
{
    bad_job J;
    memset(&J, 0, sizeof J);
    gnn_sbm_params p;
    gnn_sbm_defaults(&p);
    p.n = 64;
    p.num_features = 2;
    gnn_err err = { "" };
    ck_assert_int_eq(gnn_gen_sbm(&J.ds, &p, &err), GNN_OK);
    const int64_t n = J.ds.graph.n;
    J.owner[0] = malloc(sizeof(int32_t) * (size_t)n);
    J.owner[1] = malloc(sizeof(int32_t) * (size_t)n);
    for (int64_t v = 0; v < n; v++) {
        J.owner[0][v] = (int32_t)(v % 2);
        J.owner[1][v] = (int32_t)(1 - v % 2); /* wrong: rank 1 asks rank 0 for odd vertices */
    }
    ck_assert_int_eq(gnn_partition_build(&gnn_partition_ref, &J.parts, &J.ds.graph, NULL, J.owner[0], 2, &err), GNN_OK);
    gnn_sim_config cfg;
    gnn_sim_defaults(&cfg);
    cfg.ranks = 2;
    cfg.timeout_s = 20;
    const gnn_status st = gnn_sim_run(&cfg, bad_rank, &J, NULL, &err);
    ck_assert_int_ne(st, GNN_OK);
    ck_assert_msg(strstr(err.msg, "does not own") != NULL, "%s", err.msg);
    gnn_partition_free(&J.parts);
    free(J.owner[0]);
    free(J.owner[1]);
    gnn_dataset_free(&J.ds);
}
END_TEST

START_TEST(api_checks)
{
    gnn_dataset ds;
    gnn_sbm_params p;
    gnn_sbm_defaults(&p);
    p.n = 32;
    p.num_features = 2;
    gnn_err err = { "" };
    ck_assert_int_eq(gnn_gen_sbm(&ds, &p, &err), GNN_OK);
    int32_t *part = calloc((size_t)ds.graph.n, sizeof(int32_t));
    gnn_partition parts;
    ck_assert_int_eq(gnn_partition_build(&gnn_partition_ref, &parts, &ds.graph, NULL, part, 1, &err), GNN_OK);
    gnn_dsampler *s = NULL;
    const gnn_part_local *L = &parts.parts[0];
    ck_assert_int_eq(gnn_dsampler_create(NULL, L, part, ds.graph.n, 1, NULL, &gnn_sampler_ref, &gnn_idmap_ref,
                                         GNN_IDMAP_REF, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_dsampler_create(&s, NULL, part, ds.graph.n, 1, NULL, &gnn_sampler_ref, &gnn_idmap_ref,
                                         GNN_IDMAP_REF, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_dsampler_create(&s, L, part, ds.graph.n, 0, NULL, &gnn_sampler_ref, &gnn_idmap_ref,
                                         GNN_IDMAP_REF, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_dsampler_create(&s, L, part, ds.graph.n, 1, NULL, &gnn_sampler_ref, &gnn_idmap_ref,
                                         (gnn_idmap_kind)9, &err), GNN_ERR_INVAL);
    ck_assert_ptr_null(s);
    ck_assert_int_eq(gnn_dsampler_create(&s, L, part, ds.graph.n, 1, NULL, &gnn_sampler_cpu, &gnn_idmap_cpu,
                                         GNN_IDMAP_DENSE, &err), GNN_OK);
    gnn_comm *self = NULL;
    ck_assert_int_eq(gnn_comm_self(&self), GNN_OK);
    const int64_t fan[2] = { 2, 2 }, seeds[2] = { 0, 5 }, bad[1] = { 32 };
    const gnn_sample_params base = { .seed = 3 };
    gnn_block b[2];
    memset(b, 0, sizeof b);
    ck_assert_int_eq(gnn_dsample_blocks(s, self, seeds, 2, fan, 0, &base, b, NULL), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_dsample_blocks(s, self, bad, 1, fan, 2, &base, b, NULL), GNN_ERR_RANGE);
    ck_assert_int_eq(gnn_dsample_blocks(s, self, seeds, 2, fan, 2, &base, b, NULL), GNN_OK);
    /* one rank: the blocks of the whole graph */
    gnn_block w[2];
    memset(w, 0, sizeof w);
    ck_assert_int_eq(gnn_sample_blocks(&gnn_sampler_ref, &ds.graph, seeds, 2, fan, 2, &base, w), GNN_OK);
    for (int l = 0; l < 2; l++) {
        ck_assert_int_eq(b[l].n_src, w[l].n_src);
        ck_assert_int_eq(b[l].nnz, w[l].nnz);
        ck_assert(!memcmp(b[l].src_gid, w[l].src_gid, sizeof(int64_t) * (size_t)w[l].n_src));
        ck_assert(!memcmp(b[l].indices, w[l].indices, sizeof(int32_t) * (size_t)w[l].nnz));
        gnn_block_free(&b[l]);
        gnn_block_free(&w[l]);
    }
    gnn_comm_free(self);
    gnn_dsampler_destroy(s);
    gnn_partition_free(&parts);
    free(part);
    gnn_dataset_free(&ds);
}
END_TEST

/* ---- training: --sampling distributed gives fetch's blocks, so fetch's step losses ---- */

static char out[1 << 16];

START_TEST(training_equals_fetch)
{
    NEED_TOOL();
    static const char *const models[2] = { "sage --layernorm", "gat --heads 2" };
    static char a[1 << 20], b[1 << 20];
    for (int m = 0; m < 2; m++) {
        char args[1024];
        const char *common = "--data builtin --layers 2 --fanouts 4,6 --batch 200 --epochs 1 --hidden 8 --quiet "
                             "--backend sim --ranks 3 --eval-every 0";
        snprintf(args, sizeof args, "train %s --model %s --remote fetch --json %s", common, models[m], tmp("f.json"));
        ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
        snprintf(args, sizeof args, "train %s --model %s --sampling distributed --json %s", common, models[m],
                 tmp("d.json"));
        ck_assert_msg(tool(args, out, sizeof out) == 0, "%s: %s", args, out);
        cli_steps_text(tmp("f.json"), a, sizeof a);
        cli_steps_text(tmp("d.json"), b, sizeof b);
        ck_assert_msg(strlen(a) > 20 && !strcmp(a, b), "%s: distributed sampling's steps differ from fetch's",
                      models[m]);
    }
    expect_usage_error("train --data builtin --sampling distributed --remote hec", "--remote fetch", out, sizeof out);
    expect_usage_error("train --data builtin --mode fullbatch --parts 1 --sampling distributed", "--sampling",
                       out, sizeof out);
}
END_TEST

Suite *suite_dsample(void)
{
    Suite *s = suite_create("dsample");
    TCase *tc = tcase_create("dsample");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, mutants_caught);
    tcase_add_test(tc, unowned_request_fails);
    tcase_add_test(tc, api_checks);
    tcase_add_test(tc, training_equals_fetch);
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    suite_add_tcase(s, tc);
    return s;
}
