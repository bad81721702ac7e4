/* opt/cpu/dense.c -- the dense kernel of the fma context (include/gnnref/dense.h): a packed,
 * register-blocked GEMM whose every output element is one FMA chain in a fixed order, so its
 * bits are the specification's (ref/dense.c) on every CPU, path and thread count.
 *
 * The GEMM (gnn_dense_gemm_run), in the manner of a BLIS/GotoBLAS driver:
 *  - C is cut into tiles of mc rows x (pt panels of nr columns); the tiles are OpenMP's work
 *    items, handed out dynamically. The cut is a function of the shapes and of the path's
 *    register block only, never of the thread count; and whichever thread runs a tile, each of
 *    its elements is computed by one micro-kernel call chain in k order, so no cut and no
 *    schedule could change a bit anyway;
 *  - K is cut into panels of kc (a B panel of kc x nr floats stays in L1 across the tile's rows):
 *    the micro-kernel stores the block after a panel and loads it back for the next, so each
 *    element's chain goes on in order (a float stored and loaded is exact). A long K (dw's K is
 *    the n rows) is also run in chunks, each thread running its tiles of a chunk before the
 *    next, so that it reads the chunk's rows of A and B from cache; K is never split into
 *    partial sums that are added afterwards: that would change the order;
 *  - the micro-kernel (opt/cpu/dense_impl.h) holds an mr x nr block in registers: 8 x 32 on
 *    AVX-512 (opt/cpu/dense_avx512.c), 6 x 16 on AVX2 (dense_avx2.c), 4 x 8 here in C with fmaf
 *    (the scalar path, for CPUs without FMA, where fmaf is computed exactly in double:
 *    gnn_dense_fma1_emulated). It reads A in place through its strides (rows of
 *    x for y and dx, columns of x for dw: broadcasts need no packing), and B from packed panels
 *    of nr columns, zero-padded at the right edge, or in place where a panel is whole and
 *    contiguous (w for y, dy for dw). Edge rows are copied into a zero-padded block, edge blocks
 *    of C computed in a scratch block and copied out: the micro-kernel always runs whole.
 * The linear layer: y = x w (+ b) is the GEMM with the chain starting from b; dx = dy w^T (B = w
 * transposed while packing); dw = x^T dy (A = x's columns, K = n rows); db in ref's order
 * (gnn_cpu_col_sums, opt/cpu/nn.c). ReLU and dropout are opt/cpu/nn.c's.
 *
 * Dispatch: the path is chosen once per process from the CPU's features (AVX-512F, else AVX2 +
 * FMA, else scalar), unless GNN_DENSE_PATH or gnn_dense_path_set forces one. Every path gives
 * the same bits (the oracle's dense.fwd and dense.bwd check each against ref/dense.c bitwise),
 * so the choice is a matter of speed only. The public entry points (core/ops/kernels.c) check the
 * arguments: these bodies assume valid input. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/dense.h"
#include "gnnref/tensor.h"
#include "opt/cpu/dense_impl.h"
#include "opt/cpu/nn_impl.h"

#define MR_MAX 8
#define NR_MAX 32
#define B_PANEL_FLOATS 4096 /* kc x nr of a B panel: 16 KiB, half of a 32 KiB L1 */
#define KC_MAX 512          /* B_PANEL_FLOATS / the narrowest nr (8) */
#define TILE_COLS 256       /* columns of a tile at most (pt panels) */
#define TILES_MIN 8         /* tiles wanted when the shape allows: a few per thread */
/* multiply-adds below which one thread runs the call: a fork and join with passive waits
 * (the tool's policy, docs/openmp.md) costs tens of microseconds, the kernel does 4M
 * multiply-adds in about 40 (a SAGE output layer, 256 x 64 -> 8, ran 8 times slower on two
 * threads than on one with a threshold of 64K) */
#define PAR_MIN_MACS (1 << 22)
#define PACK_ROWS 512       /* rows of a B panel per packing work item */
#define KCHUNK_BYTES (512 << 10) /* rows of A and B a K chunk holds: half of a 1 MiB L2 */

