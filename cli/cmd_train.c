/* cli/cmd_train.c -- `gnnref train`: GraphSAGE, GCN, GAT or GIN, mini-batch or full-batch
 * (docs/models.md), on one rank or data-parallel on P ranks of the simulator or MPI
 * (docs/comm.md): rank 0 prints and writes the report. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/backend.h"
#include "gnnref/dataset.h"
#include "gnnref/train.h"

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
            "data parallelism (every rank holds the graph, takes a slice of each mini-batch, and the\n"
            "gradients are allreduced):\n%s",
            cli_backend_help());
}

typedef struct print_ctx { int quiet; int tty; } print_ctx;

/* On a terminal, a progress line within the epoch, overwritten in place. */
static void on_step(int epoch, int64_t k, int64_t n, double loss, void *vctx)
{
    const print_ctx *p = vctx;
    if (p->quiet || !p->tty)
        return;
    printf("\repoch %3d  step %lld/%lld  loss %.4f", epoch, (long long)k, (long long)n, loss);
    fflush(stdout);
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
    printf(")\n");
    fflush(stdout);
}

static json_object *epoch_json(const gnn_epoch_stats *E)
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
    json_object_object_add(o, "edges_sampled", json_object_new_int64(E->edges_sampled));
    return o;
}

typedef struct train_job {
    const gnn_dataset *ds;
    gnn_train_config cfg;
    const cli_backend *backend;
    const char *data, *model;
    int nthreads, have_split, quiet, tty;
    double split[3];
    json_object *report; /* built by rank 0 */
    int epochs_run;
} train_job;

/* The report's body (rank 0), from its result, the gathered traffic and per-rank times. */
static json_object *train_report(const train_job *J, const gnn_train_result *res, int P)
{
    const gnn_train_config c = J->cfg;
    const int full = c.mode == GNN_MODE_FULLBATCH, gat = c.model == GNN_MODEL_GAT;
    json_object *cfg;
    json_object *r = cli_report_new("train", c.seed, J->nthreads, J->backend->name, P, &cfg);
    json_object_object_add(cfg, "data", json_object_new_string(J->data));
    json_object_object_add(cfg, "dataset", json_object_new_string(J->ds->name));
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
    json_object_object_add(cfg, "impl", json_object_new_string(c.impl_opt ? "opt" : "ref"));
    json_object_object_add(cfg, "threads", json_object_new_int(J->nthreads));
    json_object_object_add(cfg, "eval_every", json_object_new_int(c.eval_every));
    if (J->have_split) {
        json_object *sp = json_object_new_array();
        for (int k = 0; k < 3; k++)
            json_object_array_add(sp, json_object_new_double(J->split[k]));
        json_object_object_add(cfg, "split", sp);
    } else {
        json_object_object_add(cfg, "split", NULL);
    }
    json_object *eps = json_object_new_array();
    for (int e = 0; e < res->n_epochs; e++)
        json_object_array_add(eps, epoch_json(&res->epochs[e]));
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
    return r;
}

/* One rank of the training job: gnn_train with this rank's communicator; then the traffic
 * matrix and every rank's times are gathered, and rank 0 prints and builds the report. */
