/* cli/flags.c -- the one flag parser (cli/flags.h): parsing, validation, --help and the
 * report's "config", all read from the subcommand's table of descriptors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/flags.h"
#include "gnnref/impl.h"

#define HELP_COL 26   /* where the help text of a flag starts */
#define HELP_WIDTH 100 /* where --help wraps */

/* ---- the flags of a command, numbered across its groups ---- */

typedef struct flag_ref {
    const cli_flag *f; /* NULL: none */
    size_t base;
    int idx;
} flag_ref;

static flag_ref find_flag(const cli_command *cmd, const char *name, size_t len, char alias)
{
    int idx = 0;
    for (const cli_group *g = cmd->groups; g->flags; g++)
        for (const cli_flag *f = g->flags; f->name; f++, idx++)
            if (alias ? f->alias == alias : strlen(f->name) == len && !strncmp(f->name, name, len))
                return (flag_ref){ f, g->base, idx };
    return (flag_ref){ NULL, 0, -1 };
}

static flag_ref flag_at(const cli_command *cmd, int want)
{
    int idx = 0;
    for (const cli_group *g = cmd->groups; g->flags; g++)
        for (const cli_flag *f = g->flags; f->name; f++, idx++)
            if (idx == want)
                return (flag_ref){ f, g->base, idx };
    return (flag_ref){ NULL, 0, -1 };
}

int cli_given(const cli_args *a, const char *name)
{
    const flag_ref r = find_flag(a->cmd, name, strlen(name), 0);
    return r.f && a->seq[r.idx] > 0;
}

const char *cli_given_tag(const cli_args *a, unsigned tags)
{
    static _Thread_local char buf[64];
    int best = 0;
    const cli_flag *last = NULL;
    for (int i = 0; i < CLI_MAX_FLAGS; i++) {
        const flag_ref r = flag_at(a->cmd, i);
        if (!r.f)
            break;
        if ((r.f->bits & tags) && a->seq[i] > best) {
            best = a->seq[i];
            last = r.f;
        }
    }
    if (!last)
        return NULL;
    snprintf(buf, sizeof buf, "--%s", last->name);
    return buf;
}

/* ---- values ---- */

static void store_int(void *dst, size_t size, int64_t v)
{
    if (size == sizeof(int64_t)) {
        memcpy(dst, &v, sizeof v);
    } else {
        const int32_t w = (int32_t)v; /* int and the enums: 32 bits here */
        memcpy(dst, &w, sizeof w);
    }
}

static int64_t load_int(const void *src, size_t size)
{
    if (size == sizeof(int64_t)) {
        int64_t v;
        memcpy(&v, src, sizeof v);
        return v;
    }
    int32_t w;
    memcpy(&w, src, sizeof w);
    return w;
}

static double load_real(const void *src, size_t size)
{
    if (size == sizeof(float)) {
        float v;
        memcpy(&v, src, sizeof v);
        return v;
    }
    double v;
    memcpy(&v, src, sizeof v);
    return v;
}

/* "a, b or c": the visible names of a choice flag, with sep between them and last before the
 * final one ("|" twice for the meta). */
static void choice_list(const cli_flag *f, const char *sep, const char *last, char *buf, size_t cap)
{
    static const cli_choice impl_choices[] = { { "ref", 0, 0 },  { "opt", 1, 0 },      { "fma", 3, 0 },
                                               { "blas", 2, 0 }, { "cuda", 4, 0 },     { "cuda-emu", 5, 0 },
                                               { NULL, 0, 0 } };
    const cli_choice *c = f->type == CLI_IMPL ? impl_choices : f->choices;
    int n = 0, k = 0;
    for (const cli_choice *p = c; p->name; p++)
        n += !p->hidden;
    size_t len = 0;
    buf[0] = '\0';
    for (const cli_choice *p = c; p->name && len < cap; p++) {
        if (p->hidden)
            continue;
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", k == 0 ? "" : k == n - 1 ? last : sep, p->name);
        k++;
    }
}

