// global_block_race_sum: each block sums its values correctly in shared memory, then its thread 0
// adds the block's sum to the total with a plain `*total += partial`: eight blocks read-modify-
// write one global word at once and sums are lost. No GPU tool reports it (racecheck checks
// shared memory only).
// expect: exit=1 finding="race on global memory between blocks" line=20
#include <stdio.h>

#define BLOCKS 8
#define THREADS 128

__global__ void total_sum(const int *in, int *total) {
    __shared__ int s[THREADS];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * THREADS + t];
    __syncthreads();
    for (int offset = THREADS / 2; offset > 0; offset /= 2) {
        if (t < offset) s[t] += s[t + offset];
        __syncthreads();
    }
    if (t == 0) *total += s[0]; // <- finding
}

int main() {
    static int h_in[BLOCKS * THREADS];
    int expected = 0, result = 0;
    for (int i = 0; i < BLOCKS * THREADS; ++i) {
        h_in[i] = i % 100;
        expected += h_in[i];
    }
    int *d_in, *d_total;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_total, sizeof(int));
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    cudaMemset(d_total, 0, sizeof(int));
    total_sum<<<BLOCKS, THREADS>>>(d_in, d_total);
    cudaMemcpy(&result, d_total, sizeof(int), cudaMemcpyDeviceToHost);
    printf("total %d (expected %d)\n", result, expected);
    cudaFree(d_in);
    cudaFree(d_total);
    return result == expected ? 0 : 1;
}