static gnn_status train_rank(gnn_comm *comm, void *arg)
{
    train_job *J = arg;
    gnn_train_config c = J->cfg;
    c.comm = gnn_comm_size(comm) > 1 ? comm : NULL;
    const int me = gnn_comm_rank(comm), P = gnn_comm_size(comm);
    const gnn_dataset *ds = J->ds;
    print_ctx pc = { J->quiet || me != 0, J->tty };
    const int full = c.mode == GNN_MODE_FULLBATCH;
    if (!pc.quiet)
        printf("gnnref train: %s  n=%lld edges=%lld features=%lld classes=%lld  %s %s L=%d hidden=%lld "
               "batch=%lld impl=%s threads=%d seed=%llu backend=%s ranks=%d\n",
               ds->name, (long long)ds->graph.n, (long long)ds->graph.nnz, (long long)ds->num_features,
               (long long)ds->num_classes, J->model, gnn_mode_name(c.mode), c.layers, (long long)c.hidden,
               full ? (long long)ds->graph.n : (long long)c.batch, c.impl_opt ? "opt" : "ref", J->nthreads,
               (unsigned long long)c.seed, J->backend->name, P);
    c.on_step = on_step;
    c.on_step_ctx = &pc;
    gnn_train_result res;
    gnn_err err = { "" };
    gnn_status st = gnn_train(ds, &c, on_epoch, &pc, &res, &err);
    if (st)
        return gnn_err_set(&comm->err, st, "%s", err.msg[0] ? err.msg : gnn_status_str(st));
    /* every rank's times: total, then the phases */
    enum { NT = 1 + GNN_PHASE_COUNT };
    double mine[NT] = { 0 }, *all = malloc(sizeof(double) * NT * (size_t)P);
    int64_t *cnt = malloc(sizeof(int64_t) * 2 * (size_t)P), *bytes = NULL, *msgs = NULL;
    if (!all || !cnt) {
        st = gnn_err_set(&comm->err, GNN_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int e = 0; e < res.n_epochs; e++) {
        mine[0] += res.epochs[e].time_s;
        for (int k = 0; k < GNN_PHASE_COUNT; k++)
            mine[1 + k] += res.epochs[e].phase_s[k];
    }
    for (int q = 0; q < P; q++) {
        cnt[q] = NT;
        cnt[P + q] = (int64_t)NT * q;
    }
    /* the times first, so the traffic matrix includes their gather: the matrix then sums to
     * every byte the ranks sent (the simulator's bytes_moved) */
    if ((st = gnn_comm_allgatherv(comm, mine, NT, all, cnt, cnt + P, GNN_DT_F64)) ||
        (st = gnn_comm_traffic_matrix(comm, &bytes, &msgs)))
        goto done;
    if (me == 0) {
        printf("final: train_acc %.4f  val_acc %.4f  test_acc %.4f  best_val_acc %.4f (epoch %d)  "
               "test_acc_at_best_val %.4f  majority_class %.4f\n",
               res.train_acc, res.val_acc, res.test_acc, res.best_val_acc, res.best_epoch,
               res.test_acc_at_best_val, res.majority_rate);
        if (res.stopped_early)
            printf("early stop: no better validation accuracy for %d evaluated epochs; stopped after epoch %d\n",
                   c.patience, res.stop_epoch);
        printf("test accuracy: %.4f\n", res.test_acc);
        J->report = train_report(J, &res, P);
        J->epochs_run = res.n_epochs;
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
    gnn_train_result_free(&res);
    return st;
}

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
        case 'd': data = optarg; break;
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
            if (cli_parse_i64(optarg, 0, 1000000, &v))
                return cli_error(CLI_USAGE, "--epochs '%s': expected an integer >= 0", optarg);
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
            if (!strcmp(optarg, "ref"))
                c.impl_opt = 0;
            else if (!strcmp(optarg, "opt") || !strcmp(optarg, "cpu"))
                c.impl_opt = 1;
            else
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
        case 'h': train_usage(stdout); return CLI_OK;
        default:
            train_usage(stderr);
            return cli_error(CLI_USAGE, "train: unknown or incomplete flag '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_error(CLI_USAGE, "train: unexpected argument '%s'", argv[optind]);
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
    int brc = cli_backend_check(&b);
    if (brc)
        return brc;
    const int nthreads = cli_set_threads(threads);

    gnn_dataset ds;
    gnn_err err = { "" };
    gnn_status st = gnn_dataset_open(&ds, data, &err);
    if (st)
        return cli_error(cli_status_code(st), "%s", err.msg[0] ? err.msg : gnn_status_str(st));
    if (have_split && (st = gnn_dataset_split_random(&ds, split[0], split[1], split[2], c.seed, &err))) {
        gnn_dataset_free(&ds);
        return cli_error(cli_status_code(st), "%s", err.msg);
    }
    gnn_train_resolve(&c); /* effective values, as reported */
    /* under the simulator every rank runs threads_per_rank OpenMP threads */
    const int rank_threads = b.kind == CLI_BACKEND_SIM ? b.sim.threads_per_rank : nthreads;
    train_job J = { .ds = &ds, .cfg = c, .backend = &b, .data = data, .model = model, .nthreads = rank_threads,
                    .have_split = have_split, .quiet = quiet, .tty = cli_is_tty() };
    memcpy(J.split, split, sizeof split);
    gnn_sim_report rep;
    memset(&rep, 0, sizeof rep);
    st = cli_backend_run(&b, train_rank, &J, &rep, &err);
    int rc = CLI_OK;
    if (st) {
        rc = cli_error(cli_status_code(st), "%s", err.msg[0] ? err.msg : gnn_status_str(st));
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
    gnn_dataset_free(&ds);
    return rc;
}
