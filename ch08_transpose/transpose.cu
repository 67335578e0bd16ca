/* ch08_transpose: shared memory turns a strided access into a coalesced one,
 * and one column of padding removes the bank conflicts
 * (Fan Zheyong, CUDA 编程：基础与实践, ch. 7 "global memory" and ch. 8 "shared memory").
 *
 * What it teaches: a warp's global accesses are fast when its 32 threads touch consecutive
 * addresses (coalescing). A transpose reads rows and writes columns, so one side is strided,
 * unless a block stages a tile in __shared__ memory: rows in, a barrier, rows out read down the
 * tile's columns. A column of a [32][32] float tile lies in one bank (a 32-way bank conflict);
 * in a [32][33] tile each row starts one bank further, and the conflict is gone.
 *
 * Build it alone, from its folder, for sm_90 (another GPU: its -arch=sm_NN, or -arch=native):
 *   nvcc -O3 -arch=sm_90 -I../common transpose.cu -o transpose -lcublas
 * Run: transpose (the book's 10000 x 10000 float, then every step), --check (verify only),
 * --bank-model (each shared-memory instruction's passes; no GPU needed), --help.
 *
 * Kernels, in teaching order (input rows x cols, row-major; output cols x rows):
 *   copy          not a transpose: the same bytes, 16 bytes per thread (Fan ch. 7's target)
 *   naive_read    one element per thread: coalesced read, strided write (Fan ch. 7)
 *   naive_write   strided read through the read-only cache, coalesced write (Fan ch. 7)
 *   shared        Fan's 32 x 32 tile: both global accesses coalesced, 32-way bank conflicts (ch. 8)
 *   padded        Fan's [32][33] tile: conflict-free; the book's program below runs it (ch. 8)
 *   padded_multi  a padded 256-byte-wide tile, 32 x 8 threads, many loads in flight per thread
 *   swizzled      the same tile unpadded, each row's columns permuted by XOR: conflict-free
 *   vectorized    16-byte loads and stores, a 4 x 4 (double 2 x 2) block per thread
 *   column_order  vectorized, its blocks taking the tiles down the columns
 *   streaming     the swizzled 64 x 64 tile in column order, with evict-first cache hints
 *   prefetch      streaming's tile, every load fetching its whole 256-byte block into the L2
 *   cublas        cuBLAS geam with op(A) = A^T (the library reference, in the harness) */
#include <cublas_v2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book.h"
#include "ceiling.cuh"
#include "cli.h"
#include "bank_model.h"
#include "vector16.cuh"

#define TILE_DIM 32                /* the book's tile: 32 x 32 elements, 32 x 32 threads  */
#define ROWS_PER_PASS 8            /* padded_multi and swizzled: 32 x 8 threads per block */
#define STREAMING_TILE 64          /* streaming, prefetch: 64 x 64 elements per block,   */
#define STREAMING_ROWS_PER_PASS 16 /* moved by 32 x 16 threads                           */
/* The further steps' tile is 256 bytes wide: 64 floats or 32 doubles, square. */
#define WIDE_TILE(real) ((int)(256 / sizeof(real)))
#define COPY_THREADS 256
#define VECTOR_THREADS 256
#define MAX_GRID_Y 65535 /* gridDim.y's limit: taller matrices loop over tile rows */

// ---------------------------------------------------------------------------
// Fan ch. 7, global memory: the copy, and two transposes without shared memory.
// Every kernel indexes in 64 bits: rows * cols may pass 2^31.

// copy: the figure a transpose should reach (Fan times a copy too). One 16-byte
// vector per thread on a grid as large as the matrix: blocks start in index order,
// so the bytes in flight move through memory in address order.
template <typename real>
__global__ void __launch_bounds__(COPY_THREADS)
    copy_matrix(const real *__restrict__ in, real *__restrict__ out, long long n) {
    typedef typename vector16<real>::type vector;
    const int width = vector16<real>::width;
    const vector *in_vectors = reinterpret_cast<const vector *>(in); /* cudaMalloc aligns to 256 bytes */
    vector *out_vectors = reinterpret_cast<vector *>(out);
    const long long vectors = n / width;
    const long long thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (thread < vectors) out_vectors[thread] = in_vectors[thread];
    const long long tail = vectors * width + thread; /* the last n % width elements */
    if (tail < n) out[tail] = in[tail];
}

// naive_read: neighbouring threads read neighbouring elements of a row (coalesced)
// but write them `rows` elements apart: a 32-byte sector per thread.
template <typename real>
__global__ void transpose_naive_read(const real *in, real *out, long long rows, long long cols) {
    const long long c = (long long)blockIdx.x * TILE_DIM + threadIdx.x;
    for (long long row0 = (long long)blockIdx.y * TILE_DIM; row0 < rows; row0 += (long long)gridDim.y * TILE_DIM) {
        const long long r = row0 + threadIdx.y;
        if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
    }
}

// naive_write: the other way round, and faster in Fan's table: a strided read can
// be cached (__ldg: the read-only cache keeps each sector for the next warps), a
// strided write cannot. blockIdx.x runs over tiles of input rows here.
template <typename real>
__global__ void transpose_naive_write(const real *in, real *out, long long rows, long long cols) {
    const long long r = (long long)blockIdx.x * TILE_DIM + threadIdx.x;
    for (long long col0 = (long long)blockIdx.y * TILE_DIM; col0 < cols; col0 += (long long)gridDim.y * TILE_DIM) {
        const long long c = col0 + threadIdx.y;
        if (r < rows && c < cols) out[c * rows + r] = __ldg(&in[r * cols + c]);
    }
}

