/* ch08_reduce: summing an array, from global memory to the bandwidth limit (Fan Zheyong, CUDA
 * 编程：基础与实践, chs. 8-10; Mark Harris's first two trees; a tutorial's sum-of-squares demo).
 *
 * What it teaches: a tree in shared memory, not global; how it pairs values sets a step's cost (divergence,
 * bank conflicts); atomics per element or per block; __syncwarp(); warp shuffles; the bandwidth limit. And the
 * precision lesson: the order of float additions decides whether 1e8 x 1.23 is 33554432, 123633392 or 123000000.
 *
 * Build this file alone, from its folder (CUB is header-only); run ./reduce --help for the options:
 *   nvcc -O3 -I../common reduce.cu -o reduce
 *
 * Kernels, in teaching order (one partial sum per block unless said otherwise):
 *   global         Fan ch. 8: each block halves its slice in place in global memory (destroying it).
 *   interleaved    Harris: a __shared__ array, neighbours paired first (tid % (2*s)): divergent warps.
 *   strided_index  Harris: the same pairs through index 2*s*tid: whole warps, but bank conflicts.
 *   static         Fan ch. 8: global's halving tree in a fixed-size __shared__ array: neither cost.
 *   dynamic        Fan ch. 8: the same with extern __shared__, sized at launch.
 *   atomic         Fan ch. 9 and the tutorial: every element one atomicAdd into one total.
 *   shared_atomic  Fan ch. 9 and the tutorial: the block tree, then one atomicAdd per block.
 *   warp_unrolled  the trap (by name only, never under all): the last warp unrolled, no barrier.
 *   warp_synced    Fan ch. 10: the last warp's steps separated by __syncwarp().
 *   shuffle        Fan ch. 10: warp shuffles (warp_sum, block_sum) instead of the shared tree.
 *   vector         Fan ch. 10: 16-byte loads, the GPU filled once, a second launch adds the partials.
 *   one_launch     Fan chs. 9, 10: the same, but the last block to finish adds the partials.
 *   cub            cub::DeviceReduce::Sum, the library reference.
 *   squares_*      the tutorial's demo in int (--demo squares): one atomicAdd per element, or per block.
 *   global_unguarded  Fan's global as printed, no N (by name only): past a multiple of the block, out of bounds. */
#include <cub/device/device_reduce.cuh>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "book.h"             /* HANDLE_ERROR, CHECK_LAUNCH, HANDLE_NULL, gpu_poison, time_median_ms */
#include "ceiling.cuh"        /* harness: the read ceiling, the cold L2 */
#include "cli.h"              /* harness: the options */
#include "bank_model.h"       /* harness: --bank-model, the CPU runner's count of each shared access */
#include "cpu_replays.cuh"    /* harness: the CPU replays of the kernels' sums */
#include "numerics.h"         /* harness: exact sums and error bounds */
#include "report.h"           /* harness: the table and the RESULT lines */
#include "vector16.cuh"       /* float4 / double2: 16 bytes per load */

#define MAX_BLOCK 1024   /* the largest block CUDA allows: static's array must cover it */
#define FAST_THREADS 256 /* vector and one_launch                                      */
#define FAST_UNROLL 4    /* independent 16-byte loads in flight per thread             */

// Kernel 1, global (Fan ch. 8): block b halves its slice x of d_x in place, in global memory: the
// lower half adds the upper half. The barrier sits outside the if: every thread must reach it.
/* Beyond the book: a template for double; a 64-bit N, not always a multiple of the block. */
template <typename real> __global__ void reduce_global(real *d_x, real *d_y, const long long N) {
    const int tid = threadIdx.x;
    real *x = d_x + (long long)blockDim.x * blockIdx.x;
    const long long left = N - (long long)blockDim.x * blockIdx.x; /* elements of this slice */
    for (int offset = blockDim.x >> 1; offset > 0; offset >>= 1) {
        if (tid < offset && tid + offset < left) x[tid] += x[tid + offset];
        __syncthreads(); /* also makes this step's global writes visible to the block */
    }
    if (tid == 0) d_y[blockIdx.x] = x[0];
}

// Kernel 2, interleaved (Harris's kernel 1): the tree in a __shared__ array. At step s the threads
// with tid % (2*s) == 0 (a division) add the value s places up: spread over every warp, divergent.
template <typename real> __global__ void reduce_interleaved(const real *x, real *partials, long long n) {
    __shared__ real s_y[MAX_BLOCK];
    const unsigned int tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;
    s_y[tid] = i < n ? x[i] : (real)0;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) s_y[tid] += s_y[tid + s]; // bank: s_y[tid] += s_y[tid + s]
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = s_y[0];
}

// Kernel 3, strided_index (Harris's kernel 2): the same pairs, thread tid on index 2*s*tid: whole
// warps work or skip a step. But a warp's words are 2s apart: up to 2s share a bank (as many passes).
template <typename real> __global__ void reduce_strided_index(const real *x, real *partials, long long n) {
    __shared__ real s_y[MAX_BLOCK];
    const unsigned int tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;
    s_y[tid] = i < n ? x[i] : (real)0;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        const unsigned int index = 2 * s * tid;
        if (index < blockDim.x) s_y[index] += s_y[index + s]; // bank: s_y[index] += s_y[index + s]
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = s_y[0];
}

// Kernel 4, static (Fan ch. 8, his reduce_shared): global's halving tree in shared memory. The
// working threads are consecutive and so are their words: no divergence, no bank conflict.
/* Beyond the book: a template for double, 64-bit n; s_y covers the largest block (the book: s_y[128]). */
template <typename real> __global__ void reduce_static(const real *d_x, real *d_y, const long long N) {
    const int tid = threadIdx.x;
    const int bid = blockIdx.x;
    const long long n = (long long)bid * blockDim.x + tid;
    __shared__ real s_y[MAX_BLOCK];
    s_y[tid] = (n < N) ? d_x[n] : (real)0;
    __syncthreads(); /* every value is in s_y before anyone reads a neighbour's */
    for (int offset = blockDim.x >> 1; offset > 0; offset >>= 1) {
        if (tid < offset) s_y[tid] += s_y[tid + offset]; // bank: s_y[tid] += s_y[tid + offset]
        __syncthreads(); /* the next step reads what this one wrote */
    }
    if (tid == 0) d_y[bid] = s_y[0];
}

// Kernel 5, dynamic (Fan ch. 8): only the declaration changed. extern __shared__ has no size; the
// third <<<>>> parameter gives it in bytes, so the array is one block long whatever --block is.
/* Beyond the book: a template for double, so the array is bytes (one extern symbol, one type); 64-bit n. */
template <typename real> __global__ void reduce_dynamic(const real *d_x, real *d_y, const long long N) {
    const int tid = threadIdx.x;
    const int bid = blockIdx.x;
    const long long n = (long long)bid * blockDim.x + tid;
    extern __shared__ __align__(16) unsigned char s_bytes[]; /* the book: extern __shared__ real s_y[]; */
    real *s_y = reinterpret_cast<real *>(s_bytes);
    s_y[tid] = (n < N) ? d_x[n] : (real)0;
    __syncthreads();
    for (int offset = blockDim.x >> 1; offset > 0; offset >>= 1) {
        if (tid < offset) s_y[tid] += s_y[tid + offset]; // bank: s_y[tid] += s_y[tid + offset]
        __syncthreads();
    }
    if (tid == 0) d_y[bid] = s_y[0];
}

