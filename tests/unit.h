/* A minimal unit-test harness for the plain-C helpers: CHECK records a
 * failure with file:line and carries on; unit_finish() returns the exit code. */
#ifndef TESTS_UNIT_H
#define TESTS_UNIT_H

#include <math.h>
#include <stdio.h>

static int unit_checks = 0, unit_failures = 0;

#define CHECK(condition)                                                                                               \
    do {                                                                                                               \
        ++unit_checks;                                                                                                 \
        if (!(condition)) {                                                                                            \
            ++unit_failures;                                                                                           \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #condition);                              \
        }                                                                                                              \
    } while (0)

#define CHECK_NEAR(actual, expected, tolerance)                                                                        \
    do {                                                                                                               \
        double unit_a_ = (actual), unit_e_ = (expected);                                                               \
        ++unit_checks;                                                                                                 \
        if (!(fabs(unit_a_ - unit_e_) <= (tolerance))) {                                                               \
            ++unit_failures;                                                                                           \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.17g, expected %.17g\n", __FILE__, __LINE__, #actual,     \
                    unit_a_, unit_e_);                                                                                 \
        }                                                                                                              \
    } while (0)

static int unit_finish(const char *name) {
    printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failures);
    return unit_failures ? 1 : 0;
}

#endif
