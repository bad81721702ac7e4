/* oracle/op_index_add.c -- oracle entry for index_add (include/gnnref/index_add.h).
 *
 *   index_add  every implementation against gnn_index_add_ref, bitwise: the header fixes the
 *       order of the additions into each out row (ascending i, from the row's value on
 *       entry), so a stable sort of the indices followed by conflict-free per-row sums
 *       reproduces every bit. With bad=1 or bad=2 one index is out of range: every
 *       implementation must return GNN_ERR_RANGE and leave out exactly as it was.
 *
 * Inputs: out starts from spread values (so a lost or reordered addition changes the bits),
 * src spread values; idx uniform over n_out, except that a fraction `hub` of the positions
 * all point at one hub row (the power-law case SuperGCN's 2D split is for). */
#include <string.h>
#include "gnnref/index_add.h"
#include "gnnref/aggregate.h"
#include "gnnref/oracle.h"
#include "gnnref/tensor.h"

static const gnn_oracle_impl k_ia_ref = { .name = "ref", .ops = &gnn_index_add_ref, .flags = 0 };
static const gnn_oracle_impl k_ia_cpu = { .name = "cpu", .ops = &gnn_index_add_cpu, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_ia_impls[] = { &k_ia_ref, &k_ia_cpu, NULL };

enum { P_NOUT, P_N, P_D, P_HUB, P_BAD, P_KEYS, N_IA_PARAMS };
static const gnn_oracle_param k_ia_params[N_IA_PARAMS] = {
    { "n_out", GNN_PARAM_INT, 0, 1e8, "rows of out" },
    { "n", GNN_PARAM_INT, 0, 1e8, "rows of src = length of idx" },
    { "d", GNN_PARAM_INT, 0, 65536, "feature width" },
    { "hub", GNN_PARAM_REAL, 0, 1, "fraction of idx pointing at one hub row" },
    { "bad", GNN_PARAM_INT, 0, 2, "0: valid; 1: one idx = n_out; 2: one idx = -1 (expect GNN_ERR_RANGE)" },
    { "keys", GNN_PARAM_INT, 0, 1,
      "1: every idx shares the hub row's low 16 bits (one radix digit for all keys, the rows differ above it)" },
};

/* Awkward cases first: repeated indices into few rows, one row, empty, no out rows at all,
 * widths 1, 7, 13, 33, 100 (not multiples of the vector width of 16; the cpu kernel's
 * column blocks are multiples of 16, at most 1024 floats), hubs, n_out far above n (the radix path of the cpu sort), bad indices. */
static const char *const k_ia_presets[] = {
    "n_out=37,n=200,d=13,hub=0,bad=0",
    "n_out=1,n=1,d=1,hub=0,bad=0",
    "n_out=1,n=50,d=7,hub=0,bad=0",
    "n_out=5,n=0,d=8,hub=0,bad=0",
    "n_out=0,n=0,d=4,hub=0,bad=0",
    "n_out=20,n=20,d=0,hub=0,bad=0",
    "n_out=64,n=500,d=33,hub=0.5,bad=0",
    "n_out=300,n=3000,d=100,hub=0.9,bad=0",
    "n_out=2000,n=300,d=257,hub=0.1,bad=0",
    "n_out=200000,n=40,d=3,hub=0,bad=0",
    "n_out=37,n=200,d=13,hub=0,bad=1",
    "n_out=200000,n=40,d=3,hub=0,bad=2",
    /* the radix path (n_out > 2 n + 65536) with keys that collide in their low 16-bit digit and
     * repeat (a pass that is not stable, or a digit taken at the wrong shift, reorders a row's
     * additions: the 40 uniform keys above hardly ever repeat or share a digit); with a hub; two
     * 1024-float column blocks; a hub-heavy case whose columns are split for the threads */
    "n_out=200000,n=3000,d=5,hub=0,bad=0,keys=1",
    "n_out=300000,n=2000,d=17,hub=0.3,bad=0,keys=1",
    /* the radix path with a hub and keys spread over the low digit, so the first pass moves
     * them: a later pass that writes the position within the pass instead of the original
     * index (a permutation still, so every src row is still added once) reorders the hub
     * row's additions and splits it into several segments; with keys=1 the first pass is the
     * identity and cannot show it */
    "n_out=300000,n=2000,d=17,hub=0.3,bad=0",
    "n_out=50,n=400,d=1100,hub=0.3,bad=0",
    "n_out=8,n=2000,d=70,hub=0.8,bad=0",
    NULL,
};

/* idx from stream 1: a hub row, then per position hub (with probability `hub`) or uniform. */
static void ia_indices(const gnn_oracle_case *c, int64_t *idx, int64_t n, int64_t n_out)
{
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1);
    const double hub = gnn_oracle_real(c, P_HUB);
    const int64_t hub_row = n_out > 0 ? (int64_t)gnn_oracle_draw_uint(&g, (uint64_t)n_out) : 0;
    for (int64_t i = 0; i < n; i++) {
        const int to_hub = (double)gnn_oracle_draw_float(&g) < hub;
        const int64_t u = n_out > 0 ? (int64_t)gnn_oracle_draw_uint(&g, (uint64_t)n_out) : 0;
        idx[i] = to_hub ? hub_row : u;
    }
    if (gnn_oracle_int(c, P_KEYS)) { /* keep the band above 16 bits, take the hub's low digit */
        const int64_t low = hub_row & 0xFFFF; /* <= hub_row < n_out: band 0 is always valid */
        for (int64_t i = 0; i < n; i++) {
            int64_t v = (idx[i] & ~(int64_t)0xFFFF) | low;
            idx[i] = v < n_out ? v : v - 0x10000;
        }
    }
    const int64_t bad = gnn_oracle_int(c, P_BAD);
    if (bad && n > 0)
        idx[gnn_oracle_draw_uint(&g, (uint64_t)n)] = bad == 1 ? n_out : -1;
}

