/* tests/test_api.c -- the "api" cases of the kernel subsystems: bad arguments to the public
 * entry points (core/ops/kernels.c) give the same status for every implementation.
 *
 * For aggregate, index_add, the linear layer, ReLU and dropout, update, gat and act, every
 * implementation that the oracle registry lists for the subsystem's entry (so a new
 * implementation is covered as soon as it is registered) gets the same list of bad calls.
 * Each must return the status its header documents and write nothing: every output is a
 * guarded buffer of the oracle (gnn_guard_alloc) filled with a known byte, and after the call
 * its payload must still hold that byte and its guards must be intact. A valid call first
 * proves that the fixture itself is valid, so that each bad call fails for the one reason it
 * names. Test "null_ops": a NULL ops table is GNN_ERR_INVAL and a table without the op is
 * GNN_ERR_UNSUPPORTED, everywhere. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "gnnref/act.h"
#include "gnnref/aggregate.h"
#include "gnnref/cuda.h"
#include "gnnref/gat.h"
#include "gnnref/index_add.h"
#include "gnnref/nn.h"
#include "gnnref/oracle.h"
#include "gnnref/update.h"

#define FILL 0x5A /* every output byte before a bad call; must be there after it */
#define MAX_OUTS 4

/* The guarded outputs of one fixture. */
typedef struct outs {
    int n;
    unsigned char *p[MAX_OUTS];
    size_t bytes[MAX_OUTS];
    const char *name[MAX_OUTS];
} outs;

static float *out_add(outs *o, const char *name, size_t count)
{
    ck_assert_int_lt(o->n, MAX_OUTS);
    unsigned char *p = gnn_guard_alloc(count * sizeof(float), FILL);
    ck_assert_ptr_nonnull(p);
    o->p[o->n] = p;
    o->bytes[o->n] = count * sizeof(float);
    o->name[o->n++] = name;
    return (float *)p;
}

static void outs_free(outs *o)
{
    for (int i = 0; i < o->n; i++)
        gnn_guard_free(o->p[i]);
    o->n = 0;
}

/* `call` of implementation impl returned got: it must be want, with every output untouched. */
static void expect(const outs *o, const char *impl, const char *call, gnn_status got, gnn_status want)
{
    ck_assert_msg(got == want, "%s: %s returned %s, want %s", impl, call, gnn_status_str(got), gnn_status_str(want));
    for (int i = 0; i < o->n; i++) {
        char msg[256];
        ck_assert_msg(gnn_guard_check(o->p[i], msg, sizeof msg) == GNN_OK, "%s: %s: %s: %s", impl, call, o->name[i],
                      msg);
        for (size_t b = 0; b < o->bytes[i]; b++)
            ck_assert_msg(o->p[i][b] == FILL, "%s: %s returned %s but wrote %s at byte %zu", impl, call,
                          gnn_status_str(got), o->name[i], b);
    }
}
#define EXPECT(want, call) expect(&o, name, #call, (call), (want))

/* The implementations the oracle registry checks for entry `entry` (the reference included). */
static const gnn_oracle_impl *const *impls_of(const char *entry)
{
    const gnn_oracle_entry *e = gnn_oracle_find(entry);
    ck_assert_msg(e && e->impls && e->impls[0], "no registry entry %s with implementations", entry);
    return e->impls;
}

/* A valid block: 2 dst, 3 src, 3 edges (dst 0 <- src 0, 2; dst 1 <- src 1). */
static int64_t k_indptr[] = { 0, 2, 3 };
static int32_t k_indices[] = { 0, 2, 1 };
static gnn_block valid_block(void)
{
    gnn_block b = { .n_dst = 2, .n_src = 3, .nnz = 3, .indptr = k_indptr, .indices = k_indices };
    return b;
}

static const float k_vals[16] = { 0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f, 3.0f, -2.0f,
                                  1.0f, 0.125f, -0.5f, 4.0f, -3.0f, 0.75f, 2.5f, -0.25f };

/* ---- aggregate.h ---------------------------------------------------------------------------- */

