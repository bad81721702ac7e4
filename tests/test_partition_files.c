/* tests/test_partition_files.c -- two-level partitioning and partition sets on disk
 * (include/gnnref/partition.h, docs/partitioning.md "Two levels" and "Files"):
 *  - two-level assignment: part = sub / T, trainer = sub mod T of the K*T-way result, the
 *    trainer arrays and per-trainer seeds;
 *  - save then load (whole set and one part at a time) gives bitwise the same structures, the
 *    global graph rebuilt from the parts, and the features/labels/split rows of every solid
 *    vertex;
 *  - every single flipped byte, in the manifest or in any part file (header, sections,
 *    padding), is refused with a message naming that file; so are a part file from another
 *    set, two part files swapped, a missing file, and a manifest from another set;
 *  - the CLI writes a set (-o DIR) and refuses bad --trainers. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include "gnnref/crc32c.h"
#include "gnnref/dataset.h"
#include "gnnref/partition.h"
#include "gnnref/tensor.h"
#include "cli_util.h"

static void small_sbm(gnn_dataset *ds, int64_t n, uint64_t seed)
{
    gnn_sbm_params sp;
    gnn_sbm_defaults(&sp);
    sp.n = n;
    sp.num_features = 5; /* not a multiple of anything */
    sp.seed = seed;
    sp.train = 0.5;
    sp.val = 0.2;
    sp.test = 0.2;
    gnn_err err = { "" };
    ck_assert_msg(gnn_gen_sbm(ds, &sp, &err) == GNN_OK, "%s", err.msg);
}

/* Build the partition of ds with options o (two-level when o->trainers > 1). */
static void build(gnn_partition *P, const gnn_dataset *ds, const gnn_part_options *o)
{
    const int64_t n = ds->graph.n;
    int32_t *part = gnn_malloc((size_t)n * sizeof(int32_t)), *tr = gnn_malloc((size_t)n * sizeof(int32_t));
    gnn_err err = { "" };
    ck_assert_msg(gnn_partition_assign2(&ds->graph, ds->split, o, part, tr, NULL, &err) == GNN_OK, "%s", err.msg);
    ck_assert_msg(gnn_partition_build(&gnn_partition_cpu, P, &ds->graph, ds->split, part, o->k, &err) == GNN_OK, "%s", err.msg);
    ck_assert_msg(gnn_partition_set_trainers(P, tr, o->trainers, &err) == GNN_OK, "%s", err.msg);
    ck_assert_msg(gnn_partition_verify(P, &ds->graph, ds->split, part, o->k, &err) == GNN_OK, "%s", err.msg);
    gnn_free(part);
    gnn_free(tr);
}

