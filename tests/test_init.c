/* tests/test_init.c -- the models' initial parameters (core/train/model.c, gnn_model_init) against
 * the rule of docs/determinism.md ("Weight init").
 *
 * Every randomly initialised parameter tensor must have its own init stream. A stream shared by
 * two tensors gives them the same draws, so one is a multiple of the other on their common
 * corner (the Glorot limits differ, the draws do not): two layers of equal shape that start
 * identical, or an attention vector equal to a column of the projection, train as fewer
 * independent parameters than the model has. init_no_two_tensors_proportional looks for that
 * in every model and variant; init_streams_are_the_rule recomputes chosen elements from the
 * rule's words, so a change of the rule (sage's streams above all) cannot pass unnoticed. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/train/model.h"
#include "gnnref/rng.h"

#define MAX_TENSORS 256

/* A view of a parameter tensor: rows x cols with row stride ld (a head's block of gat's W is
 * its columns h F .. h F + F - 1 of every row). */
typedef struct tview {
    const float *p;
    int64_t rows, cols, ld;
    char name[48];
} tview;

typedef struct tlist {
    tview t[MAX_TENSORS];
    int n;
} tlist;

static void add(tlist *L, const float *p, int64_t rows, int64_t cols, int64_t ld, const char *fmt, int l, int64_t k)
{
    ck_assert_int_lt(L->n, MAX_TENSORS);
    tview *v = &L->t[L->n++];
    v->p = p, v->rows = rows, v->cols = cols, v->ld = ld;
    snprintf(v->name, sizeof v->name, fmt, l, (long long)k);
}

/* Every randomly initialised tensor of m: each stacked matrix and each head on its own; the
 * biases (0) and LayerNorm's gamma (1) and beta (0) are not random and are left out. */
static void list_tensors(const model *m, tlist *L)
{
    L->n = 0;
    for (int l = 0; l < m->L; l++) {
        const mlayer *S = &m->layer[l];
        switch (m->kind) {
        case GNN_MODEL_SAGE:
            add(L, S->p + S->o_w, S->in, S->out, S->out, "L%d W_n%lld", l, 0);
            add(L, S->p + S->o_w2, S->in, S->out, S->out, "L%d W_s%lld", l, 0);
            break;
        case GNN_MODEL_GCN:
            add(L, S->p + S->o_w, S->in, S->out, S->out, "L%d W%lld", l, 0);
            break;
        case GNN_MODEL_GIN:
            add(L, S->p + S->o_w, S->in, S->mid, S->mid, "L%d W1%lld", l, 0);
            add(L, S->p + S->o_w2, S->mid, S->out, S->out, "L%d W2%lld", l, 0);
            break;
        case GNN_MODEL_GAT:
            for (int64_t h = 0; h < S->heads; h++) {
                add(L, S->p + S->o_w + h * S->f, S->in, S->f, S->hf, "L%d W head %lld", l, h);
                add(L, S->p + S->o_al + h * S->f, S->f, 1, 1, "L%d a_l head %lld", l, h);
                add(L, S->p + S->o_ar + h * S->f, S->f, 1, 1, "L%d a_r head %lld", l, h);
            }
            break;
        case GNN_MODEL_RGCN:
            add(L, S->p + S->o_w, S->in, S->out, S->out, "L%d W0%lld", l, 0);
            for (int64_t k = 0; k < (m->B ? m->B : m->R); k++)
                add(L, S->p + S->o_w2 + k * S->in * S->out, S->in, S->out, S->out, "L%d W/V %lld", l, k);
            if (m->B)
                add(L, S->p + S->o_rel_a, m->R, m->B, m->B, "L%d a%lld", l, 0);
            break;
        }
    }
}

/* The relative residual of the least-squares fit b ~ lambda a over n pairs (a[i] = A(i),
 * b[i] = B(i)): |b - lambda a| / |b|, lambda = a.b / a.a; 1 when a or b is all zero (no claim). */
static double residual(const double *a, const double *b, int64_t n)
{
    double aa = 0.0, ab = 0.0, bb = 0.0;
    for (int64_t i = 0; i < n; i++)
        aa += a[i] * a[i], ab += a[i] * b[i], bb += b[i] * b[i];
    if (aa == 0.0 || bb == 0.0)
        return 1.0;
    const double lambda = ab / aa;
    double rr = 0.0;
    for (int64_t i = 0; i < n; i++)
        rr += (b[i] - lambda * a[i]) * (b[i] - lambda * a[i]);
    return sqrt(rr / bb);
}

static double at(const tview *t, int64_t i, int64_t j)
{
    return (double)t->p[i * t->ld + j];
}

/* The smallest residual over the ways A and B may share a stream: their common corner (min rows
 * x min cols, in (i, j) coordinates), and a vector (one column) against every column of the
 * other. *how names the one found. Corners of fewer than 2 elements prove nothing: skipped. */
