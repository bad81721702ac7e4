/* cli/train_report.c -- what `gnnref train` prints and reports (cli/train.h): the progress
 * lines, rank 0's summary, and the JSON report (DESIGN.md section 6): "config" from the flag
 * table (cli_config_json), with the values a run resolves (the effective fanouts, threads and
 * split, a saved set's partitioning, the HEC sizes the library chose) put in by hand. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/train.h"
#include "gnnref/dense.h"
#include "gnnref/impl.h"

/* Test hook (docs/checkpoint.md): with GNNREF_TEST_KILL_AT_STEP=S in the environment, the
 * process raises SIGKILL right after global step S (0-based, epoch * steps per epoch + step)
 * has finished on any of its ranks: the kill-and-resume tests (tests/test_checkpoint.c,
 * ci/resume-check.sh) stop a run at a step of their choosing with no chance to clean up. */
static int64_t g_kill_at = -1;
static pthread_once_t g_kill_once = PTHREAD_ONCE_INIT;
static void kill_hook_read(void)
{
    const char *e = getenv("GNNREF_TEST_KILL_AT_STEP");
    g_kill_at = e && *e ? strtoll(e, NULL, 10) : -1;
}

static void kill_hook(int epoch, int64_t k, int64_t n)
{
    pthread_once(&g_kill_once, kill_hook_read); /* the simulator's ranks are threads: read once, synchronized */
    if (g_kill_at >= 0 && (int64_t)epoch * n + k - 1 == g_kill_at) {
        fflush(stdout);
        raise(SIGKILL);
    }
}

/* On a terminal, a progress line within the epoch, overwritten in place. */
void train_on_step(int epoch, int64_t k, int64_t n, double loss, void *vctx)
{
    const train_print *p = vctx;
    kill_hook(epoch, k, n);
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

void train_on_epoch(const gnn_epoch_stats *E, void *vctx)
{
    const train_print *p = vctx;
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
    json_object_object_add(o, "team_mean", json_object_new_double(E->team_mean));
    if (remote >= 0) { /* training on partitions: summed over the ranks */
        json_object_object_add(o, "hec_hit_rate", hit_rates_json(E->hec_hits, E->hec_lookups, layers));
        json_object_object_add(o, "push_bytes", json_object_new_int64(E->push_bytes));
        json_object_object_add(o, "pull_bytes", json_object_new_int64(E->pull_bytes));
    }
    json_object_object_add(o, "edges_sampled", json_object_new_int64(E->edges_sampled));
    return o;
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
    /* distributed sampling (zero otherwise): per block, summed over the ranks */
    json_object_object_add(o, "sample_local", cli_json_i64_array(rep->sample_local, layers, 1));
    json_object_object_add(o, "sample_remote", cli_json_i64_array(rep->sample_remote, layers, 1));
    json_object_object_add(o, "sample_request_bytes", cli_json_i64_array(rep->sample_request_bytes, layers, 1));
    json_object_object_add(o, "sample_reply_bytes", cli_json_i64_array(rep->sample_reply_bytes, layers, 1));
    json_object_object_add(o, "pipeline_worker_s", json_object_new_double(rep->pipeline_worker_s));
    json_object_object_add(o, "pipeline_full_s", json_object_new_double(rep->pipeline_full_s));
    json_object_object_add(o, "embed_push_bytes", json_object_new_int64(rep->embed_push_bytes));
    json_object_object_add(o, "embed_rows_updated", json_object_new_int64(rep->embed_rows_updated));
    return o;
}

/* The report's "fullbatch" object (full batch on partitions): the plan's rows, the exchanges'
 * bytes per layer and direction against the plan's formula, and their modelled times. */
static json_object *fb_report_json(const gnn_fb_report *r, int layers)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "cut_edges", json_object_new_int64(r->cut_edges));
    json_object_object_add(o, "plan_rows", json_object_new_int64(r->plan_rows));
    json_object_object_add(o, "rows_pre", json_object_new_int64(r->rows_pre));
    json_object_object_add(o, "rows_post", json_object_new_int64(r->rows_post));
    json_object_object_add(o, "rows_hybrid", json_object_new_int64(r->rows_hybrid));
    json_object_object_add(o, "hybrid_over_pre",
                           r->rows_pre ? json_object_new_double((double)r->rows_hybrid / (double)r->rows_pre) : NULL);
    const int64_t own[2] = { r->own_min, r->own_max };
    json_object_object_add(o, "owned_range", cli_json_i64_array(own, 2, 1));
    json_object_object_add(o, "fwd_width", cli_json_i64_array(r->fwd_width, layers, 1));
    json_object_object_add(o, "bwd_width", cli_json_i64_array(r->bwd_width, layers, 1));
    json_object_object_add(o, "fwd_bytes", cli_json_i64_array(r->fwd_bytes, layers, 1));
    json_object_object_add(o, "bwd_bytes", cli_json_i64_array(r->bwd_bytes, layers, 1));
    json_object_object_add(o, "epoch_bytes", json_object_new_int64(r->epoch_bytes));
    json_object_object_add(o, "epoch_formula_bytes", json_object_new_int64(r->epoch_formula));
    json_object_object_add(o, "epoch_bytes_match", json_object_new_boolean(r->epoch_bytes == r->epoch_formula));
    json_object_object_add(o, "eval_bytes", json_object_new_int64(r->eval_bytes));
    json_object_object_add(o, "n_train", json_object_new_int64(r->n_train));
    json_object_object_add(o, "lp_propagated", json_object_new_int64(r->lp_propagated));
    json_object_object_add(o, "xchg_model_s", json_object_new_double(r->xchg_model_s));
    json_object_object_add(o, "xchg_hidden_s", json_object_new_double(r->xchg_hidden_s));
    json_object_object_add(o, "xchg_wait_s", json_object_new_double(r->xchg_wait_s));
    return o;
}

