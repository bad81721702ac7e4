/* tests/test_hetero_data.c -- heterogeneous datasets (docs/formats.md "Types", docs/hetero.md
 * section 6): the type fields and their checks, the format's type sections (version 3) and their
 * errors, the typed SBM (builtin-typed unchanged, featureless types), the OGB heterogeneous
 * importer on a small layout written here, and the tool's `gen hsbm`, `info`, `convert` and
 * `train --model rgcn` on a typed file. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#include "data_util.h"
#include "file_util.h"
#include "gnnref/dataset.h"
#include "gnnref/tensor.h"

/* A small typed SBM: 3 types, the last featureless. */
static void small_hsbm(gnn_dataset *ds, int64_t n, int64_t types, int64_t featureless)
{
    gnn_sbm_params p;
    gnn_sbm_defaults(&p);
    p.n = n;
    p.num_features = 6;
    gnn_err err;
    ck_assert_msg(gnn_gen_hsbm(ds, &p, types, featureless, &err) == GNN_OK, "%s", err.msg);
}

static void types_assert_equal(const gnn_dataset *a, const gnn_dataset *b)
{
    ck_assert_int_eq(a->num_vtypes, b->num_vtypes);
    ck_assert_int_eq(a->num_etypes, b->num_etypes);
    ck_assert_int_eq(a->vtype == NULL, b->vtype == NULL);
    ck_assert_int_eq(a->etype == NULL, b->etype == NULL);
    if (a->vtype)
        ck_assert(!memcmp(a->vtype, b->vtype, (size_t)a->graph.n * 4));
    if (a->etype)
        ck_assert(!memcmp(a->etype, b->etype, (size_t)a->graph.nnz * 4));
    for (int64_t t = 0; t < a->num_vtypes; t++) {
        ck_assert_str_eq(a->vtype_names[t], b->vtype_names[t]);
        ck_assert_int_eq(a->vtype_featless[t], b->vtype_featless[t]);
    }
    for (int64_t r = 0; r < a->num_etypes; r++)
        ck_assert_str_eq(a->etype_names[r], b->etype_names[r]);
}

static int in_mapping(const gnn_dataset *ds, const void *p)
{
    const char *c = p, *b = ds->map_base;
    return b && c >= b && c < b + ds->map_len;
}

START_TEST(typed_roundtrip)
{
    gnn_dataset a, b, c;
    gnn_err err;
    small_hsbm(&a, 300, 3, 1);
    ck_assert_int_eq(a.num_vtypes, 3);
    ck_assert_int_eq(a.num_etypes, 9);
    ck_assert_str_eq(a.vtype_names[2], "t2");
    ck_assert_str_eq(a.etype_names[5], "t1:r5:t2");
    ck_assert_int_eq(a.vtype_featless[2], 1);
    ck_assert_msg(gnn_dataset_save(&a, tmp_path("t.gnn"), &err) == GNN_OK, "%s", err.msg);
    ck_assert_msg(gnn_dataset_load(&b, tmp_path("t.gnn"), &err) == GNN_OK, "%s", err.msg);
    ds_assert_equal(&a, &b);
    types_assert_equal(&a, &b);
    /* mmap, no copy: every type array points into the mapping */
    ck_assert(in_mapping(&b, b.vtype) && in_mapping(&b, b.etype) && in_mapping(&b, b.vtype_names) &&
              in_mapping(&b, b.etype_names) && in_mapping(&b, b.vtype_featless));
    blob f = read_blob(tmp_path("t.gnn"));
    ck_assert_uint_eq(le32(f.p + GNN_HDR_OFF_VERSION), GNN_FORMAT_VERSION_TYPED);
    ck_assert_uint_eq(le32(f.p + GNN_HDR_OFF_HEADER_SIZE), GNN_FORMAT_HEADER_SIZE_TYPED);
    ck_assert_uint_eq(le32(f.p + GNN_HDR_OFF_FLAGS) & GNN_FORMAT_FLAG_TYPED, GNN_FORMAT_FLAG_TYPED);
    ck_assert(!memcmp(f.p + GNN_THDR_OFF_MAGIC, GNN_THDR_MAGIC, 8));
    ck_assert_uint_eq(le64(f.p + GNN_HDR_OFF_SECTIONS), GNN_FORMAT_HEADER_SIZE_TYPED); /* indptr after the header */
    /* a loaded typed dataset saves to the same bytes */
    ck_assert_msg(gnn_dataset_save(&b, tmp_path("u.gnn"), &err) == GNN_OK, "%s", err.msg);
    blob g = read_blob(tmp_path("u.gnn"));
    ck_assert_uint_eq(f.len, g.len);
    ck_assert(!memcmp(f.p, g.p, f.len));
    free(f.p);
    free(g.p);
    /* CSR features and types together: version 3 with flag bit 5 */
    ck_assert(gnn_dataset_set_feat_storage(&a, GNN_FEAT_STORE_CSR, &err) == GNN_OK);
    ck_assert_msg(gnn_dataset_save(&a, tmp_path("c.gnn"), &err) == GNN_OK, "%s", err.msg);
    ck_assert_msg(gnn_dataset_load(&c, tmp_path("c.gnn"), &err) == GNN_OK, "%s", err.msg);
    ck_assert(gnn_dataset_feat_is_csr(&c));
    ds_assert_equal(&a, &c);
    types_assert_equal(&a, &c);
    gnn_dataset_free(&a);
    gnn_dataset_free(&b);
    gnn_dataset_free(&c);
}
END_TEST

