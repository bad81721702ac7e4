/* oracle/op_spmm.c -- oracle entries for sparse input features (include/gnnref/spmm.h,
 * docs/sparse-features.md).
 *
 *   spmm.fwd    y = X W (+ b), X CSR: impl against ref bitwise (every output sums its terms in
 *               CSR order; cpu only spreads rows over threads), checked at 1, 2 and 4 threads
 *               for the same bits; and the property spmm.h states, checked against a different
 *               algorithm: ref's y equals the DENSE reference linear layer (gnn_linear_fwd_ref on
 *               the densified X) bit for bit, since the bias drawn here never holds -0.
 *   spmm.dw     X^T from the impl's transpose (its three arrays bitwise against ref's, and a
 *               verifier: every column's rows strictly ascending, each entry found in X), then
 *               dW = X^T dz bitwise against ref; and ref's dW equals the dense reference
 *               linear_bwd's dw bit for bit (a sum from +0 never becomes -0, so the skipped
 *               0 * dz terms change nothing).
 *   spmm.input  the mini-batch input: a row gather (rows drawn with repeats) then the keyed
 *               dropout on the values; bitwise against ref, and the values equal
 *               gnn_dropout_fwd's on the densified gathered rows (DESIGN.md section 2).
 * Inputs: rows of degree lo..hi (degree-0 rows included), some stored zeros (+0 and -0), with
 * zcol=1 only even columns are used (the odd ones are all-zero columns, whose dW rows must be
 * exactly +0), c and k not multiples of 8 or 16. */
#include <string.h>
#include "gnnref/nn.h"
#include "gnnref/oracle.h"
#include "gnnref/spmm.h"
#include "gnnref/tensor.h"

