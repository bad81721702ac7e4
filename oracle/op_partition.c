/* oracle/op_partition.c -- oracle entries for the partition structure (include/gnnref/partition.h,
 * DistGNN-MB section 3.1) and its property checker gnn_partition_verify.
 *
 *   partition.build   bitwise: every implementation (ref against itself, cpu at 1, 2 and 4
 *                     threads) against the reference (gnn_partition_ref): for every rank the counts,
 *                     the local CSR, vid_o, vid_p, halo owners and owner-local ids, and the
 *                     train/val/test lists, every bit;
 *   partition.verify  verify: gnn_partition_verify on each implementation's output, a
 *                     different, simpler algorithm (sorted pairs and triples instead of marks),
 *                     plus the quality metrics (gnn_partition_quality: solid and halo counts)
 *                     against the structure.
 *
 * Inputs: R-MAT (gen=0, Graph500 parameters: vertex 0 the hub, many degree-0 vertices) or SBM
 * (gen=1, 4 classes) with 2^scale vertices, from the case seed; directed=1 then drops each
 * in-edge with probability 1/4 (so in- and out-neighbors differ), appends a self-loop to every
 * fifth row and repeats the first remaining in-edge of every seventh (a multigraph: duplicate
 * edges must be kept). Split (split=1): each vertex train/val/test/none with probability
 * 40/20/20/20 %. Part vector: gnn_partition_assign with the method (0 random, 1 range, 2 hash,
 * 3 metis with the balance columns `balance`) into k - empty parts, then spread over k parts so
 * that `empty` of them (odd ranks first) own nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/dataset.h"
#include "gnnref/oracle.h"
#include "gnnref/partition.h"
#include "gnnref/tensor.h"

/* ---- the property checker ------------------------------------------------------------------------ */
/* Each step below checks one property with its own simple algorithm (marks, sorted pairs and
 * triples), independent of the builders, and returns GNN_ERR_MISMATCH with a message naming the
 * part, the vertex and the values at the first violation. gnn_partition_verify runs them in the
 * numbered order, so the first violation reported is the same whatever the builder did. */

typedef struct trip {
    int64_t a, b, c;
} trip;

static int cmp_trip(const void *x, const void *y)
{
    const trip *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    return (p->c > q->c) - (p->c < q->c);
}

#define BAD(...) return gnn_err_set(err, GNN_ERR_MISMATCH, __VA_ARGS__)

/* 1. every vertex owned exactly once, by part[v]; solid ids increasing.
 * owned: (n) zeroed counters, one per global vertex */
static gnn_status verify_owners(const gnn_partition *P, const int32_t *part, int64_t n, int64_t k, int64_t *owned,
                                gnn_err *err)
{
    for (int64_t p = 0; p < k; p++) {
        const gnn_part_local *L = &P->parts[p];
        if (L->rank != p || L->n_solid < 0 || L->n_halo < 0 || L->graph.n != L->n_solid + L->n_halo)
            BAD("part %lld: rank %lld, n_solid %lld, n_halo %lld, local graph n %lld inconsistent", (long long)p,
                (long long)L->rank, (long long)L->n_solid, (long long)L->n_halo, (long long)L->graph.n);
        if (L->n_solid + L->n_halo > n)
            BAD("part %lld: %lld local vertices > %lld", (long long)p, (long long)(L->n_solid + L->n_halo), (long long)n);
        for (int64_t l = 0; l < L->n_solid + L->n_halo; l++)
            if (L->vid_o[l] < 0 || L->vid_o[l] >= n)
                BAD("part %lld: vid_o[%lld] = %lld outside [0, %lld)", (long long)p, (long long)l,
                    (long long)L->vid_o[l], (long long)n);
        for (int64_t l = 0; l < L->n_solid; l++) {
            const int64_t v = L->vid_o[l];
            if (part[v] != p)
                BAD("part %lld: solid vertex %lld (local %lld) is owned by part %d", (long long)p, (long long)v,
                    (long long)l, (int)part[v]);
            if (l > 0 && L->vid_o[l - 1] >= v)
                BAD("part %lld: solid vertices not in increasing id at local %lld (%lld then %lld)", (long long)p,
                    (long long)l, (long long)L->vid_o[l - 1], (long long)v);
            owned[v]++;
        }
    }
    for (int64_t v = 0; v < n; v++)
        if (owned[v] != 1)
            BAD("vertex %lld is solid in %lld parts (owner %d)", (long long)v, (long long)owned[v], (int)part[v]);
    return GNN_OK;
}

/* 2. halo sets = cut in-neighbors: (dst owner, src) over every edge whose ends differ,
 * sorted and deduplicated, against the halo lists of all parts in rank order.
 * want: (nnz) scratch triples */
