/* tests/test_import.c -- datasets: the importers (the text layout of shared/datasets/, OGB
 * raw CSV gzipped or not, plain edge lists), their limits, and the generators (R-MAT, SBM, the
 * built-in default); the binary format and the command line are in tests/test_data.c.
 *
 * Every bad-input case checks the status code and that the message names the file, the line
 * and the offending value. Generators are checked for bitwise determinism across OpenMP
 * thread counts and for the structure they promise (R-MAT skew, SBM homophily). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef GNN_HAVE_OPENMP
#include <omp.h>
#endif
#include "gnnref/dataset.h"
#include "gnnref/tensor.h"
#include "data_util.h"

#define CORA_DIR "../shared/datasets/cora"

/* ==== helpers ==== */

static void write_gz(const char *path, const char *text)
{
    gzFile f = gzopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(gzwrite(f, text, (unsigned)strlen(text)), (int)strlen(text));
    ck_assert_int_eq(gzclose(f), Z_OK);
}

/* ==== text layout ==== */

START_TEST(text_import_fixture)
{
    gnn_dataset ds;
    gnn_err err;
    ck_assert_msg(gnn_import_text(&ds, FIXTURES "/text_tiny", NULL, &err) == GNN_OK, "%s", err.msg);
    ck_assert_str_eq(ds.name, "text_tiny");
    ck_assert_int_eq(ds.graph.n, 6);
    ck_assert_int_eq(ds.graph.nnz, 8);
    ck_assert_int_eq(ds.stats.edges_read, 9);
    ck_assert_int_eq(ds.stats.duplicates_merged, 1);
    ck_assert_int_eq(ds.stats.symmetrized, 0);
    ck_assert_int_eq(gnn_csr_degree(&ds.graph, 5), 0);
    /* row 1 = in-neighbors of 1 = {0, 2} */
    ck_assert_int_eq(ds.graph.indices[ds.graph.indptr[1]], 0);
    ck_assert_int_eq(ds.graph.indices[ds.graph.indptr[1] + 1], 2);
    ck_assert_int_eq(ds.num_features, 3);
    ck_assert(ds.feat[0 * 3 + 0] == 1.0f && ds.feat[0 * 3 + 2] == 0.5f && ds.feat[3 * 3 + 1] == -2.0f);
    ck_assert(ds.feat[1 * 3 + 1] == 0.0f);
    ck_assert_int_eq(ds.num_classes, 2);
    ck_assert_int_eq(ds.labels[4], -1);
    ck_assert_int_eq(ds.labels[3], 1);
    ck_assert_ptr_nonnull(ds.split);
    const uint8_t want[6] = { 1, 1, 2, 3, 0, 3 };
    ck_assert(!memcmp(ds.split, want, 6));
    gnn_dataset_free(&ds);
}
END_TEST

START_TEST(text_malformed_line)
{
    gnn_dataset ds;
    gnn_err err;
    const char *dir = text_copy_with("edges.txt", "0 1\n1 0\n1 x\n");
    ck_assert_int_eq(gnn_import_text(&ds, dir, NULL, &err), GNN_ERR_FORMAT);
    ck_assert_msg_has(err, "edges.txt:3: ");
    ck_assert_msg_has(err, "(got '1 x')");
    dir = text_copy_with("edges.txt", "0 1 2\n");
    ck_assert_int_eq(gnn_import_text(&ds, dir, NULL, &err), GNN_ERR_FORMAT);
    ck_assert_msg_has(err, "edges.txt:1: ");
    dir = text_copy_with("features.txt", "0 0 1\n0 0 1\n");
    ck_assert_int_eq(gnn_import_text(&ds, dir, NULL, &err), GNN_ERR_FORMAT); /* repeated entry */
    ck_assert_msg_has(err, "features.txt:2: ");
    dir = text_copy_with("labels.txt", "0\n1\n");
    ck_assert_int_eq(gnn_import_text(&ds, dir, NULL, &err), GNN_ERR_FORMAT); /* too few lines */
    ck_assert_msg_has(err, "2 label lines, expected num_nodes = 6");
    dir = text_copy_with("meta.txt", "num_features 3\n");
    ck_assert_int_eq(gnn_import_text(&ds, dir, NULL, &err), GNN_ERR_FORMAT);
    ck_assert_msg_has(err, "num_nodes");
    dir = text_copy_with("edges.txt", "0 1\n1 0\n\x01\x02\n");
    ck_assert_int_eq(gnn_import_text(&ds, dir, NULL, &err), GNN_ERR_FORMAT);
}
END_TEST

