/* cli/cmd_train.c -- `gnnref train`: GraphSAGE, GCN, GAT, GIN or RGCN, mini-batch or full-batch
 * (docs/models.md), on one rank or data-parallel on P ranks of the simulator or MPI
 * (docs/comm.md), or on partitions (--partitions DIR or --remote MODE: every rank trains on
 * its own part, include/gnnref/train_part.h, docs/hec.md), or full batch on partitions
 * (--mode fullbatch with --partitions DIR or --parts K: SuperGCN, include/gnnref/
 * train_fullbatch.h, docs/fullbatch.md): rank 0 prints and writes the report.
 * This file: the flags (one table, cli/flags.h), the rules between them, loading the dataset
 * and launching the ranks (cli/train_run.c) on the backend; cli/train_report.c reports. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/parts.h"
#include "cli/train.h"
#include "gnnref/impl.h"
#include "gnnref/kvstore.h"
#include "gnnref/reorder.h"

static const cli_choice k_models[] = {
    { "sage", GNN_MODEL_SAGE, 0 }, { "gcn", GNN_MODEL_GCN, 0 }, { "gat", GNN_MODEL_GAT, 0 },
    { "gin", GNN_MODEL_GIN, 0 }, { "rgcn", GNN_MODEL_RGCN, 0 }, { NULL, 0, 0 }
};
static const cli_choice k_modes[] = {
    { "minibatch", GNN_MODE_MINIBATCH, 0 }, { "fullbatch", GNN_MODE_FULLBATCH, 0 }, { NULL, 0, 0 }
};
static const cli_choice k_wd_scopes[] = { { "all", GNN_WD_ALL, 0 }, { "first", GNN_WD_FIRST, 0 }, { NULL, 0, 0 } };
static const cli_choice k_feat_norms[] = {
    { "none", GNN_FEAT_NORM_NONE, 0 }, { "row", GNN_FEAT_NORM_ROW, 0 }, { NULL, 0, 0 }
};
static const cli_choice k_gat_variants[] = {
    { "velickovic", GNN_GAT_VELICKOVIC, 0 }, { "distgnn", GNN_GAT_DISTGNN, 0 }, { NULL, 0, 0 }
};
static const cli_choice k_stop_rules[] = { { "acc", GNN_STOP_ACC, 0 }, { "gat", GNN_STOP_GAT, 0 }, { NULL, 0, 0 } };
static const cli_choice k_on_off[] = { { "on", 1, 0 }, { "off", 0, 0 }, { NULL, 0, 0 } };
static const cli_choice k_samplings[] = {
    { "local", GNN_SAMPLING_LOCAL, 0 }, { "distributed", GNN_SAMPLING_DISTRIBUTED, 0 }, { NULL, 0, 0 }
};
static const cli_choice k_sparse_opts[] = {
    { "adagrad", GNN_SPARSE_ADAGRAD, 0 }, { "adam", GNN_SPARSE_ADAM, 0 }, { NULL, 0, 0 }
};
static const cli_choice k_match_norms[] = {
    { "min", GNN_MATCH_MIN, 0 }, { "later", GNN_MATCH_LATER, 0 }, { "count", GNN_MATCH_COUNT, 0 }, { NULL, 0, 0 }
};
static const cli_choice k_plans[] = {
    { "pre", GNN_PLAN_PRE, 0 }, { "post", GNN_PLAN_POST, 0 }, { "hybrid", GNN_PLAN_HYBRID, 0 },
    { "degree", GNN_PLAN_DEGREE, 0 }, { NULL, 0, 0 }
};
static const cli_choice k_comm_bits[] = { { "32", 32, 0 }, { "8", 8, 0 }, { "4", 4, 0 }, { "2", 2, 0 }, { NULL, 0, 0 } };
static const cli_choice k_rounds[] = {
    { "stochastic", GNN_QUANT_STOCHASTIC, 0 }, { "nearest", GNN_QUANT_NEAREST, 0 }, { NULL, 0, 0 }
};
static const cli_choice k_lp_resample[] = { { "epoch", 0, 0 }, { "once", 1, 0 }, { NULL, 0, 0 } };
static const cli_choice k_remotes[] = {
    { "drop", GNN_REMOTE_DROP, 0 }, { "hec", GNN_REMOTE_HEC, 0 }, { "fetch", GNN_REMOTE_FETCH, 0 }, { NULL, 0, 0 }
};

#define T train_opts
static const cli_flag k_train_flags[] = {
    CLI_FLAG_DATA(T, data, 0, CLI_DATA_HELP),
    { .name = "model", .type = CLI_CHOICE, CLI_AT(T, cfg.model), .choices = k_models,
      .help = "sage (GraphSAGE mean, DistGNN-MB Eq. 1), gcn (Kipf & Welling), gat (Velickovic et al.), gin "
              "(GIN-0, Xu et al.), rgcn (Schlichtkrull et al., on edge types, e.g. --data builtin-typed; mini-batches sample "
              "--fanouts per edge type; docs/hetero.md); docs/models.md" },
    { .name = "mode", .type = CLI_CHOICE, CLI_AT(T, cfg.mode), .choices = k_modes,
      .help = "sampled mini-batches, or one step per epoch over the whole graph (loss over the train vertices)" },
    { .name = "layers", .type = CLI_INT, CLI_AT(T, cfg.layers), .meta = "L", .lo = 1, .hi = GNN_MAX_LAYERS,
      .help = "number of layers" },
    { .name = "hidden", .type = CLI_INT, CLI_AT(T, cfg.hidden), .meta = "H", .lo = 1, .hi = 1 << 16,
      .help = "hidden width; gat: features per head" },
    { .name = "fanouts", .type = CLI_INTS, CLI_AT(T, cfg.fanouts), .meta = "K1,K2,...", .lo = -1, .hi = INT32_MAX,
      .max = GNN_MAX_LAYERS, .count_off = offsetof(T, n_fanouts), .note = "-1 = all", .dflt = "10 each",
      .bits = TRAIN_TAG_MINIBATCH, .help = "minibatch: neighbors sampled per layer (rgcn: per edge type), input layer first, one per layer" },
    { .name = "batch", .type = CLI_INT, CLI_AT(T, cfg.batch), .meta = "B", .lo = 1, .hi = INT32_MAX,
      .bits = TRAIN_TAG_MINIBATCH, .help = "minibatch: seeds per mini-batch" },
    { .name = "epochs", .type = CLI_INT, CLI_AT(T, cfg.epochs), .meta = "E", .lo = 1, .hi = 1000000,
      .help = "epochs; at most E with --patience" }, /* 0 would report accuracies never measured */
    { .name = "patience", .type = CLI_INT, CLI_AT(T, cfg.patience), .meta = "N", .lo = 0, .hi = 1000000,
      .note = "0 = off", .help = "early stopping: stop after N evaluated epochs without a better one (--stop-rule)" },
    { .name = "stop-rule", .type = CLI_CHOICE, CLI_AT(T, cfg.stop_rule), .choices = k_stop_rules,
      .dflt = "gat for --model gat (GAT's paper setup), acc otherwise",
      .help = "what restarts --patience and which model is kept and reported as final.test_acc_restored: acc (a "
              "higher val accuracy, or the same with a lower val loss; the best epoch) or gat (Velickovic et al.'s "
              "code: a val accuracy >= its maximum or a val loss <= its minimum restarts; the model is kept when "
              "both are); docs/models.md section 4" },
    { .name = "lr", .type = CLI_REAL, CLI_AT(T, cfg.lr), .meta = "X", .rlo = 0, .rhi = 10, .bits = CLI_LO_OPEN,
      .help = "Adam learning rate" },
    { .name = "dropout", .type = CLI_REAL, CLI_AT(T, cfg.dropout), .meta = "P", .rlo = 0, .rhi = 1,
      .bits = CLI_HI_OPEN, .help = "dropout probability on every layer's input" },
    { .name = "weight-decay", .type = CLI_REAL, CLI_AT(T, cfg.weight_decay), .meta = "W", .rlo = 0, .rhi = 1,
      .help = "L2 weight decay in Adam (the default as Kipf & Welling)" },
    { .name = "weight-decay-layers", .type = CLI_CHOICE, CLI_AT(T, cfg.wd_scope), .choices = k_wd_scopes,
      .dflt = "first for gcn, as Kipf & Welling; all otherwise", .help = "layers whose weights decay" },
    { .name = "normalize-features", .type = CLI_CHOICE, CLI_AT(T, cfg.feat_norm), .choices = k_feat_norms,
      .dflt = "row for gcn and gat, as Kipf & Welling and Velickovic et al.; none for sage and gin",
      .help = "divide each feature row by its sum" },
    { .name = "layernorm", .type = CLI_BOOL, CLI_AT(T, cfg.layernorm),
      .help = "LayerNorm before the activation of every hidden layer" },
    { .name = "rgcn-bases", .type = CLI_INT, CLI_AT(T, cfg.rgcn_bases), .meta = "B", .lo = 0, .hi = 64,
      .note = "0 = a weight per relation", .bits = TRAIN_TAG_RGCN,
      .help = "rgcn: bases of the relation weights' decomposition, W_r = sum_b a_rb V_b" },
    { .name = "heads", .type = CLI_INT, CLI_AT(T, cfg.heads), .meta = "H", .lo = 1, .hi = GNN_MAX_HEADS,
      .bits = TRAIN_TAG_GAT, .help = "gat: attention heads of hidden layers, concatenated" },
    { .name = "out-heads", .type = CLI_INT, CLI_AT(T, cfg.out_heads), .meta = "H", .lo = 1, .hi = GNN_MAX_HEADS,
      .bits = TRAIN_TAG_GAT, .help = "gat: heads of the output layer, averaged" },
    { .name = "gat-variant", .type = CLI_CHOICE, CLI_AT(T, cfg.gat_variant), .choices = k_gat_variants,
      .bits = TRAIN_TAG_GAT, .help = "gat: velickovic (z = hW, bias after attention) or distgnn (z = ReLU(hW + b) "
                                     "before attention, DistGNN-MB Eq. 2)" },
    { .name = "attn-dropout", .type = CLI_REAL, CLI_AT(T, cfg.attn_dropout), .meta = "P", .rlo = 0, .rhi = 1,
      .bits = TRAIN_TAG_GAT | CLI_HI_OPEN, .dflt = "--dropout", .help = "gat: dropout on attention coefficients" },
    CLI_FLAG_SEED(T, cfg.seed, "seed of every random choice"),
    CLI_FLAG_SPLIT(T, split, CLI_NULL_UNSET, cli_flag_parse_split_train, CLI_SPLIT_HELP),
    CLI_FLAG_IMPL(T, cfg.impl, "the implementation context: ref (the reference), opt (optimized kernels, "
                               "sampler, HEC and partitioning; bitwise ref's results), fma (the default: opt with "
                               "the dense layers as fixed-order FMA chains, within the oracle's tolerance of ref and "
                               "the same bits on every x86-64 CPU, thread and rank count) or blas (opt with the "
                               "dense layers on OpenBLAS, whose bits depend on the CPU; docs/models.md section 7)"),
    CLI_FLAG_THREADS(T, threads, "OpenMP threads (under the simulator: --threads-per-rank)"),
    { .name = "adapt-threads", .type = CLI_CHOICE, CLI_AT(T, cfg.adapt_threads), .choices = k_on_off,
      .help = "one rank: run a step on fewer threads when that is measured to be faster, as when another "
              "process holds a core (a few steps try another team size; the results are the same bits; "
              "the report's team_mean says what ran; docs/openmp.md)" },
    { .name = "eval-every", .type = CLI_INT, CLI_AT(T, cfg.eval_every), .meta = "K", .lo = 0, .hi = 1000000,
      .note = "0 = the last epoch only", .help = "full-graph evaluation every K epochs" },
    CLI_FLAG_JSON(T, json, CLI_JSON_HELP),
    { .name = "quiet", .type = CLI_BOOL, CLI_AT(T, quiet), .help = "no per-epoch lines" },
    { .name = "checkpoint", .type = CLI_STR, CLI_AT(T, cfg.checkpoint_dir), .meta = "DIR",
      .help = "write a checkpoint into DIR (one file per rank, DIR/rank-RRRRR.ckpt, atomically, with CRC32C) at the "
              "end of every --checkpoint-every epochs and of the last; docs/checkpoint.md" },
    { .name = "checkpoint-every", .type = CLI_INT, CLI_AT(T, cfg.checkpoint_every), .meta = "N", .lo = 1,
      .hi = 1000000, .help = "with --checkpoint: epochs between checkpoints" },
    { .name = "resume", .type = CLI_STR, CLI_AT(T, cfg.resume_dir), .meta = "DIR",
      .help = "resume from the checkpoint in DIR: the same flags, dataset, partitions and rank count as the run that "
              "wrote it (refused otherwise); the remaining step losses and the final weights are bitwise the run "
              "never stopped" },
    CLI_END
};

