/* include/gnnref/partition.h -- graph partitioning for distributed training (docs/partitioning.md).
 *
 * Two steps, as in DistDGL and DistGNN-MB:
 *
 * 1. A part vector: part[v] in [0, K) names the rank that OWNS vertex v. Methods:
 *      metis   METIS_PartGraphKway (METIS 5, Debian's libmetis with 32-bit idx_t) on the
 *              symmetrized graph without self-loops, minimizing the edge cut under one balance
 *              constraint per vertex-weight column (multi-constraint, ncon >= 1, vwgt row-major
 *              n x ncon, as DistDGL's metis_partition_assignment builds it);
 *      range   contiguous id ranges: part p owns [floor(p n / K), floor((p + 1) n / K));
 *      hash    part[v] = fmix64(v) mod K, with MurmurHash3's 64-bit finalizer
 *              x ^= x >> 33; x *= 0xff51afd7ed558ccd; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53;
 *              x ^= x >> 33 (independent of the seed);
 *      random  part[v] = integer draw 0 in [0, K) of stream (seed, GNN_TAG_PARTITION, step 0,
 *              layer 0, id v) (DESIGN.md section 2): uniform, deterministic, any thread count;
 *      ldg     linear deterministic greedy streaming (Stanton and Kliot, KDD 2012), memory
 *              O(n + K) beyond the graph: vertices in id order, in batches of GNN_LDG_BATCH;
 *              vertex v goes to the part i that maximises |N(v) in P_i| (1 - fill(i)) among
 *              the parts that can take its weights, N(v) its row's sources in earlier batches,
 *              fill(i) = max over columns c of load_c(i) / C_c with capacity C_c = (1 +
 *              ufactor / 1000) W_c / K; no positive score: the part v fills least,
 *              max_c (load_c(i) + w_c(v)) / C_c. Ties of the score: lower fill, then lower
 *              index; of the fallback: lower index. The rule in full: docs/partitioning.md section 2.5;
 *              gnn_partition_ops.ldg computes it (ref: serially; cpu: each batch's neighbor
 *              counts in parallel, bit for bit the same).
 *    Balance constraints (vertex-weight columns, always in this order whatever order they are
 *    listed in): train, val, test (weight 1 when the vertex is in that split, else 0), degree
 *    (the vertex's in-degree in the stored CSR: the number of in-edges its owner stores) and
 *    types (heterogeneous graphs, DistDGLv2 4.1.3: one column per vertex type t = 0..T-1, weight
 *    1 in column t for a vertex of type t, else 0; the types come from gnn_part_options.vtype).
 *    With no constraint, one column of unit weights ("vertices"). METIS balances the weights the
 *    vertex weights give; the other methods ignore them (their quality is still measured with
 *    the same columns). At most GNN_PART_MAX_CON columns in all.
 *
 * 2. The partition structure (DistGNN-MB section 3.1), for every rank p:
 *      solid vertices  the vertices p owns, in increasing global id;
 *      halo vertices   in-neighbors of p's solid vertices owned by another rank, in increasing
 *                      global id (they carry no features locally);
 *      local ids (VID_p) solid first [0, n_solid), then halo [n_solid, n_solid + n_halo);
 *      local CSR       in-edges (gnn_csr orientation: row = dst), rows = local ids; a solid row
 *                      holds its vertex's global in-edges in the original CSR order, mapped to
 *                      local ids; halo rows are empty;
 *      vid_o           local -> global (VID_p -> VID_o);
 *      vid_p           global -> local, -1 where the vertex is neither solid nor halo on p;
 *      halo_owner      owner rank of each halo; halo_owner_local: its local id on that owner;
 *      train/val/test  p's solid vertices in each split (local ids, increasing).
 *    The third id space, VID_b (a mini-batch's block-local ids), is gnn_block's (graph.h).
 *    gnn_partition_ref builds it serially (ref/partition.c, the specification);
 *    gnn_partition_cpu in parallel with OpenMP (opt/cpu/partition.c), bit for bit the same;
 *    both through gnn_partition_build, which checks the arguments once.
 *
 * Library code: returns gnn_status with a message in gnn_err; never prints (METIS itself may
 * print to stdout on internal errors: that is METIS's, not ours). */
