// cg_reduce_divergent: cg::reduce over a tile of 16 called inside `if (tile.thread_rank() < 8)`:
// half of the tile never takes part and exits. Every thread of a tile must call a collective:
// undefined on a GPU.
// expect: exit=1 finding="warp operation whose mask names a lane that has exited" line=17
#include <stdio.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

#define THREADS 32

__global__ void low_sums(const int *in, int *out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    int v = in[block.thread_rank()];
    if (tile.thread_rank() < 8) {
        int sum = cg::reduce(tile, v, cg::plus<int>()); // <- finding
        if (tile.thread_rank() == 0) out[block.thread_rank() / 16] = sum;
    }
}

int main() {
    int h_in[THREADS], h_out[2] = {0, 0};
    for (int i = 0; i < THREADS; ++i) h_in[i] = 1;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    low_sums<<<1, THREADS>>>(d_in, d_out);
    cudaError_t error = cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    printf("%s: sums %d %d (expected 8 8)\n", cudaGetErrorString(error), h_out[0], h_out[1]);
    cudaFree(d_in);
    cudaFree(d_out);
    return h_out[0] == 8 && h_out[1] == 8 ? 0 : 1;
}
