/* ref/hec.c -- reference Historical Embedding Cache, DistGNN-MB section 3.2.
 *
 * Plain C11, serial, no index: three arrays (tag, age, emb), a write pointer, and linear
 * scans over the lines. This file is the specification (include/gnnref/hec.h states it in
 * words); opt/cpu/hec.c must leave every field, counter and search result bit for bit as
 * this file does (oracle entry hec.ops). Search and store cost O(m * cs) here: that is the
 * price of being obviously right.
 *
 * Paper anchors: @alg{DistGNN-MB 1} lines 4-6 (init: cs, ls); @alg{DistGNN-MB 2} lines 8-12
 * (8 receive the pushes of step k - d, 9 HECStore, 10 find the halo vertices, 11 HECSearch,
 * 12 HECLoad). The aging step between receive and store is the rule that makes
 * "lifespan ls" exact: a line written at step s has age k - s at step k's search. */
#include <string.h>
#include "gnnref/hec.h"
#include "gnnref/tensor.h"

static void hec_ref_reset(gnn_hec *h)
{
    for (int64_t i = 0; i < h->cs; i++) {
        h->tag[i] = GNN_HEC_EMPTY;
        h->age[i] = 0;
    }
    memset(h->emb, 0, (size_t)(h->cs * h->dim) * sizeof(float));
    h->wp = 0;
    memset(&h->cnt, 0, sizeof h->cnt);
}

static void hec_ref_destroy(gnn_hec *h)
{
    gnn_free(h->tag);
    gnn_free(h->age);
    gnn_free(h->emb);
    h->tag = NULL;
    h->age = NULL;
    h->emb = NULL;
}

/* @alg{DistGNN-MB 1} lines 4-6: HEC.cs, HEC.ls (nc belongs to the push) */
static gnn_status hec_ref_init(gnn_hec *h)
{
    h->tag = gnn_malloc((size_t)h->cs * sizeof(int64_t));
    h->age = gnn_malloc((size_t)h->cs * sizeof(int32_t));
    h->emb = gnn_malloc((size_t)(h->cs * h->dim) * sizeof(float));
    if (!h->tag || !h->age || !h->emb) {
        hec_ref_destroy(h);
        return GNN_ERR_NOMEM;
    }
    hec_ref_reset(h);
    return GNN_OK;
}

/* Step 2 of each training step: every occupied line one step older, saturating at
 * age_cap = ls + 1, so an expired line stays expired and the age never overflows. */
static void hec_ref_age(gnn_hec *h)
{
    for (int64_t i = 0; i < h->cs; i++)
        if (h->tag[i] != GNN_HEC_EMPTY && h->age[i] < h->age_cap)
            h->age[i]++;
}

/* The line whose tag is id (whatever its age), or -1. */
static int64_t find_tag(const gnn_hec *h, int64_t id)
{
    for (int64_t i = 0; i < h->cs; i++)
        if (h->tag[i] == id)
            return i;
    return -1;
}

/* @alg{DistGNN-MB 2} line 9, HECStore: the pairs one after the other, in the given order. */
static void hec_ref_store(gnn_hec *h, const int64_t *ids, const float *emb, int64_t m)
{
    for (int64_t k = 0; k < m; k++) {
        int64_t line = find_tag(h, ids[k]);
        if (line >= 0) {
            h->cnt.overwrites++; /* already cached: refresh in place */
        } else {
            line = h->wp; /* OCF: the line filled longest ago */
            if (h->tag[line] != GNN_HEC_EMPTY)
                h->cnt.evictions++;
            h->tag[line] = ids[k];
            h->wp = (h->wp + 1) % h->cs;
        }
        memcpy(h->emb + line * h->dim, emb + k * h->dim, (size_t)h->dim * sizeof(float));
        h->age[line] = 0;
        h->cnt.stores++;
    }
}

/* @alg{DistGNN-MB 2} line 11, HECSearch: a hit needs the tag present and age <= ls. */
static void hec_ref_search(gnn_hec *h, const int64_t *ids, int64_t m, int64_t *lines)
{
    for (int64_t k = 0; k < m; k++) {
        const int64_t line = find_tag(h, ids[k]);
        if (line >= 0 && h->age[line] <= h->ls) {
            lines[k] = line;
            h->cnt.hits++;
        } else {
            lines[k] = GNN_HEC_MISS;
            h->cnt.misses++;
            if (line >= 0)
                h->cnt.expired++;
        }
    }
}

/* @alg{DistGNN-MB 2} line 12, HECLoad: gather the hit lines into the mini-batch rows; a
 * miss (-1) leaves its row alone (the caller drops that halo vertex). */
static void hec_ref_load(const gnn_hec *h, const int64_t *lines, int64_t m, float *out)
{
    for (int64_t k = 0; k < m; k++)
        if (lines[k] >= 0)
            memcpy(out + k * h->dim, h->emb + lines[k] * h->dim, (size_t)h->dim * sizeof(float));
}

const gnn_hec_ops gnn_hec_ref = {
    .name = "ref",
    .init = hec_ref_init,
    .reset = hec_ref_reset,
    .destroy = hec_ref_destroy,
    .age = hec_ref_age,
    .store = hec_ref_store,
    .search = hec_ref_search,
    .load = hec_ref_load,
};
