/* core/io/gen.c -- deterministic graph generators: R-MAT (Graph500) and a stochastic block model.
 *
 * Determinism (DESIGN.md section 2): every random value is drawn from a Philox stream
 * addressed by (seed, tag, step 0, layer, id) where id is the edge or vertex the value
 * belongs to, never by thread or by position in a loop that threads split differently.
 * So the edge list, and hence the CSR built from it, is bitwise the same at any OpenMP
 * thread count (tests/test_data.c checks 1 vs 2 threads). This is how Graph500 and GAP
 * keep their generators thread-count independent: they reseed per block of edges.
 *
 * Stream map (tag, layer, id -> use), fixed because generated data is compared across runs:
 *   GEN      layer 0  id e  R-MAT edge e: float draw l picks the quadrant at level l
 *   GEN      layer 0  id v  SBM: integer draw i = i-th in-class partner of v
 *   GEN      layer 1  id v  SBM: integer draw i = i-th out-of-class partner of v
 *   GEN      layer 2  id v  SBM: float draw 0 / 1 rounds v's in / out partner count
 *   GEN      layer 3  id v  SBM with deg_power > 0: float draw 0 gives v's degree weight
 *   GEN_FEAT layer 0  id v  features of v: R-MAT uniform [-1, 1) (float draw j);
 *                           SBM Gaussian noise (Box-Muller on float draws 2p, 2p+1)
 *   GEN_FEAT layer 1  id v  label (class) of v: integer draw 0 in [0, classes)
 *   GEN_FEAT layer 2  id k  SBM centroid of class k: float draw j < 0.5 ? -1 : +1
 * Construction: the default streams the edges twice into their CSR slots and never holds the
 * list (core/io/gen_stream.c); GNN_GEN_EDGELIST materialises it and calls gnn_csr_from_edges,
 * the plain specification the streaming path must equal bit for bit (tests/test_gen_stream.c).
 * Algorithms in full: docs/formats.md, "Generators". */
#include <math.h>
#include <stdio.h>
#include <string.h>
#ifdef GNN_HAVE_OPENMP
#include <omp.h>
#endif
#include "core/io/gen_internal.h"
#include "gnnref/dataset.h"
#include "gnnref/rng.h"
#include "gnnref/tensor.h"

#define GEN_MAX_N ((int64_t)1 << 40)
#define GEN_MAX_EDGES ((int64_t)1 << 40) /* stream ids carry 48 bits; memory runs out first */

/* The specification of every generator's graph: the symmetrized, deduplicated, loop-free CSR
 * of the generated edge list, and its stats. The streaming path (gen_internal.h) must equal it. */
static gnn_status gen_graph(gnn_dataset *ds, int64_t n, int64_t m, const int64_t *src, const int64_t *dst,
                            gnn_err *err)
{
    int64_t self = 0;
    for (int64_t e = 0; e < m; e++)
        self += src[e] == dst[e];
    gnn_status st = gnn_csr_from_edges(&ds->graph, n, m, src, dst,
                                       GNN_CSR_SYMMETRIZE | GNN_CSR_DEDUP | GNN_CSR_DROP_SELF, err);
    if (st)
        return st;
    ds->stats.edges_read = m;
    ds->stats.self_loops_dropped = self;
    ds->stats.duplicates_merged = 2 * (m - self) - ds->graph.nnz;
    ds->stats.symmetrized = 1;
    return GNN_OK;
}

/* Labels from GEN_FEAT layer 1: integer draw 0 of vertex v's stream, in [0, classes). */
static gnn_status gen_labels(gnn_dataset *ds, int64_t n, int64_t classes, uint64_t seed)
{
    ds->num_classes = classes;
    ds->labels = gnn_malloc((size_t)n * sizeof(int32_t));
    if (!ds->labels)
        return GNN_ERR_NOMEM;
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < n; v++) {
        const gnn_rng_stream s = gnn_rng_stream_make(seed, GNN_TAG_GEN_FEAT, 0, 1, (uint64_t)v);
        ds->labels[v] = (int32_t)gnn_rng_uint(&s, 0, (uint64_t)classes);
    }
    return GNN_OK;
}

/* ==== R-MAT ==== */

