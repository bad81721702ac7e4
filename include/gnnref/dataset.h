/* include/gnnref/dataset.h -- graphs with features, labels and splits; file formats; generators.
 *
 * The native format (DESIGN.md section 5, docs/formats.md) is one little-endian binary file per
 * graph: a header with magic, version and counts, then sections (indptr int64, indices int64,
 * features f32, labels i32, split u8), each with its own CRC32C, 64-byte aligned so that
 * gnn_dataset_load can mmap the file and point into it without copying. */
#ifndef GNNREF_DATASET_H
#define GNNREF_DATASET_H

#include <stdint.h>
#include <stddef.h>
#include "gnnref/graph.h"
#include "gnnref/spmm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* split[v] values */
enum { GNN_SPLIT_NONE = 0, GNN_SPLIT_TRAIN = 1, GNN_SPLIT_VAL = 2, GNN_SPLIT_TEST = 3 };

/* What an importer or generator did to the edges it read, so that nothing is dropped
 * silently: `gnnref info` prints these, and the binary format stores them in its header. */
typedef struct gnn_import_stats {
    int64_t edges_read;         /* edge records read (lines, CSV rows, generated edges) */
    int64_t self_loops_dropped; /* records u -> u removed (edge lists, generators) */
    int64_t duplicates_merged;  /* CSR entries removed by deduplication, counted after
                                   symmetrization where the source is symmetrized */
    int64_t symmetrized;        /* 1: reverse edges were added (OGB, edge lists, generators) */
} gnn_import_stats;

/* An extension section of the native format (docs/formats.md, "Extension sections"): a named
 * array beyond the five dataset sections, used by partition files for their id tables. The
 * dataset never owns ext data: on save it is borrowed from the caller, on load it points into
 * the read-only mapping. */
#define GNN_FORMAT_MAX_EXT 5
typedef struct gnn_format_ext {
    char name[9];       /* 1 to 8 characters [a-z0-9_], NUL-terminated */
    const void *data;   /* count * elem_size bytes */
    int64_t count;      /* elements */
    uint32_t elem_size; /* 1, 2, 4 or 8 */
} gnn_format_ext;

/* What a header may claim is bounded by what the file holds (docs/formats.md, "Limits"): a
 * dataset has at most max(n, GNN_CLASSES_ANY) classes, no more classes than vertices to label,
 * so that a small file cannot make its readers allocate for millions of classes. The floor
 * keeps tiny graphs and partition parts (which carry their whole dataset's count) valid. */
#define GNN_CLASSES_ANY 1024

/* Type names (gnn_dataset.vtype_names, etype_names): at most 63 characters and a NUL. */
#define GNN_TYPE_NAME_MAX 64
/* At most this many vertex types and this many edge types (their names alone are 64 bytes each;
 * RGCN takes at most 254 relations, include/gnnref/rgcn.h). */
#define GNN_TYPES_MAX 65536

