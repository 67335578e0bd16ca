/* Unit tests of common/report.h: statistics, bandwidth and the RESULT line. */
#include <stdlib.h>
#include <string.h>

/* The CPU runner, faked: its findings so far (cpu_runner/cuda_on_cpu.h), and whether this is its build. */
static long runner_findings;
static int on_runner;
#define REPORT_RUNNER_FINDINGS() runner_findings
#define ON_CPU_RUNNER on_runner

#include "report.h"
#include "unit.h"

static void test_statistics(void) {
    CHECK(bytes_moved(100, 1, 8) == 808);
    CHECK_NEAR(gigabytes_per_second(1e9, 1000.0), 1.0, 1e-12);
    CHECK_NEAR(gigabytes_per_second(800e6, 0.5), 1600.0, 1e-9);
    CHECK(isnan(gigabytes_per_second(1, 0)));
    CHECK_NEAR(percent_of(1500, 3000), 50.0, 1e-12);
    CHECK(isnan(percent_of(1, 0)));
    CHECK_NEAR(relative_error(123633392.0, 123000000.0), 0.0051495284552845, 1e-12);
    CHECK(relative_error(0.5, 0.0) == 0.5);
    result_row row = result_row_for("k", "float", 1);
    row_check(&row, 1.0 + 1e-7, 1.0, 1e-6);
    CHECK(row.pass);
    row_check(&row, 1.0 + 1e-5, 1.0, 1e-6);
    CHECK(!row.pass);
    row_check(&row, INFINITY, 1.0, 1.0);
    CHECK(!row.pass);

    /* The first wrong element: its name and both values, one float bit apart still told apart. */
    result_row wrong = result_row_for("k", "float", 1);
    row_note(&wrong, "2 partials differ");
    row_note_first_wrong(&wrong, nextafterf(0.1f, 1.0f), 0.1f, "partial[%d]", 17);
    CHECK(strcmp(wrong.note, "2 partials differ, first wrong partial[17]: got 0.100000009, expected 0.100000001") == 0);
    result_row wrong_double = result_row_for("k", "double", 1);
    row_note_first_wrong(&wrong_double, 0.1, nextafter(0.1, 1.0), "out[%d][%d]", 3, 5);
    CHECK(strcmp(wrong_double.note, "first wrong out[3][5]: got 0.10000000000000001, expected 0.10000000000000002") ==
          0);
    result_row wrong_sums = result_row_for("k", "uint4", 1); /* ten-digit integers, whole */
    row_note_first_wrong(&wrong_sums, 3178327140u, 1567332970u, "sums[%d]", 0);
    CHECK(strcmp(wrong_sums.note, "first wrong sums[0]: got 3178327140, expected 1567332970") == 0);
}

static void test_result_lines(void) {
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    report r;
    report_begin(&r, "reduce", out);
    result_row pass = result_row_for("static", "double", 100000000);
    row_check(&pass, 123000000.0, 123000000.0, 1e-12);
    pass.bytes = 800000000;
    row_time(&pass, 0.5, "read", 2800.0);
    pass.ms = 0.501; /* as printed: the RESULT line keeps 5 decimals */
    pass.gbps = 1597.0;
    pass.pct_ceiling = 57.0;
    result_row fail = pass;
    fail.kernel = "broken";
    fail.pass = 0;
    fail.timed = 0;
    report_add(&r, &pass);
    report_add(&r, &fail);
    int code = report_end(&r);
    fclose(out);
    CHECK(code == 1);
    CHECK(strstr(text,
                 "RESULT example=reduce kernel=static type=double n=100000000 value=123000000 "
                 "expected=123000000 rel_err=0 tolerance=1e-12 bytes=800000000 ms=0.50100 gbps=1597.0 pct_ceiling=57.0 "
                 "ceiling=read l2=warm scope=whole status=PASS\n") != NULL);
    CHECK(strstr(text, "kernel=broken") != NULL &&
          strstr(text, "ms=- gbps=- pct_ceiling=- ceiling=- l2=- scope=whole status=FAIL") != NULL);
    CHECK(strstr(text, "1 of 2 checks FAILED") != NULL);
    free(text);

    out = open_memstream(&text, &size);
    report_begin(&r, "dot", out);
    report_add(&r, &pass);
    CHECK(report_end(&r) == 0);
    fclose(out);
    CHECK(strstr(text, "all 1 checks passed") != NULL);
    free(text);
}

