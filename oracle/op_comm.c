/* oracle/op_comm.c -- oracle entries for the communicator (include/gnnref/comm.h, docs/comm.md)
 * and the simulator's fault injection (docs/simulator.md section 4): the overview of all five
 * below, the helpers their rank bodies share, the runner of an SPMD body under the simulator,
 * comm.allreduce, comm.checks, and the table of SPMD bodies. comm.alltoallv and comm.allgatherv
 * are in oracle/op_comm_layouts.c, sim.faults in oracle/op_comm_faults.c (what the three files
 * share: oracle/op_comm.h).
 *
 * The code these entries check is shared: every backend runs the wrappers, the argument
 * checks, the traffic accounting and the deterministic allreduce of core/dist/comm.c, so no
 * ref-vs-opt comparison can see a bug there. Each entry is therefore a verifier written from
 * the specification (docs/comm.md), not from core/dist/comm.c: it never calls
 * gnn_comm_allreduce_expected or reads a size from the object it checks.
 *
 *   comm.allreduce   the sum of P keyed vectors (spread exponents, so another order changes
 *       the bits), against the serial rank-order sum ((x_0 + x_1) + x_2) + ... computed here,
 *       bitwise, f32 and f64, odd counts, counts smaller than the rank count, empty, in place;
 *       and its accounting: to every other rank q, (|chunk q| + |chunk me|) elements, chunk
 *       j = [n j / P, n (j + 1) / P), in at most two messages.
 *   comm.alltoallv   displacements as a user may pass them: packed, scattered (segments in
 *       reverse or rotated rank order with gaps the call must not touch), in place (one buffer,
 *       recv = send), overlapping (the receive region starts inside the send region), one
 *       buffer with disjoint regions, and receive segments that overlap each other (refused:
 *       GNN_ERR_INVAL on every rank, nothing written, nothing counted). The whole receive
 *       buffer, gaps included, must equal the image computed here.
 *   comm.allgatherv  the same layouts for allgatherv (in place: send = recv + displs[me];
 *       overlapping: the send data sits inside another rank's receive segment).
 *   comm.checks      every argument check of the wrappers, with the bad value in the LAST
 *       rank's slot (a loop that stops one short misses it): GNN_ERR_INVAL with a message
 *       naming the argument, nothing written, nothing counted; and the legal empty calls
 *       (count 0 with NULL buffers) succeed.
 *   sim.faults       the simulator's fault decisions against the keying of docs/simulator.md
 *       recomputed here from raw Philox blocks (oracle/spec_rng.h): which asynchronous
 *       segment is dropped, delayed or corrupted, what every wait returns, the report's
 *       counters, and for blocking collectives the exact abort message, whose received
 *       CRC32C pins the flipped bit.
 *
 * The first four are SPMD bodies (oracle/comm_spmd.h): the oracle runs them under the
 * simulator (implementation `sim`); `gnnref commcheck` runs the presets whose rank count
 * equals its communicator's size over any backend, which under mpirun is their `mpi`
 * implementation (here that implementation reports SKIP and says where it runs). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/crc32c.h"
#include "gnnref/sim.h"
#include "oracle/op_comm.h"

const gnn_oracle_impl gnn_oracle_comm_impl_sim = { .name = "sim", .ops = NULL, .flags = 0 };
static const gnn_oracle_impl k_comm_mpi = { .name = "mpi", .ops = NULL, .flags = 0 };
const gnn_oracle_impl *const gnn_oracle_comm_impls[] = { &gnn_oracle_comm_impl_sim, &k_comm_mpi, NULL };

/* ---- helpers shared by the rank bodies ------------------------------------------------------- */

/* Record the first failed check of this rank; the rank goes on with the collectives, so the
 * others are not left waiting. */
gnn_status gnn_oracle_comm_fail(gnn_comm_spmd_result *out, const char *fmt, ...)
{
    if (out->pass) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(out->detail, sizeof out->detail, fmt, ap);
        va_end(ap);
    }
    out->pass = 0;
    return GNN_OK;
}