static const cli_flag k_part_flags[] = {
    { .name = "partitions", .type = CLI_STR, CLI_AT(T, parts_dir), .meta = "DIR",
      .help = "a saved partition set (gnnref partition --data DATA --parts P -o DIR) with P = ranks parts; each "
              "rank loads its own part; the set carries its split (no --split); --data is then only needed by "
              "--remote fetch and --mode fullbatch, and is checked to be the set's dataset when given" },
    { .name = "remote", .type = CLI_CHOICE, CLI_AT(T, pc.remote), .choices = k_remotes, .bits = TRAIN_TAG_PARTS,
      .help = "how a rank sees the vertices it does not own: drop them (no communication), the Historical "
              "Embedding Cache filled by the owners' asynchronous pushes (hec, the default with --partitions), or "
              "pull their features every step from the whole topology (fetch, the exact baseline); without "
              "--partitions, --data is partitioned in memory with K = ranks" },
    { .name = "sampling", .type = CLI_CHOICE, CLI_AT(T, pc.sampling), .choices = k_samplings, .bits = TRAIN_TAG_PARTS,
      .help = "where the blocks are sampled: local (the part's graph, or fetch's whole topology) or distributed "
              "(DistDGLv2: each hop's vertices sampled by their owners, the blocks bitwise one machine's; the "
              "features pulled as fetch does, which it implies; no --data needed with --partitions; docs/dist_sampling.md)" },
    { .name = "pipeline", .type = CLI_INT, CLI_AT(T, pc.pipeline_cap), .meta = "N", .lo = 0, .hi = 4096,
      .note = "0 = serial; DistDGLv2: 25", .bits = TRAIN_TAG_PARTS,
      .help = "asynchronous mini-batch pipeline: a worker thread schedules and samples up to N mini-batches ahead "
              "of the trainer (the step losses do not change; not with --sampling distributed; docs/pipeline.md)" },
    { .name = "pipeline-copy", .type = CLI_INT, CLI_AT(T, pc.pipeline_copy_cap), .meta = "N", .lo = 1, .hi = 4096,
      .note = "DistDGLv2: 5", .bits = TRAIN_TAG_PARTS,
      .help = "--pipeline: of the mini-batches ahead, up to N with their layer-0 input rows already copied (drop, "
              "hec; at most --pipeline)" },
    { .name = "embed-dim", .type = CLI_INT, CLI_AT(T, pc.embed_dim), .meta = "D", .lo = 0, .hi = 1 << 16,
      .note = "0 = the features", .bits = TRAIN_TAG_PARTS,
      .help = "learnable input embeddings of width D instead of the features (featureless vertices): sharded like "
              "the vertices in the feature store, pulled per mini-batch, their gradients pushed to the owners "
              "(DistDGLv2; implies --remote fetch; docs/embedding.md)" },
    { .name = "embed-optimizer", .type = CLI_CHOICE, CLI_AT(T, pc.embed_opt), .choices = k_sparse_opts,
      .bits = TRAIN_TAG_PARTS, .help = "the embeddings' sparse optimizer (DGL's SparseAdagrad or SparseAdam)" },
    { .name = "embed-lr", .type = CLI_REAL, CLI_AT(T, pc.embed_lr), .meta = "X", .rlo = 0, .rhi = 100,
      .bits = TRAIN_TAG_PARTS | CLI_LO_OPEN, .help = "the embeddings' learning rate" },
    { .name = "match", .type = CLI_BOOL, CLI_AT(T, pc.match), .bits = TRAIN_TAG_PARTS,
      .help = "FastGL's Match (--remote fetch): each rank pulls only the input rows its previous mini-batch did not "
              "have and reuses the others; the step losses are bitwise the same, the pull bytes fewer "
              "(docs/reorder.md)" },
    { .name = "reorder-window", .type = CLI_INT, CLI_AT(T, pc.reorder_window), .meta = "N", .lo = 0, .hi = INT32_MAX,
      .note = "0 = the epoch", .dflt = "off", .bits = TRAIN_TAG_PARTS,
      .help = "--match: run each window of N steps in FastGL's greedy order of the match degrees (the overlap "
              "counts summed over the ranks); a batch keeps its original step's sampling and dropout, so the "
              "losses change but stay deterministic; not with --pipeline" },
    { .name = "match-norm", .type = CLI_CHOICE, CLI_AT(T, pc.match_norm), .choices = k_match_norms,
      .bits = TRAIN_TAG_PARTS, .help = "--reorder-window: the match degree: min (the paper's), later (the public "
                                       "code's) or count (the raw overlap)" },
    { .name = "part-method", .type = CLI_CHOICE, CLI_AT(T, po.method), .choices = cli_part_methods,
      .bits = TRAIN_TAG_MEMORY, .help = "in memory: the part vector (random: seed --seed)" },
    { .name = "part-balance", .type = CLI_CUSTOM, CLI_AT(T, po.balance), .meta = "LIST",
      .parse = cli_flag_parse_balance, .json = cli_flag_json_balance, .bits = TRAIN_TAG_MEMORY,
      .help = "in memory: METIS balance constraints (train, val, test, degree)" },
    { .name = "hec-cs", .type = CLI_INT, CLI_AT(T, pc.hec_cs), .meta = "N", .lo = 0, .hi = INT32_MAX,
      .note = "0 = auto", .bits = TRAIN_TAG_HEC,
      .help = "hec: cache lines per layer; auto: min(halos, (ls+1)(P-1) nc)" },
    { .name = "hec-ls", .type = CLI_INT, CLI_AT(T, pc.hec_ls), .meta = "N", .lo = 0, .hi = 1000000,
      .bits = TRAIN_TAG_HEC, .help = "hec: lifespan in steps" },
    { .name = "hec-nc", .type = CLI_INT, CLI_AT(T, pc.hec_nc), .meta = "N", .lo = 0, .hi = INT32_MAX,
      .note = "0 = auto", .bits = TRAIN_TAG_HEC,
      .help = "hec: pushes per remote rank, layer and step; auto: max over ranks r of ceil(own vertices that are "
              "halos on r / W), W = min(ls+1, steps per epoch)" },
    { .name = "hec-delay", .type = CLI_INT, CLI_AT(T, pc.hec_delay), .meta = "D", .lo = 1, .hi = GNN_HEC_MAX_DELAY,
      .bits = TRAIN_TAG_HEC, .help = "hec: pushes arrive D steps later" },
    CLI_END
};

