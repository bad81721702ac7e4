/* oracle/compare.c -- comparators: guard bytes, NaN/Inf screening, bitwise, ulp, allclose,
 * nmse, canonical block relabeling, and the chi-square p-value.
 *
 * Order of checks for every numeric comparison (DESIGN.md section 3):
 *   1. guard bytes of both buffers unchanged   (an out-of-bounds write is a FAIL by itself)
 *   2. no NaN in either output                 (outputs start as NaN: a NaN left means
 *                                               an element was never written)
 *   3. infinities match exactly (same sign)
 *   4. the comparator on the remaining (finite) elements.
 * Every failure message names the buffer, counts the mismatches and lists the first few with
 * their [row,col], flat index, and both values in decimal and hex. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/oracle.h"
#include "gnnref/tensor.h"

#define SHOW_MISMATCHES 5

/* ---- guard bytes ------------------------------------------------------------------------- */

/* Layout: [header 64: magic, size][guard 64][payload size][guard 64]; payload 64-aligned. */
#define GUARD_MAGIC 0x6775617264656421ull /* "guarded!" */
#define GUARD_HDR 64

typedef struct guard_hdr {
    uint64_t magic;
    uint64_t size;
} guard_hdr;

/* Sentinel byte i of a guard: position-dependent, so a stray memset or a copied guard shows;
 * the constants keep every byte of both guards away from 0x00 and 0xFF (zeros and the NaN fill). */
static unsigned char guard_byte(int after, size_t i)
{
    return (unsigned char)(0xA5u ^ (unsigned)(i * 0x3Du) ^ (after ? 0x13u : 0x00u));
}

void *gnn_guard_alloc(size_t bytes, int fill)
{
    if (bytes > SIZE_MAX - (GUARD_HDR + 2 * GNN_GUARD_BYTES))
        return NULL;
    unsigned char *base = gnn_malloc(GUARD_HDR + GNN_GUARD_BYTES + bytes + GNN_GUARD_BYTES);
    if (!base)
        return NULL;
    guard_hdr h = { GUARD_MAGIC, bytes };
    memset(base, 0, GUARD_HDR);
    memcpy(base, &h, sizeof h);
    unsigned char *pre = base + GUARD_HDR, *payload = pre + GNN_GUARD_BYTES, *post = payload + bytes;
    for (size_t i = 0; i < GNN_GUARD_BYTES; i++) {
        pre[i] = guard_byte(0, i);
        post[i] = guard_byte(1, i);
    }
    memset(payload, fill, bytes);
    return payload;
}

static guard_hdr *guard_header(const void *payload)
{
    return (guard_hdr *)((unsigned char *)payload - GNN_GUARD_BYTES - GUARD_HDR);
}

gnn_status gnn_guard_check(const void *payload, char *msg, size_t msg_len)
{
    const guard_hdr *h = guard_header(payload);
    if (h->magic != GUARD_MAGIC) {
        snprintf(msg, msg_len, "guard header overwritten (write far before the start)");
        return GNN_ERR_MISMATCH;
    }
    const unsigned char *pre = (const unsigned char *)payload - GNN_GUARD_BYTES;
    const unsigned char *post = (const unsigned char *)payload + h->size;
    /* before: report the byte closest to the payload (the likeliest culprit, offset -1..) */
    int changed = 0;
    long first = 0;
    for (size_t i = GNN_GUARD_BYTES; i-- > 0;)
        if (pre[i] != guard_byte(0, i)) {
            if (!changed)
                first = (long)i - GNN_GUARD_BYTES;
            changed++;
        }
    if (changed) {
        snprintf(msg, msg_len, "out-of-bounds write: %d guard byte(s) before the start changed, "
                 "first at offset %ld (payload %llu bytes)", changed, first, (unsigned long long)h->size);
        return GNN_ERR_MISMATCH;
    }
    for (size_t i = 0; i < GNN_GUARD_BYTES; i++)
        if (post[i] != guard_byte(1, i)) {
            if (!changed)
                first = (long)i;
            changed++;
        }
    if (changed) {
        snprintf(msg, msg_len, "out-of-bounds write: %d guard byte(s) after the end changed, "
                 "first at end+%ld (payload %llu bytes)", changed, first, (unsigned long long)h->size);
        return GNN_ERR_MISMATCH;
    }
    return GNN_OK;
}

void gnn_guard_free(void *payload)
{
    if (payload)
        gnn_free(guard_header(payload));
}

