/* oracle/op_comm.c -- oracle entries for the communicator (include/gnnref/comm.h, docs/comm.md)
 * and the simulator's fault injection (docs/simulator.md section 4).
 *
 * The code these entries check is shared: every backend runs the wrappers, the argument
 * checks, the traffic accounting and the deterministic allreduce of core/comm.c, so no
 * ref-vs-opt comparison can see a bug there. Each entry is therefore a verifier written from
 * the specification (docs/comm.md), not from core/comm.c: it never calls
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
#include "oracle/comm_spmd.h"
#include "oracle/spec_rng.h"

#define COMM_MAX_RANKS 8
#define SENTINEL 0xA5 /* receive buffers start as this byte: what a call must not write stays so */

/* element sizes of u8, i32, i64, f32, f64, written out here rather than taken from comm.c */
static const size_t k_elem[5] = { 1, 4, 8, 4, 8 };

static const gnn_oracle_impl k_comm_sim = { .name = "sim", .ops = NULL, .flags = 0 };
static const gnn_oracle_impl k_comm_mpi = { .name = "mpi", .ops = NULL, .flags = 0 };
static const gnn_oracle_impl *const k_comm_impls[] = { &k_comm_sim, &k_comm_mpi, NULL };
static const gnn_oracle_impl *const k_sim_only[] = { &k_comm_sim, NULL };

/* ---- helpers shared by the rank bodies ------------------------------------------------------- */

