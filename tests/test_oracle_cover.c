/* tests/test_oracle_cover.c -- the oracle's coverage rules, checked by walking the registry
 * (docs/oracle.md, "Coverage rules"). A rule names a class of bug the oracle must be able to see
 * wherever the class can occur; a new entry that falls under a rule without meeting it fails
 * here with the rule's name, not later as a survived mutant.
 *
 *   cuda_twins      every entry that runs a CPU table whose subsystem has a CUDA table lists
 *                   `cuda` and `cuda-emu` beside it (the emulator runs the kernels' bodies on
 *                   every machine), or is exempt below with its reason;
 *   inplace         every entry whose cases hand per-edge weights to sampler objects (which keep
 *                   caches keyed by the weights' version) has a preset that changes the weights
 *                   in place with a new version (`inplace=1`), or is exempt with its reason;
 *   grad_paths      every trainable path has a gradient check: every model kind (walked from
 *                   gnn_model_name) in both modes of grad.train, with LayerNorm, dropout and the
 *                   input rows; every option that changes what is differentiated (gat's variants
 *                   and attention dropout, rgcn's bases, CSR input, SuperGCN's full batch with
 *                   label propagation) in a preset; every kernel backward entry (`*.bwd`, spmm.dw)
 *                   with its grad.* entry;
 *   exemptions      every exemption names an entry that exists and that the rule would catch
 *                   (no stale exemption hides a later entry of the same name). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/aggregate.h"
#include "gnnref/idmap.h"
#include "gnnref/oracle.h"
#include "gnnref/quant.h"
#include "gnnref/sample.h"
#include "gnnref/train.h"
#include "opt/cpu/quant_paths.h" /* the cpu quant paths, each a table */

typedef struct exemption {
    const char *entry, *why;
} exemption;

/* ---- cuda_twins ------------------------------------------------------------------------------ */

/* The subsystems with a CUDA table (opt/cuda/, docs/cuda.md, docs/cuda_sampling.md): their
 * entries' names start with these, and these are their optimized CPU tables. */
static const char *const k_cuda_families[] = { "aggregate.", "quant.", "idmap.", "sample.", "block.", "dsample." };
static const void *const k_cpu_tables_with_twin[] = {
    &gnn_aggregate_cpu, &gnn_quant_cpu, &gnn_quant_cpu_avx2, &gnn_quant_cpu_sse2, &gnn_quant_cpu_scalar,
    &gnn_idmap_cpu,     &gnn_sampler_cpu,
};

static const exemption k_cuda_exempt[] = {
    { "sample.weighted", "its second implementation, ref-dispatch, is the reference sampler gnn_sampler_ref handing "
                         "weighted parameters on: no optimized table runs, and the CUDA sampler draws uniformly only" },
};

static int is_emulated(const gnn_oracle_impl *i) { return (i->flags & GNN_ORACLE_EMULATED) != 0; }

/* Does e run a CPU table of a subsystem that has a CUDA table? By its ops (a table itself), or
 * by its name's family with an implementation that is neither its reference nor a CUDA one. */
static int runs_cpu_twin(const gnn_oracle_entry *e)
{
    int family = 0, other = 0;
    for (size_t f = 0; f < sizeof k_cuda_families / sizeof k_cuda_families[0]; f++)
        family |= !strncmp(e->name, k_cuda_families[f], strlen(k_cuda_families[f]));
    for (const gnn_oracle_impl *const *ip = e->impls; *ip; ip++) {
        const gnn_oracle_impl *i = *ip;
        for (size_t t = 0; t < sizeof k_cpu_tables_with_twin / sizeof k_cpu_tables_with_twin[0]; t++)
            if (i->ops == k_cpu_tables_with_twin[t])
                return 1;
        other |= i != e->ref && strcmp(i->name, "ref") && strcmp(i->name, "cuda") && !is_emulated(i);
    }
    return family && other;
}

static const char *exempt_why(const exemption *list, size_t n, const char *entry)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(list[i].entry, entry))
            return list[i].why;
    return NULL;
}

