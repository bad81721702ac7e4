/* tests/test_data.c -- datasets: the binary format, splits, opening by spec, and the
 * gen/convert/info command line (exit codes and error text); the importers and generators are
 * in tests/test_import.c.
 *
 * Every bad-input case has its own test: each corrupts a valid file in one way (in a mkdtemp
 * directory) and checks the status code and that the message names the file, the section
 * and the offending value. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/crc32c.h"
#include "gnnref/dataset.h"
#include "gnnref/tensor.h"
#include "data_util.h"

/* ==== helpers ==== */

/* A small SBM with every section present. */
static void small_sbm(gnn_dataset *ds)
{
    gnn_sbm_params p;
    gnn_sbm_defaults(&p);
    p.n = 300;
    p.classes = 5;
    p.num_features = 7;
    p.seed = 42;
    gnn_err err;
    ck_assert_int_eq(gnn_gen_sbm(ds, &p, &err), GNN_OK);
}

/* ---- raw file surgery on a saved binary (whole files and little-endian fields: file_util.h) ---- */

static unsigned char *section_ptr(blob b, int s)
{
    return b.p + le64(b.p + GNN_HDR_OFF_SECTIONS + (size_t)s * GNN_HDR_SECTION_SIZE);
}

/* Recompute section s's CRC32C and the header CRC, as a writer of bad values would. */
static void refresh_crcs(blob b, int s)
{
    refresh_entry_crcs(b, b.p + GNN_HDR_OFF_SECTIONS + (size_t)s * GNN_HDR_SECTION_SIZE);
}

/* Save small_sbm() to g_tmp/name and return the path. */
static const char *saved_sbm(const char *name)
{
    gnn_dataset ds;
    small_sbm(&ds);
    const char *path = tmp_path(name);
    gnn_err err;
    ck_assert_int_eq(gnn_dataset_save(&ds, path, &err), GNN_OK);
    gnn_dataset_free(&ds);
    return path;
}

static gnn_status load_expect(const char *path, gnn_status want, gnn_err *err)
{
    gnn_dataset ds;
    gnn_status s = gnn_dataset_load(&ds, path, err);
    ck_assert_msg(s == want, "load returned %d (%s), wanted %d: %s", s, gnn_status_str(s), want, err->msg);
    if (s == GNN_OK)
        gnn_dataset_free(&ds);
    return s;
}

/* ==== binary format ==== */

START_TEST(binary_roundtrip_bitwise)
{
    gnn_dataset a, b;
    gnn_err err;
    small_sbm(&a);
    const char *path = tmp_path("rt.gnn");
    ck_assert_int_eq(gnn_dataset_save(&a, path, &err), GNN_OK);
    ck_assert_int_ne(access(tmp_path("rt.gnn.tmp"), F_OK), 0); /* renamed away */
    ck_assert_int_eq(gnn_dataset_load(&b, path, &err), GNN_OK);
    ds_assert_equal(&a, &b);
    /* zero-copy: arrays point into the 64-byte aligned mapping */
    ck_assert_ptr_nonnull(b.map_base);
    ck_assert_int_eq(b.graph.owns, 0);
    ck_assert_uint_eq((uintptr_t)b.graph.indices % 64, 0);
    ck_assert_uint_eq((uintptr_t)b.feat % 64, 0);
    ck_assert_uint_eq((uintptr_t)b.labels % 64, 0);
    /* saving the loaded copy gives the same bytes */
    const char *path2 = tmp_path("rt2.gnn");
    ck_assert_int_eq(gnn_dataset_save(&b, path2, &err), GNN_OK);
    blob x = read_blob(path), y = read_blob(path2);
    ck_assert_uint_eq(x.len, y.len);
    ck_assert(!memcmp(x.p, y.p, x.len));
    free(x.p);
    free(y.p);
    gnn_dataset_free(&a);
    gnn_dataset_free(&b);
}
END_TEST

