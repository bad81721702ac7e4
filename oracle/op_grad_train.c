/* oracle/op_grad_train.c -- gradient checks of the trainers' own steps (docs/oracle.md, "Gradient
 * checks", "Coverage rules"): the kernels' backwards have their grad.* entries; these check what
 * composes them, the paths a trained parameter's gradient takes through a trainer's step.
 *
 *   grad.train      gnn_train_grad_probe (core/train/train.c): every model (sage, gcn, gat, gin,
 *       rgcn), mini-batch (sampled blocks) and full batch, with LayerNorm, dropout, gat's
 *       variants, heads and attention dropout, rgcn's bases, and sparse (CSR) input features;
 *       every parameter's backward gradient against the central difference of the step's loss.
 *   grad.fullbatch  gnn_fb_grad_probe (core/train/train_fullbatch.c): SuperGCN's full batch on 1 to 4
 *       simulated ranks (the distributed aggregation's forward and backward exchanges), sage,
 *       gcn and gin, with LayerNorm, dropout, and label propagation: the label embeddings E
 *       are parameters too, and their gradient must take exactly the rows that propagated in
 *       this step.
 *
 * Inputs: an SBM of 2^scale vertices (3 classes, 5 features, split 1/2, 1/4, 1/4; typed with 2
 * vertex types and 4 relations for rgcn), 4 hidden units, the reference context, three warm-up
 * steps (Adam moves the biases off 0, where an all-zero row's ReLU inputs would sit exactly on
 * their kinks), then the probed step: every parameter (and with inputs=1 every input feature)
 * perturbed, the loss evaluated by the step's own code (core/train/grad_probe.h). A difference is kept
 * only where it measures a derivative: no ReLU, LeakyReLU or ELU of the step changes side on the
 * interval (central, or one-sided with Richardson's extrapolation where only one side stays
 * smooth), and the differences at s and s/2 agree (within a quarter of atol, scaled by h / s,
 * plus 2.5e-4 relative); else s is halved from 2^-7 up to six times, and a parameter no step
 * resolves is left out and counted (a tenth left out fails the case).
 *
 * Tolerance allclose(1e-4, 1e-2), the absolute part scaled by h / 2s for a difference taken at a
 * step s below h / 2: the forward runs in f32, so each loss carries rounding errors near 1e-7,
 * which a difference divides by 2s; LayerNorm over 4 features is strongly curved where a row is
 * nearly constant. Measured over 40 seeds of every preset: at most 0.77 (grad.train) and 0.55
 * (grad.fullbatch) of the tolerance; at rtol 1e-3, 2 of 360 grad.train cases (30 seeds) failed,
 * by up to 0.5% of the gradient (gin), where the differences converge at first order, as across
 * a kink the branch pattern does not see (docs/oracle.md). The bugs these entries exist for (a
 * gradient taken over the wrong rows, a term or a mask's backward missing) move gradients by
 * their own size. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gnnref/impl.h"
#include "gnnref/oracle.h"
#include "gnnref/sim.h"
#include "gnnref/train.h"
#include "gnnref/train_fullbatch.h"

#define PROBE_H 0.0078125 /* 2^-7: the first step */
#define PROBE_AGREE 2.5e-4 /* relative agreement of the differences at s and s/2 */

static const gnn_oracle_impl k_ref = { .name = "ref", .ops = NULL, .flags = 0 };
static const gnn_oracle_impl *const k_impls[] = { &k_ref, NULL };

static void free_dataset(void *p) { gnn_dataset_free(p); }

