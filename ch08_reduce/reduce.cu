/* ch08_reduce: summing an array, from global memory to shared memory to the
 * bandwidth limit (Fan Zheyong, CUDA 编程：基础与实践: ch. 8 shared memory,
 * ch. 9 atomics, ch. 10 warps; and a Chinese tutorial's sum-of-squares demo).
 *
 * What it teaches: a block can halve its values in global memory, but shared
 * memory (static or dynamic) does it on chip; one atomicAdd per element
 * serialises the whole GPU on one address, one per block does not; the last
 * warp needs __syncwarp() (the old "warp-synchronous" trick is a race since
 * Volta); after that the limit is memory bandwidth, and the last steps reach
 * it. Along the way, the book's precision lesson: the order of float additions
 * decides whether 1e8 x 1.23 comes out as 33554432, 123633392 or 123000000.
 *
 * Build this file alone, from its folder:
 *   nvcc -O3 -I../common reduce.cu -o reduce
 *
 * Run:
 *   ./reduce                             the book's program (1e8 x 1.23, float), then every kernel, timed
 *   ./reduce --type double --kernel static,one_launch,cub
 *   ./reduce --data random --n 1000003 --check       verify only, as the tests do
 *   ./reduce --kernel warp_unrolled,warp_synced      the warp-synchronous trap, and its fix
 *   ./reduce --demo squares              the tutorial's demo: the sum of squares of i % 10, three ways
 *
 * Kernels, in teaching order (one partial sum per block unless said otherwise):
 *   global         Fan ch. 8: each block halves its slice in place in global
 *                  memory; it destroys its input, so it works on a scratch copy.
 *   static         Fan ch. 8: a fixed-size __shared__ array holds the block's values.
 *   dynamic        Fan ch. 8: the same with extern __shared__, sized at launch.
 *   atomic         Fan ch. 9 and the tutorial: every element one atomicAdd into one total.
 *   shared_atomic  Fan ch. 9 and the tutorial: the block tree, then one atomicAdd per block.
 *   warp_unrolled  the trap (by name only, never under all): the classic unrolled
 *                  last warp on a volatile array, with no barrier at all.
 *   warp_synced    Fan ch. 10: the last warp's steps separated by __syncwarp().
 *   shuffle        Fan ch. 10: warp shuffles instead of the shared-memory tree.
 *   vector         Fan ch. 10 (more work per thread, a second pass): 16-byte loads,
 *                  a grid that fills the GPU once, one block adds the partials.
 *   one_launch     the same, but the last block to finish adds the partials (Fan chs. 9, 10).
 *   cub            cub::DeviceReduce::Sum, the library reference.
 *
 * Data (--data): const = the book's 1.23 everywhere; ramp = 1 + (i mod 1024) /
 * 1024; random = uniform in [0, 1) from --seed. A constant input hides indexing
 * bugs (summing the wrong elements still gives the right total), so the tests
 * use ramp and random data too. How each kernel is checked: see check_kernel. */
#include <cub/device/device_reduce.cuh>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "block_reduce.cuh"
#include "book.h"
#include "ceiling.cuh"
#include "cli.h"
#include "numerics.h"
#include "report.h"

// ---------------------------------------------------------------------------
// Constants: the book's, the tutorial's, and ours.

#define BOOK_N 100000000LL /* 1e8 elements                                   */
#define BOOK_VALUE 1.23    /* every element                                  */
#define BOOK_BLOCK 128     /* threads per block of the book's kernels        */
#define MAX_BLOCK 1024     /* the largest block CUDA allows                  */
#define FAST_THREADS 256   /* vector and one_launch                          */
#define FAST_UNROLL 4      /* independent 16-byte loads in flight per thread */
#define ATOMIC_MAX_REPS 3  /* 1e8 atomics to one address take a few hundred ms */
#define RAMP_PERIOD 1024
#define SQUARES_N (1 << 20) /* the tutorial's demo: x[i] = i % 10, int       */
#define SQUARES_PERIOD 10
#define SQUARES_BLOCK 256

enum {
    KERNEL_GLOBAL,
    KERNEL_STATIC,
    KERNEL_DYNAMIC,
    KERNEL_ATOMIC,
    KERNEL_SHARED_ATOMIC,
    KERNEL_WARP_SYNCED,
    KERNEL_SHUFFLE,
    KERNEL_VECTOR,
    KERNEL_ONE_LAUNCH,
    KERNEL_CUB,
    KERNEL_WARP_UNROLLED, /* deliberately wrong: after the others, run only when named (cli.h) */
    KERNEL_COUNT
};
static const char *const kernel_names[] = {"global",        "static",      "dynamic", "atomic",
                                           "shared_atomic", "warp_synced", "shuffle", "vector",
                                           "one_launch",    "cub",         NULL};
static const char *const wrong_kernel_names[] = {"warp_unrolled", NULL};
static const char *kernel_name(int kernel) {
    return kernel < KERNEL_WARP_UNROLLED ? kernel_names[kernel] : wrong_kernel_names[kernel - KERNEL_WARP_UNROLLED];
}
#define KERNEL_BIT(k) (1u << (k))
/* global ... shuffle (the kernels before vector) and the trap: one element per thread, --block threads per block. */
#define ONE_ELEMENT_KERNELS ((KERNEL_BIT(KERNEL_VECTOR) - 1u) | KERNEL_BIT(KERNEL_WARP_UNROLLED))
/* Kernels whose block sum is the halving tree over shared memory. */
#define TREE_KERNELS                                                                                                   \
    (KERNEL_BIT(KERNEL_GLOBAL) | KERNEL_BIT(KERNEL_STATIC) | KERNEL_BIT(KERNEL_DYNAMIC) |                              \
     KERNEL_BIT(KERNEL_SHARED_ATOMIC) | KERNEL_BIT(KERNEL_WARP_UNROLLED) | KERNEL_BIT(KERNEL_WARP_SYNCED))
#define BOOK_KERNELS (KERNEL_BIT(KERNEL_GLOBAL) | KERNEL_BIT(KERNEL_STATIC) | KERNEL_BIT(KERNEL_DYNAMIC))

enum { DATA_CONST, DATA_RAMP, DATA_RANDOM };
static const char *const data_names[] = {"const", "ramp", "random", NULL};

// ---------------------------------------------------------------------------
// The input, and its exact sum, on the CPU.

/* Every value is non-negative. Ramp values 1 + k/1024 are multiples of 2^-10,
 * so every partial sum of them is exact in double up to n ~ 2^42. */
template <typename real> static void fill_input(real *x, long long n, int data, unsigned long long seed) {
    unsigned long long state = seed;
    for (long long i = 0; i < n; ++i) {
        if (data == DATA_CONST)
            x[i] = (real)BOOK_VALUE;
        else if (data == DATA_RAMP)
            x[i] = (real)(1.0 + (double)(i % RAMP_PERIOD) / RAMP_PERIOD);
        else
            x[i] = (real)random_unit(&state);
    }
}

/* The exact sum of some non-negative terms, and their grain: the largest
 * power of two 2^grain that divides every term. Every order of adding them is
 * exact when the sum is below 2^(p + grain) (every_order_exact, numerics.h;
 * p = 24 bits for float, 53 for double). */
typedef struct {
    long double sum; /* compensated in double: exact when the grain test holds, else within 2 u_double */
    int grain;
    long long count;
} term_sum;

template <typename real> static term_sum exact_sum_of(const real *terms, long long count) {
    term_sum t = {0, 4096, count};
    kahan_sum k = {0, 0};
    for (long long i = 0; i < count; ++i) {
        const double term = (double)terms[i];
        kahan_add(&k, term);
        if (term != 0) {
            const int e = lowest_bit_exponent(term);
            if (e < t.grain) t.grain = e;
        }
    }
    t.sum = kahan_result(&k);
    return t;
}

