// trap_undefined: the trap a compiler puts where code is undefined (gcc's ud2, for a division by a
// zero it can see, THREADS / 32 with 16 threads), written here as __builtin_trap() so that its line
// is the compiler's choice no more. A GPU stops the kernel; the runner reports the trap with its line.
// expect: exit=3 finding="illegal instruction" line=11
#include <stdio.h>

#define THREADS 16

__global__ void per_warp(const int *in, int *out) {
    const int warps = THREADS / 32; /* meant: (THREADS + 31) / 32 */
    if (warps == 0) __builtin_trap(); // <- finding: what gcc makes of in[t] / warps
    out[threadIdx.x] = in[threadIdx.x];
}

int main() {
    int host[THREADS] = {0}, *d_in, *d_out;
    cudaMalloc(&d_in, sizeof host);
    cudaMalloc(&d_out, sizeof host);
    cudaMemcpy(d_in, host, sizeof host, cudaMemcpyHostToDevice);
    per_warp<<<1, THREADS>>>(d_in, d_out);
    cudaError_t error = cudaDeviceSynchronize();
    printf("kernel: %s\n", cudaGetErrorString(error));
    return error == cudaSuccess ? 0 : 1;
}