/* The case's SBM (typed for rgcn), owned by the case; sparse: its features stored as CSR too. */
static gnn_oracle_outcome probe_dataset(gnn_oracle_ctx *ctx, const gnn_oracle_case *c, int scale, int typed,
                                        int sparse, gnn_dataset **out)
{
    gnn_dataset *ds = gnn_oracle_alloc(ctx, sizeof *ds);
    if (!ds)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_sbm_params sp;
    gnn_sbm_defaults(&sp);
    sp.n = (int64_t)1 << scale;
    sp.classes = 3;
    sp.deg_in = 3.0;
    sp.deg_out = 1.5;
    sp.num_features = 5;
    sp.noise = 1.0;
    sp.seed = c->seed * 0x9E3779B97F4A7C15ull + 61;
    sp.train = 0.5, sp.val = 0.25, sp.test = 0.25;
    gnn_err err = { "" };
    gnn_status st = typed ? gnn_gen_typed_sbm(ds, &sp, 2, &err) : gnn_gen_sbm(ds, &sp, &err);
    if (st)
        return gnn_oracle_fail(ctx, "dataset: %s (%s)", gnn_status_str(st), err.msg);
    gnn_oracle_defer(ctx, free_dataset, ds);
    if (sparse && (st = gnn_dataset_set_feat_storage(ds, GNN_FEAT_STORE_CSR, &err)))
        return gnn_oracle_fail(ctx, "CSR features: %s (%s)", gnn_status_str(st), err.msg);
    *out = ds;
    return GNN_ORACLE_PASS;
}

/* The probe's result under the case's tolerance allclose(atol, rtol), named by where each
 * parameter lives. A difference taken with a step s below h / 2 carries the loss's rounding
 * magnified by h / 2s: its absolute tolerance is atol h / 2s (gnn_grad_probe). A parameter no
 * step resolved (a kink at the point itself, or a curvature or rounding no step measures) is
 * left out and counted; more than a tenth of them left out fails the case, which would then
 * check too little. */
static gnn_oracle_outcome compare_probe(gnn_oracle_ctx *ctx, const gnn_grad_probe *r, int L, const char *extra)
{
    const gnn_oracle_tol *tol = gnn_oracle_ctx_tol(ctx);
    double *fd = gnn_oracle_alloc_out(ctx, "finite-difference", sizeof(double) * (size_t)(r->count + 1));
    if (!fd)
        return gnn_oracle_fail(ctx, "out of memory");
    memcpy(fd, r->fd, sizeof(double) * (size_t)r->count);
    int64_t open = 0, halved = 0, at = 0;
    for (int64_t i = 0; i < r->count; i++) {
        open += r->step[i] == 0.0;
        halved += r->step[i] > 0.0 && r->step[i] < r->h / 2;
    }
    if (open * 10 > r->count)
        return gnn_oracle_fail(ctx, "%lld of %lld parameters resolved by no step (kinks at the point, or curvature): "
                                    "the case checks too little; change its inputs",
                               (long long)open, (long long)r->count);
    gnn_oracle_note(ctx, "%lld parameters: %lld at a smaller step (a kink or curvature within h), %lld left out",
                    (long long)r->count, (long long)halved, (long long)open);
    gnn_oracle_outcome o = GNN_ORACLE_PASS;
    for (int l = 0; l <= L; l++) {
        char name[64];
        if (l < L)
            snprintf(name, sizeof name, "layer %d's parameters", l);
        else
            snprintf(name, sizeof name, "%s", extra);
        int64_t bad = 0, first = -1;
        double worst = 0.0, ratio = 0.0;
        for (int64_t i = at; i < at + r->parts[l]; i++) {
            if (r->step[i] == 0.0)
                continue;
            const double diff = fabs(r->grad[i] - fd[i]), scale = r->h / 2 / r->step[i];
            worst = diff > worst ? diff : worst;
            ratio = diff / (tol->a * scale + tol->b * fabs(fd[i])) > ratio ? diff / (tol->a * scale + tol->b * fabs(fd[i]))
                                                                            : ratio;
            if (!(diff <= tol->a * scale + tol->b * fabs(fd[i]))) {
                bad++;
                first = first < 0 ? i : first;
            }
        }
        if (bad) {
            gnn_oracle_fail(ctx, "%s (finite difference vs backward): %lld of %lld differ; first [%lld]: difference "
                                 "%.9g (step %g), backward %.9g (|diff| %.3g)",
                            name, (long long)bad, (long long)r->parts[l], (long long)(first - at), fd[first],
                            r->step[first], r->grad[first], fabs(r->grad[first] - fd[first]));
            o = GNN_ORACLE_FAIL;
        } else if (r->parts[l]) {
            gnn_oracle_note(ctx, "%s: max |diff| %.3g, at most %.2f of the tolerance", name, worst, ratio);
        }
        at += r->parts[l];
    }
    return o;
}

