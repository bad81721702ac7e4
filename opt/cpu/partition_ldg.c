/* opt/cpu/partition_ldg.c -- the ldg part vector with OpenMP, bit for bit ref/partition_ldg.c
 * (include/gnnref/partition.h, docs/partitioning.md section 2.5).
 *
 * What changed from the reference, and why the bits still match:
 *   - a batch's neighbor counts (the reads of part[] at random places, the work that grows with
 *     the edges) run in parallel, one vertex per iteration, into that vertex's own slice of a
 *     pairs buffer: they read only the parts of earlier batches, which no thread writes during
 *     the batch, so the counts do not depend on the schedule;
 *   - the choices stay serial and in id order (each changes the loads the next one sees), with
 *     the same gnn_ldg_choose over the same counts: the order it applies is total, so the order
 *     the pairs were found in does not matter;
 *   - the least filled part comes from a binary heap ordered by (fill, index), O(log K) per
 *     vertex instead of the reference's O(K) scan, with one balance column (the usual case):
 *     there the part a vertex fills least is the least filled part, the heap's top, because that
 *     order is total too and each fill is computed by the same gnn_ldg_fill. With several
 *     columns the answer depends on the vertex's weights, and the reference's scan runs.
 * oracle-stress: partition.ldg (its stress point: random chunks for the batch's counting loop) */
#include <string.h>
#include "gnnref/partition.h"
#include "gnnref/tensor.h"
#include "opt/cpu/omp_compat.h"
#include "opt/cpu/omp_stress.h"
#include "ref/partition_ldg_impl.h"

/* The parts in a heap on (fill, index): heap[0] is the least filled, lower index first. */
typedef struct fill_heap {
    int64_t k;
    int64_t *heap; /* (k) parts */
    int64_t *pos;  /* (k) where part i sits in heap */
    double *fill;  /* (k) fill(i), as gnn_ldg_fill computes it */
} fill_heap;

static int heap_less(const fill_heap *h, int64_t a, int64_t b)
{
    return h->fill[a] < h->fill[b] || (h->fill[a] == h->fill[b] && a < b);
}

/* Part i's fill only grew: move it down to its place. */
static void heap_sift_down(fill_heap *h, int64_t i)
{
    int64_t at = h->pos[i];
    for (;;) {
        const int64_t l = 2 * at + 1, r = l + 1;
        int64_t m = at;
        if (l < h->k && heap_less(h, h->heap[l], h->heap[m]))
            m = l;
        if (r < h->k && heap_less(h, h->heap[r], h->heap[m]))
            m = r;
        if (m == at)
            return;
        const int64_t t = h->heap[m];
        h->heap[m] = h->heap[at];
        h->heap[at] = t;
        h->pos[h->heap[at]] = at;
        h->pos[h->heap[m]] = m;
        at = m;
    }
}

/* Phase 1 of a batch [b0, b0 + nb): vertex b0 + j's (part, count) pairs for its sources in
 * earlier batches at pp[off[j] ..], pc[off[j] ..], m[j] of them; tcnt: (threads x k) zeros, left
 * zero. */
static void count_batch(const gnn_csr *g, const int32_t *part, int64_t b0, int64_t nb, int64_t k, const int64_t *off,
                        int64_t *pp, int64_t *pc, int64_t *m, int64_t *tcnt)
{
#pragma omp parallel if (nb >= 64)
    {
        int64_t *cnt = tcnt + (int64_t)gnn_omp_thread_num() * k;
#pragma omp for schedule(dynamic, gnn_omp_chunk(32))
        for (int64_t j = 0; j < nb; j++) {
            GNN_OMP_STRESS_POINT();
            const int64_t v = b0 + j;
            int64_t *vp = pp + off[j], *vc = pc + off[j], mm = 0;
            for (int64_t e = g->indptr[v]; e < g->indptr[v + 1]; e++) {
                const int64_t u = g->indices[e];
                if (u < b0 && cnt[part[u]]++ == 0)
                    vp[mm++] = part[u];
            }
            for (int64_t x = 0; x < mm; x++) {
                vc[x] = cnt[vp[x]];
                cnt[vp[x]] = 0;
            }
            m[j] = mm;
        }
    }
}

