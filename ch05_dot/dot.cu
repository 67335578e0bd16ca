/* ch05_dot: the dot product with a per-block shared-memory cache
 * (CUDA by Example, ch. 5, "Shared Memory and Synchronization": Dot Product).
 *
 * What it teaches: the threads of one block cooperate through __shared__
 * memory; __syncthreads() makes every thread wait until the whole block has
 * written; a halving tree sums the block's values in log2(blockDim) steps; and
 * every thread of the block must reach every barrier of that tree.
 *
 * Build this file alone, from its folder:
 *   nvcc -O3 -I../common dot.cu -o dot -lcublas
 *
 * Run it: ./dot (the book's program, then each kernel at the book's size),
 *         ./dot --n 2^26 --type double --kernel fast,cublas, ./dot --help,
 *         ./dot --part cpu_sum (the book's CPU sum of the partials against
 *         one_launch, each whole round trip on the host's clock)
 *
 * Kernels, in teaching order:
 *   book              the book's: each thread sums products in a grid-stride loop, the
 *                     block meets in a shared cache, a halving tree leaves one partial
 *                     per block, the CPU adds the partials (CbE ch. 5).
 *   one_launch        the same, but the last block to finish adds the partials: one
 *                     launch, one number (an atomic ticket: Fan chs. 9, 10).
 *   fast              16-byte loads, two in flight per thread, warp shuffles instead of
 *                     the shared tree, one wave of blocks (Fan chs. 7 and 10).
 *   cublas            cublasSdot / cublasDdot: what a professional would call.
 * Deliberately wrong, run only when named (the book's rule about the barrier):
 *   barrier_in_if     the book's tree with __syncthreads() inside the if: it runs, and
 *                     on today's GPUs it gives the same bits. The program says why.
 *   barrier_deadlock  the same wrong tree run twice in one block: the block hangs; the
 *                     program ends it after a time limit and exits with 4.
 *   barrier_first_warp
 *                     a tutorial's deadlock, if (threadIdx.x < 32) { ...; __syncthreads(); }:
 *                     on an H100 it finishes, and synccheck is silent.
 *   barrier_first_warp_then_block
 *                     the same, then a block-wide __syncthreads(): it finishes too, and
 *                     synccheck reports divergent threads. Both under the time limit.
 *
 * Read from here to the end of main: the kernels, then main, which runs the
 * book's program as the book writes it. Below main a line marks the harness
 * (options, the CPU's repeat of each kernel's order, the checks, the timing):
 * not needed to follow the lesson.
 *
 * Checks: the CPU repeats each deterministic kernel's own order of additions,
 * so the GPU's result and partials must match it bit for bit; the exact value
 * (a closed form) stands beside it as the independent truth. Every launch is
 * checked, the timed ones too, each after its outputs were filled with NaN. */
#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>

#include "bank_model_block.h" /* the harness (--bank-model): each shared access's bank passes */
#include "block_reduce.cuh"   /* the kernels' block_sum and last-block pattern */
#include "book.h"             /* HANDLE_ERROR, HANDLE_NULL, CHECK_LAUNCH, gpu_poison */
#include "ceiling.cuh"        /* these four: the harness, below main */
#include "cli.h"
#include "numerics.h"
#include "report.h"

#define BOOK_N (33 * 1024)                 /* N: 33792 elements                           */
#define BOOK_THREADS 256                   /* threadsPerBlock                              */
#define BOOK_MAX_BLOCKS 32                 /* blocksPerGrid = imin(32, ceil(N / 256)) = 32 */
#define imin(a, b) ((a) < (b) ? (a) : (b)) /* the book's */
#define MAX_THREADS 1024                   /* the largest block: the static size of the shared cache */
#define FAST_THREADS 256                   /* fast's block */

// ---------------------------------------------------------------------------
// Kernel 1, book: each thread sums its products in a register, the block meets
// in shared memory, and a halving tree leaves the block's sum in s_cache[0].
// The book sizes the cache with threadsPerBlock; ours covers the largest block
// and a block uses its first blockDim.x entries.

/* The halving tree: at each step the lower half adds the upper half, so it
 * needs blockDim.x to be a power of two. The barrier sits outside the if:
 * every thread of the block must reach it (the book insists; the wrong kernels
 * below show what happens otherwise). */
template <typename real> __device__ void halving_tree(real *s_cache) {
    for (unsigned int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) s_cache[threadIdx.x] += s_cache[threadIdx.x + half];
        __syncthreads();
    }
}

/* This thread's share of the dot: a grid-stride loop, so any grid covers any
 * n. The sum stays in a register until the block meets in shared memory. */
template <typename real> __device__ real grid_stride_dot(const real *a, const real *b, long long n) {
    real sum = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)
        sum += a[i] * b[i];
    return sum;
}

template <typename real> __global__ void dot_book(const real *a, const real *b, real *partials, long long n) {
    __shared__ real s_cache[MAX_THREADS];
    s_cache[threadIdx.x] = grid_stride_dot(a, b, n);
    __syncthreads(); /* every thread's value is in s_cache before anyone reads it */
    halving_tree(s_cache);
    if (threadIdx.x == 0) partials[blockIdx.x] = s_cache[0];
}

// ---------------------------------------------------------------------------
// Kernel 2, one_launch: what changed is the end. The last block to finish adds
// the partials (common/block_reduce.cuh: a fence, then an atomic ticket; Fan
// ch. 9), so one launch gives one number, in an order fixed on every run.

template <typename real>
__global__ void dot_one_launch(const real *a, const real *b, real *partials, unsigned int *blocks_done, real *result,
                               long long n) {
    __shared__ real s_cache[MAX_THREADS];
    s_cache[threadIdx.x] = grid_stride_dot(a, b, n);
    __syncthreads();
    halving_tree(s_cache);
    if (store_partial_and_check_last(s_cache[0], partials, blocks_done)) {
        s_cache[threadIdx.x] = sum_my_partials(partials, gridDim.x);
        __syncthreads();
        halving_tree(s_cache);
        if (threadIdx.x == 0) {
            *result = s_cache[0];
            *blocks_done = 0; /* the ticket counter, ready for the next launch */
        }
    }
}

// ---------------------------------------------------------------------------
// Kernel 3, fast: the dot reads 2n elements for 2n flops, so memory bandwidth
// is its limit. 16-byte loads, two of them in flight per thread (Fan chs. 7,
// 10); warp shuffles instead of the shared tree (fewer barriers, ch. 10); and
// exactly as many blocks as fit on the GPU at once: few partials, no tail.

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
// Deliberately wrong 1, barrier_in_if: the book's tree with the barrier moved
// inside the if, as a reader of the book tried ("no error, the right result").
// Only the threads that add reach the barrier: undefined behaviour by the
// Programming Guide. It happens to work on today's GPUs: since Volta a barrier
// counts the threads that have exited, and the threads that skip it have no
// other barrier ahead: they fall out of the loop and exit.

template <typename real> __device__ void halving_tree_barrier_in_if(real *s_cache) {
    for (unsigned int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            s_cache[threadIdx.x] += s_cache[threadIdx.x + half];
            __syncthreads(); /* WRONG: the threads at or above `half` never arrive */
        }
    }
}