START_TEST(binary_optional_sections_and_new_split)
{
    gnn_rmat_params p;
    gnn_rmat_defaults(&p);
    p.scale = 8;
    p.edge_factor = 4;
    gnn_dataset a, b;
    gnn_err err;
    ck_assert_int_eq(gnn_gen_rmat(&a, &p, &err), GNN_OK);
    ck_assert_ptr_null(a.feat);
    ck_assert_ptr_null(a.labels);
    ck_assert_ptr_null(a.split);
    const char *path = tmp_path("r.gnn");
    ck_assert_int_eq(gnn_dataset_save(&a, path, &err), GNN_OK);
    ck_assert_int_eq(gnn_dataset_load(&b, path, &err), GNN_OK);
    ds_assert_equal(&a, &b);
    /* a loaded dataset can still get a split (written to the spare area, not the file) */
    ck_assert_int_eq(gnn_dataset_split_random(&a, 0.5, 0.25, 0.25, 3, &err), GNN_OK);
    ck_assert_int_eq(gnn_dataset_split_random(&b, 0.5, 0.25, 0.25, 3, &err), GNN_OK);
    ck_assert(!memcmp(a.split, b.split, (size_t)a.graph.n));
    gnn_dataset_free(&b);
    ck_assert_int_eq(gnn_dataset_load(&b, path, &err), GNN_OK);
    ck_assert_ptr_null(b.split); /* the file did not change */
    gnn_dataset_free(&b);
    gnn_dataset_free(&a);
}
END_TEST

START_TEST(binary_truncated)
{
    gnn_err err;
    const char *path = saved_sbm("t.gnn");
    blob b = read_blob(path);
    size_t len = b.len;
    write_blob(path, b, len - 100);
    load_expect(path, GNN_ERR_FORMAT, &err);
    ck_assert_msg_has(err, "t.gnn");
    ck_assert_msg_has(err, "truncated");
    /* shorter than the header */
    b = read_blob(path);
    write_blob(path, b, 100);
    load_expect(path, GNN_ERR_FORMAT, &err);
    ck_assert_msg_has(err, "truncated");
    /* empty file */
    write_text(path, "");
    load_expect(path, GNN_ERR_FORMAT, &err);
    ck_assert_msg_has(err, "t.gnn");
}
END_TEST

START_TEST(binary_wrong_magic)
{
    gnn_err err;
    const char *path = saved_sbm("m.gnn");
    blob b = read_blob(path);
    b.p[0] = 'X';
    write_blob(path, b, b.len);
    load_expect(path, GNN_ERR_FORMAT, &err);
    ck_assert_msg_has(err, "m.gnn");
    ck_assert_msg_has(err, "magic");
    ck_assert_msg_has(err, "XNNREF");
}
END_TEST

START_TEST(binary_wrong_version)
{
    gnn_err err;
    const char *path = saved_sbm("v.gnn");
    blob b = read_blob(path);
    put_le32(b.p + GNN_HDR_OFF_VERSION, 7);
    put_le32(b.p + GNN_HDR_OFF_CRC, gnn_crc32c(0, b.p, GNN_HDR_OFF_CRC));
    write_blob(path, b, b.len);
    load_expect(path, GNN_ERR_FORMAT, &err);
    ck_assert_msg_has(err, "v.gnn");
    ck_assert_msg_has(err, "version 7");
}
END_TEST

START_TEST(binary_crc_mismatch)
{
    gnn_err err;
    const char *path = saved_sbm("c.gnn");
    blob b = read_blob(path);
    section_ptr(b, GNN_SEC_INDICES)[5] ^= 0x10;
    write_blob(path, b, b.len);
    load_expect(path, GNN_ERR_CHECKSUM, &err);
    ck_assert_msg_has(err, "c.gnn");
    ck_assert_msg_has(err, "section 'indices'");
    /* a changed header field without a new header CRC */
    path = saved_sbm("h.gnn");
    b = read_blob(path);
    b.p[GNN_HDR_OFF_NUM_CLASSES] ^= 1;
    write_blob(path, b, b.len);
    load_expect(path, GNN_ERR_CHECKSUM, &err);
    ck_assert_msg_has(err, "section 'header'");
    /* features section */
    path = saved_sbm("f.gnn");
    b = read_blob(path);
    section_ptr(b, GNN_SEC_FEATURES)[0] ^= 0x01;
    write_blob(path, b, b.len);
    load_expect(path, GNN_ERR_CHECKSUM, &err);
    ck_assert_msg_has(err, "section 'features'");
}
END_TEST

