/* tests/test_hetero_ids.c -- the partition book of a typed graph and its type-wise ids
 * (include/gnnref/hetero.h; the oracle entry hetero.ids checks ref against cpu and the
 * properties): a book worked by hand, mutants the entry must catch (one the comparison with
 * ref catches, two only its verifier can), the argument checks, and METIS balance over the
 * vertex types (include/gnnref/partition.h, GNN_BALANCE_TYPES) on a typed SBM, with the CLI's
 * report of the book. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/dataset.h"
#include "gnnref/hetero.h"
#include "gnnref/impl.h"
#include "gnnref/oracle.h"
#include "gnnref/partition.h"
#include "gnnref/tensor.h"
#include "cli_util.h"

/* n = 8, T = 3 (types 0 0 0 1 1 2 2 2), P = 2; type 1 never in part 0:
 *   cell (0,0) v1; (0,1) none; (0,2) v5 v7; (1,0) v0 v2; (1,1) v3 v4; (1,2) v6
 *   new ids: v1 0; v5 1, v7 2; v0 3, v2 4; v3 5, v4 6; v6 7
 *   type-wise: type 0: part 0 from 0 (1 vertex), part 1 from 1; type 1: part 1 from 0;
 *   type 2: part 0 from 0 (2 vertices), part 1 from 2 */
static const int32_t k_part[8] = { 1, 0, 1, 1, 1, 0, 1, 0 };
static const int32_t k_type[8] = { 0, 0, 0, 1, 1, 2, 2, 2 };

START_TEST(worked_by_hand)
{
    const gnn_hetero_ops *impls[2] = { &gnn_hetero_ref, &gnn_hetero_cpu };
    for (int s = 0; s < 2; s++) {
        gnn_hetero_book b;
        int64_t n2o[8];
        gnn_err err = { "" };
        ck_assert_msg(gnn_hetero_book_build(impls[s], k_part, k_type, 8, 2, 3, &b, n2o, &err) == GNN_OK, "%s", err.msg);
        const int64_t start[7] = { 0, 1, 1, 3, 5, 7, 8 }, off[6] = { 0, 0, 0, 1, 0, 2 }, cnt[3] = { 3, 2, 3 };
        const int64_t want_n2o[8] = { 3, 0, 4, 5, 6, 1, 7, 2 };
        ck_assert_int_eq(b.P, 2);
        ck_assert_int_eq(b.T, 3);
        ck_assert_int_eq(b.n, 8);
        for (int c = 0; c < 7; c++)
            ck_assert_int_eq(b.start[c], start[c]);
        for (int c = 0; c < 6; c++)
            ck_assert_int_eq(b.tw_offset[c], off[c]);
        for (int t = 0; t < 3; t++)
            ck_assert_int_eq(b.type_count[t], cnt[t]);
        for (int v = 0; v < 8; v++)
            ck_assert_int_eq(n2o[v], want_n2o[v]);
        ck_assert_int_eq(gnn_hetero_cell_count(&b, 0, 1), 0);
        int64_t h[8], tw[8], back[8];
        int32_t ty[8], pt[8];
        for (int i = 0; i < 8; i++)
            h[i] = i;
        ck_assert_int_eq(gnn_hetero_to_typed(impls[s], &b, h, 8, ty, tw, &err), GNN_OK);
        ck_assert_int_eq(gnn_hetero_part_of(impls[s], &b, h, 8, pt, &err), GNN_OK);
        const int32_t want_ty[8] = { 0, 2, 2, 0, 0, 1, 1, 2 }, want_pt[8] = { 0, 0, 0, 1, 1, 1, 1, 1 };
        const int64_t want_tw[8] = { 0, 0, 1, 1, 2, 0, 1, 2 };
        for (int i = 0; i < 8; i++) {
            ck_assert_int_eq(ty[i], want_ty[i]);
            ck_assert_int_eq(tw[i], want_tw[i]);
            ck_assert_int_eq(pt[i], want_pt[i]);
        }
        ck_assert_int_eq(gnn_hetero_to_homo(impls[s], &b, ty, tw, 8, back, &err), GNN_OK);
        for (int i = 0; i < 8; i++)
            ck_assert_int_eq(back[i], i);
        /* the relabel carries part and type: part_of(new id) = part[old id] */
        for (int v = 0; v < 8; v++) {
            ck_assert_int_eq(pt[n2o[v]], k_part[v]);
            ck_assert_int_eq(ty[n2o[v]], k_type[v]);
        }
        gnn_hetero_book_free(&b);
        ck_assert_ptr_null(b.start);
    }
}
END_TEST

