/* ref/nn.c -- reference dense layers and training primitives.
 *
 * Plain C11, no intrinsics, no threads: the specification. The UPDATE of GraphSAGE,
 * @eq{DistGNN-MB 1} h_v = Dropout(ReLU(W_n . h_N(v) + W_s . h_v + b)), is built from
 * linear_fwd (twice, the second accumulating), relu and dropout; training adds softmax
 * cross-entropy and Adam. Every accumulation order below is part of the contract (see
 * include/gnnref/nn.h): opt/cpu/nn.c keeps it, so results are bitwise equal. The table's
 * arguments are checked by its public entry points (gnn_nn_linear_fwd and _bwd,
 * gnn_nn_relu_fwd and _bwd, gnn_nn_dropout_fwd and _bwd, core/ops/kernels.c): the functions
 * here assume valid input. */
#include <math.h>
#include <string.h>
#include "gnnref/nn.h"
#include "gnnref/rng.h"

/* y[i][j] = b[j] + sum_k x[i][k] * w[k][j], k ascending. x (n, in), w (in, out), y (n, out). */
void gnn_linear_fwd_ref(const float *x, int64_t n, int64_t in, const float *w, const float *b,
                        int64_t out, float *y)
{
    for (int64_t i = 0; i < n; i++) {
        float *y_i = y + i * out;
        for (int64_t j = 0; j < out; j++)
            y_i[j] = b ? b[j] : 0.0f;
        for (int64_t k = 0; k < in; k++) {
            const float x_ik = x[i * in + k];
            const float *w_k = w + k * out;
            for (int64_t j = 0; j < out; j++)
                y_i[j] += x_ik * w_k[j];
        }
    }
}

/* dw[k][j] = sum_i x[i][k] dy[i][j] (i ascending); db[j] = sum_i dy[i][j] (i ascending);
 * dx[i][k] = sum_j dy[i][j] w[k][j] (j ascending). Each output is overwritten. */
void gnn_linear_bwd_ref(const float *x, const float *dy, int64_t n, int64_t in, const float *w,
                        int64_t out, float *dx, float *dw, float *db)
{
    if (dw) {
        memset(dw, 0, (size_t)in * (size_t)out * sizeof(float));
        for (int64_t i = 0; i < n; i++)
            for (int64_t k = 0; k < in; k++) {
                const float x_ik = x[i * in + k];
                float *dw_k = dw + k * out;
                for (int64_t j = 0; j < out; j++)
                    dw_k[j] += x_ik * dy[i * out + j];
            }
    }
    if (db) {
        memset(db, 0, (size_t)out * sizeof(float));
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < out; j++)
                db[j] += dy[i * out + j];
    }
    if (dx) {
        for (int64_t i = 0; i < n; i++)
            for (int64_t k = 0; k < in; k++) {
                float acc = 0.0f;
                for (int64_t j = 0; j < out; j++)
                    acc += dy[i * out + j] * w[k * out + j];
                dx[i * in + k] = acc;
            }
    }
}

