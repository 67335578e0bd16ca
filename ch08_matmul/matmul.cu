/* ch08_matmul: shared memory for reuse, the Programming Guide's tiled matrix multiply,
 * from its 16 x 16 tile to register tiles, conflict-free layouts and asynchronous copies
 * (CUDA C++ Programming Guide, "Shared Memory"; Fan Zheyong, CUDA 编程：基础与实践, ch. 8).
 *
 * What it teaches: C = A B reads every element of A N times and every element of B M times. A
 * block that keeps a tile of A and a tile of B in __shared__ memory reads each from global memory
 * once per tile and uses it 16 times (the Guide's 16 x 16 tile), or 128 times (a 128 x 128 tile whose
 * threads each keep an 8 x 8 block of C in registers). The bytes each FLOP needs from global memory
 * fall from 4 to 0.25 to 0.03; after that the limits are shared memory's banks and the waiting for
 * loads, which a transposed, padded tile and cp.async's copies in flight remove. Hopper's Tensor Memory
 * Accelerator then takes the copies off the threads, and a cluster of two blocks shares a tile of A.
 *
 * Build it alone, from its folder, for Hopper (sm_90a: sm_90 and the multicast the cluster step uses;
 * another GPU: its -arch=sm_NN, or -arch=native):
 *   nvcc -O3 -arch=sm_90a -I../common matmul.cu -o matmul -lcublas
 * Run: matmul (the Guide's MatMul at 4096 x 4096, then every step), --check (verify only), --help.
 *
 * Kernels, in teaching order (C = A B, row-major; A rows x k, B k x cols, C rows x cols; any sizes):
 *   naive          the Guide's MatMulKernel without shared memory: one element of C per thread
 *   shared         the Guide's MatMulKernel: 16 x 16 tiles of A and B in shared memory (the book's program)
 *   register_tile  128 x 128 tiles, each thread an 8 x 8 block of C in registers; A's tile as in A
 *   transposed     A's tile stored transposed: a thread's A values are 16-byte reads (the store conflicts)
 *   padded         four floats of padding per row of the transposed tile: no bank conflict anywhere
 *   async          padded, filled by cp.async: three tiles in flight, copies overlapping the math
 *   async_256x128  async with one block per SM, each thread 16 x 8 of a 256 x 128 tile
 *   tma            the tiles copied by the Tensor Memory Accelerator, whole, completing on an mbarrier (sm_90)
 *   tma_256x128    tma with async_256x128's tile
 *   cluster        tma in clusters of two blocks, A's tile multicast to both: read once per cluster (sm_90a)
 *   cublas         cublasSgemm, FP32 without tensor cores (the library reference, in the harness) */
#include <cublas_v2.h>
#include <cuda_pipeline.h>
#ifndef CUDA_CPU_RUNNER /* steps 5 and 6 use sm_90's hardware, which the CPU runner does not model */
#include <cooperative_groups.h>
#include <cuda.h>          /* CUtensorMap */
#include <cuda/ptx>        /* the PTX instructions of the TMA and the mbarrier, by name */
#include <cudaTypedefs.h>  /* the type of cuTensorMapEncodeTiled */
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book.h"
#include "cli.h"
#include "bank_model.h" /* after cli.h: --bank-model */
#include "report.h"

#define BLOCK_SIZE 16   /* the Guide's: 16 x 16 threads, each computing one element of C */
#define TILE_M 128      /* the further steps: a block computes a 128 x 128 tile of C,     */
#define TILE_N 128      /* taking A and B 8 columns (rows) at a time,                     */
#define TILE_K 8        /*                                                                */
#define TILE_THREADS 256 /* with 16 x 16 threads, each an 8 x 8 block of C               */
#define THREAD_TILE 8
#define A_PADDING 4 /* padded, async: floats after each row of the transposed A tile */
#define STAGES 3    /* async: tiles in shared memory at once (two in flight while one is used) */

// ---------------------------------------------------------------------------
// The Programming Guide's matrix multiply, in its own form: a Matrix struct, its
// accessors, and the kernel without and with shared memory. The Guide assumes sizes
// that are multiples of BLOCK_SIZE; ours generalises only that: an element outside
// the matrix reads as 0 and is never written, and offsets are 64-bit.

// Row-major: element (row, col) of M is M.elements[row * M.stride + col].
typedef struct {
    int width;
    int height;
    int stride;
    float *elements;
} Matrix;

// One element of A (ours: 0 outside the matrix)
__device__ float GetElement(const Matrix A, int row, int col) {
    if (row >= A.height || col >= A.width) return 0.0f;
    return A.elements[(long long)row * A.stride + col];
}

// One element of A written (ours: not outside the matrix)
__device__ void SetElement(Matrix A, int row, int col, float value) {
    if (row < A.height && col < A.width) A.elements[(long long)row * A.stride + col] = value;
}

// The BLOCK_SIZE x BLOCK_SIZE block of A in block row `row` and block column `col`: a view that
// shares A's elements and stride (ours: its width and height are what is left of A from its
// corner, so that GetElement sees the edge)
__device__ Matrix GetSubMatrix(Matrix A, int row, int col) {
    Matrix Asub;
    Asub.width = A.width - BLOCK_SIZE * col;
    Asub.height = A.height - BLOCK_SIZE * row;
    Asub.stride = A.stride;
    Asub.elements = &A.elements[(long long)A.stride * BLOCK_SIZE * row + BLOCK_SIZE * col];
    return Asub;
}

// naive: the Guide's first kernel. Each thread reads a row of A and a column of B from
// global memory, 2 k floats for its 2 k FLOPs: 4 bytes per FLOP. Neighbouring threads
// read the same row of A, and the L1 cache serves many of those reads.
__global__ void MatMulKernelNoShared(Matrix A, Matrix B, Matrix C) {
    // this thread's element of C: row, col
    float Cvalue = 0;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= C.height || col >= C.width) return; /* ours: any size */
    for (int e = 0; e < A.width; ++e)
        Cvalue += A.elements[(long long)row * A.width + e] * B.elements[(long long)e * B.width + col];
    C.elements[(long long)row * C.width + col] = Cvalue;
}

// shared: the Guide's MatMulKernel. Each block computes one 16 x 16 sub-matrix Csub of C,
// looping over the sub-matrices of A and B it needs; each is read from global memory once,
// by the whole block, into shared memory, and used 16 times: 0.25 bytes per FLOP.
__global__ void MatMulKernel(Matrix A, Matrix B, Matrix C) {
    /* this block's 16 x 16 block of C */
    int blockRow = blockIdx.y;
    int blockCol = blockIdx.x;
    Matrix Csub = GetSubMatrix(C, blockRow, blockCol);
    /* this thread's element of it */
    float Cvalue = 0;
    int row = threadIdx.y;
    int col = threadIdx.x;
    /* along block row blockRow of A and block column blockCol of B, one pair of blocks at a time */
    for (int m = 0; m < (A.width + BLOCK_SIZE - 1) / BLOCK_SIZE; ++m) {
        Matrix Asub = GetSubMatrix(A, blockRow, m);
        Matrix Bsub = GetSubMatrix(B, m, blockCol);
        __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
        __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
        // every thread brings one element of each into shared memory
        As[row][col] = GetElement(Asub, row, col); // bank: A tile write
        Bs[row][col] = GetElement(Bsub, row, col); // bank: B tile write
        __syncthreads(); // both blocks are complete before anyone reads them
        for (int e = 0; e < BLOCK_SIZE; ++e)
            Cvalue += As[row][e] * Bs[e][col]; // bank: tile reads
        __syncthreads(); // everyone is done with them before the next pair overwrites them
    }
    SetElement(Csub, row, col, Cvalue);
}

