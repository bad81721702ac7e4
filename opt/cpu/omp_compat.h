/* opt/cpu/omp_compat.h -- OpenMP's thread queries, and their one-thread answers in a build
 * without OpenMP (NO_OPENMP=1, docs/building.md), written once: every threaded file had its
 * own copy (a num_threads(), MAX_THREADS() macros, or stubs named like OpenMP's functions). */
#ifndef GNN_OPT_CPU_OMP_COMPAT_H
#define GNN_OPT_CPU_OMP_COMPAT_H

#ifdef GNN_HAVE_OPENMP
#include <omp.h>
/* the team size a parallel region started now would get */
static inline int gnn_omp_max_threads(void) { return omp_get_max_threads(); }
/* inside a parallel region: this thread's number and the team's size */
static inline int gnn_omp_thread_num(void) { return omp_get_thread_num(); }
static inline int gnn_omp_num_threads(void) { return omp_get_num_threads(); }
#else
static inline int gnn_omp_max_threads(void) { return 1; }
static inline int gnn_omp_thread_num(void) { return 0; }
static inline int gnn_omp_num_threads(void) { return 1; }
#endif

#endif