/* ---- the scalar micro-kernel: fmaf, any CPU ---------------------------------------------------- */

/* fma(a, b, c) on floats with double arithmetic only, exactly (the scalar path on a CPU without
 * FMA, where glibc's fmaf is a software routine about 8 times slower than this):
 *  - p = a b is exact in double (24 + 24 significant bits < 53), and so is e, the error of
 *    s = RN(p + c) (Knuth's TwoSum; no overflow: |p| < 2^256);
 *  - rounding s to float directly could round twice (a double that lands exactly on a float
 *    midpoint). Round to odd first: when s is inexact and its last bit even, take its neighbour
 *    toward the exact sum. Rounding to odd with 53 >= 24 + 2 bits, then to nearest float, is the
 *    correctly rounded fma (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums:
 *    proved algorithms using rounding to odd", IEEE Trans. Computers 57(4), 2008), float
 *    subnormals included (they have fewer bits still);
 *  - an infinite or NaN s is left as it is (a NaN e must not move it).
 * The oracle's dense.fma1 compares it with fmaf on spread, near-midpoint, cancelling, subnormal
 * and special triples. */
void gnn_dense_fma_emulated(const float *a, const float *b, const float *c, int64_t n, float *r)
{
    for (int64_t i = 0; i < n; i++)
        r[i] = gnn_dense_fma1_emulated(a[i], b[i], c[i]);
}

#if defined(__FMA__) || defined(__aarch64__) || defined(__powerpc64__)
#define FMA1(a, b, c) fmaf(a, b, c) /* the compiler emits the instruction inline */
#else
#define FMA1(a, b, c) gnn_dense_fma1_emulated(a, b, c)
#endif

#define SMR 4
#define SNR 8

static void ukr_scalar(int64_t kc, const float *a, int64_t a_rs, int64_t a_cs, const float *b, int64_t ldb,
                       float *c, int64_t ldc, const float *init, int load)
{
    float acc[SMR][SNR];
    for (int r = 0; r < SMR; r++)
        for (int j = 0; j < SNR; j++)
            acc[r][j] = load ? c[r * ldc + j] : init ? init[j] : 0.0f;
    for (int64_t k = 0; k < kc; k++) {
        const float *b_k = b + k * ldb;
        for (int r = 0; r < SMR; r++) {
            const float a_rk = a[r * a_rs + k * a_cs];
            for (int j = 0; j < SNR; j++)
                acc[r][j] = FMA1(a_rk, b_k[j], acc[r][j]);
        }
    }
    for (int r = 0; r < SMR; r++)
        for (int j = 0; j < SNR; j++)
            c[r * ldc + j] = acc[r][j];
}

const gnn_dense_kernel gnn_dense_kernel_scalar = { SMR, SNR, ukr_scalar };

/* ---- the driver ---------------------------------------------------------------------------------- */

typedef struct gemm_plan {
    int mr, nr;
    int64_t np, n_whole; /* panels of nr columns; whole panels read in place (0 when B is not) */
    int64_t kcb;         /* kc: rows of a B panel per K step */
    int64_t mc, pt;      /* a tile: mc rows x pt panels */
    int64_t ntr, ntc;    /* tiles down and across */
    int64_t kchunk;      /* rows of K that every tile runs before the next chunk (a multiple of kc) */
    float *bpack;        /* the packed panels n_whole .. np-1, each K x nr */
} gemm_plan;

/* The tiling: a function of the shapes (M, N, K) and the register block only. Tiles of 8 register rows and
 * up to TILE_COLS columns; smaller ones while that gives fewer than TILES_MIN of them (a short
 * M, as dw's M = in, still spreads over the threads). */
