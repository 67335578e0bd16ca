// smem_negative_index: a backward difference s[t] - s[t - 1] with no case for t == 0: thread 0
// reads the element before a __shared__ array.
// expect: exit=1 finding="shared memory access out of bounds" line=13
#include <stdio.h>

#define N 128

__global__ void difference(const int *in, int *out) {
    __shared__ int s[N];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[t] - s[t - 1]; // <- finding
}

int main() {
    int h_in[N], h_out[N];
    for (int i = 0; i < N; ++i) h_in[i] = i * i;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    difference<<<1, N>>>(d_in, d_out);
    cudaError_t error = cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 1; i < N; ++i) wrong += h_out[i] != 2 * i - 1;
    printf("%s: out[1] %d out[127] %d, wrong %d\n", cudaGetErrorString(error), h_out[1], h_out[N - 1], wrong);
    cudaFree(d_in);
    cudaFree(d_out);
    return error == cudaSuccess && !wrong ? 0 : 1;
}