/* The dataset's name: the loaded one's, or the set's. */
static const char *job_dataset(const train_job *J) { return J->ds ? J->ds->name : J->man.dataset; }

/* The report's "config": every flag's effective value, and what a run resolves. */
static json_object *train_config_json(json_object *cfg, const train_job *J, const gnn_part_report *rep)
{
    const train_opts *o = &J->o;
    const gnn_train_config *c = &o->cfg;
    const int gat = c->model == GNN_MODEL_GAT, parts = J->remote >= 0;
    unsigned na = 0; /* tags of the flags that do not apply to this run: null */
    if (!gat)
        na |= TRAIN_TAG_GAT;
    if (c->model != GNN_MODEL_RGCN)
        na |= TRAIN_TAG_RGCN;
    if (c->mode == GNN_MODE_FULLBATCH) /* no sampling, no batches */
        na |= TRAIN_TAG_MINIBATCH;
    if (!parts)
        na |= TRAIN_TAG_PARTS;
    if (!J->fb)
        na |= TRAIN_TAG_FB;
    if (!parts && !J->fb) /* not partitioned (a saved set reports its manifest's) */
        na |= TRAIN_TAG_MEMORY;
    if (J->remote != GNN_REMOTE_HEC)
        na |= TRAIN_TAG_HEC;
    if (o->backend.kind != CLI_BACKEND_SIM)
        na |= CLI_TAG_SIM;
    cli_config_json(cfg, J->args, o, na);
    json_object_object_add(cfg, "data", J->ds ? json_object_new_string(o->data) : NULL); /* NULL: not loaded */
    json_object_object_add(cfg, "dataset", json_object_new_string(job_dataset(J)));
    json_object_object_add(cfg, "gat_slope", gat ? json_object_new_double(c->gat_slope) : NULL);
    json_object_object_add(cfg, "threads", json_object_new_int(J->nthreads)); /* in effect */
    /* the fma context's kernel path (the same bits on every path; include/gnnref/dense.h) */
    const char *dense_path = gnn_dense_path_name(gnn_dense_path_current());
    json_object_object_add(cfg, "dense_path",
                           c->impl && c->impl->nn == &gnn_nn_fma ? json_object_new_string(dense_path) : NULL);
    if (o->parts_dir) /* a saved set carries its split: the fractions it was made with, if any */
        json_object_object_add(cfg, "split", J->man.have_split ? cli_flag_json_split(J->man.split) : NULL);
    json_object *hec = NULL;
    if (J->remote == GNN_REMOTE_HEC && rep) { /* effective: cs and nc as the library sized them */
        hec = json_object_new_object();
        json_object_object_add(hec, "cs", json_object_new_int64(rep->hec_cs));
        json_object_object_add(hec, "ls", json_object_new_int(o->pc.hec_ls));
        json_object_object_add(hec, "nc", json_object_new_int64(rep->hec_nc));
        json_object_object_add(hec, "delay", json_object_new_int(o->pc.hec_delay));
        const int64_t cs_range[2] = { rep->hec_cs_min, rep->hec_cs_max };
        const int64_t nc_range[2] = { rep->hec_nc_min, rep->hec_nc_max };
        json_object_object_add(hec, "cs_range", cli_json_i64_array(cs_range, 2, 1)); /* over the ranks */
        json_object_object_add(hec, "nc_range", cli_json_i64_array(nc_range, 2, 1));
    }
    json_object_object_add(cfg, "hec", hec);
    return cfg;
}