static gnn_status spmd_fail(gnn_comm_spmd_result *out, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Record the first failed check of this rank; the rank goes on with the collectives, so the
 * others are not left waiting. */
static gnn_status spmd_fail(gnn_comm_spmd_result *out, const char *fmt, ...)
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
static void fill_typed(const gnn_oracle_case *cs, uint64_t stream, void *buf, int64_t n, gnn_dtype t)
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

/* Every rank's traffic counters at one moment (c->traffic is this rank's). */
typedef struct traffic_snap {
    int64_t bytes[GNN_COMM_OP_COUNT * COMM_MAX_RANKS], msgs[GNN_COMM_OP_COUNT * COMM_MAX_RANKS];
    int64_t calls[GNN_COMM_OP_COUNT];
} traffic_snap;

static void snap_take(const gnn_comm *c, traffic_snap *s)
{
    const size_t n = (size_t)GNN_COMM_OP_COUNT * (size_t)c->size;
    memcpy(s->bytes, c->traffic.bytes, n * sizeof(int64_t));
    memcpy(s->msgs, c->traffic.msgs, n * sizeof(int64_t));
    memcpy(s->calls, c->traffic.calls, sizeof s->calls);
}

/* Since snapshot s: exactly want_bytes[q] / want_msgs[q] to each rank under op (NULL: none),
 * `calls` more calls of op, and nothing under any other operation. */
static void check_traffic(const gnn_comm *c, const traffic_snap *s, gnn_comm_op op, const int64_t *want_bytes,
                          const int64_t *want_msgs, int64_t calls, const char *what, gnn_comm_spmd_result *out)
{
    const int P = c->size;
    for (int o = 0; o < GNN_COMM_OP_COUNT; o++) {
        const int64_t dc = c->traffic.calls[o] - s->calls[o], wc = o == (int)op ? calls : 0;
        if (dc != wc) {
            spmd_fail(out, "rank %d: %s: %lld %s calls counted, expected %lld", c->rank, what, (long long)dc,
                      gnn_comm_op_name((gnn_comm_op)o), (long long)wc);
            return;
        }
        for (int q = 0; q < P; q++) {
            const size_t i = (size_t)o * (size_t)P + (size_t)q;
            const int64_t db = c->traffic.bytes[i] - s->bytes[i], dm = c->traffic.msgs[i] - s->msgs[i];
            const int64_t wb = o == (int)op && want_bytes ? want_bytes[q] : 0;
            const int64_t wm = o == (int)op && want_msgs ? want_msgs[q] : 0;
            if (db != wb || dm != wm) {
                spmd_fail(out, "rank %d: %s: %lld bytes in %lld messages to rank %d counted under %s, expected %lld in "
                               "%lld",
                          c->rank, what, (long long)db, (long long)dm, q, gnn_comm_op_name((gnn_comm_op)o),
                          (long long)wb, (long long)wm);
                return;
            }
        }
    }
}

/* The guards of a gnn_guard_alloc buffer, then its bytes against the expected image. */
static void check_image(const gnn_comm *c, const char *what, const void *got, const void *want, size_t bytes,
                        size_t elem, gnn_comm_spmd_result *out)
{
    char msg[160];
    if (gnn_guard_check(got, msg, sizeof msg) != GNN_OK) {
        spmd_fail(out, "rank %d: %s: %s", c->rank, what, msg);
        return;
    }
    if (bytes && memcmp(got, want, bytes) != 0) {
        size_t i = 0;
        while (((const uint8_t *)got)[i] == ((const uint8_t *)want)[i])
            i++;
        spmd_fail(out, "rank %d: %s: element %zu (byte %zu) is 0x%02x, expected 0x%02x", c->rank, what, i / elem, i,
                  ((const uint8_t *)got)[i], ((const uint8_t *)want)[i]);
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
        fill_typed(cs, 10 + (uint64_t)q, x, n, t);
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
    snap_take(c, &before);
    if (inplace) {
        memcpy(recv, mine, bytes);
        st = gnn_comm_allreduce(c, recv, recv, n, t);
    } else {
        st = gnn_comm_allreduce(c, mine, recv, n, t);
    }
    if (st)
        goto done;
    check_image(c, "allreduce result against the rank-order sum", recv, want, bytes, s, out);
    /* reduce-scatter: chunk q to its owner q; allgather: my chunk to everybody */
    const int64_t my_n = ar_chunk_lo(n, P, me + 1) - ar_chunk_lo(n, P, me);
    for (int q = 0; q < P; q++) {
        const int64_t qn = ar_chunk_lo(n, P, q + 1) - ar_chunk_lo(n, P, q);
        wb[q] = q == me ? 0 : (qn + my_n) * (int64_t)s;
        wm[q] = q == me ? 0 : (qn > 0) + (my_n > 0);
    }
    check_traffic(c, &before, GNN_COMM_ALLREDUCE, wb, wm, 1, "allreduce accounting", out);
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

/* ---- comm.alltoallv and comm.allgatherv: layouts ----------------------------------------------- */

enum { L_PACKED, L_SCATTERED, L_INPLACE, L_OVERLAP, L_BADRECV, L_SAMEBASE };
static const char *const k_layout_name[] = { "packed", "scattered", "in place", "overlapping", "overlapping receive "
                                             "segments", "one buffer, disjoint regions" };

enum { X_RANKS, X_LAYOUT, X_DTYPE, X_MAXC, X_ZERO, N_X_PARAMS };
static const gnn_oracle_param k_a2a_params[N_X_PARAMS] = {
    { "ranks", GNN_PARAM_INT, 1, COMM_MAX_RANKS, "ranks (the oracle simulates them; commcheck runs presets of its size)" },
    { "layout", GNN_PARAM_INT, 0, 5,
      "0 packed, 1 scattered (reversed/rotated order, gaps), 2 in place, 3 recv overlaps send, 4 receive "
      "segments overlap (refused), 5 one buffer with disjoint regions" },
    { "dtype", GNN_PARAM_INT, 0, 4, "0 u8, 1 i32, 2 i64, 3 f32, 4 f64" },
    { "maxc", GNN_PARAM_INT, 0, 1e6, "elements per pair: uniform in [1, maxc], or 0" },
    { "zero", GNN_PARAM_REAL, 0, 1, "probability that a pair exchanges nothing" },
};
static const gnn_oracle_param k_agv_params[N_X_PARAMS] = {
    { "ranks", GNN_PARAM_INT, 1, COMM_MAX_RANKS, "ranks (the oracle simulates them; commcheck runs presets of its size)" },
    { "layout", GNN_PARAM_INT, 0, 4,
      "0 packed, 1 scattered (rotated order, gaps), 2 in place (send = recv + displs[me]), 3 send inside "
      "another rank's segment, 4 receive segments overlap (refused)" },
    { "dtype", GNN_PARAM_INT, 0, 4, "0 u8, 1 i32, 2 i64, 3 f32, 4 f64" },
    { "maxc", GNN_PARAM_INT, 0, 1e6, "elements per rank: uniform in [1, maxc], or 0" },
    { "zero", GNN_PARAM_REAL, 0, 1, "probability that a rank contributes nothing" },
};
static const char *const k_a2a_presets[] = {
    "ranks=1,layout=0,dtype=3,maxc=9,zero=0",     "ranks=1,layout=2,dtype=0,maxc=9,zero=0",
    "ranks=2,layout=1,dtype=4,maxc=7,zero=0.3",   "ranks=2,layout=2,dtype=3,maxc=11,zero=0.2",
    "ranks=2,layout=4,dtype=2,maxc=5,zero=0",     "ranks=2,layout=5,dtype=1,maxc=5,zero=0",
    "ranks=3,layout=3,dtype=1,maxc=13,zero=0.2",  "ranks=3,layout=5,dtype=3,maxc=6,zero=0.3",
    "ranks=3,layout=0,dtype=2,maxc=4,zero=0.4",   "ranks=4,layout=2,dtype=4,maxc=5,zero=0.25",
    "ranks=4,layout=3,dtype=0,maxc=17,zero=0.1",  "ranks=4,layout=1,dtype=2,maxc=3,zero=0.5",
    "ranks=4,layout=4,dtype=3,maxc=2,zero=0",     "ranks=5,layout=1,dtype=3,maxc=8,zero=0.2",
    "ranks=6,layout=4,dtype=1,maxc=3,zero=0",     "ranks=7,layout=3,dtype=4,maxc=9,zero=0.2",
    "ranks=8,layout=2,dtype=1,maxc=6,zero=0.3",   "ranks=8,layout=0,dtype=3,maxc=0,zero=0",
    "ranks=8,layout=5,dtype=3,maxc=700,zero=0.1", NULL,
};
static const char *const k_agv_presets[] = {
    "ranks=1,layout=0,dtype=3,maxc=9,zero=0",    "ranks=1,layout=2,dtype=4,maxc=9,zero=0",
    "ranks=2,layout=1,dtype=0,maxc=7,zero=0.3",  "ranks=2,layout=2,dtype=3,maxc=11,zero=0",
    "ranks=2,layout=4,dtype=2,maxc=5,zero=0",    "ranks=3,layout=3,dtype=1,maxc=13,zero=0.2",
    "ranks=3,layout=2,dtype=2,maxc=4,zero=0.4",  "ranks=4,layout=3,dtype=4,maxc=5,zero=0.25",
    "ranks=4,layout=1,dtype=3,maxc=17,zero=0.3", "ranks=4,layout=4,dtype=0,maxc=2,zero=0",
    "ranks=5,layout=2,dtype=3,maxc=8,zero=0.2",  "ranks=7,layout=3,dtype=0,maxc=9,zero=0.2",
    "ranks=8,layout=1,dtype=1,maxc=6,zero=0.5",  "ranks=8,layout=0,dtype=3,maxc=0,zero=0",
    NULL,
};

/* n counts (a row of the case's matrix, or one per rank): stream 1, in order; with force,
 * every count is at least 1 (a refused layout needs two non-empty segments to overlap) */
static void gen_counts(const gnn_oracle_case *cs, int64_t *v, int64_t n, int force)
{
    const int64_t maxc = gnn_oracle_int(cs, X_MAXC);
    const double zero = gnn_oracle_real(cs, X_ZERO);
    gnn_oracle_draws d = gnn_oracle_draws_make(cs, 1);
    for (int64_t i = 0; i < n; i++) {
        const int z = (double)gnn_oracle_draw_float(&d) < zero;
        const int64_t k = maxc > 0 ? gnn_oracle_draw_range(&d, 1, maxc) : 0;
        v[i] = force && maxc > 0 ? k : z ? 0 : k;
    }
}

/* Displacements of P segments of cnt[] elements, laid out from `base` in the order ord[],
 * each after a gap of 0..3 elements from stream `gstream` (or none). Returns the end. */
static int64_t place(const gnn_oracle_case *cs, const int64_t *cnt, const int *ord, int P, int64_t base,
                     uint64_t gstream, int64_t *displ)
{
    gnn_oracle_draws g = gnn_oracle_draws_make(cs, gstream ? gstream : 1);
    int64_t pos = base;
    for (int k = 0; k < P; k++) {
        pos += gstream ? (int64_t)gnn_oracle_draw_uint(&g, 4) : 0;
        displ[ord[k]] = pos;
        pos += cnt[ord[k]];
    }
    return pos + (gstream ? 2 : 0);
}

static void order_of(int kind, int P, int me, int *ord)
{
    for (int k = 0; k < P; k++)
        ord[k] = kind == 0 ? k : kind == 1 ? P - 1 - k : (me + 1 + k) % P; /* ascending, reversed, rotated */
}

/* the stream of the data that rank src sends rank dst */
static uint64_t seg_stream(int src, int dst) { return 1000 + (uint64_t)src * 64 + (uint64_t)dst; }

/* A refused call: GNN_ERR_INVAL naming the overlap, the buffer as before, nothing counted. */
static void check_refused(gnn_comm *c, gnn_status st, const char *what, const traffic_snap *before, const void *buf,
                          const void *image, size_t bytes, gnn_comm_spmd_result *out)
{
    if (st != GNN_ERR_INVAL) {
        spmd_fail(out, "rank %d: %s: status %s, expected GNN_ERR_INVAL (receive segments overlap)", c->rank, what,
                  gnn_status_str(st));
        return;
    }
    if (!strstr(gnn_comm_errmsg(c), "overlap"))
        spmd_fail(out, "rank %d: %s: the message does not name the overlap: %s", c->rank, what, gnn_comm_errmsg(c));
    check_image(c, what, buf, image, bytes, 1, out);
    check_traffic(c, before, GNN_COMM_NONE, NULL, NULL, 0, what, out);
}

static gnn_status alltoallv_rank(gnn_comm *c, const gnn_oracle_case *cs, gnn_comm_spmd_result *out)
{
    const int P = c->size, me = c->rank, layout = (int)gnn_oracle_int(cs, X_LAYOUT);
    const gnn_dtype t = (gnn_dtype)gnn_oracle_int(cs, X_DTYPE);
    const size_t s = k_elem[t];
    if (layout == L_BADRECV && P < 2)
        return spmd_fail(out, "invalid case: layout 4 needs ranks >= 2");
    int64_t *C = malloc(sizeof(int64_t) * (size_t)(P * P + 4 * P + 1)), *sc = C + P * P, *sd = sc + P, *rc = sd + P,
            *rd = rc + P;
    int ord[COMM_MAX_RANKS];
    char *sbuf = NULL, *rbuf = NULL, *image = NULL, *seg = NULL;
    gnn_status st = GNN_OK;
    if (!C)
        return gnn_err_set(&c->err, GNN_ERR_NOMEM, "comm.alltoallv: out of memory");
    gen_counts(cs, C, (int64_t)P * P, layout == L_BADRECV);
    if (layout == L_INPLACE) /* in place, every segment is sent and received at one place */
        for (int r = 0; r < P; r++)
            for (int q = 0; q < r; q++)
                C[r * P + q] = C[q * P + r];
    for (int q = 0; q < P; q++) {
        sc[q] = C[me * P + q];
        rc[q] = C[q * P + me];
    }
    int64_t s_end, r_end, r_base = 0;
    switch (layout) {
    case L_SCATTERED: /* send segments in reverse rank order, receive rotated, gaps between */
        order_of(1, P, me, ord);
        s_end = place(cs, sc, ord, P, 0, 300 + (uint64_t)me, sd);
        order_of(2, P, me, ord);
        r_end = place(cs, rc, ord, P, 0, 400 + (uint64_t)me, rd);
        break;
    case L_INPLACE: /* one buffer, each segment sent and received at the same place */
        order_of(1, P, me, ord);
        s_end = r_end = place(cs, sc, ord, P, 0, 300 + (uint64_t)me, sd);
        memcpy(rd, sd, sizeof(int64_t) * (size_t)P);
        break;
    case L_OVERLAP: /* the receive region starts in the middle of the send region */
    case L_SAMEBASE: /* ... or just after it, in the same allocation (send == recv as pointers) */
        order_of(0, P, me, ord);
        s_end = place(cs, sc, ord, P, 0, 0, sd);
        r_base = layout == L_OVERLAP ? s_end / 2 : s_end + 1;
        order_of(2, P, me, ord);
        r_end = place(cs, rc, ord, P, r_base, layout == L_SAMEBASE ? 400 + (uint64_t)me : 0, rd);
        break;
    case L_BADRECV:
        order_of(0, P, me, ord);
        s_end = place(cs, sc, ord, P, 0, 0, sd);
        for (int q = 0; q < P; q++)
            rd[q] = 0; /* every receive segment at element 0 */
        r_end = 0;
        for (int q = 0; q < P; q++)
            r_end = rc[q] > r_end ? rc[q] : r_end;
        break;
    default:
        order_of(0, P, me, ord);
        s_end = place(cs, sc, ord, P, 0, 0, sd);
        r_end = place(cs, rc, ord, P, 0, 0, rd);
    }
    const int one = layout == L_INPLACE || layout == L_OVERLAP || layout == L_SAMEBASE;
    const size_t rbytes = (size_t)(one && s_end > r_end ? s_end : r_end) * s;
    int64_t maxseg = 1;
    for (int q = 0; q < P; q++) {
        maxseg = sc[q] > maxseg ? sc[q] : maxseg;
        maxseg = rc[q] > maxseg ? rc[q] : maxseg;
    }
    rbuf = gnn_guard_alloc(rbytes, SENTINEL);
    sbuf = one ? rbuf : gnn_guard_alloc((size_t)s_end * s, SENTINEL);
    image = malloc(rbytes + 1);
    seg = malloc((size_t)maxseg * s);
    if (!rbuf || !sbuf || !image || !seg) {
        st = gnn_err_set(&c->err, GNN_ERR_NOMEM, "comm.alltoallv: out of memory");
        goto done;
    }
    for (int q = 0; q < P; q++)
        fill_typed(cs, seg_stream(me, q), sbuf + (size_t)sd[q] * s, sc[q], t);
    /* the expected image: the buffer as it is, then every rank's segment where it must land */
    memcpy(image, rbuf, rbytes);
    if (layout != L_BADRECV)
        for (int q = 0; q < P; q++) {
            fill_typed(cs, seg_stream(q, me), seg, rc[q], t);
            memcpy(image + (size_t)rd[q] * s, seg, (size_t)rc[q] * s);
        }
    traffic_snap before;
    snap_take(c, &before);
    st = gnn_comm_alltoallv(c, sbuf, sc, sd, rbuf, rc, rd, t);
    char what[96];
    snprintf(what, sizeof what, "alltoallv (%s)", k_layout_name[layout]);
    if (layout == L_BADRECV) {
        check_refused(c, st, what, &before, rbuf, image, rbytes, out);
        st = GNN_OK;
        goto done;
    }
    if (st)
        goto done;
    check_image(c, what, rbuf, image, rbytes, s, out);
    if (!one) {
        char msg[160];
        if (gnn_guard_check(sbuf, msg, sizeof msg) != GNN_OK)
            spmd_fail(out, "rank %d: %s: send buffer: %s", me, what, msg);
    }
    int64_t wb[COMM_MAX_RANKS], wm[COMM_MAX_RANKS];
    for (int q = 0; q < P; q++) {
        wb[q] = q == me ? 0 : sc[q] * (int64_t)s;
        wm[q] = q != me && sc[q] > 0;
    }
    check_traffic(c, &before, GNN_COMM_ALLTOALLV, wb, wm, 1, what, out);
    out->crc = gnn_crc32c(0, rbuf, rbytes);
done:
    if (sbuf && sbuf != rbuf)
        gnn_guard_free(sbuf);
    if (rbuf)
        gnn_guard_free(rbuf);
    free(image);
    free(seg);
    free(C);
    return st;
}

static gnn_status allgatherv_rank(gnn_comm *c, const gnn_oracle_case *cs, gnn_comm_spmd_result *out)
{
    const int P = c->size, me = c->rank, layout = (int)gnn_oracle_int(cs, X_LAYOUT);
    const gnn_dtype t = (gnn_dtype)gnn_oracle_int(cs, X_DTYPE);
    const size_t s = k_elem[t];
    if (layout == L_BADRECV && P < 2)
        return spmd_fail(out, "invalid case: layout 4 needs ranks >= 2");
    int64_t cnt[COMM_MAX_RANKS], dsp[COMM_MAX_RANKS], end = 0, maxseg = 1;
    int ord[COMM_MAX_RANKS];
    gen_counts(cs, cnt, P, layout == L_BADRECV);
    switch (layout) {
    case L_PACKED:
        order_of(0, P, me, ord);
        end = place(cs, cnt, ord, P, 0, 0, dsp);
        break;
    case L_BADRECV:
        for (int q = 0; q < P; q++) {
            dsp[q] = 0;
            end = cnt[q] > end ? cnt[q] : end;
        }
        break;
    default:
        order_of(2, P, me, ord);
        end = place(cs, cnt, ord, P, 0, 400 + (uint64_t)me, dsp);
    }
    const int next = (me + 1) % P;
    /* overlapping: my data is read from where rank me+1's segment lands */
    int64_t send_at = layout == L_INPLACE ? dsp[me] : layout == L_OVERLAP ? dsp[next] : 0;
    if (layout == L_OVERLAP && send_at + cnt[me] > end)
        end = send_at + cnt[me];
    for (int q = 0; q < P; q++)
        maxseg = cnt[q] > maxseg ? cnt[q] : maxseg;
    const int one = layout == L_INPLACE || layout == L_OVERLAP;
    const size_t rbytes = (size_t)end * s;
    char *rbuf = gnn_guard_alloc(rbytes, SENTINEL), *image = malloc(rbytes + 1), *seg = malloc((size_t)maxseg * s);
    char *sbuf = one ? NULL : gnn_guard_alloc((size_t)cnt[me] * s, SENTINEL);
    gnn_status st = GNN_OK;
    if (!rbuf || !image || !seg || (!one && !sbuf)) {
        st = gnn_err_set(&c->err, GNN_ERR_NOMEM, "comm.allgatherv: out of memory");
        goto done;
    }
    const char *send = one ? rbuf + (size_t)send_at * s : sbuf;
    fill_typed(cs, 100 + (uint64_t)me, (char *)send, cnt[me], t);
    memcpy(image, rbuf, rbytes);
    if (layout != L_BADRECV)
        for (int q = 0; q < P; q++) {
            fill_typed(cs, 100 + (uint64_t)q, seg, cnt[q], t);
            memcpy(image + (size_t)dsp[q] * s, seg, (size_t)cnt[q] * s);
        }
    traffic_snap before;
    snap_take(c, &before);
    st = gnn_comm_allgatherv(c, send, cnt[me], rbuf, cnt, dsp, t);
    char what[96];
    snprintf(what, sizeof what, "allgatherv (%s)", k_layout_name[layout]);
    if (layout == L_BADRECV) {
        check_refused(c, st, what, &before, rbuf, image, rbytes, out);
        st = GNN_OK;
        goto done;
    }
    if (st)
        goto done;
    check_image(c, what, rbuf, image, rbytes, s, out);
    int64_t wb[COMM_MAX_RANKS], wm[COMM_MAX_RANKS];
    for (int q = 0; q < P; q++) {
        wb[q] = q == me ? 0 : cnt[me] * (int64_t)s;
        wm[q] = q != me && cnt[me] > 0;
    }
    check_traffic(c, &before, GNN_COMM_ALLGATHERV, wb, wm, 1, what, out);
    out->crc = gnn_crc32c(0, rbuf, rbytes);
done:
    if (rbuf)
        gnn_guard_free(rbuf);
    if (sbuf)
        gnn_guard_free(sbuf);
    free(image);
    free(seg);
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
        spmd_fail(K->out, "rank %d: %s: status %s, expected GNN_ERR_INVAL", c->rank, call, gnn_status_str(st));
        return;
    }
    if (!strstr(gnn_comm_errmsg(c), says))
        spmd_fail(K->out, "rank %d: %s: message \"%s\" does not say \"%s\"", c->rank, call, gnn_comm_errmsg(c), says);
    check_image(c, call, K->recv, K->image, sizeof(float) * (size_t)c->size, 4, K->out);
    check_traffic(c, &K->before, GNN_COMM_NONE, NULL, NULL, 0, call, K->out);
}

/* A legal call that moves nothing: succeeds, counts one call and no bytes. */
static gnn_status accepted(checks_state *K, const char *call, gnn_comm_op op, gnn_status st)
{
    if (st)
        return st;
    check_traffic(K->c, &K->before, op, NULL, NULL, 1, call, K->out);
    snap_take(K->c, &K->before);
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
    snap_take(c, &K.before);
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
            spmd_fail(out, "rank %d: %s: refused, but the request is not NULL", me, call);
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

static gnn_oracle_outcome spmd_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, gnn_comm_spmd_fn fn)
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
    return spmd_run(ctx, c, allreduce_rank);
}
static gnn_oracle_outcome alltoallv_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    return spmd_run(ctx, c, alltoallv_rank);
}
static gnn_oracle_outcome allgatherv_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    return spmd_run(ctx, c, allgatherv_rank);
}
static gnn_oracle_outcome checks_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    return spmd_run(ctx, c, checks_rank);
}

