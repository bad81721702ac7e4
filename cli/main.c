/* cli/main.c -- `gnnref <subcommand> [flags]`: dispatch. */
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"

typedef struct subcommand {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} subcommand;

static const subcommand k_commands[] = {
    { "gen", gnn_cmd_gen, "generate a graph: rmat (Graph500) or sbm (stochastic block model)" },
    { "convert", gnn_cmd_convert, "import text, OGB or edge-list data into the binary format" },
    { "info", gnn_cmd_info, "print the counts and checks of a dataset" },
    { "partition", gnn_cmd_partition, "split a graph into K parts (metis, range, hash, random) and report the cut" },
    { "sample", gnn_cmd_sample, "time multi-layer neighbor sampling: ref or optimized, any ID map" },
    { "train", gnn_cmd_train, "train a GNN (sage, gcn, gat, gin) on one rank, the simulator or MPI" },
    { "oracle", gnn_cmd_oracle, "check every implementation against the reference" },
    { "commcheck", gnn_cmd_commcheck, "check every collective of a backend (self, sim, mpi) bitwise" },
    { "partcheck", gnn_cmd_partcheck, "build db_halo on every rank and pull features through the feature store" },
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
    for (const subcommand *c = k_commands; c->name; c++)
        if (!strcmp(argv[1], c->name))
            return c->fn(argc - 1, argv + 1);
    cli_error(CLI_USAGE, "unknown command '%s'", argv[1]);
    usage(stderr);
    return CLI_USAGE;
}