/* Keyed values for one buffer (stream = one segment): f32 spread exponents (the summation
 * order shows in the bits), f64 the same with 48 bits of mantissa, integers all bits. */
void gnn_oracle_comm_fill(const gnn_oracle_case *cs, uint64_t stream, void *buf, int64_t n, gnn_dtype t)
{
    gnn_oracle_draws d = gnn_oracle_draws_make(cs, stream);
    if (t == GNN_DT_F32) {
        gnn_oracle_fill_spread(&d, buf, n);
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        const uint64_t lo = gnn_oracle_draw_uint(&d, 1ull << 32), hi = gnn_oracle_draw_uint(&d, 1ull << 32);
        switch (t) {
        case GNN_DT_U8: ((uint8_t *)buf)[i] = (uint8_t)lo; break;
        case GNN_DT_I32: ((int32_t *)buf)[i] = (int32_t)(uint32_t)lo; break;
        case GNN_DT_I64: ((int64_t *)buf)[i] = (int64_t)(hi << 32 | lo); break;
        default: { /* f64: (2u - 1) 2^e, e in [-6, 6], u with 48 bits */
            const double u = ((double)(lo >> 8) + (double)(hi >> 8) / 16777216.0) / 16777216.0;
            ((double *)buf)[i] = ldexp(2.0 * u - 1.0, (int)(hi % 13) - 6);
        }
        }
    }
}

/* Every rank's traffic counters at one moment (traffic_snap: oracle/op_comm.h). */
void gnn_oracle_comm_snap_take(const gnn_comm *c, traffic_snap *s)
{
    const size_t n = (size_t)GNN_COMM_OP_COUNT * (size_t)c->size;
    memcpy(s->bytes, c->traffic.bytes, n * sizeof(int64_t));
    memcpy(s->msgs, c->traffic.msgs, n * sizeof(int64_t));
    memcpy(s->calls, c->traffic.calls, sizeof s->calls);
}

/* Since snapshot s: exactly want_bytes[q] / want_msgs[q] to each rank under op (NULL: none),
 * `calls` more calls of op, and nothing under any other operation. */
void gnn_oracle_comm_check_traffic(const gnn_comm *c, const traffic_snap *s, gnn_comm_op op,
                                   const int64_t *want_bytes, const int64_t *want_msgs, int64_t calls,
                                   const char *what, gnn_comm_spmd_result *out)
{
    const int P = c->size;
    for (int o = 0; o < GNN_COMM_OP_COUNT; o++) {
        const int64_t dc = c->traffic.calls[o] - s->calls[o], wc = o == (int)op ? calls : 0;
        if (dc != wc) {
            gnn_oracle_comm_fail(out, "rank %d: %s: %lld %s calls counted, expected %lld", c->rank, what, (long long)dc,
                                 gnn_comm_op_name((gnn_comm_op)o), (long long)wc);
            return;
        }
        for (int q = 0; q < P; q++) {
            const size_t i = (size_t)o * (size_t)P + (size_t)q;
            const int64_t db = c->traffic.bytes[i] - s->bytes[i], dm = c->traffic.msgs[i] - s->msgs[i];
            const int64_t wb = o == (int)op && want_bytes ? want_bytes[q] : 0;
            const int64_t wm = o == (int)op && want_msgs ? want_msgs[q] : 0;
            if (db != wb || dm != wm) {
                gnn_oracle_comm_fail(out,
                                     "rank %d: %s: %lld bytes in %lld messages to rank %d counted under %s, expected "
                                     "%lld in %lld",
                                     c->rank, what, (long long)db, (long long)dm, q, gnn_comm_op_name((gnn_comm_op)o),
                                     (long long)wb, (long long)wm);
                return;
            }
        }
    }
}

