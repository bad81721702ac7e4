/* opt/cpu/interleave_point.h -- GNN_INTERLEAVE_POINT(), the places where the deterministic
 * interleaving harness (tests/interleave.c, docs/oracle.md "Interleavings") may switch threads.
 *
 * Every compare-and-swap retry loop of the library has one in each of its windows: between the
 * load of a word and the first CAS that depends on it, and after each failed CAS (which
 * reloads the word) before the next one; so do the multi-step publications beside them (the
 * Fused-Map's claim, id and store). A race inside such a window is a few instructions wide:
 * two cores hit it by chance, if ever (ci/mutants.txt M03 survived every stress run). The
 * harness runs 2-3 threads one at a time and hands the token over only here, so it can run
 * every order of those windows and compare each final state with the sequential spec.
 *
 * In the library the macro is empty: the code the compiler sees is the same, and so are its
 * speed and its bits. A translation unit of the test build that defines GNN_INTERLEAVE_HOOKS
 * before including the lock-free headers (opt/cpu/idmap_impl.h, opt/cpu/sample_wtable.h,
 * opt/cuda/emu.h, opt/cuda/idmap_body.h) gets its own static inline copies that call
 * gnn_interleave_point(), defined by the harness. Device code (nvcc) never has the hook. */
#ifndef GNNREF_OPT_CPU_INTERLEAVE_POINT_H
#define GNNREF_OPT_CPU_INTERLEAVE_POINT_H

#if defined(GNN_INTERLEAVE_HOOKS) && !defined(__CUDACC__)
#ifdef __cplusplus
extern "C" {
#endif
void gnn_interleave_point(void); /* tests/interleave.c: may hand the token to another thread */
#ifdef __cplusplus
}
#endif
#define GNN_INTERLEAVE_POINT() gnn_interleave_point()
#else
#define GNN_INTERLEAVE_POINT() ((void)0)
#endif

#endif