const gnn_oracle_entry gnn_oracle_comm_allreduce = {
    .name = "comm.allreduce",
    .what = "deterministic allreduce (reduce-scatter, owners sum in rank order, allgather) against a serial "
            "rank-order sum computed by the verifier; its traffic accounting against the chunk formula",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "docs/comm.md fixes the order of every addition: bitwise",
    .params = k_ar_params, .n_params = N_AR_PARAMS, .presets = k_ar_presets,
    .ref = &k_comm_sim, .impls = k_comm_impls, .run = allreduce_run,
};

const gnn_oracle_entry gnn_oracle_comm_alltoallv = {
    .name = "comm.alltoallv",
    .what = "alltoallv with packed, scattered, in-place, overlapping and one-buffer displacements: the whole receive "
            "buffer against the verifier's image; overlapping receive segments refused; accounting",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "data are copied, never computed: exact, gaps untouched",
    .params = k_a2a_params, .n_params = N_X_PARAMS, .presets = k_a2a_presets,
    .ref = &k_comm_sim, .impls = k_comm_impls, .run = alltoallv_run,
};

const gnn_oracle_entry gnn_oracle_comm_allgatherv = {
    .name = "comm.allgatherv",
    .what = "allgatherv with packed, scattered, in-place and overlapping buffers: the whole receive buffer against "
            "the verifier's image; overlapping receive segments refused; accounting",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "data are copied, never computed: exact, gaps untouched",
    .params = k_agv_params, .n_params = N_X_PARAMS, .presets = k_agv_presets,
    .ref = &k_comm_sim, .impls = k_comm_impls, .run = allgatherv_run,
};

