/* core/dist/hec.c -- the public HEC API (include/gnnref/hec.h): argument checks, then the
 * implementation's ops. Every check happens before the first change, so a failed call
 * leaves the cache exactly as it was, and ref/hec.c and opt/cpu/hec.c can assume valid
 * input. */
#include <stdint.h>
#include <string.h>
#include "gnnref/hec.h"

static int ops_complete(const gnn_hec_ops *o)
{
    return o && o->name && o->init && o->reset && o->destroy && o->age && o->store && o->search && o->load;
}

static int ready(const gnn_hec *h)
{
    return h && ops_complete(h->ops) && h->cs >= 1 && h->dim >= 1 && h->tag && h->age && h->emb;
}

gnn_status gnn_hec_init(gnn_hec *h, const gnn_hec_ops *ops, int64_t cs, int64_t dim, int32_t ls, gnn_err *err)
{
    if (!h)
        return gnn_err_set(err, GNN_ERR_INVAL, "hec: init: NULL cache");
    memset(h, 0, sizeof *h);
    if (!ops_complete(ops))
        return gnn_err_set(err, GNN_ERR_INVAL, "hec: init: incomplete ops table (%s)",
                           ops && ops->name ? ops->name : "unnamed");
    if (cs < 1)
        return gnn_err_set(err, GNN_ERR_INVAL, "hec: cache size cs = %lld: need cs >= 1", (long long)cs);
    if (dim < 1)
        return gnn_err_set(err, GNN_ERR_INVAL, "hec: embedding width dim = %lld: need dim >= 1", (long long)dim);
    if (ls < 0)
        return gnn_err_set(err, GNN_ERR_INVAL, "hec: lifespan ls = %d: need ls >= 0", (int)ls);
    if ((uint64_t)cs > (uint64_t)(SIZE_MAX / 2 / sizeof(float)) / (uint64_t)dim)
        return gnn_err_set(err, GNN_ERR_RANGE, "hec: cs = %lld lines of dim = %lld floats do not fit in memory",
                           (long long)cs, (long long)dim);
    h->ops = ops;
    h->cs = cs;
    h->dim = dim;
    h->ls = ls;
    h->age_cap = ls < INT32_MAX ? ls + 1 : INT32_MAX;
    gnn_status s = ops->init(h);
    if (s) {
        memset(h, 0, sizeof *h);
        return gnn_err_set(err, s, "hec: init (%s, cs = %lld, dim = %lld): %s", ops->name, (long long)cs,
                           (long long)dim, gnn_status_str(s));
    }
    return GNN_OK;
}

void gnn_hec_reset(gnn_hec *h)
{
    if (ready(h))
        h->ops->reset(h);
}

void gnn_hec_free(gnn_hec *h)
{
    if (!h)
        return;
    if (h->ops && h->ops->destroy)
        h->ops->destroy(h);
    memset(h, 0, sizeof *h);
}

void gnn_hec_age(gnn_hec *h)
{
    if (ready(h))
        h->ops->age(h);
}

/* ids in [0, INT64_MAX]: a negative id would alias GNN_HEC_EMPTY or mean nothing */
static gnn_status check_ids(const char *op, const int64_t *ids, int64_t m, gnn_err *err)
{
    for (int64_t i = 0; i < m; i++)
        if (ids[i] < 0)
            return gnn_err_set(err, GNN_ERR_RANGE, "hec: %s: ids[%lld] = %lld: vertex ids must be >= 0", op,
                               (long long)i, (long long)ids[i]);
    return GNN_OK;
}

gnn_status gnn_hec_store(gnn_hec *h, const int64_t *ids, const float *emb, int64_t m, gnn_err *err)
{
    if (!ready(h))
        return gnn_err_set(err, GNN_ERR_INVAL, "hec: store: cache not initialized");
    if (m < 0 || (m > 0 && (!ids || !emb)))
        return gnn_err_set(err, GNN_ERR_INVAL, "hec: store: m = %lld with ids %s, emb %s", (long long)m,
                           ids ? "set" : "NULL", emb ? "set" : "NULL");
    gnn_status s = check_ids("store", ids, m, err);
    if (s)
        return s;
    if (m > 0)
        h->ops->store(h, ids, emb, m);
    return GNN_OK;
}

