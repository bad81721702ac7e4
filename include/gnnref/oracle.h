/* include/gnnref/oracle.h -- the oracle: every implementation checked against the reference.
 *
 * One registry (gnn_oracle_registry, a NULL-terminated table in oracle/registry.c) lists
 * every operation once (DESIGN.md section 3). An entry names the operation, the parameters
 * of its cases and a list of size presets, the reference implementation, the
 * implementations present in this build, the comparator with its tolerance, and a one-line
 * reason for that tolerance. `gnnref oracle`, the Check suite tests/test_oracle.c and the
 * benchmarks in bench/ all iterate this one table, so they cannot drift apart.
 *
 * A case is a pure function of its case string,
 *     aggregate.mean.fwd(impl=cpu,threads=2,n_dst=37,n_src=80,d=13,deg=0..9,seed=5)
 * (entry name, implementation, OpenMP thread count for threaded implementations, the
 * entry's parameters in declaration order, and the seed of the GNN_TAG_ORACLE stream that
 * generates the inputs). `gnnref oracle --case '<string>'` replays exactly that case.
 *
 * Running a case: every output buffer is allocated with 64 guard bytes on each side and
 * filled with a NaN pattern first. Before any numeric comparison the harness checks that
 * the guards are unchanged (out-of-bounds writes), that no output is NaN (a NaN is either
 * a bug or an element the implementation never wrote), and that infinities match. Then the
 * entry's comparator decides: bitwise, ulp(n), allclose(atol, rtol), nmse(eps), canonical
 * (relabel, then bitwise), verify (a property checker written as a different, simpler
 * algorithm) or chisq(alpha) (a distribution test for samplers).
 *
 * Library code: nothing here prints. Results carry their text in gnn_oracle_result. */
#ifndef GNNREF_ORACLE_H
#define GNNREF_ORACLE_H

#include <stddef.h>
#include <stdint.h>
#include "gnnref/dataset.h"
#include "gnnref/graph.h"
#include "gnnref/plugin.h"
#include "gnnref/rng.h"
#include "gnnref/sample.h"
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- outcomes ---------------------------------------------------------------------------- */

typedef enum gnn_oracle_outcome {
    GNN_ORACLE_PASS = 0,
    GNN_ORACLE_FAIL,
    GNN_ORACLE_SKIP,        /* cannot run here (no OpenMP in this build, ...); detail says why */
    GNN_ORACLE_UNSUPPORTED, /* the implementation does not support this case (GNN_ERR_UNSUPPORTED) */
    GNN_ORACLE_OUTCOME_COUNT
} gnn_oracle_outcome;

/* "PASS", "FAIL", "SKIP", "UNSUPPORTED". */
const char *gnn_oracle_outcome_str(gnn_oracle_outcome o);

/* ---- comparators and tolerances ---------------------------------------------------------- */

typedef enum gnn_oracle_cmp {
    GNN_CMP_BITWISE = 0, /* identical bits */
    GNN_CMP_ULP,         /* a = largest allowed distance in units in the last place */
    GNN_CMP_ALLCLOSE,    /* |impl - ref| <= a + b * |ref| (numpy.allclose, ref as "desired") */
    GNN_CMP_NMSE,        /* sum (impl - ref)^2 / sum ref^2 <= a */
    GNN_CMP_CANONICAL,   /* relabel both sides to the canonical order, then bitwise */
    GNN_CMP_VERIFY,      /* property checker; a, b: numeric tolerances the checker documents */
    GNN_CMP_CHISQ        /* Pearson chi-square; FAIL when the p-value < a (alpha) */
} gnn_oracle_cmp;

typedef struct gnn_oracle_tol {
    gnn_oracle_cmp cmp;
    double a; /* ulp: n; allclose: atol; nmse: eps; chisq: alpha; verify: checker tolerance */
    double b; /* allclose: rtol; verify: second checker tolerance */
} gnn_oracle_tol;

/* "bitwise", "ulp(2)", "allclose(1e-05, 0.0001)", "nmse(1e-10)", "chisq(0.0001)", ... */
int gnn_oracle_tol_format(const gnn_oracle_tol *t, char *buf, size_t n);

/* ---- case parameters --------------------------------------------------------------------- */

typedef enum gnn_oracle_ptype {
    GNN_PARAM_INT = 0, /* "37" */
    GNN_PARAM_RANGE,   /* "0..9" (lo <= hi) or a single integer "5" meaning 5..5 */
    GNN_PARAM_REAL     /* "0.25" */
} gnn_oracle_ptype;

