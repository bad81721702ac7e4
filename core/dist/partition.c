/* core/dist/partition.c -- part vectors (metis, range, hash, random), vertex-weight columns, quality
 * metrics, and the shared pieces of the partition structure (the checked entry point
 * gnn_partition_build, so ref/partition.c and opt/cpu/partition.c can assume valid arguments;
 * free).
 * include/gnnref/partition.h states every rule; docs/partitioning.md explains them. */
#include <limits.h>
#include <metis.h>
#include <stdio.h>
#include <string.h>
#include "gnnref/dataset.h"
#include "gnnref/partition.h"
#include "gnnref/rng.h"
#include "gnnref/tensor.h"

/* ---- names ---------------------------------------------------------------------------------- */

static const char *const k_method_names[GNN_PART_METHOD_COUNT] = { "metis", "range", "hash", "random", "ldg" };

const char *gnn_part_method_name(gnn_part_method m)
{
    return (unsigned)m < GNN_PART_METHOD_COUNT ? k_method_names[m] : "?";
}

gnn_status gnn_part_method_parse(const char *name, gnn_part_method *m)
{
    for (int i = 0; name && i < GNN_PART_METHOD_COUNT; i++)
        if (!strcmp(name, k_method_names[i])) {
            *m = (gnn_part_method)i;
            return GNN_OK;
        }
    return GNN_ERR_INVAL;
}

static const char *const k_con_names[GNN_BALANCE_NAMES] = { "train", "val", "test", "degree", "types" };
/* a type column's name: static strings, so the name of a constraint never needs a buffer */
static const char *const k_type_names[GNN_PART_MAX_CON] = { "type0",  "type1",  "type2",  "type3", "type4",  "type5",
                                                            "type6",  "type7",  "type8",  "type9", "type10", "type11",
                                                            "type12", "type13", "type14", "type15" };
_Static_assert(GNN_PART_MAX_CON == 16, "k_type_names names one type per possible column");

const char *gnn_part_constraint_name(unsigned bit)
{
    for (int i = 0; i < GNN_BALANCE_NAMES; i++)
        if (bit == 1u << i)
            return k_con_names[i];
    if (GNN_PART_CON_IS_TYPE(bit) && GNN_PART_CON_TYPE_OF(bit) < GNN_PART_MAX_CON)
        return k_type_names[GNN_PART_CON_TYPE_OF(bit)];
    return bit == 0 ? "vertices" : "?";
}

gnn_status gnn_part_balance_parse(const char *list, unsigned *balance, gnn_err *err)
{
    *balance = 0;
    if (!list || !*list)
        return gnn_err_set(err, GNN_ERR_INVAL, "balance: empty list (expected names from train,val,test,degree,types)");
    const char *s = list;
    for (;;) {
        const char *end = strchr(s, ',');
        const size_t len = end ? (size_t)(end - s) : strlen(s);
        int found = -1;
        for (int i = 0; i < GNN_BALANCE_NAMES; i++)
            if (strlen(k_con_names[i]) == len && !strncmp(s, k_con_names[i], len))
                found = i;
        if (found < 0)
            return gnn_err_set(err, GNN_ERR_INVAL,
                               "balance: unknown constraint '%.*s' (expected train, val, test, degree, types)", (int)len,
                               s);
        if (*balance & (1u << found))
            return gnn_err_set(err, GNN_ERR_INVAL, "balance: '%s' listed twice", k_con_names[found]);
        *balance |= 1u << found;
        if (!end)
            break;
        s = end + 1;
    }
    return GNN_OK;
}

void gnn_part_defaults(gnn_part_options *o)
{
    memset(o, 0, sizeof *o);
    o->method = GNN_PART_METIS;
    o->k = 2;
    o->seed = 1;
    o->balance = 0;
    o->ufactor = GNN_METIS_DEFAULT_UFACTOR;
    o->trainers = 1;
}

/* ---- vertex weights --------------------------------------------------------------------------- */

/* @sec{DistDGLv2 4.1.3}: one METIS balance constraint per kind of vertex to balance -- the
 * split's vertices, the degree, and (heterogeneous graphs) the vertices of each type. */