// ---------------------------------------------------------------------------
// Further steps: more reuse per byte loaded, then no bank conflict, then no wait.
// A block computes a 128 x 128 tile of C. Thread (tx, ty) of its 16 x 16 keeps an
// 8 x 8 block in registers: per column k of A's tile it reads 8 values of A and 8
// of B and does 64 FMAs, so each value read from shared memory serves 8 FMAs (the
// Guide's tile: 1). Each element of C is still one sum, in the order k = 0, 1, ...

/* Row (or column) i = 0..7 of thread t's block: two runs of 4, 64 apart, so that a warp's
 * 16-byte reads of a run are neighbours in shared memory. */
__host__ __device__ __forceinline__ int thread_tile_offset(int t, int i) { return i / 4 * 64 + t * 4 + i % 4; }

/* A warp is 8 threads across (tx) and 4 down (ty): it reads 4 rows of A's tile, 8 runs of B's. */
__device__ __forceinline__ int thread_x() { return threadIdx.x / 32 % 2 * 8 + threadIdx.x % 8; }
__device__ __forceinline__ int thread_y() { return threadIdx.x / 64 * 4 + threadIdx.x % 32 / 8; }

/* Writes the thread's rows x 8 block of C, the parts inside the matrix. Its rows: two runs of 4, or
 * (rows_16_apart, the TMA's steps) rows ty, ty + 16, ... */
template <int rows, bool rows_16_apart = false>
__device__ __forceinline__ void store_thread_tile(float *C, int M, int N, long long row0, long long col0,
                                                  const float (&acc)[rows][THREAD_TILE]) {
    const int tx = thread_x(), ty = thread_y();
#pragma unroll
    for (int i = 0; i < rows; ++i) {
        const long long row = row0 + (rows_16_apart ? ty + 16 * i : thread_tile_offset(ty, i));
#pragma unroll
        for (int j = 0; j < THREAD_TILE; ++j) {
            const long long col = col0 + thread_tile_offset(tx, j);
            if (row < M && col < N) C[row * N + col] = acc[i][j];
        }
    }
}

