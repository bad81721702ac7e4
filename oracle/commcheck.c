/* oracle/commcheck.c -- every gnn_comm collective on keyed inputs, checked bitwise against
 * the expected output that each rank computes by itself (include/gnnref/commcheck.h).
 * The same function runs under self, sim and MPI; comparing the per-case CRC32Cs of two
 * backends is the "sim vs MPI, bitwise" test of ci/mpi-check.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gnnref/commcheck.h"
#include "gnnref/crc32c.h"
#include "gnnref/rng.h"
#include "oracle/comm_spmd.h"

typedef struct ctx {
    gnn_comm *c;
    uint64_t seed;
    gnn_commcheck_result *out;
    int P, me;
} ctx;

/* Rank q's value i of case k (id selects a sub-stream, e.g. a destination). kind 0: random
 * in [-1, 1); kind 1: a small integer in [-8, 8), so every sum of a few is exact. */
static double value(const ctx *x, int k, int64_t id, int64_t i, int kind)
{
    const gnn_rng_stream s = gnn_rng_stream_make(x->seed, GNN_TAG_ORACLE, (uint32_t)k, 0, (uint64_t)id);
    const float u = gnn_rng_float(&s, (uint64_t)i);
    if (kind == 1)
        return (double)((int)(u * 16.0f) - 8);
    /* f64 cases get 53 bits: two float draws */
    const float v = gnn_rng_float(&s, (uint64_t)i + (1u << 30));
    return 2.0 * ((double)u + (double)v / 16777216.0) - 1.0;
}

static void fill(const ctx *x, int k, int64_t id, void *buf, int64_t n, gnn_dtype t, int kind)
{
    for (int64_t i = 0; i < n; i++) {
        const double v = value(x, k, id, i, kind);
        switch (t) {
        case GNN_DT_F32: ((float *)buf)[i] = (float)v; break;
        case GNN_DT_F64: ((double *)buf)[i] = v; break;
        case GNN_DT_I64: ((int64_t *)buf)[i] = (int64_t)(v * 1e15); break;
        case GNN_DT_I32: ((int32_t *)buf)[i] = (int32_t)(v * 1e9); break;
        default: ((uint8_t *)buf)[i] = (uint8_t)(int)(v * 127.0 + 128.0); break;
        }
    }
}

static gnn_commcheck_case *add_case(ctx *x, const char *fmt, const char *arg)
{
    gnn_commcheck_result *r = x->out;
    if (r->n >= GNN_COMMCHECK_MAX_CASES)
        return NULL;
    gnn_commcheck_case *cs = &r->c[r->n++];
    memset(cs, 0, sizeof *cs);
    snprintf(cs->name, sizeof cs->name, fmt, arg);
    cs->pass = 1;
    return cs;
}

/* Record a case's output: CRC, and a bitwise comparison with the expected bytes. */
static void finish(gnn_commcheck_case *cs, const void *got, const void *want, size_t bytes, size_t elem)
{
    if (!cs)
        return;
    cs->crc = gnn_crc32c(cs->crc, got, bytes);
    if (want && memcmp(got, want, bytes) != 0) {
        size_t i = 0;
        while (i < bytes && ((const uint8_t *)got)[i] == ((const uint8_t *)want)[i])
            i++;
        if (cs->pass)
            snprintf(cs->detail, sizeof cs->detail, "first difference at element %zu (byte %zu)", i / elem, i);
        cs->pass = 0;
    }
}

#define TRY(call)                                                                                                      \
    do {                                                                                                               \
        if ((st = (call)))                                                                                             \
            goto done;                                                                                                 \
    } while (0)

static gnn_status case_bcast(ctx *x, int k, int root, int64_t n, gnn_dtype t)
{
    const size_t s = gnn_dtype_size(t);
    char label[40];
    snprintf(label, sizeof label, "root=%d/%s/n=%lld", root, gnn_dtype_name(t), (long long)n);
    gnn_commcheck_case *cs = add_case(x, "bcast/%s", label);
    void *buf = malloc((size_t)n * s + 1), *want = malloc((size_t)n * s + 1);
    gnn_status st = GNN_ERR_NOMEM;
    if (!buf || !want)
        goto done;
    fill(x, k, root, want, n, t, 0);
    if (x->me == root)
        memcpy(buf, want, (size_t)n * s);
    else
        memset(buf, 0xA5, (size_t)n * s);
    TRY(gnn_comm_bcast(x->c, buf, n, t, root));
    finish(cs, buf, want, (size_t)n * s, s);
done:
    free(buf);
    free(want);
    return st;
}

