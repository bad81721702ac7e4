/* ref/partition_ldg_impl.h -- the rules of the ldg partitioner (include/gnnref/partition.h,
 * docs/partitioning.md section 2.5) that the reference (ref/partition_ldg.c) and the cpu version
 * (opt/cpu/partition_ldg.c) both evaluate, written once: the parts' loads and capacities, the
 * fill of a part, whether a part can take a vertex, the score and its tie rule. The two differ
 * only in how they find a vertex's neighbor counts (serially; in parallel per batch) and the
 * least filled part (a scan; a heap): both give the same part for every vertex because the
 * order below is total. Internal to ref/ and opt/cpu/. */
#ifndef GNNREF_REF_PARTITION_LDG_IMPL_H
#define GNNREF_REF_PARTITION_LDG_IMPL_H

#include <stdint.h>
#include <stdlib.h>
#include "gnnref/partition.h"
#include "gnnref/tensor.h"

/* The tables' ldg bodies (gnn_partition_ops.ldg): ref/partition_ldg.c, opt/cpu/partition_ldg.c. */
gnn_status gnn_partition_ldg_ref(const gnn_csr *g, const int64_t *vwgt, int ncon, int64_t k, int ufactor, int32_t *part);
gnn_status gnn_partition_ldg_cpu(const gnn_csr *g, const int64_t *vwgt, int ncon, int64_t k, int ufactor, int32_t *part);

typedef struct gnn_ldg {
    int64_t k;
    int ncon;
    double cap[GNN_PART_MAX_CON]; /* C_c = (1 + ufactor / 1000) W_c / k */
    int64_t *load;                /* (k x ncon) row-major: load_c(i) */
} gnn_ldg;

/* Capacities from the columns' totals W_c; loads zero. GNN_ERR_NOMEM. */
static inline gnn_status gnn_ldg_init(gnn_ldg *s, const int64_t *vwgt, int64_t n, int ncon, int64_t k, int ufactor)
{
    s->k = k;
    s->ncon = ncon;
    s->load = gnn_malloc((size_t)k * (size_t)ncon * sizeof(int64_t));
    if (!s->load)
        return GNN_ERR_NOMEM;
    for (int64_t i = 0; i < k * ncon; i++)
        s->load[i] = 0;
    for (int c = 0; c < ncon; c++) {
        int64_t W = 0;
        for (int64_t v = 0; v < n; v++)
            W += vwgt[v * ncon + c];
        s->cap[c] = (1.0 + (double)ufactor / 1000.0) * (double)W / (double)k;
    }
    return GNN_OK;
}

static inline void gnn_ldg_free(gnn_ldg *s) { gnn_free(s->load); }

/* fill(i) = max_c load_c(i) / C_c */
static inline double gnn_ldg_fill(const gnn_ldg *s, int64_t i)
{
    double f = 0.0;
    for (int c = 0; c < s->ncon; c++) {
        const double x = (double)s->load[i * s->ncon + c] / s->cap[c];
        if (x > f)
            f = x;
    }
    return f;
}

/* Can part i take a vertex of weights w (ncon) within every capacity? */
static inline int gnn_ldg_admits(const gnn_ldg *s, int64_t i, const int64_t *w)
{
    for (int c = 0; c < s->ncon; c++)
        if ((double)(s->load[i * s->ncon + c] + w[c]) > s->cap[c])
            return 0;
    return 1;
}

static inline void gnn_ldg_commit(gnn_ldg *s, int64_t i, const int64_t *w)
{
    for (int c = 0; c < s->ncon; c++)
        s->load[i * s->ncon + c] += w[c];
}

/* Stanton and Kliot's greedy score: count neighbors already in i, damped by how full i is. */
static inline double gnn_ldg_score(const gnn_ldg *s, int64_t i, int64_t count)
{
    return (double)count * (1.0 - gnn_ldg_fill(s, i));
}

/* The candidates' order: a higher score, then a lower fill, then a lower index. Total, so the
 * best of a set does not depend on the order the set is read in. */
static inline int gnn_ldg_better(double score_a, double fill_a, int64_t a, double score_b, double fill_b, int64_t b)
{
    if (score_a != score_b)
        return score_a > score_b;
    if (fill_a != fill_b)
        return fill_a < fill_b;
    return a < b;
}

/* The fallback part of a vertex of weights w: the part it fills least, the lowest
 * max_c (load_c(i) + w_c) / C_c, lower index first: within capacity whenever a part can take
 * it, and the smallest overflow when none can (every vertex gets a part). A scan. With one
 * column it is the least filled part (the same w on every part keeps the loads' order). */
static inline int64_t gnn_ldg_least(const gnn_ldg *s, const int64_t *w)
{
    int64_t best = 0;
    double best_after = 0.0;
    for (int64_t i = 0; i < s->k; i++) {
        double after = 0.0;
        for (int c = 0; c < s->ncon; c++) {
            const double x = (double)(s->load[i * s->ncon + c] + w[c]) / s->cap[c];
            if (x > after)
                after = x;
        }
        if (i == 0 || after < best_after) {
            best = i;
            best_after = after;
        }
    }
    return best;
}

/* The part of a vertex of weights w whose neighbors in earlier batches fall in parts
 * cand[0..m) with counts cnt[cand[j]] (> 0): the best admissible candidate by gnn_ldg_better
 * when its score is positive, else least (gnn_ldg_least's part). */
static inline int64_t gnn_ldg_choose(const gnn_ldg *s, const int64_t *cand, int64_t m, const int64_t *cnt,
                                     const int64_t *w, int64_t least)
{
    int64_t best = -1;
    double best_score = 0.0, best_fill = 0.0;
    for (int64_t j = 0; j < m; j++) {
        const int64_t i = cand[j];
        if (!gnn_ldg_admits(s, i, w))
            continue;
        const double sc = gnn_ldg_score(s, i, cnt[i]), f = gnn_ldg_fill(s, i);
        if (best < 0 || gnn_ldg_better(sc, f, i, best_score, best_fill, best)) {
            best = i;
            best_score = sc;
            best_fill = f;
        }
    }
    return best >= 0 && best_score > 0.0 ? best : least;
}

#endif
