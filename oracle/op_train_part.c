/* oracle/op_train_part.c -- oracle entries for distributed mini-batch training on partitions
 * (include/gnnref/train_part.h; DistGNN-MB Algorithm 2), run SPMD under the simulator.
 *
 *   train.part         bitwise: a whole run with the optimized kernels, HEC, push selection,
 *                      db_halo and sampler (the opt context, at 1, 2 and 4 OpenMP threads per
 *                      rank) against the same run with the references (the ref context): every
 *                      `steps` loss, the final accuracies, and on every rank the HEC trace of
 *                      every (step, layer): pairs received, halo lookups and hits, pairs
 *                      pushed, the cache's counters and a CRC32C of its whole state. Then the
 *                      run's own invariants: hits <= lookups; drop never hits, pushes or pulls,
 *                      and looks up exactly the halos hec looks up on the same (model-free)
 *                      blocks; fetch pulls and never looks up; without faults every pushed pair
 *                      is received within its epoch; with dropped pushes, fewer are received
 *                      and there are no more hits than without faults.
 *   train.part.single  verify: with one rank every remote mode is gnn_train (train.h) on the
 *                      same graph, bit for bit (steps and accuracies): the local graph is the
 *                      graph, sampling and dropout are keyed by global id, the epoch order is
 *                      the same shuffle.
 *
 * Inputs: a 4-class SBM (gnn_gen_sbm) of 2^scale vertices, 12 features, split 50/25/25 from
 * the case seed; the part vector by gnn_partition_assign (method, k = ranks, METIS balanced
 * on train); the structure by gnn_partition_build with the reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/dataset.h"
#include "gnnref/impl.h"
#include "gnnref/oracle.h"
#include "gnnref/partition.h"
#include "gnnref/sim.h"
#include "gnnref/tensor.h"
#include "gnnref/train_part.h"

enum { T_MODEL, T_REMOTE, T_RANKS, T_SCALE, T_METHOD, T_LAYERS, T_CS, T_NC, T_LS, T_D, T_DROP, T_DELAY, N_T_PARAMS };
static const gnn_oracle_param k_t_params[N_T_PARAMS] = {
    { "model", GNN_PARAM_INT, 0, 2, "0 sage, 1 gat, 2 gin" },
    { "remote", GNN_PARAM_INT, 0, 2, "0 drop, 1 hec, 2 fetch" },
    { "ranks", GNN_PARAM_INT, 1, 8, "simulated ranks = parts" },
    { "scale", GNN_PARAM_INT, 3, 12, "2^scale vertices (SBM, 4 classes, 12 features)" },
    { "method", GNN_PARAM_INT, 0, 3, "part vector: 0 random, 1 range, 2 hash, 3 metis" },
    { "layers", GNN_PARAM_INT, 1, 3, "GNN layers (fanouts 4, 3, 5 from the input layer)" },
    { "cs", GNN_PARAM_INT, 0, 100000, "HEC lines per layer (0: auto)" },
    { "nc", GNN_PARAM_INT, 0, 100000, "pushes per remote rank, layer and step (0: auto, from the halo counts)" },
    { "ls", GNN_PARAM_INT, 0, 10, "HEC lifespan" },
    { "d", GNN_PARAM_INT, 1, 4, "push delay in steps" },
    { "drop", GNN_PARAM_INT, 0, 50, "simulator: percent of pushes dropped" },
    { "delay", GNN_PARAM_INT, 0, 3, "simulator: extra steps of delay for half of the pushes" },
};

enum { TR_RECEIVED, TR_LOOKUPS, TR_HITS, TR_PUSHED, TR_CHITS, TR_CMISS, TR_CEXP, TR_CSTORES, TR_COVER, TR_CEVICT,
       TR_CRC, TR_W };

typedef struct tp_job {
    const gnn_dataset *ds;
    const gnn_partition *full;
    gnn_train_config cfg;
    gnn_part_train_config pc;
    /* results */
    int64_t *trace[8];
    int64_t n_trace[8], cap_trace[8];
    double *steps;
    int64_t n_steps;
    double acc[3];
    gnn_part_report rep;
    int failed_alloc;
} tp_job;

