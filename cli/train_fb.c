/* cli/train_fb.c -- one rank of `gnnref train --mode fullbatch` on partitions (cli/train.h):
 * SuperGCN's distributed full-batch training, gnn_train_fullbatch_dist
 * (include/gnnref/train_fullbatch.h, docs/fullbatch.md).
 *
 * What the ranks share is prepared once per process by the first rank to arrive (as
 * cli/train_run.c does): the part vector, from a saved set (--partitions DIR: its manifest is
 * checked against the run and --data, and its split becomes the run's) or computed in memory
 * from --data with K = --parts = ranks (--part-method, --part-balance). Every rank then trains
 * on the whole dataset's rows it owns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/parts.h"
#include "cli/train.h"
#include "gnnref/impl.h"

/* The part vector (and a set's split over the whole graph), prepared once. */
static gnn_status prepare_fb(void *arg, int P, gnn_err *err)
{
    train_job *J = arg;
    train_opts *o = &J->o;
    const gnn_dataset *ds = J->ds;
    const int64_t n = ds->graph.n;
    gnn_status st;
    if (o->fb_parts > 0 && o->fb_parts != P)
        return gnn_err_set(err, GNN_ERR_INVAL, "--parts %lld but the run has %d rank%s: one part per rank",
                           (long long)o->fb_parts, P, P == 1 ? "" : "s");
    if (P > n)
        return gnn_err_set(err, GNN_ERR_INVAL, "%d ranks for %lld vertices: at most one rank per vertex", P,
                           (long long)n);
    if (!(J->fb_part = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1))))
        return gnn_err_set(err, GNN_ERR_NOMEM, "out of memory");
    if (o->parts_dir) {
        const gnn_part_manifest *m = &J->man;
        if ((st = gnn_partition_manifest_load(o->parts_dir, &J->man, err)) ||
            (st = cli_set_check(m, o->parts_dir, P, ds, o->data,
                                ": full batch on partitions reads the set's dataset as --data", err)) ||
            (st = gnn_partition_load(o->parts_dir, &J->full, NULL, NULL, err)))
            return st;
        o->po.method = m->method; /* reported: how the set was made */
        o->po.k = m->k;
        o->po.seed = m->seed;
        o->po.balance = m->balance;
        memcpy(J->fb_part, J->full.part, sizeof(int32_t) * (size_t)n);
        /* the set's split, over the whole graph: each part's train/val/test ids */
        if (!(J->fb_split = calloc((size_t)(n > 0 ? n : 1), 1)))
            return gnn_err_set(err, GNN_ERR_NOMEM, "out of memory");
        for (int64_t p = 0; p < J->full.k; p++) {
            const gnn_part_local *L = &J->full.parts[p];
            for (int64_t i = 0; i < L->n_train; i++)
                J->fb_split[L->vid_o[L->train[i]]] = GNN_SPLIT_TRAIN;
            for (int64_t i = 0; i < L->n_val; i++)
                J->fb_split[L->vid_o[L->val[i]]] = GNN_SPLIT_VAL;
            for (int64_t i = 0; i < L->n_test; i++)
                J->fb_split[L->vid_o[L->test[i]]] = GNN_SPLIT_TEST;
        }
        gnn_partition_free(&J->full);
        return GNN_OK;
    }
    o->po.k = P;
    o->po.vtype = ds->vtype; /* --balance types */
    o->po.num_vtypes = ds->num_vtypes;
    o->po.ops = o->cfg.impl->partition; /* ldg streams with the context's table */
    return gnn_partition_assign(&ds->graph, ds->split, &o->po, J->fb_part, NULL, err);
}

gnn_status train_fb_rank(gnn_comm *comm, void *arg)
{
    train_job *J = arg;
    const int me = gnn_comm_rank(comm), P = gnn_comm_size(comm);
    if (cli_shared_once(&J->shared, prepare_fb, J, P)) /* the same on every rank: the same flags and files */
        return gnn_err_set(&comm->err, J->shared.st, "%s", J->shared.err.msg);
    gnn_dataset view = *J->ds; /* a set's split replaces --data's (read-only; never freed) */
    if (J->fb_split)
        view.split = J->fb_split;
    if (me == 0 && view.split && view.labels) {
        double cnt[2];
        train_count_eval_splits(view.split, view.labels, view.graph.n, cnt);
        train_warn_empty_splits(J, cnt);
    }
    gnn_train_config c = J->o.cfg;
    train_print pp = { J->o.quiet || me != 0, J->tty, -1, c.layers };
    if (!pp.quiet)
        train_print_header(J, P);
    c.on_step = train_on_step;
    c.on_step_ctx = &pp;
    gnn_fb_config fc = J->o.fc;
    if (J->o.backend.kind == CLI_BACKEND_SIM) { /* the report's exchange times use the simulator's network */
        fc.alpha_s = J->o.backend.sim.alpha_s;
        fc.beta_Bps = J->o.backend.sim.beta_Bps;
    }
    const gnn_fb_input in = { .ds = &view, .part = J->fb_part };
    gnn_train_result res;
    gnn_fb_report rep;
    gnn_err err = { "" };
    gnn_status st = gnn_train_fullbatch_dist(comm, &in, &c, &fc, train_on_epoch, &pp, &res, &rep, &err);
    if (st)
        return gnn_err_set(&comm->err, st, "%s", cli_errmsg(&err, st));
    if (me == 0) /* J is shared by the simulator's ranks: only rank 0 reports */
        J->fb_rep = &rep;
    st = train_finish(comm, J, &res, NULL);
    if (me == 0)
        J->fb_rep = NULL;
    gnn_train_result_free(&res);
    return st;
}
