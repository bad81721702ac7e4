/* cli/cmd_commplan.c -- `gnnref commplan --data DATA --parts K [--method ...]`: SuperGCN's
 * communication plans (include/gnnref/commplan.h, docs/commplan.md): for every ordered rank pair
 * the rows one layer's exchange sends under pre-, post-, hybrid (minimum vertex cover) and the
 * degree heuristic, and the bytes per layer width in fp32 and int8/4/2. The part vector comes
 * from a partitioner (--part-method), a saved set (--partitions DIR) or a METIS-style .part file
 * (--read-part FILE). Thin: the library does the work. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/parts.h"
#include "gnnref/commplan.h"
#include "gnnref/dataset.h"
#include "gnnref/impl.h"
#include "gnnref/partfile.h"
#include "gnnref/partition.h"
#include "gnnref/quant.h"
#include "gnnref/tensor.h"
#include "core/base/cmp.h"

#define MAX_WIDTHS 8
/* The most parts: --parts' bound, and K's when it comes from a .part file's largest id */
#define MAX_PARTS 65536
#define PLAN_ALL GNN_PLAN_COUNT

static const int k_bits[] = { 32, 8, 4, 2 };
#define N_BITS 4

typedef struct commplan_opts {
    const char *data, *json, *parts_dir, *read_part;
    gnn_part_options po; /* k, method (--part-method), seed */
    int method;          /* gnn_plan_kind, or PLAN_ALL */
    int64_t widths[MAX_WIDTHS];
    int n_widths;
    int show_rows; /* --rows */
    const gnn_impl *impl;
    int64_t threads;
} commplan_opts;

static const cli_choice k_plans[] = {
    { "all", PLAN_ALL, 0 },        { "pre", GNN_PLAN_PRE, 0 },       { "post", GNN_PLAN_POST, 0 },
    { "hybrid", GNN_PLAN_HYBRID, 0 }, { "degree", GNN_PLAN_DEGREE, 0 }, { NULL, 0, 0 }
};

static const cli_flag k_flags[] = {
    CLI_FLAG_DATA(commplan_opts, data, CLI_REQUIRED, CLI_DATA_HELP),
    { .name = "parts", .type = CLI_INT, CLI_AT(commplan_opts, po.k), .meta = "K", .lo = 1, .hi = MAX_PARTS,
      .dflt = "2; the set's with --partitions, the largest id + 1 with --read-part",
      .help = "ranks (parts); with --partitions it must match the set, with --read-part bound the ids (without it, "
              "K is the file's largest id + 1, at most 65536 too)" },
    { .name = "method", .type = CLI_CHOICE, CLI_AT(commplan_opts, method), .choices = k_plans,
      .help = "the plan: pre (one partial sum per remote destination, DistGNN), post (one raw row per remote "
              "source, BNS-GCN), hybrid (a minimum vertex cover of each pair's cut edges, SuperGCN), degree (the "
              "public SuperGCN code's older rule: post when outdeg(u) > indeg(v)), or all four side by side" },
    { .name = "widths", .type = CLI_INTS, CLI_AT(commplan_opts, widths), .meta = "F1,F2,...", .lo = 0,
      .hi = 1 << 20, .max = MAX_WIDTHS, .count_off = offsetof(commplan_opts, n_widths),
      .dflt = "the data's feature width (128 when it has none)",
      .help = "row widths (one per layer) whose bytes are reported" },
    { .name = "partitions", .type = CLI_STR, CLI_AT(commplan_opts, parts_dir), .meta = "DIR",
      .help = "take the part vector from a saved partition set (gnnref partition -o DIR), checked against DATA" },
    { .name = "read-part", .type = CLI_STR, CLI_AT(commplan_opts, read_part), .meta = "FILE",
      .help = "take the part vector from a METIS-style .part file (one part id in [0, K) per line, in vertex "
              "order, as gpmetis writes it)" },
    { .name = "part-method", .type = CLI_CHOICE, CLI_AT(commplan_opts, po.method), .choices = cli_part_methods,
      .help = "how to partition when neither --partitions nor --read-part is given (gnnref partition --method)" },
    { .name = "rows", .type = CLI_BOOL, CLI_AT(commplan_opts, show_rows),
      .help = "also list every pair's rows under each plan: the post sources and the pre destinations (global ids), "
              "and in the report each plan's \"lists\"; for small graphs" },
    CLI_FLAG_SEED(commplan_opts, po.seed, "seed of the partitioner (METIS_OPTION_SEED, random)"),
    CLI_FLAG_IMPL(commplan_opts, impl, "the implementation context whose plan builder runs (the same plan either way)"),
    CLI_FLAG_THREADS(commplan_opts, threads, "OpenMP threads of the plan builder"),
    CLI_FLAG_JSON(commplan_opts, json, "write the report: per pair and per plan the rows, the totals, and the bytes "
                                       "per width and bit width, with the common keys"),
    CLI_END
};