const gnn_oracle_entry gnn_oracle_comm_checks = {
    .name = "comm.checks",
    .what = "every argument check of the gnn_comm wrappers, bad value in the last rank's slot: GNN_ERR_INVAL naming "
            "it, nothing written or counted; empty calls with NULL buffers accepted",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "statuses, messages and counters: exact",
    .params = k_k_params, .n_params = N_K_PARAMS, .presets = k_k_presets,
    .ref = &k_comm_sim, .impls = k_comm_impls, .flags = GNN_ORACLE_SEEDLESS, .run = checks_run,
};

const gnn_comm_spmd_entry gnn_oracle_comm_spmd[] = {
    { &gnn_oracle_comm_allreduce, allreduce_rank },
    { &gnn_oracle_comm_alltoallv, alltoallv_rank },
    { &gnn_oracle_comm_allgatherv, allgatherv_rank },
    { &gnn_oracle_comm_checks, checks_rank },
    { NULL, NULL },
};

/* ---- sim.faults --------------------------------------------------------------------------------- */

enum { F_RANKS, F_STEPS, F_MAXC, F_DROP, F_DELAY, F_DSTEPS, F_FLIP, F_BLOCK, N_F_PARAMS };
static const gnn_oracle_param k_f_params[N_F_PARAMS] = {
    { "ranks", GNN_PARAM_INT, 2, COMM_MAX_RANKS, "simulated ranks" },
    { "steps", GNN_PARAM_INT, 1, 64, "ialltoallv posts on one tag, each waited at once" },
    { "maxc", GNN_PARAM_INT, 0, 64, "i32 elements per segment: uniform in [0, maxc] (empty segments too)" },
    { "drop", GNN_PARAM_REAL, 0, 1, "drop probability" },
    { "delay", GNN_PARAM_REAL, 0, 1, "delay probability" },
    { "dsteps", GNN_PARAM_INT, 0, 8, "delay in steps (>= 1 when delay > 0)" },
    { "flip", GNN_PARAM_REAL, 0, 1, "bit-flip probability, asynchronous and blocking" },
    { "block", GNN_PARAM_INT, 0, 3, "blocking alltoallvs after the asynchronous steps" },
};
/* mixed faults; drop everything; delay everything (some past the last wait: undelivered);
 * flip everything (every flip detected, the first blocking message aborts the run); only
 * empty segments (dropped and delayed, never flipped) */