/* Without types a dataset is written exactly as before types existed (version 1, 512-byte
 * header): a typed SBM with its types removed gives the bytes of the plain SBM. */
START_TEST(untyped_bytes_unchanged)
{
    gnn_dataset a, b;
    gnn_err err;
    gnn_sbm_params p;
    gnn_sbm_defaults(&p);
    p.n = 400;
    ck_assert(gnn_gen_sbm(&a, &p, &err) == GNN_OK);
    ck_assert(gnn_gen_typed_sbm(&b, &p, 2, &err) == GNN_OK);
    gnn_free(b.vtype), gnn_free(b.etype), gnn_free(b.vtype_names), gnn_free(b.etype_names), gnn_free(b.vtype_featless);
    b.vtype = b.etype = NULL, b.vtype_names = b.etype_names = NULL, b.vtype_featless = NULL;
    b.num_vtypes = b.num_etypes = 0;
    memcpy(b.name, a.name, sizeof a.name);
    ck_assert(gnn_dataset_save(&a, tmp_path("a.gnn"), &err) == GNN_OK);
    ck_assert(gnn_dataset_save(&b, tmp_path("b.gnn"), &err) == GNN_OK);
    blob x = read_blob(tmp_path("a.gnn")), y = read_blob(tmp_path("b.gnn"));
    ck_assert_uint_eq(le32(x.p + GNN_HDR_OFF_VERSION), GNN_FORMAT_VERSION);
    ck_assert_uint_eq(le32(x.p + GNN_HDR_OFF_HEADER_SIZE), GNN_FORMAT_HEADER_SIZE);
    ck_assert_uint_eq(x.len, y.len);
    ck_assert(!memcmp(x.p, y.p, x.len));
    free(x.p);
    free(y.p);
    gnn_dataset_free(&a);
    gnn_dataset_free(&b);
}
END_TEST

/* builtin-typed: the built-in graph, features, labels and split, bit for bit, with the edge
 * types of before (type(u) T + type(v)) and now vertex types and names. */
START_TEST(builtin_typed_unchanged)
{
    gnn_dataset a, b;
    gnn_err err;
    ck_assert(gnn_dataset_builtin(&a, &err) == GNN_OK);
    ck_assert(gnn_dataset_open(&b, "builtin-typed", &err) == GNN_OK);
    ck_assert_str_eq(b.name, "builtin-typed");
    memcpy(b.name, a.name, sizeof a.name);
    ds_assert_equal(&a, &b);
    const int64_t n = b.graph.n;
    ck_assert_int_eq(b.num_vtypes, 2);
    ck_assert_int_eq(b.num_etypes, 4);
    for (int64_t v = 0; v < n; v++) {
        ck_assert_int_eq(b.vtype[v], v >= n / 2);
        for (int64_t e = b.graph.indptr[v]; e < b.graph.indptr[v + 1]; e++)
            ck_assert_int_eq(b.etype[e], 2 * (b.graph.indices[e] >= n / 2) + (v >= n / 2));
    }
    ck_assert_str_eq(b.vtype_names[0], "t0");
    ck_assert_str_eq(b.vtype_names[1], "t1");
    ck_assert_str_eq(b.etype_names[0], "t0:r0:t0");
    ck_assert_str_eq(b.etype_names[1], "t0:r1:t1");
    ck_assert_str_eq(b.etype_names[2], "t1:r2:t0");
    ck_assert_int_eq(b.vtype_featless[0] + b.vtype_featless[1], 0);
    gnn_dataset_free(&a);
    gnn_dataset_free(&b);
}
END_TEST

