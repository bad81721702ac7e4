/* opt/cpu/index_add.c -- index_add with OpenMP, bitwise equal to ref/index_add.c.
 *
 * SuperGCN section 2 ("index_add with sorted indices", "2D dynamic parallelism"):
 *  1. Every index is checked before anything is written, by the public entry point
 *     gnn_index_add_run (core/ops/kernels.c, in parallel on large inputs): this body assumes
 *     valid input.
 *  2. Cluster the positions i by idx[i] with a STABLE sort: a counting sort when n_out is
 *     small next to n, else LSD radix passes of 16 bits (each pass a stable counting sort, so
 *     the result is sorted by idx and, within one idx, by ascending i).
 *  3. Each distinct output row r now owns a segment perm[s_b .. s_e) of positions in
 *     ascending i. The work is split in two dimensions: segments in chunks of about equal
 *     numbers of entries (a hub row stays whole) times feature-column blocks, as narrow as
 *     needed to give every thread work when there are few rows or one hub (at least 16
 *     floats, at most GNN_IA_FB); (chunk, column block) tasks are scheduled dynamically. Every
 *     (row, column) element is owned by exactly one task, which loads out[r], adds
 *     src[perm[k]] for k in order, and stores once: no atomics, the reference's order. */
#include <string.h>
#include "gnnref/index_add.h"
#include "gnnref/aggregate.h"
#include "gnnref/tensor.h"
#include "opt/cpu/omp_stress.h"
#include "opt/cpu/chunks.h"
#include "opt/cpu/omp_compat.h"

#define GNN_IA_FB 1024    /* widest column block (a 4 KiB accumulator: stays in L1) */
#define GNN_IA_PF 4       /* src rows prefetched ahead */
#define GNN_IA_DIGIT 16   /* radix bits per LSD pass when n_out is large */
#define GNN_IA_CHUNK 4096 /* entries per row chunk, at most (about): see the 2D split */

/* One stable counting-sort pass of in[0..n) by digit (idx[in[k]] >> shift) & mask. */
static gnn_status counting_pass(const int64_t *idx, const int64_t *in, int64_t *out, int64_t n, int shift,
                                int64_t buckets)
{
    int64_t *cnt = gnn_calloc((size_t)buckets + 1, sizeof(int64_t));
    if (!cnt)
        return GNN_ERR_NOMEM;
    const int64_t mask = buckets - 1;
    for (int64_t k = 0; k < n; k++) {
        const int64_t i = in ? in[k] : k;
        cnt[((idx[i] >> shift) & mask) + 1]++;
    }
    for (int64_t b = 0; b < buckets; b++)
        cnt[b + 1] += cnt[b];
    for (int64_t k = 0; k < n; k++) {
        const int64_t i = in ? in[k] : k;
        out[cnt[(idx[i] >> shift) & mask]++] = i;
    }
    gnn_free(cnt);
    return GNN_OK;
}

/* perm: positions 0..n-1 sorted by idx, ties in ascending position. */
static gnn_status stable_sort(const int64_t *idx, int64_t n, int64_t n_out, int64_t *perm)
{
    int bits = 0;
    while (bits < 63 && ((int64_t)1 << bits) < n_out)
        bits++;
    if (n_out <= 2 * n + 65536) /* one pass over all the keys */
        return counting_pass(idx, NULL, perm, n, 0, n_out > 1 ? ((int64_t)1 << bits) : 1);
    int64_t *tmp = gnn_malloc((size_t)n * sizeof(int64_t));
    if (!tmp)
        return GNN_ERR_NOMEM;
    const int passes = (bits + GNN_IA_DIGIT - 1) / GNN_IA_DIGIT;
    gnn_status s = GNN_OK;
    /* alternate buffers so that the last pass writes perm */
    int64_t *bufs[2] = { passes % 2 ? perm : tmp, passes % 2 ? tmp : perm };
    const int64_t *in = NULL;
    for (int p = 0; p < passes && !s; p++) {
        s = counting_pass(idx, in, bufs[p % 2], n, p * GNN_IA_DIGIT, (int64_t)1 << GNN_IA_DIGIT);
        in = bufs[p % 2];
    }
    gnn_free(tmp);
    return s;
}

