/* oracle/op_comm_layouts.c -- the oracle entries comm.alltoallv and comm.allgatherv: every
 * displacement layout a user may pass (packed, scattered with gaps, in place, overlapping,
 * one buffer with disjoint regions, and overlapping receive segments, which must be refused),
 * each rank's whole receive buffer against an image computed here, and the accounting.
 * Apart from oracle/op_comm.c because the layouts are a subject of their own: the two entries
 * share their parameters, the segment placement and the refusal check, and nothing else of
 * theirs is used by the other comm.* entries. The overview of all comm.* entries is at the top
 * of oracle/op_comm.c; the helpers and the SPMD runner used here are declared in
 * oracle/op_comm.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/crc32c.h"
#include "oracle/op_comm.h"

/* element sizes of u8, i32, i64, f32, f64, written out here rather than taken from comm.c */
static const size_t k_elem[5] = { 1, 4, 8, 4, 8 };

/* ---- comm.alltoallv and comm.allgatherv: layouts ----------------------------------------------- */

enum { L_PACKED, L_SCATTERED, L_INPLACE, L_OVERLAP, L_BADRECV, L_SAMEBASE };
static const char *const k_layout_name[] = { "packed", "scattered", "in place", "overlapping",
                                             "overlapping receive segments", "one buffer, disjoint regions" };

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
        gnn_oracle_comm_fail(out, "rank %d: %s: status %s, expected GNN_ERR_INVAL (receive segments overlap)", c->rank,
                             what, gnn_status_str(st));
        return;
    }
    if (!strstr(gnn_comm_errmsg(c), "overlap"))
        gnn_oracle_comm_fail(out, "rank %d: %s: the message does not name the overlap: %s", c->rank, what,
                             gnn_comm_errmsg(c));
    gnn_oracle_comm_check_image(c, what, buf, image, bytes, 1, out);
    gnn_oracle_comm_check_traffic(c, before, GNN_COMM_NONE, NULL, NULL, 0, what, out);
}

gnn_status gnn_oracle_comm_alltoallv_rank(gnn_comm *c, const gnn_oracle_case *cs, gnn_comm_spmd_result *out)
{
    const int P = c->size, me = c->rank, layout = (int)gnn_oracle_int(cs, X_LAYOUT);
    const gnn_dtype t = (gnn_dtype)gnn_oracle_int(cs, X_DTYPE);
    const size_t s = k_elem[t];
    if (layout == L_BADRECV && P < 2)
        return gnn_oracle_comm_fail(out, "invalid case: layout 4 needs ranks >= 2");
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
        gnn_oracle_comm_fill(cs, seg_stream(me, q), sbuf + (size_t)sd[q] * s, sc[q], t);
    /* the expected image: the buffer as it is, then every rank's segment where it must land */
    memcpy(image, rbuf, rbytes);
    if (layout != L_BADRECV)
        for (int q = 0; q < P; q++) {
            gnn_oracle_comm_fill(cs, seg_stream(q, me), seg, rc[q], t);
            memcpy(image + (size_t)rd[q] * s, seg, (size_t)rc[q] * s);
        }
    traffic_snap before;
    gnn_oracle_comm_snap_take(c, &before);
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
    gnn_oracle_comm_check_image(c, what, rbuf, image, rbytes, s, out);
    if (!one) {
        char msg[160];
        if (gnn_guard_check(sbuf, msg, sizeof msg) != GNN_OK)
            gnn_oracle_comm_fail(out, "rank %d: %s: send buffer: %s", me, what, msg);
    }
    int64_t wb[COMM_MAX_RANKS], wm[COMM_MAX_RANKS];
    for (int q = 0; q < P; q++) {
        wb[q] = q == me ? 0 : sc[q] * (int64_t)s;
        wm[q] = q != me && sc[q] > 0;
    }
    gnn_oracle_comm_check_traffic(c, &before, GNN_COMM_ALLTOALLV, wb, wm, 1, what, out);
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

gnn_status gnn_oracle_comm_allgatherv_rank(gnn_comm *c, const gnn_oracle_case *cs, gnn_comm_spmd_result *out)
{
    const int P = c->size, me = c->rank, layout = (int)gnn_oracle_int(cs, X_LAYOUT);
    const gnn_dtype t = (gnn_dtype)gnn_oracle_int(cs, X_DTYPE);
    const size_t s = k_elem[t];
    if (layout == L_BADRECV && P < 2)
        return gnn_oracle_comm_fail(out, "invalid case: layout 4 needs ranks >= 2");
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
    gnn_oracle_comm_fill(cs, 100 + (uint64_t)me, (char *)send, cnt[me], t);
    memcpy(image, rbuf, rbytes);
    if (layout != L_BADRECV)
        for (int q = 0; q < P; q++) {
            gnn_oracle_comm_fill(cs, 100 + (uint64_t)q, seg, cnt[q], t);
            memcpy(image + (size_t)dsp[q] * s, seg, (size_t)cnt[q] * s);
        }
    traffic_snap before;
    gnn_oracle_comm_snap_take(c, &before);
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
    gnn_oracle_comm_check_image(c, what, rbuf, image, rbytes, s, out);
    int64_t wb[COMM_MAX_RANKS], wm[COMM_MAX_RANKS];
    for (int q = 0; q < P; q++) {
        wb[q] = q == me ? 0 : cnt[me] * (int64_t)s;
        wm[q] = q != me && cnt[me] > 0;
    }
    gnn_oracle_comm_check_traffic(c, &before, GNN_COMM_ALLGATHERV, wb, wm, 1, what, out);
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

static gnn_oracle_outcome alltoallv_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    return gnn_oracle_comm_spmd_run(ctx, c, gnn_oracle_comm_alltoallv_rank);
}
static gnn_oracle_outcome allgatherv_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    return gnn_oracle_comm_spmd_run(ctx, c, gnn_oracle_comm_allgatherv_rank);
}

const gnn_oracle_entry gnn_oracle_comm_alltoallv = {
    .name = "comm.alltoallv",
    .what = "alltoallv with packed, scattered, in-place, overlapping and one-buffer displacements: the whole receive "
            "buffer against the verifier's image; overlapping receive segments refused; accounting",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "data are copied, never computed: exact, gaps untouched",
    .params = k_a2a_params, .n_params = N_X_PARAMS, .presets = k_a2a_presets,
    .ref = &gnn_oracle_comm_impl_sim, .impls = gnn_oracle_comm_impls, .run = alltoallv_run,
};

const gnn_oracle_entry gnn_oracle_comm_allgatherv = {
    .name = "comm.allgatherv",
    .what = "allgatherv with packed, scattered, in-place and overlapping buffers: the whole receive buffer against "
            "the verifier's image; overlapping receive segments refused; accounting",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "data are copied, never computed: exact, gaps untouched",
    .params = k_agv_params, .n_params = N_X_PARAMS, .presets = k_agv_presets,
    .ref = &gnn_oracle_comm_impl_sim, .impls = gnn_oracle_comm_impls, .run = allgatherv_run,
};
