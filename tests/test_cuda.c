/* tests/test_cuda.c -- the CUDA tier's emulator and its aggregation and quantization kernels
 * (opt/cuda/emu.h, opt/cuda/aggregate*, opt/cuda/quant*, docs/cuda.md), on any machine.
 *
 *   emu_barrier      a body that writes shared memory in phase 0 and reads another thread's
 *                    slot in phase 1 gives the right answer;
 *   emu_missing      the same read in the same phase (a missing barrier) gives a wrong one:
 *                    a read of a later thread's slot in the default thread order, of an
 *                    earlier thread's slot in GNN_EMU_THREAD_ORDER=reverse;
 *   emu_coords       every (block, thread) of a 3-d grid runs once per phase, with per-block
 *                    phase counts;
 *   scan_sort        the device prefix sum at tile boundaries and over two levels of tiles,
 *                    and the radix sort's stability (the transposed list's order);
 *   available        gnn_cuda_available answers with a reason and does not crash; where it
 *                    says no, the oracle reports the `cuda` implementation SKIP, never FAIL;
 *   emu_vs_ref       the cuda-emu tables on a small block worked out by hand, and bitwise ref
 *                    on the oracle's first preset of every aggregation and quant entry.
 * The wide comparisons are the oracle's (aggregate.*, quant.*: impl cuda-emu). */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/aggregate.h"
#include "gnnref/cuda.h"
#include "gnnref/graph.h"
#include "gnnref/oracle.h"
#include "gnnref/quant.h"
#include "gnnref/tensor.h"
#include "opt/cuda/scan_host.h"
#include "oracle_util.h"

/* ---- the emulator ---- */

typedef struct ring_args {
    int *out;
    int step; /* +1: read the next thread's slot, -1: the previous one */
    int barrier;
} ring_args;

enum { RING_T = 64 };

/* phase 0: slot[tid] = 10 tid + 1; then (phase 1 with a barrier, or phase 0 without one)
 * out = slot[(tid + step) mod T] */
static void ring_body(const gnn_kthread *t, int phase, void *shared, const void *args)
{
    const ring_args *a = args;
    int *slot = shared;
    const int tid = (int)t->thread.x;
    if (phase == 0)
        slot[tid] = 10 * tid + 1;
    if (phase == (a->barrier ? 1 : 0))
        a->out[tid] = slot[(tid + a->step + RING_T) % RING_T];
}

static int ring_wrong(int step, int barrier)
{
    int out[RING_T];
    ring_args a = { out, step, barrier };
    ck_assert_int_eq(gnn_emu_launch((gnn_kdim){ 1, 1, 1 }, (gnn_kdim){ RING_T, 1, 1 }, barrier ? 2 : 1,
                                    RING_T * sizeof(int), ring_body, &a),
                     0);
    int wrong = 0;
    for (int i = 0; i < RING_T; i++)
        wrong += out[i] != 10 * ((i + step + RING_T) % RING_T) + 1;
    return wrong;
}

START_TEST(emu_barrier)
{
    unsetenv("GNN_EMU_THREAD_ORDER");
    ck_assert_int_eq(ring_wrong(1, 1), 0);
    ck_assert_int_eq(ring_wrong(-1, 1), 0);
    setenv("GNN_EMU_THREAD_ORDER", "reverse", 1);
    ck_assert_int_eq(ring_wrong(1, 1), 0);
    ck_assert_int_eq(ring_wrong(-1, 1), 0);
    unsetenv("GNN_EMU_THREAD_ORDER");
}
END_TEST

START_TEST(emu_missing)
{
    unsetenv("GNN_EMU_THREAD_ORDER");
    /* in order, thread i reads thread i + 1's slot before it is written: every thread but the
     * last (which wraps to thread 0) reads the all-ones garbage */
    ck_assert_int_eq(ring_wrong(1, 0), RING_T - 1);
    ck_assert_int_eq(ring_wrong(-1, 0), 1); /* mostly hidden in this order (thread 0 wraps) ... */
    setenv("GNN_EMU_THREAD_ORDER", "reverse", 1);
    ck_assert_int_eq(ring_wrong(-1, 0), RING_T - 1); /* ... caught everywhere in the other */
    ck_assert_int_eq(ring_wrong(1, 0), 1);
    unsetenv("GNN_EMU_THREAD_ORDER");
}
END_TEST