static const char *const k_f_presets[] = {
    "ranks=2,steps=6,maxc=3,drop=0.3,delay=0.3,dsteps=1,flip=0.3,block=2",
    "ranks=3,steps=8,maxc=4,drop=0.2,delay=0.4,dsteps=2,flip=0.2,block=0",
    "ranks=4,steps=5,maxc=2,drop=1,delay=0,dsteps=0,flip=0,block=1",
    "ranks=5,steps=4,maxc=3,drop=0,delay=1,dsteps=3,flip=0,block=1",
    "ranks=3,steps=6,maxc=5,drop=0,delay=0,dsteps=0,flip=1,block=1",
    "ranks=8,steps=3,maxc=2,drop=0.25,delay=0.25,dsteps=1,flip=0.1,block=3",
    "ranks=4,steps=10,maxc=0,drop=0.5,delay=0.5,dsteps=2,flip=0.5,block=1",
    NULL,
};

#define FAULT_TAG 5 /* the user tag of the asynchronous phase: part of every async fault key */

typedef struct fault_job {
    const gnn_oracle_case *cs;
    int P, steps, block, dsteps;
    double drop, delay, flip;
    int64_t *C; /* [(steps + block) * P * P] i32 elements src -> dst at each step */
    gnn_comm_spmd_result res[COMM_MAX_RANKS];
    gnn_status rank_st[COMM_MAX_RANKS];
} fault_job;

