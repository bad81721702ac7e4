/* cli/cmd_train.c -- `gnnref train`: GraphSAGE, GCN, GAT or GIN, mini-batch or full-batch
 * (docs/models.md), on one rank or data-parallel on P ranks of the simulator or MPI
 * (docs/comm.md), or on partitions (--partitions DIR or --remote MODE: every rank trains on
 * its own part, include/gnnref/train_part.h, docs/hec.md): rank 0 prints and writes the report.
 *
 * On partitions, what every rank shares is prepared once per process by the first rank to
 * arrive (prepare_parts through cli_shared_once, as cli/cmd_partcheck.c does): the set's
 * manifest, or the partition computed in memory; under the simulator the ranks are threads of
 * one process and share it read-only. A rank of a saved set loads only its own part. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/backend.h"
#include "gnnref/dataset.h"
#include "gnnref/impl.h"
#include "gnnref/partition.h"
#include "gnnref/train.h"
#include "gnnref/train_part.h"

static void train_usage(FILE *f)
{
    fprintf(f,
            "usage: gnnref train [flags]\n"
            "  --data PATH|builtin   dataset: native file, text-layout dir, OGB dir, or builtin (default)\n"
            "  --model M             sage (GraphSAGE mean, DistGNN-MB Eq. 1; default), gcn (Kipf & Welling),\n"
            "                        gat (Velickovic et al.), gin (GIN-0, Xu et al.); see docs/models.md\n"
            "  --mode minibatch|fullbatch  sampled mini-batches (default) or one step per epoch over the\n"
            "                        whole graph (loss over the train vertices)\n"
            "  --layers L            number of layers (default 2)\n"
            "  --hidden H            hidden width; gat: features per head (default 64)\n"
            "  --fanouts K1,K2,...   minibatch: neighbors sampled per layer, input layer first; -1 = all (default 10 each)\n"
            "  --batch B             minibatch: seeds per mini-batch (default 256)\n"
            "  --epochs E            epochs (default 100); at most E with --patience\n"
            "  --patience N          early stopping: stop after N evaluated epochs without a better validation\n"
            "                        accuracy (or the same with a lower val loss); 0 = off (default)\n"
            "  --lr X                Adam learning rate (default 0.01)\n"
            "  --dropout P           dropout probability on every layer's input (default 0.5)\n"
            "  --weight-decay W      L2 weight decay in Adam (default 5e-4, as Kipf & Welling)\n"
            "  --weight-decay-layers all|first  layers whose weights decay (default: first for gcn, as\n"
            "                        Kipf & Welling; all otherwise)\n"
            "  --normalize-features none|row  divide each feature row by its sum (default: row for gcn and\n"
            "                        gat, as Kipf & Welling and Velickovic et al.; none for sage and gin)\n"
            "  --layernorm           LayerNorm before the activation of every hidden layer\n"
            "  --heads H             gat: attention heads of hidden layers, concatenated (default 8)\n"
            "  --out-heads H         gat: heads of the output layer, averaged (default 1)\n"
            "  --gat-variant V       gat: velickovic (z = hW, bias after attention; default) or distgnn\n"
            "                        (z = ReLU(hW + b) before attention, DistGNN-MB Eq. 2)\n"
            "  --attn-dropout P      gat: dropout on attention coefficients (default: --dropout)\n"
            "  --seed S              seed of every random choice (default 1)\n"
            "  --split A,B,C         seeded random train/val/test fractions (replaces the data's split)\n"
            "  --impl ref|opt        kernels: reference or optimized CPU (default opt); results are bitwise equal\n"
            "  --threads N           OpenMP threads (default: all)\n"
            "  --eval-every K        full-graph evaluation every K epochs (default 1)\n"
            "  --json FILE           write the report (DESIGN.md section 6 keys)\n"
            "  --quiet               no per-epoch lines\n"
            "training on partitions (DistGNN-MB: every rank trains on its own part, draws its seeds from\n"
            "its own train vertices, and the gradients are allreduced; docs/hec.md; minibatch; sage, gat, gin):\n"
            "  --partitions DIR      a saved partition set (gnnref partition DATA --parts P -o DIR) with P =\n"
            "                        ranks parts; each rank loads its own part; the set carries its split\n"
            "                        (no --split); --data is then only needed by --remote fetch, and is\n"
            "                        checked to be the set's dataset when given\n"
            "  --remote drop|hec|fetch  how a rank sees the vertices it does not own: drop them (no\n"
            "                        communication), the Historical Embedding Cache filled by the owners'\n"
            "                        asynchronous pushes (hec; default with --partitions), or pull their\n"
            "                        features every step from the whole topology (fetch, the exact baseline);\n"
            "                        without --partitions, --data is partitioned in memory with K = ranks\n"
            "  --part-method M       in memory: metis (default), range, hash or random (seed: --seed)\n"
            "  --part-balance LIST   in memory: METIS balance constraints (default train,degree)\n"
            "  --hec-cs N            hec: cache lines per layer; 0 = auto (default), min(halos, (ls+1)(P-1) nc)\n"
            "  --hec-ls N            hec: lifespan in steps (default 2)\n"
            "  --hec-nc N            hec: pushes per remote rank, layer and step; 0 = auto (default),\n"
            "                        max over ranks r of ceil(own vertices that are halos on r / W),\n"
            "                        W = min(ls+1, steps per epoch)\n"
            "  --hec-delay D         hec: pushes arrive D steps later, 1..64 (default 1)\n"
            "data parallelism without --partitions or --remote (every rank holds the graph, takes a slice\n"
            "of each mini-batch, and the gradients are allreduced):\n%s",
            cli_backend_help());
}

/* remote: -1 for gnn_train, else the gnn_remote_mode of training on partitions */
typedef struct print_ctx { int quiet; int tty; int remote; int layers; } print_ctx;

/* On a terminal, a progress line within the epoch, overwritten in place. */
static void on_step(int epoch, int64_t k, int64_t n, double loss, void *vctx)
{
    const print_ctx *p = vctx;
    if (p->quiet || !p->tty)
        return;
    printf("\repoch %3d  step %lld/%lld  loss %.4f", epoch, (long long)k, (long long)n, loss);
    fflush(stdout);
}

/* " l0 0.83 l1 -": the HEC hit rate of each layer, "-" where nothing was looked up */
static void print_hit_rates(const int64_t *hits, const int64_t *lookups, int layers, int digits)
{
    for (int l = 0; l < layers; l++) {
        if (lookups[l] > 0)
            printf(" l%d %.*f", l, digits, (double)hits[l] / (double)lookups[l]);
        else
            printf(" l%d -", l);
    }
}