static const cli_flag k_fb_flags[] = {
    { .name = "parts", .type = CLI_INT, CLI_AT(T, fb_parts), .meta = "K", .lo = 1, .hi = 1 << 20,
      .bits = TRAIN_TAG_FB | CLI_NULL_UNSET,
      .help = "partition --data in memory into K = ranks parts (--part-method, --part-balance) and train on them" },
    { .name = "plan", .type = CLI_CHOICE, CLI_AT(T, fc.plan), .choices = k_plans, .bits = TRAIN_TAG_FB,
      .help = "which rows cross ranks (docs/commplan.md): pre (partial sums), post (raw source rows), hybrid (a "
              "minimum vertex cover per rank pair: the fewest rows) or degree (SuperGCN's older heuristic)" },
    { .name = "comm-bits", .type = CLI_CHOICE, CLI_AT(T, fc.bits), .choices = k_comm_bits, .bits = TRAIN_TAG_FB,
      .help = "bits per value of the training exchanges' rows (docs/quant.md); evaluation exchanges fp32" },
    { .name = "round", .type = CLI_CHOICE, CLI_AT(T, fc.round), .choices = k_rounds, .bits = TRAIN_TAG_FB,
      .help = "int2/4/8 rounding: stochastic (the paper, unbiased) or nearest (the public SuperGCN code)" },
    { .name = "quant-backward", .type = CLI_CHOICE, CLI_AT(T, fc.quant_backward), .choices = k_on_off,
      .bits = TRAIN_TAG_FB, .help = "quantize the backward's gradient rows too (off: they travel as fp32)" },
    { .name = "lp-rate", .type = CLI_REAL, CLI_AT(T, fc.lp_rate), .meta = "R", .rlo = 0, .rhi = 1,
      .bits = TRAIN_TAG_FB | CLI_HI_OPEN, .note = "0 = off; SuperGCN: 0.62",
      .help = "label propagation: this share of the training vertices adds a learned embedding of its label to its "
              "input, the rest are supervised; evaluation propagates every training label" },
    { .name = "lp-resample", .type = CLI_CHOICE, CLI_AT(T, fc.lp_once), .choices = k_lp_resample,
      .bits = TRAIN_TAG_FB, .help = "draw the label propagation mask every epoch (SuperGCN's code) or once "
                                    "(the paper's text)" },
    CLI_END
};
#undef T