static void aggregate_calls(const char *name, const void *table)
{
    const gnn_aggregate_ops *ops = table;
    const gnn_block blk = valid_block();
    gnn_block neg = blk;
    neg.n_dst = -1;
    const int64_t d = 4;
    const float *x = k_vals, *dout = k_vals, *w = k_vals; /* x (3, 4), dout (2, 4), w (3) */
    float scratch[16];
    ck_assert_int_eq(gnn_aggregate_forward(ops, &blk, x, d, GNN_AGG_GCN, scratch), GNN_OK);
    ck_assert_int_eq(gnn_aggregate_weighted_backward(ops, &blk, x, dout, d, w, scratch, NULL), GNN_OK);
    outs o = { 0 };
    float *out = out_add(&o, "out", 2 * 4), *dx = out_add(&o, "dx", 3 * 4), *dw = out_add(&o, "dw", 3);
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_forward(ops, NULL, x, d, GNN_AGG_MEAN, out));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_forward(ops, &blk, x, -1, GNN_AGG_MEAN, out));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_forward(ops, &neg, x, d, GNN_AGG_MEAN, out));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_forward(ops, &blk, NULL, d, GNN_AGG_SUM, out));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_forward(ops, &blk, x, d, GNN_AGG_SUM, NULL));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_forward(ops, &blk, x, d, (gnn_agg_kind)3, out));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_backward(ops, NULL, dout, d, GNN_AGG_MEAN, dx));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_backward(ops, &blk, dout, -1, GNN_AGG_MEAN, dx));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_backward(ops, &blk, NULL, d, GNN_AGG_GCN, dx));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_backward(ops, &blk, dout, d, GNN_AGG_GCN, NULL));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_backward(ops, &blk, dout, d, (gnn_agg_kind)-1, dx));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_weighted_forward(ops, NULL, x, d, w, out));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_weighted_forward(ops, &blk, x, -1, w, out));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_weighted_forward(ops, &blk, x, d, NULL, out));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_weighted_forward(ops, &blk, NULL, d, w, out));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_weighted_backward(ops, NULL, x, dout, d, w, dx, dw));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_weighted_backward(ops, &neg, x, dout, d, w, dx, dw));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_weighted_backward(ops, &blk, x, NULL, d, w, dx, dw));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_weighted_backward(ops, &blk, x, dout, d, NULL, dx, NULL));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_weighted_backward(ops, &blk, NULL, dout, d, w, NULL, dw));
    outs_free(&o);
}

/* ---- index_add.h ---------------------------------------------------------------------------- */

static void index_add_calls(const char *name, const void *table)
{
    const gnn_index_add_ops *ops = table;
    const int64_t idx[4] = { 0, 2, 1, 2 }, high[4] = { 0, 2, 3, 1 }, low[4] = { 0, -1, 1, 2 };
    const float *src = k_vals; /* (4, 2) */
    float scratch[6] = { 0 };
    ck_assert_int_eq(gnn_index_add_run(ops, scratch, 3, 2, idx, src, 4), GNN_OK);
    outs o = { 0 };
    float *out = out_add(&o, "out", 3 * 2); /* read and written: its fill is its value on entry */
    EXPECT(GNN_ERR_INVAL, gnn_index_add_run(ops, out, -1, 2, idx, src, 4));
    EXPECT(GNN_ERR_INVAL, gnn_index_add_run(ops, out, 3, -1, idx, src, 4));
    EXPECT(GNN_ERR_INVAL, gnn_index_add_run(ops, out, 3, 2, idx, src, -1));
    EXPECT(GNN_ERR_INVAL, gnn_index_add_run(ops, out, 3, 2, NULL, src, 4));
    EXPECT(GNN_ERR_INVAL, gnn_index_add_run(ops, out, 3, 2, idx, NULL, 4));
    EXPECT(GNN_ERR_INVAL, gnn_index_add_run(ops, NULL, 3, 2, idx, src, 4));
    EXPECT(GNN_ERR_RANGE, gnn_index_add_run(ops, out, 3, 2, high, src, 4));
    EXPECT(GNN_ERR_RANGE, gnn_index_add_run(ops, out, 3, 2, low, src, 4));
    outs_free(&o);
}

/* ---- nn.h: the linear layer ------------------------------------------------------------------ */

/* The dense fixture of the linear layer and the UPDATE: x (2, 3), w (3, 4), b (4), dy (2, 4),
 * and guarded outputs y (2, 4), dx (2, 3), dw (3, 4), db (4). */
static const float *const k_x = k_vals, *const k_w = k_vals + 4, *const k_b = k_vals, *const k_dy = k_vals + 8;
typedef struct dense_outs {
    float *y, *dx, *dw, *db;
} dense_outs;
static dense_outs dense_out_add(outs *o)
{
    dense_outs d = { out_add(o, "y", 2 * 4), out_add(o, "dx", 2 * 3), out_add(o, "dw", 3 * 4), out_add(o, "db", 4) };
    return d;
}