// register_tile: the tiles as they lie in A and B. A warp's 4 rows ty of s_a are 32 floats
// apart (rows of 8), all in one bank: reading a[i] is a 4-way bank conflict.
__global__ void __launch_bounds__(TILE_THREADS, 2)
    matmul_register_tile(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M,
                         int N, int K) {
    __shared__ float s_a[TILE_M][TILE_K]; /* row m, column k of A's tile */
    __shared__ float s_b[TILE_K][TILE_N];
    const int tx = thread_x(), ty = thread_y();
    const long long row0 = (long long)blockIdx.y * TILE_M, col0 = (long long)blockIdx.x * TILE_N;
    float acc[THREAD_TILE][THREAD_TILE] = {};
    for (int k0 = 0; k0 < K; k0 += TILE_K) {
        /* 8 neighbouring threads read a row's 8 floats of A (a 32-byte sector), 32 a row of B's 128. */
#pragma unroll
        for (int i = 0; i < TILE_M * TILE_K / TILE_THREADS; ++i) {
            const int e = threadIdx.x + i * TILE_THREADS, m = e / TILE_K, k = e % TILE_K;
            s_a[m][k] = row0 + m < M && k0 + k < K ? A[(row0 + m) * K + k0 + k] : 0.0f; // bank: A tile write
        }
#pragma unroll
        for (int i = 0; i < TILE_K * TILE_N / TILE_THREADS; ++i) {
            const int e = threadIdx.x + i * TILE_THREADS, k = e / TILE_N, n = e % TILE_N;
            s_b[k][n] = k0 + k < K && col0 + n < N ? B[(long long)(k0 + k) * N + col0 + n] : 0.0f; // bank: B tile write
        }
        __syncthreads(); /* both tiles are complete */
#pragma unroll 2 /* fully unrolled, nvcc merges the reads of A along k and spills registers */
        for (int k = 0; k < TILE_K; ++k) {
            float a[THREAD_TILE], b[THREAD_TILE];
#pragma unroll
            for (int i = 0; i < THREAD_TILE; ++i)
                a[i] = s_a[thread_tile_offset(ty, i)][k]; // bank: A column read
#pragma unroll
            for (int j = 0; j < THREAD_TILE; ++j)
                b[j] = s_b[k][thread_tile_offset(tx, j)]; // bank: B row read
#pragma unroll
            for (int i = 0; i < THREAD_TILE; ++i)
#pragma unroll
                for (int j = 0; j < THREAD_TILE; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads(); /* everyone is done with the tiles before they are overwritten */
    }
    store_thread_tile(C, M, N, row0, col0, acc);
}

/* The math of one pair of tiles, with A's transposed (s_a[k * pitch + m]): a thread's runs of 4 values
 * of column k of A and of row k of B are 16-byte reads. */
template <int rows, int pitch>
__device__ __forceinline__ void multiply_tiles(const float *s_a, const float *s_b, int tx, int ty,
                                               float (&acc)[rows][THREAD_TILE]) {
#pragma unroll
    for (int k = 0; k < TILE_K; ++k) {
        float a[rows], b[THREAD_TILE];
#pragma unroll
        for (int run = 0; run < rows / 4; ++run) {
            const float4 a4 = /* bank: A column read, 16 bytes */
                *reinterpret_cast<const float4 *>(&s_a[k * pitch + thread_tile_offset(ty, 4 * run)]);
            a[4 * run] = a4.x, a[4 * run + 1] = a4.y, a[4 * run + 2] = a4.z, a[4 * run + 3] = a4.w;
        }
#pragma unroll
        for (int run = 0; run < THREAD_TILE / 4; ++run) {
            const float4 b4 = /* bank: B row read, 16 bytes */
                *reinterpret_cast<const float4 *>(&s_b[k * TILE_N + thread_tile_offset(tx, 4 * run)]);
            b[4 * run] = b4.x, b[4 * run + 1] = b4.y, b[4 * run + 2] = b4.z, b[4 * run + 3] = b4.w;
        }
#pragma unroll
        for (int i = 0; i < rows; ++i)
#pragma unroll
            for (int j = 0; j < THREAD_TILE; ++j)
                acc[i][j] += a[i] * b[j];
    }
}

// transposed: A's tile stored column by column, so a thread's 4 rows of a column of A lie
// side by side and are one 16-byte read, a warp's 4 of them 64 bytes: no conflict. But the
// store now puts the 8 threads of a row of A (8 values of k) 128 floats apart, in one bank:
// an 8-way conflict, on 4 stores per tile where the reads were 64.
// padded: the same kernel with rows of 132 floats: row k starts 4 k banks further, and the
// 8 k x 4 m floats a warp stores fall in 32 different banks.
template <int pitch>
__global__ void __launch_bounds__(TILE_THREADS, 2)
    matmul_transposed(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N,
                      int K) {
    __shared__ __align__(16) float s_a[TILE_K][pitch]; /* column k of A's tile is row k here */
    __shared__ __align__(16) float s_b[TILE_K][TILE_N];
    const int tx = thread_x(), ty = thread_y();
    const long long row0 = (long long)blockIdx.y * TILE_M, col0 = (long long)blockIdx.x * TILE_N;
    float acc[THREAD_TILE][THREAD_TILE] = {};
    for (int k0 = 0; k0 < K; k0 += TILE_K) {
#pragma unroll
        for (int i = 0; i < TILE_M * TILE_K / TILE_THREADS; ++i) {
            const int e = threadIdx.x + i * TILE_THREADS, m = e / TILE_K, k = e % TILE_K;
            s_a[k][m] = row0 + m < M && k0 + k < K ? A[(row0 + m) * K + k0 + k] : 0.0f; // bank: transposed A write
        }
#pragma unroll
        for (int i = 0; i < TILE_K * TILE_N / TILE_THREADS; ++i) {
            const int e = threadIdx.x + i * TILE_THREADS, k = e / TILE_N, n = e % TILE_N;
            s_b[k][n] = k0 + k < K && col0 + n < N ? B[(long long)(k0 + k) * N + col0 + n] : 0.0f; // bank: B tile write
        }
        __syncthreads();
        multiply_tiles<THREAD_TILE, pitch>(&s_a[0][0], &s_b[0][0], tx, ty, acc);
        __syncthreads();
    }
    store_thread_tile(C, M, N, row0, col0, acc);
}

/* async: starts this thread's copies of tile k0 of A (transposed, padded: tile_m rows) and of B into one
 * stage. rows_here, cols_here: how much of A's and B's tiles lies inside the matrices; a tile wholly inside
 * (edge false) needs no guard. A thread copies column a_col of A's tile, rows a_row, a_row + 32, ...: one
 * pointer, moved 32 rows on after each copy. A copy of 4 bytes can land anywhere, so A's is transposed on
 * the way; one outside the matrix reads nothing and fills its bytes with zeros. B's rows, where
 * N % 4 == 0, start 16-byte aligned: a thread copies 16 bytes of a row. */
template <int tile_m, bool edge>
__device__ __forceinline__ void copy_tiles_async(float (*s_a)[tile_m + A_PADDING], float (*s_b)[TILE_N],
                                                 const float *A, const float *B, int N, int K, long long row0,
                                                 long long col0, int rows_here, int cols_here, int k0) {
    const int k_here = K - k0;
    const int a_row = threadIdx.x / TILE_K, a_col = threadIdx.x % TILE_K, a_rows_apart = TILE_THREADS / TILE_K;
    const float *a = &A[(row0 + a_row) * K + k0 + a_col];
#pragma unroll
    for (int i = 0; i < tile_m / a_rows_apart; ++i, a += (long long)a_rows_apart * K) {
        const int m = a_row + i * a_rows_apart;
        const bool inside = !edge || (m < rows_here && a_col < k_here);
        __pipeline_memcpy_async(&s_a[a_col][m], inside ? a : A, 4, inside ? 0 : 4);
    }
    if (N % 4 == 0) {
        static_assert(TILE_K * TILE_N / 4 == TILE_THREADS, "one 16-byte copy of B per thread");
        const int k = threadIdx.x / (TILE_N / 4), n = threadIdx.x % (TILE_N / 4) * 4;
        const bool inside = !edge || (k < k_here && n < cols_here);
        __pipeline_memcpy_async(&s_b[k][n], inside ? &B[(long long)(k0 + k) * N + col0 + n] : B, 16, inside ? 0 : 16);
    } else {
#pragma unroll
        for (int i = 0; i < TILE_K * TILE_N / TILE_THREADS; ++i) {
            const int e = threadIdx.x + i * TILE_THREADS, k = e / TILE_N, n = e % TILE_N;
            const bool inside = !edge || (k < k_here && n < cols_here);
            __pipeline_memcpy_async(&s_b[k][n], inside ? &B[(long long)(k0 + k) * N + col0 + n] : B, 4,
                                    inside ? 0 : 4);
        }
    }
}

// async: padded's tiles, filled by cp.async (sm_80 and later: global to shared memory without
// passing through registers, and without waiting). Three stages: while the block multiplies
// tile t, the copies of tiles t + 1 and t + 2 are in flight. __pipeline_commit() closes a
// batch of this thread's copies; __pipeline_wait_prior(1) waits until all but the newest
// batch have landed, then one barrier makes every thread's copies of tile t visible to all
// and says every thread is done with tile t - 1, whose stage the next copies reuse.
// async_256x128: with the loads in flight, fewer warps hide their wait: one block per SM,
// whose threads can have twice the registers: a 256 x 128 tile, each thread 16 x 8 of C,
// 6 shared reads for 128 FMAs where async has 4 for 64.
template <int rows>
__global__ void __launch_bounds__(TILE_THREADS, rows == THREAD_TILE ? 2 : 1)
    matmul_async(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N,
                 int K) {
    const int tile_m = 16 * rows;
    __shared__ __align__(16) float s_a[STAGES][TILE_K][tile_m + A_PADDING];
    __shared__ __align__(16) float s_b[STAGES][TILE_K][TILE_N];
    const int tx = thread_x(), ty = thread_y();
    const long long row0 = (long long)blockIdx.y * tile_m, col0 = (long long)blockIdx.x * TILE_N;
    const int rows_here = M - row0 < tile_m ? (int)(M - row0) : tile_m;
    const int cols_here = N - col0 < TILE_N ? (int)(N - col0) : TILE_N;
    const int tiles = (K + TILE_K - 1) / TILE_K;
    float acc[rows][THREAD_TILE] = {};
    const bool edge_block = rows_here < tile_m || cols_here < TILE_N;
    auto copy_tiles = [&](int stage, int tile) { /* the last tile along k is an edge tile where K % 8 != 0 */
        if (edge_block || (tile + 1) * TILE_K > K)
            copy_tiles_async<tile_m, true>(s_a[stage], s_b[stage], A, B, N, K, row0, col0, rows_here, cols_here,
                                           tile * TILE_K);
        else
            copy_tiles_async<tile_m, false>(s_a[stage], s_b[stage], A, B, N, K, row0, col0, rows_here, cols_here,
                                            tile * TILE_K);
    };
    for (int t = 0; t < STAGES - 1; ++t) { /* the first tiles on their way */
        if (t < tiles) copy_tiles(t, t);
        __pipeline_commit();
    }
    for (int t = 0; t < tiles; ++t) {
        __pipeline_wait_prior(STAGES - 2); /* this thread's copies of tile t have landed */
        __syncthreads();                   /* everyone's have; and everyone is done with tile t - 1 */
        const int next = t + STAGES - 1;
        if (next < tiles) copy_tiles(next % STAGES, next);
        __pipeline_commit(); /* an empty batch past the last tile keeps the count of wait_prior right */
        multiply_tiles<rows, tile_m + A_PADDING>(&s_a[t % STAGES][0][0], &s_b[t % STAGES][0][0], tx, ty, acc);
    }
    store_thread_tile(C, M, N, row0, col0, acc);
}

#ifndef CUDA_CPU_RUNNER /* steps 5 and 6: a GPU of compute capability 9.0 (the CPU runner says so in one line) */
namespace ptx = cuda::ptx;

/* The math of one pair of tiles as the TMA lays them: A's as it lies in A (s_a[m][k], rows of 8 floats).
 * Thread (tx, ty) takes rows ty, ty + 16, ...: a warp's 4 values of ty are 4 neighbouring rows, 32 bytes
 * apart, so its 16-byte reads of 4 values of k of a row fall in 4 different groups of banks. */
template <int rows>
__device__ __forceinline__ void multiply_tiles_as_loaded(const float (*s_a)[TILE_K], const float *s_b, int tx,
                                                         int ty, float (&acc)[rows][THREAD_TILE]) {
#pragma unroll
    for (int k4 = 0; k4 < TILE_K; k4 += 4) {
        float4 a[rows];
#pragma unroll
        for (int i = 0; i < rows; ++i)
            a[i] = *reinterpret_cast<const float4 *>(&s_a[ty + 16 * i][k4]); // bank: A row read, 16 bytes
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            float b[THREAD_TILE];
#pragma unroll
            for (int run = 0; run < THREAD_TILE / 4; ++run) {
                const float4 b4 = /* bank: B row read, 16 bytes */
                    *reinterpret_cast<const float4 *>(&s_b[(k4 + k) * TILE_N + thread_tile_offset(tx, 4 * run)]);
                b[4 * run] = b4.x, b[4 * run + 1] = b4.y, b[4 * run + 2] = b4.z, b[4 * run + 3] = b4.w;
            }
#pragma unroll
            for (int i = 0; i < rows; ++i) {
                const float a_ik = k == 0 ? a[i].x : k == 1 ? a[i].y : k == 2 ? a[i].z : a[i].w;
#pragma unroll
                for (int j = 0; j < THREAD_TILE; ++j)
                    acc[i][j] += a_ik * b[j];
            }
        }
    }
}

/* Waits until tile t has landed: phase t / STAGES of its stage's mbarrier has ended. */
__device__ __forceinline__ void wait_for_tile(uint64_t *landed, int t) {
    while (!ptx::mbarrier_try_wait_parity(&landed[t % STAGES], t / STAGES % 2)) {
    }
}

// tma: the Tensor Memory Accelerator (sm_90) copies a whole tile in one instruction, described by a
// tensor map the host encodes once per matrix (address, sizes, row stride, and the box of one tile),
// and it fills what lies outside the matrix with zeros: no guard and no address in any thread. One
// thread starts a stage's two copies; the stage's mbarrier, a barrier in shared memory, counts the
// bytes as they land (the thread says how many to expect), and every thread waits for its phase:
// phase t / STAGES of stage t % STAGES holds tile t. The TMA does not transpose: A's tile arrives
// as rows of 8 floats, which multiply_tiles_as_loaded reads without a conflict.
template <int rows>
__global__ void __launch_bounds__(TILE_THREADS, rows == THREAD_TILE ? 2 : 1)
    matmul_tma(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
               float *__restrict__ C, int M, int N, int K) {
#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200 /* sm_120's code makes each tile copy a call: not built there */
    const int tile_m = 16 * rows;
    __shared__ __align__(128) float s_a[STAGES][tile_m][TILE_K];
    __shared__ __align__(128) float s_b[STAGES][TILE_K][TILE_N];
    __shared__ uint64_t landed[STAGES]; /* the mbarriers */
    const int tx = thread_x(), ty = thread_y();
    const int row0 = blockIdx.y * tile_m, col0 = blockIdx.x * TILE_N, tiles = (K + TILE_K - 1) / TILE_K;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s)
            ptx::mbarrier_init(&landed[s], 1); /* a phase ends at 1 arrival and its bytes */
        ptx::fence_proxy_async(ptx::space_shared); /* the TMA (the "async proxy") sees them initialised */
    }
    __syncthreads();
    auto copy_tiles = [&](int stage, int tile) { /* thread 0 alone */
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &landed[stage],
                                       sizeof(s_a[0]) + sizeof(s_b[0]));
        const int a_corner[2] = {tile * TILE_K, row0}, b_corner[2] = {col0, tile * TILE_K}; /* column, row */
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, &s_a[stage], &a_map, a_corner,
                                  &landed[stage]);
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, &s_b[stage], &b_map, b_corner,
                                  &landed[stage]);
    };
    if (threadIdx.x == 0)
        for (int t = 0; t < STAGES - 1 && t < tiles; ++t) copy_tiles(t, t);
    float acc[rows][THREAD_TILE] = {};
    for (int t = 0; t < tiles; ++t) {
        wait_for_tile(landed, t);
        __syncthreads(); /* and everyone is done with tile t - 1, whose stage the next copies fill */
        const int next = t + STAGES - 1;
        if (threadIdx.x == 0 && next < tiles) copy_tiles(next % STAGES, next);
        multiply_tiles_as_loaded<rows>(s_a[t % STAGES], &s_b[t % STAGES][0][0], tx, ty, acc);
    }
    store_thread_tile<rows, true>(C, M, N, row0, col0, acc);
