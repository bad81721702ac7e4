/* oracle/plugin.c -- loading plugins (include/gnnref/plugin.h) and running their tables
 * through the oracle registry (docs/plugin.md).
 *
 * A plugin set dlopens each library, checks its ABI version, hands it a registry (a table of
 * function pointers: the plugin links nothing of ours) and wraps every table it registers as
 * a gnn_oracle_impl. An entry runs the plugin implementations of the kind of table its run
 * function takes (gnn_oracle_entry_kind): the harness runs them through
 * gnn_oracle_run_entry_impls exactly as the entry's own `impls`, with the entry's comparator
 * and tolerance. Nothing here prints: every error is a gnn_status with a message naming the
 * file. */
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "gnnref/oracle.h"
#include "gnnref/plugin.h"

#define PLUGIN_NAME_MAX 40

/* The kind of the entries written before the plugin ABI, by name; an entry sets
 * gnn_oracle_entry.ops_kind instead. gnn_oracle_entry_kind also requires the entry's
 * reference table to be the kind's, so a listed entry that changes its tables drops out
 * instead of being handed a table of the wrong type. */
static const struct {
    const char *pattern; /* fnmatch */
    gnn_plugin_kind kind;
} k_entry_kinds[] = {
    { "aggregate.*", GNN_PLUGIN_AGGREGATE },
    { "grad.aggregate.*", GNN_PLUGIN_AGGREGATE },
    { "index_add", GNN_PLUGIN_INDEX_ADD },
    { "spmm.*", GNN_PLUGIN_SPMM },
    { "quant.*", GNN_PLUGIN_QUANT },
};

static const char *const k_kind_names[GNN_PLUGIN_KIND_COUNT] = {
    [GNN_PLUGIN_NONE] = "none",   [GNN_PLUGIN_AGGREGATE] = "aggregate", [GNN_PLUGIN_INDEX_ADD] = "index_add",
    [GNN_PLUGIN_SPMM] = "spmm",   [GNN_PLUGIN_QUANT] = "quant",
};

const char *gnn_plugin_kind_name(gnn_plugin_kind kind)
{
    return (unsigned)kind < GNN_PLUGIN_KIND_COUNT ? k_kind_names[kind] : "?";
}

/* The reference table of a kind: what the entries of that kind hold as `ref`. */
static const void *kind_ref_table(gnn_plugin_kind kind)
{
    switch (kind) {
    case GNN_PLUGIN_AGGREGATE: return &gnn_aggregate_ref;
    case GNN_PLUGIN_INDEX_ADD: return &gnn_index_add_ref;
    case GNN_PLUGIN_SPMM: return &gnn_spmm_ref;
    case GNN_PLUGIN_QUANT: return &gnn_quant_ref;
    default: return NULL;
    }
}

gnn_plugin_kind gnn_oracle_entry_kind(const gnn_oracle_entry *e)
{
    if (!e)
        return GNN_PLUGIN_NONE;
    gnn_plugin_kind kind = GNN_PLUGIN_NONE;
    if (e->ops_kind > GNN_PLUGIN_NONE && e->ops_kind < GNN_PLUGIN_KIND_COUNT)
        kind = (gnn_plugin_kind)e->ops_kind;
    for (size_t i = 0; kind == GNN_PLUGIN_NONE && i < sizeof k_entry_kinds / sizeof k_entry_kinds[0]; i++)
        if (fnmatch(k_entry_kinds[i].pattern, e->name, 0) == 0)
            kind = k_entry_kinds[i].kind;
    if (kind == GNN_PLUGIN_NONE || !e->ref || e->ref->ops != kind_ref_table(kind))
        return GNN_PLUGIN_NONE;
    return kind;
}

/* ---- the set -------------------------------------------------------------------------------- */

typedef struct plugin_lib {
    char *path; /* as given */
    void *handle;
} plugin_lib;

typedef struct plugin_impl {
    gnn_oracle_impl impl; /* impl.name points to name */
    gnn_plugin_kind kind;
    int lib;              /* index into libs */
    char name[PLUGIN_NAME_MAX + 1];
} plugin_impl;

struct gnn_plugin_set {
    plugin_lib *libs;
    int n_libs, cap_libs;
    plugin_impl **impls;
    int n_impls, cap_impls;
    const gnn_oracle_impl **by_kind[GNN_PLUGIN_KIND_COUNT]; /* NULL-terminated lists */
};

static const gnn_oracle_impl *const k_no_impls[] = { NULL };

