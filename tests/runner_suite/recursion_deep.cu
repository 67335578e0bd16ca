// recursion_deep: a recursive __device__ function a million calls deep, each frame holding a small
// local array: it overflows any thread's stack (a GPU's 1 KB default, the runner's thread stacks).
// The runner must end it with one line and exit 3.
// expect: exit=3 finding="stack overflow"
#include <stdio.h>

#define DEPTH 1000000

__device__ int depth(int n, const int *in) {
    volatile int frame[16];
    for (int i = 0; i < 16; ++i) frame[i] = in[i] + n;
    if (n == 0) return frame[0];
    int below = depth(n - 1, in);
    return below + frame[n % 16] - n - in[n % 16] + 1;
}

__global__ void deep(const int *in, int *out) { out[threadIdx.x] = depth(DEPTH, in); }

int main() {
    int h_in[16], result = 0;
    for (int i = 0; i < 16; ++i) h_in[i] = i;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof(int));
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    deep<<<1, 1>>>(d_in, d_out);
    cudaError_t error = cudaMemcpy(&result, d_out, sizeof(int), cudaMemcpyDeviceToHost);
    printf("%s: depth %d (expected %d)\n", cudaGetErrorString(error), result, DEPTH);
    cudaFree(d_in);
    cudaFree(d_out);
    return error == cudaSuccess && result == DEPTH ? 0 : 1;
}