static const cli_group k_groups[] = { { k_flags, 0, NULL }, { NULL, 0, NULL } };

static const cli_command k_cmd = {
    .name = "commplan",
    .usage = "[DATA] --parts K [flags]",
    .preface = "For every ordered rank pair (i -> j) with cut edges u -> v (u owned by i, v by j), those edges and\n"
               "the rows one layer's exchange sends i -> j under each plan (SuperGCN section 2, docs/commplan.md).\n"
               "Pairs without cut edges are neither stored nor listed: K may be 65536 with a small cut.\n",
    .epilogue = "Columns: cut = distinct cut edges (the volume with no conversion, one row per edge); U, W = distinct\n"
                "sources and destinations; the plans' rows. hybrid = the maximum matching of the pair (Konig)\n"
                "<= min(pre, post). Bytes of a row of F values: fp32 4F; int b: ceil(F b / 8) + 4 (the codes\n"
                "packed, each row padded to a byte, plus the bf16 (min, scale) pair).\n",
    .positional = "data",
    .pos_meta = "DATA",
    .groups = k_groups,
};

typedef struct plan_run {
    gnn_dataset ds;
    gnn_csr g_set;           /* --partitions: the global graph rebuilt from the set (unused) */
    gnn_partition set;
    int32_t *part;           /* (n) */
    int64_t k;
    gnn_commplan plans[GNN_PLAN_COUNT];
    int have[GNN_PLAN_COUNT];
    double seconds[GNN_PLAN_COUNT];
} plan_run;

static int commplan_options(int argc, char **argv, commplan_opts *o, cli_args *a)
{
    memset(o, 0, sizeof *o);
    gnn_part_defaults(&o->po);
    o->po.ufactor = GNN_METIS_DEFAULT_UFACTOR;
    o->method = PLAN_ALL;
    o->impl = gnn_impl_opt();
    int rc = cli_parse(&k_cmd, argc, argv, o, a);
    if (rc != CLI_CONTINUE)
        return rc;
    if (o->parts_dir && o->read_part)
        return cli_error(CLI_USAGE, "--partitions and --read-part both name a part vector: give one");
    if (cli_report_check(o->json))
        return CLI_USAGE;
    return CLI_CONTINUE;
}

