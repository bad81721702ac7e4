/* oracle/op_halo.c -- oracle entries for db_halo (include/gnnref/halo.h, DistGNN-MB Algorithm 1)
 * and the hybrid-partitioning feature store (include/gnnref/kvstore.h), both run SPMD under the
 * simulator (gnn_sim_run) at 1 to 8 ranks (5 ranks on purpose: more ranks than this machine's
 * cores).
 *
 *   partition.db_halo  bitwise: on every rank, the implementation's table (cpu at 1, 2 and 4
 *                      OpenMP threads per rank) against the reference's (gnn_db_halo_ref), both
 *                      built in the same simulated run from the partition of a case graph; then both
 *                      tables through gnn_db_halo_verify, a different algorithm (it reads the
 *                      other parts' local edges, not halo lists). The detail notes the bytes
 *                      each rank sent for ref (allgatherv) and for the implementation.
 *   kvstore.pull       bitwise: every rank creates the store from the full feature matrix and
 *                      pulls a random id list (repeats, ids it owns itself, empty lists on
 *                      some ranks) twice; the rows must be exactly those of the unpartitioned
 *                      matrix; the counters must add up (local + remote = requested; bytes =
 *                      8 per remote id, 4 dim per remote row; rows served = rows fetched over
 *                      all ranks) and equal the simulator's alltoallv accounting.
 *
 * Inputs: R-MAT (gen=0) or a 4-class SBM (gen=1) of 2^scale vertices from the case seed; the
 * part vector by gnn_partition_assign with k = ranks and the method (0 random, 1 range, 2 hash,
 * 3 metis). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/halo.h"
#include "gnnref/kvstore.h"
#include "gnnref/oracle.h"
#include "gnnref/partition.h"
#include "gnnref/sim.h"
#include "gnnref/tensor.h"

/* ---- the property checker ------------------------------------------------------------------------ */

gnn_status gnn_db_halo_verify(const gnn_partition *full, int64_t rank, const gnn_db_halo *t, gnn_err *err)
{
    if (!full || !t || rank < 0 || rank >= full->k)
        return gnn_err_set(err, GNN_ERR_INVAL, "db_halo verify: rank %lld outside the partition's %lld parts",
                           (long long)rank, full ? (long long)full->k : 0LL);
    const int64_t K = full->k, n = full->n;
    const gnn_part_local *me = &full->parts[rank];
    if (t->ranks != K || !t->off)
        return gnn_err_set(err, GNN_ERR_MISMATCH, "db_halo: %lld ranks, the partition has %lld parts", (long long)t->ranks,
                           (long long)K);
    if (t->off[0] != 0)
        return gnn_err_set(err, GNN_ERR_MISMATCH, "db_halo: off[0] = %lld", (long long)t->off[0]);
    for (int64_t r = 0; r < K; r++)
        if (t->off[r + 1] < t->off[r])
            return gnn_err_set(err, GNN_ERR_MISMATCH, "db_halo: off decreases at rank %lld", (long long)r);
    if (t->off[rank + 1] != t->off[rank])
        return gnn_err_set(err, GNN_ERR_MISMATCH, "db_halo of rank %lld lists %lld vertices to itself", (long long)rank,
                           (long long)(t->off[rank + 1] - t->off[rank]));
    char *mark = gnn_malloc((size_t)(n > 0 ? n : 1));
    if (!mark)
        return gnn_err_set(err, GNN_ERR_NOMEM, "db_halo verify: out of memory");
    gnn_status s = GNN_OK;
    for (int64_t r = 0; r < K && !s; r++) {
        /* mark the global sources of r's local edges that `rank` owns */
        memset(mark, 0, (size_t)n);
        const gnn_part_local *R = &full->parts[r];
        if (r != rank)
            for (int64_t e = 0; e < R->graph.nnz; e++) {
                const int64_t u = R->vid_o[R->graph.indices[e]];
                if (full->part[u] == rank)
                    mark[u] = 1;
            }
        /* the expected row: rank's solid vertices with a mark, by local id */
        int64_t at = t->off[r];
        for (int64_t l = 0; l < me->n_solid; l++) {
            if (!mark[me->vid_o[l]])
                continue;
            if (at == t->off[r + 1]) {
                s = gnn_err_set(err, GNN_ERR_MISMATCH,
                                "db_halo of rank %lld, row %lld: solid %lld (vertex %lld) is a halo there but missing",
                                (long long)rank, (long long)r, (long long)l, (long long)me->vid_o[l]);
                break;
            }
            if (t->solid[at] != l) {
                s = gnn_err_set(err, GNN_ERR_MISMATCH,
                                "db_halo of rank %lld, row %lld, entry %lld: %lld, expected solid %lld (vertex %lld)",
                                (long long)rank, (long long)r, (long long)(at - t->off[r]), (long long)t->solid[at],
                                (long long)l, (long long)me->vid_o[l]);
                break;
            }
            at++;
        }
        if (!s && at != t->off[r + 1])
            s = gnn_err_set(err, GNN_ERR_MISMATCH,
                            "db_halo of rank %lld, row %lld: entry %lld (%lld) is not a halo of rank %lld",
                            (long long)rank, (long long)r, (long long)(at - t->off[r]), (long long)t->solid[at],
                            (long long)r);
    }
    gnn_free(mark);
    return s;
}