// ---------------------------------------------------------------------------
// Fan ch. 8, shared memory: his transpose1 (shared) and transpose2 (padded).
// Ours generalises only his N x N to rows x cols and adds the loop over tile rows
// (by) that a matrix more than 65535 tiles tall needs; one pass for any other.

// shared: the tile is read row by row (coalesced), and after the barrier written
// out row by row (coalesced) from its columns. Shared memory has 32 banks of 4
// bytes; thread x reads s_tile[x][y], word 32x + y, bank y for all 32 threads:
// a 32-way conflict (double: 16-way in each half-warp).
template <typename real> __global__ void transpose_shared(const real *in, real *out, long long rows, long long cols) {
    __shared__ real s_tile[TILE_DIM][TILE_DIM];
    const long long bx = (long long)blockIdx.x * TILE_DIM;
    for (long long by = (long long)blockIdx.y * TILE_DIM; by < rows; by += (long long)gridDim.y * TILE_DIM) {
        const long long nx1 = bx + threadIdx.x;
        const long long ny1 = by + threadIdx.y;
        if (nx1 < cols && ny1 < rows) s_tile[threadIdx.y][threadIdx.x] = in[ny1 * cols + nx1]; // bank: tile row write
        __syncthreads(); /* the whole tile is in shared memory before anyone reads it */
        const long long nx2 = bx + threadIdx.y;
        const long long ny2 = by + threadIdx.x;
        if (nx2 < cols && ny2 < rows) out[nx2 * rows + ny2] = s_tile[threadIdx.x][threadIdx.y]; // bank: tile column read
        __syncthreads(); /* everyone has read the tile before the next pass overwrites it */
    }
}

// padded: one column more. s_tile[x][y] is word 33x + y, bank (x + y) mod 32: 32
// banks, no conflict (double: word 66x + 2y, 16 bank pairs per half-warp).
template <typename real> __global__ void transpose_padded(const real *in, real *out, long long rows, long long cols) {
    __shared__ real s_tile[TILE_DIM][TILE_DIM + 1];
    const long long bx = (long long)blockIdx.x * TILE_DIM;
    for (long long by = (long long)blockIdx.y * TILE_DIM; by < rows; by += (long long)gridDim.y * TILE_DIM) {
        const long long nx1 = bx + threadIdx.x;
        const long long ny1 = by + threadIdx.y;
        if (nx1 < cols && ny1 < rows) s_tile[threadIdx.y][threadIdx.x] = in[ny1 * cols + nx1]; // bank: tile row write
        __syncthreads();
        const long long nx2 = bx + threadIdx.y;
        const long long ny2 = by + threadIdx.x;
        if (nx2 < cols && ny2 < rows) out[nx2 * rows + ny2] = s_tile[threadIdx.x][threadIdx.y]; // bank: tile column read
        __syncthreads();
    }
}

// ---------------------------------------------------------------------------
// Further steps: more bytes in flight per thread (Fan ch. 10's lesson for the
// reduction), then fewer, wider accesses, then the order and the cache hints.

/* Where tile element (row, col) lives: a padded pitch (padded_multi), or col XOR
 * (row mod 32) in an unpadded row (swizzled, streaming, prefetch). The bank model
 * below main calls it too. */
__host__ __device__ __forceinline__ int tile_offset(int row, int col, int pitch, bool swizzle) {
    return row * pitch + (swizzle ? col ^ (row % TILE_DIM) : col);
}

/* How a tile's global loads and stores are marked: plain; __ldcs/__stcs ("cache
 * streaming": evict first); or loads that fetch 256 bytes into the L2 and plain stores. */
enum cache_hints { HINTS_NONE, HINTS_STREAMING, HINTS_PREFETCH_256 };

template <typename real> __device__ __forceinline__ real load_prefetch_256(const real *p); /* with prefetch */

template <typename real> __device__ __forceinline__ real load_element(const real *p, cache_hints hints) {
    return hints == HINTS_STREAMING ? __ldcs(p) : hints == HINTS_PREFETCH_256 ? load_prefetch_256(p) : *p;
}
template <typename real> __device__ __forceinline__ void store_element(real *p, real value, cache_hints hints) {
    if (hints == HINTS_STREAMING)
        __stcs(p, value);
    else
        *p = value;
}

/* One tile x tile tile from (row0, col0), moved by 32 x rows_per_pass threads, each
 * taking every load before its first store. It holds a __syncthreads(): every thread
 * calls it, and a caller that reuses s_tile waits at a second barrier first. */