START_TEST(text_bad_values)
{
    gnn_dataset ds;
    gnn_err err;
    const char *dir = text_copy_with("edges.txt", "0 1\n1 0\n1 6\n");
    ck_assert_int_eq(gnn_import_text(&ds, dir, NULL, &err), GNN_ERR_RANGE);
    ck_assert_msg_has(err, "edges.txt:3: vertex id 6 outside [0, 6)");
    dir = text_copy_with("labels.txt", "0\n1\n0\n9\n-1\n0\n");
    ck_assert_int_eq(gnn_import_text(&ds, dir, NULL, &err), GNN_ERR_RANGE);
    ck_assert_msg_has(err, "labels.txt:4: node 3 has label 9, expected -1 or [0, 2)");
    dir = text_copy_with("features.txt", "0 0 1\n2 1 nan\n");
    ck_assert_int_eq(gnn_import_text(&ds, dir, NULL, &err), GNN_ERR_NAN);
    ck_assert_msg_has(err, "features.txt:2: node 2 feature 1");
    dir = text_copy_with("val.txt", "1\n");
    ck_assert_int_eq(gnn_import_text(&ds, dir, NULL, &err), GNN_ERR_FORMAT);
    ck_assert_msg_has(err, "val.txt:1: vertex 1 is already in the train split");
    dir = text_copy_with("meta.txt", "num_nodes 6\nnum_features 3\nnum_classes 2\nnum_directed_edges 10\n");
    ck_assert_int_eq(gnn_import_text(&ds, dir, NULL, &err), GNN_ERR_FORMAT);
    ck_assert_msg_has(err, "num_directed_edges 10");
}
END_TEST

START_TEST(text_import_cora)
{
    struct stat sb;
    if (stat(CORA_DIR "/meta.txt", &sb) != 0) {
        fprintf(stderr, "text_import_cora: SKIP (%s not found; run from the repo root with shared/datasets beside it)\n",
                CORA_DIR);
        return;
    }
    gnn_dataset ds;
    gnn_err err;
    ck_assert_msg(gnn_dataset_open(&ds, CORA_DIR, &err) == GNN_OK, "%s", err.msg);
    ck_assert_int_eq(ds.graph.n, 2708);
    ck_assert_int_eq(ds.graph.nnz, 10556);
    ck_assert_int_eq(ds.stats.duplicates_merged, 0);
    ck_assert_int_eq(ds.num_features, 1433);
    ck_assert_int_eq(ds.num_classes, 7);
    int64_t cnt[4] = { 0, 0, 0, 0 }, ones = 0;
    for (int64_t v = 0; v < ds.graph.n; v++)
        cnt[ds.split[v]]++;
    ck_assert_int_eq(cnt[GNN_SPLIT_TRAIN], 140);
    ck_assert_int_eq(cnt[GNN_SPLIT_VAL], 500);
    ck_assert_int_eq(cnt[GNN_SPLIT_TEST], 1000);
    for (int64_t i = 0; i < ds.graph.n * ds.num_features; i++)
        ones += ds.feat[i] == 1.0f;
    ck_assert_int_eq(ones, 49216); /* feature_nnz in meta.txt */
    gnn_dataset_free(&ds);
}
END_TEST

/* ==== OGB ==== */