#endif
}

// cluster: two blocks side by side along the columns of C, launched together as a thread block
// cluster (sm_90: cudaLaunchKernelEx with a cluster dimension), need the same tile of A. Each asks the TMA for half of it, multicast: one read of
// L2 lands in both blocks' shared memory (at the same offset) and counts on both blocks' mbarriers,
// so A crosses L2 once per cluster. Each block's mbarrier expects its whole tile of A and its own
// tile of B. A block's copies now write into the other block's shared memory, so a stage may be
// refilled only when both blocks are done with it: a cluster barrier, arrived at after the math of
// tile t and waited on before the copies into its stage, where a block barrier was enough before.
// Its plain arrive would release at the cluster's scope, a fence of the whole GPU per warp per tile;
// a fence at the block's scope and a relaxed arrive order the reads as CUTLASS's multicast pipelines do.
template <int rows>
__global__ void __launch_bounds__(TILE_THREADS, rows == THREAD_TILE ? 2 : 1)
    matmul_cluster(const __grid_constant__ CUtensorMap a_half_map, const __grid_constant__ CUtensorMap b_map,
                   float *__restrict__ C, int M, int N, int K) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) /* the multicast is sm_90a's: built for 90a (CMake's choice on Hopper) */
    const int tile_m = 16 * rows;
    __shared__ __align__(128) float s_a[STAGES][tile_m][TILE_K];
    __shared__ __align__(128) float s_b[STAGES][TILE_K][TILE_N];
    __shared__ uint64_t landed[STAGES];
    cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    const int rank = (int)cluster.block_rank(); /* 0 or 1: which half of A's tile this block fetches */
    const int tx = thread_x(), ty = thread_y();
    const int row0 = blockIdx.y * tile_m, col0 = blockIdx.x * TILE_N, tiles = (K + TILE_K - 1) / TILE_K;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s)
            ptx::mbarrier_init(&landed[s], 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster); /* the other block's copies see them */
    }
    cluster.sync(); /* both blocks' mbarriers are ready before either block's copies signal them */
    auto copy_tiles = [&](int stage, int tile) { /* thread 0 alone */
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &landed[stage],
                                       sizeof(s_a[0]) + sizeof(s_b[0]));
        const int a_corner[2] = {tile * TILE_K, row0 + rank * tile_m / 2}, b_corner[2] = {col0, tile * TILE_K};
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, &s_a[stage][rank * tile_m / 2],
                                  &a_half_map, a_corner, &landed[stage], (uint16_t)0b11); /* to both blocks */
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, &s_b[stage], &b_map, b_corner,
                                  &landed[stage]);
    };
    if (threadIdx.x == 0)
        for (int t = 0; t < STAGES - 1 && t < tiles; ++t) copy_tiles(t, t);
    float acc[rows][THREAD_TILE] = {};
    for (int t = 0; t < tiles; ++t) {
        wait_for_tile(landed, t); /* both halves of A's tile, and B's */
        const int next = t + STAGES - 1;
        if (t > 0) cluster.barrier_wait(); /* both blocks are done with tile t - 1, whose stage next fills */
        if (threadIdx.x == 0 && next < tiles) copy_tiles(next % STAGES, next);
        multiply_tiles_as_loaded<rows>(s_a[t % STAGES], &s_b[t % STAGES][0][0], tx, ty, acc);
        ptx::fence(ptx::sem_acq_rel, ptx::scope_cta); /* its reads of tile t come first, at the block's scope */
        ptx::barrier_cluster_arrive(ptx::sem_relaxed); /* this thread is done with tile t: no fence of the GPU */
    }
    cluster.barrier_wait(); /* neither block leaves while the other's copies may still write into it */
    store_thread_tile<rows, true>(C, M, N, row0, col0, acc);