/* What a value must be, after "expected " (and in --help, the range). */
static void expect_text(const cli_flag *f, int for_help, char *buf, size_t cap)
{
    char tmp[160] = "";
    const int open_hi = f->hi == INT32_MAX || f->hi == INT64_MAX; /* a type's limit: say only the lower bound */
    switch (f->type) {
    case CLI_INT:
        if (open_hi)
            snprintf(tmp, sizeof tmp, "%s>= %lld", for_help ? "" : "an integer ", (long long)f->lo);
        else
            snprintf(tmp, sizeof tmp, "%s%lld..%lld", for_help ? "" : "an integer in ", (long long)f->lo,
                     (long long)f->hi);
        break;
    case CLI_U64:
        if (!for_help)
            snprintf(tmp, sizeof tmp, "a non-negative integer");
        break;
    case CLI_REAL:
        snprintf(tmp, sizeof tmp, "%s%c%g, %g%c", for_help ? "" : "a number in ", f->bits & CLI_LO_OPEN ? '(' : '[',
                 f->rlo, f->rhi, f->bits & CLI_HI_OPEN ? ')' : ']');
        break;
    case CLI_INTS:
        if (open_hi)
            snprintf(tmp, sizeof tmp, "%s%d comma-separated integers >= %lld", for_help ? "up to " : "at most ",
                     f->max, (long long)f->lo);
        else
            snprintf(tmp, sizeof tmp, "%s%d comma-separated integers in %lld..%lld", for_help ? "up to " : "at most ",
                     f->max, (long long)f->lo, (long long)f->hi);
        break;
    case CLI_CHOICE:
    case CLI_IMPL:
        if (!for_help)
            choice_list(f, ", ", " or ", tmp, sizeof tmp);
        break;
    default: break;
    }
    if (f->note)
        snprintf(buf, cap, tmp[0] ? (for_help ? "%s, %s" : "%s (%s)") : "%s%s", tmp, f->note);
    else
        snprintf(buf, cap, "%s", tmp);
}

static int bad_value(const cli_flag *f, const char *typed, const char *arg)
{
    char want[200];
    expect_text(f, 0, want, sizeof want);
    return cli_error(CLI_USAGE, "%s '%s': expected %s", typed, arg, want);
}

/* Store arg as f's value at dst; 0, or the usage error printed and CLI_USAGE. */
static int store(const cli_flag *f, void *dst, const char *arg, const char *typed)
{
    int64_t v;
    double x;
    switch (f->type) {
    case CLI_BOOL: store_int(dst, f->size, 1); return 0;
    case CLI_INT:
        if (cli_parse_i64(arg, f->lo, f->hi, &v))
            return bad_value(f, typed, arg);
        store_int(dst, f->size, v);
        return 0;
    case CLI_U64: {
        uint64_t u;
        if (cli_parse_u64(arg, &u))
            return bad_value(f, typed, arg);
        memcpy(dst, &u, sizeof u);
        return 0;
    }
    case CLI_REAL:
        if (cli_parse_f64(arg, f->rlo, f->rhi, &x) || ((f->bits & CLI_LO_OPEN) && x == f->rlo) ||
            ((f->bits & CLI_HI_OPEN) && x == f->rhi))
            return bad_value(f, typed, arg);
        if (f->size == sizeof(float)) {
            const float y = (float)x;
            memcpy(dst, &y, sizeof y);
        } else {
            memcpy(dst, &x, sizeof x);
        }
        return 0;
    case CLI_STR: memcpy(dst, &arg, sizeof arg); return 0;
    case CLI_CHOICE:
        for (const cli_choice *c = f->choices; c->name; c++)
            if (!strcmp(c->name, arg)) {
                store_int(dst, f->size, c->value);
                return 0;
            }
        return bad_value(f, typed, arg);
    case CLI_INTS: {
        int64_t vals[64];
        const int cap = f->max < 64 ? f->max : 64;
        const int n = cli_parse_i64_list(arg, f->lo, f->hi, vals, cap);
        if (n < 1)
            return bad_value(f, typed, arg);
        memcpy(dst, vals, sizeof(int64_t) * (size_t)n);
        memcpy((char *)dst - f->off + f->count_off, &n, sizeof n);
        return 0;
    }
    case CLI_IMPL: {
        /* "cpu", the optimized tier's old name, still selects opt */
        const gnn_impl *impl = gnn_impl_select(!strcmp(arg, "cpu") ? "opt" : arg);
        if (!impl)
            return bad_value(f, typed, arg);
        char why[256];
        if (!gnn_impl_runnable(impl, why, sizeof why)) /* cuda without a GPU: say so now, not mid-run */
            return cli_error(CLI_FAIL, "%s %s: the %s context cannot run here: %s (--impl cuda-emu runs the same "
                             "kernels on the CPU)", typed, arg, impl->name, why);
        memcpy(dst, &impl, sizeof impl);
        return 0;
    }
    case CLI_CUSTOM: {
        char why[256] = "";
        if (f->parse(arg, dst, why, sizeof why))
            return cli_error(CLI_USAGE, "%s '%s': %s", typed, arg, why);
        return 0;
    }
    }
    return cli_error(CLI_USAGE, "internal: flag --%s has no type", f->name);
}