// Kernel 6, atomic (Fan ch. 9; the tutorial's naive version): every element one atomicAdd into one
// total, serialised by the hardware. A double total: a float one sticks at 2^25 like the CPU loop.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600
/* Before compute capability 6.0 (nvcc 12's default 5.2), the Programming Guide's compare-and-swap loop. */
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

// Kernel 7, shared_atomic (Fan ch. 9; the tutorial's fast version): the dynamic kernel's tree, then
// thread 0 adds the block's sum to the total: n / blockDim atomics instead of n, in no fixed order.
template <typename real> __global__ void reduce_shared_atomic(const real *x, double *total, long long n) {
    extern __shared__ __align__(16) unsigned char s_bytes[];
    real *s_y = reinterpret_cast<real *>(s_bytes);
    const unsigned int tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;
    s_y[tid] = i < n ? x[i] : (real)0;
    __syncthreads();
    for (unsigned int offset = blockDim.x / 2; offset > 0; offset /= 2) {
        if (tid < offset) s_y[tid] += s_y[tid + offset]; // bank: s_y[tid] += s_y[tid + offset]
        __syncthreads();
    }
    if (tid == 0) atomicAdd(total, (double)s_y[0]);
}

// Kernel 8, warp_unrolled: THE TRAP, by name only. Harris's kernel 5 (and many tutorials) trust the
// last warp's threads to run in lockstep, with no barrier: thread 0 reads s_y[16] while thread 16
// writes it. Since Volta nothing keeps a warp in lockstep: a data race. Needs blockDim.x >= 64.
template <typename real> __global__ void reduce_warp_unrolled(const real *x, real *partials, long long n) {
    __shared__ real s_y[MAX_BLOCK];
    const unsigned int tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;
    s_y[tid] = i < n ? x[i] : (real)0;
    __syncthreads();
    for (unsigned int offset = blockDim.x / 2; offset > 32; offset /= 2) {
        if (tid < offset) s_y[tid] += s_y[tid + offset]; // bank: s_y[tid] += s_y[tid + offset]
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

// Kernel 9, warp_synced (Fan ch. 10): the correct form. From offset 16 on only warp 0 works, and
// __syncwarp() (a barrier for one warp, cheaper than the block's) orders each step's accesses.
template <typename real> __global__ void reduce_warp_synced(const real *x, real *partials, long long n) {
    __shared__ real s_y[MAX_BLOCK];
    const unsigned int tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;
    s_y[tid] = i < n ? x[i] : (real)0;
    __syncthreads();
    for (unsigned int offset = blockDim.x / 2; offset >= 32; offset /= 2) {
        if (tid < offset) s_y[tid] += s_y[tid + offset]; // bank: s_y[tid] += s_y[tid + offset]
        __syncthreads();
    }
    for (unsigned int offset = 16; offset > 0; offset /= 2) {
        if (tid < offset) s_y[tid] += s_y[tid + offset]; // bank: s_y[tid] += s_y[tid + offset]
        __syncwarp();
    }
    if (tid == 0) partials[blockIdx.x] = s_y[0];
}

// Kernel 10, shuffle (Fan ch. 10): inside a warp, __shfl_down_sync hands values from register to
// register: no shared memory, no barrier. Shared memory only joins the warps' sums.
/* The halving tree of a warp's 32 lanes in registers; the total in lane 0. The mask: all 32 take part. */
template <typename real> __device__ __forceinline__ real warp_sum(real value) {
    for (int offset = 16; offset > 0; offset /= 2)
        value += __shfl_down_sync(0xffffffffu, value, offset);
    return value;
}

/* A whole block (blockDim.x a multiple of 32): each warp's sum, then warp 0's over them, in thread 0. */
template <typename real> __device__ __forceinline__ real block_sum(real value) {
    __shared__ real s_warp_sums[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    value = warp_sum(value);
    __syncthreads(); /* s_warp_sums may still be read by an earlier call */
    if (lane == 0) s_warp_sums[warp] = value;
    __syncthreads();
    if (warp == 0) {
        value = lane < (int)(blockDim.x / 32) ? s_warp_sums[lane] : (real)0;
        value = warp_sum(value);
    }
    return value;
}

template <typename real> __global__ void reduce_shuffle(const real *x, real *partials, long long n) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    real block_total = block_sum(i < n ? x[i] : (real)0);
    if (threadIdx.x == 0) partials[blockIdx.x] = block_total;
}

// Kernel 11, vector (Fan ch. 10: more work per thread): each thread sums many elements (a grid-stride
// loop, one wave of blocks, FAST_UNROLL 16-byte loads in flight); a second launch adds the partials.
__device__ __forceinline__ float sum_of_lanes(float4 v) { return (v.x + v.y) + (v.z + v.w); }
__device__ __forceinline__ double sum_of_lanes(double2 v) { return v.x + v.y; }

/* Vectors i, i + stride, ... and at most one of the last n % width elements (x: cudaMalloc'ed, aligned). */
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

/* This thread's share of the partials. __ldcg reads through L2, where the other blocks' stores are. */
template <typename real> __device__ __forceinline__ real sum_my_partials(const real *partials, unsigned int count) {
    real sum = 0;
    for (unsigned int i = threadIdx.x; i < count; i += blockDim.x)
        sum += __ldcg(&partials[i]);
    return sum;
}

template <typename real>
__global__ void __launch_bounds__(FAST_THREADS)
    reduce_partials(const real *partials, unsigned int count, real *result) {
    real total = block_sum(sum_my_partials(partials, count));
    if (threadIdx.x == 0) *result = total;
}

// Kernel 12, one_launch (Fan chs. 9, 10): the block that finishes last adds the partials, so one
// launch gives one number, in a fixed order.
/* Thread 0 stores the block's partial and takes a ticket; the last ticket's block has every partial. */
template <typename real>
__device__ __forceinline__ bool store_partial_and_check_last(real block_total, real *partials,
                                                             unsigned int *blocks_done) {
    __shared__ bool s_is_last_block;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = block_total;
        __threadfence(); /* the partial visible to every block before the ticket is taken */
        s_is_last_block = atomicAdd(blocks_done, 1u) == gridDim.x - 1;
        if (s_is_last_block) __threadfence(); /* the reading side: the partials are read after the ticket */
    }
    __syncthreads();
    return s_is_last_block;
}

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

// Kernel 13, cub: the library (its buffer's size from a first call with NULL; 32-bit offsets if they fit).
template <typename real>
static cudaError_t cub_sum(void *temp, size_t *temp_bytes, const real *x, real *result, long long n) {
    if (n <= INT_MAX) return cub::DeviceReduce::Sum(temp, *temp_bytes, x, result, (int)n);
    return cub::DeviceReduce::Sum(temp, *temp_bytes, x, result, n);
}

// The tutorial's demo, in int: the sum of the squares of x[i] = i % 10, one atomicAdd per element,
// or per block after a tree in dynamic shared memory. Integer sums are exact in any order.
__global__ void squares_atomic(const int *x, int *total, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, x[i] * x[i]);
}