template <int tile, int rows_per_pass, typename real>
__device__ __forceinline__ void transpose_wide_tile(const real *__restrict__ in, real *__restrict__ out, long long rows,
                                                    long long cols, long long row0, long long col0, real *s_tile,
                                                    int pitch, bool swizzle, cache_hints hints) {
    const int per_x = tile / TILE_DIM;      /* columns per thread */
    const int per_y = tile / rows_per_pass; /* rows per thread    */
    const int rows_here = rows - row0 < tile ? (int)(rows - row0) : tile;
    const int cols_here = cols - col0 < tile ? (int)(cols - col0) : tile;
    /* Elements outside the matrix become 0 and are never written out. */
    const real *source = in + (row0 + threadIdx.y) * cols + col0 + threadIdx.x;
    real v[per_y][per_x];
#pragma unroll
    for (int i = 0; i < per_y; ++i)
#pragma unroll
        for (int j = 0; j < per_x; ++j) {
            const int tile_row = threadIdx.y + i * rows_per_pass, tile_col = threadIdx.x + j * TILE_DIM;
            v[i][j] = (tile_row < rows_here && tile_col < cols_here)
                          ? load_element(source + i * rows_per_pass * cols + j * TILE_DIM, hints)
                          : (real)0;
        }
#pragma unroll
    for (int i = 0; i < per_y; ++i)
#pragma unroll
        for (int j = 0; j < per_x; ++j)
            s_tile[tile_offset(threadIdx.y + i * rows_per_pass, threadIdx.x + j * TILE_DIM, pitch, swizzle)] = v[i][j]; // bank: tile row write
    __syncthreads();
    /* Tile column c becomes output row col0 + c; tile row r, output column row0 + r. */
    real *destination = out + (col0 + threadIdx.y) * rows + row0 + threadIdx.x;
#pragma unroll
    for (int i = 0; i < per_y; ++i)
#pragma unroll
        for (int j = 0; j < per_x; ++j) {
            const int tile_col = threadIdx.y + i * rows_per_pass, tile_row = threadIdx.x + j * TILE_DIM;
            if (tile_col < cols_here && tile_row < rows_here)
                store_element(destination + i * rows_per_pass * rows + j * TILE_DIM, // bank: tile column read
                              s_tile[tile_offset(tile_row, tile_col, pitch, swizzle)], hints);
        }
}

/* padded_multi and swizzled: tile column blockIdx.x, tile rows blockIdx.y + k gridDim.y. */
template <typename real>
__device__ __forceinline__ void transpose_wide_tiles(const real *__restrict__ in, real *__restrict__ out,
                                                     long long rows, long long cols, real *s_tile, int pitch,
                                                     bool swizzle) {
    const int tile = WIDE_TILE(real);
    const long long col0 = (long long)blockIdx.x * tile;
    for (long long row0 = (long long)blockIdx.y * tile; row0 < rows; row0 += (long long)gridDim.y * tile) {
        transpose_wide_tile<WIDE_TILE(real), ROWS_PER_PASS>(in, out, rows, cols, row0, col0, s_tile, pitch, swizzle,
                                                            HINTS_NONE);
        __syncthreads(); /* the tile is rewritten by the next iteration */
    }
}

// padded_multi: a padded tile 256 bytes wide (64 x 65 floats, 32 x 33 doubles), so
// every row segment a block reads or writes is two whole 128-byte lines, moved by
// 32 x 8 threads: a thread issues all its loads (float: 2 columns x 8 rows) before it
// uses one, and fewer threads wait at the barrier. Row r starts at bank r mod 32.
template <typename real>
__global__ void __launch_bounds__(TILE_DIM *ROWS_PER_PASS)
    transpose_padded_multi(const real *__restrict__ in, real *__restrict__ out, long long rows, long long cols) {
    __shared__ real s_tile[WIDE_TILE(real)][WIDE_TILE(real) + 1];
    transpose_wide_tiles(in, out, rows, cols, &s_tile[0][0], WIDE_TILE(real) + 1, false);
}

// swizzled: conflict-free without the padding. Element (r, c) is stored at column
// c XOR (r mod 32) of row r, so a warp reading tile column c reads columns c ^ x
// (32 banks; double: 16 bank pairs per half-warp), and a warp writing row r uses
// x ^ r. Every row stays 256-byte aligned, which vectorized's 16-byte accesses need.
template <typename real>
__global__ void __launch_bounds__(TILE_DIM *ROWS_PER_PASS)
    transpose_swizzled(const real *__restrict__ in, real *__restrict__ out, long long rows, long long cols) {
    __shared__ real s_tile[WIDE_TILE(real)][WIDE_TILE(real)];
    transpose_wide_tiles(in, out, rows, cols, &s_tile[0][0], WIDE_TILE(real), true);
}

/* Where 16-byte piece `piece` of output row out_row lives in the tile: slot piece
 * XOR ((out_row / V) mod 8). The write, the read and the bank model all call it. */
__host__ __device__ __forceinline__ int swizzled_piece_offset(int out_row, int piece, int tile, int V) {
    return out_row * tile + (piece ^ (out_row / V % 8)) * V;
}

/* One 256-byte-wide tile per block, on a 1-D grid, taken along the tile rows or
 * down_columns; each thread moves one V x V block (V = 4 floats, 2 doubles). */
