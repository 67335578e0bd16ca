/* Command-line parsing shared by every example (plain C, header-only, no GPU needed): an example says
 * in a cli_spec which options it takes; cli_parse() fills a cli_options or says in one line on stderr
 * what is wrong, before any CUDA call, so bad input gets exit 2 even on a machine without a GPU. */
#ifndef COMMON_CLI_H
#define COMMON_CLI_H

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "element_type.h"

/* Which options an example accepts (bit flags for cli_spec.accepts): cli_table_ says which options each offers. */
enum cli_accepts {
    CLI_N = 1 << 0,
    CLI_KERNEL = 1 << 1,
    CLI_TYPE = 1 << 2,
    CLI_REPS = 1 << 3,
    CLI_CHECK = 1 << 4,
    CLI_DEVICE = 1 << 5,
    CLI_BLOCK = 1 << 6,
    CLI_DATA = 1 << 7,
    CLI_ROWS_COLS = 1 << 8, /* --n N is then a square matrix */
    CLI_BITMAP = 1 << 9,
    CLI_SEED = 1 << 10,
    CLI_COLD_L2 = 1 << 11,
    CLI_BANK_MODEL = 1 << 12
};

#ifndef CUDA_CPU_RUNNER /* the CPU runner's build defines these (cpu_runner/cuda_on_cpu.h) */
#define ON_CPU_RUNNER 0
#define cpu_runner_take_options(spec, options)
#endif

#define CLI_MAX_KERNELS 32
#define CLI_MAX_OWN_OPTIONS 4

/* An option only one program takes, with its line for --help; the program checks its value. */
typedef struct {
    const char *name;  /* "--part"                                   */
    const char *value; /* what its value is called in --help: "P"  */
    const char *help;  /* one line (more lines: "\n" and 23 spaces)  */
} cli_own_option;

typedef struct {
    const char *program;           /* "dot"                                 */
    const char *summary;           /* one line for --help                   */
    unsigned accepts;              /* enum cli_accepts, or-ed               */
    const char *const *kernels;    /* NULL-terminated kernel names         */
    const char *const *data_kinds; /* NULL-terminated, first = default   */
    long long default_n;
    long long default_rows, default_cols;
    int default_block;
    const char *extra_help;            /* printed after the options, or NULL   */
    const char *const *wrong_kernels;  /* run only when named, never under all; indices follow the kernels' */
    const cli_own_option *own_options; /* ends with {NULL}; their text is left in own_values to check */
    const char *exit_codes;            /* exit codes beyond 0, 1, 2, 3 and 77 ("  4  ..."), or NULL */
    const char *block_rule;            /* what --block must be, said for any --block refused, or NULL */
    long long cpu_default_n; /* the CPU runner's --n when none is given (0: default_n): a book size too slow there */
} cli_spec;

typedef struct {
    long long n; /* elements (rows * cols with CLI_ROWS_COLS) */
    long long rows, cols;
    unsigned kernel_mask; /* bit i set: spec->kernels[i] selected      */
    element_type type;
    int reps;
    int check_only;
    int device;
    int block;
    int data_kind; /* index into spec->data_kinds               */
    unsigned long long seed;
    int cold_l2;    /* flush the L2 before every timed run */
    int bank_model; /* print the bank model's predictions and stop: no GPU touched */
    int no_sync, no_window;
    const char *save_path, *save_diff_path;
    const char *own_values[CLI_MAX_OWN_OPTIONS]; /* spec->own_options[i]'s value, or NULL */
    int size_given;                              /* on the command line: --n (1), --rows or --cols (2), both (3) */
} cli_options;

enum cli_status { CLI_OK = 0, CLI_EXIT_HELP = 1, CLI_EXIT_ERROR = 2 };

/* Largest count we accept: beyond any GPU's memory, far below overflow. */
#define CLI_MAX_COUNT (1LL << 50)