/* The dataset and the part vector. */
static int load_inputs(const commplan_opts *o, const cli_args *a, plan_run *R)
{
    gnn_err err = { "" };
    gnn_status st = gnn_dataset_open(&R->ds, o->data, &err);
    if (st)
        return cli_error(cli_status_code(st), "%s", cli_errmsg(&err, st));
    const int64_t n = R->ds.graph.n;
    R->part = gnn_malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
    if (!R->part)
        return cli_error(CLI_FAIL, "out of memory (%lld vertices)", (long long)n);
    if (o->parts_dir) {
        gnn_part_manifest m;
        if ((st = gnn_partition_load(o->parts_dir, &R->set, &R->g_set, &m, &err)) ||
            (st = cli_set_check(&m, o->parts_dir, (int)m.k, &R->ds, o->data, "", &err)))
            return cli_error(cli_status_code(st), "--partitions: %s", cli_errmsg(&err, st));
        if (cli_given(a, "parts") && o->po.k != m.k)
            return cli_error(CLI_USAGE, "--parts %lld: %s has %lld parts", (long long)o->po.k, o->parts_dir,
                             (long long)m.k);
        R->k = m.k;
        if (n > 0)
            memcpy(R->part, R->set.part, (size_t)n * sizeof(int32_t));
        return CLI_OK;
    }
    R->k = o->po.k;
    if (o->read_part) {
        /* without --parts, K = the largest id + 1, bounded as --parts is: the ids are checked
         * against the bound while the file is read, before anything K-sized could exist */
        const int given = cli_given(a, "parts");
        int64_t seen = 0;
        if ((st = gnn_part_vector_read(o->read_part, n, given ? o->po.k : MAX_PARTS, R->part, &seen, &err)))
            return cli_error(cli_status_code(st), "--read-part: %s%s", cli_errmsg(&err, st),
                             st == GNN_ERR_RANGE && !given
                                 ? " (without --parts, K is the largest id + 1, and at most 65536 parts, the bound of "
                                   "--parts)"
                                 : "");
        if (!given)
            R->k = seen > 0 ? seen : 1;
        return CLI_OK;
    }
    if (R->k > n)
        return cli_error(CLI_USAGE, "--parts %lld: %s has only %lld vertices (at most one part per vertex)",
                         (long long)R->k, o->data, (long long)n);
    gnn_part_options po = o->po;
    po.k = R->k;
    po.ops = o->impl->partition; /* ldg streams with the context's table */
    if ((st = gnn_partition_assign(&R->ds.graph, R->ds.split, &po, R->part, NULL, &err)))
        return cli_error(cli_status_code(st), "%s: %s", o->data, cli_errmsg(&err, st));
    return CLI_OK;
}

/* The machine's memory, in bytes. (Not RLIMIT_AS: an address-space limit also counts what the
 * libraries reserve and never touch, such as OpenBLAS's buffers.) */
static double machine_bytes(void)
{
    const double b = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
    return b > 0 ? b : 1e300;
}

/* Before anything is allocated for the plans: what they will need at most (each plan's build
 * at its peak, gnn_commplan_bytes_bound: linear in the cut, independent of K, plus this
 * command's per-pair counts), refused with the source of the part vector and the figure when
 * it exceeds the machine's memory. */
static int check_memory(const commplan_opts *o, const plan_run *R, int nthreads)
{
    const int64_t cut = gnn_commplan_count_cut(&R->ds.graph, R->part);
    const int n_plans = o->method == PLAN_ALL ? GNN_PLAN_COUNT : 1;
    const double need = (double)n_plans * (double)gnn_commplan_bytes_bound(cut, nthreads) + 16.0 * (double)cut;
    const double have = machine_bytes();
    if (need <= have)
        return CLI_OK;
    const char *src = o->read_part ? o->read_part : o->parts_dir ? o->parts_dir : o->data;
    return cli_error(CLI_USAGE,
                     "%s: the part vector of %s (K = %lld) cuts %lld edges of %s: the %d plan%s would need about %.1f "
                     "GiB, more than this machine's %.1f GiB of memory (--method with one plan needs a quarter)",
                     o->read_part ? "--read-part" : o->parts_dir ? "--partitions" : "--data", src, (long long)R->k,
                     (long long)cut, o->data, n_plans, n_plans == 1 ? "" : "s", need / 1073741824.0,
                     have / 1073741824.0);
}

static int build_plans(const commplan_opts *o, plan_run *R)
{
    for (int kind = 0; kind < GNN_PLAN_COUNT; kind++) {
        if (o->method != PLAN_ALL && o->method != kind)
            continue;
        gnn_err err = { "" };
        const double t0 = gnn_now_s();
        gnn_status st = gnn_commplan_build(o->impl->commplan, &R->ds.graph, R->part, R->k, (gnn_plan_kind)kind,
                                           &R->plans[kind], &err);
        R->seconds[kind] = gnn_now_s() - t0;
        if (st)
            return cli_error(cli_status_code(st), "%s", cli_errmsg(&err, st));
        R->have[kind] = 1;
    }
    return CLI_OK;
}

