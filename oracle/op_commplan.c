/* oracle/op_commplan.c -- oracle entries for SuperGCN's communication plan (include/gnnref/commplan.h,
 * docs/commplan.md, next-capabilities.md A.2 and A.8).
 *
 *   commplan.build   bitwise: every implementation (ref against itself, cpu at 1, 2 and 4
 *                    threads) against the reference, for each of the four plans (pre, post,
 *                    hybrid, degree): every pair's cut edges, their sides, the post and pre rows
 *                    and the hybrid matching, every bit;
 *   commplan.verify  verify: each implementation's four plans through a checker written as a
 *                    different algorithm: the slots are the pairs with cut edges, in ascending
 *                    pair id, none empty and never a rank with itself (a plan is sparse: its
 *                    memory grows with the cut, not with k^2), the same in all four plans;
 *                    the cut edges of every pair found by scanning each
 *                    row's cut sources (sorted per row, counted distinct) and looking every plan
 *                    edge up in g; the rows are exactly the sources of post edges and the
 *                    destinations of pre edges (so post rows u pre rows is a vertex cover of the
 *                    pair); pre rows = |W_ij|, post rows = |U_ij| by a naive distinct count;
 *                    degree follows its rule; hybrid: its matching is a matching of the pair's
 *                    edges with |matching| = rows (a cover and a matching of the same size: both
 *                    optimal, Konig), and that size equals the maximum matching of Kuhn's simple
 *                    augmenting-path algorithm; hybrid <= min(pre, post) and <= degree for every
 *                    pair; on a graph whose cut edges are symmetric, total pre rows = total post
 *                    rows (the symmetric-graph identity, the paper's table: pre = post).
 *
 * Inputs: gen=0 R-MAT (Graph500: a hub, isolated vertices), 1 SBM (4 classes), 2 a star (vertex
 * 0 joined both ways to every other vertex), 3 no edges at all; 2^scale vertices; directed=1
 * drops each in-edge with probability 1/4 (cut edges no longer symmetric), repeats the first
 * in-edge of every seventh row and appends a self-loop to every fifth (repeated edges count
 * once). The part vector: gnn_partition_assign (0 random, 1 range, 2 hash, 3 metis) into
 * k - empty parts, spread over k so that `empty` parts (odd ranks first) own nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/commplan.h"
#include "gnnref/oracle.h"
#include "gnnref/partition.h"
#include "gnnref/tensor.h"
#include "core/base/cmp.h"

static const gnn_oracle_impl k_cp_ref = { .name = "ref", .ops = &gnn_commplan_ref, .flags = 0 };
static const gnn_oracle_impl k_cp_cpu = { .name = "cpu", .ops = &gnn_commplan_cpu, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_cp_impls[] = { &k_cp_ref, &k_cp_cpu, NULL };

enum { C_GEN, C_SCALE, C_EF, C_K, C_METHOD, C_EMPTY, C_DIRECTED, N_C_PARAMS };
static const gnn_oracle_param k_cp_params[N_C_PARAMS] = {
    { "gen", GNN_PARAM_INT, 0, 3, "graph: 0 R-MAT, 1 SBM (4 classes), 2 star, 3 no edges" },
    { "scale", GNN_PARAM_INT, 0, 16, "2^scale vertices" },
    { "ef", GNN_PARAM_INT, 1, 64, "edge factor (R-MAT) or average degree (SBM)" },
    { "k", GNN_PARAM_INT, 1, 1024, "ranks (parts)" },
    { "method", GNN_PARAM_INT, 0, 3, "part vector: 0 random, 1 range, 2 hash, 3 metis" },
    { "empty", GNN_PARAM_INT, 0, 1023, "parts that own nothing (the vector uses k - empty parts)" },
    { "directed", GNN_PARAM_INT, 0, 1, "1: drop 1/4 of the in-edges, add self-loops and repeated edges" },
};

/* 1-5 and 8 ranks; one rank (no cut edge); empty parts; stars (one vertex in every pair);
 * no edges; a directed multigraph; METIS and the other methods; pairs past a few thousand edges */
static const char *const k_cp_presets[] = {
    "gen=0,scale=8,ef=8,k=4,method=3,empty=0,directed=0",
    "gen=1,scale=8,ef=6,k=2,method=3,empty=0,directed=0",
    "gen=0,scale=9,ef=4,k=3,method=0,empty=0,directed=1",
    "gen=1,scale=7,ef=6,k=5,method=2,empty=0,directed=0",
    "gen=0,scale=8,ef=8,k=8,method=3,empty=0,directed=1",
    "gen=1,scale=6,ef=4,k=1,method=3,empty=0,directed=0",
    "gen=0,scale=6,ef=4,k=8,method=0,empty=3,directed=1",
    "gen=2,scale=6,ef=1,k=4,method=0,empty=0,directed=0",
    "gen=2,scale=5,ef=1,k=8,method=1,empty=2,directed=1",
    "gen=3,scale=5,ef=1,k=4,method=0,empty=0,directed=0",
    "gen=0,scale=2,ef=2,k=8,method=2,empty=5,directed=1",
    "gen=1,scale=10,ef=8,k=2,method=0,empty=0,directed=0",
    "gen=0,scale=11,ef=8,k=8,method=0,empty=0,directed=1",
    NULL,
};

