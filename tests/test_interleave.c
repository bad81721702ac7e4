/* tests/test_interleave.c -- every compare-and-swap loop of the library under every
 * interleaving of 2-3 threads (tests/interleave.h; docs/oracle.md, "Interleavings").
 *
 * This unit defines GNN_INTERLEAVE_HOOKS before it includes the lock-free headers, so its own
 * static inline copies of them switch threads at each GNN_INTERLEAVE_POINT()
 * (opt/cpu/interleave_point.h); the library's copies have no hook. Each scenario sets up a
 * small state by hand (an 8-slot table, one cell, one row word), runs the library's insert or
 * claim from every thread, and checks the final state against the sequential spec: what any
 * serial order of the same calls gives. The CUDA emulator's atomics and hash table are the
 * same in tests/interleave_emu.c (their names clash with the cpu map's).
 *
 * The mutants M03 and M64-M69 of ci/mutants.txt (one CAS attempt instead of a loop, a lost
 * claim not examined, a claim by check-then-store) each fail here in some schedule, every
 * run: a race two cores hit by chance, if ever, is one schedule out of a few dozen here. */
#define GNN_INTERLEAVE_HOOKS 1

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "interleave.h"
#include "opt/cpu/idmap_impl.h"
#include "opt/cpu/sample_wtable.h"

#define IL_BOUND 20000 /* schedules per scenario: every scenario here has fewer (asserted) */

/* Explore sc; fail the test with the first failing schedule. */
static void explore_ok(const gnn_il_scenario *sc)
{
    gnn_il_report rep;
    gnn_il_explore(sc, IL_BOUND, 1, &rep);
    ck_assert_msg(rep.failures == 0, "%ld of %ld schedules fail the spec; first: %s", rep.failures, rep.schedules,
                  rep.first);
    ck_assert_msg(rep.exhaustive, "%s: more than %d schedules: not all were run", sc->name, IL_BOUND);
    ck_assert_msg(rep.max_switches >= 2, "%s: at most %d switches: the hooks are not reached", sc->name,
                  rep.max_switches);
}

/* ---- the harness itself ------------------------------------------------------------------ */

typedef struct counting {
    int points;           /* per thread */
    int64_t word;         /* the lost-update scenario's counter */
    int atomic;           /* 1: fetch-and-add after the point; 0: load, point, store */
} counting;

static void counting_setup(void *arg) { ((counting *)arg)->word = 0; }
static void counting_body(void *arg, int t)
{
    (void)t;
    counting *c = arg;
    for (int i = 0; i < c->points; i++)
        gnn_interleave_point();
}
static int always_ok(void *arg, char *why, size_t cap) { return 0; }

static void increment_body(void *arg, int t)
{
    (void)t;
    counting *c = arg;
    for (int i = 0; i < c->points; i++) {
        if (c->atomic) {
            gnn_interleave_point();
            __atomic_fetch_add(&c->word, 1, __ATOMIC_RELAXED);
        } else {
            const int64_t v = __atomic_load_n(&c->word, __ATOMIC_RELAXED);
            gnn_interleave_point();
            __atomic_store_n(&c->word, v + 1, __ATOMIC_RELAXED);
        }
    }
}
static int increment_check(void *arg, char *why, size_t cap)
{
    const counting *c = arg;
    const int64_t want = (int64_t)c->points * 3;
    if (c->word != want) {
        snprintf(why, cap, "counter %lld, want %lld", (long long)c->word, (long long)want);
        return 1;
    }
    return 0;
}

/* The number of schedules is the multinomial count of interleavings of the threads' segments
 * (a thread with p points runs p + 1 segments): 2 threads x 2 points: 6! / (3! 3!) = 20;
 * 3 threads x 1 point: 6! / (2! 2! 2!) = 90; 3 x 2: 9! / (3!)^3 = 1680. */
