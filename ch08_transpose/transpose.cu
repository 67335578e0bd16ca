/* ch08_transpose: shared memory turns a strided access into a coalesced one,
 * and one column of padding removes the bank conflicts
 * (Fan Zheyong, CUDA 编程：基础与实践, ch. 7 "global memory" and ch. 8 "shared memory").
 *
 * What it teaches: a warp's global accesses are fast when its 32 threads touch
 * consecutive addresses (coalescing, Fan ch. 7). A transpose reads rows and
 * writes columns, so one side is always strided -- unless a block stages a tile
 * in __shared__ memory: read the tile row by row, barrier, write it out row by
 * row while reading the tile column by column (Fan ch. 8). Reading a column of
 * a [32][32] float tile hits one shared-memory bank 32 times (a 32-way bank
 * conflict); a [32][33] tile shifts every row by one bank and the conflict is gone.
 *
 * Build this file alone, from its folder, for sm_90 (H100, H200). For another GPU
 * put its compute capability (-arch=sm_89, ...) or -arch=native; kernel 11's L2
 * hint needs sm_80 or later (below that, its loads are plain ones):
 *   nvcc -O3 -arch=sm_90 -I../common transpose.cu -o transpose -lcublas
 *
 * Run:
 *   transpose                                   the book's 10000 x 10000 float: the book's kernel, then every step
 *   transpose --n 8192 --type double --kernel copy,padded,streaming,cublas
 *   transpose --rows 4097 --cols 1023 --check   verify only (what the tests do)
 *   transpose --bank-model                      each shared-memory instruction's passes, predicted (no GPU)
 *   scripts/bank_conflicts.sh build/ch08_transpose/transpose --check --n 4096   bank conflicts (Nsight Compute)
 *
 * Kernels, in teaching order (input rows x cols, row-major; output cols x rows):
 *   copy         not a transpose: the same bytes copied, one 16-byte vector per thread (Fan ch. 7's
 *                reference).
 *   naive_read   one element per thread: coalesced read, strided write (Fan ch. 7).
 *   naive_write  one element per thread: strided read through the read-only cache,
 *                coalesced write (Fan ch. 7).
 *   shared       32 x 32 tile in shared memory, 32 x 32 threads: both global accesses
 *                coalesced, 32-way bank conflicts (Fan ch. 8).
 *   padded       the same with a [32][33] tile: conflict-free (Fan ch. 8).
 *   padded_multi 32 x 8 threads, several elements each, on a padded tile 256 bytes
 *                wide: many loads in flight per thread (Fan ch. 10's "more work per thread").
 *   swizzled     the same tile and threads, unpadded, with an XOR swizzle: conflict-free
 *                without the padding column.
 *   vectorized   16-byte loads and stores: each thread transposes a 4 x 4 (double: 2 x 2)
 *                block in registers; shared memory moves 16-byte pieces.
 *   column_order the same kernel, its blocks taking the tiles down the columns: the
 *                output is written row after row (README: "The last few percent").
 *   streaming    swizzled's tile taken in column_order's order, every load and store marked
 *                "streaming" (evict first), 64 x 64 elements and 32 x 16 threads whatever the
 *                type: element by element, so any row length keeps its speed.
 *   prefetch     streaming's tile and order; every load asks the L2 for the whole aligned
 *                256-byte block around it, and the stores are plain (README: "The last few percent").
 *   cublas       cuBLAS Sgeam / Dgeam with op(A) = A^T: the library reference.
 *
 * main runs the book's program first (padded, float, in the book's straight line),
 * then every step. Every output is poisoned (NaN) before a kernel writes it and then
 * compared with a CPU transpose element by element, exactly: the book's launch, and
 * each kernel's first launch and its last timed one. Any size >= 1 works.
 * Times are compared with a device-to-device cudaMemcpy of this run (the ceiling)
 * and with cuBLAS geam. Below main, a line: the rest is harness, not needed to follow the lesson. */
#include <cublas_v2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bank_model.h"
#include "book.h"
#include "ceiling.cuh"
#include "cli.h"
#include "vector16.cuh"

// ---------------------------------------------------------------------------
// Constants: the book's tile, and the further steps' tiles and blocks.

#define TILE_DIM 32                /* the book's tile: 32 x 32 elements, 32 x 32 threads  */
#define ROWS_PER_PASS 8            /* padded_multi and swizzled: 32 x 8 threads per block */
#define STREAMING_TILE 64          /* streaming, prefetch: 64 x 64 elements per block,   */
#define STREAMING_ROWS_PER_PASS 16 /* moved by 32 x 16 threads                           */
/* The further steps' tile is 256 bytes wide: 64 floats or 32 doubles, square. */
#define WIDE_TILE(real) ((int)(256 / sizeof(real)))
#define COPY_THREADS 256
#define VECTOR_THREADS 256
#define MAX_GRID_Y 65535 /* gridDim.y limit on every GPU; taller matrices loop */

// ---------------------------------------------------------------------------
// Fan ch. 7, global memory: the copy, and two transposes without shared memory.
//
// Every transpose below works on tiles. Kernels 2 to 7: blockIdx.x picks the
// tile's columns, blockIdx.y its rows. gridDim.y stops at 65535, so a matrix
// taller than 65535 tiles is covered by looping over tile rows with a stride of
// gridDim.y tiles; for every other size each block goes through the loop once.
// Kernels 8 to 10 number their tiles on a 1-D grid instead (kernel 8 says
// why). Index arithmetic is 64-bit: rows * cols may exceed 2^31.

// Kernel 1, copy (Fan ch. 7 times a plain copy as the figure a transpose should
// reach): not a transpose. Every element is read once and written once, one
// 16-byte vector per thread (Fan's copy moves one element per thread), on a
// grid as large as the matrix. Blocks start in index order, so the bytes in
// flight are one compact window that moves through memory in address order:
// in side experiments on an H100 and an H200 this reached cudaMemcpy's speed,
// where a grid-stride loop over a grid that fills the GPU once lost 7-8 %
// (its warps drift apart, and so do the addresses they touch). A teaching
// row: the ceiling is cudaMemcpy, measured in the same run.

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