/* ---- shared case inputs ------------------------------------------------------------------------------ */

enum { H_GEN, H_SCALE, H_EF, H_RANKS, H_METHOD, H_DIM, H_M, N_H_PARAMS };
static const gnn_oracle_param k_h_params[N_H_PARAMS] = {
    { "gen", GNN_PARAM_INT, 0, 1, "graph: 0 R-MAT (Graph500), 1 SBM (4 classes)" },
    { "scale", GNN_PARAM_INT, 0, 16, "2^scale vertices" },
    { "ef", GNN_PARAM_INT, 1, 64, "edge factor (R-MAT) or average degree (SBM)" },
    { "ranks", GNN_PARAM_INT, 1, 8, "simulated ranks = parts" },
    { "method", GNN_PARAM_INT, 0, 3, "part vector: 0 random, 1 range, 2 hash, 3 metis" },
    { "dim", GNN_PARAM_INT, 0, 256, "kvstore: feature width" },
    { "m", GNN_PARAM_INT, 0, 100000, "kvstore: most ids one rank pulls" },
};

static void free_partition(void *p) { gnn_partition_free(p); }

typedef struct halo_input {
    const gnn_csr *g;
    int32_t *part;
    int64_t k;
} halo_input;

static gnn_oracle_outcome make_input(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, halo_input *in)
{
    const int gen = (int)gnn_oracle_int(c, H_GEN), scale = (int)gnn_oracle_int(c, H_SCALE);
    const gnn_oracle_outcome o =
        gnn_oracle_case_graph(ctx, gen, scale, gnn_oracle_int(c, H_EF), c->seed * 0x9E3779B97F4A7C15ull + 41, &in->g);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t n = in->g->n;
    in->k = gnn_oracle_int(c, H_RANKS);
    if (in->k > n)
        return gnn_oracle_fail(ctx, "invalid case: ranks=%lld > %lld vertices", (long long)in->k, (long long)n);
    in->part = gnn_oracle_alloc(ctx, ((size_t)n + 1) * sizeof(int32_t));
    if (!in->part)
        return gnn_oracle_fail(ctx, "out of memory");
    static const gnn_part_method methods[4] = { GNN_PART_RANDOM, GNN_PART_RANGE, GNN_PART_HASH, GNN_PART_METIS };
    gnn_part_options po;
    gnn_part_defaults(&po);
    po.method = methods[gnn_oracle_int(c, H_METHOD)];
    po.k = in->k;
    po.seed = c->seed;
    gnn_err err = { "" };
    const gnn_status st = gnn_partition_assign(in->g, NULL, &po, in->part, NULL, &err);
    if (st)
        return gnn_oracle_fail(ctx, "gnn_partition_assign (%s, k = %lld): %s (%s)", gnn_part_method_name(po.method),
                               (long long)in->k, gnn_status_str(st), err.msg);
    return GNN_ORACLE_PASS;
}

static int64_t bytes_sent(const gnn_comm *c)
{
    int64_t b = 0;
    for (size_t i = 0; i < (size_t)GNN_COMM_OP_COUNT * (size_t)c->size; i++)
        b += c->traffic.bytes[i];
    return b;
}

static gnn_sim_config sim_config(const gnn_oracle_case *c, int P)
{
    gnn_sim_config cfg;
    gnn_sim_defaults(&cfg);
    cfg.ranks = P;
    cfg.timeout_s = 60;
    cfg.threads_per_rank = c->threads > 0 ? c->threads : 1;
    return cfg;
}

/* ---- partition.db_halo ---------------------------------------------------------------------------- */

#define MAX_RANKS 8

typedef struct db_job {
    const gnn_partition *full;
    const gnn_db_halo_ops *ref, *impl;
    gnn_db_halo want[MAX_RANKS], got[MAX_RANKS];
    int64_t bytes_ref[MAX_RANKS], bytes_impl[MAX_RANKS];
} db_job;

static void free_db_job(void *p)
{
    db_job *J = p;
    for (int r = 0; r < MAX_RANKS; r++) {
        gnn_db_halo_free(&J->want[r]);
        gnn_db_halo_free(&J->got[r]);
    }
}

