// wild_pointer: thread 1 stores through a pointer 256 GiB past its allocation (an index computed
// wrongly): no memory there. A GPU stops the kernel (cudaErrorIllegalAddress); the runner ends the
// program with the line.
// expect: exit=3 finding="invalid memory access" line=10
#include <stdio.h>

__global__ void scatter(int *out) {
    unsigned long long stride = 1ull << 36; /* meant: 1 */
    int *target = out + stride * threadIdx.x;
    *target = (int)threadIdx.x; // <- finding
}

int main() {
    int *d_out, h_out[2] = {0, 0};
    cudaMalloc(&d_out, sizeof h_out);
    scatter<<<1, 2>>>(d_out);
    cudaError_t error = cudaDeviceSynchronize();
    printf("kernel: %s\n", cudaGetErrorString(error));
    if (error != cudaSuccess) return 1;
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    printf("out %d %d\n", h_out[0], h_out[1]);
    cudaFree(d_out);
    return 0;
}