gnn_status gnn_partition_weights_typed(const gnn_csr *g, const uint8_t *split, const int32_t *vtype,
                                       int64_t num_vtypes, unsigned balance, int64_t **vwgt, int *ncon,
                                       unsigned con[GNN_PART_MAX_CON], gnn_err *err)
{
    *vwgt = NULL;
    *ncon = 0;
    if (balance & ~(unsigned)GNN_BALANCE_KNOWN)
        return gnn_err_set(err, GNN_ERR_INVAL, "balance: unknown constraint bits 0x%x", balance);
    const unsigned split_bits = GNN_BALANCE_TRAIN | GNN_BALANCE_VAL | GNN_BALANCE_TEST;
    if ((balance & split_bits) && !split)
        return gnn_err_set(err, GNN_ERR_INVAL,
                           "balance: the dataset has no train/val/test split to balance (give one with --split)");
    int named = 0;
    for (int i = 0; i < GNN_BALANCE_NAMES; i++)
        named += (balance & GNN_BALANCE_ALL & (1u << i)) != 0;
    const int64_t n = g->n;
    if (balance & GNN_BALANCE_TYPES) {
        if (!vtype || num_vtypes < 1)
            return gnn_err_set(err, GNN_ERR_INVAL, "balance: types: no vertex types given (a homogeneous graph, or "
                                                   "a caller that does not pass gnn_part_options.vtype)");
        if (num_vtypes > GNN_PART_MAX_CON - named)
            return gnn_err_set(err, GNN_ERR_INVAL,
                               "balance: %d constraint%s + %lld vertex types = %lld weight columns: at most %d "
                               "(GNN_PART_MAX_CON); balance fewer columns",
                               named, named == 1 ? "" : "s", (long long)num_vtypes, (long long)(named + num_vtypes),
                               GNN_PART_MAX_CON);
        for (int64_t v = 0; v < n; v++)
            if (vtype[v] < 0 || vtype[v] >= num_vtypes)
                return gnn_err_set(err, GNN_ERR_RANGE, "balance: types: vertex %lld has type %d outside [0, %lld)",
                                   (long long)v, (int)vtype[v], (long long)num_vtypes);
    }
    int nc = 0;
    if (!balance)
        con[nc++] = 0;
    for (int i = 0; i < GNN_BALANCE_NAMES; i++)
        if (balance & GNN_BALANCE_ALL & (1u << i))
            con[nc++] = 1u << i;
    const int first_type = nc; /* the type columns come last, type 0 first */
    if (balance & GNN_BALANCE_TYPES)
        for (int64_t t = 0; t < num_vtypes; t++)
            con[nc++] = GNN_PART_CON_TYPE(t);
    int64_t *w = gnn_malloc((size_t)(n > 0 ? n : 1) * (size_t)nc * sizeof(int64_t));
    if (!w)
        return GNN_ERR_NOMEM;
    int64_t tot[GNN_PART_MAX_CON] = { 0 };
    for (int64_t v = 0; v < n; v++)
        for (int c = 0; c < nc; c++) {
            int64_t x;
            if (c >= first_type) {
                x = vtype[v] == c - first_type;
            } else {
                switch (con[c]) {
                case 0: x = 1; break;
                case GNN_BALANCE_TRAIN: x = split[v] == GNN_SPLIT_TRAIN; break;
                case GNN_BALANCE_VAL: x = split[v] == GNN_SPLIT_VAL; break;
                case GNN_BALANCE_TEST: x = split[v] == GNN_SPLIT_TEST; break;
                default: x = gnn_csr_degree(g, v); break;
                }
            }
            w[v * nc + c] = x;
            tot[c] += x;
        }
    for (int c = 0; c < nc; c++)
        if (tot[c] == 0 && n > 0) {
            gnn_free(w);
            return gnn_err_set(err, GNN_ERR_INVAL, "balance: constraint '%s' has total weight 0 (%s): nothing to balance",
                               gnn_part_constraint_name(con[c]),
                               con[c] == GNN_BALANCE_DEGREE ? "the graph has no edges"
                               : c >= first_type          ? "no vertex has that type"
                                                          : "no vertex is in that split");
        }
    *vwgt = w;
    *ncon = nc;
    return GNN_OK;
}

gnn_status gnn_partition_weights(const gnn_csr *g, const uint8_t *split, unsigned balance, int64_t **vwgt,
                                 int *ncon, unsigned con[GNN_PART_MAX_CON], gnn_err *err)
{
    return gnn_partition_weights_typed(g, split, NULL, 0, balance, vwgt, ncon, con, err);
}

/* ---- the symmetrized graph ---------------------------------------------------------------------- */

