/* tests/test_api_dist.c -- the "api" cases of the sampling and distributed subsystems: bad
 * arguments to the checked entry points give the same status, and the same message where the
 * entry point takes a gnn_err, for every implementation.
 *
 * The entry points: gnn_idmap_create/build (idmap.h), gnn_sampler_create/layer/blocks
 * (sample.h), gnn_aep_select (aep.h), gnn_partition_build (partition.h), gnn_db_halo_build
 * (halo.h). The tables come from the oracle registry (tables_of), so a new implementation is
 * covered as soon as it is registered; the cpu ID map and sampler are run with every kind and
 * variant. Each bad call is made with every table; the first table's status and message are
 * the ones every other table must give, and the expected status is asserted as well. Outputs
 * that the entry point must not touch (the call fails before the implementation runs) are
 * filled with a known byte first and checked afterwards. The meaning of each error is tested
 * with the subsystem (tests/test_aep.c, test_halo.c, test_partition.c, test_sample_weighted.c,
 * the oracle's bad-input presets); here only the agreement between implementations. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gnnref/aep.h"
#include "gnnref/cuda.h"
#include "gnnref/halo.h"
#include "gnnref/idmap.h"
#include "gnnref/oracle.h"
#include "gnnref/partition.h"
#include "gnnref/sample.h"
#include "gnnref/sim.h"

#define MAX_TABLES 8
#define FILL 0x5A

/* The distinct ops tables the registry lists for the entries (NULL-terminated names), the
 * reference first. */
static int tables_of(const char *const *entries, const void **t)
{
    int n = 0;
    for (int k = 0; entries[k]; k++) {
        const gnn_oracle_entry *e = gnn_oracle_find(entries[k]);
        ck_assert_msg(e != NULL, "no oracle entry %s", entries[k]);
        const gnn_oracle_impl *all[64];
        int m = 0;
        all[m++] = e->ref;
        for (const gnn_oracle_impl *const *i = e->impls; *i && m < 64; i++)
            all[m++] = *i;
        for (int i = 0; i < m; i++) {
            /* a `cuda` table where no GPU is refuses every call (the oracle says SKIP there);
             * on a GPU machine it is checked like the others */
            if (!strcmp(all[i]->name, "cuda") && !gnn_cuda_available(NULL, 0))
                continue;
            int seen = 0;
            for (int j = 0; j < n; j++)
                seen |= t[j] == all[i]->ops;
            if (!seen) {
                ck_assert_int_lt(n, MAX_TABLES);
                t[n++] = all[i]->ops;
            }
        }
    }
    ck_assert_int_ge(n, 2); /* the reference and at least one implementation */
    return n;
}

/* What one call returned, to compare across tables. */
typedef struct verdict {
    gnn_status st;
    gnn_err err;
} verdict;

static void same_verdict(const char *what, const char *name0, const verdict *v0, const char *name,
                         const verdict *v, gnn_status want)
{
    ck_assert_msg(v->st == want, "%s: %s returned %s (%s), expected %s", what, name, gnn_status_str(v->st),
                  v->err.msg, gnn_status_str(want));
    ck_assert_msg(v->st == v0->st && strcmp(v->err.msg, v0->err.msg) == 0, "%s: %s says %s '%s', %s says %s '%s'",
                  what, name0, gnn_status_str(v0->st), v0->err.msg, name, gnn_status_str(v->st), v->err.msg);
}

static int untouched(const void *p, size_t bytes)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < bytes; i++)
        if (b[i] != FILL)
            return 0;
    return 1;
}

/* ---- ID maps ------------------------------------------------------------------------------ */

enum { MAP_NV = 50, MAP_NDST = 3, MAP_NNZ = 6 };
static const int64_t k_dst[MAP_NDST] = { 10, 20, 30 }, k_nbr[MAP_NNZ] = { 7, 30, 7, 41, 10, 49 };

/* Bad call c of gnn_idmap_build on map m; returns what it is and sets *want. Every check of the
 * entry point fails before the map is touched, except the repeated dst (the map finds it). */
