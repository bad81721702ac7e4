/* core/epoch.c -- the epoch loop both trainers share, and the end of their steps (core/epoch.h
 * states the contract). The loop's order of events is part of what the trainers' reports and
 * the oracle's step losses rely on: shuffle, steps, evaluation, the trainer's epoch figures,
 * then the epoch's time and bytes, then the callback. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/epoch.h"
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
        gnn_train_record_step(res, E, c, ep, p->steps, loss, &loss_sum, step);
    }
    E->loss = E->steps ? loss_sum / (double)E->steps : 0.0;
    E->team_mean = p->steps ? team_sum / (double)p->steps : 0.0;
    return GNN_OK;
}

/* Evaluate the model after epoch ep and record it (best epoch, early stopping): *stop = 1
 * when patience has run out. With root_evaluates, every rank holds the same model, so rank 0
 * evaluates alone and broadcasts the figures. */
static gnn_status evaluate_epoch(const epoch_plan *p, const epoch_ops *ops, void *self, int ep, gnn_epoch_stats *E,
                                 gnn_train_result *res, double *best_val_loss, int *since_best, int *stop,
                                 gnn_err *err)
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
    *stop = gnn_train_record_eval(res, E, acc, vloss, ep, last, c->patience, best_val_loss, since_best);
    return GNN_OK;
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
    double best_val_loss = INFINITY;
    int since_best = 0;
    uint32_t step = 0;
    for (int ep = 0; ep < c->epochs; ep++) { /* @alg{DistGNN-MB 2, line 3} */
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
            if ((st = evaluate_epoch(p, ops, self, ep, E, res, &best_val_loss, &since_best, &stop, err)))
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
            break;
        }
    }
    if (res->best_val_acc < 0)
        res->best_val_acc = 0;
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