/* [rate per layer], null where nothing was looked up */
static json_object *hit_rates_json(const int64_t *hits, const int64_t *lookups, int layers)
{
    json_object *a = json_object_new_array();
    for (int l = 0; l < layers; l++)
        json_object_array_add(a, lookups[l] > 0 ? json_object_new_double((double)hits[l] / (double)lookups[l]) : NULL);
    return a;
}

static void on_epoch(const gnn_epoch_stats *E, void *vctx)
{
    const print_ctx *p = vctx;
    if (p->quiet)
        return;
    if (p->tty)
        printf("\r\033[K"); /* clear the progress line */
    printf("epoch %3d  loss %.4f", E->epoch, E->loss);
    if (E->val_acc >= 0)
        printf("  train %.4f  val %.4f  test %.4f", E->train_acc, E->val_acc, E->test_acc);
    printf("  time %.2fs (", E->time_s);
    for (int k = 0; k < GNN_PHASE_COUNT; k++)
        printf("%s%s %.3f", k ? " " : "", gnn_phase_names[k], E->phase_s[k]);
    printf(")");
    if (p->remote == GNN_REMOTE_HEC) {
        printf("  hit");
        print_hit_rates(E->hec_hits, E->hec_lookups, p->layers, 2);
        printf("  push MB %.1f", (double)E->push_bytes * 1e-6);
    } else if (p->remote == GNN_REMOTE_FETCH) {
        printf("  pull MB %.1f", (double)E->pull_bytes * 1e-6);
    }
    printf("\n");
    fflush(stdout);
}

static json_object *epoch_json(const gnn_epoch_stats *E, int remote, int layers)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "epoch", json_object_new_int(E->epoch));
    json_object_object_add(o, "loss", json_object_new_double(E->loss));
    json_object_object_add(o, "val_loss", E->val_loss >= 0 ? json_object_new_double(E->val_loss) : NULL);
    json_object_object_add(o, "train_acc", E->train_acc >= 0 ? json_object_new_double(E->train_acc) : NULL);
    json_object_object_add(o, "val_acc", E->val_acc >= 0 ? json_object_new_double(E->val_acc) : NULL);
    json_object_object_add(o, "test_acc", E->test_acc >= 0 ? json_object_new_double(E->test_acc) : NULL);
    json_object_object_add(o, "time_s", json_object_new_double(E->time_s));
    json_object *ph = json_object_new_object();
    for (int k = 0; k < GNN_PHASE_COUNT; k++)
        json_object_object_add(ph, gnn_phase_names[k], json_object_new_double(E->phase_s[k]));
    json_object_object_add(o, "phases", ph);
    json_object_object_add(o, "comm_bytes", json_object_new_int64(E->comm_bytes));
    json_object_object_add(o, "steps", json_object_new_int64(E->steps));
    if (remote >= 0) { /* training on partitions: summed over the ranks */
        json_object_object_add(o, "hec_hit_rate", hit_rates_json(E->hec_hits, E->hec_lookups, layers));
        json_object_object_add(o, "push_bytes", json_object_new_int64(E->push_bytes));
        json_object_object_add(o, "pull_bytes", json_object_new_int64(E->pull_bytes));
    }
    json_object_object_add(o, "edges_sampled", json_object_new_int64(E->edges_sampled));
    return o;
}

typedef struct train_job {
    const gnn_dataset *ds;      /* NULL when a saved set trains without --data */
    gnn_train_config cfg;
    const cli_backend *backend;
    const char *data, *model;   /* data: NULL when no dataset is loaded */
    int nthreads, have_split, quiet, tty;
    double split[3];
    /* training on partitions */
    int remote;                 /* -1: gnn_train (one rank or data parallel); else a gnn_remote_mode */
    const char *parts_dir;      /* --partitions DIR, or NULL: ds is partitioned in memory */
    gnn_part_options po;        /* how the parts were made (in memory: k = ranks; a set: its manifest) */
    gnn_part_train_config pc;
    /* shared by the ranks of this process, read-only once prepared (prepare_parts) */
    cli_shared shared;
    gnn_part_manifest man;      /* --partitions: the set's manifest */
    gnn_partition full;         /* in memory: every part; fetch on a set: the loaded set (its part vector) */
    json_object *report; /* built by rank 0 */
    int epochs_run;
} train_job;

/* The balance constraints as a list of names ("vertices" alone when there is none). */
static json_object *balance_json(unsigned balance)
{
    json_object *a = json_object_new_array();
    for (int c = 0; c < GNN_PART_MAX_CON; c++)
        if (balance & (1u << c))
            json_object_array_add(a, json_object_new_string(gnn_part_constraint_name(1u << c)));
    if (!balance)
        json_object_array_add(a, json_object_new_string(gnn_part_constraint_name(0)));
    return a;
}

/* The report's "partition_training" object: whole-run figures summed over the ranks. */
static json_object *part_report_json(const gnn_part_report *rep, int layers)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "solid_total", json_object_new_int64(rep->solid_total));
    json_object_object_add(o, "halo_total", json_object_new_int64(rep->halo_total));
    json_object_object_add(o, "train_total", json_object_new_int64(rep->train_total));
    json_object_object_add(o, "lookups", cli_json_i64_array(rep->lookups, layers, 1));
    json_object_object_add(o, "hits", cli_json_i64_array(rep->hits, layers, 1));
    json_object_object_add(o, "hit_rate", hit_rates_json(rep->hits, rep->lookups, layers));
    json_object_object_add(o, "pushed_rows", cli_json_i64_array(rep->pushed_rows, layers, 1));
    json_object_object_add(o, "received_rows", cli_json_i64_array(rep->received_rows, layers, 1));
    json_object_object_add(o, "push_bytes", json_object_new_int64(rep->push_bytes));
    json_object_object_add(o, "pull_bytes", json_object_new_int64(rep->pull_bytes));
    json_object_object_add(o, "halo_edges_dropped", json_object_new_int64(rep->halo_edges_dropped));
    json_object_object_add(o, "eval_bytes", json_object_new_int64(rep->eval_bytes));
    return o;
}

/* The dataset's name: the loaded one's, or the set's. */
static const char *job_dataset(const train_job *J) { return J->ds ? J->ds->name : J->man.dataset; }