__global__ void squares_shared(const int *x, int *total, int n) {
    extern __shared__ int s_squares[];
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

// Wrong on purpose (by name only): Fan's global as printed. No N: unless N fills whole blocks, it reads past d_x.
template <typename real> __global__ void reduce_global_unguarded(real *d_x, real *d_y) {
    const int tid = threadIdx.x;
    real *x = d_x + blockDim.x * blockIdx.x;
    for (int offset = blockDim.x >> 1; offset > 0; offset >>= 1) {
        if (tid < offset) x[tid] += x[tid + offset];
        __syncthreads();
    }
    if (tid == 0) d_y[blockIdx.x] = x[0];
}

// main: the book's program (Fan ch. 8, reduce2gpu.cu) in its straight line: the data, the three
// kernels launched directly, the partials added on the CPU; then every kernel checked and timed.
// Our verdict on the book's kernels: every partial is the CPU's tree of its block, bit for bit.
// Declared here, defined below the harness line: what main and the book's program call.
static int parse_options(int argc, char **argv, cli_options *o);    /* 1: --demo squares */
static int squares_demo(const cli_options *o);                      /* the tutorial's demo, three ways */
static int kernel_selected(const cli_options *o, const char *name); /* by --kernel (default all) */
static const char *data_name(int data_kind);                        /* --data: const, ramp, random */
template <typename real> struct cpu_reference; /* the input, its exact sum, each kernel's order replayed */
template <typename real>                       /* made once; first exit 2 if the run does not fit the device */
static const cpu_reference<real> *reference_of(const cli_options *o, const struct cudaDeviceProp *device);
template <typename real> static int run_progression(const cli_options *o, const struct cudaDeviceProp *device);

/* The end of the book's reduce(): the partials added on the CPU (and ours: in double, against the tree). */
template <typename real>
static int book_sum(const char *method, const real *d_y, int grid_size, const real *tree, double *in_double) {
    real *h_y = (real *)host_alloc("reduce", sizeof(real) * grid_size, "the partials");
    HANDLE_ERROR(cudaMemcpy(h_y, d_y, sizeof(real) * grid_size, cudaMemcpyDeviceToHost));
    real result = 0;
    long long differ = 0;
    *in_double = 0;
    for (int n = 0; n < grid_size; ++n) {
        result += h_y[n];
        *in_double += h_y[n];
        differ += memcmp(&h_y[n], &tree[n], sizeof(real)) != 0;
    }
    printf("  GPU %-8s %10d partials added on the CPU in %-6s    %20.6f  %s\n", method, grid_size, element_name<real>(),
           (double)result,
           differ ? "FAIL: partials differ from the CPU's tree" : "(each partial = the CPU's tree: PASS)");
    free(h_y);
    return differ != 0;
}

/* The book's program for real = float (the book) or double (its USE_DP); returns its failures. */
template <typename real> static int book_program(const cli_options *o, const struct cudaDeviceProp *device) {
    const cpu_reference<real> *cpu = reference_of<real>(o, device);
    const real *h_x = cpu->x; /* the book: every h_x[n] = 1.23 */
    if (!kernel_selected(o, "global") && !kernel_selected(o, "static") && !kernel_selected(o, "dynamic")) return 0;
    const long long N = o->n; /* the book: 1e8 */
    const size_t M = sizeof(real) * N;
    const int block_size = o->block; /* the book: 128 */
    const int grid_size = (int)((N + block_size - 1) / block_size);
    const size_t ymem = sizeof(real) * grid_size, smem = sizeof(real) * block_size;
    real *d_x, *d_y;
    HANDLE_ERROR(cudaMalloc((void **)&d_x, M));
    HANDLE_ERROR(cudaMalloc((void **)&d_y, ymem));
    real cpu_sum = 0; /* the book's CPU version: one running sum in the element type */
    for (long long n = 0; n < N; ++n)
        cpu_sum += h_x[n];
    printf("The book's program (Fan ch. 8): %s data, %d blocks of %d threads, partials added on the CPU\n",
           data_name(o->data_kind), grid_size, block_size);
    printf("  CPU, one serial loop in %-6s                                   %20.6f\n", element_name<real>(),
           (double)cpu_sum);

    int failures = 0;
    double in_double = 0;
    if (kernel_selected(o, "global")) { /* it destroys its input: copied in before each run, as in the book */
        HANDLE_ERROR(cudaMemcpy(d_x, h_x, M, cudaMemcpyHostToDevice));
        gpu_poison(d_y, ymem); /* every partial NaN, so one left unwritten fails */
        reduce_global<real><<<grid_size, block_size>>>(d_x, d_y, N);
        CHECK_LAUNCH();
        failures += book_sum("global", d_y, grid_size, cpu->tree_partials, &in_double);
    }
    if (kernel_selected(o, "static")) {
        HANDLE_ERROR(cudaMemcpy(d_x, h_x, M, cudaMemcpyHostToDevice));
        gpu_poison(d_y, ymem);
        reduce_static<real><<<grid_size, block_size>>>(d_x, d_y, N);
        CHECK_LAUNCH();
        failures += book_sum("static", d_y, grid_size, cpu->tree_partials, &in_double);
    }
    if (kernel_selected(o, "dynamic")) {
        HANDLE_ERROR(cudaMemcpy(d_x, h_x, M, cudaMemcpyHostToDevice));
        gpu_poison(d_y, ymem);
        reduce_dynamic<real><<<grid_size, block_size, smem>>>(d_x, d_y, N);
        CHECK_LAUNCH();
        failures += book_sum("dynamic", d_y, grid_size, cpu->tree_partials, &in_double);
    }
    printf("  GPU, the same partials added on the CPU in double                %20.6f\n", in_double);
    printf("  exact sum of the data as stored                                  %20.6Lf\n", cpu->data.sum);
    printf("  The book, n = 1e8 of 1.23, block 128: float loop 33554432, float sum of the partials 123633392,\n"
           "  double loop 123000000.110771. A float holds 24 bits: from 2^25 = 33554432 its spacing is 4, and\n"
           "  adding 1.23 rounds back to the same number. Short chains (a tree, or partials in double) fix it.\n\n");
    HANDLE_ERROR(cudaFree(d_x));
    HANDLE_ERROR(cudaFree(d_y));
    return failures;
}

int main(int argc, char **argv) {
    cli_options o;
    const int demo = parse_options(argc, argv, &o); /* --help, --bank-model: exit 0; a bad one: exit 2 */
    struct cudaDeviceProp device;
    gpu_select_device("reduce", o.device, &device);
    if (demo) return squares_demo(&o);

    const int use_dp = o.type == ELEMENT_DOUBLE; /* --type double: the book's USE_DP */
    const int book_failures = use_dp ? book_program<double>(&o, &device) : book_program<float>(&o, &device);
    const int status = use_dp ? run_progression<double>(&o, &device) : run_progression<float>(&o, &device);
    if (book_failures) printf("the book's program: %d kernel(s) FAILED\n", book_failures);
    return report_exit_code(book_failures != 0, status); /* 77: --kernel cub alone on the CPU runner */
}

// ===== Harness: below this line, not needed to follow the lesson =====
// ----- options -----
#define BOOK_N 100000000LL  /* --n's default: the book's 1e8 elements            */
#define BOOK_VALUE 1.23     /* --data const: the book's every element            */
#define BOOK_BLOCK 128      /* --block's default: the book's threads per block   */
#define ATOMIC_MAX_REPS 3   /* timed runs of atomic: 1e8 atomics on one address  */
#define RAMP_PERIOD 1024    /* --data ramp: 1 + (i mod 1024) / 1024              */
#define SQUARES_N (1 << 20) /* the tutorial's demo: x[i] = i % 10, int           */
#define SQUARES_PERIOD 10
#define SQUARES_BLOCK 256
#define MAX_LAUNCHES 10000 /* --launches */
// clang-format off
enum { KERNEL_GLOBAL, KERNEL_INTERLEAVED, KERNEL_STRIDED_INDEX, KERNEL_STATIC, KERNEL_DYNAMIC, KERNEL_ATOMIC,
       KERNEL_SHARED_ATOMIC, KERNEL_WARP_SYNCED, KERNEL_SHUFFLE, KERNEL_VECTOR, KERNEL_ONE_LAUNCH, KERNEL_CUB,
       KERNEL_WARP_UNROLLED, KERNEL_GLOBAL_UNGUARDED, /* wrong on purpose: last, run only when named */ KERNEL_COUNT };
// clang-format on
static const char *const kernel_names[] = {
    "global",      "interleaved", "strided_index", "static",     "dynamic", "atomic", "shared_atomic",
    "warp_synced", "shuffle",     "vector",        "one_launch", "cub",     NULL};
static const char *const wrong_kernel_names[] = {"warp_unrolled", "global_unguarded", NULL};
static const char *kernel_name(int k) {
    return k < KERNEL_WARP_UNROLLED ? kernel_names[k] : wrong_kernel_names[k - KERNEL_WARP_UNROLLED];
}
#define KERNEL_BIT(k) (1u << (k))
/* global ... shuffle (before vector) and the wrong ones: one element per thread, --block threads per block. */
#define ONE_ELEMENT_KERNELS ((KERNEL_BIT(KERNEL_COUNT) - 1u) & ~RESULT_KERNELS)
#define SCRATCH_KERNELS (KERNEL_BIT(KERNEL_GLOBAL) | KERNEL_BIT(KERNEL_GLOBAL_UNGUARDED)) /* destroy their input */
#define INTERLEAVED_KERNELS (KERNEL_BIT(KERNEL_INTERLEAVED) | KERNEL_BIT(KERNEL_STRIDED_INDEX))
#define TREE_KERNELS                                                                                                   \
    (ONE_ELEMENT_KERNELS & ~(INTERLEAVED_KERNELS | KERNEL_BIT(KERNEL_ATOMIC) | KERNEL_BIT(KERNEL_SHUFFLE)))
#define TOTAL_KERNELS (KERNEL_BIT(KERNEL_ATOMIC) | KERNEL_BIT(KERNEL_SHARED_ATOMIC)) /* else partials */
#define RESULT_KERNELS (KERNEL_BIT(KERNEL_VECTOR) | KERNEL_BIT(KERNEL_ONE_LAUNCH) | KERNEL_BIT(KERNEL_CUB))
#define STATEFUL_KERNELS (KERNEL_BIT(KERNEL_GLOBAL) | TOTAL_KERNELS | RESULT_KERNELS) /* --launches times */
enum { DATA_CONST, DATA_RAMP, DATA_RANDOM };
static const char *const data_names[] = {"const", "ramp", "random", NULL};
static const char *data_name(int data_kind) { return data_names[data_kind]; }
static int stateful_launches = 2;                                    /* --launches */
static int kernel_selected(const cli_options *o, const char *name) { /* one of kernel_names */
    return cli_kernel_selected(o, cli_index_in_(kernel_names, name));
}
static long long squares_below(long long m) { return (m - 1) * m * (2 * m - 1) / 6; } /* k^2, k < m */
static long long squares_closed_form(long long n) {
    return n / SQUARES_PERIOD * squares_below(SQUARES_PERIOD) + squares_below(n % SQUARES_PERIOD);
}
/* --bank-model: the kernels on the CPU runner, both types unless --type says one (the demo: its own); the
 * lesson's pictures, by the passes of a tree's step where one line takes several. */
static const bank_picture bank_pictures[] = {
    {"reduce_interleaved<float>", "s_y[tid] += s_y[tid + s] (8 lanes)", "reduce_interleaved_float_s2", 0},
    {"reduce_strided_index<float>", "s_y[index] += s_y[index + s]", "reduce_strided_index_float_s1", 2},
    {"reduce_strided_index<float>", "s_y[index] += s_y[index + s]", "reduce_strided_index_float_s2", 4},
    {"reduce_strided_index<float>", "s_y[index] += s_y[index + s]", "reduce_strided_index_float_s16_block1024", 32},
    {"reduce_strided_index<double>", "s_y[index] += s_y[index + s]", "reduce_strided_index_double_s1", 4},
    {"reduce_static<float>", "s_y[tid] += s_y[tid + offset]", "reduce_static_float_offset64", 0},
    {"reduce_static<float>", "s_y[tid] += s_y[tid + offset] (8 lanes)", "reduce_static_float_offset8", 0},
    {"reduce_static<double>", "s_y[tid] += s_y[tid + offset]", "reduce_static_double_offset64", 0},
    {NULL, NULL, NULL, 0}};
/* 1 for the tutorial's demo. --help and --bank-model exit 0, a bad command line 2: before any CUDA call. */
static int parse_options(int argc, char **argv, cli_options *o) {
    int demo = 0; /* --demo squares takes fewer options than the rest, so it picks the spec */
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--demo") == 0 || strncmp(argv[i], "--demo=", 7) == 0) demo = 1;
    static const cli_own_option own_options[] = {
        {"--launches", "L", "launches in a row, each checked, of the kernels with state (default 2)"},
        {"--demo", "squares", "the tutorial's sum-of-squares demo instead (reduce --demo squares --help)"},
        {NULL, NULL, NULL}};
    static const cli_own_option demo_options[] = {{"--demo", "squares", "the tutorial's sum-of-squares demo"},
                                                  {NULL, NULL, NULL}};
    cli_spec spec = {};
    spec.program = demo ? "reduce --demo squares" : "reduce";
    spec.summary = demo ? "the tutorial's demo: the sum of the squares of int x[i] = i % 10, three ways"
                        : "summing an array: global memory, shared memory, atomics, warps, and the bandwidth limit "
                          "(Fan, ch. 8-10)";
    spec.accepts = demo ? CLI_N | CLI_REPS | CLI_CHECK | CLI_DEVICE | CLI_BANK_MODEL
                        : CLI_N | CLI_KERNEL | CLI_TYPE | CLI_REPS | CLI_CHECK | CLI_DEVICE | CLI_BLOCK | CLI_DATA |
                              CLI_SEED | CLI_COLD_L2 | CLI_BANK_MODEL;
    spec.kernels = demo ? NULL : kernel_names;
    spec.wrong_kernels = demo ? NULL : wrong_kernel_names;
    spec.data_kinds = demo ? NULL : data_names;
    spec.default_n = demo ? SQUARES_N : BOOK_N;
    spec.cpu_default_n = demo ? 0 : 500000; /* the CPU runner's --n: 1e8 is too slow there, the demo's 2^20 not */
    spec.default_block = BOOK_BLOCK;
    spec.own_options = demo ? demo_options : own_options;
    spec.extra_help =
        demo ? "Each version checked exactly against the closed form; n is limited so the sum fits an int."
             : "--block (global ... shuffle): a power of two from 32 to 1024; atomic alone any size; warp_unrolled\n"
               "(wrong on purpose: the warp-synchronous race) at least 64; vector and one_launch use 256 threads.\n"
               "--data const: every element 1.23 (the book); ramp: 1 + (i mod 1024)/1024; random: uniform in [0, 1).\n"
               "Deterministic kernels are checked bit for bit against their own order on the CPU, the atomics and\n"
               "CUB against the exact sum. With global, static or dynamic, the book's program runs first.";
    spec.block_rule = demo ? NULL
                           : "global, interleaved, strided_index, static, dynamic, shared_atomic, warp_synced and "
                             "shuffle need a power of two from 32 to 1024 (trees, whole warps)";
    cli_parse_or_exit(&spec, argc, argv, o);
    const char *value = o->own_values[0] ? o->own_values[0] : ""; /* --demo's, or --launches' */
    if (demo && strcmp(value, "squares") != 0)
        cli_exit_bad(spec.program, "--demo needs the name of a demo: squares (the tutorial's sum of squares), got '%s'",
                     value);
    if (demo && squares_closed_form(o->n) > INT_MAX)
        cli_exit_bad(spec.program, "--n %lld: the sum of squares, %lld, does not fit in an int", o->n,
                     squares_closed_form(o->n));
    if (!demo) stateful_launches = (int)cli_own_number(&spec, o, 0, 1, MAX_LAUNCHES, stateful_launches);
    const unsigned tree_kernels = ONE_ELEMENT_KERNELS & ~KERNEL_BIT(KERNEL_ATOMIC); /* the trap: checked below */
    if (!demo && (o->kernel_mask & tree_kernels) && (!is_power_of_two(o->block) || o->block < 32))
        cli_exit_bad("reduce", "--block %d: %s", o->block, spec.block_rule);
    if (!demo && cli_kernel_selected(o, KERNEL_WARP_UNROLLED) && o->block < 64)
        cli_exit_bad("reduce", "--block %d: warp_unrolled needs >= 64 threads (it reads s_y[tid + 32])", o->block);
    if (o->bank_model)
        bank_model_observe("reduce", argc, argv, demo ? NULL : bank_model_both_types, bank_pictures,
                           demo ? NULL : "library\tcub::\tCUB\n"); /* cub: DeviceReduce::Sum's own kernels */
    return demo;
}

// ----- the run -----
template <typename real> struct device_buffers {
    long long n;
    int threads, blocks;            /* --block, ceil(n / threads): the one-element kernels */
    int vector_blocks, fast_blocks; /* vector, one_launch: the GPU filled once             */
    long long partial_count;        /* the partials buffer: the largest grid that runs     */
    const real *x;                  /* the input: no kernel writes it                      */
    real *scratch;                  /* global's working copy (NULL unless global runs)     */
    real *partials, *result;        /* one per block; one number                           */
    double *total;                  /* atomic, shared_atomic                               */
    unsigned int *blocks_done;      /* one_launch's ticket counter                         */
    void *cub_temp;
    size_t cub_temp_bytes;
};

/* vector, one_launch: the blocks that fit at once. print: say the sizes, first exit 2 if the run does not fit. */
template <typename real>
static device_buffers<real> sizes_of_run(const cli_options *o, const struct cudaDeviceProp *device, int print) {
    device_buffers<real> b = {};
    b.n = o->n;
    b.threads = o->block;
    const long long one_element_blocks = (b.n + b.threads - 1) / b.threads; /* maybe more than a grid */
    const unsigned selected = o->kernel_mask;
    int vector_per_sm = 0, fast_per_sm = 0;
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&vector_per_sm, reduce_vector<real>, FAST_THREADS, 0));
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fast_per_sm, reduce_one_launch<real>, FAST_THREADS, 0));
    const long long needed = (b.n / vector16<real>::width + FAST_THREADS - 1) / FAST_THREADS;
    const long long vector_full = (long long)vector_per_sm * device->multiProcessorCount;
    const long long fast_full = (long long)fast_per_sm * device->multiProcessorCount;
    b.vector_blocks = (int)(needed < 1 ? 1 : needed < vector_full ? needed : vector_full);
    b.fast_blocks = (int)(needed < 1 ? 1 : needed < fast_full ? needed : fast_full);
    b.partial_count = selected & ONE_ELEMENT_KERNELS ? one_element_blocks : 1;
    if ((selected & KERNEL_BIT(KERNEL_VECTOR)) && b.vector_blocks > b.partial_count) b.partial_count = b.vector_blocks;
    if ((selected & KERNEL_BIT(KERNEL_ONE_LAUNCH)) && b.fast_blocks > b.partial_count) b.partial_count = b.fast_blocks;
    if (one_element_blocks <= INT_MAX)
        b.blocks = (int)(selected & ONE_ELEMENT_KERNELS ? one_element_blocks : b.partial_count);
    if (!print) return b;
    const int global_runs = (selected & SCRATCH_KERNELS) != 0; /* CUB's buffer: in the 16 MB margin */
    gpu_require_memory("reduce", (global_runs ? 2.0 : 1.0) * b.n * sizeof(real) + b.partial_count * sizeof(real) + 16e6,
                       global_runs ? "the input and global's scratch copy" : "the input");
    if (selected & ONE_ELEMENT_KERNELS && (one_element_blocks > device->maxGridSize[0] || one_element_blocks > INT_MAX))
        cli_exit_bad("reduce", "n = %lld needs %lld blocks of %d threads, more than a grid can have (%d)", b.n,
                     one_element_blocks, b.threads, device->maxGridSize[0]);
    printf("reduce: n = %lld, type = %s, data = %s\n  global to shuffle: %lld blocks x %d threads, one element "
           "each\n  vector: %d blocks x %d threads, one_launch: %d blocks x %d threads (the GPU filled once)\n\n",
           b.n, element_type_name(o->type), data_names[o->data_kind], one_element_blocks, b.threads, b.vector_blocks,
           FAST_THREADS, b.fast_blocks, FAST_THREADS);
    return b;
}