typedef struct gnn_dataset {
    char name[64];
    gnn_csr graph;         /* in-neighbors: row v lists sources u of edges u -> v */
    int64_t num_features;  /* feature width f (may be 0) */
    int64_t num_classes;   /* labels in [0, num_classes) or -1 (unlabelled) */
    float *feat;           /* (n, f) row-major; NULL when f == 0 */
    int32_t *labels;       /* (n); NULL when there are no labels */
    uint8_t *split;        /* (n) GNN_SPLIT_*; NULL when there is no split */
    /* ownership (internal): either heap arrays or one mmap region */
    void *map_base;
    size_t map_len;
    int owns_arrays;
    gnn_import_stats stats; /* what the importer or generator merged or dropped (kept in the file) */
    int num_ext;            /* extension sections (0 for a plain dataset) */
    gnn_format_ext ext[GNN_FORMAT_MAX_EXT];
    /* Sparse input features (docs/sparse-features.md): when feat_csr.indptr != NULL the
     * features are stored as CSR (n, f) -- in the file, and for the first layer's product --
     * and `feat` is their dense view, built by the loader (or kept by the importer), so that
     * every reader of dense rows (partitioning, the feature store) works unchanged. */
    gnn_fcsr feat_csr;
    float *feat_view;       /* internal: the loader's dense view of a CSR file, freed by gnn_dataset_free */
    /* Types (heterogeneous graphs, docs/hetero.md, docs/formats.md "Types"). All NULL and 0 for
     * a homogeneous graph; stored in a typed file's type sections (format version 3).
     * vtype[v] in [0, num_vtypes): homogenized ids, so each type's vertices are one contiguous
     * id range, type 0 first (vtype never decreases; a type may have no vertices).
     * etype[e] in [0, num_etypes) for CSR entry e (aligned with graph.indices). An etype
     * without vtype is allowed (vtype without etype too).
     * vtype_names / etype_names: num_vtypes / num_etypes names, each non-empty and NUL-terminated
     * (NUL-padded to GNN_TYPE_NAME_MAX); edge types are named by their canonical triplet
     * "src:relation:dst" where there is one. May be NULL in memory: gnn_dataset_save then
     * writes "t<i>" / "r<i>", so a loaded typed dataset always has names.
     * vtype_featless[t] = 1: type t's vertices have no input features (their feature rows are
     * zeros; mini-batch RGCN gives them a learnable embedding); NULL means 0 for every type.
     * Ownership: each array is heap memory (gnn_malloc) that the dataset owns, or points into a
     * loaded file's read-only mapping; gnn_dataset_free frees exactly the former. */
    int32_t *etype;
    int64_t num_etypes;
    int32_t *vtype;
    int64_t num_vtypes;
    char (*vtype_names)[GNN_TYPE_NAME_MAX];
    char (*etype_names)[GNN_TYPE_NAME_MAX];
    uint8_t *vtype_featless;
} gnn_dataset;

/* How features are stored (gnn_import_options.feat_storage, `gnnref convert --feature-storage`):
 * auto: CSR when the density nnz / (n f) is below GNN_FEAT_CSR_DENSITY (bag-of-words inputs:
 * Cora 1.3%, CiteSeer 0.9%), dense otherwise; dense; csr. */
typedef enum gnn_feat_storage { GNN_FEAT_STORE_AUTO = 0, GNN_FEAT_STORE_DENSE, GNN_FEAT_STORE_CSR } gnn_feat_storage;
#define GNN_FEAT_CSR_DENSITY 0.10

/* Store ds's features as s says (auto: by the density rule). Builds the CSR from the dense
 * features, or drops it; the dense view stays. GNN_ERR_INVAL: no features to store as CSR
 * is not an error (nothing happens); a width above INT32_MAX cannot be CSR (GNN_ERR_RANGE). */
gnn_status gnn_dataset_set_feat_storage(gnn_dataset *ds, gnn_feat_storage s, gnn_err *err);
static inline int gnn_dataset_feat_is_csr(const gnn_dataset *ds) { return ds->feat_csr.indptr != NULL; }

/* The extension section called name, or NULL. */
const gnn_format_ext *gnn_dataset_ext(const gnn_dataset *ds, const char *name);

void gnn_dataset_free(gnn_dataset *ds);
static inline int64_t gnn_dataset_n(const gnn_dataset *ds) { return ds->graph.n; }

/* Value checks: graph structure, ids in range, NaN/Inf features, labels in range, split codes. */
gnn_status gnn_dataset_validate(const gnn_dataset *ds, const char *what, gnn_err *err);

/* Native binary format (layout below and in docs/formats.md).
 * save: gnn_dataset_validate, then writes path.tmp and renames it over path.
 * load: opens read-only and mmaps the file PROT_READ (the arrays point into the mapping, no
 * copy: graph.owns = 0, map_base/map_len set); checks the header, its CRC32C, the file size,
 * every section's CRC32C, then gnn_dataset_validate. The arrays of a loaded dataset are
 * READ-ONLY memory: copy before modifying. The one exception is the split, which
 * gnn_dataset_split_random may replace (it writes to a spare anonymous page area that load
 * reserves after the file). */
gnn_status gnn_dataset_save(const gnn_dataset *ds, const char *path, gnn_err *err);
gnn_status gnn_dataset_load(gnn_dataset *ds, const char *path, gnn_err *err);