template <typename real> __global__ void dot_barrier_in_if(const real *a, const real *b, real *partials, long long n) {
    __shared__ real s_cache[MAX_THREADS];
    s_cache[threadIdx.x] = grid_stride_dot(a, b, n);
    __syncthreads();
    halving_tree_barrier_in_if(s_cache);
    if (threadIdx.x == 0) partials[blockIdx.x] = s_cache[0];
}

// ---------------------------------------------------------------------------
// Deliberately wrong 2, barrier_deadlock: one block needs two sums, a.b and
// a.a (as for the angle between a and b), and reuses its cache for the second.
// With the barrier inside the if, the threads that skip the first tree's
// barriers run ahead to the barrier before the second tree and wait there,
// while the others wait at theirs: the block never finishes. With the book's
// tree (barrier_in_if = false) the same kernel is correct.

template <bool barrier_in_if, typename real> __device__ void halving_tree_variant(real *s_cache) {
    if (barrier_in_if)
        halving_tree_barrier_in_if(s_cache);
    else
        halving_tree(s_cache);
}

template <typename real, bool barrier_in_if>
__global__ void dot_and_norm_one_block(const real *a, const real *b, real *results, long long n) {
    __shared__ real s_cache[MAX_THREADS];
    real dot = 0, norm = 0;
    for (long long i = threadIdx.x; i < n; i += blockDim.x) {
        dot += a[i] * b[i];
        norm += a[i] * a[i];
    }
    s_cache[threadIdx.x] = dot;
    __syncthreads();
    halving_tree_variant<barrier_in_if>(s_cache);
    if (threadIdx.x == 0) results[0] = s_cache[0];
    s_cache[threadIdx.x] = norm; /* the cache, reused for the second sum */
    __syncthreads();
    halving_tree_variant<barrier_in_if>(s_cache);
    if (threadIdx.x == 0) results[1] = s_cache[0];
}

// ---------------------------------------------------------------------------
// Deliberately wrong 3 and 4, barrier_first_warp and barrier_first_warp_then_block:
// a Chinese tutorial's own example of a deadlock, if (threadIdx.x < 32) { ...;
// __syncthreads(); }. Here the block's tree stops at 32 values and the first
// warp adds them (the book's order, with the warp's own barrier between the
// steps), then waits at a __syncthreads() that only it reaches. The _then_block
// form adds a block-wide __syncthreads() after the if: the other warps wait
// there while the first warp waits inside the if.