START_TEST(hsbm_featureless)
{
    gnn_dataset a, b;
    gnn_err err;
    small_hsbm(&a, 400, 4, 0);
    small_hsbm(&b, 400, 4, 2);
    ck_assert_str_eq(b.name, "typed-sbm-n400-t4-f2");
    ck_assert(!memcmp(a.graph.indices, b.graph.indices, (size_t)a.graph.nnz * 8));
    ck_assert(!memcmp(a.etype, b.etype, (size_t)a.graph.nnz * 4));
    ck_assert(!memcmp(a.labels, b.labels, (size_t)a.graph.n * 4));
    const int64_t f = a.num_features;
    for (int64_t v = 0; v < a.graph.n; v++) {
        const int fl = b.vtype[v] >= 2;
        ck_assert_int_eq(b.vtype_featless[b.vtype[v]], fl);
        for (int64_t j = 0; j < f; j++)
            ck_assert(fl ? b.feat[v * f + j] == 0.0f : b.feat[v * f + j] == a.feat[v * f + j]);
    }
    gnn_dataset c;
    ck_assert_int_eq(gnn_gen_hsbm(&c, &(gnn_sbm_params){ .n = 10 }, 2, 3, &err), GNN_ERR_INVAL);
    ck_assert_msg_has(err, "3 featureless types");
    gnn_dataset_free(&a);
    gnn_dataset_free(&b);
}
END_TEST

/* The in-memory checks: types in range, vtype never decreasing, featureless rows zero, names
 * non-empty; an etype without vtype is valid (and survives a save and load). */
START_TEST(validate_types)
{
    gnn_dataset a, b;
    gnn_err err;
    small_hsbm(&a, 200, 2, 1);
    int32_t keep = a.vtype[10];
    a.vtype[10] = 1; /* vertex 10 is type 0; vertex 11 after it is 0 again */
    ck_assert_int_eq(gnn_dataset_validate(&a, "x.gnn", &err), GNN_ERR_FORMAT);
    ck_assert_msg_has(err, "x.gnn: section 'vtype': vertex 11 has type 0 after type 1");
    a.vtype[10] = 2;
    ck_assert_int_eq(gnn_dataset_validate(&a, "x.gnn", &err), GNN_ERR_RANGE);
    ck_assert_msg_has(err, "section 'vtype': vertex 10 has type 2, expected [0, 2)");
    a.vtype[10] = keep;
    a.etype[7] = 4;
    ck_assert_int_eq(gnn_dataset_validate(&a, "x.gnn", &err), GNN_ERR_RANGE);
    ck_assert_msg_has(err, "section 'etype': entry 7");
    a.etype[7] = 0;
    a.feat[150 * a.num_features + 3] = 0.5f; /* vertex 150 is type 1, featureless */
    ck_assert_int_eq(gnn_dataset_validate(&a, "x.gnn", &err), GNN_ERR_FORMAT);
    ck_assert_msg_has(err, "section 'features': vertex 150 (type 1, featureless) has 0.5 in column 3");
    a.feat[150 * a.num_features + 3] = 0.0f;
    a.vtype_names[1][0] = '\0';
    ck_assert_int_eq(gnn_dataset_validate(&a, "x.gnn", &err), GNN_ERR_FORMAT);
    ck_assert_msg_has(err, "section 'vtnames': vertex type 1 has an empty name");
    ck_assert_int_eq(gnn_dataset_save(&a, tmp_path("bad.gnn"), &err), GNN_ERR_FORMAT); /* never written */
    snprintf(a.vtype_names[1], GNN_TYPE_NAME_MAX, "t1");
    a.vtype_featless[0] = 3;
    ck_assert_int_eq(gnn_dataset_validate(&a, "x.gnn", &err), GNN_ERR_RANGE);
    ck_assert_msg_has(err, "section 'featless': vertex type 0 has flag 3");
    a.vtype_featless[0] = 0;
    /* edge types only: the vertex types dropped; names left NULL are written as r0, r1, ... */
    gnn_free(a.vtype), gnn_free(a.vtype_names), gnn_free(a.vtype_featless), gnn_free(a.etype_names);
    a.vtype = NULL, a.vtype_names = a.etype_names = NULL, a.vtype_featless = NULL, a.num_vtypes = 0;
    ck_assert_msg(gnn_dataset_validate(&a, "x.gnn", &err) == GNN_OK, "%s", err.msg);
    ck_assert_msg(gnn_dataset_save(&a, tmp_path("e.gnn"), &err) == GNN_OK, "%s", err.msg);
    ck_assert_msg(gnn_dataset_load(&b, tmp_path("e.gnn"), &err) == GNN_OK, "%s", err.msg);
    ck_assert_ptr_null(b.vtype);
    ck_assert_ptr_null(b.vtype_featless);
    ck_assert_int_eq(b.num_etypes, 4);
    ck_assert(!memcmp(a.etype, b.etype, (size_t)a.graph.nnz * 4));
    ck_assert_str_eq(b.etype_names[3], "r3");
    /* an array without a count, or a count without an array */
    a.num_etypes = 0;
    ck_assert_int_eq(gnn_dataset_validate(&a, "x.gnn", &err), GNN_ERR_INVAL);
    ck_assert_msg_has(err, "section 'types header'");
    a.num_etypes = 4;
    gnn_dataset_free(&a);
    gnn_dataset_free(&b);
}
END_TEST