START_TEST(two_level_assignment)
{
    gnn_dataset ds;
    small_sbm(&ds, 600, 5);
    const int64_t n = ds.graph.n;
    for (int method = 0; method < GNN_PART_METHOD_COUNT; method++) {
        gnn_part_options o;
        gnn_part_defaults(&o);
        o.method = (gnn_part_method)method;
        o.k = 3;
        o.trainers = 4;
        o.seed = 7;
        o.ops = &gnn_partition_cpu; /* ldg streams with an implementation's table */
        int32_t *part = gnn_malloc((size_t)n * 4), *tr = gnn_malloc((size_t)n * 4), *sub = gnn_malloc((size_t)n * 4);
        gnn_err err = { "" };
        ck_assert_msg(gnn_partition_assign2(&ds.graph, ds.split, &o, part, tr, NULL, &err) == GNN_OK, "%s", err.msg);
        /* the same as a flat 12-way partition, coalesced */
        gnn_part_options f = o;
        f.k = 12;
        f.trainers = 1;
        ck_assert_msg(gnn_partition_assign(&ds.graph, ds.split, &f, sub, NULL, &err) == GNN_OK, "%s", err.msg);
        for (int64_t v = 0; v < n; v++) {
            ck_assert_int_eq(part[v], sub[v] / 4);
            ck_assert_int_eq(tr[v], sub[v] % 4);
        }
        /* gnn_partition_assign with trainers gives the coalesced parts too */
        int32_t *p2 = gnn_malloc((size_t)n * 4);
        ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, p2, NULL, &err), GNN_OK);
        ck_assert_int_eq(memcmp(p2, part, (size_t)n * 4), 0);
        gnn_free(p2);
        /* the structure's trainer arrays and per-trainer seeds partition each part's train set */
        gnn_partition P;
        ck_assert_int_eq(gnn_partition_build(&gnn_partition_ref, &P, &ds.graph, ds.split, part, 3, &err), GNN_OK);
        ck_assert_int_eq(gnn_partition_set_trainers(&P, tr, 4, &err), GNN_OK);
        ck_assert_msg(gnn_partition_verify(&P, &ds.graph, ds.split, part, 3, &err) == GNN_OK, "%s", err.msg);
        for (int64_t r = 0; r < 3; r++) {
            const gnn_part_local *L = &P.parts[r];
            ck_assert_int_eq(L->trainers, 4);
            int64_t total = 0;
            for (int64_t t = 0; t < 4; t++) {
                int64_t *s, m;
                ck_assert_int_eq(gnn_part_trainer_seeds(L, t, &s, &m, &err), GNN_OK);
                for (int64_t i = 0; i < m; i++) {
                    ck_assert_int_eq(tr[L->vid_o[s[i]]], t);
                    ck_assert_int_eq(ds.split[L->vid_o[s[i]]], GNN_SPLIT_TRAIN);
                    if (i)
                        ck_assert_int_lt(s[i - 1], s[i]);
                }
                total += m;
                gnn_free(s);
            }
            ck_assert_int_eq(total, L->n_train);
            int64_t *s, m;
            ck_assert_int_eq(gnn_part_trainer_seeds(L, 4, &s, &m, &err), GNN_ERR_INVAL);
        }
        /* a wrong trainer vector is refused */
        tr[7] = 4;
        ck_assert_int_eq(gnn_partition_set_trainers(&P, tr, 4, &err), GNN_ERR_RANGE);
        gnn_partition_free(&P);
        gnn_free(part);
        gnn_free(tr);
        gnn_free(sub);
    }
    /* K x T above n, T < 1 */
    gnn_part_options o;
    gnn_part_defaults(&o);
    o.method = GNN_PART_RANGE;
    o.k = 300;
    o.trainers = 3;
    int32_t *part = gnn_malloc((size_t)n * 4);
    gnn_err err = { "" };
    ck_assert_int_eq(gnn_partition_assign2(&ds.graph, ds.split, &o, part, NULL, NULL, &err), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "sub-part"));
    o.k = 2;
    o.trainers = -1;
    ck_assert_int_eq(gnn_partition_assign2(&ds.graph, ds.split, &o, part, NULL, NULL, &err), GNN_ERR_INVAL);
    gnn_free(part);
    gnn_dataset_free(&ds);
}
END_TEST

