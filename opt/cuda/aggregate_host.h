/* opt/cuda/aggregate_host.h -- host logic of the Memory-Aware aggregation: included by
 * opt/cuda/aggregate.cu (a GPU) and opt/cuda/aggregate_emu.c (the emulator), so both run the
 * same sequence of copies and launches (opt/cuda/kbase.h). Inputs and outputs are host
 * arrays; the entry points (core/ops/kernels.c) have checked them. docs/cuda.md. */
#ifndef GNNREF_OPT_CUDA_AGGREGATE_HOST_H
#define GNNREF_OPT_CUDA_AGGREGATE_HOST_H

#include "gnnref/aggregate.h"
#include "opt/cuda/aggregate_body.h"
#include "opt/cuda/scan_host.h"

static inline gnn_kdim agg_k_t1(int64_t n) { return gnn_k_dim(gnn_k_blocks(n, GNN_AGG_T1), 1, 1); }

/* ds(u) counts into cnt (n_src + 1, zeroed here) and, when inv != NULL, 1/sqrt(ds) */
static inline gnn_status agg_k_src_degrees(const int32_t *idx, int64_t nnz, int64_t n_src, int64_t *cnt, float *inv)
{
    gnn_status st = GNN_OK;
    gnn_agg_count_args a;
    a.idx = idx;
    a.cnt = cnt;
    a.inv = inv;
    a.nnz = nnz;
    a.n_src = n_src;
    GNN_K_CHECK(GNN_K_ZERO(cnt, (size_t)(n_src + 1) * sizeof(int64_t)));
    GNN_K_CHECK(GNN_K_LAUNCH(gnn_agg_count, agg_k_t1(nnz), gnn_k_dim(GNN_AGG_T1, 1, 1), 0, a));
    if (inv)
        GNN_K_CHECK(GNN_K_LAUNCH(gnn_agg_invsqrt, agg_k_t1(n_src), gnn_k_dim(GNN_AGG_T1, 1, 1), 0, a));
done:
    return st;
}

/* out (rows, d) = the gather over (ptr, idx) of x, in mode (aggregate_body.h); device pointers */
static inline gnn_status agg_k_gather(const int64_t *ptr, const int32_t *idx, const float *ecoef, const float *scoef,
                               const float *x, float *out, int64_t rows, int64_t d, int mode)
{
    gnn_agg_gather_args a;
    a.ptr = ptr;
    a.idx = idx;
    a.ecoef = ecoef;
    a.scoef = scoef;
    a.x = x;
    a.out = out;
    a.rows = rows;
    a.d = d;
    a.mode = mode;
    return GNN_K_LAUNCH(gnn_agg_gather, gnn_k_dim(gnn_k_blocks(rows, GNN_AGG_TY), gnn_k_blocks(d, GNN_AGG_TX), 1),
                        gnn_k_dim(GNN_AGG_TX, GNN_AGG_TY, 1), GNN_AGG_GATHER_SHARED, a);
}

/* forward: kind MEAN, SUM, GCN, or weighted when w != NULL */
static inline gnn_status agg_k_forward(const gnn_block *blk, const float *x, int64_t d, gnn_agg_kind kind, const float *w,
                                float *out)
{
    const int64_t n_dst = blk->n_dst, n_src = blk->n_src, nnz = blk->nnz;
    gnn_status st = GNN_OK;
    int64_t *d_ptr = NULL, *d_cnt = NULL;
    int32_t *d_idx = NULL;
    float *d_x = NULL, *d_w = NULL, *d_inv = NULL, *d_out = NULL;
    int mode;
    if (n_dst == 0 || d == 0)
        return GNN_OK;
    mode = w ? GNN_AGGK_EDGE : kind == GNN_AGG_GCN ? GNN_AGGK_GCN : kind == GNN_AGG_MEAN ? GNN_AGGK_MEAN : GNN_AGGK_PLAIN;
    GNN_K_CHECK(GNN_K_ALLOC(&d_ptr, (size_t)(n_dst + 1) * sizeof(int64_t)));
    GNN_K_CHECK(GNN_K_ALLOC(&d_idx, (size_t)nnz * sizeof(int32_t)));
    GNN_K_CHECK(GNN_K_ALLOC(&d_x, (size_t)(n_src * d) * sizeof(float)));
    GNN_K_CHECK(GNN_K_ALLOC(&d_out, (size_t)(n_dst * d) * sizeof(float)));
    GNN_K_CHECK(GNN_K_PUT(d_ptr, blk->indptr, (size_t)(n_dst + 1) * sizeof(int64_t)));
    GNN_K_CHECK(GNN_K_PUT(d_idx, blk->indices, (size_t)nnz * sizeof(int32_t)));
    GNN_K_CHECK(GNN_K_PUT(d_x, x, (size_t)(n_src * d) * sizeof(float)));
    if (w) { /* mode EDGE */
        GNN_K_CHECK(GNN_K_ALLOC(&d_w, (size_t)nnz * sizeof(float)));
        GNN_K_CHECK(GNN_K_PUT(d_w, w, (size_t)nnz * sizeof(float)));
    } else if (mode == GNN_AGGK_GCN) {
        GNN_K_CHECK(GNN_K_ALLOC(&d_cnt, (size_t)(n_src + 1) * sizeof(int64_t)));
        GNN_K_CHECK(GNN_K_ALLOC(&d_inv, (size_t)(n_src + 1) * sizeof(float)));
        GNN_K_CHECK(agg_k_src_degrees(d_idx, nnz, n_src, d_cnt, d_inv));
    }
    GNN_K_CHECK(agg_k_gather(d_ptr, d_idx, d_w, d_inv, d_x, d_out, n_dst, d, mode));
    GNN_K_CHECK(GNN_K_SYNC());
    GNN_K_CHECK(GNN_K_GET(out, d_out, (size_t)(n_dst * d) * sizeof(float)));
done:
    GNN_K_FREE(d_ptr);
    GNN_K_FREE(d_cnt);
    GNN_K_FREE(d_idx);
    GNN_K_FREE(d_x);
    GNN_K_FREE(d_w);
    GNN_K_FREE(d_inv);
    GNN_K_FREE(d_out);
    return st;
}