static const char *map_call(int c, gnn_idmap *m, int32_t *local, int64_t *src_gid, gnn_status *want,
                            gnn_status *st)
{
    int64_t dst[MAP_NDST], nbr[MAP_NNZ], n_src = -1;
    memcpy(dst, k_dst, sizeof dst);
    memcpy(nbr, k_nbr, sizeof nbr);
    int64_t n_dst = MAP_NDST, nnz = MAP_NNZ, *pd = dst, *pn = nbr, *pns = &n_src;
    int32_t *pl = local;
    int64_t *pg = src_gid;
    const char *what;
    *want = GNN_ERR_INVAL;
    switch (c) {
    case 0: what = "NULL map"; m = NULL; break;
    case 1: what = "NULL dst"; pd = NULL; break;
    case 2: what = "NULL nbr"; pn = NULL; break;
    case 3: what = "NULL local"; pl = NULL; break;
    case 4: what = "NULL src_gid"; pg = NULL; break;
    case 5: what = "NULL n_src"; pns = NULL; break;
    case 6: what = "n_dst < 0"; n_dst = -1; *want = GNN_ERR_RANGE; break;
    case 7: what = "nnz < 0"; nnz = -1; *want = GNN_ERR_RANGE; break;
    case 8: what = "n_dst + nnz > INT32_MAX"; n_dst = INT32_MAX; *want = GNN_ERR_RANGE; break;
    case 9: what = "neighbor id = n_vertices"; nbr[3] = MAP_NV; *want = GNN_ERR_RANGE; break;
    case 10: what = "negative neighbor id"; nbr[5] = -1; *want = GNN_ERR_RANGE; break;
    case 11: what = "dst id = n_vertices"; dst[1] = MAP_NV; *want = GNN_ERR_RANGE; break;
    case 12: what = "a repeated dst and a neighbor out of range"; dst[2] = dst[0]; nbr[0] = -7;
        *want = GNN_ERR_RANGE; break;
    default: what = "a repeated dst"; dst[2] = dst[0]; break;
    }
    *st = gnn_idmap_build(m, pd, n_dst, pn, nnz, pl, pg, pns);
    return what;
}
enum { MAP_CALLS = 14 };

START_TEST(idmap_api)
{
    static const char *const entries[] = { "idmap.build", "idmap.fused", NULL };
    const void *t[MAX_TABLES];
    const int n = tables_of(entries, t);
    for (int i = 0; i < n; i++) { /* create: the same refusals whatever the table */
        const gnn_idmap_ops *ops = t[i];
        gnn_idmap *m = (gnn_idmap *)&m;
        ck_assert_int_eq(gnn_idmap_create(NULL, ops, GNN_IDMAP_DENSE, MAP_NV), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_idmap_create(&m, NULL, GNN_IDMAP_DENSE, MAP_NV), GNN_ERR_INVAL);
        ck_assert_ptr_null(m);
        ck_assert_int_eq(gnn_idmap_create(&m, ops, (gnn_idmap_kind)-1, MAP_NV), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_idmap_create(&m, ops, GNN_IDMAP_KIND_COUNT, MAP_NV), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_idmap_create(&m, ops, GNN_IDMAP_DENSE, -1), GNN_ERR_INVAL);
        ck_assert_ptr_null(m);
    }
    int32_t want_local[MAP_NNZ];
    int64_t want_gid[MAP_NDST + MAP_NNZ], want_n;
    ck_assert_int_eq(gnn_idmap_build_ref(k_dst, MAP_NDST, k_nbr, MAP_NNZ, want_local, want_gid, &want_n), GNN_OK);
    for (int kind = 0; kind < GNN_IDMAP_KIND_COUNT; kind++)
        for (int i = 0; i < n; i++) {
            const gnn_idmap_ops *ops = t[i];
            gnn_idmap *m;
            ck_assert_int_eq(gnn_idmap_create(&m, ops, (gnn_idmap_kind)kind, MAP_NV), GNN_OK);
            int32_t local[MAP_NNZ];
            int64_t src_gid[MAP_NDST + MAP_NNZ], n_src;
            for (int c = 0; c < MAP_CALLS; c++) {
                memset(local, FILL, sizeof local);
                memset(src_gid, FILL, sizeof src_gid);
                gnn_status want, st;
                const char *what = map_call(c, m, local, src_gid, &want, &st);
                ck_assert_msg(st == want, "%s (kind %s): %s returned %s, expected %s", ops->name,
                              gnn_idmap_kind_name((gnn_idmap_kind)kind), what, gnn_status_str(st),
                              gnn_status_str(want));
                if (c < MAP_CALLS - 1) /* refused by the entry point: nothing written */
                    ck_assert_msg(untouched(local, sizeof local) && untouched(src_gid, sizeof src_gid),
                                  "%s: %s wrote its outputs", ops->name, what);
            }
            /* the map still works after every refusal: the reference's ids (canonical for FUSED) */
            ck_assert_int_eq(gnn_idmap_build(m, k_dst, MAP_NDST, k_nbr, MAP_NNZ, local, src_gid, &n_src), GNN_OK);
            ck_assert_int_eq(n_src, want_n);
            for (int e = 0; e < MAP_NNZ; e++)
                ck_assert_int_eq(src_gid[local[e]], k_nbr[e]);
            if (gnn_idmap_kind_ordered((gnn_idmap_kind)kind))
                ck_assert_mem_eq(local, want_local, sizeof local);
            gnn_idmap_destroy(m);
        }
}
END_TEST