static double min_residual(const tview *A, const tview *B, double *a, double *b, char *how, size_t how_size)
{
    double best = 1.0;
    const int64_t r = A->rows < B->rows ? A->rows : B->rows, c = A->cols < B->cols ? A->cols : B->cols;
    if (r * c >= 2) {
        int64_t n = 0;
        for (int64_t i = 0; i < r; i++)
            for (int64_t j = 0; j < c; j++)
                a[n] = at(A, i, j), b[n++] = at(B, i, j);
        best = residual(a, b, n);
        snprintf(how, how_size, "corner %lldx%lld", (long long)r, (long long)c);
    }
    for (int side = 0; side < 2 && r >= 2; side++) {
        const tview *V = side ? B : A, *M = side ? A : B; /* V a vector, M's columns */
        if (V->cols != 1 || M->cols == 1)
            continue;
        for (int64_t j = 0; j < M->cols; j++) {
            for (int64_t i = 0; i < r; i++)
                a[i] = at(V, i, 0), b[i] = at(M, i, j);
            const double res = residual(a, b, r);
            if (res < best) {
                best = res;
                snprintf(how, how_size, "vector against column %lld (%lld rows)", (long long)j, (long long)r);
            }
        }
    }
    return best;
}

typedef struct init_case {
    gnn_model_kind model;
    gnn_gat_variant variant;
    int layernorm;
    int64_t bases;
} init_case;

/* Every pair of tensors of one model: fails, naming the pair, when one is lambda times the
 * other (relative residual below 1e-6; independent uniform draws are nowhere near). */
static int check_model(const init_case *k, int64_t in, int64_t hidden, int64_t classes, int layers)
{
    gnn_train_config c;
    gnn_train_defaults(&c);
    c.model = k->model;
    c.gat_variant = k->variant;
    c.layernorm = k->layernorm;
    c.layers = layers;
    c.hidden = hidden;
    c.heads = 3;
    c.out_heads = 2;
    c.rgcn_bases = k->bases;
    c.relations = k->model == GNN_MODEL_RGCN ? 4 : 0;
    c.seed = 7;
    gnn_train_resolve(&c);
    model m;
    ck_assert_int_eq(gnn_model_init(&m, &c, in, classes), GNN_OK);
    static tlist L;
    list_tensors(&m, &L);
    static double a[1 << 16], b[1 << 16];
    int bad = 0;
    for (int x = 0; x < L.n; x++)
        for (int y = x + 1; y < L.n; y++) {
            char how[64] = "";
            const double res = min_residual(&L.t[x], &L.t[y], a, b, how, sizeof how);
            if (res < 1e-6) {
                if (bad++ < 8)
                    fprintf(stderr, "%s%s ln=%d bases=%lld (in %lld, hidden %lld, classes %lld): %s and %s are "
                                    "proportional on their %s (residual %.2g)\n",
                            gnn_model_name(k->model), k->model == GNN_MODEL_GAT ? (k->variant ? "/distgnn" : "/velickovic") : "",
                            k->layernorm, (long long)k->bases, (long long)in, (long long)hidden, (long long)classes,
                            L.t[x].name, L.t[y].name, how, res);
            }
        }
    gnn_model_free(&m);
    return bad;
}

/* sage, gcn, gin, gat (both variants), rgcn (a weight per relation, and bases), each with and
 * without LayerNorm, 4 layers of equal hidden widths, multi-head gat (3 heads, 2 at the output);
 * once with every width equal (so equal-shape layers share whole matrices) and once Cora-shaped
 * (a wide input, a narrow output). */
START_TEST(init_no_two_tensors_proportional)
{
    static const init_case cases[] = {
        { GNN_MODEL_SAGE, 0, 0, 0 },  { GNN_MODEL_GCN, 0, 0, 0 },
        { GNN_MODEL_GIN, 0, 0, 0 },   { GNN_MODEL_GAT, GNN_GAT_VELICKOVIC, 0, 0 },
        { GNN_MODEL_GAT, GNN_GAT_DISTGNN, 0, 0 }, { GNN_MODEL_RGCN, 0, 0, 0 },
        { GNN_MODEL_RGCN, 0, 0, 2 },
    };
    static const int64_t shapes[][3] = { { 12, 12, 12 }, { 40, 16, 7 } };
    int bad = 0, models = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            for (int ln = 0; ln <= 1; ln++) {
                init_case k = cases[i];
                k.layernorm = ln;
                const int b = check_model(&k, shapes[s][0], shapes[s][1], shapes[s][2], 4);
                bad += b;
                models += b > 0;
            }
    ck_assert_msg(bad == 0, "%d pairs of proportional parameter tensors in %d models (listed above)", bad, models);
}
END_TEST

/* Element (k, i, j) of the tensor of `role` in layer l, written from docs/determinism.md. */
static float spec_tensor(uint64_t seed, int l, unsigned role, int64_t rows, int64_t cols, int64_t k, int64_t i,
                         int64_t j)
{
    const gnn_rng_stream s = gnn_rng_stream_make(seed, GNN_TAG_INIT, 16u + (uint32_t)l, role, (uint64_t)(k * rows + i));
    return (2.0f * gnn_rng_float(&s, (uint64_t)j) - 1.0f) * (float)sqrt(6.0 / (double)(rows + cols));
}