START_TEST(harness_counts_every_schedule)
{
    static const struct {
        int threads, points;
        long want;
    } k[] = { { 1, 3, 1 }, { 2, 0, 2 }, { 2, 1, 6 }, { 2, 2, 20 }, { 3, 1, 90 }, { 3, 2, 1680 } };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        counting c = { .points = k[i].points };
        const gnn_il_scenario sc = { "counting", k[i].threads, counting_setup, counting_body, always_ok, &c };
        gnn_il_report rep;
        ck_assert_int_eq(gnn_il_explore(&sc, IL_BOUND, 1, &rep), 0);
        ck_assert_msg(rep.exhaustive && rep.schedules == k[i].want, "%d threads x %d points: %ld schedules, want %ld",
                      k[i].threads, k[i].points, rep.schedules, k[i].want);
        ck_assert_int_eq(rep.points, rep.schedules * k[i].threads * k[i].points);
    }
}
END_TEST

/* A load, a point, a store: lost updates in some schedules (not all: the serial ones are
 * right); the atomic add never loses one. Beyond the bound, keyed samples: the same seed
 * gives the same schedules. */
START_TEST(harness_finds_a_lost_update)
{
    counting c = { .points = 1, .atomic = 0 };
    const gnn_il_scenario sc = { "lost-update", 3, counting_setup, increment_body, increment_check, &c };
    gnn_il_report rep;
    gnn_il_explore(&sc, IL_BOUND, 1, &rep);
    ck_assert(rep.exhaustive);
    ck_assert_msg(rep.failures > 0 && rep.failures < rep.schedules, "%ld of %ld failed", rep.failures, rep.schedules);
    ck_assert_msg(strstr(rep.first, "counter") != NULL, "%s", rep.first);
    c.atomic = 1;
    ck_assert_int_eq(gnn_il_explore(&sc, IL_BOUND, 1, &rep), 0);
    ck_assert(rep.exhaustive);

    /* 3 threads x 6 points: 21! / (7!)^3 = 399,072,960 schedules: sampled */
    c.atomic = 0;
    c.points = 6;
    gnn_il_report a, b, other;
    gnn_il_explore(&sc, 300, 7, &a);
    gnn_il_explore(&sc, 300, 7, &b);
    gnn_il_explore(&sc, 300, 8, &other);
    ck_assert(!a.exhaustive);
    ck_assert_int_eq(a.schedules, 600); /* the enumerated prefix, then the samples */
    ck_assert_msg(a.failures > 0, "no lost update in 300 sampled schedules");
    ck_assert_int_eq(a.failures, b.failures);
    ck_assert_str_eq(a.first, b.first);
    ck_assert_int_eq(other.schedules, 600);
}
END_TEST

/* ---- the dense ID map's atomic min (opt/cpu/idmap_impl.h, gnn_atomic_min_i32) ----------------- */

typedef struct min_fix {
    int32_t cell;
    int32_t vals[3];
} min_fix;

static void min_setup(void *arg) { ((min_fix *)arg)->cell = GNN_IDMAP_NONE; }
static void min_body(void *arg, int t)
{
    min_fix *f = arg;
    gnn_atomic_min_i32(&f->cell, f->vals[t]);
}
static int min_check(void *arg, char *why, size_t cap)
{
    const min_fix *f = arg;
    const int32_t want = f->vals[0] < f->vals[1] ? (f->vals[0] < f->vals[2] ? f->vals[0] : f->vals[2])
                                                 : (f->vals[1] < f->vals[2] ? f->vals[1] : f->vals[2]);
    if (f->cell != want) {
        snprintf(why, cap, "cell %d after inserting %d, %d, %d: want the minimum %d", f->cell, f->vals[0], f->vals[1],
                 f->vals[2], want);
        return 1;
    }
    return 0;
}

START_TEST(dense_atomic_min)
{
    /* every order of arrival: the smallest first, last, in the middle */
    static const int32_t sets[][3] = { { 7, 5, 2 }, { 2, 5, 7 }, { 5, 2, 5 } };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        min_fix f;
        memcpy(f.vals, sets[i], sizeof f.vals);
        const gnn_il_scenario sc = { "dense-atomic-min", 3, min_setup, min_body, min_check, &f };
        explore_ok(&sc);
    }
}
END_TEST

/* ---- the ordered and fused hash maps (gnn_cpu_idmap_probe, _insert, _insert_dst) ------------ */

#define TAB 8 /* slots: the hash of opt/cpu/idmap_impl.h with mask 7 */
#define MAXI 8

