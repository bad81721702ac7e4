/* oracle/op_hec.c -- oracle entries for the Historical Embedding Cache (include/gnnref/hec.h,
 * docs/hec.md), DistGNN-MB section 3.2.
 *
 *   hec.ops     every implementation against gnn_hec_ref, bitwise, over a random sequence of
 *       training steps (each: maybe reset, age, store a received batch, search a batch of
 *       halo ids, load the hits). In EVERY step the whole state (tags, ages, embeddings,
 *       write pointer, counters) is compared after the store and again after search and
 *       load, together with the search results and the loaded rows, so a failure names the
 *       first step, and the operation, where the implementations part.
 *   hec.verify  each implementation alone against a model written from the paper's rules
 *       (DistGNN-MB Algorithm 2 lines 9 and 11, and docs/hec.md section 1), not from the code:
 *       per id, the step of its last reception, that embedding and the number of the
 *       insertion that gave it a line (round-robin OCF: insertion k takes line k mod cs, an id
 *       stays while fewer than cs insertions follow its own). It predicts every line's tag,
 *       age (min(steps since the last reception, ls + 1)) and embedding, the write pointer,
 *       all six counters, every search result and every loaded row. cs, dim, ls and the age
 *       cap come from the case, never from the cache under test, so the bookkeeping that ref
 *       and cpu share (core/dist/hec.c: the age cap, the checks) is checked too; a miss row must
 *       stay untouched.
 *
 * Inputs (streams of the case seed): stream 1 decides the steps (reset or not, batch sizes)
 * and draws the ids: received ids uniform over [base, base + idr) or, with probability dup,
 * a repeat of an earlier id of the same batch; searched ids, with probability hot, one of the
 * last 2 cs ids received (so searches hit even when idr is much larger than cs), else uniform.
 * Stream 2 draws the embeddings (spread values: a wrong row shows in the bits). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/hec.h"
#include "gnnref/oracle.h"
#include "gnnref/tensor.h"

static const gnn_oracle_impl k_hec_ref = { .name = "ref", .ops = &gnn_hec_ref, .flags = 0 };
static const gnn_oracle_impl k_hec_cpu = { .name = "cpu", .ops = &gnn_hec_cpu, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_hec_impls[] = { &k_hec_ref, &k_hec_cpu, NULL };

enum { P_CS, P_DIM, P_LS, P_IDR, P_BASE, P_STEPS, P_M, P_Q, P_DUP, P_HOT, P_RST, P_TIME, N_HEC_PARAMS };
static const gnn_oracle_param k_hec_params[N_HEC_PARAMS] = {
    { "cs", GNN_PARAM_INT, 1, 1e7, "cache lines" },
    { "dim", GNN_PARAM_INT, 1, 4096, "embedding width" },
    { "ls", GNN_PARAM_INT, 0, 2147483647, "lifespan: a line hits while its age <= ls" },
    { "idr", GNN_PARAM_INT, 1, 1e9, "ids are drawn from [base, base + idr)" },
    { "base", GNN_PARAM_INT, 0, 1e15, "smallest id (above 2^32 catches truncation to 32 bits)" },
    { "steps", GNN_PARAM_INT, 1, 100000, "training steps simulated" },
    { "m", GNN_PARAM_RANGE, 0, 1e6, "pairs received per step, uniform in the range" },
    { "q", GNN_PARAM_RANGE, 0, 1e6, "halo ids searched and loaded per step, uniform in the range" },
    { "dup", GNN_PARAM_REAL, 0, 1, "probability that a received pair repeats an earlier id of its batch" },
    { "hot", GNN_PARAM_REAL, 0, 1, "probability that a searched id is one of the last 2 cs ids received" },
    { "rst", GNN_PARAM_REAL, 0, 1, "probability of a reset before a step" },
    { "time", GNN_PARAM_INT, 0, 3, "benchmark only: 1 times search, 2 store, 3 load; the oracle runs all" },
};

/* Awkward cases first: one line; a lifespan of 0 (a line hits only in the step it arrives);
 * more lines than ids (nothing is ever evicted, everything expires); ids above 2^32; batches
 * larger than the cache (a batch evicts its own pairs); heavy repeats; resets; widths 1, 5,
 * 7, 13, 17, 33, 100 (not multiples of the vector width); a lifespan that never expires
 * (ages saturate at INT32_MAX); then sizes where the cpu loops run in parallel (>= 4096 rows
 * or lines) and a batch longer than the cpu's store chunk (4096 pairs). */
