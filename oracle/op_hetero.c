/* oracle/op_hetero.c -- the oracle entry of the partition book and the type-wise ids
 * (include/gnnref/hetero.h, docs/hetero.md "Partition books and type-wise ids"):
 *   hetero.ids   the book (starts, type-wise offsets, type counts), the relabel new_of_old and
 *                the three conversions (over every id in order and over random ids with
 *                repeats), ref vs the implementation, bitwise; then a verifier on the
 *                implementation's output, written as a different algorithm from both builders
 *                (a walk over the new ids through the inverse relabel, no counting sort, no
 *                binary search): the relabel is a permutation; walking the new ids, the
 *                (partition, type) cell of the old vertex never decreases and the old ids
 *                increase inside a cell (contiguous cells in (p, t) order, stable); the starts,
 *                offsets and counts are where the walk finds them; to_typed(h) is (type of the
 *                old vertex, how many of its type the walk met before it), so each type's
 *                type-wise ids are a permutation of [0, n_t); part_of(new id) = part[old id];
 *                homo -> typed -> homo is the identity on every id, and typed -> homo -> typed
 *                on every (t, w), w < n_t.
 * Cases: n from 0, 1, odd sizes; P 1 to 8 and T 1 to 6; holes: an empty partition, a type with
 * no vertices, a type absent from one partition, one type holding most vertices. */
#include <stdio.h>
#include <string.h>
#include "gnnref/hetero.h"
#include "gnnref/oracle.h"
#include "gnnref/tensor.h"

enum { P_N, P_P, P_T, P_HOLES, P_TIME, N_PARAMS };
enum {
    HOLE_EMPTY_PART = 1,  /* partition P / 2 gets no vertex */
    HOLE_EMPTY_TYPE = 2,  /* type T / 2 has no vertex */
    HOLE_ABSENT = 4,      /* type T - 1 never lands in partition 0 */
    HOLE_SKEW = 8         /* type 0 takes about 7 of 8 vertices */
};
static const gnn_oracle_param k_params[N_PARAMS] = {
    { "n", GNN_PARAM_INT, 0, 1e7, "homogenized ids" },
    { "P", GNN_PARAM_INT, 1, 4096, "partitions" },
    { "T", GNN_PARAM_INT, 1, 4096, "types" },
    { "holes", GNN_PARAM_INT, 0, 15,
      "bits: 1 an empty partition, 2 a type without vertices, 4 a type absent from partition 0, 8 skewed types" },
    { "time", GNN_PARAM_INT, 0, 2, "benchmark only: 1 times the build, 2 the conversions; the oracle runs all" },
};

