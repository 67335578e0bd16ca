/* Closed forms, reference sums and error bounds the examples check against
 * (plain C, unit tested without a GPU). */
#ifndef COMMON_NUMERICS_H
#define COMMON_NUMERICS_H

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Unit roundoff u of the element type: 2^-24 (float), 2^-53 (double). */
double unit_roundoff(element_type type);

/* Rounding-error bound for a sum of non-negative terms, relative to the sum:
 * if every term passes through at most `chain` additions in a row, the computed
 * sum is within chain * u of the exact one (Higham, Accuracy and Stability of
 * Numerical Algorithms, 2nd ed., section 4.2). `extra` covers rounding that
 * happens before the sum (inputs, products); one u each. */
double sum_error_bound(element_type type, long long chain, int extra);

/* ceil(log2(x)) for x >= 1: the depth of a halving tree over x values. */
int ceil_log2(long long x);

/* ch05_dot, book data a[i] = i, b[i] = 2i: sum of 2 i^2 for i < n,
 * = 2 (n-1) n (2n-1) / 6, evaluated in long double (64-bit significand): an
 * exact integer below n = 2^21, within 2^-64 relative beyond, far below any
 * float or double rounding it is compared with. */
long double dot_book_closed_form(long long n);

/* ch05_dot, periodic data a[i] = i mod P, b[i] = (P-1) - (i mod P), P = 4093:
 * every input and product is an exact float, and the exact dot is
 * (n / P) * S(P) + S(n mod P) with S(m) = sum of k (P-1-k) for k < m. */
#define DOT_PERIOD 4093
long double dot_periodic_closed_form(long long n);
float dot_periodic_a(long long i);
float dot_periodic_b(long long i);

/* Compensated (Kahan-Babuska / Neumaier) running sum in double. */
typedef struct {
    double sum, compensation;
} kahan_sum;
void kahan_add(kahan_sum *k, double x);
double kahan_result(const kahan_sum *k);

/* Deterministic pseudo-random numbers (splitmix64) for seeded test data. */
unsigned long long splitmix64(unsigned long long *state);
/* Uniform in [0, 1), 53 random bits. */
double random_unit(unsigned long long *state);

#ifdef __cplusplus
}
#endif
#endif
