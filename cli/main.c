/* cli/main.c -- `gnnref <subcommand> [flags]`: dispatch, after choosing the OpenMP wait
 * policy (docs/openmp.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "gnnref/dense.h"
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* Idle OpenMP threads should sleep, not spin: libgomp's default (OMP_WAIT_POLICY unset) spins
 * up to GOMP_SPINCOUNT = 300000 iterations at every barrier while it has no more threads than
 * cores, and on a machine where another process holds a core the spinning thread takes the
 * core its preempted partner needs; the 2-thread sampler then ran 10 to 100 times slower than
 * one thread. libgomp reads its environment once, in a constructor that runs before main()
 * (and before the executable's own .preinit_array code can set it: environ is not set up
 * there yet), so the only way to change the policy for this process is to start it again with
 * the variable set. A policy the user chose (OMP_WAIT_POLICY, GOMP_SPINCOUNT, or LLVM libomp's
 * KMP_BLOCKTIME / KMP_LIBRARY) is kept; GNN_OMP_REEXEC guards against a loop. When the exec
 * fails, the run goes on with the default policy: slower on a busy machine, never wrong. */
static void passive_wait_policy(char **argv)
{
#ifdef GNN_HAVE_OPENMP
    static const char *const k_user[] = { "OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME", "KMP_LIBRARY",
                                          "GNN_OMP_REEXEC" };
    for (size_t i = 0; i < sizeof k_user / sizeof k_user[0]; i++)
        if (getenv(k_user[i]))
            return;
    if (setenv("OMP_WAIT_POLICY", "passive", 1) || setenv("GNN_OMP_REEXEC", "1", 1))
        return;
    fflush(NULL);
    execv("/proc/self/exe", argv);
    unsetenv("OMP_WAIT_POLICY"); /* exec failed: leave the environment as it was */
    unsetenv("GNN_OMP_REEXEC");
#else
    (void)argv;
#endif
}

typedef struct subcommand {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} subcommand;

/* Training allocates the same step buffers (activations, masks, gathered features) every step
 * and frees them at its end. glibc's defaults give the large ones back to the kernel, so every
 * step faulted and zeroed them again. A first fix kept buffers up to 32 MiB (glibc's largest
 * mmap threshold) in the heap: a fifth of a SAGE epoch on 200k vertices. But Facebook's
 * 4,714 features make 380 MB buffers, which glibc still served by mmap, and a simulated rank's
 * thread arena always maps a request larger than its 64 MiB heap, whatever M_MMAP_MAX says:
 * measured, 45% of a 1-rank Facebook epoch and 37% of a 4-rank simulated one was the kernel
 * faulting pages (7.4 million faults in 2 epochs). So: no mmap for allocations, one arena
 * (the main heap) for every thread, and a heap that is never trimmed; the pages a step frees
 * serve the next step. System time of those runs: 19 s -> 2 s; peak memory +3%. A policy of
 * the program, not of the library (docs/performance.md, "What moved it"). */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_MAX, 0);          /* the main heap serves large requests too */
    mallopt(M_TRIM_THRESHOLD, -1);   /* -1: never give the heap's top back (mallopt(3)) */
    mallopt(M_ARENA_MAX, 1);         /* threads share the main heap: no thread arena maps */
#endif
}

static const subcommand k_commands[] = {
    { "gen", gnn_cmd_gen, "generate a graph: rmat (Graph500) or sbm (stochastic block model)" },
    { "convert", gnn_cmd_convert, "import text, OGB or edge-list data into the binary format" },
    { "info", gnn_cmd_info, "print the counts and checks of a dataset" },
    { "partition", gnn_cmd_partition, "split a graph into K parts (metis, range, hash, random) and report the cut" },
    { "sample", gnn_cmd_sample, "time multi-layer neighbor sampling: ref or optimized, any ID map" },
    { "train", gnn_cmd_train, "train a GNN (sage, gcn, gat, gin, rgcn) on one rank, the simulator or MPI" },
    { "oracle", gnn_cmd_oracle, "check every implementation against the reference" },
    { "commcheck", gnn_cmd_commcheck, "check every collective of a backend (self, sim, mpi) bitwise" },
    { "partcheck", gnn_cmd_partcheck, "build db_halo on every rank and pull features through the feature store" },
    { "commplan", gnn_cmd_commplan, "SuperGCN communication plans per rank pair: pre, post, hybrid (vertex cover), degree" },
    { "plot", gnn_cmd_plot, "draw reports as a PNG with gnuplot: loss, phases, traffic, ranks, scaling, bench" },
    { NULL, NULL, NULL }
};

static void usage(FILE *f)
{
    fprintf(f, "usage: gnnref <command> [flags]   (gnnref <command> --help for its flags)\n\ncommands:\n");
    for (const subcommand *c = k_commands; c->name; c++)
        fprintf(f, "  %-9s %s\n", c->name, c->summary);
    fprintf(f, "\ngnnref %s: reference GNN kernels with test oracles\n", GNN_VERSION);
}

int main(int argc, char **argv)
{
    passive_wait_policy(argv);
    keep_freed_memory();
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("gnnref %s\n", GNN_VERSION);
        return CLI_OK;
    }
    /* GNN_DENSE_PATH forces a path of the fma context's dense kernel (include/gnnref/dense.h):
     * a value the CPU cannot run is refused here, before any work, not ignored */
    gnn_err err = { "" };
    if (gnn_dense_path_from_env(&err))
        return cli_error(CLI_USAGE, "%s", err.msg);
    for (const subcommand *c = k_commands; c->name; c++)
        if (!strcmp(argv[1], c->name))
            return c->fn(argc - 1, argv + 1);
    cli_error(CLI_USAGE, "unknown command '%s'", argv[1]);
    usage(stderr);
    return CLI_USAGE;
}