template <typename real>
__device__ __forceinline__ void transpose_16_byte_tiles(const real *__restrict__ in, real *__restrict__ out,
                                                        long long rows, long long cols, bool down_columns) {
    typedef typename vector16<real>::type vector;
    const int V = vector16<real>::width;
    const int tile = WIDE_TILE(real);
    const int pieces = tile / V; /* 16-byte pieces per tile row; V x V blocks per tile row */
    static_assert(WIDE_TILE(real) / vector16<real>::width * WIDE_TILE(real) / vector16<real>::width == VECTOR_THREADS,
                  "one V x V block per thread");
    __shared__ __align__(16) real s_tile[WIDE_TILE(real) * WIDE_TILE(real)];
    const bool fits = rows % V == 0 && cols % V == 0; /* every row of in and out starts 16-byte aligned */
    const long long tiles_across = (cols + tile - 1) / tile, tiles_down = (rows + tile - 1) / tile;
    const long long t = blockIdx.x; /* this block's tile */
    const long long tile_row = down_columns ? t % tiles_down : t / tiles_across;
    const long long tile_col = down_columns ? t / tiles_down : t % tiles_across;
    const long long row0 = tile_row * tile, col0 = tile_col * tile;
    const int rows_here = rows - row0 < tile ? (int)(rows - row0) : tile;
    const int cols_here = cols - col0 < tile ? (int)(cols - col0) : tile;
    /* This thread's V x V block: tile rows r .. r+V-1, columns c .. c+V-1. */
    const int r = threadIdx.x / pieces * V, c = threadIdx.x % pieces * V;
    const real *source = in + (row0 + r) * cols + col0 + c;
    real v[V][V];
#pragma unroll
    for (int i = 0; i < V; ++i) {
        if (fits) { /* the block lies wholly inside or wholly outside the matrix */
            vector piece = vector();
            if (r < rows_here && c < cols_here) piece = *reinterpret_cast<const vector *>(source + i * cols);
#pragma unroll
            for (int j = 0; j < V; ++j)
                v[i][j] = reinterpret_cast<const real *>(&piece)[j];
        } else {
#pragma unroll
            for (int j = 0; j < V; ++j)
                v[i][j] = (r + i < rows_here && c + j < cols_here) ? source[i * cols + j] : (real)0;
        }
    }
    /* Column j of the block is piece r / V of output row c + j. */
#pragma unroll
    for (int j = 0; j < V; ++j) {
        vector piece;
#pragma unroll
        for (int i = 0; i < V; ++i)
            reinterpret_cast<real *>(&piece)[i] = v[i][j];
        const int out_row = c + j;
        *reinterpret_cast<vector *>(&s_tile[swizzled_piece_offset(out_row, r / V, tile, V)]) = piece; // bank: 16-byte piece write
    }
    __syncthreads();
    /* Output rows col0 .. col0 + cols_here - 1, 16 bytes (V output columns) per thread per pass. */
#pragma unroll
    for (int k = 0; k < tile * pieces / VECTOR_THREADS; ++k) {
        const int index = threadIdx.x + k * VECTOR_THREADS, out_row = index / pieces, p = index % pieces;
        if (out_row < cols_here && p * V < rows_here) {
            const vector piece = /* bank: 16-byte piece read */
                *reinterpret_cast<const vector *>(&s_tile[swizzled_piece_offset(out_row, p, tile, V)]);
            real *destination = out + (col0 + out_row) * rows + row0 + p * V;
            if (fits) {
                *reinterpret_cast<vector *>(destination) = piece;
            } else {
#pragma unroll
                for (int e = 0; e < V; ++e)
                    if (p * V + e < rows_here) destination[e] = reinterpret_cast<const real *>(&piece)[e];
            }
        }
    }
}

// vectorized: every global access 16 bytes wide (float4, double2), a quarter of the
// instructions. A thread loads a V x V block, transposes it in registers and writes its
// columns to the tile as 16-byte pieces of output rows; after the barrier, threads read
// pieces along each output row. Eight threads of a quarter-warp write the same piece of
// rows V apart, so the piece's slot is XOR-ed with the row (swizzled_piece_offset). Rows
// not a multiple of V long do not start 16-byte aligned: then element by element (`fits`).
// One tile per block and no loop: a loop over tiles costs this kernel registers.
template <typename real>
__global__ void __launch_bounds__(VECTOR_THREADS)
    transpose_vectorized(const real *__restrict__ in, real *__restrict__ out, long long rows, long long cols) {
    transpose_16_byte_tiles(in, out, rows, cols, false);
}

// column_order: the same kernel, the tiles taken down the columns. The blocks in
// flight are a run of consecutive ones: so the output is written row after row, and
// where a 128-byte line of output is shared by two tiles, both halves reach the L2
// close together before it writes the line back to DRAM.
template <typename real>
__global__ void __launch_bounds__(VECTOR_THREADS)
    transpose_column_order(const real *__restrict__ in, real *__restrict__ out, long long rows, long long cols) {
    transpose_16_byte_tiles(in, out, rows, cols, true);
}

/* streaming and prefetch: one 64 x 64 swizzled tile per block, taken down the tile
 * columns; the two differ only in their cache hints. */
template <typename real>
__device__ __forceinline__ void transpose_tile_down_columns(const real *__restrict__ in, real *__restrict__ out,
                                                            long long rows, long long cols, cache_hints hints) {
    __shared__ real s_tile[STREAMING_TILE][STREAMING_TILE];
    const long long tiles_down = (rows + STREAMING_TILE - 1) / STREAMING_TILE;
    const long long tile_row = blockIdx.x % tiles_down, tile_col = blockIdx.x / tiles_down; /* down the columns */
    transpose_wide_tile<STREAMING_TILE, STREAMING_ROWS_PER_PASS>(in, out, rows, cols, tile_row * STREAMING_TILE,
                                                                 tile_col * STREAMING_TILE, &s_tile[0][0],
                                                                 STREAMING_TILE, true, hints);
}