/* The probe's arrays, owned by the case; its step and agreement tolerance the case's. */
static gnn_oracle_outcome probe_new(gnn_oracle_ctx *ctx, int64_t cap, gnn_grad_probe *r)
{
    const gnn_oracle_tol *tol = gnn_oracle_ctx_tol(ctx);
    memset(r, 0, sizeof *r);
    r->h = PROBE_H;
    r->warmup = 3;
    r->atol = tol->a / 4; /* the differences at s and s/2 agree within a quarter of the rounding budget */
    r->rtol = PROBE_AGREE;
    r->cap = cap;
    r->grad = gnn_oracle_alloc(ctx, sizeof(double) * (size_t)cap);
    r->fd = gnn_oracle_alloc(ctx, sizeof(double) * (size_t)cap);
    r->step = gnn_oracle_alloc(ctx, sizeof(double) * (size_t)cap);
    return r->grad && r->fd && r->step ? GNN_ORACLE_PASS : gnn_oracle_fail(ctx, "out of memory");
}

/* ---- grad.train --------------------------------------------------------------------------------- */

enum { T_MODEL, T_MODE, T_LAYERS, T_LN, T_DROP, T_SPARSE, T_VARIANT, T_HEADS, T_ADROP, T_BASES, T_SCALE, T_INPUTS,
       N_T_PARAMS };
static const gnn_oracle_param k_t_params[N_T_PARAMS] = {
    { "model", GNN_PARAM_INT, 0, 4, "0 sage, 1 gcn, 2 gat, 3 gin, 4 rgcn (gnn_model_kind)" },
    { "mode", GNN_PARAM_INT, 0, 1, "0 mini-batch (the first 16 training vertices, fanouts 3 per layer), 1 full batch" },
    { "layers", GNN_PARAM_INT, 1, 3, "layers" },
    { "ln", GNN_PARAM_INT, 0, 1, "1: LayerNorm in every hidden layer" },
    { "drop", GNN_PARAM_REAL, 0, 0.9, "dropout on every layer's input (keyed: the same mask in every evaluation)" },
    { "sparse", GNN_PARAM_INT, 0, 1, "1: the features stored as CSR (gcn projecting first and gat read them so)" },
    { "variant", GNN_PARAM_INT, 0, 1, "gat: 0 velickovic, 1 distgnn" },
    { "heads", GNN_PARAM_INT, 1, 4, "gat: heads of the hidden layers (the output layer: 2)" },
    { "adrop", GNN_PARAM_REAL, 0, 0.9, "gat: attention dropout" },
    { "bases", GNN_PARAM_INT, 0, 4, "rgcn: bases (0: a weight per relation)" },
    { "scale", GNN_PARAM_INT, 3, 8, "2^scale vertices" },
    { "inputs", GNN_PARAM_INT, 0, 1,
      "1: the input features are probed too (the gradient learnable input embeddings receive; dense input)" },
};

/* every model in both modes; LayerNorm, dropout and three layers; gat's two variants, heads and
 * attention dropout; rgcn with and without bases; sparse input for the models that read it (gcn
 * projecting first, gat) */
