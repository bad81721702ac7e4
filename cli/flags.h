/* cli/flags.h -- one table of flag descriptors per subcommand, and the one parser that reads it
 * (DESIGN.md section 6).
 *
 * A descriptor says everything about a flag once: its name and short alias, its type, its
 * range or choices, where the parsed value goes (an offset into the subcommand's options
 * struct), its help text and how the report names it. From the table come
 *   parsing      cli_parse: --name VALUE, --name=VALUE, -o VALUE, -oVALUE; a positional
 *                argument fills the command's positional flag (the dataset);
 *   validation   a bad value is `gnnref: error: --flag 'value': expected ...`, exit 2;
 *   help         cli_help: every flag with its range and default, generated;
 *   the report   cli_config_json: every flag's effective value in the report's "config".
 * The default a flag shows in --help is the value its options struct holds before parsing,
 * rendered exactly as the report renders it, so help and report cannot disagree.
 *
 * What a subcommand decides itself, after cli_parse: rules between flags ("--heads applies
 * to --model gat only"), for which it asks cli_given / cli_given_tag. */
#ifndef GNNREF_CLI_FLAGS_H
#define GNNREF_CLI_FLAGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

typedef enum cli_type {
    CLI_BOOL,   /* no value: the int at off becomes 1 */
    CLI_INT,    /* an integer in lo..hi, into an int32_t/int or an int64_t (size) */
    CLI_U64,    /* a non-negative integer up to 2^64 - 1 (seeds), into a uint64_t */
    CLI_REAL,   /* a finite number in [rlo, rhi] (CLI_LO_OPEN, CLI_HI_OPEN), into a float or a double */
    CLI_STR,    /* a string (a path), into a const char * */
    CLI_CHOICE, /* one name of `choices`: its value into an int-sized enum */
    CLI_INTS,   /* comma-separated integers in lo..hi, at most max, into int64_t[max]; the count
                   into the int at count_off */
    CLI_IMPL,   /* ref|opt: the implementation context (gnn_impl_select), into a const gnn_impl * */
    CLI_CUSTOM, /* parse() and json() below */
} cli_type;

/* bits */
enum {
    CLI_LO_OPEN = 1u << 0,   /* CLI_REAL: rlo itself is out of range */
    CLI_HI_OPEN = 1u << 1,   /* CLI_REAL: rhi itself is out of range */
    CLI_REQUIRED = 1u << 2,  /* cli_parse fails when the flag is not given */
    CLI_NULL_UNSET = 1u << 3, /* the report says null when the flag is not given (no default) */
};
/* Tags: flags that apply together (the simulator's, gat's, ...). A subcommand names its own
 * tags CLI_TAG(0) .. CLI_TAG(6); CLI_TAG_SIM is the backend table's. */
#define CLI_TAG(n) (1u << (8 + (n)))
#define CLI_TAG_SIM CLI_TAG(7)

typedef struct cli_choice {
    const char *name;
    int value;
    int hidden; /* accepted but not listed: an old spelling kept so that old scripts run */
} cli_choice;

typedef struct cli_flag {
    const char *name;          /* without "--"; NULL ends a table */
    char alias;                /* the short form's letter ('o' for -o), or 0 */
    cli_type type;
    size_t off, size;          /* the value's place in the group's struct: CLI_AT(type, member) */
    const char *meta;          /* the value in --help ("N", "PATH"); choices: generated when NULL */
    const char *help;          /* one sentence or a few; wrapped by cli_help */
    int64_t lo, hi;            /* CLI_INT, CLI_INTS */
    double rlo, rhi;           /* CLI_REAL */
    const cli_choice *choices; /* CLI_CHOICE: ends with { NULL } */
    int max;                   /* CLI_INTS: at most this many values ... */
    size_t count_off;          /* ... and their count (an int) here */
    const char *note;          /* said after the range in help and errors: "0 = auto" */
    const char *dflt;          /* --help's default where the stored value would mislead ("all") */
    const char *key;           /* the config key; NULL: the name with '_' for '-'; "": none */
    unsigned bits;             /* CLI_LO_OPEN, ..., tags */
    /* CLI_CUSTOM: store arg at dst, or write what was expected to why (after "expected ")
     * and return non-zero; json: the value at src as the report gives it */
    int (*parse)(const char *arg, void *dst, char *why, size_t cap);
    json_object *(*json)(const void *src);
} cli_flag;

#define CLI_AT(type, member) .off = offsetof(type, member), .size = sizeof(((type *)0)->member)
#define CLI_END { .name = NULL }

/* One table and where its struct lives in the subcommand's options (the backend table is
 * shared: each subcommand embeds a cli_backend and gives its offset). */
