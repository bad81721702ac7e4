/* core/dist/comm.c -- the gnn_comm wrappers, the self backend and the deterministic allreduce.
 *
 * The wrappers validate arguments, record the call (gnn_comm_call) and the traffic it sends,
 * then dispatch to the backend's ops table. The allreduce is written once, here, over the
 * backend's alltoallv and allgatherv, so every backend computes it with the same additions
 * in the same order (DESIGN.md section 4): sim and MPI agree bitwise. docs/comm.md. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnnref/comm.h"

static const size_t k_dtype_size[GNN_DT_COUNT] = { 1, 4, 8, 4, 8 };
static const char *const k_dtype_name[GNN_DT_COUNT] = { "u8", "i32", "i64", "f32", "f64" };
static const char *const k_op_name[GNN_COMM_OP_COUNT] = { "internal", "barrier",    "bcast",    "allgatherv",
                                                          "alltoallv", "ialltoallv", "allreduce" };

size_t gnn_dtype_size(gnn_dtype t) { return (unsigned)t < GNN_DT_COUNT ? k_dtype_size[t] : 0; }
const char *gnn_dtype_name(gnn_dtype t) { return (unsigned)t < GNN_DT_COUNT ? k_dtype_name[t] : "?"; }
const char *gnn_comm_op_name(gnn_comm_op op) { return (unsigned)op < GNN_COMM_OP_COUNT ? k_op_name[op] : "?"; }

char *gnn_comm_call_str(const gnn_comm_call *call, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s(%s, count=%lld", gnn_comm_op_name(call->op), gnn_dtype_name(call->dtype),
                     (long long)call->count);
    if (n >= 0 && (size_t)n < len && call->root >= 0)
        n += snprintf(buf + n, len - (size_t)n, ", root=%d", call->root);
    if (n >= 0 && (size_t)n < len && call->tag >= 0)
        n += snprintf(buf + n, len - (size_t)n, ", tag=%d", call->tag);
    if (n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ") [call #%lld]", (long long)call->seq);
    return buf;
}

gnn_status gnn_comm_alloc(const gnn_comm_ops *ops, int rank, int size, void *impl, gnn_comm **out)
{
    *out = NULL;
    if (!ops || size < 1 || rank < 0 || rank >= size)
        return GNN_ERR_INVAL;
    gnn_comm *c = calloc(1, sizeof *c);
    if (!c)
        return GNN_ERR_NOMEM;
    c->traffic.bytes = calloc((size_t)GNN_COMM_OP_COUNT * (size_t)size, sizeof(int64_t));
    c->traffic.msgs = calloc((size_t)GNN_COMM_OP_COUNT * (size_t)size, sizeof(int64_t));
    if (!c->traffic.bytes || !c->traffic.msgs) {
        free(c->traffic.bytes);
        free(c->traffic.msgs);
        free(c);
        return GNN_ERR_NOMEM;
    }
    c->ops = ops;
    c->rank = rank;
    c->size = size;
    c->impl = impl;
    c->call.root = c->call.tag = -1;
    *out = c;
    return GNN_OK;
}

void gnn_comm_free(gnn_comm *c)
{
    if (!c)
        return;
    if (c->ops && c->ops->destroy)
        c->ops->destroy(c);
    free(c->traffic.bytes);
    free(c->traffic.msgs);
    free(c);
}

const char *gnn_comm_errmsg(const gnn_comm *c) { return c && c->err.msg[0] ? c->err.msg : "no details"; }

/* ---- the self backend: one rank, every collective a copy ---------------------------- */

/* each backend has its own request type and casts it to the opaque gnn_comm_req */
typedef struct self_req {
    gnn_comm_seg seg;
    void *data;
    int tag;
} self_req;
typedef struct self_state {
    int64_t posted[GNN_COMM_MAX_TAG], waited[GNN_COMM_MAX_TAG];
} self_state;

