/* bench/gpu_bench_sample.cu -- the GPU benchmark's sampling rows (bench/gpu_bench.cuh; issue 24):
 * the input of the ID-map benchmark (bench/gpu_bench_idmap.cu) and the GPU sampler's edges per
 * second, gnn_sampler_cuda (fused variant) with the ordered map and with the Fused-Map, its
 * blocks checked against ref's (bitwise with the ordered map; the counts with the Fused-Map,
 * whose src order is scheduling's). */
#include <string.h>
#include "bench/gpu_bench.cuh"
#include "gnnref/dataset.h"

/* ---- issue 24's sampling benchmarks: the Fused-Map against CUB sort + unique, and the sampler ----
 * Input: an R-MAT graph (gnn_gen_rmat, --scale) and, per batch size (--batch), `batch` distinct
 * random seeds among the vertices of degree > 0, sampled with --fanouts by the reference sampler
 * (gnn_sample_blocks, DGL order). Layer l's ID-map input is that block's dst list and its
 * neighbour list (src_gid of each edge), exactly what the sampler hands its map. */


/* sampling throughput of gnn_sampler_cuda, variant FUSED, with the map `kind` */
static void bench_sampler(const gnn_csr *g, const std::vector<int64_t> &seeds, const std::vector<int64_t> &fanouts,
                          const gnn_sample_params *base, const std::vector<gnn_block> &ref, gnn_idmap_kind kind,
                          int reps, int *rc)
{
    char name[64], note[320];
    const int L = (int)fanouts.size();
    int64_t edges = 0;
    for (const gnn_block &b : ref)
        edges += b.nnz;
    snprintf(name, sizeof name, "sample.%s b=%lld", kind == GNN_IDMAP_FUSED ? "fusedmap" : "ordered",
             (long long)seeds.size());
    gnn_sampler_options o;
    gnn_sampler_defaults(&o);
    o.variant = GNN_SAMPLER_FUSED;
    o.idmap = kind;
    gnn_sampler *s = NULL;
    const gnn_status st = gnn_sampler_create(&s, &gnn_sampler_cuda, g, &o);
    if (st != GNN_OK) {
        snprintf(note, sizeof note, "SKIP: gnn_sampler_cuda: %s", gnn_status_str(st));
        row(name, 0, "-", "-", note);
        return;
    }
    std::vector<gnn_block> blk((size_t)L);
    for (gnn_block &b : blk)
        memset(&b, 0, sizeof b);
    gnn_status bst = GNN_OK;
    int ok = 1;
    const double ms = time_median_ms(
        reps,
        [&] {
            return (bst = gnn_sampler_blocks(s, seeds.data(), (int64_t)seeds.size(), fanouts.data(), L, base,
                                             blk.data())) != GNN_OK;
        },
        [&] {
            for (int l = 0; l < L && bst == GNN_OK; l++) {
                const gnn_block &a = blk[(size_t)l], &r = ref[(size_t)l];
                /* the counts always; ordered: bitwise the reference block. The Fused-Map's src order is
                 * scheduling's, so its lower layers list their dst in another order: counts only */
                ok &= a.n_dst == r.n_dst && a.n_src == r.n_src && a.nnz == r.nnz;
                if (ok && kind != GNN_IDMAP_FUSED)
                    ok &= !memcmp(a.indptr, r.indptr, (size_t)(r.n_dst + 1) * sizeof(int64_t)) &&
                          !memcmp(a.src_gid, r.src_gid, (size_t)r.n_src * sizeof(int64_t)) &&
                          (!r.nnz || !memcmp(a.indices, r.indices, (size_t)r.nnz * sizeof(int32_t)));
            }
            for (gnn_block &b : blk)
                gnn_block_free(&b); /* leaves it zeroed for the next run */
        });
    gnn_sampler_destroy(s);
    if (ms < 0) {
        if (bst != GNN_OK)
            snprintf(g_fail, sizeof g_fail, "gnn_sampler_blocks: %s", gnn_status_str(bst));
        fail_row(name, rc);
        return;
    }
    snprintf(note, sizeof note, "gnn_sampler_cuda, fused variant, map %s; %d layers, %lld edges; median %.3f ms; %s: %s",
             kind == GNN_IDMAP_FUSED ? "Fused-Map" : "ordered", L, (long long)edges, ms,
             kind == GNN_IDMAP_FUSED ? "counts equal ref's" : "bitwise ref", ok ? "yes" : "NO");
    row(name, edges / (ms * 1e-3) * 1e-6, "Medge/s", "-", note);
    if (!ok)
        printf("MISMATCH: the GPU sampler's blocks differ from ref's (%s map)\n",
               kind == GNN_IDMAP_FUSED ? "Fused" : "ordered");
}

