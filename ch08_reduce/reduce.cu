/* ch08_reduce: summing an array, from global memory to shared memory to the
 * bandwidth limit (Fan Zheyong, CUDA 编程：基础与实践, ch. 8, and a tutorial's
 * atomic "sum" demo; then the steps a seasoned engineer takes to reach CUB).
 *
 * What it teaches: a block can halve its values in global memory, but shared
 * memory (static or dynamic) does it without touching DRAM twice; one atomicAdd
 * per element serialises the whole GPU on one address, one per block does not;
 * after that the limit is memory bandwidth, and the last steps reach it. Along
 * the way, the book's precision lesson: how the order of float additions
 * decides whether 1e8 x 1.23 comes out as 33554432, 123633392 or 123000000.
 *
 * Build this file alone, from its folder:
 *   nvcc -O3 -I../common reduce.cu -o reduce
 *
 * Build and run (from the repository root):
 *   cmake -S . -B build && cmake --build build -j
 *   build/ch08_reduce/reduce                    # the book's run: 1e8 x 1.23, float
 *   build/ch08_reduce/reduce --type double --kernel static,one_launch,cub
 *   build/ch08_reduce/reduce --data random --n 1000003 --check
 *   build/ch08_reduce/reduce --help
 *
 * Kernels, in teaching order (one partial per block unless said otherwise):
 *   global         the book: each block halves its slice in place in global
 *                  memory; it destroys its input, so it runs on a scratch copy.
 *   static         the book: a __shared__ array of fixed size holds the block's
 *                  values; the halving tree runs in shared memory.
 *   dynamic        the book: the same with extern __shared__, sized at launch.
 *   atomic         the tutorial: every element is one atomicAdd into a single
 *                  total: correct, and very slow.
 *   shared_atomic  the tutorial: the block tree in shared memory, then one
 *                  atomicAdd per block.
 *   shuffle        dynamic with the shared-memory tree replaced by warp shuffles.
 *   vector         many elements per thread with 16-byte loads, a grid that
 *                  fills the GPU once; a second one-block launch adds the partials.
 *   one_launch     the same, but the last block to finish adds the partials:
 *                  one launch, one number, the same on every run.
 *   cub            cub::DeviceReduce::Sum, the library reference.
 *
 * Data (--data): const = the book's 1.23 everywhere, checked against 1.23 x n;
 * ramp = 1 + (i mod 1024) / 1024 and random = uniform in [0, 1) (seeded), both
 * checked against a compensated CPU sum in double. A constant input hides
 * indexing bugs (summing the wrong elements still gives the right total), so
 * the tests use random data too. All data are non-negative, so every kernel's
 * rounding error has the rigorous bound chain x u (common/numerics.h). */
#include <cub/device/device_reduce.cuh>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_reduce.cuh"
#include "cli.h"
#include "gpu.h"
#include "numerics.h"
#include "report.h"

// ---------------------------------------------------------------------------
// Constants: the book's, and ours.

#define BOOK_N 100000000LL /* 1e8 elements                                   */
#define BOOK_VALUE 1.23    /* every element                                  */
#define BOOK_BLOCK 128     /* threads per block of the book's kernels        */
#define MAX_BLOCK 1024     /* the largest block CUDA allows                  */
#define FAST_THREADS 256   /* vector and one_launch                          */
#define FAST_UNROLL 4      /* independent 16-byte loads in flight per thread */
#define ATOMIC_MAX_REPS 3  /* 1e8 atomics to one address take tens of ms     */
#define RAMP_PERIOD 1024

enum {
    KERNEL_GLOBAL,
    KERNEL_STATIC,
    KERNEL_DYNAMIC,
    KERNEL_ATOMIC,
    KERNEL_SHARED_ATOMIC,
    KERNEL_SHUFFLE,
    KERNEL_VECTOR,
    KERNEL_ONE_LAUNCH,
    KERNEL_CUB
};
static const char *const kernel_names[] = {"global",  "static", "dynamic",    "atomic", "shared_atomic",
                                           "shuffle", "vector", "one_launch", "cub",    NULL};
enum { DATA_CONST, DATA_RAMP, DATA_RANDOM };
static const char *const data_names[] = {"const", "ramp", "random", NULL};

// ---------------------------------------------------------------------------
// The input and the reference sum, on the CPU.