/* ---- mutants ---- */

/* to_typed with the binary search one cell too early where a start equals the id */
static void early_to_typed(const gnn_hetero_book *b, const int64_t *homo, int64_t m, int32_t *type_out, int64_t *tw_out)
{
    gnn_hetero_ref.to_typed(b, homo, m, type_out, tw_out);
    for (int64_t i = 0; i < m; i++) {
        int64_t c = 0;
        while (c + 1 < b->P * b->T && b->start[c + 1] < homo[i]) /* '<' where the search has '<=' */
            c++;
        type_out[i] = (int32_t)(c % b->T);
        tw_out[i] = b->tw_offset[c] + homo[i] - b->start[c];
    }
}
/* a build that hands out new ids in reverse old order inside each cell (not stable) */
static gnn_status unstable_build(const int32_t *part, const int32_t *type, int64_t n, int64_t P, int64_t T,
                                 gnn_hetero_book *b, int64_t *n2o, gnn_err *err)
{
    gnn_status s = gnn_hetero_ref.build(part, type, n, P, T, b, n2o, err);
    if (s || !n2o)
        return s;
    int64_t *end = gnn_malloc(sizeof(int64_t) * (size_t)(P * T + 1));
    memcpy(end, b->start + 1, sizeof(int64_t) * (size_t)(P * T));
    for (int64_t v = 0; v < n; v++)
        n2o[v] = --end[(int64_t)part[v] * T + type[v]];
    gnn_free(end);
    return s;
}
/* to_homo that maps the last type-wise id of every cell to the first of the next cell */
static void shifted_to_homo(const gnn_hetero_book *b, const int32_t *type, const int64_t *tw, int64_t m,
                            int64_t *homo_out)
{
    gnn_hetero_ref.to_homo(b, type, tw, m, homo_out);
    for (int64_t i = 0; i < m; i++)
        if (homo_out[i] + 1 < b->n && tw[i] == b->type_count[type[i]] - 1)
            homo_out[i]++;
}

static const gnn_hetero_ops k_early = { "early", NULL, early_to_typed, NULL, NULL };
static const gnn_hetero_ops k_unstable = { "unstable", unstable_build, NULL, NULL, NULL };
static const gnn_hetero_ops k_shifted = { "shifted", NULL, NULL, shifted_to_homo, NULL };

/* ops with the mutant's functions, the reference's elsewhere */
static gnn_hetero_ops with_ref(const gnn_hetero_ops *m)
{
    gnn_hetero_ops o = gnn_hetero_ref;
    o.name = m->name;
    o.build = m->build ? m->build : o.build;
    o.to_typed = m->to_typed ? m->to_typed : o.to_typed;
    o.to_homo = m->to_homo ? m->to_homo : o.to_homo;
    return o;
}

/* Failing presets of hetero.ids with the mutant as the implementation; alone = 1: the mutant
 * is the entry's reference too, so the comparison passes and only the verifier can fail. */
static int fails_with(const gnn_hetero_ops *ops, int alone)
{
    const gnn_oracle_entry *e0 = gnn_oracle_find("hetero.ids");
    ck_assert_ptr_nonnull(e0);
    gnn_oracle_entry e = *e0;
    const gnn_oracle_impl impl = { .name = ops->name, .ops = ops };
    const gnn_oracle_impl *const impls[] = { &impl, NULL };
    if (alone) {
        e.ref = &impl;
        e.impls = impls;
    }
    int fails = 0;
    for (int p = 0; e.presets[p]; p++) {
        gnn_oracle_case c;
        gnn_err err;
        ck_assert_int_eq(gnn_oracle_case_init(&c, &e, &impl, 1, e.presets[p], 1, &err), GNN_OK);
        gnn_oracle_result r;
        fails += gnn_oracle_run(&c, &r) == GNN_ORACLE_FAIL;
    }
    return fails;
}