// Kernel 2, naive_read (Fan ch. 7): thread (x, y) of a 32 x 32 block moves one
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

// Kernel 3, naive_write (Fan ch. 7): the other way round. Neighbouring threads
// take neighbouring input rows, so the write is coalesced and the read is
// strided; __ldg sends the read through the read-only cache, where the other
// elements of each fetched sector wait for the next warps' reads (Fan shows this
// one faster: a strided read can be cached, a strided write cannot).
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
// Fan ch. 8, shared memory: the tile, its bank conflicts, and the padding.

// Kernel 4, shared (Fan ch. 8, 32 x 32 threads): the block reads its tile row
// by row into shared memory (coalesced), waits, and writes the transposed tile
// row by row (coalesced) reading the tile column by column. Both global
// accesses are now coalesced; the price is in shared memory.
//
// Banks: shared memory has 32 banks, 4 bytes wide (on every GPU since Maxwell,
// Ampere and Hopper included), word w lives in bank w mod 32. Thread x of a
// warp reads s_tile[x][y], word 32x + y: bank y for all 32 threads, a 32-way
// conflict (32 passes instead of 1). For double, a warp's 256 bytes go in two
// halves of 16 threads; s_tile[x][y] starts at word 64x + 2y, the same bank
// pair for all 16: a 16-way conflict per half.

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

// Kernel 5, padded (Fan ch. 8, the book's program below runs this one): what
// changed is one column. In a [32][33] tile, s_tile[x][y] is word 33x + y,
// bank (x + y) mod 32: 32 different banks, no conflict. Row-wise writes stay
// conflict-free. For double, word 66x + 2y: the 16 threads of each half-warp
// get 16 different bank pairs (an odd row stride in 8-byte units), so one
// padding element fixes double too. Still one element per thread: the barrier
// stalls the whole 1024-thread block and each thread has a single load in
// flight, which keeps it well below the copy.

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
// Further steps: more bytes in flight per thread (Fan ch. 10's lesson for the
// reduction, applied here), then fewer and wider accesses.

// Kernel 6, padded_multi: a padded tile moved by 32 x 8 threads, each taking
// several elements: a thread issues all its loads before it uses one, so many
// bytes are in flight per thread, and fewer threads compute indices and wait
// at the barrier. The tile is 256 bytes wide whatever the type, 64 x 64 floats
// or 32 x 32 doubles: every row segment the block reads or writes is then two
// whole 128-byte cache lines, where a 32-float row is only one (32 x 32 float
// tiles stopped near 89 % of the copy on an H100, 32 x 32 doubles reached it).
// A float thread moves 2 columns x 8 rows, a double thread 1 x 4. Padding: row
// r of a [64][65] float tile starts at bank r mod 32, so a warp reading tile
// column c touches 32 different banks.
//
// The body is a device function shared with kernel 7, which differs only in
// where tile element (r, c) lives in shared memory: tile_offset() below.

/* Where tile element (row, col) lives: row * pitch + col with a padded pitch
 * (kernel 6), or col XOR (row mod 32) in an unpadded row (kernel 7). Host code
 * calls it too: the bank model (below main) takes its addresses from here. */
__host__ __device__ __forceinline__ int tile_offset(int row, int col, int pitch, bool swizzle) {
    return row * pitch + (swizzle ? col ^ (row % TILE_DIM) : col);
}

/* How the global loads and stores of a tile are marked. Kernel 10: __ldcs and
 * __stcs (PTX ld.global.cs, st.global.cs, "cache streaming": the line is likely
 * touched once, so evict it first). Kernel 11: loads with the L2 "prefetch
 * size" of 256 bytes, plain stores. */
enum cache_hints { HINTS_NONE, HINTS_STREAMING, HINTS_PREFETCH_256 };

/* Kernel 11's load: the L2 asked for the whole 256-byte block (with kernel 11, below). */
template <typename real> __device__ __forceinline__ real load_prefetch_256(const real *p);

template <typename real> __device__ __forceinline__ real load_element(const real *p, cache_hints hints) {
    return hints == HINTS_STREAMING ? __ldcs(p) : hints == HINTS_PREFETCH_256 ? load_prefetch_256(p) : *p;
}
template <typename real> __device__ __forceinline__ void store_element(real *p, real value, cache_hints hints) {
    if (hints == HINTS_STREAMING)
        __stcs(p, value);
    else
        *p = value;
}

/* One tile x tile tile: input rows row0 .. row0 + tile - 1, the same columns
 * from col0, moved by 32 x rows_per_pass threads. Kernels 6 and 7 take
 * tile = WIDE_TILE (64 floats, 32 doubles) and 8 rows per pass. It holds a
 * __syncthreads(), so every thread of the block calls it; a caller that
 * reuses s_tile for another tile needs a second barrier first. */
template <int tile, int rows_per_pass, typename real>
__device__ __forceinline__ void transpose_wide_tile(const real *__restrict__ in, real *__restrict__ out, long long rows,
                                                    long long cols, long long row0, long long col0, real *s_tile,
                                                    int pitch, bool swizzle, cache_hints hints) {
    const int per_x = tile / TILE_DIM;      /* columns per thread */
    const int per_y = tile / rows_per_pass; /* rows per thread    */
    const int rows_here = rows - row0 < tile ? (int)(rows - row0) : tile;
    const int cols_here = cols - col0 < tile ? (int)(cols - col0) : tile;
    /* All loads first, into registers, so they are in flight together.
     * Elements outside the matrix become 0 and are never written out. */
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
            s_tile[tile_offset(threadIdx.y + i * rows_per_pass, threadIdx.x + j * TILE_DIM, pitch, swizzle)] = v[i][j];
    __syncthreads();
    /* Tile column c becomes output row col0 + c; tile row r, output column row0 + r. */
    real *destination = out + (col0 + threadIdx.y) * rows + row0 + threadIdx.x;
#pragma unroll
    for (int i = 0; i < per_y; ++i)
#pragma unroll
        for (int j = 0; j < per_x; ++j) {
            const int tile_col = threadIdx.y + i * rows_per_pass, tile_row = threadIdx.x + j * TILE_DIM;
            if (tile_col < cols_here && tile_row < rows_here)
                store_element(destination + i * rows_per_pass * rows + j * TILE_DIM,
                              s_tile[tile_offset(tile_row, tile_col, pitch, swizzle)], hints);
        }
}

