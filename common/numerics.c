/* Closed forms, reference sums and error bounds: see numerics.h. */
#include "numerics.h"

#include <math.h>

double unit_roundoff(element_type type) { return type == ELEMENT_DOUBLE ? ldexp(1.0, -53) : ldexp(1.0, -24); }

double sum_error_bound(element_type type, long long chain, int extra) {
    return (double)(chain + extra) * unit_roundoff(type);
}

int ceil_log2(long long x) {
    int depth = 0;
    while ((1LL << depth) < x)
        ++depth;
    return depth;
}

long double dot_book_closed_form(long long n) {
    long double m = (long double)n;
    return 2.0L * (m - 1) * m * (2 * m - 1) / 6.0L;
}

/* S(m) = sum_{k<m} k (P-1-k) = (P-1) m(m-1)/2 - (m-1) m (2m-1)/6, exact in 64 bits. */
static long long periodic_partial(long long m) {
    long long p = DOT_PERIOD;
    return (p - 1) * (m * (m - 1) / 2) - (m - 1) * m * (2 * m - 1) / 6;
}

long double dot_periodic_closed_form(long long n) {
    return (long double)(n / DOT_PERIOD) * (long double)periodic_partial(DOT_PERIOD) +
           (long double)periodic_partial(n % DOT_PERIOD);
}

float dot_periodic_a(long long i) { return (float)(i % DOT_PERIOD); }
float dot_periodic_b(long long i) { return (float)(DOT_PERIOD - 1 - i % DOT_PERIOD); }

void kahan_add(kahan_sum *k, double x) {
    double t = k->sum + x;
    if (fabs(k->sum) >= fabs(x))
        k->compensation += (k->sum - t) + x;
    else
        k->compensation += (x - t) + k->sum;
    k->sum = t;
}

double kahan_result(const kahan_sum *k) { return k->sum + k->compensation; }

unsigned long long splitmix64(unsigned long long *state) {
    unsigned long long z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

double random_unit(unsigned long long *state) { return (double)(splitmix64(state) >> 11) * ldexp(1.0, -53); }
