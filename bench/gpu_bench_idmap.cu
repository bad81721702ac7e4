/* bench/gpu_bench_idmap.cu -- the GPU benchmark's ID-map rows (bench/gpu_bench.cuh; issue 24):
 * FastGL's Fused-Map (gnn_idmap_cuda, GNN_IDMAP_FUSED) against CUB sort + unique + relabel on
 * the layers of a sampled R-MAT graph (bench/gpu_bench_sample.cu makes them): both through host
 * in/out copies (the public API's way), then as device kernels alone, and the speedup of each
 * pair (issue 24's goal: 2x). Every output is checked to be a compaction of its input (after
 * each timed run, outside the timing); a wrong one prints a MISMATCH line. */
#include <string.h>
#include <cub/cub.cuh>
#include "bench/gpu_bench.cuh"
#include "opt/cuda/idmap_host.h"

/* CUB's compaction of a layer: sort dst ++ nbr, unique -> uniq (ascending), then each neighbour's
 * local id = its rank in uniq (binary search), as the ID map's relabel gives each neighbour its
 * local id. One thread per neighbour. */
static __global__ void cub_relabel_kernel(const uint64_t *__restrict__ uniq, const int64_t *__restrict__ n_uniq,
                                          const uint64_t *__restrict__ nbr, int32_t *__restrict__ local, int64_t nnz)
{
    const int64_t n = *n_uniq;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < nnz; e += (int64_t)gridDim.x * blockDim.x) {
        const uint64_t k = nbr[e];
        int64_t lo = 0, hi = n;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (uniq[mid] < k)
                lo = mid + 1;
            else
                hi = mid;
        }
        local[e] = (int32_t)lo;
    }
}

/* The CUB pipeline's device buffers, sized for the largest layer. */
struct cub_bufs {
    dbuf<uint64_t> in, sorted, uniq;
    dbuf<int64_t> num;
    dbuf<int32_t> local;
    dbuf<unsigned char> temp;
    size_t temp_bytes = 0;
    int end_bit = 64;
    int relabel_grid = 1;
};

static int cub_setup(cub_bufs *c, int64_t max_items, int64_t max_nnz, int64_t n_vertices, int sms)
{
    c->end_bit = 1;
    while (c->end_bit < 63 && ((int64_t)1 << c->end_bit) < n_vertices)
        c->end_bit++; /* sort only the bits an id can have: CUB's best case */
    size_t sort_bytes = 0, uniq_bytes = 0;
    CKS(cub::DeviceRadixSort::SortKeys((void *)nullptr, sort_bytes, (const uint64_t *)nullptr, (uint64_t *)nullptr,
                                       (int64_t)max_items, 0, c->end_bit));
    CKS(cub::DeviceSelect::Unique((void *)nullptr, uniq_bytes, (const uint64_t *)nullptr, (uint64_t *)nullptr,
                                  (int64_t *)nullptr, (int64_t)max_items));
    c->temp_bytes = sort_bytes > uniq_bytes ? sort_bytes : uniq_bytes;
    CKS(c->temp.alloc(c->temp_bytes));
    CKS(c->in.alloc((size_t)max_items));
    CKS(c->sorted.alloc((size_t)max_items));
    CKS(c->uniq.alloc((size_t)max_items));
    CKS(c->num.alloc(1));
    CKS(c->local.alloc((size_t)max_nnz));
    c->relabel_grid = sms > 0 ? sms * 8 : 1;
    return 0;
}

/* The kernels of one layer on d_in (n_dst + nnz keys on the device); *n_uniq (host) = n_src. */
static int cub_kernels(cub_bufs *c, const uint64_t *d_in, int64_t n_dst, int64_t nnz, int64_t *n_uniq)
{
    const int64_t items = n_dst + nnz;
    size_t bytes = c->temp_bytes;
    CKS(cub::DeviceRadixSort::SortKeys((void *)c->temp.p, bytes, d_in, c->sorted.p, items, 0, c->end_bit));
    bytes = c->temp_bytes;
    CKS(cub::DeviceSelect::Unique((void *)c->temp.p, bytes, (const uint64_t *)c->sorted.p, c->uniq.p, c->num.p, items));
    if (nnz) {
        cub_relabel_kernel<<<c->relabel_grid, 256>>>(c->uniq.p, c->num.p, d_in + n_dst, c->local.p, nnz);
        CKS(cudaGetLastError());
    }
    CKS(cudaMemcpy(n_uniq, c->num.p, sizeof(int64_t), cudaMemcpyDeviceToHost)); /* an ID map returns n_src */
    return 0;
}

