/* opt/cpu/gat.c -- OpenMP/SIMD graph attention (include/gnnref/gat.h).
 *
 * Against ref/gat.c:
 *  - el, er: rows in parallel; each logit is still one scalar f-ascending dot product.
 *  - forward: dst rows split among threads by nonzeros (chunks of about equal edge counts, so
 *    hub rows do not stall one thread). A row's softmax is the reference's own function
 *    (gnn_gat_softmax_row, ref/gat_impl.h) on the same values, so alpha is bitwise.
 *    The aggregation keeps each output's additions in CSR order but vectorizes across the
 *    features of a row in register blocks of GAT_FB floats: for each edge the H attention
 *    scalars are broadcast over their heads' F features into one GAT_FB-wide vector
 *    (DistGNN-MB section 3.3, "Broadcast Support for AGG"), then acc += att * z[u] runs as a
 *    SIMD multiply-add over all heads at once, also when F is small (1, 7, 13). out is bitwise.
 *  - backward: a per-dst pass (same split) computes datt, the softmax backward and the
 *    LeakyReLU backward exactly as the reference, storing att and dpre per edge and der per
 *    row. The edges are then transposed by a stable counting sort on src (order: v, then edge
 *    position: the reference's scatter order) and each dz[u] and del[u] is gathered by one
 *    thread in that order, no atomics: dz is bitwise.
 *  - dal, dar (sums over all rows): the reference's one running sum per column, rows in
 *    order, with the threads splitting the columns instead of the rows: bitwise. (An earlier
 *    version summed fixed chunks of 256 rows and then the partials; it was thread-count
 *    independent but not the reference's order, and the training oracle, which claims bitwise,
 *    failed as soon as a block had more than 256 rows.)
 * The public entry points (core/ops/kernels.c) check the arguments, the block's structure and its
 * src ids first (the cpu bodies used to scan them in parallel; the entry point does so on
 * large blocks): these bodies assume valid input. */
#include <math.h>
#include <string.h>
#include "gnnref/aggregate.h" /* GNN_CAP_* */
#include "gnnref/gat.h"
#include "gnnref/rng.h"
#include "gnnref/tensor.h"
#include "opt/cpu/chunks.h"
#include "opt/cpu/omp_compat.h"
#include "ref/gat_impl.h" /* ref's dot product, LeakyReLU, edge softmax and its backward */

#define GAT_FB 64          /* floats per register block of a feature row */
#define GAT_RED_COLS 16    /* columns of dal / dar per thread task: one 64-byte line */

static void gat_logits(const float *z, const float *a, int64_t n, int64_t H, int64_t F, float *el)
{
#pragma omp parallel for schedule(static)
    for (int64_t u = 0; u < n; u++)
        for (int64_t h = 0; h < H; h++)
            el[u * H + h] = gnn_gat_dot(z + (u * H + h) * F, a + h * F, F); /* one f-ascending dot: scalar */
}

/* Dropout multipliers of row v (the reference's gat_drop_row), one Philox block per four. */
static void drop_row(const gnn_gat_params *p, int64_t v, int64_t deg, float *mk)
{
    const int64_t cnt = deg * p->heads;
    if (p->attn_drop == 0.0f) {
        for (int64_t i = 0; i < cnt; i++)
            mk[i] = 1.0f;
        return;
    }
    const float scale = 1.0f / (1.0f - p->attn_drop), q = p->attn_drop;
    const uint64_t id = p->dst_gid ? (uint64_t)p->dst_gid[v] : (uint64_t)v;
    const gnn_rng_stream s = gnn_rng_stream_make(p->seed, GNN_TAG_ATTN_DROPOUT, p->step, p->layer, id);
    uint32_t w[4];
    for (int64_t i = 0; i < cnt; i++) {
        if (i % 4 == 0)
            gnn_rng_block(&s, (uint32_t)(i / 4), w);
        const float u = (float)(w[i % 4] >> 8) * (1.0f / 16777216.0f);
        mk[i] = u >= q ? scale : 0.0f;
    }
}

