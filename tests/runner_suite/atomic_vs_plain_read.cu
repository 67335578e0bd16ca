// atomic_vs_plain_read: every thread adds 1 to a shared counter with atomicAdd, and thread 0 reads
// the counter with a plain load before any barrier: the read races with the other threads'
// atomics (it may see any count). racecheck reports it.
// expect: exit=1 finding="race on shared memory" line=14
#include <stdio.h>

#define THREADS 64

__global__ void count(int *out) {
    __shared__ int s_count;
    if (threadIdx.x == 0) s_count = 0;
    __syncthreads();
    atomicAdd(&s_count, 1);
    if (threadIdx.x == 0) *out = s_count; // <- finding
}

int main() {
    int result = 0;
    int *d_out;
    cudaMalloc(&d_out, sizeof(int));
    count<<<1, THREADS>>>(d_out);
    cudaMemcpy(&result, d_out, sizeof(int), cudaMemcpyDeviceToHost);
    printf("count %d (expected %d)\n", result, THREADS);
    cudaFree(d_out);
    return result == THREADS ? 0 : 1;
}