static void free_csr(void *p) { gnn_csr_free(p); }
static void free_plan(void *p) { gnn_commplan_free(p); }

typedef struct cp_input {
    const gnn_csr *g;
    int32_t *part;
    int64_t k;
} cp_input;

/* gen 2 (star) and 3 (no edges), n = 2^scale */
static gnn_status small_graph(gnn_oracle_ctx *ctx, int gen, int64_t n, gnn_csr *out)
{
    const int64_t m = gen == 2 ? 2 * (n - 1) : 0;
    int64_t *src = gnn_oracle_alloc(ctx, (size_t)(m + 1) * sizeof(int64_t));
    int64_t *dst = gnn_oracle_alloc(ctx, (size_t)(m + 1) * sizeof(int64_t));
    if (!src || !dst)
        return GNN_ERR_NOMEM;
    for (int64_t v = 1, e = 0; gen == 2 && v < n; v++) {
        src[e] = 0, dst[e++] = v;
        src[e] = v, dst[e++] = 0;
    }
    gnn_status st = gnn_csr_from_edges(out, n, m, src, dst, 0, NULL);
    if (!st)
        gnn_oracle_defer(ctx, free_csr, out);
    return st;
}

static gnn_oracle_outcome make_input(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, cp_input *in)
{
    const int gen = (int)gnn_oracle_int(c, C_GEN), scale = (int)gnn_oracle_int(c, C_SCALE);
    const int64_t ef = gnn_oracle_int(c, C_EF), k = gnn_oracle_int(c, C_K), empty = gnn_oracle_int(c, C_EMPTY);
    if (empty >= k)
        return gnn_oracle_fail(ctx, "invalid case: empty=%lld needs k > empty", (long long)empty);
    if (gen <= 1) {
        const gnn_csr *cg = NULL;
        gnn_oracle_outcome go = gnn_oracle_case_graph(ctx, gen, scale, ef, c->seed * 0x9E3779B97F4A7C15ull + 41, &cg);
        if (go != GNN_ORACLE_PASS)
            return go;
        in->g = cg;
    } else {
        gnn_csr *sg = gnn_oracle_alloc(ctx, sizeof *sg);
        if (!sg || small_graph(ctx, gen, (int64_t)1 << scale, sg))
            return gnn_oracle_fail(ctx, "out of memory");
        in->g = sg;
    }
    if (gnn_oracle_int(c, C_DIRECTED)) {
        gnn_csr *m = gnn_oracle_alloc(ctx, sizeof *m);
        if (!m || gnn_oracle_case_multigraph(ctx, c, in->g, m))
            return gnn_oracle_fail(ctx, "out of memory");
        in->g = m;
    }
    const int64_t n = in->g->n, kk = k - empty;
    if (kk > n)
        return gnn_oracle_fail(ctx, "invalid case: k - empty = %lld parts for %lld vertices", (long long)kk,
                               (long long)n);
    in->k = k;
    in->part = gnn_oracle_alloc(ctx, ((size_t)n + 1) * sizeof(int32_t));
    int32_t *slot = gnn_oracle_alloc(ctx, (size_t)k * sizeof(int32_t));
    char *is_empty = gnn_oracle_alloc(ctx, (size_t)k);
    if (!in->part || !slot || !is_empty)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_part_options o;
    gnn_part_defaults(&o);
    static const gnn_part_method methods[4] = { GNN_PART_RANDOM, GNN_PART_RANGE, GNN_PART_HASH, GNN_PART_METIS };
    o.method = methods[gnn_oracle_int(c, C_METHOD)];
    o.k = kk;
    o.seed = c->seed;
    gnn_err err = { "" };
    gnn_status st = gnn_partition_assign(in->g, NULL, &o, in->part, NULL, &err);
    if (st)
        return gnn_oracle_fail(ctx, "gnn_partition_assign (%s, k = %lld): %s (%s)", gnn_part_method_name(o.method),
                               (long long)kk, gnn_status_str(st), err.msg);
    int64_t marked = 0;
    for (int64_t p = 1; p < k && marked < empty; p += 2, marked++)
        is_empty[p] = 1;
    for (int64_t p = 0; p < k && marked < empty; p += 2)
        if (!is_empty[p]) {
            is_empty[p] = 1;
            marked++;
        }
    for (int64_t p = 0, q = 0; p < k; p++)
        if (!is_empty[p])
            slot[q++] = (int32_t)p;
    for (int64_t v = 0; v < n; v++)
        in->part[v] = slot[in->part[v]];
    return GNN_ORACLE_PASS;
}

