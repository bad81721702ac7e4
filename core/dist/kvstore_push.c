/* core/dist/kvstore_push.c -- the feature store's push: sparse embeddings trained by (id, gradient
 * row) pairs sent to their owners, with sparse Adagrad or Adam on the touched rows only
 * (include/gnnref/kvstore.h, docs/embedding.md; DistDGLv2 section 3.3, @sec{DistDGLv2 3.3};
 * next-capabilities.md C.3). The pull is core/dist/kvstore.c.
 *
 * Deterministic where DGL is not: a rank sums its own repeats in position order, the owner
 * sums the ranks' rows of an id in rank order, then updates once; DGL applies each push as it
 * arrives. gnn_sparse_opt_step_ref is the same rule on one process, written without the
 * exchange: the oracle (kvstore.push) compares the two bit for bit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/kvstore.h"
#include "gnnref/tensor.h"

void gnn_sparse_opt_defaults(gnn_sparse_opt *o, gnn_sparse_opt_kind kind, float lr)
{
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->lr = lr;
    o->eps = kind == GNN_SPARSE_ADAGRAD ? 1e-10f : 1e-8f;
    o->beta1 = 0.9f;
    o->beta2 = 0.999f;
}

void gnn_sparse_opt_row(const gnn_sparse_opt *o, float *w, const float *g, float *s1, float *s2, int64_t *step,
                        int64_t dim)
{
    if (o->kind == GNN_SPARSE_ADAGRAD) {
        for (int64_t j = 0; j < dim; j++) {
            const float gg = g[j] * g[j];
            s1[j] = s1[j] + gg;
            const float den = sqrtf(s1[j]) + o->eps;
            w[j] = w[j] - o->lr * g[j] / den;
        }
        return;
    }
    const int64_t t = ++*step;
    const float c1 = (float)(1.0 - pow((double)o->beta1, (double)t));
    const float c2 = (float)(1.0 - pow((double)o->beta2, (double)t));
    const float a1 = 1.0f - o->beta1, a2 = 1.0f - o->beta2;
    for (int64_t j = 0; j < dim; j++) {
        const float gj = g[j];
        s1[j] = o->beta1 * s1[j] + a1 * gj;
        s2[j] = o->beta2 * s2[j] + a2 * (gj * gj);
        const float mh = s1[j] / c1, vh = s2[j] / c2;
        w[j] = w[j] - o->lr * mh / (sqrtf(vh) + o->eps);
    }
}

/* ---- one list's repeats ------------------------------------------------------------------------ */

typedef struct idpos {
    int64_t id, pos;
} idpos;

static int cmp_idpos(const void *a, const void *b)
{
    const idpos *x = a, *y = b;
    return x->id != y->id ? (x->id < y->id ? -1 : 1) : (x->pos < y->pos ? -1 : x->pos > y->pos);
}

/* The distinct ids of ids[0..m) ascending, and each one's rows summed in position order from
 * 0.0f: *uid (nu), *urow (nu, dim), gnn_malloc'd. */
static gnn_status dedupe(const int64_t *ids, int64_t m, const float *g, int64_t dim, int64_t **uid, float **urow,
                         int64_t *nu)
{
    idpos *ip = gnn_malloc(sizeof(idpos) * (size_t)(m + 1));
    *uid = gnn_malloc(sizeof(int64_t) * (size_t)(m + 1));
    *urow = gnn_calloc((size_t)(m * dim + 1), sizeof(float));
    if (!ip || !*uid || !*urow) {
        gnn_free(ip);
        return GNN_ERR_NOMEM;
    }
    for (int64_t i = 0; i < m; i++)
        ip[i] = (idpos){ ids[i], i };
    qsort(ip, (size_t)m, sizeof *ip, cmp_idpos);
    int64_t u = -1;
    for (int64_t i = 0; i < m; i++) {
        if (i == 0 || ip[i].id != ip[i - 1].id)
            (*uid)[++u] = ip[i].id;
        float *acc = *urow + u * dim;
        const float *row = g + ip[i].pos * dim;
        for (int64_t j = 0; j < dim; j++)
            acc[j] = acc[j] + row[j];
    }
    *nu = u + 1;
    gnn_free(ip);
    return GNN_OK;
}