/* |U_ij| and |W_ij| of slot s from a plan's edge list (any plan lists the same edges). */
static void pair_uw(const gnn_commplan *P, int64_t s, int64_t *nu, int64_t *nw, int64_t *scratch)
{
    const int64_t e0 = P->edge_ptr[s], e1 = P->edge_ptr[s + 1];
    *nu = 0;
    *nw = 0;
    for (int64_t e = e0; e < e1; e++) {
        *nu += e == e0 || P->edge_src[e] != P->edge_src[e - 1];
        scratch[e - e0] = P->edge_dst[e];
    }
    qsort(scratch, (size_t)(e1 - e0), sizeof(int64_t), gnn_cmp_i64);
    for (int64_t x = 0; x < e1 - e0; x++)
        *nw += x == 0 || scratch[x] != scratch[x - 1];
}

static const gnn_commplan *any_plan(const plan_run *R)
{
    for (int kind = 0; kind < GNN_PLAN_COUNT; kind++)
        if (R->have[kind])
            return &R->plans[kind];
    return NULL;
}

static int64_t total_rows(const gnn_commplan *P) { return gnn_commplan_total_rows(P); }

static void print_report(const commplan_opts *o, const plan_run *R, const int64_t *uw)
{
    const gnn_commplan *E = any_plan(R);
    const int64_t k = R->k, np = E->n_pairs;
    printf("gnnref commplan: %s  n=%lld  parts=%lld  cut edges=%lld (distinct)  impl=%s\n", R->ds.name,
           (long long)R->ds.graph.n, (long long)k, (long long)E->n_edges, o->impl->name);
    printf("%5s %5s %9s %8s %8s", "src", "dst", "cut", "U", "W");
    for (int kind = 0; kind < GNN_PLAN_COUNT; kind++)
        if (R->have[kind])
            printf(" %9s", gnn_plan_kind_name((gnn_plan_kind)kind));
    printf("\n");
    /* the pairs with cut edges only: every plan has the same slots, in (src, dst) order */
    for (int64_t s = 0; s < np; s++) {
        printf("%5lld %5lld %9lld %8lld %8lld", (long long)(E->pair[s] / k), (long long)(E->pair[s] % k),
               (long long)gnn_commplan_slot_edges(E, s), (long long)uw[2 * s], (long long)uw[2 * s + 1]);
        for (int kind = 0; kind < GNN_PLAN_COUNT; kind++)
            if (R->have[kind])
                printf(" %9lld", (long long)gnn_commplan_slot_rows(&R->plans[kind], s));
        printf("\n");
    }
    int64_t tu = 0, tw = 0;
    for (int64_t s = 0; s < np; s++)
        tu += uw[2 * s], tw += uw[2 * s + 1];
    printf("%11s %9lld %8lld %8lld", "total", (long long)E->n_edges, (long long)tu, (long long)tw);
    for (int kind = 0; kind < GNN_PLAN_COUNT; kind++)
        if (R->have[kind])
            printf(" %9lld", (long long)total_rows(&R->plans[kind]));
    printf("\n");
    const double n_ordered = (double)k * (double)(k - 1);
    if ((double)np < n_ordered)
        printf("(%.0f of the %.0f ordered pairs have no cut edge: not listed)\n", n_ordered - (double)np, n_ordered);
    if (R->have[GNN_PLAN_PRE] && R->have[GNN_PLAN_POST] && R->have[GNN_PLAN_HYBRID]) {
        const int64_t pre = total_rows(&R->plans[GNN_PLAN_PRE]), post = total_rows(&R->plans[GNN_PLAN_POST]);
        const int64_t hyb = total_rows(&R->plans[GNN_PLAN_HYBRID]);
        const int64_t mn = pre < post ? pre : post;
        printf("hybrid / pre = %.4f, hybrid / post = %.4f, hybrid / min(pre, post) = %.4f\n",
               pre ? (double)hyb / (double)pre : 0.0, post ? (double)hyb / (double)post : 0.0,
               mn ? (double)hyb / (double)mn : 0.0);
    }
    printf("bytes per layer (all pairs):\n%9s %8s", "plan", "width");
    for (int b = 0; b < N_BITS; b++)
        printf(" %14s", b == 0 ? "fp32" : (k_bits[b] == 8 ? "int8" : k_bits[b] == 4 ? "int4" : "int2"));
    printf("\n");
    for (int kind = 0; kind < GNN_PLAN_COUNT; kind++) {
        if (!R->have[kind])
            continue;
        for (int w = 0; w < o->n_widths; w++) {
            printf("%9s %8lld", gnn_plan_kind_name((gnn_plan_kind)kind), (long long)o->widths[w]);
            for (int b = 0; b < N_BITS; b++)
                printf(" %14lld",
                       (long long)gnn_quant_message_bytes(total_rows(&R->plans[kind]), o->widths[w], k_bits[b]));
            printf("\n");
        }
    }
}

