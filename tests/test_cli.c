/* Unit tests of common/cli.h: good and bad command lines. */
#include <string.h>

#include "cli.h"
#include "unit.h"

static const char *const kernels[] = {"book", "fast", "cublas", NULL};
static const char *const data_kinds[] = {"const", "ramp", "random", NULL};
static const cli_spec spec = {"demo",
                              "a test program",
                              CLI_N | CLI_KERNEL | CLI_TYPE | CLI_REPS | CLI_CHECK | CLI_DEVICE | CLI_BLOCK | CLI_DATA |
                                  CLI_SEED,
                              kernels,
                              data_kinds,
                              33792,
                              0,
                              0,
                              256,
                              NULL,
                              NULL,
                              NULL,
                              NULL,
                              NULL,
                              0};
static const cli_spec matrix_spec = {"matrix",
                                     "a matrix program",
                                     CLI_ROWS_COLS | CLI_KERNEL,
                                     kernels,
                                     NULL,
                                     0,
                                     10000,
                                     10000,
                                     256,
                                     NULL,
                                     NULL,
                                     NULL,
                                     NULL,
                                     NULL,
                                     0};

/* Parses a NULL-terminated list of arguments; stderr goes to /dev/null. */
static int parse(const cli_spec *s, cli_options *o, const char **args) {
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)"demo";
    for (int i = 0; args[i]; ++i)
        argv[argc++] = (char *)args[i];
    FILE *sink = fopen("/dev/null", "w");
    int status = cli_parse(s, argc, argv, o, sink, sink);
    fclose(sink);
    return status;
}
#define PARSE(s, o, ...) parse(s, o, (const char *[]){__VA_ARGS__, NULL})

static void test_counts(void) {
    long long v = 0;
    CHECK(cli_parse_count("1", &v) == 0 && v == 1);
    CHECK(cli_parse_count("33792", &v) == 0 && v == 33792);
    CHECK(cli_parse_count("1e8", &v) == 0 && v == 100000000);
    CHECK(cli_parse_count("1E8", &v) == 0 && v == 100000000);
    CHECK(cli_parse_count("2.5e3", &v) == 0 && v == 2500);
    CHECK(cli_parse_count("2^26", &v) == 0 && v == 67108864);
    CHECK(cli_parse_count("1e+3", &v) == 0 && v == 1000);
    CHECK(cli_parse_count("2^50", &v) == 0 && v == 1LL << 50);
    CHECK(cli_parse_count("1e16", &v) == -2 && cli_parse_count("2^51", &v) == -2);
    const char *bad[] = {"",    "0",     "-1",   "-5",    "1.5",
                         "abc", "12abc", "1e-3", "0x10",  " 5",
                         "2^",  "^3",    "2^-1", "1e300", "99999999999999999999",
                         "+5",  ".5",    "e5",   "0^3",   "2^63",
                         NULL};
    for (int i = 0; bad[i]; ++i) {
        int rejected = cli_parse_count(bad[i], &v) != 0;
        if (!rejected) fprintf(stderr, "accepted bad count '%s'\n", bad[i]);
        CHECK(rejected);
    }
}

static void test_defaults(void) {
    cli_options o;
    CHECK(parse(&spec, &o, (const char *[]){NULL}) == CLI_OK);
    CHECK(o.n == 33792 && o.block == 256 && o.type == ELEMENT_FLOAT && o.reps == 20);
    CHECK(o.kernel_mask == 7u && !o.check_only && o.device == 0 && o.data_kind == 0 && o.seed == 1);
    CHECK(!o.size_given); /* the CPU runner may take its smaller default */
}

