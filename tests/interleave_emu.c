/* tests/interleave_emu.c -- the CUDA emulator's lock-free code under every interleaving of
 * three threads (tests/interleave.h; the suite is tests/test_interleave.c, which runs the
 * scenarios listed in gnn_il_emu_scenarios). A unit of its own: opt/cuda/emu.h's atomics
 * have the names of the cpu map's (opt/cpu/idmap_impl.h).
 *
 * With GNN_INTERLEAVE_HOOKS defined, this unit's copies of opt/cuda/emu.h and
 * opt/cuda/idmap_body.h switch threads at each GNN_INTERLEAVE_POINT(): the atomic min's CAS
 * windows and the hash table's claim (the same bodies run by the `cuda-emu` implementations,
 * and compiled by nvcc without the hook). */
#define GNN_INTERLEAVE_HOOKS 1

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "interleave.h"
#include "opt/cuda/emu.h"
#include "opt/cuda/idmap_body.h"

/* ---- atomic min, 32 and 64 bits: the final cell is the minimum, every old value returned
 * was the cell's at some point (the initial value or a value inserted) -------------------- */

typedef struct emu_min_fix {
    int wide;
    int32_t c32;
    int64_t c64;
    int64_t vals[3], old[3];
} emu_min_fix;

#define EMU_MIN_INIT 1000

static void emu_min_setup(void *arg)
{
    emu_min_fix *f = arg;
    f->c32 = EMU_MIN_INIT;
    f->c64 = (int64_t)EMU_MIN_INIT << 33; /* above 32 bits: the 64-bit path, not a truncation */
}

static void emu_min_body(void *arg, int t)
{
    emu_min_fix *f = arg;
    if (f->wide)
        f->old[t] = gnn_atomic_min_i64(&f->c64, f->vals[t] << 33);
    else
        f->old[t] = gnn_atomic_min_i32(&f->c32, (int32_t)f->vals[t]);
}

static int emu_min_check(void *arg, char *why, size_t cap)
{
    const emu_min_fix *f = arg;
    int64_t want = EMU_MIN_INIT;
    for (int t = 0; t < 3; t++)
        want = f->vals[t] < want ? f->vals[t] : want;
    const int64_t got = f->wide ? f->c64 >> 33 : f->c32;
    if (got != want) {
        snprintf(why, cap, "%d-bit cell %lld after inserting %lld, %lld, %lld: want the minimum %lld",
                 f->wide ? 64 : 32, (long long)got, (long long)f->vals[0], (long long)f->vals[1],
                 (long long)f->vals[2], (long long)want);
        return 1;
    }
    for (int t = 0; t < 3; t++) {
        const int64_t old = f->wide ? f->old[t] >> 33 : f->old[t];
        if (old != EMU_MIN_INIT && old != f->vals[0] && old != f->vals[1] && old != f->vals[2]) {
            snprintf(why, cap, "thread %d's atomic min returned %lld, never the cell's value", t, (long long)old);
            return 1;
        }
        if (old < f->vals[t] && old < want) {
            snprintf(why, cap, "thread %d's atomic min returned %lld, below the minimum", t, (long long)old);
            return 1;
        }
    }
    return 0;
}

static emu_min_fix g_min32 = { 0, 0, 0, { 7, 5, 2 }, { 0 } };
static emu_min_fix g_min64 = { 1, 0, 0, { 7, 5, 2 }, { 0 } };
static const gnn_il_scenario g_sc_min32 = { "emu-atomic-min-i32", 3, emu_min_setup, emu_min_body, emu_min_check,
                                            &g_min32 };
static const gnn_il_scenario g_sc_min64 = { "emu-atomic-min-i64", 3, emu_min_setup, emu_min_body, emu_min_check,
                                            &g_min64 };

/* ---- the hash table (gnn_kmap_find_or_claim, _insert_ordered, _insert_fused) ------------------ */

#define KTAB 8
#define KMAXI 8

typedef struct kmap_fix {
    int fused, same;
    int64_t key[KTAB], val[KTAB], slot[KMAXI], counter, src_gid[KMAXI + KTAB];
    int32_t err;
    gnn_kmap_dev m;
    int64_t dst[2], n_dst;
    int64_t item[3][2], gid[3][2]; /* thread t's neighbor inserts (item < 0: none) */
} kmap_fix;

static void kmap_setup(void *arg)
{
    kmap_fix *f = arg;
    for (int s = 0; s < KTAB; s++) {
        f->key[s] = -1;
        f->val[s] = f->fused ? -1 : GNN_KMAP_FIRST_NONE;
    }
    memset(f->slot, 0xff, sizeof f->slot);
    memset(f->src_gid, 0xff, sizeof f->src_gid);
    f->err = 0;
    f->counter = f->n_dst;
    f->m = (gnn_kmap_dev){ f->key, f->val, f->slot, &f->counter, &f->err, KTAB - 1 };
    for (int64_t i = 0; i < f->n_dst; i++) { /* the dst kernels, before the neighbors' */
        if (f->fused) {
            int claimed;
            const uint64_t h = gnn_kmap_find_or_claim(&f->m, f->dst[i], &claimed);
            f->slot[i] = (int64_t)h;
            f->val[h] = i;
            f->src_gid[i] = f->dst[i];
        } else {
            gnn_kmap_insert_ordered(&f->m, i, f->dst[i]);
        }
    }
}

static void kmap_body(void *arg, int t)
{
    kmap_fix *f = arg;
    for (int k = 0; k < 2; k++) {
        if (f->item[t][k] < 0)
            continue;
        if (f->fused)
            gnn_kmap_insert_fused(&f->m, f->item[t][k], f->gid[t][k], f->src_gid);
        else
            gnn_kmap_insert_ordered(&f->m, f->item[t][k], f->gid[t][k]);
    }
}

