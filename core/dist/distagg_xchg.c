/* core/dist/distagg_xchg.c -- the exchange of distributed aggregation (include/gnnref/distagg.h,
 * docs/distagg.md): pack (quantize or copy) the rows into one message per peer and post it,
 * then wait, check the segments against the plan and unpack. Every implementation's forward and
 * backward (ref/distagg.c, opt/cpu/distagg.c) call these two around its overlapped local work;
 * they were in ref/distagg.c, which made core/ and ref/ call each other (issue 35 item 3). */
#include <string.h>
#include <time.h>
#include "gnnref/distagg.h"
#include "gnnref/tensor.h"
#include "core/base/clock.h"

/* @sec{SuperGCN 2} ("Quantization of communication to Int2"), Fig. 1 step 5: pack the rows
 * (quantize, or copy fp32) into one message per peer and post it */
gnn_status gnn_distagg_xchg_post(gnn_comm *c, const gnn_distagg *da, const gnn_quant_ops *quant, gnn_distagg_rows send,
                                 const float *rows, int64_t d, const gnn_quant_cfg *q, unsigned dir,
                                 gnn_distagg_xchg *x)
{
    const int64_t k = da->k;
    const double t0 = da->times ? gnn_now_s() : 0.0;
    memset(x, 0, sizeof *x);
    x->bits = q ? q->bits : 32;
    x->row_bytes = gnn_quant_row_bytes(d, x->bits);
    const int64_t db = gnn_quant_data_bytes(d, x->bits), n = send.off[k];
    x->sbuf = gnn_malloc((size_t)(n * x->row_bytes) + 1);
    x->scounts = gnn_malloc_array((size_t)k, sizeof(int64_t));
    x->sdispls = gnn_malloc_array((size_t)k, sizeof(int64_t));
    gnn_status st = !x->sbuf || !x->scounts || !x->sdispls ? GNN_ERR_NOMEM : GNN_OK;
    for (int64_t p = 0; p < k && !st; p++) {
        const int64_t b = send.off[p], nq = send.off[p + 1] - b, np = send.npost[p];
        uint8_t *msg = x->sbuf + b * x->row_bytes;
        x->scounts[p] = nq * x->row_bytes;
        x->sdispls[p] = b * x->row_bytes;
        if (nq == 0)
            continue;
        if (x->bits == 32) {
            memcpy(msg, rows + b * d, (size_t)(nq * d) * sizeof(float));
            continue;
        }
        /* codes of every row in row order, then every row's parameters: post rows first */
        gnn_quant_cfg cfg = *q;
        cfg.dir = dir;
        cfg.draw0 = gnn_quant_draw0(0, k, da->rank, p, d);
        st = gnn_quant_pack(quant, rows + b * d, np, d, send.gid + b, &cfg, msg, msg + nq * db);
        cfg.draw0 = gnn_quant_draw0(1, k, da->rank, p, d);
        if (!st)
            st = gnn_quant_pack(quant, rows + (b + np) * d, nq - np, d, send.gid + b + np, &cfg, msg + np * db,
                                msg + nq * db + np * GNN_QUANT_PARAM_BYTES);
    }
    if (!st)
        st = gnn_comm_ialltoallv(c, x->sbuf, x->scounts, x->sdispls, GNN_DT_U8, da->tag, &x->req);
    if (st) {
        gnn_free(x->sbuf), gnn_free(x->scounts), gnn_free(x->sdispls);
        memset(x, 0, sizeof *x);
    } else if (da->times) {
        x->posted_s = gnn_now_s();
        da->times->post_s += x->posted_s - t0;
    }
    return st;
}

/* Fig. 1 step 5, after the overlapped local work: wait, check, unpack (dequantize) */
gnn_status gnn_distagg_xchg_finish(gnn_comm *c, const gnn_distagg *da, const gnn_quant_ops *quant,
                                   gnn_distagg_rows recv, int64_t d, gnn_distagg_xchg *x, float *rows)
{
    const gnn_comm_seg *segs = NULL;
    int n_segs = 0;
    const int64_t k = da->k, db = gnn_quant_data_bytes(d, x->bits);
    const double t0 = da->times ? gnn_now_s() : 0.0;
    gnn_status st = gnn_comm_wait(c, x->req, &segs, &n_segs);
    if (da->times) {
        const double t1 = gnn_now_s();
        da->times->local_s += t0 - x->posted_s;
        da->times->wait_s += t1 - t0;
        da->times->calls++;
    }
    int64_t got = 0;
    for (int i = 0; i < n_segs && !st; i++) {
        const int64_t src = segs[i].src, b = recv.off[src], nq = recv.off[src + 1] - b;
        if (i > 0 && (segs[i].src <= segs[i - 1].src || segs[i].step != segs[0].step)) {
            /* one segment per sender, all of this exchange (a delayed one from an earlier step) */
            st = gnn_err_set(&c->err, GNN_ERR_COMM, "distagg: a second segment from rank %lld, or one of another step "
                             "(%lld, not %lld)", (long long)src, (long long)segs[i].step, (long long)segs[0].step);
            break;
        }
        if (segs[i].count != nq * x->row_bytes) {
            st = gnn_err_set(&c->err, GNN_ERR_COMM,
                             "distagg: rank %lld sent %lld bytes, the plan gives %lld rows x %lld",
                             (long long)src, (long long)segs[i].count, (long long)nq, (long long)x->row_bytes);
            break;
        }
        got += nq;
        if (nq == 0)
            continue;
        const uint8_t *msg = segs[i].data;
        if (x->bits == 32)
            memcpy(rows + b * d, msg, (size_t)(nq * d) * sizeof(float));
        else
            st = gnn_quant_unpack(quant, msg, msg + nq * db, nq, d, x->bits, rows + b * d);
    }
    if (!st && got != recv.off[k])
        st = gnn_err_set(&c->err, GNN_ERR_COMM, "distagg: received %lld of the %lld rows the plan gives (a segment is "
                         "missing)", (long long)got, (long long)recv.off[k]);
    if (x->req)
        gnn_comm_req_free(c, x->req);
    gnn_free(x->sbuf), gnn_free(x->scounts), gnn_free(x->sdispls);
    memset(x, 0, sizeof *x);
    return st;
}
