/* core/train/epoch.c -- the epoch loop both trainers share, and the end of their steps (core/train/epoch.h
 * states the contract). The loop's order of events is part of what the trainers' reports and
 * the oracle's step losses rely on: shuffle, steps, evaluation, the trainer's epoch figures,
 * then the epoch's time and bytes, then the callback. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/train/epoch.h"
#include "gnnref/crc32c.h"
#include "gnnref/rng.h"
#include "gnnref/team.h"

/* Bytes this rank has sent through its communicator so far (every operation). */
static int64_t sent_bytes(const gnn_comm *c)
{
    int64_t b = 0;
    if (c)
        for (int i = 0; i < GNN_COMM_OP_COUNT * c->size; i++)
            b += c->traffic.bytes[i];
    return b;
}

/* A callback may name its failure in err; one it did not name gets a generic message. */
static int named(const gnn_err *err)
{
    return err && err->msg[0];
}

/* ---- the record of steps and evaluations, and early stopping (only this loop uses them) ---- */

/* Record a finished step of epoch ep (steps_per_epoch for the progress callback): its loss
 * into res->step_loss, the epoch's step count and loss sum, the global step, c->on_step. */
static void record_step(gnn_train_result *res, gnn_epoch_stats *E, const gnn_train_config *c, int ep,
                        int64_t steps_per_epoch, double loss, double *loss_sum, uint32_t *step)
{
    res->step_loss[res->n_steps++] = loss;
    *loss_sum += loss;
    ++*step;
    E->steps++;
    if (c->on_step)
        c->on_step(ep, E->steps, steps_per_epoch, loss, c->on_step_ctx);
}

/* Early stopping's state between evaluations (checkpointed with the loop: put_loop, get_loop). */
typedef struct stop_state {
    double best_val_loss;  /* the val loss of the best epoch (acc's tie-break) */
    int since;             /* evaluations since the rule last restarted patience */
    double max_val_acc;    /* gat: the highest val accuracy so far (0 at first, as the authors') */
    double min_val_loss;   /* gat: the lowest val loss so far (+inf at first) */
} stop_state;

static void stop_state_init(stop_state *s)
{
    s->best_val_loss = INFINITY;
    s->since = 0;
    s->max_val_acc = 0.0;
    s->min_val_loss = INFINITY;
}

/* Keep epoch ep's model: the figures a restore of it would report. */
static void keep(gnn_train_result *res, int ep, const double acc[4])
{
    res->restored_epoch = ep;
    res->test_acc_restored = acc[3];
}

/* Record an evaluation (acc[1..3]: train, val, test; vloss: val loss) of epoch ep into E and
 * res. The best epoch is the highest val accuracy, ties to the lower val loss, under either
 * rule. Patience and the kept model follow c->stop_rule (train.h, gnn_stop_rule): acc restarts
 * patience at a better epoch and keeps it; gat restarts patience when the val accuracy is >= its
 * maximum or the val loss <= its minimum, and keeps the model when both are. With
 * c->patience > 0, returns 1 (stop) after `patience` evaluations without a restart (never at
 * the last epoch); the final accuracies are taken at the last or stopping epoch. */
static int record_eval(gnn_train_result *res, gnn_epoch_stats *E, const double acc[4], double vloss, int ep,
                       int last, const gnn_train_config *c, stop_state *s)
{
    E->train_acc = acc[1];
    E->val_acc = acc[2];
    E->test_acc = acc[3];
    E->val_loss = vloss;
    /* best: a higher val accuracy, or the same with a lower val loss */
    const int better = acc[2] > res->best_val_acc || (acc[2] == res->best_val_acc && vloss < s->best_val_loss);
    if (better) {
        res->best_val_acc = acc[2];
        res->test_acc_at_best_val = acc[3];
        res->best_epoch = ep;
        s->best_val_loss = vloss;
    }
    int restart = better;
    if (c->stop_rule == GNN_STOP_GAT) { /* execute_cora.py: either extreme restarts, both save */
        const int acc_up = acc[2] >= s->max_val_acc, loss_down = vloss <= s->min_val_loss;
        restart = acc_up || loss_down;
        if (acc_up && loss_down)
            keep(res, ep, acc);
        if (acc_up)
            s->max_val_acc = acc[2];
        if (loss_down)
            s->min_val_loss = vloss;
    } else if (better) {
        keep(res, ep, acc);
    }
    int stop = 0;
    if (restart)
        s->since = 0;
    else if (++s->since >= c->patience && c->patience > 0 && !last)
        stop = 1;
    if (last || stop) {
        res->train_acc = acc[1];
        res->val_acc = acc[2];
        res->test_acc = acc[3];
    }
    return stop;
}

