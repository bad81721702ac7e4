/* bench/peers/peers_tool.c -- the gnnref side of `make bench-peers` that the command-line tool
 * does not offer: export the seed batches and the sampled blocks of a native file, so that the
 * peers (bench/peers/peers.py) run on exactly the same input, and time the ID map of one input
 * layer alone. Linked against build/libgnnref.a by bench/peers/run.sh; public API only.
 *
 *   peers_tool export DATA PREFIX BATCH BATCHES SEED FANOUTS
 *       PREFIX.seeds.i64: the seeds of batches 0 .. BATCHES-1 concatenated (int64), exactly
 *       those `gnnref sample --data DATA --batch BATCH --batches BATCHES --seed SEED` samples:
 *       the train vertices (all vertices without a split), shuffled per epoch with (SEED,
 *       SHUFFLE, step = epoch), cut into batches (the last of an epoch may be shorter; the
 *       batch lengths go to PREFIX.batches.i64).
 *       PREFIX.blk<l>.{src,indptr,indices}: the blocks of batch 0 (step 0), l = 0 the input
 *       layer, from the cpu sampler (fused, ordered ID map = the reference blocks):
 *       src_gid (int64, n_src), indptr (int64, n_dst + 1), indices (int32, nnz, block-local).
 *       Prints one JSON line with the sizes.
 *   peers_tool idmap DATA PREFIX THREADS REPEATS
 *       Times gnn_idmap_build (cpu ops; ORDERED, DENSE, and REF serial) on the input layer of
 *       PREFIX's batch 0: dst = its dst vertices, nbr = its sampled neighbors in draw order
 *       (global ids), the input DGL's to_block gets. The map object is created once per kind
 *       (DENSE sizes its array to the graph) outside the timing, as a sampler keeps it; every
 *       build's output is compared with the exported block. Prints one JSON line of seconds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gnnref/dataset.h"
#include "gnnref/graph.h"
#include "gnnref/idmap.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "gnnref/tensor.h"
#ifdef _OPENMP
#include <omp.h>
#endif

#define MAX_L 16

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int die(const char *msg, const char *arg)
{
    fprintf(stderr, "peers_tool: error: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    return 1;
}

static int write_file(const char *prefix, const char *suffix, const void *p, size_t bytes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.%s", prefix, suffix);
    FILE *f = fopen(path, "wb");
    if (!f)
        return die("cannot write", path);
    if (bytes && fwrite(p, 1, bytes, f) != bytes) {
        fclose(f);
        return die("short write", path);
    }
    return fclose(f) ? die("cannot close", path) : 0;
}

static void *read_file(const char *prefix, const char *suffix, size_t *bytes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.%s", prefix, suffix);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = gnn_malloc((size_t)n + 64);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        gnn_free(p);
        p = NULL;
    }
    fclose(f);
    *bytes = (size_t)n;
    return p;
}

/* cli/cmd_sample.c's seed set (the train vertices, else all, in id order), repeated here on
 * purpose: the CLI's helpers are not library API, and the export must give the batches that
 * `gnnref sample` draws. */
static int64_t fill_seeds(const gnn_dataset *ds, int64_t *v)
{
    int64_t k = 0;
    for (int64_t i = 0; i < ds->graph.n; i++)
        if (!ds->split || ds->split[i] == GNN_SPLIT_TRAIN)
            v[k++] = i;
    return k;
}

