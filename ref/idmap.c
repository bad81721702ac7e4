/* ref/idmap.c -- reference global-to-local ID map (DGL to_block order).
 *
 * Plain C11, no threads: the specification of the block's src order (DESIGN.md section 2,
 * "Orders"). dst vertices take local ids 0..n_dst-1 in seed order; then each sampled
 * neighbor not seen before takes the next id, scanning the neighbors in order. The map is a
 * plain open-addressing hash table with linear probing, filled serially, so the order of
 * first appearance is simply the insertion order. opt/cpu/idmap.c reproduces it in parallel.
 * gnn_idmap_ref is the same map as an ops table (its arguments checked by gnn_idmap_build in
 * core/ops/minibatch.c). */
#include <string.h>
#include "gnnref/aggregate.h" /* GNN_CAP_* */
#include "gnnref/idmap.h"
#include "gnnref/tensor.h"

typedef struct id_table {
    int64_t *key;  /* (cap) global id, -1 = empty */
    int64_t *val;  /* (cap) local id */
    uint64_t mask; /* cap - 1, cap a power of two >= 2 * items */
} id_table;

static gnn_status table_init(id_table *t, int64_t max_items)
{
    uint64_t cap = 16;
    while (cap < 2 * (uint64_t)max_items)
        cap <<= 1;
    t->key = gnn_malloc(cap * sizeof(int64_t));
    t->val = gnn_malloc(cap * sizeof(int64_t));
    t->mask = cap - 1;
    if (!t->key || !t->val)
        return GNN_ERR_NOMEM;
    for (uint64_t i = 0; i < cap; i++)
        t->key[i] = -1;
    return GNN_OK;
}

static void table_free(id_table *t)
{
    gnn_free(t->key);
    gnn_free(t->val);
}

/* Slot of gid: either the slot holding it or the empty slot where it would go. */
static uint64_t table_slot(const id_table *t, int64_t gid)
{
    uint64_t h = ((uint64_t)gid * 0x9E3779B97F4A7C15ull) & t->mask;
    while (t->key[h] != -1 && t->key[h] != gid)
        h = (h + 1) & t->mask;
    return h;
}

gnn_status gnn_idmap_build_ref(const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                               int32_t *local, int64_t *src_gid, int64_t *n_src)
{
    if (n_dst < 0 || nnz < 0 || n_dst + nnz > INT32_MAX)
        return GNN_ERR_RANGE;
    id_table t;
    gnn_status st = table_init(&t, n_dst + nnz);
    if (st)
        goto done;
    /* dst vertices first, in seed order; a repeated seed is an error */
    for (int64_t i = 0; i < n_dst; i++) {
        if (dst[i] < 0) {
            st = GNN_ERR_RANGE;
            goto done;
        }
        const uint64_t h = table_slot(&t, dst[i]);
        if (t.key[h] == dst[i]) {
            st = GNN_ERR_INVAL;
            goto done;
        }
        t.key[h] = dst[i];
        t.val[h] = i;
        src_gid[i] = dst[i];
    }
    int64_t next = n_dst;
    for (int64_t e = 0; e < nnz; e++) {
        const int64_t u = nbr[e];
        if (u < 0) {
            st = GNN_ERR_RANGE;
            goto done;
        }
        const uint64_t h = table_slot(&t, u);
        if (t.key[h] != u) { /* first appearance: the next local id */
            t.key[h] = u;
            t.val[h] = next;
            src_gid[next++] = u;
        }
        local[e] = (int32_t)t.val[h];
    }
    *n_src = next;
    st = GNN_OK;
done:
    table_free(&t);
    return st;
}

/* ---- the reference as an ID map object (gnn_idmap_ops, idmap.h) ---------------------------------
 * The table is allocated per build, so the object holds nothing: every kind is this one map. */
static gnn_status ref_create(void **state, gnn_idmap_kind kind, int64_t n_vertices)
{
    (void)kind; /* first-appearance order is the specification of every kind */
    (void)n_vertices;
    *state = NULL;
    return GNN_OK;
}

static gnn_status ref_build(void *state, const int64_t *dst, int64_t n_dst, const int64_t *nbr, int64_t nnz,
                            int32_t *local, int64_t *src_gid, int64_t *n_src)
{
    (void)state;
    return gnn_idmap_build_ref(dst, n_dst, nbr, nnz, local, src_gid, n_src);
}

static void ref_destroy(void *state) { (void)state; }

const gnn_idmap_ops gnn_idmap_ref = {
    .name = "ref",
    .caps = GNN_CAP_DETERMINISTIC,
    .create = ref_create,
    .build = ref_build,
    .destroy = ref_destroy,
};