static void write_ogb(const char *root, int gz)
{
    static const char *const files[][2] = {
        { "raw/num-node-list.csv", "4\n" },      { "raw/edge.csv", "0,1\n1,2\n2,0\n3,3\n1,0\n" },
        { "raw/node-feat.csv", "0.5,1\n-1,2\n3,4.25\n0,0\n" }, { "raw/node-label.csv", "1\nnan\n0\n2\n" },
        { "split/time/train.csv", "0\n1\n" },    { "split/time/valid.csv", "2\n" },
        { "split/time/test.csv", "3\n" },
    };
    char p[512];
    mkdir(root, 0755);
    snprintf(p, sizeof p, "%s/raw", root);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/split", root);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/split/time", root);
    mkdir(p, 0755);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s%s", root, files[i][0], gz ? ".gz" : "");
        if (gz)
            write_gz(p, files[i][1]);
        else
            write_text(p, files[i][1]);
    }
}

static void check_ogb_tiny(const gnn_dataset *ds)
{
    ck_assert_int_eq(ds->graph.n, 4);
    /* {0-1, 1-2, 2-0} both ways + the self-loop 3-3 once; "1,0" repeats "0,1" */
    ck_assert_int_eq(ds->graph.nnz, 7);
    ck_assert_int_eq(ds->stats.edges_read, 5);
    ck_assert_int_eq(ds->stats.duplicates_merged, 2);
    ck_assert_int_eq(ds->stats.symmetrized, 1);
    ck_assert_int_eq(ds->num_features, 2);
    ck_assert(ds->feat[2 * 2 + 1] == 4.25f && ds->feat[1 * 2] == -1.0f);
    ck_assert_int_eq(ds->num_classes, 3);
    ck_assert_int_eq(ds->labels[1], -1);
    ck_assert_int_eq(ds->labels[3], 2);
    const uint8_t want[4] = { 1, 1, 2, 3 };
    ck_assert(!memcmp(ds->split, want, 4));
}

START_TEST(ogb_import_gz_and_plain)
{
    gnn_dataset a, b, c;
    gnn_err err;
    write_ogb(tmp_path("gz"), 1);
    write_ogb(tmp_path("plain"), 0);
    ck_assert_str_eq(gnn_dataset_spec_kind(tmp_path("gz")), "ogb");
    ck_assert_msg(gnn_dataset_open(&a, tmp_path("gz"), &err) == GNN_OK, "%s", err.msg);
    check_ogb_tiny(&a);
    ck_assert_str_eq(a.name, "gz");
    ck_assert_msg(gnn_import_ogb(&b, tmp_path("plain/raw"), NULL, &err) == GNN_OK, "%s", err.msg); /* DIR/raw works too */
    check_ogb_tiny(&b);
    ck_assert_str_eq(b.name, "plain");
    ck_assert_msg(gnn_import_ogb(&c, FIXTURES "/ogb_tiny", NULL, &err) == GNN_OK, "%s", err.msg);
    check_ogb_tiny(&c);
    gnn_dataset_free(&a);
    gnn_dataset_free(&b);
    gnn_dataset_free(&c);
}
END_TEST

