/* ch08_reduce: summing an array, from global memory to shared memory to the
 * bandwidth limit (Fan Zheyong, CUDA 编程：基础与实践: ch. 8 shared memory,
 * ch. 9 atomics, ch. 10 warps; and a Chinese tutorial's sum-of-squares demo).
 *
 * What it teaches: a block can halve its values in global memory, but shared
 * memory (static or dynamic) does it on chip, and how the tree pairs the values
 * decides what a step costs (the tutorial's interleaved pairs: divergent warps
 * and a modulo; its strided index: bank conflicts; the halving tree: neither);
 * one atomicAdd per element serialises the whole GPU on one address, one per
 * block does not; the last warp needs __syncwarp() (the old "warp-synchronous"
 * trick is a race since Volta); after that the limit is memory bandwidth, and
 * the last steps reach it. Along the way, the book's precision lesson: the order of float additions
 * decides whether 1e8 x 1.23 comes out as 33554432, 123633392 or 123000000.
 *
 * Build this file alone, from its folder (every kernel below; CUB is header-only):
 *   nvcc -O3 -I../common reduce.cu -o reduce
 *
 * Run:
 *   ./reduce                             the book's program (1e8 x 1.23, float), then every kernel, timed
 *   ./reduce --type double --kernel static,one_launch,cub
 *   ./reduce --data random --n 1000003 --check       verify only, as the tests do
 *   ./reduce --kernel interleaved,strided_index,static   the tutorial's two trees before the halving tree
 *   ./reduce --kernel warp_unrolled,warp_synced      the warp-synchronous trap, and its fix
 *   ./reduce --demo squares              the tutorial's demo: the sum of squares of i % 10, three ways
 *   ./reduce --bank-model --block 1024   each shared-memory access's passes through the banks, predicted (no GPU)
 *
 * Kernels, in teaching order (one partial sum per block unless said otherwise):
 *   global         Fan ch. 8: each block halves its slice in place in global memory (destroying it).
 *   interleaved    the tutorial: a __shared__ array, neighbours paired first (tid % (2*s)): divergent warps.
 *   strided_index  the tutorial: the same pairs through index 2*s*tid: whole warps, but bank conflicts.
 *   static         Fan ch. 8: global's halving tree in a fixed-size __shared__ array: neither cost.
 *   dynamic        Fan ch. 8: the same with extern __shared__, sized at launch.
 *   atomic         Fan ch. 9 and the tutorial: every element one atomicAdd into one total.
 *   shared_atomic  Fan ch. 9 and the tutorial: the block tree, then one atomicAdd per block.
 *   warp_unrolled  the trap (by name only, never under all): the last warp unrolled, no barrier.
 *   warp_synced    Fan ch. 10: the last warp's steps separated by __syncwarp().
 *   shuffle        Fan ch. 10: warp shuffles instead of the shared-memory tree.
 *   vector         Fan ch. 10: 16-byte loads, the GPU filled once, a second launch adds the partials.
 *   one_launch     Fan chs. 9, 10: the same, but the last block to finish adds the partials.
 *   cub            cub::DeviceReduce::Sum, the library reference.
 *   squares_*      the tutorial's demo in int (--demo squares): one atomicAdd per element, or per block.
 *
 * Data (--data): const = the book's 1.23 everywhere; ramp = 1 + (i mod 1024) /
 * 1024; random = uniform in [0, 1) from --seed. A constant input hides indexing
 * bugs (summing the wrong elements still gives the right total), so the tests
 * use ramp and random data too. Read from here to main: below main, a line
 * marks the harness (options, the CPU's replay of each kernel's additions, the
 * checks, the timed progression), which the lesson does not need. */
#include <cub/device/device_reduce.cuh>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bank_model_block.h" /* harness: the banks' passes of each shared-memory access (--bank-model) */
#include "block_reduce.cuh" /* block_sum, dynamic_shared, the last block's ticket; vector16 */
#include "book.h"           /* HANDLE_ERROR, CHECK_LAUNCH, HANDLE_NULL, gpu_poison, time_median_ms */
#include "ceiling.cuh"      /* harness: the read ceiling, the cold L2 */
#include "cli.h"            /* harness: the options */
#include "numerics.h"       /* harness: exact sums and error bounds */
#include "report.h"         /* harness: the table and the RESULT lines */

#define MAX_BLOCK 1024   /* the largest block CUDA allows: static's array must cover it */
#define FAST_THREADS 256 /* vector and one_launch                                      */
#define FAST_UNROLL 4    /* independent 16-byte loads in flight per thread             */

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
// Kernel 2, interleaved (the tutorial's first tree, "interleaved addressing"):
// from here on the block copies its slice into a __shared__ array once (0 past
// n) and the tree runs there: on chip, and the input is left untouched. At
// step s every thread whose index is a multiple of 2s adds the value s places
// up: neighbours first, then pairs of pairs. Right, and wasteful: `tid % (2*s)`
// is a division by a variable (a dozen instructions), and the working threads
// are spread thin over every warp (16 of its 32 at the first step, 1 at s = 16)
// while the idle ones wait in the same warp: divergence at every step.

template <typename real> __global__ void reduce_interleaved(const real *x, real *partials, long long n) {
    __shared__ real s_y[MAX_BLOCK];
    const unsigned int tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;
    s_y[tid] = i < n ? x[i] : (real)0;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) s_y[tid] += s_y[tid + s];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = s_y[0];
}

// ---------------------------------------------------------------------------
// Kernel 3, strided_index (the tutorial's next step): the same pairs in the
// same steps, but thread tid works on index 2*s*tid, so the working threads
// are the lowest ones: whole warps work or skip the step, and no modulo. The
// cost moved to the banks: a warp's indices are 2s words apart, so up to 2s of
// them fall into one bank (2-, 4-, 8-, 16-, 32-way as s grows) and the warp's
// access is split into as many passes.

/* The tutorial's index: at step s, thread tid adds the pair (2*s*tid, 2*s*tid + s).
 * The bank model (harness) calls it too, so its prediction follows the kernel. */
__host__ __device__ inline unsigned int strided_pair_index(unsigned int s, unsigned int tid) { return 2 * s * tid; }

template <typename real> __global__ void reduce_strided_index(const real *x, real *partials, long long n) {
    __shared__ real s_y[MAX_BLOCK];
    const unsigned int tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;
    s_y[tid] = i < n ? x[i] : (real)0;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        const unsigned int index = strided_pair_index(s, tid);
        if (index < blockDim.x) s_y[index] += s_y[index + s];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = s_y[0];
}

