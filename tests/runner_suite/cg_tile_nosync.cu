// cg_tile_nosync: a tile of 32 exchanges values through shared memory (each lane reads the lane
// 16 away) with no tile.sync() between the stores and the loads: lanes are independent since
// Volta (racecheck reports the hazard).
// expect: exit=1 finding="race on shared memory" line=18
#include <stdio.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define THREADS 64

__global__ void swap_halves(const int *in, int *out) {
    __shared__ int s[THREADS];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int t = block.thread_rank();
    s[t] = in[t] * 2;
    int other = t - tile.thread_rank() + (tile.thread_rank() + 16) % 32;
    out[t] = s[other]; // <- finding
}

int main() {
    int h_in[THREADS], h_out[THREADS];
    for (int i = 0; i < THREADS; ++i) h_in[i] = i;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    swap_halves<<<1, THREADS>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < THREADS; ++i) wrong += h_out[i] != 2 * (i / 32 * 32 + (i % 32 + 16) % 32);
    printf("out[0] %d out[16] %d, wrong %d\n", h_out[0], h_out[16], wrong);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