static const char *const k_hec_presets[] = {
    "cs=1,dim=1,ls=0,idr=3,base=0,steps=30,m=0..3,q=0..4,dup=0.3,hot=0.5,rst=0,time=0",
    "cs=1,dim=7,ls=2,idr=1,base=5,steps=12,m=0..2,q=0..2,dup=0,hot=0,rst=0,time=0",
    "cs=8,dim=7,ls=2,idr=40,base=0,steps=80,m=0..6,q=0..10,dup=0.2,hot=0.6,rst=0,time=0",
    "cs=64,dim=13,ls=0,idr=30,base=0,steps=40,m=0..20,q=0..30,dup=0.1,hot=0.5,rst=0,time=0",
    "cs=50,dim=33,ls=3,idr=1000,base=8589934592,steps=80,m=0..40,q=0..60,dup=0.1,hot=0.7,rst=0,time=0",
    "cs=16,dim=5,ls=1,idr=200,base=0,steps=40,m=30..60,q=10..40,dup=0.5,hot=0.8,rst=0,time=0",
    "cs=300,dim=100,ls=2,idr=2000,base=3,steps=40,m=0..120,q=0..200,dup=0.05,hot=0.6,rst=0.05,time=0",
    "cs=32,dim=1,ls=2147483647,idr=100,base=0,steps=50,m=0..8,q=0..16,dup=0.1,hot=0.5,rst=0,time=0",
    "cs=4096,dim=17,ls=2,idr=30000,base=4294967296,steps=5,m=1000..5000,q=4096..5000,dup=0.02,hot=0.7,rst=0,"
    "time=0",
    "cs=2048,dim=3,ls=1,idr=12000,base=0,steps=3,m=8200..9000,q=0..100,dup=0.3,hot=0.5,rst=0,time=0",
    /* a reset of a full cache of >= 4096 lines (cpu's parallel reset, otherwise run only at
     * init): rst=1 resets before every step; a batch of more fresh ids than lines fills the
     * cache, so the next step's reset finds every line tagged, and a smaller batch after it
     * leaves lines that the reset alone must have emptied (tag, age and +0 embedding); hot
     * searches ask for ids received before the reset, which must miss. Every seed 1 to 3 has
     * such a full reset followed by a partial batch */
    "cs=4096,dim=5,ls=1,idr=100000,base=0,steps=5,m=2500..5500,q=0..300,dup=0,hot=0.9,rst=1,time=0",
    NULL,
};

/* ---- the step generator (shared by both entries and the benchmark) ------------------------- */

typedef struct hec_gen {
    const gnn_oracle_case *c;
    gnn_oracle_draws g;  /* stream 1: decisions and ids */
    gnn_oracle_draws ge; /* stream 2: embedding values */
    int64_t *hist;       /* (hcap) ring of the last ids received */
    int64_t hcap, hn, hpos;
    /* this step */
    int reset;
    int64_t m, q;
    int64_t *ids;   /* (m_hi) */
    float *emb;     /* (m_hi, dim) */
    int64_t *qids;  /* (q_hi) */
} hec_gen;

static int gen_init(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, hec_gen *G)
{
    memset(G, 0, sizeof *G);
    G->c = c;
    G->g = gnn_oracle_draws_make(c, 1);
    G->ge = gnn_oracle_draws_make(c, 2);
    const int64_t dim = gnn_oracle_int(c, P_DIM), m_hi = gnn_oracle_hi(c, P_M), q_hi = gnn_oracle_hi(c, P_Q);
    G->hcap = 2 * gnn_oracle_int(c, P_CS);
    G->hist = gnn_oracle_alloc(ctx, (size_t)G->hcap * sizeof(int64_t));
    G->ids = gnn_oracle_alloc(ctx, (size_t)m_hi * sizeof(int64_t));
    G->emb = gnn_oracle_alloc(ctx, (size_t)(m_hi * dim) * sizeof(float));
    G->qids = gnn_oracle_alloc(ctx, (size_t)q_hi * sizeof(int64_t));
    return G->hist && G->ids && G->emb && G->qids;
}

static void gen_step(hec_gen *G)
{
    const gnn_oracle_case *c = G->c;
    const int64_t base = gnn_oracle_int(c, P_BASE), idr = gnn_oracle_int(c, P_IDR), dim = gnn_oracle_int(c, P_DIM);
    G->reset = (double)gnn_oracle_draw_float(&G->g) < gnn_oracle_real(c, P_RST);
    G->m = gnn_oracle_draw_range(&G->g, gnn_oracle_lo(c, P_M), gnn_oracle_hi(c, P_M));
    for (int64_t k = 0; k < G->m; k++) {
        if (k > 0 && (double)gnn_oracle_draw_float(&G->g) < gnn_oracle_real(c, P_DUP))
            G->ids[k] = G->ids[gnn_oracle_draw_uint(&G->g, (uint64_t)k)];
        else
            G->ids[k] = base + (int64_t)gnn_oracle_draw_uint(&G->g, (uint64_t)idr);
        G->hist[G->hpos] = G->ids[k];
        G->hpos = (G->hpos + 1) % G->hcap;
        if (G->hn < G->hcap)
            G->hn++;
    }
    gnn_oracle_fill_spread(&G->ge, G->emb, G->m * dim);
    G->q = gnn_oracle_draw_range(&G->g, gnn_oracle_lo(c, P_Q), gnn_oracle_hi(c, P_Q));
    for (int64_t i = 0; i < G->q; i++) {
        if (G->hn > 0 && (double)gnn_oracle_draw_float(&G->g) < gnn_oracle_real(c, P_HOT))
            G->qids[i] = G->hist[gnn_oracle_draw_uint(&G->g, (uint64_t)G->hn)];
        else
            G->qids[i] = base + (int64_t)gnn_oracle_draw_uint(&G->g, (uint64_t)idr);
    }
}