/* The grain test for these terms: their compensated sum, with a margin far
 * wider than its error, is the upper bound of the exact sum. */
static int exact_in_every_order(const term_sum *t, int bits) {
    return every_order_exact(t->sum * (1 + ldexpl(1, -40)), t->grain, bits);
}

// ---------------------------------------------------------------------------
// Each deterministic kernel's own order of additions, replayed on the CPU in
// the element type with the host twins of common/block_reduce.cuh, so its
// per-block partials and its result can be compared bit for bit. A partial
// sums a few hundred to a hundred thousand elements: one dropped, duplicated
// or misplaced element changes its bits unless the element is below half a
// unit in the last place of that partial (a float total of 1.23e8 cannot show
// one 1.23; the partial it went through can).

/* global ... shuffle: one element per thread (0 past n), one tree per block:
 * the halving tree (global, static, dynamic, shared_atomic, warp_unrolled,
 * warp_synced: the same pairs in the same steps), or block_sum (shuffle). */
template <typename real>
static void one_element_partials_on_cpu(const real *x, long long n, int threads, block_tree tree, real *partials) {
    real values[MAX_BLOCK];
    const long long blocks = (n + threads - 1) / threads;
    for (long long b = 0; b < blocks; ++b) {
        for (int t = 0; t < threads; ++t)
            values[t] = b * threads + t < n ? x[b * threads + t] : (real)0;
        partials[b] = block_tree_on_cpu(values, threads, tree);
    }
}

/* vector and one_launch with `blocks` blocks: each thread's thread_sum (its
 * vectors' sum_of_lanes in a grid-stride loop, then one tail element),
 * block_sum per block (into partials), then the last block over the partials
 * (reduce_partials adds them in the same order). */
template <typename real> static real vector_on_cpu(const real *x, long long n, int blocks, real *partials) {
    const int width = vector16<real>::width;
    const long long threads = (long long)blocks * FAST_THREADS, vectors = n / width;
    real *sums = (real *)host_alloc("reduce", (size_t)threads * sizeof(real), "the emulated thread sums");
    auto add_vector = [=](real sum, long long vector) { return sum + sum_of_lanes_on_cpu(x + vector * width); };
    grid_stride_sums_on_cpu(vectors, threads, add_vector, sums);
    for (long long t = 0; t < threads && vectors * width + t < n; ++t)
        sums[t] += x[vectors * width + t];
    for (int b = 0; b < blocks; ++b)
        partials[b] = block_sum_on_cpu(sums + (long long)b * FAST_THREADS, FAST_THREADS);
    const real total = last_block_on_cpu(partials, blocks, FAST_THREADS, WITH_BLOCK_SUM);
    free(sums);
    return total;
}

/* The host's sum of the partials, in double, in order (what the check adds). */
template <typename real> static double sum_in_double(const real *partials, long long count) {
    double sum = 0;
    for (long long i = 0; i < count; ++i)
        sum += (double)partials[i];
    return sum;
}

// ---------------------------------------------------------------------------
// Kernel 1, global (Fan ch. 8, the first version): block b owns the slice
// x[b*blockDim, (b+1)*blockDim); at each step the lower half of the active
// part adds the upper half, in place, in global memory. Elements past n are
// never read or written. The barrier sits outside the if: every thread of the
// block must reach it. blockDim.x must be a power of two.

template <typename real> __global__ void reduce_global(real *x, real *partials, long long n) {
    const long long first = (long long)blockIdx.x * blockDim.x;
    real *slice = x + first;
    const unsigned int tid = threadIdx.x;
    for (unsigned int offset = blockDim.x / 2; offset > 0; offset /= 2) {
        if (tid < offset && first + tid + offset < n) slice[tid] += slice[tid + offset];
        __syncthreads(); /* also makes this step's global writes visible to the block */
    }
    if (tid == 0) partials[blockIdx.x] = slice[0];
}

// ---------------------------------------------------------------------------
// Kernel 2, static (Fan ch. 8): the block copies its slice into shared memory
// once (0 past n) and the tree runs there: on chip, and the input is left
// untouched. A static array's size is a compile-time constant, so it must
// cover the largest block --block allows; the book writes s_y[128].

template <typename real> __global__ void reduce_static(const real *x, real *partials, long long n) {
    __shared__ real s_y[MAX_BLOCK];
    const unsigned int tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;
    s_y[tid] = i < n ? x[i] : (real)0;
    __syncthreads(); /* every value is in s_y before anyone reads a neighbour's */
    for (unsigned int offset = blockDim.x / 2; offset > 0; offset /= 2) {
        if (tid < offset) s_y[tid] += s_y[tid + offset];
        __syncthreads(); /* the next step reads what this one wrote */
    }
    if (tid == 0) partials[blockIdx.x] = s_y[0];
}

// ---------------------------------------------------------------------------
// Kernel 3, dynamic (Fan ch. 8): only the declaration changed. extern
// __shared__ has no size; the third <<<>>> parameter gives it in bytes at
// launch, so the array is exactly one block long whatever --block is.

template <typename real> __global__ void reduce_dynamic(const real *x, real *partials, long long n) {
    /* Declared as bytes and viewed as real: the float and the double kernel
     * share one extern __shared__ symbol, and it may have only one type.
     * (Later kernels get the same view from dynamic_shared<real>().) */
    extern __shared__ __align__(16) unsigned char s_bytes[];
    real *s_y = reinterpret_cast<real *>(s_bytes);
    const unsigned int tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;
    s_y[tid] = i < n ? x[i] : (real)0;
    __syncthreads();
    for (unsigned int offset = blockDim.x / 2; offset > 0; offset /= 2) {
        if (tid < offset) s_y[tid] += s_y[tid + offset];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = s_y[0];
}

// ---------------------------------------------------------------------------
// Kernel 4, atomic (the tutorial's naive version; Fan ch. 9 introduces
// atomicAdd): no tree at all, every thread adds its element to one total.
// Correct, because the hardware serialises the additions, and slow for the
// same reason. The total is a double even for float data: a float total is
// one serial chain, like the CPU's float loop, and sticks at 2^25 = 33554432.

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600
/* atomicAdd on a double is an instruction from compute capability 6.0 on; nvcc
 * 12 builds for 5.2 unless told otherwise, so there the Programming Guide's
 * compare-and-swap loop stands in: retry until no other thread got between
 * our read and our write. */
__device__ double atomicAdd(double *address, double value) {
    unsigned long long *word = (unsigned long long *)address, seen = *word, assumed;
    do {
        assumed = seen;
        seen = atomicCAS(word, assumed,
                         (unsigned long long)__double_as_longlong(value + __longlong_as_double((long long)assumed)));
    } while (assumed != seen);
    return __longlong_as_double((long long)seen);
}
#endif

template <typename real> __global__ void reduce_atomic(const real *x, double *total, long long n) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, (double)x[i]);
}

// ---------------------------------------------------------------------------
// Kernel 5, shared_atomic (Fan ch. 9: one atomicAdd per block instead of a
// second pass; the tutorial's fast version): the dynamic kernel's tree, then
// thread 0 adds the block's sum to the total. n / blockDim atomics instead of
// n, no partials left for the CPU; they land in no fixed order.