typedef struct gnn_oracle_param {
    const char *name;      /* key in the case string */
    gnn_oracle_ptype type;
    double min, max;       /* allowed values (both ends of a range) */
    const char *help;      /* one line for --list */
} gnn_oracle_param;

typedef struct gnn_oracle_value {
    int64_t lo, hi; /* INT: lo == hi; RANGE: lo..hi */
    double x;       /* REAL */
} gnn_oracle_value;

#define GNN_ORACLE_MAX_PARAMS 16

/* ---- implementations and entries ---------------------------------------------------------- */

enum {
    GNN_ORACLE_THREADED = 1u << 0, /* impl: run at every count in gnn_oracle_thread_counts */
    /* impl: its result may depend on the thread count by design (per-thread partial sums
     * reduced in thread order). Without this flag a threaded implementation must give the
     * same bits at every thread count: the harness compares each case's digest with the one
     * of the first thread count run, even where the comparison with ref is a tolerance. */
    GNN_ORACLE_THREAD_DEPENDENT = 1u << 1,
    /* impl: an emulation of another device's code on this CPU (the `cuda-emu` tables of
     * opt/cuda/: the CUDA kernels' bodies run by the emulator): checked like any other, never
     * timed (gnnref-bench leaves it out: its speed says nothing about the device's) */
    GNN_ORACLE_EMULATED = 1u << 2
};
enum {
    GNN_ORACLE_SEEDLESS = 1u << 0 /* entry: inputs do not depend on the seed; one case per preset */
};

/* One implementation of an entry's operation. `ops` is what the entry's run function calls:
 * an ops table (gnn_aggregate_ops, gnn_nn_ops, gnn_sampler_ops) or NULL where the entry calls
 * plain functions. Tests build their own gnn_oracle_impl around deliberately wrong ops to
 * prove that the oracle can fail. */
typedef struct gnn_oracle_impl {
    const char *name; /* "ref", "cpu": printed in every case string */
    const void *ops;
    unsigned flags;   /* GNN_ORACLE_THREADED, GNN_ORACLE_THREAD_DEPENDENT */
} gnn_oracle_impl;

/* A per-implementation tolerance (gnn_oracle_entry.impl_tols): it replaces the entry's for
 * that implementation, so one entry can hold a twin that keeps the reference's order to
 * bitwise and another (a BLAS GEMM) to a tolerance, each with its own reason. */
typedef struct gnn_oracle_impl_tol {
    const gnn_oracle_impl *impl; /* NULL ends the list */
    gnn_oracle_tol tol;
    const char *reason;          /* why, with the measured worst case */
} gnn_oracle_impl_tol;

/* The thread counts every threaded implementation is checked at (1, 2 and 4). */
extern const int gnn_oracle_thread_counts[];
extern const int gnn_oracle_n_thread_counts;

typedef struct gnn_oracle_ctx gnn_oracle_ctx; /* per-case scratch: allocations, detail text */
typedef struct gnn_oracle_case gnn_oracle_case;
typedef struct gnn_oracle_entry gnn_oracle_entry;

/* Benchmark hook (bench/bench_registry.c): build the inputs of a case once, then time `run`. */
typedef struct gnn_oracle_work {
    double bytes; /* bytes touched per call (reads + writes), for GB/s */
    double flops; /* floating-point operations per call, for GFLOP/s (0 if not meaningful) */
    double items; /* edges, samples, ... per call (0 if not meaningful) */
    const char *items_name; /* counter name for items per second: "edges/s", "rows/s" */
} gnn_oracle_work;

typedef struct gnn_oracle_bench {
    const char *const *sizes; /* NULL-terminated presets to benchmark (larger than the oracle's) */
    gnn_status (*setup)(const gnn_oracle_case *c, void **fixture, gnn_oracle_work *work);
    gnn_status (*run)(void *fixture); /* one call of c->impl on the fixture's inputs */
    void (*teardown)(void *fixture);
} gnn_oracle_bench;