typedef struct tp_rank_ctx {
    tp_job *J;
    int rank;
} tp_rank_ctx;

static void on_trace(const gnn_part_trace *t, void *vctx)
{
    tp_rank_ctx *x = vctx;
    tp_job *J = x->J;
    const int r = t->rank;
    if (J->n_trace[r] + TR_W > J->cap_trace[r]) {
        const int64_t cap = J->cap_trace[r] ? 2 * J->cap_trace[r] : 64 * TR_W;
        int64_t *p = realloc(J->trace[r], sizeof(int64_t) * (size_t)cap);
        if (!p) {
            J->failed_alloc = 1;
            return;
        }
        J->trace[r] = p;
        J->cap_trace[r] = cap;
    }
    int64_t *w = J->trace[r] + J->n_trace[r];
    w[TR_RECEIVED] = t->received;
    w[TR_LOOKUPS] = t->lookups;
    w[TR_HITS] = t->hits;
    w[TR_PUSHED] = t->pushed;
    w[TR_CHITS] = (int64_t)t->cnt.hits;
    w[TR_CMISS] = (int64_t)t->cnt.misses;
    w[TR_CEXP] = (int64_t)t->cnt.expired;
    w[TR_CSTORES] = (int64_t)t->cnt.stores;
    w[TR_COVER] = (int64_t)t->cnt.overwrites;
    w[TR_CEVICT] = (int64_t)t->cnt.evictions;
    w[TR_CRC] = t->state_crc;
    J->n_trace[r] += TR_W;
}

/* The rank's inputs out of the global dataset: its solid rows. */
static gnn_status rank_fn(gnn_comm *c, void *arg)
{
    tp_job *J = arg;
    const int me = gnn_comm_rank(c);
    const gnn_part_local *L = &J->full->parts[me];
    const gnn_dataset *ds = J->ds;
    const int64_t f = ds->num_features, ns = L->n_solid;
    float *feat = gnn_malloc(sizeof(float) * (size_t)(ns * f + 1));
    int32_t *lab = gnn_malloc(sizeof(int32_t) * (size_t)(ns + 1));
    uint8_t *split = gnn_malloc((size_t)ns + 1);
    gnn_train_result res;
    memset(&res, 0, sizeof res);
    gnn_status st = GNN_ERR_NOMEM;
    if (!feat || !lab || !split)
        goto done;
    for (int64_t v = 0; v < ns; v++) {
        const int64_t g = L->vid_o[v];
        memcpy(feat + v * f, ds->feat + g * f, sizeof(float) * (size_t)f);
        lab[v] = ds->labels[g];
        split[v] = ds->split[g];
    }
    const gnn_part_input in = { .part = L, .n_global = ds->graph.n, .num_features = f,
                                .num_classes = ds->num_classes, .feat = feat, .labels = lab, .split = split,
                                .global = &ds->graph, .owner = J->full->part };
    tp_rank_ctx x = { J, me };
    gnn_part_train_config pc = J->pc;
    pc.on_trace = on_trace;
    pc.trace_ctx = &x;
    gnn_part_report rep;
    gnn_err err = { "" };
    st = gnn_train_part(c, &in, &J->cfg, &pc, NULL, NULL, &res, &rep, &err);
    if (st) {
        gnn_err_set(&c->err, st, "rank %d: %s", me, err.msg);
        goto done;
    }
    if (me == 0) {
        J->steps = malloc(sizeof(double) * (size_t)(res.n_steps + 1));
        if (!J->steps) {
            st = GNN_ERR_NOMEM;
            goto done;
        }
        memcpy(J->steps, res.step_loss, sizeof(double) * (size_t)res.n_steps);
        J->n_steps = res.n_steps;
        J->acc[0] = res.train_acc;
        J->acc[1] = res.val_acc;
        J->acc[2] = res.test_acc;
        J->rep = rep;
    }
done:
    gnn_train_result_free(&res);
    gnn_free(feat);
    gnn_free(lab);
    gnn_free(split);
    return st;
}

