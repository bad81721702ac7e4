/* opt/cuda/scan_host.h -- host logic of the scan and the radix sort (opt/cuda/scan_body.h),
 * included by a .cu and by its _emu.c twin (opt/cuda/kbase.h). Pointers are device pointers. */
#ifndef GNNREF_OPT_CUDA_SCAN_HOST_H
#define GNNREF_OPT_CUDA_SCAN_HOST_H

#include "opt/cuda/scan_body.h"

/* out[i] = in[0] + ... + in[i - 1] for i < n (in == out allowed). */
static inline gnn_status gnn_k_scan(const int64_t *in, int64_t *out, int64_t n)
{
    gnn_status st = GNN_OK;
    int64_t *sums = NULL;
    const unsigned nb = gnn_k_blocks(n, GNN_SCAN_T);
    gnn_scan_args a;
    gnn_scan_add_args b;
    if (n <= 0)
        return GNN_OK;
    GNN_K_CHECK(GNN_K_ALLOC(&sums, (size_t)nb * sizeof(int64_t)));
    a.in = in;
    a.out = out;
    a.sums = sums;
    a.n = n;
    GNN_K_CHECK(GNN_K_LAUNCH(gnn_scan_block, gnn_k_dim(nb, 1, 1), gnn_k_dim(GNN_SCAN_T, 1, 1),
                             3 * GNN_SCAN_T * sizeof(int64_t), a));
    if (nb > 1) {
        GNN_K_CHECK(gnn_k_scan(sums, sums, nb));
        b.out = out;
        b.sums = sums;
        b.n = n;
        GNN_K_CHECK(GNN_K_LAUNCH(gnn_scan_add, gnn_k_dim(nb, 1, 1), gnn_k_dim(GNN_SCAN_T, 1, 1), 0, b));
    }
done:
    GNN_K_FREE(sums);
    return st;
}

/* Stable sort of (keys, vals) by keys in [0, max_key], n pairs: 8-bit digit passes, least
 * significant first, ping-ponging with the scratch buffers. *keys_res / *vals_res: where the
 * sorted pairs are (one of the two pairs of buffers). */
static inline gnn_status gnn_k_sort_pairs(int32_t *keys, int64_t *vals, int32_t *keys_tmp, int64_t *vals_tmp, int64_t n,
                                   int32_t max_key, int32_t **keys_res, int64_t **vals_res)
{
    gnn_status st = GNN_OK;
    const int64_t tiles = (int64_t)gnn_k_blocks(n, GNN_RADIX_T);
    int64_t *rank = NULL, *hist = NULL;
    gnn_radix_args a;
    int bits = 0;
    *keys_res = keys;
    *vals_res = vals;
    while (bits < 31 && (max_key >> bits) != 0)
        bits++;
    if (n <= 1 || bits == 0)
        return GNN_OK;
    GNN_K_CHECK(GNN_K_ALLOC(&rank, (size_t)n * sizeof(int64_t)));
    GNN_K_CHECK(GNN_K_ALLOC(&hist, (size_t)(256 * tiles) * sizeof(int64_t)));
    for (int shift = 0; shift < bits; shift += 8) {
        a.key_in = *keys_res;
        a.val_in = *vals_res;
        a.key_out = *keys_res == keys ? keys_tmp : keys;
        a.val_out = *vals_res == vals ? vals_tmp : vals;
        a.rank = rank;
        a.hist = hist;
        a.n = n;
        a.tiles = tiles;
        a.shift = shift;
        GNN_K_CHECK(GNN_K_LAUNCH(gnn_radix_hist, gnn_k_dim((unsigned)tiles, 1, 1), gnn_k_dim(GNN_RADIX_T, 1, 1),
                                 GNN_RADIX_T * sizeof(int32_t), a));
        GNN_K_CHECK(gnn_k_scan(hist, hist, 256 * tiles));
        GNN_K_CHECK(GNN_K_LAUNCH(gnn_radix_scatter, gnn_k_dim((unsigned)tiles, 1, 1), gnn_k_dim(GNN_RADIX_T, 1, 1),
                                 0, a));
        *keys_res = a.key_out;
        *vals_res = a.val_out;
    }
done:
    GNN_K_FREE(rank);
    GNN_K_FREE(hist);
    return st;
}

#endif