/* One layer's compaction from the host and back, as gnn_idmap_build does it: the ids in, the
 * kernels, the local ids and the unique ids (the src_gid list) out. */
static int cub_host(cub_bufs *c, const map_layer &L, int32_t *local, int64_t *uniq, int64_t *n_uniq)
{
    const int64_t items = L.n_dst + L.nnz;
    if (L.n_dst)
        CKS(cudaMemcpy(c->in.p, L.ids.data(), (size_t)L.n_dst * sizeof(int64_t), cudaMemcpyHostToDevice));
    if (L.nnz)
        CKS(cudaMemcpy(c->in.p + L.n_dst, L.ids.data() + L.n_dst, (size_t)L.nnz * sizeof(int64_t),
                       cudaMemcpyHostToDevice));
    if (items == 0) {
        *n_uniq = 0;
        return 0;
    }
    if (cub_kernels(c, c->in.p, L.n_dst, L.nnz, n_uniq))
        return -1;
    if (L.nnz)
        CKS(cudaMemcpy(local, c->local.p, (size_t)L.nnz * sizeof(int32_t), cudaMemcpyDeviceToHost));
    if (*n_uniq)
        CKS(cudaMemcpy(uniq, c->uniq.p, (size_t)*n_uniq * sizeof(int64_t), cudaMemcpyDeviceToHost));
    return 0;
}

/* 1 when (local, src_gid, n_src) is a compaction of layer L: every local id names the neighbour's
 * vertex, n_src ids, each distinct (n_src equals the distinct count `distinct`); with dst_first
 * the dst are src 0 .. n_dst-1 in order (the ID map's contract; CUB's sorted list has no such
 * order). */
static int is_compaction(const map_layer &L, const int32_t *local, const int64_t *src_gid, int64_t n_src,
                         int64_t distinct, int dst_first)
{
    if (n_src != distinct)
        return 0;
    for (int64_t i = 0; dst_first && i < L.n_dst; i++)
        if (src_gid[i] != L.ids[(size_t)i])
            return 0;
    for (int64_t e = 0; e < L.nnz; e++)
        if (local[e] < 0 || local[e] >= n_src || src_gid[local[e]] != L.ids[(size_t)(L.n_dst + e)])
            return 0;
    return 1;
}

/* A run of bench_fusedmap: the layers, their sizes and offsets in the device copy, and what
 * every side is checked against: each layer's distinct count (both sides' n_src must equal it)
 * and the host outputs, one per layer, checked after each timed run (outside the timing). */
struct fm_run {
    const std::vector<map_layer> *layers = nullptr;
    size_t nl = 0;
    int64_t items = 0, max_items = 0, max_nnz = 0;
    std::vector<int64_t> off; /* (nl + 1) layer l's ids at off[l] of the device copy */
    std::vector<int64_t> distinct;
    std::vector<std::vector<int32_t>> local;
    std::vector<std::vector<int64_t>> gid;
    std::vector<int64_t> n_src;

    /* every layer's output is a compaction of its input (dst_first: the ID map's order) */
    int check_all(int dst_first) const
    {
        int ok = 1;
        for (size_t l = 0; l < nl; l++)
            ok &= is_compaction((*layers)[l], local[l].data(), gid[l].data(), n_src[l], distinct[l], dst_first);
        return ok;
    }
};

