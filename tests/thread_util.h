/* tests/thread_util.h -- the thread counts a test asks for, in builds with and without OpenMP.
 *
 * A NO_OPENMP=1 build (docs/building.md) runs every kernel on the calling thread: `--threads N`
 * is accepted and the reports say 1, and the oracle says SKIP for a case that names more than
 * one thread. A test whose subject is not the threading itself (a JSON report's keys, a
 * mutant the oracle must reject, the same bits with and without the adaptive team) asks for
 * test_threads(N) and expects what that build runs; a test whose subject is threading skips
 * where there is none, and says so. Each including suite gets its own static copy. */
#ifndef GNNREF_TESTS_THREAD_UTIL_H
#define GNNREF_TESTS_THREAD_UTIL_H

#ifdef GNN_HAVE_OPENMP
#include <omp.h>
#endif

/* n with OpenMP, 1 without: the thread count a request for n runs at */
static inline int test_threads(int n)
{
#ifdef GNN_HAVE_OPENMP
    return n;
#else
    (void)n;
    return 1;
#endif
}

#endif
