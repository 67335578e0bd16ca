/* ch05_dot: the dot product with a per-block shared-memory cache
 * (CUDA by Example, ch. 5, "Shared Memory and Synchronization": Dot Product).
 *
 * What it teaches: the threads of one block cooperate through __shared__
 * memory; __syncthreads() makes every thread wait until the whole block has
 * written; a halving tree sums the block's values in log2(blockDim) steps; and
 * every thread of the block must reach every barrier of that tree. Then how one
 * launch ends in one number (a fence and an atomic ticket), and how a dot reads
 * at the memory's bandwidth (16-byte loads, warp shuffles).
 *
 * Build this file alone, from its folder:
 *   nvcc -O3 -I../common dot.cu -o dot -lcublas
 * Run it: ./dot (the book's program, then each kernel at the book's size), ./dot --help
 *
 * Kernels, in teaching order (the deliberately wrong ones run only when named):
 *   book                           CbE's kernel; the CPU adds the blocks' partial sums
 *   one_launch                     the same, and the last block to finish adds the partials
 *   fast                           16-byte loads, two in flight, warp shuffles, one wave of blocks
 *   cublas                         cublasSdot / cublasDdot: what a professional would call
 *   barrier_in_if                  wrong: the tree's __syncthreads() inside the if; it runs all the same
 *   barrier_deadlock               wrong: that tree twice in one block; the block hangs (exit 4)
 *   barrier_first_warp             wrong: a tutorial's if (threadIdx.x < 32) { ...; __syncthreads(); }
 *   barrier_first_warp_then_block  wrong: the same, then a block-wide __syncthreads() */
#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>

#include "book.h"       /* HANDLE_ERROR, HANDLE_NULL, CHECK_LAUNCH, gpu_poison */
#include "vector16.cuh" /* vector16<real>: float4 or double2, 16 bytes a load */

#include "ceiling.cuh" /* these five: the harness, below main */
#include "cli.h"
#include "bank_model.h"
#include "numerics.h"
#include "report.h"

#define BOOK_N (33 * 1024)                 /* N: 33792 elements                           */
#define BOOK_THREADS 256                   /* threadsPerBlock                              */
#define BOOK_MAX_BLOCKS 32                 /* blocksPerGrid = imin(32, ceil(N / 256)) = 32 */
#define imin(a, b) ((a) < (b) ? (a) : (b)) /* the book's */
#define MAX_THREADS 1024                   /* the largest block: the static size of the shared cache */
#define FAST_THREADS 256                   /* fast's block */

// ---------------------------------------------------------------------------
// Kernel 1, book: CbE's dot, line for line. Each thread sums its products in
// temp, the block meets in the shared cache, and a halving tree leaves the
// block's sum in cache[0]. The tree halves i, so blockDim.x must be a power of
// two, and its barrier sits outside the if: every thread must reach it.
// Generalised only as the lesson needs: a template for double, N a parameter, a long long tid past 2^31.

template <typename real> __global__ void dot_book(const real *a, const real *b, real *c, long long N) {
    __shared__ real cache[MAX_THREADS]; /* the book's [threadsPerBlock]: a block uses blockDim.x of it */
    long long tid = threadIdx.x + blockIdx.x * (long long)blockDim.x;
    int cacheIndex = threadIdx.x;

    real temp = 0;
    while (tid < N) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * (long long)gridDim.x;
    }

    cache[cacheIndex] = temp; // bank: cache[tid] write (the block's elements)
    __syncthreads();

    int i = blockDim.x / 2;
    while (i != 0) {
        if (cacheIndex < i) cache[cacheIndex] += cache[cacheIndex + i]; // bank: cache[tid] += cache[tid + i]
        __syncthreads();
        i /= 2;
    }

    if (cacheIndex == 0) c[blockIdx.x] = cache[0];
}

// ---------------------------------------------------------------------------
// Kernel 2, one_launch: the book's kernel, but the last block to finish adds
// the partials: one launch gives one number, in an order fixed on every run
// (Fan ch. 9). How a block knows it is the last: a fence, then a ticket.

/* Thread 0 stores the block's partial, makes it visible to every block, then
 * takes a ticket: the block that draws the last one knows every partial is
 * stored, and gets true in all its threads. */
template <typename real>
__device__ __forceinline__ bool store_partial_and_check_last(real block_total, real *partials,
                                                             unsigned int *blocks_done) {
    __shared__ bool s_is_last_block;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = block_total;
        __threadfence(); /* the partial is visible to every block before the ticket is taken */
        s_is_last_block = atomicAdd(blocks_done, 1u) == gridDim.x - 1;
        if (s_is_last_block) __threadfence(); /* and the last block's reads come after its ticket */
    }
    __syncthreads();
    return s_is_last_block;
}

/* In the last block: this thread's share of the partials. __ldcg reads through
 * L2, where the other blocks' stores are, never a stale L1 line. */
template <typename real> __device__ __forceinline__ real sum_my_partials(const real *partials, unsigned int count) {
    real sum = 0;
    for (unsigned int i = threadIdx.x; i < count; i += blockDim.x)
        sum += __ldcg(&partials[i]);
    return sum;
}

template <typename real>
__global__ void dot_one_launch(const real *a, const real *b, real *partials, unsigned int *blocks_done, real *result,
                               long long N) {
    __shared__ real cache[MAX_THREADS];
    long long tid = threadIdx.x + blockIdx.x * (long long)blockDim.x;
    int cacheIndex = threadIdx.x;

    real temp = 0;
    while (tid < N) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * (long long)gridDim.x;
    }

    cache[cacheIndex] = temp;
    __syncthreads();

    int i = blockDim.x / 2;
    while (i != 0) {
        if (cacheIndex < i) cache[cacheIndex] += cache[cacheIndex + i]; // bank: cache[tid] += cache[tid + i]
        __syncthreads();
        i /= 2;
    }

    if (store_partial_and_check_last(cache[0], partials, blocks_done)) { /* the last block: the tree again */
        cache[cacheIndex] = sum_my_partials(partials, gridDim.x);
        __syncthreads();
        i = blockDim.x / 2;
        while (i != 0) {
            if (cacheIndex < i) cache[cacheIndex] += cache[cacheIndex + i]; // bank: cache[tid] += cache[tid + i]
            __syncthreads();
            i /= 2;
        }
        if (cacheIndex == 0) {
            *result = cache[0];
            *blocks_done = 0; /* the ticket counter, ready for the next launch */
        }
    }
}