typedef struct coord_args {
    int *seen; /* (blocks * threads * 3) counts per phase */
} coord_args;

static int coord_phases(const gnn_kthread *t, const void *args)
{
    (void)args;
    return 1 + (int)(t->block.x + t->block.y + t->block.z) % 3; /* 1..3 */
}

static void coord_body(const gnn_kthread *t, int phase, void *shared, const void *args)
{
    (void)shared;
    const coord_args *a = args;
    const unsigned b = t->block.x + t->grid_dim.x * (t->block.y + t->grid_dim.y * t->block.z);
    const unsigned th = t->thread.x + t->block_dim.x * (t->thread.y + t->block_dim.y * t->thread.z);
    const unsigned n_th = t->block_dim.x * t->block_dim.y * t->block_dim.z;
    a->seen[(b * n_th + th) * 3 + (unsigned)phase]++;
}

START_TEST(emu_coords)
{
    const gnn_kdim grid = { 3, 2, 2 }, block = { 4, 3, 2 };
    const int nb = 12, nt = 24;
    int *seen = calloc((size_t)(nb * nt * 3), sizeof(int));
    ck_assert_ptr_nonnull(seen);
    coord_args a = { seen };
    ck_assert_int_eq(gnn_emu_launch_blocks(grid, block, 0, coord_phases, coord_body, &a), 0);
    for (unsigned bz = 0; bz < 2; bz++)
        for (unsigned by = 0; by < 2; by++)
            for (unsigned bx = 0; bx < 3; bx++) {
                const int b = (int)(bx + 3 * (by + 2 * bz)), np = 1 + (int)(bx + by + bz) % 3;
                for (int th = 0; th < nt; th++)
                    for (int p = 0; p < 3; p++)
                        ck_assert_int_eq(seen[(b * nt + th) * 3 + p], p < np ? 1 : 0);
            }
    free(seen);
}
END_TEST

/* ---- scan and sort (emulator build of opt/cuda/scan_host.h) ---- */

START_TEST(scan_sort)
{
    static const int64_t sizes[] = { 1, 255, 256, 257, 70000 }; /* 70000: two levels of tiles */
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const int64_t n = sizes[k];
        int64_t *in = malloc((size_t)n * sizeof(int64_t)), *out = malloc((size_t)n * sizeof(int64_t));
        ck_assert(in && out);
        for (int64_t i = 0; i < n; i++)
            in[i] = (i * 7919) % 13 - 3;
        ck_assert_int_eq(gnn_k_scan(in, out, n), GNN_OK);
        int64_t run = 0;
        for (int64_t i = 0; i < n; i++) {
            ck_assert_msg(out[i] == run, "n %lld: out[%lld] = %lld, want %lld", (long long)n, (long long)i,
                          (long long)out[i], (long long)run);
            run += in[i];
        }
        /* in place */
        ck_assert_int_eq(gnn_k_scan(in, in, n), GNN_OK);
        ck_assert(memcmp(in, out, (size_t)n * sizeof(int64_t)) == 0);
        free(in);
        free(out);
    }
    /* stable sort of 3000 keys in [0, 70000) (three digit passes) with values = position */
    const int64_t n = 3000;
    int32_t *keys = malloc((size_t)n * sizeof(int32_t)), *keys2 = malloc((size_t)n * sizeof(int32_t)), *kr;
    int64_t *vals = malloc((size_t)n * sizeof(int64_t)), *vals2 = malloc((size_t)n * sizeof(int64_t)), *vr;
    ck_assert(keys && keys2 && vals && vals2);
    for (int64_t i = 0; i < n; i++) {
        keys[i] = (int32_t)((i * 2654435761u) % 70000u % (i % 3 ? 70000u : 40u)); /* many repeats */
        vals[i] = i;
    }
    ck_assert_int_eq(gnn_k_sort_pairs(keys, vals, keys2, vals2, n, 69999, &kr, &vr), GNN_OK);
    for (int64_t i = 1; i < n; i++) {
        ck_assert_msg(kr[i - 1] < kr[i] || (kr[i - 1] == kr[i] && vr[i - 1] < vr[i]), "not stable at %lld",
                      (long long)i);
    }
    free(keys);
    free(keys2);
    free(vals);
    free(vals2);
}
END_TEST

