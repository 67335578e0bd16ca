/* ch08_transpose: shared memory turns a strided access into a coalesced one,
 * and one column of padding removes the bank conflicts
 * (Fan Zheyong, CUDA 编程：基础与实践, ch. 8, "matrix transpose").
 *
 * What it teaches: a warp's global accesses are fast when its 32 threads touch
 * consecutive addresses (coalescing). A transpose reads rows and writes columns,
 * so one side is always strided -- unless a block stages a 32 x 32 tile in
 * __shared__ memory: read the tile row by row, barrier, write it out row by
 * row while reading the tile column by column. Reading a column of a [32][32]
 * float tile hits one shared-memory bank 32 times (a 32-way bank conflict);
 * a [32][33] tile shifts every row by one bank and the conflict is gone.
 *
 * Build this file alone, from its folder:
 *   nvcc -O3 -I../common transpose.cu -o transpose -lcublas
 *
 * Build and run (from the repository root):
 *   cmake -S . -B build && cmake --build build -j
 *   build/ch08_transpose/transpose                    # the book's 10000 x 10000 float, every kernel
 *   build/ch08_transpose/transpose --n 8192 --type double --kernel copy,padded,padded_multi,cublas
 *   build/ch08_transpose/transpose --rows 4097 --cols 1023 --check
 *   scripts/bank_conflicts.sh build                   # bank conflicts per kernel (Nsight Compute)
 *
 * Kernels, in teaching order (input rows x cols, row-major; output cols x rows):
 *   copy         the same bytes copied without transposing, 16-byte loads:
 *                the bandwidth reference every other kernel is compared with.
 *   naive_read   one element per thread: coalesced read, strided write (book).
 *   naive_write  one element per thread: strided read through the read-only
 *                cache (__ldg), coalesced write (book).
 *   shared       32 x 32 tile in shared memory, 32 x 32 threads (book form):
 *                both global accesses coalesced, 32-way bank conflicts.
 *   padded       the same with a [32][33] tile: conflict-free (book form).
 *   padded_multi 32 x 8 threads, several elements each, on a padded tile
 *                256 bytes wide (64 x 64 floats, 32 x 32 doubles): many
 *                bytes in flight, long row segments. This reaches the copy.
 *   swizzled     the same tile and threads, unpadded, with an XOR swizzle:
 *                conflict-free without the padding column.
 *   cublas       cuBLAS Sgeam / Dgeam with op(A) = A^T: the library reference.
 *
 * Every kernel is checked element by element, exactly, against a CPU transpose
 * of distinct values; the output is poisoned (NaN) before each kernel runs, so
 * an element a kernel forgot to write fails. Any size >= 1 works, not only
 * multiples of 32. */
#include <cublas_v2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_reduce.cuh" /* vector16<real>: the 16-byte vector type of the copy kernel */
#include "cli.h"
#include "gpu.h"
#include "report.h"

// ---------------------------------------------------------------------------
// Constants: the book's, and ours.

#define BOOK_N 10000    /* the book's table: a 10000 x 10000 matrix           */
#define TILE_DIM 32     /* the book's tile: 32 x 32 elements                  */
#define ROWS_PER_PASS 8 /* padded_multi and swizzled: 32 x 8 threads per block */
/* padded_multi's tile is 256 bytes wide: 64 floats or 32 doubles, square. */
#define WIDE_TILE(real) ((int)(256 / sizeof(real)))
#define COPY_THREADS 256
#define MAX_GRID_Y 65535 /* gridDim.y limit on every GPU; taller matrices loop */

/* Float holds every whole number up to 2^24 exactly. Element i of the input is
 * i itself while that fits; beyond it, i mod 16777213 (the largest prime below
 * 2^24): a misplaced element then goes unnoticed only if its true and its
 * wrong position lie a multiple of that prime apart, which the regular strides
 * of a buggy transpose (32, 8, rows, cols, their multiples) practically never
 * are. Double holds every index any GPU can store (below 2^53) exactly. */