static const gnn_oracle_impl k_ref = { .name = "ref", .ops = &gnn_hetero_ref, .flags = 0 };
static const gnn_oracle_impl k_cpu = { .name = "cpu", .ops = &gnn_hetero_cpu, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_impls[] = { &k_ref, &k_cpu, NULL };

static void free_book(void *b) { gnn_hetero_book_free(b); }

/* The inputs: a type per vertex from the allowed types (homogenized by counting: types in
 * increasing order), then a part per vertex from the partitions its type may use. tcount (T,
 * zeroed) and allowed (P) are scratch. One generator for the oracle and the benchmark. */
static void draw_inputs(const gnn_oracle_case *c, int32_t *part, int32_t *type, int64_t *tcount, int32_t *allowed)
{
    const int64_t n = gnn_oracle_int(c, P_N), P = gnn_oracle_int(c, P_P), T = gnn_oracle_int(c, P_T);
    const unsigned holes = (unsigned)gnn_oracle_int(c, P_HOLES);
    const int64_t empty_type = (holes & HOLE_EMPTY_TYPE) && T > 1 ? T / 2 : -1;
    const int64_t empty_part = (holes & HOLE_EMPTY_PART) && P > 1 ? P / 2 : -1;
    const int64_t absent_type = (holes & HOLE_ABSENT) && P > 1 ? T - 1 : -1;
    gnn_oracle_draws d1 = gnn_oracle_draws_make(c, 1), d2 = gnn_oracle_draws_make(c, 2);
    for (int64_t v = 0; v < n; v++) {
        int64_t t;
        if ((holes & HOLE_SKEW) && gnn_oracle_draw_uint(&d1, 8) != 0)
            t = 0;
        else
            t = (int64_t)gnn_oracle_draw_uint(&d1, (uint64_t)T);
        if (t == empty_type)
            t = (t + 1) % T;
        tcount[t]++;
    }
    for (int64_t t = 0, v = 0; t < T; t++)
        for (int64_t i = 0; i < tcount[t]; i++)
            type[v++] = (int32_t)t;
    for (int64_t v = 0; v < n; v++) {
        int64_t na = 0;
        for (int64_t p = 0; p < P; p++)
            if (p != empty_part && !(p == 0 && type[v] == absent_type))
                allowed[na++] = (int32_t)p;
        if (na == 0) /* P = 2 with both holes: partition 1 is empty, so type T - 1 goes there anyway */
            allowed[na++] = (int32_t)(P - 1);
        /* runs of equal parts now and then, so cells hold long stretches of consecutive ids */
        if (v > 0 && type[v] == type[v - 1] && gnn_oracle_draw_uint(&d2, 4) == 0 &&
            !(part[v - 1] == 0 && type[v] == absent_type) && part[v - 1] != empty_part)
            part[v] = part[v - 1];
        else
            part[v] = allowed[gnn_oracle_draw_uint(&d2, (uint64_t)na)];
    }
}

static gnn_oracle_outcome inputs(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int32_t **part_out,
                                 int32_t **type_out)
{
    const int64_t n = gnn_oracle_int(c, P_N), P = gnn_oracle_int(c, P_P), T = gnn_oracle_int(c, P_T);
    int32_t *part = gnn_oracle_alloc(ctx, sizeof(int32_t) * (size_t)(n + 1));
    int32_t *type = gnn_oracle_alloc(ctx, sizeof(int32_t) * (size_t)(n + 1));
    int64_t *tcount = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(T + 1));
    int32_t *allowed = gnn_oracle_alloc(ctx, sizeof(int32_t) * (size_t)(P + 1));
    if (!part || !type || !tcount || !allowed)
        return gnn_oracle_fail(ctx, "out of memory");
    draw_inputs(c, part, type, tcount, allowed);
    *part_out = part;
    *type_out = type;
    return GNN_ORACLE_PASS;
}

/* the conversions of one side, with its own book */
typedef struct conv {
    int32_t *type, *part; /* to_typed, part_of of the ids in order, then of the random queries */
    int64_t *tw;
    int64_t *homo;        /* to_homo of every (t, w) in type order, then of the typed queries */
} conv;

static gnn_oracle_outcome run_side(gnn_oracle_ctx *ctx, const gnn_hetero_ops *ops, const char *side,
                                   const gnn_hetero_book *b, const int64_t *q, int64_t nq, const int32_t *qt,
                                   const int64_t *qw, int64_t nt, conv *out)
{
    char name[64];
    snprintf(name, sizeof name, "%s.type", side);
    out->type = gnn_oracle_alloc_out(ctx, name, sizeof(int32_t) * (size_t)nq);
    snprintf(name, sizeof name, "%s.typewise", side);
    out->tw = gnn_oracle_alloc_out(ctx, name, sizeof(int64_t) * (size_t)nq);
    snprintf(name, sizeof name, "%s.part", side);
    out->part = gnn_oracle_alloc_out(ctx, name, sizeof(int32_t) * (size_t)nq);
    snprintf(name, sizeof name, "%s.homo", side);
    out->homo = gnn_oracle_alloc_out(ctx, name, sizeof(int64_t) * (size_t)nt);
    if (!out->type || !out->tw || !out->part || !out->homo)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_err err = { "" };
    gnn_status s = gnn_hetero_to_typed(ops, b, q, nq, out->type, out->tw, &err);
    if (!s)
        s = gnn_hetero_part_of(ops, b, q, nq, out->part, &err);
    if (!s)
        s = gnn_hetero_to_homo(ops, b, qt, qw, nt, out->homo, &err);
    if (s)
        return gnn_oracle_fail(ctx, "%s conversions: %s (%s)", side, gnn_status_str(s), err.msg);
    return GNN_ORACLE_PASS;
}