struct gnn_oracle_entry {
    const char *name;                     /* "aggregate.mean.fwd" */
    const char *what;                     /* one line: what the entry checks */
    gnn_oracle_tol tol;                   /* comparator and tolerance */
    const char *reason;                   /* one line: why this tolerance */
    const gnn_oracle_param *params;       /* (n_params) */
    int n_params;
    const char *const *presets;           /* NULL-terminated "n_dst=37,n_src=80,d=13,deg=0..9" */
    const gnn_oracle_impl *ref;           /* the reference: the specification */
    const gnn_oracle_impl *const *impls;  /* NULL-terminated: implementations checked */
    /* NULL, or implementations held to another tolerance than `tol` (ended by impl NULL) */
    const gnn_oracle_impl_tol *impl_tols;
    /* NULL, or the optional parameters with their defaults, "zdeg=0,tie=0": a key listed here
     * takes this value when a case string or preset leaves it out, and a case string leaves it
     * out while it has this value. A parameter added to an entry later is made optional, so
     * every existing case string (and every saved replay line) keeps its meaning and form. */
    const char *defaults;
    unsigned flags;                       /* GNN_ORACLE_SEEDLESS */
    /* Generate the inputs of c, run it, compare; returns the outcome (the harness then
     * sweeps the guard bytes of every output and may turn a PASS into a FAIL). */
    gnn_oracle_outcome (*run)(gnn_oracle_ctx *ctx, const gnn_oracle_case *c);
    const gnn_oracle_bench *bench;        /* NULL: no benchmark */
    /* Plugins (include/gnnref/plugin.h): the kind of ops table (a gnn_plugin_kind) that `run`
     * takes from c->impl->ops, so that a plugin's tables of that kind run here beside `impls`.
     * 0: decided by the table in oracle/plugin.c (the entries older than the plugin ABI),
     * where an entry not listed takes no plugin (gnn_oracle_entry_kind). */
    int ops_kind;
};

/* The registry: every operation once, NULL-terminated. */
extern const gnn_oracle_entry *const gnn_oracle_registry[];

/* Entry by exact name, or NULL. */
const gnn_oracle_entry *gnn_oracle_find(const char *name);
/* Implementation of e by name (e->impls, or e->ref), or NULL. */
const gnn_oracle_impl *gnn_oracle_find_impl(const gnn_oracle_entry *e, const char *name);
/* The comparator and tolerance impl is held to in entry e: its e->impl_tols line when it has
 * one, else e->tol (impl NULL: e->tol); and the reason that goes with it. */
const gnn_oracle_tol *gnn_oracle_tol_of(const gnn_oracle_entry *e, const gnn_oracle_impl *impl);
const char *gnn_oracle_reason_of(const gnn_oracle_entry *e, const gnn_oracle_impl *impl);
int gnn_oracle_n_presets(const gnn_oracle_entry *e);
/* Does `name` select entry name `op`? Exact name, a dotted prefix ("aggregate" selects
 * "aggregate.mean.fwd"), or a shell pattern ("aggregate.*.bwd"). */
int gnn_oracle_name_matches(const char *pattern, const char *op);

/* ---- cases ------------------------------------------------------------------------------- */

struct gnn_oracle_case {
    const gnn_oracle_entry *entry;
    const gnn_oracle_impl *impl;
    int threads;   /* OpenMP threads for a threaded impl (>= 1); 0 for the others */
    uint64_t seed; /* key of the GNN_TAG_ORACLE streams that generate the inputs */
    gnn_oracle_value v[GNN_ORACLE_MAX_PARAMS]; /* entry->params order */
};

/* Case from a preset string of e ("n_dst=37,n_src=80,d=13,deg=0..9"). */
gnn_status gnn_oracle_case_init(gnn_oracle_case *c, const gnn_oracle_entry *e,
                                const gnn_oracle_impl *impl, int threads, const char *preset,
                                uint64_t seed, gnn_err *err);
/* Parse a full case string; GNN_ERR_FORMAT with a message naming the problem. */
gnn_status gnn_oracle_case_parse(const char *s, gnn_oracle_case *c, gnn_err *err);
/* Format c as its case string; returns the length (snprintf semantics). */
int gnn_oracle_case_format(const gnn_oracle_case *c, char *buf, size_t n);

/* Parameter accessors by index into entry->params. */
static inline int64_t gnn_oracle_int(const gnn_oracle_case *c, int i) { return c->v[i].lo; }
static inline int64_t gnn_oracle_lo(const gnn_oracle_case *c, int i) { return c->v[i].lo; }
static inline int64_t gnn_oracle_hi(const gnn_oracle_case *c, int i) { return c->v[i].hi; }
static inline double gnn_oracle_real(const gnn_oracle_case *c, int i) { return c->v[i].x; }

/* ---- running ----------------------------------------------------------------------------- */

