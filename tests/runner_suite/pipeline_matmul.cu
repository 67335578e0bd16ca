// pipeline_matmul: C = A B (37 x 45 times 45 x 29: no size a multiple of the tile) with the Programming
// Guide's 16 x 16 tiles, loaded by asynchronous copies in two stages: each thread copies one float of the
// A tile and one of the B tile (4 bytes; past an edge, zfill 4 writes the zero), tile k + 1 in flight while
// tile k is multiplied. Exact: small integers in float.
// expect: clean
#include <cuda_pipeline.h>
#include <stdio.h>

#define T 16
#define M 37
#define N 29
#define K 45

__device__ void load_tiles(float (*as)[T], float (*bs)[T], const float *a, const float *b, int row0, int col0,
                           int k0) {
    const int r = threadIdx.y, c = threadIdx.x;
    const bool in_a = row0 + r < M && k0 + c < K, in_b = k0 + r < K && col0 + c < N;
    __pipeline_memcpy_async(&as[r][c], in_a ? &a[(row0 + r) * K + k0 + c] : a, 4, in_a ? 0 : 4);
    __pipeline_memcpy_async(&bs[r][c], in_b ? &b[(k0 + r) * N + col0 + c] : b, 4, in_b ? 0 : 4);
}

__global__ void matmul(const float *a, const float *b, float *c) {
    __shared__ float as[2][T][T], bs[2][T][T];
    const int row0 = blockIdx.y * T, col0 = blockIdx.x * T, tiles = (K + T - 1) / T;
    float sum = 0.0f;
    load_tiles(as[0], bs[0], a, b, row0, col0, 0);
    __pipeline_commit();
    for (int t = 0; t < tiles; ++t) {
        if (t + 1 < tiles) load_tiles(as[(t + 1) % 2], bs[(t + 1) % 2], a, b, row0, col0, (t + 1) * T);
        __pipeline_commit();
        __pipeline_wait_prior(1); // this thread's copies of tile t have landed
        __syncthreads();          // and every thread's
        for (int k = 0; k < T; ++k) sum += as[t % 2][threadIdx.y][k] * bs[t % 2][k][threadIdx.x];
        __syncthreads();          // tile t read by all before tile t + 2's copies overwrite it
    }
    const int row = row0 + threadIdx.y, col = col0 + threadIdx.x;
    if (row < M && col < N) c[row * N + col] = sum;
}

int main() {
    static float h_a[M * K], h_b[K * N], h_c[M * N];
    for (int i = 0; i < M * K; ++i) h_a[i] = (float)(i % 7 - 3);
    for (int i = 0; i < K * N; ++i) h_b[i] = (float)(i % 5 - 2);
    float *d_a, *d_b, *d_c;
    cudaMalloc(&d_a, sizeof h_a);
    cudaMalloc(&d_b, sizeof h_b);
    cudaMalloc(&d_c, sizeof h_c);
    cudaMemcpy(d_a, h_a, sizeof h_a, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h_b, sizeof h_b, cudaMemcpyHostToDevice);
    matmul<<<dim3((N + T - 1) / T, (M + T - 1) / T), dim3(T, T)>>>(d_a, d_b, d_c);
    cudaMemcpy(h_c, d_c, sizeof h_c, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float expected = 0.0f;
            for (int k = 0; k < K; ++k) expected += h_a[i * K + k] * h_b[k * N + j];
            wrong += h_c[i * N + j] != expected;
        }
    printf("c[0][0] %g, c[36][28] %g, wrong %d of %d\n", h_c[0], h_c[M * N - 1], wrong, M * N);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    return wrong ? 1 : 0;
}