/* ---- availability ---- */

START_TEST(available)
{
    char why[256] = "";
    const int ok = gnn_cuda_available(why, sizeof why);
    ck_assert_msg(why[0] != '\0', "gnn_cuda_available gave no reason");
    ck_assert_int_eq(gnn_cuda_available(NULL, 0), ok); /* cached, NULL reason accepted */
    if (ok) {
        ck_assert_int_eq(gnn_cuda_built(), 1);
        return;
    }
    /* no GPU: every case of the `cuda` implementation is SKIP, with the reason */
    static const char *const entries[] = { "aggregate.mean.fwd", "aggregate.gcn.bwd", "aggregate.weighted.bwd",
                                           "quant.pack", "quant.unpack", NULL };
    for (int k = 0; entries[k]; k++) {
        const gnn_oracle_entry *e = gnn_oracle_find(entries[k]);
        ck_assert_ptr_nonnull(e);
        const gnn_oracle_impl *impl = gnn_oracle_find_impl(e, "cuda");
        ck_assert_msg(impl != NULL, "%s has no cuda implementation", entries[k]);
        tally t;
        run_with_impl(entries[k], impl, 0, 1, &t);
        ck_assert_int_eq(t.counts[GNN_ORACLE_FAIL], 0);
        ck_assert_int_eq(t.counts[GNN_ORACLE_PASS], 0);
        ck_assert_int_eq(t.counts[GNN_ORACLE_SKIP], gnn_oracle_n_presets(e));
    }
    /* the table itself refuses cleanly where it has no ops (a build without nvcc) */
    if (!gnn_cuda_built()) {
        gnn_block blk;
        memset(&blk, 0, sizeof blk);
        float x = 1.0f, out = 0.0f;
        int64_t ptr[1] = { 0 };
        blk.indptr = ptr;
        ck_assert_int_eq(gnn_aggregate_forward(&gnn_aggregate_cuda, &blk, &x, 1, GNN_AGG_SUM, &out),
                         GNN_ERR_UNSUPPORTED);
    }
}
END_TEST

/* ---- cuda-emu against ref ---- */