static const cli_group k_groups[] = {
    { k_train_flags, 0, NULL },
    { k_part_flags, 0,
      "training on partitions (DistGNN-MB: every rank trains on its own part, draws its seeds from its own\n"
      "train vertices, and the gradients are allreduced; docs/hec.md; minibatch; sage, gat, gin):" },
    { k_fb_flags, 0,
      "full batch on partitions (SuperGCN: --mode fullbatch with --partitions DIR or --parts K; every rank owns\n"
      "its part's vertices, every layer aggregates over the whole graph through the plan's exchange;\n"
      "docs/fullbatch.md; sage, gcn, gin):" },
    { cli_backend_flags, offsetof(train_opts, backend),
      "communicator (docs/comm.md, docs/simulator.md); without --partitions or --remote, data parallelism:\n"
      "every rank holds the graph, takes a slice of each mini-batch, and the gradients are allreduced:" },
    { NULL, 0, NULL }
};

static const cli_command k_cmd = {
    .name = "train",
    .usage = "[flags]",
    .preface = "Train a GNN on one rank, data-parallel on P ranks of the simulator or MPI, or on partitions.\n",
    .groups = k_groups,
};

const cli_command *cli_train_command(void) { return &k_cmd; }

/* Every flag of the tables above (and the backend's) that a resume may change, or that does not
 * combine with checkpoints; any other flag must enter the checkpoint's fingerprint
 * (core/io/checkpoint.c gnn_ckpt_config_crc, the data CRC of split, labels and part, the header's
 * dataset and rank count). A new flag is fingerprinted unless it is listed here with its reason. */
