/* core/train/train_part_pipe.c -- DistDGLv2's asynchronous mini-batch pipeline (section 4.2.1,
 * Fig. 5; next-capabilities.md C.1; docs/pipeline.md) for training on partitions: a worker
 * thread schedules and samples the run's mini-batches ahead of the trainer, at most
 * pc.pipeline_cap of them, while the trainer computes.
 *
 * Two stages, as the paper's: scheduling + sampling (capacity pc.pipeline_cap, the paper's 25)
 * and the CPU feature copy (pc.pipeline_copy_cap, the paper's 5): for drop and hec, layer 0's
 * input rows of the solid sources copied out of the features (the halo rows are the cache's,
 * which the trainer fills). One worker runs both, a later stage first (the paper's priority):
 * it copies the next sampled batch when it is within the copy capacity, else samples the next
 * one when that is within the sampling capacity, else waits.
 *
 * Why the bits do not change: the work ahead touches only immutable data. A mini-batch's seeds
 * are a pure function of (seed, epoch, rank) (the epoch loop's Fisher-Yates order,
 * core/train/epoch.c) and of the step (gnn_ptrain_batch_slice); its blocks a pure function of the
 * seeds, the graph and the global step (keyed sampling). So the worker computes exactly what
 * the serial step would, and the trainer takes the batches in schedule order; the step losses
 * are the serial run's, bit for bit, at any capacity and thread count. The pipeline does not
 * restart at an epoch boundary: the worker computes the next epoch's order itself.
 *
 * Communication stays on the trainer's thread (the MPI backend is MPI_THREAD_FUNNELED): the
 * worker only samples, on its own sampler object (the graph sampled on is read-only). So the
 * pipeline applies where sampling is local (drop, hec, fetch); distributed sampling's hops are
 * collectives, and sparse embeddings are read synchronously by the trainer anyway (C.3). The
 * feature pull of fetch stays a step of the trainer (collective).
 *
 * Under the simulator the worker's CPU time is not the rank thread's, so the virtual clock
 * (docs/simulator.md) predicts the epoch as if the worker had a core of its own. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "gnnref/rng.h"
#include "core/train/train_part_internal.h"

typedef struct pbatch {
    int ep;
    int64_t k;
    gnn_block blk[GNN_MAX_LAYERS];
    int64_t *loc[GNN_MAX_LAYERS];
    float *x0;                 /* drop, hec: layer 0's input rows (solid rows copied, halo rows 0) */
    double edges;
    gnn_status st;
} pbatch;

struct ppipe {
    ptrainer *T;
    pthread_t th;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pbatch *ring;              /* (cap) batch i in slot i % cap */
    int64_t cap, copy_cap;     /* sampling capacity; feature-copy capacity (<= cap) */
    int64_t produced, copied, consumed; /* batches sampled, copied (ready), taken: in that order */
    int64_t total;             /* batches of the run */
    int stop;
    gnn_sampler *smp;          /* the worker's own */
    int threads;               /* the worker's OpenMP team: the trainer's */
    double busy_s, full_s;     /* the worker: sampling, waiting for room */
};

static void batch_free(pbatch *b)
{
    for (int l = 0; l < GNN_MAX_LAYERS; l++) {
        gnn_block_free(&b->blk[l]);
        gnn_free(b->loc[l]);
    }
    gnn_free(b->x0);
    memset(b, 0, sizeof *b);
}

/* Stage 1: batch i's seeds (the epoch loop's order, computed here for each new epoch) and
 * blocks. */
static void sample_batch(struct ppipe *p, int64_t i, int64_t *order, int *cur)
{
    const ptrainer *T = p->T;
    const int64_t M = T->steps;
    pbatch *b = &p->ring[i % p->cap];
    memset(b, 0, sizeof *b);
    b->ep = (int)(i / M);
    b->k = i % M;
    if (!order) {
        b->st = GNN_ERR_NOMEM;
        return;
    }
    if (b->ep != *cur) { /* the epoch loop's order (core/train/epoch.c, run_steps) */
        memcpy(order, T->train, sizeof(int64_t) * (size_t)T->n_train);
        const gnn_rng_stream sh = gnn_rng_stream_make(T->cfg.seed, GNN_TAG_SHUFFLE, (uint32_t)b->ep, 0, (uint64_t)T->rank);
        gnn_rng_shuffle_i64(&sh, order, T->n_train);
        *cur = b->ep;
    }
    int64_t b0, nb;
    gnn_ptrain_batch_slice(T->n_train, b->k, M, T->cfg.batch, T->P, &b0, &nb);
    if (nb > 0)
        b->st = gnn_ptrain_sample(T, p->smp, order + b0, nb, (uint32_t)i, b->blk, b->loc, &b->edges);
}

/* Stage 2 (drop, hec): layer 0's input rows, as the trainer's layer_input would copy them. */
static void copy_batch(struct ppipe *p, int64_t i)
{
    const ptrainer *T = p->T;
    pbatch *b = &p->ring[i % p->cap];
    if (b->st || !local_mode(T) || !b->loc[0])
        return;
    const int64_t ns = b->blk[0].n_src, f = T->f;
    if (!(b->x0 = falloc(ns * f))) {
        b->st = GNN_ERR_NOMEM;
        return;
    }
    for (int64_t r = 0; r < ns; r++) {
        if (b->loc[0][r] < T->n_solid)
            memcpy(b->x0 + r * f, T->fsolid + b->loc[0][r] * f, (size_t)f * sizeof(float));
        else
            memset(b->x0 + r * f, 0, (size_t)f * sizeof(float));
    }
}

