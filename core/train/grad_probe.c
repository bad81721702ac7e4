/* core/train/grad_probe.c -- central differences of a trainer's step (core/train/grad_probe.h). */
#include <math.h>
#include <string.h>
#include "core/train/grad_probe.h"
#include "gnnref/tensor.h"

static uint64_t mix(uint64_t h, uint64_t bit) { return (h ^ bit) * 0x100000001B3ull; } /* FNV-1a, one bit a time */

static uint64_t positives(uint64_t h, const float *x, int64_t n)
{
    for (int64_t i = 0; x && i < n; i++)
        h = mix(h, x[i] > 0.0f);
    return h;
}

uint64_t gnn_grad_probe_pattern(const model *m, const gnn_block *const *blk, const lcache *C)
{
    uint64_t h = 0xCBF29CE484222325ull;
    for (int l = 0; l < m->L; l++) {
        const mlayer *S = &m->layer[l];
        const gnn_block *b = blk[l];
        if (!S->last) /* ReLU(pre) > 0, and ELU(pre) > 0, exactly where pre > 0 (ELU: its second derivative jumps) */
            h = positives(h, C[l].y, b->n_dst * S->out);
        if (m->kind == GNN_MODEL_GIN)
            h = positives(h, C[l].t1, b->n_dst * S->mid);
        if (m->kind != GNN_MODEL_GAT)
            continue;
        if (m->variant == GNN_GAT_DISTGNN && !S->last)
            h = positives(h, C[l].t0, b->n_src * S->hf);
        const float *z = C[l].t0, *al = S->p + S->o_al, *ar = S->p + S->o_ar;
        for (int64_t v = 0; z && v < b->n_dst; v++)
            for (int64_t e = b->indptr[v]; e < b->indptr[v + 1]; e++)
                for (int64_t k = 0; k < S->heads; k++) {
                    const int64_t u = b->indices[e];
                    double el = 0.0, er = 0.0;
                    for (int64_t f = 0; f < S->f; f++) {
                        el += (double)z[u * S->hf + k * S->f + f] * al[k * S->f + f];
                        er += (double)z[v * S->hf + k * S->f + f] * ar[k * S->f + f];
                    }
                    h = mix(h, el + er > 0.0);
                }
    }
    return h;
}

/* The loss summed over the ranks, and the ranks' patterns combined (summed as 52-bit integers:
 * exact in double, the same on every rank). */
static gnn_status eval_sum(const grad_probe *p, int grads, double *loss, uint64_t *pattern)
{
    uint64_t pat = 0;
    gnn_status st = p->eval(p->self, grads, loss, &pat);
    double v[2] = { *loss, (double)(pat & ((1ull << 52) - 1)) };
    if (!st && gnn_comm_size(p->comm) > 1)
        st = gnn_comm_allreduce(p->comm, v, v, 2, GNN_DT_F64);
    *loss = v[0];
    *pattern = (uint64_t)v[1];
    return st;
}

/* Parameter i of the flat view: its value and its gradient. */
static float *param_at(const grad_probe *p, int64_t i, const float **g)
{
    for (int l = 0; l < p->m->L; l++) {
        mlayer *S = &p->m->layer[l];
        if (i < S->count) {
            *g = S->g + i;
            return S->p + i;
        }
        i -= S->count;
    }
    *g = p->extra_g + i;
    return p->extra + i;
}

/* The loss at the parameter's value x + dir h / 2^t (dir = +-1), evaluated once: where the loss
 * is smooth and where not, with the value as stored in f32. */
#define PROBE_POINTS (GNN_GRAD_PROBE_HALVINGS + 3)
typedef struct probe_line {
    const grad_probe *p;
    float *x;
    float x0;
    double h;
    uint64_t base;
    int done[2][PROBE_POINTS], smooth[2][PROBE_POINTS];
    double loss[2][PROBE_POINTS], at[2][PROBE_POINTS];
} probe_line;

