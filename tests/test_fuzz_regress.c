/* tests/test_fuzz_regress.c -- one test per finding of the fuzzers (fuzz/, docs/fuzzing.md,
 * "Findings"): each input is the smallest that shows it, written inline, and each test failed
 * on the code before the fix. */
#include <check.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "data_util.h" /* the temporary directory fixture, write_text, contains */
#include "gnnref/dataset.h"

/* Finding 1 (core/io/import_text.c): meta.txt's num_nodes x num_features was allocated and scanned
 * whatever features.txt held; 1000 x 1000000 over empty files took 25 s and 3.9 GB. Here
 * 1000 x 20000 (2 x 10^7 cells, 80 MB before the fix) over an empty features.txt. */
START_TEST(text_feature_cells_are_a_claim)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s", tmp_path("claim"));
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    write_text(tmp_path("claim/meta.txt"), "num_nodes 1000\nnum_features 20000\n");
    write_text(tmp_path("claim/edges.txt"), "0 1\n");
    write_text(tmp_path("claim/features.txt"), "0 5 1.5\n");
    gnn_dataset ds;
    gnn_err err = { { 0 } };
    gnn_status st = gnn_import_text(&ds, dir, NULL, &err);
    if (st == GNN_OK)
        gnn_dataset_free(&ds);
    ck_assert_int_eq(st, GNN_ERR_RANGE);
    ck_assert_msg(contains(err.msg, "meta.txt") && contains(err.msg, "feature cells") &&
                      contains(err.msg, "1 entries in features.txt"),
                  "%s", err.msg);
    /* the same claim paid for by entries is taken: 16 x 2^20 cells from 2^14 entries */
    char meta[128];
    snprintf(meta, sizeof meta, "num_nodes 16\nnum_features %d\n", 1 << 20);
    write_text(tmp_path("claim/meta.txt"), meta);
    FILE *f = fopen(tmp_path("claim/features.txt"), "w");
    ck_assert_ptr_nonnull(f);
    for (int v = 0; v < 16; v++)
        for (int j = 0; j < 1024; j++)
            fprintf(f, "%d %d 1\n", v, j * 1024);
    ck_assert_int_eq(fclose(f), 0);
    st = gnn_import_text(&ds, dir, NULL, &err);
    ck_assert_msg(st == GNN_OK, "%s", err.msg);
    ck_assert_int_eq(ds.num_features, 1 << 20);
    gnn_dataset_free(&ds);
}
END_TEST

/* Finding 2 (core/io/format.c): a version-2 file (CSR features) pays for its entries only, but the
 * loader allocated and filled the dense view of n x f from the header's f: 1.5 KB with
 * f = 50,000,000 took 14 s and 2.35 GB. Here 12 x 2,000,000 (96 MB before the fix), with
 * valid CRCs. */
START_TEST(csr_feature_cells_are_a_claim)
{
    gnn_sbm_params sp;
    gnn_sbm_defaults(&sp);
    sp.n = 12;
    sp.classes = 3;
    sp.num_features = 4;
    gnn_dataset ds;
    gnn_err err = { { 0 } };
    ck_assert_msg(gnn_gen_sbm(&ds, &sp, &err) == GNN_OK, "%s", err.msg);
    ck_assert_msg(gnn_dataset_set_feat_storage(&ds, GNN_FEAT_STORE_CSR, &err) == GNN_OK, "%s", err.msg);
    const char *path = tmp_path("csr.gnn");
    ck_assert_msg(gnn_dataset_save(&ds, path, &err) == GNN_OK, "%s", err.msg);
    gnn_dataset_free(&ds);
    blob b = read_blob(path);
    ck_assert_uint_eq(le32(b.p + GNN_HDR_OFF_VERSION), GNN_FORMAT_VERSION_CSR);
    const uint64_t wide = 2000000;
    for (int i = 0; i < 8; i++)
        b.p[GNN_HDR_OFF_NUM_FEATURES + i] = (unsigned char)(wide >> (8 * i));
    put_le32(b.p + GNN_HDR_OFF_CRC, gnn_crc32c(0, b.p, GNN_HDR_OFF_CRC));
    write_blob(path, b, b.len);
    gnn_status st = gnn_dataset_load(&ds, path, &err);
    if (st == GNN_OK)
        gnn_dataset_free(&ds);
    ck_assert_int_eq(st, GNN_ERR_RANGE);
    ck_assert_msg(contains(err.msg, "feat_ptr") && contains(err.msg, "cells"), "%s", err.msg);
}
END_TEST