/* allgatherv: rank q contributes counts[q] elements; zero_rank (if >= 0) contributes none */
static gnn_status case_allgatherv(ctx *x, int k, gnn_dtype t, int zero_rank)
{
    const int P = x->P;
    const size_t s = gnn_dtype_size(t);
    char label[40];
    snprintf(label, sizeof label, "%s/empty-rank=%d", gnn_dtype_name(t), zero_rank);
    gnn_commcheck_case *cs = add_case(x, "allgatherv/%s", label);
    int64_t *cnt = malloc(sizeof(int64_t) * 2 * (size_t)P), *dsp = cnt ? cnt + P : NULL, tot = 0;
    void *send = NULL, *recv = NULL, *want = NULL;
    gnn_status st = GNN_ERR_NOMEM;
    if (!cnt)
        goto done;
    for (int q = 0; q < P; q++) {
        cnt[q] = q == zero_rank ? 0 : (q * 7 + 3) % 11 + 1;
        dsp[q] = tot;
        tot += cnt[q];
    }
    send = malloc((size_t)cnt[x->me] * s + 1);
    recv = malloc((size_t)tot * s + 1);
    want = malloc((size_t)tot * s + 1);
    if (!send || !recv || !want)
        goto done;
    fill(x, k, x->me, send, cnt[x->me], t, 0);
    for (int q = 0; q < P; q++)
        fill(x, k, q, (char *)want + (size_t)dsp[q] * s, cnt[q], t, 0);
    memset(recv, 0xA5, (size_t)tot * s);
    TRY(gnn_comm_allgatherv(x->c, send, cnt[x->me], recv, cnt, dsp, t));
    finish(cs, recv, want, (size_t)tot * s, s);
done:
    free(cnt);
    free(send);
    free(recv);
    free(want);
    return st;
}

/* rank r sends a2a_count(r, q, k) elements to rank q; zero for some pairs */
static int64_t a2a_count(int r, int q, int k) { return (int64_t)((r + 2 * q + 1 + k) % 4) * 3; }

static gnn_status case_alltoallv(ctx *x, int k, gnn_dtype t)
{
    const int P = x->P, me = x->me;
    const size_t s = gnn_dtype_size(t);
    gnn_commcheck_case *cs = add_case(x, "alltoallv/%s", gnn_dtype_name(t));
    int64_t *v = malloc(sizeof(int64_t) * 4 * (size_t)P), st_tot = 0, rt_tot = 0;
    void *send = NULL, *recv = NULL, *want = NULL;
    gnn_status st = GNN_ERR_NOMEM;
    if (!v)
        goto done;
    int64_t *sc = v, *sd = v + P, *rc = v + 2 * P, *rd = v + 3 * P;
    for (int q = 0; q < P; q++) {
        sc[q] = a2a_count(me, q, k);
        sd[q] = st_tot;
        st_tot += sc[q];
        rc[q] = a2a_count(q, me, k);
        rd[q] = rt_tot;
        rt_tot += rc[q];
    }
    send = malloc((size_t)st_tot * s + 1);
    recv = malloc((size_t)rt_tot * s + 1);
    want = malloc((size_t)rt_tot * s + 1);
    if (!send || !recv || !want)
        goto done;
    for (int q = 0; q < P; q++) { /* the segment r -> q is sub-stream r * P + q */
        fill(x, k, (int64_t)me * P + q, (char *)send + (size_t)sd[q] * s, sc[q], t, 0);
        fill(x, k, (int64_t)q * P + me, (char *)want + (size_t)rd[q] * s, rc[q], t, 0);
    }
    memset(recv, 0xA5, (size_t)rt_tot * s);
    TRY(gnn_comm_alltoallv(x->c, send, sc, sd, recv, rc, rd, t));
    finish(cs, recv, want, (size_t)rt_tot * s, s);
done:
    free(v);
    free(send);
    free(recv);
    free(want);
    return st;
}