gnn_status gnn_partition_symmetrize(const gnn_csr *g, gnn_csr *sym, gnn_err *err)
{
    memset(sym, 0, sizeof *sym);
    const int64_t n = g->n, m = g->nnz;
    int64_t *src = gnn_malloc((size_t)(m > 0 ? m : 1) * sizeof(int64_t));
    int64_t *dst = gnn_malloc((size_t)(m > 0 ? m : 1) * sizeof(int64_t));
    if (!src || !dst) {
        gnn_free(src);
        gnn_free(dst);
        return GNN_ERR_NOMEM;
    }
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t v = 0; v < n; v++)
        for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
            src[e] = g->indices[e];
            dst[e] = v;
        }
    gnn_status s = gnn_csr_from_edges(sym, n, m, src, dst, GNN_CSR_SYMMETRIZE | GNN_CSR_DEDUP | GNN_CSR_DROP_SELF, err);
    gnn_free(src);
    gnn_free(dst);
    return s;
}

/* ---- part vectors ---------------------------------------------------------------------------------- */

static uint64_t fmix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static void info_opt(gnn_part_info *info, const char *name, int value)
{
    if (info->n_opts < GNN_PART_MAX_OPTS) {
        info->opts[info->n_opts].name = name;
        info->opts[info->n_opts].value = value;
        info->n_opts++;
    }
}

static gnn_status metis_error(int rc, gnn_err *err)
{
    const char *what = rc == METIS_ERROR_INPUT ? "METIS_ERROR_INPUT (bad input)"
                       : rc == METIS_ERROR_MEMORY ? "METIS_ERROR_MEMORY (out of memory)"
                                                  : "METIS_ERROR";
    return gnn_err_set(err, rc == METIS_ERROR_MEMORY ? GNN_ERR_NOMEM : GNN_ERR_INTERNAL,
                       "METIS_PartGraphKway failed: status %d, %s", rc, what);
}