// ---------------------------------------------------------------------------
// Kernel 4, static (Fan ch. 8): global's halving tree, in shared memory
// ("sequential addressing"): the lower half adds the upper half, so the
// working threads are consecutive (whole warps until fewer than 32 work) and
// so are their words (no bank conflict); `offset /= 2` is one shift. A static
// array's size is a compile-time constant, so it must cover the largest block
// --block allows; the book writes s_y[128].

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
// Kernel 5, dynamic (Fan ch. 8): only the declaration changed. extern
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
// Kernel 6, atomic (the tutorial's naive version; Fan ch. 9 introduces
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
// Kernel 7, shared_atomic (Fan ch. 9: one atomicAdd per block instead of a
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
// Kernel 8, warp_unrolled: THE TRAP, asked for by name only. Once the tree is
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
// Kernel 9, warp_synced (Fan ch. 10): the correct form. While more than one
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
// Kernel 10, shuffle (Fan ch. 10, warp shuffle functions; his cooperative-
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
// Kernel 11, vector (Fan ch. 10: more work per thread, and a second pass
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
// Kernel 12, one_launch: what changed is the end. The block that finishes
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
// Kernel 13, cub: the library. It needs a temporary buffer, whose size a
// first call with NULL reports; we allocate it once, outside the timing. With
// an int count CUB uses 32-bit offsets, its fastest path; above 2^31 64-bit.