/* The documented keys (docs/simulator.md, "Keying"): seed = faults.seed, tag GNN_TAG_FAULT =
 * 13; async: step = the segment's step, layer 1, id = tag << 32 | (src * P + dst); blocking:
 * step = earlier blocking messages src -> dst, layer 0, id = src * P + dst. The value 13 is
 * written here, not taken from rng.h. */
static spec_addr fault_addr(const fault_job *J, int async, int64_t step, int src, int dst)
{
    const uint64_t pair = (uint64_t)src * (uint64_t)J->P + (uint64_t)dst;
    return (spec_addr){ .seed = J->cs->seed, .tag = 13, .layer = async ? 1u : 0u, .step = (uint32_t)step,
                        .id = async ? (uint64_t)FAULT_TAG << 32 | pair : pair };
}

typedef struct fate {
    int dropped, delayed, flipped;
    int64_t due; /* the step of the wait that delivers it */
} fate;

/* Float draw 0 < drop drops; else draw 1 < delay delays; draw 2 < flip flips (non-empty only). */
static fate async_fate(const fault_job *J, int64_t step, int src, int dst)
{
    fate f = { 0, 0, 0, step };
    if (src == dst)
        return f;
    const spec_addr a = fault_addr(J, 1, step, src, dst);
    const int64_t n = J->C[(step * J->P + src) * J->P + dst];
    f.dropped = spec_float(&a, 0) < J->drop;
    if (f.dropped)
        return f;
    f.delayed = spec_float(&a, 1) < J->delay;
    f.due = step + (f.delayed ? J->dsteps : 0);
    f.flipped = n > 0 && spec_float(&a, 2) < J->flip;
    return f;
}

static uint64_t fault_stream(int64_t step, int src, int dst) { return 2000000 + ((uint64_t)step * 64 + (uint64_t)src) * 64 + (uint64_t)dst; }

/* What the first corrupted blocking collective must abort with, or "" when none is. */
typedef struct block_fail {
    int at;        /* index of the blocking collective that fails, or -1 */
    int src, dst;  /* its first corrupted message in (src, dst) order: the one reported */
    char msg[256];
    int64_t flipped; /* flipped (= detected) blocking messages up to and including that collective */
} block_fail;

static int predict_blocking(const fault_job *J, block_fail *bf)
{
    const int P = J->P;
    int64_t seq[COMM_MAX_RANKS * COMM_MAX_RANKS] = { 0 };
    memset(bf, 0, sizeof *bf);
    bf->at = -1;
    for (int b = 0; b < J->block; b++) {
        for (int src = 0; src < P; src++)
            for (int dst = 0; dst < P; dst++) {
                const int64_t n = J->C[((J->steps + b) * P + src) * P + dst];
                if (src == dst || n == 0)
                    continue;
                const int64_t k = seq[src * P + dst]++;
                const spec_addr a = fault_addr(J, 0, k, src, dst);
                if (!(spec_float(&a, 2) < J->flip))
                    continue;
                bf->flipped++;
                if (bf->at >= 0)
                    continue;
                /* the bit: integer draw 2 in [0, 8 * bytes) */
                const size_t bytes = (size_t)n * 4;
                int32_t *v = malloc(bytes);
                if (!v)
                    return 0;
                fill_typed(J->cs, fault_stream(J->steps + b, src, dst), v, n, GNN_DT_I32);
                const uint32_t sent = gnn_crc32c(0, v, bytes);
                const uint64_t bit = spec_uint(&a, 2, 8 * (uint64_t)bytes);
                ((uint8_t *)v)[bit / 8] ^= (uint8_t)(1u << (bit % 8));
                const uint32_t got = gnn_crc32c(0, v, bytes);
                free(v);
                bf->at = b;
                bf->src = src;
                bf->dst = dst;
                snprintf(bf->msg, sizeof bf->msg,
                         "corrupted message: CRC32C mismatch in alltoallv from rank %d to rank %d (%zu bytes, sent "
                         "0x%08x, received 0x%08x)",
                         src, dst, bytes, sent, got);
            }
        if (bf->at >= 0)
            return 1;
    }
    return 1;
}