#define FLOAT_DISTINCT_PERIOD 16777213LL
#define DOUBLE_DISTINCT_PERIOD (1LL << 53)

enum {
    KERNEL_COPY,
    KERNEL_NAIVE_READ,
    KERNEL_NAIVE_WRITE,
    KERNEL_SHARED,
    KERNEL_PADDED,
    KERNEL_PADDED_MULTI,
    KERNEL_SWIZZLED,
    KERNEL_CUBLAS,
    KERNEL_COUNT
};
static const char *const kernel_names[] = {"copy",         "naive_read", "naive_write", "shared", "padded",
                                           "padded_multi", "swizzled",   "cublas",      NULL};

// ---------------------------------------------------------------------------
// Inputs and the expected answer, on the CPU.

template <typename real> static void fill_distinct(real *in, long long n) {
    const long long period = sizeof(real) == sizeof(float) ? FLOAT_DISTINCT_PERIOD : DOUBLE_DISTINCT_PERIOD;
    for (long long i = 0; i < n; ++i)
        in[i] = (real)(i % period);
}

/* out[c][r] = in[r][c], in 64 x 64 blocks so that both sides stay in the
 * CPU's cache (a plain double loop takes seconds at 10000 x 10000). */
template <typename real> static void transpose_cpu(const real *in, real *out, long long rows, long long cols) {
    const long long block = 64;
    for (long long row0 = 0; row0 < rows; row0 += block)
        for (long long col0 = 0; col0 < cols; col0 += block) {
            const long long row_end = row0 + block < rows ? row0 + block : rows;
            const long long col_end = col0 + block < cols ? col0 + block : cols;
            for (long long r = row0; r < row_end; ++r)
                for (long long c = col0; c < col_end; ++c)
                    out[c * rows + r] = in[r * cols + c];
        }
}

/* Exact comparison: a data movement creates no rounding, so every element must
 * be bit for bit the expected one. NaN (the poison) is unequal to everything. */
template <typename real>
static long long count_mismatches(const real *got, const real *expected, long long n, long long *first) {
    long long wrong = 0;
    *first = -1;
    for (long long i = 0; i < n; ++i)
        if (!(got[i] == expected[i])) {
            if (wrong == 0) *first = i;
            ++wrong;
        }
    return wrong;
}

// ---------------------------------------------------------------------------
// Kernel 1, copy: not a transpose. It moves the same bytes (every element read
// once, written once) as fast as a kernel can: 16-byte loads and stores, a
// grid-stride loop over a grid that fills the GPU once. Its GB/s is the
// ceiling of this run; "% copy" in the table is measured against it.

template <typename real>
__global__ void __launch_bounds__(COPY_THREADS)
    copy_matrix(const real *__restrict__ in, real *__restrict__ out, long long n) {
    typedef typename vector16<real>::type vector;
    const int width = vector16<real>::width;
    const vector *in_vectors = reinterpret_cast<const vector *>(in); /* cudaMalloc aligns to 256 bytes */
    vector *out_vectors = reinterpret_cast<vector *>(out);
    const long long vectors = n / width;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (long long i = thread; i < vectors; i += stride)
        out_vectors[i] = in_vectors[i];
    const long long tail = vectors * width + thread; /* the last n % width elements */
    if (tail < n) out[tail] = in[tail];
}

/* Every transpose below works on 32 x 32 tiles: blockIdx.x picks the tile's
 * columns, blockIdx.y its rows. gridDim.y stops at 65535, so a matrix taller
 * than 65535 tiles is covered by looping over tile rows with a stride of
 * gridDim.y tiles; for every other size each block goes through the loop once.
 * Index arithmetic is 64-bit: rows * cols may exceed 2^31. */

// ---------------------------------------------------------------------------
// Kernel 2, naive_read (book): thread (x, y) of a 32 x 32 block moves one
// element. Neighbouring threads read neighbouring elements of a row
// (coalesced), but write them `rows` elements apart: 32 separate 32-byte
// sectors per warp store, of which 4 bytes each are used.

