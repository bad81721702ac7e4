/* oracle/case.c -- case strings: format, parse, presets.
 *
 * Grammar (whitespace around tokens is ignored):
 *   case   := name '(' assign { ',' assign } ')'
 *   assign := key '=' value
 *   value  := integer | integer '..' integer | real
 * Keys: impl (required), threads (required for threaded implementations, absent otherwise),
 * seed (required), and every parameter the entry declares, each exactly once, except the
 * optional ones listed in the entry's `defaults`, which take their default when absent and are
 * left out of a formatted case string while they have it. A preset is
 * the parameter part alone ("n_dst=37,n_src=80,d=13,deg=0..9"). Formatting writes the keys
 * in a fixed order (impl, threads, parameters in declaration order, seed) and reals in the
 * shortest form that reads back to the same double, so format(parse(s)) is canonical and
 * parse(format(c)) == c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/oracle.h"
#include "core/ops/sampler_base.h" /* the fingerprint's probes (gnn_oracle_weights_keep) */

enum { KEY_IMPL = -1, KEY_THREADS = -2, KEY_SEED = -3, KEY_UNKNOWN = -4 };

static int key_index(const gnn_oracle_entry *e, const char *key)
{
    if (!strcmp(key, "impl"))
        return KEY_IMPL;
    if (!strcmp(key, "threads"))
        return KEY_THREADS;
    if (!strcmp(key, "seed"))
        return KEY_SEED;
    for (int i = 0; i < e->n_params; i++)
        if (!strcmp(e->params[i].name, key))
            return i;
    return KEY_UNKNOWN;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n')
        s++;
    char *end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'))
        *--end = '\0';
    return s;
}

static int parse_i64(const char *s, int64_t *out)
{
    if (!*s)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    if (!*s || *s == '-' || *s == '+')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static gnn_status parse_value(const gnn_oracle_entry *e, const gnn_oracle_param *p, char *text,
                              gnn_oracle_value *v, gnn_err *err)
{
    memset(v, 0, sizeof *v);
    switch (p->type) {
    case GNN_PARAM_INT:
        if (parse_i64(text, &v->lo))
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: %s='%s' is not an integer", e->name, p->name, text);
        v->hi = v->lo;
        break;
    case GNN_PARAM_RANGE: {
        char *dots = strstr(text, "..");
        if (dots) {
            *dots = '\0';
            if (parse_i64(trim(text), &v->lo) || parse_i64(trim(dots + 2), &v->hi))
                return gnn_err_set(err, GNN_ERR_FORMAT, "%s: %s: expected LO..HI with integers", e->name, p->name);
        } else {
            if (parse_i64(text, &v->lo))
                return gnn_err_set(err, GNN_ERR_FORMAT, "%s: %s='%s' is not an integer or LO..HI range",
                                   e->name, p->name, text);
            v->hi = v->lo;
        }
        if (v->lo > v->hi)
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: %s=%lld..%lld: the range is empty (LO > HI)",
                               e->name, p->name, (long long)v->lo, (long long)v->hi);
        break;
    }
    case GNN_PARAM_REAL: {
        char *end;
        errno = 0;
        v->x = strtod(text, &end);
        if (!*text || errno || *end || !isfinite(v->x))
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: %s='%s' is not a finite number", e->name, p->name, text);
        if (v->x < p->min || v->x > p->max)
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: %s=%s is outside [%g, %g]", e->name, p->name, text,
                               p->min, p->max);
        return GNN_OK;
    }
    }
    if ((double)v->lo < p->min || (double)v->hi > p->max)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: %s=%s is outside [%.0f, %.0f]", e->name, p->name, text,
                           p->min, p->max);
    return GNN_OK;
}

/* The default of optional parameter i of e (e->defaults, "key=value,..."): 1 and *v when it
 * has one, 0 when the parameter is required (or its default does not parse: a registry bug
 * that then shows as "parameter missing" on every case). */