template <typename real> __global__ void reduce_shared_atomic(const real *x, double *total, long long n) {
    real *s_y = dynamic_shared<real>(); /* extern __shared__, as in reduce_dynamic */
    const unsigned int tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;
    s_y[tid] = i < n ? x[i] : (real)0;
    __syncthreads();
    for (unsigned int offset = blockDim.x / 2; offset > 0; offset /= 2) {
        if (tid < offset) s_y[tid] += s_y[tid + offset];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(total, (double)s_y[0]);
}

// ---------------------------------------------------------------------------
// The tutorial's own demo, in int: the sum of the squares of x[i] = i % 10.
// Naive: one atomicAdd per element into a single global int. With shared
// memory: a block tree in dynamic shared memory (the tutorial's comment calls
// that array "static": it is the extern __shared__ kind), one atomicAdd per
// block. Integer additions are exact, so both must give the closed form.

__global__ void squares_atomic(const int *x, int *total, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, x[i] * x[i]);
}

__global__ void squares_shared(const int *x, int *total, int n) {
    int *s_squares = dynamic_shared<int>();
    const unsigned int tid = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + tid;
    s_squares[tid] = i < n ? x[i] * x[i] : 0;
    __syncthreads();
    for (unsigned int offset = blockDim.x / 2; offset > 0; offset /= 2) {
        if (tid < offset) s_squares[tid] += s_squares[tid + offset];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(total, s_squares[0]);
}

// ---------------------------------------------------------------------------
// Kernel 6, warp_unrolled: THE TRAP, asked for by name only. Once the tree is
// down to 64 values, the classic code (still in many tutorials) lets the last
// warp finish with no barrier, trusting its 32 threads to run in lockstep, and
// `volatile` to keep each value in memory. In every step all 32 threads run:
// thread 0 reads s_y[16] while thread 16 writes it. Since Volta (independent
// thread scheduling) nothing makes a warp's threads run in lockstep: it is a
// data race, whether or not the sum comes out right. Needs blockDim.x >= 64.

template <typename real> __global__ void reduce_warp_unrolled(const real *x, real *partials, long long n) {
    __shared__ real s_y[MAX_BLOCK];
    const unsigned int tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;
    s_y[tid] = i < n ? x[i] : (real)0;
    __syncthreads();
    for (unsigned int offset = blockDim.x / 2; offset > 32; offset /= 2) {
        if (tid < offset) s_y[tid] += s_y[tid + offset];
        __syncthreads();
    }
    if (tid < 32) {
        volatile real *v = s_y;
        v[tid] += v[tid + 32];
        v[tid] += v[tid + 16];
        v[tid] += v[tid + 8];
        v[tid] += v[tid + 4];
        v[tid] += v[tid + 2];
        v[tid] += v[tid + 1];
    }
    if (tid == 0) partials[blockIdx.x] = s_y[0];
}

// ---------------------------------------------------------------------------
// Kernel 7, warp_synced (Fan ch. 10): the correct form. While more than one
// warp works, __syncthreads(); from offset 16 on only warp 0 works, and
// __syncwarp() (a barrier for the threads of one warp, far cheaper than the
// block's) orders each step's writes before the next step's reads.

template <typename real> __global__ void reduce_warp_synced(const real *x, real *partials, long long n) {
    __shared__ real s_y[MAX_BLOCK];
    const unsigned int tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;
    s_y[tid] = i < n ? x[i] : (real)0;
    __syncthreads();
    for (unsigned int offset = blockDim.x / 2; offset >= 32; offset /= 2) {
        if (tid < offset) s_y[tid] += s_y[tid + offset];
        __syncthreads();
    }
    for (unsigned int offset = 16; offset > 0; offset /= 2) {
        if (tid < offset) s_y[tid] += s_y[tid + offset];
        __syncwarp();
    }
    if (tid == 0) partials[blockIdx.x] = s_y[0];
}

// ---------------------------------------------------------------------------
// Kernel 8, shuffle (Fan ch. 10, warp shuffle functions; his cooperative-
// groups version, thread_block_tile<32>::shfl_down, is the same shuffle
// through another interface): inside a warp, __shfl_down_sync hands values from register to
// register: no shared memory, no barrier. Shared memory only joins the warps'
// sums (block_sum in common/block_reduce.cuh): 2 barriers instead of 8.

template <typename real> __global__ void reduce_shuffle(const real *x, real *partials, long long n) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    real block_total = block_sum(i < n ? x[i] : (real)0);
    if (threadIdx.x == 0) partials[blockIdx.x] = block_total;
}

// ---------------------------------------------------------------------------
// Kernel 9, vector (Fan ch. 10: more work per thread, and a second pass
// instead of the CPU): the sum reads n elements and does n additions, so its
// limit is memory bandwidth, and one element per thread wastes it on block
// start-up, barriers and a partial per 128 elements. What changed, and why:
//  - each thread sums many elements in a register (a grid-stride loop), and
//    the grid is exactly as many blocks as fit on the GPU at once: one wave,
//    no tail of idle SMs, and only ~1000 partials;
//  - 16-byte loads (float4 / double2), FAST_UNROLL of them issued before any is
//    used: more bytes in flight per thread while it waits for DRAM;
//  - the partials are added on the GPU by a second launch of one block.

/* This thread's share: vectors i, i + stride, ... and at most one of the last
 * n % width elements. cudaMalloc memory is 256-byte aligned, so x's vectors are
 * 16-byte aligned. */
template <typename real> __device__ __forceinline__ real thread_sum(const real *__restrict__ x, long long n) {
    typedef typename vector16<real>::type vector;
    const int width = vector16<real>::width;
    const vector *x_vectors = reinterpret_cast<const vector *>(x);
    const long long vectors = n / width;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;

    real sum = 0;
    long long i = thread;
    for (; i + (FAST_UNROLL - 1) * stride < vectors; i += FAST_UNROLL * stride) {
        vector loaded[FAST_UNROLL];
#pragma unroll
        for (int k = 0; k < FAST_UNROLL; ++k)
            loaded[k] = x_vectors[i + k * stride];
#pragma unroll
        for (int k = 0; k < FAST_UNROLL; ++k)
            sum += sum_of_lanes(loaded[k]);
    }
    for (; i < vectors; i += stride)
        sum += sum_of_lanes(x_vectors[i]);
    const long long tail = vectors * width + thread;
    if (tail < n) sum += x[tail];
    return sum;
}

template <typename real>
__global__ void __launch_bounds__(FAST_THREADS) reduce_vector(const real *__restrict__ x, real *partials, long long n) {
    real block_total = block_sum(thread_sum(x, n));
    if (threadIdx.x == 0) partials[blockIdx.x] = block_total;
}

/* The second pass: one block adds the first launch's partials. */
template <typename real>
__global__ void __launch_bounds__(FAST_THREADS)
    reduce_partials(const real *partials, unsigned int count, real *result) {
    real total = block_sum(sum_my_partials(partials, count));
    if (threadIdx.x == 0) *result = total;
}

// ---------------------------------------------------------------------------
// Kernel 10, one_launch: what changed is the end. The block that finishes
// last (a fence, then an atomic ticket: common/block_reduce.cuh) adds the
// partials, so one launch gives one number: no second launch, no CPU. The
// order of the additions is fixed, so the result is the same on every run.

template <typename real>
__global__ void __launch_bounds__(FAST_THREADS)
    reduce_one_launch(const real *__restrict__ x, real *partials, unsigned int *blocks_done, real *result,
                      long long n) {
    real block_total = block_sum(thread_sum(x, n));
    if (store_partial_and_check_last(block_total, partials, blocks_done)) { /* the same in the whole block */
        real total = block_sum(sum_my_partials(partials, gridDim.x));
        if (threadIdx.x == 0) {
            *result = total;
            *blocks_done = 0; /* ready for the next launch */
        }
    }
}

// ---------------------------------------------------------------------------
// Kernel 11, cub: the library. It needs a temporary buffer, whose size a
// first call with NULL reports; we allocate it once, outside the timing. With
// an int count CUB uses 32-bit offsets, its fastest path; above 2^31 64-bit.