static gnn_status self_barrier(gnn_comm *c) { return GNN_OK; }
static gnn_status self_bcast(gnn_comm *c, void *buf, int64_t count, gnn_dtype t, int root) { return GNN_OK; }
static gnn_status self_allgatherv(gnn_comm *c, const void *send, int64_t count, void *recv, const int64_t *counts,
                                  const int64_t *displs, gnn_dtype t)
{
    const size_t s = gnn_dtype_size(t);
    if (count > 0) /* an empty call may pass NULL buffers */
        memmove((char *)recv + (size_t)displs[0] * s, send, (size_t)count * s);
    return GNN_OK;
}
static gnn_status self_alltoallv(gnn_comm *c, const void *send, const int64_t *scounts, const int64_t *sdispls,
                                 void *recv, const int64_t *rcounts, const int64_t *rdispls, gnn_dtype t)
{
    const size_t s = gnn_dtype_size(t);
    if (scounts[0] > 0) /* an empty call may pass NULL buffers */
        memmove((char *)recv + (size_t)rdispls[0] * s, (const char *)send + (size_t)sdispls[0] * s,
                (size_t)scounts[0] * s);
    return GNN_OK;
}
static gnn_status self_ialltoallv(gnn_comm *c, const void *send, const int64_t *scounts, const int64_t *sdispls,
                                  gnn_dtype t, int tag, gnn_comm_req **req)
{
    self_state *S = c->impl;
    const size_t bytes = (size_t)scounts[0] * gnn_dtype_size(t);
    self_req *r = calloc(1, sizeof *r);
    if (!r || !(r->data = malloc(bytes + 1))) {
        free(r);
        return gnn_err_set(&c->err, GNN_ERR_NOMEM, "ialltoallv: out of memory");
    }
    memcpy(r->data, (const char *)send + (size_t)sdispls[0] * gnn_dtype_size(t), bytes);
    r->seg = (gnn_comm_seg){ .src = 0, .step = S->posted[tag]++, .count = scounts[0], .data = r->data };
    r->tag = tag;
    *req = (gnn_comm_req *)r;
    return GNN_OK;
}
static gnn_status self_wait(gnn_comm *c, gnn_comm_req *req, const gnn_comm_seg **segs, int *n_segs)
{
    self_state *S = c->impl;
    self_req *r = (self_req *)req;
    if (r->seg.step != S->waited[r->tag])
        return gnn_err_set(&c->err, GNN_ERR_COMM, "wait: tag %d: step %lld waited before step %lld", r->tag,
                           (long long)r->seg.step, (long long)S->waited[r->tag]);
    S->waited[r->tag]++;
    *segs = &r->seg;
    *n_segs = 1;
    return GNN_OK;
}
static void self_req_free(gnn_comm *c, gnn_comm_req *req)
{
    self_req *r = (self_req *)req;
    free(r->data);
    free(r);
}
static void self_destroy(gnn_comm *c) { free(c->impl); }

static const gnn_comm_ops k_self_ops = {
    .name = "self",
    .barrier = self_barrier,
    .bcast = self_bcast,
    .allgatherv = self_allgatherv,
    .alltoallv = self_alltoallv,
    .ialltoallv = self_ialltoallv,
    .wait = self_wait,
    .req_free = self_req_free,
    .allreduce = NULL,
    .destroy = self_destroy,
};

gnn_status gnn_comm_self(gnn_comm **out)
{
    self_state *S = calloc(1, sizeof *S);
    if (!S)
        return GNN_ERR_NOMEM;
    gnn_status st = gnn_comm_alloc(&k_self_ops, 0, 1, S, out);
    if (st)
        free(S);
    return st;
}

/* ---- wrappers ----------------------------------------------------------------------- */

static void begin(gnn_comm *c, gnn_comm_op op, gnn_dtype t, int64_t count, int root, int tag)
{
    c->call = (gnn_comm_call){ .op = op, .dtype = t, .count = count, .root = root, .tag = tag, .seq = c->n_calls++ };
    c->err.msg[0] = '\0';
}

static void account(gnn_comm *c, gnn_comm_op op, int dst, int64_t bytes)
{
    if (op == GNN_COMM_NONE || dst == c->rank || bytes <= 0)
        return;
    c->traffic.bytes[(size_t)op * (size_t)c->size + (size_t)dst] += bytes;
    c->traffic.msgs[(size_t)op * (size_t)c->size + (size_t)dst] += 1;
}

/* an invalid argument: GNN_ERR_INVAL with the message in c->err */
#define bad(c, ...) gnn_err_set(&(c)->err, GNN_ERR_INVAL, __VA_ARGS__)