/* The guards of a gnn_guard_alloc buffer, then its bytes against the expected image. */
void gnn_oracle_comm_check_image(const gnn_comm *c, const char *what, const void *got, const void *want,
                                 size_t bytes, size_t elem, gnn_comm_spmd_result *out)
{
    char msg[160];
    if (gnn_guard_check(got, msg, sizeof msg) != GNN_OK) {
        gnn_oracle_comm_fail(out, "rank %d: %s: %s", c->rank, what, msg);
        return;
    }
    if (bytes && memcmp(got, want, bytes) != 0) {
        size_t i = 0;
        while (((const uint8_t *)got)[i] == ((const uint8_t *)want)[i])
            i++;
        gnn_oracle_comm_fail(out, "rank %d: %s: element %zu (byte %zu) is 0x%02x, expected 0x%02x", c->rank, what,
                             i / elem, i, ((const uint8_t *)got)[i], ((const uint8_t *)want)[i]);
    }
}

/* ---- comm.allreduce ---------------------------------------------------------------------------- */

enum { AR_RANKS, AR_N, AR_DTYPE, AR_INPLACE, N_AR_PARAMS };
static const gnn_oracle_param k_ar_params[N_AR_PARAMS] = {
    { "ranks", GNN_PARAM_INT, 1, COMM_MAX_RANKS, "ranks (the oracle simulates them; commcheck runs presets of its size)" },
    { "n", GNN_PARAM_INT, 0, 1e7, "elements per rank" },
    { "dtype", GNN_PARAM_INT, 0, 1, "0 f32, 1 f64" },
    { "inplace", GNN_PARAM_INT, 0, 1, "1: send == recv" },
};
/* 1 to 8 ranks; nothing; fewer elements than ranks (empty chunks: some owners sum nothing,
 * some pairs exchange no message); odd counts that do not divide; one large case */
static const char *const k_ar_presets[] = {
    "ranks=1,n=7,dtype=0,inplace=0",    "ranks=1,n=0,dtype=1,inplace=1",   "ranks=2,n=0,dtype=0,inplace=0",
    "ranks=2,n=1,dtype=1,inplace=1",    "ranks=2,n=33,dtype=0,inplace=0",  "ranks=3,n=2,dtype=0,inplace=0",
    "ranks=3,n=1001,dtype=1,inplace=0", "ranks=4,n=3,dtype=1,inplace=1",   "ranks=4,n=4099,dtype=0,inplace=1",
    "ranks=5,n=37,dtype=0,inplace=0",   "ranks=6,n=5,dtype=1,inplace=0",   "ranks=7,n=1000,dtype=0,inplace=1",
    "ranks=8,n=7,dtype=0,inplace=0",    "ranks=8,n=65537,dtype=1,inplace=0", NULL,
};

static int64_t ar_chunk_lo(int64_t n, int P, int j) { return n * j / P; }