template <typename real>
static cudaError_t cub_sum(void *temp, size_t *temp_bytes, const real *x, real *result, long long n) {
    if (n <= INT_MAX) return cub::DeviceReduce::Sum(temp, *temp_bytes, x, result, (int)n);
    return cub::DeviceReduce::Sum(temp, *temp_bytes, x, result, n);
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
// main: the book's program (Fan ch. 8, reduce2gpu.cu) in its straight line:
// the data, the three kernels launched directly, each one's partial sums
// copied back and added on the CPU in the element type, as the book does; the
// precision lesson; then the progression, every kernel checked and timed.
// Our verdict on the book's kernels: every partial equals the CPU's halving
// tree of its block, bit for bit. Sizes follow the options; the defaults are
// the book's: 1e8 elements of 1.23, float, blocks of 128 threads.

/* Declared here, defined after main: the options, the CPU side, the progression. */
template <typename real> struct cpu_reference; /* the exact sum, and each kernel's additions replayed on the CPU */
static int parse_command_line(int argc, char **argv, cli_options *o); /* 1: --demo squares */
static int squares_demo(const cli_options &o);
static int kernel_selected(const cli_options &o, const char *name);
static const char *data_name(int data_kind);
template <typename real> static void check_sizes_and_print(const cli_options &o, const struct cudaDeviceProp &device);
template <typename real> static void fill_input(real *x, long long n, int data_kind, unsigned long long seed);
template <typename real>
static cpu_reference<real> *cpu_reference_of(const real *x, const cli_options &o, const struct cudaDeviceProp &device);
template <typename real> static const real *cpu_tree_partials(const cpu_reference<real> *cpu);
template <typename real> static long double cpu_exact_sum(const cpu_reference<real> *cpu);
template <typename real>
static int progression(const cli_options &o, const struct cudaDeviceProp &device, const cpu_reference<real> *cpu);
template <typename real> static void cpu_reference_free(cpu_reference<real> *cpu);

int main(int argc, char **argv) {
    cli_options o;
    const int demo = parse_command_line(argc, argv, &o); /* --help, --bank-model: exit 0; a bad one: exit 2 */
    struct cudaDeviceProp device;
    gpu_select_device("reduce", o.device, &device);
    if (demo) return squares_demo(o);

    /* One body for float (the book's type) and double (--type double, the
     * book's USE_DP): a generic lambda, called at the end with the type
     * chosen; inside it, `real` is that type. */
    auto book_then_progression = [&](auto zero) {
        typedef decltype(zero) real;
        check_sizes_and_print<real>(o, device); /* exit 2 if the run does not fit the device */
        const long long N = o.n;                /* the book: 1e8 */
        const size_t M = sizeof(real) * N;
        real *h_x = (real *)malloc(M);
        HANDLE_NULL(h_x);
        fill_input(h_x, N, o.data_kind, o.seed); /* the book: every h_x[n] = 1.23 */
        cpu_reference<real> *cpu = cpu_reference_of(h_x, o, device);

        int book_failures = 0;
        const char *const methods[] = {"global", "static", "dynamic"};
        if (kernel_selected(o, methods[0]) || kernel_selected(o, methods[1]) || kernel_selected(o, methods[2])) {
            const int block_size = o.block; /* the book: 128 */
            const int grid_size = (int)((N + block_size - 1) / block_size);
            const size_t ymem = sizeof(real) * grid_size, smem = sizeof(real) * block_size;
            real *h_y = (real *)malloc(ymem);
            HANDLE_NULL(h_y);
            real *d_x, *d_y;
            HANDLE_ERROR(cudaMalloc((void **)&d_x, M));
            HANDLE_ERROR(cudaMalloc((void **)&d_y, ymem));

            real cpu_sum = 0; /* the book's CPU version: one running sum in the element type */
            for (long long n = 0; n < N; ++n)
                cpu_sum += h_x[n];
            printf("The book's program (Fan ch. 8): %s data, %d blocks of %d threads, partials added on the CPU\n",
                   data_name(o.data_kind), grid_size, block_size);
            printf("  CPU, one serial loop in %-6s                                   %20.6f\n",
                   element_type_name(o.type), (double)cpu_sum);

            double in_double = 0;
            for (int method = 0; method < 3; ++method) {
                if (!kernel_selected(o, methods[method])) continue;
                /* global destroys its input: the book copies it in again before every run */
                HANDLE_ERROR(cudaMemcpy(d_x, h_x, M, cudaMemcpyHostToDevice));
                gpu_poison(d_y, ymem); /* every partial NaN, so one left unwritten fails */
                switch (method) {
                case 0: reduce_global<real><<<grid_size, block_size>>>(d_x, d_y, N); break;
                case 1: reduce_static<real><<<grid_size, block_size>>>(d_x, d_y, N); break;
                case 2: reduce_dynamic<real><<<grid_size, block_size, smem>>>(d_x, d_y, N); break;
                }
                CHECK_LAUNCH();
                HANDLE_ERROR(cudaMemcpy(h_y, d_y, ymem, cudaMemcpyDeviceToHost));
                real result = 0;      /* the book's sum of the partials, in the element type */
                in_double = 0;        /* ours, in double */
                long long differ = 0; /* partials that are not the CPU's tree, bit for bit */
                const real *tree = cpu_tree_partials(cpu);
                for (int n = 0; n < grid_size; ++n) {
                    result += h_y[n];
                    in_double += h_y[n];
                    differ += memcmp(&h_y[n], &tree[n], sizeof(real)) != 0;
                }
                printf("  GPU %-8s %10d partials added on the CPU in %-6s    %20.6f  %s\n", methods[method], grid_size,
                       element_type_name(o.type), (double)result,
                       differ ? "FAIL: partials differ from the CPU's tree" : "(each partial = the CPU's tree: PASS)");
                book_failures += differ != 0;
            }
            printf("  GPU, the same partials added on the CPU in double                %20.6f\n", in_double);
            printf("  exact sum of the data as stored                                  %20.6Lf\n", cpu_exact_sum(cpu));
            printf(
                "  The book, n = 1e8 of 1.23, block 128: float loop 33554432, float sum of the partials 123633392,\n"
                "  double loop 123000000.110771. A float holds 24 bits: from 2^25 = 33554432 its spacing is 4, and\n"
                "  adding 1.23 rounds back to the same number. Short chains (a tree, or partials in double) fix it.\n"
                "\n");
            HANDLE_ERROR(cudaFree(d_x));
            HANDLE_ERROR(cudaFree(d_y));
            free(h_y);
        }

        const int status = progression(o, device, cpu); /* every selected kernel, checked, then timed */
        cpu_reference_free(cpu);
        free(h_x);
        if (book_failures) printf("the book's program: %d kernel(s) FAILED\n", book_failures);
        return status || book_failures;
    };
    const int failed = o.type == ELEMENT_DOUBLE ? book_then_progression(0.0) : book_then_progression(0.0f);
    return failed ? EXIT_WRONG_RESULT : EXIT_ALL_PASSED;
}

// ===========================================================================
// Harness: below this line, the options, the kernel table, the buffers and
// the launch switch, the CPU's replay of each kernel's additions, the checks,
// the timed progression and the tutorial's demo. Not needed to follow the
// lesson.
// ===========================================================================

// ---------------------------------------------------------------------------
// The options, and the table of kernels.

#define BOOK_N 100000000LL /* --n's default: the book's 1e8 elements            */
#define BOOK_VALUE 1.23    /* --data const: the book's every element            */
#define BOOK_BLOCK 128     /* --block's default: the book's threads per block   */
#define ATOMIC_MAX_REPS 3  /* 1e8 atomics to one address take a few hundred ms */
#define RAMP_PERIOD 1024
#define SQUARES_N (1 << 20) /* the tutorial's demo: x[i] = i % 10, int */
#define SQUARES_PERIOD 10
#define SQUARES_BLOCK 256
#define DEFAULT_LAUNCHES 2 /* --launches: checked launches of a stateful kernel */
#define MAX_LAUNCHES 10000

enum {
    KERNEL_GLOBAL,
    KERNEL_INTERLEAVED,
    KERNEL_STRIDED_INDEX,
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
static const char *const kernel_names[] = {
    "global",      "interleaved", "strided_index", "static",     "dynamic", "atomic", "shared_atomic",
    "warp_synced", "shuffle",     "vector",        "one_launch", "cub",     NULL};
static const char *const wrong_kernel_names[] = {"warp_unrolled", NULL};
static const char *kernel_name(int kernel) {
    return kernel < KERNEL_WARP_UNROLLED ? kernel_names[kernel] : wrong_kernel_names[kernel - KERNEL_WARP_UNROLLED];
}
#define KERNEL_BIT(k) (1u << (k))
/* global ... shuffle (the kernels before vector) and the trap: one element per thread, --block threads per block. */
#define ONE_ELEMENT_KERNELS ((KERNEL_BIT(KERNEL_VECTOR) - 1u) | KERNEL_BIT(KERNEL_WARP_UNROLLED))
/* Kernels whose block sum is the halving tree (in global or shared memory). */
#define TREE_KERNELS                                                                                                   \
    (KERNEL_BIT(KERNEL_GLOBAL) | KERNEL_BIT(KERNEL_STATIC) | KERNEL_BIT(KERNEL_DYNAMIC) |                              \
     KERNEL_BIT(KERNEL_SHARED_ATOMIC) | KERNEL_BIT(KERNEL_WARP_UNROLLED) | KERNEL_BIT(KERNEL_WARP_SYNCED))
/* Kernels whose block sum pairs neighbours first: the same pairs in the same steps. */
#define INTERLEAVED_KERNELS (KERNEL_BIT(KERNEL_INTERLEAVED) | KERNEL_BIT(KERNEL_STRIDED_INDEX))
/* Kernels with state that outlives a launch, each launched --launches times
 * in a row and every launch checked: global destroys its input (restored
 * before each launch); atomic and shared_atomic add into a total (zeroed by
 * each launch); vector's second launch reads the partials of its first;
 * one_launch's ticket counter is reset by its last block; cub works in its
 * temporary buffer. */
#define STATEFUL_KERNELS                                                                                               \
    (KERNEL_BIT(KERNEL_GLOBAL) | KERNEL_BIT(KERNEL_ATOMIC) | KERNEL_BIT(KERNEL_SHARED_ATOMIC) |                        \
     KERNEL_BIT(KERNEL_VECTOR) | KERNEL_BIT(KERNEL_ONE_LAUNCH) | KERNEL_BIT(KERNEL_CUB))

enum { DATA_CONST, DATA_RAMP, DATA_RANDOM };
static const char *const data_names[] = {"const", "ramp", "random", NULL};
static const char *data_name(int data_kind) { return data_names[data_kind]; }

static int kernel_selected(const cli_options &o, const char *name) {
    for (int k = 0; k < KERNEL_COUNT; ++k)
        if (strcmp(kernel_name(k), name) == 0) return cli_kernel_selected(&o, k);
    return 0;
}

static int stateful_launches = DEFAULT_LAUNCHES; /* --launches */

/* sum of k^2 for k < m, and the sum of squares of i % 10 for i < n. */
static long long squares_below(long long m) { return (m - 1) * m * (2 * m - 1) / 6; }
static long long squares_closed_form(long long n) {
    return n / SQUARES_PERIOD * squares_below(SQUARES_PERIOD) + squares_below(n % SQUARES_PERIOD);
}

static void print_bank_model_and_exit(const cli_options &o, int demo); /* below */

/* Parses the command line into o; returns 1 for the tutorial's demo. --help
 * exits 0, and so does --bank-model once it has printed the model; a bad
 * command line exits 2 with one line. All before any CUDA call. */
static int parse_command_line(int argc, char **argv, cli_options *o) {
    /* --demo squares takes fewer options than the rest, so it picks the spec;
     * cli.h parses it like any option (a missing value, a repeat) and we
     * check its value. */
    int demo = 0;
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--demo") == 0 || strncmp(argv[i], "--demo=", 7) == 0) demo = 1;
    static const cli_own_option own_options[] = {
        {"--launches", "L",
         "launches in a row of each kernel that keeps state between launches (global,\n"
         "                       atomic, shared_atomic, vector, one_launch, cub), each checked (default 2)"},
        {"--demo", "squares", "the tutorial's sum-of-squares demo instead (reduce --demo squares --help)"},
        {NULL, NULL, NULL}};
    static const cli_own_option demo_options[] = {{"--demo", "squares", "the tutorial's sum-of-squares demo"},
                                                  {NULL, NULL, NULL}};
    cli_spec spec = {};
    spec.program = demo ? "reduce --demo squares" : "reduce";
    spec.default_block = BOOK_BLOCK;
    if (demo) {
        spec.summary = "the tutorial's demo: the sum of the squares of int x[i] = i % 10, three ways";
        spec.accepts = CLI_N | CLI_REPS | CLI_CHECK | CLI_DEVICE | CLI_BANK_MODEL;
        spec.default_n = SQUARES_N;
        spec.own_options = demo_options;
        spec.extra_help = "CPU loop, one atomicAdd per element, block tree + one atomicAdd per block; each checked\n"
                          "exactly against the closed form (285 per ten elements). n is limited so that the sum fits "
                          "an int.";
    } else {
        spec.summary = "summing an array: global memory, shared memory, atomics, warps, and the bandwidth limit "
                       "(Fan, ch. 8-10)";
        spec.accepts = CLI_N | CLI_KERNEL | CLI_TYPE | CLI_REPS | CLI_CHECK | CLI_DEVICE | CLI_BLOCK | CLI_DATA |
                       CLI_SEED | CLI_COLD_L2 | CLI_BANK_MODEL;
        spec.kernels = kernel_names;
        spec.wrong_kernels = wrong_kernel_names;
        spec.data_kinds = data_names;
        spec.default_n = BOOK_N;
        spec.own_options = own_options;
        spec.extra_help =
            "--block sets the threads per block of global ... shuffle: a power of two from 32 to 1024 (the trees\n"
            "pair blockDim.x values down to 1, shuffles need whole warps); atomic alone takes any size from 1 to\n"
            "1024; warp_unrolled needs at least 64. vector and one_launch always use 256 threads.\n"
            "warp_unrolled is wrong on purpose: the warp-synchronous race of many tutorials.\n"
            "--data const: every element 1.23 (the book); ramp: 1 + (i mod 1024)/1024; random: uniform in [0, 1)\n"
            "from --seed. Deterministic kernels are checked bit for bit against their own order on the CPU; the\n"
            "atomics and CUB against the exact sum, exactly where the data allow (ramp), else within a stated bound.\n"
            "Every output is poisoned before every launch, and the last timed launch is checked like the first.\n"
            "With global, static or dynamic selected, the run first shows the book's program and its precision\n"
            "lesson (float: 33554432, 123633392).";
    }
    cli_parse_or_exit(&spec, argc, argv, o);
    if (demo) {
        const char *value = o->own_values[0] ? o->own_values[0] : "";
        if (strcmp(value, "squares") != 0) {
            fprintf(stderr,
                    "reduce: --demo needs the name of a demo: squares (the tutorial's sum of squares), got '%s'\n",
                    value);
            exit(EXIT_BAD_COMMAND_LINE);
        }
        if (squares_closed_form(o->n) > INT_MAX) {
            fprintf(stderr, "reduce: --demo squares --n %lld: the sum of squares, %lld, does not fit in an int\n", o->n,
                    squares_closed_form(o->n));
            exit(EXIT_BAD_COMMAND_LINE);
        }
        if (o->bank_model) print_bank_model_and_exit(*o, demo);
        return 1;
    }
    if (o->own_values[0]) {
        long long launches = 0;
        if (cli_parse_count(o->own_values[0], &launches) != 0 || launches > MAX_LAUNCHES) {
            fprintf(stderr, "reduce: --launches needs a whole number from 1 to %d, got '%s'\n", MAX_LAUNCHES,
                    o->own_values[0]);
            exit(EXIT_BAD_COMMAND_LINE);
        }
        stateful_launches = (int)launches;
    }
    const unsigned tree_kernels = ONE_ELEMENT_KERNELS & ~KERNEL_BIT(KERNEL_ATOMIC); /* the trap: checked below */
    if ((o->kernel_mask & tree_kernels) && (!is_power_of_two(o->block) || o->block < 32)) {
        fprintf(stderr,
                "reduce: --block %d: global, interleaved, strided_index, static, dynamic, shared_atomic, "
                "warp_synced and shuffle need a power of two from 32 to 1024 (trees, whole warps)\n",
                o->block);
        exit(EXIT_BAD_COMMAND_LINE);
    }
    if (cli_kernel_selected(o, KERNEL_WARP_UNROLLED) && o->block < 64) {
        fprintf(stderr,
                "reduce: --block %d: warp_unrolled needs at least 64 threads (its last warp reads s_y[tid + 32])\n",
                o->block);
        exit(EXIT_BAD_COMMAND_LINE);
    }
    if (o->bank_model) print_bank_model_and_exit(*o, demo);
    return 0;
}

// ---------------------------------------------------------------------------
// The bank model (--bank-model, no GPU needed): every shared-memory
// instruction of every kernel, as the warps of one full block execute it, and
// the passes through the 32 banks that common/bank_model.h predicts from the
// byte address each lane touches. The addresses come from the kernels' own
// subscripts, evaluated on host arrays of the kernels' declared types (and
// from strided_pair_index, which the kernel calls). scripts/bank_conflicts.sh
// sets the predictions beside Nsight Compute's counts; scripts/plot.py
// --bank-maps draws the accesses listed in bank_pictures.

/* The accesses the lesson draws (docs/images/banks/PICTURE.png), at the
 * block size they are drawn for. */
static const struct {
    const char *kernel, *access;
    int threads;
    const char *picture;
} bank_pictures[] = {
    {"reduce_interleaved<float>", "s 2: s_y[tid] read", BOOK_BLOCK, "reduce_interleaved_float_s2"},
    {"reduce_strided_index<float>", "s 1: s_y[index] read", BOOK_BLOCK, "reduce_strided_index_float_s1"},
    {"reduce_strided_index<float>", "s 2: s_y[index] read", BOOK_BLOCK, "reduce_strided_index_float_s2"},
    {"reduce_strided_index<float>", "s 16: s_y[index] read", MAX_BLOCK, "reduce_strided_index_float_s16_block1024"},
    {"reduce_strided_index<double>", "s 1: s_y[index] read", BOOK_BLOCK, "reduce_strided_index_double_s1"},
    {"reduce_static<float>", "offset 64: s_y[tid + offset] read", BOOK_BLOCK, "reduce_static_float_offset64"},
    {"reduce_static<float>", "offset 8: s_y[tid + offset] read", BOOK_BLOCK, "reduce_static_float_offset8"},
    {"reduce_static<double>", "offset 64: s_y[tid + offset] read", BOOK_BLOCK, "reduce_static_double_offset64"},
};

static const char *bank_picture(const char *kernel, const char *access, int threads) {
    for (size_t i = 0; i < sizeof bank_pictures / sizeof bank_pictures[0]; ++i)
        if (bank_pictures[i].threads == threads && strcmp(bank_pictures[i].kernel, kernel) == 0 &&
            strcmp(bank_pictures[i].access, access) == 0)
            return bank_pictures[i].picture;
    return NULL;
}

/* The tutorial's two trees (interleaved, strided_index): at s = 1, 2, 4, ...
 * the threads for which works(s, tid) add s_y[b(s, tid)] to s_y[a(s, tid)]. */
template <typename real, typename index_of, typename other_of, typename works_if>
static void model_pairs_tree(const char *kernel, int threads, const char *a_name, index_of a, const char *b_name,
                             other_of b, works_if works) {
    static real s_y[MAX_BLOCK]; /* the kernels' __shared__ real s_y[MAX_BLOCK] */
    model_load(kernel, s_y, "s_y", threads);
    for (unsigned int s = 1; s < (unsigned int)threads; s *= 2) {
        char step[16];
        snprintf(step, sizeof step, "s %u", s);
        model_tree_step(
            kernel, s_y, threads, step, a_name, [=](unsigned int tid) { return a(s, tid); }, b_name,
            [=](unsigned int tid) { return b(s, tid); }, [=](unsigned int tid) { return works(s, tid); });
    }
    model_total_read(kernel, s_y, "s_y", threads);
}

/* Every kernel of one element type with shared memory; `threads` = --block
 * for the one-element kernels. global and atomic have none. */
template <typename real> static void model_kernels(int threads) {
    char kernel[64];
    snprintf(kernel, sizeof kernel, "reduce_interleaved<%s>", element_name<real>());
    model_pairs_tree<real>(
        kernel, threads, "s_y[tid]", [](unsigned int, unsigned int tid) { return tid; }, "s_y[tid + s]",
        [](unsigned int s, unsigned int tid) { return tid + s; },
        [](unsigned int s, unsigned int tid) { return tid % (2 * s) == 0; });
    snprintf(kernel, sizeof kernel, "reduce_strided_index<%s>", element_name<real>());
    model_pairs_tree<real>(
        kernel, threads, "s_y[index]", [](unsigned int s, unsigned int tid) { return strided_pair_index(s, tid); },
        "s_y[index + s]", [](unsigned int s, unsigned int tid) { return strided_pair_index(s, tid) + s; },
        [=](unsigned int s, unsigned int tid) { return strided_pair_index(s, tid) < (unsigned int)threads; });

    static const char *const halving[] = {"static", "dynamic", "shared_atomic", "warp_synced", "warp_unrolled"};
    for (int k = 0; k < 5; ++k) {
        const int unrolled = strcmp(halving[k], "warp_unrolled") == 0;
        if (unrolled && threads < 64) continue; /* it needs 64 threads: never launched with fewer */
        snprintf(kernel, sizeof kernel, "reduce_%s<%s>", halving[k], element_name<real>());
        model_halving_tree<real>(kernel, "s_y", threads, unrolled);
    }

    snprintf(kernel, sizeof kernel, "reduce_shuffle<%s>", element_name<real>());
    model_block_sum<real>(kernel, threads, "");
    snprintf(kernel, sizeof kernel, "reduce_vector<%s>", element_name<real>());
    model_block_sum<real>(kernel, FAST_THREADS, "");
    snprintf(kernel, sizeof kernel, "reduce_partials<%s>", element_name<real>());
    model_block_sum<real>(kernel, FAST_THREADS, "");

    /* one_launch: block_sum, the last-block test (a bool, one byte: thread 0
     * writes it, every thread reads it), and in the last block block_sum again. */
    snprintf(kernel, sizeof kernel, "reduce_one_launch<%s>", element_name<real>());
    model_block_sum<real>(kernel, FAST_THREADS, "");
    model_last_block_flag(kernel, FAST_THREADS);
    model_block_sum<real>(kernel, FAST_THREADS, "last block only: ");
}


/* --bank-model: the table scripts/bank_conflicts.sh and scripts/plot.py read;
 * then exit 0, before any CUDA call. */
static void print_bank_model_and_exit(const cli_options &o, int demo) {
    bank_model_picture = bank_picture;
    bank_model_header();
    if (!demo) {
        model_kernels<float>(o.block);
        model_kernels<double>(o.block);
        printf("library\tcub::\tCUB\n"); /* cub: DeviceReduce::Sum's own kernels */
    }
    model_halving_tree<int>("squares_shared", "s_squares", SQUARES_BLOCK, 0);
    exit(EXIT_ALL_PASSED);
}

// ---------------------------------------------------------------------------
// The grids and the device buffers of a run, and one switch that enqueues a
// kernel (the same call serves the checks and the timing).

template <typename real> struct device_buffers {
    long long n;
    int threads, blocks;            /* --block, ceil(n / threads): the one-element kernels */
    long long one_element_blocks;   /* ceil(n / threads), before it is known to fit a grid */
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

/* The grids (nothing allocated). vector and one_launch: as many blocks as
 * fit on the GPU at once, fewer when n is too small to give each thread a
 * vector. */
template <typename real>
static device_buffers<real> sizes_of_run(const cli_options &o, const struct cudaDeviceProp &device) {
    device_buffers<real> b;
    memset(&b, 0, sizeof b);
    b.n = o.n;
    b.threads = o.block;
    b.one_element_blocks = (b.n + b.threads - 1) / b.threads;
    const unsigned selected = o.kernel_mask;
    int vector_per_sm = 0, fast_per_sm = 0;
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&vector_per_sm, reduce_vector<real>, FAST_THREADS, 0));
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fast_per_sm, reduce_one_launch<real>, FAST_THREADS, 0));
    const long long needed = (b.n / vector16<real>::width + FAST_THREADS - 1) / FAST_THREADS;
    const long long vector_full = (long long)vector_per_sm * device.multiProcessorCount;
    const long long fast_full = (long long)fast_per_sm * device.multiProcessorCount;
    b.vector_blocks = (int)(needed < 1 ? 1 : needed < vector_full ? needed : vector_full);
    b.fast_blocks = (int)(needed < 1 ? 1 : needed < fast_full ? needed : fast_full);
    b.partial_count = 1;
    if (selected & ONE_ELEMENT_KERNELS) b.partial_count = b.one_element_blocks;
    if ((selected & KERNEL_BIT(KERNEL_VECTOR)) && b.vector_blocks > b.partial_count) b.partial_count = b.vector_blocks;
    if ((selected & KERNEL_BIT(KERNEL_ONE_LAUNCH)) && b.fast_blocks > b.partial_count) b.partial_count = b.fast_blocks;
    if (b.one_element_blocks <= INT_MAX)
        b.blocks = (int)(selected & ONE_ELEMENT_KERNELS ? b.one_element_blocks : b.partial_count);
    return b;
}