#ifndef GNNREF_PARTITION_H
#define GNNREF_PARTITION_H

#include <stdint.h>
#include "gnnref/dataset.h"
#include "gnnref/graph.h"
#include "gnnref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- part vectors -------------------------------------------------------------------------- */

typedef enum gnn_part_method {
    GNN_PART_METIS = 0,
    GNN_PART_RANGE = 1,
    GNN_PART_HASH = 2,
    GNN_PART_RANDOM = 3,
    GNN_PART_LDG = 4,
    GNN_PART_METHOD_COUNT
} gnn_part_method;

/* "metis", "range", "hash", "random", "ldg". */
const char *gnn_part_method_name(gnn_part_method m);
/* GNN_ERR_INVAL for an unknown name. */
gnn_status gnn_part_method_parse(const char *name, gnn_part_method *m);

/* Balance constraints (bits of gnn_part_options.balance). */
enum {
    GNN_BALANCE_TRAIN = 1u << 0,
    GNN_BALANCE_VAL = 1u << 1,
    GNN_BALANCE_TEST = 1u << 2,
    GNN_BALANCE_DEGREE = 1u << 3,
    GNN_BALANCE_ALL = 0xfu,      /* the four columns every dataset can give (graph and split) */
    GNN_BALANCE_TYPES = 1u << 4, /* one column per vertex type (gnn_part_options.vtype) */
    GNN_BALANCE_KNOWN = 0x1fu    /* every bit with a meaning */
};
#define GNN_BALANCE_NAMES 5 /* bits with a name: train, val, test, degree, types */
/* Weight columns at most (the fixed arrays of gnn_part_info and gnn_part_quality). 16 holds
 * DistDGLv2's settings with room: ogbn-mag's 4 vertex types + train, val, test and degree is
 * 8. METIS itself takes any ncon; what it costs is time and balance quality, which degrade as
 * constraints are added. Was 4 before the type columns. */
#define GNN_PART_MAX_CON 16
/* con[c] of the column of vertex type t (0 <= t < GNN_PART_MAX_CON): the types bit with t + 1
 * above the named bits, so that it differs from the bare bit (which names the whole group). */
#define GNN_PART_CON_TYPE(t) (GNN_BALANCE_TYPES | (((unsigned)(t) + 1u) << 8))
#define GNN_PART_CON_IS_TYPE(c) (((c) & 0xffu) == GNN_BALANCE_TYPES && ((c) >> 8) > 0)
#define GNN_PART_CON_TYPE_OF(c) ((int)((c) >> 8) - 1)

/* "train", "val", "test", "degree", "types" for one bit; "vertices" for 0 (the unit column);
 * "type0", "type1", ... for GNN_PART_CON_TYPE(t); "?" for anything else. */
const char *gnn_part_constraint_name(unsigned bit);
/* Parse a comma-separated list ("train,degree", "train,types"); an unknown or repeated name,
 * or an empty list, is GNN_ERR_INVAL with a message naming it. */
gnn_status gnn_part_balance_parse(const char *list, unsigned *balance, gnn_err *err);

/* The vertex-weight columns of `balance`: *ncon columns (1 when balance == 0), con[c] the
 * GNN_BALANCE_* bit of column c (0 for the unit column, GNN_PART_CON_TYPE(t) for type t's),
 * vwgt n x ncon row-major (freed with gnn_free). split may be NULL only when balance has no
 * split constraint; vtype (n values in [0, num_vtypes), any order) only when it has no types.
 * A constraint whose total weight is 0 (no vertex in that split; no edges for degree; no
 * vertex of that type) is GNN_ERR_INVAL: METIS cannot balance it and imbalance is undefined.
 * More than GNN_PART_MAX_CON columns (the named ones plus num_vtypes) is GNN_ERR_INVAL; a
 * vtype outside [0, num_vtypes) is GNN_ERR_RANGE. */
gnn_status gnn_partition_weights_typed(const gnn_csr *g, const uint8_t *split, const int32_t *vtype,
                                       int64_t num_vtypes, unsigned balance, int64_t **vwgt, int *ncon,
                                       unsigned con[GNN_PART_MAX_CON], gnn_err *err);
