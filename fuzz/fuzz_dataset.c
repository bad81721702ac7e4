/* fuzz/fuzz_dataset.c -- libFuzzer harness of the native binary loader (core/io/format.c,
 * core/io/format_types.c, core/io/dataset_util.c; docs/formats.md, docs/fuzzing.md).
 *
 * The input is a .gnn image (versions 1 to 3: dense or CSR features, extension sections, the
 * type header and type sections). The harness fixes its file size field and every CRC32C that
 * it can (fz_fix_gnn), so that mutations get past the checksums to the value checks, puts it
 * in a memfd and loads it with gnn_dataset_load. Nothing may crash or leak. A file the loader
 * accepts must save (gnn_dataset_save validates first) and load again: a loader that takes
 * what the writer refuses, or the reverse, aborts the run. */
#include "fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > ((size_t)1 << 20))
        return 0;
    uint8_t *img = malloc(size ? size : 1);
    if (!img)
        return 0;
    memcpy(img, data, size);
    fz_fix_gnn(img, size);
    char path[64];
    int fd = fz_memfd(img, size, path, sizeof path);
    free(img);
    gnn_dataset ds;
    gnn_err err = { { 0 } };
    gnn_status st = gnn_dataset_load(&ds, path, &err);
    close(fd);
    if (st) {
        fz_note("load", st, err.msg);
        return 0;
    }
    /* accepted: the writer must take it, and the loader what the writer wrote */
    char out[FZ_PATH];
    snprintf(out, sizeof out, "%s/again.gnn", fz_scratch());
    st = gnn_dataset_save(&ds, out, &err);
    if (st) {
        fprintf(stderr, "fuzz_dataset: loaded, but gnn_dataset_save refuses it: %s\n", err.msg);
        abort();
    }
    gnn_dataset again;
    st = gnn_dataset_load(&again, out, &err);
    if (st) {
        fprintf(stderr, "fuzz_dataset: saved, but the loader refuses the copy: %s\n", err.msg);
        abort();
    }
    if (again.graph.n != ds.graph.n || again.graph.nnz != ds.graph.nnz || again.num_features != ds.num_features) {
        fprintf(stderr, "fuzz_dataset: the saved copy has other counts\n");
        abort();
    }
    gnn_dataset_free(&again);
    gnn_dataset_free(&ds);
    unlink(out);
    return 0;
}