/* A race the CPU runner found during a row's launches fails the row, whatever its value, and the summary
 * agrees with the exit code; a run whose every kernel was skipped by the runner exits 77, not "all 0 passed". */
static void test_runner_counts(void) {
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    report r;
    result_row right = result_row_for("barrier_in_if", "float", 33791), wrong = right;
    row_check(&right, 2.5, 2.5, 0);
    row_check(&wrong, 2.0, 2.5, 0);
    report_begin(&r, "dot", out);
    report_add(&r, &right);
    runner_findings = 256; /* during the next row's launches: that row fails */
    report_add(&r, &right);
    runner_findings = 300;
    report_add(&r, &wrong);
    report_add(&r, &right);
    CHECK(report_end(&r) == 1);
    fclose(out);
    CHECK(strstr(text, "status=PASS\nRESULT example=dot kernel=barrier_in_if type=float n=33791 value=2.5 expected=2.5 "
                       "rel_err=0 tolerance=0 bytes=- ms=- gbps=- pct_ceiling=- ceiling=- l2=- scope=whole status=FAIL\n"
                       "RESULT example=dot kernel=barrier_in_if type=float n=33791 value=2 expected=2.5") != NULL);
    CHECK(strstr(text, "PASS  " REPORT_FINDINGS_ONLY_NOTE) == NULL && strstr(text, "FAIL  " REPORT_FINDINGS_ONLY_NOTE));
    CHECK(strstr(text, "FAIL  " REPORT_FINDINGS_NOTE "\n") != NULL);
    CHECK(strstr(text, "2 of 4 checks FAILED") != NULL);
    free(text);

    out = open_memstream(&text, &size); /* findings before the table (every kernel launched, then checked) */
    runner_findings = 303;
    report_begin(&r, "banks", out);
    report_add(&r, &right);
    report_add(&r, &right);
    CHECK(report_end(&r) == 1);
    fclose(out);
    CHECK(strstr(text, "PASS") == NULL && strstr(text, "2 of 2 checks FAILED") != NULL);
    free(text);

    out = open_memstream(&text, &size); /* findings, but none during a row's launches */
    report_begin(&r, "dot", out);
    report_add(&r, &right);
    CHECK(report_end(&r) == 1);
    fclose(out);
    CHECK(strstr(text, "passed") && !strstr(text, "all 1 checks passed") &&
          strstr(text, "1 checks passed, but the CPU runner's findings above fail the run\n"));
    free(text);

    runner_findings = 0;
    out = open_memstream(&text, &size); /* --kernel cublas on the runner */
    on_runner = 1;
    report_begin(&r, "dot", out);
    CHECK(report_cpu_skip(&r, "cublas", "the library's kernels") == 1);
    CHECK(report_end(&r) == REPORT_EXIT_SKIPPED);
    fclose(out);
    CHECK(strstr(text, "cublas             not on the CPU runner: the library's kernels\n") &&
          strstr(text, "none of the kernels asked for ran: the CPU runner cannot run them (why above): exit 77\n"));
    free(text);

    out = open_memstream(&text, &size); /* a skipped kernel beside one that ran: the one that ran decides */
    report_begin(&r, "dot", out);
    report_skip(&r, "cublas", "the library's kernels");
    report_skip(&r, "cub", "the library's kernels");
    report_add(&r, &right);
    CHECK(report_end(&r) == 0);
    fclose(out);
    CHECK(strstr(text, "all 1 checks passed\n"));
    free(text);
    on_runner = 0;

    out = open_memstream(&text, &size); /* on a GPU, a library's kernels are not skipped */
    report_begin(&r, "dot", out);
    CHECK(report_cpu_skip(&r, "cublas", "the library's kernels") == 0);
    report_add(&r, &right);
    CHECK(report_end(&r) == 0);
    fclose(out);
    CHECK(strstr(text, "not on the CPU runner") == NULL && strstr(text, "all 1 checks passed\n"));
    free(text);

    out = open_memstream(&text, &size); /* a GPU too old for the one kernel asked for: said, then exit 77 */
    report_begin(&r, "matmul", out);
    report_skip(&r, "tma", "needs compute capability 9.0");
    CHECK(report_end(&r) == REPORT_EXIT_SKIPPED);
    fclose(out);
    CHECK(strstr(text, "tma                not run here: needs compute capability 9.0\n") &&
          strstr(text, "none of the kernels asked for ran: this GPU, build or size cannot run them (why above): exit 77\n"));
    free(text);

    out = open_memstream(&text, &size); /* skipped beside a failure: the failure decides */
    report_begin(&r, "matmul", out);
    report_skip(&r, "tma", "needs compute capability 9.0");
    report_add(&r, &wrong);
    CHECK(report_end(&r) == 1);
    fclose(out);
    free(text);
}