/* The report's body (rank 0), from its result (and on partitions the run's figures, rep). */
static json_object *train_report(const train_job *J, const gnn_train_result *res, const gnn_part_report *rep, int P)
{
    const gnn_train_config c = J->cfg;
    const int full = c.mode == GNN_MODE_FULLBATCH, gat = c.model == GNN_MODEL_GAT;
    json_object *cfg;
    json_object *r = cli_report_new("train", c.seed, J->nthreads, J->backend->name, P, &cfg);
    json_object_object_add(cfg, "data", J->data ? json_object_new_string(J->data) : NULL);
    json_object_object_add(cfg, "dataset", json_object_new_string(job_dataset(J)));
    json_object_object_add(cfg, "model", json_object_new_string(J->model));
    json_object_object_add(cfg, "mode", json_object_new_string(gnn_mode_name(c.mode)));
    json_object_object_add(cfg, "layers", json_object_new_int(c.layers));
    json_object_object_add(cfg, "hidden", json_object_new_int64(c.hidden));
    json_object *fo = NULL;
    if (!full) { /* fullbatch: no sampling, no batches */
        fo = json_object_new_array();
        for (int l = 0; l < c.layers; l++)
            json_object_array_add(fo, json_object_new_int64(c.fanouts[l]));
    }
    json_object_object_add(cfg, "fanouts", fo);
    json_object_object_add(cfg, "batch", full ? NULL : json_object_new_int64(c.batch));
    json_object_object_add(cfg, "epochs", json_object_new_int(c.epochs));
    json_object_object_add(cfg, "patience", json_object_new_int(c.patience));
    json_object_object_add(cfg, "lr", json_object_new_double(c.lr));
    json_object_object_add(cfg, "dropout", json_object_new_double(c.dropout));
    json_object_object_add(cfg, "weight_decay", json_object_new_double(c.weight_decay));
    json_object_object_add(cfg, "weight_decay_layers",
                           json_object_new_string(c.wd_scope == GNN_WD_FIRST ? "first" : "all"));
    json_object_object_add(cfg, "normalize_features",
                           json_object_new_string(c.feat_norm == GNN_FEAT_NORM_ROW ? "row" : "none"));
    json_object_object_add(cfg, "layernorm", json_object_new_boolean(c.layernorm));
    json_object_object_add(cfg, "heads", gat ? json_object_new_int64(c.heads) : NULL);
    json_object_object_add(cfg, "out_heads", gat ? json_object_new_int64(c.out_heads) : NULL);
    json_object_object_add(cfg, "gat_variant",
                           gat ? json_object_new_string(c.gat_variant == GNN_GAT_DISTGNN ? "distgnn" : "velickovic")
                               : NULL);
    json_object_object_add(cfg, "attn_dropout", gat ? json_object_new_double(c.attn_dropout) : NULL);
    json_object_object_add(cfg, "gat_slope", gat ? json_object_new_double(c.gat_slope) : NULL);
    json_object_object_add(cfg, "impl", json_object_new_string(c.impl->name));
    json_object_object_add(cfg, "threads", json_object_new_int(J->nthreads));
    json_object_object_add(cfg, "eval_every", json_object_new_int(c.eval_every));
    /* a saved set carries its split: the fractions it was made with, if any */
    const int have_split = J->parts_dir ? J->man.have_split : J->have_split;
    const double *split = J->parts_dir ? J->man.split : J->split;
    if (have_split) {
        json_object *sp = json_object_new_array();
        for (int k = 0; k < 3; k++)
            json_object_array_add(sp, json_object_new_double(split[k]));
        json_object_object_add(cfg, "split", sp);
    } else {
        json_object_object_add(cfg, "split", NULL);
    }
    const int parts = J->remote >= 0;
    json_object_object_add(cfg, "remote", parts ? json_object_new_string(gnn_remote_name(J->remote)) : NULL);
    json_object_object_add(cfg, "partitions", J->parts_dir ? json_object_new_string(J->parts_dir) : NULL);
    json_object_object_add(cfg, "part_method",
                           parts ? json_object_new_string(gnn_part_method_name(J->po.method)) : NULL);
    json_object_object_add(cfg, "part_balance", parts ? balance_json(J->po.balance) : NULL);
    json_object *hec = NULL;
    if (J->remote == GNN_REMOTE_HEC && rep) { /* effective: cs and nc as the library sized them */
        hec = json_object_new_object();
        json_object_object_add(hec, "cs", json_object_new_int64(rep->hec_cs));
        json_object_object_add(hec, "ls", json_object_new_int(J->pc.hec_ls));
        json_object_object_add(hec, "nc", json_object_new_int64(rep->hec_nc));
        json_object_object_add(hec, "delay", json_object_new_int(J->pc.hec_delay));
        const int64_t cs_range[2] = { rep->hec_cs_min, rep->hec_cs_max };
        const int64_t nc_range[2] = { rep->hec_nc_min, rep->hec_nc_max };
        json_object_object_add(hec, "cs_range", cli_json_i64_array(cs_range, 2, 1)); /* over the ranks */
        json_object_object_add(hec, "nc_range", cli_json_i64_array(nc_range, 2, 1));
    }
    json_object_object_add(cfg, "hec", hec);
    json_object *eps = json_object_new_array();
    for (int e = 0; e < res->n_epochs; e++)
        json_object_array_add(eps, epoch_json(&res->epochs[e], J->remote, c.layers));
    json_object_object_add(r, "epochs", eps);
    json_object *steps = json_object_new_array();
    for (int64_t s = 0; s < res->n_steps; s++) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "step", json_object_new_int64(s));
        /* %.17g round-trips a double exactly, so the list can be compared bitwise */
        char buf[40];
        snprintf(buf, sizeof buf, "%.17g", res->step_loss[s]);
        json_object_object_add(o, "loss", json_object_new_double_s(res->step_loss[s], buf));
        json_object_array_add(steps, o);
    }
    json_object_object_add(r, "steps", steps);
    json_object *fin = json_object_new_object();
    json_object_object_add(fin, "train_acc", json_object_new_double(res->train_acc));
    json_object_object_add(fin, "val_acc", json_object_new_double(res->val_acc));
    json_object_object_add(fin, "test_acc", json_object_new_double(res->test_acc));
    json_object_object_add(fin, "best_val_acc", json_object_new_double(res->best_val_acc));
    json_object_object_add(fin, "test_acc_at_best_val", json_object_new_double(res->test_acc_at_best_val));
    json_object_object_add(fin, "best_epoch", json_object_new_int(res->best_epoch));
    json_object_object_add(fin, "epochs_run", json_object_new_int(res->n_epochs));
    json_object_object_add(fin, "stopped_early", json_object_new_boolean(res->stopped_early));
    json_object_object_add(fin, "stop_epoch", res->stopped_early ? json_object_new_int(res->stop_epoch) : NULL);
    json_object_object_add(fin, "majority_class_acc", json_object_new_double(res->majority_rate));
    json_object_object_add(r, "final", fin);
    if (rep)
        json_object_object_add(r, "partition_training", part_report_json(rep, c.layers));
    return r;
}