static void linear_calls(const char *name, const void *table)
{
    const gnn_nn_ops *ops = table;
    float s1[8], s2[12], s3[6];
    ck_assert_int_eq(gnn_nn_linear_fwd(ops, k_x, 2, 3, k_w, NULL, 4, s1), GNN_OK);
    ck_assert_int_eq(gnn_nn_linear_bwd(ops, NULL, k_dy, 2, 3, k_w, 4, s3, NULL, s1), GNN_OK); /* x only read for dw */
    ck_assert_int_eq(gnn_nn_linear_bwd(ops, k_x, k_dy, 2, 3, NULL, 4, NULL, s2, NULL), GNN_OK); /* w only for dx */
    outs o = { 0 };
    const dense_outs d = dense_out_add(&o);
    EXPECT(GNN_ERR_INVAL, gnn_nn_linear_fwd(ops, k_x, -1, 3, k_w, k_b, 4, d.y));
    EXPECT(GNN_ERR_INVAL, gnn_nn_linear_fwd(ops, k_x, 2, -1, k_w, k_b, 4, d.y));
    EXPECT(GNN_ERR_INVAL, gnn_nn_linear_fwd(ops, k_x, 2, 3, k_w, k_b, -1, d.y));
    EXPECT(GNN_ERR_INVAL, gnn_nn_linear_fwd(ops, NULL, 2, 3, k_w, k_b, 4, d.y));
    EXPECT(GNN_ERR_INVAL, gnn_nn_linear_fwd(ops, k_x, 2, 3, NULL, k_b, 4, d.y));
    EXPECT(GNN_ERR_INVAL, gnn_nn_linear_fwd(ops, k_x, 2, 3, k_w, k_b, 4, NULL));
    EXPECT(GNN_ERR_INVAL, gnn_nn_linear_bwd(ops, k_x, k_dy, -1, 3, k_w, 4, d.dx, d.dw, d.db));
    EXPECT(GNN_ERR_INVAL, gnn_nn_linear_bwd(ops, k_x, NULL, 2, 3, k_w, 4, d.dx, d.dw, d.db));
    EXPECT(GNN_ERR_INVAL, gnn_nn_linear_bwd(ops, NULL, k_dy, 2, 3, k_w, 4, d.dx, d.dw, d.db));
    EXPECT(GNN_ERR_INVAL, gnn_nn_linear_bwd(ops, k_x, k_dy, 2, 3, NULL, 4, d.dx, d.dw, d.db));
    outs_free(&o);
}

/* ---- nn.h: ReLU and keyed dropout ------------------------------------------------------------- */