static void fm_run_init(fm_run &r, const std::vector<map_layer> &layers)
{
    const size_t nl = layers.size();
    r.layers = &layers;
    r.nl = nl;
    r.off.assign(nl + 1, 0);
    for (size_t l = 0; l < nl; l++) {
        r.items += layers[l].n_dst + layers[l].nnz;
        r.max_items = std::max(r.max_items, layers[l].n_dst + layers[l].nnz);
        r.max_nnz = std::max(r.max_nnz, layers[l].nnz);
        r.off[l + 1] = r.off[l] + layers[l].n_dst + layers[l].nnz;
    }
    r.distinct.resize(nl);
    for (size_t l = 0; l < nl; l++) {
        std::vector<int64_t> s(layers[l].ids);
        std::sort(s.begin(), s.end());
        r.distinct[l] = (int64_t)(std::unique(s.begin(), s.end()) - s.begin());
    }
    r.local.resize(nl);
    r.gid.resize(nl);
    r.n_src.assign(nl, -1);
    for (size_t l = 0; l < nl; l++) {
        r.local[l].resize((size_t)layers[l].nnz + 1);
        r.gid[l].resize((size_t)(layers[l].n_dst + layers[l].nnz) + 1);
    }
}

/* (1) the public API: gnn_idmap_build of gnn_idmap_cuda, kind FUSED (host ids in, host ids
 * out). Returns the median ms, or -1 where it did not run (SKIP or FAIL row). */
static double fm_public(fm_run &r, int64_t n_vertices, int64_t batch, int reps, int *rc)
{
    char name[64], note[320];
    const std::vector<map_layer> &layers = *r.layers;
    double fm_ms = -1;
    snprintf(name, sizeof name, "idmap.fused b=%lld", (long long)batch);
    gnn_idmap *m = NULL;
    const gnn_status st = gnn_idmap_create(&m, &gnn_idmap_cuda, GNN_IDMAP_FUSED, n_vertices);
    if (st != GNN_OK) {
        snprintf(note, sizeof note, "SKIP: gnn_idmap_cuda: %s", gnn_status_str(st));
        row(name, 0, "-", "-", note);
        return fm_ms;
    }
    int ok = 1;
    gnn_status bst = GNN_OK;
    fm_ms = time_median_ms(
        reps,
        [&] {
            for (size_t l = 0; l < r.nl; l++) {
                const map_layer &L = layers[l];
                if ((bst = gnn_idmap_build(m, L.ids.data(), L.n_dst, L.ids.data() + L.n_dst, L.nnz,
                                           r.local[l].data(), r.gid[l].data(), &r.n_src[l])) != GNN_OK)
                    return 1;
            }
            return 0;
        },
        [&] { ok &= bst == GNN_OK && r.check_all(1); });
    gnn_idmap_destroy(m);
    if (fm_ms < 0) {
        if (bst != GNN_OK)
            snprintf(g_fail, sizeof g_fail, "gnn_idmap_build: %s", gnn_status_str(bst));
        fail_row(name, rc);
    } else {
        snprintf(note, sizeof note,
                 "public API, host in and out; %zu layers, %lld items; median %.3f ms; compaction: %s", r.nl,
                 (long long)r.items, fm_ms, ok ? "yes" : "NO");
        row(name, r.items / (fm_ms * 1e-3) * 1e-6, "Mitem/s", "-", note);
        if (!ok)
            printf("MISMATCH: the Fused-Map's output is not a compaction of its input\n");
    }
    return fm_ms;
}

/* (2) CUB sort + unique + relabel, with the same copies in and out (c set up by cub_setup when
 * cub_ok). Returns the median ms, or -1 (FAIL row). */
static double cub_public(fm_run &r, cub_bufs *c, int cub_ok, int64_t batch, int reps, int *rc)
{
    char name[64], note[320];
    double cub_ms = -1;
    snprintf(name, sizeof name, "cub.sort_unique b=%lld", (long long)batch);
    if (!cub_ok) {
        fail_row(name, rc);
        return cub_ms;
    }
    int ok = 1;
    cub_ms = time_median_ms(
        reps,
        [&] {
            for (size_t l = 0; l < r.nl; l++)
                if (cub_host(c, (*r.layers)[l], r.local[l].data(), r.gid[l].data(), &r.n_src[l]))
                    return 1;
            return 0;
        },
        [&] { ok &= r.check_all(0); });
    if (cub_ms < 0) {
        fail_row(name, rc);
    } else {
        snprintf(note, sizeof note,
                 "SortKeys (bits 0..%d) + Unique + relabel, same copies; median %.3f ms; compaction: %s",
                 c->end_bit, cub_ms, ok ? "yes" : "NO");
        row(name, r.items / (cub_ms * 1e-3) * 1e-6, "Mitem/s", "-", note);
        if (!ok)
            printf("MISMATCH: CUB's output is not a compaction of its input\n");
    }
    return cub_ms;
}