static void job_free(void *p)
{
    tp_job *J = p;
    for (int r = 0; r < 8; r++)
        free(J->trace[r]);
    free(J->steps);
}
static void ds_free(void *p) { gnn_dataset_free(p); }
static void part_free(void *p) { gnn_partition_free(p); }

typedef struct tp_input {
    gnn_dataset *ds;
    gnn_partition *full;
    gnn_train_config cfg;
    gnn_part_train_config pc;
} tp_input;

static gnn_oracle_outcome make_input(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int ranks, tp_input *out)
{
    gnn_dataset *ds = gnn_oracle_alloc(ctx, sizeof *ds);
    gnn_partition *full = gnn_oracle_alloc(ctx, sizeof *full);
    if (!ds || !full)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_sbm_params sp;
    gnn_sbm_defaults(&sp);
    sp.n = (int64_t)1 << gnn_oracle_int(c, T_SCALE);
    sp.classes = 4;
    sp.deg_in = 6;
    sp.deg_out = 2;
    sp.num_features = 12;
    sp.noise = 1.0;
    sp.seed = c->seed;
    sp.train = 0.5;
    sp.val = 0.25;
    sp.test = 0.25;
    gnn_err err = { "" };
    gnn_status st = gnn_gen_sbm(ds, &sp, &err);
    if (st)
        return gnn_oracle_fail(ctx, "gnn_gen_sbm: %s", err.msg);
    gnn_oracle_defer(ctx, ds_free, ds);
    int32_t *part = gnn_oracle_alloc(ctx, sizeof(int32_t) * (size_t)ds->graph.n);
    if (!part)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_part_options po;
    gnn_part_defaults(&po);
    po.method = (gnn_part_method)(int)gnn_oracle_int(c, T_METHOD);
    po.k = ranks;
    po.seed = c->seed;
    po.balance = po.method == GNN_PART_METIS ? GNN_BALANCE_TRAIN : 0;
    if ((st = gnn_partition_assign(&ds->graph, ds->split, &po, part, NULL, &err)))
        return gnn_oracle_fail(ctx, "gnn_partition_assign: %s", err.msg);
    if ((st = gnn_partition_build(&gnn_partition_ref, full, &ds->graph, ds->split, part, ranks, &err)))
        return gnn_oracle_fail(ctx, "gnn_partition_build (ref): %s", err.msg);
    gnn_oracle_defer(ctx, part_free, full);
    gnn_train_config *cfg = &out->cfg;
    gnn_train_defaults(cfg);
    static const gnn_model_kind models[3] = { GNN_MODEL_SAGE, GNN_MODEL_GAT, GNN_MODEL_GIN };
    cfg->model = models[gnn_oracle_int(c, T_MODEL)];
    cfg->layers = (int)gnn_oracle_int(c, T_LAYERS);
    static const int64_t fo[3] = { 4, 3, 5 };
    for (int l = 0; l < cfg->layers; l++)
        cfg->fanouts[l] = fo[l];
    cfg->hidden = 8;
    cfg->heads = 2;
    cfg->batch = 16;
    cfg->epochs = 2;
    cfg->lr = 0.01f;
    cfg->dropout = 0.25f;
    cfg->seed = c->seed;
    cfg->eval_every = 1;
    gnn_part_train_defaults(&out->pc);
    out->pc.remote = (gnn_remote_mode)(int)gnn_oracle_int(c, T_REMOTE);
    out->pc.hec_cs = gnn_oracle_int(c, T_CS);
    out->pc.hec_nc = gnn_oracle_int(c, T_NC);
    out->pc.hec_ls = (int32_t)gnn_oracle_int(c, T_LS);
    out->pc.hec_delay = (int)gnn_oracle_int(c, T_D);
    out->ds = ds;
    out->full = full;
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome run_job(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, const tp_input *in, int opt,
                                  int threads, double drop, int delay, tp_job *J)
{
    memset(J, 0, sizeof *J);
    J->ds = in->ds;
    J->full = in->full;
    J->cfg = in->cfg;
    J->cfg.impl = opt ? gnn_impl_opt() : gnn_impl_ref();
    J->pc = in->pc;
    gnn_oracle_defer(ctx, job_free, J);
    gnn_sim_config sc;
    gnn_sim_defaults(&sc);
    sc.ranks = (int)in->full->k;
    sc.threads_per_rank = threads > 0 ? threads : 1;
    sc.faults.seed = c->seed;
    sc.faults.drop_p = drop;
    if (delay > 0) {
        sc.faults.delay_p = 0.5;
        sc.faults.delay_steps = delay;
    }
    gnn_sim_report rep;
    memset(&rep, 0, sizeof rep);
    gnn_err err = { "" };
    const gnn_status st = gnn_sim_run(&sc, rank_fn, J, &rep, &err);
    gnn_sim_report_free(&rep);
    if (st)
        return gnn_oracle_fail(ctx, "%s run: %s", opt ? "impl" : "ref", err.msg[0] ? err.msg : gnn_status_str(st));
    if (J->failed_alloc)
        return gnn_oracle_fail(ctx, "out of memory in the trace");
    return GNN_ORACLE_PASS;
}

/* The caches' sizes, recomputed from the partition without db_halo: rank q owns the halos of
 * part r whose halo_owner is q, so nc_q = max(1, max_r ceil(that count / W)) with the window
 * W = min(ls + 1, M), M = ceil(max_r train_r / batch) steps per epoch, and
 * cs_q = max(1, min(n_halo_q, (ls + 1)(P - 1) nc_q)), unless given. */
static gnn_oracle_outcome check_sizes(gnn_oracle_ctx *ctx, const tp_input *in, const gnn_part_report *rp)
{
    const int P = (int)in->full->k;
    const int64_t ls = in->pc.hec_ls;
    int64_t max_train = 0; /* labelled train vertices of the largest part */
    for (int r = 0; r < P; r++) {
        const gnn_part_local *pr = &in->full->parts[r];
        int64_t n = 0;
        for (int64_t v = 0; v < pr->n_solid; v++) {
            const int64_t g = pr->vid_o[v];
            n += in->ds->split[g] == GNN_SPLIT_TRAIN && in->ds->labels[g] >= 0;
        }
        max_train = n > max_train ? n : max_train;
    }
    const int64_t M = (max_train + in->cfg.batch - 1) / in->cfg.batch;
    const int64_t W = ls + 1 < M ? ls + 1 : M;
    int64_t cs_lo = INT64_MAX, cs_hi = 0, nc_lo = INT64_MAX, nc_hi = 0;
    for (int q = 0; q < P; q++) {
        int64_t nc = in->pc.hec_nc;
        if (nc <= 0) {
            nc = 1;
            for (int r = 0; r < P; r++) {
                const gnn_part_local *pr = &in->full->parts[r];
                int64_t owned = 0;
                for (int64_t i = 0; i < pr->n_halo; i++)
                    owned += pr->halo_owner[i] == q;
                const int64_t need = (owned + W - 1) / W;
                nc = need > nc ? need : nc;
            }
        }
        int64_t cs = in->pc.hec_cs;
        if (cs <= 0) {
            const int64_t want = (ls + 1) * (P - 1) * nc, nh = in->full->parts[q].n_halo;
            cs = want < nh ? want : nh;
            cs = cs < 1 ? 1 : cs;
        }
        cs_lo = cs < cs_lo ? cs : cs_lo;
        cs_hi = cs > cs_hi ? cs : cs_hi;
        nc_lo = nc < nc_lo ? nc : nc_lo;
        nc_hi = nc > nc_hi ? nc : nc_hi;
    }
    if (rp->hec_cs_min != cs_lo || rp->hec_cs_max != cs_hi || rp->hec_nc_min != nc_lo || rp->hec_nc_max != nc_hi)
        return gnn_oracle_fail(ctx, "cache sizes over the ranks: cs %lld..%lld, nc %lld..%lld; expected cs %lld..%lld, "
                               "nc %lld..%lld", (long long)rp->hec_cs_min, (long long)rp->hec_cs_max,
                               (long long)rp->hec_nc_min, (long long)rp->hec_nc_max, (long long)cs_lo,
                               (long long)cs_hi, (long long)nc_lo, (long long)nc_hi);
    return GNN_ORACLE_PASS;
}

static gnn_oracle_outcome tp_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int P = (int)gnn_oracle_int(c, T_RANKS);
    tp_input in;
    gnn_oracle_outcome o = make_input(ctx, c, P, &in);
    if (o != GNN_ORACLE_PASS)
        return o;
    const double drop = (double)gnn_oracle_int(c, T_DROP) / 100.0;
    const int delay = (int)gnn_oracle_int(c, T_DELAY);
    tp_job *R = gnn_oracle_alloc(ctx, sizeof *R), *I = gnn_oracle_alloc(ctx, sizeof *I);
    if (!R || !I)
        return gnn_oracle_fail(ctx, "out of memory");
    if ((o = run_job(ctx, c, &in, 0, 1, drop, delay, R)) != GNN_ORACLE_PASS ||
        (o = run_job(ctx, c, &in, 1, c->threads, drop, delay, I)) != GNN_ORACLE_PASS)
        return o;
    if (R->n_steps != I->n_steps)
        return gnn_oracle_fail(ctx, "steps: ref %lld, impl %lld", (long long)R->n_steps, (long long)I->n_steps);
    gnn_oracle_digest(ctx, I->steps, sizeof(double) * (size_t)I->n_steps);
    o = gnn_oracle_compare_int(ctx, "steps (loss bits)", R->steps, I->steps, R->n_steps, 8);
    o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "final accuracies (bits)", R->acc, I->acc, 3, 8));
    int64_t pushed = 0, received = 0, lookups = 0, hits = 0, all_lookups = 0, all_hits = 0;
    for (int r = 0; r < P && o == GNN_ORACLE_PASS; r++) {
        char name[48];
        snprintf(name, sizeof name, "rank[%d].hec trace", r);
        if (R->n_trace[r] != I->n_trace[r])
            return gnn_oracle_fail(ctx, "rank %d: trace of %lld entries (ref), %lld (impl)", r,
                                   (long long)(R->n_trace[r] / TR_W), (long long)(I->n_trace[r] / TR_W));
        o = gnn_oracle_compare_int(ctx, name, R->trace[r], I->trace[r], R->n_trace[r], 8);
        for (int64_t i = 0; i < R->n_trace[r]; i += TR_W) {
            const int64_t *w = R->trace[r] + i;
            if (w[TR_HITS] > w[TR_LOOKUPS])
                return gnn_oracle_fail(ctx, "rank %d: %lld hits of %lld lookups", r, (long long)w[TR_HITS],
                                       (long long)w[TR_LOOKUPS]);
            received += w[TR_RECEIVED];
            lookups += w[TR_LOOKUPS];
            hits += w[TR_HITS];
        }
    }
    if (o != GNN_ORACLE_PASS)
        return o;
    const gnn_part_report *rp = &R->rep;
    for (int l = 0; l < in.cfg.layers; l++) {
        pushed += rp->pushed_rows[l];
        all_lookups += rp->lookups[l];
        all_hits += rp->hits[l];
    }
    if (in.pc.remote == GNN_REMOTE_HEC && (all_lookups != lookups || all_hits != hits))
        return gnn_oracle_fail(ctx, "the report says %lld lookups and %lld hits, the traces %lld and %lld",
                               (long long)all_lookups, (long long)all_hits, (long long)lookups, (long long)hits);
    const gnn_remote_mode mode = in.pc.remote;
    if (mode == GNN_REMOTE_DROP && (all_hits || pushed || rp->push_bytes || rp->pull_bytes))
        return gnn_oracle_fail(ctx, "drop: %lld hits, %lld pushed, %lld pulled bytes: expected none", (long long)all_hits,
                               (long long)pushed, (long long)rp->pull_bytes);
    if (mode == GNN_REMOTE_DROP && P > 1) { /* the blocks do not depend on the model or the cache: drop looks up
                                               exactly the halos hec looks up, and drops at least its edges */
        tp_input h = in;
        h.pc.remote = GNN_REMOTE_HEC;
        tp_job *H = gnn_oracle_alloc(ctx, sizeof *H);
        if (!H)
            return gnn_oracle_fail(ctx, "out of memory");
        if ((o = run_job(ctx, c, &h, 0, 1, 0.0, 0, H)) != GNN_ORACLE_PASS)
            return o;
        for (int l = 0; l < in.cfg.layers; l++)
            if (H->rep.lookups[l] != rp->lookups[l])
                return gnn_oracle_fail(ctx, "layer %d: drop looked up %lld halos, hec %lld on the same blocks", l,
                                       (long long)rp->lookups[l], (long long)H->rep.lookups[l]);
        if (rp->halo_edges_dropped < H->rep.halo_edges_dropped)
            return gnn_oracle_fail(ctx, "drop removed %lld halo edges, hec (which keeps its hits) %lld",
                                   (long long)rp->halo_edges_dropped, (long long)H->rep.halo_edges_dropped);
    }
    if (mode == GNN_REMOTE_FETCH && (rp->lookups[0] || pushed || (P > 1 && rp->pull_bytes == 0)))
        return gnn_oracle_fail(ctx, "fetch: %lld lookups, %lld pushed, %lld pulled bytes", (long long)rp->lookups[0],
                               (long long)pushed, (long long)rp->pull_bytes);
    if (mode == GNN_REMOTE_HEC && (o = check_sizes(ctx, &in, rp)) != GNN_ORACLE_PASS)
        return o;
    if (mode == GNN_REMOTE_HEC) {
        int64_t rec = 0;
        for (int l = 0; l < in.cfg.layers; l++)
            rec += rp->received_rows[l];
        if (rec != received)
            return gnn_oracle_fail(ctx, "the report says %lld pairs received, the traces %lld", (long long)rec,
                                   (long long)received);
        if (drop == 0.0 && delay == 0 && received != pushed)
            return gnn_oracle_fail(ctx, "no faults: %lld pairs pushed but %lld received", (long long)pushed,
                                   (long long)received);
        if (drop > 0.0 && delay == 0 && pushed > 0 && received >= pushed)
            return gnn_oracle_fail(ctx, "%.0f%% of the pushes dropped, yet %lld of %lld received", 100 * drop,
                                   (long long)received, (long long)pushed);
        if (drop > 0.0 && delay == 0) { /* faults: training went on; the hit rate can only fall (with
                                           cs sized to hold every live line, nothing is evicted early) */
            tp_job *N = gnn_oracle_alloc(ctx, sizeof *N);
            if (!N)
                return gnn_oracle_fail(ctx, "out of memory");
            if ((o = run_job(ctx, c, &in, 0, 1, 0.0, 0, N)) != GNN_ORACLE_PASS)
                return o;
            int64_t nh = 0;
            for (int l = 0; l < in.cfg.layers; l++)
                nh += N->rep.hits[l];
            if (in.pc.hec_cs == 0 && nh < all_hits)
                return gnn_oracle_fail(ctx, "%lld hits with dropped pushes, %lld without", (long long)all_hits,
                                       (long long)nh);
            gnn_oracle_note(ctx, "without faults: %lld hits; test acc %.4f", (long long)nh, N->acc[2]);
        }
    }
    gnn_oracle_note(ctx, "%s, %d ranks, %lld steps: halo lookups %lld, hits %lld; pairs pushed %lld, received %lld; "
                    "cs %lld nc %lld; bytes pushed %lld, pulled %lld; test acc %.4f",
                    gnn_remote_name(mode), P, (long long)R->n_steps, (long long)all_lookups, (long long)all_hits,
                    (long long)pushed, (long long)received, (long long)rp->hec_cs, (long long)rp->hec_nc,
                    (long long)rp->push_bytes, (long long)rp->pull_bytes, R->acc[2]);
    return GNN_ORACLE_PASS;
}