static gnn_status point(probe_line *L, int side, int t)
{
    if (L->done[side][t])
        return GNN_OK;
    const float v = (float)((double)L->x0 + (side ? -1.0 : 1.0) * L->h / (double)(1 << t));
    uint64_t pat = 0;
    *L->x = v;
    const gnn_status st = eval_sum(L->p, 0, &L->loss[side][t], &pat);
    *L->x = L->x0;
    L->at[side][t] = (double)v;
    L->smooth[side][t] = pat == L->base;
    L->done[side][t] = 1;
    return st;
}

/* The derivative at step index t: central (both sides smooth at t), else from the smooth side
 * alone by Richardson's extrapolation of the one-sided differences at t and t + 1 (second order,
 * as the central one). *ok = 0 when neither side is smooth. */
static gnn_status derivative(probe_line *L, double l0, int t, double *d, int *ok)
{
    gnn_status st;
    *ok = 0;
    if ((st = point(L, 0, t)) || (st = point(L, 1, t)))
        return st;
    if (L->smooth[0][t] && L->smooth[1][t]) {
        *d = (L->loss[0][t] - L->loss[1][t]) / (L->at[0][t] - L->at[1][t]);
        *ok = 1;
        return GNN_OK;
    }
    for (int side = 0; side < 2; side++) {
        if (!L->smooth[side][t] || (st = point(L, side, t + 1)))
            continue;
        if (!L->smooth[side][t + 1])
            continue;
        const double x0 = (double)L->x0;
        const double f1 = (L->loss[side][t] - l0) / (L->at[side][t] - x0);
        const double f2 = (L->loss[side][t + 1] - l0) / (L->at[side][t + 1] - x0);
        const double r = (L->at[side][t] - x0) / (L->at[side][t + 1] - x0); /* 2, up to f32 rounding */
        *d = (r * f2 - f1) / (r - 1.0);
        *ok = 1;
        return GNN_OK;
    }
    return st;
}

gnn_status gnn_grad_probe_run(const grad_probe *p, gnn_grad_probe *out)
{
    int64_t n = 0, *parts = out->parts;
    for (int l = 0; l < p->m->L; l++)
        n += parts[l] = p->m->layer[l].count;
    parts[p->m->L] = p->extra ? p->n_extra : 0;
    n += parts[p->m->L];
    out->count = n;
    const int64_t k = n < out->cap ? n : out->cap;
    double loss;
    uint64_t base;
    gnn_status st = eval_sum(p, 1, &loss, &base);
    for (int64_t i = 0; i < k && !st; i++) {
        const float *g;
        param_at(p, i, &g);
        out->grad[i] = (double)*g;
    }
    if (!st && gnn_comm_size(p->comm) > 1 && k > 0)
        st = gnn_comm_allreduce(p->comm, out->grad, out->grad, k, GNN_DT_F64);
    probe_line *L = gnn_malloc(sizeof *L);
    if (!L)
        return GNN_ERR_NOMEM;
    for (int64_t i = 0; i < k && !st; i++) {
        const float *g;
        memset(L, 0, sizeof *L);
        *L = (probe_line){ .p = p, .x = param_at(p, i, &g), .h = out->h, .base = base };
        L->x0 = *L->x;
        out->fd[i] = 0.0;
        out->step[i] = 0.0; /* unresolved until a step measures the derivative */
        for (int t = 0; t < GNN_GRAD_PROBE_HALVINGS && !st; t++) {
            double d1, d2;
            int ok1, ok2;
            if ((st = derivative(L, loss, t, &d1, &ok1)) || !ok1 || (st = derivative(L, loss, t + 1, &d2, &ok2)) || !ok2)
                continue;
            /* the loss's rounding reaches the quotient divided by the step: the absolute part of
             * the agreement tolerance grows as the step shrinks (gnn_grad_probe) */
            if (fabs(d1 - d2) <= out->atol * (double)(1 << t) + out->rtol * fabs(d2)) {
                out->fd[i] = d2;
                out->step[i] = out->h / (double)(1 << (t + 1));
                break;
            }
        }
    }
    gnn_free(L);
    return st;
}