template <typename real, bool block_barrier_after>
__global__ void dot_barrier_first_warp(const real *a, const real *b, real *partials, long long n) {
    __shared__ real s_cache[MAX_THREADS];
    s_cache[threadIdx.x] = grid_stride_dot(a, b, n);
    __syncthreads();
    for (unsigned int half = blockDim.x / 2; half >= 32; half /= 2) { /* the book's tree, down to 32 values */
        if (threadIdx.x < half) s_cache[threadIdx.x] += s_cache[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x < 32) { /* the tutorial's shape */
        for (unsigned int half = 16; half > 0; half /= 2) {
            if (threadIdx.x < half) s_cache[threadIdx.x] += s_cache[threadIdx.x + half];
            __syncwarp(); /* the warp's own barrier: all these steps need */
        }
        __syncthreads(); /* WRONG: only the first warp arrives here */
    }
    if (block_barrier_after) __syncthreads(); /* _then_block: the other warps wait here */
    if (threadIdx.x == 0) partials[blockIdx.x] = s_cache[0];
}

// ---------------------------------------------------------------------------
// main: the book's program, then the progression. What it calls beyond the
// book's lines is defined below the divider under main:
/* the options: --help, and exit 2 on a bad command line (below the divider) */
static void dot_options(int argc, char **argv, cli_options *o);
/* our verdict on the book's program, the "Checked: ..." line (below the divider) */
static int check_book_program(const float *a, const float *b, float c, const float *dev_partial_c, int blocks);
/* every kernel the options select, checked and timed: the table (below the divider) */
static int run_progression(const cli_options &o, const struct cudaDeviceProp &device);
/* --part cpu_sum: the book's round trip against one_launch's, on the host's clock (below the divider) */
static int part_cpu_sum_asked(const cli_options &o);
static int compare_cpu_sum(const cli_options &o);

int main(int argc, char **argv) {
    cli_options o;
    dot_options(argc, argv, &o);
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
    const int status = part_cpu_sum_asked(o) ? compare_cpu_sum(o) : run_progression(o, device);
    return book_passed ? status : EXIT_WRONG_RESULT;
}

// ===== Harness: below this line, not needed to follow the lesson =====
// Options, the kernel names, the CPU's repeats of each kernel's order, the
// checks, cuBLAS, the deadlock demonstration, and run(): the launch switch
// and the timing loop.

#define PROBE_ONES 1024        /* cuBLAS's probe: this many 1s, spread over the arrays */
#define CHECK_RELAUNCHES 2     /* --check: one_launch and fast are launched this many more times */
#define DEADLOCK_WAIT_S 3.0    /* a wrong kernel that may hang is waited for this long... */
#define DEADLOCK_WAIT_TIMES 20 /* ...plus 20 times what the correct kernel took */

enum {
    KERNEL_BOOK,
    KERNEL_ONE_LAUNCH,
    KERNEL_FAST,
    KERNEL_CUBLAS,
    KERNEL_BARRIER_IN_IF, /* the deliberately wrong ones come last */
    KERNEL_BARRIER_DEADLOCK,
    KERNEL_BARRIER_FIRST_WARP,
    KERNEL_BARRIER_FIRST_WARP_THEN_BLOCK,
    KERNEL_COUNT
};
static const char *const kernel_names[] = {"book", "one_launch", "fast", "cublas", NULL};
static const char *const wrong_kernel_names[] = {"barrier_in_if", "barrier_deadlock", "barrier_first_warp",
                                                 "barrier_first_warp_then_block", NULL};
static const char *kernel_name(int kernel) {
    return kernel < KERNEL_BARRIER_IN_IF ? kernel_names[kernel] : wrong_kernel_names[kernel - KERNEL_BARRIER_IN_IF];
}
enum { DATA_BOOK, DATA_PERIODIC };
static const char *const data_names[] = {"book", "periodic", NULL};

// ---------------------------------------------------------------------------
// Options.

static const cli_own_option own_options[] = {
    {"--part", "P",
     "progression (default): the kernels --kernel selects, checked and timed; cpu_sum: the\n"
     "                       book's round trip (book, copy the partials back, the CPU adds them) against\n"
     "                       one_launch's (copy the result back), each checked, timed on the host's clock"},
    {NULL, NULL, NULL}};

static void print_bank_model_and_exit(const cli_options &o); /* below */

static void dot_options(int argc, char **argv, cli_options *o) {
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
    cli_parse_or_exit(&spec, argc, argv, o);
    if (!is_power_of_two(o->block) || o->block < 32) {
        fprintf(stderr, "dot: --block %d: the halving tree needs a power of two from 32 to 1024\n", o->block);
        exit(EXIT_BAD_COMMAND_LINE);
    }
    const char *part = o->own_values[0];
    if (part && strcmp(part, "progression") != 0 && strcmp(part, "cpu_sum") != 0) {
        fprintf(stderr, "dot: --part %s: the parts are progression (the default) and cpu_sum\n", part);
        exit(EXIT_BAD_COMMAND_LINE);
    }
    if (o->bank_model) print_bank_model_and_exit(*o);
    const unsigned every_correct_kernel = (1u << KERNEL_BARRIER_IN_IF) - 1; /* what no --kernel selects */
    if (part_cpu_sum_asked(*o) && o->kernel_mask != every_correct_kernel) {
        fprintf(stderr, "dot: --part cpu_sum runs book and one_launch itself: leave out --kernel\n");
        exit(EXIT_BAD_COMMAND_LINE);
    }
}

// ---------------------------------------------------------------------------
// The bank model (--bank-model, no GPU): every shared-memory instruction of
// every kernel, over the warps of a block, from the kernels' own subscripts
// (s_cache[threadIdx.x], s_cache[threadIdx.x + half]) on host arrays of their
// types (common/bank_model_block.h). scripts/bank_conflicts.sh sets it beside
// Nsight Compute's counts; scripts/plot.py --bank-maps draws the pictures.

/* The lesson's pictures, at the book's 256 threads: the store s_cache[tid] (a
 * full warp) and the tree's step at half = 16 (half a warp), float and double. */
static const char *dot_bank_picture(const char *kernel, const char *access, int threads) {
    static const struct {
        const char *kernel, *access, *picture;
    } pictures[] = {
        {"dot_book<float>", "s_cache[tid] write (the block's elements)", "dot_book_float_store"},
        {"dot_book<float>", "offset 16: s_cache[tid + offset] read", "dot_book_float_half16"},
        {"dot_book<double>", "s_cache[tid] write (the block's elements)", "dot_book_double_store"},
        {"dot_book<double>", "offset 16: s_cache[tid + offset] read", "dot_book_double_half16"},
    };
    if (threads != BOOK_THREADS) return NULL;
    for (size_t i = 0; i < sizeof pictures / sizeof pictures[0]; ++i)
        if (strcmp(pictures[i].kernel, kernel) == 0 && strcmp(pictures[i].access, access) == 0)
            return pictures[i].picture;
    return NULL;
}

/* Every kernel with shared memory, in one element type. The trees are the
 * book's (halving_tree and its variants make the same accesses: the wrong
 * kernels differ in where their barriers are, not in what they touch).
 * one_launch's last block runs a second tree: it is counted per grid of the
 * blocks --n and --block give. fast's last block repeats block_sum, whose
 * accesses all take one pass: counted per block. */
template <typename real> static void model_dot_kernels(const cli_options &o) {
    const int threads = o.block;
    const int blocks = (int)imin((o.n + threads - 1) / threads, (long long)BOOK_MAX_BLOCKS);
    const char *type = element_name<real>();
    char kernel[64];
    snprintf(kernel, sizeof kernel, "dot_book<%s>", type);
    model_halving_tree<real>(kernel, "s_cache", threads, 0);
    snprintf(kernel, sizeof kernel, "dot_barrier_in_if<%s>", type);
    model_halving_tree<real>(kernel, "s_cache", threads, 0);
    for (int wrong = 0; wrong < 2; ++wrong) {
        snprintf(kernel, sizeof kernel, "dot_barrier_first_warp<%s, %s>", type, wrong ? "true" : "false");
        model_halving_tree<real>(kernel, "s_cache", threads, 0);
        snprintf(kernel, sizeof kernel, "dot_and_norm_one_block<%s, %s>", type, wrong ? "true" : "false");
        model_halving_tree<real>(kernel, "s_cache", threads, 0); /* a.b, then a.a in the same cache */
        model_halving_tree<real>(kernel, "s_cache", threads, 0);
    }
    snprintf(kernel, sizeof kernel, "dot_one_launch<%s>", type);
    bank_model_blocks = blocks;
    model_halving_tree<real>(kernel, "s_cache", threads, 0);
    model_last_block_flag(kernel, threads);
    bank_model_blocks = 1; /* the last block: its partials into s_cache, the tree again */
    model_halving_tree<real>(kernel, "s_cache", threads, 0);
    snprintf(kernel, sizeof kernel, "dot_fast<%s>", type);
    model_block_sum<real>(kernel, FAST_THREADS, "");
    model_last_block_flag(kernel, FAST_THREADS);
    model_block_sum<real>(kernel, FAST_THREADS, "last block only: ");
}

/* --bank-model: print the model and exit 0, before any CUDA call. */
static void print_bank_model_and_exit(const cli_options &o) {
    bank_model_picture = dot_bank_picture;
    bank_model_header();
    model_dot_kernels<float>(o);
    model_dot_kernels<double>(o);
    printf("library\tdot_kernel<\tcuBLAS\n"); /* cublasSdot/Ddot's own kernels */
    printf("library\treduce_1Block_kernel<\tcuBLAS\n");
    exit(EXIT_ALL_PASSED);
}

/* --part cpu_sum was asked for. */
static int part_cpu_sum_asked(const cli_options &o) {
    return o.own_values[0] && strcmp(o.own_values[0], "cpu_sum") == 0;
}

// ---------------------------------------------------------------------------
// Inputs and the exact answer, on the CPU. Data: --data book (default) is the
// book's a[i] = i, b[i] = 2i, whose exact dot is 2 (n-1) n (2n-1) / 6. A float
// holds every integer only up to 2^24, so for large n --data periodic gives
// a[i] = i mod 4093, b[i] = 4092 - (i mod 4093): every input and product is an
// exact float at any n, and the exact dot is still a closed form (numerics.h).

template <typename real> static void fill_inputs(real *a, real *b, long long n, int data) {
    long long k = 0; /* i mod DOT_PERIOD, without a division per element */
    for (long long i = 0; i < n; ++i) {
        a[i] = data == DATA_BOOK ? (real)i : (real)k;
        b[i] = data == DATA_BOOK ? (real)(2 * i) : (real)(DOT_PERIOD - 1 - k);
        if (++k == DOT_PERIOD) k = 0;
    }
}

static long double exact_dot(long long n, int data) {
    return data == DATA_BOOK ? dot_book_closed_form(n) : dot_periodic_closed_form(n);
}

// ---------------------------------------------------------------------------
// cuBLAS: the 64-bit API (n past 2^31), in device pointer mode so the result
// stays on the GPU like ours.

static void cublas_check(cublasStatus_t status, const char *call) {
    if (status != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, call, cublasGetStatusString(status));
        exit(EXIT_CUDA_ERROR);
    }
}
static void cublas_dot(cublasHandle_t handle, long long n, const float *a, const float *b, float *result) {
    cublas_check(cublasSdot_64(handle, n, a, 1, b, 1, result), "cublasSdot_64");
}
static void cublas_dot(cublasHandle_t handle, long long n, const double *a, const double *b, double *result) {
    cublas_check(cublasDdot_64(handle, n, a, 1, b, 1, result), "cublasDdot_64");
}

