/* fuzz/fuzz_part.c -- libFuzzer harness of the partition files: a part file of a partition set
 * (core/io/partition_load.c over core/io/format.c) and the METIS-style part vector file
 * (core/io/partfile.c); docs/partitioning.md "Files", docs/fuzzing.md.
 *
 * The first byte chooses:
 *   'v'  a part vector file: byte 1 is n (0..255), byte 2 (signed) is k (k <= 0: any id), the
 *        rest is the file, read from a memfd with gnn_part_vector_read;
 *   else rank (byte & 1)'s part file of the template set (fuzz/fuzz_pset.h): the rest of the
 *        input is a .gnn image whose CRCs and size field the harness makes right (fz_fix_gnn);
 *        the manifest is rewritten to give that file's size and CRC32C (its counts stay the
 *        template's), and the set is loaded every way a command does. The template's file is
 *        put back afterwards. */
#include "fuzz/fuzz_pset.h"
#include "gnnref/partfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *g_manifest;       /* the template's manifest text */
static uint8_t *g_part[2];     /* the template's part files */
static size_t g_part_len[2];

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        abort();
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n)
        abort();
    fclose(f);
    b[n] = 0;
    *len = (size_t)n;
    return b;
}

static void setup(const char *dir)
{
    if (g_manifest)
        return;
    char path[FZ_PATH];
    size_t len;
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    g_manifest = (char *)slurp(path, &len);
    for (int r = 0; r < 2; r++) {
        snprintf(path, sizeof path, "%s/part-%05d.gnn", dir, r);
        g_part[r] = slurp(path, &g_part_len[r]);
    }
}

/* The template manifest with rank r's bytes and crc32c replaced, written to dir. */
static void write_manifest_for(const char *dir, int r, size_t bytes, uint32_t crc)
{
    char fkey[64];
    snprintf(fkey, sizeof fkey, "\"file\":\"part-%05d.gnn\"", r);
    const char *at = strstr(g_manifest, fkey);
    const char *b = at ? strstr(at, "\"bytes\":") : NULL;
    const char *c = at ? strstr(at, "\"crc32c\":\"0x") : NULL;
    if (!b || !c || c < b)
        abort();
    const char *b_end = b + 8;
    while (*b_end >= '0' && *b_end <= '9')
        b_end++;
    const char *c_end = c + 12 + 8;
    size_t cap = strlen(g_manifest) + 64;
    char *out = malloc(cap);
    if (!out)
        abort();
    int n = snprintf(out, cap, "%.*s\"bytes\":%zu%.*s\"crc32c\":\"0x%08x%s", (int)(b - g_manifest), g_manifest, bytes,
                     (int)(c - b_end), b_end, crc, c_end);
    fz_write_manifest(dir, out, (size_t)n);
    free(out);
}

static void part_vector(const uint8_t *data, size_t size)
{
    if (size < 3)
        return;
    const int64_t n = data[1], k = (int8_t)data[2];
    char path[64];
    int fd = fz_memfd(data + 3, size - 3, path, sizeof path);
    int32_t part[256];
    int64_t seen = -1;
    gnn_err err = { { 0 } };
    gnn_status st = gnn_part_vector_read(path, n, k, part, &seen, &err);
    if (st)
        fz_note("part vector", st, err.msg);
    else
        for (int64_t v = 0; v < n; v++)
            if (part[v] < 0 || (k > 0 && part[v] >= k) || part[v] >= seen) {
                fprintf(stderr, "fuzz_part: vertex %lld has part %d (k %lld, k_seen %lld)\n", (long long)v, part[v],
                        (long long)k, (long long)seen);
                abort();
            }
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > ((size_t)1 << 20))
        return 0;
    if (data[0] == 'v') {
        part_vector(data, size);
        return 0;
    }
    const char *dir = fz_pset_template();
    setup(dir);
    const int r = data[0] & 1;
    size_t len = size - 1;
    uint8_t *img = malloc(len ? len : 1);
    if (!img)
        return 0;
    memcpy(img, data + 1, len);
    fz_fix_gnn(img, len);
    char path[FZ_PATH];
    snprintf(path, sizeof path, "%s/part-%05d.gnn", dir, r);
    if (fz_write(path, img, len, 0))
        abort();
    write_manifest_for(dir, r, len, gnn_crc32c(0, img, len));
    free(img);
    fz_pset_load_all(dir);
    /* put the template back */
    if (fz_write(path, g_part[r], g_part_len[r], 0))
        abort();
    fz_write_manifest(dir, g_manifest, strlen(g_manifest));
    return 0;
}