/* Save P (of ds) into dir, load it back both ways and compare everything. */
static void roundtrip(const gnn_partition *P, const gnn_dataset *ds, const char *dir)
{
    gnn_err err = { "" };
    gnn_part_manifest prov;
    memset(&prov, 0, sizeof prov);
    prov.method = GNN_PART_HASH;
    prov.seed = 99;
    prov.balance = GNN_BALANCE_TRAIN | GNN_BALANCE_DEGREE;
    prov.ufactor = 30;
    prov.edge_cut = 1234;
    ck_assert_msg(gnn_partition_save(dir, P, ds, &prov, &err) == GNN_OK, "%s", err.msg);
    gnn_partition Q;
    gnn_csr g;
    gnn_part_manifest m;
    ck_assert_msg(gnn_partition_load(dir, &Q, &g, &m, &err) == GNN_OK, "%s", err.msg);
    ck_assert_msg(gnn_partition_compare(P, &Q, &err) == GNN_OK, "%s", err.msg);
    ck_assert_int_eq(g.n, ds->graph.n);
    ck_assert_int_eq(g.nnz, ds->graph.nnz);
    ck_assert_int_eq(memcmp(g.indptr, ds->graph.indptr, ((size_t)g.n + 1) * 8), 0);
    ck_assert_int_eq(memcmp(g.indices, ds->graph.indices, (size_t)g.nnz * 8), 0);
    ck_assert_int_eq(m.k, P->k);
    ck_assert_int_eq(m.trainers, P->trainers);
    ck_assert_int_eq(m.method, GNN_PART_HASH);
    ck_assert_uint_eq(m.seed, 99);
    ck_assert_uint_eq(m.balance, GNN_BALANCE_TRAIN | GNN_BALANCE_DEGREE);
    ck_assert_int_eq(m.edge_cut, 1234);
    ck_assert_int_eq(m.n, ds->graph.n);
    ck_assert_str_eq(m.dataset, ds->name);
    gnn_csr_free(&g);
    gnn_partition_free(&Q);
    /* one part at a time, as a rank loads it, with the part's own rows */
    const int64_t f = ds->num_features;
    for (int64_t r = 0; r < P->k; r++) {
        gnn_part_local L;
        gnn_dataset local;
        ck_assert_msg(gnn_partition_load_part(dir, r, &L, &local, NULL, &err) == GNN_OK, "%s", err.msg);
        gnn_partition a = *P, b = *P;
        a.k = b.k = 1;
        a.parts = &P->parts[r];
        b.parts = &L;
        ck_assert_msg(gnn_partition_compare(&a, &b, &err) == GNN_OK, "rank %lld: %s", (long long)r, err.msg);
        ck_assert_int_eq(local.graph.n, L.n_solid + L.n_halo);
        int64_t lf = -1;
        const float *feat = gnn_part_features(&local, &lf);
        ck_assert_int_eq(lf, ds->feat ? f : 0);
        if (lf > 0)
            ck_assert_ptr_nonnull(feat);
        for (int64_t l = 0; l < L.n_solid + L.n_halo; l++) {
            const int solid = l < L.n_solid;
            const int64_t v = L.vid_o[l];
            for (int64_t j = 0; solid && j < lf; j++) /* halos have no rows */
                ck_assert(feat[l * f + j] == ds->feat[v * f + j]);
            ck_assert_int_eq(local.labels[l], solid ? ds->labels[v] : -1);
            ck_assert_int_eq(local.split[l], solid ? ds->split[v] : GNN_SPLIT_NONE);
        }
        gnn_dataset_free(&local);
        gnn_part_local_free(&L);
    }
    ck_assert_int_eq(gnn_partition_load_part(dir, P->k, &(gnn_part_local){ 0 }, NULL, NULL, &err), GNN_ERR_INVAL);
}

START_TEST(save_and_reload_bitwise)
{
    gnn_dataset ds;
    small_sbm(&ds, 500, 3);
    const gnn_part_method methods[] = { GNN_PART_METIS, GNN_PART_RANGE, GNN_PART_HASH };
    const int64_t ks[] = { 1, 3, 4 }, ts[] = { 1, 2, 1 };
    for (int i = 0; i < 3; i++) {
        gnn_part_options o;
        gnn_part_defaults(&o);
        o.method = methods[i];
        o.k = ks[i];
        o.trainers = ts[i];
        o.balance = GNN_BALANCE_TRAIN;
        gnn_partition P;
        build(&P, &ds, &o);
        char name[32];
        snprintf(name, sizeof name, "set%d", i);
        roundtrip(&P, &ds, tmp(name));
        gnn_partition_free(&P);
    }
    /* an empty part (k beyond the vertices any method would give: a hand-made part vector) and
     * a dataset without features */
    const int64_t n = ds.graph.n;
    int32_t *part = gnn_malloc((size_t)n * 4);
    for (int64_t v = 0; v < n; v++)
        part[v] = v % 2 ? 2 : 0; /* part 1 owns nothing */
    gnn_err err = { "" };
    gnn_partition P;
    ck_assert_int_eq(gnn_partition_build(&gnn_partition_ref, &P, &ds.graph, ds.split, part, 3, &err), GNN_OK);
    gnn_dataset bare = ds;
    bare.feat = NULL;
    bare.num_features = 0;
    roundtrip(&P, &bare, tmp("empty_part"));
    gnn_partition_free(&P);
    gnn_free(part);
    gnn_dataset_free(&ds);
}
END_TEST

