/* ch05_dot: the dot product with a per-block shared-memory cache
 * (CUDA by Example, ch. 5, "Shared Memory and Synchronization": Dot Product).
 *
 * What it teaches: threads of one block cooperate through __shared__ memory;
 * __syncthreads() makes every thread wait until the whole block has written;
 * a halving tree sums the block's values in log2(blockDim) steps.
 *
 * Build this file alone, from its folder:
 *   nvcc -O3 -I../common dot.cu -o dot -lcublas
 *
 * Build and run (from the repository root):
 *   cmake -S . -B build && cmake --build build -j
 *   build/ch05_dot/dot                      # the book's run: N = 33792, float
 *   build/ch05_dot/dot --n 2^26 --type double --kernel fast,cublas
 *   build/ch05_dot/dot --help
 *
 * Kernels, in teaching order:
 *   book        the book's kernel: grid-stride products, shared cache, halving
 *               tree; one partial per block, the partials added on the CPU.
 *   one_launch  the same, but the last block to finish adds the partials:
 *               one launch returns one number, nothing left for the CPU.
 *   fast        bandwidth-bound: 16-byte loads, warp shuffles instead of the
 *               shared tree, a grid sized to fill the GPU exactly once.
 *   cublas      cuBLAS Sdot / Ddot: the library a professional would call.
 *
 * Data: --data book (default) is the book's a[i] = i, b[i] = 2i, whose exact
 * dot is 2 (n-1) n (2n-1) / 6. Above 2^24 a float cannot hold every i, so
 * --data periodic gives a[i] = i mod 4093, b[i] = 4092 - (i mod 4093): every
 * input and product is an exact float at any n, and the exact dot is still a
 * closed form (common/numerics.c). Every kernel is checked against the exact
 * value with a rounding-error bound computed from its own summation order. */
#include <cublas_v2.h>
#include <stdio.h>
#include <stdlib.h>

#include "block_reduce.cuh"
#include "cli.h"
#include "gpu.h"
#include "numerics.h"
#include "report.h"

// ---------------------------------------------------------------------------
// Constants: the book's, and ours.

#define BOOK_N (33 * 1024) /* 33792 elements                          */
#define BOOK_THREADS 256   /* threadsPerBlock                         */
#define BOOK_MAX_BLOCKS 32 /* blocksPerGrid = min(32, ceil(N / 256))  */
#define MAX_THREADS 1024   /* the largest block --block allows */
#define FAST_THREADS 256

enum { KERNEL_BOOK, KERNEL_ONE_LAUNCH, KERNEL_FAST, KERNEL_CUBLAS };
static const char *const kernel_names[] = {"book", "one_launch", "fast", "cublas", NULL};
enum { DATA_BOOK, DATA_PERIODIC };
static const char *const data_names[] = {"book", "periodic", NULL};

// ---------------------------------------------------------------------------
// Inputs and the exact answer, on the CPU.

template <typename real> static void fill_inputs(real *a, real *b, long long n, int data) {
    for (long long i = 0; i < n; ++i) {
        if (data == DATA_BOOK) {
            a[i] = (real)i;
            b[i] = (real)(2 * i);
        } else {
            a[i] = (real)dot_periodic_a(i);
            b[i] = (real)dot_periodic_b(i);
        }
    }
}

static long double exact_dot(long long n, int data) {
    return data == DATA_BOOK ? dot_book_closed_form(n) : dot_periodic_closed_form(n);
}

// ---------------------------------------------------------------------------
// Kernel 1, book: each thread sums its products in a register, the block meets
// in shared memory, and a halving tree leaves the block's sum in s_cache[0].

/* The cache: one entry per thread of the block. The book sizes it with its
 * constant threadsPerBlock (256); a static array's size must be a compile-time
 * constant, so ours covers the largest block --block allows, and a block uses
 * its first blockDim.x entries. */

/* The halving tree: at each step the lower half adds the upper half. It needs
 * blockDim.x to be a power of two. The barrier sits outside the if: every
 * thread of the block must reach it, or the block may hang. */
template <typename real> __device__ void halving_tree(real *s_cache) {
    for (unsigned int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) s_cache[threadIdx.x] += s_cache[threadIdx.x + half];
        __syncthreads();
    }
}