static void plan_tiles(gemm_plan *P, const gnn_dense_gemm *g)
{
    const int64_t mr = P->mr;
    P->np = (g->N + P->nr - 1) / P->nr;
    P->n_whole = g->b_cs == 1 ? g->N / P->nr : 0;
    P->kcb = B_PANEL_FLOATS / P->nr;
    P->pt = TILE_COLS / P->nr > 0 ? TILE_COLS / P->nr : 1;
    if (P->pt > P->np)
        P->pt = P->np;
    P->ntc = (P->np + P->pt - 1) / P->pt;
    P->mc = 8 * mr;
    const int64_t want_r = (TILES_MIN + P->ntc - 1) / P->ntc;
    if ((g->M + P->mc - 1) / P->mc < want_r) {
        const int64_t rows = (g->M + want_r - 1) / want_r;
        P->mc = (rows + mr - 1) / mr * mr;
    }
    P->ntr = (g->M + P->mc - 1) / P->mc;
    if (P->ntr * P->ntc < TILES_MIN && P->pt > 1) {
        const int64_t want_c = (TILES_MIN + P->ntr - 1) / P->ntr;
        P->pt = (P->np + want_c - 1) / want_c;
        P->ntc = (P->np + P->pt - 1) / P->pt;
    }
    /* a long K (dw: K = n rows) in chunks whose rows of A and B (M + N floats a row) fit in
     * KCHUNK_BYTES: each tile re-reads the chunk from cache, not the whole of A and B from memory */
    const int64_t per_row = (g->M + P->np * P->nr) * (int64_t)sizeof(float);
    int64_t kc = KCHUNK_BYTES / (per_row > 0 ? per_row : 1) / P->kcb * P->kcb;
    P->kchunk = kc > P->kcb ? kc : P->kcb;
}

/* Packed panel p (p >= n_whole): B's columns p*nr .. p*nr+nr-1 over rows k0 .. k1-1, zero past N. */
static void pack_b_rows(const gemm_plan *P, const gnn_dense_gemm *g, int64_t p, int64_t k0, int64_t k1)
{
    const int nr = P->nr;
    const int64_t j0 = p * nr, cols = g->N - j0 < nr ? g->N - j0 : nr;
    float *dst = P->bpack + (p - P->n_whole) * g->K * nr;
    for (int64_t k = k0; k < k1; k++) {
        const float *src = g->B + k * g->b_rs + j0 * g->b_cs;
        float *d = dst + k * nr;
        int64_t j = 0;
        for (; j < cols; j++)
            d[j] = src[j * g->b_cs];
        for (; j < nr; j++)
            d[j] = 0.0f;
    }
}

/* One tile: rows row0 .. row0+rows-1 of C, panels p0 .. p1-1, the K steps from k_begin (a
 * multiple of kc: 0 starts every chain from init) to k_end in order; the epilogue when k_end
 * is K. */
