/* oracle/harness.c -- running oracle cases: the per-case context, outcomes, iteration.
 *
 * A case runs in a fresh context (gnn_oracle_ctx) that owns every buffer the entry allocates,
 * so an entry's run function can return from anywhere without leaking. After run returns,
 * the harness sweeps the guard bytes of every output buffer: an out-of-bounds write turns
 * any outcome into FAIL, even when the entry compared nothing in that buffer. */
#include <fnmatch.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef GNN_HAVE_OPENMP
#include <omp.h>
#endif
#include "gnnref/crc32c.h"
#include "gnnref/oracle.h"
#include "gnnref/tensor.h"
#include "opt/cpu/omp_stress.h"
#include "core/base/clock.h"

/* 4 oversubscribes a two-core machine on purpose: more threads than cores changes which
 * thread runs what and when, which is exactly what a thread-count-independent result must
 * survive (DESIGN.md section 2). */
const int gnn_oracle_thread_counts[] = { 1, 2, 4 };
const int gnn_oracle_n_thread_counts = 3;

typedef struct ctx_alloc {
    void *p;
    int guarded;
    char name[40];
} ctx_alloc;

typedef struct ctx_defer {
    void (*fn)(void *);
    void *p;
} ctx_defer;

struct gnn_oracle_ctx {
    const gnn_oracle_case *c;
    gnn_oracle_result *res;
    size_t detail_len;
    ctx_alloc *allocs; /* (n_allocs) */
    int n_allocs, cap_allocs;
    ctx_defer defers[32];
    int n_defers;
    uint32_t digest;
};

static const char *const k_outcome_str[GNN_ORACLE_OUTCOME_COUNT] = {
    [GNN_ORACLE_PASS] = "PASS",
    [GNN_ORACLE_FAIL] = "FAIL",
    [GNN_ORACLE_SKIP] = "SKIP",
    [GNN_ORACLE_UNSUPPORTED] = "UNSUPPORTED",
};

const char *gnn_oracle_outcome_str(gnn_oracle_outcome o)
{
    return (unsigned)o < GNN_ORACLE_OUTCOME_COUNT ? k_outcome_str[o] : "?";
}

gnn_oracle_outcome gnn_oracle_worst(gnn_oracle_outcome a, gnn_oracle_outcome b)
{
    static const int rank[GNN_ORACLE_OUTCOME_COUNT] = {
        [GNN_ORACLE_PASS] = 0, [GNN_ORACLE_SKIP] = 1, [GNN_ORACLE_UNSUPPORTED] = 2, [GNN_ORACLE_FAIL] = 3
    };
    return rank[a] >= rank[b] ? a : b;
}

int gnn_oracle_tol_format(const gnn_oracle_tol *t, char *buf, size_t n)
{
    switch (t->cmp) {
    case GNN_CMP_BITWISE: return snprintf(buf, n, "bitwise");
    case GNN_CMP_ULP: return snprintf(buf, n, "ulp(%g)", t->a);
    case GNN_CMP_ALLCLOSE: return snprintf(buf, n, "allclose(%g, %g)", t->a, t->b);
    case GNN_CMP_NMSE: return snprintf(buf, n, "nmse(%g)", t->a);
    case GNN_CMP_CANONICAL: return snprintf(buf, n, "canonical");
    case GNN_CMP_VERIFY:
        if (t->a > 0 && t->b > 0)
            return snprintf(buf, n, "verify(%g, %g)", t->a, t->b);
        if (t->a > 0)
            return snprintf(buf, n, "verify(%g)", t->a);
        return snprintf(buf, n, "verify");
    case GNN_CMP_CHISQ: return snprintf(buf, n, "chisq(%g)", t->a);
    }
    return snprintf(buf, n, "?");
}

/* ---- threads ---------------------------------------------------------------------------- */

int gnn_oracle_have_openmp(void)
{
#ifdef GNN_HAVE_OPENMP
    return 1;
#else
    return 0;
#endif
}

int gnn_oracle_set_threads(int n)
{
#ifdef GNN_HAVE_OPENMP
    int prev = omp_get_max_threads();
    if (n > 0)
        omp_set_num_threads(n);
    return prev;
#else
    (void)n;
    return 1;
#endif
}

/* ---- the registry ------------------------------------------------------------------------ */