static void hec_free_cb(void *p)
{
    gnn_hec_free(p);
}

/* A cache owned by the case (freed after it). */
static gnn_oracle_outcome case_cache(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, const gnn_hec_ops *ops,
                                     const char *who, gnn_hec **out)
{
    gnn_hec *h = gnn_oracle_alloc(ctx, sizeof *h);
    if (!h)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_err err;
    gnn_status s = gnn_hec_init(h, ops, gnn_oracle_int(c, P_CS), gnn_oracle_int(c, P_DIM),
                                (int32_t)gnn_oracle_int(c, P_LS), &err);
    if (s == GNN_ERR_UNSUPPORTED)
        return gnn_oracle_status(ctx, who, s);
    if (s)
        return gnn_oracle_fail(ctx, "%s: %s", who, err.msg);
    gnn_oracle_defer(ctx, hec_free_cb, h);
    *out = h;
    return GNN_ORACLE_PASS;
}

/* Output rows start as this value (never a spread value, |spread| < 64): a miss row must
 * keep it. */
#define HEC_SENTINEL 12345.0f

/* ---- hec.ops: ref vs impl after every step ------------------------------------------------- */

static gnn_oracle_outcome compare_state(gnn_oracle_ctx *ctx, int64_t step, const char *when, const gnn_hec *R,
                                        const gnn_hec *I)
{
    char name[128];
    gnn_oracle_outcome o = GNN_ORACLE_PASS;
    const int64_t cs = R->cs, dim = R->dim;
    if (R->wp != I->wp) {
        snprintf(name, sizeof name, "step %lld, %s: write pointer", (long long)step, when);
        o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, name, &R->wp, &I->wp, 1, 8));
    }
    if (memcmp(&R->cnt, &I->cnt, sizeof R->cnt) != 0) {
        /* hits, misses, expired, stores, overwrites, evictions */
        snprintf(name, sizeof name, "step %lld, %s: counters {hits,misses,expired,stores,overwrites,evictions}",
                 (long long)step, when);
        o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, name, &R->cnt, &I->cnt, 6, 8));
    }
    if (memcmp(R->tag, I->tag, (size_t)cs * sizeof(int64_t)) != 0) {
        snprintf(name, sizeof name, "step %lld, %s: tag", (long long)step, when);
        o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, name, R->tag, I->tag, cs, 8));
    }
    if (memcmp(R->age, I->age, (size_t)cs * sizeof(int32_t)) != 0) {
        snprintf(name, sizeof name, "step %lld, %s: age", (long long)step, when);
        o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, name, R->age, I->age, cs, 4));
    }
    if (memcmp(R->emb, I->emb, (size_t)(cs * dim) * sizeof(float)) != 0) {
        snprintf(name, sizeof name, "step %lld, %s: emb", (long long)step, when);
        o = gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, NULL, name, R->emb, I->emb, cs * dim, dim));
    }
    return o;
}

static void digest_state(gnn_oracle_ctx *ctx, const gnn_hec *h)
{
    gnn_oracle_digest(ctx, h->tag, (size_t)h->cs * sizeof(int64_t));
    gnn_oracle_digest(ctx, h->age, (size_t)h->cs * sizeof(int32_t));
    gnn_oracle_digest(ctx, h->emb, (size_t)(h->cs * h->dim) * sizeof(float));
    gnn_oracle_digest(ctx, &h->wp, sizeof h->wp);
    gnn_oracle_digest(ctx, &h->cnt, sizeof h->cnt);
}

/* Per-step outputs sit at the END of guarded buffers sized for the largest step, so a write
 * one element past this step's last lands in the trailing guard. */
typedef struct step_out {
    int64_t *lines_buf;
    float *rows_buf;
    int64_t cap;
} step_out;

static int step_out_alloc(gnn_oracle_ctx *ctx, step_out *o, const char *side, int64_t q_hi, int64_t dim)
{
    char n1[32], n2[32];
    snprintf(n1, sizeof n1, "%s.lines", side);
    snprintf(n2, sizeof n2, "%s.rows", side);
    o->cap = q_hi;
    o->lines_buf = gnn_oracle_alloc_out(ctx, n1, (size_t)q_hi * sizeof(int64_t));
    o->rows_buf = gnn_oracle_alloc_out(ctx, n2, (size_t)(q_hi * dim) * sizeof(float));
    return o->lines_buf && o->rows_buf;
}

