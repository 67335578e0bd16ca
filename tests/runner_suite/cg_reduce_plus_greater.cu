// cg_reduce_plus_greater: cg::reduce over tiles of 32 with cg::plus<int> (each warp's sum) and over
// tiles of 16 with cg::greater<int> (each half-warp's maximum). Correct.
// expect: clean
#include <stdio.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

#define THREADS 96

__global__ void reductions(const int *in, int *sums, int *maxima) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<16> half = cg::tiled_partition<16>(block);
    int t = block.thread_rank(), v = in[t];
    int sum = cg::reduce(warp, v, cg::plus<int>());
    int biggest = cg::reduce(half, v, cg::greater<int>());
    if (warp.thread_rank() == 0) sums[t / 32] = sum;
    if (half.thread_rank() == 0) maxima[t / 16] = biggest;
}

int main() {
    int h_in[THREADS], h_sums[THREADS / 32], h_max[THREADS / 16];
    for (int i = 0; i < THREADS; ++i) h_in[i] = (i * 37) % 53 - 20;
    int *d_in, *d_sums, *d_max;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_sums, sizeof h_sums);
    cudaMalloc(&d_max, sizeof h_max);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    reductions<<<1, THREADS>>>(d_in, d_sums, d_max);
    cudaMemcpy(h_sums, d_sums, sizeof h_sums, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_max, d_max, sizeof h_max, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int w = 0; w < THREADS / 32; ++w) {
        int s = 0;
        for (int i = w * 32; i < w * 32 + 32; ++i) s += h_in[i];
        wrong += h_sums[w] != s;
    }
    for (int h = 0; h < THREADS / 16; ++h) {
        int m = h_in[h * 16];
        for (int i = h * 16; i < h * 16 + 16; ++i) m = h_in[i] > m ? h_in[i] : m;
        wrong += h_max[h] != m;
    }
    printf("sums %d %d %d, max of the first 16 %d, wrong %d\n", h_sums[0], h_sums[1], h_sums[2], h_max[0], wrong);
    cudaFree(d_in);
    cudaFree(d_sums);
    cudaFree(d_max);
    return wrong ? 1 : 0;
}