const gnn_oracle_entry *gnn_oracle_find(const char *name)
{
    for (const gnn_oracle_entry *const *e = gnn_oracle_registry; *e; e++)
        if (!strcmp((*e)->name, name))
            return *e;
    return NULL;
}

const gnn_oracle_impl *gnn_oracle_find_impl(const gnn_oracle_entry *e, const char *name)
{
    for (const gnn_oracle_impl *const *i = e->impls; *i; i++)
        if (!strcmp((*i)->name, name))
            return *i;
    if (e->ref && !strcmp(e->ref->name, name))
        return e->ref;
    return NULL;
}

const gnn_oracle_tol *gnn_oracle_tol_of(const gnn_oracle_entry *e, const gnn_oracle_impl *impl)
{
    for (const gnn_oracle_impl_tol *t = e->impl_tols; impl && t && t->impl; t++)
        if (t->impl == impl)
            return &t->tol;
    return &e->tol;
}

const char *gnn_oracle_reason_of(const gnn_oracle_entry *e, const gnn_oracle_impl *impl)
{
    for (const gnn_oracle_impl_tol *t = e->impl_tols; impl && t && t->impl; t++)
        if (t->impl == impl)
            return t->reason;
    return e->reason;
}

int gnn_oracle_n_presets(const gnn_oracle_entry *e)
{
    int n = 0;
    while (e->presets && e->presets[n])
        n++;
    return n;
}

int gnn_oracle_name_matches(const char *pattern, const char *op)
{
    if (!strcmp(pattern, op))
        return 1;
    size_t n = strlen(pattern);
    if (n > 0 && !strncmp(pattern, op, n) && op[n] == '.')
        return 1;
    return fnmatch(pattern, op, 0) == 0;
}

/* ---- the context ------------------------------------------------------------------------- */

static void *ctx_track(gnn_oracle_ctx *ctx, void *p, int guarded, const char *name)
{
    if (!p)
        return NULL;
    if (ctx->n_allocs == ctx->cap_allocs) {
        int cap = ctx->cap_allocs ? 2 * ctx->cap_allocs : 16;
        ctx_alloc *a = realloc(ctx->allocs, (size_t)cap * sizeof *a);
        if (!a) {
            guarded ? gnn_guard_free(p) : gnn_free(p);
            return NULL;
        }
        ctx->allocs = a;
        ctx->cap_allocs = cap;
    }
    ctx_alloc *a = &ctx->allocs[ctx->n_allocs++];
    a->p = p;
    a->guarded = guarded;
    snprintf(a->name, sizeof a->name, "%s", name ? name : "");
    return p;
}

void *gnn_oracle_alloc(gnn_oracle_ctx *ctx, size_t bytes)
{
    return ctx_track(ctx, gnn_calloc(bytes, 1), 0, NULL);
}

void *gnn_oracle_alloc_out(gnn_oracle_ctx *ctx, const char *name, size_t bytes)
{
    return ctx_track(ctx, gnn_guard_alloc(bytes, 0xFF), 1, name);
}

const char *gnn_oracle_guarded_name(const gnn_oracle_ctx *ctx, const void *p)
{
    for (int i = 0; i < ctx->n_allocs; i++)
        if (ctx->allocs[i].guarded && ctx->allocs[i].p == p)
            return ctx->allocs[i].name;
    return NULL;
}

void gnn_oracle_defer(gnn_oracle_ctx *ctx, void (*fn)(void *), void *p)
{
    if (ctx->n_defers < (int)(sizeof ctx->defers / sizeof ctx->defers[0])) {
        ctx->defers[ctx->n_defers].fn = fn;
        ctx->defers[ctx->n_defers].p = p;
        ctx->n_defers++;
    } else {
        fn(p); /* cannot happen with the entries in this tree; never leak silently */
    }
}

static void ctx_vappend(gnn_oracle_ctx *ctx, const char *fmt, va_list ap)
{
    char *d = ctx->res->detail;
    const size_t cap = sizeof ctx->res->detail;
    if (ctx->detail_len + 2 >= cap)
        return;
    if (ctx->detail_len > 0)
        d[ctx->detail_len++] = '\n';
    int w = vsnprintf(d + ctx->detail_len, cap - ctx->detail_len, fmt, ap);
    if (w > 0)
        ctx->detail_len += (size_t)w < cap - ctx->detail_len ? (size_t)w : cap - ctx->detail_len - 1;
}

