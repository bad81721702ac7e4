/* opt/cpu/commplan.c -- the communication plan in parallel with OpenMP, bit for bit equal to
 * ref/commplan.c (include/gnnref/commplan.h) at any thread count.
 *
 * What changed from the reference, and why the bits still match:
 *   1. the cut edges are grouped by pair with a parallel counting sort (one of a fixed number of
 *      contiguous row chunks per loop iteration counts its pairs, an exclusive prefix over
 *      (pair, chunk) gives each chunk its write positions) instead of one qsort over all cut edges; then each pair's edges are
 *      sorted by (u, v) and deduplicated on their own, pairs in parallel. The result is the
 *      reference's: the distinct (u, v) of a pair in ascending order, whatever order the scatter
 *      left them in (the sort key is the whole element);
 *   2. the pairs are independent (SuperGCN computes one cover per remote graph): each pair runs
 *      the reference's own per-pair solver, gnn_commplan_pair_ref (the Hopcroft-Karp scan order
 *      and the Konig cover of commplan.h), on its slice, pairs spread over threads with a
 *      dynamic schedule; its rows are written to per-pair scratch at the pair's edge offset,
 *      then compacted after a prefix sum. Every output element is a function of its pair
 *      alone, so neither the thread count nor the schedule can change a bit.
 * Both prefix sums run serially between parallel regions, whose joins order them
 * (oracle-stress: commplan.build). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/commplan.h"
#include "gnnref/tensor.h"
#include "opt/cpu/omp_stress.h"
#ifdef GNN_HAVE_OPENMP
#include <omp.h>
#define MAX_THREADS() omp_get_max_threads()
#else
#define MAX_THREADS() 1
#endif

typedef struct uv {
    int64_t u, v;
} uv;

static int cmp_uv(const void *a, const void *b)
{
    const uv *x = a, *y = b;
    if (x->u != y->u)
        return x->u < y->u ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void *alloc_n(int64_t count, size_t elem) { return gnn_malloc((size_t)(count > 0 ? count : 1) * elem); }

/* Step 1: the cut edges grouped by pair (ptr, kk + 1), each pair's sorted and distinct, packed
 * into *edges; *m their count. */
static gnn_status group_cut_edges(const gnn_csr *g, const int32_t *part, int64_t k, int64_t *ptr, uv **edges,
                                  int64_t *m)
{
    const int64_t kk = k * k, n = g->n;
    const int nt_max = MAX_THREADS();
    int64_t *cnt = gnn_calloc((size_t)nt_max * (size_t)kk + 1, sizeof(int64_t));
    int64_t *start = gnn_calloc((size_t)kk + 1, sizeof(int64_t));
    int64_t *dcount = gnn_calloc((size_t)kk + 1, sizeof(int64_t));
    uv *buf = NULL;
    gnn_status st = cnt && start && dcount ? GNN_OK : GNN_ERR_NOMEM;
    /* nt fixed chunks of rows, one loop iteration each: the chunking does not depend on how many
     * threads the runtime actually gives */
    const int nt_used = nt_max;
    if (st)
        goto done;
#pragma omp parallel for schedule(static, 1)
    for (int t = 0; t < nt_used; t++) {
        const int64_t v0 = n * t / nt_used, v1 = n * (t + 1) / nt_used;
        int64_t *c = cnt + (size_t)t * (size_t)kk;
        for (int64_t v = v0; v < v1; v++)
            for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
                const int64_t u = g->indices[e];
                if (part[u] != part[v])
                    c[(int64_t)part[u] * k + part[v]]++;
            }
    }
    /* exclusive prefix over (pair, thread) */
    int64_t total = 0;
    for (int64_t p = 0; p < kk; p++) {
        start[p] = total;
        for (int t = 0; t < nt_used; t++) {
            const int64_t x = cnt[(size_t)t * (size_t)kk + p];
            cnt[(size_t)t * (size_t)kk + p] = total;
            total += x;
        }
    }
    start[kk] = total;
    buf = alloc_n(total, sizeof(uv));
    if (!buf) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
