/* opt/cpu/commplan.c -- the communication plan in parallel with OpenMP, bit for bit equal to
 * ref/commplan.c (include/gnnref/commplan.h) at any thread count.
 *
 * What changed from the reference, and why the bits still match:
 *   1. the cut edges are grouped with a parallel counting sort into buckets of consecutive pair
 *      ids (at most GNN_COMMPLAN_BUCKETS: the counts grow with the threads, never with k^2; one
 *      of a fixed number of contiguous row chunks per loop iteration counts its buckets, an
 *      exclusive prefix over (bucket, chunk) gives each chunk its write positions) instead of
 *      one qsort over all cut edges; then each bucket is sorted by (pair, u, v) and
 *      deduplicated on its own, buckets in parallel, and a slot is made for each pair found in
 *      it. The result is the reference's: the distinct (pair, u, v) in ascending order,
 *      whatever order the scatter left them in (the sort key is the whole element), and a slot
 *      exactly for each pair with cut edges;
 *   2. the pairs are independent (SuperGCN computes one cover per remote graph): each slot runs
 *      the reference's own per-pair solver, gnn_commplan_pair_ref (the Hopcroft-Karp scan order
 *      and the Konig cover of commplan.h), on its slice, pairs spread over threads with a
 *      dynamic schedule; its rows (ref's gnn_commplan_collect_rows, ref/commplan_impl.h) are
 *      written to per-pair scratch at the pair's edge offset,
 *      then compacted after a prefix sum. Every output element is a function of its pair
 *      alone, so neither the thread count nor the schedule can change a bit.
 * Both prefix sums run serially between parallel regions, whose joins order them
 * (oracle-stress: commplan.build). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/commplan.h"
#include "gnnref/tensor.h"
#include "ref/commplan_impl.h" /* a cut edge and its order, a slot's rows */
#include "opt/cpu/omp_stress.h"
#include "opt/cpu/omp_compat.h"


static void *alloc_n(int64_t count, size_t elem) { return gnn_malloc((size_t)(count > 0 ? count : 1) * elem); }

/* Step 1: the distinct cut edges in (pair, u, v) order into *edges, and the plan's slots
 * (c->n_edges, c->n_pairs, c->pair, c->edge_ptr). A counting sort by bucket, a bucket being
 * `width` consecutive pair ids (at most GNN_COMMPLAN_BUCKETS buckets, so its counts never grow
 * with k^2), then each bucket sorted on the whole key and deduplicated: the concatenation is the
 * reference's order whatever order the scatter left inside a bucket. */
static gnn_status group_cut_edges(const gnn_csr *g, const int32_t *part, gnn_commplan *c, gnn_cut_edge **edges)
{
    const int64_t k = c->k, kk = k * k, n = g->n;
    const int64_t nb = kk < GNN_COMMPLAN_BUCKETS ? kk : GNN_COMMPLAN_BUCKETS;
    const int64_t width = (kk + nb - 1) / nb; /* bucket b: pairs [b * width, (b + 1) * width) */
    const int nt_max = gnn_omp_max_threads();
    int64_t *cnt = gnn_calloc((size_t)nt_max * (size_t)nb + 1, sizeof(int64_t));
    int64_t *start = gnn_calloc((size_t)nb + 1, sizeof(int64_t));
    int64_t *dcount = gnn_calloc((size_t)nb + 1, sizeof(int64_t)); /* distinct edges per bucket */
    int64_t *pcount = gnn_calloc((size_t)nb + 1, sizeof(int64_t)); /* pairs per bucket */
    int64_t *eoff = gnn_calloc((size_t)nb + 1, sizeof(int64_t)), *soff = gnn_calloc((size_t)nb + 1, sizeof(int64_t));
    gnn_cut_edge *buf = NULL;
    gnn_status st = cnt && start && dcount && pcount && eoff && soff ? GNN_OK : GNN_ERR_NOMEM;
    /* nt fixed chunks of rows, one loop iteration each: the chunking does not depend on how many
     * threads the runtime actually gives */
    const int nt_used = nt_max;
    if (st)
        goto done;
#pragma omp parallel for schedule(static, 1)
    for (int t = 0; t < nt_used; t++) {
        const int64_t v0 = n * t / nt_used, v1 = n * (t + 1) / nt_used;
        int64_t *cb = cnt + (size_t)t * (size_t)nb;
        for (int64_t v = v0; v < v1; v++)
            for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
                const int64_t u = g->indices[e];
                if (part[u] != part[v])
                    cb[((int64_t)part[u] * k + part[v]) / width]++;
            }
    }
    /* exclusive prefix over (bucket, chunk) */
    int64_t total = 0;
    for (int64_t b = 0; b < nb; b++) {
        start[b] = total;
        for (int t = 0; t < nt_used; t++) {
            const int64_t x = cnt[(size_t)t * (size_t)nb + b];
            cnt[(size_t)t * (size_t)nb + b] = total;
            total += x;
        }
    }
    start[nb] = total;
    if (!(buf = alloc_n(total, sizeof(gnn_cut_edge)))) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