/* ---- samplers ----------------------------------------------------------------------------- */

/* 6 vertices; rows are in-neighbors: 0: 1 2 3, 1: 0, 2: -, 3: 0 1 2 4 5, 4: 3, 5: 3 4 */
static const int64_t k_sptr[7] = { 0, 3, 4, 4, 9, 10, 12 };
static const int64_t k_sidx[12] = { 1, 2, 3, 0, 0, 1, 2, 4, 5, 3, 3, 4 };

static gnn_csr sample_graph(void)
{
    gnn_csr g = { .n = 6, .nnz = 12, .indptr = (int64_t *)k_sptr, .indices = (int64_t *)k_sidx, .owns = 0 };
    return g;
}

/* Bad call c of gnn_sampler_layer; sets *want. */
static const char *layer_call(int c, gnn_sampler *s, gnn_block *out, gnn_status *want, gnn_status *st)
{
    float w[12];
    for (int e = 0; e < 12; e++)
        w[e] = 1.0f + (float)e;
    int64_t seeds[3] = { 3, 0, 5 }, n_seeds = 3, *ps = seeds;
    gnn_sample_params p = { .fanout = 2, .seed = 9, .step = 1, .layer = 0 }, *pp = &p;
    gnn_block *po = out;
    const char *what;
    *want = GNN_ERR_INVAL;
    switch (c) {
    case 0: what = "NULL sampler"; s = NULL; break;
    case 1: what = "NULL params"; pp = NULL; break;
    case 2: what = "n_seeds < 0"; n_seeds = -1; break;
    case 3: what = "NULL seeds"; ps = NULL; break;
    case 4: what = "NULL out"; po = NULL; break;
    case 5: what = "a seed = n"; seeds[1] = 6; *want = GNN_ERR_RANGE; break;
    case 6: what = "a negative seed"; seeds[2] = -1; *want = GNN_ERR_RANGE; break;
    case 7: what = "a repeated seed"; seeds[2] = seeds[0]; break;
    case 8: what = "a negative weight"; w[5] = -1.0f; p.weights = w; break;
    case 9: what = "a NaN weight, with replacement"; w[0] = NAN; p.weights = w; p.replace = 1; break;
    default: what = "a seed out of range and a bad weight"; seeds[0] = 99; w[0] = -1.0f; p.weights = w;
        *want = GNN_ERR_RANGE; break;
    }
    *st = gnn_sampler_layer(s, ps, n_seeds, pp, po);
    return what;
}
enum { LAYER_CALLS = 11 };