void gnn_rmat_defaults(gnn_rmat_params *p)
{
    p->scale = 16;
    p->edge_factor = 16;
    p->a = 0.57; /* Graph500 initiator */
    p->b = 0.19;
    p->c = 0.19;
    p->seed = 1;
    p->num_features = 0;
    p->num_classes = 0;
}

/* Edge e: descend `scale` levels of the adjacency matrix; at level l the float draw l picks
 * the top-left (a), top-right (b), bottom-left (c) or bottom-right (d) quadrant, adding one
 * bit to the source (row) and destination (column) ids, most significant bit first. */
static void rmat_edge(uint64_t seed, int64_t e, int scale, float ta, float tab, float tabc, int64_t *u_out,
                      int64_t *v_out)
{
    const gnn_rng_stream s = gnn_rng_stream_make(seed, GNN_TAG_GEN, 0, 0, (uint64_t)e);
    int64_t u = 0, v = 0;
    uint32_t w[40]; /* float draw l = word l%4 of block l/4; the blocks are independent, so drawing them
                       all first lets the CPU overlap their rounds */
    for (int k = 0; k < (scale + 3) / 4; k++)
        gnn_rng_block(&s, (uint32_t)k, w + 4 * k);
    for (int l = 0; l < scale; l++) {
        const float r = (float)(w[l] >> 8) * (1.0f / 16777216.0f);
        const int row = r >= tab;                /* c or d: bottom half */
        const int col = r >= tabc || (r >= ta && r < tab); /* b or d: right half */
        u = u << 1 | row;
        v = v << 1 | col;
    }
    *u_out = u;
    *v_out = v;
}

static gnn_status rmat_check(const gnn_rmat_params *p, gnn_err *err)
{
    if (p->scale < 1 || p->scale > 40)
        return gnn_err_set(err, GNN_ERR_INVAL, "rmat: scale %d outside [1, 40]", p->scale);
    if (p->edge_factor < 1 || p->edge_factor > (1 << 20) || ((int64_t)p->edge_factor << p->scale) > GEN_MAX_EDGES)
        return gnn_err_set(err, GNN_ERR_INVAL, "rmat: edge factor %d x 2^%d edges is outside [1, 2^40]", p->edge_factor,
                           p->scale);
    if (!(p->a >= 0 && p->b >= 0 && p->c >= 0 && p->a + p->b + p->c <= 1.0))
        return gnn_err_set(err, GNN_ERR_INVAL, "rmat: a %g, b %g, c %g must be >= 0 with a + b + c <= 1", p->a, p->b,
                           p->c);
    if (p->num_features < 0 || p->num_features > ((int64_t)1 << 20) || p->num_classes < 0 ||
        p->num_classes > INT32_MAX)
        return gnn_err_set(err, GNN_ERR_INVAL, "rmat: features %lld or classes %lld out of range",
                           (long long)p->num_features, (long long)p->num_classes);
    return GNN_OK;
}

/* R-MAT features: uniform in [-1, 1), float draw j of GEN_FEAT layer 0, id v. */
static gnn_status rmat_features(gnn_dataset *ds, int64_t n, int64_t f, uint64_t seed)
{
    ds->num_features = f;
    ds->feat = gnn_malloc((size_t)(n * f) * sizeof(float));
    if (!ds->feat)
        return GNN_ERR_NOMEM;
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < n; v++) {
        const gnn_rng_stream s = gnn_rng_stream_make(seed, GNN_TAG_GEN_FEAT, 0, 0, (uint64_t)v);
        float *row_v = ds->feat + v * f;
        for (int64_t j = 0; j < f; j++)
            row_v[j] = 2.0f * gnn_rng_float(&s, (uint64_t)j) - 1.0f;
    }
    return GNN_OK;
}