/* The report's body (rank 0), from its result (and on partitions the run's figures, rep). */
static json_object *train_report(const train_job *J, const gnn_train_result *res, const gnn_part_report *rep, int P)
{
    json_object *cfg;
    json_object *r = cli_report_new("train", J->o.cfg.seed, J->nthreads, J->o.backend.name, P, &cfg);
    train_config_json(cfg, J, rep);
    json_object *eps = json_object_new_array();
    for (int e = 0; e < res->n_epochs; e++)
        json_object_array_add(eps, epoch_json(&res->epochs[e], J->remote, J->o.cfg.layers));
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
    /* the model --stop-rule keeps, as a restore of it would report it (models.md section 4) */
    json_object_object_add(fin, "test_acc_restored", json_object_new_double(res->test_acc_restored));
    json_object_object_add(fin, "restored_epoch", json_object_new_int(res->restored_epoch));
    json_object_object_add(fin, "epochs_run", json_object_new_int(res->n_epochs));
    json_object_object_add(fin, "stopped_early", json_object_new_boolean(res->stopped_early));
    json_object_object_add(fin, "stop_epoch", res->stopped_early ? json_object_new_int(res->stop_epoch) : NULL);
    json_object_object_add(fin, "majority_class_acc", json_object_new_double(res->majority_rate));
    char crc[16]; /* digests of the final model (docs/checkpoint.md): a resumed run's equal the run never stopped */
    snprintf(crc, sizeof crc, "%08x", res->weights_crc);
    json_object_object_add(fin, "weights_crc32c", json_object_new_string(crc));
    snprintf(crc, sizeof crc, "%08x", res->state_crc);
    json_object_object_add(fin, "state_crc32c", json_object_new_string(crc));
    json_object_object_add(fin, "resumed_epochs", json_object_new_int(res->resumed_epochs));
    json_object_object_add(r, "final", fin);
    if (rep)
        json_object_object_add(r, "partition_training", part_report_json(rep, J->o.cfg.layers));
    if (J->fb_rep)
        json_object_object_add(r, "fullbatch", fb_report_json(J->fb_rep, J->o.cfg.layers));
    return r;
}

/* Labelled vertices among the first n of split/labels: cnt[0] in val, cnt[1] in test. */
void train_count_eval_splits(const uint8_t *split, const int32_t *labels, int64_t n, double cnt[2])
{
    cnt[0] = cnt[1] = 0.0;
    for (int64_t v = 0; split && labels && v < n; v++)
        if (labels[v] >= 0) {
            cnt[0] += split[v] == GNN_SPLIT_VAL;
            cnt[1] += split[v] == GNN_SPLIT_TEST;
        }
}