static void test_good(void) {
    cli_options o;
    CHECK(PARSE(&spec, &o, "--n", "1e8", "--type", "double", "--kernel", "fast,cublas", "--check", "--reps=5",
                "--device", "0", "--block", "128", "--data", "random", "--seed", "42") == CLI_OK);
    CHECK(o.n == 100000000 && o.type == ELEMENT_DOUBLE && o.kernel_mask == 6u && o.check_only && o.reps == 5);
    CHECK(o.block == 128 && o.data_kind == 2 && o.seed == 42 && o.size_given);
    CHECK(cli_kernel_selected(&o, 1) && cli_kernel_selected(&o, 2) && !cli_kernel_selected(&o, 0));
    CHECK(PARSE(&spec, &o, "--kernel", "all") == CLI_OK && o.kernel_mask == 7u);
    CHECK(PARSE(&spec, &o, "--help") == CLI_EXIT_HELP);
}

static void test_bank_model_flag(void) {
    static const cli_spec banked = {"banked",
                                    "a program with a bank model",
                                    CLI_N | CLI_CHECK | CLI_BANK_MODEL,
                                    kernels,
                                    NULL,
                                    100,
                                    0,
                                    0,
                                    256,
                                    NULL,
                                    NULL,
                                    NULL,
                                    NULL,
                                    NULL,
                                    0};
    cli_options o;
    CHECK(PARSE(&banked, &o, "--check") == CLI_OK && !o.bank_model);
    CHECK(PARSE(&banked, &o, "--check", "--bank-model", "--n", "7") == CLI_OK && o.bank_model && o.n == 7);
    CHECK(PARSE(&banked, &o, "--bank-model", "--bank-model") == CLI_EXIT_ERROR); /* once */
    CHECK(PARSE(&spec, &o, "--bank-model") == CLI_EXIT_ERROR);                   /* not this program's */
}

static void test_bad(void) {
    cli_options o;
    CHECK(PARSE(&spec, &o, "--bogus") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--n") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--n", "0") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--n", "-3") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--n", "ten") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--n=") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--type", "half") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--kernel", "nope") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--kernel", "book,,fast") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--reps", "0") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--reps", "100001") == CLI_EXIT_ERROR &&
          PARSE(&spec, &o, "--device", "1024") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--block", "2048") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--block", "0") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--device", "-1") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--data", "zeros") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--rows", "5") == CLI_EXIT_ERROR); /* not accepted by this spec */
    CHECK(PARSE(&spec, &o, "--no-sync") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--seed", "-1") == CLI_EXIT_ERROR);
    CHECK(PARSE(&matrix_spec, &o, "--seed", "3") == CLI_EXIT_ERROR); /* not accepted by this spec */
    CHECK(PARSE(&spec, &o, "stray") == CLI_EXIT_ERROR);
}

static void test_matrix(void) {
    cli_options o;
    CHECK(parse(&matrix_spec, &o, (const char *[]){NULL}) == CLI_OK && o.rows == 10000 && o.cols == 10000 &&
          o.n == 100000000);
    CHECK(PARSE(&matrix_spec, &o, "--rows", "31", "--cols", "33") == CLI_OK && o.rows == 31 && o.cols == 33 &&
          o.n == 1023);
    CHECK(PARSE(&matrix_spec, &o, "--cols", "33") == CLI_OK && o.rows == 10000 && o.size_given);
    CHECK(PARSE(&matrix_spec, &o, "--kernel", "all") == CLI_OK && !o.size_given);
    CHECK(PARSE(&matrix_spec, &o, "--n", "8192") == CLI_OK && o.rows == 8192 && o.cols == 8192);
    CHECK(PARSE(&matrix_spec, &o, "--n", "8", "--rows", "4") == CLI_EXIT_ERROR);
    CHECK(PARSE(&matrix_spec, &o, "--rows", "0") == CLI_EXIT_ERROR);
    CHECK(PARSE(&matrix_spec, &o, "--rows", "2^40", "--cols", "2^40") == CLI_EXIT_ERROR);
    CHECK(PARSE(&matrix_spec, &o, "--type", "double") == CLI_EXIT_ERROR); /* not accepted */
}

