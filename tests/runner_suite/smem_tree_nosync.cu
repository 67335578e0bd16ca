// smem_tree_nosync: a block's tree sum in shared memory with no __syncthreads() inside the loop:
// each step reads partial sums other threads wrote in the step before, with no barrier between.
// A GPU: racecheck reports the hazard; the sum depends on the threads' timing.
// expect: exit=1 finding="race on shared memory" line=15
#include <stdio.h>

#define N 128

__global__ void tree_sum(const int *in, int *out) {
    __shared__ int s[N];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    for (int offset = N / 2; offset > 0; offset /= 2) {
        if (t < offset) s[t] += s[t + offset]; // <- finding
    }
    __syncthreads();
    if (t == 0) *out = s[0];
}

int main() {
    int h_in[N], expected = 0, result = 0;
    for (int i = 0; i < N; ++i) {
        h_in[i] = i + 1;
        expected += i + 1;
    }
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof(int));
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    tree_sum<<<1, N>>>(d_in, d_out);
    cudaMemcpy(&result, d_out, sizeof(int), cudaMemcpyDeviceToHost);
    printf("sum %d (expected %d)\n", result, expected);
    cudaFree(d_in);
    cudaFree(d_out);
    return result == expected ? 0 : 1;
}
