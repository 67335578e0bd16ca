// shfl_down_reduce: a block of 256 sums its values with __shfl_down_sync in each warp, the warps'
// sums meet in shared memory, and the first warp sums those with shuffles again. Correct.
// expect: clean
#include <stdio.h>

#define THREADS 256
#define WARPS (THREADS / 32)

__global__ void block_sum(const int *in, int *out) {
    __shared__ int s_warp[WARPS];
    int t = threadIdx.x, lane = t % 32, warp = t / 32;
    int v = in[t];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0) s_warp[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < WARPS ? s_warp[lane] : 0;
        for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
        if (lane == 0) *out = v;
    }
}

int main() {
    int h_in[THREADS], expected = 0, result = 0;
    for (int i = 0; i < THREADS; ++i) {
        h_in[i] = i % 9 - 3;
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
