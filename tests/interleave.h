/* tests/interleave.h -- a deterministic interleaving harness for the lock-free code
 * (CHESS-style; docs/oracle.md, "Interleavings"). tests/interleave.c implements it,
 * tests/test_interleave.c and tests/interleave_emu.c use it.
 *
 * A scenario is 2 to GNN_IL_MAX_THREADS threads running `body` over a small shared state
 * (one word, one slot of a table). They are POSIX threads, but only one runs at a time: it holds
 * a token, which changes hands only at a GNN_INTERLEAVE_POINT() of the code under test
 * (opt/cpu/interleave_point.h: the windows between a load and its compare-and-swap) and when
 * a thread ends. At each such point the scheduler chooses which thread runs next, so a
 * schedule is the sequence of those choices, and the final state is a function of it. The
 * harness enumerates every schedule depth-first (replay a prefix of choices, then take the
 * first option; next, the deepest choice with an option left), and after each compares the
 * final state with the sequential spec (`check`). Where a scenario has more schedules than
 * the bound, it runs that many drawn from the keyed Philox stream of a seed instead (tag
 * ORACLE, step = the schedule's index, draw = the choice's depth), and says so.
 *
 * The token passes under a mutex, so every access of one thread happens before the accesses
 * of the next (ThreadSanitizer sees no race in the harness itself). */
#ifndef GNNREF_TESTS_INTERLEAVE_H
#define GNNREF_TESTS_INTERLEAVE_H

#include <stddef.h>
#include <stdint.h>

#define GNN_IL_MAX_THREADS 4
#define GNN_IL_MAX_CHOICES 4096 /* choices per schedule: a scenario needing more fails (a livelock) */

typedef struct gnn_il_scenario {
    const char *name;
    int threads;                          /* 1 .. GNN_IL_MAX_THREADS */
    void (*setup)(void *arg);             /* before each schedule, on the calling thread */
    void (*body)(void *arg, int thread);  /* thread `thread` of the schedule */
    /* after each schedule, on the calling thread: 0 when the final state is the spec's, else 1
     * with the reason in why */
    int (*check)(void *arg, char *why, size_t cap);
    void *arg;
} gnn_il_scenario;

typedef struct gnn_il_report {
    long schedules;   /* run */
    long failures;    /* schedules whose final state was not the spec's */
    int exhaustive;   /* 1: every schedule was run; 0: `schedules` keyed samples */
    int max_switches; /* most token hand-overs in one schedule */
    long points;      /* interleaving points passed, over all schedules */
    char first[640];  /* the first failing schedule: its threads in running order, and why */
} gnn_il_report;

/* Run every schedule of sc when there are at most max_schedules, else max_schedules of them
 * drawn from the keyed stream of seed. Returns rep->failures. */
long gnn_il_explore(const gnn_il_scenario *sc, long max_schedules, uint64_t seed, gnn_il_report *rep);

/* The calling thread's index inside a schedule, -1 outside. */
int gnn_il_self(void);

#endif
