/* core/train/train_part_eval.c -- exact distributed evaluation of a model trained on partitions,
 * whatever the remote mode: full-neighborhood inference over each rank's solid vertices, layer
 * by layer, without dropout; the halo rows of every layer's input come from their owners with
 * one alltoallv (the db_halo rows say who sends what: gnn_ptrain_halo_exchange), so each
 * solid vertex sees exactly its neighborhood in the whole graph. The correct counts and the val
 * loss are then summed over the ranks. The accuracies are those gnn_train's evaluation gives
 * for the same model: what the remote modes change is only how the model was trained. */
#include <string.h>
#include "core/train/train_part_internal.h"

/* Exact full-neighborhood inference over the solid vertices, layer by layer, the halo rows of
 * each layer's input exchanged from their owners; correct counts and the val loss summed over
 * ranks. acc[1..3]: train, val, test. Collective. */
gnn_status gnn_ptrain_evaluate(ptrainer *T, double acc[4], double *val_loss)
{
    const model *m = &T->m;
    const gnn_csr *g = T->lgraph;
    const int64_t ns = T->n_solid, nl = T->n_local, classes = m->layer[m->L - 1].out;
    const fwd_key key = { .train = 0, .seed = T->cfg.seed };
    gnn_block b;
    lcache C;
    memset(&C, 0, sizeof C);
    float *x = NULL, *scratch = NULL;
    int32_t *pred = NULL, *vl = NULL;
    gnn_status st = gnn_block_alloc(&b, ns, nl, g->indptr[ns]);
    if (st)
        return st;
    b.n_src = nl;
    b.nnz = g->indptr[ns];
    for (int64_t v = 0; v <= ns; v++)
        b.indptr[v] = g->indptr[v];
    for (int64_t e = 0; e < b.nnz; e++)
        b.indices[e] = (int32_t)g->indices[e];
    for (int64_t v = 0; v < nl; v++)
        b.src_gid[v] = T->L->vid_o[v];
    if (!(x = falloc(nl * T->f))) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    if (embedding(T)) { /* the store's current rows, and the halos' from their owners */
        if ((st = gnn_ptrain_halo_exchange(T, T->kv.feat, T->f, T->halo_feat))) {
            gnn_err_set(T->err, st, "evaluation: %s", gnn_comm_errmsg(T->comm));
            goto done;
        }
    }
    memcpy(x, embedding(T) ? T->kv.feat : T->fsolid, (size_t)(ns * T->f) * sizeof(float));
    memcpy(x + ns * T->f, T->halo_feat, (size_t)(T->n_halo * T->f) * sizeof(float));
    for (int l = 0; l < m->L; l++) {
        C.x = x;
        x = NULL;
        if ((st = gnn_layer_fwd(m, l, &b, &C, &key)))
            goto done;
        if (l < m->L - 1) {
            const int64_t w = m->layer[l].out;
            if (!(x = falloc(nl * w))) {
                st = GNN_ERR_NOMEM;
                goto done;
            }
            memcpy(x, C.y, (size_t)(ns * w) * sizeof(float));
            if ((st = gnn_ptrain_halo_exchange(T, C.y, w, x + ns * w))) {
                gnn_err_set(T->err, st, "evaluation: %s", gnn_comm_errmsg(T->comm));
                goto done;
            }
            gnn_lcache_free(&C);
        }
    }
    pred = gnn_malloc((size_t)(ns + 1) * sizeof(int32_t));
    vl = gnn_malloc((size_t)(ns + 1) * sizeof(int32_t));
    scratch = falloc(ns * classes);
    if (!pred || !vl || !scratch) {
        st = GNN_ERR_NOMEM;
        goto done;
    }
    gnn_argmax(C.y, ns, classes, pred);
    double s[8] = { 0 }; /* right[1..3], total[1..3] at 1..3 and 4..6; val loss sum at 7 */
    for (int64_t v = 0; v < ns; v++) {
        const int sp = T->in->split[v];
        vl[v] = sp == GNN_SPLIT_VAL ? T->in->labels[v] : -1;
        if (sp < 1 || sp > 3 || T->in->labels[v] < 0)
            continue;
        s[3 + sp] += 1.0;
        s[sp] += pred[v] == T->in->labels[v];
    }
    s[7] = ns > 0 ? gnn_softmax_xent_sum(C.y, ns, classes, vl, 1.0, scratch, NULL) : 0.0;
    if (T->P > 1 && (st = gnn_comm_allreduce(T->comm, s, s, 8, GNN_DT_F64))) {
        gnn_err_set(T->err, st, "evaluation: %s", gnn_comm_errmsg(T->comm));
        goto done;
    }
    for (int k = 1; k < 4; k++)
        acc[k] = s[3 + k] > 0 ? s[k] / s[3 + k] : 0.0;
    *val_loss = s[5] > 0 ? s[7] / s[5] : 0.0;
done:
    gnn_lcache_free(&C);
    gnn_block_free(&b);
    gnn_free(x);
    gnn_free(scratch);
    gnn_free(pred);
    gnn_free(vl);
    return st;
}