template <typename real>
__global__ void transpose_naive_read(const real *in, real *out, long long rows, long long cols) {
    const long long c = (long long)blockIdx.x * TILE_DIM + threadIdx.x;
    for (long long row0 = (long long)blockIdx.y * TILE_DIM; row0 < rows; row0 += (long long)gridDim.y * TILE_DIM) {
        const long long r = row0 + threadIdx.y;
        if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
    }
}

// ---------------------------------------------------------------------------
// Kernel 3, naive_write (book): the other way round. Neighbouring threads now
// take neighbouring input rows, so the write is coalesced and the read is
// strided; __ldg sends the read through the read-only (texture) cache, where
// the other elements of each fetched sector wait for the next warps' reads.
// Here blockIdx.x runs over tiles of input rows, blockIdx.y over tiles of columns.

template <typename real>
__global__ void transpose_naive_write(const real *in, real *out, long long rows, long long cols) {
    const long long r = (long long)blockIdx.x * TILE_DIM + threadIdx.x;
    for (long long col0 = (long long)blockIdx.y * TILE_DIM; col0 < cols; col0 += (long long)gridDim.y * TILE_DIM) {
        const long long c = col0 + threadIdx.y;
        if (r < rows && c < cols) out[c * rows + r] = __ldg(&in[r * cols + c]);
    }
}

// ---------------------------------------------------------------------------
// Kernel 4, shared (book form, 32 x 32 threads): the block reads its tile row
// by row into shared memory (coalesced), waits, and writes the transposed tile
// row by row (coalesced) reading the tile column by column. Both global
// accesses are now coalesced; the price is in shared memory.
//
// Banks: shared memory has 32 banks, 4 bytes wide (on every GPU since Maxwell,
// Ampere and Hopper included), word w lives in bank w mod 32. Thread x of a
// warp reads s_tile[x][y], word 32x + y: bank y for all 32 threads, a 32-way
// conflict (32 transactions instead of 1). For double, a warp's 256 bytes go
// in two halves of 16 threads; s_tile[x][y] starts at word 64x + 2y, the same
// bank pair for all 16: a 16-way conflict per half.

template <typename real> __global__ void transpose_shared(const real *in, real *out, long long rows, long long cols) {
    __shared__ real s_tile[TILE_DIM][TILE_DIM];
    const long long col0 = (long long)blockIdx.x * TILE_DIM;
    for (long long row0 = (long long)blockIdx.y * TILE_DIM; row0 < rows; row0 += (long long)gridDim.y * TILE_DIM) {
        const long long r = row0 + threadIdx.y, c = col0 + threadIdx.x;
        if (r < rows && c < cols) s_tile[threadIdx.y][threadIdx.x] = in[r * cols + c];
        __syncthreads(); /* the whole tile is in shared memory before anyone reads it */
        /* Output row = input column col0 + y, output column = input row row0 + x. */
        const long long out_row = col0 + threadIdx.y, out_col = row0 + threadIdx.x;
        if (out_row < cols && out_col < rows) out[out_row * rows + out_col] = s_tile[threadIdx.x][threadIdx.y];
        __syncthreads(); /* everyone has read the tile before the next loop pass overwrites it */
    }
}

// ---------------------------------------------------------------------------
// Kernel 5, padded (book form): what changed is one column. In a [32][33]
// tile, s_tile[x][y] is word 33x + y, bank (x + y) mod 32: 32 different banks,
// no conflict. Row-wise writes stay conflict-free. For double, word 66x + 2y:
// the 16 threads of each half-warp get 16 different bank pairs (an odd row
// stride in 8-byte units), so one padding element fixes double too.
// Still one element per thread: the barrier stalls the whole 1024-thread block
// and each thread has a single load in flight, which keeps it below the copy.

