/* opt/cuda/aggregate_body.h -- the kernel bodies of the Memory-Aware aggregation (FastGL
 * Sec. 4.2; next-capabilities.md B.2; docs/cuda.md), compiled as CUDA by opt/cuda/aggregate.cu
 * and as C11 by opt/cuda/aggregate_emu.c.
 *
 * The gather kernel: a block holds GNN_AGG_TY targets x GNN_AGG_TX feature dimensions
 * (8 x 32 = 256 threads, the paper's X = 8, Y = 32; threadIdx.x runs over features so that a
 * warp reads 32 consecutive floats of one row). One thread accumulates one feature of one
 * target, edge by edge in CSR order, starting from 0.0f: each output element sees exactly
 * ref's additions in ref's order (include/gnnref/aggregate.h), so the result is bitwise
 * ref's. The target's edges are staged in shared memory GNN_AGG_E at a time, with their
 * coefficient computed once per edge (the paper's "weights in shared memory"), and the
 * partial sums live in shared memory (the paper's design; each slot is only ever touched by
 * its own thread). Phases: 2k loads chunk k of each target's edges (phase 0 also zeroes the
 * partial sums), 2k + 1 adds it, 2c stores a target whose c chunks are done; the block runs
 * 2 max c + 1 phases. Differences from FastGL's kernel (B.2): a target with no edges gets a
 * zero row (FastGL copies its own row), and the backward is this same gather over the
 * transposed edge list (FastGL scatters with atomics: a nondeterministic order).
 *
 * The same gather serves every op: forward mean/sum/GCN/weighted over the block's CSR, and
 * the backward over the by-source list (t_ptr, t_dst, t_coef) that aggregate_host.h builds
 * with a stable radix sort, so each dx[u] adds its edges in the order "by v, then edge
 * position" that ref's scatter follows. */
#ifndef GNNREF_OPT_CUDA_AGGREGATE_BODY_H
#define GNNREF_OPT_CUDA_AGGREGATE_BODY_H

#include "opt/cuda/kbase.h"

#define GNN_AGG_TX 32 /* feature dimensions per block (threadIdx.x): the paper's Y */
#define GNN_AGG_TY 8  /* targets per block (threadIdx.y): the paper's X */
#define GNN_AGG_E 32  /* edges of a target staged per round (one per thread of its row) */

enum { GNN_AGGK_PLAIN = 0, GNN_AGGK_MEAN = 1, GNN_AGGK_EDGE = 2, GNN_AGGK_GCN = 3 };

typedef struct gnn_agg_gather_args {
    const int64_t *ptr;   /* (rows + 1) CSR offsets */
    const int32_t *idx;   /* (nnz) the row read by each edge */
    const float *ecoef;   /* EDGE: (nnz) the coefficient of each edge */
    const float *scoef;   /* GCN: (rows of x) 1/sqrt(ds(u)) */
    const float *x;       /* (rows of x, d) */
    float *out;           /* (rows, d) */
    int64_t rows, d;
    int mode;             /* PLAIN: sum; MEAN: sum * (1/deg); EDGE: sum of x * ecoef[e];
                             GCN: sum of x * (scoef[u] * (1/sqrt(deg))) */
} gnn_agg_gather_args;

/* edges of target row r (0 past the end) */
static inline GNN_HD int64_t gnn_agg_deg(const gnn_agg_gather_args *a, int64_t r)
{
    return r < a->rows ? a->ptr[r + 1] - a->ptr[r] : 0;
}

static inline GNN_HD int gnn_agg_gather_phases(const gnn_kthread *t, const gnn_agg_gather_args *a)
{
    int64_t most = 0;
    for (unsigned k = 0; k < GNN_AGG_TY; k++) {
        const int64_t c = (gnn_agg_deg(a, (int64_t)t->block.x * GNN_AGG_TY + k) + GNN_AGG_E - 1) / GNN_AGG_E;
        most = c > most ? c : most;
    }
    return (int)(2 * most + 1);
}

/* shared: acc[TY][TX] float, sidx[TY][E] int32, scoef[TY][E] float */
#define GNN_AGG_GATHER_SHARED (GNN_AGG_TY * GNN_AGG_TX * 4 + 2 * GNN_AGG_TY * GNN_AGG_E * 4)