START_TEST(cuda_twins)
{
    int n = 0;
    for (const gnn_oracle_entry *const *ep = gnn_oracle_registry; *ep; ep++) {
        const gnn_oracle_entry *e = *ep;
        if (!runs_cpu_twin(e) || exempt_why(k_cuda_exempt, sizeof k_cuda_exempt / sizeof k_cuda_exempt[0], e->name))
            continue;
        const gnn_oracle_impl *emu = gnn_oracle_find_impl(e, "cuda-emu"), *gpu = gnn_oracle_find_impl(e, "cuda");
        ck_assert_msg(emu && is_emulated(emu),
                      "%s runs a CPU table whose subsystem has a CUDA table, but lists no cuda-emu (flag "
                      "GNN_ORACLE_EMULATED): run the CUDA kernels' bodies on every case the CPU twin runs, or exempt "
                      "it in tests/test_oracle_cover.c with the reason (docs/oracle.md, \"Coverage rules\")",
                      e->name);
        ck_assert_msg(gpu && !is_emulated(gpu), "%s lists cuda-emu but not cuda (the device that runs them)", e->name);
        n++;
    }
    ck_assert_int_ge(n, 20); /* aggregate.*, quant.*, idmap.*, the samplers, sample.typed, dsample.blocks */
}
END_TEST

/* ---- inplace --------------------------------------------------------------------------------- */

static const exemption k_inplace_exempt[] = {
    { "sample.blocks.layers", "it compares an object's blocks with the same object's single layers: an in-place "
                              "change would compare a cache with itself; sample.layer and sample.blocks change the "
                              "weights of the same tables in place against the reference" },
    { "dsample.blocks", "gnn_dsampler_create takes the local weights for the sampler's life (dsample.h: they must "
                        "not change while it lives); its ranks' samplers are the tables sample.layer checks" },
    { "sample.weighted", "its implementations are the reference's two steps as sampler objects, which keep nothing "
                         "between calls: an in-place change has no cache to invalidate (sample.layer checks the "
                         "cached tables)" },
    { "sample.weighted.dist", "its one implementation is the reference's two steps as a sampler object, which keeps "
                              "nothing between calls (sample.layer checks the cached tables)" },
};

static int param_index(const gnn_oracle_entry *e, const char *name)
{
    for (int i = 0; i < e->n_params; i++)
        if (!strcmp(e->params[i].name, name))
            return i;
    return -1;
}

/* An entry whose cases pass weights to a sampler: a `weighted` or `zeros` parameter. */
static int takes_weights(const gnn_oracle_entry *e)
{
    return !strncmp(e->name, "sample.", 7) || !strncmp(e->name, "dsample.", 8)
               ? param_index(e, "weighted") >= 0 || param_index(e, "zeros") >= 0
               : 0;
}

START_TEST(inplace)
{
    int n = 0;
    for (const gnn_oracle_entry *const *ep = gnn_oracle_registry; *ep; ep++) {
        const gnn_oracle_entry *e = *ep;
        if (!takes_weights(e) ||
            exempt_why(k_inplace_exempt, sizeof k_inplace_exempt / sizeof k_inplace_exempt[0], e->name))
            continue;
        const int iw = param_index(e, "weighted"), ii = param_index(e, "inplace");
        ck_assert_msg(iw >= 0 && ii >= 0,
                      "%s hands per-edge weights to sampler objects but has no `inplace` parameter: change them in "
                      "place with a new weights_version between two calls (gnn_oracle_weights_rewrite), or exempt it "
                      "in tests/test_oracle_cover.c with the reason (docs/oracle.md, \"Coverage rules\")",
                      e->name);
        int presets = 0;
        for (const char *const *p = e->presets; *p; p++) {
            gnn_oracle_case c;
            gnn_err err = { "" };
            ck_assert_msg(gnn_oracle_case_init(&c, e, e->ref, 0, *p, 1, &err) == GNN_OK, "%s: %s", e->name, err.msg);
            presets += gnn_oracle_int(&c, iw) && gnn_oracle_int(&c, ii);
        }
        ck_assert_msg(presets > 0, "%s: no preset with weighted=1 and inplace=1", e->name);
        n++;
    }
    ck_assert_int_ge(n, 5); /* sample.layer, .blocks and their .fusedmap, sample.typed */
}
END_TEST