/* ---- file surgery on type sections ---- */

static unsigned char *tentry(blob b, int s) { return b.p + GNN_THDR_OFF_SECTIONS + (size_t)s * GNN_HDR_SECTION_SIZE; }

/* Recompute type section s's CRC and the type header's, as a writer of the changed bytes would. */
static void refresh_type_crcs(blob b, int s)
{
    unsigned char *e = tentry(b, s);
    put_le32(e + 16, gnn_crc32c(0, b.p + le64(e), (size_t)le64(e + 8)));
    put_le32(b.p + GNN_THDR_OFF_CRC, gnn_crc32c(0, b.p + GNN_THDR_OFF_MAGIC, GNN_THDR_OFF_CRC - GNN_THDR_OFF_MAGIC));
}

/* Load path must fail with status want and a message holding says. */
static void expect_load_error(const char *path, gnn_status want, const char *says)
{
    gnn_dataset ds;
    gnn_err err;
    gnn_status st = gnn_dataset_load(&ds, path, &err);
    ck_assert_msg(st == want, "%s: status %d, expected %d (%s)", path, (int)st, (int)want, st ? err.msg : "ok");
    ck_assert_msg_has(err, says);
}

START_TEST(bad_type_sections)
{
    gnn_dataset a;
    gnn_err err;
    small_hsbm(&a, 120, 2, 1);
    const char *good = tmp_path("g.gnn"), *bad = tmp_path("b.gnn");
    ck_assert(gnn_dataset_save(&a, good, &err) == GNN_OK);
    blob b = read_blob(good);
    const size_t len = b.len;
    free(b.p);
    /* a flipped byte in each type section: a checksum error naming it */
    static const char *const names[] = { "'vtype'", "'etype'", "'vtnames'", "'etnames'", "'featless'" };
    for (int s = 0; s < GNN_FORMAT_NUM_TYPE_SECTIONS; s++) {
        b = read_blob(good);
        b.p[le64(tentry(b, s))] ^= 0x40;
        write_blob(bad, b, len);
        expect_load_error(bad, GNN_ERR_CHECKSUM, names[s]);
    }
    /* vtype decreasing, CRCs right: the value check names the file, section and vertex */
    b = read_blob(good);
    put_le32(b.p + le64(tentry(b, GNN_TSEC_VTYPE)) + 4 * 3, 1);
    refresh_type_crcs(b, GNN_TSEC_VTYPE);
    write_blob(bad, b, len);
    expect_load_error(bad, GNN_ERR_FORMAT, "b.gnn: section 'vtype': vertex 4 has type 0 after type 1");
    /* an edge type out of range */
    b = read_blob(good);
    put_le32(b.p + le64(tentry(b, GNN_TSEC_ETYPE)) + 4 * 5, 9);
    refresh_type_crcs(b, GNN_TSEC_ETYPE);
    write_blob(bad, b, len);
    expect_load_error(bad, GNN_ERR_RANGE, "section 'etype': entry 5");
    /* an unterminated name */
    b = read_blob(good);
    memset(b.p + le64(tentry(b, GNN_TSEC_ETNAMES)), 'x', GNN_TYPE_NAME_MAX);
    refresh_type_crcs(b, GNN_TSEC_ETNAMES);
    write_blob(bad, b, len);
    expect_load_error(bad, GNN_ERR_FORMAT, "section 'etnames': edge type 0 has an unterminated name");
    /* the type header: its own CRC, its counts, its table */
    b = read_blob(good);
    b.p[GNN_THDR_OFF_NUM_VTYPES] ^= 1;
    write_blob(bad, b, len);
    expect_load_error(bad, GNN_ERR_CHECKSUM, "section 'types header': CRC32C mismatch");
    b = read_blob(good);
    b.p[GNN_THDR_OFF_NUM_VTYPES] = 3; /* 3 vertex types: the names section is too short */
    refresh_type_crcs(b, GNN_TSEC_VTYPE);
    write_blob(bad, b, len);
    expect_load_error(bad, GNN_ERR_FORMAT, "section 'vtnames': entry named 'vtnames', 128 bytes");
    b = read_blob(good);
    put_le32(tentry(b, GNN_TSEC_FEATLESS), (uint32_t)((len + 127) / 64 * 64)); /* aligned, past the end */
    refresh_type_crcs(b, GNN_TSEC_VTYPE);
    write_blob(bad, b, len);
    expect_load_error(bad, GNN_ERR_FORMAT, "truncated: section 'featless'");
    /* version 3 without the types flag; a truncated typed file */
    b = read_blob(good);
    put_le32(b.p + GNN_HDR_OFF_FLAGS, le32(b.p + GNN_HDR_OFF_FLAGS) & ~GNN_FORMAT_FLAG_TYPED);
    put_le32(b.p + GNN_HDR_OFF_CRC, gnn_crc32c(0, b.p, GNN_HDR_OFF_CRC));
    write_blob(bad, b, len);
    expect_load_error(bad, GNN_ERR_FORMAT, "version 3 without the types flag");
    b = read_blob(good);
    write_blob(bad, b, 800);
    expect_load_error(bad, GNN_ERR_FORMAT, "truncated");
    gnn_dataset_free(&a);
}
END_TEST