#define FB_ONLY "full batch on partitions takes no checkpoint yet: --checkpoint and --resume are refused with it"
#define FAULTS "the simulator's faults: a blocking message's fault is keyed by the messages before it in the run, " \
               "so a resumed run would not meet the faults of the run never stopped"
const cli_resume_rule cli_train_resume_rules[] = {
    { "threads", CLI_RESUME_FREE, "results are the same bits at any thread count (DESIGN.md section 2)" },
    { "adapt-threads", CLI_RESUME_FREE, "the team size changes no bit (docs/openmp.md)" },
    { "json", CLI_RESUME_FREE, "where the report goes" },
    { "quiet", CLI_RESUME_FREE, "what is printed" },
    { "checkpoint", CLI_RESUME_FREE, "where the next checkpoints go" },
    { "checkpoint-every", CLI_RESUME_FREE, "when checkpoints are written, not what the steps compute" },
    { "resume", CLI_RESUME_FREE, "the checkpoint read" },
    { "pipeline", CLI_RESUME_FREE, "the pipeline changes no step loss (docs/pipeline.md)" },
    { "pipeline-copy", CLI_RESUME_FREE, "the pipeline changes no step loss (docs/pipeline.md)" },
    { "backend", CLI_RESUME_FREE, "the simulator and MPI give the same bits (DESIGN.md section 4, "
                                  "ci/resume-check.sh); the rank count is checked on its own" },
    { "alpha", CLI_RESUME_FREE, "the simulator's time model: reported times only" },
    { "bandwidth", CLI_RESUME_FREE, "the simulator's time model: reported times only" },
    { "sim-timeout", CLI_RESUME_FREE, "a bound on every wait: no result depends on it" },
    { "threads-per-rank", CLI_RESUME_FREE, "results are the same bits at any thread count" },
    { "parts", CLI_RESUME_REFUSED, FB_ONLY },
    { "plan", CLI_RESUME_REFUSED, FB_ONLY },
    { "comm-bits", CLI_RESUME_REFUSED, FB_ONLY },
    { "round", CLI_RESUME_REFUSED, FB_ONLY },
    { "quant-backward", CLI_RESUME_REFUSED, FB_ONLY },
    { "lp-rate", CLI_RESUME_REFUSED, FB_ONLY },
    { "lp-resample", CLI_RESUME_REFUSED, FB_ONLY },
    { "fault-seed", CLI_RESUME_REFUSED, FAULTS },
    { "fault-drop", CLI_RESUME_REFUSED, FAULTS },
    { "fault-delay", CLI_RESUME_REFUSED, FAULTS },
    { "fault-delay-p", CLI_RESUME_REFUSED, FAULTS },
    { "fault-flip", CLI_RESUME_REFUSED, FAULTS },
    { "fault-drop-blocking", CLI_RESUME_REFUSED, FAULTS },
    { NULL, 0, NULL }
};
#undef FB_ONLY
#undef FAULTS