/* ---- grad_paths ------------------------------------------------------------------------------- */

/* Does a preset of entry `entry` meet every condition of `want` ("model=2,variant=1,adrop>0":
 * name=value, or name>value)? */
static int has_preset(const char *entry, const char *want)
{
    const gnn_oracle_entry *e = gnn_oracle_find(entry);
    ck_assert_msg(e, "no entry %s", entry);
    for (const char *const *p = e->presets; *p; p++) {
        gnn_oracle_case c;
        gnn_err err = { "" };
        ck_assert_msg(gnn_oracle_case_init(&c, e, e->ref, 0, *p, 1, &err) == GNN_OK, "%s: %s", entry, err.msg);
        int ok = 1;
        char buf[256];
        snprintf(buf, sizeof buf, "%s", want);
        for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && ok; t = strtok_r(NULL, ",", &save)) {
            char *op = strpbrk(t, "=>");
            ck_assert_msg(op, "condition '%s'", t);
            const char kind = *op;
            *op = 0;
            const int i = param_index(e, t);
            ck_assert_msg(i >= 0, "%s has no parameter %s", entry, t);
            const double v = e->params[i].type == GNN_PARAM_REAL ? gnn_oracle_real(&c, i) : (double)gnn_oracle_int(&c, i);
            const double x = atof(op + 1);
            ok = kind == '=' ? v == x : v > x;
        }
        if (ok)
            return 1;
    }
    return 0;
}

/* The paths, each a preset a grad entry must have (beyond the per-model ones below). */
static const struct {
    const char *path, *entry, *preset;
} k_grad_paths[] = {
    { "gat, Velickovic's variant", "grad.train", "model=2,variant=0" },
    { "gat, DistGNN-MB's variant (Eq. 2: ReLU before the attention)", "grad.train", "model=2,variant=1" },
    { "gat, attention dropout", "grad.train", "model=2,adrop>0" },
    { "gat, several heads", "grad.train", "model=2,heads>1" },
    { "rgcn, a weight per relation", "grad.train", "model=4,bases=0" },
    { "rgcn, bases", "grad.train", "model=4,bases>0" },
    { "gcn, CSR input features (layer 0 multiplies first)", "grad.train", "model=1,sparse=1" },
    { "gat, CSR input features", "grad.train", "model=2,sparse=1" },
    { "learnable input rows (--embed-dim's embeddings)", "grad.train", "inputs=1" },
    { "three layers (a middle layer's chain)", "grad.train", "layers=3" },
    { "full batch on partitions, sage", "grad.fullbatch", "model=0,ranks>1" },
    { "full batch on partitions, gcn", "grad.fullbatch", "model=1,ranks>1" },
    { "full batch on partitions, gin", "grad.fullbatch", "model=3,ranks>1" },
    { "label propagation on one rank", "grad.fullbatch", "lp>0,ranks=1" },
    { "label propagation across ranks", "grad.fullbatch", "lp>0,ranks>1" },
    { "label propagation with LayerNorm and dropout", "grad.fullbatch", "lp>0,ln=1,drop>0" },
};

/* Paths checked by composition instead of a probe of their own, with the reason. */
static const char *const k_grad_composed[] = {
    "training on partitions (--remote drop, hec, fetch; gnn_train_part): on one rank train.part.single proves each "
    "mode's losses and weights bitwise gnn_train's, whose gradient grad.train checks; across ranks the halo rows are "
    "inputs (the HEC's cached embeddings, fetched features) through which no gradient flows (docs/hec.md)",
    "quantized exchanges (--comm-bits 2/4/8): not differentiable; the backward passes the rows straight through "
    "(docs/quant.md), and grad.fullbatch checks the fp32 path the quantizer wraps",
};

/* The kernels' backward entries and their finite-difference entries, where the name is not
 * grad.<family> of <family>.bwd. */