#endif
}

/* The tensor map of a rows x cols float matrix, row-major, whose box (one copy) is box_rows x box_cols:
 * the driver's cuTensorMapEncodeTiled, found through the runtime (the program does not link libcuda).
 * The row stride must be a multiple of 16 bytes: cols % 4 == 0. */
static CUtensorMap tile_map(const float *matrix, int rows, int cols, int box_rows, int box_cols) {
    static PFN_cuTensorMapEncodeTiled_v12000 encode = NULL;
    cudaDriverEntryPointQueryResult found;
    if (!encode)
        HANDLE_ERROR(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000,
                                                      cudaEnableDefault, &found));
    CUtensorMap map;
    const cuuint64_t size[2] = {(cuuint64_t)cols, (cuuint64_t)rows}; /* innermost first */
    const cuuint64_t row_stride[1] = {(cuuint64_t)cols * sizeof(float)};
    const cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows}, element_step[2] = {1, 1};
    const CUresult status = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)matrix, size, row_stride, box,
                                   element_step, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                   CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (status != CUDA_SUCCESS) {
        fprintf(stderr, "%s:%d: cuTensorMapEncodeTiled failed (CUresult %d)\n", __FILE__, __LINE__, (int)status);
        exit(EXIT_CUDA_ERROR);
    }
    return map;
}
#endif

// ---------------------------------------------------------------------------
// main: the book's program (the Guide's host code MatMul, with shared memory) in its
// straight line, then every step of the progression.

/* Defined below the divider: */
static void parse_options(int argc, char **argv, cli_options *o, int *k); /* exits on --help, bad input */
static void describe_and_check_size(int M, int N, int K);                  /* too large: exit 2 */
static void fill_matrix(float *m, long long n, unsigned int seed); /* small dyadic values of both signs */
/* How many elements of C differ from the CPU's sums (the rows it computes): bit for bit, or (within_bound)
 * by more than the error bound of two orders of addition. *checked: how many elements it compared. */
static long long check_against_cpu(const float *A, const float *B, const float *C, int M, int N, int K,
                                   int within_bound, long long *checked);
static int run_progression(const cli_options *o, int K, const struct cudaDeviceProp *device); /* every step */