/* Phase 2: the batch's choices, serially in id order (the reference's step 2 and 3). */
static void choose_batch(gnn_ldg *s, fill_heap *h, const int64_t *vwgt, int32_t *part, int64_t b0, int64_t nb,
                         const int64_t *off, const int64_t *pp, const int64_t *pc, const int64_t *m, int64_t *cnt)
{
    const int ncon = s->ncon;
    for (int64_t j = 0; j < nb; j++) {
        const int64_t v = b0 + j, *vp = pp + off[j], *vc = pc + off[j];
        for (int64_t x = 0; x < m[j]; x++)
            cnt[vp[x]] = vc[x];
        const int64_t *w = vwgt + v * ncon;
        /* with one column the fallback is the least filled part, the heap's top; with more it
         * depends on w: the reference's scan */
        const int64_t least = ncon == 1 ? h->heap[0] : gnn_ldg_least(s, w);
        const int64_t i = gnn_ldg_choose(s, vp, m[j], cnt, w, least);
        for (int64_t x = 0; x < m[j]; x++)
            cnt[vp[x]] = 0;
        part[v] = (int32_t)i;
        gnn_ldg_commit(s, i, w);
        h->fill[i] = gnn_ldg_fill(s, i);
        heap_sift_down(h, i);
    }
}

gnn_status gnn_partition_ldg_cpu(const gnn_csr *g, const int64_t *vwgt, int ncon, int64_t k, int ufactor, int32_t *part)
{
    const int64_t T = gnn_omp_max_threads(), B = GNN_LDG_BATCH;
    gnn_ldg s = { 0 };
    fill_heap h = { .k = k };
    int64_t cap = 0; /* pairs the buffers hold: the largest batch's entries so far */
    int64_t *pp = NULL, *pc = NULL;
    int64_t *off = gnn_malloc((size_t)(B + 1) * sizeof(int64_t)), *m = gnn_malloc((size_t)B * sizeof(int64_t));
    int64_t *tcnt = gnn_malloc((size_t)(T * k + k) * sizeof(int64_t)); /* T threads' counts, then the serial one */
    h.heap = gnn_malloc((size_t)k * sizeof(int64_t));
    h.pos = gnn_malloc((size_t)k * sizeof(int64_t));
    h.fill = gnn_malloc((size_t)k * sizeof(double));
    gnn_status st = GNN_ERR_NOMEM;
    if (!off || !m || !tcnt || !h.heap || !h.pos || !h.fill || gnn_ldg_init(&s, vwgt, g->n, ncon, k, ufactor))
        goto done;
    memset(tcnt, 0, (size_t)(T * k + k) * sizeof(int64_t));
    for (int64_t i = 0; i < k; i++) { /* every fill 0: index order is a heap */
        h.heap[i] = h.pos[i] = i;
        h.fill[i] = 0.0;
    }
    for (int64_t b0 = 0; b0 < g->n; b0 += B) {
        const int64_t nb = b0 + B < g->n ? B : g->n - b0;
        off[0] = 0;
        for (int64_t j = 0; j < nb; j++)
            off[j + 1] = off[j] + (g->indptr[b0 + j + 1] - g->indptr[b0 + j]);
        if (off[nb] > cap) {
            gnn_free(pp);
            gnn_free(pc);
            cap = off[nb];
            pp = gnn_malloc((size_t)cap * sizeof(int64_t));
            pc = gnn_malloc((size_t)cap * sizeof(int64_t));
            if (!pp || !pc)
                goto done;
        }
        count_batch(g, part, b0, nb, k, off, pp, pc, m, tcnt);
        choose_batch(&s, &h, vwgt, part, b0, nb, off, pp, pc, m, tcnt + T * k);
    }
    st = GNN_OK;
done:
    gnn_ldg_free(&s);
    gnn_free(pp);
    gnn_free(pc);
    gnn_free(off);
    gnn_free(m);
    gnn_free(tcnt);
    gnn_free(h.heap);
    gnn_free(h.pos);
    gnn_free(h.fill);
    return st;
}