/* Build one plan with ops into memory owned by the case. */
static gnn_oracle_outcome build(gnn_oracle_ctx *ctx, const gnn_commplan_ops *ops, const char *who,
                                const cp_input *in, gnn_plan_kind kind, gnn_commplan **out)
{
    gnn_commplan *P = gnn_oracle_alloc(ctx, sizeof *P);
    if (!P)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_err err = { "" };
    const gnn_status st = gnn_commplan_build(ops, in->g, in->part, in->k, kind, P, &err);
    gnn_oracle_defer(ctx, free_plan, P);
    *out = P;
    if (st != GNN_OK && st != GNN_ERR_UNSUPPORTED)
        return gnn_oracle_fail(ctx, "%s (%s plan): %s (%s)", who, gnn_plan_kind_name(kind), gnn_status_str(st),
                               err.msg);
    return gnn_oracle_status(ctx, who, st);
}

static void digest_plan(gnn_oracle_ctx *ctx, const gnn_commplan *P)
{
    const int64_t np = P->n_pairs;
    gnn_oracle_digest(ctx, P->pair, (size_t)np * sizeof(int64_t));
    gnn_oracle_digest(ctx, P->edge_ptr, (size_t)(np + 1) * sizeof(int64_t));
    gnn_oracle_digest(ctx, P->edge_src, (size_t)P->n_edges * sizeof(int64_t));
    gnn_oracle_digest(ctx, P->edge_dst, (size_t)P->n_edges * sizeof(int64_t));
    gnn_oracle_digest(ctx, P->edge_post, (size_t)P->n_edges);
    gnn_oracle_digest(ctx, P->post_ptr, (size_t)(np + 1) * sizeof(int64_t));
    gnn_oracle_digest(ctx, P->post_rows, (size_t)P->post_ptr[np] * sizeof(int64_t));
    gnn_oracle_digest(ctx, P->pre_ptr, (size_t)(np + 1) * sizeof(int64_t));
    gnn_oracle_digest(ctx, P->pre_rows, (size_t)P->pre_ptr[np] * sizeof(int64_t));
    gnn_oracle_digest(ctx, P->match_ptr, (size_t)(np + 1) * sizeof(int64_t));
    gnn_oracle_digest(ctx, P->match_src, (size_t)P->match_ptr[np] * sizeof(int64_t));
    gnn_oracle_digest(ctx, P->match_dst, (size_t)P->match_ptr[np] * sizeof(int64_t));
}

/* ---- commplan.build: bitwise against the reference ------------------------------------------------- */

static gnn_oracle_outcome cmp_arr(gnn_oracle_ctx *ctx, const char *kind, const char *what, const int64_t *a,
                                  const int64_t *b, int64_t count)
{
    char name[96];
    snprintf(name, sizeof name, "%s.%s", kind, what);
    return gnn_oracle_compare_int(ctx, name, a, b, count, 8);
}

static gnn_oracle_outcome build_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    cp_input in;
    gnn_oracle_outcome o = make_input(ctx, c, &in);
    if (o != GNN_ORACLE_PASS)
        return o;
    for (int kind = 0; kind < GNN_PLAN_COUNT && o == GNN_ORACLE_PASS; kind++) {
        gnn_commplan *R = NULL, *I = NULL;
        const char *kn = gnn_plan_kind_name((gnn_plan_kind)kind);
        if ((o = build(ctx, c->entry->ref->ops, "ref", &in, (gnn_plan_kind)kind, &R)) != GNN_ORACLE_PASS ||
            (o = build(ctx, c->impl->ops, "impl", &in, (gnn_plan_kind)kind, &I)) != GNN_ORACLE_PASS)
            return o;
        digest_plan(ctx, I);
        if (I->n_edges != R->n_edges || I->n_pairs != R->n_pairs || I->k != R->k || I->n != R->n ||
            I->kind != R->kind)
            return gnn_oracle_fail(ctx, "%s: n_edges %lld, n_pairs %lld, k %lld, n %lld (ref %lld, %lld, %lld, %lld)",
                                   kn, (long long)I->n_edges, (long long)I->n_pairs, (long long)I->k, (long long)I->n,
                                   (long long)R->n_edges, (long long)R->n_pairs, (long long)R->k, (long long)R->n);
        const int64_t np = R->n_pairs;
        o = cmp_arr(ctx, kn, "pair", R->pair, I->pair, np);
        o = gnn_oracle_worst(o, cmp_arr(ctx, kn, "edge_ptr", R->edge_ptr, I->edge_ptr, np + 1));
        o = gnn_oracle_worst(o, cmp_arr(ctx, kn, "post_ptr", R->post_ptr, I->post_ptr, np + 1));
        o = gnn_oracle_worst(o, cmp_arr(ctx, kn, "pre_ptr", R->pre_ptr, I->pre_ptr, np + 1));
        o = gnn_oracle_worst(o, cmp_arr(ctx, kn, "match_ptr", R->match_ptr, I->match_ptr, np + 1));
        if (o != GNN_ORACLE_PASS)
            return o;
        o = cmp_arr(ctx, kn, "edge_src", R->edge_src, I->edge_src, R->n_edges);
        o = gnn_oracle_worst(o, cmp_arr(ctx, kn, "edge_dst", R->edge_dst, I->edge_dst, R->n_edges));
        for (int64_t e = 0; e < R->n_edges && o == GNN_ORACLE_PASS; e++)
            if (R->edge_post[e] != I->edge_post[e])
                o = gnn_oracle_fail(ctx, "%s.edge_post[%lld] (edge %lld -> %lld): ref %d impl %d", kn, (long long)e,
                                    (long long)R->edge_src[e], (long long)R->edge_dst[e], R->edge_post[e],
                                    I->edge_post[e]);
        o = gnn_oracle_worst(o, cmp_arr(ctx, kn, "post_rows", R->post_rows, I->post_rows, R->post_ptr[np]));
        o = gnn_oracle_worst(o, cmp_arr(ctx, kn, "pre_rows", R->pre_rows, I->pre_rows, R->pre_ptr[np]));
        o = gnn_oracle_worst(o, cmp_arr(ctx, kn, "match_src", R->match_src, I->match_src, R->match_ptr[np]));
        o = gnn_oracle_worst(o, cmp_arr(ctx, kn, "match_dst", R->match_dst, I->match_dst, R->match_ptr[np]));
    }
    return o;
}