static int default_of(const gnn_oracle_entry *e, int i, gnn_oracle_value *v)
{
    if (!e->defaults)
        return 0;
    const char *name = e->params[i].name;
    const size_t nlen = strlen(name);
    for (const char *q = e->defaults; *q;) {
        const char *end = strchr(q, ',');
        const size_t len = end ? (size_t)(end - q) : strlen(q);
        if (len > nlen && !strncmp(q, name, nlen) && q[nlen] == '=') {
            char text[64];
            if (len - nlen - 1 >= sizeof text)
                return 0;
            memcpy(text, q + nlen + 1, len - nlen - 1);
            text[len - nlen - 1] = '\0';
            return parse_value(e, &e->params[i], text, v, NULL) == GNN_OK;
        }
        q += len + (end != NULL);
    }
    return 0;
}

/* Parse "k=v,k=v" (body is modified). meta = 1 allows impl/threads/seed (full case strings). */
static gnn_status parse_assignments(const gnn_oracle_entry *e, char *body, int meta, gnn_oracle_case *c,
                                    const char **impl_name, int *have_threads, int *have_seed, gnn_err *err)
{
    int seen[GNN_ORACLE_MAX_PARAMS] = { 0 };
    int seen_impl = 0;
    *have_threads = *have_seed = 0;
    char *save = NULL;
    int n_tokens = 0;
    for (char *tok = strtok_r(body, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        n_tokens++;
        char *eq = strchr(tok, '=');
        if (!eq)
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: '%s' is not KEY=VALUE", e->name, trim(tok));
        *eq = '\0';
        char *key = trim(tok), *val = trim(eq + 1);
        const int k = key_index(e, key);
        if (k == KEY_UNKNOWN || (!meta && k < 0)) {
            char known[256] = "";
            size_t len = 0;
            for (int i = 0; i < e->n_params && len < sizeof known; i++)
                len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "", e->params[i].name);
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: unknown key '%s' (keys: %s%s)", e->name, key,
                               meta ? "impl, threads, seed, " : "", known);
        }
        if (k == KEY_IMPL) {
            if (seen_impl++)
                return gnn_err_set(err, GNN_ERR_FORMAT, "%s: impl given twice", e->name);
            *impl_name = val;
        } else if (k == KEY_THREADS) {
            int64_t t;
            if ((*have_threads)++)
                return gnn_err_set(err, GNN_ERR_FORMAT, "%s: threads given twice", e->name);
            if (parse_i64(val, &t) || t < 1 || t > 1024)
                return gnn_err_set(err, GNN_ERR_FORMAT, "%s: threads='%s' is not an integer in [1, 1024]", e->name, val);
            c->threads = (int)t;
        } else if (k == KEY_SEED) {
            if ((*have_seed)++)
                return gnn_err_set(err, GNN_ERR_FORMAT, "%s: seed given twice", e->name);
            if (parse_u64(val, &c->seed))
                return gnn_err_set(err, GNN_ERR_FORMAT, "%s: seed='%s' is not an unsigned 64-bit integer", e->name, val);
        } else {
            if (seen[k]++)
                return gnn_err_set(err, GNN_ERR_FORMAT, "%s: %s given twice", e->name, key);
            gnn_status s = parse_value(e, &e->params[k], val, &c->v[k], err);
            if (s)
                return s;
        }
    }
    (void)n_tokens;
    for (int i = 0; i < e->n_params; i++)
        if (!seen[i] && !default_of(e, i, &c->v[i]))
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: parameter %s is missing (%s)", e->name,
                               e->params[i].name, e->params[i].help ? e->params[i].help : "");
    return GNN_OK;
}

