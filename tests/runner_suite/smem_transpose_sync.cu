// smem_transpose_sync: a 64x32 matrix (not square) transposed through a padded 16x16 shared tile,
// __syncthreads() between the tile's stores and its transposed loads. Correct.
// expect: clean
#include <stdio.h>

#define TILE 16
#define COLS 64
#define ROWS 32

__global__ void transpose(const int *in, int *out) {
    __shared__ int tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x; /* column in `in` */
    int y = blockIdx.y * TILE + threadIdx.y; /* row in `in` */
    tile[threadIdx.y][threadIdx.x] = in[y * COLS + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x; /* column in `out` (ROWS wide) */
    y = blockIdx.x * TILE + threadIdx.y; /* row in `out` */
    out[y * ROWS + x] = tile[threadIdx.x][threadIdx.y];
}

int main() {
    static int h_in[ROWS * COLS], h_out[ROWS * COLS];
    for (int i = 0; i < ROWS * COLS; ++i) h_in[i] = i * 7 - 300;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    transpose<<<dim3(COLS / TILE, ROWS / TILE), dim3(TILE, TILE)>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int r = 0; r < COLS; ++r)
        for (int c = 0; c < ROWS; ++c) wrong += h_out[r * ROWS + c] != h_in[c * COLS + r];
    printf("wrong elements %d of %d\n", wrong, ROWS * COLS);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