/* The R-MAT graph, from its edge list (the specification) or streamed. */
static gnn_status rmat_graph(gnn_dataset *ds, const gnn_rmat_params *p, gnn_gen_build how, gnn_err *err)
{
    const int64_t n = (int64_t)1 << p->scale, m = (int64_t)p->edge_factor << p->scale;
    /* thresholds in f32, the type of the draw, so the comparison is exact and portable */
    const float ta = (float)p->a, tab = (float)(p->a + p->b), tabc = (float)(p->a + p->b + p->c);
    if (how == GNN_GEN_EDGELIST) {
        int64_t *src = gnn_malloc((size_t)m * sizeof(int64_t)), *dst = gnn_malloc((size_t)m * sizeof(int64_t));
        gnn_status st = GNN_ERR_NOMEM;
        if (src && dst) {
            /* edge e depends only on (seed, e): any schedule gives the same list */
#pragma omp parallel for schedule(static)
            for (int64_t e = 0; e < m; e++)
                rmat_edge(p->seed, e, p->scale, ta, tab, tabc, &src[e], &dst[e]);
            st = gen_graph(ds, n, m, src, dst, err);
        }
        gnn_free(src);
        gnn_free(dst);
        return st;
    }
    gen_csr b;
    int64_t self = 0;
    if (gen_csr_begin(&b, n, m))
        return GNN_ERR_NOMEM;
    for (int pass = 1; pass <= 2; pass++) { /* 1: count degrees; 2: the same edges into their slots */
        int64_t loops = 0;
#pragma omp parallel
        {
            gen_csr_buf q = { .b = &b };
#pragma omp for schedule(static)
            for (int64_t e = 0; e < m; e++) {
                int64_t u, v;
                rmat_edge(p->seed, e, p->scale, ta, tab, tabc, &u, &v);
                gen_csr_add(&q, u, v);
            }
            gen_csr_flush(&q);
#pragma omp atomic
            loops += q.self;
        }
        if (pass == 1) {
            self = loops;
            gen_csr_place(&b);
        }
    }
    return gen_csr_finish(&b, ds, m, self, err);
}

gnn_status gnn_gen_rmat_build(gnn_dataset *ds, const gnn_rmat_params *p, gnn_gen_build how, gnn_err *err)
{
    if (!ds || !p)
        return gnn_err_set(err, GNN_ERR_INVAL, "rmat: NULL argument");
    memset(ds, 0, sizeof *ds);
    if (how != GNN_GEN_STREAM && how != GNN_GEN_EDGELIST)
        return gnn_err_set(err, GNN_ERR_INVAL, "rmat: construction %d: expected stream or edge list", (int)how);
    gnn_status st = rmat_check(p, err);
    if (st)
        return st;
    ds->owns_arrays = 1;
    snprintf(ds->name, sizeof ds->name, "rmat-s%d-e%d", p->scale, p->edge_factor);
    const int64_t n = (int64_t)1 << p->scale;
    if ((st = rmat_graph(ds, p, how, err)))
        goto fail;
    if (p->num_features > 0 && (st = rmat_features(ds, n, p->num_features, p->seed)))
        goto fail;
    if (p->num_classes > 0 && (st = gen_labels(ds, n, p->num_classes, p->seed)))
        goto fail;
    if ((st = gnn_dataset_validate(ds, ds->name, err)))
        goto fail;
    return GNN_OK;
fail:
    if (st == GNN_ERR_NOMEM)
        gnn_err_set(err, st, "rmat: out of memory for scale %d", p->scale);
    gnn_dataset_free(ds);
    return st;
}

gnn_status gnn_gen_rmat(gnn_dataset *ds, const gnn_rmat_params *p, gnn_err *err)
{
    return gnn_gen_rmat_build(ds, p, GNN_GEN_STREAM, err);
}

/* ==== stochastic block model ==== */

void gnn_sbm_defaults(gnn_sbm_params *p)
{
    /* The built-in dataset (`make run`): 20000 vertices, 8 classes, 64 features, average
     * degree 12 with 7 of it inside the class (edge homophily ~0.58). The noise makes the
     * classes overlap heavily in feature space: a linear classifier on a vertex's own
     * features (the best rule for Gaussian classes of equal spread, so an MLP cannot do much
     * better) reaches ~0.53 test accuracy. Averaging over neighbors, mostly of the same class,
     * cuts the noise: 2-layer GraphSAGE (gnnref train defaults, 10 epochs) reaches ~0.96.
     * A 10% train split keeps `make run` short and leaves room above and below. Measured
     * numbers: docs/formats.md, "The built-in dataset". */
    p->n = 20000;
    p->classes = 8;
    p->deg_in = 7.0;
    p->deg_out = 5.0;
    p->num_features = 64;
    p->noise = 5.0;
    p->seed = 1;
    p->train = 0.1;
    p->val = 0.2;
    p->test = 0.2;
    p->deg_power = 0; /* every vertex weight 1: the plain SBM */
    p->deg_max = 1;
}

