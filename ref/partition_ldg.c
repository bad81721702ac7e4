/* ref/partition_ldg.c -- the ldg part vector, serially: the specification that
 * opt/cpu/partition_ldg.c reproduces bit for bit (include/gnnref/partition.h, docs/partitioning.md
 * section 2.5). Linear deterministic greedy streaming, @sec{LDG 3} (Stanton and Kliot, "Streaming
 * graph partitioning for large distributed graphs", KDD 2012, section 3's heuristics: the
 * "linear weighted deterministic greedy"): one pass over the vertices, each placed for good
 * when it arrives, memory O(n + K) beyond the graph.
 *
 * For every batch [b0, b1) of GNN_LDG_BATCH consecutive ids, and every v in it in increasing id:
 *   1. cnt[i] = the entries u of v's row (its in-edge sources) with u < b0 and part[u] = i:
 *      only earlier batches count, which is what lets opt/cpu count a batch in parallel;
 *   2. part[v] = gnn_ldg_choose: among the parts with cnt[i] > 0 that can take v's weights,
 *      the best by score cnt[i] (1 - fill(i)), then lower fill, then lower index; with no
 *      positive score, the part it fills least, max_c (load_c(i) + w_c) / C_c (a scan, lower
 *      index first): within capacity when some part can take it;
 *   3. the part's loads grow by v's weights. */
#include <string.h>
#include "gnnref/partition.h"
#include "gnnref/tensor.h"
#include "ref/partition_ldg_impl.h"

gnn_status gnn_partition_ldg_ref(const gnn_csr *g, const int64_t *vwgt, int ncon, int64_t k, int ufactor, int32_t *part)
{
    gnn_ldg s;
    int64_t *cnt = gnn_malloc((size_t)k * sizeof(int64_t));
    int64_t *cand = gnn_malloc((size_t)k * sizeof(int64_t)); /* the parts of cnt[] > 0, first seen first */
    if (!cnt || !cand || gnn_ldg_init(&s, vwgt, g->n, ncon, k, ufactor)) {
        gnn_free(cnt);
        gnn_free(cand);
        return GNN_ERR_NOMEM;
    }
    memset(cnt, 0, (size_t)k * sizeof(int64_t));
    for (int64_t b0 = 0; b0 < g->n; b0 += GNN_LDG_BATCH) {
        const int64_t b1 = b0 + GNN_LDG_BATCH < g->n ? b0 + GNN_LDG_BATCH : g->n;
        for (int64_t v = b0; v < b1; v++) {
            int64_t m = 0;
            for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
                const int64_t u = g->indices[e];
                if (u < b0 && cnt[part[u]]++ == 0)
                    cand[m++] = part[u];
            }
            const int64_t *w = vwgt + v * ncon;
            const int64_t i = gnn_ldg_choose(&s, cand, m, cnt, w, gnn_ldg_least(&s, w));
            part[v] = (int32_t)i;
            gnn_ldg_commit(&s, i, w);
            for (int64_t j = 0; j < m; j++)
                cnt[cand[j]] = 0;
        }
    }
    gnn_ldg_free(&s);
    gnn_free(cnt);
    gnn_free(cand);
    return GNN_OK;
}