// ---------------------------------------------------------------------------
// Kernel 3, fast: the dot reads 2n elements for 2n flops, so memory bandwidth
// is its limit. 16-byte loads, two of them in flight per thread (Fan chs. 7,
// 10); warp shuffles instead of the shared tree (fewer barriers, ch. 10); and
// exactly as many blocks as fit on the GPU at once: few partials, no tail.

/* Sum over the 32 lanes of a warp through register shuffles: no shared memory,
 * no barrier (since Volta, the _sync form with its mask). The total is in lane 0. */
template <typename real> __device__ __forceinline__ real warp_sum(real value) {
    for (int offset = 16; offset > 0; offset /= 2)
        value += __shfl_down_sync(0xffffffffu, value, offset);
    return value;
}

/* Sum over a whole block (blockDim.x a multiple of 32): each warp shuffles, the
 * warps' sums meet in shared memory, warp 0 shuffles them. Valid in thread 0. */
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

/* Adds a vector's products to a sum, lane after lane, each fused into the sum
 * with one rounding (fma): a fixed order that the CPU check can repeat. */
__device__ __forceinline__ float add_products(float sum, float4 x, float4 y) {
    return fmaf(x.w, y.w, fmaf(x.z, y.z, fmaf(x.y, y.y, fmaf(x.x, y.x, sum))));
}
__device__ __forceinline__ double add_products(double sum, double2 x, double2 y) {
    return fma(x.y, y.y, fma(x.x, y.x, sum));
}

template <typename real>
__global__ void __launch_bounds__(FAST_THREADS)
    dot_fast(const real *__restrict__ a, const real *__restrict__ b, real *partials, unsigned int *blocks_done,
             real *result, long long n) {
    typedef typename vector16<real>::type vector;
    const int width = vector16<real>::width;
    const vector *a_vectors = reinterpret_cast<const vector *>(a);
    const vector *b_vectors = reinterpret_cast<const vector *>(b);
    const long long vectors = n / width;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long thread = blockIdx.x * (long long)blockDim.x + threadIdx.x;

    real sum0 = 0, sum1 = 0;
    long long i = thread;
    for (; i + stride < vectors; i += 2 * stride) {
        vector x0 = a_vectors[i], y0 = b_vectors[i];
        vector x1 = a_vectors[i + stride], y1 = b_vectors[i + stride];
        sum0 = add_products(sum0, x0, y0);
        sum1 = add_products(sum1, x1, y1);
    }
    if (i < vectors) sum0 = add_products(sum0, a_vectors[i], b_vectors[i]);
    const long long tail = vectors * width + thread; /* the last n % width elements */
    if (tail < n) sum1 = fma(a[tail], b[tail], sum1);

    real block_total = block_sum(sum0 + sum1);
    if (store_partial_and_check_last(block_total, partials, blocks_done)) {
        real total = block_sum(sum_my_partials(partials, gridDim.x));
        if (threadIdx.x == 0) {
            *result = total;
            *blocks_done = 0;
        }
    }
}

// ---------------------------------------------------------------------------
// Deliberately wrong 1, barrier_in_if: the book's kernel with the tree's barrier
// moved inside the if, as a reader of the book tried ("no error, the right
// result"). Only the threads that add reach it: undefined behaviour by the
// Programming Guide. It happens to work on today's GPUs: a barrier never waits
// for threads that have exited (since Volta it counts threads, not warps), and
// the threads that skip it have no other barrier ahead: they exit.

template <typename real> __global__ void dot_barrier_in_if(const real *a, const real *b, real *c, long long N) {
    __shared__ real cache[MAX_THREADS];
    long long tid = threadIdx.x + blockIdx.x * (long long)blockDim.x;
    int cacheIndex = threadIdx.x;

    real temp = 0;
    while (tid < N) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * (long long)gridDim.x;
    }

    cache[cacheIndex] = temp;
    __syncthreads();

    int i = blockDim.x / 2;
    while (i != 0) {
        if (cacheIndex < i) {
            cache[cacheIndex] += cache[cacheIndex + i];
            __syncthreads(); /* WRONG: the threads at or above i never arrive */
        }
        i /= 2;
    }

    if (cacheIndex == 0) c[blockIdx.x] = cache[0];
}

// ---------------------------------------------------------------------------
// Deliberately wrong 2, barrier_deadlock: one block needs two sums, a.b and a.a
// (as for the angle between a and b), in the same cache. With the barrier inside
// the if, the threads that skip the first tree's barriers wait at the one before
// the second tree, the others at theirs: the block never finishes. With the
// book's tree (barrier_in_if = false) the same kernel is correct.

template <typename real, bool barrier_in_if>
__global__ void dot_and_norm_one_block(const real *a, const real *b, real *results, long long N) {
    __shared__ real cache[MAX_THREADS];
    int cacheIndex = threadIdx.x;
    real dot = 0, norm = 0;
    for (long long tid = threadIdx.x; tid < N; tid += blockDim.x) {
        dot += a[tid] * b[tid];
        norm += a[tid] * a[tid];
    }

    cache[cacheIndex] = dot;
    __syncthreads();
    int i = blockDim.x / 2;
    while (i != 0) {
        if (cacheIndex < i) {
            cache[cacheIndex] += cache[cacheIndex + i];
            if (barrier_in_if) __syncthreads(); /* WRONG */
        }
        if (!barrier_in_if) __syncthreads();
        i /= 2;
    }
    if (cacheIndex == 0) results[0] = cache[0];

    cache[cacheIndex] = norm; /* the cache, reused for the second sum */
    __syncthreads();
    i = blockDim.x / 2;
    while (i != 0) {
        if (cacheIndex < i) {
            cache[cacheIndex] += cache[cacheIndex + i];
            if (barrier_in_if) __syncthreads(); /* WRONG */
        }
        if (!barrier_in_if) __syncthreads();
        i /= 2;
    }
    if (cacheIndex == 0) results[1] = cache[0];
}

// ---------------------------------------------------------------------------
// Deliberately wrong 3 and 4, barrier_first_warp and barrier_first_warp_then_block:
// a Chinese tutorial's example of a deadlock, if (threadIdx.x < 32) { ...;
// __syncthreads(); }: the book's tree down to 32 values, the first warp adds
// them, then waits at a barrier only it reaches (_then_block: one more after).