/* What a kernel's GB/s counts: n elements read, and its partials, result or total (not CUB's own). */
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

/* Each launch checked; unless --check, the median of --reps launches against the read ceiling. */
template <typename real> static int run_progression(const cli_options *o, const struct cudaDeviceProp *device) {
    const cpu_reference<real> *ref = reference_of<real>(o, device);
    device_buffers<real> b = sizes_of_run<real>(o, device, 0);
    const size_t bytes = (size_t)b.n * sizeof(real);
    HANDLE_ERROR(cudaMalloc((void **)&b.x, bytes));
    HANDLE_ERROR(cudaMemcpy((void *)b.x, ref->x, bytes, cudaMemcpyHostToDevice));
    if (o->kernel_mask & SCRATCH_KERNELS) /* their copy; on the CPU runner one block more, poison: NaN past n */
        HANDLE_ERROR(cudaMalloc((void **)&b.scratch, bytes + ON_CPU_RUNNER * b.threads * sizeof(real)));
    HANDLE_ERROR(cudaMalloc((void **)&b.partials, (size_t)b.partial_count * sizeof(real)));
    HANDLE_ERROR(cudaMalloc((void **)&b.result, sizeof(real)));
    HANDLE_ERROR(cudaMalloc((void **)&b.total, sizeof(double)));
    HANDLE_ERROR(cudaMalloc((void **)&b.blocks_done, sizeof(unsigned int)));
    HANDLE_ERROR(cudaMemset(b.blocks_done, 0, sizeof(unsigned int)));
    if (!ON_CPU_RUNNER) HANDLE_ERROR(cub_sum<real>(NULL, &b.cub_temp_bytes, NULL, NULL, b.n)); /* skipped there */
    HANDLE_ERROR(cudaMalloc(&b.cub_temp, b.cub_temp_bytes ? b.cub_temp_bytes : 1));
    const double read_gbps = o->check_only ? 0 : gpu_read_gbps((double)bytes, o->reps);
    if (!o->check_only) report_ceiling(stdout, "reduce", "read", "a kernel that only reads, >= 256 MiB", read_gbps);
    l2_flusher flusher = l2_flusher_create(o->cold_l2 && !o->check_only);
    int best = -1;
    double best_ms = 0, cub_ms = 0;
    report rep;
    report_begin(&rep, "reduce", stdout);
    rep.cold_l2 = o->cold_l2;
    for (int k = 0; k < KERNEL_COUNT; ++k) {
        if (!cli_kernel_selected(o, k) || (k == KERNEL_CUB && report_cpu_skip(&rep, "cub", "CUB's own kernels")))
            continue;
        const auto expected = expected_of(k, *ref, b, o->type, device->multiProcessorCount);
        result_row row = result_row_for(kernel_name(k), element_type_name(o->type), b.n);
        row.bytes = bytes_counted(k, b);
        row.partials_only = !(KERNEL_BIT(k) & (TOTAL_KERNELS | RESULT_KERNELS));
        if (k == KERNEL_GLOBAL_UNGUARDED) row_note(&row, "reads %lld past n", (long long)b.blocks * b.threads - b.n);
        const int launches = KERNEL_BIT(k) & STATEFUL_KERNELS ? stateful_launches : 1;
        for (int launch_index = 1; launch_index <= launches; ++launch_index) {
            prepare_launch(k, b, NULL);
            launch(k, b);
            HANDLE_ERROR(cudaDeviceSynchronize());
            char which[48];
            snprintf(which, sizeof which, "launch %d of %d", launch_index, launches);
            check_launch(&row, k, b, expected, launch_index == 1 ? NULL : which);
        }
        if (!o->check_only) {
            const int reps = k == KERNEL_ATOMIC && o->reps > ATOMIC_MAX_REPS ? ATOMIC_MAX_REPS : o->reps;
            const double ms = time_median_ms(
                reps, [&] { prepare_launch(k, b, &flusher); }, [&] { launch(k, b); });
            check_launch(&row, k, b, expected, "the last timed launch");
            row_time(&row, ms, "read", read_gbps);
            if (k == KERNEL_CUB)
                cub_ms = ms;
            else if (!row.partials_only && (best < 0 || ms < best_ms))
                best = k, best_ms = ms;
        }
        report_add(&rep, &row);
        free(expected.owned);
    }
    if (best >= 0 && cub_ms > 0) /* the benchmark's question: how close does our best get to CUB and DRAM? */
        printf("\nfastest of ours: %s, %.4f ms = %.3f x CUB's speed (%.4f ms), %.3f x the read ceiling\n",
               kernel_name(best), best_ms, cub_ms / best_ms, cub_ms,
               gigabytes_per_second(bytes_counted(best, b), best_ms) / read_gbps);
    l2_flusher_free(&flusher);
    for (void *buffer : {(void *)b.x, (void *)b.scratch, (void *)b.partials, (void *)b.result, (void *)b.total,
                         (void *)b.blocks_done, b.cub_temp})
        HANDLE_ERROR(cudaFree(buffer)); /* cudaFree(NULL) does nothing */
    return report_end(&rep);
}

