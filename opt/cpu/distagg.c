/* opt/cpu/distagg.c -- distributed aggregation with OpenMP (include/gnnref/distagg.h,
 * docs/distagg.md): the reference's forward and backward (ref/distagg_body.h, the one body
 * both include) with its loops over rows shared among threads.
 *
 * What changed from ref, and why the bits still match:
 *  - the send rows (pre sums, post copies), the local aggregation and the post-aggregation are
 *    each a parallel loop over rows (GNN_DISTAGG_ROWS; dynamic chunks: hub rows do not stall
 *    one thread); every output row is still one sum computed by one thread in the header's
 *    order, from 0.0f;
 *  - the feature loop is vectorized (GNN_DISTAGG_SIMD, omp simd): lanes are different
 *    features, never a split of one sum; -ffp-contract=off keeps each product rounded before
 *    its add;
 *  - quantization runs through gnn_quant_cpu, bitwise equal to gnn_quant_ref (oracle
 *    quant.pack): the body takes the table as a parameter;
 *  - setup is the reference's (gnn_distagg_setup_ref): it runs once per run.
 * The exchange (pack, ialltoallv, wait, unpack) is core/dist/distagg_xchg.c's, as the
 * reference's, so the local work still overlaps the messages (Fig. 1 step 5). */
#define GNN_DISTAGG_ROWS _Pragma("omp parallel for schedule(dynamic, 64)")
#define GNN_DISTAGG_SIMD _Pragma("omp simd")
#include "ref/distagg_body.h"

static gnn_status distagg_forward_cpu(gnn_comm *c, const gnn_distagg *da, const float *x, int64_t d,
                                      gnn_agg_kind kind, const gnn_quant_cfg *q, float *out)
{
    return distagg_forward(&gnn_quant_cpu, c, da, x, d, kind, q, out);
}

static gnn_status distagg_backward_cpu(gnn_comm *c, const gnn_distagg *da, const float *dout, int64_t d,
                                       gnn_agg_kind kind, const gnn_quant_cfg *q, float *dx)
{
    return distagg_backward(&gnn_quant_cpu, c, da, dout, d, kind, q, dx);
}

const gnn_distagg_ops gnn_distagg_cpu = {
    .name = "cpu",
    .caps = GNN_CAP_DETERMINISTIC | GNN_CAP_THREADED,
    .setup = gnn_distagg_setup_ref, /* once per run: the reference's lists */
    .forward = distagg_forward_cpu,
    .backward = distagg_backward_cpu,
};