/* Bad call c of gnn_sampler_blocks (all INVAL but the seed out of range). */
static const char *blocks_call(int c, gnn_sampler *s, gnn_block *blocks, gnn_status *want, gnn_status *st)
{
    int64_t seeds[2] = { 3, 5 }, fanouts[2] = { 2, 2 }, n_seeds = 2, *pf = fanouts;
    gnn_sample_params base = { .seed = 9, .step = 1 }, *pb = &base;
    gnn_block *pk = blocks;
    int L = 2;
    const char *what;
    *want = GNN_ERR_INVAL;
    switch (c) {
    case 0: what = "NULL sampler"; s = NULL; break;
    case 1: what = "L = 0"; L = 0; break;
    case 2: what = "L = 256"; L = 256; break;
    case 3: what = "NULL fanouts"; pf = NULL; break;
    case 4: what = "NULL base"; pb = NULL; break;
    case 5: what = "NULL blocks"; pk = NULL; break;
    case 6: what = "n_seeds < 0"; n_seeds = -1; break;
    default: what = "a seed out of range"; seeds[1] = 6; *want = GNN_ERR_RANGE; break;
    }
    *st = gnn_sampler_blocks(s, seeds, n_seeds, pf, L, pb, pk);
    return what;
}
enum { BLOCKS_CALLS = 8 };

static void sampler_refusals(const gnn_sampler_ops *ops, const char *opts, gnn_sampler *s)
{
    for (int c = 0; c < LAYER_CALLS; c++) {
        gnn_block out;
        memset(&out, FILL, sizeof out);
        gnn_status want, st;
        const char *what = layer_call(c, s, &out, &want, &st);
        ck_assert_msg(st == want, "%s (%s) layer: %s returned %s, expected %s", ops->name, opts, what,
                      gnn_status_str(st), gnn_status_str(want));
        if (c != 4) /* out is zeroed on every error, so freeing it is safe */
            ck_assert_msg(out.indptr == NULL && out.indices == NULL && out.src_gid == NULL,
                          "%s (%s): %s left a block behind", ops->name, opts, what);
    }
    for (int c = 0; c < BLOCKS_CALLS; c++) {
        gnn_block blocks[2];
        memset(blocks, 0, sizeof blocks);
        gnn_status want, st;
        const char *what = blocks_call(c, s, blocks, &want, &st);
        ck_assert_msg(st == want, "%s (%s) blocks: %s returned %s, expected %s", ops->name, opts, what,
                      gnn_status_str(st), gnn_status_str(want));
        gnn_block_free(&blocks[0]);
        gnn_block_free(&blocks[1]);
    }
}

START_TEST(sampler_api)
{
    static const char *const entries[] = { "sample.layer", "sample.layer.fusedmap", NULL };
    const void *t[MAX_TABLES];
    const int n = tables_of(entries, t);
    gnn_csr g = sample_graph();
    for (int i = 0; i < n; i++) {
        const gnn_sampler_ops *ops = t[i];
        gnn_sampler *s = (gnn_sampler *)&s;
        const gnn_sampler_options bad_variant = { .variant = (gnn_sampler_variant)2, .idmap = GNN_IDMAP_DENSE };
        const gnn_sampler_options bad_map[2] = { { .variant = GNN_SAMPLER_FUSED, .idmap = -1 },
                                                  { .variant = GNN_SAMPLER_FUSED, .idmap = GNN_IDMAP_KIND_COUNT } };
        ck_assert_int_eq(gnn_sampler_create(NULL, ops, &g, NULL), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_sampler_create(&s, NULL, &g, NULL), GNN_ERR_INVAL);
        ck_assert_ptr_null(s);
        ck_assert_int_eq(gnn_sampler_create(&s, ops, NULL, NULL), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_sampler_create(&s, ops, &g, &bad_variant), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_sampler_create(&s, ops, &g, &bad_map[0]), GNN_ERR_INVAL);
        ck_assert_int_eq(gnn_sampler_create(&s, ops, &g, &bad_map[1]), GNN_ERR_INVAL);
        ck_assert_ptr_null(s);
        for (int v = 0; v < 2; v++)
            for (int k = 0; k < GNN_IDMAP_KIND_COUNT; k++) {
                const gnn_sampler_options o = { .variant = (gnn_sampler_variant)v, .idmap = k };
                char opts[64];
                snprintf(opts, sizeof opts, "%s-%s", gnn_sampler_variant_name(o.variant),
                         gnn_idmap_kind_name((gnn_idmap_kind)k));
                ck_assert_int_eq(gnn_sampler_create(&s, ops, &g, &o), GNN_OK);
                sampler_refusals(ops, opts, s);
                gnn_sampler_destroy(s);
            }
    }
}
END_TEST