START_TEST(ogb_bad_input)
{
    gnn_dataset ds;
    gnn_err err;
    write_ogb(tmp_path("o"), 1);
    write_gz(tmp_path("o/raw/node-feat.csv.gz"), "0.5,1\n-1\n3,4\n0,0\n");
    ck_assert_int_eq(gnn_import_ogb(&ds, tmp_path("o"), NULL, &err), GNN_ERR_FORMAT);
    ck_assert_msg_has(err, "node-feat.csv.gz:2: row has 1 values, expected 2");
    write_gz(tmp_path("o/raw/node-feat.csv.gz"), "0.5,1\n-1,inf\n3,4\n0,0\n");
    ck_assert_int_eq(gnn_import_ogb(&ds, tmp_path("o"), NULL, &err), GNN_ERR_NAN);
    ck_assert_msg_has(err, "node-feat.csv.gz:2: node 1 feature 1");
    write_gz(tmp_path("o/raw/node-feat.csv.gz"), "0.5,1\n-1,2\n3,4\n0,0\n");
    write_gz(tmp_path("o/raw/edge.csv.gz"), "0,1\n1,7\n");
    ck_assert_int_eq(gnn_import_ogb(&ds, tmp_path("o"), NULL, &err), GNN_ERR_RANGE);
    ck_assert_msg_has(err, "vertex id 7 outside [0, 4)");
    write_gz(tmp_path("o/raw/edge.csv.gz"), "0,1\n1;2\n");
    ck_assert_int_eq(gnn_import_ogb(&ds, tmp_path("o"), NULL, &err), GNN_ERR_FORMAT);
    ck_assert_msg_has(err, "edge.csv.gz:2: expected 'u,v' (got '1;2')");
    /* a truncated gzip stream is an error, not a short file */
    write_gz(tmp_path("o/raw/edge.csv.gz"), "0,1\n1,2\n2,3\n0,2\n1,3\n0,3\n");
    blob b = read_blob(tmp_path("o/raw/edge.csv.gz"));
    write_blob(tmp_path("o/raw/edge.csv.gz"), b, b.len - 6);
    ck_assert_int_ne(gnn_import_ogb(&ds, tmp_path("o"), NULL, &err), GNN_OK);
    ck_assert_msg_has(err, "edge.csv.gz");
}
END_TEST

/* ==== edge lists ==== */

START_TEST(edgelist_import)
{
    gnn_dataset ds;
    gnn_err err;
    ck_assert_msg(gnn_import_edgelist(&ds, FIXTURES "/tiny.edges", NULL, &err) == GNN_OK, "%s", err.msg);
    ck_assert_str_eq(ds.name, "tiny");
    ck_assert_int_eq(ds.graph.n, 6);        /* max id 5 + 1 */
    ck_assert_int_eq(ds.graph.nnz, 8);      /* {0-1, 1-2, 2-0, 4-5} both ways */
    ck_assert_int_eq(ds.stats.edges_read, 6);
    ck_assert_int_eq(ds.stats.self_loops_dropped, 1);
    ck_assert_int_eq(ds.stats.duplicates_merged, 2);
    ck_assert_int_eq(gnn_csr_degree(&ds.graph, 3), 0);
    ck_assert_int_eq(ds.num_features, 0);
    ck_assert_ptr_null(ds.labels);
    gnn_dataset_free(&ds);
    write_text(tmp_path("bad.edges"), "# ok\n0 1\n-3 2\n");
    ck_assert_int_eq(gnn_import_edgelist(&ds, tmp_path("bad.edges"), NULL, &err), GNN_ERR_RANGE);
    ck_assert_msg_has(err, "bad.edges:3: ");
    write_text(tmp_path("bad.edges"), "0 1 0.5\n");
    ck_assert_int_eq(gnn_import_edgelist(&ds, tmp_path("bad.edges"), NULL, &err), GNN_ERR_FORMAT);
    ck_assert_msg_has(err, "bad.edges:1: expected two vertex ids 'u v' (got '0 1 0.5')");
}
END_TEST

/* ==== generators ==== */

static void set_threads(int t)
{
#ifdef GNN_HAVE_OPENMP
    omp_set_num_threads(t);
#else
    (void)t;
#endif
}

START_TEST(gen_rmat_thread_independent)
{
    gnn_rmat_params p;
    gnn_rmat_defaults(&p);
    p.scale = 12;
    p.edge_factor = 8;
    p.num_features = 5;
    p.num_classes = 3;
    p.seed = 99;
    gnn_dataset a, b, c;
    gnn_err err;
    set_threads(1);
    ck_assert_int_eq(gnn_gen_rmat(&a, &p, &err), GNN_OK);
    set_threads(2);
    ck_assert_int_eq(gnn_gen_rmat(&b, &p, &err), GNN_OK);
    ds_assert_equal(&a, &b);
    set_threads(3);
    p.seed = 100;
    ck_assert_int_eq(gnn_gen_rmat(&c, &p, &err), GNN_OK);
    ck_assert(c.graph.nnz != a.graph.nnz ||
              memcmp(c.graph.indices, a.graph.indices, (size_t)a.graph.nnz * 8) != 0); /* the seed matters */
    gnn_dataset_free(&a);
    gnn_dataset_free(&b);
    gnn_dataset_free(&c);
}
END_TEST