/* Every value is non-negative; ramp values 1 + k/1024 are exact in float and
 * double, and so is every partial sum of them in double up to n ~ 2^40. */
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

/* const: the closed form 1.23 x n. Otherwise a compensated sum in double of
 * the values exactly as the GPU sees them (within about 2 u_double of exact). */
template <typename real> static long double reference_sum(const real *x, long long n, int data) {
    if (data == DATA_CONST) return (long double)n * 123 / 100; /* 1.23 x n, one rounding in 64 bits */
    kahan_sum k = {0, 0};
    for (long long i = 0; i < n; ++i)
        kahan_add(&k, (double)x[i]);
    return kahan_result(&k);
}

// ---------------------------------------------------------------------------
// Kernel 1, global: the book's first version. Block b owns the slice
// x[b*blockDim, (b+1)*blockDim); at each step the lower half of the active
// part adds the upper half, in place, in global memory. Elements past n count
// as zero: they are never read or written. The barrier sits outside the if:
// every thread of the block must reach it. blockDim.x must be a power of two.

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
// Kernel 2, static: the block copies its slice into shared memory once (0 past
// n), and the tree runs there: on-chip, and the input is left untouched. A
// static array's size is a compile-time constant, so it must cover the largest
// block --block allows; the book writes s_y[128] for its fixed 128 threads.

template <typename real> __global__ void reduce_static(const real *x, real *partials, long long n) {
    __shared__ real s_y[MAX_BLOCK];
    const unsigned int tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;
    s_y[tid] = i < n ? x[i] : (real)0;
    __syncthreads(); /* every value is in s_y before anyone reads a neighbour's */
    for (unsigned int offset = blockDim.x / 2; offset > 0; offset /= 2) {
        if (tid < offset) s_y[tid] += s_y[tid + offset];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = s_y[0];
}

// ---------------------------------------------------------------------------
// Kernel 3, dynamic: only the declaration changed. extern __shared__ has no
// size; the third <<<>>> parameter gives it in bytes at launch, so the array
// is exactly one block long whatever --block is. Same speed as static.

template <typename real> __global__ void reduce_dynamic(const real *x, real *partials, long long n) {
    /* No size in the declaration. It is declared as bytes and viewed as real:
     * the float and the double kernel share one extern __shared__ symbol, and
     * it may have only one type. (The later kernels get the same view from
     * dynamic_shared<real>() in common/block_reduce.cuh.) */
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
// Kernel 4, atomic: no tree at all: every thread adds its element to one total
// with atomicAdd. Correct, because the hardware serialises the additions, and
// slow for the same reason: n additions queue up at a single address.
// The total is a double even for float data: a float total is one serial chain
// of n float additions, exactly like the CPU's float loop, and sticks at 2^25
// = 33554432 for the book's data (see the precision lesson).

template <typename real> __global__ void reduce_atomic(const real *x, double *total, long long n) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, (double)x[i]);
}

// ---------------------------------------------------------------------------
// Kernel 5, shared_atomic: the dynamic kernel's tree, then thread 0 adds the
// block's sum to the total: n / blockDim atomics instead of n, and no partials
// left for the CPU. Atomics finish in no fixed order, so the last bits of the
// result may change from run to run (the double total keeps that tiny).

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
// Kernel 6, shuffle: compared with dynamic, only the tree changed. Inside a
// warp, __shfl_down_sync hands values from register to register: no shared
// memory and no barrier; shared memory only joins the warps' sums (block_sum
// in common/block_reduce.cuh). 2 barriers instead of log2(blockDim) + 1.

template <typename real> __global__ void reduce_shuffle(const real *x, real *partials, long long n) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    real block_total = block_sum(i < n ? x[i] : (real)0);
    if (threadIdx.x == 0) partials[blockIdx.x] = block_total;
}

// ---------------------------------------------------------------------------
// Kernel 7, vector: the sum reads n elements and does n additions, so its
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

/* The second launch: one block adds the first launch's partials. */
template <typename real>
__global__ void __launch_bounds__(FAST_THREADS)
    reduce_partials(const real *partials, unsigned int count, real *result) {
    real total = block_sum(sum_my_partials(partials, count));
    if (threadIdx.x == 0) *result = total;
}