/* Deliberately wrong kernels run only when named: never under all, and
 * their bits follow the kernels'. */
static void test_wrong_kernels(void) {
    static const char *const wrong[] = {"racy", "hang", NULL};
    cli_spec with_wrong = spec;
    with_wrong.wrong_kernels = wrong;
    cli_options o;
    CHECK(PARSE(&with_wrong, &o, "--n", "5") == CLI_OK && o.kernel_mask == 7u);
    CHECK(PARSE(&with_wrong, &o, "--kernel", "all") == CLI_OK && o.kernel_mask == 7u);
    CHECK(PARSE(&with_wrong, &o, "--kernel", "hang") == CLI_OK && o.kernel_mask == 16u);
    CHECK(PARSE(&with_wrong, &o, "--kernel", "book,racy") == CLI_OK && o.kernel_mask == 9u);
    CHECK(PARSE(&spec, &o, "--kernel", "racy") == CLI_EXIT_ERROR);
}

/* A program's own options: accepted in both forms, their text handed back, unknown elsewhere. */
static void test_own_options(void) {
    static const cli_own_option own[] = {
        {"--part", "P", "which part"}, {"--stride", "S", "the stride"}, {NULL, NULL, NULL}};
    cli_spec with_own = spec;
    with_own.own_options = own;
    cli_options o;
    CHECK(PARSE(&with_own, &o, "--n", "5") == CLI_OK && !o.own_values[0] && !o.own_values[1]);
    CHECK(PARSE(&with_own, &o, "--part", "size", "--stride=3") == CLI_OK && strcmp(o.own_values[0], "size") == 0 &&
          strcmp(o.own_values[1], "3") == 0);
    CHECK(PARSE(&with_own, &o, "--part") == CLI_EXIT_ERROR);
    CHECK(PARSE(&with_own, &o, "--part=") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--part", "size") == CLI_EXIT_ERROR);
    CHECK(PARSE(&with_own, &o, "--part", "size", "--part", "carve") == CLI_EXIT_ERROR);        /* no silent last-wins */
    static const cli_own_option shadowing[] = {{"--kernel", "K", "mine"}, {NULL, NULL, NULL}}; /* an own name wins */
    with_own.own_options = shadowing;
    CHECK(PARSE(&with_own, &o, "--kernel", "mine") == CLI_OK && strcmp(o.own_values[0], "mine") == 0);
    static const cli_own_option too_many[] = {{"--a", "A", ""}, {"--b", "B", ""}, {"--c", "C", ""},
                                              {"--d", "D", ""}, {"--e", "E", ""}, {NULL, NULL, NULL}};
    with_own.own_options = too_many;
    CHECK(CLI_MAX_OWN_OPTIONS == 4 && PARSE(&with_own, &o, "--n", "5") == CLI_EXIT_ERROR);
}

/* Parses and returns what was printed to `out` (help) or `err` (the error line). */
static int parse_capture(const cli_spec *s, const char **args, char *text, size_t size) {
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)"demo";
    for (int i = 0; args[i]; ++i)
        argv[argc++] = (char *)args[i];
    FILE *capture = tmpfile();
    cli_options o;
    int status = cli_parse(s, argc, argv, &o, capture, capture);
    rewind(capture);
    size_t length = fread(text, 1, size - 1, capture);
    text[length] = '\0';
    fclose(capture);
    return status;
}
#define CAPTURE(s, text, ...) parse_capture(s, (const char *[]){__VA_ARGS__, NULL}, text, sizeof text)

/* What a newcomer tripped over: each option once, 'all' alone, --help wherever it
 * stands, a size too large named in the message, own options and exit codes in --help. */
