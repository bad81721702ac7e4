/* oracle/compare.c -- comparators: guard bytes, NaN/Inf screening, bitwise, ulp, allclose,
 * nmse, canonical block and ID-map relabeling, and the chi-square p-value.
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
#include "core/base/cmp.h"

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

gnn_status gnn_oracle_block_canonical_all(const gnn_block *in, gnn_block *out)
{
    gnn_status s = gnn_block_alloc(out, in->n_dst, in->n_src, in->nnz);
    if (s)
        return s;
    const int64_t n_dst = in->n_dst, n_new = in->n_src - in->n_dst;
    gid_pos *order = gnn_malloc(((size_t)in->n_src + 1) * sizeof *order);
    int32_t *relabel = gnn_malloc(((size_t)in->n_src + 1) * sizeof *relabel); /* old local -> new local */
    if (!order || !relabel) {
        gnn_free(order);
        gnn_free(relabel);
        gnn_block_free(out);
        return GNN_ERR_NOMEM;
    }
    /* dst by ascending gid, then the new src by ascending gid: two independent sorts */
    for (int64_t p = 0; p < in->n_src; p++)
        order[p] = (gid_pos){ in->src_gid[p], p };
    qsort(order, (size_t)n_dst, sizeof *order, cmp_gid_pos);
    qsort(order + n_dst, (size_t)n_new, sizeof *order, cmp_gid_pos);
    for (int64_t r = 0; r < in->n_src; r++) {
        relabel[order[r].pos] = (int32_t)r;
        out->src_gid[r] = order[r].gid;
    }
    /* rows in the new dst order, each row's edges in their own order, indices relabelled */
    out->indptr[0] = 0;
    for (int64_t r = 0; r < n_dst; r++) {
        const int64_t v = order[r].pos, b = in->indptr[v], e = in->indptr[v + 1];
        int64_t w = out->indptr[r];
        for (int64_t j = b; j < e; j++)
            out->indices[w++] = relabel[in->indices[j]];
        out->indptr[r + 1] = w;
    }
    out->n_src = in->n_src;
    out->nnz = in->nnz;
    gnn_free(order);
    gnn_free(relabel);
    return GNN_OK;
}

/* Structure an unordered block must still have before it can be relabelled: offsets that
 * start at 0, never decrease and end at nnz, and every local id in [0, n_src). */
static gnn_oracle_outcome block_sane(gnn_oracle_ctx *ctx, const char *name, const char *side, const gnn_block *b)
{
    if (b->n_dst < 0 || b->n_src < b->n_dst || b->nnz < 0 || b->n_src > INT32_MAX)
        return gnn_oracle_fail(ctx, "%s (%s): n_dst=%lld n_src=%lld nnz=%lld are not the sizes of a block", name,
                               side, (long long)b->n_dst, (long long)b->n_src, (long long)b->nnz);
    if (b->indptr[0] != 0 || b->indptr[b->n_dst] != b->nnz)
        return gnn_oracle_fail(ctx, "%s (%s): indptr runs from %lld to %lld, expected 0 to nnz = %lld", name, side,
                               (long long)b->indptr[0], (long long)b->indptr[b->n_dst], (long long)b->nnz);
    for (int64_t v = 0; v < b->n_dst; v++)
        if (b->indptr[v + 1] < b->indptr[v])
            return gnn_oracle_fail(ctx, "%s (%s): indptr decreases at row %lld", name, side, (long long)v);
    for (int64_t e = 0; e < b->nnz; e++)
        if (b->indices[e] < 0 || b->indices[e] >= b->n_src)
            return gnn_oracle_fail(ctx, "%s (%s): indices[%lld] = %d outside [0, n_src = %lld)", name, side,
                                   (long long)e, b->indices[e], (long long)b->n_src);
    return GNN_ORACLE_PASS;
}

