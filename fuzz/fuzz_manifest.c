/* fuzz/fuzz_manifest.c -- libFuzzer harness of a partition set's manifest
 * (core/io/partition_manifest.c, then core/io/partition_load.c behind it; docs/partitioning.md
 * "Files", docs/fuzzing.md).
 *
 * The input is manifest.json's text. It is written, with its manifest_crc32c field made right
 * (so that mutations reach the JSON parser and the count checks), beside the two valid part
 * files of the template set (fuzz/fuzz_pset.h), and the set is loaded every way a command
 * does: gnn_partition_manifest_load, gnn_partition_load, gnn_partition_load_part for both
 * ranks. The part files are never written by the loader, so the template stays valid. */
#include "fuzz/fuzz_pset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > ((size_t)1 << 20))
        return 0;
    const char *dir = fz_pset_template();
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    fz_write_manifest(dir, text, size);
    free(text);
    fz_pset_load_all(dir);
    return 0;
}