static gnn_status db_rank(gnn_comm *c, void *arg)
{
    db_job *J = arg;
    const int r = gnn_comm_rank(c);
    const gnn_part_local *me = &J->full->parts[r];
    const int64_t b0 = bytes_sent(c);
    gnn_status st = gnn_db_halo_build(J->ref, c, me, J->full->n, &J->want[r], &c->err);
    if (st)
        return gnn_err_set(&c->err, st, "ref: %s", c->err.msg);
    const int64_t b1 = bytes_sent(c);
    st = gnn_db_halo_build(J->impl, c, me, J->full->n, &J->got[r], &c->err);
    if (st)
        return gnn_err_set(&c->err, st, "impl: %s", c->err.msg);
    J->bytes_ref[r] = b1 - b0;
    J->bytes_impl[r] = bytes_sent(c) - b1;
    return GNN_OK;
}

static gnn_oracle_outcome db_halo_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    halo_input in;
    gnn_oracle_outcome o = make_input(ctx, c, &in);
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_partition *full = gnn_oracle_alloc(ctx, sizeof *full);
    db_job *J = gnn_oracle_alloc(ctx, sizeof *J);
    if (!full || !J)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_err err = { "" };
    gnn_status st = gnn_partition_build(&gnn_partition_ref, full, in.g, NULL, in.part, in.k, &err);
    gnn_oracle_defer(ctx, free_partition, full);
    if (st)
        return gnn_oracle_fail(ctx, "gnn_partition_build (ref): %s (%s)", gnn_status_str(st), err.msg);
    J->full = full;
    J->ref = c->entry->ref->ops;
    J->impl = c->impl->ops;
    gnn_oracle_defer(ctx, free_db_job, J);
    const int P = (int)in.k;
    const gnn_sim_config cfg = sim_config(c, P);
    if ((st = gnn_sim_run(&cfg, db_rank, J, NULL, &err)))
        return gnn_oracle_fail(ctx, "simulated run on %d ranks: %s (%s)", P, gnn_status_str(st), err.msg);
    int64_t tot_ref = 0, tot_impl = 0, entries = 0;
    for (int r = 0; r < P; r++) {
        const gnn_db_halo *W = &J->want[r], *G = &J->got[r];
        char name[64];
        if (G->ranks != W->ranks)
            return gnn_oracle_fail(ctx, "rank %d: ranks: ref %lld impl %lld", r, (long long)W->ranks,
                                   (long long)G->ranks);
        gnn_oracle_digest(ctx, G->off, sizeof(int64_t) * (size_t)(G->ranks + 1));
        gnn_oracle_digest(ctx, G->solid, sizeof(int64_t) * (size_t)G->off[G->ranks]);
        snprintf(name, sizeof name, "rank[%d].off", r);
        o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, name, W->off, G->off, W->ranks + 1, 8));
        if (o != GNN_ORACLE_PASS)
            return o;
        snprintf(name, sizeof name, "rank[%d].solid", r);
        o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, name, W->solid, G->solid, W->off[W->ranks], 8));
        if (o != GNN_ORACLE_PASS)
            return o;
        if ((st = gnn_db_halo_verify(full, r, W, &err)))
            return gnn_oracle_fail(ctx, "verify (ref, rank %d): %s", r, err.msg);
        if ((st = gnn_db_halo_verify(full, r, G, &err)))
            return gnn_oracle_fail(ctx, "verify (impl, rank %d): %s", r, err.msg);
        tot_ref += J->bytes_ref[r];
        tot_impl += J->bytes_impl[r];
        entries += G->off[G->ranks];
    }
    gnn_oracle_note(ctx, "%d ranks, %lld db_halo entries; bytes sent: ref %lld, %s %lld", P, (long long)entries,
                    (long long)tot_ref, c->impl->name, (long long)tot_impl);
    return o;
}