// ---------------------------------------------------------------------------
// Kernel 8, one_launch: what changed is the end. The block that finishes last
// (a fence, then an atomic ticket: common/block_reduce.cuh) adds the partials,
// so one launch gives one number: no second launch, no CPU. The order of the
// additions is fixed, so the result is the same on every run.

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
// Kernel 9, cub: the library. It needs a small temporary buffer, whose size a
// first call with NULL reports; we allocate it once, outside the timing. With
// an int count CUB uses 32-bit offsets, its fastest path; above 2^31 64-bit.

template <typename real>
static cudaError_t cub_sum(void *temp, size_t *temp_bytes, const real *x, real *result, long long n) {
    if (n <= INT_MAX) return cub::DeviceReduce::Sum(temp, *temp_bytes, x, result, (int)n);
    return cub::DeviceReduce::Sum(temp, *temp_bytes, x, result, n);
}

// ---------------------------------------------------------------------------
// Launchers: one struct holds a run's buffers; each launch function only
// enqueues work, so the same function serves the check and the timing.

typedef struct {
    long long n;
    int threads;                    /* --block: global ... shuffle, one element per thread */
    int blocks;                     /* ceil(n / threads)                                   */
    int vector_blocks, fast_blocks; /* vector, one_launch: the GPU filled once */
    const void *x;                  /* the input: no kernel writes it                      */
    void *scratch;                  /* global's working copy; NULL unless global runs      */
    void *partials;                 /* one per block, the largest grid's worth             */
    void *result;                   /* vector, one_launch, cub: one element                */
    double *total;                  /* atomic, shared_atomic                               */
    unsigned int *blocks_done;
    void *cub_temp;
    size_t cub_temp_bytes;
    size_t element_bytes;
} reduce_run;

/* global destroys its input: refresh the scratch copy from the untouched x.
 * The book re-copies before every repeat as well. */
static void prepare_global(void *context) {
    reduce_run *r = (reduce_run *)context;
    HANDLE_ERROR(cudaMemcpyAsync(r->scratch, r->x, (size_t)r->n * r->element_bytes, cudaMemcpyDeviceToDevice, 0));
}

template <typename real> static void launch_global(void *context) {
    reduce_run *r = (reduce_run *)context;
    reduce_global<real><<<r->blocks, r->threads>>>((real *)r->scratch, (real *)r->partials, r->n);
    CHECK_LAUNCH();
}

template <typename real> static void launch_static(void *context) {
    reduce_run *r = (reduce_run *)context;
    reduce_static<real><<<r->blocks, r->threads>>>((const real *)r->x, (real *)r->partials, r->n);
    CHECK_LAUNCH();
}

template <typename real> static void launch_dynamic(void *context) {
    reduce_run *r = (reduce_run *)context;
    reduce_dynamic<real>
        <<<r->blocks, r->threads, r->threads * sizeof(real)>>>((const real *)r->x, (real *)r->partials, r->n);
    CHECK_LAUNCH();
}

/* The total starts at zero on every launch (a memset on the same stream). */
template <typename real> static void launch_atomic(void *context) {
    reduce_run *r = (reduce_run *)context;
    HANDLE_ERROR(cudaMemsetAsync(r->total, 0, sizeof(double), 0));
    reduce_atomic<real><<<r->blocks, r->threads>>>((const real *)r->x, r->total, r->n);
    CHECK_LAUNCH();
}

template <typename real> static void launch_shared_atomic(void *context) {
    reduce_run *r = (reduce_run *)context;
    HANDLE_ERROR(cudaMemsetAsync(r->total, 0, sizeof(double), 0));
    reduce_shared_atomic<real>
        <<<r->blocks, r->threads, r->threads * sizeof(real)>>>((const real *)r->x, r->total, r->n);
    CHECK_LAUNCH();
}

template <typename real> static void launch_shuffle(void *context) {
    reduce_run *r = (reduce_run *)context;
    reduce_shuffle<real><<<r->blocks, r->threads>>>((const real *)r->x, (real *)r->partials, r->n);
    CHECK_LAUNCH();
}

template <typename real> static void launch_vector(void *context) {
    reduce_run *r = (reduce_run *)context;
    reduce_vector<real><<<r->vector_blocks, FAST_THREADS>>>((const real *)r->x, (real *)r->partials, r->n);
    CHECK_LAUNCH();
    reduce_partials<real>
        <<<1, FAST_THREADS>>>((const real *)r->partials, (unsigned int)r->vector_blocks, (real *)r->result);
    CHECK_LAUNCH();
}

