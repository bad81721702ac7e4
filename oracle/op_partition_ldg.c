/* oracle/op_partition_ldg.c -- the oracle entry of the ldg partitioner (include/gnnref/partition.h,
 * docs/partitioning.md section 2.5):
 *
 *   partition.ldg   bitwise: every implementation's part vector (cpu at 1, 2 and 4 threads)
 *                   against the reference's (gnn_partition_ref.ldg), both through
 *                   gnn_partition_assign; then a verifier that does not stream: for each vertex
 *                   in id order it rebuilds the loads of the vertices before it and the counts of
 *                   its sources in earlier batches from the output alone, and checks that the
 *                   part chosen is the rule's (the best admissible positive score, ties by fill
 *                   then index; else the part it fills least); and,
 *                   with two batches or more,
 *                   against hash on the same graph: the edge cut must not be larger (a greedy
 *                   that ignored the neighbors would be).
 *
 * Inputs: R-MAT (gen=0) or a 4-class SBM (gen=1) with 2^scale vertices, several batches of
 * GNN_LDG_BATCH (scale >= 11), optionally the directed multigraph of the partition entries
 * (directed=1), a random split (40/20/20/20 %) and the balance columns `balance` (bits train 1,
 * val 2, test 4, degree 8), capacity slack `ufactor` per mille. */
#include <stdio.h>
#include <string.h>
#include "gnnref/dataset.h"
#include "gnnref/oracle.h"
#include "gnnref/partition.h"
#include "gnnref/tensor.h"

