// smem_tree_sync: two blocks, each sums its 256 values with a halving tree in shared memory,
// a __syncthreads() after every step. Correct.
// expect: clean
#include <stdio.h>

#define THREADS 256
#define BLOCKS 2

__global__ void block_sums(const unsigned *in, unsigned *out) {
    __shared__ unsigned s[THREADS];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * THREADS + t];
    __syncthreads();
    for (unsigned offset = THREADS / 2; offset > 0; offset >>= 1) {
        if (t < offset) s[t] += s[t + offset];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

int main() {
    unsigned h_in[THREADS * BLOCKS], h_out[BLOCKS];
    for (int i = 0; i < THREADS * BLOCKS; ++i) h_in[i] = (unsigned)(i * 3 % 17);
    unsigned *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    block_sums<<<BLOCKS, THREADS>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int b = 0; b < BLOCKS; ++b) {
        unsigned expected = 0;
        for (int i = 0; i < THREADS; ++i) expected += h_in[b * THREADS + i];
        printf("block %d sum %u (expected %u)\n", b, h_out[b], expected);
        wrong += h_out[b] != expected;
    }
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