template <typename real> static void launch_one_launch(void *context) {
    reduce_run *r = (reduce_run *)context;
    reduce_one_launch<real><<<r->fast_blocks, FAST_THREADS>>>((const real *)r->x, (real *)r->partials, r->blocks_done,
                                                              (real *)r->result, r->n);
    CHECK_LAUNCH();
}

template <typename real> static void launch_cub(void *context) {
    reduce_run *r = (reduce_run *)context;
    HANDLE_ERROR(cub_sum(r->cub_temp, &r->cub_temp_bytes, (const real *)r->x, (real *)r->result, r->n));
}

// ---------------------------------------------------------------------------
// Checking: where each kernel leaves its answer, and how far it may be off.

enum { ANSWER_PARTIALS, ANSWER_TOTAL, ANSWER_RESULT };

static int answer_kind(int kernel) {
    switch (kernel) {
    case KERNEL_GLOBAL:
    case KERNEL_STATIC:
    case KERNEL_DYNAMIC:
    case KERNEL_SHUFFLE: return ANSWER_PARTIALS; /* the CPU adds them, in double */
    case KERNEL_ATOMIC:
    case KERNEL_SHARED_ATOMIC: return ANSWER_TOTAL;
    default: return ANSWER_RESULT;
    }
}

/* The relative error bound of each kernel (all data are non-negative, so a sum
 * whose every term goes through at most `chain` roundings in a row is within
 * chain x u of exact). Two parts: the additions done in the element type, and
 * those done in double (the CPU's sum of partials, the atomic totals). The
 * extra 1 u of the element type covers 1.23 rounded to float or double; the
 * extra 2 u of double cover the reference sum itself. */
static double kernel_tolerance(int kernel, const reduce_run *r, element_type type) {
    const long long tree = ceil_log2(r->threads);     /* halving tree depth          */
    const long long shuffle_tree = 2 * ceil_log2(32); /* block_sum: two warp trees   */
    const int width = type == ELEMENT_DOUBLE ? 2 : 4; /* lanes of a 16-byte vector   */
    const long long vectors = r->n / width;
    long long chain_in_type = 0, chain_in_double = 0;
    switch (kernel) {
    case KERNEL_GLOBAL:
    case KERNEL_STATIC:
    case KERNEL_DYNAMIC:
        chain_in_type = tree;
        chain_in_double = r->blocks;
        break;
    case KERNEL_ATOMIC:
        chain_in_type = 0;
        chain_in_double = r->n;
        break; /* every element, one after another */
    case KERNEL_SHARED_ATOMIC:
        chain_in_type = tree;
        chain_in_double = r->blocks;
        break;
    case KERNEL_SHUFFLE:
        chain_in_type = shuffle_tree;
        chain_in_double = r->blocks;
        break;
    case KERNEL_VECTOR:
    case KERNEL_ONE_LAUNCH: {
        const long long blocks = kernel == KERNEL_VECTOR ? r->vector_blocks : r->fast_blocks;
        const long long threads = blocks * FAST_THREADS;
        /* a thread's serial sum of its vectors, each vector's lanes, the tail
         * element; then the block's shuffles; then a thread's share of the
         * partials and the shuffles again. */
        chain_in_type = (vectors + threads - 1) / threads + ceil_log2(width) + 1 + shuffle_tree +
                        (blocks + FAST_THREADS - 1) / FAST_THREADS + shuffle_tree;
        break;
    }
    default: /* cub: CUB does not document its order; allow 1024 serial chains */
        chain_in_type = (r->n + 1023) / 1024 + 64;
    }
    return sum_error_bound(type, chain_in_type, 1) + sum_error_bound(ELEMENT_DOUBLE, chain_in_double, 2);
}

/* Copies a kernel's answer back; partials are added on the CPU in double. */
template <typename real> static double fetch_answer(int kernel, const reduce_run *r) {
    if (answer_kind(kernel) == ANSWER_TOTAL) {
        double total = 0;
        HANDLE_ERROR(cudaMemcpy(&total, r->total, sizeof(double), cudaMemcpyDeviceToHost));
        return total;
    }
    if (answer_kind(kernel) == ANSWER_RESULT) {
        real result = 0;
        HANDLE_ERROR(cudaMemcpy(&result, r->result, sizeof(real), cudaMemcpyDeviceToHost));
        return (double)result;
    }
    real *partials = (real *)host_alloc("reduce", (size_t)r->blocks * sizeof(real), "the partial sums");
    HANDLE_ERROR(cudaMemcpy(partials, r->partials, (size_t)r->blocks * sizeof(real), cudaMemcpyDeviceToHost));
    double sum = 0;
    for (int i = 0; i < r->blocks; ++i)
        sum += (double)partials[i];
    free(partials);
    return sum;
}

