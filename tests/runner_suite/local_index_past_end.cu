// local_index_past_end: each thread keeps its 8 partial sums in a local array, and indexes it with a
// stride meant for a shared array of the whole block (8192 * threadIdx.x): thread 1 stores 32 KB past
// its array's end. A GPU stores into another thread's local memory or stops the kernel; the runner
// finds the store past the top of the thread's stack and names its line.
// expect: exit=3 finding="local memory access out of bounds" line=12
#include <stdio.h>

__global__ void partials(const int *in, int *out) {
    volatile int sums[8];
    for (int k = 0; k < 8; ++k) sums[k] = 0;
    const int slot = 8192 * threadIdx.x; /* meant: threadIdx.x % 8 */
    sums[slot] = in[threadIdx.x]; // <- finding
    out[threadIdx.x] = sums[0];
}

int main() {
    int host[2] = {5, 6}, *d_in, *d_out;
    cudaMalloc(&d_in, sizeof host);
    cudaMalloc(&d_out, sizeof host);
    cudaMemcpy(d_in, host, sizeof host, cudaMemcpyHostToDevice);
    partials<<<1, 2>>>(d_in, d_out);
    cudaError_t error = cudaDeviceSynchronize();
    printf("kernel: %s\n", cudaGetErrorString(error));
    return error == cudaSuccess ? 0 : 1;
}