gnn_status gnn_oracle_case_init(gnn_oracle_case *c, const gnn_oracle_entry *e,
                                const gnn_oracle_impl *impl, int threads, const char *preset,
                                uint64_t seed, gnn_err *err)
{
    memset(c, 0, sizeof *c);
    c->entry = e;
    c->impl = impl;
    c->seed = seed;
    if (e->n_params > GNN_ORACLE_MAX_PARAMS)
        return gnn_err_set(err, GNN_ERR_INTERNAL, "%s: too many parameters", e->name);
    char body[512];
    if (strlen(preset) >= sizeof body)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: preset too long", e->name);
    strcpy(body, preset);
    const char *impl_name = NULL;
    int have_threads, have_seed;
    gnn_status s = parse_assignments(e, body, 0, c, &impl_name, &have_threads, &have_seed, err);
    if (s)
        return s;
    c->threads = (impl && (impl->flags & GNN_ORACLE_THREADED)) ? (threads > 0 ? threads : 1) : 0;
    return GNN_OK;
}

gnn_status gnn_oracle_case_parse(const char *s, gnn_oracle_case *c, gnn_err *err)
{
    memset(c, 0, sizeof *c);
    if (!s)
        return gnn_err_set(err, GNN_ERR_FORMAT, "empty case string");
    char buf[1024];
    if (strlen(s) >= sizeof buf)
        return gnn_err_set(err, GNN_ERR_FORMAT, "case string longer than %zu characters", sizeof buf - 1);
    strcpy(buf, s);
    char *str = trim(buf);
    if (!*str)
        return gnn_err_set(err, GNN_ERR_FORMAT, "empty case string; expected NAME(impl=...,seed=...)");
    char *open = strchr(str, '(');
    size_t len = strlen(str);
    if (!open || str[len - 1] != ')')
        return gnn_err_set(err, GNN_ERR_FORMAT, "case '%s': expected NAME(KEY=VALUE,...) with a closing ')'", s);
    *open = '\0';
    str[len - 1] = '\0';
    const char *name = trim(str);
    const gnn_oracle_entry *e = gnn_oracle_find(name);
    if (!e)
        return gnn_err_set(err, GNN_ERR_FORMAT, "case '%s': unknown op '%s' (gnnref oracle --list shows them)", s, name);
    c->entry = e;
    const char *impl_name = NULL;
    int have_threads, have_seed;
    gnn_status st = parse_assignments(e, open + 1, 1, c, &impl_name, &have_threads, &have_seed, err);
    if (st)
        return st;
    if (!impl_name)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: impl is missing (impl=ref, impl=cpu, ...)", e->name);
    c->impl = gnn_oracle_find_impl(e, impl_name);
    if (!c->impl) {
        char known[128] = "";
        size_t l = 0;
        for (const gnn_oracle_impl *const *i = e->impls; *i && l < sizeof known; i++)
            l += (size_t)snprintf(known + l, sizeof known - l, "%s%s", i == e->impls ? "" : ", ", (*i)->name);
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: no implementation '%s' in this build (have: %s)", e->name,
                           impl_name, known);
    }
    const int threaded = (c->impl->flags & GNN_ORACLE_THREADED) != 0;
    if (threaded && !have_threads)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: impl=%s is threaded: threads=N is required", e->name,
                           c->impl->name);
    if (!threaded && have_threads)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: impl=%s is not threaded: drop threads=", e->name,
                           c->impl->name);
    if (!have_seed)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: seed is missing", e->name);
    return GNN_OK;
}