static void test_newcomer(void) {
    cli_options o;
    char text[4096];
    CHECK(PARSE(&spec, &o, "--n", "100", "--n", "200") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--n", "100", "--n=200") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--check", "--check") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--type", "float", "--type", "double") == CLI_EXIT_ERROR);
    CHECK(CAPTURE(&spec, text, "--reps", "3", "--reps", "4") == CLI_EXIT_ERROR &&
          strcmp(text, "demo: --reps given twice: give it once\n") == 0);
    CHECK(CAPTURE(&spec, text, "--kernel", "book,all") == CLI_EXIT_ERROR && strstr(text, "'all' stands alone") &&
          !strstr(text, "unknown kernel"));
    CHECK(PARSE(&spec, &o, "--kernel", "all,book") == CLI_EXIT_ERROR);
    CHECK(PARSE(&spec, &o, "--n", "0", "-h") == CLI_EXIT_HELP);
    CHECK(CAPTURE(&matrix_spec, text, "--n", "33554433") == CLI_EXIT_ERROR &&
          strstr(text, "the matrix 33554433 x 33554433 is too large") && !strstr(text, "  "));
    static const cli_own_option own[] = {{"--part", "P", "which part to run"}, {NULL, NULL, NULL}};
    cli_spec with_own = spec;
    with_own.own_options = own;
    with_own.exit_codes = "  4  the demonstration hung, as it should";
    CHECK(CAPTURE(&with_own, text, "--help") == CLI_EXIT_HELP &&
          strstr(text, "  --part P             which part to run\n") && strstr(text, "  4  the demonstration hung") &&
          strstr(text, "  77 ") && strstr(text, "  3  a CUDA call"));
}

/* What a newcomer tripped over next: --help wins beside anything, a typo too (as most programs' do);
 * a name twice in a list runs once, an option twice is refused; --block's limit worded as the programs
 * word their own rules for it. */
static void test_newcomer_part_two(void) {
    cli_options o;
    char text[4096];
    CHECK(PARSE(&spec, &o, "--kernel", "book,fast,book") == CLI_OK && o.kernel_mask == 3u);
    CHECK(PARSE(&spec, &o, "--kernel", "book,fast,cublas") == CLI_OK && o.kernel_mask == 7u);
    CHECK(CAPTURE(&spec, text, "--kernel", "book,,fast") == CLI_EXIT_ERROR &&
          strcmp(text, "demo: --kernel: empty or too long kernel name in 'book,,fast'\n") == 0);
    CHECK(CAPTURE(&spec, text, "--check=1") == CLI_EXIT_ERROR &&
          strcmp(text, "demo: unknown option '--check=1' (try --help)\n") == 0); /* a flag takes no value */
    CHECK(CAPTURE(&spec, text, "--kernel", "book", "--kernel", "book") == CLI_EXIT_ERROR &&
          strcmp(text, "demo: --kernel given twice: give it once\n") == 0);
    static const cli_own_option own[] = {
        {"--part", "P", "which parts"}, {"--stride", "S", "the stride"}, {NULL, NULL, NULL}};
    cli_spec with_own = spec;
    with_own.own_options = own;
    CHECK(PARSE(&with_own, &o, "--part", "stride,stride") == CLI_OK && strcmp(o.own_values[0], "stride,stride") == 0);
    CHECK(PARSE(&with_own, &o, "--part", "size,carve") == CLI_OK && strcmp(o.own_values[0], "size,carve") == 0);
    char help[4096]; /* with a typo: the usage, as --help alone prints it, and not a word more */
    CHECK(CAPTURE(&spec, help, "--help") == CLI_EXIT_HELP && strstr(help, "Usage: demo "));
    CHECK(CAPTURE(&spec, text, "--bogus", "--help") == CLI_EXIT_HELP && strcmp(text, help) == 0);
    CHECK(PARSE(&spec, &o, "--help", "--bogus") == CLI_EXIT_HELP && PARSE(&spec, &o, "-n", "5", "-h") == CLI_EXIT_HELP);
    CHECK(PARSE(&with_own, &o, "--kernel", "--bogus", "--part=x", "--check", "--help") == CLI_EXIT_HELP);
    CHECK(PARSE(&spec, &o, "--n=0", "--type", "half", "--help") == CLI_EXIT_HELP); /* values: help wins */
    CHECK(CAPTURE(&spec, text, "--block", "0") == CLI_EXIT_ERROR &&
          strcmp(text, "demo: --block 0: a block holds a whole number of threads from 1 to 1024 (CUDA's limit; "
                       "--help says what each kernel needs)\n") == 0);
    CHECK(CAPTURE(&spec, text, "--block", "many") == CLI_EXIT_ERROR && strstr(text, "demo: --block many: "));
    CHECK(PARSE(&spec, &o, "--block", "1024") == CLI_OK && o.block == 1024);
}