typedef struct gnn_oracle_result {
    gnn_oracle_outcome outcome;
    char case_str[512];
    char detail[2048]; /* FAIL: first mismatches with indices and values; SKIP: the reason */
    uint32_t digest;   /* CRC32C of the implementation's outputs (replays must agree) */
    double seconds;    /* wall time of the case */
} gnn_oracle_result;

/* Run one case (sets the OpenMP thread count for its duration). */
gnn_oracle_outcome gnn_oracle_run(const gnn_oracle_case *c, gnn_oracle_result *r);

typedef void (*gnn_oracle_visit)(const gnn_oracle_case *c, const gnn_oracle_result *r, void *user);

/* Run every case of entry e: each implementation whose name matches impl_name (NULL: all),
 * each thread count for threaded implementations, each preset, `cases` seeds per preset
 * (seed, seed + 1, ...; one for GNN_ORACLE_SEEDLESS entries). visit (may be NULL) sees every
 * result; counts[outcome] is incremented. Returns the number of FAIL. */
int gnn_oracle_run_entry(const gnn_oracle_entry *e, const char *impl_name, int cases,
                         uint64_t seed, gnn_oracle_visit visit, void *user,
                         int counts[GNN_ORACLE_OUTCOME_COUNT]);
/* The same, with threaded implementations run at the n_thread_counts counts in thread_counts,
 * in that order (NULL or n_thread_counts <= 0: gnn_oracle_thread_counts). */
int gnn_oracle_run_entry_threads(const gnn_oracle_entry *e, const char *impl_name, int cases,
                                 uint64_t seed, const int *thread_counts, int n_thread_counts,
                                 gnn_oracle_visit visit, void *user,
                                 int counts[GNN_ORACLE_OUTCOME_COUNT]);

/* ---- stress: races ------------------------------------------------------------------------
 * A race shows only in some interleavings, so one run that passes proves little. Stress mode
 * runs a case again and again, each run under another perturbation of the scheduling:
 * background noise threads (started before the run and joined after it) that alternately
 * burn a core while touching memory and yield or sleep, preempting the case's threads at
 * arbitrary points; the number of them going from s->noise down to none over the runs
 * (parallel loops race most with the cores to themselves, preempted threads widen the
 * windows of narrow races); and the kernels' own stress mode (opt/cpu/omp_stress.h): in every
 * other run the dynamic loops of the kernels the stress stage runs take a random chunk of 1 to
 * 64 iterations, and in every run their threaded counting sorts pause at random points
 * between counting and scattering. Each run's perturbation is a function of (s->seed, the case string, the run's index), so a
 * replay with the same settings repeats the same perturbations (the OS's scheduling stays
 * its own). A race whose window is a few instructions wide may still pass every run: the
 * ThreadSanitizer stage (ci/tsan-omp.sh) is the check for those (docs/oracle.md, "Races"). */
typedef struct gnn_oracle_stress {
    int runs;      /* runs of each case (>= 1) */
    int noise;     /* noise threads at most (0: none) */
    uint64_t seed; /* seed of the perturbations */
} gnn_oracle_stress;

/* Thread counts of stress mode: 2, 4 and 8 (more threads than cores preempt each other). */
extern const int gnn_oracle_stress_thread_counts[];
extern const int gnn_oracle_n_stress_thread_counts;

/* runs; noise: one per online CPU; seed 1. */
void gnn_oracle_stress_init(gnn_oracle_stress *s, int runs);

/* Run case c s->runs times under stress (s NULL: once, as gnn_oracle_run). FAIL when a run
 * fails, when the outcome changes from run to run, or, for the exact comparators (bitwise,
 * canonical, verify), when a run's output digest differs from the first run's; r is then the
 * failing run's result, its detail starting with the run and its perturbation. Otherwise r is
 * the first run's result (SKIP and UNSUPPORTED stop after it). r->seconds: all runs. */
gnn_oracle_outcome gnn_oracle_run_stress(const gnn_oracle_case *c, const gnn_oracle_stress *s,
                                         gnn_oracle_result *r);

/* gnn_oracle_run_entry_threads with every case run by gnn_oracle_run_stress (s NULL: once);
 * thread_counts NULL: gnn_oracle_stress_thread_counts under stress. */
int gnn_oracle_run_entry_stress(const gnn_oracle_entry *e, const char *impl_name, int cases,
                                uint64_t seed, const int *thread_counts, int n_thread_counts,
                                const gnn_oracle_stress *s, gnn_oracle_visit visit, void *user,
                                int counts[GNN_ORACLE_OUTCOME_COUNT]);