/* the R-MAT graph, then per batch size: the reference blocks, the maps, the samplers */
void bench_sampling(int scale, const std::vector<int64_t> &batches, const std::vector<int64_t> &fanouts, int reps,
                    int sms, int *rc)
{
    char note[320];
    gnn_rmat_params rp;
    gnn_rmat_defaults(&rp);
    rp.scale = scale;
    rp.seed = 1;
    gnn_dataset ds;
    memset(&ds, 0, sizeof ds);
    gnn_err err;
    memset(&err, 0, sizeof err);
    gnn_status st = gnn_gen_rmat(&ds, &rp, &err);
    if (st != GNN_OK) {
        snprintf(note, sizeof note, "FAIL: gnn_gen_rmat scale %d: %s %.200s", scale, gnn_status_str(st), err.msg);
        row("idmap.fused", 0, "-", "-", note);
        *rc = 1;
        return;
    }
    const gnn_csr *g = &ds.graph;
    printf("# R-MAT scale %d: %lld vertices, %lld edges (symmetrized); fanouts", scale, (long long)g->n,
           (long long)g->nnz);
    for (int64_t f : fanouts)
        printf(" %lld", (long long)f);
    printf(" (DGL order: the last is the seeds' layer)\n");
    std::vector<int64_t> cand; /* seeds are drawn among the vertices that have neighbours */
    for (int64_t v = 0; v < g->n; v++)
        if (gnn_csr_degree(g, v) > 0)
            cand.push_back(v);
    gnn_sample_params base;
    memset(&base, 0, sizeof base);
    base.seed = 1;
    const int L = (int)fanouts.size();
    for (int64_t batch : batches) {
        const int64_t nb = std::min<int64_t>(batch, (int64_t)cand.size());
        if (nb <= 0)
            continue;
        std::vector<int64_t> seeds((size_t)nb);
        for (int64_t i = 0; i < nb; i++) { /* a partial Fisher-Yates over the candidates */
            const uint64_t r = ((uint64_t)rnd() << 31) ^ rnd();
            const int64_t j = i + (int64_t)(r % (uint64_t)((int64_t)cand.size() - i));
            std::swap(cand[(size_t)i], cand[(size_t)j]);
            seeds[(size_t)i] = cand[(size_t)i];
        }
        std::vector<gnn_block> ref((size_t)L);
        for (gnn_block &b : ref)
            memset(&b, 0, sizeof b);
        if ((st = gnn_sample_blocks(&gnn_sampler_ref, g, seeds.data(), nb, fanouts.data(), L, &base, ref.data())) !=
            GNN_OK) {
            snprintf(note, sizeof note, "FAIL: the reference sampler: %s", gnn_status_str(st));
            row("idmap.fused", 0, "-", "-", note);
            *rc = 1;
            for (gnn_block &b : ref)
                gnn_block_free(&b);
            continue;
        }
        std::vector<map_layer> layers((size_t)L);
        for (int l = 0; l < L; l++) {
            const gnn_block &b = ref[(size_t)l];
            map_layer &m = layers[(size_t)l];
            m.n_dst = b.n_dst;
            m.nnz = b.nnz;
            m.ids.resize((size_t)(b.n_dst + b.nnz));
            for (int64_t i = 0; i < b.n_dst; i++)
                m.ids[(size_t)i] = b.src_gid[i];
            for (int64_t e = 0; e < b.nnz; e++)
                m.ids[(size_t)(b.n_dst + e)] = b.src_gid[b.indices[e]];
        }
        bench_fusedmap(layers, g->n, nb, reps, sms, rc);
        bench_sampler(g, seeds, fanouts, &base, ref, GNN_IDMAP_ORDERED, reps, rc);
        bench_sampler(g, seeds, fanouts, &base, ref, GNN_IDMAP_FUSED, reps, rc);
        for (gnn_block &b : ref)
            gnn_block_free(&b);
    }
    gnn_dataset_free(&ds);
}
