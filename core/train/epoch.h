/* core/train/epoch.h -- internal: what the two trainers share outside a layer (core/train/model.h has the
 * layers): the epoch loop, and the end of every step (gradient allreduce, then Adam).
 *
 * gnn_train (core/train/train.c: one rank or data parallel) and gnn_train_part (core/train/train_part.c:
 * DistGNN-MB Algorithm 2 on partitions) run the same epoch loop, gnn_train_epochs:
 *   for epoch e (@alg{DistGNN-MB 2, line 3}):
 *     shuffle the train ids (@alg{DistGNN-MB 2, line 4}, CreateMinibatches),
 *     run steps k = 0 .. M-1 (@alg{DistGNN-MB 2, line 5}) through ops->step,
 *     evaluate every eval_every epochs and after the last, early stopping with patience,
 *     fill gnn_epoch_stats and the result, call the epoch callback.
 * A trainer supplies the steps and the evaluation; the loop owns the bookkeeping, so both
 * record steps, time phases, stop early and count bytes alike. The loop itself does no
 * floating-point work on the model: a trainer's bits are its step's and its evaluation's. */
#ifndef GNNREF_CORE_EPOCH_H
#define GNNREF_CORE_EPOCH_H

#include <stdint.h>
#include "core/train/model.h"
#include "gnnref/checkpoint.h"
#include "gnnref/comm.h"
#include "gnnref/train.h"

/* A trainer's part of the loop; `self` is its state. Each function returns gnn_status and may
 * name its failure in err (the loop names an unnamed one, and every communication failure). */
typedef struct epoch_ops {
    /* Before epoch ep's steps (may be NULL). */
    gnn_status (*begin)(void *self, int ep, gnn_err *err);
    /* Step k (0 <= k < plan->steps) of the epoch, global step `step` (the key of every random
     * choice), on the epoch order `order` of the plan's train ids (NULL when the plan has none):
     * *loss is the global mini-batch's mean loss; phases and edges_sampled go into E. */
    gnn_status (*step)(void *self, const int64_t *order, int64_t k, uint32_t step, gnn_epoch_stats *E,
                       double *loss, gnn_err *err);
    /* Full-neighborhood evaluation of the current model: acc[1..3] (train, val, test) and the
     * val loss. Called on every rank, or on rank 0 only with plan->root_evaluates. */
    gnn_status (*evaluate)(void *self, double acc[4], double *val_loss, gnn_err *err);
    /* After the evaluation, before the epoch's time and bytes are taken: the trainer's own
     * figures of the epoch into E (may be NULL). */
    gnn_status (*end)(void *self, gnn_epoch_stats *E, gnn_err *err);
    /* Checkpoints (cfg->checkpoint_dir, resume_dir; docs/checkpoint.md): the trainer's state
     * after an epoch, into w (the loop has put its own); and back from r before the first epoch
     * run. NULL: the trainer has nothing but what the loop saves. */
    gnn_status (*save)(void *self, gnn_ckpt *w, gnn_err *err);
    gnn_status (*load)(void *self, const gnn_ckpt *r, gnn_err *err);
} epoch_ops;

typedef struct epoch_plan {
    const gnn_train_config *cfg;  /* epochs, eval_every, patience, seed, on_step */
    int64_t steps;                /* M: steps per epoch, >= 1 */
    const int64_t *train;         /* (n_train) the ids each epoch shuffles; NULL: no order (full batch) */
    int64_t n_train;
    uint64_t shuffle_id;          /* the Fisher-Yates stream's id: 0 (gnn_train), the rank (gnn_train_part) */
    gnn_comm *comm;               /* its traffic is the epochs' comm_bytes; NULL: none */
    int root_evaluates;           /* 1: rank 0 evaluates and broadcasts to the others */
    gnn_epoch_cb cb;              /* after every epoch (may be NULL) */
    void *cb_ctx;
    const gnn_ckpt_fingerprint *fp; /* cfg->checkpoint_dir: what the files are written for */
    const gnn_ckpt *resume;       /* opened with gnn_epoch_resume_open: start after its epochs; NULL: afresh */
} epoch_plan;

/* Run the epochs into res (res->majority_rate and anything else set before is kept). On
 * failure res may hold partial results: the caller frees it. */
gnn_status gnn_train_epochs(const epoch_plan *plan, const epoch_ops *ops, void *self, gnn_train_result *res,
                            gnn_err *err);

/* The end of a training step in both trainers: sum the gradients of all ranks and the step's
 * sums (sums[0]: loss, sums[1]: sampled edges) in rank order (a no-op on one rank), then one
 * Adam step, so every rank applies the same update. gbuf: (n_params) scratch when the
 * communicator has more than one rank. */
gnn_status gnn_step_reduce_update(model *m, const gnn_train_config *c, gnn_comm *comm, float *gbuf, int64_t n_params,
                                  uint32_t step, double sums[2], double *phase);
/* The same with n_extra more gradients (extra_g) summed in the same allreduce, after the
 * layers' (gbuf: n_params + n_extra); their update is the caller's (the distributed full-batch
 * trainer's label embedding). */
gnn_status gnn_step_reduce_update_extra(model *m, const gnn_train_config *c, gnn_comm *comm, float *gbuf,
                                        int64_t n_params, float *extra_g, int64_t n_extra, uint32_t step,
                                        double sums[2], double *phase);

/* ---- checkpoints (core/train/epoch.c; the file format is core/io/checkpoint.c) ---- */
/* Open this rank's checkpoint in dir and check it against fp; then (collective when comm has
 * more than one rank) agree that every rank's opened and that all were written at the same
 * epoch, so no rank goes on alone. On failure r is freed. */
gnn_status gnn_epoch_resume_open(gnn_comm *comm, const char *dir, const gnn_ckpt_fingerprint *fp, gnn_ckpt *r,
                                 gnn_err *err);
/* The model's parameters and Adam's moments (sections GNN_CKPT_SEC_MODEL + 3 l + {0, 1, 2}). */
void gnn_ckpt_put_model(gnn_ckpt *w, const model *m);
gnn_status gnn_ckpt_get_model(const gnn_ckpt *r, model *m, gnn_err *err);
/* CRC32C of every layer's parameters in order (state: then m and v too). */
uint32_t gnn_model_crc(const model *m, int state);

#endif
