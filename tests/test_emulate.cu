/* The host twins of common/cpu_replays.cuh (the chapters' bit-for-bit
 * checks rest on them) and numerics.h's every-order tests, each against an
 * independent definition: the device code's own steps simulated lane by lane,
 * a recursive definition, or the exact integer sum. Host only: compiled by
 * nvcc, no GPU needed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cmath>

#include "cpu_replays.cuh"
#include "vector16.cuh"
#include "numerics.h"
#include "unit.h"

template <typename real> static int same_bits(real x, real y) { return memcmp(&x, &y, sizeof x) == 0; }

/* Random values of several magnitudes and both signs: every addition rounds. */
template <typename real> static void fill_random(real *values, long long count, unsigned long long seed) {
    unsigned long long state = seed;
    for (long long i = 0; i < count; ++i)
        values[i] = (real)((random_unit(&state) - 0.3) * ldexp(1.0, (int)(splitmix64(&state) % 24) - 12));
}

/* Small non-negative integers: every partial sum of fewer than 2^14 of them
 * is an integer below 2^24, exact in float in every order. */
template <typename real> static void fill_small_integers(real *values, long long count, unsigned long long seed) {
    unsigned long long state = seed;
    for (long long i = 0; i < count; ++i)
        values[i] = (real)(splitmix64(&state) % 1024);
}

static long long exact_integer_sum(const float *values, long long count) {
    long long sum = 0;
    for (long long i = 0; i < count; ++i)
        sum += (long long)values[i];
    return sum;
}

// ---------------------------------------------------------------------------
// The trees.

/* The halving tree by its recursive definition: after the steps with half =
 * count/2 ... 2, values[0] holds the tree of the even-indexed values and
 * values[1] that of the odd ones, and the last step adds the two. */
template <typename real> static real interleaved_pairwise(const real *values, int count, int stride) {
    if (count == 1) return values[0];
    return interleaved_pairwise(values, count / 2, 2 * stride) +
           interleaved_pairwise(values + stride, count / 2, 2 * stride);
}

/* warp_sum as the GPU runs it: each lane's register; __shfl_down_sync(mask, v,
 * offset) gives lane l the value of lane l + offset, or its own where l +
 * offset is past the warp (the CUDA Programming Guide's rule). */
template <typename real> static real shuffle_down_lane0(const real *lanes) {
    real reg[32], next[32];
    memcpy(reg, lanes, sizeof reg);
    for (int offset = 16; offset > 0; offset /= 2) {
        for (int lane = 0; lane < 32; ++lane)
            next[lane] = reg[lane] + (lane + offset < 32 ? reg[lane + offset] : reg[lane]);
        memcpy(reg, next, sizeof reg);
    }
    return reg[0];
}

/* block_sum as the GPU runs it: each warp's lane 0 stores its warp_sum in
 * s_warp_sums; warp 0 loads lane < threads / 32 of them, 0 beyond, and shuffles. */
template <typename real> static real block_sum_simulated(const real *values, int threads) {
    real s_warp_sums[32] = {}, lanes[32];
    for (int warp = 0; warp < threads / 32; ++warp)
        s_warp_sums[warp] = shuffle_down_lane0(values + 32 * warp);
    for (int lane = 0; lane < 32; ++lane)
        lanes[lane] = lane < threads / 32 ? s_warp_sums[lane] : (real)0;
    return shuffle_down_lane0(lanes);
}

template <typename real> static void test_trees(void) {
    real values[1024], copy[1024];
    for (int seed = 1; seed <= 20; ++seed) {
        fill_random(values, 1024, seed);
        for (int count = 1; count <= 1024; count *= 2) {
            memcpy(copy, values, sizeof copy);
            CHECK(same_bits(halving_tree_on_cpu(copy, count), interleaved_pairwise(values, count, 1)));
        }
        CHECK(same_bits(warp_sum_on_cpu(values), shuffle_down_lane0(values)));
        CHECK(same_bits(warp_sum_on_cpu(values), interleaved_pairwise(values, 32, 1)));
        for (int threads = 32; threads <= 1024; threads += 32) /* any whole number of warps */
            CHECK(same_bits(block_sum_on_cpu(values, threads), block_sum_simulated(values, threads)));
        memcpy(copy, values, sizeof copy);
        CHECK(same_bits(block_tree_on_cpu(copy, 256, WITH_BLOCK_SUM), block_sum_simulated(values, 256)));
        CHECK(same_bits(block_tree_on_cpu(copy, 256, WITH_HALVING_TREE), interleaved_pairwise(values, 256, 1)));
    }
    /* The two trees are different orders: on random data some blocks differ. */
    int differ = 0;
    for (int seed = 1; seed <= 20; ++seed) {
        fill_random(values, 256, seed);
        memcpy(copy, values, sizeof copy);
        differ += !same_bits(halving_tree_on_cpu(copy, 256), block_sum_on_cpu(values, 256));
    }
    CHECK(differ > 0);
}