static gnn_status verify_halos(const gnn_partition *P, const gnn_csr *g, const int32_t *part, int64_t k, trip *want,
                               gnn_err *err)
{
    const int64_t n = g->n;
    int64_t nw = 0, ng = 0;
    for (int64_t v = 0; v < n; v++)
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
            const int64_t u = g->indices[e];
            if (part[u] != part[v])
                want[nw++] = (trip){ part[v], u, 0 };
        }
    qsort(want, (size_t)nw, sizeof(trip), cmp_trip);
    int64_t nu = 0;
    for (int64_t i = 0; i < nw; i++)
        if (nu == 0 || cmp_trip(&want[nu - 1], &want[i]) != 0)
            want[nu++] = want[i];
    for (int64_t p = 0; p < k; p++) {
        const gnn_part_local *L = &P->parts[p];
        int64_t we = ng; /* want[ng .. we): the cut in-neighbors of part p */
        while (we < nu && want[we].a == p)
            we++;
        for (int64_t i = 1; i < L->n_halo; i++)
            if (L->vid_o[L->n_solid + i - 1] >= L->vid_o[L->n_solid + i])
                BAD("part %lld: halo vertices not in increasing id at halo %lld (%lld then %lld)", (long long)p,
                    (long long)i, (long long)L->vid_o[L->n_solid + i - 1], (long long)L->vid_o[L->n_solid + i]);
        for (int64_t i = 0; i < L->n_halo; i++) {
            const int64_t u = L->vid_o[L->n_solid + i];
            if (ng == we || want[ng].b > u)
                BAD("part %lld: halo vertex %lld is not an in-neighbor of a solid vertex owned elsewhere",
                    (long long)p, (long long)u);
            if (want[ng].b < u)
                BAD("part %lld: cut in-neighbor %lld (owned by part %d) is missing from the halo", (long long)p,
                    (long long)want[ng].b, (int)part[want[ng].b]);
            ng++;
        }
        if (ng != we)
            BAD("part %lld: cut in-neighbor %lld (owned by part %d) is missing from the halo (%lld halos, %lld cut "
                "in-neighbors)",
                (long long)p, (long long)want[ng].b, (int)part[want[ng].b], (long long)L->n_halo,
                (long long)(we - (ng - L->n_halo)));
    }
    return GNN_OK;
}

/* 3. local edges = global edges restricted to the part, as a multiset of
 * (owner, dst, src) global triples; halo rows empty.
 * want, got: (nnz) scratch triples */
static gnn_status verify_local_edges(const gnn_partition *P, const gnn_csr *g, const int32_t *part, int64_t k,
                                     trip *want, trip *got, gnn_err *err)
{
    const int64_t n = g->n, m = g->nnz;
    int64_t nw = 0, ng = 0;
    for (int64_t v = 0; v < n; v++)
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++)
            want[nw++] = (trip){ part[v], v, g->indices[e] };
    for (int64_t p = 0; p < k; p++) {
        const gnn_part_local *L = &P->parts[p];
        const gnn_csr *lg = &L->graph;
        const int64_t nl = L->n_solid + L->n_halo;
        if (!lg->indptr || lg->indptr[0] != 0 || lg->indptr[nl] != lg->nnz || lg->nnz < 0)
            BAD("part %lld: local CSR offsets malformed (indptr[0] = %lld, indptr[n] = %lld, nnz = %lld)",
                (long long)p, lg->indptr ? (long long)lg->indptr[0] : -1LL,
                lg->indptr ? (long long)lg->indptr[nl] : -1LL, (long long)lg->nnz);
        for (int64_t l = 0; l < nl; l++) {
            const int64_t b = lg->indptr[l], e_end = lg->indptr[l + 1];
            if (e_end < b)
                BAD("part %lld: local indptr decreases at row %lld", (long long)p, (long long)l);
            if (l >= L->n_solid && e_end > b)
                BAD("part %lld: halo row %lld (vertex %lld) has %lld in-edges; halo rows must be empty", (long long)p,
                    (long long)l, (long long)L->vid_o[l], (long long)(e_end - b));
            for (int64_t e = b; e < e_end; e++) {
                const int64_t x = lg->indices[e];
                if (x < 0 || x >= nl)
                    BAD("part %lld: local edge %lld has source %lld outside [0, %lld)", (long long)p, (long long)e,
                        (long long)x, (long long)nl);
                if (ng >= m)
                    BAD("part %lld: more local edges than the graph has (%lld)", (long long)p, (long long)m);
                got[ng++] = (trip){ p, L->vid_o[l], L->vid_o[x] };
            }
        }
    }
    if (ng != nw)
        BAD("the parts hold %lld local edges; the graph has %lld", (long long)ng, (long long)nw);
    qsort(want, (size_t)nw, sizeof(trip), cmp_trip);
    qsort(got, (size_t)ng, sizeof(trip), cmp_trip);
    for (int64_t i = 0; i < nw; i++)
        if (cmp_trip(&want[i], &got[i]) != 0)
            BAD("local edges differ from the global edges of the part: first difference at sorted position %lld: "
                "want (part %lld, %lld <- %lld), got (part %lld, %lld <- %lld)",
                (long long)i, (long long)want[i].a, (long long)want[i].b, (long long)want[i].c, (long long)got[i].a,
                (long long)got[i].b, (long long)got[i].c);
    return GNN_OK;
}