/* Kernels 6 and 7: tile column blockIdx.x; tile rows blockIdx.y, blockIdx.y +
 * gridDim.y, ... (one tile per block unless the matrix is more than 65535
 * tiles tall). */
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

template <typename real>
__global__ void __launch_bounds__(TILE_DIM *ROWS_PER_PASS)
    transpose_padded_multi(const real *__restrict__ in, real *__restrict__ out, long long rows, long long cols) {
    __shared__ real s_tile[WIDE_TILE(real)][WIDE_TILE(real) + 1];
    transpose_wide_tiles(in, out, rows, cols, &s_tile[0][0], WIDE_TILE(real) + 1, false);
}

// Kernel 7, swizzled: conflict-free without the padding column. Tile element
// (r, c) is stored at column c XOR (r mod 32) of row r. A warp reading tile
// column c (rows r = x, or x + 32) reads columns c ^ x: 32 different banks
// for float, since a 64-float row spans the 32 banks exactly twice; for double,
// (c ^ x) mod 16 differs across each half-warp. A warp writing row r, threads
// x, uses columns x ^ r: also 32 different banks. Same tile and threads as
// padded_multi; every row stays 256-byte aligned (no padding), which kernel 8
// needs for its 16-byte shared-memory accesses.

template <typename real>
__global__ void __launch_bounds__(TILE_DIM *ROWS_PER_PASS)
    transpose_swizzled(const real *__restrict__ in, real *__restrict__ out, long long rows, long long cols) {
    __shared__ real s_tile[WIDE_TILE(real)][WIDE_TILE(real)];
    transpose_wide_tiles(in, out, rows, cols, &s_tile[0][0], WIDE_TILE(real), true);
}

// Kernel 8, vectorized: every global access is 16 bytes wide (float4, double2),
// so a warp moves 512 bytes per instruction instead of 128 (float), with a
// quarter of the instructions and index arithmetic. A 16-byte load brings V
// neighbours of one input row (V = 4 floats or 2 doubles); a 16-byte store
// needs V neighbours of one output row, that is of one input column. So each
// thread loads a V x V block (V loads), transposes it in its registers, and
// writes its V columns into shared memory as 16-byte pieces of V output rows;
// after the barrier, threads read 16-byte pieces along each output row and
// store them. The tile stays 256 bytes wide (WIDE_TILE): one V x V block per
// thread. The swizzle now works on 16-byte pieces: a quarter of a warp (8
// threads x 16 bytes = the 32 banks) writes piece p of output rows that lie V
// apart, so piece p of row r goes to slot p ^ ((r / V) mod 8); readers of a
// row take 8 consecutive pieces, which the XOR keeps in 8 different slots.
// Rows whose length is not a multiple of V do not start 16-byte aligned: then
// the same tile moves element by element (the `fits` test), never misaligned.
// One block per tile, on a 1-D grid, and no loop: a loop over tiles costs
// this kernel registers (55 instead of 34 for float: 4 blocks of 256 threads
// per SM on an H100 instead of 6, and fewer bytes in flight). As in every kernel so far,
// consecutive blocks take consecutive tiles along the tile rows.
//
// Kernel 9, column_order: the same kernel; only the order of the tiles
// changes. The GPU starts blocks in index order (in practice), so the tiles in
// flight at any moment are a run of consecutive blocks. Along tile rows, that
// run covers a few whole tile rows: each input row is read in one long piece,
// but each output row is written in short pieces (256 bytes per tile), one
// now and the next only when the following tile row comes round. Down tile
// columns it is the other way round: the output is written row after row, in
// long pieces, and the reads come in short pieces. Writing is the side that
// gains: when a row's length is not a multiple of the 128-byte cache line
// (10000 floats: 40000 bytes), a line of output is shared by two tiles, and
// only in this order do both halves reach the L2 close together, before it
// writes the line back to DRAM.

/* Where 16-byte piece `piece` of output row out_row lives in the tile (an
 * element offset): its slot is piece XOR ((out_row / V) mod 8). The write and
 * the read both call it, and so does the bank model below main. */
__host__ __device__ __forceinline__ int swizzled_piece_offset(int out_row, int piece, int tile, int V) {
    return out_row * tile + (piece ^ (out_row / V % 8)) * V;
}

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
        *reinterpret_cast<vector *>(&s_tile[swizzled_piece_offset(out_row, r / V, tile, V)]) = piece;
    }
    __syncthreads();
    /* Output rows col0 .. col0 + cols_here - 1, 16 bytes (V output columns) per thread per pass. */