template <typename real> __global__ void transpose_padded(const real *in, real *out, long long rows, long long cols) {
    __shared__ real s_tile[TILE_DIM][TILE_DIM + 1];
    const long long col0 = (long long)blockIdx.x * TILE_DIM;
    for (long long row0 = (long long)blockIdx.y * TILE_DIM; row0 < rows; row0 += (long long)gridDim.y * TILE_DIM) {
        const long long r = row0 + threadIdx.y, c = col0 + threadIdx.x;
        if (r < rows && c < cols) s_tile[threadIdx.y][threadIdx.x] = in[r * cols + c];
        __syncthreads();
        const long long out_row = col0 + threadIdx.y, out_col = row0 + threadIdx.x;
        if (out_row < cols && out_col < rows) out[out_row * rows + out_col] = s_tile[threadIdx.x][threadIdx.y];
        __syncthreads();
    }
}

// ---------------------------------------------------------------------------
// Kernel 6, padded_multi: a padded tile moved by 32 x 8 threads, each taking
// several elements: a thread issues all its loads before it uses one, so many
// bytes are in flight per thread, and fewer threads compute indices and wait at
// the barrier. The tile is 256 bytes wide whatever the type, 64 x 64 floats or
// 32 x 32 doubles: every row segment the block reads or writes is then 256
// contiguous bytes, where a 32-float row is only 128. (Measured on an H100
// while this chapter was written: the same kernel with 32 x 32 float tiles,
// commit 4b8c2ec's padded_32x8, stopped near 89 % of the copy, while 32 x 32
// doubles reached it; 256-byte float rows closed the gap.) A float thread
// moves 2 columns x 8 rows, a double thread 1 x 4. Padding: row r of a
// [64][65] float tile starts at bank r mod 32, so a warp reading tile column c
// touches 32 different banks.
//
// The body is a device function shared with kernel 7, which differs only in
// where tile element (r, c) lives in shared memory: tile_offset() below.

/* Where tile element (row, col) lives: row * pitch + col with a padded pitch
 * (kernel 6), or col XOR (row mod 32) in an unpadded row (kernel 7). */
__device__ __forceinline__ int tile_offset(int row, int col, int pitch, bool swizzle) {
    return row * pitch + (swizzle ? col ^ (row % TILE_DIM) : col);
}

template <typename real>
__device__ __forceinline__ void transpose_wide_tiles(const real *__restrict__ in, real *__restrict__ out,
                                                     long long rows, long long cols, real *s_tile, int pitch,
                                                     bool swizzle) {
    const int tile = WIDE_TILE(real);
    const int per_x = WIDE_TILE(real) / TILE_DIM;      /* columns per thread */
    const int per_y = WIDE_TILE(real) / ROWS_PER_PASS; /* rows per thread    */
    const long long col0 = (long long)blockIdx.x * tile;
    const int cols_here = cols - col0 < tile ? (int)(cols - col0) : tile;
    for (long long row0 = (long long)blockIdx.y * tile; row0 < rows; row0 += (long long)gridDim.y * tile) {
        const int rows_here = rows - row0 < tile ? (int)(rows - row0) : tile;
        /* All loads first, into registers, so they are in flight together.
         * Elements outside the matrix become 0 and are never written out. */
        const real *source = in + (row0 + threadIdx.y) * cols + col0 + threadIdx.x;
        real v[per_y][per_x];
#pragma unroll
        for (int i = 0; i < per_y; ++i)
#pragma unroll
            for (int j = 0; j < per_x; ++j) {
                const int tile_row = threadIdx.y + i * ROWS_PER_PASS, tile_col = threadIdx.x + j * TILE_DIM;
                v[i][j] = (tile_row < rows_here && tile_col < cols_here)
                              ? source[i * ROWS_PER_PASS * cols + j * TILE_DIM]
                              : (real)0;
            }
#pragma unroll
        for (int i = 0; i < per_y; ++i)
#pragma unroll
            for (int j = 0; j < per_x; ++j)
                s_tile[tile_offset(threadIdx.y + i * ROWS_PER_PASS, threadIdx.x + j * TILE_DIM, pitch, swizzle)] =
                    v[i][j];
        __syncthreads();
        /* Tile column c becomes output row col0 + c; tile row r, output column row0 + r. */
        real *destination = out + (col0 + threadIdx.y) * rows + row0 + threadIdx.x;
#pragma unroll
        for (int i = 0; i < per_y; ++i)
#pragma unroll
            for (int j = 0; j < per_x; ++j) {
                const int tile_col = threadIdx.y + i * ROWS_PER_PASS, tile_row = threadIdx.x + j * TILE_DIM;
                if (tile_col < cols_here && tile_row < rows_here)
                    destination[i * ROWS_PER_PASS * rows + j * TILE_DIM] =
                        s_tile[tile_offset(tile_row, tile_col, pitch, swizzle)];
            }
        __syncthreads(); /* the tile is rewritten by the next iteration */
    }
}