template <typename real> __global__ void dot_book(const real *a, const real *b, real *partials, long long n) {
    __shared__ real s_cache[MAX_THREADS];
    real sum = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)
        sum += a[i] * b[i];
    s_cache[threadIdx.x] = sum;
    __syncthreads(); /* every thread's value is in s_cache before anyone reads it */
    halving_tree(s_cache);
    if (threadIdx.x == 0) partials[blockIdx.x] = s_cache[0];
}

// ---------------------------------------------------------------------------
// Kernel 2, one_launch: what changed is the end. Instead of leaving 32
// partials for the CPU, the last block to finish adds them (the "last block"
// pattern: a fence, then an atomic ticket), so one launch gives one number and
// no copy-and-add on the host is needed. The order of additions is fixed, so
// the result is the same on every run.

template <typename real>
__global__ void dot_one_launch(const real *a, const real *b, real *partials, unsigned int *blocks_done, real *result,
                               long long n) {
    __shared__ real s_cache[MAX_THREADS];
    real sum = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)
        sum += a[i] * b[i];
    s_cache[threadIdx.x] = sum;
    __syncthreads();
    halving_tree(s_cache);
    if (store_partial_and_check_last(s_cache[0], partials, blocks_done)) {
        s_cache[threadIdx.x] = sum_my_partials(partials, gridDim.x);
        __syncthreads();
        halving_tree(s_cache);
        if (threadIdx.x == 0) {
            *result = s_cache[0];
            *blocks_done = 0;
        }
    }
}

// ---------------------------------------------------------------------------
// Kernel 3, fast: the dot reads 2n elements and does 2n flops, so its limit is
// memory bandwidth. What changed, and why:
//  - 16-byte loads (float4 / double2): a quarter (half) of the load instructions;
//  - two independent loads of each vector per iteration, so more bytes are in
//    flight per thread while it waits for memory;
//  - warp shuffles (common/block_reduce.cuh) replace the shared-memory tree:
//    fewer barriers, no shared-memory traffic;
//  - the grid is exactly as many blocks as fit on the GPU at once, each looping
//    over the array, so there are few partials and no tail of idle blocks.

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
        sum0 += sum_of_products(x0, y0);
        sum1 += sum_of_products(x1, y1);
    }
    if (i < vectors) sum0 += sum_of_products(a_vectors[i], b_vectors[i]);
    const long long tail = vectors * width + thread; /* the last n % width elements */
    if (tail < n) sum1 += a[tail] * b[tail];

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
// Launchers: one struct holds a run's buffers; each launch function only
// enqueues work, so the same function serves the check and the timing.

typedef struct {
    long long n;
    int threads, blocks; /* book and one_launch            */
    int fast_blocks;     /* fast                           */
    const void *a, *b;   /* device inputs                  */
    void *partials, *result;
    unsigned int *blocks_done;
    cublasHandle_t cublas;
} dot_run;

template <typename real> static void launch_book(void *context) {
    dot_run *r = (dot_run *)context;
    dot_book<real><<<r->blocks, r->threads>>>((const real *)r->a, (const real *)r->b, (real *)r->partials, r->n);
    CHECK_LAUNCH();
}

template <typename real> static void launch_one_launch(void *context) {
    dot_run *r = (dot_run *)context;
    dot_one_launch<real><<<r->blocks, r->threads>>>((const real *)r->a, (const real *)r->b, (real *)r->partials,
                                                    r->blocks_done, (real *)r->result, r->n);
    CHECK_LAUNCH();
}

template <typename real> static void launch_fast(void *context) {
    dot_run *r = (dot_run *)context;
    dot_fast<real><<<r->fast_blocks, FAST_THREADS>>>((const real *)r->a, (const real *)r->b, (real *)r->partials,
                                                     r->blocks_done, (real *)r->result, r->n);
    CHECK_LAUNCH();
}

/* cuBLAS in device pointer mode: the result stays on the GPU, like ours. */
static cublasStatus_t cublas_dot(cublasHandle_t h, long long n, const float *a, const float *b, float *result) {
    return cublasSdot_64(h, n, a, 1, b, 1, result);
}
static cublasStatus_t cublas_dot(cublasHandle_t h, long long n, const double *a, const double *b, double *result) {
    return cublasDdot_64(h, n, a, 1, b, 1, result);
}

template <typename real> static void launch_cublas(void *context) {
    dot_run *r = (dot_run *)context;
    cublasStatus_t status = cublas_dot(r->cublas, r->n, (const real *)r->a, (const real *)r->b, (real *)r->result);
    if (status != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "%s:%d: cuBLAS dot failed: %s\n", __FILE__, __LINE__, cublasGetStatusString(status));
        exit(EXIT_CUDA_ERROR);
    }
}