static const gnn_oracle_impl k_spmm_ref = { .name = "ref", .ops = &gnn_spmm_ref, .flags = 0 };
static const gnn_oracle_impl k_spmm_cpu = { .name = "cpu", .ops = &gnn_spmm_cpu, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_spmm_impls[] = { &k_spmm_ref, &k_spmm_cpu, NULL };

enum { S_N, S_C, S_K, S_DEG, S_ZCOL, S_BIAS, S_P, N_SPMM_PARAMS };
static const gnn_oracle_param k_spmm_params[N_SPMM_PARAMS] = {
    { "n", GNN_PARAM_INT, 0, 1e6, "rows of X" },
    { "c", GNN_PARAM_INT, 0, 65536, "columns of X (rows of W)" },
    { "k", GNN_PARAM_INT, 0, 4096, "columns of W" },
    { "deg", GNN_PARAM_RANGE, 0, 65536, "nonzeros per row, lo..hi (capped at the usable columns)" },
    { "zcol", GNN_PARAM_INT, 0, 1, "1: only even columns are used (all-zero odd columns)" },
    { "bias", GNN_PARAM_INT, 0, 1, "spmm.fwd: 1 with b, 0 b = NULL" },
    { "p", GNN_PARAM_REAL, 0, 0.99, "spmm.input: dropout probability" },
};

static const char *const k_spmm_presets[] = {
    "n=37,c=13,k=7,deg=0..5,zcol=0,bias=1,p=0.5",
    "n=1,c=1,k=1,deg=1,zcol=0,bias=0,p=0.5",
    "n=0,c=16,k=8,deg=0..3,zcol=0,bias=1,p=0.5",          /* empty matrix */
    "n=20,c=9,k=5,deg=0,zcol=0,bias=1,p=0.5",             /* no nonzeros: y = b, dW = 0 */
    "n=300,c=100,k=17,deg=0..30,zcol=1,bias=1,p=0.25",    /* all-zero columns */
    "n=513,c=257,k=33,deg=2..40,zcol=0,bias=0,p=0.75",
    "n=70,c=3703,k=16,deg=10..50,zcol=0,bias=1,p=0.5",    /* CiteSeer's width */
    "n=3000,c=500,k=6,deg=0..64,zcol=1,bias=1,p=0.5",     /* past the cpu chunks; nnz > 65536: transpose threaded */
    "n=40,c=24,k=0,deg=0..8,zcol=0,bias=1,p=0.5",
    NULL,
};

typedef struct spmm_case {
    gnn_fcsr x;
    int64_t k;
    float *w, *b, *dz;
} spmm_case;

/* X (n, c) with deg lo..hi distinct columns per row (sorted), values in [-1, 1) with about one
 * in eight stored as +0 or -0; W, b, dz uniform in [-1, 1) (b never -0). */
static gnn_oracle_outcome make_case(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, spmm_case *s)
{
    const int64_t n = gnn_oracle_int(c, S_N), cols = gnn_oracle_int(c, S_C), k = gnn_oracle_int(c, S_K);
    const int zcol = (int)gnn_oracle_int(c, S_ZCOL);
    const int64_t usable = zcol ? (cols + 1) / 2 : cols;
    int64_t lo = gnn_oracle_lo(c, S_DEG), hi = gnn_oracle_hi(c, S_DEG);
    hi = hi < usable ? hi : usable;
    lo = lo < hi ? lo : hi;
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1);
    int64_t *deg = gnn_oracle_alloc(ctx, (size_t)(n + 1) * sizeof(int64_t));
    unsigned char *mark = gnn_oracle_alloc(ctx, (size_t)(cols + 1));
    if (!deg || !mark)
        return gnn_oracle_fail(ctx, "out of memory");
    int64_t nnz = 0;
    for (int64_t i = 0; i < n; i++)
        nnz += deg[i] = gnn_oracle_draw_range(&g, lo, hi);
    gnn_fcsr *x = &s->x;
    memset(x, 0, sizeof *x);
    x->rows = n;
    x->cols = cols;
    x->nnz = nnz;
    x->indptr = gnn_oracle_alloc(ctx, (size_t)(n + 1) * sizeof(int64_t));
    x->col = gnn_oracle_alloc(ctx, (size_t)(nnz + 1) * sizeof(int32_t));
    x->val = gnn_oracle_alloc(ctx, (size_t)(nnz + 1) * sizeof(float));
    s->k = k;
    s->w = gnn_oracle_alloc(ctx, (size_t)(cols * k + 1) * sizeof(float));
    s->b = gnn_oracle_alloc(ctx, (size_t)(k + 1) * sizeof(float));
    s->dz = gnn_oracle_alloc(ctx, (size_t)(n * k + 1) * sizeof(float));
    if (!x->indptr || !x->col || !x->val || !s->w || !s->b || !s->dz)
        return gnn_oracle_fail(ctx, "out of memory");
    int64_t q = 0;
    for (int64_t i = 0; i < n; i++) {
        x->indptr[i] = q;
        memset(mark, 0, (size_t)cols);
        for (int64_t t = 0; t < deg[i];) { /* distinct usable columns, then in ascending order */
            const int64_t j = gnn_oracle_draw_range(&g, 0, usable - 1) * (zcol ? 2 : 1);
            if (!mark[j])
                mark[j] = 1, t++;
        }
        for (int64_t j = 0; j < cols; j++)
            if (mark[j]) {
                const uint64_t r = gnn_oracle_draw_uint(&g, 16);
                x->col[q] = (int32_t)j;
                x->val[q++] = r == 0 ? 0.0f : r == 1 ? -0.0f : 2.0f * gnn_oracle_draw_float(&g) - 1.0f;
            }
    }
    x->indptr[n] = q;
    gnn_oracle_draws g2 = gnn_oracle_draws_make(c, 2);
    for (int64_t i = 0; i < cols * k; i++)
        s->w[i] = 2.0f * gnn_oracle_draw_float(&g2) - 1.0f;
    for (int64_t j = 0; j < k; j++)
        s->b[j] = 2.0f * gnn_oracle_draw_float(&g2) - 1.0f + 0.0f; /* + 0.0f: never -0 */
    for (int64_t i = 0; i < n * k; i++)
        s->dz[i] = 2.0f * gnn_oracle_draw_float(&g2) - 1.0f;
    return GNN_ORACLE_PASS;
}