/* The probe of cublas_tolerance: zeros everywhere except, at `count` places
 * spread from the first element to the last, a 1 in a and a 2 in b. The dot
 * is 2 x count; a call that read a twice (a.a) would give count, b twice 4 x. */
template <typename real> __global__ void place_probe_ones(real *a, real *b, long long n, long long count) {
    const long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (j >= count) return;
    const long long place = count == 1 ? 0 : j * (n - 1) / (count - 1);
    a[place] = 1;
    b[place] = 2;
}

// ---------------------------------------------------------------------------
// The checks. A deterministic kernel (book, one_launch, fast) is compared bit
// for bit with the CPU repeating its own order of additions: one dropped or
// duplicated element is then seen whenever it changes the result of that
// order at all, which no tolerance can promise. At the book's n = 33792
// (float, a[i] = i, b[i] = 2i) dropping any one element i >= 512 changes the
// bits (33285 of the 33792 elements); the products of the others, 2 i^2 <
// 2^19, are under a quarter of the last place of the float total (2^21), and
// most of them vanish in its rounding: no float result of this order can show
// them. The closed form stays beside it as the independent truth: the repeated
// order must lie within the rounding-error bound of that order (numerics.h,
// Higham section 4.2).

/* book and one_launch on the CPU, and the wrong kernels that keep the book's
 * order (barrier_in_if, barrier_first_warp and its _then_block form; the twins
 * are in common/block_reduce.cuh): each thread's grid_stride_dot, one fma per product
 * as nvcc compiles `sum += a[i] * b[i]`; halving_tree per block (into
 * partials); then the partials, added in order by the CPU (book) or by the
 * last block (one_launch). */