/* The verifier (see the file's header): the implementation's book b, relabel n2o and
 * conversions x of the ids 0..n-1 (x->type, x->tw, x->part) and of every (t, w) in type order
 * (x->homo). */
static gnn_oracle_outcome verify(gnn_oracle_ctx *ctx, const gnn_hetero_ops *ops, const int32_t *part,
                                 const int32_t *type, int64_t n, int64_t P, int64_t T, const gnn_hetero_book *b,
                                 const int64_t *n2o, const conv *x)
{
    const int64_t C = P * T;
    int64_t *o2n = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(n + 1));
    int64_t *cnt = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(T + 1));
    int64_t *ws = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(C + 1));
    int64_t *wo = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(C + 1));
    uint8_t *seen = gnn_oracle_alloc(ctx, (size_t)(n + 1));
    if (!o2n || !cnt || !ws || !wo || !seen)
        return gnn_oracle_fail(ctx, "out of memory");
    if (b->P != P || b->T != T || b->n != n)
        return gnn_oracle_fail(ctx, "verify: book P, T, n = %lld, %lld, %lld, want %lld, %lld, %lld", (long long)b->P,
                               (long long)b->T, (long long)b->n, (long long)P, (long long)T, (long long)n);
    /* a permutation */
    for (int64_t v = 0; v < n; v++) {
        if (n2o[v] < 0 || n2o[v] >= n || seen[n2o[v]])
            return gnn_oracle_fail(ctx, "verify: new_of_old[%lld] = %lld: not a permutation of [0, %lld)",
                                   (long long)v, (long long)n2o[v], (long long)n);
        seen[n2o[v]] = 1;
        o2n[n2o[v]] = v;
    }
    /* the walk over the new ids */
    int64_t next = 0, prev_cell = -1, prev_old = -1;
    for (int64_t h = 0; h <= n; h++) {
        const int64_t o = h < n ? o2n[h] : -1, cell = h < n ? (int64_t)part[o] * T + type[o] : C;
        if (cell < prev_cell)
            return gnn_oracle_fail(ctx,
                                   "verify: new id %lld (old %lld) is in cell (%lld, %lld) after cell (%lld, %lld): "
                                   "cells not contiguous or not in (partition, type) order",
                                   (long long)h, (long long)o, (long long)(cell / T), (long long)(cell % T),
                                   (long long)(prev_cell / T), (long long)(prev_cell % T));
        if (h < n && cell == prev_cell && o < prev_old)
            return gnn_oracle_fail(ctx, "verify: new id %lld is old %lld after old %lld in cell (%lld, %lld): not stable",
                                   (long long)h, (long long)o, (long long)prev_old, (long long)(cell / T),
                                   (long long)(cell % T));
        while (next <= cell && next < C) { /* every cell up to this one starts here */
            ws[next] = h;
            wo[next] = cnt[next % T];
            next++;
        }
        if (h == n)
            break;
        const int64_t w = cnt[type[o]]++;
        if (x->type[h] != type[o] || x->tw[h] != w)
            return gnn_oracle_fail(ctx, "verify: to_typed(%lld) = (%d, %lld), want (%d, %lld) (old id %lld)",
                                   (long long)h, (int)x->type[h], (long long)x->tw[h], (int)type[o], (long long)w,
                                   (long long)o);
        if (x->part[h] != part[o])
            return gnn_oracle_fail(ctx, "verify: part_of(%lld) = %d, want part[%lld] = %d", (long long)h,
                                   (int)x->part[h], (long long)o, (int)part[o]);
        prev_cell = cell;
        prev_old = o;
    }
    ws[C] = n;
    for (int64_t c = 0; c <= C; c++)
        if (b->start[c] != ws[c])
            return gnn_oracle_fail(ctx, "verify: start[%lld] (cell (%lld, %lld)) = %lld, want %lld", (long long)c,
                                   (long long)(c / T), (long long)(c % T), (long long)b->start[c], (long long)ws[c]);
    for (int64_t c = 0; c < C; c++)
        if (b->tw_offset[c] != wo[c])
            return gnn_oracle_fail(ctx, "verify: tw_offset[%lld] (cell (%lld, %lld)) = %lld, want %lld", (long long)c,
                                   (long long)(c / T), (long long)(c % T), (long long)b->tw_offset[c], (long long)wo[c]);
    for (int64_t t = 0; t < T; t++)
        if (b->type_count[t] != cnt[t])
            return gnn_oracle_fail(ctx, "verify: type_count[%lld] = %lld, want %lld", (long long)t,
                                   (long long)b->type_count[t], (long long)cnt[t]);
    /* each type's type-wise ids a permutation of [0, n_t): (t, w) -> offset of type t + w */
    memset(seen, 0, (size_t)(n + 1));
    int64_t *tbase = ws; /* reused: the first homogenized position of each type */
    for (int64_t t = 0, run = 0; t < T; t++) {
        tbase[t] = run;
        run += cnt[t];
    }
    for (int64_t h = 0; h < n; h++) {
        const int64_t t = x->type[h], w = x->tw[h];
        if (w < 0 || w >= cnt[t] || seen[tbase[t] + w])
            return gnn_oracle_fail(ctx, "verify: type-wise id %lld of type %lld (new id %lld) repeated or outside [0, %lld)",
                                   (long long)w, (long long)t, (long long)h, (long long)cnt[t]);
        seen[tbase[t] + w] = 1;
    }
    /* typed -> homo -> typed over every (t, w); homo -> typed -> homo over every h */
    for (int64_t t = 0, i = 0; t < T; t++)
        for (int64_t w = 0; w < cnt[t]; w++, i++) {
            const int64_t h = x->homo[i];
            if (h < 0 || h >= n || x->type[h] != t || x->tw[h] != w)
                return gnn_oracle_fail(ctx, "verify: to_homo(%lld, %lld) = %lld, whose to_typed is (%d, %lld)",
                                       (long long)t, (long long)w, (long long)h, h >= 0 && h < n ? (int)x->type[h] : -1,
                                       h >= 0 && h < n ? (long long)x->tw[h] : -1LL);
        }
    if (n > 0) {
        int64_t *back = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)n);
        if (!back)
            return gnn_oracle_fail(ctx, "out of memory");
        gnn_err err = { "" };
        gnn_status s = gnn_hetero_to_homo(ops, b, x->type, x->tw, n, back, &err);
        if (s)
            return gnn_oracle_fail(ctx, "verify: to_homo of the to_typed ids: %s (%s)", gnn_status_str(s), err.msg);
        for (int64_t h = 0; h < n; h++)
            if (back[h] != h)
                return gnn_oracle_fail(ctx, "verify: to_homo(to_typed(%lld)) = to_homo(%d, %lld) = %lld", (long long)h,
                                       (int)x->type[h], (long long)x->tw[h], (long long)back[h]);
    }
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome ids_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int64_t n = gnn_oracle_int(c, P_N), P = gnn_oracle_int(c, P_P), T = gnn_oracle_int(c, P_T);
    int32_t *part = NULL, *type = NULL;
    gnn_oracle_outcome o = inputs(ctx, c, &part, &type);
    if (o != GNN_ORACLE_PASS)
        return o;
    const gnn_hetero_ops *ops[2] = { c->entry->ref->ops, c->impl->ops };
    static const char *const side[2] = { "ref", "impl" };
    gnn_hetero_book *book[2];
    int64_t *n2o[2];
    for (int s = 0; s < 2; s++) {
        book[s] = gnn_oracle_alloc(ctx, sizeof(gnn_hetero_book));
        char name[32];
        snprintf(name, sizeof name, "%s.new_of_old", side[s]);
        n2o[s] = gnn_oracle_alloc_out(ctx, name, sizeof(int64_t) * (size_t)n);
        if (!book[s] || !n2o[s])
            return gnn_oracle_fail(ctx, "out of memory");
        gnn_oracle_defer(ctx, free_book, book[s]);
        gnn_err err = { "" };
        const gnn_status st = gnn_hetero_book_build(ops[s], part, type, n, P, T, book[s], n2o[s], &err);
        if (st)
            return gnn_oracle_fail(ctx, "%s build: %s (%s)", side[s], gnn_status_str(st), err.msg);
    }
    const int64_t C = P * T;
    gnn_oracle_digest(ctx, n2o[1], sizeof(int64_t) * (size_t)n);
    gnn_oracle_digest(ctx, book[1]->start, sizeof(int64_t) * (size_t)(C + 1));
    o = gnn_oracle_compare_int(ctx, "new_of_old", n2o[0], n2o[1], n, 8);
    o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "start", book[0]->start, book[1]->start, C + 1, 8));
    o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "tw_offset", book[0]->tw_offset, book[1]->tw_offset, C, 8));
    o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "type_count", book[0]->type_count, book[1]->type_count, T, 8));
    if (o != GNN_ORACLE_PASS)
        return o;
    /* queries: every id in order, then n random ids (repeats); every (t, w) in type order, then
     * the typed form of the random ids */
    const int64_t nq = 2 * n;
    int64_t *q = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(nq + 1));
    int32_t *qt = gnn_oracle_alloc(ctx, sizeof(int32_t) * (size_t)(nq + 1));
    int64_t *qw = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(nq + 1));
    if (!q || !qt || !qw)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws d3 = gnn_oracle_draws_make(c, 3);
    for (int64_t i = 0; i < n; i++) {
        q[i] = i;
        q[n + i] = (int64_t)gnn_oracle_draw_uint(&d3, (uint64_t)n);
    }
    for (int64_t t = 0, i = 0; t < T; t++)
        for (int64_t w = 0; w < book[0]->type_count[t]; w++, i++) {
            qt[i] = (int32_t)t;
            qw[i] = w;
        }
    {
        gnn_err err = { "" };
        const gnn_status st = gnn_hetero_to_typed(&gnn_hetero_ref, book[0], q + n, n, qt + n, qw + n, &err);
        if (st)
            return gnn_oracle_fail(ctx, "typed queries: %s (%s)", gnn_status_str(st), err.msg);
    }
    conv x[2];
    for (int s = 0; s < 2; s++)
        if ((o = run_side(ctx, ops[s], side[s], book[s], q, nq, qt, qw, nq, &x[s])) != GNN_ORACLE_PASS)
            return o;
    gnn_oracle_digest(ctx, x[1].tw, sizeof(int64_t) * (size_t)nq);
    gnn_oracle_digest(ctx, x[1].homo, sizeof(int64_t) * (size_t)nq);
    o = gnn_oracle_compare_int(ctx, "to_typed.type", x[0].type, x[1].type, nq, 4);
    o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "to_typed.typewise", x[0].tw, x[1].tw, nq, 8));
    o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "part_of", x[0].part, x[1].part, nq, 4));
    o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "to_homo", x[0].homo, x[1].homo, nq, 8));
    if (o != GNN_ORACLE_PASS)
        return o;
    return verify(ctx, ops[1], part, type, n, P, T, book[1], n2o[1], &x[1]);
}