static int64_t kitem_gid(const kmap_fix *f, int64_t it)
{
    if (it < f->n_dst)
        return f->dst[it];
    for (int t = 0; t < 3; t++)
        for (int k = 0; k < 2; k++)
            if (f->item[t][k] == it)
                return f->gid[t][k];
    return -1;
}

/* the spec: each gid in exactly one slot, every item's slot its gid's; ORDERED: val = the first
 * item; FUSED: a dst keeps its index, the new gids hold n_dst .. n_dst + new - 1 once each,
 * src_gid points back, the counter is past them */
static int kmap_check(void *arg, char *why, size_t cap)
{
    const kmap_fix *f = arg;
    int seen[KMAXI + KTAB] = { 0 };
    int64_t n_new = 0, distinct = 0;
    for (int64_t it = 0; it < KMAXI; it++) {
        const int64_t g = kitem_gid(f, it);
        if (g < 0)
            continue;
        int found = 0, at = -1;
        for (int s = 0; s < KTAB; s++)
            if (f->key[s] == g) {
                found++;
                at = s;
            }
        if (found != 1) {
            snprintf(why, cap, "gid %lld (item %lld) is in %d slots, want 1", (long long)g, (long long)it, found);
            return 1;
        }
        if (f->slot[it] != at) {
            snprintf(why, cap, "item %lld: slot %lld, but its gid %lld is in slot %d", (long long)it,
                     (long long)f->slot[it], (long long)g, at);
            return 1;
        }
        int64_t first = it;
        for (int64_t j = 0; j < it; j++)
            if (kitem_gid(f, j) == g) {
                first = j;
                break;
            }
        distinct += first == it;
        const int64_t val = f->val[at];
        if (!f->fused || first < f->n_dst) {
            if (val != first) {
                snprintf(why, cap, "gid %lld holds %lld, want %lld", (long long)g, (long long)val, (long long)first);
                return 1;
            }
        } else if (first == it) {
            n_new++;
            if (val < f->n_dst || val >= KMAXI + KTAB || seen[val]++ || f->src_gid[val] != g) {
                snprintf(why, cap, "new gid %lld holds local id %lld: out of range, given twice, or src_gid wrong",
                         (long long)g, (long long)val);
                return 1;
            }
        }
    }
    int used = 0;
    for (int s = 0; s < KTAB; s++)
        used += f->key[s] != -1;
    if (used != distinct) {
        snprintf(why, cap, "%d slots used for %lld gids", used, (long long)distinct);
        return 1;
    }
    if (f->fused && f->counter != f->n_dst + n_new) {
        snprintf(why, cap, "counter %lld after %lld new gids, want %lld", (long long)f->counter, (long long)n_new,
                 (long long)(f->n_dst + n_new));
        return 1;
    }
    if (f->err) {
        snprintf(why, cap, "err set without a repeated dst");
        return 1;
    }
    return 0;
}

/* gids with one home slot (mask 7) */
static void kcolliding(int64_t *g, int n)
{
    const uint64_t home = gnn_kmap_hash(100, KTAB - 1);
    int k = 0;
    for (int64_t v = 100; k < n; v++)
        if (gnn_kmap_hash(v, KTAB - 1) == home)
            g[k++] = v;
}

/* The inserts: the same gid from three threads (items 3, 2, 1) after a dst holding their home
 * slot; or two new gids with the dst's home slot, one from two threads, and the dst's gid (as
 * the cpu scenarios of tests/test_interleave.c) */
static void kmap_inserts(kmap_fix *f)
{
    for (int t = 0; t < 3; t++)
        f->item[t][0] = f->item[t][1] = -1;
    int64_t g[4];
    kcolliding(g, 4);
    f->n_dst = 1;
    if (f->same) {
        f->dst[0] = g[1];
        for (int t = 0; t < 3; t++) {
            f->item[t][0] = 3 - t;
            f->gid[t][0] = g[0];
        }
    } else {
        f->dst[0] = g[3];
        f->item[0][0] = 3, f->gid[0][0] = g[0];
        f->item[1][0] = 2, f->gid[1][0] = g[1];
    f->item[1][1] = 4, f->gid[1][1] = g[3];
        f->item[1][1] = 4, f->gid[1][1] = g[3];
        f->item[2][0] = 1, f->gid[2][0] = g[0];
    }
}

static void kmap_setup_all(void *arg)
{
    kmap_inserts(arg);
    kmap_setup(arg);
}

static kmap_fix g_kmap[4] = { { .fused = 0, .same = 1 }, { .fused = 0, .same = 0 }, { .fused = 1, .same = 1 },
                              { .fused = 1, .same = 0 } };

static const gnn_il_scenario g_sc_kmap[4] = {
    { "emu-map-ordered-same-gid", 3, kmap_setup_all, kmap_body, kmap_check, &g_kmap[0] },
    { "emu-map-ordered-colliding", 3, kmap_setup_all, kmap_body, kmap_check, &g_kmap[1] },
    { "emu-map-fused-same-gid", 3, kmap_setup_all, kmap_body, kmap_check, &g_kmap[2] },
    { "emu-map-fused-colliding", 3, kmap_setup_all, kmap_body, kmap_check, &g_kmap[3] },
};

const gnn_il_scenario *const gnn_il_emu_scenarios[] = {
    &g_sc_min32, &g_sc_min64, &g_sc_kmap[0], &g_sc_kmap[1], &g_sc_kmap[2], &g_sc_kmap[3], NULL,
};