static int64_t file_size(const char *path)
{
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    return (int64_t)sb.st_size;
}

static void flip(const char *path, int64_t at, unsigned char mask)
{
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, at, SEEK_SET), 0);
    int c = fgetc(f);
    ck_assert_int_ne(c, EOF);
    ck_assert_int_eq(fseek(f, at, SEEK_SET), 0);
    fputc(c ^ mask, f);
    fclose(f);
}

static void copy_file(const char *from, const char *to)
{
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "cp '%.600s' '%.600s'", from, to);
    ck_assert_int_eq(system(cmd), 0);
}

/* Loading dir (whole, and the part `rank` when >= 0) must fail naming `name`. */
static void must_fail(const char *dir, int64_t rank, const char *name, const char *why)
{
    gnn_err err = { "" };
    gnn_partition Q;
    gnn_status st = gnn_partition_load(dir, &Q, NULL, NULL, &err);
    ck_assert_msg(st != GNN_OK, "%s: the set loaded", why);
    ck_assert_msg(strstr(err.msg, name) != NULL, "%s: message does not name %s: %s", why, name, err.msg);
    if (rank >= 0) {
        gnn_part_local L;
        st = gnn_partition_load_part(dir, rank, &L, NULL, NULL, &err);
        ck_assert_msg(st != GNN_OK, "%s: part %lld loaded", why, (long long)rank);
        ck_assert_msg(strstr(err.msg, name) != NULL, "%s: message does not name %s: %s", why, name, err.msg);
    }
}

START_TEST(every_flipped_byte_is_refused)
{
    gnn_dataset ds;
    small_sbm(&ds, 300, 11);
    gnn_part_options o;
    gnn_part_defaults(&o);
    o.method = GNN_PART_HASH;
    o.k = 2;
    o.trainers = 2;
    gnn_partition P;
    build(&P, &ds, &o);
    const char *dir = tmp("flip");
    gnn_err err = { "" };
    ck_assert_msg(gnn_partition_save(dir, &P, &ds, NULL, &err) == GNN_OK, "%s", err.msg);
    const char *names[] = { "manifest.json", "part-00000.gnn", "part-00001.gnn" };
    const int64_t ranks[] = { 0, 0, 1 };
    for (int fi = 0; fi < 3; fi++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, names[fi]);
        const int64_t size = file_size(path);
        /* a spread of positions: every byte of the first 600 (the header, the first section) in
         * the part files, every byte of the manifest, then a stride through the rest and the
         * last byte; each flipped alone, the file restored after */
        for (int64_t at = 0; at < size; at += (at < 600 || fi == 0) ? 1 : 997) {
            const unsigned char mask = (unsigned char)(1u << (at % 8));
            flip(path, at, mask);
            char why[96];
            snprintf(why, sizeof why, "%s byte %lld ^ 0x%02x", names[fi], (long long)at, mask);
            must_fail(dir, ranks[fi], names[fi], why);
            flip(path, at, mask);
        }
        flip(path, size - 1, 0x40);
        must_fail(dir, ranks[fi], names[fi], "last byte");
        flip(path, size - 1, 0x40);
    }
    /* still loads after all the restorations */
    gnn_partition Q;
    ck_assert_msg(gnn_partition_load(dir, &Q, NULL, NULL, &err) == GNN_OK, "%s", err.msg);
    gnn_partition_free(&Q);

    /* a well-formed part file of another set (another seed's hash is the same: use range) */
    const char *other = tmp("other");
    gnn_part_options o2 = o;
    o2.method = GNN_PART_RANGE;
    gnn_partition P2;
    build(&P2, &ds, &o2);
    ck_assert_msg(gnn_partition_save(other, &P2, &ds, NULL, &err) == GNN_OK, "%s", err.msg);
    char a[600], b[600], keep[600];
    snprintf(a, sizeof a, "%s/part-00001.gnn", dir);
    snprintf(keep, sizeof keep, "%s/keep.gnn", dir);
    copy_file(a, keep);
    snprintf(b, sizeof b, "%s/part-00001.gnn", other);
    copy_file(b, a);
    must_fail(dir, 1, "part-00001.gnn", "a part file of another set");
    /* two part files swapped */
    snprintf(b, sizeof b, "%s/part-00000.gnn", dir);
    copy_file(b, a);
    must_fail(dir, 1, "part-00001.gnn", "part 0's file as part 1");
    copy_file(keep, a);
    /* another set's manifest */
    char mpath[600], mkeep[600];
    snprintf(mpath, sizeof mpath, "%s/manifest.json", dir);
    snprintf(mkeep, sizeof mkeep, "%s/manifest.keep", dir);
    copy_file(mpath, mkeep);
    snprintf(b, sizeof b, "%s/manifest.json", other);
    copy_file(b, mpath);
    must_fail(dir, 0, "part-00000.gnn", "another set's manifest");
    copy_file(mkeep, mpath);
    /* a missing part file, a missing manifest */
    ck_assert_int_eq(unlink(a), 0);
    must_fail(dir, 1, "part-00001.gnn", "missing part file");
    copy_file(keep, a);
    ck_assert_int_eq(unlink(mpath), 0);
    must_fail(dir, 0, "manifest.json", "missing manifest");
    /* a FIFO in place of a file is refused, not waited on for a writer */
    ck_assert_int_eq(mkfifo(mpath, 0600), 0);
    must_fail(dir, 0, "manifest.json", "a FIFO as the manifest");
    ck_assert_int_eq(unlink(mpath), 0);
    copy_file(mkeep, mpath);
    ck_assert_int_eq(unlink(a), 0);
    ck_assert_int_eq(mkfifo(a, 0600), 0);
    must_fail(dir, 1, "part-00001.gnn", "a FIFO as a part file");
    ck_assert_int_eq(unlink(a), 0);
    copy_file(keep, a);
    ck_assert_msg(gnn_partition_load(dir, &Q, NULL, NULL, &err) == GNN_OK, "%s", err.msg);
    ck_assert_msg(gnn_partition_compare(&P, &Q, &err) == GNN_OK, "%s", err.msg);
    gnn_partition_free(&Q);
    gnn_partition_free(&P);
    gnn_partition_free(&P2);
    gnn_dataset_free(&ds);
}
END_TEST