/* x (2, 4) in place with its mask (2, 4), row ids (2), dy (2, 4) */
static void elementwise_calls(const char *name, const void *table)
{
    const gnn_nn_ops *ops = table;
    const int64_t gid[2] = { 7, (int64_t)1 << 40 };
    float s1[8], s2[8];
    memcpy(s1, k_vals, sizeof s1);
    ck_assert_int_eq(gnn_nn_dropout_fwd(ops, s1, 2, 4, gid, 0.5f, 7, 3, 1, s2), GNN_OK);
    ck_assert_int_eq(gnn_nn_dropout_fwd(ops, s1, 2, 4, gid, 0.0f, 7, 3, 255, NULL), GNN_OK); /* the mask is optional */
    ck_assert_int_eq(gnn_nn_dropout_fwd(ops, NULL, 0, 4, NULL, 0.5f, 7, 3, 1, NULL), GNN_OK); /* no rows: no reads */
    ck_assert_int_eq(gnn_nn_dropout_bwd(ops, s1, 2, 4, s2), GNN_OK);
    ck_assert_int_eq(gnn_nn_relu_fwd(ops, s1, 8), GNN_OK);
    ck_assert_int_eq(gnn_nn_relu_bwd(ops, s1, s2, 8), GNN_OK);
    ck_assert_int_eq(gnn_nn_relu_bwd(ops, NULL, NULL, 0), GNN_OK);
    outs o = { 0 };
    float *x = out_add(&o, "x", 8), *mask = out_add(&o, "mask", 8), *dy = out_add(&o, "dy", 8);
    EXPECT(GNN_ERR_INVAL, gnn_nn_dropout_fwd(ops, x, -1, 4, gid, 0.5f, 7, 3, 1, mask));
    EXPECT(GNN_ERR_INVAL, gnn_nn_dropout_fwd(ops, x, 2, -4, gid, 0.5f, 7, 3, 1, mask));
    EXPECT(GNN_ERR_INVAL, gnn_nn_dropout_fwd(ops, NULL, 2, 4, gid, 0.5f, 7, 3, 1, mask));
    EXPECT(GNN_ERR_INVAL, gnn_nn_dropout_fwd(ops, x, 2, 4, NULL, 0.5f, 7, 3, 1, mask));
    EXPECT(GNN_ERR_INVAL, gnn_nn_dropout_fwd(ops, x, 2, 0, NULL, 0.5f, 7, 3, 1, mask)); /* each row opens its stream */
    EXPECT(GNN_ERR_INVAL, gnn_nn_dropout_fwd(ops, x, 2, 4, gid, 1.0f, 7, 3, 1, mask));
    EXPECT(GNN_ERR_INVAL, gnn_nn_dropout_fwd(ops, x, 2, 4, gid, -0.25f, 7, 3, 1, mask));
    EXPECT(GNN_ERR_INVAL, gnn_nn_dropout_fwd(ops, x, 2, 4, gid, NAN, 7, 3, 1, mask));
    EXPECT(GNN_ERR_INVAL, gnn_nn_dropout_fwd(ops, x, 2, 4, gid, 0.5f, 7, 3, 256, mask)); /* layer: 8 bits */
    EXPECT(GNN_ERR_INVAL, gnn_nn_dropout_bwd(ops, dy, -1, 4, k_vals));
    EXPECT(GNN_ERR_INVAL, gnn_nn_dropout_bwd(ops, NULL, 2, 4, k_vals));
    EXPECT(GNN_ERR_INVAL, gnn_nn_dropout_bwd(ops, dy, 2, 4, NULL));
    EXPECT(GNN_ERR_INVAL, gnn_nn_relu_fwd(ops, x, -1));
    EXPECT(GNN_ERR_INVAL, gnn_nn_relu_fwd(ops, NULL, 8));
    EXPECT(GNN_ERR_INVAL, gnn_nn_relu_bwd(ops, NULL, dy, 8));
    EXPECT(GNN_ERR_INVAL, gnn_nn_relu_bwd(ops, k_vals, NULL, 8));
    EXPECT(GNN_ERR_INVAL, gnn_nn_relu_bwd(ops, k_vals, dy, -8));
    outs_free(&o);
}

/* ---- update.h --------------------------------------------------------------------------------- */