gnn_status gnn_plugin_set_new(gnn_plugin_set **set)
{
    if (!set)
        return GNN_ERR_INVAL;
    *set = calloc(1, sizeof **set);
    return *set ? GNN_OK : GNN_ERR_NOMEM;
}

void gnn_plugin_set_free(gnn_plugin_set *set)
{
    if (!set)
        return;
    for (int i = 0; i < set->n_impls; i++)
        free(set->impls[i]);
    free(set->impls);
    for (int k = 0; k < GNN_PLUGIN_KIND_COUNT; k++)
        free(set->by_kind[k]);
    for (int i = set->n_libs - 1; i >= 0; i--) {
        dlclose(set->libs[i].handle);
        free(set->libs[i].path);
    }
    free(set->libs);
    free(set);
}

int gnn_plugin_count(const gnn_plugin_set *set) { return set ? set->n_impls : 0; }

const gnn_oracle_impl *gnn_plugin_impl(const gnn_plugin_set *set, int i, gnn_plugin_kind *kind, const char **path)
{
    if (!set || i < 0 || i >= set->n_impls)
        return NULL;
    const plugin_impl *p = set->impls[i];
    if (kind)
        *kind = p->kind;
    if (path)
        *path = set->libs[p->lib].path;
    return &p->impl;
}

const char *gnn_plugin_path_of(const gnn_plugin_set *set, const gnn_oracle_impl *impl)
{
    for (int i = 0; set && impl && i < set->n_impls; i++)
        if (&set->impls[i]->impl == impl)
            return set->libs[set->impls[i]->lib].path;
    return NULL;
}

const gnn_oracle_impl *const *gnn_plugin_impls_for(const gnn_plugin_set *set, const gnn_oracle_entry *e)
{
    const gnn_plugin_kind kind = gnn_oracle_entry_kind(e);
    if (!set || kind == GNN_PLUGIN_NONE || !set->by_kind[kind])
        return k_no_impls;
    return set->by_kind[kind];
}

/* The per-kind lists, from scratch (after a load). */
static gnn_status rebuild_lists(gnn_plugin_set *set)
{
    for (int k = 1; k < GNN_PLUGIN_KIND_COUNT; k++) {
        int n = 0;
        for (int i = 0; i < set->n_impls; i++)
            n += set->impls[i]->kind == (gnn_plugin_kind)k;
        const gnn_oracle_impl **list = NULL;
        if (n > 0) {
            if (!(list = calloc((size_t)n + 1, sizeof *list)))
                return GNN_ERR_NOMEM;
            n = 0;
            for (int i = 0; i < set->n_impls; i++)
                if (set->impls[i]->kind == (gnn_plugin_kind)k)
                    list[n++] = &set->impls[i]->impl;
        }
        free(set->by_kind[k]);
        set->by_kind[k] = list;
    }
    return GNN_OK;
}

/* ---- registration ---------------------------------------------------------------------------- */

typedef struct reg_ctx {
    gnn_plugin_set *set;
    int lib;       /* index the library will have */
    int added;     /* implementations added by this plugin */
    int refused;   /* a table was refused: the whole plugin is */
    char why[400]; /* the first refusal, or the plugin's own r->fail */
    char said[240];
} reg_ctx;

static void reg_refuse(reg_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reg_refuse(reg_ctx *x, const char *fmt, ...)
{
    if (x->refused++)
        return; /* the first refusal explains it */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->why, sizeof x->why, fmt, ap);
    va_end(ap);
}

static int name_ok(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++) {
        const char ch = s[n];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
              ch == '.' || ch == '+' || ch == '-'))
            return 0;
        if (n >= PLUGIN_NAME_MAX)
            return 0;
    }
    return n > 0;
}

/* The name of a built-in implementation called `name` of an entry of this kind, or NULL. */
static const gnn_oracle_entry *builtin_named(gnn_plugin_kind kind, const char *name)
{
    for (const gnn_oracle_entry *const *ep = gnn_oracle_registry; *ep; ep++) {
        if (gnn_oracle_entry_kind(*ep) != kind)
            continue;
        if (gnn_oracle_find_impl(*ep, name))
            return *ep;
    }
    return NULL;
}

