/* The CPU replays of the chapters' sums (ch05_dot, ch08_reduce). Floating-point addition is not associative: a
 * kernel's result is known to the bit only by repeating its own order of additions. These host twins repeat each
 * kernel's grid-stride loop, halving tree, warp_sum, block_sum and last block (written in each chapter, above its
 * divider), and the chapters compare bit for bit, which sees one dropped or duplicated element wherever it changes
 * a rounding. */
#ifndef COMMON_CPU_REPLAYS_CUH
#define COMMON_CPU_REPLAYS_CUH

#include <string.h>

#include "book.h"   /* HANDLE_ERROR, host_alloc */
#include "report.h" /* result_row, row_note_first_wrong */

/* Twin of the books' halving tree over shared memory: count is a power of two; values is overwritten as s_cache is
 * on the GPU; returns the total, values[0]. */
template <typename real> static inline __host__ real halving_tree_on_cpu(real *values, int count) {
    for (int half = count / 2; half > 0; half /= 2)
        for (int t = 0; t < half; ++t)
            values[t] += values[t + half];
    return values[0];
}

/* Twin of warp_sum: the shuffles down by 16, 8, 4, 2, 1 leave lane 0 with the halving tree of the 32 lanes' values
 * (lane l adds lane l + offset). */
template <typename real> static inline __host__ real warp_sum_on_cpu(const real *lanes) {
    real values[32];
    memcpy(values, lanes, sizeof values);
    return halving_tree_on_cpu(values, 32);
}

/* Twin of block_sum over `threads` values (a multiple of 32): each warp's warp_sum, then warp 0's over the warp sums,
 * padded with zeros. */
template <typename real> static inline __host__ real block_sum_on_cpu(const real *values, int threads) {
    real warp_sums[32];
    for (int warp = 0; warp < 32; ++warp)
        warp_sums[warp] = warp < threads / 32 ? warp_sum_on_cpu(values + 32 * warp) : (real)0;
    return warp_sum_on_cpu(warp_sums);
}

/* Which tree a block sums its threads' values with: the books' halving tree in shared memory, or block_sum's
 * shuffles. The two orders give different bits. */
enum block_tree { WITH_HALVING_TREE, WITH_BLOCK_SUM };

template <typename real> static inline __host__ real block_tree_on_cpu(real *values, int threads, block_tree tree) {
    return tree == WITH_BLOCK_SUM ? block_sum_on_cpu(values, threads) : halving_tree_on_cpu(values, threads);
}

/* Twins of sum_of_lanes: the lanes of one 16-byte vector, pairwise. */
static inline __host__ float sum_of_lanes_on_cpu(const float *v) { return (v[0] + v[1]) + (v[2] + v[3]); }
static inline __host__ double sum_of_lanes_on_cpu(const double *v) { return v[0] + v[1]; }

/* nvcc fuses `sum += a[i] * b[i]` into one fused multiply-add (its default -fmad=true); the twins call std::fma, the
 * same rounding. On x86-64 the loop below is built with and without the FMA instruction, the CPU picking at load
 * time: far faster than the library's fma() at 2^31 elements. Only explicit std::fma may fuse there. */
#if defined(__x86_64__) && defined(__GNUC__)
#define CPU_FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define CPU_FMA_CLONES
#endif

/* Twin of a grid-stride loop over `items` (elements, or vectors), all `threads` at once, add being the loop's body.
 * The CPU walks the items front to back, which keeps each thread's own order. */
template <typename real, typename loop_body>
CPU_FMA_CLONES static void grid_stride_sums_on_cpu(long long items, long long threads, loop_body add, real *sums) {
    for (long long t = 0; t < threads; ++t)
        sums[t] = 0;
    for (long long first = 0; first < items; first += threads) {
        const long long count = items - first < threads ? items - first : threads;
        for (long long t = 0; t < count; ++t)
            sums[t] = add(sums[t], first + t);
    }
}

/* Twin of sum_my_partials, in every thread of the block at once: a grid-stride loop over the partials. */
template <typename real>
static inline __host__ void sum_my_partials_on_cpu(const real *partials, long long count, int threads, real *shares) {
    grid_stride_sums_on_cpu(
        count, threads, [&](real share, long long i) { return share + partials[i]; }, shares);
}

/* Twin of the last block's step (store_partial_and_check_last, then sum_my_partials and the block's tree): the total
 * of `count` partials as the last block of `threads` threads (at most 1024) adds them. */
template <typename real>
static inline __host__ real last_block_on_cpu(const real *partials, long long count, int threads, block_tree tree) {
    real shares[1024];
    sum_my_partials_on_cpu(partials, count, threads, shares);
    return block_tree_on_cpu(shares, threads, tree);
}

/* How many of a kernel's `count` partials differ, in any bit, from the host twin's; the row notes how many and the
 * first. The checks compare the partials, not only the total: a partial holds far fewer elements, so it shows one
 * dropped or duplicated element that the total is too large to show. */
template <typename real>
static inline __host__ long long compare_partials(result_row *row, const real *partials, const real *host_partials,
                                                  long long count) {
    long long differ = 0, first = 0;
    for (long long i = 0; i < count; ++i)
        if (memcmp(&partials[i], &host_partials[i], sizeof(real)) != 0 && differ++ == 0) first = i;
    if (differ) {
        row_note(row, "%lld partials differ from the CPU's", differ);
        row_note_first_wrong(row, (double)partials[first], (double)host_partials[first], "partial[%lld]", first);
    }
    return differ;
}

/* The same, for partials still on the GPU. */
template <typename real>
static inline __host__ long long partials_differing(result_row *row, const real *device_partials,
                                                    const real *host_partials, long long count) {
    real *partials = (real *)host_alloc("check", (size_t)count * sizeof(real), "the partial sums");
    HANDLE_ERROR(cudaMemcpy(partials, device_partials, (size_t)count * sizeof(real), cudaMemcpyDeviceToHost));
    const long long differ = compare_partials(row, partials, host_partials, count);
    free(partials);
    return differ;
}

#endif