#pragma omp parallel for schedule(static, 1)
    for (int t = 0; t < nt_used; t++) {
        const int64_t v0 = n * t / nt_used, v1 = n * (t + 1) / nt_used;
        int64_t *at = cnt + (size_t)t * (size_t)kk;
        for (int64_t v = v0; v < v1; v++)
            for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
                const int64_t u = g->indices[e];
                if (part[u] != part[v])
                    buf[at[(int64_t)part[u] * k + part[v]]++] = (uv){ u, v };
            }
    }
    /* each pair sorted by (u, v) and deduplicated in place */
#pragma omp parallel for schedule(dynamic, gnn_omp_chunk(1))
    for (int64_t p = 0; p < kk; p++) {
        uv *s = buf + start[p];
        const int64_t len = start[p + 1] - start[p];
        qsort(s, (size_t)len, sizeof(uv), cmp_uv);
        int64_t d = 0;
        for (int64_t i = 0; i < len; i++)
            if (d == 0 || cmp_uv(&s[d - 1], &s[i]) != 0)
                s[d++] = s[i];
        dcount[p] = d;
    }
    ptr[0] = 0;
    for (int64_t p = 0; p < kk; p++)
        ptr[p + 1] = ptr[p] + dcount[p];
    *m = ptr[kk];
    *edges = alloc_n(*m, sizeof(uv));
    if (!*edges) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
#pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < kk; p++)
        memcpy(*edges + ptr[p], buf + start[p], (size_t)dcount[p] * sizeof(uv));
done:
    gnn_free(cnt);
    gnn_free(start);
    gnn_free(dcount);
    gnn_free(buf);
    return st;
}