START_TEST(format_extension_sections)
{
    /* a plain dataset with extension sections: saved, loaded, named; bad names refused */
    gnn_dataset ds;
    small_sbm(&ds, 64, 2);
    const int64_t vals[3] = { 5, -6, 7 };
    const int32_t w[2] = { 1, 2 };
    ds.num_ext = 2;
    memset(ds.ext, 0, sizeof ds.ext);
    strcpy(ds.ext[0].name, "abc_9");
    ds.ext[0].data = vals;
    ds.ext[0].count = 3;
    ds.ext[0].elem_size = 8;
    strcpy(ds.ext[1].name, "w");
    ds.ext[1].data = w;
    ds.ext[1].count = 2;
    ds.ext[1].elem_size = 4;
    gnn_err err = { "" };
    const char *path = tmp("ext.gnn");
    ck_assert_msg(gnn_dataset_save(&ds, path, &err) == GNN_OK, "%s", err.msg);
    gnn_dataset back;
    ck_assert_msg(gnn_dataset_load(&back, path, &err) == GNN_OK, "%s", err.msg);
    ck_assert_int_eq(back.num_ext, 2);
    const gnn_format_ext *x = gnn_dataset_ext(&back, "abc_9");
    ck_assert_ptr_nonnull(x);
    ck_assert_int_eq(x->count, 3);
    ck_assert_int_eq(memcmp(x->data, vals, sizeof vals), 0);
    ck_assert_ptr_null(gnn_dataset_ext(&back, "abc"));
    gnn_dataset_free(&back);
    strcpy(ds.ext[1].name, "Bad");
    ck_assert_int_eq(gnn_dataset_save(&ds, path, &err), GNN_ERR_INVAL);
    strcpy(ds.ext[1].name, "abc_9");
    ck_assert_int_eq(gnn_dataset_save(&ds, path, &err), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "twice"));
    ds.num_ext = 0;
    gnn_dataset_free(&ds);
}
END_TEST