static void update_calls(const char *name, const void *table)
{
    const gnn_update_ops *ops = table;
    const gnn_dropout_key key = { .p = 0.5f, .seed = 7 };
    gnn_dropout_key one = key, neg = key, p_nan = key;
    one.p = 1.0f;
    neg.p = -0.25f;
    p_nan.p = NAN;
    float y[8], s1[6], s2[12];
    ck_assert_int_eq(gnn_update_forward(ops, k_x, 2, 3, k_w, k_b, 4, &key, y), GNN_OK);
    ck_assert_int_eq(gnn_update_backward(ops, k_x, y, k_dy, 2, 3, k_w, 4, 0.5f, s1, s2, NULL), GNN_OK);
    outs o = { 0 };
    const dense_outs d = dense_out_add(&o);
    EXPECT(GNN_ERR_INVAL, gnn_update_forward(ops, k_x, -1, 3, k_w, k_b, 4, &key, d.y));
    EXPECT(GNN_ERR_INVAL, gnn_update_forward(ops, k_x, 2, 3, k_w, k_b, -4, &key, d.y));
    EXPECT(GNN_ERR_INVAL, gnn_update_forward(ops, NULL, 2, 3, k_w, k_b, 4, &key, d.y));
    EXPECT(GNN_ERR_INVAL, gnn_update_forward(ops, k_x, 2, 3, NULL, k_b, 4, &key, d.y));
    EXPECT(GNN_ERR_INVAL, gnn_update_forward(ops, k_x, 2, 3, k_w, k_b, 4, &key, NULL));
    EXPECT(GNN_ERR_INVAL, gnn_update_forward(ops, k_x, 2, 3, k_w, k_b, 4, &one, d.y));
    EXPECT(GNN_ERR_INVAL, gnn_update_forward(ops, k_x, 2, 3, k_w, k_b, 4, &neg, d.y));
    EXPECT(GNN_ERR_INVAL, gnn_update_forward(ops, k_x, 2, 3, k_w, k_b, 4, &p_nan, d.y));
    EXPECT(GNN_ERR_INVAL, gnn_update_backward(ops, k_x, y, k_dy, 2, -3, k_w, 4, 0.5f, d.dx, d.dw, d.db));
    EXPECT(GNN_ERR_INVAL, gnn_update_backward(ops, k_x, y, k_dy, 2, 3, k_w, 4, 1.0f, d.dx, d.dw, d.db));
    EXPECT(GNN_ERR_INVAL, gnn_update_backward(ops, k_x, y, k_dy, 2, 3, k_w, 4, -0.5f, d.dx, d.dw, d.db));
    EXPECT(GNN_ERR_INVAL, gnn_update_backward(ops, k_x, y, k_dy, 2, 3, k_w, 4, NAN, d.dx, d.dw, d.db));
    EXPECT(GNN_ERR_INVAL, gnn_update_backward(ops, NULL, y, k_dy, 2, 3, k_w, 4, 0.5f, d.dx, d.dw, d.db));
    EXPECT(GNN_ERR_INVAL, gnn_update_backward(ops, k_x, NULL, k_dy, 2, 3, k_w, 4, 0.5f, d.dx, d.dw, d.db));
    EXPECT(GNN_ERR_INVAL, gnn_update_backward(ops, k_x, y, NULL, 2, 3, k_w, 4, 0.5f, d.dx, d.dw, d.db));
    EXPECT(GNN_ERR_INVAL, gnn_update_backward(ops, k_x, y, k_dy, 2, 3, NULL, 4, 0.5f, d.dx, d.dw, d.db));
    EXPECT(GNN_ERR_INVAL, gnn_update_backward(ops, k_x, y, k_dy, 2, 3, k_w, 4, 0.5f, d.dx, NULL, d.db));
    outs_free(&o);
}

/* ---- gat.h ------------------------------------------------------------------------------------ */

/* 2 heads of 2 features on the valid block: z (3, 4), al, ar (4), dout (2, 4). */
static const gnn_gat_params k_gat = { .heads = 2, .f = 2, .slope = 0.2f, .attn_drop = 0.0f, .seed = 3 };

/* The parameters and the block, through the forward; the statuses are the same backward. */
static void gat_param_calls(const char *name, const gnn_gat_ops *ops, outs *op, float *out, float *alpha)
{
    const outs o = *op;
    const gnn_block blk = valid_block();
    const float *z = k_vals, *al = k_vals + 12, *ar = k_vals + 8;
    gnn_gat_params p[6];
    for (int i = 0; i < 6; i++)
        p[i] = k_gat;
    p[0].heads = 0;
    p[1].f = -1;
    p[2].attn_drop = 1.0f;
    p[3].attn_drop = NAN;
    p[4].slope = INFINITY;
    p[5].heads = INT64_MAX / 2 + 1; /* heads * f and nnz * heads overflow */
    for (int i = 0; i < 5; i++)
        EXPECT(GNN_ERR_INVAL, gnn_gat_forward(ops, &blk, z, al, ar, &p[i], out, alpha));
    EXPECT(GNN_ERR_RANGE, gnn_gat_forward(ops, &blk, z, al, ar, &p[5], out, alpha));
    EXPECT(GNN_ERR_INVAL, gnn_gat_forward(ops, NULL, z, al, ar, &k_gat, out, alpha));
    EXPECT(GNN_ERR_INVAL, gnn_gat_forward(ops, &blk, z, al, ar, NULL, out, alpha));
    int64_t ptr_start[] = { 1, 2, 3 }, ptr_down[] = { 0, 4, 3 };
    int32_t idx_high[] = { 0, 3, 1 }, idx_neg[] = { 0, -1, 1 };
    gnn_block b[6] = { blk, blk, blk, blk, blk, blk };
    b[0].n_src = 1; /* fewer src than dst: dst v must be src v */
    b[1].indptr = NULL;
    b[2].indptr = ptr_start;
    b[3].indptr = ptr_down;
    b[4].indices = idx_high;
    b[5].indices = idx_neg;
    for (int i = 0; i < 4; i++)
        EXPECT(GNN_ERR_INVAL, gnn_gat_forward(ops, &b[i], z, al, ar, &k_gat, out, alpha));
    EXPECT(GNN_ERR_RANGE, gnn_gat_forward(ops, &b[4], z, al, ar, &k_gat, out, alpha));
    EXPECT(GNN_ERR_RANGE, gnn_gat_forward(ops, &b[5], z, al, ar, &k_gat, out, alpha));
    b[3].indices = idx_high; /* a decreasing indptr is reported before an id out of range */
    EXPECT(GNN_ERR_INVAL, gnn_gat_forward(ops, &b[3], z, al, ar, &k_gat, out, alpha));
}

