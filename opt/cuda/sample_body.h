/* opt/cuda/sample_body.h -- per-thread bodies of the CUDA uniform sampler (docs/cuda_sampling.md),
 * compiled by nvcc (opt/cuda/sample.cu) and by gcc for the `cuda-emu` implementations
 * (opt/cuda/sample_emu.c, through gnn_emu_launch). Common subset of C11 and C++17.
 *
 * One thread per dst vertex: its draws are one keyed stream (seed, SAMPLE, step, layer,
 * gnn_sample_rng_id) and, without replacement, a chain (each swap of the partial Fisher-Yates
 * depends on the ones before), so a dst is a natural unit of work; the counts are known before
 * any draw, so an exclusive scan gives each dst its output range and the threads write
 * disjoint slices in the reference's layout.
 *
 * The keyed draws: include/gnnref/rng.h's stream address and block function (device-callable)
 * and opt/cuda/philox_body.h's integer draw. */
#ifndef GNNREF_OPT_CUDA_SAMPLE_BODY_H
#define GNNREF_OPT_CUDA_SAMPLE_BODY_H

#include <stdint.h>
#include "gnnref/rng.h" /* GNN_TAG_SAMPLE, gnn_rng_stream */
#include "opt/cuda/emu.h"
#include "opt/cuda/idmap_body.h"
#include "opt/cuda/philox_body.h"

#define GNN_KSAMPLE_BLOCK 128 /* threads (dst vertices) per block */

/* ---- kernels ---------------------------------------------------------------------------------- */

enum { GNN_KSAMPLE_NO_INSERT = 0, GNN_KSAMPLE_INSERT_ORDERED = 1, GNN_KSAMPLE_INSERT_FUSED = 2 };

typedef struct gnn_ksample_args {
    const int64_t *indptr, *indices; /* the graph, resident on the device */
    int64_t n;
    const int64_t *rng_ids;          /* (n) or NULL: gnn_sample_params.rng_ids */
    uint64_t rng_id_offset;
    const int64_t *seeds;            /* (n_seeds) */
    int64_t n_seeds;
    int64_t fanout;                  /* < 0: all */
    int replace;
    uint64_t seed;
    uint32_t step;
    unsigned layer;
    int64_t *offsets;                /* (n_seeds + 1): counts, then (scanned) output offsets */
    int64_t *nbr;                    /* (nnz) sampled global ids, dst by dst in draw order */
    int64_t *scratch;                /* (2 nnz) the sparse Fisher-Yates' swapped positions */
    int32_t *err;                    /* count: 1 = a seed out of range */
    int insert;                      /* GNN_KSAMPLE_*: insert each sample into the map as drawn */
    gnn_kmap_dev m;
    int64_t *src_gid;                /* FUSED insert: the new vertices' global ids */
} gnn_ksample_args;

/* Samples of a dst of degree d: min(k, d) without replacement, k with (0 if d = 0), d for k < 0. */
GNN_HD static inline int64_t gnn_ksample_count(int64_t d, int64_t k, int replace)
{
    if (k < 0)
        return d;
    if (replace)
        return d > 0 ? k : 0;
    return d < k ? d : k;
}

/* One thread per seed: its sample count into offsets[i] (0 and err for a seed out of range). */
GNN_HD static inline void gnn_ksample_count_body(const gnn_kthread *t, int phase, void *shared, const void *args)
{
    (void)phase;
    (void)shared;
    const gnn_ksample_args *a = (const gnn_ksample_args *)args;
    const int64_t i = gnn_k_gid(t);
    if (i >= a->n_seeds)
        return;
    const int64_t v = a->seeds[i];
    if (v < 0 || v >= a->n) {
        *a->err = 1;
        a->offsets[i] = 0;
        return;
    }
    a->offsets[i] = gnn_ksample_count(a->indptr[v + 1] - a->indptr[v], a->fanout, a->replace);
}

/* One thread per seed i: draw its samples into nbr[offsets[i] .. offsets[i+1]) exactly as
 * ref/sample.c, then (fused sampling) insert them into the map.
 *  - with replacement: draw j is position uint(d) of draw j;
 *  - count = d: the row in CSR order, no draws;
 *  - else partial Fisher-Yates: for j < k, r = j + uint(d - j) of draw j, swap positions j and r,
 *    emit position j. Only swapped positions are stored (key r -> value), at most k of them, in
 *    this dst's slice of scratch: O(k) memory instead of the reference's d positions, the same
 *    swaps and outputs. */
GNN_HD static inline void gnn_ksample_draw_body(const gnn_kthread *t, int phase, void *shared, const void *args)
{
    (void)phase;
    (void)shared;
    const gnn_ksample_args *a = (const gnn_ksample_args *)args;
    const int64_t i = gnn_k_gid(t);
    if (i >= a->n_seeds)
        return;
    const int64_t v = a->seeds[i], b = a->indptr[v], d = a->indptr[v + 1] - b;
    const int64_t o = a->offsets[i], cnt = a->offsets[i + 1] - o;
    int64_t *out = a->nbr + o;
    const uint64_t id = (uint64_t)(a->rng_ids ? a->rng_ids[v] : v) + a->rng_id_offset;
    const gnn_rng_stream s = gnn_rng_stream_make(a->seed, GNN_TAG_SAMPLE, a->step, a->layer, id);
    if (a->replace && a->fanout >= 0) {
        for (int64_t j = 0; j < cnt; j++)
            out[j] = a->indices[b + (int64_t)gnn_k_uint(&s, (uint64_t)j, (uint64_t)d)];
    } else if (cnt == d) {
        for (int64_t j = 0; j < d; j++)
            out[j] = a->indices[b + j];
    } else {
        int64_t *key = a->scratch + 2 * o, *val = key + cnt;
        int64_t n_kept = 0;
        for (int64_t j = 0; j < cnt; j++) {
            const int64_t r = j + (int64_t)gnn_k_uint(&s, (uint64_t)j, (uint64_t)(d - j));
            int64_t pj = j, pr = r, at_r = -1;
            for (int64_t q = 0; q < n_kept; q++) {
                if (key[q] == j)
                    pj = val[q];
                if (key[q] == r) {
                    pr = val[q];
                    at_r = q;
                }
            }
            out[j] = a->indices[b + pr];
            /* position r now holds position j's old value (position j is never read again) */
            if (at_r >= 0) {
                val[at_r] = pj;
            } else {
                key[n_kept] = r;
                val[n_kept] = pj;
                n_kept++;
            }
        }
    }
    if (a->insert == GNN_KSAMPLE_INSERT_ORDERED)
        for (int64_t j = 0; j < cnt; j++)
            gnn_kmap_insert_ordered(&a->m, a->n_seeds + o + j, out[j]);
    else if (a->insert == GNN_KSAMPLE_INSERT_FUSED)
        for (int64_t j = 0; j < cnt; j++)
            gnn_kmap_insert_fused(&a->m, a->n_seeds + o + j, out[j], a->src_gid);
}

#endif