typedef struct cli_group {
    const cli_flag *flags;  /* NULL ends the list of groups */
    size_t base;            /* offsetof(options, the group's struct); 0 for the options themselves */
    const char *title;      /* the heading above it in --help; NULL: none */
} cli_group;

typedef struct cli_command {
    const char *name;       /* "train", "gen rmat" */
    const char *usage;      /* after "usage: gnnref NAME ": "[DATA] [flags]" */
    const char *preface;    /* what the subcommand does, a few lines (printed as written) */
    const char *epilogue;   /* after the flags (NULL: none) */
    const char *positional; /* the flag a positional argument fills ("data"), or NULL: none */
    const char *pos_meta;   /* its name in messages: "DATA" */
    const cli_group *groups;
} cli_command;

/* What cli_parse saw: each flag's position on the command line, 0 when not given. */
#define CLI_MAX_FLAGS 96
typedef struct cli_args {
    const cli_command *cmd;
    int seq[CLI_MAX_FLAGS]; /* flags numbered across the groups, in table order */
} cli_args;

/* cli_parse's "go on" (any other value is the exit code: CLI_OK after --help, else 2). */
enum { CLI_CONTINUE = -1 };

/* Parse argv[1..argc-1] (argv[0] is the subcommand) into opts, which holds the defaults on
 * entry. --help / -h prints cli_help to stdout (from the defaults: nothing is parsed) and
 * returns CLI_OK; an error is printed and returns CLI_USAGE. */
int cli_parse(const cli_command *cmd, int argc, char **argv, void *opts, cli_args *a);
/* --help: usage line, preface, every group's flags with range and default, epilogue. */
void cli_help(FILE *f, const cli_command *cmd, const void *defaults);
/* Several commands under one name (gen rmat, gen sbm): each one's help in turn. */
void cli_help_many(FILE *f, const cli_command *const *cmds, const void *const *defaults);

/* Was the flag given? */
int cli_given(const cli_args *a, const char *name);
/* "--name" of the last given flag carrying a tag in tags, or NULL. */
const char *cli_given_tag(const cli_args *a, unsigned tags);

/* Every flag's effective value from opts into cfg, under its key; flags carrying a tag in
 * na_tags do not apply to this run and are null. */
void cli_config_json(json_object *cfg, const cli_args *a, const void *opts, unsigned na_tags);
/* One flag's value as the report gives it (for a subcommand that reports a flag again). */
json_object *cli_flag_json(const cli_args *a, const char *name, const void *opts);

/* CLI_CUSTOM pairs shared by several subcommands:
 * --split TRAIN,VAL,TEST: three fractions summing to at most 1, into double[3] ... */
int cli_flag_parse_split(const char *arg, void *dst, char *why, size_t cap);
json_object *cli_flag_json_split(const void *src);
/* ... and train's, whose train fraction must be above 0. */
int cli_flag_parse_split_train(const char *arg, void *dst, char *why, size_t cap);
/* The flags every subcommand spells and means alike (DESIGN.md section 6). */
#define CLI_FLAG_DATA(T, m, bits_, help_)                                                                              \
    { .name = "data", .type = CLI_STR, CLI_AT(T, m), .meta = "PATH|builtin", .bits = bits_, .help = help_ }
#define CLI_DATA_HELP "dataset: a native file, a text-layout or OGB directory, or builtin"
#define CLI_FLAG_IMPL(T, m, help_)                                                                                     \
    { .name = "impl", .type = CLI_IMPL, CLI_AT(T, m), .meta = "ref|opt|fma|blas|cuda|cuda-emu", .help = help_ }
#define CLI_FLAG_THREADS(T, m, help_)                                                                                  \
    { .name = "threads", .type = CLI_INT, CLI_AT(T, m), .meta = "N", .lo = 1, .hi = 4096, .dflt = "all",             \
      .help = help_ }
#define CLI_FLAG_SEED(T, m, help_) { .name = "seed", .type = CLI_U64, CLI_AT(T, m), .meta = "S", .help = help_ }
#define CLI_FLAG_JSON(T, m, help_) { .name = "json", .type = CLI_STR, CLI_AT(T, m), .meta = "FILE", .help = help_ }
#define CLI_JSON_HELP "write the JSON report (DESIGN.md section 6 keys)"
#define CLI_FLAG_SPLIT(T, m, bits_, parse_, help_)                                                                     \
    { .name = "split", .type = CLI_CUSTOM, CLI_AT(T, m), .meta = "A,B,C", .bits = bits_, .parse = parse_,           \
      .json = cli_flag_json_split, .help = help_ }
#define CLI_SPLIT_HELP "seeded random train/val/test fractions (replaces the data's split)"

#endif