/* ---- the OGB heterogeneous layout ---- */

static void write_gz(const char *path, const char *text)
{
    gzFile f = gzopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(gzputs(f, text), (int)strlen(text));
    ck_assert_int_eq(gzclose(f), Z_OK);
}

/* root/rel (directories made on the way), gzipped when the name ends in .gz. */
static void put_file(const char *root, const char *rel, const char *text)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
        *s = '\0';
        mkdir(p, 0755);
        *s = '/';
    }
    size_t k = strlen(p);
    if (k > 3 && !strcmp(p + k - 3, ".gz"))
        write_gz(p, text);
    else
        write_text(p, text);
}

/* Three vertex types listed unsorted (paper 4, author 3, institution 2), three relations, paper
 * with 2 features and labels and a split, author and institution featureless; a repeated edge
 * in writes; gzipped and plain files mixed. Sorted: author [0, 3), institution [3, 5),
 * paper [5, 9); relations 0 author:affiliated_with:institution, 1 author:writes:paper,
 * 2 paper:cites:paper. */
static const char *write_mag(const char *name)
{
    const char *root = tmp_path(name);
    mkdir(root, 0755);
    put_file(root, "raw/num-node-dict.csv.gz", "paper,author,institution\n4,3,2\n");
    put_file(root, "raw/triplet-type-list.csv.gz",
             "author,writes,paper\npaper,cites,paper\nauthor,affiliated_with,institution\n");
    put_file(root, "raw/relations/author___writes___paper/edge.csv.gz", "0,0\n0,1\n1,1\n2,3\n0,1\n");
    put_file(root, "raw/relations/author___writes___paper/num-edge-list.csv.gz", "5\n");
    put_file(root, "raw/relations/author___writes___paper/edge_reltype.csv.gz", "0\n0\n0\n0\n0\n");
    put_file(root, "raw/relations/paper___cites___paper/edge.csv", "1,0\n2,0\n3,2\n");
    put_file(root, "raw/relations/author___affiliated_with___institution/edge.csv.gz", "0,0\n1,1\n2,1\n");
    put_file(root, "raw/node-feat/paper/node-feat.csv.gz", "0.5,1\n-1,2\n3,4\n0,0.25\n");
    put_file(root, "raw/node-feat/paper/node_year.csv.gz", "2019\n2019\n2018\n2020\n");
    put_file(root, "raw/node-label/paper/node-label.csv.gz", "1\n0\n2\n1\n");
    put_file(root, "raw/nodetype-has-label.csv.gz", "paper,author,institution\nTrue,False,False\n");
    put_file(root, "split/time/paper/train.csv.gz", "0\n2\n");
    put_file(root, "split/time/paper/valid.csv.gz", "1\n");
    put_file(root, "split/time/paper/test.csv.gz", "3\n");
    return root;
}

/* Row v of the CSR as (source, relation) pairs must be exactly want (k pairs). */
static void expect_row(const gnn_dataset *ds, int64_t v, const int64_t (*want)[2], int k)
{
    const int64_t b = ds->graph.indptr[v];
    ck_assert_int_eq(ds->graph.indptr[v + 1] - b, k);
    for (int i = 0; i < k; i++) {
        ck_assert_int_eq(ds->graph.indices[b + i], want[i][0]);
        ck_assert_int_eq(ds->etype[b + i], want[i][1]);
    }
}