// ---------------------------------------------------------------------------
// Running, checking and timing each kernel.

/* Longest chain of additions any product goes through, per kernel: the error
 * bound is chain * u relative to the exact dot (all terms have one sign). */
static long long summation_chain(int kernel, const dot_run *r) {
    long long per_thread = (r->n + (long long)r->threads * r->blocks - 1) / ((long long)r->threads * r->blocks);
    long long per_fast_thread =
        (r->n + (long long)FAST_THREADS * r->fast_blocks - 1) / ((long long)FAST_THREADS * r->fast_blocks);
    switch (kernel) {
    case KERNEL_BOOK: return per_thread + ceil_log2(r->threads) + r->blocks; /* CPU adds partials in a row */
    case KERNEL_ONE_LAUNCH: return per_thread + 2 * ceil_log2(r->threads) + (r->blocks + r->threads - 1) / r->threads;
    case KERNEL_FAST:
        return per_fast_thread + 2 * ceil_log2(FAST_THREADS) + (r->fast_blocks + FAST_THREADS - 1) / FAST_THREADS;
    default: return (r->n + 1023) / 1024 + 64; /* cuBLAS's order is undocumented: 1024 serial chains */
    }
}

template <typename real> static int run_all(const cli_options *o, const struct cudaDeviceProp *device) {
    const long long n = o->n;
    const size_t bytes = (size_t)n * sizeof(real);
    dot_run r;
    r.n = n;
    r.threads = o->block;
    r.blocks =
        (int)((n + r.threads - 1) / r.threads < BOOK_MAX_BLOCKS ? (n + r.threads - 1) / r.threads : BOOK_MAX_BLOCKS);
    int blocks_per_sm = 0;
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, dot_fast<real>, FAST_THREADS, 0));
    long long needed = (n / vector16<real>::width + FAST_THREADS - 1) / FAST_THREADS;
    r.fast_blocks = (int)(needed < 1 ? 1 : needed);
    if (r.fast_blocks > blocks_per_sm * device->multiProcessorCount)
        r.fast_blocks = blocks_per_sm * device->multiProcessorCount;

    printf("dot: n = %lld, type = %s, data = %s, book/one_launch: %d blocks x %d threads, fast: %d blocks x %d "
           "threads\n\n",
           n, element_type_name(o->type), data_names[o->data_kind], r.blocks, r.threads, r.fast_blocks, FAST_THREADS);

    gpu_require_memory("dot", 2.0 * bytes + 64.0 * (1 << 20), "the two input vectors (and cuBLAS's workspace)");
    real *a = (real *)host_alloc("dot", bytes, "the input vector a");
    real *b = (real *)host_alloc("dot", bytes, "the input vector b");
    fill_inputs(a, b, n, o->data_kind);
    const int max_partials = r.blocks > r.fast_blocks ? r.blocks : r.fast_blocks;
    HANDLE_ERROR(cudaMalloc((void **)&r.a, bytes));
    HANDLE_ERROR(cudaMalloc((void **)&r.b, bytes));
    HANDLE_ERROR(cudaMalloc(&r.partials, max_partials * sizeof(real)));
    HANDLE_ERROR(cudaMalloc(&r.result, sizeof(real)));
    HANDLE_ERROR(cudaMalloc((void **)&r.blocks_done, sizeof(unsigned int)));
    HANDLE_ERROR(cudaMemset(r.blocks_done, 0, sizeof(unsigned int)));
    HANDLE_ERROR(cudaMemcpy((void *)r.a, a, bytes, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMemcpy((void *)r.b, b, bytes, cudaMemcpyHostToDevice));
    free(a);
    free(b);
    if (cublasCreate(&r.cublas) != CUBLAS_STATUS_SUCCESS ||
        cublasSetPointerMode(r.cublas, CUBLAS_POINTER_MODE_DEVICE) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "dot: could not create a cuBLAS handle\n");
        exit(EXIT_CUDA_ERROR);
    }

    const long double exact = exact_dot(n, o->data_kind);
    const double copy_gbps = o->check_only ? 0 : gpu_copy_bandwidth_gbps(2.0 * bytes, o->reps);
    if (!o->check_only) report_ceiling(stdout, "dot", "memcpy", "cudaMemcpy device to device, >= 256 MiB", copy_gbps);

    gpu_launch_fn launchers[] = {launch_book<real>, launch_one_launch<real>, launch_fast<real>, launch_cublas<real>};
    report rep;
    report_begin(&rep, "dot", stdout);
    for (int k = 0; kernel_names[k]; ++k) {
        if (!cli_kernel_selected(o, k)) continue;
        /* Check: poisoned outputs, one launch, the answer copied back. */
        gpu_poison(r.partials, max_partials * sizeof(real));
        gpu_poison(r.result, sizeof(real));
        launchers[k](&r);
        HANDLE_ERROR(cudaDeviceSynchronize());
        real value = 0;
        if (k == KERNEL_BOOK) { /* the book adds the partials on the CPU, in the element type */
            real *partials = (real *)host_alloc("dot", r.blocks * sizeof(real), "the partial sums");
            HANDLE_ERROR(cudaMemcpy(partials, r.partials, r.blocks * sizeof(real), cudaMemcpyDeviceToHost));
            for (int i = 0; i < r.blocks; ++i)
                value += partials[i];
            free(partials);
            /* The book's own line: its closed form, evaluated in the element type
             * (it holds for the book's data only). */
            real x = (real)(n - 1);
            if (o->data_kind == DATA_BOOK)
                printf("Does GPU value %.6g = %.6g?\n", (double)value, (double)(2 * (x * (x + 1) * (2 * x + 1) / 6)));
        } else {
            HANDLE_ERROR(cudaMemcpy(&value, r.result, sizeof(real), cudaMemcpyDeviceToHost));
        }

        result_row row = result_row_for(kernel_names[k], element_type_name(o->type), n);
        row.has_value = 1;
        row.value = (double)value;
        row.expected = (double)exact;
        row.rel_err = (double)(fabsl((long double)value - exact) / (exact != 0 ? exact : 1));
        /* +3: each input and each product may be rounded once before the sum. */
        row.tolerance = sum_error_bound(o->type, summation_chain(k, &r), 3);
        row.pass = isfinite((double)value) && row.rel_err <= row.tolerance;
        if (!o->check_only) {
            row.timed = 1;
            row.ms = gpu_time_median_ms(launchers[k], &r, o->reps);
            row.gbps = gigabytes_per_second(bytes_moved(2.0 * n, 1, sizeof(real)), row.ms);
            row.pct_ceiling = percent_of(row.gbps, copy_gbps);
            row.ceiling = "memcpy";
        }
        if (k == KERNEL_BOOK) row.note = "(kernel only: the CPU adds the partials)";
        report_add(&rep, &row);
    }
    cublasDestroy(r.cublas);
    HANDLE_ERROR(cudaFree((void *)r.a));
    HANDLE_ERROR(cudaFree((void *)r.b));
    HANDLE_ERROR(cudaFree(r.partials));
    HANDLE_ERROR(cudaFree(r.result));
    HANDLE_ERROR(cudaFree(r.blocks_done));
    return report_end(&rep);
}

