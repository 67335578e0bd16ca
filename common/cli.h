/* Command-line parsing shared by every example (plain C, no GPU needed).
 *
 * Each example describes which options it takes in a cli_spec; cli_parse()
 * fills a cli_options or explains in one line on stderr what is wrong.
 * Every check happens here, before any CUDA call, so bad input gets exit 2
 * even on a machine without a GPU. */
#ifndef COMMON_CLI_H
#define COMMON_CLI_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which options an example accepts (bit flags for cli_spec.accepts). */
enum cli_accepts {
    CLI_N = 1 << 0,         /* --n N                              */
    CLI_KERNEL = 1 << 1,    /* --kernel NAME[,NAME...] | all      */
    CLI_TYPE = 1 << 2,      /* --type float|double                */
    CLI_REPS = 1 << 3,      /* --reps R                           */
    CLI_CHECK = 1 << 4,     /* --check                            */
    CLI_DEVICE = 1 << 5,    /* --device D                         */
    CLI_BLOCK = 1 << 6,     /* --block B                          */
    CLI_DATA = 1 << 7,      /* --data KIND                        */
    CLI_ROWS_COLS = 1 << 8, /* --rows R --cols C (--n N = square) */
    CLI_BITMAP = 1 << 9,    /* --no-sync --save F --save-diff F --no-window */
    CLI_SEED = 1 << 10      /* --seed S (random data)             */
};

typedef enum { ELEMENT_FLOAT = 0, ELEMENT_DOUBLE = 1 } element_type;

#define CLI_MAX_KERNELS 32

typedef struct {
    const char *program;           /* "dot"                                 */
    const char *summary;           /* one line for --help                   */
    unsigned accepts;              /* enum cli_accepts, or-ed               */
    const char *const *kernels;    /* NULL-terminated kernel names         */
    const char *const *data_kinds; /* NULL-terminated, first = default   */
    long long default_n;
    long long default_rows, default_cols;
    int default_block;
    const char *extra_help; /* printed after the options, or NULL   */
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
    int block_given; /* 1 if --block was on the command line     */
    int data_kind;   /* index into spec->data_kinds               */
    unsigned long long seed;
    int no_sync, no_window;
    const char *save_path, *save_diff_path;
} cli_options;

enum cli_status { CLI_OK = 0, CLI_EXIT_HELP = 1, CLI_EXIT_ERROR = 2 };

/* Parses argv. CLI_OK: run. CLI_EXIT_HELP: usage printed to out, exit 0.
 * CLI_EXIT_ERROR: one line printed to err, exit 2. */
int cli_parse(const cli_spec *spec, int argc, char **argv, cli_options *options, FILE *out, FILE *err);

/* The usual main() prologue: parse, and exit 0 or 2 when parsing says so. */
void cli_parse_or_exit(const cli_spec *spec, int argc, char **argv, cli_options *options);

/* A positive whole number: "100000000", "1e8", "2.5e3", "2^26". 0 on success,
 * -2 for a whole number above 2^50, -1 for anything else. */
int cli_parse_count(const char *text, long long *value);

int cli_kernel_selected(const cli_options *options, int kernel_index);
const char *element_type_name(element_type type);
size_t element_size(element_type type);
int is_power_of_two(long long value);

#ifdef __cplusplus
}
#endif
#endif