/* Labelled vertices among the first n of split/labels: cnt[0] in val, cnt[1] in test. */
static void count_eval_splits(const uint8_t *split, const int32_t *labels, int64_t n, double cnt[2])
{
    cnt[0] = cnt[1] = 0.0;
    for (int64_t v = 0; split && labels && v < n; v++)
        if (labels[v] >= 0) {
            cnt[0] += split[v] == GNN_SPLIT_VAL;
            cnt[1] += split[v] == GNN_SPLIT_TEST;
        }
}

/* Rank 0, before training, also with --quiet: a val or test split without a labelled vertex
 * gives accuracies of 0 that measure nothing; say so (early stopping then has nothing to go on).
 * cnt: the labelled val and test vertices over the whole graph. */
static void warn_empty_splits(const train_job *J, const double cnt[2])
{
    const char *name = job_dataset(J);
    if (cnt[0] == 0.0)
        fprintf(stderr, "gnnref: warning: %s: no labelled validation vertex: val accuracies are reported as 0%s\n",
                name, J->cfg.patience > 0 ? " (so --patience stops the run early, never seeing a better one)" : "");
    if (cnt[1] == 0.0)
        fprintf(stderr, "gnnref: warning: %s: no labelled test vertex: test accuracies are reported as 0\n", name);
}

/* The run's first line (rank 0): the dataset, the model and the backend; on partitions also
 * the remote mode and where the parts come from. */
static void print_header(const train_job *J, const gnn_train_config *c, int P)
{
    const gnn_dataset *ds = J->ds;
    const int64_t n = ds ? ds->graph.n : J->man.n, nnz = ds ? ds->graph.nnz : J->man.nnz;
    const int64_t f = ds ? ds->num_features : J->man.num_features, classes = ds ? ds->num_classes : J->man.num_classes;
    printf("gnnref train: %s  n=%lld edges=%lld features=%lld classes=%lld  %s %s L=%d hidden=%lld "
           "batch=%lld impl=%s threads=%d seed=%llu backend=%s ranks=%d",
           job_dataset(J), (long long)n, (long long)nnz, (long long)f, (long long)classes, J->model,
           gnn_mode_name(c->mode), c->layers, (long long)c->hidden,
           c->mode == GNN_MODE_FULLBATCH ? (long long)n : (long long)c->batch, c->impl->name,
           J->nthreads, (unsigned long long)c->seed, J->backend->name, P);
    if (J->remote >= 0 && J->parts_dir)
        printf(" remote=%s parts=%s", gnn_remote_name(J->remote), J->parts_dir);
    else if (J->remote >= 0)
        printf(" remote=%s parts=memory(%s)", gnn_remote_name(J->remote), gnn_part_method_name(J->po.method));
    printf("\n");
}

/* Rank 0, after training on partitions: the HEC or fetch figures and the dropped halo edges. */
static void print_part_summary(const train_job *J, const gnn_part_report *rep, int layers)
{
    if (J->remote == GNN_REMOTE_HEC) {
        int64_t rows = 0;
        for (int l = 0; l < layers; l++)
            rows += rep->pushed_rows[l];
        /* each rank sizes its own caches: print the range over the ranks */
        printf("hec: cs %lld", (long long)rep->hec_cs_min);
        if (rep->hec_cs_max != rep->hec_cs_min)
            printf("..%lld", (long long)rep->hec_cs_max);
        printf(" nc %lld", (long long)rep->hec_nc_min);
        if (rep->hec_nc_max != rep->hec_nc_min)
            printf("..%lld", (long long)rep->hec_nc_max);
        printf(" ls %d d %d  hit rate", (int)J->pc.hec_ls, J->pc.hec_delay);
        print_hit_rates(rep->hits, rep->lookups, layers, 4);
        printf("  pushed rows %lld bytes %lld\n", (long long)rows, (long long)rep->push_bytes);
    } else if (J->remote == GNN_REMOTE_FETCH) {
        printf("fetch: pulled bytes %lld\n", (long long)rep->pull_bytes);
    }
    printf("halo edges dropped %lld  (all ranks: solid %lld, halo %lld, train %lld; evaluation exchanged %lld "
           "bytes)\n",
           (long long)rep->halo_edges_dropped, (long long)rep->solid_total, (long long)rep->halo_total,
           (long long)rep->train_total, (long long)rep->eval_bytes);
}

/* After training, on every rank: gather the traffic matrix and every rank's times; rank 0
 * prints the result and builds the report (rep: the figures of training on partitions, or
 * NULL). */