/* Epoch ep's steps: @alg{DistGNN-MB 2, line 4} (CreateMinibatches: this epoch's order of the
 * train ids, Fisher-Yates with (seed, SHUFFLE, step = epoch, id = plan->shuffle_id)), then
 * @alg{DistGNN-MB 2, line 5} (for each mini-batch, 0 <= k < M). E->loss: the steps' mean. */
static gnn_status run_steps(const epoch_plan *p, const epoch_ops *ops, void *self, int ep, int64_t *order,
                            uint32_t *step, gnn_team *team, gnn_epoch_stats *E, gnn_train_result *res,
                            gnn_err *err)
{
    const gnn_train_config *c = p->cfg;
    if (p->train) {
        memcpy(order, p->train, (size_t)p->n_train * sizeof(int64_t));
        const gnn_rng_stream sh = gnn_rng_stream_make(c->seed, GNN_TAG_SHUFFLE, (uint32_t)ep, 0, p->shuffle_id);
        gnn_rng_shuffle_i64(&sh, order, p->n_train);
    }
    double loss_sum = 0.0, team_sum = 0.0;
    for (int64_t k = 0; k < p->steps; k++) {
        double loss = 0.0;
        /* the team size may change between steps (team.h); the step's work is its sampled
         * edges, so a short last batch is not taken for a faster team */
        team_sum += gnn_team_begin(team);
        const double t0 = gnn_now_s();
        const int64_t edges0 = E->edges_sampled;
        gnn_status st = ops->step(self, p->train ? order : NULL, k, *step, E, &loss, err);
        gnn_team_end(team, gnn_now_s() - t0, (double)(E->edges_sampled - edges0));
        if (st) {
            /* a communication failure gets the communicator's message, which names the
             * operation and the ranks; any other keeps the step's own message if it has one */
            if (st == GNN_ERR_COMM || !named(err))
                gnn_err_set(err, st, "training step %u failed: %s", *step,
                            st == GNN_ERR_COMM ? gnn_comm_errmsg(p->comm) : gnn_status_str(st));
            return st;
        }
        record_step(res, E, c, ep, p->steps, loss, &loss_sum, step);
    }
    E->loss = E->steps ? loss_sum / (double)E->steps : 0.0;
    E->team_mean = p->steps ? team_sum / (double)p->steps : 0.0;
    return GNN_OK;
}

/* Evaluate the model after epoch ep and record it (best epoch, early stopping): *stop = 1
 * when patience has run out. With root_evaluates, every rank holds the same model, so rank 0
 * evaluates alone and broadcasts the figures. */
static gnn_status evaluate_epoch(const epoch_plan *p, const epoch_ops *ops, void *self, int ep, gnn_epoch_stats *E,
                                 gnn_train_result *res, stop_state *ss, int *stop, gnn_err *err)
{
    const gnn_train_config *c = p->cfg;
    double acc[4] = { 0 }, vloss = 0.0;
    const double tv = gnn_now_s();
    gnn_status st;
    if ((!p->root_evaluates || gnn_comm_rank(p->comm) == 0) && (st = ops->evaluate(self, acc, &vloss, err))) {
        if (!named(err))
            gnn_err_set(err, st, "evaluation failed: %s", gnn_status_str(st));
        return st;
    }
    E->phase_s[GNN_PHASE_EVAL] += gnn_now_s() - tv;
    if (p->root_evaluates && gnn_comm_size(p->comm) > 1) {
        double b[5] = { acc[0], acc[1], acc[2], acc[3], vloss };
        const double tc = gnn_now_s();
        if ((st = gnn_comm_bcast(p->comm, b, 5, GNN_DT_F64, 0)))
            return gnn_err_set(err, st, "broadcasting the evaluation: %s", gnn_comm_errmsg(p->comm));
        E->phase_s[GNN_PHASE_COMM] += gnn_now_s() - tc;
        memcpy(acc, b, 4 * sizeof(double));
        vloss = b[4];
    }
    const int last = ep == c->epochs - 1;
    *stop = record_eval(res, E, acc, vloss, ep, last, c, ss);
    return GNN_OK;
}

