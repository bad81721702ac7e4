/* ref/sample_weighted.c -- reference weighted neighbor sampler.
 *
 * Plain C11, no intrinsics, no threads: this file is the specification; the optimized kernels
 * (opt/cpu/sample_weighted.h) reproduce its output bit for bit (DESIGN.md section 2). The
 * method and the reasons for each choice are in docs/sampling.md.
 *
 * Dst vertex v has neighbors adj[0..d) (CSR order) with weights w[0..d) (p->weights, aligned
 * with g->indices), fanout k, stream s = (seed, SAMPLE, step, layer, id = v). Every weight
 * must be >= 0 and finite. P = number of positive weights. A zero weight is never drawn.
 *
 *   k < 0, or without replacement and P <= k:
 *       every positive-weight neighbor in CSR order; no draws.
 *   without replacement, P > k >= 1: successive sampling, by i.i.d. draws with repeats dropped
 *   (docs/sampling.md section 5.2; the law of A-ES, Efraimidis-Spirakis, Inf. Proc. Letters
 *   97(5), 2006, and of DGL's CPU sampler), B = 4k draws at most, then A-ES on the rest:
 *       prefix[i], W and t_j = u_j * W exactly as with replacement below;
 *       for draw j = 0 .. B-1, until k positions are picked:
 *           i = the first position with prefix[i] > t_j; emit adj[i] unless i is picked;
 *       if fewer than k are picked after B draws (the fallback), each position i with
 *       w[i] > 0 that is not picked takes integer draw B + i (word r),
 *           u_i = ((r >> 12) + 0.5) * 2^-52   (exact, in (0, 1)),
 *           key_i = log(u_i) / w[i]            (double; libm log),
 *       and the missing ones are the positions with the largest keys, in decreasing key
 *       order, a tie going to the lower position first.
 *   with replacement (k >= 0), P > 0:
 *       prefix[i] = w[0] + ... + w[i] summed in double in CSR order, W = prefix[d-1];
 *       for draw j = 0..k-1 (word r of integer draw j):
 *           u_j = (r >> 11) * 2^-53 (in [0, 1)),  t = u_j * W,
 *           output the first position i with prefix[i] > t; in draw order.
 *   with replacement, P == 0: no samples.
 *
 * Inputs: seeds in [0, g->n) and the weights of their rows >= 0 and finite, as the entry point
 * (gnn_sampler_layer, core/ops/sampler_base.c gnn_sample_data_check) has checked them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "gnnref/tensor.h"
#include "ref/sample_ref.h"

/* The 64-bit word of integer draw i: words 2(i%2) (low) and 2(i%2)+1 (high) of block i/2. */
static uint64_t draw_word(const gnn_rng_stream *s, int64_t i)
{
    uint32_t w[4];
    gnn_rng_block(s, (uint32_t)(i / 2), w);
    const int h = (int)(i % 2) * 2;
    return ((uint64_t)w[h + 1] << 32) | w[h];
}

typedef struct keyed {
    double key;
    int64_t pos;
} keyed;

/* key descending, then position ascending: a strict total order, so the result of the sort
 * does not depend on the sort algorithm. */