static gnn_status train_finish(gnn_comm *comm, train_job *J, const gnn_train_config *c, const gnn_train_result *res,
                               const gnn_part_report *rep)
{
    const int me = gnn_comm_rank(comm), P = gnn_comm_size(comm);
    gnn_status st = GNN_OK;
    /* every rank's times: total, then the phases */
    enum { NT = 1 + GNN_PHASE_COUNT };
    double mine[NT] = { 0 }, *all = malloc(sizeof(double) * NT * (size_t)P);
    int64_t *cnt = malloc(sizeof(int64_t) * 2 * (size_t)P), *bytes = NULL, *msgs = NULL;
    if (!all || !cnt) {
        st = gnn_err_set(&comm->err, GNN_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int e = 0; e < res->n_epochs; e++) {
        mine[0] += res->epochs[e].time_s;
        for (int k = 0; k < GNN_PHASE_COUNT; k++)
            mine[1 + k] += res->epochs[e].phase_s[k];
    }
    for (int q = 0; q < P; q++) {
        cnt[q] = NT;
        cnt[P + q] = (int64_t)NT * q;
    }
    /* the times first, so the traffic matrix includes their gather: the matrix then sums to
     * every byte the ranks sent (the simulator's bytes_moved) */
    if ((st = gnn_comm_allgatherv(comm, mine, NT, all, cnt, cnt + P, GNN_DT_F64)) ||
        (st = gnn_comm_traffic_matrix(comm, 0, &bytes, &msgs)))
        goto done;
    if (me == 0) {
        if (rep)
            print_part_summary(J, rep, c->layers);
        printf("final: train_acc %.4f  val_acc %.4f  test_acc %.4f  best_val_acc %.4f (epoch %d)  "
               "test_acc_at_best_val %.4f  majority_class %.4f\n",
               res->train_acc, res->val_acc, res->test_acc, res->best_val_acc, res->best_epoch,
               res->test_acc_at_best_val, res->majority_rate);
        if (res->stopped_early)
            printf("early stop: no better validation accuracy for %d evaluated epochs; stopped after epoch %d\n",
                   c->patience, res->stop_epoch);
        printf("test accuracy: %.4f\n", res->test_acc);
        J->report = train_report(J, res, rep, P);
        J->epochs_run = res->n_epochs;
        json_object_object_add(J->report, "comm", cli_traffic_json(bytes, msgs, P));
        json_object *pr = json_object_new_array();
        for (int q = 0; q < P; q++) {
            json_object *o = json_object_new_object(), *ph = json_object_new_object();
            json_object_object_add(o, "rank", json_object_new_int(q));
            json_object_object_add(o, "time_s", json_object_new_double(all[(size_t)q * NT]));
            for (int k = 0; k < GNN_PHASE_COUNT; k++)
                json_object_object_add(ph, gnn_phase_names[k], json_object_new_double(all[(size_t)q * NT + 1 + k]));
            json_object_object_add(o, "phases", ph);
            json_object_array_add(pr, o);
        }
        json_object_object_add(J->report, "per_rank", pr);
    }
done:
    free(all);
    free(cnt);
    free(bytes);
    free(msgs);
    return st;
}

/* One rank of the training job: gnn_train with this rank's communicator (data parallel when
 * there are several), then train_finish. */
static gnn_status train_rank(gnn_comm *comm, void *arg)
{
    train_job *J = arg;
    gnn_train_config c = J->cfg;
    c.comm = gnn_comm_size(comm) > 1 ? comm : NULL;
    print_ctx pc = { J->quiet || gnn_comm_rank(comm) != 0, J->tty, -1, c.layers };
    if (gnn_comm_rank(comm) == 0 && J->ds && J->ds->split && J->ds->labels) { /* every rank holds the graph */
        double cnt[2];
        count_eval_splits(J->ds->split, J->ds->labels, J->ds->graph.n, cnt);
        warn_empty_splits(J, cnt);
    }
    if (!pc.quiet)
        print_header(J, &c, gnn_comm_size(comm));
    c.on_step = on_step;
    c.on_step_ctx = &pc;
    gnn_train_result res;
    gnn_err err = { "" };
    gnn_status st = gnn_train(J->ds, &c, on_epoch, &pc, &res, &err);
    if (st)
        return gnn_err_set(&comm->err, st, "%s", cli_errmsg(&err, st));
    st = train_finish(comm, J, &c, &res, NULL);
    gnn_train_result_free(&res);
    return st;
}

/* What the ranks of this process share, prepared by the first one to arrive. With
 * --partitions DIR: the set's manifest (it must have P parts, and the dataset, when one is
 * loaded, must be the set's: the same vertex count and graph CRC32C), and for fetch the whole
 * set, for its part vector. In memory: the part vector of J->ds with K = P (deterministic:
 * every MPI process computes the same) and every part. */
static gnn_status prepare_parts(void *arg, int P, gnn_err *err)
{
    train_job *J = arg;
    gnn_status st;
    if (J->parts_dir) {
        const gnn_part_manifest *m = &J->man;
        if ((st = gnn_partition_manifest_load(J->parts_dir, &J->man, err)))
            return st;
        if (m->k != P)
            return gnn_err_set(err, GNN_ERR_INVAL,
                               "%s has %lld parts but %d ranks run: run it with --ranks %lld (mpirun -np %lld)",
                               J->parts_dir, (long long)m->k, P, (long long)m->k, (long long)m->k);
        J->po.method = m->method;
        J->po.k = m->k;
        J->po.seed = m->seed;
        J->po.balance = m->balance;
        if (J->ds && (m->n != J->ds->graph.n || m->graph_crc != gnn_graph_crc(&J->ds->graph)))
            return gnn_err_set(err, GNN_ERR_INVAL,
                               "%s was not made from %s (its graph: %lld vertices, CRC32C 0x%08x; %s: %lld vertices, "
                               "0x%08x)%s",
                               J->parts_dir, J->data, (long long)m->n, m->graph_crc, J->data,
                               (long long)J->ds->graph.n, gnn_graph_crc(&J->ds->graph),
                               J->remote == GNN_REMOTE_FETCH ? ": fetch needs the set's dataset as --data" : "");
        return J->remote == GNN_REMOTE_FETCH ? gnn_partition_load(J->parts_dir, &J->full, NULL, NULL, err) : GNN_OK;
    }
    const gnn_dataset *ds = J->ds;
    if (P > ds->graph.n)
        return gnn_err_set(err, GNN_ERR_INVAL, "%d ranks for %lld vertices: at most one rank per vertex", P,
                           (long long)ds->graph.n);
    int32_t *part = malloc(sizeof(int32_t) * (size_t)(ds->graph.n > 0 ? ds->graph.n : 1));
    if (!part)
        return gnn_err_set(err, GNN_ERR_NOMEM, "out of memory");
    J->po.k = P;
    st = gnn_partition_assign(&ds->graph, ds->split, &J->po, part, NULL, err);
    if (!st)
        st = J->cfg.impl->partition->build(&J->full, &ds->graph, ds->split, part, P, err);
    free(part);
    return st;
}

/* One rank training on its part with gnn_train_part: from a saved set, the part this rank
 * loads itself (with its solid vertices' features, labels and split); in memory, part `rank`
 * of the shared partition, with the rows of ds gathered through vid_o. Then train_finish. */
static gnn_status train_part_rank(gnn_comm *comm, void *arg)
{
    train_job *J = arg;
    const int me = gnn_comm_rank(comm), P = gnn_comm_size(comm);
    if (cli_shared_once(&J->shared, prepare_parts, J, P)) /* the same on every rank: the same flags and files */
        return gnn_err_set(&comm->err, J->shared.st, "%s", J->shared.err.msg);

    gnn_part_local own;
    gnn_dataset local;
    memset(&own, 0, sizeof own);
    memset(&local, 0, sizeof local);
    float *feat = NULL;
    int32_t *labels = NULL;
    uint8_t *split = NULL;
    gnn_part_input in;
    memset(&in, 0, sizeof in);
    gnn_err err = { "" };
    gnn_status st = GNN_OK;
    if (J->parts_dir) {
        if ((st = gnn_partition_load_part(J->parts_dir, me, &own, &local, NULL, &err)))
            goto out;
        in.part = &own;
        in.n_global = J->man.n;
        in.feat = gnn_part_features(&local, &in.num_features);
        in.num_classes = J->man.num_classes;
        in.labels = local.labels; /* the first n_solid entries are the solid vertices' */
        in.split = local.split;
    } else {
        const gnn_dataset *ds = J->ds;
        const gnn_part_local *L = &J->full.parts[me];
        const int64_t ns = L->n_solid, f = ds->feat ? ds->num_features : 0;
        feat = f > 0 ? malloc(sizeof(float) * (size_t)(ns * f + 1)) : NULL;
        labels = ds->labels ? malloc(sizeof(int32_t) * (size_t)(ns + 1)) : NULL;
        split = ds->split ? malloc((size_t)ns + 1) : NULL;
        if ((f > 0 && !feat) || (ds->labels && !labels) || (ds->split && !split)) {
            st = gnn_err_set(&err, GNN_ERR_NOMEM, "out of memory (%lld solid vertices)", (long long)ns);
            goto out;
        }
        for (int64_t i = 0; i < ns; i++) {
            const int64_t v = L->vid_o[i];
            if (feat)
                memcpy(feat + i * f, ds->feat + v * f, sizeof(float) * (size_t)f);
            if (labels)
                labels[i] = ds->labels[v];
            if (split)
                split[i] = ds->split[v];
        }
        in.part = L;
        in.n_global = ds->graph.n;
        in.num_features = ds->num_features;
        in.num_classes = ds->num_classes;
        in.feat = feat;
        in.labels = labels;
        in.split = split;
    }
    if (J->remote == GNN_REMOTE_FETCH) { /* the whole topology and the part vector */
        in.global = &J->ds->graph;
        in.owner = J->full.part;
    }

    gnn_train_config c = J->cfg;
    print_ctx pc = { J->quiet || me != 0, J->tty, J->remote, c.layers };
    {   /* the split the parts carry (a saved set's may differ from --data's); every rank takes
         * part in the sum, also one with no solid vertex or no split */
        double cnt[2];
        count_eval_splits(in.split, in.labels, in.part->n_solid, cnt);
        if (P > 1 && (st = gnn_comm_allreduce(comm, cnt, cnt, 2, GNN_DT_F64)))
            goto out;
        if (me == 0)
            warn_empty_splits(J, cnt);
    }
    if (!pc.quiet)
        print_header(J, &c, P);
    c.on_step = on_step;
    c.on_step_ctx = &pc;
    gnn_train_result res;
    gnn_part_report rep;
    if ((st = gnn_train_part(comm, &in, &c, &J->pc, on_epoch, &pc, &res, &rep, &err)))
        goto out;
    st = train_finish(comm, J, &c, &res, &rep);
    gnn_train_result_free(&res);
out:
    if (st && err.msg[0])
        gnn_err_set(&comm->err, st, "%s", err.msg);
    free(feat);
    free(labels);
    free(split);
    gnn_part_local_free(&own);
    gnn_dataset_free(&local);
    return st;
}

/* getopt_long codes of the flags of training on partitions (above the backend's) */
enum { OPT_PARTITIONS = 2000, OPT_REMOTE, OPT_PART_METHOD, OPT_PART_BALANCE, OPT_HEC_CS, OPT_HEC_LS, OPT_HEC_NC,
       OPT_HEC_DELAY };

int gnn_cmd_train(int argc, char **argv)
{
    static const struct option opts[] = {
        { "data", required_argument, 0, 'd' },   { "model", required_argument, 0, 'm' },
        { "layers", required_argument, 0, 'L' }, { "hidden", required_argument, 0, 'H' },
        { "fanouts", required_argument, 0, 'f' }, { "batch", required_argument, 0, 'b' },
        { "epochs", required_argument, 0, 'e' }, { "lr", required_argument, 0, 'r' },
        { "dropout", required_argument, 0, 'p' }, { "weight-decay", required_argument, 0, 'w' },
        { "seed", required_argument, 0, 's' },   { "split", required_argument, 0, 'S' },
        { "impl", required_argument, 0, 'i' },   { "threads", required_argument, 0, 't' },
        { "eval-every", required_argument, 0, 'E' }, { "json", required_argument, 0, 'j' },
        { "quiet", no_argument, 0, 'q' },        { "help", no_argument, 0, 'h' },
        { "mode", required_argument, 0, 'M' },   { "patience", required_argument, 0, 'P' },
        { "heads", required_argument, 0, 'A' },  { "out-heads", required_argument, 0, 'O' },
        { "gat-variant", required_argument, 0, 'V' }, { "attn-dropout", required_argument, 0, 'a' },
        { "layernorm", no_argument, 0, 'n' },    { "normalize-features", required_argument, 0, 'N' },
        { "weight-decay-layers", required_argument, 0, 'W' },
        { "partitions", required_argument, 0, OPT_PARTITIONS }, { "remote", required_argument, 0, OPT_REMOTE },
        { "part-method", required_argument, 0, OPT_PART_METHOD },
        { "part-balance", required_argument, 0, OPT_PART_BALANCE }, { "hec-cs", required_argument, 0, OPT_HEC_CS },
        { "hec-ls", required_argument, 0, OPT_HEC_LS }, { "hec-nc", required_argument, 0, OPT_HEC_NC },
        { "hec-delay", required_argument, 0, OPT_HEC_DELAY },
        CLI_BACKEND_OPTIONS,
        { 0, 0, 0, 0 }
    };
    gnn_train_config c;
    gnn_train_defaults(&c);
    const char *data = "builtin", *json = NULL, *fanouts = NULL, *model = "sage";
    double split[3] = { 0 };
    int have_split = 0, quiet = 0, have_batch = 0, gat_flag = 0;
    const char *gat_flag_name = NULL;
    int64_t threads = 0, v;
    double x;
    /* training on partitions */
    const char *parts_dir = NULL, *part_flag = NULL, *hec_flag = NULL;
    int data_given = 0, remote_given = 0;
    gnn_remote_mode remote = GNN_REMOTE_HEC;
    gnn_part_options po;
    gnn_part_defaults(&po);
    po.balance = GNN_BALANCE_TRAIN | GNN_BALANCE_DEGREE;
    gnn_part_train_config pc;
    gnn_part_train_defaults(&pc);
    gnn_err err = { "" };
    optind = 1;
    opterr = 0;
    int ch;
    cli_backend b;
    cli_backend_defaults(&b);
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (ch >= CLI_OPT_BACKEND && ch < CLI_OPT_BACKEND_END) {
            int rc = cli_backend_option(ch, optarg, &b);
            if (rc)
                return rc;
            continue;
        }
        switch (ch) {
        case 'd':
            data = optarg;
            data_given = 1;
            break;
        case 'm': model = optarg; break;
        case 'L':
            if (cli_parse_i64(optarg, 1, GNN_MAX_LAYERS, &v))
                return cli_error(CLI_USAGE, "--layers '%s': expected an integer in 1..%d", optarg, GNN_MAX_LAYERS);
            c.layers = (int)v;
            break;
        case 'H':
            if (cli_parse_i64(optarg, 1, 1 << 16, &c.hidden))
                return cli_error(CLI_USAGE, "--hidden '%s': expected an integer in 1..65536", optarg);
            break;
        case 'f': fanouts = optarg; break;
        case 'b':
            if (cli_parse_i64(optarg, 1, INT32_MAX, &c.batch))
                return cli_error(CLI_USAGE, "--batch '%s': expected a positive integer", optarg);
            have_batch = 1;
            break;
        case 'M':
            if (!strcmp(optarg, "minibatch"))
                c.mode = GNN_MODE_MINIBATCH;
            else if (!strcmp(optarg, "fullbatch"))
                c.mode = GNN_MODE_FULLBATCH;
            else
                return cli_error(CLI_USAGE, "--mode '%s': expected minibatch or fullbatch", optarg);
            break;
        case 'P':
            if (cli_parse_i64(optarg, 0, 1000000, &v))
                return cli_error(CLI_USAGE, "--patience '%s': expected an integer >= 0 (0 = off)", optarg);
            c.patience = (int)v;
            break;
        case 'A':
        case 'O':
            if (cli_parse_i64(optarg, 1, GNN_MAX_HEADS, &v))
                return cli_error(CLI_USAGE, "--%s '%s': expected an integer in 1..%d", ch == 'A' ? "heads" : "out-heads",
                                 optarg, GNN_MAX_HEADS);
            if (ch == 'A')
                c.heads = v;
            else
                c.out_heads = v;
            gat_flag = 1;
            gat_flag_name = ch == 'A' ? "--heads" : "--out-heads";
            break;
        case 'V':
            if (!strcmp(optarg, "velickovic"))
                c.gat_variant = GNN_GAT_VELICKOVIC;
            else if (!strcmp(optarg, "distgnn"))
                c.gat_variant = GNN_GAT_DISTGNN;
            else
                return cli_error(CLI_USAGE, "--gat-variant '%s': expected velickovic or distgnn", optarg);
            gat_flag = 1;
            gat_flag_name = "--gat-variant";
            break;
        case 'a':
            if (cli_parse_f64(optarg, 0.0, 0.999999, &x))
                return cli_error(CLI_USAGE, "--attn-dropout '%s': expected a number in [0, 1)", optarg);
            c.attn_dropout = (float)x;
            gat_flag = 1;
            gat_flag_name = "--attn-dropout";
            break;
        case 'n': c.layernorm = 1; break;
        case 'N':
            if (!strcmp(optarg, "none"))
                c.feat_norm = GNN_FEAT_NORM_NONE;
            else if (!strcmp(optarg, "row"))
                c.feat_norm = GNN_FEAT_NORM_ROW;
            else
                return cli_error(CLI_USAGE, "--normalize-features '%s': expected none or row", optarg);
            break;
        case 'W':
            if (!strcmp(optarg, "all"))
                c.wd_scope = GNN_WD_ALL;
            else if (!strcmp(optarg, "first"))
                c.wd_scope = GNN_WD_FIRST;
            else
                return cli_error(CLI_USAGE, "--weight-decay-layers '%s': expected all or first", optarg);
            break;
        case 'e':
            if (cli_parse_i64(optarg, 1, 1000000, &v)) /* 0 would report accuracies never measured */
                return cli_error(CLI_USAGE, "--epochs '%s': expected an integer in 1..1000000", optarg);
            c.epochs = (int)v;
            break;
        case 'r':
            if (cli_parse_f64(optarg, 1e-12, 10.0, &x))
                return cli_error(CLI_USAGE, "--lr '%s': expected a number in (0, 10]", optarg);
            c.lr = (float)x;
            break;
        case 'p':
            if (cli_parse_f64(optarg, 0.0, 0.999999, &x))
                return cli_error(CLI_USAGE, "--dropout '%s': expected a number in [0, 1)", optarg);
            c.dropout = (float)x;
            break;
        case 'w':
            if (cli_parse_f64(optarg, 0.0, 1.0, &x))
                return cli_error(CLI_USAGE, "--weight-decay '%s': expected a number in [0, 1]", optarg);
            c.weight_decay = (float)x;
            break;
        case 's':
            if (cli_parse_u64(optarg, &c.seed))
                return cli_error(CLI_USAGE, "--seed '%s': expected a non-negative integer", optarg);
            break;
        case 'S':
            if (cli_parse_f64_list(optarg, 0.0, 1.0, split, 3) != 3 || split[0] + split[1] + split[2] > 1.0 + 1e-9 ||
                split[0] <= 0.0)
                return cli_error(CLI_USAGE, "--split '%s': expected TRAIN,VAL,TEST fractions summing to at most 1", optarg);
            have_split = 1;
            break;
        case 'i':
            if (!(c.impl = gnn_impl_select(!strcmp(optarg, "cpu") ? "opt" : optarg)))
                return cli_error(CLI_USAGE, "--impl '%s': expected ref or opt", optarg);
            break;
        case 't':
            if (cli_parse_i64(optarg, 1, 4096, &threads))
                return cli_error(CLI_USAGE, "--threads '%s': expected an integer in 1..4096", optarg);
            break;
        case 'E':
            if (cli_parse_i64(optarg, 0, 1000000, &v))
                return cli_error(CLI_USAGE, "--eval-every '%s': expected an integer >= 0", optarg);
            c.eval_every = (int)v;
            break;
        case 'j': json = optarg; break;
        case 'q': quiet = 1; break;
        case OPT_PARTITIONS: parts_dir = optarg; break;
        case OPT_REMOTE:
            if (gnn_remote_parse(optarg, &remote))
                return cli_error(CLI_USAGE, "--remote '%s': expected drop, hec or fetch", optarg);
            remote_given = 1;
            break;
        case OPT_PART_METHOD:
            if (gnn_part_method_parse(optarg, &po.method))
                return cli_error(CLI_USAGE, "--part-method '%s': expected metis, range, hash or random", optarg);
            part_flag = "--part-method";
            break;
        case OPT_PART_BALANCE:
            if (gnn_part_balance_parse(optarg, &po.balance, &err))
                return cli_error(CLI_USAGE, "--part-%s", err.msg);
            part_flag = "--part-balance";
            break;
        case OPT_HEC_CS:
        case OPT_HEC_LS:
        case OPT_HEC_NC:
        case OPT_HEC_DELAY: {
            static const char *const names[] = { "--hec-cs", "--hec-ls", "--hec-nc", "--hec-delay" };
            const int lines = ch == OPT_HEC_CS || ch == OPT_HEC_NC; /* sizes: 0 = auto */
            const int64_t lo = ch == OPT_HEC_DELAY ? 1 : 0,
                          hi = lines ? INT32_MAX : ch == OPT_HEC_DELAY ? GNN_HEC_MAX_DELAY : 1000000;
            hec_flag = names[ch - OPT_HEC_CS];
            if (cli_parse_i64(optarg, lo, hi, &v))
                return cli_error(CLI_USAGE, "%s '%s': expected an integer in %lld..%lld%s", hec_flag, optarg,
                                 (long long)lo, (long long)hi, lines ? " (0 = auto)" : "");
            if (ch == OPT_HEC_CS)
                pc.hec_cs = v;
            else if (ch == OPT_HEC_NC)
                pc.hec_nc = v;
            else if (ch == OPT_HEC_LS)
                pc.hec_ls = (int32_t)v;
            else
                pc.hec_delay = (int)v;
            break;
        }
        case 'h': train_usage(stdout); return CLI_OK;
        default:
            train_usage(stderr);
            return cli_error(CLI_USAGE, "train: unknown or incomplete flag '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_error(CLI_USAGE, "train: unexpected argument '%s'", argv[optind]);
    /* under MPI only rank 0 writes, on its own file system: checked there at the end */
    if (b.kind != CLI_BACKEND_MPI && cli_report_check(json))
        return CLI_USAGE;
    if (!strcmp(model, "sage"))
        c.model = GNN_MODEL_SAGE;
    else if (!strcmp(model, "gcn"))
        c.model = GNN_MODEL_GCN;
    else if (!strcmp(model, "gat"))
        c.model = GNN_MODEL_GAT;
    else if (!strcmp(model, "gin"))
        c.model = GNN_MODEL_GIN;
    else
        return cli_error(CLI_USAGE, "--model '%s': expected sage, gcn, gat or gin", model);
    if (gat_flag && c.model != GNN_MODEL_GAT)
        return cli_error(CLI_USAGE, "%s applies to --model gat only (model is %s)", gat_flag_name, model);
    if (c.mode == GNN_MODE_FULLBATCH && (fanouts || have_batch))
        return cli_error(CLI_USAGE, "--mode fullbatch uses every neighbor of every vertex: %s does not apply",
                         fanouts ? "--fanouts" : "--batch");
    if (fanouts) {
        int64_t fo[GNN_MAX_LAYERS];
        int k = cli_parse_i64_list(fanouts, -1, INT32_MAX, fo, GNN_MAX_LAYERS);
        if (k < 1)
            return cli_error(CLI_USAGE, "--fanouts '%s': expected comma-separated integers >= 1 or -1", fanouts);
        if (k != c.layers)
            return cli_error(CLI_USAGE, "--fanouts '%s' has %d values but --layers is %d", fanouts, k, c.layers);
        for (int l = 0; l < k; l++)
            c.fanouts[l] = fo[l];
    }
    /* training on partitions: --partitions DIR, --remote MODE, or both */
    const int on_parts = parts_dir || remote_given;
    if (on_parts) {
        const char *why = parts_dir ? "--partitions" : "--remote";
        if (c.mode == GNN_MODE_FULLBATCH)
            return cli_error(CLI_USAGE, "--mode fullbatch does not apply to training on partitions (%s): it is "
                                        "mini-batch only",
                             why);
        if (parts_dir && have_split)
            return cli_error(CLI_USAGE, "--split does not apply to --partitions: the set carries its own split "
                                        "(give --split to gnnref partition when making it)");
        if (parts_dir && part_flag)
            return cli_error(CLI_USAGE, "%s does not apply to --partitions: the set was partitioned when it was made",
                             part_flag);
    } else if (part_flag) {
        return cli_error(CLI_USAGE, "%s applies to training on partitions in memory (--remote drop|hec|fetch)",
                         part_flag);
    }
    if (hec_flag && (!on_parts || remote != GNN_REMOTE_HEC))
        return cli_error(CLI_USAGE, "%s applies to --remote hec only (%s%s)", hec_flag,
                         on_parts ? "remote is " : "no --remote or --partitions given",
                         on_parts ? gnn_remote_name(remote) : "");
    pc.remote = remote;
    int brc = cli_backend_check(&b);
    if (brc)
        return brc;
    const int nthreads = cli_set_threads(threads);

    /* a saved set needs the dataset only for fetch (the whole topology) or to check --data */
    const int need_ds = !parts_dir || remote == GNN_REMOTE_FETCH || data_given;
    gnn_dataset ds;
    memset(&ds, 0, sizeof ds);
    gnn_status st = need_ds ? gnn_dataset_open(&ds, data, &err) : GNN_OK;
    if (st)
        return cli_error(cli_status_code(st), "%s", cli_errmsg(&err, st));
    if (have_split && (st = gnn_dataset_split_random(&ds, split[0], split[1], split[2], c.seed, &err))) {
        gnn_dataset_free(&ds);
        return cli_error(cli_status_code(st), "%s", cli_errmsg(&err, st));
    }
    gnn_train_resolve(&c); /* effective values, as reported */
    /* under the simulator every rank runs threads_per_rank OpenMP threads */
    const int rank_threads = b.kind == CLI_BACKEND_SIM ? b.sim.threads_per_rank : nthreads;
    po.seed = c.seed; /* in memory: METIS and random draw from --seed (a set: its manifest's) */
    train_job J = { .ds = need_ds ? &ds : NULL, .cfg = c, .backend = &b, .data = need_ds ? data : NULL,
                    .model = model, .nthreads = rank_threads, .have_split = have_split, .quiet = quiet,
                    .tty = cli_is_tty(), .remote = on_parts ? (int)remote : -1, .parts_dir = parts_dir,
                    .po = po, .pc = pc };
    memcpy(J.split, split, sizeof split);
    cli_shared_init(&J.shared);
    gnn_sim_report rep;
    memset(&rep, 0, sizeof rep);
    st = cli_backend_run(&b, on_parts ? train_part_rank : train_rank, &J, &rep, &err);
    int rc = CLI_OK;
    if (st) {
        rc = cli_error(cli_status_code(st), "%s", cli_errmsg(&err, st));
    } else if (J.report) { /* rank 0 */
        json_object *sim = cli_backend_json(&b, &rep);
        if (sim) {
            double predicted = 0.0;
            json_object *pv;
            if (json_object_object_get_ex(sim, "predicted_s", &pv))
                predicted = json_object_get_double(pv);
            json_object_object_add(sim, "predicted_epoch_s",
                                   json_object_new_double(J.epochs_run ? predicted / J.epochs_run : 0.0));
            json_object_object_add(J.report, "sim", sim);
            if (!quiet)
                printf("simulated %d ranks: predicted time %.3f s (%.3f s per epoch) on a %.0f Gbit/s, %.1f us "
                       "network; wall %.3f s\n",
                       rep.ranks, predicted, J.epochs_run ? predicted / J.epochs_run : 0.0, b.sim.beta_Bps * 8e-9,
                       b.sim.alpha_s * 1e6, rep.wall_s);
        }
        if (json)
            rc = cli_report_write(J.report, json);
    }
    if (J.report)
        json_object_put(J.report);
    gnn_sim_report_free(&rep);
    gnn_partition_free(&J.full);
    cli_shared_destroy(&J.shared);
    gnn_dataset_free(&ds);
    return rc;
}