template <typename real>
static cudaError_t cub_sum(void *temp, size_t *temp_bytes, const real *x, real *result, long long n) {
    if (n <= INT_MAX) return cub::DeviceReduce::Sum(temp, *temp_bytes, x, result, (int)n);
    return cub::DeviceReduce::Sum(temp, *temp_bytes, x, result, n);
}

// ---------------------------------------------------------------------------
// Launching: the device buffers of a run, and one switch that enqueues a
// kernel (the same call serves the check and the timing).

template <typename real> struct device_buffers {
    long long n;
    int threads, blocks;            /* --block, ceil(n / threads): the one-element kernels */
    int vector_blocks, fast_blocks; /* vector, one_launch: the GPU filled once             */
    const real *x;                  /* the input: no kernel writes it                      */
    real *scratch;                  /* global's working copy (NULL unless global runs)     */
    real *partials, *result;        /* one per block; one number                           */
    double *total;                  /* atomic, shared_atomic                               */
    unsigned int *blocks_done;      /* one_launch's ticket counter                         */
    void *cub_temp;
    size_t cub_temp_bytes;
};

template <typename real> static void launch(int kernel, device_buffers<real> &b) {
    const size_t shared_bytes = b.threads * sizeof(real);
    switch (kernel) {
    case KERNEL_GLOBAL: reduce_global<real><<<b.blocks, b.threads>>>(b.scratch, b.partials, b.n); break;
    case KERNEL_STATIC: reduce_static<real><<<b.blocks, b.threads>>>(b.x, b.partials, b.n); break;
    case KERNEL_DYNAMIC: reduce_dynamic<real><<<b.blocks, b.threads, shared_bytes>>>(b.x, b.partials, b.n); break;
    case KERNEL_ATOMIC: /* the total starts at 0 on every launch: a memset on the same stream */
        HANDLE_ERROR(cudaMemsetAsync(b.total, 0, sizeof(double), 0));
        reduce_atomic<real><<<b.blocks, b.threads>>>(b.x, b.total, b.n);
        break;
    case KERNEL_SHARED_ATOMIC:
        HANDLE_ERROR(cudaMemsetAsync(b.total, 0, sizeof(double), 0));
        reduce_shared_atomic<real><<<b.blocks, b.threads, shared_bytes>>>(b.x, b.total, b.n);
        break;
    case KERNEL_WARP_UNROLLED: reduce_warp_unrolled<real><<<b.blocks, b.threads>>>(b.x, b.partials, b.n); break;
    case KERNEL_WARP_SYNCED: reduce_warp_synced<real><<<b.blocks, b.threads>>>(b.x, b.partials, b.n); break;
    case KERNEL_SHUFFLE: reduce_shuffle<real><<<b.blocks, b.threads>>>(b.x, b.partials, b.n); break;
    case KERNEL_VECTOR:
        reduce_vector<real><<<b.vector_blocks, FAST_THREADS>>>(b.x, b.partials, b.n);
        CHECK_LAUNCH();
        reduce_partials<real><<<1, FAST_THREADS>>>(b.partials, (unsigned int)b.vector_blocks, b.result);
        break;
    case KERNEL_ONE_LAUNCH:
        reduce_one_launch<real><<<b.fast_blocks, FAST_THREADS>>>(b.x, b.partials, b.blocks_done, b.result, b.n);
        break;
    case KERNEL_CUB: HANDLE_ERROR(cub_sum(b.cub_temp, &b.cub_temp_bytes, b.x, b.result, b.n)); break;
    }
    CHECK_LAUNCH();
}

/* global destroys its input: its scratch copy is refreshed from the untouched
 * x before every run (the book re-copies too); outside the timed region. */
template <typename real> static void restore_scratch(const device_buffers<real> &b) {
    HANDLE_ERROR(cudaMemcpyAsync(b.scratch, b.x, (size_t)b.n * sizeof(real), cudaMemcpyDeviceToDevice, 0));
}

/* Where a kernel leaves its answer. */
enum { ANSWER_PARTIALS, ANSWER_TOTAL, ANSWER_RESULT };
static int answer_of(int kernel) {
    if (kernel == KERNEL_ATOMIC || kernel == KERNEL_SHARED_ATOMIC) return ANSWER_TOTAL;
    if (kernel == KERNEL_VECTOR || kernel == KERNEL_ONE_LAUNCH || kernel == KERNEL_CUB) return ANSWER_RESULT;
    return ANSWER_PARTIALS; /* the CPU adds them, in double, in order */
}

/* Copies a kernel's answer back; partials are added on the CPU in double. */
template <typename real> static double fetch_answer(int kernel, const device_buffers<real> &b) {
    if (answer_of(kernel) == ANSWER_TOTAL) {
        double total = 0;
        HANDLE_ERROR(cudaMemcpy(&total, b.total, sizeof(double), cudaMemcpyDeviceToHost));
        return total;
    }
    if (answer_of(kernel) == ANSWER_RESULT) {
        real result = 0;
        HANDLE_ERROR(cudaMemcpy(&result, b.result, sizeof(real), cudaMemcpyDeviceToHost));
        return (double)result;
    }
    real *partials = (real *)host_alloc("reduce", (size_t)b.blocks * sizeof(real), "the partial sums");
    HANDLE_ERROR(cudaMemcpy(partials, b.partials, (size_t)b.blocks * sizeof(real), cudaMemcpyDeviceToHost));
    const double sum = sum_in_double(partials, b.blocks);
    free(partials);
    return sum;
}

/* The bytes a kernel's GB/s counts: the n elements it reads, plus what it
 * really writes and reads besides: one partial per block written (global ...
 * shuffle); vector and one_launch also read their partials back and write one
 * result; the atomics one 8-byte total; CUB one result (its own partials are
 * not visible from here). global also writes into its slice at every step of
 * its tree: not counted, so its GB/s is the useful traffic like the others'. */
template <typename real> static double bytes_counted(int kernel, const device_buffers<real> &b) {
    switch (kernel) {
    case KERNEL_ATOMIC:
    case KERNEL_SHARED_ATOMIC: return bytes_moved((double)b.n, 0, sizeof(real)) + sizeof(double);
    case KERNEL_VECTOR: return bytes_moved((double)b.n + b.vector_blocks, b.vector_blocks + 1.0, sizeof(real));
    case KERNEL_ONE_LAUNCH: return bytes_moved((double)b.n + b.fast_blocks, b.fast_blocks + 1.0, sizeof(real));
    case KERNEL_CUB: return bytes_moved((double)b.n, 1, sizeof(real));
    default: return bytes_moved((double)b.n, b.blocks, sizeof(real));
    }
}

// ---------------------------------------------------------------------------
// Checking. All data are non-negative, so a sum whose every term passes
// through at most `chain` roundings in a row is within chain x u of exact
// (common/numerics.h).

/* What the CPU knows about the run's data. */
template <typename real> struct cpu_reference {
    const real *x;
    term_sum data;              /* the exact sum of the input                          */
    real *tree_partials;        /* the halving tree's partials, emulated (or NULL)     */
    term_sum tree_partials_sum; /* their exact sum: what shared_atomic's atomics add   */
    real *shuffle_partials;     /* block_sum's partials, emulated (or NULL)            */
    int sms;                    /* for CUB's bound                                     */
};

/* The rigorous bound of a deterministic kernel's own order, relative to the
 * exact sum: the additions in the element type (its chains), then those in
 * double (the CPU's sum of the partials), plus 2 u_double for the reference. */