START_TEST(emu_vs_ref)
{
    /* 3 dst, 5 src; dst 0: edges from 1, 4, 1 (a repeat); dst 1: none; dst 2: 0, 2, 3, 4 */
    int64_t indptr[4] = { 0, 3, 3, 7 };
    int32_t indices[7] = { 1, 4, 1, 0, 2, 3, 4 };
    int64_t gid[5] = { 0, 1, 2, 3, 4 };
    gnn_block blk;
    memset(&blk, 0, sizeof blk);
    blk.n_dst = 3;
    blk.n_src = 5;
    blk.nnz = 7;
    blk.indptr = indptr;
    blk.indices = indices;
    blk.src_gid = gid;
    enum { D = 37 }; /* two feature tiles, the second partial */
    float x[5 * D], w[7], want[5 * D], got[5 * D], dw0[7], dw1[7];
    for (int i = 0; i < 5 * D; i++)
        x[i] = (float)((i * 37) % 101) / 7.0f - 6.0f;
    for (int e = 0; e < 7; e++)
        w[e] = 0.25f * (float)(e + 1) - 1.0f;
    /* mean forward by hand: dst 0 = (x1 + x4 + x1) * (1/3), dst 1 = 0 */
    ck_assert_int_eq(gnn_aggregate_forward(&gnn_aggregate_cuda_emu, &blk, x, D, GNN_AGG_MEAN, got), GNN_OK);
    for (int f = 0; f < D; f++) {
        const float s = x[1 * D + f] + x[4 * D + f] + x[1 * D + f];
        ck_assert(got[f] == s * (1.0f / 3.0f));
        ck_assert(got[D + f] == 0.0f);
    }
    for (int kind = GNN_AGG_MEAN; kind <= GNN_AGG_GCN; kind++) {
        memset(want, 0, sizeof want);
        memset(got, 0xff, sizeof got);
        ck_assert_int_eq(gnn_aggregate_forward(&gnn_aggregate_ref, &blk, x, D, (gnn_agg_kind)kind, want), GNN_OK);
        ck_assert_int_eq(gnn_aggregate_forward(&gnn_aggregate_cuda_emu, &blk, x, D, (gnn_agg_kind)kind, got), GNN_OK);
        ck_assert_msg(memcmp(want, got, 3 * D * sizeof(float)) == 0, "forward kind %d", kind);
        ck_assert_int_eq(gnn_aggregate_backward(&gnn_aggregate_ref, &blk, x, D, (gnn_agg_kind)kind, want), GNN_OK);
        ck_assert_int_eq(gnn_aggregate_backward(&gnn_aggregate_cuda_emu, &blk, x, D, (gnn_agg_kind)kind, got), GNN_OK);
        ck_assert_msg(memcmp(want, got, 5 * D * sizeof(float)) == 0, "backward kind %d", kind);
    }
    ck_assert_int_eq(gnn_aggregate_weighted_backward(&gnn_aggregate_ref, &blk, x, x, D, w, want, dw0), GNN_OK);
    ck_assert_int_eq(gnn_aggregate_weighted_backward(&gnn_aggregate_cuda_emu, &blk, x, x, D, w, got, dw1), GNN_OK);
    ck_assert(memcmp(want, got, 5 * D * sizeof(float)) == 0);
    ck_assert(memcmp(dw0, dw1, sizeof dw0) == 0);

    /* quant: int2 stochastic and int4 nearest of the same rows, bytes equal to ref's */
    for (int k = 0; k < 2; k++) {
        gnn_quant_cfg q;
        memset(&q, 0, sizeof q);
        q.bits = k ? 4 : 2;
        q.round = k ? GNN_QUANT_NEAREST : GNN_QUANT_STOCHASTIC;
        q.seed = 0x1234567890ull;
        q.step = 7;
        q.layer = 1;
        q.draw0 = 8;
        uint8_t d0[5 * 20], d1[5 * 20], p0[20], p1[20];
        memset(d1, 0xab, sizeof d1);
        ck_assert_int_eq(gnn_quant_pack(&gnn_quant_ref, x, 5, D, gid, &q, d0, p0), GNN_OK);
        ck_assert_int_eq(gnn_quant_pack(&gnn_quant_cuda_emu, x, 5, D, gid, &q, d1, p1), GNN_OK);
        const int64_t bytes = 5 * gnn_quant_data_bytes(D, q.bits);
        ck_assert(memcmp(d0, d1, (size_t)bytes) == 0);
        ck_assert(memcmp(p0, p1, sizeof p0) == 0);
        ck_assert_int_eq(gnn_quant_unpack(&gnn_quant_ref, d0, p0, 5, D, q.bits, want), GNN_OK);
        ck_assert_int_eq(gnn_quant_unpack(&gnn_quant_cuda_emu, d0, p0, 5, D, q.bits, got), GNN_OK);
        ck_assert(memcmp(want, got, 5 * D * sizeof(float)) == 0);
    }

    /* the oracle's presets, one seed each */
    static const char *const entries[] = { "aggregate.mean.fwd", "aggregate.sum.bwd", "aggregate.gcn.fwd",
                                           "aggregate.gcn.bwd", "aggregate.weighted.fwd", "aggregate.weighted.bwd",
                                           "quant.pack", "quant.unpack", NULL };
    for (int k = 0; entries[k]; k++) {
        const gnn_oracle_entry *e = gnn_oracle_find(entries[k]);
        ck_assert_ptr_nonnull(e);
        const gnn_oracle_impl *impl = gnn_oracle_find_impl(e, "cuda-emu");
        ck_assert_msg(impl != NULL, "%s has no cuda-emu implementation", entries[k]);
        tally t;
        run_with_impl(entries[k], impl, 0, 1, &t);
        ck_assert_msg(t.counts[GNN_ORACLE_FAIL] == 0, "%s: %s", entries[k], t.first_fail);
        ck_assert_int_eq(t.counts[GNN_ORACLE_PASS], gnn_oracle_n_presets(e));
    }
}
END_TEST

Suite *suite_cuda(void)
{
    Suite *s = suite_create("cuda");
    TCase *tc = tcase_create("cuda");
    tcase_set_tags(tc, "cpu");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, emu_barrier);
    tcase_add_test(tc, emu_missing);
    tcase_add_test(tc, emu_coords);
    tcase_add_test(tc, scan_sort);
    tcase_add_test(tc, available);
    tcase_add_test(tc, emu_vs_ref);
    suite_add_tcase(s, tc);
    return s;
}
