// smem_index_past_array: s[t + 64] on a __shared__ array of 64: every thread reads past the end
// (memcheck: invalid __shared__ reads at the line).
// expect: exit=1 finding="shared memory access out of bounds" line=13
#include <stdio.h>

#define N 64

__global__ void pair_sums(const int *in, int *out) {
    __shared__ int s[N];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[t] + s[t + N]; // <- finding
}

int main() {
    int h_in[N], h_out[N];
    for (int i = 0; i < N; ++i) h_in[i] = i;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    pair_sums<<<1, N>>>(d_in, d_out);
    cudaError_t error = cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    printf("%s: out[0] %d\n", cudaGetErrorString(error), h_out[0]);
    cudaFree(d_in);
    cudaFree(d_out);
    return error == cudaSuccess ? 0 : 1;
}