// streaming: column_order's order on swizzled's tile, element by element, so rows of any
// length keep the speed; every load and store marked "evict first", since each element
// is touched once. The block follows the SM, not the element: 64 x 64 elements and 32 x 16
// threads whatever the type, so that whole blocks fill an SM (tests/res_usage.py checks
// each architecture). The swizzle holds for a 64-double row too: slots c ^ x.
template <typename real>
__global__ void __launch_bounds__(TILE_DIM *STREAMING_ROWS_PER_PASS)
    transpose_streaming(const real *__restrict__ in, real *__restrict__ out, long long rows, long long cols) {
    transpose_tile_down_columns(in, out, rows, cols, HINTS_STREAMING);
}

// prefetch: streaming with other hints. Where a row's length is not a multiple of
// 256 bytes, each row starts at another offset in a 256-byte block, and DRAM serves
// such reads less well. So each load asks the L2 for the whole aligned 256-byte block
// around its element (PTX ld.global.L2::256B, sm_80 and later; before that a plain load),
// and the neighbouring tile column finds the rest there. "Evict first" would work against
// that: the loads drop it, and so do the stores.
#if __CUDA_ARCH__ >= 800
template <> __device__ __forceinline__ float load_prefetch_256(const float *p) {
    float value;
    asm("ld.global.L2::256B.f32 %0, [%1];" : "=f"(value) : "l"(p));
    return value;
}
template <> __device__ __forceinline__ double load_prefetch_256(const double *p) {
    double value;
    asm("ld.global.L2::256B.f64 %0, [%1];" : "=d"(value) : "l"(p));
    return value;
}
#else
template <typename real> __device__ real load_prefetch_256(const real *p) { return *p; }
#endif

template <typename real>
__global__ void __launch_bounds__(TILE_DIM *STREAMING_ROWS_PER_PASS)
    transpose_prefetch(const real *__restrict__ in, real *__restrict__ out, long long rows, long long cols) {
    transpose_tile_down_columns(in, out, rows, cols, HINTS_PREFETCH_256);
}

// ---------------------------------------------------------------------------
// main: the book's program (Fan ch. 8: the padded tile, in float) in the book's
// straight line, then every step of the progression.

/* Fan's print_matrix: a small result is worth seeing. */
template <typename real> static void print_matrix(const real *matrix, long long rows, long long cols) {
    for (long long r = 0; r < rows; ++r) {
        for (long long c = 0; c < cols; ++c)
            printf("%g\t", (double)matrix[r * cols + c]);
        printf("\n");
    }
}

/* Defined below the divider: */
static void parse_options(int argc, char **argv, cli_options *o); /* exits on --help, bad input, --bank-model */
static void describe_and_check_size(const cli_options *o);        /* the sizes; too large for the device: exit 2 */
template <typename real> static void fill_distinct(real *in, long long n); /* element i holds i */
/* out[c][r] = in[r][c], on the CPU */
template <typename real> static void transpose_cpu(const real *in, real *out, long long rows, long long cols);
/* the elements that differ, exactly; *first: where the first one is */
template <typename real>
static long long check_exact(const real *got, const real *expected, long long n, long long *first);
/* every kernel, checked, then timed */
template <typename real> static int run_progression(const cli_options *o, const struct cudaDeviceProp *device);