static gnn_status case_allreduce(ctx *x, int k, gnn_dtype t, int64_t n, int kind, int inplace)
{
    const int P = x->P;
    const size_t s = gnn_dtype_size(t);
    char label[48];
    snprintf(label, sizeof label, "%s/%s/n=%lld%s", gnn_dtype_name(t), kind ? "exact" : "random", (long long)n,
             inplace ? "/inplace" : "");
    gnn_commcheck_case *cs = add_case(x, "allreduce/%s", label);
    void **in = calloc((size_t)P, sizeof(void *)), *recv = malloc((size_t)n * s + 1), *want = malloc((size_t)n * s + 1);
    gnn_status st = GNN_ERR_NOMEM;
    if (!in || !recv || !want)
        goto done;
    for (int q = 0; q < P; q++) {
        if (!(in[q] = malloc((size_t)n * s + 1)))
            goto done;
        fill(x, k, q, in[q], n, t, kind);
    }
    /* the specification, written here rather than taken from core/dist/comm.c (whose
     * gnn_comm_allreduce_expected shares code with the allreduce): ((x_0 + x_1) + x_2) + ... */
    for (int64_t i = 0; i < n; i++) {
        if (t == GNN_DT_F32) {
            float a = ((const float *)in[0])[i];
            for (int q = 1; q < P; q++)
                a = a + ((const float *)in[q])[i];
            ((float *)want)[i] = a;
        } else {
            double a = ((const double *)in[0])[i];
            for (int q = 1; q < P; q++)
                a = a + ((const double *)in[q])[i];
            ((double *)want)[i] = a;
        }
    }
    if (inplace) {
        memcpy(recv, in[x->me], (size_t)n * s);
        TRY(gnn_comm_allreduce(x->c, recv, recv, n, t));
    } else {
        memset(recv, 0xA5, (size_t)n * s);
        TRY(gnn_comm_allreduce(x->c, in[x->me], recv, n, t));
    }
    finish(cs, recv, want, (size_t)n * s, s);
    if (kind == 1 && cs && cs->pass) /* exact inputs: the integer sum, independently */
        for (int64_t i = 0; i < n; i++) {
            double isum = 0;
            for (int q = 0; q < P; q++)
                isum += value(x, k, q, i, 1);
            const double got = t == GNN_DT_F32 ? (double)((float *)recv)[i] : ((double *)recv)[i];
            if (got != isum) {
                cs->pass = 0;
                snprintf(cs->detail, sizeof cs->detail, "element %lld: %g, integer sum %g", (long long)i, got, isum);
                break;
            }
        }
done:
    if (in)
        for (int q = 0; q < P; q++)
            free(in[q]);
    free(in);
    free(recv);
    free(want);
    return st;
}

/* Asynchronous alltoallv on one tag, steps 0..4, waited two steps after posting (three
 * posts outstanding at most), as the HEC pushes are: every wait must return exactly the
 * step's segment of every rank. */
static int64_t async_count(int r, int q, int step) { return (int64_t)((r + q + step) % 3) * 2; }