static void train_defaults(train_opts *o)
{
    memset(o, 0, sizeof *o);
    gnn_train_defaults(&o->cfg);
    o->cfg.adapt_threads = 1; /* the library's default is off: it never changes its caller's team unasked */
    o->cfg.impl = gnn_impl_fma(); /* the CLI's default: GEMM speed, and the same bits on every CPU */
    o->data = "builtin";
    gnn_part_defaults(&o->po);
    o->po.balance = GNN_BALANCE_TRAIN | GNN_BALANCE_DEGREE;
    gnn_part_train_defaults(&o->pc);
    gnn_fb_defaults(&o->fc);
    cli_backend_defaults(&o->backend);
}

/* The model's flags: gat's with gat only, the mini-batch flags not with fullbatch, one fanout
 * per layer. CLI_CONTINUE or the exit code. */
static int check_model_flags(train_opts *o, const cli_args *a)
{
    gnn_train_config *c = &o->cfg;
    const char *flag = cli_given_tag(a, TRAIN_TAG_GAT);
    if (flag && c->model != GNN_MODEL_GAT)
        return cli_error(CLI_USAGE, "%s applies to --model gat only (model is %s)", flag, gnn_model_name(c->model));
    flag = cli_given_tag(a, TRAIN_TAG_RGCN);
    if (flag && c->model != GNN_MODEL_RGCN)
        return cli_error(CLI_USAGE, "%s applies to --model rgcn only (model is %s)", flag, gnn_model_name(c->model));
    flag = cli_given_tag(a, TRAIN_TAG_MINIBATCH);
    if (flag && c->mode == GNN_MODE_FULLBATCH)
        return cli_error(CLI_USAGE, "--mode fullbatch uses every neighbor of every vertex: %s does not apply", flag);
    if (!cli_given(a, "fanouts")) {
        o->n_fanouts = c->layers; /* the default, 10 each, for every layer */
    } else if (o->n_fanouts != c->layers) {
        char given[256];
        size_t len = 0;
        for (int l = 0; l < o->n_fanouts && len < sizeof given; l++)
            len += (size_t)snprintf(given + len, sizeof given - len, "%s%lld", l ? "," : "", (long long)c->fanouts[l]);
        return cli_error(CLI_USAGE, "--fanouts '%s' has %d values but --layers is %d", given, o->n_fanouts, c->layers);
    }
    return CLI_CONTINUE;
}

/* Training on partitions: --partitions DIR, --remote MODE, or both (mini-batch, DistGNN-MB);
 * or --mode fullbatch with --partitions DIR or --parts K (SuperGCN). The flags of partitioning
 * in memory, of the HEC and of full batch apply only where they act. */
