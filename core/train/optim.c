/* core/train/optim.c -- the training helpers of include/gnnref/nn.h that have no optimized
 * twin and so no place in an ops table: softmax cross-entropy (mean and sum), argmax, the
 * Adam step and Glorot's initialization. The trainers (core/train/) and the oracle call them
 * directly; they lived in ref/nn.c, which made core/ call into ref/ around the context
 * (issue 35 item 3). Every accumulation order is part of the contract (nn.h). */
#include <math.h>
#include <string.h>
#include "gnnref/nn.h"
#include "gnnref/rng.h"

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