static inline GNN_HD void gnn_agg_gather_body(const gnn_kthread *t, int phase, void *shared,
                                              const gnn_agg_gather_args *a)
{
    float *acc = (float *)shared;
    int32_t *sidx = (int32_t *)(acc + GNN_AGG_TY * GNN_AGG_TX);
    float *scf = (float *)(sidx + GNN_AGG_TY * GNN_AGG_E);
    const unsigned tx = t->thread.x, ty = t->thread.y;
    const int64_t r = (int64_t)t->block.x * GNN_AGG_TY + ty, f = (int64_t)t->block.y * GNN_AGG_TX + tx;
    const int64_t deg = gnn_agg_deg(a, r), chunks = (deg + GNN_AGG_E - 1) / GNN_AGG_E, k = phase / 2;
    float *my = &acc[ty * GNN_AGG_TX + tx];
    if (k > chunks)
        return; /* this target is done; the block's others are not */
    if ((phase & 1) == 0) {
        if (phase == 0)
            *my = 0.0f;
        if (k < chunks) { /* stage chunk k: edge k E + tx of this target */
            const int64_t e = k * GNN_AGG_E + tx;
            if (e < deg) {
                const int64_t i = a->ptr[r] + e;
                const int32_t u = a->idx[i];
                float c = 1.0f;
                if (a->mode == GNN_AGGK_EDGE) {
                    c = a->ecoef[i];
                } else if (a->mode == GNN_AGGK_GCN) {
                    const float inv_dd = GNN_FDIV(1.0f, GNN_FSQRT((float)deg));
                    c = GNN_FMUL(a->scoef[u], inv_dd); /* c_e, as ref: 1/sqrt(ds) * 1/sqrt(dd) */
                }
                sidx[ty * GNN_AGG_E + tx] = u;
                scf[ty * GNN_AGG_E + tx] = c;
            }
        } else if (r < a->rows && f < a->d) { /* k == chunks: all added */
            float v = *my;
            if (a->mode == GNN_AGGK_MEAN && deg > 0)
                v = GNN_FMUL(v, GNN_FDIV(1.0f, (float)deg));
            a->out[r * a->d + f] = v;
        }
        return;
    }
    if (k >= chunks || f >= a->d)
        return;
    /* add chunk k, in edge order */
    const int64_t m = deg - k * GNN_AGG_E < GNN_AGG_E ? deg - k * GNN_AGG_E : GNN_AGG_E;
    const int32_t *su = &sidx[ty * GNN_AGG_E];
    const float *sc = &scf[ty * GNN_AGG_E];
    float s = *my;
    if (a->mode == GNN_AGGK_PLAIN || a->mode == GNN_AGGK_MEAN) {
        for (int64_t j = 0; j < m; j++)
            s = GNN_FADD(s, a->x[(int64_t)su[j] * a->d + f]);
    } else {
        for (int64_t j = 0; j < m; j++)
            s = GNN_FADD(s, GNN_FMUL(a->x[(int64_t)su[j] * a->d + f], sc[j]));
    }
    *my = s;
}
GNN_KERNEL(gnn_agg_gather, gnn_agg_gather_args)

/* ---- ds(u): edges of the block whose src is u (integer atomics: any order gives the same
 * counts), then 1/sqrt(ds) as ref (0 for a src without edges) */
typedef struct gnn_agg_count_args {
    const int32_t *idx;
    int64_t *cnt;  /* (n_src + 1), zeroed */
    float *inv;    /* (n_src) */
    int64_t nnz, n_src;
} gnn_agg_count_args;

#define GNN_AGG_T1 256 /* threads of the one-element-per-thread kernels */

static inline GNN_HD int gnn_agg_count_phases(const gnn_kthread *t, const gnn_agg_count_args *a)
{
    (void)t;
    (void)a;
    return 1;
}
static inline GNN_HD void gnn_agg_count_body(const gnn_kthread *t, int phase, void *shared, const gnn_agg_count_args *a)
{
    (void)phase;
    (void)shared;
    const int64_t i = (int64_t)t->block.x * GNN_AGG_T1 + t->thread.x;
    if (i < a->nnz)
        gnn_atomic_add_i64(&a->cnt[a->idx[i]], 1);
}
GNN_KERNEL(gnn_agg_count, gnn_agg_count_args)

static inline GNN_HD int gnn_agg_invsqrt_phases(const gnn_kthread *t, const gnn_agg_count_args *a)
{
    (void)t;
    (void)a;
    return 1;
}
static inline GNN_HD void gnn_agg_invsqrt_body(const gnn_kthread *t, int phase, void *shared,
                                               const gnn_agg_count_args *a)
{
    (void)phase;
    (void)shared;
    const int64_t u = (int64_t)t->block.x * GNN_AGG_T1 + t->thread.x;
    if (u < a->n_src)
        a->inv[u] = a->cnt[u] > 0 ? GNN_FDIV(1.0f, GNN_FSQRT((float)a->cnt[u])) : 0.0f;
}
GNN_KERNEL(gnn_agg_invsqrt, gnn_agg_count_args)