static gnn_status sbm_check(const gnn_sbm_params *p, gnn_err *err)
{
    if (p->n < 1 || p->n > GEN_MAX_N)
        return gnn_err_set(err, GNN_ERR_INVAL, "sbm: nodes %lld outside [1, 2^40]", (long long)p->n);
    if (p->classes < 1 || p->classes > INT32_MAX)
        return gnn_err_set(err, GNN_ERR_INVAL, "sbm: classes %lld outside [1, 2^31)", (long long)p->classes);
    if (!(p->deg_in >= 0 && p->deg_out >= 0 && p->deg_in + p->deg_out <= 1e6) ||
        (double)p->n * (p->deg_in + p->deg_out) / 2 > (double)GEN_MAX_EDGES)
        return gnn_err_set(err, GNN_ERR_INVAL, "sbm: degrees in %g, out %g must be >= 0 with a total below 1e6", p->deg_in,
                           p->deg_out);
    if (p->num_features < 0 || p->num_features > ((int64_t)1 << 20))
        return gnn_err_set(err, GNN_ERR_INVAL, "sbm: features %lld outside [0, 2^20]", (long long)p->num_features);
    if (!(p->noise >= 0 && isfinite(p->noise)))
        return gnn_err_set(err, GNN_ERR_INVAL, "sbm: noise %g must be finite and >= 0", p->noise);
    if (!(p->deg_power >= 0 && p->deg_power <= 100) ||
        (p->deg_power > 0 && !(p->deg_max >= 1 && p->deg_max <= 1e9)))
        return gnn_err_set(err, GNN_ERR_INVAL, "sbm: degree power %g outside [0, 100] or weight cap %g outside [1, 1e9]",
                           p->deg_power, p->deg_max);
    return GNN_OK;
}

/* Partner count: floor(deg/2) plus one more with probability frac(deg/2), so the expected
 * count is exactly deg/2 and the expected degree after symmetrization deg. */
static int64_t sbm_count(double deg, float coin)
{
    const double half = deg / 2, whole = floor(half);
    return (int64_t)whole + ((double)coin < half - whole);
}

/* The vertices grouped by class (counting sort, id order within a class):
 * order[start[k] .. start[k+1]) are the members of class k. */
static gnn_status sbm_group(const int32_t *cls, int64_t n, int64_t classes, int64_t **order_out, int64_t **start_out)
{
    int64_t *start = gnn_calloc((size_t)classes + 1, sizeof(int64_t));
    int64_t *order = gnn_malloc((size_t)n * sizeof(int64_t));
    int64_t *fill = gnn_malloc(((size_t)classes + 1) * sizeof(int64_t));
    if (!start || !order || !fill) {
        gnn_free(start);
        gnn_free(order);
        gnn_free(fill);
        return GNN_ERR_NOMEM;
    }
    for (int64_t v = 0; v < n; v++)
        start[cls[v] + 1]++;
    for (int64_t k = 0; k < classes; k++)
        start[k + 1] += start[k];
    memcpy(fill, start, ((size_t)classes + 1) * sizeof(int64_t));
    for (int64_t v = 0; v < n; v++)
        order[fill[cls[v]]++] = v;
    gnn_free(fill);
    *order_out = order;
    *start_out = start;
    return GNN_OK;
}

/* What the edges of an SBM depend on: the parameters, the classes grouped, the mean weight. */
typedef struct sbm_plan {
    const gnn_sbm_params *p;
    const int32_t *cls;   /* (n) class of each vertex */
    int64_t *order;       /* (n) vertices grouped by class (sbm_group) */
    int64_t *start;       /* (classes + 1) */
    double mean_w;        /* E[min(W, deg_max)] of the weight law below; 1 without weights */
} sbm_plan;

/* Degree weights (deg_power = alpha > 0): W = (1 - u)^(-1/alpha), Pareto with minimum 1 and tail
 * exponent alpha, capped at deg_max; its mean E[min(W, c)] = (alpha - c^(1-alpha)) / (alpha - 1),
 * or 1 + ln c at alpha = 1. Vertex v's mean partner counts are deg * W_v / E[W]. */
