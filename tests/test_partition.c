/* tests/test_partition.c -- graph partitioning (include/gnnref/partition.h, docs/partitioning.md):
 * names and flag parsing, the metrics and the structure on a hand-made graph with known edge
 * cut and halos, the simple methods against their documented formulas, METIS determinism and
 * its error paths, the verifier and the bitwise entry catching wrong builders, the CLI's
 * errors and JSON report, and the Facebook acceptance figures (skipped when
 * ../shared/datasets is absent). The ref-vs-cpu oracle itself runs in tests/test_oracle.c
 * with every registry entry. */
#include <check.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gnnref/dataset.h"
#include "gnnref/oracle.h"
#include "gnnref/partition.h"
#include "gnnref/tensor.h"
#include "cli_util.h"
#include "thread_util.h"

/* ---- the hand-made graph -------------------------------------------------------------------------
 * Two triangles {0,1,2} and {3,4,5} joined by the undirected bridge 2-3, one directed edge
 * 0 -> 5 (in row 5 only) and a self-loop 4 -> 4. Rows are in-neighbors.
 *   row 0: 1 2      row 3: 2 4 5
 *   row 1: 0 2      row 4: 3 4 5
 *   row 2: 0 1 3    row 5: 0 3 4
 * With part = {0,0,0,1,1,1}: the symmetrized graph has 8 undirected edges (3 + 3 + bridge +
 * {0,5}; the self-loop is dropped), 2 of them cut. Halo of part 0 = {3} (2's in-neighbor);
 * part 1's = {0, 2} (in-neighbors of 5 and 3); vertex 5 is NOT a halo of part 0 (0 -> 5 is an
 * out-edge of 0). In-degrees 2,2,3 | 3,3,3: degree weights 7 and 9, imbalance 9/8. */
static const int64_t k_ptr[7] = { 0, 2, 4, 7, 10, 13, 16 };
static const int64_t k_idx[16] = { 1, 2, 0, 2, 0, 1, 3, 2, 4, 5, 3, 4, 5, 0, 3, 4 };

static gnn_csr tiny_graph(void)
{
    gnn_csr g = { .n = 6, .nnz = 16, .indptr = (int64_t *)k_ptr, .indices = (int64_t *)k_idx, .owns = 0 };
    return g;
}

START_TEST(names_and_parsing)
{
    for (int m = 0; m < GNN_PART_METHOD_COUNT; m++) {
        gnn_part_method back;
        ck_assert_int_eq(gnn_part_method_parse(gnn_part_method_name((gnn_part_method)m), &back), GNN_OK);
        ck_assert_int_eq(back, m);
    }
    gnn_part_method mm;
    ck_assert_int_eq(gnn_part_method_parse("metis2", &mm), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_part_method_parse(NULL, &mm), GNN_ERR_INVAL);
    unsigned b;
    gnn_err err;
    ck_assert_int_eq(gnn_part_balance_parse("degree,train", &b, &err), GNN_OK);
    ck_assert_uint_eq(b, GNN_BALANCE_TRAIN | GNN_BALANCE_DEGREE);
    ck_assert_int_eq(gnn_part_balance_parse("train,val,test,degree", &b, &err), GNN_OK);
    ck_assert_uint_eq(b, GNN_BALANCE_ALL);
    ck_assert_int_eq(gnn_part_balance_parse("train,edges", &b, &err), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "'edges'"));
    ck_assert_int_eq(gnn_part_balance_parse("val,val", &b, &err), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "twice"));
    ck_assert_int_eq(gnn_part_balance_parse("", &b, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_part_balance_parse("train,", &b, &err), GNN_ERR_INVAL);
    ck_assert_str_eq(gnn_part_constraint_name(0), "vertices");
    ck_assert_str_eq(gnn_part_constraint_name(GNN_BALANCE_DEGREE), "degree");
}
END_TEST