template <typename real>
__global__ void __launch_bounds__(TILE_DIM *ROWS_PER_PASS)
    transpose_padded_multi(const real *__restrict__ in, real *__restrict__ out, long long rows, long long cols) {
    __shared__ real s_tile[WIDE_TILE(real)][WIDE_TILE(real) + 1];
    transpose_wide_tiles(in, out, rows, cols, &s_tile[0][0], WIDE_TILE(real) + 1, false);
}

// ---------------------------------------------------------------------------
// Kernel 7, swizzled: conflict-free without the padding column. Tile element
// (r, c) is stored at column c XOR (r mod 32) of row r. A warp reading tile
// column c (rows r = x, or x + 32) reads columns c ^ x: 32 different banks
// for float, since a 64-float row spans the 32 banks exactly twice; for double,
// (c ^ x) mod 16 differs across each half-warp. A warp writing row r, threads
// x, uses columns x ^ r: also 32 different banks. Same tile and threads as
// padded_multi; every row stays 256-byte aligned (no padding), which matters
// when a tile is read with vector loads.

template <typename real>
__global__ void __launch_bounds__(TILE_DIM *ROWS_PER_PASS)
    transpose_swizzled(const real *__restrict__ in, real *__restrict__ out, long long rows, long long cols) {
    __shared__ real s_tile[WIDE_TILE(real)][WIDE_TILE(real)];
    transpose_wide_tiles(in, out, rows, cols, &s_tile[0][0], WIDE_TILE(real), true);
}

// ---------------------------------------------------------------------------
// Launchers: one struct holds a run's buffers; each launch function only
// enqueues work, so the same function serves the check and the timing.

typedef struct {
    long long rows, cols;
    const void *in; /* rows x cols, row-major */
    void *out;      /* cols x rows, row-major (rows x cols for copy) */
    int copy_blocks;
    dim3 grid_over_input;  /* x: tiles across the input's columns, y: down its rows */
    dim3 grid_over_output; /* x: tiles across the input's rows (naive_write)      */
    dim3 grid_wide;        /* the same for the 256-byte-wide tiles of kernels 6, 7 */
    cublasHandle_t cublas;
} transpose_run;

template <typename real> static void launch_copy(void *context) {
    transpose_run *t = (transpose_run *)context;
    copy_matrix<real><<<t->copy_blocks, COPY_THREADS>>>((const real *)t->in, (real *)t->out, t->rows * t->cols);
    CHECK_LAUNCH();
}

template <typename real> static void launch_naive_read(void *context) {
    transpose_run *t = (transpose_run *)context;
    transpose_naive_read<real>
        <<<t->grid_over_input, dim3(TILE_DIM, TILE_DIM)>>>((const real *)t->in, (real *)t->out, t->rows, t->cols);
    CHECK_LAUNCH();
}