gnn_status gnn_hec_search(gnn_hec *h, const int64_t *ids, int64_t m, int64_t *lines, gnn_err *err)
{
    if (!ready(h))
        return gnn_err_set(err, GNN_ERR_INVAL, "hec: search: cache not initialized");
    if (m < 0 || (m > 0 && (!ids || !lines)))
        return gnn_err_set(err, GNN_ERR_INVAL, "hec: search: m = %lld with ids %s, lines %s", (long long)m,
                           ids ? "set" : "NULL", lines ? "set" : "NULL");
    gnn_status s = check_ids("search", ids, m, err);
    if (s)
        return s;
    if (m > 0)
        h->ops->search(h, ids, m, lines);
    return GNN_OK;
}

gnn_status gnn_hec_load(const gnn_hec *h, const int64_t *lines, int64_t m, float *out, gnn_err *err)
{
    if (!ready(h))
        return gnn_err_set(err, GNN_ERR_INVAL, "hec: load: cache not initialized");
    if (m < 0 || (m > 0 && (!lines || !out)))
        return gnn_err_set(err, GNN_ERR_INVAL, "hec: load: m = %lld with lines %s, out %s", (long long)m,
                           lines ? "set" : "NULL", out ? "set" : "NULL");
    for (int64_t i = 0; i < m; i++)
        if (lines[i] < -1 || lines[i] >= h->cs)
            return gnn_err_set(err, GNN_ERR_RANGE, "hec: load: lines[%lld] = %lld: outside [-1, cs = %lld)",
                               (long long)i, (long long)lines[i], (long long)h->cs);
    if (m > 0)
        h->ops->load(h, lines, m, out);
    return GNN_OK;
}

int64_t gnn_hec_occupied(const gnn_hec *h)
{
    if (!h || !h->tag)
        return 0;
    int64_t n = 0;
    for (int64_t i = 0; i < h->cs; i++)
        n += h->tag[i] != GNN_HEC_EMPTY;
    return n;
}

gnn_status gnn_hec_restore(gnn_hec *h, const int64_t *tag, const int32_t *age, const float *emb, int64_t wp,
                           const gnn_hec_counters *cnt, gnn_err *err)
{
    if (!ready(h))
        return gnn_err_set(err, GNN_ERR_INVAL, "hec: restore: cache not initialized");
    int64_t occ = 0;
    while (occ < h->cs && tag[occ] != GNN_HEC_EMPTY)
        occ++;
    for (int64_t i = 0; i < h->cs; i++)
        if ((i >= occ && tag[i] != GNN_HEC_EMPTY) || (i < occ && tag[i] < 0) || age[i] < 0 || age[i] > h->age_cap ||
            (i >= occ && age[i] != 0))
            return gnn_err_set(err, GNN_ERR_FORMAT, "hec: restore: line %lld (tag %lld, age %d) is not a state the "
                               "cache can be in", (long long)i, (long long)tag[i], (int)age[i]);
    if (wp < 0 || wp >= h->cs)
        return gnn_err_set(err, GNN_ERR_FORMAT, "hec: restore: write pointer %lld outside [0, %lld)", (long long)wp,
                           (long long)h->cs);
    h->ops->reset(h);
    if (occ > 0)
        h->ops->store(h, tag, emb, occ); /* into lines 0 .. occ-1, in order, when the tags are distinct */
    for (int64_t i = 0; i < occ; i++)
        if (h->tag[i] != tag[i]) {
            h->ops->reset(h);
            return gnn_err_set(err, GNN_ERR_FORMAT, "hec: restore: tag %lld appears twice", (long long)tag[i]);
        }
    memcpy(h->age, age, (size_t)h->cs * sizeof(int32_t));
    h->wp = wp;
    h->cnt = *cnt;
    return GNN_OK;
}