static gnn_oracle_outcome hec_ops_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int64_t dim = gnn_oracle_int(c, P_DIM), steps = gnn_oracle_int(c, P_STEPS), q_hi = gnn_oracle_hi(c, P_Q);
    hec_gen G;
    step_out so_r, so_i;
    if (!gen_init(ctx, c, &G) || !step_out_alloc(ctx, &so_r, "ref", q_hi, dim) ||
        !step_out_alloc(ctx, &so_i, "impl", q_hi, dim))
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_hec *R = NULL, *I = NULL;
    gnn_oracle_outcome o = case_cache(ctx, c, c->entry->ref->ops, "ref.init", &R);
    if (o != GNN_ORACLE_PASS)
        return o;
    o = case_cache(ctx, c, c->impl->ops, "impl.init", &I);
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_err err;
    for (int64_t step = 0; step < steps; step++) {
        gen_step(&G);
        if (G.reset) {
            gnn_hec_reset(R);
            gnn_hec_reset(I);
        }
        gnn_hec_age(R);
        gnn_hec_age(I);
        if (gnn_hec_store(R, G.ids, G.emb, G.m, &err) || gnn_hec_store(I, G.ids, G.emb, G.m, &err))
            return gnn_oracle_fail(ctx, "step %lld: store: %s", (long long)step, err.msg);
        o = compare_state(ctx, step, "after store", R, I); /* names the field a wrong store broke */
        if (o != GNN_ORACLE_PASS)
            return o;
        int64_t *lr = so_r.lines_buf + (q_hi - G.q), *li = so_i.lines_buf + (q_hi - G.q);
        float *rr = so_r.rows_buf + (q_hi - G.q) * dim, *ri = so_i.rows_buf + (q_hi - G.q) * dim;
        if (gnn_hec_search(R, G.qids, G.q, lr, &err) || gnn_hec_search(I, G.qids, G.q, li, &err))
            return gnn_oracle_fail(ctx, "step %lld: search: %s", (long long)step, err.msg);
        char name[64];
        snprintf(name, sizeof name, "step %lld: search lines", (long long)step);
        o = gnn_oracle_compare_int(ctx, name, lr, li, G.q, 8);
        if (o != GNN_ORACLE_PASS)
            return o;
        for (int64_t k = 0; k < G.q * dim; k++)
            rr[k] = ri[k] = HEC_SENTINEL;
        if (gnn_hec_load(R, lr, G.q, rr, &err) || gnn_hec_load(I, li, G.q, ri, &err))
            return gnn_oracle_fail(ctx, "step %lld: load: %s", (long long)step, err.msg);
        snprintf(name, sizeof name, "step %lld: loaded rows", (long long)step);
        o = gnn_oracle_compare_f32(ctx, NULL, name, rr, ri, G.q * dim, dim);
        if (o != GNN_ORACLE_PASS)
            return o;
        o = compare_state(ctx, step, "after search and load", R, I);
        if (o != GNN_ORACLE_PASS)
            return o;
        gnn_oracle_digest(ctx, li, (size_t)G.q * sizeof(int64_t));
        gnn_oracle_digest(ctx, ri, (size_t)(G.q * dim) * sizeof(float));
    }
    digest_state(ctx, I);
    /* what the sequence exercised (in --json's detail): a preset that never hits, expires or
     * evicts tests less than it claims */
    gnn_oracle_note(ctx, "hits %llu, misses %llu (expired %llu), stores %llu (overwrites %llu, evictions %llu)",
                    (unsigned long long)I->cnt.hits, (unsigned long long)I->cnt.misses,
                    (unsigned long long)I->cnt.expired, (unsigned long long)I->cnt.stores,
                    (unsigned long long)I->cnt.overwrites, (unsigned long long)I->cnt.evictions);
    return GNN_ORACLE_PASS;
}

/* ---- hec.verify: one implementation against a model written from the paper's rules -------------
 *
 * The model is not a cache: it keeps, per id, the step of its last reception, that embedding,
 * and the number of the insertion that gave it its line (insertions are numbered 0, 1, 2, ...
 * since the last reset). From the rules of docs/hec.md section 1 alone:
 *   - OCF is round-robin, so insertion k takes line k mod cs, and an id is in the cache while
 *     fewer than cs insertions followed its own: present(id) = ins(id) >= insertions - cs;
 *   - a store of a present id (whatever its age) is an overwrite: no insertion; otherwise one
 *     insertion, an eviction when insertions >= cs before it;
 *   - ages: aging precedes the store, so a line written at step s has age min(k - s, ls + 1)
 *     at step k; a hit needs the tag present and k - s <= ls; a present tag past that is an
 *     expired miss.
 * Every parameter comes from the case (cs, dim, ls and so age_cap = min(ls + 1, INT32_MAX)),
 * never from the cache under test: a cache whose own bookkeeping is wrong (core/dist/hec.c's
 * age_cap, a counter, the write pointer) cannot agree with itself here. Then the whole
 * state (every line, wp, every counter), every search result and every loaded row must be
 * what the model says. */