static int by_key_desc(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

/* The draw budget of successive sampling without replacement: at most B = 4k inversion draws
 * before the fallback (docs/sampling.md section 5.2). */
static int64_t weighted_budget(int64_t k) { return 4 * k; }

/* Inversion draw j: t = u_j * W with u_j = (r >> 11) * 2^-53 in [0, 1), and the first
 * position e with prefix[e] > t, by bisection (the sums are non-decreasing; t < W =
 * prefix[d-1], so the last position is the answer when no earlier one is). */
static int64_t inverse_draw(const double *prefix, int64_t d, double W, const gnn_rng_stream *s, int64_t j)
{
    const double u = (double)(draw_word(s, j) >> 11) * 0x1p-53; /* [0, 1) */
    const double t = u * W;                                    /* < W */
    int64_t lo = 0, hi = d - 1; /* the answer lies in [lo, hi] */
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (prefix[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Samples v contributes (see the rules above). */
static int64_t weighted_count(int64_t P, const gnn_sample_params *p)
{
    if (p->fanout < 0)
        return P;
    if (p->replace)
        return P > 0 ? p->fanout : 0;
    return P < p->fanout ? P : p->fanout;
}

/* Pass 1 (the rules' preamble): P counted for each seed and its sample count written:
 * offsets[i + 1] = offsets[i] + count(v), dst_gid[i] = v. Returns the largest degree, the size
 * of the per-vertex scratch. */
static int64_t count_samples(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds, const gnn_sample_params *p,
                             int64_t *offsets /* (n_seeds + 1) */, int64_t *dst_gid /* (n_seeds) */)
{
    int64_t max_deg = 0;
    offsets[0] = 0;
    for (int64_t i = 0; i < n_seeds; i++) {
        const int64_t v = seeds[i];
        const float *w = p->weights + g->indptr[v];
        const int64_t d = gnn_csr_degree(g, v);
        int64_t P = 0;
        for (int64_t e = 0; e < d; e++)
            P += w[e] > 0.0f;
        if (d > max_deg)
            max_deg = d;
        dst_gid[i] = v;
        offsets[i + 1] = offsets[i] + weighted_count(P, p);
    }
    return max_deg;
}

/* k < 0, or without replacement and P <= k: every positive-weight neighbor in CSR order, no
 * draws. */
static void take_all_positive(const int64_t *adj, const float *w, int64_t d, int64_t *out_v)
{
    int64_t m = 0;
    for (int64_t e = 0; e < d; e++)
        if (w[e] > 0.0f)
            out_v[m++] = adj[e];
}

/* prefix[e] = w[0] + ... + w[e], summed in double in CSR order (the order is the contract:
 * opt/ sums alike, so the draws land on the same positions); returns W = prefix[d-1]. */
static double prefix_sums(const float *w, int64_t d, double *prefix /* (d) */)
{
    double acc = 0.0;
    for (int64_t e = 0; e < d; e++) {
        acc += (double)w[e];
        prefix[e] = acc;
    }
    return acc;
}

/* Whether position e is among picked[0..m). */
static int is_picked(const int64_t *picked, int64_t m, int64_t e)
{
    int64_t q = 0;
    while (q < m && picked[q] != e)
        q++;
    return q < m;
}

/* Without replacement, the first stage: successive sampling (docs/sampling.md section 5.2),
 * i.i.d. inversion draws j = 0 .. B-1 with a repeat dropped, until k distinct positions or
 * the budget B = 4k is spent. picked[] lists the positions taken, in draw order; out_v gets
 * their neighbors. Returns m, the number picked. */
static int64_t successive_draws(const int64_t *adj, const double *prefix, int64_t d, double W,
                                const gnn_rng_stream *s, int64_t k, int64_t *picked /* (d) */,
                                int64_t *out_v)
{
    const int64_t B = weighted_budget(k);
    int64_t m = 0;
    for (int64_t j = 0; j < B && m < k; j++) {
        const int64_t e = inverse_draw(prefix, d, W, s, j);
        if (!is_picked(picked, m, e)) {
            picked[m] = e;
            out_v[m++] = adj[e];
        }
    }
    return m;
}

/* Without replacement, the fallback when successive sampling picked m < k after its budget:
 * A-ES (Efraimidis-Spirakis 2006) over the positive positions not picked, key_i = log(u_i) /
 * w_i with u_i from integer draw B + i; out_v[m..k) gets the k - m largest keys, in
 * decreasing key order, a tie going to the lower position. */
static void aes_fallback(const int64_t *adj, const float *w, int64_t d, const gnn_rng_stream *s,
                         int64_t k, const int64_t *picked, int64_t m, keyed *items /* (d) */,
                         int64_t *out_v)
{
    const int64_t B = weighted_budget(k);
    int64_t n_keys = 0;
    for (int64_t e = 0; e < d; e++) {
        if (!(w[e] > 0.0f))
            continue; /* weight 0: never drawn, its draw index stays unused */
        if (is_picked(picked, m, e))
            continue; /* picked: its draw index stays unused */
        const double u = ((double)(draw_word(s, B + e) >> 12) + 0.5) * 0x1p-52; /* (0, 1) */
        items[n_keys].key = log(u) / (double)w[e];
        items[n_keys].pos = e;
        n_keys++;
    }
    qsort(items, (size_t)n_keys, sizeof *items, by_key_desc);
    for (int64_t j = 0; m < k; j++)
        out_v[m++] = adj[items[j].pos];
}

/* Pass 2 for one seed v: its count samples into out_v, by the rule its case takes (the
 * header's list). prefix, picked and items are (max_deg) scratch. */
static void sample_vertex(const gnn_csr *g, int64_t v, const gnn_sample_params *p, int64_t count,
                          double *prefix, int64_t *picked, keyed *items, int64_t *out_v)
{
    const int64_t *adj = g->indices + g->indptr[v];
    const float *w = p->weights + g->indptr[v];
    const int64_t d = gnn_csr_degree(g, v);
    const int64_t k = p->fanout;
    const gnn_rng_stream s = gnn_rng_stream_make(p->seed, GNN_TAG_SAMPLE, p->step, p->layer,
                                               gnn_sample_rng_id(p, v));
    int64_t P = 0;
    for (int64_t e = 0; e < d; e++)
        P += w[e] > 0.0f;

    if (k < 0 || (!p->replace && P <= k)) {
        take_all_positive(adj, w, d, out_v);
        return;
    }
    /* inversion of the prefix sums: t_j = u_j * W with integer draw j; the first
     * prefix[e] > t_j is the drawn position */
    const double W = prefix_sums(w, d, prefix);
    if (p->replace) {
        for (int64_t j = 0; j < count; j++)
            out_v[j] = adj[inverse_draw(prefix, d, W, &s, j)];
        return;
    }
    const int64_t m = successive_draws(adj, prefix, d, W, &s, k, picked, out_v);
    if (m < k)
        aes_fallback(adj, w, d, &s, k, picked, m, items, out_v);
}

gnn_status gnn_sample_weighted_ref(const gnn_csr *g, const int64_t *seeds, int64_t n_seeds,
                                   const gnn_sample_params *p, gnn_sampled *out)
{
    memset(out, 0, sizeof *out);
    int64_t *offsets = gnn_malloc(((size_t)n_seeds + 1) * sizeof(int64_t));
    int64_t *dst_gid = gnn_malloc((size_t)n_seeds * sizeof(int64_t));
    int64_t *nbr = NULL;
    keyed *items = NULL;   /* (max_deg) scratch: keys of one vertex */
    int64_t *picked = NULL; /* (max_deg) scratch: positions picked, in draw order */
    double *prefix = NULL; /* (max_deg) scratch: prefix sums of one vertex */
    gnn_status st = GNN_ERR_NOMEM;
    if (!offsets || !dst_gid)
        goto fail;
    /* pass 1: count each seed's samples */
    const int64_t max_deg = count_samples(g, seeds, n_seeds, p, offsets, dst_gid);
    const int64_t nnz = offsets[n_seeds];
    nbr = gnn_malloc((size_t)nnz * sizeof(int64_t));
    items = gnn_malloc((size_t)max_deg * sizeof(keyed));
    prefix = gnn_malloc((size_t)max_deg * sizeof(double));
    picked = gnn_malloc((size_t)max_deg * sizeof(int64_t));
    if (!nbr || !items || !prefix || !picked)
        goto fail;

    /* pass 2: draw, seed by seed */
    for (int64_t i = 0; i < n_seeds; i++)
        sample_vertex(g, seeds[i], p, offsets[i + 1] - offsets[i], prefix, picked, items, nbr + offsets[i]);
    gnn_free(items);
    gnn_free(prefix);
    gnn_free(picked);
    out->n_dst = n_seeds;
    out->nnz = nnz;
    out->dst_gid = dst_gid;
    out->offsets = offsets;
    out->nbr_gid = nbr;
    return GNN_OK;
fail:
    gnn_free(offsets);
    gnn_free(dst_gid);
    gnn_free(nbr);
    gnn_free(items);
    gnn_free(prefix);
    gnn_free(picked);
    return st;
}