static gnn_status case_async(ctx *x, int k, const char *inject)
{
    enum { STEPS = 5, DELAY = 2, TAG = 7 };
    const int P = x->P, me = x->me;
    gnn_commcheck_case *cs = add_case(x, "ialltoallv/f32/%s", "steps=5,wait-after=2");
    gnn_comm_req *req[STEPS] = { 0 };
    float *send[STEPS] = { 0 }, *want = NULL;
    int64_t *v = malloc(sizeof(int64_t) * 2 * (size_t)P * STEPS);
    gnn_status st = GNN_ERR_NOMEM;
    if (!v || !(want = malloc(sizeof(float) * 16)))
        goto done;
    for (int step = 0, waited = 0; waited < STEPS; step++) {
        if (step < STEPS) {
            int64_t *sc = v + (size_t)step * 2 * P, *sd = sc + P, tot = 0;
            for (int q = 0; q < P; q++) {
                sc[q] = async_count(me, q, step);
                sd[q] = tot;
                tot += sc[q];
            }
            if (!(send[step] = malloc(sizeof(float) * (size_t)tot + 1)))
                goto done;
            for (int q = 0; q < P; q++)
                fill(x, k + step, (int64_t)me * P + q, send[step] + sd[q], sc[q], GNN_DT_F32, 0);
            TRY(gnn_comm_ialltoallv(x->c, send[step], sc, sd, GNN_DT_F32, TAG, &req[step]));
            if (inject && !strcmp(inject, "modify") && me == 0 && step == 0 && tot > 0)
                send[0][0] += 1.0f; /* a bug the simulator must report */
        }
        if (step >= DELAY || step >= STEPS) {
            const int w = waited++;
            const gnn_comm_seg *seg;
            int n_seg;
            TRY(gnn_comm_wait(x->c, req[w], &seg, &n_seg));
            if (cs && n_seg != P && cs->pass) {
                cs->pass = 0;
                snprintf(cs->detail, sizeof cs->detail, "step %d: %d segments, expected %d", w, n_seg, P);
            }
            for (int i = 0; i < n_seg && cs; i++) {
                const int q = seg[i].src;
                const int64_t want_n = async_count(q, me, w);
                const uint32_t head[3] = { (uint32_t)q, (uint32_t)seg[i].step, (uint32_t)seg[i].count };
                cs->crc = gnn_crc32c(cs->crc, head, sizeof head);
                if (q != (i < P ? i : -1) || seg[i].step != w || seg[i].count != want_n) {
                    if (cs->pass)
                        snprintf(cs->detail, sizeof cs->detail,
                                 "step %d: segment %d is (src %d, step %lld, count %lld), expected (%d, %d, %lld)", w, i,
                                 q, (long long)seg[i].step, (long long)seg[i].count, i, w, (long long)want_n);
                    cs->pass = 0;
                    continue;
                }
                fill(x, k + w, (int64_t)q * P + me, want, want_n, GNN_DT_F32, 0);
                finish(cs, seg[i].data, want, (size_t)want_n * sizeof(float), sizeof(float));
            }
            gnn_comm_req_free(x->c, req[w]);
            req[w] = NULL;
        }
    }
    st = GNN_OK;
done:
    for (int i = 0; i < STEPS; i++) {
        gnn_comm_req_free(x->c, req[i]);
        free(send[i]);
    }
    free(v);
    free(want);
    return st;
}

static gnn_status case_traffic(ctx *x)
{
    gnn_commcheck_case *cs = add_case(x, "traffic-matrix%s", "");
    int64_t *bytes = NULL, *msgs = NULL, *rb = NULL, *rm = NULL;
    gnn_status st = gnn_comm_traffic_matrix(x->c, -1, &bytes, &msgs);
    if (st)
        return st;
    const size_t n = (size_t)GNN_COMM_OP_COUNT * (size_t)x->P * (size_t)x->P;
    finish(cs, bytes, NULL, n * sizeof(int64_t), sizeof(int64_t));
    finish(cs, msgs, NULL, n * sizeof(int64_t), sizeof(int64_t));
    /* my row of the gathered matrix is what my wrappers counted */
    for (int op = 0; op < GNN_COMM_OP_COUNT && cs; op++)
        for (int q = 0; q < x->P; q++) {
            const size_t o = ((size_t)op * (size_t)x->P + (size_t)x->me) * (size_t)x->P + (size_t)q;
            if (bytes[o] != x->c->traffic.bytes[(size_t)op * (size_t)x->P + (size_t)q] && cs->pass) {
                cs->pass = 0;
                snprintf(cs->detail, sizeof cs->detail, "%s to rank %d: %lld bytes gathered, %lld counted",
                         gnn_comm_op_name((gnn_comm_op)op), q, (long long)bytes[o],
                         (long long)x->c->traffic.bytes[(size_t)op * (size_t)x->P + (size_t)q]);
            }
        }
    /* gathered on the last rank only (the gathers themselves are not counted, so the matrix
     * is the same): the root gets it bitwise, every other rank gets NULL */
    const int root = x->P - 1;
    gnn_commcheck_case *cr = add_case(x, "traffic-matrix/root=%s", "last");
    if ((st = gnn_comm_traffic_matrix(x->c, root, &rb, &rm)))
        goto done;
    if (x->me == root && (!rb || !rm)) {
        if (cr) {
            cr->pass = 0;
            snprintf(cr->detail, sizeof cr->detail, "the root (rank %d) got no matrix", x->me);
        }
    } else if (x->me == root) {
        finish(cr, rb, bytes, n * sizeof(int64_t), sizeof(int64_t));
        finish(cr, rm, msgs, n * sizeof(int64_t), sizeof(int64_t));
    } else if ((rb || rm) && cr) {
        cr->pass = 0;
        snprintf(cr->detail, sizeof cr->detail, "rank %d is not the root but got a matrix", x->me);
    }
done:
    free(bytes);
    free(msgs);
    free(rb);
    free(rm);
    return st;
}

