/* tests/test_sparse_features.c -- sparse input features (include/gnnref/spmm.h,
 * docs/sparse-features.md): the format's CSR sections round trip and their bad files, the
 * importers' storage choice, `gnnref info`, and training with CSR input: step losses bitwise
 * between ref and opt at 1, 2 and 3 threads, and between CSR and dense input for gcn. The
 * kernels themselves are checked by the oracle (spmm.fwd, spmm.dw, spmm.input). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "gnnref/crc32c.h"
#include "gnnref/dataset.h"
#include "gnnref/impl.h"
#include "gnnref/train.h"
#include "cli_util.h"
#include "file_util.h"
#ifdef GNN_HAVE_OPENMP
#include <omp.h>
#endif

static void set_threads(int t)
{
#ifdef GNN_HAVE_OPENMP
    omp_set_num_threads(t);
#else
    (void)t;
#endif
}

/* A small SBM whose features are made sparse: about 6% of the entries kept, the rest 0. */
static void sparse_sbm(gnn_dataset *ds, gnn_feat_storage storage)
{
    gnn_sbm_params p;
    gnn_sbm_defaults(&p);
    p.n = 600;
    p.num_features = 70;
    p.seed = 3;
    p.train = 0.3;
    gnn_err err;
    ck_assert_msg(gnn_gen_sbm(ds, &p, &err) == GNN_OK, "%s", err.msg);
    for (int64_t v = 0; v < p.n; v++)
        for (int64_t j = 0; j < p.num_features; j++)
            if ((v * 7 + j * 13) % 17 != 0)
                ds->feat[v * p.num_features + j] = 0.0f;
    ck_assert_msg(gnn_dataset_set_feat_storage(ds, storage, &err) == GNN_OK, "%s", err.msg);
}

/* The header entry of extension section `name`. */
static unsigned char *ext_entry(blob f, const char *name)
{
    for (int i = 0; i < GNN_FORMAT_MAX_EXT; i++) {
        unsigned char *e = f.p + GNN_HDR_OFF_EXT + 32 * i;
        if (!strncmp((const char *)e + 24, name, 8))
            return e;
    }
    ck_abort_msg("no extension section %s", name);
    return NULL;
}

START_TEST(format_round_trip)
{
    gnn_dataset a, b, d;
    gnn_err err;
    sparse_sbm(&a, GNN_FEAT_STORE_AUTO);
    ck_assert(gnn_dataset_feat_is_csr(&a)); /* ~6% < 10% */
    ck_assert_int_eq(gnn_dataset_save(&a, tmp("s.gnn"), &err), GNN_OK);
    blob f = read_blob(tmp("s.gnn"));
    ck_assert_uint_eq(le32(f.p + GNN_HDR_OFF_VERSION), GNN_FORMAT_VERSION_CSR);
    ck_assert_uint_eq(le32(f.p + GNN_HDR_OFF_FLAGS) & GNN_FORMAT_FLAG_FEAT_CSR, GNN_FORMAT_FLAG_FEAT_CSR);
    free(f.p);
    ck_assert_msg(gnn_dataset_load(&b, tmp("s.gnn"), &err) == GNN_OK, "%s", err.msg);
    ck_assert(gnn_dataset_feat_is_csr(&b));
    ck_assert_int_eq(b.num_ext, 0); /* the three sections are the features, not extensions */
    ck_assert_int_eq(b.feat_csr.nnz, a.feat_csr.nnz);
    ck_assert_int_gt(b.feat_csr.nnz, 0);
    ck_assert(!memcmp(b.feat_csr.indptr, a.feat_csr.indptr, (size_t)(a.graph.n + 1) * sizeof(int64_t)));
    ck_assert(!memcmp(b.feat_csr.col, a.feat_csr.col, (size_t)a.feat_csr.nnz * sizeof(int32_t)));
    ck_assert(!memcmp(b.feat_csr.val, a.feat_csr.val, (size_t)a.feat_csr.nnz * sizeof(float)));
    ck_assert(!memcmp(b.feat, a.feat, (size_t)(a.graph.n * a.num_features) * sizeof(float))); /* dense view */
    /* dense: version 1, no CSR after loading; the same dense features */
    ck_assert_int_eq(gnn_dataset_set_feat_storage(&b, GNN_FEAT_STORE_DENSE, &err), GNN_OK);
    ck_assert_int_eq(gnn_dataset_save(&b, tmp("d.gnn"), &err), GNN_OK);
    f = read_blob(tmp("d.gnn"));
    ck_assert_uint_eq(le32(f.p + GNN_HDR_OFF_VERSION), GNN_FORMAT_VERSION);
    free(f.p);
    ck_assert_int_eq(gnn_dataset_load(&d, tmp("d.gnn"), &err), GNN_OK);
    ck_assert(!gnn_dataset_feat_is_csr(&d));
    ck_assert(!memcmp(d.feat, a.feat, (size_t)(a.graph.n * a.num_features) * sizeof(float)));
    gnn_dataset_free(&a);
    gnn_dataset_free(&b);
    gnn_dataset_free(&d);
}
END_TEST