/* sage's: gnn_glorot_init's stream (seed, INIT, step 0, layer 2l + r, id i). */
static float spec_sage(uint64_t seed, int l, int r, int64_t rows, int64_t cols, int64_t i, int64_t j)
{
    const gnn_rng_stream s = gnn_rng_stream_make(seed, GNN_TAG_INIT, 0, (unsigned)(2 * l + r), (uint64_t)i);
    return (2.0f * gnn_rng_float(&s, (uint64_t)j) - 1.0f) * (float)sqrt(6.0 / (double)(rows + cols));
}

static model init_model(gnn_model_kind kind, int64_t bases, int64_t in, int64_t classes)
{
    gnn_train_config c;
    gnn_train_defaults(&c);
    c.model = kind;
    c.layers = 3;
    c.hidden = 6;
    c.heads = 3;
    c.out_heads = 2;
    c.rgcn_bases = bases;
    c.relations = kind == GNN_MODEL_RGCN ? 3 : 0;
    c.seed = 0x123456789ull;
    model m;
    ck_assert_int_eq(gnn_model_init(&m, &c, in, classes), GNN_OK);
    return m;
}

/* Every element of every random tensor of a 3-layer sage, gcn, gin, gat and rgcn (with bases),
 * bitwise the rule's value: sage's streams unchanged, the others (step 16 + l, role, k rows + i). */
START_TEST(init_streams_are_the_rule)
{
    const uint64_t seed = 0x123456789ull;
    const int64_t in = 5, classes = 4;
    for (gnn_model_kind kind = GNN_MODEL_SAGE; kind <= GNN_MODEL_RGCN; kind++) {
        model m = init_model(kind, 2, in, classes);
        for (int l = 0; l < m.L; l++) {
            const mlayer *S = &m.layer[l];
            const float *p = S->p;
            for (int64_t i = 0; i < S->in; i++)
                for (int64_t j = 0; j < S->out; j++) {
                    if (kind == GNN_MODEL_SAGE) {
                        ck_assert(p[S->o_w + i * S->out + j] == spec_sage(seed, l, 0, S->in, S->out, i, j));
                        ck_assert(p[S->o_w2 + i * S->out + j] == spec_sage(seed, l, 1, S->in, S->out, i, j));
                    } else if (kind == GNN_MODEL_GCN || kind == GNN_MODEL_RGCN) {
                        ck_assert(p[S->o_w + i * S->out + j] == spec_tensor(seed, l, 0, S->in, S->out, 0, i, j));
                    }
                }
            if (kind == GNN_MODEL_GIN) {
                for (int64_t i = 0; i < S->in; i++)
                    for (int64_t j = 0; j < S->mid; j++)
                        ck_assert(p[S->o_w + i * S->mid + j] == spec_tensor(seed, l, 0, S->in, S->mid, 0, i, j));
                for (int64_t i = 0; i < S->mid; i++)
                    for (int64_t j = 0; j < S->out; j++)
                        ck_assert(p[S->o_w2 + i * S->out + j] == spec_tensor(seed, l, 1, S->mid, S->out, 0, i, j));
            }
            if (kind == GNN_MODEL_GAT) {
                for (int64_t i = 0; i < S->in; i++)
                    for (int64_t j = 0; j < S->hf; j++)
                        ck_assert(p[S->o_w + i * S->hf + j] == spec_tensor(seed, l, 0, S->in, S->hf, 0, i, j));
                for (int64_t h = 0; h < S->heads; h++)
                    for (int64_t i = 0; i < S->f; i++) {
                        ck_assert(p[S->o_al + h * S->f + i] == spec_tensor(seed, l, 3, S->f, 1, h, i, 0));
                        ck_assert(p[S->o_ar + h * S->f + i] == spec_tensor(seed, l, 4, S->f, 1, h, i, 0));
                    }
            }
            if (kind == GNN_MODEL_RGCN) {
                for (int64_t k = 0; k < m.B; k++)
                    for (int64_t i = 0; i < S->in; i++)
                        for (int64_t j = 0; j < S->out; j++)
                            ck_assert(p[S->o_w2 + (k * S->in + i) * S->out + j] ==
                                      spec_tensor(seed, l, 1, S->in, S->out, k, i, j));
                for (int64_t r = 0; r < m.R; r++)
                    for (int64_t b = 0; b < m.B; b++)
                        ck_assert(p[S->o_rel_a + r * m.B + b] == spec_tensor(seed, l, 2, m.R, m.B, 0, r, b));
            }
        }
        gnn_model_free(&m);
    }
}
END_TEST

Suite *suite_init(void)
{
    Suite *s = suite_create("init");
    TCase *tc = tcase_create("core");
    tcase_set_tags(tc, "core");
    tcase_add_test(tc, init_no_two_tensors_proportional);
    tcase_add_test(tc, init_streams_are_the_rule);
    suite_add_tcase(s, tc);
    return s;
}