static const gnn_oracle_impl k_db_ref = { .name = "ref", .ops = &gnn_db_halo_ref, .flags = 0 };
static const gnn_oracle_impl k_db_cpu = { .name = "cpu", .ops = &gnn_db_halo_cpu, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_db_impls[] = { &k_db_ref, &k_db_cpu, NULL };

/* 1 to 5 ranks (5 > this machine's 2 cores), 8 for a wider table; R-MAT and SBM; random,
 * range, hash and METIS; a 4-vertex graph at 4 ranks (one vertex each, maybe no halos) */
static const char *const k_db_presets[] = {
    "gen=0,scale=8,ef=8,ranks=1,method=1,dim=0,m=0",
    "gen=1,scale=8,ef=6,ranks=2,method=2,dim=0,m=0",
    "gen=0,scale=9,ef=4,ranks=3,method=0,dim=0,m=0",
    "gen=1,scale=9,ef=8,ranks=4,method=3,dim=0,m=0",
    "gen=0,scale=8,ef=8,ranks=5,method=2,dim=0,m=0",
    "gen=1,scale=7,ef=4,ranks=5,method=1,dim=0,m=0",
    "gen=0,scale=9,ef=8,ranks=4,method=0,dim=0,m=0",
    "gen=1,scale=10,ef=8,ranks=8,method=3,dim=0,m=0",
    "gen=0,scale=2,ef=2,ranks=4,method=0,dim=0,m=0",
    NULL,
};

const gnn_oracle_entry gnn_oracle_partition_db_halo = {
    .name = "partition.db_halo",
    .what = "db_halo (DistGNN-MB Algorithm 1) on every simulated rank: the implementation's table against "
            "the reference's (gnn_db_halo_ref: allgatherv, CreateDB), and both through gnn_db_halo_verify",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "halo.h fixes every order (rows by rank, entries by increasing local id): exact",
    .params = k_h_params, .n_params = N_H_PARAMS, .presets = k_db_presets,
    .ref = &k_db_ref, .impls = k_db_impls, .run = db_halo_run,
};

/* ---- partition.db_halo.agree: the agreement step of gnn_db_halo_build ---------------------------
 * core/dist/halo.c's agreement (an allgatherv of verdict, n_solid, n_halo per rank) runs before
 * every builder, ref and cpu alike, so partition.db_halo cannot see a bug in it. This entry
 * checks it against halo.h's contract, with statuses and messages written here: with valid
 * parts, the builder is called with every rank's n_halo and n_global exactly as the partition
 * has them (a spy builder compares, then runs the implementation's); with one rank's bad
 * arguments, that rank gets the error naming them and every other rank GNN_ERR_INVAL naming
 * that rank, no table is built and nobody waits; with n_global one too large, every rank gets
 * "own N of the N + 1 vertices". */

enum { A_BAD = H_DIM, A_WHO = H_M }; /* the partition parameters, then these two */
static const gnn_oracle_param k_agree_params[N_H_PARAMS] = {
    { "gen", GNN_PARAM_INT, 0, 1, "graph: 0 R-MAT (Graph500), 1 SBM (4 classes)" },
    { "scale", GNN_PARAM_INT, 0, 16, "2^scale vertices" },
    { "ef", GNN_PARAM_INT, 1, 64, "edge factor (R-MAT) or average degree (SBM)" },
    { "ranks", GNN_PARAM_INT, 2, 8, "simulated ranks = parts" },
    { "method", GNN_PARAM_INT, 0, 3, "part vector: 0 random, 1 range, 2 hash, 3 metis" },
    { "bad", GNN_PARAM_INT, 0, 5,
      "0 valid, 1 rank `who` passes the next rank's part, 2 NULL part, 3 a halo owner outside the ranks, 4 a halo "
      "owned by its own rank, 5 n_global + 1 on every rank" },
    { "who", GNN_PARAM_INT, 0, 7, "the rank with the bad argument (mod ranks; 3, 4: the next rank with a halo)" },
};
static const char *const k_agree_presets[] = {
    "gen=0,scale=7,ef=8,ranks=2,method=0,bad=0,who=0", "gen=1,scale=7,ef=6,ranks=3,method=2,bad=1,who=2",
    "gen=0,scale=7,ef=8,ranks=4,method=0,bad=2,who=3", "gen=1,scale=8,ef=6,ranks=5,method=3,bad=3,who=4",
    "gen=0,scale=7,ef=4,ranks=3,method=1,bad=4,who=0", "gen=1,scale=7,ef=8,ranks=4,method=2,bad=5,who=0",
    "gen=0,scale=8,ef=8,ranks=8,method=3,bad=0,who=0", "gen=0,scale=7,ef=8,ranks=8,method=0,bad=1,who=7",
    NULL,
};

typedef struct agree_job {
    gnn_part_local parts[MAX_RANKS]; /* first: the spy finds the job from the part it is given */
    const gnn_part_local *give[MAX_RANKS];
    const gnn_db_halo_ops *impl;
    const gnn_partition *full;
    int64_t n_global;
    gnn_db_halo t[MAX_RANKS];
    gnn_status st[MAX_RANKS];
    char msg[MAX_RANKS][sizeof(((gnn_err *)0)->msg)];
    int spy_calls[MAX_RANKS];
    char spy_bad[MAX_RANKS][160]; /* what the spy found wrong */
} agree_job;

static void free_agree_job(void *p)
{
    agree_job *J = p;
    for (int r = 0; r < MAX_RANKS; r++)
        gnn_db_halo_free(&J->t[r]);
}

/* The builder the agreement hands over to, only ever given this job's own parts[rank] (bad = 0
 * passes each rank its own copy): compare what the agreement says with the partition. */
static gnn_status spy_build(gnn_comm *c, const gnn_part_local *me, int64_t n_global, const int64_t *n_halo_all,
                            gnn_db_halo *out, gnn_err *err)
{
    const int r = gnn_comm_rank(c);
    agree_job *J = (agree_job *)(void *)((char *)(me - me->rank) - offsetof(agree_job, parts));
    J->spy_calls[r]++;
    if (n_global != J->full->n)
        snprintf(J->spy_bad[r], sizeof J->spy_bad[r], "the builder got n_global %lld, the partition has %lld",
                 (long long)n_global, (long long)J->full->n);
    for (int q = 0; q < gnn_comm_size(c) && !J->spy_bad[r][0]; q++)
        if (n_halo_all[q] != J->full->parts[q].n_halo)
            snprintf(J->spy_bad[r], sizeof J->spy_bad[r],
                     "the builder got n_halo_all[%d] = %lld, part %d has %lld halos", q, (long long)n_halo_all[q], q,
                     (long long)J->full->parts[q].n_halo);
    return J->impl->build_agreed(c, me, n_global, n_halo_all, out, err);
}

static const gnn_db_halo_ops k_spy_ops = { "spy", spy_build };

static gnn_status agree_rank(gnn_comm *c, void *arg)
{
    agree_job *J = arg;
    const int r = gnn_comm_rank(c);
    gnn_err err = { "" };
    J->st[r] = gnn_db_halo_build(&k_spy_ops, c, J->give[r], J->n_global, &J->t[r], &err);
    snprintf(J->msg[r], sizeof J->msg[r], "%s", err.msg);
    return GNN_OK; /* the statuses are the result; a failing rank must not abort the others */
}

static gnn_oracle_outcome agree_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    halo_input in;
    gnn_oracle_outcome o = make_input(ctx, c, &in);
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_partition *full = gnn_oracle_alloc(ctx, sizeof *full);
    agree_job *J = gnn_oracle_alloc(ctx, sizeof *J);
    if (!full || !J)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_err err = { "" };
    gnn_status st = gnn_partition_build(&gnn_partition_ref, full, in.g, NULL, in.part, in.k, &err);
    gnn_oracle_defer(ctx, free_partition, full);
    if (st)
        return gnn_oracle_fail(ctx, "gnn_partition_build (ref): %s (%s)", gnn_status_str(st), err.msg);
    gnn_oracle_defer(ctx, free_agree_job, J);
    const int P = (int)in.k, bad = (int)gnn_oracle_int(c, A_BAD);
    int who = (int)(gnn_oracle_int(c, A_WHO) % P);
    J->impl = c->impl->ops;
    J->full = full;
    J->n_global = full->n + (bad == 5);
    for (int r = 0; r < P; r++) {
        J->parts[r] = full->parts[r];
        J->give[r] = &J->parts[r];
    }
    /* the expected outcome, from halo.h: (status, a piece of the message) per rank */
    gnn_status want[MAX_RANKS];
    char says[MAX_RANKS][160];
    int32_t *owner = NULL, saved = 0;
    if (bad == 3 || bad == 4) { /* the next rank (from who) that has a halo */
        int k = 0;
        while (k < P && full->parts[(who + k) % P].n_halo == 0)
            k++;
        if (k == P)
            return gnn_oracle_fail(ctx, "invalid case: no rank has a halo vertex");
        who = (who + k) % P;
        owner = &full->parts[who].halo_owner[0];
        saved = *owner;
        *owner = bad == 3 ? P : who;
    }
    for (int r = 0; r < P; r++) {
        want[r] = bad == 0 ? GNN_OK : GNN_ERR_INVAL;
        snprintf(says[r], sizeof says[r], "(first: rank %d)", who);
    }
    switch (bad) {
    case 0:
        says[0][0] = '\0';
        for (int r = 1; r < P; r++)
            says[r][0] = '\0';
        break;
    case 1:
        J->give[who] = &J->parts[(who + 1) % P];
        snprintf(says[who], sizeof says[who], "rank %d was given part %d", who, (who + 1) % P);
        break;
    case 2:
        J->give[who] = NULL;
        snprintf(says[who], sizeof says[who], "rank %d: no partition given (me is NULL)", who);
        break;
    case 3:
        want[who] = GNN_ERR_RANGE;
        snprintf(says[who], sizeof says[who], "is owned by rank %d, but the communicator has %d ranks", P, P);
        break;
    case 4:
        want[who] = GNN_ERR_RANGE;
        snprintf(says[who], sizeof says[who], "rank %d: halo 0 (vertex %lld) is owned by this rank", who,
                 (long long)full->parts[who].vid_o[full->parts[who].n_solid]);
        break;
    default:
        for (int r = 0; r < P; r++)
            snprintf(says[r], sizeof says[r], "own %lld of the %lld vertices", (long long)full->n,
                     (long long)full->n + 1);
    }
    gnn_sim_config cfg = sim_config(c, P);
    st = gnn_sim_run(&cfg, agree_rank, J, NULL, &err);
    if (owner)
        *owner = saved;
    if (st)
        return gnn_oracle_fail(ctx, "simulated run on %d ranks: %s (%s)", P, gnn_status_str(st), err.msg);
    for (int r = 0; r < P; r++) {
        gnn_oracle_digest(ctx, &J->st[r], sizeof J->st[r]);
        if (J->st[r] != want[r] || !strstr(J->msg[r], says[r]))
            return gnn_oracle_fail(ctx, "rank %d: %s \"%s\"; halo.h says %s \"...%s...\"", r, gnn_status_str(J->st[r]),
                                   J->msg[r], gnn_status_str(want[r]), says[r]);
        if (bad != 0 && (J->spy_calls[r] || J->t[r].off))
            return gnn_oracle_fail(ctx, "rank %d: the arguments were refused, but the builder ran", r);
        if (bad == 0) {
            if (J->spy_calls[r] != 1)
                return gnn_oracle_fail(ctx, "rank %d: the builder ran %d times", r, J->spy_calls[r]);
            if (J->spy_bad[r][0])
                return gnn_oracle_fail(ctx, "rank %d: %s", r, J->spy_bad[r]);
            if ((st = gnn_db_halo_verify(full, r, &J->t[r], &err)))
                return gnn_oracle_fail(ctx, "verify (rank %d): %s", r, err.msg);
            const uint32_t crc = gnn_db_halo_crc(&J->t[r]);
            gnn_oracle_digest(ctx, &crc, sizeof crc);
        }
    }
    return GNN_ORACLE_PASS;
}