/* One rank: gnn_train_part must be gnn_train. */
static gnn_oracle_outcome single_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    tp_input in;
    gnn_oracle_outcome o = make_input(ctx, c, 1, &in);
    if (o != GNN_ORACLE_PASS)
        return o;
    const int opt = strcmp(c->impl->name, "ref") != 0;
    tp_job *I = gnn_oracle_alloc(ctx, sizeof *I);
    if (!I)
        return gnn_oracle_fail(ctx, "out of memory");
    if ((o = run_job(ctx, c, &in, opt, c->threads, 0.0, 0, I)) != GNN_ORACLE_PASS)
        return o;
    gnn_train_config cfg = in.cfg;
    cfg.impl = opt ? gnn_impl_opt() : gnn_impl_ref();
    gnn_train_result res;
    gnn_err err = { "" };
    gnn_status st = gnn_train(in.ds, &cfg, NULL, NULL, &res, &err);
    if (st)
        return gnn_oracle_fail(ctx, "gnn_train: %s", err.msg);
    double *want = gnn_oracle_alloc(ctx, sizeof(double) * (size_t)(res.n_steps + 1));
    if (!want) {
        gnn_train_result_free(&res);
        return gnn_oracle_fail(ctx, "out of memory");
    }
    memcpy(want, res.step_loss, sizeof(double) * (size_t)res.n_steps);
    const double acc[3] = { res.train_acc, res.val_acc, res.test_acc };
    const int64_t n = res.n_steps;
    gnn_train_result_free(&res);
    if (n != I->n_steps)
        return gnn_oracle_fail(ctx, "steps: gnn_train %lld, gnn_train_part %lld", (long long)n, (long long)I->n_steps);
    gnn_oracle_digest(ctx, I->steps, sizeof(double) * (size_t)n);
    o = gnn_oracle_compare_int(ctx, "steps (loss bits) vs gnn_train", want, I->steps, n, 8);
    o = gnn_oracle_worst(o, gnn_oracle_compare_int(ctx, "final accuracies vs gnn_train", acc, I->acc, 3, 8));
    if (o == GNN_ORACLE_PASS)
        gnn_oracle_note(ctx, "%s: %lld steps equal gnn_train's; test acc %.4f", gnn_remote_name(in.pc.remote),
                        (long long)n, acc[2]);
    return o;
}