START_TEST(tiny_graph_metrics)
{
    gnn_csr g = tiny_graph();
    gnn_err err;
    ck_assert_int_eq(gnn_csr_validate(&g, &err), GNN_OK);
    const int32_t part[6] = { 0, 0, 0, 1, 1, 1 };
    const uint8_t split[6] = { GNN_SPLIT_TRAIN, GNN_SPLIT_TRAIN, GNN_SPLIT_VAL, GNN_SPLIT_TRAIN, GNN_SPLIT_TEST, 0 };
    gnn_part_quality q;
    ck_assert_int_eq(gnn_partition_quality(&g, split, part, 2, GNN_BALANCE_TRAIN | GNN_BALANCE_DEGREE, &q, &err), GNN_OK);
    ck_assert_int_eq(q.edges, 8);
    ck_assert_int_eq(q.edge_cut, 2);
    ck_assert_int_eq(q.solid[0], 3);
    ck_assert_int_eq(q.solid[1], 3);
    ck_assert_int_eq(q.halo[0], 1);
    ck_assert_int_eq(q.halo[1], 2);
    ck_assert_int_eq(q.halo_total, 3);
    ck_assert_double_eq_tol(q.halo_fraction, 3.0 / 9.0, 1e-15);
    ck_assert_int_eq(q.ncon, 2);
    ck_assert_uint_eq(q.con[0], GNN_BALANCE_TRAIN);
    ck_assert_uint_eq(q.con[1], GNN_BALANCE_DEGREE);
    ck_assert_int_eq(q.weight[0 * 2 + 0], 2); /* train in part 0: 0, 1 */
    ck_assert_int_eq(q.weight[1 * 2 + 0], 1); /* train in part 1: 3 */
    ck_assert_int_eq(q.weight[0 * 2 + 1], 7);
    ck_assert_int_eq(q.weight[1 * 2 + 1], 9);
    ck_assert_double_eq_tol(q.imbalance[0], 2.0 / 1.5, 1e-15);
    ck_assert_double_eq_tol(q.imbalance[1], 9.0 / 8.0, 1e-15);
    ck_assert_double_eq_tol(q.vertex_imbalance, 1.0, 1e-15);
    gnn_part_quality_free(&q);

    /* alternating parts: every edge but {0,2} and {3,5} and {1,3}... counted by hand:
     * undirected edges 0-1 0-2 1-2 3-4 3-5 4-5 2-3 0-5; parts 0 1 0 1 0 1: cut 0-1 1-2 3-4
     * 4-5 2-3 0-5 = 6. Halos: part 0 (0,2,4) gets 1 (row 0, 2), 3 (rows 2, 4), 5 (row 4) = 3;
     * part 1 (1,3,5) gets 0 (rows 1, 5), 2 (rows 1, 3), 4 (rows 3, 5) = 3. No constraint:
     * one unit column. */
    const int32_t alt[6] = { 0, 1, 0, 1, 0, 1 };
    ck_assert_int_eq(gnn_partition_quality(&g, NULL, alt, 2, 0, &q, &err), GNN_OK);
    ck_assert_int_eq(q.edge_cut, 6);
    ck_assert_int_eq(q.halo[0], 3);
    ck_assert_int_eq(q.halo[1], 3);
    ck_assert_int_eq(q.ncon, 1);
    ck_assert_uint_eq(q.con[0], 0);
    ck_assert_double_eq_tol(q.imbalance[0], 1.0, 1e-15);
    gnn_part_quality_free(&q);

    /* one part: nothing cut, no halo; an empty third part */
    const int32_t zero[6] = { 0, 0, 0, 0, 0, 0 };
    ck_assert_int_eq(gnn_partition_quality(&g, NULL, zero, 1, 0, &q, &err), GNN_OK);
    ck_assert_int_eq(q.edge_cut, 0);
    ck_assert_int_eq(q.halo_total, 0);
    ck_assert_double_eq(q.halo_fraction, 0.0);
    gnn_part_quality_free(&q);
    ck_assert_int_eq(gnn_partition_quality(&g, NULL, part, 3, 0, &q, &err), GNN_OK);
    ck_assert_int_eq(q.solid[2], 0);
    ck_assert_int_eq(q.halo[2], 0);
    ck_assert_double_eq_tol(q.imbalance[0], 3.0 / 2.0, 1e-15);
    gnn_part_quality_free(&q);

    /* bad input */
    const int32_t bad[6] = { 0, 0, 2, 1, 1, 1 };
    ck_assert_int_eq(gnn_partition_quality(&g, NULL, bad, 2, 0, &q, &err), GNN_ERR_RANGE);
    ck_assert_ptr_nonnull(strstr(err.msg, "vertex 2"));
    ck_assert_int_eq(gnn_partition_quality(&g, NULL, part, 2, GNN_BALANCE_TRAIN, &q, &err), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "no train/val/test split"));
    const uint8_t no_test[6] = { 1, 1, 1, 2, 2, 0 };
    ck_assert_int_eq(gnn_partition_quality(&g, no_test, part, 2, GNN_BALANCE_TEST, &q, &err), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "'test'"));
}
END_TEST

/* The structure of the hand-made graph, by both builders, every field spelled out. */
START_TEST(tiny_graph_structure)
{
    gnn_csr g = tiny_graph();
    const int32_t part[6] = { 0, 0, 0, 1, 1, 1 };
    const uint8_t split[6] = { GNN_SPLIT_TRAIN, GNN_SPLIT_TRAIN, GNN_SPLIT_VAL, GNN_SPLIT_TRAIN, GNN_SPLIT_TEST, 0 };
    const gnn_partition_ops *ops[2] = { &gnn_partition_ref, &gnn_partition_cpu };
    for (int i = 0; i < 2; i++) {
        gnn_partition P;
        gnn_err err;
        ck_assert_int_eq(gnn_partition_build(ops[i], &P, &g, split, part, 2, &err), GNN_OK);
        ck_assert_int_eq(gnn_partition_verify(&P, &g, split, part, 2, &err), GNN_OK);
        const gnn_part_local *a = &P.parts[0], *b = &P.parts[1];
        /* part 0: solid 0 1 2, halo 3 */
        ck_assert_int_eq(a->n_solid, 3);
        ck_assert_int_eq(a->n_halo, 1);
        const int64_t a_vid_o[4] = { 0, 1, 2, 3 }, a_ptr[5] = { 0, 2, 4, 7, 7 }, a_idx[7] = { 1, 2, 0, 2, 0, 1, 3 };
        const int64_t a_vid_p[6] = { 0, 1, 2, 3, -1, -1 };
        ck_assert_mem_eq(a->vid_o, a_vid_o, sizeof a_vid_o);
        ck_assert_mem_eq(a->vid_p, a_vid_p, sizeof a_vid_p);
        ck_assert_int_eq(a->graph.n, 4);
        ck_assert_int_eq(a->graph.nnz, 7);
        ck_assert_mem_eq(a->graph.indptr, a_ptr, sizeof a_ptr);
        ck_assert_mem_eq(a->graph.indices, a_idx, sizeof a_idx);
        ck_assert_int_eq(a->halo_owner[0], 1);
        ck_assert_int_eq(a->halo_owner_local[0], 0); /* 3 is local 0 on part 1 */
        ck_assert_int_eq(a->n_train, 2);
        ck_assert_int_eq(a->n_val, 1);
        ck_assert_int_eq(a->n_test, 0);
        ck_assert_int_eq(a->train[0], 0);
        ck_assert_int_eq(a->train[1], 1);
        ck_assert_int_eq(a->val[0], 2);
        /* part 1: solid 3 4 5 (local 0 1 2), halo 0 2 (local 3 4) */
        ck_assert_int_eq(b->n_solid, 3);
        ck_assert_int_eq(b->n_halo, 2);
        const int64_t b_vid_o[5] = { 3, 4, 5, 0, 2 }, b_vid_p[6] = { 3, -1, 4, 0, 1, 2 };
        const int64_t b_ptr[6] = { 0, 3, 6, 9, 9, 9 }, b_idx[9] = { 4, 1, 2, 0, 1, 2, 3, 0, 1 };
        ck_assert_mem_eq(b->vid_o, b_vid_o, sizeof b_vid_o);
        ck_assert_mem_eq(b->vid_p, b_vid_p, sizeof b_vid_p);
        ck_assert_mem_eq(b->graph.indptr, b_ptr, sizeof b_ptr);
        ck_assert_mem_eq(b->graph.indices, b_idx, sizeof b_idx);
        ck_assert_int_eq(b->halo_owner[0], 0);
        ck_assert_int_eq(b->halo_owner[1], 0);
        ck_assert_int_eq(b->halo_owner_local[0], 0);
        ck_assert_int_eq(b->halo_owner_local[1], 2);
        ck_assert_int_eq(b->n_train, 1);
        ck_assert_int_eq(b->train[0], 0);
        ck_assert_int_eq(b->n_test, 1);
        ck_assert_int_eq(b->test[0], 1);
        gnn_partition_free(&P);
        /* bad arguments */
        const int32_t bad[6] = { 0, 0, 0, 1, 1, 2 };
        ck_assert_int_eq(gnn_partition_build(ops[i], &P, &g, NULL, bad, 2, &err), GNN_ERR_RANGE);
        ck_assert_ptr_nonnull(strstr(err.msg, "vertex 5"));
        ck_assert_int_eq(gnn_partition_build(ops[i], &P, &g, NULL, part, 0, &err), GNN_ERR_INVAL);
        gnn_partition_free(&P); /* safe after an error */
    }
}
END_TEST

