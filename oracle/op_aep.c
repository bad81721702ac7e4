/* oracle/op_aep.c -- oracle entry for the AEP push selection (include/gnnref/aep.h).
 *
 *   aep.select  every implementation against the reference (gnn_aep_ref), bitwise: the kept mask and
 *       its count. The keys are a pure function of (seed, step, layer, vertex, destination),
 *       and (key descending, global id ascending) is a strict total order, so the nc kept
 *       candidates are specified exactly.
 *
 * Inputs: m distinct global ids (a seeded shuffle of a spread range, so candidate order is not
 * id order), degrees uniform in [0, maxdeg] with a fraction `zero` of them 0 (weight 1), and
 * `ties`: a fraction of candidates given the degree of their neighbour (equal weights are the
 * common case for a real degree list); step, layer and destination rank from the case seed. */
#include <string.h>
#include "gnnref/aep.h"
#include "gnnref/oracle.h"
#include "gnnref/tensor.h"

static const gnn_oracle_impl k_aep_ref = { .name = "ref", .ops = &gnn_aep_ref, .flags = 0 };
static const gnn_oracle_impl k_aep_cpu = { .name = "cpu", .ops = &gnn_aep_cpu, .flags = GNN_ORACLE_THREADED };
static const gnn_oracle_impl *const k_aep_impls[] = { &k_aep_ref, &k_aep_cpu, NULL };

enum { P_M, P_NC, P_MAXDEG, P_ZERO, N_AEP_PARAMS };
static const gnn_oracle_param k_aep_params[N_AEP_PARAMS] = {
    { "m", GNN_PARAM_INT, 0, 1e7, "candidates (solid vertices of the batch that are halos on the destination)" },
    { "nc", GNN_PARAM_INT, 0, 1e7, "at most this many are pushed" },
    { "maxdeg", GNN_PARAM_INT, 0, 1e6, "degrees uniform in [0, maxdeg]" },
    { "zero", GNN_PARAM_REAL, 0, 1, "fraction of degree-0 candidates" },
};

/* nc above, equal to and below m; nc = 0 and 1; all degrees equal (maxdeg 0: every weight 1);
 * many zeros; a hub-free and a wide degree range; empty */
static const char *const k_aep_presets[] = {
    "m=100,nc=10,maxdeg=50,zero=0.1",
    "m=10,nc=10,maxdeg=5,zero=0",
    "m=7,nc=20,maxdeg=5,zero=0",
    "m=0,nc=5,maxdeg=5,zero=0",
    "m=50,nc=0,maxdeg=5,zero=0",
    "m=50,nc=1,maxdeg=5,zero=0",
    "m=1000,nc=999,maxdeg=3,zero=0.5",
    "m=1000,nc=100,maxdeg=0,zero=0",
    "m=5000,nc=256,maxdeg=100000,zero=0.01",
    "m=100000,nc=4096,maxdeg=1000,zero=0.2",
    NULL,
};

/* The case's candidates (vid, deg: m entries each) and arguments. */
static gnn_aep_select_args aep_inputs(const gnn_oracle_case *c, int64_t *vid, int64_t *deg)
{
    const int64_t m = gnn_oracle_int(c, P_M), maxdeg = gnn_oracle_int(c, P_MAXDEG);
    const double zero = gnn_oracle_real(c, P_ZERO);
    gnn_oracle_draws d = gnn_oracle_draws_make(c, 1);
    for (int64_t i = 0; i < m; i++)
        vid[i] = 3 * i + 1 + (int64_t)(c->seed % 3); /* distinct */
    for (int64_t i = m - 1; i > 0; i--) { /* Fisher-Yates: candidate order is not id order */
        const int64_t j = (int64_t)gnn_oracle_draw_uint(&d, (uint64_t)i + 1);
        const int64_t t = vid[i];
        vid[i] = vid[j];
        vid[j] = t;
    }
    for (int64_t i = 0; i < m; i++) {
        const int is_zero = (double)gnn_oracle_draw_float(&d) < zero;
        deg[i] = is_zero ? 0 : (int64_t)gnn_oracle_draw_uint(&d, (uint64_t)maxdeg + 1);
        if (i > 0 && gnn_oracle_draw_uint(&d, 4) == 0)
            deg[i] = deg[i - 1]; /* equal weights */
    }
    gnn_aep_select_args a = {
        .vid_o = vid, .deg = deg, .m = m, .nc = gnn_oracle_int(c, P_NC), .seed = c->seed * 0x9E3779B97F4A7C15ull + 17,
        .step = (uint32_t)gnn_oracle_draw_uint(&d, 1u << 20), .layer = (int)gnn_oracle_draw_uint(&d, 4),
        .dst_rank = (int)gnn_oracle_draw_uint(&d, 64),
    };
    return a;
}