/* Bad CSR sections: each written with valid CRCs (or corrupted without), each refused with a
 * message naming the file, the section and the value. */
START_TEST(format_bad_files)
{
    gnn_dataset a, b;
    gnn_err err;
    sparse_sbm(&a, GNN_FEAT_STORE_CSR);
    ck_assert_int_eq(gnn_dataset_save(&a, tmp("s.gnn"), &err), GNN_OK);
    const int64_t r = 5, p = a.feat_csr.indptr[r]; /* row 5 has entries */
    ck_assert_int_gt(a.feat_csr.indptr[r + 1] - p, 1);
    gnn_dataset_free(&a);
    static const struct {
        const char *sec, *says;
        int kind; /* 0 column out of range, 1 repeated column, 2 NaN value, 3 flipped byte (no CRC fix) */
        gnn_status st;
    } k_cases[] = {
        { "feat_col", "section 'feat_col': entry", 0, GNN_ERR_RANGE },
        { "feat_col", "strictly increasing", 1, GNN_ERR_FORMAT },
        { "feat_val", "section 'feat_val': vertex 5", 2, GNN_ERR_NAN },
        { "feat_val", "section 'feat_val': CRC32C mismatch", 3, GNN_ERR_CHECKSUM },
    };
    for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) {
        blob f = read_blob(tmp("s.gnn"));
        unsigned char *e = ext_entry(f, k_cases[i].sec), *data = f.p + le64(e);
        switch (k_cases[i].kind) {
        case 0: put_le32(data + 4 * p, 70); break;                      /* f = 70: one past the end */
        case 1: memcpy(data + 4 * (p + 1), data + 4 * p, 4); break;  /* the row's first column twice */
        case 2: put_le32(data + 4 * p, 0x7fc00000u); break;             /* NaN */
        case 3: data[4 * p] ^= 0x10; break;
        }
        if (k_cases[i].kind != 3) /* a file written wrongly, not corrupted */
            refresh_entry_crcs(f, e);
        write_blob(tmp("bad.gnn"), f, f.len);
        const gnn_status st = gnn_dataset_load(&b, tmp("bad.gnn"), &err);
        ck_assert_msg(st == k_cases[i].st, "case %zu: status %s: %s", i, gnn_status_str(st), err.msg);
        ck_assert_msg(strstr(err.msg, "bad.gnn") && strstr(err.msg, k_cases[i].says), "case %zu: %s", i, err.msg);
    }
    /* a version-1 header with the CSR flag: an unknown flag for version 1 */
    blob f = read_blob(tmp("s.gnn"));
    put_le32(f.p + GNN_HDR_OFF_VERSION, GNN_FORMAT_VERSION);
    put_le32(f.p + GNN_HDR_OFF_CRC, gnn_crc32c(0, f.p, GNN_HDR_OFF_CRC));
    write_blob(tmp("bad.gnn"), f, f.len);
    ck_assert_int_eq(gnn_dataset_load(&b, tmp("bad.gnn"), &err), GNN_ERR_FORMAT);
    ck_assert_msg(strstr(err.msg, "unknown section flags"), "%s", err.msg);
}
END_TEST