static gnn_status allreduce_rank(gnn_comm *c, const gnn_oracle_case *cs, gnn_comm_spmd_result *out)
{
    const int P = c->size, me = c->rank;
    const int64_t n = gnn_oracle_int(cs, AR_N);
    const int f64 = gnn_oracle_int(cs, AR_DTYPE) == 1, inplace = gnn_oracle_int(cs, AR_INPLACE) == 1;
    const gnn_dtype t = f64 ? GNN_DT_F64 : GNN_DT_F32;
    const size_t s = f64 ? 8 : 4, bytes = (size_t)n * s;
    char *want = malloc(bytes + 1), *x = malloc(bytes + 1), *mine = malloc(bytes + 1);
    char *recv = gnn_guard_alloc(bytes, SENTINEL);
    int64_t *wb = calloc(2 * (size_t)P, sizeof(int64_t)), *wm = wb ? wb + P : NULL;
    gnn_status st = GNN_OK;
    if (!want || !x || !mine || !recv || !wb) {
        st = gnn_err_set(&c->err, GNN_ERR_NOMEM, "comm.allreduce: out of memory");
        goto done;
    }
    /* the specification: every element is ((x_0 + x_1) + x_2) + ... in the dtype's arithmetic */
    for (int q = 0; q < P; q++) {
        gnn_oracle_comm_fill(cs, 10 + (uint64_t)q, x, n, t);
        if (q == me)
            memcpy(mine, x, bytes);
        for (int64_t i = 0; i < n; i++) {
            if (f64)
                ((double *)want)[i] = q == 0 ? ((double *)x)[i] : ((double *)want)[i] + ((double *)x)[i];
            else
                ((float *)want)[i] = q == 0 ? ((float *)x)[i] : ((float *)want)[i] + ((float *)x)[i];
        }
    }
    traffic_snap before;
    gnn_oracle_comm_snap_take(c, &before);
    if (inplace) {
        memcpy(recv, mine, bytes);
        st = gnn_comm_allreduce(c, recv, recv, n, t);
    } else {
        st = gnn_comm_allreduce(c, mine, recv, n, t);
    }
    if (st)
        goto done;
    gnn_oracle_comm_check_image(c, "allreduce result against the rank-order sum", recv, want, bytes, s, out);
    /* reduce-scatter: chunk q to its owner q; allgather: my chunk to everybody */
    const int64_t my_n = ar_chunk_lo(n, P, me + 1) - ar_chunk_lo(n, P, me);
    for (int q = 0; q < P; q++) {
        const int64_t qn = ar_chunk_lo(n, P, q + 1) - ar_chunk_lo(n, P, q);
        wb[q] = q == me ? 0 : (qn + my_n) * (int64_t)s;
        wm[q] = q == me ? 0 : (qn > 0) + (my_n > 0);
    }
    gnn_oracle_comm_check_traffic(c, &before, GNN_COMM_ALLREDUCE, wb, wm, 1, "allreduce accounting", out);
    out->crc = gnn_crc32c(0, recv, bytes);
done:
    free(want);
    free(x);
    free(mine);
    if (recv)
        gnn_guard_free(recv);
    free(wb);
    return st;
}

/* ---- comm.checks ------------------------------------------------------------------------------- */

enum { K_RANKS, N_K_PARAMS };
static const gnn_oracle_param k_k_params[N_K_PARAMS] = {
    { "ranks", GNN_PARAM_INT, 1, COMM_MAX_RANKS, "ranks (the oracle simulates them; commcheck runs presets of its size)" },
};
static const char *const k_k_presets[] = { "ranks=1", "ranks=2", "ranks=3", "ranks=4", "ranks=5", "ranks=8", NULL };

typedef struct checks_state {
    gnn_comm *c;
    gnn_comm_spmd_result *out;
    traffic_snap before;
    float *recv;       /* guarded, P floats of SENTINEL bytes */
    float image[COMM_MAX_RANKS];
} checks_state;

/* A refused call: GNN_ERR_INVAL, the message names the argument, nothing written or counted. */
static void refused(checks_state *K, const char *call, gnn_status st, const char *says)
{
    gnn_comm *c = K->c;
    if (st != GNN_ERR_INVAL) {
        gnn_oracle_comm_fail(K->out, "rank %d: %s: status %s, expected GNN_ERR_INVAL", c->rank, call,
                             gnn_status_str(st));
        return;
    }
    if (!strstr(gnn_comm_errmsg(c), says))
        gnn_oracle_comm_fail(K->out, "rank %d: %s: message \"%s\" does not say \"%s\"", c->rank, call,
                             gnn_comm_errmsg(c), says);
    gnn_oracle_comm_check_image(c, call, K->recv, K->image, sizeof(float) * (size_t)c->size, 4, K->out);
    gnn_oracle_comm_check_traffic(c, &K->before, GNN_COMM_NONE, NULL, NULL, 0, call, K->out);
}

/* A legal call that moves nothing: succeeds, counts one call and no bytes. */
static gnn_status accepted(checks_state *K, const char *call, gnn_comm_op op, gnn_status st)
{
    if (st)
        return st;
    gnn_oracle_comm_check_traffic(K->c, &K->before, op, NULL, NULL, 1, call, K->out);
    gnn_oracle_comm_snap_take(K->c, &K->before);
    return GNN_OK;
}