/* @sec{DistDGLv2 4.1.1}: METIS, minimal edge cut, with the balance constraints of 4.1.3. */
static gnn_status assign_metis(const gnn_csr *g, const uint8_t *split, const gnn_part_options *o, int32_t *part,
                               gnn_part_info *info, gnn_err *err)
{
    const int64_t n = g->n;
    if (n > (int64_t)INT32_MAX - 1)
        return gnn_err_set(err, GNN_ERR_RANGE,
                           "metis: the graph is too large for this METIS build (32-bit idx_t): %lld vertices > %d",
                           (long long)n, INT32_MAX - 1);
    if (o->ufactor < 1 || o->ufactor > 1000000)
        return gnn_err_set(err, GNN_ERR_INVAL, "metis: ufactor %d outside [1, 1000000]", o->ufactor);
    int64_t *w = NULL;
    int ncon = 0;
    unsigned con[GNN_PART_MAX_CON];
    gnn_status s = gnn_partition_weights_typed(g, split, o->vtype, o->num_vtypes, o->balance, &w, &ncon, con, err);
    if (s)
        return s;
    gnn_csr sym;
    if ((s = gnn_partition_symmetrize(g, &sym, err))) {
        gnn_free(w);
        return s;
    }
    idx_t *xadj = NULL, *adj = NULL, *vw = NULL, *out = NULL;
    if (sym.nnz > (int64_t)INT32_MAX) {
        s = gnn_err_set(err, GNN_ERR_RANGE,
                        "metis: the graph is too large for this METIS build (32-bit idx_t): %lld adjacency entries "
                        "(symmetrized) > %d",
                        (long long)sym.nnz, INT32_MAX);
        goto done;
    }
    for (int c = 0; c < ncon; c++) {
        int64_t tot = 0;
        for (int64_t v = 0; v < n; v++)
            tot += w[v * ncon + c];
        if (tot > (int64_t)INT32_MAX) {
            s = gnn_err_set(err, GNN_ERR_RANGE,
                            "metis: the graph is too large for this METIS build (32-bit idx_t): constraint '%s' "
                            "totals %lld > %d",
                            gnn_part_constraint_name(con[c]), (long long)tot, INT32_MAX);
            goto done;
        }
    }
    xadj = gnn_malloc(((size_t)n + 1) * sizeof(idx_t));
    adj = gnn_malloc((size_t)(sym.nnz > 0 ? sym.nnz : 1) * sizeof(idx_t));
    out = gnn_malloc((size_t)(n > 0 ? n : 1) * sizeof(idx_t));
    if (o->balance)
        vw = gnn_malloc((size_t)(n > 0 ? n : 1) * (size_t)ncon * sizeof(idx_t));
    if (!xadj || !adj || !out || (o->balance && !vw)) {
        s = GNN_ERR_NOMEM;
        goto done;
    }
    for (int64_t v = 0; v <= n; v++)
        xadj[v] = (idx_t)sym.indptr[v];
    for (int64_t e = 0; e < sym.nnz; e++)
        adj[e] = (idx_t)sym.indices[e];
    if (vw) /* row-major n x ncon, as METIS and DistDGL lay it out */
        for (int64_t i = 0; i < n * ncon; i++)
            vw[i] = (idx_t)w[i];
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_OBJTYPE] = METIS_OBJTYPE_CUT;
    options[METIS_OPTION_NUMBERING] = 0;
    options[METIS_OPTION_SEED] = (idx_t)(o->seed & 0x7fffffffu);
    options[METIS_OPTION_UFACTOR] = (idx_t)o->ufactor;
    if (info) {
        info->metis_called = 1;
        snprintf(info->metis_version, sizeof info->metis_version, "%d.%d.%d", METIS_VER_MAJOR, METIS_VER_MINOR,
                 METIS_VER_SUBMINOR);
        info_opt(info, "seed", (int)options[METIS_OPTION_SEED]);
        info_opt(info, "ufactor", (int)options[METIS_OPTION_UFACTOR]);
        info_opt(info, "objtype", (int)options[METIS_OPTION_OBJTYPE]);
        info_opt(info, "numbering", (int)options[METIS_OPTION_NUMBERING]);
        info_opt(info, "ctype", (int)options[METIS_OPTION_CTYPE]);
        info_opt(info, "iptype", (int)options[METIS_OPTION_IPTYPE]);
        info_opt(info, "rtype", (int)options[METIS_OPTION_RTYPE]);
        info_opt(info, "ncuts", (int)options[METIS_OPTION_NCUTS]);
        info_opt(info, "niter", (int)options[METIS_OPTION_NITER]);
        info_opt(info, "minconn", (int)options[METIS_OPTION_MINCONN]);
        info_opt(info, "contig", (int)options[METIS_OPTION_CONTIG]);
        info_opt(info, "no2hop", (int)options[METIS_OPTION_NO2HOP]);
        info_opt(info, "dbglvl", (int)options[METIS_OPTION_DBGLVL]);
        info->metis_vertices = n;
        info->metis_adjacency = sym.nnz;
    }
    idx_t nvtxs = (idx_t)n, nc = (idx_t)ncon, nparts = (idx_t)o->k, objval = 0;
    const int rc = METIS_PartGraphKway(&nvtxs, &nc, xadj, adj, vw, NULL, NULL, &nparts, NULL, NULL, options, &objval, out);
    if (rc != METIS_OK) {
        s = metis_error(rc, err);
        goto done;
    }
    for (int64_t v = 0; v < n; v++) {
        if (out[v] < 0 || out[v] >= nparts) {
            s = gnn_err_set(err, GNN_ERR_INTERNAL, "metis: vertex %lld was given part %d outside [0, %lld)",
                            (long long)v, (int)out[v], (long long)o->k);
            goto done;
        }
        part[v] = (int32_t)out[v];
    }
    if (info)
        info->metis_objval = objval;
done:
    gnn_free(xadj);
    gnn_free(adj);
    gnn_free(vw);
    gnn_free(out);
    gnn_free(w);
    gnn_csr_free(&sym);
    return s;
}