/* f's value in the struct at src, as the report gives it (NULL: null). */
static json_object *value_json(const cli_flag *f, const char *src, int given)
{
    const char *p = src + f->off;
    if ((f->bits & CLI_NULL_UNSET) && !given)
        return NULL;
    switch (f->type) {
    case CLI_BOOL: return json_object_new_boolean(load_int(p, f->size) != 0);
    case CLI_INT:
        return f->size == sizeof(int64_t) ? json_object_new_int64(load_int(p, f->size))
                                          : json_object_new_int((int)load_int(p, f->size));
    case CLI_U64: {
        uint64_t u;
        memcpy(&u, p, sizeof u);
        return json_object_new_uint64(u);
    }
    case CLI_REAL: return json_object_new_double(load_real(p, f->size));
    case CLI_STR: {
        const char *s;
        memcpy(&s, p, sizeof s);
        return s ? json_object_new_string(s) : NULL;
    }
    case CLI_CHOICE: {
        const int64_t v = load_int(p, f->size);
        for (const cli_choice *c = f->choices; c->name; c++)
            if (!c->hidden && c->value == v)
                return json_object_new_string(c->name);
        return NULL;
    }
    case CLI_INTS: {
        int n;
        memcpy(&n, src + f->count_off, sizeof n);
        return cli_json_i64_array((const int64_t *)(const void *)p, n, 1);
    }
    case CLI_IMPL: {
        const gnn_impl *impl;
        memcpy(&impl, p, sizeof impl);
        return json_object_new_string(impl ? impl->name : "opt");
    }
    case CLI_CUSTOM: return f->json(p);
    }
    return NULL;
}

static void config_key(const cli_flag *f, char *key, size_t cap)
{
    snprintf(key, cap, "%s", f->key ? f->key : f->name);
    for (char *c = key; *c; c++)
        if (*c == '-')
            *c = '_';
}

void cli_config_json(json_object *cfg, const cli_args *a, const void *opts, unsigned na_tags)
{
    int idx = 0;
    for (const cli_group *g = a->cmd->groups; g->flags; g++)
        for (const cli_flag *f = g->flags; f->name; f++, idx++) {
            if (f->key && !f->key[0])
                continue;
            char key[64];
            config_key(f, key, sizeof key);
            json_object_object_add(cfg, key,
                                   (f->bits & na_tags) ? NULL
                                                       : value_json(f, (const char *)opts + g->base, a->seq[idx] > 0));
        }
}

json_object *cli_flag_json(const cli_args *a, const char *name, const void *opts)
{
    const flag_ref r = find_flag(a->cmd, name, strlen(name), 0);
    return r.f ? value_json(r.f, (const char *)opts + r.base, a->seq[r.idx] > 0) : NULL;
}

/* ---- parsing ---- */

typedef struct item {
    flag_ref r;
    const char *value; /* NULL for a positional argument's own flag: see pos */
    char typed[64];    /* the flag as written ("--json", "-o"), for messages */
} item;

/* The first pass: which flag each argument is and its value, as getopt_long would read them
 * (values may start with '-': --patience -1). Stops at --help (1), at an error (CLI_USAGE,
 * printed) or at the end (0). */
static int scan(const cli_command *cmd, int argc, char **argv, item *items, int *n_items, const char **pos)
{
    int only_positional = 0;
    *n_items = 0;
    *pos = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        item *it = &items[*n_items];
        if (!only_positional && !strcmp(arg, "--")) {
            only_positional = 1;
            continue;
        }
        if (!only_positional && (!strcmp(arg, "--help") || !strcmp(arg, "-h")))
            return 1;
        if (only_positional || arg[0] != '-' || arg[1] == '\0') {
            if (!cmd->positional || *pos)
                return cli_error(CLI_USAGE, "%s: unexpected argument '%s'", cmd->name, arg);
            *pos = arg;
            continue;
        }
        const char *val = NULL;
        if (arg[1] == '-') {
            const char *eq = strchr(arg + 2, '=');
            const size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
            it->r = find_flag(cmd, arg + 2, len, 0);
            snprintf(it->typed, sizeof it->typed, "--%.*s", (int)len, arg + 2);
            val = eq ? eq + 1 : NULL;
        } else {
            it->r = find_flag(cmd, NULL, 0, arg[1]);
            snprintf(it->typed, sizeof it->typed, "-%c", arg[1]);
            val = arg[2] ? arg + 2 : NULL;
        }
        if (!it->r.f)
            return cli_error(CLI_USAGE, "%s: unknown or incomplete flag '%s' (gnnref %s --help lists the flags)",
                             cmd->name, arg, cmd->name);
        if (it->r.f->type == CLI_BOOL) {
            if (val)
                return cli_error(CLI_USAGE, "%s takes no value (given '%s')", it->typed, val);
        } else if (!val) {
            if (i + 1 >= argc)
                return cli_error(CLI_USAGE, "%s: %s needs a value", cmd->name, it->typed);
            val = argv[++i];
        }
        it->value = val;
        ++*n_items;
    }
    return 0;
}

