// global_use_after_free: the kernel reads a buffer the host freed just before the launch
// (memcheck: invalid __global__ read; a GPU may still read the old bytes, or fault).
// expect: exit=1 finding="global memory access out of bounds" line=9
#include <stdio.h>

#define N 128

__global__ void copy(const int *in, int *out) {
    out[threadIdx.x] = in[threadIdx.x]; // <- finding
}

int main() {
    int h[N], *d_in, *d_out;
    for (int i = 0; i < N; ++i) h[i] = i;
    cudaMalloc(&d_in, sizeof h);
    cudaMalloc(&d_out, sizeof h);
    cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice);
    cudaFree(d_in); /* too early */
    copy<<<1, N>>>(d_in, d_out);
    cudaError_t error = cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost);
    printf("%s: h[5] %d\n", cudaGetErrorString(error), h[5]);
    cudaFree(d_out);
    return error == cudaSuccess && h[5] == 5 ? 0 : 1;
}