const gnn_oracle_entry gnn_oracle_partition_db_halo_agree = {
    .name = "partition.db_halo.agree",
    .what = "the agreement step of gnn_db_halo_build (shared by ref and cpu) under the simulator: the counts it hands "
            "the builder, and for one rank's bad arguments every rank's status and message (halo.h)",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "statuses, messages and counts: exact",
    .params = k_agree_params, .n_params = N_H_PARAMS, .presets = k_agree_presets,
    .ref = &k_db_ref, .impls = k_db_impls, .run = agree_run,
};

/* ---- kvstore.pull ----------------------------------------------------------------------------------- */

typedef struct kv_job {
    int64_t n, dim;
    const int32_t *part;
    const float *feat;
    const int64_t *ids[MAX_RANKS];
    int64_t m[MAX_RANKS];
    float *out[MAX_RANKS], *out2[MAX_RANKS]; /* (m, dim) each: the first and the second pull */
    gnn_kv_stats first[MAX_RANKS], total[MAX_RANKS];
} kv_job;

static gnn_status kv_rank(gnn_comm *c, void *arg)
{
    kv_job *J = arg;
    const int r = gnn_comm_rank(c);
    gnn_kvstore kv;
    gnn_status st = gnn_kvstore_create_from_full(&kv, c, J->n, J->part, J->dim, J->feat, &c->err);
    if (st)
        return st;
    if (!(st = gnn_kvstore_pull(&kv, J->ids[r], J->m[r], J->out[r], &c->err))) {
        J->first[r] = kv.last;
        st = gnn_kvstore_pull(&kv, J->ids[r], J->m[r], J->out2[r], &c->err);
        J->total[r] = kv.total;
    }
    gnn_kvstore_free(&kv);
    return st;
}

