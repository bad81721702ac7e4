/* include/gnnref/plugin.h -- the plugin ABI: an outside kernel checked by the oracle
 * (docs/plugin.md).
 *
 * A plugin is a shared library that exports one registration function and its ABI version:
 *
 *     #include "gnnref/plugin.h"
 *     static const gnn_aggregate_ops my_agg = { .name = "myagg", .forward = ..., ... };
 *     GNN_PLUGIN_REGISTER(r)
 *     {
 *         return gnn_plugin_add_aggregate(r, &my_agg, 0);
 *     }
 *
 * GNN_PLUGIN_REGISTER defines both exported symbols: the function gnnref_plugin_register and
 * the constant gnnref_plugin_abi_version (= GNN_PLUGIN_ABI_VERSION of the header the plugin
 * was compiled with). `gnnref oracle --plugin lib.so` and `gnnref-bench --plugin lib.so` load
 * the library (dlopen), refuse it unless its ABI version equals the host's (the message names
 * both), call the function with a registry, and then run every oracle case of the ops the
 * plugin implements against the reference, with the registry's comparators and tolerances,
 * exactly as if the plugin's tables were listed beside "ref" and "cpu" in the entries.
 *
 * The tables are the ones the implementation context uses (include/gnnref/impl.h): a plugin
 * implements the same struct as ref/ and opt/cpu/ do, so a table that passes here can be put
 * into a gnn_impl as is. Kinds of table a plugin may register in this ABI version:
 *     GNN_PLUGIN_AGGREGATE  gnn_aggregate_ops  aggregate.{mean,sum,gcn,weighted}.{fwd,bwd},
 *                                              grad.aggregate.* (backward vs finite differences)
 *     GNN_PLUGIN_INDEX_ADD  gnn_index_add_ops  index_add
 *     GNN_PLUGIN_SPMM       gnn_spmm_ops       spmm.*
 *     GNN_PLUGIN_QUANT      gnn_quant_ops      quant.*
 * A NULL function in a table is "not implemented": its cases say UNSUPPORTED.
 *
 * The registry is a table of function pointers handed to the plugin: a plugin calls nothing
 * in libgnnref, needs only these headers (pkg-config --cflags gnnref), and links no gnnref
 * library. Every table and name it registers must live as long as the library stays loaded
 * (static storage). The plugin's kernels must not print or exit; they return a gnn_status.
 *
 * ABI version rule: GNN_PLUGIN_ABI_VERSION changes whenever anything a plugin sees changes
 * layout or meaning -- this registry, a kind, a flag, or one of the registered tables
 * (gnn_aggregate_ops, gnn_index_add_ops, gnn_spmm_ops, gnn_quant_ops, gnn_block and the
 * other structs they take). A plugin is loaded only by a gnnref of the very same version:
 * rebuild it against the new headers. Adding a kind at the end of gnn_plugin_kind or a
 * member at the end of gnn_plugin_registry also bumps it (no minor versions). */
#ifndef GNNREF_PLUGIN_H
#define GNNREF_PLUGIN_H

#include <stdint.h>
#include "gnnref/aggregate.h"
#include "gnnref/index_add.h"
#include "gnnref/quant.h"
#include "gnnref/spmm.h"
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version of this header. History: 1 -- first version (gnnref 0.1); 2 -- gnn_quant_ops'
 * pack and unpack return a gnn_status (they returned nothing: a device's failure could only show
 * as wrong bytes). */
#define GNN_PLUGIN_ABI_VERSION 2u

/* The two symbols a plugin exports (GNN_PLUGIN_REGISTER defines both). */
#define GNN_PLUGIN_REGISTER_SYMBOL "gnnref_plugin_register"
#define GNN_PLUGIN_ABI_SYMBOL "gnnref_plugin_abi_version"

