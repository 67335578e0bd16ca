/* Measurement arithmetic and the output every example prints (plain C, header-only, unit tested): one aligned
 * table line per kernel when done, then one RESULT line per kernel, e.g. RESULT example=reduce kernel=static
 * type=double n=100000000 value=... expected=... rel_err=0 tolerance=1.1e-15 bytes=800000000 ms=0.501 gbps=1597
 * pct_ceiling=57 ceiling=read l2=warm scope=whole status=PASS (each field: result_row). */
#ifndef COMMON_REPORT_H
#define COMMON_REPORT_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----- Arithmetic -----

/* The one place bytes are counted: every element read once plus every element written once, element_bytes each. */
static inline double bytes_moved(double elements_read, double elements_written, size_t element_bytes) {
    return (elements_read + elements_written) * (double)element_bytes;
}

/* GB/s with GB = 1e9 bytes. */
static inline double gigabytes_per_second(double bytes, double milliseconds) {
    return milliseconds > 0 ? bytes / (milliseconds * 1e-3) / 1e9 : NAN;
}

/* 100 * value / reference; NAN when the reference is not positive. */
static inline double percent_of(double value, double reference) {
    return reference > 0 ? 100.0 * value / reference : NAN;
}

/* |value - expected| / |expected| (absolute error when expected is 0). */
static inline double relative_error(double value, double expected) {
    double difference = fabs(value - expected);
    return expected != 0 ? difference / fabs(expected) : difference;
}

// ----- Rows, the table and the RESULT lines -----

typedef struct {
    const char *kernel;
    const char *type;                           /* "float", "double", "int", or NULL     */
    long long n;                                /* elements                              */
    const char *size;                           /* optional size label, e.g. "8192x8192" */
    int has_value;                              /* value / expected / rel_err meaningful */
    double value, expected, rel_err, tolerance; /* pass needs rel_err <= tolerance       */
    double bytes;                               /* bytes the GB/s figure counts (0: none) */
    double flops;                               /* floating-point operations (0: none; matmul) */
    int timed;                                  /* ms / gbps / pct_ceiling meaningful    */
    double ms, gbps, gflops, pct_ceiling;
    const char *ceiling; /* "memcpy", "read", "read2" or "fp32_peak": what pct_ceiling is a percentage of */
    int partials_only;   /* scope=partials: the time covers a kernel leaving per-block partials for the CPU */
    int pass;
    char note[320]; /* optional short words for the table: the row owns them (row_note) */
} result_row;

/* A row with every field cleared (status FAIL until a check sets pass). */
static inline result_row result_row_for(const char *kernel, const char *type, long long n) {
    result_row row;
    memset(&row, 0, sizeof row);
    row.kernel = kernel;
    row.type = type;
    row.n = n;
    return row;
}

/* Fills the check: value against expected, within a relative tolerance (0: bit for bit); NaN or infinity fails. */
static inline void row_check(result_row *row, double value, double expected, double tolerance) {
    row->has_value = 1;
    row->value = value;
    row->expected = expected;
    row->rel_err = relative_error(value, expected);
    row->tolerance = tolerance;
    row->pass = isfinite(value) && row->rel_err <= tolerance;
}

/* Adds words to the row's note, after a comma when it has some already:
 *   row_note(&row, "probe: %.0f", probe); */
static inline void row_note(result_row *row, const char *format, ...) {
    size_t used = strlen(row->note);
    va_list arguments;
    if (used + 2 >= sizeof row->note) return;
    if (used) {
        strcpy(row->note + used, ", ");
        used += 2;
    }
    va_start(arguments, format);
    vsnprintf(row->note + used, sizeof row->note - used, format, arguments);
    va_end(arguments);
}

/* Notes an output's first wrong element, in the one form scripts/grade.py shows a learner (which element, what it
 * holds, what it should): "first wrong partial[17]: got 3.5, expected 3.25". All the digits a value needs (9 for a
 * float, 17 for the rest: a double, or an integer of up to 17 digits whole): two values a bit apart print apart. */