template <typename real> static double order_bound(int kernel, const device_buffers<real> &b, element_type type) {
    const long long tree = ceil_log2(b.threads), shuffle_tree = 2 * ceil_log2(32);
    const int width = vector16<real>::width;
    if (kernel == KERNEL_SHUFFLE)
        return sum_error_bound(type, shuffle_tree, 0) + sum_error_bound(ELEMENT_DOUBLE, b.blocks, 2);
    if (kernel != KERNEL_VECTOR && kernel != KERNEL_ONE_LAUNCH) /* the trees */
        return sum_error_bound(type, tree, 0) + sum_error_bound(ELEMENT_DOUBLE, b.blocks, 2);
    const long long blocks = kernel == KERNEL_VECTOR ? b.vector_blocks : b.fast_blocks;
    const long long threads = blocks * FAST_THREADS, vectors = b.n / width;
    /* a thread's vectors, each vector's lanes, the tail element; the block's
     * shuffles; a thread's share of the partials; the shuffles again. */
    return sum_error_bound(type,
                           (vectors + threads - 1) / threads + ceil_log2(width) + 1 + shuffle_tree +
                               (blocks + FAST_THREADS - 1) / FAST_THREADS + shuffle_tree,
                           0) +
           sum_error_bound(ELEMENT_DOUBLE, 0, 2);
}

/* The atomics add `count` non-negative terms in double, in no fixed order:
 * 0 when every partial sum is a double (the grain test), else the bound of
 * any order, (count - 1) half-ulps of the largest partial sum (numerics.h). */
static double atomics_tolerance(const term_sum *terms) {
    return exact_in_every_order(terms, 53) ? 0 : any_order_bound(terms->sum, terms->count);
}

/* CUB documents no order. What its DeviceReduce does in this toolkit
 * (cub/agent/agent_reduce.cuh, dispatch/dispatch_reduce.cuh,
 * dispatch/tuning/tuning_reduce.cuh): tiles of at least 16 KB (4096 floats,
 * 2048 doubles: 256 threads x 16 or 8 items), shared
 * out evenly over min(tiles, up to 5 x occupancy x SMs) blocks, so each block
 * gets at most ceil(tiles / min(tiles, SMs)); a thread folds at most 20 items
 * of a tile into its running sum, one step per tile; a block then adds its
 * threads' sums with a 5-step warp tree and at most 32 warp sums in a row;
 * one block does the same over the block sums. So no element passes through
 * more additions in a row than the chain below. Exact data: bound 0. */
static double cub_bound(const term_sum *data, element_type type, int sms) {
    if (exact_in_every_order(data, type == ELEMENT_DOUBLE ? 53 : 24)) return 0;
    const long long tile = type == ELEMENT_DOUBLE ? 2048 : 4096;
    const long long tiles = (data->count + tile - 1) / tile;
    const long long blocks = tiles < sms ? tiles : sms;
    const long long block_sum_chain = 5 + 32;
    const long long chain = (tiles + blocks - 1) / blocks + 20 + block_sum_chain /* the first pass   */
                            + (tiles + 4095) / 4096 + 20 + block_sum_chain;      /* the second pass */
    return sum_error_bound(type, chain, 0) + sum_error_bound(ELEMENT_DOUBLE, 0, 2);
}

/* Fills the row's check, and a note with the independent truth.
 *  - Deterministic kernels: every per-block partial and the value must equal
 *    the CPU's emulation of the kernel's own order bit for bit (tolerance 0).
 *    That sees one dropped, duplicated or misplaced element wherever it
 *    changes the partial it went through: a float total of 1.23e8 cannot show
 *    one 1.23, but its partial can. The emulation itself must lie within its
 *    order's rigorous bound of the exact sum (printed beside it), so the two
 *    cannot share a mistake.
 *  - atomic, shared_atomic (double totals, no fixed order): the exact sum of
 *    what they add (the elements; the emulated block trees), within
 *    atomics_tolerance: 0 where the data make every order exact (ramp data, and
 *    float 1.23: the tests use those), else a bound that stays far below one
 *    element up to n ~ 1e8 and below 2^-18 at any size a GPU holds.
 *  - cub: the exact sum within cub_bound (0 for exact data). */
template <typename real>
static void check_kernel(result_row *row, int kernel, double value, const cpu_reference<real> &ref,
                         const device_buffers<real> &b, element_type type, char *note, size_t note_size) {
    const double exact = (double)ref.data.sum;
    double emulated = 0;
    switch (kernel) {
    case KERNEL_ATOMIC:
        row_check(row, value, exact, atomics_tolerance(&ref.data));
        snprintf(note, note_size, "= the exact sum, %s",
                 row->tolerance == 0 ? "every order exact" : "any order bounded");
        return;
    case KERNEL_SHARED_ATOMIC:
        row_check(row, value, (double)ref.tree_partials_sum.sum, atomics_tolerance(&ref.tree_partials_sum));
        snprintf(note, note_size, "= the exact sum of the emulated block trees, %s",
                 row->tolerance == 0 ? "every order exact" : "any order bounded");
        return;
    case KERNEL_CUB:
        row_check(row, value, exact, cub_bound(&ref.data, type, ref.sms));
        snprintf(note, note_size, "= the exact sum, %s",
                 row->tolerance == 0 ? "every order exact" : "within CUB's longest chain");
        return;
    default: break; /* the deterministic kernels, below */
    }
    long long differ = 0; /* partials that are not the CPU's, bit for bit */
    switch (kernel) {
    case KERNEL_VECTOR:
    case KERNEL_ONE_LAUNCH: {
        const int blocks = kernel == KERNEL_VECTOR ? b.vector_blocks : b.fast_blocks;
        real *partials = (real *)host_alloc("reduce", (size_t)blocks * sizeof(real), "the emulated partials");
        emulated = (double)vector_on_cpu(ref.x, b.n, blocks, partials);
        differ = partials_differing(b.partials, partials, blocks);
        free(partials);
        break;
    }
    default: { /* one element per thread: the halving trees, or block_sum (shuffle) */
        const real *partials = kernel == KERNEL_SHUFFLE ? ref.shuffle_partials : ref.tree_partials;
        emulated = sum_in_double(partials, b.blocks);
        differ = partials_differing(b.partials, partials, b.blocks);
    }
    }
    row_check(row, value, emulated, 0);
    const double off = relative_error(emulated, exact), bound = order_bound(kernel, b, type);
    row->pass = row->pass && off <= bound && differ == 0;
    snprintf(note, note_size, "= its order on the CPU%s; exact %.10g, off %.1e %s bound %.1e",
             differ ? ", BUT partials differ" : ", every partial too", exact, off, off <= bound ? "<=" : ">", bound);
    if (differ) printf("  %s: %lld partials differ from the CPU's\n", kernel_name(kernel), differ);
}

// ---------------------------------------------------------------------------
// Part 1 of main: the book's program (Fan ch. 8, reduce2gpu.cu) in its
// straight line: its three kernels launched directly, the partials copied
// back and added on the CPU in the element type, as the book does; then the
// precision lesson. Our verdict: every partial equals the CPU's emulation of
// the block tree, bit for bit.

template <typename real>
static int book_partials_line(const char *kernel, const device_buffers<real> &b, const real *emulated,
                              double *in_double) {
    real *partials = (real *)host_alloc("reduce", (size_t)b.blocks * sizeof(real), "the partial sums");
    HANDLE_ERROR(cudaMemcpy(partials, b.partials, (size_t)b.blocks * sizeof(real), cudaMemcpyDeviceToHost));
    real in_type = 0; /* the book's host-side sum of the partials */
    for (int i = 0; i < b.blocks; ++i)
        in_type += partials[i];
    *in_double = sum_in_double(partials, b.blocks);
    free(partials);
    const long long differ = partials_differing(b.partials, emulated, b.blocks);
    printf("  GPU %-8s %10d partials added on the CPU in %-6s    %20.6f  %s\n", kernel, b.blocks,
           sizeof(real) == sizeof(float) ? "float" : "double", (double)in_type,
           differ ? "FAIL: partials differ from the CPU's tree" : "(each partial = the CPU's tree: PASS)");
    return differ != 0;
}