#pragma omp parallel for schedule(static, 1)
    for (int t = 0; t < nt_used; t++) {
        const int64_t v0 = n * t / nt_used, v1 = n * (t + 1) / nt_used;
        int64_t *at = cnt + (size_t)t * (size_t)nb;
        for (int64_t v = v0; v < v1; v++)
            for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
                const int64_t u = g->indices[e];
                if (part[u] != part[v]) {
                    const int64_t p = (int64_t)part[u] * k + part[v];
                    buf[at[p / width]++] = (gnn_cut_edge){ p, u, v };
                }
            }
    }
    /* each bucket sorted by (pair, u, v) and deduplicated in place; its pairs counted */
#pragma omp parallel for schedule(dynamic, gnn_omp_chunk(1))
    for (int64_t b = 0; b < nb; b++) {
        gnn_cut_edge *s = buf + start[b];
        const int64_t len = start[b + 1] - start[b];
        qsort(s, (size_t)len, sizeof(gnn_cut_edge), gnn_cut_edge_cmp);
        int64_t d = 0, np = 0;
        for (int64_t i = 0; i < len; i++)
            if (d == 0 || gnn_cut_edge_cmp(&s[d - 1], &s[i]) != 0) {
                np += d == 0 || s[d - 1].pair != s[i].pair;
                s[d++] = s[i];
            }
        dcount[b] = d;
        pcount[b] = np;
    }
    for (int64_t b = 0; b < nb; b++) {
        eoff[b + 1] = eoff[b] + dcount[b];
        soff[b + 1] = soff[b] + pcount[b];
    }
    c->n_edges = eoff[nb];
    c->n_pairs = soff[nb];
    *edges = alloc_n(c->n_edges, sizeof(gnn_cut_edge));
    c->pair = alloc_n(c->n_pairs, sizeof(int64_t));
    c->edge_ptr = alloc_n(c->n_pairs + 1, sizeof(int64_t));
    if (!*edges || !c->pair || !c->edge_ptr) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    /* a slot per pair with cut edges, and nothing for the others */
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < nb; b++) {
        const gnn_cut_edge *s = buf + start[b];
        gnn_cut_edge *to = *edges + eoff[b];
        for (int64_t i = 0, slot = soff[b]; i < dcount[b]; i++) {
            to[i] = s[i];
            if (i == 0 || s[i].pair != s[i - 1].pair) {
                c->pair[slot] = s[i].pair;
                c->edge_ptr[slot++] = eoff[b] + i;
            }
        }
    }
    c->edge_ptr[c->n_pairs] = c->n_edges;
done:
    gnn_free(cnt);
    gnn_free(start);
    gnn_free(dcount);
    gnn_free(pcount);
    gnn_free(eoff);
    gnn_free(soff);
    gnn_free(buf);
    return st;
}

