/* core/dist/kvstore.c -- the hybrid-partitioning feature store: a partition book replicated on
 * every rank, feature rows partitioned by owner, and DistDGL's pull over gnn_comm
 * (include/gnnref/kvstore.h states the protocol; docs/kvstore.md explains it).
 *
 * One implementation (no ref/opt split): the pull is three alltoallvs and row copies; the
 * copies run in parallel when they are large. Rows are copied as bytes, so the result is the
 * unpartitioned matrix's rows bit for bit whatever the thread or rank count. */
#include <stdio.h>
#include <string.h>
#include "gnnref/crc32c.h"
#include "gnnref/kvstore.h"
#include "gnnref/tensor.h"

void gnn_kvstore_free(gnn_kvstore *kv)
{
    if (!kv)
        return;
    gnn_free(kv->owner);
    gnn_free(kv->row);
    gnn_free(kv->feat);
    gnn_free(kv->opt_s1);
    gnn_free(kv->opt_s2);
    gnn_free(kv->opt_steps);
    memset(kv, 0, sizeof *kv);
}

static uint32_t crc_i64(uint32_t crc, int64_t x)
{
    unsigned char b[8];
    for (int k = 0; k < 8; k++)
        b[k] = (unsigned char)((uint64_t)x >> (8 * k));
    return gnn_crc32c(crc, b, 8);
}

/* This rank's checks of the create arguments. */
static gnn_status create_check(gnn_comm *c, int64_t n, const int32_t *part, int64_t dim, const float *rows,
                               int64_t n_local, gnn_err *err)
{
    const int P = gnn_comm_size(c), me = gnn_comm_rank(c);
    if (n < 0 || dim < 0 || n_local < 0)
        return gnn_err_set(err, GNN_ERR_INVAL, "kvstore: rank %d: n = %lld, dim = %lld, n_local = %lld", me,
                           (long long)n, (long long)dim, (long long)n_local);
    if (n > 0 && !part)
        return gnn_err_set(err, GNN_ERR_INVAL, "kvstore: rank %d: part is NULL", me);
    int64_t mine = 0;
    for (int64_t v = 0; v < n; v++) {
        if (part[v] < 0 || part[v] >= P)
            return gnn_err_set(err, GNN_ERR_RANGE,
                               "kvstore: rank %d: part[%lld] = %d outside [0, %d): the part vector must have one "
                               "part per rank",
                               me, (long long)v, (int)part[v], P);
        mine += part[v] == me;
    }
    if (mine != n_local)
        return gnn_err_set(err, GNN_ERR_INVAL, "kvstore: rank %d owns %lld vertices but was given %lld rows", me,
                           (long long)mine, (long long)n_local);
    if (n_local > 0 && dim > 0 && !rows)
        return gnn_err_set(err, GNN_ERR_INVAL, "kvstore: rank %d: rows is NULL", me);
    return GNN_OK;
}