static const char *const k_t_presets[] = {
    "model=0,mode=0,layers=2,ln=0,drop=0,sparse=0,variant=0,heads=1,adrop=0,bases=0,scale=6",
    "model=0,mode=1,layers=3,ln=1,drop=0.5,sparse=0,variant=0,heads=1,adrop=0,bases=0,scale=6",
    "model=1,mode=1,layers=2,ln=0,drop=0,sparse=0,variant=0,heads=1,adrop=0,bases=0,scale=6",
    "model=1,mode=0,layers=2,ln=1,drop=0.3,sparse=1,variant=0,heads=1,adrop=0,bases=0,scale=6",
    "model=1,mode=1,layers=2,ln=0,drop=0,sparse=1,variant=0,heads=1,adrop=0,bases=0,scale=6",
    "model=2,mode=1,layers=2,ln=0,drop=0,sparse=0,variant=0,heads=2,adrop=0,bases=0,scale=5",
    "model=2,mode=0,layers=2,ln=1,drop=0.2,sparse=0,variant=1,heads=2,adrop=0.3,bases=0,scale=6",
    "model=2,mode=1,layers=2,ln=0,drop=0,sparse=1,variant=0,heads=3,adrop=0,bases=0,scale=5",
    "model=3,mode=0,layers=2,ln=0,drop=0,sparse=0,variant=0,heads=1,adrop=0,bases=0,scale=6",
    "model=3,mode=1,layers=2,ln=1,drop=0.5,sparse=0,variant=0,heads=1,adrop=0,bases=0,scale=6",
    "model=4,mode=1,layers=2,ln=0,drop=0,sparse=0,variant=0,heads=1,adrop=0,bases=0,scale=6",
    "model=4,mode=0,layers=2,ln=1,drop=0.3,sparse=0,variant=0,heads=1,adrop=0,bases=2,scale=6",
    /* the input rows' gradient (--embed-dim's embeddings receive it), through dropout */
    "model=0,mode=0,layers=2,ln=0,drop=0.3,sparse=0,variant=0,heads=1,adrop=0,bases=0,scale=6,inputs=1",
    "model=2,mode=1,layers=2,ln=0,drop=0.2,sparse=0,variant=0,heads=2,adrop=0.2,bases=0,scale=5,inputs=1",
    "model=4,mode=0,layers=2,ln=0,drop=0,sparse=0,variant=0,heads=1,adrop=0,bases=2,scale=5,inputs=1",
    NULL,
};

static gnn_oracle_outcome train_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int model = (int)gnn_oracle_int(c, T_MODEL);
    gnn_dataset *ds;
    gnn_oracle_outcome o = probe_dataset(ctx, c, (int)gnn_oracle_int(c, T_SCALE), model == GNN_MODEL_RGCN,
                                         (int)gnn_oracle_int(c, T_SPARSE), &ds);
    if (o != GNN_ORACLE_PASS)
        return o;
    gnn_train_config cfg;
    gnn_train_defaults(&cfg);
    cfg.model = (gnn_model_kind)model;
    cfg.mode = gnn_oracle_int(c, T_MODE) ? GNN_MODE_FULLBATCH : GNN_MODE_MINIBATCH;
    cfg.layers = (int)gnn_oracle_int(c, T_LAYERS);
    cfg.hidden = 4;
    cfg.batch = 16;
    for (int l = 0; l < GNN_MAX_LAYERS; l++)
        cfg.fanouts[l] = 3;
    cfg.layernorm = (int)gnn_oracle_int(c, T_LN);
    cfg.dropout = (float)gnn_oracle_real(c, T_DROP);
    cfg.gat_variant = (gnn_gat_variant)gnn_oracle_int(c, T_VARIANT);
    cfg.heads = (int)gnn_oracle_int(c, T_HEADS);
    cfg.out_heads = 2;
    cfg.attn_dropout = (float)gnn_oracle_real(c, T_ADROP);
    cfg.rgcn_bases = (int)gnn_oracle_int(c, T_BASES);
    cfg.seed = c->seed;
    cfg.impl = gnn_impl_ref();
    gnn_grad_probe r;
    if ((o = probe_new(ctx, 1 << 14, &r)) != GNN_ORACLE_PASS)
        return o;
    r.inputs = (int)gnn_oracle_int(c, T_INPUTS);
    gnn_err err = { "" };
    const gnn_status st = gnn_train_grad_probe(ds, &cfg, 5, &r, &err);
    if (st)
        return gnn_oracle_fail(ctx, "gnn_train_grad_probe: %s (%s)", gnn_status_str(st), err.msg);
    if (r.count > r.cap)
        return gnn_oracle_fail(ctx, "invalid case: %lld parameters (at most %lld)", (long long)r.count,
                               (long long)r.cap);
    gnn_oracle_note(ctx, "%s", gnn_model_name(cfg.model));
    return compare_probe(ctx, &r, cfg.layers, "the input features");
}