gnn_oracle_outcome gnn_oracle_fail(gnn_oracle_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ctx_vappend(ctx, fmt, ap);
    va_end(ap);
    return GNN_ORACLE_FAIL;
}

gnn_oracle_outcome gnn_oracle_skip(gnn_oracle_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ctx_vappend(ctx, fmt, ap);
    va_end(ap);
    return GNN_ORACLE_SKIP;
}

void gnn_oracle_note(gnn_oracle_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ctx_vappend(ctx, fmt, ap);
    va_end(ap);
}

gnn_oracle_outcome gnn_oracle_status(gnn_oracle_ctx *ctx, const char *who, gnn_status s)
{
    if (s == GNN_OK)
        return GNN_ORACLE_PASS;
    if (s == GNN_ERR_UNSUPPORTED) {
        gnn_oracle_note(ctx, "%s: %s", who, gnn_status_str(s));
        return GNN_ORACLE_UNSUPPORTED;
    }
    return gnn_oracle_fail(ctx, "%s returned %s", who, gnn_status_str(s));
}

void gnn_oracle_digest(gnn_oracle_ctx *ctx, const void *p, size_t bytes)
{
    ctx->digest = gnn_crc32c(ctx->digest, p, bytes);
}

const gnn_oracle_tol *gnn_oracle_ctx_tol(const gnn_oracle_ctx *ctx)
{
    return gnn_oracle_tol_of(ctx->c->entry, ctx->c->impl);
}

/* ---- running ----------------------------------------------------------------------------- */

gnn_oracle_outcome gnn_oracle_run(const gnn_oracle_case *c, gnn_oracle_result *r)
{
    memset(r, 0, sizeof *r);
    gnn_oracle_case_format(c, r->case_str, sizeof r->case_str);
    gnn_oracle_ctx ctx = { .c = c, .res = r };
    const double t0 = gnn_now_s();
    gnn_oracle_outcome o;
    if (c->threads > 1 && !gnn_oracle_have_openmp()) {
        o = gnn_oracle_skip(&ctx, "no OpenMP in this build (threads=%d)", c->threads);
    } else {
        const int prev = c->threads > 0 ? gnn_oracle_set_threads(c->threads) : 0;
        o = c->entry->run(&ctx, c);
        if (c->threads > 0)
            gnn_oracle_set_threads(prev);
    }
    /* sweep: every output buffer's guards, whatever the entry compared */
    for (int i = 0; i < ctx.n_allocs; i++) {
        if (!ctx.allocs[i].guarded)
            continue;
        char msg[256];
        if (gnn_guard_check(ctx.allocs[i].p, msg, sizeof msg) != GNN_OK)
            o = gnn_oracle_worst(o, gnn_oracle_fail(&ctx, "%s: %s", ctx.allocs[i].name, msg));
    }
    for (int i = ctx.n_defers - 1; i >= 0; i--)
        ctx.defers[i].fn(ctx.defers[i].p);
    for (int i = 0; i < ctx.n_allocs; i++)
        ctx.allocs[i].guarded ? gnn_guard_free(ctx.allocs[i].p) : gnn_free(ctx.allocs[i].p);
    free(ctx.allocs);
    r->outcome = o;
    r->digest = ctx.digest;
    r->seconds = gnn_now_s() - t0;
    return o;
}

/* ---- stress (oracle.h, "stress: races") -------------------------------------------------- */

const int gnn_oracle_stress_thread_counts[] = { 2, 4, 8 };
const int gnn_oracle_n_stress_thread_counts = 3;

void gnn_oracle_stress_init(gnn_oracle_stress *s, int runs)
{
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    s->runs = runs;
    s->noise = cpus > 0 ? (int)(cpus < 64 ? cpus : 64) : 2;
    s->seed = 1;
}

/* splitmix64: the perturbations need variety, not the Philox streams' keyed addressing */
static uint64_t mix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#define STRESS_MAX_NOISE 64
#define NOISE_BUF 16384 /* bytes each noise thread writes over: evicts the case's cache lines */

