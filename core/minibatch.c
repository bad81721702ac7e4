/* core/minibatch.c -- multi-layer sampling glue (DGL's MultiLayerNeighborSampler order).
 * blocks[L-1] has the seeds as dst and fanout fanouts[L-1]; the src vertices of blocks[l+1]
 * are the dst vertices (the seeds) of blocks[l]. The RNG layer index is the block's model layer. */
#include <string.h>
#include "gnnref/sample.h"

gnn_status gnn_sample_blocks(const gnn_sample_ops *ops, const gnn_csr *g, const int64_t *seeds,
                             int64_t n_seeds, const int64_t *fanouts, int L,
                             const gnn_sample_params *base, gnn_block *blocks)
{
    if (L < 1 || L > 255 || !ops || !g || !base || (n_seeds > 0 && !seeds))
        return GNN_ERR_INVAL;
    const int64_t *dst = seeds;
    int64_t n_dst = n_seeds;
    for (int l = L - 1; l >= 0; l--) {
        gnn_sample_params p = *base;
        p.fanout = fanouts[l];
        p.layer = (unsigned)l;
        gnn_sampled s;
        gnn_status st = ops->sample(g, dst, n_dst, &p, &s);
        if (st)
            return st;
        st = ops->build(&s, &blocks[l]);
        gnn_sampled_free(&s);
        if (st)
            return st;
        dst = blocks[l].src_gid;
        n_dst = blocks[l].n_src;
    }
    return GNN_OK;
}
