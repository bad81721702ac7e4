/* ref/halo.c -- db_halo by DistGNN-MB Algorithm 1, literally (include/gnnref/halo.h).
 *
 * Plain C11, no threads: this file is the specification; opt/cpu/halo.c must build the same
 * table bit for bit. On rank p:
 *   1. the agreement step (gnn_db_halo_build, core/dist/halo.c, before this builder runs): every
 *      rank's n_halo, or an error on all ranks;
 *   2. @alg{DistGNN-MB 1, line 2} B <- Bcast(hv): every rank contributes the global ids
 *      (VID_o) of its halo vertices, in its halo order, with one allgatherv: B is the
 *      concatenation of all ranks' halo lists, rank r's at displs[r];
 *   3. @alg{DistGNN-MB 1, line 3} db_halo <- CreateDB(B): for every other rank r, scan r's
 *      list in order and keep the vertices p owns (vid_p[v] in [0, n_solid)), as p's local
 *      ids. r's halos are in increasing global id and p's solid local ids are numbered in
 *      increasing global id, so each row comes out increasing without sorting. */
#include "gnnref/halo.h"
#include "gnnref/tensor.h"

/* @alg{DistGNN-MB 1, lines 2-3}: B <- Bcast(hv), db_halo <- CreateDB(B).
 * Arguments agreed by gnn_db_halo_build; n_halo: every rank's n_halo (P entries). */
static gnn_status build_agreed(gnn_comm *c, const gnn_part_local *me, int64_t n_global, const int64_t *n_halo,
                               gnn_db_halo *out, gnn_err *err)
{
    const int P = gnn_comm_size(c);
    int64_t *displs = gnn_malloc(sizeof(int64_t) * (size_t)P), *B = NULL;
    if (!displs)
        return gnn_err_set(err, GNN_ERR_NOMEM, "db_halo: out of memory");
    gnn_status st;

    /* 2. B <- Bcast(hv) */
    int64_t total = 0;
    for (int r = 0; r < P; r++) {
        displs[r] = total;
        total += n_halo[r];
    }
    B = gnn_malloc(sizeof(int64_t) * (size_t)(total > 0 ? total : 1));
    if (!B) {
        st = gnn_err_set(err, GNN_ERR_NOMEM, "db_halo: out of memory (%lld halo ids)", (long long)total);
        goto fail;
    }
    const int64_t *hv = me->vid_o + me->n_solid; /* my halo vertices' global ids */
    if ((st = gnn_comm_allgatherv(c, hv, me->n_halo, B, n_halo, displs, GNN_DT_I64))) {
        gnn_err_set(err, st, "db_halo: Bcast(hv): %s", gnn_comm_errmsg(c));
        goto fail;
    }

    /* 3. CreateDB(B): two passes over B, count then fill */
    out->ranks = P;
    out->off = gnn_calloc((size_t)P + 1, sizeof(int64_t));
    if (!out->off) {
        st = gnn_err_set(err, GNN_ERR_NOMEM, "db_halo: out of memory");
        goto fail;
    }
    for (int r = 0; r < P; r++) {
        int64_t kept = 0;
        for (int64_t i = displs[r]; r != me->rank && i < displs[r] + n_halo[r]; i++) {
            const int64_t v = B[i];
            if (v < 0 || v >= n_global) {
                st = gnn_err_set(err, GNN_ERR_RANGE, "db_halo: rank %d sent halo id %lld outside [0, %lld)", r,
                                 (long long)v, (long long)n_global);
                goto fail;
            }
            const int64_t l = me->vid_p[v];
            if (l >= 0 && l < me->n_solid)
                kept++;
        }
        out->off[r + 1] = out->off[r] + kept;
    }
    out->solid = gnn_malloc(sizeof(int64_t) * (size_t)(out->off[P] > 0 ? out->off[P] : 1));
    if (!out->solid) {
        st = gnn_err_set(err, GNN_ERR_NOMEM, "db_halo: out of memory (%lld entries)", (long long)out->off[P]);
        goto fail;
    }
    for (int r = 0; r < P; r++) {
        int64_t *row = out->solid + out->off[r];
        for (int64_t i = displs[r]; r != me->rank && i < displs[r] + n_halo[r]; i++) {
            const int64_t l = me->vid_p[B[i]];
            if (l >= 0 && l < me->n_solid)
                *row++ = l;
        }
    }
    gnn_free(B);
    gnn_free(displs);
    return GNN_OK;
fail:
    gnn_free(B);
    gnn_free(displs);
    gnn_db_halo_free(out);
    return st;
}

const gnn_db_halo_ops gnn_db_halo_ref = { "ref", build_agreed };
