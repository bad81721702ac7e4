/* opt/cpu/sample_weighted.h -- per-vertex kernels of weighted neighbor sampling, for the
 * optimized samplers (opt/cpu/sample.c). Header-only and static inline so the sampler's
 * OpenMP loops can call them per dst vertex: no allocation inside a call (the caller owns one
 * gnn_wscratch per thread), no OpenMP, no shared state, so they are thread-safe.
 *
 * They produce bit for bit the output of the reference, gnn_sample_weighted_ref
 * (ref/sample_weighted.c, the specification; method in docs/sampling.md). What changed and
 * why the bits still match:
 *   without replacement  ref sorts the keys of all d neighbors; here a bounded min-heap keeps
 *                        the k best (O(d log k) time, O(k) memory), then a heap sort puts
 *                        them in decreasing key order. Both select by the same strict total
 *                        order (key descending, CSR position ascending), computed from the
 *                        same doubles by the same libm call, so the set and its order agree.
 *                        Once the heap is full, a neighbor whose key provably cannot beat the
 *                        root (a bound without log, see below) is skipped: only the log is
 *                        saved, never a decision changed;
 *   with replacement     ref scans the prefix sums linearly for the first prefix[i] > t;
 *                        here a binary search finds the same i (the sums are non-decreasing)
 *                        from the same prefix sums (added in CSR order, in double) and the
 *                        same t = u * W.
 * Draws: without replacement the neighbor at CSR position i uses integer draw i, with
 * replacement sample j uses integer draw j (block i/2 or j/2); one Philox block is computed
 * per pair of draws. Values are gnn_rng_uint's 64-bit word r. */
#ifndef GNNREF_OPT_CPU_SAMPLE_WEIGHTED_H
#define GNNREF_OPT_CPU_SAMPLE_WEIGHTED_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include "gnnref/rng.h"
#include "gnnref/tensor.h"

/* Per-thread scratch: grown by gnn_wscratch_reserve, freed by gnn_wscratch_free. Start with
 * a zeroed struct. */
typedef struct gnn_wscratch {
    double *key;    /* (cap) heap keys (without replacement) */
    int64_t *pos;   /* (cap) heap CSR positions */
    double *prefix; /* (cap) prefix sums of the weights (with replacement) */
    int64_t cap;
} gnn_wscratch;

/* Grow to hold d entries (reserving the vertex's degree d always suffices; the exact need is
 * d with replacement and the sample count without). 0 ok, -1 no memory (s unchanged). */
static inline int gnn_wscratch_reserve(gnn_wscratch *s, int64_t d)
{
    if (d <= s->cap)
        return 0;
    int64_t cap = s->cap * 2 > d ? s->cap * 2 : d;
    double *key = gnn_malloc((size_t)cap * sizeof(double));
    int64_t *pos = gnn_malloc((size_t)cap * sizeof(int64_t));
    double *prefix = gnn_malloc((size_t)cap * sizeof(double));
    if (!key || !pos || !prefix) {
        gnn_free(key);
        gnn_free(pos);
        gnn_free(prefix);
        return -1;
    }
    gnn_free(s->key);
    gnn_free(s->pos);
    gnn_free(s->prefix);
    s->key = key;
    s->pos = pos;
    s->prefix = prefix;
    s->cap = cap;
    return 0;
}

static inline void gnn_wscratch_free(gnn_wscratch *s)
{
    gnn_free(s->key);
    gnn_free(s->pos);
    gnn_free(s->prefix);
    s->key = s->prefix = NULL;
    s->pos = NULL;
    s->cap = 0;
}

/* A valid weight is >= 0 and finite (-0.0 counts as a zero weight). NaN fails both tests. */
static inline int gnn_weight_valid(float x) { return x >= 0.0f && x <= FLT_MAX; }

/* Number of samples the vertex produces, with P = #{i : w[i] > 0}:
 *   k < 0          P (all positive-weight neighbors);
 *   replace        P > 0 ? k : 0;
 *   otherwise      min(k, P).
 * Returns -1 when a weight of the row is negative, NaN or infinite (the sampler then fails
 * with GNN_ERR_INVAL, as the reference does). w: (d). */
static inline int64_t gnn_cpu_weighted_count(const float *w, int64_t d, int64_t k, int replace)
{
    int64_t P = 0;
    for (int64_t i = 0; i < d; i++) {
        if (!gnn_weight_valid(w[i]))
            return -1;
        P += w[i] > 0.0f;
    }
    if (k < 0)
        return P;
    if (replace)
        return P > 0 ? k : 0;
    return k < P ? k : P;
}

/* The 64-bit integer-draw words r of draws 2b and 2b+1 (gnn_rng_uint's layout). */
static inline void gnn_weighted_words(const gnn_rng_stream *s, int64_t b, uint64_t r[2])
{
    uint32_t w[4];
    gnn_rng_block(s, (uint32_t)b, w);
    r[0] = ((uint64_t)w[1] << 32) | w[0];
    r[1] = ((uint64_t)w[3] << 32) | w[2];
}

/* A-ES uniform of a draw word: u = ((r >> 12) + 0.5) * 2^-52, an exact double in (0, 1), on
 * a grid where 1 - u is exact too. The key of a positive weight is log(u) / (double)w, finite
 * and negative: the same expressions as the ref. */
static inline double gnn_weighted_u(uint64_t r) { return ((double)(r >> 12) + 0.5) * 0x1p-52; }

/* Heap order: a is worse than b when its key is smaller, or equal with a later position. */
static inline int gnn_wheap_worse(double ka, int64_t pa, double kb, int64_t pb)
{
    return ka < kb || (ka == kb && pa > pb);
}