/* Layout constants of format version 1 (all integers little-endian). Version 2 is version 1
 * plus header flag bit 5 (GNN_FORMAT_FLAG_FEAT_CSR): the features are stored as CSR in three
 * extension sections (feat_ptr int64 (n + 1), feat_col int32 (nnz_f), feat_val f32 (nnz_f))
 * instead of the dense 'features' section. A file is written as version 2 only when it has
 * CSR features, so files without them stay readable by version-1 readers; this build reads
 * versions 1 to 3 (version 3: types, below). */
#define GNN_FORMAT_MAGIC "GNNREF\0\0"     /* 8 bytes at offset 0 */
#define GNN_FORMAT_VERSION 1u
#define GNN_FORMAT_VERSION_CSR 2u
#define GNN_FORMAT_FLAG_FEAT_CSR (1u << 5)
#define GNN_FORMAT_HEADER_SIZE 512u      /* sections start at or after this offset */
#define GNN_FORMAT_ALIGN 64u             /* every section offset is a multiple of this */
#define GNN_FORMAT_NUM_SECTIONS 5
enum { GNN_SEC_INDPTR = 0, GNN_SEC_INDICES = 1, GNN_SEC_FEATURES = 2, GNN_SEC_LABELS = 3, GNN_SEC_SPLIT = 4 };
/* header field offsets */
#define GNN_HDR_OFF_VERSION 8u        /* u32 */
#define GNN_HDR_OFF_HEADER_SIZE 12u   /* u32, = GNN_FORMAT_HEADER_SIZE */
#define GNN_HDR_OFF_N 16u             /* i64 vertices */
#define GNN_HDR_OFF_NNZ 24u           /* i64 edges (CSR entries) */
#define GNN_HDR_OFF_NUM_FEATURES 32u  /* i64 */
#define GNN_HDR_OFF_NUM_CLASSES 40u   /* i64 */
#define GNN_HDR_OFF_FLAGS 48u         /* u32, bit s set: section s present */
#define GNN_HDR_OFF_NUM_SECTIONS 52u  /* u32, = GNN_FORMAT_NUM_SECTIONS */
#define GNN_HDR_OFF_FILE_SIZE 56u     /* u64 total file size in bytes */
#define GNN_HDR_OFF_NAME 64u          /* char[64], NUL-padded */
#define GNN_HDR_OFF_SECTIONS 128u     /* 5 entries of 32 bytes: u64 offset, u64 length,
                                         u32 crc32c, u32 element size, u64 reserved (0) */
#define GNN_HDR_SECTION_SIZE 32u
#define GNN_HDR_OFF_STATS 288u        /* 4 x i64: gnn_import_stats in declaration order */
#define GNN_HDR_OFF_EXT 320u          /* up to GNN_FORMAT_MAX_EXT extension entries of 32 bytes:
                                         u64 offset, u64 length, u32 crc32c, u32 element size,
                                         char[8] name (NUL-padded); the header's section count is
                                         5 + the number of extension sections */
#define GNN_HDR_OFF_CRC 508u          /* u32 CRC32C of header bytes [0, 508) */

/* Version 3: a typed dataset (num_vtypes > 0 or num_etypes > 0; docs/formats.md, "Types").
 * Header flag bit 6 (GNN_FORMAT_FLAG_TYPED) is set, bit 5 may be (CSR features, as in version
 * 2), and the header is 1024 bytes: bytes [0, 512) are the version-1/2 header unchanged (its
 * CRC at 508 still covers [0, 508)), bytes [512, 1024) the type header below, with its own
 * CRC32C at 1020 over [512, 1020). The five type sections follow every other section, 64-byte
 * aligned, each with its CRC32C. An untyped dataset is still written as version 1 or 2. */