typedef struct hec_model {
    int64_t base, idr, dim, cs, ls;
    int32_t age_cap;    /* min(ls + 1, INT32_MAX), from the case */
    int64_t *last_step; /* (idr) step of the last reception of id base + j since the last reset, or -1 */
    int64_t *ins;       /* (idr) number of the insertion that gave id base + j its line, or -1 */
    int64_t *holder;    /* (cs) the id that insertion number k (k mod cs = line) put in each line */
    float *last_emb;    /* (idr, dim) the embedding of the last reception */
    int64_t insertions;
    gnn_hec_counters cnt; /* the counters the cache must show */
} hec_model;

static void model_reset(hec_model *M)
{
    for (int64_t j = 0; j < M->idr; j++)
        M->last_step[j] = M->ins[j] = -1;
    M->insertions = 0;
    memset(&M->cnt, 0, sizeof M->cnt);
}

/* line of id base + j, or -1 when it is not cached (never inserted, or evicted since) */
static int64_t model_line(const hec_model *M, int64_t j)
{
    const int64_t k = M->ins[j];
    return k >= 0 && k >= M->insertions - M->cs ? k % M->cs : -1;
}

/* HECStore of one pair (the batch applies its pairs one after the other) */
static void model_store(hec_model *M, int64_t step, int64_t id, const float *emb)
{
    const int64_t j = id - M->base;
    if (model_line(M, j) >= 0) {
        M->cnt.overwrites++;
    } else {
        if (M->insertions >= M->cs)
            M->cnt.evictions++;
        M->ins[j] = M->insertions;
        M->holder[M->insertions % M->cs] = id;
        M->insertions++;
    }
    M->last_step[j] = step;
    memcpy(M->last_emb + j * M->dim, emb, (size_t)M->dim * sizeof(float));
    M->cnt.stores++;
}

static gnn_oracle_outcome check_counters(gnn_oracle_ctx *ctx, int64_t step, const char *when, const gnn_hec *h,
                                         const hec_model *M)
{
    const gnn_hec_counters *g = &h->cnt, *w = &M->cnt;
    if (memcmp(g, w, sizeof *g) == 0)
        return GNN_ORACLE_PASS;
    return gnn_oracle_fail(ctx,
                           "step %lld, %s: counters hits/misses/expired/stores/overwrites/evictions are "
                           "%llu/%llu/%llu/%llu/%llu/%llu, the paper's rules give %llu/%llu/%llu/%llu/%llu/%llu",
                           (long long)step, when, (unsigned long long)g->hits, (unsigned long long)g->misses,
                           (unsigned long long)g->expired, (unsigned long long)g->stores,
                           (unsigned long long)g->overwrites, (unsigned long long)g->evictions,
                           (unsigned long long)w->hits, (unsigned long long)w->misses,
                           (unsigned long long)w->expired, (unsigned long long)w->stores,
                           (unsigned long long)w->overwrites, (unsigned long long)w->evictions);
}