/* The same without vertex types (GNN_BALANCE_TYPES is then an error). */
gnn_status gnn_partition_weights(const gnn_csr *g, const uint8_t *split, unsigned balance, int64_t **vwgt,
                                 int *ncon, unsigned con[GNN_PART_MAX_CON], gnn_err *err);

#define GNN_METIS_DEFAULT_UFACTOR 30 /* METIS's own k-way default: 1.030 */
#define GNN_LDG_BATCH 1024           /* ldg: vertices whose neighbors are counted together */

typedef struct gnn_part_options {
    gnn_part_method method;
    int64_t k;        /* parts, 1 <= k <= n */
    uint64_t seed;    /* random: the Philox key; metis: METIS_OPTION_SEED = seed mod 2^31 */
    unsigned balance; /* GNN_BALANCE_* bits; 0: one column of unit weights */
    int ufactor;      /* metis: METIS_OPTION_UFACTOR, allowed imbalance 1 + ufactor / 1000 per
                         constraint; ldg: the capacity's slack, the same 1 + ufactor / 1000;
                         gnn_part_defaults sets GNN_METIS_DEFAULT_UFACTOR */
    int64_t trainers; /* two-level partitioning (DistDGLv2 4.1.2): trainers per part, >= 1; with
                         T > 1 the method splits the graph into k * T sub-parts s, and
                         part = s / T (coalesced: the T consecutive sub-parts of a machine),
                         trainer = s mod T. 1: one level (trainer 0 everywhere) */
    const int32_t *vtype; /* GNN_BALANCE_TYPES: each vertex's type in [0, num_vtypes) (not owned;
                             gnn_dataset.vtype); NULL otherwise */
    int64_t num_vtypes;
    const struct gnn_partition_ops *ops; /* ldg: the implementation that streams (the context's
                                            `partition` table, impl.h); required for ldg */
} gnn_part_options;

void gnn_part_defaults(gnn_part_options *o); /* metis, k = 2, seed 1, no balance, ufactor 30, trainers 1,
                                                no vertex types */

/* What was done, for reports and manifests. METIS options are listed by name with the value
 * passed in METIS's options array (-1 = METIS's own default). */
#define GNN_PART_MAX_OPTS 16
typedef struct gnn_part_info {
    gnn_part_method method;
    int64_t k;
    uint64_t seed;
    int ncon;
    unsigned con[GNN_PART_MAX_CON]; /* GNN_BALANCE_* bit of each weight column (0: unit) */
    int metis_called;               /* 0 for the other methods and for k = 1 */
    char metis_version[16];         /* "5.1.0" */
    int n_opts;
    struct {
        const char *name; /* "seed", "ufactor", "objtype", ... */
        int value;
    } opts[GNN_PART_MAX_OPTS];
    int64_t metis_objval;      /* the edge cut METIS reported */
    int64_t metis_vertices;    /* nvtxs given to METIS */
    int64_t metis_adjacency;   /* adjacency entries given to METIS (2 x undirected edges) */
} gnn_part_info;

/* Compute part (n entries) for g with options o. split may be NULL unless a split constraint
 * is requested. Errors: k < 1 or k > n: GNN_ERR_INVAL; for metis, n or the adjacency or a
 * weight total beyond 32-bit idx_t: GNN_ERR_RANGE ("too large for this METIS build"); METIS
 * returning an error: GNN_ERR_INTERNAL (METIS_ERROR_MEMORY: GNN_ERR_NOMEM) with its code.
 * k = 1 gives all zeros without calling METIS. info may be NULL. */
gnn_status gnn_partition_assign(const gnn_csr *g, const uint8_t *split, const gnn_part_options *o, int32_t *part,
                                gnn_part_info *info, gnn_err *err);
/* The same, two-level: also writes trainer[v] in [0, o->trainers) (trainer may be NULL). With
 * T = o->trainers > 1 the method runs with k * T parts (k * T <= n, else GNN_ERR_INVAL) and the
 * result is coalesced: part = sub / T, trainer = sub mod T. info->k is then k * T. */
gnn_status gnn_partition_assign2(const gnn_csr *g, const uint8_t *split, const gnn_part_options *o, int32_t *part,
                                 int32_t *trainer, gnn_part_info *info, gnn_err *err);