/* ---- commplan.verify: a checker written differently -------------------------------------------- */

/* is x in the ascending a[0..n)? */
static int in_sorted(const int64_t *a, int64_t n, int64_t x)
{
    const int64_t *p = bsearch(&x, a, (size_t)n, sizeof(int64_t), gnn_cmp_i64);
    return p != NULL;
}

/* is (u, v) among the (u, v)-sorted edges [e0, e1) of P? */
static int has_edge(const gnn_commplan *P, int64_t e0, int64_t e1, int64_t u, int64_t v)
{
    const int64_t end = e1;
    while (e0 < e1) {
        const int64_t mid = e0 + (e1 - e0) / 2;
        if (P->edge_src[mid] < u || (P->edge_src[mid] == u && P->edge_dst[mid] < v))
            e0 = mid + 1;
        else
            e1 = mid;
    }
    return e0 < end && P->edge_src[e0] == u && P->edge_dst[e0] == v;
}

typedef struct kuhn {
    const gnn_commplan *P;
    int64_t e0, e1;
    int64_t *grp;   /* (groups + 1) edge range of each source group */
    int64_t *mate;  /* (n) global v -> source group, or -1 */
    int64_t *seen;  /* (n) global v -> stamp */
    int64_t stamp;
} kuhn;

/* Kuhn's augmenting path from source group s (recursive: depth <= the matching size) */
static int kuhn_try(kuhn *K, int64_t s)
{
    for (int64_t e = K->grp[s]; e < K->grp[s + 1]; e++) {
        const int64_t v = K->P->edge_dst[e];
        if (K->seen[v] == K->stamp)
            continue;
        K->seen[v] = K->stamp;
        if (K->mate[v] < 0 || kuhn_try(K, K->mate[v])) {
            K->mate[v] = s;
            return 1;
        }
    }
    return 0;
}

#define BAD(...) return gnn_oracle_fail(ctx, __VA_ARGS__)

/* One slot of a plan under check: its pair i -> j (pid = i k + j), its edges [e0, e1) and
 * its post and pre rows. */
typedef struct cp_slot {
    int64_t p, pid, i, j, e0, e1;
    const int64_t *post, *pre; /* (npost), (npre) ascending vertex ids */
    int64_t npost, npre;
} cp_slot;

static cp_slot slot_of(const gnn_commplan *P, int64_t k, int64_t p)
{
    cp_slot S;
    S.p = p;
    S.pid = P->pair[p];
    S.i = S.pid / k;
    S.j = S.pid % k;
    S.e0 = P->edge_ptr[p];
    S.e1 = P->edge_ptr[p + 1];
    S.post = P->post_rows + P->post_ptr[p];
    S.pre = P->pre_rows + P->pre_ptr[p];
    S.npost = P->post_ptr[p + 1] - P->post_ptr[p];
    S.npre = P->pre_ptr[p + 1] - P->pre_ptr[p];
    return S;
}

/* 1. the number of distinct cut edges: each row's cut sources sorted, counted distinct, and
 * compared with the plan's total. row: (nnz + 1) scratch. */
static gnn_oracle_outcome check_cut_count(gnn_oracle_ctx *ctx, const cp_input *in, const gnn_commplan *P,
                                          const char *kn, int64_t *row)
{
    const gnn_csr *g = in->g;
    int64_t distinct = 0;
    for (int64_t v = 0; v < g->n; v++) {
        int64_t r = 0;
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++)
            if (in->part[g->indices[e]] != in->part[v])
                row[r++] = g->indices[e];
        qsort(row, (size_t)r, sizeof(int64_t), gnn_cmp_i64);
        for (int64_t i = 0; i < r; i++)
            distinct += i == 0 || row[i] != row[i - 1];
    }
    if (distinct != P->n_edges)
        BAD("%s: the plan lists %lld cut edges, the graph has %lld distinct ones", kn, (long long)P->n_edges,
            (long long)distinct);
    return GNN_ORACLE_PASS;
}

/* 2a. the slots: one per pair with cut edges, in ascending pair id, never the diagonal, never
 * empty (nothing is stored for a pair without cut edges); 2. every edge: a real edge of g, of
 * this pair, in strictly increasing (u, v). */