static inline void row_note_first_wrong(result_row *row, double got, double expected, const char *element, ...) {
    char name[64];
    va_list arguments;
    va_start(arguments, element);
    vsnprintf(name, sizeof name, element, arguments);
    va_end(arguments);
    const int digits = row->type && strcmp(row->type, "float") == 0 ? 9 : 17;
    row_note(row, "first wrong %s: got %.*g, expected %.*g", name, digits, got, digits, expected);
}

/* Fills the timing: ms for `row->bytes`, as GB/s and as a percentage of the ceiling this run measured. */
static inline void row_time(result_row *row, double ms, const char *ceiling, double ceiling_gbps) {
    row->timed = 1;
    row->ms = ms;
    row->gbps = gigabytes_per_second(row->bytes, ms);
    row->pct_ceiling = percent_of(row->gbps, ceiling_gbps);
    row->ceiling = ceiling;
}

/* The same for a row that counts `row->flops`: GFLOP/s, as a percentage of a peak in GFLOP/s. */
static inline void row_time_flops(result_row *row, double ms, const char *peak, double peak_gflops) {
    row_time(row, ms, peak, 0);
    if (!(row->bytes > 0)) row->gbps = NAN; /* "-": bytes not counted (a library's) */
    row->gflops = row->flops / (ms * 1e6);
    row->pct_ceiling = percent_of(row->gflops, peak_gflops);
}

/* Prints the bandwidth ceiling this run measured, for people and scripts: "ceiling NAME (DESCRIPTION): X GB/s",
 * then "CEILING example=EXAMPLE name=NAME gbps=X". */
static inline void report_ceiling(FILE *out, const char *example, const char *name, const char *description,
                                  double gbps) {
    fprintf(out, "ceiling %s (%s): %.1f GB/s\nCEILING example=%s name=%s gbps=%.1f\n\n", name, description, gbps,
            example, name, gbps);
}

/* The same for a compute peak, in GFLOP/s (a row that counts FLOPs is a share of it): "peak ...", gflops=X. */
static inline void report_peak(FILE *out, const char *example, const char *name, const char *description,
                               double gflops) {
    fprintf(out, "peak %s (%s): %.1f GFLOP/s\nCEILING example=%s name=%s gflops=%.1f\n\n", name, description, gflops,
            example, name, gflops);
}

#define REPORT_MAX_ROWS 64

/* On the CPU runner a race or a barrier error it found fails the run (exit 1) whatever the values: the report counts
 * them, so that no row says PASS over a finding. */
#ifndef REPORT_RUNNER_FINDINGS
#ifdef CUDA_CPU_RUNNER
#define REPORT_RUNNER_FINDINGS() cuda_cpu_findings_total()
#else
#define REPORT_RUNNER_FINDINGS() 0L
#endif
#endif
#ifndef ON_CPU_RUNNER /* the runner's build defines it 1 */
#define ON_CPU_RUNNER 0
#endif
/* The words a row's note gets for findings during its launches; scripts/grader/verdicts.py reads them. */
#define REPORT_FINDINGS_NOTE "the CPU runner's findings above"
#define REPORT_FINDINGS_ONLY_NOTE "its check passed, but the CPU runner's findings above fail it"
static long report_findings_blamed_; /* the runner's findings a row of this run failed for already */
#define REPORT_EXIT_SKIPPED 77       /* CTest's skip: no kernel asked for can run here */