const gnn_oracle_entry gnn_oracle_grad_train = {
    .name = "grad.train",
    .what = "the single-rank trainer's step (core/train/train.c, every model, mini-batch and full batch, LayerNorm, dropout, "
            "gat's variants and attention dropout, rgcn's bases, CSR input): each parameter's gradient against the "
            "central difference of the step's own loss",
    .tol = { GNN_CMP_ALLCLOSE, 1e-4, 1e-2 },
    .reason = "f32 forward: the loss's rounding over the step (atol scaled by h / 2s at a smaller step), LayerNorm's "
              "curvature; differences kept only on smooth, resolved intervals; measured worst 0.77 of it (40 seeds)",
    .params = k_t_params, .n_params = N_T_PARAMS, .presets = k_t_presets, .defaults = "inputs=0",
    .ref = &k_ref, .impls = k_impls, .run = train_run,
};

/* ---- grad.fullbatch ----------------------------------------------------------------------------- */

enum { F_RANKS, F_MODEL, F_LAYERS, F_LN, F_DROP, F_LP, F_PLAN, F_SCALE, N_F_PARAMS };
static const gnn_oracle_param k_f_params[N_F_PARAMS] = {
    { "ranks", GNN_PARAM_INT, 1, 4, "simulated ranks (random part vector)" },
    { "model", GNN_PARAM_INT, 0, 3, "0 sage, 1 gcn, 3 gin (gnn_model_kind; gat is not trained on partitions)" },
    { "layers", GNN_PARAM_INT, 1, 3, "layers" },
    { "ln", GNN_PARAM_INT, 0, 1, "1: LayerNorm in every hidden layer" },
    { "drop", GNN_PARAM_REAL, 0, 0.9, "dropout" },
    { "lp", GNN_PARAM_REAL, 0, 0.9, "label propagation rate (0: off); E is then probed too" },
    { "plan", GNN_PARAM_INT, 0, 3, "communication plan: 0 pre, 1 post, 2 hybrid, 3 degree" },
    { "scale", GNN_PARAM_INT, 3, 8, "2^scale vertices" },
};

static const char *const k_f_presets[] = {
    "ranks=1,model=0,layers=2,ln=0,drop=0,lp=0,plan=2,scale=6",
    "ranks=2,model=0,layers=2,ln=0,drop=0,lp=0.5,plan=2,scale=6",
    "ranks=3,model=1,layers=2,ln=1,drop=0.3,lp=0.6,plan=0,scale=6",
    "ranks=2,model=3,layers=2,ln=0,drop=0,lp=0.4,plan=1,scale=6",
    "ranks=4,model=0,layers=3,ln=1,drop=0.5,lp=0.62,plan=3,scale=6",
    "ranks=1,model=1,layers=2,ln=0,drop=0,lp=0.5,plan=2,scale=5",
    "ranks=2,model=3,layers=2,ln=1,drop=0.2,lp=0,plan=2,scale=6",
    NULL,
};

typedef struct fb_job {
    gnn_fb_input in;
    gnn_train_config cfg;
    gnn_fb_config fc;
    gnn_grad_probe r[4];
} fb_job;

static gnn_status fb_rank(gnn_comm *c, void *arg)
{
    fb_job *J = arg;
    return gnn_fb_grad_probe(c, &J->in, &J->cfg, &J->fc, 3, &J->r[c->rank], &c->err);
}