/* ---- checkpoints ------------------------------------------------------------------------ */

/* The loop's own state: everything run_steps and evaluate_epoch read besides the trainer's. */
enum { LOOP_N = 16, EPOCH_N = 12 + GNN_PHASE_COUNT + 2 * GNN_MAX_LAYERS };

/* Slots 12-14 hold the gat stop rule's state (the extremes, the kept epoch), read back only
 * under gat: under acc the kept model is the best epoch, so files written before the rule
 * existed (zeros there) read back as they did. */
static void put_loop(gnn_ckpt *w, const gnn_train_result *res, const stop_state *ss)
{
    const double v[LOOP_N] = { res->n_epochs, res->n_steps, res->best_val_acc, res->test_acc_at_best_val,
                               res->best_epoch, res->stopped_early, res->stop_epoch, res->train_acc,
                               res->val_acc, res->test_acc, ss->best_val_loss, ss->since,
                               ss->max_val_acc, ss->min_val_loss, res->restored_epoch, 0 };
    gnn_ckpt_put(w, GNN_CKPT_SEC_LOOP, v, sizeof v);
    gnn_ckpt_put(w, GNN_CKPT_SEC_STEPS, res->step_loss, (size_t)res->n_steps * sizeof(double));
    double *e = calloc((size_t)res->n_epochs * EPOCH_N + 1, sizeof(double));
    if (!e) {
        w->failed = 1;
        return;
    }
    for (int i = 0; i < res->n_epochs; i++) {
        const gnn_epoch_stats *E = &res->epochs[i];
        double *x = e + (size_t)i * EPOCH_N;
        int k = 0;
        x[k++] = E->epoch, x[k++] = E->loss, x[k++] = E->val_loss, x[k++] = E->train_acc, x[k++] = E->val_acc;
        x[k++] = E->test_acc, x[k++] = E->time_s, x[k++] = (double)E->steps, x[k++] = (double)E->edges_sampled;
        x[k++] = (double)E->comm_bytes, x[k++] = (double)E->push_bytes, x[k++] = (double)E->pull_bytes;
        for (int j = 0; j < GNN_PHASE_COUNT; j++)
            x[k++] = E->phase_s[j];
        for (int l = 0; l < GNN_MAX_LAYERS; l++)
            x[k++] = (double)E->hec_lookups[l], x[k++] = (double)E->hec_hits[l];
    }
    gnn_ckpt_put(w, GNN_CKPT_SEC_EPOCHS, e, (size_t)res->n_epochs * EPOCH_N * sizeof(double));
    free(e);
}

/* x as an integer in [lo, hi] into *out; 0, or -1 when it is not one (NaN, a fraction, out of
 * range). The loop's counts are kept as doubles in the file: a value read back is checked before
 * it is converted, since converting a double outside the integer type's range is undefined
 * (fuzz_ckpt, docs/fuzzing.md finding 5). */
static int whole(double x, double lo, double hi, int64_t *out)
{
    if (!(x >= lo && x <= hi) || x != floor(x))
        return -1;
    *out = (int64_t)x;
    return 0;
}

#define COUNT_MAX 9007199254740992.0 /* 2^53: every count a run can reach, exact as a double */