/* Finding 3 (core/io/import_ogb_hetero.c): the rows of featureless types are zeros that no file
 * pays for, but n x width was allocated from the first node-feat.csv: one 10 KB row and a type
 * claiming 100000 featureless vertices made 100001 x 5000 cells, 2 GB, 26 s. Here one row of
 * 200 values and 100000 featureless vertices (2 x 10^7 cells, 80 MB before the fix). */
START_TEST(hetero_featureless_cells_are_a_claim)
{
    static const char *const dirs[] = { "mag", "mag/raw", "mag/raw/relations", "mag/raw/relations/b___r___b",
                                        "mag/raw/node-feat", "mag/raw/node-feat/b" };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        ck_assert_int_eq(mkdir(tmp_path(dirs[i]), 0700), 0);
    write_text(tmp_path("mag/raw/num-node-dict.csv"), "a,b\n100000,1\n");
    write_text(tmp_path("mag/raw/triplet-type-list.csv"), "b,r,b\n");
    write_text(tmp_path("mag/raw/relations/b___r___b/edge.csv"), "0,0\n");
    char row[1024] = "1";
    for (int j = 1; j < 200; j++)
        strcat(row, ",1");
    strcat(row, "\n");
    write_text(tmp_path("mag/raw/node-feat/b/node-feat.csv"), row);
    char dir[512];
    snprintf(dir, sizeof dir, "%s", tmp_path("mag"));
    gnn_dataset ds;
    gnn_err err = { { 0 } };
    gnn_status st = gnn_import_ogb(&ds, dir, NULL, &err);
    if (st == GNN_OK)
        gnn_dataset_free(&ds);
    ck_assert_int_eq(st, GNN_ERR_RANGE);
    ck_assert_msg(contains(err.msg, "node-feat.csv") && contains(err.msg, "100001 vertices") &&
                      contains(err.msg, "cells"),
                  "%s", err.msg);
    /* the same claim paid for by 100 rows is taken: 100100 x 200 cells <= 1024 x 100 x 200 */
    write_text(tmp_path("mag/raw/num-node-dict.csv"), "a,b\n100000,100\n");
    FILE *f = fopen(tmp_path("mag/raw/node-feat/b/node-feat.csv"), "w");
    ck_assert_ptr_nonnull(f);
    for (int v = 0; v < 100; v++)
        fputs(row, f);
    ck_assert_int_eq(fclose(f), 0);
    st = gnn_import_ogb(&ds, dir, NULL, &err);
    ck_assert_msg(st == GNN_OK, "%s", err.msg);
    ck_assert_int_eq(ds.graph.n, 100100);
    gnn_dataset_free(&ds);
}
END_TEST

/* Finding 4 (core/io/import_ogb_hetero.c, fuzz_ogb): an empty triplet-type-list.csv left the
 * relation array NULL and it was passed to qsort with 0 elements, which C does not allow (UBSan:
 * "null pointer passed as argument 1, which is declared to never be null"). The release build
 * did not notice, so this test fails on the old code under the sanitizers (make sanitize,
 * check-full's check-asan-suites) and passes everywhere now: a layout without relations is a
 * graph without edges. */
START_TEST(hetero_no_relations)
{
    ck_assert_int_eq(mkdir(tmp_path("mag0"), 0700), 0);
    ck_assert_int_eq(mkdir(tmp_path("mag0/raw"), 0700), 0);
    write_text(tmp_path("mag0/raw/num-node-dict.csv"), "a\n3\n");
    write_text(tmp_path("mag0/raw/triplet-type-list.csv"), "");
    char dir[512];
    snprintf(dir, sizeof dir, "%s", tmp_path("mag0"));
    gnn_dataset ds;
    gnn_err err = { { 0 } };
    ck_assert_msg(gnn_import_ogb(&ds, dir, NULL, &err) == GNN_OK, "%s", err.msg);
    ck_assert_int_eq(ds.graph.n, 3);
    ck_assert_int_eq(ds.graph.nnz, 0);
    ck_assert_int_eq(ds.num_vtypes, 1);
    ck_assert_int_eq(ds.num_etypes, 0);
    gnn_dataset_free(&ds);
}
END_TEST

Suite *suite_fuzz_regress(void)
{
    Suite *s = suite_create("fuzz_regress");
    TCase *tc = tcase_create("findings");
    tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, text_feature_cells_are_a_claim);
    tcase_add_test(tc, csr_feature_cells_are_a_claim);
    tcase_add_test(tc, hetero_featureless_cells_are_a_claim);
    tcase_add_test(tc, hetero_no_relations);
    suite_add_tcase(s, tc);
    return s;
}