template <typename real>
static int book_program(const cli_options &o, const cpu_reference<real> &ref, device_buffers<real> &b) {
    const char *type = element_type_name(o.type);
    real cpu_loop = 0; /* the book's CPU version: one running sum in the element type */
    for (long long i = 0; i < b.n; ++i)
        cpu_loop += ref.x[i];
    printf("The book's program (Fan ch. 8): %s data, %d blocks of %d threads, partials added on the CPU\n",
           data_names[o.data_kind], b.blocks, b.threads);
    printf("  CPU, one serial loop in %-6s                                   %20.6f\n", type, (double)cpu_loop);

    int failures = 0;
    double in_double = 0;
    if (cli_kernel_selected(&o, KERNEL_GLOBAL)) {
        restore_scratch(b); /* global destroys its input: it works on a copy */
        reduce_global<real><<<b.blocks, b.threads>>>(b.scratch, b.partials, b.n);
        CHECK_LAUNCH();
        failures += book_partials_line("global", b, ref.tree_partials, &in_double);
    }
    if (cli_kernel_selected(&o, KERNEL_STATIC)) {
        reduce_static<real><<<b.blocks, b.threads>>>(b.x, b.partials, b.n);
        CHECK_LAUNCH();
        failures += book_partials_line("static", b, ref.tree_partials, &in_double);
    }
    if (cli_kernel_selected(&o, KERNEL_DYNAMIC)) {
        reduce_dynamic<real><<<b.blocks, b.threads, b.threads * sizeof(real)>>>(b.x, b.partials, b.n);
        CHECK_LAUNCH();
        failures += book_partials_line("dynamic", b, ref.tree_partials, &in_double);
    }
    printf("  GPU, the same partials added on the CPU in double                %20.6f\n", in_double);
    printf("  exact sum of the data as stored                                  %20.6Lf\n", ref.data.sum);
    printf("  The book, n = 1e8 of 1.23, block 128: float loop 33554432, float sum of the partials 123633392,\n"
           "  double loop 123000000.110771. A float holds 24 bits: from 2^25 = 33554432 its spacing is 4, and\n"
           "  adding 1.23 rounds back to the same number. Short chains (a tree, or partials in double) fix it.\n\n");
    return failures;
}

// ---------------------------------------------------------------------------
// Part 2 of main: the progression. Every selected kernel: poisoned outputs,
// one launch, the check; then, unless --check, the median time of --reps
// launches against the read ceiling measured in the same run.

template <typename real>
static void before_each_timed_run(int kernel, const device_buffers<real> &b, const l2_flusher *flusher) {
    if (kernel == KERNEL_GLOBAL) restore_scratch(b);
    l2_flush(flusher); /* --cold-l2: evict what the last run left in the L2 */
}

template <typename real>
static int progression(const cli_options &o, const cpu_reference<real> &ref, device_buffers<real> &b) {
    const double read_gbps = o.check_only ? 0 : gpu_read_gbps((double)b.n * sizeof(real), o.reps);
    if (!o.check_only) report_ceiling(stdout, "reduce", "read", "a kernel that only reads, >= 256 MiB", read_gbps);
    l2_flusher flusher = l2_flusher_create(o.cold_l2 && !o.check_only);
    char notes[KERNEL_COUNT][160];
    int best = -1;
    double best_ms = 0, cub_ms = 0;
    report rep;
    report_begin(&rep, "reduce", stdout);
    rep.cold_l2 = o.cold_l2;
    for (int k = 0; k < KERNEL_COUNT; ++k) {
        if (!cli_kernel_selected(&o, k)) continue;
        if (b.partials) gpu_poison(b.partials, (size_t)b.blocks * sizeof(real));
        gpu_poison(b.result, sizeof(real));
        gpu_poison(b.total, sizeof(double));
        if (k == KERNEL_GLOBAL) restore_scratch(b);
        launch(k, b);
        HANDLE_ERROR(cudaDeviceSynchronize());

        result_row row = result_row_for(kernel_name(k), element_type_name(o.type), b.n);
        check_kernel(&row, k, fetch_answer(k, b), ref, b, o.type, notes[k], sizeof notes[k]);
        snprintf(row.note, sizeof row.note, "%s", notes[k]);
        row.bytes = bytes_counted(k, b);
        row.partials_only = answer_of(k) == ANSWER_PARTIALS;
        if (!o.check_only) {
            double ms;
            const int reps = k == KERNEL_ATOMIC && o.reps > ATOMIC_MAX_REPS ? ATOMIC_MAX_REPS : o.reps;
            TIME_MEDIAN_MS_AFTER(ms, reps, before_each_timed_run(k, b, &flusher), launch(k, b));
            row_time(&row, ms, "read", read_gbps);
            if (k == KERNEL_CUB)
                cub_ms = ms;
            else if (!row.partials_only && (best < 0 || ms < best_ms))
                best = k, best_ms = ms;
        }
        report_add(&rep, &row);
    }
    if (best >= 0 && cub_ms > 0) /* the benchmark's question: how close does our best get to CUB and DRAM? */
        printf("\nfastest of ours: %s, %.4f ms = %.3f x CUB's speed (%.4f ms), %.3f x the read ceiling\n",
               kernel_name(best), best_ms, cub_ms / best_ms, cub_ms,
               gigabytes_per_second(bytes_counted(best, b), best_ms) / read_gbps);
    l2_flusher_free(&flusher);
    return report_end(&rep);
}

// ---------------------------------------------------------------------------
// One run in the element type: the data on both sides, the CPU's reference,
// then part 1 (where a book kernel is selected) and part 2.