static gnn_status get_epoch_stats(const gnn_ckpt *r, const double *x, int i, int epochs, gnn_epoch_stats *E,
                                  gnn_err *err)
{
    int64_t w[6] = { 0 };
    int bad = 0;
    bad |= whole(x[0], 0, epochs - 1, &w[0]);
    E->loss = x[1], E->val_loss = x[2], E->train_acc = x[3], E->val_acc = x[4], E->test_acc = x[5];
    E->time_s = x[6];
    for (int j = 0; j < 5; j++) /* steps, edges sampled, bytes communicated, pushed, pulled */
        bad |= whole(x[7 + j], 0, COUNT_MAX, &w[1 + j]);
    int k = 12;
    for (int j = 0; j < GNN_PHASE_COUNT; j++)
        E->phase_s[j] = x[k++];
    int64_t hl[2 * GNN_MAX_LAYERS] = { 0 };
    for (int l = 0; l < 2 * GNN_MAX_LAYERS; l++)
        bad |= whole(x[k++], 0, COUNT_MAX, &hl[l]);
    if (bad)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: epoch %d's figures hold a count that is not a whole number in "
                                                "range (or an epoch outside 0..%d)",
                           r->path, i, epochs - 1);
    E->epoch = (int)w[0];
    E->steps = w[1], E->edges_sampled = w[2], E->comm_bytes = w[3], E->push_bytes = w[4], E->pull_bytes = w[5];
    for (int l = 0; l < GNN_MAX_LAYERS; l++)
        E->hec_lookups[l] = hl[2 * l], E->hec_hits[l] = hl[2 * l + 1];
    return GNN_OK;
}

static gnn_status get_loop(const gnn_ckpt *r, const epoch_plan *p, gnn_train_result *res, stop_state *ss,
                           gnn_err *err)
{
    double v[LOOP_N];
    gnn_status st = gnn_ckpt_read(r, GNN_CKPT_SEC_LOOP, v, sizeof v, err);
    if (st)
        return st;
    const int E = p->cfg->epochs;
    int64_t ne = -1, ns = -1, best = 0, early = 0, stop_ep = 0, since = 0, kept = -1;
    if (whole(v[0], 0, E, &ne) || whole(v[1], 0, COUNT_MAX, &ns) || ne != r->epochs_done ||
        ns != ne * p->steps || ns != (int64_t)r->step)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: %g epochs and %g steps recorded at step %u: this run has %lld "
                                                "steps per epoch and %d epochs",
                           r->path, v[0], v[1], r->step, (long long)p->steps, E);
    const int gat = p->cfg->stop_rule == GNN_STOP_GAT;
    if (whole(v[4], -1, E, &best) || whole(v[5], 0, 1, &early) || whole(v[6], -1, E, &stop_ep) ||
        whole(v[11], 0, E, &since) || (gat && whole(v[14], -1, (double)ne - 1, &kept)))
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: the loop's state is out of range (best epoch %g, stopped early "
                                                "%g, stop epoch %g, epochs since the best %g, kept epoch %g; %d "
                                                "epochs)",
                           r->path, v[4], v[5], v[6], v[11], v[14], E);
    res->n_epochs = (int)ne;
    res->n_steps = ns;
    res->best_val_acc = v[2], res->test_acc_at_best_val = v[3], res->best_epoch = (int)best;
    res->stopped_early = (int)early, res->stop_epoch = (int)stop_ep;
    res->train_acc = v[7], res->val_acc = v[8], res->test_acc = v[9];
    ss->best_val_loss = v[10];
    ss->since = (int)since;
    if (gat)
        ss->max_val_acc = v[12], ss->min_val_loss = v[13];
    res->restored_epoch = gat ? (int)kept : res->best_epoch; /* its test accuracy: from the epochs, below */
    if ((st = gnn_ckpt_read(r, GNN_CKPT_SEC_STEPS, res->step_loss, (size_t)ns * sizeof(double), err)))
        return st;
    const void *ep;
    size_t nb;
    if ((st = gnn_ckpt_get(r, GNN_CKPT_SEC_EPOCHS, &ep, &nb, err)))
        return st;
    if (nb != (size_t)ne * EPOCH_N * sizeof(double))
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: the epochs' section has %zu bytes, not %zu", r->path, nb,
                           (size_t)ne * EPOCH_N * sizeof(double));
    for (int i = 0; i < ne; i++) {
        double x[EPOCH_N];
        memcpy(x, (const unsigned char *)ep + (size_t)i * EPOCH_N * sizeof(double), sizeof x);
        if ((st = get_epoch_stats(r, x, i, E, &res->epochs[i], err)))
            return st;
    }
    if (res->restored_epoch >= 0)
        res->test_acc_restored = res->epochs[res->restored_epoch].test_acc;
    return GNN_OK;
}