static gnn_status index_add_cpu(float *out, int64_t n_out, int64_t d, const int64_t *idx, const float *src,
                                int64_t n)
{
    if (n == 0 || d == 0)
        return GNN_OK;

    int64_t *perm = gnn_malloc((size_t)n * sizeof(int64_t));
    int64_t *seg = gnn_malloc(((size_t)n + 1) * sizeof(int64_t)); /* segment starts in perm */
    if (!perm || !seg) {
        gnn_free(perm);
        gnn_free(seg);
        return GNN_ERR_NOMEM;
    }
    gnn_status s = stable_sort(idx, n, n_out, perm);
    if (s) {
        gnn_free(perm);
        gnn_free(seg);
        return s;
    }
    int64_t n_seg = 0;
    for (int64_t k = 0; k < n; k++)
        if (k == 0 || idx[perm[k]] != idx[perm[k - 1]])
            seg[n_seg++] = k;
    seg[n_seg] = n;

    /* 2D split: row chunks of about equal entries; columns are split only as far as needed
     * for every thread to have work (few distinct rows, or a hub holding most entries), in
     * blocks of at least 16 floats (a 64-byte line), since every column block re-reads the
     * segment's index list and fetches its own part of each src row */
    const int64_t threads = gnn_omp_max_threads();
    /* at least 8 chunks per thread and at most about GNN_IA_CHUNK entries each: a thread that
     * loses its core on a busy machine holds one small task, the others take the rest */
    int64_t chunks = threads * 8;
    if (n / GNN_IA_CHUNK > chunks)
        chunks = n / GNN_IA_CHUNK;
    if (chunks > n_seg)
        chunks = n_seg;
    int64_t max_seg = 0;
    for (int64_t q = 0; q < n_seg; q++)
        if (seg[q + 1] - seg[q] > max_seg)
            max_seg = seg[q + 1] - seg[q];
    int64_t cw = d < GNN_IA_FB ? d : GNN_IA_FB;
    if (threads > 1 && (n_seg < 4 * threads || 2 * max_seg * threads > n)) {
        int64_t want = (d + 4 * threads - 1) / (4 * threads);
        want = (want + 15) / 16 * 16;
        if (want < cw)
            cw = want;
    }
    const int64_t n_cb = (d + cw - 1) / cw;
#pragma omp parallel for schedule(dynamic, gnn_omp_chunk(1))
    for (int64_t t = 0; t < chunks * n_cb; t++) {
        const int64_t c = t / n_cb, f0 = (t % n_cb) * cw;
        const int64_t fb = d - f0 < cw ? d - f0 : cw;
        /* segments starting in this chunk's share of the entries */
        const int64_t s0 = gnn_first_at_least(seg, n_seg, c * n / chunks);
        const int64_t s1 = c == chunks - 1 ? n_seg : gnn_first_at_least(seg, n_seg, (c + 1) * n / chunks);
        const int64_t k_end = seg[s1];
        for (int64_t q = s0; q < s1; q++) {
            float *o = out + idx[perm[seg[q]]] * d + f0;
            float acc[GNN_IA_FB];
            memcpy(acc, o, (size_t)fb * sizeof(float));
            for (int64_t k = seg[q]; k < seg[q + 1]; k++) {
                if (k + GNN_IA_PF < k_end) { /* src rows are random: fetch ahead */
                    const char *p = (const char *)(src + perm[k + GNN_IA_PF] * d + f0);
                    for (int64_t b = 0; b < fb * (int64_t)sizeof(float); b += 64)
                        __builtin_prefetch(p + b, 0, 3);
                }
                const float *x = src + perm[k] * d + f0;
#pragma omp simd
                for (int64_t f = 0; f < fb; f++)
                    acc[f] += x[f];
            }
            memcpy(o, acc, (size_t)fb * sizeof(float));
        }
    }
    gnn_free(perm);
    gnn_free(seg);
    return GNN_OK;
}

const gnn_index_add_ops gnn_index_add_cpu = {
    .name = "cpu",
    .caps = GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED,
    .run = index_add_cpu,
};