/* ---- element helpers ----------------------------------------------------------------------- */

static int64_t ordered_f32(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (u & 0x80000000u) ? -(int64_t)(u & 0x7fffffffu) : (int64_t)u;
}

static int64_t ordered_f64(double f)
{
    uint64_t u;
    memcpy(&u, &f, sizeof u);
    /* magnitudes fit in 63 bits; the sign folds them around 0 (so +0 and -0 coincide) */
    return (u >> 63) ? -(int64_t)(u & 0x7fffffffffffffffull) : (int64_t)u;
}

int64_t gnn_oracle_ulp_f32(float a, float b)
{
    int64_t d = ordered_f32(a) - ordered_f32(b);
    return d < 0 ? -d : d;
}

static int64_t ulp_f64(double a, double b)
{
    int64_t x = ordered_f64(a), y = ordered_f64(b);
    /* saturate instead of overflowing for values of opposite signs far apart */
    if ((x < 0) != (y < 0) && (x > INT64_MAX / 2 || y > INT64_MAX / 2 || x < INT64_MIN / 2 || y < INT64_MIN / 2))
        return INT64_MAX;
    int64_t d = x - y;
    return d < 0 ? -d : d;
}

/* A typed view of a float or double array. */
typedef struct fview {
    const void *p;
    int f64;
} fview;

static double fget(fview v, int64_t i)
{
    return v.f64 ? ((const double *)v.p)[i] : (double)((const float *)v.p)[i];
}

static uint64_t fbits(fview v, int64_t i)
{
    if (v.f64) {
        uint64_t u;
        memcpy(&u, (const double *)v.p + i, 8);
        return u;
    }
    uint32_t u;
    memcpy(&u, (const float *)v.p + i, 4);
    return u;
}

static int64_t fulp(fview a, fview b, int64_t i)
{
    return a.f64 ? ulp_f64(fget(a, i), fget(b, i))
                 : gnn_oracle_ulp_f32(((const float *)a.p)[i], ((const float *)b.p)[i]);
}

static void fmt_index(char *buf, size_t n, int64_t i, int64_t cols)
{
    if (cols > 0)
        snprintf(buf, n, "[%lld,%lld] (i=%lld)", (long long)(i / cols), (long long)(i % cols), (long long)i);
    else
        snprintf(buf, n, "[%lld]", (long long)i);
}

static void fmt_value(char *buf, size_t n, fview v, int64_t i)
{
    if (v.f64)
        snprintf(buf, n, "%.17g (0x%016llx)", fget(v, i), (unsigned long long)fbits(v, i));
    else
        snprintf(buf, n, "%.9g (0x%08llx)", fget(v, i), (unsigned long long)fbits(v, i));
}