/* 4. vid_o and vid_p inverse on part p; -1 elsewhere */
static gnn_status verify_vid_maps(const gnn_part_local *L, int64_t p, int64_t n, gnn_err *err)
{
    const int64_t nl = L->n_solid + L->n_halo;
    int64_t mapped = 0;
    for (int64_t v = 0; v < n; v++) {
        const int64_t x = L->vid_p[v];
        if (x == -1)
            continue;
        if (x < 0 || x >= nl)
            BAD("part %lld: vid_p[%lld] = %lld is neither -1 nor in [0, %lld)", (long long)p, (long long)v,
                (long long)x, (long long)nl);
        if (L->vid_o[x] != v)
            BAD("part %lld: vid_p[%lld] = %lld but vid_o[%lld] = %lld", (long long)p, (long long)v, (long long)x,
                (long long)x, (long long)L->vid_o[x]);
        mapped++;
    }
    if (mapped != nl)
        BAD("part %lld: vid_p maps %lld vertices, there are %lld local ones", (long long)p, (long long)mapped,
            (long long)nl);
    return GNN_OK;
}

/* 5. halo owners of part p: part[] of the vertex, and an owner-local id that is that vertex */
static gnn_status verify_halo_owners(const gnn_partition *P, const gnn_part_local *L, int64_t p, const int32_t *part,
                                     gnn_err *err)
{
    for (int64_t i = 0; i < L->n_halo; i++) {
        const int64_t u = L->vid_o[L->n_solid + i];
        const int32_t o = L->halo_owner[i];
        if (o != part[u])
            BAD("part %lld: halo %lld (vertex %lld) has owner %d, part[] says %d", (long long)p, (long long)i,
                (long long)u, (int)o, (int)part[u]);
        const gnn_part_local *O = &P->parts[o];
        const int64_t j = L->halo_owner_local[i];
        if (j < 0 || j >= O->n_solid || O->vid_o[j] != u)
            BAD("part %lld: halo %lld (vertex %lld) has owner-local id %lld, which is not that vertex on part %d",
                (long long)p, (long long)i, (long long)u, (long long)j, (int)o);
    }
    return GNN_OK;
}

/* 6. the split by owner: part p's train/val/test lists are increasing solid local ids of
 * vertices with that split; split_got[1..3] += the list lengths (the caller checks the totals) */
static gnn_status verify_split_lists(const gnn_part_local *L, int64_t p, const uint8_t *split, int64_t split_got[4],
                                     gnn_err *err)
{
    const int64_t *lists[4] = { NULL, L->train, L->val, L->test };
    const int64_t counts[4] = { 0, L->n_train, L->n_val, L->n_test };
    static const char *const names[4] = { "", "train", "val", "test" };
    for (int sidx = 1; sidx <= 3; sidx++) {
        for (int64_t i = 0; i < counts[sidx]; i++) {
            const int64_t l = lists[sidx][i];
            if (l < 0 || l >= L->n_solid)
                BAD("part %lld: %s[%lld] = %lld is not a solid local id", (long long)p, names[sidx], (long long)i,
                    (long long)l);
            if (i > 0 && lists[sidx][i - 1] >= l)
                BAD("part %lld: %s list not increasing at %lld", (long long)p, names[sidx], (long long)i);
            if (!split || split[L->vid_o[l]] != sidx)
                BAD("part %lld: %s[%lld] is vertex %lld, whose split is %d", (long long)p, names[sidx],
                    (long long)i, (long long)L->vid_o[l], split ? (int)split[L->vid_o[l]] : -1);
        }
        split_got[sidx] += counts[sidx];
    }
    return GNN_OK;
}

/* 4, 5 and 6 part by part, then the split totals against the graph's */
static gnn_status verify_maps_owners_split(const gnn_partition *P, const uint8_t *split, const int32_t *part,
                                           int64_t n, int64_t k, gnn_err *err)
{
    gnn_status s;
    int64_t split_tot[4] = { 0, 0, 0, 0 }, split_got[4] = { 0, 0, 0, 0 };
    if (split)
        for (int64_t v = 0; v < n; v++)
            if (split[v] <= 3)
                split_tot[split[v]]++;
    for (int64_t p = 0; p < k; p++) {
        const gnn_part_local *L = &P->parts[p];
        if ((s = verify_vid_maps(L, p, n, err)) != GNN_OK || (s = verify_halo_owners(P, L, p, part, err)) != GNN_OK ||
            (s = verify_split_lists(L, p, split, split_got, err)) != GNN_OK)
            return s;
    }
    for (int sidx = 1; sidx <= 3; sidx++)
        if (split_got[sidx] != split_tot[sidx])
            BAD("split %d: the parts list %lld vertices, the graph has %lld", sidx, (long long)split_got[sidx],
                (long long)split_tot[sidx]);
    return GNN_OK;
}