/* The name a message gives a flag the user did not write: -o OUT, --parts K. */
static void flag_spelling(const cli_flag *f, char *buf, size_t cap)
{
    if (f->alias)
        snprintf(buf, cap, "-%c%s%s", f->alias, f->meta ? " " : "", f->meta ? f->meta : "");
    else
        snprintf(buf, cap, "--%s%s%s", f->name, f->meta ? " " : "", f->meta ? f->meta : "");
}

static int check_required(const cli_command *cmd, const cli_args *a)
{
    for (int i = 0; i < CLI_MAX_FLAGS; i++) {
        const flag_ref r = flag_at(cmd, i);
        if (!r.f)
            break;
        if (!(r.f->bits & CLI_REQUIRED) || a->seq[i] > 0)
            continue;
        if (cmd->positional && !strcmp(cmd->positional, r.f->name))
            return cli_error(CLI_USAGE, "%s: %s is required (a dataset path or 'builtin', as %s or --%s %s; see "
                                        "gnnref %s --help)",
                             cmd->name, cmd->pos_meta, cmd->pos_meta, r.f->name, r.f->meta, cmd->name);
        char spell[64];
        flag_spelling(r.f, spell, sizeof spell);
        return cli_error(CLI_USAGE, "%s: %s is required (see gnnref %s --help)", cmd->name, spell, cmd->name);
    }
    return 0;
}

int cli_parse(const cli_command *cmd, int argc, char **argv, void *opts, cli_args *a)
{
    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    item *items = calloc((size_t)(argc > 0 ? argc : 1), sizeof *items);
    if (!items)
        return cli_error(CLI_FAIL, "out of memory");
    int n = 0, rc;
    const char *pos = NULL;
    if ((rc = scan(cmd, argc, argv, items, &n, &pos))) {
        free(items);
        if (rc == 1) {
            cli_help(stdout, cmd, opts);
            return CLI_OK;
        }
        return rc;
    }
    /* the values, in command-line order: the last of a repeated flag wins */
    for (int k = 0; k < n; k++) {
        const cli_flag *f = items[k].r.f;
        if ((rc = store(f, (char *)opts + items[k].r.base + f->off, items[k].value, items[k].typed))) {
            free(items);
            return rc; /* CLI_USAGE, or CLI_FAIL where the value is right but cannot run here */
        }
        a->seq[items[k].r.idx] = k + 1;
    }
    free(items);
    if (pos) {
        const flag_ref r = find_flag(cmd, cmd->positional, strlen(cmd->positional), 0);
        if (a->seq[r.idx] > 0) {
            const char *given;
            memcpy(&given, (char *)opts + r.base + r.f->off, sizeof given);
            return cli_error(CLI_USAGE, "%s: two datasets: '%s' and --%s '%s'", cmd->name, pos, r.f->name, given);
        }
        memcpy((char *)opts + r.base + r.f->off, &pos, sizeof pos);
        a->seq[r.idx] = n + 1;
    }
    return check_required(cmd, a) ? CLI_USAGE : CLI_CONTINUE;
}

/* ---- --help ---- */

/* A JSON value as a default in --help: "none" for null, lists joined by commas. */
static void render(json_object *v, char *buf, size_t cap)
{
    buf[0] = '\0';
    switch (json_object_get_type(v)) {
    case json_type_null: snprintf(buf, cap, "none"); break;
    case json_type_boolean: snprintf(buf, cap, "%s", json_object_get_boolean(v) ? "on" : "off"); break;
    case json_type_double: snprintf(buf, cap, "%g", json_object_get_double(v)); break;
    case json_type_array: {
        size_t len = 0;
        for (size_t i = 0; i < json_object_array_length(v) && len < cap; i++) {
            char one[64];
            render(json_object_array_get_idx(v, i), one, sizeof one);
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "," : "", one);
        }
        break;
    }
    default: snprintf(buf, cap, "%s", json_object_get_string(v)); break;
    }
}