// ---------------------------------------------------------------------------
// The last block and the grid-stride loop.

/* sum_my_partials by its definition, for one thread: the indices t, t +
 * threads, ... below count, added from 0 in increasing order. */
template <typename real>
static real my_partials_by_definition(const real *partials, long long count, int threads, int t) {
    real sum = 0;
    for (long long k = 0; t + k * threads < count; ++k)
        sum += partials[t + k * threads];
    return sum;
}

template <typename real> static void test_last_block(void) {
    static real partials[5000], shares[1024];
    fill_random(partials, 5000, 7);
    const long long counts[] = {1, 31, 32, 33, 255, 256, 257, 1056, 5000};
    const int threads_list[] = {32, 256, 1024};
    for (long long count : counts)
        for (int threads : threads_list) {
            sum_my_partials_on_cpu(partials, count, threads, shares);
            int all_same = 1;
            for (int t = 0; t < threads; ++t)
                all_same &= same_bits(shares[t], my_partials_by_definition(partials, count, threads, t));
            CHECK(all_same);
            CHECK(same_bits(last_block_on_cpu(partials, count, threads, WITH_HALVING_TREE),
                            interleaved_pairwise(shares, threads, 1)));
            CHECK(same_bits(last_block_on_cpu(partials, count, threads, WITH_BLOCK_SUM),
                            block_sum_simulated(shares, threads)));
        }
}

/* The grid-stride loop as each thread runs it, thread after thread. */
template <typename real, typename loop_body>
static real thread_by_definition(long long items, long long threads, long long t, loop_body add) {
    real sum = 0;
    for (long long i = t; i < items; i += threads)
        sum = add(sum, i);
    return sum;
}

template <typename real> static void test_grid_stride(void) {
    static real a[100003], b[100003], sums[4096];
    fill_random(a, 100003, 11);
    fill_random(b, 100003, 12);
    auto fused = [&](real sum, long long i) { return std::fma(a[i], b[i], sum); };
    const int width = vector16<real>::width;
    auto lanes = [&](real sum, long long vector) { return sum + sum_of_lanes_on_cpu(a + width * vector); };
    const long long items_list[] = {1, 31, 32, 33, 1000, 100003};
    const long long threads_list[] = {1, 32, 33, 1024, 4096};
    for (long long items : items_list)
        for (long long threads : threads_list) {
            int all_same = 1;
            grid_stride_sums_on_cpu(items, threads, fused, sums);
            for (long long t = 0; t < threads; ++t)
                all_same &= same_bits(sums[t], thread_by_definition<real>(items, threads, t, fused));
            grid_stride_sums_on_cpu(items / width, threads, lanes, sums);
            for (long long t = 0; t < threads; ++t)
                all_same &= same_bits(sums[t], thread_by_definition<real>(items / width, threads, t, lanes));
            CHECK(all_same);
        }
    /* std::fma rounds once, as the GPU's fused multiply-add: (1 + 2^-12)^2 - 1
     * is exactly 2^-11 + 2^-24, whose 2^-24 a float product rounded first
     * (to 1 + 2^-11, ties to even) would lose. */
    const real x = (real)(1 + ldexp(1.0, -12));
    CHECK(std::fma(x, x, (real)-1) == (real)(ldexp(1.0, -11) + ldexp(1.0, -24)));
    const float lanes4[4] = {1, 2, 3, 4};
    const double lanes2[2] = {1, 2};
    CHECK(sum_of_lanes_on_cpu(lanes4) == 10 && sum_of_lanes_on_cpu(lanes2) == 3);
}

// ---------------------------------------------------------------------------
// Exact in every order: small integers in float sum to the exact integer in
// every twin's order, and every_order_exact says so.

static void test_exact_integers(void) {
    static float values[8192], sums[256], copy[1024], partials[32];
    fill_small_integers(values, 8192, 21);
    const long long exact = exact_integer_sum(values, 8192); /* below 2^23 */
    CHECK(every_order_exact((long double)exact, 0, 24));

    memcpy(copy, values, sizeof copy);
    CHECK(halving_tree_on_cpu(copy, 1024) == (float)exact_integer_sum(values, 1024));
    CHECK(block_sum_on_cpu(values, 1024) == (float)exact_integer_sum(values, 1024));
    CHECK(warp_sum_on_cpu(values) == (float)exact_integer_sum(values, 32));
    grid_stride_sums_on_cpu(
        8192LL, 256LL, [&](float sum, long long i) { return std::fma(values[i], 1.0f, sum); }, sums);
    for (int block = 0; block < 32; ++block) /* 32 blocks of 8: too few for block_sum, use the halving tree */
        partials[block] = halving_tree_on_cpu(sums + 8 * block, 8);
    CHECK(last_block_on_cpu(partials, 32, 32, WITH_BLOCK_SUM) == (float)exact);
    CHECK(last_block_on_cpu(partials, 32, 32, WITH_HALVING_TREE) == (float)exact);
    float serial = 0;
    for (int i = 0; i < 8192; ++i)
        serial += values[i];
    CHECK(serial == (float)exact);

    /* Past 2^24 it no longer holds: 2^24 + 2 ones, serially in float, stop at 2^24. */
    CHECK(!every_order_exact(ldexpl(1, 24) + 2, 0, 24));
    float ones = 0;
    for (long i = 0; i < (1L << 24) + 2; ++i)
        ones += 1.0f;
    CHECK(ones == 16777216.0f);
}

