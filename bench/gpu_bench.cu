/* bench/gpu_bench.cu -- the GPU benchmarks of the CUDA tier (docs/cuda.md; run by
 * ci/gpu-check.sh; built by `make gpu-bench` in a CUDA build): on one card, in one run,
 *   copy       a float4 copy kernel: the card's achievable memory bandwidth (read + write);
 *   agg        the Memory-Aware gather (opt/cuda/aggregate_body.h), sum and weighted, on a
 *              random CSR at d = 256 (default), timed on the device alone (no host copies),
 *              its output compared bitwise with ref/aggregate.c on the host;
 *   cusparse   cuSPARSE SpMM on the same CSR (values = the weights; row-major dense), the best
 *              of its default and CSR_ALG2 algorithms; SKIP when cuSPARSE was not found at
 *              build time;
 *   quant      int2 stochastic quantize + pack (opt/cuda/quant_body.h) of n x d rows;
 *   idmap      on the sampled layers of an R-MAT graph (--scale, --batch, --fanouts): FastGL's
 *              Fused-Map (gnn_idmap_cuda, GNN_IDMAP_FUSED) against CUB sort + unique + relabel,
 *              both through host in/out copies (the public API) and as device kernels alone;
 *   sample     gnn_sampler_cuda (fused variant), ordered and Fused-Map, in edges per second on
 *              the same graph and seeds, its blocks checked against ref's.
 * Times are cudaEvent times: agg/copy/quant the mean of --reps runs after two warm-ups; idmap and
 * sample the median of --reps runs after one warm-up.
 * Prints one row per figure: `name | value | unit | goal | note` (goal: issue 24's target and
 * whether it is met; a missed goal is reported, never an error). Exit 0 with "SKIP: no GPU: ..."
 * where no GPU can run it; exit 1 when a CUDA call fails; a line starting "MISMATCH" when a
 * result differs from ref. Options: --n-dst N --n-src N --deg LO..HI --d D --reps R --scale S
 * --batch B1,B2,.. --fanouts K1,K2,.. (defaults 20, 1000,8192 and 15,10,5). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <cub/cub.cuh>
#include <vector>
#include "gnnref/aggregate.h"
#include "gnnref/cuda.h"
#include "gnnref/dataset.h"
#include "gnnref/idmap.h"
#include "gnnref/sample.h"
#include "opt/cuda/aggregate_host.h"
#include "opt/cuda/idmap_host.h"
#include "opt/cuda/quant_host.h"
#ifdef GNN_HAVE_CUSPARSE
#include <cusparse.h>
#endif

#define CK(call)                                                                                                   \
    do {                                                                                                           \
        cudaError_t e_ = (call);                                                                                   \
        if (e_ != cudaSuccess) {                                                                                   \
            fprintf(stderr, "gnnref-gpu-bench: %s: %s\n", #call, cudaGetErrorString(e_));                         \
            exit(1);                                                                                               \
        }                                                                                                          \
    } while (0)

static void row(const char *name, double value, const char *unit, const char *goal, const char *note)
{
    printf("%-40s | %12.3f | %-8s | %-16s | %s\n", name, value, unit, goal, note);
}

/* the goal column: "TARGET (met)" or "TARGET (MISSED)"; a missed goal is reported, never an error */
static const char *goal_of(char *buf, size_t cap, double value, double target)
{
    snprintf(buf, cap, ">= %.2f (%s)", target, value >= target ? "met" : "MISSED");
    return buf;
}

static __global__ void copy_kernel(const float4 *__restrict__ in, float4 *__restrict__ out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

static uint64_t g_lcg = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    g_lcg = g_lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(g_lcg >> 33);
}

/* mean milliseconds of reps runs of fn after two warm-up runs */
template <typename F> static double time_ms(int reps, F fn)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    fn();
    fn();
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(a));
    for (int r = 0; r < reps; r++)
        fn();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return (double)ms / reps;
}