/* One level: o->k parts, o->trainers ignored. */
static gnn_status assign_flat(const gnn_csr *g, const uint8_t *split, const gnn_part_options *o, int32_t *part,
                              gnn_part_info *info, gnn_err *err)
{
    if (info)
        memset(info, 0, sizeof *info);
    if ((unsigned)o->method >= GNN_PART_METHOD_COUNT)
        return gnn_err_set(err, GNN_ERR_INVAL, "partition: unknown method %d", (int)o->method);
    const int64_t n = g->n, k = o->k;
    if (k < 1)
        return gnn_err_set(err, GNN_ERR_INVAL, "partition: %lld parts: need at least 1", (long long)k);
    if (k > n)
        return gnn_err_set(err, GNN_ERR_INVAL, "partition: %lld parts for %lld vertices: at most one part per vertex",
                           (long long)k, (long long)n);
    if (k > INT32_MAX)
        return gnn_err_set(err, GNN_ERR_INVAL, "partition: %lld parts: at most %d", (long long)k, INT32_MAX);
    if (o->balance & ~(unsigned)GNN_BALANCE_KNOWN)
        return gnn_err_set(err, GNN_ERR_INVAL, "balance: unknown constraint bits 0x%x", o->balance);
    if (o->method == GNN_PART_METIS && k > 1 && n > (int64_t)INT32_MAX - 1) /* before reading any array */
        return gnn_err_set(err, GNN_ERR_RANGE,
                           "metis: the graph is too large for this METIS build (32-bit idx_t): %lld vertices > %d",
                           (long long)n, INT32_MAX - 1);
    if (o->method == GNN_PART_LDG && (o->ufactor < 1 || o->ufactor > 1000000))
        return gnn_err_set(err, GNN_ERR_INVAL, "ldg: ufactor %d outside [1, 1000000]", o->ufactor);
    /* the weights are checked for every method (a split constraint without a split is an
     * error whatever computes the parts: the quality report needs the same columns) */
    int64_t *w;
    int ncon;
    {
        unsigned con[GNN_PART_MAX_CON];
        gnn_status s = gnn_partition_weights_typed(g, split, o->vtype, o->num_vtypes, o->balance, &w, &ncon, con, err);
        if (s)
            return s;
        if (info) {
            info->method = o->method;
            info->k = k;
            info->seed = o->seed;
            info->ncon = ncon;
            memcpy(info->con, con, (size_t)ncon * sizeof con[0]);
        }
    }
    if (k == 1 || o->method != GNN_PART_LDG) {
        gnn_free(w);
        w = NULL;
    }
    if (k == 1) {
        memset(part, 0, (size_t)n * sizeof(int32_t));
        return GNN_OK;
    }
    switch (o->method) {
    case GNN_PART_LDG: { /* the streaming partitioner, through the implementation (o->ops) */
        const gnn_partition_ops *ops = o->ops;
        if (!ops || !ops->ldg) {
            gnn_free(w);
            return gnn_err_set(err, GNN_ERR_INVAL, "ldg: no implementation: set gnn_part_options.ops to a partition "
                                                   "table with ldg (the context's, impl.h)");
        }
        const gnn_status s = ops->ldg(g, w, ncon, k, o->ufactor, part);
        gnn_free(w);
        return s ? gnn_err_set(err, s, "ldg: out of memory for %lld parts", (long long)k) : GNN_OK;
    }
    case GNN_PART_METIS: return assign_metis(g, split, o, part, info, err);
    case GNN_PART_RANGE:
        for (int64_t p = 0; p < k; p++) {
            const int64_t lo = (int64_t)((__int128)p * n / k), hi = (int64_t)((__int128)(p + 1) * n / k);
            for (int64_t v = lo; v < hi; v++)
                part[v] = (int32_t)p;
        }
        return GNN_OK;
    case GNN_PART_HASH:
#pragma omp parallel for schedule(static)
        for (int64_t v = 0; v < n; v++)
            part[v] = (int32_t)(fmix64((uint64_t)v) % (uint64_t)k);
        return GNN_OK;
    case GNN_PART_RANDOM:
#pragma omp parallel for schedule(static)
        for (int64_t v = 0; v < n; v++) {
            const gnn_rng_stream s = gnn_rng_stream_make(o->seed, GNN_TAG_PARTITION, 0, 0, (uint64_t)v);
            part[v] = (int32_t)gnn_rng_uint(&s, 0, (uint64_t)k);
        }
        return GNN_OK;
    default: break;
    }
    return GNN_ERR_INTERNAL;
}

/* Two-level partitioning, @sec{DistDGLv2 4.1.2}, as DistDGL's partition_graph does it for
 * num_trainers_per_machine (the paper describes METIS run again inside each machine's part; splitting
 * into k * T sub-parts at once and coalescing T consecutive ones gives the same two levels from
 * one METIS call -- the sub-parts of a machine need not be adjacent in METIS's numbering, which
 * the edge cut we report measures, see docs/partitioning.md). */