/* Exits 2 when the run does not fit the device (its memory, a grid's size);
 * else prints the configuration. */
template <typename real> static void check_sizes_and_print(const cli_options &o, const struct cudaDeviceProp &device) {
    const device_buffers<real> b = sizes_of_run<real>(o, device);
    const size_t bytes = (size_t)b.n * sizeof(real);
    const int global_runs = cli_kernel_selected(&o, KERNEL_GLOBAL);
    /* CUB's buffer is a few KB: the 16 MB margin covers it. */
    gpu_require_memory("reduce", (global_runs ? 2.0 : 1.0) * bytes + (double)b.partial_count * sizeof(real) + 16e6,
                       global_runs ? "the input and global's scratch copy" : "the input");
    if ((o.kernel_mask & ONE_ELEMENT_KERNELS) &&
        (b.one_element_blocks > device.maxGridSize[0] || b.one_element_blocks > INT_MAX)) {
        fprintf(stderr, "reduce: n = %lld needs %lld blocks of %d threads, more than a grid can have (%d)\n", b.n,
                b.one_element_blocks, b.threads, device.maxGridSize[0]);
        exit(EXIT_BAD_COMMAND_LINE);
    }
    printf("reduce: n = %lld, type = %s, data = %s\n  global to shuffle: %lld blocks x %d threads, one element "
           "each\n  vector: %d blocks x %d threads, one_launch: %d blocks x %d threads (the GPU filled once)\n\n",
           b.n, element_type_name(o.type), data_names[o.data_kind], b.one_element_blocks, b.threads, b.vector_blocks,
           FAST_THREADS, b.fast_blocks, FAST_THREADS);
}