#define GNN_FORMAT_VERSION_TYPED 3u
#define GNN_FORMAT_FLAG_TYPED (1u << 6)
#define GNN_FORMAT_HEADER_SIZE_TYPED 1024u
#define GNN_FORMAT_NUM_TYPE_SECTIONS 5
enum { GNN_TSEC_VTYPE = 0, GNN_TSEC_ETYPE = 1, GNN_TSEC_VTNAMES = 2, GNN_TSEC_ETNAMES = 3, GNN_TSEC_FEATLESS = 4 };
#define GNN_THDR_MAGIC "GNNTYPES"      /* 8 bytes at offset 512 */
#define GNN_THDR_OFF_MAGIC 512u
#define GNN_THDR_OFF_NUM_VTYPES 520u   /* i64 */
#define GNN_THDR_OFF_NUM_ETYPES 528u   /* i64 */
#define GNN_THDR_OFF_FLAGS 536u        /* u32, bit s set: type section s present */
#define GNN_THDR_OFF_NUM_SECTIONS 540u /* u32, = GNN_FORMAT_NUM_TYPE_SECTIONS */
#define GNN_THDR_OFF_SECTIONS 576u     /* 5 entries of 32 bytes, as the extension entries: u64
                                          offset, u64 length, u32 crc32c, u32 element size,
                                          char[8] name: vtype (i32, n), etype (i32, nnz), vtnames
                                          (char[64], num_vtypes), etnames (char[64], num_etypes),
                                          featless (u8, num_vtypes) */
#define GNN_THDR_OFF_CRC 1020u         /* u32 CRC32C of header bytes [512, 1020) */

/* The name of section s ("indptr", "indices", "features", "labels", "split"). */
const char *gnn_format_section_name(int s);
/* The name of type section s ("vtype", "etype", "vtnames", "etnames", "featless"). */
const char *gnn_format_type_section_name(int s);

/* Give ds a writable split array (contents unspecified; callers overwrite all n entries):
 * a heap dataset allocates one when split is NULL; a loaded (mapped) dataset switches to the
 * spare area reserved after its mapping. Used by gnn_dataset_split_random. */
gnn_status gnn_dataset_split_storage(gnn_dataset *ds, gnn_err *err);

/* Importers (all return GNN_ERR_FORMAT / GNN_ERR_RANGE / GNN_ERR_NAN with file:line in err,
 * GNN_ERR_IO when a file cannot be opened or read). Rules in docs/formats.md:
 * - text: the shared/datasets layout (meta.txt, edges.txt, features.txt, labels.txt,
 *   optional train/val/test.txt); edges kept as listed (deduplicated, counted), not symmetrized;
 * - ogb: OGB raw CSV in DIR or DIR/raw (edge.csv, node-feat.csv, node-label.csv,
 *   num-node-list.csv, split/<name>/{train,valid,test}.csv, each optionally .gz);
 *   edges symmetrized and deduplicated;
 * - edgelist: "u v" lines, '#' or '%' comments, n = max id + 1; symmetrized, deduplicated,
 *   self-loops dropped; no features, labels or split.
 * A text file's vertex count is a claim (an id, num_nodes): a 12-byte edge list "0 100000000"
 * would cost 800 MB of indptr. So every importer refuses more than opt->max_vertices vertices
 * before it allocates for them, naming the file, the line and the limit (GNN_ERR_RANGE). */
#define GNN_IMPORT_MAX_VERTICES ((int64_t)1 << 24) /* the default: 16,777,216 (Graph500 scale 24) */
typedef struct gnn_import_options {
    int64_t max_vertices; /* 1 .. 2^40 */
    gnn_feat_storage feat_storage; /* text and OGB features: auto (the default), dense or csr */
    int reverse_relations; /* OGB heterogeneous: 1 adds relation "rev-R" (dst -> src) for each R */
} gnn_import_options;
void gnn_import_defaults(gnn_import_options *o);
/* opt may be NULL: the defaults */
gnn_status gnn_import_text(gnn_dataset *ds, const char *dir, const gnn_import_options *opt, gnn_err *err);
gnn_status gnn_import_ogb(gnn_dataset *ds, const char *dir, const gnn_import_options *opt, gnn_err *err);
gnn_status gnn_import_edgelist(gnn_dataset *ds, const char *path, const gnn_import_options *opt, gnn_err *err);
/* OGB heterogeneous raw CSV (ogbn-mag's layout; docs/formats.md, "OGB heterogeneous"), in DIR
 * or DIR/raw: num-node-dict.csv, triplet-type-list.csv, relations/<src>___<rel>___<dst>/edge.csv
 * (+ num-edge-list.csv), node-feat/<type>/node-feat.csv, node-label/<type>/node-label.csv,
 * split/<name>/<type>/{train,valid,test}.csv, each optionally .gz. Homogenized: vertex types
 * sorted by name (as ogb's reader and DGL order them), type t at the offset of the earlier
 * types' counts; relation r = the triplet's index in sorted order ("src:rel:dst"), edges as
 * in-edges, kept as listed (deduplicated per relation), plus reverse relations when
 * opt->reverse_relations; types without node-feat are featureless (zero rows). gnn_import_ogb
 * calls this when it finds num-node-dict.csv[.gz]. */