static double sbm_mean_weight(const gnn_sbm_params *p)
{
    const double a = p->deg_power, c = p->deg_max;
    if (a <= 0)
        return 1.0;
    return a == 1.0 ? 1.0 + log(c) : (a - pow(c, 1.0 - a)) / (a - 1.0);
}

/* v's in-class and out-of-class partner counts. */
static void sbm_counts(const sbm_plan *s, int64_t v, int64_t *k_in, int64_t *k_out)
{
    const gnn_sbm_params *p = s->p;
    const gnn_rng_stream st = gnn_rng_stream_make(p->seed, GNN_TAG_GEN, 0, 2, (uint64_t)v);
    const int64_t size_c = s->start[s->cls[v] + 1] - s->start[s->cls[v]];
    double deg_in = p->deg_in, deg_out = p->deg_out;
    if (p->deg_power > 0) {
        const gnn_rng_stream sw = gnn_rng_stream_make(p->seed, GNN_TAG_GEN, 0, 3, (uint64_t)v);
        const double w = pow(1.0 - (double)gnn_rng_float(&sw, 0), -1.0 / p->deg_power);
        const double scale = (w < p->deg_max ? w : p->deg_max) / s->mean_w;
        deg_in *= scale;
        deg_out *= scale;
    }
    *k_in = sbm_count(deg_in, gnn_rng_float(&st, 0));
    *k_out = size_c < p->n ? sbm_count(deg_out, gnn_rng_float(&st, 1)) : 0; /* one class: none */
}

/* The partners of vertex v: in-class partners are uniform over v's class (v itself included:
 * that self-loop is dropped later), out-of-class partners uniform over all vertices of other
 * classes. Edge v -> partner is written to src/dst[first ..) (the edge-list path) or, when q is
 * given, queued for the streaming construction. */
static void sbm_partners(const sbm_plan *s, int64_t v, int64_t k_in, int64_t k_out, int64_t first, int64_t *src,
                         int64_t *dst, gen_csr_buf *q)
{
    const int64_t n = s->p->n, c = s->cls[v], size_c = s->start[c + 1] - s->start[c];
    const int64_t *order = s->order, *start = s->start;
    const gnn_rng_stream s_in = gnn_rng_stream_make(s->p->seed, GNN_TAG_GEN, 0, 0, (uint64_t)v);
    const gnn_rng_stream s_out = gnn_rng_stream_make(s->p->seed, GNN_TAG_GEN, 0, 1, (uint64_t)v);
    int64_t e = first;
    for (int64_t i = 0; i < k_in + k_out; i++, e++) {
        int64_t u;
        if (i < k_in) {
            u = order[start[c] + (int64_t)gnn_rng_uint(&s_in, (uint64_t)i, (uint64_t)size_c)];
        } else {
            /* index into the other classes: order[0 .. start[c]) followed by order[start[c+1] .. n) */
            const int64_t j = (int64_t)gnn_rng_uint(&s_out, (uint64_t)(i - k_in), (uint64_t)(n - size_c));
            u = order[j < start[c] ? j : j + size_c];
        }
        if (q) {
            gen_csr_add(q, v, u);
        } else {
            src[e] = v;
            dst[e] = u;
        }
    }
}

/* The edge-list path (the specification): per-vertex offsets, the list, gnn_csr_from_edges. */
static gnn_status sbm_edgelist(gnn_dataset *ds, const sbm_plan *s, gnn_err *err)
{
    const int64_t n = s->p->n;
    int64_t *src = NULL, *dst = NULL;
    int64_t *first = gnn_malloc(((size_t)n + 1) * 2 * sizeof(int64_t)); /* [0, n]: edge offsets; [n+1, 2n+1): k_in */
    if (!first)
        return GNN_ERR_NOMEM;
    int64_t *k_in = first + n + 1;
    first[0] = 0;
    gnn_status st = GNN_OK;
    /* per-vertex counts in parallel (pure functions of v), offsets by a sequential prefix sum */
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < n; v++) {
        int64_t k_out;
        sbm_counts(s, v, &k_in[v], &k_out);
        first[v + 1] = k_in[v] + k_out;
    }
    for (int64_t v = 0; v < n; v++)
        first[v + 1] += first[v];
    const int64_t m = first[n];
    src = gnn_malloc((size_t)m * sizeof(int64_t));
    dst = gnn_malloc((size_t)m * sizeof(int64_t));
    if (!src || !dst) {
        st = gnn_err_set(err, GNN_ERR_NOMEM, "sbm: out of memory for %lld edges", (long long)m);
        goto out;
    }
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < n; v++)
        sbm_partners(s, v, k_in[v], first[v + 1] - first[v] - k_in[v], first[v], src, dst, NULL);
    st = gen_graph(ds, n, m, src, dst, err);
