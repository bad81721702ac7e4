/* include/gnnref/team.h -- an adaptive OpenMP team size for a loop of similar units of work
 * (training steps, sampled batches): docs/openmp.md, "When a core is taken".
 *
 * Why it is allowed: every kernel of gnnref gives the same bits at any thread count
 * (DESIGN.md section 2), so the number of threads may change from one unit to the next
 * without changing a result. Why it is needed: when another process holds one of the cores,
 * each OpenMP region waits at its end for the thread that shares that core, and a training
 * step has dozens of short regions; on two cores with one busy loop a 2-thread SAGE epoch
 * then takes longer than a 1-thread one (docs/openmp.md has the figures).
 *
 * How it chooses: the candidates are the requested count T, T - 1, and T halved down to 1.
 * It starts with the largest that fits the cores that no other task keeps running on (Linux's
 * procs_running, the least of 10 snapshots 0.5 ms apart; T where it cannot be read), runs the
 * current choice and
 * measures seconds per unit of work (the caller says how much work a unit was: its sampled
 * edges, say), keeping a moving average per candidate. It switches as soon as a candidate's
 * average is at least GNN_TEAM_MARGIN below the current one's. After a warm-up of
 * GNN_TEAM_WARMUP units (buffers that grow and first-touch page faults are not the loop's
 * cost) and one measured unit, it runs one unit with every other candidate (after
 * GNN_TEAM_PROBE_INFORMED units instead, one candidate, when the first guess came from the
 * machine's state: a guess that saw a busy core is trusted for a while); then one unit
 * with another candidate, in turn, GNN_TEAM_PROBE_EVERY units later, and each probe that
 * confirms the choice doubles the interval, up to GNN_TEAM_PROBE_MAX. A change of choice sets
 * it back to GNN_TEAM_PROBE_EVERY, so a switch made on one noisy unit is checked again soon.
 * When another process takes a core while the full team runs, the full team's average rises
 * above the smaller team's last measurement and it switches without waiting for a probe;
 * when the core comes back, the next probe finds it. Near the end of a loop whose length it
 * was told (gnn_team_expect), it makes no probe it could not use.
 *
 * Cost on a quiet machine: a few probe units on a smaller team (6 in 400 units). The
 * state is the calling thread's: each rank of the simulator may keep its own. Library code
 * never changes the team unless its caller asked for it (gnn_train_config.adapt_threads). */
#ifndef GNNREF_TEAM_H
#define GNNREF_TEAM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GNN_TEAM_CANDIDATES 16 /* T, T-1, T/2, T/4, ..., 1: at most 2 + log2(4096) sizes */
#define GNN_TEAM_PROBE_EVERY 4  /* units between probes at first, and after a change of choice */
#define GNN_TEAM_PROBE_MAX 256  /* the longest interval between probes */
#define GNN_TEAM_PROBE_INFORMED 16 /* the first probe after a guess from the machine's state */
#define GNN_TEAM_WARMUP 3       /* units not measured at the start: buffers grow, pages fault */
#define GNN_TEAM_MARGIN 0.05    /* switch only to a candidate at least 5% faster per unit of work */

typedef struct gnn_team {
    int adapt;                          /* 0: always size[0] (the requested count) */
    int n;                              /* candidates */
    int size[GNN_TEAM_CANDIDATES];      /* team sizes, size[0] = the requested count */
    double avg[GNN_TEAM_CANDIDATES];    /* seconds per unit of work, moving average; < 0: not measured */
    int64_t units[GNN_TEAM_CANDIDATES]; /* units run with each candidate */
    int cur;                            /* the chosen candidate */
    int running;                        /* the candidate of the unit in progress */
    int next_probe;                     /* the candidate the next probe tries (round robin, skipping cur) */
    int64_t done;                       /* units ended */
    int64_t since_probe;                /* units since the last probe */
    int64_t probe_every;                /* the current interval between probes */
    int informed;                       /* the first guess came from the machine's state */
    int64_t total;                      /* units the loop will run (gnn_team_expect); 0: unknown */
} gnn_team;

/* Start with `threads` OpenMP threads (>= 1; the caller's current count when <= 0). adapt = 0
 * keeps that count for every unit (begin/end then only count units). */
void gnn_team_init(gnn_team *t, int threads, int adapt);
/* gnn_team_init with the first guess given: start with the largest candidate of at most
 * free_cores threads (at least 1). gnn_team_init passes the cores no other task is running
 * on; tests pass a fixed count. */
void gnn_team_init_free(gnn_team *t, int threads, int adapt, int free_cores);
/* The loop will run `units` units in all: no probe is made when fewer than the probe interval
 * remain (what a probe finds could not pay for it). */
void gnn_team_expect(gnn_team *t, int64_t units);
/* Before a unit: sets the calling thread's OpenMP team size (omp_set_num_threads) and returns it. */
int gnn_team_begin(gnn_team *t);
/* After the unit begun last: it took `seconds` for `work` units of work (work <= 0 counts as 1). */
void gnn_team_end(gnn_team *t, double seconds, double work);
/* The mean team size over the units ended so far (the requested count before any). */
double gnn_team_mean(const gnn_team *t);
/* Sets the calling thread's team size to the current choice (for work between the units, such
 * as an evaluation: never a probe's size) and returns it. */
int gnn_team_apply(const gnn_team *t);
/* Sets the calling thread's team size back to the requested count. */
void gnn_team_restore(const gnn_team *t);

#ifdef __cplusplus
}
#endif
#endif