// The tutorial's demo (--demo squares): the kernel timed alone, and the tutorial's way (with its copies).
enum { SQUARES_CPU, SQUARES_ATOMIC, SQUARES_SHARED };
static const char *const squares_names[] = {"squares_cpu", "squares_atomic", "squares_shared"};
static const double tutorial_us[] = {2522, 268260, 2341};
static void launch_squares(int version, const int *d_x, int *d_total, int n); /* the launch switch, below */

/* One run's sum: the CPU's; a launch on d_x, the total poisoned; or, d_x NULL, the tutorial's way. */
static int squares_run(int version, const int *x, const int *d_x, int *d_total, int n) {
    int sum = 0, *d_own = NULL;
    for (int i = 0; version == SQUARES_CPU && i < n; ++i)
        sum += x[i] * x[i];
    if (version == SQUARES_CPU) return sum;
    if (d_x) gpu_poison(d_total, sizeof(int));
    if (!d_x) {
        HANDLE_ERROR(cudaMalloc((void **)&d_own, (size_t)n * sizeof(int)));
        HANDLE_ERROR(cudaMalloc((void **)&d_total, sizeof(int)));
        HANDLE_ERROR(cudaMemcpy(d_own, x, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    }
    launch_squares(version, d_x ? d_x : d_own, d_total, n);
    HANDLE_ERROR(cudaMemcpy(&sum, d_total, sizeof(int), cudaMemcpyDeviceToHost));
    if (!d_x) HANDLE_ERROR(cudaFree(d_own));
    if (!d_x) HANDLE_ERROR(cudaFree(d_total));
    return sum;
}

/* The median of `reps` runs on the host clock, after one untimed; *sum: the last; *wrong: wrong sums. */
static double squares_host_ms(int version, const int *x, int n, int reps, long long expected, int *sum, int *wrong) {
    double *times = (double *)host_alloc("reduce", (size_t)(reps ? reps : 1) * sizeof(double), "the timings");
    for (int rep = -1; rep < reps; ++rep) {
        struct timespec start, end;
        clock_gettime(CLOCK_MONOTONIC, &start);
        *sum = squares_run(version, x, NULL, NULL, n);
        clock_gettime(CLOCK_MONOTONIC, &end);
        if (rep >= 0) times[rep] = (end.tv_sec - start.tv_sec) * 1e3 + (end.tv_nsec - start.tv_nsec) * 1e-6;
        *wrong += version != SQUARES_CPU && *sum != expected;
    }
    const double median = reps ? median_of(times, reps) : 0;
    free(times);
    return median;
}

static int squares_demo(const cli_options *o) {
    const int n = (int)o->n, reps = o->check_only ? 0 : o->reps;
    const long long expected = squares_closed_form(n);
    printf("The tutorial's demo: the sum of the squares of int x[i] = i %% %d, n = %d\n"
           "closed form: %d periods x %lld + the squares below %d = %lld\n\n",
           SQUARES_PERIOD, n, n / SQUARES_PERIOD, squares_below(SQUARES_PERIOD), n % SQUARES_PERIOD, expected);
    int *x = (int *)host_alloc("reduce", (size_t)n * sizeof(int), "the demo's input"), *d_x, *d_total;
    for (int i = 0; i < n; ++i)
        x[i] = i % SQUARES_PERIOD;
    HANDLE_ERROR(cudaMalloc((void **)&d_x, (size_t)n * sizeof(int)));
    HANDLE_ERROR(cudaMalloc((void **)&d_total, sizeof(int)));
    HANDLE_ERROR(cudaMemcpy(d_x, x, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    report rep;
    report_begin(&rep, "reduce", stdout);
    for (int version = SQUARES_CPU; version <= SQUARES_SHARED; ++version) {
        const int gpu = version != SQUARES_CPU;
        int sum = 0, last = 0, wrong = 0; /* wrong: later runs (a relaunch, the last timed one, the tutorial's) */
        double ms = gpu ? 0 : squares_host_ms(version, x, n, reps, expected, &sum, &wrong), tutorial_ms = 0;
        if (gpu) sum = squares_run(version, x, d_x, d_total, n);
        if (gpu) wrong += squares_run(version, x, d_x, d_total, n) != expected; /* a second: the total reset */
        if (gpu && reps) {
            ms = time_median_ms(
                reps, [&] { gpu_poison(d_total, sizeof(int)); }, [&] { launch_squares(version, d_x, d_total, n); });
            HANDLE_ERROR(cudaMemcpy(&last, d_total, sizeof(int), cudaMemcpyDeviceToHost));
            wrong += last != expected;
            tutorial_ms = squares_host_ms(version, x, n, reps, expected, &last, &wrong);
        }
        result_row row = result_row_for(squares_names[version], "int", n);
        row_check(&row, sum, (double)expected, 0); /* integers: exact, in any order */
        row.bytes = bytes_moved(n, 1, sizeof(int));
        if (reps) row_time(&row, ms, NULL, 0);
        if (reps && !gpu) row_note(&row, "the CPU; the tutorial measured %.0f us", tutorial_us[version]);
        if (reps && gpu)
            row_note(&row, "with cudaMalloc + copies (the tutorial's timer) %.3f ms; the tutorial measured %.0f us",
                     tutorial_ms, tutorial_us[version]);
        if (wrong) row.pass = 0;
        if (wrong) row_note(&row, "BUT %d later launch(es) wrong", wrong);
        report_add(&rep, &row);
    }
    HANDLE_ERROR(cudaFree(d_x));
    HANDLE_ERROR(cudaFree(d_total));
    free(x);
    return report_end(&rep);
}

// ----- the launch switch -----
/* Before every launch, untimed: every output poisoned in full; global's input, which it destroys, copied in. */
template <typename real>
static void prepare_launch(int kernel, const device_buffers<real> &b, const l2_flusher *flusher) {
    gpu_poison(b.partials, (size_t)b.partial_count * sizeof(real));
    gpu_poison(b.result, sizeof(real));
    gpu_poison(b.total, sizeof(double));
    if (KERNEL_BIT(kernel) & SCRATCH_KERNELS)
        HANDLE_ERROR(cudaMemcpyAsync(b.scratch, b.x, (size_t)b.n * sizeof(real), cudaMemcpyDeviceToDevice, 0));
    if (flusher) l2_flush(flusher); /* --cold-l2, last before a timed launch */
}

template <typename real> static void launch(int kernel, device_buffers<real> &b) {
    const size_t bytes = b.threads * sizeof(real); /* dynamic shared memory */
    if (KERNEL_BIT(kernel) & TOTAL_KERNELS) /* the total starts at 0 on every launch: a memset on the same stream */
        HANDLE_ERROR(cudaMemsetAsync(b.total, 0, sizeof(double), 0));
    switch (kernel) {
    case KERNEL_GLOBAL: reduce_global<real><<<b.blocks, b.threads>>>(b.scratch, b.partials, b.n); break;
    case KERNEL_INTERLEAVED: reduce_interleaved<real><<<b.blocks, b.threads>>>(b.x, b.partials, b.n); break;
    case KERNEL_STRIDED_INDEX: reduce_strided_index<real><<<b.blocks, b.threads>>>(b.x, b.partials, b.n); break;
    case KERNEL_STATIC: reduce_static<real><<<b.blocks, b.threads>>>(b.x, b.partials, b.n); break;
    case KERNEL_DYNAMIC: reduce_dynamic<real><<<b.blocks, b.threads, bytes>>>(b.x, b.partials, b.n); break;
    case KERNEL_ATOMIC: reduce_atomic<real><<<b.blocks, b.threads>>>(b.x, b.total, b.n); break;
    case KERNEL_SHARED_ATOMIC: reduce_shared_atomic<real><<<b.blocks, b.threads, bytes>>>(b.x, b.total, b.n); break;
    case KERNEL_WARP_UNROLLED: reduce_warp_unrolled<real><<<b.blocks, b.threads>>>(b.x, b.partials, b.n); break;
    case KERNEL_GLOBAL_UNGUARDED: reduce_global_unguarded<real><<<b.blocks, b.threads>>>(b.scratch, b.partials); break;
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

/* The tutorial's demo: the total zeroed on the same stream, then one launch. */
static void launch_squares(int version, const int *d_x, int *d_total, int n) {
    const int blocks = (n + SQUARES_BLOCK - 1) / SQUARES_BLOCK;
    HANDLE_ERROR(cudaMemsetAsync(d_total, 0, sizeof(int), 0));
    if (version == SQUARES_ATOMIC)
        squares_atomic<<<blocks, SQUARES_BLOCK>>>(d_x, d_total, n);
    else
        squares_shared<<<blocks, SQUARES_BLOCK, SQUARES_BLOCK * sizeof(int)>>>(d_x, d_total, n);
    CHECK_LAUNCH();
}

// ----- CPU replays -----
// Each deterministic kernel's order of additions, so its partials can be compared bit for bit.

/* The exact sum of non-negative terms, and the largest 2^grain dividing every term. */
typedef struct {
    long double sum; /* compensated in double: exact when the grain test holds, else within 2 u_double */
    int grain;
    long long count;
} term_sum;
template <typename real> static term_sum exact_sum_cpu(const real *terms, long long count) {
    term_sum t = {0, 4096, count};
    kahan_sum k = {0, 0};
    for (long long i = 0; i < count; ++i) {
        kahan_add(&k, (double)terms[i]);
        if (terms[i] != 0 && lowest_bit_exponent(terms[i]) < t.grain) t.grain = lowest_bit_exponent(terms[i]);
    }
    t.sum = kahan_result(&k);
    return t;
}

/* interleaved and strided_index: at step s, values[t] += values[t + s] for every t a multiple of 2s. */
template <typename real> static real interleaved_tree_cpu(real *values, int count) {
    for (int s = 1; s < count; s *= 2)
        for (int t = 0; t < count; t += 2 * s)
            values[t] += values[t + s];
    return values[0];
}

/* global ... shuffle: one element per thread (0 past n), one tree per block. */
template <typename real, typename block_tree_sum>
static real *one_element_partials_cpu(const real *x, const cli_options *o, block_tree_sum tree) {
    const long long n = o->n, threads = o->block, blocks = (n + threads - 1) / threads;
    real values[MAX_BLOCK], *partials = (real *)host_alloc("reduce", blocks * sizeof(real), "the emulated partials");
    for (long long b = 0; b < blocks; ++b) {
        for (int t = 0; t < threads; ++t)
            values[t] = b * threads + t < n ? x[b * threads + t] : (real)0;
        partials[b] = tree(values, (int)threads);
    }
    return partials;
}

/* vector, one_launch: thread_sum, block_sum per block, the last block's (reduce_partials's) sum. */
template <typename real> static real vector_cpu(const real *x, long long n, int blocks, real *partials) {
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

template <typename real> struct cpu_reference {
    real *x;                                       /* the input                                           */
    term_sum data;                                 /* its exact sum                                       */
    real *tree_partials;                           /* the halving tree's partials, replayed (or NULL)     */
    real *interleaved_partials, *shuffle_partials; /* the interleaved tree's, block_sum's (or NULL) */
};
/* Made once, for the book's program and the progression (after the check of the run's sizes). */
template <typename real>
static const cpu_reference<real> *reference_of(const cli_options *o, const struct cudaDeviceProp *device) {
    static cpu_reference<real> made = {}, *ref = NULL;
    if (ref) return ref;
    sizes_of_run<real>(o, device, 1);
    ref = &made;
    ref->x = (real *)host_alloc("reduce", (size_t)o->n * sizeof(real), "the input");
    unsigned long long state = o->seed;
    for (long long i = 0; i < o->n; ++i) /* >= 0; ramp: multiples of 2^-10, sums exact in double to n ~ 2^42 */
        ref->x[i] = o->data_kind == DATA_CONST  ? (real)BOOK_VALUE
                    : o->data_kind == DATA_RAMP ? (real)(1.0 + (double)(i % RAMP_PERIOD) / RAMP_PERIOD)
                                                : (real)random_unit(&state);
    ref->data = exact_sum_cpu(ref->x, o->n);
    if (o->data_kind == DATA_CONST) ref->data.sum = (long double)o->n * ref->x[0]; /* n x 1.23 as stored */
    if (o->kernel_mask & TREE_KERNELS)
        ref->tree_partials = one_element_partials_cpu(ref->x, o, halving_tree_on_cpu<real>);
    if (o->kernel_mask & INTERLEAVED_KERNELS)
        ref->interleaved_partials = one_element_partials_cpu(ref->x, o, interleaved_tree_cpu<real>);
    if (o->kernel_mask & KERNEL_BIT(KERNEL_SHUFFLE))
        ref->shuffle_partials = one_element_partials_cpu(ref->x, o, block_sum_on_cpu<real>);
    return ref;
}

// ----- checks -----
/* A deterministic order's bound (data >= 0: c roundings in a row are within c x u of exact). */
template <typename real> static double order_bound(int kernel, const device_buffers<real> &b, element_type type) {
    const long long shuffles = 2 * ceil_log2(32), width = vector16<real>::width;
    if (!(KERNEL_BIT(kernel) & RESULT_KERNELS)) /* one tree (or block_sum's shuffles) per partial */
        return sum_error_bound(type, kernel == KERNEL_SHUFFLE ? shuffles : ceil_log2(b.threads), 0) +
               sum_error_bound(ELEMENT_DOUBLE, b.blocks, 2);
    const long long blocks = kernel == KERNEL_VECTOR ? b.vector_blocks : b.fast_blocks, threads = blocks * FAST_THREADS;
    /* a thread's vectors, lanes, tail; the block's shuffles; its share of the partials; shuffles */
    const long long chain = (b.n / width + threads - 1) / threads + ceil_log2(width) + 1 + shuffles +
                            (blocks + FAST_THREADS - 1) / FAST_THREADS + shuffles;
    return sum_error_bound(type, chain, 0) + sum_error_bound(ELEMENT_DOUBLE, 0, 2);
}

/* The grain test, with the compensated sum plus a margin far wider than its error. */
static int exact_in_every_order(const term_sum *t, int bits) {
    return every_order_exact(t->sum * (1 + ldexpl(1, -40)), t->grain, bits);
}

/* CUB documents no order. Its DeviceReduce (cub/agent/agent_reduce.cuh): tiles of >= 16 KB over at
 * most min(tiles, SMs) blocks' worth, at most 20 items of a tile in a thread's sum, a 5-step warp
 * tree and 32 warp sums per block, one block over the block sums: no longer chain than below. */
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

/* Deterministic kernels: the CPU's replay bit for bit (itself within its order's bound); the
 * atomics and CUB: the exact sum of what they add, within a tolerance (0 if every order is exact). */
template <typename real> struct expected_answer {
    double value, tolerance;  /* the value, within this relative tolerance (0: bit for bit)   */
    const real *partials;     /* deterministic kernels: every partial, bit for bit; else NULL */
    long long partial_count;  /* how many                                                     */
    real *owned;              /* partials replayed for this kernel alone (freed by the caller) */
    double exact, off, bound; /* deterministic kernels: the replay against the exact sum      */
    char note[96];            /* the others: what the value is                                */
};
template <typename real>
static expected_answer<real> expected_of(int kernel, const cpu_reference<real> &ref, const device_buffers<real> &b,
                                         element_type type, int sms) {
    expected_answer<real> e = {};
    e.exact = (double)ref.data.sum;
    if (KERNEL_BIT(kernel) & (TOTAL_KERNELS | KERNEL_BIT(KERNEL_CUB))) { /* the exact sum of what it adds */
        const term_sum terms = kernel == KERNEL_SHARED_ATOMIC ? exact_sum_cpu(ref.tree_partials, b.blocks) : ref.data;
        e.value = (double)terms.sum;
        e.tolerance = kernel == KERNEL_CUB               ? cub_bound(&terms, type, sms)
                      : exact_in_every_order(&terms, 53) ? 0 /* the atomics, in double, in no fixed order */
                                                         : any_order_bound(terms.sum, terms.count);
        const char *bounded = kernel == KERNEL_CUB ? "within CUB's longest chain" : "any order bounded";
        snprintf(e.note, sizeof e.note, "= the exact sum%s, %s",
                 kernel == KERNEL_SHARED_ATOMIC ? " of the emulated block trees" : "",
                 e.tolerance == 0 ? "every order exact" : bounded);
        return e;
    }
    if (KERNEL_BIT(kernel) & RESULT_KERNELS) { /* vector, one_launch */
        e.partial_count = kernel == KERNEL_VECTOR ? b.vector_blocks : b.fast_blocks;
        e.partials = e.owned = (real *)host_alloc("reduce", e.partial_count * sizeof(real), "the emulated partials");
        e.value = (double)vector_cpu(ref.x, b.n, (int)e.partial_count, e.owned);
    } else { /* one element per thread: the halving trees, the interleaved ones, or block_sum (shuffle) */
        e.partials = kernel == KERNEL_SHUFFLE                   ? ref.shuffle_partials
                     : KERNEL_BIT(kernel) & INTERLEAVED_KERNELS ? ref.interleaved_partials
                                                                : ref.tree_partials;
        e.partial_count = b.blocks;
        for (long long i = 0; i < b.blocks; ++i) /* the CPU's sum of the partials, in double, in order */
            e.value += (double)e.partials[i];
    }
    e.off = relative_error(e.value, e.exact);
    e.bound = order_bound(kernel, b, type);
    return e;
}

/* The first launch (which = NULL) fills the row's check and note; a later one fails it if wrong. */
template <typename real>
static void check_launch(result_row *row, int kernel, const device_buffers<real> &b, const expected_answer<real> &e,
                         const char *which) {
    result_row later = result_row_for(row->kernel, row->type, row->n), *checked = which ? &later : row;
    double value = 0; /* partials (global ... shuffle) are added in double, in order */
    real result = 0;
    if (KERNEL_BIT(kernel) & TOTAL_KERNELS)
        HANDLE_ERROR(cudaMemcpy(&value, b.total, sizeof value, cudaMemcpyDeviceToHost));
    if (KERNEL_BIT(kernel) & RESULT_KERNELS)
        HANDLE_ERROR(cudaMemcpy(&result, b.result, sizeof result, cudaMemcpyDeviceToHost));
    long long differ = 0; /* partials hold few elements: they show one the total is too large to show */
    if (e.partials) {
        real *partials = (real *)host_alloc("reduce", (size_t)e.partial_count * sizeof(real), "the partial sums");
        HANDLE_ERROR(cudaMemcpy(partials, b.partials, e.partial_count * sizeof(real), cudaMemcpyDeviceToHost));
        for (long long i = 0; i < e.partial_count && !(KERNEL_BIT(kernel) & RESULT_KERNELS); ++i)
            value += (double)partials[i];
        differ = compare_partials(checked, partials, e.partials, e.partial_count);
        free(partials);
    }
    row_check(checked, KERNEL_BIT(kernel) & RESULT_KERNELS ? (double)result : value, e.value, e.tolerance);
    if (e.partials) checked->pass = checked->pass && e.off <= e.bound && differ == 0;
    if (!which && !e.partials) row_note(row, "%s", e.note);
    if (!which && e.partials && differ) row_note(row, "exact %.10g", e.exact);
    if (!which && e.partials && !differ)
        row_note(row, "= its order on the CPU, every partial too; exact %.10g, off %.1e %s bound %.1e", e.exact, e.off,
                 e.off <= e.bound ? "<=" : ">", e.bound);
    if (!which || later.pass || !row->pass) return; /* a first launch already wrong says so itself */
    row->pass = 0;
    row_note(row, "BUT %s is wrong: value %.10g, %s", which, later.value, later.note);
}