static gnn_oracle_outcome fb_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const int64_t k = gnn_oracle_int(c, F_RANKS);
    const int model = (int)gnn_oracle_int(c, F_MODEL);
    if (model == GNN_MODEL_GAT)
        return gnn_oracle_fail(ctx, "invalid case: model=2 (gat) is not trained on partitions");
    gnn_dataset *ds;
    gnn_oracle_outcome o = probe_dataset(ctx, c, (int)gnn_oracle_int(c, F_SCALE), 0, 0, &ds);
    if (o != GNN_ORACLE_PASS)
        return o;
    fb_job *J = gnn_oracle_alloc(ctx, sizeof *J);
    int32_t *part = gnn_oracle_alloc(ctx, sizeof(int32_t) * (size_t)(ds->graph.n + 1));
    if (!J || !part)
        return gnn_oracle_fail(ctx, "out of memory");
    gnn_err err = { "" };
    if (gnn_oracle_case_parts(&ds->graph, 0, k, c->seed, part, &err))
        return gnn_oracle_fail(ctx, "part vector: %s", err.msg);
    for (int64_t r = 0; r < k; r++)
        if ((o = probe_new(ctx, 1 << 12, &J->r[r])) != GNN_ORACLE_PASS)
            return o;
    J->in = (gnn_fb_input){ .ds = ds, .part = part };
    gnn_train_defaults(&J->cfg);
    J->cfg.model = (gnn_model_kind)model;
    J->cfg.mode = GNN_MODE_FULLBATCH;
    J->cfg.layers = (int)gnn_oracle_int(c, F_LAYERS);
    J->cfg.hidden = 4;
    J->cfg.layernorm = (int)gnn_oracle_int(c, F_LN);
    J->cfg.dropout = (float)gnn_oracle_real(c, F_DROP);
    J->cfg.seed = c->seed;
    J->cfg.impl = gnn_impl_ref();
    gnn_fb_defaults(&J->fc);
    J->fc.bits = 32;
    J->fc.lp_rate = (float)gnn_oracle_real(c, F_LP);
    J->fc.plan = (gnn_plan_kind)gnn_oracle_int(c, F_PLAN);
    gnn_sim_config sc;
    gnn_sim_defaults(&sc);
    sc.ranks = (int)k;
    sc.timeout_s = 60;
    const gnn_status st = gnn_sim_run(&sc, fb_rank, J, NULL, &err);
    if (st)
        return gnn_oracle_fail(ctx, "simulated run on %lld ranks: %s (%s)", (long long)k, gnn_status_str(st), err.msg);
    const gnn_grad_probe *r0 = &J->r[0];
    if (r0->count > r0->cap)
        return gnn_oracle_fail(ctx, "invalid case: %lld parameters (at most %lld)", (long long)r0->count,
                               (long long)r0->cap);
    const size_t bytes = sizeof(double) * (size_t)r0->count;
    for (int64_t r = 1; r < k; r++) /* every rank holds the sums */
        if (J->r[r].count != r0->count || memcmp(J->r[r].grad, r0->grad, bytes) || memcmp(J->r[r].fd, r0->fd, bytes))
            return gnn_oracle_fail(ctx, "rank %lld's probe differs from rank 0's", (long long)r);
    gnn_oracle_note(ctx, "%s on %lld ranks, %lld of the parameters E", gnn_model_name(J->cfg.model), (long long)k,
                    (long long)r0->parts[J->cfg.layers]);
    return compare_probe(ctx, r0, J->cfg.layers, "label embeddings E");
}

const gnn_oracle_entry gnn_oracle_grad_fullbatch = {
    .name = "grad.fullbatch",
    .what = "SuperGCN's full batch on simulated ranks (core/train/train_fullbatch.c: the distributed aggregation's exchanges, "
            "LayerNorm, dropout, label propagation): each parameter's gradient, the label embeddings' included, summed "
            "over the ranks, against the central difference of the step's own loss",
    .tol = { GNN_CMP_ALLCLOSE, 1e-4, 1e-2 },
    .reason = "f32 forward: the loss's rounding over the step (atol scaled by h / 2s at a smaller step), LayerNorm's "
              "curvature; differences kept only on smooth, resolved intervals; measured worst 0.55 of it (40 seeds)",
    .params = k_f_params, .n_params = N_F_PARAMS, .presets = k_f_presets,
    .ref = &k_ref, .impls = k_impls, .run = fb_run,
};