static gnn_status build_cpu(const gnn_csr *g, const int32_t *part, int64_t k, gnn_plan_kind kind, gnn_commplan *out)
{
    gnn_commplan c;
    memset(&c, 0, sizeof c);
    c.n = g->n;
    c.k = k;
    c.kind = kind;
    gnn_cut_edge *edges = NULL;
    int64_t *post_s = NULL, *pre_s = NULL, *match_s = NULL, *match_d = NULL;
    int64_t *n_post = NULL, *n_pre = NULL, *n_match = NULL;
    gnn_status st = group_cut_edges(g, part, &c, &edges);
    if (st)
        goto fail;
    const int64_t m = c.n_edges, np = c.n_pairs;
    c.post_ptr = gnn_calloc((size_t)np + 1, sizeof(int64_t));
    c.pre_ptr = gnn_calloc((size_t)np + 1, sizeof(int64_t));
    c.match_ptr = gnn_calloc((size_t)np + 1, sizeof(int64_t));
    n_post = gnn_calloc((size_t)np + 1, sizeof(int64_t));
    n_pre = gnn_calloc((size_t)np + 1, sizeof(int64_t));
    n_match = gnn_calloc((size_t)np + 1, sizeof(int64_t));
    c.edge_src = alloc_n(m, sizeof(int64_t));
    c.edge_dst = alloc_n(m, sizeof(int64_t));
    c.edge_post = alloc_n(m, 1);
    post_s = alloc_n(m, sizeof(int64_t));
    pre_s = alloc_n(m, sizeof(int64_t));
    match_s = alloc_n(m, sizeof(int64_t));
    match_d = alloc_n(m, sizeof(int64_t));
    if (!c.post_ptr || !c.pre_ptr || !c.match_ptr || !n_post || !n_pre || !n_match || !c.edge_src || !c.edge_dst ||
        !c.edge_post || !post_s || !pre_s || !match_s || !match_d) {
        st = GNN_ERR_NOMEM;
        goto fail;
    }
#pragma omp parallel for schedule(static)
    for (int64_t e = 0; e < m; e++) {
        c.edge_src[e] = edges[e].u;
        c.edge_dst[e] = edges[e].v;
    }
    /* Step 2: slots in parallel; each writes only its own slices [e0, e1) of the scratch */
    gnn_status pst = GNN_OK;
#pragma omp parallel for schedule(dynamic, gnn_omp_chunk(1))
    for (int64_t s = 0; s < np; s++) {
        const int64_t e0 = c.edge_ptr[s], e1 = c.edge_ptr[s + 1];
        int64_t nm = 0;
        const gnn_status e = gnn_commplan_pair_ref(c.edge_src + e0, c.edge_dst + e0, e1 - e0, kind,
                                                   c.edge_post + e0, match_s + e0, match_d + e0, &nm);
        if (e) {
#pragma omp atomic write
            pst = e;
            continue;
        }
        n_match[s] = nm;
        gnn_commplan_collect_rows(c.edge_src + e0, c.edge_dst + e0, c.edge_post + e0, e1 - e0, post_s + e0, &n_post[s],
                               pre_s + e0, &n_pre[s]);
    }
    if ((st = pst))
        goto fail;
    /* Step 3: prefix sums, then every slot's rows compacted in parallel */
    for (int64_t s = 0; s < np; s++) {
        c.post_ptr[s + 1] = c.post_ptr[s] + n_post[s];
        c.pre_ptr[s + 1] = c.pre_ptr[s] + n_pre[s];
        c.match_ptr[s + 1] = c.match_ptr[s] + n_match[s];
    }
    c.post_rows = alloc_n(c.post_ptr[np], sizeof(int64_t));
    c.pre_rows = alloc_n(c.pre_ptr[np], sizeof(int64_t));
    c.match_src = alloc_n(c.match_ptr[np], sizeof(int64_t));
    c.match_dst = alloc_n(c.match_ptr[np], sizeof(int64_t));
    if (!c.post_rows || !c.pre_rows || !c.match_src || !c.match_dst) {
        st = GNN_ERR_NOMEM;
        goto fail;
    }
#pragma omp parallel for schedule(static)
    for (int64_t s = 0; s < np; s++) {
        const int64_t e0 = c.edge_ptr[s];
        memcpy(c.post_rows + c.post_ptr[s], post_s + e0, (size_t)n_post[s] * sizeof(int64_t));
        memcpy(c.pre_rows + c.pre_ptr[s], pre_s + e0, (size_t)n_pre[s] * sizeof(int64_t));
        memcpy(c.match_src + c.match_ptr[s], match_s + e0, (size_t)n_match[s] * sizeof(int64_t));
        memcpy(c.match_dst + c.match_ptr[s], match_d + e0, (size_t)n_match[s] * sizeof(int64_t));
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