/* The symmetrized graph METIS sees: g plus reversed edges, deduplicated, self-loops dropped. */
gnn_status gnn_partition_symmetrize(const gnn_csr *g, gnn_csr *sym, gnn_err *err);

/* ---- quality ------------------------------------------------------------------------------- */

typedef struct gnn_part_quality {
    int64_t n, k;
    int64_t edges;    /* undirected edges {u, v}, u != v, of the symmetrized graph */
    int64_t edge_cut; /* those with part[u] != part[v], each counted once */
    int ncon;
    unsigned con[GNN_PART_MAX_CON];
    double imbalance[GNN_PART_MAX_CON]; /* per column: max_p W[p][c] / (sum_p W[p][c] / k) */
    double vertex_imbalance;            /* the same for vertex counts (whatever the columns) */
    int64_t *solid;  /* (k) vertices owned */
    int64_t *halo;   /* (k) halo vertices (in-neighbors of solid vertices owned elsewhere) */
    int64_t *weight; /* (k x ncon) row-major: W[p][c] */
    int64_t halo_total;   /* sum of halo */
    double halo_fraction; /* halo_total / (n + halo_total): the share of all local vertices,
                             over all parts, that are halo copies (0 when n = 0) */
} gnn_part_quality;

/* Quality of part (values in [0, k), else GNN_ERR_RANGE) on g with the columns of balance. */
gnn_status gnn_partition_quality(const gnn_csr *g, const uint8_t *split, const int32_t *part, int64_t k,
                                 unsigned balance, gnn_part_quality *q, gnn_err *err);
/* The same with vertex types, for GNN_BALANCE_TYPES (gnn_partition_weights_typed's rules). */
gnn_status gnn_partition_quality_typed(const gnn_csr *g, const uint8_t *split, const int32_t *vtype,
                                       int64_t num_vtypes, const int32_t *part, int64_t k, unsigned balance,
                                       gnn_part_quality *q, gnn_err *err);
void gnn_part_quality_free(gnn_part_quality *q);

/* ---- the partition structure (DistGNN-MB section 3.1) -------------------------------------- */

typedef struct gnn_part_local {
    int64_t rank;
    int64_t n_solid, n_halo;    /* graph.n = n_solid + n_halo */
    gnn_csr graph;              /* local in-edge CSR over local ids; halo rows empty */
    int64_t *vid_o;             /* (n_solid + n_halo) local -> global */
    int64_t *vid_p;             /* (n global) global -> local, or -1 */
    int32_t *halo_owner;        /* (n_halo) owner rank of halo local id n_solid + i */
    int64_t *halo_owner_local;  /* (n_halo) local id of that vertex on its owner */
    int64_t n_train, n_val, n_test;
    int64_t *train, *val, *test; /* local ids of the solid vertices in each split, increasing */
    int64_t trainers;            /* T (1 when the partition is one-level) */
    int32_t *trainer;            /* (n_solid) trainer of each solid vertex, or NULL when T = 1 */
} gnn_part_local;

typedef struct gnn_partition {
    int64_t n;             /* global vertices */
    int64_t k;             /* ranks (parts); parts may be empty */
    int32_t *part;         /* (n) a copy of the part vector */
    gnn_part_local *parts; /* (k) */
    int64_t trainers;      /* T; 1 unless gnn_partition_set_trainers gave more */
    int32_t *trainer;      /* (n) a copy of the trainer vector, or NULL when T = 1 */
} gnn_partition;

/* An implementation: build with arguments gnn_partition_build has checked (*out zeroed). On
 * error it leaves *out empty. Which table a program uses is chosen by the implementation
 * context (impl.h: its `partition` field). */
typedef struct gnn_partition_ops {
    const char *name; /* "ref", "cpu" */
    gnn_status (*build)(gnn_partition *out, const gnn_csr *g, const uint8_t *split, const int32_t *part,
                        int64_t k, gnn_err *err);
    /* The ldg part vector (the method above) with arguments gnn_partition_assign has checked:
     * vwgt n x ncon row-major with every column's total > 0, 2 <= k <= n, ufactor in [1, 1e6].
     * GNN_ERR_NOMEM only. */
    gnn_status (*ldg)(const gnn_csr *g, const int64_t *vwgt, int ncon, int64_t k, int ufactor, int32_t *part);
} gnn_partition_ops;