void gnn_sparse_opt_step_ref(const gnn_sparse_opt *o, int64_t n, int64_t dim, float *w, float *s1, float *s2,
                             int64_t *steps, int P, const int64_t *const *ids, const int64_t *m,
                             const float *const *grads)
{
    float *sum = gnn_calloc((size_t)(n * dim + 1), sizeof(float));
    uint8_t *touched = gnn_calloc((size_t)n + 1, 1);
    if (!sum || !touched)
        goto done;
    for (int q = 0; q < P; q++) { /* list order */
        int64_t *uid = NULL, nu = 0;
        float *urow = NULL;
        if (dedupe(ids[q], m[q], grads[q], dim, &uid, &urow, &nu) == GNN_OK)
            for (int64_t i = 0; i < nu; i++) {
                touched[uid[i]] = 1;
                for (int64_t j = 0; j < dim; j++)
                    sum[uid[i] * dim + j] = sum[uid[i] * dim + j] + urow[i * dim + j];
            }
        gnn_free(uid);
        gnn_free(urow);
    }
    for (int64_t v = 0; v < n; v++)
        if (touched[v])
            gnn_sparse_opt_row(o, w + v * dim, sum + v * dim, s1 + v * dim, s2 ? s2 + v * dim : NULL,
                               steps ? steps + v : NULL, dim);
done:
    gnn_free(sum);
    gnn_free(touched);
}

/* ---- the push -------------------------------------------------------------------------------------- */

/* A contribution to one of my rows: its local row, the sending rank, the row's values. */
typedef struct contrib {
    int64_t row;
    int64_t rank;
    const float *g;
} contrib;

static int cmp_contrib(const void *a, const void *b)
{
    const contrib *x = a, *y = b;
    return x->row != y->row ? (x->row < y->row ? -1 : 1) : (x->rank < y->rank ? -1 : x->rank > y->rank);
}

static gnn_status push_validate(const gnn_kvstore *kv, const int64_t *ids, int64_t m, const float *grads,
                                const gnn_sparse_opt *o, int me, gnn_err *err)
{
    if (m < 0 || (m > 0 && (!ids || (kv->dim > 0 && !grads))))
        return gnn_err_set(err, GNN_ERR_INVAL, "kvstore: rank %d: push of %lld ids with NULL ids or gradients", me,
                           (long long)m);
    if (!o || (o->kind != GNN_SPARSE_ADAGRAD && o->kind != GNN_SPARSE_ADAM) || !(o->lr > 0.0f) || !(o->eps > 0.0f) ||
        !(o->beta1 >= 0.0f && o->beta1 < 1.0f) || !(o->beta2 >= 0.0f && o->beta2 < 1.0f))
        return gnn_err_set(err, GNN_ERR_INVAL, "kvstore: rank %d: push: the optimizer must be Adagrad or Adam with lr "
                                               "> 0, eps > 0 and betas in [0, 1)",
                           me);
    if (kv->opt_kind && kv->opt_kind != (int)o->kind)
        return gnn_err_set(err, GNN_ERR_INVAL, "kvstore: rank %d: push with another optimizer than the store's first "
                                               "push (its state is that optimizer's)",
                           me);
    for (int64_t i = 0; i < m; i++)
        if (ids[i] < 0 || ids[i] >= kv->n)
            return gnn_err_set(err, GNN_ERR_RANGE, "kvstore: rank %d: push: ids[%lld] = %lld is outside [0, %lld)", me,
                               (long long)i, (long long)ids[i], (long long)kv->n);
    return GNN_OK;
}

/* The optimizer state of this rank's rows, zero, made by the first push. */
static gnn_status make_state(gnn_kvstore *kv, gnn_sparse_opt_kind kind)
{
    if (kv->opt_kind)
        return GNN_OK;
    const size_t cells = (size_t)(kv->n_local * kv->dim) + 1;
    kv->opt_s1 = gnn_calloc(cells, sizeof(float));
    if (kind == GNN_SPARSE_ADAM) {
        kv->opt_s2 = gnn_calloc(cells, sizeof(float));
        kv->opt_steps = gnn_calloc((size_t)kv->n_local + 1, sizeof(int64_t));
    }
    if (!kv->opt_s1 || (kind == GNN_SPARSE_ADAM && (!kv->opt_s2 || !kv->opt_steps)))
        return GNN_ERR_NOMEM;
    kv->opt_kind = (int)kind;
    return GNN_OK;
}

typedef struct push_state {
    gnn_kvstore *kv;
    gnn_comm *c;
    int P, me;
    int64_t *a;            /* 8 P: header send, recv (2P each), two, idx2, scount, sdispls, rcount, rdispls */
    int64_t *uid, nu;      /* my distinct ids, ascending */
    float *urow;           /* (nu, dim) their summed rows */
    int64_t *send_ids, *recv_ids;
    float *send_rows, *recv_rows;
    contrib *cb;           /* my rows' contributions, sorted by (row, rank) */
    int64_t nc;
} push_state;

static void push_free(push_state *ps)
{
    gnn_free(ps->a), gnn_free(ps->uid), gnn_free(ps->urow), gnn_free(ps->send_ids), gnn_free(ps->recv_ids);
    gnn_free(ps->send_rows), gnn_free(ps->recv_rows), gnn_free(ps->cb);
}