START_TEST(binary_id_out_of_range)
{
    /* n = 300: far above, the first id past the end (an off-by-one bound accepts it), and -1 */
    static const int64_t bads[] = { 305, 300, -1 };
    static const char *const says[] = { "vertex id 305", "vertex id 300", "vertex id -1" };
    for (int i = 0; i < 3; i++) {
        gnn_err err;
        const char *path = saved_sbm("id.gnn");
        blob b = read_blob(path);
        memcpy(section_ptr(b, GNN_SEC_INDICES) + 3 * 8, &bads[i], 8);
        refresh_crcs(b, GNN_SEC_INDICES);
        write_blob(path, b, b.len);
        load_expect(path, GNN_ERR_RANGE, &err);
        ck_assert_msg_has(err, "id.gnn");
        ck_assert_msg_has(err, "section 'indices'");
        ck_assert_msg_has(err, says[i]);
        ck_assert_msg_has(err, "[0, 300)");
    }
}
END_TEST

START_TEST(binary_negative_degree)
{
    gnn_err err;
    const char *path = saved_sbm("deg.gnn");
    blob b = read_blob(path);
    int64_t *indptr = (int64_t *)(void *)section_ptr(b, GNN_SEC_INDPTR);
    indptr[4] = indptr[5] + 3;
    refresh_crcs(b, GNN_SEC_INDPTR);
    write_blob(path, b, b.len);
    load_expect(path, GNN_ERR_RANGE, &err);
    ck_assert_msg_has(err, "section 'indptr'");
    ck_assert_msg_has(err, "vertex 4 has negative degree -3");
}
END_TEST

START_TEST(binary_nan_feature)
{
    gnn_err err;
    const char *path = saved_sbm("nan.gnn");
    blob b = read_blob(path);
    float nanv = NAN;
    memcpy(section_ptr(b, GNN_SEC_FEATURES) + (size_t)(17 * 7 + 3) * 4, &nanv, 4); /* vertex 17, column 3 */
    refresh_crcs(b, GNN_SEC_FEATURES);
    write_blob(path, b, b.len);
    load_expect(path, GNN_ERR_NAN, &err);
    ck_assert_msg_has(err, "nan.gnn");
    ck_assert_msg_has(err, "section 'features'");
    ck_assert_msg_has(err, "vertex 17 column 3 is NaN");
    /* Inf too */
    path = saved_sbm("inf.gnn");
    b = read_blob(path);
    float inf = INFINITY;
    memcpy(section_ptr(b, GNN_SEC_FEATURES), &inf, 4);
    refresh_crcs(b, GNN_SEC_FEATURES);
    write_blob(path, b, b.len);
    load_expect(path, GNN_ERR_NAN, &err);
    ck_assert_msg_has(err, "vertex 0 column 0 is Inf");
}
END_TEST

START_TEST(binary_label_out_of_range)
{
    gnn_err err;
    const char *path = saved_sbm("lab.gnn");
    blob b = read_blob(path);
    int32_t bad = 9;
    memcpy(section_ptr(b, GNN_SEC_LABELS) + 17 * 4, &bad, 4);
    refresh_crcs(b, GNN_SEC_LABELS);
    write_blob(path, b, b.len);
    load_expect(path, GNN_ERR_RANGE, &err);
    ck_assert_msg_has(err, "lab.gnn: section 'labels': vertex 17 has label 9, expected -1 or [0, 5)");
}
END_TEST

START_TEST(binary_bad_split_code)
{
    gnn_err err;
    const char *path = saved_sbm("sp.gnn");
    blob b = read_blob(path);
    section_ptr(b, GNN_SEC_SPLIT)[11] = 7;
    refresh_crcs(b, GNN_SEC_SPLIT);
    write_blob(path, b, b.len);
    load_expect(path, GNN_ERR_RANGE, &err);
    ck_assert_msg_has(err, "section 'split'");
    ck_assert_msg_has(err, "vertex 11 has split code 7");
}
END_TEST