template <typename real, bool block_barrier_after>
__global__ void dot_barrier_first_warp(const real *a, const real *b, real *c, long long N) {
    __shared__ real cache[MAX_THREADS];
    long long tid = threadIdx.x + blockIdx.x * (long long)blockDim.x;
    int cacheIndex = threadIdx.x;

    real temp = 0;
    while (tid < N) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * (long long)gridDim.x;
    }

    cache[cacheIndex] = temp;
    __syncthreads();

    int i = blockDim.x / 2;
    while (i >= 32) { /* the book's tree, down to 32 values */
        if (cacheIndex < i) cache[cacheIndex] += cache[cacheIndex + i]; // bank: cache[tid] += cache[tid + i]
        __syncthreads();
        i /= 2;
    }
    if (cacheIndex < 32) { /* the tutorial's shape */
        for (i = 16; i != 0; i /= 2) {
            if (cacheIndex < i) cache[cacheIndex] += cache[cacheIndex + i]; // bank: cache[tid] += cache[tid + i]
            __syncwarp(); /* the warp's own barrier: all these steps need */
        }
        __syncthreads(); /* WRONG: only the first warp arrives here */
    }
    if (block_barrier_after) __syncthreads(); /* _then_block: the other warps wait here */

    if (cacheIndex == 0) c[blockIdx.x] = cache[0];
}

// ---------------------------------------------------------------------------
// main: the book's program, then the progression. What it calls beyond the
// book's lines is defined below the divider:
/* the options: --help, --bank-model, and exit 2 on a bad command line */
static void parse_options(int argc, char **argv, cli_options *o);
/* our verdict on the book's program, the "Checked: ..." line */
static int check_book_program(const float *a, const float *b, float c, const float *dev_partial_c, int blocks);
/* every kernel the options select, checked and timed: the table (or --part cpu_sum) */
static int run_progression(const cli_options *o, const struct cudaDeviceProp *device);