static void run_tile(const gnn_dense_kernel *kr, const gemm_plan *P, const gnn_dense_gemm *g, int64_t row0,
                     int64_t rows, int64_t p0, int64_t p1, int64_t k_begin, int64_t k_end)
{
    static const float k_dummy[NR_MAX]; /* B when K = 0 (never read) */
    const int mr = kr->mr, nr = kr->nr;
    float apack[KC_MAX * MR_MAX]; /* the edge rows, zero-padded to mr: [k][mr] */
    float cblk[MR_MAX * NR_MAX];  /* an edge block of C */
    float init_pad[NR_MAX];       /* the right edge's init, zero-padded */
    const int64_t edge = rows % mr, full_rows = rows - edge;
    for (int64_t pc = k_begin;; pc += P->kcb) {
        const int64_t kc = k_end - pc < P->kcb ? k_end - pc : P->kcb;
        const int first = pc == 0;
        if (edge && kc > 0) {
            const float *src = g->A + (row0 + full_rows) * g->a_rs + pc * g->a_cs;
            for (int64_t k = 0; k < kc; k++)
                for (int r = 0; r < mr; r++)
                    apack[k * mr + r] = r < edge ? src[r * g->a_rs + k * g->a_cs] : 0.0f;
        }
        for (int64_t p = p0; p < p1; p++) {
            const int64_t j0 = p * nr, cols = g->N - j0 < nr ? g->N - j0 : nr;
            const float *bp = k_dummy;
            int64_t ldb = nr;
            if (kc > 0) {
                if (p < P->n_whole) {
                    bp = g->B + j0 + pc * g->b_rs;
                    ldb = g->b_rs;
                } else {
                    bp = P->bpack + ((p - P->n_whole) * g->K + pc) * nr;
                }
            }
            const float *init = NULL;
            if (first && g->init) {
                if (cols == nr) {
                    init = g->init + j0;
                } else {
                    for (int j = 0; j < nr; j++)
                        init_pad[j] = j < cols ? g->init[j0 + j] : 0.0f;
                    init = init_pad;
                }
            }
            for (int64_t r = 0; r < rows; r += mr) {
                const int whole_rows = r < full_rows;
                const float *a = kc == 0 ? k_dummy : whole_rows ? g->A + (row0 + r) * g->a_rs + pc * g->a_cs : apack;
                const int64_t a_rs = whole_rows ? g->a_rs : 1, a_cs = whole_rows ? g->a_cs : mr;
                float *c = g->C + (row0 + r) * g->ldc + j0;
                if (whole_rows && cols == nr) {
                    kr->ukr(kc, a, a_rs, a_cs, bp, ldb, c, g->ldc, init, !first);
                    continue;
                }
                const int64_t nrow = whole_rows ? mr : edge;
                if (!first)
                    for (int64_t i = 0; i < nrow; i++)
                        memcpy(cblk + i * nr, c + i * g->ldc, (size_t)cols * sizeof(float));
                kr->ukr(kc, a, a_rs, a_cs, bp, ldb, cblk, nr, init, !first);
                for (int64_t i = 0; i < nrow; i++)
                    memcpy(c + i * g->ldc, cblk + i * nr, (size_t)cols * sizeof(float));
            }
        }
        if (pc + kc >= k_end)
            break;
    }
    if (g->epilogue && k_end == g->K) {
        const int64_t col0 = p0 * nr, col1 = p1 * nr < g->N ? p1 * nr : g->N;
        g->epilogue(g->epi_ctx, g->C + row0 * g->ldc + col0, g->ldc, row0, rows, col0, col1 - col0);
    }
}

/* tile t (row-major over the ntr x ntc tiles), K steps k0 .. k1-1 */
static void run_tile_at(const gnn_dense_kernel *kr, const gemm_plan *P, const gnn_dense_gemm *g, int64_t t,
                        int64_t k0, int64_t k1)
{
    const int64_t ti = t / P->ntc, tj = t % P->ntc;
    const int64_t row0 = ti * P->mc, rows = g->M - row0 < P->mc ? g->M - row0 : P->mc;
    const int64_t p0 = tj * P->pt, p1 = p0 + P->pt < P->np ? p0 + P->pt : P->np;
    run_tile(kr, P, g, row0, rows, p0, p1, k0, k1);
}