static void gat_calls(const char *name, const void *table)
{
    const gnn_gat_ops *ops = table;
    const gnn_block blk = valid_block();
    const float *z = k_vals, *al = k_vals + 12, *ar = k_vals + 8, *dout = k_vals + 4;
    float s_out[8], s_alpha[6], s_dz[12], s_dal[4], s_dar[4];
    ck_assert_int_eq(gnn_gat_forward(ops, &blk, z, al, ar, &k_gat, s_out, s_alpha), GNN_OK);
    ck_assert_int_eq(gnn_gat_backward(ops, &blk, z, al, ar, &k_gat, s_alpha, dout, s_dz, s_dal, s_dar), GNN_OK);
    outs o = { 0 };
    float *out = out_add(&o, "out", 2 * 4), *alpha = out_add(&o, "alpha", 3 * 2);
    gat_param_calls(name, ops, &o, out, alpha);
    EXPECT(GNN_ERR_INVAL, gnn_gat_forward(ops, &blk, NULL, al, ar, &k_gat, out, alpha));
    EXPECT(GNN_ERR_INVAL, gnn_gat_forward(ops, &blk, z, NULL, ar, &k_gat, out, alpha));
    EXPECT(GNN_ERR_INVAL, gnn_gat_forward(ops, &blk, z, al, ar, &k_gat, NULL, alpha));
    outs_free(&o);
    float *dz = out_add(&o, "dz", 3 * 4), *dal = out_add(&o, "dal", 4), *dar = out_add(&o, "dar", 4);
    gnn_gat_params zero = k_gat;
    zero.heads = 0;
    EXPECT(GNN_ERR_INVAL, gnn_gat_backward(ops, &blk, z, al, ar, &zero, s_alpha, dout, dz, dal, dar));
    EXPECT(GNN_ERR_INVAL, gnn_gat_backward(ops, NULL, z, al, ar, &k_gat, s_alpha, dout, dz, dal, dar));
    EXPECT(GNN_ERR_INVAL, gnn_gat_backward(ops, &blk, z, al, NULL, &k_gat, s_alpha, dout, dz, dal, dar));
    EXPECT(GNN_ERR_INVAL, gnn_gat_backward(ops, &blk, z, al, ar, &k_gat, NULL, dout, dz, dal, dar));
    EXPECT(GNN_ERR_INVAL, gnn_gat_backward(ops, &blk, z, al, ar, &k_gat, s_alpha, NULL, dz, dal, dar));
    EXPECT(GNN_ERR_INVAL, gnn_gat_backward(ops, &blk, z, al, ar, &k_gat, s_alpha, dout, NULL, dal, dar));
    EXPECT(GNN_ERR_INVAL, gnn_gat_backward(ops, &blk, z, al, ar, &k_gat, s_alpha, dout, dz, NULL, dar));
    EXPECT(GNN_ERR_INVAL, gnn_gat_backward(ops, &blk, z, al, ar, &k_gat, s_alpha, dout, dz, dal, NULL));
    outs_free(&o);
}

/* ---- act.h ------------------------------------------------------------------------------------ */