/* n = 0 and 1, odd sizes, P 1..8, T 1..6, every hole alone and together, one larger case */
static const char *const k_presets[] = {
    "n=0,P=1,T=1,holes=0",
    "n=0,P=3,T=2,holes=0",
    "n=1,P=1,T=1,holes=0",
    "n=1,P=4,T=3,holes=7",
    "n=17,P=2,T=3,holes=4",
    "n=37,P=3,T=4,holes=1",
    "n=101,P=5,T=6,holes=2",
    "n=255,P=8,T=5,holes=7",
    "n=999,P=7,T=1,holes=1",
    "n=1001,P=1,T=6,holes=10",
    "n=3333,P=6,T=6,holes=15",
    "n=20001,P=8,T=4,holes=12",
    NULL,
};

/* ---- benchmark hook (bench/bench_registry.c): the oracle's inputs, one operation timed -------
 * time=1: the book and the relabel of the n ids (gnn_hetero_book_build, then freed, as a
 * partitioner builds it once); time=2: the three conversions of n random ids with repeats (the
 * oracle's queries, stream 3) on a book built once: to_typed and part_of of the ids, to_homo of
 * their typed form (what a sampled batch's ids go through). ids/s: the n ids per call. */

typedef struct hetero_fixture {
    const gnn_hetero_ops *ops;
    int what;
    int64_t n, P, T;
    int32_t *part, *type;
    int64_t *n2o;           /* time=1: the relabel written */
    gnn_hetero_book book;   /* time=2: built once, by the implementation */
    int64_t *q, *qw, *tw, *homo;
    int32_t *qt, *qtype, *qpart;
} hetero_fixture;