/* The whole state after the store of step `step`, line by line, against the model. */
static gnn_oracle_outcome verify_state(gnn_oracle_ctx *ctx, int64_t step, const gnn_hec *h, const hec_model *M)
{
    const int64_t cs = M->cs, dim = M->dim;
    if (h->cs != cs || h->dim != dim || h->ls != M->ls || h->age_cap != M->age_cap)
        return gnn_oracle_fail(ctx, "cache fields cs %lld, dim %lld, ls %d, age_cap %d; the case gives %lld, %lld, %lld, "
                               "min(ls + 1, INT32_MAX) = %d",
                               (long long)h->cs, (long long)h->dim, (int)h->ls, (int)h->age_cap, (long long)cs,
                               (long long)dim, (long long)M->ls, (int)M->age_cap);
    const int64_t filled = M->insertions < cs ? M->insertions : cs, wp = M->insertions % cs;
    if (h->wp != wp)
        return gnn_oracle_fail(ctx, "step %lld: write pointer %lld, expected insertions %lld mod cs %lld = %lld",
                               (long long)step, (long long)h->wp, (long long)M->insertions, (long long)cs,
                               (long long)wp);
    gnn_oracle_outcome o = check_counters(ctx, step, "after store", h, M);
    if (o != GNN_ORACLE_PASS)
        return o;
    for (int64_t i = 0; i < cs; i++) {
        const float *row = h->emb + i * dim;
        if (i >= filled) { /* never filled since the last reset: empty, age 0, +0.0f */
            if (h->tag[i] != GNN_HEC_EMPTY)
                return gnn_oracle_fail(ctx, "step %lld: line %lld holds tag %lld, but only lines 0 .. %lld were filled",
                                       (long long)step, (long long)i, (long long)h->tag[i], (long long)filled - 1);
            if (h->age[i] != 0)
                return gnn_oracle_fail(ctx, "step %lld: empty line %lld has age %d (must be 0)", (long long)step,
                                       (long long)i, (int)h->age[i]);
            for (int64_t f = 0; f < dim; f++) {
                uint32_t bits;
                memcpy(&bits, row + f, sizeof bits);
                if (bits != 0) /* +0.0f exactly: -0 and anything else fail */
                    return gnn_oracle_fail(ctx, "step %lld: empty line %lld has emb[%lld] = %g (bits 0x%08x, must be +0)",
                                           (long long)step, (long long)i, (long long)f, (double)row[f], (unsigned)bits);
            }
            continue;
        }
        const int64_t t = M->holder[i], j = t - M->base, since = step - M->last_step[j];
        const int32_t want = since < M->age_cap ? (int32_t)since : M->age_cap;
        if (h->tag[i] != t)
            return gnn_oracle_fail(ctx, "step %lld: line %lld holds tag %lld; oldest-first replacement puts %lld there "
                                   "(insertion %lld)",
                                   (long long)step, (long long)i, (long long)h->tag[i], (long long)t, (long long)M->ins[j]);
        if (h->age[i] != want)
            return gnn_oracle_fail(ctx, "step %lld: line %lld (tag %lld) has age %d; received at step %lld, so "
                                   "expected min(%lld, ls + 1 = %d) = %d",
                                   (long long)step, (long long)i, (long long)t, (int)h->age[i],
                                   (long long)M->last_step[j], (long long)since, (int)M->age_cap, (int)want);
        if (memcmp(row, M->last_emb + j * dim, (size_t)dim * sizeof(float)) != 0)
            return gnn_oracle_fail(ctx, "step %lld: line %lld (tag %lld) does not hold the last embedding received "
                                   "for that id (step %lld)",
                                   (long long)step, (long long)i, (long long)t, (long long)M->last_step[j]);
    }
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome hec_verify_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int64_t dim = gnn_oracle_int(c, P_DIM), steps = gnn_oracle_int(c, P_STEPS), q_hi = gnn_oracle_hi(c, P_Q);
    const int64_t cs = gnn_oracle_int(c, P_CS), ls = gnn_oracle_int(c, P_LS);
    hec_gen G;
    step_out so;
    hec_model M = { .base = gnn_oracle_int(c, P_BASE), .idr = gnn_oracle_int(c, P_IDR), .dim = dim, .cs = cs,
                    .ls = ls, .age_cap = ls < INT32_MAX ? (int32_t)(ls + 1) : INT32_MAX };
    M.last_step = gnn_oracle_alloc(ctx, (size_t)M.idr * sizeof(int64_t));
    M.ins = gnn_oracle_alloc(ctx, (size_t)M.idr * sizeof(int64_t));
    M.holder = gnn_oracle_alloc(ctx, (size_t)cs * sizeof(int64_t));
    M.last_emb = gnn_oracle_alloc(ctx, (size_t)(M.idr * dim) * sizeof(float));
    if (!M.last_step || !M.ins || !M.holder || !M.last_emb || !gen_init(ctx, c, &G) ||
        !step_out_alloc(ctx, &so, "impl", q_hi, dim))
        return gnn_oracle_fail(ctx, "out of memory");
    model_reset(&M);
    gnn_hec *h = NULL;
    gnn_oracle_outcome o = case_cache(ctx, c, c->impl->ops, "impl.init", &h);
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_err err;
    for (int64_t step = 0; step < steps; step++) {
        gen_step(&G);
        if (G.reset) {
            gnn_hec_reset(h);
            model_reset(&M);
        }
        gnn_hec_age(h);
        if (gnn_hec_store(h, G.ids, G.emb, G.m, &err))
            return gnn_oracle_fail(ctx, "step %lld: store: %s", (long long)step, err.msg);
        for (int64_t k = 0; k < G.m; k++)
            model_store(&M, step, G.ids[k], G.emb + k * dim);
        o = verify_state(ctx, step, h, &M);
        if (o != GNN_ORACLE_PASS)
            return o;
        int64_t *lines = so.lines_buf + (q_hi - G.q);
        float *rows = so.rows_buf + (q_hi - G.q) * dim;
        if (gnn_hec_search(h, G.qids, G.q, lines, &err))
            return gnn_oracle_fail(ctx, "step %lld: search: %s", (long long)step, err.msg);
        for (int64_t i = 0; i < G.q; i++) {
            const int64_t j = G.qids[i] - M.base, at = model_line(&M, j);
            const int live = at >= 0 && step - M.last_step[j] <= ls;
            const int64_t want = live ? at : GNN_HEC_MISS;
            if (lines[i] != want)
                return gnn_oracle_fail(ctx, "step %lld: search of id %lld (#%lld) returned %lld; expected %lld (%s)",
                                       (long long)step, (long long)G.qids[i], (long long)i, (long long)lines[i],
                                       (long long)want,
                                       live ? "a live line" : at >= 0 ? "cached, but older than ls: expired" :
                                       "not cached");
            M.cnt.hits += live;
            M.cnt.misses += !live;
            M.cnt.expired += !live && at >= 0;
        }
        o = check_counters(ctx, step, "after search", h, &M);
        if (o != GNN_ORACLE_PASS)
            return o;
        for (int64_t k = 0; k < G.q * dim; k++)
            rows[k] = HEC_SENTINEL;
        if (gnn_hec_load(h, lines, G.q, rows, &err))
            return gnn_oracle_fail(ctx, "step %lld: load: %s", (long long)step, err.msg);
        for (int64_t i = 0; i < G.q; i++) {
            const float *row = rows + i * dim;
            if (lines[i] >= 0) {
                const int64_t j = G.qids[i] - M.base;
                if (memcmp(row, M.last_emb + j * dim, (size_t)dim * sizeof(float)) != 0)
                    return gnn_oracle_fail(ctx, "step %lld: loaded row %lld (id %lld) is not the last embedding "
                                           "received for it (step %lld)",
                                           (long long)step, (long long)i, (long long)G.qids[i],
                                           (long long)M.last_step[j]);
            } else {
                for (int64_t f = 0; f < dim; f++)
                    if (row[f] != HEC_SENTINEL)
                        return gnn_oracle_fail(ctx, "step %lld: row %lld of a miss (id %lld) was written",
                                               (long long)step, (long long)i, (long long)G.qids[i]);
            }
        }
        gnn_oracle_digest(ctx, lines, (size_t)G.q * sizeof(int64_t));
    }
    digest_state(ctx, h);
    return GNN_ORACLE_PASS;
}