/* bc[k] = w[(c0 + k) / F] for k < cb: the head scalars broadcast over their features. */
static void broadcast_heads(const float *w, int64_t F, int64_t c0, int64_t cb, float *bc)
{
    int64_t h = c0 / F, k = 0;
    int64_t next = (h + 1) * F - c0; /* first k of the next head */
    while (k < cb) {
        const int64_t end = next < cb ? next : cb;
        const float s = w[h];
        for (; k < end; k++)
            bc[k] = s;
        h++;
        next += F;
    }
}

static int64_t max_degree(const int64_t *ptr, int64_t n)
{
    int64_t m = 0;
#pragma omp parallel for schedule(static) reduction(max : m)
    for (int64_t v = 0; v < n; v++)
        if (ptr[v + 1] - ptr[v] > m)
            m = ptr[v + 1] - ptr[v];
    return m;
}

/* @eq{GAT 1-4}, @eq{DistGNN-MB 2}, as gat_forward_ref; the broadcast of each head's scalar
 * over its features is @sec{DistGNN-MB 3.3}, "Broadcast Support for AGG". */
static gnn_status gat_forward_cpu(const gnn_block *blk, const float *z, const float *al, const float *ar,
                                  const gnn_gat_params *p, float *out, float *alpha)
{
    const int64_t H = p->heads, F = p->f, HF = H * F, n_dst = blk->n_dst, nnz = blk->nnz;
    const int64_t dmax = max_degree(blk->indptr, n_dst);
    float *el = gnn_malloc((size_t)(blk->n_src * H) * sizeof(float));
    float *er = gnn_malloc((size_t)(n_dst * H) * sizeof(float));
    if (!el || !er) {
        gnn_free(el);
        gnn_free(er);
        return GNN_ERR_NOMEM;
    }
    gat_logits(z, al, blk->n_src, H, F, el);
    gat_logits(z, ar, n_dst, H, F, er);
    const int64_t chunks = (int64_t)gnn_omp_max_threads() * 8;
    int nomem = 0;
#pragma omp parallel reduction(| : nomem)
    {
        float *a = gnn_malloc((size_t)(dmax * H) * sizeof(float));
        float *mk = gnn_malloc((size_t)(dmax * H) * sizeof(float));
        if (!a || !mk)
            nomem = 1;
#pragma omp for schedule(dynamic, 1)
        for (int64_t c = 0; c < chunks; c++) {
            if (!a || !mk)
                continue;
            int64_t r0, r1;
            gnn_chunk_rows(blk->indptr, n_dst, nnz, c, chunks, &r0, &r1);
            for (int64_t v = r0; v < r1; v++) {
                const int64_t b = blk->indptr[v], e = blk->indptr[v + 1], deg = e - b;
                gnn_gat_softmax_row(blk, el, er, H, p->slope, v, a);
                if (alpha)
                    memcpy(alpha + b * H, a, (size_t)(deg * H) * sizeof(float));
                if (p->attn_drop != 0.0f) {
                    drop_row(p, v, deg, mk);
                    for (int64_t i = 0; i < deg * H; i++)
                        a[i] = a[i] * mk[i];
                }
                if (HF == 0)
                    continue;
                float *out_v = out + v * HF;
                for (int64_t c0 = 0; c0 < HF; c0 += GAT_FB) {
                    const int64_t cb = HF - c0 < GAT_FB ? HF - c0 : GAT_FB;
                    float acc[GAT_FB], bc[GAT_FB];
#pragma omp simd
                    for (int64_t k = 0; k < cb; k++)
                        acc[k] = 0.0f;
                    for (int64_t i = 0; i < deg; i++) {
                        const float *z_u = z + (int64_t)blk->indices[b + i] * HF + c0;
                        broadcast_heads(a + i * H, F, c0, cb, bc);
#pragma omp simd
                        for (int64_t k = 0; k < cb; k++)
                            acc[k] += bc[k] * z_u[k];
                    }
                    memcpy(out_v + c0, acc, (size_t)cb * sizeof(float));
                }
            }
        }
        gnn_free(a);
        gnn_free(mk);
    }
    gnn_free(el);
    gnn_free(er);
    return nomem ? GNN_ERR_NOMEM : GNN_OK;
}