static float *densify(gnn_oracle_ctx *ctx, const gnn_fcsr *x)
{
    float *d = gnn_oracle_alloc(ctx, (size_t)(x->rows * x->cols + 1) * sizeof(float));
    if (d)
        gnn_fcsr_to_dense(x, d);
    return d;
}

static gnn_oracle_outcome fwd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_spmm_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    spmm_case s;
    gnn_oracle_outcome o = make_case(ctx, c, &s);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t n = s.x.rows, k = s.k;
    const float *b = gnn_oracle_int(c, S_BIAS) ? s.b : NULL;
    const size_t ybytes = (size_t)(n * k) * sizeof(float);
    float *want = gnn_oracle_alloc_out(ctx, "ref.y", ybytes), *got = gnn_oracle_alloc_out(ctx, "impl.y", ybytes);
    float *dense = gnn_oracle_alloc_out(ctx, "dense.y", ybytes), *xd = densify(ctx, &s.x);
    if (!want || !got || !dense || !xd)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_status st = gnn_spmm_fwd(ref, &s.x, s.w, b, k, want);
    if (st)
        return gnn_oracle_fail(ctx, "ref fwd returned %s", gnn_status_str(st));
    if ((o = gnn_oracle_status(ctx, "impl fwd", gnn_spmm_fwd(impl, &s.x, s.w, b, k, got))) != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, got, ybytes);
    o = gnn_oracle_compare_f32(ctx, NULL, "y", want, got, n * k, k);
    /* the property of spmm.h: the dense reference, which sums over all c, gives the same bits */
    static const gnn_oracle_tol bitwise = { GNN_CMP_BITWISE, 0, 0 };
    gnn_linear_fwd_ref(xd, n, s.x.cols, s.w, b, k, dense);
    return gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, &bitwise, "y (ref vs the dense linear layer)", dense,
                                                      want, n * k, k));
}

/* X^T's structure, written from its definition: column c lists the rows holding c, ascending,
 * with their values. */