/* 6. two levels: every solid vertex's trainer is the trainer vector's, in [0, T) */
static gnn_status verify_trainers(const gnn_partition *P, int64_t k, gnn_err *err)
{
    const int64_t T = P->trainers < 1 ? 1 : P->trainers;
    if (T > 1 && !P->trainer)
        BAD("%lld trainers but no trainer vector", (long long)T);
    for (int64_t p = 0; p < k; p++) {
        const gnn_part_local *L = &P->parts[p];
        if ((L->trainers < 1 ? 1 : L->trainers) != T || (T > 1 && !L->trainer))
            BAD("part %lld: %lld trainers, the partition has %lld", (long long)p, (long long)L->trainers,
                (long long)T);
        for (int64_t l = 0; T > 1 && l < L->n_solid; l++)
            if (L->trainer[l] != P->trainer[L->vid_o[l]] || L->trainer[l] < 0 || L->trainer[l] >= T)
                BAD("part %lld: solid %lld (vertex %lld) has trainer %d, the vector says %d", (long long)p,
                    (long long)l, (long long)L->vid_o[l], L->trainer[l], P->trainer[L->vid_o[l]]);
    }
    return GNN_OK;
}

gnn_status gnn_partition_verify(const gnn_partition *P, const gnn_csr *g, const uint8_t *split, const int32_t *part,
                                int64_t k, gnn_err *err)
{
    const int64_t n = g->n, m = g->nnz;
    if (P->n != n || P->k != k || !P->parts || (n > 0 && !P->part))
        BAD("partition: n = %lld, k = %lld (want %lld, %lld) or arrays missing", (long long)P->n, (long long)P->k,
            (long long)n, (long long)k);
    for (int64_t v = 0; v < n; v++)
        if (P->part[v] != part[v])
            BAD("part[%lld] = %d, the input says %d", (long long)v, (int)P->part[v], (int)part[v]);
    gnn_status s = GNN_OK;
    int64_t *owned = gnn_calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t));
    trip *want = gnn_malloc((size_t)(m > 0 ? m : 1) * sizeof(trip));
    trip *got = gnn_malloc((size_t)(m > 0 ? m : 1) * sizeof(trip));
    if (!owned || !want || !got)
        s = gnn_err_set(err, GNN_ERR_NOMEM, "verify: out of memory");
    else if ((s = verify_owners(P, part, n, k, owned, err)) == GNN_OK &&
             (s = verify_halos(P, g, part, k, want, err)) == GNN_OK &&
             (s = verify_local_edges(P, g, part, k, want, got, err)) == GNN_OK &&
             (s = verify_maps_owners_split(P, split, part, n, k, err)) == GNN_OK)
        s = verify_trainers(P, k, err);
    gnn_free(owned);
    gnn_free(want);
    gnn_free(got);
    return s;
}
#undef BAD

/* ---- case inputs ------------------------------------------------------------------------------------ */