out:
    gnn_free(first);
    gnn_free(src);
    gnn_free(dst);
    return st;
}

/* The streaming path: the partner counts summed (m, for the slots), then the vertices'
 * partners counted into degrees (pass 1) and placed (pass 2). */
static gnn_status sbm_stream(gnn_dataset *ds, const sbm_plan *s, gnn_err *err)
{
    const int64_t n = s->p->n;
    int64_t m = 0, self = 0;
#pragma omp parallel for schedule(static) reduction(+ : m)
    for (int64_t v = 0; v < n; v++) {
        int64_t k_in, k_out;
        sbm_counts(s, v, &k_in, &k_out);
        m += k_in + k_out;
    }
    gen_csr b;
    if (gen_csr_begin(&b, n, m))
        return gnn_err_set(err, GNN_ERR_NOMEM, "sbm: out of memory for %lld edges", (long long)m);
    for (int pass = 1; pass <= 2; pass++) {
        int64_t loops = 0;
#pragma omp parallel
        {
            gen_csr_buf q = { .b = &b };
#pragma omp for schedule(dynamic, 1024)
            for (int64_t v = 0; v < n; v++) {
                int64_t k_in, k_out;
                sbm_counts(s, v, &k_in, &k_out);
                sbm_partners(s, v, k_in, k_out, 0, NULL, NULL, &q);
            }
            gen_csr_flush(&q);
#pragma omp atomic
            loops += q.self;
        }
        if (pass == 1) {
            self = loops;
            gen_csr_place(&b);
        }
    }
    return gen_csr_finish(&b, ds, m, self, err);
}

static gnn_status sbm_edges(gnn_dataset *ds, const gnn_sbm_params *p, const int32_t *cls, gnn_gen_build how,
                            gnn_err *err)
{
    sbm_plan s = { .p = p, .cls = cls, .mean_w = sbm_mean_weight(p) };
    gnn_status st = sbm_group(cls, p->n, p->classes, &s.order, &s.start);
    if (st)
        return st;
    st = how == GNN_GEN_EDGELIST ? sbm_edgelist(ds, &s, err) : sbm_stream(ds, &s, err);
    gnn_free(s.order);
    gnn_free(s.start);
    return st;
}

/* Features: centroid of v's class + noise * N(0, 1). Gaussian pairs by Box-Muller on float
 * draws 2p, 2p+1 of GEN_FEAT layer 0, id v: r = sqrt(-2 ln(1 - u1)), z = r cos(2 pi u2),
 * r sin(2 pi u2) for columns 2p, 2p+1 (1 - u1 is in (0, 1], so the log is finite). */