START_TEST(binary_save_refuses_bad_data)
{
    gnn_dataset ds;
    gnn_err err;
    small_sbm(&ds);
    ds.feat[5] = NAN;
    const char *path = tmp_path("never.gnn");
    ck_assert_int_eq(gnn_dataset_save(&ds, path, &err), GNN_ERR_NAN);
    ck_assert_msg_has(err, "never.gnn");
    ck_assert_int_ne(access(path, F_OK), 0);
    ds.feat[5] = 0;
    ck_assert_int_eq(gnn_dataset_save(&ds, "/nonexistent-dir/x.gnn", &err), GNN_ERR_IO);
    ck_assert_msg_has(err, "/nonexistent-dir/x.gnn");
    gnn_dataset_free(&ds);
    ck_assert_int_eq(gnn_dataset_load(&ds, "/nonexistent-file.gnn", &err), GNN_ERR_IO);
    ck_assert_msg_has(err, "/nonexistent-file.gnn");
    ck_assert_int_eq(gnn_dataset_validate(NULL, NULL, NULL), GNN_ERR_INVAL);
}
END_TEST

/* ==== splits and open ==== */

START_TEST(split_random_counts)
{
    gnn_dataset ds;
    gnn_err err;
    small_sbm(&ds); /* n = 300 */
    ck_assert_int_eq(gnn_dataset_split_random(&ds, 0.1, 0.2, 0.3, 5, &err), GNN_OK);
    int64_t cnt[4] = { 0, 0, 0, 0 };
    for (int64_t v = 0; v < 300; v++)
        cnt[ds.split[v]]++;
    ck_assert_int_eq(cnt[1], 30);
    ck_assert_int_eq(cnt[2], 60);
    ck_assert_int_eq(cnt[3], 90);
    ck_assert_int_eq(cnt[0], 120);
    uint8_t first[300];
    memcpy(first, ds.split, 300);
    ck_assert_int_eq(gnn_dataset_split_random(&ds, 0.1, 0.2, 0.3, 5, &err), GNN_OK);
    ck_assert(!memcmp(first, ds.split, 300));
    ck_assert_int_eq(gnn_dataset_split_random(&ds, 0.1, 0.2, 0.3, 6, &err), GNN_OK);
    ck_assert(memcmp(first, ds.split, 300) != 0);
    /* rounding never overshoots n */
    ck_assert_int_eq(gnn_dataset_split_random(&ds, 0.335, 0.335, 0.33, 1, &err), GNN_OK);
    ck_assert_int_eq(gnn_dataset_split_random(&ds, 0.6, 0.6, 0.0, 1, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_dataset_split_random(&ds, -0.1, 0.5, 0.0, 1, &err), GNN_ERR_INVAL);
    gnn_dataset_free(&ds);
}
END_TEST

START_TEST(open_by_spec)
{
    gnn_dataset ds;
    gnn_err err;
    ck_assert_str_eq(gnn_dataset_spec_kind("builtin"), "builtin");
    ck_assert_str_eq(gnn_dataset_spec_kind(FIXTURES "/text_tiny"), "text");
    ck_assert_str_eq(gnn_dataset_spec_kind(FIXTURES "/ogb_tiny"), "ogb");
    ck_assert_ptr_null(gnn_dataset_spec_kind(tmp_path("nope")));
    ck_assert_int_eq(gnn_dataset_open(&ds, tmp_path("nope"), &err), GNN_ERR_IO);
    ck_assert_msg_has(err, "nope: no such file or directory");
    ck_assert_int_eq(gnn_dataset_open(&ds, g_tmp, &err), GNN_ERR_FORMAT);
    ck_assert_msg_has(err, "meta.txt");
    /* an edge list is not opened as a binary file by accident */
    ck_assert_int_eq(gnn_dataset_open(&ds, FIXTURES "/tiny.edges", &err), GNN_ERR_FORMAT);
    ck_assert_msg_has(err, "tiny.edges");
    ck_assert_msg_has(err, "convert");
    const char *path = saved_sbm("o.gnn");
    ck_assert_str_eq(gnn_dataset_spec_kind(path), "native");
    ck_assert_int_eq(gnn_dataset_open(&ds, path, &err), GNN_OK);
    ck_assert_int_eq(ds.graph.n, 300);
    gnn_dataset_free(&ds);
}
END_TEST

/* ==== the command line ==== */

START_TEST(cli_exit_codes)
{
    if (!getenv("GNN_TOOL")) {
        fprintf(stderr, "cli_exit_codes: SKIP (GNN_TOOL is not set; `make check` sets it)\n");
        return;
    }
    char e[4096], args[1024];
    /* a corrupted binary file: exit 2, the error names the file */
    const char *bad = saved_sbm("broken.gnn");
    blob b = read_blob(bad);
    section_ptr(b, GNN_SEC_LABELS)[0] ^= 0xff;
    write_blob(bad, b, b.len);
    snprintf(args, sizeof args, "info %s", bad);
    ck_assert_int_eq(run_tool(args, e, sizeof e), 2);
    ck_assert_msg(contains(e, "gnnref: error: ") && contains(e, "broken.gnn") && contains(e, "'labels'"), "%s", e);
    /* a malformed text directory */
    const char *dir = text_copy_with("edges.txt", "0 1\nzz\n");
    snprintf(args, sizeof args, "convert --format text %s -o %s", dir, tmp_path("x.gnn"));
    ck_assert_int_eq(run_tool(args, e, sizeof e), 2);
    ck_assert_msg(contains(e, "edges.txt:2"), "%s", e);
    /* usage errors */
    ck_assert_int_eq(run_tool("gen rmat --scale 0 -o /dev/null", e, sizeof e), 2);
    ck_assert_msg(contains(e, "--scale"), "%s", e);
    ck_assert_int_eq(run_tool("gen sbm --frobnicate", e, sizeof e), 2);
    ck_assert_int_eq(run_tool("info", e, sizeof e), 2);
    /* --help on each subcommand */
    ck_assert_int_eq(run_tool("gen --help", e, sizeof e), 0);
    ck_assert_int_eq(run_tool("convert --help", e, sizeof e), 0);
    ck_assert_int_eq(run_tool("info --help", e, sizeof e), 0);
    /* the happy path: gen, convert, info with a JSON report */
    snprintf(args, sizeof args, "gen sbm --nodes 500 --classes 3 --features 4 --seed 7 -o %s", tmp_path("s.gnn"));
    ck_assert_int_eq(run_tool(args, e, sizeof e), 0);
    snprintf(args, sizeof args, "convert --format text %s -o %s", FIXTURES "/text_tiny", tmp_path("tt.gnn"));
    ck_assert_int_eq(run_tool(args, e, sizeof e), 0);
    snprintf(args, sizeof args, "info %s --json %s", tmp_path("tt.gnn"), tmp_path("info.json"));
    ck_assert_int_eq(run_tool(args, e, sizeof e), 0);
    blob j = read_blob(tmp_path("info.json"));
    j.p = realloc(j.p, j.len + 1);
    j.p[j.len] = '\0';
    ck_assert(contains((char *)j.p, "\"checks\": \"ok\"") || contains((char *)j.p, "\"checks\":\"ok\""));
    ck_assert(contains((char *)j.p, "\"duplicates_merged\""));
    free(j.p);
    blob o = read_blob(tmp_path("stdout.txt"));
    o.p = realloc(o.p, o.len + 1);
    o.p[o.len] = '\0';
    ck_assert(contains((char *)o.p, "checks: ok"));
    ck_assert(contains((char *)o.p, "split: train 2, val 1, test 2, none 1"));
    free(o.p);
}
END_TEST

/* ==== what a file may claim: the robustness run's findings ==== */

/* indptr INT64_MAX then INT64_MIN: the degree does not fit an int64. The message used to
 * compute it anyway (signed overflow: UBSan's report, and a nonsense degree in the release
 * build); now it gives the two indptr values. */
START_TEST(binary_degree_overflow_message)
{
    gnn_err err;
    const char *path = saved_sbm("degov.gnn");
    blob b = read_blob(path);
    int64_t *indptr = (int64_t *)(void *)section_ptr(b, GNN_SEC_INDPTR);
    indptr[1] = INT64_MAX;
    indptr[2] = INT64_MIN;
    refresh_crcs(b, GNN_SEC_INDPTR);
    write_blob(path, b, b.len);
    load_expect(path, GNN_ERR_RANGE, &err);
    ck_assert_msg_has(err, "vertex 1 has a negative degree (indptr 9223372036854775807 -> -9223372036854775808)");
}
END_TEST

/* A 648-byte file claiming 50,000,000 classes made `gnnref info` run 50 s in 3.5 GB. A dataset
 * has at most max(n, GNN_CLASSES_ANY) classes. */
START_TEST(binary_classes_bounded_by_vertices)
{
    gnn_err err;
    const char *path = saved_sbm("classes.gnn"); /* 300 vertices, 5 classes */
    const int64_t claims[] = { 50000000, GNN_CLASSES_ANY + 1, INT32_MAX };
    for (size_t i = 0; i < sizeof claims / sizeof claims[0]; i++) {
        blob b = read_blob(path);
        for (int k = 0; k < 8; k++)
            b.p[GNN_HDR_OFF_NUM_CLASSES + k] = (unsigned char)((uint64_t)claims[i] >> (8 * k));
        put_le32(b.p + GNN_HDR_OFF_CRC, gnn_crc32c(0, b.p, GNN_HDR_OFF_CRC));
        const char *forged = tmp_path("classes_forged.gnn");
        write_blob(forged, b, b.len);
        load_expect(forged, GNN_ERR_RANGE, &err);
        ck_assert_msg_has(err, "num_classes");
        ck_assert_msg_has(err, "for 300 vertices");
    }
    /* the floor: 300 vertices may carry up to 1024 classes (a partition part of a dataset with
     * many classes); a larger graph as many as it has vertices */
    gnn_dataset ds;
    small_sbm(&ds);
    ds.num_classes = GNN_CLASSES_ANY;
    ck_assert_msg(gnn_dataset_save(&ds, tmp_path("c1024.gnn"), &err) == GNN_OK, "%s", err.msg);
    ds.num_classes = GNN_CLASSES_ANY + 1;
    ck_assert_int_eq(gnn_dataset_save(&ds, tmp_path("c1025.gnn"), &err), GNN_ERR_RANGE);
    gnn_dataset_free(&ds);
    if (getenv("GNN_TOOL")) {
        char e[4096], args[1024];
        snprintf(args, sizeof args, "info %s", tmp_path("classes_forged.gnn"));
        ck_assert_int_eq(run_tool(args, e, sizeof e), 2);
        ck_assert_msg(contains(e, "num_classes"), "%s", e);
    }
}
END_TEST

Suite *suite_data(void)
{
    Suite *s = suite_create("data");
    TCase *tc = tcase_create("cpu");
    tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, binary_roundtrip_bitwise);
    tcase_add_test(tc, binary_optional_sections_and_new_split);
    tcase_add_test(tc, binary_truncated);
    tcase_add_test(tc, binary_wrong_magic);
    tcase_add_test(tc, binary_wrong_version);
    tcase_add_test(tc, binary_crc_mismatch);
    tcase_add_test(tc, binary_id_out_of_range);
    tcase_add_test(tc, binary_negative_degree);
    tcase_add_test(tc, binary_nan_feature);
    tcase_add_test(tc, binary_label_out_of_range);
    tcase_add_test(tc, binary_bad_split_code);
    tcase_add_test(tc, binary_save_refuses_bad_data);
    tcase_add_test(tc, split_random_counts);
    tcase_add_test(tc, open_by_spec);
    tcase_add_test(tc, cli_exit_codes);
    tcase_add_test(tc, binary_degree_overflow_message);
    tcase_add_test(tc, binary_classes_bounded_by_vertices);
    suite_add_tcase(s, tc);
    return s;
}