static const gnn_oracle_impl k_part_ref = { .name = "ref", .ops = &gnn_partition_ref, .flags = 0 };
static const gnn_oracle_impl k_part_cpu = { .name = "cpu", .ops = &gnn_partition_cpu, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_part_impls[] = { &k_part_ref, &k_part_cpu, NULL };

enum { P_GEN, P_SCALE, P_EF, P_K, P_METHOD, P_EMPTY, P_DIRECTED, P_SPLIT, P_BALANCE, N_P_PARAMS };
static const gnn_oracle_param k_p_params[N_P_PARAMS] = {
    { "gen", GNN_PARAM_INT, 0, 1, "graph: 0 R-MAT (Graph500), 1 SBM (4 classes)" },
    { "scale", GNN_PARAM_INT, 0, 20, "2^scale vertices" },
    { "ef", GNN_PARAM_INT, 1, 64, "edge factor (R-MAT) or average degree (SBM)" },
    { "k", GNN_PARAM_INT, 1, 1024, "ranks (parts)" },
    { "method", GNN_PARAM_INT, 0, 3, "part vector: 0 random, 1 range, 2 hash, 3 metis" },
    { "empty", GNN_PARAM_INT, 0, 1023, "parts that own nothing (the vector uses k - empty parts)" },
    { "directed", GNN_PARAM_INT, 0, 1, "1: drop 1/4 of the in-edges, add self-loops and repeated edges" },
    { "split", GNN_PARAM_INT, 0, 1, "1: random train/val/test/none split (40/20/20/20 %); 0: none" },
    { "balance", GNN_PARAM_INT, 0, 15, "metis balance columns: bits train 1, val 2, test 4, degree 8" },
};
/* every method at k = 1, 2, 4, 8; empty parts (odd ranks, and k above n); degree-0 vertices
 * (R-MAT); directed multigraphs; no split; METIS with 1, 2 and 4 balance columns */
static const char *const k_p_presets[] = {
    "gen=0,scale=8,ef=8,k=4,method=0,empty=0,directed=0,split=1,balance=0",
    "gen=1,scale=8,ef=6,k=8,method=1,empty=0,directed=0,split=1,balance=0",
    "gen=0,scale=9,ef=4,k=2,method=2,empty=0,directed=1,split=0,balance=0",
    "gen=1,scale=9,ef=8,k=8,method=3,empty=0,directed=0,split=1,balance=9",
    "gen=0,scale=9,ef=8,k=4,method=3,empty=0,directed=1,split=1,balance=0",
    "gen=0,scale=7,ef=4,k=2,method=3,empty=0,directed=0,split=1,balance=15",
    "gen=1,scale=6,ef=4,k=1,method=3,empty=0,directed=1,split=1,balance=0",
    "gen=0,scale=6,ef=4,k=8,method=0,empty=3,directed=1,split=1,balance=0",
    "gen=1,scale=7,ef=6,k=4,method=3,empty=2,directed=0,split=1,balance=1",
    "gen=0,scale=2,ef=2,k=8,method=2,empty=5,directed=1,split=1,balance=0",
    "gen=1,scale=0,ef=1,k=1,method=1,empty=0,directed=0,split=1,balance=0",
    "gen=1,scale=5,ef=4,k=8,method=1,empty=0,directed=1,split=0,balance=0",
    "gen=0,scale=12,ef=8,k=8,method=0,empty=0,directed=1,split=1,balance=0",
    "gen=1,scale=11,ef=8,k=8,method=3,empty=0,directed=0,split=1,balance=9",
    NULL,
};

static void free_csr(void *p) { gnn_csr_free(p); }
static void free_partition(void *p) { gnn_partition_free(p); }

typedef struct part_input {
    const gnn_csr *g;
    uint8_t *split;
    int32_t *part;
    int64_t k;
} part_input;

static gnn_oracle_outcome make_input(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, part_input *in)
{
    const int gen = (int)gnn_oracle_int(c, P_GEN), scale = (int)gnn_oracle_int(c, P_SCALE);
    const int64_t ef = gnn_oracle_int(c, P_EF), k = gnn_oracle_int(c, P_K), empty = gnn_oracle_int(c, P_EMPTY);
    const int method = (int)gnn_oracle_int(c, P_METHOD);
    if (empty >= k)
        return gnn_oracle_fail(ctx, "invalid case: empty=%lld needs k > empty", (long long)empty);
    /* the seeds keep their historical salts, so every case string still names the same graph */
    const gnn_csr *cg = NULL;
    const uint64_t gseed = c->seed * 0x9E3779B97F4A7C15ull + (gen == 0 ? 31 : 37);
    gnn_oracle_outcome go = gnn_oracle_case_graph(ctx, gen, scale, ef, gseed, &cg);
    if (go != GNN_ORACLE_PASS)
        return go;
    in->g = cg;
    if (gnn_oracle_int(c, P_DIRECTED)) {
        gnn_csr *m = gnn_oracle_alloc(ctx, sizeof *m);
        if (!m || gnn_oracle_case_multigraph(ctx, c, cg, m))
            return gnn_oracle_fail(ctx, "out of memory");
        in->g = m;
    }
    const int64_t n = in->g->n;
    in->split = NULL;
    if (gnn_oracle_int(c, P_SPLIT)) {
        in->split = gnn_oracle_alloc(ctx, (size_t)n + 1);
        if (!in->split)
            return gnn_oracle_fail(ctx, "out of memory");
        gnn_oracle_draws d = gnn_oracle_draws_make(c, 6);
        for (int64_t v = 0; v < n; v++) {
            const uint64_t r = gnn_oracle_draw_uint(&d, 100);
            in->split[v] = r < 40 ? GNN_SPLIT_TRAIN : r < 60 ? GNN_SPLIT_VAL : r < 80 ? GNN_SPLIT_TEST : GNN_SPLIT_NONE;
        }
    }
    /* the part vector over k - empty parts, then spread over k */
    const int64_t kk = k - empty;
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
    o.method = methods[method];
    o.k = kk;
    o.seed = c->seed;
    o.balance = method == 3 ? (unsigned)gnn_oracle_int(c, P_BALANCE) : 0;
    gnn_err err = { "" };
    gnn_status st;
    if ((st = gnn_partition_assign(in->g, in->split, &o, in->part, NULL, &err)))
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

static void digest_partition(gnn_oracle_ctx *ctx, const gnn_partition *P)
{
    for (int64_t p = 0; p < P->k; p++) {
        const gnn_part_local *L = &P->parts[p];
        const int64_t nl = L->n_solid + L->n_halo;
        gnn_oracle_digest(ctx, &L->n_solid, sizeof L->n_solid);
        gnn_oracle_digest(ctx, &L->n_halo, sizeof L->n_halo);
        gnn_oracle_digest(ctx, L->graph.indptr, ((size_t)nl + 1) * sizeof(int64_t));
        gnn_oracle_digest(ctx, L->graph.indices, (size_t)L->graph.nnz * sizeof(int64_t));
        gnn_oracle_digest(ctx, L->vid_o, (size_t)nl * sizeof(int64_t));
        gnn_oracle_digest(ctx, L->vid_p, (size_t)P->n * sizeof(int64_t));
        gnn_oracle_digest(ctx, L->halo_owner, (size_t)L->n_halo * sizeof(int32_t));
        gnn_oracle_digest(ctx, L->halo_owner_local, (size_t)L->n_halo * sizeof(int64_t));
        gnn_oracle_digest(ctx, L->train, (size_t)L->n_train * sizeof(int64_t));
        gnn_oracle_digest(ctx, L->val, (size_t)L->n_val * sizeof(int64_t));
        gnn_oracle_digest(ctx, L->test, (size_t)L->n_test * sizeof(int64_t));
    }
}

/* Run c->impl's build into a partition owned by the case. */
static gnn_oracle_outcome run_build(gnn_oracle_ctx *ctx, const gnn_partition_ops *ops, const char *who,
                                    const part_input *in, gnn_partition **out)
{
    gnn_partition *P = gnn_oracle_alloc(ctx, sizeof *P);
    if (!P)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_err err = { "" };
    const gnn_status st = gnn_partition_build(ops, P, in->g, in->split, in->part, in->k, &err);
    gnn_oracle_defer(ctx, free_partition, P);
    if (st != GNN_OK && st != GNN_ERR_UNSUPPORTED)
        return gnn_oracle_fail(ctx, "%s: %s (%s)", who, gnn_status_str(st), err.msg);
    *out = P;
    return gnn_oracle_status(ctx, who, st);
}

/* ---- partition.build: bitwise against the reference ---------------------------------------------- */

static gnn_oracle_outcome cmp_scalar(gnn_oracle_ctx *ctx, int64_t p, const char *what, int64_t want, int64_t got)
{
    if (want == got)
        return GNN_ORACLE_PASS;
    return gnn_oracle_fail(ctx, "part %lld: %s: ref %lld impl %lld", (long long)p, what, (long long)want,
                           (long long)got);
}

static gnn_oracle_outcome build_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    part_input in;
    gnn_oracle_outcome o = make_input(ctx, c, &in);
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_partition *want, *got;
    if ((o = run_build(ctx, c->entry->ref->ops, "ref", &in, &want)) != GNN_ORACLE_PASS)
        return o;
    if ((o = run_build(ctx, c->impl->ops, "impl", &in, &got)) != GNN_ORACLE_PASS)
        return o;
    digest_partition(ctx, got);
    if (got->n != want->n || got->k != want->k)
        return gnn_oracle_fail(ctx, "n, k: ref %lld, %lld impl %lld, %lld", (long long)want->n, (long long)want->k,
                               (long long)got->n, (long long)got->k);
    o = gnn_oracle_compare_int(ctx, "part", want->part, got->part, want->n, sizeof(int32_t));
    for (int64_t p = 0; p < want->k && o == GNN_ORACLE_PASS; p++) {
        const gnn_part_local *W = &want->parts[p], *G = &got->parts[p];
        o = gnn_oracle_worst(o, cmp_scalar(ctx, p, "n_solid", W->n_solid, G->n_solid));
        o = gnn_oracle_worst(o, cmp_scalar(ctx, p, "n_halo", W->n_halo, G->n_halo));
        o = gnn_oracle_worst(o, cmp_scalar(ctx, p, "graph.n", W->graph.n, G->graph.n));
        o = gnn_oracle_worst(o, cmp_scalar(ctx, p, "graph.nnz", W->graph.nnz, G->graph.nnz));
        o = gnn_oracle_worst(o, cmp_scalar(ctx, p, "n_train", W->n_train, G->n_train));
        o = gnn_oracle_worst(o, cmp_scalar(ctx, p, "n_val", W->n_val, G->n_val));
        o = gnn_oracle_worst(o, cmp_scalar(ctx, p, "n_test", W->n_test, G->n_test));
        if (o != GNN_ORACLE_PASS)
            break;
        char name[64];
        const int64_t nl = W->n_solid + W->n_halo;
#define CMP(field, count, size)                                                                   \
    do {                                                                                         \
        snprintf(name, sizeof name, "part[%lld]." #field, (long long)p);                         \
        o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, name, W->field, G->field, count, size)); \
    } while (0)
        CMP(graph.indptr, nl + 1, 8);
        CMP(graph.indices, W->graph.nnz, 8);
        CMP(vid_o, nl, 8);
        CMP(vid_p, want->n, 8);
        CMP(halo_owner, W->n_halo, 4);
        CMP(halo_owner_local, W->n_halo, 8);
        CMP(train, W->n_train, 8);
        CMP(val, W->n_val, 8);
        CMP(test, W->n_test, 8);
#undef CMP
    }
    return o;
}