static const gnn_oracle_impl k_ldg_ref = { .name = "ref", .ops = &gnn_partition_ref, .flags = 0 };
static const gnn_oracle_impl k_ldg_cpu = { .name = "cpu", .ops = &gnn_partition_cpu, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_ldg_impls[] = { &k_ldg_ref, &k_ldg_cpu, NULL };

enum { L_GEN, L_SCALE, L_EF, L_K, L_DIRECTED, L_BALANCE, L_UFACTOR, N_L_PARAMS };
static const gnn_oracle_param k_l_params[N_L_PARAMS] = {
    { "gen", GNN_PARAM_INT, 0, 1, "graph: 0 R-MAT (Graph500), 1 SBM (4 classes)" },
    { "scale", GNN_PARAM_INT, 1, 18, "2^scale vertices" },
    { "ef", GNN_PARAM_INT, 1, 64, "edge factor (R-MAT) or average degree (SBM)" },
    { "k", GNN_PARAM_INT, 2, 1024, "parts" },
    { "directed", GNN_PARAM_INT, 0, 1, "1: drop 1/4 of the in-edges, add self-loops and repeated edges" },
    { "balance", GNN_PARAM_INT, 0, 15, "balance columns: bits train 1, val 2, test 4, degree 8" },
    { "ufactor", GNN_PARAM_INT, 1, 1000000, "capacity slack, per mille (1 + ufactor / 1000)" },
};
/* one batch only (every vertex by fill), a batch and a bit, many batches; k = 2 to 64 and k
 * near the batch; tight (1) and loose capacities; the multi-column capacities; R-MAT's hubs and
 * degree-0 vertices; the directed multigraph */
static const char *const k_l_presets[] = {
    "gen=1,scale=8,ef=8,k=4,directed=0,balance=0,ufactor=30",
    "gen=1,scale=11,ef=8,k=4,directed=0,balance=0,ufactor=30",
    "gen=1,scale=13,ef=10,k=8,directed=0,balance=0,ufactor=1",
    "gen=0,scale=13,ef=8,k=16,directed=0,balance=0,ufactor=30",
    "gen=0,scale=12,ef=4,k=2,directed=1,balance=0,ufactor=100",
    "gen=1,scale=12,ef=8,k=8,directed=0,balance=9,ufactor=30",
    "gen=0,scale=12,ef=8,k=4,directed=1,balance=15,ufactor=50",
    "gen=1,scale=14,ef=6,k=64,directed=0,balance=1,ufactor=30",
    "gen=0,scale=11,ef=16,k=1000,directed=0,balance=0,ufactor=30",
    NULL,
};

/* ---- the verifier: every decision of the output against the rule ------------------------------ */

typedef struct ldg_check {
    const gnn_csr *g;
    const int64_t *w; /* (n x ncon) the balance columns */
    int ncon;
    int64_t k;
    double cap[GNN_PART_MAX_CON];
    int64_t *load; /* (k x ncon) the loads of the vertices before the one checked */
    int64_t *cnt;  /* (k) its sources' counts */
} ldg_check;

static double check_fill(const ldg_check *C, int64_t i)
{
    double f = 0.0;
    for (int c = 0; c < C->ncon; c++)
        if ((double)C->load[i * C->ncon + c] / C->cap[c] > f)
            f = (double)C->load[i * C->ncon + c] / C->cap[c];
    return f;
}

/* What the rule gives vertex v: the parts are read in index order here (the implementations read
 * them in the order the sources show them), so a rule that depended on that order would differ. */
static int64_t check_rule(const ldg_check *C, int64_t v)
{
    const int64_t *wv = C->w + v * C->ncon;
    int64_t best = -1, least = 0;
    double best_score = 0.0, best_fill = 0.0, least_after = 0.0;
    for (int64_t i = 0; i < C->k; i++) {
        const double f = check_fill(C, i);
        int fits = 1;
        double after = 0.0; /* the fill i would have with v */
        for (int c = 0; c < C->ncon; c++) {
            const double x = (double)(C->load[i * C->ncon + c] + wv[c]) / C->cap[c];
            fits &= (double)(C->load[i * C->ncon + c] + wv[c]) <= C->cap[c];
            after = x > after ? x : after;
        }
        if (i == 0 || after < least_after) {
            least = i;
            least_after = after;
        }
        if (!fits || C->cnt[i] == 0)
            continue;
        const double score = (double)C->cnt[i] * (1.0 - f);
        if (best < 0 || score > best_score || (score == best_score && f < best_fill)) {
            best = i; /* i increases: an equal score and fill keeps the lower index */
            best_score = score;
            best_fill = f;
        }
    }
    return best >= 0 && best_score > 0.0 ? best : least;
}

static gnn_oracle_outcome verify_decisions(gnn_oracle_ctx *ctx, ldg_check *C, const int32_t *part, int ufactor)
{
    const gnn_csr *g = C->g;
    for (int c = 0; c < C->ncon; c++) {
        int64_t W = 0;
        for (int64_t v = 0; v < g->n; v++)
            W += C->w[v * C->ncon + c];
        C->cap[c] = (1.0 + (double)ufactor / 1000.0) * (double)W / (double)C->k;
    }
    for (int64_t v = 0; v < g->n; v++) {
        if (part[v] < 0 || part[v] >= C->k)
            return gnn_oracle_fail(ctx, "vertex %lld: part %d outside [0, %lld)", (long long)v, part[v],
                                   (long long)C->k);
        const int64_t b0 = v / GNN_LDG_BATCH * GNN_LDG_BATCH;
        memset(C->cnt, 0, (size_t)C->k * sizeof(int64_t));
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++)
            if (g->indices[e] < b0)
                C->cnt[part[g->indices[e]]]++;
        const int64_t want = check_rule(C, v);
        if (part[v] != want)
            return gnn_oracle_fail(ctx, "vertex %lld (batch from %lld): part %d, the rule gives %lld (score %lld "
                                   "neighbors there, %lld in the part given)", (long long)v, (long long)b0, part[v],
                                   (long long)want, (long long)C->cnt[want], (long long)C->cnt[part[v]]);
        for (int c = 0; c < C->ncon; c++)
            C->load[(int64_t)part[v] * C->ncon + c] += C->w[v * C->ncon + c];
    }
    return GNN_ORACLE_PASS;
}

/* ---- the case ---------------------------------------------------------------------------------- */

static gnn_oracle_outcome assign(gnn_oracle_ctx *ctx, const gnn_partition_ops *ops, const char *who, const gnn_csr *g,
                                 const uint8_t *split, const gnn_part_options *base, gnn_part_method method,
                                 int32_t *part)
{
    gnn_part_options o = *base;
    o.method = method;
    o.ops = ops;
    gnn_err err = { "" };
    const gnn_status st = gnn_partition_assign(g, split, &o, part, NULL, &err);
    return st ? gnn_oracle_fail(ctx, "%s: %s (%s)", who, gnn_status_str(st), err.msg) : GNN_ORACLE_PASS;
}