static void act_calls(const char *name, const void *table)
{
    const gnn_act_ops *ops = table;
    const float *x = k_vals, *dy = k_vals + 8, *gamma = k_vals + 4, *beta = k_vals; /* x, dy (2, 4) */
    float y[8], mu[2], rs[2], s_dx[8], s_dg[4], s_db[4];
    ck_assert_int_eq(gnn_act_elu_fwd(ops, x, 8, 1.0f, y), GNN_OK);
    ck_assert_int_eq(gnn_act_layernorm_fwd(ops, x, 2, 4, gamma, beta, 1e-5f, y, mu, rs), GNN_OK);
    ck_assert_int_eq(gnn_act_layernorm_bwd(ops, x, dy, 2, 4, gamma, mu, rs, s_dx, s_dg, s_db), GNN_OK);
    outs o = { 0 };
    float *yo = out_add(&o, "y", 8), *dx = out_add(&o, "dx", 8), *dg = out_add(&o, "dgamma", 4);
    float *db = out_add(&o, "dbeta", 4);
    EXPECT(GNN_ERR_INVAL, gnn_act_elu_fwd(ops, x, -1, 1.0f, yo));
    EXPECT(GNN_ERR_INVAL, gnn_act_elu_fwd(ops, NULL, 8, 1.0f, yo));
    EXPECT(GNN_ERR_INVAL, gnn_act_elu_fwd(ops, x, 8, 1.0f, NULL));
    EXPECT(GNN_ERR_INVAL, gnn_act_elu_bwd(ops, x, dy, -1, 1.0f, dx));
    EXPECT(GNN_ERR_INVAL, gnn_act_elu_bwd(ops, x, NULL, 8, 1.0f, dx));
    EXPECT(GNN_ERR_INVAL, gnn_act_layernorm_fwd(ops, x, -1, 4, gamma, beta, 1e-5f, yo, mu, rs));
    EXPECT(GNN_ERR_INVAL, gnn_act_layernorm_fwd(ops, x, 2, 0, gamma, beta, 1e-5f, yo, mu, rs));
    EXPECT(GNN_ERR_INVAL, gnn_act_layernorm_fwd(ops, x, 2, 4, NULL, beta, 1e-5f, yo, mu, rs));
    EXPECT(GNN_ERR_INVAL, gnn_act_layernorm_fwd(ops, x, 2, 4, gamma, NULL, 1e-5f, yo, mu, rs));
    EXPECT(GNN_ERR_INVAL, gnn_act_layernorm_fwd(ops, x, 2, 4, gamma, beta, 0.0f, yo, mu, rs));
    EXPECT(GNN_ERR_INVAL, gnn_act_layernorm_fwd(ops, x, 2, 4, gamma, beta, INFINITY, yo, mu, rs));
    EXPECT(GNN_ERR_INVAL, gnn_act_layernorm_fwd(ops, x, 2, 4, gamma, beta, NAN, yo, mu, rs));
    EXPECT(GNN_ERR_INVAL, gnn_act_layernorm_fwd(ops, x, 2, 4, gamma, beta, 1e-5f, yo, NULL, rs));
    EXPECT(GNN_ERR_INVAL, gnn_act_layernorm_bwd(ops, x, dy, 2, -4, gamma, mu, rs, dx, dg, db));
    EXPECT(GNN_ERR_INVAL, gnn_act_layernorm_bwd(ops, x, NULL, 2, 4, gamma, mu, rs, dx, dg, db));
    EXPECT(GNN_ERR_INVAL, gnn_act_layernorm_bwd(ops, x, dy, 2, 4, gamma, mu, NULL, dx, dg, db));
    EXPECT(GNN_ERR_INVAL, gnn_act_layernorm_bwd(ops, x, dy, 2, 4, gamma, mu, rs, NULL, dg, db));
    /* dgamma and dbeta are zeroed even when there are no rows, so they must exist */
    EXPECT(GNN_ERR_INVAL, gnn_act_layernorm_bwd(ops, x, dy, 0, 4, gamma, mu, rs, dx, NULL, db));
    outs_free(&o);
}

/* ---- every implementation of each subsystem ---------------------------------------------------- */

/* Subsystem, the registry entry whose implementations it runs, and its bad calls. */
static const struct {
    const char *entry;
    void (*calls)(const char *name, const void *table);
} k_subsystems[] = {
    { "aggregate.mean.fwd", aggregate_calls }, { "index_add", index_add_calls }, { "linear.fwd", linear_calls },
    { "update.fwd", update_calls },           { "gat.fwd", gat_calls },         { "layernorm.fwd", act_calls },
    { "dropout", elementwise_calls },
};
#define N_SUBSYSTEMS ((int)(sizeof k_subsystems / sizeof k_subsystems[0]))

START_TEST(bad_calls)
{
    for (const gnn_oracle_impl *const *it = impls_of(k_subsystems[_i].entry); *it; it++) {
        /* a `cuda` table where no GPU is refuses every call (the oracle says SKIP there) */
        if (!strcmp((*it)->name, "cuda") && !gnn_cuda_available(NULL, 0))
            continue;
        k_subsystems[_i].calls((*it)->name, (*it)->ops);
    }
}
END_TEST