/* The speedup row of a pair: cub_ms / fm_ms against issue 24's 2x, or SKIP where a side did
 * not run. */
static void speedup_row(const char *what, int64_t batch, double fm_ms, double cub_ms, const char *note)
{
    char name[64], gbuf[32];
    snprintf(name, sizeof name, "%s b=%lld", what, (long long)batch);
    if (fm_ms > 0 && cub_ms > 0)
        row(name, cub_ms / fm_ms, "x", goal_of(gbuf, sizeof gbuf, cub_ms / fm_ms, 2.0), note);
    else
        row(name, 0, "-", ">= 2.00 (SKIP)", "SKIP: a side did not run");
}

/* The layers' ids, all of them, copied to the device once (d_all, at r.off), and the device
 * outputs the kernels write (d_gid, d_local), sized for the largest layer. On failure g_fail
 * says why. */
static cudaError_t upload_layers(const fm_run &r, dbuf<int64_t> &d_all, dbuf<int64_t> &d_gid, dbuf<int32_t> &d_local)
{
    std::vector<int64_t> all((size_t)r.items);
    for (size_t l = 0; l < r.nl; l++)
        std::copy((*r.layers)[l].ids.begin(), (*r.layers)[l].ids.end(), all.begin() + r.off[l]);
    cudaError_t e = d_all.alloc((size_t)r.items);
    if (e == cudaSuccess)
        e = d_gid.alloc((size_t)r.max_items);
    if (e == cudaSuccess)
        e = d_local.alloc((size_t)r.max_nnz);
    if (e == cudaSuccess && r.items)
        e = cudaMemcpy(d_all.p, all.data(), (size_t)r.items * sizeof(int64_t), cudaMemcpyHostToDevice);
    if (e != cudaSuccess)
        snprintf(g_fail, sizeof g_fail, "device copy of the layers: %s", cudaGetErrorString(e));
    return e;
}

/* (3) the Fused-Map's kernels alone (gnn_kmap_*): the ids already on the device (d_all),
 * nothing copied back but n_src. Runs where the upload worked (up: its status) and the public
 * Fused-Map ran (fm_ms >= 0). Returns the median ms, or -1. */
static double fm_kernels(fm_run &r, cudaError_t up, double fm_ms, const dbuf<int64_t> &d_all, dbuf<int64_t> &d_gid,
                         dbuf<int32_t> &d_local, int64_t batch, int reps, int *rc)
{
    char name[64], note[320];
    const std::vector<map_layer> &layers = *r.layers;
    snprintf(name, sizeof name, "idmap.fused.kernels b=%lld", (long long)batch);
    if (up != cudaSuccess || fm_ms < 0) {
        if (up != cudaSuccess)
            fail_row(name, rc);
        else
            row(name, 0, "-", "-", "SKIP: the public Fused-Map did not run");
        return -1;
    }
    gnn_kmap m;
    gnn_kmap_init(&m, &gnn_kdev_cuda, GNN_IDMAP_FUSED);
    gnn_status bst = GNN_OK;
    int ok = 1;
    const double fk_ms = time_median_ms(
        reps,
        [&] {
            for (size_t l = 0; l < r.nl; l++) {
                const int64_t nd = layers[l].n_dst, nz = layers[l].nnz;
                const int64_t *d_dst = d_all.p + r.off[l], *d_nbr = d_all.p + r.off[l] + nd;
                if ((bst = gnn_kmap_begin(&m, nd, nz)) || (bst = gnn_kmap_insert_dst(&m, d_dst, nd, d_gid.p)) ||
                    (bst = gnn_kmap_insert_nbr(&m, d_dst, nd, d_nbr, nz, d_gid.p)) ||
                    (bst = gnn_kmap_finish(&m, d_dst, nd, d_nbr, nz, d_local.p, d_gid.p, &r.n_src[l])))
                    return 1;
            }
            return 0;
        },
        [&] {
            for (size_t l = 0; l < r.nl; l++)
                ok &= bst == GNN_OK && r.n_src[l] == r.distinct[l];
        });
    gnn_kmap_free(&m);
    if (fk_ms < 0) {
        if (bst != GNN_OK)
            snprintf(g_fail, sizeof g_fail, "gnn_kmap_*: %s", gnn_status_str(bst));
        fail_row(name, rc);
    } else {
        snprintf(note, sizeof note, "the same map's kernels (gnn_kmap_*), ids on the device; median %.3f ms; n_src: %s",
                 fk_ms, ok ? "right" : "WRONG");
        row(name, r.items / (fk_ms * 1e-3) * 1e-6, "Mitem/s", "-", note);
        if (!ok)
            printf("MISMATCH: the Fused-Map kernels' n_src differs from the distinct count\n");
    }
    return fk_ms;
}