static gnn_oracle_outcome verify_transpose(gnn_oracle_ctx *ctx, const gnn_fcsr *x, const gnn_fcsr *xt)
{
    if (xt->rows != x->cols || xt->cols != x->rows || xt->nnz != x->nnz || xt->indptr[0] != 0 ||
        xt->indptr[xt->rows] != x->nnz)
        return gnn_oracle_fail(ctx, "transpose: shape %lld x %lld, nnz %lld", (long long)xt->rows, (long long)xt->cols,
                               (long long)xt->nnz);
    for (int64_t c = 0; c < xt->rows; c++)
        for (int64_t p = xt->indptr[c]; p < xt->indptr[c + 1]; p++) {
            const int64_t i = xt->col[p];
            if (p > xt->indptr[c] && i <= xt->col[p - 1])
                return gnn_oracle_fail(ctx, "transpose: column %lld lists row %lld after %lld", (long long)c,
                                       (long long)i, (long long)xt->col[p - 1]);
            int found = 0;
            for (int64_t q = x->indptr[i]; q < x->indptr[i + 1] && !found; q++)
                found = x->col[q] == c && memcmp(&x->val[q], &xt->val[p], sizeof(float)) == 0;
            if (!found)
                return gnn_oracle_fail(ctx, "transpose: entry (%lld, %lld) is not in X", (long long)i, (long long)c);
        }
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome dw_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_spmm_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    spmm_case s;
    gnn_oracle_outcome o = make_case(ctx, c, &s);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t n = s.x.rows, cols = s.x.cols, k = s.k;
    const size_t wbytes = (size_t)(cols * k) * sizeof(float);
    float *want = gnn_oracle_alloc_out(ctx, "ref.dw", wbytes), *got = gnn_oracle_alloc_out(ctx, "impl.dw", wbytes);
    float *dense = gnn_oracle_alloc_out(ctx, "dense.dw", wbytes), *xd = densify(ctx, &s.x);
    if (!want || !got || !dense || !xd)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_fcsr t[2];
    memset(t, 0, sizeof t);
    gnn_status st = gnn_spmm_transpose(ref, &s.x, &t[0]);
    if (!st)
        st = gnn_spmm_dw(ref, &t[0], s.dz, k, want);
    if (st) {
        gnn_fcsr_free(&t[0]);
        return gnn_oracle_fail(ctx, "ref transpose/dw returned %s", gnn_status_str(st));
    }
    st = gnn_spmm_transpose(impl, &s.x, &t[1]);
    if (!st)
        st = gnn_spmm_dw(impl, &t[1], s.dz, k, got);
    o = gnn_oracle_status(ctx, "impl transpose/dw", st);
    if (o == GNN_ORACLE_PASS) {
        gnn_oracle_digest(ctx, t[1].col, (size_t)t[1].nnz * sizeof(int32_t));
        gnn_oracle_digest(ctx, got, wbytes);
        o = verify_transpose(ctx, &s.x, &t[1]);
        o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "xt.indptr", t[0].indptr, t[1].indptr, cols + 1, 8));
        o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "xt.col", t[0].col, t[1].col, s.x.nnz, 4));
        o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "xt.val (bits)", t[0].val, t[1].val, s.x.nnz, 4));
        o = gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, NULL, "dw", want, got, cols * k, k));
        static const gnn_oracle_tol bitwise = { GNN_CMP_BITWISE, 0, 0 };
        gnn_linear_bwd_ref(xd, s.dz, n, cols, s.w, k, NULL, dense, NULL);
        o = gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, &bitwise, "dw (ref vs the dense linear layer)", dense,
                                                       want, cols * k, k));
    }
    gnn_fcsr_free(&t[0]);
    gnn_fcsr_free(&t[1]);
    return o;
}