static gnn_oracle_outcome ia_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_index_add_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    const int64_t n_out = gnn_oracle_int(c, P_NOUT), n = gnn_oracle_int(c, P_N), d = gnn_oracle_int(c, P_D);
    const int64_t bad = gnn_oracle_int(c, P_BAD);
    if (bad && n == 0)
        return gnn_oracle_fail(ctx, "invalid case: bad=%lld needs n >= 1", (long long)bad);
    const size_t out_bytes = (size_t)(n_out * d) * sizeof(float);
    int64_t *idx = gnn_oracle_alloc(ctx, (size_t)n * sizeof(int64_t));
    float *src = gnn_oracle_alloc(ctx, (size_t)(n * d) * sizeof(float));
    float *init = gnn_oracle_alloc(ctx, out_bytes);
    float *want = gnn_oracle_alloc_out(ctx, "ref.out", out_bytes);
    float *got = gnn_oracle_alloc_out(ctx, "impl.out", out_bytes);
    if (!idx || !src || !init || !want || !got)
        return gnn_oracle_fail(ctx, "out of memory");
    ia_indices(c, idx, n, n_out);
    gnn_oracle_draws gs = gnn_oracle_draws_make(c, 2), go = gnn_oracle_draws_make(c, 3);
    gnn_oracle_fill_spread(&gs, src, n * d);
    gnn_oracle_fill_spread(&go, init, n_out * d);
    memcpy(want, init, out_bytes);
    memcpy(got, init, out_bytes);

    const gnn_status expect = bad ? GNN_ERR_RANGE : GNN_OK;
    gnn_status s = gnn_index_add_run(ref, want, n_out, d, idx, src, n);
    if (s != expect)
        return gnn_oracle_fail(ctx, "ref returned %s, expected %s", gnn_status_str(s), gnn_status_str(expect));
    s = gnn_index_add_run(impl, got, n_out, d, idx, src, n);
    if (s == GNN_ERR_UNSUPPORTED)
        return gnn_oracle_status(ctx, "impl", s);
    if (s != expect)
        return gnn_oracle_fail(ctx, "impl returned %s, expected %s", gnn_status_str(s), gnn_status_str(expect));
    gnn_oracle_digest(ctx, got, out_bytes);
    if (bad) {
        /* a range error must come before any write: out is still the initial values */
        const unsigned char *a = (const unsigned char *)init, *b = (const unsigned char *)got;
        for (size_t k = 0; k < out_bytes; k++)
            if (a[k] != b[k])
                return gnn_oracle_fail(ctx, "GNN_ERR_RANGE returned but out changed at byte %zu (element %zu)", k,
                                       k / sizeof(float));
    }
    return gnn_oracle_compare_f32(ctx, NULL, "out", want, got, n_out * d, d);
}