static uint64_t fmix64_doc(uint64_t x) /* the formula partition.h documents, written out again */
{
    x = (x ^ (x >> 33)) * 0xff51afd7ed558ccdull;
    x = (x ^ (x >> 33)) * 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

START_TEST(simple_methods)
{
    gnn_dataset ds;
    gnn_err err;
    ck_assert_int_eq(gnn_dataset_builtin(&ds, &err), GNN_OK);
    const int64_t n = ds.graph.n;
    int32_t *part = gnn_malloc((size_t)n * sizeof(int32_t)), *again = gnn_malloc((size_t)n * sizeof(int32_t));
    gnn_part_options o;
    gnn_part_defaults(&o);
    /* range: n = 20000 into 3 parts: [0, 6666), [6666, 13333), [13333, 20000) */
    o.method = GNN_PART_RANGE;
    o.k = 3;
    ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, part, NULL, &err), GNN_OK);
    for (int64_t v = 0; v < n; v++)
        ck_assert_int_eq(part[v], v < 6666 ? 0 : v < 13333 ? 1 : 2);
    /* hash: the documented formula; independent of the seed */
    o.method = GNN_PART_HASH;
    o.k = 7;
    ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, part, NULL, &err), GNN_OK);
    for (int64_t v = 0; v < n; v++)
        ck_assert_int_eq(part[v], (int32_t)(fmix64_doc((uint64_t)v) % 7));
    o.seed = 99;
    ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, again, NULL, &err), GNN_OK);
    ck_assert_mem_eq(part, again, (size_t)n * sizeof(int32_t));
    /* random: draw 0 of (seed, PARTITION, id v); the same at any thread count; seeds differ */
    o.method = GNN_PART_RANDOM;
    o.k = 5;
    o.seed = 3;
    ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, part, NULL, &err), GNN_OK);
    int64_t count[5] = { 0 };
    for (int64_t v = 0; v < n; v++) {
        const gnn_rng_stream s = gnn_rng_stream_make(3, GNN_TAG_PARTITION, 0, 0, (uint64_t)v);
        ck_assert_int_eq(part[v], (int32_t)gnn_rng_uint(&s, 0, 5));
        count[part[v]]++;
    }
    for (int p = 0; p < 5; p++) /* 4000 expected, sd ~57 */
        ck_assert_msg(count[p] > 3600 && count[p] < 4400, "part %d has %lld vertices", p, (long long)count[p]);
    const int old = gnn_oracle_set_threads(1);
    ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, again, NULL, &err), GNN_OK);
    gnn_oracle_set_threads(old);
    ck_assert_mem_eq(part, again, (size_t)n * sizeof(int32_t));
    o.seed = 4;
    ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, again, NULL, &err), GNN_OK);
    ck_assert_int_ne(memcmp(part, again, (size_t)n * sizeof(int32_t)), 0);
    /* k = 1: all zeros for every method, METIS not called */
    for (int m = 0; m < GNN_PART_METHOD_COUNT; m++) {
        gnn_part_info info;
        o.method = (gnn_part_method)m;
        o.k = 1;
        memset(part, 0x55, (size_t)n * sizeof(int32_t));
        ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, part, &info, &err), GNN_OK);
        for (int64_t v = 0; v < n; v++)
            ck_assert_int_eq(part[v], 0);
        ck_assert_int_eq(info.metis_called, 0);
    }
    /* k < 1, k > n: clear errors for every method */
    for (int m = 0; m < GNN_PART_METHOD_COUNT; m++) {
        o.method = (gnn_part_method)m;
        o.k = 0;
        ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, part, NULL, &err), GNN_ERR_INVAL);
        ck_assert_ptr_nonnull(strstr(err.msg, "at least 1"));
        o.k = n + 1;
        ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, part, NULL, &err), GNN_ERR_INVAL);
        ck_assert_ptr_nonnull(strstr(err.msg, "20001 parts for 20000 vertices"));
    }
    /* ldg: needs the implementation (the context's table), names the problem without it; ref
     * and cpu give the same bits at 1 and 2 threads, balanced within the capacity, and cut
     * fewer edges than hash on the built-in SBM (20 batches) */
    o.method = GNN_PART_LDG;
    o.k = 4;
    o.ops = NULL;
    ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, part, NULL, &err), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "ldg: no implementation"));
    o.ops = &gnn_partition_ref;
    o.ufactor = 0;
    ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, part, NULL, &err), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "ufactor 0"));
    o.ufactor = GNN_METIS_DEFAULT_UFACTOR;
    ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, part, NULL, &err), GNN_OK);
    for (int t = 1; t <= 2; t++) {
        const int was = gnn_oracle_set_threads(t);
        o.ops = &gnn_partition_cpu;
        ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, again, NULL, &err), GNN_OK);
        gnn_oracle_set_threads(was);
        ck_assert_mem_eq(part, again, (size_t)n * sizeof(int32_t));
    }
    gnn_part_quality q_ldg, q_hash;
    ck_assert_int_eq(gnn_partition_quality(&ds.graph, NULL, part, 4, 0, &q_ldg, &err), GNN_OK);
    o.method = GNN_PART_HASH;
    ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, again, NULL, &err), GNN_OK);
    ck_assert_int_eq(gnn_partition_quality(&ds.graph, NULL, again, 4, 0, &q_hash, &err), GNN_OK);
    ck_assert_msg(q_ldg.edge_cut < q_hash.edge_cut, "ldg cut %lld, hash %lld", (long long)q_ldg.edge_cut,
                  (long long)q_hash.edge_cut);
    ck_assert_msg(q_ldg.vertex_imbalance <= 1.03, "ldg vertex imbalance %g", q_ldg.vertex_imbalance);
    gnn_part_quality_free(&q_ldg);
    gnn_part_quality_free(&q_hash);
    gnn_free(part);
    gnn_free(again);
    gnn_dataset_free(&ds);
}
END_TEST