static const struct {
    const char *bwd, *grad;
} k_bwd_grad[] = {
    { "gat.bwd.dattn", "grad.gat" },
    { "spmm.dw", "grad.train" },       /* the CSR input layer's weight gradient: sparse=1 presets */
    { "distagg.bwd", "grad.fullbatch" }, /* SuperGCN's distributed aggregation, under its trainer */
    /* the fma kernel's backward: dense.bwd holds every path bitwise to fma-ref, and grad.linear
     * runs fma-ref against central differences */
    { "dense.bwd", "grad.linear" },
    { "update.fma.bwd", "grad.update" }, /* the same: update.fma.bwd to fma-ref, grad.update runs fma-ref */
};

START_TEST(grad_paths)
{
    int models = 0;
    for (int m = 0; strcmp(gnn_model_name((gnn_model_kind)m), "?"); m++, models++) {
        char want[96];
        const char *name = gnn_model_name((gnn_model_kind)m);
        static const char *const k_per_model[] = { "mode=0", "mode=1", "ln=1", "drop>0" };
        for (size_t i = 0; i < sizeof k_per_model / sizeof k_per_model[0]; i++) {
            snprintf(want, sizeof want, "model=%d,%s", m, k_per_model[i]);
            ck_assert_msg(has_preset("grad.train", want),
                          "model %s has no gradient check with %s: add a grad.train preset (docs/oracle.md, "
                          "\"Coverage rules\")",
                          name, k_per_model[i]);
        }
    }
    ck_assert_int_ge(models, 5);
    for (size_t i = 0; i < sizeof k_grad_paths / sizeof k_grad_paths[0]; i++)
        ck_assert_msg(has_preset(k_grad_paths[i].entry, k_grad_paths[i].preset),
                      "trainable path \"%s\": no %s preset with %s", k_grad_paths[i].path, k_grad_paths[i].entry,
                      k_grad_paths[i].preset);
    for (size_t i = 0; i < sizeof k_grad_composed / sizeof k_grad_composed[0]; i++)
        ck_assert(strlen(k_grad_composed[i]) > 40);
    ck_assert_ptr_nonnull(gnn_oracle_find("train.part.single"));
    /* every kernel backward: its finite-difference entry */
    for (const gnn_oracle_entry *const *ep = gnn_oracle_registry; *ep; ep++) {
        const char *n = (*ep)->name, *b = strstr(n, ".bwd");
        const char *grad = NULL;
        for (size_t i = 0; i < sizeof k_bwd_grad / sizeof k_bwd_grad[0]; i++)
            if (!strcmp(k_bwd_grad[i].bwd, n))
                grad = k_bwd_grad[i].grad;
        if (!grad && !b)
            continue;
        char fam[96];
        if (!grad) {
            snprintf(fam, sizeof fam, "grad.%.*s", (int)(b - n), n);
            grad = fam;
        }
        ck_assert_msg(gnn_oracle_find(grad), "%s: a backward with no finite-difference entry (%s)", n, grad);
    }
}
END_TEST

/* ---- exemptions ------------------------------------------------------------------------------ */

START_TEST(exemptions)
{
    for (size_t i = 0; i < sizeof k_cuda_exempt / sizeof k_cuda_exempt[0]; i++) {
        const gnn_oracle_entry *e = gnn_oracle_find(k_cuda_exempt[i].entry);
        ck_assert_msg(e && runs_cpu_twin(e), "cuda exemption %s: no such entry, or the rule does not catch it",
                      k_cuda_exempt[i].entry);
    }
    for (size_t i = 0; i < sizeof k_inplace_exempt / sizeof k_inplace_exempt[0]; i++) {
        const gnn_oracle_entry *e = gnn_oracle_find(k_inplace_exempt[i].entry);
        ck_assert_msg(e && takes_weights(e), "inplace exemption %s: no such entry, or the rule does not catch it",
                      k_inplace_exempt[i].entry);
    }
}
END_TEST

Suite *suite_oracle_cover(void)
{
    Suite *s = suite_create("oracle_cover");
    TCase *tc = tcase_create("rules");
    tcase_add_test(tc, cuda_twins);
    tcase_add_test(tc, inplace);
    tcase_add_test(tc, grad_paths);
    tcase_add_test(tc, exemptions);
    suite_add_tcase(s, tc);
    return s;
}
