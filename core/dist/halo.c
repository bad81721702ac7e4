/* core/dist/halo.c -- the shared pieces of db_halo (include/gnnref/halo.h): the checked entry point
 * gnn_db_halo_build with its agreement step (so ref/halo.c and opt/cpu/halo.c can assume valid
 * arguments), free, and the table's CRC32C. */
#include <stdio.h>
#include <string.h>
#include "gnnref/crc32c.h"
#include "gnnref/halo.h"
#include "gnnref/tensor.h"

void gnn_db_halo_free(gnn_db_halo *t)
{
    if (!t)
        return;
    gnn_free(t->off);
    gnn_free(t->solid);
    memset(t, 0, sizeof *t);
}

static uint32_t crc_i64(uint32_t crc, const int64_t *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        unsigned char b[8];
        const uint64_t x = (uint64_t)v[i];
        for (int k = 0; k < 8; k++)
            b[k] = (unsigned char)(x >> (8 * k));
        crc = gnn_crc32c(crc, b, 8);
    }
    return crc;
}

uint32_t gnn_db_halo_crc(const gnn_db_halo *t)
{
    uint32_t crc = crc_i64(0, &t->ranks, 1);
    if (!t->off)
        return crc;
    crc = crc_i64(crc, t->off, t->ranks + 1);
    return crc_i64(crc, t->solid, t->off[t->ranks]);
}

/* This rank's own checks; GNN_OK or an error with the message in err. */
static gnn_status check_local(const gnn_comm *c, const gnn_part_local *me, int64_t n_global, gnn_err *err)
{
    const int P = gnn_comm_size(c), rank = gnn_comm_rank(c);
    if (!me)
        return gnn_err_set(err, GNN_ERR_INVAL, "db_halo: rank %d: no partition given (me is NULL)", rank);
    if (me->rank != rank)
        return gnn_err_set(err, GNN_ERR_INVAL,
                           "db_halo: rank %d was given part %lld of the partition: each rank must pass its own part "
                           "(me->rank == communicator rank)",
                           rank, (long long)me->rank);
    if (n_global < 0 || me->n_solid < 0 || me->n_halo < 0 || me->n_solid + me->n_halo > n_global)
        return gnn_err_set(err, GNN_ERR_INVAL, "db_halo: rank %d: %lld solid + %lld halo vertices for a graph of %lld",
                           rank, (long long)me->n_solid, (long long)me->n_halo, (long long)n_global);
    if (me->n_solid + me->n_halo > 0 && (!me->vid_o || !me->vid_p))
        return gnn_err_set(err, GNN_ERR_INVAL, "db_halo: rank %d: vid_o or vid_p missing", rank);
    if (me->n_halo > 0 && !me->halo_owner)
        return gnn_err_set(err, GNN_ERR_INVAL, "db_halo: rank %d: halo_owner missing", rank);
    for (int64_t i = 0; i < me->n_halo; i++) {
        const int32_t o = me->halo_owner[i];
        const int64_t v = me->vid_o[me->n_solid + i];
        if (o < 0 || o >= P)
            return gnn_err_set(err, GNN_ERR_RANGE,
                               "db_halo: rank %d: halo %lld (vertex %lld) is owned by rank %d, but the communicator "
                               "has %d rank%s: the partition has more parts than there are ranks",
                               rank, (long long)i, (long long)v, (int)o, P, P == 1 ? "" : "s");
        if (o == rank)
            return gnn_err_set(err, GNN_ERR_RANGE, "db_halo: rank %d: halo %lld (vertex %lld) is owned by this rank",
                               rank, (long long)i, (long long)v);
        if (v < 0 || v >= n_global)
            return gnn_err_set(err, GNN_ERR_RANGE, "db_halo: rank %d: halo %lld has global id %lld outside [0, %lld)",
                               rank, (long long)i, (long long)v, (long long)n_global);
    }
    return GNN_OK;
}