START_TEST(metis_deterministic)
{
    gnn_sbm_params sp;
    gnn_sbm_defaults(&sp);
    sp.n = 3000;
    sp.num_features = 0;
    sp.train = 0.5;
    sp.val = 0.25;
    sp.test = 0.25;
    gnn_dataset ds;
    gnn_err err;
    ck_assert_int_eq(gnn_gen_sbm(&ds, &sp, &err), GNN_OK);
    const int64_t n = ds.graph.n;
    int32_t *a = gnn_malloc((size_t)n * sizeof(int32_t)), *b = gnn_malloc((size_t)n * sizeof(int32_t));
    gnn_part_options o;
    gnn_part_defaults(&o);
    o.k = 4;
    o.seed = 7;
    o.balance = GNN_BALANCE_TRAIN | GNN_BALANCE_DEGREE;
    gnn_part_info ia, ib;
    ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, a, &ia, &err), GNN_OK);
    ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, b, &ib, &err), GNN_OK);
    ck_assert_mem_eq(a, b, (size_t)n * sizeof(int32_t)); /* same seed, same parts */
    ck_assert_int_eq(ia.metis_objval, ib.metis_objval);
    /* what was done is recorded */
    ck_assert_int_eq(ia.metis_called, 1);
    ck_assert_int_eq(ia.ncon, 2);
    ck_assert_uint_eq(ia.con[0], GNN_BALANCE_TRAIN);
    ck_assert_uint_eq(ia.con[1], GNN_BALANCE_DEGREE);
    ck_assert_str_eq(ia.metis_version, "5.1.0");
    int seen_seed = 0, seen_uf = 0;
    for (int i = 0; i < ia.n_opts; i++) {
        if (!strcmp(ia.opts[i].name, "seed"))
            seen_seed = ia.opts[i].value == 7;
        if (!strcmp(ia.opts[i].name, "ufactor"))
            seen_uf = ia.opts[i].value == GNN_METIS_DEFAULT_UFACTOR;
    }
    ck_assert(seen_seed && seen_uf);
    /* METIS's own edge cut equals ours (each undirected edge once) */
    gnn_part_quality q;
    ck_assert_int_eq(gnn_partition_quality(&ds.graph, ds.split, a, 4, o.balance, &q, &err), GNN_OK);
    ck_assert_int_eq(q.edge_cut, ia.metis_objval);
    ck_assert_int_eq(ia.metis_adjacency, 2 * q.edges);
    fprintf(stderr, "metis sbm n=3000 k=4 train,degree: cut %lld of %lld, imbalance %.4f %.4f\n", (long long)q.edge_cut,
            (long long)q.edges, q.imbalance[0], q.imbalance[1]);
    gnn_part_quality_free(&q);
    /* a split constraint without a split */
    ck_assert_int_eq(gnn_partition_assign(&ds.graph, NULL, &o, a, NULL, &err), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "--split"));
    /* a graph beyond 32-bit idx_t is refused before any array is read */
    gnn_csr huge = { .n = (int64_t)1 << 31, .nnz = 0, .indptr = NULL, .indices = NULL, .owns = 0 };
    o.balance = 0;
    ck_assert_int_eq(gnn_partition_assign(&huge, NULL, &o, a, NULL, &err), GNN_ERR_RANGE);
    ck_assert_msg(strstr(err.msg, "too large for this METIS build"), "%s", err.msg);
    /* a bad ufactor */
    o.ufactor = 0;
    ck_assert_int_eq(gnn_partition_assign(&ds.graph, NULL, &o, a, NULL, &err), GNN_ERR_INVAL);
    gnn_free(a);
    gnn_free(b);
    gnn_dataset_free(&ds);
}
END_TEST