/* Gather m = n + 3 rows drawn with repeats (ids spread to 2^40 as global ids), then dropout. */
static gnn_oracle_outcome input_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_spmm_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    spmm_case s;
    gnn_oracle_outcome o = make_case(ctx, c, &s);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t n = s.x.rows, m = n > 0 ? n + 3 : 0, cols = s.x.cols;
    const float p = (float)gnn_oracle_real(c, S_P);
    int64_t *rows = gnn_oracle_alloc(ctx, (size_t)(m + 1) * sizeof(int64_t));
    int64_t *gid = gnn_oracle_alloc(ctx, (size_t)(m + 1) * sizeof(int64_t));
    float *xd = gnn_oracle_alloc(ctx, (size_t)(m * cols + 1) * sizeof(float));
    if (!rows || !gid || !xd)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 3);
    for (int64_t r = 0; r < m; r++) {
        rows[r] = (int64_t)gnn_oracle_draw_uint(&g, (uint64_t)n);
        gid[r] = (int64_t)gnn_oracle_draw_uint(&g, 1ull << 32) << 8 | (r & 0xff);
    }
    const uint64_t seed = c->seed * 0x9E3779B97F4A7C15ull + 1;
    gnn_fcsr *out = gnn_oracle_alloc(ctx, 2 * sizeof(gnn_fcsr)); /* zeroed; freed after the case */
    if (!out)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_defer(ctx, (void (*)(void *))gnn_fcsr_free, &out[0]);
    gnn_oracle_defer(ctx, (void (*)(void *))gnn_fcsr_free, &out[1]);
    gnn_status st = gnn_spmm_gather(ref, &s.x, rows, m, &out[0]);
    if (!st)
        st = gnn_spmm_dropout(ref, &out[0], gid, p, seed, 11, 3);
    if (st)
        return gnn_oracle_fail(ctx, "ref gather/dropout returned %s", gnn_status_str(st));
    st = gnn_spmm_gather(impl, &s.x, rows, m, &out[1]);
    if (!st)
        st = gnn_spmm_dropout(impl, &out[1], gid, p, seed, 11, 3);
    if ((o = gnn_oracle_status(ctx, "impl gather/dropout", st)) != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, out[1].val, (size_t)out[1].nnz * sizeof(float));
    o = gnn_oracle_compare_int(ctx, "indptr", out[0].indptr, out[1].indptr, m + 1, 8);
    o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "col", out[0].col, out[1].col, out[0].nnz, 4));
    o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "val (bits)", out[0].val, out[1].val, out[0].nnz, 4));
    /* the dense rows through gnn_dropout_fwd: the stored entries must carry the same bits */
    for (int64_t r = 0; r < m; r++) {
        const int64_t i = rows[r];
        memset(xd + r * cols, 0, (size_t)cols * sizeof(float));
        for (int64_t q = s.x.indptr[i]; q < s.x.indptr[i + 1]; q++)
            xd[r * cols + s.x.col[q]] = s.x.val[q];
    }
    gnn_dropout_fwd(xd, m, cols, gid, p, seed, 11, 3, NULL);
    for (int64_t r = 0; r < m && o == GNN_ORACLE_PASS; r++)
        for (int64_t q = out[0].indptr[r]; q < out[0].indptr[r + 1]; q++)
            if (memcmp(&xd[r * cols + out[0].col[q]], &out[0].val[q], sizeof(float)))
                return gnn_oracle_fail(ctx, "row %lld column %d: CSR dropout gives %.9g, gnn_dropout_fwd %.9g",
                                       (long long)r, out[0].col[q], out[0].val[q], xd[r * cols + out[0].col[q]]);
    return o;
}

/* Benchmark of spmm.fwd: the first layer's product of a bag-of-words input, CiteSeer's shape
 * (3327 rows, 3703 columns, 20..44 nonzeros a row: about its 105k, k = 16). GFLOP/s = 2 nnz k
 * per call; bytes: X once, W once, y written. */
typedef struct spmm_fixture {
    const gnn_spmm_ops *ops;
    gnn_fcsr x;
    int64_t k;
    float *w, *b, *y;
} spmm_fixture;

static void spmm_teardown(void *p)
{
    spmm_fixture *f = p;
    if (!f)
        return;
    gnn_free(f->x.indptr);
    gnn_free(f->x.col);
    gnn_free(f->x.val);
    gnn_free(f->w);
    gnn_free(f->b);
    gnn_free(f->y);
    gnn_free(f);
}

/* Rows of lo..hi distinct random columns, put in ascending order by a pass over a mark array,
 * as make_case does (which allocates from the oracle's per-case context, not available here). */