template <typename real> static void launch_naive_write(void *context) {
    transpose_run *t = (transpose_run *)context;
    transpose_naive_write<real>
        <<<t->grid_over_output, dim3(TILE_DIM, TILE_DIM)>>>((const real *)t->in, (real *)t->out, t->rows, t->cols);
    CHECK_LAUNCH();
}

template <typename real> static void launch_shared(void *context) {
    transpose_run *t = (transpose_run *)context;
    transpose_shared<real>
        <<<t->grid_over_input, dim3(TILE_DIM, TILE_DIM)>>>((const real *)t->in, (real *)t->out, t->rows, t->cols);
    CHECK_LAUNCH();
}

template <typename real> static void launch_padded(void *context) {
    transpose_run *t = (transpose_run *)context;
    transpose_padded<real>
        <<<t->grid_over_input, dim3(TILE_DIM, TILE_DIM)>>>((const real *)t->in, (real *)t->out, t->rows, t->cols);
    CHECK_LAUNCH();
}

template <typename real> static void launch_padded_multi(void *context) {
    transpose_run *t = (transpose_run *)context;
    transpose_padded_multi<real>
        <<<t->grid_wide, dim3(TILE_DIM, ROWS_PER_PASS)>>>((const real *)t->in, (real *)t->out, t->rows, t->cols);
    CHECK_LAUNCH();
}

template <typename real> static void launch_swizzled(void *context) {
    transpose_run *t = (transpose_run *)context;
    transpose_swizzled<real>
        <<<t->grid_wide, dim3(TILE_DIM, ROWS_PER_PASS)>>>((const real *)t->in, (real *)t->out, t->rows, t->cols);
    CHECK_LAUNCH();
}

/* cuBLAS is column-major. Our row-major rows x cols input is, read column-major,
 * a cols x rows matrix A with leading dimension cols; the row-major cols x rows
 * output is a column-major rows x cols matrix C with leading dimension rows.
 * So C = 1 * A^T + 0 * B, with m = rows, n = cols. B must be a valid rows x cols
 * operand even though beta = 0: we pass A^T again (not the poisoned output, in
 * case 0 * NaN were computed). */
static cublasStatus_t cublas_geam_transpose(cublasHandle_t h, long long rows, long long cols, const float *in,
                                            float *out) {
    const float one = 1, zero = 0;
    return cublasSgeam_64(h, CUBLAS_OP_T, CUBLAS_OP_T, rows, cols, &one, in, cols, &zero, in, cols, out, rows);
}
static cublasStatus_t cublas_geam_transpose(cublasHandle_t h, long long rows, long long cols, const double *in,
                                            double *out) {
    const double one = 1, zero = 0;
    return cublasDgeam_64(h, CUBLAS_OP_T, CUBLAS_OP_T, rows, cols, &one, in, cols, &zero, in, cols, out, rows);
}

template <typename real> static void launch_cublas(void *context) {
    transpose_run *t = (transpose_run *)context;
    cublasStatus_t status = cublas_geam_transpose(t->cublas, t->rows, t->cols, (const real *)t->in, (real *)t->out);
    if (status != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "%s:%d: cuBLAS geam failed: %s\n", __FILE__, __LINE__, cublasGetStatusString(status));
        exit(EXIT_CUDA_ERROR);
    }
}

// ---------------------------------------------------------------------------
// Running, checking and timing each kernel.

static long long tiles(long long elements, int tile) { return (elements + tile - 1) / tile; }

/* x: `across` tiles (at most 2^31 - 1: checked by the caller); y: `down` tiles,
 * capped at the gridDim.y limit (the kernels loop over the rest). */
static dim3 tile_grid(long long across, long long down) {
    return dim3((unsigned int)across, (unsigned int)(down < MAX_GRID_Y ? down : MAX_GRID_Y), 1);
}

