/* oracle/op_kvpush.c -- the oracle entry of the feature store's push: sparse embeddings with
 * sparse Adagrad or Adam (include/gnnref/kvstore.h, docs/embedding.md), SPMD under the
 * simulator at 1 to 8 ranks.
 *
 *   kvstore.push  every rank creates the store from the same table (the case's rows), then
 *     for `rounds` rounds pushes its own list of (id, gradient row) pairs (repeats, empty lists,
 *     ids of every owner) and pulls a list back; after each round every rank's stored rows and
 *     optimizer state must be BITWISE those of gnn_sparse_opt_step_ref run on one process over
 *     the whole table with the same lists, and each pull must return the updated rows (the
 *     read after a push is synchronous). The bytes each rank sent are checked against
 *     16 (P - 1) + (8 + 4 dim) per distinct id another rank owns.
 *
 * The implementation is the store itself (one protocol; it runs the cpu table's threads in its
 * update loop): the entry checks it at 1, 2 and 4 OpenMP threads per rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/kvstore.h"
#include "gnnref/oracle.h"
#include "gnnref/rng.h"
#include "gnnref/sim.h"
#include "gnnref/tensor.h"

#define MAX_RANKS 8
#define MAX_ROUNDS 4

enum { P_RANKS, P_N, P_DIM, P_M, P_OPT, P_ROUNDS, P_METHOD, N_PARAMS };
static const gnn_oracle_param k_params[N_PARAMS] = {
    { "ranks", GNN_PARAM_INT, 1, MAX_RANKS, "simulated ranks" },
    { "n", GNN_PARAM_INT, 1, 100000, "rows of the table (vertices)" },
    { "dim", GNN_PARAM_INT, 0, 256, "row width" },
    { "m", GNN_PARAM_INT, 0, 100000, "most ids one rank pushes per round (rank r pushes (m r) / P + r % 2, ids "
                                     "drawn with repeats)" },
    { "opt", GNN_PARAM_INT, 1, 2, "1 sparse Adagrad, 2 sparse Adam" },
    { "rounds", GNN_PARAM_INT, 1, MAX_ROUNDS, "pushes" },
    { "method", GNN_PARAM_INT, 0, 2, "owners: 0 random, 1 range, 2 all on rank 0" },
};

typedef struct job {
    int64_t n, dim, k;
    int32_t *owner;
    const float *table;              /* (n, dim) the initial rows */
    gnn_sparse_opt opt;
    int rounds;
    int64_t *ids[MAX_ROUNDS][MAX_RANKS], m[MAX_ROUNDS][MAX_RANKS];
    float *grads[MAX_ROUNDS][MAX_RANKS];
    float *rows[MAX_ROUNDS][MAX_RANKS];   /* each rank's stored rows after each round */
    float *s1[MAX_ROUNDS][MAX_RANKS], *s2[MAX_ROUNDS][MAX_RANKS];
    float *pulled[MAX_ROUNDS][MAX_RANKS]; /* the pull of the round's own ids after the push */
    int64_t n_local[MAX_RANKS], bytes[MAX_ROUNDS][MAX_RANKS];
} job;

static gnn_status rank_fn(gnn_comm *c, void *arg)
{
    job *J = arg;
    const int r = c->rank;
    gnn_kvstore kv;
    gnn_status st = gnn_kvstore_create_from_full(&kv, c, J->n, J->owner, J->dim, J->table, &c->err);
    if (st)
        return st;
    for (int t = 0; t < J->rounds && !st; t++) {
        if ((st = gnn_kvstore_push(&kv, J->ids[t][r], J->m[t][r], J->grads[t][r], &J->opt, &c->err)))
            break;
        J->bytes[t][r] = kv.push_last.bytes_sent;
        const size_t cells = (size_t)(kv.n_local * J->dim);
        memcpy(J->rows[t][r], kv.feat, cells * sizeof(float));
        memcpy(J->s1[t][r], kv.opt_s1, cells * sizeof(float));
        if (kv.opt_s2)
            memcpy(J->s2[t][r], kv.opt_s2, cells * sizeof(float));
        st = gnn_kvstore_pull(&kv, J->ids[t][r], J->m[t][r], J->pulled[t][r], &c->err);
    }
    gnn_kvstore_free(&kv);
    return st;
}