gnn_status gnn_import_ogb_hetero(gnn_dataset *ds, const char *dir, const gnn_import_options *opt, gnn_err *err);

/* Open anything: "builtin", "builtin-typed", a native file, a text-layout directory (meta.txt)
 * or an OGB directory. */
gnn_status gnn_dataset_open(gnn_dataset *ds, const char *spec, gnn_err *err);
/* What gnn_dataset_open would do with spec: "builtin", "builtin-typed", "text", "ogb", "native", or NULL when
 * spec names nothing that exists. */
const char *gnn_dataset_spec_kind(const char *spec);

/* Seeded random split by fractions (train, val, test), replacing any existing split.
 * Uses tag GNN_TAG_SPLIT: a Fisher-Yates permutation of 0..n-1, then the first
 * round(train*n) are train, the next round(val*n) val, the next round(test*n) test. */
gnn_status gnn_dataset_split_random(gnn_dataset *ds, double train, double val, double test,
                                    uint64_t seed, gnn_err *err);

/* How a generator builds its CSR (docs/formats.md, "Generators"). Both give the same bits.
 * STREAM (the default of gnn_gen_rmat and gnn_gen_sbm): the keyed edges are generated twice,
 * once to count each vertex's degree and once into their CSR slots, then each row is sorted
 * and deduplicated in place: peak memory indptr + 2m int64 slots, no edge list.
 * EDGELIST: the edge list materialised (src and dst, 2m int64) and gnn_csr_from_edges with
 * SYMMETRIZE | DEDUP | DROP_SELF: the plain specification the streaming path is checked against. */
typedef enum gnn_gen_build { GNN_GEN_STREAM = 0, GNN_GEN_EDGELIST = 1 } gnn_gen_build;

/* R-MAT with Graph500 parameters (a=0.57, b=0.19, c=0.19), 2^scale vertices,
 * edge_factor * 2^scale generated edges, deduplicated, self-loops dropped, symmetrized.
 * Deterministic from seed at any thread count (edge e draws from stream id = e):
 * edge e uses stream (seed, GNN_TAG_GEN, step 0, layer 0, id e); at level l = 0..scale-1 its
 * float draw l picks quadrant a (top-left), b (top-right), c (bottom-left) or d, appending
 * one bit to the source and destination ids (most significant first). No vertex
 * permutation and no per-level noise (Graph500 adds both): vertex 0 is the hub.
 * Optional features: uniform [-1, 1), float draw j of (GEN_FEAT, layer 0, id v); labels:
 * integer draw 0 in [0, classes) of (GEN_FEAT, layer 1, id v). No split. */
typedef struct gnn_rmat_params {
    int scale;
    int edge_factor;
    double a, b, c;
    uint64_t seed;
    int64_t num_features; /* random features (0 for none) */
    int64_t num_classes;  /* random labels (0 for none) */
} gnn_rmat_params;
void gnn_rmat_defaults(gnn_rmat_params *p);
gnn_status gnn_gen_rmat(gnn_dataset *ds, const gnn_rmat_params *p, gnn_err *err);
gnn_status gnn_gen_rmat_build(gnn_dataset *ds, const gnn_rmat_params *p, gnn_gen_build how, gnn_err *err);