static gnn_status check_counts(gnn_comm *c, const char *op, const char *what, const int64_t *v)
{
    if (!v)
        return bad(c, "%s: %s is NULL", op, what);
    for (int q = 0; q < c->size; q++)
        if (v[q] < 0)
            return bad(c, "%s: %s[%d] = %lld is negative", op, what, q, (long long)v[q]);
    return GNN_OK;
}

gnn_status gnn_comm_barrier(gnn_comm *c)
{
    if (!c)
        return GNN_ERR_INVAL;
    begin(c, GNN_COMM_BARRIER, GNN_DT_U8, 0, -1, -1);
    c->traffic.calls[GNN_COMM_BARRIER]++;
    return c->ops->barrier(c);
}

gnn_status gnn_comm_bcast(gnn_comm *c, void *buf, int64_t count, gnn_dtype t, int root)
{
    if (!c)
        return GNN_ERR_INVAL;
    begin(c, GNN_COMM_BCAST, t, count, root, -1);
    if (!gnn_dtype_size(t))
        return bad(c, "bcast: invalid dtype %d", (int)t);
    if (count < 0 || (count > 0 && !buf))
        return bad(c, "bcast: count %lld with buffer %p", (long long)count, buf);
    if (root < 0 || root >= c->size)
        return bad(c, "bcast: root %d is not a rank (size %d)", root, c->size);
    c->traffic.calls[GNN_COMM_BCAST]++;
    if (c->rank == root)
        for (int q = 0; q < c->size; q++)
            account(c, GNN_COMM_BCAST, q, count * (int64_t)gnn_dtype_size(t));
    return c->ops->bcast(c, buf, count, t, root);
}

/* Receive segments must be disjoint: rank q's counts[q] elements land at displs[q], and two
 * ranks' data on the same element would leave a result that depends on the order of delivery,
 * which differs between the simulator and MPI (docs/comm.md, "Buffers"). Empty segments
 * overlap nothing. Send and receive regions may overlap: every backend reads what a rank
 * sends before writing what it receives. */
typedef struct seg_span {
    int64_t lo, hi;
    int q;
} seg_span;

static int span_cmp(const void *a, const void *b)
{
    const seg_span *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->q > y->q) - (x->q < y->q);
}

static gnn_status check_disjoint(gnn_comm *c, const char *op, const char *cn, const char *dn, const int64_t *cnt,
                                 const int64_t *dsp)
{
    const int P = c->size;
    /* the common case first, without allocating: non-empty segments in rank order, each
     * after the previous one */
    int64_t end = 0;
    int sorted = 1, any = 0;
    for (int q = 0; q < P && sorted; q++) {
        if (cnt[q] == 0)
            continue;
        if (cnt[q] > INT64_MAX - dsp[q])
            return bad(c, "%s: %s[%d] = %lld elements at %s[%d] = %lld end beyond INT64_MAX", op, cn, q,
                       (long long)cnt[q], dn, q, (long long)dsp[q]);
        sorted = !any || dsp[q] >= end;
        end = dsp[q] + cnt[q];
        any = 1;
    }
    if (sorted)
        return GNN_OK;
    seg_span *v = malloc(sizeof *v * (size_t)P);
    if (!v)
        return gnn_err_set(&c->err, GNN_ERR_NOMEM, "%s: out of memory checking %d receive segments", op, P);
    int n = 0;
    for (int q = 0; q < P; q++) {
        if (cnt[q] == 0)
            continue;
        if (cnt[q] > INT64_MAX - dsp[q]) {
            free(v);
            return bad(c, "%s: %s[%d] = %lld elements at %s[%d] = %lld end beyond INT64_MAX", op, cn, q,
                       (long long)cnt[q], dn, q, (long long)dsp[q]);
        }
        v[n++] = (seg_span){ dsp[q], dsp[q] + cnt[q], q };
    }
    qsort(v, (size_t)n, sizeof *v, span_cmp);
    gnn_status st = GNN_OK;
    int far = 0; /* the segment reaching furthest so far */
    for (int k = 1; k < n && !st; k++) {
        if (v[k].lo < v[far].hi) {
            const int a = v[far].q < v[k].q ? v[far].q : v[k].q, b = v[far].q < v[k].q ? v[k].q : v[far].q;
            st = bad(c, "%s: the receive segments of ranks %d and %d overlap (%s[%d] = %lld, %s[%d] = %lld; %s[%d] = "
                        "%lld, %s[%d] = %lld): two ranks' data would land on the same elements",
                     op, a, b, dn, a, (long long)dsp[a], cn, a, (long long)cnt[a], dn, b, (long long)dsp[b], cn, b,
                     (long long)cnt[b]);
        }
        if (v[k].hi > v[far].hi)
            far = k;
    }
    free(v);
    return st;
}