/* dst[k] = sum over rows r ascending of g[r*H + k/F] * z[r*HF + k], from 0.0f: the reference's
 * one running sum per column, so the result is bitwise. The parallelism is across columns, not
 * rows: each thread owns blocks of GAT_RED_COLS columns and runs every row of them in order
 * (splitting the rows would regroup the sum). */
static void reduce_rows(const float *g, const float *z, int64_t n, int64_t H, int64_t F, float *dst)
{
    const int64_t HF = H * F, nblk = (HF + GAT_RED_COLS - 1) / GAT_RED_COLS;
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < nblk; b++) {
        const int64_t c0 = b * GAT_RED_COLS, cb = HF - c0 < GAT_RED_COLS ? HF - c0 : GAT_RED_COLS;
        float acc[GAT_RED_COLS], bc[GAT_RED_COLS];
#pragma omp simd
        for (int64_t k = 0; k < cb; k++)
            acc[k] = 0.0f;
        for (int64_t r = 0; r < n; r++) {
            broadcast_heads(g + r * H, F, c0, cb, bc);
            const float *z_r = z + r * HF + c0;
#pragma omp simd
            for (int64_t k = 0; k < cb; k++)
                acc[k] += bc[k] * z_r[k];
        }
        memcpy(dst + c0, acc, (size_t)cb * sizeof(float));
    }
}

/* The backward pass's inputs and the per-row and per-edge arrays its steps hand on. */
typedef struct gat_bwd {
    const gnn_block *blk;
    const gnn_gat_params *p;
    const float *z;     /* (n_src, H*F) */
    const float *al;    /* (H*F) */
    const float *ar;    /* (H*F) */
    const float *alpha; /* (nnz, H) */
    const float *dout;  /* (n_dst, H*F) */
    int64_t H, F, HF, chunks;
    float *el, *er;     /* (n_src, H), (n_dst, H) logits */
    float *del, *der;   /* (n_src, H), (n_dst, H) */
    float *att, *dpre;  /* (nnz, H) dropped attention and LeakyReLU backward per edge */
    int64_t *t_ptr;     /* (n_src + 1) transposed offsets */
    int64_t *t_edge;    /* (nnz) edge position of each transposed entry */
    int32_t *t_dst;     /* (nnz) its dst row */
} gat_bwd;

/* Dst row v: datt, the softmax and LeakyReLU backward exactly as the reference; att and dpre
 * per edge, der per row. mk, dp: (deg, H) scratch */
static void backward_dst_row(const gat_bwd *w, int64_t v, float *mk, float *dp)
{
    const gnn_block *blk = w->blk;
    const int64_t H = w->H, F = w->F, HF = w->HF;
    const float *alpha = w->alpha;
    const int64_t b = blk->indptr[v], e = blk->indptr[v + 1];
    const float *dout_v = w->dout + v * HF;
    drop_row(w->p, v, e - b, mk);
    for (int64_t i = b; i < e; i++) {
        const float *z_u = w->z + (int64_t)blk->indices[i] * HF;
        for (int64_t h = 0; h < H; h++) {
            const int64_t j = (i - b) * H + h;
            const float datt = gnn_gat_dot(dout_v + h * F, z_u + h * F, F);
            dp[j] = datt * mk[j];
            w->att[i * H + h] = alpha[i * H + h] * mk[j];
        }
    }
    for (int64_t h = 0; h < H; h++) {
        float dot = 0.0f;
        for (int64_t i = b; i < e; i++)
            dot += alpha[i * H + h] * dp[(i - b) * H + h];
        float acc = 0.0f;
        for (int64_t i = b; i < e; i++) {
            const int64_t u = blk->indices[i];
            const float pre = w->el[u * H + h] + w->er[v * H + h];
            const float g = gnn_gat_dpre(alpha[i * H + h], dp[(i - b) * H + h], dot, pre, w->p->slope);
            acc += g;
            w->dpre[i * H + h] = g;
        }
        w->der[v * H + h] = acc;
    }
}