/* ---- the verifier and the bitwise entry catch wrong structures --------------------------------- */

START_TEST(verifier_catches_corruption)
{
    gnn_sbm_params sp;
    gnn_sbm_defaults(&sp);
    sp.n = 500;
    sp.num_features = 0;
    gnn_dataset ds;
    gnn_err err;
    ck_assert_int_eq(gnn_gen_sbm(&ds, &sp, &err), GNN_OK);
    const int64_t n = ds.graph.n, k = 4;
    int32_t *part = gnn_malloc((size_t)n * sizeof(int32_t));
    gnn_part_options o;
    gnn_part_defaults(&o);
    o.method = GNN_PART_RANDOM;
    o.k = k;
    ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, part, NULL, &err), GNN_OK);
    gnn_partition P;
    ck_assert_int_eq(gnn_partition_build(&gnn_partition_cpu, &P, &ds.graph, ds.split, part, k, &err), GNN_OK);
    ck_assert_int_eq(gnn_partition_verify(&P, &ds.graph, ds.split, part, k, &err), GNN_OK);
    gnn_part_local *L = &P.parts[1];
    ck_assert_int_gt(L->n_halo, 2);
    ck_assert_int_gt(L->n_train, 1);
#define EXPECT_CAUGHT(what)                                                                           \
    do {                                                                                              \
        ck_assert_msg(gnn_partition_verify(&P, &ds.graph, ds.split, part, k, &err) == GNN_ERR_MISMATCH, \
                      "%s went unnoticed", what);                                                     \
        fprintf(stderr, "verify caught %s: %s\n", what, err.msg);                                     \
    } while (0)
    int64_t t;
    /* two halos swapped (and vid_p kept consistent): the order is wrong */
    const int64_t h0 = L->n_solid, h1 = L->n_solid + 1;
    t = L->vid_o[h0], L->vid_o[h0] = L->vid_o[h1], L->vid_o[h1] = t;
    L->vid_p[L->vid_o[h0]] = h0;
    L->vid_p[L->vid_o[h1]] = h1;
    EXPECT_CAUGHT("two halos swapped");
    t = L->vid_o[h0], L->vid_o[h0] = L->vid_o[h1], L->vid_o[h1] = t;
    L->vid_p[L->vid_o[h0]] = h0;
    L->vid_p[L->vid_o[h1]] = h1;
    ck_assert_int_eq(gnn_partition_verify(&P, &ds.graph, ds.split, part, k, &err), GNN_OK);
    /* one local edge pointing at another local vertex */
    int64_t e = 0;
    while (L->graph.indices[e] == L->graph.indices[e + 1])
        e++;
    t = L->graph.indices[e];
    L->graph.indices[e] = L->graph.indices[e + 1];
    EXPECT_CAUGHT("an edge with the wrong source");
    L->graph.indices[e] = t;
    /* vid_p not inverse */
    const int64_t gv = L->vid_o[0];
    L->vid_p[gv] = 1;
    EXPECT_CAUGHT("vid_p not the inverse of vid_o");
    L->vid_p[gv] = 0;
    /* a vertex that is neither solid nor halo mapped */
    int64_t other = 0;
    while (L->vid_p[other] != -1)
        other++;
    L->vid_p[other] = 0;
    EXPECT_CAUGHT("vid_p mapping a foreign vertex");
    L->vid_p[other] = -1;
    /* a halo's owner-local id off by one */
    L->halo_owner_local[0] ^= 1;
    EXPECT_CAUGHT("a wrong owner-local id");
    L->halo_owner_local[0] ^= 1;
    /* a halo dropped from the end (its row was empty) */
    L->n_halo--;
    L->graph.n--;
    EXPECT_CAUGHT("a missing halo");
    L->n_halo++;
    L->graph.n++;
    /* a train vertex dropped */
    L->n_train--;
    EXPECT_CAUGHT("a missing train vertex");
    L->n_train++;
    ck_assert_int_eq(gnn_partition_verify(&P, &ds.graph, ds.split, part, k, &err), GNN_OK);
    /* the verifier against another part vector: ownership */
    part[0] = (part[0] + 1) % (int32_t)k;
    EXPECT_CAUGHT("a structure built for another part vector");
#undef EXPECT_CAUGHT
    gnn_partition_free(&P);
    gnn_free(part);
    gnn_dataset_free(&ds);
}
END_TEST

/* Mutant builders: edges of one row reordered (a multiset that verify accepts and bitwise must
 * not), and one edge's source changed (both must fail). */