/* Shortest %.Ng that reads back as the same double. */
static int format_real(double x, char *buf, size_t n)
{
    int w = 0;
    for (int prec = 1; prec <= 17; prec++) {
        w = snprintf(buf, n, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    return w;
}

int gnn_oracle_case_format(const gnn_oracle_case *c, char *buf, size_t n)
{
    const gnn_oracle_entry *e = c->entry;
    size_t len = 0;
    int w;
#define PUT(...)                                                   \
    do {                                                           \
        w = snprintf(buf + (len < n ? len : n), len < n ? n - len : 0, __VA_ARGS__); \
        len += (size_t)(w > 0 ? w : 0);                            \
    } while (0)
    PUT("%s(impl=%s", e->name, c->impl ? c->impl->name : "?");
    if (c->threads > 0)
        PUT(",threads=%d", c->threads);
    for (int i = 0; i < e->n_params; i++) {
        const gnn_oracle_param *p = &e->params[i];
        gnn_oracle_value dv;
        if (default_of(e, i, &dv) && dv.lo == c->v[i].lo && dv.hi == c->v[i].hi && dv.x == c->v[i].x)
            continue; /* an optional parameter at its default: left out (the canonical form) */
        switch (p->type) {
        case GNN_PARAM_INT: PUT(",%s=%lld", p->name, (long long)c->v[i].lo); break;
        case GNN_PARAM_RANGE:
            PUT(",%s=%lld..%lld", p->name, (long long)c->v[i].lo, (long long)c->v[i].hi);
            break;
        case GNN_PARAM_REAL: {
            char r[40];
            format_real(c->v[i].x, r, sizeof r);
            PUT(",%s=%s", p->name, r);
            break;
        }
        }
    }
    PUT(",seed=%llu)", (unsigned long long)c->seed);
#undef PUT
    return (int)len;
}

/* ---- edge inputs the random generators do not reach by themselves ----------------------------- */

void gnn_oracle_block_zero_rows(gnn_block *b, unsigned where, int64_t run)
{
    const int64_t n = b->n_dst;
    if (run > n)
        run = n;
    const int64_t mid = (n - run) / 2;
    int64_t w = 0;
    for (int64_t v = 0; v < n; v++) {
        const int zero = ((where & 1) && v < run) || ((where & 2) && v >= mid && v < mid + run) ||
                         ((where & 4) && v >= n - run);
        const int64_t s = b->indptr[v], e = b->indptr[v + 1];
        b->indptr[v] = w;
        if (!zero)
            for (int64_t i = s; i < e; i++)
                b->indices[w++] = b->indices[i];
    }
    b->indptr[n] = w;
    b->nnz = w;
}

void gnn_oracle_weights_keep(uint8_t *keep, const int64_t *at, int64_t nnz)
{
    for (int64_t j = 0; nnz > 0 && j < GNN_SAMPLE_WEIGHT_PROBES; j++) {
        const int64_t i = gnn_sample_weight_probe(j, nnz);
        keep[at ? at[i] : i] = 1;
    }
}

void gnn_oracle_weights_rewrite(float *w, const uint8_t *keep, int64_t n, uint64_t seed, unsigned round)
{
    const gnn_rng_stream s = gnn_rng_stream_make(seed, GNN_TAG_ORACLE, 47, round & 0xFF, 0);
    for (int64_t e = 0; e < n; e++) {
        if (keep && keep[e])
            continue;
        const float u = gnn_rng_float(&s, (uint64_t)(2 * e)), v = gnn_rng_float(&s, (uint64_t)(2 * e + 1));
        if (w[e] > 0.0f)
            w[e] = u < 0.25f ? 0.0f : 0.125f + 4.0f * v;
        else if (u < 0.5f)
            w[e] = 0.125f + 4.0f * v;
    }
}

float gnn_oracle_tie_threshold(uint64_t seed, unsigned tag, uint32_t step, unsigned layer, const int64_t *ids,
                               int64_t rows, const int64_t *row_cols, int64_t cols, float p)
{
    float best = 2.0f; /* above every draw: none found yet */
    for (int64_t i = 0; i < rows; i++) {
        const gnn_rng_stream s = gnn_rng_stream_make(seed, tag, step, layer, (uint64_t)(ids ? ids[i] : i));
        const int64_t m = row_cols ? row_cols[i] : cols;
        for (int64_t j = 0; j < m; j++) {
            const float u = gnn_rng_float(&s, (uint64_t)j);
            if (u >= p && u < best)
                best = u;
        }
    }
    return best <= 1.0f ? best : p;
}