template <typename real> static int run_all(const cli_options *o, const struct cudaDeviceProp *device) {
    const long long rows = o->rows, cols = o->cols, n = rows * cols;
    const size_t bytes = (size_t)n * sizeof(real);
    char size_label[64];
    snprintf(size_label, sizeof size_label, "%lldx%lld", rows, cols);

    printf("transpose: %lld x %lld %s (rows x cols, row-major) into %lld x %lld, %.1f MB each way; "
           "%d x %d tiles (padded_multi, swizzled: %d x %d); book kernels 32 x 32 threads, padded_multi and swizzled "
           "32 x %d\n\n",
           rows, cols, element_type_name(o->type), cols, rows, bytes / 1e6, TILE_DIM, TILE_DIM, WIDE_TILE(real),
           WIDE_TILE(real), ROWS_PER_PASS);

    /* The input and the output, plus room for cuBLAS's workspace. */
    gpu_require_memory("transpose", 2.0 * bytes + 64.0 * (1 << 20), "the input and output matrices");
    if (tiles(rows, TILE_DIM) > 2147483647LL ||
        tiles(cols, TILE_DIM) > 2147483647LL) { /* unreachable on today's GPUs */
        fprintf(stderr, "transpose: %s has more than 2^31 - 1 tiles in one direction\n", size_label);
        exit(EXIT_BAD_COMMAND_LINE);
    }
    transpose_run t;
    t.rows = rows;
    t.cols = cols;
    t.grid_over_input = tile_grid(tiles(cols, TILE_DIM), tiles(rows, TILE_DIM));
    t.grid_over_output = tile_grid(tiles(rows, TILE_DIM), tiles(cols, TILE_DIM));
    t.grid_wide = tile_grid(tiles(cols, WIDE_TILE(real)), tiles(rows, WIDE_TILE(real)));
    int blocks_per_sm = 0;
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, copy_matrix<real>, COPY_THREADS, 0));
    const long long copy_needed = (n / vector16<real>::width + COPY_THREADS - 1) / COPY_THREADS;
    t.copy_blocks = (int)(copy_needed < 1 ? 1 : copy_needed);
    if (t.copy_blocks > blocks_per_sm * device->multiProcessorCount)
        t.copy_blocks = blocks_per_sm * device->multiProcessorCount;

    real *in = (real *)host_alloc("transpose", bytes, "the input matrix");
    real *expected = (real *)host_alloc("transpose", bytes, "the CPU transpose");
    real *result = (real *)host_alloc("transpose", bytes, "the copy of a GPU result");
    fill_distinct(in, n);
    transpose_cpu(in, expected, rows, cols);
    HANDLE_ERROR(cudaMalloc((void **)&t.in, bytes));
    HANDLE_ERROR(cudaMalloc(&t.out, bytes));
    HANDLE_ERROR(cudaMemcpy((void *)t.in, in, bytes, cudaMemcpyHostToDevice));
    if (cublasCreate(&t.cublas) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "transpose: could not create a cuBLAS handle\n");
        exit(EXIT_CUDA_ERROR);
    }

    gpu_launch_fn launchers[KERNEL_COUNT] = {launch_copy<real>,     launch_naive_read<real>, launch_naive_write<real>,
                                             launch_shared<real>,   launch_padded<real>,     launch_padded_multi<real>,
                                             launch_swizzled<real>, launch_cublas<real>};

    /* The two references, measured first whenever we time, whichever kernels
     * were asked for: the copy (ceiling) and cuBLAS geam (library). */
    double copy_ms = 0, geam_ms = 0, copy_gbps = 0;
    const double bytes_per_run = bytes_moved((double)n, (double)n, sizeof(real));
    if (!o->check_only) {
        copy_ms = gpu_time_median_ms(launchers[KERNEL_COPY], &t, o->reps);
        geam_ms = gpu_time_median_ms(launchers[KERNEL_CUBLAS], &t, o->reps);
        copy_gbps = gigabytes_per_second(bytes_per_run, copy_ms);
        report_ceiling(stdout, "transpose", "copy_kernel", "copy kernel on the same matrix", copy_gbps);
        printf("library reference (cuBLAS geam): %.1f GB/s; the notes give each kernel's speed as a multiple of it\n\n",
               gigabytes_per_second(bytes_per_run, geam_ms));
    }

    static char notes[KERNEL_COUNT][96];
    report rep;
    report_begin(&rep, "transpose", stdout);
    for (int k = 0; k < KERNEL_COUNT; ++k) {
        if (!cli_kernel_selected(o, k)) continue;
        /* Check: poisoned output, one launch, every element compared. */
        gpu_poison(t.out, bytes);
        launchers[k](&t);
        HANDLE_ERROR(cudaDeviceSynchronize());
        HANDLE_ERROR(cudaMemcpy(result, t.out, bytes, cudaMemcpyDeviceToHost));
        /* The copy keeps the input's shape; every other kernel transposes. */
        const real *reference = k == KERNEL_COPY ? in : expected;
        const long long out_cols = k == KERNEL_COPY ? cols : rows;
        long long first = -1;
        const long long wrong = count_mismatches(result, reference, n, &first);
        if (wrong)
            printf("  %s: %lld of %lld elements wrong; first at output row %lld, column %lld: got %.17g, "
                   "expected %.17g\n",
                   kernel_names[k], wrong, n, first / out_cols, first % out_cols, (double)result[first],
                   (double)reference[first]);

        result_row row = result_row_for(kernel_names[k], element_type_name(o->type), n);
        row.size = size_label;
        row.has_value = 0; /* exact comparison: PASS means every element is the expected one */
        row.pass = wrong == 0;
        notes[k][0] = '\0';
        if (!o->check_only) {
            row.timed = 1;
            row.ms = k == KERNEL_COPY     ? copy_ms
                     : k == KERNEL_CUBLAS ? geam_ms
                                          : gpu_time_median_ms(launchers[k], &t, o->reps);
            row.gbps = gigabytes_per_second(bytes_per_run, row.ms);
            row.pct_ceiling = percent_of(row.gbps, copy_gbps);
            row.ceiling = "memcpy";
            snprintf(notes[k], sizeof notes[k], "%.2fx geam", geam_ms / row.ms);
        }
        if (wrong) {
            size_t used = strlen(notes[k]);
            snprintf(notes[k] + used, sizeof notes[k] - used, "%s%lld wrong", used ? ", " : "", wrong);
        }
        row.note = notes[k][0] ? notes[k] : NULL;
        report_add(&rep, &row);
    }
    cublasDestroy(t.cublas);
    HANDLE_ERROR(cudaFree((void *)t.in));
    HANDLE_ERROR(cudaFree(t.out));
    free(in);
    free(expected);
    free(result);
    return report_end(&rep);
}

// ---------------------------------------------------------------------------

int main(int argc, char **argv) {
    static const cli_spec spec = {
        "transpose",
        "matrix transpose through a shared-memory tile, with and without bank conflicts (Fan, ch. 8)",
        CLI_ROWS_COLS | CLI_KERNEL | CLI_TYPE | CLI_REPS | CLI_CHECK | CLI_DEVICE,
        kernel_names,
        NULL,
        0,
        BOOK_N,
        BOOK_N,
        0,
        "The input is rows x cols, row-major; the output cols x rows. Any size >= 1 works.\n"
        "Element i of the input holds i (float: i mod 16777213, exact and distinct below 2^24), and\n"
        "every output element is compared exactly with a CPU transpose.\n"
        "Timing: the copy kernel and cuBLAS geam are always measured first, as references;\n"
        "'%copy' and 'x geam' compare each kernel with them. Bandwidth claims need > 50 MB (the L2)."};
    cli_options o;
    cli_parse_or_exit(&spec, argc, argv, &o);
    struct cudaDeviceProp device;
    gpu_select_device("transpose", o.device, &device);
    return o.type == ELEMENT_DOUBLE ? run_all<double>(&o, &device) : run_all<float>(&o, &device);
}
