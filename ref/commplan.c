/* ref/commplan.c -- reference communication plan (include/gnnref/commplan.h, docs/commplan.md).
 *
 * Plain C11, no threads: this file is the specification; opt/cpu/commplan.c must give the same
 * plan bit for bit (DESIGN.md section 3: comm plans are compared bitwise). Arguments are checked
 * by the entry point gnn_commplan_build (core/dist/commplan.c).
 *
 * The recipe, @sec{SuperGCN 2} ("Subgraph construction based on a hybrid of pre- and
 * post-aggregation"):
 *   1. the remote graphs: every distinct cut edge u -> v with its pair (part[u], part[v]),
 *      sorted by (pair, u, v); a slot for each pair that has one, and nothing for the others
 *      (the plan is sparse: its memory grows with the cut, never with k^2);
 *   2. per pair, each edge's side (pre or post) by the plan's rule; hybrid: Hopcroft-Karp in
 *      the fixed scan order, then Konig's cover (@alg{SuperGCN 2, lines 1-3}), then
 *      src in cover -> post, else pre (@alg{SuperGCN 2, lines 4-8});
 *   3. the rows: post sources and pre destinations of each pair, ascending. */
#include <stdlib.h>
#include <string.h>
#include "gnnref/commplan.h"
#include "gnnref/tensor.h"
#include "ref/commplan_impl.h" /* a cut edge and its order, a slot's rows */

#define INF INT64_MAX