/* ---- forged counts ------------------------------------------------------------------------------
 * Checksums prove integrity, not sanity. These sets are rewritten as someone who knows the format
 * would: the manifest and every part's partmeta agree on a vertex count n, part 0 may claim
 * another solid count, and every CRC (sections, header, whole file, manifest) is recomputed. The
 * loader used to allocate n-sized arrays from such a claim: with n = 2^61 + 1, n * 8 wrapped to
 * 8 bytes and the fill loop wrote past the end (SIGSEGV in `gnnref info DIR`); with n = 2^31 it
 * allocated and touched 24 GB. */

/* Rewrite part r's partmeta (N = n; N_SOLID = n_solid when >= 0) with every CRC recomputed;
 * returns the new file's size and CRC32C through bytes and crc. */
static void forge_part(const char *dir, int64_t r, int64_t n, int64_t n_solid, int64_t *bytes, uint32_t *crc)
{
    char path[700];
    snprintf(path, sizeof path, "%s/part-%05lld.gnn", dir, (long long)r);
    gnn_dataset ds;
    gnn_err err = { "" };
    ck_assert_msg(gnn_dataset_load(&ds, path, &err) == GNN_OK, "%s", err.msg);
    int64_t meta[GNN_PARTMETA_COUNT];
    int at = -1;
    for (int i = 0; i < ds.num_ext; i++)
        if (!strcmp(ds.ext[i].name, "partmeta"))
            at = i;
    ck_assert_int_ge(at, 0);
    memcpy(meta, ds.ext[at].data, sizeof meta);
    meta[GNN_PARTMETA_N] = n;
    if (n_solid >= 0)
        meta[GNN_PARTMETA_N_SOLID] = n_solid;
    ds.ext[at].data = meta; /* borrowed for the save; the mapping is unchanged */
    ck_assert_msg(gnn_dataset_save(&ds, path, &err) == GNN_OK, "%s", err.msg);
    gnn_dataset_free(&ds);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static unsigned char buf[1 << 20];
    size_t got;
    uint32_t c = 0;
    int64_t total = 0;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        c = gnn_crc32c(c, buf, got);
        total += (int64_t)got;
    }
    fclose(f);
    *bytes = total;
    *crc = c;
}

/* Rewrite the set in dir (k parts): n everywhere, part 0's solid count n_solid0 when >= 0. */
static void forge_set(const char *dir, int64_t k, int64_t n, int64_t n_solid0)
{
    char mpath[700];
    snprintf(mpath, sizeof mpath, "%s/manifest.json", dir);
    json_object *root = json_object_from_file(mpath), *x, *files;
    ck_assert_ptr_nonnull(root);
    ck_assert(json_object_object_get_ex(root, "dataset", &x));
    json_object_object_add(x, "n", json_object_new_int64(n));
    ck_assert(json_object_object_get_ex(root, "files", &files));
    for (int64_t r = 0; r < k; r++) {
        int64_t bytes;
        uint32_t crc;
        forge_part(dir, r, n, r == 0 ? n_solid0 : -1, &bytes, &crc);
        json_object *e = json_object_array_get_idx(files, (size_t)r);
        char hex[16];
        snprintf(hex, sizeof hex, "0x%08x", crc);
        json_object_object_add(e, "bytes", json_object_new_int64(bytes));
        json_object_object_add(e, "crc32c", json_object_new_string(hex));
        if (r == 0 && n_solid0 >= 0)
            json_object_object_add(e, "n_solid", json_object_new_int64(n_solid0));
    }
    json_object_object_add(root, "manifest_crc32c", json_object_new_string("0x00000000"));
    size_t len = 0;
    const char *js = json_object_to_json_string_length(root, JSON_C_TO_STRING_PRETTY, &len);
    char *text = malloc(len + 2);
    ck_assert_ptr_nonnull(text);
    memcpy(text, js, len);
    text[len++] = '\n';
    text[len] = '\0';
    char *d = strstr(text, "\"manifest_crc32c\"");
    ck_assert_ptr_nonnull(d);
    d = strstr(d, "\"0x00000000\"");
    ck_assert_ptr_nonnull(d);
    char hex[9];
    snprintf(hex, sizeof hex, "%08x", gnn_crc32c(0, text, len));
    memcpy(d + 3, hex, 8);
    FILE *f = fopen(mpath, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fwrite(text, 1, len, f), len);
    fclose(f);
    free(text);
    json_object_put(root);
}

