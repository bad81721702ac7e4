/* core/dist/distagg_setup.c -- the plumbing of distributed aggregation's setup
 * (core/dist/distagg_internal.h states each function): growable lists of addends, their stable
 * sort by key into CSR lists, the degrees and GCN factors, a search in sorted ids. The
 * reference's setup (ref/distagg.c) is the algorithm: which addend goes where, in which order;
 * these only store and sort what it adds. */
#include <math.h>
#include <string.h>
#include "core/dist/distagg_internal.h"
#include "gnnref/tensor.h"

int gnn_da_add(gnn_da_addends *a, int64_t key, int64_t idx, float c, float cm, uint8_t flag)
{
    if (a->n == a->cap) {
        const int64_t cap = a->cap ? 2 * a->cap : 64;
        int64_t *k2 = gnn_malloc_array((size_t)cap, sizeof(int64_t));
        int64_t *i2 = gnn_malloc_array((size_t)cap, sizeof(int64_t));
        float *c2 = gnn_malloc_array((size_t)cap, sizeof(float)), *m2 = gnn_malloc_array((size_t)cap, sizeof(float));
        uint8_t *f2 = gnn_malloc((size_t)cap);
        if (!k2 || !i2 || !c2 || !m2 || !f2) {
            gnn_free(k2), gnn_free(i2), gnn_free(c2), gnn_free(m2), gnn_free(f2);
            return -1;
        }
        if (a->n) {
            memcpy(k2, a->key, (size_t)a->n * sizeof(int64_t));
            memcpy(i2, a->idx, (size_t)a->n * sizeof(int64_t));
            memcpy(c2, a->c, (size_t)a->n * sizeof(float));
            memcpy(m2, a->cm, (size_t)a->n * sizeof(float));
            memcpy(f2, a->flag, (size_t)a->n);
        }
        gnn_free(a->key), gnn_free(a->idx), gnn_free(a->c), gnn_free(a->cm), gnn_free(a->flag);
        a->key = k2, a->idx = i2, a->c = c2, a->cm = m2, a->flag = f2, a->cap = cap;
    }
    a->key[a->n] = key, a->idx[a->n] = idx, a->c[a->n] = c, a->cm[a->n] = cm, a->flag[a->n] = flag;
    a->n++;
    return 0;
}

void gnn_da_addends_free(gnn_da_addends *a)
{
    gnn_free(a->key), gnn_free(a->idx), gnn_free(a->c), gnn_free(a->cm), gnn_free(a->flag);
    memset(a, 0, sizeof *a);
}

int gnn_da_by_key(const gnn_da_addends *a, int64_t rows, int64_t **ptr, int64_t **idx, float **c, float **cm,
                  uint8_t **flag)
{
    int64_t *p = gnn_calloc((size_t)rows + 1, sizeof(int64_t));
    int64_t *I = gnn_malloc_array((size_t)a->n + 1, sizeof(int64_t));
    float *C = c ? gnn_malloc_array((size_t)a->n + 1, sizeof(float)) : NULL;
    float *M = cm ? gnn_malloc_array((size_t)a->n + 1, sizeof(float)) : NULL;
    uint8_t *F = flag ? gnn_malloc((size_t)a->n + 1) : NULL;
    int64_t *at = gnn_malloc_array((size_t)rows + 1, sizeof(int64_t));
    if (!p || !I || (c && !C) || (cm && !M) || (flag && !F) || !at) {
        gnn_free(p), gnn_free(I), gnn_free(C), gnn_free(M), gnn_free(F), gnn_free(at);
        return -1;
    }
    for (int64_t e = 0; e < a->n; e++)
        p[a->key[e] + 1]++;
    for (int64_t r = 0; r < rows; r++)
        p[r + 1] += p[r];
    memcpy(at, p, (size_t)rows * sizeof(int64_t));
    for (int64_t e = 0; e < a->n; e++) { /* stable: the gnn_da_addends' order within each row */
        const int64_t o = at[a->key[e]]++;
        I[o] = a->idx[e];
        if (C)
            C[o] = a->c[e];
        if (M)
            M[o] = a->cm[e];
        if (F)
            F[o] = a->flag[e];
    }
    gnn_free(at);
    *ptr = p, *idx = I;
    if (c)
        *c = C;
    if (cm)
        *cm = M;
    if (flag)
        *flag = F;
    return 0;
}

void gnn_da_degrees_free(gnn_da_degrees *D)
{
    gnn_free(D->out), gnn_free(D->isq_out), gnn_free(D->isq_in), gnn_free(D->inv_in);
}

int gnn_da_degrees_make(const gnn_csr *g, gnn_da_degrees *D)
{
    const int64_t n = g->n;
    D->out = gnn_calloc((size_t)n + 1, sizeof(int64_t));
    D->isq_out = gnn_malloc_array((size_t)n + 1, sizeof(float));
    D->isq_in = gnn_malloc_array((size_t)n + 1, sizeof(float));
    D->inv_in = gnn_malloc_array((size_t)n + 1, sizeof(float));
    if (!D->out || !D->isq_out || !D->isq_in || !D->inv_in)
        return -1;
    for (int64_t e = 0; e < g->nnz; e++)
        D->out[g->indices[e]]++;
    for (int64_t v = 0; v < n; v++) {
        const int64_t din = gnn_csr_degree(g, v);
        D->isq_out[v] = D->out[v] > 0 ? 1.0f / sqrtf((float)D->out[v]) : 0.0f;
        D->isq_in[v] = din > 0 ? 1.0f / sqrtf((float)din) : 0.0f;
        D->inv_in[v] = din > 0 ? 1.0f / (float)din : 0.0f;
    }
    return 0;
}

int64_t gnn_da_find_id(const int64_t *ids, int64_t lo, int64_t hi, int64_t u)
{
    while (lo < hi) {
        const int64_t m = lo + (hi - lo) / 2;
        if (ids[m] < u)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}