static int cmd_export(int argc, char **argv)
{
    if (argc != 8)
        return die("usage: peers_tool export DATA PREFIX BATCH BATCHES SEED FANOUTS", NULL);
    const char *data = argv[2], *prefix = argv[3];
    const int64_t batch = atoll(argv[4]), batches = atoll(argv[5]);
    const uint64_t seed = strtoull(argv[6], NULL, 10);
    int64_t fanouts[MAX_L];
    int L = 0;
    for (char *s = argv[7]; *s && L < MAX_L;) {
        fanouts[L++] = strtoll(s, &s, 10);
        if (*s == ',')
            s++;
    }
    if (batch < 1 || batches < 1 || L < 1)
        return die("bad BATCH, BATCHES or FANOUTS", NULL);
    gnn_dataset ds;
    memset(&ds, 0, sizeof ds);
    gnn_err err = { "" };
    gnn_status st = gnn_dataset_load(&ds, data, &err);
    if (st)
        return die(err.msg, data);
    const int64_t n = ds.graph.n;
    int64_t *seeds = gnn_malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    int64_t *out = gnn_malloc((size_t)(batch * batches) * sizeof(int64_t));
    int64_t *lens = gnn_malloc((size_t)batches * sizeof(int64_t));
    if (!seeds || !out || !lens)
        return die("out of memory", NULL);
    const int64_t n_seeds = fill_seeds(&ds, seeds);
    if (n_seeds == 0)
        return die("no seed vertices", data);
    const int64_t nb = (n_seeds + batch - 1) / batch;
    int64_t total = 0;
    for (int64_t t = 0; t < batches; t++) { /* as cli/cmd_sample.c's loop */
        const int64_t pos = t % nb;
        if (pos == 0) {
            fill_seeds(&ds, seeds);
            const gnn_rng_stream s = gnn_rng_stream_make(seed, GNN_TAG_SHUFFLE, (uint32_t)(t / nb), 0, 0);
            gnn_rng_shuffle_i64(&s, seeds, n_seeds);
        }
        const int64_t bn = pos * batch + batch <= n_seeds ? batch : n_seeds - pos * batch;
        memcpy(out + total, seeds + pos * batch, (size_t)bn * sizeof(int64_t));
        lens[t] = bn;
        total += bn;
        if (t == 0) {
            gnn_sampler *smp = NULL;
            gnn_block blk[MAX_L];
            memset(blk, 0, sizeof blk);
            gnn_sample_params p;
            memset(&p, 0, sizeof p);
            p.seed = seed;
            p.step = 0;
            if ((st = gnn_sampler_create(&smp, &gnn_sampler_cpu, &ds.graph,
                                         &(gnn_sampler_options){ .variant = GNN_SAMPLER_FUSED, .idmap = GNN_IDMAP_ORDERED })) ||
                (st = gnn_sampler_blocks(smp, seeds, bn, fanouts, L, &p, blk)))
                return die("sampling batch 0 failed", gnn_status_str(st));
            gnn_sampler_destroy(smp);
            printf("{\"n\": %lld, \"nnz\": %lld, \"n_seeds\": %lld, \"blocks\": [", (long long)n,
                   (long long)ds.graph.nnz, (long long)n_seeds);
            for (int l = 0; l < L; l++) {
                char suf[64];
                snprintf(suf, sizeof suf, "blk%d.src", l);
                if (write_file(prefix, suf, blk[l].src_gid, (size_t)blk[l].n_src * 8))
                    return 1;
                snprintf(suf, sizeof suf, "blk%d.indptr", l);
                if (write_file(prefix, suf, blk[l].indptr, (size_t)(blk[l].n_dst + 1) * 8))
                    return 1;
                snprintf(suf, sizeof suf, "blk%d.indices", l);
                if (write_file(prefix, suf, blk[l].indices, (size_t)blk[l].nnz * 4))
                    return 1;
                printf("%s{\"n_dst\": %lld, \"n_src\": %lld, \"nnz\": %lld}", l ? ", " : "",
                       (long long)blk[l].n_dst, (long long)blk[l].n_src, (long long)blk[l].nnz);
                gnn_block_free(&blk[l]);
            }
            printf("]}\n");
        }
    }
    if (write_file(prefix, "seeds.i64", out, (size_t)total * 8) ||
        write_file(prefix, "batches.i64", lens, (size_t)batches * 8))
        return 1;
    gnn_free(seeds);
    gnn_free(out);
    gnn_free(lens);
    gnn_dataset_free(&ds);
    return 0;
}

