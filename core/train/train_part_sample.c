/* core/train/train_part_sample.c -- the blocks of a mini-batch (DistGNN-MB Algorithm 2,
 * line 6) for training on a partition: gnn_ptrain_sample, declared in
 * core/train/train_part_internal.h.
 *
 * Its own file because two callers share it: the step (core/train/train_part_step.c) and the
 * pipeline's worker, which samples ahead on its own sampler (core/train/train_part_pipe.c). The
 * step calls the pipeline (gnn_ptrain_pipe_take), so with the sampler here the calls between
 * the files of core/train/ go one way. It only reads the trainer's state. */
#include <string.h>
#include "core/train/train_part_internal.h"

/* Sample L blocks from the seeds: on the local graph (hec, drop; halo rows are empty, so halos
 * are never expanded) or the whole topology (fetch, from the seeds' global ids). Sampling draws
 * with the global id, so a solid vertex samples what it samples on the whole graph. */
gnn_status gnn_ptrain_sample(const ptrainer *T, gnn_sampler *smp, const int64_t *seeds, int64_t n_seeds, uint32_t step,
                             gnn_block *blk, int64_t **loc, double *edges)
{
    const gnn_train_config *c = &T->cfg;
    const int L = T->m.L, local = local_mode(T);
    const int64_t *s = seeds;
    int64_t *gseeds = NULL;
    if (!local) {
        if (!(gseeds = gnn_malloc((size_t)n_seeds * sizeof(int64_t))))
            return GNN_ERR_NOMEM;
        for (int64_t i = 0; i < n_seeds; i++)
            gseeds[i] = T->L->vid_o[seeds[i]];
        s = gseeds;
    }
    gnn_sample_params base = { .seed = c->seed, .step = step, .rng_ids = local ? T->L->vid_o : NULL };
    gnn_status st = gnn_sampler_blocks(smp, s, n_seeds, c->fanouts, L, &base, blk);
    gnn_free(gseeds);
    for (int l = 0; l < L && !st; l++) {
        *edges += (double)blk[l].nnz;
        if (!local)
            continue;
        /* keep the local ids; the blocks carry global ids from here on */
        if (!(loc[l] = gnn_malloc((size_t)blk[l].n_src * sizeof(int64_t)))) {
            st = GNN_ERR_NOMEM;
            break;
        }
        memcpy(loc[l], blk[l].src_gid, (size_t)blk[l].n_src * sizeof(int64_t));
        for (int64_t i = 0; i < blk[l].n_src; i++)
            blk[l].src_gid[i] = T->L->vid_o[loc[l][i]];
    }
    return st;
}
