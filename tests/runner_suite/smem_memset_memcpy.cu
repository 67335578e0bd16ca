// smem_memset_memcpy: thread 0 clears one shared array with memset and fills another with memcpy
// from global memory; after a barrier every thread reads both, and thread 0 copies a shared
// array back out with memcpy. Correct.
// expect: clean
#include <stdio.h>
#include <string.h>

#define N 64

__global__ void combine(const int *in, int *out, int *copy) {
    __shared__ int s_zero[N];
    __shared__ int s_in[N];
    __shared__ int s_sum[N];
    int t = threadIdx.x;
    if (t == 0) {
        memset(s_zero, 0, sizeof s_zero);
        memcpy(s_in, in, sizeof s_in);
    }
    __syncthreads();
    s_sum[t] = s_zero[t] + s_in[N - 1 - t] + 1;
    __syncthreads();
    out[t] = s_sum[t];
    if (t == 0) memcpy(copy, s_sum, sizeof s_sum);
}

int main() {
    int h_in[N], h_out[N], h_copy[N];
    for (int i = 0; i < N; ++i) h_in[i] = 100 + i;
    int *d_in, *d_out, *d_copy;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMalloc(&d_copy, sizeof h_copy);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    combine<<<1, N>>>(d_in, d_out, d_copy);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_copy, d_copy, sizeof h_copy, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int t = 0; t < N; ++t) wrong += h_out[t] != 100 + (N - 1 - t) + 1 || h_copy[t] != h_out[t];
    printf("out[0] %d copy[0] %d, wrong %d of %d\n", h_out[0], h_copy[0], wrong, N);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_copy);
    return wrong ? 1 : 0;
}