/* ---- the transposed list: keys = src of each edge, vals = the edge's index (to be sorted
 * stably by key: each src's edges then come in edge order = by v, then position) */
typedef struct gnn_agg_tr_args {
    const int64_t *indptr; /* the block's (n_dst + 1) */
    const int32_t *idx;    /* the block's (nnz) */
    const float *w;        /* weighted: (nnz) */
    const float *inv_ds;   /* GCN: (n_src) */
    int32_t *keys;
    int64_t *vals;
    int32_t *t_dst;        /* (nnz) */
    float *t_coef;         /* (nnz) */
    int64_t nnz, n_dst;
    int kind;              /* 0 mean, 1 sum, 2 gcn, 3 weighted */
} gnn_agg_tr_args;

static inline GNN_HD int gnn_agg_tr_init_phases(const gnn_kthread *t, const gnn_agg_tr_args *a)
{
    (void)t;
    (void)a;
    return 1;
}
static inline GNN_HD void gnn_agg_tr_init_body(const gnn_kthread *t, int phase, void *shared, const gnn_agg_tr_args *a)
{
    (void)phase;
    (void)shared;
    const int64_t i = (int64_t)t->block.x * GNN_AGG_T1 + t->thread.x;
    if (i < a->nnz) {
        a->keys[i] = a->idx[i];
        a->vals[i] = i;
    }
}
GNN_KERNEL(gnn_agg_tr_init, gnn_agg_tr_args)

/* the row v holding edge i: the last v with indptr[v] <= i (empty rows skipped) */
static inline GNN_HD int64_t gnn_agg_row_of(const int64_t *indptr, int64_t n, int64_t i)
{
    int64_t lo = 0, hi = n; /* first r in [0, n] with indptr[r] > i, minus 1 */
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (indptr[mid] <= i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

/* after the sort: position p of the list holds edge i = vals[p] = (u -> v); its dst and the
 * coefficient ref's scatter multiplies dout[v] by */
static inline GNN_HD int gnn_agg_tr_coef_phases(const gnn_kthread *t, const gnn_agg_tr_args *a)
{
    (void)t;
    (void)a;
    return 1;
}
static inline GNN_HD void gnn_agg_tr_coef_body(const gnn_kthread *t, int phase, void *shared, const gnn_agg_tr_args *a)
{
    (void)phase;
    (void)shared;
    const int64_t p = (int64_t)t->block.x * GNN_AGG_T1 + t->thread.x;
    if (p >= a->nnz)
        return;
    const int64_t i = a->vals[p], v = gnn_agg_row_of(a->indptr, a->n_dst, i);
    const int64_t deg = a->indptr[v + 1] - a->indptr[v];
    float c;
    if (a->kind == 3)
        c = a->w[i];
    else if (a->kind == 0)
        c = GNN_FDIV(1.0f, (float)deg);
    else if (a->kind == 2)
        c = GNN_FMUL(a->inv_ds[a->keys[p]], GNN_FDIV(1.0f, GNN_FSQRT((float)deg)));
    else
        c = 1.0f;
    a->t_dst[p] = (int32_t)v;
    a->t_coef[p] = c;
}
GNN_KERNEL(gnn_agg_tr_coef, gnn_agg_tr_args)

/* ---- weighted backward dw[e] = sum over f in order of dout[v][f] * x[u][f], from 0.0f: one
 * thread per edge (the order of each dot product is the contract) */
typedef struct gnn_agg_dw_args {
    const int64_t *indptr;
    const int32_t *idx;
    const float *x, *dout;
    float *dw;
    int64_t nnz, n_dst, d;
} gnn_agg_dw_args;

static inline GNN_HD int gnn_agg_dw_phases(const gnn_kthread *t, const gnn_agg_dw_args *a)
{
    (void)t;
    (void)a;
    return 1;
}
static inline GNN_HD void gnn_agg_dw_body(const gnn_kthread *t, int phase, void *shared, const gnn_agg_dw_args *a)
{
    (void)phase;
    (void)shared;
    const int64_t i = (int64_t)t->block.x * GNN_AGG_T1 + t->thread.x;
    if (i >= a->nnz)
        return;
    const int64_t v = gnn_agg_row_of(a->indptr, a->n_dst, i);
    const float *g = a->dout + v * a->d, *h = a->x + (int64_t)a->idx[i] * a->d;
    float s = 0.0f;
    for (int64_t f = 0; f < a->d; f++)
        s = GNN_FADD(s, GNN_FMUL(g[f], h[f]));
    a->dw[i] = s;
}
GNN_KERNEL(gnn_agg_dw, gnn_agg_dw_args)

#endif