/* Stochastic block model: n vertices in `classes` equal-probability classes; each vertex has
 * on average deg_in neighbors in its class and deg_out outside; features are a noisy class
 * signal (class centroid + Gaussian noise of std `noise`), so a GNN that averages neighbors
 * beats an MLP. Deterministic from seed at any thread count. Exactly (docs/formats.md):
 * class of v = integer draw 0 in [0, classes) of (GEN_FEAT, layer 1, id v);
 * v picks floor(deg_in/2) + [u0 < frac(deg_in/2)] partners uniformly in its own class
 * (integer draws of (GEN, layer 0, id v)) and likewise for deg_out among all other vertices
 * ((GEN, layer 1, id v)); u0, u1 are float draws 0, 1 of (GEN, layer 2, id v); then
 * symmetrize, deduplicate, drop self-loops; centroid of class k = +-1 by float draw j < 0.5
 * of (GEN_FEAT, layer 2, id k); feature (v, j) = centroid + noise * Box-Muller normal from
 * float draws of (GEN_FEAT, layer 0, id v); labels = class; split by
 * gnn_dataset_split_random(train, val, test, seed) when the fractions sum to more than 0.
 * Degree heterogeneity (deg_power = alpha > 0; 0, the default, leaves all of the above as it
 * is): vertex v's weight W_v = min((1 - u)^(-1/alpha), deg_max), u = float draw 0 of
 * (GEN, layer 3, id v), and v's two mean partner counts are deg_in W_v / E[W] and
 * deg_out W_v / E[W] (E[W] of the capped Pareto law in closed form): power-law degrees of tail
 * exponent about alpha + 1, mean degree unchanged. */
typedef struct gnn_sbm_params {
    int64_t n;
    int64_t classes;
    double deg_in, deg_out;
    int64_t num_features;
    double noise;
    uint64_t seed;
    double train, val, test; /* split fractions */
    double deg_power;        /* alpha in [0, 100]; 0: no degree weights */
    double deg_max;          /* the weight cap, in [1, 1e9] (read only when deg_power > 0) */
} gnn_sbm_params;
void gnn_sbm_defaults(gnn_sbm_params *p);
gnn_status gnn_gen_sbm(gnn_dataset *ds, const gnn_sbm_params *p, gnn_err *err);
gnn_status gnn_gen_sbm_build(gnn_dataset *ds, const gnn_sbm_params *p, gnn_gen_build how, gnn_err *err);

/* SBM parameters shaped like an OGB set (docs/scale.md: the choices and where the shape
 * differs): "products" (ogbn-products: 2,449,029 vertices, ~124M CSR entries, 100 features, 47
 * classes, split 8% / 2% / 90%) or "papers100m" (ogbn-papers100M: 111,059,956 vertices, ~1.6G
 * CSR entries, 172 classes, 1,207,179 / 125,265 / 214,338 train / val / test, the rest
 * unsplit; num_features 0, since 128 would be 57 GB: set it to store them). GNN_ERR_INVAL for
 * another name. */
gnn_status gnn_sbm_preset(gnn_sbm_params *p, const char *name, gnn_err *err);

/* A typed SBM (heterogeneous graphs, docs/hetero.md): gnn_gen_sbm, then vertex v of type
 * v * T / n (each type contiguous, as homogenized ids are) and edge u -> v of relation
 * type(u) T + type(v): R = T^2 relations. T in 1..16. Vertex types are named "t0", "t1", ...,
 * relation r = a T + b "ta:r<r>:tb". gnn_gen_hsbm also makes the last `featureless` types
 * (0..T) featureless: their feature rows zeroed, vtype_featless set; the rest is bitwise
 * gnn_gen_typed_sbm (which is gnn_gen_hsbm with featureless 0). */
gnn_status gnn_gen_typed_sbm(gnn_dataset *ds, const gnn_sbm_params *p, int64_t types, gnn_err *err);
gnn_status gnn_gen_hsbm(gnn_dataset *ds, const gnn_sbm_params *p, int64_t types, int64_t featureless, gnn_err *err);

/* The built-in dataset used by `make run`: gnn_gen_sbm with gnn_sbm_defaults (20000
 * vertices, 8 classes, deg_in 7, deg_out 5, 64 features, noise 5, seed 1, split
 * 0.1/0.2/0.2), named "builtin". Generated in about 0.1 s. `--data builtin-typed` is the same
 * graph with 2 vertex types and 4 relations (gnn_gen_typed_sbm), named "builtin-typed". */
gnn_status gnn_dataset_builtin(gnn_dataset *ds, gnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