static void test_ceiling(void) {
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    report_ceiling(out, "dot", "memcpy", "cudaMemcpy", 2990.14);
    fclose(out);
    CHECK(strstr(text, "CEILING example=dot name=memcpy gbps=2990.1\n") != NULL);
    free(text);
    out = open_memstream(&text, &size); /* a compute peak: its CEILING line in GFLOP/s, as recompute_verdicts reads it */
    report_peak(out, "matmul", "fp32_peak", "132 SMs", 66908.24);
    fclose(out);
    CHECK(strstr(text, "peak fp32_peak (132 SMs): 66908.2 GFLOP/s\nCEILING example=matmul name=fp32_peak gflops=66908.2\n"));
    free(text);

    /* The checks: a NaN never passes, tolerance 0 means bit for bit. */
    result_row row = result_row_for("k", "float", 1);
    row_check(&row, NAN, 1.0, 1.0);
    CHECK(!row.pass);
    row_check(&row, 1.0, 1.0, 0.0);
    CHECK(row.pass);
    row_check(&row, nextafter(1.0, 2.0), 1.0, 0.0);
    CHECK(!row.pass);
    row.bytes = 2e9;
    row_time(&row, 1.0, "memcpy", 4000.0);
    CHECK_NEAR(row.gbps, 2000.0, 1e-9);
    CHECK_NEAR(row.pct_ceiling, 50.0, 1e-9);

    /* A row that counts FLOPs: GFLOP/s as a share of a peak, and on its RESULT line; no bytes: GB/s "-". */
    result_row flop_row = result_row_for("async", "float", 1);
    flop_row.flops = 2e12;
    row_time_flops(&flop_row, 50.0, "fp32_peak", 80000.0);
    CHECK_NEAR(flop_row.gflops, 40000.0, 1e-9);
    CHECK_NEAR(flop_row.pct_ceiling, 50.0, 1e-9);
    CHECK(isnan(flop_row.gbps));
    row_check(&flop_row, 1.0, 1.0, 0.0);
    char *text2 = NULL;
    size_t size2 = 0;
    out = open_memstream(&text2, &size2);
    report_write_result_line(out, "matmul", &flop_row, 0);
    fclose(out);
    CHECK(strstr(text2, " bytes=- flops=2000000000000 gflops=40000.0 ms=50.00000 gbps=- pct_ceiling=50.0 ceiling=fp32_peak ") !=
          NULL);
    free(text2);

    /* main's exit: either verdict failing is 1; nothing run (77) only counts when the book's program passed. */
    CHECK(report_exit_code(0, 0) == 0);
    CHECK(report_exit_code(1, 0) == 1);
    CHECK(report_exit_code(0, 1) == 1);
    CHECK(report_exit_code(0, REPORT_EXIT_SKIPPED) == REPORT_EXIT_SKIPPED);
    CHECK(report_exit_code(1, REPORT_EXIT_SKIPPED) == 1);
}

int main(void) {
    test_ceiling();
    test_statistics();
    test_result_lines();
    test_runner_counts();
    return unit_finish("test_report");
}