typedef struct map_fix {
    gnn_cpu_idmap m;
    uint64_t tab[TAB];
    uint32_t slot[MAXI], uslot[MAXI];
    int64_t src_gid[MAXI];
    gnn_idmap_kind kind;
    int64_t dst[MAXI], n_dst;       /* inserted serially before the threads start */
    int64_t item[3][2], gid[3][2];  /* thread t's neighbor inserts (item < 0: none) */
} map_fix;

static void map_setup(void *arg)
{
    map_fix *f = arg;
    memset(&f->m, 0, sizeof f->m);
    memset(f->tab, 0, sizeof f->tab);
    memset(f->slot, 0xff, sizeof f->slot);
    memset(f->uslot, 0xff, sizeof f->uslot);
    memset(f->src_gid, 0xff, sizeof f->src_gid);
    f->m.kind = f->kind;
    f->m.n_vertices = (int64_t)1 << 20;
    f->m.tab = f->tab;
    f->m.cap = TAB;
    f->m.mask = TAB - 1;
    f->m.slot = f->slot;
    f->m.slot_cap = MAXI;
    f->m.uslot = f->uslot;
    f->m.src_gid = f->src_gid;
    f->m.n_dst = f->n_dst;
    f->m.counter = f->n_dst;
    for (int64_t i = 0; i < f->n_dst; i++) /* outside a schedule: the points do nothing */
        ck_assert_int_eq(gnn_cpu_idmap_insert_dst(&f->m, f->dst, i), 0);
}

static void map_body(void *arg, int t)
{
    map_fix *f = arg;
    for (int k = 0; k < 2; k++)
        if (f->item[t][k] >= 0)
            gnn_cpu_idmap_insert(&f->m, f->item[t][k], f->gid[t][k]);
}

/* Every item's gid, and the smallest item of each gid (the ORDERED value). */
static int64_t item_gid(const map_fix *f, int64_t it)
{
    if (it < f->n_dst)
        return f->dst[it];
    for (int t = 0; t < 3; t++)
        for (int k = 0; k < 2; k++)
            if (f->item[t][k] == it)
                return f->gid[t][k];
    return -1;
}

/* The spec of both hash kinds after all the inserts: every gid inserted is in exactly one slot;
 * every item's slot is its gid's; ORDERED: the value is the gid's smallest item; FUSED: a
 * dst keeps its index, the new gids hold n_dst .. n_dst + new - 1, each once, with
 * src_gid and uslot pointing back, and the counter past them. */
static int map_check(void *arg, char *why, size_t cap)
{
    const map_fix *f = arg;
    int64_t n_items = 0;
    for (int64_t it = 0; it < MAXI; it++)
        if (item_gid(f, it) >= 0)
            n_items = it + 1;
    int64_t seen_val[MAXI * 2] = { 0 };
    int64_t n_new = 0;
    for (int64_t it = 0; it < n_items; it++) {
        const int64_t g = item_gid(f, it);
        if (g < 0)
            continue;
        int found = 0, at = -1;
        for (int s = 0; s < TAB; s++)
            if (f->tab[s] && (int64_t)(f->tab[s] >> 31) == g + 1) {
                found++;
                at = s;
            }
        if (found != 1) {
            snprintf(why, cap, "gid %lld (item %lld) is in %d slots, want 1", (long long)g, (long long)it, found);
            return 1;
        }
        if ((int64_t)f->slot[it] != at) {
            snprintf(why, cap, "item %lld: slot %u, but its gid %lld is in slot %d", (long long)it, f->slot[it],
                     (long long)g, at);
            return 1;
        }
        const int64_t val = gnn_cpu_idmap_val(f->tab[at]);
        int64_t first = it;
        for (int64_t j = 0; j < it; j++)
            if (item_gid(f, j) == g) {
                first = j;
                break;
            }
        if (f->kind == GNN_IDMAP_ORDERED) {
            if (val != first) {
                snprintf(why, cap, "gid %lld holds item %lld, want its first item %lld", (long long)g, (long long)val,
                         (long long)first);
                return 1;
            }
        } else if (first < f->n_dst) {
            if (val != first) {
                snprintf(why, cap, "dst gid %lld holds %lld, want its index %lld", (long long)g, (long long)val,
                         (long long)first);
                return 1;
            }
        } else if (first == it) { /* a new vertex: check its id once */
            n_new++;
            if (val < f->n_dst || val >= (int64_t)(sizeof seen_val / sizeof seen_val[0]) || seen_val[val]++) {
                snprintf(why, cap, "new gid %lld holds local id %lld: out of range or given twice", (long long)g,
                         (long long)val);
                return 1;
            }
            if (f->src_gid[val] != g || (int64_t)f->uslot[val] != at) {
                snprintf(why, cap, "local id %lld: src_gid %lld, uslot %u; want %lld, %d", (long long)val,
                         (long long)f->src_gid[val], f->uslot[val], (long long)g, at);
                return 1;
            }
        }
    }
    if (f->kind == GNN_IDMAP_FUSED) {
        for (int64_t v = f->n_dst; v < f->n_dst + n_new; v++)
            if (!seen_val[v]) {
                snprintf(why, cap, "local id %lld was not given to any of the %lld new gids", (long long)v,
                         (long long)n_new);
                return 1;
            }
        if (f->m.counter != f->n_dst + n_new) {
            snprintf(why, cap, "counter %lld after %lld new gids, want %lld", (long long)f->m.counter, (long long)n_new,
                     (long long)(f->n_dst + n_new));
            return 1;
        }
    }
    int used = 0;
    for (int s = 0; s < TAB; s++)
        used += f->tab[s] != 0;
    int64_t distinct = 0;
    for (int64_t it = 0; it < n_items; it++) {
        int dup = 0;
        for (int64_t j = 0; j < it; j++)
            dup |= item_gid(f, j) == item_gid(f, it);
        distinct += !dup;
    }
    if (used != distinct) {
        snprintf(why, cap, "%d slots used for %lld gids", used, (long long)distinct);
        return 1;
    }
    return 0;
}

