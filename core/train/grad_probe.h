/* core/train/grad_probe.h -- internal: central differences of a trainer's own step, for the oracle's
 * model-level gradient checks (grad.train, grad.fullbatch; docs/oracle.md "Gradient checks").
 *
 * A trainer that offers a probe hands over its model (and an extra parameter block: LP's label
 * embeddings) and one function that evaluates its step at the current parameters: the loss and
 * the step's branch pattern, and with `grads` also every gradient, through exactly the code a
 * training step runs (sampling, dropout masks, label propagation and exchanges are keyed by the
 * step, so every evaluation sees the same ones). The driver (gnn_grad_probe_run) perturbs each
 * parameter by +-s and keeps a difference only where it measures a derivative: the branch
 * pattern (every ReLU's and LeakyReLU's side) is the same at x - s, x and x + s, so the loss is
 * smooth on the interval, and the difference agrees with the one at s / 2 (the interval
 * resolves the curvature); else s is halved, up to GNN_GRAD_PROBE_HALVINGS times. */
#ifndef GNNREF_CORE_GRAD_PROBE_H
#define GNNREF_CORE_GRAD_PROBE_H

#include "core/train/model.h"
#include "gnnref/comm.h"
#include "gnnref/train.h"

typedef struct grad_probe {
    model *m;                 /* the parameters p and gradients g of every layer */
    float *extra, *extra_g;   /* NULL, or a block of n_extra more parameters and their gradients */
    int64_t n_extra;
    gnn_comm *comm;           /* NULL or one rank: no sums; else collective, the same order on every rank */
    /* the step's loss on this rank into *loss (the trainer's normalized sum) and its branch
     * pattern (gnn_grad_probe_pattern), and with grads the gradients of this rank's share into
     * m's g and extra_g */
    gnn_status (*eval)(void *self, int grads, double *loss, uint64_t *pattern);
    void *self;
} grad_probe;

/* The probe of include/gnnref/train.h (gnn_grad_probe) over p's parameters: every layer's p in
 * order, then extra. The parameters are restored. */
gnn_status gnn_grad_probe_run(const grad_probe *p, gnn_grad_probe *out);

/* A hash of the step's branches after its forward (C: every layer's cache, blk[l] layer l's
 * block): the side of every ReLU (y > 0 of the hidden layers, gin's inner t1 > 0, distgnn gat's
 * projection t0 > 0) and of gat's attention LeakyReLU (el[u] + er[v] > 0 per edge and head, in
 * double). Where it is unchanged the step's loss is one smooth function of the parameters:
 * dropout masks are fixed by their keys, and the other functions (softmax, LayerNorm, ELU) are
 * smooth. */
uint64_t gnn_grad_probe_pattern(const model *m, const gnn_block *const *blk, const lcache *C);

#endif