template <typename real>
static real dot_book_on_cpu(bool last_block_adds, const real *a, const real *b, long long n, int blocks, int threads,
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

/* fast on the CPU: thread t's sum0 takes the vectors t, t + 2 stride, ... and
 * its sum1 the vectors t + stride, t + 3 stride, ...: together, a grid-stride
 * loop of 2 stride threads over the vectors, each vector's lanes fused in
 * order (add_products). Thread j's sum1 also takes tail element j. Then
 * block_sum per block, and the last block. */
template <typename real>
static real dot_fast_on_cpu(const real *a, const real *b, long long n, int blocks, real *partials) {
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

/* The longest chain of additions a product goes through in each kernel's
 * order: its bound against the exact value is (chain + 3) u, the 3 for the
 * rounding of a[i], b[i] and the product (all terms are >= 0). */
static long long longest_chain(int kernel, long long n, int blocks, int threads, int fast_blocks) {
    const long long per_thread = (n + (long long)blocks * threads - 1) / ((long long)blocks * threads);
    const long long fast_threads = (long long)fast_blocks * FAST_THREADS;
    switch (kernel) {
    case KERNEL_ONE_LAUNCH: return per_thread + 2 * ceil_log2(threads) + (blocks + threads - 1) / threads;
    case KERNEL_FAST: /* a thread's elements, sum0 + sum1, two block_sums of 10 steps, the last block's share */
        return (n + fast_threads - 1) / fast_threads + 1 + 2 * 10 + (fast_blocks + FAST_THREADS - 1) / FAST_THREADS;
    default: return per_thread + ceil_log2(threads) + blocks; /* the CPU adds the partials one by one */
    }
}

/* Fills the row of a deterministic kernel: PASS needs the same bits as the
 * CPU's repeat of its order, in the result and in every per-block partial
 * (partials_differ of them did not match: a partial shows an element the
 * total is too large to show), and that repeat within its bound of the exact
 * value. The note (for the table) shows the exact value beside it. */
static void check_bits(result_row *row, double value, double emulated, long long partials_differ, long double exact,
                       double bound) {
    row_check(row, value, emulated, 0); /* tolerance 0: bit for bit */
    const long double error = fabsl((long double)emulated - exact) / (exact != 0 ? exact : 1);
    const int truthful = error <= bound;
    row->pass = row->pass && truthful && partials_differ == 0;
    if (partials_differ)
        row_note(row, "%lld partials differ from the CPU's; exact %.17Lg", partials_differ, exact);
    else
        row_note(row, "exact %.17Lg: rel_err %.2Le %s bound %.2e", exact, error, truthful ? "<=" : "> !", bound);
}

/* The verdict on the book's program in main: its total c and its partials on
 * the GPU against the CPU's repeat of the kernel's order, bit for bit. */
static int check_book_program(const float *a, const float *b, float c, const float *dev_partial_c, int blocks) {
    result_row book = result_row_for("book", "float", BOOK_N);
    float twin_partials[BOOK_MAX_BLOCKS];
    const float emulated = dot_book_on_cpu(false, a, b, BOOK_N, blocks, BOOK_THREADS, twin_partials);
    check_bits(&book, c, emulated, partials_differing(dev_partial_c, twin_partials, blocks),
               dot_book_closed_form(BOOK_N),
               sum_error_bound(ELEMENT_FLOAT, longest_chain(KERNEL_BOOK, BOOK_N, blocks, BOOK_THREADS, 1), 3));
    printf("Checked: %.17g %s the CPU's repeat of the kernel's order (bit for bit); %s: %s\n", c,
           book.rel_err == 0 ? "equals" : "DIFFERS from", book.note, book.pass ? "PASS" : "FAIL");
    return book.pass;
}

/* cuBLAS's order is not documented, so its check must hold for every order.
 * Every term is a non-negative integer here (both data kinds):
 *  - if the exact total is below 2^p (p = 24 for float, 53 for double), every
 *    input, product and partial sum of every order is an integer below 2^p,
 *    exact in the element type: every order gives the exact answer, and the
 *    tolerance is 0 (double with --data periodic: up to about 3.2e9 elements);
 *  - otherwise the only bound that holds for every order is the serial one:
 *    a term may pass through n - 1 additions, and a[i], b[i] and the product
 *    are rounded once each: gamma(n + 2) = (n + 2) u / (1 - (n + 2) u)
 *    (Higham, Lemma 3.1). It is honest and it grows: in float it passes half
 *    the array from 2^24 / 3 (5.6 million) elements on, and it is infinite
 *    from 2^24 on, rightly so (a serial float sum of the 2^31 + 11 periodic
 *    products stalls at 1.2 % of the answer: checked). Nothing is capped.
 * So every cuBLAS row also runs a probe whose answer every order gets exactly:
 * the same call on a = b = 0 but for a 1 in a and a 2 in b at PROBE_ONES
 * places spread from the first element to the last must return twice their
 * count. A call that reads half the array, or none of it, or one array twice,
 * fails the probe at any size. */
static double cublas_tolerance(long long n, long double exact, element_type type) {
    if (every_order_exact(exact, 0, type == ELEMENT_DOUBLE ? 53 : 24)) return 0; /* integers: grain 2^0 */
    const double k_u = (double)(n + 2) * unit_roundoff(type);
    return k_u < 1 ? k_u / (1 - k_u) : INFINITY;
}

/* Bytes the GB/s figure counts: the 2n input elements read, plus what each
 * kernel writes and reads back itself: book (and barrier_in_if, barrier_first_warp
 * and its _then_block form) one partial per block; one_launch and fast a
 * partial per block, read back by the last block, and the result;
 * cuBLAS the result (its own partials are its business); barrier_deadlock two
 * results. The ticket counter's atomics (4 bytes per block) are not counted. */
static double bytes_counted(int kernel, long long n, size_t size, int blocks, int fast_blocks) {
    const double inputs = 2.0 * (double)n * (double)size;
    switch (kernel) {
    case KERNEL_BOOK:
    case KERNEL_BARRIER_IN_IF:
    case KERNEL_BARRIER_FIRST_WARP:
    case KERNEL_BARRIER_FIRST_WARP_THEN_BLOCK: return inputs + (double)blocks * size;
    case KERNEL_ONE_LAUNCH: return inputs + (2.0 * blocks + 1) * size;
    case KERNEL_FAST: return inputs + (2.0 * fast_blocks + 1) * size;
    case KERNEL_BARRIER_DEADLOCK: return inputs + 2.0 * size;
    default: return inputs + size;
    }
}

// ---------------------------------------------------------------------------
// The barrier pitfalls: what they showed, in words.

/* What barrier_in_if showed, in words, after its row. */
static void explain_barrier_in_if(int same_bits) {
    if (same_bits)
        printf("  barrier_in_if: the same bits as the book's order, with __syncthreads() inside if (threadIdx.x < "
               "half),\n  which the book forbids. It happens to work on this GPU: since Volta a barrier counts the "
               "threads\n  that have exited, and the threads that skip it have no other barrier ahead: they leave "
               "the loop\n  and exit. It is still undefined behaviour: --kernel barrier_deadlock puts a second "
               "barrier ahead\n  of them, and the block hangs.\n");
    else
        printf("  barrier_in_if: with __syncthreads() inside the if, the result is NOT the book's order on this "
               "GPU:\n  the undefined behaviour the book warns of.\n");
}

/* barrier_deadlock: first the same kernel with the book's tree (it must give
 * the CPU's sums bit for bit, and its time sets the limit), then the wrong one,
 * watched by the host's clock. A hung block cannot be stopped from the host,
 * but the end of the process ends it: on a deadlock this returns 1, and the
 * caller prints the table and exits with EXIT_DEADLOCK at once, so the
 * terminal never hangs. */
template <typename real>
static int demonstrate_deadlock(result_row *row, const real *a, const real *b, const real *dev_a, const real *dev_b,
                                real *dev_results, long long n, int threads) {
    real partial; /* one block: its partial is its sum */
    const real dot = dot_book_on_cpu(false, a, b, n, 1, threads, &partial);
    const real norm = dot_book_on_cpu(false, a, a, n, 1, threads, &partial);
    real results[2];
    const double ms = time_median_ms(
        1, [&] { gpu_poison(dev_results, sizeof results); },
        [&] { dot_and_norm_one_block<real, false><<<1, threads>>>(dev_a, dev_b, dev_results, n); });
    HANDLE_ERROR(cudaMemcpy(results, dev_results, sizeof results, cudaMemcpyDeviceToHost));
    row_check(row, results[0], dot, 0);
    row->pass = row->pass && results[1] == norm;
    printf("  barrier_deadlock: one block of %d threads sums a.b, then a.a in the same shared cache.\n"
           "  With the book's tree (the barrier outside the if) it took %.3f ms and gave a.b = %.10g, a.a = %.10g:\n"
           "  %s.\n",
           threads, ms, (double)results[0], (double)results[1],
           row->pass ? "the CPU's sums, bit for bit" : "NOT the CPU's sums (so the wrong kernel is not run)");
    if (row->pass) {
        const double limit = DEADLOCK_WAIT_S + DEADLOCK_WAIT_TIMES * ms / 1e3;
        cudaEvent_t done;
        HANDLE_ERROR(cudaEventCreate(&done));
        gpu_poison(dev_results, sizeof results);
        dot_and_norm_one_block<real, true><<<1, threads>>>(dev_a, dev_b, dev_results, n);
        CHECK_LAUNCH();
        HANDLE_ERROR(cudaEventRecord(done, 0));
        if (!finished_within(done, limit)) {
            printf("  With the barrier inside the if: the block deadlocked: after %.1f s it has not finished. The "
                   "threads\n  that skip the barrier inside the if run ahead to the __syncthreads() before the "
                   "second sum, the\n  others wait at the one inside the if, and the block never gets past them. "
                   "Exit %d: ending the\n  process ends the hung kernel.\n",
                   limit, EXIT_DEADLOCK);
            row_note(row, "the block deadlocked: unfinished after %.1f s", limit);
            row->pass = 0;
            return 1; /* the event stays: the hung kernel holds the device until the process ends */
        }
        HANDLE_ERROR(cudaEventDestroy(done));
        HANDLE_ERROR(cudaMemcpy(results, dev_results, sizeof results, cudaMemcpyDeviceToHost));
        row_check(row, results[0], dot, 0);
        row->pass = row->pass && results[1] == norm;
        printf("  With the barrier inside the if it did NOT deadlock on this GPU this time: a.b = %.10g, a.a = "
               "%.10g.\n",
               (double)results[0], (double)results[1]);
    }
    row_note(row, "a.a = %.10g, the CPU's %.10g", (double)results[1], (double)norm);
    return 0;
}

/* Waits on the host's clock, at most `seconds`, for what was launched before:
 * 1 when it finished, 0 when it still runs (a hung block: the caller ends the
 * process, which ends the kernel). */
static int finished_in_time(double seconds) {
    cudaEvent_t done;
    HANDLE_ERROR(cudaEventCreate(&done));
    HANDLE_ERROR(cudaEventRecord(done, 0));
    if (!finished_within(done, seconds)) return 0; /* the event stays: the hung kernel holds the device */
    HANDLE_ERROR(cudaEventDestroy(done));
    return 1;
}

/* What barrier_first_warp and barrier_first_warp_then_block showed, in words,
 * after their rows: they finished within the limit (or the program has exited
 * with EXIT_DEADLOCK already), and whether they gave the book's bits. */
static void explain_barrier_first_warp(int kernel, int same_bits, double limit) {
    printf("  %s: finished within the %.1f s limit, %s.\n", kernel_name(kernel), limit,
           same_bits ? "with the same bits as the book's order" : "but NOT with the bits of the book's order");
    if (!same_bits)
        printf("  The undefined behaviour the tutorial warns of, on this GPU: the result is wrong.\n");
    else if (kernel == KERNEL_BARRIER_FIRST_WARP)
        printf("  if (threadIdx.x < 32) { ...; __syncthreads(); }, a tutorial's example of a deadlock: only the first\n"
               "  warp reaches that barrier; the other warps leave the if with no barrier ahead and exit, and a\n"
               "  barrier does not wait for threads that have exited. Undefined behaviour by the Programming Guide\n"
               "  all the same: --kernel barrier_first_warp_then_block puts a barrier ahead of the other warps.\n");
    else
        printf("  The same, then a block-wide __syncthreads(): the first warp waits at the barrier inside the if,\n"
               "  the other warps at the one after it. To the GPU both are barrier 0, which counts the warps that\n"
               "  arrive, not the line they arrive at, so the block goes on; the other warps exit, and the first\n"
               "  warp's block-wide barrier then waits for no one. No hang, but compute-sanitizer --tool synccheck\n"
               "  reports the other warps' threads as divergent.\n");
}

/* The device side of a run: a and b copied over, room for `partials` partials
 * and `results` results, and the ticket counter of one_launch and fast at 0. */
template <typename real> struct dot_buffers {
    real *a, *b, *partials, *results;
    unsigned int *blocks_done;
};

template <typename real>
static dot_buffers<real> dot_buffers_create(const real *a, const real *b, long long n, int partials, int results) {
    dot_buffers<real> device;
    const size_t bytes = (size_t)n * sizeof(real);
    HANDLE_ERROR(cudaMalloc((void **)&device.a, bytes));
    HANDLE_ERROR(cudaMalloc((void **)&device.b, bytes));
    HANDLE_ERROR(cudaMalloc((void **)&device.partials, partials * sizeof(real)));
    HANDLE_ERROR(cudaMalloc((void **)&device.results, results * sizeof(real)));
    HANDLE_ERROR(cudaMalloc((void **)&device.blocks_done, sizeof(unsigned int)));
    HANDLE_ERROR(cudaMemset(device.blocks_done, 0, sizeof(unsigned int)));
    HANDLE_ERROR(cudaMemcpy(device.a, a, bytes, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMemcpy(device.b, b, bytes, cudaMemcpyHostToDevice));
    return device;
}

template <typename real> static void dot_buffers_free(dot_buffers<real> *device) {
    HANDLE_ERROR(cudaFree(device->a));
    HANDLE_ERROR(cudaFree(device->b));
    HANDLE_ERROR(cudaFree(device->partials));
    HANDLE_ERROR(cudaFree(device->results));
    HANDLE_ERROR(cudaFree(device->blocks_done));
}

// ---------------------------------------------------------------------------
// The progression: every selected kernel on the same inputs, checked, then
// timed (median of --reps runs, CUDA events around the launch only). Every
// launch is checked: before each one every output is poisoned (NaN), so a
// launch that leaves a result or a partial unwritten fails instead of passing
// on what an earlier launch left; each timed launch is checked before the
// next, the last one after the timing, and --check launches the kernels that
// keep state across launches (the ticket counter of one_launch and fast)
// CHECK_RELAUNCHES more times. A wrong launch fails the row, exit 1.

template <typename real> static int run(const cli_options &o, const struct cudaDeviceProp &device) {
    const long long n = o.n;
    const size_t bytes = (size_t)n * sizeof(real);
    const int threads = o.block;
    const int blocks = (int)imin((n + threads - 1) / threads, (long long)BOOK_MAX_BLOCKS);
    int blocks_per_sm = 0; /* fast: one wave of blocks, or fewer if n is small */
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, dot_fast<real>, FAST_THREADS, 0));
    const long long fast_needed = (n / vector16<real>::width + FAST_THREADS - 1) / FAST_THREADS;
    const long long fast_wave = (long long)blocks_per_sm * device.multiProcessorCount;
    const int fast_blocks = (int)(fast_needed < 1 ? 1 : fast_needed < fast_wave ? fast_needed : fast_wave);
    printf("\ndot: n = %lld, type = %s, data = %s, book/one_launch: %d blocks x %d threads, fast: %d blocks x %d "
           "threads\n%s",
           n, element_type_name(o.type), data_names[o.data_kind], blocks, threads, fast_blocks, FAST_THREADS,
           o.check_only ? "\n" : "");
    double ceiling = 0; /* one array of both arrays' bytes (read); two side by side (read2) beside it */
    if (!o.check_only) {
        ceiling = gpu_read_gbps(2.0 * bytes, o.reps);
        report_ceiling(stdout, "dot", "read", "a kernel that only reads, one array of a's and b's bytes, >= 256 MiB",
                       ceiling);
        report_ceiling(stdout, "dot", "read2",
                       "the same reading two arrays side by side: not the ceiling, see the lesson",
                       gpu_read2_gbps((double)bytes, o.reps));
    }

    real *a = (real *)host_alloc("dot", bytes, "the input vector a");
    real *b = (real *)host_alloc("dot", bytes, "the input vector b");
    fill_inputs(a, b, n, o.data_kind);
    const long double exact = exact_dot(n, o.data_kind);
    const int max_partials = blocks > fast_blocks ? blocks : fast_blocks;
    real *twin_partials = (real *)host_alloc("dot", max_partials * sizeof(real), "the CPU's partials");
    dot_buffers<real> buffers = dot_buffers_create(a, b, n, max_partials, 2); /* 2: barrier_deadlock's results */
    real *dev_a = buffers.a, *dev_b = buffers.b, *dev_partials = buffers.partials, *dev_results = buffers.results;
    unsigned int *dev_blocks_done = buffers.blocks_done;
    cublasHandle_t cublas;
    if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS ||
        cublasSetPointerMode(cublas, CUBLAS_POINTER_MODE_DEVICE) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "dot: could not create a cuBLAS handle\n");
        exit(EXIT_CUDA_ERROR);
    }
    l2_flusher flusher = l2_flusher_create(o.cold_l2 && !o.check_only);

    /* Every output buffer in full, NaN. The ticket counter is left alone:
     * resetting it for the next launch is the kernels' own job. */
    auto poison_outputs = [&] {
        gpu_poison(dev_partials, max_partials * sizeof(real));
        gpu_poison(dev_results, 2 * sizeof(real));
    };

    /* The launches, one switch: the checks and the timing call the same line. */
    auto launch = [&](int kernel) {
        switch (kernel) {
        case KERNEL_BOOK: dot_book<<<blocks, threads>>>(dev_a, dev_b, dev_partials, n); break;
        case KERNEL_ONE_LAUNCH:
            dot_one_launch<<<blocks, threads>>>(dev_a, dev_b, dev_partials, dev_blocks_done, dev_results, n);
            break;
        case KERNEL_FAST:
            dot_fast<<<fast_blocks, FAST_THREADS>>>(dev_a, dev_b, dev_partials, dev_blocks_done, dev_results, n);
            break;
        case KERNEL_CUBLAS: cublas_dot(cublas, n, dev_a, dev_b, dev_results); break;
        case KERNEL_BARRIER_IN_IF: dot_barrier_in_if<<<blocks, threads>>>(dev_a, dev_b, dev_partials, n); break;
        case KERNEL_BARRIER_FIRST_WARP:
            dot_barrier_first_warp<real, false><<<blocks, threads>>>(dev_a, dev_b, dev_partials, n);
            break;
        case KERNEL_BARRIER_FIRST_WARP_THEN_BLOCK:
            dot_barrier_first_warp<real, true><<<blocks, threads>>>(dev_a, dev_b, dev_partials, n);
            break;
        }
        CHECK_LAUNCH();
    };

    report rep;
    report_begin(&rep, "dot", stdout);
    rep.cold_l2 = o.cold_l2;
    for (int k = 0; k < KERNEL_COUNT; ++k) {
        if (!cli_kernel_selected(&o, k)) continue;
        result_row row = result_row_for(kernel_name(k), element_type_name(o.type), n);
        row.bytes = bytes_counted(k, n, sizeof(real), blocks, fast_blocks);
        const int may_hang = k == KERNEL_BARRIER_FIRST_WARP || k == KERNEL_BARRIER_FIRST_WARP_THEN_BLOCK;
        row.partials_only = k == KERNEL_BOOK || k == KERNEL_BARRIER_IN_IF || may_hang;
        /* A hung block: the table so far, then out. Ending the process ends the hung kernel. */
        auto end_hung = [&] {
            report_end(&rep);
            fflush(stdout);
            fflush(stderr);
            _exit(EXIT_DEADLOCK);
        };
        if (k == KERNEL_BARRIER_DEADLOCK) {
            const int deadlocked = demonstrate_deadlock(&row, a, b, dev_a, dev_b, dev_results, n, threads);
            report_add(&rep, &row);
            if (deadlocked) end_hung();
            continue;
        }

        /* What the CPU expects of a deterministic kernel: its own order, repeated (the result and the partials). */
        real emulated = 0;
        int partial_count = 0;
        if (k == KERNEL_FAST) {
            emulated = dot_fast_on_cpu(a, b, n, fast_blocks, twin_partials);
            partial_count = fast_blocks;
        } else if (k != KERNEL_CUBLAS) {
            emulated = dot_book_on_cpu(k == KERNEL_ONE_LAUNCH, a, b, n, blocks, threads, twin_partials);
            partial_count = blocks;
        }
        const double bound = sum_error_bound(o.type, longest_chain(k, n, blocks, threads, fast_blocks), 3);

        /* The check of the launch that just finished, from what it left on the GPU: the same for every launch. */
        auto check_launch = [&](result_row *checked) {
            real value = 0;
            if (checked->partials_only) { /* the book adds the partials on the CPU, in order, in the element type */
                real *partials = (real *)host_alloc("dot", blocks * sizeof(real), "the partial sums");
                HANDLE_ERROR(cudaMemcpy(partials, dev_partials, blocks * sizeof(real), cudaMemcpyDeviceToHost));
                for (int i = 0; i < blocks; ++i)
                    value += partials[i];
                free(partials);
            } else {
                HANDLE_ERROR(cudaMemcpy(&value, dev_results, sizeof(real), cudaMemcpyDeviceToHost));
            }
            if (k == KERNEL_CUBLAS)
                row_check(checked, value, (double)exact, cublas_tolerance(n, exact, o.type));
            else
                check_bits(checked, value, emulated, partials_differing(dev_partials, twin_partials, partial_count),
                           exact, bound);
        };

        int launches = 0; /* of this kernel, so far */
        /* A later launch: the first one that is wrong fails the row, which then shows its value and says which. */
        auto check_again = [&] {
            result_row again = result_row_for(row.kernel, row.type, n);
            again.partials_only = row.partials_only;
            check_launch(&again);
            if (row.pass && !again.pass) {
                row.value = again.value;
                row.expected = again.expected;
                row.rel_err = again.rel_err;
                row.pass = 0;
                row.note[0] = '\0';
                row_note(&row, "launch %d of this kernel wrong", launches);
                if (again.note[0]) row_note(&row, "%s", again.note);
            }
        };

        double limit = 0; /* a kernel that may hang: the seconds it is waited for */
        if (may_hang) {   /* the book's kernel on the same grid sets the limit */
            const double book_ms = time_median_ms(1, poison_outputs, [&] { launch(KERNEL_BOOK); });
            limit = DEADLOCK_WAIT_S + DEADLOCK_WAIT_TIMES * book_ms / 1e3;
        }
        poison_outputs();
        launch(k);
        ++launches;
        if (may_hang && !finished_in_time(limit)) {
            printf("  %s: the block hung: after %.1f s it has not finished. Exit %d: ending the process ends the "
                   "hung kernel.\n",
                   kernel_name(k), limit, EXIT_DEADLOCK);
            row_note(&row, "the block hung: unfinished after %.1f s", limit);
            row.pass = 0;
            report_add(&rep, &row);
            end_hung();
        }
        HANDLE_ERROR(cudaDeviceSynchronize());
        check_launch(&row);
        if (k == KERNEL_CUBLAS) {
            const long long ones = n < PROBE_ONES ? n : PROBE_ONES;
            HANDLE_ERROR(cudaMemset(dev_a, 0, bytes));
            HANDLE_ERROR(cudaMemset(dev_b, 0, bytes));
            place_probe_ones<<<(ones + 255) / 256, 256>>>(dev_a, dev_b, n, ones);
            CHECK_LAUNCH();
            real probe = 0;
            cublas_dot(cublas, n, dev_a, dev_b, dev_results);
            HANDLE_ERROR(cudaMemcpy(&probe, dev_results, sizeof(real), cudaMemcpyDeviceToHost));
            HANDLE_ERROR(cudaMemcpy(dev_a, a, bytes, cudaMemcpyHostToDevice)); /* the inputs back */
            HANDLE_ERROR(cudaMemcpy(dev_b, b, bytes, cudaMemcpyHostToDevice));
            row.pass = row.pass && probe == (real)(2 * ones);
            row_note(&row, "probe: %.0f, 2 x its %lld ones%s", (double)probe, ones,
                     probe == (real)(2 * ones) ? "" : " !");
        }
        if (o.check_only && (k == KERNEL_ONE_LAUNCH || k == KERNEL_FAST))
            for (int relaunch = 0; relaunch < CHECK_RELAUNCHES; ++relaunch) {
                poison_outputs();
                launch(k);
                ++launches;
                HANDLE_ERROR(cudaDeviceSynchronize());
                check_again();
            }

        if (!o.check_only && k <= KERNEL_CUBLAS) {
            const double ms = time_median_ms(
                o.reps,
                [&] {
                    if (launches > 1) check_again(); /* the timed launch before this one */
                    poison_outputs();
                    HANDLE_ERROR(cudaDeviceSynchronize()); /* idle again, as after every launch */
                    l2_flush(&flusher);
                },
                [&] {
                    launch(k);
                    ++launches;
                });
            check_again(); /* the last timed launch */
            row_time(&row, ms, "read", ceiling);
        }
        report_add(&rep, &row);
        if (k == KERNEL_BARRIER_IN_IF) explain_barrier_in_if(row.pass);
        if (may_hang) explain_barrier_first_warp(k, row.pass, limit);
    }
    l2_flusher_free(&flusher);
    cublasDestroy(cublas);
    dot_buffers_free(&buffers);
    free(a);
    free(b);
    free(twin_partials);
    return report_end(&rep);
}