static void print_ids(const char *what, const int64_t *ids, int64_t n)
{
    printf(" %s [", what);
    for (int64_t i = 0; i < n; i++)
        printf("%s%lld", i ? " " : "", (long long)ids[i]);
    printf("]");
}

/* --rows: each plan's post and pre rows per pair */
static void print_rows(const plan_run *R)
{
    const int64_t k = R->k;
    printf("rows per pair (post: raw source rows, then pre: partial sums per destination):\n");
    for (int kind = 0; kind < GNN_PLAN_COUNT; kind++)
        for (int64_t s = 0; R->have[kind] && s < R->plans[kind].n_pairs; s++) {
            const gnn_commplan *P = &R->plans[kind];
            printf("%9s %lld -> %lld:", gnn_plan_kind_name((gnn_plan_kind)kind), (long long)(P->pair[s] / k),
                   (long long)(P->pair[s] % k));
            print_ids("post", P->post_rows + P->post_ptr[s], P->post_ptr[s + 1] - P->post_ptr[s]);
            print_ids("pre", P->pre_rows + P->pre_ptr[s], P->pre_ptr[s + 1] - P->pre_ptr[s]);
            printf("\n");
        }
}

static json_object *plan_json(const commplan_opts *o, const plan_run *R, int kind)
{
    const gnn_commplan *P = &R->plans[kind];
    const int64_t k = R->k, np = P->n_pairs;
    json_object *j = json_object_new_object();
    /* one value per entry of the report's "pairs" (the pairs with cut edges, in (src, dst) order) */
    json_object *rows = json_object_new_array();
    for (int64_t s = 0; s < np; s++)
        json_object_array_add(rows, json_object_new_int64(gnn_commplan_slot_rows(P, s)));
    json_object_object_add(j, "rows", rows);
    json_object_object_add(j, "total_rows", json_object_new_int64(total_rows(P)));
    json_object_object_add(j, "post_rows", json_object_new_int64(P->post_ptr[np]));
    json_object_object_add(j, "pre_rows", json_object_new_int64(P->pre_ptr[np]));
    json_object_object_add(j, "seconds", json_object_new_double(R->seconds[kind]));
    json_object *bytes = json_object_new_object();
    for (int b = 0; b < N_BITS; b++) {
        json_object *arr = json_object_new_array();
        for (int w = 0; w < o->n_widths; w++)
            json_object_array_add(arr, json_object_new_int64(gnn_quant_message_bytes(total_rows(P), o->widths[w],
                                                                                     k_bits[b])));
        char key[8];
        snprintf(key, sizeof key, "%d", k_bits[b]);
        json_object_object_add(bytes, key, arr);
    }
    json_object_object_add(j, "bytes", bytes); /* bits -> per width */
    if (o->show_rows) {
        json_object *lists = json_object_new_array();
        for (int64_t s = 0; s < np; s++) {
            json_object *q = json_object_new_object();
            json_object_object_add(q, "src", json_object_new_int64(P->pair[s] / k));
            json_object_object_add(q, "dst", json_object_new_int64(P->pair[s] % k));
            json_object_object_add(q, "post", cli_json_i64_array(P->post_rows + P->post_ptr[s],
                                                                 P->post_ptr[s + 1] - P->post_ptr[s], 1));
            json_object_object_add(q, "pre", cli_json_i64_array(P->pre_rows + P->pre_ptr[s],
                                                                P->pre_ptr[s + 1] - P->pre_ptr[s], 1));
            json_object_array_add(lists, q);
        }
        json_object_object_add(j, "lists", lists);
    }
    return j;
}

