/* opt/cpu/clones.h -- GNN_CLONES: build a function twice, for AVX2 and for the baseline
 * x86-64, and let the loader pick one (GCC's target_clones, an ifunc resolver).
 *
 * Resolvers run while the program is being relocated, before the sanitizers' runtimes are up:
 * ASan and TSan builds crashed at startup with a segmentation fault inside a resolver. There,
 * and with compilers other than GCC, only the baseline is built. */
#ifndef GNNREF_OPT_CPU_CLONES_H
#define GNNREF_OPT_CPU_CLONES_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) &&          \
    !defined(__SANITIZE_THREAD__)
#define GNN_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GNN_CLONES
#endif

#endif