START_TEST(ogb_hetero_import)
{
    gnn_dataset a, b, c;
    gnn_err err;
    const char *root = write_mag("mag");
    ck_assert_str_eq(gnn_dataset_spec_kind(root), "ogb");
    ck_assert_msg(gnn_dataset_open(&a, root, &err) == GNN_OK, "%s", err.msg);
    ck_assert_str_eq(a.name, "mag");
    ck_assert_int_eq(a.graph.n, 9);
    ck_assert_int_eq(a.num_vtypes, 3);
    ck_assert_str_eq(a.vtype_names[0], "author");
    ck_assert_str_eq(a.vtype_names[1], "institution");
    ck_assert_str_eq(a.vtype_names[2], "paper");
    static const int32_t vt[9] = { 0, 0, 0, 1, 1, 2, 2, 2, 2 };
    ck_assert(!memcmp(a.vtype, vt, sizeof vt));
    ck_assert_int_eq(a.num_etypes, 3);
    ck_assert_str_eq(a.etype_names[0], "author:affiliated_with:institution");
    ck_assert_str_eq(a.etype_names[1], "author:writes:paper");
    ck_assert_str_eq(a.etype_names[2], "paper:cites:paper");
    /* in-edges, directed as listed, the repeated author 0 -> paper 1 merged */
    ck_assert_int_eq(a.graph.nnz, 10);
    ck_assert_int_eq(a.stats.edges_read, 11);
    ck_assert_int_eq(a.stats.duplicates_merged, 1);
    ck_assert_int_eq(a.stats.symmetrized, 0);
    expect_row(&a, 0, NULL, 0);
    expect_row(&a, 4, (const int64_t[][2]){ { 1, 0 }, { 2, 0 } }, 2);
    expect_row(&a, 5, (const int64_t[][2]){ { 0, 1 }, { 6, 2 }, { 7, 2 } }, 3);
    expect_row(&a, 6, (const int64_t[][2]){ { 0, 1 }, { 1, 1 } }, 2);
    expect_row(&a, 8, (const int64_t[][2]){ { 2, 1 } }, 1);
    /* features: paper's rows; author and institution featureless, zero rows */
    ck_assert_int_eq(a.num_features, 2);
    static const float feat[18] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.5f, 1, -1, 2, 3, 4, 0, 0.25f };
    ck_assert(!memcmp(a.feat, feat, sizeof feat));
    ck_assert_int_eq(a.vtype_featless[0], 1);
    ck_assert_int_eq(a.vtype_featless[1], 1);
    ck_assert_int_eq(a.vtype_featless[2], 0);
    /* labels and split for paper only */
    ck_assert_int_eq(a.num_classes, 3);
    static const int32_t lab[9] = { -1, -1, -1, -1, -1, 1, 0, 2, 1 };
    ck_assert(!memcmp(a.labels, lab, sizeof lab));
    static const uint8_t split[9] = { 0, 0, 0, 0, 0, 1, 2, 1, 3 };
    ck_assert(!memcmp(a.split, split, sizeof split));
    /* reverse relations, DIR/raw; and the file round trip */
    gnn_import_options o;
    gnn_import_defaults(&o);
    o.reverse_relations = 1;
    ck_assert_msg(gnn_import_ogb(&b, tmp_path("mag/raw"), &o, &err) == GNN_OK, "%s", err.msg);
    ck_assert_str_eq(b.name, "mag");
    ck_assert_int_eq(b.num_etypes, 6);
    ck_assert_str_eq(b.etype_names[3], "institution:rev-affiliated_with:author");
    ck_assert_str_eq(b.etype_names[5], "paper:rev-cites:paper");
    ck_assert_int_eq(b.graph.nnz, 20);
    ck_assert_int_eq(b.stats.symmetrized, 1);
    expect_row(&b, 0, (const int64_t[][2]){ { 3, 3 }, { 5, 4 }, { 6, 4 } }, 3);
    expect_row(&b, 6, (const int64_t[][2]){ { 0, 1 }, { 1, 1 }, { 5, 5 } }, 3);
    ck_assert(!memcmp(b.split, split, sizeof split));
    ck_assert_msg(gnn_dataset_save(&b, tmp_path("m.gnn"), &err) == GNN_OK, "%s", err.msg);
    ck_assert_msg(gnn_dataset_load(&c, tmp_path("m.gnn"), &err) == GNN_OK, "%s", err.msg);
    ds_assert_equal(&b, &c);
    types_assert_equal(&b, &c);
    gnn_dataset_free(&a);
    gnn_dataset_free(&b);
    gnn_dataset_free(&c);
}
END_TEST