/* One run's perturbation. */
typedef struct stress_plan {
    int noise;      /* noise threads */
    int omp_chunk;  /* of the kernels' dynamic loops (opt/cpu/omp_stress.h): 1..64, or 0: their own */
    int run;        /* the run's index: keys the pauses at the kernels' stress points */
    uint64_t seed;  /* of the noise threads' bursts and of those pauses */
} stress_plan;

/* Run k's plan: noise threads s->noise - k mod (s->noise + 1), so that consecutive runs go from
 * every core contended down to none (the case's threads racing on idle cores); the kernels'
 * dynamic chunk, the bursts and the pauses drawn from (s->seed, the case string's CRC, k). */
static void stress_plan_make(stress_plan *p, const gnn_oracle_stress *s, uint32_t case_crc, int k)
{
    const int noise = s->noise < 0 ? 0 : s->noise > STRESS_MAX_NOISE ? STRESS_MAX_NOISE : s->noise;
    uint64_t st = s->seed ^ ((uint64_t)case_crc << 32) ^ (uint64_t)k * 0xD1B54A32D192ED03ull;
    p->noise = noise - k % (noise + 1);
    const uint64_t r = mix64(&st);
    p->omp_chunk = k % 2 ? 1 + (int)((r >> 8) % 64) : 0; /* even runs (run 1 too) keep the loops' own */
    p->run = k;
    p->seed = mix64(&st);
}

typedef struct noise_thread {
    const int *stop;
    uint64_t seed;
    pthread_t tid;
} noise_thread;

/* A noise thread: bursts of 1 to 128 us of busy work over its own buffer, each followed by a
 * yield, a sleep of 1 to 128 us (its wake-up preempts whatever runs on that core), or
 * nothing, until told to stop. */
static void *noise_main(void *arg)
{
    noise_thread *t = arg;
    uint64_t st = t->seed;
    unsigned char *buf = malloc(NOISE_BUF);
    while (!__atomic_load_n(t->stop, __ATOMIC_ACQUIRE)) {
        const uint64_t r = mix64(&st);
        const double until = gnn_now_s() + (double)(1u << (r & 7)) * 1e-6;
        size_t i = (size_t)(r >> 8) % NOISE_BUF;
        do {
            if (buf) {
                buf[i]++;
                i = (i + 64) % NOISE_BUF;
            }
        } while (gnn_now_s() < until);
        switch ((r >> 32) % 3) {
        case 0: sched_yield(); break;
        case 1: {
            const struct timespec ts = { 0, 1000L << ((r >> 40) & 7) };
            nanosleep(&ts, NULL);
            break;
        }
        default: break;
        }
    }
    free(buf);
    return NULL;
}

/* One run of c under plan p: noise up, the kernels' stress mode on (opt/cpu/omp_stress.h), the
 * case, stress mode off, noise joined. */
static void stress_run(const gnn_oracle_case *c, const stress_plan *p, gnn_oracle_result *r)
{
    noise_thread th[STRESS_MAX_NOISE];
    int stop = 0, started = 0;
    uint64_t st = p->seed;
    for (int i = 0; i < p->noise; i++) {
        th[started].stop = &stop;
        th[started].seed = mix64(&st);
        if (pthread_create(&th[started].tid, NULL, noise_main, &th[started]) == 0)
            started++; /* a thread that cannot start makes the run quieter, not wrong */
    }
    gnn_omp_stress_set(1, p->omp_chunk, p->seed, (uint32_t)p->run);
    gnn_oracle_run(c, r);
    gnn_omp_stress_set(0, 0, 0, 0);
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < started; i++)
        pthread_join(th[i].tid, NULL);
}

/* Put a line before r's detail (the rest is cut where it no longer fits). */
static void detail_prepend(gnn_oracle_result *r, const char *line)
{
    const size_t cap = sizeof r->detail, n = strlen(line);
    if (n + 2 >= cap)
        return;
    size_t keep = strlen(r->detail);
    if (keep > cap - n - 2)
        keep = cap - n - 2;
    memmove(r->detail + n + (keep ? 1 : 0), r->detail, keep);
    memcpy(r->detail, line, n);
    if (keep)
        r->detail[n] = '\n';
    r->detail[n + (keep ? 1 : 0) + keep] = '\0';
}