START_TEST(forged_counts_are_refused)
{
    gnn_dataset ds;
    small_sbm(&ds, 300, 12);
    gnn_part_options o;
    gnn_part_defaults(&o);
    o.method = GNN_PART_HASH;
    o.k = 2;
    gnn_partition P;
    build(&P, &ds, &o);
    const int64_t solid0 = P.parts[0].n_solid;
    const struct { int64_t n, n_solid0; const char *what; } forged[] = {
        { ((int64_t)1 << 61) + 1, -1, "n = 2^61 + 1 (n * 8 wraps to 8 bytes)" },
        { ((int64_t)1 << 62) + 1, -1, "n = 2^62 + 1" },
        { (int64_t)1 << 31, -1, "n = 2^31 (24 GB of tables)" },
        { ((int64_t)1 << 61) + 1, ((int64_t)1 << 61) + 1 - (300 - solid0), "n = 2^61 + 1, part 0 as many solid" },
        { (int64_t)1 << 31, ((int64_t)1 << 31) - (300 - solid0), "n = 2^31, part 0 as many solid" },
    };
    char dir[600];
    for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++) {
        snprintf(dir, sizeof dir, "%s", tmp("forged"));
        gnn_err err = { "" };
        ck_assert_msg(gnn_partition_save(dir, &P, &ds, NULL, &err) == GNN_OK, "%s", err.msg);
        forge_set(dir, 2, forged[i].n, forged[i].n_solid0);
        gnn_part_manifest m;
        ck_assert_msg(gnn_partition_manifest_load(dir, &m, &err) == GNN_OK, "%s: %s", forged[i].what, err.msg);
        ck_assert_int_eq(m.n, forged[i].n); /* the forgery is consistent: only the counts are insane */
        must_fail(dir, 0, "manifest.json", forged[i].what);
        must_fail(dir, 1, "manifest.json", forged[i].what);
    }
    /* the same forgery with the true n loads: the rewriting itself is sound */
    gnn_err err = { "" };
    ck_assert_msg(gnn_partition_save(dir, &P, &ds, NULL, &err) == GNN_OK, "%s", err.msg);
    forge_set(dir, 2, 300, -1);
    gnn_partition Q;
    ck_assert_msg(gnn_partition_load(dir, &Q, NULL, NULL, &err) == GNN_OK, "%s", err.msg);
    ck_assert_msg(gnn_partition_compare(&P, &Q, &err) == GNN_OK, "%s", err.msg);
    gnn_partition_free(&Q);
    /* what the robustness run saw: the tool exits 2 (bad input), not with a signal */
    forge_set(dir, 2, ((int64_t)1 << 61) + 1, -1);
    if (getenv("GNN_TOOL")) {
        char args[800], out[4096];
        snprintf(args, sizeof args, "info %s", dir);
        expect_usage_error(args, "manifest.json", out, sizeof out);
        snprintf(args, sizeof args, "train --partitions %s --backend sim --ranks 2 --epochs 1", dir);
        expect_usage_error(args, "manifest.json", out, sizeof out);
    }
    gnn_partition_free(&P);
    gnn_dataset_free(&ds);
}
END_TEST