/* per dst row (chunks of about equal edge counts): backward_dst_row; returns nonzero when a
 * thread's scratch could not be allocated */
static int backward_dst_pass(const gat_bwd *w)
{
    const gnn_block *blk = w->blk;
    const int64_t dmax = max_degree(blk->indptr, blk->n_dst), chunks = w->chunks;
    int nomem = 0;
#pragma omp parallel reduction(| : nomem)
    {
        float *mk = gnn_malloc((size_t)(dmax * w->H) * sizeof(float));
        float *dp = gnn_malloc((size_t)(dmax * w->H) * sizeof(float));
        if (!mk || !dp)
            nomem = 1;
#pragma omp for schedule(dynamic, 1)
        for (int64_t c = 0; c < chunks; c++) {
            if (!mk || !dp)
                continue;
            int64_t r0, r1;
            gnn_chunk_rows(blk->indptr, blk->n_dst, blk->nnz, c, chunks, &r0, &r1);
            for (int64_t v = r0; v < r1; v++)
                backward_dst_row(w, v, mk, dp);
        }
        gnn_free(mk);
        gnn_free(dp);
    }
    return nomem;
}

/* stable transpose by src: for each u its edges in order (v, edge position), the reference's
 * scatter order. t_ptr arrives zeroed */
static void transpose_by_src(const gnn_block *blk, int64_t *t_ptr, int64_t *t_edge, int32_t *t_dst)
{
    const int64_t n_src = blk->n_src, n_dst = blk->n_dst, nnz = blk->nnz;
    for (int64_t i = 0; i < nnz; i++)
        t_ptr[blk->indices[i] + 1]++;
    for (int64_t u = 0; u < n_src; u++)
        t_ptr[u + 1] += t_ptr[u];
    for (int64_t v = 0; v < n_dst; v++)
        for (int64_t i = blk->indptr[v]; i < blk->indptr[v + 1]; i++) {
            const int64_t at = t_ptr[blk->indices[i]]++;
            t_edge[at] = i;
            t_dst[at] = (int32_t)v;
        }
    for (int64_t u = n_src; u > 0; u--)
        t_ptr[u] = t_ptr[u - 1];
    t_ptr[0] = 0;
}

/* Src row u: del[u] and dz[u], each sum in the transposed order (the reference's), then the
 * del * al and (u < n_dst) der * ar terms last, as the reference adds them */
static void gather_src_row(const gat_bwd *w, int64_t u, float *dz)
{
    const int64_t H = w->H, F = w->F, HF = w->HF;
    const int64_t b = w->t_ptr[u], e = w->t_ptr[u + 1];
    for (int64_t h = 0; h < H; h++) {
        float g = 0.0f;
        for (int64_t t = b; t < e; t++)
            g += w->dpre[w->t_edge[t] * H + h];
        w->del[u * H + h] = g;
    }
    float *dz_u = dz + u * HF;
    for (int64_t c0 = 0; c0 < HF; c0 += GAT_FB) {
        const int64_t cb = HF - c0 < GAT_FB ? HF - c0 : GAT_FB;
        float acc[GAT_FB], bc[GAT_FB];
#pragma omp simd
        for (int64_t k = 0; k < cb; k++)
            acc[k] = 0.0f;
        for (int64_t t = b; t < e; t++) {
            const float *dout_v = w->dout + (int64_t)w->t_dst[t] * HF + c0;
            broadcast_heads(w->att + w->t_edge[t] * H, F, c0, cb, bc);
#pragma omp simd
            for (int64_t k = 0; k < cb; k++)
                acc[k] += bc[k] * dout_v[k];
        }
        broadcast_heads(w->del + u * H, F, c0, cb, bc);
#pragma omp simd
        for (int64_t k = 0; k < cb; k++)
            acc[k] += bc[k] * w->al[c0 + k];
        if (u < w->blk->n_dst) {
            broadcast_heads(w->der + u * H, F, c0, cb, bc);
#pragma omp simd
            for (int64_t k = 0; k < cb; k++)
                acc[k] += bc[k] * w->ar[c0 + k];
        }
        memcpy(dz_u + c0, acc, (size_t)cb * sizeof(float));
    }
}