/* The oracle's comm.* entries (oracle/op_comm.c, oracle/op_comm_layouts.c): every preset whose
 * rank count is this communicator's size, with this run's seed, through the entry's SPMD body.
 * Under mpirun this is those entries' MPI implementation; the case name is the oracle case
 * string without impl and seed, the same under every backend, so ci/mpi-check.sh compares the
 * CRCs. */
static gnn_status case_oracle(ctx *x)
{
    for (const gnn_comm_spmd_entry *E = gnn_oracle_comm_spmd; E->entry; E++)
        for (const char *const *pr = E->entry->presets; *pr; pr++) {
            gnn_oracle_case cs;
            gnn_err err = { "" };
            if (gnn_oracle_case_init(&cs, E->entry, E->entry->ref, 0, *pr, x->seed, &err))
                return gnn_err_set(&x->c->err, GNN_ERR_INTERNAL, "commcheck: %s(%s): %s", E->entry->name, *pr,
                                   err.msg);
            if (gnn_oracle_int(&cs, 0) != x->P)
                continue;
            char name[sizeof x->out->c[0].name];
            snprintf(name, sizeof name, "%s(%s)", E->entry->name, *pr);
            gnn_commcheck_case *k = add_case(x, "%s", name);
            gnn_comm_spmd_result r = { .pass = 1 };
            gnn_status st = E->fn(x->c, &cs, &r);
            if (st)
                return st;
            if (k) {
                k->crc = r.crc;
                k->pass = r.pass;
                snprintf(k->detail, sizeof k->detail, "%s", r.detail);
            }
        }
    return GNN_OK;
}

/* inject "flip" (the simulator flips one bit of every message): every asynchronous segment
 * from another rank must be discarded by its CRC32C, and a blocking alltoallv must stop the
 * run with GNN_ERR_COMM naming both ranks. Returns that status, or GNN_ERR_MISMATCH when a
 * corrupted message got through. */
static gnn_status inject_flip(ctx *x)
{
    gnn_comm *c = x->c;
    const int P = x->P;
    float *v = calloc(3 * (size_t)P + 1, sizeof(float)), *r = calloc(3 * (size_t)P + 1, sizeof(float));
    int64_t *cnt = calloc(2 * (size_t)P + 1, sizeof(int64_t));
    gnn_comm_req *req = NULL;
    gnn_status st = GNN_ERR_NOMEM;
    if (!v || !r || !cnt)
        goto done;
    for (int q = 0; q < P; q++) {
        cnt[q] = 3;
        cnt[P + q] = 3 * (int64_t)q;
        v[3 * q] = (float)(x->me * P + q);
    }
    const gnn_comm_seg *seg;
    int n;
    if ((st = gnn_comm_ialltoallv(c, v, cnt, cnt + P, GNN_DT_F32, 9, &req)) || (st = gnn_comm_wait(c, req, &seg, &n)))
        goto done;
    for (int i = 0; i < n; i++)
        if (seg[i].src != x->me) {
            st = gnn_err_set(&c->err, GNN_ERR_MISMATCH,
                             "commcheck: rank %d: inject flip: the segment from rank %d arrived, but with every bit "
                             "flipped its CRC32C must discard it (run with --fault-flip 1)",
                             x->me, seg[i].src);
            goto done;
        }
    st = gnn_comm_alltoallv(c, v, cnt, cnt + P, r, cnt, cnt + P, GNN_DT_F32);
    if (st == GNN_OK && P > 1)
        st = gnn_err_set(&c->err, GNN_ERR_MISMATCH,
                         "commcheck: rank %d: inject flip: a blocking alltoallv delivered messages with flipped bits", x->me);
done:
    gnn_comm_req_free(c, req);
    free(v);
    free(r);
    free(cnt);
    return st;
}