START_TEST(gen_sbm_thread_independent)
{
    gnn_sbm_params p;
    gnn_sbm_defaults(&p);
    p.n = 3000;
    p.deg_in = 7.5; /* fractional: exercises the per-vertex count coin */
    p.num_features = 9; /* odd width: the last Box-Muller pair is half used */
    gnn_dataset a, b;
    gnn_err err;
    set_threads(1);
    ck_assert_int_eq(gnn_gen_sbm(&a, &p, &err), GNN_OK);
    set_threads(2);
    ck_assert_int_eq(gnn_gen_sbm(&b, &p, &err), GNN_OK);
    ds_assert_equal(&a, &b);
    gnn_dataset_free(&a);
    gnn_dataset_free(&b);
}
END_TEST

START_TEST(gen_rmat_degree_skew)
{
    gnn_rmat_params p;
    gnn_rmat_defaults(&p);
    p.scale = 14;
    gnn_dataset ds;
    gnn_err err;
    ck_assert_int_eq(gnn_gen_rmat(&ds, &p, &err), GNN_OK);
    const int64_t n = ds.graph.n;
    ck_assert_int_eq(n, 1 << 14);
    ck_assert_int_eq(ds.stats.edges_read, 16 << 14);
    /* symmetric, loop-free, deduplicated: the CSR entries are at most 2 per generated edge */
    ck_assert_int_le(ds.graph.nnz, 2 * ds.stats.edges_read);
    ck_assert_int_eq(ds.graph.nnz + ds.stats.duplicates_merged + 2 * ds.stats.self_loops_dropped,
                     2 * ds.stats.edges_read);
    int64_t max = 0, isolated = 0;
    for (int64_t v = 0; v < n; v++) {
        int64_t d = gnn_csr_degree(&ds.graph, v);
        max = d > max ? d : max;
        isolated += d == 0;
        for (int64_t e = ds.graph.indptr[v]; e < ds.graph.indptr[v + 1]; e++)
            ck_assert_int_ne(ds.graph.indices[e], v);
    }
    const double mean = (double)ds.graph.nnz / (double)n;
    /* a power-law-like graph: the hub is two orders of magnitude above the mean, and many
     * vertices get no edge at all (an Erdos-Renyi graph of this density would have neither) */
    ck_assert_msg(max > 50 * mean, "max degree %lld, mean %.1f", (long long)max, mean);
    ck_assert_msg(isolated > n / 20, "isolated %lld of %lld", (long long)isolated, (long long)n);
    /* vertex 0 collects the a-quadrant at every level: it is the hub */
    ck_assert_int_eq(gnn_csr_degree(&ds.graph, 0), max);
    gnn_dataset_free(&ds);
}
END_TEST