static int run_progression(const cli_options &o, const struct cudaDeviceProp &device) {
    return o.type == ELEMENT_DOUBLE ? run<double>(o, device) : run<float>(o, device);
}

// ---------------------------------------------------------------------------
// --part cpu_sum: the book says the CPU adds the partials because a small final
// sum is more efficient there. Put to the test as a caller sees it, on the
// host's clock: the book's round trip (launch, copy the partials back, add them
// on the CPU) against one_launch's (launch, copy the one result back). Both
// poisoned before each round trip (the partials on the GPU and in the host's
// copy, the result), outside the timed span, and every answer checked bit for
// bit against the CPU's repeat of that kernel's order.

static double host_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/* Round trips, each after prepare(), on the host's clock: TIME_WARMUP_RUNS
 * warm-ups, then `reps` timed ones, whose median (ms) it returns; with reps 0
 * (--check) one round trip, not timed. Every answer is checked: the first
 * fills the row, a later one that differs fails it. */
template <typename real, typename Prepare, typename RoundTrip>
static double round_trips_median_ms(result_row *row, int reps, real expected, long double exact, double bound,
                                    Prepare prepare, RoundTrip round_trip) {
    double *times = (double *)host_alloc("dot", sizeof(double) * (size_t)(reps > 0 ? reps : 1), "the round trip times");
    const int first = reps > 0 ? -TIME_WARMUP_RUNS : 0, last = reps > 0 ? reps : 1;
    for (int rep = first; rep < last; ++rep) {
        prepare();
        const double start = host_seconds();
        const real value = round_trip();
        const double ms = 1e3 * (host_seconds() - start);
        if (reps > 0 && rep >= 0) times[rep] = ms;
        if (rep == first) {
            check_bits(row, value, expected, 0, exact, bound);
        } else if (row->pass && !(value == expected)) {
            row_check(row, value, expected, 0);
            row->note[0] = '\0';
            row_note(row, "round trip %d of %d wrong", rep - first + 1, last - first);
        }
    }
    const double median = reps > 0 ? median_of(times, reps) : 0;
    free(times);
    return median;
}