extern const gnn_partition_ops gnn_partition_ref, gnn_partition_cpu;

/* Build the structure with ops (the checked entry point, core/dist/partition.c) from g (in-edge
 * CSR), an optional split (n entries, GNN_SPLIT_*) and a part vector with values in [0, k).
 * k >= 1 (parts may be empty, k may exceed n). Errors, each with a message: GNN_ERR_INVAL
 * (NULL out, ops or g; k < 1 or beyond int32; no part vector), GNN_ERR_RANGE (a part value
 * outside [0, k), naming the first such vertex), GNN_ERR_NOMEM. On error *out is left empty
 * (gnn_partition_free is safe). */
gnn_status gnn_partition_build(const gnn_partition_ops *ops, gnn_partition *out, const gnn_csr *g,
                               const uint8_t *split, const int32_t *part, int64_t k, gnn_err *err);
void gnn_partition_free(gnn_partition *p);

/* Two-level partitioning: attach a trainer vector (n entries in [0, T)) to a built partition:
 * p->trainer and every part's trainer[] (trainer of each solid vertex). T = 1 clears them.
 * GNN_ERR_RANGE for a value outside [0, T). */
gnn_status gnn_partition_set_trainers(gnn_partition *p, const int32_t *trainer, int64_t trainers, gnn_err *err);

/* The training seeds of trainer t of a part: the local ids of its train vertices whose trainer
 * is t, increasing (all of L->train when T = 1 and t = 0). *seeds is allocated (gnn_free). */
gnn_status gnn_part_trainer_seeds(const gnn_part_local *L, int64_t t, int64_t **seeds, int64_t *count, gnn_err *err);

/* VID_b -> VID_o for a mini-batch block sampled on a part's local graph (its src_gid are
 * VID_p ids): vid_o[i] = L->vid_o[b->src_gid[i]] for the n_src sources, is_halo[i] (optional)
 * = 1 when the source is a halo (VID_p >= n_solid: DistGNN-MB's findHaloNodes), *n_halo
 * (optional) their count. GNN_ERR_RANGE for a src_gid outside [0, n_solid + n_halo). */
gnn_status gnn_part_block_ids(const gnn_part_local *L, const gnn_block *b, int64_t *vid_o, uint8_t *is_halo,
                              int64_t *n_halo, gnn_err *err);

/* ---- partition sets on disk (docs/partitioning.md "Files", docs/formats.md) ----------------
 *
 * A partition set is a directory:
 *   manifest.json        the set: format, set_id, the dataset's counts and graph CRC, k,
 *                        trainers, how it was made (method, seed, balance, ufactor, split,
 *                        METIS options), its quality, and for every part its file name, size and
 *                        CRC32C of the whole file; the last field, manifest_crc32c, is the CRC32C
 *                        of the file with that field's 8 hex digits read as "00000000"
 *   part-00000.gnn ...   one native-format file per part (docs/formats.md): the local graph
 *                        (solid then halo rows, halo rows empty), labels (-1 on halos), split
 *                        (0 on halos), no native features section, and extension sections
 *                        vid_o (i64, local -> global), halo (i64 pairs: owner, owner-local id,
 *                        per halo), trainer (i32 per solid; only when T > 1), feat (f32, the
 *                        n_solid x f features of the solid vertices: a part stores none for its
 *                        halos) and partmeta (16 x i64: GNN_PARTMETA_*).
 * Loading checks the manifest's own CRC, then every file it reads: its native-format header
 * and section CRCs, its whole-file CRC32C and size against the manifest, its partmeta against
 * the manifest (set, rank, k, trainers, counts) and the id tables' structure. Any failure is
 * GNN_ERR_CHECKSUM / GNN_ERR_FORMAT with a message that starts with the file's path. */
enum {
    GNN_PARTMETA_VERSION = 0, /* 1 */
    GNN_PARTMETA_SET_ID = 1,  /* the set's fingerprint (as int64 bits) */
    GNN_PARTMETA_RANK = 2,
    GNN_PARTMETA_K = 3,
    GNN_PARTMETA_TRAINERS = 4,
    GNN_PARTMETA_N = 5,       /* global vertices */
    GNN_PARTMETA_NNZ = 6,     /* global CSR entries */
    GNN_PARTMETA_N_SOLID = 7,
    GNN_PARTMETA_N_HALO = 8,
    GNN_PARTMETA_F = 9,       /* feature width of the feat section (0: no features) */
    GNN_PARTMETA_COUNT = 16
};