gnn_oracle_outcome gnn_oracle_compare_blocks(gnn_oracle_ctx *ctx, gnn_oracle_cmp cmp, const char *name,
                                             const int64_t *seeds, int64_t n_seeds, const gnn_block *ref,
                                             const gnn_block *impl, int L)
{
    char lname[96];
    /* the impl's chain, in its own order: seeds on top, each dst list the src list above */
    for (int l = L - 1; l >= 0; l--) {
        const int64_t *want = l == L - 1 ? seeds : impl[l + 1].src_gid;
        const int64_t n_want = l == L - 1 ? n_seeds : impl[l + 1].n_src;
        if (impl[l].n_dst != n_want)
            return gnn_oracle_fail(ctx, "%s[%d]: n_dst = %lld, expected %lld (%s)", name, l, (long long)impl[l].n_dst,
                                   (long long)n_want, l == L - 1 ? "the seeds" : "n_src of the block above");
        for (int64_t i = 0; i < n_want; i++)
            if (impl[l].src_gid[i] != want[i])
                return gnn_oracle_fail(ctx, "%s[%d]: dst %lld is vertex %lld, expected %lld (%s, in order)", name, l,
                                       (long long)i, (long long)impl[l].src_gid[i], (long long)want[i],
                                       l == L - 1 ? "the seeds" : "the src of the block above");
    }
    gnn_oracle_outcome o = GNN_ORACLE_PASS;
    for (int l = L - 1; l >= 0 && o != GNN_ORACLE_FAIL; l--) {
        snprintf(lname, sizeof lname, "%s[%d]", name, l);
        if (cmp != GNN_CMP_CANONICAL) {
            o = gnn_oracle_worst(o, gnn_oracle_compare_block(ctx, GNN_CMP_BITWISE, lname, &ref[l], &impl[l]));
            continue;
        }
        if (ref[l].n_dst != impl[l].n_dst || ref[l].n_src != impl[l].n_src || ref[l].nnz != impl[l].nnz)
            return gnn_oracle_compare_block(ctx, GNN_CMP_BITWISE, lname, &ref[l], &impl[l]); /* names the sizes */
        gnn_oracle_outcome so = gnn_oracle_worst(block_sane(ctx, lname, "ref", &ref[l]),
                                                 block_sane(ctx, lname, "impl", &impl[l]));
        if (so != GNN_ORACLE_PASS)
            return so;
        gnn_block a, b;
        if (gnn_oracle_block_canonical_all(&ref[l], &a))
            return gnn_oracle_fail(ctx, "%s: canonical relabel of ref failed (out of memory)", lname);
        if (gnn_oracle_block_canonical_all(&impl[l], &b)) {
            gnn_block_free(&a);
            return gnn_oracle_fail(ctx, "%s: canonical relabel of impl failed (out of memory)", lname);
        }
        o = gnn_oracle_worst(o, gnn_oracle_compare_block(ctx, GNN_CMP_BITWISE, lname, &a, &b));
        gnn_block_free(&a);
        gnn_block_free(&b);
    }
    return o;
}

/* ---- ID maps ------------------------------------------------------------------------------- */

/* Relabel one side to first-appearance order (see gnn_oracle_compare_idmap) after checking
 * that it is a bijection between local ids and global ids. */
static gnn_oracle_outcome idmap_canonical(gnn_oracle_ctx *ctx, const char *name, const char *side, int64_t n_dst,
                                          int64_t nnz, const int32_t *local, const int64_t *src_gid, int64_t n_src,
                                          int32_t *out_local, int64_t *out_src_gid)
{
    int64_t *relabel = gnn_malloc(((size_t)n_src + 1) * sizeof(int64_t));
    int64_t *sorted = gnn_malloc(((size_t)n_src + 1) * sizeof(int64_t));
    gnn_oracle_outcome o = GNN_ORACLE_PASS;
    if (!relabel || !sorted) {
        o = gnn_oracle_fail(ctx, "%s: out of memory", name);
        goto out;
    }
    for (int64_t i = 0; i < n_src; i++)
        relabel[i] = i < n_dst ? i : -1;
    int64_t next = n_dst;
    for (int64_t e = 0; e < nnz; e++) {
        const int64_t u = local[e];
        if (u < 0 || u >= n_src) {
            o = gnn_oracle_fail(ctx, "%s (%s): local[%lld] = %lld outside [0, n_src = %lld): not a map", name, side,
                                (long long)e, (long long)u, (long long)n_src);
            goto out;
        }
        if (relabel[u] < 0)
            relabel[u] = next++;
        out_local[e] = (int32_t)relabel[u];
    }
    if (next != n_src) {
        int64_t unused = -1;
        for (int64_t i = n_dst; i < n_src && unused < 0; i++)
            if (relabel[i] < 0)
                unused = i;
        o = gnn_oracle_fail(ctx, "%s (%s): %lld of the %lld new local ids are never used (first: %lld): not a "
                            "bijection", name, side, (long long)(n_src - next), (long long)(n_src - n_dst),
                            (long long)unused);
        goto out;
    }
    for (int64_t i = 0; i < n_src; i++)
        out_src_gid[relabel[i]] = src_gid[i];
    memcpy(sorted, src_gid, (size_t)n_src * sizeof(int64_t));
    qsort(sorted, (size_t)n_src, sizeof(int64_t), gnn_cmp_i64);
    for (int64_t i = 1; i < n_src; i++)
        if (sorted[i] == sorted[i - 1]) {
            o = gnn_oracle_fail(ctx, "%s (%s): global id %lld has two local ids: not a bijection", name, side,
                                (long long)sorted[i]);
            goto out;
        }
out:
    gnn_free(relabel);
    gnn_free(sorted);
    return o;
}