const gnn_oracle_entry gnn_oracle_partition_build = {
    .name = "partition.build",
    .what = "partition structure (DistGNN-MB 3.1) from a part vector: solid/halo, local CSR, VID_o/VID_p, halo "
            "owners, split by owner, against the reference (gnn_partition_ref)",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "partition.h fixes every order (solid and halo by increasing global id, rows in CSR order): exact",
    .params = k_p_params, .n_params = N_P_PARAMS, .presets = k_p_presets,
    .ref = &k_part_ref, .impls = k_part_impls, .run = build_run,
};

/* ---- partition.verify: the property checker, and the metrics against the structure -------------- */

static gnn_oracle_outcome verify_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    part_input in;
    gnn_oracle_outcome o = make_input(ctx, c, &in);
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_partition *P;
    if ((o = run_build(ctx, c->impl->ops, "impl", &in, &P)) != GNN_ORACLE_PASS)
        return o;
    digest_partition(ctx, P);
    gnn_err err = { "" };
    gnn_status st = gnn_partition_verify(P, in.g, in.split, in.part, in.k, &err);
    if (st)
        return gnn_oracle_fail(ctx, "verify: %s", err.msg);
    gnn_part_quality q;
    if ((st = gnn_partition_quality(in.g, in.split, in.part, in.k, 0, &q, &err)))
        return gnn_oracle_fail(ctx, "gnn_partition_quality: %s (%s)", gnn_status_str(st), err.msg);
    for (int64_t p = 0; p < in.k && o == GNN_ORACLE_PASS; p++)
        if (q.solid[p] != P->parts[p].n_solid || q.halo[p] != P->parts[p].n_halo)
            o = gnn_oracle_fail(ctx, "part %lld: quality says %lld solid, %lld halo; the structure has %lld, %lld",
                                (long long)p, (long long)q.solid[p], (long long)q.halo[p],
                                (long long)P->parts[p].n_solid, (long long)P->parts[p].n_halo);
    gnn_part_quality_free(&q);
    return o;
}