// The Guide's host code MatMul, in its shape (with HANDLE_ERROR): A and B to the device, one
// thread per element of C in 16 x 16 blocks, C back.
void MatMul(const Matrix A, const Matrix B, Matrix C) {
    Matrix d_A;
    d_A.width = d_A.stride = A.width;
    d_A.height = A.height;
    size_t size = (size_t)A.width * A.height * sizeof(float);
    HANDLE_ERROR(cudaMalloc(&d_A.elements, size));
    HANDLE_ERROR(cudaMemcpy(d_A.elements, A.elements, size, cudaMemcpyHostToDevice));
    Matrix d_B;
    d_B.width = d_B.stride = B.width;
    d_B.height = B.height;
    size = (size_t)B.width * B.height * sizeof(float);
    HANDLE_ERROR(cudaMalloc(&d_B.elements, size));
    HANDLE_ERROR(cudaMemcpy(d_B.elements, B.elements, size, cudaMemcpyHostToDevice));
    Matrix d_C;
    d_C.width = d_C.stride = C.width;
    d_C.height = C.height;
    size = (size_t)C.width * C.height * sizeof(float);
    HANDLE_ERROR(cudaMalloc(&d_C.elements, size));
    gpu_poison(d_C.elements, size); /* ours: NaN, so an element the kernel does not write fails */
    /* ours: the grid rounds up, for any size */
    dim3 dimBlock(BLOCK_SIZE, BLOCK_SIZE);
    dim3 dimGrid((B.width + dimBlock.x - 1) / dimBlock.x, (A.height + dimBlock.y - 1) / dimBlock.y);
    MatMulKernel<<<dimGrid, dimBlock>>>(d_A, d_B, d_C);
    CHECK_LAUNCH();
    HANDLE_ERROR(cudaMemcpy(C.elements, d_C.elements, size, cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaFree(d_A.elements));
    HANDLE_ERROR(cudaFree(d_B.elements));
    HANDLE_ERROR(cudaFree(d_C.elements));
}

int main(int argc, char **argv) {
    cli_options o;
    int K;
    parse_options(argc, argv, &o, &K); /* default: 4096 x 4096 times 4096 x 4096 */
    struct cudaDeviceProp device;
    gpu_select_device("matmul", o.device, &device);
    const int M = (int)o.rows, N = (int)o.cols;
    describe_and_check_size(M, N, K);

    Matrix A = {K, M, K, NULL}, B = {N, K, N, NULL}, C = {N, M, N, NULL}; /* width, height, stride */
    A.elements = (float *)host_alloc("matmul", (size_t)M * K * sizeof(float), "A");
    B.elements = (float *)host_alloc("matmul", (size_t)K * N * sizeof(float), "B");
    C.elements = (float *)host_alloc("matmul", (size_t)M * N * sizeof(float), "C");
    fill_matrix(A.elements, (long long)M * K, 1);
    fill_matrix(B.elements, (long long)K * N, 2);
    MatMul(A, B, C);

    /* Our verdict: C against the CPU's sums in the kernel's own order, bit for bit. */
    long long checked;
    const long long book_wrong = check_against_cpu(A.elements, B.elements, C.elements, M, N, K, 0, &checked);
    printf("book (the Guide's MatMul, 16 x 16 shared tiles): %lld of %lld elements checked wrong: %s\n\n",
           book_wrong, checked, book_wrong ? "FAIL" : "PASS");
    free(A.elements);
    free(B.elements);
    free(C.elements);

    const int status = run_progression(&o, K, &device);
    return report_exit_code(book_wrong != 0, status); /* 77: --kernel cublas alone on the CPU runner */
}

// ===== Harness: below this line, not needed to follow the lesson =====

// ----- options -----
// clang-format off
enum kernel { KERNEL_NAIVE, KERNEL_SHARED, KERNEL_REGISTER_TILE, KERNEL_TRANSPOSED, KERNEL_PADDED, KERNEL_ASYNC,
              KERNEL_ASYNC_256X128, KERNEL_TMA, KERNEL_TMA_256X128, KERNEL_CLUSTER, KERNEL_CUBLAS, KERNEL_COUNT };
// clang-format on
static const char *const kernel_names[] = {"naive", "shared", "register_tile", "transposed", "padded", "async",
                                           "async_256x128", "tma", "tma_256x128", "cluster", "cublas", NULL};

static const cli_own_option matmul_options[] = {
    {"--k", "K", "the inner size: A is rows x K, B is K x cols (default: cols)"}, {NULL, NULL, NULL}};

static void parse_options(int argc, char **argv, cli_options *o, int *k) {
    cli_spec spec = {};
    spec.program = "matmul";
    spec.summary = "tiled matrix multiply: shared memory for reuse (the Programming Guide; Fan, ch. 8)";
    spec.accepts = CLI_ROWS_COLS | CLI_KERNEL | CLI_REPS | CLI_CHECK | CLI_DEVICE | CLI_BANK_MODEL;
    spec.kernels = kernel_names;
    spec.own_options = matmul_options;
    spec.default_rows = spec.default_cols = 4096;
    spec.cpu_default_n = 200; /* the CPU runner: 200 x 200 (4096^3 multiply-adds would take it hours) */
    spec.extra_help =
        "C = A B in float, row-major: A rows x K, B K x cols; any sizes >= 1. Each kernel but cuBLAS sums in the\n"
        "order k = 0, 1, ... with FMAs: every element of C is compared bit for bit with naive's, and rows with\n"
        "the CPU's (all up to 2^28 multiply-adds, else 48); cuBLAS within 2 gamma_K sum|a||b| (u = 2^-24: TF32\n"
        "fails it). '%ceil': of the FP32 peak; GB/s: the bytes the blocks load from global memory, and C.";
    cli_parse_or_exit(&spec, argc, argv, o);
    if (o->bank_model) /* before any CUDA call: works without a GPU or a driver */
        bank_model_observe(spec.program, argc, argv, NULL, NULL, NULL);
    long long value = o->cols;
    if (o->own_values[0] && (cli_parse_count(o->own_values[0], &value) != 0 || value < 1))
        cli_exit_bad("matmul", "--k wants a whole number >= 1, not '%s'", o->own_values[0]);
    if (o->rows > 2147483647LL || o->cols > 2147483647LL || value > 2147483647LL)
        cli_exit_bad("matmul", "each of rows, cols and K must be below 2^31 (the kernels' int sizes)");
    *k = (int)value;
}

static long long tiles(long long elements, int tile) { return (elements + tile - 1) / tile; }

static void describe_and_check_size(int M, int N, int K) {
    const double bytes = ((double)M * K + (double)K * N + (double)M * N) * sizeof(float);
    printf("matmul: C (%d x %d) = A (%d x %d) B (%d x %d), float, row-major: %.3g multiply-adds, %.1f MB\n", M, N, M,
           K, K, N, (double)M * N * K, bytes / 1e6);
    printf("tiles: the Guide's 16 x 16 (16 x 16 threads); the further steps 128 x 128 x %d (%d threads, 8 x 8 "
           "each; async_256x128: 256 x 128, 16 x 8 each), async %d stages\n",
           TILE_K, TILE_THREADS, STAGES);
    gpu_require_memory("matmul", 2 * bytes + 64.0 * (1 << 20), "A, B, C, the check's copy of C (and cuBLAS)");
    if (tiles(M, BLOCK_SIZE) > 65535) /* gridDim.y's limit, in the Guide's 16-row blocks */
        cli_exit_bad("matmul", "%d rows are more than 65535 blocks of 16 rows (the grid's y limit)", M);
}

// ----- the run -----
/* The bytes a kernel's blocks load from global memory (or L2), C stored once added (cuBLAS's: not counted, 0). */
static double bytes_loaded(int kernel, long long M, long long N, long long K) {
    if (kernel == KERNEL_CUBLAS) return 0;
    const int guide = kernel == KERNEL_SHARED ? BLOCK_SIZE : 1; /* naive: a "tile" of one element */
    const int tall = kernel == KERNEL_ASYNC_256X128 || kernel == KERNEL_TMA_256X128;
    const int tm = kernel <= KERNEL_SHARED ? guide : tall ? 2 * TILE_M : TILE_M;
    const int tn = kernel <= KERNEL_SHARED ? guide : TILE_N, tk = kernel <= KERNEL_SHARED ? guide : TILE_K;
    const double a_rows = kernel == KERNEL_CLUSTER ? tm / 2.0 : tm; /* the cluster: half of A's tile per block */
    return 4.0 * tiles(M, tm) * tiles(N, tn) * tiles(K, tk) * (a_rows + tn) * tk + 4.0 * M * N;
}

/* FP32 lanes per SM by compute capability (NVIDIA's tuning guides); 0: not in this table. */
static int fp32_lanes_per_sm(int major, int minor) {
    if (major == 6 || major == 7 || (major == 8 && minor == 0)) return major == 6 && minor != 0 ? 128 : 64;
    return major >= 5 ? 128 : 0;
}

static void launch(int kernel, const float *A, const float *B, float *C, int M, int N, int K, cublasHandle_t cublas);

#ifndef CUDA_CPU_RUNNER
/* Does the code loaded for this GPU hold sm_90a's multicast (a build for 90a), or the cluster kernel's empty body? */
__global__ void multicast_built(int *built) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    *built = 1;
#else
    *built = 0;
#endif
}
#endif

