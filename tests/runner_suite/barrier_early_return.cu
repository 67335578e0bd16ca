// barrier_early_return: `if (i >= n) return;` before a __syncthreads(): in the last block the
// threads past n exit before the barrier (n = 100, blocks of 64). Undefined; synccheck reports it.
// expect: exit=1 finding="barrier not reached by every thread of the block" line=15
#include <stdio.h>

#define B 64
#define N 100

__global__ void swap_pairs(const float *in, float *out, int n) {
    __shared__ float s[B];
    int t = threadIdx.x;
    int i = blockIdx.x * B + t;
    if (i >= n) return;
    s[t] = in[i];
    __syncthreads(); // <- finding
    out[i] = s[t ^ 1];
}

int main() {
    float h_in[N], h_out[N];
    for (int i = 0; i < N; ++i) h_in[i] = 0.25f * i;
    float *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    swap_pairs<<<(N + B - 1) / B, B>>>(d_in, d_out, N);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < N; ++i) wrong += h_out[i] != h_in[i ^ 1];
    printf("out[99] %g, wrong %d of %d\n", h_out[N - 1], wrong, N);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