static void test_grain(void) {
    CHECK(lowest_bit_exponent(1.0) == 0);
    CHECK(lowest_bit_exponent(3.0) == 0);
    CHECK(lowest_bit_exponent(0.75) == -2);
    CHECK(lowest_bit_exponent(1.5 * ldexp(1.0, 100)) == 99);
    CHECK(lowest_bit_exponent(ldexp(1.0, -1074)) == -1074); /* the smallest subnormal */
    CHECK(lowest_bit_exponent(1 + 1.0 / 1024) == -10);      /* reduce's ramp data */
    /* v / 2^e is an odd integer for any double v > 0 */
    unsigned long long state = 5;
    int all_odd = 1;
    for (int k = 0; k < 10000; ++k) {
        const double v = ldexp(random_unit(&state) + ldexp(1.0, -60), (int)(splitmix64(&state) % 2000) - 1000);
        const double m = ldexp(v, -lowest_bit_exponent(v));
        all_odd &= m == floor(m) && fmod(m, 2) == 1;
    }
    CHECK(all_odd);
    /* grain -10 (ramp): exact below 2^(53 - 10) in double, not at it */
    CHECK(every_order_exact(ldexpl(1, 43) - 1, -10, 53));
    CHECK(!every_order_exact(ldexpl(1, 43), -10, 53));
}

// ---------------------------------------------------------------------------
// The any-order bound (atomics): 0 only for a zero sum, positive and finite
// otherwise, holds for real orders, and fails half the array at any size.

static void test_any_order_bound(void) {
    CHECK(any_order_bound(0, 1000) == 0);
    int sane = 1;
    for (int e = 1; e <= 40; ++e) { /* 2^e terms in [0, 1): a sum of about 2^(e-1) */
        const long long count = 1LL << e;
        const double bound = any_order_bound(ldexpl(1, e - 1), count);
        sane &= bound > 0 && std::isfinite(bound) && bound < 0.5;
        sane &= bound >= sum_error_bound(ELEMENT_DOUBLE, 0, 2);
    }
    CHECK(sane);
    CHECK(any_order_bound(ldexpl(1, 33), 1LL << 34) < ldexp(1.0, -18)); /* far below one half at 2^34 */

    /* It holds: serial double sums, forwards and backwards, of random terms
     * whose sum is not exact in every order. */
    static double terms[200000];
    unsigned long long state = 9;
    kahan_sum exact = {0, 0};
    for (int i = 0; i < 200000; ++i) {
        terms[i] = random_unit(&state) * ldexp(1.0, (int)(splitmix64(&state) % 30));
        kahan_add(&exact, terms[i]);
    }
    const double sum = kahan_result(&exact), bound = any_order_bound(sum, 200000);
    double forwards = 0, backwards = 0;
    for (int i = 0; i < 200000; ++i)
        forwards += terms[i];
    for (int i = 199999; i >= 0; --i)
        backwards += terms[i];
    CHECK(forwards != backwards); /* the order matters here */
    CHECK(fabs(forwards - sum) / sum <= bound);
    CHECK(fabs(backwards - sum) / sum <= bound);
    /* And it is nearly reached: 1, then 1000 terms of 2^-53 (half an ulp of
     * 1), added in that order: each addition rounds back to 1 (ties to even)
     * and all 1000 are lost, (count - 1) half-ulps of the largest partial sum. */
    const long double tiny_sum = 1 + 1000 * ldexpl(1, -53);
    double one_first = 1;
    for (int i = 0; i < 1000; ++i)
        one_first += ldexp(1.0, -53);
    CHECK(one_first == 1);
    const double lost = (double)((tiny_sum - one_first) / tiny_sum), tiny_bound = any_order_bound(tiny_sum, 1001);
    CHECK(lost <= tiny_bound && tiny_bound < lost + 2 * sum_error_bound(ELEMENT_DOUBLE, 0, 2));
    /* Half the array, or nothing, fails it. */
    double half = 0;
    for (int i = 0; i < 100000; ++i)
        half += terms[i];
    CHECK(fabs(half - sum) / sum > bound);
    CHECK(fabs(0 - sum) / sum > bound);
}

int main(void) {
    test_trees<float>();
    test_trees<double>();
    test_last_block<float>();
    test_last_block<double>();
    test_grid_stride<float>();
    test_grid_stride<double>();
    test_exact_integers();
    test_grain();
    test_any_order_bound();
    return unit_finish("test_emulate");
}