int main(int argc, char **argv) {
    cli_options o;
    parse_options(argc, argv, &o);
    struct cudaDeviceProp device;
    gpu_select_device("dot", o.device, &device);
    gpu_require_memory("dot", 2.0 * (double)o.n * (double)element_size(o.type) + 256.0 * (1 << 20),
                       "the two input vectors (and cuBLAS's workspace)");

    // The book's program, in its straight line: N = 33792 floats, 32 blocks of 256 threads.
    const int blocks = imin(BOOK_MAX_BLOCKS, (BOOK_N + BOOK_THREADS - 1) / BOOK_THREADS);
    float *a = (float *)malloc(BOOK_N * sizeof(float));
    HANDLE_NULL(a);
    float *b = (float *)malloc(BOOK_N * sizeof(float));
    HANDLE_NULL(b);
    float *partial_c = (float *)malloc(blocks * sizeof(float));
    HANDLE_NULL(partial_c);
    for (int i = 0; i < BOOK_N; ++i) {
        a[i] = i;
        b[i] = i * 2;
    }
    float *dev_a, *dev_b, *dev_partial_c;
    HANDLE_ERROR(cudaMalloc((void **)&dev_a, BOOK_N * sizeof(float)));
    HANDLE_ERROR(cudaMalloc((void **)&dev_b, BOOK_N * sizeof(float)));
    HANDLE_ERROR(cudaMalloc((void **)&dev_partial_c, blocks * sizeof(float)));
    HANDLE_ERROR(cudaMemcpy(dev_a, a, BOOK_N * sizeof(float), cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMemcpy(dev_b, b, BOOK_N * sizeof(float), cudaMemcpyHostToDevice));
    gpu_poison(dev_partial_c, blocks * sizeof(float)); /* NaN: a partial the kernel did not write fails */
    dot_book<<<blocks, BOOK_THREADS>>>(dev_a, dev_b, dev_partial_c, BOOK_N);
    CHECK_LAUNCH();
    HANDLE_ERROR(cudaMemcpy(partial_c, dev_partial_c, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    float c = 0; /* the CPU adds the blocks' partial sums */
    for (int i = 0; i < blocks; ++i)
        c += partial_c[i];
    const float x = (float)(BOOK_N - 1); /* the book's closed form, 2 x sum_squares(N - 1), in float */
    printf("Does GPU value %.6g = %.6g?\n", c, 2 * (x * (x + 1) * (2 * x + 1) / 6));

    /* Our verdict: the CPU repeats the kernel's order exactly, and the exact value stands beside it. */
    const int book_passed = check_book_program(a, b, c, dev_partial_c, blocks);
    HANDLE_ERROR(cudaFree(dev_a));
    HANDLE_ERROR(cudaFree(dev_b));
    HANDLE_ERROR(cudaFree(dev_partial_c));
    free(a);
    free(b);
    free(partial_c);

    // The progression: every kernel the options select, checked, then timed. Or, with
    // --part cpu_sum, the book's reason for adding the partials on the CPU put to the test:
    // its whole round trip (launch, copy the partials back, add them) against one_launch's.
    const int status = run_progression(&o, &device);
    return book_passed ? status : EXIT_WRONG_RESULT;
}

// ===== Harness: below this line, not needed to follow the lesson =====

#include "cpu_replays.cuh" /* the CPU replays of the kernels' sums */

#define DEADLOCK_LIMIT_S(ms) (3.0 + 20 * (ms) / 1e3) /* a kernel that may hang: waited 3 s + 20 x the correct one */
enum { KERNEL_BOOK, KERNEL_ONE_LAUNCH, KERNEL_FAST, KERNEL_CUBLAS, KERNEL_BARRIER_IN_IF, KERNEL_BARRIER_DEADLOCK };
enum { KERNEL_BARRIER_FIRST_WARP = KERNEL_BARRIER_DEADLOCK + 1, KERNEL_BARRIER_FIRST_WARP_THEN_BLOCK, KERNEL_COUNT };
static const char *const kernel_names[] = {"book", "one_launch", "fast", "cublas", NULL};
static const char *const wrong_kernel_names[] = {"barrier_in_if", "barrier_deadlock", "barrier_first_warp",
                                                 "barrier_first_warp_then_block", NULL};
static const char *kernel_name(int kernel) {
    return kernel < KERNEL_BARRIER_IN_IF ? kernel_names[kernel] : wrong_kernel_names[kernel - KERNEL_BARRIER_IN_IF];
}
enum { DATA_BOOK, DATA_PERIODIC };
static const char *const data_names[] = {"book", "periodic", NULL};

/* A run's GPU side: the grids, a, b, the outputs (2 results: barrier_deadlock's), the ticket counter. */
template <typename real> struct dot_run {
    long long n;
    int blocks, threads, fast_blocks;
    real *dev_a, *dev_b, *dev_partials, *dev_results;
    unsigned int *dev_blocks_done;
    cublasHandle_t cublas;
};

/* --bank-model: the kernels on the CPU runner, both types unless --type says one; the lesson's pictures, at
 * 256 threads: the store cache[tid] and the tree's step at i = 16 (half a warp). */
static const bank_picture dot_pictures[] = {
    {"dot_book<float>", "cache[tid] write (the block's elements)", "dot_book_float_store", 0},
    {"dot_book<float>", "cache[tid] += cache[tid + i] (16 lanes)", "dot_book_float_half16", 0},
    {"dot_book<double>", "cache[tid] write (the block's elements)", "dot_book_double_store", 0},
    {"dot_book<double>", "cache[tid] += cache[tid + i] (16 lanes)", "dot_book_double_half16", 0},
    {NULL, NULL, NULL, 0}};
template <typename real> static void launch(int kernel, const dot_run<real> *r);
template <typename real>
static real dot_book_cpu(bool last_block_adds, const real *a, const real *b, long long n, int blocks, int threads,
                         real *partials);
template <typename real>
static real dot_fast_cpu(const real *a, const real *b, long long n, int blocks, real *partials);
static void check_bits(result_row *row, double value, double emulated, long long partials_differ, long double exact,
                       double bound);
static double check_bound(element_type type, int kernel, long long n, int blocks, int threads, int fast_blocks);
template <typename real>
static void check_cublas_probe(result_row *row, const dot_run<real> *r, const real *a, const real *b);

// ----- options -----
static const cli_own_option own_options[] = {
    {"--part", "P",
     "progression (default): the kernels --kernel selects, checked and timed; cpu_sum: the\n"
     "                       book's round trip (book, copy the partials back, the CPU adds them) against\n"
     "                       one_launch's (copy the result back), each checked, timed on the host's clock"},
    {NULL, NULL, NULL}};

static int cpu_sum_asked(const cli_options *o) { return o->own_values[0] && strcmp(o->own_values[0], "cpu_sum") == 0; }

static void parse_options(int argc, char **argv, cli_options *o) {
    cli_spec spec = {};
    spec.program = "dot";
    spec.own_options = own_options;
    spec.summary = "dot product with a per-block shared-memory cache (CUDA by Example, ch. 5)";
    spec.accepts = CLI_N | CLI_KERNEL | CLI_TYPE | CLI_REPS | CLI_CHECK | CLI_DEVICE | CLI_BLOCK | CLI_DATA |
                   CLI_COLD_L2 | CLI_BANK_MODEL;
    spec.kernels = kernel_names;
    spec.wrong_kernels = wrong_kernel_names;
    spec.data_kinds = data_names;
    spec.default_n = BOOK_N;
    spec.default_block = BOOK_THREADS;
    spec.extra_help =
        "--block sets the threads per block of book and one_launch: a power of two from 32 to 1024,\n"
        "because the halving tree halves blockDim.x until 1. fast always uses 256 threads.\n"
        "--data book: a[i] = i, b[i] = 2i (the book); periodic: a[i] = i mod 4093, b[i] = 4092 - i mod 4093,\n"
        "exact in float at any n.\n"
        "The book's own program (N = 33792, float) always runs first; the options set what follows it.\n"
        "--part cpu_sum times the whole round trip on the host's clock and says which is faster, and by how much;\n"
        "--n, --type, --data, --block, --reps, --check and --cold-l2 apply to it as to the progression.";
    spec.exit_codes = "  4  --kernel barrier_deadlock hung its block, as it is meant to, or barrier_first_warp or\n"
                      "     barrier_first_warp_then_block hung theirs (neither did on an H100); the program ended it";
    spec.block_rule = "the halving tree needs a power of two from 32 to 1024";
    cli_parse_or_exit(&spec, argc, argv, o);
    if (!is_power_of_two(o->block) || o->block < 32) cli_exit_bad("dot", "--block %d: %s", o->block, spec.block_rule);
    const char *part = o->own_values[0];
    if (part && strcmp(part, "progression") != 0 && strcmp(part, "cpu_sum") != 0)
        cli_exit_bad("dot", "--part %s: the parts are progression (the default) and cpu_sum", part);
    if (o->bank_model) /* before any CUDA call */
        bank_model_observe(spec.program, argc, argv, bank_model_both_types, dot_pictures,
                           "library\tdot_kernel<\tcuBLAS\nlibrary\treduce_1Block_kernel<\tcuBLAS\n");
    const unsigned every_correct_kernel = (1u << KERNEL_BARRIER_IN_IF) - 1; /* what no --kernel selects */
    if (cpu_sum_asked(o) && o->kernel_mask != every_correct_kernel)
        cli_exit_bad("dot", "--part cpu_sum runs book and one_launch itself: leave out --kernel");
}

// ----- the run -----
/* A kernel that may hang, watched on the host's clock. If it still runs: the table so far, and exit 4 (ending
 * the process ends the hung kernel; the event stays, the kernel holds the device). */
static void end_if_hung(double limit, result_row *row, report *rep, const char *who, const char *what) {
    cudaEvent_t done;
    HANDLE_ERROR(cudaEventCreate(&done));
    HANDLE_ERROR(cudaEventRecord(done, 0));
    if (!finished_within(done, limit)) {
        printf("  %s: %s: after %.1f s it has not finished. Exit %d: ending the process ends the hung kernel.\n", who,
               what, limit, EXIT_DEADLOCK);
        row_note(row, "%s: unfinished after %.1f s", what, limit);
        row->pass = 0;
        report_add(rep, row);
        report_end(rep); /* flushes stdout */
        _exit(EXIT_DEADLOCK);
    }
    HANDLE_ERROR(cudaEventDestroy(done));
}

/* barrier_deadlock: first with the book's tree (the CPU's sums; its time sets the limit), then the wrong one. */
template <typename real>
static void demonstrate_deadlock(result_row *row, const real *a, const real *b, dot_run<real> *r, report *rep) {
    real partial; /* one block: its partial is its sum */
    const real dot = dot_book_cpu(false, a, b, r->n, 1, r->threads, &partial),
               norm = dot_book_cpu(false, a, a, r->n, 1, r->threads, &partial);
    real results[2];
    const double ms = time_median_ms(
        1, [&] { gpu_poison(r->dev_results, sizeof results); },
        [&] { dot_and_norm_one_block<real, false><<<1, r->threads>>>(r->dev_a, r->dev_b, r->dev_results, r->n); });
    for (int wrong = 0; wrong < 2 && (wrong == 0 || row->pass); ++wrong) {
        if (wrong) { /* the book's tree gave the CPU's sums: now the barrier inside the if */
            gpu_poison(r->dev_results, sizeof results);
            launch(KERNEL_BARRIER_DEADLOCK, r);
            end_if_hung(DEADLOCK_LIMIT_S(ms), row, rep, "With the barrier inside the if", "the block deadlocked");
        }
        HANDLE_ERROR(cudaMemcpy(results, r->dev_results, sizeof results, cudaMemcpyDeviceToHost));
        row_check(row, results[0], dot, 0);
        row->pass = row->pass && results[1] == norm;
        if (wrong)
            printf("  With the barrier inside the if it did NOT deadlock this time: a.b = %.10g, a.a = %.10g.\n",
                   (double)results[0], (double)results[1]);
        else
            printf("  barrier_deadlock: one block of %d threads sums a.b, then a.a in the same shared cache.\n  With "
                   "the book's tree (the barrier outside the if) it took %.3f ms and gave a.b = %.10g, a.a = %.10g:\n"
                   "  %s.\n",
                   r->threads, ms, (double)results[0], (double)results[1],
                   row->pass ? "the CPU's sums, bit for bit" : "NOT the CPU's sums (so the wrong kernel is not run)");
    }
    row_note(row, "a.a = %.10g, the CPU's %.10g", (double)results[1], (double)norm);
    report_add(rep, row);
}

/* Bytes the GB/s figure counts: the 2n inputs, plus the partials (one_launch's and fast's read back by the last
 * block) and results each kernel writes. The ticket's atomics are not counted. */
static double bytes_counted(int kernel, long long n, size_t size, int blocks, int fast_blocks) {
    const double written = kernel == KERNEL_ONE_LAUNCH         ? 2.0 * blocks + 1
                           : kernel == KERNEL_FAST             ? 2.0 * fast_blocks + 1
                           : kernel == KERNEL_CUBLAS           ? 1
                           : kernel == KERNEL_BARRIER_DEADLOCK ? 2
                                                               : blocks;
    return 2.0 * (double)n * (double)size + written * size;
}

/* What barrier_in_if and the tutorial's kernels showed, after their rows, in short: the lesson says more. */
static void explain_barrier(int kernel, int same_bits, double limit) {
    if (kernel != KERNEL_BARRIER_IN_IF)
        printf("  %s: finished within the %.1f s limit, %s.\n", kernel_name(kernel), limit,
               same_bits ? "with the same bits as the book's order" : "but NOT with the bits of the book's order");
    printf("  %s: %s.\n", kernel_name(kernel),
           !same_bits ? "NOT the book's order on this GPU: the undefined behaviour at work"
           : kernel == KERNEL_BARRIER_IN_IF
               ? "the book's bits, with __syncthreads() inside if (cacheIndex < i). It happens to work here: a "
                 "barrier never waits for threads that have exited (--kernel barrier_deadlock: not always)"
           : kernel == KERNEL_BARRIER_FIRST_WARP
               ? "only the first warp reaches the barrier inside the if; the others exit, and a barrier does not wait "
                 "for threads that have exited"
               : "both barriers are barrier 0, which counts warps, not lines: no hang, but synccheck reports the "
                 "other warps' threads as divergent");
}

/* cuBLAS's order is not documented: every order of these non-negative integers is exact below 2^24 (float) or
 * 2^53; above, only the serial bound gamma(n + 2) holds for every order (Higham 3.1). Nothing capped. */
static double cublas_tolerance(long long n, long double exact, element_type type) {
    if (every_order_exact(exact, 0, type == ELEMENT_DOUBLE ? 53 : 24)) return 0; /* integers: grain 2^0 */
    const double k_u = (double)(n + 2) * unit_roundoff(type);
    return k_u < 1 ? k_u / (1 - k_u) : INFINITY;
}

/* Every selected kernel, checked, then timed (CUDA events around the launch only): every launch checked, the
 * timed ones too, each after the outputs were poisoned. --part cpu_sum: round trips on the host's clock. */
template <typename real> static int run(const cli_options *o, const struct cudaDeviceProp *device) {
    const long long n = o->n;
    const size_t bytes = (size_t)n * sizeof(real);
    const int cpu_sum = cpu_sum_asked(o), reps = o->check_only ? 0 : o->reps;
    int blocks_per_sm = 0; /* fast: one wave of blocks, or fewer if n is small */
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, dot_fast<real>, FAST_THREADS, 0));
    const long long fast_needed = (n / vector16<real>::width + FAST_THREADS - 1) / FAST_THREADS;
    const long long fast_wave = (long long)blocks_per_sm * device->multiProcessorCount;
    const int fast_blocks = (int)(fast_needed < 1 ? 1 : fast_needed < fast_wave ? fast_needed : fast_wave);
    const int blocks = (int)imin((n + o->block - 1) / o->block, (long long)BOOK_MAX_BLOCKS), threads = o->block;
    const char *type = element_type_name(o->type), *data = data_names[o->data_kind];
    if (cpu_sum)
        printf("\ndot --part cpu_sum: n = %lld, type = %s, data = %s, book and one_launch: %d blocks x %d threads\n\n",
               n, type, data, blocks, threads);
    else
        printf("\ndot: n = %lld, type = %s, data = %s, book/one_launch: %d blocks x %d threads, fast: %d blocks x %d "
               "threads\n%s",
               n, type, data, blocks, threads, fast_blocks, FAST_THREADS, o->check_only ? "\n" : "");
    double ceiling = 0; /* one array of both arrays' bytes (read); two side by side (read2) beside it */
    if (!cpu_sum && !o->check_only) {
        ceiling = gpu_read_gbps(2.0 * bytes, o->reps);
        report_ceiling(stdout, "dot", "read", "a kernel that only reads, one array of a's and b's bytes, >= 256 MiB",
                       ceiling);
        report_ceiling(stdout, "dot", "read2",
                       "the same reading two arrays side by side: not the ceiling, see the lesson",
                       gpu_read2_gbps((double)bytes, o->reps));
    }
    real *a = (real *)host_alloc("dot", bytes, "the input vector a");
    real *b = (real *)host_alloc("dot", bytes, "the input vector b");
    for (long long i = 0, m = 0; i < n; ++i, m = m + 1 == DOT_PERIOD ? 0 : m + 1) { /* m: i mod DOT_PERIOD */
        a[i] = o->data_kind == DATA_BOOK ? (real)i : (real)m; /* --data periodic: exact floats past 2^24 */
        b[i] = o->data_kind == DATA_BOOK ? (real)(2 * i) : (real)(DOT_PERIOD - 1 - m);
    }
    const long double exact = o->data_kind == DATA_BOOK ? dot_book_closed_form(n) : dot_periodic_closed_form(n);
    const int max_partials = blocks > fast_blocks ? blocks : fast_blocks;
    dot_run<real> r = {n, blocks, threads, fast_blocks, NULL, NULL, NULL, NULL, NULL, NULL};
    HANDLE_ERROR(cudaMalloc((void **)&r.dev_a, bytes));
    HANDLE_ERROR(cudaMalloc((void **)&r.dev_b, bytes));
    HANDLE_ERROR(cudaMalloc((void **)&r.dev_partials, max_partials * sizeof(real)));
    HANDLE_ERROR(cudaMalloc((void **)&r.dev_results, 2 * sizeof(real)));
    HANDLE_ERROR(cudaMalloc((void **)&r.dev_blocks_done, sizeof(unsigned int)));
    HANDLE_ERROR(cudaMemset(r.dev_blocks_done, 0, sizeof(unsigned int))); /* then the kernels' own to reset */
    /* Every output buffer, NaN: a launch that leaves one unwritten fails. */
    auto poison_outputs = [&] {
        gpu_poison(r.dev_partials, max_partials * sizeof(real));
        gpu_poison(r.dev_results, 2 * sizeof(real));
    };
    HANDLE_ERROR(cudaMemcpy(r.dev_a, a, bytes, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMemcpy(r.dev_b, b, bytes, cudaMemcpyHostToDevice));
    real *twin_partials = (real *)host_alloc("dot", max_partials * sizeof(real), "the CPU's partials");
    real *gpu_partials = (real *)host_alloc("dot", blocks * sizeof(real), "the partial sums");
    double *times = (double *)host_alloc("dot", sizeof(double) * (size_t)(reps > 0 ? reps : 1), "the round trips");
    double round_trip_ms[2] = {0, 0};
    if (!cpu_sum) HANDLE_CUBLAS(cublasCreate(&r.cublas));
    if (!cpu_sum) HANDLE_CUBLAS(cublasSetPointerMode(r.cublas, CUBLAS_POINTER_MODE_DEVICE));
    l2_flusher flusher = l2_flusher_create(o->cold_l2 && !o->check_only);
    /* What the GPU left: the result, or the partials added on the CPU as the book's main adds them. */
    auto gpu_value = [&](int partials_only) {
        real value = 0;
        if (partials_only) {
            HANDLE_ERROR(cudaMemcpy(gpu_partials, r.dev_partials, blocks * sizeof(real), cudaMemcpyDeviceToHost));
            for (int i = 0; i < blocks; ++i)
                value += gpu_partials[i];
        } else {
            HANDLE_ERROR(cudaMemcpy(&value, r.dev_results, sizeof(real), cudaMemcpyDeviceToHost));
        }
        return value;
    };

    report rep;
    report_begin(&rep, "dot", stdout);
    rep.cold_l2 = o->cold_l2;
    for (int k = 0; k < KERNEL_COUNT; ++k) {
        if (cpu_sum ? k > KERNEL_ONE_LAUNCH : !cli_kernel_selected(o, k)) continue;
        if (k == KERNEL_CUBLAS &&
            report_cpu_skip(&rep, "cublas", "cuBLAS's kernels are the library's, not the lesson's"))
            continue;
        const char *cpu_sum_name = k == KERNEL_BOOK ? "book_cpu_sum" : "one_launch_copy";
        result_row row = result_row_for(cpu_sum ? cpu_sum_name : kernel_name(k), type, n);
        if (!cpu_sum) row.bytes = bytes_counted(k, n, sizeof(real), blocks, fast_blocks);
        const int may_hang = k == KERNEL_BARRIER_FIRST_WARP || k == KERNEL_BARRIER_FIRST_WARP_THEN_BLOCK;
        row.partials_only = !cpu_sum && (k == KERNEL_BOOK || k == KERNEL_BARRIER_IN_IF || may_hang);
        if (k == KERNEL_BARRIER_DEADLOCK) {
            demonstrate_deadlock(&row, a, b, &r, &rep);
            continue;
        }

        /* What the CPU expects: the kernel's own order, repeated (the result and the partials). */
        const int partial_count = k == KERNEL_FAST ? fast_blocks : k == KERNEL_CUBLAS ? 0 : blocks;
        real emulated = 0;
        if (k == KERNEL_FAST)
            emulated = dot_fast_cpu(a, b, n, fast_blocks, twin_partials);
        else if (k != KERNEL_CUBLAS)
            emulated = dot_book_cpu(k == KERNEL_ONE_LAUNCH, a, b, n, blocks, threads, twin_partials);
        const double bound = check_bound(o->type, k, n, blocks, threads, fast_blocks);
        if (cpu_sum) { /* warm-ups, then the timed round trips (--check: one, not timed) */
            const int first = reps > 0 ? -TIME_WARMUP_RUNS : 0, last = reps > 0 ? reps : 1;
            for (int trip = first; trip < last; ++trip) {
                poison_outputs(); /* and the host's copy of the partials: untimed, the GPU idle */
                for (int i = 0; i < blocks; ++i)
                    gpu_partials[i] = (real)NAN;
                l2_flush(&flusher);
                HANDLE_ERROR(cudaDeviceSynchronize());
                struct timespec start, end;
                clock_gettime(CLOCK_MONOTONIC, &start);
                launch(k, &r);
                const real c = gpu_value(k == KERNEL_BOOK); /* book: the partials back, the CPU adds them */
                clock_gettime(CLOCK_MONOTONIC, &end);
                if (trip >= 0) times[trip] = 1e3 * (end.tv_sec - start.tv_sec) + 1e-6 * (end.tv_nsec - start.tv_nsec);
                if (trip == first) {
                    check_bits(&row, c, emulated, 0, exact, bound);
                } else if (row.pass && !(c == emulated)) {
                    row_check(&row, c, emulated, 0);
                    snprintf(row.note, sizeof row.note, "round trip %d of %d wrong", trip - first + 1, last - first);
                }
            }
            round_trip_ms[k] = reps > 0 ? median_of(times, reps) : 0;
            if (reps > 0) row_note(&row, "round trip %.1f us on the host's clock", 1e3 * round_trip_ms[k]);
            report_add(&rep, &row);
            continue;
        }

        /* The first launch fills the row; a later wrong one fails it, and the row shows its value and says which. */
        int launches = 0; /* of this kernel, so far */
        auto check_launch = [&] {
            result_row again = row, *checked = launches == 1 ? &row : &again;
            again.note[0] = '\0';
            const real value = gpu_value(row.partials_only);
            if (k == KERNEL_CUBLAS)
                row_check(checked, value, (double)exact, cublas_tolerance(n, exact, o->type));
            else
                check_bits(checked, value, emulated,
                           partials_differing(checked, r.dev_partials, twin_partials, partial_count), exact, bound);
            if (checked == &again && row.pass && !again.pass) {
                row = again;
                snprintf(row.note, sizeof row.note, "launch %d of this kernel wrong%s%s", launches,
                         again.note[0] ? ", " : "", again.note);
            }
        };

        double limit = 0; /* a kernel that may hang: the book's kernel on the same grid sets the limit */
        if (may_hang)
            limit = DEADLOCK_LIMIT_S(time_median_ms(
                1, [&] { poison_outputs(); }, [&] { launch(KERNEL_BOOK, &r); }));
        /* --check: one_launch and fast twice more, each relaunch must reset the ticket */
        const int checked_launches = o->check_only && (k == KERNEL_ONE_LAUNCH || k == KERNEL_FAST) ? 3 : 1;
        while (launches < checked_launches) {
            poison_outputs();
            launch(k, &r);
            ++launches;
            if (may_hang) end_if_hung(limit, &row, &rep, kernel_name(k), "the block hung");
            HANDLE_ERROR(cudaDeviceSynchronize());
            check_launch();
        }
        if (k == KERNEL_CUBLAS) check_cublas_probe(&row, &r, a, b);
        if (!o->check_only && k <= KERNEL_CUBLAS) {
            const double ms = time_median_ms(
                o->reps,
                [&] {
                    if (launches > 1) check_launch(); /* the timed launch before this one */
                    poison_outputs();
                    HANDLE_ERROR(cudaDeviceSynchronize()); /* idle again, as after every launch */
                    l2_flush(&flusher);
                },
                [&] {
                    launch(k, &r);
                    ++launches;
                });
            check_launch(); /* the last timed launch */
            row_time(&row, ms, "read", ceiling);
        }
        report_add(&rep, &row);
        if (k == KERNEL_BARRIER_IN_IF || may_hang) explain_barrier(k, row.pass, limit);
    }
    if (cpu_sum && o->check_only)
        printf("cpu_sum n=%lld type=%s: each round trip checked once, not timed (--check)\n", n, type);
    else if (cpu_sum) {
        const double book = round_trip_ms[KERNEL_BOOK], one_launch = round_trip_ms[KERNEL_ONE_LAUNCH];
        printf("cpu_sum n=%lld type=%s: book + copy back + CPU sum %.1f us, one_launch + copy back %.1f us (host "
               "clock, median of %d round trips): %s faster by %.1f us (%.0f %% less time)\n",
               n, type, 1e3 * book, 1e3 * one_launch, reps, book < one_launch ? "book + CPU sum" : "one_launch",
               1e3 * fabs(book - one_launch), percent_of(fabs(book - one_launch), fmax(book, one_launch)));
    }
    l2_flusher_free(&flusher);
    if (!cpu_sum) cublasDestroy(r.cublas);
    for (void *device_buffer :
         {(void *)r.dev_a, (void *)r.dev_b, (void *)r.dev_partials, (void *)r.dev_results, (void *)r.dev_blocks_done})
        HANDLE_ERROR(cudaFree(device_buffer));
    for (void *host_buffer : {(void *)a, (void *)b, (void *)twin_partials, (void *)gpu_partials, (void *)times})
        free(host_buffer);
    return report_end(&rep);
}

static int run_progression(const cli_options *o, const struct cudaDeviceProp *device) {
    return o->type == ELEMENT_DOUBLE ? run<double>(o, device) : run<float>(o, device);
}

// ----- the launch switch -----
/* cuBLAS: the 64-bit API (n past 2^31), in device pointer mode: the result stays on the GPU, like ours. */
static void cublas_dot(cublasHandle_t handle, long long n, const float *a, const float *b, float *result) {
    HANDLE_CUBLAS(cublasSdot_64(handle, n, a, 1, b, 1, result));
}
static void cublas_dot(cublasHandle_t handle, long long n, const double *a, const double *b, double *result) {
    HANDLE_CUBLAS(cublasDdot_64(handle, n, a, 1, b, 1, result));
}

template <typename real> static void launch(int kernel, const dot_run<real> *r) {
    const real *a = r->dev_a, *b = r->dev_b;
    switch (kernel) {
    case KERNEL_BOOK: dot_book<<<r->blocks, r->threads>>>(a, b, r->dev_partials, r->n); break;
    case KERNEL_ONE_LAUNCH:
        dot_one_launch<<<r->blocks, r->threads>>>(a, b, r->dev_partials, r->dev_blocks_done, r->dev_results, r->n);
        break;
    case KERNEL_FAST:
        dot_fast<<<r->fast_blocks, FAST_THREADS>>>(a, b, r->dev_partials, r->dev_blocks_done, r->dev_results, r->n);
        break;
    case KERNEL_CUBLAS: cublas_dot(r->cublas, r->n, a, b, r->dev_results); break;
    case KERNEL_BARRIER_IN_IF: dot_barrier_in_if<<<r->blocks, r->threads>>>(a, b, r->dev_partials, r->n); break;
    case KERNEL_BARRIER_DEADLOCK:
        dot_and_norm_one_block<real, true><<<1, r->threads>>>(a, b, r->dev_results, r->n);
        break;
    case KERNEL_BARRIER_FIRST_WARP:
        dot_barrier_first_warp<real, false><<<r->blocks, r->threads>>>(a, b, r->dev_partials, r->n);
        break;
    case KERNEL_BARRIER_FIRST_WARP_THEN_BLOCK:
        dot_barrier_first_warp<real, true><<<r->blocks, r->threads>>>(a, b, r->dev_partials, r->n);
        break;
    }
    CHECK_LAUNCH();
}

// ----- CPU replays -----
// Each kernel's additions in order (cpu_replays.cuh): one fma per `temp += a[tid] * b[tid]`, the tree, the partials.

/* book and one_launch, and the wrong kernels that keep the book's order. */
template <typename real>
static real dot_book_cpu(bool last_block_adds, const real *a, const real *b, long long n, int blocks, int threads,
                         real *partials) {
    real *sums = (real *)host_alloc("dot", sizeof(real) * blocks * threads, "the emulated thread sums");
    auto add_product = [=](real sum, long long i) { return std::fma(a[i], b[i], sum); };
    grid_stride_sums_on_cpu(n, (long long)blocks * threads, add_product, sums);
    for (int block = 0; block < blocks; ++block)
        partials[block] = halving_tree_on_cpu(sums + (long long)block * threads, threads);
    real total = 0;
    if (last_block_adds)
        total = last_block_on_cpu(partials, blocks, threads, WITH_HALVING_TREE);
    else
        for (int block = 0; block < blocks; ++block)
            total += partials[block];
    free(sums);
    return total;
}

/* fast: sum0 and sum1 together are a grid-stride loop of 2 stride threads over the vectors; thread j's sum1
 * also takes tail element j. Then block_sum per block, and the last block. */
template <typename real>
static real dot_fast_cpu(const real *a, const real *b, long long n, int blocks, real *partials) {
    const int width = vector16<real>::width;
    const long long threads = (long long)blocks * FAST_THREADS, whole = n / width * width;
    real *sums = (real *)host_alloc("dot", sizeof(real) * 2 * threads, "the emulated thread sums");
    auto add_products = [=](real sum, long long vector) {
        for (int lane = 0; lane < width; ++lane)
            sum = std::fma(a[vector * width + lane], b[vector * width + lane], sum);
        return sum;
    };
    grid_stride_sums_on_cpu(n / width, 2 * threads, add_products, sums);
    for (long long i = whole; i < n; ++i)
        sums[threads + i - whole] = std::fma(a[i], b[i], sums[threads + i - whole]);
    for (long long t = 0; t < threads; ++t)
        sums[t] += sums[threads + t]; /* sum0 + sum1 */
    for (int block = 0; block < blocks; ++block)
        partials[block] = block_sum_on_cpu(sums + (long long)block * FAST_THREADS, FAST_THREADS);
    real total = last_block_on_cpu(partials, blocks, FAST_THREADS, WITH_BLOCK_SUM);
    free(sums);
    return total;
}

// ----- checks -----
// A deterministic kernel is compared bit for bit with the CPU's repeat of its order: one dropped or duplicated
// element shows wherever it changes a rounding, which no tolerance can promise. The closed form stays as the truth.

/* The repeat's bound against it, (chain + 3) u (Higham 4.2): chain, the longest chain of additions of a
 * product; 3, the rounding of a[i], b[i] and the product (all terms are >= 0). */
static double check_bound(element_type type, int kernel, long long n, int blocks, int threads, int fast_blocks) {
    const long long per_thread = (n + (long long)blocks * threads - 1) / ((long long)blocks * threads);
    const long long fast_threads = (long long)fast_blocks * FAST_THREADS;
    long long chain = per_thread + ceil_log2(threads) + blocks; /* book: the CPU adds the partials one by one */
    if (kernel == KERNEL_ONE_LAUNCH) chain = per_thread + 2 * ceil_log2(threads) + (blocks + threads - 1) / threads;
    if (kernel == KERNEL_FAST) /* a thread's elements, sum0 + sum1, two block_sums of 10 steps, the last block's */
        chain = (n + fast_threads - 1) / fast_threads + 1 + 2 * 10 + (fast_blocks + FAST_THREADS - 1) / FAST_THREADS;
    return sum_error_bound(type, chain, 3);
}

/* PASS: the repeat's bits in the result and in every partial (which shows an element the total is too large
 * to show), and the repeat within its bound of the exact value. */
static void check_bits(result_row *row, double value, double emulated, long long partials_differ, long double exact,
                       double bound) {
    row_check(row, value, emulated, 0); /* tolerance 0: bit for bit */
    const long double error = fabsl((long double)emulated - exact) / (exact != 0 ? exact : 1);
    const int truthful = error <= bound;
    row->pass = row->pass && truthful && partials_differ == 0;
    if (partials_differ) /* partials_differing noted how many, and the first */
        row_note(row, "exact %.17Lg", exact);
    else
        row_note(row, "exact %.17Lg: rel_err %.2Le %s bound %.2e", exact, error, truthful ? "<=" : "> !", bound);
}

static int check_book_program(const float *a, const float *b, float c, const float *dev_partial_c, int blocks) {
    result_row book = result_row_for("book", "float", BOOK_N);
    float twin_partials[BOOK_MAX_BLOCKS];
    const float emulated = dot_book_cpu(false, a, b, BOOK_N, blocks, BOOK_THREADS, twin_partials);
    check_bits(&book, c, emulated, partials_differing(&book, dev_partial_c, twin_partials, blocks),
               dot_book_closed_form(BOOK_N), check_bound(ELEMENT_FLOAT, KERNEL_BOOK, BOOK_N, blocks, BOOK_THREADS, 1));
    printf("Checked: %.17g %s the CPU's repeat of the kernel's order (bit for bit); %s: %s\n", c,
           book.rel_err == 0 ? "equals" : "DIFFERS from", book.note, book.pass ? "PASS" : "FAIL");
    return book.pass;
}

/* The probe: zeros but for a 1 in a and a 2 in b at `count` places from the first element to the last. */
template <typename real> __global__ void place_probe_ones(real *a, real *b, long long n, long long count) {
    const long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (j >= count) return;
    const long long place = count == 1 ? 0 : j * (n - 1) / (count - 1);
    a[place] = 1;
    b[place] = 2;
}

/* Its dot, 2 x count, is exact in every order: a call that reads half the array, or a twice (count), or b
 * twice (4 x), fails it at any size. The inputs go back after it. */
template <typename real>
static void check_cublas_probe(result_row *row, const dot_run<real> *r, const real *a, const real *b) {
    const long long ones = r->n < 1024 ? r->n : 1024; /* 1024 places, or n */
    const size_t bytes = (size_t)r->n * sizeof(real);
    HANDLE_ERROR(cudaMemset(r->dev_a, 0, bytes));
    HANDLE_ERROR(cudaMemset(r->dev_b, 0, bytes));
    place_probe_ones<<<(ones + 255) / 256, 256>>>(r->dev_a, r->dev_b, r->n, ones);
    CHECK_LAUNCH();
    real probe = 0;
    cublas_dot(r->cublas, r->n, r->dev_a, r->dev_b, r->dev_results);
    HANDLE_ERROR(cudaMemcpy(&probe, r->dev_results, sizeof(real), cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaMemcpy(r->dev_a, a, bytes, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMemcpy(r->dev_b, b, bytes, cudaMemcpyHostToDevice));
    row->pass = row->pass && probe == (real)(2 * ones);
    row_note(row, "probe: %.0f, 2 x its %lld ones%s", (double)probe, ones, probe == (real)(2 * ones) ? "" : " !");
}