static gnn_status checks_rank(gnn_comm *c, const gnn_oracle_case *cs, gnn_comm_spmd_result *out)
{
    const int P = c->size, me = c->rank, L = P - 1;
    checks_state K = { .c = c, .out = out };
    int64_t a[4][COMM_MAX_RANKS]; /* counts, displs, and two more */
    float send[COMM_MAX_RANKS + 2] = { 0 };
    char says[96], call[96];
    K.recv = gnn_guard_alloc(sizeof(float) * (size_t)P, SENTINEL);
    if (!K.recv)
        return gnn_err_set(&c->err, GNN_ERR_NOMEM, "comm.checks: out of memory");
    memset(K.image, SENTINEL, sizeof K.image);
    gnn_oracle_comm_snap_take(c, &K.before);
#define RESET()                                                                                                        \
    for (int q_ = 0; q_ < P; q_++)                                                                                     \
    a[0][q_] = 1, a[1][q_] = q_, a[2][q_] = 1, a[3][q_] = q_
    /* bcast */
    snprintf(says, sizeof says, "root %d is not a rank", P);
    refused(&K, "bcast(root = P)", gnn_comm_bcast(c, K.recv, 1, GNN_DT_F32, P), says);
    refused(&K, "bcast(root = -1)", gnn_comm_bcast(c, K.recv, 1, GNN_DT_F32, -1), "root -1 is not a rank");
    refused(&K, "bcast(count = -1)", gnn_comm_bcast(c, K.recv, -1, GNN_DT_F32, 0), "count -1");
    refused(&K, "bcast(dtype 99)", gnn_comm_bcast(c, K.recv, 1, (gnn_dtype)99, 0), "invalid dtype 99");
    refused(&K, "bcast(NULL buffer)", gnn_comm_bcast(c, NULL, 4, GNN_DT_F32, 0), "count 4 with buffer");
    /* allgatherv: the bad value in the last rank's slot */
    static const char *const arr[2] = { "counts", "displs" };
    for (int k = 0; k < 2; k++) {
        RESET();
        a[k][L] = -1;
        snprintf(call, sizeof call, "allgatherv(%s[%d] = -1)", arr[k], L);
        snprintf(says, sizeof says, "%s[%d] = -1 is negative", arr[k], L);
        refused(&K, call, gnn_comm_allgatherv(c, send, a[0][me], K.recv, a[0], a[1], GNN_DT_F32), says);
    }
    RESET();
    snprintf(says, sizeof says, "send count 2 differs from counts[%d] = 1", me);
    refused(&K, "allgatherv(count != counts[me])", gnn_comm_allgatherv(c, send, 2, K.recv, a[0], a[1], GNN_DT_F32),
            says);
    refused(&K, "allgatherv(counts NULL)", gnn_comm_allgatherv(c, send, 1, K.recv, NULL, a[1], GNN_DT_F32),
            "counts is NULL");
    refused(&K, "allgatherv(dtype 7)", gnn_comm_allgatherv(c, send, 1, K.recv, a[0], a[1], (gnn_dtype)7),
            "invalid dtype 7");
    if (P > 1) {
        RESET();
        a[1][L] = a[1][L - 1]; /* the last two ranks' segments on the same element */
        refused(&K, "allgatherv(displs overlap)", gnn_comm_allgatherv(c, send, 1, K.recv, a[0], a[1], GNN_DT_F32),
                "overlap");
    }
    /* alltoallv */
    for (int k = 0; k < 4; k++) {
        RESET();
        a[k][L] = -1;
        static const char *const a2a[4] = { "scounts", "sdispls", "rcounts", "rdispls" };
        snprintf(call, sizeof call, "alltoallv(%s[%d] = -1)", a2a[k], L);
        snprintf(says, sizeof says, "%s[%d] = -1 is negative", a2a[k], L);
        refused(&K, call, gnn_comm_alltoallv(c, send, a[0], a[1], K.recv, a[2], a[3], GNN_DT_F32), says);
    }
    RESET();
    a[0][me] = 2;
    refused(&K, "alltoallv(scounts[me] != rcounts[me])",
            gnn_comm_alltoallv(c, send, a[0], a[1], K.recv, a[2], a[3], GNN_DT_F32), "a rank's message to itself");
    RESET();
    refused(&K, "alltoallv(rdispls NULL)", gnn_comm_alltoallv(c, send, a[0], a[1], K.recv, a[2], NULL, GNN_DT_F32),
            "rdispls is NULL");
    refused(&K, "alltoallv(dtype 7)", gnn_comm_alltoallv(c, send, a[0], a[1], K.recv, a[2], a[3], (gnn_dtype)7),
            "invalid dtype 7");
    if (P > 1) {
        RESET();
        a[3][L - 1] = L; /* rank L-1's segment on rank L's element */
        refused(&K, "alltoallv(rdispls overlap)", gnn_comm_alltoallv(c, send, a[0], a[1], K.recv, a[2], a[3], GNN_DT_F32),
                "overlap");
    }
    /* ialltoallv: a refused post returns no request */
    static const int bad_tags[2] = { -1, GNN_COMM_MAX_TAG };
    for (int k = 0; k < 3; k++) {
        RESET();
        if (k == 2)
            a[0][L] = -1;
        gnn_comm_req *req = (gnn_comm_req *)&K; /* must become NULL */
        const int tag = k < 2 ? bad_tags[k] : 0;
        snprintf(call, sizeof call, k < 2 ? "ialltoallv(tag %d)" : "ialltoallv(scounts[%d] = -1)", k < 2 ? tag : L);
        if (k < 2)
            snprintf(says, sizeof says, "tag %d is outside [0, %d)", tag, GNN_COMM_MAX_TAG);
        else
            snprintf(says, sizeof says, "scounts[%d] = -1 is negative", L);
        refused(&K, call, gnn_comm_ialltoallv(c, send, a[0], a[1], GNN_DT_F32, tag, &req), says);
        if (req)
            gnn_oracle_comm_fail(out, "rank %d: %s: refused, but the request is not NULL", me, call);
    }
    /* allreduce */
    refused(&K, "allreduce(i32)", gnn_comm_allreduce(c, send, K.recv, 1, GNN_DT_I32), "only f32 and f64");
    refused(&K, "allreduce(count = -1)", gnn_comm_allreduce(c, send, K.recv, -1, GNN_DT_F32), "count -1");
    refused(&K, "allreduce(NULL send)", gnn_comm_allreduce(c, NULL, K.recv, 4, GNN_DT_F32), "count 4 with buffers");
#undef RESET
    /* legal calls that move nothing, NULL buffers included */
    gnn_status st;
    int64_t z[2][COMM_MAX_RANKS] = { { 0 } };
    if ((st = accepted(&K, "bcast(count 0, NULL)", GNN_COMM_BCAST, gnn_comm_bcast(c, NULL, 0, GNN_DT_F64, L))) ||
        (st = accepted(&K, "allreduce(count 0, NULL)", GNN_COMM_ALLREDUCE,
                       gnn_comm_allreduce(c, NULL, NULL, 0, GNN_DT_F32))) ||
        (st = accepted(&K, "allgatherv(all empty, NULL)", GNN_COMM_ALLGATHERV,
                       gnn_comm_allgatherv(c, NULL, 0, NULL, z[0], z[1], GNN_DT_I64))) ||
        (st = accepted(&K, "alltoallv(all empty, NULL)", GNN_COMM_ALLTOALLV,
                       gnn_comm_alltoallv(c, NULL, z[0], z[1], NULL, z[0], z[1], GNN_DT_U8))))
        goto done;
    out->crc = gnn_crc32c(0, K.recv, sizeof(float) * (size_t)P);
done:
    gnn_guard_free(K.recv);
    (void)cs;
    return st;
}