static gnn_oracle_outcome check_slot_edges(gnn_oracle_ctx *ctx, const cp_input *in, const gnn_commplan *P,
                                           const char *kn, const cp_slot *S)
{
    const gnn_csr *g = in->g;
    const int64_t n = g->n, kk = in->k * in->k, p = S->p, pid = S->pid, i = S->i, j = S->j;
    const int64_t e0 = S->e0, e1 = S->e1;
    if (pid < 0 || pid >= kk || (p > 0 && pid <= P->pair[p - 1]))
        BAD("%s: slot %lld holds pair id %lld (after %lld; expected ascending ids in [0, %lld))", kn,
            (long long)p, (long long)pid, (long long)(p > 0 ? P->pair[p - 1] : -1), (long long)kk);
    if (e1 < e0 || S->npost < 0 || S->npre < 0)
        BAD("%s: pair %lld -> %lld: decreasing offsets", kn, (long long)i, (long long)j);
    if (e1 == e0)
        BAD("%s: pair %lld -> %lld is stored with no cut edge (%lld rows): a plan keeps only the pairs with cut "
            "edges", kn, (long long)i, (long long)j, (long long)(S->npost + S->npre));
    if (i == j)
        BAD("%s: pair %lld -> %lld (itself) has %lld edges and %lld rows", kn, (long long)i, (long long)j,
            (long long)(e1 - e0), (long long)(S->npost + S->npre));
    for (int64_t e = e0; e < e1; e++) {
        const int64_t u = P->edge_src[e], v = P->edge_dst[e];
        if (u < 0 || u >= n || v < 0 || v >= n || in->part[u] != i || in->part[v] != j)
            BAD("%s: pair %lld -> %lld: edge %lld -> %lld is not of this pair", kn, (long long)i, (long long)j,
                (long long)u, (long long)v);
        if (e > e0 && (P->edge_src[e - 1] > u || (P->edge_src[e - 1] == u && P->edge_dst[e - 1] >= v)))
            BAD("%s: pair %lld -> %lld: edge %lld -> %lld after %lld -> %lld (not strictly increasing)", kn,
                (long long)i, (long long)j, (long long)u, (long long)v, (long long)P->edge_src[e - 1],
                (long long)P->edge_dst[e - 1]);
        int found = 0;
        for (int64_t x = g->indptr[v]; x < g->indptr[v + 1] && !found; x++)
            found = g->indices[x] == u;
        if (!found)
            BAD("%s: pair %lld -> %lld: edge %lld -> %lld is not in the graph", kn, (long long)i, (long long)j,
                (long long)u, (long long)v);
    }
    return GNN_ORACLE_PASS;
}

/* Distinct values of a[0..n), sorted in place. */
static int64_t count_distinct(int64_t *a, int64_t n)
{
    qsort(a, (size_t)n, sizeof(int64_t), gnn_cmp_i64);
    int64_t d = 0;
    for (int64_t x = 0; x < n; x++)
        d += x == 0 || a[x] != a[x - 1];
    return d;
}

/* 3. rows: strictly ascending; exactly the post sources and the pre destinations (every edge
 * covered on its side, no row that no edge needs). Writes the naive |U_ij| (distinct sources)
 * and |W_ij| (distinct destinations) to *nu, *nw. scratch: (n_edges + 1). */
static gnn_oracle_outcome check_slot_rows(gnn_oracle_ctx *ctx, const gnn_commplan *P, const char *kn,
                                          const cp_slot *S, int64_t *scratch, int64_t *nu_out, int64_t *nw_out)
{
    const int64_t i = S->i, j = S->j, e0 = S->e0, e1 = S->e1, npost = S->npost, npre = S->npre;
    const int64_t *post = S->post, *pre = S->pre;
    for (int64_t r = 1; r < npost; r++)
        if (post[r] <= post[r - 1])
            BAD("%s: pair %lld -> %lld: post rows not ascending at %lld", kn, (long long)i, (long long)j,
                (long long)r);
    for (int64_t r = 1; r < npre; r++)
        if (pre[r] <= pre[r - 1])
            BAD("%s: pair %lld -> %lld: pre rows not ascending at %lld", kn, (long long)i, (long long)j,
                (long long)r);
    int64_t used_post = 0, nu = 0, last_post = -1;
    for (int64_t e = e0; e < e1; e++) {
        const int64_t u = P->edge_src[e], v = P->edge_dst[e];
        if (P->edge_post[e] > 1)
            BAD("%s: edge %lld -> %lld has side %d", kn, (long long)u, (long long)v, P->edge_post[e]);
        if (P->edge_post[e] ? !in_sorted(post, npost, u) : !in_sorted(pre, npre, v))
            BAD("%s: pair %lld -> %lld: %s edge %lld -> %lld but %lld is not among its %s rows: the rows do not "
                "cover the edge", kn, (long long)i, (long long)j, P->edge_post[e] ? "post" : "pre", (long long)u,
                (long long)v, (long long)(P->edge_post[e] ? u : v), P->edge_post[e] ? "post" : "pre");
        if (P->edge_post[e] && u != last_post) { /* the edges ascend in u: count each source once */
            used_post++;
            last_post = u;
        }
        nu += e == e0 || P->edge_src[e - 1] != u;
    }
    int64_t ns = 0;
    for (int64_t e = e0; e < e1; e++)
        if (!P->edge_post[e])
            scratch[ns++] = P->edge_dst[e];
    const int64_t used_pre = count_distinct(scratch, ns);
    for (int64_t e = e0; e < e1; e++)
        scratch[e - e0] = P->edge_dst[e];
    const int64_t nw = count_distinct(scratch, e1 - e0);
    if (used_post != npost || used_pre != npre)
        BAD("%s: pair %lld -> %lld: %lld post rows and %lld pre rows, the edges use %lld and %lld (a row no "
            "edge needs)", kn, (long long)i, (long long)j, (long long)npost, (long long)npre,
            (long long)used_post, (long long)used_pre);
    *nu_out = nu;
    *nw_out = nw;
    return GNN_ORACLE_PASS;
}