static const gnn_oracle_impl k_tp_ref = { .name = "ref", .ops = NULL, .flags = 0 };
static const gnn_oracle_impl k_tp_opt = { .name = "opt", .ops = NULL, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_tp_impls[] = { &k_tp_opt, NULL };
static const gnn_oracle_impl *const k_tp_single_impls[] = { &k_tp_ref, &k_tp_opt, NULL };

static const char *const k_tp_presets[] = {
    "model=0,remote=1,ranks=2,scale=8,method=3,layers=2,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    "model=0,remote=1,ranks=4,scale=9,method=3,layers=3,cs=0,nc=6,ls=2,d=1,drop=0,delay=0",
    "model=0,remote=1,ranks=3,scale=8,method=2,layers=2,cs=7,nc=3,ls=0,d=2,drop=0,delay=0",
    "model=0,remote=1,ranks=5,scale=8,method=0,layers=2,cs=1,nc=1,ls=1,d=1,drop=0,delay=0",
    "model=0,remote=1,ranks=4,scale=8,method=3,layers=2,cs=0,nc=0,ls=2,d=1,drop=10,delay=0",
    "model=0,remote=1,ranks=4,scale=8,method=3,layers=2,cs=0,nc=0,ls=2,d=1,drop=0,delay=2",
    "model=1,remote=1,ranks=3,scale=8,method=3,layers=2,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    "model=2,remote=1,ranks=2,scale=9,method=1,layers=2,cs=0,nc=0,ls=3,d=3,drop=0,delay=0",
    "model=0,remote=0,ranks=4,scale=8,method=3,layers=2,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    "model=1,remote=0,ranks=2,scale=7,method=2,layers=1,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    "model=0,remote=2,ranks=4,scale=8,method=3,layers=2,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    "model=1,remote=2,ranks=3,scale=7,method=0,layers=2,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    "model=0,remote=1,ranks=8,scale=9,method=0,layers=2,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    "model=0,remote=1,ranks=8,scale=3,method=0,layers=2,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    "model=1,remote=0,ranks=8,scale=3,method=0,layers=2,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    "model=0,remote=2,ranks=8,scale=3,method=0,layers=2,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    /* 3 layers on 2^12 vertices: blocks of over 256 rows, wider than every chunk, tile and
     * SIMD block of the optimized kernels (GAT's attention-vector sums, the UPDATE's row
     * blocks, the samplers' work items), so a kernel whose order differs from ref shows here */
    "model=1,remote=1,ranks=2,scale=12,method=3,layers=3,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    "model=0,remote=1,ranks=2,scale=12,method=3,layers=3,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    "model=2,remote=2,ranks=3,scale=11,method=3,layers=3,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    NULL,
};

const gnn_oracle_entry gnn_oracle_train_part = {
    .name = "train.part",
    .what = "distributed training on partitions (drop, hec, fetch) under the simulator: optimized vs reference "
            "kernels, cache, push selection and sampler give the same losses, accuracies and HEC traces (state CRC "
            "per step and layer) on every rank; pushes are all received without faults, fewer with dropped ones",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "every choice is keyed and the sage/gin/gat kernels are bitwise between ref and cpu, so the whole run is",
    .params = k_t_params, .n_params = N_T_PARAMS, .presets = k_tp_presets,
    .ref = &k_tp_ref, .impls = k_tp_impls, .run = tp_run,
};

static const char *const k_single_presets[] = {
    "model=0,remote=1,ranks=1,scale=8,method=3,layers=2,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    "model=0,remote=0,ranks=1,scale=7,method=0,layers=3,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    "model=0,remote=2,ranks=1,scale=8,method=2,layers=2,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    "model=1,remote=1,ranks=1,scale=7,method=3,layers=2,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    "model=1,remote=2,ranks=1,scale=7,method=1,layers=2,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    "model=2,remote=1,ranks=1,scale=7,method=3,layers=1,cs=0,nc=0,ls=2,d=1,drop=0,delay=0",
    NULL,
};

const gnn_oracle_entry gnn_oracle_train_part_single = {
    .name = "train.part.single",
    .what = "with one rank, training on a partition (every remote mode) is gnn_train on the same graph, bit for bit",
    .tol = { GNN_CMP_VERIFY, 0, 0 },
    .reason = "one part is the whole graph, and sampling, dropout and the epoch order are keyed by global id",
    .params = k_t_params, .n_params = N_T_PARAMS, .presets = k_single_presets,
    .ref = &k_tp_ref, .impls = k_tp_single_impls, .run = single_run,
};
