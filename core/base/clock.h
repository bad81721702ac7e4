/* core/base/clock.h -- the monotonic wall clock in seconds, written once: the trainers' phase
 * timers, the exchange's optional times, the oracle's and the benchmarks' timings and the
 * tool's each had their own copy. Timings are reported, never part of a result. Internal to
 * the tree: not installed. */
#ifndef GNN_CORE_BASE_CLOCK_H
#define GNN_CORE_BASE_CLOCK_H

#include <time.h>

static inline double gnn_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