gnn_oracle_outcome gnn_oracle_run_stress(const gnn_oracle_case *c, const gnn_oracle_stress *s, gnn_oracle_result *r)
{
    if (!s || s->runs <= 0)
        return gnn_oracle_run(c, r);
    char cs[sizeof r->case_str];
    gnn_oracle_case_format(c, cs, sizeof cs);
    const uint32_t crc = gnn_crc32c(0, cs, strlen(cs));
    /* bitwise, canonical and verify results are exact: every run must give the first's bits.
     * A tolerance is judged against ref alone (a reduction may regroup from run to run). */
    const gnn_oracle_cmp cmp = gnn_oracle_tol_of(c->entry, c->impl)->cmp;
    const int exact = cmp == GNN_CMP_BITWISE || cmp == GNN_CMP_CANONICAL || cmp == GNN_CMP_VERIFY;
    gnn_oracle_result later; /* runs 2.. (run 1 goes to r) */
    double seconds = 0;
    for (int k = 0; k < s->runs; k++) {
        stress_plan p;
        stress_plan_make(&p, s, crc, k);
        gnn_oracle_result *rk = k == 0 ? r : &later;
        stress_run(c, &p, rk);
        seconds += rk->seconds;
        if (k == 0 && (r->outcome == GNN_ORACLE_SKIP || r->outcome == GNN_ORACLE_UNSUPPORTED))
            break;
        char why[160] = "";
        if (rk->outcome == GNN_ORACLE_FAIL)
            snprintf(why, sizeof why, "failed");
        else if (rk->outcome != r->outcome)
            snprintf(why, sizeof why, "%s where run 1 gave %s", gnn_oracle_outcome_str(rk->outcome),
                     gnn_oracle_outcome_str(r->outcome));
        else if (exact && rk->digest != r->digest)
            snprintf(why, sizeof why, "output digest %08x where run 1 gave %08x: the result depends on scheduling",
                     (unsigned)rk->digest, (unsigned)r->digest);
        if (!why[0])
            continue;
        char line[400];
        snprintf(line, sizeof line, "stress run %d of %d %s (noise threads %d, kernels' dynamic chunk %d)",
                 k + 1, s->runs, why, p.noise, p.omp_chunk);
        if (rk != r)
            *r = *rk;
        r->outcome = GNN_ORACLE_FAIL;
        detail_prepend(r, line);
        break;
    }
    r->seconds = seconds;
    return r->outcome;
}

/* The same-bits check of a threaded implementation (GNN_ORACLE_THREADED without
 * GNN_ORACLE_THREAD_DEPENDENT): a case's digest at the first thread count run is recorded,
 * and the same case (preset and seed) at every later count must reproduce it. This holds even
 * where the comparison with ref is a tolerance (a GEMM in another order may differ from ref,
 * but not from itself), and it catches a reduction that regroups with the thread count,
 * which a tolerance alone lets through. */
typedef struct same_bits {
    uint32_t digest;
    int have;        /* the first count's case passed: its digest is the reference */
    int first_threads;
} same_bits;

static void same_bits_check(const gnn_oracle_case *c, gnn_oracle_result *r, same_bits *sb)
{
    if (!sb || r->outcome != GNN_ORACLE_PASS)
        return;
    if (!sb->have) {
        sb->digest = r->digest;
        sb->have = 1;
        sb->first_threads = c->threads;
        return;
    }
    if (r->digest == sb->digest)
        return;
    r->outcome = GNN_ORACLE_FAIL;
    const size_t len = strlen(r->detail);
    gnn_oracle_case first = *c;
    first.threads = sb->first_threads;
    char first_str[512];
    gnn_oracle_case_format(&first, first_str, sizeof first_str);
    snprintf(r->detail + len, sizeof r->detail - len,
             "%sthread-count dependence: output digest %08x at threads=%d but %08x at threads=%d; %s is not "
             "registered GNN_ORACLE_THREAD_DEPENDENT, so every thread count must give the same bits; compare the "
             "digests of --case '%s' and --case '%s' (--json)",
             len ? "\n" : "", (unsigned)r->digest, c->threads, (unsigned)sb->digest, sb->first_threads, c->impl->name,
             r->case_str, first_str);
}

