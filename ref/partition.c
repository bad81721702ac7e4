/* ref/partition.c -- the partition structure of DistGNN-MB section 3.1, serially: the
 * specification that opt/cpu/partition.c reproduces bit for bit (include/gnnref/partition.h).
 *
 * For every rank p, in the plainest possible way:
 *   1. solid = the vertices v with part[v] = p, scanned in increasing id;
 *   2. halo  = mark every in-neighbor u of a solid vertex with part[u] != p, then scan the
 *              marks in increasing id ("in-neighbors owned by other ranks": the vertices
 *              whose features p needs but does not store -- DistGNN-MB's u', v');
 *   3. VID_p: solid first, then halo; vid_o lists them, vid_p inverts it (-1 elsewhere);
 *   4. the local CSR: each solid row is its vertex's global in-edge row (same order) with
 *      every source replaced by its local id; halo rows are empty;
 *   5. each halo's owner and its local id there (its rank among its owner's vertices);
 *   6. train/val/test: the solid vertices of each split, as local ids. */
#include <string.h>
#include "gnnref/dataset.h"
#include "gnnref/partition.h"
#include "gnnref/tensor.h"
#include "ref/partition_ldg_impl.h" /* the table's ldg body */

static gnn_status build_part(gnn_part_local *L, int64_t p, const gnn_csr *g, const uint8_t *split, const int32_t *part,
                             const int64_t *owner_rank, char *mark)
{
    const int64_t n = g->n;
    L->rank = p;
    L->trainers = 1;
    /* 1 and 2: count solid, mark halo */
    int64_t n_solid = 0, n_halo = 0;
    memset(mark, 0, (size_t)n);
    for (int64_t v = 0; v < n; v++) {
        if (part[v] != p)
            continue;
        n_solid++;
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
            const int64_t u = g->indices[e];
            if (part[u] != p)
                mark[u] = 1;
        }
    }
    for (int64_t u = 0; u < n; u++)
        n_halo += mark[u];
    const int64_t n_local = n_solid + n_halo;
    L->n_solid = n_solid;
    L->n_halo = n_halo;
    /* 3: the id tables */
    L->vid_o = gnn_malloc((size_t)(n_local > 0 ? n_local : 1) * sizeof(int64_t));
    L->vid_p = gnn_malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    L->halo_owner = gnn_malloc((size_t)(n_halo > 0 ? n_halo : 1) * sizeof(int32_t));
    L->halo_owner_local = gnn_malloc((size_t)(n_halo > 0 ? n_halo : 1) * sizeof(int64_t));
    if (!L->vid_o || !L->vid_p || !L->halo_owner || !L->halo_owner_local)
        return GNN_ERR_NOMEM;
    int64_t l = 0;
    for (int64_t v = 0; v < n; v++)
        if (part[v] == p)
            L->vid_o[l++] = v;
    for (int64_t u = 0; u < n; u++)
        if (mark[u])
            L->vid_o[l++] = u;
    for (int64_t v = 0; v < n; v++)
        L->vid_p[v] = -1;
    for (l = 0; l < n_local; l++)
        L->vid_p[L->vid_o[l]] = l;
    /* 4: the local CSR */
    int64_t nnz = 0;
    for (l = 0; l < n_solid; l++)
        nnz += gnn_csr_degree(g, L->vid_o[l]);
    L->graph.n = n_local;
    L->graph.nnz = nnz;
    L->graph.owns = 1;
    L->graph.indptr = gnn_malloc(((size_t)n_local + 1) * sizeof(int64_t));
    L->graph.indices = gnn_malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(int64_t));
    if (!L->graph.indptr || !L->graph.indices)
        return GNN_ERR_NOMEM;
    int64_t at = 0;
    L->graph.indptr[0] = 0;
    for (l = 0; l < n_local; l++) {
        if (l < n_solid) {
            const int64_t v = L->vid_o[l];
            for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++)
                L->graph.indices[at++] = L->vid_p[g->indices[e]];
        }
        L->graph.indptr[l + 1] = at;
    }
    /* 5: halo owners */
    for (int64_t i = 0; i < n_halo; i++) {
        const int64_t u = L->vid_o[n_solid + i];
        L->halo_owner[i] = part[u];
        L->halo_owner_local[i] = owner_rank[u];
    }
    /* 6: the split by owner */
    int64_t cnt[4] = { 0, 0, 0, 0 };
    if (split)
        for (l = 0; l < n_solid; l++)
            if (split[L->vid_o[l]] >= 1 && split[L->vid_o[l]] <= 3)
                cnt[split[L->vid_o[l]]]++;
    L->n_train = cnt[GNN_SPLIT_TRAIN];
    L->n_val = cnt[GNN_SPLIT_VAL];
    L->n_test = cnt[GNN_SPLIT_TEST];
    L->train = gnn_malloc((size_t)(L->n_train > 0 ? L->n_train : 1) * sizeof(int64_t));
    L->val = gnn_malloc((size_t)(L->n_val > 0 ? L->n_val : 1) * sizeof(int64_t));
    L->test = gnn_malloc((size_t)(L->n_test > 0 ? L->n_test : 1) * sizeof(int64_t));
    if (!L->train || !L->val || !L->test)
        return GNN_ERR_NOMEM;
    int64_t it = 0, iv = 0, is = 0;
    if (split)
        for (l = 0; l < n_solid; l++) {
            const uint8_t s = split[L->vid_o[l]];
            if (s == GNN_SPLIT_TRAIN)
                L->train[it++] = l;
            else if (s == GNN_SPLIT_VAL)
                L->val[iv++] = l;
            else if (s == GNN_SPLIT_TEST)
                L->test[is++] = l;
        }
    return GNN_OK;
}

/* Arguments checked by gnn_partition_build (core/dist/partition.c). */
static gnn_status build_ref(gnn_partition *out, const gnn_csr *g, const uint8_t *split, const int32_t *part, int64_t k,
                            gnn_err *err)
{
    gnn_status s = GNN_OK;
    const int64_t n = g->n;
    /* owner_rank[v]: v's local id on its owner = how many vertices of its part come before it */
    int64_t *owner_rank = gnn_malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    int64_t *seen = gnn_calloc((size_t)k, sizeof(int64_t));
    char *mark = gnn_malloc((size_t)(n > 0 ? n : 1));
    out->n = n;
    out->k = k;
    out->trainers = 1;
    out->part = gnn_malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
    out->parts = gnn_calloc((size_t)k, sizeof(gnn_part_local));
    if (!owner_rank || !seen || !mark || !out->part || !out->parts) {
        s = GNN_ERR_NOMEM;
        goto done;
    }
    if (n > 0)
        memcpy(out->part, part, (size_t)n * sizeof(int32_t));
    for (int64_t v = 0; v < n; v++)
        owner_rank[v] = seen[part[v]]++;
    for (int64_t p = 0; p < k && !s; p++)
        s = build_part(&out->parts[p], p, g, split, part, owner_rank, mark);
done:
    gnn_free(owner_rank);
    gnn_free(seen);
    gnn_free(mark);
    if (s) {
        gnn_partition_free(out);
        if (s == GNN_ERR_NOMEM)
            gnn_err_set(err, s, "partition (ref): out of memory");
    }
    return s;
}

const gnn_partition_ops gnn_partition_ref = { "ref", build_ref, gnn_partition_ldg_ref };