/* 4, degree: an edge is post exactly when its source's out-degree in the pair exceeds its
 * destination's in-degree. indeg: (n) zeros, left zero. */
static gnn_oracle_outcome check_degree_rule(gnn_oracle_ctx *ctx, const gnn_commplan *P, const cp_slot *S,
                                            int64_t *indeg)
{
    const int64_t i = S->i, j = S->j, e0 = S->e0, e1 = S->e1;
    for (int64_t e = e0; e < e1; e++)
        indeg[P->edge_dst[e]]++;
    for (int64_t e = e0, a = e0; e < e1; e = a) {
        while (a < e1 && P->edge_src[a] == P->edge_src[e])
            a++;
        for (int64_t x = e; x < a; x++)
            if (P->edge_post[x] != (a - e > indeg[P->edge_dst[x]]))
                BAD("degree: pair %lld -> %lld: edge %lld -> %lld (outdeg %lld, indeg %lld) is %s", (long long)i,
                    (long long)j, (long long)P->edge_src[x], (long long)P->edge_dst[x], (long long)(a - e),
                    (long long)indeg[P->edge_dst[x]], P->edge_post[x] ? "post" : "pre");
    }
    for (int64_t e = e0; e < e1; e++)
        indeg[P->edge_dst[e]] = 0;
    return GNN_ORACLE_PASS;
}

/* 4, hybrid: the matching is edges of the pair, no vertex twice, as large as the cover (a
 * cover and a matching of the same size: both optimal, Konig), and as large as the maximum
 * matching Kuhn's augmenting paths find (written to *nu_out). K: the search's arrays (mate
 * all -1, left so); scratch: (n_edges + 1). */
static gnn_oracle_outcome check_hybrid_matching(gnn_oracle_ctx *ctx, const gnn_commplan *P, const cp_slot *S,
                                                kuhn *K, int64_t *scratch, int64_t *nu_out)
{
    const int64_t i = S->i, j = S->j, e0 = S->e0, e1 = S->e1;
    const int64_t nm = P->match_ptr[S->p + 1] - P->match_ptr[S->p];
    const int64_t *ms = P->match_src + P->match_ptr[S->p], *md = P->match_dst + P->match_ptr[S->p];
    for (int64_t x = 0; x < nm; x++) {
        if (!has_edge(P, e0, e1, ms[x], md[x]))
            BAD("hybrid: pair %lld -> %lld: matched pair %lld -> %lld is not an edge", (long long)i,
                (long long)j, (long long)ms[x], (long long)md[x]);
        if (x > 0 && ms[x] <= ms[x - 1])
            BAD("hybrid: pair %lld -> %lld: matching not in ascending source at %lld", (long long)i,
                (long long)j, (long long)x);
        scratch[x] = md[x];
    }
    qsort(scratch, (size_t)nm, sizeof(int64_t), gnn_cmp_i64);
    for (int64_t x = 1; x < nm; x++)
        if (scratch[x] == scratch[x - 1])
            BAD("hybrid: pair %lld -> %lld: destination %lld matched twice", (long long)i, (long long)j,
                (long long)scratch[x]);
    if (nm != S->npost + S->npre)
        BAD("hybrid: pair %lld -> %lld: cover of %lld rows but matching of %lld: no optimality certificate",
            (long long)i, (long long)j, (long long)(S->npost + S->npre), (long long)nm);
    /* Kuhn's algorithm on the pair's edges, source groups in edge order; one new stamp per
     * search (K->stamp carries on from slot to slot) */
    K->e0 = e0;
    K->e1 = e1;
    int64_t ng = 0;
    for (int64_t e = e0; e < e1; e++)
        if (e == e0 || P->edge_src[e] != P->edge_src[e - 1])
            K->grp[ng++] = e;
    K->grp[ng] = e1;
    int64_t size = 0;
    for (int64_t s = 0; s < ng; s++) {
        K->stamp++;
        size += kuhn_try(K, s);
    }
    for (int64_t e = e0; e < e1; e++)
        K->mate[P->edge_dst[e]] = -1;
    *nu_out = size;
    if (size != nm)
        BAD("hybrid: pair %lld -> %lld: %lld rows, Kuhn's maximum matching has %lld", (long long)i,
            (long long)j, (long long)nm, (long long)size);
    return GNN_ORACLE_PASS;
}