/* ---- running an SPMD body under the simulator ------------------------------------------------- */

typedef struct spmd_job {
    gnn_comm_spmd_fn fn;
    const gnn_oracle_case *cs;
    gnn_comm_spmd_result res[COMM_MAX_RANKS];
} spmd_job;

static gnn_status spmd_rank(gnn_comm *c, void *arg)
{
    spmd_job *J = arg;
    return J->fn(c, J->cs, &J->res[c->rank]);
}

gnn_oracle_outcome gnn_oracle_comm_spmd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, gnn_comm_spmd_fn fn)
{
    if (c->impl == &k_comm_mpi)
        return gnn_oracle_skip(ctx, "%s: under mpirun, `gnnref commcheck --backend mpi` runs the presets whose ranks "
                               "equal -np (ci/mpi-check.sh)",
                               gnn_comm_mpi_built() ? "MPI" : "no MPI in this build");
    const int P = (int)gnn_oracle_int(c, 0);
    spmd_job *J = gnn_oracle_alloc(ctx, sizeof *J);
    if (!J)
        return gnn_oracle_fail(ctx, "out of memory");
    J->fn = fn;
    J->cs = c;
    for (int r = 0; r < P; r++)
        J->res[r].pass = 1;
    gnn_sim_config cfg;
    gnn_sim_defaults(&cfg);
    cfg.ranks = P;
    cfg.timeout_s = 60;
    gnn_err err = { "" };
    const gnn_status st = gnn_sim_run(&cfg, spmd_rank, J, NULL, &err);
    if (st)
        return gnn_oracle_fail(ctx, "simulated run on %d ranks: %s (%s)", P, gnn_status_str(st), err.msg);
    gnn_oracle_outcome o = GNN_ORACLE_PASS;
    for (int r = 0; r < P; r++) {
        gnn_oracle_digest(ctx, &J->res[r].crc, sizeof J->res[r].crc);
        if (!J->res[r].pass)
            o = gnn_oracle_fail(ctx, "%s", J->res[r].detail);
    }
    return o;
}