static gnn_oracle_outcome run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int64_t n = gnn_oracle_int(c, P_N), dim = gnn_oracle_int(c, P_DIM), k = gnn_oracle_int(c, P_RANKS);
    const int64_t mmax = gnn_oracle_int(c, P_M), method = gnn_oracle_int(c, P_METHOD);
    job *J = gnn_oracle_alloc(ctx, sizeof *J);
    float *table = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(n * dim + 1));
    float *w = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(n * dim + 1));
    float *s1 = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(n * dim + 1));
    float *s2 = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(n * dim + 1));
    int64_t *steps = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(n + 1));
    if (!J || !table || !w || !s1 || !s2 || !steps)
        return gnn_oracle_fail(ctx, "out of memory");
    memset(J, 0, sizeof *J);
    *J = (job){ .n = n, .dim = dim, .k = k, .table = table, .rounds = (int)gnn_oracle_int(c, P_ROUNDS) };
    if (!(J->owner = gnn_oracle_alloc(ctx, sizeof(int32_t) * (size_t)n)))
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws d = gnn_oracle_draws_make(c, 1);
    gnn_oracle_fill_spread(&d, table, n * dim);
    const gnn_rng_stream own = gnn_rng_stream_make(c->seed, GNN_TAG_ORACLE, 41, 0, 0);
    for (int64_t v = 0; v < n; v++)
        J->owner[v] = method == 2 ? 0 : method == 1 ? (int32_t)(v * k / n) : (int32_t)gnn_rng_uint(&own, (uint64_t)v, (uint64_t)k);
    for (int64_t v = 0; v < n; v++)
        J->n_local[J->owner[v]]++;
    gnn_sparse_opt_defaults(&J->opt, (gnn_sparse_opt_kind)gnn_oracle_int(c, P_OPT), 0.05f);
    for (int t = 0; t < J->rounds; t++)
        for (int64_t r = 0; r < k; r++) {
            const int64_t m = mmax * r / k + r % 2;
            const gnn_rng_stream s = gnn_rng_stream_make(c->seed, GNN_TAG_ORACLE, 42 + (uint32_t)t, 0, (uint64_t)r);
            J->m[t][r] = m;
            if (!(J->ids[t][r] = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(m + 1))) ||
                !(J->grads[t][r] = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(m * dim + 1))) ||
                !(J->pulled[t][r] = gnn_oracle_alloc_out(ctx, "pulled", sizeof(float) * (size_t)(m * dim))) ||
                !(J->rows[t][r] = gnn_oracle_alloc_out(ctx, "rows", sizeof(float) * (size_t)(J->n_local[r] * dim))) ||
                !(J->s1[t][r] = gnn_oracle_alloc_out(ctx, "s1", sizeof(float) * (size_t)(J->n_local[r] * dim))) ||
                !(J->s2[t][r] = gnn_oracle_alloc_out(ctx, "s2", sizeof(float) * (size_t)(J->n_local[r] * dim))))
                return gnn_oracle_fail(ctx, "out of memory");
            /* ids with repeats: a third of them from a small hot set every rank shares */
            for (int64_t i = 0; i < m; i++)
                J->ids[t][r][i] = (int64_t)gnn_rng_uint(&s, (uint64_t)i, (uint64_t)(i % 3 == 0 ? (n < 8 ? n : 8) : n));
            gnn_oracle_draws dg = gnn_oracle_draws_make(c, 2 + (uint32_t)(t * MAX_RANKS + r));
            gnn_oracle_fill_spread(&dg, J->grads[t][r], m * dim);
        }
    gnn_sim_config cfg;
    gnn_sim_defaults(&cfg);
    cfg.ranks = (int)k;
    cfg.timeout_s = 60;
    cfg.threads_per_rank = c->threads > 0 ? c->threads : 1;
    gnn_err err = { "" };
    const gnn_status st = gnn_sim_run(&cfg, rank_fn, J, NULL, &err);
    if (st)
        return gnn_oracle_fail(ctx, "simulated run on %lld ranks: %s (%s)", (long long)k, gnn_status_str(st), err.msg);
    /* the reference: one process, the whole table */
    memcpy(w, table, sizeof(float) * (size_t)(n * dim));
    memset(s1, 0, sizeof(float) * (size_t)(n * dim));
    memset(s2, 0, sizeof(float) * (size_t)(n * dim));
    memset(steps, 0, sizeof(int64_t) * (size_t)n);
    const int adam = J->opt.kind == GNN_SPARSE_ADAM;
    for (int t = 0; t < J->rounds; t++) {
        gnn_sparse_opt_step_ref(&J->opt, n, dim, w, s1, adam ? s2 : NULL, adam ? steps : NULL, (int)k,
                                (const int64_t *const *)J->ids[t], J->m[t], (const float *const *)J->grads[t]);
        for (int64_t r = 0; r < k; r++) {
            int64_t l = 0, distinct_remote = 0;
            for (int64_t v = 0; v < n; v++) {
                if (J->owner[v] != r)
                    continue;
                const size_t at = (size_t)(l * dim), from = (size_t)(v * dim), bytes = sizeof(float) * (size_t)dim;
                if (memcmp(J->rows[t][r] + at, w + from, bytes) || memcmp(J->s1[t][r] + at, s1 + from, bytes) ||
                    (adam && memcmp(J->s2[t][r] + at, s2 + from, bytes)))
                    return gnn_oracle_fail(ctx, "round %d, rank %lld, vertex %lld: the stored row or its optimizer "
                                                "state differs from the one-process sparse optimizer (bitwise)",
                                           t, (long long)r, (long long)v);
                l++;
            }
            for (int64_t i = 0; i < J->m[t][r]; i++)
                if (memcmp(J->pulled[t][r] + i * dim, w + J->ids[t][r][i] * dim, sizeof(float) * (size_t)dim))
                    return gnn_oracle_fail(ctx, "round %d, rank %lld: the pull after the push returned an old row for "
                                                "id %lld",
                                           t, (long long)r, (long long)J->ids[t][r][i]);
            /* bytes: header, then 8 + 4 dim per distinct id owned elsewhere */
            uint8_t *seen = gnn_oracle_alloc(ctx, (size_t)n + 1);
            if (!seen)
                return gnn_oracle_fail(ctx, "out of memory");
            for (int64_t i = 0; i < J->m[t][r]; i++) {
                const int64_t v = J->ids[t][r][i];
                if (!seen[v] && J->owner[v] != r)
                    distinct_remote++;
                seen[v] = 1;
            }
            const int64_t want = 16 * (k - 1) + distinct_remote * (8 + 4 * dim);
            if (J->bytes[t][r] != want)
                return gnn_oracle_fail(ctx, "round %d, rank %lld sent %lld bytes; expected %lld", t, (long long)r,
                                       (long long)J->bytes[t][r], (long long)want);
        }
    }
    gnn_oracle_digest(ctx, w, sizeof(float) * (size_t)(n * dim));
    gnn_oracle_note(ctx, "%lld ranks, %d rounds of %s", (long long)k, J->rounds, adam ? "sparse Adam" : "sparse Adagrad");
    return GNN_ORACLE_PASS;
}