/* Steps 1-3 of the contract. Returns PASS when the numeric comparison may go on. */
static gnn_oracle_outcome precheck(gnn_oracle_ctx *ctx, const char *name, fview ref, fview impl,
                                   int64_t count, int64_t cols)
{
    const void *bufs[2] = { ref.p, impl.p };
    const char *side[2] = { "ref", "impl" };
    for (int s = 0; s < 2; s++) {
        const char *gname = gnn_oracle_guarded_name(ctx, bufs[s]);
        char msg[256];
        if (gname && gnn_guard_check(bufs[s], msg, sizeof msg) != GNN_OK)
            return gnn_oracle_fail(ctx, "%s (%s, %s): %s", name, side[s], gname, msg);
    }
    for (int s = 0; s < 2; s++) {
        fview v = s ? impl : ref;
        for (int64_t i = 0; i < count; i++)
            if (isnan(fget(v, i))) {
                char idx[96], val[64];
                fmt_index(idx, sizeof idx, i, cols);
                fmt_value(val, sizeof val, v, i);
                int64_t nans = 0;
                for (int64_t j = i; j < count; j++)
                    nans += isnan(fget(v, j)) != 0;
                return gnn_oracle_fail(ctx, "%s: NaN in the %s output at %s = %s; %lld NaN in all "
                                       "(outputs start as NaN: an element never written?)",
                                       name, side[s], idx, val, (long long)nans);
            }
    }
    for (int64_t i = 0; i < count; i++) {
        double a = fget(ref, i), b = fget(impl, i);
        if ((isinf(a) || isinf(b)) && fbits(ref, i) != fbits(impl, i)) {
            char idx[96], va[64], vb[64];
            fmt_index(idx, sizeof idx, i, cols);
            fmt_value(va, sizeof va, ref, i);
            fmt_value(vb, sizeof vb, impl, i);
            return gnn_oracle_fail(ctx, "%s: Inf mismatch at %s: ref %s impl %s", name, idx, va, vb);
        }
    }
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome compare_float(gnn_oracle_ctx *ctx, const gnn_oracle_tol *tol, const char *name,
                                        fview ref, fview impl, int64_t count, int64_t cols)
{
    if (!tol)
        tol = gnn_oracle_ctx_tol(ctx);
    gnn_oracle_outcome o = precheck(ctx, name, ref, impl, count, cols);
    if (o != GNN_ORACLE_PASS)
        return o;
    char tname[64];
    gnn_oracle_tol_format(tol, tname, sizeof tname);
    if (tol->cmp == GNN_CMP_NMSE) {
        double err = 0, energy = 0;
        for (int64_t i = 0; i < count; i++) {
            double a = fget(ref, i), b = fget(impl, i);
            if (isinf(a))
                continue; /* matched by precheck */
            err += (b - a) * (b - a);
            energy += a * a;
        }
        const double nmse = energy > 0 ? err / energy : (err > 0 ? INFINITY : 0.0);
        if (nmse > tol->a)
            return gnn_oracle_fail(ctx, "%s: nmse %.3g > %g over %lld elements", name, nmse, tol->a, (long long)count);
        gnn_oracle_note(ctx, "%s: nmse %.3g", name, nmse);
        return GNN_ORACLE_PASS;
    }
    /* element-wise comparators */
    int64_t bad = 0, max_ulp = 0, shown = 0;
    double max_abs = 0;
    char lines[SHOW_MISMATCHES][512];
    for (int64_t i = 0; i < count; i++) {
        const double a = fget(ref, i), b = fget(impl, i);
        int ok;
        const int64_t u = isinf(a) ? 0 : fulp(ref, impl, i);
        const double diff = isinf(a) ? 0 : fabs(b - a);
        switch (tol->cmp) {
        case GNN_CMP_ULP: ok = u <= (int64_t)tol->a; break;
        case GNN_CMP_ALLCLOSE: ok = diff <= tol->a + tol->b * fabs(a); break;
        default: ok = fbits(ref, i) == fbits(impl, i); break; /* bitwise (canonical: same on arrays) */
        }
        if (u > max_ulp)
            max_ulp = u;
        if (diff > max_abs)
            max_abs = diff;
        if (!ok) {
            if (shown < SHOW_MISMATCHES) {
                char idx[96], va[64], vb[64];
                fmt_index(idx, sizeof idx, i, cols);
                fmt_value(va, sizeof va, ref, i);
                fmt_value(vb, sizeof vb, impl, i);
                snprintf(lines[shown++], sizeof lines[0], "  %s %s: ref %s impl %s (|diff| %.3g, %lld ulp)", name, idx,
                         va, vb, diff, (long long)u);
            }
            bad++;
        }
    }
    if (bad) {
        if (ref.f64)
            gnn_oracle_fail(ctx, "%s: %lld of %lld elements differ (%s); max |diff| %.3g; first:", name,
                            (long long)bad, (long long)count, tname, max_abs);
        else
            gnn_oracle_fail(ctx, "%s: %lld of %lld elements differ (%s); max |diff| %.3g, max %lld ulp; first:", name,
                            (long long)bad, (long long)count, tname, max_abs, (long long)max_ulp);
        for (int64_t k = 0; k < shown; k++)
            gnn_oracle_note(ctx, "%s", lines[k]);
        return GNN_ORACLE_FAIL;
    }
    if (tol->cmp != GNN_CMP_BITWISE && tol->cmp != GNN_CMP_CANONICAL) {
        if (ref.f64) /* f64 here holds finite differences: ulps of a double mean nothing */
            gnn_oracle_note(ctx, "%s: max |diff| %.3g", name, max_abs);
        else
            gnn_oracle_note(ctx, "%s: max |diff| %.3g, max %lld ulp", name, max_abs, (long long)max_ulp);
    }
    return GNN_ORACLE_PASS;
}

gnn_oracle_outcome gnn_oracle_compare_f32(gnn_oracle_ctx *ctx, const gnn_oracle_tol *tol,
                                          const char *name, const float *ref, const float *impl,
                                          int64_t count, int64_t cols)
{
    return compare_float(ctx, tol, name, (fview){ ref, 0 }, (fview){ impl, 0 }, count, cols);
}

gnn_oracle_outcome gnn_oracle_compare_f64(gnn_oracle_ctx *ctx, const gnn_oracle_tol *tol,
                                          const char *name, const double *ref,
                                          const double *impl, int64_t count, int64_t cols)
{
    return compare_float(ctx, tol, name, (fview){ ref, 1 }, (fview){ impl, 1 }, count, cols);
}

static int64_t iget(const void *p, size_t elem, int64_t i)
{
    return elem == 4 ? (int64_t)((const int32_t *)p)[i] : ((const int64_t *)p)[i];
}

gnn_oracle_outcome gnn_oracle_compare_int(gnn_oracle_ctx *ctx, const char *name, const void *ref,
                                          const void *impl, int64_t count, size_t elem_size)
{
    const void *bufs[2] = { ref, impl };
    const char *side[2] = { "ref", "impl" };
    for (int s = 0; s < 2; s++) {
        const char *gname = gnn_oracle_guarded_name(ctx, bufs[s]);
        char msg[256];
        if (gname && gnn_guard_check(bufs[s], msg, sizeof msg) != GNN_OK)
            return gnn_oracle_fail(ctx, "%s (%s, %s): %s", name, side[s], gname, msg);
    }
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < count; i++)
        if (iget(ref, elem_size, i) != iget(impl, elem_size, i)) {
            if (first < 0)
                first = i;
            bad++;
        }
    if (!bad)
        return GNN_ORACLE_PASS;
    gnn_oracle_fail(ctx, "%s: %lld of %lld elements differ (bitwise); first:", name, (long long)bad, (long long)count);
    int shown = 0;
    for (int64_t i = first; i < count && shown < SHOW_MISMATCHES; i++)
        if (iget(ref, elem_size, i) != iget(impl, elem_size, i)) {
            gnn_oracle_note(ctx, "  %s[%lld]: ref %lld impl %lld", name, (long long)i,
                            (long long)iget(ref, elem_size, i), (long long)iget(impl, elem_size, i));
            shown++;
        }
    return GNN_ORACLE_FAIL;
}

