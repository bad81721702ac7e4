/* fuzz/fuzz_pset.h -- the partition set the partition harnesses (fuzz/fuzz_manifest.c,
 * fuzz/fuzz_part.c) start from: built once per process with the library (an SBM of 24
 * vertices, 4 features, 3 classes, a split; 2 parts by v mod 2; docs/partitioning.md "Files"),
 * saved under the scratch directory; its manifest kept as parsed JSON, so a harness can put
 * its own part file in and write a manifest that agrees with it (sizes and CRCs), or its own
 * manifest beside the real part files. */
#ifndef GNNREF_FUZZ_PSET_H
#define GNNREF_FUZZ_PSET_H

#include <json-c/json.h>
#include "fuzz/fuzz_util.h"
#include "gnnref/partition.h"

static char fz_pset_dir[FZ_PATH];

static inline void fz_die(const char *what, const gnn_err *err)
{
    fprintf(stderr, "fuzz: %s: %s\n", what, err ? err->msg : "");
    abort();
}

/* Build the template set in <scratch>/tpl (once). */
static inline const char *fz_pset_template(void)
{
    if (fz_pset_dir[0])
        return fz_pset_dir;
    snprintf(fz_pset_dir, sizeof fz_pset_dir, "%s/tpl", fz_scratch());
    gnn_sbm_params sp;
    gnn_sbm_defaults(&sp);
    sp.n = 24;
    sp.classes = 3;
    sp.num_features = 4;
    sp.deg_in = 3;
    sp.deg_out = 2;
    gnn_dataset ds;
    gnn_err err = { { 0 } };
    if (gnn_gen_sbm(&ds, &sp, &err))
        fz_die("gen sbm", &err);
    int32_t part[24];
    for (int v = 0; v < 24; v++)
        part[v] = v % 2;
    gnn_partition P;
    if (gnn_partition_build(&gnn_partition_ref, &P, &ds.graph, ds.split, part, 2, &err))
        fz_die("partition build", &err);
    if (gnn_partition_save(fz_pset_dir, &P, &ds, NULL, &err))
        fz_die("partition save", &err);
    gnn_partition_free(&P);
    gnn_dataset_free(&ds);
    /* FUZZ_PSET_EXPORT=DIR: copy the set there and stop (fuzz/make-corpus.sh makes the seeds
     * of fuzz_manifest and fuzz_part from it, so they agree with this template) */
    const char *out = getenv("FUZZ_PSET_EXPORT");
    if (out) {
        static const char *const names[3] = { "manifest.json", "part-00000.gnn", "part-00001.gnn" };
        for (int i = 0; i < 3; i++) {
            char src[FZ_PATH], dst[FZ_PATH];
            snprintf(src, sizeof src, "%s/%s", fz_pset_dir, names[i]);
            snprintf(dst, sizeof dst, "%s/%s", out, names[i]);
            FILE *f = fopen(src, "rb");
            if (!f)
                abort();
            static uint8_t buf[1 << 20];
            size_t n = fread(buf, 1, sizeof buf, f);
            fclose(f);
            if (fz_write(dst, buf, n, 0))
                abort();
        }
        fz_cleanup();
        _exit(0); /* not exit: libFuzzer counts a target that exits as a failure */
    }
    return fz_pset_dir;
}

/* Write text as dir/manifest.json with its manifest_crc32c field made right (when present). */
static inline void fz_write_manifest(const char *dir, char *text, size_t len)
{
    static const char key[] = "\"manifest_crc32c\"";
    char *d = NULL;
    for (size_t i = 0; i + sizeof key - 1 <= len && !d; i++) {
        if (memcmp(text + i, key, sizeof key - 1) != 0)
            continue;
        size_t j = i + sizeof key - 1;
        while (j < len && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r'))
            j++;
        if (j >= len || text[j] != ':')
            break;
        j++;
        while (j < len && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r'))
            j++;
        if (j + 12 <= len && memcmp(text + j, "\"0x", 3) == 0 && text[j + 11] == '"')
            d = text + j + 3;
        break;
    }
    if (d) {
        memset(d, '0', 8);
        char hex[9];
        snprintf(hex, sizeof hex, "%08x", gnn_crc32c(0, text, len));
        memcpy(d, hex, 8);
    }
    char path[FZ_PATH];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    if (fz_write(path, text, len, 0))
        abort();
}

/* Load the set in dir every way a command does; everything is freed. */
static inline void fz_pset_load_all(const char *dir)
{
    gnn_err err = { { 0 } };
    gnn_part_manifest m;
    gnn_status st = gnn_partition_manifest_load(dir, &m, &err);
    if (st) {
        fz_note("manifest", st, err.msg);
        return;
    }
    gnn_partition P;
    gnn_csr g;
    st = gnn_partition_load(dir, &P, &g, &m, &err);
    if (st) {
        fz_note("set", st, err.msg);
    } else {
        gnn_csr_free(&g);
        gnn_partition_free(&P);
    }
    for (int64_t r = 0; r < 2; r++) {
        gnn_part_local L;
        gnn_dataset local;
        st = gnn_partition_load_part(dir, r, &L, &local, &m, &err);
        if (st) {
            fz_note("part", st, err.msg);
            continue;
        }
        int64_t f = 0;
        const float *x = gnn_part_features(&local, &f);
        volatile float sink = 0;
        for (int64_t i = 0; x && i < L.n_solid * f; i++)
            sink += x[i];
        (void)sink;
        gnn_part_local_free(&L);
        gnn_dataset_free(&local);
    }
}

#endif