/* inject "skip": every rank posts and waits step 0 of an ialltoallv on tag 4; then the last
 * rank skips step 1 (it goes to a barrier) while the others post it and wait for it. The
 * simulator reports the deadlock; under MPI the bounded wait (docs/comm.md, section 8) fails
 * naming the rank that never posted. Either way the run stops. */
static gnn_status inject_skip(ctx *x)
{
    gnn_comm *c = x->c;
    const int P = x->P;
    float v[2] = { 1, 2 };
    int64_t *cnt = calloc(2 * (size_t)P, sizeof(int64_t));
    if (!cnt)
        return GNN_ERR_NOMEM;
    gnn_status st = GNN_OK;
    for (int step = 0; step < 2 && !st; step++) {
        if (step == 1 && x->me == P - 1) {
            st = gnn_comm_barrier(c);
            break;
        }
        gnn_comm_req *req = NULL;
        const gnn_comm_seg *seg;
        int n;
        if (!(st = gnn_comm_ialltoallv(c, v, cnt, cnt + P, GNN_DT_F32, 4, &req)))
            st = gnn_comm_wait(c, req, &seg, &n);
        gnn_comm_req_free(c, req);
    }
    free(cnt);
    if (st == GNN_OK)
        st = gnn_err_set(&c->err, GNN_ERR_MISMATCH, "commcheck: rank %d: inject skip: the run went on although rank %d "
                                                    "skipped an ialltoallv", x->me, P - 1);
    return st;
}

/* inject "late" (MPI, docs/comm.md section 8): after a barrier every rank posts step 0 of an
 * ialltoallv on tag 4, rank q only after sleeping q * GNN_COMMCHECK_LATE_S seconds, then
 * waits. Each source posts within one late step of the one before it, so a bound per source
 * of more than that would let rank 0's wait succeed after (P - 1) late steps; the bound of the
 * whole call (GNN_MPI_WAIT_TIMEOUT=5 with 3 s steps) must stop it after 5 s, naming rank 2. */
static gnn_status inject_late(ctx *x)
{
    gnn_comm *c = x->c;
    const int P = x->P;
    float v[2] = { 1, 2 };
    int64_t *cnt = calloc(2 * (size_t)P, sizeof(int64_t));
    if (!cnt)
        return GNN_ERR_NOMEM;
    gnn_status st = gnn_comm_barrier(c);
    if (!st) {
        const struct timespec late = { (time_t)(x->me * GNN_COMMCHECK_LATE_S), 0 };
        nanosleep(&late, NULL);
        gnn_comm_req *req = NULL;
        const gnn_comm_seg *seg;
        int n;
        if (!(st = gnn_comm_ialltoallv(c, v, cnt, cnt + P, GNN_DT_F32, 4, &req)))
            st = gnn_comm_wait(c, req, &seg, &n);
        gnn_comm_req_free(c, req);
    }
    free(cnt);
    if (st == GNN_OK && x->me == 0 && P > 2)
        st = gnn_err_set(&c->err, GNN_ERR_MISMATCH, "commcheck: rank 0: inject late: the wait returned although rank 2 "
                                                    "posted %d s after it began (a bound per source, not per call?)",
                         2 * GNN_COMMCHECK_LATE_S);
    return st;
}

