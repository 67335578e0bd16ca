// threadfence_missing: the Programming Guide's "last block" sum without its __threadfence(): a block
// stores its partial sum and takes a ticket with atomicInc at once, so the last block may read a
// partial that is not yet visible (no GPU tool reports it; it fails rarely on a GPU).
// expect: exit=1 finding="race on global memory between blocks" line=30
#include <stdio.h>

#define BLOCKS 8
#define THREADS 64

__device__ unsigned int blocks_done = 0;

__global__ void sum(const float *in, float *partial, float *total) {
    __shared__ float s[THREADS];
    __shared__ bool am_last;
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * THREADS + t];
    __syncthreads();
    for (int offset = THREADS / 2; offset > 0; offset /= 2) {
        if (t < offset) s[t] += s[t + offset];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = s[0];
        unsigned int ticket = atomicInc(&blocks_done, gridDim.x);
        am_last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (am_last && t == 0) {
        float all = 0.0f;
        for (int b = 0; b < gridDim.x; ++b) all += partial[b]; // <- finding
        *total = all;
        blocks_done = 0;
    }
}

int main() {
    static float h_in[BLOCKS * THREADS];
    float expected = 0.0f, result = 0.0f;
    for (int i = 0; i < BLOCKS * THREADS; ++i) {
        h_in[i] = (float)(i % 13);
        expected += h_in[i];
    }
    float *d_in, *d_partial, *d_total;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_partial, BLOCKS * sizeof(float));
    cudaMalloc(&d_total, sizeof(float));
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    for (int run = 0; run < 2; ++run) sum<<<BLOCKS, THREADS>>>(d_in, d_partial, d_total);
    cudaMemcpy(&result, d_total, sizeof(float), cudaMemcpyDeviceToHost);
    printf("total %g (expected %g)\n", result, expected);
    cudaFree(d_in);
    cudaFree(d_partial);
    cudaFree(d_total);
    return result == expected ? 0 : 1;
}