static gnn_status sbm_features(gnn_dataset *ds, const gnn_sbm_params *p, const int32_t *cls)
{
    const int64_t n = p->n, f = p->num_features, classes = p->classes;
    if (f == 0)
        return GNN_OK;
    ds->num_features = f;
    ds->feat = gnn_malloc((size_t)(n * f) * sizeof(float));
    float *centroid = gnn_malloc((size_t)(classes * f) * sizeof(float)); /* (classes, f) */
    if (!ds->feat || !centroid) {
        gnn_free(centroid);
        return GNN_ERR_NOMEM;
    }
    for (int64_t k = 0; k < classes; k++) {
        const gnn_rng_stream s = gnn_rng_stream_make(p->seed, GNN_TAG_GEN_FEAT, 0, 2, (uint64_t)k);
        for (int64_t j = 0; j < f; j++)
            centroid[k * f + j] = gnn_rng_float(&s, (uint64_t)j) < 0.5f ? -1.0f : 1.0f;
    }
    const double two_pi = 6.283185307179586;
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < n; v++) {
        const gnn_rng_stream s = gnn_rng_stream_make(p->seed, GNN_TAG_GEN_FEAT, 0, 0, (uint64_t)v);
        const float *cent_v = centroid + (int64_t)cls[v] * f;
        float *row_v = ds->feat + v * f;
        uint32_t w[4];
        for (int64_t j = 0; j < f; j += 2) {
            if (j % 4 == 0)
                gnn_rng_block(&s, (uint32_t)(j / 4), w); /* float draws j .. j+3 */
            const double u1 = (double)((w[j % 4] >> 8) * (1.0f / 16777216.0f));
            const double u2 = (double)((w[j % 4 + 1] >> 8) * (1.0f / 16777216.0f));
            const double r = sqrt(-2.0 * log(1.0 - u1));
            row_v[j] = (float)(cent_v[j] + p->noise * r * cos(two_pi * u2));
            if (j + 1 < f)
                row_v[j + 1] = (float)(cent_v[j + 1] + p->noise * r * sin(two_pi * u2));
        }
    }
    gnn_free(centroid);
    return GNN_OK;
}

gnn_status gnn_gen_sbm(gnn_dataset *ds, const gnn_sbm_params *p, gnn_err *err)
{
    return gnn_gen_sbm_build(ds, p, GNN_GEN_STREAM, err);
}

gnn_status gnn_gen_sbm_build(gnn_dataset *ds, const gnn_sbm_params *p, gnn_gen_build how, gnn_err *err)
{
    if (!ds || !p)
        return gnn_err_set(err, GNN_ERR_INVAL, "sbm: NULL argument");
    memset(ds, 0, sizeof *ds);
    if (how != GNN_GEN_STREAM && how != GNN_GEN_EDGELIST)
        return gnn_err_set(err, GNN_ERR_INVAL, "sbm: construction %d: expected stream or edge list", (int)how);
    gnn_status st = sbm_check(p, err);
    if (st)
        return st;
    ds->owns_arrays = 1;
    snprintf(ds->name, sizeof ds->name, "sbm-n%lld-c%lld", (long long)p->n, (long long)p->classes);
    /* classes first: the edges and the features both depend on them */
    if ((st = gen_labels(ds, p->n, p->classes, p->seed)) || (st = sbm_edges(ds, p, ds->labels, how, err)) ||
        (st = sbm_features(ds, p, ds->labels)))
        goto fail;
    if (p->train + p->val + p->test > 0 &&
        (st = gnn_dataset_split_random(ds, p->train, p->val, p->test, p->seed, err)))
        goto fail;
    if ((st = gnn_dataset_validate(ds, ds->name, err)))
        goto fail;
    return GNN_OK;
fail:
    if (st == GNN_ERR_NOMEM)
        gnn_err_set(err, st, "sbm: out of memory for %lld vertices", (long long)p->n);
    gnn_dataset_free(ds);
    return st;
}

/* The OGB-shaped presets (docs/scale.md says why each value, and where the shape differs). */
gnn_status gnn_sbm_preset(gnn_sbm_params *p, const char *name, gnn_err *err)
{
    if (!p || !name)
        return gnn_err_set(err, GNN_ERR_INVAL, "sbm preset: NULL argument");
    gnn_sbm_defaults(p);
    p->deg_power = 1.5; /* degree tail exponent ~2.5 */
    p->deg_max = 1000;  /* the largest weight, ~340x the mean weight 2.94 */
    p->noise = 4.0;
    if (!strcmp(name, "products")) {
        p->n = 2449029;
        p->classes = 47;
        p->num_features = 100;
        p->deg_in = 41.0; /* ~81% of the edges inside the class; mean degree ~50.5 (123.7M entries) */
        p->deg_out = 9.35;
        p->train = 0.08;
        p->val = 0.02;
        p->test = 0.90;
        return GNN_OK;
    }
    if (!strcmp(name, "papers100m")) {
        p->n = 111059956;
        p->classes = 172;
        p->num_features = 0; /* 128 in the real set: 57 GB of f32 */
        p->deg_in = 8.3;     /* ~57% inside the class; mean degree ~14.5 (1.6G entries) */
        p->deg_out = 6.3;
        p->train = 1207179.0 / 111059956.0; /* OGB's labelled split, as fractions: */
        p->val = 125265.0 / 111059956.0;    /* a smaller --nodes keeps the proportions */
        p->test = 214338.0 / 111059956.0;
        return GNN_OK;
    }
    return gnn_err_set(err, GNN_ERR_INVAL, "sbm preset '%s': expected products or papers100m", name);
}