/* After epoch ep (epochs_done = ep + 1): every rank writes its file as path.tmp; once all have
 * (the allreduce of the failures is the barrier), each renames its own. A rank that fails
 * makes every rank fail, and no rank renames. */
static gnn_status save_checkpoint(const epoch_plan *p, const epoch_ops *ops, void *self, const gnn_train_result *res,
                                  uint32_t step, const stop_state *ss, gnn_err *err)
{
    const gnn_train_config *c = p->cfg;
    const int P = gnn_comm_size(p->comm);
    gnn_ckpt w;
    gnn_status st = gnn_ckpt_begin(&w, p->fp, res->n_epochs, step);
    if (!st) {
        put_loop(&w, res, ss);
        if (ops->save)
            st = ops->save(self, &w, err);
    }
    if (!st)
        st = gnn_ckpt_commit(&w, c->checkpoint_dir, P > 1, err);
    else if (!named(err))
        gnn_err_set(err, st, "checkpoint %s: %s", c->checkpoint_dir, gnn_status_str(st));
    gnn_ckpt_free(&w);
    if (P > 1) {
        double bad = st ? 1.0 : 0.0;
        gnn_status cs = gnn_comm_allreduce(p->comm, &bad, &bad, 1, GNN_DT_F64);
        if (cs)
            return gnn_err_set(err, cs, "checkpoint %s: %s", c->checkpoint_dir, gnn_comm_errmsg(p->comm));
        if (st)
            return st;
        if (bad > 0)
            return gnn_err_set(err, GNN_ERR_IO, "checkpoint %s: another rank could not write its file",
                               c->checkpoint_dir);
        st = gnn_ckpt_rename(c->checkpoint_dir, gnn_comm_rank(p->comm), err);
    }
    return st;
}

gnn_status gnn_epoch_resume_open(gnn_comm *comm, const char *dir, const gnn_ckpt_fingerprint *fp, gnn_ckpt *r,
                                 gnn_err *err)
{
    gnn_status st = gnn_ckpt_open(r, dir, fp, err);
    const int P = gnn_comm_size(comm), me = gnn_comm_rank(comm);
    if (P > 1) {
        /* v: each rank's failure flag, then the sums of the epochs and of their squares */
        double *v = calloc((size_t)P + 2, sizeof(double));
        if (!v) {
            gnn_ckpt_free(r);
            return gnn_err_set(err, GNN_ERR_NOMEM, "resume %s: out of memory", dir);
        }
        const double e = st ? 0.0 : (double)r->epochs_done;
        v[me] = st ? 1.0 : 0.0;
        v[P] = e;
        v[P + 1] = e * e;
        gnn_status cs = gnn_comm_allreduce(comm, v, v, P + 2, GNN_DT_F64);
        int first = -1; /* the lowest rank that failed: its message goes to every rank */
        for (int q = 0; q < P && !cs && first < 0; q++)
            if (v[q] > 0)
                first = q;
        char msg[sizeof err->msg];
        memset(msg, 0, sizeof msg);
        if (first == me && err)
            memcpy(msg, err->msg, sizeof msg - 1);
        if (!cs && first >= 0)
            cs = gnn_comm_bcast(comm, msg, (int64_t)sizeof msg, GNN_DT_U8, first);
        const double sum = v[P], sq = v[P + 1];
        free(v);
        if (cs)
            st = gnn_err_set(err, cs, "resume %s: %s", dir, gnn_comm_errmsg(comm));
        else if (first >= 0 && first != me)
            st = gnn_err_set(err, GNN_ERR_INVAL, "resume %s: rank %d cannot use its checkpoint: %.400s", dir, first,
                             msg);
        else if (!st && (double)P * sq != sum * sum)
            st = gnn_err_set(err, GNN_ERR_FORMAT, "resume %s: the ranks' files were written after different epochs "
                                                  "(this rank's: %d; a checkpoint interrupted between renames): "
                                                  "start afresh",
                             dir, r->epochs_done);
    }
    if (st)
        gnn_ckpt_free(r);
    return st;
}

