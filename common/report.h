/* Measurement arithmetic and the output every example prints (plain C).
 *
 * One row per kernel: an aligned table line as soon as the kernel is done,
 * and at the end one machine-readable RESULT line per kernel, e.g.
 *   RESULT example=reduce kernel=static type=double n=100000000 value=123000000
 *          expected=123000000 rel_err=0 tolerance=1.1e-15 ms=0.501 gbps=1597 pct_copy=57 status=PASS */
#ifndef COMMON_REPORT_H
#define COMMON_REPORT_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Median of count values (sorts them in place). NAN when count is 0. */
double median_of(double *values, int count);

/* The one place bytes are counted: every element read once plus every
 * element written once, sizeof(element) bytes each. */
double bytes_moved(double elements_read, double elements_written, size_t element_bytes);

/* GB/s with GB = 1e9 bytes. */
double gigabytes_per_second(double bytes, double milliseconds);

/* 100 * value / reference; NAN when the reference is not positive. */
double percent_of(double value, double reference);

/* |value - expected| / |expected| (absolute error when expected is 0). */
double relative_error(double value, double expected);

/* 1 when value is finite and within rel_tolerance of expected. */
int within_tolerance(double value, double expected, double rel_tolerance);

typedef struct {
    const char *kernel;
    const char *type;                           /* "float", "double", or NULL            */
    long long n;                                /* elements                              */
    const char *size;                           /* optional size label, e.g. "8192x8192" */
    int has_value;                              /* value / expected / rel_err meaningful  */
    double value, expected, rel_err, tolerance; /* pass needs rel_err <= tolerance */
    int timed;                                  /* ms / gbps / pct_copy meaningful         */
    double ms, gbps, pct_copy;
    int pass;
    const char *note; /* optional short word for the table      */
} result_row;

/* Prints the bandwidth ceiling this run measured, for people and scripts:
 *   copy ceiling (cudaMemcpy device to device, 512 MiB): 2990.1 GB/s
 *   CEILING example=dot name=memcpy gbps=2990.1 */
void report_ceiling(FILE *out, const char *example, const char *name, const char *description, double gbps);

/* A row with every field cleared (status FAIL until the check sets pass). */
result_row result_row_for(const char *kernel, const char *type, long long n);

#define REPORT_MAX_ROWS 64

typedef struct {
    const char *example;
    FILE *out;
    int count;
    result_row rows[REPORT_MAX_ROWS];
} report;

/* Prints the table header. */
void report_begin(report *r, const char *example, FILE *out);
/* Prints the row as a table line and keeps it for report_end(). */
void report_add(report *r, const result_row *row);
/* Prints the RESULT lines and returns the exit code: 0 if every row passed, else 1. */
int report_end(report *r);
/* Writes one RESULT line for the row (exposed for tests). */
void report_write_result_line(FILE *out, const char *example, const result_row *row);

#ifdef __cplusplus
}
#endif
#endif