#pragma unroll
    for (int k = 0; k < tile * pieces / VECTOR_THREADS; ++k) {
        const int index = threadIdx.x + k * VECTOR_THREADS, out_row = index / pieces, p = index % pieces;
        if (out_row < cols_here && p * V < rows_here) {
            const vector piece = *reinterpret_cast<const vector *>(&s_tile[swizzled_piece_offset(out_row, p, tile, V)]);
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

template <typename real>
__global__ void __launch_bounds__(VECTOR_THREADS)
    transpose_vectorized(const real *__restrict__ in, real *__restrict__ out, long long rows, long long cols) {
    transpose_16_byte_tiles(in, out, rows, cols, false);
}

template <typename real>
__global__ void __launch_bounds__(VECTOR_THREADS)
    transpose_column_order(const real *__restrict__ in, real *__restrict__ out, long long rows, long long cols) {
    transpose_16_byte_tiles(in, out, rows, cols, true);
}

// Kernel 10, streaming: three changes, each measured (README: "The last few
// percent"). First, kernel 9's order on kernel 7's swizzled tile: tiles are
// taken down the tile columns, but element by element, so rows of any length
// (4097 floats, not a whole number of 16-byte pieces) keep the full speed that
// kernel 9 reaches only on lengths that are multiples of 4 floats (2 doubles).
// Second, every load and store carries the "streaming" cache hint: each
// element is read once and written once, so no line is worth keeping. Nsight
// Compute counts the same DRAM bytes with and without the hints (400 MB read
// at 10000 x 10000 floats on an H200); what changes is the time: in a side
// experiment there, the stores' hint alone took kernel 9's 16-byte tile from
// 0.86 to 0.93 of cudaMemcpy. The counters say how much, not where in the
// memory system the time goes. Third, the block's shape follows the SM rather
// than the element: 64 x 64 elements whatever the type (256 bytes wide for
// float, 512 for double) and 32 x 16 threads, 8 elements each, so that four
// blocks fill a Hopper SM's 2048 threads with 64 or 128 KB of its shared memory
// (an RTX 30/40/50 SM's 1536 threads take three, 48 or 99 of its 100 KB; a
// Turing SM's 1024, two: tests/res_usage.py checks each architecture). In
// side experiments on an H100 and an H200 this was level with kernel 7's
// 256-byte tile and 32 x 8 threads at 8192^2 and 10000^2 (within a per cent)
// and 3-10 % faster at 4097^2. The swizzle still holds for a 64-double row: a
// half-warp reading tile column c reads slots c ^ x, 16 different bank pairs.

/* Kernels 10 and 11: one 64 x 64 tile per block, the tiles taken down the
 * tile columns; the two kernels differ only in their cache hints. */
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

template <typename real>
__global__ void __launch_bounds__(TILE_DIM *STREAMING_ROWS_PER_PASS)
    transpose_streaming(const real *__restrict__ in, real *__restrict__ out, long long rows, long long cols) {
    transpose_tile_down_columns(in, out, rows, cols, HINTS_STREAMING);
}

// Kernel 11, prefetch: kernel 10 with other hints, chosen by measurement
// (README: "The last few percent"). At 10000 x 10000 the best kernels so far
// stayed 3-7 % behind cudaMemcpy, while the plain copy reached it. The cost
// is on the read side, where the input's rows start: a 40000-byte float row
// starts 64 bytes further past a 256-byte boundary than the row before. In a
// side experiment, rows padded to a multiple of 256 bytes won back most of
// what 10000^2 lost against 8192^2, and padding only the output's rows won
// nothing. Padding is not ours to choose, but the L2's fetch size is: each
// load asks for the whole aligned 256-byte block around its element
// (ld.global.L2::256B), so DRAM serves whole blocks however the rows start,
// and the neighbouring tile column finds the rest of each block in the L2. The "evict first" hint would work against
// that, so the loads drop it, and so do the stores: in side experiments on an
// H100 and an H200 plain stores were level with __stcs or ahead.

/* PTX ld.global.L2::256B: on an L2 miss, fetch the whole aligned 256-byte block
 * around the element from DRAM, not only its 32-byte sector. CUDA C has no
 * intrinsic for it (CUTLASS writes the same PTX); it needs sm_80 or later (the
 * header's nvcc line builds for sm_90), and before that the load is a plain one:
 * prefetch is then kernel 10 without hints. */
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
// main: the book's program (Fan ch. 8: the padded tile, in float), in the
// book's straight line, then every step of the progression.

/* Defined below the line after main: the command line (which also
 * selects the device and prints the sizes), the input (element i holds i),
 * the CPU transpose, the exact check (how many elements differ, and where the
 * first is), Fan's print_matrix, and the progression (every kernel, checked and timed). */
static cli_options transpose_options(int argc, char **argv);
template <typename real> static void fill_distinct(real *in, long long n);
template <typename real> static void transpose_cpu(const real *in, real *out, long long rows, long long cols);
template <typename real>
static long long count_mismatches(const real *got, const real *expected, long long n, long long *first);
template <typename real> static void print_matrix(const real *matrix, long long rows, long long cols);
template <typename real> static int run_progression(const cli_options &o);

int main(int argc, char **argv) {
    const cli_options o = transpose_options(argc, argv); /* default: the book's 10000 x 10000 */
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
    const long long book_wrong = count_mismatches(h_out, h_expected, n, &first);
    printf("book (padded 32 x 33 tile): %lld of %lld elements wrong: %s\n\n", book_wrong, n,
           book_wrong ? "FAIL" : "PASS");
    free(h_in);
    free(h_out);
    free(h_expected);
    HANDLE_ERROR(cudaFree(d_in));
    HANDLE_ERROR(cudaFree(d_out));

    /* The progression, in the type asked for: every kernel checked, then timed (unless --check). */
    const int status = o.type == ELEMENT_DOUBLE ? run_progression<double>(o) : run_progression<float>(o);
    return status != EXIT_ALL_PASSED || book_wrong ? EXIT_WRONG_RESULT : EXIT_ALL_PASSED;
}

// ===== Harness: below this line, the program around the lesson; not needed to follow it =====
// The command line and the sizes, the CPU transpose and the exact check, cuBLAS
// geam, the grids and the launch switch, and run_progression: the kernels one
// after another, each checked and timed, into the table and the RESULT lines.

#define BOOK_N 10000 /* the book's table: a 10000 x 10000 matrix */

enum kernel {
    KERNEL_COPY,
    KERNEL_NAIVE_READ,
    KERNEL_NAIVE_WRITE,
    KERNEL_SHARED,
    KERNEL_PADDED,
    KERNEL_PADDED_MULTI,
    KERNEL_SWIZZLED,
    KERNEL_VECTORIZED,
    KERNEL_COLUMN_ORDER,
    KERNEL_STREAMING,
    KERNEL_PREFETCH,
    KERNEL_CUBLAS,
    KERNEL_COUNT
};
static const char *const kernel_names[] = {"copy",         "naive_read", "naive_write", "shared",       "padded",
                                           "padded_multi", "swizzled",   "vectorized",  "column_order", "streaming",
                                           "prefetch",     "cublas",     NULL};

// ---------------------------------------------------------------------------
// Inputs and the expected answer, on the CPU.

/* Float holds every whole number up to 2^24 exactly. Element i of the input is
 * i itself while that fits; beyond it, i mod 16777213 (the largest prime below
 * 2^24): a misplaced element then goes unnoticed only if its true and its
 * wrong position lie a multiple of that prime apart, which the regular strides
 * of a buggy transpose (32, 8, rows, cols, their multiples) practically never
 * are. Double holds every index any GPU can store (below 2^53) exactly. */
#define FLOAT_DISTINCT_PERIOD 16777213LL
#define DOUBLE_DISTINCT_PERIOD (1LL << 53)

template <typename real> static void fill_distinct(real *in, long long n) {
    const long long period = sizeof(real) == sizeof(float) ? FLOAT_DISTINCT_PERIOD : DOUBLE_DISTINCT_PERIOD;
    long long value = 0;
    for (long long i = 0; i < n; ++i) {
        in[i] = (real)value;
        if (++value == period) value = 0;
    }
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
 * be bit for bit the expected one. NaN (the poison) is unequal to everything.
 * Equal bytes (memcmp, the quick path) mean equal elements: the expected
 * values hold no NaN and no -0. */
template <typename real>
static long long count_mismatches(const real *got, const real *expected, long long n, long long *first) {
    long long wrong = 0;
    *first = -1;
    if (memcmp(got, expected, (size_t)n * sizeof(real)) == 0) return 0;
    for (long long i = 0; i < n; ++i)
        if (!(got[i] == expected[i])) {
            if (wrong == 0) *first = i;
            ++wrong;
        }
    return wrong;
}

/* Fan's print_matrix: a small result is worth seeing. */
template <typename real> static void print_matrix(const real *matrix, long long rows, long long cols) {
    for (long long r = 0; r < rows; ++r) {
        for (long long c = 0; c < cols; ++c)
            printf("%g\t", (double)matrix[r * cols + c]);
        printf("\n");
    }
}

// ---------------------------------------------------------------------------
// The bank model (--bank-model; no GPU needed): every shared-memory instruction
// of every kernel above, as the warps of one full block execute it, in float
// and in double. Each lane's byte address comes from the kernel's own index
// expression: the book's subscripts evaluated on a host array of the same
// declared type, tile_offset() and swizzled_piece_offset() called as the
// kernels call them. scripts/bank_conflicts.sh sets it beside Nsight Compute.
// Host code only (bank_model.h prints on the host): the device pass skips it.


/* One shared-memory instruction: lane t of warp w touches `width` bytes at
 * byte address address(w, t). Warps that take the same passes share a line
 * (the first one's addresses, weight = how many warps); the picture, if any,
 * is drawn from warp 0. */
template <typename lane_address>
static void model_instruction(const char *kernel, const char *access, const char *op, int width, int warps,
                              lane_address address, const char *picture) {
    int passes[BANK_MODEL_WARP]; /* a block has at most 1024 threads: 32 warps */
    unsigned int lanes[BANK_MODEL_WARP];
    for (int w = 0; w < warps; ++w) {
        for (int t = 0; t < BANK_MODEL_WARP; ++t)
            lanes[t] = address(w, t);
        passes[w] = bank_passes(lanes, 0xffffffffu, width);
    }
    for (int w = 0; w < warps; ++w) {
        int seen_before = 0, same = 0;
        for (int v = 0; v < warps; ++v) {
            seen_before |= v < w && passes[v] == passes[w];
            same += passes[v] == passes[w];
        }
        if (seen_before) continue;
        for (int t = 0; t < BANK_MODEL_WARP; ++t)
            lanes[t] = address(w, t);
        bank_model_line(kernel, access, op, width, lanes, 0xffffffffu, same, w == 0 ? picture : NULL);
    }
}

/* The byte address of an element of a shared array, counted from its start. */
static unsigned int byte_offset(const void *element, const void *array) {
    return (unsigned int)((const char *)element - (const char *)array);
}

/* Kernels 4 and 5 (the book's form): 32 x 32 threads, warp y is threadIdx.y = y;
 * the subscripts s_tile[y][x] (write) and s_tile[x][y] (read) evaluated on a
 * host array of the kernel's tile type. */
template <typename tile_array>
static void model_book_tile(const char *kernel, tile_array &s_tile, const char *read_picture) {
    const int bytes = (int)sizeof(s_tile[0][0]);
    model_instruction(
        kernel, "tile row write", "st", bytes, TILE_DIM,
        [&](int y, int x) { return byte_offset(&s_tile[y][x], s_tile); }, NULL);
    model_instruction(
        kernel, "tile column read", "ld", bytes, TILE_DIM,
        [&](int y, int x) { return byte_offset(&s_tile[x][y], s_tile); }, read_picture);
}

/* transpose_wide_tile(): 32 x rows_per_pass threads (warp w is threadIdx.y = w);
 * per_y x per_x stores along tile rows, then as many loads down tile columns.
 * Store (i, j) puts lane x at tile row w + rows_per_pass i, column x + 32 j;
 * load (i, j) takes tile row x + 32 j, column w + rows_per_pass i. */
template <typename real>
static void model_wide_tile(const char *kernel, int tile, int rows_per_pass, int pitch, bool swizzle,
                            const char *read_picture) {
    const int per_x = tile / TILE_DIM, per_y = tile / rows_per_pass, bytes = (int)sizeof(real);
    for (int read = 0; read <= 1; ++read)
        for (int i = 0; i < per_y; ++i)
            for (int j = 0; j < per_x; ++j)
                model_instruction(
                    kernel, read ? "tile column read" : "tile row write", read ? "ld" : "st", bytes, rows_per_pass,
                    [=](int w, int x) {
                        const int lane_index = x + j * TILE_DIM, warp_index = w + i * rows_per_pass;
                        return (unsigned int)(bytes * (read ? tile_offset(lane_index, warp_index, pitch, swizzle)
                                                            : tile_offset(warp_index, lane_index, pitch, swizzle)));
                    },
                    read && i == 0 && j == 0 ? read_picture : NULL);
}

/* transpose_16_byte_tiles(): 256 threads in 8 warps, thread t = 32 w + lane;
 * V 16-byte stores of a V x V block's columns, then the 16-byte reads along
 * the output rows. */
template <typename real> static void model_16_byte_tile(const char *kernel, bool pictures) {
    const int V = vector16<real>::width, tile = WIDE_TILE(real), pieces = tile / V, bytes = (int)sizeof(real);
    const int warps = VECTOR_THREADS / BANK_MODEL_WARP;
    for (int j = 0; j < V; ++j)
        model_instruction(
            kernel, "16-byte piece write", "st", 16, warps,
            [=](int w, int lane) {
                const int t = w * BANK_MODEL_WARP + lane, r = t / pieces * V, c = t % pieces * V;
                return (unsigned int)(swizzled_piece_offset(c + j, r / V, tile, V) * bytes);
            },
            pictures && j == 0 ? "transpose_vectorized_write" : NULL);
    for (int k = 0; k < tile * pieces / VECTOR_THREADS; ++k)
        model_instruction(
            kernel, "16-byte piece read", "ld", 16, warps,
            [=](int w, int lane) {
                const int index = w * BANK_MODEL_WARP + lane + k * VECTOR_THREADS;
                return (unsigned int)(swizzled_piece_offset(index / pieces, index % pieces, tile, V) * bytes);
            },
            pictures && k == 0 ? "transpose_vectorized_read" : NULL);
}

template <typename real> static void print_bank_model_of(const char *type) {
    const bool is_float = sizeof(real) == sizeof(float);
    char kernel[64];
    /* Kernels 4 and 5, the book's form, on host arrays declared as the kernels declare their tiles. */
    static real s_plain[TILE_DIM][TILE_DIM], s_padded[TILE_DIM][TILE_DIM + 1];
    snprintf(kernel, sizeof kernel, "transpose_shared<%s>", type);
    model_book_tile(kernel, s_plain, is_float ? "transpose_shared_column_read" : "transpose_shared_double_column_read");
    snprintf(kernel, sizeof kernel, "transpose_padded<%s>", type);
    model_book_tile(kernel, s_padded,
                    is_float ? "transpose_padded_column_read" : "transpose_padded_double_column_read");
    /* Kernels 6 and 7: the 256-byte-wide tile, padded or swizzled, 32 x 8 threads. */
    snprintf(kernel, sizeof kernel, "transpose_padded_multi<%s>", type);
    model_wide_tile<real>(kernel, WIDE_TILE(real), ROWS_PER_PASS, WIDE_TILE(real) + 1, false, NULL);
    snprintf(kernel, sizeof kernel, "transpose_swizzled<%s>", type);
    model_wide_tile<real>(kernel, WIDE_TILE(real), ROWS_PER_PASS, WIDE_TILE(real), true,
                          is_float ? "transpose_swizzled_column_read" : NULL);
    /* Kernels 8 and 9: 16-byte pieces (the same accesses; only the tiles' order differs). */
    snprintf(kernel, sizeof kernel, "transpose_vectorized<%s>", type);
    model_16_byte_tile<real>(kernel, is_float);
    snprintf(kernel, sizeof kernel, "transpose_column_order<%s>", type);
    model_16_byte_tile<real>(kernel, false);
    /* Kernels 10 and 11: the 64 x 64 swizzled tile, 32 x 16 threads. */
    snprintf(kernel, sizeof kernel, "transpose_streaming<%s>", type);
    model_wide_tile<real>(kernel, STREAMING_TILE, STREAMING_ROWS_PER_PASS, STREAMING_TILE, true, NULL);
    snprintf(kernel, sizeof kernel, "transpose_prefetch<%s>", type);
    model_wide_tile<real>(kernel, STREAMING_TILE, STREAMING_ROWS_PER_PASS, STREAMING_TILE, true, NULL);
}

/* Both types whatever --type says: the book's program always runs the float kernel. */
static void print_bank_model(void) {
    bank_model_header();
    print_bank_model_of<float>("float");
    print_bank_model_of<double>("double");
    printf("library\ttranspose_readWrite_alignment_kernel\tcuBLAS\n"); /* what geam launches */
}

// ---------------------------------------------------------------------------
// The command line, the device, and the sizes (before any allocation).

static long long tiles(long long elements, int tile) { return (elements + tile - 1) / tile; }

/* The configuration lines; a matrix too large for the device (or for a grid)
 * is refused here, with exit 2, before the book's program allocates anything. */
template <typename real> static void describe_and_check_size(const cli_options &o) {
    const long long rows = o.rows, cols = o.cols, n = rows * cols;
    const size_t bytes = (size_t)n * sizeof(real);
    printf("transpose: %lld x %lld %s (rows x cols, row-major) into %lld x %lld, %.1f MB each way\n", rows, cols,
           element_type_name(o.type), cols, rows, bytes / 1e6);
    printf("tiles: book 32 x 32 (32 x 32 threads); padded_multi, swizzled %d x %d (32 x %d threads); vectorized, "
           "column_order %d x %d (%d threads); streaming, prefetch %d x %d (32 x %d threads); the last four one "
           "block per tile\n",
           WIDE_TILE(real), WIDE_TILE(real), ROWS_PER_PASS, WIDE_TILE(real), WIDE_TILE(real), VECTOR_THREADS,
           STREAMING_TILE, STREAMING_TILE, STREAMING_ROWS_PER_PASS);
    gpu_require_memory("transpose", 2.0 * bytes + 64.0 * (1 << 20), "the input and output matrices (and cuBLAS)");
    if (tiles(rows, TILE_DIM) > 2147483647LL || tiles(cols, TILE_DIM) > 2147483647LL ||
        tiles(rows, WIDE_TILE(real)) * tiles(cols, WIDE_TILE(real)) > 2147483647LL ||
        tiles(n / vector16<real>::width, COPY_THREADS) > 2147483647LL) { /* not on today's GPUs */
        fprintf(stderr, "transpose: %lldx%lld has more than 2^31 - 1 tiles (the grid's limit)\n", rows, cols);
        exit(EXIT_BAD_COMMAND_LINE);
    }
}

static cli_options transpose_options(int argc, char **argv) {
    cli_spec spec = {};
    spec.program = "transpose";
    spec.summary = "matrix transpose: coalescing (Fan, ch. 7), a shared-memory tile and its bank conflicts (ch. 8)";
    spec.accepts =
        CLI_ROWS_COLS | CLI_KERNEL | CLI_TYPE | CLI_REPS | CLI_CHECK | CLI_DEVICE | CLI_COLD_L2 | CLI_BANK_MODEL;
    spec.kernels = kernel_names;
    spec.default_rows = spec.default_cols = BOOK_N;
    spec.extra_help =
        "The input is rows x cols, row-major; the output cols x rows. Any size >= 1 works.\n"
        "Element i of the input holds i (float: i mod 16777213, exact and distinct below 2^24), and\n"
        "every output element is compared exactly with a CPU transpose.\n"
        "First the book's program (the padded 32 x 33 tile, in float) runs and is checked; then each kernel,\n"
        "whose first launch and last timed launch are both checked.\n"
        "Timing: the ceiling is a device-to-device cudaMemcpy measured in the same run ('%ceil');\n"
        "'x geam' compares each kernel with cuBLAS geam. Bandwidth claims need > 50 MB (the L2),\n"
        "or --cold-l2.";
    cli_options o;
    cli_parse_or_exit(&spec, argc, argv, &o);
    if (o.bank_model) { /* before any CUDA call: works without a GPU or a driver */
        print_bank_model();
        exit(EXIT_ALL_PASSED);
    }
    struct cudaDeviceProp device;
    gpu_select_device("transpose", o.device, &device);
    if (o.type == ELEMENT_DOUBLE)
        describe_and_check_size<double>(o);
    else
        describe_and_check_size<float>(o);
    return o;
}

// ---------------------------------------------------------------------------
// The library: cuBLAS geam, C = alpha * op(A) + beta * op(B).
//
// cuBLAS is column-major. Our row-major rows x cols input is, read column-major,
// a cols x rows matrix A with leading dimension cols; the row-major cols x rows
// output is a column-major rows x cols matrix C with leading dimension rows.
// So C = 1 * A^T + 0 * B, with m = rows, n = cols. B must be a valid rows x cols
// operand even though beta = 0: we pass A^T again (not the poisoned output, in
// case 0 * NaN were computed).

static cublasStatus_t geam_transpose(cublasHandle_t h, long long rows, long long cols, const float *in, float *out) {
    const float one = 1, zero = 0;
    return cublasSgeam_64(h, CUBLAS_OP_T, CUBLAS_OP_T, rows, cols, &one, in, cols, &zero, in, cols, out, rows);
}
static cublasStatus_t geam_transpose(cublasHandle_t h, long long rows, long long cols, const double *in, double *out) {
    const double one = 1, zero = 0;
    return cublasDgeam_64(h, CUBLAS_OP_T, CUBLAS_OP_T, rows, cols, &one, in, cols, &zero, in, cols, out, rows);
}

// ---------------------------------------------------------------------------
// One launch of any kernel: the grids, then the <<<>>> (or the cuBLAS call).

/* x: tiles across `across` elements; y: tiles down `down` elements, capped at
 * the gridDim.y limit (the kernels loop over the rest). */
static dim3 tile_grid(long long across, long long down, int tile) {
    const long long y = tiles(down, tile);
    return dim3((unsigned int)tiles(across, tile), (unsigned int)(y < MAX_GRID_Y ? y : MAX_GRID_Y), 1);
}

/* The 1-D grids, computed once before any timing: the copy takes one block
 * per COPY_THREADS vectors; the 16-byte kernels, streaming and prefetch one
 * block per tile. */
typedef struct {
    unsigned int copy_blocks, tile_blocks, streaming_blocks;
} device_grids;

/* Each count is below 2^31 (checked by describe_and_check_size()). The copy
 * needs one block even when the matrix holds fewer elements than a vector (its tail). */
template <typename real> static device_grids grids_for(long long rows, long long cols) {
    device_grids grids;
    const long long copy_blocks = tiles(rows * cols / vector16<real>::width, COPY_THREADS);
    grids.copy_blocks = (unsigned int)(copy_blocks < 1 ? 1 : copy_blocks);
    grids.tile_blocks = (unsigned int)(tiles(rows, WIDE_TILE(real)) * tiles(cols, WIDE_TILE(real)));
    grids.streaming_blocks = (unsigned int)(tiles(rows, STREAMING_TILE) * tiles(cols, STREAMING_TILE));
    return grids;
}

template <typename real>
static void launch(int kernel, const real *in, real *out, long long rows, long long cols, const device_grids &grids,
                   cublasHandle_t cublas) {
    const dim3 book_threads(TILE_DIM, TILE_DIM), wide_threads(TILE_DIM, ROWS_PER_PASS),
        streaming_threads(TILE_DIM, STREAMING_ROWS_PER_PASS);
    const int wide = WIDE_TILE(real);
    switch (kernel) {
    case KERNEL_COPY: copy_matrix<real><<<grids.copy_blocks, COPY_THREADS>>>(in, out, rows * cols); break;
    case KERNEL_NAIVE_READ:
        transpose_naive_read<real><<<tile_grid(cols, rows, TILE_DIM), book_threads>>>(in, out, rows, cols);
        break;
    case KERNEL_NAIVE_WRITE: /* its grid runs over the output: x across input rows */
        transpose_naive_write<real><<<tile_grid(rows, cols, TILE_DIM), book_threads>>>(in, out, rows, cols);
        break;
    case KERNEL_SHARED:
        transpose_shared<real><<<tile_grid(cols, rows, TILE_DIM), book_threads>>>(in, out, rows, cols);
        break;
    case KERNEL_PADDED:
        transpose_padded<real><<<tile_grid(cols, rows, TILE_DIM), book_threads>>>(in, out, rows, cols);
        break;
    case KERNEL_PADDED_MULTI:
        transpose_padded_multi<real><<<tile_grid(cols, rows, wide), wide_threads>>>(in, out, rows, cols);
        break;
    case KERNEL_SWIZZLED:
        transpose_swizzled<real><<<tile_grid(cols, rows, wide), wide_threads>>>(in, out, rows, cols);
        break;
    case KERNEL_VECTORIZED:
        transpose_vectorized<real><<<grids.tile_blocks, VECTOR_THREADS>>>(in, out, rows, cols);
        break;
    case KERNEL_COLUMN_ORDER:
        transpose_column_order<real><<<grids.tile_blocks, VECTOR_THREADS>>>(in, out, rows, cols);
        break;
    case KERNEL_STREAMING: /* one block per tile, as column_order */
        transpose_streaming<real><<<grids.streaming_blocks, streaming_threads>>>(in, out, rows, cols);
        break;
    case KERNEL_PREFETCH:
        transpose_prefetch<real><<<grids.streaming_blocks, streaming_threads>>>(in, out, rows, cols);
        break;
    case KERNEL_CUBLAS: {
        const cublasStatus_t status = geam_transpose(cublas, rows, cols, in, out);
        if (status != CUBLAS_STATUS_SUCCESS) {
            fprintf(stderr, "%s:%d: cuBLAS geam failed: %s\n", __FILE__, __LINE__, cublasGetStatusString(status));
            exit(EXIT_CUDA_ERROR);
        }
        break;
    }
    }
    CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------
// The progression, for one element type: every selected kernel, checked, then
// timed; its last timed launch is checked too.

template <typename real> static int run_progression(const cli_options &o) {
    const long long rows = o.rows, cols = o.cols, n = rows * cols;
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
    if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "transpose: could not create a cuBLAS handle\n");
        exit(EXIT_CUDA_ERROR);
    }
    const device_grids grids = grids_for<real>(rows, cols);
    l2_flusher flusher = l2_flusher_create(o.cold_l2 && !o.check_only);

    /* The check of the output kernel k left in d_out: the elements that differ
     * from the expected ones (the copy keeps the input's shape), exactly; the
     * first of them is printed, with `which` launch it was. */
    auto wrong_elements = [&](int k, const char *which) {
        HANDLE_ERROR(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
        const real *expected = k == KERNEL_COPY ? h_in : h_expected;
        const long long out_cols = k == KERNEL_COPY ? cols : rows;
        long long first = -1;
        const long long wrong = count_mismatches(h_out, expected, n, &first);
        if (wrong)
            printf("  %s%s: %lld of %lld elements wrong; first at output row %lld, column %lld: got %.17g, "
                   "expected %.17g\n",
                   kernel_names[k], which, wrong, n, first / out_cols, first % out_cols, (double)h_out[first],
                   (double)expected[first]);
        return wrong;
    };
    /* The median time of kernel k (time_median_ms: TIME_WARMUP_RUNS warm-ups, then o.reps
     * timed launches, each after the cold-L2 flush when asked for). The output
     * is poisoned before the last launch, which is then checked as the first
     * was: a timed launch that computes something else, or nothing, is a FAIL. */
    auto time_and_check = [&](int k, long long *timed_wrong) {
        int setups = 0;
        const double ms = time_median_ms(
            o.reps,
            [&] {
                if (++setups == TIME_WARMUP_RUNS + o.reps) gpu_poison(d_out, bytes); /* before the last launch */
                l2_flush(&flusher); /* after the poison: a cold L2 stays cold */
            },
            [&] { launch(k, d_in, d_out, rows, cols, grids, cublas); });
        *timed_wrong = wrong_elements(k, " (last timed launch)");
        return ms;
    };

    double memcpy_gbps = 0, geam_ms = 0;
    long long geam_timed_wrong = 0;
    if (!o.check_only) {
        memcpy_gbps = gpu_memcpy_gbps((double)bytes, o.reps);
        report_ceiling(stdout, "transpose", "memcpy", "cudaMemcpy device to device, >= 256 MiB", memcpy_gbps);
        geam_ms = time_and_check(KERNEL_CUBLAS, &geam_timed_wrong);
        printf("library reference (cuBLAS geam): %.1f GB/s; each row's note is its speed as a multiple of it\n\n",
               gigabytes_per_second(bytes_moved((double)n, (double)n, sizeof(real)), geam_ms));
    }
    report rep;
    report_begin(&rep, "transpose", stdout);
    rep.cold_l2 = o.cold_l2;
    for (int k = 0; k < KERNEL_COUNT; ++k) {
        if (!cli_kernel_selected(&o, k)) continue;
        gpu_poison(d_out, bytes);
        launch(k, d_in, d_out, rows, cols, grids, cublas);
        const long long wrong = wrong_elements(k, "");
        long long timed_wrong = 0;
        result_row row = result_row_for(kernel_names[k], element_type_name(o.type), n);
        row.size = size_label;
        row.bytes = bytes_moved((double)n, (double)n, sizeof(real)); /* each element read once, written once */
        if (!o.check_only) {
            double ms = geam_ms;
            timed_wrong = geam_timed_wrong;
            if (k != KERNEL_CUBLAS) ms = time_and_check(k, &timed_wrong);
            row_time(&row, ms, "memcpy", memcpy_gbps);
            row_note(&row, "%.2fx geam", geam_ms / ms);
        }
        /* Exact: value is the number of elements equal to the CPU transpose in the
         * worse of the checked launches, expected is all of them, tolerance 0. */
        const long long worst = wrong > timed_wrong ? wrong : timed_wrong;
        row_check(&row, (double)(n - worst), (double)n, 0.0);
        if (wrong) row_note(&row, "%lld wrong", wrong);
        if (timed_wrong) row_note(&row, "%lld wrong in the last timed launch", timed_wrong);
        report_add(&rep, &row);
    }
    const int status = report_end(&rep);
    l2_flusher_free(&flusher);
    cublasDestroy(cublas);
    HANDLE_ERROR(cudaFree(d_in));
    HANDLE_ERROR(cudaFree(d_out));
    free(h_in);
    free(h_expected);
    free(h_out);
    return status || geam_timed_wrong ? EXIT_WRONG_RESULT : EXIT_ALL_PASSED;
}