// ---------------------------------------------------------------------------
// The book's precision lesson, reproduced: the same numbers summed in three
// orders. Informative lines, not a check.

template <typename real> static void precision_lesson(const real *x, reduce_run *r, long double expected) {
    const char *type = sizeof(real) == sizeof(float) ? "float" : "double";
    real serial = 0; /* the book's CPU loop: one running sum, in the element type */
    for (long long i = 0; i < r->n; ++i)
        serial += x[i];

    launch_static<real>(r);
    real *partials = (real *)host_alloc("reduce", (size_t)r->blocks * sizeof(real), "the partial sums");
    HANDLE_ERROR(cudaMemcpy(partials, r->partials, (size_t)r->blocks * sizeof(real), cudaMemcpyDeviceToHost));
    real partials_in_type = 0; /* the book's host-side sum of the partials */
    double partials_in_double = 0;
    for (int i = 0; i < r->blocks; ++i) {
        partials_in_type += partials[i];
        partials_in_double += (double)partials[i];
    }
    free(partials);

    printf("Precision lesson (the book's ch. 8): one sum, three orders of addition, %s data\n", type);
    printf("  CPU, one serial loop in %-6s                                 %20.6f\n", type, (double)serial);
    printf("  GPU static, %10d partials added on the CPU in %-6s       %20.6f\n", r->blocks, type,
           (double)partials_in_type);
    printf("  GPU static, the same partials added on the CPU in double       %20.6f\n", partials_in_double);
    printf("  reference                                                      %20.6Lf\n", expected);
    printf("  The book, n = 1e8 of 1.23, block 128: float loop 33554432, float sum of the partials 123633392,\n"
           "  double loop 123000000.110771. A float holds 24 bits: from 2^25 = 33554432 its spacing is 4, and\n"
           "  adding 1.23 rounds back to the same number. Short chains (a tree, or partials in double) fix it.\n\n");
}

// ---------------------------------------------------------------------------
// Running, checking and timing each kernel.

