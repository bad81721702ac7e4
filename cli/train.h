/* cli/train.h -- `gnnref train`, in three files:
 *   cmd_train.c     the flags (one table), their checks, loading, launching on the backend;
 *   train_run.c     one rank's run: gnn_train (one rank or data parallel), or gnn_train_part on
 *                   its part of a saved set or of a partition computed in memory;
 *   train_fb.c      one rank's run of full batch on partitions (gnn_train_fullbatch_dist);
 *   train_report.c  the progress lines and, on rank 0, the summary and the JSON report. */
#ifndef GNNREF_CLI_TRAIN_H
#define GNNREF_CLI_TRAIN_H

#include "cli/backend.h"
#include "cli/flags.h"
#include "gnnref/dataset.h"
#include "gnnref/partition.h"
#include "gnnref/train.h"
#include "gnnref/train_fullbatch.h"
#include "gnnref/train_part.h"

/* Tags of train's flags: what applies only to some runs (null in the report otherwise). */
enum {
    TRAIN_TAG_GAT = CLI_TAG(0),       /* --model gat */
    TRAIN_TAG_MINIBATCH = CLI_TAG(1), /* --mode minibatch */
    TRAIN_TAG_PARTS = CLI_TAG(2),     /* training on partitions */
    TRAIN_TAG_MEMORY = CLI_TAG(3),    /* ... with the partition computed in memory */
    TRAIN_TAG_HEC = CLI_TAG(4),       /* ... with --remote hec */
    TRAIN_TAG_FB = CLI_TAG(5),        /* full batch on partitions (SuperGCN) */
    TRAIN_TAG_RGCN = CLI_TAG(6),      /* --model rgcn */
};

/* How a flag of `gnnref train` meets --resume (docs/checkpoint.md, "Flags and the fingerprint").
 * A flag not listed in cli_train_resume_rules enters the checkpoint's fingerprint: a resume
 * under another value of it is refused (tests/test_resume_flags.c resumes under a changed value
 * of every such flag). A listed flag either may differ on resume (FREE: it changes no bit of the
 * run's results) or does not combine with --checkpoint and --resume (REFUSED). */
typedef enum cli_resume_kind { CLI_RESUME_FREE = 1, CLI_RESUME_REFUSED = 2 } cli_resume_kind;
typedef struct cli_resume_rule {
    const char *flag;     /* without "--"; NULL ends the list */
    cli_resume_kind kind;
    const char *why;      /* the reason, one line */
} cli_resume_rule;
extern const cli_resume_rule cli_train_resume_rules[];
/* The command's flag tables (the one table of each group that parsing, help and the report read). */
const cli_command *cli_train_command(void);

typedef struct train_opts {
    gnn_train_config cfg;     /* the model and the optimizer; resolved before the report */
    int n_fanouts;            /* values given to --fanouts (the report: cfg.layers of them) */
    const char *data, *json;
    double split[3];
    int64_t threads;
    int quiet;
    /* training on partitions */
    const char *parts_dir;    /* --partitions DIR */
    gnn_part_options po;      /* in memory: method and balance (k = ranks, seed = --seed); a set: its manifest's */
    gnn_part_train_config pc; /* --remote and the HEC's sizes */
    /* full batch on partitions (SuperGCN) */
    int64_t fb_parts;         /* --parts K (0: not given) */
    gnn_fb_config fc;         /* --plan, --comm-bits, --round, --quant-backward, --lp-rate, --lp-resample */
    cli_backend backend;
} train_opts;

typedef struct train_job {
    train_opts o;
    const cli_args *args;
    const gnn_dataset *ds;    /* NULL when a saved set trains without --data */
    int nthreads;             /* OpenMP threads of a rank */
    int tty;
    int remote;               /* -1: gnn_train (one rank or data parallel); else a gnn_remote_mode */
    int fb;                   /* 1: full batch on partitions (gnn_train_fullbatch_dist); remote is -1 */
    /* shared by the ranks of this process, read-only once prepared (train_prepare_parts) */
    cli_shared shared;
    gnn_part_manifest man;    /* --partitions: the set's manifest */
    gnn_partition full;       /* in memory: every part; fetch on a set: the loaded set (its part vector) */
    int32_t *fb_part;         /* full batch on partitions: the part vector (in memory, or the set's) */
    uint8_t *fb_split;        /* ... a saved set's split over the whole graph (NULL in memory) */
    const gnn_fb_report *fb_rep; /* rank 0, for train_finish */
    json_object *report;      /* built by rank 0 */
    int epochs_run;
} train_job;

/* train_run.c: the SPMD functions cli_backend_run runs on every rank. */
gnn_status train_rank(gnn_comm *comm, void *arg);
gnn_status train_part_rank(gnn_comm *comm, void *arg);
gnn_status train_fb_rank(gnn_comm *comm, void *arg);

/* train_report.c */
/* What the progress callbacks print: remote is -1 for gnn_train, else the gnn_remote_mode. */
typedef struct train_print {
    int quiet, tty, remote, layers;
} train_print;
void train_on_step(int epoch, int64_t k, int64_t n, double loss, void *ctx);
void train_on_epoch(const gnn_epoch_stats *E, void *ctx);
/* Rank 0, before training: the run's first line, and a warning for a val or test split
 * without a labelled vertex (cnt: labelled val and test vertices over the whole graph). */
void train_print_header(const train_job *J, int P);
void train_warn_empty_splits(const train_job *J, const double cnt[2]);
/* Labelled vertices among the first n of split/labels: cnt[0] in val, cnt[1] in test. */
void train_count_eval_splits(const uint8_t *split, const int32_t *labels, int64_t n, double cnt[2]);
/* After training, on every rank: gather every rank's times and the traffic; rank 0 prints the
 * result and builds J->report (rep: the figures of training on partitions, or NULL). */
gnn_status train_finish(gnn_comm *comm, train_job *J, const gnn_train_result *res, const gnn_part_report *rep);
/* Rank 0, after the run: the simulator's figures into the report and, unless quiet, a line. */
void train_add_sim(train_job *J, const gnn_sim_report *rep);

#endif