static gnn_status reg_add(gnn_plugin_registry *r, gnn_plugin_kind kind, const void *ops, unsigned flags)
{
    reg_ctx *x = r ? r->host : NULL;
    if (!x)
        return GNN_ERR_INVAL;
    if ((int)kind <= GNN_PLUGIN_NONE || kind >= GNN_PLUGIN_KIND_COUNT) {
        reg_refuse(x, "add: unknown kind %d (ABI version %u knows kinds 1..%d)", (int)kind, GNN_PLUGIN_ABI_VERSION,
                   GNN_PLUGIN_KIND_COUNT - 1);
        return GNN_ERR_INVAL;
    }
    const char *kn = gnn_plugin_kind_name(kind);
    if (!ops) {
        reg_refuse(x, "add(%s): the table is NULL", kn);
        return GNN_ERR_INVAL;
    }
    const char *name = NULL;
    switch (kind) { /* every kind's table starts with its name */
    case GNN_PLUGIN_AGGREGATE: name = ((const gnn_aggregate_ops *)ops)->name; break;
    case GNN_PLUGIN_INDEX_ADD: name = ((const gnn_index_add_ops *)ops)->name; break;
    case GNN_PLUGIN_SPMM: name = ((const gnn_spmm_ops *)ops)->name; break;
    case GNN_PLUGIN_QUANT: name = ((const gnn_quant_ops *)ops)->name; break;
    default: break;
    }
    if (!name || !name_ok(name)) {
        reg_refuse(x, "add(%s): the table's name %s%.60s%s is not 1 to %d characters of A-Z a-z 0-9 _ . + -", kn,
                   name ? "'" : "", name ? name : "NULL", name ? "'" : "", PLUGIN_NAME_MAX);
        return GNN_ERR_INVAL;
    }
    const unsigned known = GNN_PLUGIN_THREADED | GNN_PLUGIN_THREAD_DEPENDENT;
    if (flags & ~known) {
        reg_refuse(x, "add(%s '%s'): unknown flag bits 0x%x (ABI version %u knows GNN_PLUGIN_THREADED and "
                      "GNN_PLUGIN_THREAD_DEPENDENT)", kn, name, flags & ~known, GNN_PLUGIN_ABI_VERSION);
        return GNN_ERR_INVAL;
    }
    if ((flags & GNN_PLUGIN_THREAD_DEPENDENT) && !(flags & GNN_PLUGIN_THREADED)) {
        reg_refuse(x, "add(%s '%s'): GNN_PLUGIN_THREAD_DEPENDENT without GNN_PLUGIN_THREADED", kn, name);
        return GNN_ERR_INVAL;
    }
    const gnn_oracle_entry *taken = builtin_named(kind, name);
    if (taken || !strcmp(name, "ref")) {
        reg_refuse(x, "add(%s '%s'): the name is taken by a built-in implementation%s%s", kn, name,
                   taken ? " of " : "", taken ? taken->name : "");
        return GNN_ERR_INVAL;
    }
    gnn_plugin_set *set = x->set;
    for (int i = 0; i < set->n_impls; i++)
        if (set->impls[i]->kind == kind && !strcmp(set->impls[i]->name, name)) {
            const char *by = set->impls[i]->lib < set->n_libs ? set->libs[set->impls[i]->lib].path : "this plugin";
            reg_refuse(x, "add(%s '%s'): the name is taken by %s", kn, name, by);
            return GNN_ERR_INVAL;
        }
    if (set->n_impls == set->cap_impls) {
        const int cap = set->cap_impls ? 2 * set->cap_impls : 8;
        plugin_impl **p = realloc(set->impls, (size_t)cap * sizeof *p);
        if (!p) {
            reg_refuse(x, "out of memory");
            return GNN_ERR_NOMEM;
        }
        set->impls = p;
        set->cap_impls = cap;
    }
    plugin_impl *pi = calloc(1, sizeof *pi);
    if (!pi) {
        reg_refuse(x, "out of memory");
        return GNN_ERR_NOMEM;
    }
    snprintf(pi->name, sizeof pi->name, "%s", name);
    pi->kind = kind;
    pi->lib = x->lib;
    pi->impl.name = pi->name;
    pi->impl.ops = ops;
    pi->impl.flags = ((flags & GNN_PLUGIN_THREADED) ? GNN_ORACLE_THREADED : 0u) |
                     ((flags & GNN_PLUGIN_THREAD_DEPENDENT) ? GNN_ORACLE_THREAD_DEPENDENT : 0u);
    set->impls[set->n_impls++] = pi;
    x->added++;
    return GNN_OK;
}

static void reg_fail(gnn_plugin_registry *r, const char *why)
{
    reg_ctx *x = r ? r->host : NULL;
    if (x)
        snprintf(x->said, sizeof x->said, "%s", why ? why : "");
}