gnn_status gnn_kvstore_create(gnn_kvstore *kv, gnn_comm *c, int64_t n, const int32_t *part, int64_t dim,
                              const float *rows, int64_t n_local, gnn_err *err)
{
    if (!kv || !c)
        return gnn_err_set(err, GNN_ERR_INVAL, "kvstore: %s is NULL", kv ? "the communicator" : "kv");
    memset(kv, 0, sizeof *kv);
    const int P = gnn_comm_size(c), me = gnn_comm_rank(c);
    gnn_status mine = create_check(c, n, part, dim, rows, n_local, err);
    /* the agreement: (verdict, CRC32C of n, dim and part) of every rank */
    int64_t rec[2] = { mine != GNN_OK, 0 };
    if (!mine) {
        uint32_t crc = crc_i64(crc_i64(0, n), dim);
        for (int64_t v = 0; v < n; v++)
            crc = crc_i64(crc, part[v]);
        rec[1] = crc;
    }
    int64_t *all = gnn_malloc(sizeof(int64_t) * 4 * (size_t)P);
    if (!all)
        return gnn_err_set(err, GNN_ERR_NOMEM, "kvstore: out of memory");
    int64_t *cnt = all + 2 * (size_t)P, *dsp = cnt + P;
    for (int q = 0; q < P; q++) {
        cnt[q] = 2;
        dsp[q] = 2 * (int64_t)q;
    }
    gnn_status st = gnn_comm_allgatherv(c, rec, 2, all, cnt, dsp, GNN_DT_I64);
    if (st) {
        gnn_err_set(err, st, "kvstore: create: allgatherv: %s", gnn_comm_errmsg(c));
        goto out;
    }
    if (mine) {
        st = mine;
        goto out;
    }
    for (int q = 0; q < P; q++) {
        if (all[2 * q]) {
            st = gnn_err_set(err, GNN_ERR_INVAL, "kvstore: rank %d: rank %d passed invalid arguments to create", me, q);
            goto out;
        }
        if (all[2 * q + 1] != all[1]) {
            st = gnn_err_set(err, GNN_ERR_INVAL,
                             "kvstore: rank %d: ranks 0 and %d hold different partition books (n, dim or part "
                             "differ: CRC32C %08llx vs %08llx)",
                             me, q, (unsigned long long)all[1], (unsigned long long)all[2 * q + 1]);
            goto out;
        }
    }
    kv->owner = gnn_malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    kv->row = gnn_malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    kv->feat = gnn_malloc(sizeof(float) * (size_t)(n_local * dim > 0 ? n_local * dim : 1));
    int64_t *next = gnn_calloc((size_t)P, sizeof(int64_t));
    if (!kv->owner || !kv->row || !kv->feat || !next) {
        gnn_free(next);
        st = gnn_err_set(err, GNN_ERR_NOMEM, "kvstore: out of memory (%lld vertices, %lld x %lld rows)",
                         (long long)n, (long long)n_local, (long long)dim);
        goto out;
    }
    /* the book: row[v] = v's index among its owner's vertices in increasing global id */
    for (int64_t v = 0; v < n; v++) {
        kv->owner[v] = part[v];
        kv->row[v] = next[part[v]]++;
    }
    gnn_free(next);
    if (n_local * dim > 0)
        memcpy(kv->feat, rows, sizeof(float) * (size_t)(n_local * dim));
    kv->comm = c;
    kv->n = n;
    kv->dim = dim;
    kv->n_local = n_local;
out:
    gnn_free(all);
    if (st)
        gnn_kvstore_free(kv);
    return st;
}

gnn_status gnn_kvstore_create_from_full(gnn_kvstore *kv, gnn_comm *c, int64_t n, const int32_t *part, int64_t dim,
                                        const float *feat, gnn_err *err)
{
    const int me = gnn_comm_rank(c);
    int64_t mine = 0;
    for (int64_t v = 0; part && v < n; v++)
        mine += part[v] == me;
    float *rows = gnn_malloc(sizeof(float) * (size_t)(mine * dim > 0 ? mine * dim : 1));
    if (!rows)
        return gnn_err_set(err, GNN_ERR_NOMEM, "kvstore: out of memory");
    int64_t k = 0;
    for (int64_t v = 0; part && feat && v < n; v++)
        if (part[v] == me)
            memcpy(rows + (size_t)(k++ * dim), feat + (size_t)(v * dim), sizeof(float) * (size_t)dim);
    /* a NULL feat with rows to copy is reported by create's checks, on every rank */
    const gnn_status st = gnn_kvstore_create(kv, c, n, part, dim, (feat || mine * dim == 0) ? rows : NULL, mine, err);
    gnn_free(rows);
    return st;
}

static void stats_add(gnn_kv_stats *t, const gnn_kv_stats *d)
{
    t->calls += d->calls;
    t->ids += d->ids;
    t->rows_local += d->rows_local;
    t->rows_remote += d->rows_remote;
    t->rows_served += d->rows_served;
    t->bytes_header_sent += d->bytes_header_sent;
    t->bytes_ids_sent += d->bytes_ids_sent;
    t->bytes_ids_received += d->bytes_ids_received;
    t->bytes_rows_sent += d->bytes_rows_sent;
    t->bytes_rows_received += d->bytes_rows_received;
}