static gnn_oracle_outcome allreduce_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    return gnn_oracle_comm_spmd_run(ctx, c, allreduce_rank);
}
static gnn_oracle_outcome checks_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    return gnn_oracle_comm_spmd_run(ctx, c, checks_rank);
}

const gnn_oracle_entry gnn_oracle_comm_allreduce = {
    .name = "comm.allreduce",
    .what = "deterministic allreduce (reduce-scatter, owners sum in rank order, allgather) against a serial "
            "rank-order sum computed by the verifier; its traffic accounting against the chunk formula",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "docs/comm.md fixes the order of every addition: bitwise",
    .params = k_ar_params, .n_params = N_AR_PARAMS, .presets = k_ar_presets,
    .ref = &gnn_oracle_comm_impl_sim, .impls = gnn_oracle_comm_impls, .run = allreduce_run,
};

const gnn_oracle_entry gnn_oracle_comm_checks = {
    .name = "comm.checks",
    .what = "every argument check of the gnn_comm wrappers, bad value in the last rank's slot: GNN_ERR_INVAL naming "
            "it, nothing written or counted; empty calls with NULL buffers accepted",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "statuses, messages and counters: exact",
    .params = k_k_params, .n_params = N_K_PARAMS, .presets = k_k_presets,
    .ref = &gnn_oracle_comm_impl_sim, .impls = gnn_oracle_comm_impls, .flags = GNN_ORACLE_SEEDLESS, .run = checks_run,
};

const gnn_comm_spmd_entry gnn_oracle_comm_spmd[] = {
    { &gnn_oracle_comm_allreduce, allreduce_rank },
    { &gnn_oracle_comm_alltoallv, gnn_oracle_comm_alltoallv_rank },
    { &gnn_oracle_comm_allgatherv, gnn_oracle_comm_allgatherv_rank },
    { &gnn_oracle_comm_checks, checks_rank },
    { &gnn_oracle_distagg_fwd, gnn_oracle_distagg_rank },
    { &gnn_oracle_distagg_bwd, gnn_oracle_distagg_rank },
    { NULL, NULL },
};
