/* Measurement arithmetic and output: see report.h. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median_of(double *values, int count) {
    if (count <= 0) return NAN;
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

double bytes_moved(double elements_read, double elements_written, size_t element_bytes) {
    return (elements_read + elements_written) * (double)element_bytes;
}

double gigabytes_per_second(double bytes, double milliseconds) {
    return milliseconds > 0 ? bytes / (milliseconds * 1e-3) / 1e9 : NAN;
}

double percent_of(double value, double reference) { return reference > 0 ? 100.0 * value / reference : NAN; }

double relative_error(double value, double expected) {
    double difference = fabs(value - expected);
    return expected != 0 ? difference / fabs(expected) : difference;
}

int within_tolerance(double value, double expected, double rel_tolerance) {
    return isfinite(value) && relative_error(value, expected) <= rel_tolerance;
}

void report_ceiling(FILE *out, const char *example, const char *name, const char *description, double gbps) {
    fprintf(out, "copy ceiling (%s): %.1f GB/s\nCEILING example=%s name=%s gbps=%.1f\n\n", description, gbps, example,
            name, gbps);
}

result_row result_row_for(const char *kernel, const char *type, long long n) {
    result_row row;
    memset(&row, 0, sizeof row);
    row.kernel = kernel;
    row.type = type;
    row.n = n;
    return row;
}

void report_begin(report *r, const char *example, FILE *out) {
    r->example = example;
    r->out = out;
    r->count = 0;
    fprintf(out, "%-14s %-6s %12s %18s %18s %9s %9s %9s %9s %8s  %s\n", "kernel", "type", "n", "value", "expected",
            "rel_err", "tolerance", "ms", "GB/s", "%copy", "status");
}

/* Formats x with a printf format, or "-" when the field is not meaningful. */
static const char *field(char *buffer, size_t size, const char *format, int meaningful, double x) {
    if (!meaningful || isnan(x))
        snprintf(buffer, size, "-");
    else
        snprintf(buffer, size, format, x);
    return buffer;
}

void report_add(report *r, const result_row *row) {
    char value[32], expected[32], rel_err[32], tolerance[32], ms[32], gbps[32], pct[32];
    fprintf(r->out, "%-14s %-6s %12lld %18s %18s %9s %9s %9s %9s %8s  %s%s%s\n", row->kernel,
            row->type ? row->type : "-", row->n, field(value, sizeof value, "%.10g", row->has_value, row->value),
            field(expected, sizeof expected, "%.10g", row->has_value, row->expected),
            field(rel_err, sizeof rel_err, "%.2e", row->has_value, row->rel_err),
            field(tolerance, sizeof tolerance, "%.2e", row->has_value, row->tolerance),
            field(ms, sizeof ms, "%.4f", row->timed, row->ms), field(gbps, sizeof gbps, "%.1f", row->timed, row->gbps),
            field(pct, sizeof pct, "%.1f", row->timed, row->pct_copy), row->pass ? "PASS" : "FAIL",
            row->note ? "  " : "", row->note ? row->note : "");
    fflush(r->out);
    if (r->count < REPORT_MAX_ROWS) r->rows[r->count++] = *row;
}

void report_write_result_line(FILE *out, const char *example, const result_row *row) {
    char buffer[32];
    fprintf(out, "RESULT example=%s kernel=%s type=%s n=%lld", example, row->kernel, row->type ? row->type : "-",
            row->n);
    if (row->size) fprintf(out, " size=%s", row->size);
    fprintf(out, " value=%s", field(buffer, sizeof buffer, "%.17g", row->has_value, row->value));
    fprintf(out, " expected=%s", field(buffer, sizeof buffer, "%.17g", row->has_value, row->expected));
    fprintf(out, " rel_err=%s", field(buffer, sizeof buffer, "%.3g", row->has_value, row->rel_err));
    fprintf(out, " tolerance=%s", field(buffer, sizeof buffer, "%.3g", row->has_value, row->tolerance));
    fprintf(out, " ms=%s", field(buffer, sizeof buffer, "%.5f", row->timed, row->ms));
    fprintf(out, " gbps=%s", field(buffer, sizeof buffer, "%.1f", row->timed, row->gbps));
    fprintf(out, " pct_copy=%s", field(buffer, sizeof buffer, "%.1f", row->timed, row->pct_copy));
    fprintf(out, " status=%s\n", row->pass ? "PASS" : "FAIL");
}

int report_end(report *r) {
    int failures = 0;
    fprintf(r->out, "\n");
    for (int i = 0; i < r->count; ++i) {
        report_write_result_line(r->out, r->example, &r->rows[i]);
        failures += !r->rows[i].pass;
    }
    if (failures)
        fprintf(r->out, "%d of %d checks FAILED\n", failures, r->count);
    else
        fprintf(r->out, "all %d checks passed\n", r->count);
    fflush(r->out);
    return failures ? 1 : 0;
}
