/* core/io/dataset_split.c -- a random train/val/test split of a dataset.
 *
 * Its own file: the generators (core/io/gen.c) call it, and it calls the loader's split
 * storage (core/io/format.c), so it sits with neither the validator nor the dispatcher. */
#include <math.h>
#include <string.h>
#include "gnnref/dataset.h"
#include "gnnref/rng.h"
#include "gnnref/tensor.h"

/* ---- random split ---- */

gnn_status gnn_dataset_split_random(gnn_dataset *ds, double train, double val, double test, uint64_t seed,
                                    gnn_err *err)
{
    if (!ds)
        return gnn_err_set(err, GNN_ERR_INVAL, "split: NULL dataset");
    if (!(train >= 0 && val >= 0 && test >= 0 && train <= 1 && val <= 1 && test <= 1) ||
        train + val + test > 1.0 + 1e-9)
        return gnn_err_set(err, GNN_ERR_INVAL,
                           "split: fractions train %g, val %g, test %g must each be in [0, 1] and sum to at most 1",
                           train, val, test);
    const int64_t n = ds->graph.n;
    int64_t n_train = (int64_t)llround(train * (double)n);
    int64_t n_val = (int64_t)llround(val * (double)n);
    int64_t n_test = (int64_t)llround(test * (double)n);
    /* rounding three fractions that sum to 1 can overshoot n by one or two: take it from
     * the last non-empty part (test, then val) so the counts never exceed n */
    if (n_train > n)
        n_train = n;
    if (n_train + n_val > n)
        n_val = n - n_train;
    if (n_train + n_val + n_test > n)
        n_test = n - n_train - n_val;
    int64_t *perm = gnn_malloc((size_t)n * sizeof(int64_t));
    if (!perm)
        return gnn_err_set(err, GNN_ERR_NOMEM, "random split: out of memory for %lld vertices", (long long)n);
    gnn_status st = gnn_dataset_split_storage(ds, err);
    if (st) {
        gnn_free(perm);
        return st;
    }
    for (int64_t i = 0; i < n; i++)
        perm[i] = i;
    /* tag SPLIT, step 0, layer 0, id 0: draw i of the Fisher-Yates shuffle (rng.h) */
    const gnn_rng_stream s = gnn_rng_stream_make(seed, GNN_TAG_SPLIT, 0, 0, 0);
    gnn_rng_shuffle_i64(&s, perm, n);
    memset(ds->split, GNN_SPLIT_NONE, (size_t)n);
    for (int64_t i = 0; i < n_train + n_val + n_test; i++)
        ds->split[perm[i]] = i < n_train ? GNN_SPLIT_TRAIN : i < n_train + n_val ? GNN_SPLIT_VAL : GNN_SPLIT_TEST;
    gnn_free(perm);
    return GNN_OK;
}