static gnn_status fault_rank(gnn_comm *c, void *arg)
{
    fault_job *J = arg;
    const int P = J->P, me = c->rank;
    gnn_comm_spmd_result *out = &J->res[me];
    int64_t sc[COMM_MAX_RANKS], sd[COMM_MAX_RANKS], rc[COMM_MAX_RANKS], rd[COMM_MAX_RANKS];
    const size_t cap = (size_t)gnn_oracle_int(J->cs, F_MAXC) * COMM_MAX_RANKS + 1;
    int32_t *send = malloc(cap * 4), *want = malloc(cap * 4), *recv = malloc(cap * 4);
    gnn_status st = GNN_OK;
    if (!send || !want || !recv) {
        st = gnn_err_set(&c->err, GNN_ERR_NOMEM, "sim.faults: out of memory");
        goto done;
    }
    for (int s = 0; s < J->steps; s++) {
        int64_t tot = 0;
        for (int q = 0; q < P; q++) {
            sc[q] = J->C[((int64_t)s * P + me) * P + q];
            sd[q] = tot;
            fill_typed(J->cs, fault_stream(s, me, q), send + tot, sc[q], GNN_DT_I32);
            tot += sc[q];
        }
        gnn_comm_req *req = NULL;
        const gnn_comm_seg *seg;
        int n;
        if ((st = gnn_comm_ialltoallv(c, send, sc, sd, GNN_DT_I32, FAULT_TAG, &req)))
            goto done;
        st = gnn_comm_wait(c, req, &seg, &n);
        if (st) {
            gnn_comm_req_free(c, req);
            goto done;
        }
        /* expected: the segments due at this wait, by (step, src) */
        int k = 0;
        for (int s2 = 0; s2 <= s; s2++)
            for (int q = 0; q < P; q++) {
                const fate f = async_fate(J, s2, q, me);
                if (f.dropped || f.flipped || f.due != s)
                    continue;
                const int64_t cnt = J->C[((int64_t)s2 * P + q) * P + me];
                if (k >= n) {
                    spmd_fail(out, "rank %d, wait of step %d: segment (src %d, step %d) missing: %d returned", me, s, q,
                              s2, n);
                    k++;
                    continue;
                }
                if (seg[k].src != q || seg[k].step != s2 || seg[k].count != cnt) {
                    spmd_fail(out, "rank %d, wait of step %d: segment %d is (src %d, step %lld, count %lld), expected "
                                   "(%d, %d, %lld)",
                              me, s, k, seg[k].src, (long long)seg[k].step, (long long)seg[k].count, q, s2, (long long)cnt);
                } else {
                    fill_typed(J->cs, fault_stream(s2, q, me), want, cnt, GNN_DT_I32);
                    if (memcmp(seg[k].data, want, (size_t)cnt * 4) != 0)
                        spmd_fail(out, "rank %d, wait of step %d: the data of (src %d, step %d) differ", me, s, q, s2);
                    out->crc = gnn_crc32c(out->crc, seg[k].data, (size_t)cnt * 4);
                }
                k++;
            }
        if (k != n)
            spmd_fail(out, "rank %d, wait of step %d: %d segments returned, the fault keys give %d", me, s, n, k);
        gnn_comm_req_free(c, req);
    }
    block_fail bf;
    if (!predict_blocking(J, &bf)) {
        st = gnn_err_set(&c->err, GNN_ERR_NOMEM, "sim.faults: out of memory");
        goto done;
    }
    for (int b = 0; b < J->block; b++) {
        int64_t stot = 0, rtot = 0;
        for (int q = 0; q < P; q++) {
            sc[q] = J->C[((int64_t)(J->steps + b) * P + me) * P + q];
            rc[q] = J->C[((int64_t)(J->steps + b) * P + q) * P + me];
            sd[q] = stot;
            rd[q] = rtot;
            fill_typed(J->cs, fault_stream(J->steps + b, me, q), send + stot, sc[q], GNN_DT_I32);
            stot += sc[q];
            rtot += rc[q];
        }
        st = gnn_comm_alltoallv(c, send, sc, sd, recv, rc, rd, GNN_DT_I32);
        if (b == bf.at) { /* the run must stop here, on every rank, with the corrupted message */
            J->rank_st[me] = st;
            if (st != GNN_ERR_COMM)
                spmd_fail(out, "rank %d: blocking alltoallv %d: status %s, expected GNN_ERR_COMM (a flipped bit)", me, b,
                          gnn_status_str(st));
            else if (strcmp(gnn_comm_errmsg(c) + (me == bf.dst ? 0 : strlen("aborted: ")), bf.msg) != 0)
                spmd_fail(out, "rank %d: blocking alltoallv %d: \"%s\", expected \"%s%s\"", me, b, gnn_comm_errmsg(c),
                          me == bf.dst ? "" : "aborted: ", bf.msg);
            st = GNN_OK; /* the failure was the expected outcome; the run reports it */
            goto done;
        }
        if (st)
            goto done;
        for (int q = 0; q < P; q++) {
            fill_typed(J->cs, fault_stream(J->steps + b, q, me), want, rc[q], GNN_DT_I32);
            if (memcmp(recv + rd[q], want, (size_t)rc[q] * 4) != 0)
                spmd_fail(out, "rank %d: blocking alltoallv %d: the data from rank %d differ", me, b, q);
        }
        out->crc = gnn_crc32c(out->crc, recv, (size_t)rtot * 4);
    }
done:
    free(send);
    free(want);
    free(recv);
    return st;
}