/* dlsym into a function pointer without the object-to-function cast ISO C leaves undefined */
static gnn_plugin_register_fn sym_fn(void *handle, const char *name)
{
    void *p = dlsym(handle, name);
    gnn_plugin_register_fn fn = NULL;
    if (p)
        memcpy(&fn, &p, sizeof fn);
    return fn;
}

gnn_status gnn_plugin_load(gnn_plugin_set *set, const char *path, gnn_err *err)
{
    if (!set || !path || !*path)
        return gnn_err_set(err, GNN_ERR_INVAL, "plugin: no file given");
    /* a bare name would make dlopen search the library path: take it in the current directory */
    char open_path[4096];
    if (snprintf(open_path, sizeof open_path, "%s%s", strchr(path, '/') ? "" : "./", path) >= (int)sizeof open_path)
        return gnn_err_set(err, GNN_ERR_INVAL, "%.200s...: path too long", path);
    struct stat st;
    if (stat(open_path, &st) != 0)
        return gnn_err_set(err, GNN_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return gnn_err_set(err, GNN_ERR_IO, "%s: not a regular file", path);
    dlerror();
    void *h = dlopen(open_path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        return gnn_err_set(err, GNN_ERR_IO, "%s: cannot load the library: %s", path, why ? why : "dlopen failed");
    }
    gnn_status s = GNN_OK;
    const gnn_plugin_register_fn fn = sym_fn(h, GNN_PLUGIN_REGISTER_SYMBOL);
    const uint32_t *ver = dlsym(h, GNN_PLUGIN_ABI_SYMBOL);
    if (!fn) {
        s = gnn_err_set(err, GNN_ERR_FORMAT,
                        "%s: not a gnnref plugin: missing symbol %s (define it with GNN_PLUGIN_REGISTER, "
                        "include/gnnref/plugin.h)", path, GNN_PLUGIN_REGISTER_SYMBOL);
    } else if (!ver) {
        s = gnn_err_set(err, GNN_ERR_FORMAT,
                        "%s: missing symbol %s: its ABI version is unknown (define the registration function with "
                        "GNN_PLUGIN_REGISTER, include/gnnref/plugin.h)", path, GNN_PLUGIN_ABI_SYMBOL);
    } else if (*ver != GNN_PLUGIN_ABI_VERSION) {
        s = gnn_err_set(err, GNN_ERR_UNSUPPORTED,
                        "%s: wrong plugin ABI: the plugin was built for ABI version %u, this gnnref loads ABI "
                        "version %u only (rebuild it against this gnnref's include/gnnref/plugin.h)",
                        path, (unsigned)*ver, GNN_PLUGIN_ABI_VERSION);
    }
    if (s) {
        dlclose(h);
        return s;
    }
    if (set->n_libs == set->cap_libs) {
        const int cap = set->cap_libs ? 2 * set->cap_libs : 4;
        plugin_lib *p = realloc(set->libs, (size_t)cap * sizeof *p);
        if (!p) {
            dlclose(h);
            return gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
        }
        set->libs = p;
        set->cap_libs = cap;
    }
    char *path_copy = strdup(path);
    if (!path_copy) {
        dlclose(h);
        return gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
    }
    const int n_before = set->n_impls;
    reg_ctx x = { .set = set, .lib = set->n_libs };
    gnn_plugin_registry r = {
        .abi_version = GNN_PLUGIN_ABI_VERSION,
        .size = (uint32_t)sizeof r,
        .path = path,
        .add = reg_add,
        .fail = reg_fail,
        .host = &x,
    };
    const int rc = fn(&r);
    if (x.refused)
        s = gnn_err_set(err, GNN_ERR_INVAL, "%s: registration failed: %s", path, x.why);
    else if (rc != 0)
        s = gnn_err_set(err, GNN_ERR_INVAL, "%s: registration failed: %s returned %d%s%s", path,
                        GNN_PLUGIN_REGISTER_SYMBOL, rc, x.said[0] ? ": " : "", x.said);
    else if (x.added == 0)
        s = gnn_err_set(err, GNN_ERR_INVAL, "%s: registration failed: the plugin registered no implementation",
                        path);
    if (!s) {
        set->libs[set->n_libs].path = path_copy;
        set->libs[set->n_libs].handle = h;
        set->n_libs++;
        if (rebuild_lists(set) == GNN_OK)
            return GNN_OK;
        set->n_libs--;
        s = gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
    }
    /* undo: the set is as before */
    for (int i = n_before; i < set->n_impls; i++)
        free(set->impls[i]);
    set->n_impls = n_before;
    rebuild_lists(set);
    free(path_copy);
    dlclose(h);
    return s;
}

/* ---- case strings naming a plugin implementation --------------------------------------------- */

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n')
        s++;
    char *end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'))
        *--end = '\0';
    return s;
}

