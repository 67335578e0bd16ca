// host_pointer_in_kernel: the host array h_x is passed to the kernel instead of its cudaMalloc'd copy
// d_x. A GPU cannot reach malloc's memory: an illegal address (memcheck: invalid __global__ read).
// expect: exit=3 finding="invalid memory access" line=8
#include <stdio.h>
#include <stdlib.h>

__global__ void scale(float *x, int n) {
    if (blockIdx.x * blockDim.x + threadIdx.x < n) x[blockIdx.x * blockDim.x + threadIdx.x] *= 2.0f; // <- finding
}

int main() {
    const int n = 256;
    float *h_x = (float *)malloc(n * sizeof(float)), *d_x;
    for (int i = 0; i < n; ++i) h_x[i] = (float)i;
    cudaMalloc(&d_x, n * sizeof(float));
    cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice);
    scale<<<2, 128>>>(h_x, n); /* should be d_x */
    cudaError_t error = cudaMemcpy(h_x, d_x, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%s: x[255] %g\n", cudaGetErrorString(error), h_x[n - 1]);
    cudaFree(d_x);
    free(h_x);
    return error == cudaSuccess && h_x[n - 1] == 510.0f ? 0 : 1;
}
