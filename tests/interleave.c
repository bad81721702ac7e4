/* tests/interleave.c -- the scheduler of the interleaving harness (tests/interleave.h says what
 * it does; docs/oracle.md, "Interleavings", says why). Also defines gnn_interleave_point(),
 * which the hooked copies of the lock-free headers call (opt/cpu/interleave_point.h). */
#include "interleave.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "gnnref/rng.h"

/* One exploration at a time (the Check runner forks per case; the mutex keeps it honest when
 * it does not). */
static pthread_mutex_t g_explore = PTHREAD_MUTEX_INITIALIZER;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv[GNN_IL_MAX_THREADS + 1]; /* one per worker, the last the controller's */
    const gnn_il_scenario *sc;
    int n;
    int running;                 /* the token's holder; -1: the controller */
    unsigned gen;                /* schedules started: a worker runs once per schedule */
    int quit;                    /* the exploration is over: the workers return */
    int done[GNN_IL_MAX_THREADS];
    int n_done;
    /* the schedule: choices made at points with 2 or more runnable threads */
    int depth;                   /* choices made so far in this run */
    int replay;                  /* the first `replay` choices come from choice[] */
    unsigned char choice[GNN_IL_MAX_CHOICES], options[GNN_IL_MAX_CHOICES];
    int sampling;
    gnn_rng_stream stream;       /* sampling: this schedule's stream */
    int overflow;                /* more choices than GNN_IL_MAX_CHOICES */
    int diverged;                /* a replayed choice found another number of options */
    int switches;
    long points;
    char trace[256];             /* the threads in running order, "0 1 0 2" */
    size_t trace_len;
} S = { .mu = PTHREAD_MUTEX_INITIALIZER,
        .cv = { PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
                PTHREAD_COND_INITIALIZER } };

_Static_assert(GNN_IL_MAX_THREADS == 4, "one initializer per condition variable above");

/* Under S.mu: the token to `next` (-1: the controller), waking that thread alone. */
static void give_token(int next)
{
    S.running = next;
    pthread_cond_signal(&S.cv[next < 0 ? GNN_IL_MAX_THREADS : next]);
}

static _Thread_local int il_self = -1;

int gnn_il_self(void) { return il_self; }

static void trace_add(int t)
{
    const size_t cap = sizeof S.trace;
    if (S.trace_len + 8 < cap)
        S.trace_len += (size_t)snprintf(S.trace + S.trace_len, cap - S.trace_len, "%s%d", S.trace_len ? " " : "", t);
    else if (S.trace_len + 4 < cap)
        S.trace_len += (size_t)snprintf(S.trace + S.trace_len, cap - S.trace_len, " ...");
}

/* Under S.mu: the thread to run next, -1 when all are done. The runnable threads are listed
 * with the current one first, so choice 0 is "go on" and the first schedule is the serial one. */
static int pick(void)
{
    int en[GNN_IL_MAX_THREADS], k = 0;
    if (S.running >= 0 && !S.done[S.running])
        en[k++] = S.running;
    for (int i = 0; i < S.n; i++)
        if (!S.done[i] && i != S.running)
            en[k++] = i;
    if (k == 0)
        return -1;
    int c = 0;
    if (k > 1) {
        const int d = S.depth++;
        if (d >= GNN_IL_MAX_CHOICES) {
            S.overflow = 1;
        } else {
            if (d < S.replay) {
                c = S.choice[d];
                if (S.options[d] != k || c >= k) {
                    S.diverged = 1;
                    c = 0;
                }
            } else if (S.sampling) {
                c = (int)gnn_rng_uint(&S.stream, (uint64_t)d, (uint64_t)k);
            }
            S.choice[d] = (unsigned char)c;
            S.options[d] = (unsigned char)k;
        }
    }
    if (en[c] != S.running) {
        S.switches += S.running >= 0;
        trace_add(en[c]);
    }
    return en[c];
}

/* Hand the token to `next` (under S.mu) and wait until it comes back to `me`. */
static void pass_and_wait(int me, int next)
{
    give_token(next);
    while (S.running != me)
        pthread_cond_wait(&S.cv[me], &S.mu);
}

void gnn_interleave_point(void)
{
    const int me = il_self;
    if (me < 0)
        return; /* a hooked function called outside a schedule: run straight through */
    pthread_mutex_lock(&S.mu);
    S.points++;
    const int next = pick();
    if (next != me)
        pass_and_wait(me, next);
    pthread_mutex_unlock(&S.mu);
}

/* A worker: thread `me` of every schedule of one exploration. It waits for a new schedule
 * (S.gen) and the token, runs the body, hands the token on, and waits for the next. */
static void *il_thread(void *p)
{
    const int me = (int)(intptr_t)p;
    unsigned seen = 0;
    pthread_mutex_lock(&S.mu);
    for (;;) {
        while (!S.quit && !(S.gen != seen && S.running == me))
            pthread_cond_wait(&S.cv[me], &S.mu);
        if (S.quit)
            break;
        seen = S.gen;
        pthread_mutex_unlock(&S.mu);
        il_self = me;
        S.sc->body(S.sc->arg, me);
        il_self = -1;
        pthread_mutex_lock(&S.mu);
        S.done[me] = 1;
        S.n_done++;
        give_token(pick()); /* -1 after the last: the controller's turn */
    }
    pthread_mutex_unlock(&S.mu);
    return NULL;
}