/* gnn_oracle_run_entry_stress over the implementations `impls` (NULL-terminated) instead of
 * e->impls: the harness hook through which plugin implementations (gnn_plugin_impls_for)
 * run exactly as e's own. impl_name, thread counts and stress as there. */
int gnn_oracle_run_entry_impls(const gnn_oracle_entry *e, const gnn_oracle_impl *const *impls,
                               const char *impl_name, int cases, uint64_t seed, const int *thread_counts,
                               int n_thread_counts, const gnn_oracle_stress *s, gnn_oracle_visit visit,
                               void *user, int counts[GNN_ORACLE_OUTCOME_COUNT]);

/* ---- plugins (include/gnnref/plugin.h, docs/plugin.md) -------------------------------------
 * A plugin set holds loaded plugin libraries and the implementations they registered, each
 * wrapped as a gnn_oracle_impl (its name the table's, GNN_PLUGIN_THREADED as
 * GNN_ORACLE_THREADED). Nothing here prints; errors name the file. */
typedef struct gnn_plugin_set gnn_plugin_set;

gnn_status gnn_plugin_set_new(gnn_plugin_set **set);
/* Unload every plugin (dlclose) and free the set (NULL: nothing). */
void gnn_plugin_set_free(gnn_plugin_set *set);
/* Load the shared library at path (a name without '/' is taken in the current directory, not
 * searched for) and register its implementations into set. Errors, all naming the file, set
 * unchanged: GNN_ERR_IO no such file or not loadable (dlerror's text); GNN_ERR_FORMAT a
 * missing symbol (gnnref_plugin_register, gnnref_plugin_abi_version); GNN_ERR_UNSUPPORTED an
 * ABI version other than GNN_PLUGIN_ABI_VERSION (both versions named); GNN_ERR_INVAL the
 * registration failed: the function returned non-zero (with the plugin's reason), a table was
 * refused (NULL, bad or taken name, unknown kind or flags), or nothing was registered. */
gnn_status gnn_plugin_load(gnn_plugin_set *set, const char *path, gnn_err *err);
/* Implementations registered, and the i-th (0 <= i < count) with its kind and file. */
int gnn_plugin_count(const gnn_plugin_set *set);
const gnn_oracle_impl *gnn_plugin_impl(const gnn_plugin_set *set, int i, gnn_plugin_kind *kind, const char **path);
/* The file that registered impl, or NULL when impl is not one of set's. */
const char *gnn_plugin_path_of(const gnn_plugin_set *set, const gnn_oracle_impl *impl);
/* "aggregate", "index_add", "spmm", "quant" ("none"). */
const char *gnn_plugin_kind_name(gnn_plugin_kind kind);
/* The kind of table e runs (e->ops_kind, else oracle/plugin.c's table), GNN_PLUGIN_NONE when
 * e takes no plugin; never a kind whose reference table is not e->ref's ops. */
gnn_plugin_kind gnn_oracle_entry_kind(const gnn_oracle_entry *e);
/* The set's implementations that e runs, NULL-terminated (empty when none; set NULL: empty).
 * Valid until the next gnn_plugin_load or gnn_plugin_set_free. */
const gnn_oracle_impl *const *gnn_plugin_impls_for(const gnn_plugin_set *set, const gnn_oracle_entry *e);
/* gnn_oracle_case_parse that also knows set's implementations (impl=NAME of a plugin). */
gnn_status gnn_plugin_case_parse(const gnn_plugin_set *set, const char *s, gnn_oracle_case *c, gnn_err *err);

/* Set the OpenMP thread count (no-op without OpenMP); returns the previous count (1 without). */
int gnn_oracle_set_threads(int n);
/* 1 when this build has OpenMP. */
int gnn_oracle_have_openmp(void);

/* ---- writing entries: the per-case context ------------------------------------------------ */

/* Scratch memory freed after the case (64-byte aligned, zeroed). NULL when out of memory. */
void *gnn_oracle_alloc(gnn_oracle_ctx *ctx, size_t bytes);
/* An output buffer: guarded on both sides, filled with 0xFF bytes (a NaN for f32/f64 and -1
 * for integers) so elements an implementation forgets to write are caught. */
void *gnn_oracle_alloc_out(gnn_oracle_ctx *ctx, const char *name, size_t bytes);
/* Name given to a buffer of gnn_oracle_alloc_out in this case, or NULL when p is not one
 * (the comparators check the guards of the buffers that have them). */