/* The agreement step: checks me locally, then allgathers (verdict, n_solid, n_halo) of every
 * rank into n_halo_all (P entries) and applies the collective checks (halo.h). Every rank
 * returns the same success or failure. */
static gnn_status agree(gnn_comm *c, const gnn_part_local *me, int64_t n_global, int64_t *n_halo_all, gnn_err *err)
{
    if (!c)
        return gnn_err_set(err, GNN_ERR_INVAL, "db_halo: no communicator");
    const int P = gnn_comm_size(c), rank = gnn_comm_rank(c);
    const gnn_status mine = check_local(c, me, n_global, err);
    /* (verdict, n_solid, n_halo) of every rank; the message of a local failure stays in err */
    int64_t rec[3] = { mine != GNN_OK, mine ? 0 : me->n_solid, mine ? 0 : me->n_halo };
    int64_t *all = gnn_malloc(sizeof(int64_t) * 5 * (size_t)P);
    if (!all) {
        /* cannot take part without memory: the others then fail in the collective */
        return gnn_err_set(err, GNN_ERR_NOMEM, "db_halo: out of memory");
    }
    int64_t *counts = all + 3 * (size_t)P, *displs = counts + P;
    for (int q = 0; q < P; q++) {
        counts[q] = 3;
        displs[q] = 3 * (int64_t)q;
    }
    gnn_status st = gnn_comm_allgatherv(c, rec, 3, all, counts, displs, GNN_DT_I64);
    if (st) {
        gnn_err_set(err, st, "db_halo: rank %d: agreement allgatherv: %s", rank, gnn_comm_errmsg(c));
        goto out;
    }
    if (mine) {
        st = mine;
        goto out;
    }
    int64_t bad = 0, first_bad = -1, solid = 0;
    for (int q = 0; q < P; q++) {
        if (all[3 * q]) {
            bad++;
            if (first_bad < 0)
                first_bad = q;
        }
        solid += all[3 * q + 1];
    }
    if (bad) {
        st = gnn_err_set(err, GNN_ERR_INVAL, "db_halo: rank %d: %lld rank%s (first: rank %lld) passed invalid arguments",
                         rank, (long long)bad, bad == 1 ? "" : "s", (long long)first_bad);
        goto out;
    }
    if (solid != n_global) {
        st = gnn_err_set(err, GNN_ERR_INVAL,
                         "db_halo: the %d rank%s own %lld of the %lld vertices: the partition has %s parts than the "
                         "communicator has ranks, or the ranks pass parts of different partitions",
                         P, P == 1 ? "" : "s", (long long)solid, (long long)n_global,
                         solid < n_global ? "more" : "fewer");
        goto out;
    }
    for (int q = 0; q < P; q++)
        n_halo_all[q] = all[3 * q + 2];
out:
    gnn_free(all);
    return st;
}

gnn_status gnn_db_halo_build(const gnn_db_halo_ops *ops, gnn_comm *c, const gnn_part_local *me, int64_t n_global,
                             gnn_db_halo *out, gnn_err *err)
{
    if (!out)
        return gnn_err_set(err, GNN_ERR_INVAL, "db_halo: out is NULL");
    out->ranks = 0;
    out->off = out->solid = NULL;
    if (!ops || !ops->build_agreed)
        return gnn_err_set(err, GNN_ERR_INVAL, "db_halo: no implementation (ops is NULL)");
    const int P = gnn_comm_size(c);
    int64_t *n_halo_all = gnn_malloc(sizeof(int64_t) * (size_t)(P > 0 ? P : 1));
    if (!n_halo_all)
        return gnn_err_set(err, GNN_ERR_NOMEM, "db_halo: out of memory");
    gnn_status st = agree(c, me, n_global, n_halo_all, err);
    if (!st)
        st = ops->build_agreed(c, me, n_global, n_halo_all, out, err);
    gnn_free(n_halo_all);
    return st;
}
