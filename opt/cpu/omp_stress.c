/* opt/cpu/omp_stress.c -- the stress mode of the OpenMP kernels (opt/cpu/omp_stress.h says
 * what and why): its switches and the pause of a stress point. */
#include "opt/cpu/omp_stress.h"

#include <time.h>

#include "gnnref/rng.h"
#include "opt/cpu/omp_compat.h"

int gnn_omp_stress_chunk_;
int gnn_omp_stress_on_;
static uint64_t g_seed;
static uint32_t g_run;

/* per thread: the pauses drawn so far in this run, so that a point reached again draws anew */
static _Thread_local uint32_t t_calls, t_run = UINT32_MAX;

void gnn_omp_stress_set(int on, int chunk, uint64_t seed, uint32_t run)
{
    __atomic_store_n(&g_seed, seed, __ATOMIC_RELAXED);
    __atomic_store_n(&g_run, run, __ATOMIC_RELAXED);
    __atomic_store_n(&gnn_omp_stress_chunk_, on && chunk > 0 ? chunk : 0, __ATOMIC_RELEASE);
    __atomic_store_n(&gnn_omp_stress_on_, on != 0, __ATOMIC_RELEASE);
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* Half the calls go on at once; the others spin for 2^k microseconds, k in 0..10 (1 us to 1 ms:
 * longer than a sleeping thread takes to wake from a barrier, which is what a pause in a
 * `single` must outlast; spinning, not sleeping: a sleep would hand the core to the threads
 * the point means to outrun, and wake tens of microseconds late). Keyed: tag ORACLE, step = the run, layer = the point's line
 * (low 8 bits), id = (line, thread), draw = the thread's call count in this run. */
void gnn_omp_stress_pause(unsigned site)
{
    const uint64_t thread = (uint64_t)gnn_omp_thread_num();
    const uint32_t run = __atomic_load_n(&g_run, __ATOMIC_RELAXED);
    if (t_run != run) {
        t_run = run;
        t_calls = 0;
    }
    const gnn_rng_stream s = gnn_rng_stream_make(__atomic_load_n(&g_seed, __ATOMIC_RELAXED), GNN_TAG_ORACLE, run,
                                                 site & 0xffu, (uint64_t)site << 16 | thread);
    const uint64_t r = gnn_rng_uint(&s, t_calls++, 22);
    if (r < 11)
        return;
    const double until = now_us() + (double)(1u << (r - 11));
    while (now_us() < until)
        ;
}