/* Step 2: header, ids and rows to the owners (ids the caller owns stay here). */
static gnn_status push_exchange(push_state *ps, gnn_status mine, const gnn_sparse_opt *o, gnn_kv_push_stats *s,
                                gnn_err *err)
{
    gnn_kvstore *kv = ps->kv;
    const int P = ps->P, me = ps->me;
    const int64_t dim = kv->dim;
    int64_t *hs = ps->a, *hr = hs + 2 * P, *two = hr + 2 * P, *idx2 = two + P, *sc = idx2 + P, *sd = sc + P,
            *rc = sd + P, *rd = rc + P;
    gnn_status st;
    for (int64_t i = 0; i < ps->nu; i++) {
        const int32_t q = kv->owner[ps->uid[i]];
        if (q != me)
            sc[q]++;
    }
    for (int q = 0; q < P; q++)
        hs[2 * q] = sc[q], hs[2 * q + 1] = mine != GNN_OK, two[q] = 2, idx2[q] = 2 * (int64_t)q;
    if ((st = gnn_comm_alltoallv(ps->c, hs, two, idx2, hr, two, idx2, GNN_DT_I64)))
        return gnn_err_set(err, st, "kvstore: rank %d: push: header alltoallv: %s", me, gnn_comm_errmsg(ps->c));
    s->bytes_sent += 16 * (int64_t)(P - 1);
    if (mine)
        return mine;
    for (int q = 0; q < P; q++)
        if (hr[2 * q + 1])
            return gnn_err_set(err, GNN_ERR_RANGE, "kvstore: rank %d: push: rank %d's request is invalid; nothing was "
                                                   "updated",
                               me, q);
    int64_t stot = 0, rtot = 0;
    for (int q = 0; q < P; q++)
        rc[q] = hr[2 * q], sd[q] = stot, rd[q] = rtot, stot += sc[q], rtot += rc[q];
    ps->send_ids = gnn_malloc(sizeof(int64_t) * (size_t)(stot + 1));
    ps->recv_ids = gnn_malloc(sizeof(int64_t) * (size_t)(rtot + 1));
    ps->send_rows = gnn_malloc(sizeof(float) * (size_t)(stot * dim + 1));
    ps->recv_rows = gnn_malloc(sizeof(float) * (size_t)(rtot * dim + 1));
    ps->cb = gnn_malloc(sizeof(contrib) * (size_t)(rtot + ps->nu + 1));
    if (!ps->send_ids || !ps->recv_ids || !ps->send_rows || !ps->recv_rows || !ps->cb || make_state(kv, o->kind))
        return gnn_err_set(err, GNN_ERR_NOMEM, "kvstore: out of memory");
    for (int q = 0; q < P; q++) /* grouped by owner, ascending within: sc is the fill position */
        sc[q] = sd[q];
    for (int64_t i = 0; i < ps->nu; i++) {
        const int32_t q = kv->owner[ps->uid[i]];
        if (q == me)
            continue;
        ps->send_ids[sc[q]] = ps->uid[i];
        memcpy(ps->send_rows + sc[q] * dim, ps->urow + i * dim, sizeof(float) * (size_t)dim);
        sc[q]++;
    }
    for (int q = 0; q < P; q++)
        sc[q] -= sd[q];
    if ((st = gnn_comm_alltoallv(ps->c, ps->send_ids, sc, sd, ps->recv_ids, rc, rd, GNN_DT_I64)))
        return gnn_err_set(err, st, "kvstore: rank %d: push: ids alltoallv: %s", me, gnn_comm_errmsg(ps->c));
    for (int q = 0; q < P; q++)
        sc[q] *= dim, sd[q] *= dim, rc[q] *= dim, rd[q] *= dim;
    if ((st = gnn_comm_alltoallv(ps->c, ps->send_rows, sc, sd, ps->recv_rows, rc, rd, GNN_DT_F32)))
        return gnn_err_set(err, st, "kvstore: rank %d: push: rows alltoallv: %s", me, gnn_comm_errmsg(ps->c));
    s->rows_remote = stot;
    s->rows_local = ps->nu - stot;
    s->rows_received = rtot;
    s->bytes_sent += stot * (8 + 4 * dim);
    /* my rows' contributions, then sorted by row and rank: the rank order of the sums */
    int64_t bad = -1;
    ps->nc = 0;
    for (int q = 0, j = 0; q < P; q++) {
        if (q == me) {
            for (int64_t i = 0; i < ps->nu; i++)
                if (kv->owner[ps->uid[i]] == me)
                    ps->cb[ps->nc++] = (contrib){ kv->row[ps->uid[i]], q, ps->urow + i * dim };
            continue;
        }
        for (int64_t e = 0; e < hr[2 * q]; e++, j++) {
            const int64_t v = ps->recv_ids[j];
            if (v < 0 || v >= kv->n || kv->owner[v] != me)
                bad = v;
            else
                ps->cb[ps->nc++] = (contrib){ kv->row[v], q, ps->recv_rows + j * dim };
        }
    }
    if (bad >= 0) /* a rank with another partition book: cannot come from the same store */
        return gnn_err_set(err, GNN_ERR_INTERNAL, "kvstore: rank %d was pushed vertex %lld, which it does not own", me,
                           (long long)bad);
    qsort(ps->cb, (size_t)ps->nc, sizeof *ps->cb, cmp_contrib);
    return GNN_OK;
}