template <typename real> static int run_cpu_sum(const cli_options &o) {
    const long long n = o.n;
    const size_t bytes = (size_t)n * sizeof(real);
    const int threads = o.block;
    const int blocks = (int)imin((n + threads - 1) / threads, (long long)BOOK_MAX_BLOCKS);
    printf("\ndot --part cpu_sum: n = %lld, type = %s, data = %s, book and one_launch: %d blocks x %d threads\n\n", n,
           element_type_name(o.type), data_names[o.data_kind], blocks, threads);
    real *a = (real *)host_alloc("dot", bytes, "the input vector a");
    real *b = (real *)host_alloc("dot", bytes, "the input vector b");
    fill_inputs(a, b, n, o.data_kind);
    const long double exact = exact_dot(n, o.data_kind);
    real *twin_partials = (real *)host_alloc("dot", blocks * sizeof(real), "the CPU's partials");
    const real book_total = dot_book_on_cpu(false, a, b, n, blocks, threads, twin_partials);
    const real one_launch_total = dot_book_on_cpu(true, a, b, n, blocks, threads, twin_partials);
    real *partials = (real *)host_alloc("dot", blocks * sizeof(real), "the partial sums"); /* the book's copy */
    dot_buffers<real> buffers = dot_buffers_create(a, b, n, blocks, 1);
    real *dev_a = buffers.a, *dev_b = buffers.b, *dev_partials = buffers.partials, *dev_result = buffers.results;
    unsigned int *dev_blocks_done = buffers.blocks_done;
    l2_flusher flusher = l2_flusher_create(o.cold_l2 && !o.check_only);

    /* Before each round trip, untimed: every output poisoned, the L2 flushed if asked, the GPU idle. */
    auto prepare = [&] {
        gpu_poison(dev_partials, blocks * sizeof(real));
        gpu_poison(dev_result, sizeof(real));
        for (int i = 0; i < blocks; ++i)
            partials[i] = (real)NAN;
        l2_flush(&flusher);
        HANDLE_ERROR(cudaDeviceSynchronize());
    };
    /* The book's main, from the launch to c. */
    auto book_round_trip = [&] {
        dot_book<<<blocks, threads>>>(dev_a, dev_b, dev_partials, n);
        CHECK_LAUNCH();
        HANDLE_ERROR(cudaMemcpy(partials, dev_partials, blocks * sizeof(real), cudaMemcpyDeviceToHost));
        real c = 0;
        for (int i = 0; i < blocks; ++i)
            c += partials[i];
        return c;
    };
    auto one_launch_round_trip = [&] {
        dot_one_launch<<<blocks, threads>>>(dev_a, dev_b, dev_partials, dev_blocks_done, dev_result, n);
        CHECK_LAUNCH();
        real c = 0;
        HANDLE_ERROR(cudaMemcpy(&c, dev_result, sizeof(real), cudaMemcpyDeviceToHost));
        return c;
    };

    const int reps = o.check_only ? 0 : o.reps;
    report rep;
    report_begin(&rep, "dot", stdout);
    result_row book = result_row_for("book_cpu_sum", element_type_name(o.type), n);
    result_row one_launch = result_row_for("one_launch_copy", element_type_name(o.type), n);
    const double book_ms = round_trips_median_ms(
        &book, reps, book_total, exact, sum_error_bound(o.type, longest_chain(KERNEL_BOOK, n, blocks, threads, 1), 3),
        prepare, book_round_trip);
    const double one_launch_ms =
        round_trips_median_ms(&one_launch, reps, one_launch_total, exact,
                              sum_error_bound(o.type, longest_chain(KERNEL_ONE_LAUNCH, n, blocks, threads, 1), 3),
                              prepare, one_launch_round_trip);
    if (!o.check_only) {
        row_note(&book, "round trip %.1f us on the host's clock", 1e3 * book_ms);
        row_note(&one_launch, "round trip %.1f us on the host's clock", 1e3 * one_launch_ms);
    }
    report_add(&rep, &book);
    report_add(&rep, &one_launch);
    if (o.check_only)
        printf("cpu_sum n=%lld type=%s: each round trip checked once, not timed (--check)\n", n,
               element_type_name(o.type));
    else {
        const int book_faster = book_ms < one_launch_ms;
        const double faster = book_faster ? book_ms : one_launch_ms, slower = book_faster ? one_launch_ms : book_ms;
        printf("cpu_sum n=%lld type=%s: book + copy back + CPU sum %.1f us, one_launch + copy back %.1f us (host "
               "clock, median of %d round trips): %s faster by %.1f us (%.0f %% less time)\n",
               n, element_type_name(o.type), 1e3 * book_ms, 1e3 * one_launch_ms, reps,
               book_faster ? "book + CPU sum" : "one_launch", 1e3 * (slower - faster),
               percent_of(slower - faster, slower));
    }
    l2_flusher_free(&flusher);
    dot_buffers_free(&buffers);
    free(a);
    free(b);
    free(twin_partials);
    free(partials);
    return report_end(&rep);
}

static int compare_cpu_sum(const cli_options &o) {
    return o.type == ELEMENT_DOUBLE ? run_cpu_sum<double>(o) : run_cpu_sum<float>(o);
}