static gnn_oracle_outcome aep_run(gnn_oracle_ctx *ctx, const gnn_oracle_case *c)
{
    const gnn_aep_ops *ref = c->entry->ref->ops, *impl = c->impl->ops;
    const int64_t m = gnn_oracle_int(c, P_M), nc = gnn_oracle_int(c, P_NC);
    int64_t *vid = gnn_oracle_alloc(ctx, (size_t)(m + 1) * sizeof(int64_t));
    int64_t *deg = gnn_oracle_alloc(ctx, (size_t)(m + 1) * sizeof(int64_t));
    uint8_t *want = gnn_oracle_alloc_out(ctx, "ref.keep", (size_t)m + 1);
    uint8_t *got = gnn_oracle_alloc_out(ctx, "impl.keep", (size_t)m + 1);
    if (!vid || !deg || !want || !got)
        return gnn_oracle_fail(ctx, "out of memory");
    const gnn_aep_select_args a = aep_inputs(c, vid, deg);
    gnn_err err = { "" };
    int64_t kw = -1, kg = -1;
    gnn_status s = gnn_aep_select(ref, &a, want, &kw, &err);
    if (s)
        return gnn_oracle_fail(ctx, "ref: %s (%s)", gnn_status_str(s), err.msg);
    s = gnn_aep_select(impl, &a, got, &kg, &err);
    if (s == GNN_ERR_UNSUPPORTED)
        return gnn_oracle_status(ctx, "impl", s);
    if (s)
        return gnn_oracle_fail(ctx, "impl: %s (%s)", gnn_status_str(s), err.msg);
    gnn_oracle_digest(ctx, got, (size_t)m);
    const int64_t expect = m < nc ? m : nc;
    if (kw != expect || kg != expect)
        return gnn_oracle_fail(ctx, "kept: ref %lld impl %lld, expected min(m, nc) = %lld", (long long)kw, (long long)kg,
                               (long long)expect);
    int64_t count = 0;
    for (int64_t i = 0; i < m; i++)
        count += got[i] != 0;
    if (count != expect)
        return gnn_oracle_fail(ctx, "impl marks %lld candidates, reports %lld", (long long)count, (long long)kg);
    for (int64_t i = 0; i < m; i++)
        if (want[i] != got[i])
            return gnn_oracle_fail(ctx, "keep[%lld] (vertex %lld, degree %lld): ref %d impl %d", (long long)i,
                                   (long long)vid[i], (long long)deg[i], want[i], got[i]);
    return GNN_ORACLE_PASS;
}

/* ---- benchmark hook: candidates per second ------------------------------------------------------ */

typedef struct aep_fixture {
    const gnn_aep_ops *ops;
    gnn_aep_select_args a;
    int64_t *vid, *deg;
    uint8_t *keep;
} aep_fixture;

static void aep_teardown(void *p)
{
    aep_fixture *f = p;
    if (!f)
        return;
    gnn_free(f->vid);
    gnn_free(f->deg);
    gnn_free(f->keep);
    gnn_free(f);
}

static gnn_status aep_setup(const gnn_oracle_case *c, void **fixture, gnn_oracle_work *work)
{
    aep_fixture *f = gnn_calloc(1, sizeof *f);
    if (!f)
        return GNN_ERR_NOMEM;
    const int64_t m = gnn_oracle_int(c, P_M);
    f->ops = c->impl->ops;
    f->vid = gnn_malloc((size_t)(m + 1) * sizeof(int64_t));
    f->deg = gnn_malloc((size_t)(m + 1) * sizeof(int64_t));
    f->keep = gnn_malloc((size_t)m + 1);
    if (!f->vid || !f->deg || !f->keep) {
        aep_teardown(f);
        return GNN_ERR_NOMEM;
    }
    f->a = aep_inputs(c, f->vid, f->deg);
    work->bytes = (double)m * 17.0; /* ids and degrees read, the mask written */
    work->flops = 0;
    work->items = (double)m;
    work->items_name = "candidates/s";
    *fixture = f;
    return GNN_OK;
}

static gnn_status aep_bench_run(void *p)
{
    aep_fixture *f = p;
    int64_t kept;
    return gnn_aep_select(f->ops, &f->a, f->keep, &kept, NULL);
}

/* a batch's candidates for one destination (DistGNN-MB pushes a few thousand per step) and a
 * large one */
static const char *const k_aep_bench_sizes[] = {
    "m=20000,nc=2048,maxdeg=1000,zero=0.01",
    "m=1000000,nc=65536,maxdeg=1000,zero=0.01",
    NULL,
};
static const gnn_oracle_bench k_aep_bench = { k_aep_bench_sizes, aep_setup, aep_bench_run, aep_teardown };

const gnn_oracle_entry gnn_oracle_aep_select = {
    .name = "aep.select",
    .what = "AEP push selection (DistGNN-MB Alg. 2 line 20): nc of m candidates, without replacement, by degree "
            "(Efraimidis-Spirakis keys from (seed, HEC_PUSH, step, layer, vertex, destination))",
    .tol = { GNN_CMP_BITWISE, 0, 0 },
    .reason = "the keys are a pure function and the order is strict: the kept set is exact",
    .params = k_aep_params, .n_params = N_AEP_PARAMS, .presets = k_aep_presets,
    .ref = &k_aep_ref, .impls = k_aep_impls, .run = aep_run, .bench = &k_aep_bench,
};