static gnn_oracle_outcome cut_of(gnn_oracle_ctx *ctx, const gnn_csr *g, const int32_t *part, int64_t k, int64_t *cut)
{
    gnn_part_quality q;
    gnn_err err = { "" };
    if (gnn_partition_quality(g, NULL, part, k, 0, &q, &err))
        return gnn_oracle_fail(ctx, "gnn_partition_quality: %s", err.msg);
    *cut = q.edge_cut;
    gnn_part_quality_free(&q);
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome ldg_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int64_t k = gnn_oracle_int(c, L_K);
    const gnn_csr *g;
    gnn_oracle_outcome o = gnn_oracle_case_graph_multi(ctx, c, (int)gnn_oracle_int(c, L_GEN),
                                                       (int)gnn_oracle_int(c, L_SCALE), gnn_oracle_int(c, L_EF),
                                                       c->seed * 0x9E3779B97F4A7C15ull + 41,
                                                       (int)gnn_oracle_int(c, L_DIRECTED), &g);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t n = g->n;
    if (k > n)
        return gnn_oracle_fail(ctx, "invalid case: k = %lld parts for %lld vertices", (long long)k, (long long)n);
    uint8_t *split = gnn_oracle_alloc(ctx, (size_t)n + 1);
    int32_t *want = gnn_oracle_alloc(ctx, ((size_t)n + 1) * sizeof(int32_t));
    int32_t *got = gnn_oracle_alloc_out(ctx, "part", ((size_t)n + 1) * sizeof(int32_t));
    int32_t *hash = gnn_oracle_alloc(ctx, ((size_t)n + 1) * sizeof(int32_t));
    if (!split || !want || !got || !hash)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws d = gnn_oracle_draws_make(c, 6);
    for (int64_t v = 0; v < n; v++) {
        const uint64_t r = gnn_oracle_draw_uint(&d, 100);
        split[v] = r < 40 ? GNN_SPLIT_TRAIN : r < 60 ? GNN_SPLIT_VAL : r < 80 ? GNN_SPLIT_TEST : GNN_SPLIT_NONE;
    }
    gnn_part_options base;
    gnn_part_defaults(&base);
    base.k = k;
    base.balance = (unsigned)gnn_oracle_int(c, L_BALANCE);
    base.ufactor = (int)gnn_oracle_int(c, L_UFACTOR);
    const gnn_oracle_impl *ref = c->entry->ref; /* gnn_partition_ref (a test may swap in a mutant) */
    if ((o = assign(ctx, ref->ops, ref->name, g, split, &base, GNN_PART_LDG, want)) != GNN_ORACLE_PASS ||
        (o = assign(ctx, c->impl->ops, c->impl->name, g, split, &base, GNN_PART_LDG, got)) != GNN_ORACLE_PASS)
        return o;
    gnn_oracle_digest(ctx, got, (size_t)n * sizeof(int32_t));
    if ((o = gnn_oracle_compare_int(ctx, "part", want, got, n, sizeof(int32_t))) != GNN_ORACLE_PASS)
        return o;
    /* every decision against the rule */
    ldg_check C = { .g = g, .k = k };
    unsigned con[GNN_PART_MAX_CON];
    gnn_err err = { "" };
    int64_t *w;
    if (gnn_partition_weights(g, split, base.balance, &w, &C.ncon, con, &err))
        return gnn_oracle_fail(ctx, "gnn_partition_weights: %s", err.msg);
    C.w = w;
    C.load = gnn_oracle_alloc(ctx, (size_t)(k * C.ncon) * sizeof(int64_t));
    C.cnt = gnn_oracle_alloc(ctx, (size_t)k * sizeof(int64_t));
    o = C.load && C.cnt ? verify_decisions(ctx, &C, got, base.ufactor) : gnn_oracle_fail(ctx, "out of memory");
    gnn_free(w);
    if (o != GNN_ORACLE_PASS)
        return o;
    /* no worse than hash: the neighbors were used. Only with two batches or more: the first batch
     * has no earlier neighbors, so it goes by fill alone (round robin, as blind as hash) */
    if (n < 2 * GNN_LDG_BATCH)
        return GNN_ORACLE_PASS;
    int64_t cut_ldg = 0, cut_hash = 0;
    if ((o = assign(ctx, &gnn_partition_ref, "hash", g, split, &base, GNN_PART_HASH, hash)) != GNN_ORACLE_PASS ||
        (o = cut_of(ctx, g, got, k, &cut_ldg)) != GNN_ORACLE_PASS || (o = cut_of(ctx, g, hash, k, &cut_hash)) != GNN_ORACLE_PASS)
        return o;
    if (cut_ldg > cut_hash)
        return gnn_oracle_fail(ctx, "edge cut %lld, above hash's %lld on the same graph", (long long)cut_ldg,
                               (long long)cut_hash);
    return GNN_ORACLE_PASS;
}

const gnn_oracle_entry gnn_oracle_partition_ldg = {
    .name = "partition.ldg",
    .what = "ldg streaming part vector (Stanton-Kliot): bitwise the reference, every decision the rule's given the "
            "output before it, edge cut no larger than hash's",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "integer counts and the same double expressions in a total order: exact",
    .params = k_l_params, .n_params = N_L_PARAMS, .presets = k_l_presets,
    .ref = &k_ldg_ref, .impls = k_ldg_impls, .run = ldg_run,
};