/* After every cuBLAS call (with <cublas_v2.h> and book.h), as HANDLE_ERROR: file:line, the call, the reason, exit 3. */
#define HANDLE_CUBLAS(call)                                                                                            \
    do {                                                                                                               \
        const cublasStatus_t handle_cublas_status_ = (call);                                                           \
        if (handle_cublas_status_ != CUBLAS_STATUS_SUCCESS) {                                                          \
            fprintf(stderr, "%s:%d: cuBLAS error %s in %s\n", __FILE__, __LINE__,                                      \
                    cublasGetStatusString(handle_cublas_status_), #call);                                              \
            exit(EXIT_CUDA_ERROR);                                                                                     \
        }                                                                                                              \
    } while (0)

/* A chapter's exit code from its book program's verdict and its progression's report_end(): 1 when either failed;
 * 77 when the book's passed and the progression ran nothing (the CPU runner skipped a library's kernels); else 0. */
static inline int report_exit_code(int book_failed, int progression_status) {
    if (progression_status == REPORT_EXIT_SKIPPED && !book_failed) return REPORT_EXIT_SKIPPED;
    return progression_status || book_failed ? 1 : 0;
}

typedef struct {
    const char *example;
    FILE *out;
    int cold_l2; /* 1: the L2 was flushed before every timed run (--cold-l2) */
    int count;
    int not_run;         /* kernels asked for that cannot run here: report_skip */
    int findings_before; /* the runner found something since the last table's last row: every row fails */
    result_row rows[REPORT_MAX_ROWS];
} report;

/* Prints the table header. */
static inline void report_begin(report *r, const char *example, FILE *out) {
    r->example = example;
    r->out = out;
    r->cold_l2 = r->count = r->not_run = 0;
    r->findings_before = REPORT_RUNNER_FINDINGS() > report_findings_blamed_;
    report_findings_blamed_ = REPORT_RUNNER_FINDINGS();
    fprintf(out, "%-18s %-6s %12s %18s %18s %9s %9s %9s %9s %8s  %s\n", "kernel", "type", "n", "value", "expected",
            "rel_err", "tolerance", "ms", "GB/s", "%ceil", "status");
}

/* x with a printf format, or "-" when the field is not meaningful; in 8 buffers in turn: one printf takes 8. */
static inline const char *report_field_(const char *format, int meaningful, double x) {
    static char buffers[8][32];
    static unsigned next;
    char *buffer = buffers[next++ % 8];
    snprintf(buffer, sizeof buffers[0], meaningful && !isnan(x) ? format : "-", x);
    return buffer;
}

/* Prints the row as a table line and keeps it for report_end(). A row fails, its note says so, when the CPU runner
 * found a race or a barrier error since the last row; every row, when it found one before the table began (a chapter
 * may launch every kernel first, then check: which row's kernel it was is not known). */
static inline void report_add(report *r, const result_row *checked) {
    result_row copy = *checked, *row = &copy;
    const long findings = REPORT_RUNNER_FINDINGS();
    if (findings > report_findings_blamed_ || r->findings_before) {
        row_note(row, "%s", row->pass ? REPORT_FINDINGS_ONLY_NOTE : REPORT_FINDINGS_NOTE);
        row->pass = 0;
        report_findings_blamed_ = findings;
    }
    fprintf(r->out, "%-18s %-6s %12lld %18s %18s %9s %9s %9s %9s %8s  %s%s%s%s\n", row->kernel,
            row->type ? row->type : "-", row->n, report_field_("%.10g", row->has_value, row->value),
            report_field_("%.10g", row->has_value, row->expected), report_field_("%.2e", row->has_value, row->rel_err),
            report_field_("%.2e", row->has_value, row->tolerance), report_field_("%.4f", row->timed, row->ms),
            report_field_("%.1f", row->timed, row->gbps), report_field_("%.1f", row->timed, row->pct_ceiling),
            row->pass ? "PASS" : "FAIL", row->partials_only ? "  (kernel only: the CPU adds the partials)" : "",
            row->note[0] ? "  " : "", row->note);
    fflush(r->out);
    if (r->count < REPORT_MAX_ROWS) r->rows[r->count++] = *row;
}

/* Writes one RESULT line for the row; l2: timed runs began with a flushed L2 (cold) or as the last left it (warm). */
static inline void report_write_result_line(FILE *out, const char *example, const result_row *row, int cold_l2) {
    fprintf(out, "RESULT example=%s kernel=%s type=%s n=%lld%s%s", example, row->kernel, row->type ? row->type : "-",
            row->n, row->size ? " size=" : "", row->size ? row->size : "");
    fprintf(out, " value=%s expected=%s rel_err=%s tolerance=%s bytes=%s",
            report_field_("%.17g", row->has_value, row->value), report_field_("%.17g", row->has_value, row->expected),
            report_field_("%.3g", row->has_value, row->rel_err), report_field_("%.3g", row->has_value, row->tolerance),
            report_field_("%.0f", row->bytes > 0, row->bytes));
    if (row->flops > 0)
        fprintf(out, " flops=%.0f gflops=%s", row->flops, report_field_("%.1f", row->timed, row->gflops));
    fprintf(out, " ms=%s gbps=%s pct_ceiling=%s ceiling=%s l2=%s scope=%s status=%s\n",
            report_field_("%.5f", row->timed, row->ms), report_field_("%.1f", row->timed, row->gbps),
            report_field_("%.1f", row->timed, row->pct_ceiling), row->timed && row->ceiling ? row->ceiling : "-",
            row->timed ? (cold_l2 ? "cold" : "warm") : "-", row->partials_only ? "partials" : "whole",
            row->pass ? "PASS" : "FAIL");
}

/* A kernel asked for that cannot run here, said in place of its row: on the CPU runner (a library's kernels,
 * the TMA), or on this GPU, build or size. A run of only these exits 77 (report_end). Returns 1. */
static inline int report_skip(report *r, const char *kernel, const char *why) {
    fprintf(r->out, "%-18s not %s: %s\n", kernel, ON_CPU_RUNNER ? "on the CPU runner" : "run here", why);
    return ++r->not_run > 0;
}
/* report_skip on the CPU runner only (a library's kernels): 1 there, 0 on a GPU. */
#define report_cpu_skip(r, kernel, why) (ON_CPU_RUNNER && report_skip(r, kernel, why))

/* Prints the RESULT lines and returns the exit code: 0 if every row passed, else 1; 77 (book.h's
 * EXIT_NO_DEVICE: CTest's skip) when there is no row because every kernel asked for was skipped. */
static inline int report_end(report *r) {
    int failures = 0;
    fprintf(r->out, "\n");
    for (int i = 0; i < r->count; ++i) {
        report_write_result_line(r->out, r->example, &r->rows[i], r->cold_l2);
        failures += !r->rows[i].pass;
    }
    const long findings = REPORT_RUNNER_FINDINGS(); /* in this run: any fails it (the runner exits 1) */
    if (failures)
        fprintf(r->out, "%d of %d checks FAILED\n", failures, r->count);
    else if (findings > 0)
        fprintf(r->out, "%d checks passed, but the CPU runner's findings above fail the run\n", r->count);
    else if (r->count == 0 && r->not_run)
        fprintf(r->out, "none of the kernels asked for ran: %s cannot run them (why above): exit %d\n",
                ON_CPU_RUNNER ? "the CPU runner" : "this GPU, build or size", REPORT_EXIT_SKIPPED);
    else
        fprintf(r->out, "all %d checks passed\n", r->count);
    fflush(r->out);
    if (failures || findings > 0) return 1;
    return r->count == 0 && r->not_run ? REPORT_EXIT_SKIPPED : 0;
}

#ifdef __cplusplus
#include "book.h" /* gpu_poison, time_median_ms */

/* A row whose output is checked element by element (transpose, matmul): `launch` on the poisoned output, its
 * check, then (reps > 0) the median of reps timed launches after the warm-ups, each after `flush` (the cold
 * L2), the output poisoned before the last, which is checked as the first. check(row, which) counts the wrong
 * elements, noting them; value: the row's n elements less those wrong in the worse launch. Returns the ms, or 0. */
template <typename Flush, typename Launch, typename Check>
static inline double exact_row(result_row *row, void *out, size_t bytes, int reps, Flush flush, Launch launch,
                               Check check) {
    gpu_poison(out, bytes);
    launch();
    const long long wrong = check(row, "");
    int setups = 0;
    auto setup = [&] {
        if (++setups == TIME_WARMUP_RUNS + reps) gpu_poison(out, bytes); /* before the last launch */
        flush();                                                         /* after the poison: a cold L2 stays cold */
    };
    const double ms = reps < 1 ? 0 : time_median_ms(reps, setup, launch);
    const long long timed_wrong = reps < 1 ? 0 : check(row, " in the last timed launch");
    row_check(row, (double)(row->n - (wrong > timed_wrong ? wrong : timed_wrong)), (double)row->n, 0.0);
    return ms;
}
#endif

#endif