static int check_part_flags(const train_opts *o, const cli_args *a)
{
    const int full = o->cfg.mode == GNN_MODE_FULLBATCH;
    const int fb = full && (o->parts_dir || cli_given(a, "parts"));
    const int on_parts =
        !fb && (o->parts_dir || cli_given(a, "remote") || cli_given(a, "sampling") || cli_given(a, "embed-dim"));
    const char *mem_flag = cli_given_tag(a, TRAIN_TAG_MEMORY), *hec_flag = cli_given_tag(a, TRAIN_TAG_HEC);
    const char *fb_flag = cli_given_tag(a, TRAIN_TAG_FB);
    if (fb_flag && !fb)
        return cli_error(CLI_USAGE, "%s applies to full batch on partitions: --mode fullbatch with --partitions DIR "
                                    "or --parts K",
                         fb_flag);
    if (full && (cli_given(a, "remote") || cli_given(a, "sampling")))
        return cli_error(CLI_USAGE, "%s does not apply to --mode fullbatch: full batch on partitions "
                                    "(--partitions DIR or --parts K) exchanges every boundary row each layer",
                         cli_given(a, "remote") ? "--remote" : "--sampling");
    if (o->parts_dir && cli_given(a, "parts"))
        return cli_error(CLI_USAGE, "--parts K partitions in memory; --partitions DIR reads a saved set: give one");
    if (o->parts_dir && cli_given(a, "split"))
        return cli_error(CLI_USAGE, "--split does not apply to --partitions: the set carries its own split "
                                    "(give --split to gnnref partition when making it)");
    if (mem_flag && o->parts_dir)
        return cli_error(CLI_USAGE, "%s does not apply to --partitions: the set was partitioned when it was made",
                         mem_flag);
    if (mem_flag && !on_parts && !fb)
        return cli_error(CLI_USAGE, "%s applies to partitioning in memory (--remote drop|hec|fetch, or --mode "
                                    "fullbatch --parts K)",
                         mem_flag);
    if (o->pc.sampling == GNN_SAMPLING_DISTRIBUTED && cli_given(a, "remote") && o->pc.remote != GNN_REMOTE_FETCH)
        return cli_error(CLI_USAGE, "--sampling distributed pulls the sampled vertices' features as --remote fetch "
                                    "does (remote is %s)",
                         gnn_remote_name(o->pc.remote));
    if (o->pc.embed_dim > 0 && cli_given(a, "remote") && o->pc.remote != GNN_REMOTE_FETCH)
        return cli_error(CLI_USAGE, "--embed-dim pulls and pushes the embeddings through the feature store, as "
                                    "--remote fetch does (remote is %s)",
                         gnn_remote_name(o->pc.remote));
    if ((cli_given(a, "reorder-window") || cli_given(a, "match-norm")) && !o->pc.match)
        return cli_error(CLI_USAGE, "%s applies to --match", cli_given(a, "match-norm") ? "--match-norm"
                                                                                       : "--reorder-window");
    if (cli_given(a, "match-norm") && !cli_given(a, "reorder-window"))
        return cli_error(CLI_USAGE, "--match-norm applies to --reorder-window N (Match alone keeps the order)");
    if (o->pc.match && (!on_parts || (cli_given(a, "remote") && o->pc.remote != GNN_REMOTE_FETCH) ||
                        (!cli_given(a, "remote") && o->pc.sampling != GNN_SAMPLING_DISTRIBUTED)))
        return cli_error(CLI_USAGE, "--match reuses pulled feature rows: it applies to --remote fetch");
    if (o->pc.match && o->pc.embed_dim > 0)
        return cli_error(CLI_USAGE, "--match does not apply to --embed-dim: the embeddings change every step");
    if (cli_given(a, "reorder-window") && o->pc.pipeline_cap > 0)
        return cli_error(CLI_USAGE, "--reorder-window samples its window ahead on the trainer's thread: not with "
                                    "--pipeline (--match alone works with it)");
    if (cli_given(a, "pipeline-copy") && o->pc.pipeline_cap == 0)
        return cli_error(CLI_USAGE, "--pipeline-copy applies to --pipeline N");
    if ((cli_given(a, "embed-optimizer") || cli_given(a, "embed-lr")) && o->pc.embed_dim == 0)
        return cli_error(CLI_USAGE, "%s applies to --embed-dim D", cli_given(a, "embed-lr") ? "--embed-lr"
                                                                                              : "--embed-optimizer");
    if (hec_flag && (!on_parts || o->pc.remote != GNN_REMOTE_HEC))
        return cli_error(CLI_USAGE, "%s applies to --remote hec only (%s%s)", hec_flag,
                         on_parts ? "remote is " : "no --remote or --partitions given",
                         on_parts ? gnn_remote_name(o->pc.remote) : "");
    if (fb && (o->cfg.checkpoint_dir || o->cfg.resume_dir))
        return cli_error(CLI_USAGE, "%s: full batch on partitions (--mode fullbatch with --partitions or --parts) "
                                    "has no checkpoints yet (docs/checkpoint.md)",
                         o->cfg.checkpoint_dir ? "--checkpoint" : "--resume");
    /* cli_train_resume_rules: the simulator's faults do not combine with checkpoints */
    static const char *const k_faults[] = { "fault-seed", "fault-drop", "fault-delay", "fault-delay-p",
                                            "fault-flip", "fault-drop-blocking", NULL };
    const char *fault = NULL;
    for (const char *const *f = k_faults; *f && !fault; f++)
        fault = cli_given(a, *f) ? *f : NULL;
    if (fault && (o->cfg.checkpoint_dir || o->cfg.resume_dir))
        return cli_error(CLI_USAGE, "--%s with %s: the simulator's faults are keyed by the run's messages from its "
                                    "start, so a resumed run would not meet the faults of the run never stopped "
                                    "(docs/checkpoint.md)",
                         fault, o->cfg.checkpoint_dir ? "--checkpoint" : "--resume");
    if (cli_given(a, "checkpoint-every") && !o->cfg.checkpoint_dir)
        return cli_error(CLI_USAGE, "--checkpoint-every applies to --checkpoint DIR");
    if (fb && o->cfg.model == GNN_MODEL_GAT)
        return cli_error(CLI_USAGE, "--model gat: full batch on partitions trains sage, gcn or gin");
    if (fb && o->backend.kind == CLI_BACKEND_SIM && o->fb_parts > 0 && o->fb_parts != o->backend.sim.ranks)
        return cli_error(CLI_USAGE, "--parts %lld but --ranks %d: one part per rank", (long long)o->fb_parts,
                         o->backend.sim.ranks);
    return CLI_CONTINUE;
}