typedef struct {
    const char *name, *value; /* value: what --help calls it; NULL: a flag, which takes none */
    unsigned accepts;         /* the cli_accepts bit that offers it, and says how cli_parse reads it */
    size_t field;             /* offsetof(cli_options, what it fills), for the options read alike */
    long long min, max;       /* a whole number's range */
    const char *help;         /* its --help line ("\n" and 23 spaces: one more; NULL: in another's); %s: its default */
} cli_option_;

/* Every option of cli.h, once, in --help's order: cli_parse, --help and cli_accepts read it. Accepted by 0: every
 * program's, read elsewhere (--help first, --cpu by the CPU runner); --data's %s: its kinds, then its default. */
#define CLI_FIELD_(name) offsetof(cli_options, name)
static const cli_option_ cli_table_[] = {
    {"--help", NULL, 0, 0, 0, 0, "print this help and exit"},
    {"--n", "N", CLI_N, CLI_FIELD_(n), 0, 0, "number of elements (default %s; 1e8 and 2^26 forms work)"},
    {"--rows", "R, --cols C", CLI_ROWS_COLS, CLI_FIELD_(rows), 0, 0, "matrix size (default %s)"},
    {"--cols", "C", CLI_ROWS_COLS, CLI_FIELD_(cols), 0, 0, NULL},
    {"--n", "N", CLI_ROWS_COLS, CLI_FIELD_(n), 0, 0, "square N x N matrix"},
    {"--kernel", "NAME", CLI_KERNEL, 0, 0, 0, "one or more of: %s (comma-separated), or all (default)"},
    {"--type", "T", CLI_TYPE, 0, 0, 0, "float (default) or double"},
    {"--block", "B", CLI_BLOCK, 0, 0, 0, "threads per block (default %s)"},
    {"--data", "KIND", CLI_DATA, 0, 0, 0, "input data: %s (default %s)"},
    {"--seed", "S", CLI_SEED, CLI_FIELD_(seed), 0, CLI_MAX_COUNT, "seed for random data (default 1)"},
    {"--reps", "R", CLI_REPS, CLI_FIELD_(reps), 1, 100000, "timed repeats; the median is reported (default 20)"},
    {"--check", NULL, CLI_CHECK, CLI_FIELD_(check_only), 0, 0, "verify only, no timing (what the tests use)"},
    {"--cold-l2", NULL, CLI_COLD_L2, CLI_FIELD_(cold_l2), 0, 0, "flush the L2 before every timed run (default: warm)"},
    {"--device", "D", CLI_DEVICE, CLI_FIELD_(device), 0, 1023, "CUDA device number (default 0)"},
    {"--cpu", NULL, 0, 0, 0, 0,
     "run on the CPU runner (no GPU needed): CUDA's rules on the CPU, every\n                       shared-memory "
     "race and barrier error reported with its line; --check"},
    {"--cpu-order", "ORDER", 0, 0, 0, 0, "its thread order: forward (default), reverse, random:SEED, lockstep"},
    {"--bank-model", NULL, CLI_BANK_MODEL, CLI_FIELD_(bank_model), 0, 0,
     "print the bank model: each shared-memory instruction's passes per\n                       warp, as "
     "predicted (no GPU needed), and stop"},
    {"--no-sync", NULL, CLI_BITMAP, CLI_FIELD_(no_sync), 0, 0, "leave out the __syncthreads() (the racy version)"},
    {"--save", "FILE.png", CLI_BITMAP, CLI_FIELD_(save_path), 0, 0, "save the image as PNG"},
    {"--save-diff", "FILE.png", CLI_BITMAP, CLI_FIELD_(save_diff_path), 0, 0,
     "save an image marking the pixels that differ from the CPU reference"},
    {"--no-window", NULL, CLI_BITMAP, CLI_FIELD_(no_window), 0, 0, "do not open a window (save PNG instead)"},
    {NULL, NULL, 0, 0, 0, 0, NULL}};
#undef CLI_FIELD_

static inline int is_power_of_two(long long value) { return value > 0 && (value & (value - 1)) == 0; }