/* Also with --quiet: a val or test split without a labelled vertex gives accuracies of 0 that
 * measure nothing; say so (early stopping then has nothing to go on). */
void train_warn_empty_splits(const train_job *J, const double cnt[2])
{
    const char *name = job_dataset(J);
    if (cnt[0] == 0.0)
        fprintf(stderr, "gnnref: warning: %s: no labelled validation vertex: val accuracies are reported as 0%s\n",
                name, J->o.cfg.patience > 0 ? " (so --patience stops the run early, never seeing a better one)" : "");
    if (cnt[1] == 0.0)
        fprintf(stderr, "gnnref: warning: %s: no labelled test vertex: test accuracies are reported as 0\n", name);
}

/* The run's first line (rank 0): the dataset, the model and the backend; on partitions also
 * the remote mode and where the parts come from. */
void train_print_header(const train_job *J, int P)
{
    const gnn_train_config *c = &J->o.cfg;
    const gnn_dataset *ds = J->ds;
    const int64_t n = ds ? ds->graph.n : J->man.n, nnz = ds ? ds->graph.nnz : J->man.nnz;
    const int64_t f = ds ? ds->num_features : J->man.num_features, classes = ds ? ds->num_classes : J->man.num_classes;
    printf("gnnref train: %s  n=%lld edges=%lld features=%lld classes=%lld  %s %s L=%d hidden=%lld "
           "batch=%lld impl=%s threads=%d seed=%llu backend=%s ranks=%d",
           job_dataset(J), (long long)n, (long long)nnz, (long long)f, (long long)classes, gnn_model_name(c->model),
           gnn_mode_name(c->mode), c->layers, (long long)c->hidden,
           c->mode == GNN_MODE_FULLBATCH ? (long long)n : (long long)c->batch, c->impl->name,
           J->nthreads, (unsigned long long)c->seed, J->o.backend.name, P);
    if (J->remote >= 0 && J->o.parts_dir)
        printf(" remote=%s parts=%s", gnn_remote_name(J->remote), J->o.parts_dir);
    else if (J->remote >= 0)
        printf(" remote=%s parts=memory(%s)", gnn_remote_name(J->remote), gnn_part_method_name(J->o.po.method));
    if (J->fb) {
        const gnn_fb_config *fb = &J->o.fc;
        printf(" plan=%s comm_bits=%d", gnn_plan_kind_name(fb->plan), fb->bits);
        if (fb->bits < 32)
            printf(" round=%s%s", fb->round == GNN_QUANT_NEAREST ? "nearest" : "stochastic",
                   fb->quant_backward ? "" : " (forward only)");
        if (fb->lp_rate > 0.0f)
            printf(" lp_rate=%g", (double)fb->lp_rate);
        if (J->o.parts_dir)
            printf(" parts=%s", J->o.parts_dir);
        else
            printf(" parts=memory(%s)", gnn_part_method_name(J->o.po.method));
    }
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
        printf(" ls %d d %d  hit rate", (int)J->o.pc.hec_ls, J->o.pc.hec_delay);
        print_hit_rates(rep->hits, rep->lookups, layers, 4);
        printf("  pushed rows %lld bytes %lld\n", (long long)rows, (long long)rep->push_bytes);
    } else if (J->remote == GNN_REMOTE_FETCH) {
        printf("fetch: pulled bytes %lld\n", (long long)rep->pull_bytes);
    }
    if (J->o.pc.pipeline_cap > 0)
        printf("pipeline (up to %lld mini-batches ahead): workers sampled %.3f s and waited for room %.3f s (all "
               "ranks); the trainers' wait is the sample phase\n",
               (long long)J->o.pc.pipeline_cap, rep->pipeline_worker_s, rep->pipeline_full_s);
    if (J->o.pc.embed_dim > 0)
        printf("sparse embeddings (width %lld): pushed %lld bytes, %lld row updates\n", (long long)J->o.pc.embed_dim,
               (long long)rep->embed_push_bytes, (long long)rep->embed_rows_updated);
    if (J->o.pc.sampling == GNN_SAMPLING_DISTRIBUTED) {
        printf("distributed sampling, per block (input layer first): vertices sampled where they live / requested, "
               "request and reply bytes:");
        for (int l = 0; l < layers; l++)
            printf(" l%d %lld/%lld %lld+%lld", l, (long long)rep->sample_local[l], (long long)rep->sample_remote[l],
                   (long long)rep->sample_request_bytes[l], (long long)rep->sample_reply_bytes[l]);
        printf("\n");
    }
    printf("halo edges dropped %lld  (all ranks: solid %lld, halo %lld, train %lld; evaluation exchanged %lld "
           "bytes)\n",
           (long long)rep->halo_edges_dropped, (long long)rep->solid_total, (long long)rep->halo_total,
           (long long)rep->train_total, (long long)rep->eval_bytes);
}