void gnn_ckpt_put_model(gnn_ckpt *w, const model *m)
{
    for (int l = 0; l < m->L; l++) {
        const size_t b = (size_t)m->layer[l].count * sizeof(float);
        gnn_ckpt_put(w, GNN_CKPT_SEC_MODEL + 3 * (uint32_t)l, m->layer[l].p, b);
        gnn_ckpt_put(w, GNN_CKPT_SEC_MODEL + 3 * (uint32_t)l + 1, m->layer[l].m, b);
        gnn_ckpt_put(w, GNN_CKPT_SEC_MODEL + 3 * (uint32_t)l + 2, m->layer[l].v, b);
    }
}

gnn_status gnn_ckpt_get_model(const gnn_ckpt *r, model *m, gnn_err *err)
{
    gnn_status st = GNN_OK;
    for (int l = 0; l < m->L && !st; l++) {
        const size_t b = (size_t)m->layer[l].count * sizeof(float);
        if ((st = gnn_ckpt_read(r, GNN_CKPT_SEC_MODEL + 3 * (uint32_t)l, m->layer[l].p, b, err)) ||
            (st = gnn_ckpt_read(r, GNN_CKPT_SEC_MODEL + 3 * (uint32_t)l + 1, m->layer[l].m, b, err)))
            break;
        st = gnn_ckpt_read(r, GNN_CKPT_SEC_MODEL + 3 * (uint32_t)l + 2, m->layer[l].v, b, err);
    }
    return st;
}

uint32_t gnn_model_crc(const model *m, int state)
{
    uint32_t crc = 0;
    for (int l = 0; l < m->L; l++) {
        const size_t b = (size_t)m->layer[l].count * sizeof(float);
        crc = gnn_crc32c(crc, m->layer[l].p, b);
        if (state) {
            crc = gnn_crc32c(crc, m->layer[l].m, b);
            crc = gnn_crc32c(crc, m->layer[l].v, b);
        }
    }
    return crc;
}

