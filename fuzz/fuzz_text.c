/* fuzz/fuzz_text.c -- libFuzzer harness of the text-layout importer (core/io/import_text.c over
 * core/io/import_util.c; docs/formats.md "Text layout", docs/fuzzing.md).
 *
 * The input is a bundle (fuzz/fuzz_util.h): "@@ meta.txt\n...\n@@ edges.txt\n..." and so on for
 * features.txt, labels.txt, train.txt, val.txt, test.txt (a name ending in .gz is written
 * gzipped: the importer reads every file through zlib, but looks for the plain names only,
 * except the split files). The files go to a fresh directory, gnn_import_text reads it with the
 * vertex limit lowered to 2^16, and the directory is emptied. */
#include "fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[FZ_PATH];
    snprintf(dir, sizeof dir, "%s/text", fz_scratch());
    mkdir(dir, 0700);
    fz_unbundle(data, size, dir);
    gnn_import_options opt;
    gnn_import_defaults(&opt);
    opt.max_vertices = (int64_t)1 << 16;
    gnn_dataset ds;
    gnn_err err = { { 0 } };
    gnn_status st = gnn_import_text(&ds, dir, &opt, &err);
    if (st)
        fz_note("text", st, err.msg);
    else
        gnn_dataset_free(&ds);
    fz_rm_tree(dir, 0);
    return 0;
}