/* ---- AEP push selection ------------------------------------------------------------------- */

static const int64_t k_vid[4] = { 9, 2, 7, 4 }, k_deg[4] = { 3, 0, 1, 5 };
static const int64_t k_neg_deg[4] = { 3, 0, -1, 5 }, k_neg_vid[4] = { 9, -2, 7, 4 };

/* Bad call c of gnn_aep_select with ops (call 0 is valid). */
static const char *aep_call(int c, const gnn_aep_ops *ops, uint8_t *keep, verdict *v)
{
    gnn_aep_select_args a = { .vid_o = k_vid, .deg = k_deg, .m = 4, .nc = 2, .seed = 3, .step = 1, .layer = 2,
                              .dst_rank = 1 };
    gnn_aep_select_args *pa = &a;
    uint8_t *pk = keep;
    int64_t kept = -1, *pn = &kept;
    const char *what;
    switch (c) {
    case 0: what = "valid"; break;
    case 1: what = "NULL ops"; ops = NULL; break;
    case 2: what = "NULL args"; pa = NULL; break;
    case 3: what = "NULL keep"; pk = NULL; break;
    case 4: what = "NULL n_kept"; pn = NULL; break;
    case 5: what = "m < 0"; a.m = -1; break;
    case 6: what = "NULL vid_o"; a.vid_o = NULL; break;
    case 7: what = "NULL deg"; a.deg = NULL; break;
    case 8: what = "nc < 0"; a.nc = -1; break;
    case 9: what = "layer 256"; a.layer = 256; break;
    case 10: what = "layer -1"; a.layer = -1; break;
    case 11: what = "destination rank < 0"; a.dst_rank = -1; break;
    case 12: what = "a negative degree"; a.deg = k_neg_deg; break;
    default: what = "a negative vertex id"; a.vid_o = k_neg_vid; break;
    }
    v->err.msg[0] = '\0';
    v->st = gnn_aep_select(ops, pa, pk, pn, &v->err);
    return what;
}
enum { AEP_CALLS = 14 };

START_TEST(aep_api)
{
    static const char *const entries[] = { "aep.select", NULL };
    const void *t[MAX_TABLES];
    const int n = tables_of(entries, t);
    for (int c = 0; c < AEP_CALLS; c++) {
        verdict v0, v;
        const char *what = NULL;
        for (int i = 0; i < n; i++) {
            uint8_t keep[4];
            memset(keep, FILL, sizeof keep);
            what = aep_call(c, t[i], keep, i ? &v : &v0);
            same_verdict(what, ((const gnn_aep_ops *)t[0])->name, &v0, ((const gnn_aep_ops *)t[i])->name,
                         i ? &v : &v0, c ? GNN_ERR_INVAL : GNN_OK);
            if (c)
                ck_assert_msg(untouched(keep, sizeof keep), "%s: keep written", what);
        }
    }
}
END_TEST

/* ---- partition structure ------------------------------------------------------------------ */

/* 5 vertices in a directed ring 0 -> 1 -> 2 -> 3 -> 4 -> 0 (row v: its in-neighbor v - 1) */
static const int64_t k_rptr[6] = { 0, 1, 2, 3, 4, 5 }, k_ridx[5] = { 4, 0, 1, 2, 3 };
static const int32_t k_part[5] = { 0, 1, 0, 1, 1 };