/* ---- blocks and the canonical relabel ------------------------------------------------------ */

typedef struct gid_pos {
    int64_t gid;
    int64_t pos;
} gid_pos;

static int cmp_gid_pos(const void *a, const void *b)
{
    const gid_pos *x = a, *y = b;
    if (x->gid != y->gid)
        return (x->gid > y->gid) - (x->gid < y->gid);
    return (x->pos > y->pos) - (x->pos < y->pos);
}

gnn_status gnn_oracle_block_canonical(const gnn_block *in, gnn_block *out)
{
    gnn_status s = gnn_block_alloc(out, in->n_dst, in->n_src, in->nnz);
    if (s)
        return s;
    const int64_t n_new = in->n_src - in->n_dst;
    gid_pos *order = gnn_malloc((size_t)n_new * sizeof *order);
    int32_t *relabel = gnn_malloc((size_t)in->n_src * sizeof *relabel); /* old local -> new local */
    if (!order || !relabel) {
        gnn_free(order);
        gnn_free(relabel);
        gnn_block_free(out);
        return GNN_ERR_NOMEM;
    }
    for (int64_t i = 0; i < in->n_dst; i++)
        relabel[i] = (int32_t)i; /* dst keep their seed order: that order is an input */
    for (int64_t p = 0; p < n_new; p++)
        order[p] = (gid_pos){ in->src_gid[in->n_dst + p], in->n_dst + p };
    qsort(order, (size_t)n_new, sizeof *order, cmp_gid_pos);
    for (int64_t r = 0; r < n_new; r++)
        relabel[order[r].pos] = (int32_t)(in->n_dst + r);
    out->n_src = in->n_src;
    out->nnz = in->nnz;
    for (int64_t i = 0; i < in->n_src; i++)
        out->src_gid[relabel[i]] = in->src_gid[i];
    memcpy(out->indptr, in->indptr, ((size_t)in->n_dst + 1) * sizeof(int64_t));
    for (int64_t e = 0; e < in->nnz; e++)
        out->indices[e] = relabel[in->indices[e]];
    gnn_free(order);
    gnn_free(relabel);
    return GNN_OK;
}