/* Print text from column col (the cursor is there) to HELP_WIDTH, continuation lines
 * indented to col. NBSP joins words that stay on one line ("default 0"). */
#define NBSP '\x01'
static void wrap(FILE *out, const char *text, int col)
{
    int x = col;
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        const size_t w = strcspn(p, " ");
        if (!w)
            break;
        if (x > col && x + 1 + (int)w > HELP_WIDTH) {
            fprintf(out, "\n%*s", col, "");
            x = col;
        } else if (x > col) {
            fputc(' ', out);
            x++;
        }
        for (size_t i = 0; i < w; i++)
            fputc(p[i] == NBSP ? ' ' : p[i], out);
        x += (int)w;
        p += w;
    }
    fputc('\n', out);
}

static void help_flag(FILE *out, const cli_flag *f, const char *defaults)
{
    char head[96], meta[96], range[200], dflt[160], text[1024];
    if (f->meta)
        snprintf(meta, sizeof meta, " %s", f->meta);
    else if (f->type == CLI_CHOICE || f->type == CLI_IMPL) {
        meta[0] = ' ';
        choice_list(f, "|", "|", meta + 1, sizeof meta - 1);
    } else {
        meta[0] = '\0';
    }
    if (f->alias)
        snprintf(head, sizeof head, "  -%c, --%s%s", f->alias, f->name, meta);
    else
        snprintf(head, sizeof head, "  --%s%s", f->name, meta);
    expect_text(f, 1, range, sizeof range);
    if (f->bits & CLI_REQUIRED) {
        snprintf(dflt, sizeof dflt, "required");
    } else if (f->dflt) {
        snprintf(dflt, sizeof dflt, "default%c%s", NBSP, f->dflt);
    } else {
        json_object *v = value_json(f, defaults, 0);
        char r[140];
        render(v, r, sizeof r);
        json_object_put(v);
        snprintf(dflt, sizeof dflt, "default%c%s", NBSP, r);
    }
    snprintf(text, sizeof text, "%s (%s%s%s)", f->help, range, range[0] ? "; " : "", dflt);
    fputs(head, out);
    const int len = (int)strlen(head);
    if (len >= HELP_COL - 1)
        fprintf(out, "\n%*s", HELP_COL, "");
    else
        fprintf(out, "%*s", HELP_COL - len, "");
    wrap(out, text, HELP_COL);
}

void cli_help(FILE *f, const cli_command *cmd, const void *defaults)
{
    fprintf(f, "usage: gnnref %s %s\n", cmd->name, cmd->usage);
    if (cmd->preface)
        fprintf(f, "%s", cmd->preface);
    for (const cli_group *g = cmd->groups; g->flags; g++) {
        if (g->title)
            fprintf(f, "%s\n", g->title);
        for (const cli_flag *fl = g->flags; fl->name; fl++)
            help_flag(f, fl, (const char *)defaults + g->base);
    }
    if (cmd->epilogue)
        fprintf(f, "%s", cmd->epilogue);
}

void cli_help_many(FILE *f, const cli_command *const *cmds, const void *const *defaults)
{
    for (int i = 0; cmds[i]; i++) {
        if (i)
            fputc('\n', f);
        cli_help(f, cmds[i], defaults[i]);
    }
}

/* ---- the shared custom flags ---- */

static int parse_split(const char *arg, double *fr, int need_train, char *why, size_t cap)
{
    double v[3];
    if (cli_parse_f64_list(arg, 0.0, 1.0, v, 3) != 3 || v[0] + v[1] + v[2] > 1.0 + 1e-9 || (need_train && v[0] <= 0)) {
        snprintf(why, cap, "expected TRAIN,VAL,TEST fractions summing to at most 1%s",
                 need_train ? ", with TRAIN > 0" : "");
        return 1;
    }
    memcpy(fr, v, sizeof v);
    return 0;
}

int cli_flag_parse_split(const char *arg, void *dst, char *why, size_t cap) { return parse_split(arg, dst, 0, why, cap); }

int cli_flag_parse_split_train(const char *arg, void *dst, char *why, size_t cap)
{
    return parse_split(arg, dst, 1, why, cap);
}

json_object *cli_flag_json_split(const void *src)
{
    const double *fr = src;
    json_object *a = json_object_new_array();
    for (int k = 0; k < 3; k++)
        json_object_array_add(a, json_object_new_double(fr[k]));
    return a;
}