static gnn_status m_reorder(gnn_partition *out, const gnn_csr *g, const uint8_t *split, const int32_t *part, int64_t k,
                            gnn_err *err)
{
    gnn_status s = gnn_partition_build(&gnn_partition_cpu, out, g, split, part, k, err);
    for (int64_t p = 0; !s && p < out->k; p++) {
        gnn_csr *lg = &out->parts[p].graph;
        for (int64_t r = 0; r < out->parts[p].n_solid; r++) {
            int64_t *row = lg->indices + lg->indptr[r];
            const int64_t d = lg->indptr[r + 1] - lg->indptr[r];
            if (d >= 2 && row[0] != row[d - 1]) {
                const int64_t t = row[0];
                row[0] = row[d - 1];
                row[d - 1] = t;
                return s;
            }
        }
    }
    return s;
}
static gnn_status m_wrong_edge(gnn_partition *out, const gnn_csr *g, const uint8_t *split, const int32_t *part,
                               int64_t k, gnn_err *err)
{
    gnn_status s = gnn_partition_build(&gnn_partition_cpu, out, g, split, part, k, err);
    for (int64_t p = 0; !s && p < out->k; p++) {
        gnn_csr *lg = &out->parts[p].graph;
        if (lg->nnz > 0 && lg->n > 1) {
            lg->indices[lg->nnz - 1] = (lg->indices[lg->nnz - 1] + 1) % lg->n;
            return s;
        }
    }
    return s;
}
/* The reference's ldg with the last vertex's part moved to the next part: one wrong decision. */
static gnn_status m_ldg_moved(const gnn_csr *g, const int64_t *vwgt, int ncon, int64_t k, int ufactor, int32_t *part)
{
    gnn_status s = gnn_partition_ref.ldg(g, vwgt, ncon, k, ufactor, part);
    if (!s && g->n > 0)
        part[g->n - 1] = (int32_t)((part[g->n - 1] + 1) % k);
    return s;
}
static const gnn_partition_ops k_m_ldg_ops = { "ldg-moved", NULL, m_ldg_moved };
static const gnn_oracle_impl k_m_ldg = { .name = "cpu", .ops = &k_m_ldg_ops, .flags = GNN_ORACLE_THREADED };
static const gnn_partition_ops k_m_reorder_ops = { "reorder", m_reorder, NULL };
static const gnn_partition_ops k_m_wrong_ops = { "wrong-edge", m_wrong_edge, NULL };
static const gnn_oracle_impl k_m_reorder = { .name = "cpu", .ops = &k_m_reorder_ops, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl k_m_wrong = { .name = "cpu", .ops = &k_m_wrong_ops, .flags = GNN_ORACLE_THREADED };

static void run_mutant(const char *entry, const gnn_oracle_impl *impl, int counts[GNN_ORACLE_OUTCOME_COUNT],
                       char *first_fail, size_t cap)
{
    const gnn_oracle_entry *e = gnn_oracle_find(entry);
    ck_assert_ptr_nonnull(e);
    memset(counts, 0, GNN_ORACLE_OUTCOME_COUNT * sizeof(int));
    first_fail[0] = '\0';
    for (int p = 0; e->presets[p]; p++) {
        gnn_oracle_case c;
        gnn_err err;
        ck_assert_int_eq(gnn_oracle_case_init(&c, e, impl, test_threads(2), e->presets[p], 1, &err), GNN_OK);
        gnn_oracle_result r;
        const gnn_oracle_outcome o = gnn_oracle_run(&c, &r);
        counts[o]++;
        if (o == GNN_ORACLE_FAIL && !first_fail[0])
            snprintf(first_fail, cap, "%s\n%s", r.case_str, r.detail);
    }
}

START_TEST(oracle_entries_catch_mutants)
{
    int counts[GNN_ORACLE_OUTCOME_COUNT];
    char first[4096];
    run_mutant("partition.build", &k_m_reorder, counts, first, sizeof first);
    ck_assert_msg(counts[GNN_ORACLE_FAIL] > 0, "bitwise missed a reordered row");
    ck_assert_msg(strstr(first, "indices"), "%s", first);
    run_mutant("partition.verify", &k_m_reorder, counts, first, sizeof first);
    ck_assert_msg(counts[GNN_ORACLE_FAIL] == 0, "verify rejected a reordered row (a multiset): %s", first);
    run_mutant("partition.build", &k_m_wrong, counts, first, sizeof first);
    ck_assert_int_gt(counts[GNN_ORACLE_FAIL], 0);
    run_mutant("partition.verify", &k_m_wrong, counts, first, sizeof first);
    ck_assert_msg(counts[GNN_ORACLE_FAIL] > 0, "verify missed a wrong edge");
    ck_assert_msg(strstr(first, "local edge"), "%s", first);
    /* ldg: a wrong decision fails the bitwise comparison; with the mutant as the reference too,
     * the decision verifier alone must find it */
    run_mutant("partition.ldg", &k_m_ldg, counts, first, sizeof first);
    ck_assert_int_eq(counts[GNN_ORACLE_FAIL], gnn_oracle_n_presets(gnn_oracle_find("partition.ldg")));
    ck_assert_msg(strstr(first, "part") && strstr(first, "elements differ"), "%s", first);
    gnn_oracle_entry self = *gnn_oracle_find("partition.ldg");
    self.ref = &k_m_ldg;
    gnn_oracle_case c;
    gnn_oracle_result r;
    ck_assert_int_eq(gnn_oracle_case_init(&c, &self, &k_m_ldg, 1, self.presets[0], 1, NULL), GNN_OK);
    ck_assert_int_eq(gnn_oracle_run(&c, &r), GNN_ORACLE_FAIL);
    ck_assert_msg(strstr(r.detail, "the rule gives"), "%s", r.detail);
}
END_TEST

/* ---- the command line ----------------------------------------------------------------------------- */

START_TEST(cli_errors)
{
    NEED_TOOL();
    char out[8192];
    static const struct {
        const char *args, *needle;
    } bad[] = {
        { "partition builtin --parts 0", "at least 1 part" },
        { "partition builtin --parts -2", "at least 1 part" },
        { "partition builtin --parts 20001", "only 20000 vertices" },
        { "partition builtin --parts 4 --method kernighan", "--method 'kernighan'" },
        { "partition builtin --parts 4 --balance train,edges", "unknown constraint 'edges'" },
        { "partition builtin --parts 4 --balance degree,degree", "listed twice" },
        { "partition builtin --parts 4 --trainers 0", "--trainers" },
        { "partition --parts 4", "DATA is required" },
        { "partition builtin", "--parts K is required" },
        { "partition builtin --parts 4 --bogus", "unknown or incomplete flag" },
        { "partition builtin extra --parts 4", "unexpected argument 'extra'" },
        { "partition builtin --parts 4 --split 0.7,0.7,0", "--split" },
        { "partition builtin --parts 4 --balance test --split 0.5,0.5,0", "'test' has total weight 0" },
        { "partition /nonexistent/graph --parts 4", "nonexistent" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const int rc = tool(bad[i].args, out, sizeof out);
        ck_assert_msg(rc == 2, "`%s` exited %d (want 2):\n%s", bad[i].args, rc, out);
        ck_assert_msg(strstr(out, "gnnref: error: ") && strstr(out, bad[i].needle), "`%s`: want '%s' in:\n%s",
                      bad[i].args, bad[i].needle, out);
    }
    ck_assert_int_eq(tool("partition --help", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "--balance"));
}
END_TEST

START_TEST(cli_json_report)
{
    NEED_TOOL();
    char out[8192], args[1024];
    snprintf(args, sizeof args, "partition builtin --parts 4 --method metis --balance train,degree --seed 5 --json %s",
             tmp("p.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "edge cut:"));
    json_object *r = json_object_from_file(tmp("p.json"));
    ck_assert_ptr_nonnull(r);
    json_object *x;
    const char *keys[] = { "command", "version", "seed", "config", "threads", "backend", "ranks", "edge_cut",
                           "imbalance", "halo", "halo_fraction", "solid", "metis", NULL };
    for (int i = 0; keys[i]; i++)
        ck_assert_msg(json_object_object_get_ex(r, keys[i], &x), "key %s missing", keys[i]);
    ck_assert(json_object_object_get_ex(r, "command", &x));
    ck_assert_str_eq(json_object_get_string(x), "partition");
    ck_assert(json_object_object_get_ex(r, "halo", &x));
    ck_assert_int_eq((int)json_object_array_length(x), 4);
    int64_t halo_sum = 0;
    for (int p = 0; p < 4; p++)
        halo_sum += json_object_get_int64(json_object_array_get_idx(x, (size_t)p));
    ck_assert(json_object_object_get_ex(r, "imbalance", &x));
    json_object *imb;
    ck_assert(json_object_object_get_ex(x, "train", &imb));
    ck_assert(json_object_get_double(imb) >= 1.0);
    ck_assert(json_object_object_get_ex(x, "degree", &imb));
    ck_assert(json_object_get_double(imb) >= 1.0);
    ck_assert_int_eq(json_object_object_length(x), 2);
    ck_assert(json_object_object_get_ex(r, "halo_fraction", &x));
    const double hf = json_object_get_double(x);
    ck_assert_double_eq_tol(hf, (double)halo_sum / (20000.0 + (double)halo_sum), 1e-12);
    json_object *m, *opt;
    ck_assert(json_object_object_get_ex(r, "metis", &m));
    ck_assert(json_object_object_get_ex(m, "options", &opt));
    ck_assert(json_object_object_get_ex(opt, "seed", &x));
    ck_assert_int_eq(json_object_get_int(x), 5);
    ck_assert(json_object_object_get_ex(m, "objval", &x));
    const int64_t objval = json_object_get_int64(x);
    ck_assert(json_object_object_get_ex(r, "edge_cut", &x));
    ck_assert_int_eq(json_object_get_int64(x), objval);
    json_object_put(r);
    /* the same flags twice: the same report figures (METIS is deterministic for a seed) */
    snprintf(args, sizeof args, "partition builtin --parts 4 --method metis --balance train,degree --seed 5 --json %s",
             tmp("p2.json"));
    ck_assert_int_eq(tool(args, out, sizeof out), 0);
    json_object *r2 = json_object_from_file(tmp("p2.json"));
    ck_assert(json_object_object_get_ex(r2, "edge_cut", &x));
    ck_assert_int_eq(json_object_get_int64(x), objval);
    json_object_put(r2);
}
END_TEST

/* ---- Facebook: the acceptance figures of the issue ------------------------------------------------- */

static int open_facebook(gnn_dataset *ds, const char *what)
{
    const char *dir = "../shared/datasets/facebook";
    if (access(dir, R_OK) != 0) {
        fprintf(stderr, "SKIP %s: %s not found\n", what, dir);
        return 0;
    }
    gnn_err err;
    ck_assert_msg(gnn_dataset_open(ds, dir, &err) == GNN_OK, "%s", err.msg);
    /* "train = a seeded random 50%" */
    ck_assert_msg(gnn_dataset_split_random(ds, 0.5, 0.25, 0.25, 1, &err) == GNN_OK, "%s", err.msg);
    return 1;
}

/* K = 8, --balance train,degree, seed 1: METIS's edge cut <= 1/3 of hash's, imbalance <= 1.05
 * on each constraint. Deterministic for the seed: measured 27218 vs 149300 (0.18), imbalance
 * train 1.0296, degree 1.0300 (METIS's default ufactor 30 = 1.03 suffices). */
START_TEST(facebook_acceptance)
{
    gnn_dataset ds;
    if (!open_facebook(&ds, "facebook_acceptance"))
        return;
    const int64_t n = ds.graph.n;
    int32_t *pm = gnn_malloc((size_t)n * sizeof(int32_t)), *ph = gnn_malloc((size_t)n * sizeof(int32_t));
    gnn_part_options o;
    gnn_part_defaults(&o);
    o.k = 8;
    o.seed = 1;
    o.balance = GNN_BALANCE_TRAIN | GNN_BALANCE_DEGREE;
    gnn_err err;
    ck_assert_msg(gnn_partition_assign(&ds.graph, ds.split, &o, pm, NULL, &err) == GNN_OK, "%s", err.msg);
    o.method = GNN_PART_HASH;
    ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, ph, NULL, &err), GNN_OK);
    gnn_part_quality qm, qh;
    ck_assert_int_eq(gnn_partition_quality(&ds.graph, ds.split, pm, 8, o.balance, &qm, &err), GNN_OK);
    ck_assert_int_eq(gnn_partition_quality(&ds.graph, ds.split, ph, 8, o.balance, &qh, &err), GNN_OK);
    fprintf(stderr,
            "facebook k=8 train,degree: metis cut %lld, hash cut %lld (ratio %.4f); metis imbalance train %.4f degree "
            "%.4f; halo fraction metis %.4f hash %.4f\n",
            (long long)qm.edge_cut, (long long)qh.edge_cut, (double)qm.edge_cut / (double)qh.edge_cut,
            qm.imbalance[0], qm.imbalance[1], qm.halo_fraction, qh.halo_fraction);
    ck_assert_msg(3 * qm.edge_cut <= qh.edge_cut, "metis cut %lld > 1/3 of hash's %lld", (long long)qm.edge_cut,
                  (long long)qh.edge_cut);
    for (int c = 0; c < qm.ncon; c++)
        ck_assert_msg(qm.imbalance[c] <= 1.05, "%s imbalance %.4f > 1.05", gnn_part_constraint_name(qm.con[c]),
                      qm.imbalance[c]);
    gnn_part_quality_free(&qm);
    gnn_part_quality_free(&qh);
    gnn_free(pm);
    gnn_free(ph);
    gnn_dataset_free(&ds);
}
END_TEST

/* The structure on Facebook for METIS, range and hash parts, K = 2, 4, 8: cpu equals ref bit
 * for bit and passes the verifier. */
START_TEST(facebook_structure)
{
    gnn_dataset ds;
    if (!open_facebook(&ds, "facebook_structure"))
        return;
    const int64_t n = ds.graph.n;
    int32_t *part = gnn_malloc((size_t)n * sizeof(int32_t));
    static const gnn_part_method methods[3] = { GNN_PART_METIS, GNN_PART_RANGE, GNN_PART_HASH };
    for (int mi = 0; mi < 3; mi++)
        for (int64_t k = 2; k <= 8; k *= 2) {
            gnn_part_options o;
            gnn_part_defaults(&o);
            o.method = methods[mi];
            o.k = k;
            o.balance = GNN_BALANCE_TRAIN | GNN_BALANCE_DEGREE;
            gnn_err err;
            ck_assert_msg(gnn_partition_assign(&ds.graph, ds.split, &o, part, NULL, &err) == GNN_OK, "%s", err.msg);
            gnn_partition R, C;
            ck_assert_int_eq(gnn_partition_build(&gnn_partition_ref, &R, &ds.graph, ds.split, part, k, &err), GNN_OK);
            ck_assert_int_eq(gnn_partition_build(&gnn_partition_cpu, &C, &ds.graph, ds.split, part, k, &err), GNN_OK);
            ck_assert_msg(gnn_partition_verify(&C, &ds.graph, ds.split, part, k, &err) == GNN_OK, "%s k=%lld: %s",
                          gnn_part_method_name(o.method), (long long)k, err.msg);
            for (int64_t p = 0; p < k; p++) {
                const gnn_part_local *a = &R.parts[p], *b = &C.parts[p];
                const int64_t nl = a->n_solid + a->n_halo;
                ck_assert_int_eq(a->n_solid, b->n_solid);
                ck_assert_int_eq(a->n_halo, b->n_halo);
                ck_assert_int_eq(a->graph.nnz, b->graph.nnz);
                ck_assert_int_eq(a->n_train, b->n_train);
                ck_assert_mem_eq(a->vid_o, b->vid_o, (size_t)nl * 8);
                ck_assert_mem_eq(a->vid_p, b->vid_p, (size_t)n * 8);
                ck_assert_mem_eq(a->graph.indptr, b->graph.indptr, (size_t)(nl + 1) * 8);
                ck_assert_mem_eq(a->graph.indices, b->graph.indices, (size_t)a->graph.nnz * 8);
                ck_assert_mem_eq(a->halo_owner, b->halo_owner, (size_t)a->n_halo * 4);
                ck_assert_mem_eq(a->halo_owner_local, b->halo_owner_local, (size_t)a->n_halo * 8);
                ck_assert_mem_eq(a->train, b->train, (size_t)a->n_train * 8);
            }
            gnn_partition_free(&R);
            gnn_partition_free(&C);
        }
    gnn_free(part);
    gnn_dataset_free(&ds);
}
END_TEST

Suite *suite_partition(void)
{
    Suite *s = suite_create("partition");
    TCase *tc = tcase_create("cpu");
    tcase_set_tags(tc, "cpu");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    tcase_add_test(tc, names_and_parsing);
    tcase_add_test(tc, tiny_graph_metrics);
    tcase_add_test(tc, tiny_graph_structure);
    tcase_add_test(tc, simple_methods);
    tcase_add_test(tc, metis_deterministic);
    tcase_add_test(tc, verifier_catches_corruption);
    tcase_add_test(tc, oracle_entries_catch_mutants);
    tcase_add_test(tc, cli_errors);
    tcase_add_test(tc, cli_json_report);
    tcase_add_test(tc, facebook_acceptance);
    tcase_add_test(tc, facebook_structure);
    suite_add_tcase(s, tc);
    return s;
}