/* position of x in the sorted a[0..n) (present by construction) */
static int64_t find_sorted(const int64_t *a, int64_t n, int64_t x)
{
    int64_t lo = 0, hi = n;
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (a[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* ---- one pair ------------------------------------------------------------------------------------ */

/* The bipartite graph of one pair over local ids: U = distinct sources in edge order (= ascending,
 * the edges are sorted by (u, v)), W = distinct destinations ascending. u's neighbors are its
 * edges [beg[u], beg[u + 1]), whose W ids adj[e] ascend because v does. */
typedef struct bip {
    int64_t nu, nw, m;
    int64_t *beg;  /* (nu + 1) */
    int64_t *adj;  /* (m) W id of edge e */
    int64_t *wids; /* (nw) global id of W vertex */
    int64_t *uofe; /* (m) U id of edge e */
} bip;

static void bip_free(bip *b)
{
    gnn_free(b->beg);
    gnn_free(b->adj);
    gnn_free(b->wids);
    gnn_free(b->uofe);
}

static gnn_status bip_make(const int64_t *src, const int64_t *dst, int64_t m, bip *b)
{
    memset(b, 0, sizeof *b);
    b->m = m;
    b->beg = gnn_malloc((size_t)(m + 1) * sizeof(int64_t));
    b->adj = gnn_malloc((size_t)(m + 1) * sizeof(int64_t));
    b->wids = gnn_malloc((size_t)(m + 1) * sizeof(int64_t));
    b->uofe = gnn_malloc((size_t)(m + 1) * sizeof(int64_t));
    if (!b->beg || !b->adj || !b->wids || !b->uofe) {
        bip_free(b);
        return GNN_ERR_NOMEM;
    }
    for (int64_t e = 0; e < m; e++) {
        if (e == 0 || src[e] != src[e - 1])
            b->beg[b->nu++] = e;
        b->uofe[e] = b->nu - 1;
    }
    b->beg[b->nu] = m;
    memcpy(b->wids, dst, (size_t)m * sizeof(int64_t));
    qsort(b->wids, (size_t)m, sizeof(int64_t), gnn_cmp_i64);
    for (int64_t e = 0; e < m; e++)
        if (b->nw == 0 || b->wids[e] != b->wids[b->nw - 1])
            b->wids[b->nw++] = b->wids[e];
    for (int64_t e = 0; e < m; e++)
        b->adj[e] = find_sorted(b->wids, b->nw, dst[e]);
    return GNN_OK;
}

/* Hopcroft-Karp in the order commplan.h fixes. mate_u (nu), mate_w (nw): -1 = free. Scratch:
 * dist, it, stack (nu each), queue (nu). Returns the matching size. */
static int64_t hopcroft_karp(const bip *b, int64_t *mate_u, int64_t *mate_w, int64_t *dist, int64_t *it,
                             int64_t *stack, int64_t *queue)
{
    int64_t size = 0;
    for (int64_t u = 0; u < b->nu; u++)
        mate_u[u] = -1;
    for (int64_t w = 0; w < b->nw; w++)
        mate_w[w] = -1;
    for (;;) {
        /* BFS: layers from the free sources, ascending */
        int64_t qh = 0, qt = 0, dist_free = INF;
        for (int64_t u = 0; u < b->nu; u++) {
            dist[u] = mate_u[u] < 0 ? 0 : INF;
            if (mate_u[u] < 0)
                queue[qt++] = u;
        }
        while (qh < qt) {
            const int64_t u = queue[qh++];
            for (int64_t e = b->beg[u]; e < b->beg[u + 1]; e++) {
                const int64_t u2 = mate_w[b->adj[e]];
                if (u2 < 0) {
                    if (dist_free == INF)
                        dist_free = dist[u] + 1;
                } else if (dist[u2] == INF) {
                    dist[u2] = dist[u] + 1;
                    queue[qt++] = u2;
                }
            }
        }
        if (dist_free == INF)
            return size;
        /* DFS from each free source, ascending; neighbors ascending, each once per phase */
        for (int64_t u = 0; u < b->nu; u++)
            it[u] = b->beg[u];
        for (int64_t root = 0; root < b->nu; root++) {
            if (mate_u[root] >= 0)
                continue;
            int64_t top = 0;
            stack[top++] = root;
            while (top > 0) {
                const int64_t u = stack[top - 1];
                if (it[u] == b->beg[u + 1]) { /* exhausted: u is dead for this phase */
                    dist[u] = INF;
                    if (--top > 0)
                        it[stack[top - 1]]++;
                    continue;
                }
                const int64_t u2 = mate_w[b->adj[it[u]]];
                if (u2 < 0 && dist[u] + 1 == dist_free) { /* a shortest augmenting path: flip it */
                    for (int64_t t = top - 1; t >= 0; t--) {
                        const int64_t x = stack[t], w = b->adj[it[x]];
                        mate_u[x] = w;
                        mate_w[w] = x;
                    }
                    size++;
                    break;
                }
                if (u2 >= 0 && dist[u2] != INF && dist[u2] == dist[u] + 1)
                    stack[top++] = u2;
                else
                    it[u]++;
            }
        }
    }
}

/* Konig: in_cover_u[u] = 1 when u is in C (not reached from a free source by an alternating
 * path). reach_w (nw), queue (nu) scratch. */
static void konig(const bip *b, const int64_t *mate_u, const int64_t *mate_w, uint8_t *in_cover_u, uint8_t *reach_w,
                  int64_t *queue)
{
    int64_t qh = 0, qt = 0;
    memset(reach_w, 0, (size_t)b->nw);
    for (int64_t u = 0; u < b->nu; u++) {
        in_cover_u[u] = 1;
        if (mate_u[u] < 0) {
            in_cover_u[u] = 0; /* reached */
            queue[qt++] = u;
        }
    }
    while (qh < qt) {
        const int64_t u = queue[qh++];
        for (int64_t e = b->beg[u]; e < b->beg[u + 1]; e++) {
            const int64_t w = b->adj[e];
            if (reach_w[w])
                continue;
            reach_w[w] = 1;
            const int64_t u2 = mate_w[w]; /* matched: a free w here would be an augmenting path */
            if (u2 >= 0 && in_cover_u[u2]) {
                in_cover_u[u2] = 0;
                queue[qt++] = u2;
            }
        }
    }
}

static gnn_status pair_hybrid(const bip *b, uint8_t *post, int64_t *match_src, int64_t *match_dst, int64_t *n_match)
{
    const int64_t nu = b->nu, nw = b->nw;
    int64_t *mate_u = gnn_malloc((size_t)(nu + 1) * sizeof(int64_t));
    int64_t *mate_w = gnn_malloc((size_t)(nw + 1) * sizeof(int64_t));
    int64_t *scratch = gnn_malloc((size_t)(4 * nu + 1) * sizeof(int64_t));
    uint8_t *cover_u = gnn_malloc((size_t)nu + 1), *reach_w = gnn_malloc((size_t)nw + 1);
    gnn_status st = GNN_ERR_NOMEM;
    if (mate_u && mate_w && scratch && cover_u && reach_w) {
        /* @alg{SuperGCN 2, lines 1-3}: the minimum vertex cover (one matching of the whole B_ij) */
        hopcroft_karp(b, mate_u, mate_w, scratch, scratch + nu, scratch + 2 * nu, scratch + 3 * nu);
        konig(b, mate_u, mate_w, cover_u, reach_w, scratch);
        /* @alg{SuperGCN 2, lines 4-8}: src in the cover -> post, else pre */
        for (int64_t e = 0; e < b->m; e++)
            post[e] = cover_u[b->uofe[e]];
        int64_t q = 0;
        for (int64_t u = 0; u < nu; u++)
            if (mate_u[u] >= 0) {
                match_src[q] = u; /* the U id: the caller turns it into the global id */
                match_dst[q] = b->wids[mate_u[u]];
                q++;
            }
        *n_match = q;
        st = GNN_OK;
    }
    gnn_free(mate_u);
    gnn_free(mate_w);
    gnn_free(scratch);
    gnn_free(cover_u);
    gnn_free(reach_w);
    return st;
}

/* degree: post when outdeg_R(u) > indeg_R(v) (the public code's decide_pre_or_post_aggr) */
static gnn_status pair_degree(const bip *b, uint8_t *post)
{
    int64_t *indeg = gnn_calloc((size_t)b->nw + 1, sizeof(int64_t));
    if (!indeg)
        return GNN_ERR_NOMEM;
    for (int64_t e = 0; e < b->m; e++)
        indeg[b->adj[e]]++;
    for (int64_t e = 0; e < b->m; e++) {
        const int64_t u = b->uofe[e];
        post[e] = (b->beg[u + 1] - b->beg[u]) > indeg[b->adj[e]];
    }
    gnn_free(indeg);
    return GNN_OK;
}

gnn_status gnn_commplan_pair_ref(const int64_t *src, const int64_t *dst, int64_t m, gnn_plan_kind kind, uint8_t *post,
                                 int64_t *match_src, int64_t *match_dst, int64_t *n_match)
{
    if (n_match)
        *n_match = 0;
    if (kind == GNN_PLAN_PRE || kind == GNN_PLAN_POST) {
        memset(post, kind == GNN_PLAN_POST, (size_t)m);
        return GNN_OK;
    }
    bip b;
    gnn_status st = bip_make(src, dst, m, &b);
    if (st)
        return st;
    if (kind == GNN_PLAN_DEGREE) {
        st = pair_degree(&b, post);
    } else {
        st = pair_hybrid(&b, post, match_src, match_dst, n_match);
        for (int64_t q = 0; st == GNN_OK && q < *n_match; q++)
            match_src[q] = src[b.beg[match_src[q]]]; /* U id -> global id */
    }
    bip_free(&b);
    return st;
}

/* ---- the whole plan -------------------------------------------------------------------------- */

static gnn_status alloc_plan(gnn_commplan *c, int64_t n_pairs, int64_t md)
{
    c->pair = gnn_malloc((size_t)(n_pairs + 1) * sizeof(int64_t));
    c->edge_ptr = gnn_calloc((size_t)n_pairs + 1, sizeof(int64_t));
    c->post_ptr = gnn_calloc((size_t)n_pairs + 1, sizeof(int64_t));
    c->pre_ptr = gnn_calloc((size_t)n_pairs + 1, sizeof(int64_t));
    c->match_ptr = gnn_calloc((size_t)n_pairs + 1, sizeof(int64_t));
    c->edge_src = gnn_malloc((size_t)(md + 1) * sizeof(int64_t));
    c->edge_dst = gnn_malloc((size_t)(md + 1) * sizeof(int64_t));
    c->edge_post = gnn_malloc((size_t)md + 1);
    c->post_rows = gnn_malloc((size_t)(md + 1) * sizeof(int64_t));
    c->pre_rows = gnn_malloc((size_t)(md + 1) * sizeof(int64_t));
    c->match_src = gnn_malloc((size_t)(md + 1) * sizeof(int64_t));
    c->match_dst = gnn_malloc((size_t)(md + 1) * sizeof(int64_t));
    return c->pair && c->edge_ptr && c->post_ptr && c->pre_ptr && c->match_ptr && c->edge_src && c->edge_dst &&
                   c->edge_post && c->post_rows && c->pre_rows && c->match_src && c->match_dst
               ? GNN_OK
               : GNN_ERR_NOMEM;
}

/* Slot s's sides (step 2) and rows (step 3); the rows so far are n_post, n_pre, n_match. */
static gnn_status solve_slot(gnn_commplan *c, int64_t s, int64_t *n_post, int64_t *n_pre, int64_t *n_match)
{
    const int64_t e0 = c->edge_ptr[s], e1 = c->edge_ptr[s + 1];
    int64_t nm = 0;
    gnn_status st = gnn_commplan_pair_ref(c->edge_src + e0, c->edge_dst + e0, e1 - e0, c->kind, c->edge_post + e0,
                                          c->match_src + *n_match, c->match_dst + *n_match, &nm);
    if (st)
        return st;
    *n_match += nm;
    c->match_ptr[s + 1] = *n_match;
    /* post sources, each once; pre destinations, ascending, each once */
    int64_t np, nq;
    gnn_commplan_collect_rows(c->edge_src + e0, c->edge_dst + e0, c->edge_post + e0, e1 - e0, c->post_rows + *n_post, &np,
                           c->pre_rows + *n_pre, &nq);
    c->post_ptr[s + 1] = *n_post += np;
    c->pre_ptr[s + 1] = *n_pre += nq;
    return GNN_OK;
}

static gnn_status build_ref(const gnn_csr *g, const int32_t *part, int64_t k, gnn_plan_kind kind, gnn_commplan *out)
{
    gnn_commplan c;
    memset(&c, 0, sizeof c);
    c.n = g->n;
    c.k = k;
    c.kind = kind;
    gnn_status st = GNN_OK;
    /* 1. the cut edges, in (pair, u, v) order, each once */
    const int64_t m = gnn_commplan_count_cut(g, part);
    gnn_cut_edge *cut = gnn_malloc((size_t)(m + 1) * sizeof(gnn_cut_edge));
    if (!cut)
        return GNN_ERR_NOMEM;
    int64_t x = 0;
    for (int64_t v = 0; v < g->n; v++)
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
            const int64_t u = g->indices[e];
            if (part[u] != part[v])
                cut[x++] = (gnn_cut_edge){ (int64_t)part[u] * k + part[v], u, v };
        }
    qsort(cut, (size_t)m, sizeof(gnn_cut_edge), gnn_cut_edge_cmp);
    int64_t md = 0, n_pairs = 0;
    for (int64_t e = 0; e < m; e++)
        if (md == 0 || gnn_cut_edge_cmp(&cut[md - 1], &cut[e]) != 0) {
            n_pairs += md == 0 || cut[md - 1].pair != cut[e].pair;
            cut[md++] = cut[e];
        }
    /* a slot per pair with cut edges, and nothing for the others: memory grows with the cut */
    c.n_edges = md;
    c.n_pairs = n_pairs;
    if ((st = alloc_plan(&c, n_pairs, md)))
        goto fail;
    for (int64_t e = 0, s = -1; e < md; e++) {
        if (e == 0 || cut[e].pair != cut[e - 1].pair) {
            c.pair[++s] = cut[e].pair;
            c.edge_ptr[s] = e;
        }
        c.edge_src[e] = cut[e].u;
        c.edge_dst[e] = cut[e].v;
    }
    c.edge_ptr[n_pairs] = md;
    /* 2. each pair's sides, and 3. its rows */
    int64_t n_post = 0, n_pre = 0, n_match = 0;
    for (int64_t s = 0; s < n_pairs; s++)
        if ((st = solve_slot(&c, s, &n_post, &n_pre, &n_match)))
            goto fail;
    gnn_free(cut);
    *out = c;
    return GNN_OK;
fail:
    gnn_free(cut);
    gnn_commplan_free(&c);
    return st;
}

const gnn_commplan_ops gnn_commplan_ref = { .name = "ref", .caps = 0, .build = build_ref };
