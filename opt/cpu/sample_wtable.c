/* opt/cpu/sample_wtable.c -- the per-graph cache of weighted sampling: rows' positive counts
 * and prefix sums, computed once per row (what and why: opt/cpu/sample_wtable.h and
 * docs/sampling.md section 8). The values are those the reference computes per call, from
 * the same expressions in the same order (opt/cpu/sample_weighted.h), so caching them cannot
 * change a sample. */
#include <string.h>
#include "gnnref/tensor.h"
#include "opt/cpu/clones.h"
#include "opt/cpu/sample_weighted.h"
#include "opt/cpu/sample_wtable.h"

void gnn_wtable_free(gnn_wtable *t)
{
    gnn_free(t->known);
    gnn_free(t->npos);
    gnn_free(t->built);
    gnn_free(t->at);
    gnn_free(t->prefix);
    gnn_free(t->fresh);
    memset(t, 0, sizeof *t);
}

/* The prefix table's layout: at[v] for every row, the long rows one after the other. */
static gnn_status alloc_prefix(gnn_wtable *t, const gnn_csr *g, size_t n)
{
    t->built = gnn_malloc(n);
    t->at = gnn_malloc(n * sizeof(int64_t));
    if (!t->built || !t->at)
        goto fail;
    int64_t total = 0;
    for (int64_t v = 0; v < g->n; v++) {
        const int64_t d = g->indptr[v + 1] - g->indptr[v];
        t->at[v] = d >= GNN_WTABLE_MIN_DEG ? total : -1;
        total += d >= GNN_WTABLE_MIN_DEG ? d : 0;
    }
    t->prefix = gnn_malloc((total > 0 ? (size_t)total : 1) * sizeof(double));
    if (!t->prefix)
        goto fail;
    memset(t->built, 0, n);
    return GNN_OK;
fail:
    gnn_free(t->built);
    gnn_free(t->at);
    t->built = NULL;
    t->at = NULL;
    return GNN_ERR_NOMEM;
}

gnn_status gnn_wtable_bind(gnn_wtable *t, const gnn_csr *g, const float *w, int draws, int64_t n_seeds)
{
    const size_t n = g->n > 0 ? (size_t)g->n : 1;
    if (t->g != g) { /* another graph (never, for one sampler object): start again */
        gnn_wtable_free(t);
        t->g = g;
    }
    if (!t->known) {
        t->known = gnn_malloc(n);
        t->npos = gnn_malloc(n * sizeof(int64_t));
        if (!t->known || !t->npos) {
            gnn_wtable_free(t);
            return GNN_ERR_NOMEM;
        }
        memset(t->known, 0, n);
        t->w = w;
    }
    gnn_status st;
    if (draws && !t->prefix && (st = alloc_prefix(t, g, n)))
        return st;
    if (t->w != w) { /* other weights: nothing cached holds for them */
        memset(t->known, 0, n);
        if (t->built)
            memset(t->built, 0, n);
        t->w = w;
    }
    if (n_seeds > t->fresh_cap) {
        gnn_free(t->fresh);
        t->fresh = gnn_malloc((size_t)n_seeds * sizeof(int64_t));
        t->fresh_cap = t->fresh ? n_seeds : 0;
        if (!t->fresh)
            return GNN_ERR_NOMEM;
    }
    return GNN_OK;
}

void gnn_wtable_commit(gnn_wtable *t, const int64_t *seeds, int64_t n_seeds)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n_seeds; i++) {
        if (t->fresh[i] < 0)
            continue;
        const int64_t v = seeds[i];
        uint8_t zero = 0; /* a repeated seed: one copy writes, the other sees the claim */
        if (__atomic_compare_exchange_n(&t->known[v], &zero, 2, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            t->npos[v] = t->fresh[i];
            __atomic_store_n(&t->known[v], 1, __ATOMIC_RELEASE);
        }
    }
}

const double *gnn_wtable_prefix_row(gnn_wtable *t, int64_t v)
{
    if (t->at[v] < 0)
        return NULL; /* a short row: its sums are cheap to build per call */
    const int64_t b = t->g->indptr[v];
    double *row = t->prefix + t->at[v];
    uint8_t st = __atomic_load_n(&t->built[v], __ATOMIC_ACQUIRE);
    if (st == 2)
        return row;
    if (st != 0 || !__atomic_compare_exchange_n(&t->built[v], &st, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
        return NULL; /* another thread builds it (a repeated seed) */
    gnn_cpu_weighted_prefix(t->w + b, t->g->indptr[v + 1] - b, row);
    __atomic_store_n(&t->built[v], 2, __ATOMIC_RELEASE);
    return row;
}

int gnn_wtable_sample(gnn_wtable *t, int64_t v, const gnn_sample_params *p, const gnn_rng_stream *s, int64_t count,
                      int64_t *out, gnn_wscratch *scr)
{
    const int64_t b = t->g->indptr[v], d = t->g->indptr[v + 1] - b;
    const int64_t *adj = t->g->indices + b;
    const float *w = t->w + b;
    if (count <= 0)
        return 0;
    if (p->fanout < 0 || (!p->replace && count == gnn_wtable_positives(t, v))) {
        /* k < 0 or P <= k: every positive-weight neighbor in CSR order, no draws */
        if (count == d)
            memcpy(out, adj, (size_t)d * sizeof(int64_t));
        else
            gnn_cpu_weighted_positive_ids(adj, w, d, count, out);
        return 0;
    }
    /* draws: by inversion of the row's prefix sums, from the table or, for a short row (or one
     * another thread is building), computed per call */
    const double *prefix = gnn_wtable_prefix_row(t, v);
    if (!prefix) {
        if (gnn_wscratch_reserve(scr, d))
            return -1;
        gnn_cpu_weighted_prefix(w, d, scr->prefix);
        prefix = scr->prefix;
    }
    if (p->replace) {
        gnn_cpu_weighted_draws(adj, prefix, d, s, count, out);
        return 0;
    }
    if (gnn_wscratch_reserve(scr, count) || gnn_wscratch_reserve_bits(scr, d))
        return -1;
    gnn_cpu_weighted_successive(adj, w, prefix, d, s, count, out, scr); /* P > k */
    return 0;
}

/* A-ES candidates of one chunk of m positions (declared in opt/cpu/sample_weighted.h): u[h]
 * from draw words 2h (low) and 2h+1 (high), exactly gnn_weighted_u (r >> 12 < 2^52 is placed in
 * a double's mantissa and 2^52 taken off: both exact, so no 64-bit conversion is needed and
 * the loop vectorizes); cand[h] = 1 for a positive weight that passes the log-free bound test
 * against bound (INFINITY: every positive weight). Built for AVX2 and the baseline. */
GNN_CLONES void gnn_cpu_aes_candidates(const uint32_t *words, const float *w, int m, double bound, double *u,
                                       uint8_t *cand)
{
    for (int h = 0; h < m; h++) {
        const uint64_t r = ((uint64_t)words[2 * h + 1] << 32) | words[2 * h];
        const uint64_t bits = (r >> 12) | 0x4330000000000000ull; /* 2^52 + (r >> 12) */
        double x;
        memcpy(&x, &bits, sizeof x);
        const double uh = ((x - 0x1p52) + 0.5) * 0x1p-52;
        const double wv = (double)w[h];
        u[h] = uh;
        cand[h] = (uint8_t)((wv > 0.0) & ((1.0 - uh) * (1.0 - 0x1p-29) < bound * wv));
    }
}