gnn_status gnn_comm_allgatherv(gnn_comm *c, const void *send, int64_t count, void *recv, const int64_t *counts,
                               const int64_t *displs, gnn_dtype t)
{
    if (!c)
        return GNN_ERR_INVAL;
    begin(c, GNN_COMM_ALLGATHERV, t, count, -1, -1);
    gnn_status st;
    if (!gnn_dtype_size(t))
        return bad(c, "allgatherv: invalid dtype %d", (int)t);
    if ((st = check_counts(c, "allgatherv", "counts", counts)) || (st = check_counts(c, "allgatherv", "displs", displs)))
        return st;
    if (count != counts[c->rank])
        return bad(c, "allgatherv: send count %lld differs from counts[%d] = %lld", (long long)count, c->rank,
                   (long long)counts[c->rank]);
    if ((st = check_disjoint(c, "allgatherv", "counts", "displs", counts, displs)))
        return st;
    c->traffic.calls[GNN_COMM_ALLGATHERV]++;
    for (int q = 0; q < c->size; q++)
        account(c, GNN_COMM_ALLGATHERV, q, count * (int64_t)gnn_dtype_size(t));
    return c->ops->allgatherv(c, send, count, recv, counts, displs, t);
}

static gnn_status check_a2a(gnn_comm *c, const char *op, const int64_t *scounts, const int64_t *sdispls, gnn_dtype t)
{
    gnn_status st;
    if (!gnn_dtype_size(t))
        return bad(c, "%s: invalid dtype %d", op, (int)t);
    if ((st = check_counts(c, op, "scounts", scounts)) || (st = check_counts(c, op, "sdispls", sdispls)))
        return st;
    return GNN_OK;
}

static int64_t sum(const int64_t *v, int n)
{
    int64_t s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}

gnn_status gnn_comm_alltoallv(gnn_comm *c, const void *send, const int64_t *scounts, const int64_t *sdispls,
                              void *recv, const int64_t *rcounts, const int64_t *rdispls, gnn_dtype t)
{
    if (!c)
        return GNN_ERR_INVAL;
    begin(c, GNN_COMM_ALLTOALLV, t, scounts ? sum(scounts, c->size) : 0, -1, -1);
    gnn_status st;
    if ((st = check_a2a(c, "alltoallv", scounts, sdispls, t)) ||
        (st = check_counts(c, "alltoallv", "rcounts", rcounts)) || (st = check_counts(c, "alltoallv", "rdispls", rdispls)))
        return st;
    if (scounts[c->rank] != rcounts[c->rank])
        return bad(c, "alltoallv: scounts[%d] = %lld but rcounts[%d] = %lld (a rank's message to itself)", c->rank,
                   (long long)scounts[c->rank], c->rank, (long long)rcounts[c->rank]);
    if ((st = check_disjoint(c, "alltoallv", "rcounts", "rdispls", rcounts, rdispls)))
        return st;
    c->traffic.calls[GNN_COMM_ALLTOALLV]++;
    for (int q = 0; q < c->size; q++)
        account(c, GNN_COMM_ALLTOALLV, q, scounts[q] * (int64_t)gnn_dtype_size(t));
    return c->ops->alltoallv(c, send, scounts, sdispls, recv, rcounts, rdispls, t);
}

gnn_status gnn_comm_ialltoallv(gnn_comm *c, const void *send, const int64_t *scounts, const int64_t *sdispls,
                               gnn_dtype t, int tag, gnn_comm_req **req)
{
    if (!c || !req)
        return GNN_ERR_INVAL;
    *req = NULL;
    begin(c, GNN_COMM_IALLTOALLV, t, scounts ? sum(scounts, c->size) : 0, -1, tag);
    gnn_status st;
    if ((st = check_a2a(c, "ialltoallv", scounts, sdispls, t)))
        return st;
    if (tag < 0 || tag >= GNN_COMM_MAX_TAG)
        return bad(c, "ialltoallv: tag %d is outside [0, %d)", tag, GNN_COMM_MAX_TAG);
    c->traffic.calls[GNN_COMM_IALLTOALLV]++;
    for (int q = 0; q < c->size; q++)
        account(c, GNN_COMM_IALLTOALLV, q, scounts[q] * (int64_t)gnn_dtype_size(t));
    return c->ops->ialltoallv(c, send, scounts, sdispls, t, tag, req);
}