/* (4) CUB's kernels alone on the same device copy. Runs where the upload worked (up), CUB was
 * set up (cub_ok) and its public run ran (cub_ms >= 0). Returns the median ms, or -1. */
static double cub_kernels_alone(fm_run &r, cub_bufs *c, cudaError_t up, int cub_ok, double cub_ms,
                                const dbuf<int64_t> &d_all, int64_t batch, int reps, int *rc)
{
    char name[64], note[320];
    const std::vector<map_layer> &layers = *r.layers;
    snprintf(name, sizeof name, "cub.sort_unique.kernels b=%lld", (long long)batch);
    if (up != cudaSuccess || !cub_ok || cub_ms < 0) {
        row(name, 0, "-", "-", "SKIP: the CUB pipeline or the device copy did not run");
        return -1;
    }
    int ok = 1;
    const double ck_ms = time_median_ms(
        reps,
        [&] {
            for (size_t l = 0; l < r.nl; l++)
                if (layers[l].n_dst + layers[l].nnz &&
                    cub_kernels(c, (const uint64_t *)(d_all.p + r.off[l]), layers[l].n_dst, layers[l].nnz,
                                &r.n_src[l]))
                    return 1;
            return 0;
        },
        [&] {
            for (size_t l = 0; l < r.nl; l++)
                ok &= layers[l].n_dst + layers[l].nnz == 0 || r.n_src[l] == r.distinct[l];
        });
    if (ck_ms < 0) {
        fail_row(name, rc);
    } else {
        snprintf(note, sizeof note, "SortKeys + Unique + relabel, ids on the device; median %.3f ms; n_src: %s",
                 ck_ms, ok ? "right" : "WRONG");
        row(name, r.items / (ck_ms * 1e-3) * 1e-6, "Mitem/s", "-", note);
        if (!ok)
            printf("MISMATCH: CUB's n_src differs from the distinct count\n");
    }
    return ck_ms;
}

void bench_fusedmap(const std::vector<map_layer> &layers, int64_t n_vertices, int64_t batch, int reps, int sms,
                    int *rc)
{
    fm_run r;
    fm_run_init(r, layers);
    const double fm_ms = fm_public(r, n_vertices, batch, reps, rc);
    cub_bufs c;
    const int cub_ok = cub_setup(&c, r.max_items, r.max_nnz, n_vertices, sms) == 0;
    const double cub_ms = cub_public(r, &c, cub_ok, batch, reps, rc);
    speedup_row("speedup.fusedmap_vs_cub", batch, fm_ms, cub_ms,
                "cub.sort_unique ms / idmap.fused ms, both host in and out");

    dbuf<int64_t> d_all, d_gid;
    dbuf<int32_t> d_local;
    const cudaError_t up = upload_layers(r, d_all, d_gid, d_local);
    const double fk_ms = fm_kernels(r, up, fm_ms, d_all, d_gid, d_local, batch, reps, rc);
    const double ck_ms = cub_kernels_alone(r, &c, up, cub_ok, cub_ms, d_all, batch, reps, rc);
    speedup_row("speedup.fusedmap_vs_cub.kernels", batch, fk_ms, ck_ms,
                "cub.sort_unique.kernels ms / idmap.fused.kernels ms");
}