gnn_status gnn_dense_gemm_run(const gnn_dense_kernel *kr, const gnn_dense_gemm *g)
{
    if (g->M == 0 || g->N == 0)
        return GNN_OK;
    gemm_plan P = { .mr = kr->mr, .nr = kr->nr };
    plan_tiles(&P, g);
    const int64_t n_packed = P.np - P.n_whole;
    if (n_packed > 0 && g->K > 0) {
        /* allocated every call (dw packs its right edge over all n rows): the heap's, not a
         * fresh huge-page mapping (gnn_malloc_scratch) */
        if ((size_t)(n_packed * g->K) > SIZE_MAX / sizeof(float) / (size_t)P.nr)
            return GNN_ERR_NOMEM;
        P.bpack = gnn_malloc_scratch((size_t)(n_packed * g->K) * (size_t)P.nr * sizeof(float));
        if (!P.bpack)
            return GNN_ERR_NOMEM;
    }
    const int64_t kblk = (g->K + PACK_ROWS - 1) / PACK_ROWS, n_pack_items = g->K > 0 ? n_packed * kblk : 0;
    const int64_t n_tiles = P.ntr * P.ntc;
    const double macs = (double)g->M * (double)g->N * (double)(g->K > 0 ? g->K : 1);
    (void)macs; /* read by the pragma alone: unused without OpenMP */
#pragma omp parallel if (n_tiles > 1 && macs >= PAR_MIN_MACS)
    {
        if (n_pack_items > 0) { /* (the same for every thread: no barrier when nothing is packed) */
#pragma omp for schedule(dynamic, 1)
            for (int64_t q = 0; q < n_pack_items; q++) {
                const int64_t k0 = (q % kblk) * PACK_ROWS, k1 = k0 + PACK_ROWS < g->K ? k0 + PACK_ROWS : g->K;
                pack_b_rows(&P, g, P.n_whole + q / kblk, k0, k1);
            }
        }
        /* (implicit barrier: every packed panel is complete.) One K chunk: the tiles handed out
         * dynamically. Several (a long K): chunk after chunk, each thread running its tiles of a
         * chunk before the next, so that the chunk's rows of A and B are read from cache; a
         * chain goes on from the previous chunk's stored value, as between panels. The tiles
         * are then dealt statically, without a barrier between chunks: OpenMP gives a thread the
         * same iterations in every loop of the region with the same count and static schedule,
         * so each tile's chunks run in order on one thread (a barrier per chunk, with passive
         * waits, cost a third of dw's time at 2 threads) */
        const int64_t n_chunks = g->K > P.kchunk ? (g->K + P.kchunk - 1) / P.kchunk : 1;
        if (n_chunks == 1) {
#pragma omp for schedule(dynamic, 1)
            for (int64_t t = 0; t < n_tiles; t++)
                run_tile_at(kr, &P, g, t, 0, g->K);
        } else {
            for (int64_t c = 0; c < n_chunks; c++) {
                const int64_t k0 = c * P.kchunk, k1 = g->K - k0 < P.kchunk ? g->K : k0 + P.kchunk;
#pragma omp for schedule(static, 1) nowait
                for (int64_t t = 0; t < n_tiles; t++)
                    run_tile_at(kr, &P, g, t, k0, k1);
            }
        }
    }
    gnn_free(P.bpack);
    return GNN_OK;
}

/* ---- the linear layer's three GEMMs ------------------------------------------------------------- */

gnn_status gnn_dense_fwd(const gnn_dense_kernel *kr, const float *x, int64_t n, int64_t in, const float *w,
                         const float *b, int64_t out, float *y)
{
    const gnn_dense_gemm g = { .M = n, .N = out, .K = in, .A = x, .a_rs = in, .a_cs = 1, .B = w, .b_rs = out,
                               .b_cs = 1, .C = y, .ldc = out, .init = b };
    return gnn_dense_gemm_run(kr, &g);
}

/* dx (n, in) = dy (n, out) . w^T: B(j, c) = w[c][j], packed into panels of dx's columns */
gnn_status gnn_dense_dx(const gnn_dense_kernel *kr, const float *dy, int64_t n, int64_t in, const float *w,
                        int64_t out, float *dx)
{
    const gnn_dense_gemm g = { .M = n, .N = in, .K = out, .A = dy, .a_rs = out, .a_cs = 1, .B = w, .b_rs = 1,
                               .b_cs = out, .C = dx, .ldc = in };
    return gnn_dense_gemm_run(kr, &g);
}

/* dw (in, out) = x^T . dy: A(c, i) = x[i][c] (x's columns broadcast in place), K = n rows */
gnn_status gnn_dense_dw(const gnn_dense_kernel *kr, const float *x, const float *dy, int64_t n, int64_t in,
                        int64_t out, float *dw)
{
    const gnn_dense_gemm g = { .M = in, .N = out, .K = n, .A = x, .a_rs = 1, .a_cs = in, .B = dy, .b_rs = out,
                               .b_cs = 1, .C = dw, .ldc = out };
    return gnn_dense_gemm_run(kr, &g);
}

/* ---- paths: features, the forced path, the tables ------------------------------------------------ */

