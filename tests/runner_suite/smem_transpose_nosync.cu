// smem_transpose_nosync: a 32x32 matrix transposed through a 16x16 shared tile, with no
// __syncthreads() between filling the tile and reading it transposed: a thread reads the element
// another thread stores (racecheck: a hazard between the store and the load).
// expect: exit=1 finding="race on shared memory" line=17
#include <stdio.h>

#define TILE 16
#define W 32

__global__ void transpose(const float *in, float *out) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * W + x];
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    out[y * W + x] = tile[threadIdx.x][threadIdx.y]; // <- finding
}

int main() {
    static float h_in[W * W], h_out[W * W];
    for (int i = 0; i < W * W; ++i) h_in[i] = (float)i;
    float *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    transpose<<<dim3(W / TILE, W / TILE), dim3(TILE, TILE)>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int r = 0; r < W; ++r)
        for (int c = 0; c < W; ++c) wrong += h_out[r * W + c] != h_in[c * W + r];
    printf("wrong elements %d of %d\n", wrong, W * W);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