/* One pull in progress: the request, this rank's buffers and counters. */
typedef struct pull_state {
    gnn_kvstore *kv;
    gnn_comm *c;
    int P, me;
    const int64_t *ids; /* (m) the request */
    int64_t m;
    float *out;         /* (m, dim) */
    size_t row_bytes;
    gnn_kv_stats s;
    /* a: header send/recv (2P each), 2, idx2 (P each), scount, sdispls, rcount, rdispls (P each) */
    int64_t *a, *hs, *hr, *two, *idx2, *scount, *sdispls, *rcount, *rdispls;
    int64_t *where;     /* (m) position in the send order, or -1 */
    int64_t stot, rtot; /* ids this rank sends, and serves */
    int64_t *send_ids;  /* (stot) grouped by owner in request order */
    int64_t *recv_ids;  /* (rtot) asked of this rank */
    float *reply;       /* (rtot, dim) the rows this rank serves */
    float *rows;        /* (stot, dim) the rows it receives */
} pull_state;

/* 0. validate before any communication; a bad request still takes part in the header */
static gnn_status pull_validate(const gnn_kvstore *kv, const int64_t *ids, int64_t m, const float *out, int me,
                                gnn_err *err)
{
    gnn_status mine = GNN_OK;
    if (m < 0)
        mine = gnn_err_set(err, GNN_ERR_INVAL, "kvstore: rank %d: pull of %lld ids", me, (long long)m);
    else if (m > 0 && (!ids || (kv->dim > 0 && !out)))
        mine = gnn_err_set(err, GNN_ERR_INVAL, "kvstore: rank %d: ids or out is NULL", me);
    for (int64_t i = 0; !mine && i < m; i++)
        if (ids[i] < 0 || ids[i] >= kv->n)
            mine = gnn_err_set(err, GNN_ERR_RANGE, "kvstore: rank %d: pull: ids[%lld] = %lld is outside [0, %lld)", me,
                               (long long)i, (long long)ids[i], (long long)kv->n);
    return mine;
}

/* 1. the header: how many ids this rank asks each rank for, and whether its request is valid
 * (mine); fails with mine, or when another rank's request is invalid, after the exchange. Then
 * the counts and displacements of the ids exchange. */
static gnn_status pull_header(pull_state *ps, gnn_status mine, gnn_err *err)
{
    const int P = ps->P, me = ps->me;
    gnn_status st;
    for (int64_t i = 0; i < ps->m; i++) {
        const int32_t o = ps->kv->owner[ps->ids[i]];
        if (o == me)
            ps->s.rows_local++;
        else
            ps->scount[o]++;
    }
    for (int q = 0; q < P; q++) {
        ps->hs[2 * q] = ps->scount[q];
        ps->hs[2 * q + 1] = mine != GNN_OK;
        ps->two[q] = 2;
        ps->idx2[q] = 2 * (int64_t)q;
    }
    if ((st = gnn_comm_alltoallv(ps->c, ps->hs, ps->two, ps->idx2, ps->hr, ps->two, ps->idx2, GNN_DT_I64)))
        return gnn_err_set(err, st, "kvstore: rank %d: pull: header alltoallv: %s", me, gnn_comm_errmsg(ps->c));
    ps->s.bytes_header_sent = 16 * (int64_t)(P - 1);
    if (mine)
        return mine;
    for (int q = 0; q < P; q++)
        if (ps->hr[2 * q + 1])
            return gnn_err_set(err, GNN_ERR_RANGE,
                               "kvstore: rank %d: pull: rank %d's request is invalid (an id out of range); no rows "
                               "were exchanged",
                               me, q);
    int64_t stot = 0, rtot = 0;
    for (int q = 0; q < P; q++) {
        ps->rcount[q] = ps->hr[2 * q];
        ps->sdispls[q] = stot;
        stot += ps->scount[q];
        ps->rdispls[q] = rtot;
        rtot += ps->rcount[q];
    }
    ps->stot = stot;
    ps->rtot = rtot;
    return GNN_OK;
}

