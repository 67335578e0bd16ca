// syncthreads_count_and_or: a block of 100 threads (the last warp partial) votes with
// __syncthreads_count, __syncthreads_and and __syncthreads_or. Correct.
// expect: clean
#include <stdio.h>

#define THREADS 100

__global__ void votes(const int *in, int *out) {
    int v = in[threadIdx.x];
    int count = __syncthreads_count(v > 50);
    int all_positive = __syncthreads_and(v >= 0);
    int all_small = __syncthreads_and(v < 90);
    int any_77 = __syncthreads_or(v == 77);
    int any_negative = __syncthreads_or(v < 0);
    if (threadIdx.x == THREADS - 1) {
        out[0] = count;
        out[1] = all_positive != 0;
        out[2] = all_small != 0;
        out[3] = any_77 != 0;
        out[4] = any_negative != 0;
    }
}

int main() {
    int h_in[THREADS], h_out[5];
    for (int i = 0; i < THREADS; ++i) h_in[i] = i;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    votes<<<1, THREADS>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    printf("count %d and(>=0) %d and(<90) %d or(==77) %d or(<0) %d\n", h_out[0], h_out[1], h_out[2], h_out[3],
           h_out[4]);
    cudaFree(d_in);
    cudaFree(d_out);
    return h_out[0] == 49 && h_out[1] == 1 && h_out[2] == 0 && h_out[3] == 1 && h_out[4] == 0 ? 0 : 1;
}