static int cmp_dbl(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmd_idmap(int argc, char **argv)
{
    if (argc != 6)
        return die("usage: peers_tool idmap DATA PREFIX THREADS REPEATS", NULL);
    const char *data = argv[2], *prefix = argv[3];
    const int threads = atoi(argv[4]), repeats = atoi(argv[5]);
    if (threads < 1 || repeats < 1 || repeats > 1000)
        return die("bad THREADS or REPEATS", NULL);
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    gnn_dataset ds;
    memset(&ds, 0, sizeof ds);
    gnn_err err = { "" };
    if (gnn_dataset_load(&ds, data, &err))
        return die(err.msg, data);
    size_t sb = 0, pb = 0, ib = 0;
    int64_t *src = read_file(prefix, "blk0.src", &sb), *indptr = read_file(prefix, "blk0.indptr", &pb);
    int32_t *idx = read_file(prefix, "blk0.indices", &ib);
    if (!src || !indptr || !idx)
        return die("cannot read the exported input block (run peers_tool export first)", prefix);
    const int64_t n_dst = (int64_t)(pb / 8) - 1, nnz = (int64_t)(ib / 4), n_src_ref = (int64_t)(sb / 8);
    int64_t *nbr = gnn_malloc((size_t)(nnz > 0 ? nnz : 1) * 8);
    int32_t *local = gnn_malloc((size_t)(nnz > 0 ? nnz : 1) * 4);
    int64_t *sg = gnn_malloc((size_t)(n_dst + nnz) * 8);
    if (!nbr || !local || !sg)
        return die("out of memory", NULL);
    for (int64_t e = 0; e < nnz; e++)
        nbr[e] = src[idx[e]];
    static const struct { const char *name; gnn_idmap_kind kind; const gnn_idmap_ops *ops; } k_maps[] = {
        { "ordered", GNN_IDMAP_ORDERED, &gnn_idmap_cpu },
        { "dense", GNN_IDMAP_DENSE, &gnn_idmap_cpu },
        { "ref", GNN_IDMAP_REF, &gnn_idmap_ref },
    };
    printf("{\"n_dst\": %lld, \"n_src\": %lld, \"nnz\": %lld, \"threads\": %d", (long long)n_dst,
           (long long)n_src_ref, (long long)nnz, threads);
    for (size_t k = 0; k < sizeof k_maps / sizeof k_maps[0]; k++) {
        gnn_idmap *m = NULL;
        gnn_status st = gnn_idmap_create(&m, k_maps[k].ops, k_maps[k].kind, ds.graph.n);
        if (st)
            return die("cannot create the ID map", gnn_status_str(st));
        double t[1000];
        for (int r = 0; r <= repeats; r++) { /* r = 0: warm-up, untimed */
            int64_t n_src = 0;
            const double t0 = now_s();
            st = gnn_idmap_build(m, src, n_dst, nbr, nnz, local, sg, &n_src);
            const double dt = now_s() - t0;
            if (st)
                return die("gnn_idmap_build failed", gnn_status_str(st));
            if (n_src != n_src_ref || memcmp(sg, src, (size_t)n_src * 8) || memcmp(local, idx, (size_t)nnz * 4))
                return die("the ID map's output differs from the exported block", k_maps[k].name);
            if (r > 0)
                t[r - 1] = dt;
        }
        gnn_idmap_destroy(m);
        printf(", \"%s\": [", k_maps[k].name);
        for (int r = 0; r < repeats; r++)
            printf("%s%.9f", r ? ", " : "", t[r]);
        qsort(t, (size_t)repeats, sizeof t[0], cmp_dbl);
        printf("], \"%s_median\": %.9f", k_maps[k].name, t[repeats / 2]);
    }
    printf("}\n");
    gnn_free(nbr);
    gnn_free(local);
    gnn_free(sg);
    gnn_free(src);
    gnn_free(indptr);
    gnn_free(idx);
    gnn_dataset_free(&ds);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "export"))
        return cmd_export(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "idmap"))
        return cmd_idmap(argc, argv);
    return die("usage: peers_tool export|idmap ...", NULL);
}