/* The case string is parsed by gnn_oracle_case_parse with impl= set to the entry's reference
 * (and threads= left out), then given the plugin implementation and its thread count: every
 * other key keeps the meaning and the checks of the normal grammar (oracle/case.c). */
gnn_status gnn_plugin_case_parse(const gnn_plugin_set *set, const char *s, gnn_oracle_case *c, gnn_err *err)
{
    if (!set || !s || set->n_impls == 0)
        return gnn_oracle_case_parse(s, c, err);
    const char *open = strchr(s, '('), *close = strrchr(s, ')');
    if (!open || !close || close < open || strlen(s) >= 1024)
        return gnn_oracle_case_parse(s, c, err);
    char name[256], body[1024];
    snprintf(name, sizeof name, "%.*s", (int)(open - s) < 255 ? (int)(open - s) : 255, s);
    snprintf(body, sizeof body, "%.*s", (int)(close - open - 1), open + 1);
    const gnn_oracle_entry *e = gnn_oracle_find(trim(name));
    if (!e || !e->ref)
        return gnn_oracle_case_parse(s, c, err);
    /* impl and threads out of the body, the rest kept in order */
    char rest[1024] = "", impl_buf[128], threads_buf[64];
    const char *impl_val = NULL, *threads_val = NULL;
    size_t len = 0;
    for (char *tok = body, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next)
            *next++ = '\0';
        char *t = trim(tok), kv[1024];
        snprintf(kv, sizeof kv, "%s", t);
        char *eq = strchr(kv, '=');
        if (eq) {
            *eq = '\0';
            const char *key = trim(kv), *val = trim(eq + 1);
            if (!strcmp(key, "impl") && !impl_val) {
                snprintf(impl_buf, sizeof impl_buf, "%s", val);
                impl_val = impl_buf;
                continue;
            }
            if (!strcmp(key, "threads") && !threads_val) {
                snprintf(threads_buf, sizeof threads_buf, "%s", val);
                threads_val = threads_buf;
                continue;
            }
        }
        len += (size_t)snprintf(rest + len, sizeof rest - len, ",%s", t);
        if (len >= sizeof rest)
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: case string too long", e->name);
    }
    const gnn_oracle_impl *const *list = gnn_plugin_impls_for(set, e);
    const gnn_oracle_impl *pi = NULL;
    for (int i = 0; impl_val && list[i]; i++)
        if (!strcmp(list[i]->name, impl_val))
            pi = list[i];
    if (!pi) {
        gnn_status st = gnn_oracle_case_parse(s, c, err); /* ours */
        if (st && impl_val && !gnn_oracle_find_impl(e, impl_val) && list[0]) {
            char have[400] = "";
            size_t hl = 0;
            for (const gnn_oracle_impl *const *ip = e->impls; *ip && hl < sizeof have; ip++)
                hl += (size_t)snprintf(have + hl, sizeof have - hl, "%s, ", (*ip)->name);
            for (int i = 0; list[i] && hl < sizeof have; i++)
                hl += (size_t)snprintf(have + hl, sizeof have - hl, "%s (plugin), ", list[i]->name);
            if (hl >= 2 && hl < sizeof have)
                have[hl - 2] = '\0';
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: no implementation '%s' here (have: %s)", e->name, impl_val,
                               have);
        }
        return st;
    }
    char again[1200];
    snprintf(again, sizeof again, "%s(impl=%s%s%s)", e->name, e->ref->name,
             (e->ref->flags & GNN_ORACLE_THREADED) ? ",threads=1" : "", rest);
    gnn_status st = gnn_oracle_case_parse(again, c, err);
    if (st)
        return st;
    const int threaded = (pi->flags & GNN_ORACLE_THREADED) != 0;
    int64_t threads = 0;
    if (threads_val) {
        char *end;
        errno = 0;
        threads = strtoll(threads_val, &end, 10);
        if (errno || *end || threads < 1 || threads > 1024)
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: threads '%s': expected an integer in 1..1024", e->name,
                               threads_val);
    }
    if (threaded && !threads_val)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: impl=%s is threaded: threads=N is required", e->name, pi->name);
    if (!threaded && threads_val)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: impl=%s is not threaded: drop threads=", e->name, pi->name);
    c->impl = pi;
    c->threads = (int)threads;
    return GNN_OK;
}
