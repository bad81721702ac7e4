/* fuzz/fuzz_ogb.c -- libFuzzer harness of the OGB importers, homogeneous and heterogeneous
 * (core/io/import_ogb.c, core/io/import_ogb_hetero.c, core/io/import_util.c; docs/formats.md "OGB raw
 * CSV" and "OGB heterogeneous raw CSV", docs/fuzzing.md).
 *
 * The input is a bundle (fuzz/fuzz_util.h) of an OGB directory: raw/edge.csv,
 * raw/num-node-list.csv, raw/node-feat.csv, raw/node-label.csv, split/<name>/train.csv, ... or
 * the heterogeneous raw/num-node-dict.csv, raw/triplet-type-list.csv,
 * raw/relations/<src>___<rel>___<dst>/edge.csv, raw/node-feat/<type>/node-feat.csv, ...; any
 * name may end in .csv.gz (the harness gzips it) or .csv.gz! (bytes as they are, corrupt
 * streams). gnn_import_ogb reads the directory (it hands the heterogeneous layout to
 * gnn_import_ogb_hetero), with the vertex limit lowered to 2^16; the last byte's low bit asks
 * for --reverse-relations, the next bit for CSR features. */
#include "fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[FZ_PATH];
    snprintf(dir, sizeof dir, "%s/ogb", fz_scratch());
    mkdir(dir, 0700);
    fz_unbundle(data, size, dir);
    gnn_import_options opt;
    gnn_import_defaults(&opt);
    opt.max_vertices = (int64_t)1 << 16;
    const uint8_t last = size ? data[size - 1] : 0;
    opt.reverse_relations = last & 1;
    if (last & 2)
        opt.feat_storage = GNN_FEAT_STORE_CSR;
    gnn_dataset ds;
    gnn_err err = { { 0 } };
    gnn_status st = gnn_import_ogb(&ds, dir, &opt, &err);
    if (st)
        fz_note("ogb", st, err.msg);
    else
        gnn_dataset_free(&ds);
    fz_rm_tree(dir, 0);
    return 0;
}
