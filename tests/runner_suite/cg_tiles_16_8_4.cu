// cg_tiles_16_8_4: tiled_partition<16>, <8> and <4> of one block: each tile sums with shfl_down,
// votes with ballot, any and all, and reports its size and thread_rank. Correct.
// expect: clean
#include <stdio.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define THREADS 64

template <unsigned SIZE> __device__ int tile_sum(cg::thread_block_tile<SIZE> tile, int v) {
    for (unsigned offset = SIZE / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
    return tile.shfl(v, 0);
}

__global__ void tiles(const int *in, int *out) {
    cg::thread_block block = cg::this_thread_block();
    int t = block.thread_rank(), v = in[t];
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
    cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(block);
    out[t * 6 + 0] = tile_sum(t16, v);
    out[t * 6 + 1] = tile_sum(t8, v);
    out[t * 6 + 2] = tile_sum(t4, v);
    out[t * 6 + 3] = (int)t8.ballot(v % 2 == 0);
    out[t * 6 + 4] = t16.any(v == 20) * 10 + t4.all(v < 40);
    out[t * 6 + 5] = (int)(t16.size() * 100 + t4.thread_rank());
}

int main() {
    int h_in[THREADS], h_out[THREADS * 6];
    for (int i = 0; i < THREADS; ++i) h_in[i] = i;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    tiles<<<1, THREADS>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int t = 0; t < THREADS; ++t) {
        int sums[3] = {0, 0, 0}, sizes[3] = {16, 8, 4};
        for (int k = 0; k < 3; ++k)
            for (int j = t / sizes[k] * sizes[k]; j < (t / sizes[k] + 1) * sizes[k]; ++j) sums[k] += h_in[j];
        int base16 = t / 16 * 16, base4 = t / 4 * 4;
        int any20 = base16 <= 20 && 20 < base16 + 16, all40 = base4 + 3 < 40;
        int expected[6] = {sums[0], sums[1], sums[2], 0x55, any20 * 10 + all40, 1600 + t % 4};
        for (int k = 0; k < 6; ++k) wrong += h_out[t * 6 + k] != expected[k];
    }
    printf("thread 21: %d %d %d %x %d %d, wrong %d\n", h_out[126], h_out[127], h_out[128], h_out[129], h_out[130],
           h_out[131], wrong);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
