/* opt/cpu/sample_wtable.c -- the per-graph cache of weighted sampling: rows' positive counts
 * and prefix sums, computed once per row (what and why: opt/cpu/sample_wtable.h and
 * docs/sampling.md section 8). The values are those the reference computes per call, from
 * the same expressions in the same order (opt/cpu/sample_weighted.h), so caching them cannot
 * change a sample. */
#include <string.h>
#include "gnnref/tensor.h"
#include "opt/cpu/sample_weighted.h"
#include "opt/cpu/sample_wtable.h"
#include "core/ops/sampler_base.h" /* the weights' fingerprint */

void gnn_wtable_free(gnn_wtable *t)
{
    gnn_free(t->npos);
    gnn_free(t->at);
    gnn_free(t->prefix);
    gnn_free(t->fresh);
    memset(t, 0, sizeof *t);
}

/* Doubles a long row takes in the table: its nb checkpoints, then its guide's Q int32. */
static int64_t row_doubles(int64_t d)
{
    const int64_t nb = (d + GNN_WCK_BLOCK - 1) / GNN_WCK_BLOCK;
    return nb + (gnn_wguide_size(nb) + 1) / 2;
}

/* The checkpoint table's layout: at[v] for every row, the long rows' ceil(d/16) checkpoints
 * one after the other. Only written here; a row's entries are touched when it is built. */
static gnn_status alloc_prefix(gnn_wtable *t, const gnn_csr *g, size_t n)
{
    t->at = gnn_malloc(n * sizeof(int64_t));
    if (!t->at)
        goto fail;
    int64_t total = 0;
    for (int64_t v = 0; v < g->n; v++) {
        const int64_t d = g->indptr[v + 1] - g->indptr[v];
        t->at[v] = d >= GNN_WTABLE_MIN_DEG ? total : -1;
        total += d >= GNN_WTABLE_MIN_DEG ? row_doubles(d) : 0;
    }
    t->prefix = gnn_malloc((total > 0 ? (size_t)total : 1) * sizeof(double));
    if (!t->prefix)
        goto fail;
    return GNN_OK;
fail:
    gnn_free(t->at);
    t->at = NULL;
    return GNN_ERR_NOMEM;
}

gnn_status gnn_wtable_bind(gnn_wtable *t, const gnn_csr *g, const float *w, uint64_t version, int draws,
                           int64_t n_seeds)
{
    const uint64_t fp = gnn_sample_weights_fingerprint(w, g->nnz);
    const size_t n = g->n > 0 ? (size_t)g->n : 1;
    if (t->g != g) { /* another graph (never, for one sampler object): start again */
        gnn_wtable_free(t);
        t->g = g;
    }
    if (!t->npos) {
        t->npos = gnn_malloc(n * sizeof(int64_t));
        if (!t->npos) {
            gnn_wtable_free(t);
            return GNN_ERR_NOMEM;
        }
        memset(t->npos, 0xff, n * sizeof(int64_t)); /* -1: not validated */
        t->w = w;
        t->version = version;
        t->fp = fp;
    }
    gnn_status st;
    if (draws && !t->prefix && (st = alloc_prefix(t, g, n)))
        return st;
    if (t->w != w || t->version != version || t->fp != fp) { /* other weights: nothing cached holds */
        memset(t->npos, 0xff, n * sizeof(int64_t));
        if (t->at) { /* every long row back to "not built" */
#pragma omp parallel for schedule(static)
            for (int64_t v = 0; v < g->n; v++)
                if (t->at[v] >= 0)
                    t->at[v] &= GNN_WT_OFFSET;
        }
        t->w = w;
        t->version = version;
        t->fp = fp;
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
        /* one atomic word per row; a repeated seed's copies store the same count */
        __atomic_store_n(&t->npos[seeds[i]], t->fresh[i], __ATOMIC_RELEASE);
    }
}

const double *gnn_wtable_checkpoints_row(gnn_wtable *t, int64_t v)
{
    int64_t e;
    const gnn_wt_claim c = gnn_wtable_claim_row(&t->at[v], &e);
    if (c == GNN_WT_CLAIM_SHORT || c == GNN_WT_CLAIM_BUSY)
        return NULL; /* a short row (its sums are cheap to build per call), or another thread
                      * builds it (a repeated seed) */
    double *row = t->prefix + (e & GNN_WT_OFFSET);
    if (c == GNN_WT_CLAIM_READY)
        return row;
    const int64_t b = t->g->indptr[v];
    const int64_t d = t->g->indptr[v + 1] - b, nb = (d + GNN_WCK_BLOCK - 1) / GNN_WCK_BLOCK;
    gnn_cpu_weighted_checkpoints(t->w + b, d, row);
    gnn_cpu_weighted_guide(row, nb, (int32_t *)(row + nb));
    gnn_wtable_publish_row(&t->at[v], e);
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
    /* draws: by inversion of the row's prefix sums, from the table's checkpoints or, for a
     * short row (or one another thread is building), the full sums computed per call */
    const double *ck = gnn_wtable_checkpoints_row(t, v);
    gnn_wrow row;
    if (ck) {
        row = gnn_wrow_checkpoints(ck, (const int32_t *)(ck + (d + GNN_WCK_BLOCK - 1) / GNN_WCK_BLOCK), w, adj, d);
    } else {
        if (gnn_wscratch_reserve(scr, d))
            return -1;
        gnn_cpu_weighted_prefix(w, d, scr->prefix);
        row = gnn_wrow_prefix(scr->prefix, w, adj, d);
    }
    if (p->replace) {
        gnn_cpu_weighted_draws(adj, &row, s, count, out);
        return 0;
    }
    if (gnn_wscratch_reserve(scr, count) || gnn_wscratch_reserve_bits(scr, d))
        return -1;
    gnn_cpu_weighted_successive(adj, &row, s, count, out, scr); /* P > k */
    return 0;
}