/* Why kernel k cannot run here, or NULL. */
static const char *why_not_here(int kernel, const struct cudaDeviceProp *device, int N, int K) {
    if (kernel < KERNEL_TMA || kernel == KERNEL_CUBLAS) return NULL;
#ifdef CUDA_CPU_RUNNER
    (void)device, (void)N, (void)K;
    return CUDA_CPU_NEEDS_SM90;
#else
    if (device->major < 9) return "needs compute capability 9.0 or newer (the TMA, thread block clusters)";
    if (device->major >= 12) return "not built for compute capability 12 (nvcc makes each tile copy a call there)";
    if (N % 4 || K % 4) return "needs K and cols multiples of 4 (a tensor map's row stride is a multiple of 16 bytes)";
    if (kernel != KERNEL_CLUSTER) return NULL;
    int built, *d_built; /* asked once: the cluster is the one kernel that needs it */
    HANDLE_ERROR(cudaMalloc((void **)&d_built, sizeof built));
    multicast_built<<<1, 1>>>(d_built);
    CHECK_LAUNCH();
    HANDLE_ERROR(cudaMemcpy(&built, d_built, sizeof built, cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaFree(d_built));
    return built ? NULL : "needs a build for sm_90a, the TMA's multicast (-DCMAKE_CUDA_ARCHITECTURES=90a)";
#endif
}

static int run_progression(const cli_options *o, int K, const struct cudaDeviceProp *device) {
    const int M = (int)o->rows, N = (int)o->cols;
    const size_t a_bytes = (size_t)M * K * sizeof(float), b_bytes = (size_t)K * N * sizeof(float),
                 c_bytes = (size_t)M * N * sizeof(float);
    const double flops = 2.0 * M * N * K;
    char size_label[96];
    snprintf(size_label, sizeof size_label, "%dx%dx%d", M, N, K);
    float *h_a = (float *)host_alloc("matmul", a_bytes, "A");
    float *h_b = (float *)host_alloc("matmul", b_bytes, "B");
    float *h_c = (float *)host_alloc("matmul", c_bytes, "the copy of a GPU result");
    float *h_naive = (float *)host_alloc("matmul", c_bytes, "the Guide's first kernel's C, the reference");
    fill_matrix(h_a, (long long)M * K, 1);
    fill_matrix(h_b, (long long)K * N, 2);
    float *d_a, *d_b, *d_c;
    HANDLE_ERROR(cudaMalloc((void **)&d_a, a_bytes));
    HANDLE_ERROR(cudaMalloc((void **)&d_b, b_bytes));
    HANDLE_ERROR(cudaMalloc((void **)&d_c, c_bytes));
    HANDLE_ERROR(cudaMemcpy(d_a, h_a, a_bytes, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMemcpy(d_b, h_b, b_bytes, cudaMemcpyHostToDevice));
    cublasHandle_t cublas;
    HANDLE_CUBLAS(cublasCreate(&cublas));
    int clock_khz = 0; /* not in cudaDeviceProp since CUDA 13 */
    HANDLE_ERROR(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, o->device));
    const double peak_gflops =
        1e-6 * device->multiProcessorCount * fp32_lanes_per_sm(device->major, device->minor) * 2.0 * clock_khz;

    /* The reference for every element: the Guide's first kernel, itself checked against the CPU. */
    gpu_poison(d_c, c_bytes);
    launch(KERNEL_NAIVE, d_a, d_b, d_c, M, N, K, cublas);
    HANDLE_ERROR(cudaMemcpy(h_naive, d_c, c_bytes, cudaMemcpyDeviceToHost));
    long long cpu_checked;
    const long long naive_wrong = check_against_cpu(h_a, h_b, h_naive, M, N, K, 0, &cpu_checked);

    /* Kernel k's C: ours bit for bit against naive's everywhere, and the CPU's rows; cuBLAS within its bound. */
    auto check_output = [&](int k, result_row *row, const char *which) {
        HANDLE_ERROR(cudaMemcpy(h_c, d_c, c_bytes, cudaMemcpyDeviceToHost));
        long long wrong = 0, first = -1, checked;
        if (k == KERNEL_CUBLAS) {
            wrong = check_against_cpu(h_a, h_b, h_c, M, N, K, 1, &checked);
        } else {
            for (long long i = 0; i < (long long)M * N; ++i)
                if (!(h_c[i] == h_naive[i]) && wrong++ == 0) first = i;
            if (k == KERNEL_NAIVE) wrong = naive_wrong;
        }
        if (wrong) {
            row_note(row, "%lld wrong%s", wrong, which);
            if (first >= 0)
                row_note_first_wrong(row, h_c[first], h_naive[first], "C[%lld][%lld]", first / N, first % N);
        }
        return wrong;
    };
    /* Kernel k's row: every element of C right in its first and its last timed launch; its ms (0: --check). */
    auto measure = [&](int k, result_row *row) {
        *row = result_row_for(kernel_names[k], "float", (long long)M * N);
        row->size = size_label;
        row_note(row, "value: elements right");
        row->bytes = bytes_loaded(k, M, N, K);
        row->flops = flops;
        if (row->bytes > 0) row_note(row, "%.3g B/FLOP", (row->bytes - c_bytes) / flops);
        return exact_row(
            row, d_c, c_bytes, o->check_only ? 0 : o->reps, [] {},
            [&] { launch(k, d_a, d_b, d_c, M, N, K, cublas); },
            [&](result_row *checked, const char *which) { return check_output(k, checked, which); });
    };

    double cublas_ms = 0;
    result_row reference = result_row_for("cublas", NULL, 0); /* cuBLAS, timed first: the cublas row */
    const int cublas_runs = !ON_CPU_RUNNER; /* the reference, timed once: not on the CPU runner */
    if (!o->check_only && cublas_runs) {
        char description[96];
        snprintf(description, sizeof description, "%d SMs x %d FP32 lanes x 2 FLOPs x %.2f GHz",
                 device->multiProcessorCount, fp32_lanes_per_sm(device->major, device->minor), clock_khz / 1e6);
        report_peak(stdout, "matmul", "fp32_peak", description, peak_gflops);
        cublas_ms = measure(KERNEL_CUBLAS, &reference);
        printf("library reference (cublasSgemm, FP32): %.1f GFLOP/s; each row's note is its speed as a multiple of "
               "it\n\n",
               flops / (cublas_ms * 1e6));
    }
    report rep;
    report_begin(&rep, "matmul", stdout);
    for (int k = 0; k < KERNEL_COUNT; ++k) {
        if (!cli_kernel_selected(o, k)) continue;
        if (k == KERNEL_CUBLAS && report_cpu_skip(&rep, "cublas", "the library's kernels, not the lesson's")) continue;
        const char *why = why_not_here(k, device, N, K);
        if (why && report_skip(&rep, kernel_names[k], why)) continue;
        result_row row = reference;
        const double ms = k == KERNEL_CUBLAS && !o->check_only ? cublas_ms : measure(k, &row);
        if (!o->check_only) {
            row_time_flops(&row, ms, "fp32_peak", peak_gflops);
            row_note(&row, "%.0f GFLOP/s", row.gflops);
            if (cublas_runs) row_note(&row, "%.2fx cuBLAS", cublas_ms / ms);
        }
        report_add(&rep, &row);
    }
    const int status = report_end(&rep);
    cublasDestroy(cublas);
    for (float *d : {d_a, d_b, d_c})
        HANDLE_ERROR(cudaFree(d));
    for (float *h : {h_a, h_b, h_c, h_naive})
        free(h);
    const int reference_wrong = !o->check_only && cublas_runs && !reference.pass; /* asked for or not */
    return status == EXIT_NO_DEVICE ? status : status || reference_wrong ? EXIT_WRONG_RESULT : EXIT_ALL_PASSED;
}

// ----- the launch switch -----
static void launch(int kernel, const float *A, const float *B, float *C, int M, int N, int K, cublasHandle_t cublas) {
    const Matrix a = {K, M, K, (float *)A}, b = {N, K, N, (float *)B}, c = {N, M, N, C};
    const float one = 1, zero = 0; /* cuBLAS's alpha and beta: C = 1 A B + 0 C */
    const dim3 guide_block(BLOCK_SIZE, BLOCK_SIZE);
    const dim3 guide_grid((unsigned int)tiles(N, BLOCK_SIZE), (unsigned int)tiles(M, BLOCK_SIZE));
    const dim3 tile_grid((unsigned int)tiles(N, TILE_N), (unsigned int)tiles(M, TILE_M));
    const dim3 tall_grid((unsigned int)tiles(N, TILE_N), (unsigned int)tiles(M, 2 * TILE_M));
    switch (kernel) {
    case KERNEL_NAIVE: MatMulKernelNoShared<<<guide_grid, guide_block>>>(a, b, c); break;
    case KERNEL_SHARED: MatMulKernel<<<guide_grid, guide_block>>>(a, b, c); break;
    case KERNEL_REGISTER_TILE: matmul_register_tile<<<tile_grid, TILE_THREADS>>>(A, B, C, M, N, K); break;
    case KERNEL_TRANSPOSED: matmul_transposed<TILE_M><<<tile_grid, TILE_THREADS>>>(A, B, C, M, N, K); break;
    case KERNEL_PADDED: matmul_transposed<TILE_M + A_PADDING><<<tile_grid, TILE_THREADS>>>(A, B, C, M, N, K); break;
    case KERNEL_ASYNC: matmul_async<THREAD_TILE><<<tile_grid, TILE_THREADS>>>(A, B, C, M, N, K); break;
    case KERNEL_ASYNC_256X128: matmul_async<2 * THREAD_TILE><<<tall_grid, TILE_THREADS>>>(A, B, C, M, N, K); break;
#ifndef CUDA_CPU_RUNNER
    case KERNEL_TMA:
        matmul_tma<THREAD_TILE><<<tile_grid, TILE_THREADS>>>(tile_map(A, M, K, TILE_M, TILE_K),
                                                             tile_map(B, K, N, TILE_K, TILE_N), C, M, N, K);
        break;
    case KERNEL_TMA_256X128:
        matmul_tma<2 * THREAD_TILE><<<tall_grid, TILE_THREADS>>>(tile_map(A, M, K, 2 * TILE_M, TILE_K),
                                                                 tile_map(B, K, N, TILE_K, TILE_N), C, M, N, K);
        break;
    case KERNEL_CLUSTER: { /* clusters of 2 blocks along x; the grid's x even: a block past the edge writes nothing */
        cudaLaunchConfig_t config = {};
        config.gridDim = dim3(2 * (unsigned int)tiles(N, 2 * TILE_N), (unsigned int)tiles(M, TILE_M));
        config.blockDim = dim3(TILE_THREADS);
        cudaLaunchAttribute pairs;
        pairs.id = cudaLaunchAttributeClusterDimension;
        pairs.val.clusterDim.x = 2, pairs.val.clusterDim.y = 1, pairs.val.clusterDim.z = 1;
        config.attrs = &pairs, config.numAttrs = 1;
        HANDLE_ERROR(cudaLaunchKernelEx(&config, matmul_cluster<THREAD_TILE>, tile_map(A, M, K, TILE_M / 2, TILE_K),
                                        tile_map(B, K, N, TILE_K, TILE_N), C, M, N, K));
        break;
    }
#endif
    case KERNEL_CUBLAS: /* column-major: our row-major C = A B is its C^T = B^T A^T, B^T (N x K, leading dimension N)
                         * first. The default math mode: FP32, no TF32 tensor cores. */
        HANDLE_CUBLAS(cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N));
        break;
    }
    CHECK_LAUNCH();
}