static void run_one(const gnn_oracle_case *c, const gnn_oracle_stress *stress, same_bits *sb,
                    gnn_oracle_visit visit, void *user, int counts[GNN_ORACLE_OUTCOME_COUNT], int *fails)
{
    gnn_oracle_result r;
    gnn_oracle_run_stress(c, stress, &r);
    same_bits_check(c, &r, sb);
    const gnn_oracle_outcome o = r.outcome;
    counts[o]++;
    *fails += o == GNN_ORACLE_FAIL;
    if (visit)
        visit(c, &r, user);
}

int gnn_oracle_run_entry(const gnn_oracle_entry *e, const char *impl_name, int cases,
                         uint64_t seed, gnn_oracle_visit visit, void *user,
                         int counts[GNN_ORACLE_OUTCOME_COUNT])
{
    return gnn_oracle_run_entry_threads(e, impl_name, cases, seed, NULL, 0, visit, user, counts);
}

int gnn_oracle_run_entry_threads(const gnn_oracle_entry *e, const char *impl_name, int cases,
                                 uint64_t seed, const int *thread_counts, int n_thread_counts,
                                 gnn_oracle_visit visit, void *user,
                                 int counts[GNN_ORACLE_OUTCOME_COUNT])
{
    return gnn_oracle_run_entry_stress(e, impl_name, cases, seed, thread_counts, n_thread_counts, NULL, visit, user,
                                       counts);
}

int gnn_oracle_run_entry_stress(const gnn_oracle_entry *e, const char *impl_name, int cases,
                                uint64_t seed, const int *thread_counts, int n_thread_counts,
                                const gnn_oracle_stress *stress, gnn_oracle_visit visit, void *user,
                                int counts[GNN_ORACLE_OUTCOME_COUNT])
{
    return gnn_oracle_run_entry_impls(e, e->impls, impl_name, cases, seed, thread_counts, n_thread_counts, stress,
                                      visit, user, counts);
}

int gnn_oracle_run_entry_impls(const gnn_oracle_entry *e, const gnn_oracle_impl *const *impls,
                               const char *impl_name, int cases, uint64_t seed, const int *thread_counts,
                               int n_thread_counts, const gnn_oracle_stress *stress, gnn_oracle_visit visit,
                               void *user, int counts[GNN_ORACLE_OUTCOME_COUNT])
{
    if (!thread_counts || n_thread_counts <= 0) {
        thread_counts = stress ? gnn_oracle_stress_thread_counts : gnn_oracle_thread_counts;
        n_thread_counts = stress ? gnn_oracle_n_stress_thread_counts : gnn_oracle_n_thread_counts;
    }
    int fails = 0;
    const int n_seeds = (e->flags & GNN_ORACLE_SEEDLESS) ? 1 : (cases > 0 ? cases : 1);
    const int n_presets = gnn_oracle_n_presets(e);
    for (const gnn_oracle_impl *const *ip = impls; ip && *ip; ip++) {
        const gnn_oracle_impl *impl = *ip;
        if (impl_name && strcmp(impl_name, impl->name))
            continue;
        const int threaded = (impl->flags & GNN_ORACLE_THREADED) != 0;
        const int n_t = threaded ? n_thread_counts : 1;
        /* one same_bits per (preset, seed); NULL (no check) when there is one count or the
         * implementation may depend on it, or when out of memory (the check is extra) */
        same_bits *sbs = NULL;
        if (n_t > 1 && !(impl->flags & GNN_ORACLE_THREAD_DEPENDENT) && n_presets > 0)
            sbs = calloc((size_t)n_presets * (size_t)n_seeds, sizeof *sbs);
        for (int t = 0; t < n_t; t++) {
            const int threads = threaded ? thread_counts[t] : 0;
            for (int p = 0; e->presets[p]; p++)
                for (int k = 0; k < n_seeds; k++) {
                    gnn_oracle_case c;
                    gnn_err err;
                    if (gnn_oracle_case_init(&c, e, impl, threads, e->presets[p], seed + (uint64_t)k, &err)) {
                        /* a preset that does not parse is a bug in the registry: report it as
                         * a failing case rather than dropping it */
                        gnn_oracle_result r;
                        memset(&r, 0, sizeof r);
                        r.outcome = GNN_ORACLE_FAIL;
                        snprintf(r.case_str, sizeof r.case_str, "%s(%s)", e->name, e->presets[p]);
                        snprintf(r.detail, sizeof r.detail, "bad preset: %s", err.msg);
                        memset(&c, 0, sizeof c);
                        c.entry = e;
                        c.impl = impl;
                        c.threads = threads;
                        c.seed = seed + (uint64_t)k;
                        counts[GNN_ORACLE_FAIL]++;
                        fails++;
                        if (visit)
                            visit(&c, &r, user);
                        continue;
                    }
                    run_one(&c, stress, sbs ? &sbs[(size_t)p * (size_t)n_seeds + (size_t)k] : NULL, visit, user,
                            counts, &fails);
                }
        }
        free(sbs);
    }
    return fails;
}