/* The type metadata of a typed SBM: vertex types "t<k>" (the last `featureless` of them
 * featureless: their rows zeroed), relations "ta:r<r>:tb" for r = a T + b. */
static gnn_status hsbm_types(gnn_dataset *ds, int64_t types, int64_t featureless)
{
    const int64_t n = ds->graph.n, R = types * types, f = ds->num_features;
    ds->vtype = gnn_malloc(sizeof(int32_t) * (size_t)(n + 1));
    ds->vtype_names = gnn_calloc((size_t)types, GNN_TYPE_NAME_MAX);
    ds->etype_names = gnn_calloc((size_t)R, GNN_TYPE_NAME_MAX);
    ds->vtype_featless = gnn_calloc((size_t)types, 1);
    if (!ds->vtype || !ds->vtype_names || !ds->etype_names || !ds->vtype_featless)
        return GNN_ERR_NOMEM;
    ds->num_vtypes = types;
    for (int64_t v = 0; v < n; v++)
        ds->vtype[v] = (int32_t)(v * types / n); /* the same rule as the relations below */
    for (int64_t t = 0; t < types; t++) {
        snprintf(ds->vtype_names[t], GNN_TYPE_NAME_MAX, "t%lld", (long long)t);
        ds->vtype_featless[t] = t >= types - featureless;
    }
    for (int64_t r = 0; r < R; r++)
        snprintf(ds->etype_names[r], GNN_TYPE_NAME_MAX, "t%lld:r%lld:t%lld", (long long)(r / types), (long long)r,
                 (long long)(r % types));
    for (int64_t v = 0; featureless > 0 && ds->feat && v < n; v++)
        if (ds->vtype_featless[ds->vtype[v]])
            memset(ds->feat + v * f, 0, (size_t)f * sizeof(float));
    return GNN_OK;
}

gnn_status gnn_gen_hsbm(gnn_dataset *ds, const gnn_sbm_params *p, int64_t types, int64_t featureless, gnn_err *err)
{
    if (types < 1 || types > 16)
        return gnn_err_set(err, GNN_ERR_INVAL, "typed sbm: %lld vertex types: expected 1..16", (long long)types);
    if (featureless < 0 || featureless > types)
        return gnn_err_set(err, GNN_ERR_INVAL, "typed sbm: %lld featureless types: expected 0..%lld (the types)",
                           (long long)featureless, (long long)types);
    gnn_status st = gnn_gen_sbm(ds, p, err);
    if (st)
        return st;
    const gnn_csr *g = &ds->graph;
    if (!(ds->etype = gnn_malloc(sizeof(int32_t) * (size_t)(g->nnz + 1))) || hsbm_types(ds, types, featureless)) {
        gnn_dataset_free(ds);
        return gnn_err_set(err, GNN_ERR_NOMEM, "typed sbm: out of memory");
    }
    for (int64_t v = 0; v < g->n; v++)
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
            const int64_t tu = g->indices[e] * types / g->n, tv = v * types / g->n;
            ds->etype[e] = (int32_t)(tu * types + tv);
        }
    ds->num_etypes = types * types;
    if (featureless > 0)
        snprintf(ds->name, sizeof ds->name, "typed-sbm-n%lld-t%lld-f%lld", (long long)p->n, (long long)types,
                 (long long)featureless);
    else
        snprintf(ds->name, sizeof ds->name, "typed-sbm-n%lld-t%lld", (long long)p->n, (long long)types);
    if ((st = gnn_dataset_validate(ds, ds->name, err)))
        gnn_dataset_free(ds);
    return st;
}

gnn_status gnn_gen_typed_sbm(gnn_dataset *ds, const gnn_sbm_params *p, int64_t types, gnn_err *err)
{
    return gnn_gen_hsbm(ds, p, types, 0, err);
}