/* one implementation, the store, whose update loop is threaded: run at 1, 2 and 4 threads */
static const gnn_oracle_impl k_store = { .name = "store", .ops = NULL, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_impls[] = { &k_store, NULL };

/* 1-5 and 8 ranks; Adagrad and Adam; dim 0, 1, widths that are not vector multiples and
 * past the threaded update's threshold; a rank with nothing (method 2: all on rank 0); empty
 * lists (m = 0, and rank 0 always pushes (m 0) / P = 0 ids) */
static const char *const k_presets[] = {
    "ranks=1,n=50,dim=7,m=40,opt=1,rounds=3,method=0",
    "ranks=2,n=100,dim=16,m=80,opt=2,rounds=3,method=0",
    "ranks=3,n=64,dim=5,m=120,opt=1,rounds=2,method=1",
    "ranks=4,n=300,dim=33,m=200,opt=2,rounds=3,method=0",
    "ranks=5,n=40,dim=1,m=60,opt=2,rounds=4,method=1",
    "ranks=8,n=200,dim=12,m=100,opt=1,rounds=2,method=0",
    "ranks=4,n=30,dim=0,m=20,opt=2,rounds=2,method=0",
    "ranks=3,n=60,dim=9,m=0,opt=1,rounds=2,method=0",
    "ranks=4,n=80,dim=6,m=50,opt=2,rounds=3,method=2",
    "ranks=2,n=4000,dim=64,m=3000,opt=2,rounds=2,method=0",
    NULL,
};

const gnn_oracle_entry gnn_oracle_kvstore_push = {
    .name = "kvstore.push",
    .what = "the feature store's push of sparse-embedding gradients under the simulator: every rank's rows and "
            "optimizer state after each round against a one-process sparse Adagrad/Adam fed the same lists; the "
            "pull after it; bytes",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "bitwise: repeats are summed in position order, ranks in rank order, one update per touched row, by "
              "the same row rule (kvstore.h); bytes exact",
    .params = k_params, .n_params = N_PARAMS, .presets = k_presets, .defaults = "rounds=2,method=0",
    .ref = &k_store, .impls = k_impls, .run = run,
};
