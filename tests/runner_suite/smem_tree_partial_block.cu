// smem_tree_partial_block: a tree sum written for 64 threads, launched with 48: the first step
// adds s[t + 32] for t < 32, and s[48..63] were never written by any thread of the block. No GPU
// tool reports it (initcheck checks global memory only); the sum is garbage.
// expect: exit=1 finding="read of shared memory that no thread of this block wrote" line=16
#include <stdio.h>

#define SIZE 64
#define THREADS 48

__global__ void tree_sum(const int *in, int *out) {
    __shared__ int s[SIZE];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    for (int offset = SIZE / 2; offset > 0; offset /= 2) {
        if (t < offset) s[t] += s[t + offset]; // <- finding
        __syncthreads();
    }
    if (t == 0) *out = s[0];
}

int main() {
    int h_in[THREADS], expected = 0, result = 0;
    for (int i = 0; i < THREADS; ++i) {
        h_in[i] = 2 * i;
        expected += 2 * i;
    }
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof(int));
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    tree_sum<<<1, THREADS>>>(d_in, d_out);
    cudaMemcpy(&result, d_out, sizeof(int), cudaMemcpyDeviceToHost);
    printf("sum %d (expected %d)\n", result, expected);
    cudaFree(d_in);
    cudaFree(d_out);
    return result == expected ? 0 : 1;
}
