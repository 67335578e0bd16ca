/* Unit tests of common/numerics.h: closed forms against brute force, bounds. */
#include "numerics.h"
#include "unit.h"

/* ch05_dot's periodic data, element by element (dot.cu fills whole arrays the same way). */
static float dot_periodic_a(long long i) { return (float)(i % DOT_PERIOD); }
static float dot_periodic_b(long long i) { return (float)(DOT_PERIOD - 1 - i % DOT_PERIOD); }

static void test_dot_closed_forms(void) {
    /* The book's value for N = 33 * 1024 (ch05_dot/README.md: exact 25723564731392). */
    CHECK(dot_book_closed_form(33792) == 25723564731392.0L);
    long long brute = 0;
    long double periodic = 0;
    for (long long i = 0; i < 20000; ++i) {
        long long n = i + 1;
        brute += 2 * i * i;
        periodic += (long double)dot_periodic_a(i) * (long double)dot_periodic_b(i);
        if (n == 1 || n == 255 || n == 256 || n == 257 || n == 4093 || n == 4094 || n == 20000) {
            CHECK(dot_book_closed_form(n) == (long double)brute);
            CHECK(dot_periodic_closed_form(n) == periodic);
        }
    }
    /* Every periodic product is exact in float: below 2^24. */
    CHECK((double)dot_periodic_a(2046) * dot_periodic_b(2046) < 16777216.0);
    CHECK(dot_periodic_a(4093) == 0.0f && dot_periodic_b(4093) == 4092.0f);
}

static void test_bounds(void) {
    CHECK(unit_roundoff(ELEMENT_FLOAT) == 1.0 / 16777216.0);
    CHECK(unit_roundoff(ELEMENT_DOUBLE) == 1.0 / 9007199254740992.0);
    CHECK_NEAR(sum_error_bound(ELEMENT_FLOAT, 13, 3), 16.0 / 16777216.0, 0);
    CHECK(ceil_log2(1) == 0 && ceil_log2(2) == 1 && ceil_log2(3) == 2 && ceil_log2(256) == 8 && ceil_log2(257) == 9);
}

static void test_kahan(void) {
    /* 1e8 additions of 1.23: naive float sticks at 2^25 = 33554432 (ch08_reduce/README.md);
     * a compensated double sum lands on 123000000 within double rounding. */
    float naive = 0;
    kahan_sum k = {0, 0};
    for (long i = 0; i < 100000000; ++i) {
        naive += 1.23f;
        kahan_add(&k, 1.23);
    }
    CHECK(naive == 33554432.0f);
    CHECK_NEAR(kahan_result(&k), 123000000.0, 1e-6);
    kahan_sum cancel = {0, 0};
    kahan_add(&cancel, 1.0);
    kahan_add(&cancel, 1e100);
    kahan_add(&cancel, 1.0);
    kahan_add(&cancel, -1e100);
    CHECK(kahan_result(&cancel) == 2.0);
}

static void test_random(void) {
    unsigned long long a = 7, b = 7, c = 8;
    double x = random_unit(&a);
    CHECK(x == random_unit(&b));
    CHECK(x != random_unit(&c));
    double sum = 0;
    for (int i = 0; i < 10000; ++i) {
        double u = random_unit(&a);
        CHECK(u >= 0 && u < 1);
        sum += u;
    }
    CHECK_NEAR(sum / 10000, 0.5, 0.02);
}

int main(void) {
    test_dot_closed_forms();
    test_bounds();
    test_kahan();
    test_random();
    return unit_finish("test_numerics");
}