static inline int cli_kernel_selected(const cli_options *options, int kernel_index) {
    return (options->kernel_mask >> kernel_index) & 1u;
}

/* A positive whole number: "100000000", "1e8", "2.5e3", "2^26". 0 on success,
 * -2 for a whole number above 2^50 (or too large for a double), -1 for anything else. */
static inline int cli_parse_count(const char *text, long long *value) {
    if (text == NULL || *text == '\0') return -1;
    for (const char *c = text; *c; ++c) /* no sign, no spaces, no hex */
        if (!strchr("0123456789.eE^+", *c)) return -1;
    const char *caret = strchr(text, '^');
    double result;
    char *end;
    if (caret) { /* base^exponent, both whole numbers */
        errno = 0;
        long long base = strtoll(text, &end, 10);
        if (end != caret || errno || base < 1) return -1;
        long long exponent = strtoll(caret + 1, &end, 10);
        if (*end || caret[1] == '\0' || caret[1] == '+' || caret[1] == '-') return -1;
        if (base == 1) exponent = 0;           /* 1^anything = 1 */
        if (errno || exponent > 62) return -2; /* 2^64, 10^99999999999999999999 */
        result = pow((double)base, (double)exponent);
    } else {
        if (text[0] == '+' || text[0] == '.' || text[0] == 'e' || text[0] == 'E') return -1;
        errno = 0;
        result = strtod(text, &end);
        if (*end) return -1;
        if (errno == ERANGE) return result > 1 ? -2 : -1; /* 1e400 is too large; 1e-400 is no whole number */
    }
    if (!(result >= 1.0) || result != floor(result)) return -1;
    if (result > (double)CLI_MAX_COUNT) return -2; /* a whole number, but too large */
    *value = (long long)result;
    return 0;
}