/* ---- benchmark hook: one operation at a realistic size --------------------------------------
 * The cache is filled (every line holds a tag) and aged once; the timed call is then, by
 * `time`: 1 a search of q ids (hot% of them cached), 2 a store of m fresh pairs (new ids,
 * so every pair evicts: the cache's steady state), 3 a load of the hits of that search. */

typedef struct hec_fixture {
    gnn_hec h;
    int what;
    int64_t m, q, n_pool, pool_pos;
    int64_t *pool; /* (n_pool) ids cycled through by the store benchmark */
    float *emb;    /* (m, dim) */
    int64_t *qids, *lines;
    float *out;    /* (q, dim) */
} hec_fixture;

static void hec_bench_teardown(void *p)
{
    hec_fixture *f = p;
    if (!f)
        return;
    gnn_hec_free(&f->h);
    gnn_free(f->pool);
    gnn_free(f->emb);
    gnn_free(f->qids);
    gnn_free(f->lines);
    gnn_free(f->out);
    gnn_free(f);
}

static gnn_status hec_bench_setup(const gnn_oracle_case *c, void **fixture, gnn_oracle_work *work)
{
    hec_fixture *f = gnn_calloc(1, sizeof *f);
    if (!f)
        return GNN_ERR_NOMEM;
    const int64_t cs = gnn_oracle_int(c, P_CS), dim = gnn_oracle_int(c, P_DIM);
    f->what = (int)gnn_oracle_int(c, P_TIME);
    f->m = gnn_oracle_hi(c, P_M);
    f->q = gnn_oracle_hi(c, P_Q);
    f->n_pool = 4 * cs;
    gnn_status s = gnn_hec_init(&f->h, c->impl->ops, cs, dim, (int32_t)gnn_oracle_int(c, P_LS), NULL);
    f->pool = gnn_malloc((size_t)f->n_pool * sizeof(int64_t));
    f->emb = gnn_malloc((size_t)((f->m > cs ? f->m : cs) * dim) * sizeof(float));
    f->qids = gnn_malloc((size_t)f->q * sizeof(int64_t));
    f->lines = gnn_malloc((size_t)f->q * sizeof(int64_t));
    f->out = gnn_malloc((size_t)(f->q * dim) * sizeof(float));
    if (s || !f->pool || !f->emb || !f->qids || !f->lines || !f->out) {
        hec_bench_teardown(f);
        return s ? s : GNN_ERR_NOMEM;
    }
    gnn_oracle_draws g = gnn_oracle_draws_make(c, 1), ge = gnn_oracle_draws_make(c, 2);
    const int64_t base = gnn_oracle_int(c, P_BASE), idr = gnn_oracle_int(c, P_IDR);
    for (int64_t k = 0; k < f->n_pool; k++) /* distinct ids, scattered over the id range */
        f->pool[k] = base + (k * 2654435761LL) % (idr > f->n_pool ? idr : f->n_pool);
    gnn_oracle_fill_spread(&ge, f->emb, (f->m > cs ? f->m : cs) * dim);
    /* fill the cache: cs distinct ids, then one aging step */
    for (int64_t k = 0; k < cs && !s; k += f->m)
        s = gnn_hec_store(&f->h, f->pool + k, f->emb, (cs - k < f->m ? cs - k : f->m), NULL);
    f->pool_pos = cs;
    gnn_hec_age(&f->h);
    const double hot = gnn_oracle_real(c, P_HOT);
    for (int64_t i = 0; i < f->q; i++)
        f->qids[i] = (double)gnn_oracle_draw_float(&g) < hot ? f->pool[gnn_oracle_draw_uint(&g, (uint64_t)cs)]
                                                             : f->pool[cs + gnn_oracle_draw_uint(&g, (uint64_t)cs)];
    if (!s)
        s = gnn_hec_search(&f->h, f->qids, f->q, f->lines, NULL);
    if (s) {
        hec_bench_teardown(f);
        return s;
    }
    int64_t hits = 0;
    for (int64_t i = 0; i < f->q; i++)
        hits += f->lines[i] >= 0;
    const double row = (double)dim * 4.0;
    switch (f->what) {
    case 1: /* ids and lines, one tag probe (~16 B) per id */
        work->bytes = (double)f->q * (8.0 + 8.0 + 16.0);
        work->items = (double)f->q;
        work->items_name = "ids/s";
        break;
    case 2: /* rows read and written, ids, tags and ages */
        work->bytes = (double)f->m * (2.0 * row + 8.0 + 8.0 + 4.0);
        work->items = (double)f->m;
        work->items_name = "rows/s";
        break;
    default: /* rows gathered: read and written, lines read */
        work->bytes = (double)hits * 2.0 * row + (double)f->q * 8.0;
        work->items = (double)hits;
        work->items_name = "rows/s";
        break;
    }
    *fixture = f;
    return GNN_OK;
}