/* ---- case data ---------------------------------------------------------------------------- */

gnn_oracle_draws gnn_oracle_draws_make(const gnn_oracle_case *c, uint64_t stream)
{
    gnn_oracle_draws d;
    d.s = gnn_rng_stream_make(c->seed, GNN_TAG_ORACLE, 0, 0, stream);
    d.i = 0;
    return d;
}

uint64_t gnn_oracle_draw_uint(gnn_oracle_draws *d, uint64_t n) { return gnn_rng_uint(&d->s, d->i++, n); }

int64_t gnn_oracle_draw_range(gnn_oracle_draws *d, int64_t lo, int64_t hi)
{
    if (hi <= lo)
        return lo;
    return lo + (int64_t)gnn_oracle_draw_uint(d, (uint64_t)(hi - lo) + 1);
}

float gnn_oracle_draw_float(gnn_oracle_draws *d) { return gnn_rng_float(&d->s, d->i++); }

void gnn_oracle_fill_spread(gnn_oracle_draws *d, float *x, int64_t count)
{
    for (int64_t i = 0; i < count; i++) {
        const float u = gnn_oracle_draw_float(d);
        const int e = (int)gnn_oracle_draw_range(d, -6, 6);
        x[i] = ldexpf(2.0f * u - 1.0f, e);
    }
}

void gnn_oracle_fill_dyadic(gnn_oracle_draws *d, float *x, int64_t count, int kmax, int shift)
{
    for (int64_t i = 0; i < count; i++)
        x[i] = ldexpf((float)gnn_oracle_draw_range(d, -kmax, kmax), -shift);
}

gnn_status gnn_oracle_random_block(gnn_oracle_draws *d, int64_t n_dst, int64_t n_src,
                                   int64_t deg_lo, int64_t deg_hi, gnn_block *b)
{
    memset(b, 0, sizeof *b);
    if (n_dst < 0 || n_src < n_dst || deg_lo < 0 || deg_hi < deg_lo || n_src > INT32_MAX)
        return GNN_ERR_INVAL;
    /* degrees first (they size the edge arrays), then the edges: two passes over one stream */
    gnn_oracle_draws deg_draws = *d;
    int64_t nnz = 0;
    for (int64_t v = 0; v < n_dst; v++)
        nnz += n_src > 0 ? gnn_oracle_draw_range(d, deg_lo, deg_hi) : 0;
    gnn_status s = gnn_block_alloc(b, n_dst, n_src, nnz);
    if (s)
        return s;
    b->n_src = n_src;
    b->nnz = nnz;
    for (int64_t u = 0; u < n_src; u++)
        b->src_gid[u] = 3 * u + 1;
    b->indptr[0] = 0;
    for (int64_t v = 0; v < n_dst; v++)
        b->indptr[v + 1] = b->indptr[v] + (n_src > 0 ? gnn_oracle_draw_range(&deg_draws, deg_lo, deg_hi) : 0);
    for (int64_t e = 0; e < nnz; e++)
        b->indices[e] = (int32_t)gnn_oracle_draw_uint(d, (uint64_t)n_src);
    return GNN_OK;
}

static void free_block(void *p) { gnn_block_free(p); }

gnn_status gnn_oracle_case_block(gnn_oracle_ctx *ctx, gnn_oracle_draws *d, int64_t n_dst,
                                 int64_t n_src, int64_t deg_lo, int64_t deg_hi, gnn_block **b)
{
    *b = gnn_oracle_alloc(ctx, sizeof **b);
    if (!*b)
        return GNN_ERR_NOMEM;
    gnn_status s = gnn_oracle_random_block(d, n_dst, n_src, deg_lo, deg_hi, *b);
    if (s == GNN_OK)
        gnn_oracle_defer(ctx, free_block, *b);
    return s;
}