/* The worker: batches i = 0, 1, ... of the whole run (epoch i / M, step i % M); a later stage
 * first. */
static void *worker(void *arg)
{
    struct ppipe *p = arg;
    const ptrainer *T = p->T;
#ifdef _OPENMP
    omp_set_num_threads(p->threads);
#endif
    int64_t *order = gnn_malloc(sizeof(int64_t) * (size_t)(T->n_train + 1));
    int cur = -1;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        int job = 0; /* 1 copy, 2 sample */
        const double w0 = gnn_now_s();
        while (!p->stop) {
            if (p->copied < p->produced && p->copied - p->consumed < p->copy_cap) {
                job = 1;
                break;
            }
            if (p->produced < p->total && p->produced - p->consumed < p->cap) {
                job = 2;
                break;
            }
            if (p->copied == p->total)
                break; /* the run's batches are all ready */
            pthread_cond_wait(&p->cv, &p->mu);
        }
        p->full_s += gnn_now_s() - w0;
        const int64_t i = job == 1 ? p->copied : p->produced;
        pthread_mutex_unlock(&p->mu);
        if (!job)
            break;
        const double t0 = gnn_now_s();
        if (job == 1)
            copy_batch(p, i);
        else
            sample_batch(p, i, order, &cur);
        pthread_mutex_lock(&p->mu);
        p->busy_s += gnn_now_s() - t0;
        if (job == 1)
            p->copied++;
        else
            p->produced++;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
    gnn_free(order);
    return NULL;
}

gnn_status gnn_ptrain_pipe_start(ptrainer *T)
{
    if (T->pc.pipeline_cap <= 0)
        return GNN_OK;
    struct ppipe *p = calloc(1, sizeof *p);
    if (!p)
        return GNN_ERR_NOMEM;
    T->pipe = p;
    p->T = T;
    p->cap = T->pc.pipeline_cap;
    p->copy_cap = T->pc.pipeline_copy_cap < p->cap ? T->pc.pipeline_copy_cap : p->cap;
    if (p->copy_cap < 1)
        p->copy_cap = 1;
    p->total = (int64_t)T->cfg.epochs * T->steps;
    /* resumed (docs/checkpoint.md): the batches are a pure function of (epoch, step), so the
     * worker restarts at the first batch of the first epoch run */
    p->produced = p->copied = p->consumed = (int64_t)T->start_epoch * T->steps;
#ifdef _OPENMP
    p->threads = omp_get_max_threads();
#else
    p->threads = 1;
#endif
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if (!(p->ring = calloc((size_t)p->cap, sizeof *p->ring)))
        return GNN_ERR_NOMEM;
    gnn_status st = gnn_sampler_create(&p->smp, T->impl->sampler, local_mode(T) ? T->lgraph : T->ggraph, &T->sopt);
    if (st)
        return gnn_err_set(T->err, st, "pipeline sampler: %s", gnn_status_str(st));
    if (pthread_create(&p->th, NULL, worker, p))
        return gnn_err_set(T->err, GNN_ERR_INTERNAL, "pipeline: cannot start its worker thread");
    p->started = 1;
    return GNN_OK;
}

gnn_status gnn_ptrain_pipe_take(ptrainer *T, int ep, int64_t k, gnn_block *blk, int64_t **loc, float **x0,
                                double *edges, double *stall_s)
{
    struct ppipe *p = T->pipe;
    const double t0 = gnn_now_s();
    pthread_mutex_lock(&p->mu);
    while (p->copied == p->consumed)
        pthread_cond_wait(&p->cv, &p->mu);
    pbatch *b = &p->ring[p->consumed % p->cap];
    pthread_mutex_unlock(&p->mu);
    *stall_s += gnn_now_s() - t0;
    gnn_status st = b->st;
    if (!st && (b->ep != ep || b->k != k))
        st = gnn_err_set(T->err, GNN_ERR_INTERNAL, "pipeline: the trainer is at epoch %d step %lld but the next "
                                                   "prefetched batch is epoch %d step %lld",
                         ep, (long long)k, b->ep, (long long)b->k);
    if (!st) {
        memcpy(blk, b->blk, sizeof b->blk[0] * (size_t)T->m.L);
        memcpy(loc, b->loc, sizeof b->loc[0] * (size_t)T->m.L);
        memset(b->blk, 0, sizeof b->blk);
        memset(b->loc, 0, sizeof b->loc);
        *x0 = b->x0;
        b->x0 = NULL;
        *edges += b->edges;
    }
    batch_free(b);
    pthread_mutex_lock(&p->mu);
    p->consumed++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return st;
}

void gnn_ptrain_pipe_stop(ptrainer *T)
{
    struct ppipe *p = T->pipe;
    if (!p)
        return;
    if (p->started) {
        pthread_mutex_lock(&p->mu);
        p->stop = 1;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        pthread_join(p->th, NULL);
    }
    for (int64_t i = p->consumed; i < p->produced && p->ring; i++)
        batch_free(&p->ring[i % p->cap]);
    free(p->ring);
    gnn_sampler_destroy(p->smp);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
    T->pipe = NULL;
}

void gnn_ptrain_pipe_times(ptrainer *T, double *busy_s, double *full_s)
{
    struct ppipe *p = T->pipe;
    *busy_s = *full_s = 0.0;
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    *busy_s = p->busy_s;
    *full_s = p->full_s;
    pthread_mutex_unlock(&p->mu);
}