const char *gnn_dense_path_name(gnn_dense_path p)
{
    static const char *const names[GNN_DENSE_N_PATHS] = { "scalar", "avx2", "avx512" };
    return (unsigned)p < GNN_DENSE_N_PATHS ? names[p] : "?";
}

/* what path p needs, for the refusal's message */
static const char *path_needs(gnn_dense_path p)
{
    return p == GNN_DENSE_AVX512 ? "AVX-512F" : p == GNN_DENSE_AVX2 ? "AVX2 and FMA" : "nothing";
}

int gnn_dense_path_supported(gnn_dense_path p)
{
    switch (p) {
    case GNN_DENSE_SCALAR: return 1;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    case GNN_DENSE_AVX2:
        return gnn_dense_kernel_avx2.ukr && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case GNN_DENSE_AVX512: return gnn_dense_kernel_avx512.ukr && __builtin_cpu_supports("avx512f");
#endif
    default: return 0;
    }
}

gnn_dense_path gnn_dense_path_best(void)
{
    return gnn_dense_path_supported(GNN_DENSE_AVX512) ? GNN_DENSE_AVX512
           : gnn_dense_path_supported(GNN_DENSE_AVX2) ? GNN_DENSE_AVX2
                                                       : GNN_DENSE_SCALAR;
}

static atomic_int g_path = -1; /* the path the fma tables run; -1 until the first use */
static pthread_once_t g_path_once = PTHREAD_ONCE_INIT;

static int parse_path(const char *s)
{
    for (int p = 0; p < GNN_DENSE_N_PATHS; p++)
        if (!strcmp(s, gnn_dense_path_name((gnn_dense_path)p)))
            return p;
    return -1;
}

/* The first use: GNN_DENSE_PATH when it names a supported path (a bad value is reported by
 * gnn_dense_path_from_env, which the tool calls first), else the best path. */
static void init_path(void)
{
    const char *s = getenv("GNN_DENSE_PATH");
    const int p = s ? parse_path(s) : -1;
    const int chosen = p >= 0 && gnn_dense_path_supported((gnn_dense_path)p) ? p : (int)gnn_dense_path_best();
    int expect = -1;
    atomic_compare_exchange_strong(&g_path, &expect, chosen);
}

gnn_dense_path gnn_dense_path_current(void)
{
    pthread_once(&g_path_once, init_path);
    return (gnn_dense_path)atomic_load(&g_path);
}

gnn_status gnn_dense_path_set(gnn_dense_path p, gnn_err *err)
{
    if ((unsigned)p >= GNN_DENSE_N_PATHS)
        return gnn_err_set(err, GNN_ERR_INVAL, "dense path %d: not a path (scalar, avx2, avx512)", (int)p);
    if (!gnn_dense_path_supported(p))
        return gnn_err_set(err, GNN_ERR_UNSUPPORTED, "dense path %s: this CPU (or build) lacks %s; it has %s%s",
                           gnn_dense_path_name(p), path_needs(p), "scalar",
                           gnn_dense_path_supported(GNN_DENSE_AVX2) ? ", avx2" : "");
    pthread_once(&g_path_once, init_path);
    atomic_store(&g_path, (int)p);
    return GNN_OK;
}

gnn_status gnn_dense_path_from_env(gnn_err *err)
{
    const char *s = getenv("GNN_DENSE_PATH");
    if (!s || !*s || !strcmp(s, "auto"))
        return GNN_OK;
    const int p = parse_path(s);
    if (p < 0)
        return gnn_err_set(err, GNN_ERR_INVAL, "GNN_DENSE_PATH=%s: expected scalar, avx2, avx512 or auto", s);
    gnn_err e;
    const gnn_status st = gnn_dense_path_set((gnn_dense_path)p, &e);
    if (st)
        return gnn_err_set(err, st, "GNN_DENSE_PATH=%s: %s", s, e.msg);
    return GNN_OK;
}

