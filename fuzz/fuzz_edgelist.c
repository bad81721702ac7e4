/* fuzz/fuzz_edgelist.c -- libFuzzer harness of the edge-list importer (core/io/import_edgelist.c
 * over the line reader of core/io/import_util.c; docs/formats.md "Edge lists", docs/fuzzing.md).
 *
 * The input is the file. When it starts with "GZ:" the rest is gzipped by the harness first
 * (zlib's path through the same reader); raw gzip bytes (1f 8b ...) are read as they are, so
 * corrupt and truncated streams are covered too. The vertex limit is lowered to 2^16 so that
 * one input cannot make the importer allocate much (the limit itself is what is tested: an id
 * above it must be refused before anything is allocated). */
#include "fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FZ_PATH];
    int fd = -1;
    if (size >= 3 && memcmp(data, "GZ:", 3) == 0) {
        snprintf(path, sizeof path, "%s/in.edges.gz", fz_scratch());
        if (fz_write(path, data + 3, size - 3, 1))
            abort();
    } else {
        fd = fz_memfd(data, size, path, sizeof path);
    }
    gnn_import_options opt;
    gnn_import_defaults(&opt);
    opt.max_vertices = (int64_t)1 << 16;
    gnn_dataset ds;
    gnn_err err = { { 0 } };
    gnn_status st = gnn_import_edgelist(&ds, path, &opt, &err);
    if (st)
        fz_note("edgelist", st, err.msg);
    else
        gnn_dataset_free(&ds);
    if (fd >= 0)
        close(fd);
    else
        unlink(path);
    return 0;
}
