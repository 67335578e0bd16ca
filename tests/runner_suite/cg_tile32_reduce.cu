// cg_tile32_reduce: cooperative groups: this_thread_block(), tiled_partition<32>, each tile sums
// with tile.shfl_down, the tiles' sums meet in shared memory after block.sync(). Correct.
// expect: clean
#include <stdio.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define THREADS 128

__global__ void block_sum(const int *in, int *out) {
    __shared__ int s_tiles[THREADS / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int v = in[block.thread_rank()];
    for (int offset = tile.size() / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
    if (tile.thread_rank() == 0) s_tiles[block.thread_rank() / 32] = v;
    block.sync();
    if (block.thread_rank() == 0) {
        int sum = 0;
        for (int k = 0; k < THREADS / 32; ++k) sum += s_tiles[k];
        *out = sum;
    }
}

int main() {
    int h_in[THREADS], expected = 0, result = 0;
    for (int i = 0; i < THREADS; ++i) {
        h_in[i] = i * 3 - 100;
        expected += h_in[i];
    }
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof(int));
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    block_sum<<<1, THREADS>>>(d_in, d_out);
    cudaMemcpy(&result, d_out, sizeof(int), cudaMemcpyDeviceToHost);
    printf("sum %d (expected %d)\n", result, expected);
    cudaFree(d_in);
    cudaFree(d_out);
    return result == expected ? 0 : 1;
}