/* gids whose home slot (mask 7) is the same: the claims of different keys collide */
static void colliding_gids(int64_t *g, int n)
{
    const uint64_t home = gnn_cpu_idmap_hash(100, TAB - 1);
    int k = 0;
    for (int64_t v = 100; k < n; v++)
        if (gnn_cpu_idmap_hash(v, TAB - 1) == home)
            g[k++] = v;
}

static void map_fix_init(map_fix *f, gnn_idmap_kind kind)
{
    memset(f, 0, sizeof *f);
    f->kind = kind;
    for (int t = 0; t < 3; t++)
        f->item[t][0] = f->item[t][1] = -1;
}

/* the same gid from three threads, items 3, 2, 1 in thread order, after a dst whose gid holds
 * their home slot: the claim of an empty slot and the atomic min on the word, with retries
 * (M03, M65) */
static void same_gid(map_fix *f, gnn_idmap_kind kind)
{
    map_fix_init(f, kind);
    int64_t g[2];
    colliding_gids(g, 2);
    f->dst[0] = g[1];
    f->n_dst = 1;
    const int64_t items[3] = { 3, 2, 1 }; /* the smallest last in thread order */
    for (int t = 0; t < 3; t++) {
        f->item[t][0] = items[t];
        f->gid[t][0] = g[0];
    }
}

/* two new gids with the dst's home slot, one of them from two threads (the later item first),
 * and the dst's gid: claims of different keys collide and probe on, a claim of the same key is
 * lost and examined, the dst's key is found (threads: 1, 2 and 1 inserts) */
static void colliding(map_fix *f, gnn_idmap_kind kind)
{
    map_fix_init(f, kind);
    int64_t g[4];
    colliding_gids(g, 4);
    f->dst[0] = g[3];
    f->n_dst = 1;
    f->item[0][0] = 3, f->gid[0][0] = g[0];
    f->item[1][0] = 2, f->gid[1][0] = g[1];
    f->item[1][1] = 4, f->gid[1][1] = g[3];
    f->item[2][0] = 1, f->gid[2][0] = g[0];
}

START_TEST(ordered_map_atomic_min_and_claim)
{
    map_fix f;
    same_gid(&f, GNN_IDMAP_ORDERED);
    const gnn_il_scenario sc = { "ordered-same-gid", 3, map_setup, map_body, map_check, &f };
    explore_ok(&sc);
    colliding(&f, GNN_IDMAP_ORDERED);
    const gnn_il_scenario sc2 = { "ordered-colliding", 3, map_setup, map_body, map_check, &f };
    explore_ok(&sc2);
}
END_TEST