gnn_oracle_outcome gnn_oracle_compare_idmap(gnn_oracle_ctx *ctx, gnn_oracle_cmp cmp, const char *name,
                                            int64_t n_dst, int64_t nnz, const int32_t *ref_local,
                                            const int64_t *ref_src_gid, int64_t ref_n_src,
                                            const int32_t *impl_local, const int64_t *impl_src_gid,
                                            int64_t impl_n_src)
{
    char n1[96], n2[96];
    snprintf(n1, sizeof n1, "%s.local", name);
    snprintf(n2, sizeof n2, "%s.src_gid", name);
    if (ref_n_src != impl_n_src)
        return gnn_oracle_fail(ctx, "%s: n_src differs: ref %lld, impl %lld", name, (long long)ref_n_src,
                               (long long)impl_n_src);
    if (impl_n_src < n_dst || impl_n_src > n_dst + nnz)
        return gnn_oracle_fail(ctx, "%s: n_src = %lld outside [n_dst, n_dst + nnz] = [%lld, %lld]", name,
                               (long long)impl_n_src, (long long)n_dst, (long long)(n_dst + nnz));
    if (cmp != GNN_CMP_CANONICAL) {
        gnn_oracle_outcome o = gnn_oracle_compare_int(ctx, n1, ref_local, impl_local, nnz, 4);
        return gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, n2, ref_src_gid, impl_src_gid, ref_n_src, 8));
    }
    /* guards first (the relabelled copies below have none) */
    gnn_oracle_outcome o = gnn_oracle_compare_int(ctx, n1, ref_local, ref_local, 0, 4);
    o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, n1, impl_local, impl_local, 0, 4));
    o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, n2, ref_src_gid, impl_src_gid, 0, 8));
    if (o != GNN_ORACLE_PASS)
        return o;
    const size_t lb = ((size_t)nnz + 1) * sizeof(int32_t), gb = ((size_t)ref_n_src + 1) * sizeof(int64_t);
    int32_t *rl = gnn_malloc(lb), *il = gnn_malloc(lb);
    int64_t *rg = gnn_malloc(gb), *ig = gnn_malloc(gb);
    if (!rl || !il || !rg || !ig) {
        o = gnn_oracle_fail(ctx, "%s: out of memory", name);
        goto out;
    }
    o = idmap_canonical(ctx, name, "ref", n_dst, nnz, ref_local, ref_src_gid, ref_n_src, rl, rg);
    if (o == GNN_ORACLE_PASS)
        o = idmap_canonical(ctx, name, "impl", n_dst, nnz, impl_local, impl_src_gid, impl_n_src, il, ig);
    if (o == GNN_ORACLE_PASS) {
        o = gnn_oracle_compare_int(ctx, n1, rl, il, nnz, 4);
        o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, n2, rg, ig, ref_n_src, 8));
    }
out:
    gnn_free(rl);
    gnn_free(il);
    gnn_free(rg);
    gnn_free(ig);
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
                               "not distributed as expected", name, x2, dof, dof, p, alpha);
    gnn_oracle_note(ctx, "%s: chi-square %.4g with %g dof, p = %.3g", name, x2, dof, p);
    return GNN_ORACLE_PASS;
}
