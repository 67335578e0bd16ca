// histogram_plain: the shared-memory histogram counting with a plain `s_bins[v]++`: threads of a
// block whose bytes fall in one bin read-modify-write one word at once (racecheck reports it;
// counts are lost on a GPU).
// expect: exit=1 finding="race on shared memory" line=16
#include <stdio.h>

#define BINS 64
#define N 1024
#define BLOCKS 2

__global__ void histogram(const unsigned char *in, unsigned *bins) {
    __shared__ unsigned s_bins[BINS];
    int t = threadIdx.x;
    s_bins[t] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < N; i += gridDim.x * blockDim.x) s_bins[in[i]]++; // <- finding
    __syncthreads();
    atomicAdd(&bins[t], s_bins[t]);
}

int main() {
    static unsigned char h_in[N];
    unsigned h_bins[BINS], expected[BINS] = {0};
    for (int i = 0; i < N; ++i) {
        h_in[i] = (unsigned char)(i % 7);
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
    printf("bin 0 %u (expected %u), wrong bins %d\n", h_bins[0], expected[0], wrong);
    cudaFree(d_in);
    cudaFree(d_bins);
    return wrong ? 1 : 0;
}