/* What a manifest records besides the structure. */
typedef struct gnn_part_manifest {
    uint64_t set_id;             /* fingerprint of (graph CRC, part vector, trainer vector) */
    char dataset[64];            /* the dataset's name */
    int64_t n, nnz, num_features, num_classes;
    uint32_t graph_crc;          /* CRC32C of the global indptr then indices bytes */
    int64_t k, trainers;
    gnn_part_method method;
    uint64_t seed;
    unsigned balance;
    int ufactor;
    int have_split;
    double split[3];             /* the --split fractions when have_split */
    int64_t edge_cut;            /* -1 when not recorded */
} gnn_part_manifest;

/* The set's fingerprint: CRC32C(part) << 32 | CRC32C(trainer or nothing, seeded with graph_crc). */
uint64_t gnn_partition_set_id(const gnn_partition *p, uint32_t graph_crc);
/* CRC32C of g's indptr bytes followed by its indices bytes. */
uint32_t gnn_graph_crc(const gnn_csr *g);

/* Write the set for p, built from ds (its graph, features, labels and split) into dir (created
 * when absent; existing part files and manifest are replaced, each written to a temporary name
 * first and renamed). m supplies the provenance fields (method, seed, balance, ufactor, split,
 * edge_cut); its counts, k, trainers, graph_crc and set_id are filled in here (m may be NULL). */
gnn_status gnn_partition_save(const char *dir, const gnn_partition *p, const gnn_dataset *ds,
                              const gnn_part_manifest *m, gnn_err *err);

/* Read dir/manifest.json (checked) into *m. */
gnn_status gnn_partition_manifest_load(const char *dir, gnn_part_manifest *m, gnn_err *err);

/* Load one part, as a rank does: *L gets its own copies of the structure (vid_p allocated with
 * the global n entries), *local (optional, may be NULL) the part's mapped native file (local
 * graph, labels, split, and the solid features through gnn_part_features: read-only). m may be
 * NULL. */
gnn_status gnn_partition_load_part(const char *dir, int64_t rank, gnn_part_local *L, gnn_dataset *local,
                                   gnn_part_manifest *m, gnn_err *err);
void gnn_part_local_free(gnn_part_local *L);
/* The solid vertices' features of a loaded part file: n_solid x *f row-major (row l = local id
 * l), read-only; NULL with *f = 0 when the set has no features or local is not a part file. */
const float *gnn_part_features(const gnn_dataset *local, int64_t *f);

/* Load the whole set: *p bitwise equal to the structure that was saved, and (optional) *g the
 * global graph rebuilt from the parts' solid rows (every vertex's in-edges live at its owner),
 * checked against the manifest's graph CRC. */
gnn_status gnn_partition_load(const char *dir, gnn_partition *p, gnn_csr *g, gnn_part_manifest *m, gnn_err *err);

/* Bitwise equality of two structures (for reload checks and tests): GNN_OK, or
 * GNN_ERR_MISMATCH naming the first differing field, part and index. */
gnn_status gnn_partition_compare(const gnn_partition *a, const gnn_partition *b, gnn_err *err);

/* The oracle's property checker (oracle/op_partition.c, entry partition.verify), written as a
 * different algorithm from both builders (sorting pairs and triples instead of marking):
 * every vertex owned exactly once, by part[v], solid in increasing order; halo sets exactly
 * the cut in-neighbors, in increasing order; local edges = the global edges whose dst the part
 * owns, as a multiset, halo rows empty; vid_o and vid_p inverse to each other and -1
 * elsewhere; halo owners and owner-local ids right; train/val/test lists exactly each part's
 * solid vertices of that split. GNN_OK, or GNN_ERR_MISMATCH with the first violation. */
gnn_status gnn_partition_verify(const gnn_partition *p, const gnn_csr *g, const uint8_t *split, const int32_t *part,
                                int64_t k, gnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