START_TEST(gen_sbm_homophily)
{
    gnn_sbm_params p;
    gnn_sbm_defaults(&p);
    p.n = 5000;
    gnn_dataset ds;
    gnn_err err;
    ck_assert_int_eq(gnn_gen_sbm(&ds, &p, &err), GNN_OK);
    const int64_t n = ds.graph.n, f = ds.num_features;
    int64_t same = 0;
    for (int64_t v = 0; v < n; v++)
        for (int64_t e = ds.graph.indptr[v]; e < ds.graph.indptr[v + 1]; e++)
            same += ds.labels[ds.graph.indices[e]] == ds.labels[v];
    const double h = (double)same / (double)ds.graph.nnz;
    const double want = p.deg_in / (p.deg_in + p.deg_out);
    ck_assert_msg(fabs(h - want) < 0.03, "homophily %.3f, expected about %.3f", h, want);
    const double mean_deg = (double)ds.graph.nnz / (double)n;
    ck_assert_msg(fabs(mean_deg - (p.deg_in + p.deg_out)) < 0.5, "mean degree %.2f", mean_deg);
    /* features carry the class: the per-class mean is close to a +-1 centroid, and the
     * spread around it is the noise */
    double sum = 0, sq = 0;
    int64_t cnt = 0;
    for (int64_t v = 0; v < n; v++)
        if (ds.labels[v] == 0)
            for (int64_t j = 0; j < f; j++) {
                sum += ds.feat[v * f + j];
                sq += (double)ds.feat[v * f + j] * ds.feat[v * f + j];
                cnt++;
            }
    const double mean = sum / (double)cnt, var = sq / (double)cnt - mean * mean;
    ck_assert_msg(fabs(sqrt(var - 1.0) - p.noise) < 0.2, "class-0 spread %.3f, noise %.3f", sqrt(var - 1.0), p.noise);
    /* labels are balanced and the split follows the fractions */
    int64_t cls0 = 0, train = 0;
    for (int64_t v = 0; v < n; v++) {
        cls0 += ds.labels[v] == 0;
        train += ds.split[v] == GNN_SPLIT_TRAIN;
    }
    ck_assert_int_gt(cls0, n / p.classes / 2);
    ck_assert_int_eq(train, (int64_t)llround(p.train * (double)n));
    gnn_dataset_free(&ds);
}
END_TEST

START_TEST(gen_bad_params)
{
    gnn_dataset ds;
    gnn_err err;
    gnn_rmat_params r;
    gnn_rmat_defaults(&r);
    r.scale = 0;
    ck_assert_int_eq(gnn_gen_rmat(&ds, &r, &err), GNN_ERR_INVAL);
    ck_assert_msg_has(err, "scale 0");
    gnn_rmat_defaults(&r);
    r.a = 0.9;
    ck_assert_int_eq(gnn_gen_rmat(&ds, &r, &err), GNN_ERR_INVAL);
    gnn_sbm_params s;
    gnn_sbm_defaults(&s);
    s.noise = -1;
    ck_assert_int_eq(gnn_gen_sbm(&ds, &s, &err), GNN_ERR_INVAL);
    gnn_sbm_defaults(&s);
    s.classes = 0;
    ck_assert_int_eq(gnn_gen_sbm(&ds, &s, &err), GNN_ERR_INVAL);
    /* one class: no out-of-class partners exist, and that is not an error */
    gnn_sbm_defaults(&s);
    s.n = 50;
    s.classes = 1;
    ck_assert_int_eq(gnn_gen_sbm(&ds, &s, &err), GNN_OK);
    gnn_dataset_free(&ds);
}
END_TEST

START_TEST(builtin_dataset)
{
    gnn_dataset a, b;
    gnn_err err;
    ck_assert_int_eq(gnn_dataset_open(&a, "builtin", &err), GNN_OK);
    ck_assert_str_eq(a.name, "builtin");
    ck_assert_int_eq(a.graph.n, 20000);
    ck_assert_int_eq(a.num_classes, 8);
    ck_assert_int_eq(a.num_features, 64);
    const double mean = (double)a.graph.nnz / (double)a.graph.n;
    ck_assert(mean >= 10 && mean <= 15);
    ck_assert_ptr_nonnull(a.split);
    ck_assert_int_eq(gnn_dataset_builtin(&b, &err), GNN_OK);
    ds_assert_equal(&a, &b);
    gnn_dataset_free(&a);
    gnn_dataset_free(&b);
}
END_TEST

/* ==== what a file may claim: the robustness run's findings ==== */

