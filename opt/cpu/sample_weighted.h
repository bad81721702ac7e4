/* opt/cpu/sample_weighted.h -- per-vertex kernels of weighted neighbor sampling, for the
 * optimized samplers (opt/cpu/sample.c). Header-only and static inline so the sampler's
 * OpenMP loops can call them per dst vertex: no allocation inside a call (the caller owns one
 * gnn_wscratch per thread), no OpenMP, no shared state, so they are thread-safe.
 *
 * They produce bit for bit the output of the reference, gnn_sample_weighted_ref
 * (ref/sample_weighted.c, the specification; method in docs/sampling.md 5.2). What changed
 * and why the bits still match:
 *   inversion draws      (with replacement, and the successive sampling without) ref bisects
 *                        the row's full prefix sums per draw; here the same first
 *                        prefix[i] > t is found by a branch-free bisection (short rows), or
 *                        from the table's checkpoints (every 16th prefix sum) through a guide
 *                        and a rebuild of one block's sums by the reference's additions, so
 *                        from the same doubles; the k searches of a vertex go in lockstep;
 *   repeats              ref searches its list of picks; here a bitmap over the positions.
 *                        The picks are taken in draw order, so drawing a batch is the same;
 *   the A-ES fallback    ref sorts the keys of all remaining neighbors; here a bounded
 *                        min-heap keeps the best (O(d log k) time, O(k) memory), then a heap
 *                        sort puts them in decreasing key order. Both select by the same
 *                        strict total order (key descending, CSR position ascending),
 *                        computed from the same doubles by the same libm call, so the set and
 *                        its order agree. Once the heap is full, a neighbor whose key provably
 *                        cannot beat the root (a bound without log, see below) is skipped:
 *                        only the log is saved, never a decision changed.
 * Draws: inversion draw j uses integer draw j (block j/2); the fallback's key of CSR position
 * i uses integer draw B + i, B = 4k; one Philox block is computed per pair of draws, many side
 * by side (opt/cpu/philox_lanes.c). Values are gnn_rng_uint's 64-bit word r. The sampler calls
 * the pieces below with a row's positive count and checkpoints cached per graph
 * (opt/cpu/sample_wtable.h); gnn_cpu_weighted_vertex computes full sums per call. */
#ifndef GNNREF_OPT_CPU_SAMPLE_WEIGHTED_H
#define GNNREF_OPT_CPU_SAMPLE_WEIGHTED_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "gnnref/rng.h"
#include "gnnref/tensor.h"
#include "opt/cpu/philox_lanes.h"

/* Per-thread scratch: grown by gnn_wscratch_reserve, freed by gnn_wscratch_free. Start with
 * a zeroed struct. */