const gnn_oracle_entry gnn_oracle_partition_verify = {
    .name = "partition.verify",
    .what = "gnn_partition_verify (sorted pairs and triples): owned once, halo = cut in-neighbors, local edges = "
            "global edges of the part (multiset), id tables inverse, halo owners, split; metrics agree",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "structure: every property is exact",
    .params = k_p_params, .n_params = N_P_PARAMS, .presets = k_p_presets,
    .ref = &k_part_ref, .impls = k_part_impls, .run = verify_run,
};

/* ---- partition.files: save, reload, compare; one flipped byte refused ------------------------------ */

#include <ftw.h>
#include <unistd.h>

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(p);
}

static void remove_tree(void *dir)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int flip_byte(const char *path, uint64_t pick, unsigned char mask, int64_t *at)
{
    FILE *f = fopen(path, "r+b");
    if (!f)
        return -1;
    int rc = -1;
    if (fseek(f, 0, SEEK_END) == 0) {
        const long size = ftell(f);
        if (size > 0) {
            *at = (int64_t)(pick % (uint64_t)size);
            int ch;
            if (fseek(f, (long)*at, SEEK_SET) == 0 && (ch = fgetc(f)) != EOF && fseek(f, (long)*at, SEEK_SET) == 0 &&
                fputc(ch ^ mask, f) != EOF)
                rc = 0;
        }
    }
    if (fclose(f) != 0)
        rc = -1;
    return rc;
}