/* ---- benchmark hook: GB/s = (src read + out rows read and written + idx) / time ---------------- */

typedef struct ia_fixture {
    const gnn_index_add_ops *ops;
    int64_t n_out, n, d;
    int64_t *idx;
    float *src, *out;
} ia_fixture;

static void ia_teardown(void *p)
{
    ia_fixture *f = p;
    if (!f)
        return;
    gnn_free(f->idx);
    gnn_free(f->src);
    gnn_free(f->out);
    gnn_free(f);
}

static gnn_status ia_setup(const gnn_oracle_case *c, void **fixture, gnn_oracle_work *work)
{
    ia_fixture *f = gnn_calloc(1, sizeof *f);
    if (!f)
        return GNN_ERR_NOMEM;
    f->ops = c->impl->ops;
    f->n_out = gnn_oracle_int(c, P_NOUT);
    f->n = gnn_oracle_int(c, P_N);
    f->d = gnn_oracle_int(c, P_D);
    f->idx = gnn_malloc((size_t)f->n * sizeof(int64_t));
    f->src = gnn_malloc((size_t)(f->n * f->d) * sizeof(float));
    f->out = gnn_calloc((size_t)(f->n_out * f->d), sizeof(float));
    if (!f->idx || !f->src || !f->out) {
        ia_teardown(f);
        return GNN_ERR_NOMEM;
    }
    ia_indices(c, f->idx, f->n, f->n_out);
    gnn_oracle_draws gs = gnn_oracle_draws_make(c, 2);
    gnn_oracle_fill_spread(&gs, f->src, f->n * f->d);
    /* out grows a little every call (small values: no overflow over any benchmark length) */
    int64_t touched = 0;
    {
        char *seen = gnn_calloc((size_t)f->n_out + 1, 1);
        if (!seen) {
            ia_teardown(f);
            return GNN_ERR_NOMEM;
        }
        for (int64_t i = 0; i < f->n; i++)
            if (!seen[f->idx[i]]) {
                seen[f->idx[i]] = 1;
                touched++;
            }
        gnn_free(seen);
    }
    work->bytes = (double)f->n * (double)f->d * 4.0 + 2.0 * (double)touched * (double)f->d * 4.0 + (double)f->n * 8.0;
    work->flops = (double)f->n * (double)f->d;
    work->items = (double)f->n;
    work->items_name = "rows/s";
    *fixture = f;
    return GNN_OK;
}

static gnn_status ia_bench_run(void *p)
{
    ia_fixture *f = p;
    return gnn_index_add_run(f->ops, f->out, f->n_out, f->d, f->idx, f->src, f->n);
}

/* The backward of an aggregation over a sampled layer: 150k edges scattered into 100k rows,
 * d = 256 (SuperGCN's setting), and a hub-heavy variant. */
static const char *const k_ia_bench_sizes[] = {
    "n_out=100000,n=150000,d=256,hub=0,bad=0",
    "n_out=100000,n=150000,d=64,hub=0.3,bad=0",
    NULL,
};
static const gnn_oracle_bench k_ia_bench = { k_ia_bench_sizes, ia_setup, ia_bench_run, ia_teardown };

const gnn_oracle_entry gnn_oracle_index_add = {
    .name = "index_add",
    .what = "out[idx[i]] += src[i] for i ascending (PyTorch index_add_); out-of-range idx -> GNN_ERR_RANGE, out untouched",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "index_add.h fixes the order of additions per out row (ascending i): every bit is specified",
    .params = k_ia_params, .n_params = N_IA_PARAMS, .presets = k_ia_presets, .defaults = "keys=0",
    .ref = &k_ia_ref, .impls = k_ia_impls, .run = ia_run, .bench = &k_ia_bench,
};
