// histogram_atomic: a 256-bin histogram of 4096 bytes: each block counts into shared bins with
// atomicAdd, then adds its bins into the global histogram with atomicAdd. Correct.
// expect: clean
#include <stdio.h>

#define BINS 256
#define N 4096
#define BLOCKS 4

__global__ void histogram(const unsigned char *in, unsigned *bins) {
    __shared__ unsigned s_bins[BINS];
    int t = threadIdx.x;
    s_bins[t] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < N; i += gridDim.x * blockDim.x) atomicAdd(&s_bins[in[i]], 1u);
    __syncthreads();
    if (s_bins[t]) atomicAdd(&bins[t], s_bins[t]);
}

int main() {
    static unsigned char h_in[N];
    unsigned h_bins[BINS], expected[BINS] = {0};
    for (int i = 0; i < N; ++i) {
        h_in[i] = (unsigned char)((i * i + 3 * i) % 23);
        ++expected[h_in[i]];
    }
    unsigned char *d_in;
    unsigned *d_bins;
    cudaMalloc(&d_in, N);
    cudaMalloc(&d_bins, sizeof h_bins);
    cudaMemcpy(d_in, h_in, N, cudaMemcpyHostToDevice);
    cudaMemset(d_bins, 0, sizeof h_bins);
    histogram<<<BLOCKS, BINS>>>(d_in, d_bins);
    cudaMemcpy(h_bins, d_bins, sizeof h_bins, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int b = 0; b < BINS; ++b) wrong += h_bins[b] != expected[b];
    printf("bin 0 %u bin 1 %u, wrong bins %d\n", h_bins[0], h_bins[1], wrong);
    cudaFree(d_in);
    cudaFree(d_bins);
    return wrong ? 1 : 0;
}