/* Rank 0, after full batch on partitions: the plan's rows and the exchanges against the formula. */
static void print_fb_summary(const gnn_fb_report *r)
{
    printf("plan: rows per exchange %lld (pre %lld, post %lld, hybrid %lld: hybrid/pre %.3f)  cut edges %lld  "
           "owned %lld..%lld\n",
           (long long)r->plan_rows, (long long)r->rows_pre, (long long)r->rows_post, (long long)r->rows_hybrid,
           r->rows_pre ? (double)r->rows_hybrid / (double)r->rows_pre : 0.0, (long long)r->cut_edges,
           (long long)r->own_min, (long long)r->own_max);
    printf("exchanges: one epoch %lld bytes, plan formula %lld (%s); evaluation %lld bytes; modelled %.4f s, "
           "hidden by overlap %.4f s, waited %.4f s\n",
           (long long)r->epoch_bytes, (long long)r->epoch_formula, r->epoch_bytes == r->epoch_formula ? "equal" : "DIFFER",
           (long long)r->eval_bytes, r->xchg_model_s, r->xchg_hidden_s, r->xchg_wait_s);
}

gnn_status train_finish(gnn_comm *comm, train_job *J, const gnn_train_result *res, const gnn_part_report *rep)
{
    const gnn_train_config *c = &J->o.cfg;
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
        if (J->fb_rep)
            print_fb_summary(J->fb_rep);
        printf("final: train_acc %.4f  val_acc %.4f  test_acc %.4f  best_val_acc %.4f (epoch %d)  "
               "test_acc_at_best_val %.4f  majority_class %.4f\n",
               res->train_acc, res->val_acc, res->test_acc, res->best_val_acc, res->best_epoch,
               res->test_acc_at_best_val, res->majority_rate);
        printf("kept model (--stop-rule %s): epoch %d, test_acc %.4f\n", gnn_stop_rule_name(c->stop_rule),
               res->restored_epoch, res->test_acc_restored);
        if (res->stopped_early)
            printf("early stop: no better validation %s for %d evaluated epochs; stopped after epoch %d\n",
                   c->stop_rule == GNN_STOP_GAT ? "accuracy or loss" : "accuracy", c->patience, res->stop_epoch);
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

void train_add_sim(train_job *J, const gnn_sim_report *rep)
{
    const cli_backend *b = &J->o.backend;
    json_object *sim = cli_backend_json(b, rep);
    if (!sim)
        return;
    double predicted = 0.0;
    json_object *pv;
    if (json_object_object_get_ex(sim, "predicted_s", &pv))
        predicted = json_object_get_double(pv);
    const double per_epoch = J->epochs_run ? predicted / J->epochs_run : 0.0;
    json_object_object_add(sim, "predicted_epoch_s", json_object_new_double(per_epoch));
    json_object_object_add(J->report, "sim", sim);
    if (!J->o.quiet)
        printf("simulated %d ranks: predicted time %.3f s (%.3f s per epoch) on a %.0f Gbit/s, %.1f us network; "
               "wall %.3f s\n",
               rep->ranks, predicted, per_epoch, b->sim.beta_Bps * 8e-9, b->sim.alpha_s * 1e6, rep->wall_s);
}