gnn_status gnn_partition_assign2(const gnn_csr *g, const uint8_t *split, const gnn_part_options *o, int32_t *part,
                                 int32_t *trainer, gnn_part_info *info, gnn_err *err)
{
    const int64_t T = o->trainers == 0 ? 1 : o->trainers;
    if (T < 1 || T > INT32_MAX)
        return gnn_err_set(err, GNN_ERR_INVAL, "partition: %lld trainers per part: need 1 to %d", (long long)T,
                           INT32_MAX);
    if (T == 1) {
        gnn_status s = assign_flat(g, split, o, part, info, err);
        if (!s && trainer && g->n > 0)
            memset(trainer, 0, (size_t)g->n * sizeof(int32_t));
        return s;
    }
    if (o->k < 1)
        return gnn_err_set(err, GNN_ERR_INVAL, "partition: %lld parts: need at least 1", (long long)o->k);
    if (o->k > INT32_MAX / T || o->k * T > g->n)
        return gnn_err_set(err, GNN_ERR_INVAL,
                           "partition: %lld parts x %lld trainers = %lld sub-parts for %lld vertices: at most one "
                           "sub-part per vertex",
                           (long long)o->k, (long long)T, (long long)(o->k > INT32_MAX / T ? -1 : o->k * T),
                           (long long)g->n);
    gnn_part_options sub = *o;
    sub.k = o->k * T;
    sub.trainers = 1;
    gnn_status s = assign_flat(g, split, &sub, part, info, err);
    if (s)
        return s;
    const int64_t n = g->n;
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < n; v++) {
        const int32_t sp = part[v];
        if (trainer)
            trainer[v] = (int32_t)(sp % T);
        part[v] = (int32_t)(sp / T);
    }
    return GNN_OK;
}

gnn_status gnn_partition_assign(const gnn_csr *g, const uint8_t *split, const gnn_part_options *o, int32_t *part,
                                gnn_part_info *info, gnn_err *err)
{
    return gnn_partition_assign2(g, split, o, part, NULL, info, err);
}

gnn_status gnn_partition_set_trainers(gnn_partition *p, const int32_t *trainer, int64_t trainers, gnn_err *err)
{
    if (!p || (trainers > 1 && !trainer))
        return gnn_err_set(err, GNN_ERR_INVAL, "partition trainers: NULL argument");
    if (trainers < 1 || trainers > INT32_MAX)
        return gnn_err_set(err, GNN_ERR_INVAL, "partition trainers: %lld: need 1 to %d", (long long)trainers,
                           INT32_MAX);
    gnn_free(p->trainer);
    p->trainer = NULL;
    for (int64_t r = 0; r < p->k; r++) {
        gnn_free(p->parts[r].trainer);
        p->parts[r].trainer = NULL;
        p->parts[r].trainers = trainers;
    }
    p->trainers = trainers;
    if (trainers == 1)
        return GNN_OK;
    for (int64_t v = 0; v < p->n; v++)
        if (trainer[v] < 0 || trainer[v] >= trainers)
            return gnn_err_set(err, GNN_ERR_RANGE, "partition trainers: trainer[%lld] = %d outside [0, %lld)",
                               (long long)v, trainer[v], (long long)trainers);
    p->trainer = gnn_malloc((size_t)(p->n > 0 ? p->n : 1) * sizeof(int32_t));
    if (!p->trainer)
        return gnn_err_set(err, GNN_ERR_NOMEM, "partition trainers: out of memory");
    if (p->n > 0)
        memcpy(p->trainer, trainer, (size_t)p->n * sizeof(int32_t));
    for (int64_t r = 0; r < p->k; r++) {
        gnn_part_local *L = &p->parts[r];
        L->trainer = gnn_malloc((size_t)(L->n_solid > 0 ? L->n_solid : 1) * sizeof(int32_t));
        if (!L->trainer)
            return gnn_err_set(err, GNN_ERR_NOMEM, "partition trainers: out of memory");
        for (int64_t l = 0; l < L->n_solid; l++)
            L->trainer[l] = trainer[L->vid_o[l]];
    }
    return GNN_OK;
}

gnn_status gnn_part_trainer_seeds(const gnn_part_local *L, int64_t t, int64_t **seeds, int64_t *count, gnn_err *err)
{
    const int64_t T = L->trainers < 1 ? 1 : L->trainers;
    if (t < 0 || t >= T)
        return gnn_err_set(err, GNN_ERR_INVAL, "trainer %lld of a part with %lld trainers", (long long)t, (long long)T);
    int64_t m = 0;
    for (int64_t i = 0; i < L->n_train; i++)
        m += !L->trainer || L->trainer[L->train[i]] == t;
    int64_t *s = gnn_malloc((size_t)(m > 0 ? m : 1) * sizeof(int64_t));
    if (!s)
        return gnn_err_set(err, GNN_ERR_NOMEM, "trainer seeds: out of memory");
    m = 0;
    for (int64_t i = 0; i < L->n_train; i++)
        if (!L->trainer || L->trainer[L->train[i]] == t)
            s[m++] = L->train[i];
    *seeds = s;
    *count = m;
    return GNN_OK;
}

