// barrier_divergent_if: a __syncthreads() inside `if (t < 48)` in a block of 64: warp 1 splits,
// its lanes 48..63 skip the barrier and exit. Works on today's GPUs (exited threads release the
// barrier) but is undefined; synccheck reports it.
// expect: exit=1 finding="barrier not reached by every thread of the block" line=15
#include <stdio.h>

#define THREADS 64
#define ACTIVE 48

__global__ void reverse_first(const int *in, int *out) {
    __shared__ int s[ACTIVE];
    int t = threadIdx.x;
    if (t < ACTIVE) {
        s[t] = in[t];
        __syncthreads(); // <- finding
        out[t] = s[ACTIVE - 1 - t];
    }
}

int main() {
    int h_in[ACTIVE], h_out[ACTIVE];
    for (int i = 0; i < ACTIVE; ++i) h_in[i] = i * 5;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    reverse_first<<<1, THREADS>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int t = 0; t < ACTIVE; ++t) wrong += h_out[t] != h_in[ACTIVE - 1 - t];
    printf("out[0] %d, wrong %d of %d\n", h_out[0], wrong, ACTIVE);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