/* 2. the ids, grouped by owner in request order */
static gnn_status pull_ids(pull_state *ps, gnn_err *err)
{
    const int P = ps->P, me = ps->me;
    const int64_t stot = ps->stot, rtot = ps->rtot;
    gnn_status st;
    ps->send_ids = gnn_malloc(sizeof(int64_t) * (size_t)(stot > 0 ? stot : 1));
    ps->recv_ids = gnn_malloc(sizeof(int64_t) * (size_t)(rtot > 0 ? rtot : 1));
    ps->reply = gnn_malloc(ps->row_bytes * (size_t)(rtot > 0 ? rtot : 1) + 1);
    ps->rows = gnn_malloc(ps->row_bytes * (size_t)(stot > 0 ? stot : 1) + 1);
    if (!ps->send_ids || !ps->recv_ids || !ps->reply || !ps->rows)
        return gnn_err_set(err, GNN_ERR_NOMEM, "kvstore: out of memory (%lld ids to send, %lld to serve)",
                           (long long)stot, (long long)rtot);
    int64_t *fill = ps->scount; /* reused as the running position of each owner's group */
    for (int q = 0; q < P; q++)
        fill[q] = ps->sdispls[q];
    for (int64_t i = 0; i < ps->m; i++) {
        const int32_t o = ps->kv->owner[ps->ids[i]];
        if (o == me) {
            ps->where[i] = -1;
        } else {
            ps->where[i] = fill[o];
            ps->send_ids[fill[o]++] = ps->ids[i];
        }
    }
    for (int q = 0; q < P; q++)
        ps->scount[q] = fill[q] - ps->sdispls[q]; /* back to the counts */
    if ((st = gnn_comm_alltoallv(ps->c, ps->send_ids, ps->scount, ps->sdispls, ps->recv_ids, ps->rcount, ps->rdispls,
                                 GNN_DT_I64)))
        return gnn_err_set(err, st, "kvstore: rank %d: pull: ids alltoallv: %s", me, gnn_comm_errmsg(ps->c));
    ps->s.rows_remote = stot;
    ps->s.bytes_ids_sent = 8 * stot;
    ps->s.bytes_ids_received = 8 * rtot;
    return GNN_OK;
}

/* 3. serve the rows asked of me, in the order asked; an id I do not own cannot come from a
 * rank with the same book, but if it does, answer zeros, finish the exchange, then fail */
static gnn_status pull_rows(pull_state *ps, gnn_err *err)
{
    const gnn_kvstore *kv = ps->kv;
    const int P = ps->P, me = ps->me;
    const int64_t n = kv->n, dim = kv->dim, rtot = ps->rtot, stot = ps->stot;
    const size_t row_bytes = ps->row_bytes;
    const int64_t *recv_ids = ps->recv_ids;
    float *reply = ps->reply;
    gnn_status st;
    int64_t bad = -1;
#pragma omp parallel for schedule(static) reduction(max : bad) if (rtot * dim > 65536)
    for (int64_t j = 0; j < rtot; j++) {
        const int64_t v = recv_ids[j];
        float *dst = reply + (size_t)(j * dim);
        if (v < 0 || v >= n || kv->owner[v] != me) {
            memset(dst, 0, row_bytes);
            if (j > bad)
                bad = j;
        } else {
            memcpy(dst, kv->feat + (size_t)(kv->row[v] * dim), row_bytes);
        }
    }
    for (int q = 0; q < P; q++) { /* counts in floats: rows x dim */
        ps->rcount[q] *= dim;
        ps->rdispls[q] *= dim;
        ps->scount[q] *= dim;
        ps->sdispls[q] *= dim;
    }
    if ((st = gnn_comm_alltoallv(ps->c, reply, ps->rcount, ps->rdispls, ps->rows, ps->scount, ps->sdispls,
                                 GNN_DT_F32)))
        return gnn_err_set(err, st, "kvstore: rank %d: pull: rows alltoallv: %s", me, gnn_comm_errmsg(ps->c));
    ps->s.rows_served = rtot;
    ps->s.bytes_rows_sent = (int64_t)row_bytes * rtot;
    ps->s.bytes_rows_received = (int64_t)row_bytes * stot;
    if (bad >= 0)
        return gnn_err_set(err, GNN_ERR_INTERNAL, "kvstore: rank %d was asked for vertex %lld, which it does not own",
                           me, (long long)recv_ids[bad]);
    return GNN_OK;
}