START_TEST(fused_map_claim_and_counter)
{
    map_fix f;
    same_gid(&f, GNN_IDMAP_FUSED);
    const gnn_il_scenario sc = { "fused-same-gid", 3, map_setup, map_body, map_check, &f };
    explore_ok(&sc);
    colliding(&f, GNN_IDMAP_FUSED);
    const gnn_il_scenario sc2 = { "fused-colliding", 3, map_setup, map_body, map_check, &f };
    explore_ok(&sc2);
}
END_TEST

/* ---- the weighted table's build claim (opt/cpu/sample_wtable.h, gnn_wtable_claim_row) ------- */

typedef struct claim_fix {
    int64_t cell;
    int64_t row[2];      /* "checkpoints": built in two steps, with a point between */
    int mine, ready, busy, torn;
} claim_fix;

#define ROW_OFFSET 40 /* where the row's checkpoints start: kept through every state */

static void claim_setup(void *arg)
{
    claim_fix *f = arg;
    memset(f, 0, sizeof *f);
    f->cell = ROW_OFFSET;
}

/* what gnn_wtable_checkpoints_row does with the claim, the build standing for the real one */
static void claim_body(void *arg, int t)
{
    claim_fix *f = arg;
    int64_t e;
    switch (gnn_wtable_claim_row(&f->cell, &e)) {
    case GNN_WT_CLAIM_MINE:
        f->mine++;
        f->row[0] = 11;
        gnn_interleave_point();
        f->row[1] = 22;
        gnn_interleave_point();
        gnn_wtable_publish_row(&f->cell, e);
        break;
    case GNN_WT_CLAIM_READY:
        f->ready++;
        f->torn |= (e & GNN_WT_OFFSET) != ROW_OFFSET || f->row[0] != 11 || f->row[1] != 22;
        break;
    case GNN_WT_CLAIM_BUSY:
        f->busy++; /* the caller builds its own sums in scratch */
        break;
    default:
        f->torn = 1; /* a long row never says short */
        break;
    }
}

static int claim_check(void *arg, char *why, size_t cap)
{
    const claim_fix *f = arg;
    if (f->mine != 1) {
        snprintf(why, cap, "%d threads built the row, want exactly 1", f->mine);
        return 1;
    }
    if (f->torn) {
        snprintf(why, cap, "a thread read the row before its build was published");
        return 1;
    }
    if (f->cell != (ROW_OFFSET | GNN_WT_READY)) {
        snprintf(why, cap, "the row's word is %llx, want ready at offset %d", (unsigned long long)f->cell, ROW_OFFSET);
        return 1;
    }
    if (f->mine + f->ready + f->busy != 3) {
        snprintf(why, cap, "%d claims answered, want 3", f->mine + f->ready + f->busy);
        return 1;
    }
    return 0;
}

START_TEST(weighted_table_build_claim)
{
    claim_fix f;
    const gnn_il_scenario sc = { "wtable-claim", 3, claim_setup, claim_body, claim_check, &f };
    explore_ok(&sc);
    /* a short row says so in every schedule, and nobody builds */
    f.cell = -1;
    int64_t e;
    ck_assert_int_eq(gnn_wtable_claim_row(&f.cell, &e), GNN_WT_CLAIM_SHORT);
}
END_TEST

/* ---- the CUDA emulator's atomics and hash table (tests/interleave_emu.c) --------------------- */

extern const gnn_il_scenario *const gnn_il_emu_scenarios[];

START_TEST(cuda_emulator_atomics_and_map)
{
    int n = 0;
    for (const gnn_il_scenario *const *sc = gnn_il_emu_scenarios; *sc; sc++, n++)
        explore_ok(*sc);
    ck_assert_int_ge(n, 5);
}
END_TEST

Suite *suite_interleave(void)
{
    Suite *s = suite_create("interleave");
    TCase *tc = tcase_create("interleave");
    tcase_set_tags(tc, "interleave");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, harness_counts_every_schedule);
    tcase_add_test(tc, harness_finds_a_lost_update);
    tcase_add_test(tc, dense_atomic_min);
    tcase_add_test(tc, ordered_map_atomic_min_and_claim);
    tcase_add_test(tc, fused_map_claim_and_counter);
    tcase_add_test(tc, weighted_table_build_claim);
    tcase_add_test(tc, cuda_emulator_atomics_and_map);
    suite_add_tcase(s, tc);
    return s;
}