gnn_status gnn_train_epochs(const epoch_plan *p, const epoch_ops *ops, void *self, gnn_train_result *res,
                            gnn_err *err)
{
    const gnn_train_config *c = p->cfg;
    res->epochs = calloc((size_t)c->epochs + 1, sizeof(gnn_epoch_stats));
    res->step_loss = calloc((size_t)(p->steps * c->epochs) + 1, sizeof(double));
    int64_t *order = p->train ? gnn_malloc((size_t)(p->n_train + 1) * sizeof(int64_t)) : NULL;
    gnn_status st = GNN_ERR_NOMEM;
    /* one rank only: with several, a step's time is also the other ranks' wait */
    gnn_team team;
    gnn_team_init(&team, 0, c->adapt_threads && gnn_comm_size(p->comm) == 1);
    gnn_team_expect(&team, p->steps * (int64_t)c->epochs);
    if (!res->epochs || !res->step_loss || (p->train && !order))
        goto done;
    res->best_val_acc = -1.0;
    res->stop_epoch = -1;
    res->restored_epoch = -1;
    stop_state ss;
    stop_state_init(&ss);
    uint32_t step = 0;
    int ep0 = 0;
    if (p->resume) { /* the loop's state, then the trainer's: the next step reads nothing else */
        if ((st = get_loop(p->resume, p, res, &ss, err)) ||
            (ops->load && (st = ops->load(self, p->resume, err))))
            goto done;
        ep0 = res->n_epochs;
        step = p->resume->step;
        res->resumed_epochs = ep0;
    }
    for (int ep = ep0; ep < c->epochs && !res->stopped_early; ep++) { /* @alg{DistGNN-MB 2, line 3} */
        gnn_epoch_stats *E = &res->epochs[ep];
        E->epoch = ep;
        E->train_acc = E->val_acc = E->test_acc = E->val_loss = -1.0;
        const double te0 = gnn_now_s();
        const int64_t bytes0 = sent_bytes(p->comm);
        if (ops->begin && (st = ops->begin(self, ep, err)))
            goto done;
        if ((st = run_steps(p, ops, self, ep, order, &step, &team, E, res, err)))
            goto done;
        gnn_team_apply(&team); /* the evaluation runs on the chosen team, never a probe's */
        int stop = 0;
        if ((c->eval_every > 0 && (ep + 1) % c->eval_every == 0) || ep == c->epochs - 1)
            if ((st = evaluate_epoch(p, ops, self, ep, E, res, &ss, &stop, err)))
                goto done;
        if (ops->end && (st = ops->end(self, E, err)))
            goto done;
        E->time_s = gnn_now_s() - te0;
        E->comm_bytes = sent_bytes(p->comm) - bytes0;
        res->n_epochs = ep + 1;
        if (p->cb)
            p->cb(E, p->cb_ctx);
        if (stop) {
            res->stopped_early = 1;
            res->stop_epoch = ep;
        }
        const int every = c->checkpoint_every > 0 ? c->checkpoint_every : 1;
        if (c->checkpoint_dir && p->fp && ((ep + 1) % every == 0 || stop || ep == c->epochs - 1) &&
            (st = save_checkpoint(p, ops, self, res, step, &ss, err)))
            goto done;
        if (stop)
            break;
    }
    if (res->best_val_acc < 0)
        res->best_val_acc = 0;
    if (res->restored_epoch < 0) { /* nothing kept (gat with a NaN val loss throughout): the final model */
        res->restored_epoch = res->n_epochs - 1;
        res->test_acc_restored = res->test_acc;
    }
    st = GNN_OK;
done:
    gnn_team_restore(&team);
    gnn_free(order);
    return st;
}

gnn_status gnn_step_reduce_update(model *m, const gnn_train_config *c, gnn_comm *comm, float *gbuf, int64_t n_params,
                                  uint32_t step, double sums[2], double *phase)
{
    return gnn_step_reduce_update_extra(m, c, comm, gbuf, n_params, NULL, 0, step, sums, phase);
}

gnn_status gnn_step_reduce_update_extra(model *m, const gnn_train_config *c, gnn_comm *comm, float *gbuf,
                                        int64_t n_params, float *extra_g, int64_t n_extra, uint32_t step,
                                        double sums[2], double *phase)
{
    if (gnn_comm_size(comm) > 1) { /* ARed: one f32 allreduce of every layer's gradient, packed */
        const double t0 = gnn_now_s();
        int64_t o = 0;
        for (int l = 0; l < m->L; l++) {
            memcpy(gbuf + o, m->layer[l].g, (size_t)m->layer[l].count * sizeof(float));
            o += m->layer[l].count;
        }
        if (n_extra > 0)
            memcpy(gbuf + o, extra_g, (size_t)n_extra * sizeof(float));
        gnn_status st = gnn_comm_allreduce(comm, gbuf, gbuf, n_params + n_extra, GNN_DT_F32);
        if (!st)
            st = gnn_comm_allreduce(comm, sums, sums, 2, GNN_DT_F64);
        if (st)
            return st;
        o = 0;
        for (int l = 0; l < m->L; l++) {
            memcpy(m->layer[l].g, gbuf + o, (size_t)m->layer[l].count * sizeof(float));
            o += m->layer[l].count;
        }
        if (n_extra > 0)
            memcpy(extra_g, gbuf + o, (size_t)n_extra * sizeof(float));
        phase[GNN_PHASE_COMM] += gnn_now_s() - t0;
    }
    const double t1 = gnn_now_s();
    gnn_model_adam(m, c, step);
    phase[GNN_PHASE_UPDATE] += gnn_now_s() - t1;
    return GNN_OK;
}