template <typename real> static int run_all(const cli_options *o, const struct cudaDeviceProp *device) {
    const long long n = o->n;
    const size_t bytes = (size_t)n * sizeof(real);
    reduce_run r;
    memset(&r, 0, sizeof r);
    r.n = n;
    r.threads = o->block;
    r.element_bytes = sizeof(real);
    const long long blocks = (n + r.threads - 1) / r.threads;

    /* vector and one_launch: as many blocks as fit on the GPU at once, fewer
     * when n is too small to give each thread a vector. */
    int vector_per_sm = 0, fast_per_sm = 0;
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&vector_per_sm, reduce_vector<real>, FAST_THREADS, 0));
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fast_per_sm, reduce_one_launch<real>, FAST_THREADS, 0));
    long long needed = (n / vector16<real>::width + FAST_THREADS - 1) / FAST_THREADS;
    if (needed < 1) needed = 1;
    r.vector_blocks = (int)(needed < (long long)vector_per_sm * device->multiProcessorCount
                                ? needed
                                : (long long)vector_per_sm * device->multiProcessorCount);
    r.fast_blocks = (int)(needed < (long long)fast_per_sm * device->multiProcessorCount
                              ? needed
                              : (long long)fast_per_sm * device->multiProcessorCount);

    printf("reduce: n = %lld, type = %s, data = %s\n  global to shuffle: %lld blocks x %d threads, one element "
           "each\n  vector: %d blocks x %d threads, one_launch: %d blocks x %d threads (the GPU filled once)\n\n",
           n, element_type_name(o->type), data_names[o->data_kind], blocks, r.threads, r.vector_blocks, FAST_THREADS,
           r.fast_blocks, FAST_THREADS);

    /* Device memory: the input, global's scratch copy (only when it runs), the
     * partials and CUB's temporary buffer; nothing else of size n. */
    const int run_global = cli_kernel_selected(o, KERNEL_GLOBAL);
    long long max_partials = blocks;
    if (r.vector_blocks > max_partials) max_partials = r.vector_blocks;
    if (r.fast_blocks > max_partials) max_partials = r.fast_blocks;
    /* CUB's buffer is a few KB (one value per block of its grid): the 16 MB
     * margin covers it; its exact size is asked once n is known to fit. */
    gpu_require_memory("reduce", (run_global ? 2.0 : 1.0) * bytes + (double)max_partials * sizeof(real) + 16e6,
                       run_global ? "the input and global's scratch copy" : "the input");
    if (blocks > device->maxGridSize[0] || blocks > INT_MAX) {
        fprintf(stderr, "reduce: n = %lld needs %lld blocks of %d threads, more than a grid can have (%d)\n", n, blocks,
                r.threads, device->maxGridSize[0]);
        exit(EXIT_BAD_COMMAND_LINE);
    }
    r.blocks = (int)blocks;
    HANDLE_ERROR(cub_sum<real>(NULL, &r.cub_temp_bytes, NULL, NULL, n));

    real *x = (real *)host_alloc("reduce", bytes, "the input array");
    fill_input(x, n, o->data_kind, o->seed);
    const long double expected = reference_sum(x, n, o->data_kind);
    HANDLE_ERROR(cudaMalloc((void **)&r.x, bytes));
    if (run_global) HANDLE_ERROR(cudaMalloc(&r.scratch, bytes));
    HANDLE_ERROR(cudaMalloc(&r.partials, (size_t)max_partials * sizeof(real)));
    HANDLE_ERROR(cudaMalloc(&r.result, sizeof(double)));
    HANDLE_ERROR(cudaMalloc((void **)&r.total, sizeof(double)));
    HANDLE_ERROR(cudaMalloc((void **)&r.blocks_done, sizeof(unsigned int)));
    HANDLE_ERROR(cudaMemset(r.blocks_done, 0, sizeof(unsigned int)));
    HANDLE_ERROR(cudaMalloc(&r.cub_temp, r.cub_temp_bytes ? r.cub_temp_bytes : 1));
    HANDLE_ERROR(cudaMemcpy((void *)r.x, x, bytes, cudaMemcpyHostToDevice));
    if (cli_kernel_selected(o, KERNEL_STATIC)) precision_lesson(x, &r, expected);
    free(x);

    const double copy_gbps = o->check_only ? 0 : gpu_copy_bandwidth_gbps((double)bytes, o->reps);
    if (!o->check_only)
        report_ceiling(stdout, "reduce", "memcpy", "cudaMemcpy device to device, >= 256 MiB", copy_gbps);

    gpu_launch_fn launchers[] = {launch_global<real>, launch_static<real>,        launch_dynamic<real>,
                                 launch_atomic<real>, launch_shared_atomic<real>, launch_shuffle<real>,
                                 launch_vector<real>, launch_one_launch<real>,    launch_cub<real>};
    int best_kernel = -1;
    double best_ms = 0, cub_ms = 0;
    report rep;
    report_begin(&rep, "reduce", stdout);
    for (int k = 0; kernel_names[k]; ++k) {
        if (!cli_kernel_selected(o, k)) continue;
        /* Check: poisoned outputs, one launch, the answer copied back. */
        gpu_poison(r.partials, (size_t)max_partials * sizeof(real));
        gpu_poison(r.result, sizeof(double));
        gpu_poison(r.total, sizeof(double));
        if (k == KERNEL_GLOBAL) prepare_global(&r);
        launchers[k](&r);
        HANDLE_ERROR(cudaDeviceSynchronize());
        const double value = fetch_answer<real>(k, &r);

        result_row row = result_row_for(kernel_names[k], element_type_name(o->type), n);
        row.has_value = 1;
        row.value = value;
        row.expected = (double)expected;
        row.rel_err = (double)(fabsl((long double)value - expected) / (expected != 0 ? expected : 1));
        row.tolerance = kernel_tolerance(k, &r, o->type);
        row.pass = isfinite(value) && row.rel_err <= row.tolerance;
        if (!o->check_only) {
            row.timed = 1;
            /* global's scratch re-copy runs before each repeat but outside the
             * events: its time and bytes are not counted. */
            if (k == KERNEL_GLOBAL)
                row.ms = gpu_time_median_ms_after_setup(prepare_global, launchers[k], &r, o->reps);
            else if (k == KERNEL_ATOMIC)
                row.ms = gpu_time_median_ms(launchers[k], &r, o->reps < ATOMIC_MAX_REPS ? o->reps : ATOMIC_MAX_REPS);
            else
                row.ms = gpu_time_median_ms(launchers[k], &r, o->reps);
            /* Bytes: n elements read once, plus what the kernel writes out
             * (partials or one number). global also rewrites half its slice
             * per step in place; we count the useful traffic, like the others. */
            const double written = answer_kind(k) == ANSWER_PARTIALS ? (double)r.blocks : 1.0;
            row.gbps = gigabytes_per_second(bytes_moved((double)n, written, sizeof(real)), row.ms);
            row.pct_ceiling = percent_of(row.gbps, copy_gbps);
            row.ceiling = "memcpy";
        }
        if (answer_kind(k) == ANSWER_PARTIALS) row.note = "(kernel only: the CPU adds the partials)";
        if (k == KERNEL_ATOMIC && !o->check_only) row.note = "(median of at most 3 runs: it is slow)";
        report_add(&rep, &row);
        /* Ours that end in one number on the GPU (the CPU's share is not timed). */
        if (!o->check_only && k != KERNEL_CUB && answer_kind(k) != ANSWER_PARTIALS &&
            (best_kernel < 0 || row.ms < best_ms)) {
            best_kernel = k;
            best_ms = row.ms;
        }
        if (k == KERNEL_CUB) cub_ms = row.ms;
    }
    /* The benchmark's question: how close does our best kernel get to CUB? */
    if (best_kernel >= 0 && cub_ms > 0)
        printf("\nfastest of ours: %s, %.4f ms = %.3f x CUB's speed (%.4f ms)\n", kernel_names[best_kernel], best_ms,
               cub_ms / best_ms, cub_ms);
    HANDLE_ERROR(cudaFree((void *)r.x));
    if (r.scratch) HANDLE_ERROR(cudaFree(r.scratch));
    HANDLE_ERROR(cudaFree(r.partials));
    HANDLE_ERROR(cudaFree(r.result));
    HANDLE_ERROR(cudaFree(r.total));
    HANDLE_ERROR(cudaFree(r.blocks_done));
    HANDLE_ERROR(cudaFree(r.cub_temp));
    return report_end(&rep);
}