static gnn_status build_cpu(const gnn_csr *g, const int32_t *part, int64_t k, gnn_plan_kind kind, gnn_commplan *out)
{
    const int64_t kk = k * k;
    gnn_commplan c;
    memset(&c, 0, sizeof c);
    c.n = g->n;
    c.k = k;
    c.kind = kind;
    uv *edges = NULL;
    int64_t *post_s = NULL, *pre_s = NULL, *match_s = NULL, *match_d = NULL;
    int64_t *n_post = NULL, *n_pre = NULL, *n_match = NULL;
    c.edge_ptr = gnn_calloc((size_t)kk + 1, sizeof(int64_t));
    c.post_ptr = gnn_calloc((size_t)kk + 1, sizeof(int64_t));
    c.pre_ptr = gnn_calloc((size_t)kk + 1, sizeof(int64_t));
    c.match_ptr = gnn_calloc((size_t)kk + 1, sizeof(int64_t));
    n_post = gnn_calloc((size_t)kk + 1, sizeof(int64_t));
    n_pre = gnn_calloc((size_t)kk + 1, sizeof(int64_t));
    n_match = gnn_calloc((size_t)kk + 1, sizeof(int64_t));
    gnn_status st = c.edge_ptr && c.post_ptr && c.pre_ptr && c.match_ptr && n_post && n_pre && n_match
                        ? GNN_OK : GNN_ERR_NOMEM;
    int64_t m = 0;
    if (st || (st = group_cut_edges(g, part, k, c.edge_ptr, &edges, &m)))
        goto fail;
    c.n_edges = m;
    c.edge_src = alloc_n(m, sizeof(int64_t));
    c.edge_dst = alloc_n(m, sizeof(int64_t));
    c.edge_post = alloc_n(m, 1);
    post_s = alloc_n(m, sizeof(int64_t));
    pre_s = alloc_n(m, sizeof(int64_t));
    match_s = alloc_n(m, sizeof(int64_t));
    match_d = alloc_n(m, sizeof(int64_t));
    if (!c.edge_src || !c.edge_dst || !c.edge_post || !post_s || !pre_s || !match_s || !match_d) {
        st = GNN_ERR_NOMEM;
        goto fail;
    }
#pragma omp parallel for schedule(static)
    for (int64_t e = 0; e < m; e++) {
        c.edge_src[e] = edges[e].u;
        c.edge_dst[e] = edges[e].v;
    }
    /* Step 2: pairs in parallel; each writes only its own slices [e0, e1) of the scratch */
    gnn_status pst = GNN_OK;
#pragma omp parallel for schedule(dynamic, gnn_omp_chunk(1))
    for (int64_t p = 0; p < kk; p++) {
        const int64_t e0 = c.edge_ptr[p], e1 = c.edge_ptr[p + 1];
        if (e1 == e0)
            continue;
        int64_t nm = 0;
        const gnn_status s = gnn_commplan_pair_ref(c.edge_src + e0, c.edge_dst + e0, e1 - e0, kind,
                                                   c.edge_post + e0, match_s + e0, match_d + e0, &nm);
        if (s) {
#pragma omp atomic write
            pst = s;
            continue;
        }
        n_match[p] = nm;
        int64_t np = 0, nq = 0;
        for (int64_t e = e0; e < e1; e++) { /* post sources: adjacent in (u, v) order */
            if (c.edge_post[e] && (np == 0 || post_s[e0 + np - 1] != c.edge_src[e]))
                post_s[e0 + np++] = c.edge_src[e];
            if (!c.edge_post[e])
                pre_s[e0 + nq++] = c.edge_dst[e];
        }
        qsort(pre_s + e0, (size_t)nq, sizeof(int64_t), cmp_i64);
        int64_t q = 0;
        for (int64_t i = 0; i < nq; i++)
            if (q == 0 || pre_s[e0 + q - 1] != pre_s[e0 + i])
                pre_s[e0 + q++] = pre_s[e0 + i];
        n_post[p] = np;
        n_pre[p] = q;
    }
    if ((st = pst))
        goto fail;
    /* Step 3: prefix sums, then every pair's rows compacted in parallel */
    for (int64_t p = 0; p < kk; p++) {
        c.post_ptr[p + 1] = c.post_ptr[p] + n_post[p];
        c.pre_ptr[p + 1] = c.pre_ptr[p] + n_pre[p];
        c.match_ptr[p + 1] = c.match_ptr[p] + n_match[p];
    }
    c.post_rows = alloc_n(c.post_ptr[kk], sizeof(int64_t));
    c.pre_rows = alloc_n(c.pre_ptr[kk], sizeof(int64_t));
    c.match_src = alloc_n(c.match_ptr[kk], sizeof(int64_t));
    c.match_dst = alloc_n(c.match_ptr[kk], sizeof(int64_t));
    if (!c.post_rows || !c.pre_rows || !c.match_src || !c.match_dst) {
        st = GNN_ERR_NOMEM;
        goto fail;
    }
#pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < kk; p++) {
        const int64_t e0 = c.edge_ptr[p];
        memcpy(c.post_rows + c.post_ptr[p], post_s + e0, (size_t)n_post[p] * sizeof(int64_t));
        memcpy(c.pre_rows + c.pre_ptr[p], pre_s + e0, (size_t)n_pre[p] * sizeof(int64_t));
        memcpy(c.match_src + c.match_ptr[p], match_s + e0, (size_t)n_match[p] * sizeof(int64_t));
        memcpy(c.match_dst + c.match_ptr[p], match_d + e0, (size_t)n_match[p] * sizeof(int64_t));
    }
    *out = c;
    c = (gnn_commplan){ 0 };
fail:
    gnn_commplan_free(&c);
    gnn_free(edges);
    gnn_free(post_s);
    gnn_free(pre_s);
    gnn_free(match_s);
    gnn_free(match_d);
    gnn_free(n_post);
    gnn_free(n_pre);
    gnn_free(n_match);
    return st;
}

const gnn_commplan_ops gnn_commplan_cpu = { .name = "cpu", .caps = 0, .build = build_cpu };
