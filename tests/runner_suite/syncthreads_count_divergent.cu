// syncthreads_count_divergent: __syncthreads_count inside `if (t < 40)` in a block of 64: threads
// 40..63 never reach it and exit (warp 1 splits). Undefined; synccheck reports it.
// expect: exit=1 finding="barrier not reached by every thread of the block" line=11
#include <stdio.h>

#define THREADS 64

__global__ void count_odd(const int *in, int *out) {
    int t = threadIdx.x;
    if (t < 40) {
        int odd = __syncthreads_count(in[t] % 2 != 0); // <- finding
        if (t == 0) *out = odd;
    }
}

int main() {
    int h_in[THREADS], result = -1;
    for (int i = 0; i < THREADS; ++i) h_in[i] = i;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof(int));
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    count_odd<<<1, THREADS>>>(d_in, d_out);
    cudaMemcpy(&result, d_out, sizeof(int), cudaMemcpyDeviceToHost);
    printf("odd among the first 40: %d (expected 20)\n", result);
    cudaFree(d_in);
    cudaFree(d_out);
    return result == 20 ? 0 : 1;
}