void gnn_relu_fwd(float *x, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void gnn_relu_bwd(const float *y, float *dy, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        if (!(y[i] > 0.0f))
            dy[i] = 0.0f;
}

/* Keep x[i][c] when float draw c of stream (seed, DROPOUT, step, layer, row_gid[i]) >= p;
 * kept values are scaled by 1/(1-p) (inverted dropout, as PyTorch and DGL do). The mask
 * depends on the vertex, not on its position in the batch (DESIGN.md section 2). */
void gnn_dropout_fwd(float *x, int64_t n, int64_t d, const int64_t *row_gid, float p,
                     uint64_t seed, uint32_t step, unsigned layer, float *mask)
{
    const float scale = 1.0f / (1.0f - p);
    for (int64_t i = 0; i < n; i++) {
        const gnn_rng_stream s = gnn_rng_stream_make(seed, GNN_TAG_DROPOUT, step, layer, (uint64_t)row_gid[i]);
        uint32_t w[4];
        for (int64_t c = 0; c < d; c++) {
            /* float draw c = word c%4 of block c/4 (one Philox block serves four columns) */
            if (c % 4 == 0)
                gnn_rng_block(&s, (uint32_t)(c / 4), w);
            const float u = (float)(w[c % 4] >> 8) * (1.0f / 16777216.0f);
            const float m = u >= p ? scale : 0.0f;
            x[i * d + c] *= m;
            if (mask)
                mask[i * d + c] = m;
        }
    }
}

void gnn_dropout_bwd(float *dy, int64_t n, int64_t d, const float *mask)
{
    for (int64_t i = 0; i < n * d; i++)
        dy[i] *= mask[i];
}

/* Mean softmax cross-entropy over labelled rows. The log-sum-exp is taken in double after
 * subtracting the row maximum (numerically stable); row losses are summed in row order. */
double gnn_softmax_xent_sum(const float *logits, int64_t n, int64_t c, const int32_t *labels, double denom,
                            float *dlogits, int64_t *correct)
{
    int64_t right = 0;
    double loss = 0.0;
    for (int64_t i = 0; i < n; i++) {
        const float *z = logits + i * c;
        float *dz = dlogits ? dlogits + i * c : NULL;
        if (labels[i] < 0) {
            if (dz)
                memset(dz, 0, (size_t)c * sizeof(float));
            continue;
        }
        int64_t arg = 0;
        for (int64_t j = 1; j < c; j++)
            if (z[j] > z[arg])
                arg = j;
        right += arg == labels[i];
        const double m = z[arg];
        double s = 0.0;
        for (int64_t j = 0; j < c; j++)
            s += exp((double)z[j] - m);
        const double lse = m + log(s);
        loss += lse - (double)z[labels[i]];
        if (dz)
            for (int64_t j = 0; j < c; j++) {
                const double pj = exp((double)z[j] - lse);
                dz[j] = (float)((pj - (j == labels[i] ? 1.0 : 0.0)) / denom);
            }
    }
    if (correct)
        *correct = right;
    return loss;
}

double gnn_softmax_xent(const float *logits, int64_t n, int64_t c, const int32_t *labels,
                        float *dlogits, int64_t *correct)
{
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++)
        count += labels[i] >= 0;
    const double loss = gnn_softmax_xent_sum(logits, n, c, labels, count ? (double)count : 1.0, dlogits, correct);
    return count ? loss / (double)count : 0.0;
}

void gnn_argmax(const float *logits, int64_t n, int64_t c, int32_t *pred)
{
    for (int64_t i = 0; i < n; i++) {
        const float *z = logits + i * c;
        int64_t arg = 0;
        for (int64_t j = 1; j < c; j++)
            if (z[j] > z[arg])
                arg = j;
        pred[i] = (int32_t)arg;
    }
}

/* Adam (Kingma & Ba 2015, @alg{Adam 1}) with L2 weight decay added to the gradient
 * (as the GCN paper applies it): g' = g + wd * w. */
void gnn_adam_step(const gnn_adam *a, int64_t t, float *w, const float *g, float *m, float *v,
                   int64_t count)
{
    const float c1 = (float)(1.0 / (1.0 - pow((double)a->beta1, (double)t)));
    const float c2 = (float)(1.0 / (1.0 - pow((double)a->beta2, (double)t)));
    for (int64_t i = 0; i < count; i++) {
        const float gi = g[i] + a->weight_decay * w[i];
        m[i] = a->beta1 * m[i] + (1.0f - a->beta1) * gi;
        v[i] = a->beta2 * v[i] + (1.0f - a->beta2) * gi * gi;
        const float mhat = m[i] * c1, vhat = v[i] * c2;
        w[i] -= a->lr * mhat / (sqrtf(vhat) + a->eps);
    }
}

/* @eq{Glorot 16}, the normalized initialization: w ~ U[-sqrt(6 / (fan_in + fan_out)), +...]. */
void gnn_glorot_init(float *w, int64_t fan_in, int64_t fan_out, uint64_t seed, unsigned param_index)
{
    const float limit = (float)sqrt(6.0 / (double)(fan_in + fan_out));
    for (int64_t i = 0; i < fan_in; i++) {
        const gnn_rng_stream s = gnn_rng_stream_make(seed, GNN_TAG_INIT, 0, param_index, (uint64_t)i);
        for (int64_t j = 0; j < fan_out; j++)
            w[i * fan_out + j] = (2.0f * gnn_rng_float(&s, (uint64_t)j) - 1.0f) * limit;
    }
}

const gnn_nn_ops gnn_nn_ref = {
    .name = "ref",
    .caps = 1u, /* GNN_CAP_DETERMINISTIC */
    .linear_fwd = gnn_linear_fwd_ref,
    .linear_bwd = gnn_linear_bwd_ref,
    .relu_fwd = gnn_relu_fwd,
    .relu_bwd = gnn_relu_bwd,
    .dropout_fwd = gnn_dropout_fwd,
    .dropout_bwd = gnn_dropout_bwd,
};