int main(int argc, char **argv) {
    cli_options o;
    parse_options(argc, argv, &o); /* default: the book's 10000 x 10000 */
    struct cudaDeviceProp device;
    gpu_select_device("transpose", o.device, &device);
    describe_and_check_size(&o);
    const long long rows = o.rows, cols = o.cols, n = rows * cols;
    const size_t bytes = (size_t)n * sizeof(float);

    float *h_in = (float *)malloc(bytes);
    float *h_out = (float *)malloc(bytes);
    float *h_expected = (float *)malloc(bytes);
    HANDLE_NULL(h_in);
    HANDLE_NULL(h_out);
    HANDLE_NULL(h_expected);
    fill_distinct(h_in, n);
    float *d_in, *d_out;
    HANDLE_ERROR(cudaMalloc((void **)&d_in, bytes));
    HANDLE_ERROR(cudaMalloc((void **)&d_out, bytes));
    HANDLE_ERROR(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    gpu_poison(d_out, bytes); /* NaN: an element the kernel does not write fails the check */

    /* One block per 32 x 32 tile; past 65535 tiles down, each block loops over tile rows. */
    const long long grid_size_x = (cols + TILE_DIM - 1) / TILE_DIM, grid_size_y = (rows + TILE_DIM - 1) / TILE_DIM;
    const dim3 block_size(TILE_DIM, TILE_DIM);
    const dim3 grid_size((unsigned int)grid_size_x,
                         (unsigned int)(grid_size_y < MAX_GRID_Y ? grid_size_y : MAX_GRID_Y));
    transpose_padded<<<grid_size, block_size>>>(d_in, d_out, rows, cols);
    CHECK_LAUNCH();
    HANDLE_ERROR(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
    if (rows <= 10 && cols <= 10) print_matrix(h_out, cols, rows);

    /* Our verdict: every element against a CPU transpose, exactly (a data movement rounds nothing). */
    transpose_cpu(h_in, h_expected, rows, cols);
    long long first;
    const long long book_wrong = check_exact(h_out, h_expected, n, &first);
    printf("book (padded 32 x 33 tile): %lld of %lld elements wrong: %s\n\n", book_wrong, n,
           book_wrong ? "FAIL" : "PASS");
    free(h_in);
    free(h_out);
    free(h_expected);
    HANDLE_ERROR(cudaFree(d_in));
    HANDLE_ERROR(cudaFree(d_out));

    /* The progression, in the type asked for. */
    const int status =
        o.type == ELEMENT_DOUBLE ? run_progression<double>(&o, &device) : run_progression<float>(&o, &device);
    return report_exit_code(book_wrong != 0, status); /* 77: --kernel cublas alone on the CPU runner */
}

// ===== Harness: below this line, not needed to follow the lesson =====

// ----- options -----
// clang-format off
enum kernel { KERNEL_COPY, KERNEL_NAIVE_READ, KERNEL_NAIVE_WRITE, KERNEL_SHARED, KERNEL_PADDED, KERNEL_PADDED_MULTI,
              KERNEL_SWIZZLED, KERNEL_VECTORIZED, KERNEL_COLUMN_ORDER, KERNEL_STREAMING, KERNEL_PREFETCH, KERNEL_CUBLAS,
              KERNEL_COUNT };
// clang-format on
static const char *const kernel_names[] = {"copy",         "naive_read", "naive_write", "shared",       "padded",
                                           "padded_multi", "swizzled",   "vectorized",  "column_order", "streaming",
                                           "prefetch",     "cublas",     NULL};

/* --bank-model: the kernels run on the CPU runner, both types unless --type says one; the lesson's pictures. */
static const bank_picture transpose_pictures[] = {
    {"transpose_shared<float>", "tile column read", "transpose_shared_column_read", 0},
    {"transpose_shared<double>", "tile column read", "transpose_shared_double_column_read", 0},
    {"transpose_padded<float>", "tile column read", "transpose_padded_column_read", 0},
    {"transpose_padded<double>", "tile column read", "transpose_padded_double_column_read", 0},
    {"transpose_swizzled<float>", "tile column read", "transpose_swizzled_column_read", 0},
    {"transpose_vectorized<float>", "16-byte piece write", "transpose_vectorized_write", 0},
    {"transpose_vectorized<float>", "16-byte piece read", "transpose_vectorized_read", 0},
    {NULL, NULL, NULL, 0}};
static void parse_options(int argc, char **argv, cli_options *o) {
    cli_spec spec = {};
    spec.program = "transpose";
    spec.summary = "matrix transpose: coalescing (Fan, ch. 7), a shared-memory tile and its bank conflicts (ch. 8)";
    spec.accepts =
        CLI_ROWS_COLS | CLI_KERNEL | CLI_TYPE | CLI_REPS | CLI_CHECK | CLI_DEVICE | CLI_COLD_L2 | CLI_BANK_MODEL;
    spec.kernels = kernel_names;
    spec.default_rows = spec.default_cols = 10000; /* the book's matrix */
    spec.cpu_default_n = 1000; /* the CPU runner: 1000 x 1000 (the book's size is too slow there; --n 10000 runs it) */
    spec.extra_help =
        "The input is rows x cols, row-major; the output cols x rows. Any size >= 1 works. Every output\n"
        "element is compared exactly with a CPU transpose: the book's program (padded, float) first, then\n"
        "each kernel's first and last timed launch. '%ceil': of a device-to-device cudaMemcpy in the same\n"
        "run; 'x geam': of cuBLAS geam. Bandwidth claims need > 50 MB (the L2), or --cold-l2.\n"
        "--bank-model runs the kernels on the CPU runner and counts every tile of the launches at the size\n"
        "given (default 1000 x 1000): edge tiles have partial warps; at a multiple of the tile (--n 1024),\n"
        "the passes the lesson states.";
    cli_parse_or_exit(&spec, argc, argv, o);
    if (o->bank_model) /* before any CUDA call: works without a GPU or a driver */
        bank_model_observe(spec.program, argc, argv, bank_model_both_types, transpose_pictures,
                           "library\ttranspose_readWrite_alignment_kernel\tcuBLAS\n"); /* what geam launches */
}

static long long tiles(long long elements, int tile) { return (elements + tile - 1) / tile; }

static void describe_and_check_size(const cli_options *o) {
    const long long rows = o->rows, cols = o->cols, n = rows * cols;
    const size_t element = element_size(o->type), bytes = (size_t)n * element;
    const int wide = (int)(256 / element); /* WIDE_TILE */
    printf("transpose: %lld x %lld %s (rows x cols, row-major) into %lld x %lld, %.1f MB each way\n", rows, cols,
           element_type_name(o->type), cols, rows, bytes / 1e6);
    printf("tiles: book 32 x 32 (32 x 32 threads); padded_multi, swizzled %d x %d (32 x %d threads); vectorized, "
           "column_order %d x %d (%d threads); streaming, prefetch %d x %d (32 x %d threads); the last four one "
           "block per tile\n",
           wide, wide, ROWS_PER_PASS, wide, wide, VECTOR_THREADS, STREAMING_TILE, STREAMING_TILE,
           STREAMING_ROWS_PER_PASS);
    gpu_require_memory("transpose", 2.0 * bytes + 64.0 * (1 << 20), "the input and output matrices (and cuBLAS)");
    if (tiles(rows, TILE_DIM) > 2147483647LL || tiles(cols, TILE_DIM) > 2147483647LL ||
        tiles(rows, wide) * tiles(cols, wide) > 2147483647LL ||
        tiles(n / (long long)(16 / element), COPY_THREADS) > 2147483647LL) /* not on today's GPUs */
        cli_exit_bad("transpose", "%lldx%lld has more than 2^31 - 1 tiles (the grid's limit)", rows, cols);
}

// ----- the run -----
/* The grids, computed once before any timing. 2-D: tiles across x down (y capped: the kernels
 * loop; naive_write's x runs down). 1-D: a block per tile; the copy's per COPY_THREADS vectors. */
typedef struct {
    dim3 book, naive_write, wide;
    unsigned int copy, tiles, streaming;
} device_grids;
static dim3 tile_grid(long long across, long long down, int tile) {
    const long long y = tiles(down, tile);
    return dim3((unsigned int)tiles(across, tile), (unsigned int)(y < MAX_GRID_Y ? y : MAX_GRID_Y), 1);
}

template <typename real>
static void launch(int kernel, const real *in, real *out, long long rows, long long cols, const device_grids *g,
                   cublasHandle_t cublas);

template <typename real> static int run_progression(const cli_options *o, const struct cudaDeviceProp *) {
    const long long rows = o->rows, cols = o->cols, n = rows * cols;
    const size_t bytes = (size_t)n * sizeof(real);
    char size_label[64];
    snprintf(size_label, sizeof size_label, "%lldx%lld", rows, cols);
    real *h_in = (real *)host_alloc("transpose", bytes, "the input matrix");
    real *h_expected = (real *)host_alloc("transpose", bytes, "the CPU transpose");
    real *h_out = (real *)host_alloc("transpose", bytes, "the copy of a GPU result");
    fill_distinct(h_in, n);
    transpose_cpu(h_in, h_expected, rows, cols);
    real *d_in, *d_out;
    HANDLE_ERROR(cudaMalloc((void **)&d_in, bytes));
    HANDLE_ERROR(cudaMalloc((void **)&d_out, bytes));
    HANDLE_ERROR(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    cublasHandle_t cublas;
    HANDLE_CUBLAS(cublasCreate(&cublas));
    const long long copy_blocks = tiles(n / vector16<real>::width, COPY_THREADS); /* each below 2^31 */
    const device_grids grids = {tile_grid(cols, rows, TILE_DIM),
                                tile_grid(rows, cols, TILE_DIM),
                                tile_grid(cols, rows, WIDE_TILE(real)),
                                (unsigned int)(copy_blocks < 1 ? 1 : copy_blocks),
                                (unsigned int)(tiles(rows, WIDE_TILE(real)) * tiles(cols, WIDE_TILE(real))),
                                (unsigned int)(tiles(rows, STREAMING_TILE) * tiles(cols, STREAMING_TILE))};
    l2_flusher flusher = l2_flusher_create(o->cold_l2 && !o->check_only);

    /* Kernel k's output against the CPU transpose (the copy's: the input); the row notes the wrong ones, the first. */
    auto check_output = [&](int k, result_row *row, const char *which) {
        HANDLE_ERROR(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
        const real *expected = k == KERNEL_COPY ? h_in : h_expected;
        const long long out_cols = k == KERNEL_COPY ? cols : rows;
        long long first = -1;
        const long long wrong = check_exact(h_out, expected, n, &first);
        if (wrong) {
            row_note(row, "%lld wrong%s", wrong, which);
            row_note_first_wrong(row, (double)h_out[first], (double)expected[first], "out[%lld][%lld]",
                                 first / out_cols, first % out_cols);
        }
        return wrong;
    };

    /* Kernel k's row: every element right in its first and its last timed launch; its ms (0: --check). */
    auto measure = [&](int k, result_row *row) {
        *row = result_row_for(kernel_names[k], element_type_name(o->type), n);
        row->size = size_label;
        row_note(row, "value: elements right");
        row->bytes = bytes_moved((double)n, (double)n, sizeof(real)); /* each element read once, written once */
        return exact_row(
            row, d_out, bytes, o->check_only ? 0 : o->reps, [&] { l2_flush(&flusher); },
            [&] { launch(k, d_in, d_out, rows, cols, &grids, cublas); },
            [&](result_row *checked, const char *which) { return check_output(k, checked, which); });
    };

    double memcpy_gbps = 0, geam_ms = 0;
    result_row geam = result_row_for("cublas", NULL, 0); /* the reference, timed first: the cublas row */
    if (!o->check_only) {
        memcpy_gbps = gpu_memcpy_gbps((double)bytes, o->reps);
        report_ceiling(stdout, "transpose", "memcpy", "cudaMemcpy device to device, >= 256 MiB", memcpy_gbps);
        geam_ms = measure(KERNEL_CUBLAS, &geam);
        printf("library reference (cuBLAS geam): %.1f GB/s; each row's note is its speed as a multiple of it\n\n",
               gigabytes_per_second(geam.bytes, geam_ms));
    }
    report rep;
    report_begin(&rep, "transpose", stdout);
    rep.cold_l2 = o->cold_l2;
    for (int k = 0; k < KERNEL_COUNT; ++k) {
        if (!cli_kernel_selected(o, k)) continue;
        if (k == KERNEL_CUBLAS && report_cpu_skip(&rep, "cublas", "the library's kernels, not the lesson's")) continue;
        result_row row = geam;
        const double ms = k == KERNEL_CUBLAS && !o->check_only ? geam_ms : measure(k, &row);
        if (!o->check_only) row_time(&row, ms, "memcpy", memcpy_gbps);
        if (!o->check_only) row_note(&row, "%.2fx geam", geam_ms / ms);
        report_add(&rep, &row);
    }
    const int status = report_end(&rep);
    l2_flusher_free(&flusher);
    cublasDestroy(cublas);
    HANDLE_ERROR(cudaFree(d_in));
    HANDLE_ERROR(cudaFree(d_out));
    for (real *h : {h_in, h_expected, h_out})
        free(h);
    const int geam_wrong = !o->check_only && !geam.pass; /* the reference fails the run, asked for or not */
    return status == EXIT_NO_DEVICE ? status : status || geam_wrong ? EXIT_WRONG_RESULT : EXIT_ALL_PASSED;
}

// ----- the launch switch -----
template <typename real>
static void launch(int kernel, const real *in, real *out, long long rows, long long cols, const device_grids *g,
                   cublasHandle_t cublas) {
    const dim3 book(TILE_DIM, TILE_DIM), wide(TILE_DIM, ROWS_PER_PASS), streaming(TILE_DIM, STREAMING_ROWS_PER_PASS);
    const real one = 1, zero = 0; /* geam's alpha and beta */
    switch (kernel) {
    case KERNEL_COPY: copy_matrix<real><<<g->copy, COPY_THREADS>>>(in, out, rows * cols); break;
    case KERNEL_NAIVE_READ: transpose_naive_read<real><<<g->book, book>>>(in, out, rows, cols); break;
    case KERNEL_NAIVE_WRITE: transpose_naive_write<real><<<g->naive_write, book>>>(in, out, rows, cols); break;
    case KERNEL_SHARED: transpose_shared<real><<<g->book, book>>>(in, out, rows, cols); break;
    case KERNEL_PADDED: transpose_padded<real><<<g->book, book>>>(in, out, rows, cols); break;
    case KERNEL_PADDED_MULTI: transpose_padded_multi<real><<<g->wide, wide>>>(in, out, rows, cols); break;
    case KERNEL_SWIZZLED: transpose_swizzled<real><<<g->wide, wide>>>(in, out, rows, cols); break;
    case KERNEL_VECTORIZED: transpose_vectorized<real><<<g->tiles, VECTOR_THREADS>>>(in, out, rows, cols); break;
    case KERNEL_COLUMN_ORDER: transpose_column_order<real><<<g->tiles, VECTOR_THREADS>>>(in, out, rows, cols); break;
    case KERNEL_STREAMING: transpose_streaming<real><<<g->streaming, streaming>>>(in, out, rows, cols); break;
    case KERNEL_PREFETCH: transpose_prefetch<real><<<g->streaming, streaming>>>(in, out, rows, cols); break;
    /* cuBLAS geam, column-major: C = 1 A^T + 0 B, A our input as cols x rows (leading dimension cols),
     * C our output as rows x cols (leading dimension rows); B is A^T again, not the poisoned output. */
    case KERNEL_CUBLAS:
        if constexpr (sizeof(real) == sizeof(float))
            HANDLE_CUBLAS(cublasSgeam_64(cublas, CUBLAS_OP_T, CUBLAS_OP_T, rows, cols, &one, in, cols, &zero, in, cols,
                                         out, rows));
        else
            HANDLE_CUBLAS(cublasDgeam_64(cublas, CUBLAS_OP_T, CUBLAS_OP_T, rows, cols, &one, in, cols, &zero, in, cols,
                                         out, rows));
        break;
    }
    CHECK_LAUNCH();
}

// ----- CPU replays -----
/* Element i holds i mod 16777213, the largest prime below 2^24 (float holds it exactly; double:
 * i itself): a misplaced element hides only at a multiple of that prime, no transpose's stride. */
template <typename real> static void fill_distinct(real *in, long long n) {
    const long long period = sizeof(real) == sizeof(float) ? 16777213LL : 1LL << 53;
    long long value = 0;
    for (long long i = 0; i < n; ++i) {
        in[i] = (real)value;
        if (++value == period) value = 0;
    }
}

/* out[c][r] = in[r][c], in 64 x 64 blocks that stay in the CPU's cache. */
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

// ----- checks -----
/* Bit for bit: NaN (the poison) equals nothing; equal bytes (memcmp) are equal elements (no -0). */
template <typename real>
static long long check_exact(const real *got, const real *expected, long long n, long long *first) {
    long long wrong = 0;
    *first = -1;
    if (memcmp(got, expected, (size_t)n * sizeof(real)) == 0) return 0;
    for (long long i = 0; i < n; ++i)
        if (!(got[i] == expected[i]) && wrong++ == 0) *first = i;
    return wrong;
}

