// global_stencil_no_halo: a 3-point stencil straight from global memory with no case for the
// ends: thread 0 reads in[-1] and the last thread in[n], one element before and after the array.
// expect: exit=1 finding="global memory access out of bounds" line=10
#include <stdio.h>

#define N 256

__global__ void blur(const int *in, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i - 1] + in[i] + in[i + 1]; // <- finding
}

int main() {
    int h_in[N], h_out[N];
    for (int i = 0; i < N; ++i) h_in[i] = i % 5;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    blur<<<N / 128, 128>>>(d_in, d_out);
    cudaError_t error = cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 1; i < N - 1; ++i) wrong += h_out[i] != h_in[i - 1] + h_in[i] + h_in[i + 1];
    printf("%s: out[1] %d, wrong inside %d\n", cudaGetErrorString(error), h_out[1], wrong);
    cudaFree(d_in);
    cudaFree(d_out);
    return error == cudaSuccess && !wrong ? 0 : 1;
}