/* ---- issue 24's sampling benchmarks: the Fused-Map against CUB sort + unique, and the sampler ----
 * Input: an R-MAT graph (gnn_gen_rmat, --scale) and, per batch size (--batch), `batch` distinct
 * random seeds among the vertices of degree > 0, sampled with --fanouts by the reference sampler
 * (gnn_sample_blocks, DGL order). Layer l's ID-map input is that block's dst list and its
 * neighbour list (src_gid of each edge), exactly what the sampler hands its map. */

/* soft checks: a failed CUDA call makes its benchmark print a FAIL row and the run exit 1 */
static char g_fail[256];
#define CKS(call)                                                                                                  \
    do {                                                                                                           \
        cudaError_t e_ = (call);                                                                                   \
        if (e_ != cudaSuccess) {                                                                                   \
            snprintf(g_fail, sizeof g_fail, "%s: %s", #call, cudaGetErrorString(e_));                              \
            return -1;                                                                                             \
        }                                                                                                          \
    } while (0)

/* a device array freed on scope exit */
template <typename T> struct dbuf {
    T *p = nullptr;
    dbuf() = default;
    dbuf(const dbuf &) = delete;
    dbuf &operator=(const dbuf &) = delete;
    ~dbuf()
    {
        if (p)
            cudaFree(p);
    }
    cudaError_t alloc(size_t count)
    {
        if (p)
            cudaFree(p);
        p = nullptr;
        return cudaMalloc((void **)&p, (count ? count : 1) * sizeof(T));
    }
};

/* Median milliseconds of reps runs of fn after one warm-up run. Each run lies between two
 * cudaEvents on the default stream, the device idle before it, and ends with the second event
 * synchronized, so host work inside fn (a public API's copies and checks) counts. fn returns 0 on
 * success; after() runs outside the timed region after every run (the warm-up too), even a failed
 * one. Returns -1 with g_fail set on a failure. */
template <typename F, typename G> static double time_median_ms(int reps, F fn, G after)
{
    cudaEvent_t a = nullptr, b = nullptr;
    std::vector<float> t;
    cudaError_t e = cudaEventCreate(&a);
    if (e == cudaSuccess)
        e = cudaEventCreate(&b);
    int bad = 0;
    for (int r = -1; e == cudaSuccess && !bad && r < reps; r++) { /* r = -1: the warm-up */
        if ((e = cudaDeviceSynchronize()) != cudaSuccess || (e = cudaEventRecord(a)) != cudaSuccess)
            break;
        bad = fn();
        if ((e = cudaEventRecord(b)) == cudaSuccess)
            e = cudaEventSynchronize(b);
        float ms = 0;
        if (e == cudaSuccess && !bad)
            e = cudaEventElapsedTime(&ms, a, b);
        after();
        if (e == cudaSuccess && !bad && r >= 0)
            t.push_back(ms);
    }
    if (a)
        cudaEventDestroy(a);
    if (b)
        cudaEventDestroy(b);
    if (e != cudaSuccess) {
        snprintf(g_fail, sizeof g_fail, "timing: %s", cudaGetErrorString(e));
        return -1;
    }
    if (bad || t.empty()) {
        if (!g_fail[0])
            snprintf(g_fail, sizeof g_fail, "the timed run failed");
        return -1;
    }
    std::sort(t.begin(), t.end());
    const size_t n = t.size();
    return n % 2 ? (double)t[n / 2] : 0.5 * ((double)t[n / 2 - 1] + (double)t[n / 2]);
}

/* one layer's ID-map input: dst (n_dst, unique) then the neighbours (nnz), contiguous */
struct map_layer {
    int64_t n_dst = 0, nnz = 0;
    std::vector<int64_t> ids; /* dst ++ nbr */
};

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

static void fail_row(const char *name, int *rc)
{
    char note[320];
    snprintf(note, sizeof note, "FAIL: %s", g_fail[0] ? g_fail : "?");
    row(name, 0, "-", "-", note);
    g_fail[0] = 0;
    *rc = 1;
}

/* the Fused-Map (public API, and its kernels alone) against CUB sort + unique on the layers */
static void bench_fusedmap(const std::vector<map_layer> &layers, int64_t n_vertices, int64_t batch, int reps, int sms,
                           int *rc)
{
    char name[64], note[320], gbuf[32];
    const size_t nl = layers.size();
    int64_t items = 0, max_items = 0, max_nnz = 0;
    std::vector<int64_t> off(nl + 1, 0); /* layer l's ids at off[l] of the device copy */
    for (size_t l = 0; l < nl; l++) {
        items += layers[l].n_dst + layers[l].nnz;
        max_items = std::max(max_items, layers[l].n_dst + layers[l].nnz);
        max_nnz = std::max(max_nnz, layers[l].nnz);
        off[l + 1] = off[l] + layers[l].n_dst + layers[l].nnz;
    }
    /* each layer's distinct count (host): both sides' n_src must equal it */
    std::vector<int64_t> distinct(nl);
    for (size_t l = 0; l < nl; l++) {
        std::vector<int64_t> s(layers[l].ids);
        std::sort(s.begin(), s.end());
        distinct[l] = (int64_t)(std::unique(s.begin(), s.end()) - s.begin());
    }
    /* host outputs, one per layer, checked after each timed run (outside the timing) */
    std::vector<std::vector<int32_t>> local(nl);
    std::vector<std::vector<int64_t>> gid(nl);
    std::vector<int64_t> n_src(nl, -1);
    for (size_t l = 0; l < nl; l++) {
        local[l].resize((size_t)layers[l].nnz + 1);
        gid[l].resize((size_t)(layers[l].n_dst + layers[l].nnz) + 1);
    }
    auto check_all = [&](int dst_first) {
        int ok = 1;
        for (size_t l = 0; l < nl; l++)
            ok &= is_compaction(layers[l], local[l].data(), gid[l].data(), n_src[l], distinct[l], dst_first);
        return ok;
    };

    /* (1) the public API: gnn_idmap_build of gnn_idmap_cuda, kind FUSED (host ids in, host ids out) */
    double fm_ms = -1, cub_ms = -1;
    snprintf(name, sizeof name, "idmap.fused b=%lld", (long long)batch);
    {
        gnn_idmap *m = NULL;
        const gnn_status st = gnn_idmap_create(&m, &gnn_idmap_cuda, GNN_IDMAP_FUSED, n_vertices);
        if (st != GNN_OK) {
            snprintf(note, sizeof note, "SKIP: gnn_idmap_cuda: %s", gnn_status_str(st));
            row(name, 0, "-", "-", note);
        } else {
            int ok = 1;
            gnn_status bst = GNN_OK;
            fm_ms = time_median_ms(
                reps,
                [&] {
                    for (size_t l = 0; l < nl; l++) {
                        const map_layer &L = layers[l];
                        if ((bst = gnn_idmap_build(m, L.ids.data(), L.n_dst, L.ids.data() + L.n_dst, L.nnz,
                                                   local[l].data(), gid[l].data(), &n_src[l])) != GNN_OK)
                            return 1;
                    }
                    return 0;
                },
                [&] { ok &= bst == GNN_OK && check_all(1); });
            gnn_idmap_destroy(m);
            if (fm_ms < 0) {
                if (bst != GNN_OK)
                    snprintf(g_fail, sizeof g_fail, "gnn_idmap_build: %s", gnn_status_str(bst));
                fail_row(name, rc);
            } else {
                snprintf(note, sizeof note,
                         "public API, host in and out; %zu layers, %lld items; median %.3f ms; compaction: %s", nl,
                         (long long)items, fm_ms, ok ? "yes" : "NO");
                row(name, items / (fm_ms * 1e-3) * 1e-6, "Mitem/s", "-", note);
                if (!ok)
                    printf("MISMATCH: the Fused-Map's output is not a compaction of its input\n");
            }
        }
    }

    /* (2) CUB sort + unique + relabel, with the same copies in and out */
    cub_bufs c;
    const int cub_ok = cub_setup(&c, max_items, max_nnz, n_vertices, sms) == 0;
    snprintf(name, sizeof name, "cub.sort_unique b=%lld", (long long)batch);
    if (!cub_ok) {
        fail_row(name, rc);
    } else {
        int ok = 1;
        cub_ms = time_median_ms(
            reps,
            [&] {
                for (size_t l = 0; l < nl; l++)
                    if (cub_host(&c, layers[l], local[l].data(), gid[l].data(), &n_src[l]))
                        return 1;
                return 0;
            },
            [&] { ok &= check_all(0); });
        if (cub_ms < 0) {
            fail_row(name, rc);
        } else {
            snprintf(note, sizeof note,
                     "SortKeys (bits 0..%d) + Unique + relabel, same copies; median %.3f ms; compaction: %s",
                     c.end_bit, cub_ms, ok ? "yes" : "NO");
            row(name, items / (cub_ms * 1e-3) * 1e-6, "Mitem/s", "-", note);
            if (!ok)
                printf("MISMATCH: CUB's output is not a compaction of its input\n");
        }
    }
    snprintf(name, sizeof name, "speedup.fusedmap_vs_cub b=%lld", (long long)batch);
    if (fm_ms > 0 && cub_ms > 0)
        row(name, cub_ms / fm_ms, "x", goal_of(gbuf, sizeof gbuf, cub_ms / fm_ms, 2.0),
            "cub.sort_unique ms / idmap.fused ms, both host in and out");
    else
        row(name, 0, "-", ">= 2.00 (SKIP)", "SKIP: a side did not run");

    /* (3) the kernels alone: the ids already on the device, nothing copied back but n_src */
    double fk_ms = -1, ck_ms = -1;
    dbuf<int64_t> d_all, d_gid;
    dbuf<int32_t> d_local;
    std::vector<int64_t> all((size_t)items);
    for (size_t l = 0; l < nl; l++)
        std::copy(layers[l].ids.begin(), layers[l].ids.end(), all.begin() + off[l]);
    cudaError_t e = d_all.alloc((size_t)items);
    if (e == cudaSuccess)
        e = d_gid.alloc((size_t)max_items);
    if (e == cudaSuccess)
        e = d_local.alloc((size_t)max_nnz);
    if (e == cudaSuccess && items)
        e = cudaMemcpy(d_all.p, all.data(), (size_t)items * sizeof(int64_t), cudaMemcpyHostToDevice);
    if (e != cudaSuccess)
        snprintf(g_fail, sizeof g_fail, "device copy of the layers: %s", cudaGetErrorString(e));
    snprintf(name, sizeof name, "idmap.fused.kernels b=%lld", (long long)batch);
    if (e != cudaSuccess || fm_ms < 0) {
        if (e != cudaSuccess)
            fail_row(name, rc);
        else
            row(name, 0, "-", "-", "SKIP: the public Fused-Map did not run");
    } else {
        gnn_kmap m;
        gnn_kmap_init(&m, &gnn_kdev_cuda, GNN_IDMAP_FUSED);
        gnn_status bst = GNN_OK;
        int ok = 1;
        fk_ms = time_median_ms(
            reps,
            [&] {
                for (size_t l = 0; l < nl; l++) {
                    const int64_t nd = layers[l].n_dst, nz = layers[l].nnz;
                    const int64_t *d_dst = d_all.p + off[l], *d_nbr = d_all.p + off[l] + nd;
                    if ((bst = gnn_kmap_begin(&m, nd, nz)) || (bst = gnn_kmap_insert_dst(&m, d_dst, nd, d_gid.p)) ||
                        (bst = gnn_kmap_insert_nbr(&m, d_dst, nd, d_nbr, nz, d_gid.p)) ||
                        (bst = gnn_kmap_finish(&m, d_dst, nd, d_nbr, nz, d_local.p, d_gid.p, &n_src[l])))
                        return 1;
                }
                return 0;
            },
            [&] {
                for (size_t l = 0; l < nl; l++)
                    ok &= bst == GNN_OK && n_src[l] == distinct[l];
            });
        gnn_kmap_free(&m);
        if (fk_ms < 0) {
            if (bst != GNN_OK)
                snprintf(g_fail, sizeof g_fail, "gnn_kmap_*: %s", gnn_status_str(bst));
            fail_row(name, rc);
        } else {
            snprintf(note, sizeof note, "the same map's kernels (gnn_kmap_*), ids on the device; median %.3f ms; n_src: %s",
                     fk_ms, ok ? "right" : "WRONG");
            row(name, items / (fk_ms * 1e-3) * 1e-6, "Mitem/s", "-", note);
            if (!ok)
                printf("MISMATCH: the Fused-Map kernels' n_src differs from the distinct count\n");
        }
    }
    snprintf(name, sizeof name, "cub.sort_unique.kernels b=%lld", (long long)batch);
    if (e != cudaSuccess || !cub_ok || cub_ms < 0) {
        row(name, 0, "-", "-", "SKIP: the CUB pipeline or the device copy did not run");
    } else {
        int ok = 1;
        ck_ms = time_median_ms(
            reps,
            [&] {
                for (size_t l = 0; l < nl; l++)
                    if (layers[l].n_dst + layers[l].nnz &&
                        cub_kernels(&c, (const uint64_t *)(d_all.p + off[l]), layers[l].n_dst, layers[l].nnz, &n_src[l]))
                        return 1;
                return 0;
            },
            [&] {
                for (size_t l = 0; l < nl; l++)
                    ok &= layers[l].n_dst + layers[l].nnz == 0 || n_src[l] == distinct[l];
            });
        if (ck_ms < 0) {
            fail_row(name, rc);
        } else {
            snprintf(note, sizeof note, "SortKeys + Unique + relabel, ids on the device; median %.3f ms; n_src: %s",
                     ck_ms, ok ? "right" : "WRONG");
            row(name, items / (ck_ms * 1e-3) * 1e-6, "Mitem/s", "-", note);
            if (!ok)
                printf("MISMATCH: CUB's n_src differs from the distinct count\n");
        }
    }
    snprintf(name, sizeof name, "speedup.fusedmap_vs_cub.kernels b=%lld", (long long)batch);
    if (fk_ms > 0 && ck_ms > 0)
        row(name, ck_ms / fk_ms, "x", goal_of(gbuf, sizeof gbuf, ck_ms / fk_ms, 2.0),
            "cub.sort_unique.kernels ms / idmap.fused.kernels ms");
    else
        row(name, 0, "-", ">= 2.00 (SKIP)", "SKIP: a side did not run");
}

/* sampling throughput of gnn_sampler_cuda, variant FUSED, with the map `kind` */
static void bench_sampler(const gnn_csr *g, const std::vector<int64_t> &seeds, const std::vector<int64_t> &fanouts,
                          const gnn_sample_params *base, const std::vector<gnn_block> &ref, gnn_idmap_kind kind, int reps,
                          int *rc)
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
        printf("MISMATCH: the GPU sampler's blocks differ from ref's (%s map)\n", kind == GNN_IDMAP_FUSED ? "Fused" : "ordered");
}