static const char *partition_call(int c, const gnn_partition_ops *ops, gnn_partition *out, verdict *v)
{
    gnn_csr g = { .n = 5, .nnz = 5, .indptr = (int64_t *)k_rptr, .indices = (int64_t *)k_ridx, .owns = 0 }, *pg = &g;
    int32_t part[5];
    memcpy(part, k_part, sizeof part);
    const int32_t *pp = part;
    int64_t k = 2;
    const char *what;
    switch (c) {
    case 0: what = "valid"; break;
    case 1: what = "NULL out"; out = NULL; break;
    case 2: what = "NULL ops"; ops = NULL; break;
    case 3: what = "NULL graph"; pg = NULL; break;
    case 4: what = "k = 0"; k = 0; break;
    case 5: what = "k beyond int32"; k = (int64_t)INT32_MAX + 1; break;
    case 6: what = "NULL part"; pp = NULL; break;
    case 7: what = "a part value = k"; part[3] = 2; break;
    default: what = "a negative part value"; part[0] = -1; break;
    }
    v->err.msg[0] = '\0';
    v->st = gnn_partition_build(ops, out, pg, NULL, pp, k, &v->err);
    return what;
}
enum { PARTITION_CALLS = 9 };

START_TEST(partition_api)
{
    static const char *const entries[] = { "partition.build", NULL };
    const void *t[MAX_TABLES];
    const int n = tables_of(entries, t);
    for (int c = 0; c < PARTITION_CALLS; c++) {
        verdict v0, v;
        for (int i = 0; i < n; i++) {
            gnn_partition P;
            memset(&P, FILL, sizeof P);
            const char *what = partition_call(c, t[i], &P, i ? &v : &v0);
            const gnn_status want = c == 0 ? GNN_OK : c >= 7 ? GNN_ERR_RANGE : GNN_ERR_INVAL;
            same_verdict(what, ((const gnn_partition_ops *)t[0])->name, &v0, ((const gnn_partition_ops *)t[i])->name,
                         i ? &v : &v0, want);
            if (c != 1 && c != 0) /* refused: *out is left empty */
                ck_assert_msg(P.parts == NULL && P.part == NULL && P.k == 0, "%s: out not empty", what);
            if (c != 1)
                gnn_partition_free(&P);
        }
    }
}
END_TEST

/* ---- db_halo (collective: every rank's verdict) -------------------------------------------- */

#define HALO_RANKS 2

typedef struct halo_job {
    const gnn_db_halo_ops *ops;
    const gnn_part_local *me[HALO_RANKS]; /* what each rank passes */
    int64_t n;
    verdict v[HALO_RANKS];
} halo_job;

static gnn_status halo_rank(gnn_comm *c, void *arg)
{
    halo_job *J = arg;
    const int r = gnn_comm_rank(c);
    gnn_db_halo t;
    J->v[r].err.msg[0] = '\0';
    J->v[r].st = gnn_db_halo_build(J->ops, c, J->me[r], J->n, &t, &J->v[r].err);
    gnn_db_halo_free(&t);
    return GNN_OK; /* the test compares every rank's verdict */
}

/* Case c: what each rank passes, from the 2-part partition A, the 3-part B and the 2-part C of
 * the ring (A's part 0 and C's part 1 hold 4 of the 5 vertices). */
static const char *halo_case(int c, const gnn_partition *A, const gnn_partition *B, const gnn_partition *C,
                             halo_job *J)
{
    J->n = 5;
    J->me[0] = &A->parts[0];
    J->me[1] = &A->parts[1];
    switch (c) {
    case 0: return "valid";
    case 1: J->me[1] = NULL; return "a rank passing no part";
    case 2: J->me[0] = &A->parts[1]; return "a rank passing another rank's part";
    case 3: J->me[0] = &B->parts[0]; J->me[1] = &B->parts[1]; return "3 parts on 2 ranks";
    case 4: J->me[1] = &C->parts[1]; return "parts of two partitions";
    default: J->n = 3; return "n_global too small";
    }
}
enum { HALO_CASES = 6 };