gnn_status gnn_part_block_ids(const gnn_part_local *L, const gnn_block *b, int64_t *vid_o, uint8_t *is_halo,
                              int64_t *n_halo, gnn_err *err)
{
    const int64_t nl = L->n_solid + L->n_halo;
    int64_t halos = 0;
    for (int64_t i = 0; i < b->n_src; i++) {
        const int64_t p = b->src_gid[i];
        if (p < 0 || p >= nl)
            return gnn_err_set(err, GNN_ERR_RANGE, "block source %lld has VID_p %lld, rank %lld has %lld local vertices",
                               (long long)i, (long long)p, (long long)L->rank, (long long)nl);
        if (vid_o)
            vid_o[i] = L->vid_o[p];
        if (is_halo)
            is_halo[i] = p >= L->n_solid;
        halos += p >= L->n_solid;
    }
    if (n_halo)
        *n_halo = halos;
    return GNN_OK;
}

/* ---- argument checks of the structure and the quality ------------------------------------------------ */

/* k in [1, INT32_MAX], part values in [0, k): the first bad vertex is found in parallel (the
 * part vector is as long as the graph) and named in the message. */
static gnn_status check_args(const gnn_csr *g, const int32_t *part, int64_t k, gnn_err *err)
{
    if (k < 1 || k > INT32_MAX)
        return gnn_err_set(err, GNN_ERR_INVAL, "partition: k = %lld outside [1, %d]", (long long)k, INT32_MAX);
    const int64_t n = g->n;
    if (n < 0 || (n > 0 && !part))
        return gnn_err_set(err, GNN_ERR_INVAL, "partition: no part vector");
    int64_t bad = INT64_MAX;
#pragma omp parallel for schedule(static) reduction(min : bad)
    for (int64_t v = 0; v < n; v++)
        if ((part[v] < 0 || part[v] >= k) && v < bad)
            bad = v;
    if (bad != INT64_MAX)
        return gnn_err_set(err, GNN_ERR_RANGE, "partition: vertex %lld has part %d outside [0, %lld)", (long long)bad,
                           (int)part[bad], (long long)k);
    return GNN_OK;
}

gnn_status gnn_partition_build(const gnn_partition_ops *ops, gnn_partition *out, const gnn_csr *g,
                               const uint8_t *split, const int32_t *part, int64_t k, gnn_err *err)
{
    if (!out)
        return gnn_err_set(err, GNN_ERR_INVAL, "partition: out is NULL");
    memset(out, 0, sizeof *out);
    if (!ops || !ops->build)
        return gnn_err_set(err, GNN_ERR_INVAL, "partition: no implementation (ops is NULL)");
    if (!g)
        return gnn_err_set(err, GNN_ERR_INVAL, "partition: no graph");
    gnn_status s = check_args(g, part, k, err);
    if (s)
        return s;
    return ops->build(out, g, split, part, k, err);
}

/* ---- quality ------------------------------------------------------------------------------------------ */

void gnn_part_quality_free(gnn_part_quality *q)
{
    gnn_free(q->solid);
    gnn_free(q->halo);
    gnn_free(q->weight);
    memset(q, 0, sizeof *q);
}

static double max_over_mean(const int64_t *w, int64_t k, int stride)
{
    int64_t mx = 0, tot = 0;
    for (int64_t p = 0; p < k; p++) {
        const int64_t x = w[p * stride];
        mx = x > mx ? x : mx;
        tot += x;
    }
    return tot > 0 ? (double)mx * (double)k / (double)tot : 1.0;
}

gnn_status gnn_partition_quality(const gnn_csr *g, const uint8_t *split, const int32_t *part, int64_t k,
                                 unsigned balance, gnn_part_quality *q, gnn_err *err)
{
    return gnn_partition_quality_typed(g, split, NULL, 0, part, k, balance, q, err);
}