/* kv_run, step 1: every rank's id list and its two output buffers. Rank r's length is uniform
 * in [0, m], rank 1's always 0; each id is uniform, a repeat of an earlier one, or one of the
 * rank's own vertices (stream 2). */
static gnn_oracle_outcome kv_make_ids(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int P, int64_t mmax, kv_job *J)
{
    const int64_t n = J->n, dim = J->dim;
    gnn_oracle_draws d = gnn_oracle_draws_make(c, 2);
    for (int r = 0; r < P; r++) {
        const int64_t m = r == 1 ? 0 : gnn_oracle_draw_range(&d, 0, mmax);
        int64_t *ids = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(m + 1));
        int64_t *own = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(n + 1));
        J->out[r] = gnn_oracle_alloc_out(ctx, "out", sizeof(float) * (size_t)(m * dim));
        J->out2[r] = gnn_oracle_alloc_out(ctx, "out2", sizeof(float) * (size_t)(m * dim));
        if (!ids || !own || !J->out[r] || !J->out2[r])
            return gnn_oracle_fail(ctx, "out of memory");
        int64_t n_own = 0;
        for (int64_t v = 0; v < n; v++)
            if (J->part[v] == r)
                own[n_own++] = v;
        for (int64_t i = 0; i < m; i++) {
            const uint64_t kind = gnn_oracle_draw_uint(&d, 3);
            if (kind == 1 && i > 0)
                ids[i] = ids[gnn_oracle_draw_uint(&d, (uint64_t)i)];
            else if (kind == 2 && n_own > 0)
                ids[i] = own[gnn_oracle_draw_uint(&d, (uint64_t)n_own)];
            else
                ids[i] = (int64_t)gnn_oracle_draw_uint(&d, (uint64_t)n);
        }
        J->ids[r] = ids;
        J->m[r] = m;
    }
    return GNN_ORACLE_PASS;
}

/* kv_run, step 3: the simulator's alltoallv bytes of the run against the specification's
 * traffic, pair by pair (kvstore.h: a header of 16 bytes to every other rank, then 8 bytes per
 * id src asks of dst, then 4 dim per row dst returns), for two pulls; computed from the case's
 * part vector (asks[src * P + dst]: the ids src asks of dst), not from the store's counters.
 * *total adds up the bytes. */