/* ---- no table, or a table without the op -------------------------------------------------------- */

START_TEST(null_ops)
{
    const char *name = "NULL ops";
    const gnn_block blk = valid_block();
    const float *in = k_vals;
    const int64_t idx[2] = { 0, 1 };
    outs o = { 0 };
    float *out = out_add(&o, "out", 16);
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_forward(NULL, &blk, in, 2, GNN_AGG_MEAN, out));
    EXPECT(GNN_ERR_INVAL, gnn_aggregate_weighted_backward(NULL, &blk, in, in, 2, in, out, NULL));
    EXPECT(GNN_ERR_INVAL, gnn_index_add_run(NULL, out, 2, 2, idx, in, 2));
    EXPECT(GNN_ERR_INVAL, gnn_nn_linear_fwd(NULL, in, 2, 2, in, NULL, 2, out));
    EXPECT(GNN_ERR_INVAL, gnn_nn_linear_bwd(NULL, in, in, 2, 2, in, 2, out, NULL, NULL));
    EXPECT(GNN_ERR_INVAL, gnn_nn_relu_fwd(NULL, out, 4));
    EXPECT(GNN_ERR_INVAL, gnn_nn_relu_bwd(NULL, in, out, 4));
    EXPECT(GNN_ERR_INVAL, gnn_nn_dropout_fwd(NULL, out, 2, 2, idx, 0.5f, 1, 0, 0, NULL));
    EXPECT(GNN_ERR_INVAL, gnn_nn_dropout_bwd(NULL, out, 2, 2, in));
    EXPECT(GNN_ERR_INVAL, gnn_update_forward(NULL, in, 2, 2, in, NULL, 2, NULL, out));
    EXPECT(GNN_ERR_INVAL, gnn_update_backward(NULL, in, in, in, 2, 2, in, 2, 0.0f, NULL, out, NULL));
    EXPECT(GNN_ERR_INVAL, gnn_gat_forward(NULL, &blk, in, in, in, &k_gat, out, NULL));
    EXPECT(GNN_ERR_INVAL, gnn_gat_backward(NULL, &blk, in, in, in, &k_gat, in, in, out, out, out));
    EXPECT(GNN_ERR_INVAL, gnn_act_elu_fwd(NULL, in, 4, 1.0f, out));
    EXPECT(GNN_ERR_INVAL, gnn_act_layernorm_fwd(NULL, in, 2, 4, in, in, 1e-5f, out, out, out));
    /* a partial table (the oracle's self-test mutants are such tables) reports what it lacks */
    static const gnn_aggregate_ops k_empty_agg = { .name = "empty" };
    static const gnn_gat_ops k_empty_gat = { .name = "empty" };
    static const gnn_act_ops k_empty_act = { .name = "empty" };
    static const gnn_nn_ops k_empty_nn = { .name = "empty" };
    EXPECT(GNN_ERR_UNSUPPORTED, gnn_aggregate_backward(&k_empty_agg, &blk, in, 2, GNN_AGG_SUM, out));
    EXPECT(GNN_ERR_UNSUPPORTED, gnn_gat_backward(&k_empty_gat, &blk, in, in, in, &k_gat, in, in, out, out, out));
    EXPECT(GNN_ERR_UNSUPPORTED, gnn_act_elu_bwd(&k_empty_act, in, in, 4, 1.0f, out));
    EXPECT(GNN_ERR_UNSUPPORTED, gnn_nn_dropout_fwd(&k_empty_nn, out, 2, 2, idx, 0.5f, 1, 0, 0, NULL));
    EXPECT(GNN_ERR_UNSUPPORTED, gnn_nn_dropout_bwd(&k_empty_nn, out, 2, 2, in));
    EXPECT(GNN_ERR_UNSUPPORTED, gnn_nn_relu_fwd(&k_empty_nn, out, 4));
    EXPECT(GNN_ERR_UNSUPPORTED, gnn_nn_relu_bwd(&k_empty_nn, in, out, 4));
    outs_free(&o);
}
END_TEST

Suite *suite_api(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("api");
    tcase_set_tags(tc, "cpu");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, bad_calls, 0, N_SUBSYSTEMS);
    tcase_add_test(tc, null_ops);
    suite_add_tcase(s, tc);
    return s;
}