typedef struct gnn_wscratch {
    double *key;    /* (cap) heap keys (without replacement) */
    int64_t *pos;   /* (cap) heap CSR positions */
    double *prefix; /* (cap) prefix sums of the weights (when the table has none) */
    int64_t cap;
    uint64_t *bits; /* (bits_cap / 64) positions picked by successive sampling; all zero between calls */
    int64_t bits_cap;
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

/* Grow the picked-position bitmap to d bits, zeroed (successive sampling clears the bits it
 * set before it returns, so the map stays zero). 0 ok, -1 no memory (s unchanged). */
static inline int gnn_wscratch_reserve_bits(gnn_wscratch *s, int64_t d)
{
    if (d <= s->bits_cap)
        return 0;
    const int64_t cap = s->bits_cap * 2 > d ? s->bits_cap * 2 : d;
    const size_t words = (size_t)(cap + 63) / 64;
    uint64_t *bits = gnn_malloc(words * sizeof(uint64_t));
    if (!bits)
        return -1;
    memset(bits, 0, words * sizeof(uint64_t));
    gnn_free(s->bits);
    s->bits = bits;
    s->bits_cap = cap;
    return 0;
}

static inline void gnn_wscratch_free(gnn_wscratch *s)
{
    gnn_free(s->key);
    gnn_free(s->pos);
    gnn_free(s->prefix);
    gnn_free(s->bits);
    s->key = s->prefix = NULL;
    s->pos = NULL;
    s->bits = NULL;
    s->cap = s->bits_cap = 0;
}

/* Number of positive weights of a row (the weights are >= 0 and finite: the entry point,
 * gnn_sampler_layer, checked them). w: (d). */
static inline int64_t gnn_cpu_weighted_positives(const float *w, int64_t d)
{
    int64_t P = 0;
    for (int64_t i = 0; i < d; i++)
        P += w[i] > 0.0f;
    return P;
}

/* Samples of a row with P >= 0 positive weights (the rule of docs/sampling.md 5.2). */
static inline int64_t gnn_cpu_weighted_count_of(int64_t P, int64_t k, int replace)
{
    if (k < 0)
        return P;
    if (replace)
        return P > 0 ? k : 0;
    return k < P ? k : P;
}

/* Number of samples the vertex produces, with P = #{i : w[i] > 0}:
 *   k < 0          P (all positive-weight neighbors);
 *   replace        P > 0 ? k : 0;
 *   otherwise      min(k, P).
 * w: (d), checked by the entry point. */
static inline int64_t gnn_cpu_weighted_count(const float *w, int64_t d, int64_t k, int replace)
{
    return gnn_cpu_weighted_count_of(gnn_cpu_weighted_positives(w, d), k, replace);
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

/* The prefix sums of a validated row, in double, in CSR order (the reference's sums). */
static inline void gnn_cpu_weighted_prefix(const float *w, int64_t d, double *prefix)
{
    double acc = 0.0;
    for (int64_t i = 0; i < d; i++) {
        acc += (double)w[i];
        prefix[i] = acc;
    }
}

#define GNN_WDRAW_CHUNK 64 /* draws searched side by side */

/* For each of m thresholds t[j] (0 <= t[j] < prefix[d-1] for the sampler's draws), idx[j] =
 * the first i with prefix[i] > t[j], at most d - 1 (the reference's scan, `while (e < d - 1 &&
 * prefix[e] <= t) e++`, gives the same index: the sums are non-decreasing, so it is the number
 * of sums <= t, bounded by d - 1). The m searches advance level by level together, branch-free,
 * so their cache misses on a hub's long row overlap. d >= 1, m <= GNN_WDRAW_CHUNK. */
static inline void gnn_cpu_weighted_search(const double *prefix, int64_t d, const double *t, int m, int64_t *idx)
{
    for (int j = 0; j < m; j++)
        idx[j] = 0;
    /* invariant: the number of sums <= t[j] lies in [idx[j], idx[j] + n] */
    for (int64_t n = d; n > 1;) {
        const int64_t half = n / 2;
        for (int j = 0; j < m; j++)
            idx[j] += prefix[idx[j] + half - 1] <= t[j] ? half : 0;
        n -= half;
    }
    for (int j = 0; j < m; j++) {
        const int64_t i = idx[j] + (prefix[idx[j]] <= t[j]);
        idx[j] = i < d - 1 ? i : d - 1;
    }
}

#define GNN_WCK_BLOCK 16 /* positions per checkpoint: 16 floats, one 64-byte line */

/* The checkpoints of a validated row (d >= 1): ck[b] = prefix[min(16b + 15, d - 1)], the
 * reference's prefix sums (double, CSR order) at the end of each block of 16 positions, so
 * ck[nb - 1] = W, nb = ceil(d / 16). One double per 16 edges instead of one per edge: the
 * table of opt/cpu/sample_wtable.h stores these. */
static inline void gnn_cpu_weighted_checkpoints(const float *w, int64_t d, double *ck)
{
    double acc = 0.0;
    int64_t i = 0;
    for (int64_t b = 0; i < d; b++) {
        const int64_t end = i + GNN_WCK_BLOCK < d ? i + GNN_WCK_BLOCK : d;
        for (; i < end; i++)
            acc += (double)w[i]; /* the same additions, in the same order, as the ref */
        ck[b] = acc;
    }
}

/* The blocks' scan of the checkpoint searches: blk[j] is the block that holds draw j's answer
 * (the first b with ck[b] > t[j]). Inside it the prefix sums are rebuilt from acc = ck[b-1]
 * (0.0 for b = 0) by adding w[16b], w[16b+1], ... in double: the same operations on the same
 * values as the reference's running sum, hence the same doubles; the answer is 16b + the
 * number of them <= t. The m rebuilds advance in lockstep (their loads of a weight line,
 * mostly cache misses, overlap), after a prefetch of the lines they and the caller (adj: the
 * neighbor ids, or NULL) will read. idx may alias blk. */
static inline void gnn_cpu_weighted_scan_blocks(const double *ck, const float *w, const int64_t *adj, int64_t d,
                                                const double *t, int m, const int64_t *blk, int64_t *idx)
{
    int64_t i0[GNN_WDRAW_CHUNK], last[GNN_WDRAW_CHUNK], below[GNN_WDRAW_CHUNK];
    double acc[GNN_WDRAW_CHUNK];
    for (int j = 0; j < m; j++) {
        const int64_t b = blk[j];
        i0[j] = b * GNN_WCK_BLOCK;
        last[j] = (d - i0[j] < GNN_WCK_BLOCK ? d - i0[j] : GNN_WCK_BLOCK) - 1; /* the block's last offset */
        acc[j] = b > 0 ? ck[b - 1] : 0.0;
        below[j] = 0; /* the block's prefix sums <= t */
        __builtin_prefetch(&w[i0[j]]);
        __builtin_prefetch(&w[i0[j] + last[j]]);
        if (adj) {
            __builtin_prefetch(&adj[i0[j]]);
            __builtin_prefetch(&adj[i0[j] + last[j]]);
        }
    }
    for (int h = 0; h < GNN_WCK_BLOCK; h++)
        for (int j = 0; j < m; j++) {
            const int in = h <= last[j];
            const float wh = w[i0[j] + (in ? h : last[j])]; /* never past the row */
            acc[j] += in ? (double)wh : 0.0;                /* + 0.0 past the end: unused */
            below[j] += in & (acc[j] <= t[j]);
        }
    for (int j = 0; j < m; j++) {
        const int64_t i = i0[j] + below[j];
        idx[j] = i < d - 1 ? i : d - 1;
    }
}

/* gnn_cpu_weighted_search from the checkpoints and the weights: the same idx. The first block
 * b with ck[b] > t holds the answer (the sums are non-decreasing, and ck[nb-1] = W > t); a
 * bisection over the ck finds b, all m searches in lockstep; then gnn_cpu_weighted_scan_blocks.
 * d >= 1, m <= GNN_WDRAW_CHUNK. */
static inline void gnn_cpu_weighted_search_ck(const double *ck, const float *w, const int64_t *adj, int64_t d,
                                              const double *t, int m, int64_t *idx)
{
    const int64_t nb = (d + GNN_WCK_BLOCK - 1) / GNN_WCK_BLOCK;
    gnn_cpu_weighted_search(ck, nb, t, m, idx); /* first ck[b] > t (at most nb - 1) */
    gnn_cpu_weighted_scan_blocks(ck, w, adj, d, t, m, idx, idx);
}

/* The guide of a row's checkpoints (indexed search, Chen and Asau 1974; Devroye,
 * "Non-Uniform Random Variate Generation", 1986, section III.2.4): Q = the smallest power of
 * two >= nb buckets, guide[q] = the first block b with ck[b] > L_q, L_q = (q / Q) * W in
 * double. A draw with u in [q/Q, (q+1)/Q) has t = u * W >= L_q: q/Q is exact (Q is a power of
 * two), u >= q/Q, and rounding to nearest is monotone, so fl(u W) >= fl((q/Q) W). Hence the
 * answer's block is at or after guide[q], and a forward walk from there over the ck finds
 * it: the same block as the bisection, in about one step when the weights are not extremely
 * skewed, with one or two cache misses instead of a miss per level. */
static inline int64_t gnn_wguide_size(int64_t nb)
{
    int64_t Q = 1;
    while (Q < nb)
        Q *= 2;
    return Q;
}

static inline void gnn_cpu_weighted_guide(const double *ck, int64_t nb, int32_t *guide)
{
    const int64_t Q = gnn_wguide_size(nb);
    const double W = ck[nb - 1], inv = 1.0 / (double)Q; /* exact */
    int64_t b = 0;
    for (int64_t q = 0; q < Q; q++) {
        const double L = ((double)q * inv) * W; /* < W: the walk stops by nb - 1 */
        while (b < nb - 1 && ck[b] <= L)
            b++;
        guide[q] = (int32_t)b;
    }
}

/* gnn_cpu_weighted_search_ck through the guide: the same idx. u[j]: draw j's uniform, t[j] =
 * u[j] * W. */
static inline void gnn_cpu_weighted_search_guided(const double *ck, const int32_t *guide, const float *w,
                                                  const int64_t *adj, int64_t d, const double *u, const double *t,
                                                  int m, int64_t *idx)
{
    const int64_t nb = (d + GNN_WCK_BLOCK - 1) / GNN_WCK_BLOCK, Q = gnn_wguide_size(nb);
    for (int j = 0; j < m; j++)
        __builtin_prefetch(&guide[(int64_t)(u[j] * (double)Q)]);
    for (int j = 0; j < m; j++) {
        idx[j] = guide[(int64_t)(u[j] * (double)Q)]; /* u * Q is exact, and < Q */
        __builtin_prefetch(&ck[idx[j]]);
    }
    for (int j = 0; j < m; j++)
        while (idx[j] < nb - 1 && ck[idx[j]] <= t[j]) /* first ck[b] > t */
            idx[j]++;
    gnn_cpu_weighted_scan_blocks(ck, w, adj, d, t, m, idx, idx);
}

/* A row to draw from: its full prefix sums (prefix != NULL) or its checkpoints (and their
 * guide, if any) and weights; W = the total. */
typedef struct gnn_wrow {
    const double *prefix; /* (d) or NULL */
    const double *ck;     /* (ceil(d/16)) when prefix is NULL */
    const int32_t *guide; /* (gnn_wguide_size(ceil(d/16))) or NULL */
    const float *w;       /* (d) */
    const int64_t *adj;   /* (d) the neighbor ids (prefetched by the checkpoint search) */
    int64_t d;
    double W;
} gnn_wrow;

static inline gnn_wrow gnn_wrow_prefix(const double *prefix, const float *w, const int64_t *adj, int64_t d)
{
    gnn_wrow r = { prefix, NULL, NULL, w, adj, d, prefix[d - 1] };
    return r;
}

static inline gnn_wrow gnn_wrow_checkpoints(const double *ck, const int32_t *guide, const float *w,
                                            const int64_t *adj, int64_t d)
{
    gnn_wrow r = { NULL, ck, guide, w, adj, d, ck[(d - 1) / GNN_WCK_BLOCK] };
    return r;
}

static inline void gnn_wrow_search(const gnn_wrow *r, const double *u, const double *t, int m, int64_t *idx)
{
    if (r->prefix)
        gnn_cpu_weighted_search(r->prefix, r->d, t, m, idx);
    else if (r->guide)
        gnn_cpu_weighted_search_guided(r->ck, r->guide, r->w, r->adj, r->d, u, t, m, idx);
    else
        gnn_cpu_weighted_search_ck(r->ck, r->w, r->adj, r->d, t, m, idx);
}

/* Thresholds of the inversion draws j0 .. j0+m-1 (m <= GNN_WDRAW_CHUNK): t[j] = u * W with
 * u = (r >> 11) * 2^-53 of integer draw j0 + j, the reference's expressions (t < W). */
static inline void gnn_cpu_weighted_thresholds(const gnn_rng_stream *s, int64_t j0, int m, double W, double *uj,
                                               double *t)
{
    uint32_t words[2 * GNN_WDRAW_CHUNK + 2];
    const int odd = (int)(j0 & 1); /* draw j0 is the second of its block */
    gnn_cpu_philox_blocks(s, (uint32_t)(j0 / 2), (m + odd + 1) / 2, words); /* draw j0 + j: words 2(odd+j), +1 */
    for (int j = 0; j < m; j++) {
        const int h = 2 * (odd + j);
        const uint64_t r = ((uint64_t)words[h + 1] << 32) | words[h];
        const double u = (double)(r >> 11) * 0x1p-53; /* [0, 1), as the ref */
        uj[j] = u;
        t[j] = u * W; /* < W */
    }
}

/* With replacement, P > 0: `count` draws by inversion of the row's prefix sums (d >= 1,
 * validated; full sums from gnn_cpu_weighted_prefix, or the table's checkpoints). Draw j
 * takes t = u_j * W with u_j = (r >> 11) * 2^-53, the reference's expressions, and emits
 * adj[first i with prefix[i] > t] (gnn_wrow_search). */
static inline void gnn_cpu_weighted_draws(const int64_t *adj, const gnn_wrow *row, const gnn_rng_stream *s,
                                          int64_t count, int64_t *out)
{
    const double W = row->W;
    double u[GNN_WDRAW_CHUNK], t[GNN_WDRAW_CHUNK];
    int64_t at[GNN_WDRAW_CHUNK];
    for (int64_t j0 = 0; j0 < count; j0 += GNN_WDRAW_CHUNK) {
        const int m = count - j0 < GNN_WDRAW_CHUNK ? (int)(count - j0) : GNN_WDRAW_CHUNK;
        gnn_cpu_weighted_thresholds(s, j0, m, W, u, t);
        gnn_wrow_search(row, u, t, m, at);
        for (int j = 0; j < m; j++)
            out[j0 + j] = adj[at[j]];
    }
}

/* The draw budget B of successive sampling without replacement (docs/sampling.md 5.2): at
 * most 4k inversion draws, then the A-ES fallback with draws B + i. */
static inline int64_t gnn_weighted_budget(int64_t k) { return 4 * k; }

#define GNN_WAES_CHUNK 128 /* A-ES positions per batch of Philox blocks */

/* The A-ES fallback of successive sampling (and the whole of the former rule): the `count`
 * largest A-ES keys among the positive positions not set in `skip` (NULL: none), in
 * decreasing key order (ties to the lower position), into out. Position i uses integer draw
 * 2 q_off + i (q_off = B / 2: B is even); the words of 64 blocks at a time come from the
 * Philox lanes (opt/cpu/philox_lanes.c). scr: cap >= count; at least `count` eligible
 * positions exist. Once the heap is full, a neighbor whose key provably cannot beat the root
 * is skipped without its log and its division (the bound is in docs/sampling.md section 8):
 * only work is saved, never a decision changed. */
/* A-ES candidates of one chunk of m <= GNN_WAES_CHUNK positions (opt/cpu/sample_weighted.c):
 * u[h] = gnn_weighted_u of draw words 2h, 2h+1; cand[h] = 1 when w[h] > 0 and the bound test
 * below does not exclude it against bound (INFINITY while the heap is not full). */
void gnn_cpu_aes_candidates(const uint32_t *words, const float *w, int m, double bound, double *u, uint8_t *cand);

static inline void gnn_cpu_weighted_aes(const int64_t *adj, const float *w, int64_t d, const gnn_rng_stream *s,
                                        uint32_t q_off, const uint64_t *skip, int64_t count, int64_t *out,
                                        gnn_wscratch *scr)
{
    double *key = scr->key;
    int64_t *pos = scr->pos;
    int64_t n = 0;
    double bound = INFINITY; /* -key[0] once the heap is full */
    uint32_t words[2 * GNN_WAES_CHUNK];
    double u[GNN_WAES_CHUNK];
    uint8_t cand[GNN_WAES_CHUNK + 8];
    for (int64_t i0 = 0; i0 < d; i0 += GNN_WAES_CHUNK) {
        const int m = d - i0 < GNN_WAES_CHUNK ? (int)(d - i0) : GNN_WAES_CHUNK;
        /* draw 2 q_off + i0 + h: words 2h, 2h+1 (i0 is even) */
        gnn_cpu_philox_blocks(s, q_off + (uint32_t)(i0 / 2), (m + 1) / 2, words);
        /* a vectorized pass flags the positions that may enter the heap, against the bound
         * at the chunk's start (it only tightens, so the flags are a superset) */
        gnn_cpu_aes_candidates(words, w + i0, m, bound, u, cand);
        memset(cand + m, 0, 8);
        if (skip) /* picked positions take no key (i0 is a multiple of 64) */
            for (int q = 0; q < (m + 63) / 64; q++)
                for (uint64_t b = skip[i0 / 64 + q]; b; b &= b - 1)
                    cand[64 * q + __builtin_ctzll(b)] = 0;
        for (int h = 0; h < m; h++) {
            uint64_t eight;
            memcpy(&eight, cand + h, sizeof eight);
            if (!eight) { /* eight positions without a candidate */
                h += 7;
                continue;
            }
            if (!cand[h])
                continue;
            const double wv = (double)w[i0 + h];
            /* Cheap rejection without log or division. log(u) < u - 1 < 0, so |key| > (1 - u)
             * (1 - 2^-30) / w up to the rounding of libm's log (relative error below 2^-31;
             * glibc's is below 2^-52) and of the division; 1 - u is exact. The test, with 2^-29
             * to absorb the rounding of its two products, implies key < root: the ref does not
             * select p either. Most neighbors of a hub stop here. */
            if (n == count && (1.0 - u[h]) * (1.0 - 0x1p-29) >= bound * wv)
                continue;
            const int64_t p = i0 + h;
            const double kp = log(u[h]) / wv; /* the A-ES key, as the ref computes it */
            if (n < count) {
                gnn_wheap_push(key, pos, n, kp, p);
                if (++n == count)
                    bound = -key[0];
            } else if (gnn_wheap_worse(key[0], pos[0], kp, p)) {
                key[0] = kp;
                pos[0] = p;
                gnn_wheap_down(key, pos, n, 0);
                bound = -key[0];
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

/* Without replacement, P > count = k >= 1: successive sampling (docs/sampling.md 5.2), bit for
 * bit the reference's. Inversion draws j = 0 .. B-1 (B = 4k) over the row's prefix sums
 * (d >= 1: full sums, or the table's checkpoints), a repeat dropped, until k positions are
 * picked; the draws go in batches of the number still missing, searched in
 * lockstep, and taken in draw order, so the drawn-but-unneeded tail of a batch changes
 * nothing. If the budget runs out: the A-ES fallback over the positions not picked, with
 * draws B + i. scr: cap >= count, bits_cap >= d (its bitmap is zero again on return). */
static inline void gnn_cpu_weighted_successive(const int64_t *adj, const gnn_wrow *row, const gnn_rng_stream *s,
                                               int64_t count, int64_t *out, gnn_wscratch *scr)
{
    const double W = row->W;
    const float *w = row->w;
    const int64_t d = row->d;
    const int64_t B = gnn_weighted_budget(count);
    uint64_t *bits = scr->bits;
    double u[GNN_WDRAW_CHUNK], t[GNN_WDRAW_CHUNK];
    int64_t at[GNN_WDRAW_CHUNK];
    int64_t m = 0; /* picked so far: out[0 .. m) */
    /* their positions, to clear the bitmap: pick q at pos[count - 1 - q], above the slots
     * pos[0 .. count - m) that the fallback's heap uses */
    int64_t *picked = scr->pos + count - 1;
    for (int64_t j0 = 0; j0 < B && m < count;) {
        int64_t want = count - m; /* a missed draw costs its cache misses: no more than needed */
        if (want > B - j0)
            want = B - j0;
        const int nb = want < GNN_WDRAW_CHUNK ? (int)want : GNN_WDRAW_CHUNK;
        gnn_cpu_weighted_thresholds(s, j0, nb, W, u, t);
        gnn_wrow_search(row, u, t, nb, at);
        for (int j = 0; j < nb && m < count; j++) {
            const int64_t e = at[j];
            const uint64_t bit = (uint64_t)1 << (e & 63);
            if (bits[e >> 6] & bit)
                continue; /* a repeat: dropped */
            bits[e >> 6] |= bit;
            picked[-m] = e;
            out[m++] = adj[e];
        }
        j0 += nb;
    }
    if (m < count) /* the budget is spent: A-ES over the rest, draws B + i */
        gnn_cpu_weighted_aes(adj, w, d, s, (uint32_t)(B / 2), bits, count - m, out + m, scr);
    for (int64_t q = 0; q < m; q++)
        bits[picked[-q] >> 6] &= ~((uint64_t)1 << (picked[-q] & 63));
}

/* The first `count` positive-weight neighbors in CSR order, no draws. Returns the position
 * after the last one copied. */
static inline int64_t gnn_cpu_weighted_positive_ids(const int64_t *adj, const float *w, int64_t d, int64_t count,
                                                    int64_t *out)
{
    int64_t m = 0, i = 0;
    for (; i < d && m < count; i++)
        if (w[i] > 0.0f)
            out[m++] = adj[i];
    return i;
}

/* Write exactly `count` (from gnn_cpu_weighted_count) sampled global ids of the
 * vertex into out, in the reference's order.
 *   adj   (d) neighbor global ids (CSR row);  w (d) their weights;
 *   s     the vertex's stream gnn_rng_stream_make(seed, GNN_TAG_SAMPLE, step, layer, v);
 *   out   (count);  scr: cap >= d and bits_cap >= d (gnn_wscratch_reserve(scr, d),
 *         gnn_wscratch_reserve_bits(scr, d)).
 * The sampler (opt/cpu/sample.c) calls the pieces above with the row's cached positive count
 * and prefix sums instead (opt/cpu/sample_wtable.h); this entry computes them per call. */
static inline void gnn_cpu_weighted_vertex(const int64_t *adj, const float *w, int64_t d, int64_t k,
                                           int replace, const gnn_rng_stream *s, int64_t count,
                                           int64_t *out, gnn_wscratch *scr)
{
    if (count <= 0)
        return;
    if (k >= 0 && replace) {
        gnn_cpu_weighted_prefix(w, d, scr->prefix);
        const gnn_wrow row = gnn_wrow_prefix(scr->prefix, w, adj, d);
        gnn_cpu_weighted_draws(adj, &row, s, count, out);
        return;
    }
    /* k < 0, or P <= k: all positive-weight neighbors in CSR order, no draws. Copy the first
     * `count` of them; if no positive weight follows, that was all of them (P == count). */
    int64_t i = gnn_cpu_weighted_positive_ids(adj, w, d, count, out);
    if (k < 0)
        return;
    while (i < d && !(w[i] > 0.0f))
        i++;
    if (i == d)
        return;
    gnn_cpu_weighted_prefix(w, d, scr->prefix); /* P > k: successive sampling */
    const gnn_wrow row = gnn_wrow_prefix(scr->prefix, w, adj, d);
    gnn_cpu_weighted_successive(adj, &row, s, count, out, scr);
}

#endif