// ----- CPU replays -----
/* Element i: a hash of (seed, i) as a multiple of 1/1024 in [-1, 1): products and sums round, so the order
 * of the additions shows in the bits, and a misplaced element in the value. */
static void fill_matrix(float *m, long long n, unsigned int seed) {
    for (long long i = 0; i < n; ++i) {
        unsigned long long h = (unsigned long long)i * 0x9E3779B97F4A7C15ULL + seed * 0xD1B54A32D192ED03ULL;
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 32;
        m[i] = (float)((long long)(h % 2048) - 1024) / 1024.0f;
    }
}

/* Row r's sums in the kernels' order (fmaf: the GPU's fused multiply-add), and sum |a||b| per element. */
static void cpu_row(const float *A, const float *B, int N, int K, long long r, float *sums, double *magnitudes) {
    for (int j = 0; j < N; ++j)
        sums[j] = 0.0f, magnitudes[j] = 0.0;
    for (int k = 0; k < K; ++k) {
        const float a = A[r * K + k];
        const float *b = &B[(long long)k * N];
        for (int j = 0; j < N; ++j) {
            sums[j] = fmaf(a, b[j], sums[j]);
            magnitudes[j] += fabs((double)a * b[j]);
        }
    }
}

// ----- checks -----
#define FULL_CHECK_FMAS (1LL << 28) /* up to this many multiply-adds the CPU computes every row */

static long long check_against_cpu(const float *A, const float *B, const float *C, int M, int N, int K,
                                   int within_bound, long long *checked) {
    float *sums = (float *)host_alloc("matmul", (size_t)N * sizeof(float), "the CPU's row");
    double *magnitudes = (double *)host_alloc("matmul", (size_t)N * sizeof(double), "the CPU's row bound");
    const double u = ldexp(1.0, -24), gamma = K * u / (1 - K * u); /* Higham's gamma_K, float's unit roundoff */
    long long wrong = 0;
    /* The rows the CPU computes: all, or 48 when that is too many: the 16 row positions of a 16 x 16 tile twice,
     * in tiles spread over the matrix, and the last 16 rows (the edge tile). */
    const int all = (long long)M * N * K <= FULL_CHECK_FMAS || M <= 48, rows = all ? M : 48;
    for (int index = 0; index < rows; ++index) {
        const long long r = all           ? index
                            : index >= 32 ? M - 48 + index
                                          : index % 16 + 16 * ((index * 7919LL) % (tiles(M, 16) - 1));
        cpu_row(A, B, N, K, r, sums, magnitudes);
        for (int j = 0; j < N; ++j) {
            const float c = C[r * N + j];
            if (within_bound ? !(fabs((double)c - sums[j]) <= 2 * gamma * magnitudes[j]) : !(c == sums[j])) ++wrong;
        }
    }
    *checked = (long long)rows * N;
    free(sums);
    free(magnitudes);
    return wrong;
}
