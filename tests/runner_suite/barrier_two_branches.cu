// barrier_two_branches: the first warp waits at the __syncthreads() of the `if`, the second warp
// at the one of the `else`. Whole warps, so it does not hang on a GPU, but the threads of one block
// wait at different barriers: undefined (synccheck).
// expect: exit=1 finding="divergent barrier" line=14
#include <stdio.h>

#define THREADS 64

__global__ void halves(int *out) {
    __shared__ int s[THREADS];
    int t = threadIdx.x;
    if (t < 32) {
        s[t] = t;
        __syncthreads(); // <- finding
    } else {
        __syncthreads();
        s[t] = 2 * t;
    }
    __syncthreads();
    out[t] = s[THREADS - 1 - t];
}

int main() {
    int h_out[THREADS];
    int *d_out;
    cudaMalloc(&d_out, sizeof h_out);
    halves<<<1, THREADS>>>(d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int t = 0; t < THREADS; ++t) {
        int u = THREADS - 1 - t;
        wrong += h_out[t] != (u < 32 ? u : 2 * u);
    }
    printf("out[0] %d out[63] %d, wrong %d\n", h_out[0], h_out[THREADS - 1], wrong);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