static gnn_oracle_outcome files_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    part_input in;
    gnn_oracle_outcome o = make_input(ctx, c, &in);
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_partition *want, *P;
    if ((o = run_build(ctx, c->entry->ref->ops, "ref", &in, &want)) != GNN_ORACLE_PASS)
        return o;
    if ((o = run_build(ctx, c->impl->ops, "impl", &in, &P)) != GNN_ORACLE_PASS)
        return o;
    /* two levels: T = 1 + seed mod 3 trainers, a random trainer vector (stream 7) */
    const int64_t n = in.g->n, T = 1 + (int64_t)(c->seed % 3), f = 3;
    int32_t *trainer = gnn_oracle_alloc(ctx, (size_t)(n + 1) * sizeof(int32_t));
    float *feat = gnn_oracle_alloc(ctx, (size_t)(n * f + 1) * sizeof(float));
    int32_t *labels = gnn_oracle_alloc(ctx, (size_t)(n + 1) * sizeof(int32_t));
    if (!trainer || !feat || !labels)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws d = gnn_oracle_draws_make(c, 7);
    for (int64_t v = 0; v < n; v++) {
        trainer[v] = (int32_t)gnn_oracle_draw_uint(&d, (uint64_t)T);
        labels[v] = (int32_t)gnn_oracle_draw_uint(&d, 5) - 1; /* -1 = unlabelled */
        for (int64_t j = 0; j < f; j++)
            feat[v * f + j] = gnn_oracle_draw_float(&d) - 0.5f;
    }
    gnn_err err = { "" };
    gnn_status st;
    if ((st = gnn_partition_set_trainers(want, trainer, T, &err)) || (st = gnn_partition_set_trainers(P, trainer, T, &err)))
        return gnn_oracle_fail(ctx, "set_trainers: %s", err.msg);
    gnn_dataset ds;
    memset(&ds, 0, sizeof ds);
    snprintf(ds.name, sizeof ds.name, "oracle");
    ds.graph = *in.g;
    ds.graph.owns = 0;
    ds.num_features = f;
    ds.num_classes = 4;
    ds.feat = feat;
    ds.labels = labels;
    ds.split = in.split;
    char *dir = gnn_oracle_alloc(ctx, 64);
    if (!dir)
        return gnn_oracle_fail(ctx, "out of memory");
    const char *tmpdir = getenv("TMPDIR");
    snprintf(dir, 64, "%s/gnnref-oracle-XXXXXX", tmpdir && strlen(tmpdir) < 30 ? tmpdir : "/tmp");
    if (!mkdtemp(dir))
        return gnn_oracle_fail(ctx, "mkdtemp %s failed", dir);
    gnn_oracle_defer(ctx, remove_tree, dir);
    if ((st = gnn_partition_save(dir, P, &ds, NULL, &err)))
        return gnn_oracle_fail(ctx, "save: %s (%s)", gnn_status_str(st), err.msg);
    gnn_partition *Q = gnn_oracle_alloc(ctx, sizeof *Q);
    gnn_csr *g = gnn_oracle_alloc(ctx, sizeof *g);
    if (!Q || !g)
        return gnn_oracle_fail(ctx, "out of memory");
    st = gnn_partition_load(dir, Q, g, NULL, &err);
    gnn_oracle_defer(ctx, free_partition, Q);
    gnn_oracle_defer(ctx, free_csr, g);
    if (st)
        return gnn_oracle_fail(ctx, "load: %s (%s)", gnn_status_str(st), err.msg);
    digest_partition(ctx, Q);
    /* reloaded == the reference structure, bit for bit; the rebuilt graph == the input */
    if ((st = gnn_partition_compare(want, Q, &err)))
        return gnn_oracle_fail(ctx, "reloaded set differs from ref: %s", err.msg);
    if (g->n != in.g->n || g->nnz != in.g->nnz ||
        memcmp(g->indptr, in.g->indptr, ((size_t)n + 1) * sizeof(int64_t)) != 0 ||
        (g->nnz && memcmp(g->indices, in.g->indices, (size_t)g->nnz * sizeof(int64_t)) != 0))
        return gnn_oracle_fail(ctx, "the graph rebuilt from the parts differs from the input");
    /* one flipped bit in one file (seeded): refused, naming the file */
    const int64_t which = (int64_t)gnn_oracle_draw_uint(&d, (uint64_t)in.k + 1); /* 0 = manifest */
    char path[128], name[32];
    if (which == 0)
        snprintf(name, sizeof name, "manifest.json");
    else
        snprintf(name, sizeof name, "part-%05lld.gnn", (long long)(which - 1));
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int64_t at = 0;
    const unsigned char mask = (unsigned char)(1u << gnn_oracle_draw_uint(&d, 8));
    if (flip_byte(path, gnn_oracle_draw_uint(&d, UINT64_MAX), mask, &at))
        return gnn_oracle_fail(ctx, "cannot flip a byte of %s", path);
    gnn_partition R;
    st = gnn_partition_load(dir, &R, NULL, NULL, &err);
    if (st == GNN_OK) {
        gnn_partition_free(&R);
        return gnn_oracle_fail(ctx, "%s with byte %lld ^ 0x%02x loaded without error", name, (long long)at, mask);
    }
    if (!strstr(err.msg, name))
        return gnn_oracle_fail(ctx, "%s byte %lld ^ 0x%02x: the error does not name the file: %s", name, (long long)at,
                               mask, err.msg);
    return GNN_ORACLE_PASS;
}

const gnn_oracle_entry gnn_oracle_partition_files = {
    .name = "partition.files",
    .what = "partition set written from each implementation's structure (two levels, features, labels, split), "
            "reloaded: bitwise the ref structure and the input graph; one seeded flipped bit refused, naming the file",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "files store every array as is and carry CRC32Cs: exact",
    .params = k_p_params, .n_params = N_P_PARAMS, .presets = k_p_presets,
    .ref = &k_part_ref, .impls = k_part_impls, .run = files_run,
};