/* Which ops table a registration carries (the table's C type is given beside each). */
typedef enum gnn_plugin_kind {
    GNN_PLUGIN_NONE = 0,  /* (entries that take no plugin) */
    GNN_PLUGIN_AGGREGATE, /* const gnn_aggregate_ops * (aggregate.h) */
    GNN_PLUGIN_INDEX_ADD, /* const gnn_index_add_ops * (index_add.h) */
    GNN_PLUGIN_SPMM,      /* const gnn_spmm_ops * (spmm.h) */
    GNN_PLUGIN_QUANT,     /* const gnn_quant_ops * (quant.h) */
    GNN_PLUGIN_KIND_COUNT
} gnn_plugin_kind;

/* Capability flags of a registration (any other bit is refused). */
enum {
    /* the implementation uses OpenMP (the host's libgomp): the oracle runs it at every thread
     * count of --threads (1, 2, 4 by default) and requires the same bits at each */
    GNN_PLUGIN_THREADED = 1u << 0,
    /* with THREADED: its result may depend on the thread count by design (per-thread partial
     * sums); the same-bits check across thread counts is skipped */
    GNN_PLUGIN_THREAD_DEPENDENT = 1u << 1,
};

/* The registry a plugin's registration function receives. Owned by the host; valid only
 * during the call. */
typedef struct gnn_plugin_registry gnn_plugin_registry;
struct gnn_plugin_registry {
    uint32_t abi_version; /* the host's GNN_PLUGIN_ABI_VERSION */
    uint32_t size;        /* sizeof(gnn_plugin_registry) in the host */
    const char *path;     /* the plugin's file, as the host opened it */
    /* Register one implementation: ops points to a table of the kind's type whose `name`
     * (1 to 40 characters of A-Z a-z 0-9 _ . + -, unique among the implementations of that
     * kind, not "ref" nor a built-in one's) is printed in every case string; flags:
     * GNN_PLUGIN_*. GNN_OK, or GNN_ERR_INVAL (the host keeps the reason and refuses the whole
     * plugin, whatever the registration function returns). */
    gnn_status (*add)(gnn_plugin_registry *r, gnn_plugin_kind kind, const void *ops, unsigned flags);
    /* Say why registration fails (kept for the host's message; the last call wins). */
    void (*fail)(gnn_plugin_registry *r, const char *why);
    void *host; /* the host's, opaque */
};

/* Typed wrappers: the compiler checks that the table has the kind's type. */
static inline gnn_status gnn_plugin_add_aggregate(gnn_plugin_registry *r, const gnn_aggregate_ops *ops,
                                                  unsigned flags)
{
    return r->add(r, GNN_PLUGIN_AGGREGATE, ops, flags);
}
static inline gnn_status gnn_plugin_add_index_add(gnn_plugin_registry *r, const gnn_index_add_ops *ops,
                                                  unsigned flags)
{
    return r->add(r, GNN_PLUGIN_INDEX_ADD, ops, flags);
}
static inline gnn_status gnn_plugin_add_spmm(gnn_plugin_registry *r, const gnn_spmm_ops *ops, unsigned flags)
{
    return r->add(r, GNN_PLUGIN_SPMM, ops, flags);
}
static inline gnn_status gnn_plugin_add_quant(gnn_plugin_registry *r, const gnn_quant_ops *ops, unsigned flags)
{
    return r->add(r, GNN_PLUGIN_QUANT, ops, flags);
}

/* What a plugin exports. The function returns 0 when it registered what it meant to, any
 * other value to refuse loading (call r->fail first to say why). */
typedef int (*gnn_plugin_register_fn)(gnn_plugin_registry *r);

#if defined(__GNUC__)
#define GNN_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define GNN_PLUGIN_EXPORT
#endif

/* Declarations of the two exported symbols (defined by the plugin, never by libgnnref). */
GNN_PLUGIN_EXPORT extern const uint32_t gnnref_plugin_abi_version;
GNN_PLUGIN_EXPORT int gnnref_plugin_register(gnn_plugin_registry *r);

/* Define the plugin's registration function (its body follows) and its ABI version. */
#define GNN_PLUGIN_REGISTER(r)                                                                     \
    const uint32_t gnnref_plugin_abi_version = GNN_PLUGIN_ABI_VERSION; /* exported: declared above */ \
    GNN_PLUGIN_EXPORT int gnnref_plugin_register(gnn_plugin_registry *r)

#ifdef __cplusplus
}
#endif
#endif