static json_object *commplan_report(const commplan_opts *o, const cli_args *a, const plan_run *R, const int64_t *uw,
                                    int nthreads)
{
    const gnn_commplan *E = any_plan(R);
    const int64_t k = R->k, np = E->n_pairs;
    json_object *cfg;
    json_object *r = cli_report_new("commplan", o->po.seed, nthreads, "self", 1, &cfg);
    cli_config_json(cfg, a, o, 0);
    json_object_object_add(cfg, "dataset", json_object_new_string(R->ds.name));
    json_object_object_add(cfg, "threads", json_object_new_int(nthreads));
    json_object_object_add(r, "n", json_object_new_int64(R->ds.graph.n));
    json_object_object_add(r, "k", json_object_new_int64(k));
    json_object_object_add(r, "cut_edges", json_object_new_int64(E->n_edges));
    json_object_object_add(r, "n_pairs", json_object_new_int64(np));
    json_object_object_add(r, "widths", cli_json_i64_array(o->widths, o->n_widths, 1));
    json_object *pairs = json_object_new_array(); /* the pairs with cut edges only */
    for (int64_t s = 0; s < np; s++) {
        json_object *q = json_object_new_object();
        json_object_object_add(q, "src", json_object_new_int64(E->pair[s] / k));
        json_object_object_add(q, "dst", json_object_new_int64(E->pair[s] % k));
        json_object_object_add(q, "cut_edges", json_object_new_int64(gnn_commplan_slot_edges(E, s)));
        json_object_object_add(q, "U", json_object_new_int64(uw[2 * s]));
        json_object_object_add(q, "W", json_object_new_int64(uw[2 * s + 1]));
        json_object *rows = json_object_new_object();
        for (int kind = 0; kind < GNN_PLAN_COUNT; kind++)
            if (R->have[kind])
                json_object_object_add(rows, gnn_plan_kind_name((gnn_plan_kind)kind),
                                       json_object_new_int64(gnn_commplan_slot_rows(&R->plans[kind], s)));
        json_object_object_add(q, "rows", rows);
        json_object_array_add(pairs, q);
    }
    json_object_object_add(r, "pairs", pairs);
    json_object *plans = json_object_new_object();
    for (int kind = 0; kind < GNN_PLAN_COUNT; kind++)
        if (R->have[kind])
            json_object_object_add(plans, gnn_plan_kind_name((gnn_plan_kind)kind), plan_json(o, R, kind));
    json_object_object_add(r, "plans", plans);
    return r;
}

int gnn_cmd_commplan(int argc, char **argv)
{
    commplan_opts o;
    cli_args a;
    int rc = commplan_options(argc, argv, &o, &a);
    if (rc != CLI_CONTINUE)
        return rc;
    const int nthreads = cli_set_threads(o.threads);
    plan_run R;
    memset(&R, 0, sizeof R);
    int64_t *uw = NULL, *scratch = NULL;
    if ((rc = load_inputs(&o, &a, &R)) != CLI_OK || (rc = check_memory(&o, &R, nthreads)) != CLI_OK ||
        (rc = build_plans(&o, &R)) != CLI_OK)
        goto done;
    if (!cli_given(&a, "widths")) {
        o.widths[0] = R.ds.num_features > 0 ? R.ds.num_features : 128;
        o.n_widths = 1;
    }
    const gnn_commplan *E = any_plan(&R);
    uw = gnn_malloc((size_t)(2 * E->n_pairs) * sizeof(int64_t) + 1); /* per slot: nothing for an empty pair */
    scratch = gnn_malloc((size_t)(E->n_edges + 1) * sizeof(int64_t));
    if (!uw || !scratch) {
        rc = cli_error(CLI_FAIL, "out of memory");
        goto done;
    }
    for (int64_t s = 0; s < E->n_pairs; s++)
        pair_uw(E, s, &uw[2 * s], &uw[2 * s + 1], scratch);
    print_report(&o, &R, uw);
    if (o.show_rows)
        print_rows(&R);
    if (o.json) {
        json_object *r = commplan_report(&o, &a, &R, uw, nthreads);
        rc = cli_report_write(r, o.json);
        json_object_put(r);
    }
done:
    gnn_free(uw);
    gnn_free(scratch);
    for (int kind = 0; kind < GNN_PLAN_COUNT; kind++)
        gnn_commplan_free(&R.plans[kind]);
    gnn_partition_free(&R.set);
    gnn_csr_free(&R.g_set);
    gnn_free(R.part);
    gnn_dataset_free(&R.ds);
    return rc;
}