static void hetero_teardown(void *p)
{
    hetero_fixture *f = p;
    if (!f)
        return;
    gnn_hetero_book_free(&f->book);
    gnn_free(f->part);
    gnn_free(f->type);
    gnn_free(f->n2o);
    gnn_free(f->q);
    gnn_free(f->qw);
    gnn_free(f->tw);
    gnn_free(f->homo);
    gnn_free(f->qt);
    gnn_free(f->qtype);
    gnn_free(f->qpart);
    gnn_free(f);
}

static gnn_status hetero_setup(const gnn_oracle_case *c, void **fixture, gnn_oracle_work *work)
{
    hetero_fixture *f = gnn_calloc(1, sizeof *f);
    if (!f)
        return GNN_ERR_NOMEM;
    f->ops = c->impl->ops;
    f->what = (int)gnn_oracle_int(c, P_TIME);
    const int64_t n = f->n = gnn_oracle_int(c, P_N), P = f->P = gnn_oracle_int(c, P_P), T = f->T = gnn_oracle_int(c, P_T);
    f->part = gnn_malloc(sizeof(int32_t) * (size_t)(n + 1));
    f->type = gnn_malloc(sizeof(int32_t) * (size_t)(n + 1));
    int64_t *tcount = gnn_calloc((size_t)T + 1, sizeof(int64_t));
    int32_t *allowed = gnn_malloc(sizeof(int32_t) * (size_t)(P + 1));
    gnn_status s = !f->part || !f->type || !tcount || !allowed ? GNN_ERR_NOMEM : GNN_OK;
    if (!s)
        draw_inputs(c, f->part, f->type, tcount, allowed);
    gnn_free(tcount);
    gnn_free(allowed);
    if (!s && f->what == 1) {
        if (!(f->n2o = gnn_malloc(sizeof(int64_t) * (size_t)(n + 1))))
            s = GNN_ERR_NOMEM;
        /* part and type read twice (count, then place), the relabel written */
        work->bytes = (double)n * (2.0 * 8.0 + 8.0);
    } else if (!s && f->what == 2) {
        gnn_err err = { "" };
        f->q = gnn_malloc(sizeof(int64_t) * (size_t)(n + 1));
        f->qw = gnn_malloc(sizeof(int64_t) * (size_t)(n + 1));
        f->tw = gnn_malloc(sizeof(int64_t) * (size_t)(n + 1));
        f->homo = gnn_malloc(sizeof(int64_t) * (size_t)(n + 1));
        f->qt = gnn_malloc(sizeof(int32_t) * (size_t)(n + 1));
        f->qtype = gnn_malloc(sizeof(int32_t) * (size_t)(n + 1));
        f->qpart = gnn_malloc(sizeof(int32_t) * (size_t)(n + 1));
        if (!f->q || !f->qw || !f->tw || !f->homo || !f->qt || !f->qtype || !f->qpart)
            s = GNN_ERR_NOMEM;
        else
            s = gnn_hetero_book_build(f->ops, f->part, f->type, n, P, T, &f->book, NULL, &err);
        gnn_oracle_draws d3 = gnn_oracle_draws_make(c, 3); /* the oracle's random queries */
        for (int64_t i = 0; !s && i < n; i++)
            f->q[i] = (int64_t)gnn_oracle_draw_uint(&d3, (uint64_t)n);
        if (!s)
            s = gnn_hetero_to_typed(&gnn_hetero_ref, &f->book, f->q, n, f->qt, f->qw, &err);
        /* to_typed: id read, type and type-wise id written; part_of: id read, part written;
         * to_homo: type and type-wise id read, id written */
        work->bytes = (double)n * ((8.0 + 4.0 + 8.0) + (8.0 + 4.0) + (4.0 + 8.0 + 8.0));
    } else if (!s) {
        s = GNN_ERR_INVAL; /* time=0: nothing to time */
    }
    if (s) {
        hetero_teardown(f);
        return s;
    }
    work->items = (double)n;
    work->items_name = "ids/s";
    *fixture = f;
    return GNN_OK;
}

