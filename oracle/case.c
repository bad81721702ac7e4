/* oracle/case.c -- case strings: format, parse, presets.
 *
 * Grammar (whitespace around tokens is ignored):
 *   case   := name '(' assign { ',' assign } ')'
 *   assign := key '=' value
 *   value  := integer | integer '..' integer | real
 * Keys: impl (required), threads (required for threaded implementations, absent otherwise),
 * seed (required), and every parameter the entry declares, each exactly once. A preset is
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
        if (!seen[i])
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