static void expect_import_error(const char *root, gnn_status want, const char *says)
{
    gnn_dataset ds;
    gnn_err err;
    gnn_status st = gnn_import_ogb(&ds, root, NULL, &err);
    ck_assert_msg(st == want, "status %d, expected %d (%s)", (int)st, (int)want, st ? err.msg : "ok");
    ck_assert_msg_has(err, says);
}

START_TEST(ogb_hetero_bad_input)
{
    const char *root = write_mag("bad");
    put_file(root, "raw/relations/author___writes___paper/edge.csv.gz", "0,0\n3,1\n");
    expect_import_error(root, GNN_ERR_RANGE,
                        "author___writes___paper/edge.csv.gz:2: source id 3 outside [0, 3) (vertex type 'author')");
    put_file(root, "raw/relations/author___writes___paper/edge.csv.gz", "0,0\n1,4\n");
    expect_import_error(root, GNN_ERR_RANGE, "edge.csv.gz:2: destination id 4 outside [0, 4) (vertex type 'paper')");
    put_file(root, "raw/relations/author___writes___paper/edge.csv.gz", "0,0\n1;1\n");
    expect_import_error(root, GNN_ERR_FORMAT, "edge.csv.gz:2: expected 'u,v' (got '1;1')");
    put_file(root, "raw/relations/author___writes___paper/edge.csv.gz", "0,0\n1,1\n");
    expect_import_error(root, GNN_ERR_FORMAT, "num-edge-list.csv.gz:1: 5 edges, but edge.csv has 2");
    put_file(root, "raw/relations/author___writes___paper/num-edge-list.csv.gz", "2\n");
    put_file(root, "raw/triplet-type-list.csv.gz", "author,writes,paper\npaper,cites,venue\n");
    expect_import_error(root, GNN_ERR_FORMAT, "triplet-type-list.csv.gz:2: vertex type 'venue' is not in num-node-dict.csv");
    put_file(root, "raw/triplet-type-list.csv.gz", "author,writes,paper\npaper,cites\n");
    expect_import_error(root, GNN_ERR_FORMAT, "triplet-type-list.csv.gz:2: expected 'src_type,relation,dst_type'");
    put_file(root, "raw/triplet-type-list.csv.gz", "author,writes,paper\nauthor,reviews,paper\n");
    expect_import_error(root, GNN_ERR_IO, "no edge.csv[.gz] for relation 'author,reviews,paper'");
    put_file(root, "raw/triplet-type-list.csv.gz", "author,writes,paper\nauthor,writes,paper\n");
    expect_import_error(root, GNN_ERR_FORMAT, "relation 'author,writes,paper' is listed twice");
    put_file(root, "raw/triplet-type-list.csv.gz", "author,writes,paper\n");
    put_file(root, "raw/node-feat/paper/node-feat.csv.gz", "0.5,1\n-1,2\n3,4\n");
    expect_import_error(root, GNN_ERR_FORMAT, "node-feat.csv.gz: 3 rows, expected 4 (vertex type 'paper'");
    put_file(root, "raw/node-feat/paper/node-feat.csv.gz", "0.5,1\n-1,2\n3,4\n1,1\n");
    put_file(root, "raw/node-feat/author/node-feat.csv.gz", "1\n2\n3\n");
    expect_import_error(root, GNN_ERR_UNSUPPORTED, "every type with features must have the same width");
    put_file(root, "raw/node-feat/author/node-feat.csv.gz", "1,0\n2,0\n3,0\n");
    put_file(root, "raw/node-label/paper/node-label.csv.gz", "1\n0\n");
    expect_import_error(root, GNN_ERR_FORMAT, "node-label.csv.gz: 2 lines, expected 4");
    put_file(root, "raw/node-label/paper/node-label.csv.gz", "1\n0\n1\n1\n");
    put_file(root, "split/time/paper/valid.csv.gz", "4\n");
    expect_import_error(root, GNN_ERR_RANGE, "valid.csv.gz:1: vertex id 4 outside [0, 4)");
    put_file(root, "split/time/paper/valid.csv.gz", "1\n");
    put_file(root, "raw/num-node-dict.csv.gz", "paper,author,institution\n4,3\n");
    expect_import_error(root, GNN_ERR_FORMAT, "num-node-dict.csv.gz:2: expected one count per vertex type");
    put_file(root, "raw/num-node-dict.csv.gz", "paper,author,paper\n4,3,2\n");
    expect_import_error(root, GNN_ERR_FORMAT, "num-node-dict.csv.gz:1: expected distinct vertex type names");
    put_file(root, "raw/num-node-dict.csv.gz", "paper,author,institution\n4,3,2\n4,3,2\n");
    expect_import_error(root, GNN_ERR_UNSUPPORTED, "num-node-dict.csv.gz:3: more than one row of counts");
    gnn_import_options o;
    gnn_import_defaults(&o);
    o.max_vertices = 5;
    put_file(root, "raw/num-node-dict.csv.gz", "paper,author,institution\n4,3,2\n");
    gnn_dataset ds;
    gnn_err err;
    ck_assert_int_eq(gnn_import_ogb(&ds, root, &o, &err), GNN_ERR_RANGE);
    ck_assert_msg_has(err, "vertices, above the limit of 5");
    /* everything back in order: it imports (author now has features too) */
    ck_assert_msg(gnn_import_ogb(&ds, root, NULL, &err) == GNN_OK, "%s", err.msg);
    ck_assert_int_eq(ds.vtype_featless[0], 0);
    gnn_dataset_free(&ds);
}
END_TEST