template <typename real> static int run(const cli_options &o, const struct cudaDeviceProp &device) {
    device_buffers<real> b;
    memset(&b, 0, sizeof b);
    b.n = o.n;
    b.threads = o.block;
    const long long blocks = (b.n + b.threads - 1) / b.threads;
    const unsigned selected = o.kernel_mask;

    /* vector and one_launch: as many blocks as fit on the GPU at once, fewer
     * when n is too small to give each thread a vector. */
    int vector_per_sm = 0, fast_per_sm = 0;
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&vector_per_sm, reduce_vector<real>, FAST_THREADS, 0));
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fast_per_sm, reduce_one_launch<real>, FAST_THREADS, 0));
    const long long needed = (b.n / vector16<real>::width + FAST_THREADS - 1) / FAST_THREADS;
    const long long vector_full = (long long)vector_per_sm * device.multiProcessorCount;
    const long long fast_full = (long long)fast_per_sm * device.multiProcessorCount;
    b.vector_blocks = (int)(needed < 1 ? 1 : needed < vector_full ? needed : vector_full);
    b.fast_blocks = (int)(needed < 1 ? 1 : needed < fast_full ? needed : fast_full);

    /* Limits of the kernels that run: the device's memory, a grid's size. */
    long long partials = 1;
    if (selected & ONE_ELEMENT_KERNELS) partials = blocks;
    if ((selected & KERNEL_BIT(KERNEL_VECTOR)) && b.vector_blocks > partials) partials = b.vector_blocks;
    if ((selected & KERNEL_BIT(KERNEL_ONE_LAUNCH)) && b.fast_blocks > partials) partials = b.fast_blocks;
    const size_t bytes = (size_t)b.n * sizeof(real);
    const int global_runs = cli_kernel_selected(&o, KERNEL_GLOBAL);
    /* CUB's buffer is a few KB: the 16 MB margin covers it. */
    gpu_require_memory("reduce", (global_runs ? 2.0 : 1.0) * bytes + (double)partials * sizeof(real) + 16e6,
                       global_runs ? "the input and global's scratch copy" : "the input");
    if ((selected & ONE_ELEMENT_KERNELS) && (blocks > device.maxGridSize[0] || blocks > INT_MAX)) {
        fprintf(stderr, "reduce: n = %lld needs %lld blocks of %d threads, more than a grid can have (%d)\n", b.n,
                blocks, b.threads, device.maxGridSize[0]);
        exit(EXIT_BAD_COMMAND_LINE);
    }
    b.blocks = (int)(selected & ONE_ELEMENT_KERNELS ? blocks : partials);
    printf("reduce: n = %lld, type = %s, data = %s\n  global to shuffle: %lld blocks x %d threads, one element "
           "each\n  vector: %d blocks x %d threads, one_launch: %d blocks x %d threads (the GPU filled once)\n\n",
           b.n, element_type_name(o.type), data_names[o.data_kind], blocks, b.threads, b.vector_blocks, FAST_THREADS,
           b.fast_blocks, FAST_THREADS);

    /* The data, and what the CPU knows about it. */
    real *x = (real *)host_alloc("reduce", bytes, "the input array");
    fill_input(x, b.n, o.data_kind, o.seed);
    cpu_reference<real> ref;
    memset(&ref, 0, sizeof ref);
    ref.x = x;
    ref.sms = device.multiProcessorCount;
    ref.data = exact_sum_of(x, b.n);
    if (o.data_kind == DATA_CONST) ref.data.sum = (long double)b.n * x[0]; /* closed form: n x 1.23 as stored */
    if (selected & TREE_KERNELS) {
        ref.tree_partials = (real *)host_alloc("reduce", (size_t)b.blocks * sizeof(real), "the emulated partials");
        one_element_partials_on_cpu(x, b.n, b.threads, WITH_HALVING_TREE, ref.tree_partials);
        ref.tree_partials_sum = exact_sum_of(ref.tree_partials, b.blocks);
    }
    if (selected & KERNEL_BIT(KERNEL_SHUFFLE)) {
        ref.shuffle_partials = (real *)host_alloc("reduce", (size_t)b.blocks * sizeof(real), "the emulated partials");
        one_element_partials_on_cpu(x, b.n, b.threads, WITH_BLOCK_SUM, ref.shuffle_partials);
    }

    HANDLE_ERROR(cudaMalloc((void **)&b.x, bytes));
    HANDLE_ERROR(cudaMemcpy((void *)b.x, x, bytes, cudaMemcpyHostToDevice));
    if (global_runs) HANDLE_ERROR(cudaMalloc((void **)&b.scratch, bytes));
    HANDLE_ERROR(cudaMalloc((void **)&b.partials, (size_t)partials * sizeof(real)));
    HANDLE_ERROR(cudaMalloc((void **)&b.result, sizeof(real)));
    HANDLE_ERROR(cudaMalloc((void **)&b.total, sizeof(double)));
    HANDLE_ERROR(cudaMalloc((void **)&b.blocks_done, sizeof(unsigned int)));
    HANDLE_ERROR(cudaMemset(b.blocks_done, 0, sizeof(unsigned int)));
    HANDLE_ERROR(cub_sum<real>(NULL, &b.cub_temp_bytes, NULL, NULL, b.n));
    HANDLE_ERROR(cudaMalloc(&b.cub_temp, b.cub_temp_bytes ? b.cub_temp_bytes : 1));

    int book_failures = 0;
    if (selected & BOOK_KERNELS) book_failures = book_program(o, ref, b);
    const int status = progression(o, ref, b);

    HANDLE_ERROR(cudaFree((void *)b.x));
    if (b.scratch) HANDLE_ERROR(cudaFree(b.scratch));
    HANDLE_ERROR(cudaFree(b.partials));
    HANDLE_ERROR(cudaFree(b.result));
    HANDLE_ERROR(cudaFree(b.total));
    HANDLE_ERROR(cudaFree(b.blocks_done));
    HANDLE_ERROR(cudaFree(b.cub_temp));
    free(ref.tree_partials);
    free(ref.shuffle_partials);
    free(x);
    if (book_failures) printf("the book's program: %d kernel(s) FAILED\n", book_failures);
    return status || book_failures ? EXIT_WRONG_RESULT : EXIT_ALL_PASSED;
}

// ---------------------------------------------------------------------------
// The tutorial's demo (--demo squares), as it ran: int x[i] = i % 10, N = 2^20,
// three versions with their times side by side, each checked exactly against
// the closed form. The tutorial's timer ran around cudaMalloc, the copies and
// the launch (and, as the first CUDA call of its program, possibly the
// creation of the CUDA context): we time the kernel alone with events, and
// also the tutorial's way on the host clock (the context already exists).

/* sum of k^2 for k < m, and the sum of squares of i % 10 for i < n. */
static long long squares_below(long long m) { return (m - 1) * m * (2 * m - 1) / 6; }
static long long squares_closed_form(long long n) {
    return n / SQUARES_PERIOD * squares_below(SQUARES_PERIOD) + squares_below(n % SQUARES_PERIOD);
}

static double host_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1e3 + now.tv_nsec * 1e-6;
}

enum { SQUARES_CPU, SQUARES_ATOMIC, SQUARES_SHARED };
static const char *const squares_names[] = {"squares_cpu", "squares_atomic", "squares_shared"};
static const double tutorial_us[] = {2522, 268260, 2341};

static void squares_launch(int version, const int *d_x, int *d_total, int n) {
    const int blocks = (n + SQUARES_BLOCK - 1) / SQUARES_BLOCK;
    HANDLE_ERROR(cudaMemsetAsync(d_total, 0, sizeof(int), 0));
    if (version == SQUARES_ATOMIC)
        squares_atomic<<<blocks, SQUARES_BLOCK>>>(d_x, d_total, n);
    else
        squares_shared<<<blocks, SQUARES_BLOCK, SQUARES_BLOCK * sizeof(int)>>>(d_x, d_total, n);
    CHECK_LAUNCH();
}