gnn_status gnn_comm_wait(gnn_comm *c, gnn_comm_req *req, const gnn_comm_seg **segs, int *n_segs)
{
    if (!c || !req || !segs || !n_segs)
        return GNN_ERR_INVAL;
    return c->ops->wait(c, req, segs, n_segs);
}

void gnn_comm_req_free(gnn_comm *c, gnn_comm_req *req)
{
    if (c && req)
        c->ops->req_free(c, req);
}

/* ---- the deterministic allreduce ----------------------------------------------------- */

/* chunk j of a count-element vector over P ranks: [count*j/P, count*(j+1)/P) */
static int64_t chunk_lo(int64_t count, int P, int j) { return (int64_t)(((__int128)count * j) / P); }

/* acc += x, elementwise, in the dtype's own arithmetic */
static void add_into(void *acc, const void *x, int64_t n, gnn_dtype t)
{
    if (t == GNN_DT_F32) {
        float *a = acc;
        const float *b = x;
        for (int64_t i = 0; i < n; i++)
            a[i] = a[i] + b[i];
    } else {
        double *a = acc;
        const double *b = x;
        for (int64_t i = 0; i < n; i++)
            a[i] = a[i] + b[i];
    }
}

void gnn_comm_allreduce_expected(const void *const *x, int P, void *out, int64_t count, gnn_dtype t)
{
    const size_t s = gnn_dtype_size(t);
    /* every element is the rank-order sum ((x_0 + x_1) + x_2) + ...: chunking does not
     * change it, which is why the distributed version is exact to this */
    memmove(out, x[0], (size_t)count * s);
    for (int q = 1; q < P; q++)
        add_into(out, x[q], count, t);
}

static gnn_status allreduce_generic(gnn_comm *c, const void *send, void *recv, int64_t count, gnn_dtype t)
{
    const int P = c->size, me = c->rank;
    const size_t s = gnn_dtype_size(t);
    int64_t *v = malloc(sizeof(int64_t) * 4 * (size_t)P);
    const int64_t my_lo = chunk_lo(count, P, me), my_n = chunk_lo(count, P, me + 1) - my_lo;
    char *parts = malloc((size_t)(my_n * P) * s + 1), *mine = malloc((size_t)my_n * s + 1);
    gnn_status st = GNN_ERR_NOMEM;
    if (!v || !parts || !mine) {
        gnn_err_set(&c->err, st, "allreduce: out of memory for %lld elements", (long long)count);
        goto done;
    }
    int64_t *sc = v, *sd = v + P, *rc = v + 2 * P, *rd = v + 3 * P;
    /* reduce-scatter: chunk j of every rank goes to rank j */
    for (int q = 0; q < P; q++) {
        sd[q] = chunk_lo(count, P, q);
        sc[q] = chunk_lo(count, P, q + 1) - sd[q];
        rc[q] = my_n;
        rd[q] = my_n * q;
        account(c, GNN_COMM_ALLREDUCE, q, sc[q] * (int64_t)s);
    }
    if ((st = c->ops->alltoallv(c, send, sc, sd, parts, rc, rd, t)))
        goto done;
    /* the owner sums its chunk in rank order 0..P-1 */
    memcpy(mine, parts, (size_t)my_n * s);
    for (int q = 1; q < P; q++)
        add_into(mine, parts + (size_t)(my_n * q) * s, my_n, t);
    /* allgather the reduced chunks */
    for (int q = 0; q < P; q++)
        account(c, GNN_COMM_ALLREDUCE, q, my_n * (int64_t)s);
    st = c->ops->allgatherv(c, mine, my_n, recv, sc, sd, t);
done:
    free(v);
    free(parts);
    free(mine);
    return st;
}