static gnn_oracle_outcome faults_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int P = (int)gnn_oracle_int(c, F_RANKS);
    fault_job *J = gnn_oracle_alloc(ctx, sizeof *J);
    if (!J)
        return gnn_oracle_fail(ctx, "out of memory");
    *J = (fault_job){ .cs = c, .P = P, .steps = (int)gnn_oracle_int(c, F_STEPS), .block = (int)gnn_oracle_int(c, F_BLOCK),
                      .dsteps = (int)gnn_oracle_int(c, F_DSTEPS), .drop = gnn_oracle_real(c, F_DROP),
                      .delay = gnn_oracle_real(c, F_DELAY), .flip = gnn_oracle_real(c, F_FLIP) };
    if (J->delay > 0 && J->dsteps < 1)
        return gnn_oracle_fail(ctx, "invalid case: delay > 0 needs dsteps >= 1");
    const int64_t n = (int64_t)(J->steps + J->block) * P * P, maxc = gnn_oracle_int(c, F_MAXC);
    J->C = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)n);
    if (!J->C)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws d = gnn_oracle_draws_make(c, 1);
    for (int64_t i = 0; i < n; i++)
        J->C[i] = gnn_oracle_draw_range(&d, 0, maxc);
    for (int r = 0; r < P; r++)
        J->res[r].pass = 1;

    /* the verifier's count of every fault */
    int64_t dropped = 0, delayed = 0, flipped = 0, detected = 0, undelivered = 0;
    for (int s = 0; s < J->steps; s++)
        for (int src = 0; src < P; src++)
            for (int dst = 0; dst < P; dst++) {
                if (src == dst)
                    continue;
                const fate f = async_fate(J, s, src, dst);
                dropped += f.dropped;
                delayed += f.delayed;
                flipped += f.flipped;
                if (!f.dropped && f.due >= J->steps)
                    undelivered++;
                else if (f.flipped)
                    detected++;
            }
    block_fail bf;
    if (!predict_blocking(J, &bf))
        return gnn_oracle_fail(ctx, "out of memory");
    flipped += bf.flipped;
    detected += bf.flipped;

    gnn_sim_config cfg;
    gnn_sim_defaults(&cfg);
    cfg.ranks = P;
    cfg.timeout_s = 60;
    cfg.faults = (gnn_sim_faults){ .seed = c->seed, .drop_p = J->drop, .delay_p = J->delay, .delay_steps = J->dsteps,
                                   .flip_p = J->flip };
    gnn_sim_report rep;
    gnn_err err = { "" };
    const gnn_status st = gnn_sim_run(&cfg, fault_rank, J, &rep, &err);
    char want_msg[300] = "";
    if (bf.at >= 0)
        snprintf(want_msg, sizeof want_msg, "rank %d: %s", bf.dst, bf.msg);
    gnn_oracle_outcome o = GNN_ORACLE_PASS;
    if (bf.at < 0 && st)
        o = gnn_oracle_fail(ctx, "the run failed, but no blocking message is corrupted by the fault keys: %s", err.msg);
    else if (bf.at >= 0 && (st != GNN_ERR_COMM || strcmp(err.msg, want_msg) != 0))
        o = gnn_oracle_fail(ctx, "the run returned %s \"%s\"; the fault keys corrupt blocking alltoallv %d first from "
                            "rank %d to rank %d: expected GNN_ERR_COMM \"%s\"",
                            gnn_status_str(st), err.msg, bf.at, bf.src, bf.dst, want_msg);
    for (int r = 0; r < P && o == GNN_ORACLE_PASS; r++)
        if (!J->res[r].pass)
            o = gnn_oracle_fail(ctx, "%s", J->res[r].detail);
    if (o == GNN_ORACLE_PASS && rep.ranks == P &&
        (rep.faults_dropped != dropped || rep.faults_delayed != delayed || rep.faults_flipped != flipped ||
         rep.faults_detected != detected || rep.undelivered != undelivered))
        o = gnn_oracle_fail(ctx, "report: dropped %lld, delayed %lld, flipped %lld, detected %lld, undelivered %lld; "
                            "the fault keys give %lld, %lld, %lld, %lld, %lld",
                            (long long)rep.faults_dropped, (long long)rep.faults_delayed, (long long)rep.faults_flipped,
                            (long long)rep.faults_detected, (long long)rep.undelivered, (long long)dropped,
                            (long long)delayed, (long long)flipped, (long long)detected, (long long)undelivered);
    gnn_sim_report_free(&rep);
    for (int r = 0; r < P; r++)
        gnn_oracle_digest(ctx, &J->res[r].crc, sizeof J->res[r].crc);
    const int64_t counts[5] = { dropped, delayed, flipped, detected, undelivered };
    gnn_oracle_digest(ctx, counts, sizeof counts);
    gnn_oracle_note(ctx, "dropped %lld, delayed %lld, flipped %lld (detected %lld), undelivered %lld%s%s",
                    (long long)dropped, (long long)delayed, (long long)flipped, (long long)detected,
                    (long long)undelivered, bf.at >= 0 ? "; aborted: " : "", bf.at >= 0 ? bf.msg : "");
    return o;
}

const gnn_oracle_entry gnn_oracle_sim_faults = {
    .name = "sim.faults",
    .what = "the simulator's fault injection against its documented keys, recomputed from raw Philox: every wait's "
            "segments, the report's counters, the exact abort message of a corrupted blocking collective",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "every decision is a pure function of (seed, message identity): exact",
    .params = k_f_params, .n_params = N_F_PARAMS, .presets = k_f_presets,
    .ref = &k_comm_sim, .impls = k_sim_only, .run = faults_run,
};