static void write_bytes(const char *path, const char *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

/* A NUL is an error wherever it appears: in a last line without '\n' it used to end the line
 * unseen, and `0 1\n2 3\0 99 98` converted with exit 0, losing the edge 99-98. */
START_TEST(text_nul_byte_anywhere)
{
    static const struct { const char *bytes; size_t len; int line; } cases[] = {
        { "0 1\n2 3\0 99 98", 14, 2 },  /* the finding: last line, no newline */
        { "0 1\n2 3\0 99 98\n", 15, 2 }, /* the same with a newline */
        { "0 1\n2\0 3\n4 5\n", 12, 2 },  /* mid-file */
        { "\0", 1, 1 },                   /* alone */
        { "0 1\n\0", 5, 2 },              /* after the last newline */
    };
    gnn_dataset ds;
    gnn_err err;
    char want[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_bytes(tmp_path("nul.edges"), cases[i].bytes, cases[i].len);
        ck_assert_int_eq(gnn_import_edgelist(&ds, tmp_path("nul.edges"), NULL, &err), GNN_ERR_FORMAT);
        snprintf(want, sizeof want, "nul.edges:%d: a NUL byte", cases[i].line);
        ck_assert_msg_has(err, want);
    }
    /* in the text layout's edges and the OGB edge list (gzipped: the NUL is in the
     * decompressed bytes) */
    const char *dir = text_copy_with("edges.txt", "0 1\n1 0\n");
    char p[512];
    snprintf(p, sizeof p, "%s/edges.txt", dir);
    write_bytes(p, cases[0].bytes, cases[0].len);
    ck_assert_int_eq(gnn_import_text(&ds, dir, NULL, &err), GNN_ERR_FORMAT);
    ck_assert_msg_has(err, "edges.txt:2: a NUL byte");
    const char *root = tmp_path("ogbnul");
    write_ogb(root, 1);
    snprintf(p, sizeof p, "%s/raw/edge.csv.gz", root);
    gzFile g = gzopen(p, "wb");
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(gzwrite(g, "0,1\n2,3\0,9", 10), 10);
    ck_assert_int_eq(gzclose(g), Z_OK);
    ck_assert_int_eq(gnn_import_ogb(&ds, root, NULL, &err), GNN_ERR_FORMAT);
    ck_assert_msg_has(err, "edge.csv.gz:2: a NUL byte");
    /* a file without NULs still reads its last line without a newline */
    write_bytes(tmp_path("last.edges"), "0 1\n2 3", 7);
    ck_assert_msg(gnn_import_edgelist(&ds, tmp_path("last.edges"), NULL, &err) == GNN_OK, "%s", err.msg);
    ck_assert_int_eq(ds.graph.n, 4);
    ck_assert_int_eq(ds.graph.nnz, 4);
    gnn_dataset_free(&ds);
}
END_TEST
/* A 12-byte edge list `0 100000000` took 19 s and 2.35 GB and wrote 800 MB. Every importer
 * refuses more than max_vertices vertices (default 2^24) before it allocates for them. */
START_TEST(import_max_vertices)
{
    gnn_dataset ds;
    gnn_err err;
    write_text(tmp_path("big.edges"), "0 100000000");
    ck_assert_int_eq(gnn_import_edgelist(&ds, tmp_path("big.edges"), NULL, &err), GNN_ERR_RANGE);
    ck_assert_msg_has(err, "big.edges:1: vertex id 100000000 needs 100000001 vertices, above the limit of 16777216");
    gnn_import_options o;
    gnn_import_defaults(&o);
    ck_assert_int_eq(o.max_vertices, (int64_t)1 << 24);
    o.max_vertices = 100;
    write_text(tmp_path("e.edges"), "0 99\n");
    ck_assert_msg(gnn_import_edgelist(&ds, tmp_path("e.edges"), &o, &err) == GNN_OK, "%s", err.msg);
    ck_assert_int_eq(ds.graph.n, 100);
    gnn_dataset_free(&ds);
    write_text(tmp_path("e.edges"), "0 99\n3 100\n");
    ck_assert_int_eq(gnn_import_edgelist(&ds, tmp_path("e.edges"), &o, &err), GNN_ERR_RANGE);
    ck_assert_msg_has(err, "e.edges:2: vertex id 100 needs 101 vertices, above the limit of 100");
    o.max_vertices = 0;
    ck_assert_int_eq(gnn_import_edgelist(&ds, tmp_path("e.edges"), &o, &err), GNN_ERR_INVAL);
    /* text: num_nodes in meta.txt is the claim, checked before anything is allocated */
    const char *dir = text_copy_with("meta.txt", "num_nodes 1000000000\nnum_features 3\nnum_classes 2\n");
    ck_assert_int_eq(gnn_import_text(&ds, dir, NULL, &err), GNN_ERR_RANGE);
    ck_assert_msg_has(err, "meta.txt: num_nodes: 1000000000 vertices, above the limit of 16777216");
    /* OGB: num-node-list.csv, or the largest id in edge.csv */
    const char *root = tmp_path("ogbbig");
    write_ogb(root, 0);
    char p[512];
    snprintf(p, sizeof p, "%s/raw/num-node-list.csv", root);
    write_text(p, "1000000000\n");
    ck_assert_int_eq(gnn_import_ogb(&ds, root, NULL, &err), GNN_ERR_RANGE);
    ck_assert_msg_has(err, "num-node-list.csv: 1000000000 vertices, above the limit of 16777216");
    ck_assert_int_eq(unlink(p), 0);
    snprintf(p, sizeof p, "%s/raw/edge.csv", root);
    write_text(p, "0,1\n1,100000000\n");
    ck_assert_int_eq(gnn_import_ogb(&ds, root, NULL, &err), GNN_ERR_RANGE);
    ck_assert_msg_has(err, "edge.csv:2: vertex id 100000000 needs 100000001 vertices");
    if (getenv("GNN_TOOL")) {
        char e[4096], args[1024];
        snprintf(args, sizeof args, "convert --format edgelist %s -o %s", tmp_path("big.edges"), tmp_path("big.gnn"));
        ck_assert_int_eq(run_tool(args, e, sizeof e), 2);
        ck_assert_msg(contains(e, "--max-vertices"), "%s", e);
        ck_assert_int_eq(access(tmp_path("big.gnn"), F_OK), -1); /* nothing written */
        snprintf(args, sizeof args, "convert --format edgelist %s -o %s --max-vertices 0", tmp_path("e.edges"),
                 tmp_path("e.gnn"));
        ck_assert_int_eq(run_tool(args, e, sizeof e), 2);
        ck_assert_msg(contains(e, "--max-vertices"), "%s", e);
        snprintf(args, sizeof args, "convert --format edgelist %s -o %s --max-vertices 101", tmp_path("e.edges"),
                 tmp_path("e.gnn"));
        ck_assert_int_eq(run_tool(args, e, sizeof e), 0);
    }
}
END_TEST

Suite *suite_import(void)
{
    Suite *s = suite_create("import");
    TCase *tc = tcase_create("cpu");
    tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, text_import_fixture);
    tcase_add_test(tc, text_malformed_line);
    tcase_add_test(tc, text_bad_values);
    tcase_add_test(tc, text_import_cora);
    tcase_add_test(tc, ogb_import_gz_and_plain);
    tcase_add_test(tc, ogb_bad_input);
    tcase_add_test(tc, edgelist_import);
    tcase_add_test(tc, gen_rmat_thread_independent);
    tcase_add_test(tc, gen_sbm_thread_independent);
    tcase_add_test(tc, gen_rmat_degree_skew);
    tcase_add_test(tc, gen_sbm_homophily);
    tcase_add_test(tc, gen_bad_params);
    tcase_add_test(tc, builtin_dataset);
    tcase_add_test(tc, text_nul_byte_anywhere);
    tcase_add_test(tc, import_max_vertices);
    suite_add_tcase(s, tc);
    return s;
}