static inline int cli_index_in_(const char *const *names, const char *name) {
    for (int i = 0; names && names[i]; ++i)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

static inline void cli_join_names_(char *buffer, size_t size, const char *const *names) {
    buffer[0] = '\0';
    for (int i = 0; names && names[i]; ++i) {
        if (i) strncat(buffer, ", ", size - strlen(buffer) - 1);
        strncat(buffer, names[i], size - strlen(buffer) - 1);
    }
}

/* LEAD padded to column 23, then BODY's words wrapped before column 100 under it. */
static inline void cli_print_wrapped_(FILE *out, const char *lead, const char *body) {
    int column = fprintf(out, "%-22s ", lead);
    for (const char *word = body + strspn(body, " "); *word; word += strspn(word, " ")) {
        int length = (int)strcspn(word, " ");
        if (column > 23 && column + 1 + length > 100) column = fprintf(out, "\n%23s", "") - 1;
        column += fprintf(out, "%s%.*s", column > 23 ? " " : "", length, word);
        word += length;
    }
    fprintf(out, "\n");
}

/* "  --name VALUE" to column 23, then its help: as it is, or wrapped (a list of names). */
static inline void cli_print_option_(FILE *out, const char *name, const char *value, const char *help, int wrapped) {
    char usage[64];
    snprintf(usage, sizeof usage, "  %s%s%s", name, value ? " " : "", value ? value : "");
    if (wrapped) cli_print_wrapped_(out, usage, help);
    if (!wrapped) fprintf(out, "%-22s %s\n", usage, help);
}

static inline void cli_print_usage_(const cli_spec *spec, FILE *out) {
    char words[512], line[640];
    fprintf(out, "%s: %s\n\nUsage: %s [options]\n\nOptions:\n", spec->program, spec->summary, spec->program);
    for (const cli_option_ *row = cli_table_; row->name; ++row) { /* each help line's %s: the spec's default */
        if (!row->help || (row->accepts && !(spec->accepts & row->accepts))) continue;
        cli_join_names_(words, sizeof words, row->accepts == CLI_DATA ? spec->data_kinds : spec->kernels);
        if (row->accepts == CLI_ROWS_COLS)
            snprintf(words, sizeof words, "%lld x %lld", spec->default_rows, spec->default_cols);
        if (row->accepts & (CLI_N | CLI_BLOCK))
            snprintf(words, sizeof words, "%lld", row->accepts == CLI_N ? spec->default_n : spec->default_block);
        snprintf(line, sizeof line, row->help, words, row->accepts == CLI_DATA ? spec->data_kinds[0] : "");
        cli_print_option_(out, row->name, row->value, line, row->accepts == CLI_KERNEL);
        if (row->accepts == CLI_KERNEL && spec->wrong_kernels) {
            cli_join_names_(words, sizeof words, spec->wrong_kernels);
            snprintf(line, sizeof line, "deliberately wrong, run only when named: %s", words);
            cli_print_wrapped_(out, "", line);
        }
    }
    for (int i = 0; spec->own_options && spec->own_options[i].name; ++i)
        cli_print_option_(out, spec->own_options[i].name, spec->own_options[i].value, spec->own_options[i].help, 0);
    fprintf(out,
            "\nExit codes:\n  0  every check passed\n  1  a GPU result was wrong\n"
            "  2  bad command line%s\n  3  a CUDA call failed (the GPU or its driver is there but broken)\n",
            spec->accepts & (CLI_N | CLI_ROWS_COLS) ? ", or a size that does not fit in memory" : "");
    if (spec->exit_codes) fprintf(out, "%s\n", spec->exit_codes);
    fprintf(out, "  4  the CPU runner found a deadlock (a warp split between two barriers)\n"
                 "  77 no CUDA device or no driver (CTest: skipped)\n");
    if (spec->extra_help) fprintf(out, "\n%s\n", spec->extra_help);
}

/* "<program>: <message>" (a printf format and its values) on err, and CLI_EXIT_ERROR; cli_exit_bad: on
 * stderr, then exit 2 (what a program's own check of its options refuses). */
#define cli_say_(err, program, ...)                                                                                    \
    (fprintf(err, "%s: ", program), fprintf(err, __VA_ARGS__), fputc('\n', err), CLI_EXIT_ERROR)
#define cli_fail_(spec, err, ...) cli_say_(err, (spec)->program, __VA_ARGS__)
#define cli_exit_bad(program, ...) exit(cli_say_(stderr, program, __VA_ARGS__))

/* --kernel's list: all (the mask cli_parse starts from), or names (a name twice runs once); a wrong kernel's
 * bit follows the kernels'. */
static inline int cli_parse_kernels_(const cli_spec *spec, const char *list, unsigned *mask, FILE *err) {
    char names[512], item[128];
    int count = 0;
    while (spec->kernels[count])
        ++count;
    cli_join_names_(names, sizeof names, spec->kernels);
    for (const char *start = list; strcmp(list, "all") != 0; start += strcspn(start, ",") + 1) {
        const size_t length = strcspn(start, ",");
        if (length == 0 || length >= sizeof item)
            return cli_fail_(spec, err, "--kernel: empty or too long kernel name in '%s'", list);
        snprintf(item, sizeof item, "%.*s", (int)length, start);
        if (strcmp(item, "all") == 0)
            return cli_fail_(spec, err, "--kernel %s: 'all' stands alone (all, or a list of names without it)", list);
        const int index = cli_index_in_(spec->kernels, item), wrong = cli_index_in_(spec->wrong_kernels, item);
        if (index < 0 && wrong < 0)
            return cli_fail_(spec, err, "unknown kernel '%s' (choose from %s, or all)", item, names);
        if (start == list) *mask = 0; /* the first name: none selected yet */
        *mask |= 1u << (index >= 0 ? index : count + wrong);
        if (!start[length]) break;
    }
    return CLI_OK;
}

static inline int cli_parse_int_option_(const cli_spec *spec, const char *option, const char *value, long long min,
                                        long long max, long long *out, FILE *err) {
    long long number = 0;
    const int zero = strcmp(value, "0") == 0 && min == 0; /* cli_parse_count takes no 0 */
    if (!zero && (cli_parse_count(value, &number) != 0 || number < min || number > max))
        return cli_fail_(spec, err, "%s needs a whole number from %lld to %lld, got '%s'", option, min, max, value);
    *out = number;
    return CLI_OK;
}

/* The program's own option i as a whole number from min to max (fallback: not given), or exit 2 saying so. */
static inline long long cli_own_number(const cli_spec *spec, const cli_options *o, int i, long long min, long long max,
                                       long long fallback) {
    const char *value = o->own_values[i];
    if (value && cli_parse_int_option_(spec, spec->own_options[i].name, value, min, max, &fallback, stderr))
        exit(CLI_EXIT_ERROR);
    return fallback;
}

/* Parses argv. CLI_OK: run. CLI_EXIT_HELP: usage printed to out, exit 0.
 * CLI_EXIT_ERROR: one line printed to err, exit 2. */
static inline int cli_parse(const cli_spec *spec, int argc, char **argv, cli_options *o, FILE *out, FILE *err) {
    long long number;
    char names[256], seen[32][64]; /* --data's names; the options seen (each is given at most once) */
    int seen_count = 0;
    memset(o, 0, sizeof *o);
    o->n = spec->default_n;
    o->rows = spec->default_rows;
    o->cols = spec->default_cols;
    o->type = ELEMENT_FLOAT;
    o->reps = 20;
    o->block = spec->default_block;
    o->seed = 1;
    for (int i = 0; spec->kernels && spec->kernels[i] && i < CLI_MAX_KERNELS; ++i)
        o->kernel_mask |= 1u << i;
    for (int i = 0; spec->own_options && spec->own_options[i].name; ++i)
        if (i == CLI_MAX_OWN_OPTIONS) /* a mistake in the program, not on the command line */
            return cli_fail_(spec, err, "more own options than CLI_MAX_OWN_OPTIONS (raise it in cli.h)");
    for (int i = 1; i < argc; ++i) /* --help wins wherever it stands, beside anything */
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            cli_print_usage_(spec, out);
            return CLI_EXIT_HELP;
        }

    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i], *equals = strchr(arg, '=');
        char name[64]; /* --flag, --name VALUE or --name=VALUE; any other word whole (63 characters) */
        const char *value = strncmp(arg, "--", 2) == 0 && equals && equals - arg < 64 ? equals + 1 : NULL;
        snprintf(name, sizeof name, "%.*s", value ? (int)(equals - arg) : 63, arg);
        int own = -1; /* the program's own names come first */
        for (int k = 0; own < 0 && spec->own_options && spec->own_options[k].name; ++k)
            if (strcmp(spec->own_options[k].name, name) == 0) own = k;
        const cli_option_ *row = cli_table_; /* NAME's row for this program, or the end's: none */
        while (row->name && (!(spec->accepts & row->accepts) || strcmp(row->name, name) != 0))
            ++row;
        char *field = (char *)o + row->field; /* what a row of cli_table_ fills */
        if (own < 0 && (!row->name || (!row->value && value)))
            return cli_fail_(spec, err, "unknown option '%s' (try --help)", arg);
        for (int s = 0; s < seen_count; ++s)
            if (strcmp(seen[s], name) == 0) return cli_fail_(spec, err, "%s given twice: give it once", name);
        if (seen_count < 32) snprintf(seen[seen_count++], sizeof seen[0], "%s", name);
        if (own >= 0 || row->value) { /* an option: its value after '=', or the next word */
            if (!value && i + 1 >= argc) return cli_fail_(spec, err, "%s needs a value (try --help)", name);
            if (!value) value = argv[++i];
            if (value[0] == '\0') return cli_fail_(spec, err, "%s needs a value, got an empty one", name);
        }
        if (own >= 0) { /* the program checks the text itself */
            o->own_values[own] = value;
        } else if (!row->value) { /* a flag */
            *(int *)field = 1;
        } else if (row->accepts & (CLI_N | CLI_ROWS_COLS)) {
            const int parsed = cli_parse_count(value, (long long *)field);
            if (parsed)
                return cli_fail_(spec, err,
                                 parsed == -2 ? "%s %s is too large: at most 2^50, far beyond any GPU's memory"
                                              : "%s needs a whole number >= 1 (like 1000, 1e8 or 2^26), got '%s'",
                                 name, value);
            o->size_given |= row->field == offsetof(cli_options, n) ? 1 : 2;
        } else if (row->accepts == CLI_KERNEL) {
            if (cli_parse_kernels_(spec, value, &o->kernel_mask, err) != CLI_OK) return CLI_EXIT_ERROR;
        } else if (row->accepts == CLI_TYPE) {
            if (strcmp(value, "float") != 0 && strcmp(value, "double") != 0)
                return cli_fail_(spec, err, "%s must be float or double, got '%s'", name, value);
            o->type = strcmp(value, "double") == 0 ? ELEMENT_DOUBLE : ELEMENT_FLOAT;
        } else if (row->accepts & (CLI_REPS | CLI_DEVICE | CLI_SEED)) { /* an int, but the seed */
            if (cli_parse_int_option_(spec, name, value, row->min, row->max, &number, err)) return CLI_EXIT_ERROR;
            if (row->accepts == CLI_SEED)
                o->seed = (unsigned long long)number;
            else
                *(int *)field = (int)number;
        } else if (row->accepts == CLI_BLOCK) {
            if (cli_parse_count(value, &number) != 0 || number > 1024) /* CUDA's limit, or the program's rule */
                return cli_fail_(spec, err, "%s %s: %s", name, value,
                                 spec->block_rule ? spec->block_rule
                                                  : "a block holds a whole number of threads from 1 to 1024 (CUDA's "
                                                    "limit; --help says what each kernel needs)");
            o->block = (int)number;
        } else if (row->accepts == CLI_DATA) {
            cli_join_names_(names, sizeof names, spec->data_kinds);
            if ((o->data_kind = cli_index_in_(spec->data_kinds, value)) < 0)
                return cli_fail_(spec, err, "%s must be one of %s, got '%s'", name, names, value);
        } else { /* --save, --save-diff */
            *(const char **)field = value;
        }
    }
    if (spec->accepts & CLI_ROWS_COLS) {
        if (o->size_given == 3) return cli_fail_(spec, err, "give either --n (square) or --rows/--cols, not both");
        if (o->size_given == 1) o->rows = o->cols = o->n;
        if (o->rows > CLI_MAX_COUNT / o->cols)
            return cli_fail_(spec, err,
                             "the matrix %lld x %lld is too large: at most 2^50 elements, far beyond any GPU's memory",
                             o->rows, o->cols);
        o->n = o->rows * o->cols;
    }
    return CLI_OK;
}

