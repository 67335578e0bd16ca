// global_misaligned: ints read through a byte pointer one byte past a 4-byte boundary: a
// misaligned 4-byte load stops the kernel on a GPU (cudaErrorMisalignedAddress; memcheck reports
// it with the line).
// expect: exit=1 finding="misaligned address" line=11
#include <stdio.h>

#define N 32

__global__ void read_words(const char *bytes, int *out) {
    const int *word = (const int *)(bytes + 1 + 4 * threadIdx.x);
    out[threadIdx.x] = *word; // <- finding
}

int main() {
    char h_bytes[4 * N + 4];
    int h_out[N];
    for (int i = 0; i < (int)sizeof h_bytes; ++i) h_bytes[i] = (char)i;
    char *d_bytes;
    int *d_out;
    cudaMalloc(&d_bytes, sizeof h_bytes);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_bytes, h_bytes, sizeof h_bytes, cudaMemcpyHostToDevice);
    read_words<<<1, N>>>(d_bytes, d_out);
    cudaError_t error = cudaDeviceSynchronize();
    printf("kernel: %s\n", cudaGetErrorString(error));
    if (error != cudaSuccess) return 1;
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    printf("out[0] %08x\n", h_out[0]);
    cudaFree(d_bytes);
    cudaFree(d_out);
    return 0;
}