const char *gnn_oracle_guarded_name(const gnn_oracle_ctx *ctx, const void *p);
/* A generated graph for a case, freed after it: gen 0 = R-MAT (Graph500 parameters, edge
 * factor ef), 1 = a 4-class SBM (expected degree ef, 70% inside the class); 2^scale vertices. */
gnn_oracle_outcome gnn_oracle_case_graph(gnn_oracle_ctx *ctx, int gen, int scale, int64_t ef, uint64_t seed,
                                         const gnn_csr **g);
/* The same graph into ds (the caller frees it with gnn_dataset_free), for code that runs a case
 * without an oracle context (the SPMD bodies of gnnref commcheck). */
gnn_status gnn_oracle_case_dataset(gnn_dataset *ds, int gen, int scale, int64_t ef, uint64_t seed, gnn_err *err);
/* A part vector for a case of the distributed entries (distagg, dsample): method 0 random,
 * 1 range, 2 hash, 3 METIS (gnn_partition_assign with seed), 4 range over k - 1 parts (the last
 * rank owns nothing), 5 every vertex on rank 0 (no cut edge). part: (g->n). GNN_ERR_INVAL when
 * k exceeds the vertices (methods 0-3). METIS 5.1 is not thread-safe: callers that may run at
 * once serialize it. */
gnn_status gnn_oracle_case_parts(const gnn_csr *g, int method, int64_t k, uint64_t seed, int32_t *part, gnn_err *err);
/* A directed multigraph from g for a case (the partition and plan entries' directed=1; draws
 * of stream 5), freed after it: each in-edge dropped with probability 1/4, row v % 7 == 3
 * repeats its first remaining in-edge at the end, row v % 5 == 0 ends with v. */
gnn_status gnn_oracle_case_multigraph(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, const gnn_csr *g, gnn_csr *out);
/* gnn_oracle_case_graph, then, when multi, gnn_oracle_case_multigraph of it (repeated edges and
 * self-loops): the graphs of the sampling entries with a `dup` parameter. */
gnn_oracle_outcome gnn_oracle_case_graph_multi(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int gen, int scale,
                                               int64_t ef, uint64_t seed, int multi, const gnn_csr **g);
/* Run fn(p) after the case (for structures the kernels allocate: blocks, sampled lists). */
void gnn_oracle_defer(gnn_oracle_ctx *ctx, void (*fn)(void *), void *p);