/* Sift entry i down a min-heap (root = worst) of n entries. */
static inline void gnn_wheap_down(double *key, int64_t *pos, int64_t n, int64_t i)
{
    const double k0 = key[i];
    const int64_t p0 = pos[i];
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && gnn_wheap_worse(key[c + 1], pos[c + 1], key[c], pos[c]))
            c++;
        if (!gnn_wheap_worse(key[c], pos[c], k0, p0))
            break;
        key[i] = key[c];
        pos[i] = pos[c];
        i = c;
    }
    key[i] = k0;
    pos[i] = p0;
}

/* Offer (k, p) to a heap of n < cap entries (sift up). */
static inline void gnn_wheap_push(double *key, int64_t *pos, int64_t n, double k, int64_t p)
{
    int64_t i = n;
    while (i > 0) {
        const int64_t parent = (i - 1) / 2;
        if (!gnn_wheap_worse(k, p, key[parent], pos[parent]))
            break;
        key[i] = key[parent];
        pos[i] = pos[parent];
        i = parent;
    }
    key[i] = k;
    pos[i] = p;
}

/* Write exactly `count` (from gnn_cpu_weighted_count, not -1) sampled global ids of the
 * vertex into out, in the reference's order.
 *   adj   (d) neighbor global ids (CSR row);  w (d) their weights;
 *   s     the vertex's stream gnn_rng_stream_make(seed, GNN_TAG_SAMPLE, step, layer, v);
 *   out   (count);  scr: cap >= d (gnn_wscratch_reserve(scr, d)). */
static inline void gnn_cpu_weighted_vertex(const int64_t *adj, const float *w, int64_t d, int64_t k,
                                           int replace, const gnn_rng_stream *s, int64_t count,
                                           int64_t *out, gnn_wscratch *scr)
{
    if (count <= 0)
        return;
    if (k >= 0 && replace) {
        /* categorical draws: prefix sums in double, in CSR order (the ref's order) */
        double *prefix = scr->prefix;
        double acc = 0.0;
        for (int64_t i = 0; i < d; i++) {
            acc += (double)w[i];
            prefix[i] = acc;
        }
        const double W = acc;
        uint64_t r[2];
        for (int64_t j = 0; j < count; j++) {
            if ((j & 1) == 0)
                gnn_weighted_words(s, j / 2, r);
            const double u = (double)(r[j & 1] >> 11) * 0x1p-53; /* [0, 1), as the ref */
            const double t = u * W;
            /* first i with prefix[i] > t; t < W = prefix[d-1], so it exists (d-1 as a bound,
             * exactly like the ref's scan) */
            int64_t lo = 0, hi = d - 1;
            while (lo < hi) {
                const int64_t mid = lo + (hi - lo) / 2;
                if (prefix[mid] > t)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            out[j] = adj[lo];
        }
        return;
    }
    /* k < 0, or P <= k: all positive-weight neighbors in CSR order, no draws. Copy the first
     * `count` of them; if no positive weight follows, that was all of them (P == count). */
    int64_t m = 0, i = 0;
    for (; i < d && m < count; i++)
        if (w[i] > 0.0f)
            out[m++] = adj[i];
    if (k < 0)
        return;
    while (i < d && !(w[i] > 0.0f))
        i++;
    if (i == d)
        return;
    /* P > k: the k largest A-ES keys (Efraimidis-Spirakis), ties to the lower position */
    double *key = scr->key;
    int64_t *pos = scr->pos;
    int64_t n = 0;
    uint64_t r[2];
    for (int64_t b = 0; 2 * b < d; b++) {
        const int64_t i0 = 2 * b;
        const int need0 = w[i0] > 0.0f, need1 = i0 + 1 < d && w[i0 + 1] > 0.0f;
        if (!need0 && !need1)
            continue;
        gnn_weighted_words(s, b, r);
        for (int h = 0; h < 2; h++) {
            if (!(h ? need1 : need0))
                continue;
            const int64_t p = i0 + h;
            const double u = gnn_weighted_u(r[h]);
            if (n == count) {
                /* Cheap rejection without the log. log(u) < u - 1 < 0, so the key is at most
                 * (u - 1) / w, up to the rounding of libm's log and of the division. The factor
                 * 1 - 2^-30 absorbs both (any libm whose log has a relative error below 2^-31;
                 * glibc's is below 2^-52) and u - 1 is exact, so ub >= the key the ref computes:
                 * ub <= root means key < root, and the ref does not select p either. Most
                 * neighbors of a hub stop here, which saves their log. */
                const double ub = (u - 1.0) * (1.0 - 0x1p-30) / (double)w[p];
                if (ub <= key[0])
                    continue;
            }
            const double kp = log(u) / (double)w[p]; /* the A-ES key, as the ref computes it */
            if (n < count) {
                gnn_wheap_push(key, pos, n, kp, p);
                n++;
            } else if (gnn_wheap_worse(key[0], pos[0], kp, p)) {
                key[0] = kp;
                pos[0] = p;
                gnn_wheap_down(key, pos, n, 0);
            }
        }
    }
    /* heap sort: move the worst to the end, repeatedly; leaves best-first order */
    for (int64_t e = n - 1; e > 0; e--) {
        const double tk = key[0];
        const int64_t tp = pos[0];
        key[0] = key[e];
        pos[0] = pos[e];
        key[e] = tk;
        pos[e] = tp;
        gnn_wheap_down(key, pos, e, 0);
    }
    for (int64_t j = 0; j < count; j++)
        out[j] = adj[pos[j]];
}

#endif