static int train_options(int argc, char **argv, train_opts *o, cli_args *a)
{
    train_defaults(o);
    int rc = cli_parse(&k_cmd, argc, argv, o, a);
    if (rc != CLI_CONTINUE)
        return rc;
    /* under MPI only rank 0 writes, on its own file system: checked there at the end */
    if (o->backend.kind != CLI_BACKEND_MPI && cli_report_check(o->json))
        return CLI_USAGE;
    if ((rc = check_model_flags(o, a)) != CLI_CONTINUE || (rc = check_part_flags(o, a)) != CLI_CONTINUE)
        return rc;
    if ((rc = cli_backend_check(&o->backend, a)))
        return rc;
    if (o->pc.sampling == GNN_SAMPLING_DISTRIBUTED || o->pc.embed_dim > 0)
        o->pc.remote = GNN_REMOTE_FETCH; /* the sampled vertices' rows are pulled */
    o->po.seed = o->cfg.seed; /* in memory: METIS and random draw from --seed (a set: its manifest's) */
    return CLI_CONTINUE;
}

/* The dataset, when the run needs one: a saved set needs it only for fetch (the whole
 * topology) or to check a --data given with it. */
static int load_dataset(train_job *J, gnn_dataset *ds)
{
    const train_opts *o = &J->o;
    memset(ds, 0, sizeof *ds);
    const int needs_topology = J->remote == GNN_REMOTE_FETCH && o->pc.sampling != GNN_SAMPLING_DISTRIBUTED;
    if (o->parts_dir && !J->fb && !needs_topology && !cli_given(J->args, "data"))
        return CLI_OK;
    gnn_err err = { "" };
    gnn_status st = gnn_dataset_open(ds, o->data, &err);
    if (!st && cli_given(J->args, "split"))
        st = gnn_dataset_split_random(ds, o->split[0], o->split[1], o->split[2], o->cfg.seed, &err);
    if (st)
        return cli_error(cli_status_code(st), "%s", cli_errmsg(&err, st));
    J->ds = ds;
    return CLI_OK;
}

int gnn_cmd_train(int argc, char **argv)
{
    train_job J;
    memset(&J, 0, sizeof J);
    cli_args a;
    int rc = train_options(argc, argv, &J.o, &a);
    if (rc != CLI_CONTINUE)
        return rc;
    J.args = &a;
    J.fb = J.o.cfg.mode == GNN_MODE_FULLBATCH && (J.o.parts_dir || cli_given(&a, "parts"));
    J.remote = !J.fb && (J.o.parts_dir || cli_given(&a, "remote") || cli_given(&a, "sampling") ||
                         cli_given(&a, "embed-dim"))
                   ? (int)J.o.pc.remote
                   : -1;
    const int nthreads = cli_set_threads(J.o.threads);
    gnn_dataset ds;
    if ((rc = load_dataset(&J, &ds))) {
        gnn_dataset_free(&ds);
        return rc;
    }
    gnn_train_resolve(&J.o.cfg); /* effective values, as reported */
    /* under the simulator every rank runs threads_per_rank OpenMP threads */
    J.nthreads = J.o.backend.kind == CLI_BACKEND_SIM ? J.o.backend.sim.threads_per_rank : nthreads;
    J.tty = cli_is_tty();
    cli_shared_init(&J.shared);
    gnn_sim_report rep;
    memset(&rep, 0, sizeof rep);
    gnn_err err = { "" };
    gnn_status st = cli_backend_run(&J.o.backend, J.fb ? train_fb_rank : J.remote >= 0 ? train_part_rank : train_rank, &J,
                                    &rep, &err);
    if (st) {
        rc = cli_error(cli_status_code(st), "%s", cli_errmsg(&err, st));
    } else if (J.report) { /* rank 0 */
        train_add_sim(&J, &rep);
        if (J.o.json)
            rc = cli_report_write(J.report, J.o.json);
    }
    if (J.report)
        json_object_put(J.report);
    gnn_sim_report_free(&rep);
    gnn_partition_free(&J.full);
    free(J.fb_part);
    free(J.fb_split);
    cli_shared_destroy(&J.shared);
    gnn_dataset_free(&ds);
    return rc;
}