START_TEST(cli_writes_a_set)
{
    NEED_TOOL();
    char out[8192], args[1024], dir[600], tiny[600];
    snprintf(dir, sizeof dir, "%s", tmp("cliset")); /* tmp() rotates four buffers: keep copies */
    snprintf(tiny, sizeof tiny, "%s", tmp("tiny"));
    snprintf(args, sizeof args, "partition builtin --parts 3 --trainers 2 --method hash --balance train -o %s", dir);
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "two-level: 2 trainers per part"));
    ck_assert_ptr_nonnull(strstr(out, "wrote"));
    gnn_err err = { "" };
    gnn_partition Q;
    gnn_part_manifest m;
    ck_assert_msg(gnn_partition_load(dir, &Q, NULL, &m, &err) == GNN_OK, "%s", err.msg);
    ck_assert_int_eq(m.k, 3);
    ck_assert_int_eq(m.trainers, 2);
    ck_assert_int_eq(m.method, GNN_PART_HASH);
    ck_assert_ptr_nonnull(Q.trainer);
    gnn_partition_free(&Q);
    /* a part file is an ordinary native file */
    snprintf(args, sizeof args, "info %s/part-00002.gnn", dir);
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "partition part 2 of 3"));
    ck_assert_int_eq(tool("partition builtin --parts 3 --trainers 0", out, sizeof out), 2);
    ck_assert_int_eq(tool("partition builtin --parts 20000 --trainers 2", out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "--trainers"));
    /* partcheck on the saved set: the right rank count works, another count or another dataset
     * is refused */
    snprintf(args, sizeof args, "partcheck builtin --partitions %s --backend sim --ranks 3 --pulls 1 --pull-ids 50", dir);
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "exact yes"));
    snprintf(args, sizeof args, "partcheck builtin --partitions %s --backend sim --ranks 2", dir);
    ck_assert_int_eq(tool(args, out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "--ranks 3"));
    snprintf(args, sizeof args, "partition tests/fixtures/text_tiny --parts 3 --method range -o %s", tiny);
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    snprintf(args, sizeof args, "partcheck builtin --partitions %s --backend sim --ranks 3", tiny);
    ck_assert_int_eq(tool(args, out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "was not made from builtin"));
    snprintf(args, sizeof args, "partition builtin --parts 2 -o %s/manifest.json/x", dir);
    ck_assert_int_ne(tool(args, out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "gnnref: error"));
}
END_TEST

START_TEST(block_ids_on_a_part)
{
    /* a block over a part's local graph maps VID_b -> VID_p -> VID_o; halos are the sources
     * with VID_p >= n_solid */
    gnn_dataset ds;
    small_sbm(&ds, 200, 4);
    gnn_part_options o;
    gnn_part_defaults(&o);
    o.method = GNN_PART_HASH;
    o.k = 3;
    gnn_partition P;
    build(&P, &ds, &o);
    const gnn_part_local *L = &P.parts[1];
    gnn_block b;
    ck_assert_int_eq(gnn_block_full(&b, &L->graph), GNN_OK);
    int64_t *vo = gnn_malloc((size_t)b.n_src * sizeof(int64_t)), nh = -1;
    uint8_t *h = gnn_malloc((size_t)b.n_src);
    gnn_err err = { "" };
    ck_assert_int_eq(gnn_part_block_ids(L, &b, vo, h, &nh, &err), GNN_OK);
    ck_assert_int_eq(nh, L->n_halo);
    for (int64_t i = 0; i < b.n_src; i++) {
        ck_assert_int_eq(vo[i], L->vid_o[b.src_gid[i]]);
        ck_assert_int_eq(h[i], P.part[vo[i]] != 1);
    }
    b.src_gid[0] = L->n_solid + L->n_halo;
    ck_assert_int_eq(gnn_part_block_ids(L, &b, vo, h, &nh, &err), GNN_ERR_RANGE);
    gnn_free(vo);
    gnn_free(h);
    gnn_block_free(&b);
    gnn_partition_free(&P);
    gnn_dataset_free(&ds);
}
END_TEST

Suite *suite_partition_files(void)
{
    Suite *s = suite_create("partition_files");
    TCase *tc = tcase_create("cpu");
    tcase_set_tags(tc, "cpu");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    tcase_add_test(tc, two_level_assignment);
    tcase_add_test(tc, save_and_reload_bitwise);
    tcase_add_test(tc, every_flipped_byte_is_refused);
    tcase_add_test(tc, format_extension_sections);
    tcase_add_test(tc, forged_counts_are_refused);
    tcase_add_test(tc, cli_writes_a_set);
    tcase_add_test(tc, block_ids_on_a_part);
    suite_add_tcase(s, tc);
    return s;
}
