/* cli/train_run.c -- one rank of `gnnref train` (cli/train.h): gnn_train on one rank or data
 * parallel, or gnn_train_part on this rank's part (include/gnnref/part_input.h builds its input).
 *
 * On partitions, what every rank shares is prepared once per process by the first rank to
 * arrive (prepare_parts through cli_shared_once, as cli/cmd_partcheck.c does): the set's
 * manifest, or the partition computed in memory; under the simulator the ranks are threads of
 * one process and share it read-only. A rank of a saved set loads only its own part. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/parts.h"
#include "cli/train.h"
#include "gnnref/impl.h"
#include "gnnref/part_input.h"

/* The progress callbacks' settings for this rank. */
static train_print print_settings(const train_job *J, int rank)
{
    return (train_print){ J->o.quiet || rank != 0, J->tty, J->remote, J->o.cfg.layers };
}

gnn_status train_rank(gnn_comm *comm, void *arg)
{
    train_job *J = arg;
    gnn_train_config c = J->o.cfg;
    c.comm = gnn_comm_size(comm) > 1 ? comm : NULL;
    train_print pp = print_settings(J, gnn_comm_rank(comm));
    if (gnn_comm_rank(comm) == 0 && J->ds && J->ds->split && J->ds->labels) { /* every rank holds the graph */
        double cnt[2];
        train_count_eval_splits(J->ds->split, J->ds->labels, J->ds->graph.n, cnt);
        train_warn_empty_splits(J, cnt);
    }
    if (!pp.quiet)
        train_print_header(J, gnn_comm_size(comm));
    c.on_step = train_on_step;
    c.on_step_ctx = &pp;
    gnn_train_result res;
    gnn_err err = { "" };
    gnn_status st = gnn_train(J->ds, &c, train_on_epoch, &pp, &res, &err);
    if (st)
        return gnn_err_set(&comm->err, st, "%s", cli_errmsg(&err, st));
    st = train_finish(comm, J, &res, NULL);
    gnn_train_result_free(&res);
    return st;
}

/* What the ranks of this process share, prepared by the first one to arrive. With
 * --partitions DIR: the set's manifest (it must have P parts, and the dataset, when one is
 * loaded, must be the set's), and for fetch the whole set, for its part vector. In memory:
 * the part vector of J->ds with K = P (deterministic: every MPI process computes the same) and
 * every part, built by the --impl context's builder. */
static gnn_status prepare_parts(void *arg, int P, gnn_err *err)
{
    train_job *J = arg;
    train_opts *o = &J->o;
    gnn_status st;
    if (o->parts_dir) {
        const gnn_part_manifest *m = &J->man;
        const int dist = o->pc.sampling == GNN_SAMPLING_DISTRIBUTED;
        if ((st = gnn_partition_manifest_load(o->parts_dir, &J->man, err)) ||
            (st = cli_set_check(m, o->parts_dir, P, J->ds, o->data,
                                J->remote == GNN_REMOTE_FETCH && !dist ? ": fetch needs the set's dataset as --data" : "",
                                err)))
            return st;
        o->po.method = m->method; /* reported: how the set was made */
        o->po.k = m->k;
        o->po.seed = m->seed;
        o->po.balance = m->balance;
        return J->remote == GNN_REMOTE_FETCH ? gnn_partition_load(o->parts_dir, &J->full, NULL, NULL, err) : GNN_OK;
    }
    const gnn_dataset *ds = J->ds;
    if (P > ds->graph.n)
        return gnn_err_set(err, GNN_ERR_INVAL, "%d ranks for %lld vertices: at most one rank per vertex", P,
                           (long long)ds->graph.n);
    int32_t *part = malloc(sizeof(int32_t) * (size_t)(ds->graph.n > 0 ? ds->graph.n : 1));
    if (!part)
        return gnn_err_set(err, GNN_ERR_NOMEM, "out of memory");
    o->po.k = P;
    o->po.vtype = ds->vtype; /* --balance types */
    o->po.num_vtypes = ds->num_vtypes;
    o->po.ops = o->cfg.impl->partition; /* ldg streams with the context's table */
    st = gnn_partition_assign(&ds->graph, ds->split, &o->po, part, NULL, err);
    if (!st)
        st = gnn_partition_build(o->cfg.impl->partition, &J->full, &ds->graph, ds->split, part, P, err);
    free(part);
    return st;
}

/* The labelled val and test vertices of the split the parts carry (a saved set's may differ
 * from --data's), summed over the ranks: every rank takes part, also one with no solid vertex
 * or no split. Rank 0 warns when one is empty. */
static gnn_status warn_from_parts(gnn_comm *comm, const train_job *J, const gnn_part_input *in)
{
    double cnt[2];
    train_count_eval_splits(in->split, in->labels, in->part->n_solid, cnt);
    gnn_status st = gnn_comm_size(comm) > 1 ? gnn_comm_allreduce(comm, cnt, cnt, 2, GNN_DT_F64) : GNN_OK;
    if (!st && gnn_comm_rank(comm) == 0)
        train_warn_empty_splits(J, cnt);
    return st;
}

/* One rank training on its part with gnn_train_part: from a saved set, the part this rank
 * loads itself; in memory, part `rank` of the shared partition with its rows gathered from the
 * dataset. Then train_finish. */
gnn_status train_part_rank(gnn_comm *comm, void *arg)
{
    train_job *J = arg;
    const int me = gnn_comm_rank(comm), P = gnn_comm_size(comm);
    if (cli_shared_once(&J->shared, prepare_parts, J, P)) /* the same on every rank: the same flags and files */
        return gnn_err_set(&comm->err, J->shared.st, "%s", J->shared.err.msg);
    gnn_part_data d;
    gnn_err err = { "" };
    gnn_status st = J->o.parts_dir ? gnn_part_input_from_set(&d, J->o.parts_dir, me, &J->man, &err)
                                   : gnn_part_input_from_dataset(&d, J->ds, &J->full, me, &err);
    if (!st && J->o.parts_dir && J->ds) /* a saved set: the edge types and featureless types from --data */
        st = gnn_part_input_types(&d, J->ds, &err);
    if (st)
        goto out;
    d.in.name = J->o.parts_dir ? J->man.dataset : J->ds->name; /* checkpoints' fingerprint */
    if (J->remote == GNN_REMOTE_FETCH) { /* the part vector, and the whole topology unless the owners sample */
        d.in.global = J->o.pc.sampling == GNN_SAMPLING_DISTRIBUTED ? NULL : &J->ds->graph;
        d.in.owner = J->full.part;
    }
    if ((st = warn_from_parts(comm, J, &d.in)))
        goto out;
    gnn_train_config c = J->o.cfg;
    train_print pp = print_settings(J, me);
    if (!pp.quiet)
        train_print_header(J, P);
    c.on_step = train_on_step;
    c.on_step_ctx = &pp;
    gnn_train_result res;
    gnn_part_report rep;
    if ((st = gnn_train_part(comm, &d.in, &c, &J->o.pc, train_on_epoch, &pp, &res, &rep, &err)))
        goto out;
    st = train_finish(comm, J, &res, &rep);
    gnn_train_result_free(&res);
out:
    if (st && err.msg[0])
        gnn_err_set(&comm->err, st, "%s", err.msg);
    gnn_part_input_free(&d);
    return st;
}