START_TEST(mutants_caught)
{
    const gnn_hetero_ops early = with_ref(&k_early), unstable = with_ref(&k_unstable), shifted = with_ref(&k_shifted);
    ck_assert_int_eq(fails_with(&gnn_hetero_cpu, 0), 0);
    ck_assert_int_eq(fails_with(&gnn_hetero_ref, 1), 0);
    ck_assert_msg(fails_with(&early, 0) > 0, "hetero.ids passed a binary search one cell early");
    ck_assert_msg(fails_with(&early, 1) > 0, "the verifier passed a binary search one cell early");
    ck_assert_msg(fails_with(&unstable, 1) > 0, "the verifier passed an unstable relabel");
    ck_assert_msg(fails_with(&shifted, 1) > 0, "the verifier passed a to_homo off by one");
}
END_TEST

/* ---- argument checks ---- */

START_TEST(api_checks)
{
    const gnn_hetero_ops *ops = &gnn_hetero_cpu;
    gnn_hetero_book b;
    gnn_err err = { "" };
    int32_t part[8], type[8];
    memcpy(part, k_part, sizeof part);
    memcpy(type, k_type, sizeof type);
    ck_assert_int_eq(gnn_hetero_book_build(NULL, part, type, 8, 2, 3, &b, NULL, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_hetero_book_build(ops, part, type, 8, 2, 3, NULL, NULL, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_hetero_book_build(ops, part, type, 8, 0, 3, &b, NULL, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_hetero_book_build(ops, part, type, 8, 2, 0, &b, NULL, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_hetero_book_build(ops, part, type, -1, 2, 3, &b, NULL, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_hetero_book_build(ops, NULL, type, 8, 2, 3, &b, NULL, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_hetero_book_build(ops, part, NULL, 8, 2, 3, &b, NULL, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_hetero_book_build(ops, part, type, 8, (int64_t)1 << 31, 3, &b, NULL, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_hetero_book_build(ops, part, type, 8, 1 << 30, 1 << 30, &b, NULL, &err), GNN_ERR_INVAL);
    part[6] = 2; /* outside [0, P) */
    ck_assert_int_eq(gnn_hetero_book_build(ops, part, type, 8, 2, 3, &b, NULL, &err), GNN_ERR_RANGE);
    ck_assert_msg(strstr(err.msg, "part[6] = 2"), "%s", err.msg);
    part[6] = 1;
    type[7] = 3; /* outside [0, T) */
    ck_assert_int_eq(gnn_hetero_book_build(ops, part, type, 8, 2, 3, &b, NULL, &err), GNN_ERR_RANGE);
    ck_assert_msg(strstr(err.msg, "type[7] = 3"), "%s", err.msg);
    type[7] = 2;
    type[4] = 0; /* 0 0 0 1 0 2 2 2: not homogenized */
    ck_assert_int_eq(gnn_hetero_book_build(ops, part, type, 8, 2, 3, &b, NULL, &err), GNN_ERR_RANGE);
    ck_assert_msg(strstr(err.msg, "type[4] = 0") && strstr(err.msg, "homogenized"), "%s", err.msg);
    ck_assert_ptr_null(b.start); /* left empty */
    type[4] = 1;

    /* n = 0: a book of empty cells; conversions of nothing */
    ck_assert_int_eq(gnn_hetero_book_build(ops, NULL, NULL, 0, 3, 2, &b, NULL, &err), GNN_OK);
    for (int c = 0; c <= 6; c++)
        ck_assert_int_eq(b.start[c], 0);
    int64_t h0 = 0, tw;
    int32_t ty;
    ck_assert_int_eq(gnn_hetero_to_typed(ops, &b, NULL, 0, NULL, NULL, &err), GNN_OK);
    ck_assert_int_eq(gnn_hetero_to_typed(ops, &b, &h0, 1, &ty, &tw, &err), GNN_ERR_RANGE);
    gnn_hetero_book_free(&b);

    ck_assert_int_eq(gnn_hetero_book_build(ops, part, type, 8, 2, 3, &b, NULL, &err), GNN_OK);
    const int64_t bad_h[3] = { 0, 8, -1 };
    int64_t out64[3], h3[3];
    int32_t out32[3];
    ck_assert_int_eq(gnn_hetero_to_typed(ops, &b, bad_h, 3, out32, out64, &err), GNN_ERR_RANGE);
    ck_assert_msg(strstr(err.msg, "id 8 at position 1"), "%s", err.msg);
    ck_assert_int_eq(gnn_hetero_part_of(ops, &b, bad_h + 2, 1, out32, &err), GNN_ERR_RANGE);
    ck_assert_msg(strstr(err.msg, "id -1 at position 0"), "%s", err.msg);
    ck_assert_int_eq(gnn_hetero_to_typed(ops, &b, bad_h, -1, out32, out64, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_hetero_to_typed(ops, &b, bad_h, 1, NULL, out64, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_hetero_part_of(NULL, &b, bad_h, 1, out32, &err), GNN_ERR_INVAL);
    const int32_t tys[3] = { 1, 1, 3 };
    const int64_t tws[3] = { 0, 2, 0 }; /* type 1 has 2 vertices: type-wise id 2 is out */
    ck_assert_int_eq(gnn_hetero_to_homo(ops, &b, tys, tws, 3, h3, &err), GNN_ERR_RANGE);
    ck_assert_msg(strstr(err.msg, "type-wise id 2 of type 1 at position 1"), "%s", err.msg);
    ck_assert_int_eq(gnn_hetero_to_homo(ops, &b, tys + 2, tws + 2, 1, h3, &err), GNN_ERR_RANGE);
    ck_assert_msg(strstr(err.msg, "type 3 at position 0"), "%s", err.msg);
    ck_assert_int_eq(gnn_hetero_to_homo(ops, &b, tys, NULL, 1, h3, &err), GNN_ERR_INVAL);
    gnn_hetero_book_free(&b);
    /* a book that was not built */
    ck_assert_int_eq(gnn_hetero_part_of(ops, &b, bad_h, 1, out32, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_hetero_to_homo(ops, NULL, tys, tws, 1, h3, &err), GNN_ERR_INVAL);
    /* the context holds the tables */
    ck_assert_ptr_eq(gnn_impl_ref()->hetero, &gnn_hetero_ref);
    ck_assert_ptr_eq(gnn_impl_opt()->hetero, &gnn_hetero_cpu);
}
END_TEST

/* ---- METIS balance over the vertex types ---- */

static void typed_sbm(gnn_dataset *ds, int64_t n, int64_t types)
{
    gnn_sbm_params p;
    gnn_sbm_defaults(&p);
    p.n = n;
    p.train = 0.6, p.val = 0.2, p.test = 0.2;
    gnn_err err = { "" };
    ck_assert_msg(gnn_gen_typed_sbm(ds, &p, types, &err) == GNN_OK, "%s", err.msg);
    ck_assert_ptr_nonnull(ds->vtype);
    ck_assert_int_eq(ds->num_vtypes, types);
}

START_TEST(names_and_limits)
{
    unsigned b;
    gnn_err err = { "" };
    ck_assert_int_eq(gnn_part_balance_parse("train,types", &b, &err), GNN_OK);
    ck_assert_uint_eq(b, GNN_BALANCE_TRAIN | GNN_BALANCE_TYPES);
    ck_assert_int_eq(gnn_part_balance_parse("types,types", &b, &err), GNN_ERR_INVAL);
    ck_assert_int_eq(gnn_part_balance_parse("type", &b, &err), GNN_ERR_INVAL);
    ck_assert_str_eq(gnn_part_constraint_name(GNN_BALANCE_TYPES), "types");
    ck_assert_str_eq(gnn_part_constraint_name(GNN_PART_CON_TYPE(0)), "type0");
    ck_assert_str_eq(gnn_part_constraint_name(GNN_PART_CON_TYPE(15)), "type15");
    ck_assert_str_eq(gnn_part_constraint_name(1u << 5), "?");

    gnn_dataset ds;
    typed_sbm(&ds, 2000, 16);
    int64_t *w;
    int ncon;
    unsigned con[GNN_PART_MAX_CON];
    /* 16 type columns fill the cap; one more column is refused */
    ck_assert_msg(gnn_partition_weights_typed(&ds.graph, ds.split, ds.vtype, 16, GNN_BALANCE_TYPES, &w, &ncon, con,
                                              &err) == GNN_OK, "%s", err.msg);
    ck_assert_int_eq(ncon, 16);
    ck_assert_uint_eq(con[3], GNN_PART_CON_TYPE(3));
    ck_assert_int_eq(w[0 * 16 + 0], 1); /* vertex 0 is of type 0 */
    ck_assert_int_eq(w[0 * 16 + 1], 0);
    ck_assert_int_eq(w[1999 * 16 + 15], 1);
    gnn_free(w);
    ck_assert_int_eq(gnn_partition_weights_typed(&ds.graph, ds.split, ds.vtype, 16, GNN_BALANCE_TYPES | GNN_BALANCE_TRAIN,
                                                 &w, &ncon, con, &err),
                     GNN_ERR_INVAL);
    ck_assert_msg(strstr(err.msg, "1 constraint + 16 vertex types = 17") && strstr(err.msg, "at most 16"), "%s", err.msg);
    /* no types given; a type out of range; a type without vertices */
    ck_assert_int_eq(gnn_partition_weights(&ds.graph, ds.split, GNN_BALANCE_TYPES, &w, &ncon, con, &err), GNN_ERR_INVAL);
    ck_assert_msg(strstr(err.msg, "no vertex types"), "%s", err.msg);
    ck_assert_int_eq(gnn_partition_weights_typed(&ds.graph, ds.split, ds.vtype, 15, GNN_BALANCE_TYPES, &w, &ncon, con,
                                                 &err),
                     GNN_ERR_RANGE);
    ck_assert_int_eq(gnn_partition_weights_typed(&ds.graph, ds.split, ds.vtype, 17, GNN_BALANCE_TYPES, &w, &ncon, con,
                                                 &err),
                     GNN_ERR_INVAL); /* 17 columns */
    int32_t *vt = gnn_malloc(sizeof(int32_t) * 2000);
    for (int64_t v = 0; v < 2000; v++)
        vt[v] = ds.vtype[v] == 2 ? 1 : ds.vtype[v]; /* type 2 loses its vertices */
    ck_assert_int_eq(gnn_partition_weights_typed(&ds.graph, ds.split, vt, 16, GNN_BALANCE_TYPES, &w, &ncon, con, &err),
                     GNN_ERR_INVAL);
    ck_assert_msg(strstr(err.msg, "'type2'") && strstr(err.msg, "no vertex has that type"), "%s", err.msg);
    gnn_free(vt);
    /* assign refuses the same way, with or without METIS */
    gnn_part_options o;
    gnn_part_defaults(&o);
    o.k = 4;
    o.balance = GNN_BALANCE_TYPES;
    int32_t *part = gnn_malloc(sizeof(int32_t) * 2000);
    ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, part, NULL, &err), GNN_ERR_INVAL);
    o.method = GNN_PART_RANGE;
    o.vtype = ds.vtype;
    o.num_vtypes = ds.num_vtypes;
    gnn_part_info info;
    ck_assert_int_eq(gnn_partition_assign(&ds.graph, ds.split, &o, part, &info, &err), GNN_OK);
    ck_assert_int_eq(info.ncon, 16);
    ck_assert_uint_eq(info.con[15], GNN_PART_CON_TYPE(15));
    gnn_free(part);
    gnn_dataset_free(&ds);
}
END_TEST

START_TEST(metis_types_balance)
{
    gnn_dataset ds;
    typed_sbm(&ds, 6000, 3);
    const int64_t n = ds.graph.n, K = 4;
    gnn_err err = { "" };
    int32_t *part = gnn_malloc(sizeof(int32_t) * (size_t)n);
    gnn_part_options o;
    gnn_part_defaults(&o);
    o.k = K;
    o.vtype = ds.vtype;
    o.num_vtypes = ds.num_vtypes;
    const unsigned cases[2] = { GNN_BALANCE_TYPES, GNN_BALANCE_TRAIN | GNN_BALANCE_DEGREE | GNN_BALANCE_TYPES };
    for (int k = 0; k < 2; k++) {
        o.balance = cases[k];
        gnn_part_info info;
        ck_assert_msg(gnn_partition_assign(&ds.graph, ds.split, &o, part, &info, &err) == GNN_OK, "%s", err.msg);
        ck_assert(info.metis_called);
        gnn_part_quality q;
        ck_assert_msg(gnn_partition_quality_typed(&ds.graph, ds.split, ds.vtype, ds.num_vtypes, part, K, o.balance, &q,
                                                  &err) == GNN_OK, "%s", err.msg);
        ck_assert_int_eq(q.ncon, info.ncon);
        ck_assert_int_eq(q.ncon, k == 0 ? 3 : 5);
        /* METIS's tolerance is 1 + ufactor / 1000 per constraint; its refinement may end a hair
         * above it on small graphs, so allow half a percent more */
        const double tol = 1.0 + GNN_METIS_DEFAULT_UFACTOR / 1000.0 + 0.005;
        for (int c = 0; c < q.ncon; c++) {
            ck_assert_uint_eq(q.con[c], info.con[c]);
            ck_assert_msg(q.imbalance[c] <= tol, "balance 0x%x: %s imbalance %.4f > %.3f", o.balance,
                          gnn_part_constraint_name(q.con[c]), q.imbalance[c], tol);
        }
        /* the type columns count each part's vertices of each type */
        const int first = q.ncon - 3;
        for (int t = 0; t < 3; t++) {
            ck_assert_uint_eq(q.con[first + t], GNN_PART_CON_TYPE(t));
            int64_t tot = 0;
            for (int64_t p = 0; p < K; p++)
                tot += q.weight[p * q.ncon + first + t];
            ck_assert_int_eq(tot, n * (t + 1) / 3 - n * t / 3);
        }
        /* and the partition book of that part vector has those counts in its cells */
        gnn_hetero_book b;
        ck_assert_msg(gnn_hetero_book_build(gnn_impl_opt()->hetero, part, ds.vtype, n, K, 3, &b, NULL, &err) == GNN_OK,
                      "%s", err.msg);
        for (int64_t p = 0; p < K; p++)
            for (int t = 0; t < 3; t++)
                ck_assert_int_eq(gnn_hetero_cell_count(&b, p, t), q.weight[p * q.ncon + first + t]);
        gnn_hetero_book_free(&b);
        gnn_part_quality_free(&q);
    }
    gnn_free(part);
    gnn_dataset_free(&ds);
}
END_TEST

/* `gnnref partition --balance types`: per-type imbalance and the book in the report; refused
 * on a homogeneous graph */
START_TEST(cli_types)
{
    NEED_TOOL();
    char out[16384], args[1024];
    snprintf(args, sizeof args, "partition --data builtin-typed --parts 3 --balance degree,types --json %s",
             tmp("p.json"));
    ck_assert_msg(tool(args, out, sizeof out) == 0, "%s", out);
    ck_assert_msg(strstr(out, "type0 1.0") && strstr(out, "type1 1.0") && strstr(out, "partition book"), "%s", out);
    FILE *f = fopen(tmp("p.json"), "r");
    ck_assert_ptr_nonnull(f);
    size_t len = fread(out, 1, sizeof out - 1, f);
    out[len] = '\0';
    fclose(f);
    ck_assert_msg(strstr(out, "\"book\"") && strstr(out, "\"typewise_offset\"") && strstr(out, "\"type1\""), "%s", out);
    expect_usage_error("partition --data builtin --parts 2 --balance types", "has no vertex types", out, sizeof out);
    expect_usage_error("partition --data builtin --parts 2 --balance train,kinds", "types", out, sizeof out);
}
END_TEST

Suite *suite_hetero_ids(void)
{
    Suite *s = suite_create("hetero_ids");
    TCase *tc = tcase_create("hetero_ids");
    tcase_add_test(tc, worked_by_hand);
    tcase_add_test(tc, mutants_caught);
    tcase_add_test(tc, api_checks);
    tcase_add_test(tc, names_and_limits);
    tcase_add_test(tc, metis_types_balance);
    tcase_add_checked_fixture(tc, NULL, cli_cleanup);
    tcase_add_test(tc, cli_types);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}