// ---------------------------------------------------------------------------

int main(int argc, char **argv) {
    /* clang-format off */
    static const cli_spec spec = {
        "reduce", "summing an array: global memory, shared memory, atomics, and the bandwidth limit (Fan, ch. 8)",
        CLI_N | CLI_KERNEL | CLI_TYPE | CLI_REPS | CLI_CHECK | CLI_DEVICE | CLI_BLOCK | CLI_DATA | CLI_SEED,
        kernel_names, data_names, BOOK_N, 0, 0, BOOK_BLOCK,
        "--block sets the threads per block of global, static, dynamic, atomic, shared_atomic and shuffle:\n"
        "a power of two from 32 to 1024 (the halving tree halves blockDim.x down to 1, shuffles need whole\n"
        "warps); atomic alone takes any size from 1 to 1024. vector and one_launch always use 256 threads.\n"
        "--data const: every element 1.23 (the book), checked against 1.23 x n; ramp: 1 + (i mod 1024)/1024;\n"
        "random: uniform in [0, 1) from --seed; both checked against a compensated CPU sum in double.\n"
        "With static selected, the run first shows the book's precision lesson (float: 33554432, 123633392)."};
    /* clang-format on */
    cli_options o;
    cli_parse_or_exit(&spec, argc, argv, &o);
    const unsigned tree_kernels = (1u << KERNEL_GLOBAL) | (1u << KERNEL_STATIC) | (1u << KERNEL_DYNAMIC) |
                                  (1u << KERNEL_SHARED_ATOMIC) | (1u << KERNEL_SHUFFLE);
    if ((o.kernel_mask & tree_kernels) && (!is_power_of_two(o.block) || o.block < 32)) {
        fprintf(stderr,
                "reduce: --block %d: global, static, dynamic, shared_atomic and shuffle need a power of two from 32 "
                "to 1024 (halving tree, whole warps)\n",
                o.block);
        return EXIT_BAD_COMMAND_LINE;
    }
    struct cudaDeviceProp device;
    gpu_select_device("reduce", o.device, &device);
    return o.type == ELEMENT_DOUBLE ? run_all<double>(&o, &device) : run_all<float>(&o, &device);
}
