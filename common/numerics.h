/* Closed forms, reference sums and error bounds the examples check against (plain C, header-only, unit tested). */
#ifndef COMMON_NUMERICS_H
#define COMMON_NUMERICS_H

#include <math.h>

#include "element_type.h"

/* Unit roundoff u of the element type: 2^-24 (float), 2^-53 (double). */
static inline double unit_roundoff(element_type type) {
    return type == ELEMENT_DOUBLE ? ldexp(1.0, -53) : ldexp(1.0, -24);
}

/* Rounding-error bound for a sum of non-negative terms, relative to the sum: if every term passes through at most
 * `chain` additions in a row, the computed sum is within chain * u of the exact one (Higham, Accuracy and Stability
 * of Numerical Algorithms, 2nd ed., section 4.2). `extra`: one u each for rounding before it (inputs, products). */
static inline double sum_error_bound(element_type type, long long chain, int extra) {
    return (double)(chain + extra) * unit_roundoff(type);
}

/* Sums that are exact in every order. A double v > 0 is m 2^e with m odd: lowest_bit_exponent returns e. If every
 * term is a non-negative multiple of 2^grain (the smallest e among them), every partial sum, in any order, is a
 * multiple of 2^grain no larger than the sum; if the sum is below 2^(bits + grain), every partial sum is
 * representable in a type with `bits` significand bits (24 float, 53 double) and no addition rounds at all. */
static inline int lowest_bit_exponent(double v) {
    int exponent;
    const double fraction = frexp(fabs(v), &exponent); /* in [1/2, 1), of 53 bits at most */
    return exponent - 53 + __builtin_ctzll((unsigned long long)ldexp(fraction, 53));
}

/* 1 when every order of adding the terms is exact (above); sum_at_most is the exact sum or an upper bound of it. */
static inline int every_order_exact(long double sum_at_most, int grain, int bits) {
    return sum_at_most < ldexpl(1, bits + grain);
}

/* `count` non-negative terms added in double in any order (atomics), where not every order is exact: each of the
 * count - 1 additions rounds by at most half an ulp of the largest partial sum, at most the exact sum S plus the
 * rounding so far: (count - 1) x half-ulp(S (1 + count u)), relative to S; plus 2 u for S itself. 0 when S = 0. */
static inline double any_order_bound(long double sum, long long count) {
    if (sum == 0) return 0;
    int exponent;
    frexpl(sum * (1 + count * ldexpl(1, -53)), &exponent); /* 2^(exponent-1) <= largest < 2^exponent */
    const long double half_ulp = ldexpl(1, exponent - 1 - 53);
    return (double)((count - 1) * half_ulp / sum) + sum_error_bound(ELEMENT_DOUBLE, 0, 2);
}

/* ceil(log2(x)) for x >= 1: the depth of a halving tree over x values. */
static inline int ceil_log2(long long x) { return x <= 1 ? 0 : 64 - __builtin_clzll((unsigned long long)(x - 1)); }

/* ch05_dot, book data a[i] = i, b[i] = 2i: sum of 2 i^2 for i < n, = 2 (n-1) n (2n-1) / 6, in long double (64-bit
 * significand): exact below n = 2^21, within 2^-64 relative beyond, far below the rounding it is compared with. */
static inline long double dot_book_closed_form(long long n) {
    long double m = (long double)n;
    return 2.0L * (m - 1) * m * (2 * m - 1) / 6.0L;
}

/* ch05_dot, periodic data a[i] = i mod P, b[i] = (P-1) - (i mod P), P = 4093: every input and product is an exact
 * float, and the exact dot is (n / P) * S(P) + S(n mod P) with S(m) = sum of k (P-1-k) for k < m
 * = (P-1) m(m-1)/2 - (m-1) m (2m-1)/6, exact in 64 bits. */
#define DOT_PERIOD 4093

static inline long long dot_periodic_partial_(long long m) {
    return (DOT_PERIOD - 1) * (m * (m - 1) / 2) - (m - 1) * m * (2 * m - 1) / 6;
}

static inline long double dot_periodic_closed_form(long long n) {
    return (long double)(n / DOT_PERIOD) * (long double)dot_periodic_partial_(DOT_PERIOD) +
           (long double)dot_periodic_partial_(n % DOT_PERIOD);
}

/* Compensated (Kahan-Babuska / Neumaier) running sum in double. */
typedef struct {
    double sum, compensation;
} kahan_sum;

static inline void kahan_add(kahan_sum *k, double x) {
    const double t = k->sum + x;
    k->compensation += fabs(k->sum) >= fabs(x) ? (k->sum - t) + x : (x - t) + k->sum;
    k->sum = t;
}

static inline double kahan_result(const kahan_sum *k) { return k->sum + k->compensation; }

/* Deterministic pseudo-random numbers (splitmix64) for seeded test data. */
static inline unsigned long long splitmix64(unsigned long long *state) {
    unsigned long long z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1), 53 random bits. */
static inline double random_unit(unsigned long long *state) {
    return (double)(splitmix64(state) >> 11) * ldexp(1.0, -53);
}

#endif