/* --cpu or --cpu-order: the program built for the CPU runner, PROGRAM_cpu beside this one, runs
 * instead, with the same arguments (it takes the runner's own). */
static inline void cli_run_on_cpu_runner_(const char *program, char **argv) {
    char path[4096];
    const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 5);
    if (length > 0) {
        memcpy(path + length, "_cpu", 5);
        execv(path, argv);
    }
    cli_exit_bad(program,
                 "--cpu: the CPU runner's build of this program (%s_cpu, beside it) is missing: configure "
                 "with Python 3 and -DEXAMPLES_CPU_RUNNER=ON",
                 program);
}

/* The usual main() prologue: parse, and exit 0 or 2 when parsing says so. */
static inline void cli_parse_or_exit(const cli_spec *spec, int argc, char **argv, cli_options *options) {
    for (int i = 1; i < argc && !ON_CPU_RUNNER; ++i)
        if (strcmp(argv[i], "--cpu") == 0 || strncmp(argv[i], "--cpu-order", 11) == 0)
            cli_run_on_cpu_runner_(spec->program, argv);
    const int status = cli_parse(spec, argc, argv, options, stdout, stderr);
    if (status != CLI_OK) exit(status == CLI_EXIT_HELP ? 0 : CLI_EXIT_ERROR);
    cpu_runner_take_options(spec, options);
}

#endif
