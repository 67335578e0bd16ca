// global_index_past_end: n = 1000 elements, 4 blocks of 256 threads, and no `if (i < n)`: the last
// 24 threads read and write past the end of both allocations (memcheck: invalid __global__ reads
// and writes; without it a GPU seldom notices).
// expect: exit=1 finding="global memory access out of bounds" line=12
#include <stdio.h>

#define N 1000
#define THREADS 256

__global__ void scale(const float *in, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] * 2.0f; // <- finding
}

int main() {
    static float h_in[N], h_out[N];
    for (int i = 0; i < N; ++i) h_in[i] = (float)i;
    float *d_in, *d_out;
    cudaMalloc(&d_in, N * sizeof(float));
    cudaMalloc(&d_out, N * sizeof(float));
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    scale<<<(N + THREADS - 1) / THREADS, THREADS>>>(d_in, d_out);
    cudaError_t error = cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < N; ++i) wrong += h_out[i] != 2.0f * i;
    printf("%s: out[999] %g, wrong %d\n", cudaGetErrorString(error), h_out[N - 1], wrong);
    cudaFree(d_in);
    cudaFree(d_out);
    return error == cudaSuccess && !wrong ? 0 : 1;
}