static gnn_status spmm_setup(const gnn_oracle_case *c, void **fixture, gnn_oracle_work *work)
{
    const int64_t n = gnn_oracle_int(c, S_N), cols = gnn_oracle_int(c, S_C), k = gnn_oracle_int(c, S_K);
    const int64_t lo = gnn_oracle_lo(c, S_DEG), hi = gnn_oracle_hi(c, S_DEG) < cols ? gnn_oracle_hi(c, S_DEG) : cols;
    spmm_fixture *f = gnn_calloc(1, sizeof *f);
    unsigned char *mark = gnn_calloc((size_t)cols + 1, 1);
    if (!f || !mark) {
        gnn_free(mark);
        spmm_teardown(f);
        return GNN_ERR_NOMEM;
    }
    f->ops = c->impl->ops;
    f->k = k;
    f->x.rows = n;
    f->x.cols = cols;
    f->x.indptr = gnn_malloc((size_t)(n + 1) * sizeof(int64_t));
    f->x.col = gnn_malloc((size_t)(n * hi + 1) * sizeof(int32_t));
    f->x.val = gnn_malloc((size_t)(n * hi + 1) * sizeof(float));
    f->w = gnn_malloc((size_t)(cols * k + 1) * sizeof(float));
    f->b = gnn_malloc((size_t)(k + 1) * sizeof(float));
    f->y = gnn_malloc((size_t)(n * k + 1) * sizeof(float));
    if (!f->x.indptr || !f->x.col || !f->x.val || !f->w || !f->b || !f->y) {
        gnn_free(mark);
        spmm_teardown(f);
        return GNN_ERR_NOMEM;
    }
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1);
    int64_t q = 0;
    for (int64_t i = 0; i < n; i++) {
        f->x.indptr[i] = q;
        const int64_t deg = gnn_oracle_draw_range(&g, lo < hi ? lo : hi, hi);
        for (int64_t t = 0; t < deg;) {
            const int64_t j = gnn_oracle_draw_range(&g, 0, cols - 1);
            if (!mark[j])
                mark[j] = 1, t++;
        }
        for (int64_t j = 0; j < cols; j++)
            if (mark[j]) {
                mark[j] = 0;
                f->x.col[q] = (int32_t)j;
                f->x.val[q++] = 2.0f * gnn_oracle_draw_float(&g) - 1.0f;
            }
    }
    f->x.indptr[n] = q;
    f->x.nnz = q;
    gnn_free(mark);
    gnn_oracle_fill_spread(&g, f->w, cols * k);
    gnn_oracle_fill_spread(&g, f->b, k);
    work->bytes = (double)q * 8.0 + 8.0 * (double)(n + 1) + 4.0 * (double)(cols * k + k + n * k);
    work->flops = 2.0 * (double)q * (double)k;
    work->items = (double)n;
    work->items_name = "rows/s";
    *fixture = f;
    return GNN_OK;
}

static gnn_status spmm_bench_run(void *p)
{
    spmm_fixture *f = p;
    return gnn_spmm_fwd(f->ops, &f->x, f->w, f->b, f->k, f->y);
}

static const char *const k_spmm_bench_sizes[] = { "n=3327,c=3703,k=16,deg=20..44,zcol=0,bias=1,p=0.5", NULL };
static const gnn_oracle_bench k_spmm_bench = { k_spmm_bench_sizes, spmm_setup, spmm_bench_run, spmm_teardown };

#define SPMM_ENTRY(sym, nm, wh, fn, bn)                                                                          \
    const gnn_oracle_entry sym = {                                                                               \
        .name = nm, .what = wh, .tol = { GNN_CMP_BITWISE, 0, 0 },                                                \
        .reason = "every output element keeps ref's order (CSR order; dW: X^T's rows ascending) and the keyed "  \
                  "mask; cpu only spreads independent outputs over threads, so the bits are fixed",             \
        .params = k_spmm_params, .n_params = N_SPMM_PARAMS, .presets = k_spmm_presets,                           \
        .ref = &k_spmm_ref, .impls = k_spmm_impls, .run = fn, .bench = bn,                                       \
    }

SPMM_ENTRY(gnn_oracle_spmm_fwd, "spmm.fwd",
           "CSR x dense y = X W + b against ref, and ref against the dense linear layer (bitwise)", fwd_run,
           &k_spmm_bench);
SPMM_ENTRY(gnn_oracle_spmm_dw, "spmm.dw",
           "transpose of X (verified) and dW = X^T dz against ref, and ref against the dense linear_bwd (bitwise)",
           dw_run, NULL);
SPMM_ENTRY(gnn_oracle_spmm_input, "spmm.input",
           "row gather of a CSR and keyed dropout on its values against ref, and against gnn_dropout_fwd on the "
           "dense rows (bitwise)", input_run, NULL);