/* backward: dx (n_src, d) as the gather over the transposed list; kind 0 mean, 1 sum, 2 gcn,
 * 3 weighted (w); and dw (weighted; NULL: not asked for) */
static inline gnn_status agg_k_backward(const gnn_block *blk, const float *x, const float *dout, int64_t d, int kind,
                                 const float *w, float *dx, float *dw)
{
    const int64_t n_dst = blk->n_dst, n_src = blk->n_src, nnz = blk->nnz;
    gnn_status st = GNN_OK;
    int64_t *d_ptr = NULL, *d_cnt = NULL, *d_vals = NULL, *d_vals2 = NULL, *vals_res = NULL;
    int32_t *d_idx = NULL, *d_keys = NULL, *d_keys2 = NULL, *keys_res = NULL, *d_tdst = NULL;
    float *d_dout = NULL, *d_x = NULL, *d_w = NULL, *d_inv = NULL, *d_tcoef = NULL, *d_dx = NULL, *d_dw = NULL;
    gnn_agg_tr_args ta;
    gnn_agg_dw_args wa;
    const int need_dx = dx && n_src * d > 0, need_dw = dw && nnz > 0;
    if (!need_dx && !need_dw)
        return GNN_OK;
    GNN_K_CHECK(GNN_K_ALLOC(&d_ptr, (size_t)(n_dst + 1) * sizeof(int64_t)));
    GNN_K_CHECK(GNN_K_ALLOC(&d_idx, (size_t)nnz * sizeof(int32_t)));
    GNN_K_CHECK(GNN_K_ALLOC(&d_dout, (size_t)(n_dst * d) * sizeof(float)));
    GNN_K_CHECK(GNN_K_PUT(d_ptr, blk->indptr, (size_t)(n_dst + 1) * sizeof(int64_t)));
    GNN_K_CHECK(GNN_K_PUT(d_idx, blk->indices, (size_t)nnz * sizeof(int32_t)));
    GNN_K_CHECK(GNN_K_PUT(d_dout, dout, (size_t)(n_dst * d) * sizeof(float)));
    if (w) {
        GNN_K_CHECK(GNN_K_ALLOC(&d_w, (size_t)nnz * sizeof(float)));
        GNN_K_CHECK(GNN_K_PUT(d_w, w, (size_t)nnz * sizeof(float)));
    }
    if (need_dx) {
        /* t_ptr: exclusive scan of ds(u) (n_src + 1 entries, the last 0: t_ptr[n_src] = nnz) */
        GNN_K_CHECK(GNN_K_ALLOC(&d_cnt, (size_t)(n_src + 1) * sizeof(int64_t)));
        if (kind == 2)
            GNN_K_CHECK(GNN_K_ALLOC(&d_inv, (size_t)(n_src + 1) * sizeof(float)));
        GNN_K_CHECK(agg_k_src_degrees(d_idx, nnz, n_src, d_cnt, d_inv));
        GNN_K_CHECK(gnn_k_scan(d_cnt, d_cnt, n_src + 1));
        /* edges sorted stably by src */
        GNN_K_CHECK(GNN_K_ALLOC(&d_keys, (size_t)nnz * sizeof(int32_t)));
        GNN_K_CHECK(GNN_K_ALLOC(&d_keys2, (size_t)nnz * sizeof(int32_t)));
        GNN_K_CHECK(GNN_K_ALLOC(&d_vals, (size_t)nnz * sizeof(int64_t)));
        GNN_K_CHECK(GNN_K_ALLOC(&d_vals2, (size_t)nnz * sizeof(int64_t)));
        GNN_K_CHECK(GNN_K_ALLOC(&d_tdst, (size_t)nnz * sizeof(int32_t)));
        GNN_K_CHECK(GNN_K_ALLOC(&d_tcoef, (size_t)nnz * sizeof(float)));
        ta.indptr = d_ptr;
        ta.idx = d_idx;
        ta.w = d_w;
        ta.inv_ds = d_inv;
        ta.keys = d_keys;
        ta.vals = d_vals;
        ta.t_dst = d_tdst;
        ta.t_coef = d_tcoef;
        ta.nnz = nnz;
        ta.n_dst = n_dst;
        ta.kind = kind;
        GNN_K_CHECK(GNN_K_LAUNCH(gnn_agg_tr_init, agg_k_t1(nnz), gnn_k_dim(GNN_AGG_T1, 1, 1), 0, ta));
        GNN_K_CHECK(gnn_k_sort_pairs(d_keys, d_vals, d_keys2, d_vals2, nnz, (int32_t)(n_src > 0 ? n_src - 1 : 0),
                                     &keys_res, &vals_res));
        ta.keys = keys_res;
        ta.vals = vals_res;
        GNN_K_CHECK(GNN_K_LAUNCH(gnn_agg_tr_coef, agg_k_t1(nnz), gnn_k_dim(GNN_AGG_T1, 1, 1), 0, ta));
        GNN_K_CHECK(GNN_K_ALLOC(&d_dx, (size_t)(n_src * d) * sizeof(float)));
        GNN_K_CHECK(agg_k_gather(d_cnt, d_tdst, d_tcoef, NULL, d_dout, d_dx, n_src, d, GNN_AGGK_EDGE));
    }
    if (need_dw) {
        GNN_K_CHECK(GNN_K_ALLOC(&d_x, (size_t)(n_src * d) * sizeof(float)));
        GNN_K_CHECK(GNN_K_PUT(d_x, x, (size_t)(n_src * d) * sizeof(float)));
        GNN_K_CHECK(GNN_K_ALLOC(&d_dw, (size_t)nnz * sizeof(float)));
        wa.indptr = d_ptr;
        wa.idx = d_idx;
        wa.x = d_x;
        wa.dout = d_dout;
        wa.dw = d_dw;
        wa.nnz = nnz;
        wa.n_dst = n_dst;
        wa.d = d;
        GNN_K_CHECK(GNN_K_LAUNCH(gnn_agg_dw, agg_k_t1(nnz), gnn_k_dim(GNN_AGG_T1, 1, 1), 0, wa));
    }
    GNN_K_CHECK(GNN_K_SYNC());
    if (need_dx)
        GNN_K_CHECK(GNN_K_GET(dx, d_dx, (size_t)(n_src * d) * sizeof(float)));
    if (need_dw)
        GNN_K_CHECK(GNN_K_GET(dw, d_dw, (size_t)nnz * sizeof(float)));
done:
    GNN_K_FREE(d_ptr);
    GNN_K_FREE(d_cnt);
    GNN_K_FREE(d_vals);
    GNN_K_FREE(d_vals2);
    GNN_K_FREE(d_idx);
    GNN_K_FREE(d_keys);
    GNN_K_FREE(d_keys2);
    GNN_K_FREE(d_tdst);
    GNN_K_FREE(d_dout);
    GNN_K_FREE(d_x);
    GNN_K_FREE(d_w);
    GNN_K_FREE(d_inv);
    GNN_K_FREE(d_tcoef);
    GNN_K_FREE(d_dx);
    GNN_K_FREE(d_dw);
    return st;
}

/* the table's functions (the same names in both builds; static to each) */
static inline gnn_status agg_k_fwd(const gnn_block *blk, const float *x, int64_t d, gnn_agg_kind kind, float *out)
{
    return agg_k_forward(blk, x, d, kind, NULL, out);
}
static inline gnn_status agg_k_bwd(const gnn_block *blk, const float *dout, int64_t d, gnn_agg_kind kind, float *dx)
{
    return agg_k_backward(blk, NULL, dout, d, kind == GNN_AGG_MEAN ? 0 : kind == GNN_AGG_SUM ? 1 : 2, NULL, dx, NULL);
}
static inline gnn_status agg_k_wfwd(const gnn_block *blk, const float *x, int64_t d, const float *w, float *out)
{
    static const float k_none[1] = { 0.0f }; /* w may be NULL when there are no edges */
    return agg_k_forward(blk, x, d, GNN_AGG_SUM, w ? w : k_none, out);
}
static inline gnn_status agg_k_wbwd(const gnn_block *blk, const float *x, const float *dout, int64_t d, const float *w,
                             float *dx, float *dw)
{
    return agg_k_backward(blk, x, dout, d, 3, w, dx, dw);
}

#endif