START_TEST(db_halo_api)
{
    static const char *const entries[] = { "partition.db_halo", NULL };
    const void *t[MAX_TABLES];
    const int n = tables_of(entries, t);
    gnn_csr g = { .n = 5, .nnz = 5, .indptr = (int64_t *)k_rptr, .indices = (int64_t *)k_ridx, .owns = 0 };
    const int32_t partB[5] = { 0, 1, 2, 0, 1 }, partC[5] = { 0, 0, 0, 1, 1 };
    gnn_partition A, B, C;
    gnn_err err;
    ck_assert_int_eq(gnn_partition_build(&gnn_partition_ref, &A, &g, NULL, k_part, 2, &err), GNN_OK);
    ck_assert_int_eq(gnn_partition_build(&gnn_partition_ref, &B, &g, NULL, partB, 3, &err), GNN_OK);
    ck_assert_int_eq(gnn_partition_build(&gnn_partition_ref, &C, &g, NULL, partC, 2, &err), GNN_OK);
    for (int c = 0; c < HALO_CASES; c++) {
        halo_job J0, J;
        for (int i = 0; i < n; i++) {
            halo_job *Jp = i ? &J : &J0;
            memset(Jp, 0, sizeof *Jp);
            Jp->ops = t[i];
            const char *what = halo_case(c, &A, &B, &C, Jp);
            gnn_sim_config cfg;
            gnn_sim_defaults(&cfg);
            cfg.ranks = HALO_RANKS;
            cfg.timeout_s = 30;
            ck_assert_msg(gnn_sim_run(&cfg, halo_rank, Jp, NULL, &err) == GNN_OK, "%s: %s", what, err.msg);
            for (int r = 0; r < HALO_RANKS; r++) {
                char who[96];
                snprintf(who, sizeof who, "%s, rank %d", what, r);
                same_verdict(who, J0.ops->name, &J0.v[r], Jp->ops->name, &Jp->v[r], c ? J0.v[r].st : GNN_OK);
                ck_assert_msg(!c || Jp->v[r].st != GNN_OK, "%s: accepted", who);
            }
        }
    }
    /* the refusals made without communicating */
    for (int i = 0; i < n; i++) {
        const gnn_db_halo_ops *ops = t[i];
        gnn_db_halo out;
        verdict v[3];
        v[0].st = gnn_db_halo_build(ops, NULL, &A.parts[0], 5, &out, &v[0].err);
        v[1].st = gnn_db_halo_build(ops, NULL, &A.parts[0], 5, NULL, &v[1].err);
        v[2].st = gnn_db_halo_build(NULL, NULL, &A.parts[0], 5, &out, &v[2].err);
        for (int k = 0; k < 3; k++)
            ck_assert_msg(v[k].st == GNN_ERR_INVAL, "%s: call %d: %s (%s)", ops->name, k, gnn_status_str(v[k].st),
                          v[k].err.msg);
        ck_assert_ptr_nonnull(strstr(v[0].err.msg, "no communicator"));
        ck_assert_ptr_nonnull(strstr(v[1].err.msg, "out is NULL"));
        ck_assert_ptr_nonnull(strstr(v[2].err.msg, "no implementation"));
        ck_assert_ptr_null(out.off);
    }
    gnn_partition_free(&A);
    gnn_partition_free(&B);
    gnn_partition_free(&C);
}
END_TEST

Suite *suite_api_dist(void)
{
    Suite *s = suite_create("api_dist");
    TCase *tc = tcase_create("api");
    tcase_set_tags(tc, "cpu sim");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, idmap_api);
    tcase_add_test(tc, sampler_api);
    tcase_add_test(tc, aep_api);
    tcase_add_test(tc, partition_api);
    tcase_add_test(tc, db_halo_api);
    suite_add_tcase(s, tc);
    return s;
}