/* The text importer stores CSR below 10% density, dense above, and as the options force. */
START_TEST(import_choice)
{
    const char *dir = tmp("sparse_text");
    char path[600], line[64];
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    snprintf(path, sizeof path, "%s/meta.txt", dir);
    FILE *fp = fopen(path, "w");
    fprintf(fp, "num_nodes 40\nnum_features 50\nnum_classes 2\n");
    fclose(fp);
    snprintf(path, sizeof path, "%s/edges.txt", dir);
    fp = fopen(path, "w");
    for (int v = 0; v + 1 < 40; v++)
        fprintf(fp, "%d %d\n%d %d\n", v, v + 1, v + 1, v);
    fclose(fp);
    snprintf(path, sizeof path, "%s/features.txt", dir);
    fp = fopen(path, "w");
    for (int v = 0; v < 40; v += 2) { /* 2 entries in every other row: 40 of 2000, 2% */
        snprintf(line, sizeof line, "%d %d 1\n%d %d 0.5\n", v, v % 50, v, 49);
        fputs(line, fp);
    }
    fclose(fp);
    gnn_dataset ds;
    gnn_err err;
    ck_assert_msg(gnn_import_text(&ds, dir, NULL, &err) == GNN_OK, "%s", err.msg);
    ck_assert(gnn_dataset_feat_is_csr(&ds));
    ck_assert_int_eq(ds.feat_csr.nnz, 40);
    ck_assert_int_eq(ds.feat_csr.indptr[1] - ds.feat_csr.indptr[0], 2);
    ck_assert_int_eq(ds.feat_csr.indptr[2] - ds.feat_csr.indptr[1], 0); /* a degree-0 row */
    gnn_dataset_free(&ds);
    gnn_import_options o;
    gnn_import_defaults(&o);
    o.feat_storage = GNN_FEAT_STORE_DENSE;
    ck_assert_int_eq(gnn_import_text(&ds, dir, &o, &err), GNN_OK);
    ck_assert(!gnn_dataset_feat_is_csr(&ds));
    gnn_dataset_free(&ds);
    /* the tiny fixture: 4 of 18 entries (22%) stays dense unless forced */
    ck_assert_int_eq(gnn_import_text(&ds, "tests/fixtures/text_tiny", NULL, &err), GNN_OK);
    ck_assert(!gnn_dataset_feat_is_csr(&ds));
    gnn_dataset_free(&ds);
    o.feat_storage = GNN_FEAT_STORE_CSR;
    ck_assert_int_eq(gnn_import_text(&ds, "tests/fixtures/text_tiny", &o, &err), GNN_OK);
    ck_assert(gnn_dataset_feat_is_csr(&ds));
    ck_assert_int_eq(ds.feat_csr.nnz, 4);
    gnn_dataset_free(&ds);
    o.feat_storage = (gnn_feat_storage)7;
    ck_assert_int_eq(gnn_import_text(&ds, "tests/fixtures/text_tiny", &o, &err), GNN_ERR_INVAL);
}
END_TEST