/* Issue 31, item 6: a program's own --block rule is said for every --block refused; the size
 * clause of exit code 2 only where there is a size option; long --kernel lines wrapped. */
static void test_newcomer_part_three(void) {
    char text[8192];
    cli_spec ruled = spec;
    ruled.block_rule = "the tree needs a power of two from 32 to 1024";
    CHECK(CAPTURE(&ruled, text, "--block", "0") == CLI_EXIT_ERROR &&
          strcmp(text, "demo: --block 0: the tree needs a power of two from 32 to 1024\n") == 0);
    CHECK(CAPTURE(&spec, text, "--help") == CLI_EXIT_HELP && strstr(text, "a size that does not fit in memory"));
    cli_spec sizeless = spec;
    sizeless.accepts = CLI_CHECK;
    CHECK(CAPTURE(&sizeless, text, "--help") == CLI_EXIT_HELP && strstr(text, "  2  bad command line\n"));
    static const char *const many[] = {
        "global",  "interleaved",   "strided_index", "static", "dynamic",    "shared_atomic", "warp_synced",
        "shuffle", "warp_unrolled", "atomic",        "vector", "one_launch", "cub",           NULL};
    cli_spec wide = spec;
    wide.kernels = many;
    wide.wrong_kernels = many;
    CHECK(CAPTURE(&wide, text, "--help") == CLI_EXIT_HELP &&
          strstr(text, "\n                       vector, one_launch"));
    int longest = 0;
    for (const char *line = text; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != '\0'))
        if ((int)strcspn(line, "\n") > longest) longest = (int)strcspn(line, "\n");
    CHECK(longest <= 100);
}

/* A program that takes every option but --rows/--cols (matrix_spec's): --help whole, byte for byte, what it
 * printed before cli_table_ was the one list; each flag and path filling its own field. */