gnn_oracle_outcome gnn_oracle_compare_block(gnn_oracle_ctx *ctx, gnn_oracle_cmp cmp,
                                            const char *name, const gnn_block *ref,
                                            const gnn_block *impl)
{
    if (ref->n_dst != impl->n_dst || ref->n_src != impl->n_src || ref->nnz != impl->nnz)
        return gnn_oracle_fail(ctx, "%s: sizes differ: ref n_dst=%lld n_src=%lld nnz=%lld, impl n_dst=%lld "
                               "n_src=%lld nnz=%lld", name, (long long)ref->n_dst, (long long)ref->n_src,
                               (long long)ref->nnz, (long long)impl->n_dst, (long long)impl->n_src,
                               (long long)impl->nnz);
    gnn_block a, b;
    const gnn_block *pa = ref, *pb = impl;
    if (cmp == GNN_CMP_CANONICAL) {
        if (gnn_oracle_block_canonical(ref, &a))
            return gnn_oracle_fail(ctx, "%s: canonical relabel of ref failed (out of memory)", name);
        if (gnn_oracle_block_canonical(impl, &b)) {
            gnn_block_free(&a);
            return gnn_oracle_fail(ctx, "%s: canonical relabel of impl failed (out of memory)", name);
        }
        pa = &a;
        pb = &b;
    }
    char n1[96], n2[96], n3[96];
    snprintf(n1, sizeof n1, "%s.indptr", name);
    snprintf(n2, sizeof n2, "%s.src_gid", name);
    snprintf(n3, sizeof n3, "%s.indices", name);
    gnn_oracle_outcome o = gnn_oracle_compare_int(ctx, n1, pa->indptr, pb->indptr, pa->n_dst + 1, 8);
    o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, n2, pa->src_gid, pb->src_gid, pa->n_src, 8));
    o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, n3, pa->indices, pb->indices, pa->nnz, 4));
    if (cmp == GNN_CMP_CANONICAL) {
        gnn_block_free(&a);
        gnn_block_free(&b);
    }
    return o;
}

/* ---- chi-square ---------------------------------------------------------------------------- */

/* P(a, x) by its power series: e^-x x^a / Gamma(a) * sum_n x^n / (a (a+1) ... (a+n)).
 * Converges quickly for x < a + 1. */
static double gamma_p_series(double a, double x)
{
    double term = 1.0 / a, sum = term;
    for (int n = 1; n < 10000; n++) {
        term *= x / (a + n);
        sum += term;
        if (fabs(term) < fabs(sum) * 1e-17)
            break;
    }
    return sum * exp(-x + a * log(x) - lgamma(a));
}

/* Q(a, x) by its continued fraction (Legendre), evaluated with the modified Lentz method:
 * Q = e^-x x^a / Gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...))).
 * Converges quickly for x >= a + 1. */
static double gamma_q_cfrac(double a, double x)
{
    const double tiny = 1e-300;
    double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
    for (int i = 1; i < 10000; i++) {
        const double an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        if (fabs(d) < tiny)
            d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny)
            c = tiny;
        d = 1.0 / d;
        const double delta = d * c;
        h *= delta;
        if (fabs(delta - 1.0) < 1e-16)
            break;
    }
    return exp(-x + a * log(x) - lgamma(a)) * h;
}

double gnn_oracle_gamma_q(double a, double x)
{
    if (!(a > 0) || !(x >= 0))
        return NAN;
    if (x == 0)
        return 1.0;
    if (isinf(x))
        return 0.0;
    return x < a + 1.0 ? 1.0 - gamma_p_series(a, x) : gamma_q_cfrac(a, x);
}

double gnn_oracle_chisq_pvalue(double x2, double dof) { return gnn_oracle_gamma_q(0.5 * dof, 0.5 * x2); }

gnn_oracle_outcome gnn_oracle_chisq_check(gnn_oracle_ctx *ctx, const char *name, double x2,
                                          double dof, double alpha)
{
    if (!(dof > 0) || !isfinite(x2))
        return gnn_oracle_fail(ctx, "%s: chi-square statistic %g with %g degrees of freedom is not testable", name,
                               x2, dof);
    const double p = gnn_oracle_chisq_pvalue(x2, dof);
    if (p < alpha)
        return gnn_oracle_fail(ctx, "%s: chi-square %.4g with %g dof (mean %g): p = %.3g < alpha %g: the draws are "
                               "not uniform", name, x2, dof, dof, p, alpha);
    gnn_oracle_note(ctx, "%s: chi-square %.4g with %g dof, p = %.3g", name, x2, dof, p);
    return GNN_ORACLE_PASS;
}