/* One schedule on the workers: the choices replayed from S.choice[0 .. replay), then first
 * options (or keyed draws). */
static void run_one(void)
{
    const gnn_il_scenario *sc = S.sc;
    if (sc->setup)
        sc->setup(sc->arg); /* the workers wait: nothing else touches the state */
    pthread_mutex_lock(&S.mu);
    S.depth = 0;
    S.switches = 0;
    S.n_done = 0;
    S.running = -1;
    S.trace_len = 0;
    S.trace[0] = '\0';
    memset(S.done, 0, sizeof S.done);
    S.gen++;
    give_token(pick());
    while (S.running != -1 || S.n_done < S.n)
        pthread_cond_wait(&S.cv[GNN_IL_MAX_THREADS], &S.mu);
    pthread_mutex_unlock(&S.mu);
}

/* The next schedule depth-first: the deepest choice with an option left, taken; 0 when none is. */
static int next_schedule(void)
{
    int d = (S.depth < GNN_IL_MAX_CHOICES ? S.depth : GNN_IL_MAX_CHOICES) - 1;
    while (d >= 0 && S.choice[d] + 1 >= S.options[d])
        d--;
    if (d < 0)
        return 0;
    S.choice[d]++;
    S.replay = d + 1;
    return 1;
}

static void record_failure(gnn_il_report *rep, const char *why)
{
    if (rep->failures++ == 0)
        snprintf(rep->first, sizeof rep->first, "%s: schedule %ld, threads in running order [%s]: %s", S.sc->name,
                 rep->schedules, S.trace, why);
}

/* Every schedule, depth-first, until max_schedules; returns 1 when all were run. */
static int explore_all(long max_schedules, gnn_il_report *rep)
{
    S.replay = 0;
    S.sampling = 0;
    for (;;) {
        if (rep->schedules >= max_schedules)
            return 0;
        char why[512] = "";
        run_one();
        rep->schedules++;
        if (S.switches > rep->max_switches)
            rep->max_switches = S.switches;
        if (S.overflow)
            snprintf(why, sizeof why, "more than %d choices in one schedule (a livelock?)", GNN_IL_MAX_CHOICES);
        if (!why[0] && S.diverged)
            snprintf(why, sizeof why, "a replayed schedule took another path (the scenario is not deterministic)");
        if (!why[0])
            S.sc->check(S.sc->arg, why, sizeof why);
        if (why[0])
            record_failure(rep, why);
        if (S.overflow || S.diverged || !next_schedule())
            return 1;
    }
}

long gnn_il_explore(const gnn_il_scenario *sc, long max_schedules, uint64_t seed, gnn_il_report *rep)
{
    memset(rep, 0, sizeof *rep);
    if (!sc || sc->threads < 1 || sc->threads > GNN_IL_MAX_THREADS || !sc->body || !sc->check || max_schedules < 1) {
        rep->failures = 1;
        snprintf(rep->first, sizeof rep->first, "bad scenario");
        return 1;
    }
    pthread_mutex_lock(&g_explore);
    S.sc = sc;
    S.n = sc->threads;
    S.overflow = S.diverged = 0;
    S.points = 0;
    S.quit = 0;
    S.running = -1;
    pthread_t tid[GNN_IL_MAX_THREADS];
    int started = 0;
    for (; started < S.n; started++)
        if (pthread_create(&tid[started], NULL, il_thread, (void *)(intptr_t)started) != 0)
            break;
    if (started < S.n) {
        rep->failures = 1;
        snprintf(rep->first, sizeof rep->first, "%s: thread %d could not start", sc->name, started);
        goto out;
    }
    rep->exhaustive = explore_all(max_schedules, rep);
    if (!rep->exhaustive) { /* too many: keyed samples instead, as many as the bound */
        const long enumerated = rep->schedules;
        rep->schedules = 0;
        S.sampling = 1;
        for (long k = 0; k < max_schedules; k++) {
            S.replay = 0;
            S.stream = gnn_rng_stream_make(seed, GNN_TAG_ORACLE, (uint32_t)k, 0, 0);
            char why[512] = "";
            run_one();
            rep->schedules++;
            if (S.switches > rep->max_switches)
                rep->max_switches = S.switches;
            if (S.overflow)
                snprintf(why, sizeof why, "more than %d choices in one schedule (a livelock?)", GNN_IL_MAX_CHOICES);
            if (!why[0])
                sc->check(sc->arg, why, sizeof why);
            if (why[0])
                record_failure(rep, why);
            S.overflow = 0;
        }
        rep->schedules += enumerated; /* and the enumerated prefix's failures stay counted */
    }
out:
    pthread_mutex_lock(&S.mu);
    S.quit = 1;
    for (int i = 0; i < GNN_IL_MAX_THREADS; i++)
        pthread_cond_broadcast(&S.cv[i]);
    pthread_mutex_unlock(&S.mu);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    rep->points = S.points;
    S.sc = NULL;
    pthread_mutex_unlock(&g_explore);
    return rep->failures;
}