static gnn_status hetero_bench_run(void *p)
{
    hetero_fixture *f = p;
    gnn_err err = { "" };
    if (f->what == 1) {
        gnn_hetero_book b;
        const gnn_status s = gnn_hetero_book_build(f->ops, f->part, f->type, f->n, f->P, f->T, &b, f->n2o, &err);
        gnn_hetero_book_free(&b);
        return s;
    }
    gnn_status s = gnn_hetero_to_typed(f->ops, &f->book, f->q, f->n, f->qtype, f->tw, &err);
    if (!s)
        s = gnn_hetero_part_of(f->ops, &f->book, f->q, f->n, f->qpart, &err);
    if (!s)
        s = gnn_hetero_to_homo(f->ops, &f->book, f->qt, f->qw, f->n, f->homo, &err);
    return s;
}

/* ogbn-mag's vertices (1,939,743 of 4 types; DistDGLv2's heterogeneous setting) over 8
 * partitions. The oracle runs each size first: about a second per case here. */
static const char *const k_bench_sizes[] = {
    "n=1939743,P=8,T=4,holes=0,time=1",
    "n=1939743,P=8,T=4,holes=0,time=2",
    NULL,
};
static const gnn_oracle_bench k_bench = { k_bench_sizes, hetero_setup, hetero_bench_run, hetero_teardown };

const gnn_oracle_entry gnn_oracle_hetero_ids = {
    .name = "hetero.ids",
    .what = "partition book of a typed graph: reshuffled ids, per-(partition, type) ranges, type-wise ids and the "
            "conversions homo <-> (type, type-wise) and part_of; ref vs impl, then a verifier (permutation, "
            "cells contiguous in (p, t) order, stable, both round trips, part_of = part of the old id)",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "integer ids fixed by their position: any correct build or search gives the same bits",
    .params = k_params, .n_params = N_PARAMS, .presets = k_presets, .defaults = "time=0",
    .ref = &k_ref, .impls = k_impls, .run = ids_run, .bench = &k_bench,
};