/* ---- the tool ---- */

START_TEST(cli_hsbm_info_train_convert)
{
    if (!getenv("GNN_TOOL")) {
        fprintf(stderr, "%s: SKIP (GNN_TOOL is not set; `make check` sets it)\n", __func__);
        return;
    }
    char err[4096], args[2048];
    snprintf(args, sizeof args, "gen hsbm --nodes 600 --types 3 --featureless 1 -o %s", tmp_path("h.gnn"));
    ck_assert_msg(run_tool(args, err, sizeof err) == 0, "%s", err);
    snprintf(args, sizeof args, "info %s", tmp_path("h.gnn"));
    ck_assert_msg(run_tool(args, err, sizeof err) == 0, "%s", err);
    blob out = read_blob(tmp_path("stdout.txt"));
    out.p = realloc(out.p, out.len + 1);
    out.p[out.len] = '\0';
    ck_assert_msg(contains((char *)out.p, "vertex types: 3") && contains((char *)out.p, "featureless") &&
                  contains((char *)out.p, "t2:r8:t2") && contains((char *)out.p, "checks: ok"), "%s", out.p);
    free(out.p);
    snprintf(args, sizeof args, "train --data %s --model rgcn --mode fullbatch --epochs 2", tmp_path("h.gnn"));
    ck_assert_msg(run_tool(args, err, sizeof err) == 0, "%s", err);
    snprintf(args, sizeof args, "gen hsbm --types 2 --featureless 3 -o %s", tmp_path("x.gnn"));
    ck_assert_int_eq(run_tool(args, err, sizeof err), 2);
    ck_assert_msg(contains(err, "--featureless 3: at most --types (2)"), "%s", err);
    /* the OGB heterogeneous layout through convert, with reverse relations */
    const char *root = write_mag("mag");
    snprintf(args, sizeof args, "convert --format ogb --reverse-relations %s -o %s", root, tmp_path("m.gnn"));
    ck_assert_msg(run_tool(args, err, sizeof err) == 0, "%s", err);
    snprintf(args, sizeof args, "info --data %s", tmp_path("m.gnn"));
    ck_assert_msg(run_tool(args, err, sizeof err) == 0, "%s", err);
    out = read_blob(tmp_path("stdout.txt"));
    out.p = realloc(out.p, out.len + 1);
    out.p[out.len] = '\0';
    ck_assert_msg(contains((char *)out.p, "paper:rev-cites:paper") && contains((char *)out.p, "edge types: 6"), "%s",
                  out.p);
    free(out.p);
    /* a broken type section: exit 2, the file and section named */
    blob b = read_blob(tmp_path("h.gnn"));
    b.p[le64(tentry(b, GNN_TSEC_VTYPE)) + 8] ^= 1;
    write_blob(tmp_path("h.gnn"), b, b.len);
    snprintf(args, sizeof args, "info %s", tmp_path("h.gnn"));
    ck_assert_int_eq(run_tool(args, err, sizeof err), 2);
    ck_assert_msg(contains(err, "h.gnn: section 'vtype': CRC32C mismatch"), "%s", err);
}
END_TEST

Suite *suite_hetero_data(void)
{
    (void)text_copy_with; /* data_util.h's, not needed here */
    Suite *s = suite_create("hetero_data");
    TCase *tc = tcase_create("cpu");
    tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, typed_roundtrip);
    tcase_add_test(tc, untyped_bytes_unchanged);
    tcase_add_test(tc, builtin_typed_unchanged);
    tcase_add_test(tc, hsbm_featureless);
    tcase_add_test(tc, validate_types);
    tcase_add_test(tc, bad_type_sections);
    tcase_add_test(tc, ogb_hetero_import);
    tcase_add_test(tc, ogb_hetero_bad_input);
    tcase_add_test(tc, cli_hsbm_info_train_convert);
    suite_add_tcase(s, tc);
    return s;
}