/* Checks of one plan. rows_out (n_pairs) receives its rows per slot; u_cnt, w_cnt (n_pairs) the
 * naive |U_ij| and |W_ij|; nu_out (n_pairs, hybrid only) Kuhn's maximum matching size. */
static gnn_oracle_outcome verify_plan(gnn_oracle_ctx *ctx, const cp_input *in, const gnn_commplan *P,
                                      gnn_plan_kind kind, int64_t *rows_out, int64_t *u_cnt, int64_t *w_cnt,
                                      int64_t *nu_out)
{
    const gnn_csr *g = in->g;
    const int64_t n = g->n, k = in->k, kk = k * k, np = P->n_pairs;
    const char *kn = gnn_plan_kind_name(kind);
    if (P->k != k || P->n != n || P->kind != kind || np < 0 || np > kk || P->edge_ptr[0] != 0 ||
        P->edge_ptr[np] != P->n_edges)
        BAD("%s: header k %lld n %lld kind %d, %lld pairs, edge_ptr ends %lld..%lld of %lld edges", kn,
            (long long)P->k, (long long)P->n, (int)P->kind, (long long)np, (long long)P->edge_ptr[0],
            (long long)(np >= 0 && np <= kk ? P->edge_ptr[np] : -1), (long long)P->n_edges);
    int64_t *row = gnn_oracle_alloc(ctx, (size_t)(g->nnz + 1) * sizeof(int64_t));
    int64_t *scratch = gnn_oracle_alloc(ctx, (size_t)(P->n_edges + 1) * sizeof(int64_t));
    int64_t *mate = gnn_oracle_alloc(ctx, (size_t)(n + 1) * sizeof(int64_t));
    int64_t *seen = gnn_oracle_alloc(ctx, (size_t)(n + 1) * sizeof(int64_t));
    int64_t *grp = gnn_oracle_alloc(ctx, (size_t)(P->n_edges + 2) * sizeof(int64_t));
    int64_t *indeg = gnn_oracle_alloc(ctx, (size_t)(n + 1) * sizeof(int64_t));
    if (!row || !scratch || !mate || !seen || !grp || !indeg)
        BAD("out of memory");
    gnn_oracle_outcome o = check_cut_count(ctx, in, P, kn, row); /* 1 */
    if (o != GNN_ORACLE_PASS)
        return o;
    kuhn K = { P, 0, 0, grp, mate, seen, 0 }; /* Kuhn's visit marks: one new stamp per search */
    for (int64_t v = 0; v < n; v++)
        mate[v] = -1, seen[v] = 0;
    for (int64_t p = 0; p < np; p++) { /* p: the slot */
        const cp_slot S = slot_of(P, k, p);
        int64_t nu = 0, nw = 0;
        if ((o = check_slot_edges(ctx, in, P, kn, &S)) != GNN_ORACLE_PASS || /* 2a, 2 */
            (o = check_slot_rows(ctx, P, kn, &S, scratch, &nu, &nw)) != GNN_ORACLE_PASS) /* 3 */
            return o;
        u_cnt[p] = nu;
        w_cnt[p] = nw;
        rows_out[p] = S.npost + S.npre;
        /* 4. the plan's own rule */
        const int64_t nm = P->match_ptr[p + 1] - P->match_ptr[p];
        if (kind != GNN_PLAN_HYBRID && nm != 0)
            BAD("%s: pair %lld -> %lld has a matching of %lld", kn, (long long)S.i, (long long)S.j, (long long)nm);
        if (kind == GNN_PLAN_PRE && (S.npost != 0 || S.npre != nw))
            BAD("pre: pair %lld -> %lld: %lld post and %lld pre rows, |W| = %lld", (long long)S.i, (long long)S.j,
                (long long)S.npost, (long long)S.npre, (long long)nw);
        if (kind == GNN_PLAN_POST && (S.npre != 0 || S.npost != nu))
            BAD("post: pair %lld -> %lld: %lld post and %lld pre rows, |U| = %lld", (long long)S.i, (long long)S.j,
                (long long)S.npost, (long long)S.npre, (long long)nu);
        if (kind == GNN_PLAN_DEGREE && (o = check_degree_rule(ctx, P, &S, indeg)) != GNN_ORACLE_PASS)
            return o;
        if (kind == GNN_PLAN_HYBRID &&
            (o = check_hybrid_matching(ctx, P, &S, &K, scratch, &nu_out[p])) != GNN_ORACLE_PASS)
            return o;
    }
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome verify_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    cp_input in;
    gnn_oracle_outcome o = make_input(ctx, c, &in);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t k = in.k;
    gnn_commplan *P[GNN_PLAN_COUNT] = { NULL };
    for (int kind = 0; kind < GNN_PLAN_COUNT; kind++)
        if ((o = build(ctx, c->impl->ops, "impl", &in, (gnn_plan_kind)kind, &P[kind])) != GNN_ORACLE_PASS)
            return o;
    /* every plan has the same slots: the pairs with cut edges */
    const int64_t np = P[0]->n_pairs;
    for (int kind = 1; kind < GNN_PLAN_COUNT; kind++)
        if (P[kind]->n_pairs != np || (np > 0 && memcmp(P[kind]->pair, P[0]->pair, (size_t)np * sizeof(int64_t))))
            return gnn_oracle_fail(ctx, "%s and %s plans have different pairs (%lld and %lld slots)",
                                   gnn_plan_kind_name((gnn_plan_kind)kind), gnn_plan_kind_name(GNN_PLAN_PRE),
                                   (long long)P[kind]->n_pairs, (long long)np);
    int64_t *rows = gnn_oracle_alloc(ctx, (size_t)(GNN_PLAN_COUNT * np + 1) * sizeof(int64_t));
    int64_t *u_cnt = gnn_oracle_alloc(ctx, (size_t)(np + 1) * sizeof(int64_t));
    int64_t *w_cnt = gnn_oracle_alloc(ctx, (size_t)(np + 1) * sizeof(int64_t));
    int64_t *nu = gnn_oracle_alloc(ctx, (size_t)(np + 1) * sizeof(int64_t));
    if (!rows || !u_cnt || !w_cnt || !nu)
        return gnn_oracle_fail(ctx, "out of memory");
    for (int kind = 0; kind < GNN_PLAN_COUNT; kind++) {
        digest_plan(ctx, P[kind]);
        if ((o = verify_plan(ctx, &in, P[kind], (gnn_plan_kind)kind, rows + kind * np, u_cnt, w_cnt, nu)) !=
            GNN_ORACLE_PASS)
            return o;
    }
    /* 5. across the plans: hybrid is a minimum cover, so it is at most every other plan */
    const int64_t *pre = rows + GNN_PLAN_PRE * np, *post = rows + GNN_PLAN_POST * np;
    const int64_t *hyb = rows + GNN_PLAN_HYBRID * np, *deg = rows + GNN_PLAN_DEGREE * np;
    int64_t tot_pre = 0, tot_post = 0, tot_hyb = 0;
    for (int64_t p = 0; p < np; p++) {
        const int64_t m = pre[p] < post[p] ? pre[p] : post[p];
        if (hyb[p] > m || hyb[p] > deg[p])
            return gnn_oracle_fail(ctx, "pair %lld -> %lld: hybrid %lld rows > min(pre %lld, post %lld) or degree %lld",
                                   (long long)(P[0]->pair[p] / k), (long long)(P[0]->pair[p] % k), (long long)hyb[p],
                                   (long long)pre[p], (long long)post[p], (long long)deg[p]);
        tot_pre += pre[p];
        tot_post += post[p];
        tot_hyb += hyb[p];
    }
    /* 6. the symmetric identity: sum |W_ij| = sum |U_ji| when every cut edge's reverse is cut too */
    gnn_commplan *E = NULL;
    if ((o = build(ctx, c->entry->ref->ops, "ref", &in, GNN_PLAN_PRE, &E)) != GNN_ORACLE_PASS)
        return o;
    int sym = 1;
    for (int64_t p = 0; p < E->n_pairs && sym; p++) {
        const int64_t q = gnn_commplan_slot(E, (E->pair[p] % k) * k + E->pair[p] / k); /* the reverse pair */
        for (int64_t e = E->edge_ptr[p]; e < E->edge_ptr[p + 1] && sym; e++)
            sym = q >= 0 && has_edge(E, E->edge_ptr[q], E->edge_ptr[q + 1], E->edge_dst[e], E->edge_src[e]);
    }
    if (sym && tot_pre != tot_post)
        return gnn_oracle_fail(ctx, "symmetric cut: total pre rows %lld != total post rows %lld", (long long)tot_pre,
                               (long long)tot_post);
    gnn_oracle_note(ctx, "cut edges %lld in %lld pairs; rows pre %lld post %lld hybrid %lld%s", (long long)E->n_edges,
                    (long long)E->n_pairs, (long long)tot_pre, (long long)tot_post, (long long)tot_hyb,
                    sym ? " (symmetric: pre = post)" : "");
    return GNN_ORACLE_PASS;
}

#undef BAD

const gnn_oracle_entry gnn_oracle_commplan_build = {
    .name = "commplan.build",
    .what = "pre/post/hybrid/degree communication plans (cut edges, sides, rows, matching) against ref",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "a plan is integers fixed by commplan.h's scan orders; cpu runs ref's per-pair solver on pairs in "
              "parallel and groups the cut edges by a sort on the whole key, so no bit may differ",
    .params = k_cp_params,
    .n_params = N_C_PARAMS,
    .presets = k_cp_presets,
    .ref = &k_cp_ref,
    .impls = k_cp_impls,
    .run = build_run,
};

const gnn_oracle_entry gnn_oracle_commplan_verify = {
    .name = "commplan.verify",
    .what = "each plan's cut edges, rows and rule; hybrid: cover = matching = Kuhn's maximum matching, "
            "<= min(pre, post); symmetric cut: total pre = total post",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "properties checked by a different algorithm (row scans, Kuhn's augmenting paths): exact integers",
    .params = k_cp_params,
    .n_params = N_C_PARAMS,
    .presets = k_cp_presets,
    .ref = &k_cp_ref,
    .impls = k_cp_impls,
    .run = verify_run,
};