/* scatter into the request order (nothing to copy when dim = 0: out may be NULL then) */
static void pull_scatter(const pull_state *ps)
{
    const gnn_kvstore *kv = ps->kv;
    const int64_t m = ps->m, dim = kv->dim;
    const int64_t *ids = ps->ids, *where = ps->where;
    const float *rows = ps->rows;
    float *out = ps->out;
    const size_t row_bytes = ps->row_bytes;
#pragma omp parallel for schedule(static) if (m * dim > 65536)
    for (int64_t i = 0; i < (dim > 0 ? m : 0); i++) {
        const float *src = where[i] < 0 ? kv->feat + (size_t)(kv->row[ids[i]] * dim) : rows + (size_t)(where[i] * dim);
        memcpy(out + (size_t)(i * dim), src, row_bytes);
    }
}

gnn_status gnn_kvstore_pull(gnn_kvstore *kv, const int64_t *ids, int64_t m, float *out, gnn_err *err)
{
    if (!kv || !kv->comm)
        return gnn_err_set(err, GNN_ERR_INVAL, "kvstore: pull on a store that was not created");
    pull_state ps = { .kv = kv, .c = kv->comm, .ids = ids, .out = out };
    ps.P = gnn_comm_size(ps.c);
    ps.me = gnn_comm_rank(ps.c);
    ps.row_bytes = sizeof(float) * (size_t)kv->dim;
    memset(&ps.s, 0, sizeof ps.s);
    ps.s.calls = 1;

    const gnn_status mine = pull_validate(kv, ids, m, out, ps.me, err);
    ps.m = mine ? 0 : m;

    const int P = ps.P;
    ps.a = gnn_calloc((size_t)P * 10, sizeof(int64_t));
    ps.where = gnn_malloc(sizeof(int64_t) * (size_t)(ps.m > 0 ? ps.m : 1));
    gnn_status st = GNN_OK;
    if (!ps.a || !ps.where) {
        /* cannot take part: the others fail in the collective (the simulator reports it) */
        st = gnn_err_set(err, GNN_ERR_NOMEM, "kvstore: out of memory");
    } else {
        int64_t *a = ps.a;
        ps.hs = a;
        ps.hr = a + 2 * P;
        ps.two = a + 4 * P;
        ps.idx2 = a + 5 * P;
        ps.scount = a + 6 * P;
        ps.sdispls = a + 7 * P;
        ps.rcount = a + 8 * P;
        ps.rdispls = a + 9 * P;
        if ((st = pull_header(&ps, mine, err)) == GNN_OK && (st = pull_ids(&ps, err)) == GNN_OK &&
            (st = pull_rows(&ps, err)) == GNN_OK)
            pull_scatter(&ps);
    }
    ps.s.ids = st ? 0 : ps.m;
    if (st) /* a failed request counts its header only */
        ps.s.rows_local = ps.s.rows_remote = 0;
    kv->last = ps.s;
    stats_add(&kv->total, &ps.s);
    gnn_free(ps.a);
    gnn_free(ps.where);
    gnn_free(ps.send_ids);
    gnn_free(ps.recv_ids);
    gnn_free(ps.reply);
    gnn_free(ps.rows);
    return st;
}
