// barrier_uniform_if: __syncthreads() inside an if whose condition is the same for every thread
// of the block (it depends on blockIdx only): even blocks reverse their values, odd blocks rotate
// them. Correct.
// expect: clean
#include <stdio.h>

#define B 32
#define BLOCKS 4

__global__ void shuffle_blocks(const int *in, int *out) {
    __shared__ int s[B];
    int t = threadIdx.x;
    int i = blockIdx.x * B + t;
    if (blockIdx.x % 2 == 0) {
        s[t] = in[i];
        __syncthreads();
        out[i] = s[B - 1 - t];
    } else {
        s[(t + 1) % B] = in[i];
        __syncthreads();
        out[i] = s[t];
    }
}

int main() {
    int h_in[B * BLOCKS], h_out[B * BLOCKS];
    for (int i = 0; i < B * BLOCKS; ++i) h_in[i] = 1000 + i;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    shuffle_blocks<<<BLOCKS, B>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int b = 0; b < BLOCKS; ++b)
        for (int t = 0; t < B; ++t) {
            int expected = b % 2 == 0 ? h_in[b * B + B - 1 - t] : h_in[b * B + (t + B - 1) % B];
            wrong += h_out[b * B + t] != expected;
        }
    printf("out[0] %d out[32] %d, wrong %d\n", h_out[0], h_out[B], wrong);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