/* Detail text. fail/skip/unsupported append a line and return their outcome. */
gnn_oracle_outcome gnn_oracle_fail(gnn_oracle_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
gnn_oracle_outcome gnn_oracle_skip(gnn_oracle_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void gnn_oracle_note(gnn_oracle_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Turn a kernel's status into an outcome: OK -> PASS, UNSUPPORTED -> UNSUPPORTED, else FAIL
 * naming `who` ("ref.forward", "impl.backward"). */
gnn_oracle_outcome gnn_oracle_status(gnn_oracle_ctx *ctx, const char *who, gnn_status s);
/* Fold bytes of the implementation's output into the case digest. */
void gnn_oracle_digest(gnn_oracle_ctx *ctx, const void *p, size_t bytes);
/* Tolerance of the case: gnn_oracle_tol_of(its entry, its implementation). */
const gnn_oracle_tol *gnn_oracle_ctx_tol(const gnn_oracle_ctx *ctx);
/* Combine outcomes: FAIL > UNSUPPORTED > SKIP > PASS. */
gnn_oracle_outcome gnn_oracle_worst(gnn_oracle_outcome a, gnn_oracle_outcome b);

/* Comparators over arrays of count elements, `cols` per row (for [row,col] in messages;
 * 0 = flat). ref and impl should come from gnn_oracle_alloc_out (their guards are checked
 * first). tol NULL = the entry's tolerance. Failures append the first mismatches. */
gnn_oracle_outcome gnn_oracle_compare_f32(gnn_oracle_ctx *ctx, const gnn_oracle_tol *tol,
                                          const char *name, const float *ref, const float *impl,
                                          int64_t count, int64_t cols);
gnn_oracle_outcome gnn_oracle_compare_f64(gnn_oracle_ctx *ctx, const gnn_oracle_tol *tol,
                                          const char *name, const double *ref,
                                          const double *impl, int64_t count, int64_t cols);
/* Integer arrays: always bitwise (elem_size 4 or 8, signed). */
gnn_oracle_outcome gnn_oracle_compare_int(gnn_oracle_ctx *ctx, const char *name, const void *ref,
                                          const void *impl, int64_t count, size_t elem_size);
/* Blocks: GNN_CMP_BITWISE compares every array; GNN_CMP_CANONICAL relabels both first. */
gnn_oracle_outcome gnn_oracle_compare_block(gnn_oracle_ctx *ctx, gnn_oracle_cmp cmp,
                                            const char *name, const gnn_block *ref,
                                            const gnn_block *impl);
/* Multi-layer blocks in DGL order (blocks[L-1] has the seeds as dst). The impl's chain is
 * checked first: the top block's dst are the seeds in order, and each block's dst are the src
 * of the block above, in that block's order. Then every layer is compared: GNN_CMP_BITWISE
 * every array; GNN_CMP_CANONICAL after gnn_oracle_block_canonical_all on both sides (an
 * unordered ID map's src order becomes the dst order of the layer below, so there the dst
 * are relabelled too). */
gnn_oracle_outcome gnn_oracle_compare_blocks(gnn_oracle_ctx *ctx, gnn_oracle_cmp cmp, const char *name,
                                             const int64_t *seeds, int64_t n_seeds, const gnn_block *ref,
                                             const gnn_block *impl, int L);
/* ID map outputs (include/gnnref/idmap.h): local (nnz), src_gid (n_src), n_src.
 * GNN_CMP_BITWISE: identical n_src, local and src_gid. GNN_CMP_CANONICAL: each side must be a
 * bijection (every local id in [0, n_src), every new id >= n_dst used by some neighbor,
 * distinct global ids) and is relabelled to first-appearance order (dst keep 0..n_dst-1,
 * new ids numbered as they first occur in local[]); then bitwise. */
gnn_oracle_outcome gnn_oracle_compare_idmap(gnn_oracle_ctx *ctx, gnn_oracle_cmp cmp, const char *name,
                                            int64_t n_dst, int64_t nnz, const int32_t *ref_local,
                                            const int64_t *ref_src_gid, int64_t ref_n_src,
                                            const int32_t *impl_local, const int64_t *impl_src_gid,
                                            int64_t impl_n_src);
/* Chi-square: FAIL when the p-value of statistic x2 with dof degrees of freedom < alpha. */
gnn_oracle_outcome gnn_oracle_chisq_check(gnn_oracle_ctx *ctx, const char *name, double x2,
                                          double dof, double alpha);

/* ---- comparator building blocks (also used by the self-tests) ---------------------------- */

#define GNN_GUARD_BYTES 64

/* Guarded allocation: GNN_GUARD_BYTES of a position-dependent sentinel pattern before and
 * after a 64-byte aligned payload of `bytes` bytes (the trailing guard starts right at
 * payload + bytes, so a write one element past the end is caught). The payload is filled
 * with `fill`. */
void *gnn_guard_alloc(size_t bytes, int fill);
/* GNN_OK when both guards are intact; GNN_ERR_MISMATCH with a message naming the side and
 * the first changed offset otherwise. */
gnn_status gnn_guard_check(const void *payload, char *msg, size_t msg_len);
void gnn_guard_free(void *payload);

/* Distance in units in the last place between two finite floats (0 for +0 / -0). */
int64_t gnn_oracle_ulp_f32(float a, float b);

/* Canonical relabel of a block: dst vertices keep their positions; the other src vertices
 * are renumbered in ascending global id; edges keep their order (indices remapped). out is
 * allocated (gnn_block_free). Used for ID maps whose order is inherently unordered. */
gnn_status gnn_oracle_block_canonical(const gnn_block *in, gnn_block *out);

/* The same, with the dst relabelled too: dst in ascending global id take local ids
 * 0..n_dst-1 (their rows move with them, each row's edges in their order), then the other
 * src in ascending global id. For the lower layers of a multi-layer sample with an unordered
 * ID map, whose dst order is the unordered src order of the layer above. */
gnn_status gnn_oracle_block_canonical_all(const gnn_block *in, gnn_block *out);

/* Regularized upper incomplete gamma Q(a, x) = Gamma(a, x) / Gamma(a), a > 0, x >= 0. */
double gnn_oracle_gamma_q(double a, double x);
/* P(X >= x2) for X ~ chi-square(dof): Q(dof / 2, x2 / 2). */
double gnn_oracle_chisq_pvalue(double x2, double dof);

/* ---- writing entries: case data from the GNN_TAG_ORACLE streams ---------------------------- */

/* A sequence of draws from stream (case seed, GNN_TAG_ORACLE, step 0, layer 0, id = stream).
 * Entries use one stream id per input array so inputs do not shift when another changes. */
typedef struct gnn_oracle_draws {
    gnn_rng_stream s;
    uint64_t i; /* next draw index */
} gnn_oracle_draws;

gnn_oracle_draws gnn_oracle_draws_make(const gnn_oracle_case *c, uint64_t stream);
uint64_t gnn_oracle_draw_uint(gnn_oracle_draws *d, uint64_t n);          /* [0, n) */
int64_t gnn_oracle_draw_range(gnn_oracle_draws *d, int64_t lo, int64_t hi); /* [lo, hi] */
float gnn_oracle_draw_float(gnn_oracle_draws *d);                         /* [0, 1) */
/* Values with spread exponents, (2u - 1) * 2^e, e in [-6, 6]: sums of these round
 * differently in a different order, so a changed summation order shows up bitwise. */
void gnn_oracle_fill_spread(gnn_oracle_draws *d, float *x, int64_t count);
/* Dyadic values k / 2^shift, k in [-kmax, kmax]: sums and products of a few of these are
 * exact in f32, which is what makes the gradient checks' finite differences exact. */
void gnn_oracle_fill_dyadic(gnn_oracle_draws *d, float *x, int64_t count, int kmax, int shift);

/* Edge inputs the random generators reach only by chance (oracle/case.c):
 * gnn_oracle_block_zero_rows empties rows of b (their edges are removed, the rest keep their
 * order): `where` bit 1 the first `run` rows, bit 2 `run` rows in the middle, bit 4 the last
 * `run` rows -- the degree-0 rows at the start, middle and end of the dst range that a kernel
 * splitting rows by nonzeros must still write.
 * gnn_oracle_tie_threshold returns the smallest float draw >= p among the keyed draws
 * (seed, tag, step, layer, id = ids[i] or i) j < cols (row_cols[i] when given) of rows
 * i < rows, or p when there is none: used as the threshold, one draw equals it exactly, and
 * the keep rule "u >= p" (DESIGN.md section 2) must keep that element; the rate stays ~p. */
void gnn_oracle_block_zero_rows(gnn_block *b, unsigned where, int64_t run);
/* In-place updates for the caches keyed by a version (docs/oracle.md, "Caches keyed by a
 * version"): gnn_oracle_weights_keep marks in keep[at[i]] (i < nnz; at NULL: at[i] = i) the
 * positions the cpu sampler's weights table probes for its fingerprint in an array of nnz
 * weights whose element i is w[at[i]] (opt/cpu/sample_wtable.h); gnn_oracle_weights_rewrite
 * then rewrites every other weight of w in place, keyed by (seed, round): a positive weight
 * becomes 0 with probability 1/4, else a new value; a zero one becomes positive with probability
 * 1/2. What the cache keeps per row (positive counts, prefix sums) changes while its fingerprint
 * does not: only a new weights_version tells it. */
void gnn_oracle_weights_keep(uint8_t *keep, const int64_t *at, int64_t nnz);
void gnn_oracle_weights_rewrite(float *w, const uint8_t *keep, int64_t n, uint64_t seed, unsigned round);
float gnn_oracle_tie_threshold(uint64_t seed, unsigned tag, uint32_t step, unsigned layer, const int64_t *ids,
                               int64_t rows, const int64_t *row_cols, int64_t cols, float p);

/* A random block (free with gnn_block_free): n_dst dst, n_src >= n_dst src (global id of
 * local u is 3u + 1), degree of each dst uniform in [deg_lo, deg_hi] (0 when n_src == 0),
 * each edge's src uniform in [0, n_src) (repeats allowed, as with sampling with replacement). */
gnn_status gnn_oracle_random_block(gnn_oracle_draws *d, int64_t n_dst, int64_t n_src,
                                   int64_t deg_lo, int64_t deg_hi, gnn_block *b);
/* The same, owned by the case: freed after it. *b receives a pointer into the context. */
gnn_status gnn_oracle_case_block(gnn_oracle_ctx *ctx, gnn_oracle_draws *d, int64_t n_dst,
                                 int64_t n_src, int64_t deg_lo, int64_t deg_hi, gnn_block **b);

#ifdef __cplusplus
}
#endif
#endif