/* `gnnref info` prints the storage; `convert --feature-storage` forces it. */
START_TEST(cli_info_storage)
{
    NEED_TOOL();
    char out[8192], args[1024];
    snprintf(args, sizeof args, "convert --format text --data tests/fixtures/text_tiny -o %s --feature-storage csr",
             tmp("t.gnn"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    snprintf(args, sizeof args, "info %s", tmp("t.gnn"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    ck_assert_msg(strstr(out, "feature storage: csr, 4 nonzeros, density 22.22%"), "%s", out);
    snprintf(args, sizeof args, "convert %s -o %s --feature-storage dense", tmp("t.gnn"), tmp("d.gnn"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    snprintf(args, sizeof args, "info %s", tmp("d.gnn"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    ck_assert_msg(strstr(out, "feature storage: dense, 4 nonzeros"), "%s", out);
    expect_usage_error("convert --data builtin -o /dev/null --feature-storage coo", "--feature-storage", out,
                       sizeof out);
}
END_TEST

static void train_losses(const gnn_dataset *ds, gnn_train_config *c, gnn_train_result *r)
{
    gnn_err err;
    ck_assert_msg(gnn_train(ds, c, NULL, NULL, r, &err) == GNN_OK, "%s", err.msg);
    ck_assert_int_gt(r->n_steps, 0);
}

static void same_losses(const gnn_train_result *a, const gnn_train_result *b, const char *what)
{
    ck_assert_int_eq(a->n_steps, b->n_steps);
    for (int64_t s = 0; s < a->n_steps; s++)
        ck_assert_msg(memcmp(&a->step_loss[s], &b->step_loss[s], sizeof(double)) == 0, "%s: step %lld: %.17g vs %.17g",
                      what, (long long)s, b->step_loss[s], a->step_loss[s]);
}

/* gcn (full batch and mini-batch) and gat with CSR input: every step's loss is the same bits
 * for ref at 1 thread and for opt at 1, 2 and 3 threads; for gcn also the same as with the
 * dense features (the spmm.h relation: no bias in gcn's product, dW from +0). */
START_TEST(train_bitwise)
{
    gnn_dataset sp, dn;
    sparse_sbm(&sp, GNN_FEAT_STORE_CSR);
    sparse_sbm(&dn, GNN_FEAT_STORE_DENSE);
    static const struct { gnn_model_kind model; gnn_train_mode mode; } k_runs[] = {
        { GNN_MODEL_GCN, GNN_MODE_FULLBATCH }, { GNN_MODEL_GCN, GNN_MODE_MINIBATCH }, { GNN_MODEL_GAT, GNN_MODE_FULLBATCH },
    };
    for (size_t i = 0; i < sizeof k_runs / sizeof k_runs[0]; i++) {
        gnn_train_config c;
        gnn_train_defaults(&c);
        c.model = k_runs[i].model;
        c.mode = k_runs[i].mode;
        c.epochs = 3;
        c.hidden = 8;
        c.heads = 2;
        c.batch = 64;
        c.fanouts[0] = 5;
        c.fanouts[1] = 3;
        c.eval_every = 0;
        set_threads(1);
        c.impl = gnn_impl_ref();
        gnn_train_result base, r;
        train_losses(&sp, &c, &base);
        for (int t = 1; t <= 3; t++) {
            set_threads(t);
            c.impl = gnn_impl_opt();
            train_losses(&sp, &c, &r);
            same_losses(&base, &r, t == 1 ? "opt, 1 thread" : t == 2 ? "opt, 2 threads" : "opt, 3 threads");
            gnn_train_result_free(&r);
        }
        if (c.model == GNN_MODEL_GCN) {
            c.impl = gnn_impl_ref();
            train_losses(&dn, &c, &r);
            same_losses(&base, &r, "gcn: dense input, ref");
            gnn_train_result_free(&r);
        }
        gnn_train_result_free(&base);
    }
    set_threads(2);
    gnn_dataset_free(&sp);
    gnn_dataset_free(&dn);
}
END_TEST

/* The entry points refuse bad calls before any body runs. */
START_TEST(api_checks)
{
    gnn_fcsr x;
    const float dense[6] = { 0, 1, 0, 0, 0, 2 };
    ck_assert_int_eq(gnn_fcsr_from_dense(dense, 2, 3, &x), GNN_OK);
    ck_assert_int_eq(x.nnz, 2);
    float w[6] = { 1, 2, 3, 4, 5, 6 }, y[4];
    ck_assert_int_eq(gnn_spmm_fwd(NULL, &x, w, NULL, 2, y), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_spmm_fwd(&gnn_spmm_ref, &x, NULL, NULL, 2, y), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_spmm_fwd(&gnn_spmm_ref, &x, w, NULL, -1, y), GNN_ERR_INVAL);
    const gnn_spmm_ops partial = { .name = "partial" };
    ck_assert_int_eq(gnn_spmm_fwd(&partial, &x, w, NULL, 2, y), GNN_ERR_UNSUPPORTED);
    ck_assert_int_eq(gnn_spmm_fwd(&gnn_spmm_cpu, &x, w, NULL, 2, y), GNN_OK);
    ck_assert(y[0] == 3.0f && y[1] == 4.0f && y[2] == 10.0f && y[3] == 12.0f);
    gnn_fcsr g;
    const int64_t rows_bad[1] = { 2 }, gid[1] = { 0 };
    ck_assert_int_eq(gnn_spmm_gather(&gnn_spmm_ref, &x, rows_bad, 1, &g), GNN_ERR_RANGE);
    ck_assert_int_eq(gnn_spmm_dropout(&gnn_spmm_ref, &x, gid, 1.0f, 1, 0, 0), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_spmm_dropout(&gnn_spmm_ref, &x, gid, 0.5f, 1, 0, 256), GNN_ERR_INVAL);
    x.indptr[2] = 5; /* indptr[rows] != nnz */
    ck_assert_int_eq(gnn_spmm_fwd(&gnn_spmm_ref, &x, w, NULL, 2, y), GNN_ERR_INVAL);
    gnn_err err;
    ck_assert_int_eq(gnn_fcsr_validate(&x, "m", &err), GNN_ERR_RANGE);
    gnn_fcsr_free(&x);
}
END_TEST

Suite *suite_sparse_features(void)
{
    Suite *s = suite_create("sparse_features");
    TCase *tc = tcase_create("cpu");
    tcase_set_tags(tc, "cpu");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    tcase_add_test(tc, format_round_trip);
    tcase_add_test(tc, format_bad_files);
    tcase_add_test(tc, import_choice);
    tcase_add_test(tc, cli_info_storage);
    tcase_add_test(tc, train_bitwise);
    tcase_add_test(tc, api_checks);
    suite_add_tcase(s, tc);
    return s;
}