static gnn_status gat_backward_cpu(const gnn_block *blk, const float *z, const float *al, const float *ar,
                                   const gnn_gat_params *p, const float *alpha, const float *dout, float *dz,
                                   float *dal, float *dar)
{
    const int64_t H = p->heads, F = p->f, HF = H * F;
    const int64_t n_src = blk->n_src, n_dst = blk->n_dst, nnz = blk->nnz;
    if (HF == 0)
        return GNN_OK; /* zero-width features: dz, dal and dar are empty */
    gat_bwd w = { .blk = blk, .p = p, .z = z, .al = al, .ar = ar, .alpha = alpha, .dout = dout,
                  .H = H, .F = F, .HF = HF, .chunks = (int64_t)gnn_omp_max_threads() * 8 };
    w.el = gnn_malloc((size_t)(n_src * H) * sizeof(float));
    w.er = gnn_malloc((size_t)(n_dst * H) * sizeof(float));
    w.del = gnn_malloc((size_t)(n_src * H) * sizeof(float));
    w.der = gnn_malloc((size_t)(n_dst * H) * sizeof(float));
    w.att = gnn_malloc((size_t)(nnz * H) * sizeof(float));
    w.dpre = gnn_malloc((size_t)(nnz * H) * sizeof(float));
    w.t_ptr = gnn_calloc((size_t)n_src + 1, sizeof(int64_t));
    w.t_edge = gnn_malloc((size_t)nnz * sizeof(int64_t));
    w.t_dst = gnn_malloc((size_t)nnz * sizeof(int32_t));
    int nomem = !w.el || !w.er || !w.del || !w.der || !w.att || !w.dpre || !w.t_ptr || !w.t_edge || !w.t_dst;
    if (!nomem) {
        gat_logits(z, al, n_src, H, F, w.el);
        gat_logits(z, ar, n_dst, H, F, w.er);
        nomem = backward_dst_pass(&w);
    }
    if (!nomem) {
        transpose_by_src(blk, w.t_ptr, w.t_edge, w.t_dst);
        /* gather dz[u] and del[u], one thread per src row, in the transposed order */
        const int64_t chunks = w.chunks;
#pragma omp parallel for schedule(dynamic, 1)
        for (int64_t c = 0; c < chunks; c++) {
            int64_t r0, r1;
            gnn_chunk_rows(w.t_ptr, n_src, nnz, c, chunks, &r0, &r1);
            for (int64_t u = r0; u < r1; u++)
                gather_src_row(&w, u, dz);
        }
        reduce_rows(w.del, z, n_src, H, F, dal);
        reduce_rows(w.der, z, n_dst, H, F, dar);
    }
    gnn_free(w.el);
    gnn_free(w.er);
    gnn_free(w.del);
    gnn_free(w.der);
    gnn_free(w.att);
    gnn_free(w.dpre);
    gnn_free(w.t_ptr);
    gnn_free(w.t_edge);
    gnn_free(w.t_dst);
    return nomem ? GNN_ERR_NOMEM : GNN_OK;
}

const gnn_gat_ops gnn_gat_cpu = {
    .name = "cpu",
    .caps = GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED,
    .forward = gat_forward_cpu,
    .backward = gat_backward_cpu,
};
