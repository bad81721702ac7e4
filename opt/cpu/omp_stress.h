/* opt/cpu/omp_stress.h -- the stress mode of the OpenMP kernels: what `gnnref oracle --stress`
 * changes inside the library for one run of a case (oracle/harness.c; docs/oracle.md,
 * "Stress mode", says why and what it found).
 *
 * Two perturbations, both off outside stress mode, where each costs one relaxed load of a
 * global and changes no schedule and no bit:
 *
 *  - gnn_omp_chunk(normal): the chunk of a `schedule(dynamic, ...)` loop of the kernels the
 *    stress stage runs (ci/oracle-stress.sh). Under stress every such loop takes the run's
 *    chunk (1 to 64 iterations) instead of its own (256 to 4096 items, or 1 work item), so the
 *    threads interleave at a grain the normal chunks never show, and a loop that relies on
 *    receiving whole aligned chunks of its normal size breaks. This is what a random OpenMP
 *    runtime schedule was meant to do: `schedule(runtime)` would take the kind and chunk from
 *    run-sched-var, which is the caller's ICV (a library would have to set and restore it
 *    around every region) and which LLVM's libomp reads from the team, fixed when the region
 *    forks, not from the thread that starts the loop; a chunk expression is evaluated at the
 *    loop under both runtimes. The kind stays dynamic: a dynamic loop's result may not
 *    depend on which thread takes which chunk, and small chunks already let any thread take
 *    any of them. Static loops keep their mapping: some rely on two loops of one region
 *    mapping iterations to threads alike (OpenMP's rule for static schedules), and the
 *    thread counts of the stress runs (2, 4, 8) change that mapping anyway.
 *
 *  - GNN_OMP_STRESS_POINT(): a place in a threaded prefix-then-scatter (a parallel
 *    counting sort: count per thread, barrier, prefix by one thread, barrier, scatter) where,
 *    under stress, the thread pauses for 0 or 1 to 1024 microseconds, drawn from the keyed
 *    Philox stream of (stress seed, run, the point's line, thread, call). At the start of a counting phase
 *    it makes some threads count late, at the start of the `single` that sums the counts it
 *    makes the summing thread late: a missing barrier then lets another thread read counts
 *    that are not final, in most runs instead of one in hundreds (without a pause, the thread
 *    that frees the others from a barrier runs the short single before they wake). */
#ifndef GNNREF_OPT_CPU_OMP_STRESS_H
#define GNNREF_OPT_CPU_OMP_STRESS_H

#include <stdint.h>

/* Set by gnn_omp_stress_set; read by every thread of every team (relaxed: set before a run's
 * first region starts, cleared after its last ends). */
extern int gnn_omp_stress_chunk_; /* 0: every loop its own */
extern int gnn_omp_stress_on_;

/* Stress mode for one run (on = 1) or off (on = 0): pauses at the stress points drawn from
 * (seed, run), and chunk (1..64) for every gnn_omp_chunk loop, or 0 for their own. Not
 * thread-safe against kernels that run meanwhile: call it between runs (the oracle does). */
void gnn_omp_stress_set(int on, int chunk, uint64_t seed, uint32_t run);

/* The chunk of a dynamic loop: `normal`, or the run's under stress. */
static inline int gnn_omp_chunk(int normal)
{
    const int c = __atomic_load_n(&gnn_omp_stress_chunk_, __ATOMIC_RELAXED);
    return c > 0 ? c : normal;
}

void gnn_omp_stress_pause(unsigned site);

/* A stress point (see above); its line number keys its draws. */
#define GNN_OMP_STRESS_POINT()                                                                  \
    do {                                                                                        \
        if (__builtin_expect(__atomic_load_n(&gnn_omp_stress_on_, __ATOMIC_RELAXED), 0))        \
            gnn_omp_stress_pause(__LINE__);                                                     \
    } while (0)

#endif