static gnn_oracle_outcome kv_check_traffic(gnn_oracle_ctx *ctx, const gnn_sim_report *rep, const int64_t *asks, int P,
                                           int64_t dim, int64_t *total)
{
    for (int src = 0; src < P; src++)
        for (int dst = 0; dst < P; dst++) {
            const int64_t got = rep->bytes[((size_t)GNN_COMM_ALLTOALLV * P + (size_t)src) * P + (size_t)dst];
            const int64_t want = src == dst ? 0 : 2 * (16 + 8 * asks[src * P + dst] + 4 * dim * asks[dst * P + src]);
            *total += got;
            if (got != want)
                return gnn_oracle_fail(ctx, "alltoallv bytes from rank %d to rank %d: %lld, the protocol gives 2 x "
                                       "(16 + 8 x %lld ids + 4 x %lld x %lld rows) = %lld",
                                       src, dst, (long long)got, (long long)asks[src * P + dst], (long long)dim,
                                       (long long)asks[dst * P + src], (long long)want);
        }
    return GNN_ORACLE_PASS;
}

/* What kv_run checks over all ranks at the end. */
typedef struct kv_sums {
    int64_t served, fetched, counted, local;
} kv_sums;

/* kv_run, step 4, rank r: both pulls' rows against the unpartitioned matrix (the first pull's
 * digested), every counter of one pull computed from the case alone, the cumulative counters
 * twice those; adds the rank's rows and bytes to *sum. */
static gnn_oracle_outcome kv_check_rank(gnn_oracle_ctx *ctx, const kv_job *J, int r, int P, const int64_t *asks,
                                        kv_sums *sum)
{
    const int64_t m = J->m[r], dim = J->dim;
    gnn_oracle_outcome o = GNN_ORACLE_PASS;
    float *want = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(m * dim + 1));
    if (!want)
        return gnn_oracle_fail(ctx, "out of memory");
    for (int64_t i = 0; i < m; i++)
        memcpy(want + i * dim, J->feat + J->ids[r][i] * dim, sizeof(float) * (size_t)dim);
    char name[64];
    snprintf(name, sizeof name, "rank[%d].rows", r);
    gnn_oracle_digest(ctx, J->out[r], sizeof(float) * (size_t)(m * dim));
    o = gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, NULL, name, want, J->out[r], m * dim, dim));
    snprintf(name, sizeof name, "rank[%d].rows(second pull)", r);
    o = gnn_oracle_worst(o, gnn_oracle_compare_f32(ctx, NULL, name, want, J->out2[r], m * dim, dim));
    /* every counter of one pull, from the case alone */
    gnn_kv_stats w = { .calls = 1, .ids = m, .rows_local = asks[r * P + r], .bytes_header_sent = 16 * (P - 1) };
    w.rows_remote = m - w.rows_local;
    for (int q = 0; q < P; q++)
        w.rows_served += q == r ? 0 : asks[q * P + r];
    w.bytes_ids_sent = 8 * w.rows_remote;
    w.bytes_ids_received = 8 * w.rows_served;
    w.bytes_rows_sent = 4 * dim * w.rows_served;
    w.bytes_rows_received = 4 * dim * w.rows_remote;
    const gnn_kv_stats *s = &J->first[r], *t = &J->total[r];
    if (memcmp(s, &w, sizeof w) != 0)
        return gnn_oracle_fail(ctx,
                               "rank %d: counters of one pull: ids %lld, local %lld, remote %lld, served %lld, "
                               "bytes: header %lld ids %lld/%lld rows %lld/%lld; the case gives %lld, %lld, %lld, "
                               "%lld, %lld, %lld/%lld, %lld/%lld",
                               r, (long long)s->ids, (long long)s->rows_local, (long long)s->rows_remote,
                               (long long)s->rows_served, (long long)s->bytes_header_sent,
                               (long long)s->bytes_ids_sent, (long long)s->bytes_ids_received,
                               (long long)s->bytes_rows_sent, (long long)s->bytes_rows_received, (long long)w.ids,
                               (long long)w.rows_local, (long long)w.rows_remote, (long long)w.rows_served,
                               (long long)w.bytes_header_sent, (long long)w.bytes_ids_sent,
                               (long long)w.bytes_ids_received, (long long)w.bytes_rows_sent,
                               (long long)w.bytes_rows_received);
    if (t->calls != 2 || t->ids != 2 * m || t->bytes_ids_sent != 2 * w.bytes_ids_sent ||
        t->bytes_rows_received != 2 * w.bytes_rows_received || t->rows_local != 2 * w.rows_local ||
        t->rows_served != 2 * w.rows_served || t->bytes_header_sent != 2 * w.bytes_header_sent)
        return gnn_oracle_fail(ctx, "rank %d: cumulative counters are not twice the first pull's", r);
    sum->served += w.rows_served;
    sum->fetched += w.rows_remote;
    sum->local += w.rows_local;
    sum->counted += t->bytes_header_sent + t->bytes_ids_sent + t->bytes_rows_sent;
    return o;
}

