/* bench/bench_plugin.c -- `gnnref-bench --plugin LIB.so`: a plugin's implementations timed
 * beside ours (include/gnnref/plugin.h, docs/plugin.md).
 *
 * The flag is taken out of argv before Google Benchmark sees it (bench/shim.cc). Each loaded
 * implementation joins the implementations of every registry entry that takes its kind of
 * table (bench/bench_registry.c): like ours, it is run through the oracle at each benchmark
 * size first and registered only on a PASS, and its "speedup" is ref's time over its own,
 * measured in the same run. Narrow the run with --benchmark_filter (e.g. 'aggregate.*'). */
#include <stdio.h>
#include <string.h>
#include "bench/bench.h"
#include "gnnref/oracle.h"

static gnn_plugin_set *g_plugins;

int gnn_bench_take_plugins(int *argc, char **argv)
{
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *path = NULL;
        if (!strcmp(argv[i], "--plugin")) {
            if (i + 1 >= *argc) {
                fprintf(stderr, "gnnref-bench: error: --plugin needs a value: the plugin's shared library\n");
                return 2;
            }
            path = argv[++i];
        } else if (!strncmp(argv[i], "--plugin=", 9)) {
            path = argv[i] + 9;
        } else {
            argv[out++] = argv[i];
            continue;
        }
        gnn_err err;
        if (!g_plugins && gnn_plugin_set_new(&g_plugins)) {
            fprintf(stderr, "gnnref-bench: error: out of memory\n");
            return 2;
        }
        if (gnn_plugin_load(g_plugins, path, &err)) {
            fprintf(stderr, "gnnref-bench: error: --plugin %s\n", err.msg);
            gnn_bench_cleanup_plugins();
            return 2;
        }
    }
    argv[out] = NULL;
    *argc = out;
    for (int i = 0; i < gnn_plugin_count(g_plugins); i++) {
        gnn_plugin_kind kind;
        const char *path;
        const gnn_oracle_impl *impl = gnn_plugin_impl(g_plugins, i, &kind, &path);
        fprintf(stderr, "gnnref-bench: plugin %s: %s table '%s' (--benchmark_filter='^%s' times its ops alone)\n", path,
                gnn_plugin_kind_name(kind), impl->name, gnn_plugin_kind_name(kind));
    }
    return 0;
}

int gnn_bench_plugin_impls(const gnn_oracle_entry *e, const gnn_oracle_impl **out, int max)
{
    int n = 0;
    for (const gnn_oracle_impl *const *ip = gnn_plugin_impls_for(g_plugins, e); *ip && n < max; ip++)
        out[n++] = *ip;
    return n;
}

void gnn_bench_cleanup_plugins(void)
{
    gnn_plugin_set_free(g_plugins);
    g_plugins = NULL;
}