gnn_status gnn_partition_quality_typed(const gnn_csr *g, const uint8_t *split, const int32_t *vtype,
                                       int64_t num_vtypes, const int32_t *part, int64_t k, unsigned balance,
                                       gnn_part_quality *q, gnn_err *err)
{
    memset(q, 0, sizeof *q);
    gnn_status s = check_args(g, part, k, err);
    if (s)
        return s;
    const int64_t n = g->n;
    int64_t *w = NULL, *order = NULL, *start = NULL, *mark = NULL;
    gnn_csr sym;
    memset(&sym, 0, sizeof sym);
    int ncon;
    if ((s = gnn_partition_weights_typed(g, split, vtype, num_vtypes, balance, &w, &ncon, q->con, err)))
        return s;
    q->n = n;
    q->k = k;
    q->ncon = ncon;
    q->solid = gnn_calloc((size_t)k, sizeof(int64_t));
    q->halo = gnn_calloc((size_t)k, sizeof(int64_t));
    q->weight = gnn_calloc((size_t)k * (size_t)ncon, sizeof(int64_t));
    order = gnn_malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    start = gnn_calloc((size_t)k + 1, sizeof(int64_t));
    mark = gnn_malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (!q->solid || !q->halo || !q->weight || !order || !start || !mark) {
        s = GNN_ERR_NOMEM;
        goto done;
    }
    /* edge cut on the symmetrized graph: each undirected edge appears in both rows */
    if ((s = gnn_partition_symmetrize(g, &sym, err)))
        goto done;
    int64_t cut2 = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : cut2)
    for (int64_t v = 0; v < n; v++)
        for (int64_t e = sym.indptr[v]; e < sym.indptr[v + 1]; e++)
            cut2 += part[sym.indices[e]] != part[v];
    q->edges = sym.nnz / 2;
    q->edge_cut = cut2 / 2;
    /* weights and vertex counts */
    for (int64_t v = 0; v < n; v++) {
        q->solid[part[v]]++;
        for (int c = 0; c < ncon; c++)
            q->weight[part[v] * ncon + c] += w[v * ncon + c];
    }
    for (int c = 0; c < ncon; c++)
        q->imbalance[c] = max_over_mean(q->weight + c, k, ncon);
    q->vertex_imbalance = max_over_mean(q->solid, k, 1);
    /* halo counts: vertices grouped by part (counting sort); part p marks each foreign
     * in-neighbor u of its solid vertices with mark[u] = p, so it is counted once per part */
    for (int64_t p = 0; p < k; p++)
        start[p + 1] = start[p] + q->solid[p];
    int64_t *cur = gnn_malloc((size_t)k * sizeof(int64_t));
    if (!cur) {
        s = GNN_ERR_NOMEM;
        goto done;
    }
    memcpy(cur, start, (size_t)k * sizeof(int64_t));
    for (int64_t v = 0; v < n; v++)
        order[cur[part[v]]++] = v;
    gnn_free(cur);
    for (int64_t v = 0; v < n; v++)
        mark[v] = -1;
    for (int64_t p = 0; p < k; p++)
        for (int64_t i = start[p]; i < start[p + 1]; i++) {
            const int64_t v = order[i];
            for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
                const int64_t u = g->indices[e];
                if (part[u] != p && mark[u] != p) {
                    mark[u] = p;
                    q->halo[p]++;
                }
            }
        }
    for (int64_t p = 0; p < k; p++)
        q->halo_total += q->halo[p];
    q->halo_fraction = n + q->halo_total > 0 ? (double)q->halo_total / (double)(n + q->halo_total) : 0.0;
done:
    gnn_free(w);
    gnn_free(order);
    gnn_free(start);
    gnn_free(mark);
    gnn_csr_free(&sym);
    if (s)
        gnn_part_quality_free(q);
    return s;
}

/* ---- the structure: free ----------------------------------------------------------------------------- */

void gnn_part_local_free(gnn_part_local *L)
{
    if (!L)
        return;
    gnn_csr_free(&L->graph);
    gnn_free(L->vid_o);
    gnn_free(L->vid_p);
    gnn_free(L->halo_owner);
    gnn_free(L->halo_owner_local);
    gnn_free(L->train);
    gnn_free(L->val);
    gnn_free(L->test);
    gnn_free(L->trainer);
    memset(L, 0, sizeof *L);
}

void gnn_partition_free(gnn_partition *p)
{
    if (!p)
        return;
    if (p->parts)
        for (int64_t r = 0; r < p->k; r++)
            gnn_part_local_free(&p->parts[r]);
    gnn_free(p->parts);
    gnn_free(p->part);
    gnn_free(p->trainer);
    memset(p, 0, sizeof *p);
}