static gnn_status injected(ctx *x, const char *inject)
{
    gnn_comm *c = x->c;
    float v[4] = { 1, 2, 3, 4 };
    if (!strcmp(inject, "mismatch"))
        return x->me == 0 ? gnn_comm_barrier(c) : gnn_comm_allreduce(c, v, v, 4, GNN_DT_F32);
    if (!strcmp(inject, "deadlock")) {
        if (x->me == 0)
            return gnn_comm_barrier(c);
        int64_t *cnt = calloc((size_t)x->P * 2, sizeof(int64_t));
        if (!cnt)
            return GNN_ERR_NOMEM;
        gnn_comm_req *req = NULL;
        const gnn_comm_seg *seg;
        int n;
        gnn_status st = gnn_comm_ialltoallv(c, v, cnt, cnt + x->P, GNN_DT_F32, 3, &req);
        if (!st)
            st = gnn_comm_wait(c, req, &seg, &n);
        gnn_comm_req_free(c, req);
        free(cnt);
        return st;
    }
    if (!strcmp(inject, "flip"))
        return inject_flip(x);
    if (!strcmp(inject, "skip"))
        return inject_skip(x);
    if (!strcmp(inject, "late"))
        return inject_late(x);
    return GNN_OK; /* "modify" acts inside case_async */
}

gnn_status gnn_commcheck_run(gnn_comm *c, uint64_t seed, const char *inject, gnn_commcheck_result *out)
{
    memset(out, 0, sizeof *out);
    ctx x = { .c = c, .seed = seed, .out = out, .P = gnn_comm_size(c), .me = gnn_comm_rank(c) };
    gnn_status st;
    if (inject && *inject) {
        if (strcmp(inject, "mismatch") && strcmp(inject, "deadlock") && strcmp(inject, "modify") &&
            strcmp(inject, "flip") && strcmp(inject, "skip") && strcmp(inject, "late"))
            return gnn_err_set(&c->err, GNN_ERR_INVAL, "commcheck: unknown injection '%s'", inject);
        if ((st = injected(&x, inject)))
            return st;
    }
    gnn_commcheck_case *cs = add_case(&x, "barrier%s", "");
    TRY(gnn_comm_barrier(c));
    TRY(gnn_comm_barrier(c));
    finish(cs, "", NULL, 0, 1);
    const int roots = x.P < 4 ? x.P : 4;
    for (int r = 0; r < roots; r++)
        TRY(case_bcast(&x, 1, (r * 5) % x.P, 1000, GNN_DT_F32));
    TRY(case_bcast(&x, 2, x.P - 1, 0, GNN_DT_U8));
    TRY(case_bcast(&x, 3, 0, 37, GNN_DT_F64));
    TRY(case_allgatherv(&x, 4, GNN_DT_I64, -1));
    TRY(case_allgatherv(&x, 5, GNN_DT_F32, x.P > 1 ? 1 : -1));
    TRY(case_allgatherv(&x, 6, GNN_DT_U8, 0));
    TRY(case_alltoallv(&x, 7, GNN_DT_F64));
    TRY(case_alltoallv(&x, 8, GNN_DT_I32));
    TRY(case_allreduce(&x, 10, GNN_DT_F32, 1001, 1, 0));
    TRY(case_allreduce(&x, 11, GNN_DT_F64, 1001, 1, 0));
    TRY(case_allreduce(&x, 12, GNN_DT_F32, 1001, 0, 0));
    TRY(case_allreduce(&x, 13, GNN_DT_F64, 517, 0, 0));
    TRY(case_allreduce(&x, 14, GNN_DT_F32, 1, 0, 0)); /* fewer elements than ranks */
    TRY(case_allreduce(&x, 15, GNN_DT_F64, 0, 0, 0));
    TRY(case_allreduce(&x, 16, GNN_DT_F32, 64, 0, 1));
    TRY(case_allreduce(&x, 17, GNN_DT_F32, 100000, 0, 0));
    TRY(case_async(&x, 20, inject));
    TRY(case_oracle(&x));
    TRY(case_traffic(&x));
    st = GNN_OK;
done:
    return st;
}