template <typename real> static void launch(int kernel, device_buffers<real> &b) {
    const size_t shared_bytes = b.threads * sizeof(real);
    switch (kernel) {
    case KERNEL_GLOBAL: reduce_global<real><<<b.blocks, b.threads>>>(b.scratch, b.partials, b.n); break;
    case KERNEL_INTERLEAVED: reduce_interleaved<real><<<b.blocks, b.threads>>>(b.x, b.partials, b.n); break;
    case KERNEL_STRIDED_INDEX: reduce_strided_index<real><<<b.blocks, b.threads>>>(b.x, b.partials, b.n); break;
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

/* Before every launch, checked or timed (outside the timed region): every
 * output poisoned in full (the whole partials buffer, as long as the largest
 * grid that runs; the result; the total), so a launch that leaves one
 * unwritten fails even where an earlier kernel or launch left the right value
 * there; and global's input restored. */
template <typename real> static void prepare_launch(int kernel, const device_buffers<real> &b) {
    gpu_poison(b.partials, (size_t)b.partial_count * sizeof(real));
    gpu_poison(b.result, sizeof(real));
    gpu_poison(b.total, sizeof(double));
    if (kernel == KERNEL_GLOBAL) restore_scratch(b);
}

/* Before each timed launch, outside the timed region: the same, and
 * --cold-l2's flush of what the last run left in the L2. */
template <typename real>
static void before_each_timed_run(int kernel, const device_buffers<real> &b, const l2_flusher *flusher) {
    prepare_launch(kernel, b);
    l2_flush(flusher);
}

/* Where a kernel leaves its answer. */
enum { ANSWER_PARTIALS, ANSWER_TOTAL, ANSWER_RESULT };
static int answer_of(int kernel) {
    if (kernel == KERNEL_ATOMIC || kernel == KERNEL_SHARED_ATOMIC) return ANSWER_TOTAL;
    if (kernel == KERNEL_VECTOR || kernel == KERNEL_ONE_LAUNCH || kernel == KERNEL_CUB) return ANSWER_RESULT;
    return ANSWER_PARTIALS; /* the CPU adds them, in double, in order */
}

/* The host's sum of the partials, in double, in order (what the check adds). */
template <typename real> static double sum_in_double(const real *partials, long long count) {
    double sum = 0;
    for (long long i = 0; i < count; ++i)
        sum += (double)partials[i];
    return sum;
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
// The CPU's side: the input, its exact sum, and each deterministic kernel's
// order of additions replayed.

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
// the element type with the host twins of common/block_reduce.cuh (and the
// interleaved tree's, below), so its
// per-block partials and its result can be compared bit for bit. A partial
// sums a few hundred to a hundred thousand elements: one dropped, duplicated
// or misplaced element changes its bits unless the element is below half a
// unit in the last place of that partial (a float total of 1.23e8 cannot show
// one 1.23; the partial it went through can).

/* Twin of interleaved and strided_index (the same pairs in the same steps):
 * at step s, values[t] += values[t + s] for every t that is a multiple of 2s.
 * count is a power of two. Another tree than the halving tree (neighbours
 * first, not halves), so on most data other bits. */
template <typename real> static real interleaved_tree_on_cpu(real *values, int count) {
    for (int s = 1; s < count; s *= 2)
        for (int t = 0; t < count; t += 2 * s)
            values[t] += values[t + s];
    return values[0];
}

/* global ... shuffle: one element per thread (0 past n), one tree per block,
 * tree(values, threads): halving_tree_on_cpu (global, static, dynamic,
 * shared_atomic, warp_unrolled, warp_synced: the same pairs in the same
 * steps), interleaved_tree_on_cpu (interleaved, strided_index), or
 * block_sum_on_cpu (shuffle). */
template <typename real, typename block_tree_sum>
static void one_element_partials_on_cpu(const real *x, long long n, int threads, block_tree_sum tree, real *partials) {
    real values[MAX_BLOCK];
    const long long blocks = (n + threads - 1) / threads;
    for (long long b = 0; b < blocks; ++b) {
        for (int t = 0; t < threads; ++t)
            values[t] = b * threads + t < n ? x[b * threads + t] : (real)0;
        partials[b] = tree(values, threads);
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

/* What the CPU knows about the run's data. */
template <typename real> struct cpu_reference {
    const real *x;
    term_sum data;              /* the exact sum of the input                          */
    real *tree_partials;        /* the halving tree's partials, emulated (or NULL)     */
    term_sum tree_partials_sum; /* their exact sum: what shared_atomic's atomics add   */
    real *interleaved_partials; /* the interleaved tree's partials, emulated (or NULL) */
    real *shuffle_partials;     /* block_sum's partials, emulated (or NULL)            */
    int sms;                    /* for CUB's bound                                     */
};

/* The data's exact sum, and the partials of the one-element kernels that run,
 * replayed (x stays the caller's). */
template <typename real>
static cpu_reference<real> *cpu_reference_of(const real *x, const cli_options &o, const struct cudaDeviceProp &device) {
    cpu_reference<real> *ref = (cpu_reference<real> *)host_alloc("reduce", sizeof *ref, "the CPU's reference");
    memset(ref, 0, sizeof *ref);
    const long long blocks = (o.n + o.block - 1) / o.block;
    ref->x = x;
    ref->sms = device.multiProcessorCount;
    ref->data = exact_sum_of(x, o.n);
    if (o.data_kind == DATA_CONST) ref->data.sum = (long double)o.n * x[0]; /* closed form: n x 1.23 as stored */
    if (o.kernel_mask & TREE_KERNELS) {
        ref->tree_partials = (real *)host_alloc("reduce", (size_t)blocks * sizeof(real), "the emulated partials");
        one_element_partials_on_cpu(x, o.n, o.block, halving_tree_on_cpu<real>, ref->tree_partials);
        ref->tree_partials_sum = exact_sum_of(ref->tree_partials, blocks);
    }
    if (o.kernel_mask & INTERLEAVED_KERNELS) {
        ref->interleaved_partials =
            (real *)host_alloc("reduce", (size_t)blocks * sizeof(real), "the emulated partials");
        one_element_partials_on_cpu(x, o.n, o.block, interleaved_tree_on_cpu<real>, ref->interleaved_partials);
    }
    if (o.kernel_mask & KERNEL_BIT(KERNEL_SHUFFLE)) {
        ref->shuffle_partials = (real *)host_alloc("reduce", (size_t)blocks * sizeof(real), "the emulated partials");
        one_element_partials_on_cpu(x, o.n, o.block, block_sum_on_cpu<real>, ref->shuffle_partials);
    }
    return ref;
}

template <typename real> static const real *cpu_tree_partials(const cpu_reference<real> *cpu) {
    return cpu->tree_partials;
}
template <typename real> static long double cpu_exact_sum(const cpu_reference<real> *cpu) { return cpu->data.sum; }
template <typename real> static void cpu_reference_free(cpu_reference<real> *cpu) {
    free(cpu->tree_partials);
    free(cpu->interleaved_partials);
    free(cpu->shuffle_partials);
    free(cpu);
}

// ---------------------------------------------------------------------------
// Checking. All data are non-negative, so a sum whose every term passes
// through at most `chain` roundings in a row is within chain x u of exact
// (common/numerics.h).

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

/* What every launch of a kernel must leave, worked out once on the CPU.
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
template <typename real> struct expected_answer {
    double value, tolerance;  /* the value, within this relative tolerance (0: bit for bit)   */
    const real *partials;     /* deterministic kernels: every partial, bit for bit; else NULL */
    long long partial_count;  /* how many                                                     */
    real *owned;              /* partials emulated for this kernel alone (freed by the caller) */
    double exact, off, bound; /* deterministic kernels: the emulation against the exact sum   */
    char note[96];            /* the others: what the value is                                */
};

template <typename real>
static expected_answer<real> expected_of(int kernel, const cpu_reference<real> &ref, const device_buffers<real> &b,
                                         element_type type) {
    expected_answer<real> e;
    memset(&e, 0, sizeof e);
    e.exact = (double)ref.data.sum;
    switch (kernel) {
    case KERNEL_ATOMIC:
        e.value = e.exact;
        e.tolerance = atomics_tolerance(&ref.data);
        snprintf(e.note, sizeof e.note, "= the exact sum, %s",
                 e.tolerance == 0 ? "every order exact" : "any order bounded");
        return e;
    case KERNEL_SHARED_ATOMIC:
        e.value = (double)ref.tree_partials_sum.sum;
        e.tolerance = atomics_tolerance(&ref.tree_partials_sum);
        snprintf(e.note, sizeof e.note, "= the exact sum of the emulated block trees, %s",
                 e.tolerance == 0 ? "every order exact" : "any order bounded");
        return e;
    case KERNEL_CUB:
        e.value = e.exact;
        e.tolerance = cub_bound(&ref.data, type, ref.sms);
        snprintf(e.note, sizeof e.note, "= the exact sum, %s",
                 e.tolerance == 0 ? "every order exact" : "within CUB's longest chain");
        return e;
    case KERNEL_VECTOR:
    case KERNEL_ONE_LAUNCH:
        e.partial_count = kernel == KERNEL_VECTOR ? b.vector_blocks : b.fast_blocks;
        e.owned = (real *)host_alloc("reduce", (size_t)e.partial_count * sizeof(real), "the emulated partials");
        e.value = (double)vector_on_cpu(ref.x, b.n, (int)e.partial_count, e.owned);
        e.partials = e.owned;
        break;
    default: /* one element per thread: the halving trees, the interleaved ones, or block_sum (shuffle) */
        e.partials = kernel == KERNEL_SHUFFLE                   ? ref.shuffle_partials
                     : KERNEL_BIT(kernel) & INTERLEAVED_KERNELS ? ref.interleaved_partials
                                                                : ref.tree_partials;
        e.partial_count = b.blocks;
        e.value = sum_in_double(e.partials, b.blocks);
    }
    e.tolerance = 0; /* bit for bit */
    e.off = relative_error(e.value, e.exact);
    e.bound = order_bound(kernel, b, type);
    return e;
}

/* The answer a launch left, against what it must be: fills the row's check
 * (value, expected, tolerance, pass). Returns how many partials differ from
 * the CPU's, bit for bit. */
template <typename real>
static long long check_answer(result_row *row, int kernel, const device_buffers<real> &b,
                              const expected_answer<real> &e) {
    row_check(row, fetch_answer(kernel, b), e.value, e.tolerance);
    if (!e.partials) return 0;
    const long long differ = partials_differing(b.partials, e.partials, e.partial_count);
    row->pass = row->pass && e.off <= e.bound && differ == 0;
    return differ;
}

/* The first launch: the row's check, and a note with the independent truth. */
template <typename real>
static void check_first_launch(result_row *row, int kernel, const device_buffers<real> &b,
                               const expected_answer<real> &e) {
    const long long differ = check_answer(row, kernel, b, e);
    if (!e.partials) {
        row_note(row, "%s", e.note);
        return;
    }
    row_note(row, "= its order on the CPU%s; exact %.10g, off %.1e %s bound %.1e",
             differ ? ", BUT partials differ" : ", every partial too", e.exact, e.off, e.off <= e.bound ? "<=" : ">",
             e.bound);
    if (differ) printf("  %s: %lld partials differ from the CPU's\n", kernel_name(kernel), differ);
}

/* A later launch (a relaunch, or the last timed one): the same check; a
 * wrong answer fails the row. */
template <typename real>
static void check_later_launch(result_row *row, int kernel, const device_buffers<real> &b,
                               const expected_answer<real> &e, const char *which) {
    result_row later = result_row_for(row->kernel, row->type, row->n);
    const long long differ = check_answer(&later, kernel, b, e);
    if (later.pass) return;
    row->pass = 0;
    row_note(row, "BUT %s is wrong", which);
    printf("  %s: %s is wrong: value %.10g, %lld partials differ from the CPU's\n", kernel_name(kernel), which,
           later.value, differ);
}

// ---------------------------------------------------------------------------
// The progression: every selected kernel on the same data. Before each launch
// every output is poisoned in full; the first launch is checked, a stateful
// kernel is launched --launches times in a row and each launch checked; then,
// unless --check, the median time of --reps launches against the read
// ceiling measured in the same run, and the last of those launches checked
// like the first.

template <typename real>
static int progression(const cli_options &o, const struct cudaDeviceProp &device, const cpu_reference<real> *cpu) {
    const cpu_reference<real> &ref = *cpu;
    device_buffers<real> b = sizes_of_run<real>(o, device);
    const size_t bytes = (size_t)b.n * sizeof(real);
    HANDLE_ERROR(cudaMalloc((void **)&b.x, bytes));
    HANDLE_ERROR(cudaMemcpy((void *)b.x, ref.x, bytes, cudaMemcpyHostToDevice));
    if (cli_kernel_selected(&o, KERNEL_GLOBAL)) {
        HANDLE_ERROR(cudaMalloc((void **)&b.scratch, bytes));
        gpu_poison(b.scratch, bytes); /* until restore_scratch copies the input in */
    }
    HANDLE_ERROR(cudaMalloc((void **)&b.partials, (size_t)b.partial_count * sizeof(real)));
    HANDLE_ERROR(cudaMalloc((void **)&b.result, sizeof(real)));
    HANDLE_ERROR(cudaMalloc((void **)&b.total, sizeof(double)));
    HANDLE_ERROR(cudaMalloc((void **)&b.blocks_done, sizeof(unsigned int)));
    HANDLE_ERROR(cudaMemset(b.blocks_done, 0, sizeof(unsigned int)));
    HANDLE_ERROR(cub_sum<real>(NULL, &b.cub_temp_bytes, NULL, NULL, b.n));
    HANDLE_ERROR(cudaMalloc(&b.cub_temp, b.cub_temp_bytes ? b.cub_temp_bytes : 1));

    const double read_gbps = o.check_only ? 0 : gpu_read_gbps((double)bytes, o.reps);
    if (!o.check_only) report_ceiling(stdout, "reduce", "read", "a kernel that only reads, >= 256 MiB", read_gbps);
    l2_flusher flusher = l2_flusher_create(o.cold_l2 && !o.check_only);
    int best = -1;
    double best_ms = 0, cub_ms = 0;
    report rep;
    report_begin(&rep, "reduce", stdout);
    rep.cold_l2 = o.cold_l2;
    for (int k = 0; k < KERNEL_COUNT; ++k) {
        if (!cli_kernel_selected(&o, k)) continue;
        const expected_answer<real> expected = expected_of(k, ref, b, o.type);
        result_row row = result_row_for(kernel_name(k), element_type_name(o.type), b.n);
        row.bytes = bytes_counted(k, b);
        row.partials_only = answer_of(k) == ANSWER_PARTIALS;
        const int launches = KERNEL_BIT(k) & STATEFUL_KERNELS ? stateful_launches : 1;
        for (int launch_index = 1; launch_index <= launches; ++launch_index) {
            prepare_launch(k, b);
            launch(k, b);
            HANDLE_ERROR(cudaDeviceSynchronize());
            char which[48];
            snprintf(which, sizeof which, "launch %d of %d", launch_index, launches);
            if (launch_index == 1)
                check_first_launch(&row, k, b, expected);
            else
                check_later_launch(&row, k, b, expected, which);
        }
        if (!o.check_only) {
            const int reps = k == KERNEL_ATOMIC && o.reps > ATOMIC_MAX_REPS ? ATOMIC_MAX_REPS : o.reps;
            const double ms = time_median_ms(
                reps, [&] { before_each_timed_run(k, b, &flusher); }, [&] { launch(k, b); });
            check_later_launch(&row, k, b, expected, "the last timed launch");
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
    const int status = report_end(&rep);

    HANDLE_ERROR(cudaFree((void *)b.x));
    if (b.scratch) HANDLE_ERROR(cudaFree(b.scratch));
    HANDLE_ERROR(cudaFree(b.partials));
    HANDLE_ERROR(cudaFree(b.result));
    HANDLE_ERROR(cudaFree(b.total));
    HANDLE_ERROR(cudaFree(b.blocks_done));
    HANDLE_ERROR(cudaFree(b.cub_temp));
    return status;
}

// ---------------------------------------------------------------------------
// The tutorial's demo (--demo squares), as it ran: int x[i] = i % 10, N = 2^20,
// three versions with their times side by side, each checked exactly against
// the closed form. The tutorial's timer ran around cudaMalloc, the copies and
// the launch (and, as the first CUDA call of its program, possibly the
// creation of the CUDA context): we time the kernel alone with events, and
// also the tutorial's way on the host clock (the context already exists).
// Every launch whose time is reported is checked.

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

/* The total a launch left (poisoned to -1 before the launch, outside the
 * launch's own memset, so a launch that writes nothing shows). */
static int squares_result(int version, const int *d_x, int *d_total, int n) {
    int sum = 0;
    gpu_poison(d_total, sizeof(int));
    squares_launch(version, d_x, d_total, n);
    HANDLE_ERROR(cudaMemcpy(&sum, d_total, sizeof(int), cudaMemcpyDeviceToHost));
    return sum;
}

/* The tutorial's timer: allocation, copy in, launch, copy out, free. Counts
 * the runs whose sum is not `expected` in *wrong. */
static double squares_tutorial_ms(int version, const int *x, int n, int reps, long long expected, int *wrong) {
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
        *wrong += sum != expected;
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
        int sum = 0, wrong = 0; /* wrong: later launches (a relaunch, the last timed one) whose sum is not right */
        double ms = 0, tutorial_ms = 0,
               *times = (double *)host_alloc("reduce", (size_t)o.reps * sizeof(double), "the timings");
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
            sum = squares_result(version, d_x, d_total, n);
            wrong += squares_result(version, d_x, d_total, n) != expected; /* a second launch: the total reset */
            if (!o.check_only) {
                ms = time_median_ms(
                    o.reps, [&] { gpu_poison(d_total, sizeof(int)); },
                    [&] { squares_launch(version, d_x, d_total, n); });
                int last = 0;
                HANDLE_ERROR(cudaMemcpy(&last, d_total, sizeof(int), cudaMemcpyDeviceToHost));
                wrong += last != expected;
                tutorial_ms = squares_tutorial_ms(version, x, n, o.reps, expected, &wrong);
            }
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
                         tutorial_ms, tutorial_us[version]);
        }
        if (wrong) {
            row.pass = 0;
            row_note(&row, "BUT %d later launch(es) wrong", wrong);
        }
        report_add(&rep, &row);
    }
    HANDLE_ERROR(cudaFree(d_x));
    HANDLE_ERROR(cudaFree(d_total));
    free(x);
    return report_end(&rep);
}