gnn_status gnn_comm_allreduce(gnn_comm *c, const void *send, void *recv, int64_t count, gnn_dtype t)
{
    if (!c)
        return GNN_ERR_INVAL;
    begin(c, GNN_COMM_ALLREDUCE, t, count, -1, -1);
    if (t != GNN_DT_F32 && t != GNN_DT_F64)
        return bad(c, "allreduce: dtype %s: only f32 and f64 sums are supported", gnn_dtype_name(t));
    if (count < 0 || (count > 0 && (!send || !recv)))
        return bad(c, "allreduce: count %lld with buffers %p, %p", (long long)count, send, recv);
    c->traffic.calls[GNN_COMM_ALLREDUCE]++;
    if (c->ops->allreduce)
        return c->ops->allreduce(c, send, recv, count, t);
    return allreduce_generic(c, send, recv, count, t);
}

gnn_status gnn_comm_traffic_matrix(gnn_comm *c, int root, int64_t **bytes, int64_t **msgs)
{
    *bytes = *msgs = NULL;
    const int P = c->size, me = c->rank;
    if (root < -1 || root >= P)
        return bad(c, "traffic matrix: root %d is not a rank of %d (or -1 for every rank)", root, P);
    /* every rank's row goes to every receiver: with root = -1 that is P copies of the whole
     * [op][P][P] matrix, O(P^3) memory over the ranks, which at a thousand simulated ranks is
     * too much; a report needs it on one rank only */
    const int receive = root < 0 || me == root;
    const int64_t row = (int64_t)GNN_COMM_OP_COUNT * P; /* one rank's [op][dst] */
    int64_t *mine = malloc(sizeof(int64_t) * 2 * (size_t)row);
    int64_t *all = malloc(sizeof(int64_t) * 2 * (size_t)(receive ? row * P : 1));
    int64_t *cnt = calloc(4 * (size_t)P + 1, sizeof(int64_t));
    gnn_status st = GNN_ERR_NOMEM;
    if (!mine || !all || !cnt)
        goto fail;
    memcpy(mine, c->traffic.bytes, sizeof(int64_t) * (size_t)row);
    memcpy(mine + row, c->traffic.msgs, sizeof(int64_t) * (size_t)row);
    begin(c, GNN_COMM_NONE, GNN_DT_I64, 2 * row, root, -1);
    if (root < 0) {
        for (int q = 0; q < P; q++) {
            cnt[q] = 2 * row;
            cnt[P + q] = 2 * row * q;
        }
        st = c->ops->allgatherv(c, mine, 2 * row, all, cnt, cnt + P, GNN_DT_I64);
    } else {
        /* a gather to root, as an alltoallv that sends to root only */
        int64_t *sc = cnt, *sd = cnt + P, *rc = cnt + 2 * P, *rd = cnt + 3 * P;
        for (int q = 0; q < P; q++) {
            sc[q] = q == root ? 2 * row : 0;
            sd[q] = 0;
            rc[q] = receive ? 2 * row : 0;
            rd[q] = receive ? 2 * row * q : 0;
        }
        st = c->ops->alltoallv(c, mine, sc, sd, all, rc, rd, GNN_DT_I64);
    }
    if (st)
        goto fail;
    if (!receive) {
        free(mine);
        free(all);
        free(cnt);
        return GNN_OK;
    }
    *bytes = malloc(sizeof(int64_t) * (size_t)(row * P));
    *msgs = malloc(sizeof(int64_t) * (size_t)(row * P));
    if (!*bytes || !*msgs) {
        st = GNN_ERR_NOMEM;
        goto fail;
    }
    /* all[src] = bytes[op][dst] then msgs[op][dst]  ->  out[op][src][dst] */
    for (int src = 0; src < P; src++)
        for (int op = 0; op < GNN_COMM_OP_COUNT; op++)
            for (int dst = 0; dst < P; dst++) {
                const size_t o = ((size_t)op * (size_t)P + (size_t)src) * (size_t)P + (size_t)dst;
                const int64_t *r = all + 2 * row * src;
                (*bytes)[o] = r[op * P + dst];
                (*msgs)[o] = r[row + op * P + dst];
            }
    free(mine);
    free(all);
    free(cnt);
    return GNN_OK;
fail:
    free(mine);
    free(all);
    free(cnt);
    free(*bytes);
    free(*msgs);
    *bytes = *msgs = NULL;
    return st;
}