/* The tutorial's timer: allocation, copy in, launch, copy out, free. */
static double squares_tutorial_ms(int version, const int *x, int n, int reps) {
    double *times = (double *)host_alloc("reduce", (size_t)reps * sizeof(double), "the timings");
    for (int rep = -1; rep < reps; ++rep) {
        int *d_x, *d_total, sum = 0;
        const double start = host_ms();
        HANDLE_ERROR(cudaMalloc((void **)&d_x, (size_t)n * sizeof(int)));
        HANDLE_ERROR(cudaMalloc((void **)&d_total, sizeof(int)));
        HANDLE_ERROR(cudaMemcpy(d_x, x, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
        squares_launch(version, d_x, d_total, n);
        HANDLE_ERROR(cudaMemcpy(&sum, d_total, sizeof(int), cudaMemcpyDeviceToHost));
        HANDLE_ERROR(cudaFree(d_x));
        HANDLE_ERROR(cudaFree(d_total));
        if (rep >= 0) times[rep] = host_ms() - start;
    }
    const double median = median_of(times, reps);
    free(times);
    return median;
}

static int squares_demo(const cli_options &o) {
    const int n = (int)o.n;
    const long long expected = squares_closed_form(n);
    printf("The tutorial's demo: the sum of the squares of int x[i] = i %% %d, n = %d\n"
           "closed form: %d periods x %lld + the squares below %d = %lld\n\n",
           SQUARES_PERIOD, n, n / SQUARES_PERIOD, squares_below(SQUARES_PERIOD), n % SQUARES_PERIOD, expected);
    int *x = (int *)host_alloc("reduce", (size_t)n * sizeof(int), "the demo's input");
    for (int i = 0; i < n; ++i)
        x[i] = i % SQUARES_PERIOD;
    int *d_x, *d_total;
    HANDLE_ERROR(cudaMalloc((void **)&d_x, (size_t)n * sizeof(int)));
    HANDLE_ERROR(cudaMalloc((void **)&d_total, sizeof(int)));
    HANDLE_ERROR(cudaMemcpy(d_x, x, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));

    report rep;
    report_begin(&rep, "reduce", stdout);
    for (int version = SQUARES_CPU; version <= SQUARES_SHARED; ++version) {
        int sum = 0;
        double ms = 0, *times = (double *)host_alloc("reduce", (size_t)o.reps * sizeof(double), "the timings");
        if (version == SQUARES_CPU) { /* the tutorial's CPU loop, timed on the host clock */
            for (int rep_index = -1; rep_index < (o.check_only ? 0 : o.reps); ++rep_index) {
                const double start = host_ms();
                sum = 0;
                for (int i = 0; i < n; ++i)
                    sum += x[i] * x[i];
                if (rep_index >= 0) times[rep_index] = host_ms() - start;
            }
            ms = o.check_only ? 0 : median_of(times, o.reps);
        } else {
            squares_launch(version, d_x, d_total, n);
            HANDLE_ERROR(cudaMemcpy(&sum, d_total, sizeof(int), cudaMemcpyDeviceToHost));
            if (!o.check_only) TIME_MEDIAN_MS(ms, o.reps, squares_launch(version, d_x, d_total, n));
        }
        free(times);
        result_row row = result_row_for(squares_names[version], "int", n);
        row_check(&row, sum, (double)expected, 0); /* integers: exact, in any order */
        row.bytes = bytes_moved(n, 1, sizeof(int));
        if (!o.check_only) {
            row_time(&row, ms, NULL, 0);
            if (version == SQUARES_CPU)
                row_note(&row, "the CPU; the tutorial measured %.0f us", tutorial_us[version]);
            else
                row_note(&row, "with cudaMalloc + copies (the tutorial's timer) %.3f ms; the tutorial measured %.0f us",
                         squares_tutorial_ms(version, x, n, o.reps), tutorial_us[version]);
        }
        report_add(&rep, &row);
    }
    HANDLE_ERROR(cudaFree(d_x));
    HANDLE_ERROR(cudaFree(d_total));
    free(x);
    return report_end(&rep);
}

// ---------------------------------------------------------------------------
// main: the command line, the device, then the book and the progression (or
// the tutorial's demo).

/* --demo squares belongs to this program, not the shared parser: it is taken
 * out of argv first. Returns 1 for the demo; exits 2 on a bad value. */
static int take_demo_option(int *argc, char **argv) {
    for (int i = 1; i < *argc; ++i) {
        const char *value = NULL;
        int words = 1;
        if (strcmp(argv[i], "--demo") == 0) {
            value = i + 1 < *argc ? argv[i + 1] : "";
            words = 2;
        } else if (strncmp(argv[i], "--demo=", 7) == 0) {
            value = argv[i] + 7;
        } else {
            continue;
        }
        if (strcmp(value, "squares") != 0) {
            fprintf(stderr,
                    "reduce: --demo needs the name of a demo: squares (the tutorial's sum of squares), got '%s'\n",
                    value);
            exit(EXIT_BAD_COMMAND_LINE);
        }
        memmove(argv + i, argv + i + words, (size_t)(*argc - i - words + 1) * sizeof *argv);
        *argc -= words;
        if (take_demo_option(argc, argv)) { /* a second --demo: said once, like every option */
            fprintf(stderr, "reduce: --demo given twice\n");
            exit(EXIT_BAD_COMMAND_LINE);
        }
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    const int demo = take_demo_option(&argc, argv);
    cli_spec spec = {};
    spec.program = demo ? "reduce --demo squares" : "reduce";
    spec.default_block = BOOK_BLOCK;
    if (demo) {
        spec.summary = "the tutorial's demo: the sum of the squares of int x[i] = i % 10, three ways";
        spec.accepts = CLI_N | CLI_REPS | CLI_CHECK | CLI_DEVICE;
        spec.default_n = SQUARES_N;
        spec.extra_help = "CPU loop, one atomicAdd per element, block tree + one atomicAdd per block; each checked\n"
                          "exactly against the closed form (285 per ten elements). n is limited so that the sum fits "
                          "an int.";
    } else {
        spec.summary = "summing an array: global memory, shared memory, atomics, warps, and the bandwidth limit "
                       "(Fan, ch. 8-10)";
        spec.accepts = CLI_N | CLI_KERNEL | CLI_TYPE | CLI_REPS | CLI_CHECK | CLI_DEVICE | CLI_BLOCK | CLI_DATA |
                       CLI_SEED | CLI_COLD_L2;
        spec.kernels = kernel_names;
        spec.wrong_kernels = wrong_kernel_names;
        spec.data_kinds = data_names;
        spec.default_n = BOOK_N;
        spec.extra_help =
            "--block sets the threads per block of global ... shuffle: a power of two from 32 to 1024 (the halving\n"
            "tree halves blockDim.x down to 1, shuffles need whole warps); atomic alone takes any size from 1 to\n"
            "1024; warp_unrolled needs at least 64. vector and one_launch always use 256 threads.\n"
            "warp_unrolled is wrong on purpose: the warp-synchronous race of many tutorials.\n"
            "--data const: every element 1.23 (the book); ramp: 1 + (i mod 1024)/1024; random: uniform in [0, 1)\n"
            "from --seed. Deterministic kernels are checked bit for bit against their own order on the CPU; the\n"
            "atomics and CUB against the exact sum, exactly where the data allow (ramp), else within a stated bound.\n"
            "With global, static or dynamic selected, the run first shows the book's program and its precision\n"
            "lesson (float: 33554432, 123633392).\n"
            "--demo squares: the tutorial's sum-of-squares demo instead (reduce --demo squares --help).";
    }
    cli_options o;
    cli_parse_or_exit(&spec, argc, argv, &o);
    struct cudaDeviceProp device;
    if (demo) {
        if (squares_closed_form(o.n) > INT_MAX) {
            fprintf(stderr, "reduce: --demo squares --n %lld: the sum of squares, %lld, does not fit in an int\n", o.n,
                    squares_closed_form(o.n));
            return EXIT_BAD_COMMAND_LINE;
        }
        gpu_select_device("reduce", o.device, &device);
        return squares_demo(o);
    }
    const unsigned tree_kernels = ONE_ELEMENT_KERNELS & ~KERNEL_BIT(KERNEL_ATOMIC); /* the trap: checked below */
    if ((o.kernel_mask & tree_kernels) && (!is_power_of_two(o.block) || o.block < 32)) {
        fprintf(stderr,
                "reduce: --block %d: global, static, dynamic, shared_atomic, warp_synced and shuffle need a "
                "power of two from 32 to 1024 (halving tree, whole warps)\n",
                o.block);
        return EXIT_BAD_COMMAND_LINE;
    }
    if (cli_kernel_selected(&o, KERNEL_WARP_UNROLLED) && o.block < 64) {
        fprintf(stderr,
                "reduce: --block %d: warp_unrolled needs at least 64 threads (its last warp reads s_y[tid + 32])\n",
                o.block);
        return EXIT_BAD_COMMAND_LINE;
    }
    gpu_select_device("reduce", o.device, &device);
    return o.type == ELEMENT_DOUBLE ? run<double>(o, device) : run<float>(o, device);
}