/* Step 3: each touched row's contributions summed in rank order from 0.0f, then one update.
 * Rows are independent: any thread may take any row. */
static gnn_status push_apply(push_state *ps, const gnn_sparse_opt *o, gnn_kv_push_stats *s, gnn_err *err)
{
    gnn_kvstore *kv = ps->kv;
    const int64_t dim = kv->dim, nc = ps->nc;
    int64_t *start = gnn_malloc(sizeof(int64_t) * (size_t)(nc + 1)), ng = 0;
    if (!start)
        return gnn_err_set(err, GNN_ERR_NOMEM, "kvstore: out of memory");
    for (int64_t i = 0; i < nc; i++)
        if (i == 0 || ps->cb[i].row != ps->cb[i - 1].row)
            start[ng++] = i;
    start[ng] = nc;
    s->rows_updated = ng;
    const contrib *cb = ps->cb;
    int fail = 0;
#pragma omp parallel if (ng * dim > 16384) reduction(| : fail)
    {
        float *acc = gnn_malloc(sizeof(float) * (size_t)(dim + 1));
        fail |= !acc;
#pragma omp for schedule(dynamic, 64)
        for (int64_t gi = 0; gi < ng; gi++) {
            if (!acc)
                continue;
            for (int64_t j = 0; j < dim; j++)
                acc[j] = 0.0f;
            for (int64_t i = start[gi]; i < start[gi + 1]; i++)
                for (int64_t j = 0; j < dim; j++)
                    acc[j] = acc[j] + cb[i].g[j];
            const int64_t r = cb[start[gi]].row;
            gnn_sparse_opt_row(o, kv->feat + r * dim, acc, kv->opt_s1 + r * dim, kv->opt_s2 ? kv->opt_s2 + r * dim : NULL,
                               kv->opt_steps ? kv->opt_steps + r : NULL, dim);
        }
        gnn_free(acc);
    }
    gnn_free(start);
    return fail ? gnn_err_set(err, GNN_ERR_NOMEM, "kvstore: out of memory (rows half updated)") : GNN_OK;
}

gnn_status gnn_kvstore_push(gnn_kvstore *kv, const int64_t *ids, int64_t m, const float *grads, const gnn_sparse_opt *o,
                            gnn_err *err)
{
    if (!kv || !kv->comm)
        return gnn_err_set(err, GNN_ERR_INVAL, "kvstore: push on a store that was not created");
    push_state ps = { .kv = kv, .c = kv->comm };
    ps.P = gnn_comm_size(ps.c);
    ps.me = gnn_comm_rank(ps.c);
    gnn_kv_push_stats s = { .calls = 1 };
    gnn_status mine = push_validate(kv, ids, m, grads, o, ps.me, err);
    if (!mine) {
        s.ids = m;
        if ((mine = dedupe(ids, m, grads, kv->dim, &ps.uid, &ps.urow, &ps.nu)))
            mine = gnn_err_set(err, mine, "kvstore: out of memory");
        s.unique = ps.nu;
    }
    gnn_status st;
    if (!(ps.a = gnn_calloc((size_t)ps.P * 10, sizeof(int64_t))))
        st = gnn_err_set(err, GNN_ERR_NOMEM, "kvstore: out of memory"); /* the others fail in the collective */
    else if (!(st = push_exchange(&ps, mine, o, &s, err)))
        st = push_apply(&ps, o, &s, err);
    if (st) /* a failed push counts its header only */
        s = (gnn_kv_push_stats){ .calls = 1, .bytes_sent = s.bytes_sent };
    kv->push_last = s;
    gnn_kv_push_stats *t = &kv->push_total;
    t->calls += s.calls, t->ids += s.ids, t->unique += s.unique, t->rows_local += s.rows_local;
    t->rows_remote += s.rows_remote, t->rows_received += s.rows_received, t->rows_updated += s.rows_updated;
    t->bytes_sent += s.bytes_sent;
    push_free(&ps);
    return st;
}