// ---------------------------------------------------------------------------

int main(int argc, char **argv) {
    static const cli_spec spec = {
        "dot",
        "dot product with a per-block shared-memory cache (CUDA by Example, ch. 5)",
        CLI_N | CLI_KERNEL | CLI_TYPE | CLI_REPS | CLI_CHECK | CLI_DEVICE | CLI_BLOCK | CLI_DATA,
        kernel_names,
        data_names,
        BOOK_N,
        0,
        0,
        BOOK_THREADS,
        "--block sets the threads per block of book and one_launch: a power of two from 32 to 1024,\n"
        "because the halving tree halves blockDim.x until 1. fast always uses 256 threads.\n"
        "--data book: a[i] = i, b[i] = 2i (the book); periodic: a[i] = i mod 4093, b[i] = 4092 - i mod 4093,\n"
        "exact in float at any n."};
    cli_options o;
    cli_parse_or_exit(&spec, argc, argv, &o);
    if (!is_power_of_two(o.block) || o.block < 32) {
        fprintf(stderr, "dot: --block %d: the halving tree needs a power of two from 32 to 1024\n", o.block);
        return EXIT_BAD_COMMAND_LINE;
    }
    struct cudaDeviceProp device;
    gpu_select_device("dot", o.device, &device);
    return o.type == ELEMENT_DOUBLE ? run_all<double>(&o, &device) : run_all<float>(&o, &device);
}