const gnn_dense_kernel *gnn_dense_kernel_of(int p)
{
    if (p < 0)
        p = (int)gnn_dense_path_current();
    if (!gnn_dense_path_supported((gnn_dense_path)p))
        return &gnn_dense_kernel_scalar; /* the same bits, slower */
    return p == GNN_DENSE_AVX512 ? &gnn_dense_kernel_avx512
           : p == GNN_DENSE_AVX2 ? &gnn_dense_kernel_avx2
                                 : &gnn_dense_kernel_scalar;
}

/* The linear layer on path p (-1: the current one). A packing buffer that cannot be allocated
 * is no error for the nn table (its ops cannot fail): the specification's loops give the same
 * bits without one. */
static void linear_fwd_on(int p, const float *x, int64_t n, int64_t in, const float *w, const float *b, int64_t out,
                          float *y)
{
    if (gnn_dense_fwd(gnn_dense_kernel_of(p), x, n, in, w, b, out, y))
        gnn_dense_fwd_ref(x, n, in, w, b, out, y);
}

static void linear_bwd_on(int p, const float *x, const float *dy, int64_t n, int64_t in, const float *w, int64_t out,
                          float *dx, float *dw, float *db)
{
    const gnn_dense_kernel *kr = gnn_dense_kernel_of(p);
    if (db)
        gnn_cpu_col_sums(dy, n, out, db);
    if (dw && gnn_dense_dw(kr, x, dy, n, in, out, dw))
        gnn_dense_bwd_ref(x, dy, n, in, w, out, NULL, dw, NULL);
    if (dx && gnn_dense_dx(kr, dy, n, in, w, out, dx))
        gnn_dense_bwd_ref(x, dy, n, in, w, out, dx, NULL, NULL);
}

#define NN_TABLE(tag, path, name_)                                                                                   \
    static void linear_fwd_##tag(const float *x, int64_t n, int64_t in, const float *w, const float *b, int64_t out, \
                                 float *y)                                                                           \
    {                                                                                                                \
        linear_fwd_on(path, x, n, in, w, b, out, y);                                                                 \
    }                                                                                                                \
    static void linear_bwd_##tag(const float *x, const float *dy, int64_t n, int64_t in, const float *w,             \
                                 int64_t out, float *dx, float *dw, float *db)                                       \
    {                                                                                                                \
        linear_bwd_on(path, x, dy, n, in, w, out, dx, dw, db);                                                       \
    }                                                                                                                \
    const gnn_nn_ops gnn_nn_##tag = {                                                                                \
        .name = name_,                                                                                               \
        .caps = 3u, /* GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED: the same bits at any thread count */                \
        .linear_fwd = linear_fwd_##tag,                                                                              \
        .linear_bwd = linear_bwd_##tag,                                                                              \
        .relu_fwd = gnn_cpu_relu_fwd,                                                                                \
        .relu_bwd = gnn_cpu_relu_bwd,                                                                                \
        .dropout_fwd = gnn_cpu_dropout_fwd,                                                                          \
        .dropout_bwd = gnn_cpu_dropout_bwd,                                                                          \
    };

NN_TABLE(fma, -1, "fma")
NN_TABLE(fma_scalar, GNN_DENSE_SCALAR, "fma-scalar")
NN_TABLE(fma_avx2, GNN_DENSE_AVX2, "fma-avx2")
NN_TABLE(fma_avx512, GNN_DENSE_AVX512, "fma-avx512")

int gnn_dense_path_of(const void *ops)
{
    if (ops == &gnn_nn_fma || ops == &gnn_update_fma)
        return (int)gnn_dense_path_current();
    if (ops == &gnn_nn_fma_scalar || ops == &gnn_update_fma_scalar)
        return GNN_DENSE_SCALAR;
    if (ops == &gnn_nn_fma_avx2 || ops == &gnn_update_fma_avx2)
        return GNN_DENSE_AVX2;
    if (ops == &gnn_nn_fma_avx512 || ops == &gnn_update_fma_avx512)
        return GNN_DENSE_AVX512;
    return -1;
}