static gnn_status hec_bench_run(void *p)
{
    hec_fixture *f = p;
    switch (f->what) {
    case 1:
        return gnn_hec_search(&f->h, f->qids, f->q, f->lines, NULL);
    case 2: {
        /* the next m ids of the pool (wrapping): none of them is cached, each evicts a line */
        if (f->pool_pos + f->m > f->n_pool)
            f->pool_pos = 0;
        gnn_status s = gnn_hec_store(&f->h, f->pool + f->pool_pos, f->emb, f->m, NULL);
        f->pool_pos += f->m;
        return s;
    }
    default:
        return gnn_hec_load(&f->h, f->lines, f->q, f->out, NULL);
    }
}

/* The paper's setting scaled to this machine: cs = 65536 lines per layer, d = 256, batches of
 * 4096 halo ids and 4096 received pairs; 70% of the searched ids cached. The oracle runs each
 * size first (2 steps), so ref's linear scans cost about a second per size. */
static const char *const k_hec_bench_sizes[] = {
    "cs=65536,dim=256,ls=2,idr=1000000,base=0,steps=2,m=4096,q=4096,dup=0,hot=0.7,rst=0,time=1",
    "cs=65536,dim=256,ls=2,idr=1000000,base=0,steps=2,m=4096,q=4096,dup=0,hot=0.7,rst=0,time=2",
    "cs=65536,dim=256,ls=2,idr=1000000,base=0,steps=2,m=4096,q=4096,dup=0,hot=0.7,rst=0,time=3",
    NULL,
};
static const gnn_oracle_bench k_hec_bench = { k_hec_bench_sizes, hec_bench_setup, hec_bench_run,
                                              hec_bench_teardown };

const gnn_oracle_entry gnn_oracle_hec_ops = {
    .name = "hec.ops",
    .what = "HEC age/store/search/load over random step sequences: whole cache state, search results and loaded "
            "rows after every step, against ref",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "hec.h fixes every line choice, age and counter; embeddings are copied, never computed",
    .params = k_hec_params, .n_params = N_HEC_PARAMS, .presets = k_hec_presets,
    .ref = &k_hec_ref, .impls = k_hec_impls, .run = hec_ops_run, .bench = &k_hec_bench,
};

const gnn_oracle_entry gnn_oracle_hec_verify = {
    .name = "hec.verify",
    .what = "HEC properties against a per-id model: unique tags, OCF occupancy and wp, ages = steps since the "
            "last reception, hits live, misses not, loads = last embedding received",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "structure and copies: every property exact",
    .params = k_hec_params, .n_params = N_HEC_PARAMS, .presets = k_hec_presets,
    .ref = &k_hec_ref, .impls = k_hec_impls, .run = hec_verify_run,
};