static void test_every_option(void) {
    static const char *const wrong[] = {"racy", NULL};
    static const cli_own_option own[] = {{"--part", "P", "which part\n                       to run"}, {NULL}};
    cli_spec every = spec;
    every.program = "every";
    every.summary = "a program that takes every option";
    every.accepts = ~0u & ~(unsigned)CLI_ROWS_COLS;
    every.extra_help = "More words.";
    every.wrong_kernels = wrong;
    every.own_options = own;
    every.exit_codes = "  4  hung";
    char text[4096];
    CHECK(CAPTURE(&every, text, "--help") == CLI_EXIT_HELP);
    CHECK(strcmp(text, "every: a program that takes every option\n"
                       "\n"
                       "Usage: every [options]\n"
                       "\n"
                       "Options:\n"
                       "  --help               print this help and exit\n"
                       "  --n N                number of elements (default 33792; 1e8 and 2^26 forms work)\n"
                       "  --kernel NAME        one or more of: book, fast, cublas (comma-separated), or all (default)\n"
                       "                       deliberately wrong, run only when named: racy\n"
                       "  --type T             float (default) or double\n"
                       "  --block B            threads per block (default 256)\n"
                       "  --data KIND          input data: const, ramp, random (default const)\n"
                       "  --seed S             seed for random data (default 1)\n"
                       "  --reps R             timed repeats; the median is reported (default 20)\n"
                       "  --check              verify only, no timing (what the tests use)\n"
                       "  --cold-l2            flush the L2 before every timed run (default: warm)\n"
                       "  --device D           CUDA device number (default 0)\n"
                       "  --cpu                run on the CPU runner (no GPU needed): CUDA's rules on the CPU, every\n"
                       "                       shared-memory race and barrier error reported with its line; --check\n"
                       "  --cpu-order ORDER    its thread order: forward (default), reverse, random:SEED, lockstep\n"
                       "  --bank-model         print the bank model: each shared-memory instruction's passes per\n"
                       "                       warp, as predicted (no GPU needed), and stop\n"
                       "  --no-sync            leave out the __syncthreads() (the racy version)\n"
                       "  --save FILE.png      save the image as PNG\n"
                       "  --save-diff FILE.png save an image marking the pixels that differ from the CPU reference\n"
                       "  --no-window          do not open a window (save PNG instead)\n"
                       "  --part P             which part\n"
                       "                       to run\n"
                       "\n"
                       "Exit codes:\n"
                       "  0  every check passed\n"
                       "  1  a GPU result was wrong\n"
                       "  2  bad command line, or a size that does not fit in memory\n"
                       "  3  a CUDA call failed (the GPU or its driver is there but broken)\n"
                       "  4  hung\n"
                       "  4  the CPU runner found a deadlock (a warp split between two barriers)\n"
                       "  77 no CUDA device or no driver (CTest: skipped)\n"
                       "\n"
                       "More words.\n") == 0);
    CHECK(CAPTURE(&matrix_spec, text, "--help") == CLI_EXIT_HELP &&
          strstr(text, "  --help               print this help and exit\n"
                       "  --rows R, --cols C   matrix size (default 10000 x 10000)\n"
                       "  --n N                square N x N matrix\n"
                       "  --kernel NAME        one or more of: book, fast, cublas (comma-separated), or all (default)\n"
                       "  --cpu   "));
    cli_options o;
    CHECK(PARSE(&every, &o, "--no-sync", "--save", "a.png") == CLI_OK && o.no_sync && !o.no_window && o.save_path &&
          strcmp(o.save_path, "a.png") == 0 && !o.save_diff_path);
    CHECK(PARSE(&every, &o, "--no-window", "--save-diff=b.png", "--cold-l2") == CLI_OK && o.no_window && !o.no_sync &&
          o.save_diff_path && strcmp(o.save_diff_path, "b.png") == 0 && !o.save_path && o.cold_l2 && !o.check_only &&
          !o.bank_model);
}

static void test_too_large(void) {
    long long v = 0;
    CHECK(cli_parse_count("2^64", &v) == -2);
    CHECK(cli_parse_count("1e400", &v) == -2);
    CHECK(cli_parse_count("1e-400", &v) == -1);
    CHECK(cli_parse_count("1^99", &v) == 0 && v == 1);
}

static void test_helpers(void) {
    CHECK(is_power_of_two(1) && is_power_of_two(256) && is_power_of_two(1024));
    CHECK(!is_power_of_two(0) && !is_power_of_two(3) && !is_power_of_two(-4) && !is_power_of_two(384));
    CHECK(element_size(ELEMENT_FLOAT) == 4 && element_size(ELEMENT_DOUBLE) == 8);
    CHECK(strcmp(element_type_name(ELEMENT_DOUBLE), "double") == 0);
}

int main(void) {
    test_wrong_kernels();
    test_own_options();
    test_newcomer();
    test_newcomer_part_two();
    test_newcomer_part_three();
    test_too_large();
    test_counts();
    test_defaults();
    test_good();
    test_bank_model_flag();
    test_bad();
    test_matrix();
    test_helpers();
    test_every_option();
    return unit_finish("test_cli");
}