/* comma-separated integers into v (at most 16); 0 on success */
static int parse_list(const char *s, std::vector<int64_t> &v)
{
    v.clear();
    while (*s) {
        char *end;
        const long long x = strtoll(s, &end, 10);
        if (end == s || v.size() >= 16)
            return -1;
        v.push_back((int64_t)x);
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    return v.empty() ? -1 : 0;
}

/* the R-MAT graph, then per batch size: the reference blocks, the maps, the samplers */
static void bench_sampling(int scale, const std::vector<int64_t> &batches, const std::vector<int64_t> &fanouts, int reps,
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
        if ((st = gnn_sample_blocks(&gnn_sample_ref, g, seeds.data(), nb, fanouts.data(), L, &base, ref.data())) !=
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

int main(int argc, char **argv)
{
    int64_t n_dst = 65536, n_src = 262144, lo = 5, hi = 25, d = 256;
    int reps = 20, scale = 20;
    std::vector<int64_t> batches = { 1000, 8192 }, fanouts = { 15, 10, 5 };
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--n-dst"))
            n_dst = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--n-src"))
            n_src = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--d"))
            d = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--scale") && atoi(argv[i + 1]) >= 1 && atoi(argv[i + 1]) <= 30)
            scale = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--batch") && !parse_list(argv[i + 1], batches))
            ;
        else if (!strcmp(argv[i], "--fanouts") && !parse_list(argv[i + 1], fanouts))
            ;
        else if (!strcmp(argv[i], "--deg") && sscanf(argv[i + 1], "%lld..%lld", (long long *)&lo, (long long *)&hi) == 2)
            ;
        else {
            fprintf(stderr, "usage: gnnref-gpu-bench [--n-dst N] [--n-src N] [--deg LO..HI] [--d D] [--reps R]\n"
                            "                        [--scale S] [--batch B1,B2,..] [--fanouts K1,K2,..]\n");
            return 2;
        }
    }
    if (reps < 1)
        reps = 1;
    char why[256];
    if (!gnn_cuda_available(why, sizeof why)) {
        printf("SKIP: %s\n", why);
        return 0;
    }
    printf("device: %s\n", why);
    printf("%-40s | %12s | %-8s | %-16s | %s\n", "benchmark", "value", "unit", "goal (issue 24)", "note");

    /* the copy kernel: 512 MiB in, 512 MiB out */
    const size_t n4 = (size_t)128 << 20;
    float4 *cin, *cout;
    CK(cudaMalloc(&cin, n4 * sizeof(float4)));
    CK(cudaMalloc(&cout, n4 * sizeof(float4)));
    CK(cudaMemset(cin, 0, n4 * sizeof(float4)));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const double copy_ms = time_ms(reps, [&] { copy_kernel<<<sms * 8, 512>>>(cin, cout, n4); });
    const double copy_gbs = 2.0 * n4 * sizeof(float4) / (copy_ms * 1e-3) * 1e-9;
    row("copy", copy_gbs, "GB/s", "-", "float4 copy kernel, 512 MiB each way (read + write)");
    cudaFree(cin);
    cudaFree(cout);

    /* a random CSR block: degrees uniform in lo..hi, sources uniform */
    std::vector<int64_t> indptr((size_t)n_dst + 1);
    indptr[0] = 0;
    for (int64_t v = 0; v < n_dst; v++)
        indptr[v + 1] = indptr[v] + lo + (int64_t)(rnd() % (uint32_t)(hi - lo + 1));
    const int64_t nnz = indptr[n_dst];
    std::vector<int32_t> indices((size_t)nnz), indptr32((size_t)n_dst + 1);
    for (int64_t i = 0; i < nnz; i++)
        indices[i] = (int32_t)(rnd() % (uint32_t)n_src);
    for (int64_t v = 0; v <= n_dst; v++)
        indptr32[v] = (int32_t)indptr[v];
    std::vector<float> x((size_t)(n_src * d)), w((size_t)nnz), out((size_t)(n_dst * d)), want((size_t)(n_dst * d));
    for (auto &f : x)
        f = (float)(rnd() % 2001) / 1000.0f - 1.0f;
    for (auto &f : w)
        f = (float)(rnd() % 1000 + 1) / 1000.0f;

    int64_t *d_ptr;
    int32_t *d_idx, *d_ptr32;
    float *d_x, *d_w, *d_out;
    CK(cudaMalloc(&d_ptr, indptr.size() * sizeof(int64_t)));
    CK(cudaMalloc(&d_ptr32, indptr32.size() * sizeof(int32_t)));
    CK(cudaMalloc(&d_idx, indices.size() * sizeof(int32_t)));
    CK(cudaMalloc(&d_x, x.size() * sizeof(float)));
    CK(cudaMalloc(&d_w, w.size() * sizeof(float)));
    CK(cudaMalloc(&d_out, out.size() * sizeof(float)));
    CK(cudaMemcpy(d_ptr, indptr.data(), indptr.size() * sizeof(int64_t), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_ptr32, indptr32.data(), indptr32.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_idx, indices.data(), indices.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_w, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));

    char note[256], gbuf[32];
    /* bytes a perfect kernel moves: one feature row per edge, the index and weight arrays, the output */
    const double bytes = (double)nnz * d * 4 + (double)nnz * 8 + (double)(n_dst + 1) * 8 + (double)n_dst * d * 4;
    gnn_block blk;
    memset(&blk, 0, sizeof blk);
    blk.n_dst = n_dst;
    blk.n_src = n_src;
    blk.nnz = nnz;
    blk.indptr = indptr.data();
    blk.indices = indices.data();
    double agg_ms[2];
    for (int weighted = 0; weighted < 2; weighted++) {
        const int mode = weighted ? GNN_AGGK_EDGE : GNN_AGGK_PLAIN;
        agg_ms[weighted] = time_ms(reps, [&] {
            if (agg_k_gather(d_ptr, d_idx, d_w, NULL, d_x, d_out, n_dst, d, mode) != GNN_OK)
                exit(1);
        });
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
        if (weighted)
            gnn_aggregate_weighted_forward(&gnn_aggregate_ref, &blk, x.data(), d, w.data(), want.data());
        else
            gnn_aggregate_forward(&gnn_aggregate_ref, &blk, x.data(), d, GNN_AGG_SUM, want.data());
        const int same = memcmp(out.data(), want.data(), out.size() * sizeof(float)) == 0;
        const double gbs = bytes / (agg_ms[weighted] * 1e-3) * 1e-9;
        snprintf(note, sizeof note, "n_dst=%lld n_src=%lld nnz=%lld d=%lld; %.3f ms; %.2f of copy; bitwise ref: %s",
                 (long long)n_dst, (long long)n_src, (long long)nnz, (long long)d, agg_ms[weighted], gbs / copy_gbs,
                 same ? "yes" : "NO");
        row(weighted ? "agg.weighted (memory-aware)" : "agg.sum (memory-aware)", gbs, "GB/s", "-", note);
        if (!same)
            printf("MISMATCH: the GPU aggregation differs from ref\n");
    }

#ifdef GNN_HAVE_CUSPARSE
    {
        cusparseHandle_t h;
        cusparseSpMatDescr_t A;
        cusparseDnMatDescr_t B, C;
        float *d_c;
        CK(cudaMalloc(&d_c, out.size() * sizeof(float)));
        const float alpha = 1.0f, beta = 0.0f;
        if (cusparseCreate(&h) != CUSPARSE_STATUS_SUCCESS ||
            cusparseCreateCsr(&A, n_dst, n_src, nnz, d_ptr32, d_idx, d_w, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F) != CUSPARSE_STATUS_SUCCESS ||
            cusparseCreateDnMat(&B, n_src, d, d, d_x, CUDA_R_32F, CUSPARSE_ORDER_ROW) != CUSPARSE_STATUS_SUCCESS ||
            cusparseCreateDnMat(&C, n_dst, d, d, d_c, CUDA_R_32F, CUSPARSE_ORDER_ROW) != CUSPARSE_STATUS_SUCCESS) {
            row("cusparse.spmm", 0, "-", "-", "SKIP: cuSPARSE setup failed");
            row("speedup.agg_vs_cusparse", 0, "-", ">= 1.50 (SKIP)", "SKIP: no cuSPARSE time");
        } else {
            double best = 0;
            const char *best_alg = "";
            const cusparseSpMMAlg_t algs[2] = { CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG2 };
            const char *names[2] = { "default", "CSR_ALG2" };
            for (int k = 0; k < 2; k++) {
                size_t ws = 0;
                void *buf = NULL;
                if (cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                            &alpha, A, B, &beta, C, CUDA_R_32F, algs[k], &ws) != CUSPARSE_STATUS_SUCCESS)
                    continue;
                CK(cudaMalloc(&buf, ws ? ws : 1));
                int ok = 1;
                const double ms = time_ms(reps, [&] {
                    ok &= cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                       A, B, &beta, C, CUDA_R_32F, algs[k], buf) == CUSPARSE_STATUS_SUCCESS;
                });
                cudaFree(buf);
                if (ok && (best == 0 || ms < best)) {
                    best = ms;
                    best_alg = names[k];
                }
            }
            if (best > 0) {
                snprintf(note, sizeof note, "same CSR and weights, %s; %.3f ms; memory-aware weighted is %.2fx faster",
                         best_alg, best, best / agg_ms[1]);
                row("cusparse.spmm", bytes / (best * 1e-3) * 1e-9, "GB/s", "-", note);
                row("speedup.agg_vs_cusparse", best / agg_ms[1], "x", goal_of(gbuf, sizeof gbuf, best / agg_ms[1], 1.5),
                    "cuSPARSE ms / memory-aware weighted ms; the goal is at d = 256");
            } else {
                row("cusparse.spmm", 0, "-", "-", "SKIP: cuSPARSE SpMM failed");
                row("speedup.agg_vs_cusparse", 0, "-", ">= 1.50 (SKIP)", "SKIP: no cuSPARSE time");
            }
            cusparseDestroySpMat(A);
            cusparseDestroyDnMat(B);
            cusparseDestroyDnMat(C);
            cusparseDestroy(h);
        }
        cudaFree(d_c);
    }
#else
    row("cusparse.spmm", 0, "-", "-", "SKIP: built without cuSPARSE (libcusparse not found)");
    row("speedup.agg_vs_cusparse", 0, "-", ">= 1.50 (SKIP)", "SKIP: no cuSPARSE time");
#endif
    {
        const double frac = bytes / (agg_ms[1] * 1e-3) * 1e-9 / copy_gbs;
        row("agg.fraction_of_copy", frac, "x", goal_of(gbuf, sizeof gbuf, frac, 0.70),
            "agg.weighted GB/s / copy GB/s, same run");
    }

    /* quant: int2 stochastic pack of n_dst rows of d */
    {
        gnn_qk_pack_args a;
        const int64_t rb = gnn_quant_data_bytes(d, 2);
        uint8_t *d_data, *d_par;
        CK(cudaMalloc(&d_data, (size_t)(n_dst * rb)));
        CK(cudaMalloc(&d_par, (size_t)n_dst * GNN_QUANT_PARAM_BYTES));
        memset(&a, 0, sizeof a);
        a.x = d_x;
        a.gid = NULL;
        a.data = d_data;
        a.params = d_par;
        a.n = n_dst;
        a.d = d;
        a.rb = rb;
        a.bits = 2;
        a.round = GNN_QUANT_STOCHASTIC;
        a.key0 = 42;
        a.ctr_hi_base = (uint32_t)GNN_TAG_QUANT << 24;
        const double ms = time_ms(reps, [&] {
            if (GNN_K_LAUNCH(gnn_qk_pack, gnn_k_dim((unsigned)n_dst, 1, 1), gnn_k_dim(GNN_QK_T, 1, 1),
                             GNN_QK_PACK_SHARED, a) != GNN_OK)
                exit(1);
        });
        const double qbytes = (double)n_dst * d * 4 + (double)n_dst * (rb + 4);
        snprintf(note, sizeof note, "int2 stochastic, %lld rows x %lld; %.3f ms; %.2f of copy; %.3g rows/s",
                 (long long)n_dst, (long long)d, ms, qbytes / (ms * 1e-3) * 1e-9 / copy_gbs, n_dst / (ms * 1e-3));
        row("quant.pack int2", qbytes / (ms * 1e-3) * 1e-9, "GB/s", "-", note);
        cudaFree(d_data);
        cudaFree(d_par);
    }
    cudaFree(d_ptr);
    cudaFree(d_ptr32);
    cudaFree(d_idx);
    cudaFree(d_x);
    cudaFree(d_w);
    cudaFree(d_out);

    /* the Fused-Map against CUB sort + unique, and the sampler's edges per second, on R-MAT */
    int rc = 0;
    bench_sampling(scale, batches, fanouts, reps, sms, &rc);
    return rc;
}