/* kvstore.pull: the case's features (stream 1) and id lists (step 1), the simulated run where
 * every rank pulls its list twice (step 2, kv_rank), the traffic (step 3), each rank's rows and
 * counters (step 4), then the sums over all ranks. */
static gnn_oracle_outcome kv_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    halo_input in;
    gnn_oracle_outcome o = make_input(ctx, c, &in);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int64_t n = in.g->n, dim = gnn_oracle_int(c, H_DIM), mmax = gnn_oracle_int(c, H_M);
    const int P = (int)in.k;
    kv_job *J = gnn_oracle_alloc(ctx, sizeof *J);
    float *feat = gnn_oracle_alloc(ctx, sizeof(float) * (size_t)(n * dim + 1));
    if (!J || !feat)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_oracle_draws df = gnn_oracle_draws_make(c, 1);
    gnn_oracle_fill_spread(&df, feat, n * dim);
    *J = (kv_job){ .n = n, .dim = dim, .part = in.part, .feat = feat };
    if ((o = kv_make_ids(ctx, c, P, mmax, J)) != GNN_ORACLE_PASS)
        return o;
    gnn_sim_config cfg = sim_config(c, P);
    gnn_sim_report rep;
    gnn_err err = { "" };
    gnn_status st = gnn_sim_run(&cfg, kv_rank, J, &rep, &err);
    if (st) {
        gnn_sim_report_free(&rep);
        return gnn_oracle_fail(ctx, "simulated run on %d ranks: %s (%s)", P, gnn_status_str(st), err.msg);
    }
    int64_t *asks = gnn_oracle_alloc(ctx, sizeof(int64_t) * (size_t)(P * P)); /* [src][dst] ids */
    if (!asks) {
        gnn_sim_report_free(&rep);
        return gnn_oracle_fail(ctx, "out of memory");
    }
    for (int r = 0; r < P; r++)
        for (int64_t i = 0; i < J->m[r]; i++)
            asks[r * P + in.part[J->ids[r][i]]]++;
    int64_t want_alltoallv = 0;
    o = kv_check_traffic(ctx, &rep, asks, P, dim, &want_alltoallv);
    gnn_sim_report_free(&rep);
    if (o != GNN_ORACLE_PASS)
        return o;

    kv_sums sum = { 0, 0, 0, 0 };
    for (int r = 0; r < P; r++)
        if ((o = kv_check_rank(ctx, J, r, P, asks, &sum)) != GNN_ORACLE_PASS)
            return o;
    if (sum.served != sum.fetched)
        return gnn_oracle_fail(ctx, "%lld rows served, %lld fetched", (long long)sum.served, (long long)sum.fetched);
    if (sum.counted != want_alltoallv)
        return gnn_oracle_fail(ctx, "the counters say %lld bytes sent; the simulator's alltoallv accounting %lld",
                               (long long)sum.counted, (long long)want_alltoallv);
    gnn_oracle_note(ctx, "%d ranks: %lld rows remote, %lld local per pull; %lld alltoallv bytes for two pulls", P,
                    (long long)sum.fetched, (long long)sum.local, (long long)want_alltoallv);
    return o;
}

static const gnn_oracle_impl k_kv_ref = { .name = "ref", .ops = NULL, .flags = 0 };
static const gnn_oracle_impl *const k_kv_impls[] = { &k_kv_ref, NULL };

static const char *const k_kv_presets[] = {
    "gen=0,scale=8,ef=8,ranks=1,method=1,dim=7,m=50",
    "gen=1,scale=8,ef=6,ranks=2,method=2,dim=16,m=300",
    "gen=0,scale=9,ef=4,ranks=3,method=0,dim=5,m=200",
    "gen=1,scale=9,ef=8,ranks=4,method=3,dim=13,m=500",
    "gen=0,scale=8,ef=8,ranks=5,method=2,dim=3,m=100",
    "gen=1,scale=6,ef=4,ranks=5,method=1,dim=0,m=40",
    "gen=0,scale=2,ef=2,ranks=4,method=0,dim=2,m=9",
    NULL,
};

const gnn_oracle_entry gnn_oracle_kvstore_pull = {
    .name = "kvstore.pull",
    .what = "hybrid-partitioning feature store: pulls of random id lists (repeats, own ids, empty lists) on every "
            "simulated rank return the unpartitioned feature rows; counters add up to the simulator's accounting",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "rows are copied, never computed: exact",
    .params = k_h_params, .n_params = N_H_PARAMS, .presets = k_kv_presets,
    .ref = &k_kv_ref, .impls = k_kv_impls, .run = kv_run,
};
